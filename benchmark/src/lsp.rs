//! `holi-bench lsp`: the language server's latency as an editor sees it (issue 46), on
//! every library of `examples/`: from a keystroke (a `didChange` of the whole text) to
//! its diagnostics, and from a save to the check's verdict (`holi/verdict`). One server
//! per run, driven over stdio; the files take turns round by round, so a noisy stretch
//! of the shared machine falls on all of them.

use crate::meta;
use crate::process;
use clap::Args;
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub struct LspArgs {
    /// The holi binary (default: `holi` beside this executable).
    #[arg(long)]
    holi: Option<PathBuf>,
    /// The libraries (default: the repository's examples/).
    #[arg(long)]
    examples: Option<PathBuf>,
    /// Keystrokes per file and round.
    #[arg(long, default_value_t = 20)]
    changes: usize,
    /// Rounds: each round changes, then saves, every file once in turn.
    #[arg(long, default_value_t = 5)]
    rounds: usize,
    /// The results directory (report.md, runs.csv).
    #[arg(long)]
    out: PathBuf,
}

/// How long one answer may take before the run is abandoned.
const PATIENCE: Duration = Duration::from_secs(120);

struct Server {
    child: Child,
    input: ChildStdin,
    messages: Receiver<Value>,
}

impl Server {
    fn start(holi: &Path) -> Result<Server, String> {
        let mut child = Command::new(holi)
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("{}: {e}", holi.display()))?;
        let input = child.stdin.take().ok_or("no stdin")?;
        let output = child.stdout.take().ok_or("no stdout")?;
        let (sender, messages) = mpsc::channel();
        std::thread::spawn(move || {
            let mut output = BufReader::new(output);
            while let Some(value) = read_frame(&mut output) {
                if sender.send(value).is_err() {
                    return;
                }
            }
        });
        let mut server = Server {
            child,
            input,
            messages,
        };
        // Checks only when saved: the keystrokes are timed alone.
        let options = json!({"checkOnOpen": false});
        server.send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                           "params": {"capabilities": {}, "initializationOptions": options}}))?;
        server.next(|m| m["id"] == 0)?;
        server.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}))?;
        Ok(server)
    }

    fn send(&mut self, message: Value) -> Result<(), String> {
        let text = message.to_string();
        let framed = format!("Content-Length: {}\r\n\r\n{text}", text.len());
        (self.input.write_all(framed.as_bytes()))
            .and_then(|()| self.input.flush())
            .map_err(|e| format!("the server stopped reading: {e}"))
    }

    fn next(&self, wanted: impl Fn(&Value) -> bool) -> Result<Value, String> {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = (self.messages.recv_timeout(left))
                .map_err(|_| "the server did not answer in time".to_string())?;
            if wanted(&message) {
                return Ok(message);
            }
        }
    }

    fn stop(mut self) {
        let _ = self.send(json!({"jsonrpc": "2.0", "id": 1, "method": "shutdown"}));
        let _ = self.next(|m| m["id"] == 1);
        let _ = self.send(json!({"jsonrpc": "2.0", "method": "exit"}));
        let _ = self.child.wait();
    }
}

