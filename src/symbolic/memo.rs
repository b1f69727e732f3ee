//! Subsumption of opponent configurations: a configuration that is, up to renaming,
//! one already fully explored with at least the same budgets and no longer a trace
//! need not be explored again.
//!
//! The key of an opponent configuration is a canonical text of everything its future
//! depends on: the store, the evaluation stack (client-call markers, and the suspended
//! continuations of pending P-calls), the revealed names, and the conjuncts of the path
//! condition connected to the symbols still live (reachable from those). Symbols, client
//! function names and closures are renamed in order of first occurrence in a fixed
//! traversal; a closure is written out (code and captured values) where it first occurs.
//! The budgets — k, the current l, and the saved l of every pending client call (top
//! first) — are kept beside the key and compared pointwise.
//!
//! Why pruning is sound for the default report (every failure site, with its minimal
//! trace length). Let C be fully explored at trace length m with budgets b, and C' have
//! the same key at trace length m' ≥ m with budgets b' ≤ b.
//! * Same key means the same future up to renaming: the machine reads nothing else
//!   (the trace and the witness only shape the printed trace and where the solver
//!   starts), fresh names are numbered past everything live, and the conjuncts left
//!   out of the key mention only symbols that can never occur again, are satisfiable
//!   together (the path condition is) and share no symbol with anything the future
//!   asks — so every future condition is satisfiable from C' iff it is from C.
//! * Bounded exploration is monotone in the budgets: k only ends a path at 0, l only
//!   forbids client calls at 0, and a saved l becomes the current l on a P-return.
//!   With larger budgets every move sequence stays possible.
//! * Hence a failure reached from C' by a suffix s is reached from C by s, at the same
//!   site, with m + |s| ≤ m' + |s| moves; it was reported while C was explored.
//!
//! A configuration still on the search stack (not fully explored) never subsumes: its
//! entry is made when the marker pushed beneath its successors comes off the worklist.
//! Keys are stored as 128-bit hashes of the canonical text; two different texts with
//! the same hash would be a 2⁻¹²⁸-scale accident.

use super::config::{Closure, Config, Frame, GameFrame, PcNode};
use super::term::{Node, Term};
use super::value::{Env, Name, Value};
use std::collections::{HashMap, HashSet};
use std::fmt::Write;
use std::hash::{BuildHasherDefault, Hash, Hasher};

/// The canonical key of an opponent configuration and its budgets.
pub struct Key {
    hash: u128,
    /// k, l, then the saved l of every pending client call, top first.
    budgets: Vec<u32>,
}

struct Entry {
    budgets: Vec<u32>,
    /// The trace length at which it was explored, less the trace-length limit of the
    /// search if there is one (with `first`): smaller means more room left.
    moves: i64,
    /// Whether the trace-length limit cut off part of what lies below it; then it
    /// subsumes only in its own pass (`pass`) of the deepening search, which counted
    /// the cut already.
    cut: bool,
    pass: u32,
}

impl Entry {
    /// Whether every configuration `other` subsumes, this one subsumes too.
    fn covers(&self, other: &Entry) -> bool {
        self.moves <= other.moves
            && dominates(&self.budgets, &other.budgets)
            && (!self.cut || (other.cut && self.pass == other.pass))
    }
}

/// Keys kept at most, about 150 bytes each: a few hundred MB.
const MAX_KEYS: usize = 1 << 22;

/// Fully explored opponent configurations, by key.
#[derive(Default)]
pub struct Memo {
    table: HashMap<u128, Vec<Entry>, BuildHasherDefault<KeyHasher>>,
    buffers: Buffers,
}

/// Keys are hashes already: the table uses their low bits as they are.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u128(&mut self, n: u128) {
        self.0 = n as u64;
    }
}

impl Memo {
    /// Whether a fully explored configuration with `key` had budgets at least `key`'s
    /// and at most `moves` moves (both less the trace-length limit, if any), and was
    /// not cut off by that limit unless in this same `pass`.
    pub fn subsumes(&self, key: &Key, moves: i64, pass: u32) -> bool {
        self.table.get(&key.hash).is_some_and(|entries| {
            entries.iter().any(|e| {
                e.moves <= moves
                    && dominates(&e.budgets, &key.budgets)
                    && (!e.cut || e.pass == pass)
            })
        })
    }

    /// Records that the configuration with `key` at `moves` moves is fully explored
    /// (cut off by the limit of `pass` somewhere below, if `cut`), forgetting the
    /// entries it makes redundant.
    pub fn insert(&mut self, key: Key, moves: i64, cut: bool, pass: u32) {
        let new = Entry {
            budgets: key.budgets,
            moves,
            cut,
            pass,
        };
        if self.table.len() >= MAX_KEYS {
            // Any subset of the entries is sound (they only ever prune), so the memo
            // forgets everything rather than outgrow memory.
            self.table.clear();
        }
        let entries = self.table.entry(key.hash).or_default();
        if entries.iter().any(|e| e.covers(&new)) {
            return;
        }
        entries.retain(|e| !new.covers(e));
        entries.push(new);
    }
}

