//! Failure sites proved unreachable: the search of the over-approximation
//! ([`super::havoc`], where the argument is), redone without the candidate invariants
//! a client turn or return refutes until none is (the Houdini algorithm).

use super::havoc::{
    applies, candidates, guard_sets, guarded_writes, may_assign, write_depths, Havoc, Invariant,
};
use super::turn::Overapproximation;
use crate::library::Library;
use crate::symbolic::branch::Decider;
use crate::symbolic::brief::Brief;
use crate::symbolic::explore::{Advance, Explorer};
use crate::symbolic::options::Bounds;
use crate::symbolic::outcome::{CheckResult, Progress, Stats};
use crate::trace::{Counterexample, Site};
use std::collections::HashSet;

/// Configurations the search of the over-approximation may take; one that needs more
/// proves nothing (it is meant to be far smaller than the search it saves).
const BUDGET: u64 = 100_000;

/// The sites among `targets` that the over-approximation of `lib` reaches within the
/// bounds of `brief` (the others are unreachable in `lib`), with the work done.
/// `None` when the over-approximation is off in its plan or does not apply to `lib`,
/// or its search does not finish (within its meter and [`BUDGET`]).
pub fn reachable(
    lib: &Library,
    brief: &Brief,
    targets: &[Site],
    progress: &mut dyn FnMut(&Progress),
) -> (Option<HashSet<Site>>, Stats) {
    let Some(plan) = brief.plan.for_havoc().filter(|_| applies(lib)) else {
        return (None, Stats::default());
    };
    // Every round runs on the check's meter, so on one deadline.
    let brief = brief.with_plan(plan).with_bounds(Bounds {
        k: brief.bounds.k,
        l: brief.bounds.l.min(1),
    });
    let depths = write_depths(lib, brief.bounds.k);
    let writes = guarded_writes(lib);
    let sets = guard_sets(&writes);
    let assigns = may_assign(lib);
    let mut invariants = candidates(lib);
    let mut spent = Stats::default();
    // The rounds explore much the same paths, so they share the answers.
    let mut decider = Decider::within(&brief);
    let mut targets = targets.to_vec();
    let mut reached = HashSet::new();
    loop {
        let havoc = Havoc {
            depths: depths.clone(),
            writes: writes.clone(),
            guard_sets: sets.clone(),
            invariants: invariants.clone(),
            assigns: assigns.clone(),
        };
        let round = havoc_within(lib, &brief, &targets, havoc, decider, progress);
        match round {
            Ok((result, violated, kept)) => {
                decider = kept;
                spent.add(&result.stats);
                // A site reached with more invariants assumed than hold is reached
                // with those that hold too: that over-approximation is larger.
                reached.extend(result.counterexamples.iter().map(Counterexample::site));
                targets.retain(|site| !reached.contains(site));
                if violated.is_empty() || targets.is_empty() {
                    return (Some(reached), spent);
                }
                invariants.retain(|i| !violated.contains(i));
            }
            Err(stats) => {
                spent.add(&stats);
                return (None, spent);
            }
        }
    }
}

