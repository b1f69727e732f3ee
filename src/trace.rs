//! Traces and counterexamples: the output types of the analysis.
//!
//! These are deliberately separate from the engine's internal configurations: they are
//! what users, JSON consumers, client synthesis and replay see, and they must stay stable
//! while the engine changes. A trace is the sequence of boundary moves between the library
//! (proponent) and the client (opponent), printed as in the paper:
//! `call withdraw(x1) · call send(x1) · ret send(())`.

use crate::syntax::ast::{Span, Type};
use num_bigint::BigInt;
use serde::{Deserialize, Serialize};
use std::any::Any;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// Whether a move calls a method or returns from one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dir {
    Call,
    Ret,
}

/// Who makes a move: the client (opponent) or the library (proponent).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Player {
    Client,
    Library,
}

/// A value carried by a move.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TraceValue {
    Unit,
    Int(BigInt),
    /// A symbolic integer: a client-chosen symbol such as `x1`, or a term over such
    /// symbols rendered as text (`x1 - 10`).
    Sym(String),
    /// A function name: a library method, a library function revealed to the client
    /// (`m1`, …) or a function the client supplied (`f1`, …).
    Fun(String),
    Pair(Box<TraceValue>, Box<TraceValue>),
    /// A list, printed `[a; b]` as in OCaml.
    List(Vec<TraceValue>),
    /// A reference name: library-owned `q1`, `q2`, … or client-owned `r1`, `r2`, …
    Ref(String),
}

impl fmt::Display for TraceValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceValue::Unit => write!(f, "()"),
            TraceValue::Int(i) => write!(f, "{i}"),
            TraceValue::Sym(s) | TraceValue::Fun(s) | TraceValue::Ref(s) => write!(f, "{s}"),
            TraceValue::Pair(a, b) => write!(f, "({a}, {b})"),
            TraceValue::List(items) => {
                write!(f, "[")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        write!(f, "; ")?;
                    }
                    write!(f, "{item}")?;
                }
                write!(f, "]")
            }
        }
    }
}

impl TraceValue {
    /// The value as a move argument: a top-level pair is written without its own
    /// parentheses (`m(x1, x2)`), anything else as itself (`m(())`, `m(x1)`).
    pub fn as_argument(&self) -> String {
        match self {
            TraceValue::Pair(a, b) => format!("{a}, {b}"),
            other => other.to_string(),
        }
    }
}

/// What a move does to the cells of the shared store (ML-like references).
///
/// At a client move: the writes the client made during its turn, printed
/// `[r1 := x2]`. At a library move: the cells through which a name first reaches the
/// client, printed `{q1 = q2}`. Empty for every library without references.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct StoreEntry {
    /// The location's trace name (`q1`, `r1`).
    pub cell: String,
    pub value: TraceValue,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Move {
    pub dir: Dir,
    pub by: Player,
    /// The method called or returned from, as the trace names it.
    pub method: String,
    pub value: TraceValue,
    /// The store entries of this move, in order of the cells' first appearance.
    pub store: Vec<StoreEntry>,
}

impl Move {
    pub fn new(dir: Dir, by: Player, method: &str, value: TraceValue) -> Move {
        Move {
            dir,
            by,
            method: method.to_string(),
            value,
            store: Vec::new(),
        }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dir = match self.dir {
            Dir::Call => "call",
            Dir::Ret => "ret",
        };
        write!(f, "{dir} {}({})", self.method, self.value.as_argument())?;
        if self.store.is_empty() {
            return Ok(());
        }
        let (open, assign, close) = match self.by {
            Player::Client => ("[", ":=", "]"),
            Player::Library => ("{", "=", "}"),
        };
        write!(f, " {open}")?;
        for (i, entry) in self.store.iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "{} {assign} {}", entry.cell, entry.value)?;
        }
        write!(f, "{close}")
    }
}

/// A sequence of moves, displayed with ` · ` between them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Trace(pub Vec<Move>);

impl fmt::Display for Trace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, m) in self.0.iter().enumerate() {
            if i > 0 {
                write!(f, " · ")?;
            }
            write!(f, "{m}")?;
        }
        Ok(())
    }
}

/// What went wrong at the end of a failing trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FailureKind {
    /// `assert(e)` with `e` = 0.
    Assert,
    /// Division by zero.
    Division,
}

/// A place the library can fail: what fails there, and where. Ordered by kind, then
/// by place, so that it keys ordered maps.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Site {
    pub kind: FailureKind,
    pub span: Span,
}

impl Ord for Site {
    fn cmp(&self, other: &Site) -> std::cmp::Ordering {
        let key = |s: &Site| (s.kind, s.span.start, s.span.end);
        key(self).cmp(&key(other))
    }
}

impl PartialOrd for Site {
    fn partial_cmp(&self, other: &Site) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// A failing trace with everything needed to show, synthesize and replay it; a
/// shard hands it to the merge as JSON, chosen values and all (`lang/shards.md`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Counterexample {
    pub kind: FailureKind,
    /// The span of the failing `assert` or division in the library source.
    pub span: Span,
    /// The symbolic trace.
    pub trace: Trace,
    /// The same trace with every symbolic integer replaced by its value in `model`.
    pub concrete: Trace,
    /// A concrete integer for every symbol the trace mentions (`x1 = 100`).
    pub model: BTreeMap<String, BigInt>,
    /// The type of the values each location the trace names holds (`q1: int`), in
    /// order of first appearance; empty for a library without references.
    pub locations: Vec<(String, Type)>,
    /// What the engine needs to choose the values again once its search is over; `None`
    /// once chosen, and for traces made elsewhere.
    #[serde(skip)]
    pub valuation: Option<Valuation>,
}

impl Counterexample {
    /// Where it fails.
    pub fn site(&self) -> Site {
        Site {
            kind: self.kind,
            span: self.span.clone(),
        }
    }
}

/// The failing path behind a counterexample, as the engine keeps it to choose its values
/// (`symbolic::values`): opaque here.
#[derive(Clone)]
pub struct Valuation(pub Arc<dyn Any + Send + Sync>);

impl fmt::Debug for Valuation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Valuation")
    }
}
