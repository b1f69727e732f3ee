//! `holi parse FILE... [--strict]`: check that files are well-formed HOLi.

use super::exit::Outcome;
use super::inputs;
use super::ui::Ui;
use crate::diagnostics::Sources;
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ParseArgs {
    /// The HOLi files to check (libraries or clients): files, directories (every
    /// `*.holi` below them), or `-` for standard input.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Treat every warning as an error.
    #[arg(long)]
    pub strict: bool,
}

/// Prints every diagnostic to stderr; exit 0 when all files load, 2 otherwise. With
/// several files, a summary line on stdout counts them.
pub fn run(args: ParseArgs, ui: &Ui) -> Outcome {
    let color = ui.color_stderr;
    let inputs = match inputs::expand(&args.files) {
        Ok(inputs) => inputs,
        Err(d) => {
            eprint!("{}", d.render(&Sources::new(), color));
            return Outcome::BadInput;
        }
    };
    let mut rejected = 0;
    let mut warned = 0;
    for input in &inputs {
        match input.load(args.strict) {
            Ok(loaded) => {
                warned += usize::from(!loaded.warnings.is_empty());
                ui.warnings(&loaded.render_warnings(color));
            }
            Err(r) => {
                eprint!("{}", r.render(color));
                rejected += 1;
            }
        }
    }
    if inputs.len() > 1 && !ui.quiet() {
        super::ui::out(&format!(
            "Parsed {} files: {} well-formed ({} with warnings), {} rejected\n",
            inputs.len(),
            inputs.len() - rejected,
            warned,
            rejected
        ));
    }
    if rejected > 0 {
        Outcome::BadInput
    } else {
        Outcome::Ok
    }
}
