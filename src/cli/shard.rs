//! Shards: `holi check FILES… --shard I/N` checks a deterministic share of the files
//! and writes a *part*; `holi merge PARTS…` joins the parts of one run into exactly the
//! report the run without `--shard` prints (`lang/shards.md`).
//!
//! A run's cells are its inputs, in the order `holi check` takes them; cell `c` (from 0)
//! belongs to shard `c mod N + 1`, so every shard knows its share from the command line
//! alone. A part holds, per cell of its share, what the unsharded run writes for that
//! file (its text, its JSON report or its SARIF run, and its section of the HTML page)
//! and its outcome; the merge writes them in cell order between the same header and
//! footer, and the summary of several files, so the merged report is the unsharded one
//! byte for byte.
//!
//! A run of one file is *cut*: its one search is shared ([`crate::symbolic::shares`]),
//! every shard's part holds the file's contents and what its lanes found, and the merge
//! joins them and makes the report (proof attempt, replays, every format) as `holi
//! check` would from that result.
//!
//! A part names its run by a fingerprint of the command line (less `--shard` and
//! `--part`), the input names and their contents, and holi's version: the merge refuses
//! a part of another run, a shard given twice, and a missing shard, naming them.

use super::exit::Outcome;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The part format's version, in every part.
pub const PART_VERSION: u32 = 2;

/// Which share of the run this process does: shard `index` of `count` (from 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// Whether cell `cell` (from 0) is this shard's.
    pub fn owns(self, cell: usize) -> bool {
        cell % self.count + 1 == self.index
    }

    /// The cells of `cells` this shard owns.
    pub fn cells(self, cells: usize) -> Vec<usize> {
        (0..cells).filter(|&c| self.owns(c)).collect()
    }
}

/// `--shard I/N`, or `auto` for the index and count a scheduler gives its copies:
/// Slurm's job arrays (`SLURM_ARRAY_TASK_ID`, from `SLURM_ARRAY_TASK_MIN`, and
/// `SLURM_ARRAY_TASK_COUNT`) or a Kubernetes Indexed Job (`JOB_COMPLETION_INDEX`, from
/// 0, with the count in `HOLI_SHARD_COUNT`, which the Job sets).
pub fn parse_shard(text: &str) -> Result<Shard, String> {
    if text == "auto" {
        return from_environment(&|name| std::env::var(name).ok());
    }
    let (index, count) = text
        .split_once('/')
        .ok_or_else(|| format!("`{text}` is not I/N (for instance 2/4) or auto"))?;
    let number = |s: &str| s.trim().parse::<usize>().ok();
    let (Some(index), Some(count)) = (number(index), number(count)) else {
        return Err(format!("`{text}` is not I/N with whole numbers"));
    };
    if count == 0 || index == 0 || index > count {
        return Err(format!(
            "shard {index} of {count}: I must be from 1 to N, and N at least 1"
        ));
    }
    Ok(Shard { index, count })
}

fn from_environment(var: &dyn Fn(&str) -> Option<String>) -> Result<Shard, String> {
    let number = |name: &str| -> Result<Option<usize>, String> {
        match var(name) {
            None => Ok(None),
            Some(v) => (v.trim().parse::<usize>())
                .map(Some)
                .map_err(|_| format!("{name}={v} is not a whole number")),
        }
    };
    let shard = match (
        number("SLURM_ARRAY_TASK_ID")?,
        number("JOB_COMPLETION_INDEX")?,
    ) {
        (Some(id), _) => {
            let min = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
            let step = number("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1).max(1);
            let count = number("SLURM_ARRAY_TASK_COUNT")?
                .ok_or("SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not")?;
            let offset = id
                .checked_sub(min)
                .ok_or("SLURM_ARRAY_TASK_ID is below SLURM_ARRAY_TASK_MIN")?;
            if offset % step != 0 {
                return Err(format!(
                    "SLURM_ARRAY_TASK_ID {id} is not on the array's steps of {step} from {min} \
                     (give --shard I/N for an array with gaps)"
                ));
            }
            Shard {
                index: offset / step + 1,
                count,
            }
        }
        (None, Some(index)) => Shard {
            index: index + 1,
            count: number("HOLI_SHARD_COUNT")?.ok_or(
                "JOB_COMPLETION_INDEX is set but HOLI_SHARD_COUNT (the Job's completions) is not",
            )?,
        },
        (None, None) => {
            return Err(
                "--shard auto: neither SLURM_ARRAY_TASK_ID nor JOB_COMPLETION_INDEX \
                        is set (give --shard I/N)"
                    .to_string(),
            )
        }
    };
    if shard.index == 0 || shard.index > shard.count {
        return Err(format!(
            "the scheduler's shard {} of {} is out of range",
            shard.index, shard.count
        ));
    }
    Ok(shard)
}

/// What the run's reports go out as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PartFormat {
    Text,
    Json,
    Sarif,
}

