//! Linear projections simplified before Z3's `qe`, exactly over the integers.
//!
//! Many path conditions that are not difference constraints ([`super::difference`])
//! are still simple. The bank account of HOLiK's reentrancy libraries gives a chain
//! like `s1 ≤ 100`, `s2 ≤ 100 - s1`, `0 ≤ 100 - s1 - s2`, … over ten or more symbols.
//! `qe` took 2–4 ms on each such chain (about two thirds of the whole search on
//! reentrancy_safe-mo k5 l3), yet four rules eliminate most of it. Each keeps the
//! projection exact over the integers:
//! - An equality in which a symbol has coefficient ±1 defines that symbol by the
//!   others. Substituting the definition is exact, because the value it gives is an
//!   integer.
//! - A symbol in no equality, whose coefficients in the inequalities all have one sign,
//!   is bounded on one side only. Some integer satisfies all of them for any values of
//!   the others, so those inequalities are dropped.
//! - A symbol in no equality whose coefficients are all ±1 lies between integer lower
//!   bounds `L` and upper bounds `U`. Some integer does iff every `L ≤ U`, so its
//!   bounds are replaced by those pairs (a Fourier–Motzkin step, exact here), while
//!   the system stays small.
//! - Last, an equality `a·s + R = 0` with `|a| ≥ 2` (the least such `|a|`) defines
//!   `s = -R/a`, an integer iff `|a|` divides `R`: that multiple is kept (a
//!   constraint `m | L`), and every other constraint is multiplied by `|a|` before
//!   `a·s` is replaced by `-R`, which keeps it exact. A wide library's writes
//!   (`r := !r + x` twice) double its symbols, and `qe` spent seconds, often its
//!   whole limit, on each such system of a few symbols. The rules above leave a
//!   symbol of a multiple alone (one-sided or paired bounds say nothing of a
//!   residue); `qe` gets `m | L` as `L = m·k` with `k` bound beside the symbols.
//!
//! A disequality `L ≠ 0` is, over the integers, `L ≥ 1 ∨ -L ≥ 1`: with a few of them
//! (an `assert (not (!r == 3))` passed on the path), each way of choosing a side is a
//! system of its own, simplified on its own, and the region is the union of theirs
//! (what is left of each eliminated by `qe` on its own, [`super::solver`]). Z3's `qe`
//! spent the solver's 10 s limit on each such projection of a long method, whole.
//!
//! What remains is either a system over the slots alone (the region itself) or a
//! smaller question for `qe`. A disjunction, a division or more disequalities than
//! [`MAX_UNEQUAL`] are left to `qe` whole.

use super::config::PcNode;
use super::term::{Node, Term};
use crate::syntax::ast::BinOp;
use num_bigint::BigInt;
use rustc_hash::FxHashMap;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// A variable of a projection: a term's slot `y_i` (kept) or a symbol (eliminated).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Var {
    Slot(usize),
    Symbol(u32),
}

/// `Σ coefficient · variable + constant`, with no zero coefficients.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Linear {
    pub coefficients: BTreeMap<Var, i64>,
    pub constant: i64,
}

/// `linear = 0`, `linear ≥ 0` or `m | linear`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Constraint {
    pub linear: Linear,
    pub relation: Relation,
}

/// How a [`Constraint`]'s linear form relates to zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relation {
    Zero,
    NonNegative,
    /// A multiple of the modulus (at least 2): what remains of an equality that
    /// defined a symbol with a coefficient other than ±1.
    Multiple(i64),
}

/// Why a question was not simplified.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Beyond {
    /// A conjunct is not a conjunction of linear equalities and inequalities, or a
    /// term is not linear without division: a question for `qe`.
    Shape,
    /// A coefficient or constant outgrew 64 bits: the values of a long method whose
    /// statements each add two references (`a := !b - !a`) grow like Fibonacci's, and
    /// `qe` on them ran out the solver's time limit at every projection.
    Overflow,
}

/// A projection after simplification.
#[derive(Debug, PartialEq, Eq)]
pub enum Projection {
    /// No tuple: the constraints contradict each other.
    Empty,
    /// The tuples of slot values for which some values of `symbols` satisfy all of
    /// `constraints`; with no `symbols`, the conjunction itself is the region.
    Exists {
        symbols: Vec<u32>,
        constraints: Vec<Constraint>,
    },
    /// The tuples of slot values for which some values of `symbols` satisfy one of the
    /// conjunctions: the question's disequalities read each way.
    Cases {
        symbols: Vec<u32>,
        cases: Vec<Vec<Constraint>>,
    },
}

