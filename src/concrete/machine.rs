//! The environment/continuation machine that runs HOLi concretely (paper Figure 2).
//!
//! Substitution in the paper becomes an environment here; evaluation boxes become
//! [`Kont::Call`] frames on an explicit continuation stack, so a deep recursion in the
//! program grows a `Vec`, never the Rust stack, and hits the depth limit instead of
//! overflowing. Every function value is a name in the repository ([`FunId`]): methods are
//! entered at load time, and each evaluation of a `fun` or `letrec` enters a fresh one.
//! Each repository name is owned by the side (library or client) whose code created it;
//! an application that crosses sides is a boundary move (paper Figure 3) and is recorded
//! in the same notation `holi check` prints.
//!
//! Names are resolved lazily through [`ProgramIndex`]es built once, so starting a run
//! costs nothing per declaration: replay starts one run per counterexample, and a
//! library with thousands of methods would otherwise be copied into every run.
//!
//! Besides steps and depth, a run is bounded by an estimate of its memory (stack,
//! environments, closures, store, heap and integers, see [`Machine::footprint`]), a
//! deadline and an interrupt flag; these are checked every [`CHECK_EVERY`] steps, and an
//! arithmetic result is checked before it is computed.
//!
//! ML-like references (`lang/references.md` §2): `ref v` allocates a heap cell owned by
//! the side whose code runs, `!ℓ` and `ℓ := v` go to the shared heap whoever owns ℓ, and
//! `==` on two locations compares their identity. For traces the machine tracks which
//! locations the other side may know (*disclosed*: reachable from a move's value, closed
//! under cell contents), names them `q1, …` (library) and `r1, …` (client) in order of
//! first appearance, and gives each move the store entries the symbolic engine prints
//! and a snapshot of every disclosed cell (what replay compares). A run without
//! locations skips all of it and records empty entries and snapshots.

use super::index::ProgramIndex;
use crate::ops;
use crate::syntax::ast::{
    BinOp, Decl, Expr, ExprKind, Function, Ident, ListOp, Program, Span, Static, Visibility,
};
use crate::trace::{Dir, FailureKind, Move, Player, StoreEntry, TraceValue};
use num_bigint::BigInt;
use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::mem::size_of;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Which program a piece of code, a name or a location belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    Library,
    Client,
}

impl Side {
    pub fn player(self) -> Player {
        match self {
            Side::Library => Player::Library,
            Side::Client => Player::Client,
        }
    }
}

/// An index into the machine's repository of function names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FunId(usize);

/// An index into the machine's heap of cells: a location.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LocId(usize);

/// A runtime value. Functions are repository names and locations heap cells, as in the
/// paper.
#[derive(Clone, Debug)]
pub enum Value {
    Unit,
    Int(BigInt),
    Pair(Rc<(Value, Value)>),
    Nil,
    Cons(ConsCell),
    Fun(FunId),
    Loc(LocId),
}

/// A list cell: the head and the tail. A long list is freed cell by cell, not by a
/// recursion as deep as the list.
#[derive(Clone, Debug)]
pub struct ConsCell(Rc<(Value, Value)>);

impl ConsCell {
    pub fn new(head: Value, tail: Value) -> ConsCell {
        ConsCell(Rc::new((head, tail)))
    }

    pub fn head(&self) -> &Value {
        &self.0 .0
    }

    pub fn tail(&self) -> &Value {
        &self.0 .1
    }
}

impl Drop for ConsCell {
    fn drop(&mut self) {
        let Some(cell) = Rc::get_mut(&mut self.0) else {
            return;
        };
        let mut tail = std::mem::replace(&mut cell.1, Value::Unit);
        // Each cell this one owned alone is unlinked before it is freed, so freeing it
        // recurses no further.
        while let Value::Cons(mut next) = tail {
            tail = match Rc::get_mut(&mut next.0) {
                Some(cell) => std::mem::replace(&mut cell.1, Value::Unit),
                None => break,
            };
        }
    }
}

impl Value {
    /// The elements of a list, in order, or `None` when this is not a list.
    pub fn list_items(&self) -> Option<Vec<&Value>> {
        let mut items = Vec::new();
        let mut rest = self;
        loop {
            match rest {
                Value::Nil => return Some(items),
                Value::Cons(cell) => {
                    items.push(cell.head());
                    rest = cell.tail();
                }
                _ => return None,
            }
        }
    }
}

/// A heap cell: whose code allocated it (which decides its trace name) and its content.
struct HeapCell {
    owner: Side,
    value: Value,
}

/// The default bound on a run's estimated memory: 1 GiB.
pub const DEFAULT_MAX_MEMORY: usize = 1 << 30;

/// How many steps pass between two checks of the clock, the interrupt flag and the
/// memory estimate: often enough to stop within microseconds, rarely enough to cost
/// nothing measurable.
pub const CHECK_EVERY: u64 = 1024;

/// Limits that turn a non-terminating or runaway run into an inconclusive answer.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Machine transitions before giving up.
    pub max_steps: u64,
    /// Open function calls (evaluation boxes) before giving up.
    pub max_depth: usize,
    /// Bytes the run may hold, as estimated by [`Machine::footprint`].
    pub max_memory: usize,
    /// Give up at this instant (`holi check --timeout`, `holi run --timeout`).
    pub deadline: Option<Instant>,
    /// Give up once this flag is set (by the Ctrl-C handler).
    pub interrupt: Option<Arc<AtomicBool>>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_steps: 10_000_000,
            max_depth: 100_000,
            max_memory: DEFAULT_MAX_MEMORY,
            deadline: None,
            interrupt: None,
        }
    }
}

impl Limits {
    /// Whether the run must stop now for a reason outside the program: the interrupt
    /// flag is set or the deadline has passed.
    pub fn cutoff(&self) -> Option<Cutoff> {
        if self
            .interrupt
            .as_ref()
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
        {
            Some(Cutoff::Interrupted)
        } else if self.deadline.is_some_and(|d| Instant::now() >= d) {
            Some(Cutoff::TimeLimit)
        } else {
            None
        }
    }
}

