//! `report.md` for a grid run: holi's Table 1 beside HOLiK's, runs completed, time ratios,
//! verdict agreement and every disagreement.

use crate::meta::{Invocation, Meta};
use crate::record::{read_runs, RunRecord, Status};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::{self, Write as _};
use std::path::{Path, PathBuf};

/// A cell as Table 1 sees it, for either tool.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    pub file: String,
    pub k: u32,
    pub l: u32,
    pub traces: u64,
    pub done: bool,
    /// Counted as the timeout in column d.
    pub out_of_time: bool,
    pub seconds: f64,
    /// HOLiK only: traces counted modulo renaming of symbols (`traces-alpha.csv`).
    pub alpha_traces: Option<u64>,
}

impl Cell {
    fn from_run(run: &RunRecord) -> Cell {
        Cell {
            file: run.file.clone(),
            k: run.k,
            l: run.l,
            traces: run.failing_traces.unwrap_or(0),
            done: run.status == Status::Done,
            out_of_time: run.status.out_of_time(),
            seconds: run.seconds,
            alpha_traces: None,
        }
    }
}

/// One entry of Table 1: a/b/c (d).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Entry {
    /// Sum of failing traces.
    pub a: u64,
    /// Runs that finished.
    pub b: u64,
    /// Files with at least one failing trace.
    pub c: u64,
    /// Sum of seconds, each truncated, timeouts counted as the timeout.
    pub d: u64,
    pub cells: u64,
}

impl std::fmt::Display for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}/{} ({}s)", self.a, self.b, self.c, self.d)
    }
}

/// Aggregates cells per bound exactly as the HOLiK README derives the paper's Table 1:
/// a = Σ traces, b = #done, c = #files with traces > 0, d = Σ ⌊seconds⌋ with timeouts
/// counted as `timeout`.
pub fn table1(cells: &[Cell], timeout: f64) -> BTreeMap<(u32, u32), Entry> {
    let mut table: BTreeMap<(u32, u32), Entry> = BTreeMap::new();
    let mut found: BTreeMap<(u32, u32), BTreeSet<&str>> = BTreeMap::new();
    for cell in cells {
        let entry = table.entry((cell.k, cell.l)).or_default();
        entry.cells += 1;
        entry.a += cell.traces;
        entry.b += u64::from(cell.done);
        let seconds = if cell.out_of_time {
            timeout
        } else {
            cell.seconds
        };
        entry.d += seconds.max(0.0).trunc() as u64;
        if cell.traces > 0 {
            found
                .entry((cell.k, cell.l))
                .or_default()
                .insert(&cell.file);
        }
    }
    for (bound, files) in found {
        if let Some(entry) = table.get_mut(&bound) {
            entry.c = files.len() as u64;
        }
    }
    table
}

/// HOLiK's results, keyed by (file, k, l).
pub type Reference = BTreeMap<(String, u32, u32), Cell>;

