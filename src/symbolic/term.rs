//! Symbolic integers: client-chosen symbols and arithmetic over them.
//!
//! The paper names every symbolic result with a fresh symbol defined in the symbolic
//! environment σ; a shared tree is the same thing without the indirection. Operations on
//! concrete operands stay concrete (computed by `ops`), so concrete code never reaches Z3.
//! Terms are never simplified: `x1 * 0` stays a term, as HOLiK keeps it a symbol.
//!
//! A term is a tree whose subterms are shared: `x := !x - !x` doubles the tree with
//! every statement while adding one node. Each traversal below walks the tree while it
//! is small ([`TREE_WALK`] nodes), which is cheapest, and otherwise the DAG, each shared
//! node once, so that its cost grows with the nodes made, not with the tree.

use crate::ops::{self, DivisionByZero};
use crate::syntax::ast::BinOp;
use num_bigint::BigInt;
use num_traits::Zero;
use rustc_hash::{FxHashMap, FxHashSet};
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

/// The nodes a traversal visits as a tree before it starts again over the DAG (here and
/// in the walks of [`super::branch`]).
pub const TREE_WALK: u32 = 512;

/// A tree walk ran out of [`TREE_WALK`].
struct TooLarge;

/// `Σ k·symbol + c`: coefficients by symbol (none zero), and the constant.
type LinearForm = (std::collections::BTreeMap<u32, BigInt>, BigInt);

fn scaled((coefficients, constant): LinearForm, by: &BigInt) -> LinearForm {
    let coefficients = (coefficients.into_iter())
        .map(|(n, k)| (n, k * by))
        .filter(|(_, k)| !k.is_zero())
        .collect();
    (coefficients, constant * by)
}

/// `k1 * x1 + k2 * x2 - … + c`, a coefficient 1 left out, symbols in order.
fn render_linear((coefficients, constant): &LinearForm, name: &dyn Fn(u32) -> String) -> String {
    let mut out = String::new();
    let addends = (coefficients.iter())
        .map(|(n, k)| (k.clone(), Some(*n)))
        .chain((!constant.is_zero() || coefficients.is_empty()).then(|| (constant.clone(), None)));
    for (k, symbol) in addends {
        let negative = k.sign() == num_bigint::Sign::Minus;
        let magnitude = if negative { -k } else { k };
        match (out.is_empty(), negative) {
            (true, true) => out.push('-'),
            (true, false) => {}
            (false, true) => out.push_str(" - "),
            (false, false) => out.push_str(" + "),
        }
        match symbol {
            Some(n) if magnitude == BigInt::from(1) => out.push_str(&name(n)),
            Some(n) => out.push_str(&format!("{magnitude} * {}", name(n))),
            None => out.push_str(&magnitude.to_string()),
        }
    }
    out
}

/// What [`Term::render`] writes of a large term that is not linear: how often each
/// node is an operand, the names bound so far, and their `let`s.
struct Shared {
    uses: FxHashMap<*const Node, u32>,
    names: FxHashMap<*const Node, String>,
    bindings: String,
}

/// Counts a node against the tree walk's budget.
fn visit(budget: &mut u32) -> Result<(), TooLarge> {
    *budget = budget.checked_sub(1).ok_or(TooLarge)?;
    Ok(())
}

/// The tags of [`Term::encode_into`]: tags first, then fixed arities, so that no
/// encoding is a prefix of another.
mod tag {
    pub const SMALL: u32 = 0;
    pub const BIG: u32 = 1;
    pub const SYM: u32 = 2;
    pub const NOT: u32 = 3;
    pub const BIN: u32 = 4;
    /// A subterm equal to the one met in this position before.
    pub const REF: u32 = 5;
}

/// The shapes of the nodes of a term, for [`Term::encode_dag`]: a 128-bit hash of the
/// tree below each node (two different trees share one with odds of about 2⁻¹²⁸ per
/// pair), and the shapes met so far, numbered.
#[derive(Default)]
struct Shapes {
    of: FxHashMap<*const Node, u128>,
    met: FxHashMap<u128, u32>,
}

