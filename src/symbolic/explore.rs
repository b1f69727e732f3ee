//! Depth-first search over symbolic configurations, with an explicit worklist.
//!
//! Each worklist entry is one configuration; [`step`] runs it to its next stop and
//! hands back its successors, asking this search ([`step::Search`]) to decide branches
//! (with [`branch::Decider`]), to prune opponent configurations and to record what it
//! finds ([`Findings`]). Failures are rendered as they are found.
//!
//! Without `all`, an opponent configuration subsumed by one already fully explored is
//! skipped ([`memo`]); a marker beneath its successors on the worklist records it as
//! fully explored once they are all done. With `first`, the search runs in passes of
//! growing trace-length limit and stops at the first failure.
//!
//! A path that gets stuck ([`super::machine::Stop::Stuck`]) is recorded with its
//! place and reason ([`CheckResult::stuck`]); a complete search without failures but
//! with stuck paths is [`super::Verdict::Stuck`], not safe (unless
//! [`Run::allow_stuck`](super::options::Run::allow_stuck)). Paths of the over-approximation ([`super::overapprox::havoc`])
//! or with the split's stand-in are not the library's own, so their stuck places are
//! not recorded. Every pruning keeps the set of stuck places of a search without
//! failures: subsumption and the symmetry of revealed closures because a pruned
//! configuration's future is one explored ([`memo`]); branch and bound because it
//! starts cutting only after a failure, when the verdict is unsafe whatever else is
//! met; `first` because it stops early only on a failure, and its last pass is the
//! whole search.

use super::branch;
use super::branch::Sides;
use super::brief::Brief;
use super::budget::Budget;
use super::config::Config;
use super::findings::Findings;
use super::memo;
use super::moves::{self, StandIn};
use super::outcome::{CheckResult, Progress, Stats, StuckReason, StuckSite};
use super::overapprox::havoc::{Havoc, Invariant};
use super::overapprox::turn;
use super::plan::{Goal, SearchPlan};
use super::relevance::{Relevance, Skipped};
use super::solver::work;
use super::step::{self, Search};
use super::subsume::{self, Seen};
use super::term::{Term, Witness};
use super::values;
use crate::library::Library;
use crate::syntax::ast::Span;
use crate::trace::{FailureKind, Site};
use std::sync::Arc;
use std::time::Instant;

/// How often (in configurations) progress is reported.
const POLL_EVERY: u64 = 1024;

/// How [`Explorer::advance`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Advance {
    /// The search is complete.
    Done,
    /// Its share is used up (a full lane, or its cap): it can be resumed.
    Capped,
    /// By a limit of the user's (time, configurations, interruption): it is over.
    Stopped,
}

/// A worklist entry: a configuration to explore, or the mark that everything pushed
/// above it — the successors of an opponent configuration — has been explored.
// Nearly every entry is a configuration: boxing them would cost an allocation each.
#[allow(clippy::large_enum_variant)]
enum Work<'p> {
    Explore(Config<'p>),
    /// The key, the trace length as the memo compares it, and the cuts made before.
    Explored(memo::Key, i64, u64),
}

pub struct Explorer<'p, 'o> {
    lib: &'p Library,
    brief: &'o Brief,
    /// Decides symbolic branches (and owns the search's solver).
    decider: branch::Decider,
    initial: Config<'p>,
    worklist: Vec<Work<'p>>,
    /// Fully explored opponent configurations (when subsumption is on).
    memo: Option<memo::Memo>,
    /// The opponent configurations whose markers are on the worklist — ancestors of
    /// whatever is explored — with their trace lengths and the failures below so far.
    open: Vec<(u32, memo::Summary)>,
    /// The failures and stuck paths found, and the bound of branch and bound.
    found: Findings,
    /// The user's limits and the search's share.
    budget: Budget,
    /// Whether the search paused for its share being used up.
    capped: bool,
    /// The longest trace the current pass explores (with `first`, or in
    /// [`Explorer::with_depth_limit`]), and how many configurations were cut off for
    /// being longer.
    depth_limit: Option<u32>,
    cuts: u64,
    /// Explore the over-approximation of [`super::overapprox::havoc`] instead of the library.
    havoc: Option<Havoc>,
    /// The candidate invariants of `havoc` found not to hold, dropped from it.
    violated: Vec<Invariant>,
    /// The split's stand-in, played by the search.
    stand_in: Option<StandIn>,
    /// The footprints of atomic calls, when calls that no shortest failing trace
    /// makes are not made.
    relevance: Option<Arc<Relevance>>,
    stats: Stats,
    inconclusive: Vec<String>,
    /// Whether semantic subsumption's projections pay in this search.
    projections: subsume::Trial,
}

