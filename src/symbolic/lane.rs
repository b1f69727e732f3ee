//! The share of work one side of a [`super::race`] may do, counted in a unit that
//! does not depend on timing, so that the race's decision (and so the report) is the
//! same for any number of threads.
//!
//! The unit is about a microsecond of work, as [`super::solver::work`] estimates it
//! from counts and sizes: a configuration's by its path condition, a solver
//! operation's by its kind and size.
//!
//! Lanes that race may be *paced* together on a [`Field`]: a lane waits while its
//! level (its cost under its [`Handicap`] in the race) is too far ahead of the lowest level
//! of the others still running, so that no side runs further than the race can need.
//! That bounds the memory and the processor time of the sides that lose. Waiting only
//! pays when the searches outnumber the threads the check may use: then the core a
//! leader leaves goes to a side behind. Otherwise it would stand idle, so a leader runs
//! on, up to twice the lowest level or [`PACE_SLACK`] above it, whichever is further
//! (which still bounds a loser's memory by the race's).

use std::sync::atomic::{AtomicBool, AtomicIsize, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;

/// How far a lane may run ahead of the lowest of the others before it waits, while the
/// searches outnumber the threads.
pub const PACE_SLACK: u64 = 16384;

/// A search running on a paced lane, counted on its field while it lives (a
/// [`super::budget::Budget`] holds one).
#[derive(Debug)]
pub struct Working(Option<Arc<Field>>);

impl Drop for Working {
    fn drop(&mut self) {
        if let Some(field) = &self.0 {
            field.busy.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

/// One side's share: every search given it counts its cost here and stops (to be
/// resumed or dropped) once the cost reaches the limit, which the race may lower or
/// raise meanwhile.
#[derive(Debug)]
pub struct Lane {
    spent: AtomicU64,
    limit: AtomicU64,
    capped: AtomicBool,
    done: AtomicBool,
    /// Whether its search completed (set before `done`).
    complete: AtomicBool,
    /// Semantic subsumption's operations so far: a search that made none is the same
    /// search as without it.
    ops: AtomicU64,
    pace: OnceLock<Pace>,
}

#[derive(Debug)]
struct Pace {
    field: Arc<Field>,
    /// This lane's place on the field.
    me: usize,
    /// Waiting ends once this is set.
    stop: Arc<AtomicBool>,
}

/// How a side's cost counts in a race: its level is its cost `halves` / 2 times over
/// (rounded down), plus `add`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Handicap {
    pub add: u64,
    /// At least 1.
    pub halves: u64,
}

impl Handicap {
    pub const NONE: Handicap = Handicap { add: 0, halves: 2 };

    /// Only its addition: the cost counted once.
    pub const fn adding(add: u64) -> Handicap {
        Handicap { add, halves: 2 }
    }

    pub fn level(self, cost: u64) -> u64 {
        let scaled = u128::from(cost) * u128::from(self.halves) / 2;
        u64::try_from(scaled)
            .unwrap_or(u64::MAX)
            .saturating_add(self.add)
    }

    /// The most a side may spend for its level to be at most `level`.
    pub fn cost_at(self, level: u64) -> u64 {
        self.most_within(level.saturating_sub(self.add))
    }

    /// The most a side may spend for its level to stay below `level` (0 if it cannot).
    pub fn cost_below(self, level: u64) -> u64 {
        level
            .checked_sub(self.add)
            .and_then(|l| l.checked_sub(1))
            .map_or(0, |l| self.most_within(l))
    }

    /// The most cost whose scaled part is at most `scaled`: ⌊c·h/2⌋ ≤ s exactly
    /// when c·h ≤ 2s + 1.
    fn most_within(self, scaled: u64) -> u64 {
        let most = (2 * u128::from(scaled) + 1) / u128::from(self.halves.max(1));
        u64::try_from(most).unwrap_or(u64::MAX)
    }
}

/// Lanes paced together, each with its handicap.
#[derive(Debug)]
pub struct Field {
    places: Vec<(Handicap, OnceLock<Weak<Lane>>)>,
    /// The threads the check may use ([`super::Run::jobs`]).
    cores: usize,
    /// The searches on the field's lanes that are running, not waiting ([`Working`]);
    /// signed, so that a caller of [`Lane::admits`] not counted cannot wrap it.
    busy: AtomicIsize,
}

impl Field {
    /// A field with one place per handicap, for searches sharing `cores` threads.
    pub fn new(handicaps: &[Handicap], cores: usize) -> Arc<Field> {
        Arc::new(Field {
            places: handicaps.iter().map(|&h| (h, OnceLock::new())).collect(),
            cores: cores.max(1),
            busy: AtomicIsize::new(0),
        })
    }

    /// Whether the searches running (the asking one included) outnumber the threads.
    fn crowded(&self) -> bool {
        self.busy.load(Ordering::SeqCst) > isize::try_from(self.cores).unwrap_or(isize::MAX)
    }

    /// The lowest level among the lanes other than `me` that have started and are
    /// not done; `None` when there is none.
    fn lowest_other(&self, me: usize) -> Option<u64> {
        self.places
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != me)
            .filter_map(|(_, (handicap, lane))| {
                let lane = lane.get()?.upgrade()?;
                (!lane.done.load(Ordering::SeqCst)).then(|| handicap.level(lane.spent()))
            })
            .min()
    }
}

impl Lane {
    pub fn new(limit: u64) -> Lane {
        Lane {
            spent: AtomicU64::new(0),
            limit: AtomicU64::new(limit),
            capped: AtomicBool::new(false),
            done: AtomicBool::new(false),
            complete: AtomicBool::new(false),
            ops: AtomicU64::new(0),
            pace: OnceLock::new(),
        }
    }

    /// A lane at place `me` of `field`, waiting while its level is [`PACE_SLACK`]
    /// or more above the lowest of the others (when the field's searches outnumber its
    /// threads; else up to twice the lowest, or [`PACE_SLACK`] above it if that is
    /// further), until they are done or `stop` is set.
    pub fn paced(field: &Arc<Field>, me: usize, stop: &Arc<AtomicBool>) -> Arc<Lane> {
        let lane = Arc::new(Lane::new(u64::MAX));
        if let Some((_, place)) = field.places.get(me) {
            let _ = place.set(Arc::downgrade(&lane));
            let pace = Pace {
                field: Arc::clone(field),
                me,
                stop: Arc::clone(stop),
            };
            let _ = lane.pace.set(pace);
        }
        lane
    }

    /// Counts a search as running on this lane's field until the result is dropped.
    pub fn working(&self) -> Working {
        let field = self.pace.get().map(|pace| Arc::clone(&pace.field));
        if let Some(field) = &field {
            field.busy.fetch_add(1, Ordering::SeqCst);
        }
        Working(field)
    }

    /// The cost spent on this lane so far.
    pub fn spent(&self) -> u64 {
        self.spent.load(Ordering::SeqCst)
    }

    /// Semantic subsumption's operations counted on this lane so far.
    pub fn ops(&self) -> u64 {
        self.ops.load(Ordering::SeqCst)
    }

    fn limit(&self) -> u64 {
        self.limit.load(Ordering::SeqCst)
    }

    pub fn set_limit(&self, limit: u64) {
        self.limit.store(limit, Ordering::SeqCst);
    }

    /// Whether a search on this lane ever stopped at its limit.
    pub fn capped(&self) -> bool {
        self.capped.load(Ordering::SeqCst)
    }

    /// Says that no search on this lane will explore more.
    pub fn set_done(&self) {
        self.done.store(true, Ordering::SeqCst);
    }

    pub fn is_done(&self) -> bool {
        self.done.load(Ordering::SeqCst)
    }

    /// Says that the search on this lane completed, before it is marked done.
    pub fn set_complete(&self) {
        self.complete.store(true, Ordering::SeqCst);
    }

    pub fn is_complete(&self) -> bool {
        self.complete.load(Ordering::SeqCst)
    }

    /// Whether one more configuration may be explored (after waiting for the lanes
    /// this one is paced with, if need be); if not, the lane is capped. The search
    /// asking holds a [`Lane::working`].
    pub fn admits(&self) -> bool {
        loop {
            let spent = self.spent();
            if spent >= self.limit() {
                self.capped.store(true, Ordering::SeqCst);
                return false;
            }
            let Some(pace) = self.pace.get() else {
                return true;
            };
            if !self.ahead(pace, spent) || pace.stop.load(Ordering::Relaxed) {
                return true;
            }
            let field = &pace.field;
            // Not counted while waiting: its core is free for another search.
            field.busy.fetch_sub(1, Ordering::SeqCst);
            std::thread::sleep(Duration::from_micros(500));
            field.busy.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// Whether, having spent `spent`, the lane is far enough ahead of the lowest of
    /// the others on its field to wait.
    fn ahead(&self, pace: &Pace, spent: u64) -> bool {
        let field = &pace.field;
        let handicap = field
            .places
            .get(pace.me)
            .map_or(Handicap::NONE, |(h, _)| *h);
        let level = handicap.level(spent);
        field.lowest_other(pace.me).is_some_and(|lowest| {
            let lead = if field.crowded() {
                PACE_SLACK
            } else {
                PACE_SLACK.max(lowest)
            };
            level >= lowest.saturating_add(lead)
        })
    }

    /// Charges `work`.
    pub fn charge(&self, work: u64) {
        self.spent.fetch_add(work, Ordering::SeqCst);
    }

    /// Gives back `work` charged by a search whose work will be done again.
    pub fn refund(&self, work: u64) {
        self.spent.fetch_sub(work, Ordering::SeqCst);
    }

    /// Counts one operation of semantic subsumption (its work is charged apart).
    pub fn count_op(&self) {
        self.ops.fetch_add(1, Ordering::SeqCst);
    }
}

/// Marks a lane done when dropped, however its searches ended.
pub struct Done<'a>(pub &'a Lane);

impl Drop for Done<'_> {
    fn drop(&mut self) {
        self.0.set_done();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lane_is_capped_at_its_limit_in_cost() {
        let lane = Lane::new(100);
        lane.count_op();
        lane.charge(98);
        assert!(lane.admits());
        lane.charge(2);
        assert!(!lane.admits());
        assert!(lane.capped());
        assert_eq!((lane.spent(), lane.ops()), (100, 1));
    }

    #[test]
    fn a_handicap_shifts_the_cost() {
        let h = Handicap::adding(10);
        assert_eq!(h.level(5), 15);
        assert_eq!((h.cost_at(15), h.cost_at(9)), (5, 0));
        assert_eq!(
            (h.cost_below(15), h.cost_below(16), h.cost_below(10)),
            (4, 5, 0)
        );
    }

    #[test]
    fn a_handicap_scales_then_shifts_the_cost() {
        let h = Handicap { add: 10, halves: 3 };
        assert_eq!(
            (h.level(0), h.level(1), h.level(2), h.level(5)),
            (10, 11, 13, 17)
        );
        assert_eq!((h.cost_at(13), h.cost_at(14), h.cost_at(9)), (2, 3, 0));
        assert_eq!(
            (h.cost_below(13), h.cost_below(14), h.cost_below(10)),
            (1, 2, 0)
        );
        for halves in 1..6 {
            let h = Handicap { add: 10, halves };
            for level in 10..60 {
                let (at, below) = (h.cost_at(level), h.cost_below(level));
                assert!(
                    h.level(at) <= level && h.level(at + 1) > level,
                    "{h:?} {level}"
                );
                assert!(level == 10 || h.level(below) < level, "{h:?} {level}");
                assert!(h.level(below + 1) >= level, "{h:?} {level}");
            }
        }
        assert_eq!(h.level(u64::MAX), u64::MAX);
    }

    #[test]
    fn a_paced_lane_waits_for_the_lowest_running_other_by_level() {
        let far = Handicap::adding(10 * PACE_SLACK);
        let field = Field::new(&[Handicap::NONE, Handicap::NONE, far], 1);
        let stop = Arc::new(AtomicBool::new(false));
        let a = Lane::paced(&field, 0, &stop);
        let b = Lane::paced(&field, 1, &stop);
        let c = Lane::paced(&field, 2, &stop);
        a.charge(PACE_SLACK);
        // `a` is PACE_SLACK above `b`: it would wait; `b` and `c` (handicapped) would not.
        assert_eq!(field.lowest_other(0), Some(0));
        assert!(b.admits());
        // Once `b` is done, `a` is paced by `c` alone, whose level is far above.
        b.set_done();
        assert!(a.admits());
        // `c` waits for `a` until `a` comes within PACE_SLACK of its handicap; stopped,
        // it does not wait.
        assert_eq!(field.lowest_other(2), Some(PACE_SLACK));
        stop.store(true, Ordering::Relaxed);
        assert!(c.admits());
    }

    #[test]
    fn a_lane_leads_up_to_twice_the_lowest_while_the_cores_suffice() {
        let field = Field::new(&[Handicap::NONE; 3], 2);
        let stop = Arc::new(AtomicBool::new(false));
        let lanes = [0, 1, 2].map(|me| Lane::paced(&field, me, &stop));
        let [a, b, c] = &lanes;
        let ahead = |lane: &Lane| lane.ahead(lane.pace.get().unwrap(), lane.spent());
        let (_a, _b) = (a.working(), b.working());
        b.charge(4 * PACE_SLACK);
        c.charge(4 * PACE_SLACK);
        a.charge(8 * PACE_SLACK - 1);
        // Two searches on two cores: waiting would leave a core idle.
        assert!(!ahead(a));
        a.charge(1);
        assert!(ahead(a));
        a.refund(3 * PACE_SLACK);
        assert!(!ahead(a));
        // A third search running: the core `a` leaves goes to another, so it waits
        // PACE_SLACK ahead.
        let third = c.working();
        assert!(ahead(a));
        drop(third);
        assert!(!ahead(a));
    }
}
