//! One search cut across machines (`holi check FILE --shard I/N`, `lang/shards.md`):
//! every shard runs the same first task, whose worklist is cut into [`LANES`] lanes
//! that share nothing; shard `I` of `N` searches the lanes `λ` with `λ mod N = I − 1`,
//! and hands over what each found ([`SharePart`]); [`join`] makes of all the parts the
//! result of the search.
//!
//! The result is the same for every `N` (and every number of threads): the first task
//! is the one-thread search up to [`FIRST`] configurations, as in [`super::tasks`], and
//! each lane is a search by tasks of its configurations seen from the first task's view
//! alone, a function of the two, wherever it runs. The lanes' findings are merged per
//! site, shortest first and ties by text, which does not depend on the order. So
//! `--shard 1/1` is this search on one machine, and every cut into shards merges to its
//! report.
//!
//! Why every failure site keeps its minimal length: a lane is a task search like any
//! other ([`super::tasks`]: an exact search of its configurations given its view, which
//! prunes soundly with any subset of what was explored), and the lanes together explore
//! everything the first task's worklist held. A lane that does not see another's memo
//! explores more than the whole search would, never less; that repeated work is what a
//! cut across machines costs (`benchmark/results/2026-12-02-shards-one-search/`).
//!
//! The race ([`super::race`]) is not run: it decides between searches by what each
//! cost on one machine, and its other sides (the split, the search without semantic
//! subsumption) are not cut. A search with `first` ([`super::deepening`]) is not cut
//! either: the caller checks it whole.

use super::brief::Brief;
use super::findings::{Findings, FoundPart};
use super::options::CheckOptions;
use super::outcome::{CheckResult, Progress, Stats};
use super::tasks::{Found, Parallel};
use super::values;
use crate::library::Library;
use serde::{Deserialize, Serialize};

/// The lanes the first task's worklist is cut into: as many machines as can share one
/// search.
pub const LANES: usize = 64;

/// The first task's configurations by default, which every shard repeats. HOLiK's
/// reentrancy-mo at k 6, l 4 (172,258 configurations as one search) explored 2.2 M in
/// its lanes after a first task of 20,000, and 590,203 after one of 120,000: the memo
/// the lanes start from is what keeps them from exploring again what the others do
/// (`benchmark/results/2026-12-02-shards-one-search/`).
pub const FIRST: u64 = 100_000;

/// Which lanes a shard searches: those `λ` with `λ mod count = index` (from 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Share {
    pub index: usize,
    pub count: usize,
}

impl Share {
    pub fn owns(self, lane: usize) -> bool {
        self.count > 0 && lane % self.count == self.index
    }
}

/// What one search (the first task, or a lane) found, as a part holds it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Portion {
    pub found: FoundPart,
    pub stats: Stats,
    pub inconclusive: Vec<String>,
}

/// One shard's share of a search.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SharePart {
    /// The lanes the search was cut into: none when the first task completed it.
    pub lanes: usize,
    /// What the first task found: the same in every shard's part.
    pub first: Portion,
    /// The lanes this shard searched, by number, and what each found.
    pub searched: Vec<(usize, Portion)>,
}

/// Why parts of one search cannot be joined.
#[derive(Debug, PartialEq, Eq)]
pub enum JoinError {
    /// The parts' first tasks differ: they are not of one search.
    FirstDiffers,
    /// A lane no part searched, or one two parts searched.
    Lane { lane: usize, times: usize },
}

impl std::fmt::Display for JoinError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JoinError::FirstDiffers => write!(
                f,
                "the parts' first tasks found different things: they are not shares of one \
                 search"
            ),
            JoinError::Lane { lane, times: 0 } => write!(f, "no part searched lane {lane}"),
            JoinError::Lane { lane, times } => {
                write!(f, "lane {lane} was searched by {times} parts")
            }
        }
    }
}

/// Share `share` of the search of `lib` that `options` ask for: the first task, of up
/// to `first` configurations, and the lanes of `share`.
pub fn search(
    lib: &Library,
    options: &CheckOptions,
    share: Share,
    first: u64,
    progress: &mut dyn FnMut(&Progress),
) -> SharePart {
    let brief = Brief::new(options, lib);
    let (part, _) = brief.within_memory(
        &options.limits,
        |brief| unwatched(lib, brief, share, first, progress),
        |part| {
            let lanes = part.searched.iter_mut().map(|(_, p)| &mut p.inconclusive);
            std::iter::once(&mut part.first.inconclusive)
                .chain(lanes)
                .collect()
        },
    );
    part
}

/// [`search`] without the memory limit.
fn unwatched(
    lib: &Library,
    brief: &Brief,
    share: Share,
    first: u64,
    progress: &mut dyn FnMut(&Progress),
) -> SharePart {
    let (first, lanes, start) =
        Parallel::first_of_lanes(lib, brief, first, LANES).into_lanes(progress);
    let mut spent = first.stats.configurations;
    let count = lanes.len();
    let mut searched = Vec::new();
    for (lane, work) in lanes.into_iter().enumerate() {
        if !share.owns(lane) {
            continue;
        }
        let found = Parallel::lane(lib, brief, work, &start, spent).run_lane(progress);
        spent += found.stats.configurations;
        searched.push((lane, portion(found, brief)));
    }
    SharePart {
        lanes: count,
        first: portion(first, brief),
        searched,
    }
}

/// What `found` hands over, its shortest traces' values chosen.
fn portion(found: Found, brief: &Brief) -> Portion {
    Portion {
        found: found
            .findings
            .into_part(|traces| values::settle(traces, brief)),
        stats: found.stats,
        inconclusive: found.inconclusive,
    }
}

