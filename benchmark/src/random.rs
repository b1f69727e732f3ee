//! `holi-bench random`: seeded random libraries (`random/generator.rs`), each checked
//! with holi's default options and with each `--no-X` option alone, the variants of a
//! library one after another (so that the machine's drift hits them alike), to find
//! where a pruning that is on by default backfires: makes the default slower than
//! switching it off, or less conclusive. `random/analysis.rs` reads the runs and writes
//! `REPORT.md`.

mod analysis;
pub mod generator;

use crate::meta::{self, Meta};
use crate::process::{self, Supervisor};
use crate::record::{read_rows, write_rows, Status};
use crate::runner::{self, Job};
use clap::Args;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fs::OpenOptions;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

pub use analysis::write_report;

/// The `--no-X` options of `holi check` that switch off one pruning each.
pub const VARIANTS: [&str; 7] = [
    "no-split",
    "no-semantic",
    "no-memo",
    "no-bound",
    "no-havoc",
    "no-inert",
    "no-relevance",
];

/// The name of the run with holi's default options.
pub const DEFAULT: &str = "default";

/// Seconds the runner waits beyond `--timeout` (which holi enforces itself, reporting
/// what it found) before killing the process.
const GRACE: f64 = 10.0;

#[derive(Args, Debug)]
pub struct RandomArgs {
    /// The first seed; the libraries are those of seeds SEED, SEED+1, …, each a
    /// function of its seed alone.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// How many libraries.
    #[arg(long, default_value_t = 100)]
    count: u64,
    /// `holi check --timeout` per run, in seconds.
    #[arg(long, default_value_t = 30.0)]
    timeout: f64,
    /// The holi binary (default: `holi` beside this executable).
    #[arg(long)]
    holi: Option<PathBuf>,
    /// The results directory: libraries/, libraries.csv, runs.csv, REPORT.md, meta.json.
    /// Runs already in its runs.csv are not run again.
    #[arg(long)]
    out: PathBuf,
    /// The variants besides the default, comma-separated (names of `holi check`
    /// options without the dashes).
    #[arg(long, value_delimiter = ',', default_values_t = VARIANTS.map(String::from))]
    variants: Vec<String>,
    /// Time differences are ignored where both the default and the best variant took
    /// less than this many seconds (start-up and noise).
    #[arg(long, default_value_t = 0.1)]
    floor: f64,
    /// Where the default was more than 2× slower than the best variant, run both this
    /// many times more, alternately, and compare the medians: one run of each is noisy,
    /// and the fastest of seven variants is biased low.
    #[arg(long, default_value_t = 2)]
    confirm: u32,
    /// Only write the libraries (and libraries.csv); run nothing.
    #[arg(long)]
    generate_only: bool,
    /// No progress lines.
    #[arg(long)]
    quiet: bool,
    /// Extra arguments for every `holi check`, after `--`.
    #[arg(last = true)]
    holi_args: Vec<String>,
}

/// A row of `libraries.csv`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct LibraryRow {
    pub file: String,
    pub seed: u64,
    pub k: u32,
    pub l: u32,
    pub components: u32,
    pub methods: u32,
    pub bytes: usize,
    pub features: String,
}

/// A row of `runs.csv`: one variant on one library.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Run {
    pub library: String,
    pub k: u32,
    pub l: u32,
    pub variant: String,
    /// 1 for the first pass; 2… for the runs `--confirm` adds.
    pub round: u32,
    pub status: Status,
    pub verdict: Option<String>,
    /// Whether the search was complete: a verdict with no reason for incompleteness (an
    /// unsafe verdict found before a limit is conclusive but not complete).
    pub complete: bool,
    pub seconds: f64,
    pub configurations: Option<u64>,
    pub subsumed: Option<u64>,
    pub covered: Option<u64>,
    pub unreachable_sites: Option<u64>,
    pub solver_queries: Option<u64>,
    pub failing_traces: Option<u64>,
    /// The shortest trace per failure site: `LINE:COLUMN:KIND=MOVES`, space-separated,
    /// sorted.
    pub sites: String,
    pub note: String,
}

