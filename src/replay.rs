//! Replay: a counterexample is confirmed by running a client that plays it.
//!
//! The library is linked with the synthesized client *as printed* (the source is parsed
//! again, so what the user reads is what ran), the linked program runs on the concrete
//! interpreter, and the run must make exactly the counterexample's concrete moves and
//! then fail in the library with the same kind of failure at the same place. Function
//! names are compared up to a consistent renaming: the trace's `f1`/`m1` are fresh names,
//! and the run has its own.
//!
//! [`confirm`] replays every counterexample of one library: it indexes the library once,
//! so each replay costs time in the length of its trace, not in the size of the library,
//! and it stops at the caller's deadline or interrupt, marking the counterexamples left
//! [`Verdict::NotReplayed`].

use crate::client::{self, Client, Unwritten};
use crate::concrete::{
    self, Cutoff, Limits, Outcome, ProgramIndex, RunResult, Side, Stop, DEFAULT_MAX_MEMORY,
};
use crate::link::{self, Files};
use crate::syntax::ast::Program;
use crate::trace::{Counterexample, Move, Trace, TraceValue};
use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

/// The verdict of one replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The client made the library fail along exactly the counterexample's trace.
    Confirmed,
    /// It did not: a bug in holi (engine, synthesis or interpreter).
    Mismatch {
        expected: Trace,
        observed: Trace,
        reason: String,
    },
    /// Not replayed: the time limit passed or the user interrupted first. This says
    /// nothing about the counterexample (and is no bug in holi).
    NotReplayed(Cutoff),
}

/// A replay: the client's source (when one could be written) and the verdict.
#[derive(Clone, Debug)]
pub struct Replay {
    pub client: Option<String>,
    pub verdict: Verdict,
}

impl Replay {
    pub fn confirmed(&self) -> bool {
        self.verdict == Verdict::Confirmed
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Confirmed => write!(f, "confirmed by replay"),
            Verdict::Mismatch {
                expected,
                observed,
                reason,
            } => write!(
                f,
                "replay failed ({reason})\n  expected: {expected}\n  observed: {observed}"
            ),
            Verdict::NotReplayed(cutoff) => write!(f, "not replayed ({cutoff})"),
        }
    }
}

/// Generous limits: the trace is finite, so a correct client stops quickly; the limits
/// only keep a wrong one from running forever.
pub const REPLAY_LIMITS: Limits = Limits {
    max_steps: 50_000_000,
    max_depth: 100_000,
    max_memory: DEFAULT_MAX_MEMORY,
    deadline: None,
    interrupt: None,
};

/// The client's source text: the explanatory header, then the canonical printing.
pub fn client_source(client: &Client) -> String {
    format!(
        "{}{}",
        client.header,
        crate::syntax::printer::print_program(&client.program)
    )
}

/// Synthesizes the client for `cx`, prints it, parses it back, links and runs it, and
/// compares the run with the counterexample.
pub fn replay(library: &Program, cx: &Counterexample) -> Replay {
    replay_indexed(&ProgramIndex::new(library), cx, &REPLAY_LIMITS)
}

/// [`replay`] against an indexed library, within `limits` (whose deadline and interrupt
/// also bound the synthesis).
pub fn replay_indexed(library: &ProgramIndex<'_>, cx: &Counterexample, limits: &Limits) -> Replay {
    let mismatch = |reason: String, observed: Trace| Verdict::Mismatch {
        expected: cx.concrete.clone(),
        observed,
        reason,
    };
    let client = match client::synthesize_indexed(library, cx, limits) {
        Ok(c) => c,
        Err(Unwritten::Error(e)) => {
            return Replay {
                client: None,
                verdict: mismatch(e.to_string(), Trace::default()),
            }
        }
        Err(Unwritten::Cutoff(cutoff)) => {
            return Replay {
                client: None,
                verdict: Verdict::NotReplayed(cutoff),
            }
        }
    };
    let source = client_source(&client);
    let parsed = match crate::frontend::load_str("client.holi", &source, false) {
        Ok(loaded) => loaded.program,
        Err(rejected) => {
            let titles: Vec<String> = rejected
                .diagnostics
                .iter()
                .map(|d| format!("{}: {}", d.code, d.title))
                .collect();
            return Replay {
                client: Some(source),
                verdict: mismatch(
                    format!(
                        "the synthesized client does not load: {}",
                        titles.join("; ")
                    ),
                    Trace::default(),
                ),
            };
        }
    };
    let verdict = replay_client_indexed(library, &parsed, cx, limits);
    Replay {
        client: Some(source),
        verdict,
    }
}

