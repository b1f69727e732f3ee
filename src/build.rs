//! Library build (paper Figure 2, bottom): from a parsed library to its method
//! repository R, store S, public names P and abstract names A.
//!
//! The build also compiles every body to the engine's IR (`symbolic::ir`), resolving
//! names over the whole file: declaration order carries no meaning in HOLi. When a
//! name is declared twice the first declaration wins (the front end reports the clash).
//!
//! ML-like references (`lang/references.md`): the named `!x` and `x := e` that the
//! checker resolved to a local compile to reads and writes through the local's
//! location; a `ref θ x := ref v;` declaration allocates its cells here, in
//! [`Library::cells`], owned by the library and disclosed to nobody.

pub use crate::symbolic::ir::GlobalName;
use crate::symbolic::ir::{
    CodeId, Compiler, Expr, ExprKind, FunCode, ImportId, MethodId, RefId, Scope, TypeId, Types,
};
use crate::syntax::ast::{Decl, Program, Span, Static, Type, Visibility};
use crate::trace::FailureKind;
use num_bigint::BigInt;
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};

/// A public or private method of the library.
#[derive(Debug)]
pub struct Method {
    pub name: String,
    pub visibility: Visibility,
    pub code: CodeId,
}

/// An abstract (client-owned) method declared by `import`.
#[derive(Debug)]
pub struct Import {
    pub name: String,
    pub ty: TypeId,
}

/// The initial content of a reference or of a cell.
#[derive(Clone, Debug)]
pub enum Initial {
    Int(BigInt),
    Name(GlobalName),
    /// Never declared, only assigned somewhere: reading it before any assignment is stuck.
    Absent,
    Unit,
    Pair(Box<Initial>, Box<Initial>),
    /// A location: an index into [`Library::cells`].
    Loc(u32),
}

/// A cell allocated by a `ref` declaration.
#[derive(Clone, Debug)]
pub struct InitialCell {
    /// The type of the values it holds (unknown only in an ill-typed declaration).
    pub ty: Option<TypeId>,
    pub content: Initial,
}

/// A built library: R (static part), S, P and A.
#[derive(Debug)]
pub struct Library {
    pub types: Types,
    /// Code of methods, `letrec` functions and lambdas.
    pub codes: Vec<FunCode>,
    pub methods: Vec<Method>,
    pub imports: Vec<Import>,
    /// Reference names, by [`RefId`].
    pub refs: Vec<String>,
    /// The initial store, by [`RefId`].
    pub store: Vec<Initial>,
    /// The cells `ref` declarations allocate, by location number.
    pub cells: Vec<InitialCell>,
    /// Names that resolve to nothing, by [`UndeclaredId`].
    pub undeclared: Vec<String>,
    /// The public methods, in declaration order: the client's initial choices.
    pub public: Vec<MethodId>,
    /// Where each method is declared, by [`MethodId`].
    pub method_spans: Vec<Span>,
    /// Whether some path may get stuck: the code mentions an undeclared name or
    /// reference, or the checker found an ill-typed expression in a method (W0201,
    /// which may make an operation get a value of the wrong shape). Without these
    /// a path never gets stuck, so a search that cannot tell every stuck place may
    /// still say safe ([`crate::symbolic::split`]).
    pub may_get_stuck: bool,
    /// By [`MethodId`], whether the checker found an ill-typed expression in the
    /// method's code (W0201): its values need not have the types it declares.
    pub ill_typed: Vec<bool>,
    /// Whether the program uses ML-like references (`lang/references.md`). Without
    /// them no location ever exists, and the search is exactly the one for HOLiK's
    /// fragment; with them, the prunings not argued for locations are off.
    pub uses_refs: bool,
}

impl Library {
    pub fn code(&self, id: CodeId) -> &FunCode {
        &self.codes[id as usize]
    }

    pub fn method_code(&self, id: MethodId) -> &FunCode {
        self.code(self.methods[id as usize].code)
    }

    /// Every place its code can fail ([`crate::symbolic::ir::Expr::failure_sites`]).
    pub fn failure_sites(&self) -> Vec<(FailureKind, Span)> {
        self.sites_in(|_| true)
    }

    /// The failure sites in [`Library::live_codes`], in the order of
    /// [`Library::failure_sites`]; no run of any client reaches the others.
    pub fn live_failure_sites(&self) -> Vec<(FailureKind, Span)> {
        let live = self.live_codes();
        self.sites_in(|code| live.contains(&code))
    }