/// `a ≥ b` pointwise (same stack shape, so the same length).
fn dominates(a: &[u32], b: &[u32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x >= y)
}

/// The key of the opponent configuration `cfg`.
pub fn key(memo: &mut Memo, cfg: &Config) -> Key {
    let b = &mut memo.buffers;
    b.out.clear();
    b.syms.clear();
    b.clients.clear();
    b.closures.clear();
    b.nodes.clear();
    let mut c = Canon {
        cfg,
        b,
        frozen: false,
    };
    let mut budgets = vec![cfg.k, cfg.l];
    c.b.out.push_str("S[");
    for slot in cfg.store.iter() {
        match slot {
            Some(v) => c.value(v),
            None => c.b.out.push('_'),
        }
        c.b.out.push(',');
    }
    c.b.out.push_str("]E[");
    for frame in cfg.stack.iter() {
        match frame {
            GameFrame::OCall { name, ty, saved_l } => {
                budgets.push(*saved_l);
                c.b.out.push_str("O:");
                c.name(*name);
                let _ = write!(c.b.out, ":{ty}");
            }
            GameFrame::PCall { name, ty, kont } => {
                c.b.out.push_str("P:");
                c.name(*name);
                let _ = write!(c.b.out, ":{ty:?}[");
                for f in kont.iter() {
                    c.frame(f);
                }
                c.b.out.push(']');
            }
        }
        c.b.out.push(';');
    }
    c.b.out.push_str("]R[");
    for (i, (name, ty)) in cfg.revealed.iter().enumerate() {
        // The search never calls it (`moves::opponent_moves`), so its future is that
        // of the configuration without it.
        if cfg.duplicates_earlier_revealed(i) {
            continue;
        }
        c.name(*name);
        let _ = write!(c.b.out, ":{ty},");
    }
    c.b.out.push_str("]C[");
    c.path_condition();
    c.b.out.push(']');
    Key {
        hash: hash128(&c.b.out),
        budgets,
    }
}

/// A 128-bit hash of `text` (two SipHash runs with different salts).
pub fn hash128(text: &str) -> u128 {
    let half = |salt: u8| {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        salt.hash(&mut h);
        text.hash(&mut h);
        h.finish()
    };
    (u128::from(half(0)) << 64) | u128::from(half(1))
}

/// The canonical text being written and the renamings so far; kept between keys so
/// that their allocations are reused.
#[derive(Default)]
struct Buffers {
    out: String,
    syms: HashMap<u32, usize>,
    clients: HashMap<u32, usize>,
    closures: HashMap<u32, usize>,
    /// Compound terms written, by address.
    nodes: HashMap<usize, usize>,
}

struct Canon<'a, 'p> {
    cfg: &'a Config<'p>,
    b: &'a mut Buffers,
    /// No more numbering of compound terms: the path condition's conjuncts are sorted,
    /// so they may refer to terms of the state but not to each other.
    frozen: bool,
}

impl Canon<'_, '_> {
    fn value(&mut self, v: &Value) {
        match v {
            Value::Unit => self.b.out.push('u'),
            Value::Int(t) => self.term(t),
            Value::Pair(p) => {
                self.b.out.push('<');
                self.value(&p.0);
                self.b.out.push(',');
                self.value(&p.1);
                self.b.out.push('>');
            }
            Value::Fun(name) => self.name(*name),
        }
    }

    fn term(&mut self, t: &Term) {
        match t {
            Term::Const(i) => {
                let _ = write!(self.b.out, "#{i}");
            }
            Term::Node(node) => match &**node {
                // A shared subterm met again is written as a reference to its first
                // occurrence: shorter, and the text still determines the term.
                Node::Bin(..) | Node::Not(_) if self.seen(node) => {}
                Node::Sym(n) => {
                    let next = self.b.syms.len();
                    let i = *self.b.syms.entry(*n).or_insert(next);
                    let _ = write!(self.b.out, "s{i}");
                }
                Node::Bin(op, a, b) => {
                    let _ = write!(self.b.out, "({}", op.symbol());
                    self.term(a);
                    self.b.out.push(' ');
                    self.term(b);
                    self.b.out.push(')');
                }
                Node::Not(a) => {
                    self.b.out.push_str("(!");
                    self.term(a);
                    self.b.out.push(')');
                }
            },
        }
    }

    /// Whether the compound term `node` was written before (then writes `^i`, its
    /// number among the compound terms written); otherwise numbers it.
    fn seen(&mut self, node: &std::rc::Rc<Node>) -> bool {
        let next = self.b.nodes.len();
        match self.b.nodes.entry(std::rc::Rc::as_ptr(node) as usize) {
            std::collections::hash_map::Entry::Occupied(e) => {
                let _ = write!(self.b.out, "^{}", e.get());
                true
            }
            std::collections::hash_map::Entry::Vacant(e) => {
                if !self.frozen {
                    e.insert(next);
                }
                false
            }
        }
    }

