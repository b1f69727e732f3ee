//! The Z3 back end: one incremental solver whose assertion stack mirrors the
//! depth-first search.
//!
//! The path condition is a persistent list; the solver keeps one push level per
//! conjunct it has asserted. Moving to another configuration pops to the longest
//! common prefix and pushes the rest, so siblings in the search reuse their shared
//! prefix. Terms are translated once (cache keyed by node identity).

use super::config::{connected_conjuncts, PcNode};
use super::difference;
use super::linear;
use super::term::{Node, Term, Witness};
use super::worker::{self, no_ctrl_c, NoRegion, QeThread, Reply, Worker};
use crate::syntax::ast::BinOp;
use num_bigint::BigInt;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use z3::ast::{Bool, Int};
use z3::SatResult;

pub enum Answer {
    /// Satisfiable, with a model of the path condition and the new conjunct.
    Sat(Witness),
    Unsat,
    /// Z3 could not decide (its reason).
    Unknown(String),
    /// Cut short when its time limit ran out.
    TimedOut,
    /// Cut short because the interrupt flag ([`Solver::interrupt_on`]) was set.
    Interrupted,
}

pub struct Solver {
    /// The Z3 solver and its watchdog, made at the first query: a Z3 context and a
    /// solver's first push cost milliseconds each, more than a small search that asks
    /// nothing (the context is the thread's, made by Z3's first use on it).
    live: Option<Live>,
    /// An empty solver of the same context ([`Solver::clear_interrupt`]), made when
    /// first needed: a Z3 solver's first push costs milliseconds (its SMT core is set
    /// up), as much as a small search, and most searches are never cut short.
    blank: Option<z3::Solver>,
    asserted: Vec<Arc<PcNode>>,
    ints: FxHashMap<*const Node, (Arc<Node>, Int)>,
    bools: FxHashMap<*const Node, (Arc<Node>, Bool)>,
    /// Z3 constants of the symbols, by number (index 0 unused).
    symbols: Vec<Int>,
    pub queries: u64,
    /// Time spent in [`Solver::check`], [`Solver::project`] and [`Solver::covered`]:
    /// Z3 and the solver process, with the encoding of their questions.
    pub busy: Duration,
    /// The work done so far, estimated in configurations ([`work`]): a count, not a
    /// time, so that searches can be compared whatever the machine's load.
    pub work: u64,
    /// The results of [`Solver::project`] by the question's encoding up to renaming of
    /// symbols ([`projection_key`]).
    projections: FxHashMap<Vec<u32>, Option<Bool>>,
    /// The nodes of each region [`Solver::project`] gave, counted up to
    /// [`work::MAX_SIZE`]: a coverage check is charged by them.
    region_nodes: HashMap<Bool, u64>,
    /// Where nonlinear queries go, when set ([`Solver::nonlinear_in_child`]).
    worker: Option<Worker>,
    /// Where projections go.
    qe_thread: QeThread,
    /// The user's interrupt flag ([`Solver::interrupt_on`]), for the worker's queries.
    user: Option<Arc<AtomicBool>>,
}

impl Default for Solver {
    fn default() -> Self {
        Solver::new()
    }
}

impl Solver {
    pub fn new() -> Solver {
        Solver {
            live: None,
            blank: None,
            asserted: Vec::new(),
            ints: FxHashMap::default(),
            bools: FxHashMap::default(),
            symbols: Vec::new(),
            queries: 0,
            busy: Duration::ZERO,
            work: 0,
            projections: FxHashMap::default(),
            region_nodes: HashMap::new(),
            worker: None,
            qe_thread: QeThread::default(),
            user: None,
        }
    }

    /// Sends every query whose assertions are nonlinear to a child process started
    /// from `program` (normally `holi` itself, see [`worker`]), where a limit or an
    /// interrupt always stops it: Z3's nonlinear arithmetic may ignore an in-process
    /// interrupt for tens of seconds. Without this such queries run here, answered
    /// the same but stopped only when Z3 next looks.
    ///
    /// The child is asked only the conjuncts of the path condition connected to the
    /// query's symbols: the others mention none of them and are satisfied by the
    /// configuration's witness, which the search keeps for the symbols the reply does
    /// not give. So the answer is the in-process one, and a model from the child,
    /// merged into that witness, is a model of the whole path condition.
    pub fn nonlinear_in_child(&mut self, program: PathBuf) {
        self.worker = Some(Worker::new(program));
    }

    /// Is `pc ∧ (term ≠ 0)` (or `= 0` when `!holds`) satisfiable? `symbols` is the
    /// number of symbols on the path; the model gives a value to those the formula
    /// mentions (the others are unconstrained and read as 0). A query that runs longer
    /// than `limit` is `TimedOut`; one running when the interrupt flag is set (or
    /// started after) is `Interrupted`.
    pub fn check(
        &mut self,
        pc: &Option<Arc<PcNode>>,
        term: &Term,
        holds: bool,
        symbols: u32,
        limit: Option<Duration>,
    ) -> Answer {
        self.timed(|s| s.satisfiable(pc, term, holds, symbols, limit))
    }

    /// `ask(self)`, its time added to [`Solver::busy`].
    fn timed<R>(&mut self, ask: impl FnOnce(&mut Self) -> R) -> R {
        let start = Instant::now();
        let answer = ask(self);
        self.busy += start.elapsed();
        answer
    }

    /// [`Solver::check`], untimed.
    fn satisfiable(
        &mut self,
        pc: &Option<Arc<PcNode>>,
        term: &Term,
        holds: bool,
        symbols: u32,
        limit: Option<Duration>,
    ) -> Answer {
        let nonlinear = pc.as_ref().is_some_and(|p| p.nonlinear) || !term.is_linear();
        // Charged by what is asked, not where it is answered: the same search costs the
        // same with the solver process and without it.
        self.work += if nonlinear {
            work::NONLINEAR
        } else {
            work::QUERY
        };
        if self.worker.is_some() && nonlinear {
            self.queries += 1;
            return self.check_in_worker(pc, term, holds, limit);
        }
        let mut relevant = Vec::new();
        term.symbols(&mut relevant);
        if let Some(p) = pc {
            let (small, overflow) = p.symbols.small_members();
            if overflow {
                relevant = (1..=symbols).collect();
            } else {
                relevant.extend(small);
            }
        }
        self.sync(pc);
        self.queries += 1;
        let cond = self.condition(term, holds);
        self.live().z3.push();
        self.live().z3.assert(&cond);
        let (result, cut) = self.run(limit);
        let answer = match (result, cut) {
            // Z3 gives its own reasons for a cancelled check (often "incomplete").
            (SatResult::Unknown, Some(Cut::TimedOut)) => Answer::TimedOut,
            (SatResult::Unknown, Some(Cut::Interrupted)) => Answer::Interrupted,
            (SatResult::Sat, _) => match self.live().z3.get_model() {
                Some(model) => {
                    let witness = relevant
                        .into_iter()
                        .filter_map(|n| {
                            let value = model.get_const_interp(&self.symbol(n))?;
                            Some((n, worker::to_bigint(&value)?))
                        })
                        .collect();
                    Answer::Sat(witness)
                }
                None => Answer::Unknown("Z3 gave no model".to_string()),
            },
            (SatResult::Unsat, _) => Answer::Unsat,
            (SatResult::Unknown, None) => Answer::Unknown(
                self.live()
                    .z3
                    .get_reason_unknown()
                    .unwrap_or_else(|| "unknown".to_string()),
            ),
        };
        self.live().z3.pop(1);
        answer
    }

    /// [`Solver::check`] in the worker.
    fn check_in_worker(
        &mut self,
        pc: &Option<Arc<PcNode>>,
        term: &Term,
        holds: bool,
        limit: Option<Duration>,
    ) -> Answer {
        let mut mentioned = Vec::new();
        term.symbols(&mut mentioned);
        let mut symbols: FxHashSet<u32> = mentioned.into_iter().collect();
        let mut assertions: Vec<Bool> = connected_conjuncts(pc, &mut symbols)
            .into_iter()
            .map(|p| self.condition(&p.term, p.holds))
            .collect();
        assertions.push(self.condition(term, holds));
        let mut numbers: Vec<u32> = symbols.into_iter().collect();
        numbers.sort_unstable();
        match self.ask_worker(&assertions, &numbers, limit) {
            Reply::Sat(values) => Answer::Sat(worker::witness(&numbers, values)),
            Reply::Unsat => Answer::Unsat,
            Reply::Unknown(reason) => Answer::Unknown(reason),
            Reply::TimedOut => Answer::TimedOut,
            Reply::Interrupted => Answer::Interrupted,
        }
    }

    /// Asks the worker whether `assertions` hold together, and the values of the
    /// symbols `numbers` if they do.
    fn ask_worker(
        &mut self,
        assertions: &[Bool],
        numbers: &[u32],
        limit: Option<Duration>,
    ) -> Reply {
        let question = z3::Solver::new();
        for a in assertions {
            question.assert(a);
        }
        let names: Vec<String> = numbers
            .iter()
            .map(|&n| self.symbol(n).to_string())
            .collect();
        let deadline = limit.and_then(|l| Instant::now().checked_add(l));
        let user = self.user.as_deref();
        match &mut self.worker {
            Some(worker) => worker.ask(&question.to_string(), &names, deadline, user),
            None => Reply::Unknown("no solver process".to_string()),
        }
    }