impl Shapes {
    fn of(&mut self, node: &Arc<Node>) -> u128 {
        if let Some(&shape) = self.of.get(&id(node)) {
            return shape;
        }
        let mut parts: Vec<u128> = Vec::with_capacity(4);
        match &**node {
            Node::Sym(n) => parts.extend([u128::from(tag::SYM), u128::from(*n)]),
            Node::Not(a) => parts.extend([u128::from(tag::NOT), self.of_term(a)]),
            Node::Bin(op, a, b) => {
                let (x, y) = (self.of_term(a), self.of_term(b));
                parts.extend([u128::from(tag::BIN), *op as u128, x, y]);
            }
        }
        let shape = hash128(&parts);
        self.of.insert(id(node), shape);
        shape
    }

    fn of_term(&mut self, term: &Term) -> u128 {
        match term {
            Term::Node(node) => self.of(node),
            Term::Const(i) => {
                let (sign, digits) = i.to_u32_digits();
                let mut parts = vec![u128::from(tag::BIG), sign as u128];
                parts.extend(digits.into_iter().map(u128::from));
                hash128(&parts)
            }
        }
    }
}

/// Two independent 64-bit hashes of `parts`.
fn hash128(parts: &[u128]) -> u128 {
    use std::hash::{Hash, Hasher};
    let half = |seed: u64| {
        let mut h = std::hash::DefaultHasher::new();
        seed.hash(&mut h);
        parts.hash(&mut h);
        h.finish()
    };
    (u128::from(half(0)) << 64) | u128::from(half(1))
}

