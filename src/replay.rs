//! Replay: a counterexample is confirmed by running a client that plays it.
//!
//! The library is linked with the synthesized client *as printed* (the source is parsed
//! again, so what the user reads is what ran), the linked program runs on the concrete
//! interpreter, and the run must make exactly the counterexample's concrete moves and
//! then fail in the library with the same kind of failure at the same place. Function
//! and location names are compared up to a consistent renaming: the trace's `f1`/`m1`/
//! `q1`/`r1` are fresh names, and the run has its own. A move's store entries (the
//! client's writes `[q1 := 5]`, the cells that disclose a name `{q1 = q2}`) are checked
//! against the run's snapshot of the disclosed cells at that move (`lang/references.md`
//! §5.4).
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
use crate::trace::{Counterexample, Move, StoreEntry, Trace, TraceValue};
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
    if let Err(reason) = same_moves(library, &cx.concrete.0, &run.moves, &run.snapshots) {
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
        Outcome::Stopped(Stop::Diverged { .. }) => mismatch("the run diverged".to_string()),
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

/// Equality of move sequences up to a bijective renaming of function names and of
/// location names (the library's `q…` to the library's, the client's `r…` to the
/// client's); names of the library's own methods and imports must match exactly. Each
/// store entry `ℓ := v` of an expected move must hold in the run's snapshot of the
/// disclosed cells at that move (`snapshots`, parallel to `observed`), renamed; other
/// cells of the snapshot may hold anything.
pub fn same_moves(
    library: &ProgramIndex<'_>,
    expected: &[Move],
    observed: &[Move],
    snapshots: &[Vec<StoreEntry>],
) -> Result<(), String> {
    matched(library, expected, observed, snapshots).map(|_| ())
}

/// The run's move `then`, that follows `observed`, with the names the trace gave
/// them where `observed` matches `expected` ([`same_moves`]); a name new at `then`
/// keeps the run's. So what a run did after the trace is told in the trace's names.
pub fn in_trace_names(
    library: &ProgramIndex<'_>,
    expected: &[Move],
    observed: &[Move],
    snapshots: &[Vec<StoreEntry>],
    then: &Move,
) -> Result<Move, String> {
    let renaming = matched(library, expected, observed, snapshots)?;
    let mut renamed = then.clone();
    renamed.method = renaming.traced(&then.method);
    renamed.value = renaming.traced_value(&then.value);
    Ok(renamed)
}

fn matched<'a>(
    library: &'a ProgramIndex<'a>,
    expected: &[Move],
    observed: &[Move],
    snapshots: &[Vec<StoreEntry>],
) -> Result<Renaming<'a>, String> {
    let mut renaming = Renaming {
        fixed: library,
        forward: HashMap::new(),
        backward: HashMap::new(),
        locations: HashMap::new(),
        locations_back: HashMap::new(),
    };
    for (i, (e, o)) in expected.iter().zip(observed).enumerate() {
        let same = e.dir == o.dir
            && e.by == o.by
            && renaming.names(&e.method, &o.method)
            && renaming.values(&e.value, &o.value);
        if !same {
            return Err(format!("move {} is `{o}`, expected `{e}`", i + 1));
        }
        let snapshot = snapshots.get(i).map_or(&[][..], Vec::as_slice);
        for entry in &e.store {
            renaming.entry(entry, snapshot).map_err(|why| {
                format!(
                    "at move {} (`{e}`), {why}; the run's disclosed cells: {}",
                    i + 1,
                    show_cells(snapshot)
                )
            })?;
        }
    }
    match expected.len().cmp(&observed.len()) {
        std::cmp::Ordering::Equal => Ok(renaming),
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

/// `{q1 = 5, r1 = f1}`, or `none`.
fn show_cells(snapshot: &[StoreEntry]) -> String {
    if snapshot.is_empty() {
        return "none".to_string();
    }
    let cells: Vec<String> = snapshot
        .iter()
        .map(|e| format!("{} = {}", e.cell, e.value))
        .collect();
    format!("{{{}}}", cells.join(", "))
}

#[derive(Clone)]
struct Renaming<'a> {
    /// The library, whose own names are never renamed.
    fixed: &'a ProgramIndex<'a>,
    forward: HashMap<String, String>,
    backward: HashMap<String, String>,
    /// Location names, kept apart from function names (they are another kind of name).
    locations: HashMap<String, String>,
    locations_back: HashMap<String, String>,
}

