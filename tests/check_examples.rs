//! Golden tests: the minimal counterexamples the paper reports for its examples
//! (Section 1 and Appendix A), found in `examples/`, and the fixed versions are safe.

use holi::symbolic::{check, CheckOptions, CheckResult, Verdict};
use num_bigint::BigInt;
use std::path::Path;

fn run(file: &str, k: u32, l: u32) -> CheckResult {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(file);
    let loaded =
        holi::frontend::load(&path, false).unwrap_or_else(|r| panic!("{}", r.render(false)));
    check(
        &loaded.program,
        &CheckOptions {
            k,
            l,
            ..CheckOptions::default()
        },
    )
}

fn shortest(result: &CheckResult) -> String {
    assert_eq!(result.verdict, Verdict::Unsafe);
    result.counterexamples[0].trace.to_string()
}

#[test]
fn dao_reentrancy_in_seven_moves() {
    let result = run("dao.holi", 3, 2);
    assert_eq!(
        shortest(&result),
        "call withdraw(x1) · call send(x1) · call withdraw(x2) · call send(x2) · \
         ret send(()) · ret withdraw(()) · ret send(())"
    );
    let model = &result.counterexamples[0].model;
    let (x1, x2) = (&model["x1"], &model["x2"]);
    let hundred = BigInt::from(100);
    // Both withdrawals pass the balance check, and together they overdraw.
    assert!(
        x1 <= &hundred && x2 <= &hundred && x1 + x2 > hundred,
        "{model:?}"
    );
    assert_eq!(result.counterexamples.len(), 1, "one failing assert");
}

#[test]
fn dao_concrete_trace_uses_the_model() {
    let result = run("dao.holi", 2, 1);
    let c = &result.counterexamples[0];
    let expected = c
        .trace
        .to_string()
        .replace("x1", &c.model["x1"].to_string());
    let expected = expected.replace("x2", &c.model["x2"].to_string());
    assert_eq!(c.concrete.to_string(), expected);
}

#[test]
fn file_lock_leaks_write_in_five_moves() {
    assert_eq!(
        shortest(&run("file_lock.holi", 2, 2)),
        "call openFile(()) · call userExec(m1) · ret userExec(()) · ret openFile(()) · call m1(())"
    );
}

#[test]
fn double_free_in_seven_moves() {
    assert_eq!(
        shortest(&run("double_free.holi", 3, 1)),
        "call run(()) · call getInput(()) · call run(()) · call getInput(()) · \
         ret getInput(x1) · ret run(()) · ret getInput(x2)"
    );
}

#[test]
fn flat_combiner_in_nine_moves() {
    assert_eq!(
        shortest(&run("flat_combiner.holi", 4, 2)),
        "call enlist(f1) · ret enlist(()) · call run(()) · call f1(()) · call run(()) · \
         call f1(()) · ret f1(()) · ret run(()) · ret f1(())"
    );
}

#[test]
fn fixed_versions_are_safe() {
    for (file, k, l) in [
        ("dao_fixed.holi", 3, 2),
        ("file_lock_fixed.holi", 3, 3),
        ("double_free_fixed.holi", 4, 2),
        ("flat_combiner_fixed.holi", 4, 2),
    ] {
        let result = run(file, k, l);
        assert_eq!(result.verdict, Verdict::Safe, "{file}");
        assert!(result.inconclusive.is_empty(), "{file}");
    }
}

#[test]
fn every_example_loads_without_warnings() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "holi") {
            let loaded = holi::frontend::load(&path, true);
            assert!(loaded.is_ok(), "{}", loaded.err().unwrap().render(false));
        }
    }
}
