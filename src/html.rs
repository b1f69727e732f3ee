//! The HTML reports (`holi check --report FILE`, `holi equiv --report FILE`): one
//! self-contained page.
//!
//! Inline CSS, inline SVG ([`crate::diagram`]), no script and nothing fetched, so the
//! page opens anywhere, offline, and can be attached to a bug report. Per checked file:
//! the verdict, bounds and statistics (the end of the text report); then, per failure
//! site, shortest trace first, the source with the failing `assert` highlighted and each
//! of its traces (collapsible, the first one open) as a sequence diagram, the trace with
//! its values, the call tree and the synthesized client. Every text from the library is
//! escaped. The page is written file by file and trace by trace, never held whole: a
//! `--all` report can list thousands of traces.

use crate::calltree::CallTree;
use crate::diagram::{self, escape, FailureNote};
use crate::equiv::{Compared, Parting, Replay, Shown, Verdict};
use crate::report::{model_text, plural, stuck_reason_text, verdict_name, LineIndex, Report};
use crate::symbolic::product::Side;
use crate::syntax::ast::Span;
use crate::trace::{Counterexample, FailureKind};
use std::cell::Cell;
use std::collections::HashMap;
use std::io::{self, Write};

/// Diagrams drawn per file; the traces after them are listed as text only, so that a
/// `--all` page stays small enough for a browser.
pub const MAX_DIAGRAMS: usize = 200;

const STYLE: &str = "
body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; margin: 0 auto;
  max-width: 1100px; padding: 1.5rem; color: #111827; line-height: 1.45; }
