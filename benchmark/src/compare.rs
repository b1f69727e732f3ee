//! `holi-bench compare`: two holi binaries over the same grid in one run, interleaved cell
//! by cell so that both see the same machine load, and a report of their time ratio and
//! of whether they agree.

use crate::meta::{self, BinaryInfo, Invocation, Meta};
use crate::process;
use crate::record::{read_runs_by_run, Binary, RunRecord, Status};
use crate::runner::{self, Job};
use crate::{execute, results_dir, RunOptions};
use clap::Args;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// The holi binary to compare against (the "before"); --holi is the "after".
    #[arg(long)]
    baseline: PathBuf,
    /// Directory of .holi files (default: ../shared/holik-bench/programs beside the repository).
    #[arg(long)]
    programs: Option<PathBuf>,
    /// Bounds k: N, A..B (inclusive) or A,B,C.
    #[arg(long, default_value = "2..5")]
    k: String,
    /// Bounds l: N, A..B (inclusive) or A,B,C.
    #[arg(long, default_value = "1..3")]
    l: String,
    /// Only these cells of the grid, as FILE:K:L separated by commas (e.g. the heaviest
    /// ones, to time `--jobs 1` against `--jobs 2` through two wrapper scripts).
    #[arg(long)]
    cells: Option<String>,
    /// Runs per binary per cell; a cell's time is the median of its rounds.
    #[arg(long, default_value_t = 1)]
    repeat: u32,
    /// The commit the baseline was built from, for the report (default: guessed from the
    /// git work tree the binary sits in, if any).
    #[arg(long)]
    baseline_commit: Option<String>,
    /// The commit the new binary was built from (default: guessed as for the baseline).
    #[arg(long)]
    new_commit: Option<String>,
    #[command(flatten)]
    run: RunOptions,
}

pub fn run(args: CompareArgs) -> Result<(), String> {
    if args.repeat == 0 {
        return Err("--repeat 0: must be at least 1".to_string());
    }
    let programs = args
        .programs
        .unwrap_or_else(|| meta::repo_root().join("../shared/holik-bench/programs"));
    let files = runner::programs_in(&programs)?;
    let ks = meta::parse_bounds(&args.k)?;
    let ls = meta::parse_bounds(&args.l)?;
    let dir = results_dir(&args.run, "compare")?;
    if !args.baseline.is_file() {
        return Err(format!(
            "--baseline {}: no such file",
            args.baseline.display()
        ));
    }
    let new = process::locate_holi(args.run.holi.clone())?;
    let compare = meta::Compare {
        baseline: BinaryInfo::describe(&args.baseline, args.baseline_commit.as_deref())?,
        new: BinaryInfo::describe(&new, args.new_commit.as_deref())?,
        repeat: args.repeat,
    };
    check_resumable(&dir, &compare)?;
    let mut jobs = compare_jobs(&files, &ks, &ls, args.repeat);
    if let Some(cells) = &args.cells {
        let wanted = parse_cells(cells)?;
        if let Some((file, k, l)) = wanted
            .iter()
            .find(|cell| !jobs.iter().any(|job| in_cell(job, cell)))
        {
            return Err(format!(
                "--cells: {file}:{k}:{l} is not a cell of the grid (files in {}, --k, --l)",
                programs.display()
            ));
        }
        jobs.retain(|job| wanted.iter().any(|cell| in_cell(job, cell)));
    }
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
        Some(compare),
    )?;
    write_report(&dir)?;
    summary.finish(&dir.join("report.md"))
}

/// `FILE:K:L,…` as cells.
fn parse_cells(text: &str) -> Result<Vec<(String, u32, u32)>, String> {
    text.split(',')
        .map(|cell| {
            let bad = || format!("--cells: bad cell `{cell}`: expected FILE:K:L");
            let mut parts = cell.trim().rsplitn(3, ':');
            let l = parts.next().and_then(|l| l.parse().ok()).ok_or_else(bad)?;
            let k = parts.next().and_then(|k| k.parse().ok()).ok_or_else(bad)?;
            let file = parts.next().filter(|f| !f.is_empty()).ok_or_else(bad)?;
            Ok((file.to_string(), k, l))
        })
        .collect()
}

fn in_cell(job: &Job, (file, k, l): &(String, u32, u32)) -> bool {
    job.file == *file && job.k == *k && job.l == *l
}

/// Whether `dir` holds a comparison (its last invocation was `compare`).
pub fn is_comparison(dir: &Path) -> bool {
    Meta::load(dir)
        .ok()
        .and_then(|meta| meta.invocations.last().cloned())
        .is_some_and(|invocation| invocation.compare.is_some())
}