/// Links `library` with an already-built `client`, runs it and compares with `cx`.
pub fn replay_client(library: &Program, client: &Program, cx: &Counterexample) -> Verdict {
    replay_client_indexed(&ProgramIndex::new(library), client, cx, &REPLAY_LIMITS)
}

fn replay_client_indexed(
    library: &ProgramIndex<'_>,
    client: &Program,
    cx: &Counterexample,
    limits: &Limits,
) -> Verdict {
    let files = Files {
        library: "library.holi",
        client: "client.holi",
    };
    if let Some(cutoff) = limits.cutoff() {
        return Verdict::NotReplayed(cutoff);
    }
    let client = ProgramIndex::new(client);
    if let Err(errors) = link::compatible(library, &client, files) {
        let titles: Vec<String> = errors.iter().map(|d| d.title.clone()).collect();
        return Verdict::Mismatch {
            expected: cx.concrete.clone(),
            observed: Trace::default(),
            reason: format!("the client does not link: {}", titles.join("; ")),
        };
    }
    // The run checks the deadline and interrupt from its first step on.
    let run = concrete::run_indexed(Some(library), &client, limits.clone(), &mut |_| {});
    compare_indexed(library, cx, &run)
}

/// Compares a finished run with the counterexample it should reproduce.
pub fn compare(library: &Program, cx: &Counterexample, run: &RunResult) -> Verdict {
    compare_indexed(&ProgramIndex::new(library), cx, run)
}

fn compare_indexed(library: &ProgramIndex<'_>, cx: &Counterexample, run: &RunResult) -> Verdict {
    // A run cut short has made only a prefix of the moves: that is no mismatch.
    if let Outcome::Stopped(Stop::Cutoff(cutoff)) = &run.outcome {
        return Verdict::NotReplayed(*cutoff);
    }
    let observed = Trace(run.moves.clone());
    let mismatch = |reason: String| Verdict::Mismatch {
        expected: cx.concrete.clone(),
        observed: observed.clone(),
        reason,
    };
    if let Err(reason) = same_moves(library, &cx.concrete.0, &run.moves) {
        return mismatch(reason);
    }
    match &run.outcome {
        Outcome::Failed(f) if f.side == Side::Library && f.kind == cx.kind && f.span == cx.span => {
            Verdict::Confirmed
        }
        Outcome::Failed(f) => mismatch(format!(
            "the run failed ({:?} at {}..{} in the {}) instead of {:?} at {}..{}",
            f.kind,
            f.span.start,
            f.span.end,
            match f.side {
                Side::Library => "library",
                Side::Client => "client",
            },
            cx.kind,
            cx.span.start,
            cx.span.end
        )),
        Outcome::Finished(_) => mismatch("the run ended normally".to_string()),
        Outcome::Stopped(Stop::Stuck { reason, .. }) => {
            mismatch(format!("the run got stuck: {reason}"))
        }
        Outcome::Stopped(Stop::StepLimit(n)) => mismatch(format!("the run exceeded {n} steps")),
        Outcome::Stopped(Stop::DepthLimit(n)) => {
            mismatch(format!("the run exceeded call depth {n}"))
        }
        Outcome::Stopped(Stop::MemoryLimit { limit, .. }) => mismatch(format!(
            "the run exceeded its memory limit of {limit} bytes"
        )),
        Outcome::Stopped(Stop::Cutoff(cutoff)) => Verdict::NotReplayed(*cutoff),
    }
}

