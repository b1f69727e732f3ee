//! The check pipeline, one function for every caller (the CLI, and next the language
//! server and `equiv`): a loaded library and a [`Request`] → the search's result, what a
//! safe result means beyond its bounds, and the synthesized clients, replayed.
//!
//! The library is built once; the search ([`crate::symbolic`]) and the proof attempt
//! ([`crate::proof`]) read the same [`Library`]. The attempt runs beside the search
//! (from the start when a proof is required, after [`RACE_AFTER`] otherwise, and only
//! with more than one thread), or after a safe search; a proof stops the search, whose
//! verdict is then safe for every k and l. Every counterexample becomes a client that
//! [`crate::replay`] links with the library and runs. The request's limits hold in
//! every phase: one deadline, one interrupt flag, one memory limit.

use crate::frontend::Loaded;
use crate::library::Library;
use crate::report::{LineIndex, Scope};
use crate::symbolic::memory;
use crate::symbolic::{self, CheckOptions, CheckResult, Limits, Progress, Verdict};
use crate::{proof, replay};
use std::fmt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What a check is asked, beyond the search's options.
#[derive(Clone, Debug)]
pub struct Request {
    /// The search's bounds, techniques, limits and threads; its limits hold in every
    /// phase of the check.
    pub options: CheckOptions,
    pub proof: ProofMode,
    /// Where to write the certificate of a proof as SMT-LIB (`--certificate DIR`).
    pub certificate: Option<PathBuf>,
    /// Run each synthesized client to confirm its counterexample (`--no-replay` turns
    /// it off).
    pub replay: bool,
    /// Also write each client to `DIR/<stem>-<n>.holi` (`--client DIR`).
    pub client_dir: Option<PathBuf>,
    /// The name the certificate and the clients are written under.
    pub stem: String,
}

/// Whether a safe search is followed by a proof attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProofMode {
    /// No attempt (`--no-prove`).
    Off,
    /// An attempt with as long as the search took, at least [`PROOF_TIME_FLOOR`];
    /// beside a search still running after [`RACE_AFTER`].
    Default,
    /// An attempt from the start, with every limit the command has (`--prove`).
    Required,
}

/// What a check came to.
pub struct Checked {
    pub result: CheckResult,
    /// For a safe result, what it means beyond its bounds.
    pub scope: Option<Scope>,
    /// The clients of the counterexamples and their replays, unless neither was asked.
    pub confirmation: Option<replay::Confirmation>,
}

/// What a caller hears while the check runs.
pub enum Event<'a> {
    /// The search's progress, now and then.
    Searching(&'a Progress),
    /// The search has ended; the proof attempt and the replays may follow.
    Searched,
}

/// A file the check could not write.
#[derive(Debug)]
pub enum CheckError {
    Certificate(std::io::Error),
    Clients(std::io::Error),
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckError::Certificate(e) => write!(f, "cannot write the certificate: {e}"),
            CheckError::Clients(e) => write!(f, "cannot write the synthesized clients: {e}"),
        }
    }
}

/// How long the proof attempt may take at least, without a required proof.
pub const PROOF_TIME_FLOOR: Duration = Duration::from_secs(1);

/// How long a search runs alone before the proof attempt starts beside it, without a
/// required proof: all but a few of the HOLiK grid's searches end within it.
pub const RACE_AFTER: Duration = Duration::from_secs(3);

/// Where the check's search result comes from.
pub enum Searching {
    /// The search runs here.
    Here,
    /// It ran elsewhere and took `took` (the shards of [`crate::symbolic::shares`]),
    /// with the request's options.
    Elsewhere {
        result: Box<CheckResult>,
        took: Duration,
    },
}

/// Checks `loaded` as `request` asks, telling `events` how the search goes.
pub fn run(
    loaded: &Loaded,
    request: &Request,
    events: &mut dyn FnMut(Event),
) -> Result<Checked, CheckError> {
    run_searching(loaded, request, events, Searching::Here)
}

