//! One search cut across shards (`lang/shards.md`, "One search across shards"): a run
//! of one file under `--shard` merges to one report for every number of shards, with
//! the verdict, failure sites and minimal lengths of the run without shards, every
//! trace of `--all`, and on a heavy grid cell its very counterexamples; parts of
//! another cut or with a lane missing are refused. Out of the fast tier: it runs
//! searches many times over.

mod sharded;
mod times;
use sharded::{holi, merged, root, strings, whole};
use times::timeless;

/// The JSON report's verdict, and per failure site (its place and kind) the length of
/// its shortest trace: what a search cut across shards promises to keep.
fn sites_and_lengths(json: &str) -> (String, Vec<(String, u64)>) {
    let report: serde_json::Value = serde_json::from_str(json).expect("a JSON report");
    let mut sites: Vec<(String, u64)> = (report["counterexamples"].as_array())
        .expect("counterexamples")
        .iter()
        .map(|c| {
            let place = format!("{} {}", c["kind"], c["span"]["start"]);
            (place, c["moves"].as_u64().expect("moves"))
        })
        .collect();
    sites.sort();
    (report["verdict"].to_string(), sites)
}

#[test]
fn one_search_cut_across_shards_merges_to_one_report_for_every_n() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    for file in [
        "examples/dao.holi",
        "examples/flat_combiner.holi",
        "examples/lock_fixed.holi",
    ] {
        for format in ["text", "json"] {
            // Cut early, so that these small searches are cut into lanes at all.
            let args = [
                "check",
                file,
                "--jobs",
                "1",
                "--no-prove",
                "--format",
                format,
                "--cut-after",
                "10",
            ];
            let (one, one_code) = merged(&args, 1, dir.path());
            // The lanes run by tasks: the same on any number of threads too.
            for (n, jobs) in [(2, "1"), (3, "1"), (70, "1"), (2, "2")] {
                let mut run = args.to_vec();
                run[3] = jobs;
                let (found, code) = merged(&run, n, dir.path());
                let case = format!("{file} {format}, {n} shards, {jobs} threads");
                assert_eq!(code, one_code, "{case}");
                assert_eq!(timeless(&found), timeless(&one), "{case}");
            }
            if format == "json" {
                let report: serde_json::Value = serde_json::from_str(&one).expect("JSON");
                assert!(
                    report["stats"]["lanes"].as_u64().is_some_and(|l| l > 1),
                    "{file}: the search was cut into lanes: {}",
                    report["stats"]
                );
                // Against the run without shards: the same verdict, failure sites and
                // minimal lengths.
                let plain = &args[..7];
                let (expected, code) = whole(plain);
                assert_eq!(one_code, code, "{file}");
                assert_eq!(
                    sites_and_lengths(&one),
                    sites_and_lengths(&expected),
                    "{file}"
                );
            }
        }
    }
}

#[test]
fn every_failing_trace_of_a_search_cut_across_shards_is_the_whole_runs() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let args = [
        "check",
        "examples/dao.holi",
        "--all",
        "--jobs",
        "1",
        "--format",
        "json",
        "--no-clients",
    ];
    let (expected, code) = whole(&args);
    let mut cut = args.to_vec();
    cut.extend(["--cut-after", "10"]);
    let (found, merged_code) = merged(&cut, 3, dir.path());
    assert_eq!(merged_code, code);
    // `--all` shows each trace with the values its search found (`lang/shards.md`):
    // the traces themselves, their order and their count are the whole run's.
    let (traces, count) = traces_of(&found);
    assert!(traces.len() > 10, "{traces:?}");
    assert_eq!((traces, count), traces_of(&expected));
    let (three, _) = merged(&cut, 2, dir.path());
    assert_eq!(
        timeless(&three),
        timeless(&found),
        "values too are the same for every N"
    );
}

/// A JSON report's traces (symbolic, with their sites), in order, and its count of
/// failing traces.
fn traces_of(json: &str) -> (Vec<(String, String)>, u64) {
    let report: serde_json::Value = serde_json::from_str(json).expect("JSON");
    let traces = (report["counterexamples"].as_array())
        .expect("counterexamples")
        .iter()
        .map(|c| (c["text"].to_string(), c["span"].to_string()))
        .collect();
    (traces, report["failing_traces"].as_u64().expect("a count"))
}