impl<'p, 'o> Explorer<'p, 'o> {
    /// The search of `lib` that `brief` asks for.
    pub fn new(lib: &'p Library, brief: &'o Brief) -> Explorer<'p, 'o> {
        Explorer::asking(lib, brief, branch::Decider::within(brief))
    }

    /// [`Explorer::new`], deciding branches with `decider` (from
    /// [`Explorer::finish_keeping`]): the answers it holds depend on the questions
    /// alone, and searches of one library ask many of the same.
    pub fn asking(
        lib: &'p Library,
        brief: &'o Brief,
        decider: branch::Decider,
    ) -> Explorer<'p, 'o> {
        let plan = brief.plan;
        let relevance = plan.relevance().then(|| Relevance::of(lib, None)).flatten();
        let initial = start(lib, brief, relevance.is_some());
        let memo = plan.memo().then(|| new_memo(lib, plan));
        Explorer {
            lib,
            brief,
            decider,
            worklist: vec![Work::Explore(initial.clone())],
            initial,
            memo,
            open: Vec::new(),
            // Branch and bound aims at every site in the library's live code unless
            // told otherwise ([`Explorer::with_targets`]).
            found: Findings::for_plan(plan, lib),
            budget: Budget::new(&brief.meter),
            capped: false,
            depth_limit: None,
            cuts: 0,
            havoc: None,
            violated: Vec::new(),
            stand_in: None,
            relevance: relevance.map(Arc::new),
            stats: Stats::default(),
            inconclusive: Vec::new(),
            projections: subsume::Trial::default(),
        }
    }

    /// Branch and bound on the sites `targets` alone: only they are sure to keep their
    /// minimal lengths. No targets of its own means branch and bound is off.
    pub fn with_targets(mut self, targets: &[Site]) -> Self {
        if self.found.bounds() {
            self.found.retarget(targets);
        }
        self
    }

    /// A task of a parallel search ([`super::tasks`]): explores `work` (next first)
    /// instead of the start, with the memo entries and regions `shared` and the
    /// shortest lengths `best` (numbered as [`Library::failure_sites`]) that earlier
    /// tasks committed, up to `cap` configurations, on the clock of the whole search
    /// started at `start`.
    pub fn task(
        mut self,
        work: Vec<Config<'p>>,
        shared: memo::Shared,
        best: &[u32],
        cap: u64,
        start: Instant,
    ) -> Self {
        self.worklist = work.into_iter().rev().map(Work::Explore).collect();
        if let Some(memo) = &mut self.memo {
            memo.share(shared);
        }
        self.found.seed(best);
        self.budget.since(start);
        self.budget.cap(cap);
        self
    }

