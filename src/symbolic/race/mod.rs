//! The searches that decide the same question, raced by counts: the whole search
//! with every pruning, the whole search without semantic subsumption, and the split
//! ([`split`]) of a library into independent parts.
//!
//! Which is cheapest cannot be told beforehand. Semantic subsumption pays a solver
//! operation per client turn and saves, per cover, a subtree that may be a handful of
//! configurations or exponentially many; the split checks independent parts in a
//! fraction of the whole search's work when their states multiply, and explodes when
//! its stand-in (up to 16 callbacks per frame) is far more willing than the real parts.
//! So each side runs on a [`Lane`] that counts its cost (its configurations, each by
//! the size of its path condition, and the solver's operations, as
//! [`super::solver::work`] estimates them from counts and sizes in units of about a
//! microsecond), and the result is decided by the counts alone:
//!
//! > of the sides that complete, the one with the least level is taken, ties going to
//! > the earlier of: the whole search, the one without semantic subsumption, the
//! > split, the split without it. A side's level is its cost (a split's counted one
//! > and a half times over, [`SPLIT_HALVES`]) plus its handicap: none for the whole
//! > search, [`PLAIN_AFTER`] for the one without semantic subsumption, [`SPLIT_AFTER`]
//! > for the split, both for the split without it.
//!
//! The handicaps keep the report of the whole search with every pruning (the one
//! before the race, and the one most tests and documents show) wherever another side
//! would save less than about 20 ms (the search without semantic subsumption) or
//! 0.2 s (the split, whose set-up alone takes tens of milliseconds). The split's
//! weight is for machines with fewer cores than sides: there the race takes the work
//! of every side up to the winner's level over the cores, and the split's two sides
//! double it. Counted once, a whole search that wins at cost W makes the four sides
//! spend about 4W, twice what the race without the split spends on two cores; counted
//! one and a half times, the split's sides stop at about two thirds of W. A split that
//! wins pays the other way (the whole searches run on to one and a half times its
//! cost), so the weight is no larger: random library s31 went from 2.1 to 1.7 s (1.1 s
//! without the split), HOLiK's various_mains k5 l3 from 4.5 to 6.0 s (before its dead
//! code was left out, [`crate::build::Library::live_codes`]). No side's unit
//! may be much dearer than another's: the winner's report is taken only once every
//! other side has reached its level, so the race lasts as long as the slowest side
//! takes to get there. (Counting a configuration as one unit whatever its size, with
//! queries and projections several times dearer than they are, made the search
//! without semantic subsumption up to ten times slower per unit than the whole search
//! on HOLiK's reentrancy libraries; multiplying its cost by four to make up for it
//! made the race wait up to four times too long wherever semantic subsumption does
//! not pay: [calibration](../../../benchmark/results/2026-11-27-race-calibration/README.md).)
//!
//! Every side's result is exact (same verdict, same failure sites with the same
//! minimal lengths: [`split`], [`memo`](super::memo)), so any may be taken; deciding by
//! counts rather than by which thread is first keeps the report the same for any
//! number of threads and any timing. Deciding takes each side up to the winner's level
//! and no further: once a side completes, every other's limit is set to what can
//! still beat it.
//!
//! A library of one part has nothing to split: the split's side only runs the
//! over-approximation of the whole library ([`super::part_search`]), without
//! semantic subsumption (whose projections of the store it forgets at every client
//! turn cost seconds per configuration); the split without semantic subsumption,
//! which starts only at its twin's first operation of it, never does.
//!
//! The search without semantic subsumption explores exactly what the whole search
//! explores until the whole search's first operation of semantic subsumption (before
//! it, no configuration was covered, so nothing differs but the count of operations).
//! So it is started only then: when the whole search makes no such operation, the two
//! are one search, at one cost, and the tie goes to the whole search.
//!
//! With two or more threads ([`CheckOptions::jobs`]) the sides run at once
//! ([`threads`]), paced on a [`Field`](super::lane::Field) so that none runs ahead of
//! what the race can need (which bounds the memory and the processor time of the
//! losers) while the searches outnumber the threads, and none runs past twice the
//! lowest level (or [`PACE_SLACK`](super::lane::PACE_SLACK) above it, if further)
//! while they do not (waiting would leave a core idle): the wall time is about that of
//! the slowest side up to the winner's level.
//! The split starts only once it can win, when the whole search's level reaches its
//! level at no cost (or the whole search stopped short): most searches complete
//! within [`SPLIT_AFTER`], and the split's set-up alone (sub-libraries, a Z3 context,
//! its first solvers) took about 20 ms, as long as the whole of such a check. The
//! search without semantic subsumption has no such set-up and starts at its twin's
//! first operation, before it can win: waiting for the whole search to reach
//! [`PLAIN_AFTER`] would add that time to every check it wins.
//! The whole searches cut themselves into tasks ([`super::tasks`]) on the threads the
//! split does not take. With one thread they take turns ([`turns`]) under doubling
//! levels, the whole searches resumed where they stopped ([`Parallel::advance`]) and
//! the split started afresh.
//!
//! When no side completes (the user's time limit, Ctrl-C), the result is the whole
//! search's so far with every real trace the others found added, so that more time
//! never loses a trace.

