//! `holi equiv` from the editor: the document's library against another, in a child
//! `holi equiv` process, so that the answer is exactly the command's (bounds, deepening
//! within the time limit, the proof attempt, the confirming client) and cancelling it
//! is ending the process.

use super::checking::Settings;
use lsp_types::Uri;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// How many other libraries the editor is offered to compare with.
const MAX_PARTNERS: usize = 8;

/// A comparison under way.
pub struct Comparing {
    id: u64,
    title: String,
    child: Arc<Mutex<Child>>,
    cancelled: Arc<AtomicBool>,
}

impl Comparing {
    pub fn id(&self) -> u64 {
        self.id
    }

    /// `dao.holi vs dao_fixed.holi`.
    pub fn title(&self) -> &str {
        &self.title
    }

    /// Ends the comparison's process; its result is then dropped.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
        if let Ok(mut child) = self.child.lock() {
            // It may have ended already.
            let _ = child.kill();
        }
    }
}

/// A comparison that ended.
pub struct Compared {
    pub id: u64,
    /// The command's text report (or its diagnostics, for files it could not compare).
    pub text: String,
    /// The verdict line.
    headline: String,
    /// Whether it could not compare them (bad input, or the process failed).
    pub failed: bool,
    /// Whether they were told apart, or the answer is not settled (a limit, a stuck
    /// path).
    pub differs_or_unsettled: bool,
    /// The HTML report, where it was written.
    pub page: Option<PathBuf>,
}

impl Compared {
    pub fn headline(&self) -> &str {
        &self.headline
    }
}

/// The libraries beside `uri`'s file it may be compared with: the other `.holi` files of
/// its folder, those whose names share the longest start with its own first.
pub fn partners(uri: &Uri) -> Vec<PathBuf> {
    let Some(path) = super::address::path_of(uri) else {
        return Vec::new();
    };
    let Some(dir) = path.parent() else {
        return Vec::new();
    };
    let own = super::address::stem(uri);
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    found.retain(|p| p.extension().is_some_and(|e| e == "holi") && *p != path && p.is_file());
    let shared = |p: &Path| {
        let name = p.file_stem().map(|s| s.to_string_lossy().into_owned());
        let name = name.unwrap_or_default();
        own.chars()
            .zip(name.chars())
            .take_while(|(a, b)| a == b)
            .count()
    };
    found.sort_by(|a, b| shared(b).cmp(&shared(a)).then_with(|| a.cmp(b)));
    found.truncate(MAX_PARTNERS);
    found
}

/// Starts `holi equiv LEFT RIGHT` with the settings' time and memory limits; `ended`
/// gets its result, unless it was cancelled.
pub fn start(
    left: PathBuf,
    right: PathBuf,
    settings: &Settings,
    ended: impl FnOnce(Compared) + Send + 'static,
) -> std::io::Result<Comparing> {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    let name = |p: &Path| {
        p.file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    };
    let title = format!("{} vs {}", name(&left), name(&right));
    let dir = super::address::scratch();
    std::fs::create_dir_all(&dir)?;
    let page = dir.join(format!(
        "{}-vs-{}.html",
        left.file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned()),
        right
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned()),
    ));
    let holi = std::env::current_exe()?;
    let mut child = Command::new(holi)
        .arg("equiv")
        .arg(&left)
        .arg(&right)
        .arg("--timeout")
        .arg(format!("{:.3}", settings.timeout.as_secs_f64()))
        .arg("--max-memory")
        .arg((settings.max_memory >> 20).max(1).to_string())
        .arg("--report")
        .arg(&page)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let (stdout, stderr) = (child.stdout.take(), child.stderr.take());
    let child = Arc::new(Mutex::new(child));
    let waited = Arc::clone(&child);
    let cancelled = Arc::new(AtomicBool::new(false));
    let was_cancelled = Arc::clone(&cancelled);
    std::thread::Builder::new()
        .name("holi-lsp-equiv".to_string())
        .spawn(move || {
            let read = |pipe: Option<&mut dyn Read>| {
                let mut text = String::new();
                if let Some(pipe) = pipe {
                    let _ = pipe.read_to_string(&mut text);
                }
                text
            };
            let (mut stdout, mut stderr) = (stdout, stderr);
            // stderr is read on its own thread so that neither pipe fills and blocks.
            let errors =
                std::thread::spawn(move || read(stderr.as_mut().map(|p| p as &mut dyn Read)));
            let text = read(stdout.as_mut().map(|p| p as &mut dyn Read));
            let errors = errors.join().unwrap_or_default();
            let status = waited.lock().ok().and_then(|mut c| c.wait().ok());
            let Some(code) = status.and_then(|s| s.code()) else {
                // Cancelled: nobody waits for it. Killed otherwise (out of memory, say):
                // the user is told.
                if !was_cancelled.load(Ordering::Relaxed) {
                    let why = format!("holi equiv was stopped ({status:?}), with no answer");
                    ended(Compared {
                        id,
                        text: format!("{errors}{why}\n"),
                        headline: why,
                        failed: true,
                        differs_or_unsettled: false,
                        page: None,
                    });
                }
                return;
            };
            // `lang/equiv.md`: 0 equivalent, 1 inequivalent, 3 inconclusive, 4 stuck.
            let failed = !matches!(code, 0 | 1 | 3 | 4);
            let shown = if text.trim().is_empty() { errors } else { text };
            let headline = (shown.lines().find(|l| !l.trim().is_empty()))
                .unwrap_or("the comparison ended without a verdict")
                .to_string();
            ended(Compared {
                id,
                text: shown,
                headline,
                failed,
                differs_or_unsettled: matches!(code, 1 | 3 | 4),
                page: (!failed && page.is_file()).then_some(page),
            });
        })?;
    Ok(Comparing {
        id,
        title,
        child,
        cancelled,
    })
}
