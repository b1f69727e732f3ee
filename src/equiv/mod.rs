//! The equivalence pipeline (`holi equiv`): two loaded libraries and a [`Request`] →
//! whether some client tells them apart within the bounds, and when one does, the
//! shortest difference as a trace with values and the client that shows it, run on
//! each side.
//!
//! Each library is built once; the search is [`crate::symbolic::compare`]. A
//! difference becomes a client by the synthesis `check` uses ([`crate::client`]),
//! from the moves of the side that goes on to an end the client sees (else of a side
//! that moved, up to its move); that client is linked with each side and run on the
//! concrete interpreter, and the difference is reported only when each run makes its
//! side's moves, the two runs part where the search said and end differently. One
//! that does not replay leaves the answer inconclusive: it is never reported as found.

mod deepening;
mod proving;

pub use deepening::{Deepening, EquivBounds, Past};
pub use proving::Proof;

use crate::client::{self, AtMove, Unwritten, Watch};
use crate::concrete::{self, Cutoff, Limits, Outcome, ProgramIndex, Stop};
use crate::frontend::Loaded;
use crate::library::{self, Library};
use crate::link::{self, Files};
use crate::replay::{self, REPLAY_LIMITS};
use crate::symbolic::compare::{self, Comparison};
use crate::symbolic::moves;
use crate::symbolic::product::{Difference, End, Incomparable, Mismatch, Side, StuckPlace};
use crate::symbolic::{Bounds, CheckOptions, Progress, Stats};
use crate::syntax::ast::{Expr, ExprKind, Program, Span, Type};
use crate::trace::{Counterexample, FailureKind, Move, Player, Trace, TraceValue};
use num_bigint::BigInt;
use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

/// The unfoldings of a comparison unless the user says otherwise: enough for a
/// binary search over ten elements. Each more multiplies the paths through code
/// that recurses on the client's integers (sorting them, say) by their branching.
pub const DEFAULT_UNFOLD: u32 = 4;

/// What a comparison is asked, beyond the search's bounds and limits.
#[derive(Clone, Debug)]
pub struct Request {
    /// The bounds k and l, and the limits (of the techniques, only `memo`); the limits
    /// hold in every phase, the client's synthesis and runs included.
    pub options: CheckOptions,
    /// The unfoldings.
    pub unfold: u32,
    /// The most elements of a list the client plays.
    pub lists: u32,
    /// Whether to compare at growing bounds, and how far.
    pub deepen: Deepen,
    /// Also write the distinguishing client to `DIR/<stem>.holi` (`--client DIR`).
    pub client_dir: Option<PathBuf>,
    /// Whether a search that finds no difference is followed by an attempt to prove
    /// the libraries equivalent for every k and l (`--prove`, `--no-prove`).
    pub proof: crate::check::ProofMode,
    /// Where to write that proof's certificate as `<stem>.smt2` (`--certificate DIR`).
    pub certificate: Option<PathBuf>,
    /// The name the client is written under.
    pub stem: String,
}

/// How a comparison picks its bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deepen {
    /// At the bounds asked only.
    No,
    /// At growing bounds up to those asked ([`Deepening`]), so that a limit met on the
    /// way still leaves the bounds covered.
    To,
    /// Up to those asked, then on past them until a difference is found or a limit
    /// stops it; without a deadline, as [`Deepen::To`].
    Past(Past),
}

/// The answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No client tells them apart within the bounds; the search was complete.
    Equivalent,
    /// A client tells them apart, and running it on each side showed it.
    Inequivalent,
    /// A limit, a solver `unknown`, or a difference that did not replay.
    Inconclusive,
    /// No difference, but paths of a side got stuck: what follows them is unexplored.
    Stuck,
}

impl Verdict {
    /// The verdict in the JSON and SARIF documents.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Equivalent => "equivalent",
            Verdict::Inequivalent => "inequivalent",
            Verdict::Inconclusive => "inconclusive",
            Verdict::Stuck => "stuck",
        }
    }
}

/// What a side did where the two part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Parting {
    /// A move to the client: symbolic, and with the difference's values.
    Moved { trace: Move, concrete: Move },
    /// A failing `assert` or a division by zero, at this place of its source.
    Failed { kind: FailureKind, span: Span },
    /// A divergence (`_bot_`): the client waits forever.
    Diverged,
}

impl fmt::Display for Parting {
    /// What the side did, with the difference's values: `call send(2)`, `fails an
    /// assert`, `diverges`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Parting::Moved { concrete, .. } => write!(f, "{concrete}"),
            Parting::Failed { kind, .. } => f.write_str(failure_verb(*kind)),
            Parting::Diverged => f.write_str("diverges"),
        }
    }
}

