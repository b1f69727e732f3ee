//! Depth-first search over symbolic configurations, with an explicit worklist.
//!
//! Each worklist entry is one configuration; the machine runs it to its next stop, and
//! the stop decides the successors: both sides of a symbolic branch that the solver
//! (or the current witness) shows satisfiable, the configuration after a P-move, or
//! every O-move of an opponent configuration. Failures are rendered as they are found.
//!
//! Without `all`, an opponent configuration subsumed by one already fully explored is
//! skipped ([`memo`]); a marker beneath its successors on the worklist records it as
//! fully explored once they are all done. With `first`, the search runs in passes of
//! growing trace-length limit and stops at the first failure.
//!
//! A path that gets stuck ([`Stop::Stuck`]) is recorded with its place and reason
//! ([`CheckResult::stuck`]); a complete search without failures but with stuck paths is
//! [`Verdict::Stuck`], not safe (unless [`CheckOptions::allow_stuck`]). Paths of the
//! over-approximation ([`super::havoc`]) or with the split's stand-in are not the
//! library's own, so their stuck places are not recorded. Every pruning keeps the set
//! of stuck places of a search without failures: subsumption and the symmetry of
//! revealed closures because a pruned configuration's future is one explored
//! ([`memo`]); branch and bound because it starts cutting only after a failure, when
//! the verdict is unsafe whatever else is met; `first` because it stops early only on a
//! failure, and its last pass is the whole search.

use super::branch;
use super::branch::Undecided;
use super::config::{Config, Control};
use super::findings::Findings;
pub use super::findings::StuckPaths;
use super::havoc::Havoc;
use super::havoc_turn::{self, Sides, Turn};
use super::machine::{self, Stop, Stuck};
use super::memo;
use super::moves::{self, StandIn};
use super::solver::Solver;
use super::subsume::{self, Seen};
use super::term::{Term, Witness};
use super::value::Value;
use super::{verdict, CheckOptions, CheckResult, Progress, Stats, StuckReason};
use crate::build::Library;
use crate::syntax::ast::{BinOp, Span};
use crate::trace::{Counterexample, FailureKind};
use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

/// How often (in configurations) progress is reported.
const POLL_EVERY: u64 = 1024;

/// How [`Explorer::advance`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Advance {
    /// The search is complete.
    Done,
    /// Its lane is full: it can be resumed.
    Capped,
    /// By a limit of the user's (time, configurations, interruption): it is over.
    Stopped,
}

/// A worklist entry: a configuration to explore, or the mark that everything pushed
/// above it — the successors of an opponent configuration — has been explored.
// Nearly every entry is a configuration: boxing them would cost an allocation each.
#[allow(clippy::large_enum_variant)]
enum Work<'p> {
    Explore(Config<'p>),
    /// The key, the trace length as the memo compares it, and the cuts made before.
    Explored(memo::Key, i64, u64),
}

pub struct Explorer<'p, 'o> {
    lib: &'p Library,
    options: &'o CheckOptions,
    /// Decides symbolic branches (and owns the search's solver).
    decider: branch::Decider,
    initial: Config<'p>,
    worklist: Vec<Work<'p>>,
    /// Fully explored opponent configurations (when subsumption is on).
    memo: Option<memo::Memo>,
    /// The opponent configurations whose markers are on the worklist — ancestors of
    /// whatever is explored — with their trace lengths and the failures below so far.
    open: Vec<(u32, memo::Summary)>,
    /// The failures and stuck paths found, and the bound of branch and bound.
    found: Findings,
    /// With `first`: this attempt's limit on configurations (counted over the whole
    /// race), and whether it was reached.
    attempt_cap: Option<u64>,
    capped: bool,
    /// The longest trace the current pass explores (with `first`, or in
    /// [`Explorer::with_depth_limit`]), and how many configurations were cut off for
    /// being longer.
    depth_limit: Option<u32>,
    cuts: u64,
    /// Explore the over-approximation of [`super::havoc`] instead of the library.
    havoc: Option<Havoc>,
    /// The candidate invariants of `havoc` found not to hold at some client turn.
    violated: Vec<usize>,
    /// The split's stand-in, played by the search.
    stand_in: Option<StandIn>,
    stats: Stats,
    inconclusive: Vec<String>,
    start: Instant,
    /// Projections that gave a region.
    regions_made: u64,
    /// The solver's work charged to the lane so far.
    work_charged: u64,
}

