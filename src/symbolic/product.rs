//! The product of two libraries' games (`holi equiv`, [`crate::equiv`]): both play
//! against one client, in lockstep, and the search looks for a client move sequence
//! after which they part (`../shared/notes/equivalence.md`).
//!
//! Each turn of the client goes to both sides, with the same symbols and the same
//! client names, so that the two sides share one path condition. Then the left side
//! runs to its next stop (its move to the client, or a failure) under that condition,
//! then the right side under the left's, each by its own library's step; so a pair of
//! paths is one path of the product, and its condition is the conjunction of both.
//! Then the two stops are compared. They match when both failed, or
//! when both moved alike: the same kind of move to the same target (a return to the
//! pending call, or a call of the same client function or import), values of the
//! same shape whose integers are equal under the condition (Z3 decides, and the path
//! goes on assuming it). A function in a value is a new name for the client on both
//! sides, whichever function it is, since a client cannot compare functions: the n-th
//! function the left passes corresponds to the n-th the right passes, and a call of
//! it goes to whatever each side passed (a function of the client's passed back is
//! called through the library, so `f` and `fun x -> f x` correspond, as in Hobbit).
//! Only where both sides pass back a function of the client's must it be the same
//! one. Anything else is a parting: the path condition (with the integers differing)
//! has a model, and its values are a client's inputs. A parting is a [`Difference`]
//! once a client can see the program end differently: at once where a side fails,
//! else after a side that moved plays on alone (`Turn::Alone`) to where every call
//! was answered or it fails.
//!
//! The libraries are deterministic, so for fixed client moves each side has one run
//! and lockstep exploration suffices (no simulation game). k bounds each side's
//! frames of the client's calls, l the client's calls per context, as in `check`,
//! and the unfoldings the nested applications each library makes itself
//! ([`Config::unfold`]); a path on which either side runs out of frames or
//! unfoldings ends there without a verdict on what follows.
//!
//! References crossing the interface are names too (`../shared/notes/ml-references.md`):
//! each side discloses its locations in the order its moves show them, so the n-th
//! disclosed location of the left corresponds to the n-th of the right, and a move
//! that passes a location must pass corresponding ones. At each client turn the
//! client writes every disclosed cell, the same values on both sides
//! ([`moves::write_disclosed`]: `holi check` materialises a write when the library
//! reads it, but the two sides read at different times and must read one write). At
//! each library move the client may read every disclosed cell, so the contents of
//! corresponding cells are compared as the move's values are.

use super::branch::Sides;
use super::brief::Brief;
use super::config::{Config, Control, PcNode};
use super::game::{self, Game, Paths, Position};
use super::memo::{self, Memo};
use super::moves;
use super::outcome::StuckReason;
use super::relevance::Skipped;
use super::step::{self, Rules, Search};
use super::term::{Term, Witness};
use super::value::{Name, Value};
use crate::library::ir::{ImportId, TypeId};
use crate::library::Library;
use crate::ops::DivisionByZero;
use crate::syntax::ast::{BinOp, Span};
use crate::trace::{Dir, FailureKind};
use rustc_hash::FxHashMap;
use std::fmt;
use std::sync::Arc;

/// One of the two libraries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    Left,
    Right,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Left => "left",
            Side::Right => "right",
        })
    }
}

/// A function the client may call on both sides: a public method, or the n-th
/// library function passed to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Callable {
    left: (Name, TypeId),
    right: (Name, TypeId),
}

/// How a side's turn ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum End {
    /// It made a move to the client: the last of its trace.
    Moved,
    /// It failed (an `assert` of 0, a division by zero) at this place.
    Failed(FailureKind, Span),
    /// It diverged (`_bot_`): it never moves again.
    Diverged,
}

/// Whose turn it is in a [`Pair`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Turn {
    /// The client moves next, on both sides.
    Client,
    /// The left side runs to its next stop.
    Left,
    /// The right side runs, the left having stopped.
    Right,
    /// The sides have parted; this one plays on alone against the client, until its
    /// play ends where the client can see it end.
    Alone(Side),
}

/// Where the sides of a [`Pair`] parted: how each stopped, after how many shared
/// moves, and what differs, in words.
#[derive(Debug)]
struct Parted {
    ends: [End; 2],
    shared: u32,
    what: String,
}

/// A configuration of the product: the two sides, whose turn it is, and the library
/// functions the client holds, by the order in which both sides passed them.
#[derive(Clone, Debug)]
pub struct Pair<'p> {
    left: Config<'p>,
    right: Config<'p>,
    turn: Turn,
    /// How the left's turn ended, while the right runs.
    left_end: Option<End>,
    functions: imbl::Vector<Callable>,
    /// Whether the client has called a public method.
    started: bool,
    /// Where the sides parted, once they have.
    parted: Option<Arc<Parted>>,
}

