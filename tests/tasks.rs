//! The whole search cut into tasks ([`holi::symbolic::tasks`]): on the corpus, the
//! report — verdict, the shortest trace per site with its texts and concrete values,
//! the count of failing traces, the stuck places, and with `all` every failing trace —
//! is the same on 1, 2 and 4 threads; and every failure site keeps its minimal length
//! against the search as one task.
//!
//! In a race, the cost at which the search completes on its lane is the same on every
//! number of threads, however often the lane pauses it.
//!
//! The task sizes are lowered (from 1,000,000 and 250,000 configurations) so that every
//! library that is not tiny is cut into many tasks.

use holi::symbolic::explore::Advance;
use holi::symbolic::tasks::Parallel;
use holi::symbolic::TaskSizes;
use holi::symbolic::{check, CheckOptions, CheckResult, Lane, Verdict};
use holi::symbolic::{Bounds, Brief, Limits, Run, Techniques};
use std::path::{Path, PathBuf};
use std::sync::Arc;

mod corpus;
mod sites;
use sites::sites;

const AT_MOST: u64 = 5_000;
const BLOWN: u64 = 20;

const SMALL: TaskSizes = TaskSizes {
    first: 100,
    task: 40,
};

/// Everything a report shows.
fn report(result: &CheckResult) -> (Verdict, Vec<String>, usize, String) {
    let texts = result
        .counterexamples
        .iter()
        .map(|c| format!("{:?} {:?} {} | {}", c.kind, c.span, c.trace, c.concrete))
        .collect();
    let stuck = format!("{:?}, from {:?}", result.stuck, result.stats.searched);
    (result.verdict, texts, result.failing_traces, stuck)
}

/// Checks `path` by tasks on 1 thread and on each of `threads`, at `k`, `l` and with
/// `all` at k 2, l 1 (every trace is far more); returns how many configurations the
/// one-thread
/// search by tasks explored at `k`, `l` (0 when the search as one task explores more
/// than [`AT_MOST`], or tasks this small explore more than [`BLOWN`] times as much,
/// having lost most of the memo at their borders: the test would take minutes).
fn same_on_every_thread_count(path: &Path, k: u32, l: u32, threads: &[usize]) -> u64 {
    let source = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{e}"));
    let name = path.display().to_string();
    let loaded = holi::frontend::load_str(&name, &source, false)
        .unwrap_or_else(|r| panic!("{}", r.render(false)));
    let base = CheckOptions {
        limits: Limits {
            max_configurations: Some(2_000_000),
            ..Limits::default()
        },
        ..CheckOptions::default()
    };
    let clock = std::time::Instant::now();
    let mut explored = 0;
    for all in [false, true] {
        let (k, l) = if all { (2, 1) } else { (k, l) };
        let base = CheckOptions {
            bounds: Bounds { k, l },
            techniques: Techniques {
                all,
                ..base.techniques
            },
            ..base.clone()
        };
        // Past AT_MOST the library is left out: no need to search it to the end.
        let capped = CheckOptions {
            limits: Limits {
                max_configurations: Some(AT_MOST + 1),
                ..Limits::default()
            },
            ..base.clone()
        };
        let one_task = check(&holi::library::build(&loaded.program), &capped);
        if one_task.stats.configurations > AT_MOST {
            return 0;
        }
        let limit = BLOWN * one_task.stats.configurations.max(SMALL.first);
        let run = |jobs: usize| {
            let options = CheckOptions {
                limits: Limits {
                    max_configurations: Some(limit),
                    ..base.limits.clone()
                },
                run: Run {
                    jobs,
                    task_sizes: SMALL,
                    ..base.run.clone()
                },
                ..base.clone()
            };
            check(&holi::library::build(&loaded.program), &options)
        };
        let one = run(1);
        if one.stats.configurations >= limit {
            return 0;
        }
        let cell = format!("{name} k{k} l{l} all {all}");
        assert!(
            one.inconclusive.is_empty(),
            "{cell}: {:?}",
            one.inconclusive
        );
        for &jobs in threads {
            let many = run(jobs);
            assert_eq!(report(&one), report(&many), "{cell}: 1 thread vs {jobs}");
        }
        assert_eq!(one.verdict, one_task.verdict, "{cell}");
        assert_eq!(sites(&one), sites(&one_task), "{cell}");
        if !all {
            explored = one.stats.configurations;
        }
    }
    eprintln!(
        "{name} k{k} l{l}: {explored} configurations, {:?}",
        clock.elapsed()
    );
    explored
}

