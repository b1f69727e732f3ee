//! The meaning of HOLi's integer operators, shared by every evaluator.
//!
//! Integers are mathematical. Comparisons and logical operators yield 1 or 0; any
//! non-zero integer counts as true. Division truncates toward zero (as HOLiK's concrete
//! `/` does) and dividing by zero is a failure of its own kind. The symbolic engine's
//! Z3 encoding must agree with [`apply`] on every operator; tests check this.

use crate::syntax::ast::BinOp;
use num_bigint::BigInt;
use num_traits::{One, Zero};

/// Dividing by zero: reported like a failing assertion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DivisionByZero;

pub fn truth(b: bool) -> BigInt {
    if b {
        BigInt::one()
    } else {
        BigInt::zero()
    }
}

pub fn is_true(i: &BigInt) -> bool {
    !i.is_zero()
}

/// `not i`: 1 when `i` is 0, else 0.
pub fn not(i: &BigInt) -> BigInt {
    truth(i.is_zero())
}

pub fn apply(op: BinOp, a: &BigInt, b: &BigInt) -> Result<BigInt, DivisionByZero> {
    Ok(match op {
        BinOp::Add => a + b,
        BinOp::Sub => a - b,
        BinOp::Mul => a * b,
        // BigInt's `/` truncates toward zero.
        BinOp::Div if b.is_zero() => return Err(DivisionByZero),
        BinOp::Div => a / b,
        // BigInt's `%` takes the sign of the dividend: the remainder of `/`.
        BinOp::Mod if b.is_zero() => return Err(DivisionByZero),
        BinOp::Mod => a % b,
        BinOp::Lt => truth(a < b),
        BinOp::Gt => truth(a > b),
        BinOp::Le => truth(a <= b),
        BinOp::Ge => truth(a >= b),
        BinOp::Eq => truth(a == b),
        BinOp::And => truth(is_true(a) && is_true(b)),
        BinOp::Or => truth(is_true(a) || is_true(b)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(i: i64) -> BigInt {
        BigInt::from(i)
    }

    #[test]
    fn mod_is_the_remainder_of_the_truncating_division() {
        for (a, b) in [(7, 2), (-7, 2), (7, -2), (-7, -2), (6, 3), (0, 5)] {
            let q = apply(BinOp::Div, &int(a), &int(b)).ok();
            let r = apply(BinOp::Mod, &int(a), &int(b)).ok();
            assert_eq!(
                q.zip(r).map(|(q, r)| q * int(b) + r),
                Some(int(a)),
                "{a} mod {b}"
            );
        }
        assert_eq!(apply(BinOp::Mod, &int(-7), &int(2)), Ok(int(-1)));
        assert_eq!(apply(BinOp::Mod, &int(1), &int(0)), Err(DivisionByZero));
    }

    #[test]
    fn division_truncates_toward_zero() {
        assert_eq!(apply(BinOp::Div, &int(7), &int(2)), Ok(int(3)));
        assert_eq!(apply(BinOp::Div, &int(-7), &int(2)), Ok(int(-3)));
        assert_eq!(apply(BinOp::Div, &int(7), &int(-2)), Ok(int(-3)));
        assert_eq!(apply(BinOp::Div, &int(-7), &int(-2)), Ok(int(3)));
        assert_eq!(apply(BinOp::Div, &int(1), &int(0)), Err(DivisionByZero));
    }

    #[test]
    fn comparisons_and_logic_yield_one_or_zero() {
        assert_eq!(apply(BinOp::Lt, &int(1), &int(2)), Ok(int(1)));
        assert_eq!(apply(BinOp::Ge, &int(1), &int(2)), Ok(int(0)));
        assert_eq!(apply(BinOp::And, &int(5), &int(-3)), Ok(int(1)));
        assert_eq!(apply(BinOp::Or, &int(0), &int(0)), Ok(int(0)));
        assert_eq!(not(&int(7)), int(0));
        assert_eq!(not(&int(0)), int(1));
    }

    #[test]
    fn integers_are_mathematical() {
        let big = BigInt::from(i64::MAX);
        assert_eq!(
            apply(BinOp::Mul, &big, &big).map(|p| p > BigInt::from(i64::MAX)),
            Ok(true)
        );
    }
}
