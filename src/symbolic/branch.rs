//! Deciding a symbolic branch ([`Decider`]): the configuration's witness decides one
//! side for free; the other is decided without Z3 where possible, by a model found by
//! changing only symbols the path condition leaves free ([`local_witness`]), or by the
//! answer to an earlier question that is the same up to renaming of symbols
//! ([`Question`], [`Answers`]), or, where the decider presolves, exactly by
//! [`presolve`]; only then is Z3 asked. [`Sides`] is what a step and
//! the over-approximation's client turn ask of the search that decides.

use super::brief::Brief;
use super::config::{connected, Config};
use super::memo;
use super::presolve::{self, Decision};
use super::solver::{Answer, Solver};
use super::term::{Node, Term, Witness, TREE_WALK};
use crate::syntax::ast::BinOp;
use num_bigint::BigInt;
use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::Arc;
use std::time::Duration;

/// Why a side of a branch was left undecided (and so unexplored).
#[derive(Debug)]
pub enum Undecided {
    /// Z3 answered `unknown`, for this reason.
    Unknown(String),
    /// The query ran past its limit.
    TimedOut,
    /// The interrupt flag was set.
    Interrupted,
}

impl Undecided {
    /// The note it leaves on the result. `stop` is why the search must stop now, if
    /// it must: a query's limit is no later than the search's deadline, so a query
    /// that timed out may have met the deadline rather than the per-query limit.
    pub fn note(self, stop: Option<String>) -> String {
        match self {
            Undecided::Unknown(reason) => {
                format!("solver returned unknown ({reason}); a branch was not explored")
            }
            Undecided::TimedOut => match stop {
                Some(stop) => format!("search stopped: {stop}"),
                None => "solver returned unknown (the query ran past the solver timeout); \
                         a branch was not explored"
                    .to_string(),
            },
            Undecided::Interrupted => "search stopped: interrupted".to_string(),
        }
    }
}

/// Which sides of `cond` (≠ 0, = 0) are satisfiable with the path condition of
/// `cfg`, each with a model: what a step asks of the search that runs it.
pub trait Sides<'p> {
    fn sides(&mut self, cfg: &Config<'p>, cond: &Term) -> [Option<Arc<Witness>>; 2];
}

/// Decides the sides of symbolic branches, with the solver of one search.
pub struct Decider {
    pub solver: Solver,
    answers: Answers,
    /// Questions answered by the cache.
    pub cached: u64,
    /// Whether small questions are decided without Z3 ([`presolve`]). Its models are
    /// not Z3's, so the values of traces differ: `holi check`'s stay pinned as they are.
    presolving: bool,
    /// Questions decided without Z3.
    pub presolved: u64,
}

impl Decider {
    pub fn new(solver: Solver) -> Decider {
        Decider {
            solver,
            answers: Answers::default(),
            cached: 0,
            presolving: false,
            presolved: 0,
        }
    }

    /// Decides small questions without Z3 from now on ([`presolve`]).
    pub fn presolve_small_questions(&mut self) {
        self.presolving = true;
    }

    /// A decider with a solver of its own, stopped by `brief`'s flag and answering
    /// nonlinear queries in its solver process.
    pub fn within(brief: &Brief) -> Decider {
        let mut solver = Solver::new();
        if let Some(flag) = brief.meter.interrupt() {
            solver.interrupt_on(Arc::clone(flag));
        }
        if let Some(program) = &brief.run.solver_process {
            solver.nonlinear_in_child(program.clone());
        }
        Decider::new(solver)
    }

    /// This decider, made for another search, stopped by `brief`'s flag instead (a
    /// search's flag may be its own: the memory limit's watch).
    pub fn rebrief(&mut self, brief: &Brief) {
        if let Some(flag) = brief.meter.interrupt() {
            self.solver.interrupt_on(Arc::clone(flag));
        }
    }

    /// Starts the counts of queries, cached answers and work again from zero, for the
    /// next search that uses it.
    pub fn clear_counts(&mut self) {
        self.solver.queries = 0;
        self.solver.work = 0;
        self.cached = 0;
        self.presolved = 0;
    }