#[test]
fn a_cut_search_refuses_parts_of_another_cut_or_a_lane_missing() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let part = |i: usize, n: usize, cut: &str| {
        let path = dir.path().join(format!("c{i}-{n}-{cut}.json"));
        let args = strings(&[
            "check",
            "examples/dao.holi",
            "--jobs",
            "1",
            "--format",
            "sarif",
            "--cut-after",
            cut,
            "--shard",
            &format!("{i}/{n}"),
            "--part",
            &path.display().to_string(),
        ]);
        let out = holi(&args, &[]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        path.display().to_string()
    };
    let merge = |parts: &[&String]| {
        let mut args = strings(&["merge"]);
        args.extend(parts.iter().map(|p| p.to_string()));
        let out = holi(&args, &[]);
        if out.status.code() == Some(2) {
            assert!(out.stdout.is_empty(), "no partial report");
        }
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // A file that does not load: each shard says so in its log, the merge as the run.
    let broken = dir.path().join("broken.holi");
    std::fs::write(&broken, "let x = in").expect("written");
    let broken = broken.display().to_string();
    let (mut run, mut parts) = (strings(&["merge"]), Vec::new());
    for i in 1..=2 {
        let path = dir
            .path()
            .join(format!("broken-{i}.json"))
            .display()
            .to_string();
        let args = strings(&[
            "check",
            &broken,
            "--shard",
            &format!("{i}/2"),
            "--part",
            &path,
        ]);
        assert_eq!(holi(&args, &[]).status.code(), Some(0));
        parts.push(path);
    }
    run.extend(parts);
    let merged_broken = holi(&run, &[]);
    let alone = holi(&strings(&["check", &broken]), &[]);
    assert_eq!(merged_broken.status.code(), alone.status.code());
    assert_eq!(merged_broken.stdout, alone.stdout);
    let (one, two) = (part(1, 2, "10"), part(2, 2, "10"));
    let (code, missing) = merge(&[&two]);
    assert_eq!(code, Some(2));
    assert!(missing.contains("shard 1 of 2 is missing"), "{missing}");
    let other = part(2, 2, "12");
    let (code, foreign) = merge(&[&one, &other]);
    assert_eq!(code, Some(2));
    assert!(foreign.contains("a part of another run"), "{foreign}");
    // A part whose lanes were tampered with: one lane moved to the other shard's part.
    let mut tampered: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&two).expect("read")).expect("JSON");
    let searched = &mut tampered["cells"][0]["search"]["share"]["searched"];
    let lanes = searched.as_array_mut().expect("lanes");
    lanes.remove(0);
    let cut = dir.path().join("tampered.json");
    std::fs::write(&cut, tampered.to_string()).expect("written");
    let (code, lane) = merge(&[&one, &cut.display().to_string()]);
    assert_eq!(code, Some(2));
    assert!(lane.contains("no part searched lane 1"), "{lane}");
}

#[test]
fn a_heavy_grid_cell_cut_across_shards_keeps_the_whole_runs_counterexamples() {
    let file = root().join("../shared/holik-bench/programs/reentrancy-mo.holi");
    if !file.exists() {
        eprintln!("skipped: ../shared/holik-bench is not beside the repository");
        return;
    }
    let file = file.display().to_string();
    let dir = tempfile::tempdir().expect("a temporary folder");
    // The grid's largest bounds: 13,419 configurations as one search.
    let args = [
        "check", &file, "--k", "5", "--l", "3", "--jobs", "1", "--format", "json",
    ];
    let (expected, code) = whole(&args);
    let mut cut = args.to_vec();
    cut.extend(["--cut-after", "2000"]);
    let (found, merged_code) = merged(&cut, 3, dir.path());
    assert_eq!(merged_code, code);
    let read = |json: &str| -> serde_json::Value { serde_json::from_str(json).expect("JSON") };
    let (found, expected) = (read(&found), read(&expected));
    assert!(found["stats"]["lanes"].as_u64().is_some_and(|l| l > 1));
    assert_eq!(found["verdict"], expected["verdict"]);
    // Not promised (another trace as short may be kept), but so on this cell: the
    // traces, their values, replays and clients of the run without shards.
    assert_eq!(found["counterexamples"], expected["counterexamples"]);
}
