//! Symbolic integers: client-chosen symbols and arithmetic over them.
//!
//! The paper names every symbolic result with a fresh symbol defined in the symbolic
//! environment σ; a shared tree is the same thing without the indirection. Operations on
//! concrete operands stay concrete (computed by `ops`), so concrete code never reaches Z3.
//! Terms are never simplified: `x1 * 0` stays a term, as HOLiK keeps it a symbol.

use crate::ops::{self, DivisionByZero};
use crate::syntax::ast::BinOp;
use num_bigint::BigInt;
use num_traits::Zero;
use rustc_hash::FxHashMap;
use std::sync::Arc;

#[derive(Clone, Debug)]
pub enum Term {
    Const(BigInt),
    Node(Arc<Node>),
}

#[derive(Debug)]
pub enum Node {
    /// A symbol introduced by the client, numbered per path in order of creation.
    Sym(u32),
    Bin(BinOp, Term, Term),
    Not(Term),
}

/// A concrete value for symbols: a model of a path condition. Symbols it does not
/// mention are 0 (they are unconstrained where the model was made).
pub type Witness = FxHashMap<u32, BigInt>;

impl Term {
    pub fn sym(n: u32) -> Term {
        Term::Node(Arc::new(Node::Sym(n)))
    }

    pub fn as_const(&self) -> Option<&BigInt> {
        match self {
            Term::Const(i) => Some(i),
            Term::Node(_) => None,
        }
    }

    /// The symbol's number, if the term is a bare symbol.
    pub fn as_sym(&self) -> Option<u32> {
        match self {
            Term::Node(node) => match **node {
                Node::Sym(n) => Some(n),
                _ => None,
            },
            Term::Const(_) => None,
        }
    }

    /// `a op b`. A concrete divisor of 0 is a division by zero; a symbolic divisor must
    /// have been proved non-zero by the caller.
    pub fn binary(op: BinOp, a: &Term, b: &Term) -> Result<Term, DivisionByZero> {
        match (a, b) {
            (Term::Const(x), Term::Const(y)) => ops::apply(op, x, y).map(Term::Const),
            (_, Term::Const(y)) if op == BinOp::Div && y.is_zero() => Err(DivisionByZero),
            _ => Ok(Term::Node(Arc::new(Node::Bin(op, a.clone(), b.clone())))),
        }
    }

    pub fn not(a: &Term) -> Term {
        match a {
            Term::Const(x) => Term::Const(ops::not(x)),
            Term::Node(_) => Term::Node(Arc::new(Node::Not(a.clone()))),
        }
    }

    /// The value under `witness`; `None` when a division by zero occurs.
    pub fn eval(&self, witness: &Witness) -> Option<BigInt> {
        match self {
            Term::Const(i) => Some(i.clone()),
            Term::Node(node) => match &**node {
                Node::Sym(n) => Some(witness.get(n).cloned().unwrap_or_default()),
                Node::Bin(op, a, b) => ops::apply(*op, &a.eval(witness)?, &b.eval(witness)?).ok(),
                Node::Not(a) => Some(ops::not(&a.eval(witness)?)),
            },
        }
    }

    /// Symbols in order of first appearance (left to right), appended to `out` if new.
    pub fn symbols(&self, out: &mut Vec<u32>) {
        if let Term::Node(node) = self {
            match &**node {
                Node::Sym(n) => {
                    if !out.contains(n) {
                        out.push(*n);
                    }
                }
                Node::Bin(_, a, b) => {
                    a.symbols(out);
                    b.symbols(out);
                }
                Node::Not(a) => a.symbols(out),
            }
        }
    }

