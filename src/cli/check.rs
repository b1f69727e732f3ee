//! `holi check FILE... [--k K] [--l L]`: search for the client that breaks a library.
//!
//! Per file: load → resolve bounds → the check pipeline ([`crate::check`]: search, proof
//! attempt, replay) → report. One deadline (`--timeout`) and one Ctrl-C flag cover the
//! whole command, every file and every phase.

use super::args::parse_seconds;
use super::exit::Outcome;
use super::inputs::{self, Input};
use super::shard::{CellPart, CutCell, Part, PartFormat, RunId, Shard, ShardId};
use super::ui::Ui;
use crate::check::{self, Checked, Event, ProofMode};
use crate::diagnostics::{Diagnostic, Sources};
use crate::frontend::Loaded;
use crate::html::HtmlReport;
use crate::replay;
use crate::report::{BoundSource, Report, Scope, HOLI_VERSION, JSON_SCHEMA_VERSION};
use crate::sarif::SarifLog;
use crate::symbolic::shares;
use crate::symbolic::{
    Bounds, CheckOptions, CheckResult, Limits, Progress, Run, SearchPlan, Searched, Stats,
    Techniques, Verdict, DEFAULT_K, DEFAULT_L,
};
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// For people: traces, values, source excerpts, clients.
    Text,
    /// The documented JSON report (`lang/check-output.schema.json`).
    Json,
    /// SARIF 2.1.0, for code-scanning services.
    Sarif,
}

/// `--max-memory`'s default: well above what the benchmarks need (under 2 GiB), and
/// well below what a machine that also runs other work can give before the system
/// kills a process.
const DEFAULT_MAX_MEMORY_MIB: u64 = 8192;

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The HOLi libraries to check: files, directories (every `*.holi` below them), or
    /// `-` for standard input.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
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
    /// Make every client call, also those that no shortest failing trace makes (nothing
    /// after them could read what they write, or a last call could not shorten one),
    /// for comparison.
    #[arg(long)]
    pub no_relevance: bool,
    /// Stop at the first failing trace, searching shorter traces first: a shortest
    /// counterexample, sooner.
    #[arg(long, conflicts_with = "all")]
    pub first: bool,
    /// HOLiK's behaviour: a search whose paths got stuck (a call of an undeclared name,
    /// an ill-typed operation) but found no failing trace is SAFE (exit 0), not STUCK
    /// (exit 4). The stuck places are still reported.
    #[arg(long)]
    pub allow_stuck: bool,
    /// Spend more effort on proving a safe library safe for every k and l (without it
    /// the attempt takes no longer than the search did, or a second, and starts beside
    /// a search still running after 3 s on more than one thread): the attempt runs
    /// beside the search from the start, and has all the time the command has; exit
    /// with 3 when no proof is found (`lang/proofs.md`).
    #[arg(long, conflicts_with = "no_prove")]
    pub prove: bool,
    /// Do not try to prove a safe library safe beyond the bounds.
    #[arg(long)]
    pub no_prove: bool,
    /// Write the certificate of each library proved safe for every k and l to
    /// DIR/<file>.smt2: every obligation as an SMT-LIB query that must be unsatisfiable
    /// (`z3 DIR/<file>.smt2` re-checks the proof).
    #[arg(long, value_name = "DIR", conflicts_with = "no_prove")]
    pub certificate: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Stop after this many seconds, for the whole command: every file, the search,
    /// client synthesis and replay (the result is then inconclusive unless a
    /// counterexample was found).
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub timeout: Option<Duration>,
    /// Give up on one solver query after this many seconds (the branch is then
    /// undecided and the verdict inconclusive).
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds, default_value = "10")]
    pub solver_timeout: Duration,
    /// Stop the search after this many configurations.
    #[arg(long, value_name = "N")]
    pub max_configurations: Option<u64>,
    /// Stop the search when holi and its solver process together hold more than this
    /// many MiB of memory (resident); the result is then inconclusive unless a
    /// counterexample was found. Enforced where `/proc` can be read (Linux).
    #[arg(long, value_name = "MIB", default_value_t = DEFAULT_MAX_MEMORY_MIB,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_memory: u64,
    /// Threads the check may use [default: the machine's cores]. The report is the
    /// same for every N; only the time and the statistics differ.
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// Treat every front-end warning as an error.
    #[arg(long)]
    pub strict: bool,
    /// Write each counterexample's synthesized client to DIR/<file>-<n>.holi.
    #[arg(long, value_name = "DIR")]
    pub client: Option<PathBuf>,
    /// Leave the synthesized clients out of the report (they are still replayed).
    #[arg(long)]
    pub no_clients: bool,
    /// Do not run the synthesized clients to confirm the counterexamples.
    #[arg(long)]
    pub no_replay: bool,
    /// Also write an HTML report to FILE: one self-contained page with the verdict and,
    /// per failing assert, its source, a sequence diagram of each trace, the trace with
    /// values, its call tree and the synthesized client.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Check only shard I of N of the files (I from 1; `auto`: the index a Slurm job
    /// array or a Kubernetes Indexed Job gives) and write a part for `holi merge`
    /// instead of the report (`lang/shards.md`).
    #[arg(long, value_name = "I/N", value_parser = super::shard::parse_shard)]
    pub shard: Option<Shard>,
    /// Write the part to FILE instead of standard output.
    #[arg(long, value_name = "FILE", requires = "shard")]
    pub part: Option<PathBuf>,
    /// With `--shard` and one file: the configurations every shard searches before the
    /// search is cut into lanes that share nothing (more repeats more on every shard,
    /// and leaves the lanes more to prune with).
    #[arg(long, value_name = "N", requires = "shard", default_value_t = shares::FIRST,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub cut_after: u64,
}

