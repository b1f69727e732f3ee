//! The laws of `holi equiv` on generated pairs: a library against a renaming of itself
//! (its globals and private methods renamed) is never called inequivalent, and every
//! library against each mutant of itself (one integer literal or one operator changed)
//! either is equivalent within the bounds or is told apart by a client that replays
//! on both sides (the verdict is inequivalent only then, so every inequivalent answer
//! is counted and a difference that did not replay fails the test).
//!
//! The libraries are the examples and, when `../shared` is there, HOLiK's benchmark
//! programs (a few mutants of each, spread over its source); each pair is compared at
//! k 2, l 2 with 4 unfoldings under a configuration cap.

mod mutants;

use holi::check::ProofMode;
use holi::equiv::{self, Replay, Request, Verdict};
use holi::frontend::{load_str, Loaded};
use holi::symbolic::{Bounds, CheckOptions, Limits, Techniques};
use std::path::{Path, PathBuf};

const CAP: u64 = 20_000;
const PER_LIBRARY: usize = 3;

fn libraries() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs = vec![root.join("examples")];
    let shared = root.join("../shared/holik-bench/programs");
    if shared.is_dir() {
        dirs.push(shared);
    }
    let mut files = Vec::new();
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "holi") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

fn load(name: &str, source: &str) -> Option<Loaded> {
    load_str(name, source, false).ok()
}

fn compare(left: &Loaded, right: &Loaded) -> Option<equiv::Compared> {
    compare_with(left, right, true)
}

/// Compares at k 2, l 2, 4 unfoldings, with or without the product's memo.
fn compare_with(left: &Loaded, right: &Loaded, memo: bool) -> Option<equiv::Compared> {
    let request = Request {
        options: CheckOptions {
            bounds: Bounds { k: 2, l: 2 },
            techniques: Techniques {
                memo,
                ..Techniques::default()
            },
            limits: Limits {
                max_configurations: Some(CAP),
                ..Limits::default()
            },
            ..CheckOptions::default()
        },
        unfold: 4,
        lists: holi::symbolic::config::DEFAULT_LIST_LENGTH,
        deepen: equiv::Deepen::No,
        client_dir: None,
        stem: "pair".to_string(),
        // The proof's own soundness is tested in `equiv_proof_soundness`.
        proof: ProofMode::Off,
        certificate: None,
    };
    equiv::run(left, right, &request, &mut |_| {}).ok()
}