/// What a failure of `kind` does, as a verb phrase.
pub fn failure_verb(kind: FailureKind) -> &'static str {
    match kind {
        FailureKind::Assert => "fails an assert",
        FailureKind::Division => "divides by zero",
    }
}

/// What a run of the distinguishing client did on one side after the shared moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Observed {
    Moved(Move),
    Failed { kind: FailureKind, span: Span },
    Diverged,
}

/// How a run of the distinguishing client ended, as a program that runs it can see:
/// what `main` returned, a failure, or no end at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    Returned(TraceValue),
    Failed(FailureKind),
    Diverged,
}

impl fmt::Display for Ending {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ending::Returned(value) => write!(f, "returns {value}"),
            Ending::Failed(kind) => f.write_str(failure_verb(*kind)),
            Ending::Diverged => f.write_str("diverges"),
        }
    }
}

/// How the distinguishing client's runs went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Replay {
    /// Each run made its side's moves, then they did these different things, and the
    /// runs ended differently: a client that tells the libraries apart.
    Confirmed {
        left: Observed,
        right: Observed,
        ends: Box<[Ending; 2]>,
    },
    /// A run did not do what the search said.
    Mismatch { side: Side, reason: String },
    /// Time ran out or the user interrupted first.
    NotReplayed(Cutoff),
    /// No client could be written from the trace.
    Unwritten(String),
}

/// A shortest difference, as users see it.
#[derive(Clone, Debug)]
pub struct Shown {
    /// The moves both sides make, symbolic and with values.
    pub trace: Trace,
    pub concrete: Trace,
    pub left: Parting,
    pub right: Parting,
    /// The client's integers (`x1 = 0`).
    pub model: BTreeMap<String, BigInt>,
    /// What differs, in words.
    pub what: String,
    /// Whether no shorter difference exists within the bounds (the search completed).
    pub shortest: bool,
    /// The distinguishing client's source.
    pub client: Option<String>,
    /// Where it was written (`--client DIR`).
    pub client_path: Option<PathBuf>,
    pub replay: Replay,
}

impl Shown {
    /// The moves of the distinguishing trace: the shared ones, then the parting one.
    pub fn moves(&self) -> usize {
        self.trace.0.len() + 1
    }
}

/// What a comparison came to.
#[derive(Clone, Debug)]
pub struct Compared {
    pub verdict: Verdict,
    pub difference: Option<Shown>,
    pub stuck: Vec<StuckPlace>,
    pub stats: Stats,
    /// Why the answer is not complete.
    pub inconclusive: Vec<String>,
    /// The bounds the answer is about: where the difference was found (a probe's
    /// bounds when a probe found it), where the search stopped, or for an equivalent
    /// answer the bounds covered.
    pub bounds: EquivBounds,
    /// The largest bounds within which the search was complete and found no
    /// difference.
    pub covered: Option<EquivBounds>,
    /// When deepening stopped at a limit after it covered some bounds (the answer is
    /// then equivalent within those): the bounds it was searching, and why it stopped.
    pub beyond: Option<Beyond>,
    /// Each comparison made, in order: one without deepening.
    pub levels: Vec<Level>,
    /// The attempt to prove them equivalent for every k and l: when it proves, the
    /// verdict is equivalent, whatever the search left open.
    pub proof: Proof,
}

/// One comparison of a deepening (or the only one).
#[derive(Clone, Copy, Debug)]
pub struct Level {
    pub bounds: EquivBounds,
    /// Whether it was a probe's ([`Deepening::probing`]).
    pub probe: bool,
    pub end: LevelEnd,
    pub configurations: u64,
    /// The time from the start of the comparison to its end.
    pub seconds: f64,
}

/// How a level ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LevelEnd {
    /// Complete, no difference: the main lane covered its bounds; a probe, nothing.
    Complete,
    /// A difference was found.
    Difference,
    /// It reached its share of configurations and was abandoned for another.
    Abandoned,
    /// It got stuck or was inconclusive, or a limit stopped it.
    Unsettled,
}

impl LevelEnd {
    pub fn as_str(self) -> &'static str {
        match self {
            LevelEnd::Complete => "complete",
            LevelEnd::Difference => "difference",
            LevelEnd::Abandoned => "abandoned",
            LevelEnd::Unsettled => "unsettled",
        }
    }
}

/// Larger bounds a deepening comparison began but did not complete.
#[derive(Clone, Debug)]
pub struct Beyond {
    pub bounds: EquivBounds,
    pub why: Vec<String>,
}

