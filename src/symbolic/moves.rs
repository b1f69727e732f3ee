//! The four boundary moves of the symbolic game (Figure 4) and how a path's moves
//! become a printable [`Trace`].
//!
//! * O-call: the client calls a public name with fresh values of its parameter type.
//! * P-return: the library answers the client's most recent call.
//! * P-call: the library calls a client-owned name; the client gets a fresh budget.
//! * O-return: the client answers the library's most recent call with fresh values.
//!
//! Library functions in a value the library passes become public (with the type of the
//! position they are passed at, as HOLiK records them); client functions the client
//! passes are fresh abstract names.

use super::config::{Config, Control, GameFrame, List, MoveRecord};
use super::ir::{ImportId, MethodId, TypeId, TypeNode};
use super::term::{Term, Witness};
use super::value::{Name, Value};
use crate::build::Library;
use crate::syntax::ast::Visibility;
use crate::trace::{Dir, Move, Player, Trace, TraceValue};
use num_bigint::BigInt;
use std::collections::BTreeMap;

/// The type a name has for the client: declared, or recorded when it was passed.
fn name_type(cfg: &Config, lib: &Library, name: Name) -> Option<TypeId> {
    match name {
        Name::Import(i) => Some(lib.imports[i as usize].ty),
        Name::Client(n) => cfg.clients.get(n as usize).copied(),
        Name::Method(m) => Some(lib.method_code(m).ty),
        Name::Closure(n) => cfg.closures.get(n as usize).map(|c| c.code.ty),
        Name::Undeclared(_) => None,
    }
}

/// A fresh value of type `ty` played by the client (the paper's `symval`).
fn generate(cfg: &mut Config, lib: &Library, ty: TypeId) -> Value {
    match lib.types.node(ty) {
        // A library whose types mention `ref` is never built yet (see `crate::build`).
        TypeNode::Unit | TypeNode::Ref(_) => Value::Unit,
        TypeNode::Int => Value::Int(cfg.fresh_sym()),
        TypeNode::Pair(a, b) => {
            let a = generate(cfg, lib, a);
            let b = generate(cfg, lib, b);
            Value::pair(a, b)
        }
        TypeNode::Arrow(..) => {
            let n = cfg.clients.len() as u32;
            cfg.clients.push_back(ty);
            Value::Fun(Name::Client(n))
        }
    }
}

/// Adds the library functions in `value` to the public names. `ty` is the type of the
/// position `value` is passed at; a function passed where no function type is declared
/// keeps its own declared type.
fn reveal(cfg: &mut Config, lib: &Library, value: &Value, ty: Option<TypeId>) {
    match value {
        Value::Fun(name) if name.is_library_owned() => {
            let public_method = matches!(name, Name::Method(m)
                if lib.methods[*m as usize].visibility == Visibility::Public);
            if public_method || cfg.revealed.iter().any(|(n, _)| n == name) {
                return;
            }
            let ty = match ty {
                Some(t) if lib.types.arrow(t).is_some() => Some(t),
                _ => name_type(cfg, lib, *name),
            };
            if let Some(ty) = ty {
                cfg.revealed.push_back((*name, ty));
            }
        }
        Value::Pair(p) => {
            let (ta, tb) = match ty.map(|t| lib.types.node(t)) {
                Some(TypeNode::Pair(a, b)) => (Some(a), Some(b)),
                _ => (None, None),
            };
            reveal(cfg, lib, &p.0, ta);
            reveal(cfg, lib, &p.1, tb);
        }
        _ => {}
    }
}

/// P-call: the library applies the client-owned `name` to `arg`.
pub fn p_call(cfg: &mut Config, lib: &Library, name: Name, arg: Value, lzero: u32) {
    let ty = name_type(cfg, lib, name);
    let param = ty.and_then(|t| lib.types.arrow(t)).map(|(p, _)| p);
    reveal(cfg, lib, &arg, param);
    cfg.push_move(Dir::Call, Player::Library, name, arg);
    let kont = std::mem::take(&mut cfg.kont);
    cfg.stack.push(GameFrame::PCall { name, ty, kont });
    cfg.l = lzero;
    cfg.control = Control::Opponent;
}

