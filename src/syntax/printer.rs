//! The canonical printer: HOLi text with the fewest parentheses that keep the tree.
//!
//! It mirrors the parser's levels: an expression printed where the parser reads `expr[L]`
//! needs parentheses exactly when its group is looser than `L`. (A construct that ends in an
//! operand, such as `if … else e` or `not e`, cannot swallow the operator that follows it:
//! its operand is read at its own group, and no infix operator shares a group with one of
//! these constructs.) Two operators of one group (`a - b + c`) are parenthesised too, so
//! the output is never ambiguous for HOLiK. Layout follows Wadler's "prettier printer": a group is
//! printed on one line when it fits in [`WIDTH`] columns, otherwise its line breaks are taken.

use crate::syntax::ast::*;

/// The preferred line width.
pub const WIDTH: usize = 100;

const TOP: u8 = 13;

/// Prints a whole library or client.
pub fn print_program(p: &Program) -> String {
    let mut sections: Vec<String> = Vec::new();
    if let Some(b) = &p.bounds {
        sections.push(format!("# set-bounds {} {} #\n", b.k, b.l));
    }
    if !p.imports.is_empty() {
        let imports: String = p
            .imports
            .iter()
            .map(|i| format!("import {} :({})\n", i.name.name, i.ty))
            .collect();
        sections.push(imports);
    }
    let mut decls = String::new();
    let mut previous_was_method = false;
    for (i, decl) in p.decls.iter().enumerate() {
        let is_method = matches!(decl, Decl::Method(_));
        if i > 0 && (is_method || previous_was_method) {
            decls.push('\n');
        }
        previous_was_method = is_method;
        decls.push_str(&render(&decl_doc(decl)));
        decls.push('\n');
    }
    if !decls.is_empty() {
        sections.push(decls);
    }
    if let Some(main) = &p.main {
        let doc = Doc::group(vec![
            Doc::text("main = {"),
            Doc::nest(2, vec![Doc::Line, expr_doc(&main.body, TOP)]),
            Doc::Line,
            Doc::text("};"),
        ]);
        sections.push(render(&doc) + "\n");
    }
    sections.join("\n")
}

/// Prints one expression as it would appear in a method body.
pub fn print_expr(e: &Expr) -> String {
    render(&expr_doc(e, TOP))
}

fn decl_doc(decl: &Decl) -> Doc {
    match decl {
        Decl::Method(m) => {
            let visibility = match m.visibility {
                Visibility::Public => "public",
                Visibility::Private => "private",
            };
            Doc::group(vec![
                Doc::text(format!(
                    "{visibility} {} {} = {{",
                    m.name.name,
                    signature(&m.func)
                )),
                Doc::nest(2, vec![Doc::Line, expr_doc(&m.func.body, TOP)]),
                Doc::Line,
                Doc::text("};"),
            ])
        }
        Decl::IntRef { name, init, .. } => Doc::text(format!("int {} := {init};", name.name)),
        Decl::FunRef { name, target, .. } => {
            Doc::text(format!("fun {} := {};", name.name, target.name))
        }
    }
}

fn signature(f: &Function) -> String {
    format!("({}:{}) :({})", f.param.name, f.param_ty, f.ret_ty)
}

/// The priority group of the construct at the top of `e` (1 = tightest).
fn group(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Var(_)
        | ExprKind::Int(_)
        | ExprKind::Unit
        | ExprKind::Deref(_)
        | ExprKind::Assert(_)
        | ExprKind::Fst(_)
        | ExprKind::Snd(_) => 1,
        ExprKind::App(..) => 2,
        ExprKind::Not(_) => 3,
        ExprKind::Binary(op, ..) => op_group(*op),
        ExprKind::Pair(..) => 9,
        ExprKind::Assign(..) => 10,
        ExprKind::If(..) => 11,
        ExprKind::Seq(..) => 12,
        ExprKind::Let(..) | ExprKind::LetRec(..) | ExprKind::Lambda(_) => TOP,
    }
}

