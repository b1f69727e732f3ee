//! The report of `holi check` as SARIF 2.1.0 (`--format sarif`), the format code-scanning
//! services (GitHub code scanning, Azure DevOps, IDE viewers) read.
//!
//! One run per document. Its results, in this order:
//!
//! * each counterexample: rule `C0001` (a failing `assert`) or `C0002` (a division by
//!   zero), level `error`, at the failing expression, with one code flow whose steps are
//!   the trace's moves (each at the declaration of the method or import it names, where
//!   known) ending at the failing expression;
//! * each place where explored paths got stuck: rule `C0003`, level `warning`;
//! * each front-end warning: its own code as rule, at its first label.
//!
//! `lang/check-output.md` documents the mapping; `tests/report_formats.rs` validates the
//! output against the official schema. Like the JSON document, results are serialized
//! one at a time.

use crate::diagnostics::{Diagnostic, Severity};
use crate::report::{
    failure_diagnostic, model_text, plural, stuck_reason_text, verdict_name, LineIndex, Replay,
    Report, HOLI_VERSION,
};
use crate::symbolic::StuckSite;
use crate::syntax::ast::{Decl, Program, Span};
use crate::trace::{Counterexample, Dir, FailureKind, Move, Player, Trace};
use serde::{Serialize, Serializer};
use std::cell::Cell;
use std::collections::BTreeMap;
use std::io::{self, BufWriter, Write};
use std::path::{Component, Path};

pub mod equiv;

/// The schema the document declares (the OASIS standard's, errata 01).
pub const SARIF_SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// The base every artifact URI is relative to: the working directory of the run.
pub const SRCROOT: &str = "%SRCROOT%";

/// The rule of a stuck place.
pub const STUCK_CODE: &str = "C0003";

/// The key of holi's partial fingerprint; the suffix is bumped if what it hashes changes.
pub const FINGERPRINT_KEY: &str = "holiFailure/v1";

/// A rule: code, short description, full description, and where `lang/` documents it.
struct RuleInfo {
    id: &'static str,
    short: &'static str,
    full: &'static str,
    doc: &'static str,
}

impl RuleInfo {
    /// The rule, at `level`, linked to the documentation under `docs` when known.
    fn rule(&self, docs: Option<&str>, level: &'static str) -> Rule {
        Rule {
            id: self.id,
            short_description: text(self.short),
            full_description: text(self.full),
            help_uri: docs.map(|base| format!("{base}{}", self.doc)),
            help: text(format!(
                "{} See {} in holi's documentation.",
                self.full, self.doc
            )),
            default_configuration: Configuration { level },
        }
    }
}

/// The tool: holi, with `rules`, linked to the documentation under `docs` when known.
fn tool(rules: Vec<Rule>, docs: Option<&str>) -> Tool {
    Tool {
        driver: Driver {
            name: "holi",
            version: HOLI_VERSION,
            semantic_version: HOLI_VERSION,
            information_uri: docs.map(|base| format!("{base}README.md")),
            rules,
        },
    }
}

/// `originalUriBaseIds`: `%SRCROOT%` is the working directory `cwd`, when known.
fn base_ids(cwd: Option<&Path>) -> BTreeMap<&'static str, ArtifactLocation> {
    cwd.filter(|cwd| cwd.is_absolute())
        .map(|cwd| {
            let mut uri = format!("file:///{}", uri_path(cwd));
            if !uri.ends_with('/') {
                uri.push('/');
            }
            (
                SRCROOT,
                ArtifactLocation {
                    uri,
                    uri_base_id: None,
                },
            )
        })
        .into_iter()
        .collect()
}

const CHECK_DOC: &str = "lang/check-output.md";
const WARNING_DOC: &str = "lang/README.md";