/// Why two files could not be compared.
#[derive(Debug)]
pub enum EquivError {
    /// Their interfaces differ.
    Incomparable(Vec<Mismatch>),
    /// The client could not be written to `--client DIR`.
    Client(std::io::Error),
    /// The certificate could not be written to `--certificate DIR`.
    Certificate(std::io::Error),
}

/// Compares `left` and `right` as `request` asks, calling `progress` during the search.
pub fn run(
    left: &Loaded,
    right: &Loaded,
    request: &Request,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Compared, EquivError> {
    let libs = [
        library::build(&left.program),
        library::build(&right.program),
    ];
    let files = [left, right];
    // The search stops at the flag the race gives it: the user's interrupt, or a proof.
    let search = |stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
                  covering: &mut dyn FnMut() -> bool| {
        let searching = Request {
            options: CheckOptions {
                limits: crate::symbolic::Limits {
                    interrupt: Some(stop),
                    ..request.options.limits.clone()
                },
                ..request.options.clone()
            },
            ..request.clone()
        };
        deepen(&searching, &libs, progress, covering)
    };
    // An error (incomparable interfaces) ends the attempt as a difference does.
    let differs =
        |s: &Result<Searched, EquivError>| !matches!(s, Ok(s) if s.comparison.difference.is_none());
    let raced = proving::alongside(&libs, files, &asked(request), search, differs);
    let mut searched = raced.searched?;
    if raced.stopped_search && !searched.comparison.inconclusive.is_empty() {
        // Whatever the search had left open, the proof settles (it covers every
        // bound); what is left to say is why it ended.
        searched.comparison.inconclusive = vec!["the proof was found first".to_string()];
    }
    let proof = raced.proof;
    let Searched {
        bounds,
        comparison,
        covered,
        levels,
    } = searched;
    let Comparison {
        difference,
        stuck,
        stats,
        mut inconclusive,
        shortest,
    } = comparison;
    let limits = Limits {
        deadline: request.options.limits.deadline,
        interrupt: request.options.limits.interrupt.clone(),
        ..REPLAY_LIMITS
    };
    let programs = [&left.program, &right.program];
    let mut shown = difference.map(|d| show(&libs, programs, &d, shortest, &limits));
    if let (Some(dir), Some(shown)) = (&request.client_dir, &mut shown) {
        if let Some(source) = &shown.client {
            let path = dir.join(format!("{}.holi", request.stem));
            std::fs::create_dir_all(dir)
                .and_then(|()| std::fs::write(&path, source))
                .map_err(EquivError::Client)?;
            shown.client_path = Some(path);
        }
    }
    let verdict = match &shown {
        Some(s) => match &s.replay {
            Replay::Confirmed { .. } => Verdict::Inequivalent,
            Replay::Mismatch { side, reason } => {
                inconclusive.push(format!(
                    "the difference found did not replay on the {side} side: {reason}"
                ));
                Verdict::Inconclusive
            }
            Replay::NotReplayed(cutoff) => {
                inconclusive.push(format!("the difference found was not replayed ({cutoff})"));
                Verdict::Inconclusive
            }
            Replay::Unwritten(why) => {
                inconclusive.push(format!("no client was written for the difference: {why}"));
                Verdict::Inconclusive
            }
        },
        // Deepening stopped by a limit: the bounds covered before it stand, and the
        // answer says which (a bounded answer is what `EQUIVALENT within` means).
        None if !inconclusive.is_empty()
            && request.deepen != Deepen::No
            && covered.is_some()
            && stuck.is_empty() =>
        {
            Verdict::Equivalent
        }
        None if !inconclusive.is_empty() => Verdict::Inconclusive,
        None if !stuck.is_empty() => Verdict::Stuck,
        None => Verdict::Equivalent,
    };
    // An equivalent answer is about the bounds covered, even when the last level
    // searched was a probe's.
    let (bounds, beyond) = match covered {
        Some(reached) if verdict == Verdict::Equivalent => {
            let beyond = (!inconclusive.is_empty()).then(|| Beyond {
                bounds,
                why: std::mem::take(&mut inconclusive),
            });
            (reached, beyond)
        }
        _ => (bounds, None),
    };
    // Stopped beside the search by the difference, by its share of memory, or never
    // started there: after it, as long as the search took.
    let proof = match (verdict, proof) {
        (Verdict::Inequivalent, _) => Proof::NotAttempted,
        (_, Some(proof)) => proof.map_err(EquivError::Certificate)?,
        (_, None) => prove(request, &libs, files, raced.took)?,
    };
    let verdict = match proof {
        Proof::Proved { .. } => Verdict::Equivalent,
        _ => verdict,
    };
    Ok(Compared {
        verdict,
        difference: shown,
        stuck,
        stats,
        inconclusive,
        bounds,
        covered,
        beyond,
        levels,
        proof,
    })
}

/// What the search of a comparison came to: its last comparison at `bounds`, the
/// bounds it covered, and every level it searched.
struct Searched<'p> {
    bounds: EquivBounds,
    comparison: Comparison<'p>,
    covered: Option<EquivBounds>,
    levels: Vec<Level>,
}

