//! What one search is given ([`Brief`]): the bounds it plays, the plan it follows, the
//! meter that stops it and how it runs. A check makes one from its options; a strategy
//! hands the searches it runs a narrower one (another plan, a lane, fewer
//! configurations, fewer threads), and never changes the options.

use super::budget::Meter;
use super::memory;
use super::options::{Bounds, CheckOptions, Limits, Run};
use super::plan::SearchPlan;
use crate::library::Library;
use std::sync::atomic::Ordering;

#[derive(Clone, Debug)]
pub struct Brief {
    pub bounds: Bounds,
    pub plan: SearchPlan,
    pub meter: Meter,
    pub run: Run,
}

impl Brief {
    /// The brief of a check of `lib` by `options` that starts now: the plan its
    /// techniques leave ([`SearchPlan::new`]) and its limits' meter.
    pub fn new(options: &CheckOptions, lib: &Library) -> Brief {
        Brief {
            bounds: options.bounds,
            plan: SearchPlan::new(&options.techniques, lib),
            meter: Meter::start(&options.limits),
            run: options.run.clone(),
        }
    }

    /// Runs `search` with this brief, stopped as by an interrupt once the process holds
    /// more than `limits.max_memory`; unless the user interrupted, the note of the
    /// interrupt in each of the result's lists of `notes` becomes the memory limit's (a
    /// search that ended before it noticed is complete, and keeps its notes). Whether
    /// the notes changed.
    pub fn within_memory<R>(
        &self,
        limits: &Limits,
        search: impl FnOnce(&Brief) -> R,
        notes: impl FnOnce(&mut R) -> Vec<&mut Vec<String>>,
    ) -> (R, bool) {
        let Some(limit) = limits.max_memory else {
            return (search(self), false);
        };
        let watch = memory::Watch::start(limit, limits.interrupt.clone());
        let mut result = search(&self.with_meter(self.meter.stopped_by(&watch.flag())));
        let user = limits
            .interrupt
            .as_ref()
            .is_some_and(|u| u.load(Ordering::Relaxed));
        if !watch.exceeded() || user {
            return (result, false);
        }
        // The search took the limit for an interrupt: say which it was.
        let stopped = "search stopped: interrupted";
        let mut changed = false;
        for notes in notes(&mut result) {
            if notes.iter().any(|n| n == stopped) {
                notes.retain(|n| n != stopped);
                notes.insert(0, memory::note(limit));
                changed = true;
            }
        }
        (result, changed)
    }

    pub fn with_plan(&self, plan: SearchPlan) -> Brief {
        Brief {
            plan,
            ..self.clone()
        }
    }

    pub fn with_meter(&self, meter: Meter) -> Brief {
        Brief {
            meter,
            ..self.clone()
        }
    }

    pub fn with_bounds(&self, bounds: Bounds) -> Brief {
        Brief {
            bounds,
            ..self.clone()
        }
    }

    /// This brief on `jobs` threads (at least one).
    pub fn with_jobs(&self, jobs: usize) -> Brief {
        Brief {
            run: Run {
                jobs: jobs.max(1),
                ..self.run.clone()
            },
            ..self.clone()
        }
    }
}
