//! `holi run PROGRAM.holi` and `holi run LIBRARY.holi CLIENT.holi`: run a client.
//!
//! One file is a closed client (declarations plus `main`); two files are a library and a
//! client, linked as in paper Definition 3. Exit codes: 0 when `main` returns, 1 when an
//! `assert` fails or a division by zero happens, 2 for bad input or a link error, 3 when a
//! limit stops the run or the machine is stuck (e.g. a call of an undeclared name).

use super::ui::Ui;
use super::Outcome;
use crate::concrete::{self, Failure, Limits, Linked, Side, Stop};
use crate::diagnostics::{Diagnostic, Sources};
use crate::frontend::{self, Loaded};
use crate::link::{self, Files};
use crate::trace::FailureKind;
use clap::Args;
use std::path::PathBuf;

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
    /// Treat every front-end warning as an error.
    #[arg(long)]
    pub strict: bool,
}

pub fn run(args: RunArgs, ui: &Ui) -> Outcome {
    let color = ui.color_stderr;
    let mut loaded: Vec<Loaded> = Vec::new();
    for file in &args.files {
        match frontend::load(file, args.strict) {
            Ok(l) => {
                eprint!("{}", l.render_warnings(color));
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
    let limits = Limits {
        max_steps: args.max_steps,
        max_depth: args.max_depth,
    };
    let show = args.trace;
    let result = concrete::run(linked, limits, &mut |mv| {
        if show {
            println!("{mv}");
        }
    });
    let file_of = |side: Side| match (side, library) {
        (Side::Library, Some(l)) => l.name.as_str(),
        _ => client.name.as_str(),
    };
    match result.outcome {
        concrete::Outcome::Finished(value) => {
            println!("main returned {value}");
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
                Stop::StepLimit(n) => {
                    Diagnostic::error("E0804", format!("stopped after {n} steps"))
                        .with_hint("raise --max-steps if the program should terminate")
                }
                Stop::DepthLimit(n) => {
                    Diagnostic::error("E0805", format!("stopped at call depth {n}"))
                        .with_hint("raise --max-depth if the recursion should terminate")
                }
            };
            eprint!("{}", d.render(&sources, color));
            Outcome::Inconclusive
        }
    }
}
