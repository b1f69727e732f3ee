//! Every file in `tests/malformed/` is rejected by `holi parse` with exit code 2 and a located
//! diagnostic, and every file in `tests/warnings/` loads with warnings; the rendered
//! diagnostics are snapshots (`tests/snapshots/`).

use std::path::Path;
use std::process::Command;

#[test]
fn malformed_inputs_give_exit_code_2_and_located_diagnostics() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<String> = std::fs::read_dir(root.join("tests/malformed"))
        .expect("tests/malformed exists")
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| name.ends_with(".holi"))
        .collect();
    files.sort();
    assert!(files.len() >= 20, "only {} malformed inputs", files.len());
    for name in files {
        let path = format!("tests/malformed/{name}");
        let output = Command::new(env!("CARGO_BIN_EXE_holi"))
            .args(["parse", &path])
            .current_dir(root)
            .output()
            .expect("holi runs");
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert_eq!(output.status.code(), Some(2), "{name}:\n{stderr}");
        assert!(output.stdout.is_empty(), "{name}");
        assert!(stderr.starts_with("error["), "{name}: no error\n{stderr}");
        // The excerpt's top line `╭─[ file:line:column ]` locates the first label.
        let located = format!("╭─[ {path}:");
        assert!(stderr.contains(&located), "{name}: not located\n{stderr}");
        insta::assert_snapshot!(name.trim_end_matches(".holi"), stderr);
    }
}

/// Every file in `tests/warnings/` loads with warnings only: exit 0, and exit 2 under
/// `--strict`, where the same reports become errors.
#[test]
fn warnings_are_reported_and_escalated_by_strict() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<String> = std::fs::read_dir(root.join("tests/warnings"))
        .expect("tests/warnings exists")
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| name.ends_with(".holi"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for name in files {
        let path = format!("tests/warnings/{name}");
        let run = |strict: bool| {
            let mut args = vec!["parse"];
            if strict {
                args.push("--strict");
            }
            args.push(&path);
            let output = Command::new(env!("CARGO_BIN_EXE_holi"))
                .args(&args)
                .current_dir(root)
                .output()
                .expect("holi runs");
            (
                output.status.code(),
                String::from_utf8_lossy(&output.stderr).into_owned(),
            )
        };
        let (code, stderr) = run(false);
        assert_eq!(code, Some(0), "{name}:\n{stderr}");
        assert!(
            stderr.starts_with("warning[") && !stderr.contains("error["),
            "{name}"
        );
        let (strict_code, strict_stderr) = run(true);
        assert_eq!(strict_code, Some(2), "{name}:\n{strict_stderr}");
        assert_eq!(
            strict_stderr,
            stderr.replace("warning[", "error["),
            "{name}"
        );
        insta::assert_snapshot!(
            format!("warning_{}", name.trim_end_matches(".holi")),
            stderr
        );
    }
}
