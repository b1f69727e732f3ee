//! Small questions decided exactly, without Z3.
//!
//! A comparison of two libraries asks few questions, most of them about one symbol
//! (`0 ≤ s1 ∧ s1 ≤ 1` for a boolean the client plays, `s1 + 1 - 1 = s1`, a bound
//! against a constant), and starting Z3 for them costs more than the whole
//! comparison: here its context takes 7–10 ms and the solver's first push 5–7 ms,
//! against 8 ms for a whole run that asks nothing. Such questions are decided here,
//! exactly over the integers:
//! - a conjunct whose atoms are linear and lose every symbol once collected
//!   (`s1 + 1 - 1 = s1`) is true or false whatever the symbols;
//! - a conjunct over one symbol denotes a finite union of integer intervals: a linear
//!   atom is an interval (or a point, or its complement), and `&&`, `||`, `not` and
//!   comparisons of truth values are set operations. The conjuncts over a symbol
//!   bound its values exactly, so an empty intersection is unsatisfiable;
//! - when conjuncts over several symbols remain, and the sets of all their symbols are
//!   finite and small (booleans), every combination is evaluated.
//!
//! Anything else (a product of symbols, a division by a symbol, a large domain) is
//! left to Z3. A model is checked by evaluating every conjunct before it is given, so
//! only an unsatisfiable answer rests on the reasoning above (tested against Z3).

use super::term::{Node, Term, Witness};
use crate::ops;
use crate::syntax::ast::BinOp;
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, Zero};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

/// What a question decided here is.
#[derive(Debug, PartialEq, Eq)]
pub enum Decision {
    /// Satisfiable: a value for each symbol of the question, in its order.
    Sat(Vec<BigInt>),
    Unsat,
}

/// The most combinations of values evaluated for conjuncts over several symbols.
const MAX_COMBINATIONS: u64 = 1024;

/// Decides whether every `(term, holds)` of `parts` holds together (`term ≠ 0` is
/// `holds`), where `symbols` are all their symbols; `None` when the question is
/// not of a kind decided here. A model keeps `witness`'s value of a symbol where it
/// can, else takes the value closest to 0.
pub fn decide(parts: &[(Term, bool)], symbols: &[u32], witness: &Witness) -> Option<Decision> {
    let mut domains: BTreeMap<u32, Set> = symbols.iter().map(|&n| (n, Set::all())).collect();
    let mut several = Vec::new();
    for (term, holds) in parts {
        match analyse(term) {
            Ok(Truth { over: None, set }) => {
                if set.is_empty() == *holds {
                    return Some(Decision::Unsat);
                }
            }
            Ok(Truth { over: Some(n), set }) => {
                let set = if *holds { set } else { set.complement() };
                let domain = domains.entry(n).or_insert_with(Set::all);
                *domain = domain.intersect(&set);
                if domain.is_empty() {
                    return Some(Decision::Unsat);
                }
            }
            Err(Beyond) => several.push((term, *holds)),
        }
    }
    let prefer = |n: u32| witness.get(&n).cloned().unwrap_or_default();
    let mut model = witness.clone();
    for (&n, domain) in &domains {
        model.insert(n, domain.pick(&prefer(n))?);
    }
    if !several.is_empty() {
        let mut free = Vec::new();
        for (term, _) in &several {
            term.symbols(&mut free);
        }
        let mut choices = Vec::new();
        let mut combinations = 1u64;
        for &n in &free {
            let values = domains.get(&n)?.values(&prefer(n), MAX_COMBINATIONS)?;
            combinations = combinations.checked_mul(values.len() as u64)?;
            if combinations > MAX_COMBINATIONS {
                return None;
            }
            choices.push(values);
        }
        if !first_combination(&several, &free, &choices, &mut model)? {
            return Some(Decision::Unsat);
        }
    }
    // The model must satisfy every conjunct; the sets above only make it so.
    let holds_all = parts.iter().all(|(term, holds)| {
        term.eval(&model)
            .is_some_and(|v| ops::is_true(&v) == *holds)
    });
    debug_assert!(holds_all, "a model of a presolved question satisfies it");
    holds_all.then(|| {
        Decision::Sat(
            symbols
                .iter()
                .map(|n| model.get(n).cloned().unwrap_or_default())
                .collect(),
        )
    })
}

