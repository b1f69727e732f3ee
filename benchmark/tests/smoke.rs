//! A smoke run of the benchmark tools against the real `holi` binary: a tiny grid, a tiny
//! comparison and a tiny scaling run into temporary directories, checking what they write
//! (never how long anything took).
//!
//! The `holi` binary is built here by `cargo build --workspace --tests --bins` into the
//! same target directory and profile as this test (a no-op when `cargo test
//! --workspace` already built it: see `common::holi_binary`).

mod common;

use common::{bench, bench_status, holi_binary};
use std::path::Path;

/// `awkward`: the callback can reenter `run` between the two increments (Appendix A).
const UNSAFE: &str = "# set-bounds 2 1 #\nint x := 0;\n\npublic run (f:unit->unit) :(unit) = { x := 0; f(); x := !x + 1; f(); assert(!x == 1) };\n";
const SAFE: &str = "# set-bounds 2 1 #\nint c := 0;\n\npublic inc (u:unit) :(unit) = { c := !c + 1; assert(0 < !c) };\n";

fn rows(csv: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(csv).expect("runs.csv");
    let mut lines = text.lines();
    assert!(lines.next().unwrap_or("").starts_with(
        "file,k,l,verdict,failing_traces,min_moves,seconds,peak_rss_mb,configurations,solver_queries,status"
    ));
    let mut rows: Vec<Vec<String>> = lines
        .map(|line| line.split(',').map(str::to_string).collect())
        .collect();
    rows.sort();
    rows
}

#[test]
fn a_tiny_grid_runs_reports_and_resumes() {
    let holi = holi_binary();
    let tmp = tempfile::tempdir().expect("temp dir");
    let programs = tmp.path().join("programs");
    std::fs::create_dir(&programs).unwrap();
    std::fs::write(programs.join("awkward.holi"), UNSAFE).unwrap();
    std::fs::write(programs.join("counter.holi"), SAFE).unwrap();
    let out = tmp.path().join("results");
    let no_reference = tmp.path().join("no-reference.csv");
    let args = [
        "grid",
        "--programs",
        programs.to_str().unwrap(),
        "--k",
        "2",
        "--l",
        "1",
        "--timeout",
        "60",
        "--out",
        out.to_str().unwrap(),
        "--holi",
        holi.to_str().unwrap(),
        "--reference",
        no_reference.to_str().unwrap(),
        "--quiet",
    ];
    let first = bench(&args);
    assert!(
        first.contains("2 cells: 0 already in runs.csv, ran 2 done"),
        "{first}"
    );

    let runs = rows(&out.join("runs.csv"));
    assert_eq!(runs.len(), 2, "{runs:?}");
    let (awkward, counter) = (&runs[0], &runs[1]);
    assert_eq!(&awkward[..4], ["awkward.holi", "2", "1", "unsafe"]);
    assert!(awkward[4].parse::<u64>().unwrap() >= 1);
    assert!(!awkward[5].is_empty(), "min_moves of a counterexample");
    assert_eq!(awkward[10], "done");
    assert_eq!(&counter[..5], ["counter.holi", "2", "1", "safe", "0"]);
    assert_eq!(counter[10], "done");

    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("## Table 1: holi"), "{report}");
    assert!(report.contains("| k ≤ 2 |"), "{report}");
    assert!(report.contains("Skipped: the HOLiK reference"), "{report}");
    assert!(report.contains("cores"), "{report}");

    // The same command again finds every cell done and runs nothing.
    let second = bench(&args);
    assert!(
        second.contains("2 already in runs.csv, ran none"),
        "{second}"
    );
    assert_eq!(rows(&out.join("runs.csv")).len(), 2);
}

