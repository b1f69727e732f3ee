//! `holi-bench random`: the generator is deterministic, varied and well-typed (every
//! library of 200 seeds passes `holi parse --strict`), and the report finds a backfire
//! and a disagreement in synthetic runs.

mod common;

use common::{bench, bench_status, holi_binary};
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

const SEEDS: &str = "200";

fn generate(out: &Path, seed: &str, count: &str) {
    let out = out.to_str().expect("utf-8 temp path");
    bench(&[
        "random",
        "--seed",
        seed,
        "--count",
        count,
        "--out",
        out,
        "--generate-only",
    ]);
}

fn texts(dir: &Path) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(dir.join("libraries"))
        .expect("libraries/")
        .map(|entry| {
            let path = entry.expect("entry").path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&path).expect("library text"))
        })
        .collect();
    files.sort();
    files
}

#[test]
fn the_generator_is_deterministic_varied_and_well_typed() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (first, second) = (tmp.path().join("a"), tmp.path().join("b"));
    generate(&first, "0", SEEDS);
    generate(&second, "0", SEEDS);
    let libraries = texts(&first);
    assert_eq!(libraries.len(), 200);
    assert_eq!(libraries, texts(&second), "same seeds, other texts");
    let distinct: BTreeSet<&String> = libraries.iter().map(|(_, text)| text).collect();
    assert_eq!(distinct.len(), 200, "two seeds gave the same library");

    // A library depends on its seed alone, not on the range it was generated in.
    let third = tmp.path().join("c");
    generate(&third, "150", "5");
    let s150 = |files: &[(String, String)]| {
        files
            .iter()
            .find(|(name, _)| name == "s150.holi")
            .map(|(_, text)| text.clone())
    };
    assert_eq!(s150(&texts(&third)), s150(&libraries));

    // Every library parses and type-checks without a single warning.
    let holi = holi_binary();
    let parsed = Command::new(&holi)
        .args(["parse", "--strict", "--color", "never"])
        .arg(first.join("libraries"))
        .output()
        .expect("run holi parse");
    let stdout = String::from_utf8_lossy(&parsed.stdout);
    assert!(
        parsed.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&parsed.stderr)
    );
    assert!(
        stdout.contains("200 well-formed (0 with warnings), 0 rejected"),
        "{stdout}"
    );

    // The shapes the search's prunings need.
    let all: String = libraries.iter().map(|(_, text)| text.as_str()).collect();
    for needle in [
        "import useFn :((int -> int) -> int)",
        "import send :(int -> unit)",
        "import get :(unit -> int)",
        ":(int -> int) = {",
        "(fun (y",
        "letrec loop",
        " / (0 - 100))",
        " / (!v",
        "ref int cell",
        "(ref ",
        "(fst a",
        "(assert ",
    ] {
        assert!(all.contains(needle), "no library contains `{needle}`");
    }
    let table = std::fs::read_to_string(first.join("libraries.csv")).expect("libraries.csv");
    let rows: Vec<Vec<&str>> = table
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(rows.len(), 200);
    let components = |n: &str| rows.iter().filter(|r| r[4] == n).count();
    assert!(components("1") > 0 && components("3") > 0 && components("4") > 0);
    for feature in [
        "ho-import",
        "fn-param",
        "fn-result",
        "closure",
        "loop",
        "self-call",
        "division",
        "state-division",
        "nonlinear",
        "pair",
        "refs",
        "let-check",
    ] {
        let count = rows
            .iter()
            .filter(|r| r[7].split(';').any(|f| f == feature))
            .count();
        assert!(count >= 5, "only {count} libraries with {feature}");
    }
    for (k, l) in [("2", "1"), ("3", "2"), ("4", "1"), ("2", "3")] {
        assert!(
            rows.iter().any(|r| r[2] == k && r[3] == l),
            "no library at k {k}, l {l}"
        );
    }
}

#[test]
fn an_unknown_variant_is_refused() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let out = tmp.path().to_str().expect("utf-8 temp path");
    let (success, _, stderr) = bench_status(&[
        "random",
        "--count",
        "1",
        "--out",
        out,
        "--variants",
        "no-split,no-such",
    ]);
    assert!(!success);
    assert!(stderr.contains("unknown variant `no-such`"), "{stderr}");
}

const HEADER: &str = "library,k,l,variant,round,status,verdict,complete,seconds,configurations,subsumed,covered,unreachable_sites,solver_queries,failing_traces,sites,note\n";

#[test]
fn the_report_finds_backfires_and_disagreements() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    let runs = [
        // The split backfires: the default times out, --no-split is safe at once.
        "s1.holi,3,2,default,1,inconclusive,inconclusive,false,10.02,3549664,0,0,0,10,0,,",
        "s1.holi,3,2,no-split,1,done,safe,true,0.17,128651,0,0,0,10,0,,",
        "s1.holi,3,2,no-memo,1,done,safe,true,0.90,400000,0,0,0,10,0,,",
        // Semantic subsumption makes it slower.
        "s2.holi,4,2,default,1,done,unsafe,true,0.27,3827,5,5,0,100,1,3:5:assert=7,",
        "s2.holi,4,2,no-semantic,1,done,unsafe,true,0.04,3827,5,0,0,10,1,3:5:assert=7,",
        // Two answers that cannot both be right.
        "s3.holi,2,1,default,1,done,safe,true,0.5,100,0,0,0,10,0,,",
        "s3.holi,2,1,no-bound,1,done,unsafe,true,0.5,120,0,0,0,10,1,4:9:division=3,",
        // Agreement, and the default fastest.
        "s4.holi,2,1,default,1,done,unsafe,true,0.3,100,0,0,0,10,1,4:9:assert=3,",
        "s4.holi,2,1,no-inert,1,done,unsafe,true,0.9,100,0,0,0,10,1,4:9:assert=3,",
    ];
    std::fs::write(
        dir.join("runs.csv"),
        format!("{HEADER}{}\n", runs.join("\n")),
    )
    .unwrap();
    std::fs::write(
        dir.join("libraries.csv"),
        "file,seed,k,l,components,methods,bytes,features\n\
         s1.holi,1,3,2,3,6,900,ho-import;loop\n\
         s2.holi,2,4,2,1,2,200,division\n",
    )
    .unwrap();
    let out = bench(&["report", dir.to_str().expect("utf-8 temp path")]);
    assert!(out.contains("REPORT.md"), "{out}");
    let report = std::fs::read_to_string(dir.join("REPORT.md")).unwrap();
    assert!(
        report
            .contains("**4 libraries; 1 disagreements; 2 where the default is more than 2× slower"),
        "{report}"
    );
    assert!(report.contains("1 where it is less conclusive"), "{report}");
    assert!(
        report.contains("- s3.holi: default vs no-bound: safe vs unsafe"),
        "{report}"
    );
    assert!(
        report.contains("| s1.holi | less conclusive | no-split | 10.020 | 0.170 | inconclusive | safe | k3 l2, 3 components, 6 methods; ho-import;loop |"),
        "{report}"
    );
    assert!(
        report.contains("| s2.holi | slower | no-semantic | 0.270 | 0.040 | unsafe | unsafe |"),
        "{report}"
    );
    // The split was tried on s1 (3 components, a whole search past 100,000).
    assert!(
        report.contains("tried the split (several components, no ML references, a whole search past 100000 configurations) on 1 libraries (s1.holi)"),
        "{report}"
    );
}