/// A checked file's result, and whether what it adds to the report and the page could be
/// written.
type CheckedFile = (FileResult, std::io::Result<()>);

/// The HTML report could not be written: said with its path; bad usage (exit 2), as
/// for the other files `check` writes.
fn page_failed(path: &Path, error: &std::io::Error) -> Outcome {
    eprintln!("error: cannot write the report {}: {error}", path.display());
    Outcome::BadInput
}

/// A bound that came out as 0: bad input.
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

/// A client (a file with `main`) given to `check`, which checks libraries.
fn client_error(loaded: &Loaded) -> Option<Diagnostic> {
    let main = loaded.program.main.as_ref()?;
    Some(
        Diagnostic::error("E0403", "this file is a client, not a library")
            .with_label(&loaded.name, main.span.clone(), "a client's `main`")
            .with_hint(
                "`holi check` plays a library against every possible client, so it takes a \
                 library. To run this client with its library: `holi run LIBRARY.holi CLIENT.holi`; \
                 to check the library: `holi check LIBRARY.holi`.",
            ),
    )
}

/// What one file's check came to, for the exit code and the summary.
struct FileResult {
    name: String,
    outcome: Outcome,
    /// The verdict line for the summary; `None` when the file was not checked (bad
    /// input, or a client found in a directory and skipped).
    verdict: Option<Verdict>,
}

pub fn run(args: CheckArgs, ui: &Ui) -> Outcome {
    let start = Instant::now();
    // A timeout too long to add to now is no limit at all.
    let deadline = args.timeout.and_then(|t| start.checked_add(t));
    let inputs = match inputs::expand(&args.files) {
        Ok(inputs) => inputs,
        Err(d) => {
            eprint!("{}", d.render(&Sources::new(), ui.color_stderr));
            return Outcome::BadInput;
        }
    };
    let interrupt = Arc::new(AtomicBool::new(false));
    {
        let flag = Arc::clone(&interrupt);
        // Only fails if a handler is already set (then that one stays in charge).
        let _ = ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed));
    }
    if let Some(shard) = args.shard {
        return run_shard(&args, ui, &inputs, shard, deadline, &interrupt);
    }
    let several = inputs.len() > 1;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut sink = match Sink::begin(args.format, several, &mut out) {
        Ok(sink) => sink,
        Err(e) => return write_failed(&e, Outcome::Ok),
    };
    // Created before the search, so that a path that cannot be written stops the
    // command before minutes are spent on it.
    let mut page = match &args.report {
        Some(path) => match File::create(path).and_then(|f| HtmlReport::begin(BufWriter::new(f))) {
            Ok(page) => Some(page),
            Err(e) => return page_failed(path, &e),
        },
        None => None,
    };
    let mut results = Vec::new();
    for input in &inputs {
        let (result, written) =
            check_file(input, &args, ui, deadline, &interrupt, &mut sink, &mut page);
        results.push(result);
        if let Err(e) = written {
            return write_failed(&e, combine(results.iter().map(|r| r.outcome)));
        }
    }
    let mut outcome = combine(results.iter().map(|r| r.outcome));
    if let (Some(path), Some(page)) = (&args.report, page) {
        if let Err(e) = page.finish() {
            outcome = combine([outcome, page_failed(path, &e)].into_iter());
        }
    }
    let summarized = if several {
        let rows: Vec<(&str, &str)> = (results.iter())
            .map(|r| (file_word(r), r.name.as_str()))
            .collect();
        sink.text(&summary(&rows, ui.quiet()))
    } else {
        Ok(())
    };
    match summarized.and_then(|()| sink.finish()) {
        Ok(()) => outcome,
        Err(e) => write_failed(&e, outcome),
    }
}

