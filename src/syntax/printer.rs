//! The canonical printer: HOLi text with the fewest parentheses that keep the tree.
//!
//! It mirrors the parser's levels: an expression printed where the parser reads `expr[L]`
//! needs parentheses exactly when its group is looser than `L`. (A construct that ends in an
//! operand, such as `if … else e` or `not e`, cannot swallow the operator that follows it:
//! its operand is read at its own group, and no infix operator shares a group with one of
//! these constructs.) Two operators of one group (`a - b + c`) are parenthesised too, so
//! the output is never ambiguous for HOLiK. Layout follows Wadler's "prettier printer": a group is
//! printed on one line when it fits in [`WIDTH`] columns, otherwise its line breaks are taken;
//! a sequence always puts one statement per line.
//! Indentation stops growing at [`MAX_INDENT`] columns, so the output of deeply nested code
//! stays linear in its size.
//!
//! [`format_source`] also keeps the source's comments. Each comment belongs to a node of the
//! tree (see [`Attached`]): a comment after code on its line *trails* the node that ends
//! there and is printed at the end of that node's last line; any other comment *leads* the
//! node that follows it and is printed on lines of its own before it. A node printed at the
//! very start (or end) of a bigger one hands its comments to the biggest such node, so that
//! where a comment goes depends on the printed tree only, and formatting is idempotent.

use crate::syntax::ast::*;
use crate::syntax::lexer;
use std::collections::HashMap;

/// The preferred line width.
pub const WIDTH: usize = 100;

/// The deepest indentation, in columns; deeper code is indented no further.
pub const MAX_INDENT: usize = 40;

const TOP: u8 = 13;

/// Prints a whole library or client.
pub fn print_program(p: &Program) -> String {
    Printer::default().program(p)
}

/// Passes of [`format_source`] at most: the first may move a comment, the next settle it.
const FORMAT_PASSES: usize = 4;

/// Prints a program parsed from `source`, keeping `source`'s comments: the canonical form
/// that `holi fmt` writes, so formatting it again changes nothing.
///
/// A comment that stood inside an expression (in a condition, a declaration's header,
/// before a closing parenthesis) moves on the first pass to the next place a comment can
/// stand, and the line it lands on may then be laid out differently by the next pass.
/// So the text is formatted again until it no longer changes, which the property tests
/// (`tests/front_end_props.rs`) find within a few passes.
pub fn format_source(p: &Program, source: &str) -> String {
    let mut text = format_once(p, source);
    for _ in 1..FORMAT_PASSES {
        let Some(again) = crate::syntax::parser::parse_source("", &text).0 else {
            break;
        };
        let next = format_once(&again, &text);
        if next == text {
            break;
        }
        text = next;
    }
    text
}

fn format_once(p: &Program, source: &str) -> String {
    let (tokens, _) = lexer::lex("", source);
    let comments = lexer::comments(source, &tokens);
    Printer {
        comments: Attached::new(p, source, &comments),
    }
    .program(p)
}

/// Prints one expression as it would appear in a method body.
pub fn print_expr(e: &Expr) -> String {
    render(&Printer::default().expr_doc(e, TOP))
}

