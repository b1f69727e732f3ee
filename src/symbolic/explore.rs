//! Depth-first search over symbolic configurations, with an explicit worklist.
//!
//! Each worklist entry is one configuration; the machine runs it to its next stop, and
//! the stop decides the successors: both sides of a symbolic branch that the solver
//! (or the current witness) shows satisfiable, the configuration after a P-move, or
//! every O-move of an opponent configuration. Failures are rendered as they are found.

use super::config::{Config, Control, List};
use super::machine::{self, Stop, Stuck};
use super::moves;
use super::solver::{Answer, Solver};
use super::term::{Node, Term, Witness};
use num_bigint::BigInt;
use super::value::Value;
use super::{CheckOptions, CheckResult, Progress, Stats, Verdict};
use crate::build::{GlobalName, Initial, Library};
use crate::syntax::ast::{BinOp, Span};
use crate::trace::{Counterexample, FailureKind};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::time::Instant;

/// How often (in configurations) budgets are polled and progress is reported.
const POLL_EVERY: u64 = 1024;

pub struct Explorer<'p, 'o> {
    lib: &'p Library,
    options: &'o CheckOptions,
    solver: Solver,
    worklist: Vec<Config<'p>>,
    /// Texts of every distinct failing trace.
    failing: HashSet<String>,
    /// Every distinct failing trace (kept only with `all`).
    all: Vec<Counterexample>,
    /// The shortest failing trace per failure site.
    shortest: HashMap<(FailureKind, Span), Counterexample>,
    stats: Stats,
    inconclusive: Vec<String>,
    start: Instant,
}

impl<'p, 'o> Explorer<'p, 'o> {
    pub fn new(lib: &'p Library, options: &'o CheckOptions) -> Explorer<'p, 'o> {
        let store = lib
            .store
            .iter()
            .map(|init| match init {
                Initial::Int(i) => Some(Value::Int(Term::Const(i.clone()))),
                Initial::Name(g) => Some(Value::Fun(match *g {
                    GlobalName::Method(m) => super::value::Name::Method(m),
                    GlobalName::Import(i) => super::value::Name::Import(i),
                    GlobalName::Undeclared(u) => super::value::Name::Undeclared(u),
                })),
                Initial::Absent => None,
            })
            .collect();
        let initial = Config {
            control: Control::Opponent,
            kont: List::default(),
            stack: List::default(),
            store,
            closures: imbl::Vector::new(),
            revealed: imbl::Vector::new(),
            clients: imbl::Vector::new(),
            k: options.k,
            l: options.l,
            pc: None,
            witness: Rc::new(Witness::new()),
            next_sym: 0,
            trace: List::default(),
            moves: 0,
        };
        Explorer {
            lib,
            options,
            solver: Solver::new(options.timeout),
            worklist: vec![initial],
            failing: HashSet::new(),
            all: Vec::new(),
            shortest: HashMap::new(),
            stats: Stats::default(),
            inconclusive: Vec::new(),
            start: Instant::now(),
        }
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
                return Some(format!("timeout after {:.1} s", t.as_secs_f64()));
            }
        }
        if let Some(max) = self.options.max_configurations {
            if self.stats.configurations >= max {
                return Some(format!("configuration limit ({max}) reached"));
            }
        }
        None
    }

    pub fn run(mut self, progress: &mut dyn FnMut(&Progress)) -> CheckResult {
        while let Some(cfg) = self.worklist.pop() {
            if self.stats.configurations % POLL_EVERY == 0 {
                if let Some(reason) = self.out_of_budget() {
                    self.inconclusive.push(format!("search stopped: {reason}"));
                    break;
                }
                progress(&Progress {
                    configurations: self.stats.configurations,
                    depth: cfg.moves,
                    counterexamples: self.failing.len(),
                    elapsed: self.start.elapsed(),
                });
            }
            self.stats.configurations += 1;
            self.stats.max_moves = self.stats.max_moves.max(cfg.moves);
            self.step(cfg);
        }
        self.finish()
    }

    fn step(&mut self, mut cfg: Config<'p>) {
        let lib = self.lib;
        match machine::run(&mut cfg, lib) {
            Stop::Opponent => {
                let mut next = moves::opponent_moves(&cfg, lib);
                next.reverse();
                self.worklist.extend(next);
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
                    self.worklist.push(c);
                }
                if let Some(w) = yes {
                    cfg.assume(cond, true, w);
                    cfg.control = Control::Eval(then, env);
                    self.worklist.push(cfg);
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
                    self.worklist.push(cfg);
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
                        self.worklist.push(cfg);
                    }
                }
            }
            Stop::Fail { kind, span } => {
                let witness = Rc::clone(&cfg.witness);
                self.fail(&cfg, kind, span, &witness);
            }
            Stop::PCall { name, arg } => {
                moves::p_call(&mut cfg, lib, name, arg, self.options.l);
                self.worklist.push(cfg);
            }
            Stop::PReturn { value } => {
                if moves::p_return(&mut cfg, lib, value) {
                    self.worklist.push(cfg);
                }
            }
            Stop::OutOfFrames => self.stats.frame_limit_paths += 1,
            Stop::Stuck(Stuck::Undeclared) => self.stats.undeclared_calls += 1,
            Stop::Stuck(_) => self.stats.stuck_paths += 1,
        }
    }

    /// Which sides of `cond` (≠ 0, = 0) are satisfiable with the path condition, each
    /// with a model. The configuration's witness decides one side for free; the other
    /// costs one solver query. `unknown` drops the side and makes the verdict
    /// inconclusive.
    fn split(&mut self, cfg: &Config<'p>, cond: &Term) -> [Option<Rc<Witness>>; 2] {
        let mut sides = [None, None];
        match cond.eval(&cfg.witness) {
            Some(v) => {
                let holds = v.sign() != num_bigint::Sign::NoSign;
                sides[usize::from(!holds)] = Some(Rc::clone(&cfg.witness));
                sides[usize::from(holds)] = match local_witness(cfg, cond, !holds) {
                    Some(w) => Some(w),
                    None => self.query(cfg, cond, !holds),
                };
            }
            None => {
                sides[0] = self.query(cfg, cond, true);
                sides[1] = self.query(cfg, cond, false);
            }
        }
        sides
    }

    fn query(&mut self, cfg: &Config<'p>, cond: &Term, holds: bool) -> Option<Rc<Witness>> {
        match self.solver.check(&cfg.pc, cond, holds, cfg.next_sym) {
            Answer::Sat(w) => Some(Rc::new(w)),
            Answer::Unsat => None,
            Answer::Unknown(reason) => {
                let reason = format!("solver returned unknown ({reason}); a branch was not explored");
                if !self.inconclusive.contains(&reason) {
                    self.inconclusive.push(reason);
                }
                None
            }
        }
    }

    fn fail(&mut self, cfg: &Config<'p>, kind: FailureKind, span: Span, witness: &Witness) {
        let rendered = moves::render(self.lib, &cfg.trace, witness);
        let text = rendered.trace.to_string();
        let cx = Counterexample {
            kind,
            span: span.clone(),
            trace: rendered.trace,
            concrete: rendered.concrete,
            model: rendered.model,
        };
        let new = self.failing.insert(text.clone());
        if new && self.options.all {
            self.all.push(cx.clone());
        }
        let key = (kind, span);
        let better = match self.shortest.get(&key) {
            None => true,
            Some(old) => {
                let old_key = (old.trace.0.len(), old.trace.to_string());
                (cx.trace.0.len(), text) < old_key
            }
        };
        if better {
            self.shortest.insert(key, cx);
        }
    }

    fn finish(mut self) -> CheckResult {
        let mut counterexamples: Vec<Counterexample> = if self.options.all {
            std::mem::take(&mut self.all)
        } else {
            self.shortest.into_values().collect()
        };
        let mut keyed: Vec<(usize, String, Counterexample)> = counterexamples
            .drain(..)
            .map(|c| (c.trace.0.len(), c.trace.to_string(), c))
            .collect();
        keyed.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        let counterexamples: Vec<Counterexample> = keyed.into_iter().map(|(_, _, c)| c).collect();
        self.stats.solver_queries = self.solver.queries;
        self.stats.seconds = self.start.elapsed().as_secs_f64();
        let verdict = if !counterexamples.is_empty() {
            Verdict::Unsafe
        } else if !self.inconclusive.is_empty() {
            Verdict::Inconclusive
        } else {
            Verdict::Safe
        };
        CheckResult {
            verdict,
            counterexamples,
            failing_traces: self.failing.len(),
            stats: self.stats,
            inconclusive: self.inconclusive,
        }
    }
}