/// Every rule holi reports under. The warnings mirror the table in `lang/README.md`
/// (a test keeps them in step).
const RULES: &[RuleInfo] = &[
    RuleInfo {
        id: "C0001",
        short: "An assertion fails",
        full: "Some client drives the library, within the bounds k and l, into an `assert` whose \
               value is 0. The trace of calls and returns across the library's boundary, with \
               values for its symbols, shows how.",
        doc: CHECK_DOC,
    },
    RuleInfo {
        id: "C0002",
        short: "A division by zero",
        full: "Some client drives the library, within the bounds k and l, into a division whose \
               divisor is 0. The trace of calls and returns across the library's \
               boundary, with values for its symbols, shows how.",
        doc: CHECK_DOC,
    },
    RuleInfo {
        id: STUCK_CODE,
        short: "Explored paths got stuck",
        full: "Paths explored by the check got stuck here (a call of an undeclared name, a read \
               of an unset reference, an ill-typed operation): what would follow them was not \
               explored, so failures beyond this place may be missed.",
        doc: CHECK_DOC,
    },
    RuleInfo {
        id: "W0101",
        short: "Operators of one group mixed without parentheses",
        full: "Two different operators of one precedence group are mixed without parentheses, \
               e.g. `a - b + c`: HOLiK gives them no relative priority, holi groups them to \
               the left. Add parentheses.",
        doc: WARNING_DOC,
    },
    RuleInfo {
        id: "W0201",
        short: "An ill-typed expression",
        full: "An expression is ill-typed; a path that evaluates it gets stuck.",
        doc: WARNING_DOC,
    },
    RuleInfo {
        id: "W0202",
        short: "A call of an undeclared name",
        full: "A name that is neither a variable, a method nor an import is called; a path \
               that makes the call gets stuck.",
        doc: WARNING_DOC,
    },
    RuleInfo {
        id: "W0203",
        short: "An assignment to an undeclared reference",
        full: "A reference that is never declared is assigned (HOLiK creates it).",
        doc: WARNING_DOC,
    },
    RuleInfo {
        id: "W0204",
        short: "A read of an undeclared reference",
        full: "A reference that is never declared is read; a path that reads it before any \
               assignment gets stuck.",
        doc: WARNING_DOC,
    },
    RuleInfo {
        id: "W0205",
        short: "A function reference to something other than a method",
        full: "`fun r := m` where `m` is not a method; harmless until `!r` is called.",
        doc: WARNING_DOC,
    },
    RuleInfo {
        id: "W0206",
        short: "A global reference hides a local one",
        full: "`!x` or `x := e` denotes the global reference `x`, as in HOLiK, although a local \
               `x` holding a reference is in scope; the local may be meant. Rename one of them.",
        doc: WARNING_DOC,
    },
];

/// The codes of every rule in `tool.driver.rules`, in order.
pub fn rule_codes() -> impl Iterator<Item = &'static str> {
    RULES.iter().map(|r| r.id)
}

/// Where the documentation lives, if the package names its repository
/// (`repository` in Cargo.toml, a GitHub-style URL): rules then get a `helpUri` and the
/// tool an `informationUri`. Without it both are left out (they must be absolute URIs).
fn docs_base(repository: &str) -> Option<String> {
    let repository = repository.trim_end_matches('/');
    (!repository.is_empty()).then(|| format!("{repository}/blob/HEAD/"))
}

/// A run: `R` the results, `P` the command's properties.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run<R, P> {
    tool: Tool,
    invocations: [Invocation; 1],
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    original_uri_base_ids: BTreeMap<&'static str, ArtifactLocation>,
    /// Columns are counted in characters, as in the text and JSON reports.
    column_kind: &'static str,
    results: R,
    properties: P,
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    version: &'static str,
    semantic_version: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    information_uri: Option<String>,
    rules: Vec<Rule>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rule {
    id: &'static str,
    short_description: Text,
    full_description: Text,
    #[serde(skip_serializing_if = "Option::is_none")]
    help_uri: Option<String>,
    help: Text,
    default_configuration: Configuration,
}

