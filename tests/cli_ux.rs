//! The command line as people and tools use it: several inputs, colour, verbosity,
//! durations, completions, the manual page and the progress line in a real terminal.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn example(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
        .display()
        .to_string()
}

fn holi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_holi"))
        .args(args)
        .env_remove("NO_COLOR")
        .output()
        .expect("holi runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const ESC: &str = "\u{1b}[";

#[test]
fn several_files_get_one_line_each_and_a_summary() {
    let out = holi(&["check", &example("dao.holi"), &example("dao_fixed.holi")]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("Checked 2 files:"), "{stdout}");
    assert!(stdout.contains("UNSAFE        "), "{stdout}");
    assert!(stdout.contains("1 unsafe, 1 safe"), "{stdout}");
}

#[test]
fn a_directory_is_every_library_below_it_and_its_clients_are_skipped() {
    let examples = example("");
    let out = holi(&["check", &examples, "-q"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("dao.holi: UNSAFE"), "{stdout}");
    assert!(stdout.contains("dao_fixed.holi: SAFE ("), "{stdout}");
    assert!(
        stdout.ends_with("9 unsafe, 13 safe, 9 skipped\n"),
        "{stdout}"
    );
    let loud = holi(&["check", &examples]);
    assert!(
        text(&loud.stderr).contains("skipping"),
        "{}",
        text(&loud.stderr)
    );
    assert!(text(&loud.stdout).contains("Checked 31 files:"));
}

#[test]
fn standard_input_is_dash() {
    let source = std::fs::read(example("dao.holi")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_holi"))
        .args(["check", "-", "--k", "2", "--l", "1", "-q"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&source).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).starts_with("<stdin>: UNSAFE"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn parse_takes_directories_and_counts() {
    let out = holi(&["parse", &example("")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("Parsed 31 files: 31 well-formed"),
        "{}",
        text(&out.stdout)
    );
    let empty = tempfile::tempdir().unwrap();
    let out = holi(&["parse", empty.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("E0404"), "{}", text(&out.stderr));
}

#[test]
fn a_client_given_to_check_says_what_to_do_instead() {
    let out = holi(&["check", &example("clients/dao_attacker.holi")]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("E0403"), "{stderr}");
    assert!(
        stderr.contains("holi run LIBRARY.holi CLIENT.holi"),
        "{stderr}"
    );
}

#[test]
fn no_duration_panics() {
    let dao = example("dao.holi");
    for flag in ["--timeout", "--solver-timeout"] {
        for value in ["1e20", "1e300", "inf", "1e-9"] {
            let out = holi(&["check", &dao, "--k", "2", "--l", "1", flag, value, "-q"]);
            let code = out.status.code();
            assert!(
                matches!(code, Some(1 | 3)),
                "{flag} {value}: {code:?} {}",
                text(&out.stderr)
            );
        }
        for bad in ["0", "-1", "NaN", "soon"] {
            let out = holi(&["check", &dao, flag, bad]);
            assert_eq!(out.status.code(), Some(2), "{flag} {bad}");
        }
    }
}

#[test]
fn colour_only_when_asked_or_on_a_terminal() {
    let dao = example("dao.holi");
    let args = ["check", &dao, "--k", "2", "--l", "1"];
    // Not a terminal: no escapes by default.
    let plain = holi(&args);
    assert!(!text(&plain.stdout).contains(ESC));
    let never = holi(&[&args[..], &["--color", "never"]].concat());
    assert!(!text(&never.stdout).contains(ESC));
    let always = holi(&[&args[..], &["--color", "always"]].concat());
    assert!(
        text(&always.stdout).contains(ESC),
        "{}",
        text(&always.stdout)
    );
    // NO_COLOR only silences `auto`; an explicit `always` still colours.
    let no_color = Command::new(env!("CARGO_BIN_EXE_holi"))
        .args([&args[..], &["--color", "always"]].concat())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(text(&no_color.stdout).contains(ESC));
}

#[test]
fn quiet_prints_the_verdict_and_verbose_every_counter() {
    let dao = example("dao.holi");
    let quiet = holi(&["check", &dao, "--k", "3", "--l", "2", "-q"]);
    assert_eq!(
        text(&quiet.stdout),
        format!("{dao}: UNSAFE (2 failing traces, shortest 7 moves)\n")
    );
    let verbose = holi(&["check", &dao, "--k", "3", "--l", "2", "-v"]);
    let stdout = text(&verbose.stdout);
    assert!(stdout.contains("call withdraw(x1)"), "{stdout}");
    assert!(stdout.contains("paths at the frame limit k"), "{stdout}");
    assert!(
        stdout.contains("plan: shortest failure per site; memo on, semantic on"),
        "{stdout}"
    );
}

#[test]
fn completions_and_manual_page_come_from_the_command_definitions() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = holi(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}");
        assert!(text(&out.stdout).contains("solver-timeout"), "{shell}");
    }
    let man = holi(&["man"]);
    assert_eq!(man.status.code(), Some(0));
    let page = text(&man.stdout);
    assert!(page.starts_with(".ie"), "{page}");
    assert!(page.contains(".TH holi 1"), "{page}");
    assert!(page.contains("HOLI CHECK"), "{page}");
    assert!(page.contains("allow\\-stuck"), "{page}");
}

/// A library whose plain search runs for seconds.
const SLOW: &str = "import f :(int -> int)
int c := 0;
public inc (x:int) :(int) = { c := !c + x; f (!c) };
public get (y:int) :(unit) = { assert (!c < 1000 + y * y * y) };
";

#[test]
fn the_progress_line_shows_the_search_in_a_real_terminal() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("skipped: tmux is not installed (.ci/run installs it)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file: PathBuf = dir.path().join("slow.holi");
    std::fs::write(&file, SLOW).unwrap();
    let session = format!("holi-progress-{}", std::process::id());
    let command = format!(
        "{} check {} --k 6 --l 4 --no-memo --no-havoc --timeout 20; sleep 30",
        env!("CARGO_BIN_EXE_holi"),
        file.display()
    );
    let tmux = |args: &[&str]| Command::new("tmux").args(args).output().unwrap();
    let started = tmux(&[
        "new-session",
        "-d",
        "-s",
        &session,
        "-x",
        "160",
        "-y",
        "10",
        &command,
    ]);
    assert!(started.status.success(), "{}", text(&started.stderr));
    // The line appears after a second of search; look for it for up to 15 s.
    let mut screen = String::new();
    for _ in 0..60 {
        std::thread::sleep(std::time::Duration::from_millis(250));
        screen = text(&tmux(&["capture-pane", "-p", "-t", &session]).stdout);
        if screen.contains("failing trace") {
            break;
        }
    }
    tmux(&["kill-session", "-t", &session]);
    assert!(screen.contains(" configurations, depth "), "{screen}");
    assert!(screen.contains("/s, "), "{screen}");
    assert!(screen.contains("so far"), "{screen}");
}

/// `examples/dao.holi` with one typo: each makes the paths through it stuck.
fn dao_with(typo: (&str, &str)) -> (tempfile::TempDir, String) {
    let source = std::fs::read_to_string(example("dao.holi")).unwrap();
    assert!(source.contains(typo.0), "{source}");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dao_typo.holi");
    std::fs::write(&path, source.replacen(typo.0, typo.1, 1)).unwrap();
    let path = path.display().to_string();
    (dir, path)
}

const TYPOS: [(&str, &str); 3] = [
    ("send m", "sned m"),
    ("!balance - m", "!balanse - m"),
    ("!balance - m", "!balance -1"),
];

#[test]
fn a_typo_never_gives_a_clean_safe() {
    for typo in TYPOS {
        let (_dir, path) = dao_with(typo);
        let out = holi(&["check", &path]);
        assert_eq!(
            out.status.code(),
            Some(4),
            "{typo:?}: {}",
            text(&out.stderr)
        );
        let stdout = text(&out.stdout);
        assert!(
            stdout.contains("STUCK: no failing trace found"),
            "{typo:?}: {stdout}"
        );
        assert!(stdout.contains("stuck at "), "{typo:?}: {stdout}");
        assert!(!stdout.contains("SAFE within"), "{typo:?}: {stdout}");

        let json = holi(&["check", &path, "--format", "json"]);
        assert_eq!(json.status.code(), Some(4));
        let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
        assert_eq!(doc["verdict"], "stuck", "{typo:?}");
        assert!(doc["stuck"]["paths"].as_u64().unwrap_or(0) > 0, "{doc}");
        let place = &doc["stuck"]["places"][0];
        assert!(
            place["span"]["start"]["line"].as_u64().unwrap_or(0) > 0,
            "{doc}"
        );
        // The warning the front end gave is in the document too.
        assert!(!doc["warnings"].as_array().unwrap().is_empty(), "{doc}");
    }
}

#[test]
fn a_near_miss_name_gets_a_suggestion() {
    let (_dir, path) = dao_with(TYPOS[0]);
    let stderr = text(&holi(&["check", &path, "-q"]).stderr);
    assert!(stderr.is_empty(), "-q prints no warning: {stderr}");
    let stderr = text(&holi(&["check", &path]).stderr);
    assert!(stderr.contains("warning[W0202]"), "{stderr}");
    assert!(stderr.contains("Did you mean `send`?"), "{stderr}");
}

#[test]
fn allow_stuck_is_holiks_reading_with_the_places_still_listed() {
    let (_dir, path) = dao_with(TYPOS[0]);
    let out = holi(&["check", &path, "--allow-stuck"]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("SAFE within k = 3, l = 2"), "{stdout}");
    // Stuck paths are outside what a proof for every bound covers.
    assert!(
        stdout.contains("not proved for larger bounds: some paths may get stuck"),
        "{stdout}"
    );
    assert!(stdout.contains("stuck at "), "{stdout}");
}

/// `--all` finds failing traces faster than they can be rendered: at the deadline the
/// listing stops, and says so, instead of running on for as long as the search did.
#[test]
fn the_timeout_bounds_an_all_listing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.holi");
    std::fs::write(
        &path,
        "public a (x:int) :(unit) = { assert(not (x == 7)) };\n\
         public b (x:int) :(unit) = { () };\n\
         public c (x:int) :(unit) = { () };\n",
    )
    .unwrap();
    let path = path.to_str().unwrap();
    let bounds = ["--k", "1", "--l", "40", "--all", "--timeout", "2"];
    let out = holi(&[&["check", path][..], &bounds[..]].concat());
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    assert!(report.contains("(1 listed)"), "{report}");
    assert!(
        report.contains("more failing traces not listed"),
        "{report}"
    );
    let json = holi(&[&["check", path, "--format", "json"][..], &bounds[..]].concat());
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert!(doc["unlisted"].as_u64().unwrap() > 0, "{}", doc["unlisted"]);
    assert_eq!(
        doc["counterexamples"].as_array().unwrap().len() as u64 + doc["unlisted"].as_u64().unwrap(),
        doc["failing_traces"].as_u64().unwrap()
    );
}

#[test]
fn the_timeout_bounds_the_whole_command_replay_included() {
    // 12,000 failing methods: 12,000 counterexamples to synthesize clients for and replay.
    let library: String = (0..12_000)
        .map(|i| format!("public m{i} (x:int) :(unit) = {{ assert (x < {i}) }};\n"))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.holi");
    std::fs::write(&path, library).unwrap();
    let start = std::time::Instant::now();
    let out = holi(&[
        "check",
        path.to_str().unwrap(),
        "--k",
        "1",
        "--l",
        "1",
        "--timeout",
        "3",
        "--format",
        "json",
        "--no-clients",
    ]);
    // Not a speed goal: before, replay alone ran on for a minute past the limit.
    assert!(
        start.elapsed() < std::time::Duration::from_secs(30),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let replays: Vec<&str> = doc["counterexamples"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["replay"].as_str())
        .collect();
    assert!(!replays.is_empty());
    assert!(
        replays
            .iter()
            .all(|r| *r == "confirmed" || *r == "time-limit"),
        "{replays:?}"
    );
}

#[test]
fn a_closed_pipe_is_no_panic_and_keeps_the_verdict() {
    for format in ["text", "json", "sarif"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_holi"))
            .args(["check", &example("dao.holi"), "--all", "--format", format])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The reader goes away before holi writes: like `holi check … | head -c 0`.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(1),
            "{format}: {}",
            text(&out.stderr)
        );
        assert!(!text(&out.stderr).contains("panicked"), "{format}");
    }
}

/// A library function that recurses as deep as the proof checker's budget (256 calls
/// under `--prove`; a loop passing a function along is inlined, not summarised) gives a
/// reason, not a crash, on one thread and on two: the attempt beside the search runs
/// on a stack as large as the front end's.
#[test]
fn a_proof_through_deep_recursion_says_why_it_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("drain.holi");
    std::fs::write(
        &file,
        "int n := 0;\n\
         public drain (t:int) :(int) = {\n\
         \x20 letrec go (p:int * (unit -> unit)) :(int) =\n\
         \x20   if fst p < 1 then 0\n\
         \x20   else if !n < t then (n := !n + 1; 1 + go p)\n\
         \x20   else go (fst p - 1, snd p)\n\
         \x20 in go (3, (fun (u:unit) :(unit) -> ()))\n\
         };\n\
         public check (u:unit) :(unit) = { assert (0 <= !n) };\n",
    )
    .unwrap();
    let path = file.to_str().unwrap();
    for jobs in ["1", "2"] {
        let out = holi(&[
            "check", path, "--k", "2", "--l", "1", "--prove", "--jobs", jobs,
        ]);
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(3), "{stdout}{}", text(&out.stderr));
        assert!(
            stdout.contains(
                "not proved for larger bounds: recursion deeper than the checker's budget"
            ),
            "{stdout}"
        );
    }
}

/// A safe library is proved safe for every k and l when holi finds an invariant its
/// proof checker accepts; otherwise the verdict says it holds within the bounds, and
/// why no proof was found. `--prove` makes a missing proof exit 3; `--no-prove` skips it.
#[test]
fn safe_libraries_are_proved_for_every_bound_or_say_why_not() {
    let fixed = "examples/dao_fixed.holi";
    let out = holi(&["check", fixed]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("SAFE for every k and l (proved)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("invariant at every client turn: balance ≥ 0"),
        "{stdout}"
    );
    assert_eq!(holi(&["check", fixed, "--prove"]).status.code(), Some(0));
    let json: serde_json::Value =
        serde_json::from_slice(&holi(&["check", fixed, "--format", "json"]).stdout).unwrap();
    assert_eq!(json["scope"], "all-bounds");
    assert_eq!(json["certificate"]["invariant"][0], "balance ≥ 0");

    // A function reaching the client is checked like a method; the turn relation.
    let leaked = "examples/file_lock_fixed.holi";
    let stdout = text(&holi(&["check", leaked]).stdout);
    assert!(
        stdout.contains("SAFE for every k and l (proved)"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "reaching the client, checked like methods: examples/file_lock_fixed.holi:16:19"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("across every client turn (r′: r after it): while lock = 0, lock′ = lock"),
        "{stdout}"
    );
    // The certificate as SMT-LIB: one query per obligation.
    let dir = tempfile::tempdir().unwrap();
    let dir_arg = dir.path().to_str().unwrap();
    let out = holi(&[
        "check",
        leaked,
        "--format",
        "json",
        "--certificate",
        dir_arg,
    ]);
    assert_eq!(out.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let written = dir.path().join("file_lock_fixed.smt2");
    assert_eq!(json["certificate"]["smtlib"], written.to_str().unwrap());
    assert_eq!(
        json["certificate"]["revealed"].as_array().map(Vec::len),
        Some(1)
    );
    let smtlib = std::fs::read_to_string(&written).unwrap();
    assert_eq!(
        smtlib.matches("\n(check-sat)\n").count() as u64,
        json["certificate"]["obligations"].as_u64().unwrap()
    );

    // Cells, by allocation site, with whether the client may hold them.
    let account = "examples/account_fixed.holi";
    let stdout = text(&holi(&["check", account]).stdout);
    assert!(
        stdout.contains("invariant at every client turn: cell balance ≥ 0")
            && stdout.contains(
                "cells, by where they are made: cell balance (examples/account_fixed.holi:8:17): private"
            ),
        "{stdout}"
    );
    let json: serde_json::Value =
        serde_json::from_slice(&holi(&["check", account, "--format", "json"]).stdout).unwrap();
    assert_eq!(
        json["certificate"]["cells"][0],
        "cell balance (examples/account_fixed.holi:8:17): private"
    );

    // A global reference that holds a location is outside the argument.
    let unproved = dir.path().join("global_cell.holi");
    std::fs::write(
        &unproved,
        "ref int g := ref 0;\npublic set (x:int) :(unit) = { !g := x };\n",
    )
    .unwrap();
    let unproved = unproved.to_str().unwrap();
    let out = holi(&["check", unproved]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("(not proved for larger bounds: a reference holds a location)"),
        "{stdout}"
    );
    assert_eq!(holi(&["check", unproved, "--prove"]).status.code(), Some(3));
    let json: serde_json::Value =
        serde_json::from_slice(&holi(&["check", unproved, "--format", "json"]).stdout).unwrap();
    assert_eq!(json["scope"], "bounded");
    assert!(json.get("certificate").is_none());
    // Nothing is written for a library that is not proved.
    holi(&["check", unproved, "--certificate", dir_arg]);
    assert!(!dir.path().join("global_cell.smt2").exists());

    let skipped = text(&holi(&["check", fixed, "--no-prove"]).stdout);
    assert!(skipped.contains("not attempted (--no-prove)"), "{skipped}");
    // An unsafe library is never proved, nor said to be bounded-safe.
    let dao = text(&holi(&["check", "examples/dao.holi"]).stdout);
    assert!(
        !dao.contains("proved") && !dao.contains("SAFE within"),
        "{dao}"
    );
}

/// `holi … | head`: a reader that closes standard output early (here before holi
/// writes anything) is no error; holi neither panics nor changes its exit code.
#[test]
fn a_reader_that_goes_away_is_not_a_panic() {
    let dao = example("dao.holi");
    let dao = dao.as_str();
    for args in [
        vec!["explain"],
        vec!["explain", "W0204"],
        vec!["fmt", dao],
        vec!["parse", dao, dao],
        vec!["completions", "bash"],
        vec!["man"],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_holi"))
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("holi starts");
        drop(child.stdout.take());
        let out = child.wait_with_output().expect("holi ends");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
    }
}