/// Equality of move sequences up to a bijective renaming of function names; names of
/// the library's own methods and imports must match exactly.
pub fn same_moves(
    library: &ProgramIndex<'_>,
    expected: &[Move],
    observed: &[Move],
) -> Result<(), String> {
    let mut renaming = Renaming {
        fixed: library,
        forward: HashMap::new(),
        backward: HashMap::new(),
    };
    for (i, (e, o)) in expected.iter().zip(observed).enumerate() {
        let same = e.dir == o.dir
            && e.by == o.by
            && renaming.names(&e.method, &o.method)
            && renaming.values(&e.value, &o.value);
        if !same {
            return Err(format!("move {} is `{o}`, expected `{e}`", i + 1));
        }
    }
    match expected.len().cmp(&observed.len()) {
        std::cmp::Ordering::Equal => Ok(()),
        std::cmp::Ordering::Less => Err(format!(
            "the run made {} moves, the trace has {}",
            observed.len(),
            expected.len()
        )),
        std::cmp::Ordering::Greater => Err(format!(
            "the run stopped after {} of the trace's {} moves",
            observed.len(),
            expected.len()
        )),
    }
}

struct Renaming<'a> {
    /// The library, whose own names are never renamed.
    fixed: &'a ProgramIndex<'a>,
    forward: HashMap<String, String>,
    backward: HashMap<String, String>,
}

impl Renaming<'_> {
    fn names(&mut self, e: &str, o: &str) -> bool {
        if self.fixed.names(e) || self.fixed.names(o) {
            return e == o;
        }
        match (self.forward.get(e), self.backward.get(o)) {
            (None, None) => {
                self.forward.insert(e.to_string(), o.to_string());
                self.backward.insert(o.to_string(), e.to_string());
                true
            }
            (Some(o2), Some(e2)) => o2 == o && e2 == e,
            _ => false,
        }
    }

    fn values(&mut self, e: &TraceValue, o: &TraceValue) -> bool {
        match (e, o) {
            (TraceValue::Unit, TraceValue::Unit) => true,
            (TraceValue::Int(a), TraceValue::Int(b)) => a == b,
            (TraceValue::Fun(a), TraceValue::Fun(b)) => self.names(a, b),
            (TraceValue::Pair(a, b), TraceValue::Pair(c, d)) => {
                self.values(a, c) && self.values(b, d)
            }
            _ => false,
        }
    }
}

/// What `holi check` does with its counterexamples after the search.
#[derive(Clone, Debug, Default)]
pub struct ConfirmOptions {
    /// Run each synthesized client and compare (`false` with `--no-replay`).
    pub replay: bool,
    /// Also write each client to `DIR/<stem>-<n>.holi` (`--client DIR`).
    pub client_dir: Option<PathBuf>,
    /// Give up at this instant (`holi check --timeout`): synthesis, linking and runs stop,
    /// and every counterexample not yet replayed is [`Verdict::NotReplayed`].
    pub deadline: Option<Instant>,
    /// Give up once this flag is set (Ctrl-C), in the same way.
    pub interrupt: Option<Arc<AtomicBool>>,
}

/// Per counterexample (in order): the replay verdict, when replay ran, and the client,
/// as a path when written to a directory, else as source text.
#[derive(Clone, Debug, Default)]
pub struct Confirmation {
    pub verdicts: Vec<Option<Verdict>>,
    pub clients: Vec<Option<String>>,
}

impl Confirmation {
    /// The counterexamples (1-based) that did not replay, with why.
    pub fn failures(&self) -> Vec<(usize, &Verdict)> {
        self.verdicts
            .iter()
            .enumerate()
            .filter_map(|(i, v)| match v {
                Some(v @ Verdict::Mismatch { .. }) => Some((i + 1, v)),
                _ => None,
            })
            .collect()
    }