#[test]
fn a_tiny_comparison_of_holi_with_itself_agrees_and_resumes() {
    let holi = holi_binary();
    let tmp = tempfile::tempdir().expect("temp dir");
    let programs = tmp.path().join("programs");
    std::fs::create_dir(&programs).unwrap();
    std::fs::write(programs.join("awkward.holi"), UNSAFE).unwrap();
    std::fs::write(programs.join("counter.holi"), SAFE).unwrap();
    let out = tmp.path().join("results");
    let holi = holi.to_str().unwrap();
    let args = |baseline: &str| {
        [
            "compare",
            "--baseline",
            baseline,
            "--holi",
            holi,
            "--programs",
            programs.to_str().unwrap(),
            "--k",
            "2",
            "--l",
            "1",
            "--repeat",
            "2",
            "--timeout",
            "60",
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ]
        .map(str::to_string)
    };
    let first = bench(&args(holi).each_ref().map(String::as_str));
    assert!(
        first.contains("8 runs: 0 already in runs.csv, ran 8 done"),
        "{first}"
    );

    // 2 files × 2 binaries × 2 rounds, each once, tagged at the end of the row.
    let header = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    assert!(
        header
            .lines()
            .next()
            .unwrap()
            .ends_with(",note,binary,round,solver_seconds"),
        "{header}"
    );
    let runs = rows(&out.join("runs.csv"));
    assert_eq!(runs.len(), 8, "{runs:?}");
    let tags: std::collections::BTreeSet<(String, String, String)> = runs
        .iter()
        .map(|row| (row[0].clone(), row[12].clone(), row[13].clone()))
        .collect();
    assert_eq!(tags.len(), 8, "{tags:?}");
    assert!(runs.iter().all(|row| row[10] == "done"), "{runs:?}");

    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    for expected in [
        "# holi compare `results`",
        "## Invocation",
        "- **Baseline** `",
        "- **New** `",
        "an A/A comparison",
        "## Cells run",
        "- 2 cells run by both binaries, 8 runs in all.",
        "## Time",
        "| **all** | 2 | 2 |",
        "the median of its 2 rounds",
        "## Agreement",
        "identical in all 2 cells both finished",
        "| **all** | 2 | 2 | 2 | 2 | 2 | 2 |",
        "### Verdict, failing traces or shortest trace differ (0 values)\n\nNone.",
        "### Configurations differ (0 cells)\n\nNone.",
        "## Status",
        "| done | 4 | 4 |",
        "cores",
    ] {
        assert!(report.contains(expected), "{expected}:\n{report}");
    }

    // The same command again runs nothing; `report` rewrites the comparison's report.
    let second = bench(&args(holi).each_ref().map(String::as_str));
    assert!(
        second.contains("8 runs: 8 already in runs.csv, ran none"),
        "{second}"
    );
    bench(&["report", out.to_str().unwrap()]);
    let rewritten = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        rewritten.contains("identical in all 2 cells both finished"),
        "{rewritten}"
    );

    // Resuming with another baseline would mix two comparisons: refused.
    let other = tmp.path().join("other-holi");
    std::fs::write(&other, "not holi").unwrap();
    let (success, _, stderr) =
        bench_status(&args(other.to_str().unwrap()).each_ref().map(String::as_str));
    assert!(!success);
    assert!(
        stderr.contains("was started with another baseline binary"),
        "{stderr}"
    );
    assert_eq!(rows(&out.join("runs.csv")).len(), 8);
}

#[test]
fn a_grid_cell_compares_with_holik() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/holik-bench");
    let source = shared.join("programs/awkward_2.holi");
    if !source.is_file() {
        eprintln!(
            "note: {} absent; skipping the HOLiK comparison smoke test",
            shared.display()
        );
        return;
    }
    let holi = holi_binary();
    let tmp = tempfile::tempdir().expect("temp dir");
    let programs = tmp.path().join("programs");
    std::fs::create_dir(&programs).unwrap();
    std::fs::copy(&source, programs.join("awkward_2.holi")).unwrap();
    let out = tmp.path().join("results");
    bench(&[
        "grid",
        "--programs",
        programs.to_str().unwrap(),
        "--k",
        "2",
        "--l",
        "1",
        "--timeout",
        "60",
        "--out",
        out.to_str().unwrap(),
        "--holi",
        holi.to_str().unwrap(),
        "--reference",
        shared.join("reference.csv").to_str().unwrap(),
        "--quiet",
    ]);
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    // HOLiK found 1 trace at awkward_2 k2 l1 in 9.160 s.
    assert!(report.contains("## Table 1: HOLiK"), "{report}");
    assert!(report.contains("| k ≤ 2 | 1/1/1 (9s) |"), "{report}");
    assert!(report.contains("## Verdict agreement"), "{report}");
    // One cell, compared: exactly one of the four agreement columns counts it.
    let row = report
        .lines()
        .find(|line| line.starts_with("| k ≤ 2, l ≤ 1 |") && line.matches('|').count() == 6)
        .unwrap_or_else(|| panic!("no agreement row:\n{report}"));
    let counts: Vec<&str> = row
        .split('|')
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .skip(1)
        .collect();
    assert_eq!(counts.iter().filter(|c| **c == "1").count(), 1, "{row}");
}

