//! The whole search cut into tasks that run on several threads
//! ([`Run::jobs`](super::options::Run::jobs)), with a report that does not depend on how many.
//!
//! The first task is the search from the start, up to [`TaskSizes::first`]
//! configurations: a search that fits is the one-thread search, unchanged. A task that
//! reaches its cap leaves its worklist behind, which is cut into up to `PIECES` tasks
//! of consecutive entries (next first), each of up to [`TaskSizes::task`] configurations,
//! appended to the queue when the task is committed. Tasks are committed in queue
//! order, and task `i` sees what tasks `0 ..= i − WINDOW` committed — the memo's
//! entries by key and regions by shape ([`memo::Shared`]) and the shortest length
//! found per failure site — and nothing else. So each task is a function of its configurations and that view,
//! whichever thread runs it and whenever: the queue, every task's findings and the
//! report are the same for every number of threads. Up to [`WINDOW`] tasks run at once;
//! a task runs in a Z3 context of its own, since a model (the concrete values of a
//! trace) may depend on what a context was asked before.
//!
//! Why every failure site keeps its minimal length. Each task is an exact search of its
//! configurations given its view ([`memo`]: any subset of the entries and regions
//! prunes soundly; an entry or region comes with its task's failures, which the view
//! holds whenever it holds the entry; a shared region is projected afresh in the
//! task's own context; branch and bound cuts at lengths found, which only fall as
//! tasks commit, as within one search). The tasks together explore everything the
//! worklist of a stopped task held; the markers of the opponent configurations still
//! open there are dropped, which leaves their entries out of the memo (fewer entries
//! prune less, never wrongly).
//! The findings are merged per site, shortest first and ties by text
//! ([`Findings::merge`]), which does not depend on the order of merging.
//!
//! Across machines ([`super::shares`]) the first task's worklist is cut into lanes
//! instead ([`Parallel::first_of_lanes`]), each then searched by tasks of its own
//! ([`Parallel::lane`]) from the first task's view, sharing nothing with the others.
//!
//! In a race ([`super::race`]) the search counts on its lane like one search. With one
//! thread, the task under way when the lane pauses the search goes on at the next
//! [`Parallel::advance`]; with more, a task the lane stops is run again from its start
//! then, and what it charged is given back first. So the cost at which the search
//! completes is the sum of its tasks' costs, the same for every number of threads.

use super::brief::Brief;
use super::config::Config;
use super::context;
use super::explore::{Advance, Explorer, TaskEnd};
use super::findings::Findings;
use super::game;
use super::market;
use super::memo;
use super::options::TaskSizes;
use super::outcome::{CheckResult, Progress, Stats};
use super::relevance::Relevance;
use crate::library::Library;
use std::collections::{BTreeMap, VecDeque};
use std::time::Instant;

/// Task `i` sees what tasks up to `i − WINDOW` committed; so up to this many run at
/// once, and more threads than this find nothing to do.
pub const WINDOW: usize = 4;

/// The tasks a stopped task's worklist is cut into, at most.
const PIECES: usize = 8;

/// What the tasks committed before one, as that task sees it.
#[derive(Clone)]
struct View {
    shared: memo::Shared,
    best: Vec<u32>,
}

/// A task handed to a thread: its place in the queue, configurations, view and cap.
struct Job<'p> {
    index: usize,
    work: Vec<Config<'p>>,
    view: View,
    cap: u64,
}

/// How a task ended, with its place in the queue and its cap.
struct Ended<'p> {
    index: usize,
    cap: u64,
    end: Advance,
    task: TaskEnd<'p>,
}