    /// The values `terms` take together under the path condition: a quantifier-free
    /// formula over the slots `y0, y1, …` (one per term) that holds exactly for the
    /// tuples `(t0, t1, …)` of some model of the conjuncts connected to the terms'
    /// symbols (the others are satisfiable on their own and independent). `None` when
    /// a term or conjunct is nonlinear, a value outgrows 64 bits, or there are more
    /// than [`MAX_PROJECTED`] conjuncts, or Z3 cannot eliminate the symbols within `limit` (or before the
    /// interrupt flag is set, or while too many cut eliminations still run): no region
    /// only means less subsumption.
    ///
    /// Difference constraints are projected by their closure ([`difference`]), at
    /// once; other linear systems are first simplified exactly ([`linear`]), often down
    /// to the slots. Any other elimination runs in a thread with a Z3 context of its
    /// own ([`QeThread`]), its region kept only when a second procedure confirms it
    /// (`qe` can be wrong), never in the search's context, and is never interrupted: Z3
    /// 4.8.12's `qe` tactic can run for minutes on a few linear conjuncts (10 over 6
    /// symbols, `tests/projections.rs`), can answer later queries of the same context
    /// wrongly after it is interrupted (a model missing a constrained symbol), and can crash
    /// the process when interrupted beside other threads' Z3 work. So the search's
    /// context is interrupted only in solver checks (the watchdog is armed only around
    /// them, and clears its interrupts after them, [`Solver::run`]), and a cut `qe` is
    /// left to finish in its own thread.
    pub fn project(
        &mut self,
        pc: &Option<Arc<PcNode>>,
        terms: &[Term],
        limit: Option<Duration>,
    ) -> Option<Bool> {
        self.timed(|s| s.region(pc, terms, limit))
    }

    /// [`Solver::project`], untimed.
    fn region(
        &mut self,
        pc: &Option<Arc<PcNode>>,
        terms: &[Term],
        limit: Option<Duration>,
    ) -> Option<Bool> {
        if !terms.iter().all(Term::is_linear) {
            return None;
        }
        let mut in_terms = Vec::new();
        for t in terms {
            t.symbols(&mut in_terms);
        }
        let mut symbols: FxHashSet<u32> = in_terms.into_iter().collect();
        let projected = connected_conjuncts(pc, &mut symbols);
        let mut symbols: Vec<u32> = symbols.into_iter().collect();
        symbols.sort_unstable();
        if projected.len() > MAX_PROJECTED || !projected.iter().all(|p| p.term.is_linear()) {
            return None;
        }
        let question = projection_key(terms, &projected);
        if let Some(known) = self.projections.get(&question) {
            self.work += work::KNOWN_PROJECTION;
            return known.clone();
        }
        if let Some(closed) = difference::project(terms, &projected) {
            let region = difference_region(&closed);
            self.work += work::DIFFERENCE_PROJECTION;
            self.remember_nodes(&region);
            self.projections.insert(question, Some(region.clone()));
            return Some(region);
        }
        let ((region, stopped), eliminated) = match linear::project(terms, &projected) {
            Ok(linear::Projection::Empty) => {
                return Some(self.simplified(question, Bool::from_bool(false)));
            }
            Ok(linear::Projection::Cases { symbols, cases }) => {
                if symbols.is_empty() {
                    let cases: Vec<Bool> = (cases.iter())
                        .map(|case| {
                            let body: Vec<Bool> = case.iter().map(|c| self.constraint(c)).collect();
                            conjunction(&body)
                        })
                        .collect();
                    return Some(self.simplified(question, Bool::or(&cases)));
                }
                (self.eliminate_cases(&cases, limit), symbols.len())
            }
            Ok(linear::Projection::Exists {
                symbols,
                constraints,
            }) => {
                if symbols.is_empty() {
                    let body: Vec<Bool> = constraints.iter().map(|c| self.constraint(c)).collect();
                    return Some(self.simplified(question, conjunction(&body)));
                }
                (
                    self.eliminate_system(&constraints, &symbols, limit),
                    symbols.len(),
                )
            }
            // Values beyond 64 bits: `qe` ran out the time limit on each such question
            // ([`linear::Beyond::Overflow`]). No region only means less subsumption.
            Err(linear::Beyond::Overflow) => {
                self.work += work::LINEAR_PROJECTION;
                self.projections.insert(question, None);
                return None;
            }
            Err(linear::Beyond::Shape) => {
                let body = self.question(terms, &projected);
                (self.eliminate(body, &symbols, limit), symbols.len())
            }
        };
        // Eliminating quantifiers takes longer the more symbols it eliminates and the
        // larger the region it gives; Z3's own count of the work of `qe` and of the
        // confirmation counts where it is more.
        let nodes = region.as_ref().map_or(0, |r| self.remember_nodes(r));
        let counted = self.qe_thread.take_spent() / work::RESOURCES_PER_UNIT;
        self.work += (work::projection(eliminated) + work::PER_REGION_NODE * nodes).max(counted);
        if !stopped {
            self.projections.insert(question, region.clone());
        }
        region
    }

    /// Counts the nodes of a region made here, for charging the coverage checks that
    /// use it ([`Solver::covered`]).
    fn remember_nodes(&mut self, region: &Bool) -> u64 {
        *self
            .region_nodes
            .entry(region.clone())
            .or_insert_with(|| work::size(region, work::MAX_SIZE))
    }

    /// The conjuncts `projected` and the slot equations `y_i = terms[i]`: a projection's
    /// question before any symbol is eliminated.
    fn question(&mut self, terms: &[Term], projected: &[&PcNode]) -> Vec<Bool> {
        let mut body: Vec<Bool> = projected
            .iter()
            .map(|p| self.condition(&p.term, p.holds))
            .collect();
        for (i, t) in terms.iter().enumerate() {
            body.push(slot(i).eq(self.int_of(t)));
        }
        body
    }

    /// The region of a projection that [`linear`] simplified down to the slots,
    /// remembered for `question`.
    fn simplified(&mut self, question: Vec<u32>, region: Bool) -> Bool {
        self.work += work::LINEAR_PROJECTION;
        self.remember_nodes(&region);
        self.projections.insert(question, Some(region.clone()));
        region
    }

    /// `Σ k·v + c ≥ 0` (or `= 0`, or `m | Σ k·v + c`) over the slots and symbols.
    fn constraint(&mut self, c: &linear::Constraint) -> Bool {
        let sum = self.sum(&c.linear);
        // The constant on the right: `y0 ≥ 1` rather than `y0 + -1 ≥ 0` (negated as a
        // BigInt: -i64::MIN is no i64).
        let bound = int_const(&-BigInt::from(c.linear.constant));
        match c.relation {
            linear::Relation::Zero => sum.eq(bound),
            linear::Relation::NonNegative => sum.ge(bound),
            // `m | sum + constant`: the remainder of `sum` is that of `-constant`.
            linear::Relation::Multiple(m) => {
                let remainder = (-i128::from(c.linear.constant)).rem_euclid(i128::from(m));
                sum.modulo(Int::from_i64(m))
                    .eq(int_const(&BigInt::from(remainder)))
            }
        }
    }

    /// `Σ k·v` of a linear form, without its constant.
    fn sum(&mut self, linear: &linear::Linear) -> Int {
        let addends: Vec<Int> = linear
            .coefficients
            .iter()
            .map(|(&v, &k)| {
                let v = match v {
                    linear::Var::Slot(i) => slot(i),
                    linear::Var::Symbol(n) => self.symbol(n),
                };
                if k == 1 {
                    v
                } else {
                    Int::mul(&[Int::from_i64(k), v])
                }
            })
            .collect();
        match &addends[..] {
            [one] => one.clone(),
            _ => Int::add(&addends),
        }
    }

    /// The union of the cases' projections, each case eliminated by `qe` on its own,
    /// within one `limit` for all: `qe` spent the solver's whole 10 s limit on the
    /// union of sixteen cases that it eliminates one by one in milliseconds. A case
    /// without a region (unconfirmed, or cut by the limit) is left out: the region is
    /// then smaller than the projection, which only prunes less ([`Solver::project`]
    /// is used only for the configurations that cover others), and it is not
    /// remembered if a case was cut.
    fn eliminate_cases(
        &mut self,
        cases: &[Vec<linear::Constraint>],
        limit: Option<Duration>,
    ) -> (Option<Bool>, bool) {
        let deadline = limit.and_then(|l| Instant::now().checked_add(l));
        let (mut parts, mut stopped) = (Vec::new(), false);
        for case in cases {
            let symbols: BTreeSet<u32> = (case.iter())
                .flat_map(|c| c.linear.coefficients.keys())
                .filter_map(|v| match v {
                    linear::Var::Symbol(n) => Some(*n),
                    linear::Var::Slot(_) => None,
                })
                .collect();
            if symbols.is_empty() {
                let body: Vec<Bool> = case.iter().map(|c| self.constraint(c)).collect();
                parts.push(conjunction(&body));
                continue;
            }
            let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            let symbols: Vec<u32> = symbols.into_iter().collect();
            let (region, cut) = self.eliminate_system(case, &symbols, left);
            stopped |= cut;
            parts.extend(region);
            if cut {
                break;
            }
        }
        let region = match &parts[..] {
            [] => None,
            [one] => Some(one.clone()),
            all => Some(Bool::or(all)),
        };
        (region, stopped)
    }

