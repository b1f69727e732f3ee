//! Configurations of the symbolic game (paper Figure 4): proponent configurations
//! evaluate a term, opponent configurations wait for the client.
//!
//! Everything a configuration holds is persistent: continuations, the evaluation stack,
//! the path condition and the trace are shared linked lists, the store and repository are
//! `imbl` vectors. Branching (at `if`, `assert`, a division or a client choice) clones a
//! configuration in time independent of its size, and siblings share all their history.

use super::relevance::Sinks;
use super::term::{Node, Term, Witness};
use super::value::{Env, Name, Value};
use crate::library::ir::{CodeId, Expr, FunCode, GlobalName, RefId, TypeId};
use crate::library::{Initial, Library};
use crate::trace::{Dir, Player};
use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::Arc;

/// A persistent stack.
#[derive(Debug)]
pub struct List<T>(Option<Arc<ListNode<T>>>);

#[derive(Debug)]
pub struct ListNode<T> {
    pub head: T,
    pub tail: List<T>,
}

impl<T> Clone for List<T> {
    fn clone(&self) -> Self {
        List(self.0.clone())
    }
}

impl<T> Default for List<T> {
    fn default() -> Self {
        List(None)
    }
}

impl<T: Clone> List<T> {
    pub fn push(&mut self, head: T) {
        let tail = std::mem::take(self);
        self.0 = Some(Arc::new(ListNode { head, tail }));
    }

    /// Removes and returns the top, cloning it only when the node is shared.
    pub fn pop(&mut self) -> Option<T> {
        let node = self.0.take()?;
        match Arc::try_unwrap(node) {
            Ok(node) => {
                *self = node.tail;
                Some(node.head)
            }
            Err(shared) => {
                *self = shared.tail.clone();
                Some(shared.head.clone())
            }
        }
    }
}

impl<T> List<T> {
    pub fn top(&self) -> Option<&T> {
        self.0.as_ref().map(|n| &n.head)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// The elements, top first.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        let mut next = self.0.as_deref();
        std::iter::from_fn(move || {
            let node = next?;
            next = node.tail.0.as_deref();
            Some(&node.head)
        })
    }
}

/// A function created by a lambda or `letrec`: code and the environment it closes over.
#[derive(Clone, Debug)]
pub struct Closure<'p> {
    pub code_id: CodeId,
    pub code: &'p FunCode,
    pub env: Env,
}

