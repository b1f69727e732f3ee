//! Helpers shared by the integration tests: the `holi` binary and running holi-bench.

use std::path::{Path, PathBuf};
use std::process::Command;

/// `target/<profile>/holi`, built if needed: by the build `cargo test --workspace`
/// makes (tests and binaries of every member, so dev-dependencies' features included),
/// which within that run is a no-op. `cargo build -p holi` alone resolves features
/// apart from it and compiled holi a second time.
pub fn holi_binary() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    // target/<profile>/deps/smoke-<hash>
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("test executable lives in target/<profile>/deps");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut build = Command::new(cargo);
    build.args(["build", "--quiet", "--workspace", "--tests", "--bins"]);
    if profile_dir
        .file_name()
        .is_some_and(|name| name == "release")
    {
        build.arg("--release");
    }
    let status = build.status().expect("run cargo build");
    assert!(
        status.success(),
        "cargo build --workspace --tests --bins failed"
    );
    let holi = profile_dir.join("holi");
    assert!(holi.is_file(), "{} was not built", holi.display());
    holi
}

pub fn bench(args: &[&str]) -> String {
    let (success, stdout, stderr) = bench_status(args);
    assert!(success, "holi-bench {args:?} failed:\n{stdout}\n{stderr}");
    stdout
}

/// Runs holi-bench: whether it succeeded, its stdout and its stderr.
pub fn bench_status(args: &[&str]) -> (bool, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_holi-bench"))
        .args(args)
        .output()
        .expect("run holi-bench");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}