h1 { font-size: 1.4rem; margin: 0 0 .5rem; }
h1 code { font-size: 1.3rem; }
h4 { margin: 1rem 0 .3rem; font-size: .95rem; color: #374151; }
code, pre { font-family: ui-monospace, 'DejaVu Sans Mono', 'Liberation Mono', Menlo, monospace; }
pre.wrap { white-space: pre-wrap; overflow-wrap: anywhere; }
pre { background: #f9fafb; border: 1px solid #e5e7eb; border-radius: 6px; padding: .6rem .8rem;
  overflow-x: auto; font-size: .85rem; margin: .3rem 0; }
section.file { margin-bottom: 3rem; }
.verdict { font-weight: 600; padding: .6rem .9rem; border-radius: 6px; margin: .5rem 0; }
.verdict.unsafe { background: #fef2f2; color: #991b1b; border: 1px solid #fecaca; }
.verdict.safe { background: #f0fdf4; color: #166534; border: 1px solid #bbf7d0; }
.verdict.inconclusive, .verdict.stuck { background: #fffbeb; color: #92400e; border: 1px solid #fde68a; }
ul.facts { margin: .3rem 0 1rem; padding-left: 1.2rem; color: #374151; font-size: .9rem; }
details.site { border: 1px solid #d1d5db; border-radius: 8px; margin: 1rem 0; padding: 0 1rem; }
details.site > summary { font-weight: 600; padding: .7rem 0; cursor: pointer; }
details.trace { border-top: 1px solid #e5e7eb; padding: .2rem 0 .6rem; }
details.trace > summary { padding: .4rem 0; cursor: pointer; }
code.brief { font-size: .78rem; color: #4b5563; }
.source mark { background: #fecaca; color: #7f1d1d; border-radius: 2px; }
.source .ln { color: #9ca3af; user-select: none; }
figure { margin: .5rem 0; overflow-x: auto; }
figure svg { max-width: 100%; height: auto; }
.replay-confirmed { color: #166534; }
.replay-mismatch { color: #991b1b; font-weight: 600; }
.sides { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 1rem; }
.sides h3 { font-size: 1rem; margin: .5rem 0 .2rem; }
footer { color: #6b7280; font-size: .8rem; border-top: 1px solid #e5e7eb; padding-top: .5rem; }
";

/// The page, written as files are checked: [`HtmlReport::begin`], one
/// [`HtmlReport::add`] per file, [`HtmlReport::finish`].
pub struct HtmlReport<W: Write> {
    out: W,
}

/// The page's head, titled `title`, and the start of its body.
fn head(out: &mut dyn Write, title: &str) -> io::Result<()> {
    write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
    )
}

/// The page's footer, naming the command that wrote it, and its end.
fn foot(out: &mut dyn Write, command: &str) -> io::Result<()> {
    write!(
        out,
        "<footer>Written by holi {} (<code>{command}</code>): a self-contained \
         page, without scripts or network access.</footer>\n</body>\n</html>\n",
        crate::report::HOLI_VERSION
    )
}

impl<W: Write> HtmlReport<W> {
    pub fn begin(mut out: W) -> io::Result<HtmlReport<W>> {
        head(&mut out, "holi check report")?;
        Ok(HtmlReport { out })
    }

    /// A writer of sections only, without the page around them: a shard's share of a
    /// page (`holi check --shard`), which [`HtmlReport::add_section`] puts in place.
    pub fn sections(out: W) -> HtmlReport<W> {
        HtmlReport { out }
    }

    /// What was written, for [`HtmlReport::sections`].
    pub fn into_inner(self) -> W {
        self.out
    }

    /// A section [`HtmlReport::sections`] wrote, in its place on this page.
    pub fn add_section(&mut self, section: &[u8]) -> io::Result<()> {
        self.out.write_all(section)
    }

    /// The section of one checked file.
    pub fn add(&mut self, report: &Report) -> io::Result<()> {
        let out = &mut self.out;
        let left_out = Cell::new(0);
        let listed: Vec<(usize, &Counterexample)> = report.listed(&left_out).collect();
        let summary = report.summary_text(left_out.get());
        let mut summary = summary.lines();
        writeln!(
            out,
            "<section class=\"file\">\n<h1>holi check <code>{}</code></h1>",
            escape(report.file)
        )?;
        writeln!(
            out,
            "<p class=\"verdict {}\">{}</p>",
            verdict_name(report.result.verdict),
            escape(summary.next().unwrap_or(""))
        )?;
        writeln!(out, "<ul class=\"facts\">")?;
        writeln!(out, "<li>{}</li>", escape(&report.bounds_text()))?;
        for line in summary {
            writeln!(out, "<li>{}</li>", escape(line.trim()))?;
        }
        writeln!(out, "</ul>")?;

        // Counterexamples come sorted by length, so a site's first is its shortest and
        // sites in order of first appearance are shortest first.
        let mut sites: Vec<Vec<(usize, &Counterexample)>> = Vec::new();
        let mut index: HashMap<(FailureKind, usize, usize), usize> = HashMap::new();
        for (i, c) in listed {
            let key = (c.kind, c.span.start, c.span.end);
            let at = *index.entry(key).or_insert_with(|| {
                sites.push(Vec::new());
                sites.len() - 1
            });
            sites[at].push((i, c));
        }
        let lines = report.lines();
        let total = report.result.counterexamples.len();
        let mut drawn = 0;
        for site in &sites {
            let Some((_, first)) = site.first() else {
                continue;
            };
            let n = site.len();
            writeln!(
                out,
                "<details class=\"site\" open>\n<summary>{}: {n} trace{}, shortest {} move{}</summary>",
                escape(&report.failure_place(first)),
                plural(n),
                first.trace.0.len(),
                plural(first.trace.0.len())
            )?;
            writeln!(
                out,
                "<pre class=\"source\">{}</pre>",
                excerpt(report.source, &first.span, &lines)
            )?;
            for (j, &(i, c)) in site.iter().enumerate() {
                let draw = drawn < MAX_DIAGRAMS;
                drawn += usize::from(draw);
                trace(out, report, i, c, total, j == 0, draw)?;
            }
            writeln!(out, "</details>")?;
        }
        if drawn < sites.iter().map(Vec::len).sum::<usize>() {
            writeln!(
                out,
                "<p>Diagrams are drawn for the first {MAX_DIAGRAMS} traces; the others are \
                 listed as text.</p>"
            )?;
        }
        writeln!(out, "</section>")
    }

    pub fn finish(mut self) -> io::Result<()> {
        foot(&mut self.out, "holi check --report")?;
        self.out.flush()
    }
}

/// One counterexample, collapsible: its diagram, trace, values, call tree and client.
fn trace(
    out: &mut dyn Write,
    report: &Report,
    i: usize,
    c: &Counterexample,
    total: usize,
    open: bool,
    draw: bool,
) -> io::Result<()> {
    let replay = match report.replayed.as_ref().and_then(|r| r.get(i)) {
        Some(r) => {
            let class = match r.finished() {
                Some(true) => "replay-confirmed",
                Some(false) => "replay-mismatch",
                None => "replay-none",
            };
            format!(" — <span class=\"{class}\">{}</span>", escape(r.text()))
        }
        None => String::new(),
    };
    let moves = c.trace.0.len();
    writeln!(
        out,
        "<details class=\"trace\"{}>\n<summary>Trace {}/{total}: {moves} move{}{replay}\
         <br><code class=\"brief\">{}</code></summary>",
        if open { " open" } else { "" },
        i + 1,
        plural(moves),
        // Folded traces are scanned by their text.
        escape(&c.trace.to_string())
    )?;
    if draw {
        let note = FailureNote::new(c, report.file, report.source);
        writeln!(
            out,
            "<figure>\n{}</figure>",
            diagram::svg(c, report.k, &note)
        )?;
    }
    writeln!(
        out,
        "<h4>Trace</h4>\n<pre class=\"wrap\">{}</pre>",
        escape(&c.trace.to_string())
    )?;
    if !c.model.is_empty() {
        writeln!(
            out,
            "<h4>With</h4>\n<pre class=\"wrap\">{}</pre>\n<h4>For example</h4>\n<pre class=\"wrap\">{}</pre>",
            escape(&model_text(&c.model)),
            escape(&c.concrete.to_string())
        )?;
    }
    let tree = CallTree::new(&c.trace).lines(&c.trace, &c.concrete, &report.failure_place(c), true);
    writeln!(
        out,
        "<h4>Call tree</h4>\n<pre>{}</pre>",
        escape(&tree.join("\n"))
    )?;
    match report.clients.as_ref().and_then(|c| c.get(i)) {
        Some(Some(path)) if !path.contains('\n') => writeln!(
            out,
            "<h4>Synthesized client</h4>\n<p>Written to <code>{}</code>.</p>",
            escape(path)
        )?,
        Some(Some(client)) => writeln!(
            out,
            "<h4>Synthesized client</h4>\n<pre>{}</pre>",
            escape(client)
        )?,
        _ => {}
    }
    writeln!(out, "</details>")
}

/// The page of `holi equiv --report`: the verdict, the bounds and what limited the
/// search, and, when a client tells the libraries apart, each library's run as a
/// sequence diagram, side by side, from the shared moves to where it parts from the
/// other, then the values, the replay and the client. `names` are the two files and
/// `sources` what their places refer to.
pub fn write_equiv(
    mut out: impl Write,
    c: &Compared,
    names: [&str; 2],
    sources: [&str; 2],
) -> io::Result<()> {
    let out: &mut dyn Write = &mut out;
    head(out, "holi equiv report")?;
    writeln!(
        out,
        "<section class=\"file\">\n<h1>holi equiv <code>{}</code> vs <code>{}</code></h1>",
        escape(names[0]),
        escape(names[1])
    )?;
    let (class, scope) = match (c.verdict, c.covered) {
        (Verdict::Equivalent, Some(b)) => ("safe", format!(" within {b}")),
        (Verdict::Inequivalent, _) => ("unsafe", format!(" within {}", c.bounds)),
        (v, _) => (v.name(), String::new()),
    };
    writeln!(
        out,
        "<p class=\"verdict {class}\">{}{}</p>\n<ul class=\"facts\">",
        c.verdict.name().to_uppercase(),
        escape(&scope)
    )?;
    match c.covered {
        Some(b) => writeln!(out, "<li>No client tells them apart within {b}.</li>")?,
        None => writeln!(out, "<li>No bounds were covered completely.</li>")?,
    }
    if let Some(b) = &c.beyond {
        writeln!(
            out,
            "<li>Larger bounds were not searched completely ({}): {}.</li>",
            b.bounds,
            escape(&b.why.join("; "))
        )?;
    }
    writeln!(
        out,
        "<li>Last comparison at {}: {} configurations, {} solver queries, {:.2} s.</li>",
        c.bounds, c.stats.configurations, c.stats.solver_queries, c.stats.seconds
    )?;
    for reason in &c.inconclusive {
        writeln!(out, "<li>Inconclusive: {}</li>", escape(reason))?;
    }
    for place in &c.stuck {
        let side = match place.side {
            Side::Left => 0,
            Side::Right => 1,
        };
        writeln!(
            out,
            "<li>Paths of the {} library got stuck ({}):</li>\n<pre class=\"source\">{}</pre>",
            place.side,
            escape(&stuck_reason_text(&place.reason)),
            excerpt(sources[side], &place.span, &LineIndex::new(sources[side]))
        )?;
    }
    writeln!(out, "</ul>")?;
    if let Some(d) = &c.difference {
        difference(out, c, d, sources)?;
    }
    writeln!(out, "</section>")?;
    foot(out, "holi equiv --report")?;
    out.flush()
}

/// A difference: the two runs side by side, the values, the replay, the client.
fn difference(out: &mut dyn Write, c: &Compared, d: &Shown, sources: [&str; 2]) -> io::Result<()> {
    let moves = d.moves();
    writeln!(
        out,
        "<h2>A client tells them apart after {moves} move{} ({})</h2>\n<div class=\"sides\">",
        plural(moves),
        escape(&d.what)
    )?;
    let sides = [
        ("left", &d.left, sources[0]),
        ("right", &d.right, sources[1]),
    ];
    for (i, &(side, parting, source)) in sides.iter().enumerate() {
        let (other, other_parting, _) = sides[1 - i];
        let elsewhere = format!("where the {other} library {}", other_parting);
        let mut trace = d.trace.clone();
        let mut concrete = d.concrete.clone();
        let (headline, code, span) = match parting {
            Parting::Moved {
                trace: t,
                concrete: m,
            } => {
                trace.0.push(t.clone());
                concrete.0.push(m.clone());
                (
                    format!("the {side} library parts here: {m}"),
                    elsewhere,
                    0..0,
                )
            }
            Parting::Failed { kind, span } => {
                let lines = LineIndex::new(source);
                let at = lines.span(span);
                let what = match kind {
                    FailureKind::Assert => "fails an assert",
                    FailureKind::Division => "divides by zero",
                };
                let code = source
                    .get(at.start.offset..at.end.offset)
                    .and_then(|t| t.lines().next())
                    .unwrap_or("")
                    .trim()
                    .to_string();
                (
                    format!("the {side} library {what} at line {}", at.start.line),
                    code,
                    span.clone(),
                )
            }
            Parting::Diverged => (format!("the {side} library diverges"), elsewhere, 0..0),
        };
        let run = Counterexample {
            kind: FailureKind::Assert,
            span,
            trace,
            concrete,
            model: d.model.clone(),
            locations: Vec::new(),
            valuation: None,
        };
        let note = FailureNote { headline, code };
        writeln!(
            out,
            "<div class=\"side\" data-side=\"{side}\">\n<h3>The {side} library</h3>\n<figure>\n{}</figure>\n</div>",
            diagram::svg(&run, c.bounds.k, &note)
        )?;
    }
    writeln!(out, "</div>")?;
    writeln!(
        out,
        "<h4>Moves both make</h4>\n<pre class=\"wrap\">{}</pre>",
        escape(&d.trace.to_string())
    )?;
    if !d.model.is_empty() {
        writeln!(
            out,
            "<h4>With</h4>\n<pre class=\"wrap\">{}</pre>",
            escape(&model_text(&d.model))
        )?;
    }
    let replay = match &d.replay {
        Replay::Confirmed { ends, .. } => format!(
            "<p class=\"replay-confirmed\">Replayed: run with each library, the client's main {} \
             on the left and {} on the right.</p>",
            escape(&ends[0].to_string()),
            escape(&ends[1].to_string())
        ),
        Replay::Mismatch { side, reason } => format!(
            "<p class=\"replay-mismatch\">Not replayed on the {side} side: {}</p>",
            escape(reason)
        ),
        Replay::NotReplayed(cutoff) => {
            format!("<p class=\"replay-mismatch\">Not replayed ({cutoff}).</p>")
        }
        Replay::Unwritten(why) => format!(
            "<p class=\"replay-mismatch\">No client was written: {}</p>",
            escape(why)
        ),
    };
    writeln!(out, "{replay}")?;
    match (&d.client_path, &d.client) {
        (Some(path), _) => writeln!(
            out,
            "<h4>Distinguishing client</h4>\n<p>Written to <code>{}</code>.</p>",
            escape(&path.display().to_string())
        ),
        (None, Some(client)) => writeln!(
            out,
            "<h4>Distinguishing client</h4>\n<pre>{}</pre>",
            escape(client)
        ),
        (None, None) => Ok(()),
    }
}

/// The lines of `source` around `span`, numbered, with the span marked.
fn excerpt(source: &str, span: &Span, lines: &LineIndex) -> String {
    let at = lines.span(span);
    let (first, last) = (at.start.line.saturating_sub(2), at.end.line + 2);
    let (start, end) = (at.start.offset, at.end.offset);
    let mut out = String::new();
    let mut offset = 0;
    for (n, line) in (1..).zip(source.split_inclusive('\n')) {
        let line_start = offset;
        offset += line.len();
        if n < first || n > last {
            continue;
        }
        let text = line.trim_end_matches(['\n', '\r']);
        let line_end = line_start + text.len();
        // The part of the span on this line, relative to the line.
        let (a, b) = (
            start.clamp(line_start, line_end) - line_start,
            end.clamp(line_start, line_end) - line_start,
        );
        let piece = |from: usize, to: usize| escape(text.get(from..to).unwrap_or(""));
        out.push_str(&format!("<span class=\"ln\">{n:>4} </span>"));
        if a < b {
            out.push_str(&format!(
                "{}<mark>{}</mark>{}",
                piece(0, a),
                piece(a, b),
                piece(b, text.len())
            ));
        } else {
            out.push_str(&escape(text));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_excerpt_marks_the_span_and_escapes_the_source() {
        let source = "a\nb < c\nassert (x < 0);\nd\ne\nf\n";
        let start = source.find("assert").unwrap_or(0);
        let span = Span {
            start,
            end: start + "assert (x < 0)".len(),
        };
        let text = excerpt(source, &span, &LineIndex::new(source));
        assert!(text.contains("<mark>assert (x &lt; 0)</mark>;"), "{text}");
        assert!(text.contains("   2 </span>b &lt; c"), "{text}");
        // Two lines around the span, no more.
        assert!(
            text.contains("   5 </span>e") && !text.contains("   6 </span>"),
            "{text}"
        );
    }

    #[test]
    fn a_span_across_lines_is_marked_on_each() {
        let source = "x\nassert (1 <\n 0)\n";
        let span = Span { start: 2, end: 17 };
        let text = excerpt(source, &span, &LineIndex::new(source));
        assert!(text.contains("<mark>assert (1 &lt;</mark>"), "{text}");
        assert!(text.contains("<mark> 0)</mark>"), "{text}");
        assert_eq!(text.lines().count(), 3, "no line after the last: {text}");
    }
}
