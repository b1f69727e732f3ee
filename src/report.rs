//! Rendering the result of `holi check`: text for people, JSON for programs (SARIF, for
//! code-scanning services, is in [`crate::sarif`]).
//!
//! The JSON structs here are the documented, versioned format (`lang/check-output.md`,
//! `lang/check-output.schema.json`); they are kept apart from the engine's types so the
//! engine can change freely. Fields that later stages fill in (`replayed`, `client`) are
//! optional and omitted when absent. Documents are written as they are serialized
//! ([`Report::write_json`]): one counterexample at a time, never one big string, since
//! `--all` can list hundreds of thousands of traces.

use crate::calltree::CallTree;
use crate::diagnostics::{Diagnostic, Severity, Sources};
use crate::symbolic::{CheckResult, StuckReason, StuckSite, Verdict};
use crate::syntax::ast::{Program, Span};
use crate::trace::{Counterexample, FailureKind, Move, Player, TraceValue};
use num_bigint::BigInt;
use serde::{Serialize, Serializer};
use std::cell::Cell;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, BufWriter, Write};
use std::rc::Rc;
use std::time::Instant;

/// The version of the JSON document (`schema_version`), semantic versioning: the major
/// part changes when a field is removed or changes meaning, the minor part when fields
/// are added, the patch part for corrections of the schema or its descriptions alone.
pub const JSON_SCHEMA_VERSION: &str = "1.12.0";

/// holi's own version, in every JSON and SARIF document.
pub const HOLI_VERSION: &str = env!("CARGO_PKG_VERSION");

/// What a safe search was shown to mean beyond its bounds (`lang/proofs.md`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Safe for every k and l: the certificate holi's proof checker ([`crate::proof`])
    /// accepted (the invariant at client turns and the turn relation, a fact each; the
    /// places of the library functions that reach the client, and of those whose
    /// recursive calls the proof summarised, checked like methods; the cells the
    /// library allocates, each with whether the client may hold them),
    /// how many obligations Z3 discharged for it, and where they were written as
    /// SMT-LIB (`--certificate`).
    AllBounds {
        invariant: Vec<String>,
        turn_relation: Vec<String>,
        revealed: Vec<String>,
        recursive: Vec<String>,
        cells: Vec<String>,
        obligations: usize,
        smtlib: Option<String>,
    },
    /// Safe only within the bounds searched, and why no proof was found.
    Bounded(String),
}

/// Where the bounds of a run came from, for the header line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BoundSource {
    #[serde(rename = "file_header")]
    Header,
    CommandLine,
    /// Neither: HOLiK's defaults.
    Default,
}

/// Everything a report shows: the file, the bounds, the options and the result.
pub struct Report<'a> {
    pub file: &'a str,
    pub source: &'a str,
    pub k: u32,
    pub l: u32,
    pub k_source: BoundSource,
    pub l_source: BoundSource,
    pub all: bool,
    pub result: &'a CheckResult,
    /// Per counterexample (same order), whether replaying it against a synthesized
    /// client reproduced the failure; filled in by the replay step when it runs.
    pub replayed: Option<Vec<Replay>>,
    /// Per counterexample, the synthesized client: its path when written to a directory,
    /// else its source; `None` where no client could be written. Filled in by synthesis.
    pub clients: Option<Vec<Option<String>>>,
    /// The front end's warnings about the file (JSON and SARIF carry them; the text
    /// report leaves them to stderr, where they were rendered).
    pub warnings: &'a [Diagnostic],
    /// The checked program, where at hand: SARIF points each move of a trace at the
    /// declaration of the method or import it names.
    pub program: Option<&'a Program>,
    /// The end of `--timeout`: past it, a `--all` listing stops and says how many
    /// counterexamples it left out ([`Report::listed`]).
    pub deadline: Option<Instant>,
    /// For a safe verdict, whether a proof beyond the bounds was found; `None` when
    /// none was attempted.
    pub scope: Option<Scope>,
    /// `--prove`: a safe verdict without a proof for every k and l exits with 3.
    pub require_proof: bool,
}

/// A place in the source: 1-based line and column (in characters), and the 0-based
/// byte offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct JsonPoint {
    pub line: usize,
    pub column: usize,
    pub offset: usize,
}

/// A span of the source: `end` is the place just after its last character.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct JsonSpan {
    pub start: JsonPoint,
    pub end: JsonPoint,
}

/// Line starts of a source, to turn byte offsets into lines and columns.
pub struct LineIndex<'s> {
    source: &'s str,
    starts: Vec<usize>,
}