/// Reads `reference.csv` (`file,k,l,label,traces,seconds,status`) and, when it is beside
/// it, `traces-alpha.csv` (`file,k,l,traces,traces_alpha_distinct`).
pub fn load_reference(path: &Path) -> Result<Reference, String> {
    #[derive(serde::Deserialize)]
    struct Row {
        file: String,
        k: u32,
        l: u32,
        traces: u64,
        seconds: f64,
        status: String,
    }
    let mut reader =
        csv::Reader::from_path(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut reference = Reference::new();
    for row in reader.deserialize::<Row>() {
        let row = row.map_err(|e| format!("{}: {e}", path.display()))?;
        let cell = Cell {
            file: row.file.clone(),
            k: row.k,
            l: row.l,
            traces: row.traces,
            done: row.status == "done",
            out_of_time: row.status == "timeout",
            seconds: row.seconds,
            alpha_traces: None,
        };
        reference.insert((row.file, row.k, row.l), cell);
    }
    let alpha_path = path.with_file_name("traces-alpha.csv");
    if alpha_path.is_file() {
        #[derive(serde::Deserialize)]
        struct Alpha {
            file: String,
            k: u32,
            l: u32,
            traces_alpha_distinct: u64,
        }
        let mut reader = csv::Reader::from_path(&alpha_path)
            .map_err(|e| format!("{}: {e}", alpha_path.display()))?;
        for row in reader.deserialize::<Alpha>() {
            let row = row.map_err(|e| format!("{}: {e}", alpha_path.display()))?;
            if let Some(cell) = reference.get_mut(&(row.file, row.k, row.l)) {
                cell.alpha_traces = Some(row.traces_alpha_distinct);
            }
        }
    }
    Ok(reference)
}

/// The HOLiK reference next to the repository (`../shared/holik-bench/reference.csv`).
pub fn default_reference() -> PathBuf {
    crate::meta::repo_root().join("../shared/holik-bench/reference.csv")
}

/// HOLiK's timeout in the Table 1 runs.
const HOLIK_TIMEOUT: f64 = 300.0;

fn median(values: &mut [f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    Some(if values.len().is_multiple_of(2) {
        (values[mid - 1] + values[mid]) / 2.0
    } else {
        values[mid]
    })
}

fn geomean(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    Some((values.iter().map(|v| v.ln()).sum::<f64>() / values.len() as f64).exp())
}

fn ratio_text(value: Option<f64>) -> String {
    match value {
        Some(v) if v >= 10.0 => format!("{v:.0}×"),
        Some(v) => format!("{v:.2}×"),
        None => "–".to_string(),
    }
}

/// holi's time as the ratio's denominator: a run too fast to time counts as 1 ms.
fn ratio(holik: &Cell, holi: &Cell) -> f64 {
    holik.seconds.max(0.001) / holi.seconds.max(0.001)
}

fn bound_label(k: u32, l: u32) -> String {
    format!("k ≤ {k}, l ≤ {l}")
}

/// Renders `table` in the paper's layout: one row per k, one column per l.
fn layout<T: fmt::Display>(table: &BTreeMap<(u32, u32), T>, ks: &[u32], ls: &[u32]) -> String {
    let mut out = String::from("| |");
    for l in ls {
        let _ = write!(out, " l ≤ {l} |");
    }
    out.push_str("\n|---|");
    out.push_str(&"---|".repeat(ls.len()));
    out.push('\n');
    for k in ks {
        let _ = write!(out, "| k ≤ {k} |");
        for l in ls {
            match table.get(&(*k, *l)) {
                Some(entry) => {
                    let _ = write!(out, " {entry} |");
                }
                None => out.push_str(" – |"),
            }
        }
        out.push('\n');
    }
    out
}

fn count_text(text: &RunRecord) -> String {
    match text.status {
        Status::Done => text.failing_traces.unwrap_or(0).to_string(),
        status => format!("{} ({})", text.failing_traces.unwrap_or(0), status.name()),
    }
}

fn holik_count_text(cell: &Cell) -> String {
    if cell.done {
        cell.traces.to_string()
    } else {
        format!("{} (timeout)", cell.traces)
    }
}

/// Writes `dir/report.md` from `dir/runs.csv` and `dir/meta.json`, comparing against the
/// HOLiK reference when it exists. Returns the report text.
pub fn write_report(dir: &Path, reference_path: &Path) -> Result<String, String> {
    let runs = read_runs(&dir.join("runs.csv")).map_err(|e| e.to_string())?;
    let meta = Meta::load(dir)?;
    let reference = if reference_path.is_file() {
        Some(load_reference(reference_path)?)
    } else {
        None
    };
    let text = render(dir, &runs, &meta, reference.as_ref(), reference_path);
    let path = dir.join("report.md");
    std::fs::write(&path, &text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(text)
}

fn render(
    dir: &Path,
    runs: &BTreeMap<(String, u32, u32), RunRecord>,
    meta: &Meta,
    reference: Option<&Reference>,
    reference_path: &Path,
) -> String {
    let last: Option<&Invocation> = meta.invocations.last();
    let timeout = last.map_or(HOLIK_TIMEOUT, |i| i.timeout_seconds);
    let ks: Vec<u32> = runs
        .keys()
        .map(|k| k.1)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let ls: Vec<u32> = runs
        .keys()
        .map(|k| k.2)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let name = dir
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());

    let mut out = String::new();
    let _ = writeln!(out, "# holi benchmark `{name}`\n");
    render_provenance(&mut out, runs, meta, timeout);
    if runs.is_empty() {
        out.push_str("No runs recorded yet.\n");
        return out;
    }

    let holi_cells: Vec<Cell> = runs.values().map(Cell::from_run).collect();
    let holi_table = table1(&holi_cells, timeout);
    out.push_str("## Table 1: holi\n\n");
    out.push_str(
        "Per bound, a/b/c (d) as the HOLiK README derives the paper's Table 1: a = the sum \
         of failing traces, b = the number of runs that finished (`done`), c = the number of \
         files with at least one failing trace (all files, not only unsafe-labelled ones), \
         d = the sum of each run's wall-clock seconds truncated to whole seconds, with \
         timeouts (and cells skipped after a timeout) counted as the timeout. holi's a \
         counts the failing traces holi reports (`failing_traces`); HOLiK's counts raw \
         solutions, which can name one trace several times with different symbol numbers.\n\n",
    );
    out.push_str(&layout(&holi_table, &ks, &ls));
    out.push('\n');

    let Some(reference) = reference else {
        let _ = writeln!(
            out,
            "## HOLiK comparison\n\nSkipped: the HOLiK reference `{}` is not present.",
            reference_path.display()
        );
        return out;
    };
    render_comparison(&mut out, runs, reference, &holi_table, &ks, &ls);
    out
}

pub(crate) fn render_provenance(
    out: &mut String,
    runs: &BTreeMap<(String, u32, u32), RunRecord>,
    meta: &Meta,
    timeout: f64,
) {
    let mut statuses: BTreeMap<Status, usize> = BTreeMap::new();
    for run in runs.values() {
        *statuses.entry(run.status).or_default() += 1;
    }
    let tally: Vec<String> = Status::ALL
        .iter()
        .filter_map(|s| statuses.get(s).map(|n| format!("{n} {}", s.name())))
        .collect();
    let planned = meta
        .invocations
        .last()
        .map(|i| i.files * i.ks.len() * i.ls.len());
    out.push_str("## Runs\n\n");
    match planned {
        Some(planned) if planned != runs.len() => {
            let _ = writeln!(
                out,
                "- **Partial run**: {} of the {planned} cells of the grid ran ({}). \
                 Every table below covers only the cells that ran.",
                runs.len(),
                tally.join(", ")
            );
        }
        _ => {
            let _ = writeln!(out, "- Cells: {} ({}).", runs.len(), tally.join(", "));
        }
    }
    let _ = writeln!(out, "- Wall-clock timeout per run: {timeout} s.");
    for (index, invocation) in meta.invocations.iter().enumerate() {
        let label = if meta.invocations.len() > 1 {
            format!(" {}", index + 1)
        } else {
            String::new()
        };
        let machine = &invocation.machine;
        let _ = writeln!(
            out,
            "- Invocation{label}: {} — `{}`\n  - holi commit `{}`, binary `{}`, {} job(s), \
             timeout {} s, bounds k {:?} × l {:?}, {} files from `{}`{}{}\n  - machine: {}, \
             {} cores, {} GiB memory, {}",
            invocation.started,
            invocation.command_line,
            invocation.holi_commit,
            invocation.holi,
            invocation.jobs,
            invocation.timeout_seconds,
            invocation.ks,
            invocation.ls,
            invocation.files,
            invocation.programs,
            if invocation.extra_args.is_empty() {
                String::new()
            } else {
                format!(
                    ", extra holi arguments `{}`",
                    invocation.extra_args.join(" ")
                )
            },
            if invocation.skip_after_timeout {
                ", cells dominated by a timeout skipped"
            } else {
                ""
            },
            machine.cpu,
            machine.cores,
            machine.memory_gib,
            machine.os,
        );
    }
    let total: f64 = runs.values().map(|r| r.seconds).sum();
    let _ = writeln!(out, "- Sum of run times: {:.0} s.", total);
    let errors: Vec<&RunRecord> = runs
        .values()
        .filter(|r| r.status == Status::Error)
        .collect();
    if !errors.is_empty() {
        let _ = writeln!(
            out,
            "\n### Errors ({})\n\n| file | k | l | reason |\n|---|---|---|---|",
            errors.len()
        );
        for run in errors {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} |",
                run.file,
                run.k,
                run.l,
                run.note.replace('|', "\\|")
            );
        }
    }
    out.push('\n');
}

