//! Type inference for a Hobbit file, following Hobbit's `typing.ml`.
//!
//! Hindley–Milner without generalisation: Hobbit's `let` is monomorphic, and no file of its
//! benchmark needs more. Types are terms over type variables, unified in place (union–find);
//! an occurrence of a variable inside its own solution (`'a = 'a list`) is an error, as
//! Hobbit's types are not recursive. The two sides of `|||` are inferred together and must
//! have one type, the one written after `|||_` when there is one.
//!
//! The typing is Hobbit's, including where it is generous:
//!
//! * the comparisons `= == <> < > <= >=` take two operands of any one type;
//! * `fst` and `snd` take pairs only (`e[i/n]` reaches into wider tuples);
//! * `_sync_` has type `'a -> unit`, a fresh `'a` at each occurrence (Hobbit's smart
//!   contracts pass it a boolean); `_print_` has type `'a -> unit`, `_bot_` any type;
//! * `e1; e2` needs `e1 : unit`, and `if c then e` needs `e : unit`;
//! * in `match e with [] -> e1 | x :: xs -> e2`, `x` and `xs` are bound in `e2` only.
//!
//! References are names, not values: `ref l = e in b` binds `l` to a reference holding
//! `e`'s type (recorded as `Ty::Ref`), which only `!l`, `l := e` and hints can use. Where
//! Hobbit's one namespace would let a reference stand for its contents elsewhere (or `!x`
//! read a variable), this is an error, E0112, like every other problem found here: a name
//! not in scope, a type mismatch, an infinite type, a projection out of its tuple.
//!
//! Hints are checked as Hobbit checks them: in the scope around the function (without its
//! own name and parameter) plus the hint's variables, each `l as v` with `v` of the type of
//! `l`'s contents, and the proposition a boolean.
//!
//! A type variable nothing constrains is resolved to `int`, as Hobbit's `Lax` normalisation
//! does: nothing in the program inspects a value of that type, so every type would do, and
//! `int` is one Hobbit's symbolic engine can represent. The type of the two sides is the
//! exception: a context of that type is what Hobbit plays, so it must be known, and a
//! variable left in it is an error (Hobbit's `Strict` normalisation) that an annotation
//! `|||_τ` fixes.
//!
//! Inference recurses to the depth of the syntax tree, which [`crate::hobbit::parse`]
//! bounds by [`MAX_NESTING`]; unification, the occurs check and reading types back iterate
//! or are bounded themselves.

use crate::diagnostics::{Diagnostic, Span};
use crate::hobbit::ast::*;
use crate::syntax::parser::MAX_NESTING;
use std::collections::HashMap;
use std::fmt;

/// A resolved type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    Unit,
    Bool,
    Int,
    List(Box<Ty>),
    /// At least two components, except after a projection `e[i/1]`.
    Tuple(Vec<Ty>),
    Arrow(Box<Ty>, Box<Ty>),
    /// The type of a reference's name: never a value's.
    Ref(Box<Ty>),
}

/// Writes types as OCaml does: `int -> int list`, `(int -> int) * bool`, `int ref`.
impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        /// `level` 0 takes anything, 1 anything but an arrow, 2 only what `list` follows.
        fn write(f: &mut fmt::Formatter<'_>, ty: &Ty, level: u8) -> fmt::Result {
            let needs = match ty {
                Ty::Arrow(..) => 1,
                Ty::Tuple(_) => 2,
                _ => 3,
            };
            if needs <= level {
                f.write_str("(")?;
            }
            match ty {
                Ty::Unit => f.write_str("unit")?,
                Ty::Bool => f.write_str("bool")?,
                Ty::Int => f.write_str("int")?,
                Ty::List(t) => {
                    write(f, t, 2)?;
                    f.write_str(" list")?;
                }
                Ty::Ref(t) => {
                    write(f, t, 2)?;
                    f.write_str(" ref")?;
                }
                Ty::Tuple(ts) => {
                    for (i, t) in ts.iter().enumerate() {
                        if i > 0 {
                            f.write_str(" * ")?;
                        }
                        write(f, t, 2)?;
                    }
                }
                Ty::Arrow(a, b) => {
                    write(f, a, 1)?;
                    f.write_str(" -> ")?;
                    write(f, b, 0)?;
                }
            }
            if needs <= level {
                f.write_str(")")?;
            }
            Ok(())
        }
        write(f, self, 0)
    }
}

/// The types of a file that type-checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Typed {
    /// The type of each side: the two have one type, as Hobbit requires.
    pub ty: Ty,
    /// The type of every binder, by its span: parameters (`_` and `()` included), functions'
    /// own names, `let` names, tuple patterns' elements, `match` heads and tails, hints'
    /// variables, and references (as `Ty::Ref` of their contents).
    pub binders: HashMap<Span, Ty>,
    /// The result type of every function, by [`Function::span`].
    pub results: HashMap<Span, Ty>,
}

/// The widest tuple a projection `e[i/n]` may name, so that `n` cannot make inference
/// allocate without bound.
pub const MAX_TUPLE_WIDTH: usize = 1 << 16;

/// The most type constructors the resolved types of one file may hold together: sharing
/// can make a type written out exponentially larger than the program.
pub const MAX_RESOLVED: usize = 1 << 22;

