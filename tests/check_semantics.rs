//! The engine's semantics on small libraries: bounds k and l exactly as HOLiK's, client
//! values, revealed names, divisions, and the silent ends of paths.

use holi::symbolic::{check, CheckOptions, CheckResult, Verdict};
use holi::trace::FailureKind;

fn run(source: &str, k: u32, l: u32) -> CheckResult {
    let loaded = holi::frontend::load_str("test.holi", source, false)
        .unwrap_or_else(|r| panic!("{}", r.render(false)));
    check(
        &loaded.program,
        &CheckOptions {
            k,
            l,
            all: true,
            ..CheckOptions::default()
        },
    )
}

fn traces(result: &CheckResult) -> Vec<String> {
    result
        .counterexamples
        .iter()
        .map(|c| c.trace.to_string())
        .collect()
}

const COUNTER: &str = "
int n := 0;
public increase (u:unit) :(unit) = { n := !n + 1 };
public check (u:unit) :(unit) = { assert(!n < 2) };
";

#[test]
fn l_bounds_consecutive_client_calls_per_context() {
    // Two increases and a check: three top-level calls, the last need not return.
    assert_eq!(run(COUNTER, 2, 2).verdict, Verdict::Safe);
    let result = run(COUNTER, 2, 3);
    assert_eq!(
        traces(&result),
        ["call increase(()) · ret increase(()) · call increase(()) · ret increase(()) · call check(())"]
    );
}

const REENTRANT: &str = "
import cb :(unit -> unit)
int depth := 0;
public enter (u:unit) :(unit) = { depth := !depth + 1; assert(!depth < 3); cb(); depth := !depth - 1 };
";

#[test]
fn k_counts_open_library_frames_across_callbacks() {
    // Three nested `enter` frames are needed: the client's calls each take one.
    assert_eq!(run(REENTRANT, 2, 1).verdict, Verdict::Safe);
    assert_eq!(
        traces(&run(REENTRANT, 3, 1)),
        ["call enter(()) · call cb(()) · call enter(()) · call cb(()) · call enter(())"]
    );
}

#[test]
fn internal_calls_take_frames_too() {
    let source = "
public f (x:int) :(unit) = { g(x) };
private g (x:int) :(unit) = { h(x) };
private h (x:int) :(unit) = { assert(x == 0) };
";
    assert_eq!(run(source, 2, 1).verdict, Verdict::Safe);
    assert_eq!(traces(&run(source, 3, 1)), ["call f(x1)"]);
}

#[test]
fn the_client_may_answer_a_pending_call_with_no_budget_left() {
    let source = "
import ask :(unit -> int)
public go (u:unit) :(unit) = { assert(ask() == 0) };
";
    assert_eq!(
        traces(&run(source, 1, 1)),
        ["call go(()) · call ask(()) · ret ask(x1)"]
    );
}

#[test]
fn symbolic_arguments_print_as_terms_and_models_cover_them() {
    let source = "
import send :(int -> unit)
public pay (m:int) :(unit) = { send(m - 10); assert(not (m == 12)) };
";
    let result = run(source, 1, 1);
    assert_eq!(
        traces(&result),
        ["call pay(x1) · call send(x1 - 10) · ret send(())"]
    );
    let c = &result.counterexamples[0];
    assert_eq!(c.model["x1"], 12.into());
    assert_eq!(
        c.concrete.to_string(),
        "call pay(12) · call send(2) · ret send(())"
    );
}

#[test]
fn concrete_arithmetic_stays_concrete() {
    let source = "
import send :(int -> unit)
int b := 7;
public pay (u:unit) :(unit) = { send(!b * 6); assert(0) };
";
    let result = run(source, 1, 1);
    assert_eq!(
        traces(&result),
        ["call pay(()) · call send(42) · ret send(())"]
    );
    assert_eq!(result.stats.solver_queries, 0);
}

#[test]
fn pairs_are_generated_componentwise() {
    let source = "
public add (p:int * int) :(unit) = { assert(not (fst p + snd p == 5)) };
";
    let result = run(source, 1, 1);
    assert_eq!(traces(&result), ["call add(x1, x2)"]);
    let m = &result.counterexamples[0].model;
    assert_eq!(&m["x1"] + &m["x2"], 5.into());
}

#[test]
fn division_by_a_possibly_zero_symbol_is_a_failure_of_its_own() {
    let source = "
public share (n:int) :(int) = { 100 / n };
";
    let result = run(source, 1, 1);
    assert_eq!(result.verdict, Verdict::Unsafe);
    let c = &result.counterexamples[0];
    assert_eq!(c.kind, FailureKind::Division);
    assert_eq!(c.trace.to_string(), "call share(x1)");
    assert_eq!(c.model["x1"], 0.into());
}