    fn sites_in(&self, keep: impl Fn(CodeId) -> bool) -> Vec<(FailureKind, Span)> {
        let mut sites = Vec::new();
        for (id, code) in self.codes.iter().enumerate() {
            if keep(id as CodeId) {
                code.body.failure_sites(&mut sites);
            }
        }
        sites
            .into_iter()
            .map(|(kind, span)| (kind, span.clone()))
            .collect()
    }

    /// Codes that can become function values: lambdas, `letrec` functions, and methods
    /// mentioned other than as the function of an application.
    pub fn value_codes(&self) -> HashSet<CodeId> {
        let lib = self;
        let method_codes: HashSet<CodeId> = lib.methods.iter().map(|m| m.code).collect();
        let mut out: HashSet<CodeId> = (0..lib.codes.len() as CodeId)
            .filter(|c| !method_codes.contains(c))
            .collect();
        fn walk(lib: &Library, e: &Expr, out: &mut HashSet<CodeId>) {
            match &e.kind {
                ExprKind::Global(GlobalName::Method(m)) => {
                    out.insert(lib.methods[*m as usize].code);
                }
                // A method applied directly is called, not passed around.
                ExprKind::App(f, a)
                    if matches!(f.kind, ExprKind::Global(GlobalName::Method(_))) =>
                {
                    walk(lib, a, out)
                }
                _ => {
                    for child in e.children() {
                        walk(lib, child, out);
                    }
                }
            }
        }
        for code in &lib.codes {
            walk(lib, &code.body, &mut out);
        }
        for initial in &lib.store {
            if let Initial::Name(GlobalName::Method(m)) = initial {
                out.insert(lib.methods[*m as usize].code);
            }
        }
        out
    }

    /// The codes some run can execute: the public methods', the methods' the initial
    /// store and cells hold, and every code such code mentions (a method it calls or
    /// passes on, a lambda or `letrec` function it makes), transitively. Code runs
    /// only when called, and a call's callee is a public method (the client's call) or
    /// a function value; every function value is made by code that runs or held by
    /// the initial store, and the client only gets values the library's runs give it.
    /// So no client reaches the other codes: a private method named only in its own
    /// body (HOLiK's flat combiner in `various_mains`), and the lambdas it makes.
    pub fn live_codes(&self) -> HashSet<CodeId> {
        fn names(initial: &Initial, out: &mut Vec<MethodId>) {
            match initial {
                Initial::Name(GlobalName::Method(m)) => out.push(*m),
                Initial::Pair(a, b) => {
                    names(a, out);
                    names(b, out);
                }
                _ => {}
            }
        }
        fn mentions(e: &Expr, lib: &Library, out: &mut Vec<CodeId>) {
            match &e.kind {
                ExprKind::Global(GlobalName::Method(m)) => out.push(lib.methods[*m as usize].code),
                ExprKind::Lambda(code) | ExprKind::LetRec(code, _) => out.push(*code),
                _ => {}
            }
            for child in e.children() {
                mentions(child, lib, out);
            }
        }
        let mut held = Vec::new();
        for initial in self
            .store
            .iter()
            .chain(self.cells.iter().map(|c| &c.content))
        {
            names(initial, &mut held);
        }
        let mut todo: Vec<CodeId> = self
            .public
            .iter()
            .chain(&held)
            .map(|&m| self.methods[m as usize].code)
            .collect();
        let mut live = HashSet::new();
        while let Some(code) = todo.pop() {
            if live.insert(code) {
                mentions(&self.code(code).body, self, &mut todo);
            }
        }
        live
    }

    /// Whether `name` is a method, import or undeclared name of this library: the names
    /// a trace prints as themselves.
    pub fn is_declared(&self, name: &str) -> bool {
        self.methods.iter().any(|m| m.name == name)
            || self.imports.iter().any(|i| i.name == name)
            || self.undeclared.iter().any(|u| u == name)
    }

    pub fn reference(&self, name: &str) -> Option<RefId> {
        self.refs.iter().position(|r| r == name).map(|i| i as RefId)
    }
}

