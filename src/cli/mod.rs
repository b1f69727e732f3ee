//! The command-line interface: argument parsing, dispatch, rendering and exit codes.
//!
//! Each subcommand lives in its own file and returns an [`Outcome`]; only this module
//! turns outcomes into process exit codes. [`ui`] holds what every subcommand shares
//! (colour, verbosity), [`inputs`] how files, directories and `-` become inputs.

pub mod args;
pub mod check;
pub mod equiv;
pub mod exit;
pub mod explain;
pub mod fmt;
pub mod inputs;
pub mod merge;
pub mod parse;
pub mod run;
pub mod shard;
pub mod ui;

use clap::{CommandFactory, Parser, Subcommand};
pub use exit::Outcome;
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "holi",
    version,
    about = "Find the client that breaks your higher-order library",
    after_help = "Exit codes: 0 nothing wrong, 1 counterexample (or failed assert in `run`), \
                  2 bad input or usage, 3 inconclusive, 4 no counterexample but stuck paths.\n\
                  Documentation: lang/README.md; `holi explain CODE` for a diagnostic code."
)]
pub struct Cli {
    #[command(flatten)]
    flags: ui::Flags,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Check that HOLi files are well-formed and well-typed (warnings are printed).
    Parse(parse::ParseArgs),
    /// Print a HOLi file in canonical form.
    Fmt(fmt::FmtArgs),
    /// Search for a client that drives the library into a failing assert (bounded by k, l).
    Check(check::CheckArgs),
    /// Search for a client that tells two libraries apart (bounded by k, l; exit 1 when
    /// one does).
    Equiv(equiv::EquivArgs),
    /// Run a closed client, or a library linked with a client (exit 1 on a failing assert).
    Run(run::RunArgs),
    /// Explain a diagnostic code such as E0101 (without one, list every code).
    Explain(explain::ExplainArgs),
    /// Print a shell completion script for holi to standard output.
    Completions {
        /// The shell to complete for.
        shell: clap_complete::Shell,
    },
    /// Print holi's manual page (roff, for `man -l -`) to standard output.
    Man,
    /// Serve an editor: a language server on standard input and output (`lang/editors.md`).
    Lsp,
    /// Join the parts of a sharded `holi check … --shard I/N` into the report of the
    /// whole run (`lang/shards.md`).
    Merge(merge::MergeArgs),
}

/// The clap definition, for completions and the manual page.
pub fn command() -> clap::Command {
    Cli::command()
}

fn completions(shell: clap_complete::Shell) -> Outcome {
    let mut cmd = command();
    // Into memory first: the generator panics on a failed write.
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, "holi", &mut script);
    ui::out(&String::from_utf8_lossy(&script));
    Outcome::Ok
}

fn solver_worker() -> Outcome {
    match crate::symbolic::worker::serve() {
        Ok(()) => Outcome::Ok,
        Err(e) => {
            eprintln!("error: {e}");
            Outcome::BadInput
        }
    }
}

fn man() -> Outcome {
    let mut out = Vec::new();
    let rendered = clap_mangen::Man::new(command()).render(&mut out);
    // Subcommands get their own sections, so `man holi` documents every flag.
    let subcommands = command()
        .get_subcommands()
        .cloned()
        .collect::<Vec<_>>()
        .into_iter()
        .try_for_each(|sub| {
            let title = format!(".SH \"HOLI {}\"\n", sub.get_name().to_uppercase());
            out.extend_from_slice(title.as_bytes());
            if let Some(about) = sub.get_about() {
                out.extend_from_slice(format!("{about}\n").as_bytes());
            }
            clap_mangen::Man::new(sub).render_options_section(&mut out)
        });
    match rendered.and(subcommands) {
        Ok(()) => {
            ui::out(&String::from_utf8_lossy(&out));
            Outcome::Ok
        }
        Err(e) => {
            eprintln!("error: cannot render the manual page: {e}");
            Outcome::BadInput
        }
    }
}

pub fn main() -> ExitCode {
    // Not a subcommand of the interface: `holi check` starts it ([`crate::symbolic::worker`]).
    if std::env::args_os()
        .nth(1)
        .is_some_and(|a| a == crate::symbolic::worker::COMMAND)
    {
        return ExitCode::from(solver_worker() as u8);
    }
    let cli = Cli::parse();
    let ui = cli.flags.ui();
    // Every stage recurses over the program; a large stack makes deep (accepted) nesting safe.
    let outcome = crate::frontend::with_large_stack(move || match cli.command {
        Command::Parse(args) => parse::run(args, &ui),
        Command::Fmt(args) => fmt::run(args, &ui),
        Command::Check(args) => {
            // A new thread: nothing has used Z3 on it yet.
            crate::symbolic::context::reserve_default();
            check::run(args, &ui)
        }
        Command::Equiv(args) => {
            crate::symbolic::context::reserve_default();
            equiv::run(args, &ui)
        }
        Command::Run(args) => run::run(args, &ui),
        Command::Completions { shell } => completions(shell),
        Command::Man => man(),
        Command::Lsp => match crate::lsp::serve_stdio() {
            Ok(()) => Outcome::Ok,
            Err(e) => {
                eprintln!("error: {e}");
                Outcome::BadInput
            }
        },
        Command::Explain(args) => explain::run(args),
        Command::Merge(args) => {
            crate::symbolic::context::reserve_default();
            merge::run(args, &ui)
        }
    });
    exit_now(outcome as u8)
}

/// Ends the process with `code` once what it wrote is flushed, without running the
/// static destructors of the libraries it links. A projection helper abandoned inside
/// Z3 may still run ([`crate::symbolic::worker::QeThread`]): `exit` would tear Z3's
/// global state down under it, which crashed `holi check` (SIGFPE inside
/// `Z3_tactic_apply`) in about one run in two hundred of HOLiK's various_safe_no_awk
/// at k4 l4.
fn exit_now(code: u8) -> ExitCode {
    use std::io::Write as _;
    // Nothing is left to report an error to.
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    // SAFETY: `_exit` ends the process at once; no Rust code runs after it, so no
    // invariant of this program can be observed broken.
    unsafe { libc::_exit(i32::from(code)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clap_definition_is_consistent() {
        command().debug_assert();
    }
}
