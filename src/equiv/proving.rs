//! The proof attempt of `holi equiv`: a relational certificate for every k and l
//! ([`crate::proof::relational`], `lang/proofs.md` §8), found and re-checked on its
//! own, and written as SMT-LIB with `--certificate DIR`. It runs beside the search
//! ([`alongside`]) from the moment the search has covered the bounds asked, or has run
//! [`RACE_AFTER`], whichever comes first; a proof stops the search. Without a second
//! core it waits for half the time limit, and without one either, for the search.

use crate::check::{ProofMode, PROOF_TIME_FLOOR, RACE_AFTER};
use crate::frontend::Loaded;
use crate::library::Library;
use crate::proof::relational::{self, Names, Side};
use crate::proof::{Budget, INTERRUPTED, TIME_LIMIT};
use crate::report::LineIndex;
use crate::symbolic::memory;
use crate::symbolic::Limits;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What the attempt came to.
#[derive(Clone, Debug, PartialEq)]
pub enum Proof {
    /// Equivalent for every k and l: the relation and turn relation found (in words),
    /// the obligations discharged over that many pairs of functions, and the file the
    /// certificate was written to.
    Proved {
        relation: Vec<String>,
        turn_relation: Vec<String>,
        obligations: usize,
        pairs: usize,
        smtlib: Option<PathBuf>,
        seconds: f64,
    },
    /// Why no proof was found.
    NotProved(String),
    /// `--no-prove`, or a difference was found.
    NotAttempted,
}

/// Where the certificate goes (`--certificate DIR`) and under which name.
pub struct Certificate<'a> {
    pub dir: &'a Path,
    pub stem: &'a str,
}

/// What the comparison asks of the attempt.
pub struct Asked<'a> {
    pub mode: ProofMode,
    pub certificate: Option<Certificate<'a>>,
    /// The comparison's limits (its deadline, Ctrl-C flag and memory limit).
    pub limits: &'a Limits,
}

/// What the search beside which the attempt ran came to, and the attempt's answer.
pub struct Raced<T> {
    pub searched: T,
    /// The attempt's answer; `None` when it is still to be made after the search: it
    /// never started, the search found a difference (which may yet fail to replay), or
    /// its share of memory stopped it.
    pub proof: Option<std::io::Result<Proof>>,
    /// How long the search took.
    pub took: Duration,
    /// Whether a proof had been found when the search ended: it may have stopped it.
    pub stopped_search: bool,
}

