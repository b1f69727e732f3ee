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

/// The levels of a deepening comparison, chosen as the levels complete.
#[derive(Debug)]
pub struct Deepening {
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

impl Deepening {
    /// From k 1, l 1 (unfoldings and list length 2, or less if asked) up to `asked`,
    /// or with `past` beyond it.
    pub fn new(asked: EquivBounds, past: Option<Past>) -> Deepening {
        let open = u32::MAX;
        let most = match past {
            None => asked,
            Some(p) => EquivBounds {
                k: open,
                l: open,
                unfold: if p.unfold { open } else { asked.unfold },
                lists: asked.lists.map(|n| if p.lists { open } else { n }),
            },
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
        Deepening {
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

    /// The first level.
    pub fn first(&self) -> EquivBounds {
        self.at
    }

    /// The most configurations the level being searched may take before it is
    /// abandoned ([`Deepening::abandon`]): four times those of the levels completed
    /// (at least `LEAST_CAP`), doubled each time every bound was abandoned.
    pub fn cap(&self) -> u64 {
        self.total
            .saturating_mul(4)
            .max(LEAST_CAP)
            .saturating_mul(1 << self.doubled.min(40))
    }

    /// The level being searched reached the cap: the next level grows another bound
    /// from the same level, or, when every bound was abandoned there, the cheapest
    /// again under a doubled cap. The growth abandoned counts as at least as costly
    /// as the cap says.
    pub fn abandon(&mut self) -> Option<EquivBounds> {
        let grown = self.grown?;
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
    pub fn next(&mut self, configurations: u64) -> Option<EquivBounds> {
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
        let past_asked = BOUNDS
            .into_iter()
            .all(|b| value(&self.at, b) >= value(&self.asked, b));
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
        if busy.is_empty() && past_asked && self.most.k == u32::MAX {
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

    /// The levels a deepening tries when level `(k, l, unfold)` costs `cost` of it.
    fn levels(
        mut d: Deepening,
        cost: impl Fn(EquivBounds) -> u64,
        most: usize,
    ) -> Vec<EquivBounds> {
        let mut out = vec![d.first()];
        while out.len() < most {
            let Some(next) = d.next(cost(*out.last().unwrap_or(&d.first()))) else {
                break;
            };
            out.push(next);
        }
        out
    }

    #[test]
    fn up_to_the_bounds_asked_every_bound_reaches_them_and_the_last_level_is_theirs() {
        let asked = b(3, 2, 8);
        let tried = levels(Deepening::new(asked, None), |x| u64::from(x.k * x.l), 100);
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
        let tried = levels(Deepening::new(b(4, 4, 4), past), cost, 20);
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
        let tried = levels(Deepening::new(b(4, 4, 4), past), |_| 7, 100);
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
        let mut d = Deepening::new(b(2, 2, 2), past);
        let mut at = d.first();
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
    fn a_bound_of_zero_is_the_only_level() {
        let mut d = Deepening::new(b(0, 2, 4), None);
        assert_eq!(d.first(), b(0, 2, 4));
        assert_eq!(d.next(5), None);
    }
}
