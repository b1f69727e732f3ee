//! The build: from a parsed, checked library to a [`Library`].
//!
//! Every body is compiled to the IR ([`super::ir`]), names resolved over the whole
//! file: declaration order carries no meaning in HOLi. When a name is declared twice
//! the first declaration wins (the front end reports the clash).
//!
//! ML-like references (`lang/references.md`): the named `!x` and `x := e` that the
//! checker resolved to a local compile to reads and writes through the local's
//! location; a `ref θ x := ref v;` declaration allocates its cells here, in
//! [`Library::cells`], owned by the library and disclosed to nobody.

use super::built::{Import, Initial, InitialCell, Library, Method};
use super::ir::{
    CodeId, Expr, ExprKind, FunCode, GlobalName, ImportId, MethodId, Names, RefId, TypeId,
    TypeNode, Types, UndeclaredId,
};
use crate::syntax::ast::{self, Decl, Program, Span, Static, Type};
use num_bigint::BigInt;
use std::collections::hash_map::Entry;
use std::collections::HashMap;

/// Builds `program` into a library. Infallible: ill-formed names are kept as
/// undeclared names, whose use ends a path exactly where HOLiK's evaluation is stuck.
pub fn build(program: &Program) -> Library {
    let resolution = crate::types::resolve(program);
    let mut compiler = Compiler {
        resolution: Some(&resolution),
        ..Compiler::default()
    };
    let mut imports = Vec::new();
    let mut import_index = HashMap::new();
    for import in &program.imports {
        if import_index.contains_key(&import.name.name) {
            continue;
        }
        import_index.insert(import.name.name.clone(), imports.len() as ImportId);
        imports.push(Import {
            name: import.name.name.clone(),
            ty: intern(&mut compiler.types, &import.ty),
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
    let mut ref_declared = vec![false; compiler.refs.len()];
    for decl in &program.decls {
        if let Decl::RefDecl { name, .. } = decl {
            ref_declared[compiler.reference(&name.name) as usize] = true;
        }
    }
    let store: Vec<Initial> = (0..compiler.refs.len() as RefId)
        .map(|id| initial.remove(&id).unwrap_or(Initial::Absent))
        .collect();
    let public = Library::public_of(&methods);

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
    let ill_typed: Vec<bool> = method_spans
        .iter()
        .map(|m| {
            mismatches
                .iter()
                .any(|span| m.start <= span.start && span.end <= m.end)
        })
        .collect();
    let undeclared = compiler.undeclared.into_vec();
    Library {
        may_get_stuck: Library::may_get_stuck_with(&undeclared, &store, &ill_typed),
        ill_typed,
        uses_refs: crate::references::first_use(program).is_some(),
        types: compiler.types,
        codes: compiler.codes,
        methods,
        imports,
        refs: compiler.refs.into_vec(),
        ref_declared,
        store,
        cells,
        cell_names: compiler.cell_names,
        undeclared,
        public,
        method_spans,
    }
}

/// The id of `ty` in `types`, its parts interned first (so ids follow the compiler's
/// order of first mention).
fn intern(types: &mut Types, ty: &Type) -> TypeId {
    let node = match ty {
        Type::Unit => TypeNode::Unit,
        Type::Int => TypeNode::Int,
        Type::Bool => TypeNode::Bool,
        Type::Ref(a) => TypeNode::Ref(intern(types, a)),
        Type::List(a) => TypeNode::List(intern(types, a)),
        Type::Pair(a, b) => TypeNode::Pair(intern(types, a), intern(types, b)),
        Type::Arrow(a, b) => TypeNode::Arrow(intern(types, a), intern(types, b)),
    };
    types.intern_node(node)
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
        Static::Nil => Initial::Nil,
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
                ty: content_ty.map(|t| intern(&mut compiler.types, t)),
                content: Initial::Unit,
            });
            cells[n].content = allocate(compiler, scope, cells, content, content_ty);
            Initial::Loc(n as u32)
        }
    }
}

/// The names a term can mention, in the order the compiler resolves them.
struct Scope<'a> {
    methods: &'a HashMap<String, MethodId>,
    imports: &'a HashMap<String, ImportId>,
}

