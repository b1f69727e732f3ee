//! What one search is given ([`Brief`]): the bounds it plays, the plan it follows, the
//! meter that stops it and how it runs. A check makes one from its options; a strategy
//! hands the searches it runs a narrower one (another plan, a lane, fewer
//! configurations, fewer threads), and never changes the options.

use super::budget::Meter;
use super::options::{Bounds, CheckOptions, Run};
use super::plan::SearchPlan;
use crate::library::Library;

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