    /// [`Solver::eliminate`] for a system [`linear`] simplified: a multiple over
    /// symbols, `m | L`, is asked as `L = m·k` with `k` bound beside them (Z3's `qe`
    /// gave no region for such a `mod` over a symbol that the equation projects).
    fn eliminate_system(
        &mut self,
        constraints: &[linear::Constraint],
        symbols: &[u32],
        limit: Option<Duration>,
    ) -> (Option<Bool>, bool) {
        let mut bound: Vec<Int> = symbols.iter().map(|&n| self.symbol(n)).collect();
        let mut body = Vec::with_capacity(constraints.len());
        for c in constraints {
            let over_symbols =
                (c.linear.coefficients.keys()).any(|v| matches!(v, linear::Var::Symbol(_)));
            match c.relation {
                linear::Relation::Multiple(m) if over_symbols => {
                    // sum + constant = m·k
                    let quotient = Int::new_const(format!("k{}", bound.len()));
                    let multiple = Int::mul(&[Int::from_i64(m), quotient.clone()]);
                    let constant = int_const(&BigInt::from(c.linear.constant));
                    body.push(Int::add(&[self.sum(&c.linear), constant]).eq(multiple));
                    bound.push(quotient);
                }
                _ => body.push(self.constraint(c)),
            }
        }
        self.eliminate_bound(body, &bound, limit)
    }

    /// The quantifier-free equivalent of `body` with `symbols` bound existentially,
    /// by Z3's `qe` ([`Solver::project`]), and whether it was stopped by its limit or
    /// the interrupt flag (then it is not remembered).
    fn eliminate(
        &mut self,
        body: Vec<Bool>,
        symbols: &[u32],
        limit: Option<Duration>,
    ) -> (Option<Bool>, bool) {
        let bound: Vec<Int> = symbols.iter().map(|&n| self.symbol(n)).collect();
        self.eliminate_bound(body, &bound, limit)
    }

    /// [`Solver::eliminate`] with the bound constants given.
    fn eliminate_bound(
        &mut self,
        body: Vec<Bool>,
        bound: &[Int],
        limit: Option<Duration>,
    ) -> (Option<Bool>, bool) {
        let bound: Vec<&dyn z3::ast::Ast> = bound.iter().map(|b| b as &dyn z3::ast::Ast).collect();
        let formula = z3::ast::exists_const(&bound, &[], &Bool::and(&body));
        let deadline = limit.and_then(|l| Instant::now().checked_add(l));
        match self
            .qe_thread
            .project(&formula, deadline, self.user.as_deref())
        {
            Ok(region) => (Some(region), false),
            Err(why) => (
                None,
                matches!(
                    why,
                    NoRegion::TimedOut | NoRegion::Interrupted | NoRegion::Busy
                ),
            ),
        }
    }

    /// Whether every tuple of values `terms` take under the path condition lies in one
    /// of `regions` (formulas over the slots, as [`Solver::project`] makes them).
    /// `false` when Z3 cannot tell within `limit` or is interrupted.
    pub fn covered(
        &mut self,
        pc: &Option<Arc<PcNode>>,
        terms: &[Term],
        regions: &[&Bool],
        limit: Option<Duration>,
    ) -> bool {
        self.timed(|s| s.within(pc, terms, regions, limit))
    }

    /// [`Solver::covered`], untimed.
    fn within(
        &mut self,
        pc: &Option<Arc<PcNode>>,
        terms: &[Term],
        regions: &[&Bool],
        limit: Option<Duration>,
    ) -> bool {
        if regions.iter().any(|r| r.as_bool() == Some(true)) {
            return true;
        }
        let nonlinear =
            pc.as_ref().is_some_and(|p| p.nonlinear) || !terms.iter().all(Term::is_linear);
        // Charged by kind: a nonlinear one at twice a nonlinear query; a linear one
        // by the size of the regions it compares with.
        self.work += if nonlinear {
            work::NONLINEAR_COVERAGE
        } else {
            let nodes: u64 = regions
                .iter()
                .map(|r| self.region_nodes.get(*r).copied().unwrap_or(0))
                .sum();
            work::COVERAGE + nodes / work::REGION_NODES_PER_UNIT
        };
        if self.worker.is_some() && nonlinear {
            // Conjuncts not connected to the terms do not restrict their values.
            let mut symbols = FxHashSet::default();
            for t in terms {
                let mut mentioned = Vec::new();
                t.symbols(&mut mentioned);
                symbols.extend(mentioned);
            }
            let mut assertions: Vec<Bool> = connected_conjuncts(pc, &mut symbols)
                .into_iter()
                .map(|p| self.condition(&p.term, p.holds))
                .collect();
            for (i, t) in terms.iter().enumerate() {
                assertions.push(slot(i).eq(self.int_of(t)));
            }
            let inside: Vec<Bool> = regions.iter().map(|r| (*r).clone()).collect();
            assertions.push(Bool::or(&inside).not());
            return self.ask_worker(&assertions, &[], limit) == Reply::Unsat;
        }
        if self.ints.len() + self.bools.len() > MAX_TRANSLATED {
            // Coverage checks translate the terms of every client turn they compare,
            // and the caches keep them alive; translating again is cheap.
            self.ints.clear();
            self.bools.clear();
        }
        self.sync(pc);
        self.live().z3.push();
        for (i, t) in terms.iter().enumerate() {
            let value = self.int_of(t);
            self.live().z3.assert(slot(i).eq(value));
        }
        let inside: Vec<Bool> = regions.iter().map(|r| (*r).clone()).collect();
        self.live().z3.assert(Bool::or(&inside).not());
        let (result, _) = self.run(limit);
        self.live().z3.pop(1);
        result == SatResult::Unsat
    }

    /// Checks the solver's assertions under the watchdog: the result, and whether
    /// the watchdog cut the check short.
    fn run(&mut self, limit: Option<Duration>) -> (SatResult, Option<Cut>) {
        // Once interrupted, a check would only start to be cut short: a turn of the
        // over-approximation asks hundreds, and the watchdog needs a few milliseconds
        // for each (an interrupt that lands before Z3's check starts is lost).
        if self
            .user
            .as_ref()
            .is_some_and(|f| f.load(Ordering::Relaxed))
        {
            return (SatResult::Unknown, Some(Cut::Interrupted));
        }
        let live = self.live();
        live.watchdog.arm(limit);
        let result = live.z3.check();
        let cut = live.watchdog.disarm();
        if cut.is_some() {
            self.clear_interrupt();
        }
        (result, cut)
    }

    /// An interrupt that lands while no check runs (just before or after the one the
    /// watchdog cuts short) leaves Z3 4.8.12's context marked cancelled until an SMT
    /// check starts, which clears the mark: a quantifier elimination run before then
    /// would be interrupted. An empty check clears it at once.
    fn clear_interrupt(&mut self) {
        let blank = self.blank.get_or_insert_with(|| {
            let blank = z3::Solver::new();
            blank.set_params(&no_ctrl_c());
            // Pushed, so that its checks go to the SMT core, which clears interrupts.
            blank.push();
            blank
        });
        blank.check();
    }

    /// Lets Ctrl-C (or any other setter of `flag`) cut a running query short: within
    /// [`USER_POLL`] of the flag being set, the query is interrupted (repeatedly, until
    /// Z3 stops), and so is every later query at its start.
    pub fn interrupt_on(&mut self, flag: Arc<AtomicBool>) {
        self.user = Some(Arc::clone(&flag));
        if let Some(live) = &self.live {
            live.watchdog.lock().user = Some(flag);
        }
    }

    /// The Z3 solver and its watchdog, made now if not yet.
    fn live(&mut self) -> &mut Live {
        // Called several times per query: the flag is cloned only when the solver is made.
        let user = &self.user;
        self.live.get_or_insert_with(|| {
            let z3 = z3::Solver::new();
            z3.set_params(&no_ctrl_c());
            let watchdog = Watchdog::start(ContextPtr(z3.get_context().get_z3_context()));
            watchdog.lock().user = user.clone();
            Live { watchdog, z3 }
        })
    }

    fn symbol(&mut self, n: u32) -> Int {
        while self.symbols.len() <= n as usize {
            self.symbols.push(symbol(self.symbols.len() as u32));
        }
        self.symbols[n as usize].clone()
    }

    /// Makes the solver's assertions exactly the conjuncts of `pc`.
    fn sync(&mut self, pc: &Option<Arc<PcNode>>) {
        let mut chain = Vec::new();
        let mut node = pc.as_ref();
        while let Some(n) = node {
            chain.push(n);
            node = n.parent.as_ref();
        }
        chain.reverse();
        let common = self
            .asserted
            .iter()
            .zip(&chain)
            .take_while(|(a, b)| Arc::ptr_eq(a, b))
            .count();
        let extra = self.asserted.len() - common;
        if extra > 0 {
            self.live().z3.pop(extra as u32);
            self.asserted.truncate(common);
        }
        for node in &chain[common..] {
            let cond = self.condition(&node.term, node.holds);
            self.live().z3.push();
            self.live().z3.assert(&cond);
            self.asserted.push(Arc::clone(node));
        }
    }

    fn condition(&mut self, term: &Term, holds: bool) -> Bool {
        let b = self.bool_of(term);
        if holds {
            b
        } else {
            b.not()
        }
    }

    /// `term ≠ 0`, with comparisons and logic translated to Z3 booleans directly.
    pub fn bool_of(&mut self, term: &Term) -> Bool {
        let node = match term {
            Term::Const(c) => return Bool::from_bool(c.sign() != num_bigint::Sign::NoSign),
            Term::Node(node) => node,
        };
        if let Some((_, b)) = self.bools.get(&Arc::as_ptr(node)) {
            return b.clone();
        }
        let b = match &**node {
            Node::Bin(op, a, c) => match op {
                BinOp::Lt => self.int_of(a).lt(self.int_of(c)),
                BinOp::Gt => self.int_of(a).gt(self.int_of(c)),
                BinOp::Le => self.int_of(a).le(self.int_of(c)),
                BinOp::Ge => self.int_of(a).ge(self.int_of(c)),
                BinOp::Eq => self.int_of(a).eq(self.int_of(c)),
                BinOp::And => Bool::and(&[self.bool_of(a), self.bool_of(c)]),
                BinOp::Or => Bool::or(&[self.bool_of(a), self.bool_of(c)]),
                _ => self.int_of(term).eq(Int::from_i64(0)).not(),
            },
            Node::Not(a) => self.bool_of(a).not(),
            Node::Sym(_) => self.int_of(term).eq(Int::from_i64(0)).not(),
        };
        self.bools
            .insert(Arc::as_ptr(node), (Arc::clone(node), b.clone()));
        b
    }

