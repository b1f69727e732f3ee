//! The abstract syntax of HOLi libraries and clients.
//!
//! Every node carries the byte span of the source it came from, so that any later stage
//! (checker, engine, interpreter, linker) can point a diagnostic at the exact text.
//! Parentheses are not nodes: the printer reinserts the fewest that keep the tree.
//! Structural equality that ignores spans is [`Program::same_tree`] (used by the
//! round-trip property `parse(print(ast)) == ast`).

pub use crate::diagnostics::Span;
use num_bigint::BigInt;
use serde::{Deserialize, Serialize};
use std::fmt;

/// HOLi types: `unit`, `int`, references, lists, products and arrows.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Type {
    Unit,
    Int,
    /// The integers 0 and 1: an `int` wherever the library uses it, but the client
    /// plays only 0 (`false`) or 1 (`true`) where a `bool` is expected.
    Bool,
    /// `ref t`: a heap cell holding a `t`.
    Ref(Box<Type>),
    /// `t list`: finite lists of `t` values.
    List(Box<Type>),
    Pair(Box<Type>, Box<Type>),
    Arrow(Box<Type>, Box<Type>),
}

impl Type {
    pub fn list(element: Type) -> Type {
        Type::List(Box::new(element))
    }

    pub fn pair(a: Type, b: Type) -> Type {
        Type::Pair(Box::new(a), Box::new(b))
    }

    pub fn arrow(a: Type, b: Type) -> Type {
        Type::Arrow(Box::new(a), Box::new(b))
    }

    pub fn reference(content: Type) -> Type {
        Type::Ref(Box::new(content))
    }

    /// Whether a value of type `self` may stand where `other` is expected: the same
    /// type, where `bool` and `int` are one (a `bool` is the integer 0 or 1).
    pub fn compatible(&self, other: &Type) -> bool {
        match (self, other) {
            (Type::Int | Type::Bool, Type::Int | Type::Bool) => true,
            (Type::Ref(a), Type::Ref(b)) | (Type::List(a), Type::List(b)) => a.compatible(b),
            (Type::Pair(a, b), Type::Pair(c, d)) | (Type::Arrow(a, b), Type::Arrow(c, d)) => {
                a.compatible(c) && b.compatible(d)
            }
            _ => self == other,
        }
    }

    /// Whether `ref` occurs anywhere in this type.
    pub fn mentions_ref(&self) -> bool {
        match self {
            Type::Unit | Type::Int | Type::Bool => false,
            Type::Ref(_) => true,
            Type::List(a) => a.mentions_ref(),
            Type::Pair(a, b) | Type::Arrow(a, b) => a.mentions_ref() || b.mentions_ref(),
        }
    }
}

impl fmt::Display for Type {
    /// Prints with the fewest parentheses: the postfix `list` binds tighter than the
    /// prefix `ref` (`ref int list` is a reference to a list), `ref` tighter than `*`
    /// and `->`, `*` is
    /// left-associative, `->` right-associative, and a product or arrow inside the other is
    /// always parenthesised (HOLiK gives the two no relative priority).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Unit => write!(f, "unit"),
            Type::Int => write!(f, "int"),
            Type::Bool => write!(f, "bool"),
            Type::Ref(a) => match **a {
                Type::Arrow(..) | Type::Pair(..) => write!(f, "ref ({a})"),
                _ => write!(f, "ref {a}"),
            },
            Type::List(a) => match **a {
                Type::Arrow(..) | Type::Pair(..) | Type::Ref(_) => write!(f, "({a}) list"),
                _ => write!(f, "{a} list"),
            },
            Type::Pair(a, b) => {
                match **a {
                    Type::Arrow(..) => write!(f, "({a})")?,
                    _ => write!(f, "{a}")?,
                }
                write!(f, " * ")?;
                match **b {
                    Type::Arrow(..) | Type::Pair(..) => write!(f, "({b})"),
                    _ => write!(f, "{b}"),
                }
            }
            Type::Arrow(a, b) => {
                match **a {
                    Type::Arrow(..) | Type::Pair(..) => write!(f, "({a})")?,
                    _ => write!(f, "{a}")?,
                }
                write!(f, " -> ")?;
                match **b {
                    Type::Pair(..) => write!(f, "({b})"),
                    _ => write!(f, "{b}"),
                }
            }
        }
    }
}

/// An identifier occurrence: its text and where it stands.
#[derive(Clone, Debug)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// A whole source file: a library, or a client when `main` is present.
#[derive(Clone, Debug)]
pub struct Program {
    /// The `# set-bounds K L #` header, if any.
    pub bounds: Option<Bounds>,
    pub imports: Vec<Import>,
    /// Declarations in source order (order carries no meaning: names resolve over the file).
    pub decls: Vec<Decl>,
    /// The client form's `main = { M };`, absent in a library.
    pub main: Option<Main>,
}