    fn name(&mut self, name: Name) {
        match name {
            Name::Method(m) => {
                let _ = write!(self.b.out, "M{m}");
            }
            Name::Import(i) => {
                let _ = write!(self.b.out, "I{i}");
            }
            Name::Undeclared(u) => {
                let _ = write!(self.b.out, "U{u}");
            }
            Name::Client(n) => {
                let next = self.b.clients.len();
                let i = *self.b.clients.entry(n).or_insert(next);
                let _ = write!(self.b.out, "F{i}");
                if i == next {
                    let ty = self.cfg.clients.get(n as usize).copied();
                    let _ = write!(self.b.out, ":{ty:?}");
                }
            }
            Name::Closure(n) => {
                let next = self.b.closures.len();
                let i = *self.b.closures.entry(n).or_insert(next);
                let _ = write!(self.b.out, "L{i}");
                if i == next {
                    if let Some(Closure { code_id, env, .. }) = self.cfg.closures.get(n as usize) {
                        let _ = write!(self.b.out, "{{{code_id}");
                        self.env(env);
                        self.b.out.push('}');
                    }
                }
            }
        }
    }

    fn env(&mut self, env: &Env) {
        self.b.out.push('[');
        for v in env.iter() {
            self.value(v);
            self.b.out.push(',');
        }
        self.b.out.push(']');
    }

    /// An evaluation-context frame; program points by the address of their node.
    fn frame(&mut self, f: &Frame) {
        let at = |e: &super::ir::Expr| e as *const _ as usize;
        match f {
            Frame::AppArg(e, env) => {
                let _ = write!(self.b.out, "aa{}", at(e));
                self.env(env);
            }
            Frame::AppCall(v) => {
                self.b.out.push_str("ac");
                self.value(v);
            }
            Frame::PairRight(e, env) => {
                let _ = write!(self.b.out, "pr{}", at(e));
                self.env(env);
            }
            Frame::PairMake(v) => {
                self.b.out.push_str("pm");
                self.value(v);
            }
            Frame::Fst => self.b.out.push_str("fst"),
            Frame::Snd => self.b.out.push_str("snd"),
            Frame::Not => self.b.out.push_str("not"),
            Frame::BinRight(e, env) => {
                let _ = write!(self.b.out, "br{}", at(e));
                self.env(env);
            }
            Frame::BinApply(e, v) => {
                let _ = write!(self.b.out, "ba{}", at(e));
                self.value(v);
            }
            Frame::Seq(e, env) => {
                let _ = write!(self.b.out, "sq{}", at(e));
                self.env(env);
            }
            Frame::If(e, env) => {
                let _ = write!(self.b.out, "if{}", at(e));
                self.env(env);
            }
            Frame::Let(e, env) => {
                let _ = write!(self.b.out, "lt{}", at(e));
                self.env(env);
            }
            Frame::Assign(r) => {
                let _ = write!(self.b.out, "as{r}");
            }
            Frame::Assert(e) => {
                let _ = write!(self.b.out, "at{}", at(e));
            }
            Frame::Box => self.b.out.push_str("box"),
        }
        self.b.out.push(';');
    }

    /// The conjuncts connected to the live symbols (those named so far), oldest first,
    /// without repeats. Conjuncts over live symbols only are sorted, so the order in
    /// which a path learnt them does not matter.
    fn path_condition(&mut self) {
        self.frozen = true;
        let cfg = self.cfg;
        let mut conjuncts: Vec<&PcNode> = Vec::new();
        let mut node = cfg.pc.as_deref();
        while let Some(p) = node {
            conjuncts.push(p);
            node = p.parent.as_deref();
        }
        conjuncts.reverse();
        let live: HashSet<u32> = self.b.syms.keys().copied().collect();
        let mut relevant = live.clone();
        let mut included = vec![false; conjuncts.len()];
        let mut grew = true;
        while grew {
            grew = false;
            for (i, p) in conjuncts.iter().enumerate() {
                if !included[i] && p.own_symbols.iter().any(|n| relevant.contains(n)) {
                    included[i] = true;
                    grew = true;
                    relevant.extend(p.own_symbols.iter().copied());
                }
            }
        }
        let mut live_only = Vec::new();
        let mut mixed = Vec::new();
        for (p, inc) in conjuncts.iter().zip(&included) {
            if !inc {
                continue;
            }
            if p.own_symbols.iter().all(|n| live.contains(n)) {
                let start = self.b.out.len();
                self.b.out.push(if p.holds { '+' } else { '-' });
                self.term(&p.term);
                live_only.push(self.b.out.split_off(start));
            } else {
                mixed.push(*p);
            }
        }
        live_only.sort();
        live_only.dedup();
        for text in live_only {
            self.b.out.push_str(&text);
            self.b.out.push(';');
        }
        let mut seen = HashSet::new();
        for p in mixed {
            let start = self.b.out.len();
            self.b.out.push(if p.holds { '+' } else { '-' });
            self.term(&p.term);
            self.b.out.push(';');
            if !seen.insert(self.b.out[start..].to_string()) {
                self.b.out.truncate(start);
            }
        }
    }
}