    /// How a task ended: what it found, its counters and notes, the memo entries it
    /// made (none if it numbered a site of its own), its cost as its lane counts it,
    /// and the configurations left on its worklist, next first.
    pub fn into_task(mut self) -> TaskEnd<'p> {
        self.count_solver();
        let mut entries = self.memo.as_mut().map(memo::Memo::take_entries);
        if self.found.unlisted() {
            entries = None;
        }
        let rest = self
            .worklist
            .into_iter()
            .rev()
            .filter_map(|work| match work {
                Work::Explore(cfg) => Some(cfg),
                Work::Explored(..) => None,
            });
        TaskEnd {
            // What the lane was charged: the configurations by their path conditions.
            cost: self.budget.counted() + self.decider.solver.work,
            found: self.found,
            stats: self.stats,
            inconclusive: self.inconclusive,
            entries,
            rest: rest.collect(),
        }
    }

    /// Lets the search play `stand_in` itself ([`StandIn`]).
    pub fn with_stand_in(mut self, stand_in: StandIn) -> Self {
        // The stand-in's code is a placeholder: its calls call the client back.
        if self.relevance.is_some() {
            self.relevance = Relevance::of(self.lib, Some(stand_in.method)).map(Arc::new);
        }
        self.stand_in = Some(stand_in);
        self
    }

    /// Explores the over-approximation `havoc` ([`super::overapprox::havoc`]) instead of the
    /// library, for which sites it reaches, within `budget` configurations.
    pub fn with_havoc(mut self, havoc: Havoc, budget: u64) -> Self {
        // Its client turns write references: no call is left out.
        self.relevance = None;
        self.havoc = Some(havoc);
        self.budget.cap(budget);
        self
    }

    /// The candidate invariants of the over-approximation found not to hold at some
    /// client turn or return. Each is dropped where it is found, and the search goes
    /// on without it: what it finds then is found without it too (see
    /// [`super::overapprox::houdini`]).
    pub fn violated(&self) -> &[Invariant] {
        &self.violated
    }

    /// Explores only traces of at most `max_moves` moves: the shortest failure per
    /// site among those, each site with its minimal length if that is within the
    /// limit. Subsumption stays exact under the limit, because an entry whose subtree
    /// the limit cut subsumes only configurations met with no more room left
    /// ([`memo`]).
    pub fn with_depth_limit(mut self, max_moves: u32) -> Self {
        self.depth_limit = Some(max_moves);
        self
    }

    /// Why the search must stop now, if it must.
    fn out_of_budget(&self) -> Option<String> {
        self.budget.exhausted(self.stats.configurations)
    }

    /// The whole search.
    pub fn run(mut self, progress: &mut dyn FnMut(&Progress)) -> CheckResult {
        self.search(progress);
        self.finish()
    }

    /// Goes on from an earlier attempt of the same search: its clock, counters and
    /// stuck paths, stopping at `cap` configurations in all.
    pub fn continuing(
        mut self,
        start: Instant,
        stats: Stats,
        stuck: Vec<StuckSite>,
        cap: u64,
    ) -> Self {
        self.budget.since(start);
        self.budget.cap(cap);
        self.stats = stats;
        self.found.resume_stuck(stuck);
        self
    }

    /// Goes on with the search until it is done, stopped by a limit, or its lane
    /// ([`Meter::lane`](super::budget::Meter::lane)) is full; in the last case a later call (after the
    /// lane's limit was raised) resumes exactly where it stopped.
    pub fn advance(&mut self, progress: &mut dyn FnMut(&Progress)) -> Advance {
        self.capped = false;
        if self.search(progress) {
            Advance::Done
        } else if self.capped {
            Advance::Capped
        } else {
            Advance::Stopped
        }
    }

    /// Adds the solver's counts to the statistics, once the search is over.
    fn count_solver(&mut self) {
        self.stats.solver_queries += self.decider.solver.queries;
        self.stats.solver_seconds += self.decider.solver.busy.as_secs_f64();
        self.stats.cached_answers += self.decider.cached;
    }

    /// The configurations explored so far.
    pub fn configurations(&self) -> u64 {
        self.stats.configurations
    }

    /// Whether a failure was found.
    pub fn found_failure(&self) -> bool {
        self.found.any_failure()
    }

    /// One pass of iterative deepening ([`super::deepening`]): the search from the start
    /// over traces of at most `depth` moves, keeping the memo. How it ended, and
    /// whether it cut off a configuration for being longer.
    pub fn pass(&mut self, depth: u32, progress: &mut dyn FnMut(&Progress)) -> (Advance, bool) {
        self.stats.deepening_passes += 1;
        self.depth_limit = Some(depth);
        let cuts = self.cuts;
        self.worklist = vec![Work::Explore(self.initial.clone())];
        self.open.clear();
        let end = self.advance(progress);
        (end, self.cuts > cuts)
    }

    /// Explores the worklist; false when stopped by a budget (or by `first`).
    fn search(&mut self, progress: &mut dyn FnMut(&Progress)) -> bool {
        while let Some(work) = self.worklist.pop() {
            let cfg = match work {
                Work::Explore(cfg) => cfg,
                Work::Explored(key, moves, cuts) => {
                    let (_, summary) = self.open.pop().unwrap_or_default();
                    if let Some(memo) = &mut self.memo {
                        let pass = self.stats.deepening_passes;
                        memo.insert(key, moves, self.cuts > cuts, pass, summary);
                    }
                    continue;
                }
            };
            if let Some(reason) = self.out_of_budget() {
                self.note(format!("search stopped: {reason}"));
                return false;
            }
            if self.budget.share_used(self.stats.configurations) {
                // Put back, so that the search can resume here ([`Explorer::advance`]).
                self.worklist.push(Work::Explore(cfg));
                self.capped = true;
                return false;
            }
            let first = self.brief.plan.goal() == Goal::First;
            if first && self.depth_limit.is_some() && self.found.any_failure() {
                return false;
            }
            // The over-approximation is searched only for which sites it reaches.
            if self.havoc.is_some() && self.found.targets_reached() {
                return true;
            }
            let too_long = self.depth_limit.is_some_and(|d| cfg.moves > d)
                || self.found.bound().is_some_and(|b| cfg.moves >= b);
            if too_long {
                self.cuts += 1;
                continue;
            }
            if self.stats.configurations.is_multiple_of(POLL_EVERY) {
                progress(&Progress {
                    configurations: self.stats.configurations,
                    depth: cfg.moves,
                    counterexamples: self.found.failing_traces(),
                    elapsed: self.budget.elapsed(),
                });
            }
            self.stats.configurations += 1;
            self.budget.count(work::configuration(&cfg.pc));
            self.stats.max_moves = self.stats.max_moves.max(cfg.moves);
            let rules = step::Rules {
                lib: self.lib,
                l: self.brief.bounds.l,
                symmetry: self.memo.is_some(),
                stand_in: self.stand_in,
                relevance: self.relevance.clone(),
            };
            step::step(cfg, &rules, self);
            self.budget.charge(self.decider.solver.work);
        }
        true
    }

    /// The client's turn in the over-approximation ([`super::overapprox::turn`]): the candidate
    /// invariants that do not hold here are dropped, then what the client could change
    /// is forgotten.
    fn forget_store(&mut self, cfg: &mut Config<'p>) {
        let Some(mut havoc) = self.havoc.take() else {
            return;
        };
        // Dropped for the rest of this search too: see `violated`.
        let mut refuted = Vec::new();
        let covered = turn::client_turn(self.lib, &mut havoc, cfg, self, &mut refuted);
        self.violated.extend(refuted);
        self.havoc = Some(havoc);
        if !covered {
            self.note("the over-approximation does not cover this library".to_string());
        }
    }

    /// Records why the result is incomplete, once per reason.
    fn note(&mut self, reason: String) {
        if !self.inconclusive.contains(&reason) {
            self.inconclusive.push(reason);
        }
    }

    /// Whether the opponent configuration `cfg` is subsumed by one fully explored
    /// ([`memo`]): same key, or same shape with values inside explored regions. If so,
    /// the failures below it are credited to the open configurations; if not, it is
    /// recorded as open, with a marker beneath its successors.
    fn subsumed(&mut self, cfg: &Config<'p>) -> bool {
        let Some(memo) = &mut self.memo else {
            return false;
        };
        let relative = i64::from(cfg.moves) - i64::from(self.depth_limit.unwrap_or(0));
        let visit = memo::Visit {
            moves: cfg.moves,
            relative,
            pass: self.stats.deepening_passes,
            best: self.found.best(),
        };
        let ask = subsume::Ask {
            solver: &mut self.decider.solver,
            stats: &mut self.stats,
            trial: &mut self.projections,
            lane: self.budget.lane(),
            limit: self.budget.query_limit(),
            semantic: self.brief.plan.semantic(),
        };
        let open = &mut self.open;
        let mut credit = |site, suffix| reached(open, site, cfg.moves + suffix);
        match subsume::look_up(memo, cfg, &visit, ask, &mut credit) {
            Seen::Subsumed { cut } => {
                // The entries above are as short as the one that subsumes it.
                self.cuts += u64::from(cut);
                true
            }
            Seen::New(key) => {
                self.worklist.push(Work::Explored(key, relative, self.cuts));
                self.open.push((cfg.moves, memo::Summary::new()));
                false
            }
        }
    }

    /// The result of the search so far.
    pub fn finish(self) -> CheckResult {
        self.finish_keeping().0
    }

    /// [`Explorer::finish`], and the decider for another search, its counts (in the
    /// result) cleared.
    pub fn finish_keeping(mut self) -> (CheckResult, branch::Decider) {
        if self.capped {
            // Never taken for a complete search, whoever reads it.
            self.note("the search stopped at its share of configurations".to_string());
        }
        self.count_solver();
        self.decider.clear_counts();
        self.stats.seconds = self.budget.elapsed().as_secs_f64();
        let result = self
            .found
            .into_result(self.stats, self.inconclusive, self.brief);
        (result, self.decider)
    }
}