/// A reason to stop that says nothing about the program: time ran out, or the user
/// pressed Ctrl-C.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cutoff {
    TimeLimit,
    Interrupted,
}

impl fmt::Display for Cutoff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Cutoff::TimeLimit => "time limit",
            Cutoff::Interrupted => "interrupted",
        })
    }
}

/// Where a run failed: an `assert` of 0 or a division by zero.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub kind: FailureKind,
    pub span: Span,
    pub side: Side,
}

/// Why a run stopped without an answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The machine cannot take a step (applying a non-function, an undeclared name, …).
    Stuck {
        reason: String,
        span: Span,
        side: Side,
    },
    /// The evaluation reached `_bot_` at `span`: it never ends.
    Diverged {
        span: Span,
        side: Side,
    },
    StepLimit(u64),
    DepthLimit(usize),
    /// The estimated footprint would exceed `limit` bytes; `span` is what was being
    /// evaluated.
    MemoryLimit {
        limit: usize,
        span: Span,
        side: Side,
    },
    Cutoff(Cutoff),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// `main` evaluated to this value.
    Finished(TraceValue),
    Failed(Failure),
    Stopped(Stop),
}

/// Everything a run produced.
#[derive(Clone, Debug)]
pub struct RunResult {
    pub outcome: Outcome,
    /// The boundary moves between library and client, in order.
    pub moves: Vec<Move>,
    /// Parallel to `moves`: every disclosed cell with its content at that move, in order
    /// of disclosure (empty when no location was disclosed).
    pub snapshots: Vec<Vec<StoreEntry>>,
    pub steps: u64,
    /// The largest number of simultaneously open library frames (HOLiK's `k` measure).
    pub max_library_depth: usize,
}

/// The code the machine runs: an optional library and the client whose `main` is run.
/// Names resolve per side: a side's code sees its own declarations, and its imports
/// resolve to the other side's public methods (paper Definition 3).
#[derive(Clone, Copy, Debug)]
pub struct Linked<'p> {
    pub library: Option<&'p Program>,
    pub client: &'p Program,
}

type Env<'p> = Option<Rc<EnvNode<'p>>>;

struct EnvNode<'p> {
    name: &'p str,
    value: Value,
    next: Env<'p>,
}

thread_local! {
    /// Bytes held by the live environment nodes of this thread. Nodes are shared by
    /// frames and closures and freed when the last one goes, so only their own `Drop`
    /// knows when to take them off.
    static ENV_BYTES: Cell<usize> = const { Cell::new(0) };
}

fn env_bytes() -> usize {
    ENV_BYTES.with(Cell::get)
}

fn node_bytes(value: &Value) -> usize {
    // The node plus the `Rc`'s two counts.
    size_of::<EnvNode<'_>>() + 2 * size_of::<usize>() + heap_bytes(value)
}

impl Drop for EnvNode<'_> {
    fn drop(&mut self) {
        let bytes = node_bytes(&self.value);
        ENV_BYTES.with(|b| b.set(b.get().saturating_sub(bytes)));
    }
}

/// The heap a value holds beyond its own size: integer digits, pair and list cells
/// (a cell shared by several values counts for each).
fn heap_bytes(value: &Value) -> usize {
    let cell = size_of::<(Value, Value)>() + 2 * size_of::<usize>();
    match value {
        Value::Unit | Value::Nil | Value::Fun(_) | Value::Loc(_) => 0,
        Value::Int(i) => int_bytes(i.bits()),
        Value::Pair(p) => cell + heap_bytes(&p.0) + heap_bytes(&p.1),
        Value::Cons(_) => {
            let mut bytes = 0usize;
            let mut rest = value;
            while let Value::Cons(c) = rest {
                bytes = bytes.saturating_add(cell + heap_bytes(c.head()));
                rest = c.tail();
            }
            bytes
        }
    }
}

/// The digits of an integer of `bits` bits.
fn int_bytes(bits: u64) -> usize {
    usize::try_from(bits.div_ceil(64).saturating_mul(8)).unwrap_or(usize::MAX)
}

/// Appends the locations in `value` to `out`, left to right.
fn locations(value: &Value, out: &mut Vec<LocId>) {
    match value {
        Value::Loc(l) => out.push(*l),
        Value::Pair(p) => {
            locations(&p.0, out);
            locations(&p.1, out);
        }
        Value::Cons(_) => {
            let mut rest = value;
            while let Value::Cons(c) = rest {
                locations(c.head(), out);
                rest = c.tail();
            }
        }
        Value::Unit | Value::Int(_) | Value::Fun(_) | Value::Nil => {}
    }
}

/// An upper bound on the bits of `a op b`, known before computing it.
fn result_bits(op: BinOp, a: &BigInt, b: &BigInt) -> u64 {
    match op {
        BinOp::Mul => a.bits().saturating_add(b.bits()),
        BinOp::Add | BinOp::Sub => a.bits().max(b.bits()).saturating_add(1),
        BinOp::Div => a.bits(),
        // No larger than the divisor.
        BinOp::Mod => b.bits(),
        _ => 1,
    }
}

fn lookup<'p>(env: &Env<'p>, name: &str) -> Option<Value> {
    let mut cur = env.as_ref();
    while let Some(node) = cur {
        if node.name == name {
            return Some(node.value.clone());
        }
        cur = node.next.as_ref();
    }
    None
}

fn bind<'p>(env: &Env<'p>, name: &'p str, value: Value) -> Env<'p> {
    let bytes = node_bytes(&value);
    ENV_BYTES.with(|b| b.set(b.get().saturating_add(bytes)));
    Some(Rc::new(EnvNode {
        name,
        value,
        next: env.clone(),
    }))
}

enum Body<'p> {
    Code {
        func: &'p Function,
        env: Env<'p>,
        /// A `letrec` function sees itself under this name.
        rec_name: Option<&'p str>,
    },
    /// A name with no definition (an unimplemented import, an undeclared method):
    /// applying it leaves the machine stuck, as in HOLiK.
    Missing(String),
}

struct FunEntry<'p> {
    owner: Side,
    /// The declared name of a method; `None` for lambdas and `letrec` functions.
    name: Option<String>,
    body: Body<'p>,
}

