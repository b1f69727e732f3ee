//! Diagnostics as plain data, rendered with ariadne.
//!
//! Every stage reports problems as [`Diagnostic`] values (title, severity, labelled spans,
//! hint) and never prints or panics itself; the CLI decides how to render them and which
//! exit code follows. Keeping them as data makes them easy to snapshot-test and to count.

use ariadne::{Color, Config, IndexType, Label as ALabel, Report, ReportKind, Source};
use std::fmt;
use std::ops::Range;

/// Byte offsets into one source file: where a diagnostic points, and where every node
/// of the syntax came from (re-exported as [`crate::syntax::ast::Span`]).
pub type Span = Range<usize>;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Warning,
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Severity::Warning => write!(f, "warning"),
            Severity::Error => write!(f, "error"),
        }
    }
}

/// A span in a named source, with a message. The first label of a diagnostic is its
/// primary location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    /// The path (or display name) of the source the span belongs to.
    pub file: String,
    pub span: Span,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// A stable short code, e.g. `E0101`, so that users and tests can refer to a kind of problem.
    pub code: &'static str,
    pub title: String,
    pub labels: Vec<Label>,
    pub hint: Option<String>,
}

impl Diagnostic {
    pub fn error(code: &'static str, title: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            code,
            title: title.into(),
            labels: Vec::new(),
            hint: None,
        }
    }

    pub fn warning(code: &'static str, title: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, title)
        }
    }

    pub fn with_label(mut self, file: &str, span: Span, message: impl Into<String>) -> Diagnostic {
        self.labels.push(Label {
            file: file.to_string(),
            span,
            message: message.into(),
        });
        self
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Diagnostic {
        self.hint = Some(hint.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Under `--strict` every warning is an error.
    pub fn escalate(mut self) -> Diagnostic {
        self.severity = Severity::Error;
        self
    }
}

/// The source texts diagnostics may point into, by file name.
#[derive(Default)]
pub struct Sources {
    files: Vec<(String, Source<String>)>,
}

impl Sources {
    pub fn new() -> Sources {
        Sources::default()
    }

    pub fn add(&mut self, name: &str, text: &str) {
        self.files
            .push((name.to_string(), Source::from(display_copy(text))));
    }

    fn get(&self, name: &str) -> Option<&Source<String>> {
        self.files
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, source)| source)
    }
}

/// `text` as ariadne should see it so that its line:column agrees with an editor's (and with
/// [`crate::report::LineIndex`]): lines end at `\n` only. ariadne also breaks lines at a lone
/// CR, VT, FF, NEL, U+2028 and U+2029; each becomes a blank of the same length in bytes and
/// characters, so every byte offset and column stays put. A text ending in `\n` gets a blank
/// last line, so that a span at the very end is on the line after it, as in an editor.
fn display_copy(text: &str) -> String {
    let mut copy = String::with_capacity(text.len() + 1);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        copy.push(match c {
            '\r' if chars.peek() == Some(&'\n') => '\r',
            '\r' | '\x0B' | '\x0C' => ' ',
            // Two bytes, like NEL.
            '\u{0085}' => '\u{00A0}',
            // Three bytes, like the separators.
            '\u{2028}' | '\u{2029}' => '\u{2000}',
            c => c,
        });
    }
    if copy.ends_with('\n') {
        copy.push(' ');
    }
    copy
}

/// `span` clamped into `text` and onto character boundaries, so that a stray span can only
/// point at the wrong place, never make the renderer panic.
fn clamp(span: &Span, text: &str) -> Span {
    let boundary = |mut at: usize| {
        at = at.min(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        at
    };
    let start = boundary(span.start);
    start..boundary(span.end).max(start)
}

impl ariadne::Cache<String> for &Sources {
    type Storage = String;

    fn fetch(&mut self, id: &String) -> Result<&Source<String>, impl fmt::Debug> {
        self.get(id).ok_or_else(|| format!("unknown source {id}"))
    }

    fn display<'a>(&self, id: &'a String) -> Option<impl fmt::Display + 'a> {
        Some(id.clone())
    }
}

/// ANSI styles of the parts rustc and cargo colour.
const BOLD: &str = "\x1b[1m";
const BOLD_RED: &str = "\x1b[1;31m";
const BOLD_YELLOW: &str = "\x1b[1;33m";
const BOLD_CYAN: &str = "\x1b[1;36m";
const RESET: &str = "\x1b[0m";

