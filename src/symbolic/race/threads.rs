//! The race with two or more threads: every side at once, paced on a [`Field`], the
//! sides other than the whole search offered on the job market ([`market`]).

use super::sides::{complete_at, outcome, Outcome, Race};
use crate::symbolic::brief::Brief;
use crate::symbolic::lane::{Field, Lane};
use crate::symbolic::market::{self, Market};
use crate::symbolic::outcome::{CheckResult, Progress, Searched};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

impl Race<'_> {
    /// Every side at once: the whole search on this thread, the others each on a
    /// worker of the market, started, limited and stopped by a coordinator, all paced
    /// on a [`Field`]; the user's interrupt is passed on to every side.
    pub(super) fn side_by_side(&self, progress: &mut dyn FnMut(&Progress)) -> CheckResult {
        let field = Field::new(
            &Searched::ALL.map(|side| self.handicap(side)),
            self.brief.run.jobs,
        );
        let stops = Searched::ALL.map(|_| Arc::new(AtomicBool::new(false)));
        let whole_stop = &stops[Searched::Whole.place()];
        let whole_lane = Lane::paced(&field, Searched::Whole.place(), whole_stop);
        let whole_brief = self.brief_for(Searched::Whole, &whole_lane, whole_stop);
        let user = self.brief.meter.interrupt().map(|flag| flag.as_ref());
        let run_side = |(side, brief, lane): (Searched, Brief, Arc<Lane>)| {
            if side.by_parts() {
                self.run_split(&brief, &lane).0
            } else {
                let (result, cost) = self.run_whole(&brief, &lane, &mut |_| {});
                outcome(result, cost)
            }
        };
        // A worker per side that may run: none waits for another.
        let others = Searched::OTHERS
            .iter()
            .filter(|&&side| self.runs(side))
            .count();
        std::thread::scope(|scope| {
            let coordinator = scope.spawn(|| {
                market::open(others, run_side, |market| {
                    self.coordinate(market, &field, &stops, &whole_lane, user)
                })
            });
            let (whole, cost) = self.run_whole(&whole_brief, &whole_lane, progress);
            // A coordinator that panicked leaves the whole search's result.
            let others = coordinator.join().unwrap_or_default();
            self.decide(whole, cost, others)
        })
    }

    /// Starts, limits and stops the sides other than the whole search (on `market`),
    /// until the whole search is done and every side started has answered: their
    /// outcomes.
    fn coordinate(
        &self,
        market: &mut Market<(Searched, Brief, Arc<Lane>), Outcome>,
        field: &Arc<Field>,
        stops: &[Arc<AtomicBool>],
        whole_lane: &Arc<Lane>,
        user: Option<&AtomicBool>,
    ) -> Vec<(Searched, Outcome)> {
        let mut lanes = vec![(Searched::Whole, Arc::clone(whole_lane))];
        let mut due: Vec<Searched> = Searched::OTHERS
            .into_iter()
            .filter(|&side| self.runs(side))
            .collect();
        let mut outcomes: Vec<(Searched, Outcome)> = Vec::new();
        loop {
            let user_stopped = user.is_some_and(|flag| flag.load(Ordering::Relaxed));
            if user_stopped {
                stops
                    .iter()
                    .for_each(|stop| stop.store(true, Ordering::Relaxed));
            }
            while let Some((place, ended)) = market.answered() {
                // A side that panicked found nothing; the whole search stands.
                let nothing = || Outcome::Found(Vec::new(), Vec::new());
                outcomes.push((Searched::ALL[place], ended.unwrap_or_else(nothing)));
            }
            let whole_done = whole_lane.is_done();
            let mut completed: Vec<(Searched, u64)> = outcomes
                .iter()
                .filter_map(|(side, outcome)| Some((*side, complete_at(outcome)?)))
                .collect();
            if whole_done && whole_lane.is_complete() {
                completed.push((Searched::Whole, whole_lane.spent()));
            }
            let best = self.best(&completed);
            let twin_operated = |side: Searched, lanes: &[(Searched, Arc<Lane>)]| {
                lanes
                    .iter()
                    .any(|(twin, lane)| twin.plain() == Some(side) && lane.ops() > 0)
            };
            // A split starts once it can win: once the whole search's level has
            // reached the split's at no cost, or the whole search stopped short;
            // before, a search that completes cheaply pays nothing for its set-up
            // (tens of milliseconds). The whole search without semantic subsumption
            // has none to pay for and need not wait. And a side without semantic
            // subsumption waits for its twin's first operation of it: until then,
            // they are the same search.
            let whole_level = whole_lane.spent();
            let may_start = |side: Searched| {
                whole_done || !side.by_parts() || self.handicap(side).level(0) <= whole_level
            };
            let starting: Vec<Searched> = due
                .iter()
                .copied()
                .filter(|&side| {
                    !user_stopped
                        && may_start(side)
                        && (side == Searched::ByParts || twin_operated(side, &lanes))
                })
                .collect();
            due.retain(|side| !starting.contains(side));
            for side in starting {
                if self.limit_to_win(side, best) > 0 {
                    let stop = &stops[side.place()];
                    let lane = Lane::paced(field, side.place(), stop);
                    let brief = self.brief_for(side, &lane, stop);
                    lanes.push((side, Arc::clone(&lane)));
                    market.offer(side.place(), (side, brief, lane));
                }
            }
            for (side, lane) in &lanes {
                let limit = self.limit_to_win(*side, best);
                lane.set_limit(limit);
                if lane.spent() > limit {
                    // Past what can win: stop even a running solver query.
                    stops[side.place()].store(true, Ordering::Relaxed);
                }
            }
            if whole_done && market.open() == 0 {
                return outcomes;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}