/// Sets `model`'s values of `free` to the first combination of `choices` (in order)
/// under which every part of `several` holds: whether there is one. `None` when a
/// part cannot be evaluated (a division by zero), which Z3 reads differently.
fn first_combination(
    several: &[(&Term, bool)],
    free: &[u32],
    choices: &[Vec<BigInt>],
    model: &mut Witness,
) -> Option<bool> {
    let mut at = vec![0usize; free.len()];
    loop {
        for (i, &n) in free.iter().enumerate() {
            model.insert(n, choices[i][at[i]].clone());
        }
        let mut all = true;
        for (term, holds) in several {
            if ops::is_true(&term.eval(model)?) != *holds {
                all = false;
                break;
            }
        }
        if all {
            return Some(true);
        }
        // The next combination, the last symbol's value turning fastest.
        let mut i = free.len();
        loop {
            if i == 0 {
                return Some(false);
            }
            i -= 1;
            at[i] += 1;
            if at[i] < choices[i].len() {
                break;
            }
            at[i] = 0;
        }
    }
}

/// A conjunct's set of values was not computed: its atoms mention two symbols or
/// more, or it multiplies or divides symbols, or computes with truth values. It is
/// evaluated over the combinations of its symbols' values, if they are few.
#[derive(Debug)]
struct Beyond;

/// The values of the one symbol `over` (none: of any symbols) for which a term is
/// non-zero.
struct Truth {
    over: Option<u32>,
    set: Set,
}

/// A term's value as a function of the conjunct's one symbol.
#[derive(Clone)]
enum Value {
    /// `Σ k·symbol + c` (several symbols, until the atom that collects them).
    Linear(BTreeMap<u32, BigInt>, BigInt),
    /// A truth value (0 or 1): 1 exactly on this set.
    Truth(Set),
}

fn analyse(term: &Term) -> Result<Truth, Beyond> {
    let mut over = None;
    let set =
        value(term, &mut over, &mut FxHashMap::default()).and_then(|v| truth(v, &mut over))?;
    Ok(Truth { over, set })
}

/// The value of `term`, whose atoms mention no symbol but `over` (fixed by the first
/// atom that mentions one). Shared subterms are computed once.
fn value(
    term: &Term,
    over: &mut Option<u32>,
    done: &mut FxHashMap<*const Node, Value>,
) -> Result<Value, Beyond> {
    let node = match term {
        Term::Const(c) => return Ok(Value::Linear(BTreeMap::new(), c.clone())),
        Term::Node(node) => node,
    };
    if let Some(v) = done.get(&std::sync::Arc::as_ptr(node)) {
        return Ok(v.clone());
    }
    let v = match &**node {
        Node::Sym(n) => Value::Linear([(*n, BigInt::one())].into(), BigInt::zero()),
        Node::Not(a) => Value::Truth(truth(value(a, over, done)?, over)?.complement()),
        Node::Bin(op, a, b) => {
            let (a, b) = (value(a, over, done)?, value(b, over, done)?);
            binary(*op, a, b, over)?
        }
    };
    done.insert(std::sync::Arc::as_ptr(node), v.clone());
    Ok(v)
}

fn binary(op: BinOp, a: Value, b: Value, over: &mut Option<u32>) -> Result<Value, Beyond> {
    use Value::{Linear, Truth};
    Ok(match (op, a, b) {
        (BinOp::Add | BinOp::Sub, Linear(mut ka, ca), Linear(kb, cb)) => {
            let sign = if op == BinOp::Add { 1 } else { -1 };
            for (n, k) in kb {
                *ka.entry(n).or_insert_with(BigInt::zero) += k * sign;
            }
            ka.retain(|_, k| !k.is_zero());
            Linear(ka, ca + cb * sign)
        }
        (BinOp::Mul, Linear(ka, ca), Linear(kb, cb)) => {
            let (k, c, by) = match (ka.is_empty(), kb.is_empty()) {
                (_, true) => (ka, ca, cb),
                (true, false) => (kb, cb, ca),
                (false, false) => return Err(Beyond),
            };
            let k: BTreeMap<u32, BigInt> = (k.into_iter())
                .map(|(n, k)| (n, k * &by))
                .filter(|(_, k)| !k.is_zero())
                .collect();
            Linear(k, c * by)
        }
        (BinOp::Div | BinOp::Mod, Linear(ka, ca), Linear(kb, cb))
            if ka.is_empty() && kb.is_empty() =>
        {
            Linear(
                BTreeMap::new(),
                ops::apply(op, &ca, &cb).map_err(|_| Beyond)?,
            )
        }
        (BinOp::And | BinOp::Or, a, b) => {
            let (a, b) = (truth(a, over)?, truth(b, over)?);
            Truth(if op == BinOp::And {
                a.intersect(&b)
            } else {
                a.union(&b)
            })
        }
        (BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge | BinOp::Eq, a, b) => {
            Truth(compare(op, a, b, over)?)
        }
        _ => return Err(Beyond),
    })
}

