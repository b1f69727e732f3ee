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

/// The facts as a person reads them.
fn shown(lib: &Library, facts: &[Fact]) -> Vec<String> {
    facts.iter().map(|f| f.display(lib).to_string()).collect()
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
        shown(&lib, &found)
    );
    let candidates = invariants(&pool(&lib));
    for invariant in &candidates {
        let outcome = check(&lib, invariant, Budget::default());
        assert!(
            !matches!(outcome, Outcome::Proved { .. }),
            "{} has a failing trace but was proved with {:?}",
            path.display(),
            shown(&lib, invariant)
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

/// The safe libraries of issue 15: the fixed examples and the corpus files with no
/// failing trace at any bound (those present).
fn safe_targets() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let examples = ["dao", "double_free", "file_lock", "flat_combiner"]
        .iter()
        .map(|name| root.join(format!("examples/{name}_fixed.holi")));
    let corpus = [
        "awkward_safe",
        "cross_reentrancy_safe",
        "dos_safe",
        "lock_counter_safe",
        "optimistic_safe",
        "reentrancy_safe",
        "call_order_param",
    ]
    .iter()
    .map(|name| root.join(format!("../shared/holik-bench/programs/{name}.holi")));
    examples.chain(corpus).filter(|f| f.is_file()).collect()
}

/// Not a goal yet (issue 15, stage 4): what the search for an invariant proves of the
/// safe libraries.
#[test]
#[ignore = "a measurement for lang/proofs.md, not a check"]
fn what_the_search_proves_of_the_safe_libraries() {
    let files = safe_targets();
    for file in &files {
        let loaded = holi::frontend::load(file, false).unwrap();
        let lib = holi::build::build(&loaded.program);
        let start = std::time::Instant::now();
        let (found, outcome) = find(&lib, &candidates(&lib), Budget::default());
        let facts = shown(&lib, &found);
        eprintln!(
            "{}: {outcome:?} in {:?} with {facts:?}",
            file.display(),
            start.elapsed()
        );
    }
}

/// Every mutant of a safe library (one comparison flipped or loosened, one guard's
/// `not` dropped, one constant moved by one) whose bounded search finds a failing trace
/// is never proved; and a mutant that is proved has no failing trace.
#[test]
fn no_mutant_with_a_failing_trace_is_proved() {
    let files = safe_targets();
    let (mut mutants, mut unsafe_mutants, mut proved) = (0, 0, 0);
    for file in &files {
        let source = std::fs::read_to_string(file).unwrap();
        for mutant in mutate(&source) {
            let Ok(loaded) = holi::frontend::load_str("mutant.holi", &mutant, false) else {
                continue;
            };
            mutants += 1;
            let lib = holi::build::build(&loaded.program);
            let (_, outcome) = find(&lib, &candidates(&lib), Budget::default());
            let options = holi::symbolic::CheckOptions {
                k: 2,
                l: 2,
                ..Default::default()
            };
            let bounded = holi::symbolic::check(&loaded.program, &options);
            let is_unsafe = bounded.verdict == holi::symbolic::Verdict::Unsafe;
            let is_proved = matches!(outcome, Outcome::Proved { .. });
            unsafe_mutants += usize::from(is_unsafe);
            proved += usize::from(is_proved);
            assert!(
                !(is_unsafe && is_proved),
                "a mutant of {} with a failing trace was proved:\n{mutant}",
                file.display()
            );
        }
    }
    eprintln!("{mutants} mutants: {unsafe_mutants} with a failing trace, {proved} proved");
    assert!(
        mutants >= 20 && unsafe_mutants > 0,
        "{mutants} {unsafe_mutants}"
    );
}

/// The mutants of `source`, one change each, in method bodies only (after the first
/// `=` of a declaration line, to leave types and the header alone).
fn mutate(source: &str) -> Vec<String> {
    let mut out = Vec::new();
    let replacements: [(&str, &[&str]); 6] = [
        (" < ", &[" <= ", " > "]),
        (" > ", &[" >= ", " < "]),
        (" <= ", &[" < "]),
        (" >= ", &[" > "]),
        (" == ", &[" < "]),
        ("not (", &["("]),
    ];
    let body_start = source.find('{').unwrap_or(source.len());
    for (from, tos) in replacements {
        for (at, _) in source
            .match_indices(from)
            .filter(|(at, _)| *at > body_start)
        {
            for to in tos {
                out.push(format!(
                    "{}{to}{}",
                    &source[..at],
                    &source[at + from.len()..]
                ));
            }
        }
    }
    let bytes = source.as_bytes();
    let mut i = body_start;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit()
            && !bytes[i - 1].is_ascii_alphanumeric()
            && bytes[i - 1] != b'_'
        {
            let end = (i..bytes.len())
                .find(|&j| !bytes[j].is_ascii_digit())
                .unwrap_or(bytes.len());
            if let Ok(n) = source[i..end].parse::<i64>() {
                for m in [n + 1, n - 1] {
                    out.push(format!("{}{}{}", &source[..i], m, &source[end..]));
                }
            }
            i = end;
        } else {
            i += 1;
        }
    }
    out
}