impl<'p, 'o> Explorer<'p, 'o> {
    pub fn new(lib: &'p Library, options: &'o CheckOptions) -> Explorer<'p, 'o> {
        let initial = Config::initial(lib, options.k, options.l);
        // Branch and bound aims at every site in the library's code unless told
        // otherwise ([`Explorer::with_targets`]).
        let mut targets = Vec::new();
        if options.bound && options.memo && !options.all {
            targets = lib.failure_sites();
        }
        let mut solver = Solver::new();
        if let Some(flag) = &options.interrupt {
            solver.interrupt_on(Arc::clone(flag));
        }
        if let Some(program) = &options.solver_process {
            solver.nonlinear_in_child(program.clone());
        }
        Explorer {
            lib,
            options,
            decider: branch::Decider::new(solver),
            worklist: vec![Work::Explore(initial.clone())],
            initial,
            memo: None,
            open: Vec::new(),
            found: Findings::new(options.all, targets),
            attempt_cap: None,
            capped: false,
            depth_limit: None,
            cuts: 0,
            havoc: None,
            violated: Vec::new(),
            stand_in: None,
            stats: Stats::default(),
            inconclusive: Vec::new(),
            start: Instant::now(),
            regions_made: 0,
            work_charged: 0,
        }
    }

    /// Branch and bound on the sites `targets` alone: only they are sure to keep their
    /// minimal lengths. No targets of its own means branch and bound is off.
    pub fn with_targets(mut self, targets: &[(FailureKind, Span)]) -> Self {
        if self.found.bounds() {
            self.found.retarget(targets);
        }
        self
    }

    /// Lets the search play `stand_in` itself ([`StandIn`]).
    pub fn with_stand_in(mut self, stand_in: StandIn) -> Self {
        self.stand_in = Some(stand_in);
        self
    }

    /// Explores only traces of at most `max_moves` moves: the shortest failure per
    /// site among those, each site with its minimal length if that is within the
    /// limit. Subsumption stays exact under the limit, because an entry whose subtree
    /// the limit cut subsumes only configurations met with no more room left
    /// ([`memo`]).
    pub fn with_depth_limit(mut self, max_moves: u32) -> Self {
        self.depth_limit = Some(max_moves);
        self
    }

    /// Why the search must stop now, if it must.
    fn out_of_budget(&self) -> Option<String> {
        if let Some(flag) = &self.options.interrupt {
            if flag.load(Ordering::Relaxed) {
                return Some("interrupted".to_string());
            }
        }
        if let Some(t) = self.options.timeout {
            if self.start.elapsed() >= t {
                // After a split, `t` is only what was left of the user's limit.
                return Some("the time limit ran out".to_string());
            }
        }
        if let Some(max) = self.options.max_configurations {
            if self.stats.configurations >= max {
                return Some("the configuration limit was reached".to_string());
            }
        }
        None
    }

    /// The whole search (`first` is [`super::first::race`]'s, which runs this one's
    /// plans in turn).
    pub fn run(self, progress: &mut dyn FnMut(&Progress)) -> CheckResult {
        self.run_plan(Plan::Exhaustive, progress).0
    }

    /// Goes on from an earlier attempt of the same search: its clock, counters and
    /// stuck paths, stopping at `cap` configurations in all.
    pub fn continuing(mut self, start: Instant, stats: Stats, stuck: StuckPaths, cap: u64) -> Self {
        self.start = start;
        self.stats = stats;
        self.found.resume_stuck(stuck);
        self.attempt_cap = Some(cap);
        self
    }

    /// An empty memo, leaving inert references out of its keys unless told not to.
    fn new_memo(&self) -> memo::Memo {
        let inert = if self.options.inert {
            super::inert::inert_refs(self.lib)
        } else {
            Vec::new()
        };
        memo::Memo::new(inert, self.lib.may_get_stuck)
    }

    /// The exhaustive search, to be run in installments: [`Explorer::advance`] until
    /// it is done, then [`Explorer::finish`].
    pub fn exhaustive(lib: &'p Library, options: &'o CheckOptions) -> Self {
        let mut explorer = Explorer::new(lib, options);
        if options.memo && !options.all {
            explorer.memo = Some(explorer.new_memo());
        }
        explorer
    }

    /// Goes on with the search until it is done, stopped by a limit, or its lane
    /// ([`CheckOptions::lane`]) is full; in the last case a later call (after the
    /// lane's limit was raised) resumes exactly where it stopped.
    pub fn advance(&mut self, progress: &mut dyn FnMut(&Progress)) -> Advance {
        self.capped = false;
        if self.search(progress) {
            Advance::Done
        } else if self.capped {
            Advance::Capped
        } else {
            Advance::Stopped
        }
    }