/// A results directory is resumed only with the very binaries that started it: anything
/// else would mix two comparisons in one `runs.csv`.
fn check_resumable(dir: &Path, compare: &meta::Compare) -> Result<(), String> {
    let meta = Meta::load(dir)?;
    for earlier in &meta.invocations {
        let Some(before) = &earlier.compare else {
            return Err(format!(
                "{} holds a `{}` run, not a comparison; use another --name or --out",
                dir.display(),
                earlier.command_line
            ));
        };
        for (binary, then, now) in [
            ("baseline", &before.baseline, &compare.baseline),
            ("new", &before.new, &compare.new),
        ] {
            if then.fnv64 != now.fnv64 {
                return Err(format!(
                    "{} was started with another {binary} binary (`{}`, fnv64 {}; now `{}`, \
                     fnv64 {}); use another --name or --out",
                    dir.display(),
                    then.path,
                    then.fnv64,
                    now.path,
                    now.fnv64
                ));
            }
        }
    }
    Ok(())
}

/// Which binary runs first in `round` (from 1) of the cell at `index` in grid order: the
/// baseline in round 1 of even cells, and then alternately, so consecutive cells start
/// with different binaries and the rounds of one cell go B N | N B | B N …
pub fn first_in(index: usize, round: u32) -> Binary {
    if (index + round as usize - 1).is_multiple_of(2) {
        Binary::Baseline
    } else {
        Binary::New
    }
}

/// The grid's cells in its order (bound by bound, files by name), each as `repeat` rounds
/// of both binaries back to back.
pub fn compare_jobs(files: &[PathBuf], ks: &[u32], ls: &[u32], repeat: u32) -> Vec<Job> {
    let mut jobs = Vec::new();
    for (index, cell) in runner::grid_jobs(files, ks, ls).into_iter().enumerate() {
        for round in 1..=repeat {
            let first = first_in(index, round);
            let second = match first {
                Binary::Baseline => Binary::New,
                Binary::New => Binary::Baseline,
            };
            for binary in [first, second] {
                let mut job = cell.clone();
                job.binary = Some(binary);
                job.round = Some(round);
                jobs.push(job);
            }
        }
    }
    jobs
}

/// The values two runs should agree on, by name, in report order.
pub const FIELDS: [&str; 4] = ["verdict", "failing_traces", "min_moves", "configurations"];

/// What a finished run said, compared field by field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub verdict: Option<String>,
    pub failing_traces: Option<u64>,
    pub min_moves: Option<u64>,
    pub configurations: Option<u64>,
}

impl Outcome {
    fn of(run: &RunRecord) -> Outcome {
        Outcome {
            verdict: run.verdict.clone(),
            failing_traces: run.failing_traces,
            min_moves: run.min_moves,
            configurations: run.configurations,
        }
    }

    /// The value of `FIELDS[field]` as the report shows it.
    pub fn field(&self, field: usize) -> String {
        let number = |v: Option<u64>| v.map_or_else(|| "–".to_string(), |v| v.to_string());
        match field {
            0 => self.verdict.clone().unwrap_or_else(|| "–".to_string()),
            1 => number(self.failing_traces),
            2 => number(self.min_moves),
            _ => number(self.configurations),
        }
    }
}

/// One binary's rounds of one cell, summarised.
#[derive(Clone, Debug, PartialEq)]
pub struct Side {
    pub rounds: usize,
    /// `done` when every round is; otherwise the status of the first round that is not.
    pub status: Status,
    /// The median of the rounds' seconds (timeouts as measured, skipped runs as charged).
    pub seconds: f64,
    /// The first finished round's values (the first round's when none finished).
    pub outcome: Outcome,
    /// Finished rounds that disagree among themselves.
    pub unstable: bool,
}

impl Side {
    /// Summarises the runs of one binary at one cell (in any order; at least one).
    pub fn of(runs: &[&RunRecord]) -> Side {
        let mut runs = runs.to_vec();
        runs.sort_by_key(|r| r.round);
        let status = runs
            .iter()
            .map(|r| r.status)
            .find(|s| *s != Status::Done)
            .unwrap_or(Status::Done);
        let mut seconds: Vec<f64> = runs.iter().map(|r| r.seconds).collect();
        let done: Vec<Outcome> = runs
            .iter()
            .filter(|r| r.status == Status::Done)
            .map(|r| Outcome::of(r))
            .collect();
        Side {
            rounds: runs.len(),
            status,
            seconds: median(&mut seconds).unwrap_or(0.0),
            outcome: done
                .first()
                .cloned()
                .unwrap_or_else(|| Outcome::of(runs[0])),
            unstable: done.iter().any(|o| *o != done[0]),
        }
    }

    fn text(&self) -> String {
        format!("{} {:.3} s", self.status.name(), self.seconds)
    }
}

