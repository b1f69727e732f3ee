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
//!
//! ML-like references (`lang/references.md` §3.4–3.5): each O-move starts a client
//! turn, after which every disclosed cell may hold a client write (read lazily, see
//! [`super::machine`]). Where the client supplies a `ref θ` it plays a fresh location
//! of its own or any disclosed one of type θ, so aliasing is found. A P-move discloses
//! the locations in its value and, closing under contents, those reachable through
//! disclosed cells; the library functions in those cells are revealed.
//!
//! Lists: where the client supplies a `t list` it plays every list of at most
//! [`Config::lists`] elements, shortest first, each element a fresh value of type `t`
//! (`lang/grammar.md`, "Lists").

use super::config::{Cell, Config, Control, GameFrame, Heap, List, MoveRecord};
use super::relevance::{Call, Relevance, Skip, Skipped};
use super::stand_in::StandIn;
use super::term::{Term, Witness};
use super::value::{Name, Value};
use crate::library::ir::{TypeId, TypeNode};
use crate::library::Library;
use crate::syntax::ast::{Span, Visibility};
use crate::trace::{
    Counterexample, Dir, FailureKind, Move, Player, StoreEntry, Trace, TraceValue, Valuation,
};
use num_bigint::BigInt;
use std::collections::BTreeMap;

/// The type a name has for the client: declared, or recorded when it was passed.
pub fn name_type(cfg: &Config, lib: &Library, name: Name) -> Option<TypeId> {
    match name {
        Name::Import(i) => Some(lib.imports[i as usize].ty),
        Name::Client(n) => cfg.clients.get(n as usize).copied(),
        Name::Method(m) => Some(lib.method_code(m).ty),
        Name::Closure(n) => cfg.closures.get(n as usize).map(|c| c.code.ty),
        Name::Undeclared(_) => None,
    }
}

/// A fresh value of type `ty` played by the client (the paper's `symval`), for a type
/// with no location the client chooses ([`crate::library::ir::Types::holds_ref`]).
fn generate(cfg: &mut Config, lib: &Library, ty: TypeId) -> Value {
    match lib.types.node(ty) {
        // Only reached through `generate_each`, which chooses locations and lengths
        // itself.
        TypeNode::Unit | TypeNode::Ref(_) => Value::Unit,
        TypeNode::List(_) => Value::Nil,
        TypeNode::Int => Value::Int(cfg.fresh_sym()),
        TypeNode::Bool => {
            // The client plays 0 or 1; a new symbol is 0 in the witness, a model still.
            let b = cfg.fresh_sym();
            let witness = std::sync::Arc::clone(&cfg.witness);
            cfg.assume(b.within(0, 1), true, witness);
            Value::Int(b)
        }
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

/// Every value of type `ty` the client may play from `cfg`, each with the configuration
/// it leads to, in the order of `lang/references.md` §3.5: where a `ref θ` is
/// supplied, first a fresh location of the client's (disclosed at once, so a later
/// component may alias it), then every disclosed location of type θ in order of
/// disclosure. Where a `t list` is supplied, every list of at most [`Config::lists`]
/// elements, shortest first. One value, as [`generate`] makes it, for a type without
/// `ref` or `list`.
pub fn generate_each<'p>(
    mut cfg: Config<'p>,
    lib: &'p Library,
    ty: TypeId,
    out: &mut dyn FnMut(Config<'p>, Value),
) {
    if !lib.types.holds_ref(ty) && !lib.types.holds_list(ty) {
        let value = generate(&mut cfg, lib, ty);
        return out(cfg, value);
    }
    match lib.types.node(ty) {
        TypeNode::List(element) => {
            let most = cfg.lists;
            lists_each(cfg, lib, element, Vec::new(), most, out)
        }
        TypeNode::Pair(a, b) => generate_each(cfg, lib, a, &mut |c, first| {
            generate_each(c, lib, b, &mut |c, second| {
                out(c, Value::pair(first.clone(), second))
            })
        }),
        TypeNode::Ref(content) => {
            let known: Vec<u32> = cfg
                .heap
                .as_deref()
                .map(|h| {
                    h.disclosed
                        .iter()
                        .copied()
                        .filter(|&n| {
                            h.cells
                                .get(n as usize)
                                .is_some_and(|c| c.ty == Some(content))
                        })
                        .collect()
                })
                .unwrap_or_default();
            let mut fresh = cfg.clone();
            let n = fresh.allocate(Cell {
                owner: Player::Client,
                ty: Some(content),
                content: None,
                written: 0,
                disclosed: true,
            });
            out(fresh, Value::Loc(n));
            for n in known {
                out(cfg.clone(), Value::Loc(n));
            }
        }
        TypeNode::Unit | TypeNode::Int | TypeNode::Bool | TypeNode::Arrow(..) => {
            let value = generate(&mut cfg, lib, ty);
            out(cfg, value)
        }
    }
}

/// Every way the client may have written the disclosed cells at its turn, each with
/// the configuration it leads to: every pending cell (in order of disclosure, then
/// those the client's writes disclose) gets a value by [`generate_each`], materialised
/// now rather than when first read. `holi equiv` writes them so: its two sides read a
/// cell at different times, and must read one write.
pub fn write_disclosed<'p>(cfg: Config<'p>, lib: &'p Library, out: &mut dyn FnMut(Config<'p>)) {
    // A cell of unknown type (ill-typed programs only) stays pending: a read of it is
    // stuck, as in `holi check`.
    let pending = cfg.heap.as_deref().and_then(|h| {
        h.disclosed.iter().find_map(|&n| {
            let ty = h.cells.get(n as usize).and_then(|c| c.ty)?;
            h.pending(n).then_some((n, ty))
        })
    });
    match pending {
        None => out(cfg),
        Some((n, ty)) => generate_each(cfg, lib, ty, &mut |mut c, value| {
            c.client_write(n, value);
            write_disclosed(c, lib, out)
        }),
    }
}

