//! The replay rate: every counterexample holi reports on `examples/` and on the HOLiK
//! benchmark (at each file's header bounds) must be confirmed by running its
//! synthesized client. Prints `replayed N/M counterexamples`.
//!
//! The benchmark is read from `../shared/holik-bench/programs` and skipped with a note
//! when absent. Each file gets a time budget; counterexamples found within it are
//! replayed all the same (unoptimised builds get a smaller budget).

use holi::frontend::load;
use holi::replay::{self, Verdict};
use holi::symbolic::{check, CheckOptions};
use holi::symbolic::{Bounds, Limits};
use std::path::{Path, PathBuf};
use std::time::Duration;

mod corpus;

/// Checks and replays every library in `files`; returns (replayed, total, failures).
fn replay_all(files: &[PathBuf]) -> (usize, usize, Vec<String>) {
    let budget = if cfg!(debug_assertions) { 5.0 } else { 60.0 };
    let (mut replayed, mut total, mut failures) = (0, 0, Vec::new());
    for file in files {
        let loaded = match load(file, false) {
            Ok(l) => l,
            Err(r) => panic!("{} does not load:\n{}", file.display(), r.render(false)),
        };
        if loaded.program.main.is_some() {
            continue;
        }
        let bounds = loaded.program.bounds.as_ref();
        let options = CheckOptions {
            bounds: Bounds {
                k: bounds.map_or(Bounds::default().k, |b| b.k),
                l: bounds.map_or(Bounds::default().l, |b| b.l),
            },
            limits: Limits {
                timeout: Some(Duration::from_secs_f64(budget)),
                ..Limits::default()
            },
            ..CheckOptions::default()
        };
        let result = check(&holi::library::build(&loaded.program), &options);
        for (i, cx) in result.counterexamples.iter().enumerate() {
            total += 1;
            let r = replay::replay(&loaded.program, cx);
            match r.verdict {
                Verdict::Confirmed => replayed += 1,
                other => failures.push(format!(
                    "{} counterexample {}: {other}\n{}",
                    file.display(),
                    i + 1,
                    r.client.unwrap_or_default()
                )),
            }
        }
    }
    (replayed, total, failures)
}

#[test]
fn every_counterexample_on_the_examples_replays() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let (replayed, total, failures) = replay_all(&corpus::holi_files(&dir).unwrap_or_default());
    println!("examples/: replayed {replayed}/{total} counterexamples");
    assert!(total > 0, "the examples have counterexamples to replay");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_counterexample_on_the_holik_benchmark_replays() {
    let Some(files) = corpus::benchmark("the benchmark replay rate") else {
        return;
    };
    let (replayed, total, failures) = replay_all(&files);
    println!("HOLiK benchmark at header bounds: replayed {replayed}/{total} counterexamples");
    assert!(total > 0, "the benchmark has counterexamples to replay");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