/// The search of a comparison as `request` asks (deepening or not), calling `covering`
/// once when it has covered the bounds asked; it ends there when that says so (a
/// proof for every bound was found).
fn deepen<'p>(
    request: &Request,
    libs: &'p [Library; 2],
    progress: &mut dyn FnMut(&Progress),
    covering: &mut dyn FnMut() -> bool,
) -> Result<Searched<'p>, EquivError> {
    let asked = EquivBounds {
        k: request.options.bounds.k,
        l: request.options.bounds.l,
        unfold: request.unfold,
        lists: libs
            .iter()
            .any(|lib| lib.types.any_list())
            .then_some(request.lists),
    };
    let mut deepening = match request.deepen {
        Deepen::No => None,
        // Past the bounds asked, only a limit ends the deepening.
        Deepen::Past(past) if request.options.limits.deadline.is_some() => {
            Some(Deepening::new(asked, Some(past)))
        }
        Deepen::To | Deepen::Past(_) => Some(Deepening::new(asked, None)),
    };
    let mut bounds = deepening.as_ref().map_or(asked, Deepening::first);
    let mut covered = None;
    let mut solving = compare::Solving::new();
    let started = std::time::Instant::now();
    let mut signalled = false;
    let mut levels = Vec::new();
    let asked_cap = request.options.limits.max_configurations;
    let (bounds, comparison) = loop {
        // A deepening level that costs far more than the levels before is abandoned for
        // the growth of another bound ([`Deepening::abandon`]).
        let level_cap = deepening
            .as_ref()
            .map(Deepening::cap)
            .filter(|&cap| asked_cap.is_none_or(|asked| cap < asked));
        let mut options = CheckOptions {
            bounds: Bounds {
                k: bounds.k,
                l: bounds.l,
            },
            ..request.options.clone()
        };
        if level_cap.is_some() {
            options.limits.max_configurations = level_cap;
        }
        let sizes = compare::Sizes {
            unfold: bounds.unfold,
            lists: bounds.lists.unwrap_or(0),
        };
        let comparison =
            compare::compare(&libs[0], &libs[1], &options, sizes, &mut solving, progress)
                .map_err(|Incomparable(why)| EquivError::Incomparable(why))?;
        let capped = level_cap.is_some_and(|cap| comparison.stats.configurations >= cap)
            && comparison.difference.is_none()
            && comparison.stuck.is_empty()
            && !request.options.limits.stopped();
        let configurations = comparison.stats.configurations;
        let probing = deepening.as_ref().is_some_and(Deepening::probing);
        let unsettled = !comparison.inconclusive.is_empty() || !comparison.stuck.is_empty();
        levels.push(Level {
            bounds,
            probe: probing,
            end: if comparison.difference.is_some() {
                LevelEnd::Difference
            } else if capped {
                LevelEnd::Abandoned
            } else if unsettled {
                LevelEnd::Unsettled
            } else {
                LevelEnd::Complete
            },
            configurations,
            seconds: started.elapsed().as_secs_f64(),
        });
        if capped {
            if let Some(next) = deepening.as_mut().and_then(|d| d.abandon(configurations)) {
                bounds = next;
                continue;
            }
        }
        // A probe that got stuck or is inconclusive, but not for a limit of the whole
        // comparison, leaves the answer to the other lanes: it covers nothing.
        if probing
            && comparison.difference.is_none()
            && unsettled
            && !request.options.limits.stopped()
        {
            match deepening.as_mut().and_then(Deepening::drop_probe) {
                Some(next) => {
                    bounds = next;
                    continue;
                }
                // No lane is left: the answer is the main lane's, which the probe's
                // bounds (above it in one bound) do not touch.
                None => {
                    let mut comparison = comparison;
                    comparison.stuck.clear();
                    comparison.inconclusive.clear();
                    break (bounds, comparison);
                }
            }
        }
        let settled = comparison.difference.is_some() || unsettled;
        if !settled && !probing {
            covered = Some(bounds);
            // Past the bounds asked only a limit ends the deepening, or a proof for
            // every bound, whose attempt starts at the latest once they are covered.
            let reached = bounds.k >= asked.k
                && bounds.l >= asked.l
                && bounds.unfold >= asked.unfold
                && bounds.lists >= asked.lists;
            if reached && !signalled {
                signalled = true;
                if covering() {
                    break (bounds, comparison);
                }
            }
        }
        match deepening.as_mut().filter(|_| !settled) {
            Some(d) => match d.next(configurations) {
                Some(next) => bounds = next,
                None => break (bounds, comparison),
            },
            None => break (bounds, comparison),
        }
    };
    Ok(Searched {
        bounds,
        comparison,
        covered,
        levels,
    })
}

