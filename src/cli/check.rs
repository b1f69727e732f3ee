//! `holi check FILE [--k K] [--l L]`: search for the client that breaks a library.
//!
//! Thin on purpose: load → resolve bounds → check → report. A later step that replays
//! counterexamples plugs in between `check` and the report (see [`Report`]).

use super::Outcome;
use crate::diagnostics::Diagnostic;
use crate::frontend::{self, Loaded};
use crate::replay;
use crate::report::{BoundSource, Report};
use crate::symbolic::{
    self, CheckOptions, Progress, Verdict, DEFAULT_K, DEFAULT_L, DEFAULT_SOLVER_TIMEOUT,
};
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The HOLi library to check.
    pub file: PathBuf,
    /// Open library frames allowed (overrides the file's `# set-bounds K L #`).
    #[arg(long)]
    pub k: Option<u32>,
    /// The client's call budget per context (overrides the file's header).
    #[arg(long)]
    pub l: Option<u32>,
    /// List every distinct failing trace, not only the shortest per failing assert.
    #[arg(long)]
    pub all: bool,
    /// Explore every configuration, without pruning those subsumed by one already
    /// explored nor calls to interchangeable revealed functions (for comparison;
    /// `--all` always does).
    #[arg(long)]
    pub no_memo: bool,
    /// Prune only client turns equal to one already explored up to renaming, not those
    /// whose symbolic values lie within ones already explored (for comparison).
    #[arg(long)]
    pub no_semantic: bool,
    /// Keep references whose contents cannot change what the library does (such as a
    /// counter nothing reads) in the comparison of client turns (for comparison).
    #[arg(long)]
    pub no_inert: bool,
    /// Keep exploring traces at least as long as the longest shortest trace once every
    /// failure site has one (for comparison).
    #[arg(long)]
    pub no_bound: bool,
    /// Do not first prove failure sites unreachable in an over-approximation where the
    /// client may reset every integer reference at each of its turns (for comparison).
    #[arg(long)]
    pub no_havoc: bool,
    /// Search the whole library at once, even when it splits into independent parts
    /// that can be checked one at a time (for comparison).
    #[arg(long)]
    pub no_split: bool,
    /// Stop at the first failing trace, searching shorter traces first: a shortest
    /// counterexample, sooner.
    #[arg(long, conflicts_with = "all")]
    pub first: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Stop the search after this many seconds (the result is then inconclusive unless
    /// a counterexample was found).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// Give up on one solver query after this many seconds (the branch is then
    /// undecided and the verdict inconclusive).
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_SOLVER_TIMEOUT.as_secs_f64())]
    pub solver_timeout: f64,
    /// Stop the search after this many configurations.
    #[arg(long, value_name = "N")]
    pub max_configurations: Option<u64>,
    /// Treat every front-end warning as an error.
    #[arg(long)]
    pub strict: bool,
    /// Write each counterexample's synthesized client to DIR/<file>-<n>.holi.
    #[arg(long, value_name = "DIR")]
    pub client: Option<PathBuf>,
    /// Do not run the synthesized clients to confirm the counterexamples.
    #[arg(long)]
    pub no_replay: bool,
}

/// A bound that came out as 0 (or negative/invalid time): bad input.
fn bound_error(loaded: &Loaded, what: &str, value: u32, source: BoundSource) -> Diagnostic {
    let d = Diagnostic::error(
        "E0401",
        format!("The bound {what} must be at least 1, not {value}"),
    );
    let d = match (source, &loaded.program.bounds) {
        (BoundSource::Header, Some(b)) => {
            d.with_label(&loaded.name, b.span.clone(), "bounds set here")
        }
        _ => d,
    };
    d.with_hint(match what {
        "k" => "k counts open library frames; the client's own call takes one, so k ≥ 1.",
        _ => "l is the number of calls the client may make per context; l ≥ 1.",
    })
}

