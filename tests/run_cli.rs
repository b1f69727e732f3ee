//! `holi run` end to end: exit codes, failure locations, linking diagnostics and `--trace`.

use std::path::PathBuf;
use std::process::{Command, Output};

fn holi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_holi"))
        .args(args)
        .output()
        .expect("holi runs")
}

fn file(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let path: PathBuf = dir.path().join(name);
    std::fs::write(&path, text).expect("write test file");
    path.display().to_string()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const DAO: &str = "import send :(int -> unit)
int bal := 100;
public withdraw (x:int) :(unit) = {
  if not (!bal < x) then send(x); bal := !bal - x; assert(not (!bal < 0)) else () };
";

const ATTACKER: &str = "import withdraw :(int -> unit)
int wallet := 0;
public send (x:int) :(unit) = {
  wallet := !wallet + x;
  if !wallet < 100 then withdraw(x) else () };
main = { withdraw(60) };
";

#[test]
fn a_closed_program_that_returns_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let p = file(&dir, "p.holi", "int c := 2; main = { c := !c * 21; !c };");
    let o = holi(&["run", &p]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o).trim(), "main returned 42");
}

#[test]
fn a_failing_assert_exits_1_and_points_at_it() {
    let dir = tempfile::tempdir().unwrap();
    let p = file(&dir, "p.holi", "main = {\n  assert(1 == 2)\n};\n");
    let o = holi(&["run", &p]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("assertion failed"), "{err}");
    assert!(err.contains("p.holi:2:3"), "{err}");
}

#[test]
fn division_by_zero_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let p = file(&dir, "p.holi", "main = { 1 / 0 };");
    let o = holi(&["run", &p]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("division by zero"));
}

