//! The compiled form of library code: names resolved once, before the search.
//!
//! Variables become de Bruijn indices into a persistent environment, method and import
//! names become ids, references become slots of the store. The evaluator then never
//! looks a name up by string and never substitutes into terms: a closure (code plus
//! captured environment) is exactly the paper's substituted term `M{v/x}`.

use crate::syntax::ast::{self, BinOp, Span};
use crate::trace::{FailureKind, Site};
use num_bigint::{BigInt, Sign};
use std::collections::HashMap;
use std::fmt;

pub type TypeId = u32;

/// A HOLi type, interned: every sub-type of a declared type has an id, so that the
/// client's values can be generated component by component without allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TypeNode {
    Unit,
    Int,
    /// An integer the client plays as 0 or 1 ([`crate::syntax::ast::Type::Bool`]).
    Bool,
    Ref(TypeId),
    List(TypeId),
    Pair(TypeId, TypeId),
    Arrow(TypeId, TypeId),
}

#[derive(Default, Debug, PartialEq, Eq)]
pub struct Types {
    nodes: Vec<TypeNode>,
    index: HashMap<TypeNode, TypeId>,
}

impl Types {
    /// The id of `node`, added if new: ids are given in the order nodes are first
    /// interned, so two tables filled in the same order are equal.
    pub fn intern_node(&mut self, node: TypeNode) -> TypeId {
        if let Some(&id) = self.index.get(&node) {
            return id;
        }
        let id = self.nodes.len() as TypeId;
        self.nodes.push(node);
        self.index.insert(node, id);
        id
    }

    pub fn node(&self, id: TypeId) -> TypeNode {
        self.nodes[id as usize]
    }

    /// The parameter and result types, when `id` is a function type.
    pub fn arrow(&self, id: TypeId) -> Option<(TypeId, TypeId)> {
        match self.node(id) {
            TypeNode::Arrow(a, b) => Some((a, b)),
            _ => None,
        }
    }

    /// Whether a value of this type can hold a location the client chooses (a `ref`
    /// outside any function type: a function's parameter is not a value it supplies).
    pub fn holds_ref(&self, id: TypeId) -> bool {
        match self.node(id) {
            TypeNode::Ref(_) => true,
            TypeNode::List(a) => self.holds_ref(a),
            TypeNode::Pair(a, b) => self.holds_ref(a) || self.holds_ref(b),
            TypeNode::Unit | TypeNode::Int | TypeNode::Bool | TypeNode::Arrow(..) => false,
        }
    }

    /// Whether any interned type is a list type.
    pub fn any_list(&self) -> bool {
        self.nodes.iter().any(|n| matches!(n, TypeNode::List(_)))
    }

    /// Whether a value of this type can hold a list the client plays (a list outside
    /// any function type): the client then has one value per length to choose from.
    pub fn holds_list(&self, id: TypeId) -> bool {
        match self.node(id) {
            TypeNode::List(_) => true,
            TypeNode::Pair(a, b) => self.holds_list(a) || self.holds_list(b),
            TypeNode::Unit | TypeNode::Int | TypeNode::Bool | TypeNode::Ref(_) => false,
            TypeNode::Arrow(..) => false,
        }
    }

    /// Whether the type mentions `ref` anywhere, under arrows too.
    pub fn mentions_ref(&self, id: TypeId) -> bool {
        match self.node(id) {
            TypeNode::Unit | TypeNode::Int | TypeNode::Bool => false,
            TypeNode::Ref(_) => true,
            TypeNode::List(a) => self.mentions_ref(a),
            TypeNode::Pair(a, b) | TypeNode::Arrow(a, b) => {
                self.mentions_ref(a) || self.mentions_ref(b)
            }
        }
    }

    /// Whether values of this type hold no function and no location.
    pub fn first_order(&self, id: TypeId) -> bool {
        match self.node(id) {
            TypeNode::Unit | TypeNode::Int | TypeNode::Bool => true,
            TypeNode::List(a) => self.first_order(a),
            TypeNode::Pair(a, b) => self.first_order(a) && self.first_order(b),
            TypeNode::Ref(_) | TypeNode::Arrow(..) => false,
        }
    }

    /// The type as written in the source.
    pub fn to_ast(&self, id: TypeId) -> ast::Type {
        match self.node(id) {
            TypeNode::Unit => ast::Type::Unit,
            TypeNode::Int => ast::Type::Int,
            TypeNode::Bool => ast::Type::Bool,
            TypeNode::Ref(a) => ast::Type::reference(self.to_ast(a)),
            TypeNode::List(a) => ast::Type::list(self.to_ast(a)),
            TypeNode::Pair(a, b) => {
                ast::Type::Pair(Box::new(self.to_ast(a)), Box::new(self.to_ast(b)))
            }
            TypeNode::Arrow(a, b) => ast::Type::arrow(self.to_ast(a), self.to_ast(b)),
        }
    }

    pub fn display(&self, id: TypeId) -> TypeDisplay<'_> {
        TypeDisplay { types: self, id }
    }
}

pub struct TypeDisplay<'a> {
    types: &'a Types,
    id: TypeId,
}

impl fmt::Display for TypeDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sub = |id| TypeDisplay {
            types: self.types,
            id,
        };
        match self.types.node(self.id) {
            TypeNode::Unit => write!(f, "unit"),
            TypeNode::Int => write!(f, "int"),
            TypeNode::Bool => write!(f, "bool"),
            TypeNode::Ref(a) => write!(f, "(ref {})", sub(a)),
            TypeNode::List(a) => write!(f, "({} list)", sub(a)),
            TypeNode::Pair(a, b) => write!(f, "({} * {})", sub(a), sub(b)),
            TypeNode::Arrow(a, b) => write!(f, "({} -> {})", sub(a), sub(b)),
        }
    }
}

