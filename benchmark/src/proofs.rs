//! `holi-bench proofs`: the proofs beyond the bounds (issue 15, `lang/proofs.md`) on the
//! eleven safe targets: whether each is proved, how long the proof takes and how large
//! its certificate is.
//!
//! Proof time is not reported by `holi check` on its own, so each target is checked
//! twice per round, with and without the proof attempt (`--no-prove`), back to back
//! and in alternating order (the machines are shared and noisy); the proof's cost is
//! the difference of the medians. The certificate is written with `--certificate`
//! and measured in obligations, facts and bytes.

use crate::meta;
use crate::process;
use clap::Args;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The safe libraries of issues 15 and 45: the fixed examples (those with ML-like
/// references too), `awkward`, then the HOLiK corpus files with no failing trace at any
/// bound.
const EXAMPLES: [&str; 8] = [
    "dao",
    "double_free",
    "file_lock",
    "flat_combiner",
    "lend",
    "move_all",
    "account",
    "lock",
];
const CORPUS: [&str; 7] = [
    "awkward_safe",
    "cross_reentrancy_safe",
    "dos_safe",
    "lock_counter_safe",
    "optimistic_safe",
    "reentrancy_safe",
    "call_order_param",
];

#[derive(Args, Debug)]
pub struct ProofsArgs {
    /// The holi binary (default: `holi` beside this executable).
    #[arg(long)]
    holi: Option<PathBuf>,
    /// Directory of the HOLiK corpus (default: ../shared/holik-bench/programs beside the
    /// repository); its targets are skipped when it is missing.
    #[arg(long)]
    programs: Option<PathBuf>,
    /// Rounds per target and mode.
    #[arg(long, default_value_t = 5)]
    rounds: usize,
    /// The results directory (report.md, runs.csv, certificates/).
    #[arg(long)]
    out: PathBuf,
}

/// One target's measurements.
struct Target {
    name: String,
    with_proof: Vec<f64>,
    without: Vec<f64>,
    scope: String,
    why: String,
    obligations: u64,
    facts: usize,
    steps: usize,
    revealed: usize,
    bytes: u64,
}

pub fn run(args: ProofsArgs) -> Result<(), String> {
    let holi = process::locate_holi(args.holi)?;
    let root = meta::repo_root();
    let programs = args
        .programs
        .unwrap_or_else(|| root.join("../shared/holik-bench/programs"));
    let mut files: Vec<PathBuf> = EXAMPLES
        .iter()
        .map(|n| root.join(format!("examples/{n}_fixed.holi")))
        .collect();
    files.push(root.join("examples/awkward.holi"));
    files.extend(CORPUS.iter().map(|n| programs.join(format!("{n}.holi"))));
    files.retain(|f| f.is_file());
    let certificates = args.out.join("certificates");
    std::fs::create_dir_all(&certificates).map_err(|e| format!("{}: {e}", args.out.display()))?;
    let started = meta::utc_now();
    let mut targets = Vec::new();
    for file in &files {
        let name = file
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        let mut target = Target {
            name,
            with_proof: Vec::new(),
            without: Vec::new(),
            scope: String::new(),
            why: String::new(),
            obligations: 0,
            facts: 0,
            steps: 0,
            revealed: 0,
            bytes: 0,
        };
        for round in 0..args.rounds {
            for prove in if round % 2 == 0 {
                [true, false]
            } else {
                [false, true]
            } {
                let (seconds, report) = check(&holi, file, prove, &certificates)?;
                if prove {
                    target.with_proof.push(seconds);
                    read_certificate(&mut target, &report, &certificates);
                } else {
                    target.without.push(seconds);
                }
            }
        }
        eprintln!("{}: {}", target.name, target.scope);
        targets.push(target);
    }
    write(&args.out, &holi, &started, args.rounds, &targets)
}

/// One `holi check` of `file` at its header's bounds, timed, and its JSON report.
fn check(
    holi: &Path,
    file: &Path,
    prove: bool,
    certificates: &Path,
) -> Result<(f64, serde_json::Value), String> {
    let mut command = Command::new(holi);
    command
        .arg("check")
        .arg(file)
        .args(["--format", "json", "--no-replay"]);
    if prove {
        command.arg("--certificate").arg(certificates);
    } else {
        command.arg("--no-prove");
    }
    let start = Instant::now();
    let output = command
        .output()
        .map_err(|e| format!("{}: {e}", holi.display()))?;
    let seconds = start.elapsed().as_secs_f64();
    let report = serde_json::from_slice(&output.stdout)
        .map_err(|e| format!("{}: no JSON report ({e})", file.display()))?;
    Ok((seconds, report))
}

fn read_certificate(target: &mut Target, report: &serde_json::Value, certificates: &Path) {
    let text = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
    target.scope = text(&report["scope"]);
    target.why = text(&report["not_proved"]);
    let certificate = &report["certificate"];
    let count = |key: &str| certificate[key].as_array().map_or(0, Vec::len);
    target.obligations = certificate["obligations"].as_u64().unwrap_or(0);
    target.facts = count("invariant");
    target.steps = count("turn_relation");
    target.revealed = count("revealed");
    let written = certificates.join(format!("{}.smt2", target.name));
    target.bytes = std::fs::metadata(written).map_or(0, |m| m.len());
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    match sorted.len() {
        0 => 0.0,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

fn write(
    out: &Path,
    holi: &Path,
    started: &str,
    rounds: usize,
    targets: &[Target],
) -> Result<(), String> {
    let mut csv = String::from("file,mode,round,seconds\n");
    for t in targets {
        for (mode, times) in [("prove", &t.with_proof), ("no-prove", &t.without)] {
            for (round, s) in times.iter().enumerate() {
                let _ = writeln!(csv, "{},{mode},{},{s:.4}", t.name, round + 1);
            }
        }
    }
    let proved = targets.iter().filter(|t| t.scope == "all-bounds").count();
    let mut md = format!(
        "# holi proofs beyond the bounds\n\n**{proved} of {} safe targets proved for every k \
         and l.**\n\n- holi `{}` (commit `{}`), {started}; {rounds} rounds per target, with \
         and without the proof attempt (`--no-prove`), interleaved; each run is `holi check \
         FILE --format json --no-replay` at the file's header bounds\n- proof time: median \
         with the attempt minus median without (the search and start-up are the same in \
         both), and the median whole run\n- certificate: obligations discharged, facts \
         (invariant + turn relation), library functions checked like methods, and the bytes \
         of the SMT-LIB file `--certificate` wrote (in `certificates/`; `z3 FILE` answers \
         `unsat` to each query)\n\n| file | scope | proof time s | whole run s | \
         obligations | invariant facts | turn facts | functions | certificate bytes | \
         why not proved |\n|---|---|---|---|---|---|---|---|---|---|\n",
        targets.len(),
        holi.display(),
        meta::holi_commit(),
    );
    for t in targets {
        let with = median(&t.with_proof);
        let _ = writeln!(
            md,
            "| {} | {} | {:.3} | {with:.3} | {} | {} | {} | {} | {} | {} |",
            t.name,
            t.scope,
            (with - median(&t.without)).max(0.0),
            t.obligations,
            t.facts,
            t.steps,
            t.revealed,
            t.bytes,
            t.why
        );
    }
    for (name, text) in [("runs.csv", csv), ("report.md", md)] {
        std::fs::write(out.join(name), text).map_err(|e| format!("{name}: {e}"))?;
    }
    println!("wrote {}", out.join("report.md").display());
    Ok(())
}