/// The most disequalities whose 2ⁿ readings [`project`] simplifies one by one.
const MAX_UNEQUAL: usize = 4;

/// The values `terms` take together under the conjuncts `projected`, simplified; why
/// not, if a conjunct is not a conjunction of linear equalities and inequalities, a
/// term is not linear without division, or a coefficient overflows.
pub fn project(terms: &[Term], projected: &[&PcNode]) -> Result<Projection, Beyond> {
    let mut constraints = Vec::new();
    let mut unequal = Vec::new();
    for p in projected {
        conjuncts(&p.term, p.holds, &mut constraints, &mut unequal)?;
    }
    for (i, t) in terms.iter().enumerate() {
        // y_i - t = 0
        let mut slot = Linear::default();
        slot.coefficients.insert(Var::Slot(i), 1);
        constraints.push(Constraint {
            linear: slot.plus(&linear(t)?, -1)?,
            relation: Relation::Zero,
        });
    }
    if unequal.is_empty() {
        return eliminate(constraints);
    }
    if unequal.len() > MAX_UNEQUAL {
        return Err(Beyond::Shape);
    }
    let (mut cases, mut left) = (Vec::new(), BTreeSet::new());
    for choice in 0..1u32 << unequal.len() {
        let mut system = constraints.clone();
        for (i, l) in unequal.iter().enumerate() {
            // l ≥ 1 or -l ≥ 1.
            let side = if choice >> i & 1 == 0 { 1 } else { -1 };
            system.push(Constraint {
                linear: l.times(side)?.plus(&one(), -1)?,
                relation: Relation::NonNegative,
            });
        }
        match eliminate(system)? {
            Projection::Empty => {}
            Projection::Exists {
                symbols,
                constraints,
            } => {
                left.extend(symbols);
                cases.push(constraints);
            }
            Projection::Cases { .. } => return Err(Beyond::Shape),
        }
    }
    Ok(match cases.is_empty() {
        true => Projection::Empty,
        false => Projection::Cases {
            symbols: left.into_iter().collect(),
            cases,
        },
    })
}

impl Linear {
    fn constant(c: i64) -> Linear {
        Linear {
            coefficients: BTreeMap::new(),
            constant: c,
        }
    }

    /// `self + factor · other`.
    fn plus(&self, other: &Linear, factor: i64) -> Result<Linear, Beyond> {
        let mut sum = self.clone();
        for (&v, &c) in &other.coefficients {
            let old = sum.coefficients.get(&v).copied().unwrap_or(0);
            let new = (c.checked_mul(factor))
                .and_then(|m| old.checked_add(m))
                .ok_or(Beyond::Overflow)?;
            if new == 0 {
                sum.coefficients.remove(&v);
            } else {
                sum.coefficients.insert(v, new);
            }
        }
        sum.constant = (other.constant.checked_mul(factor))
            .and_then(|m| sum.constant.checked_add(m))
            .ok_or(Beyond::Overflow)?;
        Ok(sum)
    }

    fn times(&self, factor: i64) -> Result<Linear, Beyond> {
        Linear::default().plus(self, factor)
    }

    fn coefficient(&self, v: Var) -> i64 {
        self.coefficients.get(&v).copied().unwrap_or(0)
    }
}

/// The term as a linear form; why not for a division, a comparison or logic inside
/// arithmetic, a product of two symbolic terms, or an overflow. Each shared node is
/// made a form once ([`super::term`]: `x := !x - !x` doubles the tree, not the DAG).
fn linear(t: &Term) -> Result<Linear, Beyond> {
    linear_of(t, &mut FxHashMap::default())
}

fn linear_of(
    t: &Term,
    done: &mut FxHashMap<*const Node, Result<Linear, Beyond>>,
) -> Result<Linear, Beyond> {
    let fits = |c: &BigInt| i64::try_from(c).map_err(|_| Beyond::Overflow);
    let node = match t {
        Term::Const(c) => return Ok(Linear::constant(fits(c)?)),
        Term::Node(node) => node,
    };
    if let Some(form) = done.get(&Arc::as_ptr(node)) {
        return form.clone();
    }
    let form = match &**node {
        Node::Sym(n) => {
            let mut l = Linear::default();
            l.coefficients.insert(Var::Symbol(*n), 1);
            Ok(l)
        }
        Node::Bin(BinOp::Add, a, b) => {
            linear_of(a, done).and_then(|x| x.plus(&linear_of(b, done)?, 1))
        }
        Node::Bin(BinOp::Sub, a, b) => {
            linear_of(a, done).and_then(|x| x.plus(&linear_of(b, done)?, -1))
        }
        Node::Bin(BinOp::Mul, a, b) => match (a.as_const(), b.as_const()) {
            (Some(c), _) => linear_of(b, done).and_then(|x| x.times(fits(c)?)),
            (_, Some(c)) => linear_of(a, done).and_then(|x| x.times(fits(c)?)),
            _ => Err(Beyond::Shape),
        },
        _ => Err(Beyond::Shape),
    };
    done.insert(Arc::as_ptr(node), form.clone());
    form
}