/// The whole search by tasks; see the module docs.
pub struct Parallel<'p, 'o> {
    lib: &'p Library,
    brief: &'o Brief,
    sizes: TaskSizes,
    start: Instant,
    /// Every task so far, in commit order; a committed task's work is taken.
    queue: Vec<Vec<Config<'p>>>,
    committed: usize,
    /// The views after `views_from`, `views_from + 1`, … tasks committed.
    views: VecDeque<View>,
    views_from: usize,
    found: Findings,
    stats: Stats,
    inconclusive: Vec<String>,
    /// The task under way with one thread, paused by the lane.
    current: Option<Current<'p, 'o>>,
    /// What the tasks to be run again found: reported if the search ends before.
    held: Vec<Findings>,
    /// What tasks stopped by the lane charged it: given back when the search goes on,
    /// so that until then the lane shows how far the search got.
    to_refund: u64,
    over: Option<Advance>,
    /// With [`Parallel::first_of_lanes`]: how many lanes the first task's worklist is
    /// cut into (instead of tasks), and those lanes once it is.
    into_lanes: Option<usize>,
    lanes: Vec<Vec<Config<'p>>>,
    /// Configurations spent before this search, by the searches of the same check
    /// (the lanes before it): the configuration limit holds for them all.
    spent: u64,
}

/// What a search by tasks found, with its counters and the reasons it is incomplete,
/// before it is reported: the lanes of one search are joined so ([`super::shares`]).
pub struct Found {
    pub findings: Findings,
    pub stats: Stats,
    pub inconclusive: Vec<String>,
}

/// What the first task of a search cut into lanes leaves each lane: its memo entries
/// and shortest lengths, the view every lane starts from.
#[derive(Clone)]
pub struct LaneStart(View);

impl<'p, 'o> Parallel<'p, 'o> {
    /// The search of `lib` that `brief` asks for, on its threads.
    pub fn new(lib: &'p Library, brief: &'o Brief) -> Self {
        let plan = brief.plan;
        let found = Findings::for_plan(plan, lib);
        let view = View {
            shared: memo::Shared::default(),
            best: found.best().to_vec(),
        };
        Parallel {
            lib,
            brief,
            sizes: brief.run.task_sizes,
            start: Instant::now(),
            queue: vec![vec![game::start(
                lib,
                brief,
                plan.relevance() && Relevance::of(lib, None).is_some(),
            )]],
            committed: 0,
            views: VecDeque::from([view]),
            views_from: 0,
            found,
            stats: Stats::default(),
            inconclusive: Vec::new(),
            to_refund: 0,
            current: None,
            held: Vec::new(),
            over: None,
            into_lanes: None,
            lanes: Vec::new(),
            spent: 0,
        }
    }

    /// The first task of the search of `lib`, of up to `first` configurations, whose
    /// worklist is then cut into up to `lanes` runs of consecutive configurations
    /// ([`Parallel::into_lanes`]) rather than into tasks.
    pub fn first_of_lanes(lib: &'p Library, brief: &'o Brief, first: u64, lanes: usize) -> Self {
        let mut search = Parallel::new(lib, brief);
        search.sizes.first = first;
        search.into_lanes = Some(lanes.max(1));
        search
    }

    /// The search of one lane: the configurations `work`, seen from `start`, after
    /// `spent` configurations of the same check. Its first task is as large as any later
    /// one, and it shares nothing with the other lanes.
    pub fn lane(
        lib: &'p Library,
        brief: &'o Brief,
        work: Vec<Config<'p>>,
        start: &LaneStart,
        spent: u64,
    ) -> Self {
        let mut search = Parallel::new(lib, brief);
        search.sizes.first = search.sizes.task;
        search.found.seed(&start.0.best);
        search.queue = vec![work];
        search.views = VecDeque::from([start.0.clone()]);
        search.spent = spent;
        search
    }

    /// The whole search.
    pub fn run(mut self, progress: &mut dyn FnMut(&Progress)) -> CheckResult {
        self.advance(progress);
        self.finish()
    }

    /// Goes on until the search is done, stopped by a user's limit, or its lane is
    /// full; in the last case a later call goes on from the first task not committed.
    pub fn advance(&mut self, progress: &mut dyn FnMut(&Progress)) -> Advance {
        if let Some(over) = self.over {
            return over;
        }
        if let Some(lane) = self.brief.meter.lane().filter(|_| self.to_refund > 0) {
            lane.refund(std::mem::take(&mut self.to_refund));
        }
        self.held.clear();
        let jobs = self.brief.run.jobs.clamp(1, WINDOW);
        let end = if jobs == 1 {
            self.in_order(progress)
        } else {
            self.side_by_side(jobs, progress)
        };
        if end != Advance::Capped {
            self.over = Some(end);
        }
        end
    }

