//! One row of `runs.csv`: the outcome of a single `holi check` process at one bound.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io;
use std::path::Path;

/// How a run ended, from the runner's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// `holi check` finished with a verdict (exit 0 safe or 1 counterexample).
    Done,
    /// `holi check` itself gave up (exit 3): a limit, its own timeout, a solver `unknown`.
    Inconclusive,
    /// Bad input (exit 2), a crash, or output that is not the agreed JSON.
    Error,
    /// The runner killed the process at the wall-clock timeout.
    Timeout,
    /// Not run because the same file already timed out at a bound no larger in k and l
    /// (`--skip-after-timeout`); counted like a timeout in the tables.
    Skipped,
}

impl Status {
    pub const ALL: [Status; 5] = [
        Status::Done,
        Status::Inconclusive,
        Status::Error,
        Status::Timeout,
        Status::Skipped,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Status::Done => "done",
            Status::Inconclusive => "inconclusive",
            Status::Error => "error",
            Status::Timeout => "timeout",
            Status::Skipped => "skipped",
        }
    }

    /// Whether the run used (or is assumed to use) the whole time budget.
    pub fn out_of_time(self) -> bool {
        matches!(self, Status::Timeout | Status::Skipped)
    }
}

/// A row of `runs.csv`. Column order is the file format; `note` carries the reason for
/// an error and anything else worth keeping about a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    pub file: String,
    pub k: u32,
    pub l: u32,
    pub verdict: Option<String>,
    pub failing_traces: Option<u64>,
    pub min_moves: Option<u64>,
    pub seconds: f64,
    pub peak_rss_mb: Option<f64>,
    pub configurations: Option<u64>,
    pub solver_queries: Option<u64>,
    pub status: Status,
    pub note: String,
}

impl RunRecord {
    /// A record for a run that produced no output to parse.
    pub fn bare(file: &str, k: u32, l: u32, status: Status, seconds: f64, note: String) -> Self {
        RunRecord {
            file: file.to_string(),
            k,
            l,
            verdict: None,
            failing_traces: None,
            min_moves: None,
            seconds,
            peak_rss_mb: None,
            configurations: None,
            solver_queries: None,
            status,
            note,
        }
    }

    pub fn key(&self) -> (String, u32, u32) {
        (self.file.clone(), self.k, self.l)
    }

    /// "Found" in the agreement tables: at least one failing trace was reported.
    pub fn found(&self) -> bool {
        self.failing_traces.unwrap_or(0) > 0
    }
}

/// Reads `runs.csv`, keeping the last row for each (file, k, l). A missing file is an
/// empty result; a malformed row (for example a line cut short when the machine stopped
/// mid-write) is skipped with a warning so that a resumed run simply redoes it.
pub fn read_runs(path: &Path) -> io::Result<BTreeMap<(String, u32, u32), RunRecord>> {
    let mut rows = BTreeMap::new();
    if !path.exists() {
        return Ok(rows);
    }
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_path(path)?;
    for (index, row) in reader.deserialize::<RunRecord>().enumerate() {
        match row {
            Ok(record) => {
                rows.insert(record.key(), record);
            }
            Err(error) => eprintln!(
                "warning: {}: skipping malformed row {}: {error}",
                path.display(),
                index + 2
            ),
        }
    }
    Ok(rows)
}

/// Appends rows to `runs.csv` one at a time, flushing each, so an interrupted benchmark
/// loses at most the runs that were in flight.
pub struct RunsWriter {
    writer: csv::Writer<File>,
}

impl RunsWriter {
    pub fn open(path: &Path) -> io::Result<Self> {
        let fresh = std::fs::metadata(path)
            .map(|m| m.len() == 0)
            .unwrap_or(true);
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        let writer = csv::WriterBuilder::new()
            .has_headers(fresh)
            .from_writer(file);
        Ok(RunsWriter { writer })
    }

    pub fn append(&mut self, record: &RunRecord) -> io::Result<()> {
        self.writer.serialize(record).map_err(io::Error::other)?;
        self.writer.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_round_trip_and_resume_appends_without_a_second_header() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("runs.csv");
        let mut first = RunRecord::bare("a.holi", 2, 1, Status::Timeout, 1.5, String::new());
        first.note = "killed, at \"1.5s\"".to_string();
        RunsWriter::open(&path).unwrap().append(&first).unwrap();
        let mut second = RunRecord::bare("b.holi", 3, 2, Status::Done, 0.25, String::new());
        second.failing_traces = Some(4);
        second.min_moves = Some(3);
        second.verdict = Some("unsafe".to_string());
        RunsWriter::open(&path).unwrap().append(&second).unwrap();

        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.matches("file,k,l").count(), 1, "{text}");
        let rows = read_runs(&path).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[&("a.holi".to_string(), 2, 1)], first);
        assert_eq!(rows[&("b.holi".to_string(), 3, 2)], second);
    }

    #[test]
    fn a_truncated_last_line_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("runs.csv");
        let row = RunRecord::bare("a.holi", 2, 1, Status::Done, 1.0, String::new());
        RunsWriter::open(&path).unwrap().append(&row).unwrap();
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("b.holi,2,1,uns");
        std::fs::write(&path, text).unwrap();
        let rows = read_runs(&path).unwrap();
        assert_eq!(rows.len(), 1);
    }
}