impl Pair<'_> {
    /// A lower bound on the length of the differences this pair can lead to.
    fn least_difference(&self) -> u32 {
        match &self.parted {
            Some(p) => p.shared + 1,
            None => self.moves(),
        }
    }

    /// The library functions the client holds that it may call: each but those
    /// equivalent on both sides to an earlier one.
    ///
    /// Calling the j-th has the same future as calling the i-th when, on each side,
    /// the two are the same closure code over equivalent environments
    /// ([`Config::equivalent_names`]): each side then runs the same steps on the same
    /// store with the same results, up to equivalent names, so a difference reached
    /// by a call of the j-th has a twin, as long, by a call of the i-th. The memo key
    /// leaves the others out for the same reason.
    fn distinct_functions(&self) -> impl Iterator<Item = &Callable> {
        self.functions.iter().enumerate().filter_map(|(j, c)| {
            let twin = self.functions.iter().take(j).any(|e| {
                e.left.1 == c.left.1
                    && e.right.1 == c.right.1
                    && self.left.equivalent_names(e.left.0, c.left.0)
                    && self.right.equivalent_names(e.right.0, c.right.0)
            });
            (!twin).then_some(c)
        })
    }
}

impl<'p> Position<'p> for Pair<'p> {
    fn moves(&self) -> u32 {
        self.left.moves.max(self.right.moves)
    }

    fn pc(&self) -> &Option<Arc<PcNode>> {
        // The side that runs holds the condition of both.
        match self.turn {
            Turn::Left | Turn::Alone(Side::Left) => &self.left.pc,
            Turn::Client | Turn::Right | Turn::Alone(Side::Right) => &self.right.pc,
        }
    }

    fn library_config(&self) -> Option<&Config<'p>> {
        None
    }
}

/// A client move sequence after which the two sides part, in a way the client can
/// see: both configurations (a side that moved has the move at index `shared` of its
/// trace), how each stopped, and a model of the path condition with the difference,
/// for the client's values.
///
/// A client sees how its program ends: it returns, fails, or runs forever. So a side
/// that fails where the other does anything else differs at once (after a move, the
/// client can run forever), and so does one that diverges where the other fails. A
/// side that moves where the other diverges, or moves otherwise, differs only if
/// after its move some client can still end the program: the side of `completed` goes
/// on, in its configuration, to where every call was answered or to a failure. (Both
/// may instead diverge whatever the client does, as in Meyer and Sieber's examples:
/// then no client sees the difference.)
#[derive(Clone, Debug)]
pub struct Difference<'p> {
    pub left: Config<'p>,
    pub right: Config<'p>,
    pub ends: [End; 2],
    /// The moves both sides make before they part.
    pub shared: u32,
    /// The side whose trace goes on past its parting move to an end the client sees.
    pub completed: Option<Side>,
    pub witness: Arc<Witness>,
    /// What differs, in words (names as the left's trace prints them are not known
    /// here: the kinds of moves and values).
    pub what: String,
}

impl End {
    /// What the side did, for a sentence.
    fn verb(&self) -> &'static str {
        match self {
            End::Moved => "moves",
            End::Failed(FailureKind::Assert, _) => "fails an assert",
            End::Failed(FailureKind::Division, _) => "divides by zero",
            End::Diverged => "diverges",
        }
    }
}

impl Difference<'_> {
    /// The moves of the distinguishing trace: those both sides make, and the one where
    /// they part (a move, or a failure).
    pub fn moves(&self) -> u32 {
        self.shared + 1
    }
}

/// A place where a side's path got stuck: what follows is unexplored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StuckPlace {
    pub side: Side,
    pub reason: StuckReason,
    pub span: Span,
}

/// Why two libraries cannot be compared: their interfaces differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Incomparable(pub Vec<Mismatch>);

/// One way two interfaces differ, about the public method or import `name` as
/// declared on `sides`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub name: String,
    pub what: String,
    pub sides: Vec<Side>,
}

