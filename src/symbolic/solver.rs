//! The Z3 back end: one incremental solver whose assertion stack mirrors the
//! depth-first search.
//!
//! The path condition is a persistent list; the solver keeps one push level per
//! conjunct it has asserted. Moving to another configuration pops to the longest
//! common prefix and pushes the rest, so siblings in the search reuse their shared
//! prefix. Terms are translated once (cache keyed by node identity).

use super::config::PcNode;
use super::term::{Node, Term, Witness};
use crate::syntax::ast::BinOp;
use num_bigint::BigInt;
use std::collections::HashMap;
use std::rc::Rc;
use std::str::FromStr;
use std::time::Duration;
use z3::ast::{Bool, Int};
use z3::{Params, SatResult};

pub enum Answer {
    /// Satisfiable, with a model of the path condition and the new conjunct.
    Sat(Witness),
    Unsat,
    /// Z3 could not decide (its reason).
    Unknown(String),
}

pub struct Solver {
    z3: z3::Solver,
    asserted: Vec<Rc<PcNode>>,
    ints: HashMap<*const Node, (Rc<Node>, Int)>,
    bools: HashMap<*const Node, (Rc<Node>, Bool)>,
    /// Z3 constants of the symbols, by number (index 0 unused).
    symbols: Vec<Int>,
    /// The per-query time limit currently set in Z3.
    timeout_ms: Option<u32>,
    pub queries: u64,
}

impl Default for Solver {
    fn default() -> Self {
        Solver::new()
    }
}

impl Solver {
    pub fn new() -> Solver {
        Solver {
            z3: z3::Solver::new(),
            timeout_ms: None,
            asserted: Vec::new(),
            ints: HashMap::new(),
            bools: HashMap::new(),
            symbols: Vec::new(),
            queries: 0,
        }
    }

    /// Is `pc ∧ (term ≠ 0)` (or `= 0` when `!holds`) satisfiable? `symbols` is the
    /// number of symbols on the path; the model gives a value to those the formula
    /// mentions (the others are unconstrained and read as 0). A query that runs longer
    /// than `limit` is `Unknown`.
    pub fn check(
        &mut self,
        pc: &Option<Rc<PcNode>>,
        term: &Term,
        holds: bool,
        symbols: u32,
        limit: Option<Duration>,
    ) -> Answer {
        self.set_timeout(limit);
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
        self.z3.push();
        self.z3.assert(&cond);
        let answer = match self.z3.check() {
            SatResult::Sat => match self.z3.get_model() {
                Some(model) => {
                    let witness = relevant
                        .into_iter()
                        .filter_map(|n| {
                            let value = model.get_const_interp(&self.symbol(n))?;
                            Some((n, to_bigint(&value)?))
                        })
                        .collect();
                    Answer::Sat(witness)
                }
                None => Answer::Unknown("Z3 gave no model".to_string()),
            },
            SatResult::Unsat => Answer::Unsat,
            SatResult::Unknown => Answer::Unknown(
                self.z3
                    .get_reason_unknown()
                    .unwrap_or_else(|| "unknown".to_string()),
            ),
        };
        self.z3.pop(1);
        answer
    }

    fn set_timeout(&mut self, limit: Option<Duration>) {
        // Z3 reads no limit as "forever"; an exhausted budget still gets 1 ms.
        let ms = limit.map(|t| t.as_millis().clamp(1, u32::MAX as u128) as u32);
        // Setting parameters costs a little: only when the limit shrinks by an eighth.
        let stale = match (self.timeout_ms, ms) {
            (None, None) => false,
            (Some(old), Some(new)) => new < old - old / 8,
            _ => true,
        };
        if stale {
            let mut params = Params::new();
            params.set_u32("timeout", ms.unwrap_or(u32::MAX));
            self.z3.set_params(&params);
            self.timeout_ms = ms;
        }
    }