fn read_frame(output: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if output.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(n) = line.strip_prefix("Content-Length: ") {
            length = n.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    output.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// One file's measurements.
struct File {
    name: String,
    uri: String,
    text: String,
    version: i64,
    /// Milliseconds from each `didChange` to its diagnostics.
    changes: Vec<f64>,
    /// Milliseconds from each `didSave` to the verdict.
    saves: Vec<f64>,
    verdict: String,
}

pub fn run(args: LspArgs) -> Result<(), String> {
    let holi = process::locate_holi(args.holi.clone())?;
    let root = meta::repo_root();
    let examples = (args.examples.clone()).unwrap_or_else(|| root.join("examples"));
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&examples)
        .map_err(|e| format!("{}: {e}", examples.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "holi"))
        .collect();
    paths.sort();
    let started = meta::utc_now();
    let mut server = Server::start(&holi)?;
    let mut files = Vec::new();
    for path in paths {
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let absolute = std::path::absolute(&path).map_err(|e| e.to_string())?;
        let uri = format!("file://{}", absolute.display());
        server.send(json!({"jsonrpc": "2.0", "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": uri, "languageId": "holi", "version": 1, "text": text}}}))?;
        published(&server, &uri, 1)?;
        files.push(File {
            name: path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            uri,
            text,
            version: 1,
            changes: Vec::new(),
            saves: Vec::new(),
            verdict: String::new(),
        });
    }
    for round in 0..args.rounds {
        for file in &mut files {
            for n in 0..args.changes {
                file.version += 1;
                // A keystroke at the end: a comment that grows, so each text is new.
                let text = format!("{}// {round} {n}\n", file.text);
                let sent = Instant::now();
                server.send(json!({"jsonrpc": "2.0", "method": "textDocument/didChange",
                    "params": {"textDocument": {"uri": file.uri, "version": file.version},
                               "contentChanges": [{"text": text}]}}))?;
                published(&server, &file.uri, file.version)?;
                file.changes.push(sent.elapsed().as_secs_f64() * 1e3);
            }
            let sent = Instant::now();
            server.send(json!({"jsonrpc": "2.0", "method": "textDocument/didSave",
                "params": {"textDocument": {"uri": file.uri}}}))?;
            let verdict = server.next(|m| {
                m["method"] == "holi/verdict"
                    && m["params"]["uri"] == file.uri.as_str()
                    && m["params"]["version"] == file.version
                    && m["params"]["state"] != "checking"
            })?;
            file.saves.push(sent.elapsed().as_secs_f64() * 1e3);
            file.verdict = verdict["params"]["state"]
                .as_str()
                .unwrap_or_default()
                .to_string();
        }
        eprintln!("round {} of {} done", round + 1, args.rounds);
    }
    server.stop();
    write(&args.out, &holi, &started, &args, &files)
}

fn published(server: &Server, uri: &str, version: i64) -> Result<Value, String> {
    server.next(|m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == uri
            && m["params"]["version"] == version
    })
}

fn median(values: &[f64]) -> f64 {
    crate::compare::median(&mut values.to_vec()).unwrap_or(f64::NAN)
}

fn max(values: &[f64]) -> f64 {
    values.iter().copied().fold(f64::NAN, f64::max)
}

fn write(
    out: &Path,
    holi: &Path,
    started: &str,
    args: &LspArgs,
    files: &[File],
) -> Result<(), String> {
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut csv = String::from("file,bytes,verdict,kind,run,milliseconds\n");
    for f in files {
        for (kind, values) in [("change", &f.changes), ("save", &f.saves)] {
            for (i, ms) in values.iter().enumerate() {
                let _ = writeln!(
                    csv,
                    "{},{},{},{kind},{i},{ms:.3}",
                    f.name,
                    f.text.len(),
                    f.verdict
                );
            }
        }
    }
    let machine = meta::Machine::detect();
    let mut report = format!(
        "# `holi lsp`: keystroke to diagnostics, save to verdict\n\n\
         holi {} (`{}`), started {started}, on {} ({} cores, {:.0} GiB). {} rounds; per \
         file and round {} keystrokes (a `didChange` with the whole text, a comment added \
         at its end) timed to their `publishDiagnostics`, then one `didSave` timed to its \
         `holi/verdict`. One server for the whole run; the files take turns.\n\n",
        meta::holi_commit(),
        holi.display(),
        machine.cpu,
        machine.cores,
        machine.memory_gib,
        args.rounds,
        args.changes,
    );
    let all_changes: Vec<f64> = files
        .iter()
        .flat_map(|f| f.changes.iter().copied())
        .collect();
    let medians: Vec<f64> = files.iter().map(|f| median(&f.saves)).collect();
    let _ = writeln!(
        report,
        "Keystroke to diagnostics: median {:.2} ms over all {} keystrokes, the slowest {:.2} ms. \
         Save to verdict: the median per file from {:.1} ms to {:.1} ms.\n",
        median(&all_changes),
        all_changes.len(),
        max(&all_changes),
        medians.iter().copied().fold(f64::INFINITY, f64::min),
        max(&medians),
    );
    report.push_str("| file | bytes | verdict | keystroke median ms | keystroke max ms | save to verdict median ms | save max ms |\n|---|---|---|---|---|---|---|\n");
    for f in files {
        let _ = writeln!(
            report,
            "| {} | {} | {} | {:.2} | {:.2} | {:.1} | {:.1} |",
            f.name,
            f.text.len(),
            f.verdict,
            median(&f.changes),
            max(&f.changes),
            median(&f.saves),
            max(&f.saves)
        );
    }
    let write = |name: &str, text: &str| {
        std::fs::write(out.join(name), text).map_err(|e| format!("{}: {e}", out.display()))
    };
    write("runs.csv", &csv)?;
    write("report.md", &report)
}
