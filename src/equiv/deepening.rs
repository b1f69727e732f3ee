//! The bounds a deepening comparison tries (`holi equiv` without `--k` and `--l`).
//!
//! Each level grows one bound of the level before, which the search completed, so the
//! bounds of every level include those of the levels before and the last level
//! completed is the answer's. The bound grown is the one whose last growth multiplied
//! the search's configurations least (one never grown first, in the order l, k,
//! unfoldings, list length): the levels' costs multiply, and a difference that needs
//! twelve frames and two calls per context (Hobbit's `invariants-4`) or a hundred calls
//! and one frame (`cross-reentrancy-param`) is out of reach of a schedule that grows
//! every bound alike. A bound whose growth left the number of configurations as it was
//! ended no path there; it waits until the others have made the search eight times
//! larger, and when every bound waits, the deepening past the bounds asked stops. A
//! bound that grew three levels in a row lets the next cheapest grow, so that a cheap
//! bound that finds nothing (a list length) does not hold the others back. A level that
//! takes more than four times the configurations of the levels before is abandoned
//! ([`Deepening::abandon`]): the growth that made it is counted as that costly and
//! another bound grows instead (Pitts' example 3.14 with a fourth call at k 2 takes
//! millions of configurations, and a third frame finds its difference in thousands).
//! The counts are the search's, so the schedule is the same on every run.
//!
//! Every deepening first grows the bounds up to those asked, each stopping there, as
//! without a deadline, so that a deadline never leaves less covered than none would
//! have by then. Past them ([`Deepening::new`] with `past`), k and l grow without end and
//! the unfoldings and the list length where they were not given, until a difference is
//! found or a limit stops the comparison.
//!
//! Past them too, two probes grow beside this main lane, from the bounds asked with one
//! bound held at two: more frames with two calls per context, more calls with two
//! frames. Growing either bound from the bounds asked multiplies what the other bound
//! allows, while a difference may need many of one and few of the other. Each level
//! goes to the lane that has spent the fewest configurations, so while all three grow
//! each takes about a third of the work. A probe's level that completes covers nothing
//! the answer claims (its bounds are not above the main lane's); a difference it finds
//! is one all the same.

use std::fmt;

/// The bounds of a comparison: k and l as in `holi check`, except that k counts only
/// the frames of the client's calls, and the nested applications each library makes
/// itself, its unfoldings of internal functions and recursion
/// ([`crate::symbolic::config::Config::unfold`]).
/// Where a list crosses the interface, the most elements of the lists the client plays
/// ([`crate::symbolic::config::Config::lists`]); `None` in libraries without lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EquivBounds {
    pub k: u32,
    pub l: u32,
    pub unfold: u32,
    pub lists: Option<u32>,
}

impl fmt::Display for EquivBounds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "k = {}, l = {}, unfold = {}",
            self.k, self.l, self.unfold
        )?;
        match self.lists {
            Some(n) => write!(f, ", list length = {n}"),
            None => Ok(()),
        }
    }
}

/// One of the bounds a level can grow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bound {
    L,
    K,
    Unfold,
    Lists,
}

/// The least cap on a level's configurations ([`Deepening::cap`]).
const LEAST_CAP: u64 = 50_000;

/// The most levels in a row one bound grows while another could.
const RUN: u32 = 3;

/// The bounds in the order they are tried.
const BOUNDS: [Bound; 4] = [Bound::L, Bound::K, Bound::Unfold, Bound::Lists];

/// Which bounds may grow past those asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Past {
    pub unfold: bool,
    pub lists: bool,
}

/// The levels of a deepening comparison: the main lane, and past the bounds asked, the
/// probes, each level's lane chosen as the levels complete.
#[derive(Debug)]
pub struct Deepening {
    /// The lanes still growing: the main lane first, while it grows.
    lanes: Vec<Lane>,
    /// The configurations each lane's levels took, abandoned ones included.
    spent: Vec<u64>,
    /// Which of `lanes` the level being searched belongs to.
    current: usize,
    /// Whether the main lane is still among `lanes`.
    main: bool,
    /// How far the probes may grow, once the main lane is past the bounds asked.
    past: Option<Past>,
    /// Whether the probes were started.
    probes_started: bool,
}

impl Deepening {
    /// From k 1, l 1 (unfoldings and list length 2, or less if asked) up to `asked`,
    /// or with `past` beyond it, with probes.
    pub fn new(asked: EquivBounds, past: Option<Past>) -> Deepening {
        Deepening {
            lanes: vec![Lane::new(asked, past)],
            spent: vec![0],
            current: 0,
            main: true,
            past,
            probes_started: false,
        }
    }

