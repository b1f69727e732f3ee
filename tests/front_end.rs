//! The front end against the benchmark corpus, the CLI, deep nesting and the client form.

use holi::diagnostics::Diagnostic;
use holi::frontend::{load, load_str, with_large_stack};
use holi::syntax::parser::{parse_source, MAX_NESTING};
use holi::syntax::printer::print_program;
use std::process::Command;

mod corpus;

fn codes(diagnostics: &[Diagnostic]) -> Vec<&'static str> {
    diagnostics.iter().map(|d| d.code).collect()
}

#[test]
fn every_benchmark_library_loads_with_at_most_warnings() {
    let Some(files) = corpus::benchmark("the corpus test") else {
        return;
    };
    assert_eq!(files.len(), 70);
    for file in &files {
        match load(file, false) {
            Ok(loaded) => assert!(loaded.warnings.iter().all(|d| !d.is_error())),
            Err(rejected) => panic!("{}:\n{}", file.display(), rejected.render(false)),
        }
    }
}

#[test]
fn benchmark_slips_are_reported_as_the_notes_describe() {
    let Some(files) = corpus::benchmark("the corpus test") else {
        return;
    };
    let warnings = |name: &str| -> Vec<Diagnostic> {
        let file = files
            .iter()
            .find(|f| f.ends_with(name))
            .expect("a corpus file");
        load(file, false).map(|l| l.warnings).unwrap_or_default()
    };
    // `reserve` calls the undeclared `send_confirmation`; `main7`/`main13` call `run`.
    let mains = warnings("various_mains.holi");
    let stuck: Vec<&str> = mains
        .iter()
        .filter(|d| d.code == "W0202")
        .map(|d| d.title.as_str())
        .collect();
    assert_eq!(
        stuck,
        vec![
            "`run` is not declared",
            "`run` is not declared",
            "`send_confirmation` is not declared"
        ]
    );
    // `fun list := empty;` without an `empty` method.
    assert!(codes(&warnings("small_various_1.holi")).contains(&"W0205"));
    // The `lock_e`-style lambdas declared `:(unit)` return integers.
    assert!(codes(&warnings("awkward_2-mo.holi")).contains(&"W0201"));
    // Clean files have nothing to say.
    assert!(warnings("file_lock.holi").is_empty());
    // Under --strict a warning rejects the file.
    let file = files.iter().find(|f| f.ends_with("various_mains.holi"));
    assert!(load(file.expect("a corpus file"), true).is_err());
}

#[test]
fn corpus_round_trips_through_the_printer() {
    let Some(files) = corpus::benchmark("the corpus test") else {
        return;
    };
    for file in &files {
        let source = std::fs::read_to_string(file).expect("readable corpus file");
        let name = file.display().to_string();
        let (program, _) = parse_source(&name, &source);
        let program = program.expect("corpus files parse");
        let printed = print_program(&program);
        let (again, diagnostics) = parse_source("printed", &printed);
        assert!(diagnostics.is_empty(), "{name}: {diagnostics:?}\n{printed}");
        let again = again.expect("printed text parses");
        assert!(program.same_tree(&again), "{name}:\n{printed}");
        assert_eq!(
            print_program(&again),
            printed,
            "{name}: printing is not a fixpoint"
        );
    }
}

