//! Reading the runs of `holi-bench random`: disagreements between variants (there must
//! be none), backfires of the default (more than 2× slower than the best `--no-X`
//! variant, or less conclusive than one), and how the ratio default/best is spread.

use super::{read_csv, LibraryRow, Run, DEFAULT};
use crate::compare::{geomean, median};
use crate::meta::Meta;
use crate::record::Status;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// The default may be this many times slower than the best variant before it counts
/// as a backfire.
pub const SLOWER: f64 = 2.0;

/// holi's `SPLIT_AFTER`: the configurations the whole search may take before a library
/// of independent parts is checked part by part.
const SPLIT_AFTER: u64 = 100_000;

/// Two runs of one library whose results cannot both be right.
#[derive(Debug, PartialEq)]
pub struct Disagreement {
    pub library: String,
    pub variants: (String, String),
    pub why: String,
}

/// A library where the default did worse than a variant.
#[derive(Debug, PartialEq)]
pub struct Backfire {
    pub library: String,
    /// The variant that did better.
    pub variant: String,
    pub default_seconds: f64,
    pub variant_seconds: f64,
    /// `slower`, `less conclusive` (the variant answered, the default did not) or `less
    /// complete` (the variant finished its search, the default did not).
    pub kind: &'static str,
}

/// One library's default against its fastest variant.
#[derive(Debug, PartialEq)]
pub struct Ratio {
    pub library: String,
    pub best: String,
    pub default_seconds: f64,
    pub best_seconds: f64,
    /// Default / best, each at least 1 ms.
    pub ratio: f64,
    /// Whether the default or the best reached the time limit: the ratio is then a
    /// bound, not a measurement.
    pub censored: bool,
}

#[derive(Debug, Default)]
pub struct Analysis {
    /// Libraries with a default run, by its outcome.
    pub by_outcome: BTreeMap<String, usize>,
    pub disagreements: Vec<Disagreement>,
    pub backfires: Vec<Backfire>,
    /// Every library with a default run and at least one variant, worst first.
    pub ratios: Vec<Ratio>,
    /// Libraries the default tried to split: several components, no ML references, and
    /// a whole search past [`SPLIT_AFTER`] configurations.
    pub split_tried: Vec<String>,
    /// Libraries where the split took effect: the default's search differs from
    /// `--no-split`'s, or its havoc proof dropped a site (which it tries only on parts).
    pub split: Vec<String>,
    /// Libraries where semantic subsumption pruned a client turn in the default.
    pub semantic: Vec<String>,
}

/// A run's outcome as the report counts it.
fn outcome(run: &Run) -> String {
    match run.status {
        Status::Done => run.verdict.clone().unwrap_or_default(),
        status => status.name().to_string(),
    }
}

/// Why two runs of a library cannot both be right, if they cannot.
fn disagreement(a: &Run, b: &Run) -> Option<String> {
    if a.conclusive() && b.conclusive() && a.verdict != b.verdict {
        return Some(format!(
            "{} vs {}",
            a.verdict.as_deref().unwrap_or(""),
            b.verdict.as_deref().unwrap_or("")
        ));
    }
    // Every trace a run reports is real, so a complete search has each site any run
    // found, at most as long; two complete searches have the same sites and lengths.
    for (complete, other) in [(a, b), (b, a)] {
        if !complete.complete {
            continue;
        }
        let shortest = parse_sites(&complete.sites);
        for (site, moves) in parse_sites(&other.sites) {
            match shortest.get(&site) {
                None => return Some(format!("site {site} found only by {}", other.variant)),
                Some(&m) if m > moves => {
                    return Some(format!(
                        "site {site}: {m} moves ({}) vs {moves} ({})",
                        complete.variant, other.variant
                    ))
                }
                Some(&m) if m < moves && other.complete => {
                    return Some(format!(
                        "site {site}: {m} moves ({}) vs {moves} ({})",
                        complete.variant, other.variant
                    ))
                }
                _ => {}
            }
        }
    }
    None
}

fn parse_sites(text: &str) -> BTreeMap<String, u64> {
    text.split_whitespace()
        .filter_map(|part| {
            let (site, moves) = part.rsplit_once('=')?;
            Some((site.to_string(), moves.parse().ok()?))
        })
        .collect()
}