/// The search of the over-approximation `havoc` of `lib` for the sites `targets`, with
/// `decider`, if it is complete within [`BUDGET`] configurations (the second part: the
/// candidate invariants found not to hold on the way; the third: the decider back);
/// otherwise the work done.
fn havoc_within(
    lib: &Library,
    brief: &Brief,
    targets: &[Site],
    havoc: Havoc,
    decider: Decider,
    progress: &mut dyn FnMut(&Progress),
) -> Result<(CheckResult, Vec<Invariant>, Decider), Box<Stats>> {
    let game = Overapproximation::new(lib, brief, havoc);
    let mut explorer = Explorer::playing(game, brief, decider)
        .with_targets(targets)
        .capped_at(BUDGET);
    let capped = explorer.advance(progress) == Advance::Capped;
    let violated = explorer.game().violated().to_vec();
    let (result, decider) = explorer.finish_keeping();
    if capped || !result.inconclusive.is_empty() {
        Err(Box::new(result.stats))
    } else {
        Ok((result, violated, decider))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbolic::options::{CheckOptions, Limits, Techniques};
    use crate::symbolic::overapprox::havoc::tests::{library, LOCKED};

    fn reached(src: &str, k: u32, l: u32) -> Option<usize> {
        let lib = library(src);
        let brief = Brief::new(&CheckOptions::bounded(k, l), &lib);
        reachable(&lib, &brief, &lib.failure_sites(), &mut |_| {})
            .0
            .map(|r| r.len())
    }

    /// The rounds stop at the check's deadline, not `timeout` after they start: each
    /// used to start the clock again, so that a check could run for as many timeouts
    /// as it had rounds.
    #[test]
    fn a_passed_deadline_proves_nothing_whatever_the_timeout() {
        let lib = library(LOCKED);
        let options = CheckOptions {
            limits: Limits {
                timeout: Some(std::time::Duration::from_secs(3600)),
                deadline: Some(std::time::Instant::now()),
                ..Limits::default()
            },
            ..CheckOptions::bounded(4, 3)
        };
        let brief = Brief::new(&options, &lib);
        let (reached, _) = reachable(&lib, &brief, &lib.failure_sites(), &mut |_| {});
        assert!(reached.is_none());
    }

    #[test]
    fn a_held_lock_proves_the_assert_unreachable() {
        for (k, l) in [(2, 2), (4, 3)] {
            assert_eq!(reached(LOCKED, k, l), Some(0), "k={k} l={l}");
        }
        let lib = library(LOCKED);
        let off = CheckOptions {
            techniques: Techniques {
                havoc: false,
                ..Techniques::default()
            },
            ..CheckOptions::default()
        };
        assert!(reachable(
            &lib,
            &Brief::new(&off, &lib),
            &lib.failure_sites(),
            &mut |_| {}
        )
        .0
        .is_none());
    }

    /// Without the lock, a call from `f` changes `c` between the read and the assert.
    #[test]
    fn an_unguarded_counter_is_reached() {
        let unlocked = LOCKED.replace("if !lock", "if 1");
        assert_eq!(reached(&unlocked, 2, 1), Some(1));
    }

    /// A balance never goes below zero: only the invariant `balance ≥ 0`, kept across
    /// the Houdini rounds, shows it.
    #[test]
    fn invariants_that_hold_are_kept_and_prove_the_site_unreachable() {
        let bank = "
            import send :(int -> unit)
            int balance := 100;
            public withdraw (m:int) :(unit) = {
              if m < !balance + 1 then balance := !balance - m; send(m) else ()
            };
            public check (u:unit) :(unit) = { assert(not(!balance < 0)) };
            public deposit (m:int) :(unit) = { if 0 < m then balance := !balance + m else () };
        ";
        assert_eq!(reached(bank, 3, 2), Some(0));
        // A method that may leave it negative breaks the invariant: the site is reached.
        let broken = bank.replace("if 0 < m then", "if 1 then");
        assert_eq!(reached(&broken, 3, 2), Some(1));
    }

    /// Money moves between two accounts, and the client is told in the middle: the
    /// audit's sum is kept by every call, which only the relation `a + b = 10` that
    /// the audit itself states shows (each reference alone takes many values). A
    /// method that breaks the sum, or one that breaks it only for the time of a client
    /// turn, makes the audit reachable.
    #[test]
    fn a_relation_the_asserts_state_proves_the_audit_unreachable() {
        let ledger = "
            import told :(int -> unit)
            int a := 10; int b := 0;
            public move (x:int) :(unit) = {
              if 0 < x && x < !a + 1 then (a := !a - x; b := !b + x; told(x)) else ()
            };
            public back (x:int) :(unit) = {
              if 0 < x && x < !b + 1 then (b := !b - x; a := !a + x) else ()
            };
            public audit (u:unit) :(unit) = { assert (!a + !b == 10) };
        ";
        for (k, l) in [(2, 1), (3, 2)] {
            assert_eq!(reached(ledger, k, l), Some(0), "k={k} l={l}");
        }
        let leaking = ledger.replace("a := !a + x", "a := !a + x + 1");
        assert_eq!(reached(&leaking, 2, 1), Some(1));
        let midway = ledger.replace("b := !b + x; told(x)", "told(x); b := !b + x");
        assert_eq!(reached(&midway, 3, 2), Some(1));
    }

    /// Pitts and Stark's awkward example: `x` is 0 at some client turns, yet every call
    /// of `run` returns with `x` at 1, so a client call in the second `f()` leaves it
    /// at 1. Only the invariant at returns shows it.
    #[test]
    fn what_every_call_returns_with_proves_the_awkward_example() {
        let awkward = "
            int x := 0;
            public run (f:unit->unit) :(unit) = { x := 0; f(); x := 1; f(); assert(!x == 1) };
        ";
        for (k, l) in [(2, 1), (4, 3), (7, 4)] {
            assert_eq!(reached(awkward, k, l), Some(0), "k={k} l={l}");
        }
        // A call that returns with `x` at 0 breaks it (HOLiK's awkward_3).
        let decreased = awkward.replace("assert(!x == 1)", "x := !x - 1; assert(!x == 0)");
        assert_eq!(reached(&decreased, 3, 1), Some(1));
        // So does one that leaves it at 2 (awkward_2), its value unknown to the analysis.
        let increased = awkward.replace("x := 1", "x := !x + 1");
        assert_eq!(reached(&increased, 3, 1), Some(1));
        // A method that returns with `x` at 0 without assigning it breaks nothing; one
        // that assigns it does.
        let reader = format!("{awkward} public get (u:unit) :(int) = {{ !x }};");
        assert_eq!(reached(&reader, 3, 2), Some(0));
        let resetter = format!("{awkward} public reset (u:unit) :(unit) = {{ x := 0 }};");
        assert_eq!(reached(&resetter, 3, 2), Some(1));
    }

    /// A private method revealed to the client can be called only after the call that
    /// revealed it: the over-approximation, with one call per context, does not cover
    /// that, and says so instead of proving the assert unreachable.
    #[test]
    fn a_revealed_private_method_makes_it_prove_nothing() {
        let leaky = "
            public get (u:unit) :(unit -> unit) = { boom };
            private boom (u:unit) :(unit) = { assert(0) };
        ";
        assert_eq!(reached(leaky, 2, 2), None);
        // A closure keeps values of its frame: the same.
        let closure = "
            public get (i:int) :(unit -> unit) = { fun (u:unit) :(unit) -> assert(not(i == 7)) };
        ";
        assert_eq!(reached(closure, 2, 2), None);
        // A reference holding a function is outside the state it resets.
        let stored = "
            fun g := nop;
            private nop (u:unit) :(unit) = { () };
            public run (u:unit) :(unit) = { g := nop; assert(0) };
        ";
        assert_eq!(reached(stored, 2, 2), None);
    }
}