/// A node of the tree that comments can belong to.
#[derive(Clone, Copy)]
enum Node<'a> {
    Bounds(&'a Bounds),
    Import(&'a Import),
    Decl(&'a Decl),
    Main(&'a Main),
    Expr(&'a Expr),
}

/// A node's identity while the tree is borrowed: its address and what it is (a `main`
/// and its body may share an address).
type Key = (usize, &'static str);

fn key<T>(node: &T) -> Key {
    (node as *const T as usize, std::any::type_name::<T>())
}

impl<'a> Node<'a> {
    fn key(self) -> Key {
        match self {
            Node::Bounds(b) => key(b),
            Node::Import(i) => key(i),
            Node::Decl(d) => key(d),
            Node::Main(m) => key(m),
            Node::Expr(e) => key(e),
        }
    }

    fn span(self) -> Span {
        match self {
            Node::Bounds(b) => b.span.clone(),
            Node::Import(i) => i.span.clone(),
            Node::Decl(d) => d.span().clone(),
            Node::Main(m) => m.span.clone(),
            Node::Expr(e) => e.span.clone(),
        }
    }

    /// Whether comments after its last child stay inside it (inside a body's braces).
    fn has_braces(self) -> bool {
        matches!(self, Node::Decl(Decl::Method(_)) | Node::Main(_))
    }

    /// Its children, in source order.
    fn children(self) -> Vec<Node<'a>> {
        let e = match self {
            Node::Decl(Decl::Method(m)) => return vec![Node::Expr(&m.func.body)],
            Node::Main(m) => return vec![Node::Expr(&m.body)],
            Node::Expr(e) => e,
            _ => return Vec::new(),
        };
        let exprs = e.children();
        exprs.into_iter().map(Node::Expr).collect()
    }
}

/// The comments of a source, by the node they belong to (keyed by [`key`]), each list in
/// source order.
#[derive(Default)]
struct Attached {
    /// Printed on lines of their own before the node.
    leading: HashMap<Key, Vec<String>>,
    /// Printed at the end of the node's last line.
    trailing: HashMap<Key, Vec<String>>,
    /// Printed on lines of their own after a body, inside its braces.
    closing: HashMap<Key, Vec<String>>,
    /// Printed at the end of the file.
    last: Vec<String>,
}

impl Attached {
    /// Finds each comment's node: inside the smallest node that encloses it, the last child
    /// before it when the comment stands after code on that child's last line, otherwise
    /// the first child after it, otherwise the enclosing node itself.
    fn new(p: &Program, source: &str, comments: &[lexer::Comment]) -> Attached {
        let mut attached = Attached::default();
        let mut top: Vec<Node> = p.bounds.iter().map(Node::Bounds).collect();
        top.extend(p.imports.iter().map(Node::Import));
        top.extend(p.decls.iter().map(Node::Decl));
        top.extend(p.main.iter().map(Node::Main));
        top.sort_by_key(|n| n.span().start);
        for comment in comments {
            let span = &comment.span;
            let mut text = &source[span.clone()];
            if text.starts_with("//") {
                text = text.trim_end();
            }
            let text = text.to_string();
            // The nodes enclosing the comment, outermost first, with their children.
            let mut path: Vec<(Node, Vec<Node>)> = Vec::new();
            loop {
                let children = path.last().map_or(&top[..], |(_, c)| &c[..]);
                let after = children.partition_point(|c| c.span().start < span.start);
                let enclosing = after
                    .checked_sub(1)
                    .map(|i| children[i])
                    .filter(|c| span.end <= c.span().end);
                match enclosing {
                    Some(child) => path.push((child, child.children())),
                    None => break,
                }
            }
            let children = path.last().map_or(&top[..], |(_, c)| &c[..]);
            let after = children.partition_point(|c| c.span().start < span.start);
            let before = children[..after]
                .iter()
                .rev()
                .find(|c| c.span().end <= span.start);
            let on_its_line = |n: &Node| !breaks_line(source, comments, n.span().end, span.start);
            // Nothing can trail a line comment on its line: a comment after one goes where
            // it will be once printed, on a line of its own after the node.
            let open_line = |n: &Node| {
                let trailing = attached.trailing.get(&n.key());
                !trailing
                    .and_then(|list| list.last())
                    .is_some_and(|c| c.starts_with("//"))
            };
            let trails_before = before.is_some_and(|n| comment.after_code && on_its_line(n));
            let trails_before = trails_before && before.is_some_and(open_line);
            let trails_parent =
                comment.after_code && path.last().is_some_and(|(p, _)| open_line(p));
            let target = match (before, children.get(after), path.last()) {
                (Some(n), _, _) if trails_before => Some((&mut attached.trailing, n.key())),
                (_, Some(n), _) => Some((&mut attached.leading, n.key())),
                (_, None, Some((p, _))) if trails_parent || p.has_braces() => {
                    let list = match p.has_braces() {
                        true => &mut attached.closing,
                        false => &mut attached.trailing,
                    };
                    Some((list, p.key()))
                }
                // A comment on its own line at the end of a node (`(a + b\n// c\n)`)
                // leads what follows the node, as it will once printed without parentheses.
                _ => loop {
                    let Some((node, _)) = path.pop() else {
                        break None;
                    };
                    let siblings = path.last().map_or(&top[..], |(_, c)| &c[..]);
                    let next = siblings.partition_point(|c| c.span().start < node.span().end);
                    if let Some(n) = siblings.get(next) {
                        break Some((&mut attached.leading, n.key()));
                    }
                    if let Some((p, _)) = path.last().filter(|(p, _)| p.has_braces()) {
                        break Some((&mut attached.closing, p.key()));
                    }
                },
            };
            match target {
                Some((list, node)) => list.entry(node).or_default().push(text),
                None => attached.last.push(text),
            }
        }
        attached
    }
}

/// Whether a newline stands between `from` and `to` outside the comments.
fn breaks_line(source: &str, comments: &[lexer::Comment], from: usize, to: usize) -> bool {
    let mut at = from;
    let first = comments.partition_point(|c| c.span.start < from);
    for comment in comments[first..].iter().take_while(|c| c.span.start < to) {
        if source[at..comment.span.start].contains('\n') {
            return true;
        }
        at = comment.span.end;
    }
    source[at..to].contains('\n')
}

/// Builds documents, handing out each attached comment once.
#[derive(Default)]
struct Printer {
    comments: Attached,
}

impl Printer {
    fn program(&mut self, p: &Program) -> String {
        let mut sections: Vec<String> = Vec::new();
        if let Some(b) = &p.bounds {
            let doc = self.around(key(b), Doc::text(format!("# set-bounds {} {} #", b.k, b.l)));
            sections.push(render(&doc) + "\n");
        }
        if !p.imports.is_empty() {
            let mut imports = String::new();
            for i in &p.imports {
                let text = Doc::text(format!("import {} :({})", i.name.name, i.ty));
                imports.push_str(&render(&self.around(key(i), text)));
                imports.push('\n');
            }
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
            let doc = self.decl_doc(decl);
            decls.push_str(&render(&self.around(key(decl), doc)));
            decls.push('\n');
        }
        if !decls.is_empty() {
            sections.push(decls);
        }
        if let Some(main) = &p.main {
            let doc = self.body("main = {", &main.body, key(main));
            sections.push(render(&self.around(key(main), doc)) + "\n");
        }
        let last = std::mem::take(&mut self.comments.last);
        if !last.is_empty() {
            sections.push(last.into_iter().map(|c| c + "\n").collect());
        }
        sections.join("\n")
    }

    /// `doc` with the comments leading and trailing the node `node`.
    fn around(&mut self, node: Key, doc: Doc) -> Doc {
        let leading = self.comments.leading.remove(&node).unwrap_or_default();
        let trailing = self.comments.trailing.remove(&node).unwrap_or_default();
        with_comments(leading, doc, trailing)
    }

    fn decl_doc(&mut self, decl: &Decl) -> Doc {
        match decl {
            Decl::Method(m) => {
                let visibility = match m.visibility {
                    Visibility::Public => "public",
                    Visibility::Private => "private",
                };
                let head = format!("{visibility} {} {} = {{", m.name.name, signature(&m.func));
                self.body(&head, &m.func.body, key(decl))
            }
            Decl::IntRef { name, init, .. } => Doc::text(format!("int {} := {init};", name.name)),
            Decl::FunRef { name, target, .. } => {
                Doc::text(format!("fun {} := {};", name.name, target.name))
            }
            Decl::RefDecl {
                name,
                ty,
                init,
                init_span,
                ..
            } => Doc::concat(vec![
                Doc::text(format!("{ty} {} := ", name.name)),
                self.expr_doc(&init.to_expr(init_span.clone()), 10),
                Doc::text(";"),
            ]),
        }
    }

    /// `head`, the body in braces (with the comments closing `owner`'s braces) and `};`.
    fn body(&mut self, head: &str, body: &Expr, owner: Key) -> Doc {
        let mut inside = vec![Doc::Line, self.expr_doc(body, TOP)];
        for comment in self.comments.closing.remove(&owner).unwrap_or_default() {
            inside.extend([Doc::HardLine, Doc::text(comment)]);
        }
        Doc::group(vec![
            Doc::text(head),
            Doc::nest(2, inside),
            Doc::Line,
            Doc::text("};"),
        ])
    }

    /// `e` printed where the parser reads `expr[level]`, with its comments and those of the
    /// nodes printed at its very start and end.
    fn expr_doc(&mut self, e: &Expr, level: u8) -> Doc {
        let mut leading = Vec::new();
        let mut trailing = Vec::new();
        if !self.comments.leading.is_empty() || !self.comments.trailing.is_empty() {
            let mut node = Some((e, level));
            while let Some((n, l)) = node {
                leading.extend(self.comments.leading.remove(&key(n)).unwrap_or_default());
                node = (group(n) <= l).then(|| first_child(n)).flatten();
            }
            let mut node = Some((e, level));
            while let Some((n, l)) = node {
                let mut own = self.comments.trailing.remove(&key(n)).unwrap_or_default();
                own.append(&mut trailing);
                trailing = own;
                node = (group(n) <= l).then(|| last_child(n)).flatten();
            }
        }
        let doc = if group(e) > level {
            Doc::concat(vec![
                Doc::text("("),
                Doc::nest(1, vec![self.expr_doc(e, TOP)]),
                Doc::text(")"),
            ])
        } else {
            self.bare(e)
        };
        with_comments(leading, doc, trailing)
    }
    fn bare(&mut self, e: &Expr) -> Doc {
        match &e.kind {
            ExprKind::Var(x) => Doc::text(x.clone()),
            ExprKind::Int(n) => Doc::text(n.to_string()),
            ExprKind::Unit => Doc::text("()"),
            ExprKind::Diverge => Doc::text("_bot_"),
            ExprKind::Nil => Doc::text("[]"),
            ExprKind::Deref(r) => Doc::text(format!("!{}", r.name)),
            ExprKind::Assert(a) => self.prefix("assert ", a, 1),
            ExprKind::ListOp(op, a) => self.prefix(&format!("{} ", op.keyword()), a, 1),
            ExprKind::Fst(a) => self.prefix("fst ", a, 1),
            ExprKind::Snd(a) => self.prefix("snd ", a, 1),
            ExprKind::Alloc(a) => self.prefix("ref ", a, 1),
            ExprKind::Load(a) => self.prefix("!", a, load_level(a)),
            ExprKind::Not(a) => self.prefix("not ", a, 3),
            ExprKind::App(f, a) => Doc::group(vec![
                self.expr_doc(f, 2),
                Doc::nest(2, vec![Doc::Line, self.expr_doc(a, 1)]),
            ]),
            ExprKind::Binary(op, a, b) => {
                let (left_level, right_level) = operand_levels(*op, a);
                Doc::group(vec![
                    self.expr_doc(a, left_level),
                    Doc::text(format!(" {}", op.symbol())),
                    Doc::nest(2, vec![Doc::Line, self.expr_doc(b, right_level)]),
                ])
            }
            ExprKind::Cons(a, b) => Doc::group(vec![
                self.expr_doc(a, 4),
                Doc::text(" ::"),
                Doc::nest(2, vec![Doc::Line, self.expr_doc(b, 5)]),
            ]),
            ExprKind::Match {
                scrutinee,
                nil,
                head,
                tail,
                cons,
            } => Doc::group(vec![
                Doc::text("match "),
                Doc::nest(6, vec![self.expr_doc(scrutinee, TOP)]),
                Doc::text(" with"),
                Doc::Line,
                Doc::group(vec![
                    Doc::text("| [] ->"),
                    // A `match`, `let` or `fun` here would take the next branch as its
                    // own.
                    Doc::nest(4, vec![Doc::Line, self.expr_doc(nil, 12)]),
                ]),
                Doc::Line,
                Doc::group(vec![
                    Doc::text(format!("| {} :: {} ->", head.name, tail.name)),
                    Doc::nest(4, vec![Doc::Line, self.expr_doc(cons, TOP)]),
                ]),
            ]),
            ExprKind::Pair(a, b) => Doc::group(vec![
                self.expr_doc(a, 9),
                Doc::text(","),
                Doc::nest(2, vec![Doc::Line, self.expr_doc(b, 8)]),
            ]),
            ExprKind::Assign(r, v) => Doc::group(vec![
                Doc::text(format!("{} :=", r.name)),
                Doc::nest(2, vec![Doc::Line, self.expr_doc(v, 10)]),
            ]),
            ExprKind::Store(target, v) => Doc::group(vec![
                self.expr_doc(target, store_level(target)),
                Doc::text(" :="),
                Doc::nest(2, vec![Doc::Line, self.expr_doc(v, 10)]),
            ]),
            ExprKind::Seq(a, b) => {
                // Flatten the right-nested chain `a; (b; c)` into one group of statements,
                // each inner `;` node hands its leading comments to its first statement.
                let mut items = vec![self.statement(a)];
                let mut rest: &Expr = b;
                while let ExprKind::Seq(a, b) = &rest.kind {
                    let leading = self.comments.leading.remove(&key(rest)).unwrap_or_default();
                    items.push(with_comments(leading, self.statement(a), Vec::new()));
                    rest = b;
                }
                items.push(self.expr_doc(rest, 12));
                // One statement per line, always.
                items.push(Doc::Break);
                Doc::group(items)
            }
            ExprKind::If(c, t, f) => {
                let else_branch = if matches!(f.kind, ExprKind::If(..)) {
                    Doc::concat(vec![Doc::text(" "), self.expr_doc(f, 11)])
                } else {
                    Doc::nest(2, vec![Doc::Line, self.expr_doc(f, 11)])
                };
                Doc::group(vec![
                    Doc::text("if "),
                    Doc::nest(3, vec![self.expr_doc(c, TOP)]),
                    Doc::text(" then"),
                    Doc::nest(2, vec![Doc::Line, self.expr_doc(t, TOP)]),
                    Doc::Line,
                    Doc::text("else"),
                    else_branch,
                ])
            }
            ExprKind::Let(x, v, body) => {
                let head = format!("let {} =", x.name);
                self.binder(head, v, body)
            }
            ExprKind::LetRec(name, func, body) => {
                let head = format!("letrec {} {} =", name.name, signature(func));
                self.binder(head, &func.body, body)
            }
            ExprKind::Lambda(func) => Doc::group(vec![
                Doc::text(format!("fun {} ->", signature(func))),
                Doc::nest(2, vec![Doc::Line, self.expr_doc(&func.body, TOP)]),
            ]),
        }
    }

    /// `a;` followed by a line break, in a sequence.
    fn statement(&mut self, a: &Expr) -> Doc {
        Doc::concat(vec![self.expr_doc(a, 11), Doc::text(";"), Doc::Line])
    }

    /// `let x = v in body` and `letrec f (x:t) :(t') = v in body`.
    fn binder(&mut self, head: String, value: &Expr, body: &Expr) -> Doc {
        Doc::concat(vec![
            Doc::group(vec![
                Doc::text(head),
                Doc::nest(2, vec![Doc::Line, self.expr_doc(value, TOP)]),
                Doc::Line,
                Doc::text("in"),
            ]),
            Doc::Line,
            self.expr_doc(body, TOP),
        ])
        .grouped()
    }

    fn prefix(&mut self, keyword: &str, operand: &Expr, level: u8) -> Doc {
        // `assert(x)` is the corpus' style; the space keeps `assert x` and `assert (x, y)` alike.
        Doc::concat(vec![Doc::text(keyword), self.expr_doc(operand, level)])
    }
}

/// `doc` with comments on lines of their own before it and at the end of its last line.
fn with_comments(leading: Vec<String>, doc: Doc, trailing: Vec<String>) -> Doc {
    if leading.is_empty() && trailing.is_empty() {
        return doc;
    }
    let mut docs = Vec::new();
    for comment in leading {
        docs.extend([Doc::text(comment), Doc::HardLine]);
    }
    docs.push(doc);
    docs.extend(trailing.into_iter().map(Doc::Trailing));
    Doc::concat(docs)
}

/// The child printed first in `e`'s text, with the level it is printed at, when no text of
/// `e` comes before it.
fn first_child(e: &Expr) -> Option<(&Expr, u8)> {
    match &e.kind {
        ExprKind::App(f, _) => Some((f, 2)),
        ExprKind::Binary(op, a, _) => Some((a, operand_levels(*op, a).0)),
        ExprKind::Pair(a, _) => Some((a, 9)),
        ExprKind::Cons(a, _) => Some((a, 4)),
        ExprKind::Seq(a, _) => Some((a, 11)),
        ExprKind::Store(target, _) => Some((target, store_level(target))),
        _ => None,
    }
}

/// The child printed last in `e`'s text, with the level it is printed at (no text of `e`
/// comes after it).
fn last_child(e: &Expr) -> Option<(&Expr, u8)> {
    match &e.kind {
        ExprKind::Var(_)
        | ExprKind::Int(_)
        | ExprKind::Unit
        | ExprKind::Diverge
        | ExprKind::Nil
        | ExprKind::Deref(_) => None,
        ExprKind::Assert(a)
        | ExprKind::ListOp(_, a)
        | ExprKind::Fst(a)
        | ExprKind::Snd(a)
        | ExprKind::Alloc(a)
        | ExprKind::App(_, a) => Some((a, 1)),
        ExprKind::Load(a) => Some((a, load_level(a))),
        ExprKind::Not(a) => Some((a, 3)),
        ExprKind::Binary(op, a, b) => Some((b, operand_levels(*op, a).1)),
        ExprKind::Pair(_, b) => Some((b, 8)),
        ExprKind::Cons(_, b) => Some((b, 5)),
        ExprKind::Match { cons, .. } => Some((cons, TOP)),
        ExprKind::Assign(_, v) | ExprKind::Store(_, v) => Some((v, 10)),
        ExprKind::Seq(_, b) => Some((b, 12)),
        ExprKind::If(_, _, f) => Some((f, 11)),
        ExprKind::Let(_, _, b) | ExprKind::LetRec(_, _, b) => Some((b, TOP)),
        ExprKind::Lambda(f) => Some((&f.body, TOP)),
    }
}

/// The level the operand of `!` is printed at: a name is parenthesised, `!(x)`, which the
/// parser reads back as the named form `!x` (it never builds a read through a bare name).
fn load_level(operand: &Expr) -> u8 {
    match operand.kind {
        ExprKind::Var(_) => 0,
        _ => 1,
    }
}

/// The level the target of `e := v` is printed at: bare for `!r` and `!e` (`!r := 5`,
/// `!!r := 5`), parenthesised otherwise (`(fst p) := 5`, `(f x) := 5`). A bare `!e` must
/// not end in a name, which the parser would read as the start of `x := v`.
fn store_level(target: &Expr) -> u8 {
    match target.kind {
        ExprKind::Deref(_) => 9,
        ExprKind::Load(_) if !ends_in_name(target) => 9,
        _ => 0,
    }
}

/// Whether the printed `e` ends with a name.
fn ends_in_name(e: &Expr) -> bool {
    let mut e = e;
    loop {
        if matches!(e.kind, ExprKind::Var(_)) {
            return true;
        }
        match last_child(e) {
            Some((child, level)) if group(child) <= level => e = child,
            _ => return false,
        }
    }
}

/// The levels of `a op b`'s operands. `&&` and `||` group to the right, the others to the
/// left; a different operator of the same group on the left is parenthesised, as in
/// `(a - b) + c`.
fn operand_levels(op: BinOp, a: &Expr) -> (u8, u8) {
    let g = op_group(op);
    let (left, right) = match op {
        BinOp::And | BinOp::Or => (g - 1, g),
        _ => (g, g - 1),
    };
    match &a.kind {
        ExprKind::Binary(inner, ..) if *inner != op && op_group(*inner) == g => (g - 1, right),
        // `x :: xs + 1` would read as `x :: (xs + 1)`.
        ExprKind::Cons(..) if g == 5 => (g - 1, right),
        _ => (left, right),
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
        | ExprKind::Diverge
        | ExprKind::Nil
        | ExprKind::Deref(_)
        | ExprKind::Assert(_)
        | ExprKind::ListOp(..)
        | ExprKind::Fst(_)
        | ExprKind::Snd(_)
        | ExprKind::Alloc(_)
        | ExprKind::Load(_) => 1,
        ExprKind::App(..) => 2,
        ExprKind::Not(_) => 3,
        ExprKind::Binary(op, ..) => op_group(*op),
        ExprKind::Cons(..) => 5,
        ExprKind::Pair(..) => 9,
        ExprKind::Assign(..) | ExprKind::Store(..) => 10,
        ExprKind::If(..) => 11,
        ExprKind::Seq(..) => 12,
        ExprKind::Let(..) | ExprKind::LetRec(..) | ExprKind::Lambda(_) | ExprKind::Match { .. } => {
            TOP
        }
    }
}

fn op_group(op: BinOp) -> u8 {
    match op {
        BinOp::Mul | BinOp::Div | BinOp::Mod => 4,
        BinOp::Add | BinOp::Sub => 5,
        BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge | BinOp::Eq => 6,
        BinOp::And => 7,
        BinOp::Or => 8,
    }
}

/// A document for Wadler-style layout.
enum Doc {
    Text(String),
    /// A space when its group is flat, otherwise a newline and the current indentation.
    Line,
    /// Always a newline: its groups never print flat (it ends a comment's line).
    HardLine,
    /// Nothing, but its groups never print flat.
    Break,
    /// A comment printed at the end of the line, before the next newline (a line comment
    /// turns the next `Line` into one even in a flat group). It takes no room and breaks
    /// no group, so that the layout, and hence the line it ends up on, is the same when the
    /// printed text is formatted again (where it trails that line's code).
    Trailing(String),
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
    // Trailing comments waiting for the end of their line.
    let mut pending: Vec<&str> = Vec::new();
    let flush = |out: &mut String, pending: &mut Vec<&str>, indent: usize| {
        let mut separator = " ".to_string();
        for comment in pending.drain(..) {
            out.push_str(&separator);
            out.push_str(comment);
            // Nothing may follow a line comment on its line (two trailing comments of
            // one line need no Line between them).
            if comment.starts_with("//") {
                separator = format!("\n{}", " ".repeat(indent.min(MAX_INDENT)));
            }
        }
    };
    // (indent, flat, doc)
    let mut stack: Vec<(usize, bool, &Doc)> = vec![(0, false, doc)];
    while let Some((indent, flat, doc)) = stack.pop() {
        match doc {
            Doc::Text(s) => {
                out.push_str(s);
                column += s.chars().count();
            }
            // A line comment ends its line even in a flat group.
            Doc::Line if flat && !pending.iter().any(|c| c.starts_with("//")) => {
                out.push(' ');
                column += 1;
            }
            Doc::Line | Doc::HardLine => {
                flush(&mut out, &mut pending, indent);
                out.push('\n');
                let indent = indent.min(MAX_INDENT);
                out.extend(std::iter::repeat_n(' ', indent));
                column = indent;
            }
            Doc::Trailing(comment) => pending.push(comment),
            Doc::Break => {}
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
    flush(&mut out, &mut pending, 0);
    out
}

/// Whether `docs` printed flat, plus what follows up to the next line break, fits in
/// `room` columns. A group holding a comment on lines of its own never prints flat.
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
                    if !flat && matches!(doc, Doc::Line | Doc::HardLine) {
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
                                Doc::Line | Doc::HardLine => break,
                                Doc::Trailing(_) | Doc::Break => {}
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
            Doc::HardLine | Doc::Break => return false,
            Doc::Trailing(_) => {}
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
            ("(a); ((b))", "a;\nb"),
            (
                "(if c then (a; b) else d); e",
                "if c then\n  a;\n  b\nelse\n  d;\ne",
            ),
            (
                "if c then a else (b; d)",
                "if c then\n  a\nelse\n  (b;\n   d)",
            ),
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
            ("a; (let x = 1 in x)", "a;\n(let x = 1 in x)"),
            ("(let x = 1 in x); a", "(let x = 1 in x);\na"),
            ("let x = 1 in (x; a)", "let x = 1 in\nx;\na"),
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
            ("(x := 1); (y := 2)", "x := 1;\ny := 2"),
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
    fn references_print_with_the_fewest_parentheses() {
        for (input, output) in [
            ("!r := 5", "!r := 5"),
            ("!r := (a, b)", "!r := a, b"),
            ("(!r := 1), b", "(!r := 1), b"),
            ("!!r := 5", "!!r := 5"),
            ("!(!(r))", "!!r"),
            ("!(x)", "!x"),
            ("(fst p) := 5", "(fst p) := 5"),
            ("(f x) := 5", "(f x) := 5"),
            ("!(f x) := 5", "!(f x) := 5"),
            // `!fst p := 5` would read `p := 5` as an assignment.
            ("!(fst p) := 5", "(!fst p) := 5"),
            ("!(ref x) := 1", "(!ref x) := 1"),
            ("!(fst !p) := 5", "!fst !p := 5"),
            ("(ref x) := 1", "(ref x) := 1"),
            ("ref (f x)", "ref (f x)"),
            ("(ref f) x", "ref f x"),
            ("ref (ref 0)", "ref ref 0"),
            ("ref (a, b)", "ref (a, b)"),
            ("(!r) (1, f)", "!r (1, f)"),
            ("!(r := 1)", "!(r := 1)"),
            ("x + !(f x)", "x + !(f x)"),
        ] {
            assert_eq!(canonical(input), output, "{input}");
        }
        // The parser never reads through a bare name, but a built tree may.
        let name = Expr::new(ExprKind::Var("x".into()), 0..0);
        let load = Expr::new(ExprKind::Load(Box::new(name)), 0..0);
        assert_eq!(print_expr(&load), "!(x)");
        let source = "ref (int * (int -> int)) p := ref (-1, m);\nref ref unit q := ref ref ();\n";
        let (program, d) = parse_source("t", source);
        let program = program.unwrap_or_else(|| panic!("{d:?}"));
        assert_eq!(print_program(&program), source);
    }

    /// The source formatted with its comments.
    fn formatted(source: &str) -> String {
        let (program, diagnostics) = parse_source("t", source);
        let program = program.unwrap_or_else(|| panic!("{source}: {diagnostics:?}"));
        format_source(&program, source)
    }

    #[test]
    fn comments_stay_where_they_stand() {
        let source = "# set-bounds 2 1 # // bounds\n\
            // What the client provides.\n\
            import send:(int->unit)\n\
            int bal:=10; /* money */ // more\n\
            public withdraw(m:int):(unit)={ // pays\n\
              /* before */ send(m); // sent\n\
              bal := !bal - m\n\
              // after the last statement\n\
            }; // withdraw\n\
            // the end\n";
        assert_eq!(
            formatted(source),
            "# set-bounds 2 1 # // bounds\n\n\
             // What the client provides.\n\
             import send :(int -> unit)\n\n\
             int bal := 10; /* money */ // more\n\n\
             public withdraw (m:int) :(unit) = {\n  \
               // pays\n  \
               /* before */\n  \
               send m; // sent\n  \
               bal := !bal - m\n  \
               // after the last statement\n\
             }; // withdraw\n\n\
             // the end\n"
        );
        // A line comment in a group that would fit on one line ends its line.
        assert_eq!(
            formatted("public m (x:int) :(int) = { x + // one\n 1 };"),
            "public m (x:int) :(int) = { x + // one\n    1 };\n"
        );
    }

    #[test]
    fn indentation_stops_growing() {
        let depth = 200;
        let body = format!("{}x{}", "if x then ".repeat(depth), " else x".repeat(depth));
        let printed = canonical(&body);
        let widest = printed
            .lines()
            .map(|l| l.len() - l.trim_start().len())
            .max();
        assert_eq!(widest, Some(MAX_INDENT));
        assert!(printed.len() < 20 * body.len(), "{}", printed.len());
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
             send total;\n    balance := 0;\n    bonus := 0\n  \
             else\n    \
             assert (total == 0)\n\
             };\n"
        );
    }
}