/// Runs `search` with the proof attempt beside it, each on a thread of its own (the
/// checker's alarm interrupts its thread's Z3 context, which must not be the search's).
/// `search` is given the flag that stops it (the user's interrupt, or a proof) and a
/// call to make once it has covered the bounds asked, which starts the attempt if it
/// has not started yet; `differs` says whether what it came to is a difference (or an
/// error), which stops the attempt. Once the search has ended, the attempt has, without
/// `--prove`, as long as the search took, at least [`PROOF_TIME_FLOOR`], or half the
/// time left, whichever is longest; with `--prove`, every limit the command has.
pub fn alongside<T>(
    libs: &[Library; 2],
    files: [&Loaded; 2],
    asked: &Asked<'_>,
    search: impl FnOnce(Arc<AtomicBool>, &mut dyn FnMut() -> bool) -> T,
    differs: impl Fn(&T) -> bool,
) -> Raced<T> {
    let limits = asked.limits;
    let user = limits.interrupt.clone();
    let stop_search = memory::Watch::start(u64::MAX, user.clone());
    let started = Instant::now();
    let after = match asked.mode {
        ProofMode::Off => None,
        ProofMode::Required => Some(Duration::ZERO),
        _ if std::thread::available_parallelism().is_ok_and(|n| n.get() > 1) => Some(RACE_AFTER),
        // One core: the search's own time is halved only in the second half of the
        // limit, where a deepening goes past the bounds asked.
        _ => (limits.deadline).map(|d| d.saturating_duration_since(started) / 2),
    };
    let Some(after) = after else {
        let searched = search(stop_search.flag(), &mut || false);
        return Raced {
            searched,
            proof: (asked.mode == ProofMode::Off).then_some(Ok(Proof::NotAttempted)),
            took: started.elapsed(),
            stopped_search: false,
        };
    };
    let stop_proof = memory::Watch::start(u64::MAX, user.clone());
    let own = |searched: Duration| own_share(asked, searched);
    let capped = AtomicBool::new(false);
    let proved = AtomicBool::new(false);
    std::thread::scope(|s| {
        let (start, starting) = mpsc::channel::<()>();
        let (answer, answered) = mpsc::channel();
        let (stop_search, stop_proof, capped, proved) =
            (&stop_search, &stop_proof, &capped, &proved);
        let attempt = std::thread::Builder::new()
            .name("holi-proof".to_string())
            // The checker recurses once per call of the library's own functions, up to
            // its depth budget: as deep as the front end's stack allows.
            .stack_size(crate::frontend::STACK_SIZE)
            .spawn_scoped(s, move || {
                if !after.is_zero()
                    && starting.recv_timeout(after) == Err(RecvTimeoutError::Disconnected)
                {
                    return;
                }
                // Half the memory limit beside the search, so that the attempt gives
                // way to the search rather than the reverse.
                let limits = Limits {
                    interrupt: Some(stop_proof.flag()),
                    max_memory: limits.max_memory.map(|m| m / 2),
                    ..limits.clone()
                };
                let attempt = attempt(libs, files, asked, &limits, None, capped);
                if attempt
                    .as_ref()
                    .is_ok_and(|a| matches!(a.proof, Proof::Proved { .. }))
                {
                    proved.store(true, Ordering::Relaxed);
                    stop_search.stop();
                }
                // Unless the search has ended and stopped waiting for it.
                let _ = answer.send(attempt);
            });
        // Once the bounds asked are covered the search waits for the attempt (started
        // now if not before) for its share of the time, so that a proof found within it
        // ends the search at those bounds whatever the timing; past it the attempt goes
        // on beside the deeper search.
        let mut early = None;
        let mut covering = || {
            let _ = start.send(());
            // With `--prove` the attempt has run from the start and has the whole
            // time: the deeper search goes on beside it rather than wait.
            let waited = match own(started.elapsed()) {
                Some(own) => answered
                    .recv_timeout(own.saturating_duration_since(Instant::now()))
                    .ok(),
                None => answered.try_recv().ok(),
            };
            let proved = waited.as_ref().is_some_and(|a| {
                a.as_ref()
                    .is_ok_and(|a| matches!(a.proof, Proof::Proved { .. }))
            });
            early = waited;
            proved
        };
        let searched = search(stop_search.flag(), &mut covering);
        let took = started.elapsed();
        // A proof is told before the search is stopped.
        let stopped_search = proved.load(Ordering::Relaxed);
        drop(start);
        let differs = differs(&searched);
        if differs || user.as_ref().is_some_and(|u| u.load(Ordering::Relaxed)) {
            stop_proof.stop();
        }
        let waited = match (early, own(took)) {
            (Some(answer), _) => Some(answer),
            (None, Some(own)) => {
                match answered.recv_timeout(own.saturating_duration_since(Instant::now())) {
                    Err(RecvTimeoutError::Timeout) => {
                        capped.store(limits.deadline.is_none_or(|d| own < d), Ordering::Relaxed);
                        stop_proof.stop();
                        answered.recv().ok()
                    }
                    answer => answer.ok(),
                }
            }
            (None, None) => answered.recv().ok(),
        };
        let failed = attempt.map(|a| a.join().is_err());
        let proof = match (waited, failed) {
            (Some(Ok(a)), _) if a.out_of_memory || differs => None,
            (Some(a), _) => Some(a.map(|a| a.proof)),
            (None, Ok(true)) => Some(Ok(Proof::NotProved("the proof attempt failed".to_string()))),
            // Never started, or no thread for it.
            (None, _) => None,
        };
        Raced {
            searched,
            proof,
            took,
            stopped_search,
        }
    })
}