/// Names numbered in the order they are first met: how the build numbers references
/// and undeclared names, and a restriction renumbers them.
#[derive(Default)]
pub struct Names {
    names: Vec<String>,
    index: HashMap<String, u32>,
}

impl Names {
    /// The number of `name`, given the next one if it is new.
    pub fn id(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.index.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), id);
        id
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The names, by number.
    pub fn into_vec(self) -> Vec<String> {
        self.names
    }
}

pub type MethodId = u32;
pub type ImportId = u32;
pub type RefId = u32;
pub type CodeId = u32;
/// An index into [`super::Library::undeclared`]: a name that is neither a variable, a method nor an import.
pub type UndeclaredId = u32;

/// A global name as a value: a method, an import, or a name that resolves to nothing.
/// Evaluating an undeclared name gives an inert name value; applying it ends the path
/// (HOLiK gets stuck there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GlobalName {
    Method(MethodId),
    Import(ImportId),
    Undeclared(UndeclaredId),
}

/// The code of a method, `letrec` function or lambda.
#[derive(Debug, PartialEq)]
pub struct FunCode {
    /// The method or `letrec` name; `None` for a lambda.
    pub name: Option<String>,
    pub param_ty: TypeId,
    pub ret_ty: TypeId,
    /// `param_ty -> ret_ty`.
    pub ty: TypeId,
    /// A `letrec` function sees itself at index 1 (the parameter is at 0).
    pub recursive: bool,
    pub body: Expr,
    pub span: Span,
}

#[derive(Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

impl Expr {
    /// The direct subexpressions, in evaluation order; not the bodies of the codes a
    /// lambda or `letrec` makes (those are codes of their own).
    pub fn children(&self) -> impl Iterator<Item = &Expr> {
        let (a, b, c): (Option<&Expr>, Option<&Expr>, Option<&Expr>) = match &self.kind {
            ExprKind::Local(_)
            | ExprKind::Global(_)
            | ExprKind::Int(_)
            | ExprKind::Unit
            | ExprKind::Diverge
            | ExprKind::Nil
            | ExprKind::Deref(_)
            | ExprKind::Lambda(_) => (None, None, None),
            ExprKind::Assign(_, a)
            | ExprKind::Alloc(a, _)
            | ExprKind::Load(a)
            | ExprKind::Fst(a)
            | ExprKind::Snd(a)
            | ExprKind::Not(a)
            | ExprKind::LetRec(_, a)
            | ExprKind::Assert(a) => (Some(a), None, None),
            ExprKind::App(a, b)
            | ExprKind::Pair(a, b)
            | ExprKind::Cons(a, b)
            | ExprKind::Binary(_, a, b)
            | ExprKind::Seq(a, b)
            | ExprKind::Store(a, b)
            | ExprKind::Let(a, b) => (Some(a), Some(b), None),
            ExprKind::If(a, b, c) | ExprKind::Match(a, b, c) => (Some(a), Some(b), Some(c)),
        };
        [a, b, c].into_iter().flatten()
    }

    /// Where this expression can fail, not counting the codes it makes: every
    /// `assert`, and every division whose divisor is not a nonzero constant.
    pub fn failure_sites(&self, out: &mut Vec<Site>) {
        let kind = match &self.kind {
            ExprKind::Assert(_) => Some(FailureKind::Assert),
            ExprKind::Binary(BinOp::Div | BinOp::Mod, _, divisor) if !matches!(&divisor.kind, ExprKind::Int(d) if d.sign() != Sign::NoSign) => {
                Some(FailureKind::Division)
            }
            _ => None,
        };
        if let Some(kind) = kind {
            out.push(Site {
                kind,
                span: self.span.clone(),
            });
        }
        for child in self.children() {
            child.failure_sites(out);
        }
    }
}

#[derive(Debug, PartialEq)]
pub enum ExprKind {
    /// A variable: the de Bruijn index into the environment (0 = innermost binder).
    Local(u32),
    /// A method, import or undeclared name.
    Global(GlobalName),
    Int(BigInt),
    Unit,
    /// `_bot_`: the evaluation never ends.
    Diverge,
    Deref(RefId),
    Assign(RefId, Box<Expr>),
    /// `ref e`, with the type of the values its cell holds (unknown only in an
    /// ill-typed program).
    Alloc(Box<Expr>, Option<TypeId>),
    /// `!e` through a location (a named `!x` of a local compiles to `Load(Local)`).
    Load(Box<Expr>),
    /// `e1 := e2` through a location: the target first, then the value.
    Store(Box<Expr>, Box<Expr>),
    App(Box<Expr>, Box<Expr>),
    Pair(Box<Expr>, Box<Expr>),
    Fst(Box<Expr>),
    Snd(Box<Expr>),
    /// `[]`
    Nil,
    /// `head :: tail`: the head first.
    Cons(Box<Expr>, Box<Expr>),
    /// `match scrutinee with [] -> nil | h :: t -> cons`: `cons` sees `t` at index 0
    /// and `h` at index 1.
    Match(Box<Expr>, Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Seq(Box<Expr>, Box<Expr>),
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    Let(Box<Expr>, Box<Expr>),
    /// `letrec f = code in body`: `body` sees `f` at index 0.
    LetRec(CodeId, Box<Expr>),
    Lambda(CodeId),
    Assert(Box<Expr>),
}
