//! Where a result came from: the machine, the holi commit, and each command that wrote
//! into a results directory (a resumed run adds an entry).

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Machine {
    pub cpu: String,
    pub cores: usize,
    pub memory_gib: f64,
    pub os: String,
}

impl Machine {
    pub fn detect() -> Self {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let cpu = cpuinfo
            .lines()
            .find_map(|line| {
                let (key, value) = line.split_once(':')?;
                (key.trim() == "model name").then(|| value.trim().to_string())
            })
            .unwrap_or_else(|| "unknown".to_string());
        let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
        let memory_kib: f64 = meminfo
            .lines()
            .find_map(|line| line.strip_prefix("MemTotal:"))
            .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
            .unwrap_or(0.0);
        let os = std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .map(|release| format!("Linux {}", release.trim()))
            .unwrap_or_else(|_| std::env::consts::OS.to_string());
        Machine {
            cpu,
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            memory_gib: (memory_kib / 1024.0 / 1024.0 * 10.0).round() / 10.0,
            os,
        }
    }
}

/// One command that wrote into a results directory.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Invocation {
    pub started: String,
    pub command_line: String,
    pub holi_commit: String,
    pub holi: String,
    pub programs: String,
    /// How many `.holi` files the programs directory held.
    pub files: usize,
    pub ks: Vec<u32>,
    pub ls: Vec<u32>,
    pub timeout_seconds: f64,
    pub jobs: usize,
    pub extra_args: Vec<String>,
    pub skip_after_timeout: bool,
    pub machine: Machine,
    /// `compare` only: the two binaries (`holi` above is the new one) and the rounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compare: Option<Compare>,
}

/// What a `compare` invocation ran: each binary with its commit and fingerprint.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Compare {
    pub baseline: BinaryInfo,
    pub new: BinaryInfo,
    /// Runs per binary per cell.
    pub repeat: u32,
}

/// One binary of a comparison.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct BinaryInfo {
    pub path: String,
    /// The commit it was built from: given on the command line, or guessed from the git
    /// work tree the binary sits in (see `commit_source`), or `unknown`.
    pub commit: String,
    /// Where `commit` comes from.
    pub commit_source: String,
    /// The file's modification time (UTC), roughly when it was built.
    pub modified: String,
    pub bytes: u64,
    /// FNV-1a 64 of the file's contents, in hex: tells two binaries apart, and a resumed
    /// comparison from one whose binaries changed.
    pub fnv64: String,
}

