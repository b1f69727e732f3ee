//! The engine's semantics on small libraries: bounds k and l exactly as HOLiK's, client
//! values, revealed names, divisions, and the ends of paths (stuck ones reported).

use holi::symbolic::{check, CheckOptions, CheckResult, StuckReason, Verdict};
use holi::symbolic::{Bounds, Limits, Run, Techniques};
use holi::trace::FailureKind;

fn run(source: &str, k: u32, l: u32) -> CheckResult {
    let loaded = holi::frontend::load_str("test.holi", source, false)
        .unwrap_or_else(|r| panic!("{}", r.render(false)));
    check(
        &holi::library::build(&loaded.program),
        &CheckOptions {
            bounds: Bounds { k, l },
            techniques: Techniques {
                all: true,
                ..Techniques::default()
            },
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
        &holi::library::build(&loaded.program),
        &CheckOptions {
            bounds: Bounds { k: 2, l: 3 },
            limits: Limits {
                max_configurations: Some(3),
                ..Limits::default()
            },
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
        &holi::library::build(&loaded.program),
        &CheckOptions {
            bounds: Bounds { k: 2, l: 3 },
            limits: Limits {
                interrupt: Some(flag),
                ..Limits::default()
            },
            ..CheckOptions::default()
        },
    );
    assert_eq!(result.verdict, Verdict::Inconclusive);
    assert_eq!(result.inconclusive, ["search stopped: interrupted"]);
}

/// The source text of each stuck place, its reason and its paths.
fn stuck(source: &str, result: &CheckResult) -> Vec<(String, StuckReason, u64)> {
    result
        .stuck
        .iter()
        .map(|s| {
            (
                source[s.span.clone()].to_string(),
                s.reason.clone(),
                s.paths,
            )
        })
        .collect()
}

fn check_with(source: &str, options: CheckOptions) -> CheckResult {
    let loaded = holi::frontend::load_str("test.holi", source, false)
        .unwrap_or_else(|r| panic!("{}", r.render(false)));
    check(&holi::library::build(&loaded.program), &options)
}

/// The DAO example with one typo: each turns the library's only failure into a stuck
/// path, which must not read as a clean safe result.
fn dao_typo(from: &str, to: &str) -> String {
    let dao = include_str!("../examples/dao.holi");
    assert!(dao.contains(from), "{from} is not in dao.holi");
    dao.replacen(from, to, 1)
}

#[test]
fn a_typo_that_makes_paths_stuck_gives_stuck_not_safe() {
    let cases = [
        (
            dao_typo("send m", "sned m"),
            ("sned m", StuckReason::Undeclared("sned".to_string())),
        ),
        (
            dao_typo("!balance < m", "!balanse < m"),
            (
                "!balanse",
                StuckReason::UnsetReference("balanse".to_string()),
            ),
        ),
        (
            dao_typo("!balance - m", "!balance -1"),
            ("!balance -1", StuckReason::IllTyped),
        ),
    ];
    for (source, (place, reason)) in cases {
        for options in [
            CheckOptions::default(),
            CheckOptions {
                techniques: Techniques {
                    memo: false,
                    ..Techniques::default()
                },
                ..CheckOptions::default()
            },
            CheckOptions {
                techniques: Techniques {
                    first: true,
                    ..Techniques::default()
                },
                ..CheckOptions::default()
            },
        ] {
            let result = check_with(&source, options);
            assert_eq!(result.verdict, Verdict::Stuck, "{place}");
            let places = stuck(&source, &result);
            assert_eq!(places.len(), 1, "{place}: {places:?}");
            assert_eq!((places[0].0.as_str(), &places[0].1), (place, &reason));
            let paths: u64 = result.stuck.iter().map(|s| s.paths).sum();
            assert_eq!(
                paths,
                result.stats.undeclared_calls + result.stats.stuck_paths,
                "{place}: the counters disagree with the places"
            );
        }
        // HOLiK's reading: a stuck path is no trace.
        let holik = check_with(
            &source,
            CheckOptions {
                run: Run {
                    allow_stuck: true,
                    ..Run::default()
                },
                ..CheckOptions::default()
            },
        );
        assert_eq!(holik.verdict, Verdict::Safe, "{place}");
        assert_eq!(stuck(&source, &holik).len(), 1, "{place}");
    }
}

#[test]
fn stuck_places_are_listed_with_a_failure_and_in_source_order() {
    let source = "
int n := 0;
public f (u:unit) :(unit) = { n := !n + 1; missing(!n) };
public g (x:int) :(unit) = { if x < 0 then !ghost else (fst 1; ()) };
public h (x:int) :(unit) = { assert(x < 7) };
";
    let result = run(source, 2, 2);
    assert_eq!(result.verdict, Verdict::Unsafe);
    let places: Vec<(String, StuckReason)> = stuck(source, &result)
        .into_iter()
        .map(|(text, reason, _)| (text, reason))
        .collect();
    assert_eq!(
        places,
        [
            (
                "missing(!n)".to_string(),
                StuckReason::Undeclared("missing".to_string())
            ),
            (
                "!ghost".to_string(),
                StuckReason::UnsetReference("ghost".to_string())
            ),
            ("fst 1".to_string(), StuckReason::IllTyped),
        ]
    );
}

#[test]
fn all_keeps_two_sites_reached_by_the_same_moves() {
    let source = "public m (x:int) :(unit) = { assert (0 < x); assert (x < 5) };";
    let default = check_with(source, CheckOptions::default());
    let all = run(source, 1, 1);
    assert_eq!(default.counterexamples.len(), 2);
    assert_eq!(all.counterexamples.len(), 2, "{:?}", traces(&all));
    assert_eq!(traces(&all), ["call m(x1)", "call m(x1)"]);
    assert_ne!(all.counterexamples[0].span, all.counterexamples[1].span);
    // HOLiK counts traces by their text: one.
    assert_eq!(all.failing_traces, 1);
    assert!(!all.failing_traces_lower_bound);
}

#[test]
fn the_client_plays_only_0_and_1_where_a_bool_is_expected() {
    let as_bool = "public f (b:bool) :(unit) = { assert (b < 2); assert (not (b < 0)) };";
    assert_eq!(run(as_bool, 1, 1).verdict, Verdict::Safe);
    let as_int = "public f (b:int) :(unit) = { assert (b < 2) };";
    assert_eq!(run(as_int, 1, 1).verdict, Verdict::Unsafe);
    // Both values are played.
    let both = "public f (b:bool) :(unit) = { assert b };";
    let result = run(both, 1, 1);
    assert_eq!(traces(&result), ["call f(x1)"]);
    assert_eq!(result.counterexamples[0].model.get("x1"), Some(&0.into()));
}

#[test]
fn mod_by_a_possibly_zero_symbol_is_a_division_failure() {
    let result = run("public f (x:int) :(int) = { 7 mod x };", 1, 1);
    assert_eq!(result.verdict, Verdict::Unsafe);
    assert_eq!(result.counterexamples[0].kind, FailureKind::Division);
    // -7 mod 2 is -1: the sign of the dividend, as for `/`.
    let signed = "public f (x:int) :(unit) = { if x == -7 then assert ((x mod 2) == -1) else () };";
    assert_eq!(run(signed, 1, 1).verdict, Verdict::Safe);
}

#[test]
fn nothing_after_a_divergence_is_reached() {
    let result = run(
        "public f (x:int) :(unit) = { if x < 3 then _bot_ else (); assert (2 < x) };",
        1,
        1,
    );
    assert_eq!(result.verdict, Verdict::Safe);
}
