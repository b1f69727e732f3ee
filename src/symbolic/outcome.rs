//! What a check answers ([`CheckResult`]): the verdict, the counterexamples, the stuck
//! places, the statistics and why a search stopped short; the verdict is decided here
//! ([`verdict`]) for every search.

use super::options::Run;
use super::plan::SearchPlan;
use crate::syntax::ast::Span;
use crate::trace::Counterexample;
use serde::{Deserialize, Serialize};
use std::time::Duration;

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
    /// clean safe result (unless [`Run::allow_stuck`](super::options::Run::allow_stuck)).
    Stuck,
}

/// Why an explored path got stuck. HOLiK drops such paths silently; holi reports them.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StuckSite {
    pub span: Span,
    pub reason: StuckReason,
    /// Paths that got stuck here (as explored: pruning may skip equivalent ones).
    pub paths: u64,
}

/// Counters of one search.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
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
    /// over-approximation's of [`super::overapprox::havoc`], nor those with the split's stand-in).
    pub undeclared_calls: u64,
    /// Paths that ended on an ill-shaped operation or an unset reference.
    pub stuck_paths: u64,
    /// Paths that ended applying a library function with no frame left (k = 0). The
    /// client's calls are not made without a frame left ([`super::moves::opponent_moves`]),
    /// so these are the library's own applications.
    pub frame_limit_paths: u64,
    /// Opponent configurations not explored because one already explored subsumes them.
    pub subsumed: u64,
    /// Of those, the ones pruned by semantic subsumption.
    pub covered: u64,
    /// Client calls not made because no shortest failing trace makes them: nothing
    /// after them could read what they write, or a last call could not shorten one
    /// ([`super::relevance`]).
    pub irrelevant_calls: u64,
    /// Semantic subsumption: solver checks whether explored regions cover a
    /// configuration, and projections of explored configurations onto their shape.
    pub coverage_checks: u64,
    pub projections: u64,
    /// Failure sites the split proved unreachable: outside live code
    /// ([`crate::library::Library::live_codes`]) or by the over-approximation of [`super::overapprox::havoc`].
    pub unreachable_sites: u64,
    /// Passes of the search with `first`: one per trace-length limit tried.
    pub deepening_passes: u32,
    /// The longest trace explored, in moves.
    pub max_moves: u32,
    pub seconds: f64,
    /// Time in the solver ([`super::solver::Solver::busy`]), summed over the searches and
    /// threads whose counters these are, like the other counters.
    pub solver_seconds: f64,
    /// Which search's report this is: the [`super::race`] may take another than the whole
    /// search with every pruning.
    pub searched: Searched,
    /// The lanes the whole search was cut into, as across shards ([`super::shares`]):
    /// 0 for a search not cut so. The lanes share nothing, and the counters are summed
    /// over them.
    #[serde(default)]
    pub lanes: usize,
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

/// The searches a [`super::race`] chooses from.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub enum Searched {
    /// The whole library, with every pruning asked for.
    #[default]
    Whole,
    /// The whole library without semantic subsumption.
    WithoutSemantic,
    /// The library's independent parts one at a time ([`super::split`]).
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
    pub(super) fn settle_verdict(&mut self, run: &Run) {
        self.verdict = verdict(&self.counterexamples, &self.inconclusive, &self.stuck, run);
    }

    /// A proof for every k and l covers these bounds: what the search left open (a
    /// limit it met) is settled. The proof checker covers no library whose paths may
    /// get stuck, and a proof is never sought after a failure.
    pub fn settle_by_proof(&mut self, run: &Run) {
        self.inconclusive.clear();
        self.settle_verdict(run);
    }
}

/// The verdict of a search that found `counterexamples`, stopped short for the
/// `inconclusive` reasons, and got stuck at `stuck`.
pub(super) fn verdict(
    counterexamples: &[Counterexample],
    inconclusive: &[String],
    stuck: &[StuckSite],
    run: &Run,
) -> Verdict {
    if !counterexamples.is_empty() {
        Verdict::Unsafe
    } else if !inconclusive.is_empty() {
        Verdict::Inconclusive
    } else if !stuck.is_empty() && !run.allow_stuck {
        Verdict::Stuck
    } else {
        Verdict::Safe
    }
}

/// Adds the stuck places `more` to `into`, adding up the paths of a place in both;
/// keeps source order.
pub(super) fn add_stuck(into: &mut Vec<StuckSite>, more: Vec<StuckSite>) {
    for site in more {
        add_stuck_site(into, site);
    }
}

/// Adds the stuck place `site` to `into`, which is in source order, and keeps it so.
pub(super) fn add_stuck_site(into: &mut Vec<StuckSite>, site: StuckSite) {
    let place = |s: &StuckSite| (s.span.start, s.span.end);
    let found = into.binary_search_by(|s| {
        place(s)
            .cmp(&place(&site))
            .then_with(|| s.reason.cmp(&site.reason))
    });
    match found {
        Ok(i) => into[i].paths += site.paths,
        Err(i) => into.insert(i, site),
    }
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