impl BinaryInfo {
    /// Describes `path`, taking the commit from `given` when there is one.
    pub fn describe(path: &Path, given: Option<&str>) -> Result<BinaryInfo, String> {
        let path = &std::fs::canonicalize(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let modified = std::fs::metadata(path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or_else(|| "unknown".to_string(), |d| utc_from_secs(d.as_secs()));
        let (commit, commit_source) = match given {
            Some(commit) => (commit.to_string(), "given on the command line".to_string()),
            None => guess_commit(path),
        };
        Ok(BinaryInfo {
            path: path.display().to_string(),
            commit,
            commit_source,
            modified,
            bytes: bytes.len() as u64,
            fnv64: format!("{:016x}", fnv64(&bytes)),
        })
    }
}

/// FNV-1a, 64 bits: stable across Rust versions, unlike `DefaultHasher`.
pub fn fnv64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The commit of the git work tree that holds `binary` (e.g. `<worktree>/target/release/
/// holi`), with `-dirty` for uncommitted changes: a guess, since the binary may have been
/// built before the work tree last changed. `unknown` outside a work tree.
fn guess_commit(binary: &Path) -> (String, String) {
    let absolute = std::fs::canonicalize(binary).unwrap_or_else(|_| binary.to_path_buf());
    let Some(dir) = absolute.parent() else {
        return ("unknown".to_string(), "not in a git work tree".to_string());
    };
    match git_commit_in(dir) {
        Some((commit, top)) => (
            commit,
            format!("guessed: HEAD of the git work tree `{top}` holding the binary"),
        ),
        None => ("unknown".to_string(), "not in a git work tree".to_string()),
    }
}

/// `git rev-parse --short HEAD` in `dir` (with `-dirty` when tracked files have uncommitted
/// changes) and the work tree's top directory.
fn git_commit_in(dir: &Path) -> Option<(String, String)> {
    let git = |args: &[&str]| {
        Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .output()
            .ok()
            .filter(|out| out.status.success())
            .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    let commit = git(&["rev-parse", "--short", "HEAD"])?;
    let top = git(&["rev-parse", "--show-toplevel"]).unwrap_or_default();
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
        .is_some_and(|changes| !changes.is_empty());
    Some((
        if dirty {
            format!("{commit}-dirty")
        } else {
            commit
        },
        top,
    ))
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Meta {
    pub invocations: Vec<Invocation>,
}

impl Meta {
    pub fn path(dir: &Path) -> PathBuf {
        dir.join("meta.json")
    }

    pub fn load(dir: &Path) -> Result<Meta, String> {
        let path = Meta::path(dir);
        if !path.exists() {
            return Ok(Meta::default());
        }
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    pub fn append(dir: &Path, invocation: Invocation) -> Result<(), String> {
        let mut meta = Meta::load(dir)?;
        meta.invocations.push(invocation);
        let text = serde_json::to_string_pretty(&meta).map_err(|e| e.to_string())?;
        let path = Meta::path(dir);
        std::fs::write(&path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))
    }
}

/// The repository root: this crate lives in `<root>/benchmark`.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from(".."))
}

/// `git rev-parse --short HEAD` of the repository, with `-dirty` when tracked files have
/// uncommitted changes.
pub fn holi_commit() -> String {
    git_commit_in(&repo_root()).map_or_else(|| "unknown".to_string(), |(commit, _)| commit)
}

/// The current UTC time as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn utc_now() -> String {
    utc_from_secs(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
    )
}

/// Seconds since 1970-01-01 UTC as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn utc_from_secs(secs: u64) -> String {
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days as i64);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Parses a bound list: `3`, `2..5` (inclusive) or `2,4,5`.
pub fn parse_bounds(text: &str) -> Result<Vec<u32>, String> {
    let bad = || format!("bad bound list `{text}`: expected N, A..B or A,B,C");
    let values: Vec<u32> = if let Some((low, high)) = text.split_once("..") {
        let low: u32 = low.trim().parse().map_err(|_| bad())?;
        let high: u32 = high
            .trim()
            .trim_start_matches('=')
            .parse()
            .map_err(|_| bad())?;
        (low..=high).collect()
    } else {
        text.split(',')
            .map(|v| v.trim().parse().map_err(|_| bad()))
            .collect::<Result<_, _>>()?
    };
    if values.is_empty() {
        return Err(bad());
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_parse_as_ranges_and_lists() {
        assert_eq!(parse_bounds("2..5").unwrap(), vec![2, 3, 4, 5]);
        assert_eq!(parse_bounds("1..=3").unwrap(), vec![1, 2, 3]);
        assert_eq!(parse_bounds("4").unwrap(), vec![4]);
        assert_eq!(parse_bounds("2, 4").unwrap(), vec![2, 4]);
        assert!(parse_bounds("5..2").is_err());
        assert!(parse_bounds("x").is_err());
    }

    #[test]
    fn dates_are_civil() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(civil_from_days(20_414), (2025, 11, 22));
    }

    #[test]
    fn times_and_fingerprints_are_stable() {
        assert_eq!(utc_from_secs(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc_from_secs(1_763_812_800 + 3_723), "2025-11-22T13:02:03Z");
        // FNV-1a 64 test vectors.
        assert_eq!(fnv64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv64(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn binaries_are_described() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("holi");
        std::fs::write(&path, b"a").unwrap();
        let info = BinaryInfo::describe(&path, None).unwrap();
        // The temp dir may sit inside some work tree on odd machines; only check shape.
        assert!(!info.commit.is_empty());
        assert_eq!(info.bytes, 1);
        assert_eq!(info.fnv64, "af63dc4c8601ec8c");
        let given = BinaryInfo::describe(&path, Some("abc1234")).unwrap();
        assert_eq!(given.commit, "abc1234");
        assert_eq!(given.commit_source, "given on the command line");
    }

    #[test]
    fn the_machine_is_described() {
        let machine = Machine::detect();
        assert!(machine.cores >= 1);
        assert!(!machine.cpu.is_empty());
    }
}
