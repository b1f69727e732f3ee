//! `holi-bench hobbit`: `holi equiv` on Hobbit's labelled pairs (`../shared/hobbit-bench`,
//! issue 44): per pair the verdict, the bounds covered, the time, and Hobbit's reported
//! time and answer side by side.
//!
//! Each pair runs once, `holi equiv FILE.bils --format json --timeout T --certificate
//! OUT/certificates` (the bounds deepen from 1, 1; once the defaults are covered a proof
//! for every bound is tried, and without one the deepening goes on past them until a
//! difference or the limit, so the limit leaves the bounds covered), under a
//! wall-clock watchdog a few seconds past T. A verdict that contradicts the label is
//! counted apart: it is the number that must stay 0, as is an inequivalent pair proved
//! equivalent.

use crate::meta;
use crate::process::{self, Supervisor};
use clap::Args;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Args, Debug)]
pub struct HobbitArgs {
    /// The holi binary (default: `holi` beside this executable).
    #[arg(long)]
    holi: Option<PathBuf>,
    /// The suite (default: ../shared/hobbit-bench beside the repository).
    #[arg(long)]
    suite: Option<PathBuf>,
    /// `--timeout` of each `holi equiv`, in seconds.
    #[arg(long, default_value_t = 60.0)]
    timeout: f64,
    /// Pairs to run at the same time (times are the point: 1 by default).
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// The results directory (report.md, runs.csv).
    #[arg(long)]
    out: PathBuf,
}

/// One row of the suite's `expected.csv` and what holi answered.
struct Pair {
    file: String,
    expected: String,
    hobbit_seconds: Option<f64>,
    hobbit_answer: String,
    verdict: String,
    covered: String,
    seconds: f64,
    why: String,
    /// Equivalent within the bounds covered when a limit stopped the deepening.
    cut: bool,
    /// When the main lane completed the default bounds (k 4, l 4, 4 unfoldings, lists
    /// of 3): the answer `holi equiv` gives without `--timeout`, from the levels.
    to_defaults: Option<f64>,
    /// Proved equivalent for every k and l: the proof's time and the size of its
    /// certificate (SMT-LIB, bytes).
    proof: Option<(f64, u64)>,
    /// Why no proof was found, when one was attempted.
    not_proved: String,
}

/// The bounds `holi equiv` deepens to without `--timeout` on files without headers.
const DEFAULTS: [(&str, u64); 4] = [("k", 4), ("l", 4), ("unfold", 4), ("list_length", 3)];

pub fn run(args: HobbitArgs) -> Result<(), String> {
    let holi = process::locate_holi(args.holi)?;
    let suite = args
        .suite
        .unwrap_or_else(|| meta::repo_root().join("../shared/hobbit-bench"));
    let expected = std::fs::read_to_string(suite.join("expected.csv"))
        .map_err(|e| format!("{}: {e}", suite.join("expected.csv").display()))?;
    let mut pairs: Vec<Pair> = expected
        .lines()
        .skip(1)
        .filter_map(|line| {
            let cells: Vec<&str> = line.split(',').collect();
            let [file, label, seconds, answer] = cells[..] else {
                return None;
            };
            Some(Pair {
                file: file.to_string(),
                expected: label.to_string(),
                hobbit_seconds: seconds.parse().ok(),
                hobbit_answer: answer.to_string(),
                verdict: String::new(),
                covered: String::new(),
                seconds: 0.0,
                why: String::new(),
                cut: false,
                to_defaults: None,
                proof: None,
                not_proved: String::new(),
            })
        })
        .collect();
    std::fs::create_dir_all(&args.out).map_err(|e| format!("{}: {e}", args.out.display()))?;
    let started = meta::utc_now();
    let supervisor = Supervisor::default();
    // Each job takes the next pair not taken: the equivalent pairs, which run to the
    // limit, come first in the suite and would otherwise all fall to one job.
    let queue = std::sync::Mutex::new(pairs.iter_mut());
    std::thread::scope(|s| {
        for _ in 0..args.jobs.max(1) {
            let (holi, suite, supervisor, queue, out) =
                (&holi, &suite, &supervisor, &queue, &args.out);
            s.spawn(move || {
                while let Some(pair) = queue.lock().ok().and_then(|mut q| q.next()) {
                    measure(holi, suite, out, pair, args.timeout, supervisor);
                    eprintln!("{}: {} ({:.2} s)", pair.file, pair.verdict, pair.seconds);
                }
            });
        }
    });
    write(&args.out, &holi, &started, args.timeout, &pairs)
}

