//! The proof attempt of `holi equiv`: after a search that found no difference, a
//! relational certificate for every k and l ([`crate::proof::relational`],
//! `lang/proofs.md` §8), found and re-checked on its own, and written as SMT-LIB with
//! `--certificate DIR`.

use crate::check::{ProofMode, PROOF_TIME_FLOOR};
use crate::frontend::Loaded;
use crate::library::Library;
use crate::proof::relational::{self, Names, Side};
use crate::proof::{Budget, INTERRUPTED, TIME_LIMIT};
use crate::report::LineIndex;
use crate::symbolic::memory;
use crate::symbolic::Limits;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What the attempt came to.
#[derive(Clone, Debug, PartialEq)]
pub enum Proof {
    /// Equivalent for every k and l: the relation and turn relation found (in words),
    /// the obligations discharged over that many pairs of functions, and the file the
    /// certificate was written to.
    Proved {
        relation: Vec<String>,
        turn_relation: Vec<String>,
        obligations: usize,
        pairs: usize,
        smtlib: Option<PathBuf>,
        seconds: f64,
    },
    /// Why no proof was found.
    NotProved(String),
    /// `--no-prove`, or a difference was found.
    NotAttempted,
}

/// Where the certificate goes (`--certificate DIR`) and under which name.
pub struct Certificate<'a> {
    pub dir: &'a Path,
    pub stem: &'a str,
}

/// Tries to prove `libs` equivalent for every k and l within `limits` (its deadline,
/// Ctrl-C flag and memory limit), and without `--prove` within as long as the search
/// took (`searched`), at least [`PROOF_TIME_FLOOR`], or half the time left before the
/// deadline when that is longer.
pub fn attempt(
    libs: &[Library; 2],
    files: [&Loaded; 2],
    mode: ProofMode,
    certificate: Option<Certificate<'_>>,
    limits: &Limits,
    searched: Duration,
) -> std::io::Result<Proof> {
    if mode == ProofMode::Off {
        return Ok(Proof::NotAttempted);
    }
    let started = Instant::now();
    let half_left =
        (limits.deadline).map_or(Duration::ZERO, |d| d.saturating_duration_since(started) / 2);
    let own = (mode != ProofMode::Required)
        .then(|| started + searched.max(PROOF_TIME_FLOOR).max(half_left));
    let memory = memory::Watch::start(
        limits.max_memory.unwrap_or(u64::MAX),
        limits.interrupt.clone(),
    );
    let budget = Budget {
        deadline: match (limits.deadline, own) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        },
        interrupt: Some(memory.flag()),
        ..match mode {
            ProofMode::Required => Budget::thorough(),
            _ => Budget::default(),
        }
    };
    let lines = [
        LineIndex::new(&files[0].source),
        LineIndex::new(&files[1].source),
    ];
    let place = |side: Side, span: &crate::syntax::ast::Span| {
        let i = match side {
            Side::Left => 0,
            Side::Right => 1,
        };
        let at = lines[i].point(span.start);
        format!("{}:{}:{}", files[i].name, at.line, at.column)
    };
    let (found, outcome) = relational::prove(&libs[0], &libs[1], budget.clone(), &place);
    // The certificate's text comes from one more check of what was found.
    let (outcome, text) = match (&certificate, outcome) {
        (Some(_), relational::Outcome::Proved { .. }) => {
            relational::certify(&libs[0], &libs[1], &found, budget, &place)
        }
        (_, outcome) => (outcome, None),
    };
    Ok(match outcome {
        relational::Outcome::Proved { obligations, pairs } => {
            let smtlib = match (certificate, text) {
                (Some(c), Some(text)) => {
                    std::fs::create_dir_all(c.dir)?;
                    let path = c.dir.join(format!("{}.smt2", c.stem));
                    std::fs::write(&path, text)?;
                    Some(path)
                }
                _ => None,
            };
            let names = Names::of(&libs[0], &libs[1]);
            Proof::Proved {
                relation: found.describe(&names),
                turn_relation: (found.steps.iter())
                    .map(|s| s.display(&names).to_string())
                    .collect(),
                obligations,
                pairs,
                smtlib,
                seconds: started.elapsed().as_secs_f64(),
            }
        }
        relational::Outcome::Refuted(why) => {
            Proof::NotProved(format!("no relation holi tried shows that {why}"))
        }
        relational::Outcome::Unknown(why) if why == TIME_LIMIT || why == INTERRUPTED => {
            let why = if memory.exceeded() {
                "the memory limit (--max-memory) was exceeded".to_string()
            } else if why == TIME_LIMIT && limits.deadline.is_none_or(|d| Instant::now() < d) {
                "the attempt had as long as the search took, a second, or half the time left (--prove gives it all the time the command has)".to_string()
            } else {
                why
            };
            Proof::NotProved(format!("the proof attempt was cut short: {why}"))
        }
        relational::Outcome::NotCovered(why) | relational::Outcome::Unknown(why) => {
            Proof::NotProved(why)
        }
    })
}