#[derive(Serialize)]
struct Configuration {
    level: &'static str,
}

/// A `message` or `multiformatMessageString` with plain text.
#[derive(Serialize)]
struct Text {
    text: String,
}

fn text(s: impl Into<String>) -> Text {
    Text { text: s.into() }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Invocation {
    execution_successful: bool,
    exit_code: u8,
    exit_code_description: &'static str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_execution_notifications: Vec<Notification>,
}

#[derive(Serialize)]
struct Notification {
    level: &'static str,
    message: Text,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RunProperties<'r> {
    verdict: &'static str,
    k: u32,
    l: u32,
    all: bool,
    failing_traces: usize,
    stuck_paths: u64,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    inconclusive: &'r [String],
    /// Counterexamples not given as results: the time limit ran out while they were
    /// written (after the results, so that it is known).
    unlisted: UnlistedCount<'r>,
    /// For a safe verdict: `all-bounds` when proved for every k and l, else `bounded`.
    #[serde(skip_serializing_if = "Option::is_none")]
    scope: Option<&'static str>,
}

struct UnlistedCount<'r>(&'r Cell<usize>);

impl Serialize for UnlistedCount<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u64(self.0.get() as u64)
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult {
    rule_id: &'static str,
    /// Omitted for a code missing from [`RULES`] (`ruleId` still names it).
    #[serde(skip_serializing_if = "Option::is_none")]
    rule_index: Option<usize>,
    level: &'static str,
    message: Text,
    locations: [Location; 1],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    related_locations: Vec<Location>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    code_flows: Vec<CodeFlow>,
    partial_fingerprints: BTreeMap<&'static str, String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<usize>,
    physical_location: PhysicalLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<Text>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    /// Left out where the places found are not the file's (a Hobbit file's sides,
    /// whose places are in their translations).
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<Region>,
}

#[derive(Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactLocation {
    uri: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    uri_base_id: Option<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: usize,
    start_column: usize,
    end_line: usize,
    /// The column just after the region, as SARIF counts it.
    end_column: usize,
    byte_offset: usize,
    byte_length: usize,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CodeFlow {
    message: Text,
    thread_flows: Vec<ThreadFlow>,
}

#[derive(Serialize)]
struct ThreadFlow {
    locations: Vec<ThreadFlowLocation>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ThreadFlowLocation {
    location: Location,
    kinds: Vec<&'static str>,
    nesting_level: usize,
    execution_order: usize,
}

/// What the results need from the report: where things are and how to name the file.
struct Context<'r> {
    report: &'r Report<'r>,
    lines: LineIndex<'r>,
    artifact: ArtifactLocation,
    /// Declarations of methods and imports, by name.
    declarations: BTreeMap<&'r str, Span>,
    /// Counterexamples the results left out at the time limit ([`Report::listed`]).
    left_out: Cell<usize>,
}

/// The results of a run, serialized one at a time.
struct Results<'r>(&'r Context<'r>);

impl Serialize for Results<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let cx = self.0;
        let result = cx.report.result;
        serializer.collect_seq(
            cx.report
                .listed(&cx.left_out)
                .map(|(i, c)| cx.counterexample(i, c))
                .chain(result.stuck.iter().map(|s| cx.stuck(s)))
                .chain(cx.report.warnings.iter().map(|d| cx.warning(d))),
        )
    }
}

fn rule_index(id: &str) -> Option<usize> {
    RULES.iter().position(|r| r.id == id)
}

/// 64-bit FNV-1a: a hash that stays the same across platforms and Rust versions, as
/// fingerprints must.
fn fnv1a(parts: &[&str]) -> String {
    let mut hash = crate::fnv::Fnv64::default();
    for part in parts {
        // A separator keeps ("ab", "c") and ("a", "bc") apart.
        hash.bytes(part.as_bytes()).bytes(&[0xff]);
    }
    format!("{:016x}", hash.value())
}

