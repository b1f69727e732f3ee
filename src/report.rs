//! Rendering the result of `holi check`: text for people, JSON for programs.
//!
//! The JSON structs here are the documented, stable format (`lang/check-output.md`);
//! they are kept apart from the engine's types so the engine can change freely. Fields
//! that later stages fill in (`replayed`, `client`) are optional and omitted when absent.

use crate::diagnostics::{Diagnostic, Sources};
use crate::symbolic::{CheckResult, Verdict};
use crate::trace::{Counterexample, FailureKind, Move, Player, TraceValue};
use num_bigint::BigInt;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;

/// The version of the JSON report format (`lang/check-output.md`).
pub const SCHEMA_VERSION: &str = "1.0.0";

/// Where the bounds of a run came from, for the header line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoundSource {
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
    pub replayed: Option<Vec<bool>>,
    /// Per counterexample, the synthesized client: its path when written to a directory,
    /// else its source; `None` where no client could be written. Filled in by synthesis.
    pub clients: Option<Vec<Option<String>>>,
}

#[derive(Serialize)]
pub struct JsonReport {
    pub file: String,
    pub bounds: JsonBounds,
    pub verdict: &'static str,
    pub counterexamples: Vec<JsonCounterexample>,
    pub failing_traces: usize,
    pub stats: JsonStats,
    /// Why the search is incomplete; omitted when it is complete.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub inconclusive: Vec<String>,
}

#[derive(Serialize)]
pub struct JsonBounds {
    pub k: u32,
    pub l: u32,
}

#[derive(Serialize)]
pub struct JsonPosition {
    pub line: usize,
    pub column: usize,
}

#[derive(Serialize)]
pub struct JsonCounterexample {
    /// Where the failing `assert` (or division) is, 1-based.
    pub assert: JsonPosition,
    pub kind: FailureKind,
    pub moves: usize,
    pub trace: Vec<JsonMove>,
    pub text: String,
    pub model: BTreeMap<String, serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replayed: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
}

#[derive(Serialize)]
pub struct JsonMove {
    pub dir: crate::trace::Dir,
    pub by: Player,
    pub method: String,
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
    pub solver_queries: u64,
    /// Failure sites proved unreachable by the over-approximation (`--no-havoc`).
    pub unreachable_sites: u64,
    pub seconds: f64,
}

pub fn verdict_name(v: Verdict) -> &'static str {
    match v {
        Verdict::Safe => "safe",
        Verdict::Unsafe => "unsafe",
        Verdict::Inconclusive => "inconclusive",
        Verdict::Stuck => "stuck",
    }
}

/// 1-based line and column (in characters) of byte offset `at`.
pub fn position(source: &str, at: usize) -> JsonPosition {
    let at = at.min(source.len());
    let before = source.get(..at).unwrap_or(source);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    JsonPosition { line, column }
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
    }
}

