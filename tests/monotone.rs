//! More work never weakens a verdict: once a search stopped at some budget (of
//! configurations, or by an interrupt) has found a failing trace, every search given a
//! larger budget reports one too, whichever phase (the whole search before the split,
//! the parts' searches, the search after an unsettled split, an attempt of `first`) it
//! is stopped in.

use holi::symbolic::{check, check_with_progress, CheckOptions, CheckResult, Verdict};
use holi::symbolic::{Bounds, Limits, Techniques};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

mod corpus;

/// `various_safe` at k 5, l 3: failing traces come early in the whole search, which
/// does not finish before the split begins (after 100 000 configurations).
fn various_safe() -> Option<holi::syntax::ast::Program> {
    let files = corpus::benchmark("the monotonicity test")?;
    let file = files.iter().find(|f| f.ends_with("various_safe.holi"))?;
    let loaded = holi::frontend::load(file, false)
        .unwrap_or_else(|r| panic!("{} does not load:\n{}", file.display(), r.render(false)));
    Some(loaded.program)
}

/// Asserts that the verdicts, by growing budget, never go from unsafe back to
/// anything else, and that some budget is unsafe and stopped early.
fn assert_monotone(what: &str, results: &[(u64, CheckResult)]) {
    let mut unsafe_at = None;
    for (budget, result) in results {
        assert!(
            result.verdict == Verdict::Unsafe || matches!(result.verdict, Verdict::Inconclusive),
            "{what} {budget}: {:?}",
            result.verdict
        );
        if result.verdict == Verdict::Unsafe {
            assert!(!result.counterexamples.is_empty());
            unsafe_at.get_or_insert(*budget);
        } else if let Some(first) = unsafe_at {
            panic!(
                "{what}: unsafe at {first}, but {:?} at {budget} ({:?})",
                result.verdict, result.inconclusive
            );
        }
    }
    assert!(unsafe_at.is_some(), "{what}: never unsafe");
}

#[test]
fn more_configurations_never_weaken_the_verdict() {
    let Some(program) = various_safe() else {
        return;
    };
    for first in [false, true] {
        let results: Vec<(u64, CheckResult)> = [
            5_000, 50_000, 99_000, 100_000, 100_500, 110_000, 150_000, 250_000,
        ]
        .into_iter()
        .map(|most| {
            let options = CheckOptions {
                bounds: Bounds { k: 5, l: 3 },
                techniques: Techniques {
                    first,
                    ..Techniques::default()
                },
                limits: Limits {
                    max_configurations: Some(most),
                    ..Limits::default()
                },
                ..CheckOptions::default()
            };
            (most, check(&holi::library::build(&program), &options))
        })
        .collect();
        assert_monotone(&format!("first={first}, configurations"), &results);
    }
}

#[test]
fn a_later_interrupt_never_weakens_the_verdict() {
    let Some(program) = various_safe() else {
        return;
    };
    // Progress comes every 1024 configurations of the search running then: interrupt
    // at the n-th report, in the whole search, the parts' searches, or after.
    let results: Vec<(u64, CheckResult)> = [40, 98, 100, 150]
        .into_iter()
        .map(|n| {
            let flag = Arc::new(AtomicBool::new(false));
            let options = CheckOptions {
                bounds: Bounds { k: 5, l: 3 },
                limits: Limits {
                    interrupt: Some(Arc::clone(&flag)),
                    ..Limits::default()
                },
                ..CheckOptions::default()
            };
            let mut reports = 0;
            let result =
                check_with_progress(&holi::library::build(&program), &options, &mut |_| {
                    reports += 1;
                    if reports >= n {
                        flag.store(true, Ordering::Relaxed);
                    }
                });
            (n, result)
        })
        .collect();
    assert_monotone("interrupt at report", &results);
}