/// The result of the search of `lib` by `options` from every shard's part: the first
/// task's findings and every lane's, merged in lane order.
pub fn join(
    lib: &Library,
    options: &CheckOptions,
    parts: Vec<SharePart>,
) -> Result<CheckResult, JoinError> {
    let brief = Brief::new(options, lib);
    let mut parts = parts.into_iter();
    let Some(head) = parts.next() else {
        return Err(JoinError::Lane { lane: 0, times: 0 });
    };
    let (lanes, first) = (head.lanes, head.first);
    let same_first = serde_json::to_value(&first.found).ok();
    let mut by_lane: Vec<Vec<Portion>> = vec![Vec::new(); lanes];
    let mut place = |searched: Vec<(usize, Portion)>| -> Result<(), JoinError> {
        for (lane, portion) in searched {
            match by_lane.get_mut(lane) {
                Some(slot) => slot.push(portion),
                None => return Err(JoinError::Lane { lane, times: 0 }),
            }
        }
        Ok(())
    };
    place(head.searched)?;
    for part in parts {
        let same = part.lanes == lanes
            && part.first.stats.configurations == first.stats.configurations
            && serde_json::to_value(&part.first.found).ok() == same_first;
        if !same {
            return Err(JoinError::FirstDiffers);
        }
        place(part.searched)?;
    }
    let mut stats = first.stats.clone();
    let mut seconds = first.stats.seconds;
    let mut notes = Vec::new();
    let mut note = |more: Vec<String>| {
        for n in more {
            if !notes.contains(&n) {
                notes.push(n);
            }
        }
    };
    note(first.inconclusive);
    let mut found = Findings::from_part(first.found, brief.plan, lib);
    for (lane, mut portions) in by_lane.into_iter().enumerate() {
        let portion = match (portions.pop(), portions.len()) {
            (Some(portion), 0) => portion,
            (None, _) => return Err(JoinError::Lane { lane, times: 0 }),
            (Some(_), more) => {
                return Err(JoinError::Lane {
                    lane,
                    times: more + 1,
                })
            }
        };
        stats.add(&portion.stats);
        seconds += portion.stats.seconds;
        note(portion.inconclusive);
        found.merge(Findings::from_part(portion.found, brief.plan, lib));
    }
    stats.seconds = seconds;
    stats.lanes = lanes;
    Ok(found.into_result(stats, notes, &brief))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbolic::components::tests::library;

    /// A reentrancy bug: `send` may call back before the balance goes down.
    const DAO: &str = include_str!("../../examples/dao.holi");

    fn shares_of(lib: &Library, count: usize, first: u64) -> Vec<SharePart> {
        let options = CheckOptions::bounded(3, 2);
        (0..count)
            .map(|index| search(lib, &options, Share { index, count }, first, &mut |_| {}))
            .collect()
    }

    fn shown(result: &CheckResult) -> Vec<String> {
        let texts = result.counterexamples.iter();
        texts
            .map(|c| format!("{} {:?}", c.concrete, c.span))
            .collect()
    }

    #[test]
    fn the_joined_result_is_the_same_for_every_number_of_shards() {
        let (_, lib) = library(DAO);
        let options = CheckOptions::bounded(3, 2);
        let one = join(&lib, &options, shares_of(&lib, 1, 10)).expect("joined");
        assert!(one.stats.lanes > 1, "the search was cut: {:?}", one.stats);
        assert!(!one.counterexamples.is_empty());
        for count in [2, 5] {
            let parts = shares_of(&lib, count, 10);
            let joined = join(&lib, &options, parts).expect("joined");
            assert_eq!(shown(&joined), shown(&one), "{count} shards");
            assert_eq!(joined.failing_traces, one.failing_traces, "{count} shards");
            assert_eq!(joined.stats.configurations, one.stats.configurations);
        }
        // A search its first task completes has no lanes.
        let whole = join(&lib, &options, shares_of(&lib, 2, u64::MAX)).expect("joined");
        assert_eq!(whole.stats.lanes, 0);
        assert_eq!(
            shown(&whole),
            shown(&crate::symbolic::check(&lib, &options))
        );
    }

    #[test]
    fn parts_of_other_searches_or_with_a_lane_missing_do_not_join() {
        let (_, lib) = library(DAO);
        let options = CheckOptions::bounded(3, 2);
        let mut parts = shares_of(&lib, 2, 10);
        let other = shares_of(&lib, 2, 20).remove(1);
        let mut mixed = vec![parts[0].clone(), other];
        assert_eq!(
            join(&lib, &options, mixed.clone()).map(|r| r.verdict),
            Err(JoinError::FirstDiffers)
        );
        mixed.truncate(1);
        assert_eq!(
            join(&lib, &options, mixed).map(|r| r.verdict),
            Err(JoinError::Lane { lane: 1, times: 0 })
        );
        let twice = parts[0].clone();
        parts.push(twice);
        assert_eq!(
            join(&lib, &options, parts).map(|r| r.verdict),
            Err(JoinError::Lane { lane: 0, times: 2 })
        );
    }

    #[test]
    fn every_lane_is_one_shards() {
        for count in 1..=5 {
            for lane in 0..LANES {
                let owners = (0..count)
                    .filter(|&index| Share { index, count }.owns(lane))
                    .count();
                assert_eq!(owners, 1, "lane {lane} of {count} shards");
            }
        }
        assert!(!Share { index: 0, count: 0 }.owns(0));
    }
}
