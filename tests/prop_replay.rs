//! Property (a): for generated small libraries and bounds, every counterexample the
//! engine reports is confirmed by running its synthesized client. Prints the replay rate.

mod prop_gen;

use holi::frontend::load_str;
use holi::replay::{self, Verdict};
use holi::symbolic::{check, CheckOptions};
use holi::symbolic::{Bounds, Limits, Techniques};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::cell::Cell;
use std::time::Duration;

/// `all` can list many traces per library; this many per library suffice.
const MAX_REPLAYS: usize = 40;

/// Replays found so far, and libraries with a counterexample.
#[derive(Default)]
struct Tally {
    replayed: Cell<usize>,
    unsafe_libraries: Cell<usize>,
}

/// Checks `source` with `options` and replays its counterexamples (at most
/// [`MAX_REPLAYS`]), each of which must be confirmed.
fn replay_all(source: &str, options: &CheckOptions, tally: &Tally) -> Result<(), TestCaseError> {
    let loaded = load_str("generated.holi", source, false).map_err(|r| {
        TestCaseError::fail(format!(
            "generated library rejected:\n{}\n{source}",
            r.render(false)
        ))
    })?;
    let result = check(&holi::library::build(&loaded.program), options);
    if !result.counterexamples.is_empty() {
        tally.unsafe_libraries.set(tally.unsafe_libraries.get() + 1);
    }
    for cx in result.counterexamples.iter().take(MAX_REPLAYS) {
        let r = replay::replay(&loaded.program, cx);
        prop_assert_eq!(
            &r.verdict,
            &Verdict::Confirmed,
            "library:\n{}\nk = {}, l = {}\ntrace: {}\nclient:\n{}",
            source,
            options.bounds.k,
            options.bounds.l,
            cx.trace,
            r.client.clone().unwrap_or_default()
        );
        tally.replayed.set(tally.replayed.get() + 1);
    }
    Ok(())
}

/// Prints the replay rate of `cases` libraries and asserts that some failed.
fn report(what: &str, cases: u32, tally: &Tally) {
    println!(
        "{what}: replayed {0}/{0} counterexamples ({1} of {cases} libraries unsafe)",
        tally.replayed.get(),
        tally.unsafe_libraries.get()
    );
    assert!(
        tally.replayed.get() > 0,
        "the generator produces failing libraries"
    );
}

#[test]
fn every_counterexample_of_a_generated_library_replays() {
    let cases = 32;
    let mut runner = TestRunner::new(Config {
        cases,
        ..Config::default()
    });
    let tally = Tally::default();
    let strategy = (prop_gen::library(), 1u32..=3, 1u32..=2);
    let outcome = runner.run(&strategy, |(source, k, l)| {
        let options = CheckOptions {
            bounds: Bounds { k, l },
            techniques: Techniques {
                all: true,
                ..Techniques::default()
            },
            limits: Limits {
                // Keep each case short (Z3 can stall on the generator's nonlinear constraints);
                // counterexamples found within the budget are replayed all the same.
                max_configurations: Some(10_000),
                timeout: Some(Duration::from_secs(2)),
                ..Limits::default()
            },
            ..CheckOptions::default()
        };
        replay_all(&source, &options, &tally)
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
    report("generated libraries", cases, &tally);
}

/// The same for generated libraries with ML-like references (`prop_gen::ref_library`):
/// every counterexample, the shortest per site and those of `--all`, replays with the
/// writes, allocations and aliasing its client performs.
#[test]
fn every_counterexample_of_a_generated_library_with_references_replays() {
    let cases = 64;
    let mut runner = TestRunner::new(Config {
        cases,
        ..Config::default()
    });
    let tally = Tally::default();
    let strategy = (prop_gen::ref_library(), 1u32..=3, 1u32..=2, any::<bool>());
    let outcome = runner.run(&strategy, |((source, _), k, l, all)| {
        let options = CheckOptions {
            bounds: Bounds { k, l },
            techniques: Techniques {
                all,
                ..Techniques::default()
            },
            limits: Limits {
                max_configurations: Some(20_000),
                timeout: Some(Duration::from_secs(2)),
                ..Limits::default()
            },
            ..CheckOptions::default()
        };
        replay_all(&source, &options, &tally)
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
    report("generated libraries with references", cases, &tally);
}