/// Checks shard `shard` of `inputs` as `holi check` without `--shard` would, keeping
/// what each of its files adds to the report in a part ([`super::shard`]). Its exit
/// code says whether the part was written; the verdict is the merge's.
fn run_shard(
    args: &CheckArgs,
    ui: &Ui,
    inputs: &[Input],
    shard: Shard,
    deadline: Option<Instant>,
    interrupt: &Arc<AtomicBool>,
) -> Outcome {
    let mut named = Vec::with_capacity(inputs.len());
    for input in inputs {
        match input {
            Input::File(path) | Input::Found(path) => match std::fs::read(path) {
                Ok(bytes) => named.push((path.display().to_string(), bytes)),
                Err(e) => {
                    eprintln!("error: cannot read {}: {e}", path.display());
                    return Outcome::BadInput;
                }
            },
            Input::Carried(path, bytes) => named.push((path.display().to_string(), bytes.clone())),
            Input::Stdin => {
                eprintln!(
                    "error: --shard cannot read standard input: each shard must read the same files"
                );
                return Outcome::BadInput;
            }
        }
    }
    let arguments = super::shard::run_arguments();
    // The merge, not this shard, writes where the report goes: colour only when asked
    // outright, as the whole run would not colour a file or a pipe.
    let always = (arguments.windows(2)).any(|a| a[0] == "--color" && a[1] == "always")
        || arguments.iter().any(|a| a == "--color=always");
    let ui = &Ui {
        color_stdout: always,
        ..*ui
    };
    let several = inputs.len() > 1;
    // One file: its search is cut across the shards, unless it stops at the first
    // failure (`--first` deepens one trace length at a time, which is not cut).
    let cut = !several && !args.first;
    let run = RunId {
        fingerprint: super::shard::fingerprint(&arguments, &named),
        arguments,
        inputs: named.into_iter().map(|(name, _)| name).collect(),
        format: match args.format {
            Format::Text => PartFormat::Text,
            Format::Json => PartFormat::Json,
            Format::Sarif => PartFormat::Sarif,
        },
        several,
        quiet: ui.quiet(),
        page: args.report.as_ref().map(|p| p.display().to_string()),
        cut,
    };
    if cut {
        let cell = share_cell(&inputs[0], args, ui, deadline, interrupt, shard);
        return write_part(args, run, shard, vec![0], vec![cell]);
    }
    let owned = shard.cells(inputs.len());
    if inputs.len() < shard.count && !ui.quiet() {
        eprintln!(
            "note: {} file{} for {} shards: shard {} has {}; only the search of one file \
             (without --first) is cut across shards",
            inputs.len(),
            if inputs.len() == 1 { "" } else { "s" },
            shard.count,
            shard.index,
            if owned.is_empty() {
                "nothing to check"
            } else {
                "one"
            }
        );
    }
    let mut cells = Vec::with_capacity(owned.len());
    for &cell in &owned {
        let mut output = Vec::new();
        let mut page = args
            .report
            .as_ref()
            .map(|_| HtmlReport::sections(Vec::new()));
        let (result, written) = {
            let mut sink = match Sink::fragment_of(args.format, &mut output) {
                Ok(sink) => sink,
                Err(e) => return write_failed(&e, Outcome::Ok),
            };
            let checked = check_file(
                &inputs[cell],
                args,
                ui,
                deadline,
                interrupt,
                &mut sink,
                &mut page,
            );
            let finished = sink.finish();
            (checked.0, checked.1.and(finished))
        };
        if let Err(e) = written {
            return write_failed(&e, Outcome::Ok);
        }
        cells.push(CellPart {
            cell,
            word: file_word(&result).to_string(),
            name: result.name,
            outcome: result.outcome as u8,
            output: String::from_utf8_lossy(&output).into_owned(),
            page: page.map(|p| String::from_utf8_lossy(&p.into_inner()).into_owned()),
            search: None,
        });
    }
    write_part(args, run, shard, owned, cells)
}

/// Shard `shard`'s share of the one search of `input` ([`shares`]), with the file's
/// contents for the merge; a file not checked is told as the whole run tells it.
fn share_cell(
    input: &Input,
    args: &CheckArgs,
    ui: &Ui,
    deadline: Option<Instant>,
    interrupt: &Arc<AtomicBool>,
    shard: Shard,
) -> CellPart {
    let ready = match prepare(input, args, ui, deadline, interrupt) {
        Ok(ready) => ready,
        Err(done) => {
            return CellPart {
                cell: 0,
                word: file_word(&done).to_string(),
                name: done.name,
                outcome: done.outcome as u8,
                output: String::new(),
                page: args.report.as_ref().map(|_| String::new()),
                search: None,
            }
        }
    };
    let lib = crate::library::build(&ready.loaded.program);
    let share = shares::Share {
        index: shard.index - 1,
        count: shard.count,
    };
    let mut bar = SearchBar::new(ui);
    let part = shares::search(
        &lib,
        &ready.request.options,
        share,
        args.cut_after,
        &mut |p| bar.show(Event::Searching(p)),
    );
    bar.show(Event::Searched);
    CellPart {
        cell: 0,
        name: ready.loaded.name.clone(),
        outcome: Outcome::Ok as u8,
        word: String::new(),
        output: String::new(),
        page: None,
        search: Some(CutCell {
            source: ready.loaded.source.clone(),
            share: part,
        }),
    }
}

/// A `holi check` command line, as a part keeps it.
#[derive(clap::Parser)]
#[command(name = "holi")]
struct RunLine {
    #[command(flatten)]
    flags: super::ui::Flags,
    #[command(subcommand)]
    command: RunCommand,
}

#[derive(clap::Subcommand)]
enum RunCommand {
    Check(CheckArgs),
}