mod threads;
mod turns;

use super::components::Components;
use super::context;
use super::explore::Advance;
use super::lane::{Done, Handicap, Lane};
use super::split::{self, Unsettled};
use super::tasks::Parallel;
use super::{
    add_stuck, CheckOptions, CheckResult, Progress, SearchPlan, Searched, StuckSite, PLAIN_AFTER,
    SPLIT_AFTER, SPLIT_HALVES,
};
use crate::build::Library;
use crate::syntax::ast::Program;
use crate::trace::Counterexample;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

/// The sides of a race, in the order that breaks ties.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Side {
    Whole,
    /// The whole search without semantic subsumption.
    Plain,
    Split,
    /// The split without semantic subsumption.
    SplitPlain,
}

impl Side {
    const ALL: [Side; 4] = [Side::Whole, Side::Plain, Side::Split, Side::SplitPlain];

    /// Its place on the [`Field`](super::lane::Field).
    fn place(self) -> usize {
        self as usize
    }

    fn by_parts(self) -> bool {
        matches!(self, Side::Split | Side::SplitPlain)
    }

    /// The side it is without semantic subsumption, for a side with it.
    fn plain(self) -> Option<Side> {
        match self {
            Side::Whole => Some(Side::Plain),
            Side::Split => Some(Side::SplitPlain),
            Side::Plain | Side::SplitPlain => None,
        }
    }

    fn searched(self) -> Searched {
        match self {
            Side::Whole => Searched::Whole,
            Side::Plain => Searched::WithoutSemantic,
            Side::Split => Searched::ByParts,
            Side::SplitPlain => Searched::ByPartsWithoutSemantic,
        }
    }
}

/// How one side's search ended.
enum Outcome {
    /// Complete, at this cost.
    Complete(CheckResult, u64),
    /// A whole search stopped short: its result so far, which says so.
    Short(CheckResult),
    /// The split stopped short or unsettled: the real traces it found, and where
    /// paths got stuck.
    Found(Vec<Counterexample>, Vec<StuckSite>),
}

/// Checks `lib` (built from `program`) by whichever search the rule of the module
/// docs picks.
pub fn check(
    program: &Program,
    lib: &Library,
    options: &CheckOptions,
    plan: SearchPlan,
    progress: &mut dyn FnMut(&Progress),
) -> CheckResult {
    check_with(program, lib, options, plan, Handicaps::default(), progress)
}

/// How much more than the whole search's a side's cost counts in the rule of the
/// module docs.
#[derive(Clone, Copy, Debug)]
pub struct Handicaps {
    /// Added to a split's cost ([`SPLIT_AFTER`]).
    pub split: u64,
    /// A split's cost counted this many halves over ([`SPLIT_HALVES`]).
    pub split_halves: u64,
    /// Added to the cost of a side without semantic subsumption ([`PLAIN_AFTER`]).
    pub plain: u64,
}

impl Default for Handicaps {
    fn default() -> Self {
        Handicaps {
            split: SPLIT_AFTER,
            split_halves: SPLIT_HALVES,
            plain: PLAIN_AFTER,
        }
    }
}