/// Compiles terms; owns the tables that compilation extends (types, codes, references,
/// undeclared names).
#[derive(Default)]
struct Compiler<'r> {
    /// Which named `!x` and `x := e` go through a local, and the types of allocations
    /// (from the checker, for the program being compiled).
    resolution: Option<&'r crate::types::Resolution<'r>>,
    types: Types,
    codes: Vec<FunCode>,
    refs: Names,
    undeclared: Names,
    cell_names: Vec<(Span, String)>,
}

impl Compiler<'_> {
    /// The slot of reference `name`, created on first mention: an assignment to an
    /// undeclared reference creates it, as in HOLiK.
    fn reference(&mut self, name: &str) -> RefId {
        self.refs.id(name)
    }

    /// The local that the named form `e` (`!name` or `name := …`) reads or writes
    /// through, when the checker resolved it to one (`lang/references.md` §1.4).
    fn through_local(&self, locals: &[String], e: &ast::Expr, name: &str) -> Option<Expr> {
        if !self.resolution.is_some_and(|r| r.is_local(e)) {
            return None;
        }
        let i = locals.iter().rev().position(|l| l == name)?;
        Some(Expr {
            kind: ExprKind::Local(i as u32),
            span: e.span.clone(),
        })
    }

    fn undeclared(&mut self, name: &str) -> UndeclaredId {
        self.undeclared.id(name)
    }

    /// Resolves a global name (no local in scope).
    fn global(&mut self, scope: &Scope, name: &str) -> GlobalName {
        if let Some(&m) = scope.methods.get(name) {
            GlobalName::Method(m)
        } else if let Some(&i) = scope.imports.get(name) {
            GlobalName::Import(i)
        } else {
            GlobalName::Undeclared(self.undeclared(name))
        }
    }

    /// Compiles a function whose body sees `outer` plus (for `letrec`) itself and the parameter.
    fn function(
        &mut self,
        scope: &Scope,
        outer: &mut Vec<String>,
        name: Option<&str>,
        recursive: bool,
        func: &ast::Function,
        span: Span,
    ) -> CodeId {
        let param_ty = intern(&mut self.types, &func.param_ty);
        let ret_ty = intern(&mut self.types, &func.ret_ty);
        let ty = intern(&mut self.types, &func.ty());
        let mark = outer.len();
        if recursive {
            outer.push(name.unwrap_or_default().to_string());
        }
        outer.push(func.param.name.clone());
        let body = self.expr(scope, outer, &func.body);
        outer.truncate(mark);
        self.codes.push(FunCode {
            name: name.map(str::to_string),
            param_ty,
            ret_ty,
            ty,
            recursive,
            body,
            span,
        });
        (self.codes.len() - 1) as CodeId
    }

    /// Compiles `e` with `locals` the variables in scope, innermost last.
    fn expr(&mut self, scope: &Scope, locals: &mut Vec<String>, e: &ast::Expr) -> Expr {
        use ast::ExprKind as A;
        let boxed = |c: &mut Compiler, locals: &mut Vec<String>, e: &ast::Expr| {
            Box::new(c.expr(scope, locals, e))
        };
        let kind = match &e.kind {
            A::Var(name) => match locals.iter().rev().position(|l| l == name) {
                Some(i) => ExprKind::Local(i as u32),
                None => ExprKind::Global(self.global(scope, name)),
            },
            A::Int(i) => ExprKind::Int(i.clone()),
            A::Unit => ExprKind::Unit,
            A::Diverge => ExprKind::Diverge,
            A::Deref(r) => match self.through_local(locals, e, &r.name) {
                Some(local) => ExprKind::Load(Box::new(local)),
                None => ExprKind::Deref(self.reference(&r.name)),
            },
            A::Assign(r, value) => match self.through_local(locals, e, &r.name) {
                Some(local) => ExprKind::Store(Box::new(local), boxed(self, locals, value)),
                None => {
                    let id = self.reference(&r.name);
                    ExprKind::Assign(id, boxed(self, locals, value))
                }
            },
            A::Alloc(a) => {
                let ty = self
                    .resolution
                    .and_then(|r| r.allocated_type(e))
                    .map(|t| intern(&mut self.types, t));
                ExprKind::Alloc(boxed(self, locals, a), ty)
            }
            A::Load(a) => ExprKind::Load(boxed(self, locals, a)),
            A::Store(t, v) => ExprKind::Store(boxed(self, locals, t), boxed(self, locals, v)),
            A::App(f, a) => ExprKind::App(boxed(self, locals, f), boxed(self, locals, a)),
            A::Pair(a, b) => ExprKind::Pair(boxed(self, locals, a), boxed(self, locals, b)),
            A::Nil => ExprKind::Nil,
            A::Cons(a, b) => ExprKind::Cons(boxed(self, locals, a), boxed(self, locals, b)),
            A::Match {
                scrutinee,
                nil,
                head,
                tail,
                cons,
            } => {
                let scrutinee = boxed(self, locals, scrutinee);
                let nil = boxed(self, locals, nil);
                locals.push(head.name.clone());
                locals.push(tail.name.clone());
                let cons = boxed(self, locals, cons);
                locals.truncate(locals.len() - 2);
                ExprKind::Match(scrutinee, nil, cons)
            }
            A::Fst(a) => ExprKind::Fst(boxed(self, locals, a)),
            A::Snd(a) => ExprKind::Snd(boxed(self, locals, a)),
            A::Not(a) => ExprKind::Not(boxed(self, locals, a)),
            A::Binary(op, a, b) => {
                ExprKind::Binary(*op, boxed(self, locals, a), boxed(self, locals, b))
            }
            A::Seq(a, b) => ExprKind::Seq(boxed(self, locals, a), boxed(self, locals, b)),
            A::If(c, t, f) => ExprKind::If(
                boxed(self, locals, c),
                boxed(self, locals, t),
                boxed(self, locals, f),
            ),
            A::Let(x, e, body) => {
                if matches!(e.kind, A::Alloc(_)) {
                    self.cell_names.push((e.span.clone(), x.name.clone()));
                }
                let e = boxed(self, locals, e);
                locals.push(x.name.clone());
                let body = boxed(self, locals, body);
                locals.pop();
                ExprKind::Let(e, body)
            }
            A::LetRec(f, func, body) => {
                let code = self.function(scope, locals, Some(&f.name), true, func, e.span.clone());
                locals.push(f.name.clone());
                let body = boxed(self, locals, body);
                locals.pop();
                ExprKind::LetRec(code, body)
            }
            A::Lambda(func) => {
                ExprKind::Lambda(self.function(scope, locals, None, false, func, e.span.clone()))
            }
            A::Assert(a) => ExprKind::Assert(boxed(self, locals, a)),
            // The `match` it abbreviates; the head or tail of `[]` fails at the
            // operation and goes no further.
            A::ListOp(op, list) => {
                let at = |kind| {
                    Box::new(Expr {
                        kind,
                        span: e.span.clone(),
                    })
                };
                let failure = || {
                    let assert = ExprKind::Assert(at(ExprKind::Int(BigInt::from(0))));
                    at(ExprKind::Seq(at(assert), at(ExprKind::Diverge)))
                };
                let (nil, cons) = match op {
                    ast::ListOp::Hd => (failure(), at(ExprKind::Local(1))),
                    ast::ListOp::Tl => (failure(), at(ExprKind::Local(0))),
                    ast::ListOp::IsNil => (
                        at(ExprKind::Int(BigInt::from(1))),
                        at(ExprKind::Int(BigInt::from(0))),
                    ),
                };
                ExprKind::Match(boxed(self, locals, list), nil, cons)
            }
        };
        Expr {
            kind,
            span: e.span.clone(),
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
        let text = |sites: Vec<crate::trace::Site>| -> Vec<&str> {
            sites
                .iter()
                .map(|site| &source[site.span.clone()])
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
        assert!(
            matches!(&lib.store[r as usize], Initial::Int(i) if *i == num_bigint::BigInt::from(5))
        );
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
