//! What a check is asked ([`CheckOptions`]): the bounds, the techniques of the
//! search, the limits and how it runs, with their defaults.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// HOLiK's bounds when neither the file nor the command line gives any.
pub const DEFAULT_K: u32 = 4;
pub const DEFAULT_L: u32 = 4;
/// Work ([`super::solver::work`], about a microsecond a unit) within which the whole
/// search's result is always taken over the split's, for a library of independent
/// parts ([`super::race`]): about 0.2 s.
pub const SPLIT_AFTER: u64 = 200_000;
/// How many halves a split's work counts against the whole search's ([`super::race`]): one
/// and a half times over, so a split must save a third of the work to be taken.
pub const SPLIT_HALVES: u64 = 3;
/// Work within which the result of a search with semantic subsumption is always
/// taken over one without it ([`super::race`]): about 20 ms.
pub const PLAIN_AFTER: u64 = 20_000;
/// The default limit on one solver query.
pub const DEFAULT_SOLVER_TIMEOUT: Duration = Duration::from_secs(10);

/// What a check is asked, in four parts, each read by the layers that need it: the
/// [`Bounds`] by the game, the [`Techniques`] only through the
/// [`SearchPlan`](super::plan::SearchPlan) they resolve into (which keeps the rules stated
/// here), the [`Limits`] only through the one [`Meter`](super::budget::Meter) a check
/// starts, and how it [`Run`]s. The engine never changes it: a search gets what it
/// needs in a [`Brief`](super::brief::Brief).
#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    pub bounds: Bounds,
    pub techniques: Techniques,
    pub limits: Limits,
    pub run: Run,
}

/// HOLiK's two bounds (`lang/semantics.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// Open library frames allowed (nesting of library calls, including the client's).
    pub k: u32,
    /// The client's call budget per context.
    pub l: u32,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            k: DEFAULT_K,
            l: DEFAULT_L,
        }
    }
}

/// The switches of the search; none changes what is reported except `all` and
/// `first`, which change what is asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Techniques {
    /// Keep every distinct failing trace, not only the shortest per failure site. The
    /// search is then the plain exploration (no subsumption), so the set is exhaustive.
    pub all: bool,
    /// Prune opponent configurations subsumed by one already explored ([`super::memo`]), and
    /// client calls to a revealed function interchangeable with an earlier one
    /// ([`super::config::Config::duplicates_earlier_revealed`]). Ignored with `all`.
    pub memo: bool,
    /// With `memo`, also prune an opponent configuration whose symbolic integers can
    /// only take values that configurations of its shape already explored covered
    /// ([`super::memo`], semantic subsumption).
    pub semantic: bool,
    /// With `memo`, leave references whose contents cannot change what the library
    /// does ([`super::inert`]) out of the keys.
    pub inert: bool,
    /// With `memo` (and without `all`), branch and bound: once every failure site in
    /// the library's code has a failing trace, cut every trace at least as long as the
    /// longest of them, since nothing there can shorten what is reported.
    pub bound: bool,
    /// With `memo` (and without `all` or `first`), check a library made of independent
    /// components one component at a time when that gives the same report ([`super::split`]).
    pub split: bool,
    /// With `memo`, do not make client calls that cannot be calls of a shortest
    /// failing trace: nothing after them could read what they write, or a last call
    /// could not shorten one ([`super::relevance`]).
    pub relevance: bool,
    /// Stop at the first failing trace; the search deepens on trace length, so it is
    /// a shortest one.
    pub first: bool,
    /// With `bound`, first prove failure sites unreachable in an over-approximation of
    /// the library ([`super::overapprox::havoc`]), so that branch and bound need not wait for traces to
    /// them (which never come), and a part of a split library (or a library of one
    /// part) whose sites are all unreachable needs no search.
    pub havoc: bool,
}

impl Default for Techniques {
    fn default() -> Self {
        Techniques {
            all: false,
            memo: true,
            semantic: true,
            inert: true,
            bound: true,
            split: true,
            relevance: true,
            first: false,
            havoc: true,
        }
    }
}

