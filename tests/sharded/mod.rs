//! Running holi for the shard tests: a command, a run cut into shards and merged, and
//! the run without shards.

use std::path::Path;
use std::process::{Command, Output};

pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

pub fn holi(args: &[String], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_holi"));
    command.args(args).current_dir(root());
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().expect("holi runs")
}

pub fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

/// The merged report of `args` cut into `n` shards, with its exit code, and the page
/// it merged when `page` names one.
pub fn merged(args: &[&str], n: usize, dir: &Path) -> (String, Option<i32>) {
    let mut parts = Vec::new();
    for i in 1..=n {
        let part = dir.join(format!("part-{i}.json"));
        let mut sharded = strings(args);
        sharded.extend(strings(&["--shard", &format!("{i}/{n}"), "--part"]));
        sharded.push(part.display().to_string());
        let out = holi(&sharded, &[]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        parts.push(part.display().to_string());
    }
    // In another order than written: the merge puts the cells in place.
    parts.reverse();
    let mut merge = strings(&["merge"]);
    merge.extend(parts);
    let out = holi(&merge, &[]);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code(),
    )
}

pub fn whole(args: &[&str]) -> (String, Option<i32>) {
    let out = holi(&strings(args), &[]);
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code(),
    )
}
