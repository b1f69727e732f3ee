//! Differential test of the search's accelerations against the plain exploration:
//! subsumption of configurations (the default, with semantic subsumption; and without
//! it), the split into parts and `first` (iterative deepening) must give the same
//! verdict and, per failure site, the same minimal trace length; and the
//! over-approximation of `havoc` must reach every site the library reaches.
//!
//! Runs on HOLiK's benchmark libraries in `../shared/holik-bench/programs`, and skips
//! with a note when that directory is absent. The default test covers the cells the
//! plain search finishes quickly; the ignored one the whole benchmark grid:
//! `cargo test --release --test differential -- --ignored --nocapture`
//! (`HOLI_DIFF_SECONDS` sets the per-run limit, default 10). Skipping client calls
//! that nothing after them could read is also compared on generated libraries of
//! methods that rarely call the client, which the benchmark hardly has.

use holi::library::Library;
use holi::symbolic::overapprox::houdini;
use holi::symbolic::{check, split, Brief, CheckOptions, CheckResult, Verdict};
use holi::symbolic::{Bounds, Limits, Run, Techniques};
use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

mod corpus;
mod prop_gen;
mod sites;
use sites::sites;

/// The sites the over-approximation of [`holi::symbolic::overapprox::havoc`] reaches (in the keys
/// of [`sites`]), when it applies and finishes.
/// How far each run of a comparison may go: a number of configurations keeps the
/// tallies of a test the same on any machine, however loaded; the whole-grid run, which
/// no test asserts tallies of, uses time.
#[derive(Clone, Copy)]
enum Budget {
    Configurations(u64),
    Time(Duration),
}

impl Budget {
    fn limit(self, options: CheckOptions) -> CheckOptions {
        match self {
            Budget::Configurations(n) => CheckOptions {
                limits: Limits {
                    max_configurations: Some(n),
                    ..options.limits.clone()
                },
                ..options
            },
            Budget::Time(t) => CheckOptions {
                limits: Limits {
                    timeout: Some(t),
                    ..options.limits.clone()
                },
                ..options
            },
        }
    }
}

fn havoc_reached(lib: &Library, k: u32, l: u32, budget: Budget) -> Option<BTreeSet<String>> {
    let options = budget.limit(CheckOptions {
        bounds: Bounds { k, l },
        ..CheckOptions::default()
    });
    let (reached, _) = houdini::reachable(
        lib,
        &Brief::new(&options, lib),
        &lib.failure_sites(),
        &mut |_| {},
    );
    Some(
        reached?
            .into_iter()
            .map(|site| format!("{:?} {:?}", site.kind, site.span))
            .collect(),
    )
}

fn complete(result: &CheckResult) -> bool {
    result.inconclusive.is_empty()
}

#[derive(Default)]
struct Tally {
    compared: usize,
    plain_incomplete: usize,
    memo_incomplete: usize,
    memo_only: usize,
    first_compared: usize,
    split_compared: usize,
    /// Cells where the over-approximation applied and finished, and the sites it
    /// proved unreachable there.
    havoc_compared: usize,
    havoc_unreachable: usize,
    /// Failure sites outside live code, summed over the cells compared.
    dead_sites: usize,
    /// Of those, the cells whose parts' bounds did not all meet, finished by the whole
    /// search below the parts' traces.
    split_finished: usize,
    plain_seconds: f64,
    memo_seconds: f64,
}

