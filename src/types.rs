//! The checker: HOLi types for every method, reference, parameter and expression, and the
//! names every identifier refers to (resolved over the whole file).
//!
//! HOLiK never type-checks, and some benchmark libraries are ill-typed or call undeclared
//! names; those must still be analysable. So what the semantics survives is a *warning*
//! (analysis proceeds; the path concerned may get stuck, which HOLiK treats as "no trace"),
//! and only what the semantics cannot give a meaning to is an *error*:
//!
//! | code  | severity | problem |
//! |-------|----------|---------|
//! | E0301 | error    | two methods/imports, or two references, with one name |
//! | E0302 | error    | a name used as a value that nothing declares |
//! | E0303 | error    | an `int` or `fun` reference assigned a pair (they hold integers or functions) |
//! | W0201 | warning  | an expression whose type is not the one expected |
//! | W0202 | warning  | a call of an undeclared name (the call gets stuck) |
//! | W0203 | warning  | an assignment to an undeclared reference (it is created) |
//! | W0204 | warning  | a read of an undeclared reference (the read gets stuck) |
//! | W0205 | warning  | `fun r := m` where `m` is not a method |
//! | W0206 | warning  | `!x` or `x := e` reaches a global reference while a local `x` holds one |
//!
//! Every type is known from the annotations except those of `let`-bound names, which are
//! the types of their values. Once something is ill-typed its type is *unknown*, which is
//! compatible with everything, so one slip gives one warning.
//!
//! The checker also resolves the named forms `!x` and `x := e` (`lang/references.md` §1.4):
//! a declared global reference `x` wins; otherwise a local `x` whose type is known to be
//! `ref t` is read or written through; otherwise `x` is the global as in HOLiK. A program
//! that never mentions `ref` therefore keeps its meaning.

use crate::diagnostics::Diagnostic;
use crate::syntax::ast::*;
use std::collections::{HashMap, HashSet};
use std::marker::PhantomData;

/// Checks a whole program; returns its diagnostics (errors and warnings) in source order.
pub fn check_program(name: &str, p: &Program) -> Vec<Diagnostic> {
    let mut diagnostics = Checker::run(name, p).diagnostics;
    diagnostics.sort_by_key(|d| d.labels.first().map(|l| l.span.start).unwrap_or(0));
    diagnostics
}

/// The named `!x` and `x := e` of a program that read or write through a local holding a
/// location, rather than a global reference. Nodes are identified by address, so a
/// resolution is only valid for the program it was computed from, while it is borrowed
/// (a clone has other addresses); a synthesized client, whose spans are all dummies,
/// resolves correctly too.
#[derive(Debug)]
pub struct Resolution<'p> {
    locals: HashSet<usize>,
    /// The content type of every `ref e` whose operand's type is known, by address.
    allocations: HashMap<usize, Type>,
    program: PhantomData<&'p Program>,
}

impl Resolution<'_> {
    /// Whether `e`, a named `!x` or `x := e` of the program, goes through the local `x`.
    pub fn is_local(&self, e: &Expr) -> bool {
        self.locals.contains(&address(e))
    }

    /// Whether no named form goes through a local (always so without `ref`).
    pub fn is_empty(&self) -> bool {
        self.locals.is_empty()
    }

    /// The type of the value `e`, a `ref e'` of the program, stores in its new cell;
    /// `None` when the checker could not tell (after a reported problem).
    pub fn allocated_type(&self, e: &Expr) -> Option<&Type> {
        self.allocations.get(&address(e))
    }
}

fn address(e: &Expr) -> usize {
    e as *const Expr as usize
}

/// Resolves the named forms of `p` (see [`Resolution`]).
pub fn resolve(p: &Program) -> Resolution<'_> {
    let checker = Checker::run("", p);
    Resolution {
        locals: checker.locals,
        allocations: checker.allocations,
        program: PhantomData,
    }
}

/// The type of every parameter, `let`, `letrec` and `match` name of `p` whose type is
/// known, by the byte offset where the name starts (what an editor shows on hover).
pub fn binder_types(p: &Program) -> HashMap<usize, Type> {
    Checker::run("", p).binders
}

/// What a global function name stands for.
#[derive(Clone)]
enum Global {
    Method(Type, Span),
    Import(Type, Span),
}

impl Global {
    fn ty(&self) -> &Type {
        match self {
            Global::Method(t, _) | Global::Import(t, _) => t,
        }
    }
    fn span(&self) -> &Span {
        match self {
            Global::Method(_, s) | Global::Import(_, s) => s,
        }
    }
}

/// A global reference: an integer, or a function whose type is its target's (if known).
struct Reference {
    ty: Option<Type>,
    span: Span,
}

/// A parameter, `let` or `letrec` name in scope.
struct Local {
    name: String,
    ty: Option<Type>,
    span: Span,
}

struct Checker<'a> {
    file: &'a str,
    functions: HashMap<String, Global>,
    refs: HashMap<String, Reference>,
    diagnostics: Vec<Diagnostic>,
    /// Innermost last.
    scope: Vec<Local>,
    /// The named forms that go through a local, by address.
    locals: HashSet<usize>,
    /// The content types of allocations, by address.
    allocations: HashMap<usize, Type>,
    /// The type of every parameter, `let`, `letrec` and `match` name whose type is
    /// known, by the start of the name.
    binders: HashMap<usize, Type>,
}