/// A run's part: one shard's cells.
#[derive(Debug, Serialize, Deserialize)]
pub struct Part {
    /// [`PART_VERSION`].
    pub holi_part: u32,
    pub holi_version: String,
    pub run: RunId,
    pub shard: ShardId,
    /// The shard's cells, in cell order.
    pub cells: Vec<CellPart>,
}

/// Which run a part belongs to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunId {
    /// `holi check`'s arguments, less `--shard` and `--part`.
    pub arguments: Vec<String>,
    /// Every input of the run, in cell order.
    pub inputs: Vec<String>,
    /// Of the arguments, the inputs' names and contents, and holi's version.
    pub fingerprint: String,
    pub format: PartFormat,
    /// Whether the run writes several files' reports (a summary, a JSON `files` array).
    pub several: bool,
    /// Whether it was run with `-q` (the summary is then its counts only).
    pub quiet: bool,
    /// The `--report` page the run writes, if any.
    pub page: Option<String>,
    /// Whether its one file's search is cut across the shards: then every shard holds
    /// cell 0, with its share of the search.
    pub cut: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ShardId {
    pub index: usize,
    pub count: usize,
    /// The cells it owns.
    pub cells: Vec<usize>,
}

/// What the unsharded run writes for one input.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CellPart {
    pub cell: usize,
    pub name: String,
    /// Its exit code.
    pub outcome: u8,
    /// Its word in the summary of several files (`SAFE`, `skipped`, `not checked`).
    pub word: String,
    /// Its text, JSON report or SARIF run.
    pub output: String,
    /// Its section of the HTML page.
    pub page: Option<String>,
    /// In a cut run, the file's contents and this shard's share of its search; `None`
    /// for a file not checked (its output is then the same in every part).
    pub search: Option<CutCell>,
}

/// A shard's share of the one search of a cut run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CutCell {
    /// The file as the shard read it, for the merge to load.
    pub source: String,
    pub share: crate::symbolic::shares::SharePart,
}

/// The fingerprint of a run: FNV-1a over its arguments, inputs and their contents, and
/// holi's version, each length-prefixed so that no two runs' bytes run together.
pub fn fingerprint(arguments: &[String], inputs: &[(String, Vec<u8>)]) -> String {
    let mut hash = crate::fnv::Fnv64::default();
    let mut feed = |bytes: &[u8]| {
        hash.bytes(&(bytes.len() as u64).to_le_bytes()).bytes(bytes);
    };
    feed(crate::report::HOLI_VERSION.as_bytes());
    for a in arguments {
        feed(a.as_bytes());
    }
    for (name, contents) in inputs {
        feed(name.as_bytes());
        feed(contents);
    }
    format!("{:016x}", hash.value())
}

/// The arguments of this process's `holi check`, less `--shard X` and `--part X` (and
/// their `=` forms), as the fingerprint reads them.
pub fn run_arguments() -> Vec<String> {
    let mut out = Vec::new();
    // Not `args()`, which panics on an argument that is not Unicode (a file name, say).
    let mut args = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned());
    while let Some(a) = args.next() {
        if a == "--shard" || a == "--part" {
            args.next();
        } else if !(a.starts_with("--shard=") || a.starts_with("--part=")) {
            out.push(a);
        }
    }
    out
}

/// Writes `part` to `path`, or to standard output; an error is a part not written
/// whole (a closed pipe too: a part cut short is no part).
pub fn write_part(part: &Part, path: Option<&Path>) -> std::io::Result<()> {
    use std::io::Write as _;
    let text = serde_json::to_string(part).map_err(std::io::Error::other)? + "\n";
    match path {
        Some(path) => std::fs::write(path, text),
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())?;
            out.flush()
        }
    }
}

/// Why parts could not be merged: each names the part (or shard) at fault.
#[derive(Debug, PartialEq, Eq)]
pub enum MergeError {
    Unreadable(PathBuf, String),
    Foreign {
        path: PathBuf,
        why: String,
    },
    Duplicated {
        index: usize,
        count: usize,
        first: PathBuf,
        second: PathBuf,
    },
    Missing {
        index: usize,
        count: usize,
        cells: Vec<usize>,
    },
    Inconsistent {
        path: PathBuf,
        why: String,
    },
}