impl Diagnostic {
    /// Renders this diagnostic in the style of rustc, cargo and Gleam: a header line
    /// `error[E0101]: title`, the source excerpt (drawn by ariadne) and `help: …`. `color`
    /// adds ANSI colours; without it the text has no escape sequence at all.
    pub fn render(&self, sources: &Sources, color: bool) -> String {
        let mut out = self.header(color);
        out.push_str(&self.snippet(sources, color));
        if let Some(hint) = &self.hint {
            let (on, off) = if color { (BOLD_CYAN, RESET) } else { ("", "") };
            let mut lines = hint.lines();
            let first = lines.next().unwrap_or_default();
            out.push_str(&format!("{on}help{off}: {first}\n"));
            for line in lines {
                out.push_str(&format!("      {line}\n"));
            }
        }
        out
    }

    /// `error[E0101]: title`, or `warning[W0201]: title`.
    fn header(&self, color: bool) -> String {
        let head = format!("{}[{}]", self.severity, self.code);
        if !color {
            return format!("{head}: {}\n", self.title);
        }
        let style = match self.severity {
            Severity::Error => BOLD_RED,
            Severity::Warning => BOLD_YELLOW,
        };
        format!("{style}{head}{RESET}{BOLD}: {}{RESET}\n", self.title)
    }

