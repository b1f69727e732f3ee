//! The README's performance paragraph (under "Against HOLiK") cites the committed run
//! its figures come from, and this test recomputes them from that run's `runs.csv`, so
//! that they cannot drift from it: the cells run and finished, the sum of their times,
//! the slowest cell, and (with `../shared/holik-bench` beside the repository) the
//! median of HOLiK's time over holi's on the cells HOLiK finished.

use std::collections::HashMap;
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The paragraph under "## Against HOLiK".
fn paragraph(readme: &str) -> &str {
    let start = readme
        .find("## Against HOLiK")
        .expect("the README has its section");
    let rest = &readme[start..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3);
    &rest[..end]
}

/// The rows of a CSV file as maps from column to value.
fn rows(text: &str) -> Vec<HashMap<String, String>> {
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .unwrap_or_default()
        .split(',')
        .map(str::to_string)
        .collect();
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            header
                .iter()
                .cloned()
                .zip(l.split(',').map(str::to_string))
                .collect()
        })
        .collect()
}

fn seconds(row: &HashMap<String, String>) -> f64 {
    row.get("seconds")
        .and_then(|s| s.parse().ok())
        .unwrap_or(f64::NAN)
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

#[test]
fn the_readme_performance_figures_are_those_of_the_run_it_cites() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    // Words, as wrapped lines join them.
    let text = paragraph(&readme)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let text = text.as_str();
    let marker = "benchmark/results/";
    let at = text
        .find(marker)
        .expect("the paragraph cites a committed run");
    let cited = &text[at..];
    let dir = &cited[..cited.find([')', ' ', '`']).unwrap_or(cited.len())];
    let dir = dir.trim_end_matches('/');
    let runs = std::fs::read_to_string(root().join(dir).join("runs.csv"))
        .unwrap_or_else(|e| panic!("{dir}/runs.csv: {e}"));
    // A comparison's run holds two binaries: the figures are the new one's.
    let all = rows(&runs);
    let mine: Vec<_> = all
        .iter()
        .filter(|r| r.get("binary").is_none_or(|b| b == "new"))
        .collect();
    let done: Vec<_> = mine.iter().filter(|r| r["status"] == "done").collect();
    let total: f64 = mine.iter().map(|r| seconds(r)).sum();
    let slowest = done.iter().map(|r| seconds(r)).fold(0.0, f64::max);
    let expected = [
        format!("all {} cells", mine.len()),
        format!("{} of them finish", done.len()),
        format!("the whole grid in {total:.0} seconds"),
        format!("the slowest in {slowest:.1} s"),
    ];
    for figure in &expected {
        assert!(
            text.contains(figure.as_str()),
            "the README should say `{figure}`:\n{text}"
        );
    }
    let reference = root().join("../shared/holik-bench/reference.csv");
    let Ok(reference) = std::fs::read_to_string(&reference) else {
        eprintln!(
            "note: {} is absent; skipping the HOLiK ratio",
            reference.display()
        );
        return;
    };
    let holik: HashMap<(String, String, String), f64> = rows(&reference)
        .into_iter()
        .filter(|r| r["status"] == "done")
        .map(|r| {
            (
                (r["file"].clone(), r["k"].clone(), r["l"].clone()),
                seconds(&r),
            )
        })
        .collect();
    let ratios: Vec<f64> = done
        .iter()
        .filter_map(|r| {
            let theirs = holik.get(&(r["file"].clone(), r["k"].clone(), r["l"].clone()))?;
            Some(theirs / seconds(r).max(0.001))
        })
        .collect();
    let figures = [
        format!("{} cells HOLiK finished", ratios.len()),
        format!("a median of {:.0} times faster", median(ratios)),
    ];
    for figure in &figures {
        assert!(
            text.contains(figure.as_str()),
            "the README should say `{figure}`:\n{text}"
        );
    }
}