/// What stops a check. A check turns them into one [`Meter`](super::budget::Meter)
/// when it starts, so that every search it runs (a race's sides, the split's searches
/// and their completion, the over-approximation's rounds) stops at the same instant
/// rather than restarting the clock.
#[derive(Clone, Debug)]
pub struct Limits {
    /// How long the check may run, from its start.
    pub timeout: Option<Duration>,
    /// When the check must stop, whatever `timeout` leaves: set it to share one
    /// deadline between checks.
    pub deadline: Option<Instant>,
    /// The longest one solver query may run; a query that does not finish in time is
    /// undecided and makes the verdict inconclusive. Z3 can run forever on nonlinear
    /// integer constraints, so a search without `timeout` still needs this bound.
    pub solver_timeout: Option<Duration>,
    pub max_configurations: Option<u64>,
    /// The most resident memory, in bytes, the process and its solver process may
    /// use: past it the check stops as if interrupted, with a note naming the limit
    /// ([`super::memory`]).
    pub max_memory: Option<u64>,
    /// Set from another thread (Ctrl-C) to stop the search cleanly.
    pub interrupt: Option<Arc<AtomicBool>>,
}

impl Limits {
    /// Whether the work must stop now whatever it has left to do: the interrupt flag
    /// is set or the deadline has passed.
    pub fn stopped(&self) -> bool {
        self.interrupt
            .as_ref()
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
            || self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: None,
            deadline: None,
            solver_timeout: Some(DEFAULT_SOLVER_TIMEOUT),
            max_configurations: None,
            max_memory: None,
            interrupt: None,
        }
    }
}

/// How the check runs, and how its answer is read.
#[derive(Clone, Debug)]
pub struct Run {
    /// Threads the check may use (at least 1). The report does not depend on it: with
    /// two or more, the searches of a [`super::race`] run side by side.
    pub jobs: usize,
    /// The program (normally `holi` itself) that answers nonlinear solver queries in a
    /// child process, so that the limits stop them promptly
    /// ([`super::solver::Solver::nonlinear_in_child`]). `None` answers them in this
    /// process, where Z3's nonlinear arithmetic may notice a limit late.
    pub solver_process: Option<std::path::PathBuf>,
    /// How many configurations the whole search's tasks explore ([`super::tasks`]); only
    /// the work per task depends on it, never whether a failure is found.
    pub task_sizes: TaskSizes,
    /// HOLiK's behaviour: a search that found no failing trace is [`Verdict::Safe`](super::outcome::Verdict::Safe) even
    /// when some paths got stuck (the benchmark's `--allow-stuck`). Without it such a
    /// result is [`Verdict::Stuck`](super::outcome::Verdict::Stuck).
    pub allow_stuck: bool,
}

impl Default for Run {
    fn default() -> Self {
        Run {
            jobs: 1,
            solver_process: None,
            task_sizes: TaskSizes::default(),
            allow_stuck: false,
        }
    }
}

impl CheckOptions {
    /// The default options at bounds `k` and `l`.
    pub fn bounded(k: u32, l: u32) -> CheckOptions {
        CheckOptions {
            bounds: Bounds { k, l },
            ..CheckOptions::default()
        }
    }
}

/// How many configurations a task explores before it stops and is cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskSizes {
    /// The first task's, from the start: searches this small run as one task.
    pub first: u64,
    /// Every later task's.
    pub task: u64,
}

impl Default for TaskSizes {
    fn default() -> Self {
        // A first task of 100,000 cut searches of a few hundred thousand configurations
        // whose pruning lives on semantic subsumption, and the borders cost them up to
        // 4× (dos_safe-mo k6 l4: 24 s as one task, over 90 s by tasks): such searches
        // stay whole, and only the millions are cut. Later tasks of 40,000 made a
        // search of 2.3 M configurations 40 % slower than one task (random s21), of
        // 250,000 13 %, with the ten heaviest grid cells unchanged.
        TaskSizes {
            first: 1_000_000,
            task: 250_000,
        }
    }
}