fn render_comparison(
    out: &mut String,
    runs: &BTreeMap<(String, u32, u32), RunRecord>,
    reference: &Reference,
    holi_table: &BTreeMap<(u32, u32), Entry>,
    ks: &[u32],
    ls: &[u32],
) {
    let paired: Vec<(&RunRecord, &Cell)> = runs
        .iter()
        .filter_map(|(key, run)| reference.get(key).map(|cell| (run, cell)))
        .collect();
    let unmatched = runs.len() - paired.len();
    let holik_cells: Vec<Cell> = paired.iter().map(|(_, cell)| (*cell).clone()).collect();
    let holik_table = table1(&holik_cells, HOLIK_TIMEOUT);

    out.push_str("## Table 1: HOLiK\n\n");
    let _ = writeln!(
        out,
        "From `reference.csv` ({} runs, timeout 300 s), restricted to the {} cells holi ran{}.\n",
        reference.len(),
        paired.len(),
        if unmatched > 0 {
            format!("; {unmatched} holi cells have no HOLiK counterpart and are left out of every comparison")
        } else {
            String::new()
        }
    );
    out.push_str(&layout(&holik_table, ks, ls));

    out.push_str("\n## Side by side\n\nEach cell: holi a/b/c (d) vs HOLiK a/b/c (d).\n\n");
    let mut side = BTreeMap::new();
    for (bound, entry) in holi_table {
        if let Some(theirs) = holik_table.get(bound) {
            side.insert(*bound, format!("{entry} vs {theirs}"));
        }
    }
    out.push_str(&layout(&side, ks, ls));

    // Runs completed and time ratios, per bound and overall.
    out.push_str(
        "\n## Runs completed and time ratio\n\nRatio = HOLiK seconds / holi seconds over the \
         cells both finished (holi times below 1 ms count as 1 ms); > 1 means holi is faster. \
         Σ s: the untruncated sum of wall-clock seconds over all the bound's cells, \
         timeouts included as measured.\n\n\
         | bound | cells | holi done | HOLiK done | both done | median ratio | geometric mean | holi Σ s | HOLiK Σ s |\n\
         |---|---|---|---|---|---|---|---|---|\n",
    );
    let mut all_ratios = Vec::new();
    let mut totals = [0usize; 4];
    let mut seconds_total = [0.0f64; 2];
    let bounds: BTreeSet<(u32, u32)> = paired.iter().map(|(r, _)| (r.k, r.l)).collect();
    for &(k, l) in &bounds {
        let here: Vec<&(&RunRecord, &Cell)> = paired
            .iter()
            .filter(|(r, _)| r.k == k && r.l == l)
            .collect();
        let holi_done = here
            .iter()
            .filter(|(r, _)| r.status == Status::Done)
            .count();
        let holik_done = here.iter().filter(|(_, c)| c.done).count();
        let mut ratios: Vec<f64> = here
            .iter()
            .filter(|(r, c)| r.status == Status::Done && c.done)
            .map(|(r, c)| ratio(c, &Cell::from_run(r)))
            .collect();
        all_ratios.extend(ratios.iter().copied());
        let row = [here.len(), holi_done, holik_done, ratios.len()];
        for (total, n) in totals.iter_mut().zip(row) {
            *total += n;
        }
        let geo = geomean(&ratios);
        let seconds = [
            here.iter().map(|(r, _)| r.seconds).sum::<f64>(),
            here.iter().map(|(_, c)| c.seconds).sum::<f64>(),
        ];
        seconds_total[0] += seconds[0];
        seconds_total[1] += seconds[1];
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {:.1} | {:.1} |",
            bound_label(k, l),
            row[0],
            row[1],
            row[2],
            row[3],
            ratio_text(median(&mut ratios)),
            ratio_text(geo),
            seconds[0],
            seconds[1]
        );
    }
    let geo = geomean(&all_ratios);
    let _ = writeln!(
        out,
        "| **all** | {} | {} | {} | {} | {} | {} | {:.1} | {:.1} |",
        totals[0],
        totals[1],
        totals[2],
        totals[3],
        ratio_text(median(&mut all_ratios)),
        ratio_text(geo),
        seconds_total[0],
        seconds_total[1]
    );

    render_trace_counts(out, &paired, &bounds);

    // Verdict agreement.
    out.push_str(
        "\n## Verdict agreement\n\n\"Found\" = at least one failing trace reported (a run \
         that did not finish found nothing).\n\n\
         | bound | both found | only holi | only HOLiK | neither |\n|---|---|---|---|---|\n",
    );
    let mut sums = [0usize; 4];
    for &(k, l) in &bounds {
        let mut counts = [0usize; 4];
        for (run, cell) in paired.iter().filter(|(r, _)| r.k == k && r.l == l) {
            counts[agreement_class(run, cell)] += 1;
        }
        for (sum, n) in sums.iter_mut().zip(counts) {
            *sum += n;
        }
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            bound_label(k, l),
            counts[0],
            counts[1],
            counts[2],
            counts[3]
        );
    }
    let _ = writeln!(
        out,
        "| **all** | {} | {} | {} | {} |",
        sums[0], sums[1], sums[2], sums[3]
    );

    let disagreements: Vec<&(&RunRecord, &Cell)> = paired
        .iter()
        .filter(|(run, cell)| matches!(agreement_class(run, cell), 1 | 2))
        .collect();
    let (both_finished, one_unfinished): (Vec<_>, Vec<_>) = disagreements
        .into_iter()
        .partition(|(run, cell)| run.status == Status::Done && cell.done);
    for (title, list) in [
        ("Disagreements where both finished", both_finished),
        (
            "Disagreements where one side did not finish",
            one_unfinished,
        ),
    ] {
        let _ = writeln!(out, "\n### {title} ({})\n", list.len());
        if list.is_empty() {
            out.push_str("None.\n");
            continue;
        }
        out.push_str("| file | k | l | holi traces | HOLiK traces |\n|---|---|---|---|---|\n");
        for (run, cell) in list {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                run.file,
                run.k,
                run.l,
                count_text(run),
                holik_count_text(cell)
            );
        }
    }
}