/// Infers the types of both sides of `pair`, as [`crate::hobbit::parse`] returns it, or
/// reports the first type error (E0112), as Hobbit does.
pub fn infer(pair: &Pair) -> Result<Typed, Vec<Diagnostic>> {
    let mut engine = Engine {
        file: &pair.file,
        terms: Vec::new(),
        parent: Vec::new(),
        trail: Vec::new(),
        scope: HashMap::new(),
        binders: Vec::new(),
        results: Vec::new(),
    };
    engine.pair(pair).map_err(|d| vec![d])
}

/// A type term: an index into the engine's terms.
type Node = usize;

#[derive(Clone, Debug)]
enum Term {
    Var,
    Unit,
    Bool,
    Int,
    List(Node),
    Tuple(Vec<Node>),
    Arrow(Node, Node),
}

impl Term {
    fn child(&self, i: usize) -> Option<Node> {
        match (self, i) {
            (Term::List(t), 0) | (Term::Arrow(t, _), 0) | (Term::Arrow(_, t), 1) => Some(*t),
            (Term::Tuple(ts), i) => ts.get(i).copied(),
            _ => None,
        }
    }
}

/// What a name in scope stands for.
#[derive(Clone, Copy)]
enum Entry {
    Value(Node),
    /// A reference holding values of this type.
    Cell(Node),
}

/// Why two types do not unify.
enum Clash {
    Mismatch,
    Infinite,
}

type Checked<T> = Result<T, Diagnostic>;

struct Engine<'p> {
    file: &'p str,
    terms: Vec<Term>,
    /// Union–find over terms: a class's representative holds its term (a variable only
    /// when the class is unsolved).
    parent: Vec<Node>,
    /// The links written by the unification under way, undone if it fails, so that a
    /// failed unification leaves the types as they were to report them.
    trail: Vec<(Node, Node)>,
    scope: HashMap<String, Vec<Entry>>,
    /// Every binder's span and type, and whether it names a reference.
    binders: Vec<(Span, Node, bool)>,
    results: Vec<(Span, Node)>,
}