/// One run per library and variant: the first round's, with the median time over the
/// rounds (`--confirm` repeats the default and the best variant where it backfired).
pub fn merge(runs: &[Run]) -> BTreeMap<String, BTreeMap<String, Run>> {
    let mut rounds: BTreeMap<(&str, &str), Vec<&Run>> = BTreeMap::new();
    for run in runs {
        rounds
            .entry((&run.library, &run.variant))
            .or_default()
            .push(run);
    }
    let mut merged: BTreeMap<String, BTreeMap<String, Run>> = BTreeMap::new();
    for ((library, variant), mut list) in rounds {
        list.sort_by_key(|r| r.round);
        let mut seconds: Vec<f64> = list.iter().map(|r| r.seconds).collect();
        let mut run = list[0].clone();
        run.seconds = median(&mut seconds).unwrap_or(run.seconds);
        merged
            .entry(library.to_string())
            .or_default()
            .insert(variant.to_string(), run);
    }
    merged
}

/// Analyses the runs; `floor` is the time below which both the default and the best
/// variant must lie for a slowdown to be ignored, `timeout` the runs' time limit.
pub fn analyse(
    runs: &[Run],
    libraries: &BTreeMap<String, LibraryRow>,
    floor: f64,
    timeout: f64,
) -> Analysis {
    let mut rows: BTreeMap<&str, Vec<&Run>> = BTreeMap::new();
    for run in runs {
        rows.entry(&run.library).or_default().push(run);
    }
    let merged = merge(runs);
    let mut analysis = Analysis::default();
    for (library, variants) in &merged {
        // Every run is compared with every other, repeated rounds included.
        let list = rows.get(library.as_str()).map_or(&[][..], Vec::as_slice);
        for (i, a) in list.iter().enumerate() {
            for b in &list[i + 1..] {
                if let Some(why) = disagreement(a, b) {
                    analysis.disagreements.push(Disagreement {
                        library: library.to_string(),
                        variants: (a.variant.clone(), b.variant.clone()),
                        why,
                    });
                }
            }
        }
        let Some(default) = variants.get(DEFAULT) else {
            continue;
        };
        *analysis.by_outcome.entry(outcome(default)).or_default() += 1;
        if default.covered.unwrap_or(0) > 0 {
            analysis.semantic.push(library.to_string());
        }
        if let Some(no_split) = variants.get("no-split") {
            let splittable = libraries.get(library).is_some_and(|row| {
                row.components > 1 && !row.features.split(';').any(|f| f == "refs")
            });
            let whole = no_split.configurations.max(default.configurations);
            if splittable && whole.unwrap_or(0) >= SPLIT_AFTER {
                analysis.split_tried.push(library.to_string());
            }
            if default.unreachable_sites.unwrap_or(0) > 0
                || (default.complete
                    && no_split.complete
                    && default.configurations != no_split.configurations)
            {
                analysis.split.push(library.to_string());
            }
        }
        let others: Vec<&Run> = variants.values().filter(|r| r.variant != DEFAULT).collect();
        let Some(best) = others
            .iter()
            .copied()
            .min_by(|a, b| a.seconds.total_cmp(&b.seconds))
        else {
            continue;
        };
        // holi stops itself at the limit (and reports what it found) a little after it.
        let out_of_time =
            |run: &Run| run.status == Status::Timeout || (!run.complete && run.seconds >= timeout);
        let ratio = default.seconds.max(0.001) / best.seconds.max(0.001);
        analysis.ratios.push(Ratio {
            library: library.to_string(),
            best: best.variant.clone(),
            default_seconds: default.seconds,
            best_seconds: best.seconds,
            ratio,
            censored: out_of_time(default) || out_of_time(best),
        });
        let backfire = |run: &Run, kind| Backfire {
            library: library.to_string(),
            variant: run.variant.clone(),
            default_seconds: default.seconds,
            variant_seconds: run.seconds,
            kind,
        };
        let fastest = |keep: &dyn Fn(&Run) -> bool| {
            others
                .iter()
                .copied()
                .filter(|r| keep(r))
                .min_by(|a, b| a.seconds.total_cmp(&b.seconds))
        };
        if let Some(answered) = fastest(&|r| r.conclusive() && !default.conclusive()) {
            analysis
                .backfires
                .push(backfire(answered, "less conclusive"));
        } else if let Some(finished) = fastest(&|r| r.complete && !default.complete) {
            analysis.backfires.push(backfire(finished, "less complete"));
        }
        if ratio > SLOWER && default.seconds.max(best.seconds) >= floor {
            analysis.backfires.push(backfire(best, "slower"));
        }
    }
    analysis
        .ratios
        .sort_by(|a, b| b.ratio.total_cmp(&a.ratio).then(a.library.cmp(&b.library)));
    analysis
}

