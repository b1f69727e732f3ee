//! `holi parse FILE... [--strict]`: check that files are well-formed HOLi.

use super::Outcome;
use crate::frontend;
use clap::Args;
use std::io::IsTerminal;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ParseArgs {
    /// The HOLi files to check (libraries or clients).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Treat every warning as an error.
    #[arg(long)]
    pub strict: bool,
}

/// Prints every diagnostic to stderr; exit 0 when all files load, 2 otherwise.
pub fn run(args: ParseArgs) -> Outcome {
    let color = std::io::stderr().is_terminal();
    let mut outcome = Outcome::Ok;
    for file in &args.files {
        match frontend::load(file, args.strict) {
            Ok(loaded) => eprint!("{}", loaded.render_warnings(color)),
            Err(rejected) => {
                eprint!("{}", rejected.render(color));
                outcome = Outcome::BadInput;
            }
        }
    }
    outcome
}
