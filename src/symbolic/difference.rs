//! Projections of difference constraints, exactly and without Z3's `qe`.
//!
//! Most path conditions semantic subsumption projects are chains of comparisons
//! between symbols and constants (`100 < s1`, `s1 < s2`, `y0 = s2`): difference
//! constraints `x - y ≤ c`. Their projection onto some of their variables is the
//! shortest-path closure restricted to those variables, and it is exact over the
//! integers: a system of difference constraints with integer bounds that has a real
//! solution has an integer one, so a tuple of the kept variables satisfying the
//! restricted closure extends to an integer solution of the whole system. Z3's `qe`
//! took about 5 ms per projection on HOLiK's dos_safe, most of the search's time; the
//! closure takes microseconds. Anything else (a disequality, a disjunction, a product)
//! is left to `qe`.

use super::config::PcNode;
use super::term::{Node, Term};
use crate::syntax::ast::BinOp;

/// `v[a] - v[b] ≤ c`, over variable numbers; variable 0 is the constant 0.
type Edge = (usize, usize, i64);

/// The projection of a system of difference constraints onto its slots.
#[derive(Debug, PartialEq, Eq)]
pub enum Region {
    /// No tuple: the constraints contradict each other.
    Empty,
    /// The tuples of slot values `y` with `y[a] - y[b] ≤ c` for each `(a, b, c)`, where
    /// `None` is the constant 0; no constraints means every tuple.
    Within(Vec<(Option<usize>, Option<usize>, i64)>),
}

/// The values `terms` take together under the conjuncts `projected`, if every one
/// is a difference constraint and every term a symbol plus a constant.
pub fn project(terms: &[Term], projected: &[&PcNode]) -> Option<Region> {
    let mut vars = Vars::default();
    let mut edges = Vec::new();
    for p in projected {
        constraints(&p.term, p.holds, &mut vars, &mut edges)?;
    }
    let offsets: Vec<(usize, i64)> = terms
        .iter()
        .map(|t| offset(t, &mut vars))
        .collect::<Option<_>>()?;
    // Slot i is variable `1 + symbols + i`: `y_i = x + c`.
    let symbols = vars.symbols.len();
    for (i, &(x, c)) in offsets.iter().enumerate() {
        let y = 1 + symbols + i;
        edges.push((y, x, c));
        edges.push((x, y, c.checked_neg()?));
    }
    let n = 1 + symbols + terms.len();
    let closure = shortest_paths(n, &edges)?;
    if (0..n).any(|i| closure[i][i].is_some_and(|c| c < 0)) {
        return Some(Region::Empty);
    }
    let kept: Vec<(usize, Option<usize>)> = std::iter::once((0, None))
        .chain((0..terms.len()).map(|i| (1 + symbols + i, Some(i))))
        .collect();
    let mut within = Vec::new();
    for &(a, slot_a) in &kept {
        for &(b, slot_b) in &kept {
            if a != b {
                if let Some(c) = closure[a][b] {
                    within.push((slot_a, slot_b, c));
                }
            }
        }
    }
    Some(Region::Within(within))
}

/// Variable numbers for symbols, in order of first appearance (0 is the constant).
#[derive(Default)]
struct Vars {
    symbols: Vec<u32>,
}

impl Vars {
    fn of(&mut self, symbol: u32) -> usize {
        match self.symbols.iter().position(|&s| s == symbol) {
            Some(i) => 1 + i,
            None => {
                self.symbols.push(symbol);
                self.symbols.len()
            }
        }
    }
}

/// The term as a variable plus a constant (variable 0 for a constant term).
fn offset(t: &Term, vars: &mut Vars) -> Option<(usize, i64)> {
    match t {
        Term::Const(c) => Some((0, i64::try_from(c).ok()?)),
        Term::Node(node) => match &**node {
            Node::Sym(n) => Some((vars.of(*n), 0)),
            Node::Bin(BinOp::Add, a, b) => {
                let ((x, c), (y, d)) = (offset(a, vars)?, offset(b, vars)?);
                match (x, y) {
                    (x, 0) | (0, x) => Some((x, c.checked_add(d)?)),
                    _ => None,
                }
            }
            Node::Bin(BinOp::Sub, a, b) => match offset(b, vars)? {
                (0, d) => {
                    let (x, c) = offset(a, vars)?;
                    Some((x, c.checked_sub(d)?))
                }
                _ => None,
            },
            _ => None,
        },
    }
}

/// Adds the difference constraints that `term ≠ 0` (or `term = 0` if not `holds`)
/// amounts to; `None` if it is not a conjunction of them.
fn constraints(term: &Term, holds: bool, vars: &mut Vars, edges: &mut Vec<Edge>) -> Option<()> {
    let Term::Node(node) = term else {
        // A constant condition that holds adds nothing; one that does not is `0 ≤ -1`.
        let truth = term
            .as_const()
            .is_some_and(|c| c.sign() != num_bigint::Sign::NoSign);
        if truth != holds {
            edges.push((0, 0, -1));
        }
        return Some(());
    };
    match &**node {
        Node::Not(a) => constraints(a, !holds, vars, edges),
        Node::Bin(BinOp::And, a, b) if holds => {
            constraints(a, true, vars, edges)?;
            constraints(b, true, vars, edges)
        }
        Node::Bin(op, a, b) => {
            let ((x, c), (y, d)) = (offset(a, vars)?, offset(b, vars)?);
            // x + c OP y + d, with the comparison negated when it does not hold.
            let op = match (op, holds) {
                (BinOp::Eq, true) => {
                    edges.push((x, y, d.checked_sub(c)?));
                    edges.push((y, x, c.checked_sub(d)?));
                    return Some(());
                }
                (BinOp::Lt, true) | (BinOp::Ge, false) => BinOp::Lt,
                (BinOp::Le, true) | (BinOp::Gt, false) => BinOp::Le,
                (BinOp::Gt, true) | (BinOp::Le, false) => BinOp::Gt,
                (BinOp::Ge, true) | (BinOp::Lt, false) => BinOp::Ge,
                _ => return None,
            };
            let edge = match op {
                // x + c < y + d  ⟺  x - y ≤ d - c - 1
                BinOp::Lt => (x, y, d.checked_sub(c)?.checked_sub(1)?),
                BinOp::Le => (x, y, d.checked_sub(c)?),
                BinOp::Gt => (y, x, c.checked_sub(d)?.checked_sub(1)?),
                _ => (y, x, c.checked_sub(d)?),
            };
            edges.push(edge);
            Some(())
        }
        Node::Sym(_) => None,
    }
}

/// The least bound on `v[a] - v[b]` the edges imply, for every `a` and `b` (`None`:
/// unbounded); `None` if a bound overflows.
fn shortest_paths(n: usize, edges: &[Edge]) -> Option<Vec<Vec<Option<i64>>>> {
    let mut d = vec![vec![None; n]; n];
    for (i, row) in d.iter_mut().enumerate() {
        row[i] = Some(0);
    }
    for &(a, b, c) in edges {
        let old: &mut Option<i64> = &mut d[a][b];
        *old = Some(old.map_or(c, |o| o.min(c)));
    }
    for k in 0..n {
        let through_k = d[k].clone();
        for row in d.iter_mut() {
            let Some(to_k) = row[k] else { continue };
            for (bound, from_k) in row.iter_mut().zip(&through_k) {
                if let Some(from_k) = from_k {
                    let through = to_k.checked_add(*from_k)?;
                    if bound.is_none_or(|old| through < old) {
                        *bound = Some(through);
                    }
                }
            }
        }
    }
    Some(d)
}