/// The report of a cut run (`holi merge`, [`super::shard`]) from its parts' `cells`
/// (one per shard, in shard order), added to `sink`: the file loaded from what the
/// parts carry, their shares joined ([`shares::join`]), then the proof attempt, the
/// replays and the report as `holi check` makes them from that result, under the
/// run's own arguments. Its outcome and its section of the HTML page.
pub(super) fn merge_cut(
    run: &RunId,
    cells: Vec<CellPart>,
    ui: &Ui,
    sink: &mut Sink,
) -> std::io::Result<(Outcome, Option<String>)> {
    let refused = |why: String| std::io::Error::other(why);
    // A shard's own arguments, whose `--shard` the part leaves out (`--cut-after` asks
    // for one); which shard does not matter here.
    let line = std::iter::once("holi".to_string())
        .chain(run.arguments.iter().cloned())
        .chain(["--shard".to_string(), "1/1".to_string()]);
    let RunLine {
        flags,
        command: RunCommand::Check(args),
    } = <RunLine as clap::Parser>::try_parse_from(line)
        .map_err(|e| refused(format!("the run's arguments do not parse here: {e}")))?;
    // As the shards made their output: colour only when asked outright.
    let run_ui = Ui {
        color_stdout: flags.color == super::ui::ColorChoice::Always,
        color_stderr: ui.color_stderr,
        ..flags.ui()
    };
    let mut source = None;
    let mut searched = Vec::new();
    let mut unchecked = None;
    for cell in cells {
        match cell.search {
            Some(CutCell { source: s, share }) => {
                if source.get_or_insert_with(|| s.clone()) != &s {
                    return Err(refused(
                        "the parts carry different contents of the file".to_string(),
                    ));
                }
                searched.push(share);
            }
            None => unchecked = Some((cell.output, cell.outcome, cell.page)),
        }
    }
    let (Some(source), None) = (source, &unchecked) else {
        // No shard checked the file (it did not load, or is a client): each says so alike.
        return match unchecked {
            Some((output, outcome, page)) if searched.is_empty() => {
                sink.fragment(&output)?;
                Ok((super::shard::outcome_of(outcome), page))
            }
            _ => Err(refused(
                "some parts checked the file and others did not".to_string(),
            )),
        };
    };
    let Some(name) = run.inputs.first() else {
        return Err(refused("the run names no file".to_string()));
    };
    let deadline = args.timeout.and_then(|t| Instant::now().checked_add(t));
    let interrupt = Arc::new(AtomicBool::new(false));
    {
        let flag = Arc::clone(&interrupt);
        // Only fails if a handler is already set (then that one stays in charge).
        let _ = ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed));
    }
    let input = Input::Carried(PathBuf::from(name), source.into_bytes());
    // What loading the file says on standard error, the shards said in their logs.
    let silent = Ui {
        verbosity: super::ui::Verbosity::Quiet,
        ..run_ui
    };
    let ready = prepare(&input, &args, &silent, deadline, &interrupt)
        .map_err(|_| refused(format!("{name} as the parts carry it is not checked here")))?;
    let took: f64 = searched
        .iter()
        .map(|s| {
            let lanes: f64 = s.searched.iter().map(|(_, p)| p.stats.seconds).sum();
            lanes
        })
        .sum::<f64>()
        + searched.first().map_or(0.0, |s| s.first.stats.seconds);
    let lib = crate::library::build(&ready.loaded.program);
    let result =
        shares::join(&lib, &ready.request.options, searched).map_err(|e| refused(e.to_string()))?;
    let searching = check::Searching::Elsewhere {
        result: Box::new(result),
        took: Duration::try_from_secs_f64(took).unwrap_or_default(),
    };
    let checked = check::run_searching(&ready.loaded, &ready.request, &mut |_| {}, searching);
    let mut page = args
        .report
        .as_ref()
        .map(|_| HtmlReport::sections(Vec::new()));
    let (result, written) = report_file(&ready, checked, &args, &run_ui, deadline, sink, &mut page);
    written?;
    let page = page.map(|p| String::from_utf8_lossy(&p.into_inner()).into_owned());
    Ok((result.outcome, page))
}

/// Writes the part of shard `shard` of `run`, holding `cells`; its exit code.
fn write_part(
    args: &CheckArgs,
    run: RunId,
    shard: Shard,
    owned: Vec<usize>,
    cells: Vec<CellPart>,
) -> Outcome {
    let part = Part {
        holi_part: super::shard::PART_VERSION,
        holi_version: HOLI_VERSION.to_string(),
        run,
        shard: ShardId {
            index: shard.index,
            count: shard.count,
            cells: owned,
        },
        cells,
    };
    match super::shard::write_part(&part, args.part.as_deref()) {
        Ok(()) => Outcome::Ok,
        Err(e) => {
            let to = args
                .part
                .as_ref()
                .map_or("standard output".to_string(), |p| p.display().to_string());
            eprintln!("error: cannot write the part to {to}: {e}");
            Outcome::BadInput
        }
    }
}