    /// Which sides of `cond` (≠ 0, = 0) are satisfiable with the path condition of
    /// `cfg`, each with a model. A side Z3 cannot decide is dropped, and why is pushed
    /// on `undecided`. `limit` gives each query's time limit when it starts.
    pub fn sides(
        &mut self,
        cfg: &Config,
        cond: &Term,
        limit: &dyn Fn() -> Option<Duration>,
        undecided: &mut Vec<Undecided>,
    ) -> [Option<Arc<Witness>>; 2] {
        let mut ask = |holds| {
            self.query(cfg, cond, holds, limit()).unwrap_or_else(|why| {
                undecided.push(why);
                None
            })
        };
        let mut sides = [None, None];
        match cond.eval(&cfg.witness) {
            Some(v) => {
                let holds = v.sign() != num_bigint::Sign::NoSign;
                sides[usize::from(!holds)] = Some(Arc::clone(&cfg.witness));
                sides[usize::from(holds)] = match local_witness(cfg, cond, !holds) {
                    Some(w) => Some(w),
                    None => ask(!holds),
                };
            }
            None => {
                sides[0] = ask(true);
                sides[1] = ask(false);
            }
        }
        debug_assert!(
            sides
                .iter()
                .enumerate()
                .all(|(i, w)| w.as_ref().is_none_or(|w| {
                    pc_holds(cfg, w)
                        && cond.eval(w).map(|v| v.sign() != num_bigint::Sign::NoSign)
                            == Some(i == 0)
                })),
            "every witness is a model of its side"
        );
        sides
    }

    /// Decides `pc ∧ cond-side` for real: first in the cache of answers to the same
    /// question up to renaming of symbols, restricted to the conjuncts that share
    /// symbols with `cond` (the rest is independent and known satisfiable); then with Z3.
    fn query(
        &mut self,
        cfg: &Config,
        cond: &Term,
        holds: bool,
        limit: Option<Duration>,
    ) -> Result<Option<Arc<Witness>>, Undecided> {
        let question = Question::new(cfg, cond, holds);
        let key = memo::hash128(&question.key[..]);
        match self.answers.0.get(&key) {
            Some(None) => {
                self.cached += 1;
                return Ok(None);
            }
            Some(Some(values)) => {
                if let Some(w) = question.merge(&cfg.witness, values) {
                    self.cached += 1;
                    return Ok(Some(Arc::new(w)));
                }
            }
            None => {}
        }
        if self.presolving {
            match presolve::decide(&question.parts, &question.symbols, &cfg.witness) {
                Some(Decision::Sat(values)) => {
                    if let Some(w) = question.merge(&cfg.witness, &values) {
                        self.presolved += 1;
                        self.answers.remember(key, Some(values));
                        return Ok(Some(Arc::new(w)));
                    }
                }
                Some(Decision::Unsat) => {
                    self.presolved += 1;
                    self.answers.remember(key, None);
                    return Ok(None);
                }
                None => {}
            }
        }
        match self.solver.check(&cfg.pc, cond, holds, cfg.next_sym, limit) {
            Answer::Sat(w) => {
                let values: Vec<BigInt> = question
                    .symbols
                    .iter()
                    .map(|n| w.get(n).cloned().unwrap_or_default())
                    .collect();
                self.answers.remember(key, Some(values));
                // Z3's model covers the whole path condition; symbols it does not
                // mention keep their values (they are unconstrained there).
                let mut merged = (*cfg.witness).clone();
                merged.extend(w);
                Ok(Some(Arc::new(merged)))
            }
            Answer::Unsat => {
                self.answers.remember(key, None);
                Ok(None)
            }
            Answer::Unknown(reason) => Err(Undecided::Unknown(reason)),
            Answer::TimedOut => Err(Undecided::TimedOut),
            Answer::Interrupted => Err(Undecided::Interrupted),
        }
    }
}