/// Percent-encodes a path segment for a URI: everything but unreserved characters.
fn encode_segment(segment: &str, out: &mut String) {
    for byte in segment.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
}

/// The path as URI path segments joined by `/` (`.` dropped, `..` kept, a root or drive
/// prefix dropped).
fn uri_path(path: &Path) -> String {
    let mut out = String::new();
    for component in path.components() {
        let segment = match component {
            Component::Normal(s) => s.to_string_lossy(),
            Component::ParentDir => "..".into(),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => continue,
        };
        if !out.is_empty() {
            out.push('/');
        }
        encode_segment(&segment, &mut out);
    }
    out
}

/// The artifact location of `file`, relative to `cwd` (as `%SRCROOT%`) when it lies
/// there, else an absolute `file:` URI.
fn artifact_location(file: &str, cwd: Option<&Path>) -> ArtifactLocation {
    let path = Path::new(file);
    let relative = if path.is_absolute() {
        cwd.and_then(|cwd| path.strip_prefix(cwd).ok())
    } else {
        Some(path)
    };
    match relative {
        Some(relative) => ArtifactLocation {
            uri: uri_path(relative),
            uri_base_id: Some(SRCROOT),
        },
        None => ArtifactLocation {
            uri: format!("file:///{}", uri_path(path)),
            uri_base_id: None,
        },
    }
}

/// The region of `span`, placed by `lines`.
fn region(lines: &LineIndex, span: &Span) -> Region {
    let at = lines.span(span);
    Region {
        start_line: at.start.line,
        start_column: at.start.column,
        end_line: at.end.line,
        end_column: at.end.column,
        byte_offset: at.start.offset,
        byte_length: at.end.offset - at.start.offset,
    }
}

fn declarations(program: &Program) -> BTreeMap<&str, Span> {
    let imports = program
        .imports
        .iter()
        .map(|i| (i.name.name.as_str(), i.name.span.clone()));
    let methods = program.decls.iter().filter_map(|d| match d {
        Decl::Method(m) => Some((m.name.name.as_str(), m.name.span.clone())),
        _ => None,
    });
    imports.chain(methods).collect()
}

/// The steps of a thread flow for the moves of `trace` (with the values of
/// `concrete`), each at the location `place` gives it with its description; and the
/// nesting after the last move.
fn move_steps(
    trace: &Trace,
    concrete: &Trace,
    mut place: impl FnMut(&Move, String) -> Location,
) -> (Vec<ThreadFlowLocation>, usize) {
    let mut depth = 0usize;
    let mut steps = Vec::with_capacity(trace.0.len() + 1);
    for (n, (m, concrete)) in trace.0.iter().zip(&concrete.0).enumerate() {
        if m.dir == Dir::Ret {
            depth = depth.saturating_sub(1);
        }
        let who = match m.by {
            Player::Client => "the client",
            Player::Library => "the library",
        };
        let mut step = match m.dir {
            Dir::Call => format!(
                "{}. {who} calls {}({})",
                n + 1,
                m.method,
                m.value.as_argument()
            ),
            Dir::Ret => format!("{}. {who} returns {} from {}", n + 1, m.value, m.method),
        };
        if concrete != m {
            step.push_str(&format!(" (e.g. {concrete})"));
        }
        steps.push(ThreadFlowLocation {
            location: place(m, step),
            kinds: vec![match m.dir {
                Dir::Call => "call",
                Dir::Ret => "return",
            }],
            nesting_level: depth,
            execution_order: n + 1,
        });
        if m.dir == Dir::Call {
            depth += 1;
        }
    }
    (steps, depth)
}

impl<'r> Context<'r> {
    fn location(&self, span: &Span, message: Option<String>) -> Location {
        Location {
            id: None,
            physical_location: PhysicalLocation {
                artifact_location: self.artifact.clone(),
                region: Some(region(&self.lines, span)),
            },
            message: message.map(text),
        }
    }

