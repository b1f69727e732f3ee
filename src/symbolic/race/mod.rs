//! The searches that decide the same question, raced by counts: the whole search
//! with every pruning, the whole search without semantic subsumption, and the split
//! ([`split`](crate::symbolic::split)) of a library into independent parts.
//!
//! Which is cheapest cannot be told beforehand. Semantic subsumption pays a solver
//! operation per client turn and saves, per cover, a subtree that may be a handful of
//! configurations or exponentially many; the split checks independent parts in a
//! fraction of the whole search's work when their states multiply, and explodes when
//! its stand-in (up to 16 callbacks per frame) is far more willing than the real parts.
//! So each side runs on a [`Lane`](crate::symbolic::lane::Lane) that counts its cost (its configurations, each by
//! the size of its path condition, and the solver's operations, as
//! [`super::solver::work`] estimates them from counts and sizes in units of about a
//! microsecond), and the result is decided by the counts alone:
//!
//! > of the sides that complete, the one with the least level is taken, ties going to
//! > the earlier of: the whole search, the one without semantic subsumption, the
//! > split, the split without it. A side's level is its cost (a split's counted one
//! > and a half times over, [`SPLIT_HALVES`](crate::symbolic::options::SPLIT_HALVES)) plus its handicap: none for the whole
//! > search, [`PLAIN_AFTER`](crate::symbolic::options::PLAIN_AFTER) for the one without semantic subsumption, [`SPLIT_AFTER`](crate::symbolic::options::SPLIT_AFTER)
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
//! code was left out, [`crate::library::Library::live_codes`]). No side's unit
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
//! minimal lengths: [`split`](crate::symbolic::split), [`memo`](super::memo)), so any may be taken; deciding by
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
//! With two or more threads ([`Run::jobs`](super::options::Run::jobs)) the sides run at once
//! ([`threads`]), paced on a [`Field`](super::lane::Field) so that none runs ahead of
//! what the race can need (which bounds the memory and the processor time of the
//! losers) while the searches outnumber the threads, and none runs past twice the
//! lowest level (or [`PACE_SLACK`](super::lane::PACE_SLACK) above it, if further)
//! while they do not (waiting would leave a core idle): the wall time is about that of
//! the slowest side up to the winner's level.
//! The split starts only once it can win, when the whole search's level reaches its
//! level at no cost (or the whole search stopped short): most searches complete
//! within [`SPLIT_AFTER`](crate::symbolic::options::SPLIT_AFTER), and the split's set-up alone (sub-libraries, a Z3 context,
//! its first solvers) took about 20 ms, as long as the whole of such a check. The
//! search without semantic subsumption has no such set-up and starts at its twin's
//! first operation, before it can win: waiting for the whole search to reach
//! [`PLAIN_AFTER`](crate::symbolic::options::PLAIN_AFTER) would add that time to every check it wins.
//! The whole searches cut themselves into tasks ([`super::tasks`]) on the threads the
//! split does not take. With one thread they take turns ([`turns`]) under doubling
//! levels, the whole searches resumed where they stopped ([`Parallel::advance`](crate::symbolic::tasks::Parallel::advance)) and
//! the split started afresh.
//!
//! When no side completes (the user's time limit, Ctrl-C), the result is the whole
//! search's so far with every real trace the others found added, so that more time
//! never loses a trace.

mod sides;
mod threads;
mod turns;

pub use sides::Handicaps;

use super::brief::Brief;
use super::components::Components;
use super::outcome::{CheckResult, Progress};
use crate::library::Library;
use sides::Race;
use std::time::Instant;

/// Checks `lib` by whichever search the rule of the module
/// docs picks.
pub fn check(lib: &Library, brief: &Brief, progress: &mut dyn FnMut(&Progress)) -> CheckResult {
    check_with(lib, brief, Handicaps::default(), progress)
}

/// [`check`] with other handicaps.
pub fn check_with(
    lib: &Library,
    brief: &Brief,
    handicaps: Handicaps,
    progress: &mut dyn FnMut(&Progress),
) -> CheckResult {
    let race = Race {
        lib,
        brief,
        handicaps,
        start: Instant::now(),
        one_part: brief.plan.split() && Components::of(lib).count < 2,
    };
    let mut result = if brief.run.jobs >= 2 {
        race.side_by_side(progress)
    } else {
        race.in_turns(progress)
    };
    result.stats.seconds = race.start.elapsed().as_secs_f64();
    result.settle_verdict(&brief.run);
    result.plan = brief.plan;
    result
}
