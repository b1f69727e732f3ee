//! No proof for a library with a failing trace: the proof checker (`holi::proof`) must
//! refuse every invariant, from a pool of the kind of candidates a search would guess,
//! for every HOLiK corpus file with a trace at some bound (HOLiK's `reference.csv`) and
//! every unsafe example. Skips the corpus, with a note, without `../shared`.

mod corpus;

use holi::build::{Initial, Library};
use holi::proof::{candidates, check, find, Budget, Fact, Outcome};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Candidate facts: each integer reference at least or at most its initial value, or
/// zero.
fn pool(lib: &Library) -> Vec<Fact> {
    let mut facts = Vec::new();
    for (r, initial) in lib.store.iter().enumerate() {
        if let Initial::Int(v) = initial {
            let r = r as u32;
            facts.push(Fact::at_least(r, v.clone()));
            facts.push(Fact::at_most(r, v.clone()));
            facts.push(Fact::at_least(r, 0));
            facts.push(Fact::at_most(r, 0));
        }
    }
    facts
}

/// The empty invariant, each fact alone, each pair of facts, and all of them.
fn invariants(pool: &[Fact]) -> Vec<Vec<Fact>> {
    let mut out = vec![Vec::new(), pool.to_vec()];
    for (i, a) in pool.iter().enumerate() {
        out.push(vec![a.clone()]);
        for b in &pool[i + 1..] {
            out.push(vec![a.clone(), b.clone()]);
        }
    }
    out
}

fn never_proved(path: &Path) -> usize {
    let loaded = holi::frontend::load(path, false)
        .unwrap_or_else(|r| panic!("{}: {}", path.display(), r.render(false)));
    let lib = holi::build::build(&loaded.program);
    let (found, outcome) = find(&lib, &candidates(&lib), Budget::default());
    assert!(
        !matches!(outcome, Outcome::Proved { .. }),
        "{} has a failing trace but the search proved it with {:?}",
        path.display(),
        found
            .iter()
            .map(|f| f.display(&lib).to_string())
            .collect::<Vec<_>>()
    );
    let candidates = invariants(&pool(&lib));
    for invariant in &candidates {
        let outcome = check(&lib, invariant, Budget::default());
        assert!(
            !matches!(outcome, Outcome::Proved { .. }),
            "{} has a failing trace but was proved with {:?}",
            path.display(),
            invariant
                .iter()
                .map(|f| f.display(&lib).to_string())
                .collect::<Vec<_>>()
        );
    }
    candidates.len()
}

#[test]
fn no_library_with_a_failing_trace_is_ever_proved() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = ["dao", "double_free", "file_lock", "flat_combiner"]
        .iter()
        .map(|name| root.join(format!("examples/{name}.holi")))
        .collect();
    if let Some(corpus) = corpus::benchmark("the proof soundness test") {
        let reference = std::fs::read_to_string(root.join("../shared/holik-bench/reference.csv"))
            .expect("the reference results");
        let unsafe_files: BTreeSet<&str> = reference
            .lines()
            .skip(1)
            .filter_map(|line| {
                let fields: Vec<&str> = line.split(',').collect();
                (fields.get(4).and_then(|t| t.parse::<u64>().ok()) > Some(0)).then(|| fields[0])
            })
            .collect();
        files.extend(corpus.into_iter().filter(|f| {
            f.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| unsafe_files.contains(n))
        }));
    }
    let checked: usize = files.iter().map(|f| never_proved(f)).sum();
    eprintln!("{} files, {checked} invariants, none proved", files.len());
    assert!(checked >= files.len());
}

/// Not a goal yet (issue 15, stage 4): what the search for an invariant proves of the
/// safe libraries.
#[test]
#[ignore = "a measurement for lang/proofs.md, not a check"]
fn what_the_search_proves_of_the_safe_libraries() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = ["dao", "double_free", "file_lock", "flat_combiner"]
        .iter()
        .map(|name| root.join(format!("examples/{name}_fixed.holi")))
        .collect();
    for name in [
        "awkward_safe",
        "cross_reentrancy_safe",
        "dos_safe",
        "lock_counter_safe",
        "optimistic_safe",
        "reentrancy_safe",
        "call_order_param",
    ] {
        files.push(root.join(format!("../shared/holik-bench/programs/{name}.holi")));
    }
    for file in files.iter().filter(|f| f.is_file()) {
        let loaded = holi::frontend::load(file, false).unwrap();
        let lib = holi::build::build(&loaded.program);
        let start = std::time::Instant::now();
        let (found, outcome) = find(&lib, &candidates(&lib), Budget::default());
        let facts: Vec<String> = found.iter().map(|f| f.display(&lib).to_string()).collect();
        eprintln!(
            "{}: {outcome:?} in {:?} with {facts:?}",
            file.display(),
            start.elapsed()
        );
    }
}
