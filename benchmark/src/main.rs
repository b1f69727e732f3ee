//! `holi-bench`: benchmarks for holi. See `benchmark/README.md`.

mod compare;
mod generate;
mod hobbit;
mod lsp;
mod meta;
mod process;
mod proofs;
mod random;
mod record;
mod report;
mod runner;
mod scale;

use clap::{Args, Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

#[derive(Parser, Debug)]
#[command(
    name = "holi-bench",
    about = "Benchmark holi against the HOLiK results and on generated libraries"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run `holi check` over a directory of .holi files across a grid of bounds.
    Grid(GridArgs),
    /// Time two holi binaries against each other over a grid, interleaved cell by cell.
    Compare(compare::CompareArgs),
    /// (Re)write report.md of a grid or compare results directory (REPORT.md of random).
    Report(ReportArgs),
    /// Generate families of libraries and measure how holi's cost grows.
    Scale(scale::ScaleArgs),
    /// Prove the safe targets of issue 15 for every k and l: proof time and certificate size.
    Proofs(proofs::ProofsArgs),
    /// Check seeded random libraries with the default options and each `--no-X` option,
    /// and report where the default backfires.
    Random(random::RandomArgs),
    /// Run `holi equiv` on Hobbit's labelled pairs, beside Hobbit's reported answers.
    Hobbit(hobbit::HobbitArgs),
    /// Time `holi lsp` on the examples: keystroke to diagnostics, save to verdict.
    Lsp(lsp::LspArgs),
}

/// Options shared by `grid`, `scale` and `compare`: where holi is, how to run it, where
/// results go.
#[derive(Args, Debug, Clone)]
pub struct RunOptions {
    /// Wall-clock timeout per run, in seconds; the process group is killed at the deadline
    /// [default: 300 for grid and compare, the paper's; 30 for scale].
    #[arg(long)]
    timeout: Option<f64>,
    /// Runs to execute at the same time (timings are the point, so the default is 1).
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// Results go to benchmark/results/<date>-<NAME>/; an existing directory ending in
    /// -<NAME> is reused, and the cells already in its runs.csv are skipped.
    #[arg(long)]
    name: Option<String>,
    /// The results directory, instead of one derived from --name.
    #[arg(long)]
    out: Option<PathBuf>,
    /// The holi binary (default: `holi` beside this executable); for compare, the new one.
    #[arg(long)]
    holi: Option<PathBuf>,
    /// Record a cell as `skipped` (charged the full timeout) when the same file already
    /// timed out at a bound no larger in both k and l (in compare: with the same binary).
    #[arg(long)]
    skip_after_timeout: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    /// Extra arguments for every `holi check`, after `--`.
    #[arg(last = true)]
    holi_args: Vec<String>,
}

#[derive(Args, Debug)]
struct GridArgs {
    /// Directory of .holi files (default: ../shared/holik-bench/programs beside the repository).
    #[arg(long)]
    programs: Option<PathBuf>,
    /// Bounds k: N, A..B (inclusive) or A,B,C.
    #[arg(long, default_value = "2..5")]
    k: String,
    /// Bounds l: N, A..B (inclusive) or A,B,C.
    #[arg(long, default_value = "1..3")]
    l: String,
    /// HOLiK's reference.csv for the report (default: ../shared/holik-bench/reference.csv).
    #[arg(long)]
    reference: Option<PathBuf>,
    #[command(flatten)]
    run: RunOptions,
}

#[derive(Args, Debug)]
struct ReportArgs {
    /// A results directory written by `holi-bench grid` or `holi-bench compare`.
    dir: PathBuf,
    /// HOLiK's reference.csv (default: ../shared/holik-bench/reference.csv).
    #[arg(long)]
    reference: Option<PathBuf>,
    /// `random` only: slowdowns are ignored where both runs took less than this many
    /// seconds.
    #[arg(long, default_value_t = 0.1)]
    floor: f64,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Grid(args) => grid(args),
        Command::Compare(args) => compare::run(args),
        Command::Report(args) => {
            let reference = args.reference.unwrap_or_else(report::default_reference);
            let written = if random::is_random(&args.dir) {
                random::write_report(&args.dir, args.floor).map(|_| "REPORT.md")
            } else if compare::is_comparison(&args.dir) {
                compare::write_report(&args.dir).map(|_| "report.md")
            } else {
                report::write_report(&args.dir, &reference).map(|_| "report.md")
            };
            written.map(|name| {
                println!("wrote {}", args.dir.join(name).display());
            })
        }
        Command::Scale(args) => scale::run(args),
        Command::Proofs(args) => proofs::run(args),
        Command::Random(args) => random::run(args),
        Command::Hobbit(args) => hobbit::run(args),
        Command::Lsp(args) => lsp::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("holi-bench: {message}");
            ExitCode::FAILURE
        }
    }
}