impl Engine<'_> {
    fn node(&mut self, term: Term) -> Node {
        self.terms.push(term);
        self.parent.push(self.terms.len() - 1);
        self.terms.len() - 1
    }

    fn fresh(&mut self) -> Node {
        self.node(Term::Var)
    }

    fn find(&mut self, mut node: Node) -> Node {
        let mut root = node;
        while self.parent[root] != root {
            root = self.parent[root];
        }
        // Path compression, undone with the rest if the unification fails.
        while node != root {
            let next = self.parent[node];
            self.link(node, root);
            node = next;
        }
        root
    }

    fn link(&mut self, from: Node, to: Node) {
        if self.parent[from] != to {
            self.trail.push((from, self.parent[from]));
            self.parent[from] = to;
        }
    }

    /// Unifies two types, or leaves them unchanged and says why not. Classes are merged
    /// before their components are unified (Huet's algorithm), so shared structure is
    /// unified once and every step terminates; cycles are looked for at the end.
    fn unify(&mut self, a: Node, b: Node) -> Result<(), Clash> {
        self.trail.clear();
        let mut work = vec![(a, b)];
        while let Some((x, y)) = work.pop() {
            let (x, y) = (self.find(x), self.find(y));
            if x == y {
                continue;
            }
            match (self.terms[x].clone(), self.terms[y].clone()) {
                (Term::Var, _) => self.link(x, y),
                (_, Term::Var) => self.link(y, x),
                (Term::Unit, Term::Unit) | (Term::Bool, Term::Bool) | (Term::Int, Term::Int) => {
                    self.link(x, y)
                }
                (Term::List(p), Term::List(q)) => {
                    self.link(x, y);
                    work.push((p, q));
                }
                (Term::Arrow(p1, r1), Term::Arrow(p2, r2)) => {
                    self.link(x, y);
                    work.push((r1, r2));
                    work.push((p1, p2));
                }
                (Term::Tuple(ps), Term::Tuple(qs)) if ps.len() == qs.len() => {
                    self.link(x, y);
                    work.extend(ps.into_iter().zip(qs).rev());
                }
                _ => {
                    self.rollback();
                    return Err(Clash::Mismatch);
                }
            }
        }
        if self.cyclic(a) {
            self.rollback();
            return Err(Clash::Infinite);
        }
        Ok(())
    }

    fn rollback(&mut self) {
        while let Some((node, old)) = self.trail.pop() {
            self.parent[node] = old;
        }
    }

    /// Whether the type of `root` contains itself somewhere: a depth-first search that
    /// meets a class still open on its path.
    fn cyclic(&mut self, root: Node) -> bool {
        let root = self.find(root);
        // `false` while a class is on the path, `true` once all below it is done.
        let mut done: HashMap<Node, bool> = HashMap::from([(root, false)]);
        let mut path = vec![(root, 0)];
        while let Some(&(node, next)) = path.last() {
            let Some(child) = self.terms[node].child(next) else {
                done.insert(node, true);
                path.pop();
                continue;
            };
            if let Some(top) = path.last_mut() {
                top.1 += 1;
            }
            let child = self.find(child);
            match done.get(&child) {
                Some(false) => return true,
                Some(true) => {}
                None => {
                    done.insert(child, false);
                    path.push((child, 0));
                }
            }
        }
        false
    }

    /// Makes `found` (the type of what stands at `at`) agree with `expected`.
    fn expect(&mut self, found: Node, expected: Node, at: &Span, why: &str) -> Checked<()> {
        let clash = match self.unify(expected, found) {
            Ok(()) => return Ok(()),
            Err(clash) => clash,
        };
        let mut names = Vec::new();
        let expected = self.show(expected, &mut names);
        let found = self.show(found, &mut names);
        let diagnostic = match clash {
            Clash::Mismatch => Diagnostic::error("E0112", "Mismatched types").with_label(
                self.file,
                at.clone(),
                format!("expected `{expected}`, found `{found}`"),
            ),
            Clash::Infinite => Diagnostic::error("E0112", "This type would contain itself")
                .with_label(
                    self.file,
                    at.clone(),
                    format!("`{found}` cannot also be `{expected}`"),
                ),
        };
        Err(diagnostic.with_hint(why))
    }

    /// A type for a message, type variables named `'a`, `'b`, … in the order of `names`;
    /// cut short (`…`) past a few dozen constructors.
    fn show(&mut self, node: Node, names: &mut Vec<Node>) -> String {
        let mut budget = 40;
        let mut out = String::new();
        self.show_into(node, 0, names, &mut budget, &mut out);
        out
    }

    fn show_into(
        &mut self,
        node: Node,
        level: u8,
        names: &mut Vec<Node>,
        budget: &mut usize,
        out: &mut String,
    ) {
        let node = self.find(node);
        if *budget == 0 {
            out.push('…');
            return;
        }
        *budget -= 1;
        let term = self.terms[node].clone();
        let needs = match term {
            Term::Arrow(..) => 1,
            Term::Tuple(_) => 2,
            _ => 3,
        };
        if needs <= level {
            out.push('(');
        }
        match term {
            Term::Var => {
                let index = match names.iter().position(|&n| n == node) {
                    Some(index) => index,
                    None => {
                        names.push(node);
                        names.len() - 1
                    }
                };
                let letter = char::from(b'a' + (index % 26) as u8);
                out.push('\'');
                out.push(letter);
                if index >= 26 {
                    out.push_str(&(index / 26).to_string());
                }
            }
            Term::Unit => out.push_str("unit"),
            Term::Bool => out.push_str("bool"),
            Term::Int => out.push_str("int"),
            Term::List(t) => {
                self.show_into(t, 2, names, budget, out);
                out.push_str(" list");
            }
            Term::Tuple(ts) => {
                for (i, t) in ts.into_iter().enumerate() {
                    if i > 0 {
                        out.push_str(" * ");
                    }
                    self.show_into(t, 2, names, budget, out);
                }
            }
            Term::Arrow(a, b) => {
                self.show_into(a, 1, names, budget, out);
                out.push_str(" -> ");
                self.show_into(b, 0, names, budget, out);
            }
        }
        if needs <= level {
            out.push(')');
        }
    }

    /// The resolved type of `node`, unsolved variables read as `int` (noted in
    /// `defaulted`), or `None` past `budget` constructors or [`MAX_NESTING`] levels.
    fn resolve(&mut self, node: Node, budget: &mut usize, defaulted: &mut bool) -> Option<Ty> {
        self.resolve_at(node, 0, budget, defaulted)
    }

    fn resolve_at(
        &mut self,
        node: Node,
        depth: usize,
        budget: &mut usize,
        defaulted: &mut bool,
    ) -> Option<Ty> {
        if *budget == 0 || depth > MAX_NESTING {
            return None;
        }
        *budget -= 1;
        let node = self.find(node);
        let mut inner =
            |engine: &mut Self, t: Node| engine.resolve_at(t, depth + 1, budget, defaulted);
        Some(match self.terms[node].clone() {
            Term::Var => {
                *defaulted = true;
                Ty::Int
            }
            Term::Unit => Ty::Unit,
            Term::Bool => Ty::Bool,
            Term::Int => Ty::Int,
            Term::List(t) => Ty::List(Box::new(inner(self, t)?)),
            Term::Tuple(ts) => Ty::Tuple(
                ts.into_iter()
                    .map(|t| inner(self, t))
                    .collect::<Option<_>>()?,
            ),
            Term::Arrow(a, b) => Ty::Arrow(Box::new(inner(self, a)?), Box::new(inner(self, b)?)),
        })
    }

    fn lookup(&self, name: &str) -> Option<Entry> {
        self.scope
            .get(name)
            .and_then(|entries| entries.last().copied())
    }

    fn enter(&mut self, name: &str, entry: Entry) {
        self.scope.entry(name.to_string()).or_default().push(entry);
    }

    fn leave(&mut self, name: &str) {
        if let Some(entries) = self.scope.get_mut(name) {
            entries.pop();
        }
    }

    /// Records a binder's type and brings its name (if any) into scope.
    fn bind(&mut self, binder: &Binder, node: Node) {
        self.binders.push((binder.span.clone(), node, false));
        if let Some(name) = binder.name() {
            self.enter(name, Entry::Value(node));
        }
    }

    fn unbind(&mut self, binder: &Binder) {
        if let Some(name) = binder.name() {
            self.leave(name);
        }
    }

    /// A parameter's type before anything is known: `unit` for `()`.
    fn param_type(&mut self, binder: &Binder) -> Node {
        match binder.kind {
            BinderKind::Unit => self.node(Term::Unit),
            BinderKind::Name(_) | BinderKind::Wildcard => self.fresh(),
        }
    }

    fn value(&self, name: &str, span: &Span) -> Checked<Node> {
        match self.lookup(name) {
            Some(Entry::Value(node)) => Ok(node),
            Some(Entry::Cell(_)) => Err(Diagnostic::error(
                "E0112",
                format!("`{name}` is a reference, not a value"),
            )
            .with_label(self.file, span.clone(), "a reference used as a value")
            .with_hint(format!(
                "Read it with `!{name}`: Hobbit's references are names that only `!`, `:=` \
                 and hints use."
            ))),
            None => Err(not_defined(self.file, name, span)),
        }
    }

    /// The type of what reference `cell` holds.
    fn cell(&self, cell: &Ident) -> Checked<Node> {
        match self.lookup(&cell.name) {
            Some(Entry::Cell(node)) => Ok(node),
            Some(Entry::Value(_)) => Err(Diagnostic::error(
                "E0112",
                format!("`{}` is not a reference", cell.name),
            )
            .with_label(self.file, cell.span.clone(), "a value, not a reference")
            .with_hint("References are made with `ref l = e in …`.")),
            None => Err(not_defined(self.file, &cell.name, &cell.span)),
        }
    }

    fn pair(&mut self, pair: &Pair) -> Checked<Typed> {
        let left = self.expr(&pair.left)?;
        let right = self.expr(&pair.right)?;
        match &pair.annotation {
            Some(annotation) => {
                let written = self.annotation(annotation);
                let why = "The type after `|||_` is the type of both sides.";
                self.expect(left, written, &pair.left.span, why)?;
                self.expect(right, written, &pair.right.span, why)?;
            }
            None => self.expect(
                right,
                left,
                &pair.right.span,
                "The two sides of `|||` have one type: the left side's is expected.",
            )?,
        }
        let mut budget = MAX_RESOLVED;
        let mut defaulted = false;
        let Some(ty) = self.resolve(left, &mut budget, &mut defaulted) else {
            return Err(too_large(self.file, &pair.relation));
        };
        if defaulted {
            let shown = self.show(left, &mut Vec::new());
            return Err(Diagnostic::error("E0112", "The type of the two sides is not known")
                .with_label(
                    self.file,
                    pair.relation.clone(),
                    format!("both sides have type `{shown}`"),
                )
                .with_hint(
                    "Write it after the relation, e.g. `|||_int -> int`: Hobbit plays contexts \
                     of that type, so it must be known.",
                ));
        }
        let mut binders = HashMap::new();
        for (span, node, cell) in std::mem::take(&mut self.binders) {
            let Some(ty) = self.resolve(node, &mut budget, &mut defaulted) else {
                return Err(too_large(self.file, &span));
            };
            binders.insert(span, if cell { Ty::Ref(Box::new(ty)) } else { ty });
        }
        let mut results = HashMap::new();
        for (span, node) in std::mem::take(&mut self.results) {
            let Some(ty) = self.resolve(node, &mut budget, &mut defaulted) else {
                return Err(too_large(self.file, &span));
            };
            results.insert(span, ty);
        }
        Ok(Typed {
            ty,
            binders,
            results,
        })
    }

    fn annotation(&mut self, ty: &Type) -> Node {
        let term = match &ty.kind {
            TypeKind::Unit => Term::Unit,
            TypeKind::Bool => Term::Bool,
            TypeKind::Int => Term::Int,
            TypeKind::Arrow(a, b) => Term::Arrow(self.annotation(a), self.annotation(b)),
            TypeKind::List(t) => Term::List(self.annotation(t)),
            TypeKind::Tuple(ts) => Term::Tuple(ts.iter().map(|t| self.annotation(t)).collect()),
        };
        self.node(term)
    }

    fn expr(&mut self, e: &Expr) -> Checked<Node> {
        Ok(match &e.kind {
            ExprKind::Int(_) => self.node(Term::Int),
            ExprKind::Bool(_) => self.node(Term::Bool),
            ExprKind::Unit => self.node(Term::Unit),
            ExprKind::Nil => {
                let element = self.fresh();
                self.node(Term::List(element))
            }
            ExprKind::Var(name) => self.value(name, &e.span)?,
            ExprKind::Bot => self.fresh(),
            ExprKind::Sync(hint) => {
                if let Some(hint) = hint {
                    self.hint(hint)?;
                }
                let argument = self.fresh();
                let unit = self.node(Term::Unit);
                self.node(Term::Arrow(argument, unit))
            }
            ExprKind::Deref(cell) => self.cell(cell)?,
            ExprKind::Assign(cell, value) => {
                let holds = self.cell(cell)?;
                let found = self.expr(value)?;
                self.expect(
                    found,
                    holds,
                    &value.span,
                    "A reference holds values of one type.",
                )?;
                self.node(Term::Unit)
            }
            ExprKind::Unary(op, operand) => self.unary(*op, operand)?,
            ExprKind::Binary(op, left, right) => self.binary(*op, left, right)?,
            ExprKind::App(function, argument) => {
                let f = self.expr(function)?;
                let a = self.expr(argument)?;
                let param = self.fresh();
                let result = self.fresh();
                let arrow = self.node(Term::Arrow(param, result));
                self.expect(f, arrow, &function.span, "Only functions can be applied.")?;
                self.expect(
                    a,
                    param,
                    &argument.span,
                    "An argument has the type of the function's parameter.",
                )?;
                result
            }
            ExprKind::If(condition, then, otherwise) => {
                let c = self.expr(condition)?;
                let boolean = self.node(Term::Bool);
                self.expect(c, boolean, &condition.span, "A condition is a boolean.")?;
                let t = self.expr(then)?;
                match otherwise {
                    Some(otherwise) => {
                        let o = self.expr(otherwise)?;
                        self.expect(
                            o,
                            t,
                            &otherwise.span,
                            "The two branches of `if` have one type.",
                        )?;
                    }
                    None => {
                        let unit = self.node(Term::Unit);
                        self.expect(
                            t,
                            unit,
                            &then.span,
                            "An `if` without `else` has type `unit`, as its missing branch.",
                        )?;
                    }
                }
                t
            }
            ExprKind::Seq(items) => {
                let mut last = self.node(Term::Unit);
                for (i, item) in items.iter().enumerate() {
                    last = self.expr(item)?;
                    if i + 1 < items.len() {
                        let unit = self.node(Term::Unit);
                        self.expect(
                            last,
                            unit,
                            &item.span,
                            "What stands before `;` has type `unit` in Hobbit; \
                             use `let _ = e in …` to drop a value.",
                        )?;
                    }
                }
                last
            }
            ExprKind::Tuple(items) => {
                let parts = items
                    .iter()
                    .map(|item| self.expr(item))
                    .collect::<Checked<Vec<_>>>()?;
                self.node(Term::Tuple(parts))
            }
            ExprKind::Fun { name, function } => self.function(name.as_ref(), function)?,
            ExprKind::Let {
                binder,
                value,
                body,
            } => {
                let v = self.expr(value)?;
                self.bind(binder, v);
                let b = self.expr(body)?;
                self.unbind(binder);
                b
            }
            ExprKind::LetFun {
                recursive,
                name,
                function,
                body,
            } => {
                let f = self.function(recursive.then_some(name), function)?;
                self.bind(name, f);
                let b = self.expr(body)?;
                self.unbind(name);
                b
            }
            ExprKind::LetTuple {
                binders,
                value,
                body,
            } => {
                let v = self.expr(value)?;
                let parts: Vec<Node> = binders.iter().map(|b| self.param_type(b)).collect();
                let tuple = self.node(Term::Tuple(parts.clone()));
                self.expect(
                    v,
                    tuple,
                    &value.span,
                    "A tuple pattern takes a tuple of as many components.",
                )?;
                for (binder, part) in binders.iter().zip(parts) {
                    self.bind(binder, part);
                }
                let b = self.expr(body)?;
                for binder in binders.iter().rev() {
                    self.unbind(binder);
                }
                b
            }
            ExprKind::Ref { name, value, body } => {
                let v = self.expr(value)?;
                self.binders.push((name.span.clone(), v, true));
                self.enter(&name.name, Entry::Cell(v));
                let b = self.expr(body)?;
                self.leave(&name.name);
                b
            }
            ExprKind::Match {
                scrutinee,
                nil,
                head,
                tail,
                cons,
            } => {
                let s = self.expr(scrutinee)?;
                let element = self.fresh();
                let list = self.node(Term::List(element));
                self.expect(s, list, &scrutinee.span, "`match` takes a list.")?;
                let n = self.expr(nil)?;
                self.bind(head, element);
                self.bind(tail, list);
                let c = self.expr(cons)?;
                self.unbind(tail);
                self.unbind(head);
                self.expect(
                    c,
                    n,
                    &cons.span,
                    "The two branches of `match` have one type.",
                )?;
                n
            }
            ExprKind::Project {
                tuple,
                index,
                width,
            } => {
                let (parts, _) = self.projection(e, tuple, *index, *width)?;
                parts[*index]
            }
            ExprKind::Update {
                tuple,
                index,
                width,
                value,
            } => {
                let (parts, whole) = self.projection(e, tuple, *index, *width)?;
                let v = self.expr(value)?;
                self.expect(
                    v,
                    parts[*index],
                    &value.span,
                    "The new component has the type of the one it replaces.",
                )?;
                whole
            }
        })
    }

    /// Checks `tuple` in `e[index/width …]` against a tuple of `width` fresh components,
    /// and returns them and the tuple's type.
    fn projection(
        &mut self,
        e: &Expr,
        tuple: &Expr,
        index: usize,
        width: usize,
    ) -> Checked<(Vec<Node>, Node)> {
        if index >= width {
            return Err(Diagnostic::error(
                "E0112",
                format!("A {width}-tuple has no component {index}"),
            )
            .with_label(self.file, e.span.clone(), "component out of range")
            .with_hint("In `e[i/n]`, components count from 0, so `i` is less than `n`."));
        }
        if width > MAX_TUPLE_WIDTH {
            return Err(Diagnostic::error("E0112", "This tuple is too wide")
                .with_label(self.file, e.span.clone(), format!("a {width}-tuple"))
                .with_hint(format!("Tuples have at most {MAX_TUPLE_WIDTH} components.")));
        }
        let found = self.expr(tuple)?;
        let parts: Vec<Node> = (0..width).map(|_| self.fresh()).collect();
        let whole = self.node(Term::Tuple(parts.clone()));
        self.expect(
            found,
            whole,
            &tuple.span,
            "`e[i/n]` takes a tuple of `n` components.",
        )?;
        Ok((parts, whole))
    }

    fn unary(&mut self, op: UnaryOp, operand: &Expr) -> Checked<Node> {
        let found = self.expr(operand)?;
        Ok(match op {
            UnaryOp::Neg => {
                let int = self.node(Term::Int);
                self.expect(found, int, &operand.span, "`-` negates an integer.")?;
                int
            }
            UnaryOp::Not => {
                let boolean = self.node(Term::Bool);
                self.expect(found, boolean, &operand.span, "`not` negates a boolean.")?;
                boolean
            }
            UnaryOp::Fst | UnaryOp::Snd => {
                let first = self.fresh();
                let second = self.fresh();
                let pair = self.node(Term::Tuple(vec![first, second]));
                self.expect(
                    found,
                    pair,
                    &operand.span,
                    "`fst` and `snd` take pairs; `e[i/n]` is component `i` of an `n`-tuple.",
                )?;
                if op == UnaryOp::Fst {
                    first
                } else {
                    second
                }
            }
            UnaryOp::Print => self.node(Term::Unit),
        })
    }

    fn binary(&mut self, op: BinaryOp, left: &Expr, right: &Expr) -> Checked<Node> {
        let l = self.expr(left)?;
        let r = self.expr(right)?;
        Ok(match op {
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Mod => {
                let int = self.node(Term::Int);
                let why = "Arithmetic takes integers.";
                self.expect(l, int, &left.span, why)?;
                self.expect(r, int, &right.span, why)?;
                int
            }
            BinaryOp::And | BinaryOp::Or | BinaryOp::Implies => {
                let boolean = self.node(Term::Bool);
                let why = "`&&`, `||` and `==>` take booleans.";
                self.expect(l, boolean, &left.span, why)?;
                self.expect(r, boolean, &right.span, why)?;
                boolean
            }
            BinaryOp::Eq
            | BinaryOp::Ne
            | BinaryOp::Lt
            | BinaryOp::Gt
            | BinaryOp::Le
            | BinaryOp::Ge => {
                self.expect(
                    r,
                    l,
                    &right.span,
                    "A comparison's operands have one type: the left one's is expected.",
                )?;
                self.node(Term::Bool)
            }
            BinaryOp::Cons => {
                let list = self.node(Term::List(l));
                self.expect(
                    r,
                    list,
                    &right.span,
                    "`x :: xs` puts `x` in front of a list of values of its type.",
                )?;
                list
            }
        })
    }

    /// The type of a function, its own name bound in its body when given (`fun f x`,
    /// `let rec f x`). Its hint is checked first, in the scope around the function.
    fn function(&mut self, own: Option<&Binder>, function: &Function) -> Checked<Node> {
        if let Some(hint) = &function.hint {
            self.hint(hint)?;
        }
        let param = self.param_type(&function.param);
        let result = self.fresh();
        let arrow = self.node(Term::Arrow(param, result));
        self.results.push((function.span.clone(), result));
        if let Some(own) = own {
            self.bind(own, arrow);
        }
        self.bind(&function.param, param);
        let body = self.expr(&function.body)?;
        self.unbind(&function.param);
        if let Some(own) = own {
            self.unbind(own);
        }
        self.expect(
            body,
            result,
            &function.body.span,
            "A function's body has its result type.",
        )?;
        Ok(arrow)
    }

    fn hint(&mut self, hint: &Hint) -> Checked<()> {
        // References are looked up around the hint, before its variables are bound.
        let cells = hint
            .cells
            .iter()
            .map(|(cell, _)| self.cell(cell))
            .collect::<Checked<Vec<_>>>()?;
        for var in &hint.vars {
            let node = self.fresh();
            self.binders.push((var.span.clone(), node, false));
            self.enter(&var.name, Entry::Value(node));
        }
        for ((_, value), holds) in hint.cells.iter().zip(cells) {
            let found = self.expr(value)?;
            self.expect(
                found,
                holds,
                &value.span,
                "In `l as v`, `v` has the type of what `l` holds.",
            )?;
        }
        if let Some(prop) = &hint.prop {
            let found = self.expr(prop)?;
            let boolean = self.node(Term::Bool);
            self.expect(
                found,
                boolean,
                &prop.span,
                "A hint's proposition is a boolean.",
            )?;
        }
        for var in hint.vars.iter().rev() {
            self.leave(&var.name);
        }
        Ok(())
    }
}

