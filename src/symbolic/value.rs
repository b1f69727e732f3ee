//! Runtime values of the symbolic machine and its persistent environment.

use super::term::Term;
use crate::library::ir::{ImportId, MethodId, UndeclaredId};
use std::sync::Arc;

/// A method name, as a value. Library-owned names (methods and the closures created by
/// lambdas and `letrec`) are in the repository R; client-owned names (imports and the
/// functions the client passed) are abstract.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Name {
    Method(MethodId),
    /// The n-th function created on this path by a lambda or `letrec`.
    Closure(u32),
    Import(ImportId),
    /// The n-th function name the client passed on this path.
    Client(u32),
    Undeclared(UndeclaredId),
}

impl Name {
    pub fn is_library_owned(self) -> bool {
        matches!(self, Name::Method(_) | Name::Closure(_))
    }
}

#[derive(Clone, Debug)]
pub enum Value {
    Unit,
    Int(Term),
    Pair(Arc<(Value, Value)>),
    /// The empty list.
    Nil,
    /// A list cell: the head and the tail. Every list has a known length: the client's
    /// lists are played with one ([`super::moves`]).
    Cons(Arc<(Value, Value)>),
    Fun(Name),
    /// A location: an index into the configuration's [`super::config::Heap`].
    Loc(u32),
}

impl Value {
    pub fn pair(a: Value, b: Value) -> Value {
        Value::Pair(Arc::new((a, b)))
    }

    pub fn cons(head: Value, tail: Value) -> Value {
        Value::Cons(Arc::new((head, tail)))
    }

    /// The list `items`, in order.
    pub fn list(items: impl DoubleEndedIterator<Item = Value>) -> Value {
        items
            .rev()
            .fold(Value::Nil, |tail, head| Value::cons(head, tail))
    }
}

/// Variables in scope, innermost first; shared between closures and continuations.
#[derive(Clone, Debug, Default)]
pub struct Env(Option<Arc<EnvNode>>);

#[derive(Debug)]
struct EnvNode {
    value: Value,
    next: Env,
}

impl Env {
    pub fn push(&self, value: Value) -> Env {
        Env(Some(Arc::new(EnvNode {
            value,
            next: self.clone(),
        })))
    }

    /// The variable with de Bruijn index `i`.
    pub fn get(&self, mut i: u32) -> Option<&Value> {
        let mut node = self.0.as_deref()?;
        while i > 0 {
            node = node.next.0.as_deref()?;
            i -= 1;
        }
        Some(&node.value)
    }
}

impl Env {
    /// The values in scope, innermost first.
    pub fn iter(&self) -> impl Iterator<Item = &Value> {
        let mut next = self.0.as_deref();
        std::iter::from_fn(move || {
            let node = next?;
            next = node.next.0.as_deref();
            Some(&node.value)
        })
    }
}
