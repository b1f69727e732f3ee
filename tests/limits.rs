//! The limits of a search hold even while Z3 is deep in a query it cannot decide: the
//! interrupt flag (Ctrl-C), the per-query solver timeout and the search's deadline
//! each stop it, and each says why the verdict is inconclusive.
//!
//! Z3's nonlinear arithmetic may not notice an interrupt for tens of seconds, so `holi
//! check` answers nonlinear queries in a child process it kills at the limit: there the
//! limits hold to within [`TIGHTLY`]. In-process (a library user who gives no solver
//! process), they hold only "in seconds, not never" ([`PROMPTLY`]).

use holi::symbolic::{check, CheckOptions, CheckResult, Verdict};
use holi::symbolic::{Bounds, Limits, Run};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Generous: the limits tested in-process are "seconds, not never".
const PROMPTLY: Duration = Duration::from_secs(20);

/// How late past a limit a search with a solver process may stop: the watch polls
/// every 20 ms, killing and reaping the child takes a few more; the rest is slack
/// for a loaded machine.
const TIGHTLY: Duration = Duration::from_millis(1500);

const HOLI: &str = env!("CARGO_BIN_EXE_holi");

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
    let result = check(&holi::library::build(&loaded.program), options);
    (result, start.elapsed())
}

/// Nonlinear queries in a child process, as `holi check` runs them.
fn options(k: u32, l: u32) -> CheckOptions {
    CheckOptions {
        bounds: Bounds { k, l },
        limits: Limits {
            solver_timeout: None,
            ..Limits::default()
        },
        run: Run {
            solver_process: Some(HOLI.into()),
            ..Run::default()
        },
        ..CheckOptions::default()
    }
}

fn in_process(k: u32, l: u32) -> CheckOptions {
    CheckOptions {
        run: Run {
            solver_process: None,
            ..options(k, l).run.clone()
        },
        ..options(k, l)
    }
}

/// The interrupt flag, set after `after`, stops the search on `source`; how long the
/// search took after the flag was set.
fn interrupted(source: &str, options: CheckOptions, after: Duration) -> (CheckResult, Duration) {
    let flag = Arc::new(AtomicBool::new(false));
    let options = CheckOptions {
        limits: Limits {
            interrupt: Some(Arc::clone(&flag)),
            ..options.limits.clone()
        },
        ..options
    };
    let setter = std::thread::spawn(move || {
        std::thread::sleep(after);
        flag.store(true, Ordering::Relaxed);
    });
    let (result, took) = run(source, &options);
    setter.join().unwrap();
    (result, took.saturating_sub(after))
}

#[test]
fn the_interrupt_flag_stops_a_running_query() {
    for source in [CUBES, PELL] {
        let (result, late) = interrupted(source, options(3, 2), Duration::from_millis(500));
        assert!(late < TIGHTLY, "{late:?}");
        assert_eq!(result.verdict, Verdict::Inconclusive);
        assert_eq!(
            result.inconclusive,
            vec!["search stopped: interrupted".to_string()]
        );
    }
}

#[test]
fn in_process_the_interrupt_flag_stops_a_query_in_seconds() {
    let (result, late) = interrupted(CUBES, in_process(3, 2), Duration::from_millis(500));
    assert!(late < PROMPTLY, "{late:?}");
    assert_eq!(result.verdict, Verdict::Inconclusive);
}

#[test]
fn the_solver_timeout_stops_a_running_query() {
    for options in [options(2, 1), in_process(2, 1)] {
        let tight = options.run.solver_process.is_some();
        let limit = Duration::from_millis(500);
        let options = CheckOptions {
            limits: Limits {
                solver_timeout: Some(limit),
                ..options.limits.clone()
            },
            ..options
        };
        let (result, took) = run(PELL, &options);
        let allowed = limit + if tight { TIGHTLY } else { PROMPTLY };
        assert!(took < allowed, "{took:?} (solver process: {tight})");
        assert_eq!(result.verdict, Verdict::Inconclusive);
        assert!(
            result.inconclusive[0].contains("the query ran past the solver timeout"),
            "{:?}",
            result.inconclusive
        );
    }
}