/// Builds `program` into a library. Infallible: ill-formed names are kept as
/// undeclared names, whose use ends a path exactly where HOLiK's evaluation is stuck.
pub fn build(program: &Program) -> Library {
    let resolution = crate::types::resolve(program);
    let mut compiler = Compiler::default();
    compiler.resolution = Some(&resolution);
    let mut imports = Vec::new();
    let mut import_index = HashMap::new();
    for import in &program.imports {
        if import_index.contains_key(&import.name.name) {
            continue;
        }
        import_index.insert(import.name.name.clone(), imports.len() as ImportId);
        imports.push(Import {
            name: import.name.name.clone(),
            ty: compiler.types.intern(&import.ty),
        });
    }

    // First pass: every method name, so bodies can call methods declared after them.
    let mut method_index = HashMap::new();
    let mut method_decls = Vec::new();
    for decl in &program.decls {
        if let Decl::Method(m) = decl {
            if method_index.contains_key(&m.name.name) {
                continue;
            }
            method_index.insert(m.name.name.clone(), method_decls.len() as MethodId);
            method_decls.push(m);
        }
    }
    // References declared anywhere get their slots first, in declaration order.
    for decl in &program.decls {
        if let Decl::IntRef { name, .. } | Decl::FunRef { name, .. } | Decl::RefDecl { name, .. } =
            decl
        {
            compiler.reference(&name.name);
        }
    }

    let scope = Scope {
        methods: &method_index,
        imports: &import_index,
    };
    let mut methods = Vec::new();
    let mut method_spans = Vec::new();
    for m in &method_decls {
        let code = compiler.function(
            &scope,
            &mut Vec::new(),
            Some(&m.name.name),
            false,
            &m.func,
            m.span.clone(),
        );
        methods.push(Method {
            name: m.name.name.clone(),
            visibility: m.visibility,
            code,
        });
        method_spans.push(m.span.clone());
    }

    let mut initial: HashMap<RefId, Initial> = HashMap::new();
    let mut cells = Vec::new();
    for decl in &program.decls {
        match decl {
            Decl::IntRef { name, init, .. } => {
                let id = compiler.reference(&name.name);
                initial.entry(id).or_insert(Initial::Int(init.clone()));
            }
            Decl::FunRef { name, target, .. } => {
                let id = compiler.reference(&name.name);
                let value = compiler.global(&scope, &target.name);
                initial.entry(id).or_insert(Initial::Name(value));
            }
            Decl::RefDecl { name, ty, init, .. } => {
                let id = compiler.reference(&name.name);
                if let Entry::Vacant(slot) = initial.entry(id) {
                    let value = allocate(&mut compiler, &scope, &mut cells, init, Some(ty));
                    slot.insert(value);
                }
            }
            Decl::Method(_) => {}
        }
    }
    let store: Vec<Initial> = (0..compiler.refs.len() as RefId)
        .map(|id| initial.remove(&id).unwrap_or(Initial::Absent))
        .collect();
    let public = methods
        .iter()
        .enumerate()
        .filter(|(_, m)| m.visibility == Visibility::Public)
        .map(|(i, _)| i as MethodId)
        .collect();

    // The checker also checks `main`, which is the client's code, not the library's.
    let in_methods = |span: &Span| {
        method_spans
            .iter()
            .any(|m| m.start <= span.start && span.end <= m.end)
    };
    let mismatches: Vec<Span> = crate::types::check_program("", program)
        .into_iter()
        .filter(|d| d.code == "W0201")
        .flat_map(|d| d.labels.into_iter().map(|l| l.span))
        .filter(in_methods)
        .collect();
    let ill_typed = method_spans
        .iter()
        .map(|m| {
            mismatches
                .iter()
                .any(|span| m.start <= span.start && span.end <= m.end)
        })
        .collect();
    let may_get_stuck = !compiler.undeclared.is_empty()
        || store.iter().any(|i| matches!(i, Initial::Absent))
        || !mismatches.is_empty();
    Library {
        may_get_stuck,
        ill_typed,
        uses_refs: crate::references::first_use(program).is_some(),
        types: compiler.types,
        codes: compiler.codes,
        methods,
        imports,
        refs: compiler.refs,
        store,
        cells,
        undeclared: compiler.undeclared,
        public,
        method_spans,
    }
}

