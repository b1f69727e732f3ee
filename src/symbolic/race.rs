//! The whole search and the split ([`split`]) of a library, raced by configuration
//! counts.
//!
//! Which of the two finishes first cannot be told beforehand: the split checks a
//! library of independent parts in a fraction of the whole search's work when the
//! parts' states multiply, and explodes when its stand-in trampoline (up to 16
//! callbacks per frame) is far more willing than the real parts. So both run, each on
//! a [`Lane`] that counts its configurations, and the result is decided by counts
//! alone:
//!
//! > the whole search's result is taken if it completes within n + [`SPLIT_AFTER`]
//! > configurations, where n is the number the split took to settle (infinite if it
//! > does not); otherwise the split's.
//!
//! Both results are exact (same verdict, same failure sites with the same minimal
//! lengths, [`split`]), so either may be taken; deciding by counts rather than by which
//! thread is first keeps the report the same for any number of threads and any timing.
//! Deciding takes each side up to the other's count (give or take `SPLIT_AFTER`), no
//! further: once one is done, the other's limit is set to what can still win.
//!
//! With two threads ([`CheckOptions::jobs`]) both run at once, each paced by the
//! other ([`Lane::pace_by`]) so that neither runs ahead of what the race can need
//! (which bounds the memory of the loser): the wall time is about that of the slower
//! side up to the decisive count. With one thread they take turns under doubling
//! limits, the whole search resumed where it stopped ([`Explorer::advance`]) and the
//! split started afresh, which costs up to twice the whole search's decisive count
//! and twice the split's.
//!
//! When neither completes (the user's time limit, Ctrl-C), the result is the whole
//! search's so far with every real trace the split found added, so that more time
//! never loses a trace.

use super::explore::{Advance, Explorer};
use super::split::{self, Unsettled};
use super::{add_stuck, CheckOptions, CheckResult, Lane, Progress, StuckSite, SPLIT_AFTER};
use crate::build::Library;
use crate::syntax::ast::Program;
use crate::trace::Counterexample;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How the split side of a race ended.
enum SplitRun {
    /// Settled after this many configurations.
    Settled(CheckResult, u64),
    /// Stopped at its lane's limit; the real traces it had found.
    Capped(Vec<Counterexample>),
    /// Finished without settling: only the whole search can decide. What it found.
    Unsettled(Box<Unsettled>),
}

impl SplitRun {
    /// The real traces found, for a result that is not complete.
    fn found(self) -> (Vec<Counterexample>, Vec<StuckSite>) {
        match self {
            SplitRun::Settled(result, _) => (result.counterexamples, Vec::new()),
            SplitRun::Capped(found) => (found, Vec::new()),
            SplitRun::Unsettled(unsettled) => (unsettled.found, unsettled.stuck),
        }
    }
}

/// Checks `lib` (built from `program`) by the whole search or the split, whichever
/// the rule of the module docs picks.
pub fn check(
    program: &Program,
    lib: &Library,
    options: &CheckOptions,
    progress: &mut dyn FnMut(&Progress),
) -> CheckResult {
    check_after(program, lib, options, SPLIT_AFTER, progress)
}

/// [`check`] with `split_after` in place of [`SPLIT_AFTER`].
pub fn check_after(
    program: &Program,
    lib: &Library,
    options: &CheckOptions,
    split_after: u64,
    progress: &mut dyn FnMut(&Progress),
) -> CheckResult {
    let race = Race {
        program,
        lib,
        options,
        split_after,
        start: Instant::now(),
    };
    let mut result = if options.jobs >= 2 {
        race.side_by_side(progress)
    } else {
        race.in_turns(progress)
    };
    result.stats.seconds = race.start.elapsed().as_secs_f64();
    result.settle_verdict(options);
    result
}

/// One race: what is checked, and the rule's threshold.
struct Race<'a> {
    program: &'a Program,
    lib: &'a Library,
    options: &'a CheckOptions,
    /// The whole search's result is taken within n + split_after configurations.
    split_after: u64,
    start: Instant,
}