impl<'s> LineIndex<'s> {
    pub fn new(source: &'s str) -> LineIndex<'s> {
        let starts = std::iter::once(0)
            .chain(source.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        LineIndex { source, starts }
    }

    /// The place of byte offset `at`, clamped into the source and back to the start of
    /// the character it falls in (a span from outside never panics).
    pub fn point(&self, at: usize) -> JsonPoint {
        let mut at = at.min(self.source.len());
        while !self.source.is_char_boundary(at) {
            at -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= at);
        let line_start = self.starts[line - 1];
        let column = self.source[line_start..at].chars().count() + 1;
        JsonPoint {
            line,
            column,
            offset: at,
        }
    }

    pub fn span(&self, span: &Span) -> JsonSpan {
        let start = self.point(span.start);
        JsonSpan {
            start,
            end: self.point(span.end.max(start.offset)),
        }
    }
}

/// The JSON document (`--format json`), borrowing from the report it describes.
#[derive(Serialize)]
pub struct JsonReport<'r> {
    pub schema_version: &'static str,
    pub holi_version: &'static str,
    pub file: &'r str,
    pub bounds: JsonBounds,
    pub all: bool,
    pub verdict: &'static str,
    /// Serialized one at a time.
    pub counterexamples: JsonCounterexamples<'r>,
    /// How many counterexamples the listing left out at the time limit (after them,
    /// so that it is known when written).
    pub unlisted: Unlisted,
    pub failing_traces: usize,
    /// Set when more distinct failing traces were met than holi keeps count of, so
    /// `failing_traces` is a lower bound; omitted otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub failing_traces_lower_bound: bool,
    pub stats: JsonStats,
    /// Why the search is incomplete; omitted when it is complete.
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub inconclusive: &'r [String],
    pub stuck: JsonStuck,
    pub warnings: Vec<JsonDiagnostic<'r>>,
    /// For a safe verdict: `all-bounds` when proved for every k and l, else `bounded`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<&'static str>,
    /// With `all-bounds`: the invariant and the obligations discharged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub certificate: Option<JsonCertificate<'r>>,
    /// With `bounded`: why no proof was found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_proved: Option<&'r str>,
}

#[derive(Serialize)]
pub struct JsonCertificate<'r> {
    pub invariant: &'r [String],
    pub turn_relation: &'r [String],
    pub revealed: &'r [String],
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub recursive: &'r [String],
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub cells: &'r [String],
    pub obligations: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub smtlib: Option<&'r str>,
}

#[derive(Serialize)]
pub struct JsonBounds {
    pub k: u32,
    pub l: u32,
    pub k_from: BoundSource,
    pub l_from: BoundSource,
}

#[derive(Serialize)]
pub struct JsonPosition {
    pub line: usize,
    pub column: usize,
}

/// The counterexamples of a report, serialized lazily as a JSON array.
pub struct JsonCounterexamples<'r> {
    report: &'r Report<'r>,
    lines: &'r LineIndex<'r>,
    left_out: Rc<Cell<usize>>,
}

impl Serialize for JsonCounterexamples<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(
            self.report
                .listed(&self.left_out)
                .map(|(i, c)| self.report.json_counterexample(i, c, self.lines)),
        )
    }
}

/// The number of counterexamples left out, once the list before it is written.
pub struct Unlisted(Rc<Cell<usize>>);

impl Serialize for Unlisted {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u64(self.0.get() as u64)
    }
}

#[derive(Serialize)]
pub struct JsonCounterexample {
    /// Where the failing `assert` (or division) starts, 1-based.
    pub assert: JsonPosition,
    /// The whole failing `assert` (or division).
    pub span: JsonSpan,
    pub kind: FailureKind,
    pub moves: usize,
    pub trace: Vec<JsonMove>,
    pub text: String,
    /// The trace with the model's values substituted.
    pub concrete: String,
    pub model: BTreeMap<String, serde_json::Value>,
    /// The content type of every reference the trace names (omitted when none).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub locations: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replayed: Option<bool>,
    /// How replay ended, including a replay cut short (then `replayed` is absent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replay: Option<Replay>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
}

#[derive(Serialize)]
pub struct JsonMove {
    pub dir: crate::trace::Dir,
    pub by: Player,
    pub method: String,
    pub value: String,
    /// Writes the client made at its turn, or cells through which the library
    /// disclosed names (references only; omitted when empty).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub store: Vec<JsonStoreEntry>,
}

#[derive(Serialize)]
pub struct JsonStoreEntry {
    /// The location's trace name (`q1`, `r1`).
    #[serde(rename = "ref")]
    pub cell: String,
    pub value: String,
}

