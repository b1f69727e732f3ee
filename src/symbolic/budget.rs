//! What a search may spend. The user's limits (time, configurations, interruption)
//! end it; its share (a cap on configurations, or the [`Lane`] it runs on in a race)
//! only pauses it, where it can resume.

use super::lane::{Lane, Working};
use super::options::Limits;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The limits of one check as it runs: its deadline, fixed when the check starts, the
/// flag that stops it, the configurations it may explore, the longest solver query,
/// and the lane of its race, if any. The searches of the check get narrower meters
/// (a lane, a flag that also stops them for a reason of their own, fewer
/// configurations), so every limit is computed in one place.
#[derive(Clone, Debug, Default)]
pub struct Meter {
    deadline: Option<Instant>,
    solver_timeout: Option<Duration>,
    max_configurations: Option<u64>,
    interrupt: Option<Arc<AtomicBool>>,
    lane: Option<Arc<Lane>>,
}

impl Meter {
    /// The meter of a check starting now under `limits` (a timeout too long to add is
    /// no limit).
    pub fn start(limits: &Limits) -> Meter {
        Meter {
            deadline: limits
                .deadline
                .or_else(|| limits.timeout.and_then(|t| Instant::now().checked_add(t))),
            solver_timeout: limits.solver_timeout,
            max_configurations: limits.max_configurations,
            interrupt: limits.interrupt.clone(),
            lane: None,
        }
    }

    /// This meter for a search that runs on `lane`.
    pub fn on_lane(&self, lane: &Arc<Lane>) -> Meter {
        Meter {
            lane: Some(Arc::clone(lane)),
            ..self.clone()
        }
    }

    /// This meter stopped by `flag` instead of its own flag; `flag` must be set
    /// whenever the own flag is (a watch that carries it, [`super::memory::Watch`]).
    pub fn stopped_by(&self, flag: &Arc<AtomicBool>) -> Meter {
        Meter {
            interrupt: Some(Arc::clone(flag)),
            ..self.clone()
        }
    }

    /// This meter with `spent` of its configurations already explored.
    pub fn after(&self, spent: u64) -> Meter {
        Meter {
            max_configurations: self.max_configurations.map(|m| m.saturating_sub(spent)),
            ..self.clone()
        }
    }

    pub fn max_configurations(&self) -> Option<u64> {
        self.max_configurations
    }

    /// The flag that stops the check.
    pub fn interrupt(&self) -> Option<&Arc<AtomicBool>> {
        self.interrupt.as_ref()
    }

    pub fn lane(&self) -> Option<&Arc<Lane>> {
        self.lane.as_ref()
    }
}

pub struct Budget {
    start: Instant,
    meter: Meter,
    /// This attempt's cap on configurations, counted from the start of the check.
    cap: Option<u64>,
    /// Counts the search as running on its lane's field while it lives.
    _working: Option<Working>,
    /// The configurations' work counted so far.
    counted: u64,
    /// The solver's work charged to the lane so far.
    charged: u64,
}

impl Budget {
    /// A search's budget under `meter`, with its clock started now.
    pub fn new(meter: &Meter) -> Budget {
        Budget {
            start: Instant::now(),
            meter: meter.clone(),
            cap: None,
            _working: meter.lane.as_ref().map(|lane| lane.working()),
            counted: 0,
            charged: 0,
        }
    }

    /// The clock of an earlier attempt of the same check.
    pub fn since(&mut self, start: Instant) {
        self.start = start;
    }

    /// Pauses the search at `cap` configurations in all.
    pub fn cap(&mut self, cap: u64) {
        self.cap = Some(cap);
    }

    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Why the search must stop now, if it must, after `configurations`.
    pub fn exhausted(&self, configurations: u64) -> Option<String> {
        if self
            .meter
            .interrupt
            .as_ref()
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
        {
            return Some("interrupted".to_string());
        }
        if self.meter.deadline.is_some_and(|d| Instant::now() >= d) {
            return Some("the time limit ran out".to_string());
        }
        if self
            .meter
            .max_configurations
            .is_some_and(|max| configurations >= max)
        {
            return Some("the configuration limit was reached".to_string());
        }
        None
    }

    /// Whether the search's share is used up after `configurations`: it pauses.
    pub fn share_used(&self, configurations: u64) -> bool {
        self.meter.lane.as_ref().is_some_and(|lane| !lane.admits())
            || self.cap.is_some_and(|cap| configurations >= cap)
    }

    /// Charges the lane with one configuration's `work` ([`super::solver::work::configuration`]).
    pub fn count(&mut self, work: u64) {
        self.counted += work;
        if let Some(lane) = &self.meter.lane {
            lane.charge(work);
        }
    }

    /// The configurations' work counted so far.
    pub fn counted(&self) -> u64 {
        self.counted
    }

    /// Charges the lane with the solver's work since the last charge; `work` is the
    /// solver's total.
    pub fn charge(&mut self, work: u64) {
        if let Some(lane) = self.meter.lane.as_ref().filter(|_| work > self.charged) {
            lane.charge(work - self.charged);
            self.charged = work;
        }
    }

    pub fn lane(&self) -> Option<&Lane> {
        self.meter.lane.as_deref()
    }

    /// How long the next solver query may run: no longer than the search's own
    /// deadline, nor the per-query limit.
    pub fn query_limit(&self) -> Option<Duration> {
        let remaining = self
            .meter
            .deadline
            .map(|d| d.saturating_duration_since(Instant::now()));
        match (remaining, self.meter.solver_timeout) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}
