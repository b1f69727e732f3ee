//! Ctrl-C is holi's while Z3 works: Z3 4.8.12 takes SIGINT over while a solver without
//! `ctrl_c=false` checks, cancels that query and swallows the signal, so a Ctrl-C that
//! landed in a projection's confirmation was lost and the check ran on. Alone in its
//! test binary: it signals its own process, and Z3's handler is not thread-safe, so
//! other tests' plain solvers beside it could crash the process.

use holi::symbolic::worker::QeThread;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A projection `qe` answers and `qsat` confirms in milliseconds.
const PROJECTION: &str = "(declare-fun y0 () Int)(declare-fun y1 () Int)\
    (assert (exists ((s1 Int) (s2 Int) (s3 Int) (s4 Int) (s5 Int)) (and \
    (<= s1 (+ s2 y0)) (<= (* 2 s2) (+ s3 y1)) (<= (* 3 s3) (+ s4 100)) \
    (<= (* 2 s4) (+ s5 7)) (>= s1 0) (>= s5 (- 0 50)) \
    (= y0 (+ s1 s3 s5)) (= y1 (- s2 s4)))))";

static SIGINTS: AtomicUsize = AtomicUsize::new(0);

extern "C" fn count_sigint(_: libc::c_int) {
    SIGINTS.fetch_add(1, Ordering::SeqCst);
}

/// Every SIGINT sent while projections run reaches the process's own handler (61 of
/// 200 were lost before the confirmation's solver was set with `ctrl_c=false`).
#[test]
fn projections_never_take_sigint_over() {
    // SAFETY: a plain handler that only counts; the previous one is put back.
    let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
    unsafe {
        let mut ours: libc::sigaction = std::mem::zeroed();
        ours.sa_sigaction = count_sigint as extern "C" fn(libc::c_int) as usize;
        libc::sigaction(libc::SIGINT, &ours, &mut old);
    }
    let done = Arc::new(AtomicBool::new(false));
    let busy = {
        let done = Arc::clone(&done);
        std::thread::spawn(move || {
            let solver = z3::Solver::new();
            solver.from_string(PROJECTION);
            let formula = solver.get_assertions().pop().expect("one assertion");
            let mut thread = QeThread::default();
            let mut projected = 0;
            while !done.load(Ordering::SeqCst) {
                projected += usize::from(thread.project(&formula, None, None).is_ok());
            }
            projected
        })
    };
    let mut lost = 0;
    for _ in 0..200 {
        let before = SIGINTS.load(Ordering::SeqCst);
        // SAFETY: signals this process, whose handler only counts.
        unsafe { libc::kill(libc::getpid(), libc::SIGINT) };
        let sent = Instant::now();
        while SIGINTS.load(Ordering::SeqCst) == before
            && sent.elapsed() < Duration::from_millis(300)
        {
            std::thread::yield_now();
        }
        lost += usize::from(SIGINTS.load(Ordering::SeqCst) == before);
        std::thread::sleep(Duration::from_millis(2));
    }
    done.store(true, Ordering::SeqCst);
    let projected = busy.join().expect("the projecting thread ends");
    // SAFETY: puts back the handler found at the start.
    unsafe { libc::sigaction(libc::SIGINT, &old, std::ptr::null_mut()) };
    assert!(projected > 0, "no projection ran beside the signals");
    assert_eq!(lost, 0, "SIGINTs taken by Z3");
}
