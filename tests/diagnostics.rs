//! Diagnostic codes and their documentation: every code holi's source can emit is
//! documented in `lang/diagnostics.md` and explained by `holi explain`, every documented
//! code is still in use, and each documented example really produces its code.

use holi::cli::explain::{entries, is_code, Entry};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn holi(args: &[&str], dir: &Path) -> (Option<i32>, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_holi"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("holi runs");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a readable source directory") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every string literal of the form `"XNNNN"` in `src/`: the diagnostic codes.
fn codes_in_source() -> BTreeSet<String> {
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    let mut codes = BTreeSet::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("UTF-8 source");
        for (i, _) in text.match_indices('"') {
            if let Some(word) = text.get(i + 1..i + 6) {
                if is_code(word) && text[i + 6..].starts_with('"') {
                    codes.insert(word.to_string());
                }
            }
        }
    }
    codes
}

#[test]
fn every_code_in_the_source_is_documented_and_explained() {
    let used = codes_in_source();
    assert!(used.len() >= 40, "the scan found only {used:?}");
    let documented: BTreeSet<String> = entries().iter().map(|e| e.code.to_string()).collect();
    let undocumented: Vec<&String> = used.difference(&documented).collect();
    assert!(
        undocumented.is_empty(),
        "not in lang/diagnostics.md: {undocumented:?}"
    );
    let unused: Vec<&String> = documented.difference(&used).collect();
    assert!(unused.is_empty(), "documented but not in src/: {unused:?}");
    for code in &used {
        let (status, stdout, stderr) = holi(&["explain", code], root());
        assert_eq!(status, Some(0), "{code}: {stderr}");
        assert!(stdout.starts_with(&format!("{code}: ")), "{code}: {stdout}");
        assert!(stdout.contains("Fix: "), "{code} has no fix:\n{stdout}");
    }
}

#[test]
fn explain_ignores_case_lists_codes_and_rejects_unknown_ones() {
    let (status, lower, _) = holi(&["explain", "e0101"], root());
    assert_eq!(status, Some(0));
    let (_, upper, _) = holi(&["explain", "E0101"], root());
    assert_eq!(lower, upper);
    assert!(lower.starts_with("E0101: a syntax error\n"), "{lower}");
    assert!(!lower.contains("E0201:"), "{lower}");

    let (status, list, _) = holi(&["explain"], root());
    assert_eq!(status, Some(0));
    assert!(list.contains("E0101  a syntax error\n"), "{list}");
    assert!(list.contains("C0001  "), "{list}");

    for unknown in ["E9999", "nonsense"] {
        let (status, stdout, stderr) = holi(&["explain", unknown], root());
        assert_eq!(status, Some(2), "{unknown}");
        assert!(stdout.is_empty());
        assert!(
            stderr.starts_with(&format!("error: `{unknown}` is not a holi diagnostic code")),
            "{stderr}"
        );
        assert!(
            stderr.contains("`holi explain` with no code lists them all"),
            "{stderr}"
        );
    }
}

/// The code blocks of an entry: (is it HOLi source, its text).
fn blocks(text: &str) -> Vec<(bool, String)> {
    let mut blocks = Vec::new();
    let mut current: Option<(bool, String)> = None;
    for line in text.lines() {
        if let Some(tag) = line.strip_prefix("```") {
            match current.take() {
                Some(block) => blocks.push(block),
                // Hobbit's files (`holi equiv FILE.bils`) are examples' sources too.
                None => current = Some((tag == "holi" || tag == "bils", String::new())),
            }
        } else if let Some((_, body)) = &mut current {
            body.push_str(line);
            body.push('\n');
        }
    }
    blocks
}