    /// The first level.
    pub fn first(&self) -> EquivBounds {
        self.lanes[0].at
    }

    /// Whether the level being searched is a probe's: it covers nothing the answer
    /// may claim, and a difference it finds is one all the same.
    pub fn probing(&self) -> bool {
        !(self.main && self.current == 0)
    }

    /// The most configurations the level being searched may take before it is
    /// abandoned ([`Deepening::abandon`]): four times those of its lane's levels
    /// completed (at least `LEAST_CAP`), doubled each time every bound was abandoned.
    pub fn cap(&self) -> u64 {
        self.lanes[self.current].cap()
    }

    /// The level being searched reached the cap: its lane grows another bound from
    /// the level before, or, when every bound was abandoned there, the cheapest again
    /// under a doubled cap; the next level is of the lane that spent least.
    pub fn abandon(&mut self, configurations: u64) -> Option<EquivBounds> {
        self.spend(configurations);
        let next = self.lanes[self.current].abandon();
        self.after(next)
    }

    /// The level being searched completed with `configurations`; the next level is of
    /// the lane that spent least. `None` when every lane is at its most.
    pub fn next(&mut self, configurations: u64) -> Option<EquivBounds> {
        self.spend(configurations);
        let main = !self.probing();
        let lane = &mut self.lanes[self.current];
        let next = lane.next(configurations);
        // Once the main lane completed the bounds asked, the probes start beside it.
        if main && !self.probes_started && lane.completed_asked() {
            if let Some(past) = self.past {
                self.probes_started = true;
                let asked = lane.asked;
                for probe in probes(asked, past) {
                    self.lanes.push(probe);
                    self.spent.push(0);
                }
            }
        }
        self.after(next)
    }

    /// The probe being searched can go no further (its level got stuck or was
    /// inconclusive for a reason other than a limit): the next level is of another lane.
    pub fn drop_probe(&mut self) -> Option<EquivBounds> {
        self.after(None)
    }

    fn spend(&mut self, configurations: u64) {
        self.spent[self.current] = self.spent[self.current].saturating_add(configurations);
    }

    /// The next level: `next` of the current lane, or without it (the lane is at
    /// its most) another lane's; of the lanes, the one that spent least goes on.
    fn after(&mut self, next: Option<EquivBounds>) -> Option<EquivBounds> {
        if next.is_none() {
            if self.current == 0 && self.main {
                self.main = false;
            }
            self.lanes.remove(self.current);
            self.spent.remove(self.current);
        }
        let (current, _) = self
            .spent
            .iter()
            .enumerate()
            .min_by_key(|&(i, &spent)| (spent, i))?;
        self.current = current;
        Some(self.lanes[current].at)
    }
}

/// The probes past `asked`: a lane that grows the frames with two calls per context,
/// and one that grows the calls with two frames. A difference needs some frames and
/// some calls; from the bounds asked up, growing one bound multiplies configurations
/// that grow with the other, and `invariants-4` (twelve frames, two calls) or
/// `yy_17-feb-23_6_ineq` (five calls, two frames) are out of reach of the main lane
/// within a minute, and found within ten seconds by a probe.
fn probes(asked: EquivBounds, past: Past) -> Vec<Lane> {
    const LOW: u32 = 2;
    let most = beyond(asked, past);
    let mut lanes = Vec::new();
    if asked.l > LOW {
        let start = EquivBounds {
            k: asked.k.saturating_add(1),
            l: LOW,
            ..asked
        };
        lanes.push(Lane::probe(start, EquivBounds { l: LOW, ..most }));
    }
    if asked.k > LOW {
        let start = EquivBounds {
            k: LOW,
            l: asked.l.saturating_add(1),
            ..asked
        };
        lanes.push(Lane::probe(start, EquivBounds { k: LOW, ..most }));
    }
    lanes
}

/// The levels of one lane of a deepening, chosen as the levels complete.
#[derive(Clone, Debug)]
struct Lane {
    /// The level being searched.
    at: EquivBounds,
    /// How far each bound may grow.
    most: EquivBounds,
    /// The bounds asked, which every deepening covers unless a limit stops it.
    asked: EquivBounds,
    /// The configurations of the last level completed.
    cost: Option<u64>,
    /// The level last completed, from which the level being searched grew.
    base: EquivBounds,
    /// The configurations of all levels completed.
    total: u64,
    /// The bounds whose growth from `base` was abandoned at the cap.
    abandoned: Vec<Bound>,
    /// How many times the cap was doubled since `base` completed.
    doubled: u32,
    /// The bound the level being searched grew.
    grown: Option<Bound>,
    /// How many levels in a row grew it.
    run: u32,
    /// By how much the last growth of each bound multiplied the configurations.
    factors: [Option<f64>; 4],
    /// For each bound whose last growth left the configurations as they were, their
    /// number then.
    idle: [Option<u64>; 4],
}