/// Runs `holi equiv` on `pair` and records its answer.
fn measure(
    holi: &Path,
    suite: &Path,
    out: &Path,
    pair: &mut Pair,
    timeout: f64,
    supervisor: &Supervisor,
) {
    let certificates = out.join("certificates");
    let args = vec![
        "equiv".to_string(),
        suite.join(&pair.file).display().to_string(),
        "--format".to_string(),
        "json".to_string(),
        "--timeout".to_string(),
        timeout.to_string(),
        "--certificate".to_string(),
        certificates.display().to_string(),
    ];
    let watchdog = Duration::from_secs_f64(timeout + 10.0);
    let finished = match process::run(holi, &args, watchdog, supervisor) {
        Ok(f) => f,
        Err(e) => {
            pair.verdict = "error".to_string();
            pair.why = e;
            return;
        }
    };
    pair.seconds = finished.seconds;
    if finished.timed_out {
        pair.verdict = "killed".to_string();
        return;
    }
    let Ok(report) = serde_json::from_str::<serde_json::Value>(&finished.stdout) else {
        pair.verdict = "rejected".to_string();
        pair.why = first_line(&finished.stderr);
        return;
    };
    pair.verdict = report["verdict"].as_str().unwrap_or("unknown").to_string();
    pair.covered = match (&report["covered"]["k"], &report["covered"]["l"]) {
        (serde_json::Value::Number(k), serde_json::Value::Number(l)) => format!("k{k} l{l}"),
        _ => "-".to_string(),
    };
    pair.to_defaults = report["levels"].as_array().and_then(|levels| {
        levels
            .iter()
            .find(|l| {
                l["probe"] == false
                    && l["end"] == "complete"
                    && DEFAULTS.iter().all(|&(bound, least)| {
                        // A list length is null where no list crosses the interface.
                        let value = &l["bounds"][bound];
                        value.is_null() || value.as_u64().is_some_and(|v| v >= least)
                    })
            })
            .and_then(|l| l["seconds"].as_f64())
    });
    if let Some(why) = report["inconclusive"].as_array().and_then(|a| a.first()) {
        pair.why = why.as_str().unwrap_or_default().to_string();
    }
    if let Some(why) = report["beyond"]["why"].as_array().and_then(|a| a.first()) {
        pair.cut = true;
        pair.why = format!("larger bounds cut: {}", why.as_str().unwrap_or_default());
    }
    if report["scope"] == "all-bounds" {
        let seconds = report["proof"]["seconds"].as_f64().unwrap_or_default();
        let size = (report["proof"]["smtlib"].as_str())
            .and_then(|path| std::fs::metadata(path).ok())
            .map_or(0, |m| m.len());
        pair.proof = Some((seconds, size));
    }
    if let Some(why) = report["not_proved"].as_str() {
        pair.not_proved = why.to_string();
    }
}

/// The error's title: the first line of what holi printed, without its colours.
fn first_line(stderr: &str) -> String {
    stderr.lines().next().unwrap_or_default().replace(',', ";")
}

/// Whether `verdict` contradicts the label `expected` outright: an equivalent pair told
/// apart. (An inequivalent pair equivalent within the bounds is a bounded answer whose
/// difference needs larger bounds: counted as missed.)
fn wrong(expected: &str, verdict: &str) -> bool {
    expected == "equivalent" && verdict == "inequivalent"
}

/// Whether an inequivalent pair was found equivalent within the bounds tried.
fn missed(expected: &str, verdict: &str) -> bool {
    expected == "inequivalent" && verdict == "equivalent"
}

fn median(mut xs: Vec<f64>) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    xs.sort_by(f64::total_cmp);
    Some(xs[xs.len() / 2])
}