#[derive(Serialize)]
pub struct JsonStats {
    pub configurations: u64,
    /// Opponent configurations pruned as subsumed by one already explored.
    pub subsumed: u64,
    /// Of those, pruned because the values of their symbolic integers lie within
    /// regions already explored (semantic subsumption).
    pub covered: u64,
    /// Client calls not made: no shortest failing trace makes them.
    pub irrelevant_calls: u64,
    pub solver_queries: u64,
    /// Failure sites proved unreachable: outside live code, or by the
    /// over-approximation (`--no-havoc`).
    pub unreachable_sites: u64,
    pub seconds: f64,
    /// Time in the solver, summed over the searches and threads counted.
    pub solver_seconds: f64,
    /// The lanes the search was cut into across shards (`lang/shards.md`), whose
    /// counters these sum; absent for a search not cut so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lanes: Option<usize>,
}

/// Where explored paths got stuck.
#[derive(Serialize)]
pub struct JsonStuck {
    /// Paths that got stuck, over all places.
    pub paths: u64,
    pub places: Vec<JsonStuckPlace>,
}

#[derive(Serialize)]
pub struct JsonStuckPlace {
    pub span: JsonSpan,
    /// `"undeclared"`, `"unset_reference"` or `"ill_typed"`.
    pub reason: &'static str,
    /// The name involved, for `undeclared` and `unset_reference`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub message: String,
    pub paths: u64,
}

/// A front-end diagnostic (a warning, since errors stop before the check).
#[derive(Serialize)]
pub struct JsonDiagnostic<'r> {
    pub code: &'static str,
    /// `"warning"` or `"error"`.
    pub severity: &'static str,
    pub message: &'r str,
    pub labels: Vec<JsonLabel<'r>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<&'r str>,
}

#[derive(Serialize)]
pub struct JsonLabel<'r> {
    pub file: &'r str,
    /// Omitted for a label in another file than the one checked (none so far).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span: Option<JsonSpan>,
    pub message: &'r str,
}

pub fn verdict_name(v: Verdict) -> &'static str {
    match v {
        Verdict::Safe => "safe",
        Verdict::Unsafe => "unsafe",
        Verdict::Inconclusive => "inconclusive",
        Verdict::Stuck => "stuck",
    }
}

/// The JSON name of a stuck reason, and the name it involves.
pub fn stuck_reason_kind(reason: &StuckReason) -> (&'static str, Option<&str>) {
    match reason {
        StuckReason::Undeclared(name) => ("undeclared", Some(name)),
        StuckReason::UnsetReference(name) => ("unset_reference", Some(name)),
        StuckReason::IllTyped => ("ill_typed", None),
    }
}

/// What got a path stuck, as a phrase: "call of the undeclared name `sned`".
pub fn stuck_reason_text(reason: &StuckReason) -> String {
    match reason {
        StuckReason::Undeclared(name) => format!("call of the undeclared name `{name}`"),
        StuckReason::UnsetReference(name) => {
            format!("read of the reference `{name}`, which is never declared nor assigned before")
        }
        StuckReason::IllTyped => {
            "an ill-typed operation (applying a non-function, arithmetic on a \
                                  non-integer, projecting a non-pair)"
                .to_string()
        }
    }
}

fn json_int(i: &BigInt) -> serde_json::Value {
    match i64::try_from(i) {
        Ok(small) => serde_json::Value::from(small),
        // Beyond JSON's safe range: the exact decimal text.
        Err(_) => serde_json::Value::from(i.to_string()),
    }
}

fn json_move(m: &Move) -> JsonMove {
    JsonMove {
        dir: m.dir,
        by: m.by,
        method: m.method.clone(),
        value: m.value.to_string(),
        store: m
            .store
            .iter()
            .map(|entry| JsonStoreEntry {
                cell: entry.cell.clone(),
                value: entry.value.to_string(),
            })
            .collect(),
    }
}

/// What replaying a counterexample's synthesized client came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Replay {
    /// The client made the same moves and failed at the same place.
    Confirmed,
    /// It did not: a bug in holi.
    Mismatch,
    /// The command's time limit came before this replay could finish.
    TimeLimit,
    /// Ctrl-C came before this replay could finish.
    Interrupted,
}

impl Replay {
    /// `Some(confirmed)` for a replay that ran to its end.
    pub fn finished(self) -> Option<bool> {
        match self {
            Replay::Confirmed => Some(true),
            Replay::Mismatch => Some(false),
            Replay::TimeLimit | Replay::Interrupted => None,
        }
    }