impl std::fmt::Display for MergeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MergeError::Unreadable(path, why) => {
                write!(f, "{}: not a holi part: {why}", path.display())
            }
            MergeError::Foreign { path, why } => write!(
                f,
                "{}: a part of another run ({why}); merge only the parts of one run",
                path.display()
            ),
            MergeError::Duplicated {
                index,
                count,
                first,
                second,
            } => write!(
                f,
                "shard {index} of {count} is given twice: {} and {}",
                first.display(),
                second.display()
            ),
            MergeError::Missing {
                index,
                count,
                cells,
            } => write!(
                f,
                "shard {index} of {count} is missing (its cells: {}); without it the report \
                 would be partial",
                cells_text(cells)
            ),
            MergeError::Inconsistent { path, why } => write!(f, "{}: {why}", path.display()),
        }
    }
}

fn cells_text(cells: &[usize]) -> String {
    if cells.is_empty() {
        return "none".to_string();
    }
    let shown: Vec<String> = cells.iter().take(8).map(usize::to_string).collect();
    let more = if cells.len() > 8 { ", …" } else { "" };
    format!("{}{more}", shown.join(", "))
}

/// The parts at `paths`, read and checked to be every shard of one run, once each; the
/// cells of all of them, in cell order, with the run.
pub fn gather(paths: &[PathBuf]) -> Result<(RunId, Vec<CellPart>), MergeError> {
    let mut parts: Vec<(PathBuf, Part)> = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(path)
            .map_err(|e| MergeError::Unreadable(path.clone(), e.to_string()))?;
        let part: Part = serde_json::from_str(&text)
            .map_err(|e| MergeError::Unreadable(path.clone(), e.to_string()))?;
        if part.holi_version != crate::report::HOLI_VERSION {
            return Err(MergeError::Foreign {
                path: path.clone(),
                why: format!(
                    "written by holi {} where this is holi {}: merge with the holi that \
                     wrote the parts",
                    part.holi_version,
                    crate::report::HOLI_VERSION
                ),
            });
        }
        if part.holi_part != PART_VERSION {
            return Err(MergeError::Foreign {
                path: path.clone(),
                why: format!(
                    "part format {} where this holi reads {PART_VERSION}",
                    part.holi_part
                ),
            });
        }
        parts.push((path.clone(), part));
    }
    let Some((first_path, first)) = parts.first() else {
        return Err(MergeError::Missing {
            index: 1,
            count: 1,
            cells: Vec::new(),
        });
    };
    let (run, count) = (first.run.clone(), first.shard.count);
    // By index, in a map: `count` comes from a file and may be anything.
    let mut by_index: std::collections::BTreeMap<usize, &(PathBuf, Part)> =
        std::collections::BTreeMap::new();
    for entry in &parts {
        let (path, part) = entry;
        if part.run.fingerprint != run.fingerprint || part.run != run {
            let why = if part.run.inputs != run.inputs {
                "other inputs".to_string()
            } else if part.run.arguments != run.arguments {
                format!(
                    "`holi check {}` where {} ran `holi check {}`",
                    part.run.arguments.join(" "),
                    first_path.display(),
                    run.arguments.join(" ")
                )
            } else {
                "the same names with other contents, or another holi".to_string()
            };
            return Err(MergeError::Foreign {
                path: path.clone(),
                why,
            });
        }
        if part.shard.count != count {
            return Err(MergeError::Foreign {
                path: path.clone(),
                why: format!(
                    "cut into {} shards where {} was cut into {count}",
                    part.shard.count,
                    first_path.display()
                ),
            });
        }
        let shard = Shard {
            index: part.shard.index,
            count,
        };
        if shard.index == 0 || shard.index > count {
            return Err(MergeError::Inconsistent {
                path: path.clone(),
                why: format!("shard {} of {count} is out of range", part.shard.index),
            });
        }
        if let Some((earlier, _)) = by_index.get(&shard.index) {
            return Err(MergeError::Duplicated {
                index: shard.index,
                count,
                first: earlier.clone(),
                second: path.clone(),
            });
        }
        let expected = cells_of(shard, &run);
        let held: Vec<usize> = part.cells.iter().map(|c| c.cell).collect();
        if part.shard.cells != expected || held != expected {
            return Err(MergeError::Inconsistent {
                path: path.clone(),
                why: format!(
                    "shard {} of {count} should hold cells {} but holds {}",
                    shard.index,
                    cells_text(&expected),
                    cells_text(&held)
                ),
            });
        }
        by_index.insert(shard.index, entry);
    }
    // The first index from 1 that no part holds: found within as many steps as parts.
    let missing = (1..=count).find(|i| !by_index.contains_key(i));
    if let Some(index) = missing {
        let shard = Shard { index, count };
        return Err(MergeError::Missing {
            index: shard.index,
            count,
            cells: cells_of(shard, &run),
        });
    }
    // In cell order; a cut run's one cell in shard order.
    parts.sort_by_key(|(_, p)| p.shard.index);
    let mut cells: Vec<CellPart> = parts.into_iter().flat_map(|(_, p)| p.cells).collect();
    cells.sort_by_key(|c| c.cell);
    Ok((run, cells))
}

