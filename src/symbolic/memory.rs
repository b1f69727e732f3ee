//! The memory limit of a check ([`super::Limits::max_memory`]).
//!
//! A thread samples the resident memory of the process and of its children (the
//! solver process, [`super::worker`]) every [`POLL`], and past the limit sets the flag
//! that the check takes for the user's interrupt: every phase (the search, the
//! over-approximation before it, the split, solver queries, projections) already
//! stops cleanly on it, so the limit holds wherever the memory goes, Z3 included.
//! Sampling costs a few reads of `/proc` per poll, nothing per configuration. Where
//! `/proc` cannot be read (not Linux), the limit is not enforced.

use std::fs;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// How often the resident memory is sampled: at a few GB/s of allocation, the limit
/// is overrun by tens of MB at most.
const POLL: Duration = Duration::from_millis(10);

/// Resident memory of this process and of its children, in bytes; `None` when it
/// cannot be read.
pub fn resident() -> Option<u64> {
    let mut total = resident_of("self")?;
    // Children are listed per thread that started them; a list that cannot be read
    // (a kernel without it, a thread that just ended) adds nothing.
    if let Ok(tasks) = fs::read_dir("/proc/self/task") {
        for task in tasks.flatten() {
            let Ok(children) = fs::read_to_string(task.path().join("children")) else {
                continue;
            };
            for child in children.split_whitespace() {
                total += resident_of(child).unwrap_or(0);
            }
        }
    }
    Some(total)
}

/// The `VmRSS` of `/proc/<process>/status`, in bytes.
fn resident_of(process: &str) -> Option<u64> {
    let status = fs::read_to_string(format!("/proc/{process}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// The watching thread, while a check runs; stopped (and joined) when dropped.
pub struct Watch {
    /// Set when the memory limit is exceeded or the user interrupts.
    stop: Arc<AtomicBool>,
    exceeded: Arc<AtomicBool>,
    done: Option<Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Watch {
    /// Watches for `limit` bytes, passing `user`'s interrupt on to [`Watch::flag`].
    /// Without a thread (the system refuses one), the limit is not enforced but the
    /// user's interrupt still is: the flag is then `user`'s own.
    pub fn start(limit: u64, user: Option<Arc<AtomicBool>>) -> Watch {
        let stop = Arc::new(AtomicBool::new(false));
        let exceeded = Arc::new(AtomicBool::new(false));
        let (done, finished) = mpsc::channel::<()>();
        let thread = {
            let (stop, exceeded, user) = (Arc::clone(&stop), Arc::clone(&exceeded), user.clone());
            std::thread::Builder::new()
                .name("holi-memory".to_string())
                .spawn(move || loop {
                    if user.as_ref().is_some_and(|u| u.load(Ordering::Relaxed)) {
                        stop.store(true, Ordering::Relaxed);
                    }
                    // A watch without a limit only passes the interrupt on.
                    if limit != u64::MAX
                        && !exceeded.load(Ordering::Relaxed)
                        && resident().is_some_and(|r| r > limit)
                    {
                        exceeded.store(true, Ordering::Relaxed);
                        stop.store(true, Ordering::Relaxed);
                    }
                    match finished.recv_timeout(POLL) {
                        Err(RecvTimeoutError::Timeout) => {}
                        _ => return,
                    }
                })
                .ok()
        };
        let stop = match (&thread, user) {
            (None, Some(user)) => user,
            _ => stop,
        };
        Watch {
            stop,
            exceeded,
            done: Some(done),
            thread,
        }
    }

    /// The flag that stops the check: the memory limit's or the user's interrupt.
    pub fn flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.stop)
    }

    /// Stops the check it serves, as its limit would. Without a thread the flag is
    /// the user's interrupt, which this never sets: nothing is stopped then.
    pub fn stop(&self) {
        if self.thread.is_some() {
            self.stop.store(true, Ordering::Relaxed);
        }
    }

    /// Whether the limit was exceeded.
    pub fn exceeded(&self) -> bool {
        self.exceeded.load(Ordering::Relaxed)
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.done.take();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The note of a check stopped by the memory limit of `limit` bytes.
pub fn note(limit: u64) -> String {
    format!(
        "search stopped: the memory limit ({} MiB, --max-memory) was exceeded",
        limit >> 20
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn resident_memory_is_read_here() {
        let rss = resident().expect("Linux has /proc");
        // The test binary alone is more than a MiB and less than a TiB.
        assert!(rss > 1 << 20 && rss < 1 << 40, "{rss}");
    }

    #[test]
    fn the_flag_is_set_past_the_limit_and_by_the_user() {
        let watch = Watch::start(1 << 20, None);
        let start = Instant::now();
        while !watch.flag().load(Ordering::Relaxed) && start.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(POLL);
        }
        assert!(watch.exceeded());
        assert!(watch.flag().load(Ordering::Relaxed));

        let user = Arc::new(AtomicBool::new(false));
        let watch = Watch::start(1 << 50, Some(Arc::clone(&user)));
        std::thread::sleep(POLL * 3);
        assert!(!watch.flag().load(Ordering::Relaxed));
        user.store(true, Ordering::Relaxed);
        let start = Instant::now();
        while !watch.flag().load(Ordering::Relaxed) && start.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(POLL);
        }
        assert!(watch.flag().load(Ordering::Relaxed));
        assert!(!watch.exceeded());
    }
}
