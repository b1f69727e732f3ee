//! Running one `holi check` process: its own process group, a wall-clock timeout enforced
//! by killing that group, and the peak resident set size from `wait4`.

use std::collections::HashSet;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// How a child process ended.
#[derive(Debug)]
pub struct Finished {
    /// `Some(code)` if it exited, `None` if a signal ended it.
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub timed_out: bool,
    /// Killed because the user interrupted the benchmark, not because of its own timeout.
    pub interrupted: bool,
    pub seconds: f64,
    pub peak_rss_mb: f64,
    pub stdout: String,
    pub stderr: String,
}

/// The process groups currently running, so that an interrupt can end all of them.
#[derive(Default)]
pub struct Supervisor {
    groups: Mutex<HashSet<i32>>,
    interrupted: AtomicBool,
}

impl Supervisor {
    /// Kills every running group and refuses to start new ones.
    pub fn interrupt(&self) {
        self.interrupted.store(true, Ordering::SeqCst);
        let groups = self.groups.lock().unwrap_or_else(|e| e.into_inner());
        for &group in groups.iter() {
            kill_group(group);
        }
    }

    pub fn is_interrupted(&self) -> bool {
        self.interrupted.load(Ordering::SeqCst)
    }

    fn register(&self, group: i32) {
        let mut groups = self.groups.lock().unwrap_or_else(|e| e.into_inner());
        groups.insert(group);
        // An interrupt that arrived while this child was starting must still end it.
        if self.is_interrupted() {
            kill_group(group);
        }
    }

    fn unregister(&self, group: i32) {
        self.groups
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&group);
    }
}

fn kill_group(group: i32) {
    // SAFETY: kill has no memory-safety preconditions; a negative pid names a group.
    unsafe {
        libc::kill(-group, libc::SIGKILL);
    }
}

/// Runs `program args…` with stdin closed, capturing stdout and stderr, and kills its
/// whole process group once `timeout` has elapsed.
pub fn run(
    program: &Path,
    args: &[String],
    timeout: Duration,
    supervisor: &Supervisor,
) -> Result<Finished, String> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
    let start = Instant::now();
    let pid = child.id() as i32;
    supervisor.register(pid);

    let stdout = child.stdout.take().map(drain);
    let stderr = child.stderr.take().map(drain);

    // The watchdog kills the group unless the child has exited first. The child is not
    // reaped until `exited` is set, so its pid (and group id) cannot be reused by then.
    let exited = Arc::new((Mutex::new(false), Condvar::new()));
    let timed_out = Arc::new(AtomicBool::new(false));
    let watchdog = {
        let exited = Arc::clone(&exited);
        let timed_out = Arc::clone(&timed_out);
        thread::spawn(move || {
            let (lock, condvar) = &*exited;
            let guard = lock.lock().unwrap_or_else(|e| e.into_inner());
            let (guard, _) = condvar
                .wait_timeout_while(guard, timeout, |done| !*done)
                .unwrap_or_else(|e| e.into_inner());
            if !*guard {
                timed_out.store(true, Ordering::SeqCst);
                kill_group(pid);
            }
        })
    };

    wait_without_reaping(pid);
    let seconds = start.elapsed().as_secs_f64();
    {
        let (lock, condvar) = &*exited;
        *lock.lock().unwrap_or_else(|e| e.into_inner()) = true;
        condvar.notify_all();
    }
    let _ = watchdog.join();
    // Anything the child left behind in its group goes too, so the pipes close.
    kill_group(pid);
    let (status, rusage) = reap(pid);
    supervisor.unregister(pid);
    drop(child);

    let stdout = stdout.and_then(|h| h.join().ok()).unwrap_or_default();
    let stderr = stderr.and_then(|h| h.join().ok()).unwrap_or_default();
    let (exit_code, signal) = if libc::WIFEXITED(status) {
        (Some(libc::WEXITSTATUS(status)), None)
    } else if libc::WIFSIGNALED(status) {
        (None, Some(libc::WTERMSIG(status)))
    } else {
        (None, None)
    };
    Ok(Finished {
        exit_code,
        signal,
        timed_out: timed_out.load(Ordering::SeqCst),
        interrupted: supervisor.is_interrupted(),
        seconds,
        // Linux reports ru_maxrss in KiB.
        peak_rss_mb: rusage.ru_maxrss as f64 / 1024.0,
        stdout,
        stderr,
    })
}

fn drain(mut pipe: impl Read + Send + 'static) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// Blocks until `pid` has exited, leaving it a zombie.
fn wait_without_reaping(pid: i32) {
    loop {
        // SAFETY: `info` is a valid, zeroed siginfo_t that waitid fills in.
        let rc = unsafe {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOWAIT,
            )
        };
        if rc == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return;
        }
    }
}

/// Reaps `pid`, returning its wait status and resource usage.
fn reap(pid: i32) -> (i32, libc::rusage) {
    let mut status = 0;
    // SAFETY: all-zero is a valid rusage; wait4 writes into both out-parameters.
    let mut rusage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: see above; the pointers are valid for the duration of the call.
        let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut rusage) };
        if rc >= 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return (status, rusage);
        }
    }
}

/// The holi binary to benchmark: the one given, or `holi` beside this executable (both are
/// built into the same `target/<profile>/`).
pub fn locate_holi(given: Option<PathBuf>) -> Result<PathBuf, String> {
    if let Some(path) = given {
        return if path.is_file() {
            Ok(path)
        } else {
            Err(format!("--holi {}: no such file", path.display()))
        };
    }
    let sibling = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join("holi")));
    match sibling {
        Some(path) if path.is_file() => Ok(path),
        _ => Err(
            "cannot find the holi binary next to holi-bench; build it with \
                  `cargo build --release -p holi` (or pass --holi PATH)"
                .to_string(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str, timeout: Duration) -> Finished {
        let args = vec!["-c".to_string(), script.to_string()];
        run(Path::new("/bin/sh"), &args, timeout, &Supervisor::default()).unwrap()
    }

    #[test]
    fn captures_output_and_exit_code() {
        let done = sh("echo out; echo err >&2; exit 3", Duration::from_secs(30));
        assert_eq!(done.exit_code, Some(3));
        assert!(!done.timed_out);
        assert_eq!(done.stdout, "out\n");
        assert_eq!(done.stderr, "err\n");
        assert!(done.peak_rss_mb > 0.0);
    }

    #[test]
    fn the_timeout_kills_the_whole_group() {
        // The grandchild `sleep` holds stdout open: unless the group dies the read blocks.
        let start = Instant::now();
        let done = sh("sleep 30 & sleep 30", Duration::from_millis(300));
        assert!(done.timed_out);
        assert_eq!(done.signal, Some(libc::SIGKILL));
        assert!(start.elapsed() < Duration::from_secs(20));
    }

    #[test]
    fn a_missing_program_is_an_error_not_a_panic() {
        let result = run(
            Path::new("/nonexistent/holi"),
            &[],
            Duration::from_secs(1),
            &Supervisor::default(),
        );
        assert!(result.unwrap_err().contains("cannot start"));
    }
}
