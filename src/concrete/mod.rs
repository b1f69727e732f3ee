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
            snapshots: Vec::new(),
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
        // Without references: no store entries, and an empty snapshot per move.
        assert!(result.moves.iter().all(|m| m.store.is_empty()));
        assert_eq!(result.snapshots, vec![Vec::new(); result.moves.len()]);
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

    fn pair(a: TraceValue, b: TraceValue) -> TraceValue {
        TraceValue::Pair(Box::new(a), Box::new(b))
    }

    fn moves(result: &RunResult) -> Vec<String> {
        result.moves.iter().map(|m| m.to_string()).collect()
    }

    /// Each snapshot as `q1 = 1, r1 = 2`.
    fn snapshots(result: &RunResult) -> Vec<String> {
        assert_eq!(result.snapshots.len(), result.moves.len());
        result
            .snapshots
            .iter()
            .map(|s| {
                let cells: Vec<String> = s
                    .iter()
                    .map(|e| format!("{} = {}", e.cell, e.value))
                    .collect();
                cells.join(", ")
            })
            .collect()
    }

    #[test]
    fn allocation_aliasing_and_equality_of_locations() {
        let src = "main = { let a = ref 1 in let b = a in
                     b := 5;
                     (!a, (a == b, a == ref 5)) };";
        assert_eq!(finished(src), pair(int(5), pair(int(1), int(0))));
        // Cells hold any value, locations included; reads and writes go through any
        // expression that gives a location.
        let src = "main = { let c = ref (ref 1, 2) in
                     (fst !c) := !(fst !c) + 10;
                     !fst !c };";
        assert_eq!(finished(src), int(11));
    }

    #[test]
    fn equality_of_a_location_and_an_integer_is_stuck() {
        let result = run_closed("main = { let a = ref 1 in a == 1 };", Limits::default());
        match result.outcome {
            Outcome::Stopped(Stop::Stuck { reason, .. }) => {
                assert!(reason.contains("a reference"), "{reason}")
            }
            other => panic!("expected a stuck run, got {other:?}"),
        }
    }

    #[test]
    fn reading_through_a_non_reference_is_stuck() {
        let result = run_closed("main = { !(1 + 1) };", Limits::default());
        assert!(matches!(
            result.outcome,
            Outcome::Stopped(Stop::Stuck { .. })
        ));
    }

    #[test]
    fn ref_declarations_hold_a_location_of_their_own() {
        let src = "ref int c := ref 3;
            ref (int -> int) f := ref twice;
            ref ref int cc := ref ref 4;
            private twice (x:int) :(int) = { x * 2 };
            main = { !c := !(!c) + 1;
                     (let old = !c in
                      c := ref 10;
                      (!(!c), (!old, ((!(!f)) 3, !(!(!cc)))))) };";
        assert_eq!(
            finished(src),
            pair(int(10), pair(int(4), pair(int(6), int(4))))
        );
    }

    #[test]
    fn a_global_reference_wins_over_a_local_holding_a_location() {
        // `!x` is the global `x` (rule 1 of lang/references.md §1.4), `!c` the local.
        let src = "int x := 7;
            main = { let x = ref 1 in let c = ref 2 in c := !c + 1; (!x, !c) };";
        assert_eq!(finished(src), pair(int(7), int(3)));
    }

    const COUNTER: &str = "public counter (u:unit) :(unit -> int) = {
           let c = ref 0 in fun (u:unit) :(int) -> (c := !c + 1; !c) };";

    #[test]
    fn each_counter_has_its_own_cell_and_it_is_never_disclosed() {
        let library = program(COUNTER);
        let client = program(
            "import counter :(unit -> unit -> int)
             main = { let a = counter () in let b = counter () in
                      a (); a (); b (); (a (), b ()) };",
        );
        let result = run_linked(&library, &client, &mut |_| {});
        assert_eq!(result.outcome, Outcome::Finished(pair(int(3), int(2))));
        assert!(result.moves.iter().all(|m| m.store.is_empty()));
        assert!(result.snapshots.iter().all(Vec::is_empty));
        assert_eq!(
            moves(&result)[..4],
            [
                "call counter(())",
                "ret counter(m1)",
                "call counter(())",
                "ret counter(m2)"
            ]
        );
    }

    #[test]
    fn a_lent_cell_written_by_the_client_is_a_store_entry() {
        let library = program(
            "import visit :(ref int -> unit)
             int total := 0;
             public deposit (m:int) :(unit) = {
               if 0 < m then
                 (let cell = ref m in
                  visit cell;
                  total := !total + !cell;
                  assert (0 <= !total))
               else () };",
        );
        let client = program(
            "import deposit :(int -> unit)
             ref int kept := ref 0;
             public visit (c:ref int) :(unit) = { kept := c; !kept := -1 };
             main = { deposit 1 };",
        );
        let result = run_linked(&library, &client, &mut |_| {});
        assert!(matches!(
            result.outcome,
            Outcome::Failed(Failure {
                side: Side::Library,
                kind: FailureKind::Assert,
                ..
            })
        ));
        assert_eq!(
            moves(&result),
            [
                "call deposit(1)",
                "call visit(q1)",
                "ret visit(()) [q1 := -1]"
            ]
        );
        assert_eq!(snapshots(&result), ["", "q1 = 1", "q1 = -1"]);
    }

    #[test]
    fn the_client_s_own_cells_are_named_and_shown_when_disclosed() {
        let library = program(
            "public move_all (p:ref int * ref int) :(unit) = {
               let src = fst p in
               let dst = snd p in
               let before = !src + !dst in
               dst := !dst + !src;
               src := 0;
               assert (!src + !dst == before) };",
        );
        let aliased = program(
            "import move_all :((ref int * ref int) -> unit)
             main = { let r = ref 2 in move_all (r, r) };",
        );
        let result = run_linked(&library, &aliased, &mut |_| {});
        assert!(matches!(result.outcome, Outcome::Failed(_)));
        assert_eq!(moves(&result), ["call move_all(r1, r1) [r1 := 2]"]);
        assert_eq!(snapshots(&result), ["r1 = 2"]);
        // A cell made in an earlier turn is shown when first disclosed, one written
        // again in a later turn is shown again; entries go in order of the cells' first
        // appearance in the trace.
        let two = program(
            "import move_all :((ref int * ref int) -> unit)
             main = { let a = ref 1 in let b = ref 2 in
                      move_all (a, ref 0);
                      a := 5;
                      move_all (b, a) };",
        );
        let result = run_linked(&library, &two, &mut |_| {});
        assert_eq!(result.outcome, Outcome::Finished(TraceValue::Unit));
        assert_eq!(
            moves(&result),
            [
                "call move_all(r1, r2) [r1 := 1, r2 := 0]",
                "ret move_all(())",
                "call move_all(r3, r1) [r1 := 5, r3 := 2]",
                "ret move_all(())"
            ]
        );
        assert_eq!(
            snapshots(&result),
            [
                "r1 = 1, r2 = 0",
                "r1 = 0, r2 = 1",
                "r1 = 5, r2 = 1, r3 = 2",
                "r1 = 7, r2 = 1, r3 = 0"
            ]
        );
    }

    #[test]
    fn cells_pass_from_library_to_client_and_back() {
        let library = program(
            "import visit :(ref ref int -> unit)
             import take :((ref int * (int -> int)) -> ref int)
             private secret (x:int) :(int) = { x + 1 };
             public nest (u:unit) :(ref ref int) = { let inner = ref 7 in ref inner };
             public deposit (m:int) :(int) = {
               let inner = ref m in
               let outer = ref inner in
               visit outer;
               (let r = take (!outer, secret) in !r + !(!outer)) };
             public share (c:ref (int -> int)) :(unit) = {
               c := (fun (x:int) :(int) -> x * 2) };",
        );
        let client = program(
            "import nest :(unit -> ref ref int)
             import deposit :(int -> int)
             import share :(ref (int -> int) -> unit)
             private id (x:int) :(int) = { x };
             public visit (o:ref ref int) :(unit) = { !o := 5; o := ref 9 };
             public take (p:ref int * (int -> int)) :(ref int) = { ref ((snd p) 1) };
             main = {
               let n = nest () in
               !n := 1;
               (let c = ref id in
                share c;
                ((!c) 3, deposit 2)) };",
        );
        let result = run_linked(&library, &client, &mut |_| {});
        assert_eq!(result.outcome, Outcome::Finished(pair(int(6), int(11))));
        assert_eq!(
            moves(&result),
            [
                "call nest(())",
                // A cell holding a cell: the inner one is disclosed through the outer.
                "ret nest(q1) {q1 = q2}",
                // The client's write into it, and its own new cell holding `id`.
                "call share(r1) [q2 := 1, r1 := id]",
                // A library function written into a client cell is revealed there.
                "ret share(()) {r1 = m1}",
                "call m1(3)",
                "ret m1(6)",
                "call deposit(2)",
                "call visit(q3) {q3 = q4}",
                // The client's cell reaches the library only through the library's cell.
                "ret visit(()) [q3 := r2, q4 := 5, r2 := 9]",
                "call take(r2, secret)",
                "call secret(1)",
                "ret secret(2)",
                "ret take(r3) [r3 := 2]",
                "ret deposit(11)",
            ]
        );
    }
}