/// A cell both binaries ran.
#[derive(Clone, Debug, PartialEq)]
pub struct Pair {
    pub file: String,
    pub k: u32,
    pub l: u32,
    pub baseline: Side,
    pub new: Side,
}

/// Cells whose time counts as more than process start-up: either binary took this long.
pub const SLOW: f64 = 0.1;

impl Pair {
    pub fn both_done(&self) -> bool {
        self.baseline.status == Status::Done && self.new.status == Status::Done
    }

    /// new / baseline; a run too fast to time counts as 1 ms.
    pub fn ratio(&self) -> f64 {
        self.new.seconds.max(0.001) / self.baseline.seconds.max(0.001)
    }

    pub fn slow(&self) -> bool {
        self.baseline.seconds.max(self.new.seconds) >= SLOW
    }

    /// Indices into `FIELDS` of the values the two binaries report differently.
    pub fn differences(&self) -> Vec<usize> {
        (0..FIELDS.len())
            .filter(|&f| self.baseline.outcome.field(f) != self.new.outcome.field(f))
            .collect()
    }
}

/// Groups compare rows into the cells both binaries ran (in grid order: k, l, file), and
/// counts the cells only one of them ran.
pub fn pair_up(runs: &[RunRecord]) -> (Vec<Pair>, usize) {
    type Sides<'a> = [Vec<&'a RunRecord>; 2];
    let mut cells: BTreeMap<(u32, u32, &str), Sides> = BTreeMap::new();
    for run in runs {
        let Some(binary) = run.binary else { continue };
        let sides = cells.entry((run.k, run.l, &run.file)).or_default();
        sides[usize::from(binary == Binary::New)].push(run);
    }
    let mut pairs = Vec::new();
    let mut one_sided = 0;
    for ((k, l, file), [baseline, new]) in cells {
        if baseline.is_empty() || new.is_empty() {
            one_sided += 1;
            continue;
        }
        pairs.push(Pair {
            file: file.to_string(),
            k,
            l,
            baseline: Side::of(&baseline),
            new: Side::of(&new),
        });
    }
    (pairs, one_sided)
}

pub fn median(values: &mut [f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    Some(if values.len().is_multiple_of(2) {
        (values[mid - 1] + values[mid]) / 2.0
    } else {
        values[mid]
    })
}

pub fn geomean(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    Some((values.iter().map(|v| v.ln()).sum::<f64>() / values.len() as f64).exp())
}

/// Time over a set of cells.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Times {
    pub cells: usize,
    pub both_done: usize,
    /// Σ of each binary's per-cell seconds over all the cells (timeouts as measured).
    pub baseline_seconds: f64,
    pub new_seconds: f64,
    /// new / baseline per cell, over the cells both finished.
    pub geomean: Option<f64>,
    pub median: Option<f64>,
    /// The same over the cells both finished where either took at least `SLOW`.
    pub slow_cells: usize,
    pub slow_geomean: Option<f64>,
    pub slow_median: Option<f64>,
}

pub fn times(pairs: &[&Pair]) -> Times {
    let mut ratios: Vec<f64> = pairs
        .iter()
        .filter(|p| p.both_done())
        .map(|p| p.ratio())
        .collect();
    let mut slow: Vec<f64> = pairs
        .iter()
        .filter(|p| p.both_done() && p.slow())
        .map(|p| p.ratio())
        .collect();
    Times {
        cells: pairs.len(),
        both_done: ratios.len(),
        baseline_seconds: pairs.iter().map(|p| p.baseline.seconds).sum(),
        new_seconds: pairs.iter().map(|p| p.new.seconds).sum(),
        geomean: geomean(&ratios),
        median: median(&mut ratios),
        slow_cells: slow.len(),
        slow_geomean: geomean(&slow),
        slow_median: median(&mut slow),
    }
}

/// Field-by-field agreement over the cells both finished.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Agreement {
    pub compared: usize,
    /// Cells agreeing on each of `FIELDS`.
    pub equal: [usize; 4],
    /// Cells agreeing on all of them.
    pub all: usize,
}

pub fn agreement(pairs: &[&Pair]) -> Agreement {
    let mut result = Agreement::default();
    for pair in pairs.iter().filter(|p| p.both_done()) {
        result.compared += 1;
        let differences = pair.differences();
        for (field, equal) in result.equal.iter_mut().enumerate() {
            *equal += usize::from(!differences.contains(&field));
        }
        result.all += usize::from(differences.is_empty());
    }
    result
}

fn ratio_text(value: Option<f64>) -> String {
    value.map_or_else(|| "–".to_string(), |v| format!("{v:.3}×"))
}

fn bound_label(k: u32, l: u32) -> String {
    format!("k ≤ {k}, l ≤ {l}")
}