    /// The counters so far.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// Searches by `plan`; also says whether the search stopped at `attempt_cap`.
    pub fn run_plan(
        mut self,
        plan: Plan,
        progress: &mut dyn FnMut(&Progress),
    ) -> (CheckResult, bool) {
        let use_memo = self.options.memo && !self.options.all;
        if plan == Plan::Exhaustive {
            self.memo = use_memo.then(|| self.new_memo());
            self.search(progress);
            let capped = self.capped;
            return (self.finish(), capped);
        }
        // Iterative deepening: pass d explores traces of at most d moves. A pass that
        // finds a failure found one of exactly d moves (the previous pass found none),
        // and a pass that cut nothing off was the whole search. The memo carries over:
        // the earlier passes found no failure, so a configuration with no more room
        // left than one explored in an earlier pass has none either within the limit.
        self.memo = use_memo.then(|| self.new_memo());
        for depth in 0.. {
            self.stats.deepening_passes += 1;
            self.depth_limit = Some(depth);
            let cuts = self.cuts;
            self.worklist = vec![Work::Explore(self.initial.clone())];
            self.open.clear();
            let complete = self.search(progress);
            if !complete || self.found.any_failure() || self.cuts == cuts {
                break;
            }
        }
        let capped = self.capped;
        (self.finish(), capped)
    }

    /// Explores the worklist; false when stopped by a budget (or by `first`).
    fn search(&mut self, progress: &mut dyn FnMut(&Progress)) -> bool {
        while let Some(work) = self.worklist.pop() {
            let cfg = match work {
                Work::Explore(cfg) => cfg,
                Work::Explored(key, moves, cuts) => {
                    let (_, summary) = self.open.pop().unwrap_or_default();
                    if let Some(memo) = &mut self.memo {
                        let pass = self.stats.deepening_passes;
                        memo.insert(key, moves, self.cuts > cuts, pass, summary);
                    }
                    continue;
                }
            };
            if let Some(reason) = self.out_of_budget() {
                self.note(format!("search stopped: {reason}"));
                return false;
            }
            let lane_full = self
                .options
                .lane
                .as_ref()
                .is_some_and(|lane| !lane.admits());
            if lane_full
                || self
                    .attempt_cap
                    .is_some_and(|cap| self.stats.configurations >= cap)
            {
                // Put back, so that the search can resume here ([`Explorer::advance`]).
                self.worklist.push(Work::Explore(cfg));
                self.capped = true;
                return false;
            }
            if self.options.first && self.depth_limit.is_some() && self.found.any_failure() {
                return false;
            }
            // The over-approximation is searched only for which sites it reaches.
            if self.havoc.is_some() && self.found.targets_reached() {
                return true;
            }
            // Its result assumed an invariant that does not hold: it will be redone.
            if !self.violated.is_empty() {
                return false;
            }
            let too_long = self.depth_limit.is_some_and(|d| cfg.moves > d)
                || self.found.bound().is_some_and(|b| cfg.moves >= b);
            if too_long {
                self.cuts += 1;
                continue;
            }
            if self.stats.configurations.is_multiple_of(POLL_EVERY) {
                progress(&Progress {
                    configurations: self.stats.configurations,
                    depth: cfg.moves,
                    counterexamples: self.found.failing_traces(),
                    elapsed: self.start.elapsed(),
                });
            }
            self.stats.configurations += 1;
            if let Some(lane) = &self.options.lane {
                lane.count();
            }
            self.stats.max_moves = self.stats.max_moves.max(cfg.moves);
            self.step(cfg);
            if let Some(lane) = self
                .options
                .lane
                .as_ref()
                .filter(|_| self.decider.solver.work > self.work_charged)
            {
                lane.charge(self.decider.solver.work - self.work_charged);
                self.work_charged = self.decider.solver.work;
            }
        }
        true
    }

