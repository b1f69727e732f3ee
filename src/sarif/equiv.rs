//! The answer of `holi equiv` as SARIF 2.1.0 (`--format sarif`): one run.
//!
//! * When a client tells the libraries apart (and its runs confirmed it): one result,
//!   rule `D0001`, level `error`, at the left library's place where the two part (the
//!   failing expression, or the declaration of what its parting move names), with the
//!   right's place as a related location and one code flow of two thread flows, one per
//!   library: the shared moves, then the side's own parting.
//! * Each place where a side's paths got stuck: rule `D0002`, level `warning`.
//!
//! The run's properties carry the verdict, the bounds and the bounds covered; reasons
//! the answer is incomplete are tool notifications. The sides of a Hobbit file are
//! compared as translations, so their places are given as the file without a region.
//! `lang/equiv.md` documents the mapping; `tests/equiv_cli.rs` validates the output
//! against the official schema.

use super::{
    artifact_location, base_ids, declarations, docs_base, fnv1a, move_steps, region, text, tool,
    ArtifactLocation, CodeFlow, Invocation, Location, Notification, PhysicalLocation, RuleInfo,
    Run, SarifResult, ThreadFlow, ThreadFlowLocation, FINGERPRINT_KEY, SARIF_SCHEMA,
};
use crate::equiv::{Compared, EquivBounds, Parting, Replay, Shown, Verdict};
use crate::report::{plural, LineIndex};
use crate::symbolic::product::StuckPlace;
use crate::syntax::ast::{Program, Span};
use crate::trace::Move;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::Path;

const DIFFERENCE_CODE: &str = "D0001";
const STUCK_CODE: &str = "D0002";
const EQUIV_DOC: &str = "lang/equiv.md";

const DIFFERENCE_RULE: RuleInfo = RuleInfo {
    id: DIFFERENCE_CODE,
    short: "A client tells the two libraries apart",
    full: "Some client, within the bounds k, l and the unfoldings, sees the two libraries end \
           differently: the shortest trace of calls and returns after which they part, with \
           the client's values, shows how, and the synthesized client that does it was run \
           with each library.",
    doc: EQUIV_DOC,
};

const STUCK_RULE: RuleInfo = RuleInfo {
    id: STUCK_CODE,
    short: "Compared paths got stuck",
    full: "Paths of one library got stuck here (a call of an undeclared name, an ill-typed \
           operation): what would follow them was not compared.",
    doc: EQUIV_DOC,
};

/// One side of a comparison, as the SARIF log names it.
pub struct EquivFile<'a> {
    /// The file, as given on the command line.
    pub path: &'a str,
    /// Its source and program, when the places found are the file's (not for the sides
    /// of a Hobbit file, which are found in their translations).
    pub text: Option<(&'a str, &'a Program)>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Properties<'r> {
    command: &'static str,
    verdict: &'static str,
    scope: &'static str,
    bounds: Bounds,
    covered: Option<Bounds>,
    /// The larger bounds a deepening comparison stopped in, at a limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    beyond: Option<Bounds>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    inconclusive: &'r [String],
}

#[derive(Serialize)]
struct Bounds {
    k: u32,
    l: u32,
    unfold: u32,
    /// Absent without lists.
    #[serde(skip_serializing_if = "Option::is_none")]
    list_length: Option<u32>,
}

impl From<EquivBounds> for Bounds {
    fn from(b: EquivBounds) -> Bounds {
        Bounds {
            k: b.k,
            l: b.l,
            unfold: b.unfold,
            list_length: b.lists,
        }
    }
}

/// A side's file and how to place things in it.
struct SideFile<'a> {
    artifact: ArtifactLocation,
    lines: Option<LineIndex<'a>>,
    source: &'a str,
    declarations: BTreeMap<&'a str, Span>,
}