#[derive(Clone, Debug)]
pub struct Bounds {
    pub k: u32,
    pub l: u32,
    pub span: Span,
}

/// `import m :(type)`: a method the other side (the client) provides.
#[derive(Clone, Debug)]
pub struct Import {
    pub name: Ident,
    pub ty: Type,
    pub ty_span: Span,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Visibility {
    Public,
    Private,
}

#[derive(Clone, Debug)]
pub enum Decl {
    Method(MethodDecl),
    /// `int r := 42;`
    IntRef {
        name: Ident,
        init: BigInt,
        span: Span,
    },
    /// `fun r := m;`: a reference holding a method name.
    FunRef {
        name: Ident,
        target: Ident,
        span: Span,
    },
    /// `ref int r := ref 0;`: a global holding a location. `ty` is the global's content
    /// type (`ref int`), as `int` is for `int r := 0;`.
    RefDecl {
        name: Ident,
        ty: Type,
        init: Static,
        /// The initial value's text.
        init_span: Span,
        span: Span,
    },
}

impl Decl {
    pub fn name(&self) -> &Ident {
        match self {
            Decl::Method(m) => &m.name,
            Decl::IntRef { name, .. } | Decl::FunRef { name, .. } | Decl::RefDecl { name, .. } => {
                name
            }
        }
    }

    pub fn span(&self) -> &Span {
        match self {
            Decl::Method(m) => &m.span,
            Decl::IntRef { span, .. } | Decl::FunRef { span, .. } | Decl::RefDecl { span, .. } => {
                span
            }
        }
    }
}

/// The initial value of a `ref` declaration: a value known before anything runs.
#[derive(Clone, Debug)]
pub enum Static {
    /// `ref s`: a fresh location holding `s`.
    Ref(Box<Static>),
    Int(BigInt),
    Unit,
    /// `[]`
    Nil,
    /// A method of the declaring side.
    Name(Ident),
    Pair(Box<Static>, Box<Static>),
}

impl Static {
    pub fn same_tree(&self, other: &Static) -> bool {
        match (self, other) {
            (Static::Ref(a), Static::Ref(b)) => a.same_tree(b),
            (Static::Int(a), Static::Int(b)) => a == b,
            (Static::Unit, Static::Unit) | (Static::Nil, Static::Nil) => true,
            (Static::Name(a), Static::Name(b)) => a.name == b.name,
            (Static::Pair(a, b), Static::Pair(c, d)) => a.same_tree(c) && b.same_tree(d),
            _ => false,
        }
    }

