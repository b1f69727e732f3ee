//! How the command talks to people: colour, verbosity and the progress line.
//!
//! Colour follows the conventions of cargo and clippy: `--color always|never` decides;
//! under `auto` (the default) a stream is coloured only when it is a terminal and
//! `NO_COLOR` is unset or empty (<https://no-color.org>).

use clap::ValueEnum;
use std::io::{IsTerminal, Write};

/// Writes `text` to standard output. A reader that went away (`holi … | head`) is no
/// error of holi's: the rest of the output is dropped quietly, where `print!` would
/// panic. Any other failure is told on standard error.
pub fn out(text: &str) {
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            eprintln!("error: cannot write to standard output: {e}");
        }
        _ => {}
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// Colour a stream only when it is a terminal and `NO_COLOR` is not set.
    #[default]
    Auto,
    Always,
    Never,
}

/// The flags every subcommand takes.
#[derive(clap::Args, Debug)]
pub struct Flags {
    /// When to colour the output: auto (on a terminal, unless NO_COLOR is set), always,
    /// never.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Print only verdicts and errors: no warnings, progress, traces or statistics.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Print more: every counter of the search and the options in force.
    #[arg(short, long, global = true)]
    pub verbose: bool,
}

impl Flags {
    pub fn ui(&self) -> Ui {
        Ui::new(self.color, self.quiet, self.verbose)
    }
}

/// How much a command prints besides its result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verbosity {
    /// `-q`: verdicts and errors only; no warnings, progress, traces or statistics.
    Quiet,
    Normal,
    /// `-v`: also every counter of the search and the options in force.
    Verbose,
}

/// The decisions every subcommand shares.
#[derive(Clone, Copy, Debug)]
pub struct Ui {
    pub color_stdout: bool,
    pub color_stderr: bool,
    pub verbosity: Verbosity,
    /// Whether stderr is a terminal, where a progress line may be drawn.
    pub stderr_is_terminal: bool,
}

impl Ui {
    pub fn new(choice: ColorChoice, quiet: bool, verbose: bool) -> Ui {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let stdout_tty = std::io::stdout().is_terminal();
        let stderr_tty = std::io::stderr().is_terminal();
        let decide = |tty: bool| match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => tty && !no_color,
        };
        Ui {
            color_stdout: decide(stdout_tty),
            color_stderr: decide(stderr_tty),
            verbosity: if quiet {
                Verbosity::Quiet
            } else if verbose {
                Verbosity::Verbose
            } else {
                Verbosity::Normal
            },
            stderr_is_terminal: stderr_tty,
        }
    }

    pub fn quiet(&self) -> bool {
        self.verbosity == Verbosity::Quiet
    }

    pub fn verbose(&self) -> bool {
        self.verbosity == Verbosity::Verbose
    }

    /// Writes diagnostics (already rendered) to stderr unless they are only warnings
    /// and the user asked for quiet.
    pub fn warnings(&self, rendered: &str) {
        if !self.quiet() {
            eprint!("{rendered}");
        }
    }
}