/// The list `items`, then every list that extends it by at most `more` elements of
/// type `element`, shorter lists first.
fn lists_each<'p>(
    cfg: Config<'p>,
    lib: &'p Library,
    element: TypeId,
    items: Vec<Value>,
    more: u32,
    out: &mut dyn FnMut(Config<'p>, Value),
) {
    if more == 0 {
        return out(cfg, Value::list(items.into_iter()));
    }
    out(cfg.clone(), Value::list(items.iter().cloned()));
    generate_each(cfg, lib, element, &mut |c, item| {
        let mut longer = items.clone();
        longer.push(item);
        lists_each(c, lib, element, longer, more - 1, out)
    });
}

/// The locations in `value`, in order.
fn locations(value: &Value, out: &mut Vec<u32>) {
    match value {
        Value::Loc(n) => out.push(*n),
        Value::Pair(p) | Value::Cons(p) => {
            locations(&p.0, out);
            locations(&p.1, out);
        }
        Value::Unit | Value::Int(_) | Value::Fun(_) | Value::Nil => {}
    }
}

/// A P-move's disclosure (`lang/references.md` §3.4): the locations in `value`, then,
/// closing under contents, those in the cells disclosed now and in the disclosed cells
/// the library wrote since the client's last turn; library functions in those cells
/// are revealed at the cell's type. (Other disclosed cells hold what the client wrote,
/// or what an earlier P-move disclosed already.) Returns the cells through which a
/// name first reaches the client, with their contents, in order.
fn disclose(cfg: &mut Config, lib: &Library, value: &Value) -> Vec<(u32, Value)> {
    let Some(heap) = cfg.heap.as_deref() else {
        return Vec::new();
    };
    let epoch = heap.epoch;
    let written_now: Vec<u32> = heap
        .disclosed
        .iter()
        .copied()
        .filter(|&n| {
            heap.cells
                .get(n as usize)
                .is_some_and(|c| c.written == epoch)
        })
        .collect();
    let mut queue = Vec::new();
    locations(value, &mut queue);
    queue.retain(|&n| mark_disclosed(cfg, n));
    queue.extend(written_now);
    let mut entries = Vec::new();
    let mut next = 0;
    while let Some(&n) = queue.get(next) {
        next += 1;
        let Some(cell) = cfg.heap.as_deref().and_then(|h| h.cells.get(n as usize)) else {
            continue;
        };
        let (Some(content), ty) = (cell.content.clone(), cell.ty) else {
            continue;
        };
        let revealed = cfg.revealed.len();
        reveal(cfg, lib, &content, ty);
        let mut inside = Vec::new();
        locations(&content, &mut inside);
        inside.retain(|&m| mark_disclosed(cfg, m));
        if !inside.is_empty() || cfg.revealed.len() > revealed {
            entries.push((n, content));
        }
        queue.extend(inside);
    }
    entries
}