/// [`run`] with the search's result from `searching`: one found elsewhere is followed
/// by the proof attempt and the replays, as one found here would be without a thread
/// for the attempt beside it.
pub fn run_searching(
    loaded: &Loaded,
    request: &Request,
    events: &mut dyn FnMut(Event),
    searching: Searching,
) -> Result<Checked, CheckError> {
    // Built once: the search and the proof attempt read the same library.
    let lib = crate::library::build(&loaded.program);
    let limits = &request.options.limits;
    let interrupt = limits
        .interrupt
        .clone()
        .unwrap_or_else(|| Arc::new(AtomicBool::new(false)));
    let options = CheckOptions {
        limits: Limits {
            interrupt: Some(Arc::clone(&interrupt)),
            ..limits.clone()
        },
        ..request.options.clone()
    };
    let attempt = Attempting {
        loaded,
        lib: &lib,
        request,
        deadline: limits.deadline,
        interrupt: &interrupt,
        memory: limits.max_memory.unwrap_or(u64::MAX),
    };
    let race = match (&searching, request.proof) {
        (Searching::Elsewhere { .. }, _) => None,
        (_, ProofMode::Required) => Some(Duration::ZERO),
        (_, ProofMode::Default) => (options.run.jobs > 1).then_some(RACE_AFTER),
        (_, ProofMode::Off) => None,
    };
    let (result, scope) = match race {
        Some(after) => attempt.beside_search(&options, after, events),
        None => {
            let started = Instant::now();
            let (result, took) = match searching {
                Searching::Here => {
                    let result = search(&lib, &options, events);
                    (result, started.elapsed())
                }
                Searching::Elsewhere { result, took } => (*result, took),
            };
            let scope = (result.verdict == Verdict::Safe).then(|| {
                let own = attempt.own_limit(took);
                attempt
                    .prove(own, attempt.memory, &interrupt)
                    .map(|a| a.scope)
            });
            (result, scope)
        }
    };
    let scope = scope.transpose().map_err(CheckError::Certificate)?;
    // Every counterexample becomes a client; unless told otherwise, each is run to
    // confirm it.
    let confirmation = if !request.replay && request.client_dir.is_none() {
        None
    } else {
        let options = replay::ConfirmOptions {
            replay: request.replay,
            client_dir: request.client_dir.clone(),
            deadline: limits.deadline,
            interrupt: Some(Arc::clone(&interrupt)),
        };
        let confirmed = replay::confirm(
            &loaded.program,
            &result.counterexamples,
            &options,
            &request.stem,
        );
        Some(confirmed.map_err(CheckError::Clients)?)
    };
    Ok(Checked {
        result,
        scope,
        confirmation,
    })
}

/// The search, telling `events` its progress and its end.
fn search(lib: &Library, options: &CheckOptions, events: &mut dyn FnMut(Event)) -> CheckResult {
    let result = symbolic::check_with_progress(lib, options, &mut |p| events(Event::Searching(p)));
    events(Event::Searched);
    result
}

/// A proof attempt of one check, with the limits of the whole.
struct Attempting<'a> {
    loaded: &'a Loaded,
    lib: &'a Library,
    request: &'a Request,
    /// The check's deadline.
    deadline: Option<Instant>,
    /// Ctrl-C.
    interrupt: &'a Arc<AtomicBool>,
    /// Bytes.
    memory: u64,
}

