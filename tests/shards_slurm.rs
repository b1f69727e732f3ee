//! Shards for real: a single-node Slurm cluster (Debian's `slurmctld`, `slurmd` and
//! `munge`, which `.ci/run` installs) is brought up in a temporary folder, the shipped
//! job-array script (`benchmark/slurm/holi-shards.sbatch`) runs `holi check --shard
//! auto` as three tasks with `sbatch --wait`, and `holi merge` of their parts is the
//! report of the run without shards. Where Slurm is missing or cannot be brought up,
//! the test says why and passes: `tests/shards.rs` still checks the merge.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod times;
use times::timeless;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn run(program: &str, args: &[&str], conf: &Path) -> std::io::Result<Output> {
    Command::new(program)
        .args(args)
        .env("SLURM_CONF", conf)
        .current_dir(root())
        .stdin(Stdio::null())
        .output()
}

/// A port nothing listens on now.
fn free_port() -> Option<u16> {
    let listener = TcpListener::bind("127.0.0.1:0").ok()?;
    Some(listener.local_addr().ok()?.port())
}

/// The cluster's daemons, stopped when dropped.
struct Cluster {
    dir: PathBuf,
    conf: PathBuf,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = run("scontrol", &["shutdown"], &self.conf);
        std::thread::sleep(Duration::from_secs(1));
        for pid in ["slurmd.pid", "slurmctld.pid", "munge/pid"] {
            if let Ok(pid) = std::fs::read_to_string(self.dir.join(pid)) {
                let _ = Command::new("kill").arg(pid.trim()).status();
            }
        }
    }
}

