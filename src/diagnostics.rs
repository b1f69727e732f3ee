//! Diagnostics as plain data, rendered with ariadne.
//!
//! Every stage reports problems as [`Diagnostic`] values (title, severity, labelled spans,
//! hint) and never prints or panics itself; the CLI decides how to render them and which
//! exit code follows. Keeping them as data makes them easy to snapshot-test and to count.

use crate::syntax::ast::Span;
use ariadne::{Color, Config, IndexType, Label as ALabel, Report, ReportKind, Source};
use std::fmt;

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
            .push((name.to_string(), Source::from(text.to_string())));
    }

    fn get(&self, name: &str) -> Option<&Source<String>> {
        self.files
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, source)| source)
    }
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

impl Diagnostic {
    /// Renders this diagnostic as an ariadne report. `color` is off for files and tests.
    pub fn render(&self, sources: &Sources, color: bool) -> String {
        let kind = match self.severity {
            Severity::Error => ReportKind::Error,
            Severity::Warning => ReportKind::Warning,
        };
        let mut out = Vec::new();
        let Some(primary) = self
            .labels
            .iter()
            .find(|label| sources.get(&label.file).is_some())
        else {
            // Nothing to point at (e.g. an unreadable file): a plain one-line report.
            let hint = self
                .hint
                .as_ref()
                .map(|h| format!("\n  help: {h}"))
                .unwrap_or_default();
            return format!("{}[{}]: {}{hint}\n", self.severity, self.code, self.title);
        };
        let mut report = Report::build(kind, (primary.file.clone(), primary.span.clone()))
            // Spans are byte offsets.
            .with_config(
                Config::default()
                    .with_color(color)
                    .with_index_type(IndexType::Byte),
            )
            .with_code(self.code)
            .with_message(&self.title);
        // In source order: ariadne starts a new snippet (repeating the header) whenever a
        // label lies above the previous one.
        let mut labels: Vec<(usize, &Label)> = self.labels.iter().enumerate().collect();
        labels.sort_by_key(|(_, label)| (label.file.clone(), label.span.start));
        for (i, label) in labels {
            if sources.get(&label.file).is_none() {
                continue;
            }
            let mut l =
                ALabel::new((label.file.clone(), label.span.clone())).with_message(&label.message);
            if color {
                l = l.with_color(if i == 0 { Color::Red } else { Color::Blue });
            }
            report = report.with_label(l);
        }
        if let Some(hint) = &self.hint {
            report = report.with_help(hint);
        }
        if report.finish().write(sources, &mut out).is_err() {
            return format!("{}[{}]: {}\n", self.severity, self.code, self.title);
        }
        String::from_utf8_lossy(&out).into_owned()
    }
}
