//! Subsumption of opponent configurations: a configuration that is, up to renaming,
//! one already fully explored with at least the same budgets need not be explored
//! again, when what lies below cannot shorten any failure found.
//!
//! The key of an opponent configuration is a canonical text of everything its future
//! depends on: the store, the evaluation stack (client-call markers, and the suspended
//! continuations of pending P-calls), the revealed names, and the conjuncts of the path
//! condition connected to the symbols still live (reachable from those). Symbols, client
//! function names and closures are renamed in order of first occurrence in a fixed
//! traversal; a closure is written out (code and captured values) where it first occurs.
//! The budgets — k, the current l, and the saved l of every pending client call (top
//! first), with the callbacks the split's stand-in has left — are kept beside the key
//! and compared pointwise.
//!
//! Each entry carries a summary: every failure site reached below it, with the fewest
//! moves taken from it (failures below a configuration it pruned count too, through
//! that entry's summary).
//!
//! Why pruning is sound for the default report (every failure site, with its minimal
//! trace length). Let C be fully explored at trace length m with budgets b, and C' have
//! the same key at trace length m' with budgets b' ≤ b.
//! * Same key means the same future up to renaming: the machine reads nothing else
//!   (the trace and the witness only shape the printed trace and where the solver
//!   starts), fresh names are numbered past everything live, and the conjuncts left
//!   out of the key mention only symbols that can never occur again, are satisfiable
//!   together (the path condition is) and share no symbol with anything the future
//!   asks — so every future condition is satisfiable from C' iff it is from C.
//! * Bounded exploration is monotone in the budgets: k only ends a path at 0, l only
//!   forbids client calls at 0, a saved l becomes the current l on a P-return, and
//!   the stand-in may always return instead of calling back. With larger budgets
//!   every move sequence stays possible.
//! * Hence a failure reached from C' by a suffix s is reached from C by s, at the same
//!   site, so the site is in C's summary with at most |s| moves. If m ≤ m', it was
//!   reported with m + |s| ≤ m' + |s| moves while C was explored. Otherwise C' is
//!   pruned only when, for every site in C's summary, the shortest failure found is no
//!   longer than m' plus the summary's moves — which is at most m' + |s|.
//!
//! With a trace-length limit (`first`), an entry whose subtree the limit cut has an
//! incomplete summary; it subsumes only in its own pass and only with m ≤ m' (measured
//! from the limit). The same rule makes branch and bound exact: its limit (the longest
//! shortest trace, once every site has one) only falls, so a configuration met with
//! m' ≥ m has no room under the limit that the cut entry did not have; a failure it
//! could still improve would have been found below the entry at m + |s| ≤ m' + |s|.
//! So are the last calls left out for a bound per site ([`super::relevance`]): the
//! length found per site only falls, and below a configuration met with m' ≥ m the
//! same last call comes with at least as many moves. A configuration pruned by a cut
//! entry counts as cut itself: the summaries of the entries above it are as short as
//! that entry's, and without the mark one of them, explored with more moves, would
//! prune by its summary a configuration met with fewer, whose shorter traces the cut
//! never bounded (a review found a library where a site lost its shortest trace so).
//!
//! A configuration still on the search stack (not fully explored) never subsumes: its
//! entry is made when the marker pushed beneath its successors comes off the worklist.
//! Inert references ([`super::inert`]) are left out of keys and shapes: no step of the
//! machine depends on their contents, so configurations that differ only there have the
//! same future.
//!
//!
//! Stuck paths ([`super::CheckResult::stuck`]) are kept the same way: the place where a
//! path gets stuck is a node of the library's code reached by the same steps, so a
//! pruned configuration's stuck places were all met below the entry that subsumes it
//! (cuts aside, which only come from a limit or from branch and bound after a failure,
//! when the verdict is unsafe anyway). The only steps whose place the key would not
//! fix are the application of a value that is not a function, and `fst`, `snd`, `not`
//! on one, since their frames hold no code otherwise; for a library that may get stuck
//! ([`crate::library::Library::may_get_stuck`]) the key names those nodes too.
//!
//! ML-like references (`lang/references.md` §4.1). Locations are renamed in order of
//! first occurrence like symbols; where one first occurs its cell is written: the type
//! it holds, and its content unless it is disclosed. Disclosed contents are dead at an
//! opponent configuration: every successor is a client move, after which every
//! disclosed cell holds a pending client write, chosen afresh when read — so two
//! configurations that differ there read the same values. Undisclosed cells that the
//! traversal does not reach are garbage (nothing can name them again); disclosed ones it
//! does not reach are counted per type, since the client may still pass them and they
//! are interchangeable. Owners are not written: the library cannot observe them, and
//! the client's choices depend on type and disclosure only. Same key therefore means
//! isomorphic by a renaming of symbols, names, closures and locations that maps live
//! cells to live cells with equal contents and disclosed to disclosed of the same type;
//! fresh locations are numbered past every cell, and the client's choices are built
//! from the disclosed locations by type, so the renaming maps one configuration's
//! choices onto the other's. Without locations nothing is written, and keys are those
//! of HOLiK's fragment byte for byte.
//!
//! Keys are stored as 128-bit hashes of the canonical text; two different texts with
//! the same hash would be a 2⁻¹²⁸-scale accident.