    /// The line the text report shows.
    pub fn text(self) -> &'static str {
        match self {
            Replay::Confirmed => "confirmed by replay",
            Replay::Mismatch => "NOT confirmed by replay: a bug in holi (details on stderr)",
            Replay::TimeLimit => "not replayed: the time limit came first",
            Replay::Interrupted => "not replayed: interrupted",
        }
    }
}

impl Report<'_> {
    /// The exit code `holi check` ends with for this report: 0 safe, 1 unsafe, 3
    /// inconclusive or a counterexample that did not replay (a bug in holi), 4 stuck.
    pub fn exit_code(&self) -> u8 {
        if self.replay_failed() {
            return 3;
        }
        match self.result.verdict {
            Verdict::Safe
                if self.require_proof && !matches!(self.scope, Some(Scope::AllBounds { .. })) =>
            {
                3
            }
            Verdict::Safe => 0,
            Verdict::Unsafe => 1,
            Verdict::Inconclusive => 3,
            Verdict::Stuck => 4,
        }
    }

    /// Whether some counterexample did not replay.
    pub fn replay_failed(&self) -> bool {
        self.replayed
            .as_ref()
            .is_some_and(|r| r.contains(&Replay::Mismatch))
    }

    /// Paths that got stuck, over all places.
    pub fn stuck_paths(&self) -> u64 {
        self.result.stuck.iter().map(|s| s.paths).sum()
    }

    /// The line index of the checked source.
    pub fn lines(&self) -> LineIndex<'_> {
        LineIndex::new(self.source)
    }

    fn json_counterexample(
        &self,
        i: usize,
        c: &Counterexample,
        lines: &LineIndex,
    ) -> JsonCounterexample {
        let span = lines.span(&c.span);
        JsonCounterexample {
            assert: JsonPosition {
                line: span.start.line,
                column: span.start.column,
            },
            span,
            kind: c.kind,
            moves: c.trace.0.len(),
            trace: c.trace.0.iter().map(json_move).collect(),
            text: c.trace.to_string(),
            concrete: c.concrete.to_string(),
            model: c
                .model
                .iter()
                .map(|(k, v)| (k.clone(), json_int(v)))
                .collect(),
            locations: c
                .locations
                .iter()
                .map(|(name, ty)| (name.clone(), ty.to_string()))
                .collect(),
            replayed: self
                .replayed
                .as_ref()
                .and_then(|r| r.get(i).and_then(|r| r.finished())),
            replay: self.replayed.as_ref().and_then(|r| r.get(i).copied()),
            client: self
                .clients
                .as_ref()
                .and_then(|c| c.get(i).cloned().flatten()),
        }
    }

    /// The counterexamples to list, with their indices. A `--all` listing can be long:
    /// once the deadline has passed it stops (after the first counterexample, so that
    /// an unsafe verdict always shows one) and `left_out` says how many it left out,
    /// so that `--timeout` holds while the report is written. Without `--all` there is
    /// at most one counterexample per failure site, and all are listed.
    pub fn listed<'s>(
        &'s self,
        left_out: &'s Cell<usize>,
    ) -> impl Iterator<Item = (usize, &'s Counterexample)> + 's {
        let total = self.result.counterexamples.len();
        self.result
            .counterexamples
            .iter()
            .enumerate()
            .map_while(move |(i, c)| {
                let late = self.all && i > 0 && self.deadline.is_some_and(|d| Instant::now() >= d);
                if late {
                    left_out.set(total - i);
                    None
                } else {
                    Some((i, c))
                }
            })
    }

    /// The JSON document; `lines` must index this report's source ([`Report::lines`]).
    pub fn to_json<'r>(&'r self, lines: &'r LineIndex<'r>) -> JsonReport<'r> {
        let stats = &self.result.stats;
        let left_out = Rc::new(Cell::new(0));
        JsonReport {
            schema_version: JSON_SCHEMA_VERSION,
            holi_version: HOLI_VERSION,
            file: self.file,
            bounds: JsonBounds {
                k: self.k,
                l: self.l,
                k_from: self.k_source,
                l_from: self.l_source,
            },
            all: self.all,
            verdict: verdict_name(self.result.verdict),
            counterexamples: JsonCounterexamples {
                report: self,
                lines,
                left_out: Rc::clone(&left_out),
            },
            unlisted: Unlisted(left_out),
            failing_traces: self.result.failing_traces,
            failing_traces_lower_bound: self.result.failing_traces_lower_bound,
            stats: JsonStats {
                configurations: stats.configurations,
                subsumed: stats.subsumed,
                covered: stats.covered,
                irrelevant_calls: stats.irrelevant_calls,
                solver_queries: stats.solver_queries,
                unreachable_sites: stats.unreachable_sites,
                seconds: (stats.seconds * 1000.0).round() / 1000.0,
                solver_seconds: (stats.solver_seconds * 1000.0).round() / 1000.0,
                lanes: (stats.lanes > 0).then_some(stats.lanes),
            },
            inconclusive: &self.result.inconclusive,
            stuck: JsonStuck {
                paths: self.stuck_paths(),
                places: self
                    .result
                    .stuck
                    .iter()
                    .map(|s| json_stuck_place(s, lines))
                    .collect(),
            },
            warnings: self
                .warnings
                .iter()
                .map(|d| self.json_diagnostic(d, lines))
                .collect(),
            scope: self.scope_name(),
            certificate: match &self.scope {
                Some(Scope::AllBounds {
                    invariant,
                    turn_relation,
                    revealed,
                    recursive,
                    cells,
                    obligations,
                    smtlib,
                }) => Some(JsonCertificate {
                    invariant,
                    turn_relation,
                    revealed,
                    recursive,
                    cells,
                    obligations: *obligations,
                    smtlib: smtlib.as_deref(),
                }),
                _ => None,
            },
            not_proved: match &self.scope {
                Some(Scope::Bounded(why)) => Some(why),
                _ => None,
            },
        }
    }

    /// `all-bounds` or `bounded` for a safe verdict whose scope is known.
    pub fn scope_name(&self) -> Option<&'static str> {
        if self.result.verdict != Verdict::Safe {
            return None;
        }
        self.scope.as_ref().map(|s| match s {
            Scope::AllBounds { .. } => "all-bounds",
            Scope::Bounded(_) => "bounded",
        })
    }

    fn json_diagnostic<'r>(&self, d: &'r Diagnostic, lines: &LineIndex) -> JsonDiagnostic<'r> {
        JsonDiagnostic {
            code: d.code,
            severity: severity_name(d.severity),
            message: &d.title,
            labels: d
                .labels
                .iter()
                .map(|label| JsonLabel {
                    file: &label.file,
                    span: (label.file == self.file).then(|| lines.span(&label.span)),
                    message: &label.message,
                })
                .collect(),
            hint: d.hint.as_deref(),
        }
    }

    /// Writes the JSON document to `out` as it is serialized, counterexample by
    /// counterexample, followed by a newline.
    pub fn write_json(&self, out: &mut dyn Write) -> io::Result<()> {
        let lines = self.lines();
        let mut out = BufWriter::new(out);
        serde_json::to_writer_pretty(&mut out, &self.to_json(&lines))?;
        out.write_all(b"\n")?;
        out.flush()
    }

    /// The JSON document as a string (for small reports and tests; the CLI streams it
    /// with [`Report::write_json`]).
    pub fn json(&self) -> String {
        let mut bytes = Vec::new();
        if let Err(e) = self.write_json(&mut bytes) {
            // Writing to memory fails only if serializing does; that would be a bug.
            return format!("{{\"error\": \"{e}\"}}\n");
        }
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// The human-readable report. `color` adds ANSI colours to the source excerpts.
    pub fn text(&self, color: bool) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "holi check {}", self.file);
        let _ = write!(out, "  {}", self.bounds_text());
        out.push_str("\n\n");

        let mut sources = Sources::new();
        sources.add(self.file, self.source);
        let total = self.result.counterexamples.len();
        let left_out = Cell::new(0);
        for (i, c) in self.listed(&left_out) {
            out.push_str(&self.counterexample_text(c, i + 1, total, &sources, color));
            if let Some(r) = self.replayed.as_ref().and_then(|r| r.get(i)) {
                let _ = writeln!(out, "  {}", r.text());
            }
            match self.clients.as_ref().and_then(|c| c.get(i)) {
                // A single line is the path the client was written to.
                Some(Some(path)) if !path.contains('\n') => {
                    let _ = writeln!(out, "  client: {path}");
                }
                Some(Some(client)) => {
                    let _ = writeln!(out, "  client:");
                    for line in client.lines() {
                        let _ = writeln!(out, "    {line}");
                    }
                }
                _ => {}
            }
            out.push('\n');
        }
        out.push_str(&self.summary_text(left_out.get()));
        out
    }

    /// The verdict line, its notes and the statistics: the end of the text report,
    /// and the summary of the HTML one. `left_out` is how many counterexamples the
    /// listing left out at the time limit.
    pub fn summary_text(&self, left_out: usize) -> String {
        let mut out = String::new();
        let total = self.result.counterexamples.len();
        let r = self.result;
        let shown = if self.all {
            "listed"
        } else if r.inconclusive.is_empty() {
            "shown: the shortest per failure site"
        } else {
            // An incomplete search may have missed shorter traces, and other sites.
            "shown: the shortest found per failure site, search incomplete"
        };
        let stuck_paths = self.stuck_paths();
        let stuck_places = r.stuck.len();
        let stuck_summary = format!(
            "{stuck_paths} explored path{} got stuck at {stuck_places} place{}",
            plural(stuck_paths as usize),
            plural(stuck_places)
        );
        match r.verdict {
            Verdict::Unsafe => {
                let _ = writeln!(
                    out,
                    "UNSAFE: {}{} failing trace{} {} within the bounds ({} {shown}).",
                    if r.failing_traces_lower_bound {
                        "at least "
                    } else {
                        ""
                    },
                    r.failing_traces,
                    plural(r.failing_traces),
                    if self.all { "in all" } else { "found" },
                    total - left_out
                );
            }
            Verdict::Safe => match &self.scope {
                None => {
                    let _ = writeln!(
                        out,
                        "SAFE within the bounds: no client reaches a failing assert with k = {}, l = {}.",
                        self.k, self.l
                    );
                }
                Some(Scope::AllBounds {
                    invariant,
                    turn_relation,
                    revealed,
                    recursive,
                    cells,
                    obligations,
                    smtlib,
                }) => {
                    let _ = writeln!(
                        out,
                        "SAFE for every k and l (proved): no client reaches a failing assert, \
                         however deep it nests its calls or how often it calls."
                    );
                    let facts = if invariant.is_empty() {
                        "true (nothing about the references is needed)".to_string()
                    } else {
                        invariant.join(", ")
                    };
                    let _ = writeln!(out, "  invariant at every client turn: {facts}");
                    if !turn_relation.is_empty() {
                        let _ = writeln!(
                            out,
                            "  across every client turn (r′: r after it): {}",
                            turn_relation.join("; ")
                        );
                    }
                    if !revealed.is_empty() {
                        let _ = writeln!(
                            out,
                            "  reaching the client, checked like methods: {}",
                            revealed.join(", ")
                        );
                    }
                    if !recursive.is_empty() {
                        let _ = writeln!(
                            out,
                            "  recursive, checked like methods (their recursive calls read as \
                             client turns): {}",
                            recursive.join(", ")
                        );
                    }
                    if !cells.is_empty() {
                        let _ =
                            writeln!(out, "  cells, by where they are made: {}", cells.join("; "));
                    }
                    let written = smtlib
                        .as_ref()
                        .map(|path| format!("; written to {path}"))
                        .unwrap_or_default();
                    let _ = writeln!(
                        out,
                        "  certificate: {obligations} obligation{} over the methods, each \
                         discharged by Z3 in holi's proof checker (lang/proofs.md){written}",
                        plural(*obligations)
                    );
                }
                Some(Scope::Bounded(why)) => {
                    let _ = writeln!(
                        out,
                        "SAFE within k = {}, l = {}: no client reaches a failing assert (not \
                         proved for larger bounds: {why}).",
                        self.k, self.l
                    );
                }
            },
            Verdict::Inconclusive => {
                let _ = writeln!(
                    out,
                    "INCONCLUSIVE: no failing trace found, but the search is incomplete."
                );
            }
            Verdict::Stuck if stuck_places == 0 => {
                let _ = writeln!(
                    out,
                    "STUCK: no failing trace found, but some explored paths got stuck; what follows \
                     them was not explored, so this is no proof of safety."
                );
            }
            Verdict::Stuck => {
                let _ = writeln!(
                    out,
                    "STUCK: no failing trace found, but {stuck_summary}; what follows them was not \
                     explored, so this is no proof of safety."
                );
            }
        }
        for reason in &r.inconclusive {
            let _ = writeln!(out, "  note: {reason}");
        }
        if left_out > 0 {
            let _ = writeln!(
                out,
                "  note: {} more failing trace{} not listed: the time limit ran out while the \
                 report was written",
                left_out,
                plural(left_out)
            );
        }
        if stuck_places > 0 {
            let indent = match r.verdict {
                Verdict::Stuck => "  ",
                Verdict::Safe => {
                    let _ = writeln!(
                        out,
                        "  note: {stuck_summary}, not explored further and counted as safe, as \
                         HOLiK does:"
                    );
                    "    "
                }
                Verdict::Unsafe | Verdict::Inconclusive => {
                    let _ = writeln!(out, "  note: {stuck_summary}, not explored further:");
                    "    "
                }
            };
            let lines = self.lines();
            for site in &r.stuck {
                let at = lines.point(site.span.start);
                let _ = writeln!(
                    out,
                    "{indent}stuck at {}:{}:{}: {} ({} path{})",
                    self.file,
                    at.line,
                    at.column,
                    stuck_reason_text(&site.reason),
                    site.paths,
                    plural(site.paths as usize)
                );
            }
        }
        let s = &r.stats;
        let _ = writeln!(
            out,
            "  {} configurations, {} solver queries ({} more answered from earlier answers), {:.3} s",
            s.configurations, s.solver_queries, s.cached_answers, s.seconds
        );
        if s.subsumed > 0 {
            let _ = writeln!(
                out,
                "  {} client turn{} skipped: subsumed by one already explored",
                s.subsumed,
                plural(s.subsumed as usize)
            );
        }
        if s.coverage_checks > 0 {
            let _ = writeln!(
                out,
                "  {} of them by the values their integers can take ({} region{} made, {} coverage check{})",
                s.covered,
                s.projections,
                plural(s.projections as usize),
                s.coverage_checks,
                plural(s.coverage_checks as usize)
            );
        }
        if s.irrelevant_calls > 0 {
            let them = if s.irrelevant_calls == 1 {
                "it"
            } else {
                "them"
            };
            let _ = writeln!(
                out,
                "  {} client call{} not made: no shortest failing trace makes {them}",
                s.irrelevant_calls,
                plural(s.irrelevant_calls as usize),
            );
        }
        if s.unreachable_sites > 0 {
            let _ = writeln!(
                out,
                "  {} failure site{} proved unreachable by an over-approximation",
                s.unreachable_sites,
                plural(s.unreachable_sites as usize)
            );
        }
        if s.undeclared_calls > 0 {
            let _ = writeln!(
                out,
                "  {} path{} ended calling an undeclared name",
                s.undeclared_calls,
                plural(s.undeclared_calls as usize)
            );
        }
        out
    }

    /// `bounds: k = 3 (command line), l = 2 (file header)`, and whether every failing
    /// trace is listed.
    pub fn bounds_text(&self) -> String {
        let origin = |s: BoundSource| match s {
            BoundSource::Header => "file header",
            BoundSource::CommandLine => "command line",
            BoundSource::Default => "HOLiK's default",
        };
        let all = if self.all {
            "; listing every failing trace"
        } else {
            ""
        };
        format!(
            "bounds: k = {} ({}), l = {} ({}){all}",
            self.k,
            origin(self.k_source),
            self.l,
            origin(self.l_source)
        )
    }

    /// What fails and where: `assertion fails at examples/dao.holi:14:5`.
    pub fn failure_place(&self, c: &Counterexample) -> String {
        failure_place(c, self.file, &self.lines())
    }

    fn counterexample_text(
        &self,
        c: &Counterexample,
        n: usize,
        total: usize,
        sources: &Sources,
        color: bool,
    ) -> String {
        let mut out = String::new();
        let what = match c.kind {
            FailureKind::Assert => "assertion failure",
            FailureKind::Division => "division by zero",
        };
        let moves = c.trace.0.len();
        let _ = writeln!(
            out,
            "[{n}/{total}] {what} after {moves} move{}:",
            plural(moves)
        );
        let _ = writeln!(out, "  {}", c.trace);
        if !c.model.is_empty() {
            let _ = writeln!(out, "  with {}", model_text(&c.model));
            let _ = writeln!(out, "  e.g. {}", c.concrete);
        }
        // A `--all` listing can run to thousands of traces: the flat line is enough there.
        if !self.all {
            let _ = writeln!(out, "  call tree:");
            let leaf = self.failure_place(c);
            for line in CallTree::new(&c.trace).lines(&c.trace, &c.concrete, &leaf, color) {
                let _ = writeln!(out, "    {line}");
            }
        }
        let (code, title, label) = failure_diagnostic(c.kind);
        let diagnostic =
            Diagnostic::error(code, title).with_label(self.file, c.span.clone(), label);
        for line in diagnostic.render(sources, color).lines() {
            let _ = writeln!(out, "  {line}");
        }
        out
    }
}