fn grid(args: GridArgs) -> Result<(), String> {
    let programs = args
        .programs
        .unwrap_or_else(|| meta::repo_root().join("../shared/holik-bench/programs"));
    let files = runner::programs_in(&programs)?;
    let ks = meta::parse_bounds(&args.k)?;
    let ls = meta::parse_bounds(&args.l)?;
    let dir = results_dir(&args.run, "grid")?;
    let jobs = runner::grid_jobs(&files, &ks, &ls);
    let timeout = args.run.timeout.unwrap_or(300.0);
    let summary = execute(
        &args.run,
        timeout,
        &dir,
        &programs,
        files.len(),
        &ks,
        &ls,
        jobs,
        None,
    )?;
    let reference = args.reference.unwrap_or_else(report::default_reference);
    report::write_report(&dir, &reference)?;
    summary.finish(&dir.join("report.md"))
}

/// What `execute` did: a one-line description, and whether the user interrupted it.
pub struct Executed {
    pub text: String,
    pub interrupted: bool,
}

impl Executed {
    /// Prints the description; an interrupted run then fails, so scripts notice.
    pub fn finish(self, report: &Path) -> Result<(), String> {
        println!("{}\nwrote {}", self.text, report.display());
        if self.interrupted {
            Err("interrupted; rerun the same command to resume".to_string())
        } else {
            Ok(())
        }
    }
}

/// Records the invocation, runs the jobs into `dir/runs.csv`, and describes what happened.
/// `compare` names the baseline binary that runs the jobs tagged `baseline`.
#[allow(clippy::too_many_arguments)]
pub fn execute(
    options: &RunOptions,
    timeout: f64,
    dir: &Path,
    programs: &Path,
    files: usize,
    ks: &[u32],
    ls: &[u32],
    jobs: Vec<runner::Job>,
    compare: Option<meta::Compare>,
) -> Result<Executed, String> {
    if !(timeout > 0.0 && timeout.is_finite()) {
        return Err(format!(
            "--timeout {timeout}: must be a positive number of seconds"
        ));
    }
    let holi = process::locate_holi(options.holi.clone())?;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    meta::Meta::append(
        dir,
        meta::Invocation {
            started: meta::utc_now(),
            command_line: command_line(),
            holi_commit: meta::holi_commit(),
            holi: holi.display().to_string(),
            programs: programs.display().to_string(),
            files,
            ks: ks.to_vec(),
            ls: ls.to_vec(),
            timeout_seconds: timeout,
            jobs: options.jobs,
            extra_args: options.holi_args.clone(),
            skip_after_timeout: options.skip_after_timeout,
            machine: meta::Machine::detect(),
            compare: compare.clone(),
        },
    )?;
    let unit = if compare.is_some() { "runs" } else { "cells" };
    let config = runner::RunConfig {
        baseline: compare.map(|c| PathBuf::from(c.baseline.path)),
        holi,
        timeout: Duration::from_secs_f64(timeout),
        jobs: options.jobs.max(1),
        extra_args: options.holi_args.clone(),
        skip_after_timeout: options.skip_after_timeout,
        progress: !options.quiet,
    };
    let total = jobs.len();
    let summary = runner::run_grid(jobs, &dir.join("runs.csv"), &config)?;
    let ran: Vec<String> = summary
        .ran
        .iter()
        .map(|(status, n)| format!("{n} {}", status.name()))
        .collect();
    let text = format!(
        "{total} {unit}: {} already in runs.csv, ran {}",
        summary.already_present,
        if ran.is_empty() {
            "none".to_string()
        } else {
            ran.join(", ")
        }
    );
    Ok(Executed {
        text,
        interrupted: summary.interrupted,
    })
}

/// `--out`, or `benchmark/results/<date>-<name>`, reusing the latest existing
/// `*-<name>` directory so that rerunning a command resumes it.
pub fn results_dir(options: &RunOptions, default_name: &str) -> Result<PathBuf, String> {
    if let Some(out) = &options.out {
        return Ok(out.clone());
    }
    let name = options.name.as_deref().unwrap_or(default_name);
    if name.is_empty() || name.contains('/') {
        return Err(format!(
            "--name `{name}`: must be a non-empty name without `/`"
        ));
    }
    let root = meta::repo_root().join("benchmark/results");
    let suffix = format!("-{name}");
    let mut existing: Vec<PathBuf> = std::fs::read_dir(&root)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.is_dir()
                        && p.file_name().is_some_and(|n| {
                            let n = n.to_string_lossy();
                            // <YYYY-MM-DD>-<name>
                            n.len() == 11 + name.len() && n.ends_with(&suffix)
                        })
                })
                .collect()
        })
        .unwrap_or_default();
    existing.sort();
    Ok(existing
        .pop()
        .unwrap_or_else(|| root.join(format!("{}{suffix}", &meta::utc_now()[..10]))))
}

/// This process's command line, quoted where a shell would need it.
pub fn command_line() -> String {
    std::env::args()
        .map(|arg| {
            if !arg.is_empty()
                && arg
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@".contains(c))
            {
                arg
            } else {
                format!("'{}'", arg.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}
