//! One race ([`Race`]): its sides, what each costs against the whole search
//! ([`Handicaps`]), how a side's search runs and ends ([`Outcome`]), and which result
//! is taken. The two schedulers, [`super::threads`] and [`super::turns`], run its sides.

use crate::library::Library;
use crate::symbolic::brief::Brief;
use crate::symbolic::context;
use crate::symbolic::explore::Advance;
use crate::symbolic::lane::{Done, Handicap, Lane};
use crate::symbolic::options::{PLAIN_AFTER, SPLIT_AFTER, SPLIT_HALVES};
use crate::symbolic::outcome::{add_stuck, CheckResult, Progress, Searched, StuckSite};
use crate::symbolic::split::{self, Unsettled};
use crate::symbolic::tasks::Parallel;
use crate::trace::Counterexample;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

/// The sides of a race are the searches it chooses from ([`Searched`]), in the order
/// that breaks ties.
impl Searched {
    pub(super) const ALL: [Searched; 4] = [
        Searched::Whole,
        Searched::WithoutSemantic,
        Searched::ByParts,
        Searched::ByPartsWithoutSemantic,
    ];
    /// The sides beside the whole search.
    pub(super) const OTHERS: [Searched; 3] = [
        Searched::WithoutSemantic,
        Searched::ByParts,
        Searched::ByPartsWithoutSemantic,
    ];

    /// Its place on the [`Field`](crate::symbolic::lane::Field).
    pub(super) fn place(self) -> usize {
        self as usize
    }

    pub(super) fn by_parts(self) -> bool {
        matches!(self, Searched::ByParts | Searched::ByPartsWithoutSemantic)
    }

    /// The side it is without semantic subsumption, for a side with it.
    pub(super) fn plain(self) -> Option<Searched> {
        match self {
            Searched::Whole => Some(Searched::WithoutSemantic),
            Searched::ByParts => Some(Searched::ByPartsWithoutSemantic),
            Searched::WithoutSemantic | Searched::ByPartsWithoutSemantic => None,
        }
    }
}

/// How one side's search ended.
pub(super) enum Outcome {
    /// Complete, at this cost.
    Complete(CheckResult, u64),
    /// A whole search stopped short: its result so far, which says so.
    Short(CheckResult),
    /// The split stopped short or unsettled: the real traces it found, and where
    /// paths got stuck.
    Found(Vec<Counterexample>, Vec<StuckSite>),
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

/// One race: what is checked, and the handicaps.
pub(super) struct Race<'a> {
    pub(super) lib: &'a Library,
    pub(super) brief: &'a Brief,
    pub(super) handicaps: Handicaps,
    pub(super) start: Instant,
    /// Whether the library is one part: its split is only the over-approximation of
    /// the whole library ([`crate::symbolic::part_search`]), run without semantic subsumption.
    pub(super) one_part: bool,
}