/// What `request` asks of the proof attempt.
fn asked(request: &Request) -> proving::Asked<'_> {
    proving::Asked {
        mode: request.proof,
        certificate: (request.certificate.as_deref()).map(|dir| proving::Certificate {
            dir,
            stem: &request.stem,
        }),
        limits: &request.options.limits,
    }
}

/// The attempt to prove `libs` equivalent for every k and l, as `request` asks, after a
/// search of `searched`, for its share of the time ([`proving::own_share`]).
fn prove(
    request: &Request,
    libs: &[Library; 2],
    files: [&Loaded; 2],
    searched: std::time::Duration,
) -> Result<Proof, EquivError> {
    let limits = &request.options.limits;
    let asked = asked(request);
    let own = proving::own_share(&asked, searched);
    let capped = std::sync::atomic::AtomicBool::new(false);
    // On a thread of its own: the checker's alarm interrupts its thread's Z3 context
    // at its deadline, which must not be the one the replays go on in.
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(crate::frontend::STACK_SIZE)
            .spawn_scoped(s, || {
                proving::attempt(libs, files, &asked, limits, own, &capped)
            })
            .map(|t| t.join())
    })
    .ok()
    .and_then(Result::ok)
    .unwrap_or_else(|| {
        Ok(proving::Attempted {
            proof: Proof::NotProved("the proof attempt failed".to_string()),
            out_of_memory: false,
        })
    })
    .map(|a| a.proof)
    .map_err(EquivError::Certificate)
}

/// The difference `d` rendered, its client written and run on each side.
fn show(
    libs: &[Library; 2],
    programs: [&Program; 2],
    d: &Difference,
    shortest: bool,
    limits: &Limits,
) -> Shown {
    let rendered = [
        moves::render(&libs[0], &d.left, &d.witness),
        moves::render(&libs[1], &d.right, &d.witness),
    ];
    let n = d.shared as usize;
    let parting = |side: usize| -> Parting {
        match &d.ends[side] {
            End::Failed(kind, span) => Parting::Failed {
                kind: *kind,
                span: span.clone(),
            },
            End::Diverged => Parting::Diverged,
            End::Moved => {
                let r = &rendered[side];
                match (r.trace.0.get(n), r.concrete.0.get(n)) {
                    (Some(trace), Some(concrete)) => Parting::Moved {
                        trace: trace.clone(),
                        concrete: concrete.clone(),
                    },
                    // A side that moved has its move after the shared ones.
                    _ => Parting::Failed {
                        kind: FailureKind::Assert,
                        span: 0..0,
                    },
                }
            }
        }
    };
    let (left, right) = (parting(0), parting(1));
    let first = |t: &Trace, n: usize| Trace(t.0.iter().take(n).cloned().collect());
    let trace = first(&rendered[0].trace, n);
    let concrete = first(&rendered[0].concrete, n);
    let mut model = rendered[1].model.clone();
    model.extend(rendered[0].model.clone());
    // The client plays the moves of the side that goes on to an end the client sees,
    // or else of a side that moved up to its move, so that it receives that move's
    // integers; the other side's run leaves its script where the two part.
    let (script, played) = match d.completed {
        Some(Side::Left) => (0, usize::MAX),
        Some(Side::Right) => (1, usize::MAX),
        None if d.ends[0] == End::Moved => (0, n + 1),
        None if d.ends[1] == End::Moved => (1, n + 1),
        None => (0, n),
    };
    // Where the sides part, the client sees the library's move number `parting` on
    // the side that moves. It goes on there to the end of its trace, and runs forever
    // on a side that does anything else; against a side that failed first, it runs
    // forever at once, so that the failure is the only end of its kind.
    let parting = rendered[script].trace.0[..n.min(rendered[script].trace.0.len())]
        .iter()
        .filter(|m| m.by == Player::Library)
        .count()
        + 1;
    let at = match (d.completed, &d.ends) {
        (Some(_), _) => Some(AtMove::Expect(parting)),
        (None, [End::Moved, _] | [_, End::Moved]) => Some(AtMove::Diverge(parting)),
        (None, _) => None,
    };

    // The synthesis reads the moves and the locations; the failure it names is the
    // header's, which is replaced.
    let cx = Counterexample {
        kind: FailureKind::Assert,
        span: 0..0,
        trace: first(&rendered[script].trace, played),
        concrete: first(&rendered[script].concrete, played),
        model: model.clone(),
        locations: rendered[script].locations.clone(),
        valuation: None,
    };
    let mut shown = Shown {
        trace,
        concrete,
        left,
        right,
        model,
        what: d.what.clone(),
        shortest,
        client: None,
        client_path: None,
        replay: Replay::Unwritten(String::new()),
    };
    let indexes = [
        ProgramIndex::new(programs[0]),
        ProgramIndex::new(programs[1]),
    ];
    // The client that only plays and logs shows the sides' own ends, and is tried
    // first; the one that runs forever where they part is tried when that is not
    // enough.
    let attempts = if at.is_some() {
        vec![None, at]
    } else {
        vec![None]
    };
    for at in attempts {
        let watch = Watch {
            log: LOG,
            seen: SEEN,
            at,
        };
        let mut client = match client::synthesize_prefix(&indexes[script], &cx, limits, watch) {
            Ok(c) => c,
            Err(Unwritten::Error(e)) => {
                shown.replay = Replay::Unwritten(e.0);
                return shown;
            }
            Err(Unwritten::Cutoff(c)) => {
                shown.replay = Replay::NotReplayed(c);
                return shown;
            }
        };
        instrument(&mut client.program);
        client.header = header(&shown);
        shown.client = Some(replay::client_source(&client));
        shown.replay = confirm(&indexes, &client.program, &shown, limits);
        if matches!(shown.replay, Replay::Confirmed { .. }) {
            break;
        }
    }
    shown
}