fn op_group(op: BinOp) -> u8 {
    match op {
        BinOp::Mul | BinOp::Div => 4,
        BinOp::Add | BinOp::Sub => 5,
        BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge | BinOp::Eq => 6,
        BinOp::And => 7,
        BinOp::Or => 8,
    }
}

/// `e` printed where the parser reads `expr[level]`.
fn expr_doc(e: &Expr, level: u8) -> Doc {
    if group(e) > level {
        Doc::concat(vec![
            Doc::text("("),
            Doc::nest(1, vec![expr_doc(e, TOP)]),
            Doc::text(")"),
        ])
    } else {
        bare(e)
    }
}

fn bare(e: &Expr) -> Doc {
    match &e.kind {
        ExprKind::Var(x) => Doc::text(x.clone()),
        ExprKind::Int(n) => Doc::text(n.to_string()),
        ExprKind::Unit => Doc::text("()"),
        ExprKind::Deref(r) => Doc::text(format!("!{}", r.name)),
        ExprKind::Assert(a) => prefix("assert ", a, 1),
        ExprKind::Fst(a) => prefix("fst ", a, 1),
        ExprKind::Snd(a) => prefix("snd ", a, 1),
        ExprKind::Not(a) => prefix("not ", a, 3),
        ExprKind::App(f, a) => Doc::group(vec![
            expr_doc(f, 2),
            Doc::nest(2, vec![Doc::Line, expr_doc(a, 1)]),
        ]),
        ExprKind::Binary(op, a, b) => {
            let g = op_group(*op);
            let (left_level, right_level) = match op {
                BinOp::And | BinOp::Or => (g - 1, g),
                _ => (g, g - 1),
            };
            // `(a - b) + c`: parenthesise a different operator of the same group.
            let left = match &a.kind {
                ExprKind::Binary(inner, ..) if inner != op && op_group(*inner) == g => {
                    expr_doc(a, g - 1)
                }
                _ => expr_doc(a, left_level),
            };
            Doc::group(vec![
                left,
                Doc::text(format!(" {}", op.symbol())),
                Doc::nest(2, vec![Doc::Line, expr_doc(b, right_level)]),
            ])
        }
        ExprKind::Pair(a, b) => Doc::group(vec![
            expr_doc(a, 9),
            Doc::text(","),
            Doc::nest(2, vec![Doc::Line, expr_doc(b, 8)]),
        ]),
        ExprKind::Assign(r, v) => Doc::group(vec![
            Doc::text(format!("{} :=", r.name)),
            Doc::nest(2, vec![Doc::Line, expr_doc(v, 10)]),
        ]),
        ExprKind::Seq(..) => {
            // Flatten the right-nested chain `a; (b; c)` into one group of statements.
            let mut items = Vec::new();
            let mut rest = e;
            while let ExprKind::Seq(a, b) = &rest.kind {
                items.push(Doc::concat(vec![
                    expr_doc(a, 11),
                    Doc::text(";"),
                    Doc::Line,
                ]));
                rest = b;
            }
            items.push(expr_doc(rest, 12));
            Doc::group(items)
        }
        ExprKind::If(c, t, f) => {
            let else_branch = if matches!(f.kind, ExprKind::If(..)) {
                Doc::concat(vec![Doc::text(" "), expr_doc(f, 11)])
            } else {
                Doc::nest(2, vec![Doc::Line, expr_doc(f, 11)])
            };
            Doc::group(vec![
                Doc::text("if "),
                Doc::nest(3, vec![expr_doc(c, TOP)]),
                Doc::text(" then"),
                Doc::nest(2, vec![Doc::Line, expr_doc(t, TOP)]),
                Doc::Line,
                Doc::text("else"),
                else_branch,
            ])
        }
        ExprKind::Let(x, v, body) => Doc::concat(vec![
            Doc::group(vec![
                Doc::text(format!("let {} =", x.name)),
                Doc::nest(2, vec![Doc::Line, expr_doc(v, TOP)]),
                Doc::Line,
                Doc::text("in"),
            ]),
            Doc::Line,
            expr_doc(body, TOP),
        ])
        .grouped(),
        ExprKind::LetRec(name, func, body) => Doc::concat(vec![
            Doc::group(vec![
                Doc::text(format!("letrec {} {} =", name.name, signature(func))),
                Doc::nest(2, vec![Doc::Line, expr_doc(&func.body, TOP)]),
                Doc::Line,
                Doc::text("in"),
            ]),
            Doc::Line,
            expr_doc(body, TOP),
        ])
        .grouped(),
        ExprKind::Lambda(func) => Doc::group(vec![
            Doc::text(format!("fun {} ->", signature(func))),
            Doc::nest(2, vec![Doc::Line, expr_doc(&func.body, TOP)]),
        ]),
    }
}

