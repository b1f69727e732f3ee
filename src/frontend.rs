//! The front end as one call: read, lex, parse and check a HOLi file.
//!
//! Everything runs on a thread with a large stack so that deeply nested (but accepted)
//! programs cannot overflow the caller's stack; the parser itself refuses nesting beyond
//! [`MAX_NESTING`](crate::syntax::parser::MAX_NESTING).

use crate::diagnostics::{Diagnostic, Sources};
use crate::syntax::ast::Program;
use crate::syntax::{lexer, parser};
use crate::types;
use std::path::Path;

/// A file that passed the front end; `warnings` are the problems the semantics survives.
#[derive(Debug)]
pub struct Loaded {
    pub name: String,
    pub source: String,
    pub program: Program,
    pub warnings: Vec<Diagnostic>,
}

/// A file the front end rejected, with every diagnostic found (errors and warnings).
#[derive(Debug)]
pub struct Rejected {
    pub name: String,
    /// `None` when the file could not be read.
    pub source: Option<String>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Rejected {
    /// All diagnostics, rendered against the source.
    pub fn render(&self, color: bool) -> String {
        let sources = sources_of(&self.name, self.source.as_deref());
        render_all(&self.diagnostics, &sources, color)
    }
}

impl Loaded {
    /// The sources to render later diagnostics about this file against.
    pub fn sources(&self) -> Sources {
        sources_of(&self.name, Some(&self.source))
    }

    /// The warnings, rendered against the source.
    pub fn render_warnings(&self, color: bool) -> String {
        render_all(&self.warnings, &self.sources(), color)
    }
}

/// At most this many diagnostics are rendered per file; the rest are counted.
pub const MAX_RENDERED: usize = 50;

fn render_all(diagnostics: &[Diagnostic], sources: &Sources, color: bool) -> String {
    let mut out: String = diagnostics
        .iter()
        .take(MAX_RENDERED)
        .map(|d| d.render(sources, color))
        .collect();
    if diagnostics.len() > MAX_RENDERED {
        let more = diagnostics.len() - MAX_RENDERED;
        out.push_str(&format!("… and {more} more diagnostics\n"));
    }
    out
}

fn sources_of(name: &str, source: Option<&str>) -> Sources {
    let mut sources = Sources::new();
    if let Some(text) = source {
        sources.add(name, text);
    }
    sources
}

/// Stack for the front end's recursion over deep programs. Only touched pages are committed.
pub const STACK_SIZE: usize = 1 << 30;

/// Runs `f` on a thread with [`STACK_SIZE`] bytes of stack (or here, if no such thread can
/// be started; the nesting limit then still bounds the recursion).
pub fn with_large_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    let job = std::sync::Mutex::new(Some(f));
    let take = || job.lock().ok().and_then(|mut slot| slot.take());
    let spawned = std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name("holi-front-end".into())
            .stack_size(STACK_SIZE)
            .spawn_scoped(scope, || take().map(|f| f()));
        match handle.map(|h| h.join()) {
            Ok(Ok(value)) => value,
            Ok(Err(panic)) => std::panic::resume_unwind(panic),
            Err(_) => None,
        }
    });
    match spawned {
        Some(value) => value,
        None => match take() {
            Some(f) => f(),
            None => unreachable!("the job runs exactly once"),
        },
    }
}

/// Reads, lexes, parses and checks one file. Errors (and, under `strict`, warnings) reject it.
pub fn load(path: &Path, strict: bool) -> Result<Loaded, Rejected> {
    let name = path.display().to_string();
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(error) => {
            return Err(Rejected {
                diagnostics: vec![Diagnostic::error(
                    "E0000",
                    format!("I can't read `{name}`: {error}"),
                )
                .with_hint("Check the path and the file's permissions.")],
                name,
                source: None,
            })
        }
    };
    load_bytes(&name, bytes, strict)
}

/// [`load`] for file contents already in memory, which need not be UTF-8.
pub fn load_bytes(name: &str, bytes: Vec<u8>, strict: bool) -> Result<Loaded, Rejected> {
    match String::from_utf8(bytes) {
        Ok(source) => load_str(name, &source, strict),
        Err(error) => {
            let valid = error.utf8_error().valid_up_to();
            let source = String::from_utf8_lossy(error.as_bytes()).into_owned();
            // The lossy text keeps every byte before the first invalid one.
            let width = source[valid..].chars().next().map_or(1, char::len_utf8);
            Err(Rejected {
                diagnostics: vec![Diagnostic::error("E0006", "This file is not valid UTF-8")
                    .with_label(name, valid..valid + width, "invalid bytes start here")
                    .with_hint("HOLi sources are UTF-8 text; save the file as UTF-8.")],
                name: name.to_string(),
                source: Some(source),
            })
        }
    }
}

/// [`load`] for a source already in memory; `name` is used in diagnostics.
pub fn load_str(name: &str, source: &str, strict: bool) -> Result<Loaded, Rejected> {
    let diagnostics_and_program = with_large_stack(|| analyse(name, source));
    let (program, mut diagnostics) = diagnostics_and_program;
    if strict {
        diagnostics = diagnostics.into_iter().map(Diagnostic::escalate).collect();
    }
    let rejected = diagnostics.iter().any(Diagnostic::is_error);
    match program {
        Some(program) if !rejected => Ok(Loaded {
            name: name.to_string(),
            source: source.to_string(),
            program,
            warnings: diagnostics,
        }),
        _ => Err(Rejected {
            name: name.to_string(),
            source: Some(source.to_string()),
            diagnostics,
        }),
    }
}

/// Lex, parse and check; the program is returned whenever the syntax is well-formed.
fn analyse(name: &str, source: &str) -> (Option<Program>, Vec<Diagnostic>) {
    let (tokens, mut diagnostics) = lexer::lex(name, source);
    let (program, parse_diagnostics) = parser::parse_tokens(name, source, &tokens);
    diagnostics.extend(parse_diagnostics);
    if diagnostics.iter().any(Diagnostic::is_error) {
        // The program (if any) is dropped here, on the large stack.
        return (None, diagnostics);
    }
    let Some(program) = program else {
        return (None, diagnostics);
    };
    diagnostics.extend(types::check_program(name, &program));
    (Some(program), diagnostics)
}
