//! The syntax tree of a Hobbit file: two expressions, the relation between them, and the
//! type written after it.
//!
//! Every expression, binder, name and type annotation carries the byte span it was read
//! from. Parentheses and `begin … end` are not nodes: the expression inside takes the span
//! of the brackets around it. Tuples and sequences are n-ary, as Hobbit reads them.

use crate::diagnostics::Span;
use num_bigint::BigInt;

/// A whole `.bils` file: `left ||| right`, or `left |||_τ right`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pair {
    /// The name the file was parsed under, which diagnostics about it point into.
    pub file: String,
    pub left: Expr,
    /// Where `|||` stands.
    pub relation: Span,
    /// `τ` in `|||_τ`: the type of both sides.
    pub annotation: Option<Type>,
    pub right: Expr,
}

/// A name where it is used: a reference after `!`, before `:=` or `as`, or a variable a
/// hint introduces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// Where a name is bound: a parameter, a function's own name, a `let`, a tuple pattern's
/// element or a `match` branch's head and tail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binder {
    pub kind: BinderKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BinderKind {
    Name(String),
    /// `_`: binds nothing.
    Wildcard,
    /// `()`, a parameter (or tuple element) of type `unit` that binds nothing.
    Unit,
}

impl Binder {
    /// The name bound, if any.
    pub fn name(&self) -> Option<&str> {
        match &self.kind {
            BinderKind::Name(name) => Some(name),
            BinderKind::Wildcard | BinderKind::Unit => None,
        }
    }
}

/// A type written after `|||_`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Type {
    pub kind: TypeKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeKind {
    Unit,
    Bool,
    Int,
    /// `t -> t`, right-associative.
    Arrow(Box<Type>, Box<Type>),
    /// `t list`.
    List(Box<Type>),
    /// `t * t * …`, at least two components.
    Tuple(Vec<Type>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    /// `-e`
    Neg,
    Not,
    Fst,
    Snd,
    /// `_print_ e`
    Print,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    And,
    Or,
    /// `==>` or `=>`
    Implies,
    /// `=` or `==`
    Eq,
    /// `<>`
    Ne,
    Lt,
    Gt,
    Le,
    Ge,
    /// `::`
    Cons,
}

/// A function's parameter, hint and body. `span` covers the whole definition (from `fun`,
/// or from the name after `let`/`let rec`, to the end of the body): the key under which
/// inference records the function's result type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    pub param: Binder,
    pub hint: Option<Hint>,
    pub body: Expr,
    pub span: Span,
}