/// The entries (name, the name in the game, type) of one kind (`what`) of the two
/// interfaces paired by name, in the left's order; what does not pair is a problem.
fn pair_up(
    what: &str,
    (left, lefts): (&Library, Vec<(String, Name, TypeId)>),
    (right, rights): (&Library, Vec<(String, Name, TypeId)>),
    problems: &mut Vec<Mismatch>,
) -> Vec<(String, Callable)> {
    let mut paired = Vec::new();
    for (name, lname, lty) in &lefts {
        let Some((_, rname, rty)) = rights.iter().find(|(n, ..)| n == name) else {
            problems.push(Mismatch {
                name: name.clone(),
                what: format!("{what} `{name}` is in the left library only"),
                sides: vec![Side::Left],
            });
            continue;
        };
        if left.types.to_ast(*lty) != right.types.to_ast(*rty) {
            problems.push(Mismatch {
                name: name.clone(),
                what: format!(
                    "{what} `{name}` has type `{}` on the left and `{}` on the right",
                    left.types.display(*lty),
                    right.types.display(*rty)
                ),
                sides: vec![Side::Left, Side::Right],
            });
        }
        paired.push((
            name.clone(),
            Callable {
                left: (*lname, *lty),
                right: (*rname, *rty),
            },
        ));
    }
    for (name, ..) in &rights {
        if !lefts.iter().any(|(n, ..)| n == name) {
            problems.push(Mismatch {
                name: name.clone(),
                what: format!("{what} `{name}` is in the right library only"),
                sides: vec![Side::Right],
            });
        }
    }
    paired
}

/// The game of two libraries against one client.
pub struct ProductGame<'p> {
    left: Rules<'p>,
    right: Rules<'p>,
    /// The public methods, in the left's order, with the right's of the same name.
    methods: Vec<Callable>,
    /// The right's import of the same name as each of the left's.
    imports: Vec<ImportId>,
    initial: Pair<'p>,
    /// Whether the client calls public methods only until it has called one (with the
    /// memo on, and both libraries without globals).
    ///
    /// Why that loses no difference. Without globals, what a call of a public method
    /// makes (cells, closures) is its own, reached only through the values it passes
    /// to the client, so each call starts an instance that shares nothing with the
    /// others: Hobbit's `start` evaluates its expression afresh each time, and in the
    /// game semantics Hobbit's LTS evaluates it once for this reason. A play with many
    /// instances interleaves the plays of each, and its moves restricted to the
    /// instance where the sides part are a play of that instance alone (what the client
    /// passed from another instance is, in this one, a function of the client's, and
    /// whatever it returned the client may return itself), made with no more frames or
    /// calls per context, with the same parting, and ending alike: a side that can
    /// answer every call of the interleaving can answer those of its instance. Each
    /// instance's play starts with one call of a public method, so a client that calls
    /// one and then only what it was given meets every difference, at most as long.
    one_instance: bool,
    /// The shortest difference found so far, if any.
    shortest: Option<Difference<'p>>,
    stuck: Vec<StuckPlace>,
    /// The pairs met at the client's turn.
    met: Met,
}

/// The configurations met at the client's turn, by key, with the length and budgets
/// each was met with: the pairs, and the sides playing on alone.
///
/// A configuration with the same key as one met before, with no shorter a length and
/// at least the same budgets, is not explored. Same key means the same future up to
/// renaming (memo::pair_key, memo::key), and bounded play is monotone in the budgets,
/// so every difference below it is below the earlier one too, no longer from there,
/// and found from there: after it (it was explored), or still to come (it is an
/// ancestor on the depth-first stack, whose successors are all explored unless branch
/// and bound cuts them, which a difference at least as short justifies). Stuck places
/// and limits met below it were recorded once. The length is a pair's moves; for a
/// side alone, whose future decides only whether a parting is a difference, the
/// length of the moves shared before the parting, which is the difference's.
struct Met {
    /// Off, nothing is subsumed (the plain search, to test against).
    on: bool,
    memo: Memo,
    table: FxHashMap<(u8, u128), Vec<Visit>>,
    /// Configurations not explored, being met before.
    subsumed: u64,
}

/// The length and budgets a configuration was met with.
type Visit = (u32, Vec<u32>);

impl Met {
    fn new(on: bool) -> Met {
        Met {
            on,
            // Nothing is left out of keys: inert references are argued for one library.
            memo: Memo::new(Vec::new(), true),
            table: FxHashMap::default(),
            subsumed: 0,
        }
    }

    /// Whether a configuration of kind `tag` with `key`, met at `length`, was met
    /// before so that it need not be explored; if not, it is recorded.
    fn subsumed(&mut self, tag: u8, key: &memo::Key, length: u32) -> bool {
        if !self.on {
            return false;
        }
        let met = self.table.entry((tag, key.hash())).or_default();
        if met
            .iter()
            .any(|(m, budgets)| *m <= length && memo::dominates(budgets, key.budgets()))
        {
            self.subsumed += 1;
            return true;
        }
        met.retain(|(m, budgets)| !(length <= *m && memo::dominates(key.budgets(), budgets)));
        met.push((length, key.budgets().to_vec()));
        false
    }

    /// Whether `pair`, at the client's turn, was met before ([`Met::subsumed`]), where
    /// the client may call `callable` of its functions; with `one_instance`, whether
    /// the client has called a public method is part of its key.
    fn pair(&mut self, pair: &Pair, callable: &[Callable], one_instance: bool) -> bool {
        if !self.on {
            return false;
        }
        let functions: Vec<(Name, Name)> = callable.iter().map(|c| (c.left.0, c.right.0)).collect();
        let key = memo::pair_key(&mut self.memo, &pair.left, &pair.right, &functions);
        let tag = if one_instance && pair.started { 3 } else { 0 };
        self.subsumed(tag, &key, pair.moves())
    }

