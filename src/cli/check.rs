//! `holi check FILE... [--k K] [--l L]`: search for the client that breaks a library.
//!
//! Per file: load → resolve bounds → search → confirm by replay → report. One deadline
//! (`--timeout`) and one Ctrl-C flag cover the whole command, every file and every phase.

use super::args::parse_seconds;
use super::exit::Outcome;
use super::inputs::{self, Input};
use super::ui::Ui;
use crate::concrete::Cutoff;
use crate::diagnostics::{Diagnostic, Sources};
use crate::frontend::Loaded;
use crate::html::HtmlReport;
use crate::library::Library;
use crate::report::{
    BoundSource, LineIndex, Replay, Report, Scope, HOLI_VERSION, JSON_SCHEMA_VERSION,
};
use crate::sarif::SarifLog;
use crate::symbolic::memory;
use crate::symbolic::{
    self, CheckOptions, CheckResult, Progress, SearchPlan, Searched, Stats, Verdict, DEFAULT_K,
    DEFAULT_L,
};
use crate::{proof, replay};
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
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
}

/// The HTML page of `--report`, written file by file.
type Page = HtmlReport<BufWriter<File>>;

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
        sink.text(&summary(&results, ui.quiet()))
    } else {
        Ok(())
    };
    match summarized.and_then(|()| sink.finish()) {
        Ok(()) => outcome,
        Err(e) => write_failed(&e, outcome),
    }
}