#[test]
fn limits_exit_3() {
    let dir = tempfile::tempdir().unwrap();
    let p = file(
        &dir,
        "p.holi",
        "private loop (n:int) :(int) = { loop(n + 1) }; main = { loop(0) };",
    );
    let o = holi(&["run", &p, "--max-steps", "1000"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).contains("stopped after 1000 steps"),
        "{}",
        stderr(&o)
    );
    let o = holi(&["run", &p, "--max-depth", "50"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("call depth 50"), "{}", stderr(&o));
}

#[test]
fn a_call_of_an_undeclared_name_exits_3() {
    let dir = tempfile::tempdir().unwrap();
    let p = file(&dir, "p.holi", "main = { missing(1) };");
    let o = holi(&["run", &p]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("stuck"), "{}", stderr(&o));
}

#[test]
fn a_library_alone_has_no_main() {
    let dir = tempfile::tempdir().unwrap();
    let lib = file(&dir, "dao.holi", DAO);
    let o = holi(&["run", &lib]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no `main`"), "{}", stderr(&o));
}

#[test]
fn the_dao_attacker_breaks_the_library_and_trace_shows_the_moves() {
    let dir = tempfile::tempdir().unwrap();
    let lib = file(&dir, "dao.holi", DAO);
    let client = file(&dir, "attacker.holi", ATTACKER);
    let o = holi(&["run", &lib, &client, "--trace"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "call withdraw(60)\ncall send(60)\ncall withdraw(60)\ncall send(60)\n\
         ret send(())\nret withdraw(())\nret send(())\n"
    );
    let err = stderr(&o);
    assert!(
        err.contains("dao.holi:4:"),
        "the failure is in the library: {err}"
    );
}

#[test]
fn incompatible_files_are_link_errors() {
    let dir = tempfile::tempdir().unwrap();
    let lib = file(&dir, "dao.holi", DAO);
    let client = file(
        &dir,
        "bad.holi",
        "import deposit :(int -> unit)
         int bal := 0;
         private withdraw (x:int) :(unit) = { () };
         main = { deposit(1) };",
    );
    let o = holi(&["run", &lib, &client]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    for code in ["E0703", "E0705", "E0708", "E0709"] {
        assert!(err.contains(code), "missing {code}: {err}");
    }
}

#[test]
fn the_example_attacker_breaks_the_dao_but_not_the_fixed_dao() {
    let root = env!("CARGO_MANIFEST_DIR");
    let attacker = format!("{root}/examples/clients/dao_attacker.holi");
    let o = holi(&["run", &format!("{root}/examples/dao.holi"), &attacker]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("assertion failed"));
    let o = holi(&[
        "run",
        &format!("{root}/examples/dao_fixed.holi"),
        &attacker,
        "--trace",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "call withdraw(60)\ncall send(60)\ncall withdraw(60)\nret withdraw(())\n\
         ret send(())\nret withdraw(())\nmain returned ()\n"
    );
}

#[test]
fn each_example_attacker_breaks_its_library_and_not_the_fixed_one() {
    let root = env!("CARGO_MANIFEST_DIR");
    // Each attacker, its library, and the safe sibling it must not break.
    for (name, safe) in [
        ("dao", "dao_fixed"),
        ("file_lock", "file_lock_fixed"),
        ("double_free", "double_free_fixed"),
        ("flat_combiner", "flat_combiner_fixed"),
        ("lend", "lend_fixed"),
        ("move_all", "move_all_fixed"),
        ("account", "account_fixed"),
        ("awkward_counter", "awkward"),
    ] {
        let attacker = format!("{root}/examples/clients/{name}_attacker.holi");
        let broken = holi(&["run", &format!("{root}/examples/{name}.holi"), &attacker]);
        assert_eq!(broken.status.code(), Some(1), "{name}: {}", stderr(&broken));
        assert!(stderr(&broken).contains("assertion failed"), "{name}");
        let fixed = holi(&["run", &format!("{root}/examples/{safe}.holi"), &attacker]);
        assert_eq!(
            fixed.status.code(),
            Some(0),
            "{name} fixed: {}",
            stderr(&fixed)
        );
    }
}

#[test]
fn the_lock_attacker_releases_the_lock_it_was_lent() {
    let root = env!("CARGO_MANIFEST_DIR");
    let attacker = format!("{root}/examples/clients/lock_attacker.holi");
    let broken = holi(&["run", &format!("{root}/examples/lock.holi"), &attacker]);
    assert_eq!(broken.status.code(), Some(1), "{}", stderr(&broken));
    assert!(stderr(&broken).contains("assertion failed"));
    // The fixed lock lends a reader, not the cell: this attacker no longer links.
    let fixed = holi(&[
        "run",
        &format!("{root}/examples/lock_fixed.holi"),
        &attacker,
    ]);
    assert_eq!(fixed.status.code(), Some(2), "{}", stderr(&fixed));
}

const DEEP: &str = "main = { letrec f (n:int) :(int) =
  if n <= 0 then 0 else 1 + f (n - 1) in f 100000000 };
";

#[test]
fn a_huge_max_depth_stops_at_the_memory_limit() {
    let dir = tempfile::tempdir().unwrap();
    let p = file(&dir, "deep.holi", DEEP);
    let o = holi(&[
        "run",
        &p,
        "--max-depth",
        "1000000000",
        "--max-steps",
        "100000000000",
        "--max-memory",
        "64",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("E0806"), "{err}");
    assert!(err.contains("more than 64 MiB"), "{err}");
    assert!(err.contains("deep.holi:2:"), "located in `f`: {err}");
}

#[test]
fn a_client_that_imports_needs_its_library() {
    let dir = tempfile::tempdir().unwrap();
    let client = file(&dir, "attacker.holi", ATTACKER);
    let o = holi(&["run", &client]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("E0710"), "{err}");
    assert!(err.contains("imports `withdraw`"), "{err}");
    assert!(err.contains("holi run LIBRARY.holi attacker.holi"), "{err}");
    assert!(err.contains("attacker.holi:1:8"), "at the import: {err}");
}

/// Runs until a limit stops it (every call stays open: HOLi has no tail calls).
const ENDLESS: &str = "private loop (n:int) :(int) = { loop(n + 1) }; main = { loop(0) };";

#[test]
fn the_timeout_stops_a_run_with_exit_3() {
    let dir = tempfile::tempdir().unwrap();
    let p = file(&dir, "p.holi", ENDLESS);
    let started = std::time::Instant::now();
    let o = holi(&[
        "run",
        &p,
        "--max-steps",
        "18446744073709551615",
        "--max-depth",
        "1000000000",
        "--timeout",
        "0.5",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("E0807"), "{}", stderr(&o));
    assert!(stderr(&o).contains("time limit of 0.5 s"), "{}", stderr(&o));
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
}

#[test]
fn timeouts_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    let p = file(&dir, "p.holi", "main = { 1 };");
    for huge in ["1e20", "inf", "1.8e308"] {
        let o = holi(&["run", &p, "--timeout", huge]);
        assert_eq!(o.status.code(), Some(0), "{huge}: {}", stderr(&o));
    }
    for bad in ["0", "-1", "NaN"] {
        let o = holi(&["run", &p, &format!("--timeout={bad}")]);
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", stderr(&o));
        assert!(stderr(&o).contains("E0402"), "{}", stderr(&o));
    }
}

#[test]
fn ctrl_c_stops_a_run_with_exit_3() {
    let dir = tempfile::tempdir().unwrap();
    let p = file(&dir, "p.holi", ENDLESS);
    let child = Command::new(env!("CARGO_BIN_EXE_holi"))
        .args(["run", &p, "--max-steps", "18446744073709551615"])
        .args(["--max-depth", "1000000000"])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("holi runs");
    // Give the handler time to be installed before the signal arrives.
    std::thread::sleep(std::time::Duration::from_millis(500));
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let o = child.wait_with_output().expect("holi ends");
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("interrupted"), "{}", stderr(&o));
}
