//! Linear facts that the library's `assert`s state about its references, as candidate
//! invariants for the over-approximation ([`super::overapprox::havoc`]) and for the proof
//! (`crate::proof`).
//!
//! An audit method such as `assert (0 <= !bal1 + !limit1)`, or a check of conservation
//! `assert (held + !fee_pool == !capital + !cash_in - !cash_out)` (with `held` bound by
//! a `let` to a sum of balances), states what its author believes of the store at
//! every call. When that is an invariant of the library, it is usually the one that
//! shows such asserts never fail, and bounds on single references cannot express it.
//! These facts are guesses only: both users keep a candidate only while their Houdini
//! rounds find it holding, and conclude only from what is left.
//!
//! A condition is read as a conjunction (`&&`, `not` pushed through comparisons) of
//! comparisons between linear expressions over references and constants; local
//! variables bound by `let` to such expressions count as them, anything else (a
//! parameter, a call, a product of two references) leaves its comparison out. Each
//! comparison becomes `Σ c·r ≥ b` (an equality two of them); the initial store must
//! meet it.

use crate::library::ir::{Expr, ExprKind, RefId};
use crate::library::{Initial, Library};
use crate::syntax::ast::BinOp;
use num_bigint::BigInt;
use num_traits::{One, Zero};
use std::collections::BTreeMap;

/// `Σ coefficient · reference ≥ constant`, its terms sorted by reference, none zero.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fact {
    pub terms: Vec<(RefId, BigInt)>,
    pub constant: BigInt,
}

impl Fact {
    /// The sum's value in the initial store; `None` when a reference of it does not
    /// start as an integer.
    pub fn initially(&self, lib: &Library) -> Option<BigInt> {
        let mut sum = BigInt::zero();
        for (r, c) in &self.terms {
            match lib.store.get(*r as usize) {
                Some(Initial::Int(v)) => sum += c * v,
                _ => return None,
            }
        }
        Some(sum)
    }
}

/// The facts of every `assert` of `lib` that its initial store meets, each once, in
/// order of appearance.
pub fn facts(lib: &Library) -> Vec<Fact> {
    let mut out = Vec::new();
    for code in &lib.codes {
        // The parameter, and for a `letrec` function itself: not linear.
        let mut env = vec![None; 1 + usize::from(code.recursive)];
        walk(&code.body, &mut env, &mut out);
    }
    out.retain(|f: &Fact| f.initially(lib).is_some_and(|v| v >= f.constant));
    out
}

/// A linear expression: coefficients by reference, and a constant.
#[derive(Clone, Debug, PartialEq)]
struct Linear {
    terms: BTreeMap<RefId, BigInt>,
    constant: BigInt,
}

impl Linear {
    fn constant(c: BigInt) -> Linear {
        Linear {
            terms: BTreeMap::new(),
            constant: c,
        }
    }

    /// `self + factor · other`.
    fn plus(mut self, factor: &BigInt, other: &Linear) -> Linear {
        for (r, c) in &other.terms {
            *self.terms.entry(*r).or_insert_with(BigInt::zero) += factor * c;
        }
        self.terms.retain(|_, c| !c.is_zero());
        self.constant += factor * &other.constant;
        self
    }

    fn scaled(&self, factor: &BigInt) -> Linear {
        Linear::constant(BigInt::zero()).plus(factor, self)
    }

    /// `self ≥ 0` as a fact; `None` without a reference.
    fn at_least_zero(self) -> Option<Fact> {
        (!self.terms.is_empty()).then(|| Fact {
            terms: self.terms.into_iter().collect(),
            constant: -self.constant,
        })
    }
}

/// Records the facts of the asserts in `e`, with the local variables `env`
/// (innermost last; `None` where not linear).
fn walk(e: &Expr, env: &mut Vec<Option<Linear>>, out: &mut Vec<Fact>) {
    match &e.kind {
        ExprKind::Let(a, b) => {
            walk(a, env, out);
            env.push(linear(a, env));
            walk(b, env, out);
            env.pop();
            return;
        }
        ExprKind::LetRec(_, b) => {
            env.push(None);
            walk(b, env, out);
            env.pop();
            return;
        }
        ExprKind::Match(scrutinee, nil, cons) => {
            walk(scrutinee, env, out);
            walk(nil, env, out);
            // The head and the tail are not linear expressions of the references.
            env.extend([None, None]);
            walk(cons, env, out);
            env.truncate(env.len() - 2);
            return;
        }
        ExprKind::Assert(c) => {
            for fact in conjuncts(c, env, true) {
                if !out.contains(&fact) {
                    out.push(fact);
                }
            }
        }
        _ => {}
    }
    for child in e.children() {
        walk(child, env, out);
    }
}