    /// Whether `side`, alone in `cfg` at the client's turn after the sides parted
    /// with `shared` moves, was met before ([`Met::subsumed`]).
    fn alone(&mut self, side: Side, cfg: &Config, shared: u32) -> bool {
        if !self.on {
            return false;
        }
        let key = memo::key(&mut self.memo, cfg);
        let tag = match side {
            Side::Left => 1,
            Side::Right => 2,
        };
        self.subsumed(tag, &key, shared)
    }
}

/// The bounds of a comparison beyond k and l.
#[derive(Clone, Copy, Debug)]
pub struct Sizes {
    /// The nested applications each library makes itself
    /// ([`super::config::Config::unfold`]).
    pub unfold: u32,
    /// The most elements of a list the client plays ([`super::config::Config::lists`]).
    pub lists: u32,
}

impl<'p> ProductGame<'p> {
    /// The product of `left` and `right` at the bounds of `brief` and `sizes` (the
    /// nested applications that each library makes itself, [`Config::unfold`], and the
    /// length of the lists the client plays, [`Config::lists`]), and
    /// configurations met before not explored again if `memo` ([`Met`]); refused
    /// unless both have the same public methods and imports (by name, with the same
    /// types).
    pub fn new(
        left: &'p Library,
        right: &'p Library,
        brief: &Brief,
        sizes: Sizes,
        memo: bool,
    ) -> Result<ProductGame<'p>, Incomparable> {
        let mut problems = Vec::new();
        let publics = |lib: &'p Library| -> Vec<(String, Name, TypeId)> {
            lib.public
                .iter()
                .map(|&m| {
                    let name = lib.methods[m as usize].name.clone();
                    (name, Name::Method(m), lib.method_code(m).ty)
                })
                .collect()
        };
        let imports = |lib: &'p Library| -> Vec<(String, Name, TypeId)> {
            lib.imports
                .iter()
                .enumerate()
                .map(|(i, import)| (import.name.clone(), Name::Import(i as ImportId), import.ty))
                .collect()
        };
        let methods = pair_up(
            "public method",
            (left, publics(left)),
            (right, publics(right)),
            &mut problems,
        );
        let imported = pair_up(
            "import",
            (left, imports(left)),
            (right, imports(right)),
            &mut problems,
        );
        if !problems.is_empty() {
            return Err(Incomparable(problems));
        }
        let methods = methods.into_iter().map(|(_, c)| c).collect();
        let imports = imported
            .into_iter()
            .filter_map(|(_, c)| match c.right.0 {
                Name::Import(j) => Some(j),
                _ => None,
            })
            .collect();
        let rules = |lib: &'p Library| Rules {
            lib,
            l: brief.bounds.l,
            // Every call is made: a pruning argued for one library's failures says
            // nothing of what a second library does.
            symmetry: false,
            stand_in: None,
            relevance: None,
        };
        let start = |lib| Config {
            unfold: Some(sizes.unfold),
            lists: sizes.lists,
            ..game::start(lib, brief, false)
        };
        let initial = Pair {
            left: start(left),
            right: start(right),
            turn: Turn::Client,
            left_end: None,
            functions: imbl::Vector::new(),
            started: false,
            parted: None,
        };
        let stateless = |cfg: &Config| {
            cfg.store.is_empty() && cfg.heap.as_ref().is_none_or(|h| h.cells.is_empty())
        };
        Ok(ProductGame {
            one_instance: memo && stateless(&initial.left) && stateless(&initial.right),
            left: rules(left),
            right: rules(right),
            methods,
            imports,
            initial,
            shortest: None,
            stuck: Vec::new(),
            met: Met::new(memo),
        })
    }

    /// How many configurations were not explored, being met before.
    pub fn subsumed(&self) -> u64 {
        self.met.subsumed
    }

    /// The right library.
    pub fn right(&self) -> &'p Library {
        self.right.lib
    }

    /// The shortest difference found so far (the first found of its length).
    pub fn shortest(&self) -> Option<&Difference<'p>> {
        self.shortest.as_ref()
    }

    /// The places where a side's path got stuck.
    pub fn stuck(&self) -> &[StuckPlace] {
        &self.stuck
    }

    /// The client's turn: its answer to the library's pending call, if any, then —
    /// while its budget lasts — a call of each public method and of each function the
    /// libraries passed it, each played on both sides with the same values.
    fn client_moves(&mut self, mut pair: Pair<'p>, search: &mut impl Search<'p, Pair<'p>>) {
        if !search.opponent(&mut pair) {
            return;
        }
        // With the memo (as in `check`), twins of functions are not called.
        let functions: Vec<Callable> = if self.met.on {
            pair.distinct_functions().copied().collect()
        } else {
            pair.functions.iter().copied().collect()
        };
        if self.met.pair(&pair, &functions, self.one_instance) {
            return;
        }
        let (llib, rlib) = (self.left.lib, self.right.lib);
        let mut next = Vec::new();
        let mut answered = (Vec::new(), Vec::new());
        moves::answers(&pair.left, llib, &mut |c| answered.0.push(c));
        moves::answers(&pair.right, rlib, &mut |c| answered.1.push(c));
        self.both(&pair, answered, &mut next, search);
        if pair.left.l > 0 {
            if pair.left.k == 0 || pair.right.k == 0 {
                // A call would end at once at the frame limit of one side.
                search.out_of_frames();
            } else {
                let methods: &[Callable] = if self.one_instance && pair.started {
                    &[]
                } else {
                    &self.methods
                };
                let public = methods.iter().map(|c| (c, true));
                for (callable, method) in public.chain(functions.iter().map(|c| (c, false))) {
                    let from = next.len();
                    let mut called = (Vec::new(), Vec::new());
                    call(&pair.left, llib, callable.left, &mut called.0);
                    call(&pair.right, rlib, callable.right, &mut called.1);
                    self.both(&pair, called, &mut next, search);
                    next[from..].iter_mut().for_each(|p| p.started |= method);
                }
            }
        }
        next.into_iter().rev().for_each(|c| search.push(c));
    }

    /// The pairs of one client move played on each side, with the client's writes to
    /// the disclosed cells (the same values: the sides share their symbols and client
    /// names, and offer the locations each has disclosed in the same order).
    fn both(
        &self,
        pair: &Pair<'p>,
        (left, right): (Vec<Config<'p>>, Vec<Config<'p>>),
        next: &mut Vec<Pair<'p>>,
        search: &mut impl Search<'p, Pair<'p>>,
    ) {
        if left.len() != right.len() {
            search.inconclusive("the two sides offer the client different moves".to_string());
            return;
        }
        let written = |cfg, lib| {
            let mut out = Vec::new();
            moves::write_disclosed(cfg, lib, &mut |c| out.push(c));
            out
        };
        for (l, r) in left.into_iter().zip(right) {
            let (l, r) = (written(l, self.left.lib), written(r, self.right.lib));
            if l.len() != r.len() {
                search.inconclusive("the two sides offer the client different writes".to_string());
                return;
            }
            for (l, r) in l.into_iter().zip(r) {
                next.push(Pair {
                    left: l,
                    right: r,
                    turn: Turn::Left,
                    left_end: None,
                    functions: pair.functions.clone(),
                    started: pair.started,
                    parted: None,
                });
            }
        }
    }
}