/// Discloses the location `n`; false if it was disclosed already.
fn mark_disclosed(cfg: &mut Config, n: u32) -> bool {
    let heap = cfg.heap_mut();
    match heap.cells.get_mut(n as usize) {
        Some(cell) if !cell.disclosed => {
            cell.disclosed = true;
            heap.disclosed.push_back(n);
            true
        }
        _ => false,
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
        Value::Cons(p) => {
            let element = match ty.map(|t| lib.types.node(t)) {
                Some(TypeNode::List(a)) => Some(a),
                _ => None,
            };
            reveal(cfg, lib, &p.0, element);
            reveal(cfg, lib, &p.1, ty);
        }
        _ => {}
    }
}

/// P-call: the library applies the client-owned `name` to `arg`.
pub fn p_call(cfg: &mut Config, lib: &Library, name: Name, arg: Value, lzero: u32) {
    let ty = name_type(cfg, lib, name);
    let param = ty.and_then(|t| lib.types.arrow(t)).map(|(p, _)| p);
    reveal(cfg, lib, &arg, param);
    let store = disclose(cfg, lib, &arg);
    cfg.push_move_with_store(Dir::Call, Player::Library, name, arg, store);
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
    let store = disclose(cfg, lib, &value);
    cfg.push_move_with_store(Dir::Ret, Player::Library, name, value, store);
    cfg.l = saved_l;
    cfg.control = Control::Opponent;
    true
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
/// that every distinct failing trace is found. With `relevance`, calls that no
/// shortest failing trace makes are not made, counted in `skipped`; `best`, the
/// shortest length found per site, lets it leave out last calls that cannot shorten
/// one ([`Relevance::last_call`]).
pub fn opponent_moves<'p>(
    cfg: &Config<'p>,
    lib: &'p Library,
    symmetry: bool,
    stand_in: Option<&StandIn>,
    relevance: Option<&Relevance>,
    best: Option<&[u32]>,
    skipped: &mut Skipped,
) -> Vec<Config<'p>> {
    let mut next = Vec::new();
    if let Some(s) = stand_in {
        s.answers(cfg, &mut next);
    }
    answers(cfg, lib, &mut |c| next.push(c));
    // Without a frame left, a call of the client's ends at once at the frame limit
    // (every name it can call is the library's), so it is not made: the path it
    // would end has no failure and gets stuck nowhere.
    if cfg.l == 0 || cfg.k == 0 {
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
    // Sinks are tracked at top level only, where every call so far was atomic.
    let tracked = relevance
        .zip(cfg.sinks.as_deref())
        .filter(|_| cfg.stack.is_empty() && cfg.revealed.is_empty());
    let last = relevance.filter(|_| cfg.stack.is_empty() && cfg.l == 1);
    for (name, ty) in publics {
        let Some((param, _)) = lib.types.arrow(ty) else {
            continue;
        };
        match last.and_then(|r| r.last_call(name, cfg.moves, best)) {
            Some(Skip::Irrelevant) => {
                skipped.irrelevant += 1;
                continue;
            }
            Some(Skip::Bounded) => {
                skipped.bounded += 1;
                continue;
            }
            None => {}
        }
        let sinks = match tracked.map(|(r, sinks)| r.call(sinks, name, cfg.l)) {
            Some(Call::Irrelevant) => {
                skipped.irrelevant += 1;
                continue;
            }
            Some(Call::Tracked(sinks)) => Some(sinks),
            Some(Call::Untracked) | None => None,
        };
        let mut c = cfg.clone();
        c.sinks = sinks;
        calls(c, lib, name, param, &mut |mut c, arg| {
            if let Some(s) = stand_in.filter(|s| name == Name::Method(s.method)) {
                s.called(c, cfg.l - 1, &mut next);
                return;
            }
            enter(&mut c, name, ty, arg);
            next.push(c);
        });
    }
    next
}