    /// The source text of a span, for fingerprints that survive lines moving.
    fn snippet(&self, span: &Span) -> &'r str {
        self.report.source.get(span.clone()).unwrap_or("")
    }

    fn counterexample(&self, i: usize, c: &Counterexample) -> SarifResult {
        let (code, title, label) = failure_diagnostic(c.kind);
        let moves = c.trace.0.len();
        let what = match c.kind {
            FailureKind::Assert => "This assertion fails",
            FailureKind::Division => "This division divides by zero",
        };
        let mut message = format!("{what} after {moves} move{}: {}.", plural(moves), c.trace);
        if !c.model.is_empty() {
            message.push_str(&format!(
                " With {}, e.g. {}.",
                model_text(&c.model),
                c.concrete
            ));
        }
        match self.report.replayed.as_ref().and_then(|r| r.get(i)) {
            Some(Replay::Confirmed) => {
                message.push_str(" Confirmed by replaying a synthesized client.")
            }
            Some(Replay::Mismatch) => message.push_str(" NOT confirmed by replay: a bug in holi."),
            Some(Replay::TimeLimit) => {
                message.push_str(" Not replayed: the time limit came first.")
            }
            Some(Replay::Interrupted) => message.push_str(" Not replayed: interrupted."),
            None => {}
        }

        // Each move at the declaration of what it names; generated names (m1, f1, …)
        // have none, so they point at the failing expression.
        let (mut steps, depth) = move_steps(&c.trace, &c.concrete, |m, step| {
            let span = self.declarations.get(m.method.as_str()).unwrap_or(&c.span);
            self.location(span, Some(step))
        });
        steps.push(ThreadFlowLocation {
            location: self.location(&c.span, Some(format!("{}. {title}: {label}", moves + 1))),
            kinds: vec!["danger"],
            nesting_level: depth,
            execution_order: moves + 1,
        });

        let mut fingerprints = BTreeMap::new();
        let uri = &self.artifact.uri;
        let trace = c.trace.to_string();
        fingerprints.insert(
            FINGERPRINT_KEY,
            fnv1a(&[code, uri, self.snippet(&c.span), &trace]),
        );
        SarifResult {
            rule_id: code,
            rule_index: rule_index(code),
            level: "error",
            message: text(message),
            locations: [self.location(&c.span, None)],
            related_locations: Vec::new(),
            code_flows: vec![CodeFlow {
                message: text(format!("the trace of {moves} move{}", plural(moves))),
                thread_flows: vec![ThreadFlow { locations: steps }],
            }],
            partial_fingerprints: fingerprints,
        }
    }

    fn stuck(&self, site: &StuckSite) -> SarifResult {
        let reason = stuck_reason_text(&site.reason);
        let message = format!(
            "{} explored path{} got stuck here: {reason}. What would follow {} was not \
             explored, so failures beyond this place may be missed.",
            site.paths,
            plural(site.paths as usize),
            if site.paths == 1 { "it" } else { "them" }
        );
        let mut fingerprints = BTreeMap::new();
        fingerprints.insert(
            FINGERPRINT_KEY,
            fnv1a(&[
                STUCK_CODE,
                &self.artifact.uri,
                self.snippet(&site.span),
                &reason,
            ]),
        );
        SarifResult {
            rule_id: STUCK_CODE,
            rule_index: rule_index(STUCK_CODE),
            level: "warning",
            message: text(message),
            locations: [self.location(&site.span, None)],
            related_locations: Vec::new(),
            code_flows: Vec::new(),
            partial_fingerprints: fingerprints,
        }
    }

    fn warning(&self, d: &Diagnostic) -> SarifResult {
        let mut message = format!("{}.", d.title.trim_end_matches('.'));
        if let Some(hint) = &d.hint {
            message.push_str(&format!(" Hint: {hint}"));
        }
        // Labels in other files than the one checked have no source here to locate them.
        let mut labels = d
            .labels
            .iter()
            .filter(|label| label.file == self.report.file);
        let primary = labels.next();
        let span = primary.map_or(0..0, |label| label.span.clone());
        let related = labels
            .enumerate()
            .map(|(n, label)| Location {
                id: Some(n),
                ..self.location(&label.span, Some(label.message.clone()))
            })
            .collect();
        let mut fingerprints = BTreeMap::new();
        fingerprints.insert(
            FINGERPRINT_KEY,
            fnv1a(&[d.code, &self.artifact.uri, self.snippet(&span), &d.title]),
        );
        SarifResult {
            rule_id: d.code,
            rule_index: rule_index(d.code),
            level: match d.severity {
                Severity::Warning => "warning",
                Severity::Error => "error",
            },
            message: text(message),
            locations: [self.location(&span, primary.map(|l| l.message.clone()))],
            related_locations: related,
            code_flows: Vec::new(),
            partial_fingerprints: fingerprints,
        }
    }
}