/// The value of the static initialiser `init` of type `ty` (when known), allocating
/// the cells its `ref`s make.
fn allocate(
    compiler: &mut Compiler,
    scope: &Scope,
    cells: &mut Vec<InitialCell>,
    init: &Static,
    ty: Option<&Type>,
) -> Initial {
    match init {
        Static::Int(i) => Initial::Int(i.clone()),
        Static::Unit => Initial::Unit,
        Static::Name(m) => Initial::Name(compiler.global(scope, &m.name)),
        Static::Pair(a, b) => {
            let (ta, tb) = match ty {
                Some(Type::Pair(ta, tb)) => (Some(&**ta), Some(&**tb)),
                _ => (None, None),
            };
            Initial::Pair(
                Box::new(allocate(compiler, scope, cells, a, ta)),
                Box::new(allocate(compiler, scope, cells, b, tb)),
            )
        }
        Static::Ref(content) => {
            let content_ty = match ty {
                Some(Type::Ref(c)) => Some(&**c),
                _ => None,
            };
            let n = cells.len();
            cells.push(InitialCell {
                ty: content_ty.map(|t| compiler.types.intern(t)),
                content: Initial::Unit,
            });
            cells[n].content = allocate(compiler, scope, cells, content, content_ty);
            Initial::Loc(n as u32)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn library(source: &str) -> Library {
        let loaded = crate::frontend::load_str("t.holi", source, false)
            .unwrap_or_else(|r| panic!("{}", r.render(false)));
        build(&loaded.program)
    }

    #[test]
    fn only_code_some_run_executes_is_live() {
        let source = "public a (u:unit) :(unit -> unit) = { b(); assert(1 == 1); held };
             private b (u:unit) :(unit) = { assert(2 == 2) };
             private held (u:unit) :(unit) = { assert(3 == 3) };
             private stored (u:unit) :(unit) = { assert(4 == 4) };
             private dead (u:unit) :(unit) = {
                 assert(5 == 5); dead(); (fun (x:int) :(unit) -> assert(6 == 6)) 0 };
             private deader (u:unit) :(unit) = { assert(7 == 7); dead() };
             fun f := stored;";
        let lib = library(source);
        let text = |sites: Vec<(FailureKind, Span)>| -> Vec<&str> {
            sites
                .iter()
                .map(|(_, span)| &source[span.clone()])
                .collect()
        };
        assert_eq!(
            text(lib.live_failure_sites()),
            [
                "assert(1 == 1)",
                "assert(2 == 2)",
                "assert(3 == 3)",
                "assert(4 == 4)"
            ]
        );
        assert_eq!(lib.failure_sites().len(), 7);
    }

    #[test]
    fn names_resolve_over_the_whole_file() {
        let lib = library(
            "import send :(int -> unit)
             public a (u:unit) :(unit) = { b(!r); send(1) };
             private b (x:int) :(unit) = { () };
             int r := 5;
             fun f := b;",
        );
        assert_eq!(lib.public, vec![0]);
        assert_eq!(lib.methods[1].name, "b");
        assert_eq!(lib.imports[0].name, "send");
        let r = lib.reference("r").unwrap();
        assert!(matches!(&lib.store[r as usize], Initial::Int(i) if *i == BigInt::from(5)));
        let f = lib.reference("f").unwrap();
        assert!(matches!(
            lib.store[f as usize],
            Initial::Name(GlobalName::Method(1))
        ));
        assert!(lib.undeclared.is_empty());
        assert!(!lib.may_get_stuck);
    }

    #[test]
    fn undeclared_names_and_references_are_kept() {
        let lib = library("public a (u:unit) :(unit) = { ghost := 1; missing() };");
        assert_eq!(lib.undeclared, vec!["missing".to_string()]);
        let ghost = lib.reference("ghost").unwrap();
        assert!(matches!(lib.store[ghost as usize], Initial::Absent));
        assert!(lib.is_declared("missing") && lib.is_declared("a"));
        assert!(!lib.is_declared("f1"));
        assert!(lib.may_get_stuck);
    }

    #[test]
    fn ill_typed_code_may_get_stuck() {
        let lib = library("int r := 0; public a (u:unit) :(unit) = { r := !r 1 };");
        assert!(lib.may_get_stuck);
        assert!(lib.undeclared.is_empty());
        // An ill-typed client `main` is not the library's code.
        let lib = library("public a (u:unit) :(unit) = { () };\nmain = { a 1 };");
        assert!(!lib.may_get_stuck);
    }
}