/// A node's identity, for the maps of DAG walks (the term keeps the node alive).
fn id(node: &Arc<Node>) -> *const Node {
    Arc::as_ptr(node)
}

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
            (_, Term::Const(y)) if matches!(op, BinOp::Div | BinOp::Mod) && y.is_zero() => {
                Err(DivisionByZero)
            }
            _ => Ok(Term::Node(Arc::new(Node::Bin(op, a.clone(), b.clone())))),
        }
    }

    /// `low <= self && self <= high` (no division: it cannot fail as
    /// [`Term::binary`] may).
    pub fn within(&self, low: i64, high: i64) -> Term {
        let compare = |a: &Term, b: &Term| match (a, b) {
            (Term::Const(x), Term::Const(y)) => Term::Const(ops::truth(x <= y)),
            _ => Term::Node(Arc::new(Node::Bin(BinOp::Le, a.clone(), b.clone()))),
        };
        let at_least = compare(&Term::Const(low.into()), self);
        let at_most = compare(self, &Term::Const(high.into()));
        match (&at_least, &at_most) {
            (Term::Const(x), Term::Const(y)) => {
                Term::Const(ops::truth(ops::is_true(x) && ops::is_true(y)))
            }
            _ => Term::Node(Arc::new(Node::Bin(BinOp::And, at_least, at_most))),
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
        self.eval_tree(witness, &mut { TREE_WALK })
            .unwrap_or_else(|TooLarge| self.eval_dag(witness, &mut FxHashMap::default()))
    }

    fn eval_tree(&self, witness: &Witness, budget: &mut u32) -> Result<Option<BigInt>, TooLarge> {
        let Term::Node(node) = self else {
            return Ok(self.as_const().cloned());
        };
        visit(budget)?;
        Ok(match &**node {
            Node::Sym(n) => Some(witness.get(n).cloned().unwrap_or_default()),
            Node::Bin(op, a, b) => {
                let Some(x) = a.eval_tree(witness, budget)? else {
                    return Ok(None);
                };
                let Some(y) = b.eval_tree(witness, budget)? else {
                    return Ok(None);
                };
                ops::apply(*op, &x, &y).ok()
            }
            Node::Not(a) => a.eval_tree(witness, budget)?.map(|x| ops::not(&x)),
        })
    }

    fn eval_dag(
        &self,
        witness: &Witness,
        done: &mut FxHashMap<*const Node, Option<BigInt>>,
    ) -> Option<BigInt> {
        let Term::Node(node) = self else {
            return self.as_const().cloned();
        };
        if let Some(v) = done.get(&id(node)) {
            return v.clone();
        }
        let v = match &**node {
            Node::Sym(n) => Some(witness.get(n).cloned().unwrap_or_default()),
            Node::Bin(op, a, b) => a.eval_dag(witness, done).and_then(|x| {
                let y = b.eval_dag(witness, done)?;
                ops::apply(*op, &x, &y).ok()
            }),
            Node::Not(a) => a.eval_dag(witness, done).map(|x| ops::not(&x)),
        };
        done.insert(id(node), v.clone());
        v
    }

    /// Symbols in order of first appearance (left to right), appended to `out` if new.
    pub fn symbols(&self, out: &mut Vec<u32>) {
        let before = out.len();
        if self.symbols_tree(out, &mut { TREE_WALK }).is_err() {
            // A shared node's symbols appeared where it was first met: skipping it
            // keeps the order.
            out.truncate(before);
            self.symbols_dag(out, &mut FxHashSet::default());
        }
    }

    fn symbols_tree(&self, out: &mut Vec<u32>, budget: &mut u32) -> Result<(), TooLarge> {
        if let Term::Node(node) = self {
            visit(budget)?;
            match &**node {
                Node::Sym(n) => {
                    if !out.contains(n) {
                        out.push(*n);
                    }
                }
                Node::Bin(_, a, b) => {
                    a.symbols_tree(out, budget)?;
                    b.symbols_tree(out, budget)?;
                }
                Node::Not(a) => a.symbols_tree(out, budget)?,
            }
        }
        Ok(())
    }

    fn symbols_dag(&self, out: &mut Vec<u32>, seen: &mut FxHashSet<*const Node>) {
        let Term::Node(node) = self else { return };
        if !seen.insert(id(node)) {
            return;
        }
        match &**node {
            Node::Sym(n) => {
                if !out.contains(n) {
                    out.push(*n);
                }
            }
            Node::Bin(_, a, b) => {
                a.symbols_dag(out, seen);
                b.symbols_dag(out, seen);
            }
            Node::Not(a) => a.symbols_dag(out, seen),
        }
    }

    /// Whether the term is linear arithmetic: no product of two symbolic terms and no
    /// division by one. Z3 decides linear questions with procedures that stop when
    /// interrupted; nonlinear ones may not ([`super::worker`]).
    pub fn is_linear(&self) -> bool {
        self.linear_tree(&mut { TREE_WALK })
            .unwrap_or_else(|TooLarge| self.linear_dag(&mut FxHashMap::default()))
    }

    fn linear_tree(&self, budget: &mut u32) -> Result<bool, TooLarge> {
        let Term::Node(node) = self else {
            return Ok(true);
        };
        visit(budget)?;
        Ok(match &**node {
            Node::Sym(_) => true,
            Node::Not(a) => a.linear_tree(budget)?,
            Node::Bin(op, a, b) => {
                a.linear_tree(budget)? && b.linear_tree(budget)? && linear_operands(*op, a, b)
            }
        })
    }

    fn linear_dag(&self, done: &mut FxHashMap<*const Node, bool>) -> bool {
        let Term::Node(node) = self else {
            return true;
        };
        if let Some(&linear) = done.get(&id(node)) {
            return linear;
        }
        let linear = match &**node {
            Node::Sym(_) => true,
            Node::Not(a) => a.linear_dag(done),
            Node::Bin(op, a, b) => {
                a.linear_dag(done) && b.linear_dag(done) && linear_operands(*op, a, b)
            }
        };
        done.insert(id(node), linear);
        linear
    }

    /// HOLi-like infix text with the fewest parentheses, symbols named by `name`. A
    /// term larger than [`TREE_WALK`] nodes as a tree is written by its DAG, in text
    /// that grows with the nodes made: a linear one as `k1 * x1 + … + c`, any other with
    /// its shared subterms bound by `let` (a returned value after sixty statements
    /// `a := !a + !b; b := !b + !a` is a tree of 2⁶⁰ nodes, and counting the failing
    /// traces, by their text, ran past every limit).
    pub fn render(&self, name: &dyn Fn(u32) -> String) -> String {
        let mut out = String::new();
        if self
            .render_tree(name, 0, &mut out, &mut { TREE_WALK })
            .is_ok()
        {
            return out;
        }
        if let Some(form) = self.linear_form(&mut FxHashMap::default()) {
            return render_linear(&form, name);
        }
        let mut uses = FxHashMap::default();
        self.count_uses(&mut uses);
        let mut shared = Shared {
            uses,
            names: FxHashMap::default(),
            bindings: String::new(),
        };
        let mut body = String::new();
        self.render_shared(name, 0, &mut shared, &mut body);
        shared.bindings + &body
    }

    /// Writes the term as a tree, if it has at most `budget` nodes.
    fn render_tree(
        &self,
        name: &dyn Fn(u32) -> String,
        min: u8,
        out: &mut String,
        budget: &mut u32,
    ) -> Result<(), TooLarge> {
        if let Term::Node(_) = self {
            visit(budget)?;
        }
        self.render_with(name, min, out, &mut |t, min, out| {
            t.render_tree(name, min, out, budget)
        })
    }

    /// The term as `Σ k·symbol + c` over the integers, each shared node computed once;
    /// `None` if it is not linear (a product of symbols, a division, logic).
    fn linear_form(
        &self,
        done: &mut FxHashMap<*const Node, Option<LinearForm>>,
    ) -> Option<LinearForm> {
        let node = match self {
            Term::Const(c) => return Some((std::collections::BTreeMap::new(), c.clone())),
            Term::Node(node) => node,
        };
        if let Some(form) = done.get(&id(node)) {
            return form.clone();
        }
        let form = match &**node {
            Node::Sym(n) => Some((
                [(*n, BigInt::from(1))].into_iter().collect(),
                BigInt::zero(),
            )),
            Node::Bin(op @ (BinOp::Add | BinOp::Sub), a, b) => {
                let (a, b) = (a.linear_form(done), b.linear_form(done));
                a.zip(b).map(|((mut ka, ca), (kb, cb))| {
                    let sign = if *op == BinOp::Add { 1 } else { -1 };
                    for (n, k) in kb {
                        *ka.entry(n).or_insert_with(BigInt::zero) += k * sign;
                    }
                    ka.retain(|_, k| !k.is_zero());
                    (ka, ca + cb * sign)
                })
            }
            Node::Bin(BinOp::Mul, a, b) => match (a.as_const(), b.as_const()) {
                (Some(c), _) => b.linear_form(done).map(|f| scaled(f, c)),
                (_, Some(c)) => a.linear_form(done).map(|f| scaled(f, c)),
                _ => None,
            },
            _ => None,
        };
        done.insert(id(node), form.clone());
        form
    }

    /// How many times each node is an operand in the DAG (each node's operands counted
    /// once, however often the node is met).
    fn count_uses(&self, uses: &mut FxHashMap<*const Node, u32>) {
        let Term::Node(node) = self else { return };
        let seen = uses.contains_key(&id(node));
        *uses.entry(id(node)).or_insert(0) += 1;
        if seen {
            return;
        }
        match &**node {
            Node::Sym(_) => {}
            Node::Not(a) => a.count_uses(uses),
            Node::Bin(_, a, b) => {
                a.count_uses(uses);
                b.count_uses(uses);
            }
        }
    }

    /// Writes the term, a node used more than once (not a symbol) as the name of a
    /// `let` binding made the first time it is written.
    fn render_shared(
        &self,
        name: &dyn Fn(u32) -> String,
        min: u8,
        shared: &mut Shared,
        out: &mut String,
    ) {
        if let Term::Node(node) = self {
            let many = shared.uses.get(&id(node)).is_some_and(|&n| n > 1);
            if many && !matches!(**node, Node::Sym(_)) {
                if let Some(bound) = shared.names.get(&id(node)) {
                    out.push_str(bound);
                    return;
                }
                let mut text = String::new();
                let _ = self.render_with(name, 0, &mut text, &mut |t, min, out| {
                    t.render_shared(name, min, shared, out);
                    Ok(())
                });
                let bound = format!("t{}", shared.names.len() + 1);
                shared
                    .bindings
                    .push_str(&format!("let {bound} = {text} in "));
                out.push_str(&bound);
                shared.names.insert(id(node), bound);
                return;
            }
        }
        let _ = self.render_with(name, min, out, &mut |t, min, out| {
            t.render_shared(name, min, shared, out);
            Ok(())
        });
    }

    /// Appends the term's structure to `out`, in prefix order, with each symbol written
    /// as `name` of it: equal encodings are equal terms up to that renaming. A key for
    /// maps that is cheaper to build and hash than [`Term::render`]'s text.
    pub fn encode_into(&self, name: &dyn Fn(u32) -> u32, out: &mut Vec<u32>) {
        let before = out.len();
        if self.encode_tree(name, out, &mut { TREE_WALK }).is_err() {
            // `name` numbers symbols as met: the DAG meets them in the same order.
            out.truncate(before);
            self.encode_dag(name, out, &mut Shapes::default());
        }
    }

    fn encode_tree(
        &self,
        name: &dyn Fn(u32) -> u32,
        out: &mut Vec<u32>,
        budget: &mut u32,
    ) -> Result<(), TooLarge> {
        let Term::Node(node) = self else {
            self.encode_const(out);
            return Ok(());
        };
        visit(budget)?;
        match &**node {
            Node::Sym(n) => out.extend([tag::SYM, name(*n)]),
            Node::Not(a) => {
                out.push(tag::NOT);
                a.encode_tree(name, out, budget)?;
            }
            Node::Bin(op, a, b) => {
                out.extend([tag::BIN, *op as u32]);
                a.encode_tree(name, out, budget)?;
                b.encode_tree(name, out, budget)?;
            }
        }
        Ok(())
    }

    /// The encoding of a large term: a subterm equal to one met before (as a tree, by
    /// [`Shapes::of`]) is written as a reference to the first, numbered in the order
    /// met. Equal trees get equal encodings however their nodes are shared, and the
    /// tree can be read back, so the encoding stays exact.
    fn encode_dag(&self, name: &dyn Fn(u32) -> u32, out: &mut Vec<u32>, shapes: &mut Shapes) {
        let Term::Node(node) = self else {
            self.encode_const(out);
            return;
        };
        let shape = shapes.of(node);
        if let Some(&first) = shapes.met.get(&shape) {
            out.extend([tag::REF, first]);
            return;
        }
        let next = shapes.met.len() as u32;
        shapes.met.insert(shape, next);
        match &**node {
            Node::Sym(n) => out.extend([tag::SYM, name(*n)]),
            Node::Not(a) => {
                out.push(tag::NOT);
                a.encode_dag(name, out, shapes);
            }
            Node::Bin(op, a, b) => {
                out.extend([tag::BIN, *op as u32]);
                a.encode_dag(name, out, shapes);
                b.encode_dag(name, out, shapes);
            }
        }
    }

    fn encode_const(&self, out: &mut Vec<u32>) {
        let Term::Const(i) = self else { return };
        match i64::try_from(i) {
            Ok(small) => {
                let bits = small as u64;
                out.extend([tag::SMALL, bits as u32, (bits >> 32) as u32]);
            }
            Err(_) => {
                let (sign, digits) = i.to_u32_digits();
                out.extend([tag::BIG, sign as u32, digits.len() as u32]);
                out.extend(digits);
            }
        }
    }

    /// Writes the term at binding strength `min`, its operands by `operand`.
    fn render_with(
        &self,
        name: &dyn Fn(u32) -> String,
        min: u8,
        out: &mut String,
        operand: &mut dyn FnMut(&Term, u8, &mut String) -> Result<(), TooLarge>,
    ) -> Result<(), TooLarge> {
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
                    operand(a, left_min, out)?;
                    out.push(' ');
                    out.push_str(op.symbol());
                    out.push(' ');
                    operand(b, right_min, out)?;
                }
                Node::Not(a) => {
                    out.push_str("not ");
                    operand(a, level + 1, out)?;
                }
            },
        }
        if paren {
            out.push(')');
        }
        Ok(())
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
                    BinOp::Mul | BinOp::Div | BinOp::Mod => 5,
                },
                Node::Not(_) => 6,
            },
        }
    }
}