enum Control<'p> {
    Eval(&'p Expr, Env<'p>),
    Return(Value),
}

enum Kont<'p> {
    AppFun {
        arg: &'p Expr,
        env: Env<'p>,
        span: &'p Span,
    },
    AppArg {
        fun: Value,
        span: &'p Span,
    },
    PairLeft {
        right: &'p Expr,
        env: Env<'p>,
    },
    PairRight {
        left: Value,
    },
    ConsHead {
        tail: &'p Expr,
        env: Env<'p>,
    },
    ConsTail {
        head: Value,
    },
    Match {
        nil: &'p Expr,
        head: &'p str,
        tail: &'p str,
        cons: &'p Expr,
        env: Env<'p>,
        span: &'p Span,
    },
    Fst(&'p Span),
    Snd(&'p Span),
    Not(&'p Span),
    BinLeft {
        op: BinOp,
        right: &'p Expr,
        env: Env<'p>,
        span: &'p Span,
    },
    BinRight {
        op: BinOp,
        left: Value,
        span: &'p Span,
    },
    Seq {
        right: &'p Expr,
        env: Env<'p>,
    },
    If {
        then_branch: &'p Expr,
        else_branch: &'p Expr,
        env: Env<'p>,
        span: &'p Span,
    },
    Let {
        name: &'p str,
        body: &'p Expr,
        env: Env<'p>,
    },
    Assign(&'p Ident),
    /// `ref e`: allocate a cell for the value of `e`.
    Alloc,
    /// `!e`: read the cell `e` evaluates to.
    Load(&'p Span),
    /// `e1 := e2`, `e1` being evaluated: `e2` comes next.
    StoreTarget {
        value: &'p Expr,
        env: Env<'p>,
        span: &'p Span,
    },
    /// `ℓ := e2`, `e2` being evaluated.
    StoreWrite {
        target: Value,
        span: &'p Span,
    },
    Assert(&'p Span),
    /// `List.hd e`, `List.tl e` or `List.isnil e`, `e` being evaluated.
    ListOp(ListOp, &'p Span),
    /// An evaluation box: the callee's body is running. `boundary` records whether the
    /// call crossed from one side to the other, so the return is a move too.
    Call {
        callee: FunId,
        caller: Side,
        boundary: bool,
    },
}

/// The concrete machine: repository, store, continuation stack and move log.
pub struct Machine<'p> {
    library: Option<&'p ProgramIndex<'p>>,
    client: &'p ProgramIndex<'p>,
    repo: Vec<FunEntry<'p>>,
    /// Declared names resolved so far, per side of the code that named them.
    globals: HashMap<(Side, &'p str), FunId>,
    missing: HashMap<(Side, String), FunId>,
    /// References assigned so far; the others still hold their declared value.
    store: HashMap<&'p str, Value>,
    stack: Vec<Kont<'p>>,
    owner: Side,
    depth: usize,
    library_depth: usize,
    max_library_depth: usize,
    labels: HashMap<FunId, String>,
    /// Labels handed out, so that none is given twice.
    taken_labels: HashSet<String>,
    next_label: [usize; 2],
    moves: Vec<Move>,
    snapshots: Vec<Vec<StoreEntry>>,
    /// Cells by location; never freed (a run is short).
    heap: Vec<HeapCell>,
    /// The locations the other side of their owner may know, as a set and in order of
    /// disclosure.
    disclosed: HashSet<LocId>,
    disclosure_order: Vec<LocId>,
    /// Cells allocated or written since the last move, in order, by the side whose code
    /// ran in between: the side that makes the next move.
    written: Vec<LocId>,
    written_set: HashSet<LocId>,
    /// Library functions (other than public methods) that reached the client.
    revealed: HashSet<FunId>,
    /// Trace names of locations, and the locations named so far in order.
    location_labels: HashMap<LocId, String>,
    labelled_locations: Vec<LocId>,
    next_location_label: [usize; 2],
    limits: Limits,
    /// The expression evaluated last, where a memory stop is reported.
    at: &'p Span,
    /// [`ENV_BYTES`] when the run started: the nodes of other machines are not ours.
    env_base: usize,
    store_bytes: usize,
    /// The contents of the heap's cells beyond their own size.
    heap_bytes: usize,
    moves_bytes: usize,
}

/// Where a failure that is not the program's fault is reported: the start of the file.
static NOWHERE: Span = 0..0;

impl<'p> Machine<'p> {
    /// A machine for the client of `client`, linked with `library` (paper Figure 2,
    /// bottom). Names are entered into the repository when first used.
    pub fn new(
        library: Option<&'p ProgramIndex<'p>>,
        client: &'p ProgramIndex<'p>,
        limits: Limits,
    ) -> Machine<'p> {
        Machine {
            library,
            client,
            repo: Vec::new(),
            globals: HashMap::new(),
            missing: HashMap::new(),
            store: HashMap::new(),
            stack: Vec::new(),
            owner: Side::Client,
            depth: 0,
            library_depth: 0,
            max_library_depth: 0,
            labels: HashMap::new(),
            taken_labels: HashSet::new(),
            next_label: [0, 0],
            moves: Vec::new(),
            snapshots: Vec::new(),
            heap: Vec::new(),
            disclosed: HashSet::new(),
            disclosure_order: Vec::new(),
            written: Vec::new(),
            written_set: HashSet::new(),
            revealed: HashSet::new(),
            location_labels: HashMap::new(),
            labelled_locations: Vec::new(),
            next_location_label: [0, 0],
            limits,
            at: &NOWHERE,
            env_base: env_bytes(),
            store_bytes: 0,
            heap_bytes: 0,
            moves_bytes: 0,
        }
    }

    fn index(&self, side: Side) -> Option<&'p ProgramIndex<'p>> {
        match side {
            Side::Library => self.library,
            Side::Client => Some(self.client),
        }
    }

    fn missing_name(&mut self, owner: Side, name: &str) -> FunId {
        if let Some(id) = self.missing.get(&(owner, name.to_string())) {
            return *id;
        }
        let id = FunId(self.repo.len());
        self.repo.push(FunEntry {
            owner,
            name: Some(name.to_string()),
            body: Body::Missing(name.to_string()),
        });
        self.missing.insert((owner, name.to_string()), id);
        id
    }

    /// The function a global name denotes in `side`'s code: its own method, else the
    /// other side's public method it imports (a name no one defines is missing).
    fn resolve_global(&mut self, side: Side, name: &'p str) -> FunId {
        if let Some(id) = self.globals.get(&(side, name)) {
            return *id;
        }
        let index = self.index(side);
        let id = if let Some(method) = index.and_then(|i| i.method(name)) {
            let id = FunId(self.repo.len());
            self.repo.push(FunEntry {
                owner: side,
                name: Some(method.name.name.clone()),
                body: Body::Code {
                    func: &method.func,
                    env: None,
                    rec_name: None,
                },
            });
            id
        } else if index.and_then(|i| i.import(name)).is_some() {
            let other = match side {
                Side::Library => Side::Client,
                Side::Client => Side::Library,
            };
            if self
                .index(other)
                .and_then(|i| i.public_method(name))
                .is_some()
            {
                self.resolve_global(other, name)
            } else {
                self.missing_name(other, name)
            }
        } else {
            self.missing_name(side, name)
        };
        self.globals.insert((side, name), id);
        id
    }

    /// The current value of reference `name`: the last one assigned, else the declared
    /// one (the client's declaration wins, as both sides' stores are one); otherwise why
    /// the read is stuck. A `ref` declaration allocates its cells on this first read.
    fn read(&mut self, name: &'p str) -> Result<Value, String> {
        if let Some(v) = self.store.get(name) {
            return Ok(v.clone());
        }
        let not_declared = || format!("reference `{name}` is not declared");
        let (side, decl) = [Side::Client, Side::Library]
            .into_iter()
            .find_map(|side| Some((side, self.index(side)?.reference(name)?)))
            .ok_or_else(not_declared)?;
        match decl {
            Decl::IntRef { init, .. } => Ok(Value::Int(init.clone())),
            Decl::FunRef { target, .. } => Ok(Value::Fun(self.resolve_global(side, &target.name))),
            Decl::RefDecl { init, .. } => {
                let value = self.initial(side, init);
                self.write(name, value.clone());
                Ok(value)
            }
            Decl::Method(_) => Err(not_declared()),
        }
    }

    /// The value of a `ref` declaration's initialiser in `side`'s code: its cells are
    /// `side`'s, and not writes of a turn (nobody else can know them yet).
    fn initial(&mut self, side: Side, init: &'p Static) -> Value {
        match init {
            Static::Ref(content) => {
                let value = self.initial(side, content);
                Value::Loc(self.new_cell(side, value))
            }
            Static::Int(i) => Value::Int(i.clone()),
            Static::Unit => Value::Unit,
            Static::Nil => Value::Nil,
            Static::Name(m) => Value::Fun(self.resolve_global(side, &m.name)),
            Static::Pair(a, b) => {
                let a = self.initial(side, a);
                let b = self.initial(side, b);
                Value::Pair(Rc::new((a, b)))
            }
        }
    }

    fn new_cell(&mut self, owner: Side, value: Value) -> LocId {
        self.heap_bytes = self.heap_bytes.saturating_add(heap_bytes(&value));
        self.heap.push(HeapCell { owner, value });
        LocId(self.heap.len() - 1)
    }

    /// `ref value` in the running code.
    fn allocate(&mut self, value: Value) -> LocId {
        let l = self.new_cell(self.owner, value);
        self.note_write(l);
        l
    }

    fn note_write(&mut self, l: LocId) {
        if self.written_set.insert(l) {
            self.written.push(l);
        }
    }

    /// `!target`.
    fn load(&self, target: Value, span: &Span) -> Result<Control<'p>, Outcome> {
        match target {
            Value::Loc(l) => Ok(Control::Return(self.heap[l.0].value.clone())),
            other => Err(self.stuck(
                format!("reading through {}, not a reference", self.describe(&other)),
                span,
            )),
        }
    }

    /// `target := value`.
    fn store_into(
        &mut self,
        target: Value,
        value: Value,
        span: &Span,
    ) -> Result<Control<'p>, Outcome> {
        let Value::Loc(l) = target else {
            return Err(self.stuck(
                format!(
                    "assigning through {}, not a reference",
                    self.describe(&target)
                ),
                span,
            ));
        };
        let added = heap_bytes(&value);
        let old = std::mem::replace(&mut self.heap[l.0].value, value);
        self.heap_bytes = self
            .heap_bytes
            .saturating_sub(heap_bytes(&old))
            .saturating_add(added);
        self.note_write(l);
        Ok(Control::Return(Value::Unit))
    }

    fn write(&mut self, name: &'p str, value: Value) {
        let added = heap_bytes(&value);
        match self.store.insert(name, value) {
            Some(old) => self.store_bytes = self.store_bytes.saturating_sub(heap_bytes(&old)),
            None => self.store_bytes += size_of::<(&str, Value)>(),
        }
        self.store_bytes = self.store_bytes.saturating_add(added);
    }

    /// Records the move by `by` (whose code just ran) of `value` to or from `callee`,
    /// with its store entries and the snapshot of the disclosed cells.
    fn record(&mut self, dir: Dir, by: Side, callee: FunId, value: &Value) {
        let method = self.label(callee);
        let value_seen = self.trace_value(value);
        let store = self.store_entries(by, value);
        let snapshot: Vec<StoreEntry> = self
            .disclosure_order
            .clone()
            .into_iter()
            .map(|l| self.entry(l))
            .collect();
        self.moves_bytes = self.moves_bytes.saturating_add(
            size_of::<Move>()
                + method.len()
                + (store.len() + snapshot.len()) * size_of::<StoreEntry>(),
        );
        self.moves.push(Move {
            dir,
            by: by.player(),
            method,
            value: value_seen,
            store,
        });
        self.snapshots.push(snapshot);
    }

    fn entry(&mut self, l: LocId) -> StoreEntry {
        let cell = self.location_label(l);
        let content = self.heap[l.0].value.clone();
        StoreEntry {
            cell,
            value: self.trace_value(&content),
        }
    }

    /// The boundary bookkeeping of a move by `by` carrying `value` (`lang/references.md`
    /// §2, §3.4): discloses the locations in `value` and, closing under contents, those
    /// reachable from the cells disclosed now and from the disclosed cells written since
    /// the last move (other disclosed cells were closed at earlier moves). Returns the
    /// move's entries. At a library move: the cells through which a name first reaches
    /// the client (a location disclosed or a library function revealed by the content),
    /// in order of the closure. At a client move: the disclosed cells the client wrote
    /// during its turn and the client's cells disclosed now, with their contents, in
    /// order of first appearance.
    fn store_entries(&mut self, by: Side, value: &Value) -> Vec<StoreEntry> {
        if self.heap.is_empty() {
            return Vec::new();
        }
        let written = std::mem::take(&mut self.written);
        self.written_set.clear();
        let mut queue: Vec<LocId> = written
            .iter()
            .copied()
            .filter(|l| self.disclosed.contains(l))
            .collect();
        if by == Side::Library {
            self.reveal(value);
        }
        let mut fresh = Vec::new();
        locations(value, &mut fresh);
        fresh.retain(|&l| self.disclose(l));
        let mut newly = fresh.clone();
        queue.splice(0..0, fresh);
        let mut through = Vec::new();
        let mut next = 0;
        while let Some(&l) = queue.get(next) {
            next += 1;
            let content = self.heap[l.0].value.clone();
            let revealed = by == Side::Library && self.reveal(&content);
            let mut inside = Vec::new();
            locations(&content, &mut inside);
            inside.retain(|&m| self.disclose(m));
            if by == Side::Library && (revealed || !inside.is_empty()) {
                through.push(l);
            }
            newly.extend(inside.iter().copied());
            queue.extend(inside);
        }
        match by {
            Side::Library => through.into_iter().map(|l| self.entry(l)).collect(),
            Side::Client => {
                let mut cells: Vec<LocId> = Vec::new();
                let written = written.into_iter().filter(|l| self.disclosed.contains(l));
                let created = newly
                    .into_iter()
                    .filter(|l| self.heap[l.0].owner == Side::Client);
                for l in written.chain(created) {
                    if !cells.contains(&l) {
                        cells.push(l);
                    }
                }
                self.client_entries(cells)
            }
        }
    }

    /// The entries of a client move for `cells`, in order of their first appearance: a
    /// cell named already by then comes first, and naming an entry's content may name
    /// the next (a cell the client made and disclosed only through another cell).
    fn client_entries(&mut self, mut cells: Vec<LocId>) -> Vec<StoreEntry> {
        let mut entries = Vec::with_capacity(cells.len());
        while !cells.is_empty() {
            let first_named = cells
                .iter()
                .enumerate()
                .filter_map(|(i, l)| {
                    let seen = self.labelled_locations.iter().position(|m| m == l)?;
                    Some((seen, i))
                })
                .min();
            // Every disclosed cell is reachable from a printed name; the fallback keeps
            // the order of `cells` should one not be.
            let i = first_named.map_or(0, |(_, i)| i);
            let l = cells.remove(i);
            entries.push(self.entry(l));
        }
        entries
    }

    /// Discloses `l`; false if it was disclosed already.
    fn disclose(&mut self, l: LocId) -> bool {
        if self.disclosed.insert(l) {
            self.disclosure_order.push(l);
            true
        } else {
            false
        }
    }

    /// Marks the library functions in `value` as known to the client; whether one was
    /// new. Public methods are known from the start.
    fn reveal(&mut self, value: &Value) -> bool {
        match value {
            Value::Fun(id) => {
                let entry = &self.repo[id.0];
                let public = matches!(
                    (&entry.body, entry.name.as_deref()),
                    (Body::Code { .. }, Some(name))
                        if self.library.and_then(|i| i.method(name))
                            .is_some_and(|m| m.visibility == Visibility::Public)
                );
                entry.owner == Side::Library && !public && self.revealed.insert(*id)
            }
            Value::Pair(p) => {
                let a = self.reveal(&p.0);
                let b = self.reveal(&p.1);
                a || b
            }
            Value::Cons(_) => {
                let mut revealed = false;
                let mut rest = value;
                while let Value::Cons(c) = rest {
                    revealed |= self.reveal(c.head());
                    rest = c.tail();
                }
                revealed
            }
            Value::Unit | Value::Int(_) | Value::Loc(_) | Value::Nil => false,
        }
    }

    /// The estimated bytes this run holds: continuation stack, repository, environments,
    /// assigned references, heap and the move log (allocator overhead aside).
    pub fn footprint(&self) -> usize {
        (self.stack.capacity() * size_of::<Kont<'_>>())
            .saturating_add(self.repo.capacity() * size_of::<FunEntry<'_>>())
            .saturating_add(env_bytes().saturating_sub(self.env_base))
            .saturating_add(self.store_bytes)
            .saturating_add(self.heap.capacity() * size_of::<HeapCell>())
            .saturating_add(self.heap_bytes)
            .saturating_add(self.moves_bytes)
    }

    fn memory_stop(&self) -> Outcome {
        Outcome::Stopped(Stop::MemoryLimit {
            limit: self.limits.max_memory,
            span: self.at.clone(),
            side: self.owner,
        })
    }

    /// The periodic check: time, interrupt and memory.
    fn check_limits(&self) -> Option<Outcome> {
        if let Some(cutoff) = self.limits.cutoff() {
            return Some(Outcome::Stopped(Stop::Cutoff(cutoff)));
        }
        (self.footprint() > self.limits.max_memory).then(|| self.memory_stop())
    }

    /// Runs `main` of the client to the end, a failure or a limit. `on_move` sees each
    /// boundary move as it happens.
    pub fn run(mut self, main: &'p Expr, on_move: &mut dyn FnMut(&Move)) -> RunResult {
        let mut control = Control::Eval(main, None);
        self.at = &main.span;
        let mut steps: u64 = 0;
        let outcome = loop {
            if steps >= self.limits.max_steps {
                break Outcome::Stopped(Stop::StepLimit(self.limits.max_steps));
            }
            if steps.is_multiple_of(CHECK_EVERY) {
                if let Some(stop) = self.check_limits() {
                    break stop;
                }
            }
            steps += 1;
            let logged = self.moves.len();
            let next = match control {
                Control::Eval(expr, env) => {
                    self.at = &expr.span;
                    self.eval(expr, env)
                }
                Control::Return(value) => match self.stack.pop() {
                    None => break Outcome::Finished(self.trace_value(&value)),
                    Some(kont) => self.continue_with(kont, value),
                },
            };
            for mv in &self.moves[logged..] {
                on_move(mv);
            }
            match next {
                Ok(c) => control = c,
                Err(end) => break end,
            }
        };
        RunResult {
            outcome,
            moves: self.moves,
            snapshots: self.snapshots,
            steps,
            max_library_depth: self.max_library_depth,
        }
    }

    fn stuck(&self, reason: impl Into<String>, span: &Span) -> Outcome {
        Outcome::Stopped(Stop::Stuck {
            reason: reason.into(),
            span: span.clone(),
            side: self.owner,
        })
    }

    fn eval(&mut self, expr: &'p Expr, env: Env<'p>) -> Result<Control<'p>, Outcome> {
        use ExprKind::*;
        Ok(match &expr.kind {
            Var(name) => match lookup(&env, name) {
                Some(v) => Control::Return(v),
                None => Control::Return(Value::Fun(self.resolve_global(self.owner, name))),
            },
            Int(i) => Control::Return(Value::Int(i.clone())),
            Unit => Control::Return(Value::Unit),
            // The evaluation never ends: said at once rather than by a limit.
            Diverge => {
                return Err(Outcome::Stopped(Stop::Diverged {
                    span: expr.span.clone(),
                    side: self.owner,
                }))
            }
            Deref(r) if self.through_local(expr) => {
                let target = self.local(&env, r)?;
                return self.load(target, &expr.span);
            }
            Deref(r) => match self.read(&r.name) {
                Ok(v) => Control::Return(v),
                Err(reason) => return Err(self.stuck(reason, &r.span)),
            },
            Assign(r, e) if self.through_local(expr) => {
                let target = self.local(&env, r)?;
                self.stack.push(Kont::StoreWrite {
                    target,
                    span: &expr.span,
                });
                Control::Eval(e, env)
            }
            Assign(r, e) => {
                self.stack.push(Kont::Assign(r));
                Control::Eval(e, env)
            }
            Alloc(e) => {
                self.stack.push(Kont::Alloc);
                Control::Eval(e, env)
            }
            Load(e) => {
                self.stack.push(Kont::Load(&expr.span));
                Control::Eval(e, env)
            }
            Store(target, value) => {
                self.stack.push(Kont::StoreTarget {
                    value,
                    env: env.clone(),
                    span: &expr.span,
                });
                Control::Eval(target, env)
            }
            App(f, a) => {
                self.stack.push(Kont::AppFun {
                    arg: a,
                    env: env.clone(),
                    span: &expr.span,
                });
                Control::Eval(f, env)
            }
            Pair(a, b) => {
                self.stack.push(Kont::PairLeft {
                    right: b,
                    env: env.clone(),
                });
                Control::Eval(a, env)
            }
            Nil => Control::Return(Value::Nil),
            Cons(a, b) => {
                self.stack.push(Kont::ConsHead {
                    tail: b,
                    env: env.clone(),
                });
                Control::Eval(a, env)
            }
            Match {
                scrutinee,
                nil,
                head,
                tail,
                cons,
            } => {
                self.stack.push(Kont::Match {
                    nil,
                    head: &head.name,
                    tail: &tail.name,
                    cons,
                    env: env.clone(),
                    span: &expr.span,
                });
                Control::Eval(scrutinee, env)
            }
            Fst(e) => {
                self.stack.push(Kont::Fst(&expr.span));
                Control::Eval(e, env)
            }
            Snd(e) => {
                self.stack.push(Kont::Snd(&expr.span));
                Control::Eval(e, env)
            }
            Not(e) => {
                self.stack.push(Kont::Not(&expr.span));
                Control::Eval(e, env)
            }
            Binary(op, a, b) => {
                self.stack.push(Kont::BinLeft {
                    op: *op,
                    right: b,
                    env: env.clone(),
                    span: &expr.span,
                });
                Control::Eval(a, env)
            }
            Seq(a, b) => {
                self.stack.push(Kont::Seq {
                    right: b,
                    env: env.clone(),
                });
                Control::Eval(a, env)
            }
            If(c, t, e) => {
                self.stack.push(Kont::If {
                    then_branch: t,
                    else_branch: e,
                    env: env.clone(),
                    span: &expr.span,
                });
                Control::Eval(c, env)
            }
            Let(x, e, body) => {
                self.stack.push(Kont::Let {
                    name: &x.name,
                    body,
                    env: env.clone(),
                });
                Control::Eval(e, env)
            }
            LetRec(f, func, body) => {
                let id = self.new_function(func, env.clone(), Some(&f.name));
                Control::Eval(body, bind(&env, &f.name, Value::Fun(id)))
            }
            Lambda(func) => Control::Return(Value::Fun(self.new_function(func, env, None))),
            Assert(e) => {
                self.stack.push(Kont::Assert(&expr.span));
                Control::Eval(e, env)
            }
            ExprKind::ListOp(op, e) => {
                self.stack.push(Kont::ListOp(*op, &expr.span));
                Control::Eval(e, env)
            }
        })
    }

    /// Whether `e`, a named `!x` or `x := e` of the running code, goes through the local
    /// `x` (`lang/references.md` §1.4).
    fn through_local(&self, e: &Expr) -> bool {
        self.index(self.owner)
            .is_some_and(|index| index.through_local(e))
    }

    /// The value of the local `x` a named form goes through.
    fn local(&self, env: &Env<'p>, x: &Ident) -> Result<Value, Outcome> {
        lookup(env, &x.name)
            .ok_or_else(|| self.stuck(format!("`{}` is not bound", x.name), &x.span))
    }

    fn new_function(
        &mut self,
        func: &'p Function,
        env: Env<'p>,
        rec_name: Option<&'p str>,
    ) -> FunId {
        let id = FunId(self.repo.len());
        self.repo.push(FunEntry {
            owner: self.owner,
            name: None,
            body: Body::Code {
                func,
                env,
                rec_name,
            },
        });
        id
    }

    fn int<'v>(&self, v: &'v Value, what: &str, span: &Span) -> Result<&'v BigInt, Outcome> {
        match v {
            Value::Int(i) => Ok(i),
            other => Err(self.stuck(
                format!("{what} needs an integer, got {}", self.describe(other)),
                span,
            )),
        }
    }

    fn describe(&self, v: &Value) -> String {
        match v {
            Value::Unit => "()".to_string(),
            Value::Int(i) => i.to_string(),
            Value::Pair(_) => "a pair".to_string(),
            Value::Nil | Value::Cons(_) => "a list".to_string(),
            Value::Fun(_) => "a function".to_string(),
            Value::Loc(_) => "a reference".to_string(),
        }
    }

    fn continue_with(&mut self, kont: Kont<'p>, value: Value) -> Result<Control<'p>, Outcome> {
        Ok(match kont {
            Kont::AppFun { arg, env, span } => {
                self.stack.push(Kont::AppArg { fun: value, span });
                Control::Eval(arg, env)
            }
            Kont::AppArg { fun, span } => return self.apply(fun, value, span),
            Kont::PairLeft { right, env } => {
                self.stack.push(Kont::PairRight { left: value });
                Control::Eval(right, env)
            }
            Kont::PairRight { left } => Control::Return(Value::Pair(Rc::new((left, value)))),
            Kont::ConsHead { tail, env } => {
                self.stack.push(Kont::ConsTail { head: value });
                Control::Eval(tail, env)
            }
            Kont::ConsTail { head } => Control::Return(Value::Cons(ConsCell::new(head, value))),
            Kont::Match {
                nil,
                head,
                tail,
                cons,
                env,
                span,
            } => match value {
                Value::Nil => Control::Eval(nil, env),
                Value::Cons(cell) => {
                    let env = bind(&env, head, cell.head().clone());
                    Control::Eval(cons, bind(&env, tail, cell.tail().clone()))
                }
                other => {
                    let reason = format!("`match` on {}, not a list", self.describe(&other));
                    return Err(self.stuck(reason, span));
                }
            },
            Kont::Fst(span) => return self.project(value, true, span),
            Kont::Snd(span) => return self.project(value, false, span),
            Kont::Not(span) => {
                Control::Return(Value::Int(ops::not(self.int(&value, "`not`", span)?)))
            }
            Kont::BinLeft {
                op,
                right,
                env,
                span,
            } => {
                self.stack.push(Kont::BinRight {
                    op,
                    left: value,
                    span,
                });
                Control::Eval(right, env)
            }
            Kont::BinRight { op, left, span } => {
                // Two locations are equal when they are the same cell.
                if let (BinOp::Eq, Value::Loc(a), Value::Loc(b)) = (op, &left, &value) {
                    return Ok(Control::Return(Value::Int(BigInt::from(u8::from(a == b)))));
                }
                // Two lists are equal when they have the same elements, in order.
                if let (BinOp::Eq, Some(a), Some(b)) = (op, left.list_items(), value.list_items()) {
                    let mut equal = a.len() == b.len();
                    for (x, y) in a.iter().zip(&b) {
                        match (x, y) {
                            (Value::Int(x), Value::Int(y)) => equal &= x == y,
                            _ => {
                                let reason = "`==` on lists whose elements are not integers";
                                return Err(self.stuck(reason, span));
                            }
                        }
                    }
                    return Ok(Control::Return(Value::Int(BigInt::from(u8::from(equal)))));
                }
                let what = format!("`{}`", op.symbol());
                let a = self.int(&left, &what, span)?;
                let b = self.int(&value, &what, span)?;
                let bytes = int_bytes(result_bits(op, a, b));
                if bytes > self.limits.max_memory.saturating_sub(self.footprint()) {
                    return Err(self.memory_stop());
                }
                match ops::apply(op, a, b) {
                    Ok(i) => Control::Return(Value::Int(i)),
                    Err(ops::DivisionByZero) => {
                        return Err(Outcome::Failed(Failure {
                            kind: FailureKind::Division,
                            span: span.clone(),
                            side: self.owner,
                        }))
                    }
                }
            }
            Kont::Seq { right, env } => Control::Eval(right, env),
            Kont::If {
                then_branch,
                else_branch,
                env,
                span,
            } => {
                let c = self.int(&value, "`if`", span)?;
                Control::Eval(
                    if ops::is_true(c) {
                        then_branch
                    } else {
                        else_branch
                    },
                    env,
                )
            }
            Kont::Let { name, body, env } => Control::Eval(body, bind(&env, name, value)),
            Kont::Assign(r) => {
                // Assigning an undeclared reference creates it, as HOLiK does.
                self.write(&r.name, value);
                Control::Return(Value::Unit)
            }
            Kont::Alloc => Control::Return(Value::Loc(self.allocate(value))),
            Kont::Load(span) => return self.load(value, span),
            Kont::StoreTarget {
                value: e,
                env,
                span,
            } => {
                self.stack.push(Kont::StoreWrite {
                    target: value,
                    span,
                });
                Control::Eval(e, env)
            }
            Kont::StoreWrite { target, span } => return self.store_into(target, value, span),
            Kont::ListOp(op, span) => match (op, &value) {
                (ListOp::IsNil, Value::Nil) => Control::Return(Value::Int(BigInt::from(1))),
                (ListOp::IsNil, Value::Cons(_)) => Control::Return(Value::Int(BigInt::from(0))),
                (ListOp::Hd, Value::Cons(cell)) => Control::Return(cell.head().clone()),
                (ListOp::Tl, Value::Cons(cell)) => Control::Return(cell.tail().clone()),
                // The head or tail of `[]` fails like `assert(false)`.
                (ListOp::Hd | ListOp::Tl, Value::Nil) => {
                    return Err(Outcome::Failed(Failure {
                        kind: FailureKind::Assert,
                        span: span.clone(),
                        side: self.owner,
                    }))
                }
                (_, other) => {
                    let reason =
                        format!("`{}` of {}, not a list", op.keyword(), self.describe(other));
                    return Err(self.stuck(reason, span));
                }
            },
            Kont::Assert(span) => {
                if ops::is_true(self.int(&value, "`assert`", span)?) {
                    Control::Return(Value::Unit)
                } else {
                    return Err(Outcome::Failed(Failure {
                        kind: FailureKind::Assert,
                        span: span.clone(),
                        side: self.owner,
                    }));
                }
            }
            Kont::Call {
                callee,
                caller,
                boundary,
            } => {
                let owner = self.repo[callee.0].owner;
                if owner == Side::Library {
                    self.library_depth -= 1;
                }
                self.depth -= 1;
                if boundary {
                    self.record(Dir::Ret, owner, callee, &value);
                }
                self.owner = caller;
                Control::Return(value)
            }
        })
    }

    fn project(&self, value: Value, first: bool, span: &Span) -> Result<Control<'p>, Outcome> {
        match value {
            Value::Pair(p) => Ok(Control::Return(if first {
                p.0.clone()
            } else {
                p.1.clone()
            })),
            other => Err(self.stuck(
                format!("projection of {}, not a pair", self.describe(&other)),
                span,
            )),
        }
    }

    fn apply(&mut self, fun: Value, arg: Value, span: &Span) -> Result<Control<'p>, Outcome> {
        let Value::Fun(id) = fun else {
            return Err(self.stuck(
                format!("applying {}, which is not a function", self.describe(&fun)),
                span,
            ));
        };
        let (owner, func, env, rec_name) = match &self.repo[id.0].body {
            Body::Missing(name) => {
                return Err(self.stuck(format!("call of `{name}`, which has no definition"), span))
            }
            Body::Code {
                func,
                env,
                rec_name,
            } => (self.repo[id.0].owner, *func, env.clone(), *rec_name),
        };
        if self.depth >= self.limits.max_depth {
            return Err(Outcome::Stopped(Stop::DepthLimit(self.limits.max_depth)));
        }
        let boundary = owner != self.owner;
        if boundary {
            self.record(Dir::Call, self.owner, id, &arg);
        }
        self.stack.push(Kont::Call {
            callee: id,
            caller: self.owner,
            boundary,
        });
        self.depth += 1;
        if owner == Side::Library {
            self.library_depth += 1;
            self.max_library_depth = self.max_library_depth.max(self.library_depth);
        }
        self.owner = owner;
        let mut env = env;
        if let Some(f) = rec_name {
            env = bind(&env, f, Value::Fun(id));
        }
        env = bind(&env, &func.param.name, arg);
        Ok(Control::Eval(&func.body, env))
    }

    /// The name a move uses for a function: a method's own name, otherwise `m1, m2, …`
    /// for library functions and `f1, f2, …` for client functions, by first appearance.
    fn label(&mut self, id: FunId) -> String {
        if let Some(name) = &self.repo[id.0].name {
            return name.clone();
        }
        if let Some(label) = self.labels.get(&id) {
            return label.clone();
        }
        let (prefix, slot) = match self.repo[id.0].owner {
            Side::Library => ("m", 0),
            Side::Client => ("f", 1),
        };
        let label = loop {
            self.next_label[slot] += 1;
            let candidate = format!("{prefix}{}", self.next_label[slot]);
            let declared = [Side::Library, Side::Client]
                .into_iter()
                .any(|side| self.index(side).is_some_and(|i| i.names(&candidate)));
            if !declared && self.taken_labels.insert(candidate.clone()) {
                break candidate;
            }
        };
        self.labels.insert(id, label.clone());
        label
    }

    fn trace_value(&mut self, v: &Value) -> TraceValue {
        match v {
            Value::Unit => TraceValue::Unit,
            Value::Int(i) => TraceValue::Int(i.clone()),
            Value::Pair(p) => TraceValue::Pair(
                Box::new(self.trace_value(&p.0)),
                Box::new(self.trace_value(&p.1)),
            ),
            Value::Nil | Value::Cons(_) => TraceValue::List(
                v.list_items()
                    .unwrap_or_default()
                    .into_iter()
                    .map(|item| self.trace_value(item))
                    .collect(),
            ),
            Value::Fun(id) => TraceValue::Fun(self.label(*id)),
            Value::Loc(l) => TraceValue::Ref(self.location_label(*l)),
        }
    }

    /// The name a move uses for a location: `q1, q2, …` for the library's cells and `r1,
    /// r2, …` for the client's, by first appearance, primed while the library declares
    /// the name (as the symbolic engine names them, so a replayed trace reads the same;
    /// a synthesized client names its slots after them).
    fn location_label(&mut self, l: LocId) -> String {
        if let Some(label) = self.location_labels.get(&l) {
            return label.clone();
        }
        let (prefix, slot) = match self.heap[l.0].owner {
            Side::Library => ('q', 0),
            Side::Client => ('r', 1),
        };
        self.next_location_label[slot] += 1;
        let mut label = format!("{prefix}{}", self.next_location_label[slot]);
        while self.library.is_some_and(|i| i.names(&label)) {
            label.push('\'');
        }
        self.location_labels.insert(l, label.clone());
        self.labelled_locations.push(l);
        label
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A list far longer than a test thread's stack could free by recursion is freed,
    /// measured and read without one.
    #[test]
    fn long_lists_are_freed_and_walked_without_recursion() {
        let length = 1_000_000;
        let mut list = Value::Nil;
        for i in 0..length {
            list = Value::Cons(ConsCell::new(Value::Int(BigInt::from(i)), list));
        }
        assert_eq!(list.list_items().map(|items| items.len()), Some(length));
        assert!(heap_bytes(&list) >= length * size_of::<(Value, Value)>());
        let shared = list.clone();
        drop(list);
        assert_eq!(shared.list_items().map(|items| items.len()), Some(length));
        drop(shared);
    }
}