/// Writes `dir/report.md` from `dir/runs.csv` and `dir/meta.json`; returns the text.
pub fn write_report(dir: &Path) -> Result<String, String> {
    let path = dir.join("runs.csv");
    let runs: Vec<RunRecord> = read_runs_by_run(&path)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .into_values()
        .collect();
    let meta = Meta::load(dir)?;
    let name = dir
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let text = render(&name, &runs, &meta);
    let path = dir.join("report.md");
    std::fs::write(&path, &text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(text)
}

pub fn render(name: &str, runs: &[RunRecord], meta: &Meta) -> String {
    let (pairs, one_sided) = pair_up(runs);
    let all: Vec<&Pair> = pairs.iter().collect();
    let total = times(&all);
    let agree = agreement(&all);
    let last: Option<&Invocation> = meta.invocations.last();
    let repeat = last
        .and_then(|i| i.compare.as_ref())
        .map_or(1, |c| c.repeat);

    let mut out = String::new();
    let _ = writeln!(out, "# holi compare `{name}`\n");
    if pairs.is_empty() {
        render_invocation(&mut out, meta);
        out.push_str("No cell has been run by both binaries yet.\n");
        return out;
    }
    let slow = if total.slow_cells == 0 {
        format!("no cell took ≥ {SLOW} s")
    } else {
        format!(
            "{} ({} median) over the {} of them where either took ≥ {SLOW} s",
            ratio_text(total.slow_geomean),
            ratio_text(total.slow_median),
            total.slow_cells
        )
    };
    let _ = writeln!(
        out,
        "**Time, new/baseline: {} geometric mean ({} median) over the {} cells both \
         finished; {slow}. Σ {:.1} s baseline, {:.1} s new.**  ",
        ratio_text(total.geomean),
        ratio_text(total.median),
        total.both_done,
        total.baseline_seconds,
        total.new_seconds,
    );
    let _ = writeln!(
        out,
        "**Agreement: {}.**\n",
        if agree.compared == 0 {
            "nothing to compare: no cell finished by both".to_string()
        } else if agree.all == agree.compared {
            format!(
                "verdict, failing traces, shortest trace and configurations identical in all \
                 {} cells both finished",
                agree.compared
            )
        } else {
            format!(
                "{} of the {} cells both finished differ in at least one value (below)",
                agree.compared - agree.all,
                agree.compared
            )
        }
    );
    out.push_str("Ratios below 1 mean the new binary is faster.\n\n");

    render_invocation(&mut out, meta);
    render_cells(&mut out, runs, &pairs, one_sided, meta, repeat);
    render_times(&mut out, &pairs, &total, repeat);
    render_agreement(&mut out, &pairs, &agree);
    render_statuses(&mut out, runs);
    out
}

fn render_invocation(out: &mut String, meta: &Meta) {
    out.push_str("## Invocation\n\n");
    let Some(last) = meta.invocations.last() else {
        out.push_str("No meta.json.\n\n");
        return;
    };
    if let Some(compare) = &last.compare {
        for (label, info) in [("Baseline", &compare.baseline), ("New", &compare.new)] {
            let _ = writeln!(
                out,
                "- **{label}** `{}`: commit `{}` ({}); file modified {}, {:.1} MB, fnv64 `{}`",
                info.path,
                info.commit,
                info.commit_source,
                info.modified,
                info.bytes as f64 / 1e6,
                info.fnv64
            );
        }
        if compare.baseline.fnv64 == compare.new.fnv64 {
            out.push_str(
                "- The two binaries have the same contents: this run measures noise \
                 (an A/A comparison).\n",
            );
        }
    }
    for (index, invocation) in meta.invocations.iter().enumerate() {
        let label = if meta.invocations.len() > 1 {
            format!(" {}", index + 1)
        } else {
            String::new()
        };
        let machine = &invocation.machine;
        let _ = writeln!(
            out,
            "- Command{label}, {}: `{}`\n  - holi-bench from commit `{}`; timeout {} s; \
             bounds k {:?} × l {:?}; {} files from `{}`; {} round(s) per binary per cell; \
             {} job(s){}{}\n  - machine: {}, {} cores, {} GiB memory, {}",
            invocation.started,
            invocation.command_line,
            invocation.holi_commit,
            invocation.timeout_seconds,
            invocation.ks,
            invocation.ls,
            invocation.files,
            invocation.programs,
            invocation.compare.as_ref().map_or(1, |c| c.repeat),
            invocation.jobs,
            if invocation.extra_args.is_empty() {
                String::new()
            } else {
                format!(
                    "; extra holi arguments `{}`",
                    invocation.extra_args.join(" ")
                )
            },
            if invocation.skip_after_timeout {
                "; cells dominated by a timeout of the same binary skipped"
            } else {
                ""
            },
            machine.cpu,
            machine.cores,
            machine.memory_gib,
            machine.os,
        );
    }
    out.push('\n');
}

fn render_cells(
    out: &mut String,
    runs: &[RunRecord],
    pairs: &[Pair],
    one_sided: usize,
    meta: &Meta,
    repeat: u32,
) {
    out.push_str("## Cells run\n\n");
    let planned = meta
        .invocations
        .last()
        .map(|i| i.files * i.ks.len() * i.ls.len());
    let short = pairs
        .iter()
        .filter(|p| p.baseline.rounds < repeat as usize || p.new.rounds < repeat as usize)
        .count();
    let _ = writeln!(
        out,
        "- {} cells run by both binaries{}, {} runs in all.",
        pairs.len(),
        match planned {
            Some(planned) if planned != pairs.len() => format!(
                " of the {planned} in the grid (**partial**: every table covers only these)"
            ),
            _ => String::new(),
        },
        runs.len()
    );
    if one_sided > 0 {
        let _ = writeln!(
            out,
            "- {one_sided} cells run by one binary only (interrupted); left out of every table."
        );
    }
    if short > 0 {
        let _ = writeln!(
            out,
            "- {short} cells have fewer than {repeat} rounds of a binary (interrupted); \
             their time is the median of the rounds there are."
        );
    }
    let sum = |binary| {
        runs.iter()
            .filter(|r| r.binary == Some(binary))
            .map(|r| r.seconds)
            .sum::<f64>()
    };
    let _ = writeln!(
        out,
        "- Order: for each cell, the binaries run back to back, one at a time when `--jobs` \
         is 1; the first alternates from cell to cell and from round to round.\n\
         - Sum of run times over all runs: baseline {:.1} s, new {:.1} s.\n",
        sum(Binary::Baseline),
        sum(Binary::New)
    );
}

fn render_times(out: &mut String, pairs: &[Pair], total: &Times, repeat: u32) {
    let _ = writeln!(
        out,
        "## Time\n\nPer cell, a binary's time is the wall-clock seconds of its run{}, \
         process start-up included. The ratio is new/baseline per cell (runs under 1 ms \
         count as 1 ms), summarised by its geometric mean and median over the cells both \
         finished (`done`); the last three columns restrict that to the cells where either \
         binary took ≥ {SLOW} s, since below that the time is mostly process start-up. Σ s \
         sums each binary's time over all the bound's cells, timeouts as measured and \
         skipped runs as the timeout.\n\n\
         | bound | cells | both done | baseline Σ s | new Σ s | geometric mean | median | \
         cells ≥ {SLOW} s | geometric mean | median |\n\
         |---|---|---|---|---|---|---|---|---|---|",
        if repeat > 1 {
            format!(" (the median of its {repeat} rounds)")
        } else {
            String::new()
        }
    );
    let mut bounds: Vec<(u32, u32)> = pairs.iter().map(|p| (p.k, p.l)).collect();
    bounds.dedup();
    let row = |label: String, t: &Times| {
        format!(
            "| {label} | {} | {} | {:.1} | {:.1} | {} | {} | {} | {} | {} |\n",
            t.cells,
            t.both_done,
            t.baseline_seconds,
            t.new_seconds,
            ratio_text(t.geomean),
            ratio_text(t.median),
            t.slow_cells,
            ratio_text(t.slow_geomean),
            ratio_text(t.slow_median)
        )
    };
    for (k, l) in bounds {
        let here: Vec<&Pair> = pairs.iter().filter(|p| p.k == k && p.l == l).collect();
        out.push_str(&row(bound_label(k, l), &times(&here)));
    }
    out.push_str(&row("**all**".to_string(), total));

    let mut slowest: Vec<&Pair> = pairs.iter().filter(|p| p.both_done() && p.slow()).collect();
    if !slowest.is_empty() {
        slowest.sort_by(|a, b| {
            (b.baseline.seconds.max(b.new.seconds))
                .total_cmp(&a.baseline.seconds.max(a.new.seconds))
        });
        slowest.truncate(10);
        out.push_str(
            "\nThe slowest cells both finished:\n\n\
             | file | k | l | baseline s | new s | new/baseline |\n|---|---|---|---|---|---|\n",
        );
        for p in slowest {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {:.3} | {:.3} | {} |",
                p.file,
                p.k,
                p.l,
                p.baseline.seconds,
                p.new.seconds,
                ratio_text(Some(p.ratio()))
            );
        }
    }
    out.push('\n');
}