/// So short that it often runs out before Z3 starts the check.
#[test]
fn a_tiny_solver_timeout_always_stops_the_search() {
    for options in [options(2, 1), in_process(2, 1)] {
        let tight = options.run.solver_process.is_some();
        let options = CheckOptions {
            limits: Limits {
                solver_timeout: Some(Duration::from_nanos(10_000)),
                ..options.limits.clone()
            },
            ..options
        };
        for _ in 0..10 {
            let (result, took) = run(PELL, &options);
            assert!(took < if tight { TIGHTLY } else { PROMPTLY }, "{took:?}");
            assert_eq!(result.verdict, Verdict::Inconclusive);
        }
    }
}

#[test]
fn the_search_deadline_stops_a_running_query() {
    for source in [PELL, CUBES] {
        let limit = Duration::from_millis(500);
        let options = CheckOptions {
            limits: Limits {
                timeout: Some(limit),
                ..options(3, 2).limits.clone()
            },
            ..options(3, 2)
        };
        let (result, took) = run(source, &options);
        assert!(took < limit + TIGHTLY, "{took:?}");
        assert_eq!(result.verdict, Verdict::Inconclusive);
        assert_eq!(
            result.inconclusive,
            vec!["search stopped: the time limit ran out".to_string()]
        );
    }
}

/// A deadline set by the caller holds in every search of the check, whatever time
/// its `timeout` would leave (the rounds of the over-approximation and the split's
/// searches used to start their clocks again).
#[test]
fn a_shared_deadline_ends_every_search_of_the_check() {
    for jobs in [1, 2] {
        let options = CheckOptions {
            limits: Limits {
                timeout: Some(Duration::from_secs(3600)),
                deadline: Some(Instant::now()),
                ..options(3, 2).limits.clone()
            },
            run: Run {
                jobs,
                ..options(3, 2).run.clone()
            },
            ..options(3, 2)
        };
        let (result, took) = run(PELL, &options);
        assert!(took < TIGHTLY, "{took:?}");
        assert_eq!(result.verdict, Verdict::Inconclusive);
        assert_eq!(
            result.inconclusive,
            vec!["search stopped: the time limit ran out".to_string()]
        );
    }
}

/// After a query is cut short the solver process is started again, and the answers
/// to easy nonlinear questions are those of the in-process solver.
#[test]
fn after_a_cut_query_the_next_ones_are_answered() {
    let source = "public hard (p:int * int) :(unit) = {\n\
        \x20 let x = fst p in let y = snd p in\n\
        \x20 if 0 < y then assert(not (x * x - 61 * y * y == 1)) else ()\n\
        };\n\
        public easy (x:int) :(unit) = { assert(not (x * x == 49)) };\n";
    let options = CheckOptions {
        limits: Limits {
            solver_timeout: Some(Duration::from_millis(300)),
            ..options(2, 2).limits.clone()
        },
        ..options(2, 2)
    };
    let (result, _) = run(source, &options);
    assert_eq!(result.verdict, Verdict::Unsafe);
    let traces: Vec<String> = result
        .counterexamples
        .iter()
        .map(|c| c.trace.to_string())
        .collect();
    assert!(
        traces.iter().any(|t| t.starts_with("call easy")),
        "{traces:?}"
    );
    assert!(result.inconclusive[0].contains("solver timeout"));
}

