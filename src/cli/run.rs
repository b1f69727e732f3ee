//! `holi run PROGRAM.holi` and `holi run LIBRARY.holi CLIENT.holi`: run a client.
//!
//! One file is a closed client (declarations plus `main`); two files are a library and a
//! client, linked as in paper Definition 3. Exit codes: 0 when `main` returns, 1 when an
//! `assert` fails or a division by zero happens, 2 for bad input or a link error, 3 when a
//! limit (steps, depth, memory, time) or Ctrl-C stops the run or the machine is stuck
//! (e.g. a call of an undeclared name).

use super::args::parse_seconds;
use super::exit::Outcome;
use super::ui::Ui;
use crate::concrete::{self, Cutoff, Failure, Limits, Linked, Side, Stop};
use crate::diagnostics::{Diagnostic, Sources};
use crate::frontend::{self, Loaded};
use crate::link::{self, Files};
use crate::trace::FailureKind;
use clap::Args;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const MIB: usize = 1 << 20;

#[derive(Args, Debug)]
pub struct RunArgs {
    /// A closed client, or a library followed by a client to link with it.
    #[arg(required = true, num_args = 1..=2, value_names = ["LIBRARY", "CLIENT"])]
    pub files: Vec<PathBuf>,
    /// Print each boundary move between library and client as it happens.
    #[arg(long)]
    pub trace: bool,
    /// Stop (exit 3) after this many evaluation steps.
    #[arg(long, default_value_t = Limits::default().max_steps)]
    pub max_steps: u64,
    /// Stop (exit 3) when this many calls are open at once.
    #[arg(long, default_value_t = Limits::default().max_depth)]
    pub max_depth: usize,
    /// Stop (exit 3) when the interpreter's estimated memory exceeds this many MiB.
    #[arg(long, value_name = "MIB", default_value_t = Limits::default().max_memory / MIB)]
    pub max_memory: usize,
    /// Stop (exit 3) after this many seconds.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub timeout: Option<Duration>,
    /// Treat every front-end warning as an error.
    #[arg(long)]
    pub strict: bool,
}