/// Compares one cell; panics on a disagreement.
fn compare(file: &Path, k: u32, l: u32, budget: Budget, tally: &mut Tally) {
    let loaded = holi::frontend::load(file, false)
        .unwrap_or_else(|r| panic!("{} does not load:\n{}", file.display(), r.render(false)));
    let run = |memo: bool, first: bool| {
        let options = budget.limit(CheckOptions {
            bounds: Bounds { k, l },
            techniques: Techniques {
                memo,
                first,
                ..Techniques::default()
            },
            ..CheckOptions::default()
        });
        check(&holi::library::build(&loaded.program), &options)
    };
    let cell = format!("{} k={k} l={l}", file.display());
    let plain = run(false, false);
    let memo = run(true, false);
    let exact = check(
        &holi::library::build(&loaded.program),
        &budget.limit(CheckOptions {
            bounds: Bounds { k, l },
            techniques: Techniques {
                semantic: false,
                ..Techniques::default()
            },
            ..CheckOptions::default()
        }),
    );
    tally.plain_seconds += plain.stats.seconds;
    tally.memo_seconds += memo.stats.seconds;
    if !complete(&plain) {
        tally.plain_incomplete += 1;
        if complete(&memo) {
            tally.memo_only += 1;
        }
        return;
    }
    if !complete(&memo) {
        // Under a time budget computing keys costs time: a cell at the edge may miss it.
        tally.memo_incomplete += 1;
        return;
    }
    tally.compared += 1;
    assert_eq!(plain.verdict, memo.verdict, "{cell}: verdicts differ");
    assert_eq!(
        sites(&plain),
        sites(&memo),
        "{cell}: failure sites or minimal lengths differ"
    );
    if complete(&exact) {
        assert_eq!(
            sites(&plain),
            sites(&exact),
            "{cell}: without semantic subsumption, failure sites or minimal lengths differ"
        );
    }
    let lib = holi::library::build(&loaded.program);
    let live: BTreeSet<String> = lib
        .live_failure_sites()
        .into_iter()
        .map(|site| format!("{:?} {:?}", site.kind, site.span))
        .collect();
    tally.dead_sites += lib.failure_sites().len() - live.len();
    for site in sites(&plain).keys() {
        assert!(
            live.contains(site),
            "{cell}: {site} is reached, but lies outside live code"
        );
    }
    if let Some(reached) = havoc_reached(&lib, k, l, budget) {
        tally.havoc_compared += 1;
        let unreachable = lib.failure_sites().len() - reached.len();
        tally.havoc_unreachable += unreachable;
        for site in sites(&plain).keys() {
            assert!(
                reached.contains(site),
                "{cell}: the over-approximation misses {site}, which the library reaches"
            );
        }
    }
    // The split is tried only past `SPLIT_AFTER` configurations; here it is forced. A safe
    // split of a library that may get stuck is not settled (the whole search decides,
    // `prunings_keep_the_stuck_places_of_the_benchmark`); HOLiK's reading of stuck
    // paths lets it settle, for its sites and lengths to be compared.
    let split_options = budget.limit(CheckOptions {
        bounds: Bounds { k, l },
        run: Run {
            allow_stuck: true,
            ..Run::default()
        },
        ..CheckOptions::default()
    });
    let split = match split_check(&lib, &split_options) {
        Ok(result) => Some(result),
        Err(unsettled) => unsettled.partial.map(|partial| {
            tally.split_finished += 1;
            split::finish(
                &lib,
                partial,
                &Brief::new(&split_options, &lib),
                &mut |_| {},
            )
        }),
    };
    if let Some(split) = split.filter(complete) {
        tally.split_compared += 1;
        let holik = match plain.verdict {
            Verdict::Stuck => Verdict::Safe,
            verdict => verdict,
        };
        assert_eq!(holik, split.verdict, "{cell}: split verdict");
        assert_eq!(
            sites(&plain),
            sites(&split),
            "{cell}: checked part by part, failure sites or minimal lengths differ"
        );
    }
    let first = run(true, true);
    if plain.verdict == Verdict::Unsafe || complete(&first) {
        tally.first_compared += 1;
        let shortest = plain.counterexamples.iter().map(|c| c.trace.0.len()).min();
        let found = first.counterexamples.iter().map(|c| c.trace.0.len()).min();
        if complete(&first) || found.is_some() {
            assert_eq!(first.verdict, plain.verdict, "{cell}: --first verdict");
        }
        // Stopped by the clock, its exhaustive attempt may hold a longer trace.
        if complete(&first) {
            assert_eq!(found, shortest, "{cell}: --first is not a shortest trace");
            assert!(
                first.counterexamples.len() <= 1,
                "{cell}: --first kept more"
            );
        }
    }
}

fn run_source(source: &str, k: u32, l: u32, memo: bool, first: bool) -> CheckResult {
    run_options(
        source,
        CheckOptions {
            bounds: Bounds { k, l },
            techniques: Techniques {
                memo,
                first,
                ..Techniques::default()
            },
            ..CheckOptions::default()
        },
    )
}

fn run_options(source: &str, options: CheckOptions) -> CheckResult {
    let loaded = holi::frontend::load_str("test.holi", source, false)
        .unwrap_or_else(|r| panic!("{}", r.render(false)));
    check(&holi::library::build(&loaded.program), &options)
}

/// Reentrant withdrawals: every interleaving leaves a different balance term
/// (`100 - x1 - x2 …`), so client turns never repeat up to renaming, but the balances
/// a client can reach are always the non-negative numbers. The assert fails only when
/// the inner withdrawal is larger than the balance the outer one checked.
const REENTRANT: &str = "
import send :(int -> unit)
int balance := 100;
public withdraw (m:int) :(unit) = {
  if (not (!balance < m))
  then send(m);
       balance := !balance - m;
       assert(not(!balance < 0))
  else ()};
public deposit (m:int) :(unit) = { if 0 < m then balance := !balance + m else () };
";

#[test]
fn semantic_subsumption_merges_turns_with_the_same_reachable_values() {
    for (k, l) in [(2, 2), (3, 2)] {
        let run = |memo: bool, semantic: bool| {
            run_options(
                REENTRANT,
                CheckOptions {
                    bounds: Bounds { k, l },
                    techniques: Techniques {
                        memo,
                        semantic,
                        bound: false,
                        ..Techniques::default()
                    },
                    ..CheckOptions::default()
                },
            )
        };
        let (plain, exact, semantic) = (run(false, false), run(true, false), run(true, true));
        assert_eq!(plain.verdict, Verdict::Unsafe);
        assert_eq!(sites(&plain), sites(&exact), "k={k} l={l}");
        assert_eq!(sites(&plain), sites(&semantic), "k={k} l={l}");
        assert_eq!(exact.stats.covered, 0);
        assert!(semantic.stats.covered > 0, "k={k} l={l}: nothing covered");
        assert!(
            semantic.stats.configurations * 2 < exact.stats.configurations,
            "k={k} l={l}: {} vs {} configurations",
            semantic.stats.configurations,
            exact.stats.configurations
        );
    }
}