/// P-return: the library's value reaches the top of an O-call. Returns false when no
/// client call is pending (cannot happen for configurations built by the search).
pub fn p_return(cfg: &mut Config, lib: &Library, value: Value) -> bool {
    let Some(GameFrame::OCall { name, ty, saved_l }) = cfg.stack.pop() else {
        return false;
    };
    let result = lib.types.arrow(ty).map(|(_, r)| r);
    reveal(cfg, lib, &value, result);
    cfg.push_move(Dir::Ret, Player::Library, name, value);
    cfg.l = saved_l;
    cfg.control = Control::Opponent;
    true
}

/// The split's stand-in for the rest of a library ([`super::split`]): a public method
/// that, called by the client, calls the client back up to `callbacks` times through
/// an import and returns. The search plays it itself, so that how many callbacks it
/// has left is a budget the memo compares like l, rather than a place in its code.
#[derive(Clone, Copy, Debug)]
pub struct StandIn {
    pub method: MethodId,
    pub callback: ImportId,
    pub callbacks: u32,
    /// The client's budget in each callback: l.
    pub lzero: u32,
}

impl StandIn {
    /// The stand-in's call of the client back, with `remaining` more to come and the
    /// client's budget `saved_l` to restore when it returns.
    fn call_back(&self, cfg: &mut Config, remaining: u32, saved_l: u32) {
        cfg.stack.push(GameFrame::StandIn { remaining, saved_l });
        cfg.push_move(
            Dir::Call,
            Player::Library,
            Name::Import(self.callback),
            Value::Unit,
        );
        cfg.l = self.lzero;
    }
}

/// Every move the client can make from an opponent configuration, in search order:
/// answering the pending P-call (always allowed), then — while its budget lasts —
/// calling each public name, public methods in declaration order first. With
/// `stand_in`, the client's moves with it come with the stand-in's answers: a call
/// with the first callback, and the answer to a callback with the next one or with
/// the stand-in's return. (Its return right after the call is left out: that only
/// spends moves and l.)
///
/// With `symmetry`, a revealed name equivalent to an earlier one is not called: the
/// call to the earlier one has the same future, up to the name printed in the trace
/// (see [`Config::duplicates_earlier_revealed`]). Without it every call is made, so
/// that every distinct failing trace is found.
pub fn opponent_moves<'p>(
    cfg: &Config<'p>,
    lib: &'p Library,
    symmetry: bool,
    stand_in: Option<&StandIn>,
) -> Vec<Config<'p>> {
    let mut next = Vec::new();
    if let (Some(&GameFrame::StandIn { remaining, saved_l }), Some(s)) = (cfg.stack.top(), stand_in)
    {
        let mut answered = cfg.clone();
        answered.push_move(
            Dir::Ret,
            Player::Client,
            Name::Import(s.callback),
            Value::Unit,
        );
        if remaining > 0 {
            let mut again = answered.clone();
            again.stack.pop();
            s.call_back(&mut again, remaining - 1, saved_l);
            next.push(again);
        }
        answered.stack.pop();
        answered.push_move(
            Dir::Ret,
            Player::Library,
            Name::Method(s.method),
            Value::Unit,
        );
        answered.l = saved_l;
        answered.k += 1;
        next.push(answered);
    }
    if let Some(GameFrame::PCall { name, ty, kont }) = cfg.stack.top() {
        // An import declared with a non-function type has no result to generate.
        if let Some((_, result)) = ty.and_then(|t| lib.types.arrow(t)) {
            let mut c = cfg.clone();
            c.stack.pop();
            let value = generate(&mut c, lib, result);
            c.push_move(Dir::Ret, Player::Client, *name, value.clone());
            c.kont = kont.clone();
            c.control = Control::Return(value);
            next.push(c);
        }
    }
    if cfg.l == 0 {
        return next;
    }
    let publics = lib
        .public
        .iter()
        .map(|&m| (Name::Method(m), lib.method_code(m).ty))
        .chain(
            cfg.revealed
                .iter()
                .enumerate()
                .filter(|&(i, _)| !(symmetry && cfg.duplicates_earlier_revealed(i)))
                .map(|(_, &entry)| entry),
        );
    for (name, ty) in publics {
        let Some((param, _)) = lib.types.arrow(ty) else {
            continue;
        };
        let mut c = cfg.clone();
        let arg = generate(&mut c, lib, param);
        c.push_move(Dir::Call, Player::Client, name, arg.clone());
        if let Some(s) = stand_in.filter(|s| name == Name::Method(s.method)) {
            // Without a frame left the call ends the path.
            if s.callbacks > 0 && c.k > 0 {
                c.k -= 1;
                s.call_back(&mut c, s.callbacks - 1, cfg.l - 1);
                next.push(c);
            }
            continue;
        }
        c.stack.push(GameFrame::OCall {
            name,
            ty,
            saved_l: cfg.l - 1,
        });
        c.kont = List::default();
        c.control = Control::Apply(Value::Fun(name), arg);
        next.push(c);
    }
    next
}