    fn step(&mut self, mut cfg: Config<'p>) {
        let lib = self.lib;
        match machine::run(&mut cfg, lib) {
            Stop::Opponent => {
                if self.havoc.is_some() {
                    self.forget_store(&mut cfg);
                }
                if self.subsumed(&cfg) {
                    return;
                }
                let mut next =
                    moves::opponent_moves(&cfg, lib, self.memo.is_some(), self.stand_in.as_ref());
                next.reverse();
                self.worklist.extend(next.into_iter().map(Work::Explore));
            }
            Stop::If { cond, node, env } => {
                let super::ir::ExprKind::If(_, then, else_) = &node.kind else {
                    return;
                };
                let [yes, no] = self.split(&cfg, &cond);
                if let Some(w) = no {
                    let mut c = cfg.clone();
                    c.assume(cond.clone(), false, w);
                    c.control = Control::Eval(else_, env.clone());
                    self.worklist.push(Work::Explore(c));
                }
                if let Some(w) = yes {
                    cfg.assume(cond, true, w);
                    cfg.control = Control::Eval(then, env);
                    self.worklist.push(Work::Explore(cfg));
                }
            }
            Stop::Assert { cond, node } => {
                let [pass, fail] = self.split(&cfg, &cond);
                if let Some(w) = fail {
                    self.fail(&cfg, FailureKind::Assert, node.span.clone(), &w);
                }
                if let Some(w) = pass {
                    cfg.assume(cond, true, w);
                    cfg.control = Control::Return(Value::Unit);
                    self.worklist.push(Work::Explore(cfg));
                }
            }
            Stop::Divide { left, right, node } => {
                let [nonzero, zero] = self.split(&cfg, &right);
                if let Some(w) = zero {
                    self.fail(&cfg, FailureKind::Division, node.span.clone(), &w);
                }
                if let Some(w) = nonzero {
                    let quotient = Term::binary(BinOp::Div, &left, &right);
                    if let Ok(q) = quotient {
                        cfg.assume(right, true, w);
                        cfg.control = Control::Return(Value::Int(q));
                        self.worklist.push(Work::Explore(cfg));
                    }
                }
            }
            Stop::Fail { kind, span } => {
                let witness = Rc::clone(&cfg.witness);
                self.fail(&cfg, kind, span, &witness);
            }
            Stop::PCall { name, arg } => {
                moves::p_call(&mut cfg, lib, name, arg, self.options.l);
                self.worklist.push(Work::Explore(cfg));
            }
            Stop::PReturn { value } => {
                if moves::p_return(&mut cfg, lib, value) {
                    self.worklist.push(Work::Explore(cfg));
                }
            }
            Stop::OutOfFrames => self.stats.frame_limit_paths += 1,
            Stop::Stuck { reason, span } => self.stuck_path(reason, span),
            Stop::Choose(choices) => {
                self.worklist
                    .extend(choices.into_iter().rev().map(Work::Explore));
            }
        }
    }

    /// Records a path stuck at `span`, unless it is not one of the library's own paths
    /// (the over-approximation's, or one with the split's stand-in).
    fn stuck_path(&mut self, reason: Stuck, span: Span) {
        if self.havoc.is_some() || self.stand_in.is_some() {
            return;
        }
        let name = |names: &[String], i: u32| names.get(i as usize).cloned().unwrap_or_default();
        let reason = match reason {
            Stuck::Undeclared(u) => {
                self.stats.undeclared_calls += 1;
                StuckReason::Undeclared(name(&self.lib.undeclared, u))
            }
            Stuck::UnsetReference(r) => {
                self.stats.stuck_paths += 1;
                StuckReason::UnsetReference(name(&self.lib.refs, r))
            }
            Stuck::IllTyped => {
                self.stats.stuck_paths += 1;
                StuckReason::IllTyped
            }
        };
        self.found.stuck(&span, reason);
    }

    /// The client's turn in the over-approximation ([`havoc_turn`]): what the client
    /// could change is forgotten, unless a candidate invariant does not hold here.
    fn forget_store(&mut self, cfg: &mut Config<'p>) {
        let Some(havoc) = self.havoc.take() else {
            return;
        };
        let turn = havoc_turn::forget_store(self.lib, &havoc, cfg, self);
        self.havoc = Some(havoc);
        match turn {
            Turn::Violated(violated) => self.violated.extend(violated),
            Turn::Forgotten { covered: false } => {
                self.note("the over-approximation does not cover this library".to_string());
            }
            Turn::Forgotten { covered: true } => {}
        }
    }