/// Branch and bound: once every site has a trace, longer traces are cut. Every site
/// and its minimal length stay, on libraries whose sites are all reachable (the bound
/// then starts) and on one where the second assert never fails (it never starts).
#[test]
fn branch_and_bound_keeps_every_site_and_its_minimal_trace() {
    const TWO_SITES: &str = "
        import send :(int -> unit)
        int a := 0; int b := 0;
        public set (i:int) :(unit) = { if 0 < i then a := i else b := 1 };
        public check (u:unit) :(unit) = { send(!a); assert(not(!a == 3)); assert(1 < 2) };
        public reset (u:unit) :(unit) = { a := 0; assert(not(!b)) };
    ";
    // A private method nothing else calls can never run: its site is no target, so
    // the bound still starts.
    let with_dead =
        format!("{REENTRANT}\nprivate never (u:unit) :(unit) = {{ assert(0 == 1); never() }};");
    let cases = [
        (REENTRANT, true, [(2, 1), (2, 2), (3, 1)]),
        (with_dead.as_str(), true, [(2, 1), (2, 2), (3, 1)]),
        (COUNTED, true, [(2, 2), (3, 2), (2, 3)]),
        (TWO_SITES, false, [(2, 1), (2, 2), (3, 1)]),
    ];
    for (source, all_reachable, bounds) in cases {
        for (k, l) in bounds {
            // One search, not a race of several, so that the counts compare the bound
            // alone (without the last calls relevance leaves out per site, which branch
            // and bound's lengths steer too).
            let run = |memo: bool, bound: bool| {
                run_options(
                    source,
                    CheckOptions {
                        bounds: Bounds { k, l },
                        techniques: Techniques {
                            memo,
                            bound,
                            semantic: false,
                            split: false,
                            relevance: false,
                            ..Techniques::default()
                        },
                        ..CheckOptions::default()
                    },
                )
            };
            let (plain, unbounded, bounded) =
                (run(false, false), run(true, false), run(true, true));
            assert_eq!(plain.verdict, Verdict::Unsafe, "k={k} l={l}");
            assert_eq!(sites(&plain), sites(&bounded), "k={k} l={l}");
            let (fewer, more) = (bounded.stats.configurations, unbounded.stats.configurations);
            if all_reachable {
                assert!(
                    fewer < more,
                    "k={k} l={l}: {fewer} vs {more} configurations"
                );
            } else {
                assert_eq!(fewer, more, "k={k} l={l}: the bound started");
            }
        }
    }
}

/// The call-order library with a counter nothing reads (`calls`), as in HOLiK's
/// `call_order_param`: every client turn after n calls holds a different count, but the
/// count cannot change what the library does, so the memo may ignore it.
const COUNTED: &str = "
import syscall :(int -> unit)
int a := 0; int b := 0; int calls := 0; int total := 0;
public first (u:unit) :(unit) = { calls := !calls + 1; a := 1 };
public second (u:unit) :(unit) = { calls := !calls + 1; if !a then b := 1 else () };
public third (u:unit) :(unit) = { total := !total + !calls; assert(not(!b)) };
public add (i:int) :(unit) = { calls := !calls + i; syscall(i) };
";

#[test]
fn inert_references_are_left_out_of_keys_and_every_site_keeps_its_minimal_trace() {
    for (k, l) in [(2, 2), (3, 2), (2, 3)] {
        let run = |memo: bool, inert: bool| {
            run_options(
                COUNTED,
                CheckOptions {
                    bounds: Bounds { k, l },
                    techniques: Techniques {
                        memo,
                        inert,
                        bound: false,
                        ..Techniques::default()
                    },
                    ..CheckOptions::default()
                },
            )
        };
        let (plain, kept, inert) = (run(false, false), run(true, false), run(true, true));
        assert_eq!(plain.verdict, Verdict::Unsafe, "k={k} l={l}");
        assert_eq!(sites(&plain), sites(&kept), "k={k} l={l}");
        assert_eq!(sites(&plain), sites(&inert), "k={k} l={l}");
        assert!(
            inert.stats.configurations * 2 < kept.stats.configurations,
            "k={k} l={l}: {} vs {} configurations",
            inert.stats.configurations,
            kept.stats.configurations
        );
    }
}

/// Two independent parts. `isAB` fails after `isNone` and `isA` in any order, three
/// calls in a row: with l = 2 the client needs a callback for the third, and only the
/// other part (`relay`) calls back.
const TRAMPOLINED: &str = "
import syscall :(int -> unit)
int a := 0; int b := 0; int calls := 0;
public isNone (i:int) :(unit) = { a := 1 };
public isA (i:int) :(unit) = { b := 1 };
public isAB (i:int) :(unit) = { assert(not(!a && !b)) };
public relay (i:int) :(unit) = { calls := !calls + 1; syscall(i) };
";

/// `isAB` needs three calls, and with l = 1 the client needs trampolines for them. The
/// stand-in of the lower bound calls back three times for free (as `burst` can, once
/// armed), but the shortest real way nests `twice` in `twice`: the bounds do not meet,
/// and the whole library is searched below the real trace.
const UNMET: &str = "
import syscall :(int -> unit)
int a := 0; int b := 0; int armed := 0;
public isNone (i:int) :(unit) = { a := 1 };
public isA (i:int) :(unit) = { b := 1 };
public isAB (i:int) :(unit) = { assert(not(!a && !b)) };
public arm (u:unit) :(unit) = { armed := 1 };
public burst (f:unit -> unit) :(unit) = { if !armed then (f(); f(); f()) else () };
public twice (f:unit -> unit) :(unit) = { f(); f() };
";

