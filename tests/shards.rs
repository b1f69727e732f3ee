//! Shards and their merge (`lang/shards.md`): the parts of `holi check … --shard I/N`,
//! merged by `holi merge`, are the report of the run without `--shard`, in every format
//! and for every N, once the times (which no two runs share) are set aside; a missing,
//! duplicated or foreign part is an error naming it; `--shard auto` takes the index a
//! scheduler gives.

use std::process::Command;

mod sharded;
mod times;
use sharded::{holi, merged, root, strings, whole};
use times::timeless;

#[test]
fn merged_shards_are_the_whole_run_in_every_format() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    for format in ["text", "json", "sarif"] {
        // The examples' folder: eighteen libraries and a folder of clients, skipped.
        let args = ["check", "examples", "--jobs", "1", "--format", format];
        let (expected, code) = whole(&args);
        assert_eq!(code, Some(1), "the examples include unsafe libraries");
        for n in [1, 2, 5, 40] {
            let (found, merged_code) = merged(&args, n, dir.path());
            assert_eq!(merged_code, code, "{format}, {n} shards");
            assert_eq!(
                timeless(&found),
                timeless(&expected),
                "{format}, {n} shards"
            );
        }
    }
}

#[test]
fn a_merged_page_and_a_multi_file_run_are_the_whole_one() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let page = |name: &str| dir.path().join(name).display().to_string();
    let (whole_page, merged_page) = (page("whole.html"), page("merged.html"));
    let files = [
        "benchmark/libraries/event_bus_fixed.holi",
        "examples/dao.holi",
        "examples/lock_fixed.holi",
    ];
    let mut args = vec!["check"];
    args.extend(files);
    args.extend(["--jobs", "1", "--report"]);
    let mut whole_args = args.clone();
    whole_args.push(&whole_page);
    let (expected, code) = whole(&whole_args);
    // The shards write the page's sections into their parts; the merge writes the page.
    let mut sharded = args.clone();
    sharded.push(&merged_page);
    let (found, merged_code) = merged(&sharded, 2, dir.path());
    assert_eq!((timeless(&found), merged_code), (timeless(&expected), code));
    let read = |p: &str| std::fs::read_to_string(p).expect("the page is written");
    assert_eq!(timeless(&read(&merged_page)), timeless(&read(&whole_page)));
    assert!(read(&merged_page).contains("event_bus_fixed"));
}

#[test]
fn a_missing_duplicated_or_foreign_part_is_an_error_naming_it() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let part = |i: usize, n: usize, extra: &[&str]| {
        let path = dir.path().join(format!("p{i}-{n}-{}.json", extra.len()));
        let mut args = strings(&["check", "examples/dao.holi", "examples/lock.holi"]);
        args.extend(strings(extra));
        args.extend(strings(&["--shard", &format!("{i}/{n}"), "--part"]));
        args.push(path.display().to_string());
        let out = holi(&args, &[]);
        assert_eq!(out.status.code(), Some(0));
        path.display().to_string()
    };
    let merge = |parts: &[&String]| {
        let mut args = strings(&["merge"]);
        args.extend(parts.iter().map(|p| p.to_string()));
        let out = holi(&args, &[]);
        assert_eq!(out.status.code(), Some(2));
        assert!(out.stdout.is_empty(), "no partial report");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let (one, two) = (part(1, 2, &[]), part(2, 2, &[]));
    let missing = merge(&[&one]);
    assert!(missing.contains("shard 2 of 2 is missing"), "{missing}");
    let twice = merge(&[&one, &two, &one]);
    assert!(twice.contains("shard 1 of 2 is given twice"), "{twice}");
    let other = part(2, 2, &["--k", "2"]);
    let foreign = merge(&[&one, &other]);
    assert!(
        foreign.contains(&format!("{other}: a part of another run")),
        "{foreign}"
    );
    assert!(foreign.contains("--k 2"), "{foreign}");
    let three = part(3, 3, &[]);
    let cut = merge(&[&one, &three]);
    assert!(cut.contains("cut into 3 shards"), "{cut}");
    let garbage = dir.path().join("garbage.json");
    std::fs::write(&garbage, "{\"holi_part\": 1}").expect("written");
    let garbage = garbage.display().to_string();
    let unreadable = merge(&[&one, &garbage]);
    assert!(
        unreadable.contains(&format!("{garbage}: not a holi part")),
        "{unreadable}"
    );
}

#[test]
fn a_scheduler_gives_the_shard() {
    let args = strings(&[
        "check",
        "examples/dao.holi",
        "examples/lock.holi",
        "--shard",
        "auto",
    ]);
    let index = |env: &[(&str, &str)]| {
        let out = holi(&args, env);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let part: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a part");
        (
            part["shard"]["index"].as_u64(),
            part["shard"]["count"].as_u64(),
        )
    };
    let slurm = [
        ("SLURM_ARRAY_TASK_ID", "1"),
        ("SLURM_ARRAY_TASK_MIN", "1"),
        ("SLURM_ARRAY_TASK_COUNT", "2"),
    ];
    assert_eq!(index(&slurm), (Some(1), Some(2)));
    let kubernetes = [("JOB_COMPLETION_INDEX", "1"), ("HOLI_SHARD_COUNT", "2")];
    assert_eq!(index(&kubernetes), (Some(2), Some(2)));
    let out = holi(&args, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("SLURM_ARRAY_TASK_ID"));
    let stdin = holi(&strings(&["check", "-", "--shard", "1/2"]), &[]);
    assert_eq!(stdin.status.code(), Some(2));
}

#[test]
fn the_shipped_scheduler_files_use_the_shards_as_documented() {
    for script in ["holi-shards.sbatch", "holik-grid.sbatch"] {
        let path = root().join("benchmark/slurm").join(script);
        let text = std::fs::read_to_string(&path).expect("the script is there");
        assert!(text.contains("--shard auto --part"), "{script}");
        let syntax = Command::new("sh")
            .arg("-n")
            .arg(&path)
            .output()
            .expect("sh runs");
        assert!(
            syntax.status.success(),
            "{script}: {}",
            String::from_utf8_lossy(&syntax.stderr)
        );
    }
    let manifest =
        std::fs::read_to_string(root().join("benchmark/kubernetes/holi-shards-job.yaml"))
            .expect("the manifest is there");
    let value = |key: &str| {
        (manifest.lines())
            .find_map(|l| l.trim().strip_prefix(key))
            .map(|v| v.trim().trim_matches('"').to_string())
    };
    assert_eq!(value("completionMode:").as_deref(), Some("Indexed"));
    let completions = value("completions:").expect("completions");
    // The count `--shard auto` reads is the Job's own.
    let count = (manifest.lines())
        .skip_while(|l| !l.contains("HOLI_SHARD_COUNT"))
        .find_map(|l| l.trim().strip_prefix("value:"))
        .map(|v| v.trim().trim_matches('"').to_string());
    assert_eq!(count, Some(completions));
    assert!(manifest.contains("--shard auto --part"));
}