impl Lane {
    /// From k 1, l 1 (unfoldings and list length 2, or less if asked) up to `asked`,
    /// or with `past` beyond it.
    fn new(asked: EquivBounds, past: Option<Past>) -> Lane {
        let most = match past {
            None => asked,
            Some(p) => beyond(asked, p),
        };
        let at = if asked.k == 0 || asked.l == 0 {
            asked
        } else {
            EquivBounds {
                k: 1,
                l: 1,
                unfold: asked.unfold.min(2),
                lists: asked.lists.map(|n| n.min(2)),
            }
        };
        Lane::from(at, asked, most)
    }

    /// A probe ([`Deepening`]): from `start`, which is also what it is asked, up to
    /// `most`.
    fn probe(start: EquivBounds, most: EquivBounds) -> Lane {
        Lane::from(start, start, most)
    }

    fn from(at: EquivBounds, asked: EquivBounds, most: EquivBounds) -> Lane {
        Lane {
            at,
            most,
            asked,
            cost: None,
            base: at,
            total: 0,
            abandoned: Vec::new(),
            doubled: 0,
            grown: None,
            run: 0,
            factors: [None; 4],
            idle: [None; 4],
        }
    }

    /// Whether the level being searched is at least the bounds asked in every bound.
    fn past_asked(&self) -> bool {
        at_least(&self.at, &self.asked)
    }

    /// Whether the level last completed is at least the bounds asked in every bound.
    fn completed_asked(&self) -> bool {
        self.cost.is_some() && at_least(&self.base, &self.asked)
    }

    /// The most configurations the level being searched may take before it is
    /// abandoned ([`Lane::abandon`]): four times those of the levels completed
    /// (at least `LEAST_CAP`), doubled each time every bound was abandoned.
    fn cap(&self) -> u64 {
        self.total
            .saturating_mul(4)
            .max(LEAST_CAP)
            .saturating_mul(1 << self.doubled.min(40))
    }

    /// The level being searched reached the cap: the next level grows another bound
    /// from the same level, or, when every bound was abandoned there, the cheapest
    /// again under a doubled cap (a first level, which grew none, is tried again under
    /// a doubled cap). The growth abandoned counts as at least as costly as the cap
    /// says.
    fn abandon(&mut self) -> Option<EquivBounds> {
        // A lane's first level grew no bound: it is tried again under a doubled cap.
        let Some(grown) = self.grown else {
            self.doubled += 1;
            return Some(self.at);
        };
        let i = index(grown);
        let at_least = self.cap() as f64 / self.cost.unwrap_or(1).max(1) as f64;
        self.factors[i] = Some(self.factors[i].unwrap_or(0.0).max(at_least));
        self.abandoned.push(grown);
        self.at = self.base;
        self.run = 0;
        if let Some(next) = self.choose() {
            return Some(next);
        }
        self.abandoned.clear();
        self.doubled += 1;
        self.choose()
    }

    /// The level after the one being searched, which completed with `configurations`;
    /// `None` when every bound is at its most.
    fn next(&mut self, configurations: u64) -> Option<EquivBounds> {
        if self.at.k == 0 || self.at.l == 0 {
            return None;
        }
        self.base = self.at;
        self.total = self.total.saturating_add(configurations);
        self.abandoned.clear();
        self.doubled = 0;
        if let (Some(bound), Some(cost)) = (self.grown, self.cost) {
            let i = index(bound);
            self.factors[i] = Some(configurations as f64 / cost.max(1) as f64);
            if configurations == cost {
                self.idle[i] = Some(cost);
            }
        }
        self.cost = Some(configurations);
        for idle in &mut self.idle {
            if idle.is_some_and(|then| configurations >= then.saturating_mul(8)) {
                *idle = None;
            }
        }
        self.choose()
    }

