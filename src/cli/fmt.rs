//! `holi fmt FILE… [--check | --write]`: HOLi files in canonical form, comments kept.

use super::exit::Outcome;
use super::ui::Ui;
use crate::frontend;
use crate::syntax::printer::format_source;
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct FmtArgs {
    /// The HOLi files to format.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Print nothing; exit 1 when a file is not already in canonical form, naming each.
    #[arg(long, conflicts_with = "write")]
    pub check: bool,
    /// Rewrite the files in place (only those that change) instead of printing them.
    #[arg(long)]
    pub write: bool,
}

/// Prints (or checks, or writes) the canonical text of every file, warnings to stderr.
/// Exit 2 when a file does not load or cannot be written (the other files are still
/// done), else 1 when `--check` finds a file not in canonical form.
pub fn run(args: FmtArgs, ui: &Ui) -> Outcome {
    let color = ui.color_stderr;
    let mut outcome = Outcome::Ok;
    for file in &args.files {
        let loaded = match frontend::load(file, false) {
            Ok(loaded) => loaded,
            Err(rejected) => {
                eprint!("{}", rejected.render(color));
                outcome = Outcome::BadInput;
                continue;
            }
        };
        ui.warnings(&loaded.render_warnings(color));
        let text = format_source(&loaded.program, &loaded.source);
        if args.check {
            if text != loaded.source {
                eprintln!("{} is not in canonical form", loaded.name);
                if outcome == Outcome::Ok {
                    outcome = Outcome::Failure;
                }
            }
        } else if args.write {
            if text != loaded.source {
                if let Err(error) = std::fs::write(file, &text) {
                    eprintln!("error: I can't write `{}`: {error}", loaded.name);
                    outcome = Outcome::BadInput;
                }
            }
        } else {
            super::ui::out(&text);
        }
    }
    outcome
}