#[test]
fn a_split_whose_bounds_do_not_meet_is_finished_below_its_real_traces() {
    let loaded = holi::frontend::load_str("test.holi", UNMET, false)
        .unwrap_or_else(|r| panic!("{}", r.render(false)));
    let lib = holi::library::build(&loaded.program);
    let (k, l) = (3, 1);
    let options = CheckOptions {
        bounds: Bounds { k, l },
        ..CheckOptions::default()
    };
    let plain = run_source(UNMET, k, l, false, false);
    assert_eq!(plain.verdict, Verdict::Unsafe, "k={k} l={l}");
    let Err(unsettled) = split_check(&lib, &options) else {
        panic!("k={k} l={l}: the bounds met");
    };
    let partial = unsettled
        .partial
        .unwrap_or_else(|| panic!("k={k} l={l}: nothing to finish"));
    let finished = split::finish(&lib, partial, &Brief::new(&options, &lib), &mut |_| {});
    assert!(complete(&finished), "k={k} l={l}");
    assert_eq!(sites(&plain), sites(&finished), "k={k} l={l}");
}

/// As in [`UNMET`], `isAB` needs trampolines with two callbacks (`twice` nested in
/// `twice`, 13 moves). `spin` could call back three times, so the stand-in does, and
/// its lower bound (11) does not meet; but `spin` never runs its callbacks. Kept real
/// beside `isAB`'s part, with a stand-in of two callbacks for the rest, it raises the
/// lower bound to 13: the split settles without searching the whole library.
const WILLING: &str = "
int a := 0; int b := 0; int running := 0; int p := 0; int q := 0; int r := 0;
public isNone (i:int) :(unit) = { a := 1 };
public isA (i:int) :(unit) = { b := 1 };
public isAB (i:int) :(unit) = { assert(not(!a && !b)) };
public twice (f:unit -> unit) :(unit) = { f(); f() };
public spin (f:unit -> unit) :(unit) = { if !running then (f(); f(); f()) else () };
public setP (i:int) :(unit) = { p := i };
public setQ (i:int) :(unit) = { q := i };
public setR (i:int) :(unit) = { r := i };
";

#[test]
fn a_split_keeps_the_most_willing_part_real_to_meet_its_bounds() {
    let loaded = holi::frontend::load_str("test.holi", WILLING, false)
        .unwrap_or_else(|r| panic!("{}", r.render(false)));
    let lib = holi::library::build(&loaded.program);
    let (k, l) = (3, 1);
    let options = CheckOptions {
        bounds: Bounds { k, l },
        ..CheckOptions::default()
    };
    let plain = run_source(WILLING, k, l, false, false);
    let parts = split_check(&lib, &options).unwrap_or_else(|_| panic!("the bounds did not meet"));
    assert_eq!(sites(&plain), sites(&parts));
    let longest = parts.counterexamples.iter().map(|c| c.trace.0.len()).max();
    assert_eq!(longest, Some(13));
}

#[test]
fn a_library_checked_part_by_part_keeps_every_site_and_its_minimal_trace() {
    let loaded = holi::frontend::load_str("test.holi", TRAMPOLINED, false)
        .unwrap_or_else(|r| panic!("{}", r.render(false)));
    let lib = holi::library::build(&loaded.program);
    for (k, l) in [(1, 3), (2, 2), (3, 2), (2, 1)] {
        let options = CheckOptions {
            bounds: Bounds { k, l },
            ..CheckOptions::default()
        };
        let plain = run_source(TRAMPOLINED, k, l, false, false);
        let parts =
            split_check(&lib, &options).unwrap_or_else(|_| panic!("k={k} l={l}: not split"));
        assert_eq!(sites(&plain), sites(&parts), "k={k} l={l}");
        assert_eq!(plain.verdict, parts.verdict, "k={k} l={l}");
    }
    let options = CheckOptions {
        bounds: Bounds { k: 2, l: 2 },
        ..CheckOptions::default()
    };
    let parts = split_check(&lib, &options).unwrap_or_else(|_| panic!("not split"));
    let trace = parts.counterexamples[0].trace.to_string();
    assert!(
        trace.contains("relay"),
        "the trace uses the other part: {trace}"
    );
}

/// `noop` leaves the state as it was, so every order of `noop`/`bump` calls with the
/// same number of bumps reaches one client turn; the assert fails after three bumps
/// (the third call need not return).
const COMMUTING: &str = "
int n := 0;
public noop (u:unit) :(unit) = { () };
public other (x:int) :(unit) = { if x < 0 then () else () };
public bump (u:unit) :(unit) = { n := !n + 1; assert(!n < 3) };
";

#[test]
fn subsumption_prunes_repeated_client_turns_and_keeps_minimal_traces() {
    let plain = run_source(COMMUTING, 3, 5, false, false);
    // Whole, not split into its three independent methods, so that turns repeat.
    let memo = run_options(
        COMMUTING,
        CheckOptions {
            bounds: Bounds { k: 3, l: 5 },
            techniques: Techniques {
                split: false,
                ..Techniques::default()
            },
            ..CheckOptions::default()
        },
    );
    assert_eq!(plain.stats.subsumed, 0);
    assert!(memo.stats.subsumed > 0, "nothing was pruned");
    assert!(memo.stats.configurations * 2 < plain.stats.configurations);
    assert_eq!(plain.verdict, Verdict::Unsafe);
    assert_eq!(memo.verdict, Verdict::Unsafe);
    assert_eq!(sites(&plain), sites(&memo));
    assert_eq!(sites(&memo).values().copied().collect::<Vec<_>>(), vec![5]);
    assert!(memo.failing_traces <= plain.failing_traces);
}