/// An invariant hint `{ w1, w2 | l as v; l2 as v2 | P }` or `{ w1, w2 }` after a
/// function's parameter or `_sync_`: a proof hint for Hobbit's generalisation, which never
/// changes what a program means.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hint {
    /// The braces and everything between them.
    pub span: Span,
    /// `w1, w2`: variables bound in the values and the proposition.
    pub vars: Vec<Ident>,
    /// `l as v`: reference `l` holds a value of the shape `v` (a variable, a constant or a
    /// tuple of those).
    pub cells: Vec<(Ident, Expr)>,
    /// `P`, over variables, constants and `!l`; `None` in the short form `{ w1, w2 }`,
    /// which Hobbit reads as `true`.
    pub prop: Option<Box<Expr>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExprKind {
    Int(BigInt),
    Bool(bool),
    /// `()`
    Unit,
    /// `[]`
    Nil,
    Var(String),
    /// `_bot_`: divergence.
    Bot,
    /// `_sync_`, an abstract function the context provides, with its optional hint.
    Sync(Option<Hint>),
    /// `!l`
    Deref(Ident),
    /// `l := e`
    Assign(Ident, Box<Expr>),
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    App(Box<Expr>, Box<Expr>),
    /// `if c then e1 else e2`, or `if c then e1` (whose else is `()`).
    If(Box<Expr>, Box<Expr>, Option<Box<Expr>>),
    /// `e1; e2; …`, at least two expressions.
    Seq(Vec<Expr>),
    /// `e1, e2, …`, at least two components.
    Tuple(Vec<Expr>),
    /// `fun x -> e`, or `fun f x -> e` (named, and recursive through `f`).
    Fun {
        name: Option<Binder>,
        function: Box<Function>,
    },
    /// `let x = e in body`
    Let {
        binder: Binder,
        value: Box<Expr>,
        body: Box<Expr>,
    },
    /// `let f x = e in body`, or `let rec f x = e in body` (where `f` is bound in `e`).
    LetFun {
        recursive: bool,
        name: Binder,
        function: Box<Function>,
        body: Box<Expr>,
    },
    /// `let (a, b, …) = e in body`
    LetTuple {
        binders: Vec<Binder>,
        value: Box<Expr>,
        body: Box<Expr>,
    },
    /// `ref l = e in body`: a fresh reference named `l`, holding `e`.
    Ref {
        name: Ident,
        value: Box<Expr>,
        body: Box<Expr>,
    },
    /// `match e with [] -> nil | head :: tail -> cons`
    Match {
        scrutinee: Box<Expr>,
        nil: Box<Expr>,
        head: Binder,
        tail: Binder,
        cons: Box<Expr>,
    },
    /// `e[index/width]`: component `index` (from 0) of a `width`-tuple.
    Project {
        tuple: Box<Expr>,
        index: usize,
        width: usize,
    },
    /// `e[index/width := value]`: the tuple with component `index` replaced.
    Update {
        tuple: Box<Expr>,
        index: usize,
        width: usize,
        value: Box<Expr>,
    },
}

impl Expr {
    /// The expressions directly inside this one, hints' values and propositions included,
    /// in source order.
    pub fn children(&self) -> Vec<&Expr> {
        fn hint_parts(hint: &Hint) -> impl Iterator<Item = &Expr> {
            hint.cells
                .iter()
                .map(|(_, value)| value)
                .chain(hint.prop.as_deref())
        }
        match &self.kind {
            ExprKind::Int(_)
            | ExprKind::Bool(_)
            | ExprKind::Unit
            | ExprKind::Nil
            | ExprKind::Var(_)
            | ExprKind::Bot
            | ExprKind::Deref(_) => Vec::new(),
            ExprKind::Sync(hint) => hint.iter().flat_map(hint_parts).collect(),
            ExprKind::Assign(_, e) | ExprKind::Unary(_, e) => vec![e],
            ExprKind::Binary(_, a, b) | ExprKind::App(a, b) => vec![a, b],
            ExprKind::If(c, t, e) => [&**c, t].into_iter().chain(e.as_deref()).collect(),
            ExprKind::Seq(es) | ExprKind::Tuple(es) => es.iter().collect(),
            ExprKind::Fun { function, .. } => function
                .hint
                .iter()
                .flat_map(hint_parts)
                .chain([&function.body])
                .collect(),
            ExprKind::LetFun { function, body, .. } => function
                .hint
                .iter()
                .flat_map(hint_parts)
                .chain([&function.body, &**body])
                .collect(),
            ExprKind::Let { value, body, .. }
            | ExprKind::LetTuple { value, body, .. }
            | ExprKind::Ref { value, body, .. } => vec![value, body],
            ExprKind::Match {
                scrutinee,
                nil,
                cons,
                ..
            } => vec![scrutinee, nil, cons],
            ExprKind::Project { tuple, .. } => vec![tuple],
            ExprKind::Update { tuple, value, .. } => vec![tuple, value],
        }
    }
}

impl Type {
    /// The types directly inside this one.
    pub fn children(&self) -> Vec<&Type> {
        match &self.kind {
            TypeKind::Unit | TypeKind::Bool | TypeKind::Int => Vec::new(),
            TypeKind::Arrow(a, b) => vec![a, b],
            TypeKind::List(t) => vec![t],
            TypeKind::Tuple(ts) => ts.iter().collect(),
        }
    }
}