    /// The integer a term denotes; must agree with `ops::apply` (tested below).
    pub fn int_of(&mut self, term: &Term) -> Int {
        let node = match term {
            Term::Const(c) => return int_const(c),
            Term::Node(node) => node,
        };
        if let Some((_, i)) = self.ints.get(&Arc::as_ptr(node)) {
            return i.clone();
        }
        let one = Int::from_i64(1);
        let zero = Int::from_i64(0);
        let i = match &**node {
            Node::Sym(n) => self.symbol(*n),
            Node::Not(_) => self.bool_of(term).ite(&one, &zero),
            Node::Bin(op, a, b) => match op {
                BinOp::Add => Int::add(&[self.int_of(a), self.int_of(b)]),
                BinOp::Sub => Int::sub(&[self.int_of(a), self.int_of(b)]),
                BinOp::Mul => Int::mul(&[self.int_of(a), self.int_of(b)]),
                BinOp::Div => {
                    let (x, y) = (self.int_of(a), self.int_of(b));
                    truncating_div(&x, &y)
                }
                BinOp::Mod => {
                    // The remainder of the truncating division: x - y * (x / y).
                    let (x, y) = (self.int_of(a), self.int_of(b));
                    Int::sub(&[&x, &Int::mul(&[&y, &truncating_div(&x, &y)])])
                }
                _ => self.bool_of(term).ite(&one, &zero),
            },
        };
        self.ints
            .insert(Arc::as_ptr(node), (Arc::clone(node), i.clone()));
        i
    }
}

/// HOLi's `x / y`, truncating toward zero. Z3's `div` rounds so that the remainder is
/// non-negative: x / y = sign(x) * (|x| div y) with |x| = ±x.
fn truncating_div(x: &Int, y: &Int) -> Int {
    let zero = Int::from_i64(0);
    let positive = x.div(y);
    let negative = x.unary_minus().div(y).unary_minus();
    x.ge(&zero).ite(&positive, &negative)
}

fn symbol(n: u32) -> Int {
    Int::new_const(format!("s{n}"))
}

/// The question of a projection, encoded ([`Term::encode_into`]) with symbols numbered
/// in order of appearance.
fn projection_key(terms: &[Term], projected: &[&PcNode]) -> Vec<u32> {
    let names = std::cell::RefCell::new(FxHashMap::default());
    let name = |n: u32| {
        let mut names = names.borrow_mut();
        let next = names.len() as u32;
        *names.entry(n).or_insert(next)
    };
    let mut out = vec![terms.len() as u32];
    for t in terms {
        t.encode_into(&name, &mut out);
    }
    for p in projected {
        out.push(u32::from(p.holds));
        p.term.encode_into(&name, &mut out);
    }
    out
}

/// Terms kept translated at most (each keeps its term and its Z3 expression alive).
const MAX_TRANSLATED: usize = 1 << 20;

/// Conjuncts a projection takes at most.
const MAX_PROJECTED: usize = 64;

/// The i-th value of a tuple in a projection.
fn slot(i: usize) -> Int {
    Int::new_const(format!("y{i}"))
}

/// The conjunction of `conjuncts`, spelled `true` when there are none: coverage sees
/// at once that such a region holds everywhere.
fn conjunction(conjuncts: &[Bool]) -> Bool {
    match conjuncts {
        [] => Bool::from_bool(true),
        [one] => one.clone(),
        all => Bool::and(all),
    }
}

/// The region of a projection of difference constraints, over the slots.
fn difference_region(region: &difference::Region) -> Bool {
    let bounds = match region {
        difference::Region::Empty => return Bool::from_bool(false),
        difference::Region::Within(bounds) => bounds,
    };
    if bounds.is_empty() {
        // Spelled out, so that coverage sees at once that it holds everywhere.
        return Bool::from_bool(true);
    }
    let var = |v: Option<usize>| v.map_or_else(|| Int::from_i64(0), slot);
    let conjuncts: Vec<Bool> = bounds
        .iter()
        .map(|&(a, b, c)| Int::sub(&[var(a), var(b)]).le(Int::from_i64(c)))
        .collect();
    Bool::and(&conjuncts)
}

/// The value of `x` when it simplifies to a numeral that fits an `i64`. Where a limit
/// interrupted the context, Z3's `simplify` gives no term (on which the z3 crate's own
/// `simplify` panics): then `None`, as for a term that is no numeral.
pub(crate) fn numeral(x: &Int) -> Option<i64> {
    use z3::ast::Ast;
    let ctx = x.get_ctx();
    // SAFETY: both pointers come from live objects of one context; a null result is
    // checked before it is wrapped, and `wrap` takes its own reference.
    let simple = unsafe { z3_sys::Z3_simplify(ctx.get_z3_context(), x.get_z3_ast()) }?;
    // SAFETY: `simple` is a term of `ctx` that Z3 just returned.
    unsafe { Int::wrap(ctx, simple) }.as_i64()
}

pub(crate) fn int_const(c: &BigInt) -> Int {
    match i64::try_from(c) {
        Ok(small) => Int::from_i64(small),
        Err(_) => Int::from_str(&c.to_string()).expect("a BigInt prints as a Z3 numeral"),
    }
}

/// A solver's Z3 solver, with the watchdog that cuts its queries short.
struct Live {
    /// First, so that it is dropped (its thread joined) before the Z3 solver.
    watchdog: Watchdog,
    z3: z3::Solver,
}

/// Why the watchdog cut a query short.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cut {
    TimedOut,
    Interrupted,
}

/// The Z3 context of the searching thread, for interrupting it from the watchdog.
struct ContextPtr(z3_sys::Z3_context);

// SAFETY: on another thread the pointer is only ever passed to `Z3_interrupt`, which Z3
// documents as the way to stop a computation from another thread (an `Alarm` uses it
// on its owner's thread too, once its own thread is joined, to clear the mark). The context outlives the watchdog:
// `Live` declares its watchdog first, so the watchdog's thread is joined before the
// Z3 solver (which holds the context) is dropped.
unsafe impl Send for ContextPtr {}

/// A query in progress.
struct Running {
    /// When it must stop; `None` for no limit of its own (or one past any `Instant`).
    deadline: Option<Instant>,
    /// Why the watchdog is cutting it short, once it is.
    cut: Option<Cut>,
}

#[derive(Default)]
struct Watch {
    running: Option<Running>,
    /// Set by the user (Ctrl-C) to stop the search.
    user: Option<Arc<AtomicBool>>,
    stop: bool,
}

/// Stops a Z3 query that outlives its limit or that the user interrupts. Z3 4.8's own
/// `timeout` parameter is not honoured by every decision procedure (nonlinear integer
/// arithmetic can ignore it for minutes), while `Z3_interrupt` is. But an interrupt
/// only reaches a check that is under way: one that lands just before Z3 starts the
/// check, or while a phase of it does not listen, is lost. So once a query must stop,
/// the watchdog interrupts it again every [`REPEAT`] until the query is over.
///
/// It interrupts only while a query is armed, holding the lock that [`Watchdog::disarm`]
/// takes: once `disarm` returns, no interrupt is under way or to come, so nothing but
/// the armed solver checks is ever interrupted (quantifier elimination must not be).
struct Watchdog {
    shared: Arc<(Mutex<Watch>, Condvar)>,
    thread: Option<JoinHandle<()>>,
}

/// Interrupts every check of a Z3 context, from the moment a deadline passes or a flag
/// is set, until dropped: for the proof checker, which stops at its first cut check and
/// so needs no arming per query (arming costs a wake-up of the watchdog per query, 11 ms
/// on the proof attempt of a small library).
pub struct Alarm {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    ctx: ContextPtr,
    /// Whether it interrupted the context at least once.
    rung: Arc<AtomicBool>,
}

impl Alarm {
    /// An alarm for the checks of `solver`, whose context must outlive it (declare it
    /// before the solver).
    pub fn new(
        solver: &z3::Solver,
        deadline: Option<Instant>,
        user: Option<Arc<AtomicBool>>,
    ) -> Alarm {
        let ctx = ContextPtr(solver.get_context().get_z3_context());
        let own = ContextPtr(ctx.0);
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        let rung = Arc::new(AtomicBool::new(false));
        let ringing = Arc::clone(&rung);
        // Without a thread no check is cut short, but every answer is still sound.
        let thread = std::thread::Builder::new()
            .name("holi-z3-alarm".to_string())
            .spawn(move || {
                let ctx = ctx;
                while !stopped.load(Ordering::Relaxed) {
                    let now = Instant::now();
                    let rung = user.as_ref().is_some_and(|f| f.load(Ordering::Relaxed))
                        || deadline.is_some_and(|d| now >= d);
                    let nap = if rung {
                        ringing.store(true, Ordering::Relaxed);
                        // SAFETY: see `ContextPtr`; the context outlives the alarm, and an
                        // interrupt between checks only cuts the next one, which the
                        // checker is about to refuse anyway; the mark it may leave on the
                        // context is cleared when the alarm is dropped.
                        unsafe { z3_sys::Z3_interrupt(ctx.0) };
                        REPEAT
                    } else {
                        deadline.map_or(USER_POLL, |d| {
                            d.saturating_duration_since(now).min(USER_POLL)
                        })
                    };
                    std::thread::park_timeout(nap);
                }
            })
            .ok();
        Alarm {
            stop,
            thread,
            ctx: own,
            rung,
        }
    }
}