#[test]
fn first_stops_at_a_shortest_failing_trace() {
    let first = run_source(COMMUTING, 3, 5, true, true);
    assert_eq!(first.verdict, Verdict::Unsafe);
    assert_eq!(first.counterexamples.len(), 1);
    assert_eq!(first.counterexamples[0].trace.0.len(), 5);
    assert_eq!(first.stats.deepening_passes, 6);
    // Safe within the bounds: the passes end when one cuts nothing off.
    let safe = run_source(COMMUTING, 3, 2, true, true);
    assert_eq!(safe.verdict, Verdict::Safe);
    assert_eq!(sites(&safe).len(), 0);
}

#[test]
fn accelerations_agree_with_plain_search_on_small_bounds() {
    let Some(files) = corpus::benchmark("the differential test") else {
        return;
    };
    let mut tally = Tally::default();
    for file in &files {
        for (k, l) in [(2, 1), (3, 1), (2, 2)] {
            compare(file, k, l, Budget::Configurations(150_000), &mut tally);
        }
    }
    eprintln!(
        "differential: {} cells compared ({} with --first, {} split into parts, {} of them \
         finished whole, {} over-approximated, proving {} sites unreachable; {} sites \
         outside live code), {} not finished by the plain search, {} only by it",
        tally.compared,
        tally.first_compared,
        tally.split_compared,
        tally.split_finished,
        tally.havoc_compared,
        tally.havoc_unreachable,
        tally.dead_sites,
        tally.plain_incomplete,
        tally.memo_incomplete
    );
    assert!(tally.compared > 100, "too few cells compared");
    assert!(tally.split_compared > 20, "too few cells split");
    assert!(tally.havoc_compared > 20, "too few cells over-approximated");
    assert!(
        tally.havoc_unreachable > 20,
        "too few sites proved unreachable"
    );
    // various_mains holds private methods nothing calls.
    assert!(tally.dead_sites > 0, "no site outside live code compared");
}