fn render_agreement(out: &mut String, pairs: &[Pair], total: &Agreement) {
    out.push_str(
        "## Agreement\n\nOver the cells both binaries finished (`done` in every round): \
         in how many each value is the same. `min_moves` is the length of the shortest \
         counterexample (– when safe).\n\n\
         | bound | both done | verdict | failing_traces | min_moves | configurations | all four |\n\
         |---|---|---|---|---|---|---|\n",
    );
    let mut bounds: Vec<(u32, u32)> = pairs.iter().map(|p| (p.k, p.l)).collect();
    bounds.dedup();
    let row = |label: String, a: &Agreement| {
        format!(
            "| {label} | {} | {} | {} | {} | {} | {} |\n",
            a.compared, a.equal[0], a.equal[1], a.equal[2], a.equal[3], a.all
        )
    };
    for (k, l) in bounds {
        let here: Vec<&Pair> = pairs.iter().filter(|p| p.k == k && p.l == l).collect();
        out.push_str(&row(bound_label(k, l), &agreement(&here)));
    }
    out.push_str(&row("**all**".to_string(), total));

    let differing: Vec<(&Pair, usize)> = pairs
        .iter()
        .filter(|p| p.both_done())
        .flat_map(|p| p.differences().into_iter().map(move |f| (p, f)))
        .collect();
    let (results, configurations): (Vec<_>, Vec<_>) =
        differing.into_iter().partition(|(_, f)| *f < 3);
    let _ = writeln!(
        out,
        "\n### Verdict, failing traces or shortest trace differ ({} values)\n",
        results.len()
    );
    if results.is_empty() {
        out.push_str("None.\n");
    } else {
        out.push_str("| file | k | l | value | baseline | new |\n|---|---|---|---|---|---|\n");
        for (p, f) in results {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} |",
                p.file,
                p.k,
                p.l,
                FIELDS[f],
                p.baseline.outcome.field(f),
                p.new.outcome.field(f)
            );
        }
    }
    let _ = writeln!(
        out,
        "\n### Configurations differ ({} cells)\n",
        configurations.len()
    );
    if configurations.is_empty() {
        out.push_str("None.\n");
    } else {
        out.push_str(
            "| file | k | l | baseline | new | new/baseline |\n|---|---|---|---|---|---|\n",
        );
        for (p, _) in configurations {
            let ratio = match (
                p.baseline.outcome.configurations,
                p.new.outcome.configurations,
            ) {
                (Some(b), Some(n)) if b > 0 => ratio_text(Some(n as f64 / b as f64)),
                _ => "–".to_string(),
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {ratio} |",
                p.file,
                p.k,
                p.l,
                p.baseline.outcome.field(3),
                p.new.outcome.field(3)
            );
        }
    }

    let unfinished: Vec<&Pair> = pairs
        .iter()
        .filter(|p| p.baseline.status != p.new.status)
        .collect();
    let _ = writeln!(
        out,
        "\n### Cells whose status differs ({})\n",
        unfinished.len()
    );
    if unfinished.is_empty() {
        out.push_str("None.\n");
    } else {
        out.push_str("| file | k | l | baseline | new |\n|---|---|---|---|---|\n");
        for p in unfinished {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                p.file,
                p.k,
                p.l,
                p.baseline.text(),
                p.new.text()
            );
        }
    }

    let unstable: Vec<(&Pair, Binary)> = pairs
        .iter()
        .flat_map(|p| {
            [(Binary::Baseline, &p.baseline), (Binary::New, &p.new)]
                .into_iter()
                .filter(|(_, side)| side.unstable)
                .map(move |(b, _)| (p, b))
        })
        .collect();
    if !unstable.is_empty() {
        let _ = writeln!(
            out,
            "\n### Rounds of one binary that disagree ({})\n\n\
             The binary's finished rounds of these cells report different values (the \
             tables above use the first); see `runs.csv`.\n\n\
             | file | k | l | binary |\n|---|---|---|---|",
            unstable.len()
        );
        for (p, b) in unstable {
            let _ = writeln!(out, "| {} | {} | {} | {} |", p.file, p.k, p.l, b.name());
        }
    }
    out.push('\n');
}

