//! The grid runner: every (file, k, l) cell as its own `holi check` process, a few at a
//! time, each result appended to `runs.csv` as soon as it is known. `compare` uses it too,
//! with jobs tagged by binary and round.

use crate::process::{self, Finished, Supervisor};
use crate::record::{read_runs_by_run, Binary, RunRecord, RunsWriter, Status};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::Value;
use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

/// One cell of the grid.
#[derive(Clone, Debug)]
pub struct Job {
    pub path: PathBuf,
    /// The file name as it appears in `runs.csv` and `reference.csv`.
    pub file: String,
    pub k: u32,
    pub l: u32,
    /// `compare` only: which binary runs the cell, and in which round.
    pub binary: Option<Binary>,
    pub round: Option<u32>,
}

impl Job {
    /// A row for this job that has no output to parse.
    fn bare(&self, status: Status, seconds: f64, note: String) -> RunRecord {
        self.tag(RunRecord::bare(
            &self.file, self.k, self.l, status, seconds, note,
        ))
    }

    fn tag(&self, mut record: RunRecord) -> RunRecord {
        record.binary = self.binary;
        record.round = self.round;
        record
    }

    fn run_key(&self) -> crate::record::RunKey {
        (self.file.clone(), self.k, self.l, self.binary, self.round)
    }
}

pub struct RunConfig {
    /// The binary under test (`new` in a comparison).
    pub holi: PathBuf,
    /// `compare` only: the binary that runs the jobs tagged `baseline`.
    pub baseline: Option<PathBuf>,
    pub timeout: Duration,
    pub jobs: usize,
    /// Extra arguments for every `holi check`, after the bounds and `--format json`.
    pub extra_args: Vec<String>,
    /// Record a cell as `skipped` when the same file already timed out at a bound no
    /// larger in both k and l.
    pub skip_after_timeout: bool,
    pub progress: bool,
}

/// Every `.holi` file directly in `dir`, sorted by name.
pub fn programs_in(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "holi") && path.is_file())
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(format!("no .holi files in {}", dir.display()));
    }
    Ok(files)
}

/// The grid in run order: bound by bound (k, then l), files in name order within a bound,
/// so that a run stopped early has whole bounds rather than whole files.
pub fn grid_jobs(files: &[PathBuf], ks: &[u32], ls: &[u32]) -> Vec<Job> {
    let mut jobs = Vec::new();
    for &k in ks {
        for &l in ls {
            for path in files {
                let file = path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                jobs.push(Job {
                    path: path.clone(),
                    file,
                    k,
                    l,
                    binary: None,
                    round: None,
                });
            }
        }
    }
    jobs
}

/// The arguments of one `holi check` invocation.
pub fn check_args(job: &Job, extra: &[String]) -> Vec<String> {
    let mut args = vec![
        "check".to_string(),
        job.path.to_string_lossy().into_owned(),
        "--k".to_string(),
        job.k.to_string(),
        "--l".to_string(),
        job.l.to_string(),
        "--format".to_string(),
        "json".to_string(),
        // HOLiK drops stuck paths silently; compare like with like.
        "--allow-stuck".to_string(),
    ];
    args.extend(extra.iter().cloned());
    args
}

/// Turns a finished process into a row: exit 0/1 with the agreed JSON is `done`, 3 is
/// `inconclusive`, a kill at the deadline is `timeout`, and anything else is an `error`
/// whose reason goes into `note`.
pub fn classify(job: &Job, finished: &Finished) -> RunRecord {
    let bare = |status, note| job.bare(status, finished.seconds, note);
    let mut record = if finished.timed_out {
        bare(Status::Timeout, String::new())
    } else {
        match finished.exit_code {
            Some(code @ (0 | 1 | 3)) => match parse_report(&finished.stdout) {
                Ok(mut record) => {
                    record.file = job.file.clone();
                    record.k = job.k;
                    record.l = job.l;
                    record = job.tag(record);
                    record.seconds = finished.seconds;
                    record.status = if code == 3 {
                        Status::Inconclusive
                    } else {
                        Status::Done
                    };
                    record.note = consistency_note(code, record.verdict.as_deref());
                    record
                }
                Err(reason) => bare(Status::Error, format!("exit {code}: {reason}")),
            },
            Some(code) => bare(
                Status::Error,
                format!("exit {code}: {}", first_line(&finished.stderr)),
            ),
            None => bare(
                Status::Error,
                format!(
                    "killed by signal {}: {}",
                    finished.signal.unwrap_or(0),
                    first_line(&finished.stderr)
                ),
            ),
        }
    };
    record.peak_rss_mb = Some((finished.peak_rss_mb * 10.0).round() / 10.0);
    record.seconds = (record.seconds * 1000.0).round() / 1000.0;
    record
}