/// A path's moves as a trace, with its names renumbered in order of first appearance:
/// client integers `x1, x2, …`, client functions `f1, …`, revealed library functions
/// `m1, …`; methods and imports keep their names.
pub struct Rendered {
    pub trace: Trace,
    /// The trace with every symbolic integer replaced by its value in the witness.
    pub concrete: Trace,
    pub model: BTreeMap<String, BigInt>,
}

#[derive(Default)]
struct Names {
    syms: Vec<u32>,
    clients: Vec<u32>,
    closures: Vec<u32>,
}

/// `f3`, `m1`…, primed until it differs from every name the library declares
/// (the corpus has an import called `f2`).
fn fresh_name(lib: &Library, prefix: char, i: usize) -> String {
    let mut name = format!("{prefix}{i}");
    while lib.is_declared(&name) {
        name.push('\'');
    }
    name
}

fn index_of(list: &mut Vec<u32>, n: u32) -> usize {
    match list.iter().position(|&x| x == n) {
        Some(i) => i + 1,
        None => {
            list.push(n);
            list.len()
        }
    }
}

impl Names {
    fn name(&mut self, lib: &Library, name: Name) -> String {
        match name {
            Name::Method(m) => lib.methods[m as usize].name.clone(),
            Name::Import(i) => lib.imports[i as usize].name.clone(),
            Name::Undeclared(u) => lib.undeclared[u as usize].clone(),
            Name::Client(n) => fresh_name(lib, 'f', index_of(&mut self.clients, n)),
            Name::Closure(n) => fresh_name(lib, 'm', index_of(&mut self.closures, n)),
        }
    }

    fn value(
        &mut self,
        lib: &Library,
        value: &Value,
        witness: &Witness,
    ) -> (TraceValue, TraceValue) {
        match value {
            Value::Unit => (TraceValue::Unit, TraceValue::Unit),
            Value::Int(Term::Const(i)) => (TraceValue::Int(i.clone()), TraceValue::Int(i.clone())),
            Value::Int(t) => {
                let mut syms = Vec::new();
                t.symbols(&mut syms);
                for s in syms {
                    index_of(&mut self.syms, s);
                }
                let order = &self.syms;
                let text = t.render(&|n| {
                    let i = order.iter().position(|&x| x == n).map_or(0, |i| i + 1);
                    format!("x{i}")
                });
                let concrete = t.eval(witness).unwrap_or_default();
                (TraceValue::Sym(text), TraceValue::Int(concrete))
            }
            Value::Pair(p) => {
                let (a, ca) = self.value(lib, &p.0, witness);
                let (b, cb) = self.value(lib, &p.1, witness);
                (
                    TraceValue::Pair(Box::new(a), Box::new(b)),
                    TraceValue::Pair(Box::new(ca), Box::new(cb)),
                )
            }
            Value::Fun(name) => {
                let n = TraceValue::Fun(self.name(lib, *name));
                (n.clone(), n)
            }
        }
    }
}

/// Renders the moves of `trace` (top = last move) under `witness`.
pub fn render(lib: &Library, trace: &List<MoveRecord>, witness: &Witness) -> Rendered {
    let mut records: Vec<&MoveRecord> = trace.iter().collect();
    records.reverse();
    let mut names = Names::default();
    let mut moves = Vec::with_capacity(records.len());
    let mut concrete = Vec::with_capacity(records.len());
    for r in records {
        let method = names.name(lib, r.name);
        let (value, concrete_value) = names.value(lib, &r.value, witness);
        moves.push(Move {
            dir: r.dir,
            by: r.by,
            method: method.clone(),
            value,
            store: Vec::new(),
        });
        concrete.push(Move {
            dir: r.dir,
            by: r.by,
            method,
            value: concrete_value,
            store: Vec::new(),
        });
    }
    let model = names
        .syms
        .iter()
        .enumerate()
        .map(|(i, n)| {
            (
                format!("x{}", i + 1),
                witness.get(n).cloned().unwrap_or_default(),
            )
        })
        .collect();
    Rendered {
        trace: Trace(moves),
        concrete: Trace(concrete),
        model,
    }
}