use super::config::{connected_conjuncts, Closure, Config, Frame, GameFrame, PcNode};
use super::term::{Node, Term};
use super::value::{Env, Name, Value};
use num_traits::ToPrimitive;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::HashMap;
use std::fmt::Write;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::sync::Arc;

/// The canonical key of an opponent configuration and its budgets.
pub struct Key {
    hash: u128,
    /// k, l, then the saved l of every pending client call (and the callbacks left and
    /// saved l of every stand-in), top first.
    budgets: Vec<u32>,
    /// Its shape, when semantic subsumption is on and it has symbolic integers.
    pub shape: Option<Shape>,
}

impl Key {
    pub fn budgets(&self) -> &[u32] {
        &self.budgets
    }

    /// The 128-bit hash of the canonical text.
    pub fn hash(&self) -> u128 {
        self.hash
    }
}

/// The values a shape's terms can take in an explored configuration: a formula over
/// the slots (see [`super::solver::Solver::project`]) of its terms under its path
/// condition, made when first needed since most shapes never recur. The terms are
/// holi terms, so a region can be handed to other tasks ([`Shared`]), which project it
/// in their own contexts.
struct Region {
    pending: Arc<Pending>,
    /// The formula, once asked for; `None` inside if it could not be made.
    known: Option<Option<z3::ast::Bool>>,
}

/// What a region is made from.
struct Pending {
    pc: Option<Arc<PcNode>>,
    terms: Vec<Term>,
}

/// An opponent configuration up to the values of its symbolic integers: what
/// semantic subsumption compares.
pub struct Shape {
    hash: u128,
    /// The symbolic integers, in the order of the holes.
    pub terms: Vec<Term>,
    pub pc: Option<Arc<PcNode>>,
}

#[derive(Clone)]
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
    /// Every failure site reached below it, with the fewest moves it took from here.
    summary: Summary,
}

/// Failure sites (numbered by the search) and the fewest moves taken to each from an
/// opponent configuration, sorted by site.
pub type Summary = Vec<(u32, u32)>;

/// Lowers the moves to `site` in `summary` to `suffix` if that is fewer.
pub fn record(summary: &mut Summary, site: u32, suffix: u32) {
    match summary.binary_search_by_key(&site, |&(s, _)| s) {
        Ok(i) => summary[i].1 = summary[i].1.min(suffix),
        Err(i) => summary.insert(i, (site, suffix)),
    }
}

impl Entry {
    /// Whether every configuration `other` subsumes, this one subsumes too.
    fn covers(&self, other: &Entry) -> bool {
        self.moves <= other.moves
            && dominates(&self.budgets, &other.budgets)
            && (!self.cut || (other.cut && self.pass == other.pass))
            && self.summary.iter().all(|&(site, suffix)| {
                other
                    .summary
                    .binary_search_by_key(&site, |&(s, _)| s)
                    .is_ok_and(|i| other.summary[i].1 <= suffix)
            })
    }

    /// Whether it subsumes a configuration with its key and `budgets`, met at `visit`.
    fn subsumes(&self, budgets: &[u32], visit: &Visit) -> bool {
        if !dominates(&self.budgets, budgets) {
            return false;
        }
        if self.cut {
            return self.pass == visit.pass && self.moves <= visit.relative;
        }
        // Explored no later in the trace: everything below was reported no longer.
        // Explored later: what lies below is known, and it is pruned when nothing
        // there, reached sooner from here, would beat what was found.
        self.moves <= visit.relative
            || self.summary.iter().all(|&(site, suffix)| {
                visit
                    .best
                    .get(site as usize)
                    .is_some_and(|&b| b <= visit.moves + suffix)
            })
    }
}

/// Where the search meets an opponent configuration.
pub struct Visit<'a> {
    /// Its trace length, and that less the trace-length limit of the search (if any).
    pub moves: u32,
    pub relative: i64,
    /// The pass of the deepening search.
    pub pass: u32,
    /// The shortest failure found so far, by site.
    pub best: &'a [u32],
}

/// Makes the region of a shape's terms under a path condition (see [`Region`]).
pub type Projector<'a> = dyn FnMut(&Option<Arc<PcNode>>, &[Term]) -> Option<z3::ast::Bool> + 'a;

/// Keys kept at most, about 150 bytes each: a few hundred MB. A region counts as
/// [`REGION_WEIGHT`] keys: it keeps its path condition and terms alive.
const MAX_KEYS: usize = 1 << 22;
const REGION_WEIGHT: usize = 4;