fn prefix(keyword: &str, operand: &Expr, level: u8) -> Doc {
    // `assert(x)` is the corpus' style; the space keeps `assert x` and `assert (x, y)` alike.
    Doc::concat(vec![Doc::text(keyword), expr_doc(operand, level)])
}

/// A document for Wadler-style layout.
enum Doc {
    Text(String),
    /// A space when its group is flat, otherwise a newline and the current indentation.
    Line,
    Nest(usize, Vec<Doc>),
    Concat(Vec<Doc>),
    Group(Vec<Doc>),
}

impl Doc {
    fn text(s: impl Into<String>) -> Doc {
        Doc::Text(s.into())
    }
    fn nest(indent: usize, docs: Vec<Doc>) -> Doc {
        Doc::Nest(indent, docs)
    }
    fn concat(docs: Vec<Doc>) -> Doc {
        Doc::Concat(docs)
    }
    fn group(docs: Vec<Doc>) -> Doc {
        Doc::Group(docs)
    }
    fn grouped(self) -> Doc {
        Doc::Group(vec![self])
    }
}

/// Lays out `doc` with an explicit stack (deep programs must not overflow).
fn render(doc: &Doc) -> String {
    let mut out = String::new();
    let mut column = 0usize;
    // (indent, flat, doc)
    let mut stack: Vec<(usize, bool, &Doc)> = vec![(0, false, doc)];
    while let Some((indent, flat, doc)) = stack.pop() {
        match doc {
            Doc::Text(s) => {
                out.push_str(s);
                column += s.chars().count();
            }
            Doc::Line => {
                if flat {
                    out.push(' ');
                    column += 1;
                } else {
                    out.push('\n');
                    out.extend(std::iter::repeat_n(' ', indent));
                    column = indent;
                }
            }
            Doc::Nest(more, docs) => {
                stack.extend(docs.iter().rev().map(|d| (indent + more, flat, d)));
            }
            Doc::Concat(docs) => stack.extend(docs.iter().rev().map(|d| (indent, flat, d))),
            Doc::Group(docs) => {
                let flat = flat || fits(WIDTH.saturating_sub(column), docs, &stack);
                stack.extend(docs.iter().rev().map(|d| (indent, flat, d)));
            }
        }
    }
    out
}