/// Rewrites `dir/REPORT.md` from `dir/runs.csv`, `dir/libraries.csv` and `meta.json`.
pub fn write_report(dir: &Path, floor: f64) -> Result<(), String> {
    let runs: Vec<Run> = read_csv(&dir.join("runs.csv"))?;
    let libraries: BTreeMap<String, LibraryRow> =
        read_csv::<LibraryRow>(&dir.join("libraries.csv"))?
            .into_iter()
            .map(|row| (row.file.clone(), row))
            .collect();
    let meta = Meta::load(dir).ok();
    let last = meta.as_ref().and_then(|m| m.invocations.last());
    let timeout = last.map_or(f64::INFINITY, |i| i.timeout_seconds);
    let analysis = analyse(&runs, &libraries, floor, timeout);
    let text = render(&analysis, &runs, &libraries, meta.as_ref(), floor);
    let path = dir.join("REPORT.md");
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
}

fn render(
    analysis: &Analysis,
    runs: &[Run],
    libraries: &BTreeMap<String, LibraryRow>,
    meta: Option<&Meta>,
    floor: f64,
) -> String {
    let mut md = String::from("# holi-bench random: does the default ever backfire?\n\n");
    let checked: usize = analysis.by_outcome.values().sum();
    let slower = analysis
        .backfires
        .iter()
        .filter(|b| b.kind == "slower")
        .count();
    let less = analysis.backfires.len() - slower;
    let _ = writeln!(
        md,
        "**{checked} libraries; {} disagreements; {slower} where the default is more than \
         {SLOWER}× slower than the best `--no-X` variant (ignoring those where both took \
         under {floor} s); {less} where it is less conclusive or less complete than a \
         variant.**\n",
        analysis.disagreements.len()
    );
    if let Some(meta) = meta.filter(|m| !m.invocations.is_empty()) {
        md.push_str("## Invocation\n\n");
        for invocation in &meta.invocations {
            let _ = writeln!(
                md,
                "- {}: `{}`\n  - holi `{}`, holi-bench commit `{}`, timeout {} s, {} ({} cores)",
                invocation.started,
                invocation.command_line,
                invocation.holi,
                invocation.holi_commit,
                invocation.timeout_seconds,
                invocation.machine.cpu,
                invocation.machine.cores
            );
        }
        md.push('\n');
    }
    md.push_str(
        "Each library is checked with `holi check FILE --k K --l L --format json \
         --allow-stuck --timeout T` (bounds from the generator), once with the default \
         options and once with each `--no-X` option, the runs of a library one after \
         another. Times are wall-clock seconds of the whole process (start-up, search, \
         replay of counterexamples and the proof attempt included). Where the default was \
         more than 2× slower than the best variant, both were run again (`--confirm`, \
         rounds alternating which goes first); a time is then the median over its \
         rounds, and the tables count first rounds.\n\n",
    );

    md.push_str("## Verdicts\n\nAn unsafe verdict is *incomplete* when the search stopped at the time limit after finding a counterexample.\n\n| run | safe | unsafe | of them incomplete | inconclusive | timeout | error | Σ seconds |\n|---|---|---|---|---|---|---|---|\n");
    let mut variants: Vec<&str> = runs.iter().map(|r| r.variant.as_str()).collect();
    variants.sort_by_key(|v| (*v != DEFAULT, *v));
    variants.dedup();
    for variant in &variants {
        let of: Vec<&Run> = runs
            .iter()
            .filter(|r| r.variant == *variant && r.round == 1)
            .collect();
        let count = |name: &str| of.iter().filter(|r| outcome(r) == name).count();
        let incomplete = of
            .iter()
            .filter(|r| outcome(r) == "unsafe" && !r.complete)
            .count();
        let _ = writeln!(
            md,
            "| {variant} | {} | {} | {incomplete} | {} | {} | {} | {:.1} |",
            count("safe"),
            count("unsafe"),
            count("inconclusive"),
            count("timeout"),
            count("error"),
            of.iter().map(|r| r.seconds).sum::<f64>()
        );
    }
    let errors: Vec<&Run> = runs.iter().filter(|r| r.status == Status::Error).collect();
    for run in &errors {
        let _ = writeln!(
            md,
            "\n- error: {} {}: {}",
            run.library, run.variant, run.note
        );
    }

    md.push_str("\n## Disagreements\n\nAny two answers (safe/unsafe) that differ, a failure site one run found that a complete search did not, or different shortest lengths for a site. There must be none.\n\n");
    if analysis.disagreements.is_empty() {
        md.push_str("None.\n");
    }
    for d in &analysis.disagreements {
        let _ = writeln!(
            md,
            "- {}: {} vs {}: {}",
            d.library, d.variants.0, d.variants.1, d.why
        );
    }

    let _ = writeln!(
        md,
        "\n## Backfires\n\nLibraries where the default took more than {SLOWER}× the time of \
         the best variant (unless both took under {floor} s), or where a variant answered \
         (or finished its search) and the default did not.\n"
    );
    if analysis.backfires.is_empty() {
        md.push_str("None.\n");
    } else {
        md.push_str("| library | kind | variant | default s | variant s | default | variant | shape |\n|---|---|---|---|---|---|---|---|\n");
    }
    for b in &analysis.backfires {
        let verdict = |variant: &str| {
            runs.iter()
                .find(|r| r.library == b.library && r.variant == variant && r.round == 1)
                .map(outcome)
                .unwrap_or_default()
        };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {:.3} | {:.3} | {} | {} | {} |",
            b.library,
            b.kind,
            b.variant,
            b.default_seconds,
            b.variant_seconds,
            verdict(DEFAULT),
            verdict(&b.variant),
            shape(libraries.get(&b.library))
        );
    }

    md.push_str("\n## The ten worst ratios default / best variant\n\n| library | default s | best variant | its s | ratio | shape |\n|---|---|---|---|---|---|\n");
    for r in analysis.ratios.iter().take(10) {
        let _ = writeln!(
            md,
            "| {} | {:.3} | {} | {:.3} | {}{:.2} | {} |",
            r.library,
            r.default_seconds,
            r.best,
            r.best_seconds,
            if r.censored { "≥ " } else { "" },
            r.ratio,
            shape(libraries.get(&r.library))
        );
    }

    md.push_str(&distribution(analysis, floor));
    md.push_str(&per_variant(runs, floor));

    let _ = writeln!(
        md,
        "\n## Triggers\n\n- the default tried the split (several components, no ML \
         references, a whole search past {SPLIT_AFTER} configurations) on {} libraries{}\n- \
         it took effect (the default's search differs from `--no-split`'s, or its havoc \
         proof dropped a site) on {} libraries{}\n- semantic subsumption pruned client \
         turns in the default on {} libraries",
        analysis.split_tried.len(),
        list_some(&analysis.split_tried),
        analysis.split.len(),
        list_some(&analysis.split),
        analysis.semantic.len()
    );
    md
}