fn write(
    out: &Path,
    holi: &Path,
    started: &str,
    timeout: f64,
    pairs: &[Pair],
) -> Result<(), String> {
    let mut csv = String::from(
        "file,expected,verdict,covered,seconds,to_defaults,proved,proof_seconds,certificate_bytes,hobbit_seconds,hobbit_answer,why,not_proved\n",
    );
    for p in pairs {
        let _ = writeln!(
            csv,
            "{},{},{},{},{:.3},{},{},{},{},{},{},{},{}",
            p.file,
            p.expected,
            p.verdict,
            p.covered,
            p.seconds,
            p.to_defaults
                .map_or_else(String::new, |s| format!("{s:.3}")),
            p.proof.is_some(),
            p.proof.map_or_else(String::new, |(s, _)| format!("{s:.3}")),
            p.proof.map_or_else(String::new, |(_, b)| b.to_string()),
            p.hobbit_seconds.map_or_else(String::new, |s| s.to_string()),
            p.hobbit_answer,
            p.why.replace(',', ";"),
            p.not_proved.replace(',', ";")
        );
    }
    let write_file = |name: &str, text: &str| {
        std::fs::write(out.join(name), text).map_err(|e| format!("{}: {e}", out.display()))
    };
    write_file("runs.csv", &csv)?;
    let mut md = String::from("# `holi equiv` on Hobbit's labelled pairs\n\n");
    let machine = meta::Machine::detect();
    let _ = writeln!(
        md,
        "holi {} (`{}`), {} pairs, `--timeout {timeout}` each, started {started}, on {} \
         ({} cores, {:.0} GiB).\n",
        meta::holi_commit(),
        holi.display(),
        pairs.len(),
        machine.cpu,
        machine.cores,
        machine.memory_gib
    );
    md.push_str(
        "Equivalent means equivalent within the bounds reached (`covered`); wrong counts \
         equivalent pairs told apart, which must stay 0; an inequivalent pair equivalent \
         within the bounds is missed: its difference needs larger bounds.\n\n",
    );
    md.push_str(
        "An equivalent answer is within the largest bounds the deepening covered. With \
         `--timeout`, the deepening goes on past the default bounds until a difference is \
         found or the time runs out (`cut`, which the answer says), or no bound's growth \
         changes the search any more; so most equivalent pairs take the whole limit.\n\n",
    );
    md.push_str("| label | pairs | equivalent (of them cut) | inequivalent | inconclusive | stuck | not compared | wrong |\n|---|---|---|---|---|---|---|---|\n");
    for label in ["equivalent", "inequivalent"] {
        let of: Vec<&Pair> = pairs.iter().filter(|p| p.expected == label).collect();
        let count = |v: &str| of.iter().filter(|p| p.verdict == v).count();
        let compared = ["equivalent", "inequivalent", "inconclusive", "stuck"];
        let other = of
            .iter()
            .filter(|p| !compared.contains(&p.verdict.as_str()))
            .count();
        let wrong = of.iter().filter(|p| wrong(label, &p.verdict)).count();
        let cut = of.iter().filter(|p| p.cut).count();
        let _ = writeln!(
            md,
            "| {label} | {} | {} ({cut}) | {} | {} | {} | {other} | **{wrong}** |",
            of.len(),
            count("equivalent"),
            count("inequivalent"),
            count("inconclusive"),
            count("stuck"),
        );
    }
    let settled = |p: &&Pair| p.verdict == p.expected;
    let ours = median(pairs.iter().filter(settled).map(|p| p.seconds).collect());
    let complete = median(
        pairs
            .iter()
            .filter(settled)
            .filter(|p| !p.cut)
            .map(|p| p.seconds)
            .collect(),
    );
    // Hobbit's reported median over the pairs it gave one of `answers`.
    let hobbit = |answers: &[&str]| {
        median(
            pairs
                .iter()
                .filter(|p| answers.contains(&p.hobbit_answer.as_str()))
                .filter_map(|p| p.hobbit_seconds)
                .collect(),
        )
    };
    let theirs = hobbit(&["yes", "no"]);
    let apart = median(
        pairs
            .iter()
            .filter(|p| p.expected == "inequivalent" && p.verdict == "inequivalent")
            .map(|p| p.seconds)
            .collect(),
    );
    let their_apart = hobbit(&["no"]);
    let defaults: Vec<f64> = pairs
        .iter()
        .filter(|p| p.expected == "equivalent" && p.verdict == "equivalent")
        .filter_map(|p| p.to_defaults)
        .collect();
    let reached = defaults.len();
    let to_defaults = median(defaults);
    let their_yes = hobbit(&["yes"]);
    let show = |m: Option<f64>| m.map_or_else(|| "-".to_string(), |s| format!("{s:.3} s"));
    let _ = writeln!(
        md,
        "\nEquivalent pairs equivalent within the default bounds (k 4, l 4, 4 unfoldings, \
         lists of 3: the answer of `holi equiv` without `--timeout`), from the levels of \
         the run: {reached} of {}; median time to that answer, from the start of the \
         comparison: {}; Hobbit's reported median over its `yes` answers (proofs): {}.",
        pairs.iter().filter(|p| p.expected == "equivalent").count(),
        show(to_defaults),
        show(their_yes)
    );
    let _ = writeln!(
        md,
        "\nMedian time to tell an inequivalent pair apart (with the client's replay and the \
         process's start): {}; Hobbit's reported median over its `no` answers: {}.",
        show(apart),
        show(their_apart)
    );
    let _ = writeln!(
        md,
        "\nMedian time of the pairs holi answered as labelled: {} ({} without those cut by \
         a limit); Hobbit's reported median over the pairs it settled: {}.\n",
        show(ours),
        show(complete),
        show(theirs)
    );
    let of_label = |label: &'static str| pairs.iter().filter(move |p| p.expected == label);
    let proved: Vec<&Pair> = of_label("equivalent")
        .filter(|p| p.proof.is_some())
        .collect();
    let wrongly = of_label("inequivalent")
        .filter(|p| p.proof.is_some())
        .count();
    let within = proved
        .iter()
        .filter(|p| p.proof.is_some_and(|(s, _)| s <= 10.0))
        .count();
    let _ = writeln!(
        md,
        "Proved equivalent for every k and l (`lang/proofs.md` §8): **{} of {}** equivalent pairs ({within} with a proof within 10 s; Hobbit proves {} of them); inequivalent pairs proved: **{wrongly}** (must stay 0). Median proof time {}, median certificate {} bytes; every certificate is in `certificates/`, and `z3 FILE` answers `unsat` to each of its queries.\n",
        proved.len(),
        of_label("equivalent").count(),
        of_label("equivalent").filter(|p| p.hobbit_answer == "yes").count(),
        show(median(proved.iter().filter_map(|p| p.proof.map(|(s, _)| s)).collect())),
        median(proved.iter().filter_map(|p| p.proof.map(|(_, b)| b as f64)).collect())
            .map_or_else(|| "-".to_string(), |b| format!("{b:.0}")),
    );
    md.push_str(
        "The pairs Hobbit leaves inconclusive (`N/A`: its bound reached), with holi's answer:\n\n| file | label | holi | proved | why not |\n|---|---|---|---|---|\n",
    );
    for p in pairs.iter().filter(|p| p.hobbit_answer == "N/A") {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} |",
            p.file,
            p.expected,
            p.verdict,
            if p.proof.is_some() { "yes" } else { "no" },
            p.not_proved.replace('|', "\\|"),
        );
    }
    md.push_str("\n| file | label | holi | covered | seconds | to defaults | proof s | certificate bytes | Hobbit | Hobbit s | why |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
    for p in pairs {
        let _ = writeln!(
            md,
            "| {} | {} | {}{} | {} | {:.2} | {} | {} | {} | {} | {} | {} |",
            p.file,
            p.expected,
            p.verdict,
            if wrong(&p.expected, &p.verdict) {
                " **(wrong)**"
            } else if missed(&p.expected, &p.verdict) {
                " (missed)"
            } else {
                ""
            },
            p.covered,
            p.seconds,
            p.to_defaults
                .map_or_else(String::new, |s| format!("{s:.3}")),
            p.proof.map_or_else(String::new, |(s, _)| format!("{s:.3}")),
            p.proof.map_or_else(String::new, |(_, b)| b.to_string()),
            p.hobbit_answer,
            p.hobbit_seconds.map_or_else(String::new, |s| s.to_string()),
            p.why.replace('|', "\\|"),
        );
    }
    write_file("report.md", &md)
}
