//! The symbolic engine: bounded exploration of the symbolic trace semantics
//! (paper Section 3, Figure 4) of a library against every possible client.
//!
//! Pipeline: [`crate::build`] turns the AST into a repository and compiled code
//! ([`ir`]); [`CheckOptions`] resolve into the [`plan`] of the search; [`explore`]
//! searches configurations ([`config`]) depth first, taking each one [`step`]: running
//! internal steps with [`machine`], making boundary moves with [`moves`] (leaving out
//! client calls no shortest failing trace makes, [`relevance`]) and deciding
//! symbolic branches with [`branch`] (without Z3 where it can) and [`solver`] (Z3,
//! incremental, [`branch::Decider`]), pruning client turns subsumed by explored ones
//! with [`subsume`] (over [`memo`]; regions of values by [`difference`], [`linear`] or
//! Z3), and keeping what it finds in [`findings`] (failures, stuck paths, the bound of branch
//! and bound) within its [`budget`]. Strategies sit on top of that search, never
//! beneath it: [`first`] (`--first`) races its ways of searching, [`houdini`] searches
//! the over-approximation of [`havoc`] (whose client turns [`havoc_turn`] makes,
//! asking the search only which sides of a condition hold; candidate invariants from
//! the library's asserts by [`asserted`]), [`split`] checks
//! independent parts apart (the [`components`] of a library, searched by
//! [`part_search`]), [`race`] runs it beside the whole search, and [`tasks`]
//! cuts the whole search into tasks on several threads with the same report for any
//! number of them (memo entries and regions shared through [`memo::Shared`]). Bounds follow
//! HOLiK exactly (`lang/semantics.md`): k limits open library frames, l the client's
//! calls per context.

pub mod asserted;
pub mod branch;
pub mod budget;
pub mod components;
pub mod config;
pub mod context;
pub mod difference;
pub mod explore;
pub mod findings;
pub mod first;
pub mod havoc;
pub mod havoc_turn;
pub mod houdini;
pub mod inert;
pub mod ir;
pub mod lane;
pub mod linear;
pub mod machine;
pub mod memo;
pub mod memory;
pub mod moves;
pub mod part_search;
pub mod plan;
pub mod race;
pub mod relevance;
pub mod solver;
pub mod split;
pub mod step;
pub mod subsume;
pub mod tasks;
pub mod term;
pub mod value;
pub mod values;
pub mod worker;

pub use lane::Lane;
pub use plan::{Goal, SearchPlan};

use crate::syntax::ast::{Program, Span};
use crate::trace::Counterexample;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// HOLiK's bounds when neither the file nor the command line gives any.
pub const DEFAULT_K: u32 = 4;
pub const DEFAULT_L: u32 = 4;
/// Work ([`solver::work`], about a microsecond a unit) within which the whole
/// search's result is always taken over the split's, for a library of independent
/// parts ([`race`]): about 0.2 s.
pub const SPLIT_AFTER: u64 = 200_000;
/// How many halves a split's work counts against the whole search's ([`race`]): one
/// and a half times over, so a split must save a third of the work to be taken.
pub const SPLIT_HALVES: u64 = 3;
/// Work within which the result of a search with semantic subsumption is always
/// taken over one without it ([`race`]): about 20 ms.
pub const PLAIN_AFTER: u64 = 20_000;
/// The default limit on one solver query.
pub const DEFAULT_SOLVER_TIMEOUT: Duration = Duration::from_secs(10);