impl Drop for Alarm {
    /// Stops the alarm; if it rang, clears the mark its last interrupts may have left on
    /// the context. Z3 4.8.12 keeps an interrupt that lands between checks until an SMT
    /// check starts, and meanwhile a later solver of the context drops what it is told
    /// under a push: `x ≤ 100` and `x ≥ 101` came back satisfiable, and a check of several
    /// files showed the next file's counterexample with values that do not replay.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            thread.thread().unpark();
            let _ = thread.join();
        }
        if self.rung.load(Ordering::Relaxed) {
            clear_mark(&self.ctx);
        }
    }
}

/// Clears an interrupt's mark on `ctx` with an empty check that reaches the SMT core
/// (a pushed, empty solver's), as [`Solver::clear_interrupt`] does for its own context.
fn clear_mark(ctx: &ContextPtr) {
    let c = ctx.0;
    // SAFETY: the context outlives the alarm (see `Alarm::new`) and no interrupt is to
    // come (its thread is joined); the solver and parameters made here are counted and
    // released here, on the thread that uses the context.
    unsafe {
        let Some(solver) = z3_sys::Z3_mk_solver(c) else {
            return;
        };
        z3_sys::Z3_solver_inc_ref(c, solver);
        if let Some(params) = z3_sys::Z3_mk_params(c) {
            z3_sys::Z3_params_inc_ref(c, params);
            if let Some(key) = z3_sys::Z3_mk_string_symbol(c, c"ctrl_c".as_ptr()) {
                z3_sys::Z3_params_set_bool(c, params, key, false);
                z3_sys::Z3_solver_set_params(c, solver, params);
            }
            z3_sys::Z3_params_dec_ref(c, params);
        }
        z3_sys::Z3_solver_push(c, solver);
        z3_sys::Z3_solver_check(c, solver);
        z3_sys::Z3_solver_dec_ref(c, solver);
    }
}

/// How often a running query looks at the user's interrupt flag.
const USER_POLL: Duration = Duration::from_millis(20);

/// How often a query that must stop is interrupted again.
const REPEAT: Duration = Duration::from_millis(5);

impl Watchdog {
    fn start(ctx: ContextPtr) -> Watchdog {
        let shared = Arc::new((Mutex::new(Watch::default()), Condvar::new()));
        let watched = Arc::clone(&shared);
        // Without a thread no query can be cut short, but every answer is still sound.
        let thread = std::thread::Builder::new()
            .name("holi-z3-watchdog".to_string())
            .spawn(move || watch(&ctx, &watched))
            .ok();
        Watchdog { shared, thread }
    }

    fn lock(&self) -> MutexGuard<'_, Watch> {
        self.shared.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A query starts; with no limit it runs until done or interrupted by the user.
    fn arm(&self, limit: Option<Duration>) {
        let deadline = limit.and_then(|l| Instant::now().checked_add(l));
        self.lock().running = Some(Running {
            deadline,
            cut: None,
        });
        self.shared.1.notify_one();
    }

    /// The query is over; says whether the watchdog cut it short, and why.
    fn disarm(&self) -> Option<Cut> {
        self.lock().running.take().and_then(|r| r.cut)
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.lock().stop = true;
        self.shared.1.notify_one();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn watch(ctx: &ContextPtr, shared: &(Mutex<Watch>, Condvar)) {
    let (lock, wake) = shared;
    let mut w = lock.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        if w.stop {
            return;
        }
        let user = w.user.as_ref().is_some_and(|f| f.load(Ordering::Relaxed));
        let Some(running) = &mut w.running else {
            w = wake.wait(w).unwrap_or_else(|e| e.into_inner());
            continue;
        };
        let now = Instant::now();
        if running.cut.is_none() {
            if user {
                running.cut = Some(Cut::Interrupted);
            } else if running.deadline.is_some_and(|d| now >= d) {
                running.cut = Some(Cut::TimedOut);
            }
        }
        let nap = if running.cut.is_some() {
            // SAFETY: see `ContextPtr`. The lock is held, so the query is still armed:
            // the searching thread is in, or just before or after, `Z3_solver_check`,
            // where an interrupt stops only that check.
            unsafe { z3_sys::Z3_interrupt(ctx.0) };
            REPEAT
        } else {
            running.deadline.map_or(USER_POLL, |d| {
                d.saturating_duration_since(now).min(USER_POLL)
            })
        };
        w = wake
            .wait_timeout(w, nap)
            .map(|(g, _)| g)
            .unwrap_or_else(|e| e.into_inner().0);
    }
}

/// What a search's work costs, in units of about a microsecond, as measured on HOLiK's
/// 70 libraries at k 4, l 2 and k 5, l 3 ([calibration]): a configuration 1–10 µs,
/// about 1.6 µs plus 0.13 µs per conjunct of its path condition, and up to about a
/// microsecond more in the whole search, which gives each client turn a shape for
/// semantic subsumption and keeps it in the memo; a linear query 0.1 ms on average; a
/// nonlinear one (answered in the child process under `holi check`) 5–20 ms, and a
/// coverage check whose terms or path condition are nonlinear 11–20 ms (random
/// libraries s1, s19); a linear coverage check 0.05–0.35 ms, 0.12 ms on average, about
/// 0.5 µs more per node of the regions it compares with; a projection 1–2 ms whatever
/// the size of the regions met (up to a few hundred nodes), a node more counted as a
/// guard against the regions of thousands of nodes that took up to a second. No kind of work may be much dearer per unit than
/// another: the race ([`super::race`]) waits until every side reaches the winner's
/// count. They are counts and sizes, not times: the same search charges the same
/// work on any machine.
///
/// [calibration]: ../../../benchmark/results/2026-11-27-race-calibration/README.md
pub mod work {
    use z3::ast::Ast;

    pub const CONFIGURATION: u64 = 2;
    pub const CONJUNCTS_PER_UNIT: u64 = 8;
    /// An opponent configuration's shape for semantic subsumption, and its region
    /// entered in the memo.
    pub const SHAPE: u64 = 1;
    pub const QUERY: u64 = 128;
    pub const NONLINEAR: u64 = 8192;
    pub const COVERAGE: u64 = 128;
    /// A nonlinear coverage check asserts the regions beside the path condition in the
    /// solver process: 11–20 ms each on the random libraries s1 and s19, against a
    /// nonlinear query's 10–13 ms.
    pub const NONLINEAR_COVERAGE: u64 = 16384;
    /// A linear coverage check's time grows by about 0.5 µs per node of the regions
    /// it compares with (random library s39: 0.26 ms with regions of 300 nodes).
    pub const REGION_NODES_PER_UNIT: u64 = 2;
    pub const KNOWN_PROJECTION: u64 = 16;
    /// A projection of difference constraints ([`super::difference`]): a closure of a
    /// few dozen variables, cheaper than a solver query.
    pub const DIFFERENCE_PROJECTION: u64 = 64;
    /// A projection [`super::linear`] simplifies down to the slots: linear forms of a
    /// few dozen terms, like a difference projection.
    pub const LINEAR_PROJECTION: u64 = 64;
    pub const PROJECTION: u64 = 1536;
    /// Symbols `qe` eliminates at [`PROJECTION`]'s cost; two more double it.
    pub const FLAT_SYMBOLS: usize = 8;
    pub const PER_REGION_NODE: u64 = 8;
    /// Z3's resource count (`rlimit`) per unit, as a projection and its confirmation
    /// spend it: 100,000 in 50–66 ms on random s31's regions with division.
    pub const RESOURCES_PER_UNIT: u64 = 2;
    /// Sizes are counted no further: a region that large is dear enough.
    pub const MAX_SIZE: u64 = 1 << 16;

    /// A configuration's own work (stepping it, its memo key, its moves): it grows
    /// with its path condition, whose conjuncts are rendered, evaluated and compared.
    pub fn configuration(pc: &Option<std::sync::Arc<crate::symbolic::config::PcNode>>) -> u64 {
        CONFIGURATION + u64::from(pc.as_ref().map_or(0, |p| p.depth)) / CONJUNCTS_PER_UNIT
    }

    /// A projection by `qe` eliminating `symbols` symbols. Its time is flat up to
    /// about [`FLAT_SYMBOLS`] of them and then roughly doubles with every two more: on
    /// 774 questions from the HOLiK grid, a median of 1–2.3 ms with up to 9 symbols,
    /// 4–17 ms with 10–15, 60–330 ms with 16–23 (various_safe k5 l2's side with
    /// semantic subsumption, charged 2 ms for each, kept the race waiting 5× as long
    /// as the winner took alone).
    pub fn projection(symbols: usize) -> u64 {
        let doublings = symbols.saturating_sub(FLAT_SYMBOLS) / 2;
        PROJECTION << doublings.min(24)
    }

