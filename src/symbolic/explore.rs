//! Depth-first search of a game ([`Game`]), with an explicit worklist.
//!
//! Each worklist entry is one configuration; the game runs it to its next stop and
//! hands back its successors, asking this search ([`Search`]) to decide branches
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
//! [`Run::allow_stuck`](super::options::Run::allow_stuck)). Paths that are not the
//! library's own ([`Paths`]: the over-approximation's, or with the split's stand-in)
//! record no stuck places. Every pruning keeps the set of stuck places of a search without
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
use super::game::{Game, LibraryGame, Paths, Position};
use super::memo;
use super::moves;
use super::outcome::{CheckResult, Progress, Stats, StuckReason, StuckSite};
use super::plan::{Goal, SearchPlan};
use super::relevance::Skipped;
use super::solver::work;
use super::step::Search;
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
enum Work<C> {
    Explore(C),
    /// The key, the trace length as the memo compares it, and the cuts made before.
    Explored(memo::Key, i64, u64),
}

/// The search of a game `G`: the library's own unless told otherwise.
pub struct Explorer<'p, 'o, G: Game<'p> = LibraryGame<'p>> {
    game: G,
    core: Core<'p, 'o, G::Config>,
}

/// The search's own state: what the game's steps report to ([`Search`]), for a game
/// whose configurations are `C`.
struct Core<'p, 'o, C> {
    lib: &'p Library,
    /// What the game's paths are to the library: what is kept of them.
    paths: Paths,
    brief: &'o Brief,
    /// Decides symbolic branches (and owns the search's solver).
    decider: branch::Decider,
    worklist: Vec<Work<C>>,
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
    stats: Stats,
    inconclusive: Vec<String>,
    /// Whether semantic subsumption's projections pay in this search.
    projections: subsume::Trial,
}

impl<'p, 'o> Explorer<'p, 'o> {
    /// The search of `lib` that `brief` asks for.
    pub fn new(lib: &'p Library, brief: &'o Brief) -> Explorer<'p, 'o> {
        Explorer::playing(
            LibraryGame::new(lib, brief),
            brief,
            branch::Decider::within(brief),
        )
    }
}

impl<'p, 'o, G: Game<'p, Config = Config<'p>>> Explorer<'p, 'o, G> {
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
        self.core.worklist = work.into_iter().rev().map(Work::Explore).collect();
        if let Some(memo) = &mut self.core.memo {
            memo.share(shared);
        }
        self.core.found.seed(best);
        self.core.budget.since(start);
        self.core.budget.cap(cap);
        self
    }

    /// How a task ended: what it found, its counters and notes, the memo entries it
    /// made (none if it numbered a site of its own), its cost as its lane counts it,
    /// and the configurations left on its worklist, next first.
    pub fn into_task(mut self) -> TaskEnd<'p> {
        self.core.count_solver();
        let mut entries = self.core.memo.as_mut().map(memo::Memo::take_entries);
        if self.core.found.unlisted() {
            entries = None;
        }
        let rest = self
            .core
            .worklist
            .into_iter()
            .rev()
            .filter_map(|work| match work {
                Work::Explore(cfg) => Some(cfg),
                Work::Explored(..) => None,
            });
        TaskEnd {
            // What the lane was charged: the configurations by their path conditions.
            cost: self.core.budget.counted() + self.core.decider.solver.work,
            found: self.core.found,
            stats: self.core.stats,
            inconclusive: self.core.inconclusive,
            entries,
            rest: rest.collect(),
        }
    }
}