/// The end of the attempt's own share of the time once the search has run `searched`
/// (to its end, or to the bounds asked): as long as the search took, at least
/// [`PROOF_TIME_FLOOR`], or half the time left, whichever is longest. None with
/// `--prove`, which gives the attempt every limit the command has.
pub fn own_share(asked: &Asked<'_>, searched: Duration) -> Option<Instant> {
    let now = Instant::now();
    let half_left =
        (asked.limits.deadline).map_or(Duration::ZERO, |d| d.saturating_duration_since(now) / 2);
    (asked.mode != ProofMode::Required).then(|| now + searched.max(PROOF_TIME_FLOOR).max(half_left))
}

/// An attempt's answer.
pub struct Attempted {
    pub proof: Proof,
    /// Whether its memory limit stopped it.
    pub out_of_memory: bool,
}

/// Tries to prove `libs` equivalent for every k and l within `limits` (its deadline,
/// Ctrl-C flag and memory limit) and `own`, the end of its own share of the time. Its
/// share ends too when `capped` is set and the flag stops it.
pub fn attempt(
    libs: &[Library; 2],
    files: [&Loaded; 2],
    asked: &Asked<'_>,
    limits: &Limits,
    own: Option<Instant>,
    capped: &AtomicBool,
) -> std::io::Result<Attempted> {
    let mode = asked.mode;
    let certificate = asked.certificate.as_ref();
    if mode == ProofMode::Off {
        return Ok(Attempted {
            proof: Proof::NotAttempted,
            out_of_memory: false,
        });
    }
    let started = Instant::now();
    let memory = memory::Watch::start(
        limits.max_memory.unwrap_or(u64::MAX),
        limits.interrupt.clone(),
    );
    let budget = Budget {
        deadline: match (limits.deadline, own) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        },
        interrupt: Some(memory.flag()),
        ..match mode {
            ProofMode::Required => Budget::thorough(),
            _ => Budget::default(),
        }
    };
    let lines = [
        LineIndex::new(&files[0].source),
        LineIndex::new(&files[1].source),
    ];
    let place = |side: Side, span: &crate::syntax::ast::Span| {
        let i = match side {
            Side::Left => 0,
            Side::Right => 1,
        };
        let at = lines[i].point(span.start);
        format!("{}:{}:{}", files[i].name, at.line, at.column)
    };
    let (found, outcome) = relational::prove(&libs[0], &libs[1], budget.clone(), &place);
    // The certificate's text comes from one more check of what was found.
    let (outcome, text) = match (&certificate, outcome) {
        (Some(_), relational::Outcome::Proved { .. }) => {
            relational::certify(&libs[0], &libs[1], &found, budget, &place)
        }
        (_, outcome) => (outcome, None),
    };
    let proof = match outcome {
        relational::Outcome::Proved { obligations, pairs } => {
            let smtlib = match (certificate, text) {
                (Some(c), Some(text)) => {
                    std::fs::create_dir_all(c.dir)?;
                    let path = c.dir.join(format!("{}.smt2", c.stem));
                    std::fs::write(&path, text)?;
                    Some(path)
                }
                _ => None,
            };
            let names = Names::of(&libs[0], &libs[1]);
            Proof::Proved {
                relation: found.describe(&names),
                turn_relation: (found.steps.iter())
                    .map(|s| s.display(&names).to_string())
                    .collect(),
                obligations,
                pairs,
                smtlib,
                seconds: started.elapsed().as_secs_f64(),
            }
        }
        relational::Outcome::Refuted(why) => {
            Proof::NotProved(format!("no relation holi tried shows that {why}"))
        }
        relational::Outcome::Unknown(why) if why == TIME_LIMIT || why == INTERRUPTED => {
            let why = if memory.exceeded() {
                "the memory limit (--max-memory) was exceeded".to_string()
            } else if (why == TIME_LIMIT && limits.deadline.is_none_or(|d| Instant::now() < d))
                || (why == INTERRUPTED && capped.load(Ordering::Relaxed))
            {
                "the attempt had as long as the search took, a second, or half the time left (--prove gives it all the time the command has)".to_string()
            } else {
                why
            };
            Proof::NotProved(format!("the proof attempt was cut short: {why}"))
        }
        relational::Outcome::NotCovered(why) | relational::Outcome::Unknown(why) => {
            Proof::NotProved(why)
        }
    };
    Ok(Attempted {
        proof,
        out_of_memory: memory.exceeded(),
    })
}