/// A limit past any representable instant is no limit, not a panic.
#[test]
fn the_longest_limits_are_no_limits() {
    let options = CheckOptions {
        limits: Limits {
            timeout: Some(Duration::MAX),
            solver_timeout: Some(Duration::MAX),
            ..options(2, 1).limits.clone()
        },
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
    for (name, source) in [("cubes", CUBES), ("pell", PELL)] {
        // Early in the first query, and well inside it.
        for wait in [Duration::from_millis(300), Duration::from_secs(2)] {
            let file = dir.path().join(format!("{name}.holi"));
            std::fs::write(&file, source).unwrap();
            let child = Command::new(HOLI)
                .args(["check", file.to_str().unwrap(), "--k", "3", "--l", "2"])
                .args(["--solver-timeout", "1000"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("holi runs");
            std::thread::sleep(wait);
            let out = interrupt(child, name);
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert_eq!(out.status.code(), Some(3), "{stdout}");
            assert!(stdout.contains("interrupted"), "{stdout}");
            assert!(!stdout.contains("solver returned unknown"), "{stdout}");
        }
    }
}

/// Sends SIGINT to `child` (running `what`) and waits for it to end, at most
/// [`TIGHTLY`].
fn interrupt(mut child: std::process::Child, what: &str) -> std::process::Output {
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    let signalled = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if signalled.elapsed() > TIGHTLY {
            let _ = child.kill();
            let _ = child.wait();
            panic!("holi check on {what} still runs {TIGHTLY:?} after SIGINT");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.wait_with_output().unwrap()
}

/// `--timeout` and `--solver-timeout` hold on the command line, for every query.
#[test]
fn holi_check_stops_at_its_limits_during_a_query() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pell.holi");
    std::fs::write(&file, PELL).unwrap();
    for (flag, note) in [
        ("--timeout", "the time limit ran out"),
        ("--solver-timeout", "the query ran past the solver timeout"),
    ] {
        let start = Instant::now();
        let out = Command::new(HOLI)
            .args([
                "check",
                file.to_str().unwrap(),
                "--k",
                "2",
                "--l",
                "1",
                flag,
                "1",
                "-v",
            ])
            .output()
            .expect("holi runs");
        let took = start.elapsed();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(took < Duration::from_secs(1) + TIGHTLY, "{flag}: {took:?}");
        assert_eq!(out.status.code(), Some(3), "{stdout}");
        assert!(stdout.contains(note), "{stdout}");
        // No search completed, and `-v` does not say one did.
        assert!(
            stdout.contains("report from: the whole search (incomplete"),
            "{stdout}"
        );
    }
}

/// Pell's equation as the solver process gets it.
const PELL_QUERY: &str = "(declare-fun s1 () Int)\n(declare-fun s2 () Int)\n\
    (assert (< 0 s2))\n(assert (= (- (* s1 s1) (* 61 (* s2 s2))) 1))\n";

#[test]
fn a_cut_question_leaves_no_process_behind() {
    use holi::symbolic::worker::{Reply, Worker};
    let mut worker = Worker::new(HOLI.into());
    let easy = "(declare-fun s1 () Int)\n(assert (= (* s1 s1) 49))\n(assert (> s1 0))\n";
    let names = ["s1".to_string()];
    assert_eq!(
        worker.ask(easy, &names, None, None),
        Reply::Sat(vec![Some(7.into())])
    );
    let pid = worker
        .process_id()
        .expect("the process is kept for the next question");
    let start = Instant::now();
    let deadline = Some(start + Duration::from_millis(300));
    assert_eq!(
        worker.ask(PELL_QUERY, &names, deadline, None),
        Reply::TimedOut
    );
    assert!(start.elapsed() < TIGHTLY, "{:?}", start.elapsed());
    assert_eq!(worker.process_id(), None);
    // Killed and reaped: not even a zombie is left.
    assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists());
    // The next question starts a new process.
    assert!(matches!(
        worker.ask(easy, &names, None, None),
        Reply::Sat(_)
    ));
    let flag = AtomicBool::new(true);
    assert_eq!(
        worker.ask(PELL_QUERY, &names, None, Some(&flag)),
        Reply::Interrupted
    );
}

/// A solver process whose parent goes away in the middle of a question stops at once,
/// however long Z3 would still take.
#[test]
fn the_solver_process_ends_with_its_input() {
    use std::io::Write;
    let mut child = Command::new(HOLI)
        .arg(holi::symbolic::worker::COMMAND)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("holi runs");
    let mut stdin = child.stdin.take().unwrap();
    write!(stdin, "1 {}\ns1\n{PELL_QUERY}", PELL_QUERY.len()).unwrap();
    stdin.flush().unwrap();
    std::thread::sleep(Duration::from_millis(300));
    drop(stdin);
    let closed = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if closed.elapsed() > TIGHTLY {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the solver process still runs {TIGHTLY:?} after its input closed");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(child.wait().unwrap().success());
}

/// Coverage checks (semantic subsumption) on a nonlinear path condition go to the
/// solver process too, with the same answers: `x·x ≤ 4` confines `x` to `[-2, 2]`.
#[test]
fn nonlinear_coverage_checks_are_answered_by_the_solver_process() {
    use holi::symbolic::config::PcNode;
    use holi::symbolic::solver::Solver;
    use holi::symbolic::term::Term;
    use holi::syntax::ast::BinOp;
    use std::sync::Arc;
    use z3::ast::Int;
    let x = Term::sym(1);
    let square = Term::binary(BinOp::Mul, &x, &x).unwrap();
    let small = Term::binary(BinOp::Le, &square, &Term::Const(4.into())).unwrap();
    let mut symbols = holi::symbolic::config::SymbolSet::default();
    symbols.insert(1);
    let pc = Some(Arc::new(PcNode {
        term: small,
        holds: true,
        depth: 1,
        symbols,
        own_symbols: vec![1],
        nonlinear: true,
        parent: None,
    }));
    let y0 = Int::new_const("y0");
    let within = y0.ge(Int::from_i64(-2)) & y0.le(Int::from_i64(2));
    let positive = y0.gt(Int::from_i64(0));
    for program in [Some(HOLI), None] {
        let mut solver = Solver::new();
        if let Some(program) = program {
            solver.nonlinear_in_child(program.into());
        }
        let terms = [x.clone()];
        assert!(solver.covered(&pc, &terms, &[&within], None), "{program:?}");
        assert!(
            !solver.covered(&pc, &terms, &[&positive], None),
            "{program:?}"
        );
    }
}

/// A safe token-like library: `n` accounts, each of whose methods moves an amount to
/// the next one, and an audit that lets the client run and then asserts that no
/// balance is negative. The search takes a fraction of a second; the proof attempt,
/// whose candidates pair every balance with every other (the audit tests them all
/// and uses them together), much longer.
fn token_library(n: usize) -> String {
    let mut text = String::from("import cb :(unit -> unit)\n");
    for i in 0..n {
        text.push_str(&format!("int b{i} := 100;\n"));
    }
    for i in 0..n {
        let j = (i + 1) % n;
        text.push_str(&format!(
            "public t{i} (a:int) :(unit) = {{ if (a > 0) then (if (!b{i} >= a) then \
             (b{i} := !b{i} - a; b{j} := !b{j} + a; assert(!b{i} >= 0)) else ()) else () }};\n"
        ));
    }
    let audit: Vec<String> = (0..n).map(|i| format!("(!b{i} >= 0)")).collect();
    text.push_str(&format!(
        "public audit (u:unit) :(unit) = {{ cb (); assert({}) }};\n",
        audit.join(" && ")
    ));
    text
}

/// `--timeout`, Ctrl-C and `--max-memory` hold in the proof attempt that follows a safe
/// search (under `--prove`, which gives it all the time there is), and the report says
/// the proof was cut short (the verdict stays "safe within k, l", exit 0). Without
/// `--prove` the attempt takes no longer than the search did, or a second.
#[test]
fn the_limits_hold_in_the_proof_phase() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("token.holi");
    std::fs::write(&file, token_library(200)).unwrap();
    let path = file.to_str().unwrap();
    let bounds = ["--k", "2", "--l", "1", "--prove"];
    let cut = |stdout: &str, why: &str| {
        assert!(stdout.contains("SAFE within k = 2, l = 1"), "{stdout}");
        let note = format!("the proof attempt was cut short: {why}");
        assert!(stdout.contains(&note), "{stdout}");
    };
    let start = Instant::now();
    let out = Command::new(HOLI)
        .args(["check", path, "--timeout", "2"])
        .args(bounds)
        .output()
        .expect("holi runs");
    let took = start.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        took < Duration::from_secs(2) + TIGHTLY,
        "--timeout 2: {took:?}"
    );
    // `--prove` makes a safe verdict without a proof exit with 3.
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    cut(&stdout, "the time limit ran out");

    let out = Command::new(HOLI)
        .args(["check", path, "--max-memory", "130"])
        .args(bounds)
        .output()
        .expect("holi runs");
    cut(
        &String::from_utf8_lossy(&out.stdout),
        "the memory limit (130 MiB, --max-memory) was exceeded",
    );

    let child = Command::new(HOLI)
        .args(["check", path])
        .args(bounds)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("holi runs");
    std::thread::sleep(Duration::from_millis(1500));
    let out = interrupt(child, "the proof attempt");
    cut(&String::from_utf8_lossy(&out.stdout), "interrupted");

    let start = Instant::now();
    let out = Command::new(HOLI)
        .args(["check", path, "--k", "2", "--l", "1"])
        .output()
        .expect("holi runs");
    let took = start.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    cut(
        &stdout,
        "it may take as long as the search took, at least a second",
    );
    // The search takes a fraction of a second: then the attempt gets one.
    assert!(
        took < Duration::from_secs(2) + TIGHTLY,
        "without --prove: {took:?}"
    );
}