#[test]
#[ignore = "the whole benchmark grid: minutes to hours"]
fn accelerations_agree_with_plain_search_on_the_grid() {
    let Some(files) = corpus::benchmark("the differential test") else {
        return;
    };
    let seconds: f64 = std::env::var("HOLI_DIFF_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10.0);
    let mut tally = Tally::default();
    for file in &files {
        for k in 2..=5 {
            for l in 1..=3 {
                compare(
                    file,
                    k,
                    l,
                    Budget::Time(Duration::from_secs_f64(seconds)),
                    &mut tally,
                );
            }
        }
    }
    eprintln!(
        "differential grid ({seconds} s per run): {} cells compared ({} with --first, {} \
         split into parts, {} over-approximated, proving {} sites unreachable; {} sites \
         outside live code); {} not finished by the plain search, {} of them finished \
         with subsumption; {} finished only by the plain search; plain {:.1} s, \
         subsumption {:.1} s in total",
        tally.compared,
        tally.first_compared,
        tally.split_compared,
        tally.havoc_compared,
        tally.havoc_unreachable,
        tally.dead_sites,
        tally.plain_incomplete,
        tally.memo_only,
        tally.memo_incomplete,
        tally.plain_seconds,
        tally.memo_seconds
    );
}

/// On a safe library, deepening repeats the shorter traces on every pass (15,756
/// configurations on `call_order_param` at k 4, l 3, where the default search needs
/// 715): `first` races it against the exhaustive search, so it costs at most a small
/// multiple of the faster of the two.
#[test]
fn first_is_never_far_slower_than_the_exhaustive_search() {
    let Some(files) = corpus::benchmark("the race test of --first") else {
        return;
    };
    let Some(file) = files.iter().find(|f| f.ends_with("call_order_param.holi")) else {
        panic!("call_order_param.holi is missing from the benchmark");
    };
    let loaded = holi::frontend::load(file, false)
        .unwrap_or_else(|r| panic!("{} does not load:\n{}", file.display(), r.render(false)));
    let run = |first: bool| {
        let options = CheckOptions {
            bounds: Bounds { k: 4, l: 3 },
            techniques: Techniques {
                first,
                ..Techniques::default()
            },
            ..CheckOptions::default()
        };
        check(&holi::library::build(&loaded.program), &options)
    };
    let (exhaustive, first) = (run(false), run(true));
    assert_eq!(exhaustive.verdict, Verdict::Safe);
    assert_eq!(first.verdict, Verdict::Safe);
    assert!(
        first.stats.configurations < 5 * exhaustive.stats.configurations,
        "{} configurations with --first against {}",
        first.stats.configurations,
        exhaustive.stats.configurations
    );
}

/// Where a result's paths got stuck: place and reason (the counts may differ).
fn stuck_places(result: &CheckResult) -> BTreeSet<String> {
    result
        .stuck
        .iter()
        .map(|s| format!("{:?} {:?}", s.span, s.reason))
        .collect()
}

/// Checks `lib` plainly and with each pruning on or off: when the plain search is
/// complete and stuck, every complete pruned search is stuck at the same places; when
/// it is safe or unsafe (with stuck paths met), so is every complete pruned search.
/// Returns whether the plain search was complete and met stuck paths.
fn stuck_agrees(cell: &str, lib: &Library, k: u32, l: u32, limit: Duration) -> bool {
    let base = CheckOptions {
        bounds: Bounds { k, l },
        limits: Limits {
            timeout: Some(limit),
            ..Limits::default()
        },
        ..CheckOptions::default()
    };
    let plain = check(
        lib,
        &CheckOptions {
            techniques: Techniques {
                memo: false,
                ..base.techniques
            },
            ..base.clone()
        },
    );
    // Without stuck paths, `compare` checks the verdicts already.
    if !complete(&plain) || plain.stuck.is_empty() {
        return false;
    }
    let variants: [(&str, CheckOptions); 8] = [
        ("default", base.clone()),
        (
            "no semantic",
            CheckOptions {
                techniques: Techniques {
                    semantic: false,
                    ..base.techniques
                },
                ..base.clone()
            },
        ),
        (
            "no inert",
            CheckOptions {
                techniques: Techniques {
                    inert: false,
                    ..base.techniques
                },
                ..base.clone()
            },
        ),
        (
            "no bound",
            CheckOptions {
                techniques: Techniques {
                    bound: false,
                    ..base.techniques
                },
                ..base.clone()
            },
        ),
        (
            "no havoc",
            CheckOptions {
                techniques: Techniques {
                    havoc: false,
                    ..base.techniques
                },
                ..base.clone()
            },
        ),
        (
            "no split",
            CheckOptions {
                techniques: Techniques {
                    split: false,
                    ..base.techniques
                },
                ..base.clone()
            },
        ),
        (
            "first",
            CheckOptions {
                techniques: Techniques {
                    first: true,
                    ..base.techniques
                },
                ..base.clone()
            },
        ),
        (
            "first, no memo",
            CheckOptions {
                techniques: Techniques {
                    first: true,
                    memo: false,
                    ..base.techniques
                },
                ..base.clone()
            },
        ),
    ];
    for (name, options) in variants {
        let pruned = check(lib, &options);
        if !complete(&pruned) {
            continue;
        }
        assert_eq!(
            plain.verdict, pruned.verdict,
            "{cell} ({name}): verdicts differ"
        );
        if plain.verdict == Verdict::Stuck {
            assert_eq!(
                stuck_places(&plain),
                stuck_places(&pruned),
                "{cell} ({name}): stuck places differ"
            );
        }
    }
    // The split, forced, must not pretend a library that may get stuck is safe.
    if let Ok(parts) = split_check(lib, &base) {
        if complete(&parts) {
            assert_eq!(
                plain.verdict, parts.verdict,
                "{cell} (split): verdicts differ"
            );
        }
    }
    !plain.stuck.is_empty()
}

#[test]
fn prunings_keep_the_stuck_places_of_the_dao_typos() {
    let dao = include_str!("../examples/dao.holi");
    for (from, to) in [
        ("send m", "sned m"),
        ("!balance < m", "!balanse < m"),
        ("!balance - m", "!balance -1"),
    ] {
        let source = dao.replacen(from, to, 1);
        let loaded = holi::frontend::load_str("dao.holi", &source, false)
            .unwrap_or_else(|r| panic!("{}", r.render(false)));
        let lib = holi::library::build(&loaded.program);
        for (k, l) in [(2, 1), (3, 2), (4, 2)] {
            let cell = format!("dao with {to} k={k} l={l}");
            assert!(
                stuck_agrees(&cell, &lib, k, l, Duration::from_secs(20)),
                "{cell}: no stuck path"
            );
            let plain = run_options(
                &source,
                CheckOptions {
                    bounds: Bounds { k, l },
                    techniques: Techniques {
                        memo: false,
                        ..Techniques::default()
                    },
                    ..CheckOptions::default()
                },
            );
            assert_eq!(plain.verdict, Verdict::Stuck, "{cell}");
        }
    }
}

/// The stuck paths of a library whose parts are independent: one part has no failure
/// site at all, so the split would never search it.
const STUCK_PART: &str = "
int a := 0;
int b := 0;
public setA (x:int) :(unit) = { a := x };
public checkA (u:unit) :(unit) = { assert(!a < 10 || 0 < 1) };
public useB (u:unit) :(unit) = { b := !b + 1; if 2 < !b then sned(!b) else () };
";

#[test]
fn prunings_keep_stuck_places_in_a_part_without_failure_sites() {
    let loaded = holi::frontend::load_str("parts.holi", STUCK_PART, false)
        .unwrap_or_else(|r| panic!("{}", r.render(false)));
    let lib = holi::library::build(&loaded.program);
    for (k, l) in [(2, 3), (3, 3), (2, 4)] {
        let cell = format!("stuck part k={k} l={l}");
        assert!(
            stuck_agrees(&cell, &lib, k, l, Duration::from_secs(20)),
            "{cell}: no stuck path"
        );
    }
    let options = CheckOptions {
        bounds: Bounds { k: 2, l: 3 },
        ..CheckOptions::default()
    };
    assert!(
        split_check(&lib, &options).is_err(),
        "a library that may get stuck was split"
    );
}

#[test]
fn prunings_keep_the_stuck_places_of_the_benchmark() {
    let Some(files) = corpus::benchmark("the differential test of stuck places") else {
        return;
    };
    let mut stuck = Vec::new();
    for file in &files {
        let loaded = holi::frontend::load(file, false)
            .unwrap_or_else(|r| panic!("{} does not load:\n{}", file.display(), r.render(false)));
        let lib = holi::library::build(&loaded.program);
        if !lib.may_get_stuck {
            continue;
        }
        for (k, l) in [(2, 1), (3, 1), (2, 2)] {
            let cell = format!("{} k={k} l={l}", file.display());
            if stuck_agrees(&cell, &lib, k, l, Duration::from_millis(1000)) {
                stuck.push(cell);
            }
        }
    }
    eprintln!("stuck places compared on {} cells: {stuck:?}", stuck.len());
    assert!(!stuck.is_empty(), "no benchmark cell meets stuck paths");
}

/// The part-by-part check of `lib` by the plan of `options`.
fn split_check(
    lib: &holi::library::Library,
    options: &CheckOptions,
) -> Result<CheckResult, Box<split::Unsettled>> {
    split::check(lib, &Brief::new(options, lib), &mut |_| {})
}

/// Generated libraries of methods that mostly never call the client: the search that
/// skips calls nothing after them could read ([`holi::symbolic::relevance`]) has the
/// plain exploration's verdict and, per failure site, its minimal trace length; and it
/// does skip calls.
#[test]
fn irrelevant_calls_are_skipped_and_every_site_keeps_its_minimal_trace() {
    use proptest::test_runner::{Config, TestRunner};
    let skipped = std::cell::Cell::new(0u64);
    let mut runner = TestRunner::new(Config {
        cases: 32,
        ..Config::default()
    });
    let cases = (prop_gen::atomic_library(), 1u32..3, 1u32..4);
    let outcome = runner.run(&cases, |(source, k, l)| {
        let run = |memo: bool, relevance: bool| {
            run_options(
                &source,
                CheckOptions {
                    bounds: Bounds { k, l },
                    techniques: Techniques {
                        memo,
                        relevance,
                        ..Techniques::default()
                    },
                    limits: Limits {
                        max_configurations: Some(50_000),
                        ..Limits::default()
                    },
                    ..CheckOptions::default()
                },
            )
        };
        let (plain, kept, skipping) = (run(false, false), run(true, false), run(true, true));
        proptest::prop_assume!(complete(&plain) && complete(&kept) && complete(&skipping));
        let cell = format!("k={k} l={l}\n{source}");
        proptest::prop_assert_eq!(plain.verdict, skipping.verdict, "{}", cell);
        proptest::prop_assert_eq!(sites(&plain), sites(&skipping), "{}", cell);
        proptest::prop_assert_eq!(sites(&kept), sites(&skipping), "{}", cell);
        proptest::prop_assert_eq!(kept.stats.irrelevant_calls, 0);
        skipped.set(skipped.get() + skipping.stats.irrelevant_calls);
        Ok(())
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
    assert!(skipped.get() > 0, "no call was ever skipped");
}

/// Generated libraries that meet cut memo entries ([`prop_gen::cut_library`]): the
/// default search, and the default with each of branch and bound, the last calls,
/// semantic subsumption and the split left out, have the plain exploration's verdict
/// and, per failure site, its minimal trace length; `--first`'s trace is as short as
/// the plain search's shortest.
#[test]
fn searches_that_meet_cut_entries_keep_every_site_and_its_minimal_trace() {
    use proptest::test_runner::{Config, TestRunner};
    let skipped = std::cell::Cell::new(0u64);
    let mut runner = TestRunner::new(Config {
        cases: 96,
        ..Config::default()
    });
    let cases = (prop_gen::cut_library(), 1u32..3, 1u32..5);
    let outcome = runner.run(&cases, |(source, k, l)| {
        let options = CheckOptions {
            bounds: Bounds { k, l },
            limits: Limits {
                max_configurations: Some(20_000),
                ..Limits::default()
            },
            ..CheckOptions::default()
        };
        let plain = run_options(
            &source,
            CheckOptions {
                techniques: Techniques {
                    memo: false,
                    ..options.techniques
                },
                ..options.clone()
            },
        );
        proptest::prop_assume!(complete(&plain));
        let cell = format!("k={k} l={l}\n{source}");
        let variants = [
            ("default", options.clone()),
            (
                "no bound",
                CheckOptions {
                    techniques: Techniques {
                        bound: false,
                        ..options.techniques
                    },
                    ..options.clone()
                },
            ),
            (
                "no relevance",
                CheckOptions {
                    techniques: Techniques {
                        relevance: false,
                        ..options.techniques
                    },
                    ..options.clone()
                },
            ),
            (
                "no semantic",
                CheckOptions {
                    techniques: Techniques {
                        semantic: false,
                        ..options.techniques
                    },
                    ..options.clone()
                },
            ),
            (
                "no split",
                CheckOptions {
                    techniques: Techniques {
                        split: false,
                        ..options.techniques
                    },
                    ..options.clone()
                },
            ),
        ];
        for (name, changed) in variants {
            let pruned = run_options(&source, changed);
            proptest::prop_assert!(complete(&pruned), "{}: {} incomplete", cell, name);
            proptest::prop_assert_eq!(plain.verdict, pruned.verdict, "{}: {}", cell, name);
            proptest::prop_assert_eq!(sites(&plain), sites(&pruned), "{}: {}", cell, name);
            if name == "default" {
                skipped.set(skipped.get() + pruned.stats.irrelevant_calls);
            }
        }
        let first = run_options(
            &source,
            CheckOptions {
                techniques: Techniques {
                    first: true,
                    ..options.techniques
                },
                ..options.clone()
            },
        );
        proptest::prop_assert_eq!(plain.verdict, first.verdict, "{}: --first", cell);
        let shortest = |r: &CheckResult| sites(r).into_values().min();
        proptest::prop_assert_eq!(shortest(&plain), shortest(&first), "{}: --first", cell);
        Ok(())
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
    assert!(skipped.get() > 0, "no last call was ever left out");
}

/// Generated libraries with a sealed part beside one that calls the client: the split
/// settles a sealed part by itself alone, whatever trampolines the rest offers
/// ([`holi::symbolic::split`]), with the plain exploration's verdict and, per failure
/// site, its minimal trace length.
#[test]
fn a_sealed_part_is_settled_alone_and_keeps_every_site_and_its_minimal_trace() {
    use proptest::test_runner::{Config, TestRunner};
    let settled = std::cell::Cell::new(0u32);
    let mut runner = TestRunner::new(Config {
        cases: 32,
        ..Config::default()
    });
    let cases = (
        prop_gen::reentrant_part(),
        prop_gen::sealed_methods(),
        1u32..4,
        1u32..3,
    );
    let outcome = runner.run(&cases, |(open, sealed, k, l)| {
        let source = format!("{open}{sealed}");
        // A time limit too: the cases are drawn afresh each run, and a rare one asks Z3
        // nonlinear questions of up to 10 s each; cut short, it is left out (5 s keeps
        // the test's time near half a minute on CI's two cores).
        let options = CheckOptions {
            bounds: Bounds { k, l },
            limits: Limits {
                max_configurations: Some(10_000),
                timeout: Some(Duration::from_secs(5)),
                ..Limits::default()
            },
            ..CheckOptions::default()
        };
        let plain = run_options(
            &source,
            CheckOptions {
                techniques: Techniques {
                    memo: false,
                    split: false,
                    ..options.techniques
                },
                ..options.clone()
            },
        );
        proptest::prop_assume!(complete(&plain));
        let loaded = holi::frontend::load_str("test.holi", &source, false)
            .unwrap_or_else(|r| panic!("{}", r.render(false)));
        let lib = holi::library::build(&loaded.program);
        let cell = format!("k={k} l={l}\n{source}");
        if let Ok(parts) = split_check(&lib, &options) {
            proptest::prop_assume!(complete(&parts));
            proptest::prop_assert_eq!(plain.verdict, parts.verdict, "{}", cell);
            proptest::prop_assert_eq!(sites(&plain), sites(&parts), "{}", cell);
            settled.set(settled.get() + 1);
        }
        Ok(())
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
    assert!(
        settled.get() >= 8,
        "the split settled {} cases",
        settled.get()
    );
}

/// A library of one part settles without a search exactly when the over-approximation
/// proves each of its sites unreachable: the awkward example (safe) does, the same
/// library with the second assignment moved to a method of its own (unsafe) does not,
/// and the whole search agrees with both.
#[test]
fn one_part_settles_only_when_every_site_is_proved_unreachable() {
    let safe = "int x := 0;
        public run (f:unit -> unit) :(unit) = { x := 0; f(); x := 1; f(); assert(!x == 1) };";
    let unsafe_ = "int x := 0;
        public run (f:unit -> unit) :(unit) = { x := 0; f(); f(); assert(!x == 0) };
        public set (u:unit) :(unit) = { x := 1 };";
    for (source, settles) in [(safe, true), (unsafe_, false)] {
        let loaded = holi::frontend::load_str("test.holi", source, false)
            .unwrap_or_else(|r| panic!("{}", r.render(false)));
        let lib = holi::library::build(&loaded.program);
        let options = CheckOptions {
            bounds: Bounds { k: 3, l: 2 },
            ..CheckOptions::default()
        };
        let whole = run_options(
            source,
            CheckOptions {
                techniques: Techniques {
                    split: false,
                    ..options.techniques
                },
                ..options.clone()
            },
        );
        match split_check(&lib, &options) {
            Ok(parts) => {
                assert!(settles, "{source}");
                assert_eq!(parts.verdict, Verdict::Safe);
                assert_eq!(whole.verdict, Verdict::Safe);
                assert_eq!(parts.stats.unreachable_sites, 1);
            }
            Err(_) => {
                assert!(!settles, "{source}");
                assert_eq!(whole.verdict, Verdict::Unsafe);
            }
        }
    }
}

/// A library that may get stuck (here, ill-typed), of two parts whose sites the
/// over-approximation proves unreachable, is not settled by its parts: only the whole
/// search knows where it gets stuck, and nothing is left for the parts' traces to bound.
#[test]
fn a_split_with_no_open_site_leaves_a_library_that_may_get_stuck_to_the_whole_search() {
    let source = "int x := 0;
        public run (f:unit -> unit) :(unit) = { x := 0; f(); x := 1; f(); assert(!x == 1) };
        public bad (u:unit) :(unit) = { x := !x; 5 };
        int y := 0;
        public other (u:unit) :(unit) = { y := 1; assert(!y == 1) };";
    let loaded = holi::frontend::load_str("test.holi", source, false)
        .unwrap_or_else(|r| panic!("{}", r.render(false)));
    let lib = holi::library::build(&loaded.program);
    assert!(lib.may_get_stuck);
    let options = CheckOptions {
        bounds: Bounds { k: 3, l: 2 },
        ..CheckOptions::default()
    };
    match split_check(&lib, &options) {
        Ok(result) => panic!("settled: {:?}", result.verdict),
        Err(unsettled) => assert!(unsettled.partial.is_none()),
    }
    assert_eq!(run_options(source, options).verdict, Verdict::Safe);
}