/// The client's answers to the library's pending call, if any: one configuration per
/// value it may play, with the answer in the trace and the library resumed.
pub fn answers<'p>(cfg: &Config<'p>, lib: &'p Library, out: &mut dyn FnMut(Config<'p>)) {
    let Some(GameFrame::PCall { name, ty, kont }) = cfg.stack.top() else {
        return;
    };
    // An import declared with a non-function type has no result to generate.
    let Some((_, result)) = ty.and_then(|t| lib.types.arrow(t)) else {
        return;
    };
    let mut c = cfg.clone();
    c.stack.pop();
    if lib.uses_refs {
        c.client_turn();
    }
    generate_each(c, lib, result, &mut |mut c, value| {
        c.push_move(Dir::Ret, Player::Client, *name, value.clone());
        c.kont = kont.clone();
        c.control = Control::Return(value);
        out(c)
    });
}

/// The client's calls of `name` with an argument of type `param`: one configuration
/// per argument it may play, with the call in the trace but not yet made
/// ([`enter`]).
pub fn calls<'p>(
    mut cfg: Config<'p>,
    lib: &'p Library,
    name: Name,
    param: TypeId,
    out: &mut dyn FnMut(Config<'p>, Value),
) {
    if lib.uses_refs {
        cfg.client_turn();
    }
    generate_each(cfg, lib, param, &mut |mut c, arg| {
        c.push_move(Dir::Call, Player::Client, name, arg.clone());
        out(c, arg)
    });
}

/// The client's call of `name` (of type `ty`) with `arg`, recorded by [`calls`],
/// reaches the library: the call's context gets the rest of the caller's budget.
pub fn enter(cfg: &mut Config, name: Name, ty: TypeId, arg: Value) {
    cfg.stack.push(GameFrame::OCall {
        name,
        ty,
        saved_l: cfg.l - 1,
    });
    cfg.kont = List::default();
    cfg.control = Control::Apply(Value::Fun(name), arg);
}

/// A path's moves as a trace, with its names renumbered in order of first appearance:
/// client integers `x1, x2, …`, client functions `f1, …`, revealed library functions
/// `m1, …`, library locations `q1, …`, client locations `r1, …`; methods and imports
/// keep their names. A move's value is named before its store entries.
pub struct Rendered {
    pub trace: Trace,
    /// The trace with every symbolic integer replaced by its value in the witness.
    pub concrete: Trace,
    pub model: BTreeMap<String, BigInt>,
    /// Every location named, with the type of what it holds (when known).
    pub locations: Vec<(String, crate::syntax::ast::Type)>,
    /// The symbols the trace names `x1, x2, …`, in that order.
    pub symbols: Vec<u32>,
    /// The term behind each integer of `concrete`, in order (moves, each value before
    /// its store entries, pairs left first); `None` for a constant.
    pub slots: Vec<Option<Term>>,
}

impl Rendered {
    /// The counterexample of a trace failing by `kind` at `span`, with the failing
    /// path `valuation` to choose its values from once the search is over.
    pub fn failure(
        self,
        kind: FailureKind,
        span: Span,
        valuation: Option<Valuation>,
    ) -> Counterexample {
        Counterexample {
            kind,
            span,
            trace: self.trace,
            concrete: self.concrete,
            model: self.model,
            locations: self.locations,
            valuation,
        }
    }
}

#[derive(Default)]
struct Names<'h> {
    syms: Vec<u32>,
    clients: Vec<u32>,
    closures: Vec<u32>,
    /// The path's cells, to tell whose a location is.
    heap: Option<&'h Heap>,
    library_locations: Vec<u32>,
    client_locations: Vec<u32>,
    /// Locations in order of first appearance, over both owners.
    locations_seen: Vec<u32>,
    /// See [`Rendered::slots`].
    slots: Vec<Option<Term>>,
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