/// The facts that `e` being nonzero (with `holds`; zero without) amounts to, for the
/// parts of it that are comparisons of linear expressions.
fn conjuncts(e: &Expr, env: &[Option<Linear>], holds: bool) -> Vec<Fact> {
    match &e.kind {
        ExprKind::Not(a) => conjuncts(a, env, !holds),
        ExprKind::Binary(BinOp::And, a, b) if holds => {
            let mut facts = conjuncts(a, env, true);
            facts.extend(conjuncts(b, env, true));
            facts
        }
        ExprKind::Binary(BinOp::Or, a, b) if !holds => {
            let mut facts = conjuncts(a, env, false);
            facts.extend(conjuncts(b, env, false));
            facts
        }
        ExprKind::Binary(op, a, b) => {
            let (Some(a), Some(b)) = (linear(a, env), linear(b, env)) else {
                return Vec::new();
            };
            let one = BigInt::one();
            let a_minus_b = a.clone().plus(&-&one, &b);
            let b_minus_a = b.plus(&-&one, &a);
            // Each as `x ≥ 0`; a strict comparison of integers is `≥ 1`.
            let strict = |x: Linear| x.plus(&one, &Linear::constant(-&one));
            let facts = match (op, holds) {
                (BinOp::Le, true) | (BinOp::Gt, false) => vec![b_minus_a],
                (BinOp::Ge, true) | (BinOp::Lt, false) => vec![a_minus_b],
                (BinOp::Lt, true) | (BinOp::Ge, false) => vec![strict(b_minus_a)],
                (BinOp::Gt, true) | (BinOp::Le, false) => vec![strict(a_minus_b)],
                (BinOp::Eq, true) => vec![a_minus_b, b_minus_a],
                _ => Vec::new(),
            };
            facts
                .into_iter()
                .filter_map(Linear::at_least_zero)
                .collect()
        }
        _ => Vec::new(),
    }
}

/// `e` as a linear expression over references, if it is one.
fn linear(e: &Expr, env: &[Option<Linear>]) -> Option<Linear> {
    match &e.kind {
        ExprKind::Int(n) => Some(Linear::constant(n.clone())),
        ExprKind::Deref(r) => Some(Linear {
            terms: BTreeMap::from([(*r, BigInt::one())]),
            constant: BigInt::zero(),
        }),
        ExprKind::Local(i) => {
            let at = env.len().checked_sub(*i as usize + 1)?;
            env.get(at)?.clone()
        }
        ExprKind::Binary(BinOp::Add, a, b) => {
            Some(linear(a, env)?.plus(&BigInt::one(), &linear(b, env)?))
        }
        ExprKind::Binary(BinOp::Sub, a, b) => {
            Some(linear(a, env)?.plus(&-BigInt::one(), &linear(b, env)?))
        }
        ExprKind::Binary(BinOp::Mul, a, b) => {
            let (a, b) = (linear(a, env)?, linear(b, env)?);
            match (a.terms.is_empty(), b.terms.is_empty()) {
                (true, _) => Some(b.scaled(&a.constant)),
                (_, true) => Some(a.scaled(&b.constant)),
                _ => None,
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::overapprox::havoc::tests::library;
    use super::*;

    fn shown(lib: &Library, facts: &[Fact]) -> Vec<String> {
        facts
            .iter()
            .map(|f| {
                let sum: Vec<String> = f
                    .terms
                    .iter()
                    .map(|(r, c)| format!("{c}*{}", lib.refs[*r as usize]))
                    .collect();
                format!("{} >= {}", sum.join(" + "), f.constant)
            })
            .collect()
    }

    #[test]
    fn asserts_over_the_store_become_linear_facts() {
        let lib = library(
            "int a := 3; int b := 0; int c := 1;
             public audit (u:unit) :(int) = {
               assert (0 <= !a + !b && not (!c < 1));
               (let held = !a + 2 * !b in
                assert (held - !c == 2);
                held)
             };",
        );
        assert_eq!(
            shown(&lib, &facts(&lib)),
            [
                "1*a + 1*b >= 0",
                "1*c >= 1",
                "1*a + 2*b + -1*c >= 2",
                "-1*a + -2*b + 1*c >= -2",
            ]
        );
    }

    #[test]
    fn what_is_not_linear_over_the_store_or_false_initially_is_left_out() {
        let lib = library(
            "int a := 3; int b := 0;
             public m (x:int) :(int) = {
               assert (!a * !b == 0);
               assert (!a < x);
               assert (not (!a == !b));
               assert (!a <= !b);
               assert (!a < 5 || !b < 1);
               assert (not (!a < 0 || !b < 0));
               0
             };",
        );
        assert_eq!(shown(&lib, &facts(&lib)), ["1*a >= 0", "1*b >= 0"]);
    }
}