fn json_stuck_place(site: &StuckSite, lines: &LineIndex) -> JsonStuckPlace {
    let (reason, name) = stuck_reason_kind(&site.reason);
    JsonStuckPlace {
        span: lines.span(&site.span),
        reason,
        name: name.map(str::to_string),
        message: stuck_reason_text(&site.reason),
        paths: site.paths,
    }
}

pub fn severity_name(severity: Severity) -> &'static str {
    match severity {
        Severity::Warning => "warning",
        Severity::Error => "error",
    }
}

/// The diagnostic code, title and label of a failure of this kind.
pub fn failure_diagnostic(kind: FailureKind) -> (&'static str, &'static str, &'static str) {
    match kind {
        FailureKind::Assert => ("C0001", "this assertion fails", "asserted value is 0 here"),
        FailureKind::Division => (
            "C0002",
            "this division divides by zero",
            "the divisor is 0 here",
        ),
    }
}

/// What fails and where: `assertion fails at examples/dao.holi:14:5`; `lines` indexes
/// the source of `file`.
pub fn failure_place(c: &Counterexample, file: &str, lines: &LineIndex) -> String {
    let at = lines.point(c.span.start);
    let what = match c.kind {
        FailureKind::Assert => "assertion fails",
        FailureKind::Division => "division by zero",
    };
    format!("{what} at {file}:{}:{}", at.line, at.column)
}

