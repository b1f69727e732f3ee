//! What a search may spend. The user's limits (time, configurations, interruption)
//! end it; its share (a cap on configurations, or the [`Lane`] it runs on in a race)
//! only pauses it, where it can resume.

use super::lane::{Lane, Working};
use super::options::CheckOptions;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub struct Budget {
    start: Instant,
    timeout: Option<Duration>,
    /// The check's deadline ([`CheckOptions::deadline`]); without one, `timeout`
    /// counts from `start`.
    deadline: Option<Instant>,
    solver_timeout: Option<Duration>,
    max_configurations: Option<u64>,
    interrupt: Option<Arc<AtomicBool>>,
    /// This attempt's cap on configurations, counted from the start of the check.
    cap: Option<u64>,
    lane: Option<Arc<Lane>>,
    /// Counts the search as running on its lane's field while it lives.
    _working: Option<Working>,
    /// The configurations' work counted so far.
    counted: u64,
    /// The solver's work charged to the lane so far.
    charged: u64,
}

impl Budget {
    /// The limits of `options`, with the clock started now.
    pub fn new(options: &CheckOptions) -> Budget {
        Budget {
            start: Instant::now(),
            timeout: options.timeout,
            deadline: options.deadline,
            solver_timeout: options.solver_timeout,
            max_configurations: options.max_configurations,
            interrupt: options.interrupt.clone(),
            cap: None,
            lane: options.lane.clone(),
            _working: options.lane.as_ref().map(|lane| lane.working()),
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

    /// When the search must stop, if ever (a timeout too long to add is no limit).
    fn deadline(&self) -> Option<Instant> {
        self.deadline
            .or_else(|| self.timeout.and_then(|t| self.start.checked_add(t)))
    }

    /// Why the search must stop now, if it must, after `configurations`.
    pub fn exhausted(&self, configurations: u64) -> Option<String> {
        if self
            .interrupt
            .as_ref()
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
        {
            return Some("interrupted".to_string());
        }
        if self.deadline().is_some_and(|d| Instant::now() >= d) {
            return Some("the time limit ran out".to_string());
        }
        if self
            .max_configurations
            .is_some_and(|max| configurations >= max)
        {
            return Some("the configuration limit was reached".to_string());
        }
        None
    }

    /// Whether the search's share is used up after `configurations`: it pauses.
    pub fn share_used(&self, configurations: u64) -> bool {
        self.lane.as_ref().is_some_and(|lane| !lane.admits())
            || self.cap.is_some_and(|cap| configurations >= cap)
    }

    /// Charges the lane with one configuration's `work` ([`super::solver::work::configuration`]).
    pub fn count(&mut self, work: u64) {
        self.counted += work;
        if let Some(lane) = &self.lane {
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
        if let Some(lane) = self.lane.as_ref().filter(|_| work > self.charged) {
            lane.charge(work - self.charged);
            self.charged = work;
        }
    }

    pub fn lane(&self) -> Option<&Lane> {
        self.lane.as_deref()
    }

    /// How long the next solver query may run: no longer than the search's own
    /// deadline, nor the per-query limit.
    pub fn query_limit(&self) -> Option<Duration> {
        let remaining = self
            .deadline()
            .map(|d| d.saturating_duration_since(Instant::now()));
        match (remaining, self.solver_timeout) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}