impl<'p, 'o, G: Game<'p>> Explorer<'p, 'o, G> {
    /// The search of `game` that `brief` asks for, deciding branches with `decider`
    /// (which may come from [`Explorer::finish_keeping`]: the answers it holds depend
    /// on the questions alone, and searches of one library ask many of the same).
    pub fn playing(game: G, brief: &'o Brief, decider: branch::Decider) -> Self {
        let plan = brief.plan;
        let lib = game.library();
        let memo = plan.memo().then(|| new_memo(lib, plan));
        let core = Core {
            lib,
            paths: game.paths(),
            brief,
            decider,
            worklist: vec![Work::Explore(game.initial())],
            memo,
            open: Vec::new(),
            // Branch and bound aims at every site in the library's live code unless
            // told otherwise ([`Explorer::with_targets`]).
            found: Findings::for_plan(plan, lib),
            budget: Budget::new(&brief.meter),
            capped: false,
            depth_limit: None,
            cuts: 0,
            stats: Stats::default(),
            inconclusive: Vec::new(),
            projections: subsume::Trial::default(),
        };
        Explorer { game, core }
    }

    /// Branch and bound on the sites `targets` alone: only they are sure to keep their
    /// minimal lengths. No targets of its own means branch and bound is off.
    pub fn with_targets(mut self, targets: &[Site]) -> Self {
        if self.core.found.bounds() {
            self.core.found.retarget(targets);
        }
        self
    }

    /// Stops the search (to be resumed, [`Advance::Capped`]) after `configurations`.
    pub fn capped_at(mut self, configurations: u64) -> Self {
        self.core.budget.cap(configurations);
        self
    }

    /// The game being played.
    pub fn game(&self) -> &G {
        &self.game
    }

    /// Explores only traces of at most `max_moves` moves: the shortest failure per
    /// site among those, each site with its minimal length if that is within the
    /// limit. Subsumption stays exact under the limit, because an entry whose subtree
    /// the limit cut subsumes only configurations met with no more room left
    /// ([`memo`]).
    pub fn with_depth_limit(mut self, max_moves: u32) -> Self {
        self.core.depth_limit = Some(max_moves);
        self
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
        self.core.budget.since(start);
        self.core.budget.cap(cap);
        self.core.stats = stats;
        self.core.found.resume_stuck(stuck);
        self
    }

    /// Goes on with the search until it is done, stopped by a limit, or its lane
    /// ([`Meter::lane`](super::budget::Meter::lane)) is full; in the last case a later call (after the
    /// lane's limit was raised) resumes exactly where it stopped.
    pub fn advance(&mut self, progress: &mut dyn FnMut(&Progress)) -> Advance {
        self.core.capped = false;
        if self.search(progress) {
            Advance::Done
        } else if self.core.capped {
            Advance::Capped
        } else {
            Advance::Stopped
        }
    }

    /// The configurations explored so far.
    pub fn configurations(&self) -> u64 {
        self.core.stats.configurations
    }

    /// Whether a failure was found.
    pub fn found_failure(&self) -> bool {
        self.core.found.any_failure()
    }

    /// One pass of iterative deepening ([`super::deepening`]): the search from the start
    /// over traces of at most `depth` moves, keeping the memo. How it ended, and
    /// whether it cut off a configuration for being longer.
    pub fn pass(&mut self, depth: u32, progress: &mut dyn FnMut(&Progress)) -> (Advance, bool) {
        self.core.stats.deepening_passes += 1;
        self.core.depth_limit = Some(depth);
        let cuts = self.core.cuts;
        self.core.worklist = vec![Work::Explore(self.game.initial())];
        self.core.open.clear();
        let end = self.advance(progress);
        (end, self.core.cuts > cuts)
    }

    /// Explores the worklist; false when stopped by a budget (or by `first`).
    fn search(&mut self, progress: &mut dyn FnMut(&Progress)) -> bool {
        while let Some(work) = self.core.worklist.pop() {
            let cfg = match work {
                Work::Explore(cfg) => cfg,
                Work::Explored(key, moves, cuts) => {
                    let (_, summary) = self.core.open.pop().unwrap_or_default();
                    if let Some(memo) = &mut self.core.memo {
                        let pass = self.core.stats.deepening_passes;
                        memo.insert(key, moves, self.core.cuts > cuts, pass, summary);
                    }
                    continue;
                }
            };
            if let Some(reason) = self.core.out_of_budget() {
                self.core.note(format!("search stopped: {reason}"));
                return false;
            }
            if self.core.budget.share_used(self.core.stats.configurations) {
                // Put back, so that the search can resume here ([`Explorer::advance`]).
                self.core.worklist.push(Work::Explore(cfg));
                self.core.capped = true;
                return false;
            }
            let first = self.core.brief.plan.goal() == Goal::First;
            if first && self.core.depth_limit.is_some() && self.core.found.any_failure() {
                return false;
            }
            if self.core.paths == Paths::Reach && self.core.found.targets_reached() {
                return true;
            }
            let moves = cfg.moves();
            let too_long = self.core.depth_limit.is_some_and(|d| moves > d)
                || self.core.found.bound().is_some_and(|b| moves >= b);
            if too_long {
                self.core.cuts += 1;
                continue;
            }
            if self.core.stats.configurations.is_multiple_of(POLL_EVERY) {
                progress(&Progress {
                    configurations: self.core.stats.configurations,
                    depth: moves,
                    counterexamples: self.core.found.failing_traces(),
                    elapsed: self.core.budget.elapsed(),
                });
            }
            self.core.stats.configurations += 1;
            self.core.budget.count(work::configuration(cfg.pc()));
            self.core.stats.max_moves = self.core.stats.max_moves.max(moves);
            self.game.step(cfg, &mut self.core);
            self.core.budget.charge(self.core.decider.solver.work);
        }
        true
    }

    /// The result of the search so far.
    pub fn finish(self) -> CheckResult {
        self.finish_keeping().0
    }

    /// [`Explorer::finish`], and the decider for another search, its counts (in the
    /// result) cleared.
    pub fn finish_keeping(mut self) -> (CheckResult, branch::Decider) {
        if self.core.capped {
            // Never taken for a complete search, whoever reads it.
            self.core
                .note("the search stopped at its share of configurations".to_string());
        }
        self.core.count_solver();
        self.core.decider.clear_counts();
        self.core.stats.seconds = self.core.budget.elapsed().as_secs_f64();
        let result =
            self.core
                .found
                .into_result(self.core.stats, self.core.inconclusive, self.core.brief);
        (result, self.core.decider)
    }
}