/// The model as `x1 = 100, x2 = 1`, in symbol order.
pub fn model_text(model: &BTreeMap<String, BigInt>) -> String {
    model_order(model)
        .into_iter()
        .map(|(k, v)| format!("{k} = {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Model entries in symbol order (`x2` before `x10`).
fn model_order(model: &BTreeMap<String, BigInt>) -> Vec<(&String, &BigInt)> {
    let mut entries: Vec<_> = model.iter().collect();
    entries.sort_by_key(|(k, _)| (k.len(), (*k).clone()));
    entries
}

pub(crate) fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Symbol-free form of a trace in HOLiK's notation, for comparing with HOLiK: every
/// symbolic value and every generated function name becomes `_`; methods, imports and
/// literals stay; moves are joined by ` . ` and a unit argument prints as `m()`.
/// `is_declared` tells the library's own names (methods, imports) from generated ones.
pub fn anonymized(trace: &crate::trace::Trace, is_declared: &dyn Fn(&str) -> bool) -> String {
    let name = |n: &str| {
        if is_declared(n) {
            n.to_string()
        } else {
            "_".to_string()
        }
    };
    let value = |v: &TraceValue| -> String {
        fn go(v: &TraceValue, name: &dyn Fn(&str) -> String) -> String {
            match v {
                TraceValue::Unit => "()".to_string(),
                TraceValue::Int(i) => i.to_string(),
                TraceValue::Sym(_) | TraceValue::Ref(_) => "_".to_string(),
                TraceValue::Fun(n) => name(n),
                TraceValue::Pair(a, b) => format!("({}, {})", go(a, name), go(b, name)),
                TraceValue::List(items) => {
                    let items: Vec<String> = items.iter().map(|v| go(v, name)).collect();
                    format!("[{}]", items.join("; "))
                }
            }
        }
        go(v, &name)
    };
    trace
        .0
        .iter()
        .map(|m| {
            // HOLiK's convention: a unit argument prints as `m()`.
            let arg = match &m.value {
                TraceValue::Unit => String::new(),
                TraceValue::Pair(a, b) => format!("{}, {}", value(a), value(b)),
                other => value(other),
            };
            let dir = match m.dir {
                crate::trace::Dir::Call => "call",
                crate::trace::Dir::Ret => "ret",
            };
            format!("{dir} {}({arg})", name(&m.method))
        })
        .collect::<Vec<_>>()
        .join(" . ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_count_lines_and_characters_from_one() {
        let lines = LineIndex::new("ab\nçd\n");
        assert_eq!(
            lines.point(0),
            JsonPoint {
                line: 1,
                column: 1,
                offset: 0
            }
        );
        // `ç` is two bytes, one column.
        assert_eq!(
            lines.point(6),
            JsonPoint {
                line: 2,
                column: 3,
                offset: 6
            }
        );
        assert_eq!(lines.point(7).line, 3);
    }

    #[test]
    fn points_outside_the_source_or_inside_a_character_are_clamped() {
        let lines = LineIndex::new("ab\nçd");
        assert_eq!(lines.point(99).offset, 6);
        assert_eq!(lines.point(4).offset, 3);
        let backwards = Span { start: 5, end: 2 };
        let span = lines.span(&backwards);
        assert_eq!(span.end, span.start);
    }

    #[test]
    fn stuck_reasons_read_as_phrases() {
        assert_eq!(
            stuck_reason_text(&StuckReason::Undeclared("sned".to_string())),
            "call of the undeclared name `sned`"
        );
        assert_eq!(
            stuck_reason_kind(&StuckReason::UnsetReference("r".to_string())),
            ("unset_reference", Some("r"))
        );
    }
}