impl<'a> SideFile<'a> {
    fn new(file: &EquivFile<'a>, cwd: Option<&Path>) -> SideFile<'a> {
        SideFile {
            artifact: artifact_location(file.path, cwd),
            lines: file.text.map(|(source, _)| LineIndex::new(source)),
            source: file.text.map_or("", |(source, _)| source),
            declarations: file
                .text
                .map(|(_, program)| declarations(program))
                .unwrap_or_default(),
        }
    }

    /// A location at `span`, when this file's places are known; else the file.
    fn location(&self, span: Option<&Span>, message: Option<String>) -> Location {
        Location {
            id: None,
            physical_location: PhysicalLocation {
                artifact_location: self.artifact.clone(),
                region: self.lines.as_ref().zip(span).map(|(l, s)| region(l, s)),
            },
            message: message.map(text),
        }
    }

    /// Where a move is placed: the declaration of the method or import it names.
    fn declaration(&self, m: &Move) -> Option<&Span> {
        self.declarations.get(m.method.as_str())
    }

    /// Where a side's parting is placed.
    fn parting<'s>(&'s self, p: &'s Parting) -> Option<&'s Span> {
        match p {
            Parting::Moved { trace, .. } => self.declaration(trace),
            Parting::Failed { span, .. } => Some(span),
            Parting::Diverged => None,
        }
    }
}

/// The thread flow of one side: the shared moves, then its parting.
fn thread_flow(file: &SideFile, d: &Shown, parting: &Parting) -> ThreadFlow {
    let (mut steps, depth) = move_steps(&d.trace, &d.concrete, |m, step| {
        file.location(file.declaration(m), Some(step))
    });
    let n = d.trace.0.len() + 1;
    steps.push(ThreadFlowLocation {
        location: file.location(
            file.parting(parting),
            Some(format!("{n}. this library {}", parting)),
        ),
        kinds: vec!["danger"],
        nesting_level: depth,
        execution_order: n,
    });
    ThreadFlow { locations: steps }
}

/// The result of a confirmed difference.
fn difference(files: &[SideFile; 2], names: [&str; 2], d: &Shown) -> SarifResult {
    let moves = d.moves();
    let mut message = format!(
        "A client tells {} and {} apart after {moves} move{} ({}): ",
        names[0],
        names[1],
        plural(moves),
        d.what
    );
    if d.trace.0.is_empty() {
        message.push_str("at once, ");
    } else {
        message.push_str(&format!("both make {}; then ", d.trace));
    }
    message.push_str(&format!("the left {}, the right {}.", d.left, d.right));
    if !d.model.is_empty() {
        let model: Vec<String> = d.model.iter().map(|(k, v)| format!("{k} = {v}")).collect();
        message.push_str(&format!(" With {}.", model.join(", ")));
    }
    if let Replay::Confirmed { ends, .. } = &d.replay {
        message.push_str(&format!(
            " Confirmed: the synthesized client's main {} with the left and {} with the right.",
            ends[0], ends[1]
        ));
    }
    let mut fingerprints = BTreeMap::new();
    fingerprints.insert(
        FINGERPRINT_KEY,
        fnv1a(&[
            DIFFERENCE_CODE,
            &files[0].artifact.uri,
            &files[1].artifact.uri,
            &d.trace.to_string(),
            &d.left.to_string(),
            &d.right.to_string(),
        ]),
    );
    SarifResult {
        rule_id: DIFFERENCE_CODE,
        rule_index: Some(0),
        level: "error",
        message: text(message),
        locations: [files[0].location(files[0].parting(&d.left), None)],
        related_locations: vec![Location {
            id: Some(0),
            ..files[1].location(
                files[1].parting(&d.right),
                Some(format!("the right library {}", d.right)),
            )
        }],
        code_flows: vec![CodeFlow {
            message: text(format!(
                "the two libraries' runs, {moves} move{}",
                plural(moves)
            )),
            thread_flows: vec![
                thread_flow(&files[0], d, &d.left),
                thread_flow(&files[1], d, &d.right),
            ],
        }],
        partial_fingerprints: fingerprints,
    }
}

/// The result of a place where a side's paths got stuck.
fn stuck(files: &[SideFile; 2], place: &StuckPlace) -> SarifResult {
    let file = match place.side {
        crate::symbolic::product::Side::Left => &files[0],
        crate::symbolic::product::Side::Right => &files[1],
    };
    let reason = crate::report::stuck_reason_text(&place.reason);
    let mut fingerprints = BTreeMap::new();
    let snippet = file.source.get(place.span.clone()).unwrap_or("");
    fingerprints.insert(
        FINGERPRINT_KEY,
        fnv1a(&[STUCK_CODE, &file.artifact.uri, snippet, &reason]),
    );
    SarifResult {
        rule_id: STUCK_CODE,
        rule_index: Some(1),
        level: "warning",
        message: text(format!(
            "Paths of the {} library got stuck here: {reason}. What would follow them was \
             not compared, so differences beyond this place may be missed.",
            place.side
        )),
        locations: [file.location(Some(&place.span), None)],
        related_locations: Vec::new(),
        code_flows: Vec::new(),
        partial_fingerprints: fingerprints,
    }
}

/// Writes the SARIF log of `compared`, the comparison of `files`, to `out` on one line.
pub fn write_equiv(
    compared: &Compared,
    files: [EquivFile; 2],
    out: &mut dyn Write,
) -> io::Result<()> {
    let cwd = std::env::current_dir().ok();
    let names = [files[0].path, files[1].path];
    let sides = files.map(|f| SideFile::new(&f, cwd.as_deref()));
    let docs = docs_base(env!("CARGO_PKG_REPOSITORY"));
    let rules = vec![
        DIFFERENCE_RULE.rule(docs.as_deref(), "error"),
        STUCK_RULE.rule(docs.as_deref(), "warning"),
    ];
    let mut results = Vec::new();
    if let (Verdict::Inequivalent, Some(d)) = (compared.verdict, &compared.difference) {
        results.push(difference(&sides, names, d));
    }
    results.extend(compared.stuck.iter().map(|p| stuck(&sides, p)));
    let exit_code: u8 = match compared.verdict {
        Verdict::Equivalent => 0,
        Verdict::Inequivalent => 1,
        Verdict::Inconclusive => 3,
        Verdict::Stuck => 4,
    };
    let run = Run {
        tool: tool(rules, docs.as_deref()),
        invocations: [Invocation {
            execution_successful: true,
            exit_code,
            exit_code_description: compared.verdict.name(),
            tool_execution_notifications: compared
                .inconclusive
                .iter()
                .map(|reason| Notification {
                    level: "warning",
                    message: text(format!("The comparison is incomplete: {reason}")),
                })
                .chain(compared.beyond.iter().flat_map(|b| {
                    b.why.iter().map(move |reason| Notification {
                        level: "note",
                        message: text(format!(
                            "Larger bounds ({}) were not searched completely: {reason}",
                            b.bounds
                        )),
                    })
                }))
                .collect(),
        }],
        original_uri_base_ids: base_ids(cwd.as_deref()),
        column_kind: "unicodeCodePoints",
        results,
        properties: Properties {
            command: "equiv",
            verdict: compared.verdict.name(),
            scope: "bounded",
            bounds: compared.bounds.into(),
            covered: compared.covered.map(Bounds::from),
            beyond: compared.beyond.as_ref().map(|b| Bounds::from(b.bounds)),
            inconclusive: &compared.inconclusive,
        },
    };
    write!(
        out,
        "{{\"$schema\":{},\"version\":\"2.1.0\",\"runs\":[",
        serde_json::to_string(SARIF_SCHEMA)?
    )?;
    serde_json::to_writer(&mut *out, &run).map_err(io::Error::from)?;
    out.write_all(b"]}\n")
}
