//! A built library: the method repository R, the initial store S, the public names P
//! and the abstract names A (paper Figure 2), with the analyses read from them.

use super::ir::{CodeId, Expr, ExprKind, FunCode, GlobalName, MethodId, RefId, TypeId, Types};
use crate::syntax::ast::{Span, Visibility};
use crate::trace::Site;
use num_bigint::BigInt;
use std::collections::HashSet;

/// A public or private method of the library.
#[derive(Debug, PartialEq)]
pub struct Method {
    pub name: String,
    pub visibility: Visibility,
    pub code: CodeId,
}

/// An abstract (client-owned) method declared by `import`.
#[derive(Debug, PartialEq)]
pub struct Import {
    pub name: String,
    pub ty: TypeId,
}

/// The initial content of a reference or of a cell.
#[derive(Clone, Debug, PartialEq)]
pub enum Initial {
    Int(BigInt),
    Name(GlobalName),
    /// Never declared, only assigned somewhere: reading it before any assignment is stuck.
    Absent,
    Unit,
    Nil,
    Pair(Box<Initial>, Box<Initial>),
    /// A location: an index into [`Library::cells`].
    Loc(u32),
}

/// A cell allocated by a `ref` declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct InitialCell {
    /// The type of the values it holds (unknown only in an ill-typed declaration).
    pub ty: Option<TypeId>,
    pub content: Initial,
}

/// A built library: R (static part), S, P and A.
#[derive(Debug, PartialEq)]
pub struct Library {
    pub types: Types,
    /// Code of methods, `letrec` functions and lambdas.
    pub codes: Vec<FunCode>,
    pub methods: Vec<Method>,
    pub imports: Vec<Import>,
    /// Reference names, by [`RefId`].
    pub refs: Vec<String>,
    /// By [`RefId`], whether the reference has a `ref` declaration (`ref θ x := v;`),
    /// which uses ML-like references.
    pub ref_declared: Vec<bool>,
    /// The initial store, by [`RefId`].
    pub store: Vec<Initial>,
    /// The cells `ref` declarations allocate, by location number.
    pub cells: Vec<InitialCell>,
    /// Names that resolve to nothing, by [`super::ir::UndeclaredId`].
    pub undeclared: Vec<String>,
    /// The public methods, in declaration order: the client's initial choices.
    pub public: Vec<MethodId>,
    /// Where each method is declared, by [`MethodId`].
    pub method_spans: Vec<Span>,
    /// Whether some path may get stuck: the code mentions an undeclared name or
    /// reference, or the checker found an ill-typed expression in a method (W0201,
    /// which may make an operation get a value of the wrong shape). Without these
    /// a path never gets stuck, so a search that cannot tell every stuck place may
    /// still say safe (the engine's split relies on it).
    pub may_get_stuck: bool,
    /// By [`MethodId`], whether the checker found an ill-typed expression in the
    /// method's code (W0201): its values need not have the types it declares.
    pub ill_typed: Vec<bool>,
    /// Whether the program uses ML-like references (`lang/references.md`). Without
    /// them no location ever exists, and the search is exactly the one for HOLiK's
    /// fragment; with them, the prunings not argued for locations are off.
    pub uses_refs: bool,
    /// The names `let x = ref …` gives the cells it allocates, by the place of the
    /// `ref`: how a proof names the cells of that allocation (`lang/proofs.md`).
    pub cell_names: Vec<(Span, String)>,
}

impl Library {
    /// The public methods among `methods`, in declaration order ([`Library::public`]).
    pub(super) fn public_of(methods: &[Method]) -> Vec<MethodId> {
        (0..methods.len() as MethodId)
            .filter(|&m| methods[m as usize].visibility == Visibility::Public)
            .collect()
    }

    /// [`Library::may_get_stuck`] of a library with these undeclared names, initial
    /// store and ill-typed methods.
    pub(super) fn may_get_stuck_with(
        undeclared: &[String],
        store: &[Initial],
        ill_typed: &[bool],
    ) -> bool {
        !undeclared.is_empty()
            || store.iter().any(|i| matches!(i, Initial::Absent))
            || ill_typed.contains(&true)
    }

    pub fn code(&self, id: CodeId) -> &FunCode {
        &self.codes[id as usize]
    }

    pub fn method_code(&self, id: MethodId) -> &FunCode {
        self.code(self.methods[id as usize].code)
    }

    /// Every place its code can fail ([`crate::library::ir::Expr::failure_sites`]).
    pub fn failure_sites(&self) -> Vec<Site> {
        self.sites_in(|_| true)
    }

    /// The failure sites in [`Library::live_codes`], in the order of
    /// [`Library::failure_sites`]; no run of any client reaches the others.
    pub fn live_failure_sites(&self) -> Vec<Site> {
        let live = self.live_codes();
        self.sites_in(|code| live.contains(&code))
    }

    fn sites_in(&self, keep: impl Fn(CodeId) -> bool) -> Vec<Site> {
        let mut sites = Vec::new();
        for (id, code) in self.codes.iter().enumerate() {
            if keep(id as CodeId) {
                code.body.failure_sites(&mut sites);
            }
        }
        sites
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
