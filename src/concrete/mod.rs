//! The concrete interpreter: runs a closed or linked HOLi client with the operational
//! semantics of paper Figure 2, mathematical integers and the operators of [`crate::ops`].
//!
//! Used by `holi run` and by replay, which checks that a synthesized client really drives
//! the library into the reported failure.

mod index;
mod machine;

pub use index::ProgramIndex;
pub use machine::{
    Cutoff, Failure, Limits, Linked, Machine, Outcome, RunResult, Side, Stop, Value, CHECK_EVERY,
    DEFAULT_MAX_MEMORY,
};

use crate::trace::Move;

/// Runs the client's `main` against the (optional) library. A client without `main`
/// has nothing to run and reports that as a stuck machine at the start of the file.
pub fn run(linked: Linked<'_>, limits: Limits, on_move: &mut dyn FnMut(&Move)) -> RunResult {
    let library = linked.library.map(ProgramIndex::new);
    let client = ProgramIndex::new(linked.client);
    run_indexed(library.as_ref(), &client, limits, on_move)
}

/// [`run`] on programs already indexed (replay indexes its library once for all runs).
pub fn run_indexed(
    library: Option<&ProgramIndex<'_>>,
    client: &ProgramIndex<'_>,
    limits: Limits,
    on_move: &mut dyn FnMut(&Move),
) -> RunResult {
    match &client.program.main {
        Some(main) => Machine::new(library, client, limits).run(&main.body, on_move),
        None => RunResult {
            outcome: Outcome::Stopped(Stop::Stuck {
                reason: "the program has no `main`".to_string(),
                span: 0..0,
                side: Side::Client,
            }),
            moves: Vec::new(),
            steps: 0,
            max_library_depth: 0,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::load_str;
    use crate::syntax::ast::Program;
    use crate::trace::{FailureKind, TraceValue};
    use num_bigint::BigInt;

    fn program(src: &str) -> Program {
        match load_str("test.holi", src, false) {
            Ok(l) => l.program,
            Err(r) => panic!("test program rejected:\n{}", r.render(false)),
        }
    }

    fn run_closed(src: &str, limits: Limits) -> RunResult {
        let p = program(src);
        run(
            Linked {
                library: None,
                client: &p,
            },
            limits,
            &mut |_| {},
        )
    }

    fn finished(src: &str) -> TraceValue {
        match run_closed(src, Limits::default()).outcome {
            Outcome::Finished(v) => v,
            other => panic!("expected a normal end, got {other:?}"),
        }
    }

    fn int(i: i64) -> TraceValue {
        TraceValue::Int(BigInt::from(i))
    }

    #[test]
    fn arithmetic_follows_ops_and_integers_are_mathematical() {
        assert_eq!(finished("main = { (0 - 7) / 2 };"), int(-3));
        assert_eq!(finished("main = { 3 < 4 && 0 || 0 };"), int(0));
        assert_eq!(finished("main = { not 5 };"), int(0));
        let big = finished("main = { 9223372036854775807 * 9223372036854775807 };");
        assert_eq!(
            big,
            TraceValue::Int(BigInt::from(i64::MAX) * BigInt::from(i64::MAX))
        );
    }

    #[test]
    fn references_methods_and_closures() {
        let src = "int c := 0;
            private bump (n:int) :(int) = { c := !c + n; !c };
            main = { let add = fun (x:int) :(int) -> bump(x) + 100 in
                     bump(1); add(2) };";
        assert_eq!(finished(src), int(103));
    }

    #[test]
    fn letrec_recursion_and_pairs() {
        let src = "main = { letrec fact (n:int) :(int) =
                       if n < 1 then 1 else n * fact(n - 1) in
                     (fact 5, snd (1, 2)) };";
        assert_eq!(
            finished(src),
            TraceValue::Pair(Box::new(int(120)), Box::new(int(2)))
        );
    }

    #[test]
    fn a_failing_assert_reports_its_span() {
        let src = "main = { assert(1); assert(0) };";
        let result = run_closed(src, Limits::default());
        let start = src.rfind("assert").unwrap();
        match result.outcome {
            Outcome::Failed(f) => {
                assert_eq!(f.kind, FailureKind::Assert);
                assert_eq!(f.span.start, start);
            }
            other => panic!("expected a failure, got {other:?}"),
        }
    }

    #[test]
    fn division_by_zero_is_a_failure() {
        let result = run_closed("main = { 1 / (2 - 2) };", Limits::default());
        assert!(matches!(
            result.outcome,
            Outcome::Failed(Failure {
                kind: FailureKind::Division,
                ..
            })
        ));
    }

    #[test]
    fn both_operands_of_and_are_evaluated() {
        let src = "int c := 0; main = { (c := 1; 0) && (c := !c + 1; 1); !c };";
        assert_eq!(finished(src), int(2));
    }

    #[test]
    fn deep_recursion_hits_the_depth_limit_not_the_stack() {
        let src = "private f (n:int) :(int) = { 1 + f(n) }; main = { f(0) };";
        let limits = Limits {
            max_steps: u64::MAX,
            max_depth: 200_000,
            ..Limits::default()
        };
        let result = run_closed(src, limits);
        assert_eq!(result.outcome, Outcome::Stopped(Stop::DepthLimit(200_000)));
    }

    #[test]
    fn a_loop_hits_the_step_limit() {
        let src = "private f (n:int) :(int) = { f(n + 1) }; main = { f(0) };";
        let limits = Limits {
            max_steps: 10_000,
            max_depth: 1_000_000,
            ..Limits::default()
        };
        let result = run_closed(src, limits);
        assert_eq!(result.outcome, Outcome::Stopped(Stop::StepLimit(10_000)));
    }

    #[test]
    fn a_huge_depth_limit_is_caught_by_the_memory_limit() {
        let src = "main = { letrec f (n:int) :(int) =
                       if n <= 0 then 0 else 1 + f (n - 1) in f 100000000 };";
        let limits = Limits {
            max_steps: u64::MAX,
            max_depth: usize::MAX,
            max_memory: 16 << 20,
            ..Limits::default()
        };
        let result = run_closed(src, limits);
        match result.outcome {
            Outcome::Stopped(Stop::MemoryLimit { limit, span, side }) => {
                assert_eq!(limit, 16 << 20);
                assert_eq!(side, Side::Client);
                // Stopped inside `f`'s body, where the recursion is.
                let body = src.find("if n <= 0").unwrap()..src.find(" in f").unwrap();
                assert!(body.contains(&span.start), "{span:?}");
            }
            other => panic!("expected the memory limit, got {other:?}"),
        }
    }

    #[test]
    fn an_integer_too_big_for_the_memory_limit_is_not_computed() {
        // Squaring doubles the digits: 40 squarings would need 128 GiB.
        let src = "int c := 3;
            private sq (n:int) :(int) = { c := !c * !c; if n < 40 then sq(n + 1) else 0 };
            main = { sq(0) };";
        let limits = Limits {
            max_steps: u64::MAX,
            max_memory: 1 << 20,
            ..Limits::default()
        };
        let result = run_closed(src, limits);
        assert!(
            matches!(result.outcome, Outcome::Stopped(Stop::MemoryLimit { .. })),
            "{:?}",
            result.outcome
        );
    }

    #[test]
    fn the_deadline_and_the_interrupt_flag_stop_a_loop() {
        use std::sync::atomic::AtomicBool;
        use std::sync::Arc;
        use std::time::{Duration, Instant};
        let src = "private f (n:int) :(int) = { f(n + 1) }; main = { f(0) };";
        let endless = Limits {
            max_steps: u64::MAX,
            max_depth: usize::MAX,
            ..Limits::default()
        };
        let timed = Limits {
            deadline: Some(Instant::now() + Duration::from_millis(100)),
            ..endless.clone()
        };
        assert_eq!(
            run_closed(src, timed).outcome,
            Outcome::Stopped(Stop::Cutoff(Cutoff::TimeLimit))
        );
        let interrupted = Limits {
            interrupt: Some(Arc::new(AtomicBool::new(true))),
            ..endless
        };
        assert_eq!(
            run_closed(src, interrupted).outcome,
            Outcome::Stopped(Stop::Cutoff(Cutoff::Interrupted))
        );
    }

    /// Runs `client` linked with `library` under the default limits.
    fn run_linked(
        library: &Program,
        client: &Program,
        on_move: &mut dyn FnMut(&Move),
    ) -> RunResult {
        run(
            Linked {
                library: Some(library),
                client,
            },
            Limits::default(),
            on_move,
        )
    }

    #[test]
    fn names_resolve_lazily_to_methods_references_and_imports() {
        let library = program(
            "int n := 5;
             private twice (x:int) :(int) = { x + x };
             fun r := twice;
             public get (x:unit) :(int) = { (!r)(!n) };",
        );
        let client = program("import get :(unit -> int) main = { get() };");
        let result = run_linked(&library, &client, &mut |_| {});
        assert_eq!(result.outcome, Outcome::Finished(int(10)));
    }

    #[test]
    fn calling_an_undeclared_name_is_stuck() {
        let result = run_closed("main = { nowhere(1) };", Limits::default());
        assert!(matches!(
            result.outcome,
            Outcome::Stopped(Stop::Stuck { .. })
        ));
    }

    #[test]
    fn linked_runs_record_boundary_moves() {
        let library = program(
            "import send :(int -> unit)
             int bal := 100;
             public withdraw (x:int) :(unit) = {
               if not (!bal < x) then send(x); bal := !bal - x; assert(not (!bal < 0)) else () };",
        );
        let client = program(
            "import withdraw :(int -> unit)
             int wallet := 0;
             public send (x:int) :(unit) = {
               wallet := !wallet + x; if !wallet < 100 then withdraw(x) else () };
             main = { withdraw(60) };",
        );
        let mut seen = Vec::new();
        let result = run_linked(&library, &client, &mut |m| seen.push(m.to_string()));
        assert!(matches!(
            result.outcome,
            Outcome::Failed(Failure {
                side: Side::Library,
                ..
            })
        ));
        assert_eq!(
            seen,
            [
                "call withdraw(60)",
                "call send(60)",
                "call withdraw(60)",
                "call send(60)",
                "ret send(())",
                "ret withdraw(())",
                "ret send(())"
            ]
        );
        assert_eq!(result.max_library_depth, 2);
    }

    #[test]
    fn functions_crossing_the_boundary_get_fresh_labels() {
        let library = program(
            "import userExec :((unit -> unit) -> unit)
             public open (u:unit) :(unit) = {
               (let write = fun (x:unit) :(unit) -> () in userExec(write)) };",
        );
        let client = program(
            "import open :(unit -> unit)
             public userExec (w:unit -> unit) :(unit) = { w() };
             main = { open() };",
        );
        let result = run_linked(&library, &client, &mut |_| {});
        let moves: Vec<String> = result.moves.iter().map(|m| m.to_string()).collect();
        assert_eq!(
            moves,
            [
                "call open(())",
                "call userExec(m1)",
                "call m1(())",
                "ret m1(())",
                "ret userExec(())",
                "ret open(())"
            ]
        );
    }
}
