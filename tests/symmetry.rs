//! Symmetry reduction: the default search calls only one of several interchangeable
//! revealed functions, and must still find every failure site at its minimal trace
//! length, as the plain search (`memo: false`) and the exhaustive one (`all`) do.

use holi::symbolic::{check, CheckOptions, CheckResult, Verdict};
use holi::symbolic::{Bounds, Techniques};

mod sites;
use sites::sites;

/// Every call of `open` leaks a fresh `write`, all alike; the assert fails once the
/// client calls a `write` after `open` has returned.
const LEAK_BY_CALL: &str = "
import userExec :((unit -> unit) -> unit)
int lock := 0;
public open (u:unit) :(unit) = {
  lock := 1;
  (let write = fun (x:unit) :(unit) -> assert(!lock) in
   userExec(write);
   lock := 0)
};
";

/// Every call of `counter` returns a fresh closure over the client's argument, never
/// alike (each argument is a new symbol); those of `tick` are all alike. Together
/// they reach the third increment.
const LEAK_BY_RETURN: &str = "
int n := 0;
public counter (limit:int) :(unit -> unit) = {
  fun (u:unit) :(unit) -> (n := !n + 1; assert(!n < 3 || limit < 0))
};
public tick (u:unit) :(unit -> unit) = {
  fun (v:unit) :(unit) -> n := !n + 1
};
";

fn run(source: &str, k: u32, l: u32, memo: bool, all: bool) -> CheckResult {
    let loaded = holi::frontend::load_str("test.holi", source, false)
        .unwrap_or_else(|r| panic!("{}", r.render(false)));
    let options = CheckOptions {
        bounds: Bounds { k, l },
        techniques: Techniques {
            memo,
            all,
            ..Techniques::default()
        },
        ..CheckOptions::default()
    };
    check(&holi::library::build(&loaded.program), &options)
}

fn agree(source: &str, k: u32, l: u32) -> CheckResult {
    let reduced = run(source, k, l, true, false);
    for (what, other) in [
        ("plain", run(source, k, l, false, false)),
        ("all", run(source, k, l, true, true)),
    ] {
        let cell = format!("k={k} l={l} against {what}");
        assert!(
            other.inconclusive.is_empty(),
            "{cell}: {:?}",
            other.inconclusive
        );
        assert_eq!(reduced.verdict, other.verdict, "{cell}");
        assert_eq!(sites(&reduced), sites(&other), "{cell}");
        assert!(
            reduced.stats.configurations < other.stats.configurations,
            "{cell}: {} configurations, not fewer than {}",
            reduced.stats.configurations,
            other.stats.configurations
        );
    }
    assert!(reduced.inconclusive.is_empty());
    reduced
}

#[test]
fn identical_leaked_closures_keep_verdicts_and_minimal_lengths() {
    for (k, l) in [(2, 2), (2, 3)] {
        let result = agree(LEAK_BY_CALL, k, l);
        assert_eq!(result.verdict, Verdict::Unsafe);
        assert_eq!(sites(&result).into_values().collect::<Vec<_>>(), [5]);
    }
}

#[test]
fn closures_over_distinct_client_values_are_all_called() {
    for (k, l) in [(2, 3), (2, 4), (3, 4)] {
        let result = agree(LEAK_BY_RETURN, k, l);
        let verdict = if l >= 4 {
            Verdict::Unsafe
        } else {
            Verdict::Safe
        };
        assert_eq!(result.verdict, verdict, "k={k} l={l}");
    }
}

#[test]
fn symmetry_cuts_the_growth_in_leaked_names() {
    // `open` leaks a `write` per call; the plain search tries every order of calls to
    // them (about a million configurations at k = 2, l = 3), the reduced one calls
    // the first only (about a hundred).
    let plain = run(LEAK_BY_CALL, 2, 3, false, false);
    let reduced = run(LEAK_BY_CALL, 2, 3, true, false);
    assert!(
        reduced.stats.configurations * 1000 < plain.stats.configurations,
        "{} configurations against {}",
        reduced.stats.configurations,
        plain.stats.configurations
    );
}