fn shape(row: Option<&LibraryRow>) -> String {
    row.map_or_else(String::new, |row| {
        format!(
            "k{} l{}, {} components, {} methods; {}",
            row.k, row.l, row.components, row.methods, row.features
        )
    })
}

fn list_some(names: &[String]) -> String {
    if names.is_empty() {
        return String::new();
    }
    let shown: Vec<&str> = names.iter().take(10).map(String::as_str).collect();
    let more = names.len().saturating_sub(10);
    format!(
        " ({}{})",
        shown.join(", "),
        if more > 0 {
            format!(", {more} more")
        } else {
            String::new()
        }
    )
}

/// How the ratios default/best spread, over all libraries and over those above the floor.
fn distribution(analysis: &Analysis, floor: f64) -> String {
    const BUCKETS: [(f64, &str); 7] = [
        (0.5, "< 0.5"),
        (0.9, "0.5 – 0.9"),
        (1.1, "0.9 – 1.1"),
        (2.0, "1.1 – 2"),
        (5.0, "2 – 5"),
        (10.0, "5 – 10"),
        (f64::INFINITY, "≥ 10"),
    ];
    let above: Vec<&Ratio> = analysis
        .ratios
        .iter()
        .filter(|r| r.default_seconds.max(r.best_seconds) >= floor)
        .collect();
    let all: Vec<&Ratio> = analysis.ratios.iter().collect();
    let mut md = format!(
        "\n## Distribution of default / best variant\n\nThe best variant is the fastest \
         `--no-X` run of the library; a ratio below 1 means the default beat every \
         variant.\n\n| ratio | libraries | of them ≥ {floor} s |\n|---|---|---|\n"
    );
    let mut lower = 0.0;
    for (upper, label) in BUCKETS {
        let count = |set: &[&Ratio]| {
            set.iter()
                .filter(|r| r.ratio >= lower && r.ratio < upper)
                .count()
        };
        let _ = writeln!(md, "| {label} | {} | {} |", count(&all), count(&above));
        lower = upper;
    }
    let summary = |set: &[&Ratio]| {
        let ratios: Vec<f64> = set.iter().map(|r| r.ratio).collect();
        match (geomean(&ratios), median(&mut ratios.clone())) {
            (Some(g), Some(m)) => format!("geometric mean {g:.3}, median {m:.3}"),
            _ => "none".to_string(),
        }
    };
    let _ = writeln!(
        md,
        "\nAll {}: {}. At least {floor} s ({}): {}.",
        all.len(),
        summary(&all),
        above.len(),
        summary(&above)
    );
    md
}