impl<'p, 'o, C> Core<'p, 'o, C> {
    /// Why the search must stop now, if it must.
    fn out_of_budget(&self) -> Option<String> {
        self.budget.exhausted(self.stats.configurations)
    }
    /// Adds the solver's counts to the statistics, once the search is over.
    fn count_solver(&mut self) {
        self.stats.solver_queries += self.decider.solver.queries;
        self.stats.solver_seconds += self.decider.solver.busy.as_secs_f64();
        self.stats.cached_answers += self.decider.cached;
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

impl<'p, C> Sides<'p> for Core<'p, '_, C> {
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

impl<'p, C: Position<'p>> Search<'p, C> for Core<'p, '_, C> {
    fn opponent(&mut self, cfg: &mut C) -> bool {
        cfg.library_config().is_none_or(|cfg| !self.subsumed(cfg))
    }

    fn push(&mut self, cfg: C) {
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
        let keep = self.paths != Paths::Reach && self.brief.plan.goal() != Goal::Every;
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

    /// Recorded unless the path is not one of the library's own ([`Paths`]).
    fn stuck(&mut self, reason: StuckReason, span: Span) {
        if self.paths != Paths::Own {
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

    /// Nothing to record: a diverging path neither fails nor gets stuck, and the
    /// client never hears from the library again on it.
    fn diverged(&mut self, _: &Config<'p>) {}

    fn best(&self) -> Option<&[u32]> {
        self.brief.plan.bound().then(|| self.found.best())
    }

    /// A bounded call is a cut: the memo entries above it subsume only what it would
    /// have cut too ([`memo`]).
    fn skipped_calls(&mut self, skipped: Skipped) {
        self.stats.irrelevant_calls += skipped.irrelevant + skipped.bounded;
        self.cuts += skipped.bounded;
    }

    fn inconclusive(&mut self, reason: String) {
        self.note(reason);
    }
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