    /// Whether the term is linear arithmetic: no product of two symbolic terms and no
    /// division by one. Z3 decides linear questions with procedures that stop when
    /// interrupted; nonlinear ones may not ([`super::worker`]).
    pub fn is_linear(&self) -> bool {
        match self {
            Term::Const(_) => true,
            Term::Node(node) => match &**node {
                Node::Sym(_) => true,
                Node::Not(a) => a.is_linear(),
                Node::Bin(BinOp::Mul, a, b) => {
                    a.is_linear()
                        && b.is_linear()
                        && (a.as_const().is_some() || b.as_const().is_some())
                }
                Node::Bin(BinOp::Div, a, b) => a.is_linear() && b.as_const().is_some(),
                Node::Bin(_, a, b) => a.is_linear() && b.is_linear(),
            },
        }
    }

    /// HOLi-like infix text with the fewest parentheses, symbols named by `name`.
    pub fn render(&self, name: &dyn Fn(u32) -> String) -> String {
        let mut out = String::new();
        self.render_into(name, 0, &mut out);
        out
    }

    /// Appends the term's structure to `out`, in prefix order, with each symbol written
    /// as `name` of it: equal encodings are equal terms up to that renaming. A key for
    /// maps that is cheaper to build and hash than [`Term::render`]'s text.
    pub fn encode_into(&self, name: &dyn Fn(u32) -> u32, out: &mut Vec<u32>) {
        // Tags first, then fixed arities, so that no encoding is a prefix of another.
        const SMALL: u32 = 0;
        const BIG: u32 = 1;
        const SYM: u32 = 2;
        const NOT: u32 = 3;
        const BIN: u32 = 4;
        match self {
            Term::Const(i) => match i64::try_from(i) {
                Ok(small) => {
                    let bits = small as u64;
                    out.extend([SMALL, bits as u32, (bits >> 32) as u32]);
                }
                Err(_) => {
                    let (sign, digits) = i.to_u32_digits();
                    out.extend([BIG, sign as u32, digits.len() as u32]);
                    out.extend(digits);
                }
            },
            Term::Node(node) => match &**node {
                Node::Sym(n) => out.extend([SYM, name(*n)]),
                Node::Not(a) => {
                    out.push(NOT);
                    a.encode_into(name, out);
                }
                Node::Bin(op, a, b) => {
                    out.extend([BIN, *op as u32]);
                    a.encode_into(name, out);
                    b.encode_into(name, out);
                }
            },
        }
    }

    fn render_into(&self, name: &dyn Fn(u32) -> String, min: u8, out: &mut String) {
        let level = self.level();
        let paren = level < min;
        if paren {
            out.push('(');
        }
        match self {
            Term::Const(i) => out.push_str(&i.to_string()),
            Term::Node(node) => match &**node {
                Node::Sym(n) => out.push_str(&name(*n)),
                Node::Bin(op, a, b) => {
                    // Left-associative operators; comparisons do not chain.
                    let right_min = level + 1;
                    let left_min = if is_comparison(*op) { level + 1 } else { level };
                    a.render_into(name, left_min, out);
                    out.push(' ');
                    out.push_str(op.symbol());
                    out.push(' ');
                    b.render_into(name, right_min, out);
                }
                Node::Not(a) => {
                    out.push_str("not ");
                    a.render_into(name, level + 1, out);
                }
            },
        }
        if paren {
            out.push(')');
        }
    }

    /// Binding strength, loosest first (HOLi's precedence, SYNTAX-NOTES §5).
    fn level(&self) -> u8 {
        match self {
            // A negative literal reads like a subtraction next to other operators.
            Term::Const(i) if i.sign() == num_bigint::Sign::Minus => 4,
            Term::Const(_) => 8,
            Term::Node(node) => match &**node {
                Node::Sym(_) => 8,
                Node::Bin(op, ..) => match op {
                    BinOp::Or => 1,
                    BinOp::And => 2,
                    BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge | BinOp::Eq => 3,
                    BinOp::Add | BinOp::Sub => 4,
                    BinOp::Mul | BinOp::Div => 5,
                },
                Node::Not(_) => 6,
            },
        }
    }
}