pub fn run(args: CheckArgs) -> Outcome {
    let color_err = std::io::stderr().is_terminal();
    let loaded = match frontend::load(&args.file, args.strict) {
        Ok(loaded) => loaded,
        Err(rejected) => {
            eprint!("{}", rejected.render(color_err));
            return Outcome::BadInput;
        }
    };
    eprint!("{}", loaded.render_warnings(color_err));

    let header = loaded.program.bounds.as_ref();
    let resolve =
        |flag: Option<u32>, from_header: Option<u32>, default: u32| match (flag, from_header) {
            (Some(v), _) => (v, BoundSource::CommandLine),
            (None, Some(v)) => (v, BoundSource::Header),
            (None, None) => (default, BoundSource::Default),
        };
    let (k, k_source) = resolve(args.k, header.map(|b| b.k), DEFAULT_K);
    let (l, l_source) = resolve(args.l, header.map(|b| b.l), DEFAULT_L);
    let mut errors = Vec::new();
    if k == 0 {
        errors.push(bound_error(&loaded, "k", k, k_source));
    }
    if l == 0 {
        errors.push(bound_error(&loaded, "l", l, l_source));
    }
    let timeout = match args.timeout {
        Some(t) if !(t.is_finite() && t > 0.0) => {
            errors.push(Diagnostic::error(
                "E0402",
                format!("--timeout must be a positive number of seconds, not {t}"),
            ));
            None
        }
        t => t.map(Duration::from_secs_f64),
    };
    let solver_timeout = args.solver_timeout;
    if !(solver_timeout.is_finite() && solver_timeout > 0.0) {
        errors.push(Diagnostic::error(
            "E0402",
            format!("--solver-timeout must be a positive number of seconds, not {solver_timeout}"),
        ));
    }
    if !errors.is_empty() {
        let sources = loaded.sources();
        for e in errors {
            eprint!("{}", e.render(&sources, color_err));
        }
        return Outcome::BadInput;
    }

    let interrupt = Arc::new(AtomicBool::new(false));
    {
        let flag = Arc::clone(&interrupt);
        // Only fails if a handler is already set (then that one stays in charge).
        let _ = ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed));
    }
    let options = CheckOptions {
        k,
        l,
        all: args.all,
        memo: !args.no_memo,
        semantic: !args.no_semantic,
        inert: !args.no_inert,
        bound: !args.no_bound,
        split: !args.no_split,
        havoc: !args.no_havoc,
        first: args.first,
        timeout,
        solver_timeout: Some(Duration::from_secs_f64(solver_timeout)),
        max_configurations: args.max_configurations,
        interrupt: Some(interrupt),
        allow_stuck: false,
    };

    let bar = std::io::stderr()
        .is_terminal()
        .then(|| ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()));
    let mut progress = |p: &Progress| {
        if let Some(bar) = &bar {
            if p.elapsed >= Duration::from_secs(1) {
                let rate = p.configurations as f64 / p.elapsed.as_secs_f64().max(1e-9);
                bar.set_message(format!(
                    "{} configurations, depth {}, {:.0}/s, {} failing trace{} so far",
                    p.configurations,
                    p.depth,
                    rate,
                    p.counterexamples,
                    if p.counterexamples == 1 { "" } else { "s" }
                ));
                bar.tick();
            }
        }
    };
    let result = symbolic::check_with_progress(&loaded.program, &options, &mut progress);
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }

    // Every counterexample becomes a client; unless told otherwise, each is run to
    // confirm it. A counterexample that does not replay is a bug in holi: say so loudly.
    let confirmation = if args.no_replay && args.client.is_none() {
        None
    } else {
        let options = replay::ConfirmOptions {
            replay: !args.no_replay,
            client_dir: args.client.clone(),
        };
        let stem = args
            .file
            .file_stem()
            .map_or("client".into(), |s| s.to_string_lossy());
        match replay::confirm(&loaded.program, &result.counterexamples, &options, &stem) {
            Ok(c) => Some(c),
            Err(e) => {
                eprintln!("error: cannot write the synthesized clients: {e}");
                return Outcome::BadInput;
            }
        }
    };
    let replay_failed = confirmation
        .as_ref()
        .is_some_and(|c| !c.failures().is_empty());
    if let Some(c) = &confirmation {
        for (n, verdict) in c.failures() {
            eprintln!("error: holi bug: counterexample {n} does not replay: {verdict}");
        }
    }

    let report = Report {
        file: &loaded.name,
        source: &loaded.source,
        k,
        l,
        k_source,
        l_source,
        all: args.all,
        result: &result,
        replayed: confirmation.as_ref().filter(|_| !args.no_replay).map(|c| {
            c.verdicts
                .iter()
                .map(|v| v == &Some(replay::Verdict::Confirmed))
                .collect()
        }),
        // Under --all the text would repeat a whole client per trace: list paths only.
        clients: confirmation
            .as_ref()
            .filter(|_| !(args.all && args.client.is_none() && args.format == Format::Text))
            .map(|c| c.clients.clone()),
        warnings: &loaded.warnings,
        program: Some(&loaded.program),
    };
    match args.format {
        Format::Text => print!("{}", report.text(std::io::stdout().is_terminal())),
        Format::Json => print!("{}", report.json()),
    }
    if replay_failed {
        return Outcome::Inconclusive;
    }
    match result.verdict {
        Verdict::Unsafe => Outcome::Failure,
        Verdict::Safe => Outcome::Ok,
        Verdict::Inconclusive => Outcome::Inconclusive,
        Verdict::Stuck => Outcome::Stuck,
    }
}