    /// The tasks one after another on this thread; the one under way when the lane
    /// pauses the search is kept, and goes on at the next call.
    fn in_order(&mut self, progress: &mut dyn FnMut(&Progress)) -> Advance {
        loop {
            let mut current = match self.current.take() {
                Some(current) => current,
                None if self.committed == self.queue.len() => return Advance::Done,
                None => match self.job(self.committed, 0) {
                    Some(job) => Current::start(self.lib, self.brief, self.start, job),
                    None => return self.out_of_configurations(),
                },
            };
            let end = current.advance();
            let reached_cap = current.explorer.configurations() >= current.cap;
            if end == Advance::Capped && !reached_cap {
                self.current = Some(current);
                return Advance::Capped;
            }
            if let Some(end) = self.settle(vec![current.end(end)], progress) {
                return end;
            }
        }
    }

    /// The tasks on a market of `jobs` threads ([`market`]), offered in queue order as
    /// their views are committed, and committed in queue order.
    fn side_by_side(&mut self, jobs: usize, progress: &mut dyn FnMut(&Progress)) -> Advance {
        let (lib, brief, start) = (self.lib, self.brief, self.start);
        let work = |job: Job<'p>| run(lib, brief, start, job);
        market::open(jobs, work, |market| {
            let mut next = self.committed;
            let mut running: BTreeMap<usize, u64> = BTreeMap::new();
            let mut arrived: BTreeMap<usize, Ended<'p>> = BTreeMap::new();
            let mut end = None;
            loop {
                while end.is_none()
                    && running.len() < jobs
                    && next < self.queue.len()
                    && next < self.committed + WINDOW
                {
                    let reserved = running.values().sum();
                    let Some(job) = self.job(next, reserved) else {
                        if running.is_empty() {
                            end = Some(self.out_of_configurations());
                        }
                        break;
                    };
                    running.insert(next, job.cap);
                    market.offer(next, job);
                    next += 1;
                }
                let Some((index, ended)) = market.wait() else {
                    break;
                };
                running.remove(&index);
                let Some(ended) = ended else {
                    self.note("search stopped: a task failed (an internal error)".to_string());
                    end = Some(Advance::Stopped);
                    continue;
                };
                arrived.insert(index, ended);
                if end.is_some() {
                    continue;
                }
                // The tasks that can be committed now, in order; or, once one of them
                // stops the search, every task that has arrived.
                let mut ready = Vec::new();
                while let Some(ended) = arrived.remove(&(self.committed + ready.len())) {
                    ready.push(ended);
                }
                if let Some(stopped) = self.settle(ready, progress) {
                    end = Some(stopped);
                }
            }
            let end = end.unwrap_or(Advance::Done);
            // Tasks past the one that stopped the search: kept if it is over, run again
            // if it is only paused.
            let later: Vec<Ended<'p>> = arrived.into_values().collect();
            match end {
                Advance::Capped => later.into_iter().for_each(|ended| self.refund(ended)),
                _ => later.into_iter().for_each(|ended| self.keep_found(ended)),
            }
            end
        })
    }

