//! The proof checker evaluates method bodies with an evaluator of its own
//! (`src/proof.rs`), apart from the search and the concrete interpreter, and its
//! soundness rests on syntactic gates. Two kinds of test keep it honest:
//!
//! * **The two evaluators agree.** For a generated body (helpers, a lambda, asserts,
//!   divisions, conditionals over two references) with concrete inputs and a concrete
//!   store, the concrete interpreter runs it and gives the final store, or fails at some
//!   place. The same body, followed by asserts that the references hold exactly those
//!   final values, is given to the proof checker (the method sets the store itself, so
//!   no invariant is needed). The checker must refute the very `assert` or division
//!   that failed concretely, and prove the library when the run finished; with one
//!   final value off by one, it must refute that value's `assert`. So every value the
//!   checker's evaluator computes, through closure and `letrec` environments,
//!   truncating division and logic without short cuts, is the interpreter's.
//! * **Every gate refuses what lies just outside it**: for each way the argument can be
//!   left (ML-like references, a reference holding a function, paths that may get stuck,
//!   each way a library function reaches the client, too many of them), an unsafe
//!   library that goes exactly that way is not proved, whatever candidates the search
//!   for a certificate starts from; the search finds its failure.

mod prop_gen;

use holi::concrete::{self, Limits, Linked, Outcome as Run};
use holi::frontend::load_str;
use holi::library::Library;
use holi::proof::{self, Budget, Certificate, Obligation, Outcome};
use holi::symbolic::Bounds;
use holi::symbolic::{check, CheckOptions, Verdict};
use holi::syntax::ast::Program;
use holi::trace::{FailureKind, TraceValue};
use num_bigint::BigInt;
use proptest::prelude::*;

fn load(source: &str) -> Result<Program, TestCaseError> {
    load_str("generated.holi", source, false)
        .map(|l| l.program)
        .map_err(|r| TestCaseError::fail(format!("rejected:\n{}\n{source}", r.render(false))))
}

/// The generated library whose entry sets the store to `store`, evaluates `body` on
/// the inputs `a`, `b` and then `tail`, and returns a pair of integers. The store is
/// set by the entry itself, so that the checker, which starts a method from any store
/// its invariant allows, computes with numbers and never meets its nonlinear gate.
/// Every variant of a body shares the text before `tail`, so its places are the same
/// in each.
fn library(
    parts: &(Vec<i64>, String, String, String),
    store: [i64; 2],
    a: i64,
    b: i64,
    tail: &str,
) -> String {
    let (_, h1, h0, body) = parts;
    let [s0, s1] = store;
    format!(
        "int r0 := {s0};\nint r1 := {s1};\n\
         private h1 (y:int) :(int) = {{ {h1} }};\n\
         private h0 (y:int) :(int) = {{ {h0} }};\n\
         public entry (u:unit) :(int * int) = {{\n  r0 := {s0}; r1 := {s1}; \
         (let a = {a} in let b = {b} in ({body}); {tail})\n}};\n"
    )
}

fn integer(v: &TraceValue) -> Option<BigInt> {
    match v {
        TraceValue::Int(i) => Some(i.clone()),
        _ => None,
    }
}

/// The place of the first `assert` after `marker` in `source`.
fn assert_after(source: &str, marker: &str) -> std::ops::Range<usize> {
    let from = source.find(marker).unwrap_or(0) + marker.len();
    let start = from + source[from..].find("assert").unwrap_or(0);
    let end = start + source[start..].find(')').unwrap_or(0) + 1;
    start..end
}

/// The checker's answer for `source`, with no invariant (the entry sets the store).
fn proof_of(source: &str) -> Result<Outcome, TestCaseError> {
    let lib = holi::library::build(&load(source)?);
    Ok(proof::check(
        &lib,
        &Certificate::default(),
        Budget::default(),
    ))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, ..ProptestConfig::default() })]

    #[test]
    fn the_proof_checker_evaluates_as_the_interpreter_does(
        parts in prop_gen::closed_parts(),
        store in (-3i64..4, -3i64..4),
        a in -3i64..4,
        b in -3i64..4,
    ) {
        let store = [store.0, store.1];
        let probe = load(&library(&parts, store, a, b, "(!r0, !r1)"))?;
        let client = load("import entry :(unit -> (int * int))\nmain = { entry(()) };")?;
        let run = concrete::run(
            Linked { library: Some(&probe), client: &client },
            Limits::default(),
            &mut |_| {},
        );
        let reset = "(0, 0)";
        match &run.outcome {
            Run::Finished(TraceValue::Pair(f0, f1)) => {
                let (Some(f0), Some(f1)) = (integer(f0), integer(f1)) else {
                    return Err(TestCaseError::fail(format!("not integers: {f0}, {f1}")));
                };
                let exact = library(&parts, store, a, b, &format!(
                    "assert(!r0 == {f0}); assert(!r1 == {f1}); {reset}"
                ));
                let outcome = proof_of(&exact)?;
                prop_assert!(
                    matches!(outcome, Outcome::Proved { .. }),
                    "{exact}\nthe interpreter ends with r0 = {f0}, r1 = {f1}; the checker: {outcome:?}"
                );
                let off = library(&parts, store, a, b, &format!(
                    "assert(!r0 == {f0}); assert(!r1 == {}); {reset}", &f1 + 1
                ));
                let outcome = proof_of(&off)?;
                let expected = assert_after(&off, "assert(!r0 ==");
                prop_assert_eq!(
                    outcome,
                    Outcome::Refuted(Obligation::Assert(expected)),
                    "{}\nthe interpreter ends with r1 = {}", off, f1
                );
            }
            Run::Failed(failure) => {
                let source = library(&parts, store, a, b, reset);
                let outcome = proof_of(&source)?;
                let expected = match failure.kind {
                    FailureKind::Assert => Obligation::Assert(failure.span.clone()),
                    FailureKind::Division => Obligation::Division(failure.span.clone()),
                };
                prop_assert_eq!(outcome, Outcome::Refuted(expected), "{}", source);
            }
            Run::Stopped(concrete::Stop::Stuck { .. }) => {
                let source = library(&parts, store, a, b, reset);
                let outcome = proof_of(&source)?;
                prop_assert!(!matches!(outcome, Outcome::Proved { .. }), "{}", source);
            }
            other => prop_assert!(false, "a generated body ended otherwise: {:?}", other),
        }
    }
}