    /// Grows the bound chosen from the level last completed.
    fn choose(&mut self) -> Option<EquivBounds> {
        // Up to the bounds asked first, as without a deadline, so that a deadline never
        // leaves less covered than none would have by then; then past them.
        let past_asked = self.past_asked();
        let ceiling = if past_asked { self.most } else { self.asked };
        let growable: Vec<Bound> = BOUNDS
            .into_iter()
            .filter(|&b| value(&self.at, b) < value(&ceiling, b) && !self.abandoned.contains(&b))
            .collect();
        let busy: Vec<Bound> = growable
            .iter()
            .copied()
            .filter(|&b| self.idle[index(b)].is_none())
            .collect();
        // Past the bounds asked, every bound grew without changing the search: larger
        // ones are not searched.
        if busy.is_empty() && past_asked && self.most != self.asked {
            return None;
        }
        let mut choices = if busy.is_empty() { growable } else { busy };
        // A bound that grew three levels in a row lets another grow, so that a cheap
        // one that finds nothing does not hold the others back.
        if self.run >= RUN && choices.len() > 1 {
            choices.retain(|&b| Some(b) != self.grown);
        }
        let bound = choices.into_iter().min_by(|&a, &b| {
            let factor = |x: Bound| self.factors[index(x)].unwrap_or(0.0);
            factor(a)
                .total_cmp(&factor(b))
                .then(index(a).cmp(&index(b)))
        })?;
        let now = value(&self.at, bound);
        let step = match bound {
            Bound::L | Bound::Unfold => (now / 4).max(1),
            Bound::K | Bound::Lists => 1,
        };
        let grown = now.saturating_add(step).min(value(&ceiling, bound));
        match bound {
            Bound::L => self.at.l = grown,
            Bound::K => self.at.k = grown,
            Bound::Unfold => self.at.unfold = grown,
            Bound::Lists => self.at.lists = Some(grown),
        }
        self.run = if self.grown == Some(bound) {
            self.run + 1
        } else {
            1
        };
        self.grown = Some(bound);
        Some(self.at)
    }
}

/// The most each bound may grow past `asked`: k and l without end, the unfoldings
/// and list length where `past` lets them.
fn beyond(asked: EquivBounds, past: Past) -> EquivBounds {
    let open = u32::MAX;
    EquivBounds {
        k: open,
        l: open,
        unfold: if past.unfold { open } else { asked.unfold },
        lists: asked.lists.map(|n| if past.lists { open } else { n }),
    }
}

/// Whether `a` is at least `b` in every bound.
fn at_least(a: &EquivBounds, b: &EquivBounds) -> bool {
    BOUNDS.into_iter().all(|x| value(a, x) >= value(b, x))
}

fn index(bound: Bound) -> usize {
    match bound {
        Bound::L => 0,
        Bound::K => 1,
        Bound::Unfold => 2,
        Bound::Lists => 3,
    }
}