/// Adds the constraints that `term ≠ 0` (or `term = 0` if not `holds`) amounts to, its
/// disequalities `L ≠ 0` to `unequal` as `L`; why not if it is not a conjunction of
/// linear equalities, inequalities and disequalities.
fn conjuncts(
    term: &Term,
    holds: bool,
    out: &mut Vec<Constraint>,
    unequal: &mut Vec<Linear>,
) -> Result<(), Beyond> {
    let Term::Node(node) = term else {
        // A constant condition that holds adds nothing; one that does not is `-1 ≥ 0`.
        let truth = term
            .as_const()
            .is_some_and(|c| c.sign() != num_bigint::Sign::NoSign);
        if truth != holds {
            out.push(Constraint {
                linear: Linear::constant(-1),
                relation: Relation::NonNegative,
            });
        }
        return Ok(());
    };
    match &**node {
        Node::Not(a) => conjuncts(a, !holds, out, unequal),
        Node::Bin(BinOp::And, a, b) if holds => {
            conjuncts(a, true, out, unequal)?;
            conjuncts(b, true, out, unequal)
        }
        Node::Bin(BinOp::Or, a, b) if !holds => {
            conjuncts(a, false, out, unequal)?;
            conjuncts(b, false, out, unequal)
        }
        Node::Bin(op, a, b) => {
            let (a, b) = (linear(a)?, linear(b)?);
            // Over the integers, `a < b` is `b - a - 1 ≥ 0`.
            let (linear, relation) = match (op, holds) {
                (BinOp::Eq, true) => (a.plus(&b, -1)?, Relation::Zero),
                (BinOp::Eq, false) => {
                    let difference = a.plus(&b, -1)?;
                    match (difference.coefficients.is_empty(), difference.constant) {
                        // A constant: nothing when it holds, `-1 ≥ 0` when it does not.
                        (true, 0) => (Linear::constant(-1), Relation::NonNegative),
                        (true, _) => return Ok(()),
                        (false, _) => {
                            unequal.push(difference);
                            return Ok(());
                        }
                    }
                }
                (BinOp::Lt, true) | (BinOp::Ge, false) => {
                    (b.plus(&a, -1)?.plus(&one(), -1)?, Relation::NonNegative)
                }
                (BinOp::Le, true) | (BinOp::Gt, false) => (b.plus(&a, -1)?, Relation::NonNegative),
                (BinOp::Gt, true) | (BinOp::Le, false) => {
                    (a.plus(&b, -1)?.plus(&one(), -1)?, Relation::NonNegative)
                }
                (BinOp::Ge, true) | (BinOp::Lt, false) => (a.plus(&b, -1)?, Relation::NonNegative),
                _ => return Err(Beyond::Shape),
            };
            out.push(Constraint { linear, relation });
            Ok(())
        }
        Node::Sym(_) => Err(Beyond::Shape),
    }
}

fn one() -> Linear {
    Linear::constant(1)
}

