//! Conformance with HOLiK (the paper's implementation) on its own benchmark.
//!
//! The reference results live outside the repository in `../shared/holik-bench`
//! (`reference.csv`, `minimal.csv`, `traces/`); every test here skips with a note when
//! that directory is absent. Traces are compared as sets after replacing every symbol
//! (HOLiK's `_N`, our `x1`/`f1`/`m1` and symbolic terms) by `_`. Cells where we
//! disagree on purpose are listed, with the reason, in `benchmark/holik-conformance.md`.

use holi::report::anonymized;
use holi::symbolic::{check, CheckOptions, Verdict};
use holi::symbolic::{Bounds, Limits, Run, Techniques};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn bench_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/holik-bench");
    if dir.join("reference.csv").is_file() {
        Some(dir)
    } else {
        eprintln!(
            "note: {} not found; skipping HOLiK conformance",
            dir.display()
        );
        None
    }
}

struct Reference {
    file: String,
    k: u32,
    l: u32,
    traces: usize,
    done: bool,
}

fn reference(dir: &Path) -> Vec<Reference> {
    let text = std::fs::read_to_string(dir.join("reference.csv")).unwrap();
    text.lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            Reference {
                file: f[0].to_string(),
                k: f[1].parse().unwrap(),
                l: f[2].parse().unwrap(),
                traces: f[4].parse().unwrap(),
                done: f[6] == "done",
            }
        })
        .collect()
}

/// `file → min_moves` at the file's header bound, where HOLiK found a trace.
fn minimal(dir: &Path) -> HashMap<String, usize> {
    let text = std::fs::read_to_string(dir.join("minimal.csv")).unwrap();
    text.lines()
        .skip(1)
        .filter_map(|line| {
            let f: Vec<&str> = line.splitn(5, ',').collect();
            Some((f[0].to_string(), f[3].parse().ok()?))
        })
        .collect()
}

/// HOLiK's traces for a cell with every `_N` replaced by `_`.
fn holik_traces(dir: &Path, file: &str, k: u32, l: u32) -> BTreeSet<String> {
    let base = file.trim_end_matches(".holi");
    let path = dir.join(format!("traces/{base}__k{k}_l{l}.txt"));
    let Ok(text) = std::fs::read_to_string(path) else {
        return BTreeSet::new();
    };
    text.lines().map(anonymize_holik).collect()
}

fn anonymize_holik(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == '_' && chars.peek().is_some_and(|d| d.is_ascii_digit()) {
            while chars.peek().is_some_and(|d| d.is_ascii_digit()) {
                chars.next();
            }
        }
    }
    out
}

/// Our result for one cell: verdict, shortest trace length, and the anonymized set of
/// failing traces (when `all`).
struct Ours {
    verdict: Verdict,
    min_moves: Option<usize>,
    traces: BTreeSet<String>,
    /// Distinct failing traces (by our printed text).
    failing: usize,
    /// The search ran to the end (no limit hit, no solver `unknown`).
    complete: bool,
    seconds: f64,
}

fn run_cell(dir: &Path, file: &str, k: u32, l: u32, all: bool, limit: Duration) -> Ours {
    let loaded = holi::frontend::load(&dir.join("programs").join(file), false)
        .unwrap_or_else(|r| panic!("{file} does not load:\n{}", r.render(false)));
    let library = holi::library::build(&loaded.program);
    let options = CheckOptions {
        bounds: Bounds { k, l },
        techniques: Techniques {
            all,
            ..Techniques::default()
        },
        limits: Limits {
            timeout: Some(limit),
            ..Limits::default()
        },
        run: Run {
            // HOLiK's reading of a stuck path: no trace.
            allow_stuck: true,
            ..Run::default()
        },
    };
    let start = Instant::now();
    let result = check(&library, &options);
    let declared = |name: &str| library.is_declared(name);
    Ours {
        verdict: result.verdict,
        min_moves: result.counterexamples.iter().map(|c| c.trace.0.len()).min(),
        traces: result
            .counterexamples
            .iter()
            .map(|c| anonymized(&c.trace, &declared))
            .collect(),
        failing: result.failing_traces,
        complete: result.inconclusive.is_empty(),
        seconds: start.elapsed().as_secs_f64(),
    }
}

/// Cells listed in `benchmark/holik-conformance.md` under "Known disagreements", as
/// rows `| file | k | l | reason |`.
fn known_disagreements() -> HashSet<(String, u32, u32)> {
    let doc = Path::new(env!("CARGO_MANIFEST_DIR")).join("benchmark/holik-conformance.md");
    let text = std::fs::read_to_string(doc).unwrap_or_default();
    let Some(start) = text.find("## Known disagreements") else {
        return HashSet::new();
    };
    text[start..]
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with("## "))
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            if cells.len() < 5 {
                return None;
            }
            Some((
                cells[1].trim_matches('`').to_string(),
                cells[2].parse().ok()?,
                cells[3].parse().ok()?,
            ))
        })
        .collect()
}

/// The cells checked by default: each file at its header bound, and at k = 2 where the
/// header has k = 1 (HOLiK's grid starts at k = 2).
fn header_cells(dir: &Path) -> Vec<(String, u32, u32)> {
    let mut files: Vec<String> = std::fs::read_dir(dir.join("programs"))
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|f| f.ends_with(".holi"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|f| {
            let loaded = holi::frontend::load(&dir.join("programs").join(&f), false).unwrap();
            let b = loaded.program.bounds.expect("corpus files have headers");
            let k = if b.k == 1 { 2 } else { b.k };
            let l = if b.k == 1 { 1 } else { b.l };
            (f, k, l)
        })
        .collect()
}