fn examples() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    corpus::holi_files(&dir).unwrap_or_default()
}

#[test]
fn the_examples_report_the_same_on_one_two_and_four_threads() {
    let files = examples();
    assert!(files.len() >= 10, "the examples are missing");
    let cut = files
        .iter()
        .filter(|path| same_on_every_thread_count(path, 3, 2, &[2, 4]) > SMALL.first)
        .count();
    assert!(cut >= 4, "only {cut} examples were cut into tasks");
}

/// On 1 and 4 threads only (the examples try 2 as well): the benchmark is 70 libraries,
/// and each thread count more costs CI half a minute.
#[test]
fn the_benchmark_reports_the_same_on_one_and_four_threads() {
    let Some(files) = corpus::benchmark("the search by tasks on the benchmark") else {
        return;
    };
    let cut = files
        .iter()
        .filter(|path| same_on_every_thread_count(path, 2, 2, &[4]) > SMALL.first)
        .count();
    assert!(cut >= 30, "only {cut} libraries were cut into tasks");
}

/// The cost at which the search of `path` at `k`, `l` by tasks on `jobs`
/// threads completes on a lane whose limit is raised by `step`, doubled each time
/// (a task paused on many threads runs again from its start), whenever it pauses the
/// search (never paused without a step).
fn cost_on_a_lane(path: &Path, k: u32, l: u32, jobs: usize, step: Option<u64>) -> u64 {
    let source = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{e}"));
    let name = path.display().to_string();
    let loaded = holi::frontend::load_str(&name, &source, false)
        .unwrap_or_else(|r| panic!("{}", r.render(false)));
    let lib = holi::library::build(&loaded.program);
    let lane = Arc::new(Lane::new(step.unwrap_or(u64::MAX)));
    let options = CheckOptions {
        run: Run {
            jobs,
            // Larger than SMALL: tasks that small lose so much of the memo at their
            // borders that lend_fixed k4 l2 runs for minutes.
            task_sizes: TaskSizes {
                first: 1_000,
                task: 400,
            },
            ..Run::default()
        },
        ..CheckOptions::bounded(k, l)
    };
    let brief = Brief::new(&options, &lib);
    let brief = brief.with_meter(brief.meter.on_lane(&lane));
    let mut search = Parallel::new(&lib, &brief);
    let mut pauses = 0;
    let mut step = step;
    loop {
        match search.advance(&mut |_| {}) {
            Advance::Done => break,
            Advance::Capped => {
                pauses += 1;
                let Some(by) = &mut step else {
                    panic!("{name}: paused with no limit");
                };
                lane.set_limit(lane.spent() + *by);
                *by *= 2;
            }
            end => panic!("{name}: {end:?}"),
        }
    }
    assert!(
        step.is_none() || pauses >= 3,
        "{name}: paused only {pauses} times"
    );
    lane.spent()
}

#[test]
fn a_search_completes_at_one_cost_on_any_thread_count_however_often_paused() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/lend_fixed.holi");
    let (k, l) = (4, 2);
    let cost = cost_on_a_lane(&path, k, l, 1, None);
    for jobs in [1, 2, 4] {
        assert_eq!(
            cost_on_a_lane(&path, k, l, jobs, Some(cost / 20 + 1)),
            cost,
            "{jobs} threads"
        );
    }
}