/// The exit code of several files: bad input first (something was not checked), then
/// a counterexample, then an unknown answer, then stuck paths; 0 only when every file
/// is safe.
pub(super) fn combine(outcomes: impl Iterator<Item = Outcome>) -> Outcome {
    let rank = |o: &Outcome| match o {
        Outcome::BadInput => 4,
        Outcome::Failure => 3,
        Outcome::Inconclusive => 2,
        Outcome::Stuck => 1,
        Outcome::Ok => 0,
    };
    outcomes.max_by_key(rank).unwrap_or(Outcome::Ok)
}

fn verdict_word(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Safe => "SAFE",
        Verdict::Unsafe => "UNSAFE",
        Verdict::Inconclusive => "INCONCLUSIVE",
        Verdict::Stuck => "STUCK",
    }
}

fn file_word(r: &FileResult) -> &'static str {
    match (r.verdict, r.outcome) {
        (Some(verdict), _) => verdict_word(verdict),
        (None, Outcome::Ok) => "skipped",
        (None, _) => "not checked",
    }
}

/// The table of files and verdicts after several files (only the count when quiet):
/// per file its word ([`file_word`]) and name.
pub(super) fn summary(rows: &[(&str, &str)], quiet: bool) -> String {
    let mut out = String::new();
    if !quiet {
        let _ = writeln!(out, "Checked {} files:", rows.len());
        for (word, name) in rows {
            let _ = writeln!(out, "  {word:<13} {name}");
        }
    }
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for &(word, _) in rows {
        match counts.iter_mut().find(|(w, _)| *w == word) {
            Some((_, n)) => *n += 1,
            None => counts.push((word, 1)),
        }
    }
    counts.sort_by_key(|(word, _)| {
        [
            "UNSAFE",
            "not checked",
            "INCONCLUSIVE",
            "STUCK",
            "SAFE",
            "skipped",
        ]
        .iter()
        .position(|w| w == word)
    });
    let parts: Vec<String> = counts
        .iter()
        .map(|(word, n)| format!("{n} {}", word.to_lowercase()))
        .collect();
    let _ = writeln!(out, "{}{}", if quiet { "" } else { "  " }, parts.join(", "));
    out
}