impl Names<'_> {
    fn first_seen(&self, n: u32) -> usize {
        self.locations_seen
            .iter()
            .position(|&m| m == n)
            .unwrap_or(usize::MAX)
    }

    fn location(&mut self, lib: &Library, n: u32) -> String {
        index_of(&mut self.locations_seen, n);
        let owner = self
            .heap
            .and_then(|h| h.cells.get(n as usize))
            .map_or(Player::Library, |c| c.owner);
        match owner {
            Player::Library => fresh_name(lib, 'q', index_of(&mut self.library_locations, n)),
            Player::Client => fresh_name(lib, 'r', index_of(&mut self.client_locations, n)),
        }
    }

    /// The store entries of a move, symbolic and concrete.
    fn entries(
        &mut self,
        lib: &Library,
        entries: &[(u32, Value)],
        witness: &Witness,
    ) -> (Vec<StoreEntry>, Vec<StoreEntry>) {
        entries
            .iter()
            .map(|(n, v)| {
                let cell = self.location(lib, *n);
                let (value, concrete) = self.value(lib, v, witness);
                (
                    StoreEntry {
                        cell: cell.clone(),
                        value,
                    },
                    StoreEntry {
                        cell,
                        value: concrete,
                    },
                )
            })
            .unzip()
    }

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
            Value::Int(Term::Const(i)) => {
                self.slots.push(None);
                (TraceValue::Int(i.clone()), TraceValue::Int(i.clone()))
            }
            Value::Int(t) => {
                self.slots.push(Some(t.clone()));
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
            Value::Nil | Value::Cons(_) => {
                let (mut items, mut concrete) = (Vec::new(), Vec::new());
                let mut rest = value;
                while let Value::Cons(cell) = rest {
                    let (item, c) = self.value(lib, &cell.0, witness);
                    items.push(item);
                    concrete.push(c);
                    rest = &cell.1;
                }
                (TraceValue::List(items), TraceValue::List(concrete))
            }
            Value::Fun(name) => {
                let n = TraceValue::Fun(self.name(lib, *name));
                (n.clone(), n)
            }
            Value::Loc(n) => {
                let n = TraceValue::Ref(self.location(lib, *n));
                (n.clone(), n)
            }
        }
    }
}

/// Renders the moves of `cfg`'s trace under `witness`, with the client's writes at
/// the turns that made them.
pub fn render(lib: &Library, cfg: &Config, witness: &Witness) -> Rendered {
    let mut records: Vec<&MoveRecord> = cfg.trace.iter().collect();
    records.reverse();
    let heap = cfg.heap.as_deref();
    let mut writes: BTreeMap<u32, Vec<(u32, Value)>> = BTreeMap::new();
    if let Some(heap) = heap {
        let mut all: Vec<_> = heap.writes.iter().collect();
        all.reverse();
        for w in all {
            writes
                .entry(w.turn)
                .or_default()
                .push((w.loc, w.value.clone()));
        }
    }
    let mut names = Names {
        heap,
        ..Names::default()
    };
    let mut moves = Vec::with_capacity(records.len());
    let mut concrete = Vec::with_capacity(records.len());
    for (i, r) in records.into_iter().enumerate() {
        let method = names.name(lib, r.name);
        let (value, concrete_value) = names.value(lib, &r.value, witness);
        let entries = match r.by {
            Player::Client => writes.get(&(i as u32)).map_or(&[][..], Vec::as_slice),
            Player::Library => &r.store,
        };
        let (store, concrete_store) = names.entries(lib, entries, witness);
        moves.push(Move {
            dir: r.dir,
            by: r.by,
            method: method.clone(),
            value,
            store,
        });
        concrete.push(Move {
            dir: r.dir,
            by: r.by,
            method,
            value: concrete_value,
            store: concrete_store,
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
    let cell_type = |n: &u32| {
        heap.and_then(|h| h.cells.get(*n as usize))
            .and_then(|c| c.ty)
            .map(|t| lib.types.to_ast(t))
    };
    let mut locations: Vec<(usize, String, crate::syntax::ast::Type)> = Vec::new();
    for (owner, list) in [
        (Player::Library, &names.library_locations),
        (Player::Client, &names.client_locations),
    ] {
        for (i, n) in list.iter().enumerate() {
            let prefix = if owner == Player::Library { 'q' } else { 'r' };
            if let Some(ty) = cell_type(n) {
                locations.push((names.first_seen(*n), fresh_name(lib, prefix, i + 1), ty));
            }
        }
    }
    locations.sort_by_key(|(first, _, _)| *first);
    Rendered {
        trace: Trace(moves),
        concrete: Trace(concrete),
        model,
        locations: locations.into_iter().map(|(_, n, t)| (n, t)).collect(),
        symbols: names.syms,
        slots: names.slots,
    }
}