impl Report<'_> {
    pub fn to_json(&self) -> JsonReport {
        let counterexamples = self
            .result
            .counterexamples
            .iter()
            .enumerate()
            .map(|(i, c)| JsonCounterexample {
                assert: position(self.source, c.span.start),
                kind: c.kind,
                moves: c.trace.0.len(),
                trace: c.trace.0.iter().map(json_move).collect(),
                text: c.trace.to_string(),
                model: c
                    .model
                    .iter()
                    .map(|(k, v)| (k.clone(), json_int(v)))
                    .collect(),
                replayed: self.replayed.as_ref().and_then(|r| r.get(i).copied()),
                client: self
                    .clients
                    .as_ref()
                    .and_then(|c| c.get(i).cloned().flatten()),
            })
            .collect();
        let stats = &self.result.stats;
        JsonReport {
            file: self.file.to_string(),
            bounds: JsonBounds {
                k: self.k,
                l: self.l,
            },
            verdict: verdict_name(self.result.verdict),
            counterexamples,
            failing_traces: self.result.failing_traces,
            stats: JsonStats {
                configurations: stats.configurations,
                subsumed: stats.subsumed,
                covered: stats.covered,
                solver_queries: stats.solver_queries,
                unreachable_sites: stats.unreachable_sites,
                seconds: (stats.seconds * 1000.0).round() / 1000.0,
            },
            inconclusive: self.result.inconclusive.clone(),
        }
    }

    pub fn json(&self) -> String {
        let mut text = serde_json::to_string_pretty(&self.to_json())
            .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
        text.push('\n');
        text
    }

    /// The human-readable report. `color` adds ANSI colours to the source excerpts.
    pub fn text(&self, color: bool) -> String {
        let mut out = String::new();
        let origin = |s: BoundSource| match s {
            BoundSource::Header => "file header",
            BoundSource::CommandLine => "command line",
            BoundSource::Default => "HOLiK's default",
        };
        let _ = writeln!(out, "holi check {}", self.file);
        let _ = write!(
            out,
            "  bounds: k = {} ({}), l = {} ({})",
            self.k,
            origin(self.k_source),
            self.l,
            origin(self.l_source)
        );
        if self.all {
            let _ = write!(out, "; listing every failing trace");
        }
        out.push_str("\n\n");

        let mut sources = Sources::new();
        sources.add(self.file, self.source);
        let total = self.result.counterexamples.len();
        for (i, c) in self.result.counterexamples.iter().enumerate() {
            out.push_str(&self.counterexample_text(c, i + 1, total, &sources, color));
            if let Some(r) = self.replayed.as_ref().and_then(|r| r.get(i)) {
                let _ = writeln!(
                    out,
                    "  {}",
                    if *r {
                        "confirmed by replay"
                    } else {
                        "NOT confirmed by replay: a bug in holi (details on stderr)"
                    }
                );
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

        let r = self.result;
        let shown = if self.all {
            "listed"
        } else if r.inconclusive.is_empty() {
            "shown: the shortest per failure site"
        } else {
            // An incomplete search may have missed shorter traces, and other sites.
            "shown: the shortest found per failure site, search incomplete"
        };
        match r.verdict {
            Verdict::Unsafe => {
                let _ = writeln!(
                    out,
                    "UNSAFE: {} failing trace{} {} within the bounds ({} {shown}).",
                    r.failing_traces,
                    plural(r.failing_traces),
                    if self.all { "in all" } else { "found" },
                    total
                );
            }
            Verdict::Safe => {
                let _ = writeln!(
                    out,
                    "SAFE within the bounds: no client reaches a failing assert with k = {}, l = {}.",
                    self.k, self.l
                );
            }
            Verdict::Inconclusive => {
                let _ = writeln!(
                    out,
                    "INCONCLUSIVE: no failing trace found, but the search is incomplete."
                );
            }
            Verdict::Stuck => {
                let _ = writeln!(
                    out,
                    "STUCK: no failing trace found, but some paths got stuck and were not explored further."
                );
            }
        }
        for reason in &r.inconclusive {
            let _ = writeln!(out, "  note: {reason}");
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
            let model: Vec<String> = model_order(&c.model)
                .into_iter()
                .map(|(k, v)| format!("{k} = {v}"))
                .collect();
            let _ = writeln!(out, "  with {}", model.join(", "));
            let _ = writeln!(out, "  e.g. {}", c.concrete);
        }
        let (code, title, label) = match c.kind {
            FailureKind::Assert => ("C0001", "this assertion fails", "asserted value is 0 here"),
            FailureKind::Division => (
                "C0002",
                "this division divides by zero",
                "the divisor is 0 here",
            ),
        };
        let diagnostic =
            Diagnostic::error(code, title).with_label(self.file, c.span.clone(), label);
        for line in diagnostic.render(sources, color).lines() {
            let _ = writeln!(out, "  {line}");
        }
        out
    }
}

/// Model entries in symbol order (`x2` before `x10`).
fn model_order(model: &BTreeMap<String, BigInt>) -> Vec<(&String, &BigInt)> {
    let mut entries: Vec<_> = model.iter().collect();
    entries.sort_by_key(|(k, _)| (k.len(), (*k).clone()));
    entries
}

fn plural(n: usize) -> &'static str {
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
                TraceValue::Sym(_) => "_".to_string(),
                TraceValue::Fun(n) => name(n),
                TraceValue::Pair(a, b) => format!("({}, {})", go(a, name), go(b, name)),
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