    /// The nodes of `formula` as a tree, counted up to `cap`.
    pub fn size(formula: &impl Ast, cap: u64) -> u64 {
        let mut count = 0;
        let mut todo = vec![formula.children()];
        while let Some(children) = todo.pop() {
            for child in children {
                count += 1;
                if count >= cap {
                    return cap;
                }
                todo.push(child.children());
            }
        }
        count + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops;
    use proptest::prelude::*;

    /// Pins the symbols to concrete values and asks Z3 for the value of the term.
    fn z3_value(solver: &mut Solver, term: &Term, pins: &[(u32, i64)]) -> BigInt {
        let z = z3::Solver::new();
        for &(n, v) in pins {
            z.assert(symbol(n).eq(Int::from_i64(v)));
        }
        let result = Int::new_const("result");
        z.assert(result.eq(solver.int_of(term)));
        assert_eq!(z.check(), SatResult::Sat);
        let model = z.get_model().unwrap();
        worker::to_bigint(&model.eval(&result, true).unwrap()).unwrap()
    }

    #[test]
    fn a_rung_alarm_leaves_its_context_fit_for_the_next_solver() {
        crate::symbolic::context::in_own(|| {
            let mut wrong = Vec::new();
            for round in 0..40 {
                let first = z3::Solver::new();
                let alarm = Alarm::new(&first, Some(Instant::now()), None);
                // Rung: it interrupts the context every few milliseconds, between checks
                // too, until it is dropped.
                std::thread::sleep(Duration::from_millis(7 + round % 5));
                drop(alarm);
                drop(first);
                let next = z3::Solver::new();
                let x = Int::new_const("x");
                next.push();
                next.assert(x.le(Int::from_i64(100)));
                next.push();
                next.assert(x.ge(Int::from_i64(101)));
                let answer = next.check();
                if answer != SatResult::Unsat {
                    wrong.push((round, answer));
                }
            }
            assert!(wrong.is_empty(), "{wrong:?}");
        });
    }

    #[test]
    fn a_projection_doubles_in_cost_with_every_two_symbols_past_the_flat_part() {
        assert_eq!(work::projection(0), work::PROJECTION);
        assert_eq!(work::projection(9), work::PROJECTION);
        assert_eq!(work::projection(10), 2 * work::PROJECTION);
        assert_eq!(work::projection(16), 16 * work::PROJECTION);
        assert_eq!(work::projection(usize::MAX), work::PROJECTION << 24);
    }

    proptest! {
        #[test]
        fn z3_encoding_agrees_with_ops(a in -50i64..50, b in -50i64..50, op in 0usize..BinOp::ALL.len()) {
            let op = BinOp::ALL[op];
            let mut solver = Solver::new();
            let (x, y) = (Term::sym(1), Term::sym(2));
            let term = Term::binary(op, &x, &y).unwrap();
            let expected = ops::apply(op, &BigInt::from(a), &BigInt::from(b));
            prop_assume!(expected.is_ok());
            let got = z3_value(&mut solver, &term, &[(1, a), (2, b)]);
            prop_assert_eq!(got, expected.unwrap());
            let negated = Term::not(&term);
            let got = z3_value(&mut solver, &negated, &[(1, a), (2, b)]);
            prop_assert_eq!(got, ops::not(&expected_value(op, a, b)));
        }
    }

    fn expected_value(op: BinOp, a: i64, b: i64) -> BigInt {
        ops::apply(op, &BigInt::from(a), &BigInt::from(b)).unwrap()
    }

    #[test]
    fn big_and_negative_numerals_round_trip() {
        let big = BigInt::from_str("-123456789012345678901234567890").unwrap();
        let z = z3::Solver::new();
        let x = Int::new_const("x");
        z.assert(x.eq(int_const(&big)));
        assert_eq!(z.check(), SatResult::Sat);
        let value = z.get_model().unwrap().eval(&x, true).unwrap();
        assert_eq!(worker::to_bigint(&value), Some(big));
    }

    fn conjunct(term: Term, parent: Option<Arc<PcNode>>) -> Option<Arc<PcNode>> {
        let mut own_symbols = Vec::new();
        term.symbols(&mut own_symbols);
        let nonlinear = !term.is_linear() || parent.as_ref().is_some_and(|p| p.nonlinear);
        Some(Arc::new(PcNode {
            term,
            holds: true,
            depth: parent.as_ref().map_or(1, |p| p.depth + 1),
            symbols: Default::default(),
            own_symbols,
            nonlinear,
            parent,
        }))
    }

    fn bin(op: BinOp, a: &Term, b: &Term) -> Term {
        Term::binary(op, a, b).unwrap()
    }

    fn int(n: i64) -> Term {
        Term::Const(BigInt::from(n))
    }

    #[test]
    fn a_projection_key_tells_its_terms_from_its_conjuncts() {
        // Without the count of terms, the constant 2 (tag 0, then 2 and 0) would read
        // as a conjunct `x0 = 0` (flag 0, then the symbol's tag 2 and index 0).
        let x1 = Term::sym(1);
        let false_x1 = PcNode {
            term: x1.clone(),
            holds: false,
            depth: 1,
            symbols: Default::default(),
            own_symbols: vec![1],
            nonlinear: false,
            parent: None,
        };
        let terms_only = projection_key(&[x1.clone(), int(2)], &[]);
        let with_conjunct = projection_key(&[x1], &[&false_x1]);
        assert_eq!(terms_only[1..], with_conjunct[1..]);
        assert_ne!(terms_only, with_conjunct);
    }

    #[test]
    fn projection_is_the_set_of_values_the_terms_take() {
        let mut solver = Solver::new();
        let (x1, x2) = (Term::sym(1), Term::sym(2));
        // balance = 100 - x1 after `if not (100 < x1)`: every non-negative number.
        let one = conjunct(bin(BinOp::Le, &x1, &int(100)), None);
        let balance = bin(BinOp::Sub, &int(100), &x1);
        let region = solver
            .project(&one, std::slice::from_ref(&balance), None)
            .unwrap();
        let z = z3::Solver::new();
        z.assert(region.iff(slot(0).ge(Int::from_i64(0))).not());
        assert_eq!(z.check(), SatResult::Unsat, "region {region}");
        // A second withdrawal within the balance stays inside it…
        let two = conjunct(bin(BinOp::Le, &x2, &balance), one.clone());
        let again = bin(BinOp::Sub, &balance, &x2);
        assert!(solver.covered(&two, std::slice::from_ref(&again), &[&region], None));
        // …but not an unchecked one, nor a pair of values the region does not relate.
        assert!(!solver.covered(&one, &[bin(BinOp::Sub, &balance, &x2)], &[&region], None));
        let pair = solver
            .project(&one, &[balance.clone(), x1.clone()], None)
            .unwrap();
        assert!(!solver.covered(&two, &[again, x2.clone()], &[&pair], None));
        // The same question up to renaming is answered once.
        assert_eq!(solver.projections.len(), 2);
        let renamed = conjunct(bin(BinOp::Le, &x2, &int(100)), None);
        solver.project(&renamed, &[bin(BinOp::Sub, &int(100), &x2)], None);
        assert_eq!(solver.projections.len(), 2);
    }

    /// The shape of a wide library's question: values doubled by two writes, each
    /// tested against a constant (`assert (not (!r == 9999))`). Every case of its
    /// disequalities keeps symbols for `qe`, which takes each case on its own; the
    /// union is the projection of the whole question.
    #[test]
    fn disequalities_with_symbols_left_project_case_by_case_to_the_whole_region() {
        let mut solver = Solver::new();
        let s = |n: u32| Term::sym(n);
        let times = |k: i64, t: &Term| bin(BinOp::Mul, &int(k), t);
        let sum = bin(BinOp::Add, &times(2, &s(1)), &times(3, &s(2)));
        let (a, b) = (
            bin(BinOp::Add, &sum, &int(1)),
            bin(BinOp::Add, &sum, &times(3, &s(3))),
        );
        let mut pc = conjunct(bin(BinOp::Ge, &s(1), &int(3)), None);
        pc = conjunct(bin(BinOp::Le, &s(3), &s(2)), pc);
        for (t, c) in [(&a, 21), (&b, 40), (&s(2), 7)] {
            pc = conjunct(bin(BinOp::Eq, t, &int(c)), pc);
            if let Some(node) = pc.as_mut().and_then(Arc::get_mut) {
                node.holds = false;
            }
        }
        let terms = vec![a, b];
        let projected = conjuncts_of(&pc);
        let Ok(linear::Projection::Cases { symbols, cases }) = linear::project(&terms, &projected)
        else {
            panic!("three disequalities read each way");
        };
        assert!(!symbols.is_empty() && cases.len() > 1);
        let region = solver.project(&pc, &terms, None).expect("a region");
        // The whole question, quantified, decided by `qsat` (Z3's `qe` does not
        // eliminate it within its limit).
        let bound: Vec<Int> = (1..=3).map(|n| solver.symbol(n)).collect();
        let bound: Vec<&dyn z3::ast::Ast> = bound.iter().map(|b| b as &dyn z3::ast::Ast).collect();
        let body = solver.question(&terms, &projected);
        let whole = z3::ast::exists_const(&bound, &[], &Bool::and(&body));
        let z = z3::Tactic::new("qsat").solver();
        z.assert(region.iff(&whole).not());
        assert_eq!(z.check(), SatResult::Unsat, "{region}");
    }

    #[test]
    fn a_coverage_check_is_charged_by_the_nodes_of_its_regions_or_as_nonlinear() {
        let mut solver = Solver::new();
        let (x1, x2) = (Term::sym(1), Term::sym(2));
        let one = conjunct(bin(BinOp::Le, &x1, &int(100)), None);
        let balance = bin(BinOp::Sub, &int(100), &x1);
        let pair = [balance.clone(), x1.clone()];
        let region = solver.project(&one, &pair, None).unwrap();
        let nodes = work::size(&region, work::MAX_SIZE);
        assert!(nodes >= 2 * work::REGION_NODES_PER_UNIT, "region {region}");
        let two = conjunct(bin(BinOp::Le, &x2, &balance), one.clone());
        let terms = [bin(BinOp::Sub, &balance, &x2), x2.clone()];
        let before = solver.work;
        solver.covered(&two, &terms, &[&region, &region], None);
        assert_eq!(
            solver.work - before,
            work::COVERAGE + 2 * nodes / work::REGION_NODES_PER_UNIT
        );
        // A formula the solver did not make as a region costs the check alone.
        let foreign = slot(0).ge(Int::from_i64(0));
        let before = solver.work;
        solver.covered(&two, &terms[..1], &[&foreign], None);
        assert_eq!(solver.work - before, work::COVERAGE);
        // A nonlinear one is charged as such, whatever its regions.
        let square = [bin(BinOp::Mul, &x2, &x2)];
        let before = solver.work;
        solver.covered(&two, &square, &[&foreign], None);
        assert_eq!(solver.work - before, work::NONLINEAR_COVERAGE);
    }

    #[test]
    fn unconstrained_symbols_cover_everything_and_nonlinear_terms_are_not_projected() {
        let mut solver = Solver::new();
        let (x1, x2) = (Term::sym(1), Term::sym(2));
        let all = solver
            .project(&None, &[x1.clone(), x2.clone()], None)
            .unwrap();
        assert_eq!(all.as_bool(), Some(true));
        // The same symbol twice: the values are equal, not every pair.
        let diagonal = solver
            .project(&None, &[x1.clone(), x1.clone()], None)
            .unwrap();
        assert_ne!(diagonal.as_bool(), Some(true));
        assert!(solver
            .project(&None, &[bin(BinOp::Mul, &x1, &x2)], None)
            .is_none());
        assert!(solver
            .project(&None, &[bin(BinOp::Mul, &x1, &int(3))], None)
            .is_some());
    }

    /// `sym + c`, or the constant `c` when `sym` is 0.
    fn offset_term(sym: u32, c: i64) -> Term {
        match sym {
            0 => int(c),
            n if c == 0 => Term::sym(n),
            n => bin(BinOp::Add, &Term::sym(n), &int(c)),
        }
    }

    const COMPARISONS: [BinOp; 5] = [BinOp::Lt, BinOp::Le, BinOp::Gt, BinOp::Ge, BinOp::Eq];

    proptest! {
        /// The closure of difference constraints ([`difference`]) gives the region
        /// Z3's `qe` gives, on random systems of them (contradictory ones included).
        #[test]
        fn difference_projections_are_those_of_qe(
            conjuncts in proptest::collection::vec(
                (0u32..5, -3i64..4, 0usize..5, 0u32..5, -3i64..4, any::<bool>()), 0..6),
            terms in proptest::collection::vec((0u32..5, -2i64..3), 1..4),
        ) {
            let mut pc = None;
            for &(a, c, op, b, d, holds) in &conjuncts {
                let op = COMPARISONS[op];
                if op == BinOp::Eq && !holds {
                    continue;
                }
                let term = bin(op, &offset_term(a, c), &offset_term(b, d));
                if term.as_const().is_some() {
                    continue;
                }
                pc = conjunct(term, pc);
                if let Some(node) = pc.as_mut().and_then(Arc::get_mut) {
                    node.holds = holds;
                }
            }
            let terms: Vec<Term> = terms.iter().map(|&(n, c)| offset_term(n, c)).collect();
            let projected = conjuncts_of(&pc);
            let closed = difference::project(&terms, &projected);
            prop_assert!(closed.is_some(), "not taken for difference constraints");
            let closed = difference_region(&closed.unwrap());
            let mut solver = Solver::new();
            let qe = plain_qe(&mut solver, &terms, &projected);
            let z = z3::Solver::new();
            z.assert(closed.iff(&qe).not());
            prop_assert_eq!(z.check(), SatResult::Unsat, "closure {} vs qe {}", closed, qe);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]
        /// A projection [`linear`] simplifies (to the slots, or to a smaller question
        /// for `qe`) holds exactly at the tuples the whole question has a model for, on
        /// random linear systems with equalities, coefficients other than ±1 and
        /// contradictions. Checked tuple by tuple (a box, and models of either side)
        /// with quantifier-free queries: Z3 4.8.12's `qe` itself is wrong on some of
        /// these systems (it projects `s3 = 3·s1, y0 = s3 - s2, y1 = s3 + 2·s2` to
        /// `9 | y1 - y0 ∧ 3 | y1`, which leaves out `(1, 7)`).
        #[test]
        fn linear_projections_are_exact(
            conjuncts in proptest::collection::vec(
                (
                    proptest::collection::vec((1u32..6, -3i64..4), 1..4),
                    -6i64..7,
                    0usize..5,
                    any::<bool>(),
                ),
                0..7),
            terms in proptest::collection::vec(
                proptest::collection::vec((1u32..6, -2i64..3), 0..3), 1..4),
        ) {
            let linear_term = |parts: &[(u32, i64)], c: i64| {
                parts.iter().fold(int(c), |acc, &(n, k)| {
                    bin(BinOp::Add, &acc, &bin(BinOp::Mul, &int(k), &Term::sym(n)))
                })
            };
            let mut pc = None;
            let mut unequal = 0;
            for (parts, c, op, holds) in &conjuncts {
                let op = COMPARISONS[*op];
                unequal += usize::from(op == BinOp::Eq && !holds);
                pc = conjunct(bin(op, &linear_term(parts, *c), &int(0)), pc);
                if let Some(node) = pc.as_mut().and_then(Arc::get_mut) {
                    node.holds = *holds;
                }
            }
            let terms: Vec<Term> = terms.iter().map(|parts| linear_term(parts, 0)).collect();
            let projected = conjuncts_of(&pc);
            let mut solver = Solver::new();
            let simplified = match linear::project(&terms, &projected) {
                Ok(linear::Projection::Empty) => Bool::from_bool(false),
                Ok(linear::Projection::Exists { constraints, .. }) => {
                    let body: Vec<Bool> =
                        constraints.iter().map(|c| solver.constraint(c)).collect();
                    conjunction(&body)
                }
                Ok(linear::Projection::Cases { cases, .. }) => {
                    let cases: Vec<Bool> = (cases.iter())
                        .map(|case| {
                            let body: Vec<Bool> =
                                case.iter().map(|c| solver.constraint(c)).collect();
                            conjunction(&body)
                        })
                        .collect();
                    Bool::or(&cases)
                }
                // More disequalities than it reads each way go to `qe` whole.
                Err(linear::Beyond::Shape) if unequal > 0 => return Ok(()),
                Err(_) => return Err(TestCaseError::fail("not taken for a linear system")),
            };
            let whole = conjunction(&solver.question(&terms, &projected));
            let z = z3::Solver::new();
            let sat = |formula: &Bool, tuple: &[i64]| {
                z.push();
                for (i, &v) in tuple.iter().enumerate() {
                    z.assert(slot(i).eq(Int::from_i64(v)));
                }
                z.assert(formula);
                let result = z.check();
                z.pop(1);
                result
            };
            // Tuples of a box around 0, then tuples of models of either side (each
            // model's tuple blocked for the next): those reach the tuples far out that a
            // divisibility admits.
            let mut tuples = Vec::new();
            let mut tuple = vec![-3i64; terms.len()];
            loop {
                tuples.push(tuple.clone());
                let Some(i) = tuple.iter().position(|&v| v < 3) else { break };
                tuple[i] += 1;
                tuple[..i].iter_mut().for_each(|v| *v = -3);
            }
            for side in [&whole, &simplified] {
                z.push();
                z.assert(side);
                for _ in 0..12 {
                    if z.check() != SatResult::Sat {
                        break;
                    }
                    let Some(model) = z.get_model() else { break };
                    let tuple: Option<Vec<i64>> = (0..terms.len())
                        .map(|i| model.eval(&slot(i), true)?.as_i64())
                        .collect();
                    let Some(tuple) = tuple else { break };
                    let at: Vec<Bool> = tuple
                        .iter()
                        .enumerate()
                        .map(|(i, &v)| slot(i).eq(Int::from_i64(v)))
                        .collect();
                    z.assert(conjunction(&at).not());
                    tuples.push(tuple);
                }
                z.pop(1);
            }
            for tuple in &tuples {
                let expected = sat(&whole, tuple);
                prop_assert_ne!(expected, SatResult::Unknown);
                prop_assert_eq!(
                    sat(&simplified, tuple), expected, "at {:?}: {}", tuple, simplified
                );
            }
        }
    }

    #[test]
    fn a_constraint_with_the_least_i64_constant_bounds_by_its_negation() {
        // y0 + i64::MIN ≥ 0 is y0 ≥ 2⁶³, which no i64 holds.
        let c = linear::Constraint {
            linear: linear::Linear {
                coefficients: [(linear::Var::Slot(0), 1)].into_iter().collect(),
                constant: i64::MIN,
            },
            relation: linear::Relation::NonNegative,
        };
        let bound = Int::from_str("9223372036854775808").unwrap();
        let z = z3::Solver::new();
        z.assert(Solver::new().constraint(&c).iff(slot(0).ge(bound)).not());
        assert_eq!(z.check(), SatResult::Unsat);
    }

    /// The conjuncts of a path condition, newest first.
    fn conjuncts_of(pc: &Option<Arc<PcNode>>) -> Vec<&PcNode> {
        let mut conjuncts = Vec::new();
        let mut at = pc.as_deref();
        while let Some(node) = at {
            conjuncts.push(node);
            at = node.parent.as_deref();
        }
        conjuncts
    }

    /// The region `qe` gives for the whole question, without simplification.
    fn plain_qe(solver: &mut Solver, terms: &[Term], projected: &[&PcNode]) -> Bool {
        let mut symbols = Vec::new();
        for t in projected.iter().map(|p| &p.term).chain(terms) {
            t.symbols(&mut symbols);
        }
        symbols.sort_unstable();
        let body = solver.question(terms, projected);
        let (region, stopped) = solver.eliminate(body, &symbols, None);
        assert!(!stopped);
        region.expect("qe eliminates a linear question")
    }

    /// Twelve linear conjuncts over eight symbols whose projection onto `(s7, s8)` Z3's
    /// `qe` does not finish in minutes: the query of `tests/projections.rs` with s3 and
    /// s4 bounded below, so that [`linear`] leaves every symbol to `qe`.
    fn hard_projection() -> (Option<Arc<PcNode>>, Vec<Term>) {
        let s = |n: u32| Term::sym(n + 1);
        let sum = |parts: &[(i64, u32)], extra: Term| {
            parts.iter().fold(extra, |acc, &(c, n)| {
                bin(BinOp::Add, &acc, &bin(BinOp::Mul, &int(c), &s(n)))
            })
        };
        let (y0, y1) = (s(6), s(7));
        // Each row: `Σ cᵢ·sᵢ + y ≤ bound`.
        type Row<'a> = (&'a [(i64, u32)], &'a Term, i64);
        let rows: [Row; 8] = [
            (&[(3, 4), (2, 2), (2, 3)], &y0, 47),
            (&[(20, 3), (3, 0)], &y1, 12),
            (&[(2, 3), (7, 4), (2, 5)], &y0, 7),
            (&[(5, 5), (3, 4), (2, 2)], &y1, -47),
            (&[(2, 0), (13, 4), (2, 3)], &y0, 37),
            (&[(3, 3), (13, 0), (11, 1)], &y1, 47),
            (&[(7, 3), (16, 1)], &y0, 36),
            (&[(3, 3), (5, 0), (7, 4)], &y1, 32),
        ];
        let mut pc = None;
        for (parts, y, bound) in rows {
            pc = conjunct(bin(BinOp::Le, &sum(parts, y.clone()), &int(bound)), pc);
        }
        // Bounded on both sides, s3 and s4 are not eliminated before `qe` ([`linear`]).
        for n in [3, 4] {
            pc = conjunct(bin(BinOp::Ge, &s(n), &int(0)), pc);
        }
        for (y, parts) in [(&y0, [(3, 1), (11, 5)]), (&y1, [(7, 0), (11, 2)])] {
            pc = conjunct(bin(BinOp::Eq, y, &sum(&parts, int(0))), pc);
        }
        (pc, vec![y0, y1])
    }

    #[test]
    fn a_projection_that_outlives_its_limit_gives_no_region_and_is_asked_again() {
        let mut solver = Solver::new();
        let (pc, terms) = hard_projection();
        let start = Instant::now();
        let limit = Some(Duration::from_millis(300));
        assert!(solver.project(&pc, &terms, limit).is_none());
        // Stopped by the limit, not refused at once.
        let took = start.elapsed();
        assert!(took >= Duration::from_millis(300), "{took:?}");
        assert!(took < Duration::from_secs(3), "{took:?}");
        // Not remembered: more time may give a region.
        assert!(solver.projections.is_empty());
        // The next projection gets a fresh helper, and an answer.
        let (within, doubled) = even_up_to_200();
        let region = solver.project(&within, &[doubled], limit);
        assert!(region.is_some());
        // So does the search's own context.
        assert!(matches!(
            solver.check(&within, &Term::sym(1), true, 1, limit),
            Answer::Sat(_)
        ));
    }

    /// `y > 0 ∧ x² − 61y² = 1`: Pell's equation, whose least solution (x = 1766319049)
    /// Z3 does not find in minutes.
    fn pell() -> (Option<Arc<PcNode>>, Term) {
        let (x, y) = (Term::sym(1), Term::sym(2));
        let positive = conjunct(bin(BinOp::Lt, &int(0), &y), None);
        let xx = bin(BinOp::Mul, &x, &x);
        let yy = bin(BinOp::Mul, &int(61), &bin(BinOp::Mul, &y, &y));
        (
            positive,
            bin(BinOp::Eq, &bin(BinOp::Sub, &xx, &yy), &int(1)),
        )
    }

    /// Generous: the limit that must hold is "seconds, not never".
    const PROMPTLY: Duration = Duration::from_secs(20);

    #[test]
    fn a_query_past_its_limit_times_out_and_later_queries_are_answered() {
        let mut solver = Solver::new();
        let (pc, pell) = pell();
        let start = Instant::now();
        let limit = Some(Duration::from_millis(200));
        assert!(matches!(
            solver.check(&pc, &pell, true, 2, limit),
            Answer::TimedOut
        ));
        assert!(start.elapsed() < PROMPTLY, "{:?}", start.elapsed());
        assert!(matches!(
            solver.check(&pc, &pell, false, 2, None),
            Answer::Sat(_)
        ));
    }

    /// A limit so short that it runs out before Z3 starts the check: an interrupt
    /// that lands before the check must not leave the check to run unbounded.
    #[test]
    fn a_tiny_limit_always_stops_the_query() {
        let mut solver = Solver::new();
        let (pc, pell) = pell();
        for _ in 0..20 {
            let start = Instant::now();
            let answer = solver.check(&pc, &pell, true, 2, Some(Duration::from_micros(10)));
            assert!(matches!(answer, Answer::TimedOut));
            assert!(start.elapsed() < PROMPTLY, "{:?}", start.elapsed());
        }
    }

    #[test]
    fn the_interrupt_flag_stops_a_running_query() {
        let mut solver = Solver::new();
        let flag = Arc::new(AtomicBool::new(false));
        solver.interrupt_on(Arc::clone(&flag));
        let (pc, pell) = pell();
        let setter = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            flag.store(true, Ordering::Relaxed);
            Instant::now()
        });
        let answer = solver.check(&pc, &pell, true, 2, None);
        let returned = Instant::now();
        let set = setter.join().unwrap();
        assert!(matches!(answer, Answer::Interrupted));
        assert!(returned.saturating_duration_since(set) < PROMPTLY);
        // A query started after the flag is set stops too.
        assert!(matches!(
            solver.check(&pc, &pell, true, 2, None),
            Answer::Interrupted
        ));
    }