/// See [`Explorer::into_task`].
pub struct TaskEnd<'p> {
    pub found: Findings,
    pub stats: Stats,
    pub inconclusive: Vec<String>,
    pub entries: Option<memo::Entries>,
    pub cost: u64,
    pub rest: Vec<Config<'p>>,
}

impl<'p> Sides<'p> for Explorer<'p, '_> {
    /// Which sides of `cond` (≠ 0, = 0) are satisfiable with the path condition, each
    /// with a model ([`branch::Decider`]). `unknown` drops the side and makes the
    /// verdict inconclusive.
    fn sides(&mut self, cfg: &Config<'p>, cond: &Term) -> [Option<Arc<Witness>>; 2] {
        let budget = &self.budget;
        let mut undecided = Vec::new();
        let sides = self
            .decider
            .sides(cfg, cond, &|| budget.query_limit(), &mut undecided);
        for why in undecided {
            let note = why.note(self.out_of_budget());
            self.note(note);
        }
        sides
    }
}

impl<'p> Search<'p> for Explorer<'p, '_> {
    fn opponent(&mut self, cfg: &mut Config<'p>) -> bool {
        if self.havoc.is_some() {
            self.forget_store(cfg);
        }
        !self.subsumed(cfg)
    }

    fn push(&mut self, cfg: Config<'p>) {
        self.worklist.push(Work::Explore(cfg));
    }

