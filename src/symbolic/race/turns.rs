//! The race with one thread: every side in turns, under doubling levels.

use super::sides::{complete_at, outcome, whole_result, Outcome, Race};
use crate::symbolic::explore::Advance;
use crate::symbolic::lane::{self, Lane};
use crate::symbolic::outcome::{CheckResult, Progress, Searched};
use crate::symbolic::tasks::Parallel;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

impl Race<'_> {
    /// Every side on this thread, in turns, under doubling levels: the whole searches
    /// resumed where they stopped, the splits restarted.
    pub(super) fn in_turns(&self, progress: &mut dyn FnMut(&Progress)) -> CheckResult {
        let stop = self
            .brief
            .meter
            .interrupt()
            .cloned()
            .unwrap_or_else(|| Arc::new(AtomicBool::new(false)));
        let user_stopped = || stop.load(Ordering::Relaxed);
        let whole_lane = Arc::new(Lane::new(0));
        let plain_lane = Arc::new(Lane::new(0));
        let whole_brief = self.brief_for(Searched::Whole, &whole_lane, &stop);
        let plain_brief = self.brief_for(Searched::WithoutSemantic, &plain_lane, &stop);
        let mut whole = Parallel::new(self.lib, &whole_brief);
        let mut whole_end = None;
        let mut others: Vec<(Searched, Turns)> = Searched::OTHERS
            .into_iter()
            .filter(|&side| self.runs(side))
            .map(|side| {
                let turns = if side == Searched::ByParts {
                    Turns::restarted()
                } else {
                    Turns::Due
                };
                (side, turns)
            })
            .collect();
        let mut level = self.handicaps.split.max(lane::PACE_SLACK);
        loop {
            let completed = |whole_end: Option<Advance>, others: &[(Searched, Turns)]| {
                let mut completed: Vec<(Searched, u64)> = others
                    .iter()
                    .filter_map(|(side, turns)| {
                        let cost = match turns {
                            Turns::Resumed(_, Some(Advance::Done)) => Some(plain_lane.spent()),
                            turns => turns.settled_at(),
                        };
                        Some((*side, cost?))
                    })
                    .collect();
                if whole_end == Some(Advance::Done) {
                    completed.push((Searched::Whole, whole_lane.spent()));
                }
                self.best(&completed)
            };
            let limit =
                level.min(self.limit_to_win(Searched::Whole, completed(whole_end, &others)));
            if whole_end.is_none() && whole_lane.spent() < limit {
                whole_lane.set_limit(limit);
                whole_end = Some(whole.advance(progress)).filter(|end| *end != Advance::Capped);
            }
            for i in 0..others.len() {
                let side = others[i].0;
                if matches!(others[i].1, Turns::Due) && twin_ops(side, &whole_lane, &others) > 0 {
                    others[i].1 = if side == Searched::WithoutSemantic {
                        let explorer = Parallel::new(self.lib, &plain_brief);
                        Turns::Resumed(Box::new(explorer), None)
                    } else {
                        Turns::restarted()
                    };
                }
                let best = completed(whole_end, &others);
                let limit = self
                    .handicap(side)
                    .cost_at(level)
                    .min(self.limit_to_win(side, best));
                if user_stopped() || whole_end == Some(Advance::Stopped) {
                    break;
                }
                match &mut others[i].1 {
                    Turns::Due => {}
                    Turns::Resumed(explorer, end) => {
                        if end.is_none() && plain_lane.spent() < limit {
                            plain_lane.set_limit(limit);
                            *end = Some(explorer.advance(&mut |_| {}))
                                .filter(|end| *end != Advance::Capped);
                        }
                    }
                    Turns::Restarted {
                        may_settle,
                        ran,
                        ops,
                        outcome,
                    } => {
                        if *may_settle && *ran < limit {
                            let lane = Arc::new(Lane::new(limit));
                            let (ended, settles) =
                                self.run_split(&self.brief_for(side, &lane, &stop), &lane);
                            *ran = limit;
                            *ops = lane.ops();
                            *may_settle = settles && complete_at(&ended).is_none();
                            *outcome = Some(Box::new(ended));
                        }
                    }
                }
            }
            // Over once no side can still beat the best so far, or by a user's limit.
            let best = completed(whole_end, &others);
            let whole_open = whole_end.is_none()
                && whole_lane.spent() < self.limit_to_win(Searched::Whole, best);
            let open = others.iter().any(|(side, turns)| {
                let to_win = self.limit_to_win(*side, best);
                match turns {
                    // Started at the next turn if its twin has made an operation.
                    Turns::Due => twin_ops(*side, &whole_lane, &others) > 0,
                    Turns::Resumed(_, end) => end.is_none() && plain_lane.spent() < to_win,
                    Turns::Restarted {
                        may_settle, ran, ..
                    } => *may_settle && *ran < to_win,
                }
            });
            // A side without semantic subsumption stopped by a limit of its own (the
            // configurations it may explore) ends alone, as it does beside the others
            // on threads: the whole search may still complete within it.
            let stopped = user_stopped() || whole_end == Some(Advance::Stopped);
            if stopped || !(whole_open || open) {
                break;
            }
            level = level.saturating_mul(2);
        }
        let whole_cost = (whole_end == Some(Advance::Done)).then(|| whole_lane.spent());
        let others = others
            .into_iter()
            .filter_map(|(side, turns)| {
                let ended = match turns {
                    Turns::Due => None,
                    Turns::Resumed(explorer, end) => {
                        let end = end.unwrap_or(Advance::Capped);
                        let (result, cost) = whole_result(*explorer, end, plain_lane.spent());
                        Some(outcome(result, cost))
                    }
                    Turns::Restarted { outcome, .. } => outcome.map(|ended| *ended),
                };
                Some((side, ended?))
            })
            .collect();
        self.decide(whole.finish(), whole_cost, others)
    }
}

/// The operations of semantic subsumption made by the twin of `side` (a side without
/// it), taking turns beside the whole search on `whole_lane`.
fn twin_ops(side: Searched, whole_lane: &Lane, others: &[(Searched, Turns)]) -> u64 {
    if side == Searched::WithoutSemantic {
        return whole_lane.ops();
    }
    others
        .iter()
        .find(|(twin, _)| twin.plain() == Some(side))
        .map_or(0, |(_, turns)| turns.ops())
}

/// A side other than the whole search, taking turns.
enum Turns<'p, 'o> {
    /// Not started: it waits for its twin with semantic subsumption to make an
    /// operation of it, before which the two are one search.
    Due,
    /// The whole search without semantic subsumption, resumed at each turn, and how it
    /// ended once it has (not at its lane's limit).
    Resumed(Box<Parallel<'p, 'o>>, Option<Advance>),
    /// A split, restarted at each turn: whether it may still settle, the most it was
    /// run with, the operations of semantic subsumption it made then, and how it ended.
    Restarted {
        may_settle: bool,
        ran: u64,
        ops: u64,
        outcome: Option<Box<Outcome>>,
    },
}

impl Turns<'_, '_> {
    fn restarted() -> Self {
        Turns::Restarted {
            may_settle: true,
            ran: 0,
            ops: 0,
            outcome: None,
        }
    }

    fn ops(&self) -> u64 {
        match self {
            Turns::Restarted { ops, .. } => *ops,
            Turns::Due | Turns::Resumed(..) => 0,
        }
    }

    /// The cost at which a split settled, if it has.
    fn settled_at(&self) -> Option<u64> {
        match self {
            Turns::Restarted { outcome, .. } => complete_at(outcome.as_ref()?),
            Turns::Due | Turns::Resumed(..) => None,
        }
    }
}