impl Report<'_> {
    /// Writes the SARIF 2.1.0 log of this report to `out`, result by result, on one line
    /// followed by a newline. Artifact URIs are relative to the working directory (`%SRCROOT%`).
    pub fn write_sarif(&self, out: &mut dyn Write) -> io::Result<()> {
        let mut log = SarifLog::begin(out)?;
        log.run(self)?;
        log.finish()
    }

    /// This report's run alone, as [`SarifLog::run`] writes it into a log.
    pub fn write_sarif_run(&self, out: &mut dyn Write) -> io::Result<()> {
        let cwd = std::env::current_dir().ok();
        self.write_run(cwd.as_deref(), env!("CARGO_PKG_REPOSITORY"), out)
    }

    /// The SARIF log as a string (for small reports and tests).
    pub fn sarif(&self) -> String {
        let mut bytes = Vec::new();
        if let Err(e) = self.write_sarif(&mut bytes) {
            return format!("{{\"error\": \"{e}\"}}\n");
        }
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// This report's run of a SARIF log, with the working directory and repository URL
    /// given.
    fn write_run(
        &self,
        cwd: Option<&Path>,
        repository: &str,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let cx = Context {
            report: self,
            lines: self.lines(),
            artifact: artifact_location(self.file, cwd),
            declarations: self.program.map(declarations).unwrap_or_default(),
            left_out: Cell::new(0),
        };
        let docs = docs_base(repository);
        let rules = RULES
            .iter()
            .map(|r| {
                let warning = r.id.starts_with('W') || r.id == STUCK_CODE;
                r.rule(docs.as_deref(), if warning { "warning" } else { "error" })
            })
            .collect();
        let exit_code = self.exit_code();
        let mut notifications: Vec<Notification> = self
            .result
            .inconclusive
            .iter()
            .map(|reason| Notification {
                level: "warning",
                message: text(format!("The search is incomplete: {reason}")),
            })
            .collect();
        if let Some(replayed) = &self.replayed {
            for (n, _) in replayed
                .iter()
                .enumerate()
                .filter(|(_, r)| **r == Replay::Mismatch)
            {
                notifications.push(Notification {
                    level: "error",
                    message: text(format!(
                        "Counterexample {} does not replay: a bug in holi.",
                        n + 1
                    )),
                });
            }
        }
        let run = Run {
            tool: tool(rules, docs.as_deref()),
            invocations: [Invocation {
                // holi ran to its verdict; only a counterexample that does not replay
                // (a bug in holi) means it did not work as it should.
                execution_successful: !self.replay_failed(),
                exit_code,
                exit_code_description: match exit_code {
                    0 => "safe",
                    1 => "unsafe",
                    4 => "stuck",
                    _ => "inconclusive",
                },
                tool_execution_notifications: notifications,
            }],
            original_uri_base_ids: base_ids(cwd),
            column_kind: "unicodeCodePoints",
            results: Results(&cx),
            properties: RunProperties {
                verdict: verdict_name(self.result.verdict),
                k: self.k,
                l: self.l,
                all: self.all,
                failing_traces: self.result.failing_traces,
                stuck_paths: self.stuck_paths(),
                inconclusive: &self.result.inconclusive,
                unlisted: UnlistedCount(&cx.left_out),
                scope: self.scope_name(),
            },
        };
        serde_json::to_writer(out, &run).map_err(io::Error::from)
    }
}