    /// The expression that denotes this value (to print it, for instance).
    pub fn to_expr(&self, span: Span) -> Expr {
        let boxed = |s: &Static| Box::new(s.to_expr(span.clone()));
        let kind = match self {
            Static::Ref(s) => ExprKind::Alloc(boxed(s)),
            Static::Int(n) => ExprKind::Int(n.clone()),
            Static::Unit => ExprKind::Unit,
            Static::Nil => ExprKind::Nil,
            Static::Name(x) => ExprKind::Var(x.name.clone()),
            Static::Pair(a, b) => ExprKind::Pair(boxed(a), boxed(b)),
        };
        Expr::new(kind, span)
    }
}

/// `public m (x:t) :(t') = { body };`
#[derive(Clone, Debug)]
pub struct MethodDecl {
    pub visibility: Visibility,
    pub name: Ident,
    pub func: Function,
    pub span: Span,
}

/// The shared shape of methods, `letrec` functions and lambdas: one typed parameter,
/// a declared result type and a body.
#[derive(Clone, Debug)]
pub struct Function {
    pub param: Ident,
    pub param_ty: Type,
    pub ret_ty: Type,
    pub body: Box<Expr>,
}

impl Function {
    pub fn ty(&self) -> Type {
        Type::arrow(self.param_ty.clone(), self.ret_ty.clone())
    }
}

/// The client form's `main = { M };`.
#[derive(Clone, Debug)]
pub struct Main {
    pub body: Expr,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Mul,
    Div,
    /// `mod`: the remainder of `/` (truncating toward zero), so `a == (a / b) * b + a mod b`.
    Mod,
    Add,
    Sub,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    /// `&&`: both operands are always evaluated; the result is 1 or 0.
    And,
    /// `||`: both operands are always evaluated; the result is 1 or 0.
    Or,
}

impl BinOp {
    /// Every operator, for tests and generators that must cover them all.
    pub const ALL: [BinOp; 12] = [
        BinOp::Mul,
        BinOp::Div,
        BinOp::Mod,
        BinOp::Add,
        BinOp::Sub,
        BinOp::Lt,
        BinOp::Gt,
        BinOp::Le,
        BinOp::Ge,
        BinOp::Eq,
        BinOp::And,
        BinOp::Or,
    ];

    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Mod => "mod",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Lt => "<",
            BinOp::Gt => ">",
            BinOp::Le => "<=",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::And => "&&",
            BinOp::Or => "||",
        }
    }
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    /// A variable, method or import name; resolved by the checker and the build.
    Var(String),
    Int(BigInt),
    Unit,
    /// `_bot_`: an evaluation that never ends (Hobbit's divergence).
    Diverge,
    /// `!r` with a name (`!(r)` too): a global reference, or a local holding a location
    /// (resolved by [`crate::types::resolve`]).
    Deref(Ident),
    /// `r := e` with a name (`(r) := e` too), resolved like [`ExprKind::Deref`].
    Assign(Ident, Box<Expr>),
    /// `ref e`: a fresh location holding the value of `e`.
    Alloc(Box<Expr>),
    /// `!e` where `e` is not a name: read through the location `e` gives.
    Load(Box<Expr>),
    /// `e1 := e2` where `e1` is not a name: write through the location `e1` gives
    /// (`e1` is evaluated first).
    Store(Box<Expr>, Box<Expr>),
    /// `e1 e2`
    App(Box<Expr>, Box<Expr>),
    /// `(e1, e2)`
    Pair(Box<Expr>, Box<Expr>),
    /// `[]`: the empty list.
    Nil,
    /// `e1 :: e2`: the list `e2` with `e1` in front (`e1` is evaluated first).
    Cons(Box<Expr>, Box<Expr>),
    /// `List.hd e`, `List.tl e` or `List.isnil e`.
    ListOp(ListOp, Box<Expr>),
    /// `match e with [] -> nil | head :: tail -> cons`
    Match {
        scrutinee: Box<Expr>,
        nil: Box<Expr>,
        head: Ident,
        tail: Ident,
        cons: Box<Expr>,
    },
    Fst(Box<Expr>),
    Snd(Box<Expr>),
    Not(Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `e1; e2`
    Seq(Box<Expr>, Box<Expr>),
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `let x = e1 in e2`
    Let(Ident, Box<Expr>, Box<Expr>),
    /// `letrec f (x:t) :(t') = e1 in e2`
    LetRec(Ident, Function, Box<Expr>),
    /// `fun (x:t) :(t') -> e`
    Lambda(Function),
    Assert(Box<Expr>),
}

/// The operations on lists besides `match`. The head or tail of `[]` fails like
/// `assert(false)` at the operation (an exception nothing catches, in OCaml), and the
/// path ends there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ListOp {
    Hd,
    Tl,
    IsNil,
}

impl ListOp {
    pub fn keyword(self) -> &'static str {
        match self {
            ListOp::Hd => "List.hd",
            ListOp::Tl => "List.tl",
            ListOp::IsNil => "List.isnil",
        }
    }
}

impl Expr {
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        Expr { kind, span }
    }

    /// The direct subexpressions, in source order, the bodies of functions included.
    pub fn children(&self) -> Vec<&Expr> {
        match &self.kind {
            ExprKind::Var(_)
            | ExprKind::Int(_)
            | ExprKind::Unit
            | ExprKind::Diverge
            | ExprKind::Nil
            | ExprKind::Deref(_) => vec![],
            ExprKind::Assign(_, a)
            | ExprKind::Fst(a)
            | ExprKind::Snd(a)
            | ExprKind::Not(a)
            | ExprKind::Assert(a)
            | ExprKind::Alloc(a)
            | ExprKind::ListOp(_, a)
            | ExprKind::Load(a) => vec![a],
            ExprKind::App(a, b)
            | ExprKind::Pair(a, b)
            | ExprKind::Cons(a, b)
            | ExprKind::Binary(_, a, b)
            | ExprKind::Seq(a, b)
            | ExprKind::Let(_, a, b)
            | ExprKind::Store(a, b) => vec![a, b],
            ExprKind::If(a, b, c)
            | ExprKind::Match {
                scrutinee: a,
                nil: b,
                cons: c,
                ..
            } => vec![a, b, c],
            ExprKind::LetRec(_, f, b) => vec![&f.body, b],
            ExprKind::Lambda(f) => vec![&f.body],
        }
    }

    /// Whether this can never evaluate to a location, whatever its operands: then it
    /// cannot be assigned through (E0202).
    pub fn never_a_reference(&self) -> bool {
        matches!(
            self.kind,
            ExprKind::Int(_)
                | ExprKind::Unit
                | ExprKind::Binary(..)
                | ExprKind::Not(_)
                | ExprKind::Pair(..)
                | ExprKind::Nil
                | ExprKind::Cons(..)
                | ExprKind::If(..)
                | ExprKind::Let(..)
                | ExprKind::LetRec(..)
                | ExprKind::Lambda(_)
                | ExprKind::Assert(_)
        )
    }
}