impl Run {
    /// Safe or unsafe: an answer, whatever else the run did not finish.
    pub fn conclusive(&self) -> bool {
        matches!(self.verdict.as_deref(), Some("safe" | "unsafe"))
            && matches!(self.status, Status::Done)
    }
}

pub fn run(args: RandomArgs) -> Result<(), String> {
    for variant in &args.variants {
        if !VARIANTS.contains(&variant.as_str()) {
            return Err(format!(
                "--variants: unknown variant `{variant}` (known: {})",
                VARIANTS.join(", ")
            ));
        }
    }
    if !(args.timeout > 0.0 && args.timeout.is_finite()) {
        return Err(format!(
            "--timeout {}: must be a positive number of seconds",
            args.timeout
        ));
    }
    let libraries = generate_libraries(&args.out, args.seed, args.count)?;
    if args.generate_only {
        println!(
            "wrote {} libraries to {}",
            libraries.len(),
            args.out.join("libraries").display()
        );
        return Ok(());
    }
    let holi = process::locate_holi(args.holi.clone())?;
    Meta::append(
        &args.out,
        meta::Invocation {
            started: meta::utc_now(),
            command_line: crate::command_line(),
            holi_commit: meta::holi_commit(),
            holi: holi.display().to_string(),
            programs: args.out.join("libraries").display().to_string(),
            files: libraries.len(),
            ks: distinct(libraries.iter().map(|l| l.k)),
            ls: distinct(libraries.iter().map(|l| l.l)),
            timeout_seconds: args.timeout,
            jobs: 1,
            extra_args: args.holi_args.clone(),
            skip_after_timeout: false,
            machine: meta::Machine::detect(),
            compare: None,
        },
    )?;
    let interrupted = run_all(&args, &holi, &libraries)?;
    write_report(&args.out, args.floor)?;
    println!("wrote {}", args.out.join("REPORT.md").display());
    if interrupted {
        Err("interrupted; rerun the same command to resume".to_string())
    } else {
        Ok(())
    }
}

fn distinct(values: impl Iterator<Item = u32>) -> Vec<u32> {
    values.collect::<BTreeSet<u32>>().into_iter().collect()
}

/// Writes the libraries of seeds `seed..seed + count` into `dir/libraries/` and
/// `dir/libraries.csv`. A file there with other contents (another generator version)
/// is refused rather than mixed.
fn generate_libraries(dir: &Path, seed: u64, count: u64) -> Result<Vec<LibraryRow>, String> {
    let libraries = dir.join("libraries");
    std::fs::create_dir_all(&libraries).map_err(|e| format!("{}: {e}", libraries.display()))?;
    let mut rows = Vec::new();
    for s in seed..seed.saturating_add(count) {
        let library = generator::generate(s);
        let path = libraries.join(&library.file);
        match std::fs::read_to_string(&path) {
            Ok(existing) if existing != library.text => {
                return Err(format!(
                    "{} was written by another generator; use a new --out",
                    path.display()
                ))
            }
            Ok(_) => {}
            Err(_) => std::fs::write(&path, &library.text)
                .map_err(|e| format!("{}: {e}", path.display()))?,
        }
        rows.push(LibraryRow {
            file: library.file.clone(),
            seed: s,
            k: library.k,
            l: library.l,
            components: library.components,
            methods: library.methods,
            bytes: library.text.len(),
            features: library.feature_list(),
        });
    }
    // Rewritten whole: a resumed run may cover more seeds than the first.
    let mut known = read_csv::<LibraryRow>(&dir.join("libraries.csv"))?;
    known.retain(|row| !rows.iter().any(|r| r.file == row.file));
    known.extend(rows.iter().cloned());
    known.sort_by_key(|row| row.seed);
    write_rows(&dir.join("libraries.csv"), &known)?;
    Ok(rows)
}