/// What a check is asked: the bounds, the switches of the search (which the engine
/// resolves into a [`SearchPlan`], keeping the rules stated here) and the limits.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// Open library frames allowed (nesting of library calls, including the client's).
    pub k: u32,
    /// The client's call budget per context.
    pub l: u32,
    /// Keep every distinct failing trace, not only the shortest per failure site. The
    /// search is then the plain exploration (no subsumption), so the set is exhaustive.
    pub all: bool,
    /// Prune opponent configurations subsumed by one already explored ([`memo`]), and
    /// client calls to a revealed function interchangeable with an earlier one
    /// ([`config::Config::duplicates_earlier_revealed`]). Ignored with `all`.
    pub memo: bool,
    /// With `memo`, also prune an opponent configuration whose symbolic integers can
    /// only take values that configurations of its shape already explored covered
    /// ([`memo`], semantic subsumption).
    pub semantic: bool,
    /// With `memo`, leave references whose contents cannot change what the library
    /// does ([`inert`]) out of the keys.
    pub inert: bool,
    /// With `memo` (and without `all`), branch and bound: once every failure site in
    /// the library's code has a failing trace, cut every trace at least as long as the
    /// longest of them, since nothing there can shorten what is reported.
    pub bound: bool,
    /// With `memo` (and without `all` or `first`), check a library made of independent
    /// components one component at a time when that gives the same report ([`split`]).
    pub split: bool,
    /// With `memo`, do not make client calls that cannot be calls of a shortest
    /// failing trace: nothing after them could read what they write, or a last call
    /// could not shorten one ([`relevance`]).
    pub relevance: bool,
    /// Stop at the first failing trace; the search deepens on trace length, so it is
    /// a shortest one.
    pub first: bool,
    /// With `bound`, first prove failure sites unreachable in an over-approximation of
    /// the library ([`havoc`]), so that branch and bound need not wait for traces to
    /// them (which never come), and a part of a split library (or a library of one
    /// part) whose sites are all unreachable needs no search.
    pub havoc: bool,
    /// How long the check may run, from its start.
    pub timeout: Option<Duration>,
    /// When the check must stop: fixed from `timeout` when the check starts, so that
    /// every search it runs (a race's sides, the split's searches and their
    /// completion, the over-approximation's rounds) stops at that one instant rather
    /// than restarting the clock. Set it to share one deadline between checks.
    pub deadline: Option<Instant>,
    /// The longest one solver query may run; a query that does not finish in time is
    /// undecided and makes the verdict inconclusive. Z3 can run forever on nonlinear
    /// integer constraints, so a search without `timeout` still needs this bound.
    pub solver_timeout: Option<Duration>,
    pub max_configurations: Option<u64>,
    /// The most resident memory, in bytes, the process and its solver process may
    /// use: past it the check stops as if interrupted, with a note naming the limit
    /// ([`memory`]).
    pub max_memory: Option<u64>,
    /// Set from another thread (Ctrl-C) to stop the search cleanly.
    pub interrupt: Option<Arc<AtomicBool>>,
    /// HOLiK's behaviour: a search that found no failing trace is [`Verdict::Safe`] even
    /// when some paths got stuck (the benchmark's `--allow-stuck`). Without it such a
    /// result is [`Verdict::Stuck`].
    pub allow_stuck: bool,
    /// The program (normally `holi` itself) that answers nonlinear solver queries in a
    /// child process, so that `timeout`, `solver_timeout` and `interrupt` stop them
    /// promptly ([`solver::Solver::nonlinear_in_child`]). `None` answers them in this
    /// process, where Z3's nonlinear arithmetic may notice a limit late.
    pub solver_process: Option<std::path::PathBuf>,
    /// Threads the check may use (at least 1). The report does not depend on it: with
    /// two or more, the searches of a [`race`] run side by side.
    pub jobs: usize,
    /// The share of work the searches of this check may do, when it is one side of a
    /// [`race`]; `None` outside a race.
    pub lane: Option<Arc<Lane>>,
    /// How many configurations the whole search's tasks explore ([`tasks`]); only
    /// the work per task depends on it, never whether a failure is found.
    pub task_sizes: tasks::Sizes,
}

impl CheckOptions {
    /// These options with their deadline fixed, if it is not yet, `timeout` after
    /// `start` (a timeout too long to add is no limit).
    pub fn deadline_from(&self, start: Instant) -> CheckOptions {
        CheckOptions {
            deadline: self
                .deadline
                .or_else(|| self.timeout.and_then(|t| start.checked_add(t))),
            ..self.clone()
        }
    }
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            k: DEFAULT_K,
            l: DEFAULT_L,
            all: false,
            memo: true,
            semantic: true,
            inert: true,
            bound: true,
            split: true,
            relevance: true,
            first: false,
            havoc: true,
            timeout: None,
            deadline: None,
            solver_timeout: Some(DEFAULT_SOLVER_TIMEOUT),
            max_configurations: None,
            max_memory: None,
            interrupt: None,
            allow_stuck: false,
            solver_process: None,
            jobs: 1,
            lane: None,
            task_sizes: tasks::Sizes::default(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No failing trace within the bounds, and the search was complete.
    Safe,
    /// At least one failing trace.
    Unsafe,
    /// No failing trace found, but the search was cut short or a query was undecided.
    Inconclusive,
    /// No failing trace found and the search was complete, but some paths got stuck
    /// ([`CheckResult::stuck`]): what follows them was never explored, so this is not a
    /// clean safe result (unless [`CheckOptions::allow_stuck`]).
    Stuck,
}

/// Why an explored path got stuck. HOLiK drops such paths silently; holi reports them.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StuckReason {
    /// Application of a name that is neither a variable, a method nor an import.
    Undeclared(String),
    /// Reading a reference that is never declared and was not assigned before.
    UnsetReference(String),
    /// An ill-shaped operation: applying a non-function, arithmetic on a non-integer,
    /// projecting a non-pair, and the like.
    IllTyped,
}