impl Renaming<'_> {
    /// The trace's name for the run's function name `o` (itself if unmatched).
    fn traced(&self, o: &str) -> String {
        self.backward
            .get(o)
            .cloned()
            .unwrap_or_else(|| o.to_string())
    }

    /// The run's value `o` in the trace's names.
    fn traced_value(&self, o: &TraceValue) -> TraceValue {
        match o {
            TraceValue::Fun(name) => TraceValue::Fun(self.traced(name)),
            TraceValue::Ref(name) => TraceValue::Ref(
                self.locations_back
                    .get(name)
                    .cloned()
                    .unwrap_or_else(|| name.clone()),
            ),
            TraceValue::Pair(a, b) => TraceValue::Pair(
                Box::new(self.traced_value(a)),
                Box::new(self.traced_value(b)),
            ),
            TraceValue::List(items) => {
                TraceValue::List(items.iter().map(|v| self.traced_value(v)).collect())
            }
            TraceValue::Unit | TraceValue::Int(_) | TraceValue::Sym(_) => o.clone(),
        }
    }

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

    /// Whether the trace's location `e` is the run's `o`: both the library's (`q…`) or
    /// both the client's (`r…`), and consistently so.
    fn locations(&mut self, e: &str, o: &str) -> bool {
        if e.chars().next() != o.chars().next() {
            return false;
        }
        match (self.locations.get(e), self.locations_back.get(o)) {
            (None, None) => {
                self.locations.insert(e.to_string(), o.to_string());
                self.locations_back.insert(o.to_string(), e.to_string());
                true
            }
            (Some(o2), Some(e2)) => o2 == o && e2 == e,
            _ => false,
        }
    }

    /// Checks the trace's store entry `expected` against the run's disclosed cells. A
    /// cell not named before is matched with the first unnamed cell of its owner that
    /// fits.
    fn entry(&mut self, expected: &StoreEntry, snapshot: &[StoreEntry]) -> Result<(), String> {
        let wanted = format!("`{} := {}`", expected.cell, expected.value);
        if let Some(cell) = self.locations.get(&expected.cell).cloned() {
            let Some(found) = snapshot.iter().find(|o| o.cell == cell) else {
                return Err(format!(
                    "the trace has {wanted}, but the run has not disclosed its cell {cell}"
                ));
            };
            return if self.values(&expected.value, &found.value) {
                Ok(())
            } else {
                Err(format!(
                    "the trace has {wanted}, but the run's cell {cell} holds {}",
                    found.value
                ))
            };
        }
        for candidate in snapshot {
            if self.locations_back.contains_key(&candidate.cell) {
                continue;
            }
            let mut attempt = self.clone();
            if attempt.locations(&expected.cell, &candidate.cell)
                && attempt.values(&expected.value, &candidate.value)
            {
                *self = attempt;
                return Ok(());
            }
        }
        Err(format!(
            "the trace has {wanted}, but no cell of the run holds that"
        ))
    }

    fn values(&mut self, e: &TraceValue, o: &TraceValue) -> bool {
        match (e, o) {
            (TraceValue::Unit, TraceValue::Unit) => true,
            (TraceValue::Int(a), TraceValue::Int(b)) => a == b,
            (TraceValue::Fun(a), TraceValue::Fun(b)) => self.names(a, b),
            (TraceValue::Ref(a), TraceValue::Ref(b)) => self.locations(a, b),
            (TraceValue::Pair(a, b), TraceValue::Pair(c, d)) => {
                self.values(a, c) && self.values(b, d)
            }
            (TraceValue::List(a), TraceValue::List(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| self.values(x, y))
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

/// How a counterexample's replay ended, for the report. No verdict means no client could
/// be written for it: like a mismatch, a bug in holi.
pub fn status(verdict: &Option<Verdict>) -> crate::report::Replay {
    use crate::report::Replay;
    match verdict {
        Some(Verdict::Confirmed) => Replay::Confirmed,
        Some(Verdict::NotReplayed(Cutoff::TimeLimit)) => Replay::TimeLimit,
        Some(Verdict::NotReplayed(Cutoff::Interrupted)) => Replay::Interrupted,
        Some(Verdict::Mismatch { .. }) | None => Replay::Mismatch,
    }
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
            valuation: None,
        };
        for cutoff in [Cutoff::TimeLimit, Cutoff::Interrupted] {
            let run = RunResult {
                outcome: Outcome::Stopped(Stop::Cutoff(cutoff)),
                moves: Vec::new(),
                snapshots: Vec::new(),
                steps: 0,
                max_library_depth: 0,
            };
            assert_eq!(compare(&library, &cx, &run), Verdict::NotReplayed(cutoff));
        }
    }

    fn mv(
        dir: Dir,
        by: Player,
        method: &str,
        value: TraceValue,
        store: &[(&str, TraceValue)],
    ) -> Move {
        Move {
            dir,
            by,
            method: method.to_string(),
            value,
            store: store
                .iter()
                .map(|(cell, value)| StoreEntry {
                    cell: cell.to_string(),
                    value: value.clone(),
                })
                .collect(),
        }
    }

    fn loc(name: &str) -> TraceValue {
        TraceValue::Ref(name.to_string())
    }

    fn int(i: i64) -> TraceValue {
        TraceValue::Int(i.into())
    }

    fn cells(entries: &[(&str, TraceValue)]) -> Vec<StoreEntry> {
        mv(Dir::Call, Player::Client, "", TraceValue::Unit, entries).store
    }

    const LEND: &str = "import visit :((ref int * (int -> int)) -> unit)
        public deposit (m:int) :(unit) = { () };";

    fn with_library(check: impl FnOnce(&ProgramIndex<'_>)) {
        let library = match load_str("t.holi", LEND, false) {
            Ok(l) => l.program,
            Err(r) => panic!("{}", r.render(false)),
        };
        check(&ProgramIndex::new(&library));
    }

    /// The trace `call deposit(1) · call visit(q1, m1) · ret visit(()) [q1 := v]`, as
    /// the trace (`expected`) or the run (`observed`) names things.
    fn lend(q: &str, m: &str, written: TraceValue) -> Vec<Move> {
        vec![
            mv(Dir::Call, Player::Client, "deposit", int(1), &[]),
            mv(
                Dir::Call,
                Player::Library,
                "visit",
                TraceValue::Pair(Box::new(loc(q)), Box::new(TraceValue::Fun(m.into()))),
                &[],
            ),
            mv(
                Dir::Ret,
                Player::Client,
                "visit",
                TraceValue::Unit,
                &[(q, written)],
            ),
        ]
    }

    #[test]
    fn locations_are_renamed_consistently_and_by_owner() {
        with_library(|library| {
            let expected = lend("q1", "m1", int(-1));
            let snapshots = |q: &str| vec![vec![], cells(&[(q, int(1))]), cells(&[(q, int(-1))])];
            assert_eq!(
                same_moves(
                    library,
                    &expected,
                    &lend("q7", "m2", int(-1)),
                    &snapshots("q7")
                ),
                Ok(())
            );
            // A client's location is no library location.
            let wrong_owner = same_moves(
                library,
                &expected,
                &lend("r1", "m2", int(-1)),
                &snapshots("r1"),
            );
            assert!(
                wrong_owner
                    .as_ref()
                    .is_err_and(|e| e.starts_with("move 2 ")),
                "{wrong_owner:?}"
            );
            // Two names of the trace are two names of the run.
            let two = |a: &str, b: &str| {
                vec![mv(
                    Dir::Call,
                    Player::Client,
                    "deposit",
                    TraceValue::Pair(Box::new(loc(a)), Box::new(loc(b))),
                    &[],
                )]
            };
            assert!(same_moves(library, &two("r1", "r2"), &two("r5", "r5"), &[vec![]]).is_err());
            assert!(same_moves(library, &two("r1", "r1"), &two("r5", "r6"), &[vec![]]).is_err());
            assert_eq!(
                same_moves(library, &two("r1", "r2"), &two("r6", "r5"), &[vec![]]),
                Ok(())
            );
        });
    }

    #[test]
    fn a_store_entry_the_run_does_not_make_is_a_mismatch() {
        with_library(|library| {
            let expected = lend("q1", "m1", int(-1));
            let observed = lend("q1", "m1", int(-1));
            let at_the_end = |last: Vec<StoreEntry>| vec![vec![], vec![], last];
            // Other cells of the run may hold anything.
            let more = at_the_end(cells(&[("q2", int(8)), ("q1", int(-1))]));
            assert_eq!(same_moves(library, &expected, &observed, &more), Ok(()));
            let other_value = same_moves(
                library,
                &expected,
                &observed,
                &at_the_end(cells(&[("q1", int(5))])),
            );
            let reason = other_value.expect_err("q1 holds 5, not -1");
            assert!(reason.starts_with("at move 3 "), "{reason}");
            assert!(reason.contains("`q1 := -1`"), "{reason}");
            assert!(reason.contains("holds 5"), "{reason}");
            let undisclosed = same_moves(library, &expected, &observed, &at_the_end(vec![]))
                .expect_err("q1 is not in the snapshot");
            assert!(undisclosed.contains("has not disclosed"), "{undisclosed}");
        });
    }

    #[test]
    fn names_in_store_entries_are_renamed_like_names_in_moves() {
        with_library(|library| {
            // The function the library passed, written back into its cell.
            let expected = lend("q1", "m1", TraceValue::Fun("m1".into()));
            let observed = lend("q3", "m4", TraceValue::Fun("m4".into()));
            let holding =
                |f: &str| vec![vec![], vec![], cells(&[("q3", TraceValue::Fun(f.into()))])];
            assert_eq!(
                same_moves(library, &expected, &observed, &holding("m4")),
                Ok(())
            );
            assert!(same_moves(library, &expected, &observed, &holding("m5")).is_err());
            // A location first named in an entry is matched with the first of the run's
            // cells not named yet that fits, and keeps that name.
            let expected = vec![
                mv(
                    Dir::Call,
                    Player::Client,
                    "deposit",
                    TraceValue::Unit,
                    &[("r1", int(3))],
                ),
                mv(Dir::Call, Player::Client, "deposit", loc("r1"), &[]),
            ];
            let observed = |r: &str| {
                vec![
                    mv(Dir::Call, Player::Client, "deposit", TraceValue::Unit, &[]),
                    mv(Dir::Call, Player::Client, "deposit", loc(r), &[]),
                ]
            };
            let snapshots = vec![cells(&[("r1", int(4)), ("r2", int(3))]), vec![]];
            assert_eq!(
                same_moves(library, &expected, &observed("r2"), &snapshots),
                Ok(())
            );
            assert!(same_moves(library, &expected, &observed("r1"), &snapshots).is_err());
        });
    }
}
