//! The race of the whole search, the whole search without semantic subsumption and
//! the split with and without it ([`holi::symbolic::race`]): whichever wins, the
//! report is the exact one, and it is the same on one thread and on two.
//!
//! The handicaps are lowered here (from 200,000 and 20,000 units; the split's cost is
//! mostly counted once, not one and a half times over), so that small libraries exercise
//! every outcome of the race: a whole search winning outright, with or without semantic
//! subsumption, a split settling first, and the split never settling.

use holi::symbolic::{check, race, Brief, CheckOptions, CheckResult, Searched, Verdict};
use holi::symbolic::{Bounds, Run, Techniques};

use std::path::Path;

mod corpus;
mod sites;
use sites::sites;

/// Everything a report shows of its counterexamples.
fn report(result: &CheckResult) -> (Verdict, Vec<String>) {
    let texts = result
        .counterexamples
        .iter()
        .map(|c| format!("{:?} {:?} {}", c.kind, c.span, c.trace))
        .collect();
    (result.verdict, texts)
}

/// Races `source` at several handicaps on one thread and on two, against the whole
/// searches alone; returns the winners.
fn race_agrees(name: &str, source: &str, k: u32, l: u32) -> Vec<Searched> {
    let loaded = holi::frontend::load_str(name, source, false)
        .unwrap_or_else(|r| panic!("{}", r.render(false)));
    let lib = holi::library::build(&loaded.program);
    let options = CheckOptions {
        bounds: Bounds { k, l },
        ..CheckOptions::default()
    };
    let whole = check(
        &holi::library::build(&loaded.program),
        &CheckOptions {
            techniques: Techniques {
                split: false,
                ..options.techniques
            },
            ..options.clone()
        },
    );
    assert_ne!(whole.verdict, Verdict::Inconclusive, "{name}");
    let mut winners = Vec::new();
    // The last set weighs the split as the default does (one and a half times over).
    let sets = [
        (0, 2, 0),
        (50, 2, 5_000),
        (500, 2, 0),
        (5_000, 2, 50),
        (500, 3, 0),
    ];
    for (split, split_halves, plain) in sets {
        let run = |jobs: usize| {
            let options = CheckOptions {
                run: Run {
                    jobs,
                    ..options.run.clone()
                },
                ..options.clone()
            };
            let handicaps = race::Handicaps {
                split,
                split_halves,
                plain,
            };
            race::check_with(&lib, &Brief::new(&options, &lib), handicaps, &mut |_| {})
        };
        let (one, two) = (run(1), run(2));
        let cell = format!("{name} k{k} l{l} handicaps {split} {split_halves} {plain}");
        assert_eq!(report(&one), report(&two), "{cell}: one thread vs two");
        assert_eq!(one.verdict, whole.verdict, "{cell}");
        assert_eq!(sites(&one), sites(&whole), "{cell}");
        assert_eq!(one.stats.searched, two.stats.searched, "{cell}: the winner");
        winners.push(one.stats.searched);
    }
    winners
}

/// How many of `winners` are splits.
fn by_parts(winners: &[Searched]) -> usize {
    winners
        .iter()
        .filter(|w| matches!(w, Searched::ByParts | Searched::ByPartsWithoutSemantic))
        .count()
}

/// Three components, each failing only with a callback from another.
const THREE_PARTS: &str = "
    import send :(int -> unit)
    int a := 0; int b := 0; int c := 0;
    public setA (x:int) :(unit) = { a := x; send(x); a := 0 };
    public checkA (u:unit) :(unit) = { assert(!a <= 5) };
    public setB (x:int) :(unit) = { b := x; send(x); b := 0 };
    public checkB (u:unit) :(unit) = { assert(!b <= 7) };
    public setC (x:int) :(unit) = { c := x; send(x); c := 0 };
    public checkC (u:unit) :(unit) = { assert(!c <= 9) };
";

/// Issue 18's library where switching to the split at a fixed count made the default
/// inconclusive: the whole search needs 128,651 configurations, the split explodes.
const SPLIT_EXPLODES: &str = "
    import useFn :((int -> int) -> int)
    import send :(int -> unit)
    int lock0 := 0;
    int bal1 := 100;
    int flag1 := 0;
    public stepb0 (a0_1:int -> int) :(int) = { useFn a0_1 };
    public getc0 (a0_2:unit -> unit) :(int -> int) = { (assert (0 == !lock0)); (fun (y2:int) :(int) -> y2) };
    public geta1 (a1_0:unit) :(int -> int) = { (flag1 := (!bal1 + !flag1)); (fun (y4:int) :(int) -> !flag1) };
    public actb1 (a1_1:int * int) :(unit) = { (letrec loop9 (n10:int) :(int) = (if (n10 <= 0) then n10 else ((letrec loop11 (n12:int) :(unit) = (if (n12 <= 0) then () else ((actb1 (!bal1, 0)); (loop11 (n12 - 1)))) in (loop11 n10)); (loop9 (n10 - 1)))) in (loop9 2)); (assert (0 <= !bal1)) };
    public stepa2 (a2_0:int) :(unit) = { send a2_0 };
    public stepb2 (a2_1:int -> int) :(unit) = { (useFn a2_1); () };
";

#[test]
fn either_side_wins_with_the_exact_report_on_one_thread_and_on_two() {
    let mut winners = Vec::new();
    for (k, l) in [(2, 2), (3, 3), (4, 3)] {
        winners.extend(race_agrees("three_parts.holi", THREE_PARTS, k, l));
    }
    assert!(by_parts(&winners) > 0, "no race was won by the split");
    assert!(
        by_parts(&winners) < winners.len(),
        "every race was won by the split"
    );
}

#[test]
fn a_split_that_explodes_loses_to_the_whole_search() {
    assert_eq!(
        by_parts(&race_agrees("explodes.holi", SPLIT_EXPLODES, 2, 2)),
        0
    );
    let loaded = holi::frontend::load_str("explodes.holi", SPLIT_EXPLODES, false)
        .unwrap_or_else(|r| panic!("{}", r.render(false)));
    for jobs in [1, 2] {
        let options = CheckOptions {
            bounds: Bounds { k: 3, l: 2 },
            run: Run {
                jobs,
                ..Run::default()
            },
            ..CheckOptions::default()
        };
        let result = check(&holi::library::build(&loaded.program), &options);
        assert_eq!(result.verdict, Verdict::Safe, "jobs {jobs}");
    }
}

#[test]
fn races_on_the_benchmark_agree_with_the_whole_search() {
    let Some(files) = corpus::benchmark("the races on the benchmark") else {
        return;
    };
    let cells = [
        ("small_various_1.holi", 2, 1),
        ("small_various_2.holi", 2, 2),
        ("small_various_3.holi", 3, 1),
        ("small_various_4.holi", 2, 1),
        ("various_mains.holi", 2, 1),
        ("various_mains_no_equiv.holi", 3, 1),
        ("various_unsafe_no_equiv.holi", 2, 1),
        ("small_various_3.holi", 2, 2),
    ];
    let mut winners = Vec::new();
    for (file, k, l) in cells {
        let Some(path) = files.iter().find(|p| p.file_name() == Some(file.as_ref())) else {
            panic!("{file} is missing from the benchmark");
        };
        let source = std::fs::read_to_string(Path::new(path))
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        winners.extend(race_agrees(file, &source, k, l));
    }
    assert!(by_parts(&winners) > 0, "no race was won by the split");
    // Semantic subsumption pays for itself in some races and not in others.
    for side in [Searched::Whole, Searched::WithoutSemantic] {
        assert!(winners.contains(&side), "no race was won by {side:?}");
    }
}