    /// The job of task `index`, within what is left of the configuration limit after
    /// `reserved` for the tasks running; `None` when nothing is left.
    fn job(&mut self, index: usize, reserved: u64) -> Option<Job<'p>> {
        let size = if index == 0 {
            self.sizes.first
        } else {
            self.sizes.task
        };
        let room = self
            .brief
            .meter
            .max_configurations()
            .map_or(u64::MAX, |max| {
                max.saturating_sub(self.spent + self.stats.configurations + reserved)
            });
        let cap = size.min(room);
        if cap == 0 {
            return None;
        }
        let seen = (index + 1).saturating_sub(WINDOW);
        let view = self.views[seen - self.views_from].clone();
        Some(Job {
            index,
            work: self.queue[index].clone(),
            view,
            cap,
        })
    }

    fn out_of_configurations(&mut self) -> Advance {
        self.note("search stopped: the configuration limit was reached".to_string());
        Advance::Stopped
    }

    /// Takes in tasks that ended, from the first not committed on, in order: commits
    /// those that completed or reached their cap; the first stopped by its lane ends
    /// the call (it and those after it are refunded), and one stopped by a user's
    /// limit ends the search (what it and those after it found is kept).
    fn settle(
        &mut self,
        ended: Vec<Ended<'p>>,
        progress: &mut dyn FnMut(&Progress),
    ) -> Option<Advance> {
        let mut ended = ended.into_iter();
        while let Some(task) = ended.next() {
            let reached_cap = task.task.stats.configurations >= task.cap;
            match task.end {
                Advance::Capped if !reached_cap => {
                    self.refund(task);
                    ended.for_each(|later| self.refund(later));
                    return Some(Advance::Capped);
                }
                Advance::Stopped => {
                    self.keep_found(task);
                    ended.for_each(|later| self.keep_found(later));
                    return Some(Advance::Stopped);
                }
                Advance::Done | Advance::Capped => self.commit(task, progress),
            }
        }
        None
    }

    /// Gives back to the lane what a task that will run again spent, once the search
    /// goes on; what it found is held until then.
    fn refund(&mut self, ended: Ended) {
        self.to_refund += ended.task.cost;
        self.held.push(ended.task.found);
    }

    /// Commits the next task: its findings, memo entries, counters and the tasks its
    /// worklist is cut into.
    fn commit(&mut self, ended: Ended<'p>, progress: &mut dyn FnMut(&Progress)) {
        let TaskEnd {
            found,
            stats,
            inconclusive,
            entries,
            rest,
            ..
        } = ended.task;
        self.queue[ended.index] = Vec::new();
        self.committed += 1;
        self.stats.add(&stats);
        self.found.merge(found);
        inconclusive.into_iter().for_each(|note| self.note(note));
        let mut shared = self
            .views
            .back()
            .map(|v| v.shared.clone())
            .unwrap_or_default();
        if let Some(entries) = entries {
            shared.commit(entries);
        }
        self.views.push_back(View {
            shared,
            best: self.found.best().to_vec(),
        });
        // Views no task still to run needs.
        while self.views_from + WINDOW < self.committed + 1 && self.views.len() > 1 {
            self.views.pop_front();
            self.views_from += 1;
        }
        match self.into_lanes {
            Some(lanes) => self.lanes = cut(rest, lanes),
            None => self.queue.extend(cut(rest, PIECES)),
        }
        progress(&Progress {
            configurations: self.stats.configurations,
            depth: self.stats.max_moves,
            counterexamples: self.found.failing_traces(),
            elapsed: self.start.elapsed(),
        });
    }

    /// What a task stopped by a user's limit found: its traces and notes count, its
    /// memo entries and worklist do not.
    fn keep_found(&mut self, ended: Ended<'p>) {
        self.stats.add(&ended.task.stats);
        self.found.merge(ended.task.found);
        ended
            .task
            .inconclusive
            .into_iter()
            .for_each(|note| self.note(note));
    }

    /// Records why the result is incomplete, once per reason.
    fn note(&mut self, reason: String) {
        if !self.inconclusive.contains(&reason) {
            self.inconclusive.push(reason);
        }
    }

    /// The result of the search so far: with what the tasks it stopped found, so
    /// that more time never loses a trace.
    pub fn finish(self) -> CheckResult {
        let brief = self.brief;
        let (found, _) = self.wind_up();
        found
            .findings
            .into_result(found.stats, found.inconclusive, brief)
    }

    /// The whole search of [`Parallel::first_of_lanes`]: what its first task found, its
    /// worklist cut into lanes (none when the task completed the search), and the view
    /// each lane starts from.
    pub fn into_lanes(
        mut self,
        progress: &mut dyn FnMut(&Progress),
    ) -> (Found, Vec<Vec<Config<'p>>>, LaneStart) {
        self.advance(progress);
        let start = LaneStart(self.views.back().cloned().unwrap_or_else(|| View {
            shared: memo::Shared::default(),
            best: self.found.best().to_vec(),
        }));
        let (found, lanes) = self.wind_up();
        (found, lanes, start)
    }

    /// The whole search of a [`Parallel::lane`], before it is reported.
    pub fn run_lane(mut self, progress: &mut dyn FnMut(&Progress)) -> Found {
        self.advance(progress);
        self.wind_up().0
    }

    /// What the search found so far, and the lanes it was cut into.
    fn wind_up(mut self) -> (Found, Vec<Vec<Config<'p>>>) {
        if self.over.is_none() && self.committed < self.queue.len() {
            // Never taken for a complete search, whoever reads it.
            self.note("the search stopped at its share of configurations".to_string());
        }
        if let Some(current) = self.current.take() {
            self.found.merge(current.end(Advance::Capped).task.found);
        }
        std::mem::take(&mut self.held)
            .into_iter()
            .for_each(|found| self.found.merge(found));
        self.stats.seconds = self.start.elapsed().as_secs_f64();
        let found = Found {
            findings: self.found,
            stats: self.stats,
            inconclusive: self.inconclusive,
        };
        (found, self.lanes)
    }
}