impl<'a> Checker<'a> {
    /// Checks `p`: every declaration, method body and `main`.
    fn run(file: &'a str, p: &Program) -> Checker<'a> {
        let mut checker = Checker {
            file,
            functions: HashMap::new(),
            refs: HashMap::new(),
            diagnostics: Vec::new(),
            scope: Vec::new(),
            locals: HashSet::new(),
            allocations: HashMap::new(),
            binders: HashMap::new(),
        };
        checker.declare(p);
        for decl in &p.decls {
            if let Decl::Method(m) = decl {
                checker.function(&m.func);
            }
        }
        if let Some(main) = &p.main {
            checker.expect(&main.body, &Type::Unit, "the body of `main`");
        }
        checker
    }

    /// Brings `local` into scope, innermost.
    fn bind(&mut self, local: Local) {
        if let Some(ty) = &local.ty {
            self.binders.insert(local.span.start, ty.clone());
        }
        self.scope.push(local);
    }

    fn warn(&mut self, d: Diagnostic) {
        self.diagnostics.push(d);
    }

    fn declare(&mut self, p: &Program) {
        let define = |checker: &mut Self, name: &Ident, global: Global| {
            if let Some(previous) = checker.functions.get(&name.name) {
                let previous = previous.span().clone();
                checker.warn(duplicate(checker.file, name, previous));
            } else {
                checker.functions.insert(name.name.clone(), global);
            }
        };
        for import in &p.imports {
            define(
                self,
                &import.name,
                Global::Import(import.ty.clone(), import.name.span.clone()),
            );
        }
        for decl in &p.decls {
            if let Decl::Method(m) = decl {
                define(
                    self,
                    &m.name,
                    Global::Method(m.func.ty(), m.name.span.clone()),
                );
            }
        }
        for decl in &p.decls {
            let (name, ty) = match decl {
                Decl::Method(_) => continue,
                Decl::IntRef { name, .. } => (name, Some(Type::Int)),
                Decl::RefDecl {
                    name,
                    ty,
                    init,
                    init_span,
                    ..
                } => {
                    if let Some(found) = self.static_type(init) {
                        if !found.compatible(ty) {
                            self.mismatch(init_span, &found, ty, "the declared type");
                        }
                    }
                    (name, Some(ty.clone()))
                }
                Decl::FunRef { name, target, .. } => {
                    let hint = format!(
                        "A function reference starts out holding a method of this library; \
                         calling `!{}` before assigning it gets stuck.",
                        name.name
                    );
                    let ty = self
                        .method_type(target, hint)
                        .map_or_else(|other| other, Some);
                    (name, ty)
                }
            };
            if let Some(previous) = self.refs.get(&name.name) {
                let previous = previous.span.clone();
                self.warn(duplicate(self.file, name, previous));
            } else {
                self.refs.insert(
                    name.name.clone(),
                    Reference {
                        ty,
                        span: name.span.clone(),
                    },
                );
            }
        }
    }

    /// The type of a `ref` declaration's initial value; a name in it must be a method.
    fn static_type(&mut self, value: &Static) -> Option<Type> {
        match value {
            Static::Ref(inner) => self.static_type(inner).map(Type::reference),
            Static::Int(_) => Some(Type::Int),
            Static::Unit => Some(Type::Unit),
            // Of any list type, as `[]` is.
            Static::Nil => None,
            Static::Pair(a, b) => {
                let a = self.static_type(a);
                let b = self.static_type(b);
                Some(Type::pair(a?, b?))
            }
            Static::Name(m) => {
                let hint = "The initial value of a `ref` declaration may name one of this \
                            library's methods; calling the function it holds before \
                            assigning another gets stuck.";
                self.method_type(m, hint.to_string()).ok()
            }
        }
    }

    /// The type of the method `name`; for anything else W0205 with `hint`, and the type
    /// of what `name` is instead (an import), if anything.
    fn method_type(&mut self, name: &Ident, hint: String) -> Result<Type, Option<Type>> {
        match self.functions.get(&name.name).cloned() {
            Some(Global::Method(t, _)) => Ok(t),
            other => {
                let what = match other {
                    Some(Global::Import(..)) => "an import, not a method",
                    _ => "not declared",
                };
                self.warn(
                    Diagnostic::warning("W0205", format!("`{}` is not a method", name.name))
                        .with_label(self.file, name.span.clone(), what)
                        .with_hint(hint),
                );
                Err(other.map(|g| g.ty().clone()))
            }
        }
    }

    /// Checks a method, `letrec` or lambda body against its declared result type.
    fn function(&mut self, f: &Function) {
        self.bind(Local {
            name: f.param.name.clone(),
            ty: Some(f.param_ty.clone()),
            span: f.param.span.clone(),
        });
        self.expect(&f.body, &f.ret_ty, "the declared result type");
        self.scope.pop();
    }

    /// Checks that `e` has type `expected`; a mismatch is a warning.
    fn expect(&mut self, e: &Expr, expected: &Type, because: &str) {
        let found = self.synth(e);
        self.compare(e, found, expected, because);
    }

    /// Warns when the type `found` of `e` is known and not `expected`.
    fn compare(&mut self, e: &Expr, found: Option<Type>, expected: &Type, because: &str) {
        if let Some(found) = found {
            if !found.compatible(expected) {
                self.mismatch(&e.span, &found, expected, because);
            }
        }
    }

    fn mismatch(&mut self, span: &Span, found: &Type, expected: &Type, because: &str) {
        let d = Diagnostic::warning("W0201", "Type mismatch")
            .with_label(self.file, span.clone(), format!("this has type `{found}`"))
            .with_hint(format!(
                "`{expected}` is expected here ({because}). HOLiK does not check types; holi \
                 warns and analyses the program as written."
            ));
        self.warn(d);
    }

    fn local(&self, name: &str) -> Option<&Local> {
        self.scope.iter().rev().find(|l| l.name == name)
    }

    /// The content type when the named form `node` (`!r` when `reading`, else `r := e`)
    /// goes through the local `r` (rule 2 of the resolution), which is then recorded.
    /// `None` when it denotes the global `r`: declared (rule 1, which warns if a local
    /// holding a location is shadowed) or not (rule 3).
    fn through_local(&mut self, node: &Expr, r: &Ident, reading: bool) -> Option<Type> {
        let local = self.local(&r.name)?;
        let Some(Type::Ref(content)) = &local.ty else {
            return None;
        };
        if !self.refs.contains_key(&r.name) {
            let content = (**content).clone();
            self.locals.insert(address(node));
            return Some(content);
        }
        let (ty, at) = (local.ty.clone(), local.span.clone());
        let title = if reading {
            format!(
                "`!{0}` reads the global reference `{0}`, not the local `{0}`",
                r.name
            )
        } else {
            format!(
                "`{0} := …` assigns the global reference `{0}`, not the local `{0}`",
                r.name
            )
        };
        let d = Diagnostic::warning("W0206", title)
            .with_label(self.file, r.span.clone(), "the global reference")
            .with_label(
                self.file,
                at,
                match ty {
                    Some(t) => format!("the local, of type `{t}`"),
                    None => "the local".to_string(),
                },
            )
            .with_hint(
                "A declared global reference wins over a local of the same name in `!x` and \
                 `x := …`, as in HOLiK. Rename one of them.",
            );
        self.warn(d);
        None
    }

    /// W0201 for `e` of type `found` where a reference is needed.
    fn not_a_reference(&mut self, e: &Expr, found: &Type, hint: String) {
        let d = Diagnostic::warning("W0201", "This is not a reference")
            .with_label(
                self.file,
                e.span.clone(),
                format!("this has type `{found}`"),
            )
            .with_hint(hint);
        self.warn(d);
    }

    /// The type of `e`, or `None` when it is unknown (after a reported problem).
    fn synth(&mut self, e: &Expr) -> Option<Type> {
        match &e.kind {
            ExprKind::Var(x) => self.variable(x, e, false),
            ExprKind::Int(_) => Some(Type::Int),
            ExprKind::Unit => Some(Type::Unit),
            // Never returns: it may stand for a value of any type.
            ExprKind::Diverge => None,
            ExprKind::Deref(r) => match self.through_local(e, r, true) {
                Some(content) => Some(content),
                None => self.global_read(r),
            },
            ExprKind::Assign(r, value) => {
                match self.through_local(e, r, false) {
                    Some(content) => self.expect(value, &content, "the reference's content type"),
                    None => self.global_write(r, value),
                }
                Some(Type::Unit)
            }
            ExprKind::Alloc(a) => {
                let content = self.synth(a)?;
                self.allocations.insert(address(e), content.clone());
                Some(Type::reference(content))
            }
            ExprKind::Load(a) => match self.synth(a) {
                Some(Type::Ref(content)) => Some(*content),
                Some(other) => {
                    let hint = "`!` reads through a reference, such as one made by `ref e`; \
                                the path gets stuck here."
                        .to_string();
                    self.not_a_reference(a, &other, hint);
                    None
                }
                None => None,
            },
            ExprKind::Store(target, value) => {
                match self.synth(target) {
                    Some(Type::Ref(content)) => {
                        self.expect(value, &content, "the reference's content type")
                    }
                    Some(other) => {
                        let hint = match &target.kind {
                            ExprKind::Deref(r) => format!(
                                "Assign to the reference itself: `{} := …`, without `!`.",
                                r.name
                            ),
                            _ => "`:=` writes through a reference, such as one made by \
                                  `ref e`; the path gets stuck here."
                                .to_string(),
                        };
                        self.not_a_reference(target, &other, hint);
                        self.synth(value);
                    }
                    None => {
                        self.synth(value);
                    }
                }
                Some(Type::Unit)
            }
            ExprKind::App(f, arg) => {
                let ft = match &f.kind {
                    ExprKind::Var(x) => self.variable(x, f, true),
                    _ => self.synth(f),
                };
                match ft {
                    Some(Type::Arrow(param, result)) => {
                        self.expect(arg, &param, "the function's parameter type");
                        Some(*result)
                    }
                    Some(other) => {
                        self.synth(arg);
                        let mut d = Diagnostic::warning("W0201", "This is not a function")
                            .with_label(
                                self.file,
                                f.span.clone(),
                                format!("this has type `{other}`"),
                            )
                            .with_label(self.file, arg.span.clone(), "but it is applied to this");
                        d = d.with_hint(match (&f.kind, &arg.kind) {
                            (_, ExprKind::Int(n)) if n.sign() == num_bigint::Sign::Minus => {
                                "A sign belongs to the literal: `x -1` applies `x` to `-1`. \
                                 Write `x - 1` to subtract."
                            }
                            (ExprKind::Alloc(_), _) => {
                                "`ref f x` is `(ref f) x`: write `ref (f x)` for a reference \
                                 holding the result."
                            }
                            _ => "Only functions can be applied; the path gets stuck here.",
                        });
                        self.warn(d);
                        None
                    }
                    None => {
                        self.synth(arg);
                        None
                    }
                }
            }
            ExprKind::Pair(a, b) => {
                let ta = self.synth(a);
                let tb = self.synth(b);
                Some(Type::pair(ta?, tb?))
            }
            ExprKind::Fst(p) | ExprKind::Snd(p) => match self.synth(p) {
                Some(Type::Pair(a, b)) => Some(if matches!(e.kind, ExprKind::Fst(_)) {
                    *a
                } else {
                    *b
                }),
                Some(other) => {
                    let d = Diagnostic::warning("W0201", "This is not a pair")
                        .with_label(
                            self.file,
                            p.span.clone(),
                            format!("this has type `{other}`"),
                        )
                        .with_hint("`fst` and `snd` take a pair such as `(a, b)`.");
                    self.warn(d);
                    None
                }
                None => None,
            },
            ExprKind::Not(a) => {
                self.expect(a, &Type::Int, "`not` tests an integer");
                Some(Type::Int)
            }
            ExprKind::Binary(op, a, b) => {
                let why = format!("`{}` works on integers", op.symbol());
                let ta = self.synth(a);
                let tb = self.synth(b);
                match (&ta, &tb) {
                    (Some(Type::Ref(x)), Some(Type::Ref(y))) if *op == BinOp::Eq && x == y => {}
                    // Lists of integers are compared element by element.
                    (Some(Type::List(x)), Some(Type::List(y)))
                        if *op == BinOp::Eq && x.compatible(y) && x.compatible(&Type::Int) => {}
                    (Some(Type::List(_)), None) | (None, Some(Type::List(_)))
                        if *op == BinOp::Eq => {}
                    (Some(Type::Ref(_)), None) | (None, Some(Type::Ref(_))) if *op == BinOp::Eq => {
                    }
                    (Some(ta @ Type::Ref(_)), Some(tb)) | (Some(ta), Some(tb @ Type::Ref(_)))
                        if *op == BinOp::Eq =>
                    {
                        let d = Diagnostic::warning(
                            "W0201",
                            "`==` compares two integers or two references of one type",
                        )
                        .with_label(self.file, a.span.clone(), format!("this has type `{ta}`"))
                        .with_label(self.file, b.span.clone(), format!("this has type `{tb}`"))
                        .with_hint(
                            "On references, `==` tells whether they are the same cell. The \
                             path gets stuck here.",
                        );
                        self.warn(d);
                    }
                    _ => {
                        self.compare(a, ta, &Type::Int, &why);
                        self.compare(b, tb, &Type::Int, &why);
                    }
                }
                Some(Type::Int)
            }
            ExprKind::Seq(a, b) => {
                self.synth(a);
                self.synth(b)
            }
            ExprKind::If(c, t, f) => {
                self.expect(c, &Type::Int, "a condition is an integer");
                let tt = self.synth(t);
                let tf = self.synth(f);
                match (tt, tf) {
                    // `bool` is an `int` wherever the library uses it.
                    (Some(tt), Some(tf)) if !tt.compatible(&tf) => {
                        self.mismatch(&f.span, &tf, &tt, "both branches of an `if` have one type");
                        if let Some(d) = self.diagnostics.last_mut() {
                            d.labels.push(crate::diagnostics::Label {
                                file: self.file.to_string(),
                                span: t.span.clone(),
                                message: format!("this branch has type `{tt}`"),
                            });
                        }
                        None
                    }
                    (Some(t), _) | (None, Some(t)) => Some(t),
                    (None, None) => None,
                }
            }
            ExprKind::Let(x, value, body) => {
                let tv = self.synth(value);
                self.bind(Local {
                    name: x.name.clone(),
                    ty: tv,
                    span: x.span.clone(),
                });
                let tb = self.synth(body);
                self.scope.pop();
                tb
            }
            ExprKind::LetRec(name, func, body) => {
                self.bind(Local {
                    name: name.name.clone(),
                    ty: Some(func.ty()),
                    span: name.span.clone(),
                });
                self.function(func);
                let tb = self.synth(body);
                self.scope.pop();
                tb
            }
            ExprKind::Lambda(func) => {
                self.function(func);
                Some(func.ty())
            }
            ExprKind::Assert(c) => {
                self.expect(c, &Type::Int, "`assert` tests an integer");
                Some(Type::Unit)
            }
            // Of any list type: known from where it goes, as `_bot_` is.
            ExprKind::Nil => None,
            ExprKind::Cons(head, tail) => {
                let th = self.synth(head);
                let tt = self.synth(tail);
                match (th, tt) {
                    (Some(th), Some(Type::List(element))) => {
                        if !th.compatible(&element) {
                            self.mismatch(&head.span, &th, &element, "the list's elements");
                        }
                        Some(Type::List(element))
                    }
                    (th, Some(other)) => {
                        self.not_a_list(tail, &other, "`::` puts an element in front of a list");
                        th.map(Type::list)
                    }
                    (th, None) => th.map(Type::list),
                }
            }
            ExprKind::ListOp(op, list) => {
                let why = format!("`{}` takes a list", op.keyword());
                let list_ty = match self.synth(list) {
                    Some(Type::List(element)) => Some(Type::List(element)),
                    Some(other) => {
                        self.not_a_list(list, &other, &why);
                        None
                    }
                    None => None,
                };
                match op {
                    ListOp::Hd => list_ty.and_then(|t| match t {
                        Type::List(element) => Some(*element),
                        _ => None,
                    }),
                    ListOp::Tl => list_ty,
                    ListOp::IsNil => Some(Type::Bool),
                }
            }
            ExprKind::Match {
                scrutinee,
                nil,
                head,
                tail,
                cons,
            } => {
                let element = match self.synth(scrutinee) {
                    Some(Type::List(element)) => Some(*element),
                    Some(other) => {
                        self.not_a_list(scrutinee, &other, "`match` takes a list apart");
                        None
                    }
                    None => None,
                };
                let tn = self.synth(nil);
                self.bind(Local {
                    name: head.name.clone(),
                    ty: element.clone(),
                    span: head.span.clone(),
                });
                self.bind(Local {
                    name: tail.name.clone(),
                    ty: element.map(Type::list),
                    span: tail.span.clone(),
                });
                let tc = self.synth(cons);
                self.scope.pop();
                self.scope.pop();
                match (tn, tc) {
                    (Some(tn), Some(tc)) if !tn.compatible(&tc) => {
                        self.mismatch(
                            &cons.span,
                            &tc,
                            &tn,
                            "both branches of a `match` have one type",
                        );
                        None
                    }
                    (Some(t), _) | (None, Some(t)) => Some(t),
                    (None, None) => None,
                }
            }
        }
    }

    /// W0201 for `e` of type `found` where a list is needed.
    fn not_a_list(&mut self, e: &Expr, found: &Type, why: &str) {
        let d = Diagnostic::warning("W0201", "This is not a list")
            .with_label(
                self.file,
                e.span.clone(),
                format!("this has type `{found}`"),
            )
            .with_hint(format!("{why}; the path gets stuck here."));
        self.warn(d);
    }

    /// `!r` of the global reference `r`.
    fn global_read(&mut self, r: &Ident) -> Option<Type> {
        if let Some(reference) = self.refs.get(&r.name) {
            return reference.ty.clone();
        }
        let d = Diagnostic::warning(
            "W0204",
            format!("The reference `{}` is not declared", r.name),
        )
        .with_label(self.file, r.span.clone(), "read here")
        .with_hint(format!(
            "{}Declare it, e.g. `int {} := 0;`. Reading it gets stuck.",
            did_you_mean(&r.name, self.refs.keys()),
            r.name
        ));
        self.warn(d);
        None
    }

    /// `r := value` of the global reference `r`.
    fn global_write(&mut self, r: &Ident, value: &Expr) {
        let found = self.synth(value);
        let declared = self.refs.get(&r.name).map(|reference| reference.ty.clone());
        // A pair can be the content of a global holding a location, never of an `int` or
        // `fun` reference.
        let what = match found {
            Some(Type::Pair(..)) => Some("a pair"),
            Some(Type::List(_)) => Some("a list"),
            _ => None,
        };
        if let (Some(what), false) = (what, matches!(declared, Some(Some(Type::Ref(_))))) {
            let d = Diagnostic::error("E0303", format!("A reference cannot hold {what}"))
                .with_label(self.file, value.span.clone(), format!("this is {what}"))
                .with_label(self.file, r.span.clone(), "assigned to this reference")
                .with_hint(
                    "References hold integers or functions. Use one reference per component.",
                );
            self.warn(d);
            return;
        }
        match declared {
            Some(declared) => {
                if let (Some(found), Some(declared)) = (&found, declared) {
                    if !found.compatible(&declared) {
                        self.mismatch(&value.span, found, &declared, "the reference's type");
                    }
                }
            }
            None => {
                let d = Diagnostic::warning(
                    "W0203",
                    format!("The reference `{}` is not declared", r.name),
                )
                .with_label(self.file, r.span.clone(), "assigned here")
                .with_hint(format!(
                    "{}Declare it, e.g. `int {} := 0;`. Like HOLiK, holi creates it on this \
                     assignment.",
                    did_you_mean(&r.name, self.refs.keys()),
                    r.name
                ));
                self.warn(d);
            }
        }
    }

    /// A name: local, then method or import. Undeclared, it is a warning when called (the
    /// call gets stuck, as in HOLiK) and an error when used as a value.
    fn variable(&mut self, x: &str, e: &Expr, called: bool) -> Option<Type> {
        if let Some(local) = self.local(x) {
            return local.ty.clone();
        }
        if let Some(global) = self.functions.get(x) {
            return Some(global.ty().clone());
        }
        let reference_hint = self
            .refs
            .contains_key(x)
            .then(|| format!("`{x}` is a reference: write `!{x}` for its contents."));
        let near = did_you_mean(
            x,
            self.scope
                .iter()
                .map(|local| &local.name)
                .chain(self.functions.keys()),
        );
        let d = if called {
            Diagnostic::warning("W0202", format!("`{x}` is not declared"))
                .with_label(self.file, e.span.clone(), "this call gets stuck")
                .with_hint(reference_hint.unwrap_or_else(|| {
                    format!(
                        "{near}Declare `{x}` as a method or `import` it. HOLiK lets such a call \
                         get stuck silently; holi reports where paths got stuck (`holi explain C0003`)."
                    )
                }))
        } else {
            Diagnostic::error("E0302", format!("`{x}` is not declared"))
                .with_label(
                    self.file,
                    e.span.clone(),
                    "no parameter, `let`, method or import has this name",
                )
                .with_hint(reference_hint.unwrap_or_else(|| {
                    format!(
                        "{near}Names resolve over the whole file, so the declaration may come \
                         anywhere."
                    )
                }))
        };
        self.warn(d);
        None
    }
}

/// "Did you mean `name`? " for the candidate closest to `wrong` by edit distance (a swap of
/// two neighbouring letters counts as one edit, as in `sned`), when it is close enough to be
/// a slip (at most a third of the name's letters, and at least one); otherwise nothing, and
/// nothing for a one-letter name, which every other short name is close to. Ties go to the
/// alphabetically first name, so the hint is stable.
fn did_you_mean<'a>(wrong: &str, candidates: impl Iterator<Item = &'a String>) -> String {
    let length = wrong.chars().count();
    let limit = if length < 2 { 0 } else { (length / 3).max(1) };
    candidates
        .map(|name| (strsim::osa_distance(wrong, name), name))
        .filter(|(distance, _)| *distance <= limit)
        .min()
        .map(|(_, name)| format!("Did you mean `{name}`? "))
        .unwrap_or_default()
}

