//! `holi check` with replay: text and JSON mark confirmed counterexamples, `--client DIR`
//! writes clients that `holi run` reproduces, `--no-replay` skips the step.

use std::process::{Command, Output};

fn holi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_holi"))
        .args(args)
        .output()
        .expect("holi runs")
}

fn example(name: &str) -> String {
    format!("{}/examples/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn text_output_marks_replayed_counterexamples_and_shows_the_client() {
    let o = holi(&["check", &example("dao.holi")]);
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("confirmed by replay"), "{out}");
    assert!(out.contains("main = {"), "{out}");
}

#[test]
fn written_clients_are_in_the_json_and_run_to_the_same_failure() {
    let dir = tempfile::tempdir().unwrap();
    let dir_text = dir.path().display().to_string();
    let o = holi(&[
        "check",
        &example("dao.holi"),
        "--format",
        "json",
        "--client",
        &dir_text,
    ]);
    assert_eq!(o.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json output");
    let cx = &json["counterexamples"][0];
    assert_eq!(cx["replayed"], serde_json::Value::Bool(true), "{json}");
    let path = cx["client"].as_str().expect("client path");
    assert!(path.ends_with("dao-1.holi"), "{path}");
    let run = holi(&["run", &example("dao.holi"), path, "--trace"]);
    assert_eq!(
        run.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let moves = String::from_utf8_lossy(&run.stdout).lines().count();
    assert_eq!(moves as u64, cx["moves"].as_u64().unwrap());
}

#[test]
fn no_replay_skips_the_step() {
    let o = holi(&[
        "check",
        &example("dao.holi"),
        "--format",
        "json",
        "--no-replay",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json output");
    let cx = &json["counterexamples"][0];
    assert!(cx.get("replayed").is_none(), "{json}");
    assert!(cx.get("client").is_none(), "{json}");
}

#[test]
fn a_safe_library_has_nothing_to_replay() {
    let o = holi(&["check", &example("dao_fixed.holi")]);
    assert_eq!(o.status.code(), Some(0));
    // The header names the file, whose path may contain "replay" itself.
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        !out.contains("by replay") && !out.contains("client:"),
        "{out}"
    );
}