/// Where reports go: text as each file is done, or one JSON or SARIF document that
/// grows file by file (never held whole in memory: `--all` can list hundreds of
/// thousands of traces).
pub(super) enum Sink<'w> {
    Text(&'w mut dyn Write),
    Json {
        out: &'w mut dyn Write,
        /// Several files: one document with a `files` array of reports.
        several: bool,
        written: usize,
    },
    Sarif(SarifLog<'w>),
    /// One file's SARIF run, alone: a shard's share of a log ([`Sink::fragment_of`]).
    SarifRun(&'w mut dyn Write),
}

impl<'w> Sink<'w> {
    /// A sink for what one file adds to a report in `format`: its text, its JSON report
    /// or its SARIF run, without the document around them.
    fn fragment_of(format: Format, out: &'w mut dyn Write) -> std::io::Result<Sink<'w>> {
        match format {
            Format::Sarif => Ok(Sink::SarifRun(out)),
            Format::Text | Format::Json => Sink::begin(format, false, out),
        }
    }

    pub(super) fn begin(
        format: Format,
        several: bool,
        out: &'w mut dyn Write,
    ) -> std::io::Result<Sink<'w>> {
        Ok(match format {
            Format::Text => Sink::Text(out),
            Format::Json => {
                if several {
                    write!(
                        out,
                        "{{\n\"schema_version\": \"{JSON_SCHEMA_VERSION}\",\n\"holi_version\": \"{HOLI_VERSION}\",\n\"files\": [\n"
                    )?;
                }
                Sink::Json {
                    out,
                    several,
                    written: 0,
                }
            }
            Format::Sarif => Sink::Sarif(SarifLog::begin(out)?),
        })
    }

    /// Writes text for people (ignored by the machine formats).
    pub(super) fn text(&mut self, text: &str) -> std::io::Result<()> {
        match self {
            Sink::Text(out) => out.write_all(text.as_bytes()),
            Sink::Json { .. } | Sink::Sarif(_) | Sink::SarifRun(_) => Ok(()),
        }
    }

    /// Writes what [`Sink::fragment_of`] kept of one file, in its place (nothing for a
    /// file that added nothing).
    pub(super) fn fragment(&mut self, fragment: &str) -> std::io::Result<()> {
        if fragment.is_empty() {
            return Ok(());
        }
        match self {
            Sink::Text(out) | Sink::SarifRun(out) => out.write_all(fragment.as_bytes()),
            Sink::Json { out, written, .. } => {
                if *written > 0 {
                    out.write_all(b",\n")?;
                }
                *written += 1;
                out.write_all(fragment.as_bytes())
            }
            Sink::Sarif(log) => log.raw_run(fragment),
        }
    }

    /// Writes a checked file's report to a machine format (the text report goes
    /// through [`Sink::text`]).
    fn report(&mut self, report: &Report) -> std::io::Result<()> {
        match self {
            Sink::Text(_) => Ok(()),
            Sink::Json { out, written, .. } => {
                if *written > 0 {
                    out.write_all(b",\n")?;
                }
                *written += 1;
                report.write_json(*out)
            }
            Sink::Sarif(log) => log.run(report),
            Sink::SarifRun(out) => report.write_sarif_run(*out),
        }
    }

    pub(super) fn finish(self) -> std::io::Result<()> {
        match self {
            Sink::Text(out) => out.flush(),
            Sink::Json { out, several, .. } => {
                if several {
                    out.write_all(b"]\n}\n")?;
                }
                out.flush()
            }
            Sink::Sarif(log) => log.finish(),
            Sink::SarifRun(out) => out.flush(),
        }
    }
}

/// A report that could not be written. A closed pipe (`holi check … | head`) is no error
/// of holi's: the exit code is still the verdict of what was checked. Anything else is
/// said, and is bad usage.
fn write_failed(error: &std::io::Error, so_far: Outcome) -> Outcome {
    if error.kind() == std::io::ErrorKind::BrokenPipe {
        return so_far;
    }
    eprintln!("error: cannot write the report: {error}");
    Outcome::BadInput
}

/// The line a quiet run prints for a file: the verdict word as the full report writes
/// it, and in brackets what it rests on.
fn quiet_line(
    name: &str,
    result: &CheckResult,
    bounds: (u32, u32),
    scope: Option<&Scope>,
) -> String {
    let detail = match result.verdict {
        Verdict::Safe => match scope {
            Some(Scope::AllBounds { .. }) => " (for every k and l, proved)".to_string(),
            _ => format!(" (within k = {}, l = {})", bounds.0, bounds.1),
        },
        Verdict::Unsafe => {
            let shortest = result
                .counterexamples
                .iter()
                .map(|c| c.trace.0.len())
                .min()
                .unwrap_or(0);
            let plural = |n: usize| if n == 1 { "" } else { "s" };
            format!(
                " ({} failing trace{}, shortest {shortest} move{})",
                result.failing_traces,
                plural(result.failing_traces),
                plural(shortest)
            )
        }
        Verdict::Stuck => {
            let places = result.stuck.len();
            let plural = if places == 1 { "" } else { "s" };
            format!(" ({places} place{plural} where paths got stuck)")
        }
        _ => String::new(),
    };
    format!("{name}: {}{detail}\n", verdict_word(result.verdict))
}

/// Every counter of the search, for `-v`.
fn verbose_stats(s: &Stats, plan: &SearchPlan, complete: bool) -> String {
    let mut out = String::from("  search:\n");
    let _ = writeln!(out, "    plan: {plan}");
    let searched = match s.searched {
        Searched::Whole => "the whole search",
        Searched::WithoutSemantic => "the whole search without semantic subsumption",
        Searched::ByParts => "the parts one at a time",
        Searched::ByPartsWithoutSemantic => "the parts one at a time, without semantic subsumption",
    };
    // A search cut by a limit reports the whole search so far, with every trace the
    // searches raced beside it found ([`crate::symbolic::race`]): none completed.
    let which = if complete {
        "the cheapest complete search"
    } else {
        "incomplete: what it found so far, with every trace the others found"
    };
    if s.lanes > 0 {
        let cut = if complete { "" } else { "; incomplete" };
        let _ = writeln!(
            out,
            "    report from: the whole search, cut into {} lanes that share nothing, across \
             shards (counters summed over them{cut})",
            s.lanes
        );
    } else {
        let _ = writeln!(out, "    report from: {searched} ({which})");
    }
    for (what, n) in [
        ("configurations", s.configurations),
        ("solver queries", s.solver_queries),
        ("answers from the cache", s.cached_answers),
        ("client turns subsumed", s.subsumed),
        ("of them covered semantically", s.covered),
        ("irrelevant client calls skipped", s.irrelevant_calls),
        ("coverage checks", s.coverage_checks),
        ("regions made", s.projections),
        ("failure sites proved unreachable", s.unreachable_sites),
        ("paths ending at an undeclared call", s.undeclared_calls),
        ("paths stuck otherwise", s.stuck_paths),
        ("paths at the frame limit k", s.frame_limit_paths),
        ("deepening passes (--first)", u64::from(s.deepening_passes)),
        ("longest trace explored (moves)", u64::from(s.max_moves)),
    ] {
        let _ = writeln!(out, "    {what:<36} {n}");
    }
    let solver = "time in the solver (s)";
    let _ = writeln!(out, "    {solver:<36} {:.3}", s.solver_seconds);
    out
}

/// Checks one input and writes its report. Returns its result and whether the report
/// could be written.
fn check_file<W: Write>(
    input: &Input,
    args: &CheckArgs,
    ui: &Ui,
    deadline: Option<Instant>,
    interrupt: &Arc<AtomicBool>,
    sink: &mut Sink,
    page: &mut Option<HtmlReport<W>>,
) -> CheckedFile {
    let ready = match prepare(input, args, ui, deadline, interrupt) {
        Ok(ready) => ready,
        Err(done) => return (done, Ok(())),
    };
    let mut bar = SearchBar::new(ui);
    let checked = check::run(&ready.loaded, &ready.request, &mut |event| bar.show(event));
    report_file(&ready, checked, args, ui, deadline, sink, page)
}

/// A file ready for the check pipeline: loaded, with its bounds and what is asked.
struct Ready {
    loaded: Loaded,
    k: u32,
    l: u32,
    k_source: BoundSource,
    l_source: BoundSource,
    request: check::Request,
}

/// The file `input` loaded and its request made, or what the run says of a file it
/// does not check (one that does not load, a client skipped, a bound of 0), told on
/// standard error.
fn prepare(
    input: &Input,
    args: &CheckArgs,
    ui: &Ui,
    deadline: Option<Instant>,
    interrupt: &Arc<AtomicBool>,
) -> Result<Ready, FileResult> {
    let not_checked = |name: String| FileResult {
        name,
        outcome: Outcome::BadInput,
        verdict: None,
    };
    let loaded = match input.load(args.strict) {
        Ok(loaded) => loaded,
        Err(rejected) => {
            eprint!("{}", rejected.render(ui.color_stderr));
            return Err(not_checked(rejected.name));
        }
    };
    ui.warnings(&loaded.render_warnings(ui.color_stderr));

    let header = loaded.program.bounds.as_ref();
    let resolve =
        |flag: Option<u32>, from_header: Option<u32>, default: u32| match (flag, from_header) {
            (Some(v), _) => (v, BoundSource::CommandLine),
            (None, Some(v)) => (v, BoundSource::Header),
            (None, None) => (default, BoundSource::Default),
        };
    let (k, k_source) = resolve(args.k, header.map(|b| b.k), DEFAULT_K);
    let (l, l_source) = resolve(args.l, header.map(|b| b.l), DEFAULT_L);
    if loaded.program.main.is_some() && matches!(input, Input::Found(_)) {
        // A directory of libraries often holds their clients too: not an error there.
        if !ui.quiet() {
            eprintln!(
                "note: skipping {}: a client (it has `main`), not a library",
                loaded.name
            );
        }
        return Err(FileResult {
            name: loaded.name,
            outcome: Outcome::Ok,
            verdict: None,
        });
    }
    let mut errors: Vec<Diagnostic> = client_error(&loaded).into_iter().collect();
    if k == 0 {
        errors.push(bound_error(&loaded, "k", k, k_source));
    }
    if l == 0 {
        errors.push(bound_error(&loaded, "l", l, l_source));
    }
    if !errors.is_empty() {
        let sources = loaded.sources();
        for e in errors {
            eprint!("{}", e.render(&sources, ui.color_stderr));
        }
        return Err(not_checked(loaded.name));
    }

    let options = CheckOptions {
        bounds: Bounds { k, l },
        techniques: Techniques {
            all: args.all,
            memo: !args.no_memo,
            semantic: !args.no_semantic,
            inert: !args.no_inert,
            bound: !args.no_bound,
            split: !args.no_split,
            relevance: !args.no_relevance,
            havoc: !args.no_havoc,
            first: args.first,
        },
        limits: Limits {
            timeout: deadline.map(|d| d.saturating_duration_since(Instant::now())),
            // The command's own: every file and phase ends there.
            deadline,
            // Z3 counts its timeout in 32-bit milliseconds: longer is no limit anyway.
            solver_timeout: Some(
                args.solver_timeout
                    .min(Duration::from_millis(u32::MAX.into())),
            ),
            max_configurations: args.max_configurations,
            max_memory: Some(args.max_memory.saturating_mul(1 << 20)),
            interrupt: Some(Arc::clone(interrupt)),
        },
        run: Run {
            allow_stuck: args.allow_stuck,
            // holi itself, started as a solver process; without it (a rare platform
            // failure) nonlinear queries run in-process.
            solver_process: std::env::current_exe().ok(),
            jobs: args.jobs.map_or_else(
                || std::thread::available_parallelism().map_or(1, |n| n.get()),
                usize::from,
            ),
            task_sizes: Default::default(),
        },
    };
    let request = check::Request {
        options,
        proof: if args.prove {
            ProofMode::Required
        } else if args.no_prove {
            ProofMode::Off
        } else {
            ProofMode::Default
        },
        certificate: args.certificate.clone(),
        replay: !args.no_replay,
        client_dir: args.client.clone(),
        stem: input.stem(),
    };
    Ok(Ready {
        loaded,
        k,
        l,
        k_source,
        l_source,
        request,
    })
}

/// What the check of `ready` came to, added to the report and the page.
fn report_file<W: Write>(
    ready: &Ready,
    checked: Result<Checked, check::CheckError>,
    args: &CheckArgs,
    ui: &Ui,
    deadline: Option<Instant>,
    sink: &mut Sink,
    page: &mut Option<HtmlReport<W>>,
) -> CheckedFile {
    let Ready {
        loaded,
        k,
        l,
        k_source,
        l_source,
        ..
    } = ready;
    let (k, l, k_source, l_source) = (*k, *l, *k_source, *l_source);
    let Checked {
        result,
        scope,
        confirmation,
    } = match checked {
        Ok(checked) => checked,
        Err(e) => {
            eprintln!("error: {e}");
            let failed = FileResult {
                name: loaded.name.clone(),
                outcome: Outcome::BadInput,
                verdict: None,
            };
            return (failed, Ok(()));
        }
    };
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
        replayed: confirmation
            .as_ref()
            .filter(|_| !args.no_replay)
            .map(|c| c.verdicts.iter().map(replay::status).collect()),
        // Under --all the text would repeat a whole client per trace: list paths only.
        clients: confirmation
            .as_ref()
            .filter(|_| !args.no_clients)
            .filter(|_| !(args.all && args.client.is_none() && args.format == Format::Text))
            .map(|c| c.clients.clone()),
        warnings: &loaded.warnings,
        program: Some(&loaded.program),
        deadline,
        scope,
        require_proof: args.prove,
    };
    let written = match args.format {
        Format::Text if ui.quiet() => sink.text(&quiet_line(
            &loaded.name,
            &result,
            (k, l),
            report.scope.as_ref(),
        )),
        Format::Text if ui.verbose() => sink.text(&report.text(ui.color_stdout)).and_then(|()| {
            sink.text(&verbose_stats(
                &result.stats,
                &result.plan,
                result.inconclusive.is_empty(),
            ))
        }),
        Format::Text => sink.text(&report.text(ui.color_stdout)),
        Format::Json | Format::Sarif => sink.report(&report),
    };
    let mut outcome = match report.exit_code() {
        0 => Outcome::Ok,
        1 => Outcome::Failure,
        4 => Outcome::Stuck,
        _ => Outcome::Inconclusive,
    };
    if let (Some(path), Some(html)) = (&args.report, page.as_mut()) {
        if let Err(e) = html.add(&report) {
            outcome = page_failed(path, &e);
            // Nothing more is written to a page that failed.
            *page = None;
        }
    }
    let file_result = FileResult {
        name: loaded.name.clone(),
        outcome,
        verdict: Some(result.verdict),
    };
    // A `--all` search can leave gigabytes of counterexamples: freeing them takes a
    // second that the time limit has no room for, and nothing waits for it.
    drop(report);
    free_in_background((result, confirmation));
    (file_result, written)
}

/// Drops `value` on a thread of its own (here if none can be started); the process
/// does not wait for it to finish.
fn free_in_background<T: Send + 'static>(value: T) {
    let _ = std::thread::Builder::new()
        .name("holi-free".to_string())
        .spawn(move || drop(value));
}