    /// Which sides of `cond` (≠ 0, = 0) are satisfiable with the path condition, each
    /// with a model ([`branch::Decider`]). `unknown` drops the side and makes the
    /// verdict inconclusive.
    fn split(&mut self, cfg: &Config<'p>, cond: &Term) -> [Option<Rc<Witness>>; 2] {
        let (options, start) = (self.options, self.start);
        let mut undecided = Vec::new();
        let sides = self
            .decider
            .sides(cfg, cond, &|| query_limit(options, start), &mut undecided);
        for why in undecided {
            let reason = match why {
                Undecided::Unknown(reason) => {
                    format!("solver returned unknown ({reason}); a branch was not explored")
                }
                // The query's limit is no later than the search's deadline.
                Undecided::TimedOut => match self.out_of_budget() {
                    Some(stop) => format!("search stopped: {stop}"),
                    None => "solver returned unknown (the query ran past the solver \
                             timeout); a branch was not explored"
                        .to_string(),
                },
                Undecided::Interrupted => "search stopped: interrupted".to_string(),
            };
            self.note(reason);
        }
        sides
    }

    /// Records why the result is incomplete, once per reason.
    fn note(&mut self, reason: String) {
        if !self.inconclusive.contains(&reason) {
            self.inconclusive.push(reason);
        }
    }

    /// Whether the opponent configuration `cfg` is subsumed by one fully explored
    /// ([`memo`]): same key, or same shape with values inside explored regions. If so,
    /// the failures below it are credited to the open configurations; if not, it is
    /// recorded as open, with a marker beneath its successors.
    fn subsumed(&mut self, cfg: &Config<'p>) -> bool {
        let Some(memo) = &mut self.memo else {
            return false;
        };
        let relative = i64::from(cfg.moves) - i64::from(self.depth_limit.unwrap_or(0));
        let visit = memo::Visit {
            moves: cfg.moves,
            relative,
            pass: self.stats.deepening_passes,
            best: self.found.best(),
        };
        let ask = subsume::Ask {
            solver: &mut self.decider.solver,
            stats: &mut self.stats,
            regions_made: &mut self.regions_made,
            lane: self.options.lane.as_deref(),
            limit: query_limit(self.options, self.start),
            semantic: self.options.semantic,
        };
        let open = &mut self.open;
        let mut credit = |site, suffix| reached(open, site, cfg.moves + suffix);
        match subsume::look_up(memo, cfg, &visit, ask, &mut credit) {
            Seen::Subsumed => true,
            Seen::New(key) => {
                self.worklist.push(Work::Explored(key, relative, self.cuts));
                self.open.push((cfg.moves, memo::Summary::new()));
                false
            }
        }
    }

    fn fail(&mut self, cfg: &Config<'p>, kind: FailureKind, span: Span, witness: &Witness) {
        let rendered = moves::render(self.lib, cfg, witness);
        let text = rendered.trace.to_string();
        debug_assert_eq!(
            rendered.trace.0.len(),
            cfg.moves as usize,
            "one trace move per move"
        );
        let cx = Counterexample {
            kind,
            span,
            trace: rendered.trace,
            concrete: rendered.concrete,
            model: rendered.model,
            locations: rendered.locations,
        };
        let site = self.found.failure(cx, text, cfg.moves);
        reached(&mut self.open, site, cfg.moves);
    }

    /// The result of the search so far.
    pub fn finish(mut self) -> CheckResult {
        if self.capped {
            // Never taken for a complete search, whoever reads it.
            self.note("the search stopped at its share of configurations".to_string());
        }
        let found = self.found.report();
        self.stats.solver_queries += self.decider.solver.queries;
        self.stats.cached_answers += self.decider.cached;
        self.stats.seconds = self.start.elapsed().as_secs_f64();
        CheckResult {
            verdict: verdict(
                &found.counterexamples,
                &self.inconclusive,
                &found.stuck,
                self.options,
            ),
            counterexamples: found.counterexamples,
            failing_traces: found.failing_traces,
            failing_traces_lower_bound: found.failing_traces_lower_bound,
            stats: self.stats,
            inconclusive: self.inconclusive,
            stuck: found.stuck,
        }
    }
}

impl<'p> Sides<'p> for Explorer<'p, '_> {
    fn sides(&mut self, cfg: &Config<'p>, cond: &Term) -> [Option<Rc<Witness>>; 2] {
        self.split(cfg, cond)
    }
}

/// The search of the over-approximation `havoc` of `lib` ([`super::havoc`]) for the
/// sites `targets`, if it is complete within `budget` configurations or stopped on
/// candidate invariants that do not hold (the second part: their numbers); otherwise
/// the work done.
pub fn havoc_within(
    lib: &Library,
    options: &CheckOptions,
    budget: u64,
    targets: &[(FailureKind, Span)],
    havoc: Havoc,
    progress: &mut dyn FnMut(&Progress),
) -> Result<(CheckResult, Vec<usize>), Stats> {
    let mut explorer = Explorer::new(lib, options).with_targets(targets);
    explorer.havoc = Some(havoc);
    explorer.attempt_cap = Some(budget);
    explorer.memo = Some(explorer.new_memo());
    explorer.search(progress);
    let violated = std::mem::take(&mut explorer.violated);
    let capped = explorer.capped;
    let result = explorer.finish();
    if violated.is_empty() && (capped || !result.inconclusive.is_empty()) {
        Err(result.stats)
    } else {
        Ok((result, violated))
    }
}