/// The libraries just outside a gate of the proof checker, each unsafe, and the words
/// its refusal gives.
const OUTSIDE: [(&str, &str); 8] = [
    (
        "ML-like references: the client writes a cell it was lent",
        "import lend :(ref int -> unit)
         public m (u:unit) :(unit) = { let c = ref 0 in lend c; assert(!c == 0) };",
    ),
    (
        "a reference holding a function the client replaces",
        "fun f := id;
         private id (x:int) :(int) = { x };
         public set (g:int -> int) :(unit) = { f := g };
         public m (x:int) :(unit) = { assert((!f)(x) == x) };",
    ),
    (
        "a call that may get stuck, beside a failure",
        "public m (x:int) :(unit) = { (if x == 1 then sned 1 else ()); assert(not (x == 2)) };",
    ),
    (
        "a closure returned to the client",
        "public m (u:unit) :(unit -> unit) = { fun (z:unit) :(unit) -> assert(0) };",
    ),
    (
        "a closure in a pair returned to the client",
        "public m (u:unit) :(int * (unit -> unit)) = { (0, (fun (z:unit) :(unit) -> assert(0))) };",
    ),
    (
        "a closure passed to a client function",
        "import cb :((unit -> unit) -> unit)
         public m (u:unit) :(unit) = { cb (fun (z:unit) :(unit) -> assert(0)) };",
    ),
    (
        "a private method returned to the client",
        "private p (u:unit) :(unit) = { assert(0) };
         public m (u:unit) :(unit -> unit) = { p };",
    ),
    (
        "a closure returned by a closure returned to the client",
        "public m (u:unit) :(unit -> unit -> unit) = {
           fun (z:unit) :(unit -> unit) -> fun (w:unit) :(unit) -> assert(0)
         };",
    ),
];

fn built(source: &str) -> Library {
    let loaded = load_str("outside.holi", source, false)
        .unwrap_or_else(|r| panic!("{source}\n{}", r.render(false)));
    holi::library::build(&loaded.program)
}

/// Whether the search finds a failing trace within small bounds.
fn unsafe_by_search(lib: &Library) -> bool {
    let options = CheckOptions {
        bounds: Bounds { k: 3, l: 3 },
        ..CheckOptions::default()
    };
    check(lib, &options).verdict == Verdict::Unsafe
}

#[test]
fn no_library_just_outside_a_gate_is_proved() {
    for (what, source) in OUTSIDE {
        let lib = built(source);
        assert!(
            unsafe_by_search(&lib),
            "{what}: the search finds no failure"
        );
        for start in [Certificate::default(), proof::candidates(&lib)] {
            let (found, outcome) = proof::find(&lib, &start, Budget::thorough());
            assert!(
                !matches!(outcome, Outcome::Proved { .. }),
                "{what}: proved with {found:?}"
            );
            let checked = proof::check(&lib, &found, Budget::thorough());
            assert!(
                !matches!(checked, Outcome::Proved { .. }),
                "{what}: {checked:?}"
            );
        }
    }
}

#[test]
fn more_library_functions_reaching_the_client_than_followed_are_not_covered() {
    // MAX_REVEALED + 1 private methods, one per input, the last of which fails.
    let n = proof::MAX_REVEALED + 1;
    let mut source = String::new();
    for i in 0..n {
        let body = if i + 1 == n { "assert(0)" } else { "()" };
        source.push_str(&format!("private p{i} (u:unit) :(unit) = {{ {body} }};\n"));
    }
    let mut choice = format!("p{}", n - 1);
    for i in (0..n - 1).rev() {
        choice = format!("if x == {i} then p{i} else ({choice})");
    }
    source.push_str(&format!(
        "public m (x:int) :(unit -> unit) = {{ {choice} }};\n"
    ));
    let lib = built(&source);
    assert!(unsafe_by_search(&lib));
    match proof::check(&lib, &Certificate::default(), Budget::thorough()) {
        Outcome::NotCovered(why) => assert!(why.contains("reach the client"), "{why}"),
        other => panic!("{other:?}"),
    }
}