/// A task under way on this thread, in its own Z3 context.
struct Current<'p, 'o> {
    index: usize,
    cap: u64,
    context: z3::Context,
    explorer: Explorer<'p, 'o>,
}

impl<'p, 'o> Current<'p, 'o> {
    fn start(lib: &'p Library, brief: &'o Brief, start: Instant, job: Job<'p>) -> Self {
        let context = context::fresh();
        let Job {
            index,
            work,
            view,
            cap,
        } = job;
        let explorer = context::within(&context, || {
            Explorer::new(lib, brief).task(work, view.shared, &view.best, cap, start)
        });
        Current {
            index,
            cap,
            context,
            explorer,
        }
    }

    /// Goes on with the task until it ends or its lane or cap pauses it.
    fn advance(&mut self) -> Advance {
        let explorer = &mut self.explorer;
        context::within(&self.context, || explorer.advance(&mut |_| {}))
    }

    /// How the task ended, after `end`.
    fn end(self, end: Advance) -> Ended<'p> {
        let Current {
            index,
            cap,
            context,
            explorer,
        } = self;
        let task = context::within(&context, || explorer.into_task());
        Ended {
            index,
            cap,
            end,
            task,
        }
    }
}

/// Runs `job` in a Z3 context of its own: how it ended.
fn run<'p>(lib: &'p Library, brief: &Brief, start: Instant, job: Job<'p>) -> Ended<'p> {
    let mut current = Current::start(lib, brief, start, job);
    let end = current.advance();
    current.end(end)
}

/// `rest` cut into up to `count` runs of consecutive configurations, as even as can
/// be, in order.
fn cut<T>(rest: Vec<T>, count: usize) -> Vec<Vec<T>> {
    let count = rest.len().min(count);
    let mut out = Vec::with_capacity(count);
    let mut rest = rest.into_iter();
    let total = rest.len();
    for piece in 0..count {
        let size = total / count + usize::from(piece < total % count);
        out.push(rest.by_ref().take(size).collect());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_are_consecutive_runs_as_even_as_can_be() {
        assert_eq!(
            cut((0..10).collect(), PIECES),
            vec![
                vec![0, 1],
                vec![2, 3],
                vec![4],
                vec![5],
                vec![6],
                vec![7],
                vec![8],
                vec![9]
            ]
        );
        assert_eq!(cut(vec![1, 2], PIECES), vec![vec![1], vec![2]]);
        assert!(cut(Vec::<u8>::new(), PIECES).is_empty());
        assert_eq!(cut((0..5).collect(), 2), vec![vec![0, 1, 2], vec![3, 4]]);
    }
}
