//! Every file in `tests/malformed/` is rejected by `holi parse` with exit code 2 and a located
//! diagnostic; the rendered diagnostics are snapshots (`tests/snapshots/`).

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
        assert!(stderr.contains("] Error: "), "{name}: no error\n{stderr}");
        // ariadne's header `╭─[ file:line:column ]` locates the first label.
        let located = format!("╭─[ {path}:");
        assert!(stderr.contains(&located), "{name}: not located\n{stderr}");
        insta::assert_snapshot!(name.trim_end_matches(".holi"), stderr);
    }
}