/// The search's progress line, on a terminal once the search takes over a second;
/// cleared when the search ends.
struct SearchBar(Option<ProgressBar>);

impl SearchBar {
    fn new(ui: &Ui) -> SearchBar {
        SearchBar((ui.stderr_is_terminal && !ui.quiet()).then(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            // A spinner and the message: the search has no known length to fill a bar with.
            bar.set_style(
                ProgressStyle::with_template("{spinner} {elapsed} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar
        }))
    }

    fn show(&mut self, event: Event) {
        match (event, &self.0) {
            (Event::Searching(p), Some(bar)) if p.elapsed >= Duration::from_secs(1) => {
                bar.set_message(progress_message(p));
                bar.tick();
            }
            (Event::Searched, Some(bar)) => bar.finish_and_clear(),
            _ => {}
        }
    }
}

fn progress_message(p: &Progress) -> String {
    let rate = p.configurations as f64 / p.elapsed.as_secs_f64().max(1e-9);
    format!(
        "{} configurations, depth {}, {:.0}/s, {} failing trace{} so far",
        p.configurations,
        p.depth,
        rate,
        p.counterexamples,
        if p.counterexamples == 1 { "" } else { "s" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbolic::DEFAULT_SOLVER_TIMEOUT;

    #[test]
    fn several_files_exit_with_the_most_serious_outcome() {
        use Outcome::*;
        assert_eq!(combine([Ok, Stuck, Ok].into_iter()), Stuck);
        assert_eq!(combine([Stuck, Inconclusive].into_iter()), Inconclusive);
        assert_eq!(combine([Inconclusive, Failure, Ok].into_iter()), Failure);
        assert_eq!(combine([Failure, BadInput].into_iter()), BadInput);
        assert_eq!(combine(std::iter::empty()), Ok);
    }

    #[test]
    fn the_documented_solver_timeout_is_the_engines() {
        let cli = <super::super::Cli as clap::Parser>::try_parse_from(["holi", "check", "x"]);
        let Ok(super::super::Cli {
            command: super::super::Command::Check(args),
            ..
        }) = cli
        else {
            panic!("`holi check x` parses");
        };
        assert_eq!(args.solver_timeout, DEFAULT_SOLVER_TIMEOUT);
    }

    #[test]
    fn progress_shows_configurations_depth_rate_and_traces() {
        let p = Progress {
            configurations: 5000,
            depth: 7,
            counterexamples: 1,
            elapsed: Duration::from_secs(2),
        };
        assert_eq!(
            progress_message(&p),
            "5000 configurations, depth 7, 2500/s, 1 failing trace so far"
        );
    }
}