/// Applies the rules of the module until none applies, symbols in order, and
/// normalises what remains; why not if a coefficient overflows.
fn eliminate(mut constraints: Vec<Constraint>) -> Result<Projection, Beyond> {
    loop {
        let mut kept = Vec::with_capacity(constraints.len());
        for c in constraints {
            match c.normalised()? {
                Normalised::False => return Ok(Projection::Empty),
                Normalised::True => {}
                Normalised::Constraint(c) => {
                    if !kept.contains(&c) {
                        kept.push(c);
                    }
                }
            }
        }
        constraints = kept;
        if let Some((at, symbol)) = definition(&constraints) {
            let defining = constraints.remove(at).linear;
            // c·s + rest = 0 with c = ±1, so s = -c·rest.
            let c = defining.coefficient(Var::Symbol(symbol));
            let mut rest = defining;
            rest.coefficients.remove(&Var::Symbol(symbol));
            let value = rest.times(-c)?;
            for other in &mut constraints {
                let factor = other.linear.coefficient(Var::Symbol(symbol));
                if factor != 0 {
                    other.linear.coefficients.remove(&Var::Symbol(symbol));
                    other.linear = other.linear.plus(&value, factor)?;
                }
            }
            continue;
        }
        if let Some(symbol) = one_sided(&constraints) {
            constraints.retain(|c| c.linear.coefficient(Var::Symbol(symbol)) == 0);
            continue;
        }
        if let Some(symbol) = unit_bounded(&constraints) {
            let var = Var::Symbol(symbol);
            let (bounds, mut rest): (Vec<Constraint>, Vec<Constraint>) = constraints
                .into_iter()
                .partition(|c| c.linear.coefficient(var) != 0);
            // s ≥ L (s - L ≥ 0) and s ≤ U (U - s ≥ 0) give U - L ≥ 0: their sum.
            let (lower, upper): (Vec<&Constraint>, Vec<&Constraint>) =
                bounds.iter().partition(|c| c.linear.coefficient(var) > 0);
            for l in &lower {
                for u in &upper {
                    rest.push(Constraint {
                        linear: l.linear.plus(&u.linear, 1)?,
                        relation: Relation::NonNegative,
                    });
                }
            }
            constraints = rest;
            continue;
        }
        if let Some((at, symbol)) = scaled_definition(&constraints) {
            // An overflow here is one of `qe` too: a library that adds two references
            // again and again (`a := !a + !b; b := !b + !a`, 60 times) gave `qe` two
            // equations with coefficients near 2⁴⁰ and it ran out the solver's limit.
            constraints = defined_as_quotient(&constraints, at, symbol)?;
            continue;
        }
        break;
    }
    let mut symbols: Vec<u32> = constraints
        .iter()
        .flat_map(|c| c.linear.coefficients.keys())
        .filter_map(|v| match v {
            Var::Symbol(n) => Some(*n),
            Var::Slot(_) => None,
        })
        .collect();
    symbols.sort_unstable();
    symbols.dedup();
    Ok(Projection::Exists {
        symbols,
        constraints,
    })
}

/// The first equality with a symbol of coefficient ±1, and the least such symbol.
fn definition(constraints: &[Constraint]) -> Option<(usize, u32)> {
    constraints.iter().enumerate().find_map(|(i, c)| {
        if c.relation != Relation::Zero {
            return None;
        }
        c.linear.coefficients.iter().find_map(|(v, &k)| match v {
            Var::Symbol(n) if matches!(k, 1 | -1) => Some((i, *n)),
            _ => None,
        })
    })
}

/// The equality and symbol of least coefficient (in absolute value, at least 2 when
/// no equality has a ±1, [`definition`]), first of the least.
fn scaled_definition(constraints: &[Constraint]) -> Option<(usize, u32)> {
    (constraints.iter().enumerate())
        .filter(|(_, c)| c.relation == Relation::Zero)
        .flat_map(|(i, c)| {
            c.linear
                .coefficients
                .iter()
                .filter_map(move |(v, &k)| match v {
                    Var::Symbol(n) => Some((k.unsigned_abs(), i, *n)),
                    Var::Slot(_) => None,
                })
        })
        .min()
        .map(|(_, i, n)| (i, n))
}

/// The system with `symbol` eliminated by its equality `constraints[at]`,
/// `a·s + rest = 0`: `s = -rest/a` is an integer iff `|a|` divides `rest`, which is
/// kept as a multiple, and each other constraint `c·s + q ⋈ 0`, multiplied by `|a|`
/// (which keeps it exact, a multiple's modulus multiplied too), becomes
/// `|a|·q - c·sign(a)·rest ⋈ 0`; why not on an overflow.
fn defined_as_quotient(
    constraints: &[Constraint],
    at: usize,
    symbol: u32,
) -> Result<Vec<Constraint>, Beyond> {
    let var = Var::Symbol(symbol);
    let mut rest = constraints[at].linear.clone();
    let a = rest.coefficient(var);
    rest.coefficients.remove(&var);
    let scale = a.checked_abs().ok_or(Beyond::Overflow)?;
    let mut out = Vec::with_capacity(constraints.len());
    for (i, other) in constraints.iter().enumerate() {
        let c = other.linear.coefficient(var);
        if i == at {
            continue;
        }
        if c == 0 {
            out.push(other.clone());
            continue;
        }
        let mut q = other.linear.clone();
        q.coefficients.remove(&var);
        let factor = c.checked_mul(-a.signum()).ok_or(Beyond::Overflow)?;
        let relation = match other.relation {
            Relation::Multiple(m) => {
                Relation::Multiple(m.checked_mul(scale).ok_or(Beyond::Overflow)?)
            }
            same => same,
        };
        out.push(Constraint {
            linear: q.times(scale)?.plus(&rest, factor)?,
            relation,
        });
    }
    out.push(Constraint {
        linear: rest,
        relation: Relation::Multiple(scale),
    });
    Ok(out)
}

