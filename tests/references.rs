//! ML-like references (`lang/references.md`): the prunings against the plain search on
//! generated libraries with references, and the golden traces of hand-written ones.

mod prop_gen;

use holi::frontend::load_str;
use holi::symbolic::Techniques;
use holi::symbolic::{check, CheckOptions, CheckResult, Verdict};
use holi::symbolic::{Bounds, Limits};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::cell::Cell;
use std::time::Duration;

mod sites;
use sites::sites;

fn run(source: &str, options: CheckOptions) -> CheckResult {
    let loaded = load_str("generated.holi", source, false)
        .unwrap_or_else(|r| panic!("{}\n{source}", r.render(false)));
    check(&holi::library::build(&loaded.program), &options)
}

/// Deterministic budget per search: the comparisons hold on any machine.
const BUDGET: u64 = 40_000;

fn complete(result: &CheckResult) -> bool {
    result.inconclusive.is_empty()
}

/// The default search (memo, semantic subsumption, inert references, symmetry, branch
/// and bound) and `--all` against the plain search: same verdict, same failure sites,
/// same shortest length per site, whenever all three finish. The default search runs
/// first, and a search cut short ends the case: it would not be compared.
fn prunings_agree_with_the_plain_search(l: u32) {
    let mut runner = TestRunner::new(Config {
        cases: 64,
        ..Config::default()
    });
    let compared = Cell::new(0usize);
    let unsafe_ones = Cell::new(0usize);
    let strategy = (prop_gen::ref_library(), 1u32..=3);
    let outcome = runner.run(&strategy, |((source, _), k)| {
        let base = CheckOptions {
            bounds: Bounds { k, l },
            limits: Limits {
                max_configurations: Some(BUDGET),
                // Z3 can stall on the generator's nonlinear constraints: such a search
                // is cut short, and a search cut short is not compared.
                timeout: Some(Duration::from_secs(5)),
                ..Limits::default()
            },
            ..CheckOptions::default()
        };
        let default = run(&source, base.clone());
        if !complete(&default) {
            return Ok(());
        }
        let plain = run(
            &source,
            CheckOptions {
                techniques: Techniques {
                    memo: false,
                    semantic: false,
                    inert: false,
                    bound: false,
                    ..base.techniques
                },
                ..base.clone()
            },
        );
        if !complete(&plain) {
            return Ok(());
        }
        let all = run(
            &source,
            CheckOptions {
                techniques: Techniques {
                    all: true,
                    ..base.techniques
                },
                ..base
            },
        );
        if !complete(&all) {
            return Ok(());
        }
        compared.set(compared.get() + 1);
        if plain.verdict == Verdict::Unsafe {
            unsafe_ones.set(unsafe_ones.get() + 1);
        }
        for (name, other) in [("default", &default), ("all", &all)] {
            prop_assert_eq!(
                other.verdict,
                plain.verdict,
                "{} at k={} l={}:\n{}",
                name,
                k,
                l,
                source
            );
            prop_assert_eq!(
                sites(other),
                sites(&plain),
                "{} at k={} l={}:\n{}",
                name,
                k,
                l,
                source
            );
        }
        Ok(())
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
    println!(
        "generated libraries with references at l={l}: {} compared, {} unsafe",
        compared.get(),
        unsafe_ones.get()
    );
    assert!(compared.get() >= 20, "many cases finish within the budget");
    assert!(
        unsafe_ones.get() > 0,
        "the generator makes failing libraries"
    );
}

// One test per l, so that the harness runs the two on two threads.
#[test]
fn prunings_agree_with_the_plain_search_on_generated_libraries_with_references_at_l1() {
    prunings_agree_with_the_plain_search(1);
}

#[test]
fn prunings_agree_with_the_plain_search_on_generated_libraries_with_references_at_l2() {
    prunings_agree_with_the_plain_search(2);
}