    #[test]
    fn any_limit_is_accepted() {
        let mut solver = Solver::new();
        let (pc, pell) = pell();
        let limit = Some(Duration::MAX);
        assert!(matches!(
            solver.check(&pc, &pell, false, 2, limit),
            Answer::Sat(_)
        ));
        let positive = slot(0).gt(Int::from_i64(0));
        assert!(solver.covered(&pc, &[Term::sym(2)], &[&positive], limit));
    }

    /// What the watchdog does after an interrupt that may have landed outside the
    /// check it cut short: a later projection must not be interrupted by it.
    #[test]
    fn a_projection_after_an_interrupt_is_exact() {
        let mut solver = Solver::new();
        // SAFETY: the context is alive (the solver holds it); the watchdog does the
        // same from its thread.
        unsafe { z3_sys::Z3_interrupt(solver.live().z3.get_context().get_z3_context()) };
        solver.clear_interrupt();
        let (within, doubled) = even_up_to_200();
        let region = solver
            .project(&within, &[doubled], None)
            .expect("a projection");
        let y0 = slot(0);
        let expected = Bool::and(&[
            y0.ge(Int::from_i64(0)),
            y0.le(Int::from_i64(200)),
            y0.modulo(Int::from_i64(2)).eq(Int::from_i64(0)),
        ]);
        let z = z3::Solver::new();
        z.assert(region.iff(&expected).not());
        assert_eq!(z.check(), SatResult::Unsat, "region {region}");
    }