#[test]
fn division_truncates_toward_zero_and_a_proved_non_zero_divisor_is_safe() {
    let truncates = "public f (u:unit) :(unit) = { assert(not ((0 - 7) / 2 == 0 - 3)) };";
    assert_eq!(traces(&run(truncates, 1, 1)), ["call f(())"]);
    let guarded = "public f (n:int) :(unit) = { if (n == 0) then () else assert(n / n == 1) };";
    let result = run(guarded, 1, 1);
    assert_eq!(result.verdict, Verdict::Safe);
    let symbolic = "public f (n:int) :(unit) = { if (n < 0) then assert(not ((n - 1) / 2 == n / 2)) else () };";
    // Truncation: for negative even n, (n - 1) / 2 and n / 2 agree (the assert fails);
    // for negative odd n they differ.
    let result = run(symbolic, 1, 1);
    assert_eq!(traces(&result), ["call f(x1)"]);
    let n = &result.counterexamples[0].model["x1"];
    assert!(n < &0.into() && n % 2 == 0.into(), "{n}");
}

#[test]
fn revealed_lambdas_and_client_functions() {
    let source = "
import take :((int -> unit) -> unit)
int seen := 0;
public give (u:unit) :(unit) = {
  take(fun (x:int) :(unit) -> (seen := x; assert(not (!seen == 3))))
};
public apply (f:unit -> unit) :(unit) = { f() };
";
    let result = run(source, 2, 1);
    assert!(traces(&result).contains(&"call give(()) · call take(m1) · call m1(x1)".to_string()));
    assert!(!traces(&result).iter().any(|t| t.contains("apply")));
}

#[test]
fn an_undeclared_call_ends_the_path_silently_and_is_counted() {
    let source = "
public f (u:unit) :(unit) = { missing(); assert(0) };
public g (u:unit) :(unit) = { assert(0) };
";
    let result = run(source, 1, 1);
    assert_eq!(traces(&result), ["call g(())"]);
    assert_eq!(result.stats.undeclared_calls, 1);
}

#[test]
fn reading_an_unset_reference_is_stuck_but_assigning_creates_it() {
    let source = "
public f (u:unit) :(unit) = { assert(!ghost == 1) };
public g (u:unit) :(unit) = { fresh := 5; assert(!fresh == 4) };
";
    let result = run(source, 1, 1);
    assert_eq!(traces(&result), ["call g(())"]);
    assert_eq!(result.stats.stuck_paths, 1);
}

#[test]
fn letrec_recursion_is_bounded_by_k() {
    let source = "
public count (n:int) :(unit) = {
  letrec down (i:int) :(int) = (if (i == 0) then 0 else 1 + down(i - 1)) in
  assert(not (down(n) == 2))
};
";
    // count, then down three times (n = 2, 1, 0): four frames.
    assert_eq!(run(source, 3, 1).verdict, Verdict::Safe);
    let result = run(source, 4, 1);
    assert_eq!(traces(&result), ["call count(x1)"]);
    assert_eq!(result.counterexamples[0].model["x1"], 2.into());
}

#[test]
fn function_references_hold_method_names() {
    let source = "
private a (x:int) :(int) = { 1 };
private b (x:int) :(int) = { 2 };
fun r := a;
public swap (u:unit) :(unit) = { r := b };
public test (u:unit) :(unit) = { assert(!r 0 == 1) };
";
    assert_eq!(
        traces(&run(source, 2, 2)),
        ["call swap(()) · ret swap(()) · call test(())"]
    );
}

#[test]
fn search_limits_make_the_verdict_inconclusive() {
    let loaded = holi::frontend::load_str("t.holi", COUNTER, false).unwrap();
    let result = check(
        &loaded.program,
        &CheckOptions {
            k: 2,
            l: 3,
            max_configurations: Some(3),
            ..CheckOptions::default()
        },
    );
    assert_eq!(result.verdict, Verdict::Inconclusive);
    assert!(result.inconclusive[0].contains("configuration limit"));
}

#[test]
fn an_interrupt_stops_the_search_cleanly() {
    let loaded = holi::frontend::load_str("t.holi", COUNTER, false).unwrap();
    let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let result = check(
        &loaded.program,
        &CheckOptions {
            k: 2,
            l: 3,
            interrupt: Some(flag),
            ..CheckOptions::default()
        },
    );
    assert_eq!(result.verdict, Verdict::Inconclusive);
    assert_eq!(result.inconclusive, ["search stopped: interrupted"]);
}