/// Where a value is non-zero.
fn truth(v: Value, over: &mut Option<u32>) -> Result<Set, Beyond> {
    match v {
        Value::Truth(set) => Ok(set),
        Value::Linear(k, c) => Ok(atom(BinOp::Eq, &k, &c, over)?.complement()),
    }
}

/// Where `a op b` holds. A truth value is 0 or 1: compared with a linear value, it is
/// each of them where it takes it.
fn compare(op: BinOp, a: Value, b: Value, over: &mut Option<u32>) -> Result<Set, Beyond> {
    let cases = |v: Value| -> Vec<(Set, Option<Value>)> {
        match v {
            Value::Truth(set) => vec![
                (
                    set.complement(),
                    Some(Value::Linear(BTreeMap::new(), BigInt::zero())),
                ),
                (set, Some(Value::Linear(BTreeMap::new(), BigInt::one()))),
            ],
            linear => vec![(Set::all(), Some(linear))],
        }
    };
    let mut out = Set::empty();
    for (where_a, a) in cases(a) {
        for (where_b, b) in cases(b.clone()) {
            let (Some(Value::Linear(ka, ca)), Some(Value::Linear(mut kb, cb))) = (a.clone(), b)
            else {
                return Err(Beyond);
            };
            // `a - b op 0`.
            for (n, k) in ka {
                *kb.entry(n).or_insert_with(BigInt::zero) -= k;
            }
            let k: BTreeMap<u32, BigInt> = (kb.into_iter())
                .map(|(n, k)| (n, -k))
                .filter(|(_, k)| !k.is_zero())
                .collect();
            let holds = atom(op, &k, &(ca - cb), over)?;
            out = out.union(&where_a.intersect(&where_b).intersect(&holds));
        }
    }
    Ok(out)
}

/// Where `Σ k·symbol + c op 0` holds, over the conjunct's one symbol.
fn atom(
    op: BinOp,
    k: &BTreeMap<u32, BigInt>,
    c: &BigInt,
    over: &mut Option<u32>,
) -> Result<Set, Beyond> {
    let k = match k.iter().next() {
        None => {
            let holds = ops::apply(op, c, &BigInt::zero()).map_err(|_| Beyond)?;
            return Ok(if ops::is_true(&holds) {
                Set::all()
            } else {
                Set::empty()
            });
        }
        Some(_) if k.len() > 1 => return Err(Beyond),
        Some((&n, k)) => {
            if over.is_some_and(|m| m != n) {
                return Err(Beyond);
            }
            *over = Some(n);
            k
        }
    };
    // Every inequality as `k·x + c ≥ 0`: over the integers, `> 0` is `≥ 1`.
    let (k, c) = match op {
        BinOp::Eq => {
            let (q, r) = (-c).div_rem(k);
            return Ok(if r.is_zero() {
                Set::point(q)
            } else {
                Set::empty()
            });
        }
        BinOp::Ge => (k.clone(), c.clone()),
        BinOp::Gt => (k.clone(), c - 1),
        BinOp::Le => (-k, -c),
        BinOp::Lt => (-k, -c - 1),
        _ => return Err(Beyond),
    };
    // `x ≥ ⌈-c / k⌉` for a positive `k`, `x ≤ ⌊-c / k⌋` for a negative one.
    Ok(if k.is_positive() {
        Set::at_least(-(c.div_floor(&k)))
    } else {
        Set::at_most((-c).div_floor(&k))
    })
}

/// A set of integers: disjoint intervals in increasing order with a gap between any
/// two; an end of `None` is unbounded.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Set(Vec<(Option<BigInt>, Option<BigInt>)>);