/// The client's call of `callable` on one side, with its argument in the trace.
fn call<'p>(
    cfg: &Config<'p>,
    lib: &'p Library,
    (name, ty): (Name, TypeId),
    out: &mut Vec<Config<'p>>,
) {
    let Some((param, _)) = lib.types.arrow(ty) else {
        return;
    };
    moves::calls(cfg.clone(), lib, name, param, &mut |mut c, arg| {
        moves::enter(&mut c, name, ty, arg);
        out.push(c);
    });
}

/// `to` continues under `from`'s path condition, model and symbols.
fn share_path(from: &Config, to: &mut Config) {
    to.pc = from.pc.clone();
    to.witness = Arc::clone(&from.witness);
    to.next_sym = from.next_sym;
}

impl<'p> Game<'p> for ProductGame<'p> {
    type Config = Pair<'p>;

    fn library(&self) -> &'p Library {
        self.left.lib
    }

    fn initial(&self) -> Pair<'p> {
        self.initial.clone()
    }

    fn step(&mut self, mut pair: Pair<'p>, search: &mut impl Search<'p, Pair<'p>>) {
        // Branch and bound: a pair's differences are at least as long as its trace, so
        // once a difference is found, nothing as long as it can give a shorter one.
        if self
            .shortest
            .as_ref()
            .is_some_and(|d| pair.least_difference() >= d.moves())
        {
            return;
        }
        let (side, rules) = match pair.turn {
            Turn::Client => return self.client_moves(pair, search),
            Turn::Left | Turn::Alone(Side::Left) => (Side::Left, &self.left),
            Turn::Right | Turn::Alone(Side::Right) => (Side::Right, &self.right),
        };
        let cfg = match side {
            Side::Left => std::mem::replace(&mut pair.left, self.initial.left.clone()),
            Side::Right => std::mem::replace(&mut pair.right, self.initial.right.clone()),
        };
        let mut turn = SideTurn {
            side,
            pair,
            libs: [self.left.lib, self.right.lib],
            imports: &self.imports,
            shortest: &mut self.shortest,
            stuck: &mut self.stuck,
            met: &mut self.met,
            search,
        };
        step::step(cfg, rules, &mut turn);
    }

    fn paths(&self) -> Paths {
        Paths::Compared
    }
}

