//! The search itself, not only its results, is pinned: for a fixed set of cells (the
//! bundled examples and HOLiK's corpus at small bounds) the counters of every search
//! are compared with `tests/data/search-statistics.csv`. A change that alters which
//! configurations are explored, which queries are asked or what is pruned shows up
//! here even when verdicts and traces stay the same. Extensions of the language (such
//! as references, `lang/references.md`) must leave these numbers unchanged for
//! programs that do not use them.
//!
//! After an intended change of the search, `HOLI_BLESS=1 cargo test --release --test
//! search_statistics` rewrites the file; the diff then shows what changed.
//! Corpus rows are skipped, with a note, when `../shared/holik-bench` is absent.

use holi::symbolic::{check, CheckOptions, CheckResult, Verdict};
use holi::symbolic::{Bounds, Limits, Run};
use std::path::{Path, PathBuf};

const TABLE: &str = "tests/data/search-statistics.csv";

const HEADER: &str = "file,k,l,verdict,configurations,solver_queries,cached_answers,subsumed,\
                      covered,irrelevant_calls,coverage_checks,projections,unreachable_sites,\
                      stuck_paths,max_moves,failing_traces,counterexamples";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `examples/…` is in the repository; `corpus/…` names a HOLiK program.
fn source_path(file: &str) -> Option<PathBuf> {
    match file.strip_prefix("corpus/") {
        Some(name) => {
            let path = root().join("../shared/holik-bench/programs").join(name);
            path.is_file().then_some(path)
        }
        None => Some(root().join(file)),
    }
}

fn verdict_name(v: Verdict) -> &'static str {
    match v {
        Verdict::Safe => "safe",
        Verdict::Unsafe => "unsafe",
        Verdict::Inconclusive => "inconclusive",
        Verdict::Stuck => "stuck",
    }
}

/// The row of a search: everything in it is determined by the library, the bounds and
/// the (default) options, with no time limit.
fn row(file: &str, k: u32, l: u32, r: &CheckResult) -> String {
    let s = &r.stats;
    format!(
        "{file},{k},{l},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
        verdict_name(r.verdict),
        s.configurations,
        s.solver_queries,
        s.cached_answers,
        s.subsumed,
        s.covered,
        s.irrelevant_calls,
        s.coverage_checks,
        s.projections,
        s.unreachable_sites,
        s.stuck_paths,
        s.max_moves,
        r.failing_traces,
        r.counterexamples.len()
    )
}

fn search(path: &Path, k: u32, l: u32) -> CheckResult {
    search_with(path, k, l, None)
}

/// [`search`], with nonlinear queries answered by the solver process `holi` when
/// given.
fn search_with(path: &Path, k: u32, l: u32, holi: Option<PathBuf>) -> CheckResult {
    let loaded = holi::frontend::load(path, false)
        .unwrap_or_else(|r| panic!("{}: {}", path.display(), r.render(false)));
    let options = CheckOptions {
        bounds: Bounds { k, l },
        limits: Limits {
            solver_timeout: None,
            ..Limits::default()
        },
        run: Run {
            allow_stuck: true,
            solver_process: holi,
            ..Run::default()
        },
        ..CheckOptions::default()
    };
    check(&holi::library::build(&loaded.program), &options)
}

#[test]
fn searches_explore_exactly_as_recorded() {
    let table = std::fs::read_to_string(root().join(TABLE)).expect("the table is committed");
    let mut lines = table.lines();
    assert_eq!(lines.next(), Some(HEADER), "the table's header");
    let bless = std::env::var_os("HOLI_BLESS").is_some();
    let mut rows = vec![HEADER.to_string()];
    let mut differences = Vec::new();
    let mut skipped = 0;
    for line in lines {
        let fields: Vec<&str> = line.split(',').collect();
        let (file, k, l) = (
            fields[0],
            fields[1].parse().unwrap(),
            fields[2].parse().unwrap(),
        );
        let Some(path) = source_path(file) else {
            skipped += 1;
            rows.push(line.to_string());
            continue;
        };
        let now = row(file, k, l, &search(&path, k, l));
        if now != line {
            differences.push(format!("recorded {line}\n     now {now}"));
        }
        rows.push(now);
    }
    if skipped > 0 {
        eprintln!("note: ../shared/holik-bench not found; {skipped} corpus rows skipped");
    }
    if bless {
        std::fs::write(root().join(TABLE), rows.join("\n") + "\n").unwrap();
        return;
    }
    assert!(
        differences.is_empty(),
        "{} searches differ from {TABLE} (HOLI_BLESS=1 rewrites it after an intended \
         change):\n{}",
        differences.len(),
        differences.join("\n")
    );
}

/// With the solver process `holi check` uses (nonlinear queries answered there, so that
/// a limit stops them), every recorded search that projects anything takes the same
/// course: the answers, and so the regions and coverage checks, are the same.
#[test]
fn searches_with_the_solver_process_are_the_same() {
    let table = std::fs::read_to_string(root().join(TABLE)).expect("the table is committed");
    let holi = PathBuf::from(env!("CARGO_BIN_EXE_holi"));
    let mut compared = 0;
    let mut differences = Vec::new();
    for line in table.lines().skip(1) {
        let fields: Vec<&str> = line.split(',').collect();
        if fields[10] == "0" {
            continue;
        }
        let (file, k, l) = (
            fields[0],
            fields[1].parse().unwrap(),
            fields[2].parse().unwrap(),
        );
        let Some(path) = source_path(file) else {
            continue;
        };
        let now = row(file, k, l, &search_with(&path, k, l, Some(holi.clone())));
        if now != line {
            differences.push(format!("recorded {line}\n     now {now}"));
        }
        compared += 1;
    }
    assert!(compared >= 5, "only {compared} searches with projections");
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}