/// A source place where explored paths got stuck, and how many did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StuckSite {
    pub span: Span,
    pub reason: StuckReason,
    /// Paths that got stuck here (as explored: pruning may skip equivalent ones).
    pub paths: u64,
}

/// Counters of one search.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Configurations taken from the worklist: the initial one, each side of a symbolic
    /// branch, each configuration after a move, and each opponent configuration.
    pub configurations: u64,
    pub solver_queries: u64,
    /// Satisfiability questions answered from the cache of earlier answers (up to
    /// renaming of symbols) instead of by the solver.
    pub cached_answers: u64,
    /// Paths that ended applying a name that is not declared. Like `stuck_paths`, it
    /// counts the library's own paths, those of [`CheckResult::stuck`] (not the
    /// over-approximation's of [`havoc`], nor those with the split's stand-in).
    pub undeclared_calls: u64,
    /// Paths that ended on an ill-shaped operation or an unset reference.
    pub stuck_paths: u64,
    /// Paths that ended applying a library function with no frame left (k = 0). The
    /// client's calls are not made without a frame left ([`moves::opponent_moves`]),
    /// so these are the library's own applications.
    pub frame_limit_paths: u64,
    /// Opponent configurations not explored because one already explored subsumes them.
    pub subsumed: u64,
    /// Of those, the ones pruned by semantic subsumption.
    pub covered: u64,
    /// Client calls not made because no shortest failing trace makes them: nothing
    /// after them could read what they write, or a last call could not shorten one
    /// ([`relevance`]).
    pub irrelevant_calls: u64,
    /// Semantic subsumption: solver checks whether explored regions cover a
    /// configuration, and projections of explored configurations onto their shape.
    pub coverage_checks: u64,
    pub projections: u64,
    /// Failure sites the split proved unreachable: outside live code
    /// ([`crate::build::Library::live_codes`]) or by the over-approximation of [`havoc`].
    pub unreachable_sites: u64,
    /// Passes of the search with `first`: one per trace-length limit tried.
    pub deepening_passes: u32,
    /// The longest trace explored, in moves.
    pub max_moves: u32,
    pub seconds: f64,
    /// Time in the solver ([`solver::Solver::busy`]), summed over the searches and
    /// threads whose counters these are, like the other counters.
    pub solver_seconds: f64,
    /// Which search's report this is: the [`race`] may take another than the whole
    /// search with every pruning.
    pub searched: Searched,
}

impl Stats {
    /// Adds the counters of `part` (not the wall time).
    pub fn add(&mut self, part: &Stats) {
        let total = self;
        total.configurations += part.configurations;
        total.solver_queries += part.solver_queries;
        total.solver_seconds += part.solver_seconds;
        total.cached_answers += part.cached_answers;
        total.undeclared_calls += part.undeclared_calls;
        total.stuck_paths += part.stuck_paths;
        total.frame_limit_paths += part.frame_limit_paths;
        total.subsumed += part.subsumed;
        total.covered += part.covered;
        total.irrelevant_calls += part.irrelevant_calls;
        total.coverage_checks += part.coverage_checks;
        total.projections += part.projections;
        total.unreachable_sites += part.unreachable_sites;
        total.max_moves = total.max_moves.max(part.max_moves);
    }
}

/// The searches a [`race`] chooses from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Searched {
    /// The whole library, with every pruning asked for.
    #[default]
    Whole,
    /// The whole library without semantic subsumption.
    WithoutSemantic,
    /// The library's independent parts one at a time ([`split`]).
    ByParts,
    /// The parts one at a time, without semantic subsumption.
    ByPartsWithoutSemantic,
}

#[derive(Clone, Debug)]
pub struct CheckResult {
    pub verdict: Verdict,
    /// The shortest failing trace per failure site (or every distinct one with `all`),
    /// sorted by number of moves, then text.
    pub counterexamples: Vec<Counterexample>,
    /// Distinct failing traces found (by text; with `all`, a trace that fails at two
    /// sites is two counterexamples but one trace here). Exhaustive with `all`; without
    /// it the subsumption of configurations (and `first`) skips failures already
    /// represented by an equally short one at the same site, so this counts those found.
    pub failing_traces: usize,
    /// Whether `failing_traces` is only a lower bound: past a million distinct traces
    /// (never with `all`) the search stops remembering new ones, to bound its memory.
    pub failing_traces_lower_bound: bool,
    pub stats: Stats,
    /// Why the result is not complete (limits, interruption, solver `unknown`).
    pub inconclusive: Vec<String>,
    /// Where explored paths got stuck, in source order.
    pub stuck: Vec<StuckSite>,
    /// The search the options asked for, as run ([`SearchPlan::new`]); when searches
    /// raced, [`Stats::searched`] says whose result this is.
    pub plan: SearchPlan,
}