/// Reads a CSV file of `T` rows (see [`read_rows`]).
pub fn read_csv<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Vec<T>, String> {
    read_rows(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Runs every (library, variant) not yet in `runs.csv`, then the confirmation rounds;
/// returns whether the user interrupted.
fn run_all(args: &RandomArgs, holi: &Path, libraries: &[LibraryRow]) -> Result<bool, String> {
    let mut runner = Runner::open(args, holi)?;
    let mut variants = vec![DEFAULT.to_string()];
    variants.extend(args.variants.iter().cloned());
    for (index, library) in libraries.iter().enumerate() {
        // Which variant goes first rotates from library to library.
        let mut order = variants.clone();
        order.rotate_left(index % variants.len());
        for variant in &order {
            if runner.run(library, variant, 1)? {
                return Ok(true);
            }
        }
    }
    let rows: BTreeMap<String, LibraryRow> = libraries
        .iter()
        .map(|row| (row.file.clone(), row.clone()))
        .collect();
    // Medians can make another variant the best; confirm that one too, until nothing is
    // left to run (each variant of a library is confirmed at most once, so this ends).
    loop {
        let ran = runner.ran;
        let runs = read_csv::<Run>(&args.out.join("runs.csv"))?;
        let suspects = analysis::analyse(&runs, &rows, args.floor, args.timeout).backfires;
        for backfire in suspects.iter().filter(|b| b.kind == "slower") {
            let Some(library) = rows.get(&backfire.library) else {
                continue;
            };
            for round in 2..=args.confirm.saturating_add(1) {
                let mut pair = [DEFAULT, backfire.variant.as_str()];
                if round % 2 == 0 {
                    pair.reverse();
                }
                for variant in pair {
                    if runner.run(library, variant, round)? {
                        return Ok(true);
                    }
                }
            }
        }
        if runner.ran == ran {
            return Ok(runner.supervisor.is_interrupted());
        }
    }
}

/// Runs `holi check` and appends each run to `runs.csv`, skipping those already there.
struct Runner<'a> {
    args: &'a RandomArgs,
    holi: &'a Path,
    done: BTreeSet<(String, String, u32)>,
    writer: csv::Writer<std::fs::File>,
    supervisor: Arc<Supervisor>,
    /// Runs made so far by this invocation.
    ran: usize,
}

impl<'a> Runner<'a> {
    fn open(args: &'a RandomArgs, holi: &'a Path) -> Result<Self, String> {
        let runs_csv = args.out.join("runs.csv");
        let done = read_csv::<Run>(&runs_csv)?
            .into_iter()
            .map(|r| (r.library, r.variant, r.round))
            .collect();
        let fresh = std::fs::metadata(&runs_csv).map_or(true, |m| m.len() == 0);
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&runs_csv)
            .map_err(|e| format!("{}: {e}", runs_csv.display()))?;
        let writer = csv::WriterBuilder::new()
            .has_headers(fresh)
            .from_writer(file);
        let supervisor = Arc::new(Supervisor::default());
        {
            let supervisor = Arc::clone(&supervisor);
            // Only fails when a handler is already installed; the run then has none.
            let _ = ctrlc::set_handler(move || supervisor.interrupt());
        }
        Ok(Runner {
            args,
            holi,
            done,
            writer,
            supervisor,
            ran: 0,
        })
    }

    /// Runs one variant on one library unless `runs.csv` has it; returns whether the
    /// user interrupted.
    fn run(&mut self, library: &LibraryRow, variant: &str, round: u32) -> Result<bool, String> {
        let key = (library.file.clone(), variant.to_string(), round);
        if self.done.contains(&key) {
            return Ok(false);
        }
        let args = self.args;
        let job = Job {
            path: args.out.join("libraries").join(&library.file),
            file: library.file.clone(),
            k: library.k,
            l: library.l,
            binary: None,
            round: None,
        };
        let mut extra = vec!["--timeout".to_string(), args.timeout.to_string()];
        if variant != DEFAULT {
            extra.push(format!("--{variant}"));
        }
        extra.extend(args.holi_args.iter().cloned());
        // A timeout too large for a Duration is no limit at all.
        let kill_after = Duration::try_from_secs_f64(args.timeout + GRACE).unwrap_or(Duration::MAX);
        let finished = process::run(
            self.holi,
            &runner::check_args(&job, &extra),
            kill_after,
            &self.supervisor,
        )?;
        if finished.interrupted {
            return Ok(true);
        }
        let record = runner::classify(&job, &finished);
        let run = to_run(library, variant, round, record, &finished.stdout);
        if !args.quiet {
            eprintln!(
                "{} (seed {}) {variant}{}: {}{} {:.3} s",
                library.file,
                library.seed,
                if round > 1 {
                    format!(" round {round}")
                } else {
                    String::new()
                },
                run.verdict.as_deref().unwrap_or(run.status.name()),
                if run.complete { "" } else { " (incomplete)" },
                run.seconds
            );
        }
        self.writer.serialize(&run).map_err(|e| e.to_string())?;
        self.writer.flush().map_err(|e| e.to_string())?;
        self.done.insert(key);
        self.ran += 1;
        Ok(false)
    }
}