/// How long the next solver query of a search started at `start` may run: no longer
/// than the search's own deadline, nor the per-query limit.
fn query_limit(options: &CheckOptions, start: Instant) -> Option<std::time::Duration> {
    let remaining = options.timeout.map(|t| t.saturating_sub(start.elapsed()));
    match (remaining, options.solver_timeout) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// How a search goes: the whole tree, or passes of growing trace-length limit.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Plan {
    Exhaustive,
    Deepening,
}

/// Records in every open opponent configuration that `site` fails `moves` moves into
/// the trace.
fn reached(open: &mut [(u32, memo::Summary)], site: u32, moves: u32) {
    for (at, summary) in open {
        memo::record(summary, site, moves.saturating_sub(*at));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn library(source: &str) -> Library {
        let loaded = crate::frontend::load_str("t.holi", source, false)
            .unwrap_or_else(|r| panic!("{}", r.render(false)));
        crate::build::build(&loaded.program)
    }

    /// Every sequence of calls fails: 1 + 2 + 4 distinct traces within l = 3.
    const ALWAYS: &str = "
        public a (x:int) :(unit) = { assert(x == 0) };
        public b (x:int) :(unit) = { () };
    ";

    #[test]
    fn past_the_cap_the_count_of_failing_traces_is_a_lower_bound() {
        let lib = library(ALWAYS);
        let options = CheckOptions {
            k: 1,
            l: 3,
            memo: false,
            ..CheckOptions::default()
        };
        let exact = Explorer::new(&lib, &options).run(&mut |_| {});
        assert!(exact.failing_traces > 3, "{}", exact.failing_traces);
        assert!(!exact.failing_traces_lower_bound);
        let mut capped = Explorer::new(&lib, &options);
        capped.found.failing_cap = 3;
        let capped = capped.run(&mut |_| {});
        assert_eq!(capped.failing_traces, 3);
        assert!(capped.failing_traces_lower_bound);
        // The report itself does not change.
        assert_eq!(capped.verdict, exact.verdict);
        assert_eq!(capped.counterexamples.len(), exact.counterexamples.len());
        // With `all` every trace is output, so it is counted exactly.
        let all = CheckOptions {
            all: true,
            ..options
        };
        let mut uncapped = Explorer::new(&lib, &all);
        uncapped.found.failing_cap = 3;
        let uncapped = uncapped.run(&mut |_| {});
        assert_eq!(uncapped.failing_traces, exact.failing_traces);
        assert!(!uncapped.failing_traces_lower_bound);
    }

    /// A division in the stored value: no projection gives a region (`qe` cannot
    /// eliminate it), so projecting stops after the trial, and the search, not only its
    /// answer, is the one without semantic subsumption.
    const DIVIDES: &str = "
        import send :(int -> unit)
        int c := 0;
        public m (a:int) :(unit) = { (let t = !c in (send !c; assert (t == !c)));
            c := (if (!c <= 2) then a else a) / (0 - 100) };
        public n (u:unit) :(unit) = { () };
    ";

    #[test]
    fn projections_that_never_give_a_region_stop_after_the_trial() {
        let lib = library(DIVIDES);
        let options = CheckOptions {
            k: 4,
            l: 2,
            ..CheckOptions::default()
        };
        let default = Explorer::new(&lib, &options).run(&mut |_| {});
        assert_eq!(default.stats.projections, subsume::PROJECTION_TRIAL);
        assert_eq!(default.stats.coverage_checks, 0);
        let plain = Explorer::new(
            &lib,
            &CheckOptions {
                semantic: false,
                ..options
            },
        )
        .run(&mut |_| {});
        assert_eq!(default.verdict, super::super::Verdict::Unsafe);
        assert_eq!(default.verdict, plain.verdict);
        assert_eq!(default.stats.configurations, plain.stats.configurations);
        let texts = |r: &CheckResult| -> Vec<String> {
            r.counterexamples
                .iter()
                .map(|c| c.trace.to_string())
                .collect()
        };
        assert_eq!(texts(&default), texts(&plain));
    }
}
