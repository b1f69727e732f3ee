//! `holi fmt FILE [--check]`: print a HOLi file in canonical form.

use super::ui::Ui;
use super::Outcome;
use crate::frontend;
use crate::syntax::printer::print_program;
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct FmtArgs {
    /// The HOLi file to print.
    pub file: PathBuf,
    /// Print nothing; exit 1 when the file is not already in canonical form.
    #[arg(long)]
    pub check: bool,
}

/// Prints the canonical text to stdout (warnings to stderr); exit 2 when the file does not
/// load. Comments are not part of the syntax tree and are not printed.
pub fn run(args: FmtArgs, ui: &Ui) -> Outcome {
    let color = ui.color_stderr;
    match frontend::load(&args.file, false) {
        Ok(loaded) => {
            eprint!("{}", loaded.render_warnings(color));
            let text = print_program(&loaded.program);
            if !args.check {
                // HOLi has no string literals, so these always start a comment.
                if loaded.source.contains("//") || loaded.source.contains("/*") {
                    eprintln!("note: comments in {} are not printed", loaded.name);
                }
                print!("{text}");
                Outcome::Ok
            } else if text == loaded.source {
                Outcome::Ok
            } else {
                eprintln!("{} is not in canonical form", loaded.name);
                Outcome::Failure
            }
        }
        Err(rejected) => {
            eprint!("{}", rejected.render(color));
            Outcome::BadInput
        }
    }
}
