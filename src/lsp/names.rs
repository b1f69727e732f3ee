//! Which declaration a name used at a place refers to, with HOLi's scoping: a
//! parameter, `let`, `letrec` or `match` binds in its body; any other name is a
//! method, global or import of the file (they resolve over the whole file).

use crate::diagnostics::Span;
use crate::syntax::ast::{Decl, Expr, ExprKind, Function, Ident, Program};

/// The span of the name that declares the one at byte `at` (a use, or the declaration
/// itself), if there is a name there and the file declares it.
pub fn definition(program: &Program, at: usize) -> Option<Span> {
    let mut scope = Vec::new();
    let found = program
        .decls
        .iter()
        .find_map(|d| match d {
            Decl::Method(m) if contains(&m.name.span, at) => Some(Use::Global(&m.name.name)),
            Decl::Method(m) => in_function(&m.func, at, &mut scope),
            Decl::FunRef { name, target, .. } => [name, target]
                .into_iter()
                .find(|n| contains(&n.span, at))
                .map(|n| Use::Global(&n.name)),
            Decl::IntRef { name, .. } | Decl::RefDecl { name, .. } => {
                contains(&name.span, at).then_some(Use::Global(&name.name))
            }
        })
        .or_else(|| {
            let import = program.imports.iter().find(|i| contains(&i.name.span, at));
            import.map(|i| Use::Global(&i.name.name))
        })
        .or_else(|| (program.main.as_ref()).and_then(|m| in_expr(&m.body, at, &mut scope)))?;
    match found {
        Use::Bound(span) => Some(span),
        Use::Global(name) => {
            let decl = program.decls.iter().find(|d| d.name().name == name);
            decl.map(|d| d.name().span.clone()).or_else(|| {
                let import = program.imports.iter().find(|i| i.name.name == name);
                import.map(|i| i.name.span.clone())
            })
        }
    }
}

enum Use<'a> {
    /// Bound in an enclosing expression, at this span.
    Bound(Span),
    /// Declared at the top of the file, if anywhere.
    Global(&'a str),
}

fn contains(span: &Span, at: usize) -> bool {
    span.start <= at && at <= span.end
}

fn resolve<'a>(name: &'a str, scope: &[&Ident]) -> Use<'a> {
    match scope.iter().rev().find(|b| b.name == name) {
        Some(binder) => Use::Bound(binder.span.clone()),
        None => Use::Global(name),
    }
}

fn in_function<'a>(f: &'a Function, at: usize, scope: &mut Vec<&'a Ident>) -> Option<Use<'a>> {
    if contains(&f.param.span, at) {
        return Some(Use::Bound(f.param.span.clone()));
    }
    scope.push(&f.param);
    let found = in_expr(&f.body, at, scope);
    scope.pop();
    found
}

/// `e` and what it binds walked with `scope` the names bound around it.
fn in_expr<'a>(e: &'a Expr, at: usize, scope: &mut Vec<&'a Ident>) -> Option<Use<'a>> {
    let binder = |x: &Ident| contains(&x.span, at).then(|| Use::Bound(x.span.clone()));
    match &e.kind {
        ExprKind::Var(x) => contains(&e.span, at).then(|| resolve(x, scope)),
        ExprKind::Deref(r) => contains(&r.span, at).then(|| resolve(&r.name, scope)),
        ExprKind::Assign(r, _) if contains(&r.span, at) => Some(resolve(&r.name, scope)),
        ExprKind::Let(x, rhs, body) => binder(x)
            .or_else(|| in_expr(rhs, at, scope))
            .or_else(|| within(scope, &[x], |scope| in_expr(body, at, scope))),
        ExprKind::LetRec(f, function, body) => binder(f).or_else(|| {
            within(scope, &[f], |scope| {
                in_function(function, at, scope).or_else(|| in_expr(body, at, scope))
            })
        }),
        ExprKind::Lambda(function) => in_function(function, at, scope),
        ExprKind::Match {
            scrutinee,
            nil,
            head,
            tail,
            cons,
        } => (in_expr(scrutinee, at, scope))
            .or_else(|| in_expr(nil, at, scope))
            .or_else(|| binder(head))
            .or_else(|| binder(tail))
            .or_else(|| within(scope, &[head, tail], |scope| in_expr(cons, at, scope))),
        _ => e.children().into_iter().find_map(|c| in_expr(c, at, scope)),
    }
}

/// `walk` with `bound` added to `scope`, innermost last.
fn within<'a, T>(
    scope: &mut Vec<&'a Ident>,
    bound: &[&'a Ident],
    walk: impl FnOnce(&mut Vec<&'a Ident>) -> Option<T>,
) -> Option<T> {
    let depth = scope.len();
    scope.extend(bound);
    let found = walk(scope);
    scope.truncate(depth);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(source: &str, name: &str, nth: usize) -> usize {
        source
            .match_indices(name)
            .nth(nth)
            .map(|(i, _)| i)
            .expect("the name is there")
    }

    #[test]
    fn names_resolve_to_the_innermost_binder_or_the_declaration() {
        let source = "import send :(int -> unit)\nint c := 0;\npublic f (x:int) :(int) = { let x = !c in send x; g x };\nprivate g (y:int) :(int) = { y };\n";
        let loaded = crate::frontend::load_str("t.holi", source, false)
            .unwrap_or_else(|r| panic!("{}", r.render(false)));
        let program = &loaded.program;
        let start = |at| definition(program, at).map(|s| s.start);
        // `send x` and `g x`: the `let`'s x, not the parameter.
        let let_x = at(source, "x", 1);
        assert_eq!(start(at(source, "x", 2)), Some(let_x));
        assert_eq!(start(at(source, "x", 3)), Some(let_x));
        assert_eq!(start(at(source, "x", 0)), Some(at(source, "x", 0)));
        assert_eq!(start(at(source, "send", 1)), Some(at(source, "send", 0)));
        assert_eq!(start(at(source, "!c", 0) + 1), Some(at(source, "c", 0)));
        assert_eq!(start(at(source, "g x", 0)), Some(at(source, "g (", 0)));
        // Whitespace is no name.
        assert_eq!(definition(program, at(source, " }", 0) + 1), None);
    }
}