impl Attempting<'_> {
    /// The end of the attempt's own time, without a required proof: as long as the
    /// search took (`searched`), at least [`PROOF_TIME_FLOOR`], from now.
    fn own_limit(&self, searched: Duration) -> Option<Instant> {
        (self.request.proof != ProofMode::Required)
            .then(|| Instant::now() + searched.max(PROOF_TIME_FLOOR))
    }

    /// The proof attempt beside the search, so that a library the bounded search would
    /// take minutes over (a bank of 450 lines at k 3, l 2) is settled as soon as a proof
    /// is found; the search then stops, and the verdict is safe for every k and l (the
    /// proof covers these bounds too), with the counts of the search so far. A search
    /// that fails or ends stuck stops the attempt. One that ends otherwise waits for it:
    /// with a required proof for as long as the check may run; without, until the
    /// attempt has had as long as the search took, so that the check ends at most
    /// `after` after the search (which shared its cores with the attempt meanwhile). A
    /// search that ends within `after` never shares its cores: the attempt then runs
    /// after it, as with one thread.
    fn beside_search(
        &self,
        options: &CheckOptions,
        after: Duration,
        events: &mut dyn FnMut(Event),
    ) -> (CheckResult, Option<std::io::Result<Scope>>) {
        let (deadline, interrupt) = (self.deadline, self.interrupt);
        let required = self.request.proof == ProofMode::Required;
        // Flags that the user's interrupt sets too, and each side may set for the other.
        let stop_search = memory::Watch::start(u64::MAX, Some(Arc::clone(interrupt)));
        let stop_proof = memory::Watch::start(u64::MAX, Some(Arc::clone(interrupt)));
        let options = CheckOptions {
            limits: Limits {
                interrupt: Some(stop_search.flag()),
                ..options.limits.clone()
            },
            ..options.clone()
        };
        let searching = Instant::now();
        let (result, beside, searched) = std::thread::scope(|s| {
            let proof_flag = stop_proof.flag();
            let stop_search = &stop_search;
            let (search_ended, ended) = std::sync::mpsc::channel::<()>();
            let (answer, answered) = std::sync::mpsc::channel();
            let attempt = std::thread::Builder::new()
                .name("holi-proof".to_string())
                // The checker recurses once per call of the library's own functions, up
                // to its depth budget: as deep as the front end's stack allows.
                .stack_size(crate::frontend::STACK_SIZE)
                .spawn_scoped(s, move || {
                    if !after.is_zero()
                        && ended.recv_timeout(after) != Err(RecvTimeoutError::Timeout)
                    {
                        return;
                    }
                    // Half the memory limit beside the search, so that the attempt gives
                    // way to the search rather than the reverse.
                    let attempt = self.prove(None, self.memory / 2, &proof_flag);
                    if attempt.as_ref().is_ok_and(Attempt::proved) {
                        stop_search.stop();
                    }
                    // Unless the search has ended and stopped waiting for it.
                    let _ = answer.send(attempt);
                });
            // A search that panics stops the attempt rather than waits for it.
            let _stopping = StopOnDrop(&stop_proof);
            let mut result = search(self.lib, &options, events);
            let searched = searching.elapsed();
            drop(search_ended);
            let Ok(attempt) = attempt else {
                return (result, None, searched);
            };
            // A failure or a stuck path (unless stuck paths are allowed and keep the
            // verdict safe) means no proof; a search cut short by its configuration
            // limit leaves the attempt its chance, within the deadline.
            let failed = !result.counterexamples.is_empty() || result.verdict == Verdict::Stuck;
            if failed || interrupt.load(Ordering::Relaxed) {
                stop_proof.stop();
            }
            // Without a required proof, the attempt that started `after` into the search
            // may go on until it has had as long as the search took; stopped there (and
            // not by the check's deadline, which it meets by itself), it says so.
            let own = (!required).then(|| searching + after + searched.max(PROOF_TIME_FLOOR));
            let mut capped = false;
            let waited = match own {
                Some(own) => {
                    match answered.recv_timeout(own.saturating_duration_since(Instant::now())) {
                        Err(RecvTimeoutError::Timeout) => {
                            capped = deadline.is_none_or(|d| own < d);
                            stop_proof.stop();
                            answered.recv().ok()
                        }
                        answer => answer.ok(),
                    }
                }
                None => answered.recv().ok(),
            };
            if let Err(panic) = attempt.join() {
                std::panic::resume_unwind(panic);
            }
            let beside = waited.map(|attempt| {
                attempt.map(|a| {
                    if a.cut_short && capped {
                        let why = format!("the proof attempt was cut short: {CAPPED}");
                        Attempt {
                            scope: Scope::Bounded(why),
                            cut_short: true,
                        }
                    } else {
                        a
                    }
                })
            });
            if !failed
                && beside
                    .as_ref()
                    .is_some_and(|a| a.as_ref().is_ok_and(Attempt::proved))
            {
                // The proof covers these bounds: what the search had left is settled.
                result.settle_by_proof(&options.run);
            }
            (result, beside.map(|b| (b, capped)), searched)
        });
        if result.verdict != Verdict::Safe {
            return (result, None);
        }
        // Stopped beside the search (by its share of memory), not started, or no thread
        // for it: alone, as without the race and with as long as the search took, so
        // that running it beside never weakens the answer.
        let again = match &beside {
            None => true,
            Some((Ok(attempt), capped)) => {
                attempt.cut_short && !capped && !interrupt.load(Ordering::Relaxed)
            }
            Some((Err(_), _)) => false,
        };
        let scope = match beside {
            Some((attempt, _)) if !again => attempt.map(|a| a.scope),
            _ => self
                .prove(self.own_limit(searched), self.memory, interrupt)
                .map(|a| a.scope),
        };
        (result, Some(scope))
    }

    /// Tries to prove the library safe for every k and l: a certificate found by
    /// [`proof::find`] and re-checked by [`proof::check`], written to the request's
    /// certificate directory as `<stem>.smt2` (the only error). The check's deadline,
    /// the attempt's own (`own`), `interrupt` (Ctrl-C, or the race's stop) and the
    /// memory limit (`memory` bytes) stop it within a fraction of a second
    /// ([`proof::Budget`]).
    fn prove(
        &self,
        own: Option<Instant>,
        memory: u64,
        interrupt: &Arc<AtomicBool>,
    ) -> std::io::Result<Attempt> {
        let (loaded, lib, request) = (self.loaded, self.lib, self.request);
        if request.proof == ProofMode::Off {
            let scope = Scope::Bounded("not attempted (--no-prove)".to_string());
            return Ok(Attempt {
                scope,
                cut_short: false,
            });
        }
        // The memory limit holds here as in the search: its watch sets the flag that
        // stops the checker, as Ctrl-C does.
        let memory = memory::Watch::start(memory, Some(Arc::clone(interrupt)));
        let budget = proof::Budget {
            deadline: match (self.deadline, own) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
            interrupt: Some(memory.flag()),
            ..if request.proof == ProofMode::Required {
                proof::Budget::thorough()
            } else {
                proof::Budget::default()
            }
        };
        let (found, outcome) = proof::find(lib, &proof::candidates(lib), budget.clone());
        let lines = LineIndex::new(&loaded.source);
        let place = |span: &crate::syntax::ast::Span| {
            let at = lines.point(span.start);
            format!("{}:{}:{}", loaded.name, at.line, at.column)
        };
        // The certificate's text comes from one more check of what was found.
        let (outcome, text) = match (&request.certificate, outcome) {
            (Some(_), proof::Outcome::Proved { .. }) => proof::certify(lib, &found, budget, &place),
            (_, outcome) => (outcome, None),
        };
        let cut_short = matches!(&outcome, proof::Outcome::Unknown(why)
            if why == proof::TIME_LIMIT || why == proof::INTERRUPTED);
        let scope = match outcome {
            proof::Outcome::Proved {
                obligations,
                revealed,
                recursive,
            } => {
                let smtlib = match (&request.certificate, text) {
                    (Some(dir), Some(text)) => {
                        std::fs::create_dir_all(dir)?;
                        let path = dir.join(format!("{}.smt2", request.stem));
                        std::fs::write(&path, text)?;
                        Some(path.display().to_string())
                    }
                    _ => None,
                };
                Scope::AllBounds {
                    invariant: (found.invariant.iter())
                        .map(|f| f.display(lib).to_string())
                        .collect(),
                    turn_relation: (found.steps.iter())
                        .map(|s| s.display(lib).to_string())
                        .collect(),
                    revealed: revealed.iter().map(place).collect(),
                    recursive: recursive.iter().map(place).collect(),
                    cells: (proof::cells(lib, &found).into_iter())
                        .map(|cell| {
                            let owner = if cell.client_may_hold {
                                "the client may hold and write them"
                            } else {
                                "private"
                            };
                            format!("{} ({}): {owner}", cell.name, place(&cell.span))
                        })
                        .collect(),
                    obligations,
                    smtlib,
                }
            }
            proof::Outcome::Refuted(o) => Scope::Bounded(format!(
                "no invariant holi tried shows that {}",
                o.describe(&place)
            )),
            proof::Outcome::Unknown(why)
                if why == proof::TIME_LIMIT || why == proof::INTERRUPTED =>
            {
                let why = if memory.exceeded() {
                    format!(
                        "the memory limit ({} MiB, --max-memory) was exceeded",
                        self.memory >> 20
                    )
                } else if why == proof::TIME_LIMIT
                    && self.deadline.is_none_or(|d| Instant::now() < d)
                {
                    CAPPED.to_string()
                } else {
                    why
                };
                Scope::Bounded(format!("the proof attempt was cut short: {why}"))
            }
            proof::Outcome::NotCovered(why) | proof::Outcome::Unknown(why) => Scope::Bounded(why),
        };
        Ok(Attempt { scope, cut_short })
    }
}

/// Stops what its watch serves when dropped.
struct StopOnDrop<'a>(&'a memory::Watch);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// Why an attempt without a required proof stopped at its own time.
const CAPPED: &str =
    "it may take as long as the search took, at least a second (--prove lifts that)";

/// What a proof attempt gives the report, and whether a limit or an interrupt cut it
/// short.
struct Attempt {
    scope: Scope,
    cut_short: bool,
}

impl Attempt {
    fn proved(&self) -> bool {
        matches!(self.scope, Scope::AllBounds { .. })
    }
}
