//! The limits of a search hold even while Z3 is deep in a query it cannot decide: the
//! interrupt flag (Ctrl-C), the per-query solver timeout and the search's deadline
//! each stop it within seconds, and each says why the verdict is inconclusive.

use holi::symbolic::{check, CheckOptions, CheckResult, Verdict};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Generous: the limits tested are "seconds, not never".
const PROMPTLY: Duration = Duration::from_secs(20);

/// A sum of three cubes equal to 33: no client input Z3 can find or rule out.
const CUBES: &str = "public m (p:int * int * int) :(unit) = {\n\
    \x20 let x = fst (fst p) in let y = snd (fst p) in let z = snd p in\n\
    \x20 assert(not (x * x * x + y * y * y + z * z * z == 33))\n\
    };\n";

/// Pell's equation x² − 61y² = 1, whose least solution Z3 does not find in minutes.
const PELL: &str = "public m (p:int * int) :(unit) = {\n\
    \x20 let x = fst p in let y = snd p in\n\
    \x20 if 0 < y then assert(not (x * x - 61 * y * y == 1)) else ()\n\
    };\n";

fn run(source: &str, options: &CheckOptions) -> (CheckResult, Duration) {
    let loaded = holi::frontend::load_str("test.holi", source, false)
        .unwrap_or_else(|_| panic!("the test library loads"));
    let start = Instant::now();
    let result = check(&loaded.program, options);
    (result, start.elapsed())
}

fn options(k: u32, l: u32) -> CheckOptions {
    CheckOptions {
        k,
        l,
        solver_timeout: None,
        ..CheckOptions::default()
    }
}

#[test]
fn the_interrupt_flag_stops_a_running_query() {
    let flag = Arc::new(AtomicBool::new(false));
    let options = CheckOptions {
        interrupt: Some(Arc::clone(&flag)),
        ..options(3, 2)
    };
    let setter = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(500));
        flag.store(true, Ordering::Relaxed);
    });
    let (result, took) = run(CUBES, &options);
    setter.join().unwrap();
    assert!(took < PROMPTLY, "{took:?}");
    assert_eq!(result.verdict, Verdict::Inconclusive);
    assert_eq!(
        result.inconclusive,
        vec!["search stopped: interrupted".to_string()]
    );
}

#[test]
fn the_solver_timeout_stops_a_running_query() {
    let options = CheckOptions {
        solver_timeout: Some(Duration::from_millis(500)),
        ..options(2, 1)
    };
    let (result, took) = run(PELL, &options);
    assert!(took < PROMPTLY, "{took:?}");
    assert_eq!(result.verdict, Verdict::Inconclusive);
    assert!(
        result.inconclusive[0].contains("the query ran past the solver timeout"),
        "{:?}",
        result.inconclusive
    );
}

/// So short that it often runs out before Z3 starts the check.
#[test]
fn a_tiny_solver_timeout_always_stops_the_search() {
    let options = CheckOptions {
        solver_timeout: Some(Duration::from_nanos(10_000)),
        ..options(2, 1)
    };
    for _ in 0..20 {
        let (result, took) = run(PELL, &options);
        assert!(took < PROMPTLY, "{took:?}");
        assert_eq!(result.verdict, Verdict::Inconclusive);
    }
}

#[test]
fn the_search_deadline_stops_a_running_query() {
    let options = CheckOptions {
        timeout: Some(Duration::from_millis(500)),
        ..options(2, 1)
    };
    let (result, took) = run(PELL, &options);
    assert!(took < PROMPTLY, "{took:?}");
    assert_eq!(result.verdict, Verdict::Inconclusive);
    assert_eq!(
        result.inconclusive,
        vec!["search stopped: the time limit ran out".to_string()]
    );
}

/// A limit past any representable instant is no limit, not a panic.
#[test]
fn the_longest_limits_are_no_limits() {
    let options = CheckOptions {
        timeout: Some(Duration::MAX),
        solver_timeout: Some(Duration::MAX),
        ..options(2, 1)
    };
    let source = "public m (x:int) :(unit) = { assert(not (x * x == 49)) };\n";
    let (result, _) = run(source, &options);
    assert_eq!(result.verdict, Verdict::Unsafe);
}

/// Ctrl-C during a query Z3 cannot decide: `holi check` stops within seconds, says
/// it was interrupted and exits with code 3. (Z3 used to take SIGINT over during
/// every check, so the signal only cancelled that query and the search went on.)
#[test]
fn ctrl_c_stops_holi_check_during_a_query() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cubes.holi");
    std::fs::write(&file, CUBES).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_holi"))
        .args(["check", file.to_str().unwrap(), "--k", "3", "--l", "2"])
        .args(["--solver-timeout", "1000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("holi runs");
    // Long enough for the search to be inside the first query Z3 cannot decide.
    std::thread::sleep(Duration::from_secs(2));
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    let signalled = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if signalled.elapsed() > PROMPTLY {
            let _ = child.kill();
            let _ = child.wait();
            panic!("holi check still runs {PROMPTLY:?} after SIGINT");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    assert!(stdout.contains("interrupted"), "{stdout}");
    assert!(!stdout.contains("solver returned unknown"), "{stdout}");
}