/// The row of a run: the grid runner's reading of it, plus what the report compares
/// across variants (completeness, the shortest trace per site, the pruning counters).
fn to_run(
    library: &LibraryRow,
    variant: &str,
    round: u32,
    record: crate::record::RunRecord,
    stdout: &str,
) -> Run {
    let json: Option<Value> = serde_json::from_str(stdout.trim()).ok();
    let stat = |name: &str| {
        json.as_ref()
            .and_then(|v| v.get("stats"))
            .and_then(|s| s.get(name))
            .and_then(Value::as_u64)
    };
    let complete = record.status == Status::Done
        && json
            .as_ref()
            .is_some_and(|v| v.get("inconclusive").is_none());
    Run {
        library: library.file.clone(),
        k: library.k,
        l: library.l,
        variant: variant.to_string(),
        round,
        status: record.status,
        verdict: record.verdict,
        complete,
        seconds: record.seconds,
        configurations: record.configurations,
        subsumed: stat("subsumed"),
        covered: stat("covered"),
        unreachable_sites: stat("unreachable_sites"),
        solver_queries: record.solver_queries,
        failing_traces: record.failing_traces,
        sites: json.as_ref().map(sites).unwrap_or_default(),
        note: record.note,
    }
}

/// The shortest trace per failure site of a JSON report, as `LINE:COLUMN:KIND=MOVES`.
fn sites(report: &Value) -> String {
    let mut shortest: BTreeMap<(u64, u64, String), u64> = BTreeMap::new();
    let counterexamples = report
        .get("counterexamples")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    for c in counterexamples {
        let place = |key: &str| {
            c.get("assert")
                .and_then(|a| a.get(key))
                .and_then(Value::as_u64)
                .unwrap_or(0)
        };
        let kind = c
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or("assert")
            .to_string();
        let moves = c.get("moves").and_then(Value::as_u64).unwrap_or(0);
        let entry = shortest
            .entry((place("line"), place("column"), kind))
            .or_insert(moves);
        *entry = (*entry).min(moves);
    }
    let parts: Vec<String> = shortest
        .into_iter()
        .map(|((line, column, kind), moves)| format!("{line}:{column}:{kind}={moves}"))
        .collect();
    parts.join(" ")
}

/// Whether `dir` holds the results of `holi-bench random`.
pub fn is_random(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("runs.csv"))
        .is_ok_and(|text| text.starts_with("library,k,l,variant,round,"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sites_keep_the_shortest_trace_per_place_and_kind() {
        let report: Value = serde_json::from_str(
            r#"{"counterexamples":[
                {"assert":{"line":3,"column":5},"kind":"assert","moves":7},
                {"assert":{"line":3,"column":5},"kind":"assert","moves":4},
                {"assert":{"line":2,"column":9},"kind":"division","moves":5}]}"#,
        )
        .unwrap();
        assert_eq!(sites(&report), "2:9:division=5 3:5:assert=4");
    }
}