impl CheckResult {
    /// Makes the verdict agree with the result again, after its counterexamples,
    /// reasons or stuck places changed.
    fn settle_verdict(&mut self, options: &CheckOptions) {
        self.verdict = verdict(
            &self.counterexamples,
            &self.inconclusive,
            &self.stuck,
            options,
        );
    }
}

/// The verdict of a search that found `counterexamples`, stopped short for the
/// `inconclusive` reasons, and got stuck at `stuck`.
fn verdict(
    counterexamples: &[Counterexample],
    inconclusive: &[String],
    stuck: &[StuckSite],
    options: &CheckOptions,
) -> Verdict {
    if !counterexamples.is_empty() {
        Verdict::Unsafe
    } else if !inconclusive.is_empty() {
        Verdict::Inconclusive
    } else if !stuck.is_empty() && !options.allow_stuck {
        Verdict::Stuck
    } else {
        Verdict::Safe
    }
}

/// Adds the stuck places `more` to `into`, adding up the paths of a place in both;
/// keeps source order.
fn add_stuck(into: &mut Vec<StuckSite>, more: Vec<StuckSite>) {
    for site in more {
        match into
            .iter_mut()
            .find(|s| s.span == site.span && s.reason == site.reason)
        {
            Some(s) => s.paths += site.paths,
            None => into.push(site),
        }
    }
    into.sort_by(|a, b| {
        (a.span.start, a.span.end, &a.reason).cmp(&(b.span.start, b.span.end, &b.reason))
    });
}

/// A snapshot of a running search, for progress displays.
#[derive(Clone, Debug)]
pub struct Progress {
    pub configurations: u64,
    /// Moves in the configuration being explored.
    pub depth: u32,
    pub counterexamples: usize,
    pub elapsed: Duration,
}

/// Checks `program` within the bounds of `options`.
pub fn check(program: &Program, options: &CheckOptions) -> CheckResult {
    check_with_progress(program, options, &mut |_| {})
}

/// [`check`], calling `progress` now and then during the search.
pub fn check_with_progress(
    program: &Program,
    options: &CheckOptions,
    progress: &mut dyn FnMut(&Progress),
) -> CheckResult {
    let options = &options.deadline_from(Instant::now());
    let Some(limit) = options.max_memory else {
        return check_unwatched(program, options, progress);
    };
    let watch = memory::Watch::start(limit, options.interrupt.clone());
    let watched = CheckOptions {
        interrupt: Some(watch.flag()),
        max_memory: None,
        ..options.clone()
    };
    let mut result = check_unwatched(program, &watched, progress);
    let user = options
        .interrupt
        .as_ref()
        .is_some_and(|u| u.load(Ordering::Relaxed));
    if watch.exceeded() && !user {
        // The search took the limit for an interrupt: say which it was. A search
        // that ended before it noticed is complete, and keeps its verdict.
        let stopped = "search stopped: interrupted";
        if result.inconclusive.iter().any(|n| n == stopped) {
            result.inconclusive.retain(|n| n != stopped);
            result.inconclusive.insert(0, memory::note(limit));
            result.verdict = verdict(
                &result.counterexamples,
                &result.inconclusive,
                &result.stuck,
                options,
            );
        }
    }
    result
}

/// [`check_with_progress`] without the memory limit.
fn check_unwatched(
    program: &Program,
    options: &CheckOptions,
    progress: &mut dyn FnMut(&Progress),
) -> CheckResult {
    let started = std::time::Instant::now();
    let library = crate::build::build(program);
    let plan = SearchPlan::new(options, &library);
    let mut result = if plan.races() {
        race::check(program, &library, options, plan, progress)
    } else if plan.goal() == Goal::First {
        // In a context of its own, like every other search: its models must not
        // depend on what this thread asked Z3 before.
        context::in_own(|| first::race(&library, options, plan, progress))
    } else {
        tasks::Parallel::new(&library, options, plan).run(progress)
    };
    values::settle(&mut result.counterexamples, options, started);
    result
}