/// The command an entry's example is checked with: the entry's own `holi …` line if it
/// has one, else the usual command for its stage, on `example.holi`.
fn command(entry: &Entry, shell: Option<&str>) -> Vec<String> {
    if let Some(line) = shell {
        return line.split_whitespace().skip(1).map(String::from).collect();
    }
    let default = match &entry.code[..3] {
        "E04" => "check example.holi",
        "E07" => "run lib.holi example.holi",
        "E08" => "run example.holi",
        _ if entry.code.starts_with('C') => "check example.holi",
        _ => "parse example.holi",
    };
    default.split(' ').map(String::from).collect()
}

#[test]
fn every_documented_example_produces_its_code() {
    let document = std::fs::read_to_string(root().join("lang/diagnostics.md")).expect("the docs");
    let library = document
        .split_once("The examples below link this library")
        .and_then(|(_, rest)| blocks(rest).into_iter().find(|(holi, _)| *holi))
        .expect("the linking section's library")
        .1;
    let mut checked = 0;
    for entry in entries() {
        let blocks = blocks(entry.text);
        let source = blocks.iter().find(|(holi, _)| *holi).map(|(_, s)| s);
        let shell = blocks
            .iter()
            .find(|(holi, text)| !holi && text.starts_with("holi "))
            .map(|(_, s)| s.trim());
        if source.is_none() && shell.is_none() {
            continue;
        }
        let dir = tempfile::tempdir().expect("a temporary directory");
        std::fs::write(dir.path().join("lib.holi"), &library).expect("writable");
        let args = command(&entry, shell);
        if let Some(source) = source {
            // The example is the command's first file other than the shared library.
            let name = args
                .iter()
                .find(|a| (a.ends_with(".holi") || a.ends_with(".bils")) && *a != "lib.holi")
                .expect("a file for the example");
            std::fs::write(dir.path().join(name), source).expect("writable");
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (_, stdout, stderr) = holi(&args, dir.path());
        let tag = format!("[{}]: ", entry.code);
        assert!(
            stdout.contains(&tag) || stderr.contains(&tag),
            "{}: `holi {}` gave\n{stdout}{stderr}",
            entry.code,
            args.join(" ")
        );
        checked += 1;
    }
    assert!(checked >= 35, "only {checked} examples checked");
}

/// Line and column agree with an editor's: lines end at `\n` only, and the end of a file
/// after its final newline is the start of the next line.
#[test]
fn locations_are_the_editors() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (name, separator) in [
        ("cr", "\r"),
        ("vt", "\x0B"),
        ("ff", "\x0C"),
        ("ls", "\u{2028}"),
    ] {
        let file = format!("{name}.holi");
        let text =
            format!("public m (x:int) :(int) = {{ x }}; // a{separator}b\npublic n (x:int) :(int) = {{ x; }};\n");
        std::fs::write(dir.path().join(&file), text).expect("writable");
        let (status, _, stderr) = holi(&["parse", &file], dir.path());
        assert_eq!(status, Some(2), "{name}: {stderr}");
        assert!(
            stderr.contains(&format!("{file}:2:32 ]")),
            "{name}:\n{stderr}"
        );
        assert!(stderr.contains(" 2 │ public n"), "{name}:\n{stderr}");
    }
    std::fs::write(
        dir.path().join("eof.holi"),
        "public m (x:int) :(int) = { x\n",
    )
    .expect("writable");
    let (_, _, stderr) = holi(&["parse", "eof.holi"], dir.path());
    assert!(stderr.contains("eof.holi:2:1 ]"), "{stderr}");
}

/// Diagnostics written to a pipe or file (as in these tests) are plain text.
#[test]
fn no_colour_outside_a_terminal() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(
        dir.path().join("w.holi"),
        "public m (x:int) :(int) = { x - 1 + x; () };\npublic m (x:int) :(int) = { x };\n",
    )
    .expect("writable");
    let (_, _, stderr) = holi(&["parse", "w.holi"], dir.path());
    assert!(stderr.contains("error[E0301]"), "{stderr}");
    assert!(!stderr.contains('\x1b'), "{stderr:?}");
}