// ---- Structural equality ignoring spans -------------------------------------------------

impl Program {
    /// True when both programs have the same tree, whatever their spans.
    pub fn same_tree(&self, other: &Program) -> bool {
        let bounds_eq = match (&self.bounds, &other.bounds) {
            (None, None) => true,
            (Some(a), Some(b)) => a.k == b.k && a.l == b.l,
            _ => false,
        };
        bounds_eq
            && self.imports.len() == other.imports.len()
            && self
                .imports
                .iter()
                .zip(&other.imports)
                .all(|(a, b)| a.name.name == b.name.name && a.ty == b.ty)
            && self.decls.len() == other.decls.len()
            && self
                .decls
                .iter()
                .zip(&other.decls)
                .all(|(a, b)| a.same_tree(b))
            && match (&self.main, &other.main) {
                (None, None) => true,
                (Some(a), Some(b)) => a.body.same_tree(&b.body),
                _ => false,
            }
    }
}

impl Decl {
    pub fn same_tree(&self, other: &Decl) -> bool {
        match (self, other) {
            (Decl::Method(a), Decl::Method(b)) => {
                a.visibility == b.visibility
                    && a.name.name == b.name.name
                    && a.func.same_tree(&b.func)
            }
            (
                Decl::IntRef {
                    name: a, init: i, ..
                },
                Decl::IntRef {
                    name: b, init: j, ..
                },
            ) => a.name == b.name && i == j,
            (
                Decl::FunRef {
                    name: a, target: t, ..
                },
                Decl::FunRef {
                    name: b, target: u, ..
                },
            ) => a.name == b.name && t.name == u.name,
            (
                Decl::RefDecl {
                    name: a,
                    ty: s,
                    init: i,
                    ..
                },
                Decl::RefDecl {
                    name: b,
                    ty: t,
                    init: j,
                    ..
                },
            ) => a.name == b.name && s == t && i.same_tree(j),
            _ => false,
        }
    }
}

impl Function {
    pub fn same_tree(&self, other: &Function) -> bool {
        self.param.name == other.param.name
            && self.param_ty == other.param_ty
            && self.ret_ty == other.ret_ty
            && self.body.same_tree(&other.body)
    }
}

impl Expr {
    pub fn same_tree(&self, other: &Expr) -> bool {
        use ExprKind::*;
        match (&self.kind, &other.kind) {
            (Var(a), Var(b)) => a == b,
            (Int(a), Int(b)) => a == b,
            (Unit, Unit) | (Nil, Nil) | (Diverge, Diverge) => true,
            (Deref(a), Deref(b)) => a.name == b.name,
            (Assign(a, e), Assign(b, f)) => a.name == b.name && e.same_tree(f),
            (App(a, b), App(c, d))
            | (Pair(a, b), Pair(c, d))
            | (Cons(a, b), Cons(c, d))
            | (Seq(a, b), Seq(c, d))
            | (Store(a, b), Store(c, d)) => a.same_tree(c) && b.same_tree(d),
            (Fst(a), Fst(b))
            | (Snd(a), Snd(b))
            | (Not(a), Not(b))
            | (Assert(a), Assert(b))
            | (Alloc(a), Alloc(b))
            | (Load(a), Load(b)) => a.same_tree(b),
            (ListOp(o, a), ListOp(p, b)) => o == p && a.same_tree(b),

            (Binary(o, a, b), Binary(p, c, d)) => o == p && a.same_tree(c) && b.same_tree(d),
            (If(a, b, c), If(d, e, f)) => a.same_tree(d) && b.same_tree(e) && c.same_tree(f),
            (Let(x, a, b), Let(y, c, d)) => x.name == y.name && a.same_tree(c) && b.same_tree(d),
            (LetRec(x, f, a), LetRec(y, g, b)) => {
                x.name == y.name && f.same_tree(g) && a.same_tree(b)
            }
            (Lambda(f), Lambda(g)) => f.same_tree(g),
            (
                Match {
                    scrutinee: a,
                    nil: b,
                    head: x,
                    tail: xs,
                    cons: c,
                },
                Match {
                    scrutinee: d,
                    nil: e,
                    head: y,
                    tail: ys,
                    cons: f,
                },
            ) => {
                x.name == y.name
                    && xs.name == ys.name
                    && a.same_tree(d)
                    && b.same_tree(e)
                    && c.same_tree(f)
            }
            _ => false,
        }
    }
}
