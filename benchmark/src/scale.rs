//! The scaling benchmark: families of generated libraries, each varying one parameter of
//! [`Shape`] around a base shape, run across a small k × l grid, with cost plotted against
//! the parameter.

use crate::generate::{generate, Shape};
use crate::meta::{self, Meta};
use crate::record::{read_runs, RunRecord, Status};
use crate::runner::{self, Job};
use crate::{execute, report, results_dir, RunOptions};
use clap::Args;
use plotters::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Every family varies one parameter of this shape.
const BASE: Shape = Shape {
    methods: 2,
    callbacks: 0,
    nesting: 1,
    size: 3,
    references: 2,
};

const FAMILIES: [&str; 5] = ["methods", "callbacks", "nesting", "size", "references"];

#[derive(Args, Debug)]
pub struct ScaleArgs {
    /// Bounds k: N, A..B (inclusive) or A,B,C.
    #[arg(long, default_value = "2..3")]
    k: String,
    /// Bounds l: N, A..B (inclusive) or A,B,C.
    #[arg(long, default_value = "1..2")]
    l: String,
    /// Seed of the library generator.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Values of the number of public methods (base shape: 2 methods, no callback,
    /// nesting 1, size 3, 2 references).
    #[arg(long, default_value = "1,2,4,8,16,32,64,128,256,512,1000")]
    methods: String,
    /// Values of the number of imported callbacks (dealt over the 2 methods).
    #[arg(long, default_value = "0,1,2,3,4,6,8")]
    callbacks: String,
    /// Values of the nesting depth of conditionals.
    #[arg(long, default_value = "0,1,2,3,4,6")]
    nesting: String,
    /// Values of the number of simple statements per method.
    #[arg(long, default_value = "1,2,4,8,16,32,64,128,256,512,1024")]
    size: String,
    /// Values of the number of global references.
    #[arg(long, default_value = "1,2,4,8,16,32,64")]
    references: String,
    #[command(flatten)]
    run: RunOptions,
}

/// A row of `libraries.csv`: what each generated file is.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Library {
    pub file: String,
    pub family: String,
    pub value: u32,
    pub methods: u32,
    pub callbacks: u32,
    pub nesting: u32,
    pub size: u32,
    /// Absent from files written before the family existed: the base shape's 2.
    #[serde(default = "base_references")]
    pub references: u32,
    pub bytes: usize,
    pub seed: u64,
}

fn base_references() -> u32 {
    BASE.references
}

fn shape_with(family: &str, value: u32) -> Shape {
    let mut shape = BASE;
    match family {
        "methods" => shape.methods = value,
        "callbacks" => shape.callbacks = value,
        "nesting" => shape.nesting = value,
        "references" => shape.references = value,
        _ => shape.size = value,
    }
    shape
}

/// Writes the libraries into `dir/programs` and `dir/libraries.csv`. A directory generated
/// earlier with other parameters is refused rather than silently mixed.
pub fn generate_libraries(
    dir: &Path,
    families: &[(&str, Vec<u32>)],
    seed: u64,
) -> Result<Vec<Library>, String> {
    let programs = dir.join("programs");
    std::fs::create_dir_all(&programs).map_err(|e| format!("{}: {e}", programs.display()))?;
    let mut libraries = Vec::new();
    for (family, values) in families {
        for &value in values {
            let shape = shape_with(family, value);
            let text = generate(shape, seed);
            let file = format!("{family}-{value:02}.holi");
            let path = programs.join(&file);
            match std::fs::read_to_string(&path) {
                Ok(existing) if existing != text => {
                    return Err(format!(
                        "{} was generated with other parameters; use a new --name",
                        path.display()
                    ))
                }
                Ok(_) => {}
                Err(_) => {
                    std::fs::write(&path, &text).map_err(|e| format!("{}: {e}", path.display()))?
                }
            }
            libraries.push(Library {
                file,
                family: family.to_string(),
                value,
                methods: shape.methods,
                callbacks: shape.callbacks,
                nesting: shape.nesting,
                size: shape.size,
                references: shape.references,
                bytes: text.len(),
                seed,
            });
        }
    }
    crate::record::write_rows(&dir.join("libraries.csv"), &libraries)?;
    Ok(libraries)
}