/// A bound's value; a list length where no list crosses the interface never grows.
fn value(bounds: &EquivBounds, bound: Bound) -> u32 {
    match bound {
        Bound::L => bounds.l,
        Bound::K => bounds.k,
        Bound::Unfold => bounds.unfold,
        Bound::Lists => bounds.lists.unwrap_or(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(k: u32, l: u32, unfold: u32) -> EquivBounds {
        EquivBounds {
            k,
            l,
            unfold,
            lists: None,
        }
    }

    /// The levels a lane tries when level `(k, l, unfold)` costs `cost` of it.
    fn levels(mut d: Lane, cost: impl Fn(EquivBounds) -> u64, most: usize) -> Vec<EquivBounds> {
        let mut out = vec![d.at];
        while out.len() < most {
            let Some(next) = d.next(cost(d.at)) else {
                break;
            };
            out.push(next);
        }
        out
    }

    /// The levels a deepening tries, each with whether it is a probe's, when a level
    /// costs `cost` and those that cost `cap` or more are abandoned at it.
    fn scheduled(
        mut d: Deepening,
        cost: impl Fn(EquivBounds) -> u64,
        most: usize,
    ) -> Vec<(EquivBounds, bool)> {
        let mut at = d.first();
        let mut out = vec![(at, false)];
        while out.len() < most {
            let next = if cost(at) >= d.cap() {
                d.abandon(d.cap())
            } else {
                d.next(cost(at))
            };
            let Some(next) = next else { break };
            at = next;
            out.push((at, d.probing()));
        }
        out
    }

    #[test]
    fn up_to_the_bounds_asked_every_bound_reaches_them_and_the_last_level_is_theirs() {
        let asked = b(3, 2, 8);
        let tried = levels(Lane::new(asked, None), |x| u64::from(x.k * x.l), 100);
        assert_eq!(tried.first(), Some(&b(1, 1, 2)));
        assert_eq!(tried.last(), Some(&asked));
        for pair in tried.windows(2) {
            let (a, z) = (pair[0], pair[1]);
            assert!(
                z.k >= a.k && z.l >= a.l && z.unfold >= a.unfold,
                "{tried:?}"
            );
        }
    }

    #[test]
    fn the_cheapest_bound_grows_and_one_that_changes_nothing_waits() {
        // k multiplies the cost by ten per frame, l by two per call; the unfoldings
        // change nothing.
        let cost = |x: EquivBounds| 10u64.pow(x.k) * 2u64.pow(x.l);
        let past = Some(Past {
            unfold: true,
            lists: true,
        });
        let tried = levels(Lane::new(b(4, 4, 4), past), cost, 20);
        let last = tried.last().copied().unwrap_or(b(0, 0, 0));
        // Up to the bounds asked first; past them, l grows and k stays.
        assert!(tried.contains(&b(4, 4, 4)), "{tried:?}");
        assert!(last.l >= 15 && last.k == 4, "{tried:?}");
        // The unfoldings are tried again only once the search grew, never twice running.
        let unfold = |w: &[EquivBounds]| w[1].unfold > w[0].unfold;
        assert!(
            !tried.windows(3).any(|w| unfold(&w[..2]) && unfold(&w[1..])),
            "{tried:?}"
        );
    }

    #[test]
    fn past_the_bounds_asked_a_search_that_no_growth_changes_stops_but_not_before_them() {
        let past = Some(Past {
            unfold: true,
            lists: true,
        });
        let tried = levels(Lane::new(b(4, 4, 4), past), |_| 7, 100);
        let last = tried.last().copied().unwrap_or(b(0, 0, 0));
        assert!(tried.len() < 100, "{tried:?}");
        assert!(last.k >= 4 && last.l >= 4 && last.unfold >= 4, "{tried:?}");
    }

    #[test]
    fn a_level_past_its_cap_is_abandoned_for_another_bound_from_the_level_before() {
        // Past two calls per context, the search explodes; frames cost little.
        let cost = |x: EquivBounds| {
            if x.l <= 2 {
                100 * u64::from(x.k)
            } else {
                1 << 40
            }
        };
        let past = Some(Past {
            unfold: false,
            lists: false,
        });
        let mut d = Lane::new(b(2, 2, 2), past);
        let mut at = d.at;
        let mut completed = vec![at];
        for _ in 0..60 {
            let next = if cost(at) >= d.cap() {
                d.abandon()
            } else {
                completed.push(at);
                d.next(cost(at))
            };
            let Some(next) = next else { break };
            at = next;
        }
        let last = completed.last().copied().unwrap_or(b(0, 0, 0));
        assert!(completed.iter().all(|x| x.l <= 2), "{completed:?}");
        assert!(last.k >= 8, "{completed:?}");
    }

    #[test]
    fn past_the_bounds_asked_probes_with_few_calls_or_few_frames_find_what_the_main_lane_cannot() {
        // With more than two frames and two calls, each frame or call multiplies the
        // configurations by ten; with two of either, each adds ten.
        let cost = |x: EquivBounds| {
            if x.k <= 2 || x.l <= 2 {
                u64::from(10 * (x.k + x.l))
            } else {
                10u64.saturating_pow(x.k + x.l - 4)
            }
        };
        let past = Some(Past {
            unfold: false,
            lists: false,
        });
        let tried = scheduled(Deepening::new(b(4, 4, 4), past), cost, 200);
        let asked = tried.iter().position(|&(x, _)| x == b(4, 4, 4));
        let probe = tried.iter().position(|&(_, probing)| probing);
        // The bounds asked are covered by the main lane before any probe runs.
        assert!(asked.is_some() && asked < probe, "{tried:?}");
        assert!(
            tried[..=asked.unwrap_or(0)]
                .iter()
                .all(|&(x, p)| !p && x.k <= 4 && x.l <= 4),
            "{tried:?}"
        );
        // Twelve frames with two calls, and five calls with two frames, are reached.
        assert!(tried.contains(&(b(12, 2, 4), true)), "{tried:?}");
        assert!(tried.contains(&(b(2, 5, 4), true)), "{tried:?}");
        // Probes keep their low bound.
        assert!(
            tried.iter().all(|&(x, p)| !p || x.k == 2 || x.l == 2),
            "{tried:?}"
        );
    }

    #[test]
    fn without_a_deadline_there_are_no_probes() {
        let tried = scheduled(
            Deepening::new(b(4, 4, 4), None),
            |x| u64::from(x.k * x.l),
            100,
        );
        assert!(tried.iter().all(|&(_, p)| !p), "{tried:?}");
        assert_eq!(tried.last().map(|&(x, _)| x), Some(b(4, 4, 4)));
    }

    #[test]
    fn a_bound_of_zero_is_the_only_level() {
        let mut d = Deepening::new(b(0, 2, 4), None);
        assert_eq!(d.first(), b(0, 2, 4));
        assert_eq!(d.next(5), None);
    }
}