/// Brings up munge, slurmctld and slurmd in `dir`, with one node of the machine's
/// cores; an error says why it could not.
fn bring_up(dir: &Path) -> Result<Cluster, String> {
    for tool in [
        "munged",
        "slurmctld",
        "slurmd",
        "sbatch",
        "scontrol",
        "sinfo",
    ] {
        let found = Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .output()
            .is_ok_and(|o| o.status.success());
        if !found {
            return Err(format!("no `{tool}` on this machine (.ci/run installs Debian's slurmctld, slurmd and munge)"));
        }
    }
    let uid = Command::new("id")
        .arg("-u")
        .output()
        .map_err(|e| e.to_string())?;
    if String::from_utf8_lossy(&uid.stdout).trim() != "0" {
        return Err("the daemons need root".to_string());
    }
    let munge = dir.join("munge");
    for sub in ["state", "spool", "munge"] {
        std::fs::create_dir_all(dir.join(sub)).map_err(|e| e.to_string())?;
    }
    let key: Vec<u8> = (0..1024u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(munge.join("munge.key"), key).map_err(|e| e.to_string())?;
    let chmod = |mode: &str, path: &Path| {
        Command::new("chmod")
            .arg(mode)
            .arg(path)
            .status()
            .map_err(|e| e.to_string())
    };
    chmod("700", &munge)?;
    chmod("400", &munge.join("munge.key"))?;
    let path = |name: &str| munge.join(name).display().to_string();
    let munged = Command::new("munged")
        .arg("--force")
        .arg(format!("--key-file={}", path("munge.key")))
        .arg(format!("--socket={}", path("socket")))
        .arg(format!("--pid-file={}", path("pid")))
        .arg(format!("--log-file={}", path("log")))
        .arg(format!("--seed-file={}", path("seed")))
        .status()
        .map_err(|e| format!("munged: {e}"))?;
    if !munged.success() {
        return Err(format!("munged did not start: {munged}"));
    }
    let host = Command::new("hostname")
        .arg("-s")
        .output()
        .map_err(|e| e.to_string())?;
    let host = String::from_utf8_lossy(&host.stdout).trim().to_string();
    let (Some(controller), Some(node)) = (free_port(), free_port()) else {
        return Err("no free port".to_string());
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let d = dir.display();
    let conf = dir.join("slurm.conf");
    let text = format!(
        "ClusterName=holi\nSlurmctldHost={host}(127.0.0.1)\nSlurmUser=root\nSlurmdUser=root\n\
         AuthType=auth/munge\nAuthInfo=socket={socket}\nCredType=cred/munge\n\
         StateSaveLocation={d}/state\nSlurmdSpoolDir={d}/spool\n\
         SlurmctldPidFile={d}/slurmctld.pid\nSlurmdPidFile={d}/slurmd.pid\n\
         SlurmctldLogFile={d}/slurmctld.log\nSlurmdLogFile={d}/slurmd.log\n\
         SlurmctldPort={controller}\nSlurmdPort={node}\n\
         ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n\
         JobAcctGatherType=jobacct_gather/none\nAccountingStorageType=accounting_storage/none\n\
         SchedulerType=sched/builtin\nSelectType=select/cons_tres\nSelectTypeParameters=CR_CPU\n\
         ReturnToService=2\nMpiDefault=none\n\
         NodeName={host} NodeAddr=127.0.0.1 CPUs={cores} State=UNKNOWN\n\
         PartitionName=holi Nodes={host} Default=YES MaxTime=INFINITE State=UP\n",
        socket = path("socket"),
    );
    std::fs::write(&conf, text).map_err(|e| e.to_string())?;
    let cluster = Cluster {
        dir: dir.to_path_buf(),
        conf: conf.clone(),
    };
    for daemon in ["slurmctld", "slurmd"] {
        let started = Command::new(daemon)
            .arg("-f")
            .arg(&conf)
            .status()
            .map_err(|e| format!("{daemon}: {e}"))?;
        if !started.success() {
            return Err(format!("{daemon} did not start: {started}"));
        }
    }
    // Up once the node is idle.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let state = run("sinfo", &["-h", "-o", "%T"], &conf).map_err(|e| e.to_string())?;
        if String::from_utf8_lossy(&state.stdout).trim() == "idle" {
            return Ok(cluster);
        }
        if Instant::now() > deadline {
            let log = std::fs::read_to_string(dir.join("slurmd.log")).unwrap_or_default();
            let tail: Vec<&str> = log.lines().rev().take(5).collect();
            return Err(format!("the node never became idle: {}", tail.join(" / ")));
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

#[test]
fn a_slurm_job_array_of_shards_merges_into_the_whole_run() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let cluster = match bring_up(dir.path()) {
        Ok(cluster) => cluster,
        Err(why) => {
            eprintln!("skipped: Slurm could not be brought up: {why}");
            return;
        }
    };
    let holi = env!("CARGO_BIN_EXE_holi");
    // Submits the script as three tasks writing to `parts`, and merges their parts.
    let sharded = |parts: &Path, args: &[&str]| -> Output {
        let script = root().join("benchmark/slurm/holi-shards.sbatch");
        // Slurm opens the log before the script makes the folder.
        std::fs::create_dir_all(parts).expect("a folder for the parts");
        let output = format!("--output={}/log-%a.txt", parts.display());
        let submitted = Command::new("sbatch")
            .args(["--wait", "--array=1-3", "--cpus-per-task=1", &output])
            .arg(&script)
            .arg(parts)
            .args(args)
            .env("SLURM_CONF", &cluster.conf)
            .env("HOLI", holi)
            .current_dir(root())
            .output()
            .expect("sbatch runs");
        let logs: Vec<String> = (1..=3)
            .map(|i| {
                std::fs::read_to_string(parts.join(format!("log-{i}.txt"))).unwrap_or_default()
            })
            .collect();
        assert!(
            submitted.status.success(),
            "sbatch: {}\n{}\n{logs:?}",
            String::from_utf8_lossy(&submitted.stdout),
            String::from_utf8_lossy(&submitted.stderr)
        );
        let mut merge = Command::new(holi);
        merge.arg("merge").current_dir(root());
        for i in 1..=3 {
            merge.arg(parts.join(format!("part-{i}.json")));
        }
        let merged = merge.output().expect("holi merge runs");
        assert!(
            merged.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&merged.stderr)
        );
        merged
    };
    let run = |args: &[&str]| {
        Command::new(holi)
            .args(args)
            .current_dir(root())
            .output()
            .expect("holi check runs")
    };
    let text = |out: &Output| timeless(&String::from_utf8_lossy(&out.stdout));
    let merged = sharded(&dir.path().join("parts"), &["examples", "--jobs", "1"]);
    let whole = run(&["check", "examples", "--jobs", "1"]);
    assert_eq!(merged.status.code(), whole.status.code());
    assert_eq!(text(&merged), text(&whole));
    // One file: its search cut into lanes across the three tasks, merged into the
    // report of the same search on one machine.
    let one = ["examples/dao.holi", "--jobs", "1", "--cut-after", "10"];
    let merged = sharded(&dir.path().join("one"), &one);
    let alone = dir.path().join("alone.json");
    let mut shard = vec!["check"];
    shard.extend(one);
    let alone_arg = alone.display().to_string();
    shard.extend(["--shard", "1/1", "--part", &alone_arg]);
    assert_eq!(run(&shard).status.code(), Some(0));
    let on_one = run(&["merge", &alone_arg]);
    assert_eq!(merged.status.code(), on_one.status.code());
    assert_eq!(text(&merged), text(&on_one));
    assert!(text(&merged).contains("UNSAFE"), "{}", text(&merged));
    drop(cluster);
}
