//! The VS Code extension (`editors/vscode/`) holds together: its manifest names a
//! grammar and a language configuration that exist and parse, with the grammar's
//! scope; every setting it contributes is one the server reads (`lang/editors.md`);
//! the commands it registers are the ones it contributes; the server commands it calls
//! are ones `holi lsp` serves; and its script is valid JavaScript (checked by `node`
//! where there is one).

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn extension() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("editors/vscode")
}

fn json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn script() -> String {
    std::fs::read_to_string(extension().join("extension.js")).expect("extension.js")
}

/// The quoted names after each `prefix` in `text`, past white space:
/// `registerCommand("a"` gives `a`.
fn quoted_after<'t>(text: &'t str, prefix: &str) -> Vec<&'t str> {
    text.match_indices(prefix)
        .filter_map(|(i, _)| {
            let rest = text[i + prefix.len()..].trim_start().strip_prefix('"')?;
            rest.split('"').next()
        })
        .collect()
}

#[test]
fn the_manifest_names_files_that_exist_with_the_grammars_scope() {
    let manifest = json(&extension().join("package.json"));
    let contributes = &manifest["contributes"];
    let language = &contributes["languages"][0];
    assert_eq!(language["id"], "holi");
    assert_eq!(language["extensions"], serde_json::json!([".holi"]));
    let configuration = language["configuration"].as_str().expect("a configuration");
    let configuration = json(&extension().join(configuration));
    assert_eq!(configuration["comments"]["lineComment"], "//");
    let grammar = &contributes["grammars"][0];
    let path = grammar["path"].as_str().expect("a grammar");
    let tm = json(&extension().join(path));
    assert_eq!(tm["scopeName"], grammar["scopeName"]);
    assert_eq!(manifest["main"], "./extension.js");
    assert!(manifest["dependencies"]["vscode-languageclient"].is_string());
}

#[test]
fn every_setting_is_one_the_server_reads_and_the_commands_agree() {
    let manifest = json(&extension().join("package.json"));
    let properties = manifest["contributes"]["configuration"]["properties"]
        .as_object()
        .expect("settings")
        .clone();
    let editors =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("lang/editors.md"))
            .expect("lang/editors.md");
    let script = script();
    for name in properties.keys() {
        let name = name.strip_prefix("holi.").expect("settings are holi's");
        if name == "path" {
            // The extension's own: which binary runs the server.
            continue;
        }
        assert!(
            editors.contains(&format!("`{name}`")),
            "{name} is documented"
        );
        assert!(
            script.contains(&format!("\"{name}\"")),
            "{name} is sent to the server"
        );
    }
    let contributed: Vec<&str> = (manifest["contributes"]["commands"].as_array())
        .expect("commands")
        .iter()
        .filter_map(|c| c["command"].as_str())
        .collect();
    let registered = quoted_after(&script, "registerCommand(");
    for command in &contributed {
        assert!(registered.contains(command), "{command} is registered");
    }
    let called = quoted_after(&script, "executeCommand(");
    assert_eq!(called.len(), 3, "{called:?}");
    for command in called {
        assert!(
            holi::lsp::COMMANDS.contains(&command),
            "{command} is a command holi lsp serves"
        );
    }
}

#[test]
fn the_script_is_valid_javascript() {
    match Command::new("node")
        .arg("--check")
        .arg(extension().join("extension.js"))
        .output()
    {
        Ok(out) => assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(_) => eprintln!("skipped: no node on this machine"),
    }
}
