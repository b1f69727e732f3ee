//! Semantic subsumption's projections ([`QeThread`]) under limits: a cut projection
//! returns on time, its helper is abandoned and never interrupted, and abandoned
//! helpers never stall a search. Alone in its test binary: abandoned helpers are
//! counted process-wide, and the runaway ones here outlive the test.

use holi::symbolic::worker::{NoRegion, QeThread, MAX_ABANDONED};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Within this, a cut projection has returned (its limit is 300 ms).
const TIGHTLY: Duration = Duration::from_millis(1500);

/// Within this, helpers whose `qe` takes milliseconds have ended.
const PROMPTLY: Duration = Duration::from_secs(20);

/// A projection `qe` answers in about 20 ms.
const MEDIUM_PROJECTION: &str = "(declare-fun y0 () Int)(declare-fun y1 () Int)\
    (assert (exists ((s1 Int) (s2 Int) (s3 Int) (s4 Int) (s5 Int)) (and \
    (<= s1 (+ s2 y0)) (<= (* 2 s2) (+ s3 y1)) (<= (* 3 s3) (+ s4 100)) \
    (<= (* 2 s4) (+ s5 7)) (>= s1 0) (>= s5 (- 0 50)) \
    (= y0 (+ s1 s3 s5)) (= y1 (- s2 s4)))))";

/// A projection onto `(y0, y1)` that Z3's `qe` does not finish in minutes: eight linear
/// conjuncts over six symbols, as semantic subsumption may ask.
const HARD_PROJECTION: &str = "(declare-fun y0 () Int)(declare-fun y1 () Int)\
    (assert (exists ((s0 Int) (s1 Int) (s2 Int) (s3 Int) (s4 Int) (s5 Int)) (and \
    (<= (+ (* 3 s4) (* 2 s2) (* 2 s3) y0) 47) (<= (+ (* 20 s3) (* 3 s0) y1) 12) \
    (<= (+ (* 2 s3) (* 7 s4) (* 2 s5) y0) 7) (<= (+ (* 5 s5) (* 3 s4) (* 2 s2) y1) -47) \
    (<= (+ (* 2 s0) (* 13 s4) (* 2 s3) y0) 37) (<= (+ (* 3 s3) (* 13 s0) (* 11 s1) y1) 47) \
    (<= (+ (* 7 s3) (* 16 s1) y0) 36) (<= (+ (* 3 s3) (* 5 s0) (* 7 s4) y1) 32) \
    (= y0 (+ (* 3 s1) (* 11 s5))) (= y1 (+ (* 7 s0) (* 11 s2))))))";

const EASY_PROJECTION: &str =
    "(declare-fun y0 () Int)(assert (exists ((s1 Int)) (and (<= s1 100) (= y0 (- 100 s1)))))";

/// The formula of an SMT-LIB assertion, in this thread's context.
fn formula(text: &str) -> z3::ast::Bool {
    let solver = z3::Solver::new();
    solver.from_string(text);
    solver.get_assertions().pop().expect("one assertion")
}

/// The projection helpers alive in this process.
fn helpers() -> usize {
    std::fs::read_dir("/proc/self/task")
        .map(|tasks| {
            tasks
                .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
                .filter(|name| name.trim() == "holi-qe")
                .count()
        })
        .unwrap_or(0)
}

fn wait_for_abandoned_helpers() {
    let waited = Instant::now();
    while QeThread::abandoned_running() > 0 && waited.elapsed() < PROMPTLY {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        QeThread::abandoned_running(),
        0,
        "abandoned helpers still run"
    );
}

/// One test, so that its steps see only their own helpers.
#[test]
fn cut_projections_are_abandoned_never_interrupted_and_never_stall() {
    // Many projections cut in the middle of their `qe`, on four threads at once. With
    // an interrupt at each cut, Z3 4.8.12 crashed the process (SIGSEGV) in most runs
    // of this; abandoned helpers just finish.
    let outcomes: Vec<(usize, usize)> = std::thread::scope(|s| {
        let askers: Vec<_> = (0..4u64)
            .map(|t| {
                s.spawn(move || {
                    let medium = formula(MEDIUM_PROJECTION);
                    let mut qe = QeThread::default();
                    let (mut answered, mut cut) = (0, 0);
                    let mut round = 0u64;
                    while round < 25 {
                        // Every fifth limit is generous, so that some answer on a
                        // loaded machine too.
                        let generous = round % 5 == 4;
                        let limit = if generous {
                            Duration::from_secs(5)
                        } else {
                            Duration::from_millis(1 + (round * 7 + t * 5) % 80)
                        };
                        match qe.project(&medium, Some(Instant::now() + limit), None) {
                            Ok(_) => answered += 1,
                            Err(NoRegion::TimedOut) => cut += 1,
                            // Not asked while earlier cuts still run: a moment later
                            // (the generous round is asked again).
                            Err(NoRegion::Busy) => {
                                std::thread::sleep(Duration::from_millis(10));
                                if generous {
                                    continue;
                                }
                            }
                            Err(other) => panic!("{other:?}"),
                        }
                        round += 1;
                    }
                    (answered, cut)
                })
            })
            .collect();
        askers
            .into_iter()
            .map(|a| a.join().expect("no asker panics"))
            .collect()
    });
    let answered: usize = outcomes.iter().map(|o| o.0).sum();
    let cut: usize = outcomes.iter().map(|o| o.1).sum();
    assert!(answered > 0 && cut > 0, "{outcomes:?}");
    wait_for_abandoned_helpers();

    // A runaway `qe`, cut by its deadline and then by the interrupt flag: each
    // question returns on time, and each helper is left running its `qe`.
    let easy = formula(EASY_PROJECTION);
    let hard = formula(HARD_PROJECTION);
    let mut asker = QeThread::default();
    let mut bystander = QeThread::default();
    assert!(asker.project(&easy, None, None).is_ok());
    assert!(bystander.project(&easy, None, None).is_ok());
    let start = Instant::now();
    let deadline = Some(start + Duration::from_millis(300));
    assert_eq!(
        asker.project(&hard, deadline, None).err(),
        Some(NoRegion::TimedOut)
    );
    assert!(start.elapsed() < TIGHTLY, "{:?}", start.elapsed());
    // Below the cap, the next question gets a new helper.
    assert!(asker.project(&easy, None, None).is_ok());
    let flag = AtomicBool::new(false);
    let start = Instant::now();
    std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(300));
            flag.store(true, Ordering::Relaxed);
        });
        assert_eq!(
            asker.project(&hard, None, Some(&flag)).err(),
            Some(NoRegion::Interrupted)
        );
    });
    assert!(start.elapsed() < TIGHTLY, "{:?}", start.elapsed());
    // Not interrupted: both are still in their `qe` a while later.
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(QeThread::abandoned_running(), MAX_ABANDONED);
    // At the cap, a question that needs a new helper is not asked, and says so at
    // once; a helper in use still answers; no helper was started for nothing.
    let start = Instant::now();
    assert_eq!(asker.project(&easy, None, None).err(), Some(NoRegion::Busy));
    assert!(start.elapsed() < TIGHTLY, "{:?}", start.elapsed());
    assert!(bystander.project(&easy, None, None).is_ok());
    assert_eq!(helpers(), MAX_ABANDONED + 1);
}