fn is_comparison(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge | BinOp::Eq
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(i: i64) -> Term {
        Term::Const(BigInt::from(i))
    }

    fn show(t: &Term) -> String {
        t.render(&|n| format!("x{n}"))
    }

    #[test]
    fn concrete_operands_stay_concrete() {
        let t = Term::binary(BinOp::Add, &c(2), &c(3)).unwrap();
        assert_eq!(t.as_const(), Some(&BigInt::from(5)));
        assert!(Term::binary(BinOp::Div, &c(2), &c(0)).is_err());
        assert!(Term::binary(BinOp::Div, &Term::sym(1), &c(0)).is_err());
        assert!(Term::binary(BinOp::Mul, &Term::sym(1), &c(0))
            .unwrap()
            .as_const()
            .is_none());
    }

    #[test]
    fn renders_with_fewest_parentheses() {
        let x = Term::sym(1);
        let y = Term::sym(2);
        let sum = Term::binary(BinOp::Add, &x, &y).unwrap();
        let prod = Term::binary(BinOp::Mul, &sum, &c(3)).unwrap();
        assert_eq!(show(&prod), "(x1 + x2) * 3");
        let diff = Term::binary(BinOp::Sub, &c(100), &sum).unwrap();
        assert_eq!(show(&diff), "100 - (x1 + x2)");
        let lt = Term::binary(BinOp::Lt, &diff, &c(0)).unwrap();
        assert_eq!(show(&Term::not(&lt)), "not (100 - (x1 + x2) < 0)");
        let neg = Term::binary(BinOp::Sub, &x, &c(-1)).unwrap();
        assert_eq!(show(&neg), "x1 - (-1)");
    }

    #[test]
    fn encodings_are_equal_exactly_for_terms_equal_up_to_renaming() {
        let code = |t: &Term, first: u32| {
            let mut out = Vec::new();
            t.encode_into(&|n| n - first, &mut out);
            out
        };
        let bin = |op, a: &Term, b: &Term| Term::binary(op, a, b).unwrap();
        let [x, y, z] = [1, 2, 3].map(Term::sym);
        let left = bin(BinOp::Add, &bin(BinOp::Add, &x, &y), &z);
        let right = bin(BinOp::Add, &x, &bin(BinOp::Add, &y, &z));
        assert_ne!(code(&left, 1), code(&right, 1));
        let [u, v, w] = [11, 12, 13].map(Term::sym);
        let renamed = bin(BinOp::Add, &bin(BinOp::Add, &u, &v), &w);
        assert_eq!(code(&left, 1), code(&renamed, 11));
        assert_ne!(
            code(&left, 1),
            code(&bin(BinOp::Sub, &bin(BinOp::Add, &x, &y), &z), 1)
        );
        assert_ne!(code(&Term::not(&x), 1), code(&x, 1));
        // -1 and 2⁶⁴ - 1 share their low 64 bits.
        let max = Term::Const(BigInt::from(u64::MAX));
        assert_ne!(
            code(&bin(BinOp::Lt, &x, &c(-1)), 1),
            code(&bin(BinOp::Lt, &x, &max), 1)
        );
    }

    #[test]
    fn evaluates_under_a_witness() {
        let x = Term::sym(1);
        let t = Term::binary(BinOp::Sub, &c(100), &x).unwrap();
        let w: Witness = [(1, BigInt::from(30))].into_iter().collect();
        assert_eq!(t.eval(&w), Some(BigInt::from(70)));
        assert_eq!(t.eval(&Witness::default()), Some(BigInt::from(100)));
        let d = Term::binary(BinOp::Div, &c(1), &x).unwrap();
        assert_eq!(d.eval(&Witness::default()), None);
    }

    #[test]
    fn symbols_in_order_of_appearance() {
        let t = Term::binary(BinOp::Add, &Term::sym(4), &Term::sym(2)).unwrap();
        let t = Term::binary(BinOp::Mul, &t, &Term::sym(4)).unwrap();
        let mut out = vec![];
        t.symbols(&mut out);
        assert_eq!(out, vec![4, 2]);
    }
}