pub fn run(args: RunArgs, ui: &Ui) -> Outcome {
    let color = ui.color_stderr;
    // A timeout too long to add to now is no limit at all.
    let deadline = args.timeout.and_then(|t| Instant::now().checked_add(t));
    let mut loaded: Vec<Loaded> = Vec::new();
    for file in &args.files {
        match frontend::load(file, args.strict) {
            Ok(l) => {
                ui.warnings(&l.render_warnings(color));
                loaded.push(l);
            }
            Err(rejected) => {
                eprint!("{}", rejected.render(color));
                return Outcome::BadInput;
            }
        }
    }
    let mut sources = Sources::new();
    for l in &loaded {
        sources.add(&l.name, &l.source);
    }
    let (library, client) = match loaded.as_slice() {
        [client] => (None, client),
        [library, client] => (Some(library), client),
        _ => return Outcome::BadInput,
    };
    let linked = match library {
        None => {
            if client.program.main.is_none() {
                let d = Diagnostic::error("E0702", "this program has no `main`")
                    .with_label(&client.name, 0..0, "nothing to run")
                    .with_hint(
                        "add `main = { … };`, or run a library together with a client: \
                         `holi run LIBRARY.holi CLIENT.holi`",
                    );
                eprint!("{}", d.render(&sources, color));
                return Outcome::BadInput;
            }
            if let Some(import) = client.program.imports.first() {
                eprint!(
                    "{}",
                    unlinked_client(client, import).render(&sources, color)
                );
                return Outcome::BadInput;
            }
            Linked {
                library: None,
                client: &client.program,
            }
        }
        Some(library) => {
            let files = Files {
                library: &library.name,
                client: &client.name,
            };
            match link::link(&library.program, &client.program, files) {
                Ok(linked) => linked,
                Err(errors) => {
                    for d in errors {
                        eprint!("{}", d.render(&sources, color));
                    }
                    return Outcome::BadInput;
                }
            }
        }
    };
    let interrupt = Arc::new(AtomicBool::new(false));
    {
        let flag = Arc::clone(&interrupt);
        // Only fails if a handler is already set (then that one stays in charge).
        let _ = ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed));
    }
    let limits = Limits {
        max_steps: args.max_steps,
        max_depth: args.max_depth,
        max_memory: args.max_memory.saturating_mul(MIB),
        deadline,
        interrupt: Some(interrupt),
    };
    let show = args.trace;
    let result = concrete::run(linked, limits, &mut |mv| {
        if show {
            super::ui::out(&format!("{mv}\n"));
        }
    });
    let file_of = |side: Side| match (side, library) {
        (Side::Library, Some(l)) => l.name.as_str(),
        _ => client.name.as_str(),
    };
    match result.outcome {
        concrete::Outcome::Finished(value) => {
            super::ui::out(&format!("main returned {value}\n"));
            Outcome::Ok
        }
        concrete::Outcome::Failed(Failure { kind, span, side }) => {
            let (code, title, label) = match kind {
                FailureKind::Assert => ("E0801", "assertion failed", "this assert is 0"),
                FailureKind::Division => ("E0802", "division by zero", "the divisor is 0"),
            };
            let d = Diagnostic::error(code, title).with_label(file_of(side), span, label);
            eprint!("{}", d.render(&sources, color));
            Outcome::Failure
        }
        concrete::Outcome::Stopped(stop) => {
            let d = match stop {
                Stop::Stuck { reason, span, side } => {
                    Diagnostic::error("E0803", format!("the program is stuck: {reason}"))
                        .with_label(file_of(side), span, "here")
                        .with_hint("HOLiK silently drops such paths; no answer is known")
                }
                Stop::Diverged { span, side } => Diagnostic::error("E0809", "the program diverges")
                    .with_label(file_of(side), span, "`_bot_` never returns")
                    .with_hint("the run can never finish: `main` returns no value"),
                Stop::StepLimit(n) => {
                    Diagnostic::error("E0804", format!("stopped after {n} steps"))
                        .with_hint("raise --max-steps if the program should terminate")
                }
                Stop::DepthLimit(n) => {
                    Diagnostic::error("E0805", format!("stopped at call depth {n}"))
                        .with_hint("raise --max-depth if the recursion should terminate")
                }
                Stop::MemoryLimit { limit, span, side } => Diagnostic::error(
                    "E0806",
                    format!(
                        "stopped: the run would need more than {} MiB",
                        limit.div_ceil(MIB)
                    ),
                )
                .with_label(file_of(side), span, "while evaluating this")
                .with_hint(
                    "every open call, closure and big integer takes memory; raise \
                     --max-memory (MiB) if the program should terminate",
                ),
                Stop::Cutoff(Cutoff::TimeLimit) => Diagnostic::error(
                    "E0807",
                    format!(
                        "stopped after the time limit of {} s",
                        args.timeout.unwrap_or_default().as_secs_f64()
                    ),
                )
                .with_hint("raise --timeout if the program should terminate"),
                Stop::Cutoff(Cutoff::Interrupted) => {
                    Diagnostic::error("E0808", "interrupted (Ctrl-C)")
                }
            };
            eprint!("{}", d.render(&sources, color));
            Outcome::Inconclusive
        }
    }
}

/// A single file that imports names is a client meant to be linked with a library;
/// run alone, its first call of an import would be stuck.
fn unlinked_client(client: &Loaded, import: &crate::syntax::ast::Import) -> Diagnostic {
    let name = &import.name.name;
    let file = std::path::Path::new(&client.name)
        .file_name()
        .map_or(client.name.clone(), |f| f.to_string_lossy().into_owned());
    Diagnostic::error(
        "E0710",
        format!("this client imports `{name}` from a library, but no library is given"),
    )
    .with_label(&client.name, import.name.span.clone(), "imported here")
    .with_hint(format!(
        "run it with its library: `holi run LIBRARY.holi {file}`"
    ))
}