/// Failing-trace counts over the cells both tools finished: holi's against HOLiK's raw
/// count and its count modulo renaming of symbols.
fn render_trace_counts(
    out: &mut String,
    paired: &[(&RunRecord, &Cell)],
    bounds: &BTreeSet<(u32, u32)>,
) {
    out.push_str(
        "\n## Failing-trace counts\n\nOver the cells both finished: Σ failing traces by holi, \
         by HOLiK (raw, as in Table 1) and by HOLiK modulo renaming of symbols \
         (`traces-alpha.csv`, the fairer comparison: HOLiK counts one trace several times \
         when its fresh-name counter numbers the symbols differently), and in how many cells \
         holi's count equals, is below or is above HOLiK's modulo-renaming count.\n\n\
         | bound | both done | holi | HOLiK raw | HOLiK modulo renaming | holi = | holi < | holi > |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    let mut total = [0u64; 7];
    let mut rows: Vec<((u32, u32), [u64; 7])> = Vec::new();
    for &(k, l) in bounds {
        let mut row = [0u64; 7];
        for (run, cell) in paired
            .iter()
            .filter(|(r, c)| r.k == k && r.l == l && r.status == Status::Done && c.done)
        {
            let ours = run.failing_traces.unwrap_or(0);
            let alpha = cell.alpha_traces.unwrap_or(cell.traces);
            row[0] += 1;
            row[1] += ours;
            row[2] += cell.traces;
            row[3] += alpha;
            row[4 + usize::from(ours != alpha) + usize::from(ours > alpha)] += 1;
        }
        for (t, v) in total.iter_mut().zip(row) {
            *t += v;
        }
        rows.push(((k, l), row));
    }
    for ((k, l), row) in rows {
        let _ = writeln!(
            out,
            "| {} | {} |",
            bound_label(k, l),
            row.iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(" | ")
        );
    }
    let _ = writeln!(
        out,
        "| **all** | {} |",
        total
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(" | ")
    );
}

/// 0 both found, 1 only holi, 2 only HOLiK, 3 neither.
fn agreement_class(run: &RunRecord, cell: &Cell) -> usize {
    match (run.found(), cell.traces > 0) {
        (true, true) => 0,
        (true, false) => 1,
        (false, true) => 2,
        (false, false) => 3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(file: &str, k: u32, l: u32, traces: u64, status: &str, seconds: f64) -> Cell {
        Cell {
            file: file.to_string(),
            k,
            l,
            traces,
            done: status == "done",
            out_of_time: status == "timeout",
            seconds,
            alpha_traces: None,
        }
    }

    #[test]
    fn table1_follows_the_paper_definitions() {
        let cells = vec![
            cell("a", 2, 1, 3, "done", 1.9),
            cell("b", 2, 1, 0, "done", 0.2),
            cell("c", 2, 1, 0, "timeout", 7.4),
            cell("a", 3, 1, 2, "done", 5.5),
        ];
        let table = table1(&cells, 7.0);
        let entry = table[&(2, 1)];
        assert_eq!(
            (entry.a, entry.b, entry.c, entry.d, entry.cells),
            (3, 2, 1, 1 + 7, 3)
        );
        assert_eq!(table[&(3, 1)].to_string(), "2/1/1 (5s)");
    }

    #[test]
    fn ratios_summarise() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&mut [4.0, 1.0]), Some(2.5));
        assert!((geomean(&[1.0, 100.0]).unwrap() - 10.0).abs() < 1e-9);
        assert_eq!(median(&mut []), None);
    }

    /// The HOLiK README states the aggregated Table 1; reproducing it checks `table1`
    /// against independent numbers.
    #[test]
    fn table1_reproduces_the_holik_readme() {
        let path = default_reference();
        if !path.is_file() {
            eprintln!("note: {} absent; skipping", path.display());
            return;
        }
        let reference = load_reference(&path).unwrap();
        assert_eq!(reference.len(), 840);
        let cells: Vec<Cell> = reference.values().cloned().collect();
        let table = table1(&cells, HOLIK_TIMEOUT);
        assert_eq!(table[&(2, 1)].to_string(), "226/70/45 (555s)");
        assert_eq!(table[&(2, 3)].to_string(), "9656/35/23 (12471s)");
        assert_eq!(table[&(4, 2)].to_string(), "3069/19/14 (15903s)");
        assert_eq!(table[&(5, 3)].to_string(), "215/11/9 (17796s)");
    }

    fn run(
        file: &str,
        k: u32,
        l: u32,
        traces: Option<u64>,
        status: Status,
        seconds: f64,
    ) -> RunRecord {
        let mut record = RunRecord::bare(file, k, l, status, seconds, String::new());
        record.failing_traces = traces;
        record
    }

    #[test]
    fn the_comparison_lists_agreement_ratios_and_disagreements() {
        let runs: BTreeMap<_, _> = [
            run("a.holi", 2, 1, Some(2), Status::Done, 0.5),
            run("b.holi", 2, 1, Some(0), Status::Done, 0.1),
            run("c.holi", 2, 1, None, Status::Timeout, 9.0),
            run("d.holi", 2, 1, Some(1), Status::Done, 1.0),
        ]
        .into_iter()
        .map(|r| (r.key(), r))
        .collect();
        let mut reference = Reference::new();
        for (file, traces, status, seconds, alpha) in [
            ("a.holi", 3, "done", 5.0, 2),
            ("b.holi", 1, "done", 2.0, 1),
            ("c.holi", 4, "done", 8.0, 4),
            ("d.holi", 0, "timeout", 300.001, 0),
        ] {
            let mut c = cell(file, 2, 1, traces, status, seconds);
            c.alpha_traces = Some(alpha);
            reference.insert((file.to_string(), 2, 1), c);
        }
        let text = render(
            Path::new("/x/run"),
            &runs,
            &Meta::default(),
            Some(&reference),
            Path::new("r.csv"),
        );
        // holi: 3 traces, 3 done, 2 files; the timeout counts as 300 s without meta.json.
        assert!(text.contains("| k ≤ 2 | 3/3/2 (301s) |"), "{text}");
        // HOLiK over the same cells: 5 + 2 + 8 + 300 seconds.
        assert!(text.contains("| k ≤ 2 | 8/3/3 (315s) |"), "{text}");
        // Ratios over a (10×) and b (20×): median 15×, geometric mean √200 ≈ 14.
        assert!(
            text.contains("| k ≤ 2, l ≤ 1 | 4 | 3 | 3 | 2 | 15× | 14× |"),
            "{text}"
        );
        // Trace counts over a and b: holi 2, raw 4, alpha 3; a equal, b below.
        assert!(
            text.contains("| k ≤ 2, l ≤ 1 | 2 | 2 | 4 | 3 | 1 | 1 | 0 |"),
            "{text}"
        );
        // Agreement: a both, b only HOLiK, c only HOLiK, d only holi.
        assert!(text.contains("| k ≤ 2, l ≤ 1 | 1 | 1 | 2 | 0 |"), "{text}");
        assert!(text.contains("### Disagreements where both finished (1)\n\n| file | k | l | holi traces | HOLiK traces |\n|---|---|---|---|---|\n| b.holi | 2 | 1 | 0 | 1 |"), "{text}");
        assert!(
            text.contains("| c.holi | 2 | 1 | 0 (timeout) | 4 |"),
            "{text}"
        );
        assert!(
            text.contains("| d.holi | 2 | 1 | 1 | 0 (timeout) |"),
            "{text}"
        );
    }

    #[test]
    fn a_missing_reference_is_a_note() {
        let runs: BTreeMap<_, _> = [run("a.holi", 2, 1, Some(1), Status::Done, 0.5)]
            .into_iter()
            .map(|r| (r.key(), r))
            .collect();
        let text = render(
            Path::new("/x/run"),
            &runs,
            &Meta::default(),
            None,
            Path::new("/nowhere/reference.csv"),
        );
        assert!(text.contains("| k ≤ 2 | 1/1/1 (0s) |"), "{text}");
        assert!(
            text.contains("Skipped: the HOLiK reference `/nowhere/reference.csv` is not present.")
        );
        assert!(!text.contains("Verdict agreement"));
    }
}