/// Whether `a op b` is linear when `a` and `b` are: a product needs a constant factor,
/// a quotient a constant divisor.
fn linear_operands(op: BinOp, a: &Term, b: &Term) -> bool {
    match op {
        BinOp::Mul => a.as_const().is_some() || b.as_const().is_some(),
        BinOp::Div | BinOp::Mod => b.as_const().is_some(),
        _ => true,
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
    fn a_large_linear_term_renders_as_its_linear_form() {
        // a := x1; b := x1 + 1; then sixty times `a := a + b; b := b + a`: a tree of
        // about 2⁶⁰ nodes, 120 in the DAG.
        let add = |p: &Term, q: &Term| Term::binary(BinOp::Add, p, q).unwrap();
        let x = Term::sym(1);
        let (mut a, mut b) = (x.clone(), add(&x, &c(1)));
        let (mut ka, mut ca, mut kb, mut cb) = (1u64, 0u64, 1u64, 1u64);
        for _ in 0..30 {
            a = add(&a, &b);
            (ka, ca) = (ka + kb, ca + cb);
            b = add(&b, &a);
            (kb, cb) = (kb + ka, cb + ca);
        }
        assert_eq!(show(&a), format!("{ka} * x1 + {ca}"));
        // Negative coefficients, a coefficient 1 and no constant.
        let sub = |p: &Term, q: &Term| Term::binary(BinOp::Sub, p, q).unwrap();
        let y = Term::sym(2);
        let d = sub(&sub(&y, &a), &c(ca as i64));
        assert_eq!(show(&d), format!("-{ka} * x1 + x2 - {}", 2 * ca));
    }

    #[test]
    fn a_large_nonlinear_term_renders_its_shared_subterms_once() {
        // t := t * t + x1, twenty times: a tree of about 2²⁰ nodes.
        let x = Term::sym(1);
        let mut t = x.clone();
        for _ in 0..20 {
            let square = Term::binary(BinOp::Mul, &t, &t).unwrap();
            t = Term::binary(BinOp::Add, &square, &x).unwrap();
        }
        let text = show(&t);
        assert!(
            text.starts_with("let t1 = x1 * x1 + x1 in let t2 = t1 * t1 + x1 in "),
            "{text}"
        );
        assert!(text.ends_with("in t19 * t19 + x1"), "{text}");
        assert!(text.len() < 1000, "{text}");
        // A small term is still written as a tree.
        let small = Term::binary(BinOp::Mul, &x, &x).unwrap();
        assert_eq!(show(&small), "x1 * x1");
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

    /// `x - x` nested `depth` times: shared, a node per level; unshared, a tree of
    /// 2^depth leaves.
    fn doubling(depth: u32, shared: bool) -> Term {
        let bin = |a: &Term, b: &Term| Term::binary(BinOp::Sub, a, b).unwrap();
        if depth == 0 {
            return bin(&Term::sym(1), &Term::sym(2));
        }
        if shared {
            let inner = doubling(depth - 1, true);
            bin(&inner, &inner)
        } else {
            bin(&doubling(depth - 1, false), &doubling(depth - 1, false))
        }
    }

    #[test]
    fn large_terms_are_walked_as_the_dags_they_are() {
        // A tree of 2^200 nodes: only a walk of its 200 shared nodes ends.
        let huge = doubling(200, true);
        let w: Witness = [(1, BigInt::from(7)), (2, BigInt::from(3))]
            .into_iter()
            .collect();
        assert_eq!(huge.eval(&w), Some(BigInt::from(0)));
        let mut syms = vec![9];
        huge.symbols(&mut syms);
        assert_eq!(syms, vec![9, 1, 2]);
        assert!(huge.is_linear());
        let product = Term::binary(BinOp::Mul, &huge, &huge).unwrap();
        assert!(!product.is_linear());
        let mut code = Vec::new();
        huge.encode_into(&|n| n, &mut code);
        assert!(code.len() < 2_000, "{}", code.len());
        // Past the tree walk's budget, equal trees encode alike however they are
        // shared, and unequal ones differently.
        let code_of = |t: &Term| {
            let mut out = Vec::new();
            t.encode_into(&|n| n, &mut out);
            out
        };
        assert_eq!(code_of(&doubling(10, true)), code_of(&doubling(10, false)));
        assert_ne!(code_of(&doubling(10, true)), code_of(&doubling(11, true)));
        let other = Term::binary(BinOp::Add, &doubling(9, true), &doubling(9, false)).unwrap();
        assert_ne!(code_of(&doubling(10, true)), code_of(&other));
        // Below it, the encoding is the tree's.
        assert_eq!(code_of(&doubling(3, true)), code_of(&doubling(3, false)));
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