/// [`check`] with other handicaps.
pub fn check_with(
    program: &Program,
    lib: &Library,
    options: &CheckOptions,
    plan: SearchPlan,
    handicaps: Handicaps,
    progress: &mut dyn FnMut(&Progress),
) -> CheckResult {
    let race = Race {
        program,
        lib,
        options,
        plan,
        handicaps,
        start: Instant::now(),
        one_part: plan.split() && Components::of(lib).count < 2,
    };
    let mut result = if options.jobs >= 2 {
        race.side_by_side(progress)
    } else {
        race.in_turns(progress)
    };
    result.stats.seconds = race.start.elapsed().as_secs_f64();
    result.settle_verdict(options);
    result.plan = plan;
    result
}

/// One race: what is checked, and the handicaps.
struct Race<'a> {
    program: &'a Program,
    lib: &'a Library,
    options: &'a CheckOptions,
    plan: SearchPlan,
    handicaps: Handicaps,
    start: Instant,
    /// Whether the library is one part: its split is only the over-approximation of
    /// the whole library ([`super::part_search`]), run without semantic subsumption.
    one_part: bool,
}

impl Race<'_> {
    /// Whether `side` takes part at all.
    fn runs(&self, side: Side) -> bool {
        match side {
            Side::Whole => true,
            Side::Plain => self.plan.semantic(),
            Side::Split => self.plan.split(),
            Side::SplitPlain => self.plan.split() && self.plan.semantic(),
        }
    }

    fn handicap(&self, side: Side) -> Handicap {
        let Handicaps {
            split,
            split_halves,
            plain,
        } = self.handicaps;
        let by_parts = |add| Handicap {
            add,
            halves: split_halves,
        };
        match side {
            Side::Whole => Handicap::NONE,
            Side::Plain => Handicap::adding(plain),
            Side::Split => by_parts(split),
            Side::SplitPlain => by_parts(split.saturating_add(plain)),
        }
    }

    /// Of the sides `completed` (at their costs), the one with the least level (ties
    /// by side), and that level.
    fn best(&self, completed: &[(Side, u64)]) -> Option<(u64, Side)> {
        completed
            .iter()
            .map(|&(side, cost)| (self.handicap(side).level(cost), side))
            .min()
    }

    /// The most `side` may spend and still win against `best` (0 when it cannot).
    fn limit_to_win(&self, side: Side, best: Option<(u64, Side)>) -> u64 {
        let Some((level, winner)) = best else {
            return u64::MAX;
        };
        if side < winner {
            self.handicap(side).cost_at(level)
        } else {
            self.handicap(side).cost_below(level)
        }
    }

    /// `options` for `side`: on `lane`, stopped by `interrupt` (which carries the
    /// user's) and at the check's deadline; and its plan.
    fn options_for(
        &self,
        side: Side,
        lane: &Arc<Lane>,
        interrupt: &Arc<AtomicBool>,
    ) -> (CheckOptions, SearchPlan) {
        let mut options = self.options.deadline_from(self.start);
        options.lane = Some(Arc::clone(lane));
        options.interrupt = Some(Arc::clone(interrupt));
        if !side.by_parts() && self.runs(Side::Split) {
            // The split takes a thread of its own; the whole searches' tasks share
            // the rest.
            options.jobs = options.jobs.saturating_sub(1).max(1);
        }
        let plan = match side {
            Side::Plain | Side::SplitPlain => self.plan.without_semantic(),
            Side::Whole | Side::Split => self.plan,
        };
        (options, plan)
    }

    /// A whole search (with or without semantic subsumption, as its plan says) on
    /// `lane` (that of its options), from the start to its end: its result, and its
    /// cost if complete.
    fn run_whole(
        &self,
        (options, plan): &(CheckOptions, SearchPlan),
        lane: &Lane,
        progress: &mut dyn FnMut(&Progress),
    ) -> (CheckResult, Option<u64>) {
        let mut explorer = Parallel::new(self.lib, options, *plan);
        let end = {
            let _done = Done(lane);
            let end = explorer.advance(progress);
            if end == Advance::Done {
                lane.set_complete();
            }
            end
        };
        whole_result(explorer, end, lane.spent())
    }

    /// The split on `lane` (that of `options`), completed by [`split::finish`] where
    /// its bounds do not meet; also whether it may settle with a higher limit.
    fn run_split(&self, options_plan: &(CheckOptions, SearchPlan), lane: &Lane) -> (Outcome, bool) {
        // The split's models must not depend on what this thread's solver context was
        // asked before (another turn, another side): a context of its own.
        context::in_own(|| self.run_split_here(options_plan, lane))
    }

    fn run_split_here(
        &self,
        (options, plan): &(CheckOptions, SearchPlan),
        lane: &Lane,
    ) -> (Outcome, bool) {
        let lib = self.lib;
        let _done = Done(lane);
        let mut quiet = |_: &Progress| {};
        let (outcome, settles) = match split::check(self.program, lib, options, *plan, &mut quiet) {
            Ok(result) if result.inconclusive.is_empty() => (Outcome::Complete(result, 0), true),
            Ok(result) => (Outcome::Found(result.counterexamples, Vec::new()), true),
            Err(unsettled) => match unsettled.partial {
                Some(partial) => {
                    let mut result = split::finish(lib, partial, options, *plan, &mut quiet);
                    add_stuck(&mut result.stuck, unsettled.stuck);
                    result.stats.add(&unsettled.stats);
                    if result.inconclusive.is_empty() {
                        (Outcome::Complete(result, 0), true)
                    } else {
                        let mut found = unsettled.found;
                        found.extend(result.counterexamples);
                        (Outcome::Found(found, Vec::new()), true)
                    }
                }
                None => {
                    let Unsettled { found, stuck, .. } = *unsettled;
                    (Outcome::Found(found, stuck), lane.capped())
                }
            },
        };
        // Whatever a search stopped at the lane's limit gave, only a complete one counts.
        let outcome = match outcome {
            Outcome::Complete(result, _) if lane.capped() => {
                Outcome::Found(result.counterexamples, Vec::new())
            }
            Outcome::Complete(result, _) => Outcome::Complete(result, lane.spent()),
            outcome => outcome,
        };
        (outcome, settles)
    }

    /// The result once every side has stopped: the whole search's (complete at the
    /// cost `whole_cost`, or not) and the others' outcomes.
    fn decide(
        &self,
        whole: CheckResult,
        whole_cost: Option<u64>,
        others: Vec<(Side, Outcome)>,
    ) -> CheckResult {
        let mut completed: Vec<(Side, u64)> = others
            .iter()
            .filter_map(|(side, outcome)| complete_at(outcome).map(|cost| (*side, cost)))
            .collect();
        completed.extend(whole_cost.map(|cost| (Side::Whole, cost)));
        let winner = self.best(&completed).map(|(_, side)| side);
        if winner == Some(Side::Whole) {
            return whole;
        }
        let mut result = whole;
        let mut others = others;
        others.sort_by_key(|(side, _)| *side);
        for (side, outcome) in others {
            match outcome {
                Outcome::Complete(mut won, _) if Some(side) == winner => {
                    if side.by_parts() {
                        // The split's counters, with the whole search's work counted.
                        won.stats.add(&result.stats);
                    }
                    won.stats.searched = match side {
                        // Its over-approximation ran without semantic subsumption.
                        Side::Split if self.one_part => Searched::ByPartsWithoutSemantic,
                        side => side.searched(),
                    };
                    return won;
                }
                // Stopped short: every real trace another side found is kept.
                Outcome::Complete(other, _) | Outcome::Short(other) => {
                    split::add_found(&mut result, other.counterexamples);
                }
                Outcome::Found(found, stuck) => {
                    add_stuck(&mut result.stuck, stuck);
                    split::add_found(&mut result, found);
                }
            }
        }
        result
    }
}

/// The cost at which `outcome` completed, if it did.
fn complete_at(outcome: &Outcome) -> Option<u64> {
    match outcome {
        Outcome::Complete(_, cost) => Some(*cost),
        _ => None,
    }
}

/// The result of a whole search that ended with `end`, and its cost if complete.
fn whole_result(explorer: Parallel, end: Advance, cost: u64) -> (CheckResult, Option<u64>) {
    let result = explorer.finish();
    (result, (end == Advance::Done).then_some(cost))
}

/// The outcome of a whole search with `result`, complete at `cost` or not.
fn outcome(result: CheckResult, cost: Option<u64>) -> Outcome {
    match cost {
        Some(cost) => Outcome::Complete(result, cost),
        None => Outcome::Short(result),
    }
}