/// For each variant: how often it was the fastest run of a library, and the default's
/// time over its own.
fn per_variant(runs: &[Run], floor: f64) -> String {
    let mut md = format!(
        "\n## Each variant against the default\n\nOver libraries where either took at least \
         {floor} s: the ratio default / variant (above 1: switching the pruning off helps), \
         and in how many libraries the variant was more than {SLOWER}× faster.\n\n| variant \
         | libraries | geometric mean | median | > {SLOWER}× faster |\n|---|---|---|---|---|\n"
    );
    let merged = merge(runs);
    let mut variants: Vec<&str> = runs
        .iter()
        .map(|r| r.variant.as_str())
        .filter(|v| *v != DEFAULT)
        .collect();
    variants.sort();
    variants.dedup();
    for variant in variants {
        let mut ratios: Vec<f64> = Vec::new();
        for runs in merged.values() {
            if let (Some(default), Some(run)) = (runs.get(DEFAULT), runs.get(variant)) {
                if default.seconds.max(run.seconds) >= floor {
                    ratios.push(default.seconds.max(0.001) / run.seconds.max(0.001));
                }
            }
        }
        let values = ratios;
        let faster = values.iter().filter(|r| **r > SLOWER).count();
        let text = |v: Option<f64>| v.map_or_else(|| "–".to_string(), |v| format!("{v:.3}"));
        let _ = writeln!(
            md,
            "| {variant} | {} | {} | {} | {faster} |",
            values.len(),
            text(geomean(&values)),
            text(median(&mut values.clone()))
        );
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(library: &str, variant: &str, verdict: &str, seconds: f64, sites: &str) -> Run {
        let conclusive = verdict == "safe" || verdict == "unsafe";
        Run {
            library: library.to_string(),
            k: 2,
            l: 1,
            variant: variant.to_string(),
            round: 1,
            status: if conclusive {
                Status::Done
            } else {
                Status::Inconclusive
            },
            verdict: Some(verdict.to_string()),
            complete: conclusive,
            seconds,
            configurations: Some(10),
            subsumed: Some(0),
            covered: Some(0),
            unreachable_sites: Some(0),
            solver_queries: Some(1),
            failing_traces: Some(u64::from(!sites.is_empty())),
            sites: sites.to_string(),
            note: String::new(),
        }
    }

    fn analysed(runs: &[Run]) -> Analysis {
        analyse(runs, &BTreeMap::new(), 0.1, 10.0)
    }

    #[test]
    fn a_slower_default_is_a_backfire_above_the_floor_only() {
        let runs = [
            run("slow", DEFAULT, "safe", 1.0, ""),
            run("slow", "no-split", "safe", 0.2, ""),
            run("slow", "no-memo", "safe", 3.0, ""),
            // 3× slower, but both under the floor.
            run("quick", DEFAULT, "safe", 0.09, ""),
            run("quick", "no-split", "safe", 0.03, ""),
            // Slower by less than 2×.
            run("close", DEFAULT, "safe", 1.9, ""),
            run("close", "no-split", "safe", 1.0, ""),
        ];
        let analysis = analysed(&runs);
        assert_eq!(
            analysis.backfires,
            vec![Backfire {
                library: "slow".to_string(),
                variant: "no-split".to_string(),
                default_seconds: 1.0,
                variant_seconds: 0.2,
                kind: "slower",
            }]
        );
        assert!(analysis.disagreements.is_empty());
        assert_eq!(analysis.ratios[0].library, "slow");
        assert_eq!(analysis.ratios[0].ratio, 5.0);
        assert_eq!(analysis.by_outcome["safe"], 3);
    }

    #[test]
    fn a_default_that_does_not_answer_where_a_variant_does_is_a_backfire() {
        let mut timed_out = run("a", DEFAULT, "inconclusive", 10.0, "");
        timed_out.status = Status::Inconclusive;
        let runs = [timed_out, run("a", "no-split", "safe", 0.12, "")];
        let analysis = analysed(&runs);
        let kinds: Vec<&str> = analysis.backfires.iter().map(|b| b.kind).collect();
        assert_eq!(kinds, ["less conclusive", "slower"]);
        assert!(analysis.ratios[0].censored);

        // Unsafe either way, but only the variant finished its search.
        let mut partial = run("b", DEFAULT, "unsafe", 10.0, "3:5:assert=9");
        partial.complete = false;
        let runs = [partial, run("b", "no-bound", "unsafe", 0.5, "3:5:assert=9")];
        let kinds: Vec<&str> = analysed(&runs).backfires.iter().map(|b| b.kind).collect();
        assert_eq!(kinds, ["less complete", "slower"]);
    }

    #[test]
    fn different_answers_and_different_shortest_traces_are_disagreements() {
        let runs = [
            run("v", DEFAULT, "safe", 0.5, ""),
            run("v", "no-memo", "unsafe", 0.5, "3:5:assert=4"),
            run("s", DEFAULT, "unsafe", 0.5, "3:5:assert=4 7:2:division=6"),
            run(
                "s",
                "no-semantic",
                "unsafe",
                0.5,
                "3:5:assert=4 7:2:division=8",
            ),
            run("same", DEFAULT, "unsafe", 0.5, "3:5:assert=4"),
            run("same", "no-split", "unsafe", 0.5, "3:5:assert=4"),
        ];
        let analysis = analysed(&runs);
        let found: Vec<(&str, &str)> = analysis
            .disagreements
            .iter()
            .map(|d| (d.library.as_str(), d.variants.1.as_str()))
            .collect();
        assert_eq!(found, [("s", "no-semantic"), ("v", "no-memo")]);
        assert!(analysis.disagreements[0].why.contains("7:2:division"));
        assert_eq!(analysis.disagreements[1].why, "safe vs unsafe");
    }

    #[test]
    fn confirmation_rounds_count_by_their_median() {
        let round = |variant: &str, seconds: f64, round: u32| {
            let mut run = run("noisy", variant, "safe", seconds, "");
            run.round = round;
            run
        };
        // One slow first run of the default, then two like the variant's.
        let runs = [
            round(DEFAULT, 1.0, 1),
            round("no-split", 0.2, 1),
            round(DEFAULT, 0.3, 2),
            round("no-split", 0.25, 2),
            round(DEFAULT, 0.3, 3),
            round("no-split", 0.3, 3),
        ];
        let analysis = analysed(&runs);
        assert!(analysis.backfires.is_empty(), "{:?}", analysis.backfires);
        assert_eq!(analysis.ratios[0].default_seconds, 0.3);
        assert_eq!(analysis.ratios[0].best_seconds, 0.25);
        assert_eq!(analysis.by_outcome["safe"], 1);
    }

    #[test]
    fn an_incomplete_run_may_miss_sites_but_not_beat_a_complete_one() {
        let mut partial = run("p", "no-memo", "unsafe", 10.0, "3:5:assert=4");
        partial.complete = false;
        let complete = run("p", DEFAULT, "unsafe", 0.5, "3:5:assert=4 7:2:assert=6");
        assert!(analysed(&[complete.clone(), partial.clone()])
            .disagreements
            .is_empty());
        partial.sites = "3:5:assert=3".to_string();
        assert_eq!(analysed(&[complete, partial]).disagreements.len(), 1);
    }
}