/// A SARIF log written run by run: one run per checked file, each written as soon as
/// its report is known. Compact, unlike the JSON report: a log is for machines, and
/// indenting its deep nesting would triple its size (312 MB instead of 110 MB for
/// examples/dao.holi --all, where upload limits of code-scanning services are tens of MB).
pub struct SarifLog<'w> {
    out: BufWriter<&'w mut dyn Write>,
    runs: usize,
    cwd: Option<std::path::PathBuf>,
}

impl<'w> SarifLog<'w> {
    pub fn begin(out: &'w mut dyn Write) -> io::Result<SarifLog<'w>> {
        let mut out = BufWriter::new(out);
        write!(
            out,
            "{{\"$schema\":{},\"version\":\"2.1.0\",\"runs\":[",
            serde_json::to_string(SARIF_SCHEMA)?
        )?;
        Ok(SarifLog {
            out,
            runs: 0,
            cwd: std::env::current_dir().ok(),
        })
    }

    /// Appends the run of one report.
    pub fn run(&mut self, report: &Report) -> io::Result<()> {
        if self.runs > 0 {
            self.out.write_all(b",")?;
        }
        self.runs += 1;
        report.write_run(
            self.cwd.as_deref(),
            env!("CARGO_PKG_REPOSITORY"),
            &mut self.out,
        )
    }

    /// Appends a run [`Report::write_sarif_run`] wrote (a shard's, for `holi merge`).
    pub fn raw_run(&mut self, run: &str) -> io::Result<()> {
        if self.runs > 0 {
            self.out.write_all(b",")?;
        }
        self.runs += 1;
        self.out.write_all(run.as_bytes())
    }

    pub fn finish(mut self) -> io::Result<()> {
        self.out.write_all(b"]}\n")?;
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_relative_path_is_relative_to_the_source_root() {
        let at = artifact_location("./examples/my lib.holi", Some(Path::new("/work")));
        assert_eq!(at.uri, "examples/my%20lib.holi");
        assert_eq!(at.uri_base_id, Some(SRCROOT));
    }

    #[test]
    fn an_absolute_path_under_the_working_directory_becomes_relative() {
        let at = artifact_location("/work/repo/lib/a.holi", Some(Path::new("/work/repo")));
        assert_eq!(at.uri, "lib/a.holi");
        assert_eq!(at.uri_base_id, Some(SRCROOT));
    }

    #[test]
    fn an_absolute_path_elsewhere_is_a_file_uri() {
        let at = artifact_location("/tmp/ü#1.holi", Some(Path::new("/work")));
        assert_eq!(at.uri, "file:///tmp/%C3%BC%231.holi");
        assert_eq!(at.uri_base_id, None);
        assert_eq!(
            artifact_location("/tmp/a.holi", None).uri,
            "file:///tmp/a.holi"
        );
    }

    #[test]
    fn help_links_need_a_repository() {
        assert_eq!(docs_base(""), None);
        assert_eq!(
            docs_base("https://example.org/holi/").as_deref(),
            Some("https://example.org/holi/blob/HEAD/")
        );
    }

    #[test]
    fn fingerprints_are_a_fixed_function_of_their_parts() {
        // FNV-1a of the bytes "a", 0xff, as any implementation of the algorithm gives it.
        assert_eq!(fnv1a(&["a"]), "089bc907b544c769");
        assert_ne!(fnv1a(&["ab", "c"]), fnv1a(&["a", "bc"]));
    }
}