impl Race<'_> {
    /// `options` for one side: on `lane`, with what is left of the time limit, and
    /// stopped by `interrupt` (which carries the user's).
    fn side(&self, lane: &Arc<Lane>, interrupt: &Arc<AtomicBool>) -> CheckOptions {
        let mut side = self.options.clone();
        side.lane = Some(Arc::clone(lane));
        side.interrupt = Some(Arc::clone(interrupt));
        side.timeout = self
            .options
            .timeout
            .map(|limit| limit.saturating_sub(self.start.elapsed()));
        side
    }

    /// The split on the lane of `options`, completed by [`split::finish`] where its
    /// bounds do not meet.
    fn run_split(&self, options: &CheckOptions) -> SplitRun {
        let lib = self.lib;
        let Some(lane) = options.lane.as_deref() else {
            return SplitRun::Capped(Vec::new());
        };
        let mut quiet = |_: &Progress| {};
        let run = match split::check(self.program, lib, options, &mut quiet) {
            Ok(result) if result.inconclusive.is_empty() => SplitRun::Settled(result, 0),
            Ok(result) => SplitRun::Capped(result.counterexamples),
            Err(unsettled) => match unsettled.partial {
                Some(partial) => {
                    let mut result = split::finish(lib, partial, options, &mut quiet);
                    add_stuck(&mut result.stuck, unsettled.stuck);
                    result.stats.add(&unsettled.stats);
                    if result.inconclusive.is_empty() {
                        SplitRun::Settled(result, 0)
                    } else {
                        let mut found = unsettled.found;
                        found.extend(result.counterexamples);
                        SplitRun::Capped(found)
                    }
                }
                None => SplitRun::Unsettled(unsettled),
            },
        };
        // Whatever a search stopped at the lane's limit gave, only a complete one counts.
        match run {
            SplitRun::Settled(result, _) if lane.capped() => {
                SplitRun::Capped(result.counterexamples)
            }
            SplitRun::Settled(result, _) => SplitRun::Settled(result, lane.spent()),
            SplitRun::Unsettled(unsettled) if lane.capped() => SplitRun::Capped(unsettled.found),
            run => run,
        }
    }

    /// The result once both sides have stopped: the whole search `done` after that
    /// many configurations (or not done), the split's run if there was one.
    fn decide(&self, whole: Explorer, done: Option<u64>, split: Option<SplitRun>) -> CheckResult {
        match (done, split) {
            (Some(n), Some(SplitRun::Settled(result, m)))
                if n > m.saturating_add(self.split_after) =>
            {
                split_won(result, &whole)
            }
            (None, Some(SplitRun::Settled(result, _))) => split_won(result, &whole),
            (_, split) => {
                let mut result = whole.finish();
                if let Some(run) = split.filter(|_| !result.inconclusive.is_empty()) {
                    // Stopped short: every real trace the split found is kept.
                    let (found, stuck) = run.found();
                    add_stuck(&mut result.stuck, stuck);
                    split::add_found(&mut result, found);
                }
                result
            }
        }
    }

    /// The most configurations the split may take to win against a whole search done
    /// after `n`: none when it cannot.
    fn split_limit(&self, n: u64) -> Option<u64> {
        n.checked_sub(self.split_after)?.checked_sub(1)
    }

    /// Both sides at once, on two threads, each paced by the other and its limit set
    /// once the other has a count; the user's interrupt is passed on to both.
    fn side_by_side(&self, progress: &mut dyn FnMut(&Progress)) -> CheckResult {
        let whole_lane = Arc::new(Lane::new(u64::MAX));
        let split_lane = Arc::new(Lane::new(u64::MAX));
        let whole_stop = Arc::new(AtomicBool::new(false));
        let split_stop = Arc::new(AtomicBool::new(false));
        // Ahead by split_after give or take PACE_SLACK: never both waiting.
        let lead = i64::try_from(self.split_after).unwrap_or(i64::MAX / 2);
        whole_lane.pace_by(&split_lane, lead + PACE_SLACK, &whole_stop);
        split_lane.pace_by(&whole_lane, PACE_SLACK - lead, &split_stop);
        let over = AtomicBool::new(false);
        let whole_options = self.side(&whole_lane, &whole_stop);
        let split_options = self.side(&split_lane, &split_stop);
        std::thread::scope(|scope| {
            if let Some(user) = &self.options.interrupt {
                let (whole_stop, split_stop, over) = (&whole_stop, &split_stop, &over);
                scope.spawn(move || {
                    while !over.load(Ordering::Relaxed) {
                        if user.load(Ordering::Relaxed) {
                            whole_stop.store(true, Ordering::Relaxed);
                            split_stop.store(true, Ordering::Relaxed);
                        }
                        std::thread::sleep(Duration::from_millis(5));
                    }
                });
            }
            let split_thread = scope.spawn(|| {
                let _done = Done(&split_lane);
                let run = self.run_split(&split_options);
                if let SplitRun::Settled(_, n) = &run {
                    let limit = n.saturating_add(self.split_after);
                    whole_lane.set_limit(limit);
                    if whole_lane.spent() > limit {
                        // Past what can win: stop even a running solver query.
                        whole_stop.store(true, Ordering::Relaxed);
                    }
                }
                run
            });
            let mut whole = Explorer::exhaustive(self.lib, &whole_options);
            let end = {
                let _done = Done(&whole_lane);
                whole.advance(progress)
            };
            let done = (end == Advance::Done).then(|| whole_lane.spent());
            if let Some(n) = done {
                let limit = self.split_limit(n).unwrap_or(0);
                split_lane.set_limit(limit);
                if split_lane.spent() > limit {
                    split_stop.store(true, Ordering::Relaxed);
                }
            }
            // A panic in the split's search leaves the whole search's result.
            let split = split_thread.join().unwrap_or(SplitRun::Capped(Vec::new()));
            over.store(true, Ordering::Relaxed);
            self.decide(whole, done, Some(split))
        })
    }

    /// Both sides on this thread, in turns: the whole search resumed under doubling
    /// limits W (from `split_after`), the split restarted under W - `split_after`.
    fn in_turns(&self, progress: &mut dyn FnMut(&Progress)) -> CheckResult {
        let whole_lane = Arc::new(Lane::new(self.split_after));
        let stop = self
            .options
            .interrupt
            .clone()
            .unwrap_or_else(|| Arc::new(AtomicBool::new(false)));
        let whole_options = self.side(&whole_lane, &stop);
        let mut whole = Explorer::exhaustive(self.lib, &whole_options);
        let mut limit = self.split_after;
        // The split may still settle, and the limit it was last found not to settle in.
        let mut split_may_settle = true;
        let mut ruled_out = None;
        let mut last = None;
        loop {
            match whole.advance(progress) {
                Advance::Done => {
                    let n = whole_lane.spent();
                    let to_win = self.split_limit(n).filter(|&m| Some(m) > ruled_out);
                    if let Some(m) = to_win.filter(|_| split_may_settle) {
                        let lane = Arc::new(Lane::new(m));
                        last = Some(self.run_split(&self.side(&lane, &stop)));
                    }
                    return self.decide(whole, Some(n), last);
                }
                Advance::Stopped => return self.decide(whole, None, last),
                Advance::Capped => {}
            }
            let to_win = self.split_limit(limit.saturating_add(1)).filter(|&m| m > 0);
            if let Some(m) = to_win.filter(|_| split_may_settle) {
                let lane = Arc::new(Lane::new(m));
                let run = self.run_split(&self.side(&lane, &stop));
                split_may_settle = !matches!(run, SplitRun::Unsettled(_));
                if matches!(run, SplitRun::Settled(..)) {
                    // Not done within limit >= n + split_after.
                    return self.decide(whole, None, Some(run));
                }
                ruled_out = Some(m);
                last = Some(run);
            }
            limit = if split_may_settle {
                limit.saturating_mul(2).max(1)
            } else {
                u64::MAX
            };
            whole_lane.set_limit(limit);
        }
    }
}

/// How far beyond `split_after` a side may run ahead of the other before it waits.
const PACE_SLACK: i64 = 4096;

/// Marks a lane done when dropped, however its searches ended.
struct Done<'a>(&'a Lane);

impl Drop for Done<'_> {
    fn drop(&mut self) {
        self.0.set_done();
    }
}

/// The split's result, with the whole search's work counted.
fn split_won(mut result: CheckResult, whole: &Explorer) -> CheckResult {
    result.stats.add(whole.stats());
    result.stats.by_parts = true;
    result
}
