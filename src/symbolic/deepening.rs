//! `--first`: a shortest failing trace, by alternating two ways of searching under
//! growing budgets. (Not a race: [`super::race`] decides between whole searches by
//! their costs; here each way runs in turn and the first to finish answers.)

use super::brief::Brief;
use super::explore::{Advance, Explorer};
use super::outcome::{CheckResult, Progress, Stats};
use crate::library::Library;
use crate::trace::Counterexample;
use std::time::Instant;

/// Configurations the first round of [`check`] allows each way: small, since the
/// constant factor of the alternation holds only past it (a larger first round let deepening
/// spend 22 times the exhaustive search's work on a safe library the latter settles
/// in a few hundred configurations).
const FIRST_BUDGET: u64 = 1_000;

/// `first`: alternates the two ways to a shortest failing trace, in rounds that give each a
/// budget of configurations four times the last. Deepening on trace length finds a
/// short failure soon but repeats the shorter traces on every pass, which on a safe
/// library can cost far more than the exhaustive search; the exhaustive search gives
/// the shortest failure per site but must finish first. Either answer is a shortest
/// failing trace (or a complete search without one), and the work done is within a
/// constant factor of the faster way's. Each attempt starts afresh; statistics, the
/// stuck paths met, the user's limits and the clock run over all the rounds. An
/// attempt stopped by the user's limits still reports the shortest failing trace any
/// attempt found, so that more time never weakens the verdict.
pub fn check(lib: &Library, brief: &Brief, progress: &mut dyn FnMut(&Progress)) -> CheckResult {
    let start = Instant::now();
    let mut spent = Stats::default();
    let mut stuck = Vec::new();
    let mut found: Vec<Counterexample> = Vec::new();
    let mut budget = FIRST_BUDGET;
    loop {
        for way in [Way::Deepening, Way::Exhaustive] {
            let explorer = Explorer::new(lib, brief).continuing(
                start,
                spent.clone(),
                std::mem::take(&mut stuck),
                spent.configurations.saturating_add(budget),
            );
            let (mut result, capped) = way.run(explorer, progress);
            if !capped {
                if result.counterexamples.is_empty() && !result.inconclusive.is_empty() {
                    // Stopped by the user's limits: the shortest an earlier attempt found.
                    found.sort_by_cached_key(|c| (c.trace.0.len(), c.trace.to_string()));
                    result.counterexamples = found;
                }
                result.counterexamples.truncate(1);
                result.failing_traces = result.failing_traces.max(result.counterexamples.len());
                result.settle_verdict(&brief.run);
                return result;
            }
            found.append(&mut result.counterexamples);
            spent = result.stats;
            stuck = result.stuck;
        }
        budget = budget.saturating_mul(4);
    }
}

/// How a search goes: the whole tree, or passes of growing trace-length limit.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Way {
    Exhaustive,
    Deepening,
}

impl Way {
    /// Runs `explorer` this way; also says whether it stopped at its cap.
    fn run(
        self,
        mut explorer: Explorer,
        progress: &mut dyn FnMut(&Progress),
    ) -> (CheckResult, bool) {
        let end = if self == Way::Deepening {
            // Pass d explores traces of at most d moves. A pass that finds a failure
            // found one of exactly d moves (the previous pass found none), and a pass
            // that cut nothing off was the whole search. The memo carries over: the
            // earlier passes found no failure, so a configuration with no more room
            // left than one explored in an earlier pass has none either within the
            // limit.
            let mut depth = 0;
            loop {
                let (end, cut) = explorer.pass(depth, progress);
                if end != Advance::Done || explorer.found_failure() || !cut {
                    break end;
                }
                depth += 1;
            }
        } else {
            explorer.advance(progress)
        };
        (explorer.finish(), end == Advance::Capped)
    }
}