fn consistency_note(code: i32, verdict: Option<&str>) -> String {
    let expected = match code {
        0 => "safe",
        1 => "unsafe",
        _ => "inconclusive",
    };
    match verdict {
        Some(v) if v != expected => format!("exit {code} but verdict {v}"),
        _ => String::new(),
    }
}

/// The first informative line of a diagnostic, without colour codes, kept short.
fn first_line(text: &str) -> String {
    let plain = strip_ansi(text);
    let line = plain
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or("(no output on stderr)");
    line.chars().take(200).collect()
}

fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // Skip a CSI sequence: ESC [ parameters… final byte in @..~.
            if chars.next() == Some('[') {
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Reads the fields the benchmark needs from `holi check --format json` output, ignoring
/// any others.
pub fn parse_report(stdout: &str) -> Result<RunRecord, String> {
    let value: Value =
        serde_json::from_str(stdout.trim()).map_err(|e| format!("unparseable JSON: {e}"))?;
    let verdict = value
        .get("verdict")
        .and_then(Value::as_str)
        .ok_or("JSON has no \"verdict\"")?
        .to_string();
    let counterexamples = value
        .get("counterexamples")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let failing_traces = value
        .get("failing_traces")
        .and_then(Value::as_u64)
        .unwrap_or(counterexamples.len() as u64);
    let min_moves = counterexamples
        .iter()
        .filter_map(|c| c.get("moves").and_then(Value::as_u64))
        .min();
    let stat = |name: &str| {
        value
            .get("stats")
            .and_then(|s| s.get(name))
            .and_then(Value::as_u64)
    };
    Ok(RunRecord {
        file: String::new(),
        k: 0,
        l: 0,
        verdict: Some(verdict),
        failing_traces: Some(failing_traces),
        min_moves,
        seconds: 0.0,
        peak_rss_mb: None,
        configurations: stat("configurations"),
        solver_queries: stat("solver_queries"),
        status: Status::Done,
        note: String::new(),
        binary: None,
        round: None,
        solver_seconds: value
            .get("stats")
            .and_then(|s| s.get("solver_seconds"))
            .and_then(Value::as_f64),
    })
}

/// What a grid run did, for the summary line.
#[derive(Debug, Default)]
pub struct Summary {
    pub already_present: usize,
    pub ran: BTreeMap<Status, usize>,
    pub interrupted: bool,
}

/// A cell that ran out of time, with the binary that ran it (`None` in a grid).
type TimedOut = (String, u32, u32, Option<Binary>);

fn timed_out_key(record: &RunRecord) -> TimedOut {
    (record.file.clone(), record.k, record.l, record.binary)
}

/// Runs every job not already in `runs_csv`, in order, appending each result as it
/// finishes.
pub fn run_grid(jobs: Vec<Job>, runs_csv: &Path, config: &RunConfig) -> Result<Summary, String> {
    let existing =
        read_runs_by_run(runs_csv).map_err(|e| format!("{}: {e}", runs_csv.display()))?;
    let mut summary = Summary::default();
    let mut timed_out: Vec<TimedOut> = existing
        .values()
        .filter(|r| r.status.out_of_time())
        .map(timed_out_key)
        .collect();
    let pending: VecDeque<Job> = jobs
        .into_iter()
        .filter(|job| {
            let present = existing.contains_key(&job.run_key());
            summary.already_present += usize::from(present);
            !present
        })
        .collect();
    let mut writer =
        RunsWriter::open(runs_csv).map_err(|e| format!("{}: {e}", runs_csv.display()))?;

    let bar = if config.progress {
        let bar = ProgressBar::new(pending.len() as u64);
        bar.set_style(
            ProgressStyle::with_template(
                "{elapsed_precise} [{wide_bar}] {pos}/{len} eta {eta} {msg}",
            )
            .map_err(|e| e.to_string())?,
        );
        bar
    } else {
        ProgressBar::hidden()
    };

    let supervisor = Arc::new(Supervisor::default());
    {
        let supervisor = Arc::clone(&supervisor);
        // A second handler cannot be installed (e.g. in tests that run the grid twice);
        // the grid then simply runs without interrupt handling.
        let _ = ctrlc::set_handler(move || supervisor.interrupt());
    }

    let queue = Arc::new(Mutex::new(pending));
    let (sender, receiver) = mpsc::channel::<RunRecord>();
    let workers: Vec<_> = (0..config.jobs.max(1))
        .map(|_| {
            let queue = Arc::clone(&queue);
            let sender = sender.clone();
            let supervisor = Arc::clone(&supervisor);
            let holi = config.holi.clone();
            let baseline = config.baseline.clone();
            let extra = config.extra_args.clone();
            let timeout = config.timeout;
            thread::spawn(move || loop {
                if supervisor.is_interrupted() {
                    return;
                }
                let job = match queue.lock().unwrap_or_else(|e| e.into_inner()).pop_front() {
                    Some(job) => job,
                    None => return,
                };
                let program = match (job.binary, &baseline) {
                    (Some(Binary::Baseline), Some(baseline)) => baseline,
                    _ => &holi,
                };
                let record =
                    match process::run(program, &check_args(&job, &extra), timeout, &supervisor) {
                        Ok(finished) if finished.interrupted => return,
                        Ok(finished) => classify(&job, &finished),
                        Err(reason) => job.bare(Status::Error, 0.0, reason),
                    };
                if sender.send(record).is_err() {
                    return;
                }
            })
        })
        .collect();
    drop(sender);

    let mut counts: BTreeMap<Status, usize> = BTreeMap::new();
    for record in receiver {
        if record.status.out_of_time() {
            timed_out.push(timed_out_key(&record));
        }
        write_and_count(&mut writer, &record, &mut counts, &bar)?;
        if config.skip_after_timeout {
            for skipped in take_dominated(&queue, &timed_out, config.timeout) {
                write_and_count(&mut writer, &skipped, &mut counts, &bar)?;
            }
        }
    }
    for worker in workers {
        let _ = worker.join();
    }
    bar.finish_and_clear();
    summary.ran = counts;
    summary.interrupted = supervisor.is_interrupted();
    Ok(summary)
}

fn write_and_count(
    writer: &mut RunsWriter,
    record: &RunRecord,
    counts: &mut BTreeMap<Status, usize>,
    bar: &ProgressBar,
) -> Result<(), String> {
    writer.append(record).map_err(|e| e.to_string())?;
    *counts.entry(record.status).or_default() += 1;
    bar.inc(1);
    let tally: Vec<String> = counts
        .iter()
        .map(|(status, n)| format!("{} {n}", status.name()))
        .collect();
    let binary = record
        .binary
        .map_or(String::new(), |b| format!(" {}", b.name()));
    bar.set_message(format!(
        "{} k{} l{}{binary} {} | {}",
        record.file,
        record.k,
        record.l,
        record.status.name(),
        tally.join(", ")
    ));
    Ok(())
}

/// Removes from the queue every job dominated by a timed-out cell of the same file (run by
/// the same binary, in a comparison), and returns them as `skipped` rows charged the full
/// timeout.
fn take_dominated(
    queue: &Mutex<VecDeque<Job>>,
    timed_out: &[TimedOut],
    timeout: Duration,
) -> Vec<RunRecord> {
    let mut queue = queue.lock().unwrap_or_else(|e| e.into_inner());
    let mut skipped = Vec::new();
    queue.retain(|job| {
        let cause = timed_out.iter().find(|(file, k, l, binary)| {
            *file == job.file && *k <= job.k && *l <= job.l && *binary == job.binary
        });
        match cause {
            Some((_, k, l, _)) => {
                skipped.push(job.bare(
                    Status::Skipped,
                    timeout.as_secs_f64(),
                    format!("not run: timed out at k{k} l{l}"),
                ));
                false
            }
            None => true,
        }
    });
    skipped
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job() -> Job {
        Job {
            path: PathBuf::from("x.holi"),
            file: "x.holi".to_string(),
            k: 3,
            l: 2,
            binary: None,
            round: None,
        }
    }

    fn finished(code: Option<i32>, stdout: &str, stderr: &str) -> Finished {
        Finished {
            exit_code: code,
            signal: if code.is_none() { Some(6) } else { None },
            timed_out: false,
            interrupted: false,
            seconds: 1.23456,
            peak_rss_mb: 12.34,
            stdout: stdout.to_string(),
            stderr: stderr.to_string(),
        }
    }

    const UNSAFE: &str = r#"{"file":"x.holi","bounds":{"k":3,"l":2},"verdict":"unsafe",
        "counterexamples":[{"assert":{"line":3,"column":5},"kind":"assert","moves":5,"trace":[],"text":"","model":{},"replayed":true},
                           {"assert":{"line":3,"column":5},"kind":"division","moves":3,"trace":[],"text":"","model":{}}],
        "failing_traces":7,"stats":{"configurations":120,"solver_queries":33,"seconds":1.1},"future":"ignored"}"#;

    #[test]
    fn a_counterexample_run_is_done_with_its_numbers() {
        let record = classify(&job(), &finished(Some(1), UNSAFE, ""));
        assert_eq!(record.status, Status::Done);
        assert_eq!(record.verdict.as_deref(), Some("unsafe"));
        assert_eq!(record.failing_traces, Some(7));
        assert_eq!(record.min_moves, Some(3));
        assert_eq!(record.configurations, Some(120));
        assert_eq!(record.solver_queries, Some(33));
        assert_eq!(record.seconds, 1.235);
        assert_eq!(record.peak_rss_mb, Some(12.3));
        assert_eq!((record.file.as_str(), record.k, record.l), ("x.holi", 3, 2));
        assert_eq!(record.note, "");
    }

    #[test]
    fn exit_codes_map_to_statuses() {
        let safe = r#"{"verdict":"safe","counterexamples":[],"failing_traces":0,"stats":{}}"#;
        assert_eq!(
            classify(&job(), &finished(Some(0), safe, "")).status,
            Status::Done
        );
        let limit = r#"{"verdict":"inconclusive","counterexamples":[],"failing_traces":0}"#;
        let record = classify(&job(), &finished(Some(3), limit, ""));
        assert_eq!(record.status, Status::Inconclusive);
        assert_eq!(record.configurations, None);

        let bad = classify(
            &job(),
            &finished(
                Some(2),
                "",
                "\u{1b}[31mError:\u{1b}[0m unexpected `)`\n  at x.holi:1",
            ),
        );
        assert_eq!(bad.status, Status::Error);
        assert_eq!(bad.note, "exit 2: Error: unexpected `)`");

        let crash = classify(&job(), &finished(None, "", "thread 'main' panicked"));
        assert_eq!(crash.status, Status::Error);
        assert!(
            crash.note.starts_with("killed by signal 6"),
            "{}",
            crash.note
        );

        let garbage = classify(&job(), &finished(Some(1), "not json", ""));
        assert_eq!(garbage.status, Status::Error);
        assert!(
            garbage.note.contains("unparseable JSON"),
            "{}",
            garbage.note
        );
    }

    #[test]
    fn a_verdict_that_contradicts_the_exit_code_is_noted() {
        let record = classify(&job(), &finished(Some(0), UNSAFE, ""));
        assert_eq!(record.note, "exit 0 but verdict unsafe");
    }

    #[test]
    fn a_timeout_keeps_no_numbers() {
        let mut run = finished(None, "", "");
        run.timed_out = true;
        let record = classify(&job(), &run);
        assert_eq!(record.status, Status::Timeout);
        assert_eq!(record.failing_traces, None);
    }

    #[test]
    fn the_grid_runs_bound_by_bound() {
        let files = vec![PathBuf::from("d/a.holi"), PathBuf::from("d/b.holi")];
        let order: Vec<(String, u32, u32)> = grid_jobs(&files, &[2, 3], &[1, 2])
            .into_iter()
            .map(|j| (j.file, j.k, j.l))
            .collect();
        assert_eq!(order.len(), 8);
        assert_eq!(order[0], ("a.holi".to_string(), 2, 1));
        assert_eq!(order[1], ("b.holi".to_string(), 2, 1));
        assert_eq!(order[2], ("a.holi".to_string(), 2, 2));
        assert_eq!(order[7], ("b.holi".to_string(), 3, 2));
    }

    #[test]
    fn cells_dominated_by_a_timeout_are_skipped() {
        let files = vec![PathBuf::from("a.holi"), PathBuf::from("b.holi")];
        let queue = Mutex::new(VecDeque::from(grid_jobs(&files, &[2, 3], &[1, 2])));
        let skipped = take_dominated(
            &queue,
            &[("a.holi".to_string(), 2, 2, None)],
            Duration::from_secs(9),
        );
        let cells: Vec<(u32, u32)> = skipped.iter().map(|r| (r.k, r.l)).collect();
        assert_eq!(cells, vec![(2, 2), (3, 2)]);
        assert!(skipped
            .iter()
            .all(|r| r.status == Status::Skipped && r.seconds == 9.0));
        assert_eq!(queue.lock().unwrap().len(), 6);
    }

    #[test]
    fn in_a_comparison_a_timeout_skips_only_the_same_binary() {
        let files = vec![PathBuf::from("a.holi")];
        let jobs = crate::compare::compare_jobs(&files, &[2, 3], &[1], 2);
        let queue = Mutex::new(VecDeque::from(jobs));
        let skipped = take_dominated(
            &queue,
            &[("a.holi".to_string(), 2, 1, Some(Binary::New))],
            Duration::from_secs(9),
        );
        // Both rounds of the new binary at k 2 and k 3; the baseline runs everything.
        let runs: Vec<(u32, Option<Binary>, Option<u32>)> =
            skipped.iter().map(|r| (r.k, r.binary, r.round)).collect();
        assert_eq!(runs.len(), 4);
        assert!(runs.iter().all(|(_, b, _)| *b == Some(Binary::New)));
        assert!(runs.contains(&(3, Some(Binary::New), Some(2))));
        let left = queue.lock().unwrap();
        assert_eq!(left.len(), 4);
        assert!(left.iter().all(|j| j.binary == Some(Binary::Baseline)));
    }
}