/// The least symbol in no equality or multiple whose coefficients all have one sign.
fn one_sided(constraints: &[Constraint]) -> Option<u32> {
    let mut signs: BTreeMap<u32, (bool, bool, bool)> = BTreeMap::new();
    for c in constraints {
        for (v, &k) in &c.linear.coefficients {
            if let Var::Symbol(n) = v {
                let (positive, negative, pinned) = signs.entry(*n).or_default();
                *positive |= k > 0;
                *negative |= k < 0;
                *pinned |= c.relation != Relation::NonNegative;
            }
        }
    }
    signs
        .into_iter()
        .find(|(_, (positive, negative, pinned))| !pinned && positive != negative)
        .map(|(n, _)| n)
}

/// Constraints a system may have after a Fourier–Motzkin step, which replaces a
/// symbol's p lower and q upper bounds by their p·q pairs.
const MAX_BOUNDS: usize = 64;

/// The symbol in no equality or multiple, with coefficients only ±1, whose elimination by pairing
/// its bounds adds the fewest constraints (the least symbol of those), if that keeps
/// the system within [`MAX_BOUNDS`].
fn unit_bounded(constraints: &[Constraint]) -> Option<u32> {
    // For each symbol: lower bounds, upper bounds, and whether it can be paired.
    let mut bounds: BTreeMap<u32, (usize, usize, bool)> = BTreeMap::new();
    for c in constraints {
        for (v, &k) in &c.linear.coefficients {
            if let Var::Symbol(n) = v {
                let (lower, upper, unit) = bounds.entry(*n).or_insert((0, 0, true));
                *unit &= c.relation == Relation::NonNegative && matches!(k, 1 | -1);
                if k > 0 {
                    *lower += 1;
                } else {
                    *upper += 1;
                }
            }
        }
    }
    bounds
        .into_iter()
        .filter(|(_, (lower, upper, unit))| {
            *unit && constraints.len() - lower - upper + lower * upper <= MAX_BOUNDS
        })
        .min_by_key(|(n, (lower, upper, _))| {
            ((lower * upper) as isize - (lower + upper) as isize, *n)
        })
        .map(|(n, _)| n)
}

enum Normalised {
    True,
    False,
    Constraint(Constraint),
}

impl Constraint {
    /// Decided if it has no variables; otherwise divided by the greatest common
    /// divisor of its coefficients (the constant of an inequality rounded down, which
    /// is exact over the integers) and, for an equality, signed so that its first
    /// coefficient is positive; a multiple's coefficients and constant first taken
    /// modulo its modulus; why not on an overflow (2⁶³ as a divisor or a quotient).
    fn normalised(self) -> Result<Normalised, Beyond> {
        let Constraint {
            mut linear,
            relation,
        } = self;
        if let Relation::Multiple(m) = relation {
            return multiple(linear, m);
        }
        let Some(&first) = linear.coefficients.values().next() else {
            return Ok(decided(if relation == Relation::Zero {
                linear.constant == 0
            } else {
                linear.constant >= 0
            }));
        };
        let g = linear
            .coefficients
            .values()
            .try_fold(0, |g, &k| gcd(g, k))
            .ok_or(Beyond::Overflow)?;
        if relation == Relation::Zero {
            if linear.constant % g != 0 {
                return Ok(Normalised::False);
            }
            let divisor = g * first.signum();
            for k in linear.coefficients.values_mut() {
                *k = k.checked_div(divisor).ok_or(Beyond::Overflow)?;
            }
            linear.constant = (linear.constant.checked_div(divisor)).ok_or(Beyond::Overflow)?;
        } else {
            for k in linear.coefficients.values_mut() {
                *k = k.checked_div(g).ok_or(Beyond::Overflow)?;
            }
            linear.constant = (linear.constant.checked_div_euclid(g)).ok_or(Beyond::Overflow)?;
        }
        Ok(Normalised::Constraint(Constraint { linear, relation }))
    }
}

fn decided(holds: bool) -> Normalised {
    if holds {
        Normalised::True
    } else {
        Normalised::False
    }
}