fn duplicate(file: &str, name: &Ident, previous: Span) -> Diagnostic {
    Diagnostic::error("E0301", format!("`{}` is defined twice", name.name))
        .with_label(file, name.span.clone(), "defined again here")
        .with_label(file, previous, "first defined here")
        .with_hint("Rename one of them: a name refers to one method, import or reference.")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parser::parse_source;

    #[test]
    fn binders_have_the_types_of_their_annotations_and_values() {
        let source =
            "public f (x:int) :(int) = { let y = (x, x) in let z = !c in z };\nint c := 0;";
        let (program, diagnostics) = parse_source("t", source);
        let program = program.unwrap_or_else(|| panic!("{diagnostics:?}"));
        let types = binder_types(&program);
        let at = |name: &str| source.find(name).expect("the name is there");
        assert_eq!(types.get(&at("x:")), Some(&Type::Int));
        assert_eq!(
            types.get(&at("y =")),
            Some(&Type::pair(Type::Int, Type::Int))
        );
        assert_eq!(types.get(&at("z =")), Some(&Type::Int));
        assert_eq!(types.len(), 3);
    }

    fn codes(source: &str) -> Vec<&'static str> {
        let (program, diagnostics) = parse_source("t", source);
        let program = program.unwrap_or_else(|| panic!("{source}: {diagnostics:?}"));
        check_program("t", &program)
            .iter()
            .map(|d| d.code)
            .collect()
    }

    #[test]
    fn well_typed_programs_have_nothing_to_say() {
        let source = "import send :(int -> unit)\nimport g :((unit -> unit) -> unit)\n\
            int bal := 10;\nfun h := twice;\n\
            private twice (p:int * (int -> int)) :(int) = { (snd p) ((snd p) (fst p)) };\n\
            public m (x:int) :(unit) = {\n\
              let f = fun (y:int) :(int) -> y + !bal in\n\
              letrec loop (n:int) :(int) = if n < 1 then 0 else loop (n - 1) in\n\
              send (twice (x, f)); bal := loop x; g (fun (u:unit) :(unit) -> ());\n\
              h := twice; assert (!h (1, f) == 3 && not (x <= 0))\n\
            };";
        assert_eq!(codes(source), Vec::<&str>::new());
    }

    #[test]
    fn a_bool_and_an_int_are_one_type_for_the_branches_of_an_if() {
        let source = "int found := 0;\n\
            public m (x:int) :(bool) = { if x < 0 then true else (found := x; !found) };";
        assert_eq!(codes(source), Vec::<&str>::new());
        assert_eq!(
            codes("public m (x:int) :(int) = { if x < 0 then () else 1 };"),
            vec!["W0201"]
        );
    }

    #[test]
    fn survivable_problems_are_warnings() {
        // Declared `:(unit)` but returns an integer (as in the corpus' lock_e).
        assert_eq!(codes("public m (x:int) :(unit) = { 1 };"), vec!["W0201"]);
        // Applying an integer, e.g. `x -1`.
        assert_eq!(codes("public m (x:int) :(int) = { x -1 };"), vec!["W0201"]);
        assert_eq!(codes("public m (x:int) :(int) = { fst x };"), vec!["W0201"]);
        assert_eq!(
            codes("public m (x:int) :(int) = { if x then () else 1 };"),
            vec!["W0201"]
        );
        assert_eq!(
            codes("public m (x:int) :(unit) = { send x };"),
            vec!["W0202"]
        );
        assert_eq!(
            codes("public m (x:int) :(unit) = { r := x };"),
            vec!["W0203"]
        );
        assert_eq!(codes("public m (x:int) :(int) = { !r };"), vec!["W0204"]);
        assert_eq!(
            codes("fun r := empty;\npublic m (x:int) :(int) = { x };"),
            vec!["W0205"]
        );
        // One slip, one warning: an unknown type is compatible with everything after it.
        assert_eq!(
            codes("public m (x:int) :(int) = { (send x) + 1 };"),
            vec!["W0202"]
        );
    }

    #[test]
    fn what_the_semantics_cannot_survive_is_an_error() {
        assert_eq!(
            codes("public m (x:int) :(int) = { x };\nprivate m (y:int) :(int) = { y };"),
            vec!["E0301"]
        );
        assert_eq!(
            codes("import m :(int -> int)\npublic m (x:int) :(int) = { x };"),
            vec!["E0301"]
        );
        assert_eq!(
            codes("int r := 0;\nint r := 1;\npublic m (x:int) :(int) = { x };"),
            vec!["E0301"]
        );
        assert_eq!(codes("public m (x:int) :(int) = { y };"), vec!["E0302"]);
        assert_eq!(
            codes("int r := 0;\npublic m (x:int) :(int) = { r + 1 };"),
            vec!["E0302"]
        );
        assert_eq!(
            codes("int r := 0;\npublic m (x:int) :(unit) = { r := (x, x) };"),
            vec!["E0303"]
        );
    }

    fn hints(source: &str) -> Vec<String> {
        let (program, diagnostics) = parse_source("t", source);
        let program = program.unwrap_or_else(|| panic!("{source}: {diagnostics:?}"));
        check_program("t", &program)
            .into_iter()
            .filter_map(|d| d.hint)
            .collect()
    }

    #[test]
    fn near_misses_suggest_the_closest_name_of_the_right_kind() {
        let source = "import send :(int -> unit)\nint balance := 0;\nint count := 0;\n\
            public m (amount:int) :(unit) = {\n\
              sned amount; balanse := !balanse + amont; zzz 1; cont := !cuont\n\
            };";
        let found = hints(source);
        let starts: Vec<&str> = found
            .iter()
            .map(|h| h.split("? ").next().unwrap_or(""))
            .collect();
        assert_eq!(
            starts,
            vec![
                "Did you mean `send`",
                "Did you mean `balance`",
                "Did you mean `balance`",
                "Did you mean `amount`",
                "Declare `zzz` as a method or `import` it. HOLiK lets such a call get stuck \
                 silently; holi reports where paths got stuck (`holi explain C0003`).",
                "Did you mean `count`",
                "Did you mean `count`",
            ]
        );
        // A reference is not offered for a call, nor a method for a reference, and a
        // one-letter name has no near misses.
        let others = hints("int send := 0;\npublic m (x:int) :(unit) = { sned x; !n; y };");
        assert!(
            others.iter().all(|h| !h.contains("Did you mean")),
            "{others:?}"
        );
    }

    #[test]
    fn references_are_typed_as_designed() {
        let clean = [
            "public counter (u:unit) :(unit -> int) = {\n\
               let c = ref 0 in fun (u:unit) :(int) -> (c := !c + 1; !c)\n\
             };",
            "ref int lock := ref 0;\nref (int * int) cell := ref (0, 1);\n\
             ref (int -> int) f := ref g;\nprivate g (x:int) :(int) = { x };\n\
             public m (p:ref int * ref int) :(int) = {\n\
               let a = fst p in a := !a + !(snd p); !lock := 1; lock := snd p;\n\
               !cell := (1, 2); !(!f) 1 + fst !!cell + (fst p == !lock)\n\
             };",
            "public m (r:ref ref int) :(int) = { r := ref 1; !r := 2; (ref r) := r; !!r };",
        ];
        for source in clean {
            assert_eq!(codes(source), Vec::<&str>::new(), "{source}");
        }
        let titles = |source: &str| -> Vec<String> {
            let (program, diagnostics) = parse_source("t", source);
            let program = program.unwrap_or_else(|| panic!("{source}: {diagnostics:?}"));
            check_program("t", &program)
                .into_iter()
                .map(|d| format!("{} {}", d.code, d.title))
                .collect()
        };
        let not_a_reference = vec!["W0201 This is not a reference".to_string()];
        assert_eq!(titles("public m (x:int) :(int) = { !5 };"), not_a_reference);
        assert_eq!(
            titles("public m (x:int) :(unit) = { (fst (x, x)) := 5 };"),
            not_a_reference
        );
        // `!r := 5` with `r : int` keeps the old advice.
        let source = "int r := 0;\npublic m (x:int) :(unit) = { !r := x };";
        assert_eq!(titles(source), not_a_reference);
        assert_eq!(
            hints(source),
            vec!["Assign to the reference itself: `r := …`, without `!`."]
        );
        let equality =
            vec!["W0201 `==` compares two integers or two references of one type".to_string()];
        assert_eq!(
            titles("public m (x:ref int) :(int) = { x == 1 };"),
            equality
        );
        assert_eq!(
            titles("public m (p:ref int * ref unit) :(int) = { fst p == snd p };"),
            equality
        );
        // Other operators still want integers.
        assert_eq!(
            titles("public m (x:ref int) :(int) = { x + 1 };"),
            vec!["W0201 Type mismatch".to_string()]
        );
        // `ref f x` is `(ref f) x`.
        let source = "private f (x:int) :(int) = { x };\npublic m (x:int) :(int) = { ref f x };";
        assert_eq!(
            titles(source),
            vec!["W0201 This is not a function".to_string()]
        );
        assert!(
            hints(source)[0].contains("`ref (f x)`"),
            "{:?}",
            hints(source)
        );
        // The content must have the cell's type; a cell may hold a pair.
        assert_eq!(
            codes("public m (x:ref int) :(unit) = { x := () };"),
            vec!["W0201"]
        );
        assert_eq!(
            codes("public m (x:ref (int * int)) :(unit) = { x := (1, 2) };"),
            Vec::<&str>::new()
        );
        // A declaration's value must have its declared type, and names must be methods.
        assert_eq!(codes("ref int r := ref ();"), vec!["W0201"]);
        assert_eq!(codes("ref (int -> int) r := ref g;"), vec!["W0205"]);
        // A global `int` reference still cannot hold a pair.
        assert_eq!(
            codes("int r := 0;\npublic m (x:int) :(unit) = { r := (x, x) };"),
            vec!["E0303"]
        );
    }

    /// The named nodes of `p` that go through a local, as the text of each.
    fn through_locals(source: &str) -> Vec<String> {
        fn walk<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
            out.push(e);
            for child in e.children() {
                walk(child, out);
            }
        }
        let (program, diagnostics) = parse_source("t", source);
        let program = program.unwrap_or_else(|| panic!("{source}: {diagnostics:?}"));
        let resolution = resolve(&program);
        let mut nodes = Vec::new();
        for decl in &program.decls {
            if let Decl::Method(m) = decl {
                walk(&m.func.body, &mut nodes);
            }
        }
        let found: Vec<String> = nodes
            .into_iter()
            .filter(|e| resolution.is_local(e))
            .map(|e| source[e.span.clone()].to_string())
            .collect();
        assert_eq!(resolution.is_empty(), found.is_empty());
        found
    }

    #[test]
    fn named_forms_resolve_by_the_three_rules() {
        // Rule 1: a declared global wins, with a warning only if the local holds a cell.
        let source = "int x := 0;\npublic m (x:int) :(int) = { x := 1; !x };";
        assert_eq!(codes(source), Vec::<&str>::new());
        assert!(through_locals(source).is_empty());
        let source = "int x := 0;\npublic m (x:ref int) :(int) = { x := 1; !x };";
        assert_eq!(codes(source), vec!["W0206", "W0206"]);
        assert!(through_locals(source).is_empty());
        // Rule 2: a local known to hold a cell, with no global of its name.
        let source = "public m (u:unit) :(int) = { let c = ref 0 in c := 1; !c };";
        assert_eq!(codes(source), Vec::<&str>::new());
        assert_eq!(through_locals(source), vec!["c := 1", "!c"]);
        let source = "public m (c:ref int) :(unit) = { (fun (c:int) :(unit) -> c := 1) 0 };";
        assert_eq!(codes(source), vec!["W0203"]);
        assert!(through_locals(source).is_empty());
        // Rule 3: otherwise the global, declared or not, as in HOLiK.
        assert_eq!(codes("public m (c:int) :(int) = { !c };"), vec!["W0204"]);
        assert!(through_locals("public m (c:int) :(int) = { !c };").is_empty());
        // A local whose type is unknown (after a reported slip) reads the global too.
        assert_eq!(
            codes("public m (u:unit) :(int) = { let c = g () in !c };"),
            vec!["W0202", "W0204"]
        );
    }

    #[test]
    fn scopes_shadow_and_resolve_over_the_file() {
        // The parameter shadows the method `f`; `let` shadows the parameter.
        assert_eq!(
            codes("private f (x:int) :(int) = { x };\npublic m (f:int) :(int) = { let f = f + 1 in f };"),
            Vec::<&str>::new()
        );
        // `g` is declared after its use.
        assert_eq!(
            codes("public m (x:int) :(int) = { g x };\nprivate g (y:int) :(int) = { y };"),
            Vec::<&str>::new()
        );
    }
}