pub fn run(args: ScaleArgs) -> Result<(), String> {
    let ks = meta::parse_bounds(&args.k)?;
    let ls = meta::parse_bounds(&args.l)?;
    let families: Vec<(&str, Vec<u32>)> = vec![
        ("methods", meta::parse_bounds(&args.methods)?),
        ("callbacks", meta::parse_bounds(&args.callbacks)?),
        ("nesting", meta::parse_bounds(&args.nesting)?),
        ("size", meta::parse_bounds(&args.size)?),
        ("references", meta::parse_bounds(&args.references)?),
    ];
    let dir = results_dir(&args.run, "scale")?;
    let libraries = generate_libraries(&dir, &families, args.seed)?;
    let programs = dir.join("programs");
    let files: Vec<PathBuf> = libraries
        .iter()
        .map(|lib| programs.join(&lib.file))
        .collect();
    let jobs: Vec<Job> = runner::grid_jobs(&files, &ks, &ls);
    let timeout = args.run.timeout.unwrap_or(30.0);
    let summary = execute(
        &args.run,
        timeout,
        &dir,
        &programs,
        files.len(),
        &ks,
        &ls,
        jobs,
        None,
    )?;
    write_scale_report(&dir)?;
    summary.finish(&dir.join("report.md"))
}

fn load_libraries(dir: &Path) -> Result<Vec<Library>, String> {
    let path = dir.join("libraries.csv");
    let mut reader =
        csv::Reader::from_path(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    reader
        .deserialize()
        .collect::<Result<Vec<Library>, _>>()
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Writes `report.md` and one SVG per family into a scale results directory.
pub fn write_scale_report(dir: &Path) -> Result<String, String> {
    let libraries = load_libraries(dir)?;
    let runs = read_runs(&dir.join("runs.csv")).map_err(|e| e.to_string())?;
    let meta = Meta::load(dir)?;
    let timeout = meta.invocations.last().map_or(30.0, |i| i.timeout_seconds);
    let bounds: BTreeSet<(u32, u32)> = runs.keys().map(|(_, k, l)| (*k, *l)).collect();

    let mut out = String::from("# holi scaling benchmark\n\n");
    report::render_provenance(&mut out, &runs, &meta, timeout);
    let _ = writeln!(
        out,
        "Libraries come from a seeded generator (`holi-bench scale`; files in `programs/`, \
         shapes in `libraries.csv`). Each family varies one parameter of the base shape \
         (methods {}, callbacks {}, nesting {}, size {}, references {}): public methods \
         taking an int, imported callbacks (alternately `int -> unit` and `unit -> int`) \
         called from the library, `if`s nested `nesting` deep, `size` simple statements per \
         method over `references` global references, and an assertion in every method's \
         innermost branch. Plots show runs that finished (`done`), on log scales: wall time, \
         configurations, time in the solver (`stats.solver_seconds`) and peak memory; the \
         tables list every run.\n",
        BASE.methods, BASE.callbacks, BASE.nesting, BASE.size, BASE.references
    );
    write_growth(&mut out, &libraries, &runs, &bounds);
    for family in FAMILIES {
        let members: Vec<&Library> = libraries
            .iter()
            .filter(|lib| lib.family == family)
            .collect();
        if members.is_empty() {
            continue;
        }
        let svg = format!("scale-{family}.svg");
        plot_family(&dir.join(&svg), family, &members, &runs, &bounds)?;
        let _ = writeln!(
            out,
            "## Cost vs {family}\n\n![seconds, configurations, solver time and memory vs {family}]({svg})\n"
        );
        out.push_str(&format!("| {family} | bytes |"));
        for (k, l) in &bounds {
            let _ = write!(out, " k{k} l{l} |");
        }
        out.push_str("\n|---|---|");
        out.push_str(&"---|".repeat(bounds.len()));
        out.push('\n');
        for lib in &members {
            let _ = write!(out, "| {} | {} |", lib.value, lib.bytes);
            for (k, l) in &bounds {
                let cell = runs
                    .get(&(lib.file.clone(), *k, *l))
                    .map_or("–".to_string(), cell_text);
                let _ = write!(out, " {cell} |");
            }
            out.push('\n');
        }
        out.push('\n');
    }
    let path = dir.join("report.md");
    std::fs::write(&path, &out).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(out)
}

/// The slope of `ln y` against `ln x` by least squares over the larger half of the
/// points (at least three, `x ≥ 1`), where fixed costs (start-up, parsing) weigh least:
/// `y ∝ x^slope`. `None` with fewer than three such points.
pub fn growth(points: &[(f64, f64)]) -> Option<f64> {
    let mut usable: Vec<(f64, f64)> = (points.iter())
        .filter(|(x, y)| *x >= 1.0 && *y > 0.0)
        .map(|(x, y)| (x.ln(), y.ln()))
        .collect();
    usable.sort_by(|a, b| a.0.total_cmp(&b.0));
    let keep = (usable.len() / 2).max(3);
    if usable.len() < 3 {
        return None;
    }
    let tail = &usable[usable.len() - keep.min(usable.len())..];
    let n = tail.len() as f64;
    let (mx, my) = (
        tail.iter().map(|p| p.0).sum::<f64>() / n,
        tail.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let sxx: f64 = tail.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = tail.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

/// The table of measured growth: per family and bound, the exponents of time and
/// configurations over the finished runs, and the largest value that finished.
fn write_growth(
    out: &mut String,
    libraries: &[Library],
    runs: &BTreeMap<(String, u32, u32), RunRecord>,
    bounds: &BTreeSet<(u32, u32)>,
) {
    let _ = writeln!(
        out,
        "## Measured growth\n\nFitted on the larger half of each curve's finished runs \
         (at least three; `growth` in `benchmark/src/scale.rs`): time ∝ value^a, \
         configurations ∝ value^b. A dash: fewer than three runs finished.\n\n\
         | family | bounds | finished | largest finished (time) | time exponent a | configurations exponent b |\n\
         |---|---|---|---|---|---|"
    );
    for family in FAMILIES {
        let members: Vec<&Library> = (libraries.iter())
            .filter(|lib| lib.family == family)
            .collect();
        if members.is_empty() {
            continue;
        }
        for &(k, l) in bounds {
            let done: Vec<(&Library, &RunRecord)> = (members.iter())
                .filter_map(|lib| Some((*lib, runs.get(&(lib.file.clone(), k, l))?)))
                .filter(|(_, run)| run.status == Status::Done)
                .collect();
            let points = |metric: fn(&RunRecord) -> Option<f64>| -> Vec<(f64, f64)> {
                (done.iter())
                    .filter_map(|(lib, run)| Some((f64::from(lib.value), metric(run)?)))
                    .collect()
            };
            let exponent = |p: Option<f64>| p.map_or("–".to_string(), |a| format!("{a:.2}"));
            let largest = (done.iter())
                .max_by_key(|(lib, _)| lib.value)
                .map_or("–".to_string(), |(lib, run)| {
                    format!("{} ({})", lib.value, seconds_text(run.seconds))
                });
            let _ = writeln!(
                out,
                "| {family} | k{k} l{l} | {}/{} | {largest} | {} | {} |",
                done.len(),
                members.len(),
                exponent(growth(&points(|r| Some(r.seconds)))),
                exponent(growth(&points(|r| r.configurations.map(|c| c as f64)))),
            );
        }
    }
    out.push('\n');
}

fn cell_text(run: &RunRecord) -> String {
    match run.status {
        Status::Done => format!(
            "{}, {} conf, {} traces",
            seconds_text(run.seconds),
            run.configurations
                .map_or("?".to_string(), |c| c.to_string()),
            run.failing_traces.unwrap_or(0)
        ),
        status => status.name().to_string(),
    }
}

/// Distinguishable line colours (Tableau 10).
const PALETTE: [(u8, u8, u8); 10] = [
    (31, 119, 180),
    (255, 127, 14),
    (44, 160, 44),
    (214, 39, 40),
    (148, 103, 189),
    (140, 86, 75),
    (227, 119, 194),
    (127, 127, 127),
    (188, 189, 34),
    (23, 190, 207),
];

/// An axis label with as few digits as the magnitude needs.
fn short_number(y: f64) -> String {
    if y >= 1e6 {
        format!("{:.1e}", y)
    } else if y >= 10.0 {
        format!("{y:.0}")
    } else if y >= 1.0 {
        format!("{y:.1}")
    } else {
        format!("{y:.3}")
    }
}

fn seconds_text(seconds: f64) -> String {
    if seconds < 1.0 {
        format!("{:.1} ms", seconds * 1000.0)
    } else {
        format!("{seconds:.2} s")
    }
}

type Series = Vec<(String, Vec<(f64, f64)>)>;

/// One line per bound of `metric` against the family's parameter, over finished runs.
fn series(
    members: &[&Library],
    runs: &BTreeMap<(String, u32, u32), RunRecord>,
    bounds: &BTreeSet<(u32, u32)>,
    metric: fn(&RunRecord) -> Option<f64>,
) -> Series {
    bounds
        .iter()
        .map(|&(k, l)| {
            let points = members
                .iter()
                .filter_map(|lib| {
                    let run = runs.get(&(lib.file.clone(), k, l))?;
                    (run.status == Status::Done)
                        .then(|| metric(run))
                        .flatten()
                        .map(|y| (f64::from(lib.value), y.max(1e-3)))
                })
                .collect();
            (format!("k={k} l={l}"), points)
        })
        .collect()
}

fn plot_family(
    path: &Path,
    family: &str,
    members: &[&Library],
    runs: &BTreeMap<(String, u32, u32), RunRecord>,
    bounds: &BTreeSet<(u32, u32)>,
) -> Result<(), String> {
    let panels: [(&str, Series); 4] = [
        (
            "seconds",
            series(members, runs, bounds, |r| Some(r.seconds)),
        ),
        (
            "configurations",
            series(members, runs, bounds, |r| {
                r.configurations.map(|c| c as f64)
            }),
        ),
        (
            "solver seconds",
            series(members, runs, bounds, |r| r.solver_seconds),
        ),
        ("peak MB", series(members, runs, bounds, |r| r.peak_rss_mb)),
    ];
    let x_max = members.iter().map(|lib| lib.value).max().unwrap_or(1) as f64;
    let x_min = members.iter().map(|lib| lib.value).min().unwrap_or(0) as f64;
    // Sizes that span orders of magnitude are drawn at log₂ of the value (labelled
    // with the value): 1..1,024 statements would crowd the small ones into a corner.
    let log_x = x_min >= 1.0 && x_max / x_min >= 16.0;
    let at = |x: f64| if log_x { x.log2() } else { x };
    let (x_min, x_max) = (at(x_min), at(x_max));
    let label = |x: &f64| {
        let value = if log_x { x.exp2() } else { *x };
        format!("{value:.0}")
    };
    let root = SVGBackend::new(path, (960, 800)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    for (area, (metric, lines)) in root.split_evenly((2, 2)).iter().zip(panels) {
        let ys: Vec<f64> = lines
            .iter()
            .flat_map(|(_, p)| p.iter().map(|(_, y)| *y))
            .collect();
        let (y_min, y_max) = ys
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), y| {
                (lo.min(*y), hi.max(*y))
            });
        let (y_min, y_max) = if ys.is_empty() {
            (1e-3, 1.0)
        } else {
            (y_min / 2.0, y_max * 2.0)
        };
        let mut chart = ChartBuilder::on(area)
            .caption(format!("{metric} vs {family}"), ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(x_min..x_max.max(x_min + 1.0), (y_min..y_max).log_scale())
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .max_light_lines(0)
            .x_labels(members.len().max(2))
            .x_label_formatter(&label)
            .y_label_formatter(&|y| short_number(*y))
            .x_desc(family)
            .y_desc(metric)
            .draw()
            .map_err(|e| e.to_string())?;
        for (index, (label, points)) in lines.into_iter().enumerate() {
            let points: Vec<(f64, f64)> = points.into_iter().map(|(x, y)| (at(x), y)).collect();
            let (r, g, b) = PALETTE[index % PALETTE.len()];
            let color = RGBColor(r, g, b).to_rgba();
            chart
                .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))
                .map_err(|e| e.to_string())?
                .label(label)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2))
                });
            chart
                .draw_series(
                    points
                        .into_iter()
                        .map(|p| Circle::new(p, 3, color.filled())),
                )
                .map_err(|e| e.to_string())?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| e.to_string())?;
    }
    root.present().map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_vary_one_parameter_and_regeneration_is_stable() {
        let dir = tempfile::tempdir().unwrap();
        let families = vec![("methods", vec![1, 2]), ("size", vec![3, 8])];
        let libraries = generate_libraries(dir.path(), &families, 5).unwrap();
        assert_eq!(libraries.len(), 4);
        assert_eq!((libraries[1].methods, libraries[1].size), (2, BASE.size));
        assert_eq!((libraries[3].methods, libraries[3].size), (BASE.methods, 8));
        // methods-02 and size-03 are both the base shape, hence the same program.
        let programs = dir.path().join("programs");
        let read = |f: &str| std::fs::read_to_string(programs.join(f)).unwrap();
        assert_eq!(read("methods-02.holi"), read("size-03.holi"));
        assert_eq!(load_libraries(dir.path()).unwrap(), libraries);
        // The same parameters again are fine; another seed into the same place is refused.
        assert!(generate_libraries(dir.path(), &families, 5).is_ok());
        assert!(generate_libraries(dir.path(), &families, 6).is_err());
    }

    #[test]
    fn growth_is_the_slope_of_the_larger_half_in_log_log() {
        // A fixed cost of 10 at small sizes, then time ∝ size²: the fit sees the square.
        let points: Vec<(f64, f64)> = [1, 2, 4, 8, 16, 32, 64, 128]
            .map(|x| (f64::from(x), 10.0 + f64::from(x * x)))
            .to_vec();
        let a = growth(&points).unwrap();
        assert!((a - 2.0).abs() < 0.05, "{a}");
        let linear: Vec<(f64, f64)> = [0, 3, 9, 27]
            .map(|x| (f64::from(x), 5.0 * f64::from(x)))
            .to_vec();
        assert!((growth(&linear).unwrap() - 1.0).abs() < 1e-9);
        // Size 0 has no logarithm; two points are no curve.
        assert_eq!(growth(&linear[..3]), None);
    }

    #[test]
    fn the_report_plots_finished_runs() {
        let dir = tempfile::tempdir().unwrap();
        let families = vec![("nesting", vec![0, 1, 2])];
        let libraries = generate_libraries(dir.path(), &families, 1).unwrap();
        let mut writer = crate::record::RunsWriter::open(&dir.path().join("runs.csv")).unwrap();
        for (i, lib) in libraries.iter().enumerate() {
            let status = if i == 2 {
                Status::Timeout
            } else {
                Status::Done
            };
            let mut run =
                RunRecord::bare(&lib.file, 2, 1, status, 0.5 * (i + 1) as f64, String::new());
            run.configurations = Some(10 * (i as u64 + 1));
            writer.append(&run).unwrap();
        }
        let text = write_scale_report(dir.path()).unwrap();
        assert!(text.contains(
            "![seconds, configurations, solver time and memory vs nesting](scale-nesting.svg)"
        ));
        assert!(text.contains("| 1 |"), "{text}");
        // Two finished runs: no exponent, and the largest that finished.
        assert!(
            text.contains("| nesting | k2 l1 | 2/3 | 1 (1.00 s) | – | – |"),
            "{text}"
        );
        assert!(text.contains("timeout"));
        let svg = std::fs::read_to_string(dir.path().join("scale-nesting.svg")).unwrap();
        assert!(
            svg.contains("<svg") && svg.contains("seconds vs nesting"),
            "{svg}"
        );
        assert!(svg.contains("k=2 l=1"));
    }
}