    fn symbol(&mut self, n: u32) -> Int {
        while self.symbols.len() <= n as usize {
            self.symbols.push(symbol(self.symbols.len() as u32));
        }
        self.symbols[n as usize].clone()
    }

    /// Makes the solver's assertions exactly the conjuncts of `pc`.
    fn sync(&mut self, pc: &Option<Rc<PcNode>>) {
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
            .take_while(|(a, b)| Rc::ptr_eq(a, b))
            .count();
        let extra = self.asserted.len() - common;
        if extra > 0 {
            self.z3.pop(extra as u32);
            self.asserted.truncate(common);
        }
        for node in &chain[common..] {
            let cond = self.condition(&node.term, node.holds);
            self.z3.push();
            self.z3.assert(&cond);
            self.asserted.push(Rc::clone(node));
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
        if let Some((_, b)) = self.bools.get(&Rc::as_ptr(node)) {
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
            .insert(Rc::as_ptr(node), (Rc::clone(node), b.clone()));
        b
    }

    /// The integer a term denotes; must agree with `ops::apply` (tested below).
    pub fn int_of(&mut self, term: &Term) -> Int {
        let node = match term {
            Term::Const(c) => return int_const(c),
            Term::Node(node) => node,
        };
        if let Some((_, i)) = self.ints.get(&Rc::as_ptr(node)) {
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
                    // Z3's `div` rounds so that the remainder is non-negative; HOLi
                    // truncates toward zero: a / b = sign(a) * (|a| div b) with |a| = ±a.
                    let (x, y) = (self.int_of(a), self.int_of(b));
                    let positive = x.div(&y);
                    let negative = x.unary_minus().div(&y).unary_minus();
                    x.ge(&zero).ite(&positive, &negative)
                }
                _ => self.bool_of(term).ite(&one, &zero),
            },
        };
        self.ints
            .insert(Rc::as_ptr(node), (Rc::clone(node), i.clone()));
        i
    }
}

fn symbol(n: u32) -> Int {
    Int::new_const(format!("s{n}"))
}

fn int_const(c: &BigInt) -> Int {
    match i64::try_from(c) {
        Ok(small) => Int::from_i64(small),
        Err(_) => Int::from_str(&c.to_string()).expect("a BigInt prints as a Z3 numeral"),
    }
}

/// A Z3 integer numeral as a BigInt (Z3 prints negative numerals as `(- 5)`).
fn to_bigint(value: &Int) -> Option<BigInt> {
    if let Some(small) = value.as_i64() {
        return Some(BigInt::from(small));
    }
    let text = value.to_string();
    let digits: String = text.chars().filter(|c| c.is_ascii_digit()).collect();
    let magnitude = BigInt::from_str(&digits).ok()?;
    Some(if text.contains('-') {
        -magnitude
    } else {
        magnitude
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops;
    use proptest::prelude::*;

    const OPS: [BinOp; 11] = [
        BinOp::Mul,
        BinOp::Div,
        BinOp::Add,
        BinOp::Sub,
        BinOp::Lt,
        BinOp::Gt,
        BinOp::Le,
        BinOp::Ge,
        BinOp::Eq,
        BinOp::And,
        BinOp::Or,
    ];

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
        to_bigint(&model.eval(&result, true).unwrap()).unwrap()
    }

    proptest! {
        #[test]
        fn z3_encoding_agrees_with_ops(a in -50i64..50, b in -50i64..50, op in 0usize..11) {
            let op = OPS[op];
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
        assert_eq!(to_bigint(&value), Some(big));
    }

    #[test]
    fn incremental_checks_follow_the_path() {
        let mut solver = Solver::new();
        let x = Term::sym(1);
        let gt = Term::binary(BinOp::Gt, &x, &Term::Const(BigInt::from(10))).unwrap();
        let root = Some(Rc::new(PcNode {
            term: gt.clone(),
            holds: true,
            depth: 1,
            symbols: Default::default(),
            own_symbols: vec![1],
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