/// Solver answers kept for reuse; the cache starts afresh when full, which costs only
/// queries asked again.
const ANSWERS_CAP: usize = 1 << 18;

/// Solver answers by a 128-bit hash of [`Question::key`] ([`memo::hash128`], as memo
/// keys are kept, with the same odds against two questions sharing one): the model's
/// values of the question's symbols (in order), or `None` for unsatisfiable. Not the
/// keys themselves: on a deep path every conjunct repeats the chain of updates before
/// it, so a key runs to thousands of numbers, and [`ANSWERS_CAP`] of them took
/// gigabytes (reentrancy_param-mo at k 7, l 4).
#[derive(Default)]
struct Answers(FxHashMap<u128, Option<Vec<BigInt>>>);

impl Answers {
    /// Keeps the answer to a question, within [`ANSWERS_CAP`].
    fn remember(&mut self, key: u128, answer: Option<Vec<BigInt>>) {
        if self.0.len() >= ANSWERS_CAP {
            self.0.clear();
        }
        self.0.insert(key, answer);
    }
}

/// Tries to find, without the solver, a model of the path condition in which `cond`
/// takes the side `holds`. Only symbols the path condition does not mention may
/// change (so it stays satisfied): each in turn is set to a value where `cond` or one
/// of its comparisons flips (treating it as linear in that symbol), or to a few fixed
/// values, and the result is checked by evaluation. Typical case: a fresh client input
/// compared with the state.
pub fn local_witness(cfg: &Config, cond: &Term, holds: bool) -> Option<Arc<Witness>> {
    let mut mentioned = Vec::new();
    cond.symbols(&mut mentioned);
    let constrained = cfg.pc_symbols();
    mentioned.retain(|&n| !constrained.may_contain(n));
    if mentioned.is_empty() {
        return None;
    }
    let mut witness = (*cfg.witness).clone();
    for &n in &mentioned {
        let original = witness.get(&n).cloned();
        let mut candidates = Vec::new();
        flip_points(cond, n, &mut witness, &mut candidates);
        candidates.extend([0i64, 1, -1, 1000, -1000].map(BigInt::from));
        for value in candidates {
            witness.insert(n, value);
            if let Some(v) = cond.eval(&witness) {
                if (v.sign() != num_bigint::Sign::NoSign) == holds {
                    return Some(Arc::new(witness));
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

/// Whether `witness` satisfies every conjunct of the configuration's path condition.
pub fn pc_holds(cfg: &Config, witness: &Witness) -> bool {
    let mut node = cfg.pc.as_deref();
    while let Some(p) = node {
        match p.term.eval(witness) {
            Some(v) if (v.sign() != num_bigint::Sign::NoSign) == p.holds => {}
            _ => return false,
        }
        node = p.parent.as_deref();
    }
    true
}

/// Values of symbol `n` around which `term` or one of its comparisons changes sign,
/// assuming each is linear in `n` (other symbols as in `witness`, restored on return).
fn flip_points(term: &Term, n: u32, witness: &mut Witness, out: &mut Vec<BigInt>) {
    let original = witness.get(&n).cloned();
    let at = |t: &Term, v: i64, w: &mut Witness| {
        w.insert(n, BigInt::from(v));
        t.eval(w)
    };
    let mut diffs = vec![term.clone()];
    collect_comparisons(term, &mut diffs);
    for d in diffs {
        if let (Some(g0), Some(g1)) = (at(&d, 0, witness), at(&d, 1, witness)) {
            let slope = &g1 - &g0;
            if slope.sign() != num_bigint::Sign::NoSign {
                let root = -&g0 / &slope;
                out.push(&root - 1);
                out.push(&root + 1);
                out.push(root);
            }
        }
    }
    match original {
        Some(v) => witness.insert(n, v),
        None => witness.remove(&n),
    };
}

/// `a - b` for every comparison `a ⋈ b` inside `term`, in the order met. A term shares
/// its subterms ([`super::term`]): past a few hundred nodes, the walk enters each node
/// once (one met again adds no comparison that is not already listed).
fn collect_comparisons(term: &Term, out: &mut Vec<Term>) {
    let before = out.len();
    let mut budget = TREE_WALK;
    let mut in_budget = |_: &Arc<Node>| {
        budget = budget.saturating_sub(1);
        (budget > 0).then_some(true)
    };
    if comparisons_in(term, out, &mut in_budget).is_none() {
        out.truncate(before);
        let mut seen: rustc_hash::FxHashSet<*const Node> = Default::default();
        comparisons_in(term, out, &mut |node| Some(seen.insert(Arc::as_ptr(node))));
    }
}

/// [`collect_comparisons`], where `enter` says whether to enter a node (`Some(false)`:
/// skip it) or to give up (`None`).
fn comparisons_in(
    term: &Term,
    out: &mut Vec<Term>,
    enter: &mut dyn FnMut(&Arc<Node>) -> Option<bool>,
) -> Option<()> {
    let Term::Node(node) = term else {
        return Some(());
    };
    if !enter(node)? {
        return Some(());
    }
    match &**node {
        Node::Sym(_) => {}
        Node::Not(a) => comparisons_in(a, out, enter)?,
        Node::Bin(op, a, b) => {
            if matches!(
                op,
                BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge | BinOp::Eq
            ) {
                if let Ok(d) = Term::binary(BinOp::Sub, a, b) {
                    out.push(d);
                }
            }
            comparisons_in(a, out, enter)?;
            comparisons_in(b, out, enter)?;
        }
    }
    Some(())
}

/// A satisfiability question in canonical form: the conjuncts of the path condition
/// that (transitively) share symbols with the condition, then the condition, encoded
/// ([`Term::encode_into`]) with symbols renamed in order of appearance. Equal keys are
/// the same question up to renaming, so they have the same answer.
pub struct Question {
    pub key: Vec<u32>,
    /// The symbols of the question, in the order the key names them.
    pub symbols: Vec<u32>,
    /// The question's conjuncts, the condition's side last: `term ≠ 0` is `holds`.
    pub parts: Vec<(Term, bool)>,
    /// Conjuncts left out of the question, in the order they were left out, each with
    /// a symbol that occurs nowhere else in the question and that can always be chosen
    /// to satisfy it (see [`solvable_for`]).
    eliminated: Vec<(Term, bool, u32)>,
}

impl Question {
    pub fn new(cfg: &Config, cond: &Term, holds: bool) -> Question {
        let mut conjuncts = Vec::new();
        let mut node = cfg.pc.as_deref();
        while let Some(p) = node {
            conjuncts.push(p);
            node = p.parent.as_deref();
        }
        conjuncts.reverse();
        let mut fixed = Vec::new();
        cond.symbols(&mut fixed);
        let mut relevant: FxHashSet<u32> = fixed.iter().copied().collect();
        let mut included = connected(&conjuncts, &mut relevant);
        // Leave out conjuncts that a private symbol can always satisfy, like a rejected
        // `withdraw(x3)` (`not (b < x3)` false): they do not change the answer. A
        // symbol is private to a conjunct when no other included one mentions it.
        let mut mentions: FxHashMap<u32, u32> = FxHashMap::default();
        for p in conjuncts
            .iter()
            .zip(&included)
            .filter_map(|(p, &i)| i.then_some(p))
        {
            for &n in &p.own_symbols {
                *mentions.entry(n).or_default() += 1;
            }
        }
        let mut eliminated = Vec::new();
        let mut changed = true;
        while changed {
            changed = false;
            for (i, p) in conjuncts.iter().enumerate() {
                if !included[i] {
                    continue;
                }
                let private = p.own_symbols.iter().copied().find(|&n| {
                    !fixed.contains(&n) && mentions.get(&n) == Some(&1) && solvable_for(&p.term, n)
                });
                if let Some(n) = private {
                    included[i] = false;
                    for m in &p.own_symbols {
                        if let Some(count) = mentions.get_mut(m) {
                            *count -= 1;
                        }
                    }
                    eliminated.push((p.term.clone(), p.holds, n));
                    changed = true;
                }
            }
        }
        let parts: Vec<(Term, bool)> = conjuncts
            .iter()
            .zip(&included)
            .filter(|(_, &inc)| inc)
            .map(|(p, _)| (p.term.clone(), p.holds))
            .chain(std::iter::once((cond.clone(), holds)))
            .collect();
        // The symbols in order of first appearance, each named by its position.
        let mut symbols = Vec::new();
        let mut names: FxHashMap<u32, u32> = FxHashMap::default();
        let mut own = Vec::new();
        for (t, _) in &parts {
            own.clear();
            t.symbols(&mut own);
            for &n in &own {
                names.entry(n).or_insert_with(|| {
                    symbols.push(n);
                    (symbols.len() - 1) as u32
                });
            }
        }
        let name = |n: u32| names.get(&n).copied().unwrap_or(u32::MAX);
        let mut key = Vec::new();
        for (t, h) in &parts {
            key.push(u32::from(*h));
            t.encode_into(&name, &mut key);
        }
        Question {
            key,
            symbols,
            parts,
            eliminated,
        }
    }

    /// `witness` with the question's symbols set to `values` (a model of the question),
    /// then each left-out conjunct satisfied again by choosing its private symbol, last
    /// left out first. The other symbols keep their values, which satisfy the
    /// independent rest of the path condition. `None` if no value was found.
    pub fn merge(&self, witness: &Witness, values: &[BigInt]) -> Option<Witness> {
        let mut w = witness.clone();
        for (&n, v) in self.symbols.iter().zip(values) {
            w.insert(n, v.clone());
        }
        for (term, holds, n) in self.eliminated.iter().rev() {
            let mut candidates = Vec::new();
            flip_points(term, *n, &mut w, &mut candidates);
            candidates.extend([0i64, 1, -1].map(BigInt::from));
            let found = candidates.into_iter().find(|v| {
                w.insert(*n, v.clone());
                term.eval(&w)
                    .is_some_and(|t| (t.sign() != num_bigint::Sign::NoSign) == *holds)
            });
            found.as_ref()?;
        }
        Some(w)
    }
}

/// Whether `term ≠ 0` and `term = 0` can each be made true by choosing symbol `n`,
/// whatever the other symbols are: `n` occurs once, under `+`/`-` only, in `term`
/// itself or in one side of a comparison at its top (possibly under `not`). Then the
/// compared difference is `±n + r`, which takes every integer value.
fn solvable_for(term: &Term, n: u32) -> bool {
    /// How often `n` occurs in the tree of `t`; `None` past `budget` nodes (a shared
    /// subterm counts as often as it occurs, so a large tree is not walked: Z3 decides).
    fn occurrences(t: &Term, n: u32, budget: &mut u32) -> Option<usize> {
        let Term::Node(node) = t else { return Some(0) };
        *budget = budget.checked_sub(1)?;
        Some(match &**node {
            Node::Sym(m) => usize::from(*m == n),
            Node::Bin(_, a, b) => occurrences(a, n, budget)? + occurrences(b, n, budget)?,
            Node::Not(a) => occurrences(a, n, budget)?,
        })
    }
    fn unit_linear(t: &Term, n: u32) -> bool {
        match t {
            Term::Const(_) => false,
            Term::Node(node) => match &**node {
                Node::Sym(m) => *m == n,
                Node::Bin(BinOp::Add | BinOp::Sub, a, b) => unit_linear(a, n) || unit_linear(b, n),
                _ => false,
            },
        }
    }
    fn top(t: &Term, n: u32) -> bool {
        match t {
            Term::Node(node) => match &**node {
                Node::Not(a) => top(a, n),
                Node::Bin(BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge | BinOp::Eq, a, b) => {
                    unit_linear(a, n) || unit_linear(b, n)
                }
                _ => unit_linear(t, n),
            },
            Term::Const(_) => false,
        }
    }
    occurrences(term, n, &mut { TREE_WALK }) == Some(1) && top(term, n)
}