#[test]
fn a_tiny_scaling_run_plots() {
    let holi = holi_binary();
    let tmp = tempfile::tempdir().expect("temp dir");
    let out = tmp.path().join("scale");
    bench(&[
        "scale",
        "--k",
        "2",
        "--l",
        "1",
        "--methods",
        "1,2",
        "--callbacks",
        "1",
        "--nesting",
        "1",
        "--size",
        "1",
        "--references",
        "1,8",
        "--timeout",
        "60",
        "--out",
        out.to_str().unwrap(),
        "--holi",
        holi.to_str().unwrap(),
        "--quiet",
    ]);
    let runs = rows(&out.join("runs.csv"));
    assert_eq!(runs.len(), 7, "{runs:?}");
    assert!(runs.iter().all(|row| row[10] != "error"), "{runs:?}");
    // Each finished run has its time in the solver, the last column.
    assert!(
        runs.iter().all(|row| row[12].parse::<f64>().is_ok()),
        "{runs:?}"
    );
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("## Measured growth"), "{report}");
    for family in ["methods", "callbacks", "nesting", "size", "references"] {
        assert!(
            report.contains(&format!("](scale-{family}.svg)")),
            "{report}"
        );
        let svg = std::fs::read_to_string(out.join(format!("scale-{family}.svg"))).unwrap();
        for metric in ["seconds", "configurations", "solver seconds", "peak MB"] {
            assert!(svg.contains(&format!("{metric} vs {family}")), "{metric}");
        }
    }
}

#[test]
fn a_tiny_hobbit_suite_reports_verdicts_beside_hobbits() {
    let holi = holi_binary();
    let tmp = tempfile::tempdir().expect("temp dir");
    let suite = tmp.path().join("suite");
    std::fs::create_dir_all(suite.join("equiv")).unwrap();
    std::fs::create_dir_all(suite.join("inequiv")).unwrap();
    std::fs::write(
        suite.join("equiv/double.bils"),
        "fun x -> x + x ||| fun x -> 2 * x",
    )
    .unwrap();
    std::fs::write(
        suite.join("inequiv/off.bils"),
        "fun x -> x + 1 ||| fun x -> x + 2",
    )
    .unwrap();
    std::fs::write(
        suite.join("expected.csv"),
        "file,expected,hobbit_seconds,hobbit_answer\n\
         equiv/double.bils,equivalent,0.01,yes\n\
         inequiv/off.bils,inequivalent,0.02,no\n",
    )
    .unwrap();
    let out = tmp.path().join("out");
    bench(&[
        "hobbit",
        "--suite",
        suite.to_str().unwrap(),
        "--timeout",
        "30",
        "--out",
        out.to_str().unwrap(),
        "--holi",
        holi.to_str().unwrap(),
    ]);
    let runs = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    assert!(
        runs.contains("equiv/double.bils,equivalent,equivalent,k4 l4,"),
        "{runs}"
    );
    assert!(
        runs.contains("inequiv/off.bils,inequivalent,inequivalent,k"),
        "{runs}"
    );
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        report.contains("| equivalent | 1 | 1 (0) | 0 | 0 | 0 | 0 | **0** |"),
        "{report}"
    );
    assert!(
        report.contains("| inequivalent | 1 | 0 (0) | 1 | 0 | 0 | 0 | **0** |"),
        "{report}"
    );
}