const CELL_LIMIT: Duration = Duration::from_secs(60);

#[test]
fn header_bounds_agree_with_holik() {
    let Some(dir) = bench_dir() else { return };
    let reference: HashMap<(String, u32, u32), Reference> = reference(&dir)
        .into_iter()
        .map(|r| ((r.file.clone(), r.k, r.l), r))
        .collect();
    let minimal = minimal(&dir);
    let known = known_disagreements();
    let mut failures = Vec::new();
    let mut compared = 0;
    for (file, k, l) in header_cells(&dir) {
        let Some(r) = reference.get(&(file.clone(), k, l)) else {
            continue;
        };
        if !r.done {
            continue;
        }
        let ours = run_cell(&dir, &file, k, l, true, CELL_LIMIT);
        compared += 1;
        let holik = holik_traces(&dir, &file, k, l);
        let expected = if r.traces > 0 {
            Verdict::Unsafe
        } else {
            Verdict::Safe
        };
        let cell = (file.clone(), k, l);
        if ours.verdict != expected {
            failures.push(format!(
                "{file} k{k} l{l}: verdict {:?}, HOLiK {expected:?}",
                ours.verdict
            ));
        }
        if let Some(&m) = minimal.get(&file) {
            if ours.min_moves != Some(m) && !known.contains(&cell) {
                failures.push(format!(
                    "{file} k{k} l{l}: shortest {:?} moves, HOLiK {m}",
                    ours.min_moves
                ));
            }
        }
        if ours.traces != holik && !known.contains(&cell) {
            let missing: Vec<_> = holik.difference(&ours.traces).take(3).collect();
            let extra: Vec<_> = ours.traces.difference(&holik).take(3).collect();
            failures.push(format!(
                "{file} k{k} l{l}: {} traces, HOLiK {}; missing {missing:?}; extra {extra:?}",
                ours.traces.len(),
                holik.len()
            ));
        }
    }
    assert!(compared > 50, "only {compared} cells compared");
    assert!(
        failures.is_empty(),
        "{} disagreements:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Every cell of HOLiK's grid (70 files × k 2–5 × l 1–3). Slow: run with
/// `cargo test --release --test conformance -- --ignored --nocapture`; optional filter
/// `HOLI_GRID=substring` on file names, `HOLI_GRID_LIMIT=seconds` per cell,
/// `HOLI_GRID_ONLY_DONE=1` to skip the cells HOLiK did not finish,
/// `HOLI_GRID_ONLY_TIMEOUTS=1` to run only those.
#[test]
#[ignore]
fn full_grid_agreement_table() {
    let Some(dir) = bench_dir() else { return };
    let filter = std::env::var("HOLI_GRID").unwrap_or_default();
    let only_done = std::env::var("HOLI_GRID_ONLY_DONE").is_ok();
    let only_timeouts = std::env::var("HOLI_GRID_ONLY_TIMEOUTS").is_ok();
    let limit = std::env::var("HOLI_GRID_LIMIT")
        .ok()
        .and_then(|s| s.parse().ok())
        .map_or(Duration::from_secs(60), Duration::from_secs_f64);
    let (mut compared, mut agreeing, mut verdicts, mut ours_only) = (0, 0, 0, 0);
    let (mut our_total, mut holik_total) = (0.0, 0.0);
    let mut disagreements = Vec::new();
    println!(
        "file,k,l,holik_status,holik_traces,our_verdict,our_traces,agree,our_seconds,holik_seconds"
    );
    let csv = std::fs::read_to_string(dir.join("reference.csv")).unwrap();
    let seconds: HashMap<(String, u32, u32), f64> = csv
        .lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            (
                (
                    f[0].to_string(),
                    f[1].parse().unwrap(),
                    f[2].parse().unwrap(),
                ),
                f[5].parse().unwrap(),
            )
        })
        .collect();
    for r in reference(&dir) {
        if !r.file.contains(&filter) || (only_done && !r.done) || (only_timeouts && r.done) {
            continue;
        }
        // Trace sets are only compared where HOLiK finished.
        let ours = run_cell(&dir, &r.file, r.k, r.l, r.done, limit);
        let holik_seconds = seconds[&(r.file.clone(), r.k, r.l)];
        our_total += ours.seconds;
        holik_total += holik_seconds;
        let finished = ours.complete;
        let agree = if r.done {
            compared += 1;
            let holik = holik_traces(&dir, &r.file, r.k, r.l);
            let same = holik == ours.traces;
            if ours.complete && !same {
                disagreements.push(format!("{} k={} l={}", r.file, r.k, r.l));
            }
            agreeing += usize::from(same);
            verdicts += usize::from((r.traces > 0) == (ours.verdict == Verdict::Unsafe));
            if same {
                "yes"
            } else {
                "NO"
            }
        } else {
            ours_only += usize::from(finished);
            "-"
        };
        println!(
            "{},{},{},{},{},{:?}{},{},{agree},{:.3},{holik_seconds}",
            r.file,
            r.k,
            r.l,
            if r.done { "done" } else { "timeout" },
            r.traces,
            ours.verdict,
            if ours.complete { "" } else { "(cut)" },
            if r.done {
                ours.traces.len()
            } else {
                ours.failing
            },
            ours.seconds,
        );
    }
    println!(
        "compared {compared} cells HOLiK finished: {agreeing} identical trace sets, {verdicts} same verdict; \
         {ours_only} cells HOLiK timed out on finished by us; time {our_total:.1} s (HOLiK {holik_total:.0} s)"
    );
    assert!(
        disagreements.is_empty(),
        "trace sets differ from HOLiK's in cells both finished: {disagreements:?}"
    );
}