fn render_statuses(out: &mut String, runs: &[RunRecord]) {
    let mut counts: BTreeMap<(Status, Binary), usize> = BTreeMap::new();
    for run in runs {
        if let Some(binary) = run.binary {
            *counts.entry((run.status, binary)).or_default() += 1;
        }
    }
    out.push_str(
        "## Status\n\nRuns (every round counts) by how they ended: `done` (a verdict), \
         `inconclusive` (holi gave up, exit 3), `error` (exit 2, a crash or unreadable \
         output), `timeout` (killed at the deadline), `skipped` (not run after a timeout of \
         the same binary, with `--skip-after-timeout`).\n\n\
         | status | baseline | new |\n|---|---|---|\n",
    );
    for status in Status::ALL {
        let [b, n] = Binary::BOTH.map(|binary| counts.get(&(status, binary)).copied().unwrap_or(0));
        if b + n > 0 || status == Status::Done {
            let _ = writeln!(out, "| {} | {b} | {n} |", status.name());
        }
    }
    let errors: Vec<&RunRecord> = runs.iter().filter(|r| r.status == Status::Error).collect();
    if !errors.is_empty() {
        let _ = writeln!(
            out,
            "\n### Errors ({})\n\n| file | k | l | binary | round | reason |\n|---|---|---|---|---|---|",
            errors.len()
        );
        for run in errors {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} |",
                run.file,
                run.k,
                run.l,
                run.binary.map_or("?", Binary::name),
                run.round.unwrap_or(0),
                run.note.replace('|', "\\|")
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_parsed_and_bad_ones_refused() {
        assert_eq!(
            parse_cells("a.holi:4:1, b-mo.holi:5:3"),
            Ok(vec![
                ("a.holi".to_string(), 4, 1),
                ("b-mo.holi".to_string(), 5, 3)
            ])
        );
        for bad in ["a.holi:4", ":4:1", "a.holi:x:1", "a.holi:4:1,"] {
            assert!(parse_cells(bad).is_err(), "{bad}");
        }
    }

    fn run(
        file: &str,
        k: u32,
        (binary, round): (Binary, u32),
        status: Status,
        seconds: f64,
        traces: u64,
        configurations: u64,
    ) -> RunRecord {
        let mut record = RunRecord::bare(file, k, 1, status, seconds, String::new());
        if status == Status::Done {
            record.verdict = Some(if traces > 0 { "unsafe" } else { "safe" }.to_string());
            record.failing_traces = Some(traces);
            record.min_moves = (traces > 0).then_some(4);
            record.configurations = Some(configurations);
        }
        record.binary = Some(binary);
        record.round = Some(round);
        record
    }

    use Binary::{Baseline as B, New as N};
    use Status::{Done, Timeout};

    #[test]
    fn binaries_alternate_from_cell_to_cell_and_round_to_round() {
        let files = vec![PathBuf::from("d/a.holi"), PathBuf::from("d/b.holi")];
        let order: Vec<(String, u32, Binary, u32)> = compare_jobs(&files, &[2, 3], &[1], 2)
            .into_iter()
            .map(|j| (j.file, j.k, j.binary.unwrap(), j.round.unwrap()))
            .collect();
        assert_eq!(order.len(), 2 * 2 * 2 * 2);
        let a = |k, b, r| ("a.holi".to_string(), k, b, r);
        let b = |k, bin, r| ("b.holi".to_string(), k, bin, r);
        assert_eq!(
            order[..8],
            [
                a(2, B, 1),
                a(2, N, 1),
                a(2, N, 2),
                a(2, B, 2),
                b(2, N, 1),
                b(2, B, 1),
                b(2, B, 2),
                b(2, N, 2)
            ]
        );
        // The third cell (a.holi at k 3) starts with the baseline again.
        assert_eq!(order[8], a(3, B, 1));
        // Every binary goes first equally often over an even number of cells.
        let firsts = order.chunks(2).filter(|pair| pair[0].2 == B).count();
        assert_eq!(firsts, 4);
    }

    #[test]
    fn a_side_takes_the_median_and_its_worst_round() {
        let runs = [
            run("a", 2, (B, 2), Done, 3.0, 1, 10),
            run("a", 2, (B, 1), Done, 1.0, 1, 10),
            run("a", 2, (B, 3), Done, 2.0, 1, 10),
        ];
        let side = Side::of(&runs.iter().collect::<Vec<_>>());
        assert_eq!((side.rounds, side.status, side.seconds), (3, Done, 2.0));
        assert!(!side.unstable);

        let runs = [
            run("a", 2, (B, 1), Done, 1.0, 1, 10),
            run("a", 2, (B, 2), Timeout, 9.0, 0, 0),
            run("a", 2, (B, 3), Done, 2.0, 1, 11),
        ];
        let side = Side::of(&runs.iter().collect::<Vec<_>>());
        assert_eq!((side.status, side.seconds), (Timeout, 2.0));
        assert_eq!(side.outcome.configurations, Some(10));
        assert!(side.unstable, "10 vs 11 configurations");
    }

    #[test]
    fn ratios_cover_cells_both_finished_and_the_slow_ones_apart() {
        let runs = vec![
            // 2× slower, both slow.
            run("a", 2, (B, 1), Done, 1.0, 0, 5),
            run("a", 2, (N, 1), Done, 2.0, 0, 5),
            // 8× faster, slow.
            run("b", 2, (B, 1), Done, 0.8, 1, 9),
            run("b", 2, (N, 1), Done, 0.1, 1, 9),
            // Start-up only: 0.5, not slow.
            run("c", 2, (B, 1), Done, 0.04, 0, 1),
            run("c", 2, (N, 1), Done, 0.02, 0, 1),
            // New times out: no ratio, but both sums count it.
            run("d", 2, (B, 1), Done, 3.0, 1, 7),
            run("d", 2, (N, 1), Timeout, 10.0, 0, 0),
            // Only the baseline ran: not a pair.
            run("e", 2, (B, 1), Done, 1.0, 0, 1),
        ];
        let (pairs, one_sided) = pair_up(&runs);
        assert_eq!((pairs.len(), one_sided), (4, 1));
        let t = times(&pairs.iter().collect::<Vec<_>>());
        assert_eq!((t.cells, t.both_done, t.slow_cells), (4, 3, 2));
        assert!((t.baseline_seconds - 4.84).abs() < 1e-9);
        assert!((t.new_seconds - 12.12).abs() < 1e-9);
        // Ratios 2, 1/8, 1/2: geometric mean ∛(1/8) = 0.5, median 0.5.
        assert!((t.geomean.unwrap() - 0.5).abs() < 1e-9);
        assert_eq!(t.median, Some(0.5));
        // Slow only: 2 and 1/8: geometric mean 0.5, median 1.0625.
        assert!((t.slow_geomean.unwrap() - 0.5).abs() < 1e-9);
        assert_eq!(t.slow_median, Some(1.0625));
    }

    #[test]
    fn agreement_counts_fields_and_lists_every_difference() {
        let runs = vec![
            run("a", 2, (B, 1), Done, 1.0, 2, 5),
            run("a", 2, (N, 1), Done, 1.0, 2, 5),
            // Same verdict, other count and configurations.
            run("b", 2, (B, 1), Done, 1.0, 3, 9),
            run("b", 2, (N, 1), Done, 1.0, 1, 4),
            // Verdict differs.
            run("c", 3, (B, 1), Done, 1.0, 0, 6),
            run("c", 3, (N, 1), Done, 1.0, 1, 6),
            // Not compared: the new one timed out.
            run("d", 3, (B, 1), Done, 1.0, 1, 6),
            run("d", 3, (N, 1), Timeout, 9.0, 0, 0),
        ];
        let (pairs, _) = pair_up(&runs);
        let a = agreement(&pairs.iter().collect::<Vec<_>>());
        assert_eq!(a.compared, 3);
        assert_eq!(a.equal, [2, 1, 2, 2]);
        assert_eq!(a.all, 1);

        let text = render("x", &runs, &Meta::default());
        assert!(
            text.contains("**Agreement: 2 of the 3 cells both finished differ"),
            "{text}"
        );
        assert!(
            text.contains("| k ≤ 2, l ≤ 1 | 2 | 2 | 1 | 2 | 1 | 1 |"),
            "{text}"
        );
        assert!(
            text.contains("| **all** | 3 | 2 | 1 | 2 | 2 | 1 |"),
            "{text}"
        );
        assert!(
            text.contains("### Verdict, failing traces or shortest trace differ (4 values)"),
            "{text}"
        );
        assert!(
            text.contains("| b | 2 | 1 | failing_traces | 3 | 1 |"),
            "{text}"
        );
        assert!(
            text.contains("| c | 3 | 1 | verdict | safe | unsafe |"),
            "{text}"
        );
        assert!(
            text.contains("| c | 3 | 1 | failing_traces | 0 | 1 |"),
            "{text}"
        );
        assert!(text.contains("| c | 3 | 1 | min_moves | – | 4 |"), "{text}");
        assert!(
            text.contains("### Configurations differ (1 cells)"),
            "{text}"
        );
        assert!(text.contains("| b | 2 | 1 | 9 | 4 | 0.444× |"), "{text}");
        assert!(
            text.contains("### Cells whose status differs (1)"),
            "{text}"
        );
        assert!(
            text.contains("| d | 3 | 1 | done 1.000 s | timeout 9.000 s |"),
            "{text}"
        );
        assert!(text.contains("| timeout | 0 | 1 |"), "{text}");
    }

    #[test]
    fn identical_runs_agree_totally() {
        let runs = vec![
            run("a", 2, (B, 1), Done, 0.5, 2, 5),
            run("a", 2, (N, 1), Done, 0.25, 2, 5),
        ];
        let text = render("x", &runs, &Meta::default());
        assert!(
            text.contains("**Time, new/baseline: 0.500× geometric mean"),
            "{text}"
        );
        assert!(
            text.contains("identical in all 1 cells both finished"),
            "{text}"
        );
        for section in [
            "## Invocation",
            "## Cells run",
            "## Time",
            "## Agreement",
            "## Status",
        ] {
            assert!(text.contains(section), "{section}:\n{text}");
        }
        assert!(!text.contains("Rounds of one binary"), "{text}");
    }
}