    /// The labelled source excerpt, or nothing when no label points into a known source
    /// (e.g. the file could not be read).
    fn snippet(&self, sources: &Sources, color: bool) -> String {
        let known: Vec<(usize, &Label, Span)> = self
            .labels
            .iter()
            .enumerate()
            .filter_map(|(i, label)| {
                let text = sources.get(&label.file)?.text();
                Some((i, label, clamp(&label.span, text)))
            })
            .collect();
        let Some((_, primary, primary_span)) = known.first() else {
            return String::new();
        };
        let kind = match self.severity {
            Severity::Error => ReportKind::Error,
            Severity::Warning => ReportKind::Warning,
        };
        let mut report = Report::build(kind, (primary.file.clone(), primary_span.clone()))
            // Spans are byte offsets.
            .with_config(
                Config::default()
                    .with_color(color)
                    .with_index_type(IndexType::Byte),
            );
        // In source order: ariadne starts a new snippet (repeating the location) whenever a
        // label lies above the previous one.
        let mut labels = known.clone();
        labels.sort_by_key(|(_, label, span)| (label.file.clone(), span.start));
        for (i, label, span) in labels {
            let mut l = ALabel::new((label.file.clone(), span)).with_message(&label.message);
            if color {
                l = l.with_color(if i == 0 { Color::Red } else { Color::Blue });
            }
            report = report.with_label(l);
        }
        let mut out = Vec::new();
        if report.finish().write(sources, &mut out).is_err() {
            return String::new();
        }
        let text = String::from_utf8_lossy(&out);
        // ariadne's own header (`Error:`) is replaced by ours.
        text.split_once('\n')
            .map_or_else(String::new, |(_, rest)| rest.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(text: &str, span: Span, color: bool) -> String {
        let mut sources = Sources::new();
        sources.add("f.holi", text);
        Diagnostic::error("E0101", "I was not expecting `}` here")
            .with_label("f.holi", span, "expected an expression")
            .with_hint("Close the bracket.")
            .render(&sources, color)
    }

    /// The `file:line:column` ariadne puts in the excerpt's top line.
    fn location(rendered: &str) -> String {
        let start = rendered.find("f.holi:").expect("a location") + "f.holi:".len();
        let end = start + rendered[start..].find(' ').expect("a closing space");
        rendered[start..end].to_string()
    }

    #[test]
    fn header_excerpt_and_help_in_the_rustc_style() {
        let rendered = render("m = { x };\n", 8..9, false);
        let lines: Vec<&str> = rendered.lines().collect();
        assert_eq!(lines[0], "error[E0101]: I was not expecting `}` here");
        assert!(lines[1].contains("╭─[ f.holi:1:9 ]"), "{rendered}");
        assert_eq!(
            lines.last(),
            Some(&"help: Close the bracket."),
            "{rendered}"
        );
        assert!(!rendered.contains("Error") && !rendered.contains("Help"));
        let warning = Diagnostic::warning("W0201", "Type mismatch");
        assert!(warning
            .render(&Sources::new(), false)
            .starts_with("warning[W0201]: Type mismatch\n"));
        assert!(warning
            .escalate()
            .render(&Sources::new(), false)
            .starts_with("error[W0201]: Type mismatch\n"));
    }

    #[test]
    fn without_a_source_the_header_and_help_alone() {
        let d = Diagnostic::error("E0000", "I can't read `x.holi`")
            .with_label("x.holi", 0..1, "here")
            .with_hint("Check the path.\nAnd the permissions.");
        assert_eq!(
            d.render(&Sources::new(), false),
            "error[E0000]: I can't read `x.holi`\nhelp: Check the path.\n      And the permissions.\n"
        );
    }

    #[test]
    fn lines_break_only_at_newlines_as_in_an_editor() {
        for separator in ["\r", "\x0B", "\x0C", "\u{0085}", "\u{2028}", "\u{2029}"] {
            let text = format!("// a{separator}b\nm = {{ x }};\n");
            let at = text.find('x').expect("an x");
            let rendered = render(&text, at..at + 1, false);
            assert_eq!(location(&rendered), "2:7", "{separator:?}\n{rendered}");
            // The excerpt shows the right line, numbered as the editor numbers it.
            assert!(
                rendered.contains(" 2 │ m = { x };"),
                "{separator:?}\n{rendered}"
            );
        }
        let crlf = "// a\r\nm = { x };\r\n";
        assert_eq!(location(&render(crlf, 12..13, false)), "2:7");
        // Columns count characters, not bytes.
        let wide = "// é\u{2028}é x\n";
        let at = wide.find('x').expect("an x");
        assert_eq!(location(&render(wide, at..at + 1, false)), "1:8");
    }

    #[test]
    fn the_end_of_a_file_after_its_final_newline_is_the_next_line() {
        let text = "m = { x\n";
        let rendered = render(text, text.len()..text.len(), false);
        assert_eq!(location(&rendered), "2:1", "{rendered}");
        assert_eq!(location(&render("m = { x", 7..7, false)), "1:8");
        assert_eq!(location(&render("", 0..0, false)), "1:1");
    }

    /// The excerpt's location and the JSON report's position of a counterexample agree.
    #[test]
    fn locations_agree_with_report_positions() {
        let text = "a\r\nb\rc\x0Bd\x0C\u{0085}é\u{2028}\u{2029}\t\n\nz\n";
        let lines = crate::report::LineIndex::new(text);
        for at in (0..=text.len()).filter(|&at| text.is_char_boundary(at)) {
            let p = lines.point(at);
            assert_eq!(
                location(&render(text, at..at, false)),
                format!("{}:{}", p.line, p.column),
                "at {at}"
            );
        }
    }

    #[test]
    fn spans_outside_the_text_are_clamped_not_a_panic() {
        assert_eq!(location(&render("m = x", 3..99, false)), "1:4");
        // Inside `é`: moved back to its start.
        assert_eq!(location(&render("é x", 1..2, false)), "1:1");
    }

    #[test]
    fn colour_only_when_asked() {
        let mut sources = Sources::new();
        sources.add("f.holi", "m = { x };\nn = { y };\n");
        let d = Diagnostic::warning("W0201", "Type mismatch")
            .with_label("f.holi", 17..18, "an int")
            .with_label("f.holi", 6..7, "a unit")
            .with_hint("Make them agree.");
        let plain = d.render(&sources, false);
        assert!(!plain.contains('\x1b'), "{plain:?}");
        let coloured = d.render(&sources, true);
        assert!(
            coloured.starts_with("\x1b[1;33mwarning[W0201]"),
            "{coloured:?}"
        );
        let strip = |s: &str| {
            let mut out = String::new();
            let mut rest = s;
            while let Some(at) = rest.find('\x1b') {
                out.push_str(&rest[..at]);
                rest = &rest[at..];
                rest = &rest[rest.find('m').map_or(rest.len(), |m| m + 1)..];
            }
            out + rest
        };
        assert_eq!(strip(&coloured), plain);
    }
}