impl Race<'_> {
    /// Whether `side` takes part at all.
    pub(super) fn runs(&self, side: Searched) -> bool {
        match side {
            Searched::Whole => true,
            Searched::WithoutSemantic => self.brief.plan.semantic(),
            Searched::ByParts => self.brief.plan.split(),
            Searched::ByPartsWithoutSemantic => {
                self.brief.plan.split() && self.brief.plan.semantic()
            }
        }
    }

    pub(super) fn handicap(&self, side: Searched) -> Handicap {
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
            Searched::Whole => Handicap::NONE,
            Searched::WithoutSemantic => Handicap::adding(plain),
            Searched::ByParts => by_parts(split),
            Searched::ByPartsWithoutSemantic => by_parts(split.saturating_add(plain)),
        }
    }

    /// Of the sides `completed` (at their costs), the one with the least level (ties
    /// by side), and that level.
    pub(super) fn best(&self, completed: &[(Searched, u64)]) -> Option<(u64, Searched)> {
        completed
            .iter()
            .map(|&(side, cost)| (self.handicap(side).level(cost), side))
            .min()
    }

    /// The most `side` may spend and still win against `best` (0 when it cannot).
    pub(super) fn limit_to_win(&self, side: Searched, best: Option<(u64, Searched)>) -> u64 {
        let Some((level, winner)) = best else {
            return u64::MAX;
        };
        if side < winner {
            self.handicap(side).cost_at(level)
        } else {
            self.handicap(side).cost_below(level)
        }
    }

    /// The brief of `side`: its plan, on `lane`, stopped by `interrupt` (which
    /// carries the user's) and at the check's deadline.
    pub(super) fn brief_for(
        &self,
        side: Searched,
        lane: &Arc<Lane>,
        interrupt: &Arc<AtomicBool>,
    ) -> Brief {
        let plan = match side {
            Searched::WithoutSemantic | Searched::ByPartsWithoutSemantic => {
                self.brief.plan.without_semantic()
            }
            Searched::Whole | Searched::ByParts => self.brief.plan,
        };
        let meter = self.brief.meter.on_lane(lane).stopped_by(interrupt);
        let brief = self.brief.with_plan(plan).with_meter(meter);
        if !side.by_parts() && self.runs(Searched::ByParts) {
            // The split takes a thread of its own; the whole searches' tasks share
            // the rest.
            brief.with_jobs(brief.run.jobs.saturating_sub(1))
        } else {
            brief
        }
    }

    /// A whole search (with or without semantic subsumption, as its plan says) on
    /// `lane` (that of its brief), from the start to its end: its result, and its
    /// cost if complete.
    pub(super) fn run_whole(
        &self,
        brief: &Brief,
        lane: &Lane,
        progress: &mut dyn FnMut(&Progress),
    ) -> (CheckResult, Option<u64>) {
        let mut explorer = Parallel::new(self.lib, brief);
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

    /// The split on `lane` (that of `brief`), completed by [`split::finish`] where
    /// its bounds do not meet; also whether it may settle with a higher limit.
    pub(super) fn run_split(&self, brief: &Brief, lane: &Lane) -> (Outcome, bool) {
        // The split's models must not depend on what this thread's solver context was
        // asked before (another turn, another side): a context of its own.
        context::in_own(|| self.run_split_here(brief, lane))
    }

    pub(super) fn run_split_here(&self, brief: &Brief, lane: &Lane) -> (Outcome, bool) {
        let lib = self.lib;
        let _done = Done(lane);
        let mut quiet = |_: &Progress| {};
        let (outcome, settles) = match split::check(lib, brief, &mut quiet) {
            Ok(result) if result.inconclusive.is_empty() => (Outcome::Complete(result, 0), true),
            Ok(result) => (Outcome::Found(result.counterexamples, Vec::new()), true),
            Err(unsettled) => match unsettled.partial {
                Some(partial) => {
                    let mut result = split::finish(lib, partial, brief, &mut quiet);
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
    pub(super) fn decide(
        &self,
        whole: CheckResult,
        whole_cost: Option<u64>,
        others: Vec<(Searched, Outcome)>,
    ) -> CheckResult {
        let mut completed: Vec<(Searched, u64)> = others
            .iter()
            .filter_map(|(side, outcome)| complete_at(outcome).map(|cost| (*side, cost)))
            .collect();
        completed.extend(whole_cost.map(|cost| (Searched::Whole, cost)));
        let winner = self.best(&completed).map(|(_, side)| side);
        if winner == Some(Searched::Whole) {
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
                        Searched::ByParts if self.one_part => Searched::ByPartsWithoutSemantic,
                        side => side,
                    };
                    return won;
                }
                // Stopped short: every real trace another side found is kept.
                Outcome::Complete(other, _) | Outcome::Short(other) => {
                    split::add_found(&mut result, other.counterexamples, &self.brief.run);
                }
                Outcome::Found(found, stuck) => {
                    add_stuck(&mut result.stuck, stuck);
                    split::add_found(&mut result, found, &self.brief.run);
                }
            }
        }
        result
    }
}

/// The cost at which `outcome` completed, if it did.
pub(super) fn complete_at(outcome: &Outcome) -> Option<u64> {
    match outcome {
        Outcome::Complete(_, cost) => Some(*cost),
        _ => None,
    }
}

/// The result of a whole search that ended with `end`, and its cost if complete.
pub(super) fn whole_result(
    explorer: Parallel,
    end: Advance,
    cost: u64,
) -> (CheckResult, Option<u64>) {
    let result = explorer.finish();
    (result, (end == Advance::Done).then_some(cost))
}

/// The outcome of a whole search with `result`, complete at `cost` or not.
pub(super) fn outcome(result: CheckResult, cost: Option<u64>) -> Outcome {
    match cost {
        Some(cost) => Outcome::Complete(result, cost),
        None => Outcome::Short(result),
    }
}
