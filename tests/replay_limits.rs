//! Replay within limits: `replay::confirm` stops at its deadline or interrupt and marks
//! the counterexamples left "not replayed", which is no mismatch; and a library with
//! thousands of methods replays all its counterexamples (each replay used to copy the
//! whole library, which made `holi check` on 12,000 methods take minutes after a 5 s
//! search).

use holi::concrete::Cutoff;
use holi::frontend::load_str;
use holi::replay::{confirm, ConfirmOptions, Verdict};
use holi::syntax::ast::Program;
use holi::syntax::parser::MAX_NESTING;
use holi::trace::{Counterexample, Dir, FailureKind, Move, Player, Trace, TraceValue};
use num_bigint::BigInt;
use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// `n` one-line methods, `m<i>` failing on argument `i`, and the one-move counterexample
/// of each (written by hand: the search is not what is tested here).
/// As many methods as the parser takes (each top-level `;` counts one level).
const WIDE: usize = MAX_NESTING / 12 * 11;

fn wide_library(n: usize) -> (Program, Vec<Counterexample>) {
    let mut source = String::new();
    let mut counterexamples = Vec::new();
    for i in 0..n {
        let line = format!("public m{i} (x:int) :(unit) = {{ assert(not (x == {i})) }};\n");
        let start = source.len() + line.find("assert").unwrap();
        let end = source.len() + line.rfind(" }").unwrap();
        source.push_str(&line);
        let call = Move {
            dir: Dir::Call,
            by: Player::Client,
            method: format!("m{i}"),
            value: TraceValue::Int(BigInt::from(i)),
            store: Vec::new(),
        };
        counterexamples.push(Counterexample {
            kind: FailureKind::Assert,
            span: start..end,
            trace: Trace(vec![call.clone()]),
            concrete: Trace(vec![call]),
            model: BTreeMap::new(),
            locations: Vec::new(),
            valuation: None,
        });
    }
    let program = match load_str("wide.holi", &source, false) {
        Ok(l) => l.program,
        Err(r) => panic!("{}", r.render(false)),
    };
    (program, counterexamples)
}

fn replaying() -> ConfirmOptions {
    ConfirmOptions {
        replay: true,
        ..ConfirmOptions::default()
    }
}

#[test]
fn every_counterexample_of_a_wide_library_replays() {
    let (library, counterexamples) = wide_library(WIDE);
    let confirmation = confirm(&library, &counterexamples, &replaying(), "wide").unwrap();
    assert_eq!(confirmation.verdicts.len(), WIDE);
    assert!(
        confirmation
            .verdicts
            .iter()
            .all(|v| v == &Some(Verdict::Confirmed)),
        "{:?}",
        confirmation.failures().first()
    );
}

#[test]
fn replay_stops_at_the_deadline_without_a_mismatch() {
    let (library, counterexamples) = wide_library(WIDE);
    let mut many = Vec::new();
    for _ in 0..20 {
        many.extend(counterexamples.iter().cloned());
    }
    let started = Instant::now();
    let options = ConfirmOptions {
        deadline: Some(started + Duration::from_millis(500)),
        ..replaying()
    };
    let confirmation = confirm(&library, &many, &options, "wide").unwrap();
    // Generous: the limit is what is tested, not the speed.
    assert!(started.elapsed() < Duration::from_secs(30));
    assert!(confirmation.failures().is_empty());
    let late = confirmation.not_replayed();
    assert!(!late.is_empty(), "{} replays took under 0.5 s", many.len());
    assert!(late.iter().all(|(_, c)| *c == Cutoff::TimeLimit));
    // Those not replayed are the last ones, and none of them is a bug in holi.
    let first_late = late[0].0 - 1;
    assert!(confirmation.verdicts[first_late..]
        .iter()
        .all(|v| v == &Some(Verdict::NotReplayed(Cutoff::TimeLimit))));
    assert_eq!(
        Verdict::NotReplayed(Cutoff::TimeLimit).to_string(),
        "not replayed (time limit)"
    );
}

#[test]
fn an_interrupt_leaves_every_counterexample_not_replayed() {
    let (library, counterexamples) = wide_library(3);
    let options = ConfirmOptions {
        interrupt: Some(Arc::new(AtomicBool::new(true))),
        ..replaying()
    };
    let confirmation = confirm(&library, &counterexamples, &options, "wide").unwrap();
    assert!(confirmation.failures().is_empty());
    assert_eq!(
        confirmation.not_replayed(),
        [
            (1, Cutoff::Interrupted),
            (2, Cutoff::Interrupted),
            (3, Cutoff::Interrupted)
        ]
    );
}

#[test]
fn without_replay_the_deadline_bounds_client_synthesis_too() {
    let (library, counterexamples) = wide_library(3);
    let dir = tempfile::tempdir().unwrap();
    let options = ConfirmOptions {
        replay: false,
        client_dir: Some(dir.path().to_path_buf()),
        deadline: Some(Instant::now()),
        ..ConfirmOptions::default()
    };
    let confirmation = confirm(&library, &counterexamples, &options, "wide").unwrap();
    assert_eq!(confirmation.not_replayed().len(), 3);
    assert!(confirmation.clients.iter().all(Option::is_none));
}