/// The search of one side's step within the product: its successors go back into
/// pairs, and its stop (a move, a failure) ends its turn.
struct SideTurn<'a, 'p, S> {
    side: Side,
    /// The pair being stepped, whose `side` is a placeholder.
    pair: Pair<'p>,
    /// The left library and the right.
    libs: [&'p Library; 2],
    imports: &'a [ImportId],
    shortest: &'a mut Option<Difference<'p>>,
    stuck: &'a mut Vec<StuckPlace>,
    met: &'a mut Met,
    search: &'a mut S,
}

impl<'p, S: Search<'p, Pair<'p>>> SideTurn<'_, 'p, S> {
    /// Keeps `d` if it is shorter than every difference found before.
    fn found(&mut self, d: Difference<'p>) {
        if self.shortest.as_ref().is_none_or(|s| d.moves() < s.moves()) {
            *self.shortest = Some(d);
        }
    }

    /// The side's turn ended with `cfg` as `end`.
    fn ended(&mut self, cfg: Config<'p>, end: End) {
        let mut pair = self.pair.clone();
        if let Some(parted) = pair.parted.take() {
            // Alone, a failure ends the program where the client sees it; a
            // divergence shows nothing.
            if let End::Failed(..) = end {
                self.completed(pair, &parted, cfg);
            }
            return;
        }
        match self.side {
            Side::Left => {
                share_path(&cfg, &mut pair.right);
                pair.left = cfg;
                pair.left_end = Some(end);
                pair.turn = Turn::Right;
                self.search.push(pair);
            }
            Side::Right => {
                let left_end = pair.left_end.take().unwrap_or(End::Moved);
                self.compare(pair, left_end, cfg, end);
            }
        }
    }

    /// The side playing alone after `parted` reached, in `cfg`, an end of the program
    /// the client sees: the difference is real.
    fn completed(&mut self, mut pair: Pair<'p>, parted: &Parted, cfg: Config<'p>) {
        let witness = Arc::clone(&cfg.witness);
        match self.side {
            Side::Left => pair.left = cfg,
            Side::Right => pair.right = cfg,
        }
        self.found(Difference {
            left: pair.left,
            right: pair.right,
            ends: parted.ends.clone(),
            shared: parted.shared,
            completed: Some(self.side),
            witness,
            what: parted.what.clone(),
        });
    }

    /// The sides stopped differently after the moves of `pair`, the right in `right`
    /// (whose path condition is both's, with the difference, and `witness` a model of
    /// it): a difference, once the client can see it ([`Difference`]).
    fn parted(
        &mut self,
        mut pair: Pair<'p>,
        ends: [End; 2],
        mut right: Config<'p>,
        witness: Arc<Witness>,
        what: String,
    ) {
        let before = |cfg: &Config, end: &End| match end {
            End::Moved => cfg.moves.saturating_sub(1),
            End::Failed(..) | End::Diverged => cfg.moves,
        };
        let shared = before(&pair.left, &ends[0]).min(before(&right, &ends[1]));
        right.witness = witness;
        share_path(&right, &mut pair.left);
        pair.right = right;
        let alone: &[Side] = match &ends {
            [End::Moved, End::Moved] => &[Side::Right, Side::Left],
            [End::Moved, End::Diverged] => &[Side::Left],
            [End::Diverged, End::Moved] => &[Side::Right],
            _ => {
                let witness = Arc::clone(&pair.right.witness);
                return self.found(Difference {
                    left: pair.left,
                    right: pair.right,
                    ends,
                    shared,
                    completed: None,
                    witness,
                    what,
                });
            }
        };
        let parted = Arc::new(Parted { ends, shared, what });
        for &side in alone {
            let mut p = pair.clone();
            p.turn = Turn::Alone(side);
            p.parted = Some(Arc::clone(&parted));
            self.search.push(p);
        }
    }