/// The cells `shard` holds in `run`: its own, or in a cut run the one cell.
fn cells_of(shard: Shard, run: &RunId) -> Vec<usize> {
    if run.cut {
        vec![0]
    } else {
        shard.cells(run.inputs.len())
    }
}

/// The outcome a part's cell records.
pub fn outcome_of(code: u8) -> Outcome {
    match code {
        0 => Outcome::Ok,
        1 => Outcome::Failure,
        3 => Outcome::Inconclusive,
        4 => Outcome::Stuck,
        _ => Outcome::BadInput,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_own_every_cell_once() {
        assert_eq!(parse_shard("2/3"), Ok(Shard { index: 2, count: 3 }));
        for bad in ["0/3", "4/3", "1/0", "x/2", "3", ""] {
            assert!(parse_shard(bad).is_err(), "{bad}");
        }
        let shards: Vec<Shard> = (1..=3).map(|index| Shard { index, count: 3 }).collect();
        for cell in 0..10 {
            assert_eq!(shards.iter().filter(|s| s.owns(cell)).count(), 1);
        }
        assert_eq!(shards[1].cells(7), [1, 4]);
    }

    #[test]
    fn schedulers_give_the_shard_through_the_environment() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| (pairs.iter().find(|(n, _)| *n == name)).map(|(_, v)| v.to_string())
        };
        let slurm = env(&[
            ("SLURM_ARRAY_TASK_ID", "5"),
            ("SLURM_ARRAY_TASK_MIN", "4"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
        ]);
        assert_eq!(from_environment(&slurm), Ok(Shard { index: 2, count: 3 }));
        let kubernetes = env(&[("JOB_COMPLETION_INDEX", "0"), ("HOLI_SHARD_COUNT", "4")]);
        assert_eq!(
            from_environment(&kubernetes),
            Ok(Shard { index: 1, count: 4 })
        );
        let no_count = env(&[("JOB_COMPLETION_INDEX", "0")]);
        assert!(from_environment(&no_count).is_err_and(|e| e.contains("HOLI_SHARD_COUNT")));
        let out_of_range = env(&[("JOB_COMPLETION_INDEX", "4"), ("HOLI_SHARD_COUNT", "4")]);
        assert!(from_environment(&out_of_range).is_err());
        assert!(from_environment(&env(&[])).is_err());
    }

    #[test]
    fn a_part_that_claims_any_number_of_shards_is_refused_without_a_panic() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let path = dir.path().join("part.json");
        let part = Part {
            holi_part: PART_VERSION,
            holi_version: crate::report::HOLI_VERSION.to_string(),
            run: RunId {
                arguments: vec!["check".to_string(), "a.holi".to_string()],
                inputs: vec!["a.holi".to_string()],
                fingerprint: "0".to_string(),
                format: PartFormat::Text,
                several: false,
                quiet: false,
                page: None,
                cut: false,
            },
            shard: ShardId {
                index: 1,
                count: usize::MAX,
                cells: vec![0],
            },
            cells: vec![CellPart {
                cell: 0,
                name: "a.holi".to_string(),
                outcome: 0,
                word: "SAFE".to_string(),
                output: String::new(),
                page: None,
                search: None,
            }],
        };
        let text = serde_json::to_string(&part).expect("a part is JSON");
        std::fs::write(&path, text).expect("written");
        let refused = gather(std::slice::from_ref(&path));
        assert!(
            matches!(refused, Err(MergeError::Missing { index: 2, .. })),
            "{refused:?}"
        );
    }

    #[test]
    fn a_fingerprint_changes_with_the_arguments_and_the_contents() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let input = |c: &str| vec![("a.holi".to_string(), c.as_bytes().to_vec())];
        let base = fingerprint(&args(&["check", "a.holi"]), &input("x"));
        assert_eq!(base, fingerprint(&args(&["check", "a.holi"]), &input("x")));
        assert_ne!(
            base,
            fingerprint(&args(&["check", "a.holi", "--k", "2"]), &input("x"))
        );
        assert_ne!(base, fingerprint(&args(&["check", "a.holi"]), &input("y")));
        // Lengths are fed too: moving a byte across a boundary is another run.
        assert_ne!(
            fingerprint(&args(&["ab", "c"]), &[]),
            fingerprint(&args(&["a", "bc"]), &[])
        );
    }
}