    /// `0 ≤ x1 ≤ 100` and the term `2·x1`: a projection [`linear`] leaves to `qe` (x1
    /// is bounded on both sides, and its coefficient in the term is not ±1).
    fn even_up_to_200() -> (Option<Arc<PcNode>>, Term) {
        let x1 = Term::sym(1);
        let within = conjunct(
            bin(BinOp::Le, &x1, &int(100)),
            conjunct(bin(BinOp::Le, &int(0), &x1), None),
        );
        (within, bin(BinOp::Mul, &int(2), &x1))
    }

    #[test]
    fn incremental_checks_follow_the_path() {
        let mut solver = Solver::new();
        let x = Term::sym(1);
        let gt = Term::binary(BinOp::Gt, &x, &Term::Const(BigInt::from(10))).unwrap();
        let root = Some(Arc::new(PcNode {
            term: gt.clone(),
            holds: true,
            depth: 1,
            symbols: Default::default(),
            own_symbols: vec![1],
            nonlinear: false,
            parent: None,
        }));
        let lt = Term::binary(BinOp::Lt, &x, &Term::Const(BigInt::from(5))).unwrap();
        assert!(matches!(
            solver.check(&root, &lt, true, 1, None),
            Answer::Unsat
        ));
        match solver.check(&root, &lt, false, 1, None) {
            Answer::Sat(w) => assert!(w[&1] > BigInt::from(10)),
            _ => panic!("expected sat"),
        }
        // A sibling path without the first conjunct.
        assert!(matches!(
            solver.check(&None, &lt, true, 1, None),
            Answer::Sat(_)
        ));
        assert_eq!(solver.queries, 3);
    }
}
