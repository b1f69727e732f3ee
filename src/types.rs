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
//! | E0303 | error    | a reference assigned a pair (references hold integers or functions) |
//! | W0201 | warning  | an expression whose type is not the one expected |
//! | W0202 | warning  | a call of an undeclared name (the call gets stuck) |
//! | W0203 | warning  | an assignment to an undeclared reference (it is created) |
//! | W0204 | warning  | a read of an undeclared reference (the read gets stuck) |
//! | W0205 | warning  | `fun r := m` where `m` is not a method |
//!
//! Every type is known from the annotations except those of `let`-bound names, which are
//! the types of their values. Once something is ill-typed its type is *unknown*, which is
//! compatible with everything, so one slip gives one warning.

use crate::diagnostics::Diagnostic;
use crate::syntax::ast::*;
use std::collections::HashMap;

/// Checks a whole program; returns its diagnostics (errors and warnings) in source order.
pub fn check_program(name: &str, p: &Program) -> Vec<Diagnostic> {
    let mut checker = Checker {
        file: name,
        functions: HashMap::new(),
        refs: HashMap::new(),
        diagnostics: Vec::new(),
        scope: Vec::new(),
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
    let mut diagnostics = checker.diagnostics;
    diagnostics.sort_by_key(|d| d.labels.first().map(|l| l.span.start).unwrap_or(0));
    diagnostics
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

struct Checker<'a> {
    file: &'a str,
    functions: HashMap<String, Global>,
    refs: HashMap<String, Reference>,
    diagnostics: Vec<Diagnostic>,
    /// Local names (parameters, `let`, `letrec`) innermost last, with their types.
    scope: Vec<(String, Option<Type>)>,
}

impl Checker<'_> {
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
                Decl::FunRef { name, target, .. } => {
                    let ty = match self.functions.get(&target.name).cloned() {
                        Some(Global::Method(t, _)) => Some(t.clone()),
                        other => {
                            let what = match other {
                                Some(Global::Import(..)) => "an import, not a method",
                                _ => "not declared",
                            };
                            self.warn(
                                Diagnostic::warning(
                                    "W0205",
                                    format!("`{}` is not a method", target.name),
                                )
                                .with_label(self.file, target.span.clone(), what)
                                .with_hint(format!(
                                    "A function reference starts out holding a method of this \
                                     library; calling `!{}` before assigning it gets stuck.",
                                    name.name
                                )),
                            );
                            other.map(|g| g.ty().clone())
                        }
                    };
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

    /// Checks a method, `letrec` or lambda body against its declared result type.
    fn function(&mut self, f: &Function) {
        self.scope
            .push((f.param.name.clone(), Some(f.param_ty.clone())));
        self.expect(&f.body, &f.ret_ty, "the declared result type");
        self.scope.pop();
    }

    /// Checks that `e` has type `expected`; a mismatch is a warning.
    fn expect(&mut self, e: &Expr, expected: &Type, because: &str) {
        if let Some(found) = self.synth(e) {
            if &found != expected {
                self.mismatch(e, &found, expected, because);
            }
        }
    }

    fn mismatch(&mut self, e: &Expr, found: &Type, expected: &Type, because: &str) {
        let d = Diagnostic::warning("W0201", "Type mismatch")
            .with_label(
                self.file,
                e.span.clone(),
                format!("this has type `{found}`"),
            )
            .with_hint(format!(
                "`{expected}` is expected here ({because}). HOLiK does not check types; holi \
                 warns and analyses the program as written."
            ));
        self.warn(d);
    }

    fn local(&self, name: &str) -> Option<&Option<Type>> {
        self.scope
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t)
    }

    /// The type of `e`, or `None` when it is unknown (after a reported problem).
    fn synth(&mut self, e: &Expr) -> Option<Type> {
        match &e.kind {
            ExprKind::Var(x) => self.variable(x, e, false),
            ExprKind::Int(_) => Some(Type::Int),
            ExprKind::Unit => Some(Type::Unit),
            ExprKind::Deref(r) => match self.refs.get(&r.name) {
                Some(reference) => reference.ty.clone(),
                None => {
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
            },
            ExprKind::Assign(r, value) => {
                let found = self.synth(value);
                if let Some(Type::Pair(..)) = &found {
                    let d = Diagnostic::error("E0303", "A reference cannot hold a pair")
                        .with_label(self.file, value.span.clone(), "this is a pair")
                        .with_label(self.file, r.span.clone(), "assigned to this reference")
                        .with_hint(
                            "References hold integers or functions. Use one reference per \
                             component.",
                        );
                    self.warn(d);
                    return Some(Type::Unit);
                }
                match self.refs.get(&r.name) {
                    Some(reference) => {
                        if let (Some(found), Some(declared)) = (&found, reference.ty.clone()) {
                            if *found != declared {
                                self.mismatch(value, found, &declared, "the reference's type");
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
                            "{}Declare it, e.g. `int {} := 0;`. Like HOLiK, holi creates it on \
                             this assignment.",
                            did_you_mean(&r.name, self.refs.keys()),
                            r.name
                        ));
                        self.warn(d);
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
                        d = d.with_hint(match &arg.kind {
                            ExprKind::Int(n) if n.sign() == num_bigint::Sign::Minus => {
                                "A sign belongs to the literal: `x -1` applies `x` to `-1`. \
                                 Write `x - 1` to subtract."
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
                self.expect(a, &Type::Int, &why);
                self.expect(b, &Type::Int, &why);
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
                    (Some(tt), Some(tf)) if tt != tf => {
                        self.mismatch(f, &tf, &tt, "both branches of an `if` have one type");
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
                self.scope.push((x.name.clone(), tv));
                let tb = self.synth(body);
                self.scope.pop();
                tb
            }
            ExprKind::LetRec(name, func, body) => {
                self.scope.push((name.name.clone(), Some(func.ty())));
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
        }
    }

    /// A name: local, then method or import. Undeclared, it is a warning when called (the
    /// call gets stuck, as in HOLiK) and an error when used as a value.
    fn variable(&mut self, x: &str, e: &Expr, called: bool) -> Option<Type> {
        if let Some(t) = self.local(x) {
            return t.clone();
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
                .map(|(name, _)| name)
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