/// Runs `client` with each side and checks that each makes its side's moves and that
/// the two then part.
fn confirm(
    indexes: &[ProgramIndex<'_>; 2],
    client: &Program,
    shown: &Shown,
    limits: &Limits,
) -> Replay {
    let client = ProgramIndex::new(client);
    let mut observed = Vec::new();
    for (side, (index, parting)) in [Side::Left, Side::Right]
        .into_iter()
        .zip(indexes.iter().zip([&shown.left, &shown.right]))
    {
        match run_side(index, &client, &shown.concrete, parting, limits) {
            Ok((o, Some(end))) => observed.push((o, end)),
            Ok((_, None)) => {
                let reason = "the run reached no end a program can observe".to_string();
                return Replay::Mismatch { side, reason };
            }
            Err(Err(cutoff)) => return Replay::NotReplayed(cutoff),
            Err(Ok(reason)) => return Replay::Mismatch { side, reason },
        }
    }
    let (Some((right, right_end)), Some((left, left_end))) = (observed.pop(), observed.pop())
    else {
        return Replay::Unwritten("no run".to_string());
    };
    // Different moves are not enough: the moves after them may hide the difference
    // (a side that diverges later). The runs must end differently. Alike moves may
    // part only in what they leave in the cells the client holds, which it reads.
    if (left == right && !holds_cells(shown)) || left_end == right_end {
        let reason =
            format!("both runs end alike ({left_end:?}): this client does not tell them apart");
        return Replay::Mismatch {
            side: Side::Right,
            reason,
        };
    }
    Replay::Confirmed {
        left,
        right,
        ends: Box::new([left_end, right_end]),
    }
}

/// Whether the client holds cells by the moves of `shown`: then two alike moves can
/// leave different contents in them.
fn holds_cells(shown: &Shown) -> bool {
    fn in_value(v: &TraceValue) -> bool {
        match v {
            TraceValue::Ref(_) => true,
            TraceValue::Pair(a, b) => in_value(a) || in_value(b),
            TraceValue::List(items) => items.iter().any(in_value),
            _ => false,
        }
    }
    let parting = [&shown.left, &shown.right]
        .into_iter()
        .filter_map(|p| match p {
            Parting::Moved { concrete, .. } => Some(concrete),
            _ => None,
        });
    (shown.concrete.0.iter().chain(parting)).any(|m| in_value(&m.value))
}

/// The name of the client's count of its functions' invocations.
const CALLS: &str = "holi_calls__";
/// The name of the client's log of the integers its functions received.
const LOG: &str = "holi_log__";
/// The name of the client's count of the library's moves ([`Watch::seen`]).
const SEEN: &str = "holi_seen__";
/// The name of `main`'s own result, before the count is added to it.
const RESULT: &str = "holi_result__";

/// Makes the synthesized `client` report what it saw in how `main` ends: every method
/// of the client counts its invocations and logs which method it is and the integer it
/// receives (the synthesis logs the integers the library returns to it), and `main`
/// returns its own value with the count and the log. So a call one side makes and the
/// other does not, a call of another function, a different integer passed to or
/// returned to the client, or a different last answer to `main` changes `main`'s
/// result, provided the run gets there.
fn instrument(client: &mut Program) {
    use crate::syntax::ast::{BinOp, Decl, Ident};
    let e = |kind| Expr::new(kind, 0..0);
    let global = |name: &str| Ident {
        name: name.to_string(),
        span: 0..0,
    };
    let binary = |op, a: Expr, b: Expr| e(ExprKind::Binary(op, Box::new(a), Box::new(b)));
    let read = |name: &str| e(ExprKind::Deref(global(name)));
    let mut methods = 0;
    for decl in &mut client.decls {
        if let Decl::Method(m) = decl {
            methods += 1;
            let count = e(ExprKind::Assign(
                global(CALLS),
                Box::new(binary(BinOp::Add, read(CALLS), e(ExprKind::Int(1.into())))),
            ));
            // Which function was invoked: two sides that call different functions of
            // the client with the same argument give different logs.
            let mut steps = vec![
                count,
                client::fold_into(LOG, e(ExprKind::Int(methods.into()))),
            ];
            let param = e(ExprKind::Var(m.func.param.name.clone()));
            log_integers(param, &m.func.param_ty, &mut steps);
            let mut body = std::mem::replace(&mut *m.func.body, e(ExprKind::Unit));
            while let Some(step) = steps.pop() {
                body = e(ExprKind::Seq(Box::new(step), Box::new(body)));
            }
            *m.func.body = body;
        }
    }
    for name in [CALLS, LOG, SEEN] {
        client.decls.push(Decl::IntRef {
            name: global(name),
            init: 0.into(),
            span: 0..0,
        });
    }
    let calls = || global(CALLS);
    if let Some(main) = &mut client.main {
        let result = Ident {
            name: RESULT.to_string(),
            span: 0..0,
        };
        let body = std::mem::replace(&mut main.body, e(ExprKind::Unit));
        let counted = e(ExprKind::Pair(
            Box::new(e(ExprKind::Var(RESULT.to_string()))),
            Box::new(e(ExprKind::Deref(calls()))),
        ));
        let reported = e(ExprKind::Pair(Box::new(counted), Box::new(read(LOG))));
        main.body = e(ExprKind::Let(result, Box::new(body), Box::new(reported)));
    }
}

/// Pushes to `steps` the logging of every integer of `value`, of type `ty`; of a list,
/// its length too (a 1 before each element, a 0 at its end).
fn log_integers(value: Expr, ty: &Type, steps: &mut Vec<Expr>) {
    let part = |kind| Expr::new(kind, 0..0);
    match ty {
        Type::Int | Type::Bool => steps.push(client::fold_into(LOG, value)),
        Type::Pair(a, b) => {
            log_integers(part(ExprKind::Fst(Box::new(value.clone()))), a, steps);
            log_integers(part(ExprKind::Snd(Box::new(value))), b, steps);
        }
        Type::List(element) => {
            let name = |n: &str| crate::syntax::ast::Ident {
                name: n.to_string(),
                span: 0..0,
            };
            let var = |n: &str| part(ExprKind::Var(n.to_string()));
            let int = |n: i32| part(ExprKind::Int(n.into()));
            let mut each = vec![client::fold_into(LOG, int(1))];
            log_integers(var("holi_head__"), element, &mut each);
            each.push(part(ExprKind::App(
                Box::new(var("holi_log_list__")),
                Box::new(var("holi_tail__")),
            )));
            let each = each
                .into_iter()
                .rev()
                .reduce(|rest, step| part(ExprKind::Seq(Box::new(step), Box::new(rest))));
            let walk = part(ExprKind::Match {
                scrutinee: Box::new(var("holi_list__")),
                nil: Box::new(client::fold_into(LOG, int(0))),
                head: name("holi_head__"),
                tail: name("holi_tail__"),
                cons: Box::new(each.unwrap_or_else(|| part(ExprKind::Unit))),
            });
            let function = crate::syntax::ast::Function {
                param: name("holi_list__"),
                param_ty: ty.clone(),
                ret_ty: Type::Unit,
                body: Box::new(walk),
            };
            let call = part(ExprKind::App(
                Box::new(var("holi_log_list__")),
                Box::new(value),
            ));
            steps.push(part(ExprKind::LetRec(
                name("holi_log_list__"),
                function,
                Box::new(call),
            )));
        }
        Type::Unit | Type::Ref(_) | Type::Arrow(..) => {}
    }
}

/// One side's run of the client: what it did after the shared moves `shared`, or why
/// that is not `parting` (`Ok`), or the cutoff that stopped it (`Err`).
fn run_side(
    index: &ProgramIndex<'_>,
    client: &ProgramIndex<'_>,
    shared: &Trace,
    parting: &Parting,
    limits: &Limits,
) -> Result<(Observed, Option<Ending>), Result<String, Cutoff>> {
    if let Some(cutoff) = limits.cutoff() {
        return Err(Err(cutoff));
    }
    let files = Files {
        library: "library.holi",
        client: "client.holi",
    };
    if let Err(errors) = link::compatible(index, client, files) {
        let titles: Vec<String> = errors.iter().map(|d| d.title.clone()).collect();
        return Err(Ok(format!(
            "the client does not link: {}",
            titles.join("; ")
        )));
    }
    let run = concrete::run_indexed(Some(index), client, limits.clone(), &mut |_| {});
    if let Outcome::Stopped(Stop::Cutoff(cutoff)) = &run.outcome {
        return Err(Err(*cutoff));
    }
    let mut expected = shared.0.clone();
    if let Parting::Moved { concrete, .. } = parting {
        expected.push(concrete.clone());
    }
    let n = expected.len().min(run.moves.len());
    let (expected, moves, snapshots) = (&expected[..n], &run.moves[..n], &run.snapshots[..n]);
    replay::same_moves(index, expected, moves, snapshots).map_err(Ok)?;
    let renamed =
        |mv: &Move| replay::in_trace_names(index, expected, moves, snapshots, mv).map_err(Ok);
    let ending = match &run.outcome {
        Outcome::Finished(value) => Some(Ending::Returned(value.clone())),
        Outcome::Failed(f) => Some(Ending::Failed(f.kind)),
        Outcome::Stopped(Stop::Diverged { .. }) => Some(Ending::Diverged),
        Outcome::Stopped(_) => None,
    };
    let observed = match parting {
        // Told in the trace's names: the run numbers the functions it meets its own way.
        Parting::Moved { .. } => match run.moves.get(shared.0.len()) {
            Some(mv) => Ok(Observed::Moved(renamed(mv)?)),
            None => Err(Ok(format!(
                "the run made {} moves, not the {} expected",
                run.moves.len(),
                expected.len()
            ))),
        },
        Parting::Failed { kind, span } => match &run.outcome {
            Outcome::Failed(f)
                if run.moves.len() == shared.0.len() && f.kind == *kind && f.span == *span =>
            {
                Ok(Observed::Failed {
                    kind: *kind,
                    span: span.clone(),
                })
            }
            other => Err(Ok(format!(
                "the run ended with {other:?} after {} moves instead of failing",
                run.moves.len()
            ))),
        },
        Parting::Diverged => match &run.outcome {
            Outcome::Stopped(Stop::Diverged { side, .. })
                if run.moves.len() == shared.0.len() && *side == concrete::Side::Library =>
            {
                Ok(Observed::Diverged)
            }
            other => Err(Ok(format!(
                "the run ended with {other:?} after {} moves instead of diverging",
                run.moves.len()
            ))),
        },
    }?;
    Ok((observed, ending))
}

/// The comment above the distinguishing client.
fn header(shown: &Shown) -> String {
    let mut out = String::from(
        "// Synthesized by holi equiv: a client that tells the two libraries apart.\n\
         // It plays these moves with either library:\n",
    );
    for mv in &shown.concrete.0 {
        let who = match mv.by {
            crate::trace::Player::Client => "client ",
            crate::trace::Player::Library => "library",
        };
        out.push_str(&format!("//   {who}  {mv}\n"));
    }
    for (side, parting) in [("left ", &shown.left), ("right", &shown.right)] {
        let what = match parting {
            Parting::Moved { concrete, .. } => concrete.to_string(),
            Parting::Failed { kind, .. } => match kind {
                FailureKind::Assert => "fails an assert".to_string(),
                FailureKind::Division => "divides by zero".to_string(),
            },
            Parting::Diverged => "diverges".to_string(),
        };
        out.push_str(&format!("// then the {side} library: {what}\n"));
    }
    if !shown.model.is_empty() {
        let model: Vec<String> = shown
            .model
            .iter()
            .map(|(k, v)| format!("{k} = {v}"))
            .collect();
        out.push_str(&format!("// model: {}\n", model.join(", ")));
    }
    out
}