/// The exit code of several files: bad input first (something was not checked), then
/// a counterexample, then an unknown answer, then stuck paths; 0 only when every file
/// is safe.
fn combine(outcomes: impl Iterator<Item = Outcome>) -> Outcome {
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

/// The table of files and verdicts after several files (only the count when quiet).
fn summary(results: &[FileResult], quiet: bool) -> String {
    let mut out = String::new();
    if !quiet {
        let _ = writeln!(out, "Checked {} files:", results.len());
        for r in results {
            let _ = writeln!(out, "  {:<13} {}", file_word(r), r.name);
        }
    }
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for r in results {
        let word = file_word(r);
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
enum Sink<'w> {
    Text(&'w mut dyn Write),
    Json {
        out: &'w mut dyn Write,
        /// Several files: one document with a `files` array of reports.
        several: bool,
        written: usize,
    },
    Sarif(SarifLog<'w>),
}

impl<'w> Sink<'w> {
    fn begin(format: Format, several: bool, out: &'w mut dyn Write) -> std::io::Result<Sink<'w>> {
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
    fn text(&mut self, text: &str) -> std::io::Result<()> {
        match self {
            Sink::Text(out) => out.write_all(text.as_bytes()),
            Sink::Json { .. } | Sink::Sarif(_) => Ok(()),
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
        }
    }

    fn finish(self) -> std::io::Result<()> {
        match self {
            Sink::Text(out) => out.flush(),
            Sink::Json { out, several, .. } => {
                if several {
                    out.write_all(b"]\n}\n")?;
                }
                out.flush()
            }
            Sink::Sarif(log) => log.finish(),
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
    let _ = writeln!(out, "    report from: {searched} ({which})");
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
fn check_file(
    input: &Input,
    args: &CheckArgs,
    ui: &Ui,
    deadline: Option<Instant>,
    interrupt: &Arc<AtomicBool>,
    sink: &mut Sink,
    page: &mut Option<Page>,
) -> (FileResult, std::io::Result<()>) {
    let not_checked = |name: String| FileResult {
        name,
        outcome: Outcome::BadInput,
        verdict: None,
    };
    let loaded = match input.load(args.strict) {
        Ok(loaded) => loaded,
        Err(rejected) => {
            eprint!("{}", rejected.render(ui.color_stderr));
            return (not_checked(rejected.name), Ok(()));
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
        let skipped = FileResult {
            name: loaded.name,
            outcome: Outcome::Ok,
            verdict: None,
        };
        return (skipped, Ok(()));
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
        return (not_checked(loaded.name), Ok(()));
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
        relevance: !args.no_relevance,
        havoc: !args.no_havoc,
        first: args.first,
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
        allow_stuck: args.allow_stuck,
        // holi itself, started as a solver process; without it (a rare platform
        // failure) nonlinear queries run in-process.
        solver_process: std::env::current_exe().ok(),
        jobs: args.jobs.map_or_else(
            || std::thread::available_parallelism().map_or(1, |n| n.get()),
            usize::from,
        ),
        lane: None,
        task_sizes: Default::default(),
    };
    // The proof attempt runs beside the search: from the start under `--prove`; after
    // a few seconds otherwise, so that a quick search never shares its cores, and only
    // when the search may use more than one.
    let race = if args.prove {
        Some(Duration::ZERO)
    } else {
        (!args.no_prove && options.jobs > 1).then_some(RACE_AFTER)
    };
    // Built once: the search and the proof attempt read the same library.
    let lib = crate::library::build(&loaded.program);
    let (result, scope) = match race {
        Some(after) => search_beside_proof(
            &loaded,
            &lib,
            args,
            &options,
            ui,
            Race {
                deadline,
                interrupt,
                after,
            },
            &input.stem(),
        ),
        None => {
            let searching = Instant::now();
            let result = search(&lib, &options, ui);
            let scope = (result.verdict == Verdict::Safe).then(|| {
                let limits = ProofLimits {
                    deadline,
                    own: own_limit(args, searching.elapsed()),
                    interrupt,
                    memory: args.max_memory.saturating_mul(1 << 20),
                };
                prove(&loaded, &lib, args, &limits, &input.stem()).map(|a| a.scope)
            });
            (result, scope)
        }
    };
    let scope = match scope.transpose() {
        Ok(scope) => scope,
        Err(e) => {
            eprintln!("error: cannot write the certificate: {e}");
            return (not_checked(loaded.name), Ok(()));
        }
    };

    // Every counterexample becomes a client; unless told otherwise, each is run to
    // confirm it. A counterexample that does not replay is a bug in holi: say so loudly.
    let confirmation = if args.no_replay && args.client.is_none() {
        None
    } else {
        let options = replay::ConfirmOptions {
            replay: !args.no_replay,
            client_dir: args.client.clone(),
            deadline,
            interrupt: Some(Arc::clone(interrupt)),
        };
        match replay::confirm(
            &loaded.program,
            &result.counterexamples,
            &options,
            &input.stem(),
        ) {
            Ok(c) => Some(c),
            Err(e) => {
                eprintln!("error: cannot write the synthesized clients: {e}");
                return (not_checked(loaded.name), Ok(()));
            }
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
            .map(|c| c.verdicts.iter().map(replay_status).collect()),
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

/// How long the proof attempt may take at least, without `--prove`.
const PROOF_TIME_FLOOR: Duration = Duration::from_secs(1);

/// How long a search runs alone before the proof attempt starts beside it, without
/// `--prove`: all but a few of the HOLiK grid's searches end within it.
const RACE_AFTER: Duration = Duration::from_secs(3);

/// The end of the proof attempt's own time, without `--prove`: as long as the search
/// took (`searched`), at least [`PROOF_TIME_FLOOR`], from now.
fn own_limit(args: &CheckArgs, searched: Duration) -> Option<Instant> {
    (!args.prove).then(|| Instant::now() + searched.max(PROOF_TIME_FLOOR))
}

/// What stops a proof attempt.
struct ProofLimits<'a> {
    /// The command's deadline (`--timeout`).
    deadline: Option<Instant>,
    /// The attempt's own deadline, without `--prove` ([`own_limit`]).
    own: Option<Instant>,
    /// Ctrl-C, and the race's stop.
    interrupt: &'a Arc<AtomicBool>,
    /// Bytes (`--max-memory`, or its share beside the search).
    memory: u64,
}

/// How the proof attempt runs beside the search.
struct Race<'a> {
    deadline: Option<Instant>,
    interrupt: &'a Arc<AtomicBool>,
    /// How long the search runs alone first.
    after: Duration,
}

/// The proof attempt beside the search, so that a library the bounded search would take
/// minutes over (a bank of 450 lines at k 3, l 2) is settled as soon as a proof is found;
/// the search then stops, and the verdict is safe for every k and l (the proof covers
/// these bounds too), with the counts of the search so far. A search that fails or ends
/// stuck stops the attempt. One that ends otherwise waits for it: under `--prove` for as
/// long as the command may run; without it, until the attempt has had as long as the
/// search took, so that the check ends at most `race.after` after the search (which
/// shared its cores with the attempt meanwhile). A search that ends within
/// `race.after` never shares its cores: the attempt then runs after it, as with one
/// thread.
fn search_beside_proof(
    loaded: &Loaded,
    lib: &Library,
    args: &CheckArgs,
    options: &CheckOptions,
    ui: &Ui,
    race: Race,
    stem: &str,
) -> (CheckResult, Option<std::io::Result<Scope>>) {
    let Race {
        deadline,
        interrupt,
        after,
    } = race;
    // Flags that the user's interrupt sets too, and each side may set for the other.
    let stop_search = memory::Watch::start(u64::MAX, Some(Arc::clone(interrupt)));
    let stop_proof = memory::Watch::start(u64::MAX, Some(Arc::clone(interrupt)));
    let options = CheckOptions {
        interrupt: Some(stop_search.flag()),
        ..options.clone()
    };
    let limit = args.max_memory.saturating_mul(1 << 20);
    let searching = Instant::now();
    let (result, beside, searched) = std::thread::scope(|s| {
        let proof_flag = stop_proof.flag();
        let stop_search = &stop_search;
        let (search_ended, ended) = std::sync::mpsc::channel::<()>();
        let (answer, answered) = std::sync::mpsc::channel();
        let attempt = std::thread::Builder::new()
            .name("holi-proof".to_string())
            // The checker recurses once per call of the library's own functions, up to
            // its depth budget: as deep as the front end's stack allows.
            .stack_size(crate::frontend::STACK_SIZE)
            .spawn_scoped(s, move || {
                if !after.is_zero() && ended.recv_timeout(after) != Err(RecvTimeoutError::Timeout) {
                    return;
                }
                // Half the memory limit beside the search, so that the attempt gives
                // way to the search rather than the reverse.
                let limits = ProofLimits {
                    deadline,
                    own: None,
                    interrupt: &proof_flag,
                    memory: limit / 2,
                };
                let attempt = prove(loaded, lib, args, &limits, stem);
                if attempt.as_ref().is_ok_and(Attempt::proved) {
                    stop_search.stop();
                }
                // Unless the search has ended and stopped waiting for it.
                let _ = answer.send(attempt);
            });
        // A search that panics stops the attempt rather than waits for it.
        let _stopping = StopOnDrop(&stop_proof);
        let mut result = search(lib, &options, ui);
        let searched = searching.elapsed();
        drop(search_ended);
        let Ok(attempt) = attempt else {
            return (result, None, searched);
        };
        // A failure or a stuck path (unless `--allow-stuck` keeps the verdict safe)
        // means no proof; a search cut short by `--max-configurations` leaves the
        // attempt its chance, within the deadline.
        let failed = !result.counterexamples.is_empty() || result.verdict == Verdict::Stuck;
        if failed || interrupt.load(Ordering::Relaxed) {
            stop_proof.stop();
        }
        // Without `--prove`, the attempt that started `after` into the search may go
        // on until it has had as long as the search took; stopped there (and not by
        // the command's deadline, which it meets by itself), it says so.
        let own = (!args.prove).then(|| searching + after + searched.max(PROOF_TIME_FLOOR));
        let mut capped = false;
        let waited = match own {
            Some(own) => {
                match answered.recv_timeout(own.saturating_duration_since(Instant::now())) {
                    Err(RecvTimeoutError::Timeout) => {
                        capped = deadline.is_none_or(|d| own < d);
                        stop_proof.stop();
                        answered.recv().ok()
                    }
                    answer => answer.ok(),
                }
            }
            None => answered.recv().ok(),
        };
        if let Err(panic) = attempt.join() {
            std::panic::resume_unwind(panic);
        }
        let beside = waited.map(|attempt| {
            attempt.map(|a| {
                if a.cut_short && capped {
                    let why = format!("the proof attempt was cut short: {CAPPED}");
                    Attempt {
                        scope: Scope::Bounded(why),
                        cut_short: true,
                    }
                } else {
                    a
                }
            })
        });
        if !failed
            && beside
                .as_ref()
                .is_some_and(|a| a.as_ref().is_ok_and(Attempt::proved))
        {
            // The proof covers these bounds: what the search had left is settled.
            result.inconclusive.clear();
            result.verdict = Verdict::Safe;
        }
        (result, beside.map(|b| (b, capped)), searched)
    });
    if result.verdict != Verdict::Safe {
        return (result, None);
    }
    // Stopped beside the search (by its share of memory), not started, or no thread
    // for it: alone, as without the race and with as long as the search took, so that
    // running it beside never weakens the answer.
    let again = match &beside {
        None => true,
        Some((Ok(attempt), capped)) => {
            attempt.cut_short && !capped && !interrupt.load(Ordering::Relaxed)
        }
        Some((Err(_), _)) => false,
    };
    let scope = match beside {
        Some((attempt, _)) if !again => attempt.map(|a| a.scope),
        _ => {
            let limits = ProofLimits {
                deadline,
                own: own_limit(args, searched),
                interrupt,
                memory: limit,
            };
            prove(loaded, lib, args, &limits, stem).map(|a| a.scope)
        }
    };
    (result, Some(scope))
}

/// Stops what its watch serves when dropped.
struct StopOnDrop<'a>(&'a memory::Watch);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// Why an attempt without `--prove` stopped at its own time.
const CAPPED: &str =
    "it may take as long as the search took, at least a second (--prove lifts that)";

/// Tries to prove a library safe for every k and l (after a safe search, or beside
/// it): a certificate found by [`proof::find`] and re-checked by [`proof::check`],
/// written to `--certificate DIR` as `<stem>.smt2` (the only error).
///
/// The deadlines, Ctrl-C and the memory limit ([`ProofLimits`]) stop the attempt within
/// a fraction of a second ([`proof::Budget`]).
fn prove(
    loaded: &Loaded,
    lib: &Library,
    args: &CheckArgs,
    limits: &ProofLimits,
    stem: &str,
) -> std::io::Result<Attempt> {
    if args.no_prove {
        let scope = Scope::Bounded("not attempted (--no-prove)".to_string());
        return Ok(Attempt {
            scope,
            cut_short: false,
        });
    }
    // The memory limit holds here as in the search: its watch sets the flag that stops
    // the checker, as Ctrl-C does.
    let memory = memory::Watch::start(limits.memory, Some(Arc::clone(limits.interrupt)));
    let budget = proof::Budget {
        deadline: match (limits.deadline, limits.own) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        },
        interrupt: Some(memory.flag()),
        ..if args.prove {
            proof::Budget::thorough()
        } else {
            proof::Budget::default()
        }
    };
    let (found, outcome) = proof::find(lib, &proof::candidates(lib), budget.clone());
    let lines = LineIndex::new(&loaded.source);
    let place = |span: &crate::syntax::ast::Span| {
        let at = lines.point(span.start);
        format!("{}:{}:{}", loaded.name, at.line, at.column)
    };
    // The certificate's text comes from one more check of what was found.
    let (outcome, text) = match (&args.certificate, outcome) {
        (Some(_), proof::Outcome::Proved { .. }) => proof::certify(lib, &found, budget, &place),
        (_, outcome) => (outcome, None),
    };
    let cut_short = matches!(&outcome, proof::Outcome::Unknown(why)
        if why == proof::TIME_LIMIT || why == proof::INTERRUPTED);
    let scope = match outcome {
        proof::Outcome::Proved {
            obligations,
            revealed,
            recursive,
        } => {
            let smtlib = match (&args.certificate, text) {
                (Some(dir), Some(text)) => {
                    std::fs::create_dir_all(dir)?;
                    let path = dir.join(format!("{stem}.smt2"));
                    std::fs::write(&path, text)?;
                    Some(path.display().to_string())
                }
                _ => None,
            };
            Scope::AllBounds {
                invariant: (found.invariant.iter())
                    .map(|f| f.display(lib).to_string())
                    .collect(),
                turn_relation: (found.steps.iter())
                    .map(|s| s.display(lib).to_string())
                    .collect(),
                revealed: revealed.iter().map(place).collect(),
                recursive: recursive.iter().map(place).collect(),
                obligations,
                smtlib,
            }
        }
        proof::Outcome::Refuted(o) => Scope::Bounded(format!(
            "no invariant holi tried shows that {}",
            o.describe(&place)
        )),
        proof::Outcome::Unknown(why) if why == proof::TIME_LIMIT || why == proof::INTERRUPTED => {
            let why = if memory.exceeded() {
                format!(
                    "the memory limit ({} MiB, --max-memory) was exceeded",
                    args.max_memory
                )
            } else if why == proof::TIME_LIMIT && limits.deadline.is_none_or(|d| Instant::now() < d)
            {
                CAPPED.to_string()
            } else {
                why
            };
            Scope::Bounded(format!("the proof attempt was cut short: {why}"))
        }
        proof::Outcome::NotCovered(why) | proof::Outcome::Unknown(why) => Scope::Bounded(why),
    };
    Ok(Attempt { scope, cut_short })
}

/// What a proof attempt gives the report, and whether a limit or an interrupt cut it
/// short.
struct Attempt {
    scope: Scope,
    cut_short: bool,
}

impl Attempt {
    fn proved(&self) -> bool {
        matches!(self.scope, Scope::AllBounds { .. })
    }
}

/// Drops `value` on a thread of its own (here if none can be started); the process
/// does not wait for it to finish.
fn free_in_background<T: Send + 'static>(value: T) {
    let _ = std::thread::Builder::new()
        .name("holi-free".to_string())
        .spawn(move || drop(value));
}

/// How a counterexample's replay ended, for the report. No verdict means no client could
/// be written for it: like a mismatch, a bug in holi.
fn replay_status(verdict: &Option<replay::Verdict>) -> Replay {
    match verdict {
        Some(replay::Verdict::Confirmed) => Replay::Confirmed,
        Some(replay::Verdict::NotReplayed(Cutoff::TimeLimit)) => Replay::TimeLimit,
        Some(replay::Verdict::NotReplayed(Cutoff::Interrupted)) => Replay::Interrupted,
        Some(replay::Verdict::Mismatch { .. }) | None => Replay::Mismatch,
    }
}

/// Runs the search, with a progress line on a terminal once it takes over a second.
fn search(lib: &Library, options: &CheckOptions, ui: &Ui) -> CheckResult {
    let bar = (ui.stderr_is_terminal && !ui.quiet()).then(|| {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        // A spinner and the message: the search has no known length to fill a bar with.
        bar.set_style(
            ProgressStyle::with_template("{spinner} {elapsed} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar
    });
    let mut progress = |p: &Progress| {
        if let Some(bar) = &bar {
            if p.elapsed >= Duration::from_secs(1) {
                bar.set_message(progress_message(p));
                bar.tick();
            }
        }
    };
    let result = symbolic::check_with_progress(lib, options, &mut progress);
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    result
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