/// The identifiers of `source`, each with its byte range.
fn identifiers(source: &str) -> Vec<(usize, usize)> {
    let bytes = source.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            out.push((start, i));
        } else if c.is_ascii_digit() {
            while i < bytes.len() && bytes[i].is_ascii_alphanumeric() {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    out
}

/// `source` with every identifier in `names` suffixed: the library's own names, which
/// no client sees.
fn renamed(source: &str, names: &[String]) -> String {
    let mut out = String::new();
    let mut last = 0;
    for (start, end) in identifiers(source) {
        let word = &source[start..end];
        if names.iter().any(|n| n == word) {
            out.push_str(&source[last..end]);
            out.push_str("_renamed");
            last = end;
        }
    }
    out.push_str(&source[last..]);
    out
}

/// The globals and private methods of `loaded`.
fn own_names(loaded: &Loaded) -> Vec<String> {
    use holi::syntax::ast::{Decl, Visibility};
    loaded
        .program
        .decls
        .iter()
        .filter_map(|d| match d {
            Decl::Method(m) if m.visibility == Visibility::Private => Some(m.name.name.clone()),
            Decl::IntRef { name, .. } | Decl::FunRef { name, .. } => Some(name.name.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_library_is_never_told_apart_from_a_renaming_of_itself() {
    let mut compared = 0;
    for path in libraries() {
        let Ok(source) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Some(left) = load("left.holi", &source) else {
            continue;
        };
        let names = own_names(&left);
        let Some(right) = load("right.holi", &renamed(&source, &names)) else {
            panic!("{}: the renaming does not load", path.display());
        };
        let Some(c) = compare(&left, &right) else {
            continue;
        };
        assert_ne!(
            c.verdict,
            Verdict::Inequivalent,
            "{}: told apart from its renaming: {:?}",
            path.display(),
            c.difference
        );
        if c.verdict == Verdict::Equivalent {
            compared += 1;
        }
    }
    assert!(
        compared >= 10,
        "only {compared} libraries compared completely"
    );
}

#[test]
fn every_difference_between_a_library_and_its_mutant_replays() {
    let (mut pairs, mut apart, mut complete) = (0, 0, 0);
    for path in libraries() {
        let Ok(source) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Some(left) = load("left.holi", &source) else {
            continue;
        };
        let all = mutants::of(&source);
        // A few per library, spread over it: the benchmark's programs have dozens.
        let step = all.len().div_ceil(PER_LIBRARY).max(1);
        for mutant in all.into_iter().step_by(step) {
            let Some(right) = load("mutant.holi", &mutant) else {
                continue;
            };
            let Some(c) = compare(&left, &right) else {
                continue;
            };
            pairs += 1;
            for reason in &c.inconclusive {
                assert!(
                    !reason.contains("did not replay") && !reason.contains("no client was written"),
                    "{}: {reason}\n{mutant}",
                    path.display()
                );
            }
            match c.verdict {
                Verdict::Inequivalent => {
                    apart += 1;
                    let replay = c.difference.as_ref().map(|d| &d.replay);
                    assert!(
                        matches!(replay, Some(Replay::Confirmed { .. })),
                        "{}: {replay:?}",
                        path.display()
                    );
                }
                Verdict::Equivalent => complete += 1,
                Verdict::Inconclusive | Verdict::Stuck => {}
            }
        }
    }
    assert!(pairs >= 40, "only {pairs} pairs");
    assert!(apart * 4 >= pairs, "{apart} of {pairs} mutants told apart");
    assert!(complete > 0, "no mutant compared completely");
}

/// The verdict and the length of the difference, where the search was complete.
fn answer(c: &equiv::Compared) -> Option<(Verdict, Option<usize>)> {
    c.inconclusive
        .is_empty()
        .then(|| (c.verdict, c.difference.as_ref().map(|d| d.moves())))
}

#[test]
fn the_memo_of_met_configurations_changes_no_answer_nor_the_shortest_length() {
    let mut pairs: Vec<[Loaded; 2]> = Vec::new();
    for path in libraries() {
        let Ok(source) = std::fs::read_to_string(&path) else {
            continue;
        };
        let all = mutants::of(&source);
        let step = all.len().div_ceil(PER_LIBRARY).max(1);
        for mutant in all.into_iter().step_by(step) {
            if let (Some(left), Some(right)) =
                (load("left.holi", &source), load("mutant.holi", &mutant))
            {
                pairs.push([left, right]);
            }
        }
    }
    let hobbit = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/hobbit-bench");
    for dir in ["equiv", "inequiv"] {
        let Ok(entries) = std::fs::read_dir(hobbit.join(dir)) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        files.sort();
        pairs.extend(
            files
                .iter()
                .filter_map(|f| holi::hobbit::translate::load(f, false).ok()),
        );
    }
    let (mut compared, mut apart) = (0, 0);
    for [left, right] in &pairs {
        let (Some(plain), Some(memo)) = (
            compare_with(left, right, false),
            compare_with(left, right, true),
        ) else {
            continue;
        };
        let Some(plain) = answer(&plain) else {
            continue;
        };
        compared += 1;
        apart += usize::from(plain.0 == Verdict::Inequivalent);
        assert_eq!(
            Some(plain),
            answer(&memo),
            "{} vs {}: the memo changed the answer",
            left.name,
            right.name
        );
    }
    assert!(compared >= 20, "only {compared} pairs compared completely");
    assert!(apart >= 5, "only {apart} pairs told apart");
}