    /// The counterexamples (1-based) left unconfirmed because time ran out or the user
    /// interrupted, with which of the two.
    pub fn not_replayed(&self) -> Vec<(usize, Cutoff)> {
        self.verdicts
            .iter()
            .enumerate()
            .filter_map(|(i, v)| match v {
                Some(Verdict::NotReplayed(c)) => Some((i + 1, *c)),
                _ => None,
            })
            .collect()
    }
}

/// Synthesizes (and unless told otherwise replays) a client for every counterexample,
/// writing them to `options.client_dir` when given. `stem` names the written files.
pub fn confirm(
    library: &Program,
    counterexamples: &[Counterexample],
    options: &ConfirmOptions,
    stem: &str,
) -> std::io::Result<Confirmation> {
    if let Some(dir) = &options.client_dir {
        std::fs::create_dir_all(dir)?;
    }
    let index = ProgramIndex::new(library);
    let limits = Limits {
        deadline: options.deadline,
        interrupt: options.interrupt.clone(),
        ..REPLAY_LIMITS
    };
    let mut confirmation = Confirmation::default();
    for (i, cx) in counterexamples.iter().enumerate() {
        let (source, verdict) = if let Some(cutoff) = limits.cutoff() {
            (None, Some(Verdict::NotReplayed(cutoff)))
        } else if options.replay {
            let r = replay_indexed(&index, cx, &limits);
            (r.client, Some(r.verdict))
        } else {
            match client::synthesize_indexed(&index, cx, &limits) {
                Ok(c) => (Some(client_source(&c)), None),
                Err(Unwritten::Error(e)) => {
                    (None, Some(mismatch_without_client(cx, e.to_string())))
                }
                Err(Unwritten::Cutoff(cutoff)) => (None, Some(Verdict::NotReplayed(cutoff))),
            }
        };
        let client = match (&options.client_dir, source) {
            (Some(dir), Some(text)) => {
                let path = dir.join(format!("{stem}-{}.holi", i + 1));
                std::fs::write(&path, text)?;
                Some(path.display().to_string())
            }
            (None, source) => source,
            (Some(_), None) => None,
        };
        confirmation.verdicts.push(verdict);
        confirmation.clients.push(client);
    }
    Ok(confirmation)
}

fn mismatch_without_client(cx: &Counterexample, reason: String) -> Verdict {
    Verdict::Mismatch {
        expected: cx.concrete.clone(),
        observed: Trace::default(),
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::load_str;
    use crate::trace::{Dir, FailureKind, Player};
    use std::collections::BTreeMap;

    #[test]
    fn a_run_cut_short_is_not_replayed_rather_than_a_mismatch() {
        let library = match load_str("t.holi", "public m (x:int) :(unit) = { assert(x) };", false) {
            Ok(l) => l.program,
            Err(r) => panic!("{}", r.render(false)),
        };
        let call = Move {
            dir: Dir::Call,
            by: Player::Client,
            method: "m".to_string(),
            value: TraceValue::Int(0.into()),
            store: Vec::new(),
        };
        let cx = Counterexample {
            kind: FailureKind::Assert,
            span: 30..39,
            trace: Trace(vec![call.clone()]),
            concrete: Trace(vec![call]),
            model: BTreeMap::new(),
            locations: Vec::new(),
        };
        for cutoff in [Cutoff::TimeLimit, Cutoff::Interrupted] {
            let run = RunResult {
                outcome: Outcome::Stopped(Stop::Cutoff(cutoff)),
                moves: Vec::new(),
                steps: 0,
                max_library_depth: 0,
            };
            assert_eq!(compare(&library, &cx, &run), Verdict::NotReplayed(cutoff));
        }
    }
}
