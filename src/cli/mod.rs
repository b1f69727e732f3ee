//! The command-line interface: argument parsing, dispatch, rendering and exit codes.
//!
//! Each subcommand lives in its own file and returns an [`Outcome`]; only this module
//! turns outcomes into process exit codes.

pub mod check;
pub mod explain;
pub mod fmt;
pub mod parse;
pub mod run;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// How a command ended. The numeric values are the documented exit codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing wrong: the input is well-formed, no failing trace exists within the bounds,
    /// or a program ran to completion.
    Ok = 0,
    /// A counterexample was found (`check`) or an assertion failed (`run`).
    Failure = 1,
    /// Bad input or usage: a lexical, syntax, type (under `--strict`) or bound error.
    BadInput = 2,
    /// The answer is not known: a limit, a timeout, an interruption, a solver `unknown`,
    /// or a counterexample that did not replay.
    Inconclusive = 3,
    /// No failing trace was found, but some explored paths got stuck (a call of an
    /// undeclared name, an ill-typed operation): what follows them is unexplored.
    Stuck = 4,
}

#[derive(Parser, Debug)]
#[command(
    name = "holi",
    version,
    about = "Find the client that breaks your higher-order library"
)]
pub struct Cli {
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
    /// Run a closed client, or a library linked with a client (exit 1 on a failing assert).
    Run(run::RunArgs),
    /// Explain a diagnostic code such as E0101 (without one, list every code).
    Explain(explain::ExplainArgs),
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    // Every stage recurses over the program; a large stack makes deep (accepted) nesting safe.
    let outcome = crate::frontend::with_large_stack(move || match cli.command {
        Command::Parse(args) => parse::run(args),
        Command::Fmt(args) => fmt::run(args),
        Command::Check(args) => check::run(args),
        Command::Run(args) => run::run(args),
        Command::Explain(args) => explain::run(args),
    });
    ExitCode::from(outcome as u8)
}