impl Set {
    fn all() -> Set {
        Set(vec![(None, None)])
    }

    fn empty() -> Set {
        Set(Vec::new())
    }

    fn point(v: BigInt) -> Set {
        Set(vec![(Some(v.clone()), Some(v))])
    }

    fn at_least(v: BigInt) -> Set {
        Set(vec![(Some(v), None)])
    }

    fn at_most(v: BigInt) -> Set {
        Set(vec![(None, Some(v))])
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn complement(&self) -> Set {
        let mut out = Vec::new();
        // Where the next gap starts (`Some(None)`: unbounded below); `None` once an
        // interval is unbounded above.
        let mut start: Option<Option<BigInt>> = Some(None);
        for (low, high) in &self.0 {
            if let (Some(from), Some(low)) = (start.take(), low) {
                out.push((from, Some(low - 1)));
            }
            start = high.as_ref().map(|h| Some(h + 1));
        }
        if let Some(from) = start {
            out.push((from, None));
        }
        Set(out)
    }

    fn intersect(&self, other: &Set) -> Set {
        let mut out = Vec::new();
        for (a_low, a_high) in &self.0 {
            for (b_low, b_high) in &other.0 {
                let low = match (a_low, b_low) {
                    (Some(a), Some(b)) => Some(a.max(b).clone()),
                    (a, b) => a.clone().or_else(|| b.clone()),
                };
                let high = match (a_high, b_high) {
                    (Some(a), Some(b)) => Some(a.min(b).clone()),
                    (a, b) => a.clone().or_else(|| b.clone()),
                };
                if let (Some(l), Some(h)) = (&low, &high) {
                    if l > h {
                        continue;
                    }
                }
                out.push((low, high));
            }
        }
        // Both were ordered with gaps, so the pieces are too.
        Set(out)
    }

    fn union(&self, other: &Set) -> Set {
        self.complement()
            .intersect(&other.complement())
            .complement()
    }

    fn contains(&self, v: &BigInt) -> bool {
        self.0.iter().any(|(low, high)| {
            low.as_ref().is_none_or(|l| l <= v) && high.as_ref().is_none_or(|h| v <= h)
        })
    }

    /// `prefer` if it is in the set, else the member closest to 0 (the positive one
    /// of two); `None` if the set is empty.
    fn pick(&self, prefer: &BigInt) -> Option<BigInt> {
        if self.contains(prefer) {
            return Some(prefer.clone());
        }
        self.0
            .iter()
            .map(|(low, high)| {
                let mut v = BigInt::zero();
                if let Some(l) = low {
                    v = v.max(l.clone());
                }
                if let Some(h) = high {
                    v = v.min(h.clone());
                }
                v
            })
            .min_by(|a, b| a.abs().cmp(&b.abs()).then(b.cmp(a)))
    }

    /// Every member, `prefer` first and the rest in increasing order; `None` if the
    /// set is infinite or has more than `most` members.
    fn values(&self, prefer: &BigInt, most: u64) -> Option<Vec<BigInt>> {
        let mut out = Vec::new();
        for (low, high) in &self.0 {
            let (Some(low), Some(high)) = (low, high) else {
                return None;
            };
            let mut v = low.clone();
            while &v <= high {
                if out.len() as u64 >= most {
                    return None;
                }
                out.push(v.clone());
                v += 1;
            }
        }
        if let Some(at) = out.iter().position(|v| v == prefer) {
            let v = out.remove(at);
            out.insert(0, v);
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbolic::solver::Solver;
    use proptest::prelude::*;

    fn c(v: i64) -> Term {
        Term::Const(v.into())
    }

    fn s(n: u32) -> Term {
        Term::sym(n)
    }

    fn bin(op: BinOp, a: &Term, b: &Term) -> Term {
        Term::binary(op, a, b).unwrap()
    }

    fn ask(parts: &[(Term, bool)]) -> Option<Decision> {
        let mut symbols = Vec::new();
        for (t, _) in parts {
            t.symbols(&mut symbols);
        }
        decide(parts, &symbols, &Witness::default())
    }

    /// Z3's answer to the same question.
    fn z3_sat(parts: &[(Term, bool)]) -> bool {
        let mut solver = Solver::new();
        let z = z3::Solver::new();
        for (t, holds) in parts {
            let b = solver.bool_of(t);
            z.assert(if *holds { b } else { b.not() });
        }
        match z.check() {
            z3::SatResult::Sat => true,
            z3::SatResult::Unsat => false,
            z3::SatResult::Unknown => panic!("Z3 decides linear integer arithmetic"),
        }
    }

    #[test]
    fn a_condition_whose_symbols_cancel_is_decided_whatever_they_are() {
        let x = s(1);
        let same = bin(
            BinOp::Eq,
            &bin(BinOp::Sub, &bin(BinOp::Add, &x, &c(1)), &c(1)),
            &x,
        );
        assert_eq!(ask(&[(same.clone(), false)]), Some(Decision::Unsat));
        assert_eq!(ask(&[(same, true)]), Some(Decision::Sat(vec![0.into()])));
        let two = bin(BinOp::Sub, &bin(BinOp::Add, &x, &s(2)), &s(2));
        let moved = bin(BinOp::Eq, &two, &x);
        assert_eq!(ask(&[(moved, false)]), Some(Decision::Unsat));
        assert_eq!(ask(&[(c(0), true)]), Some(Decision::Unsat));
    }

    #[test]
    fn the_conjuncts_over_one_symbol_bound_it_exactly() {
        let x = s(1);
        let boolean = x.within(0, 1);
        assert_eq!(
            ask(&[(boolean.clone(), true), (bin(BinOp::Eq, &x, &c(2)), true)]),
            Some(Decision::Unsat)
        );
        // 2·x = 3 has no integer solution; 2·x = 4 has x = 2.
        let twice = bin(BinOp::Mul, &c(2), &x);
        assert_eq!(
            ask(&[(bin(BinOp::Eq, &twice, &c(3)), true)]),
            Some(Decision::Unsat)
        );
        assert_eq!(
            ask(&[(bin(BinOp::Eq, &twice, &c(4)), true)]),
            Some(Decision::Sat(vec![2.into()]))
        );
        // 3 < -2·x < 8: x ∈ {-3, -2}, the one closest to 0 first.
        let minus = bin(BinOp::Mul, &c(-2), &x);
        let between = [
            (bin(BinOp::Lt, &c(3), &minus), true),
            (bin(BinOp::Lt, &minus, &c(8)), true),
        ];
        assert_eq!(ask(&between), Some(Decision::Sat(vec![(-2).into()])));
        let more = [
            between[0].clone(),
            between[1].clone(),
            (bin(BinOp::Gt, &x, &c(-2)), true),
        ];
        assert_eq!(ask(&more), Some(Decision::Unsat));
    }

    #[test]
    fn booleans_over_several_symbols_are_tried_in_every_combination() {
        let (a, b) = (s(1), s(2));
        let booleans = [(a.within(0, 1), true), (b.within(0, 1), true)];
        let equal = bin(BinOp::Eq, &bin(BinOp::Eq, &a, &b), &c(1));
        let mut differ = booleans.to_vec();
        differ.push((equal.clone(), false));
        assert_eq!(ask(&differ), Some(Decision::Sat(vec![0.into(), 1.into()])));
        let mut impossible = differ.clone();
        impossible.push((bin(BinOp::Eq, &a, &b), true));
        assert_eq!(ask(&impossible), Some(Decision::Unsat));
    }

    #[test]
    fn unbounded_symbols_together_and_products_are_left_to_z3() {
        let (a, b) = (s(1), s(2));
        assert_eq!(ask(&[(bin(BinOp::Lt, &a, &b), true)]), None);
        assert_eq!(
            ask(&[(bin(BinOp::Eq, &bin(BinOp::Mul, &a, &a), &c(4)), true)]),
            None
        );
    }

    #[test]
    fn a_model_keeps_the_witness_s_value_where_it_can() {
        let x = s(1);
        let parts = [(bin(BinOp::Gt, &x, &c(3)), true)];
        let witness: Witness = [(1, BigInt::from(7))].into_iter().collect();
        assert_eq!(
            decide(&parts, &[1], &witness),
            Some(Decision::Sat(vec![7.into()]))
        );
        let witness: Witness = [(1, BigInt::from(2))].into_iter().collect();
        assert_eq!(
            decide(&parts, &[1], &witness),
            Some(Decision::Sat(vec![4.into()]))
        );
    }

    #[test]
    fn sets_of_integers_complement_intersect_and_unite() {
        let low = Set::at_most(2.into());
        let high = Set::at_least(5.into());
        let outside = low.union(&high);
        assert_eq!(
            outside.complement(),
            Set(vec![(Some(3.into()), Some(4.into()))])
        );
        assert_eq!(outside.complement().complement(), outside);
        assert!(low.intersect(&high).is_empty());
        assert_eq!(Set::all().complement(), Set::empty());
        assert_eq!(
            Set::point(3.into())
                .union(&Set::point(4.into()))
                .values(&0.into(), 9),
            Some(vec![3.into(), 4.into()])
        );
        assert_eq!(outside.values(&0.into(), 9), None);
    }

    /// `k·x + c` over one of the first `symbols` symbols.
    fn linear(symbols: u32) -> impl Strategy<Value = Term> {
        (-3i64..4, 1..=symbols, -6i64..7)
            .prop_map(|(k, n, v)| bin(BinOp::Add, &bin(BinOp::Mul, &c(k), &s(n)), &c(v)))
    }

    /// Comparisons of linear terms and booleans over the first `symbols` symbols,
    /// under `&&`, `||` and `not`.
    fn formula(symbols: u32) -> impl Strategy<Value = Term> {
        let comparison = prop_oneof![
            Just(BinOp::Lt),
            Just(BinOp::Le),
            Just(BinOp::Gt),
            Just(BinOp::Ge),
            Just(BinOp::Eq),
        ];
        let atom = prop_oneof![
            (comparison, linear(symbols), linear(symbols)).prop_map(|(op, a, b)| bin(op, &a, &b)),
            (1..=symbols).prop_map(|n| s(n).within(0, 1)),
        ];
        atom.prop_recursive(3, 12, 2, |inner| {
            prop_oneof![
                (inner.clone(), inner.clone()).prop_map(|(a, b)| bin(BinOp::And, &a, &b)),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| bin(BinOp::Or, &a, &b)),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| bin(BinOp::Eq, &a, &b)),
                inner.prop_map(|a| Term::not(&a)),
            ]
        })
    }

    /// Terms over two symbols with small constants, of every kind.
    fn term() -> impl Strategy<Value = Term> {
        let leaf = prop_oneof![(-4i64..5).prop_map(c), (1u32..3).prop_map(s)];
        leaf.prop_recursive(4, 24, 2, |inner| {
            let ops = prop_oneof![
                Just(BinOp::Add),
                Just(BinOp::Sub),
                Just(BinOp::Mul),
                Just(BinOp::Lt),
                Just(BinOp::Le),
                Just(BinOp::Gt),
                Just(BinOp::Ge),
                Just(BinOp::Eq),
                Just(BinOp::And),
                Just(BinOp::Or),
            ];
            prop_oneof![
                (ops, inner.clone(), inner.clone()).prop_map(|(op, a, b)| bin(op, &a, &b)),
                inner.prop_map(|a| Term::not(&a)),
            ]
        })
    }

    /// Checks a decision against Z3's, and its model against the question.
    fn agrees(parts: &[(Term, bool)]) -> Result<(), TestCaseError> {
        if let Some(decision) = ask(parts) {
            prop_assert_eq!(matches!(decision, Decision::Sat(_)), z3_sat(parts));
            if let Decision::Sat(values) = decision {
                let mut symbols = Vec::new();
                for (t, _) in parts {
                    t.symbols(&mut symbols);
                }
                let model: Witness = symbols.into_iter().zip(values).collect();
                for (t, holds) in parts {
                    prop_assert_eq!(t.eval(&model).map(|v| ops::is_true(&v)), Some(*holds));
                }
            }
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]
        /// Every question over one symbol is decided, as Z3 decides it.
        #[test]
        fn one_symbol_agrees_with_z3(
            parts in proptest::collection::vec((formula(1), any::<bool>()), 1..4)
        ) {
            prop_assert!(ask(&parts).is_some());
            agrees(&parts)?;
        }

        /// Every question over two symbols decided here is decided as Z3 decides it.
        #[test]
        fn two_symbols_agree_with_z3(
            parts in proptest::collection::vec(
                (prop_oneof![3 => formula(2), 1 => term()], any::<bool>()),
                1..4,
            )
        ) {
            agrees(&parts)?;
        }
    }
}
