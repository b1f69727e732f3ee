//! Whether an opponent configuration is subsumed by one fully explored
//! ([`memo`]): by its key, or, with semantic subsumption, by the regions of explored
//! configurations of the same shape, which costs projections and a coverage check.
//! Why either keeps every failure site and its minimal length: [`memo`].

use super::config::Config;
use super::lane::Lane;
use super::memo::{self, Key, Memo, Visit};
use super::outcome::Stats;
use super::solver::{work, Solver};
use std::time::Duration;

/// Projections that must give some region before semantic subsumption stops making
/// them.
pub const PROJECTION_TRIAL: u64 = 32;

/// The projections one search made, and how many gave a region: whether projecting
/// still pays is judged on these, not on the statistics, which carry over the attempts
/// of a race ([`super::deepening`]) and would stop a fresh search's projections before its
/// first one.
#[derive(Default)]
pub struct Trial {
    made: u64,
    gave_region: u64,
}

/// What [`look_up`] needs besides the memo: the search's solver and counters.
pub struct Ask<'a> {
    pub solver: &'a mut Solver,
    pub stats: &'a mut Stats,
    /// This search's projections so far.
    pub trial: &'a mut Trial,
    /// Where the solver's operations are counted, when racing.
    pub lane: Option<&'a Lane>,
    /// Each solver operation's time limit.
    pub limit: Option<Duration>,
    /// Compare values by region, not only by key.
    pub semantic: bool,
}

/// How [`look_up`] found a configuration.
pub enum Seen {
    /// Subsumed: the failures below it were credited; `cut` when a cut below the
    /// entries that subsume it may have left that short ([`memo`]).
    Subsumed { cut: bool },
    /// Not subsumed: its key, to enter in the memo once its subtree is explored.
    New(Key),
}

/// Looks `cfg` up in `memo`; when it is subsumed, `credit(site, suffix)` is called
/// for each failure site reached `suffix` moves below the configurations that subsume
/// it.
pub fn look_up(
    memo: &mut Memo,
    cfg: &Config,
    visit: &Visit,
    ask: Ask,
    credit: &mut dyn FnMut(u32, u32),
) -> Seen {
    let mut key = memo::key(memo, cfg);
    if let Some((summary, cut)) = memo.subsumes(&key, visit) {
        ask.stats.subsumed += 1;
        for &(site, suffix) in summary {
            credit(site, suffix);
        }
        return Seen::Subsumed { cut };
    }
    if ask.semantic {
        key.shape = memo::shape(memo, cfg);
        // The shape, and the region entered with it, are the whole search's own work.
        ask.solver.work += work::SHAPE;
    }
    let Some(shape) = &key.shape else {
        return Seen::New(key);
    };
    let Ask {
        solver,
        stats,
        trial,
        lane,
        limit,
        ..
    } = ask;
    let regions = memo.regions(shape, key.budgets(), visit, &mut |pc, terms| {
        // A library whose first projections all fail (division, say, which Z3's `qe`
        // cannot eliminate) would pay one for every shape it meets and gain nothing:
        // projecting stops. Pruning less is always sound.
        if trial.made >= PROJECTION_TRIAL && trial.gave_region == 0 {
            return None;
        }
        trial.made += 1;
        stats.projections += 1;
        if let Some(lane) = lane {
            lane.count_op();
        }
        let region = solver.project(pc, terms, limit);
        trial.gave_region += u64::from(region.is_some());
        region
    });
    if regions.is_empty() {
        return Seen::New(key);
    }
    stats.coverage_checks += 1;
    if let Some(lane) = lane {
        lane.count_op();
    }
    let formulas: Vec<_> = regions.iter().map(|(f, ..)| f).collect();
    if !solver.covered(&cfg.pc, &shape.terms, &formulas, limit) {
        return Seen::New(key);
    }
    stats.subsumed += 1;
    stats.covered += 1;
    let mut cut = false;
    for (_, summary, short) in regions {
        cut |= short;
        for (site, suffix) in summary {
            credit(site, suffix);
        }
    }
    Seen::Subsumed { cut }
}

#[cfg(test)]
mod tests {
    use super::super::explore::Explorer;
    use super::super::overapprox::havoc::tests::library;
    use super::super::{Brief, CheckOptions, CheckResult, Verdict};
    use super::PROJECTION_TRIAL;

    /// A division in the stored value: no projection gives a region (`qe` cannot
    /// eliminate it), so projecting stops after the trial, and the search, not only its
    /// answer, is the one without semantic subsumption.
    const DIVIDES: &str = "
        import send :(int -> unit)
        int c := 0;
        public m (a:int) :(unit) = { (let t = !c in (send !c; assert (t == !c)));
            c := (if (!c <= 2) then a else a) / (0 - 100) };
        public n (u:unit) :(unit) = { () };
    ";

    #[test]
    fn projections_that_never_give_a_region_stop_after_the_trial() {
        let lib = library(DIVIDES);
        let brief = Brief::new(&CheckOptions::bounded(4, 2), &lib);
        let default = Explorer::new(&lib, &brief).run(&mut |_| {});
        assert_eq!(default.stats.projections, PROJECTION_TRIAL);
        assert_eq!(default.stats.coverage_checks, 0);
        let plain =
            Explorer::new(&lib, &brief.with_plan(brief.plan.without_semantic())).run(&mut |_| {});
        assert_eq!(default.verdict, Verdict::Unsafe);
        assert_eq!(default.verdict, plain.verdict);
        assert_eq!(default.stats.configurations, plain.stats.configurations);
        let texts = |r: &CheckResult| -> Vec<String> {
            r.counterexamples
                .iter()
                .map(|c| c.trace.to_string())
                .collect()
        };
        assert_eq!(texts(&default), texts(&plain));
    }

    /// A race's later attempt ([`super::super::deepening`]) carries the statistics of the
    /// earlier ones, past the trial; it still projects, and so prunes exactly as a
    /// fresh search (once it did not, and `--first` on `reentrancy_safe` at k 3, l 2 took
    /// 64 times the configurations).
    #[test]
    fn a_search_continuing_another_ones_statistics_still_projects() {
        let lib = library(
            "
            import send :(int -> unit)
            int c := 0;
            public set (a:int) :(unit) = { if (a > 0) then c := a else () };
            public call (u:unit) :(unit) = { send !c; assert (!c >= 0) };
        ",
        );
        let brief = Brief::new(&CheckOptions::bounded(4, 2), &lib);
        let fresh = Explorer::new(&lib, &brief).run(&mut |_| {});
        assert!(
            fresh.stats.covered > 0,
            "no configuration covered by a region"
        );
        let mut earlier = fresh.stats.clone();
        earlier.projections = earlier.projections.max(PROJECTION_TRIAL);
        let later = Explorer::new(&lib, &brief)
            .continuing(
                std::time::Instant::now(),
                earlier.clone(),
                Vec::new(),
                u64::MAX,
            )
            .run(&mut |_| {});
        assert_eq!(later.verdict, fresh.verdict);
        assert_eq!(
            later.stats.configurations - earlier.configurations,
            fresh.stats.configurations
        );
        assert_eq!(later.stats.covered - earlier.covered, fresh.stats.covered);
    }
}
