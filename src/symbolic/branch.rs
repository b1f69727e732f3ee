//! Deciding a symbolic branch without Z3 where possible: a model found by changing
//! only symbols the path condition leaves free ([`local_witness`]), and answers to
//! earlier questions that are the same up to renaming of symbols ([`Question`],
//! [`Answers`]). [`super::explore`] asks Z3 only when neither decides.

use super::config::Config;
use super::term::{Node, Term, Witness};
use crate::syntax::ast::BinOp;
use num_bigint::BigInt;
use std::collections::HashMap;
use std::rc::Rc;

/// Solver answers kept for reuse; the cache starts afresh when full, which costs only
/// queries asked again.
const ANSWERS_CAP: usize = 1 << 18;

/// Solver answers by [`Question::key`]: the model's values of the question's symbols
/// (in order), or `None` for unsatisfiable.
#[derive(Default)]
pub struct Answers(HashMap<String, Option<Vec<BigInt>>>);

impl Answers {
    pub fn get(&self, key: &str) -> Option<&Option<Vec<BigInt>>> {
        self.0.get(key)
    }

    /// Keeps the answer to a question, within [`ANSWERS_CAP`].
    pub fn remember(&mut self, key: String, answer: Option<Vec<BigInt>>) {
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
pub fn local_witness(cfg: &Config, cond: &Term, holds: bool) -> Option<Rc<Witness>> {
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

/// `a - b` for every comparison `a ⋈ b` inside `term`.
fn collect_comparisons(term: &Term, out: &mut Vec<Term>) {
    let Term::Node(node) = term else {
        return;
    };
    match &**node {
        Node::Sym(_) => {}
        Node::Not(a) => collect_comparisons(a, out),
        Node::Bin(op, a, b) => {
            if matches!(
                op,
                BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge | BinOp::Eq
            ) {
                if let Ok(d) = Term::binary(BinOp::Sub, a, b) {
                    out.push(d);
                }
            }
            collect_comparisons(a, out);
            collect_comparisons(b, out);
        }
    }
}

/// A satisfiability question in canonical form: the conjuncts of the path condition
/// that (transitively) share symbols with the condition, then the condition, printed
/// with symbols renamed in order of appearance. Equal keys are the same question up to
/// renaming, so they have the same answer.
pub struct Question {
    pub key: String,
    /// The symbols of the question, in the order the key names them.
    pub symbols: Vec<u32>,
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
            conjuncts.push((p, &p.own_symbols));
            node = p.parent.as_deref();
        }
        conjuncts.reverse();
        let mut relevant = Vec::new();
        cond.symbols(&mut relevant);
        let mut included = vec![false; conjuncts.len()];
        let mut grew = true;
        while grew {
            grew = false;
            for (i, (_, syms)) in conjuncts.iter().enumerate() {
                if !included[i] && syms.iter().any(|n| relevant.contains(n)) {
                    included[i] = true;
                    grew = true;
                    for &n in syms.iter() {
                        if !relevant.contains(&n) {
                            relevant.push(n);
                        }
                    }
                }
            }
        }
        // Leave out conjuncts that a private symbol can always satisfy, like a rejected
        // `withdraw(x3)` (`not (b < x3)` false): they do not change the answer.
        let mut fixed = Vec::new();
        cond.symbols(&mut fixed);
        let mut eliminated = Vec::new();
        let mut changed = true;
        while changed {
            changed = false;
            for i in 0..conjuncts.len() {
                if !included[i] {
                    continue;
                }
                let private = conjuncts[i].1.iter().copied().find(|&n| {
                    !fixed.contains(&n)
                        && !conjuncts
                            .iter()
                            .enumerate()
                            .any(|(j, (_, syms))| j != i && included[j] && syms.contains(&n))
                        && solvable_for(&conjuncts[i].0.term, n)
                });
                if let Some(n) = private {
                    included[i] = false;
                    let p = conjuncts[i].0;
                    eliminated.push((p.term.clone(), p.holds, n));
                    changed = true;
                }
            }
        }
        let parts: Vec<(&Term, bool)> = conjuncts
            .iter()
            .zip(&included)
            .filter(|(_, &inc)| inc)
            .map(|((p, _), _)| (&p.term, p.holds))
            .chain(std::iter::once((cond, holds)))
            .collect();
        let mut symbols = Vec::new();
        for (t, _) in &parts {
            t.symbols(&mut symbols);
        }
        let name = |n: u32| {
            let i = symbols.iter().position(|&s| s == n).unwrap_or(usize::MAX);
            format!("s{i}")
        };
        let mut key = String::new();
        for (t, h) in &parts {
            key.push(if *h { '+' } else { '-' });
            key.push_str(&t.render(&name));
            key.push(';');
        }
        Question {
            key,
            symbols,
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
    fn occurrences(t: &Term, n: u32) -> usize {
        match t {
            Term::Const(_) => 0,
            Term::Node(node) => match &**node {
                Node::Sym(m) => usize::from(*m == n),
                Node::Bin(_, a, b) => occurrences(a, n) + occurrences(b, n),
                Node::Not(a) => occurrences(a, n),
            },
        }
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
    occurrences(term, n) == 1 && top(term, n)
}