    /// Both sides have stopped: a match goes on to the client's turn; anything else is
    /// a difference.
    fn compare(
        &mut self,
        mut pair: Pair<'p>,
        left_end: End,
        mut right: Config<'p>,
        right_end: End,
    ) {
        let ends = [left_end.clone(), right_end.clone()];
        let (lm, rm) = match (&left_end, &right_end) {
            // The client sees both crash alike, or waits forever on both.
            (End::Failed(..), End::Failed(..)) | (End::Diverged, End::Diverged) => return,
            (End::Moved, End::Moved) => match (pair.left.trace.top(), right.trace.top()) {
                (Some(l), Some(r)) => (l.clone(), r.clone()),
                _ => return,
            },
            (l, r) => {
                let what = format!("the left side {} where the right {}", l.verb(), r.verb());
                let witness = Arc::clone(&right.witness);
                return self.parted(pair, ends, right, witness, what);
            }
        };
        let mut matched = Matched::default();
        let target = lm.dir == rm.dir
            && match (lm.dir, lm.name, rm.name) {
                (Dir::Ret, _, _) => true,
                (Dir::Call, Name::Client(a), Name::Client(b)) => a == b,
                (Dir::Call, Name::Import(a), Name::Import(b)) => {
                    self.imports.get(a as usize) == Some(&b)
                }
                _ => false,
            };
        let (left_sees, right_sees) = (disclosed(&pair.left), disclosed(&right));
        let shape = target
            && matched.values(
                (self.libs[0], &pair.left),
                &lm.value,
                (self.libs[1], &right),
                &rm.value,
                self.imports,
            )
            && left_sees.len() == right_sees.len()
            && left_sees.iter().zip(&right_sees).all(|(l, r)| {
                matched.values(
                    (self.libs[0], &pair.left),
                    l,
                    (self.libs[1], &right),
                    r,
                    self.imports,
                )
            });
        if !shape {
            let what = if target {
                "the values differ in shape or in the functions passed".to_string()
            } else {
                "the moves differ in kind or target".to_string()
            };
            let witness = Arc::clone(&right.witness);
            return self.parted(pair, ends, right, witness, what);
        }
        let Ok(equal) = matched.equal() else {
            let reason = "a value could not be compared".to_string();
            return self.search.inconclusive(reason);
        };
        if let Some(equal) = equal {
            let [same, different] = self.search.sides(&right, &equal);
            if let Some(w) = different {
                let mut differing = right.clone();
                differing.assume(equal.clone(), false, Arc::clone(&w));
                let in_cells = [&pair.left, &right]
                    .iter()
                    .any(|c| c.heap.as_ref().is_some_and(|h| !h.disclosed.is_empty()));
                let what = if in_cells {
                    "the integers differ (in the moves or in the cells the client holds)"
                } else {
                    "the integers differ"
                };
                let what = what.to_string();
                self.parted(pair.clone(), ends, differing, w, what);
            }
            let Some(w) = same else {
                return;
            };
            right.assume(equal, true, w);
        }
        share_path(&right, &mut pair.left);
        pair.right = right;
        pair.turn = Turn::Client;
        pair.left_end = None;
        for f in matched.functions {
            // A function left in a disclosed cell is met again at every move.
            if !pair.functions.contains(&f) {
                pair.functions.push_back(f);
            }
        }
        self.search.push(pair);
    }
}

/// What a matched pair of move values gives: the pairs of integers that must be
/// equal, and the library functions passed, paired in order.
#[derive(Default)]
struct Matched {
    ints: Vec<(Term, Term)>,
    functions: Vec<Callable>,
}

impl Matched {
    /// Whether `l` (a value of the left's configuration, with its library) and `r` (of
    /// the right's) have the same shape, and where both pass a function of the
    /// client's, the same one (`imports` maps the left's imports to the right's).
    fn values(
        &mut self,
        left: (&Library, &Config),
        l: &Value,
        right: (&Library, &Config),
        r: &Value,
        imports: &[ImportId],
    ) -> bool {
        match (l, r) {
            (Value::Unit, Value::Unit) => true,
            (Value::Int(a), Value::Int(b)) => {
                self.ints.push((a.clone(), b.clone()));
                true
            }
            (Value::Pair(a), Value::Pair(b)) | (Value::Cons(a), Value::Cons(b)) => {
                self.values(left, &a.0, right, &b.0, imports)
                    && self.values(left, &a.1, right, &b.1, imports)
            }
            // Lists of different lengths differ whatever their elements.
            (Value::Nil, Value::Nil) => true,
            // Locations correspond when each side disclosed them as the same one.
            (Value::Loc(a), Value::Loc(b)) => {
                let at = |cfg: &Config, n: u32| {
                    let heap = cfg.heap.as_deref()?;
                    heap.disclosed.iter().position(|&m| m == n)
                };
                at(left.1, *a).is_some_and(|i| at(right.1, *b) == Some(i))
            }
            // The client's own function on both sides: the same one, or a difference
            // its calls show.
            (Value::Fun(a), Value::Fun(b)) if !a.is_library_owned() && !b.is_library_owned() => {
                match (a, b) {
                    (Name::Client(x), Name::Client(y)) => x == y,
                    (Name::Import(x), Name::Import(y)) => imports.get(*x as usize) == Some(y),
                    _ => false,
                }
            }
            // Otherwise a new name for the client on both sides, whoever owns it: a
            // function of the client's passed back is called through the library,
            // like any library function that calls it (Hobbit's knowledge of
            // functions), so that `f` and `fun x -> f x` correspond.
            (Value::Fun(a), Value::Fun(b)) => {
                let types = (
                    moves::name_type(left.1, left.0, *a),
                    moves::name_type(right.1, right.0, *b),
                );
                match types {
                    (Some(lt), Some(rt)) => {
                        self.functions.push(Callable {
                            left: (*a, lt),
                            right: (*b, rt),
                        });
                        true
                    }
                    _ => false,
                }
            }
            _ => false,
        }
    }