/// Whether `docs` printed flat, plus what follows up to the next line break, fits in
/// `room` columns.
fn fits(room: usize, docs: &[Doc], rest: &[(usize, bool, &Doc)]) -> bool {
    let mut room = room as isize;
    let mut pending: Vec<&Doc> = docs.iter().rev().collect();
    let mut rest = rest.iter().rev();
    loop {
        let doc = match pending.pop() {
            Some(doc) => doc,
            // After the group: measure up to the first break of the enclosing layout.
            None => match rest.next() {
                Some((_, flat, doc)) => {
                    if !flat && matches!(doc, Doc::Line) {
                        return true;
                    }
                    if !flat {
                        // A group or text after us in broken context: count its text
                        // until its first possible break.
                        pending.push(doc);
                        let mut measured = 0isize;
                        while let Some(d) = pending.pop() {
                            match d {
                                Doc::Text(s) => measured += s.chars().count() as isize,
                                Doc::Line => break,
                                Doc::Nest(_, ds) | Doc::Concat(ds) | Doc::Group(ds) => {
                                    pending.extend(ds.iter().rev())
                                }
                            }
                            if measured > room {
                                return false;
                            }
                        }
                        return measured <= room;
                    }
                    doc
                }
                None => return true,
            },
        };
        match doc {
            Doc::Text(s) => room -= s.chars().count() as isize,
            Doc::Line => room -= 1,
            Doc::Nest(_, ds) | Doc::Concat(ds) | Doc::Group(ds) => pending.extend(ds.iter().rev()),
        }
        if room < 0 {
            return false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parser::parse_source;

    /// The body of `m` after a parse and a canonical print.
    fn canonical(body: &str) -> String {
        let source = format!("public m (u:unit) :(unit) = {{ {body} }};");
        let (program, diagnostics) = parse_source("t", &source);
        let program = program.unwrap_or_else(|| panic!("{body}: {diagnostics:?}"));
        match &program.decls[0] {
            Decl::Method(m) => print_expr(&m.func.body),
            _ => unreachable!("the source has one method"),
        }
    }

    #[test]
    fn redundant_parentheses_go_and_needed_ones_stay() {
        for (input, output) in [
            ("(a); ((b))", "a; b"),
            ("(if c then (a; b) else d); e", "if c then a; b else d; e"),
            ("if c then a else (b; d)", "if c then a else (b; d)"),
            ("(assert f) x", "assert f x"),
            ("assert (f x)", "assert (f x)"),
            ("not (f x)", "not f x"),
            ("(not f) x", "(not f) x"),
            ("(not a) < b", "not a < b"),
            ("not (a < b)", "not (a < b)"),
            ("r := (a, b)", "r := a, b"),
            ("(r := a), b", "(r := a), b"),
            (
                "r := (fun (x:int) :(int) -> x)",
                "r := (fun (x:int) :(int) -> x)",
            ),
            ("a; (let x = 1 in x)", "a; (let x = 1 in x)"),
            ("(let x = 1 in x); a", "(let x = 1 in x); a"),
            ("let x = 1 in (x; a)", "let x = 1 in x; a"),
            ("(a, b), c", "a, b, c"),
            ("a, (b, c)", "a, (b, c)"),
            ("(a - b) - c", "a - b - c"),
            ("a - (b - c)", "a - (b - c)"),
            ("(a - b) + c", "(a - b) + c"),
            ("a && (b && c)", "a && b && c"),
            ("(a && b) && c", "(a && b) && c"),
            ("f (g x) (h)", "f (g x) h"),
            ("f (-1)", "f -1"),
            ("x + (-1)", "x + -1"),
            ("x - (+1)", "x - 1"),
            ("f ()", "f ()"),
            ("(x := 1); (y := 2)", "x := 1; y := 2"),
            (
                "if c then a else (if d then e else f)",
                "if c then a else if d then e else f",
            ),
            ("x + (if c then 1 else 2)", "x + (if c then 1 else 2)"),
        ] {
            assert_eq!(canonical(input), output, "{input}");
        }
    }

    #[test]
    fn long_bodies_break_into_indented_lines() {
        let long = "let total = !balance + !bonus + !reserve in \
                    if total < 100000000000000000000 then (send total; balance := 0; bonus := 0) \
                    else assert (total == 0)";
        let source = format!("public withdraw (u:unit) :(unit) = {{ {long} }};");
        let (program, _) = parse_source("t", &source);
        let printed = print_program(&program.expect("parses"));
        assert_eq!(
            printed,
            "public withdraw (u:unit) :(unit) = {\n  \
             let total = !balance + !bonus + !reserve in\n  \
             if total < 100000000000000000000 then\n    \
             send total; balance := 0; bonus := 0\n  \
             else\n    \
             assert (total == 0)\n\
             };\n"
        );
    }
}