fn not_defined(file: &str, name: &str, span: &Span) -> Diagnostic {
    Diagnostic::error("E0112", format!("`{name}` is not defined")).with_label(
        file,
        span.clone(),
        "no binding of this name is in scope",
    )
}

fn too_large(file: &str, span: &Span) -> Diagnostic {
    Diagnostic::error("E0112", "This type is too large to write out")
        .with_label(file, span.clone(), "its type is here")
        .with_hint(format!(
            "Resolved types hold at most {MAX_RESOLVED} constructors together, nested at \
             most {MAX_NESTING} deep."
        ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hobbit::parse;

    fn typed(source: &str) -> Typed {
        let outcome = parse("t", source).and_then(|pair| infer(&pair));
        match outcome {
            Ok(typed) => typed,
            Err(errors) => panic!("{source}: {errors:?}"),
        }
    }

    /// The type of both sides, written out.
    fn ty(source: &str) -> String {
        typed(source).ty.to_string()
    }

    /// The type of the binder at the first occurrence of the word `name` in `source`.
    fn binder(source: &str, name: &str) -> String {
        let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '\'';
        let start = source
            .match_indices(name)
            .map(|(at, _)| at)
            .find(|&at| {
                !source[..at].ends_with(word) && !source[at + name.len()..].starts_with(word)
            })
            .unwrap_or(usize::MAX);
        match typed(source).binders.get(&(start..start + name.len())) {
            Some(ty) => ty.to_string(),
            None => panic!("no binder `{name}` in {source}"),
        }
    }

    fn error(source: &str) -> (String, String, std::ops::Range<usize>) {
        let outcome = parse("t", source).and_then(|pair| infer(&pair));
        match outcome {
            Ok(typed) => panic!("{source} type-checks: {typed:?}"),
            Err(errors) => (
                errors[0].code.to_string(),
                errors[0].labels[0].message.clone(),
                errors[0].labels[0].span.clone(),
            ),
        }
    }

    #[test]
    fn types_are_written_as_in_ocaml() {
        let int = || Box::new(Ty::Int);
        let ty = Ty::Arrow(
            Box::new(Ty::Tuple(vec![Ty::Int, Ty::Arrow(int(), int())])),
            Box::new(Ty::List(Box::new(Ty::Arrow(int(), Box::new(Ty::Unit))))),
        );
        assert_eq!(ty.to_string(), "int * (int -> int) -> (int -> unit) list");
        let ty = Ty::Ref(Box::new(Ty::Tuple(vec![Ty::Bool, Ty::List(int())])));
        assert_eq!(ty.to_string(), "(bool * int list) ref");
    }

    #[test]
    fn both_sides_have_one_type() {
        assert_eq!(ty("fun x -> x + 1 ||| fun y -> y"), "int -> int");
        assert_eq!(binder("fun x -> x + 1 ||| fun y -> y", "y"), "int");
        assert_eq!(
            ty("fun x -> fun y -> x |||_int -> int -> int fun x -> fun y -> x"),
            "int -> int -> int"
        );
        assert_eq!(
            ty("fun f -> f 6; (ref l = 2 in f (!l)) ||| fun f -> f 6"),
            "(int -> unit) -> unit"
        );
        assert_eq!(ty("(1, true, ()) ||| _bot_"), "int * bool * unit");
    }

    #[test]
    fn binders_and_results_are_recorded() {
        let source = "ref c = 0 in fun () -> c := !c + 1; let (a, b) = (!c, true) in \
                      match [] with [] -> b | h :: t -> h ||| fun _ -> true";
        assert_eq!(binder(source, "c"), "int ref");
        assert_eq!(binder(source, "()"), "unit");
        assert_eq!(binder(source, "a"), "int");
        assert_eq!(binder(source, "h"), "bool");
        assert_eq!(binder(source, "t"), "bool list");
        assert_eq!(binder(source, "_"), "unit");
        assert_eq!(ty(source), "unit -> bool");
        let source = "let rec f n = if n = 0 then [] else n :: f (n - 1) in f ||| fun n -> []";
        let typed = typed(source);
        let function = source.find("f n").unwrap_or(0)..source.find(" in").unwrap_or(0);
        assert_eq!(
            typed.results.get(&function),
            Some(&Ty::List(Box::new(Ty::Int)))
        );
        assert_eq!(binder(source, "f"), "int -> int list");
    }

    #[test]
    fn unconstrained_variables_inside_default_to_int() {
        let source = "fun x -> let y = _bot_ in let z = [] in x |||_bool -> bool fun x -> x";
        assert_eq!(binder(source, "y"), "int");
        assert_eq!(binder(source, "z"), "int list");
        // A hint's variable that nothing constrains, too.
        let source = "ref c = true in fun x {w, v | c as w | w} -> x |||_int -> int fun x -> x";
        assert_eq!(binder(source, "w"), "bool");
        assert_eq!(binder(source, "v"), "int");
    }

    #[test]
    fn hobbits_generous_typing_is_kept() {
        // Comparisons take any one type, `_sync_` and `_print_` any argument.
        assert_eq!(
            ty("fun f -> f = f |||_(int -> int) -> bool fun f -> f < f"),
            "(int -> int) -> bool"
        );
        assert_eq!(
            ty("fun b -> _sync_ b |||_bool -> unit fun b -> _print_ (b, 1)"),
            "bool -> unit"
        );
        assert_eq!(
            ty("fun t -> t[1/3] |||_int * bool * int -> bool fun t -> (t[0/3 := 1])[1/3]"),
            "int * bool * int -> bool"
        );
    }

    #[test]
    fn let_is_monomorphic() {
        assert_eq!(
            error("let id = fun x -> x in (id 1, id true) ||| (1, true)"),
            (
                "E0112".to_string(),
                "expected `int`, found `bool`".to_string(),
                33..37
            )
        );
    }

    #[test]
    fn type_errors_are_located() {
        let code = |source: &str| {
            let (code, _, span) = error(source);
            (code, span)
        };
        let e = |span: std::ops::Range<usize>| ("E0112".to_string(), span);
        assert_eq!(code("fst (1,2,3) ||| snd (5,2,3)"), e(4..11));
        assert_eq!(code("1; 2 ||| 2"), e(0..1));
        assert_eq!(code("x ||| 1"), e(0..1));
        assert_eq!(code("ref l = 1 in l ||| 1"), e(13..14));
        assert_eq!(code("fun x -> !x ||| fun x -> x"), e(10..11));
        assert_eq!(code("fun x -> x := 1 ||| fun x -> ()"), e(9..10));
        assert_eq!(code("1 ||| true"), e(6..10));
        assert_eq!(code("1 |||_bool 1"), e(0..1));
        assert_eq!(code("fun x -> x[2/2] ||| fun x -> 1"), e(9..15));
        assert_eq!(code("fun x -> x[0/100000] ||| fun x -> 1"), e(9..20));
        assert_eq!(code("fun x -> if x then 1 ||| fun x -> ()"), e(19..20));
        assert_eq!(code("if 1 then () else () ||| ()"), e(3..4));
        assert_eq!(code("match 1 with [] -> 0 | h :: t -> h ||| 0"), e(6..7));
        assert_eq!(code("1 + (2 :: []) ||| 1"), e(4..13));
        assert_eq!(code("(fun x -> x) 1 2 ||| 1"), e(0..14));
        assert_eq!(code("match [] with [] -> 0 | h :: t -> t ||| 0"), e(34..35));
        // The tail and head are bound in the second branch only.
        assert_eq!(code("match [] with [] -> h | h :: t -> 0 ||| 0"), e(20..21));
        // A hint sees neither the function's name nor its parameter.
        assert_eq!(
            code("fun f x {w | c as x | true} -> x |||_int -> int fun x -> x"),
            e(13..14)
        );
        assert_eq!(
            code("ref c = 0 in fun x {w | c as true | w} -> x |||_int -> int fun x -> x"),
            e(29..33)
        );
        assert_eq!(
            code("ref c = 0 in fun x {w | c as w | w + 1} -> x |||_int -> int fun x -> x"),
            e(33..38)
        );
    }

    #[test]
    fn the_type_of_the_sides_must_be_known() {
        assert_eq!(
            error("fun x -> fun y -> x ||| fun x -> fun y -> x"),
            (
                "E0112".to_string(),
                "both sides have type `'a -> 'b -> 'a`".to_string(),
                20..23
            )
        );
        assert_eq!(ty("fun x -> x |||_unit -> unit fun x -> x"), "unit -> unit");
    }

    #[test]
    fn infinite_types_are_refused() {
        let (code, message, span) = error("fun f -> f f ||| fun f -> f");
        assert_eq!((code.as_str(), span), ("E0112", 11..12));
        assert_eq!(message, "`'a -> 'b` cannot also be `'a`");
        let (_, message, span) = error("fun x -> x = (x :: []) ||| fun x -> true");
        assert_eq!(
            (message.as_str(), span),
            ("`'a list` cannot also be `'a`", 13..22)
        );
    }

    #[test]
    fn a_failed_unification_changes_nothing() {
        // `'a * int` against `bool * bool` would first solve `'a`; the message shows the
        // types before the attempt.
        assert_eq!(
            error("fun p -> let n = snd p + 1 in p = (true, true) ||| fun p -> true"),
            (
                "E0112".to_string(),
                "expected `'a * int`, found `bool * bool`".to_string(),
                34..46
            )
        );
    }

    #[test]
    fn shared_types_stay_small_to_unify_and_large_ones_are_refused() {
        // Each `let` doubles the size of the type written out, not of its representation:
        // unifying two such types takes one step per `let`.
        let mut source = "fun x -> let p0 = (x, x) in let q0 = (x, x) in ".to_string();
        for i in 1..40 {
            source.push_str(&format!(
                "let p{i} = (p{0}, p{0}) in let q{i} = (q{0}, q{0}) in ",
                i - 1
            ));
        }
        source.push_str("let same = p39 = q39 in x |||_int -> int fun x -> x");
        let (code, message, span) = error(&source);
        assert_eq!(
            (code.as_str(), message.as_str()),
            ("E0112", "its type is here")
        );
        assert!(source[span].starts_with('p'));
    }
}
