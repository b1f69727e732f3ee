//! One row of `runs.csv`: the outcome of a single `holi check` process at one bound.

use serde::de::DeserializeOwned;
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

/// Which of the two binaries of `holi-bench compare` made a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Binary {
    Baseline,
    New,
}

impl Binary {
    pub const BOTH: [Binary; 2] = [Binary::Baseline, Binary::New];

    pub fn name(self) -> &'static str {
        match self {
            Binary::Baseline => "baseline",
            Binary::New => "new",
        }
    }
}

/// What identifies one run in `runs.csv`: the cell, and for `compare` the binary and round.
pub type RunKey = (String, u32, u32, Option<Binary>, Option<u32>);

/// A row of `runs.csv`. Column order is the file format; `note` carries the reason for
/// an error and anything else worth keeping about a run. `binary` and `round` are written
/// only by `compare` (a grid's `runs.csv` has no such columns).
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binary: Option<Binary>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<u32>,
    /// `stats.solver_seconds` of the JSON report (absent from files written before it).
    #[serde(default)]
    pub solver_seconds: Option<f64>,
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
            binary: None,
            round: None,
            solver_seconds: None,
        }
    }

    pub fn key(&self) -> (String, u32, u32) {
        (self.file.clone(), self.k, self.l)
    }

    pub fn run_key(&self) -> RunKey {
        (self.file.clone(), self.k, self.l, self.binary, self.round)
    }

    /// "Found" in the agreement tables: at least one failing trace was reported.
    pub fn found(&self) -> bool {
        self.failing_traces.unwrap_or(0) > 0
    }
}

/// Reads `runs.csv` of a grid, keeping the last row for each (file, k, l).
pub fn read_runs(path: &Path) -> io::Result<BTreeMap<(String, u32, u32), RunRecord>> {
    Ok(read_all_runs(path)?
        .into_iter()
        .map(|record| (record.key(), record))
        .collect())
}

/// Reads `runs.csv`, keeping the last row for each run (file, k, l, and for `compare` the
/// binary and round). A missing file is an empty result; a malformed row (for example a
/// line cut short when the machine stopped mid-write) is skipped with a warning so that a
/// resumed run simply redoes it.
pub fn read_runs_by_run(path: &Path) -> io::Result<BTreeMap<RunKey, RunRecord>> {
    Ok(read_all_runs(path)?
        .into_iter()
        .map(|record| (record.run_key(), record))
        .collect())
}

fn read_all_runs(path: &Path) -> io::Result<Vec<RunRecord>> {
    read_rows(path)
}

/// Reads a CSV file of `T` rows: a missing file is empty, and a malformed row is skipped
/// with a warning (see [`read_runs_by_run`]).
pub fn read_rows<T: DeserializeOwned>(path: &Path) -> io::Result<Vec<T>> {
    let mut rows = Vec::new();
    if !path.exists() {
        return Ok(rows);
    }
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_path(path)?;
    for (index, row) in reader.deserialize::<T>().enumerate() {
        match row {
            Ok(record) => rows.push(record),
            Err(error) => eprintln!(
                "warning: {}: skipping malformed row {}: {error}",
                path.display(),
                index + 2
            ),
        }
    }
    Ok(rows)
}

/// Writes `rows` to a CSV file, replacing it.
pub fn write_rows<T: Serialize>(path: &Path, rows: &[T]) -> Result<(), String> {
    let mut writer =
        csv::Writer::from_path(path).map_err(|e| format!("{}: {e}", path.display()))?;
    for row in rows {
        writer.serialize(row).map_err(|e| e.to_string())?;
    }
    writer.flush().map_err(|e| e.to_string())
}

/// Appends rows to `runs.csv` one at a time, flushing each, so an interrupted benchmark
/// loses at most the runs that were in flight.
pub struct RunsWriter {
    writer: csv::Writer<File>,
}

impl RunsWriter {
    /// Refuses a file written before the last column was added: its rows would not
    /// line up with the ones appended.
    pub fn open(path: &Path) -> io::Result<Self> {
        let fresh = std::fs::metadata(path)
            .map(|m| m.len() == 0)
            .unwrap_or(true);
        if !fresh {
            let text = std::fs::read_to_string(path)?;
            let header = text.lines().next().unwrap_or_default();
            if !header.split(',').any(|column| column == "solver_seconds") {
                return Err(io::Error::other(format!(
                    "{} was written before its `solver_seconds` column: resume it with the \
                     holi-bench that wrote it, or use a new --name",
                    path.display()
                )));
            }
        }
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

    #[test]
    fn compare_rows_carry_binary_and_round_and_grid_rows_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let grid = dir.path().join("grid.csv");
        let row = RunRecord::bare("a.holi", 2, 1, Status::Done, 1.0, String::new());
        RunsWriter::open(&grid).unwrap().append(&row).unwrap();
        let text = std::fs::read_to_string(&grid).unwrap();
        assert!(text.starts_with("file,k,l,verdict,failing_traces,min_moves,seconds,peak_rss_mb,configurations,solver_queries,status,note,solver_seconds\n"), "{text}");

        let compare = dir.path().join("compare.csv");
        let mut writer = RunsWriter::open(&compare).unwrap();
        for (binary, round) in [(Binary::Baseline, 1), (Binary::New, 1), (Binary::New, 2)] {
            let mut row = row.clone();
            row.binary = Some(binary);
            row.round = Some(round);
            writer.append(&row).unwrap();
        }
        let text = std::fs::read_to_string(&compare).unwrap();
        assert!(text.starts_with("file,k,l,verdict,failing_traces,min_moves,seconds,peak_rss_mb,configurations,solver_queries,status,note,binary,round,solver_seconds\n"), "{text}");
        assert!(text.contains(",done,,new,2,\n"), "{text}");
        // A file of the format before `solver_seconds` is read, but not appended to.
        let old = dir.path().join("old.csv");
        std::fs::write(&old, "file,k,l,verdict,failing_traces,min_moves,seconds,peak_rss_mb,configurations,solver_queries,status,note\na.holi,2,1,,,,1.0,,,,done,\n").unwrap();
        assert_eq!(read_runs(&old).unwrap().len(), 1);
        assert!(RunsWriter::open(&old).is_err());
        let rows = read_runs_by_run(&compare).unwrap();
        assert_eq!(rows.len(), 3);
        let key = ("a.holi".to_string(), 2, 1, Some(Binary::New), Some(2));
        assert_eq!(rows[&key].round, Some(2));
        // A grid file reads back without the compare columns.
        assert_eq!(read_runs_by_run(&grid).unwrap().values().next(), Some(&row));
    }
}