/// `m | linear` with its coefficients and constant in `0..m`, divided by what `m`
/// and the coefficients share: with `g` dividing `m` and every coefficient, `m | L`
/// holds iff `g` divides the constant and `m/g | L/g`.
fn multiple(mut linear: Linear, m: i64) -> Result<Normalised, Beyond> {
    for k in linear.coefficients.values_mut() {
        *k = k.rem_euclid(m);
    }
    linear.coefficients.retain(|_, k| *k != 0);
    linear.constant = linear.constant.rem_euclid(m);
    let g = (linear.coefficients.values())
        .try_fold(m, |g, &k| gcd(g, k))
        .ok_or(Beyond::Overflow)?;
    if linear.coefficients.is_empty() {
        return Ok(decided(linear.constant == 0));
    }
    if linear.constant % g != 0 {
        return Ok(Normalised::False);
    }
    if g == m {
        return Ok(Normalised::True);
    }
    for k in linear.coefficients.values_mut() {
        *k /= g;
    }
    linear.constant /= g;
    Ok(Normalised::Constraint(Constraint {
        linear,
        relation: Relation::Multiple(m / g),
    }))
}

/// `None` when it is 2⁶³, which no `i64` holds.
fn gcd(a: i64, b: i64) -> Option<i64> {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    i64::try_from(a).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigInt;

    fn constraint(pairs: &[(Var, i64)], constant: i64, equality: bool) -> Constraint {
        let relation = match equality {
            true => Relation::Zero,
            false => Relation::NonNegative,
        };
        Constraint {
            linear: Linear {
                coefficients: pairs.iter().copied().collect(),
                constant,
            },
            relation,
        }
    }

    #[test]
    fn a_chain_of_withdrawals_projects_to_the_last_balance_without_qe() {
        // b = 100 - s1 - s2: s1 ≤ 100, s2 ≤ 100 - s1, y0 = 100 - s1 - s2, y1 = s2.
        let (s1, s2) = (Var::Symbol(1), Var::Symbol(2));
        let (y0, y1) = (Var::Slot(0), Var::Slot(1));
        let system = vec![
            constraint(&[(s1, -1)], 100, false),
            constraint(&[(s1, -1), (s2, -1)], 100, false),
            constraint(&[(y0, 1), (s1, 1), (s2, 1)], -100, true),
            constraint(&[(y1, 1), (s2, -1)], 0, true),
        ];
        // s1 := 100 - y0 - s2, then s2 := y1: s1 ≤ 100 becomes y0 + y1 ≥ 0 and
        // s1 + s2 ≤ 100 becomes y0 ≥ 0.
        assert_eq!(
            eliminate(system),
            Ok(Projection::Exists {
                symbols: vec![],
                constraints: vec![
                    constraint(&[(y0, 1), (y1, 1)], 0, false),
                    constraint(&[(y0, 1)], 0, false),
                ],
            })
        );
    }

    #[test]
    fn a_symbol_between_unit_bounds_is_paired_out() {
        // 0 ≤ s1 ≤ y0 - 1 and s1 ≤ 5 over the integers: 1 ≤ y0 and 0 ≤ 5.
        let (s1, y0) = (Var::Symbol(1), Var::Slot(0));
        let system = vec![
            constraint(&[(s1, 1)], 0, false),
            constraint(&[(y0, 1), (s1, -1)], -1, false),
            constraint(&[(s1, -1)], 5, false),
        ];
        assert_eq!(
            eliminate(system),
            Ok(Projection::Exists {
                symbols: vec![],
                constraints: vec![constraint(&[(y0, 1)], -1, false)],
            })
        );
    }

    #[test]
    fn an_equality_without_a_unit_coefficient_defines_its_symbol_where_it_divides() {
        // y0 = 2·s1 + 1 and y1 = 6·s1 + s2 with s1 ≥ 3 and 0 ≤ s2 ≤ 2: s1 = (y0 - 1)/2,
        // so y0 is odd and y0 ≥ 7; then s2 = y1 - 3·y0 + 3 lies in 0..=2.
        let (s1, s2, y0, y1) = (Var::Symbol(1), Var::Symbol(2), Var::Slot(0), Var::Slot(1));
        let system = vec![
            constraint(&[(y0, 1), (s1, -2)], -1, true),
            constraint(&[(y1, 1), (s1, -6), (s2, -1)], 0, true),
            constraint(&[(s1, 1)], -3, false),
            constraint(&[(s2, 1)], 0, false),
            constraint(&[(s2, -1)], 2, false),
        ];
        let Ok(Projection::Exists {
            symbols,
            constraints,
        }) = eliminate(system)
        else {
            panic!("a system");
        };
        assert_eq!(symbols, Vec::<u32>::new());
        let holds = |y: [i64; 2]| {
            constraints.iter().all(|c| {
                let value = (c.linear.coefficients.iter())
                    .map(|(v, k)| match v {
                        Var::Slot(i) => k * y[*i],
                        Var::Symbol(_) => unreachable!("no symbol is left"),
                    })
                    .sum::<i64>()
                    + c.linear.constant;
                match c.relation {
                    Relation::Zero => value == 0,
                    Relation::NonNegative => value >= 0,
                    Relation::Multiple(m) => value % m == 0,
                }
            })
        };
        for y0 in -5..20 {
            for y1 in -5..60 {
                let exists = (3..12).any(|a| (0..=2).any(|b| y0 == 2 * a + 1 && y1 == 6 * a + b));
                assert_eq!(holds([y0, y1]), exists, "at ({y0}, {y1}): {constraints:?}");
            }
        }
    }

    #[test]
    fn multiples_are_taken_modulo_and_divided_by_what_they_share() {
        let (y0, y1) = (Var::Slot(0), Var::Slot(1));
        let multiple = |pairs: &[(Var, i64)], constant: i64, m: i64| Constraint {
            linear: Linear {
                coefficients: pairs.iter().copied().collect(),
                constant,
            },
            relation: Relation::Multiple(m),
        };
        // 6 | 4·y0 + 8·y1 + 2 is 3 | 2·y0 + y1 + 1.
        let Ok(Normalised::Constraint(c)) = multiple(&[(y0, 4), (y1, 8)], 2, 6).normalised() else {
            panic!("a constraint");
        };
        assert_eq!(c, multiple(&[(y0, 2), (y1, 1)], 1, 3));
        // 4 | 2·y0 + 1: never (2·y0 + 1 is odd); 2 | 4·y0 + 6: always.
        assert!(matches!(
            multiple(&[(y0, 2)], 1, 4).normalised(),
            Ok(Normalised::False)
        ));
        assert!(matches!(
            multiple(&[(y0, 4)], 6, 2).normalised(),
            Ok(Normalised::True)
        ));
        // -7 ≡ 2 (mod 3).
        assert!(matches!(
            multiple(&[], -7, 3).normalised(),
            Ok(Normalised::False)
        ));
        assert!(matches!(
            multiple(&[], -9, 3).normalised(),
            Ok(Normalised::True)
        ));
    }

    #[test]
    fn a_symbol_bounded_on_both_sides_with_another_coefficient_is_left_to_qe() {
        // 0 ≤ s1 and 2·s1 ≤ y0: the region is y0 ≥ 0, but only qe says so.
        let (s1, y0) = (Var::Symbol(1), Var::Slot(0));
        let system = vec![
            constraint(&[(s1, 1)], 0, false),
            constraint(&[(y0, 1), (s1, -2)], 0, false),
        ];
        assert_eq!(
            eliminate(system.clone()),
            Ok(Projection::Exists {
                symbols: vec![1],
                constraints: system,
            })
        );
    }

    fn sym(n: u32) -> Term {
        Term::sym(n)
    }

    fn int(n: i64) -> Term {
        Term::Const(n.into())
    }

    fn bin(op: BinOp, a: &Term, b: &Term) -> Term {
        Term::binary(op, a, b).expect("no division by a constant 0")
    }

    fn read(term: &Term, holds: bool) -> Result<Vec<Constraint>, Beyond> {
        let (mut out, mut unequal) = (Vec::new(), Vec::new());
        conjuncts(term, holds, &mut out, &mut unequal)?;
        assert!(unequal.is_empty(), "{unequal:?}");
        Ok(out)
    }

    #[test]
    fn disequalities_are_set_apart_and_constant_ones_decided() {
        let (mut out, mut unequal) = (Vec::new(), Vec::new());
        // not (x1 == 3): x1 - 3 ≠ 0; not (2 == 3) holds; not (3 == 3) fails.
        for (a, b) in [(sym(1), int(3)), (int(2), int(3)), (int(3), int(3))] {
            conjuncts(&bin(BinOp::Eq, &a, &b), false, &mut out, &mut unequal).unwrap();
        }
        let mut x1 = Linear::constant(-3);
        x1.coefficients.insert(Var::Symbol(1), 1);
        assert_eq!(unequal, vec![x1]);
        assert_eq!(out, vec![constraint(&[], -1, false)]);
    }

    #[test]
    fn negations_conjunctions_and_failed_disjunctions_are_read_as_conjunctions() {
        let (x1, x2) = (Var::Symbol(1), Var::Symbol(2));
        // not (x1 < 3): x1 - 3 ≥ 0
        let not_less = Term::not(&bin(BinOp::Lt, &sym(1), &int(3)));
        assert_eq!(
            read(&not_less, true),
            Ok(vec![constraint(&[(x1, 1)], -3, false)])
        );
        // x1 ≤ 2 && x2 == x1: 2 - x1 ≥ 0, x2 - x1 = 0
        let both = bin(
            BinOp::And,
            &bin(BinOp::Le, &sym(1), &int(2)),
            &bin(BinOp::Eq, &sym(2), &sym(1)),
        );
        assert_eq!(
            read(&both, true),
            Ok(vec![
                constraint(&[(x1, -1)], 2, false),
                constraint(&[(x1, -1), (x2, 1)], 0, true),
            ])
        );
        // not (x1 > 0 || 3·x2 > 0): -x1 ≥ 0, -3·x2 ≥ 0
        let either = bin(
            BinOp::Or,
            &bin(BinOp::Gt, &sym(1), &int(0)),
            &bin(BinOp::Gt, &bin(BinOp::Mul, &int(3), &sym(2)), &int(0)),
        );
        assert_eq!(
            read(&either, false),
            Ok(vec![
                constraint(&[(x1, -1)], 0, false),
                constraint(&[(x2, -3)], 0, false),
            ])
        );
        // A constant condition: nothing when it holds, -1 ≥ 0 when it does not.
        assert_eq!(read(&int(1), true), Ok(vec![]));
        assert_eq!(read(&int(0), true), Ok(vec![constraint(&[], -1, false)]));
    }

    #[test]
    fn what_is_not_a_conjunction_of_linear_comparisons_is_left_to_qe() {
        let (x1, x2) = (sym(1), sym(2));
        let less = bin(BinOp::Lt, &x1, &x2);
        let cases = [
            // A disjunction that holds, a conjunction that fails.
            (bin(BinOp::Or, &less, &less), true),
            (bin(BinOp::And, &less, &less), false),
            // A symbol as a condition (x1 ≠ 0), and arithmetic as one.
            (x1.clone(), true),
            (bin(BinOp::Add, &x1, &int(1)), true),
            // A division, a product of symbols, a comparison inside arithmetic.
            (bin(BinOp::Lt, &bin(BinOp::Div, &x1, &int(2)), &x2), true),
            (bin(BinOp::Lt, &bin(BinOp::Mul, &x1, &x2), &int(0)), true),
            (bin(BinOp::Lt, &bin(BinOp::Add, &less, &x1), &int(0)), true),
        ];
        for (term, holds) in cases {
            assert_eq!(read(&term, holds), Err(Beyond::Shape), "{term:?} {holds}");
        }
        // A constant beyond 64 bits is no question for `qe` either.
        let beyond = bin(BinOp::Lt, &x1, &Term::Const(BigInt::from(u64::MAX)));
        assert_eq!(read(&beyond, true), Err(Beyond::Overflow));
    }

    #[test]
    fn an_overflow_gives_no_projection() {
        // i64::MIN - x1 = 0: normalised, its coefficients would be divided by -1.
        let (x1, y0) = (Var::Symbol(1), Var::Slot(0));
        let system = vec![
            constraint(&[(x1, -1)], i64::MIN, true),
            constraint(&[(y0, 1), (x1, -1)], 0, true),
        ];
        assert_eq!(eliminate(system), Err(Beyond::Overflow));
        // y0 = 2·x1 + 2·x2 with x1 = 2⁶² + 1: substituting x1 overflows.
        let x2 = Var::Symbol(2);
        let system = vec![
            constraint(&[(x1, 1)], -(i64::MAX / 2 + 2), true),
            constraint(&[(y0, 1), (x1, -2), (x2, -2)], 0, true),
        ];
        assert_eq!(eliminate(system), Err(Beyond::Overflow));
        // y0 = 2⁴⁰·x1 + 2⁴⁰ and y1 = (2⁴⁰ + 1)·x1 + 2⁴¹: defining x1 by the first
        // multiplies the second, its constant too, by 2⁴⁰, past 2⁶³.
        let big = 1 << 40;
        let system = vec![
            constraint(&[(y0, 1), (x1, -big)], -big, true),
            constraint(&[(Var::Slot(1), 1), (x1, -(big + 1))], -2 * big, true),
        ];
        assert_eq!(eliminate(system), Err(Beyond::Overflow));
    }

    #[test]
    fn an_equality_no_integer_satisfies_is_empty() {
        // 2·y0 = 1
        let system = vec![constraint(&[(Var::Slot(0), 2)], -1, true)];
        assert_eq!(eliminate(system), Ok(Projection::Empty));
    }
}