fn holi(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_holi"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("holi runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn temp_file(text: &str) -> tempfile::NamedTempFile {
    let file = tempfile::Builder::new()
        .suffix(".holi")
        .tempfile()
        .expect("a temporary file");
    std::fs::write(file.path(), text).expect("writable temporary file");
    file
}

#[test]
fn parse_exit_codes_follow_the_severity() {
    let clean = temp_file("int r := 0;\npublic m (x:int) :(unit) = { r := x };\n");
    let warned = temp_file("public m (x:int) :(unit) = { x };\n");
    let broken = temp_file("public m (x:int) :(unit) = { x; };\n");
    let clean = clean.path().to_str().expect("utf-8 path");
    let warned = warned.path().to_str().expect("utf-8 path");
    let broken = broken.path().to_str().expect("utf-8 path");

    assert_eq!(holi(&["parse", clean]), (0, String::new(), String::new()));
    let (code, _, stderr) = holi(&["parse", warned]);
    assert_eq!(code, 0);
    assert!(stderr.contains("warning[W0201]: Type mismatch"), "{stderr}");
    let (code, _, stderr) = holi(&["parse", "--strict", warned]);
    assert_eq!(code, 2);
    assert!(stderr.contains("error[W0201]: Type mismatch"), "{stderr}");
    let (code, _, stderr) = holi(&["parse", clean, broken]);
    assert_eq!(code, 2);
    assert!(stderr.contains("error[E0101]"), "{stderr}");
    let (code, _, stderr) = holi(&["parse", "no/such/file.holi"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("I can't read `no/such/file.holi`"),
        "{stderr}"
    );
}

#[test]
fn fmt_prints_canonical_text_and_checks_it() {
    let messy = temp_file(
        "# set-bounds 2 1 #\nimport send :(int->unit)\nint bal:=10; // money\n\
         public withdraw(m:int):(unit)={if (!bal >= m) then (send(m); bal := (!bal) - m) else ()};",
    );
    let (code, stdout, stderr) = holi(&["fmt", messy.path().to_str().expect("utf-8 path")]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert_eq!(
        stdout,
        "# set-bounds 2 1 #\n\nimport send :(int -> unit)\n\nint bal := 10; // money\n\n\
         public withdraw (m:int) :(unit) = {\n  if !bal >= m then\n    send m;\n    bal := !bal - m\n  \
         else\n    ()\n};\n"
    );
    assert_canonical(&stdout);
    assert_eq!(
        holi(&["fmt", "--check", messy.path().to_str().expect("utf-8 path")]).0,
        1
    );
    let broken = temp_file("public m (x:int) :(int) = { x + };");
    let (code, stdout, _) = holi(&["fmt", broken.path().to_str().expect("utf-8 path")]);
    assert_eq!((code, stdout.as_str()), (2, ""));
}

#[test]
fn fmt_checks_and_writes_several_files() {
    let canonical_text = "int r := 0; // kept\n";
    let canonical = temp_file(canonical_text);
    let messy = temp_file("int  r:=0;   // kept\n");
    let other = temp_file("/* also kept */ int r:=1;");
    let paths: Vec<&str> = [&canonical, &messy, &other]
        .iter()
        .map(|f| f.path().to_str().expect("utf-8 path"))
        .collect();
    let (code, stdout, stderr) = holi(&["fmt", "--check", paths[0], paths[1], paths[2]]);
    assert_eq!((code, stdout.as_str()), (1, ""));
    assert!(!stderr.contains(paths[0]), "{stderr}");
    for path in &paths[1..] {
        assert!(
            stderr.contains(&format!("{path} is not in canonical form")),
            "{stderr}"
        );
    }
    let modified = |f: &tempfile::NamedTempFile| {
        std::fs::metadata(f.path())
            .and_then(|m| m.modified())
            .expect("a modification time")
    };
    let before = modified(&canonical);
    let (code, stdout, stderr) = holi(&["fmt", "--write", paths[0], paths[1], paths[2]]);
    assert_eq!((code, stdout.as_str(), stderr.as_str()), (0, "", ""));
    let read = |f: &tempfile::NamedTempFile| std::fs::read_to_string(f.path()).expect("readable");
    assert_eq!(read(&messy), canonical_text);
    assert_eq!(read(&other), "/* also kept */\nint r := 1;\n");
    // A file already in canonical form is not rewritten.
    assert_eq!(modified(&canonical), before);
    assert_eq!(holi(&["fmt", "--check", paths[0], paths[1], paths[2]]).0, 0);
    // Several files print one after the other; a broken one is exit 2, the rest printed.
    let broken = temp_file("int r := ;");
    let (code, stdout, _) = holi(&[
        "fmt",
        paths[0],
        broken.path().to_str().expect("utf-8 path"),
        paths[2],
    ]);
    assert_eq!(code, 2);
    assert_eq!(
        stdout,
        format!("{canonical_text}/* also kept */\nint r := 1;\n")
    );
}

#[test]
fn the_bundled_examples_are_in_canonical_form() {
    let mut examples: Vec<String> = Vec::new();
    for dir in ["examples", "examples/clients"] {
        for entry in std::fs::read_dir(dir)
            .expect("the examples directory")
            .flatten()
        {
            let path = entry.path().display().to_string();
            if path.ends_with(".holi") {
                examples.push(path);
            }
        }
    }
    assert_eq!(examples.len(), 27, "{examples:?}");
    let mut args = vec!["fmt", "--check"];
    args.extend(examples.iter().map(String::as_str));
    let (code, _, stderr) = holi(&args);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn fmt_output_is_linear_in_deep_nesting() {
    let depth = MAX_NESTING - 10;
    let body = format!("{}x{}", "if x then ".repeat(depth), " else x".repeat(depth));
    let source = format!("public m (x:int) :(int) = {{ {body} }};\n");
    let file = temp_file(&source);
    let (code, stdout, stderr) = holi(&["fmt", file.path().to_str().expect("utf-8 path")]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.len() <= 20 * source.len(),
        "{} bytes of output for {} of input",
        stdout.len(),
        source.len()
    );
    assert_canonical(&stdout);
}

#[test]
fn long_flat_libraries_are_not_nesting() {
    let methods: String = (0..=MAX_NESTING)
        .map(|i| format!("public m{i} (x:int) :(int) = {{ x }};\n"))
        .collect();
    let references: String = (0..=MAX_NESTING / 2)
        .map(|i| format!("int r{i} := 0;\nfun f{i} := m;\n"))
        .chain(["public m (x:int) :(int) = { x };\n".to_string()])
        .collect();
    for source in [methods, references] {
        let outcome = with_large_stack(|| load_str("flat", &source, false).map(|_| ()));
        assert!(
            outcome.is_ok(),
            "{:?}",
            outcome.err().map(|r| codes(&r.diagnostics))
        );
    }
}

/// A method whose body nests `n` constructs of one kind.
fn nested(kind: &str, n: usize) -> String {
    let body = match kind {
        "parentheses" => format!("{}x{}", "(".repeat(n), ")".repeat(n)),
        "let" => format!("{}x", "let y = x in ".repeat(n)),
        "sequence" => format!("{}x", "x; ".repeat(n)),
        "not" => format!("{}x", "not ".repeat(n)),
        "application" => format!("{}x{}", "f (".repeat(n), ")".repeat(n)),
        "arguments" => format!("f{}", " x".repeat(n)),
        "if" => format!("{}x", "if x then x else ".repeat(n)),
        "ref" => format!("{}x", "ref ".repeat(n)),
        "load" => format!("{}(x)", "!".repeat(n)),
        _ => unreachable!("unknown kind {kind}"),
    };
    format!("private f (x:int) :(int) = {{ x }};\npublic m (x:int) :(int) = {{ {body} }};\n")
}

#[test]
fn deep_nesting_loads_or_is_refused_with_a_diagnostic() {
    let kinds = [
        "parentheses",
        "let",
        "sequence",
        "not",
        "application",
        "arguments",
        "if",
        "ref",
        "load",
    ];
    for kind in kinds {
        for n in [MAX_NESTING - 10, 10_000, 2 * MAX_NESTING] {
            let source = nested(kind, n);
            // The program is dropped inside: a deep tree needs the large stack for that too.
            let outcome = with_large_stack(|| match load_str("deep", &source, false) {
                Ok(loaded) => Ok(print_program(&loaded.program)),
                Err(rejected) => Err(codes(&rejected.diagnostics)),
            });
            match outcome {
                Ok(printed) => {
                    assert!(n <= MAX_NESTING, "{kind} {n} was accepted");
                    assert!(printed.contains("public m (x:int) :(int)"), "{kind} {n}");
                }
                Err(codes) => {
                    assert!(n > MAX_NESTING - 10, "{kind} {n}: {codes:?}");
                    assert!(codes.contains(&"E0005"), "{kind} {n}: {codes:?}");
                }
            }
        }
    }
}

#[test]
fn the_client_form_is_a_library_with_main() {
    let client = "import withdraw :(int -> unit)\n\
                  public send (x:int) :(unit) = { withdraw x };\n\
                  main = { withdraw 5; withdraw (0 - 1) };\n";
    let loaded = load_str("client", client, true).expect("a well-typed client");
    let main = loaded.program.main.as_ref().expect("main");
    assert_eq!(
        &client[main.span.clone()],
        "main = { withdraw 5; withdraw (0 - 1) };"
    );
    let printed = print_program(&loaded.program);
    assert!(
        printed.ends_with("main = {\n  withdraw 5;\n  withdraw (0 - 1)\n};\n"),
        "{printed}"
    );
    let (again, _) = parse_source("printed", &printed);
    assert!(again.is_some_and(|p| p.same_tree(&loaded.program)));

    // `main` is an ordinary name elsewhere, and main's body must be unit.
    let library = "public main (arg:int*int) :(int) = { let main = fst arg in main };";
    assert!(load_str("library", library, true).is_ok_and(|l| l.program.main.is_none()));
    let bad = load_str("client", "main = { 1 };", false).expect("only a warning");
    assert_eq!(codes(&bad.warnings), vec!["W0201"]);
}

#[test]
fn names_resolve_over_the_whole_file() {
    let source = "public a (x:int) :(int) = { b x + !r };\n\
                  private b (x:int) :(int) = { x };\n\
                  int r := 1;\nfun g := b;\n\
                  public c (u:unit) :(int) = { !g 1 };";
    let loaded = load_str("order", source, true).expect("declaration order is free");
    assert!(loaded.warnings.is_empty());
}

const REFERENCES: &str = "tests/data/references.holi";

/// The fixture using every form references add, before formatting.
const MESSY_REFERENCES: &str = "# set-bounds 2 2 #
// Every form references add to HOLi (lang/references.md §1): a front-end fixture.
import listener :(ref int -> unit)
import swap :((ref int * ref int) -> unit)
import cells :(ref (int -> int) -> ref ref int)

ref int lock:=ref 0;   // a global holding a cell
ref (int * (int -> int)) table := ref (-1, twice);
ref ref unit nested := ref ref ();

private twice (x:int) :(int) = { x * 2 };

public counter (u:unit) :(unit -> int) = {
  let c = ref 0 in fun (u:unit) :(int) -> (c := !c + 1; !c)
};

public move_all (p:ref int * ref int) :(unit) = {
  let src = fst p in let dst = snd p in
  if src == dst then () else (dst := !dst + !src; src := 0; swap (src, dst))
};

public writes (r:ref ref int) :(int) = {
  r := ref 1; !r := 2; (fst (r, 0)) := ref 3; !r := 4; (!fst (r, r)) := 5;
  (ref 0) := !!r; !lock := 1; lock := ref (!(!r));
  listener (!lock); (snd !!table) (fst !!table) + !(f ())
};

private f (u:unit) :(ref int) = { !(cells (ref twice)) };
";

#[test]
fn references_are_read_checked_and_formatted() {
    let canonical = std::fs::read_to_string(REFERENCES).expect("the fixture");
    assert_eq!(
        holi(&["parse", "--strict", REFERENCES]),
        (0, String::new(), String::new())
    );
    assert_eq!(holi(&["fmt", "--check", REFERENCES]).0, 0);
    let messy = temp_file(MESSY_REFERENCES);
    let (code, stdout, stderr) = holi(&["fmt", messy.path().to_str().expect("utf-8 path")]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert_eq!(stdout, canonical);
    let (program, _) = parse_source("messy", MESSY_REFERENCES);
    let program = program.expect("the fixture parses");
    let (again, diagnostics) = parse_source("printed", &print_program(&program));
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert!(again.is_some_and(|p| p.same_tree(&program)));
}

#[test]
fn run_runs_programs_with_references() {
    let runs = |args: &[&str], returned: &str| {
        let (code, stdout, stderr) = holi(args);
        assert_eq!(code, 0, "{args:?}: {stderr}");
        assert_eq!(
            stdout.trim_end(),
            format!("main returned {returned}"),
            "{args:?}"
        );
    };
    let client = temp_file(
        "main = { let c = ref 0 in let d = c in d := !c + 1; c := !d + 1; (!c, c == d) };\n",
    );
    runs(
        &["run", client.path().to_str().expect("utf-8 path")],
        "(2, 1)",
    );
    // A library without references, linked with a client that uses them.
    let library = temp_file("public m (x:int) :(int) = { x };\n");
    let linked = temp_file("import m :(int -> int)\nmain = { let c = ref (m 1) in !c + 1 };\n");
    let paths = [library.path(), linked.path()].map(|p| p.to_str().expect("utf-8 path"));
    runs(&["run", paths[0], paths[1]], "2");
}

#[test]
fn check_analyses_libraries_with_references() {
    let (code, stdout, stderr) = holi(&["check", REFERENCES, "examples/dao_fixed.holi", "-q"]);
    assert!(code == 0 || code == 1, "{stderr}");
    assert!(stdout.contains("references.holi: "), "{stdout}");
    assert!(stdout.contains("dao_fixed.holi: SAFE ("), "{stdout}");
}

/// `text` passes `holi fmt --check`.
fn assert_canonical(text: &str) {
    let canonical = temp_file(text);
    let path = canonical.path().to_str().expect("utf-8 path");
    assert_eq!(holi(&["fmt", "--check", path]).0, 0, "{text}");
}