    fn fail(
        &mut self,
        cfg: &Config<'p>,
        zero: Option<&Term>,
        kind: FailureKind,
        span: Span,
        witness: &Witness,
    ) {
        let mut rendered = moves::render(self.lib, cfg, witness);
        let text = rendered.trace.to_string();
        // The path, to choose the values of a reported trace from once the search is
        // over ([`values`]); not for the over-approximation's failures, which only say
        // which sites it reaches, nor under `all`, which keeps the search's values.
        let keep = self.havoc.is_none() && self.brief.plan.goal() != Goal::Every;
        let valuation = keep
            .then(|| {
                let order = std::mem::take(&mut rendered.symbols);
                values::Path::of(cfg, zero, order, std::mem::take(&mut rendered.slots))
            })
            .flatten();
        debug_assert_eq!(
            rendered.trace.0.len(),
            cfg.moves as usize,
            "a trace move per move"
        );
        let site = self
            .found
            .failure(rendered.failure(kind, span, valuation), text, cfg.moves);
        reached(&mut self.open, site, cfg.moves);
    }

    /// Recorded unless the path is not one of the library's own (the
    /// over-approximation's, or one with the split's stand-in).
    fn stuck(&mut self, reason: StuckReason, span: Span) {
        if self.havoc.is_some() || self.stand_in.is_some() {
            return;
        }
        match reason {
            StuckReason::Undeclared(_) => self.stats.undeclared_calls += 1,
            _ => self.stats.stuck_paths += 1,
        }
        self.found.stuck(&span, reason);
    }

    fn out_of_frames(&mut self) {
        self.stats.frame_limit_paths += 1;
    }

    fn best(&self) -> Option<&[u32]> {
        self.brief.plan.bound().then(|| self.found.best())
    }

    /// A bounded call is a cut: the memo entries above it subsume only what it would
    /// have cut too ([`memo`]).
    fn skipped_calls(&mut self, skipped: Skipped) {
        self.stats.irrelevant_calls += skipped.irrelevant + skipped.bounded;
        self.cuts += skipped.bounded;
    }
}

/// The configuration a search of `lib` starts from; `relevance` says whether it
/// tracks the sinks of atomic calls ([`super::relevance`]).
pub fn start<'p>(lib: &'p Library, brief: &Brief, relevance: bool) -> Config<'p> {
    let mut initial = Config::initial(lib, brief.bounds.k, brief.bounds.l);
    if relevance {
        initial.sinks = Some(Relevance::start());
    }
    initial
}

/// An empty memo, leaving inert references out of its keys unless told not to.
fn new_memo(lib: &Library, plan: SearchPlan) -> memo::Memo {
    let inert = if plan.inert() {
        super::inert::inert_refs(lib)
    } else {
        Vec::new()
    };
    memo::Memo::new(inert, lib.may_get_stuck)
}

/// Records in every open opponent configuration that `site` fails `moves` moves into
/// the trace.
fn reached(open: &mut [(u32, memo::Summary)], site: u32, moves: u32) {
    for (at, summary) in open {
        memo::record(summary, site, moves.saturating_sub(*at));
    }
}