/// Tries to make `cond` take the side `holds` by changing only symbols the path
/// condition does not mention — so the path condition stays satisfied and no solver
/// query is needed. Typical case: a fresh client input compared with the state.
fn local_witness(cfg: &Config, cond: &Term, holds: bool) -> Option<Rc<Witness>> {
    let mut mentioned = Vec::new();
    cond.symbols(&mut mentioned);
    let constrained = cfg.pc_symbols();
    let free: Vec<u32> = mentioned
        .into_iter()
        .filter(|&n| !constrained.may_contain(n))
        .collect();
    if free.is_empty() {
        return None;
    }
    let mut witness = (*cfg.witness).clone();
    for &n in &free {
        let original = witness.get(&n).cloned();
        let mut candidates = Vec::new();
        comparison_neighbours(cond, n, &witness, &mut candidates);
        candidates.extend([0i64, 1, -1, 2, -2, 1000, -1000, 1_000_000, -1_000_000].map(BigInt::from));
        for value in candidates {
            witness.insert(n, value);
            if let Some(v) = cond.eval(&witness) {
                if (v.sign() != num_bigint::Sign::NoSign) == holds {
                    return Some(Rc::new(witness));
                }
            }
        }
        match original {
            Some(v) => witness.insert(n, v),
            None => witness.remove(&n),
        };
    }
    None
}

/// For each comparison in `term` with symbol `n` alone on one side: the value of the
/// other side (under `witness`) and its neighbours, the values where the comparison flips.
fn comparison_neighbours(term: &Term, n: u32, witness: &Witness, out: &mut Vec<BigInt>) {
    let Term::Node(node) = term else {
        return;
    };
    match &**node {
        Node::Sym(_) => {}
        Node::Not(a) => comparison_neighbours(a, n, witness, out),
        Node::Bin(_, a, b) => {
            let is_n = |t: &Term| matches!(t, Term::Node(x) if matches!(**x, Node::Sym(m) if m == n));
            let other = if is_n(a) {
                Some(b)
            } else if is_n(b) {
                Some(a)
            } else {
                None
            };
            if let Some(v) = other.and_then(|o| o.eval(witness)) {
                out.push(&v - 1);
                out.push(&v + 1);
                out.push(v);
            }
            comparison_neighbours(a, n, witness, out);
            comparison_neighbours(b, n, witness, out);
        }
    }
}