    /// The condition that every pair of integers is equal; `None` when each pair is
    /// one term (nothing to ask). (Only a division can fail to make a term.)
    fn equal(&self) -> Result<Option<Term>, DivisionByZero> {
        let mut all: Option<Term> = None;
        for (a, b) in &self.ints {
            if same_term(a, b) {
                continue;
            }
            let eq = Term::binary(BinOp::Eq, a, b)?;
            all = Some(match all {
                None => eq,
                Some(acc) => Term::binary(BinOp::And, &acc, &eq)?,
            });
        }
        Ok(all)
    }
}

impl<'p, S: Search<'p, Pair<'p>>> Sides<'p> for SideTurn<'_, 'p, S> {
    fn sides(&mut self, cfg: &Config<'p>, cond: &Term) -> [Option<Arc<Witness>>; 2] {
        self.search.sides(cfg, cond)
    }
}

impl<'p, S: Search<'p, Pair<'p>>> Search<'p> for SideTurn<'_, 'p, S> {
    /// Alone, the client's turn: once every call was answered, the client can end
    /// the program; before, it moves. Otherwise never reached within a side's turn,
    /// which starts after a client move: a side waiting for the client has made its
    /// move.
    fn opponent(&mut self, cfg: &mut Config<'p>) -> bool {
        match self.pair.parted.clone() {
            Some(parted) if cfg.stack.is_empty() => {
                self.completed(self.pair.clone(), &parted, cfg.clone());
                false
            }
            Some(parted) => !self.met.alone(self.side, cfg, parted.shared),
            None => {
                self.ended(cfg.clone(), End::Moved);
                false
            }
        }
    }

    fn push(&mut self, cfg: Config<'p>) {
        if self.pair.parted.is_none() && matches!(cfg.control, Control::Opponent) {
            return self.ended(cfg, End::Moved);
        }
        let mut pair = self.pair.clone();
        match self.side {
            Side::Left => pair.left = cfg,
            Side::Right => pair.right = cfg,
        }
        self.search.push(pair);
    }

    fn fail(
        &mut self,
        cfg: &Config<'p>,
        zero: Option<&Term>,
        kind: FailureKind,
        span: Span,
        witness: &Witness,
    ) {
        let mut failed = cfg.clone();
        if let Some(zero) = zero {
            failed.assume(zero.clone(), false, Arc::new(witness.clone()));
        }
        self.ended(failed, End::Failed(kind, span));
    }

    fn stuck(&mut self, reason: StuckReason, span: Span) {
        let place = StuckPlace {
            side: self.side,
            reason,
            span,
        };
        if !self.stuck.contains(&place) {
            self.stuck.push(place);
        }
    }

    fn out_of_frames(&mut self) {
        self.search.out_of_frames();
    }

    fn diverged(&mut self, cfg: &Config<'p>) {
        self.ended(cfg.clone(), End::Diverged);
    }

    fn best(&self) -> Option<&[u32]> {
        None
    }

    fn skipped_calls(&mut self, skipped: Skipped) {
        self.search.skipped_calls(skipped);
    }

    fn inconclusive(&mut self, reason: String) {
        self.search.inconclusive(reason);
    }
}

/// The contents of the disclosed cells, in order of disclosure: what the client can
/// read after a library move. (A cell whose content was never written holds nothing
/// the client could read: `Unit` stands for it on both sides.)
fn disclosed(cfg: &Config) -> Vec<Value> {
    let Some(heap) = cfg.heap.as_deref() else {
        return Vec::new();
    };
    (heap.disclosed.iter())
        .map(|&n| {
            (heap.cells.get(n as usize))
                .and_then(|c| c.content.clone())
                .unwrap_or(Value::Unit)
        })
        .collect()
}

/// Whether `a` and `b` are certainly one value: equal constants, or one shared term.
fn same_term(a: &Term, b: &Term) -> bool {
    match (a, b) {
        (Term::Const(x), Term::Const(y)) => x == y,
        (Term::Node(x), Term::Node(y)) => Arc::ptr_eq(x, y),
        _ => false,
    }
}