/// An evaluation-context frame. Frames hold the AST node they come from, so the
/// machine needs no extra copies of spans or operands.
#[derive(Clone, Debug)]
pub enum Frame<'p> {
    /// The function position of this application node is being evaluated; the
    /// argument comes next.
    AppArg(&'p Expr, Env),
    /// The argument of this application node is being evaluated; then the function is
    /// applied.
    AppCall(Value, &'p Expr),
    PairRight(&'p Expr, Env),
    PairMake(Value),
    ConsRight(&'p Expr, Env),
    ConsMake(Value),
    /// The list this `match` node takes apart is being evaluated.
    Match(&'p Expr, Env),
    /// These operation nodes wait for their operand (the node is where a value of the
    /// wrong shape gets stuck).
    Fst(&'p Expr),
    Snd(&'p Expr),
    Not(&'p Expr),
    /// The left operand of this binary node is being evaluated.
    BinRight(&'p Expr, Env),
    /// The right operand of this binary node is being evaluated.
    BinApply(&'p Expr, Value),
    Seq(&'p Expr, Env),
    /// The condition of this `if` node is being evaluated.
    If(&'p Expr, Env),
    Let(&'p Expr, Env),
    Assign(RefId),
    /// The content of a new cell of this type is being evaluated.
    Alloc(Option<TypeId>),
    /// The location this `!e` node reads through is being evaluated.
    Load(&'p Expr),
    /// The target of this `e1 := e2` node is being evaluated; the value comes next.
    StoreTarget(&'p Expr, Env),
    /// The value this `e1 := e2` node writes to the target is being evaluated.
    StoreWrite(Value, &'p Expr),
    /// The condition of this `assert` node is being evaluated.
    Assert(&'p Expr),
    /// The evaluation box of a library call: returning through it frees a unit of k.
    Box,
    /// The box of an application the library made itself, when those are bounded on
    /// their own ([`Config::unfold`]): returning through it frees an unfolding.
    Unfolded,
}

/// An entry of the evaluation stack 𝓔.
#[derive(Clone, Debug)]
pub enum GameFrame<'p> {
    /// The client called `name` (of type `ty`); its context's budget becomes `saved_l`
    /// when the library returns.
    OCall {
        name: Name,
        ty: TypeId,
        saved_l: u32,
    },
    /// The library called the client's `name` (of type `ty`, when it is known),
    /// suspending `kont`.
    PCall {
        name: Name,
        ty: Option<TypeId>,
        kont: List<Frame<'p>>,
    },
    /// The split's stand-in ([`super::stand_in::StandIn`]), called by the client with its
    /// context's budget to become `saved_l`, is calling the client back; it may do so
    /// `remaining` more times.
    StandIn { remaining: u32, saved_l: u32 },
}

/// What a configuration is doing.
#[derive(Clone, Debug)]
pub enum Control<'p> {
    Eval(&'p Expr, Env),
    Return(Value),
    /// Apply a function value to an argument (a call by the client, or after `e1 e2`).
    Apply(Value, Value),
    /// An opponent configuration: the client moves next.
    Opponent,
}

/// A conjunct of the path condition: `term ≠ 0` when `holds`, else `term = 0`.
#[derive(Debug)]
pub struct PcNode {
    pub term: Term,
    pub holds: bool,
    pub depth: u32,
    /// The symbols this and every earlier conjunct mention.
    pub symbols: SymbolSet,
    /// The symbols `term` mentions, in order of appearance.
    pub own_symbols: Vec<u32>,
    /// Whether this or an earlier conjunct is nonlinear ([`Term::is_linear`]).
    pub nonlinear: bool,
    pub parent: Option<Arc<PcNode>>,
}

/// The conjuncts of `pc`, oldest first, connected to `symbols` through chains of shared
/// symbols; their symbols are added to `symbols`. The other conjuncts mention none of
/// these symbols, so they are independent of anything asked about them.
pub fn connected_conjuncts<'a>(
    pc: &'a Option<Arc<PcNode>>,
    symbols: &mut FxHashSet<u32>,
) -> Vec<&'a PcNode> {
    let mut conjuncts: Vec<&PcNode> = Vec::new();
    let mut node = pc.as_deref();
    while let Some(p) = node {
        conjuncts.push(p);
        node = p.parent.as_deref();
    }
    conjuncts.reverse();
    let included = connected(&conjuncts, symbols);
    conjuncts
        .into_iter()
        .zip(included)
        .filter_map(|(p, inc)| inc.then_some(p))
        .collect()
}

/// Which of `conjuncts` are connected to `symbols` through chains of shared symbols;
/// their symbols are added to `symbols`. It follows an index from symbols to the
/// conjuncts that mention them, so a long path condition is read once, not once per
/// link of the longest chain.
pub fn connected(conjuncts: &[&PcNode], symbols: &mut FxHashSet<u32>) -> Vec<bool> {
    let mut mentioning: FxHashMap<u32, Vec<usize>> = FxHashMap::default();
    for (i, p) in conjuncts.iter().enumerate() {
        for &n in &p.own_symbols {
            mentioning.entry(n).or_default().push(i);
        }
    }
    let mut included = vec![false; conjuncts.len()];
    let mut pending: Vec<u32> = symbols.iter().copied().collect();
    while let Some(n) = pending.pop() {
        for &i in mentioning.get(&n).map_or(&[][..], Vec::as_slice) {
            if !included[i] {
                included[i] = true;
                for &m in &conjuncts[i].own_symbols {
                    if symbols.insert(m) {
                        pending.push(m);
                    }
                }
            }
        }
    }
    included
}

/// A set of symbols, exact for symbols below 128; larger ones count as "maybe present".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SymbolSet {
    bits: u128,
    overflow: bool,
}

impl SymbolSet {
    pub fn insert(&mut self, n: u32) {
        if n < 128 {
            self.bits |= 1 << n;
        } else {
            self.overflow = true;
        }
    }

    /// The symbols below 128 in the set, and whether larger ones may be present too.
    pub fn small_members(&self) -> (impl Iterator<Item = u32> + '_, bool) {
        let bits = self.bits;
        (
            (0..128u32).filter(move |&n| bits & (1 << n) != 0),
            self.overflow,
        )
    }

    /// False only when `n` is certainly absent.
    pub fn may_contain(&self, n: u32) -> bool {
        if n < 128 {
            self.bits & (1 << n) != 0
        } else {
            self.overflow
        }
    }
}

/// A move as the engine records it; rendered to a [`crate::trace::Move`] at the end.
#[derive(Clone, Debug)]
pub struct MoveRecord {
    pub dir: Dir,
    pub by: Player,
    pub name: Name,
    pub value: Value,
    /// At a library move, the cells (location, content) through which a name first
    /// reaches the client; the client's writes are in [`Heap::writes`].
    pub store: Vec<(u32, Value)>,
}

/// A cell of the store of ML-like references (`lang/references.md` §3.2).
#[derive(Clone, Debug)]
pub struct Cell {
    pub owner: Player,
    /// The type of the values it holds; unknown only in an ill-typed program.
    pub ty: Option<TypeId>,
    /// `None` for a client's cell whose content has not been read yet.
    pub content: Option<Value>,
    /// The client turn ([`Heap::epoch`]) of the last write: the library's, or a client
    /// write materialised when read. A disclosed cell written before the current turn
    /// holds a *pending* client write: the client may have changed it at its turn.
    pub written: u32,
    pub disclosed: bool,
}

/// A client write to a disclosed cell, materialised when the library read it.
#[derive(Clone, Debug)]
pub struct WriteRecord {
    /// The index in the trace of the client move whose turn made the write.
    pub turn: u32,
    pub loc: u32,
    pub value: Value,
}

/// The cells of a path, by location number, and what the client knows of them.
#[derive(Clone, Debug, Default)]
pub struct Heap {
    pub cells: imbl::Vector<Cell>,
    /// The disclosed locations (the paper's L_p ∪ L_o), in order of disclosure.
    pub disclosed: imbl::Vector<u32>,
    /// Client turns so far.
    pub epoch: u32,
    /// The index in the trace of the last client move.
    pub turn: u32,
    /// The client writes materialised on this path, latest first.
    pub writes: List<WriteRecord>,
}

impl Heap {
    /// Whether the cell `n` holds a client write of the current turn not yet read.
    pub fn pending(&self, n: u32) -> bool {
        self.cells
            .get(n as usize)
            .is_some_and(|c| c.disclosed && c.written < self.epoch)
    }
}

#[derive(Clone, Debug)]
pub struct Config<'p> {
    pub control: Control<'p>,
    pub kont: List<Frame<'p>>,
    pub stack: List<GameFrame<'p>>,
    /// S, by reference id; `None` for a reference never declared nor assigned.
    pub store: imbl::Vector<Option<Value>>,
    /// The dynamic part of R: functions created on this path, by closure number.
    pub closures: imbl::Vector<Closure<'p>>,
    /// The library-owned names revealed to the client, with the type they were revealed
    /// at, in order of revelation (public methods are in P from the start).
    pub revealed: imbl::Vector<(Name, TypeId)>,
    /// The client's function names (the dynamic part of A), by number, with their types.
    pub clients: imbl::Vector<TypeId>,
    /// Library frames still available.
    pub k: u32,
    /// The nested applications the library may still make itself, when they are
    /// bounded apart from k (`holi equiv`'s unfoldings): k then bounds only the frames
    /// of the client's calls. `None`: they take frames of k, as in `holi check`.
    pub unfold: Option<u32>,
    /// The client's call budget in the current context.
    pub l: u32,
    /// The most elements of a list the client plays ([`super::moves`]).
    pub lists: u32,
    pub pc: Option<Arc<PcNode>>,
    /// A model of `pc`.
    pub witness: Arc<Witness>,
    pub next_sym: u32,
    pub trace: List<MoveRecord>,
    pub moves: u32,
    /// The cells of ML-like references; `None` until the first location exists, so
    /// a library without references carries one null pointer.
    pub heap: Option<Arc<Heap>>,
    /// The calls no later call was seen to read from, while every client call so far
    /// was atomic and the search tracks them ([`super::relevance`]).
    pub sinks: Option<Sinks>,
}

/// The most elements of a list the client plays, unless the user says otherwise.
pub const DEFAULT_LIST_LENGTH: u32 = 3;

impl<'p> Config<'p> {
    /// The built library before the client's first move: the store as declared, no
    /// pending calls, the full budgets `k` and `l`, and the empty trace.
    pub fn initial(lib: &'p Library, k: u32, l: u32) -> Config<'p> {
        let store = lib.store.iter().map(initial_value).collect();
        let heap = (!lib.cells.is_empty()).then(|| {
            Arc::new(Heap {
                cells: lib
                    .cells
                    .iter()
                    .map(|cell| Cell {
                        owner: Player::Library,
                        ty: cell.ty,
                        content: initial_value(&cell.content),
                        written: 0,
                        disclosed: false,
                    })
                    .collect(),
                ..Heap::default()
            })
        });
        Config {
            control: Control::Opponent,
            kont: List::default(),
            stack: List::default(),
            store,
            closures: imbl::Vector::new(),
            revealed: imbl::Vector::new(),
            clients: imbl::Vector::new(),
            k,
            unfold: None,
            l,
            lists: DEFAULT_LIST_LENGTH,
            pc: None,
            witness: Arc::new(Witness::default()),
            next_sym: 0,
            trace: List::default(),
            moves: 0,
            heap,
            sinks: None,
        }
    }

    pub fn push_move(&mut self, dir: Dir, by: Player, name: Name, value: Value) {
        self.push_move_with_store(dir, by, name, value, Vec::new());
    }

    pub fn push_move_with_store(
        &mut self,
        dir: Dir,
        by: Player,
        name: Name,
        value: Value,
        store: Vec<(u32, Value)>,
    ) {
        self.trace.push(MoveRecord {
            dir,
            by,
            name,
            value,
            store,
        });
        self.moves += 1;
    }

    /// The heap, created empty on first use.
    pub fn heap_mut(&mut self) -> &mut Heap {
        Arc::make_mut(self.heap.get_or_insert_with(Arc::default))
    }

    /// A new cell; its location.
    pub fn allocate(&mut self, cell: Cell) -> u32 {
        let heap = self.heap_mut();
        let n = heap.cells.len() as u32;
        if cell.disclosed {
            heap.disclosed.push_back(n);
        }
        heap.cells.push_back(cell);
        n
    }

    /// The start of a client turn (an O-move at index [`Config::moves`]) in a library
    /// that uses references: every disclosed cell now holds a pending client write.
    pub fn client_turn(&mut self) {
        let moves = self.moves;
        let heap = self.heap_mut();
        heap.epoch += 1;
        heap.turn = moves;
    }

    /// Records the client's write of `value` to the cell `n`, materialised now.
    pub fn client_write(&mut self, n: u32, value: Value) {
        let heap = self.heap_mut();
        let (epoch, turn) = (heap.epoch, heap.turn);
        if let Some(cell) = heap.cells.get_mut(n as usize) {
            cell.content = Some(value.clone());
            cell.written = epoch;
        }
        heap.writes.push(WriteRecord {
            turn,
            loc: n,
            value,
        });
    }

    /// Adds `term ≠ 0` (or `= 0`) to the path condition, `witness` being a model of the result.
    pub fn assume(&mut self, term: Term, holds: bool, witness: Arc<Witness>) {
        let depth = self.pc.as_ref().map_or(1, |p| p.depth + 1);
        let mut symbols = self.pc_symbols();
        let mut mentioned = Vec::new();
        term.symbols(&mut mentioned);
        for &n in &mentioned {
            symbols.insert(n);
        }
        let nonlinear = !term.is_linear() || self.pc.as_ref().is_some_and(|p| p.nonlinear);
        self.pc = Some(Arc::new(PcNode {
            term,
            holds,
            depth,
            symbols,
            own_symbols: mentioned,
            nonlinear,
            parent: self.pc.take(),
        }));
        self.witness = witness;
    }

    /// The symbols the path condition mentions.
    pub fn pc_symbols(&self) -> SymbolSet {
        self.pc.as_ref().map(|p| p.symbols).unwrap_or_default()
    }

    pub fn fresh_sym(&mut self) -> Term {
        self.next_sym += 1;
        Term::sym(self.next_sym)
    }
}

/// The value an initial reference or cell holds; `None` for a reference never declared.
fn initial_value(init: &Initial) -> Option<Value> {
    Some(match init {
        Initial::Int(i) => Value::Int(Term::Const(i.clone())),
        Initial::Name(g) => Value::Fun(match *g {
            GlobalName::Method(m) => Name::Method(m),
            GlobalName::Import(i) => Name::Import(i),
            GlobalName::Undeclared(u) => Name::Undeclared(u),
        }),
        Initial::Absent => return None,
        Initial::Unit => Value::Unit,
        Initial::Nil => Value::Nil,
        Initial::Pair(a, b) => Value::pair(initial_value(a)?, initial_value(b)?),
        Initial::Loc(n) => Value::Loc(*n),
    })
}

/// Symmetry of revealed names.
///
/// Calling a library function `b` has the same future as calling `a` when both are the
/// same name, or closures of the same code over equivalent captured environments:
/// values equal structurally, terms equal structurally (so by symbol), names inside
/// equivalent in turn. (A closure captures only closures created before it — `letrec`
/// sees itself through the call, not its environment — so the recursion ends.) The
/// relation is an equivalence, and it never changes along a path: environments and
/// codes are immutable, and closures capture values, never references.
///
/// Why the search may call only the first of a class of equivalent revealed names
/// (and the memo may forget the others). HOLi has no equality on functions, so the
/// library cannot tell `a` from `b` except by running them, and running them performs
/// the same steps on the same store with the same results, up to replacing names by
/// equivalent ones (new closures made along the way are equivalent in turn). So a
/// trace that calls `b` has a twin that calls `a` at the same position: the same moves
/// but for the names printed, the same path condition, the same failure site and the
/// same length. Verdicts and the minimal trace length per failure site are unchanged;
/// only the count of distinct failing traces shrinks, which is why `all` enumerates
/// every call.
impl Config<'_> {
    /// Whether `revealed[i]` is equivalent to an earlier revealed name revealed at the
    /// same type.
    pub fn duplicates_earlier_revealed(&self, i: usize) -> bool {
        let Some(&(name, ty)) = self.revealed.get(i) else {
            return false;
        };
        self.revealed
            .iter()
            .take(i)
            .any(|&(other, other_ty)| other_ty == ty && self.equivalent_names(other, name))
    }

    /// Whether the names `a` and `b` behave alike for every caller (see above).
    pub fn equivalent_names(&self, a: Name, b: Name) -> bool {
        if a == b {
            return true;
        }
        let (Name::Closure(m), Name::Closure(n)) = (a, b) else {
            return false;
        };
        match (self.closures.get(m as usize), self.closures.get(n as usize)) {
            (Some(x), Some(y)) => x.code_id == y.code_id && self.equivalent_envs(&x.env, &y.env),
            _ => false,
        }
    }

    fn equivalent_envs(&self, a: &Env, b: &Env) -> bool {
        let (mut xs, mut ys) = (a.iter(), b.iter());
        loop {
            match (xs.next(), ys.next()) {
                (None, None) => return true,
                (Some(x), Some(y)) if self.equivalent_values(x, y) => {}
                _ => return false,
            }
        }
    }

    fn equivalent_values(&self, a: &Value, b: &Value) -> bool {
        match (a, b) {
            (Value::Unit, Value::Unit) => true,
            (Value::Int(x), Value::Int(y)) => same_term(x, y),
            (Value::Pair(p), Value::Pair(q)) | (Value::Cons(p), Value::Cons(q)) => {
                Arc::ptr_eq(p, q)
                    || (self.equivalent_values(&p.0, &q.0) && self.equivalent_values(&p.1, &q.1))
            }
            (Value::Nil, Value::Nil) => true,
            (Value::Fun(x), Value::Fun(y)) => self.equivalent_names(*x, *y),
            // Closures over different cells do not see each other's writes.
            (Value::Loc(x), Value::Loc(y)) => x == y,
            _ => false,
        }
    }
}

/// Structural equality of terms; a subterm shared by both is recognised by address.
fn same_term(a: &Term, b: &Term) -> bool {
    match (a, b) {
        (Term::Const(x), Term::Const(y)) => x == y,
        (Term::Node(x), Term::Node(y)) => {
            Arc::ptr_eq(x, y)
                || match (&**x, &**y) {
                    (Node::Sym(m), Node::Sym(n)) => m == n,
                    (Node::Bin(o, a1, b1), Node::Bin(p, a2, b2)) => {
                        o == p && same_term(a1, a2) && same_term(b1, b2)
                    }
                    (Node::Not(a1), Node::Not(a2)) => same_term(a1, a2),
                    _ => false,
                }
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::library::{build, Library};
    use crate::syntax::ast::BinOp;

    /// Two lambdas: `unit -> unit` and `int -> int`.
    const SOURCE: &str = "
public m (u:unit) :(unit) = {
  let f = fun (x:unit) :(unit) -> () in
  let g = fun (x:int) :(int) -> x in
  ()
};
";

    fn library() -> Library {
        let loaded = crate::frontend::load_str("test.holi", SOURCE, false)
            .unwrap_or_else(|r| panic!("{}", r.render(false)));
        build(&loaded.program)
    }

    fn lambdas(lib: &Library) -> (CodeId, CodeId) {
        let ids: Vec<CodeId> = (0..lib.codes.len() as CodeId)
            .filter(|&id| lib.code(id).name.is_none())
            .collect();
        assert_eq!(ids.len(), 2, "the two lambdas of SOURCE");
        (ids[0], ids[1])
    }

    /// Adds a closure of `code` over `values` (innermost last) and returns its name.
    fn closure<'p>(cfg: &mut Config<'p>, lib: &'p Library, code: CodeId, values: &[Value]) -> Name {
        let env = values
            .iter()
            .fold(Env::default(), |env, v| env.push(v.clone()));
        cfg.closures.push_back(Closure {
            code_id: code,
            code: lib.code(code),
            env,
        });
        Name::Closure(cfg.closures.len() as u32 - 1)
    }

    fn plus_one(sym: u32) -> Value {
        let one = Term::Const(1.into());
        Value::Int(Term::binary(BinOp::Add, &Term::sym(sym), &one).unwrap_or(one))
    }

    #[test]
    fn closures_of_the_same_code_over_equal_values_are_equivalent() {
        let lib = library();
        let (f, g) = lambdas(&lib);
        let mut cfg = Config::initial(&lib, 2, 2);
        // Equal terms built separately (not the same node), inside a pair.
        let pair = |s| Value::pair(plus_one(s), Value::Unit);
        let a = closure(&mut cfg, &lib, f, &[Value::Unit, pair(1)]);
        let b = closure(&mut cfg, &lib, f, &[Value::Unit, pair(1)]);
        let other_symbol = closure(&mut cfg, &lib, f, &[Value::Unit, pair(2)]);
        let other_code = closure(&mut cfg, &lib, g, &[Value::Unit, pair(1)]);
        let shorter = closure(&mut cfg, &lib, f, &[pair(1)]);
        assert!(cfg.equivalent_names(a, b));
        assert!(cfg.equivalent_names(b, a));
        assert!(!cfg.equivalent_names(a, other_symbol));
        assert!(!cfg.equivalent_names(a, other_code));
        assert!(!cfg.equivalent_names(a, shorter));
        // Names inside compare by equivalence in turn.
        let over_a = closure(&mut cfg, &lib, g, &[Value::Fun(a)]);
        let over_b = closure(&mut cfg, &lib, g, &[Value::Fun(b)]);
        let over_other = closure(&mut cfg, &lib, g, &[Value::Fun(other_symbol)]);
        assert!(cfg.equivalent_names(over_a, over_b));
        assert!(!cfg.equivalent_names(over_a, over_other));
        // Client names and methods only by identity.
        assert!(!cfg.equivalent_names(Name::Client(0), Name::Client(1)));
        assert!(cfg.equivalent_names(Name::Method(0), Name::Method(0)));
        assert!(!cfg.equivalent_names(Name::Method(0), a));
    }

    #[test]
    fn only_a_later_equivalent_name_at_the_same_type_duplicates() {
        let lib = library();
        let (f, g) = lambdas(&lib);
        let ty = lib.code(f).ty;
        let mut cfg = Config::initial(&lib, 2, 2);
        let a = closure(&mut cfg, &lib, f, &[Value::Unit]);
        let b = closure(&mut cfg, &lib, f, &[Value::Unit]);
        let c = closure(&mut cfg, &lib, f, &[plus_one(1)]);
        cfg.revealed = [(a, ty), (c, ty), (b, ty)].into_iter().collect();
        let duplicates: Vec<bool> = (0..3).map(|i| cfg.duplicates_earlier_revealed(i)).collect();
        assert_eq!(duplicates, [false, false, true]);
        // Revealed at another type, it is a different offer to the client.
        let other_ty = lib.code(g).ty;
        cfg.revealed = [(a, ty), (b, other_ty)].into_iter().collect();
        assert!(!cfg.duplicates_earlier_revealed(1));
    }

    #[test]
    fn symmetric_opponent_moves_skip_only_duplicates() {
        let lib = library();
        let (f, _) = lambdas(&lib);
        let ty = lib.code(f).ty;
        let mut cfg = Config::initial(&lib, 2, 2);
        let a = closure(&mut cfg, &lib, f, &[Value::Unit]);
        let b = closure(&mut cfg, &lib, f, &[Value::Unit]);
        let c = closure(&mut cfg, &lib, f, &[plus_one(1)]);
        cfg.revealed = [(a, ty), (b, ty), (c, ty)].into_iter().collect();
        let called = |symmetry| -> Vec<Name> {
            super::super::moves::opponent_moves(
                &cfg,
                &lib,
                symmetry,
                None,
                None,
                None,
                &mut Default::default(),
            )
            .iter()
            .filter_map(|next| next.trace.top().map(|m| m.name))
            .collect()
        };
        let m = Name::Method(lib.public[0]);
        assert_eq!(called(false), [m, a, b, c]);
        assert_eq!(called(true), [m, a, c]);
    }
}