/// Regions kept per shape at most: each costs a disjunct in every check of the shape.
const MAX_REGIONS: usize = 64;

/// Fully explored opponent configurations, by key; and by shape, with the region of
/// values their symbolic integers could take.
#[derive(Default)]
pub struct Memo {
    table: HashMap<u128, Vec<Entry>, BuildHasherDefault<KeyHasher>>,
    regions: HashMap<u128, Vec<(Entry, Region)>, BuildHasherDefault<KeyHasher>>,
    /// Regions kept, over all shapes.
    region_count: usize,
    buffers: Buffers,
    /// References left out of keys and shapes, by id ([`super::inert`]).
    inert: Vec<bool>,
    /// Write the nodes of frames that matter only for where a path gets stuck.
    stuck_nodes: bool,
    /// What earlier tasks of a parallel search committed ([`Shared`]).
    shared: Shared,
    /// The formulas of the shared regions asked for, by the address of what they are
    /// made from (held here, so the address stays theirs).
    shared_known: HashMap<usize, (Arc<Pending>, Option<z3::ast::Bool>)>,
}

/// The entries earlier tasks of a parallel search ([`super::tasks`]) committed, by
/// key, and their regions by shape: as what they are made from, since a formula
/// belongs to one thread's solver context. Any subset of the entries and regions is
/// sound, so a task that sees only some of them is still exact.
#[derive(Clone, Default)]
pub struct Shared {
    table: imbl::OrdMap<u128, Arc<Vec<Entry>>>,
    regions: imbl::OrdMap<u128, Arc<ShapeRegions>>,
    region_count: usize,
}

/// The regions committed for one shape, oldest first, with their entries.
type ShapeRegions = Vec<(Entry, Arc<Pending>)>;

/// The entries one task made, in the order of their keys, and its regions, in the
/// order of their shapes and, per shape, as made: to be committed.
pub struct Entries {
    keys: Vec<(u128, Entry)>,
    regions: Vec<(u128, Entry, Arc<Pending>)>,
}

impl Shared {
    /// Adds a task's `entries`, keeping per key only those no other covers, as
    /// [`Memo::insert`] does, and per shape the last [`MAX_REGIONS`] regions.
    pub fn commit(&mut self, entries: Entries) {
        let weight = REGION_WEIGHT * (self.region_count + entries.regions.len());
        if self.table.len() + entries.keys.len() + weight >= MAX_KEYS {
            *self = Shared::default();
        }
        for (hash, new) in entries.keys {
            let mut kept = self.table.get(&hash).map_or_else(Vec::new, |e| e.to_vec());
            if kept.iter().any(|e| e.covers(&new)) {
                continue;
            }
            kept.retain(|e| !new.covers(e));
            kept.push(new);
            self.table.insert(hash, Arc::new(kept));
        }
        for (hash, entry, pending) in entries.regions {
            let mut kept = self
                .regions
                .get(&hash)
                .map_or_else(Vec::new, |e| e.to_vec());
            if kept.len() >= MAX_REGIONS {
                kept.remove(0);
                self.region_count -= 1;
            }
            kept.push((entry, pending));
            self.region_count += 1;
            self.regions.insert(hash, Arc::new(kept));
        }
    }
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
    /// An empty memo whose keys leave out the references flagged in `inert`, and name
    /// the nodes where a path may get stuck if `stuck_nodes` (see the module docs).
    pub fn new(inert: Vec<bool>, stuck_nodes: bool) -> Memo {
        Memo {
            inert,
            stuck_nodes,
            ..Memo::default()
        }
    }

    /// A fully explored configuration that subsumes one with `key` met at `visit`:
    /// its summary, which holds for the subsumed configuration too, and whether a cut
    /// below it may have left the summary short.
    pub fn subsumes(&self, key: &Key, visit: &Visit) -> Option<(&Summary, bool)> {
        fn find<'e>(entries: &'e [Entry], key: &Key, visit: &Visit) -> Option<(&'e Summary, bool)> {
            entries
                .iter()
                .find(|e| e.subsumes(&key.budgets, visit))
                .map(|e| (&e.summary, e.cut))
        }
        let local = self.table.get(&key.hash).and_then(|e| find(e, key, visit));
        local.or_else(|| find(self.shared.table.get(&key.hash)?, key, visit))
    }

    /// Subsumes with what earlier tasks committed, too.
    pub fn share(&mut self, shared: Shared) {
        self.shared = shared;
        self.shared_known.clear();
    }

    /// The entries and regions made here (not those shared), in the order of their
    /// keys and shapes.
    pub fn take_entries(&mut self) -> Entries {
        let mut keys: Vec<(u128, Entry)> = self
            .table
            .drain()
            .flat_map(|(hash, entries)| entries.into_iter().map(move |e| (hash, e)))
            .collect();
        keys.sort_by_key(|(hash, _)| *hash);
        let mut regions: Vec<(u128, Entry, Arc<Pending>)> = self
            .regions
            .drain()
            .flat_map(|(hash, regions)| {
                regions
                    .into_iter()
                    .map(move |(e, region)| (hash, e, region.pending))
            })
            .collect();
        // Stable: a shape's regions stay in the order they were made.
        regions.sort_by_key(|(hash, ..)| *hash);
        self.region_count = 0;
        Entries { keys, regions }
    }

    /// The regions of fully explored configurations with `shape` — those shared
    /// first, then those made here — that would subsume one with `budgets` met at
    /// `visit` if it had their key (as [`Memo::subsumes`]), with their summaries and
    /// whether a cut may have left them short; `project` makes a region the first time
    /// it is needed.
    pub fn regions(
        &mut self,
        shape: &Shape,
        budgets: &[u32],
        visit: &Visit,
        project: &mut Projector,
    ) -> Vec<(z3::ast::Bool, Summary, bool)> {
        let mut out = Vec::new();
        for (e, pending) in self
            .shared
            .regions
            .get(&shape.hash)
            .into_iter()
            .flat_map(|r| r.iter())
        {
            if !e.subsumes(budgets, visit) {
                continue;
            }
            let at = Arc::as_ptr(pending) as usize;
            let (_, known) = self
                .shared_known
                .entry(at)
                .or_insert_with(|| (Arc::clone(pending), project(&pending.pc, &pending.terms)));
            if let Some(formula) = known {
                out.push((formula.clone(), e.summary.clone(), e.cut));
            }
        }
        for (e, region) in self.regions.get_mut(&shape.hash).into_iter().flatten() {
            if !e.subsumes(budgets, visit) {
                continue;
            }
            let pending = &region.pending;
            let known = region
                .known
                .get_or_insert_with(|| project(&pending.pc, &pending.terms));
            if let Some(formula) = known {
                out.push((formula.clone(), e.summary.clone(), e.cut));
            }
        }
        out
    }

    /// Records that the configuration with `key` at `moves` moves is fully explored
    /// (cut off by the limit of `pass` somewhere below, if `cut`), with the failures
    /// below it in `summary`; forgets the entries it makes redundant.
    pub fn insert(&mut self, key: Key, moves: i64, cut: bool, pass: u32, summary: Summary) {
        let new = Entry {
            budgets: key.budgets,
            moves,
            cut,
            pass,
            summary,
        };
        if self.table.len() + REGION_WEIGHT * self.region_count >= MAX_KEYS {
            // Any subset of the entries is sound (they only ever prune), so the memo
            // forgets everything rather than outgrow memory.
            self.table.clear();
            self.regions.clear();
            self.region_count = 0;
        }
        if let Some(shape) = key.shape {
            let regions = self.regions.entry(shape.hash).or_default();
            if regions.len() >= MAX_REGIONS {
                regions.remove(0);
                self.region_count -= 1;
            }
            self.region_count += 1;
            let entry = Entry {
                budgets: new.budgets.clone(),
                summary: new.summary.clone(),
                ..new
            };
            let region = Region {
                pending: Arc::new(Pending {
                    pc: shape.pc,
                    terms: shape.terms,
                }),
                known: None,
            };
            regions.push((entry, region));
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
pub fn dominates(a: &[u32], b: &[u32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x >= y)
}

/// The key of the opponent configuration `cfg`.
pub fn key(memo: &mut Memo, cfg: &Config) -> Key {
    let (hash, budgets) = canonical(memo, cfg, None);
    Key {
        hash,
        budgets,
        shape: None,
    }
}

/// The shape of `cfg` (its key with every symbolic integer left as a hole, and no
/// path condition) and the terms in the holes, in order; `None` if it has no holes.
pub fn shape(memo: &mut Memo, cfg: &Config) -> Option<Shape> {
    let mut terms = Vec::new();
    let (hash, _) = canonical(memo, cfg, Some(&mut terms));
    (!terms.is_empty()).then(|| Shape {
        hash,
        terms,
        pc: cfg.pc.clone(),
    })
}

/// The hash of the canonical text of `cfg` and its budgets; with `holes`, of its shape.
fn canonical(memo: &mut Memo, cfg: &Config, holes: Option<&mut Vec<Term>>) -> (u128, Vec<u32>) {
    let b = &mut memo.buffers;
    b.clear();
    let shape = holes.is_some();
    let mut c = Canon {
        cfg,
        b,
        stuck_nodes: memo.stuck_nodes,
        frozen: false,
        holes,
    };
    let budgets = c.state(&memo.inert);
    if !shape {
        c.b.out.push_str("]C[");
        c.path_condition();
    }
    c.b.out.push(']');
    (hash128(&c.b.out), budgets)
}

/// The key of a configuration of the product of two libraries at the client's turn
/// ([`super::product`]), for a memo of its own: both sides' states, written with one
/// renaming of the symbols and client names they share (closures and locations are
/// each side's own, renamed afresh), the library functions the client holds, paired
/// by position (`functions`), and the path condition the sides share. The budgets are
/// the left's, then the right's. Same key means the same future for the pair, by the
/// argument of the module docs applied to each side under the one renaming.
pub fn pair_key(memo: &mut Memo, left: &Config, right: &Config, functions: &[(Name, Name)]) -> Key {
    let b = &mut memo.buffers;
    b.clear();
    let mut budgets = Vec::new();
    for (side, cfg) in [left, right].into_iter().enumerate() {
        b.closures.clear();
        b.locations.clear();
        b.out.push_str(if side == 0 { "L" } else { "|R" });
        let mut c = Canon {
            cfg,
            b: &mut *b,
            stuck_nodes: memo.stuck_nodes,
            frozen: false,
            holes: None,
        };
        budgets.extend(c.state(&memo.inert));
        c.b.out.push_str("]F[");
        for &(l, r) in functions {
            c.name(if side == 0 { l } else { r });
            c.b.out.push(',');
        }
    }
    let mut c = Canon {
        cfg: right,
        b,
        stuck_nodes: memo.stuck_nodes,
        frozen: false,
        holes: None,
    };
    c.b.out.push_str("]C[");
    c.path_condition();
    c.b.out.push(']');
    Key {
        hash: hash128(&c.b.out),
        budgets,
        shape: None,
    }
}

/// Writes `tag` and `n` in decimal, as `write!(out, "{tag}{n}")` would: keys are
/// written at every client turn, and formatting them cost a tenth of the search.
fn number(out: &mut String, tag: &str, mut n: u64) {
    out.push_str(tag);
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if let Ok(text) = std::str::from_utf8(&digits[at..]) {
        out.push_str(text);
    }
}

/// A 128-bit hash of `value` (two SipHash runs with different salts).
pub fn hash128<T: Hash + ?Sized>(value: &T) -> u128 {
    (u128::from(salted_hash(value, 0)) << 64) | u128::from(salted_hash(value, 1))
}

/// A SipHash of `value` salted with `salt`: the low half of [`hash128`] for salt 1.
pub fn salted_hash<T: Hash + ?Sized>(value: &T, salt: u8) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    salt.hash(&mut h);
    value.hash(&mut h);
    h.finish()
}

/// The canonical text being written and the renamings so far; kept between keys so
/// that their allocations are reused.
#[derive(Default)]
/// Its maps hash small integers with `FxHash`: SipHash's resistance to chosen keys
/// is not needed here, and it cost several times more.
struct Buffers {
    out: String,
    syms: FxHashMap<u32, usize>,
    clients: FxHashMap<u32, usize>,
    closures: FxHashMap<u32, usize>,
    /// Compound terms written, by address.
    nodes: FxHashMap<usize, usize>,
    locations: FxHashMap<u32, usize>,
}

impl Buffers {
    /// Empties the text and the renamings, keeping their allocations.
    fn clear(&mut self) {
        self.out.clear();
        self.syms.clear();
        self.clients.clear();
        self.closures.clear();
        self.nodes.clear();
        self.locations.clear();
    }
}

struct Canon<'a, 'p> {
    cfg: &'a Config<'p>,
    b: &'a mut Buffers,
    stuck_nodes: bool,
    /// No more numbering of compound terms: the path condition's conjuncts are sorted,
    /// so they may refer to terms of the state but not to each other.
    frozen: bool,
    /// Writing a shape: the symbolic integers, each written as a hole.
    holes: Option<&'a mut Vec<Term>>,
}

impl Canon<'_, '_> {
    /// Writes the store (leaving out the references flagged in `inert`), the
    /// evaluation stack, the revealed names and the disclosed cells not reached;
    /// returns the budgets.
    fn state(&mut self, inert: &[bool]) -> Vec<u32> {
        let cfg = self.cfg;
        let mut budgets = vec![cfg.k, cfg.l];
        budgets.extend(cfg.unfold);
        self.b.out.push_str("S[");
        for (i, slot) in cfg.store.iter().enumerate() {
            match slot {
                _ if inert.get(i).copied().unwrap_or(false) => self.b.out.push('*'),
                Some(v) => self.value(v),
                None => self.b.out.push('_'),
            }
            self.b.out.push(',');
        }
        self.b.out.push_str("]E[");
        for frame in cfg.stack.iter() {
            match frame {
                GameFrame::OCall { name, ty, saved_l } => {
                    budgets.push(*saved_l);
                    self.b.out.push_str("O:");
                    self.name(*name);
                    let _ = write!(self.b.out, ":{ty}");
                }
                // More callbacks left, like more budget, only allow more moves.
                GameFrame::StandIn { remaining, saved_l } => {
                    budgets.push(*remaining);
                    budgets.push(*saved_l);
                    self.b.out.push('T');
                }
                GameFrame::PCall { name, ty, kont } => {
                    self.b.out.push_str("P:");
                    self.name(*name);
                    let _ = write!(self.b.out, ":{ty:?}[");
                    for f in kont.iter() {
                        self.frame(f);
                    }
                    self.b.out.push(']');
                }
            }
            self.b.out.push(';');
        }
        self.b.out.push_str("]R[");
        for (i, (name, ty)) in cfg.revealed.iter().enumerate() {
            // The search never calls it (`moves::opponent_moves`), so its future is that
            // of the configuration without it.
            if cfg.duplicates_earlier_revealed(i) {
                continue;
            }
            self.name(*name);
            let _ = write!(self.b.out, ":{ty},");
        }
        self.unreached_disclosed();
        budgets
    }

    fn value(&mut self, v: &Value) {
        match v {
            Value::Unit => self.b.out.push('u'),
            Value::Int(t @ Term::Node(_)) if self.holes.is_some() => {
                self.b.out.push('?');
                if let Some(holes) = &mut self.holes {
                    holes.push(t.clone());
                }
            }
            Value::Int(t) => self.term(t),
            Value::Pair(p) => {
                self.b.out.push('<');
                self.value(&p.0);
                self.b.out.push(',');
                self.value(&p.1);
                self.b.out.push('>');
            }
            Value::Nil => self.b.out.push('n'),
            Value::Cons(p) => {
                self.b.out.push('[');
                self.value(&p.0);
                self.b.out.push(',');
                self.value(&p.1);
                self.b.out.push(']');
            }
            Value::Fun(name) => self.name(*name),
            Value::Loc(n) => self.location(*n),
        }
    }

    fn term(&mut self, t: &Term) {
        match t {
            // The text of `write!("#{i}")`, without formatting a big integer.
            Term::Const(i) => match i.to_i64() {
                Some(v) if v < 0 => number(&mut self.b.out, "#-", v.unsigned_abs()),
                Some(v) => number(&mut self.b.out, "#", v as u64),
                None => {
                    let _ = write!(self.b.out, "#{i}");
                }
            },
            Term::Node(node) => match &**node {
                // A shared subterm met again is written as a reference to its first
                // occurrence: shorter, and the text still determines the term.
                Node::Bin(..) | Node::Not(_) if self.seen(node) => {}
                Node::Sym(n) => {
                    let next = self.b.syms.len();
                    let i = *self.b.syms.entry(*n).or_insert(next);
                    number(&mut self.b.out, "s", i as u64);
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
    fn seen(&mut self, node: &std::sync::Arc<Node>) -> bool {
        let next = self.b.nodes.len();
        match self.b.nodes.entry(std::sync::Arc::as_ptr(node) as usize) {
            std::collections::hash_map::Entry::Occupied(e) => {
                number(&mut self.b.out, "^", *e.get() as u64);
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

    /// A location, renamed in order of first occurrence; at its first occurrence its
    /// cell: the type it holds, then `D` if disclosed (its content is dead: see the
    /// module docs) or `U` and its content.
    fn location(&mut self, n: u32) {
        let next = self.b.locations.len();
        let i = *self.b.locations.entry(n).or_insert(next);
        number(&mut self.b.out, "Q", i as u64);
        if i != next {
            return;
        }
        let cell = self
            .cfg
            .heap
            .as_deref()
            .and_then(|h| h.cells.get(n as usize));
        let Some(cell) = cell else {
            return;
        };
        let _ = write!(self.b.out, "{{{:?}", cell.ty);
        if cell.disclosed {
            self.b.out.push('D');
        } else {
            self.b.out.push('U');
            match &cell.content {
                Some(v) => self.value(v),
                None => self.b.out.push('_'),
            }
        }
        self.b.out.push('}');
    }

    /// How many disclosed locations of each type the traversal did not reach: the
    /// client may still pass them, and only their number and type matter.
    fn unreached_disclosed(&mut self) {
        let Some(heap) = self.cfg.heap.as_deref() else {
            return;
        };
        let mut counts: Vec<(Option<u32>, u32)> = Vec::new();
        for &n in heap.disclosed.iter() {
            if self.b.locations.contains_key(&n) {
                continue;
            }
            let ty = heap.cells.get(n as usize).and_then(|c| c.ty);
            match counts.iter_mut().find(|(t, _)| *t == ty) {
                Some((_, count)) => *count += 1,
                None => counts.push((ty, 1)),
            }
        }
        counts.sort();
        self.b.out.push_str("]H[");
        for (ty, count) in counts {
            let _ = write!(self.b.out, "{ty:?}:{count},");
        }
    }

    fn name(&mut self, name: Name) {
        match name {
            Name::Method(m) => {
                number(&mut self.b.out, "M", m as u64);
            }
            Name::Import(i) => {
                number(&mut self.b.out, "I", i as u64);
            }
            Name::Undeclared(u) => {
                number(&mut self.b.out, "U", u as u64);
            }
            Name::Client(n) => {
                let next = self.b.clients.len();
                let i = *self.b.clients.entry(n).or_insert(next);
                number(&mut self.b.out, "F", i as u64);
                if i == next {
                    let ty = self.cfg.clients.get(n as usize).copied();
                    let _ = write!(self.b.out, ":{ty:?}");
                }
            }
            Name::Closure(n) => {
                let next = self.b.closures.len();
                let i = *self.b.closures.entry(n).or_insert(next);
                number(&mut self.b.out, "L", i as u64);
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

    /// The node of a frame whose only effect on the future is where it may get stuck.
    fn stuck_node(&mut self, e: &crate::library::ir::Expr) {
        if self.stuck_nodes {
            number(&mut self.b.out, "@", e as *const _ as usize as u64);
        }
    }

    /// An evaluation-context frame; program points by the address of their node.
    fn frame(&mut self, f: &Frame) {
        let at = |e: &crate::library::ir::Expr| e as *const _ as usize;
        match f {
            Frame::AppArg(e, env) => {
                number(&mut self.b.out, "aa", at(e) as u64);
                self.env(env);
            }
            Frame::AppCall(v, e) => {
                self.b.out.push_str("ac");
                // Applying a function never gets stuck at the application itself.
                if !matches!(v, Value::Fun(name) if !matches!(name, Name::Undeclared(_))) {
                    self.stuck_node(e);
                }
                self.value(v);
            }
            Frame::PairRight(e, env) => {
                number(&mut self.b.out, "pr", at(e) as u64);
                self.env(env);
            }
            Frame::PairMake(v) => {
                self.b.out.push_str("pm");
                self.value(v);
            }
            Frame::ConsRight(e, env) => {
                number(&mut self.b.out, "cr", at(e) as u64);
                self.env(env);
            }
            Frame::ConsMake(v) => {
                self.b.out.push_str("cm");
                self.value(v);
            }
            Frame::Match(e, env) => {
                number(&mut self.b.out, "mt", at(e) as u64);
                self.env(env);
            }
            Frame::Fst(e) => {
                self.b.out.push_str("fst");
                self.stuck_node(e);
            }
            Frame::Snd(e) => {
                self.b.out.push_str("snd");
                self.stuck_node(e);
            }
            Frame::Not(e) => {
                self.b.out.push_str("not");
                self.stuck_node(e);
            }
            Frame::BinRight(e, env) => {
                number(&mut self.b.out, "br", at(e) as u64);
                self.env(env);
            }
            Frame::BinApply(e, v) => {
                number(&mut self.b.out, "ba", at(e) as u64);
                self.value(v);
            }
            Frame::Seq(e, env) => {
                number(&mut self.b.out, "sq", at(e) as u64);
                self.env(env);
            }
            Frame::If(e, env) => {
                number(&mut self.b.out, "if", at(e) as u64);
                self.env(env);
            }
            Frame::Let(e, env) => {
                number(&mut self.b.out, "lt", at(e) as u64);
                self.env(env);
            }
            Frame::Assign(r) => {
                number(&mut self.b.out, "as", u64::from(*r));
            }
            Frame::Alloc(ty) => {
                let _ = write!(self.b.out, "al{ty:?}");
            }
            Frame::Load(e) => {
                number(&mut self.b.out, "ld", at(e) as u64);
            }
            Frame::StoreTarget(e, env) => {
                number(&mut self.b.out, "st", at(e) as u64);
                self.env(env);
            }
            Frame::StoreWrite(v, e) => {
                number(&mut self.b.out, "sw", at(e) as u64);
                self.value(v);
            }
            Frame::Assert(e) => {
                number(&mut self.b.out, "at", at(e) as u64);
            }
            Frame::Box => self.b.out.push_str("box"),
            Frame::Unfolded => self.b.out.push_str("unf"),
        }
        self.b.out.push(';');
    }

    /// The conjuncts connected to the live symbols (those named so far), oldest first,
    /// without repeats. Conjuncts over live symbols only are sorted, so the order in
    /// which a path learnt them does not matter.
    fn path_condition(&mut self) {
        self.frozen = true;
        let live: FxHashSet<u32> = self.b.syms.keys().copied().collect();
        let mut relevant = live.clone();
        let conjuncts = connected_conjuncts(&self.cfg.pc, &mut relevant);
        let mut live_only = Vec::new();
        let mut mixed = Vec::new();
        for p in conjuncts {
            if p.own_symbols.iter().all(|n| live.contains(n)) {
                let start = self.b.out.len();
                self.b.out.push(if p.holds { '+' } else { '-' });
                self.term(&p.term);
                live_only.push(self.b.out.split_off(start));
            } else {
                mixed.push(p);
            }
        }
        live_only.sort();
        live_only.dedup();
        for text in live_only {
            self.b.out.push_str(&text);
            self.b.out.push(';');
        }
        let mut seen = FxHashSet::default();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_written_as_formatting_would() {
        for n in [0, 7, 10, 99, 100, 4_294_967_295, u64::MAX] {
            let mut out = String::new();
            number(&mut out, "ab", n);
            assert_eq!(out, format!("ab{n}"));
        }
    }

    fn entry(moves: i64, summary: Summary) -> Entry {
        Entry {
            budgets: vec![2, 1],
            moves,
            cut: false,
            pass: 0,
            summary,
        }
    }

    fn visit(moves: u32, best: &[u32]) -> Visit<'_> {
        Visit {
            moves,
            relative: i64::from(moves),
            pass: 0,
            best,
        }
    }

    #[test]
    fn a_summary_lets_a_later_explored_turn_subsume_an_earlier_one_that_cannot_do_better() {
        // Explored 10 moves in; site 0 fails 3 moves below it.
        let e = entry(10, vec![(0, 3)]);
        assert!(e.subsumes(&[2, 1], &visit(12, &[13])), "no earlier than it");
        // Met 5 moves in: site 0 would fail at 8; pruned only if 8 was found already.
        assert!(e.subsumes(&[2, 1], &visit(5, &[8])));
        assert!(!e.subsumes(&[2, 1], &visit(5, &[9])));
        // Larger budgets than the entry's are never subsumed.
        assert!(!e.subsumes(&[3, 1], &visit(12, &[13])));
        // Nothing fails below: nothing to shorten.
        assert!(entry(10, Vec::new()).subsumes(&[1, 1], &visit(1, &[])));
    }

    #[test]
    fn an_entry_cut_by_the_trace_length_limit_subsumes_only_in_its_pass_and_no_earlier() {
        let cut = Entry {
            cut: true,
            pass: 4,
            ..entry(-2, Vec::new())
        };
        let mut v = visit(3, &[]);
        v.relative = -1;
        v.pass = 4;
        assert!(cut.subsumes(&[2, 1], &v));
        v.relative = -3;
        assert!(!cut.subsumes(&[2, 1], &v), "more room left than it had");
        v.relative = -1;
        v.pass = 5;
        assert!(!cut.subsumes(&[2, 1], &v));
    }

    /// A region a task makes is handed on with its entry, and a later task's memo
    /// offers it (before its own), made once in that task whenever it is asked for.
    #[test]
    fn committed_regions_are_offered_to_later_tasks_and_projected_once_there() {
        let shape = |hash| Shape {
            hash,
            terms: vec![Term::sym(0)],
            pc: None,
        };
        let key = |shape| Key {
            hash: 1,
            budgets: vec![2, 1],
            shape: Some(shape),
        };
        let mut first = Memo::new(Vec::new(), false);
        first.insert(key(shape(7)), 10, false, 0, vec![(0, 3)]);
        first.insert(key(shape(8)), 10, false, 0, vec![(0, 3)]);
        let mut shared = Shared::default();
        shared.commit(first.take_entries());
        assert_eq!(shared.region_count, 2);
        let mut later = Memo::new(Vec::new(), false);
        later.share(shared);
        later.insert(key(shape(7)), 12, false, 0, vec![(0, 1)]);
        let made = std::cell::Cell::new(0);
        let mut project = |_: &Option<Arc<PcNode>>, _: &[Term]| {
            made.set(made.get() + 1);
            Some(z3::ast::Bool::from_bool(true))
        };
        let best = [13];
        let offered = later.regions(&shape(7), &[2, 1], &visit(12, &best), &mut project);
        let summaries: Vec<&Summary> = offered.iter().map(|(_, s, _)| s).collect();
        assert_eq!(summaries, [&vec![(0, 3)], &vec![(0, 1)]], "shared first");
        // Asked again: neither is projected again.
        later.regions(&shape(7), &[2, 1], &visit(12, &best), &mut project);
        assert_eq!(made.get(), 2);
        // Larger budgets than the shared entry's are not subsumed by it.
        let none = later.regions(&shape(8), &[3, 1], &visit(12, &best), &mut project);
        assert!(none.is_empty());
    }

    #[test]
    fn summaries_record_the_fewest_moves_per_site() {
        let mut s = Summary::new();
        record(&mut s, 3, 7);
        record(&mut s, 1, 4);
        record(&mut s, 3, 5);
        record(&mut s, 3, 9);
        assert_eq!(s, vec![(1, 4), (3, 5)]);
        // An entry covers another when it subsumes whatever the other does.
        assert!(entry(4, vec![(1, 4)]).covers(&entry(6, vec![(1, 2)])));
        assert!(!entry(4, vec![(1, 2)]).covers(&entry(6, vec![(1, 4)])));
        assert!(!entry(4, vec![(2, 9)]).covers(&entry(6, vec![(1, 4)])));
    }
}
