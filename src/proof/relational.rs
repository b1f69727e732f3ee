//! Checking a proof that two libraries are equivalent for every k and l (`holi equiv
//! --prove`, `lang/proofs.md` §8): a [`Relation`] between their stores that holds at
//! every client turn, checked pair of functions by pair of functions.
//!
//! The argument. The client plays against both sides at once, the same moves on
//! each; a move of the client is a call of a function it holds, and it holds functions
//! in pairs: the n-th function the left passed it and the n-th the right passed
//! (`../shared/notes/equivalence.md`). Library code runs only between two client
//! turns, from the entry of such a pair or from the return of a call to the client.
//! So it suffices that the relation `I` holds initially and that each pair, run on
//! both sides from any stores related by `I` on one argument, reaches moves that
//! match: calls of the same function of the client's with matching values and `I`
//! holding before them, then (whatever the client did in its turn, which only ran
//! pairs that keep `I`) stores related by `I` again and one result shared by both;
//! and at the end both return matching values with `I` holding, or both fail, or
//! both diverge. Values match when their integers are equal and their functions,
//! position by position, form pairs that are checked in turn (a function of the
//! client's passed back on both sides must be the same one). By induction on the
//! length of a run, no client then sees the sides end differently: they are
//! equivalent at every k and l.
//!
//! Each side is evaluated on its own, along every path: the k-th call to the client
//! on any path gets the result named after k on both sides, and the store after it is
//! named after k on each side, so a pair of paths is compared move by move under both
//! path conditions, the relation at each earlier turn, and the equalities its own
//! shared names make. Paths run through the library's own calls, recursion included,
//! up to the budget's depth; a path longer than that is "not covered", never taken
//! as equivalent (the sides must also agree on terminating).
//!
//! Where neither library can fail (no `assert`, no division by a possible zero), a
//! pair of paths that both end diverging needs nothing: no run through them reaches
//! an end the client sees, so what they did before cannot be seen either (Hobbit's
//! `fun q -> …; _bot_` against `fun q -> _bot_`).
//!
//! Facts of the relation are linear inequalities, or remainders by a constant, over
//! the references and cells of either side, each possibly guarded by a cell's value or
//! remainder, as in `check`'s proofs
//! (`lang/proofs.md` §7): a fact about one side's cells holds of each object of their
//! allocation site (the cells one activation allocates); a fact relating cells of
//! both sides holds of each pair of objects made together, the n-th the left makes
//! while answering a move with the n-th the right makes. Facts about one side only
//! are also checked on that side alone, which lets its paths be cut by them (a loop
//! bounded by a cell's constant ends).
//!
//! Lists of integers the client passes are terms of an SMT datatype, of any length: a
//! match forks on their two constructors, and two values holding them match when the
//! lists are equal, however each side built them.

use super::limits::{Budget, INTERRUPTED, TIME_LIMIT};
use super::sites::Sites;
use crate::library::ir::{CodeId, Expr, ExprKind, GlobalName, TypeId, TypeNode};
use crate::library::{Initial, Library};
use crate::symbolic::solver::{numeral, Alarm};
use crate::symbolic::worker::no_ctrl_c;
use crate::syntax::ast::{BinOp, Span, Visibility};
use num_bigint::BigInt;
use num_traits::{One, Signed, Zero};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::time::Instant;
use z3::ast::{Ast, Bool, Dynamic, Int};
use z3::{AstKind, FuncDecl, SatResult, Sort, SortKind};

/// The most pairs of functions one proof checks (methods included).
const MAX_PAIRS: usize = 64;

const TOO_DEEP: &str = "recursion deeper than the checker's budget";

/// The most integers a summarised function takes ([`Checker::summary_call`]).
const MAX_INPUTS: usize = 6;

/// How long one query of the search for a summary may take, in milliseconds: a
/// candidate Z3 cannot settle quickly is dropped (the summary kept is asked again in
/// full).
const SUMMARY_QUERY_MS: u32 = 500;

/// Which library of the two.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Side {
    Left,
    Right,
}

impl Side {
    fn index(self) -> usize {
        match self {
            Side::Left => 0,
            Side::Right => 1,
        }
    }

    fn word(self) -> &'static str {
        match self {
            Side::Left => "left",
            Side::Right => "right",
        }
    }
}

/// A reference of one side (`r` below its number of references), or an allocation
/// site (`r` minus that number, in the order of [`Sites`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cell {
    pub side: Side,
    pub r: u32,
}

/// `Σ coefficient · cell ≥ constant`, or with a modulus `m`, `(Σ coefficient · cell)
/// mod m = constant` (the remainder of Euclid's division, in `0..m`); with a guard,
/// only while the guard holds. A fact's cells of allocation sites are of one code's
/// sites on each side.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Fact {
    pub terms: Vec<(Cell, BigInt)>,
    pub constant: BigInt,
    pub modulus: Option<BigInt>,
    pub guard: Option<Guard>,
}

/// A cell's state: `cell = value`, or with a modulus `m`, `cell mod m = value`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Guard {
    pub cell: Cell,
    pub value: BigInt,
    pub modulus: Option<BigInt>,
}

impl Guard {
    fn holds(&self, value: &Int) -> Bool {
        match &self.modulus {
            Some(m) => value.modulo(big(m)).eq(big(&self.value)),
            None => value.eq(big(&self.value)),
        }
    }

    fn display(&self, names: &Names) -> String {
        let cell = names.of_cell(self.cell);
        match &self.modulus {
            Some(m) => format!("{cell} mod {m} = {}", self.value),
            None => format!("{cell} = {}", self.value),
        }
    }
}

impl Fact {
    /// `Σ coefficient · cell ≥ constant`, unguarded.
    fn linear(terms: Vec<(Cell, BigInt)>, constant: BigInt) -> Fact {
        Fact {
            terms,
            constant,
            modulus: None,
            guard: None,
        }
    }

    fn cells(&self) -> impl Iterator<Item = Cell> + '_ {
        (self.terms.iter().map(|(c, _)| *c)).chain(self.guard.iter().map(|g| g.cell))
    }

    /// Whether it mentions each side.
    fn sides(&self) -> [bool; 2] {
        let mut out = [false; 2];
        for c in self.cells() {
            out[c.side.index()] = true;
        }
        out
    }

    /// The formula, with each cell's value from `value`; `None` when one has none (a
    /// cell not allocated yet).
    fn holds(&self, value: impl Fn(Cell) -> Option<Int>) -> Option<Bool> {
        let mut sum = Vec::new();
        for (c, k) in &self.terms {
            sum.push(Int::mul(&[&big(k), &value(*c)?]));
        }
        let sum = match sum.len() {
            0 => Int::from_i64(0),
            _ => Int::add(&sum.iter().collect::<Vec<_>>()),
        };
        let body = match &self.modulus {
            Some(m) => sum.modulo(big(m)).eq(big(&self.constant)),
            None => sum.ge(big(&self.constant)),
        };
        Some(match &self.guard {
            Some(g) => g.holds(&value(g.cell)?).implies(&body),
            None => body,
        })
    }

    pub fn display<'a>(&'a self, names: &'a Names) -> FactDisplay<'a> {
        FactDisplay {
            fact: self,
            names,
            equal: false,
        }
    }

    /// The fact with the other side of the same equality: `−Σ ≥ −c`; `None` for a
    /// fact with a modulus, an equality already.
    fn negated(&self) -> Option<Fact> {
        self.modulus.is_none().then(|| Fact {
            terms: self.terms.iter().map(|(c, k)| (*c, -k)).collect(),
            constant: -&self.constant,
            modulus: None,
            guard: self.guard.clone(),
        })
    }
}

/// The names of the cells of two libraries, to show facts.
pub struct Names {
    names: [Vec<String>; 2],
}

impl Names {
    pub fn of(left: &Library, right: &Library) -> Names {
        let one = |lib: &Library| {
            let sites = Sites::of(lib);
            let mut out: Vec<String> = lib.refs.clone();
            out.extend(sites.sites.iter().map(|s| format!("cell {}", s.name)));
            out
        };
        Names {
            names: [one(left), one(right)],
        }
    }

    fn of_cell(&self, c: Cell) -> String {
        let name = self.names[c.side.index()].get(c.r as usize);
        format!("{}.{}", c.side.word(), name.map_or("?", |n| n.as_str()))
    }
}

pub struct FactDisplay<'a> {
    fact: &'a Fact,
    names: &'a Names,
    /// Shown as `Σ = c`, its negation being a fact too.
    equal: bool,
}

impl fmt::Display for FactDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for (c, k) in &self.fact.terms {
            let name = self.names.of_cell(*c);
            let sign = if k.is_negative() { "-" } else { "+" };
            match (first, k.abs().is_one()) {
                (true, true) if k.is_negative() => write!(f, "-{name}")?,
                (true, true) => write!(f, "{name}")?,
                (true, false) => write!(f, "{k}·{name}")?,
                (false, true) => write!(f, " {sign} {name}")?,
                (false, false) => write!(f, " {sign} {}·{name}", k.abs())?,
            }
            first = false;
        }
        match &self.fact.modulus {
            Some(m) if self.fact.terms.len() == 1 => write!(f, " mod {m} = ")?,
            Some(m) => write!(f, " ≡ (mod {m}) ")?,
            None if self.equal => f.write_str(" = ")?,
            None => f.write_str(" ≥ ")?,
        }
        write!(f, "{}", self.fact.constant)?;
        if let Some(g) = &self.fact.guard {
            write!(f, " while {}", g.display(self.names))?;
        }
        Ok(())
    }
}

/// How a cell's value after a client turn relates to its value before.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Change {
    Same,
    Up,
    Down,
}

/// A step of the turn relation: one side's cell after any client turn is `change`d
/// from before it (for cells of sites, each object's that existed before the turn),
/// or only while its guard held before the turn (the guard is a reference or a cell
/// of the same object). A guarded step is used only beside the step that keeps its
/// guard (`g′ = g while g = v`), which makes the relation transitive.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Step {
    pub cell: Cell,
    pub change: Change,
    pub guard: Option<Guard>,
}

impl Step {
    fn holds(
        &self,
        before: impl Fn(Cell) -> Option<Int>,
        after: impl Fn(Cell) -> Option<Int>,
    ) -> Option<Bool> {
        let (x, y) = (before(self.cell)?, after(self.cell)?);
        let body = match self.change {
            Change::Same => y.eq(&x),
            Change::Up => y.ge(&x),
            Change::Down => y.le(&x),
        };
        Some(match &self.guard {
            Some(g) => g.holds(&before(g.cell)?).implies(&body),
            None => body,
        })
    }

    /// Whether this keeps its own guard, `g′ = g while g = v`.
    fn keeps_guard(&self) -> bool {
        self.change == Change::Same && self.guard.as_ref().is_some_and(|g| g.cell == self.cell)
    }

    pub fn display<'a>(&'a self, names: &'a Names) -> StepDisplay<'a> {
        StepDisplay { step: self, names }
    }
}

pub struct StepDisplay<'a> {
    step: &'a Step,
    names: &'a Names,
}

impl fmt::Display for StepDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.names.of_cell(self.step.cell);
        let op = match self.step.change {
            Change::Same => "=",
            Change::Up => "≥",
            Change::Down => "≤",
        };
        write!(f, "{name}′ {op} {name}")?;
        if let Some(g) = &self.step.guard {
            write!(f, " while {}", g.display(self.names))?;
        }
        Ok(())
    }
}

/// A relational certificate: facts over the two sides' references and cells that hold
/// at every client turn, and steps each client turn takes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Relation {
    pub facts: Vec<Fact>,
    pub steps: Vec<Step>,
}

impl Relation {
    /// The facts in words, a fact and its negation as one equality.
    pub fn describe(&self, names: &Names) -> Vec<String> {
        let mut out = Vec::new();
        let mut shown = vec![false; self.facts.len()];
        for (i, fact) in self.facts.iter().enumerate() {
            if shown[i] {
                continue;
            }
            shown[i] = true;
            let negated = fact.negated();
            let other = (i + 1..self.facts.len())
                .find(|&j| !shown[j] && negated.as_ref() == Some(&self.facts[j]));
            if let Some(j) = other {
                shown[j] = true;
            }
            let display = FactDisplay {
                fact,
                names,
                equal: other.is_some(),
            };
            out.push(display.to_string());
        }
        out
    }

    /// The steps the checker uses: a guarded one only beside the step that keeps its
    /// guard.
    fn used_steps(&self) -> Vec<usize> {
        (0..self.steps.len())
            .filter(|&s| {
                let step = &self.steps[s];
                step.guard.is_none()
                    || step.keeps_guard()
                    || self
                        .steps
                        .iter()
                        .any(|t| t.keeps_guard() && t.guard == step.guard)
            })
            .collect()
    }
}

/// What the checker found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every obligation was discharged: equivalent for every k and l. `pairs`: the
    /// pairs of functions checked (the public methods' included).
    Proved { obligations: usize, pairs: usize },
    /// This obligation does not follow from the relation (the sides may still be
    /// equivalent: the relation may be too weak).
    Refuted(String),
    /// The argument does not apply to these libraries (why).
    NotCovered(String),
    /// Z3 could not decide an obligation, or a limit stopped the checker.
    Unknown(String),
}

/// Checks that `relation` proves `left` and `right` equivalent for every k and l.
/// `place` writes a place of a side's source in the obligations.
pub fn check(
    left: &Library,
    right: &Library,
    relation: &Relation,
    budget: Budget,
    place: &dyn Fn(Side, &Span) -> String,
) -> Outcome {
    Checker::new([left, right], relation, place, budget, false).outcome()
}

/// [`check`], and when it proves: every obligation as an SMT-LIB query that must be
/// unsatisfiable (`z3 FILE` answers `unsat` to each `check-sat`).
pub fn certify(
    left: &Library,
    right: &Library,
    relation: &Relation,
    budget: Budget,
    place: &dyn Fn(Side, &Span) -> String,
) -> (Outcome, Option<String>) {
    let mut checker = Checker::new([left, right], relation, place, budget, false);
    checker.smtlib = Some(Vec::new());
    let outcome = checker.outcome();
    let mut queries = std::mem::take(&mut checker.lasting_queries);
    queries.extend(checker.smtlib.take().unwrap_or_default());
    if !matches!(outcome, Outcome::Proved { .. }) {
        return (outcome, None);
    }
    let names = Names::of(left, right);
    let mut text = String::from(
        "; A proof of equivalence for every k and l, written by holi's relational proof\n\
         ; checker (lang/proofs.md §8). Each obligation below is one query: what its\n\
         ; paths assume and the negation of what must hold. Every (check-sat) must\n\
         ; answer unsat.\n",
    );
    for fact in &relation.facts {
        text.push_str(&format!("; relation: {}\n", fact.display(&names)));
    }
    for (i, (what, query)) in queries.iter().enumerate() {
        text.push_str(&format!(
            "\n; obligation {}: {what}\n(push 1)\n{query}(check-sat)\n(pop 1)\n",
            i + 1
        ));
    }
    (outcome, Some(text))
}

/// Searches for a relation among `candidates` that proves the libraries equivalent
/// (Houdini): the checker runs with all of them, drops every fact some obligation
/// shows not to hold, and runs again until none is dropped; the relation left is then
/// checked afresh by [`check`], whose answer is returned with it.
pub fn find(
    left: &Library,
    right: &Library,
    candidates: &Relation,
    budget: Budget,
    place: &dyn Fn(Side, &Span) -> String,
) -> (Relation, Outcome) {
    let mut relation = candidates.clone();
    loop {
        let mut checker = Checker::new([left, right], &relation, place, budget.clone(), true);
        let outcome = checker.outcome();
        let broken = checker.broken.take().unwrap_or_default();
        if !broken.iter().any(|&b| b) {
            if !matches!(outcome, Outcome::Proved { .. }) {
                return (relation, outcome);
            }
            break;
        }
        if matches!(outcome, Outcome::NotCovered(_) | Outcome::Unknown(_)) {
            return (relation, outcome);
        }
        let facts = std::mem::take(&mut relation.facts);
        let n = facts.len();
        relation.facts = (facts.into_iter().zip(&broken))
            .filter(|(_, &b)| !b)
            .map(|(f, _)| f)
            .collect();
        let steps = std::mem::take(&mut relation.steps);
        relation.steps = (steps.into_iter().zip(&broken[n..]))
            .filter(|(_, &b)| !b)
            .map(|(s, _)| s)
            .collect();
        let used = relation.used_steps();
        relation.steps = used
            .into_iter()
            .map(|s| relation.steps[s].clone())
            .collect();
    }
    let outcome = check(left, right, &relation, budget, place);
    (relation, outcome)
}

/// How many candidates [`candidates`] gives: each tier has those of the one before.
/// Fewer candidates make each of Houdini's rounds cheaper, so [`prove`] tries them in
/// order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tier {
    /// Facts, no guard, and no turn relation.
    Facts,
    /// And a cell's value kept, never lowered or never raised by a client turn.
    Steps,
    /// And facts and steps guarded by a flag's state.
    Guarded,
}

/// Searches the tiers of candidates in order ([`Tier`]) and answers with the first
/// relation that proves the libraries equivalent, else with the last tier's answer
/// (or the first that the argument does not cover or a limit stopped).
pub fn prove(
    left: &Library,
    right: &Library,
    budget: Budget,
    place: &dyn Fn(Side, &Span) -> String,
) -> (Relation, Outcome) {
    let mut last = (Relation::default(), Outcome::Refuted(String::new()));
    for tier in [Tier::Facts, Tier::Steps, Tier::Guarded] {
        let candidates = candidates(left, right, tier);
        last = find(left, right, &candidates, budget.clone(), place);
        if !matches!(last.1, Outcome::Refuted(_)) {
            break;
        }
    }
    last
}

/// The candidate facts for [`find`]: each integer reference or cell at the constants
/// its code gives it; each integer reference or cell of the left equal to each of the
/// right, or to its negation, or related by the steps their code changes them by
/// (`2·c (left) + c (right) = 0` when the left adds 1 where the right takes 2); from
/// [`Tier::Steps`], a client turn keeping each, never lowering or never raising it;
/// from [`Tier::Guarded`], each equality between the sides and each kept cell while a
/// flag of either holds one of the values its code gives it.
pub fn candidates(left: &Library, right: &Library, tier: Tier) -> Relation {
    let guarded = tier >= Tier::Guarded;
    let infos = [Info::of(left), Info::of(right)];
    let mut facts = Vec::new();
    let mut push = |f: Fact| {
        if !facts.contains(&f) {
            facts.push(f);
        }
    };
    let equal = |terms: Vec<(Cell, BigInt)>, constant: BigInt, push: &mut dyn FnMut(Fact)| {
        let negated = terms.iter().map(|(c, k)| (*c, -k)).collect();
        push(Fact::linear(terms, constant.clone()));
        push(Fact::linear(negated, -constant));
    };
    for (side, info) in [Side::Left, Side::Right].into_iter().zip(&infos) {
        for c in &info.integers {
            let cell = Cell { side, r: c.r };
            for k in &c.constants {
                push(Fact::linear(vec![(cell, BigInt::one())], k.clone()));
                push(Fact::linear(vec![(cell, -BigInt::one())], -k));
            }
            // Each remainder by each modulus its code divides it by: Houdini keeps the
            // one its steps keep (`x mod 2 = 0` for a cell that starts at 0 and goes up
            // by 2).
            remainders(cell, &c.moduli, None).for_each(&mut push);
        }
    }
    // Two cells of one object that their steps keep in proportion (`j = 5·i + 500` where
    // `j` goes up by 5 as `i` goes up by 1), from their initial constants.
    for (side, info) in [Side::Left, Side::Right].into_iter().zip(&infos) {
        for (n, a) in info.integers.iter().enumerate() {
            for b in &info.integers[n + 1..] {
                let (Some(code), Some(p), Some(q)) = (info.codes.get(&a.r), &a.initial, &b.initial)
                else {
                    continue;
                };
                let ([da], [db]) = (&a.steps[..], &b.steps[..]) else {
                    continue;
                };
                if info.codes.get(&b.r) != Some(code) || da.is_zero() || db.is_zero() {
                    continue;
                }
                let (x, y) = (Cell { side, r: a.r }, Cell { side, r: b.r });
                equal(vec![(x, db.clone()), (y, -da)], db * p - da * q, &mut push);
            }
        }
    }
    let mut equalities = Vec::new();
    for a in &infos[0].integers {
        for b in &infos[1].integers {
            // A reference and a cell are never related (`Checker::new`).
            if infos[0].codes.contains_key(&a.r) != infos[1].codes.contains_key(&b.r) {
                continue;
            }
            let (x, y) = (
                Cell {
                    side: Side::Left,
                    r: a.r,
                },
                Cell {
                    side: Side::Right,
                    r: b.r,
                },
            );
            let offset = match (&a.initial, &b.initial) {
                (Some(p), Some(q)) => p - q,
                _ => BigInt::zero(),
            };
            equalities.push((x, y));
            let terms = vec![(x, BigInt::one()), (y, -BigInt::one())];
            // Equal as well where the sides start apart: one side's first round of a
            // loop, unfolded, may bring them together (`Checker::unfolded`).
            if !offset.is_zero() {
                equal(terms.clone(), BigInt::zero(), &mut push);
            }
            equal(terms, offset, &mut push);
            // The sides may keep a count with opposite signs (`c` and `-c`).
            let sum = match (&a.initial, &b.initial) {
                (Some(p), Some(q)) => p + q,
                _ => BigInt::zero(),
            };
            equal(vec![(x, BigInt::one()), (y, BigInt::one())], sum, &mut push);
            for da in &a.steps {
                for db in &b.steps {
                    if da == db || da.is_zero() || db.is_zero() {
                        continue;
                    }
                    // `db·a − da·b` is kept by steps of `da` and `db` together.
                    let constant = match (&a.initial, &b.initial) {
                        (Some(p), Some(q)) => db * p - da * q,
                        _ => BigInt::zero(),
                    };
                    equal(vec![(x, db.clone()), (y, -da)], constant, &mut push);
                }
            }
        }
    }
    if guarded {
        for (side, info) in [Side::Left, Side::Right].into_iter().zip(&infos) {
            for guard in info.guards(side) {
                let g = guard.cell;
                for &(x, y) in &equalities {
                    let site = info.codes.contains_key(&g.r);
                    // A flag is not a value the sides share; a remainder may be one's
                    // (`y = y1 while y1 mod 2 = 0`).
                    let own = (x == g || y == g) && guard.modulus.is_none();
                    if own || site != infos[0].codes.contains_key(&x.r) {
                        continue;
                    }
                    for sign in [BigInt::one(), -BigInt::one()] {
                        push(Fact {
                            terms: vec![(x, sign.clone()), (y, -&sign)],
                            constant: BigInt::zero(),
                            modulus: None,
                            guard: Some(guard.clone()),
                        });
                    }
                }
                // A remainder kept while a flag holds (`x mod 2 = 0` until a flag is
                // set, after which `x` goes up by 1).
                let flag = guard.modulus.is_none();
                for c in info.integers.iter().filter(|_| flag) {
                    let cell = Cell { side, r: c.r };
                    if cell == g
                        || info
                            .codes
                            .get(&g.r)
                            .is_some_and(|k| info.codes.get(&c.r) != Some(k))
                    {
                        continue;
                    }
                    remainders(cell, &c.moduli, Some(&guard)).for_each(&mut push);
                }
            }
        }
    }
    let mut steps = Vec::new();
    let sides = match tier {
        Tier::Facts => &infos[..0],
        Tier::Steps | Tier::Guarded => &infos[..],
    };
    for (side, info) in [Side::Left, Side::Right].into_iter().zip(sides) {
        for c in &info.integers {
            let cell = Cell { side, r: c.r };
            for change in [Change::Same, Change::Up, Change::Down] {
                steps.push(Step {
                    cell,
                    change,
                    guard: None,
                });
            }
            if !guarded {
                continue;
            }
            for guard in info.guards(side) {
                // Only a guard of the same object (or a reference) says anything of
                // this cell's object.
                let code = |r: u32| info.codes.get(&r).copied();
                if code(guard.cell.r).is_some() && code(guard.cell.r) != code(c.r) {
                    continue;
                }
                steps.push(Step {
                    cell,
                    change: Change::Same,
                    guard: Some(guard),
                });
            }
        }
    }
    Relation { facts, steps }
}

/// What the candidates need of one library's integer references and cells.
struct Info {
    integers: Vec<Integer>,
    /// The code that allocates each site's cells, by its cell number.
    codes: BTreeMap<u32, CodeId>,
    /// Flags and the values they are tested against.
    guards: Vec<(u32, BigInt)>,
}

/// `cell mod m = r` for each of `moduli` and each remainder [`residues`] names, while
/// `guard` holds.
fn remainders<'a>(
    cell: Cell,
    moduli: &'a [BigInt],
    guard: Option<&'a Guard>,
) -> impl Iterator<Item = Fact> + 'a {
    moduli.iter().flat_map(move |m| {
        residues(m).into_iter().map(move |r| Fact {
            terms: vec![(cell, BigInt::one())],
            constant: r,
            modulus: Some(m.clone()),
            guard: guard.cloned(),
        })
    })
}

/// The remainders by `m` that candidates name: all of them, for a small modulus.
fn residues(m: &BigInt) -> Vec<BigInt> {
    const MOST: u32 = 4;
    match num_traits::ToPrimitive::to_u32(m) {
        Some(m) if (2..=MOST).contains(&m) => (0..m).map(BigInt::from).collect(),
        _ => Vec::new(),
    }
}

impl Info {
    /// The guards of `side`'s candidates: each flag at each value tested or given,
    /// and each integer at each remainder by each modulus its code divides it by.
    fn guards(&self, side: Side) -> Vec<Guard> {
        let flags = self.guards.iter().map(|(g, v)| Guard {
            cell: Cell { side, r: *g },
            value: v.clone(),
            modulus: None,
        });
        let remainders = self.integers.iter().flat_map(|c| {
            c.moduli.iter().flat_map(move |m| {
                residues(m).into_iter().map(move |r| Guard {
                    cell: Cell { side, r: c.r },
                    value: r,
                    modulus: Some(m.clone()),
                })
            })
        });
        flags.chain(remainders).collect()
    }
}

struct Integer {
    r: u32,
    initial: Option<BigInt>,
    /// The constants it starts with, is assigned and compared with, and 0.
    constants: Vec<BigInt>,
    /// The constants `x := !x + c` adds to it.
    steps: Vec<BigInt>,
    /// The constants the library divides by with `mod` (any integer's).
    moduli: Vec<BigInt>,
}

impl Info {
    fn of(lib: &Library) -> Info {
        let sites = Sites::of(lib);
        let n = lib.refs.len();
        let mut integers = Vec::new();
        let mut globals: BTreeMap<u32, Global> = BTreeMap::new();
        for code in &lib.codes {
            walk_constants(&code.body, &mut globals);
        }
        let moduli = moduli(lib);
        let mut guards = Vec::new();
        for (r, initial) in lib.store.iter().enumerate() {
            let Initial::Int(v) = initial else { continue };
            let global = globals.remove(&(r as u32)).unwrap_or_default();
            let (mut constants, steps) = (global.constants, global.steps);
            for c in [v.clone(), BigInt::zero()] {
                if !constants.contains(&c) {
                    constants.push(c);
                }
            }
            if global.tested {
                guards.extend(constants.iter().map(|c| (r as u32, c.clone())));
            }
            integers.push(Integer {
                r: r as u32,
                initial: Some(v.clone()),
                constants,
                steps,
                moduli: moduli.clone(),
            });
        }
        for (s, site) in sites.sites.iter().enumerate() {
            let ints = site
                .content
                .is_some_and(|ty| matches!(lib.types.node(ty), TypeNode::Int | TypeNode::Bool));
            if !ints {
                continue;
            }
            // A flag is guarded by each state its code gives it, not only those it is
            // tested against: `if !p` tests 0, and the facts kept while `p` is 1
            // matter as much.
            let boolean = site
                .content
                .is_some_and(|ty| matches!(lib.types.node(ty), TypeNode::Bool));
            // A cell only ever given a few constants is a flag even when nothing tests
            // it (a ghost that records a phase).
            let phase = site.steps.is_empty() && site.constants.len() <= 3;
            if !site.tested.is_empty() || boolean || phase {
                for v in site.tested.iter().chain(&site.constants) {
                    if !guards.contains(&((n + s) as u32, v.clone())) {
                        guards.push(((n + s) as u32, v.clone()));
                    }
                }
            }
            integers.push(Integer {
                r: (n + s) as u32,
                initial: site.initial.clone(),
                constants: site.constants.clone(),
                steps: site.steps.clone(),
                moduli: if boolean { Vec::new() } else { moduli.clone() },
            });
        }
        let codes = (sites.sites.iter().enumerate())
            .map(|(s, site)| ((n + s) as u32, site.code))
            .collect();
        Info {
            integers,
            guards,
            codes,
        }
    }
}

/// What the candidates need of a global reference's code.
#[derive(Default)]
struct Global {
    /// The constants it is assigned or compared with.
    constants: Vec<BigInt>,
    /// The constants `r := !r + c` adds to it.
    steps: Vec<BigInt>,
    /// Whether it is compared with a constant or read as a condition: a flag.
    tested: bool,
}

/// The constants the library's code divides by with `mod` (`e mod 2`, or `e mod y`
/// with `y` bound to 2, as Hobbit's translation writes it), each once.
fn moduli(lib: &Library) -> Vec<BigInt> {
    /// `e`'s subexpressions, with the constant each variable in scope is bound to
    /// (`None` for anything else), innermost last.
    fn walk(e: &Expr, bound: &mut Vec<Option<BigInt>>, out: &mut Vec<BigInt>) {
        let constant = |x: &Expr, bound: &[Option<BigInt>]| match &x.kind {
            ExprKind::Int(v) => Some(v.clone()),
            ExprKind::Local(i) => {
                (bound.len().checked_sub(1 + *i as usize)).and_then(|j| bound[j].clone())
            }
            _ => None,
        };
        match &e.kind {
            ExprKind::Binary(BinOp::Mod, _, m) => {
                if let Some(m) = constant(m, bound) {
                    if !out.contains(&m) {
                        out.push(m);
                    }
                }
            }
            ExprKind::Let(rhs, body) => {
                walk(rhs, bound, out);
                bound.push(constant(rhs, bound));
                walk(body, bound, out);
                bound.pop();
                return;
            }
            ExprKind::LetRec(_, body) => {
                bound.push(None);
                walk(body, bound, out);
                bound.pop();
                return;
            }
            ExprKind::Match(scrutinee, nil, cons) => {
                walk(scrutinee, bound, out);
                walk(nil, bound, out);
                bound.extend([None, None]);
                walk(cons, bound, out);
                bound.truncate(bound.len() - 2);
                return;
            }
            _ => {}
        }
        for child in e.children() {
            walk(child, bound, out);
        }
    }
    let mut out = Vec::new();
    for code in &lib.codes {
        // What a code captures is not followed: its own variables are enough for
        // the translation's `let y = 2 in x mod y`.
        walk(&code.body, &mut Vec::new(), &mut out);
    }
    out
}

/// Collects what [`Global`] says of each global reference.
fn walk_constants(e: &Expr, globals: &mut BTreeMap<u32, Global>) {
    let add = |to: &mut Vec<BigInt>, v: BigInt| {
        if !to.contains(&v) {
            to.push(v);
        }
    };
    match &e.kind {
        ExprKind::Assign(r, rhs) => {
            let entry = globals.entry(*r).or_default();
            if let ExprKind::Int(v) = &rhs.kind {
                add(&mut entry.constants, v.clone());
            }
            let read = |x: &Expr| matches!(x.kind, ExprKind::Deref(q) if q == *r);
            if let ExprKind::Binary(op, a, b) = &rhs.kind {
                let step = match (op, &a.kind, &b.kind) {
                    (BinOp::Add, _, ExprKind::Int(c)) if read(a) => Some(c.clone()),
                    (BinOp::Add, ExprKind::Int(c), _) if read(b) => Some(c.clone()),
                    (BinOp::Sub, _, ExprKind::Int(c)) if read(a) => Some(-c),
                    _ => None,
                };
                if let Some(c) = step {
                    add(&mut entry.steps, c);
                }
            }
        }
        ExprKind::Binary(op, a, b) => {
            if let (ExprKind::Deref(r), ExprKind::Int(v)) | (ExprKind::Int(v), ExprKind::Deref(r)) =
                (&a.kind, &b.kind)
            {
                let entry = globals.entry(*r).or_default();
                add(&mut entry.constants, v.clone());
                entry.tested |= matches!(
                    op,
                    BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge | BinOp::Eq
                );
            }
        }
        ExprKind::If(condition, ..) => {
            let mut c = &**condition;
            while let ExprKind::Not(inner) = &c.kind {
                c = inner;
            }
            if let ExprKind::Deref(r) = c.kind {
                globals.entry(r).or_default().tested = true;
            }
        }
        _ => {}
    }
    for child in e.children() {
        walk_constants(child, globals);
    }
}

/// Why the checker stopped.
enum Stop {
    Refuted(String),
    NotCovered(String),
    Unknown(String),
}

fn not_covered<T>(why: impl Into<String>) -> Result<T, Stop> {
    Err(Stop::NotCovered(why.into()))
}

/// A function of the client's, by how the sides came to hold it: the same name on
/// both sides is the same function.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Name {
    Import(String),
    /// In the argument of the pair being checked.
    Argument(u32),
    /// In the result of the k-th call to the client on the path.
    Result(u32, u32),
    /// Captured by the pair being checked.
    Captured(u32),
    /// Not the client's: a function of the library's that is running already
    /// ([`Checker::summarises`]), the event's callee.
    Own,
}

#[derive(Clone, Debug)]
enum Val {
    Int(Int),
    Unit,
    Pair(Rc<Val>, Rc<Val>),
    /// Lists the library makes itself, of a known length.
    Nil,
    Cons(Rc<Val>, Rc<Val>),
    /// A list of integers (of truth values, when `true`) the client gave, or part of
    /// one: a term of the sort `IntList` ([`int_lists`]), taken apart by matches.
    List(Dynamic, bool),
    Closure(CodeId, Env),
    Method(u32),
    Client(Name, TypeId),
    Loc(Key),
}

/// A reference (`inst` 0) or the cell of a site (`r`: references plus the site) that
/// an object (`inst`) has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Key {
    r: u32,
    inst: u32,
}

type Env = imbl::Vector<Val>;
type Store = imbl::OrdMap<Key, Val>;

/// A call to the client on a path.
#[derive(Clone)]
struct Event {
    target: Name,
    /// The library's own function called, when the target is [`Name::Own`].
    callee: Option<Val>,
    argument: Val,
    before: Store,
    after: Store,
    at: Span,
}

/// One path of one side: its conditions, each with the number of calls to the client
/// made before it arose; its store; its calls to the client; its objects (instance,
/// code, and the number of calls made before it was made; those of the pair's
/// captured cells first, made before any).
#[derive(Clone)]
struct Run {
    condition: Vec<(u32, Bool)>,
    store: Store,
    events: Vec<Event>,
    objects: Vec<(u32, CodeId, u32)>,
    /// How many of `objects` the pair captured: the client holds them, the others
    /// only once they reach it.
    captured: usize,
    /// The object each running activation allocates into.
    activations: imbl::OrdMap<u64, u32>,
}

impl Run {
    fn tag(&self) -> u32 {
        self.events.len() as u32
    }
}

enum End {
    Return(Val),
    Diverge,
    Fail(Span),
}

/// A path to its end.
struct Done {
    run: Run,
    end: End,
}

/// Each side's entry, and its paths to their ends.
type Evaluated = (Vec<Run>, Vec<Vec<Done>>);

/// What [`Checker::mark`] keeps.
type Mark = (
    usize,
    HashMap<String, Vec<Bool>>,
    usize,
    Option<usize>,
    Option<Vec<bool>>,
);

/// What the checker needs of one library.
struct Lib<'l> {
    lib: &'l Library,
    sites: Sites,
    n_refs: u32,
    /// Whether each reference and each site's cells may change after they are made.
    mutable: Vec<bool>,
    /// The value each site's `ref` starts its cells with, when it is a constant.
    constant_init: Vec<Option<Val>>,
    /// Whether an `assert` or a division may fail.
    can_fail: bool,
}

impl<'l> Lib<'l> {
    fn new(lib: &'l Library) -> Lib<'l> {
        let sites = Sites::of(lib);
        let mut mutable = vec![false; lib.refs.len()];
        let mut constant_init = vec![None; sites.sites.len()];
        let mut can_fail = false;
        let mut todo: Vec<&Expr> = lib.codes.iter().map(|c| &c.body).collect();
        while let Some(e) = todo.pop() {
            match &e.kind {
                ExprKind::Assign(r, _) => mutable[*r as usize] = true,
                ExprKind::Assert(_) => can_fail = true,
                ExprKind::Binary(BinOp::Div | BinOp::Mod, _, divisor) if !matches!(&divisor.kind, ExprKind::Int(n) if !n.is_zero()) =>
                {
                    can_fail = true;
                }
                ExprKind::Alloc(init, _) => {
                    if let Some(s) = sites.at(e) {
                        constant_init[s] = constant(init);
                    }
                }
                _ => {}
            }
            todo.extend(e.children());
        }
        mutable.extend((0..sites.sites.len()).map(|s| sites.mutable(s)));
        Lib {
            lib,
            n_refs: lib.refs.len() as u32,
            sites,
            mutable,
            constant_init,
            can_fail,
        }
    }

    /// The key of cell `r` of object `inst` (references have one cell, of no object).
    fn key(&self, r: u32, inst: u32) -> Key {
        match r < self.n_refs {
            true => Key { r, inst: 0 },
            false => Key { r, inst },
        }
    }

    /// The code whose activations allocate the cells of `r`, when it is a site.
    fn code_of(&self, r: u32) -> Option<CodeId> {
        let s = r.checked_sub(self.n_refs)? as usize;
        self.sites.sites.get(s).map(|site| site.code)
    }

    /// The type of the argument and of the result of function `f`.
    fn signature(&self, f: &Val) -> Option<(TypeId, TypeId)> {
        match f {
            Val::Closure(code, _) => {
                let code = self.lib.code(*code);
                Some((code.param_ty, code.ret_ty))
            }
            Val::Method(m) => {
                let code = self.lib.code(self.lib.methods[*m as usize].code);
                Some((code.param_ty, code.ret_ty))
            }
            Val::Client(_, ty) => self.lib.types.arrow(*ty),
            _ => None,
        }
    }

    /// The value of a site's cell when a function that captured it is called: what
    /// the `ref` gave it if it never changes, else any value (integers) or `()`.
    fn generic_cell(&self, side: Side, r: u32, inst: u32) -> Result<Val, Stop> {
        let s = (r - self.n_refs) as usize;
        if !self.mutable[r as usize] {
            if let Some(v) = &self.constant_init[s] {
                return Ok(v.clone());
            }
        }
        let content = self.sites.sites[s].content;
        let name = format!("{}e_{r}_{inst}", prefix(side));
        match content {
            Some(ty) => self.any(ty, &name, &mut 0),
            None => not_covered("a cell of unknown type"),
        }
    }

    /// Any value of type `ty` with no function or list in it, its integers named after
    /// `name` and their place.
    fn any(&self, ty: TypeId, name: &str, next: &mut u32) -> Result<Val, Stop> {
        Ok(match self.lib.types.node(ty) {
            TypeNode::Int | TypeNode::Bool => {
                *next += 1;
                Val::Int(Int::new_const(format!("{name}_{next}")))
            }
            TypeNode::Unit => Val::Unit,
            TypeNode::Pair(a, b) => {
                Val::Pair(Rc::new(self.any(a, name, next)?), Rc::new(self.any(b, name, next)?))
            }
            _ => {
                return not_covered(
                    "a captured cell holds a function, a list or a cell, and its content is not a constant",
                )
            }
        })
    }
}

/// The value of a constant expression (numbers, `()`, pairs of them).
fn constant(e: &Expr) -> Option<Val> {
    match &e.kind {
        ExprKind::Int(n) => Some(Val::Int(big(n))),
        ExprKind::Unit => Some(Val::Unit),
        ExprKind::Nil => Some(Val::Nil),
        ExprKind::Pair(a, b) => Some(Val::Pair(Rc::new(constant(a)?), Rc::new(constant(b)?))),
        _ => None,
    }
}

fn prefix(side: Side) -> &'static str {
    match side {
        Side::Left => "L",
        Side::Right => "R",
    }
}

fn big(n: &BigInt) -> Int {
    crate::symbolic::solver::int_const(n)
}

/// A pair of functions the client holds, to be checked: one of each side, with the
/// objects of the cells they captured (instance and code, by side) and which of those
/// were made together.
#[derive(Clone)]
struct Pair {
    what: String,
    functions: [Val; 2],
    objects: [Vec<(u32, CodeId)>; 2],
    together: Vec<(u32, u32)>,
    /// What is known of the integers they captured.
    assume: Vec<Bool>,
}

/// How fresh values are named: by their place in the argument of the pair being
/// checked, or in the result of the k-th call to the client. Both sides name them
/// alike, so that one value is one symbol on both.
#[derive(Clone, Copy)]
enum Origin {
    Argument,
    Result(u32),
}

struct Fresh {
    origin: Origin,
    ints: u32,
    names: u32,
    lists: u32,
    /// `0 ≤ b ≤ 1` for each truth value.
    range: Vec<Bool>,
}

impl Fresh {
    fn new(origin: Origin) -> Fresh {
        Fresh {
            origin,
            ints: 0,
            names: 0,
            lists: 0,
            range: Vec::new(),
        }
    }
}

struct Checker<'l> {
    /// First, so that it stops before the solver's context goes.
    _alarm: Alarm,
    libs: [Lib<'l>; 2],
    relation: &'l Relation,
    place: &'l dyn Fn(Side, &Span) -> String,
    budget: Budget,
    solver: z3::Solver,
    /// The sort of the client's lists ([`Val::List`]), in the solver's context.
    lists: z3::DatatypeSort,
    steps: u64,
    obligations: usize,
    /// When searching ([`find`]): which facts some obligation showed not to hold.
    broken: Option<Vec<bool>>,
    /// When writing the certificate ([`certify`]): each obligation's query.
    smtlib: Option<Vec<(String, String)>>,
    /// The obligations of summaries, which no attempt's reset drops, and their queries.
    lasting: usize,
    lasting_queries: Vec<(String, String)>,
    /// The facts about each side alone, and those about both.
    one_sided: [Vec<usize>; 2],
    both: Vec<usize>,
    /// The steps of the turn relation used ([`Relation::used_steps`]), by side.
    turn_steps: [Vec<usize>; 2],
    pairs: Vec<Pair>,
    /// The pairs queued, each with what was assumed of its captured integers.
    seen: HashMap<String, Vec<Bool>>,
    /// Neither side can fail: paths that both diverge need nothing (module docs).
    lenient: bool,
    activations: u64,
    /// Whether recursion is read as moves ([`Checker::summarises`]), and how many calls
    /// of each code are running on the path being evaluated.
    summarise: bool,
    running: HashMap<CodeId, u32>,
    /// Per side, how many calls of a function run inlined before a further call of it
    /// is read as a move ([`Checker::unfolded`]).
    lag: [u32; 2],
    /// The calls being evaluated, innermost last, as they began.
    frames: Vec<Frame>,
    /// The paths of the side being evaluated that ended (diverged or failed).
    ended: Vec<Done>,
    /// The side being evaluated and the pair being checked, for obligations.
    side: Side,
    what: String,
    /// Whether calls of pure recursive functions are read through their summaries
    /// ([`Checker::summary_call`]), the summaries found, and each function's (by side
    /// and [`inputs`] shape), `None` where it has none or is being summarised.
    lemmas: bool,
    summaries: Vec<Summary>,
    summary_of: HashMap<(Side, String), Option<usize>>,
    /// Those of functions that change cells they captured, and each function's.
    effects: Vec<Effects>,
    effects_of: HashMap<(Side, String), Option<usize>>,
    /// The functions being summarised, innermost last.
    checking: Vec<Checking>,
    /// The solver of the search for summaries, with [`SUMMARY_QUERY_MS`] per query.
    quick: z3::Solver,
}

impl<'l> Checker<'l> {
    fn new(
        libs: [&'l Library; 2],
        relation: &'l Relation,
        place: &'l dyn Fn(Side, &Span) -> String,
        budget: Budget,
        searching: bool,
    ) -> Checker<'l> {
        // Its solver is made in this thread's default context.
        crate::symbolic::context::default_in_use();
        let solver = z3::Solver::new();
        solver.set_params(&no_ctrl_c());
        let quick = z3::Solver::new();
        let mut params = no_ctrl_c();
        params.set_u32("timeout", SUMMARY_QUERY_MS);
        quick.set_params(&params);
        let libs = libs.map(Lib::new);
        let (mut one_sided, mut both) = ([Vec::new(), Vec::new()], Vec::new());
        for (f, fact) in relation.facts.iter().enumerate() {
            // A fact over a reference and a cell would have to be kept by code that
            // changes the reference without the cell's object in hand: it is neither
            // assumed nor asked.
            let site = |c: Cell| c.r >= libs[c.side.index()].n_refs;
            if fact.cells().any(site) && !fact.cells().all(site) {
                continue;
            }
            match fact.sides() {
                [true, true] => both.push(f),
                [true, false] => one_sided[0].push(f),
                [false, true] => one_sided[1].push(f),
                [false, false] => {}
            }
        }
        let lenient = !libs[0].can_fail && !libs[1].can_fail;
        let mut turn_steps = [Vec::new(), Vec::new()];
        for s in relation.used_steps() {
            turn_steps[relation.steps[s].cell.side.index()].push(s);
        }
        Checker {
            _alarm: Alarm::new(&solver, budget.deadline, budget.interrupt.clone()),
            libs,
            relation,
            place,
            budget,
            solver,
            lists: int_lists(),
            steps: 0,
            obligations: 0,
            broken: searching.then(|| vec![false; relation.facts.len() + relation.steps.len()]),
            smtlib: None,
            lasting: 0,
            lasting_queries: Vec::new(),
            one_sided,
            both,
            turn_steps,
            pairs: Vec::new(),
            seen: HashMap::new(),
            lenient,
            activations: 0,
            summarise: false,
            running: HashMap::new(),
            lag: [0, 0],
            frames: Vec::new(),
            ended: Vec::new(),
            side: Side::Left,
            what: String::new(),
            lemmas: false,
            summaries: Vec::new(),
            summary_of: HashMap::new(),
            effects: Vec::new(),
            effects_of: HashMap::new(),
            checking: Vec::new(),
            quick,
        }
    }

    fn outcome(&mut self) -> Outcome {
        match self.run() {
            Ok(()) => Outcome::Proved {
                obligations: self.obligations + self.lasting,
                pairs: self.pairs.len(),
            },
            Err(Stop::Refuted(why)) => Outcome::Refuted(why),
            Err(Stop::NotCovered(why)) => Outcome::NotCovered(why),
            Err(Stop::Unknown(why)) => Outcome::Unknown(why),
        }
    }

    fn lib(&self, side: Side) -> &Lib<'l> {
        &self.libs[side.index()]
    }

    fn run(&mut self) -> Result<(), Stop> {
        for side in [Side::Left, Side::Right] {
            let lib = self.lib(side).lib;
            if lib.may_get_stuck {
                return not_covered("some paths of a side may get stuck");
            }
        }
        let mut names = Vec::new();
        for side in [Side::Left, Side::Right] {
            let lib = self.lib(side).lib;
            let mut public: Vec<(String, u32)> = (lib.methods.iter().enumerate())
                .filter(|(_, m)| m.visibility == Visibility::Public)
                .map(|(i, m)| (m.name.clone(), i as u32))
                .collect();
            public.sort();
            names.push(public);
        }
        let same = names[0].len() == names[1].len()
            && (names[0].iter().zip(&names[1])).all(|((a, _), (b, _))| a == b);
        if !same {
            return not_covered("the sides' public methods differ");
        }
        for import in &self.libs[0].lib.imports {
            let other = self.libs[1]
                .lib
                .imports
                .iter()
                .find(|i| i.name == import.name);
            if other.is_some_and(|o| !self.same_shape(import.ty, o.ty)) {
                return not_covered(format!(
                    "the sides import `{}` at different types",
                    import.name
                ));
            }
        }
        let initial = [self.initial(Side::Left)?, self.initial(Side::Right)?];
        let facts: Vec<(usize, Bool)> = (0..self.relation.facts.len())
            .filter_map(|f| {
                let fact = &self.relation.facts[f];
                let value = |c: Cell| match initial[c.side.index()].get(&Key { r: c.r, inst: 0 }) {
                    Some(Val::Int(x)) if c.r < self.lib(c.side).n_refs => Some(x.clone()),
                    _ => None,
                };
                fact.holds(value).map(|b| (f, b))
            })
            .collect();
        self.what = "initially".to_string();
        self.prove_facts(&[], facts, "the relation holds of the initial stores")?;
        for ((name, l), (_, r)) in names[0].iter().zip(&names[1]) {
            self.pairs.push(Pair {
                what: format!("method `{name}`"),
                functions: [Val::Method(*l), Val::Method(*r)],
                objects: [Vec::new(), Vec::new()],
                together: Vec::new(),
                assume: Vec::new(),
            });
        }
        let mut next = 0;
        while let Some(pair) = self.pairs.get(next) {
            let pair = pair.clone();
            self.check_pair(&pair)?;
            next += 1;
        }
        Ok(())
    }

    /// The initial store of a side's references. Only references of integers and of
    /// `()` may change; those that never do may hold anything but a location.
    fn initial(&self, side: Side) -> Result<Store, Stop> {
        let lib = self.lib(side);
        let mut store = Store::new();
        for (r, init) in lib.lib.store.iter().enumerate() {
            let v = self.initial_value(side, init)?;
            if lib.mutable[r] && !matches!(v, Val::Int(_) | Val::Unit) {
                return not_covered(format!(
                    "the reference `{}` holds something other than an integer and changes",
                    lib.lib.refs[r]
                ));
            }
            store.insert(
                Key {
                    r: r as u32,
                    inst: 0,
                },
                v,
            );
        }
        Ok(store)
    }

    fn initial_value(&self, side: Side, init: &Initial) -> Result<Val, Stop> {
        let lib = self.lib(side).lib;
        Ok(match init {
            Initial::Int(v) => Val::Int(big(v)),
            Initial::Unit => Val::Unit,
            Initial::Name(GlobalName::Method(m)) => Val::Method(*m),
            Initial::Name(GlobalName::Import(i)) => {
                let import = &lib.imports[*i as usize];
                Val::Client(Name::Import(import.name.clone()), import.ty)
            }
            Initial::Pair(a, b) => Val::Pair(
                Rc::new(self.initial_value(side, a)?),
                Rc::new(self.initial_value(side, b)?),
            ),
            Initial::Name(GlobalName::Undeclared(_)) | Initial::Absent => {
                return not_covered("a reference holds an undeclared name or is never declared")
            }
            Initial::Nil | Initial::Loc(_) => {
                return not_covered("a reference holds a list or a location")
            }
        })
    }

    /// Whether the two sides' types `a` (left) and `b` (right) are the same type.
    fn same_shape(&self, a: TypeId, b: TypeId) -> bool {
        let (x, y) = (&self.libs[0].lib.types, &self.libs[1].lib.types);
        match (x.node(a), y.node(b)) {
            (TypeNode::Unit, TypeNode::Unit)
            | (TypeNode::Int, TypeNode::Int)
            | (TypeNode::Bool, TypeNode::Bool) => true,
            (TypeNode::Ref(p), TypeNode::Ref(q)) | (TypeNode::List(p), TypeNode::List(q)) => {
                self.same_shape(p, q)
            }
            (TypeNode::Pair(p, q), TypeNode::Pair(s, t))
            | (TypeNode::Arrow(p, q), TypeNode::Arrow(s, t)) => {
                self.same_shape(p, s) && self.same_shape(q, t)
            }
            _ => false,
        }
    }

    /// Checks one pair: both sides from stores related by the relation, on one
    /// argument, to matching ends (module docs).
    fn check_pair(&mut self, pair: &Pair) -> Result<(), Stop> {
        self.what = pair.what.clone();
        let (Some((lp, _)), Some((rp, _))) = (
            self.libs[0].signature(&pair.functions[0]),
            self.libs[1].signature(&pair.functions[1]),
        ) else {
            return not_covered("a pair of values that are not functions");
        };
        if !self.same_shape(lp, rp) {
            return not_covered("the two functions of a pair take different types");
        }
        // Recursion is first followed (a loop the relation bounds ends); past the
        // budget's depth, calls of pure recursive functions are read through their
        // summaries; where that does not prove the pair, a call of a function already
        // running is read as a move of its own (module docs).
        self.summarise = false;
        self.lemmas = false;
        match self.evaluate(pair, lp) {
            Err(Stop::NotCovered(why)) if why == TOO_DEEP => {}
            other => {
                let (entries, done) = other?;
                return self.compare_all(pair, &entries, &done);
            }
        }
        let mark = self.mark();
        self.lemmas = true;
        let tried = (self.evaluate(pair, lp)).and_then(|(e, d)| self.compare_all(pair, &e, &d));
        self.lemmas = false;
        match tried {
            Ok(()) => return Ok(()),
            Err(Stop::Unknown(why)) => return Err(Stop::Unknown(why)),
            // What the attempt queued or asked is dropped: the next one starts afresh.
            Err(_) => self.reset(mark),
        }
        self.summarise = true;
        let mark = self.mark();
        let lockstep = (self.evaluate(pair, lp)).and_then(|(e, d)| self.compare_all(pair, &e, &d));
        let why = match lockstep {
            Err(Stop::Refuted(why)) if self.broken == mark.4 => Stop::Refuted(why),
            Err(Stop::NotCovered(why)) if self.broken == mark.4 => Stop::NotCovered(why),
            other => return other,
        };
        // Both at once, where lockstep alone fails and found no fact broken (which
        // keeps Houdini's rounds as they were): a loop that changes cells without a
        // move, summarised, before loops in lockstep (`reve-square-twice`). Where that
        // fails too, the attempt is dropped and lockstep's answer stands.
        self.reset(mark.clone());
        self.lemmas = true;
        let both = (self.evaluate(pair, lp)).and_then(|(e, d)| self.compare_all(pair, &e, &d));
        self.lemmas = false;
        match both {
            Ok(()) => Ok(()),
            Err(_) => {
                self.reset(mark);
                Err(why)
            }
        }
    }

    /// Compares every path of the left with every path of the right. Where recursion is
    /// read as moves and a pair of paths does not match, one side is evaluated again on
    /// the inputs of the other's path, its recursion inlined ([`Checker::unfolded`]).
    fn compare_all(
        &mut self,
        pair: &Pair,
        entries: &[Run],
        done: &[Vec<Done>],
    ) -> Result<(), Stop> {
        let entry: Vec<Bool> = (self.instances(
            &self.both.clone(),
            [&entries[0], &entries[1]],
            0,
            &pair.together,
        ))
        .into_iter()
        .map(|(_, b)| b)
        .collect();
        for p in &done[0] {
            for q in &done[1] {
                let mark = self.mark();
                match self.compare_made(pair, [p, q], &entry) {
                    Err(Stop::Refuted(why)) if self.summarise => {
                        self.reset(mark);
                        if !self.unfolded(pair, [p, q], &entry)? {
                            return Err(Stop::Refuted(why));
                        }
                    }
                    other => other?,
                }
            }
        }
        Ok(())
    }

    /// [`Checker::compare`], the objects each path made paired in order.
    fn compare_made(&mut self, pair: &Pair, d: [&Done; 2], entry: &[Bool]) -> Result<(), Stop> {
        let generic = [pair.objects[0].len(), pair.objects[1].len()];
        let mut together = pair.together.clone();
        let made = |d: &Done, g: usize| d.run.objects[g..].iter().map(|o| o.0).collect::<Vec<_>>();
        together.extend(
            made(d[0], generic[0])
                .into_iter()
                .zip(made(d[1], generic[1])),
        );
        self.compare(d, entry, &together)
    }

    /// Whether `d`'s paths match once one side is evaluated again on the inputs where
    /// the other's path runs (its conditions assumed), every call inlined: the left
    /// recursing one step past the right's base case meets it there. Sound as the
    /// paths of a side are: every input where the other path runs is on one of the
    /// paths found again, each compared with it.
    fn unfolded(&mut self, pair: &Pair, d: [&Done; 2], entry: &[Bool]) -> Result<bool, Stop> {
        let Some((lp, _)) = self.libs[0].signature(&pair.functions[0]) else {
            return Ok(false);
        };
        let ways = [Side::Left, Side::Right].map(|s| (s, None));
        for (side, lag) in ways
            .into_iter()
            .chain([Side::Left, Side::Right].map(|s| (s, Some(1))))
        {
            let other = d[1 - side.index()];
            let mark = self.mark();
            match lag {
                None => self.summarise = false,
                Some(n) => self.lag[side.index()] = n,
            }
            let again = self.evaluate_side(pair, lp, side, &other.run.condition);
            self.summarise = true;
            self.lag = [0, 0];
            let paths = match again {
                Ok((_, paths)) => paths,
                Err(Stop::Unknown(why)) => return Err(Stop::Unknown(why)),
                Err(_) => {
                    self.reset(mark);
                    continue;
                }
            };
            let mut matched = Ok(());
            for path in &paths {
                let both = match side {
                    Side::Left => [path, other],
                    Side::Right => [other, path],
                };
                matched = self.compare_made(pair, both, entry);
                if matched.is_err() {
                    break;
                }
            }
            match matched {
                Ok(()) => return Ok(true),
                Err(Stop::Refuted(_) | Stop::NotCovered(_)) => self.reset(mark),
                Err(stop) => return Err(stop),
            }
        }
        Ok(false)
    }

    /// What an attempt that may be dropped changes: the pairs queued and seen, the
    /// obligations and their queries, the facts found broken.
    fn mark(&self) -> Mark {
        (
            self.pairs.len(),
            self.seen.clone(),
            self.obligations,
            self.smtlib.as_ref().map(Vec::len),
            self.broken.clone(),
        )
    }

    fn reset(&mut self, mark: Mark) {
        let (pairs, seen, obligations, queries, broken) = mark;
        self.pairs.truncate(pairs);
        self.seen = seen;
        self.obligations = obligations;
        if let (Some(q), Some(n)) = (&mut self.smtlib, queries) {
            q.truncate(n);
        }
        self.broken = broken;
    }

    /// Each side's paths through the pair, from its entry (returned too).
    fn evaluate(&mut self, pair: &Pair, lp: TypeId) -> Result<Evaluated, Stop> {
        let mut entries = Vec::new();
        let mut done = Vec::new();
        for side in [Side::Left, Side::Right] {
            let (entry, ends) = self.evaluate_side(pair, lp, side, &[])?;
            entries.push(entry);
            done.push(ends);
        }
        Ok((entries, done))
    }

    /// One side's paths through the pair, from its entry (returned too), on inputs
    /// where `assume` holds as well.
    fn evaluate_side(
        &mut self,
        pair: &Pair,
        lp: TypeId,
        side: Side,
        assume: &[(u32, Bool)],
    ) -> Result<(Run, Vec<Done>), Stop> {
        let i = side.index();
        self.side = side;
        self.ended.clear();
        self.running.clear();
        self.frames.clear();
        let mut store = self.initial(side)?;
        for (r, v) in store.clone().iter() {
            if self.lib(side).mutable[r.r as usize] && matches!(v, Val::Int(_)) {
                let symbol = Int::new_const(format!("{}e_{}", prefix(side), r.r));
                store.insert(*r, Val::Int(symbol));
            }
        }
        for &(inst, code) in &pair.objects[i] {
            let lib = self.lib(side);
            for s in lib.sites.of_code(code).collect::<Vec<_>>() {
                let r = lib.n_refs + s as u32;
                store.insert(Key { r, inst }, lib.generic_cell(side, r, inst)?);
            }
        }
        let objects = pair.objects[i].iter().map(|&(inst, code)| (inst, code, 0));
        let mut run = Run {
            condition: Vec::new(),
            store,
            events: Vec::new(),
            objects: objects.collect(),
            captured: pair.objects[i].len(),
            activations: imbl::OrdMap::new(),
        };
        for (_, b) in self.instances(&self.one_sided[i].clone(), [&run, &run], 0, &[]) {
            run.condition.push((0, b));
        }
        run.condition
            .extend(pair.assume.iter().map(|b| (0, b.clone())));
        let param = self.lib(side).signature(&pair.functions[i]).map(|s| s.0);
        let mut fresh = Fresh::new(Origin::Argument);
        let argument = self.fresh(side, param.unwrap_or(lp), &mut fresh)?;
        run.condition
            .extend(fresh.range.into_iter().map(|b| (0, b)));
        let entry = run.clone();
        run.condition.extend(assume.iter().cloned());
        let at = self.span_of(side, &pair.functions[i]);
        let results = self.apply(run, pair.functions[i].clone(), argument, &at, 0)?;
        let mut ends: Vec<Done> = std::mem::take(&mut self.ended);
        for (run, v) in results {
            let what = format!(
                "the relation holds when {} returns ({})",
                self.what,
                side.word()
            );
            self.keeps_one_sided(&run, &what)?;
            let stepped = self.step_instances(&entry.store, &run.store, &entry.objects);
            let pre: Vec<Bool> = run.condition.iter().map(|(_, b)| b.clone()).collect();
            let what = format!(
                "{} ({}) takes the steps of the turn relation from entry to return",
                self.what,
                side.word()
            );
            self.prove_facts(&pre, stepped, &what)?;
            ends.push(Done {
                run,
                end: End::Return(v),
            });
        }
        Ok((entry, ends))
    }

    fn span_of(&self, side: Side, f: &Val) -> Span {
        let lib = self.lib(side).lib;
        match f {
            Val::Closure(code, _) => lib.code(*code).span.clone(),
            Val::Method(m) => lib.code(lib.methods[*m as usize].code).span.clone(),
            _ => 0..0,
        }
    }

    /// Compares a path of each side move by move (module docs).
    fn compare(
        &mut self,
        d: [&Done; 2],
        entry: &[Bool],
        together: &[(u32, u32)],
    ) -> Result<(), Stop> {
        if self.lenient && matches!(d[0].end, End::Diverge) && matches!(d[1].end, End::Diverge) {
            return Ok(());
        }
        let objects = [&d[0].run.objects[..], &d[1].run.objects[..]];
        let (n, m) = (d[0].run.events.len(), d[1].run.events.len());
        let mut premise: Vec<Bool> = entry.to_vec();
        for j in 0..=n.min(m) {
            let tag = j as u32;
            let mut pre = premise.clone();
            for side in d {
                let conditions = side.run.condition.iter().filter(|(t, _)| *t <= tag);
                pre.extend(conditions.map(|(_, b)| b.clone()));
            }
            if !self.satisfiable(&pre)? {
                return Ok(());
            }
            let place = |side: Side, span: &Span| (self.place)(side, span);
            if j < n && j < m {
                let (a, b) = (&d[0].run.events[j], &d[1].run.events[j]);
                let here = format!(
                    "{}: the calls to the client at {} and {}",
                    self.what,
                    place(Side::Left, &a.at),
                    place(Side::Right, &b.at)
                );
                if a.target != b.target {
                    return Err(Stop::Refuted(format!("{here} call different functions")));
                }
                let mut functions = self.matching(&a.argument, &b.argument, &pre, &here)?;
                if let (Some(f), Some(g)) = (&a.callee, &b.callee) {
                    functions.push((f.clone(), g.clone()));
                }
                let runs = [&d[0].run, &d[1].run];
                let before = self.instances_at(runs, |e| &e.before, j, together);
                self.prove_facts(
                    &pre,
                    before,
                    &format!("{here}: the relation holds before them"),
                )?;
                self.reveal(functions, &pre, together, objects)?;
                let after = self.instances_at(runs, |e| &e.after, j, together);
                premise.extend(after.into_iter().map(|(_, b)| b));
            } else if j == n && j == m {
                match (&d[0].end, &d[1].end) {
                    (End::Return(a), End::Return(b)) => {
                        let here = format!("{}: the returns", self.what);
                        let functions = self.matching(a, b, &pre, &here)?;
                        let runs = [&d[0].run, &d[1].run];
                        let live = [exposed_at_end(&d[0].run, a), exposed_at_end(&d[1].run, b)];
                        let reachable: Vec<(u32, u32)> = (together.iter())
                            .filter(|(x, y)| live[0].contains(x) || live[1].contains(y))
                            .copied()
                            .collect();
                        let facts = self.instances(&self.both.clone(), runs, tag, &reachable);
                        self.prove_facts(&pre, facts, &format!("{here}: the relation holds"))?;
                        self.reveal(functions, &pre, together, objects)?;
                    }
                    (End::Fail(_), End::Fail(_)) | (End::Diverge, End::Diverge) => {}
                    (a, b) => {
                        let (a, b) = (
                            self.end_words(Side::Left, a),
                            self.end_words(Side::Right, b),
                        );
                        return Err(Stop::Refuted(format!(
                            "{}: the left {a}, the right {b}",
                            self.what
                        )));
                    }
                }
            } else {
                let words = |this: &Self, side: Side, done: &Done| match done.run.events.get(j) {
                    Some(e) => format!("calls the client at {}", (this.place)(side, &e.at)),
                    None => this.end_words(side, &done.end),
                };
                let (a, b) = (
                    words(self, Side::Left, d[0]),
                    words(self, Side::Right, d[1]),
                );
                return Err(Stop::Refuted(format!(
                    "{}: the left {a}, the right {b}",
                    self.what
                )));
            }
        }
        Ok(())
    }

    fn end_words(&self, side: Side, end: &End) -> String {
        match end {
            End::Return(_) => "returns".to_string(),
            End::Diverge => "diverges".to_string(),
            End::Fail(at) => format!("fails at {}", (self.place)(side, at)),
        }
    }

    /// The facts about both sides over the stores `store` gives of each path's `j`-th
    /// call to the client, over the objects made before it.
    fn instances_at(
        &self,
        runs: [&Run; 2],
        store: impl Fn(&Event) -> &Store,
        j: usize,
        together: &[(u32, u32)],
    ) -> Vec<(usize, Bool)> {
        let view = |run: &Run| Run {
            condition: Vec::new(),
            store: store(&run.events[j]).clone(),
            events: Vec::new(),
            objects: run.objects.clone(),
            captured: run.captured,
            activations: imbl::OrdMap::new(),
        };
        let (a, b) = (view(runs[0]), view(runs[1]));
        self.instances(&self.both, [&a, &b], j as u32, together)
    }

    /// Each of `facts` over the stores of `runs`, for every object (or pair of objects
    /// made together) of their sites made before the `at`-th call to the client, as
    /// far as their cells exist.
    fn instances(
        &self,
        facts: &[usize],
        runs: [&Run; 2],
        at: u32,
        together: &[(u32, u32)],
    ) -> Vec<(usize, Bool)> {
        let mut out = Vec::new();
        for &f in facts {
            let fact = &self.relation.facts[f];
            let mut codes: [Option<CodeId>; 2] = [None, None];
            for c in fact.cells() {
                if let Some(code) = self.lib(c.side).code_of(c.r) {
                    codes[c.side.index()] = Some(code);
                }
            }
            let of = |i: usize| -> Vec<u32> {
                (runs[i].objects.iter())
                    .filter(|o| Some(o.1) == codes[i] && o.2 <= at)
                    .map(|o| o.0)
                    .collect()
            };
            let insts: Vec<(u32, u32)> = match codes {
                [None, None] => vec![(0, 0)],
                [Some(_), None] => of(0).into_iter().map(|i| (i, 0)).collect(),
                [None, Some(_)] => of(1).into_iter().map(|i| (0, i)).collect(),
                [Some(_), Some(_)] => {
                    let (l, r) = (of(0), of(1));
                    (together.iter())
                        .filter(|(a, b)| l.contains(a) && r.contains(b))
                        .copied()
                        .collect()
                }
            };
            for (il, ir) in insts {
                let value = |c: Cell| {
                    let inst = if c.side == Side::Left { il } else { ir };
                    let key = self.lib(c.side).key(c.r, inst);
                    match runs[c.side.index()].store.get(&key) {
                        Some(Val::Int(x)) => Some(x.clone()),
                        _ => None,
                    }
                };
                if let Some(b) = fact.holds(value) {
                    out.push((f, b));
                }
            }
        }
        out
    }

    /// The steps of the side being evaluated from `before` to `after`, for its
    /// references and the cells of `objects` (each by its number in `broken`).
    fn step_instances(
        &self,
        before: &Store,
        after: &Store,
        objects: &[(u32, CodeId, u32)],
    ) -> Vec<(usize, Bool)> {
        let side = self.side;
        let lib = self.lib(side);
        let mut out = Vec::new();
        for &s in &self.turn_steps[side.index()] {
            let step = &self.relation.steps[s];
            let insts: Vec<u32> = match lib.code_of(step.cell.r) {
                None => vec![0],
                Some(code) => (objects.iter())
                    .filter(|o| o.1 == code)
                    .map(|o| o.0)
                    .collect(),
            };
            for inst in insts {
                let value = |store: &Store, c: Cell| match store.get(&lib.key(c.r, inst)) {
                    Some(Val::Int(x)) => Some(x.clone()),
                    _ => None,
                };
                if let Some(b) = step.holds(|c| value(before, c), |c| value(after, c)) {
                    out.push((self.relation.facts.len() + s, b));
                }
            }
        }
        out
    }

    /// The one-sided facts hold on `run` now.
    fn keeps_one_sided(&mut self, run: &Run, what: &str) -> Result<(), Stop> {
        let i = self.side.index();
        let facts = self.instances(&self.one_sided[i].clone(), [run, run], run.tag(), &[]);
        let pre: Vec<Bool> = run.condition.iter().map(|(_, b)| b.clone()).collect();
        self.prove_facts(&pre, facts, what)
    }

    /// `v` as a term of `IntList` ([`int_lists`]) where it is a list of integers, part of it the
    /// client's.
    fn list_term(&self, v: &Val) -> Option<Dynamic> {
        let [nil, cons] = &self.lists.variants[..] else {
            return None;
        };
        Some(match v {
            Val::Nil => nil.constructor.apply(&[]),
            Val::Cons(h, t) => {
                let Val::Int(h) = &**h else { return None };
                cons.constructor.apply(&[h, &self.list_term(t)?])
            }
            Val::List(l, _) => l.clone(),
            _ => return None,
        })
    }

    /// Compares two values a move shows: the same shape, equal integers (proved
    /// under `pre`), the same function of the client's where both pass one back; the
    /// other pairs of functions are returned, to be checked.
    fn matching(
        &mut self,
        a: &Val,
        b: &Val,
        pre: &[Bool],
        here: &str,
    ) -> Result<Vec<(Val, Val)>, Stop> {
        let mut equal = Vec::new();
        let mut functions = Vec::new();
        let mut todo = vec![(a.clone(), b.clone())];
        while let Some(pair) = todo.pop() {
            match pair {
                (Val::Int(x), Val::Int(y)) => equal.push(x.eq(&y)),
                (Val::Unit, Val::Unit) => {}
                (Val::Nil, Val::Nil) => {}
                (Val::Pair(p, q), Val::Pair(s, t)) | (Val::Cons(p, q), Val::Cons(s, t)) => {
                    todo.push(((*p).clone(), (*s).clone()));
                    todo.push(((*q).clone(), (*t).clone()));
                }
                // A list of the client's on either side: equal as lists, which the
                // two may build differently (`l` and `x :: xs` where `l` is `x :: xs`).
                (a, b) if matches!(a, Val::List(..)) || matches!(b, Val::List(..)) => {
                    match (self.list_term(&a), self.list_term(&b)) {
                        (Some(x), Some(y)) => equal.push(x.eq(&y)),
                        _ => {
                            return Err(Stop::Refuted(format!(
                                "{here}: values of different shapes"
                            )))
                        }
                    }
                }
                (Val::Client(x, _), Val::Client(y, _)) => {
                    if x != y {
                        return Err(Stop::Refuted(format!(
                            "{here}: the sides pass back different functions of the client's"
                        )));
                    }
                }
                (Val::Loc(_), _) | (_, Val::Loc(_)) => {
                    return not_covered("a cell reaches the client")
                }
                (f, g) if is_function(&f) && is_function(&g) => functions.push((f, g)),
                _ => {
                    return Err(Stop::Refuted(format!("{here}: values of different shapes")));
                }
            }
        }
        if !equal.is_empty() {
            let goal = Bool::and(&equal.iter().collect::<Vec<_>>());
            self.prove(pre, goal, &format!("{here}: the integers are equal"))?;
        }
        Ok(functions)
    }

    /// Queues each pair of functions that reached the client, generalised: integers
    /// they captured become any values (those `pre` shows equal on both sides, one
    /// value), the client's functions they captured keep which are the same, and the
    /// cells they captured become cells of new objects, those made together staying
    /// together.
    fn reveal(
        &mut self,
        functions: Vec<(Val, Val)>,
        pre: &[Bool],
        together: &[(u32, u32)],
        known: [&[(u32, CodeId, u32)]; 2],
    ) -> Result<(), Stop> {
        for (f, g) in functions {
            let mut parts = [Parts::default(), Parts::default()];
            collect(&f, &mut parts[0]);
            collect(&g, &mut parts[1]);
            // Integers `pre` pins to one value stay that value; the left's others
            // become `g0`, `g1`, …; each of the right's others becomes the left's it
            // equals under `pre`, else `h0`, ….
            let mut pinned: [Vec<Option<Int>>; 2] = [Vec::new(), Vec::new()];
            for (i, side) in parts.iter().enumerate() {
                for x in &side.ints {
                    pinned[i].push(self.pinned(pre, x)?);
                }
            }
            let mut symbols: [Vec<Int>; 2] = [Vec::new(), Vec::new()];
            for (n, x) in parts[0].ints.iter().enumerate() {
                let mut symbol = pinned[0][n].clone();
                // Two of the left's that `pre` shows equal are one (a loop's closure
                // capturing `n` and another closure that captured it too).
                for (m, y) in parts[0].ints[..n].iter().enumerate() {
                    if symbol.is_some() {
                        break;
                    }
                    if pinned[0][m].is_none() && self.implied(pre, &x.eq(y))? {
                        symbol = Some(symbols[0][m].clone());
                    }
                }
                symbols[0].push(symbol.unwrap_or_else(|| Int::new_const(format!("g{n}"))));
            }
            for (m, y) in parts[1].ints.iter().enumerate() {
                let mut symbol = pinned[1][m].clone();
                for (n, x) in parts[0].ints.iter().enumerate() {
                    if symbol.is_some() {
                        break;
                    }
                    if pinned[0][n].is_none() && self.implied(pre, &x.eq(y))? {
                        symbol = Some(symbols[0][n].clone());
                    }
                }
                symbols[1].push(symbol.unwrap_or_else(|| Int::new_const(format!("h{m}"))));
            }
            // The client's lists likewise: the left's become `gl0`, …; the right's, the
            // left's it is the same term as, else `hl0`, ….
            let sort = &self.lists.sort;
            let left_lists: Vec<Dynamic> = (0..parts[0].lists.len())
                .map(|n| Dynamic::new_const(format!("gl{n}"), sort))
                .collect();
            let right_lists: Vec<Dynamic> = (parts[1].lists.iter().enumerate())
                .map(|(m, y)| {
                    (parts[0].lists.iter().position(|x| x == y))
                        .map(|n| left_lists[n].clone())
                        .unwrap_or_else(|| Dynamic::new_const(format!("hl{m}"), sort))
                })
                .collect();
            let lists = [left_lists, right_lists];
            let mut names: BTreeMap<Name, u32> = BTreeMap::new();
            let mut insts: [BTreeMap<u32, u32>; 2] = [BTreeMap::new(), BTreeMap::new()];
            let mut objects: [Vec<(u32, CodeId)>; 2] = [Vec::new(), Vec::new()];
            let mut rebuilt = Vec::new();
            for (i, v) in [&f, &g].into_iter().enumerate() {
                let mut next_int = 0;
                let ints = &symbols[i];
                let mut rename = Rename {
                    ints,
                    next_int: &mut next_int,
                    lists: &lists[i],
                    next_list: 0,
                    names: &mut names,
                    insts: &mut insts[i],
                };
                rebuilt.push(rename.value(v));
                for (&old, &new) in &insts[i] {
                    let lib = self.lib(if i == 0 { Side::Left } else { Side::Right });
                    let cell = parts[i].cells.iter().find(|k| k.inst == old);
                    let code = cell.and_then(|k| lib.code_of(k.r));
                    let Some(code) = code else {
                        return not_covered("a function captured a cell of the client's");
                    };
                    objects[i].push((new, code));
                }
            }
            // An object made together with a captured one comes along, uncaptured: a
            // fact relating the two must be kept by this pair too, which may change
            // the captured one (`incr` capturing the left's `a` and another cell of
            // the right's than `b`, where `a = b` is a fact).
            for &(a, b) in together {
                for (i, (mine, partner)) in [(a, b), (b, a)].into_iter().enumerate() {
                    let other = 1 - i;
                    if insts[i].contains_key(&mine) && !insts[other].contains_key(&partner) {
                        let Some(&(_, code, _)) = known[other].iter().find(|o| o.0 == partner)
                        else {
                            continue;
                        };
                        let new = insts[other].len() as u32 + 1;
                        insts[other].insert(partner, new);
                        objects[other].push((new, code));
                    }
                }
            }
            let pairs: Vec<(u32, u32)> = (together.iter())
                .filter_map(|(a, b)| Some((*insts[0].get(a)?, *insts[1].get(b)?)))
                .collect();
            // What `pre` says of the captured integers alone (`b ≠ 0` where a closure
            // was made in the branch that tested it) holds whenever the pair is
            // called: they never change.
            let mut renamed: HashMap<Dynamic, Int> = HashMap::new();
            for (i, side) in parts.iter().enumerate() {
                for (x, symbol) in side.ints.iter().zip(&symbols[i]) {
                    if is_symbol(&Dynamic::from_ast(x)) && numeral(symbol).is_none() {
                        renamed.insert(Dynamic::from_ast(x), symbol.clone());
                    }
                }
            }
            let mut assume = Vec::new();
            for b in pre {
                let mut free = HashSet::new();
                symbols_of(&Dynamic::from_ast(b), &mut free);
                if !free.is_empty() && free.iter().all(|s| renamed.contains_key(s)) {
                    let map: Vec<(Int, Int)> = (free.iter())
                        .filter_map(|s| Some((s.as_int()?, renamed.get(s)?.clone())))
                        .collect();
                    let map: Vec<(&Int, &Int)> = map.iter().map(|(a, b)| (a, b)).collect();
                    assume.push(b.substitute(&map));
                }
            }
            // A pair checked knowing less covers this one; else it is checked
            // knowing only what both know, so that a loop making closures under ever
            // new conditions checks each finitely often.
            let key = format!("{rebuilt:?} {objects:?} {pairs:?}");
            if let Some(known) = self.seen.get(&key) {
                if known.iter().all(|a| assume.contains(a)) {
                    continue;
                }
                assume.retain(|b| known.contains(b));
            }
            self.seen.insert(key, assume.clone());
            if self.pairs.len() >= MAX_PAIRS {
                return not_covered(format!(
                    "more than {MAX_PAIRS} pairs of functions reach the client"
                ));
            }
            let [g_right, f_left] = [rebuilt.pop(), rebuilt.pop()];
            let (Some(f_left), Some(g_right)) = (f_left, g_right) else {
                continue;
            };
            let what = format!(
                "the functions at {} and {}",
                (self.place)(Side::Left, &self.span_of(Side::Left, &f_left)),
                (self.place)(Side::Right, &self.span_of(Side::Right, &g_right))
            );
            self.pairs.push(Pair {
                what,
                functions: [f_left, g_right],
                objects,
                together: pairs,
                assume,
            });
        }
        Ok(())
    }
}

/// The objects whose cells the client can change in a turn that starts on `run` with
/// `handed` passed to it: those of the pair being checked (it holds the pair), and
/// those reachable from what any call to it so far was passed, through captured
/// values and the cells of objects reached. No other library code runs in its turn,
/// so the cells of other objects keep their values. (No global reference holds a
/// location: the checker does not cover that, so none leads the client to an object.)
/// The objects that code may reach once the pair has returned `v` on `run`: the
/// pair's captured objects, those reachable from `v`, from what the path passed to the
/// client or read as moves ([`exposed`]), or from a reference. An object made together
/// with another, neither reachable, is read by nobody again: the relation need not hold
/// of the two at the return (a loop's counters left apart where it never ran).
fn exposed_at_end(run: &Run, v: &Val) -> HashSet<u32> {
    let references = (run.store.iter())
        .filter(|(k, _)| k.inst == 0)
        .map(|(_, v)| v);
    exposed(run, std::iter::once(v).chain(references))
}

fn exposed<'a>(run: &Run, handed: impl Iterator<Item = &'a Val>) -> HashSet<u32> {
    // The pair's captured objects; those it made before its first call to the client
    // are its own until they reach the client.
    let mut out: HashSet<u32> = (run.objects[..run.captured].iter()).map(|o| o.0).collect();
    let mut todo: Vec<Val> = handed.cloned().collect();
    for e in &run.events {
        todo.push(e.argument.clone());
        todo.extend(e.callee.clone());
    }
    let mut reached: Vec<u32> = out.iter().copied().collect();
    loop {
        while let Some(v) = todo.pop() {
            match v {
                Val::Loc(k) => {
                    if out.insert(k.inst) {
                        reached.push(k.inst);
                    }
                }
                Val::Pair(a, b) | Val::Cons(a, b) => {
                    todo.push((*a).clone());
                    todo.push((*b).clone());
                }
                Val::Closure(_, env) => todo.extend(env.iter().cloned()),
                Val::Int(_)
                | Val::Unit
                | Val::Nil
                | Val::List(..)
                | Val::Method(_)
                | Val::Client(..) => {}
            }
        }
        let Some(inst) = reached.pop() else {
            return out;
        };
        todo.extend(
            (run.store.iter())
                .filter(|(k, _)| k.inst == inst)
                .map(|(_, v)| v.clone()),
        );
    }
}

/// `IntList`: `nil`, or `cons` of an integer `head` and an `IntList` `tail`.
fn int_lists() -> z3::DatatypeSort {
    z3::DatatypeBuilder::new("IntList")
        .variant("nil", Vec::new())
        .variant(
            "cons",
            vec![
                ("head", z3::DatatypeAccessor::sort(z3::Sort::int())),
                ("tail", z3::DatatypeAccessor::datatype("IntList")),
            ],
        )
        .finish()
}

/// `v` with every integer in it a new symbol, named after `name` and its place.
fn havoc(v: &Val, name: &str, next: &mut u32) -> Result<Val, Stop> {
    Ok(match v {
        Val::Int(_) => {
            *next += 1;
            Val::Int(Int::new_const(format!("{name}_{next}")))
        }
        Val::Unit => Val::Unit,
        Val::Pair(a, b) => Val::Pair(
            Rc::new(havoc(a, name, next)?),
            Rc::new(havoc(b, name, next)?),
        ),
        _ => return not_covered("a cell that holds a function or a list changes"),
    })
}

/// Whether `ast` is a symbol: every integer constant the checker makes is one, and a
/// numeral is no application.
fn is_symbol(ast: &Dynamic) -> bool {
    ast.kind() == AstKind::App && ast.num_children() == 0 && ast.sort_kind() == SortKind::Int
}

/// Adds the symbols of `ast` to `out`.
fn symbols_of(ast: &Dynamic, out: &mut HashSet<Dynamic>) {
    let mut seen = HashSet::new();
    let mut todo = vec![ast.clone()];
    while let Some(ast) = todo.pop() {
        if ast.kind() != AstKind::App || !seen.insert(ast.clone()) {
            continue;
        }
        if is_symbol(&ast) {
            out.insert(ast);
        } else {
            todo.extend(ast.children());
        }
    }
}

/// A call of a library function as it began: on what, from which store, after how
/// many calls to the client.
struct Frame {
    code: CodeId,
    env: Env,
    store: Store,
    tag: u32,
}

/// Whether `run`, from `store`, made no move and no object and changed no cell but
/// those of `cells`.
fn only_changes(run: &Run, store: &Store, cells: &[Key]) -> bool {
    run.events.is_empty()
        && run.objects.is_empty()
        && run.store.len() == store.len()
        && (run.store.iter().zip(store.iter()))
            .all(|((k, a), (l, b))| k == l && (cells.contains(k) || same(a, b)))
}

/// Whether two values are the same: the same terms, functions and locations.
fn same(a: &Val, b: &Val) -> bool {
    match (a, b) {
        (Val::Int(x), Val::Int(y)) => x == y,
        (Val::Unit, Val::Unit) | (Val::Nil, Val::Nil) => true,
        (Val::Pair(p, q), Val::Pair(s, t)) | (Val::Cons(p, q), Val::Cons(s, t)) => {
            same(p, s) && same(q, t)
        }
        (Val::List(x, _), Val::List(y, _)) => x == y,
        (Val::Closure(c, e), Val::Closure(d, f)) => {
            c == d && e.len() == f.len() && e.iter().zip(f).all(|(x, y)| same(x, y))
        }
        (Val::Method(m), Val::Method(n)) => m == n,
        (Val::Client(x, _), Val::Client(y, _)) => x == y,
        (Val::Loc(k), Val::Loc(l)) => k == l,
        _ => false,
    }
}

/// Whether `v` holds a cell the client can reach (a function hides what it captured).
fn hands_a_cell(v: &Val) -> bool {
    match v {
        Val::Loc(_) => true,
        Val::Pair(a, b) | Val::Cons(a, b) => hands_a_cell(a) || hands_a_cell(b),
        _ => false,
    }
}

fn is_function(v: &Val) -> bool {
    matches!(v, Val::Closure(..) | Val::Method(_) | Val::Client(..))
}

/// The integers and cells a value holds, functions' captured ones included, in the
/// order [`Rename::value`] meets them.
#[derive(Default)]
struct Parts {
    ints: Vec<Int>,
    lists: Vec<Dynamic>,
    cells: Vec<Key>,
}

fn collect(v: &Val, out: &mut Parts) {
    match v {
        Val::Int(x) => out.ints.push(x.clone()),
        Val::Pair(a, b) | Val::Cons(a, b) => {
            collect(a, out);
            collect(b, out);
        }
        Val::Closure(_, env) => env.iter().for_each(|v| collect(v, out)),
        Val::Loc(k) => out.cells.push(*k),
        Val::List(l, _) => out.lists.push(l.clone()),
        Val::Unit | Val::Nil | Val::Method(_) | Val::Client(..) => {}
    }
}

/// Rebuilds a value with its integers replaced in order, the client's functions
/// renamed alike on both sides, and its objects renumbered from 1.
struct Rename<'a> {
    ints: &'a [Int],
    next_int: &'a mut usize,
    lists: &'a [Dynamic],
    next_list: usize,
    names: &'a mut BTreeMap<Name, u32>,
    insts: &'a mut BTreeMap<u32, u32>,
}

impl Rename<'_> {
    fn value(&mut self, v: &Val) -> Val {
        match v {
            Val::Int(x) => {
                let i = *self.next_int;
                *self.next_int += 1;
                Val::Int(self.ints.get(i).cloned().unwrap_or_else(|| x.clone()))
            }
            Val::Pair(a, b) => Val::Pair(Rc::new(self.value(a)), Rc::new(self.value(b))),
            Val::Cons(a, b) => Val::Cons(Rc::new(self.value(a)), Rc::new(self.value(b))),
            Val::List(l, booleans) => {
                let i = self.next_list;
                self.next_list += 1;
                Val::List(
                    self.lists.get(i).cloned().unwrap_or_else(|| l.clone()),
                    *booleans,
                )
            }
            Val::Closure(code, env) => {
                Val::Closure(*code, env.iter().map(|v| self.value(v)).collect())
            }
            Val::Loc(k) => {
                let next = self.insts.len() as u32 + 1;
                let inst = *self.insts.entry(k.inst).or_insert(next);
                Val::Loc(Key { r: k.r, inst })
            }
            Val::Client(Name::Import(name), ty) => Val::Client(Name::Import(name.clone()), *ty),
            Val::Client(name, ty) => {
                let next = self.names.len() as u32;
                let n = *self.names.entry(name.clone()).or_insert(next);
                Val::Client(Name::Captured(n), *ty)
            }
            Val::Unit | Val::Nil | Val::Method(_) => v.clone(),
        }
    }
}

impl Checker<'_> {
    fn tick(&mut self) -> Result<(), Stop> {
        self.steps += 1;
        if self.steps > self.budget.steps {
            return not_covered("the pairs have too many paths for the checker's budget");
        }
        if self.steps.is_multiple_of(1024) {
            self.within_limits()?;
        }
        Ok(())
    }

    fn within_limits(&self) -> Result<(), Stop> {
        if self.budget.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(Stop::Unknown(TIME_LIMIT.to_string()));
        }
        let flag = self.budget.interrupt.as_ref();
        if flag.is_some_and(|f| f.load(Ordering::Relaxed)) {
            return Err(Stop::Unknown(INTERRUPTED.to_string()));
        }
        Ok(())
    }

    fn ask(&self, assumed: &[Bool], and: Option<&Bool>) -> Result<SatResult, Stop> {
        self.within_limits()?;
        self.solver.push();
        for b in assumed.iter().chain(and) {
            self.solver.assert(b);
        }
        let answer = self.solver.check();
        self.solver.pop(1);
        if answer == SatResult::Unknown {
            self.within_limits()?;
        }
        Ok(answer)
    }

    /// Whether `assumed` may hold; `true` when Z3 cannot tell (a path too many only
    /// adds obligations).
    fn satisfiable(&self, assumed: &[Bool]) -> Result<bool, Stop> {
        Ok(self.ask(assumed, None)? != SatResult::Unsat)
    }

    /// Whether `assumed` implies `b` (`false` when Z3 cannot tell).
    fn implied(&self, assumed: &[Bool], b: &Bool) -> Result<bool, Stop> {
        Ok(self.ask(assumed, Some(&b.not()))? == SatResult::Unsat)
    }

    /// The one value `assumed` leaves `x`, if it leaves one.
    fn pinned(&self, assumed: &[Bool], x: &Int) -> Result<Option<Int>, Stop> {
        if let Some(n) = numeral(x) {
            return Ok(Some(Int::from_i64(n)));
        }
        self.within_limits()?;
        self.solver.push();
        for b in assumed {
            self.solver.assert(b);
        }
        let value = match self.solver.check() {
            SatResult::Sat => (self.solver.get_model()).and_then(|m| m.eval(x, true)),
            _ => None,
        };
        self.solver.pop(1);
        let Some(value) = value.filter(|v| v.as_i64().is_some()) else {
            return Ok(None);
        };
        Ok(self.implied(assumed, &x.eq(&value))?.then_some(value))
    }

    /// Discharges `goal` under `assumed`: its negation must be unsatisfiable.
    fn prove(&mut self, assumed: &[Bool], goal: Bool, what: &str) -> Result<(), Stop> {
        self.within_limits()?;
        self.obligations += 1;
        self.solver.push();
        for b in assumed {
            self.solver.assert(b);
        }
        self.solver.assert(goal.not());
        let answer = self.solver.check();
        if let Some(queries) = &mut self.smtlib {
            queries.push((what.to_string(), self.solver.to_string()));
        }
        self.solver.pop(1);
        match answer {
            SatResult::Unsat => Ok(()),
            SatResult::Sat => Err(Stop::Refuted(what.to_string())),
            SatResult::Unknown => {
                self.within_limits()?;
                Err(Stop::Unknown(format!("Z3 could not decide whether {what}")))
            }
        }
    }

    /// The facts `facts` hold under `assumed`; when searching, those that do not are
    /// marked broken instead.
    fn prove_facts(
        &mut self,
        assumed: &[Bool],
        facts: Vec<(usize, Bool)>,
        what: &str,
    ) -> Result<(), Stop> {
        let Some(broken) = &self.broken else {
            if facts.is_empty() {
                return Ok(());
            }
            let all = Bool::and(&facts.iter().map(|(_, b)| b).collect::<Vec<_>>());
            return self.prove(assumed, all, what);
        };
        let open: Vec<(usize, Bool)> = facts.into_iter().filter(|(f, _)| !broken[*f]).collect();
        if open.is_empty() {
            return Ok(());
        }
        let all = Bool::and(&open.iter().map(|(_, b)| b).collect::<Vec<_>>());
        if self.implied(assumed, &all)? {
            return Ok(());
        }
        for (f, b) in open {
            match self.ask(assumed, Some(&b.not()))? {
                SatResult::Unsat => {}
                SatResult::Sat => {
                    if let Some(broken) = &mut self.broken {
                        broken[f] = true;
                    }
                }
                SatResult::Unknown => {
                    return Err(Stop::Unknown(format!("Z3 could not decide whether {what}")))
                }
            }
        }
        Ok(())
    }

    /// Any value of type `ty` the client may give, named by `fresh`'s origin.
    fn fresh(&self, side: Side, ty: TypeId, fresh: &mut Fresh) -> Result<Val, Stop> {
        let types = &self.lib(side).lib.types;
        Ok(match types.node(ty) {
            TypeNode::Unit => Val::Unit,
            node @ (TypeNode::Int | TypeNode::Bool) => {
                let n = fresh.ints;
                fresh.ints += 1;
                let x = match fresh.origin {
                    Origin::Argument => Int::new_const(format!("a{n}")),
                    Origin::Result(k) => Int::new_const(format!("c{k}_{n}")),
                };
                if node == TypeNode::Bool {
                    fresh.range.push(Bool::and(&[
                        &x.ge(Int::from_i64(0)),
                        &x.le(Int::from_i64(1)),
                    ]));
                }
                Val::Int(x)
            }
            TypeNode::Pair(a, b) => {
                let a = self.fresh(side, a, fresh)?;
                let b = self.fresh(side, b, fresh)?;
                Val::Pair(Rc::new(a), Rc::new(b))
            }
            TypeNode::Arrow(..) => {
                let n = fresh.names;
                fresh.names += 1;
                let name = match fresh.origin {
                    Origin::Argument => Name::Argument(n),
                    Origin::Result(k) => Name::Result(k, n),
                };
                Val::Client(name, ty)
            }
            TypeNode::Ref(_) => return not_covered("the client passes a cell"),
            TypeNode::List(element) => {
                let booleans = match types.node(element) {
                    TypeNode::Int => false,
                    TypeNode::Bool => true,
                    _ => return not_covered("the client passes a list of other than integers"),
                };
                let n = fresh.lists;
                fresh.lists += 1;
                let name = match fresh.origin {
                    Origin::Argument => format!("l{n}"),
                    Origin::Result(k) => format!("cl{k}_{n}"),
                };
                Val::List(Dynamic::new_const(name, &self.lists.sort), booleans)
            }
        })
    }

    /// Every way `f` applied to `argument` evaluates on `run` (paths that end on the
    /// way go to [`Checker::ended`]).
    fn apply(
        &mut self,
        run: Run,
        f: Val,
        argument: Val,
        at: &Span,
        depth: u32,
    ) -> Result<Vec<(Run, Val)>, Stop> {
        let side = self.side;
        match f {
            Val::Method(m) => {
                let code = self.lib(side).lib.methods[m as usize].code;
                if self.summarises(code) {
                    let ret = self.lib(side).lib.code(code).ret_ty;
                    return self.turn(run, Name::Own, Some(f), argument, ret, at);
                }
                self.inlined(run, code, Env::unit(argument), depth)
            }
            Val::Closure(code, env) => {
                let mut run = run;
                if let Some(v) = self.summary_call(&mut run, code, &env, &argument)? {
                    return Ok(vec![(run, v)]);
                }
                if self.summarises(code) {
                    let ret = self.lib(side).lib.code(code).ret_ty;
                    return self.turn(
                        run,
                        Name::Own,
                        Some(Val::Closure(code, env)),
                        argument,
                        ret,
                        at,
                    );
                }
                let mut inner = env.clone();
                if self.lib(side).lib.code(code).recursive {
                    inner.push_front(Val::Closure(code, env));
                }
                inner.push_front(argument);
                self.inlined(run, code, inner, depth)
            }
            Val::Client(name, ty) => {
                let Some((_, ret)) = self.lib(side).lib.types.arrow(ty) else {
                    return not_covered("a value of the client's applied that is not a function");
                };
                self.turn(run, name, None, argument, ret, at)
            }
            Val::Int(_)
            | Val::Unit
            | Val::Pair(..)
            | Val::Nil
            | Val::Cons(..)
            | Val::List(..)
            | Val::Loc(_) => not_covered("an application of a non-function"),
        }
    }

    /// Whether a call of `code` is read as a move of its own: it is running already,
    /// and the first attempt at the pair went past the budget's depth.
    fn summarises(&self, code: CodeId) -> bool {
        let lag = self.lag[self.side.index()];
        self.summarise && self.running.get(&code).is_some_and(|&n| n > lag)
    }

    /// The value of a call of closure `code` on `env` and `argument` from a summary of
    /// it ([`Checker::summarise_function`]) whose precondition the path implies (an
    /// obligation); while `code` itself is being summarised, its symbol at the call's
    /// inputs, the call recorded. `None`: the call is to be inlined.
    fn summary_call(
        &mut self,
        run: &mut Run,
        code: CodeId,
        env: &Env,
        argument: &Val,
    ) -> Result<Option<Val>, Stop> {
        if !self.lemmas {
            return Ok(None);
        }
        let side = self.side;
        let lib = self.lib(side).lib;
        let ret = lib.types.node(lib.code(code).ret_ty);
        let (mut xs, mut shape, mut cells) = (Vec::new(), format!("c{code}:"), Vec::new());
        let whole = env
            .iter()
            .all(|v| inputs(v, &mut xs, &mut shape, &mut cells))
            && {
                shape.push('|');
                inputs(argument, &mut xs, &mut shape, &mut cells)
            };
        // The cells it captured are inputs too, after the integers.
        for k in &cells {
            match run.store.get(k) {
                Some(Val::Int(x)) => xs.push(x.clone()),
                _ => return Ok(None),
            }
        }
        let int = ret == TypeNode::Int;
        let fits = int || (ret == TypeNode::Unit && !cells.is_empty());
        if !whole || !fits || xs.is_empty() || xs.len() > MAX_INPUTS {
            return Ok(None);
        }
        if !cells.is_empty() {
            return self.effects_call(run, code, env, argument, (side, shape), xs, cells, int);
        }
        let key = (side, shape);
        let condition: Vec<Bool> = run.condition.iter().map(|(_, b)| b.clone()).collect();
        if let Some(c) = self.checking.last_mut() {
            if c.key == key {
                let v = apply_int(&c.function, &xs)?;
                c.calls.push((xs, condition));
                return Ok(Some(Val::Int(v)));
            }
        }
        if self.checking.iter().any(|c| c.key == key) {
            return Ok(None);
        }
        let s = match self.summary_of.get(&key) {
            Some(s) => *s,
            None => {
                let s = self.summarise_function(&key, code, env, argument, xs.len())?;
                self.summary_of.insert(key, s);
                s
            }
        };
        let Some(s) = s else { return Ok(None) };
        for i in 0..self.summaries[s].lemmas.len() {
            let (pre, value) = self.summaries[s].lemmas[i];
            // A first call outside a value's precondition is inlined, so that the calls
            // it makes may meet it, rather than read as the function's symbol.
            let closed = self.summaries[s].lemmas.iter().any(|l| l.1 != Value::Own);
            let running = self.running.get(&code).is_some_and(|&n| n > 0);
            if value == Value::Own && closed && !running {
                return Ok(None);
            }
            let what = self.summaries[s].what.clone();
            if !self.precondition_met(&condition, pre, &xs, &what)? {
                continue;
            }
            let own = self.summaries[s].function.clone();
            return Ok(Some(Val::Int(self.value_of(&own, value, &xs)?)));
        }
        Ok(None)
    }

    /// `value` at the inputs `xs`, `own` the summarised function's symbol.
    fn value_of(&self, own: &FuncDecl, value: Value, xs: &[Int]) -> Result<Int, Stop> {
        Ok(match value {
            Value::Input(i) => xs[i].clone(),
            Value::Product(i, j) => Int::mul(&[&xs[i], &xs[j]]),
            Value::SumProduct(k, i, j) => Int::add(&[&xs[k], &Int::mul(&[&xs[i], &xs[j]])]),
            Value::Scaled(i, d, j) => {
                let f = apply_int(&self.summaries[d].function, &xs[j..=j])?;
                Int::mul(&[&xs[i], &f])
            }
            Value::Own => apply_int(own, xs)?,
        })
    }

    /// What the definitions of the total functions `value` names say at the inputs it
    /// gives them (`fact(n) = if n ≤ 1 then 1 else n · fact(n − 1)` at `n`).
    fn definitions_at(&self, value: Value, xs: &[Int]) -> Vec<Bool> {
        let Value::Scaled(_, d, j) = value else {
            return Vec::new();
        };
        let Some((ys, definition)) = &self.summaries[d].definition else {
            return Vec::new();
        };
        vec![definition.substitute(&[(&ys[0], &xs[j])])]
    }

    /// Summarises closure `code` on captured values and an argument of the shape `key`
    /// names (`arity` integers in all): its body runs once, on new integers `xs`, each
    /// call of itself on inputs `ys` giving its symbol `F(ys)`; it must make no move,
    /// change no cell, make none, and neither fail nor diverge. Then, for each
    /// precondition `P` (none, or an input at least 0), a ranking `r` (an input or its
    /// negation) such that at each call `P(xs)` implies `P(ys)`, `r(xs) ≥ 0` and
    /// `r(ys) < r(xs)`; and a value `V` of the candidates that each path returns,
    /// assuming `F(ys) = V(ys)` at each call made on its way.
    ///
    /// Why that is sound: by induction on `max(r(xs), −1)`, which each call lowers
    /// while staying at least −1, and a call below 0 makes no call: for inputs where
    /// `P` holds, the body ends (every path of it returns, and each call it makes ends,
    /// on inputs where `P` holds, by induction) and returns `V(xs)`. `F` names the
    /// function the body computes (any value where it does not end), which is what each
    /// call gives: the body is pure, so equal inputs give equal results. Without a
    /// precondition the function ends everywhere, so what each path of its body says of
    /// `F` holds of it (its definition), and `F(xs)` itself is a value.
    fn summarise_function(
        &mut self,
        key: &(Side, String),
        code: CodeId,
        env: &Env,
        argument: &Val,
        arity: usize,
    ) -> Result<Option<usize>, Stop> {
        let side = self.side;
        self.activations += 1;
        let id = self.activations;
        let p = prefix(side);
        let xs: Vec<Int> = (0..arity)
            .map(|i| Int::new_const(format!("{p}s{id}_{i}")))
            .collect();
        let int = Sort::int();
        let function = Rc::new(FuncDecl::new(format!("{p}f{id}"), &vec![&int; arity], &int));
        let mut next = xs.iter().cloned();
        let generic: Env = env.iter().map(|v| with_ints(v, &mut next)).collect();
        let mut inner = generic.clone();
        if self.lib(side).lib.code(code).recursive {
            inner.push_front(Val::Closure(code, generic));
        }
        inner.push_front(with_ints(argument, &mut next));
        // It reads no reference that changes (`Checker::eval`).
        let store = self.initial(side)?;
        let run = Run {
            condition: Vec::new(),
            store: store.clone(),
            events: Vec::new(),
            objects: Vec::new(),
            captured: 0,
            activations: imbl::OrdMap::new(),
        };
        let checking = Checking {
            key: key.clone(),
            function: function.clone(),
            outputs: Vec::new(),
            calls: Vec::new(),
        };
        let Some((paths, calls)) = self.alone(run, code, inner, checking)? else {
            return Ok(None);
        };
        let mut returns = Vec::new();
        for (run, v) in paths {
            let pure = only_changes(&run, &store, &[]);
            let Val::Int(v) = v else { return Ok(None) };
            if !pure {
                return Ok(None);
            }
            returns.push((
                run.condition
                    .into_iter()
                    .map(|(_, b)| b)
                    .collect::<Vec<_>>(),
                v,
            ));
        }
        let at_xs = apply_int(&function, &xs)?;
        let values = self.value_candidates(arity);
        let preconditions =
            std::iter::once(Precondition::Always).chain((0..arity).map(Precondition::NonNegative));
        let mut lemmas = Vec::new();
        let mut definition = None;
        for pre in preconditions {
            let Some(ranking) = self.ranking(pre, &xs, &calls)? else {
                continue;
            };
            if pre == Precondition::Always {
                let each: Vec<Bool> = (returns.iter())
                    .map(|(c, v)| all(c).implies(at_xs.eq(v)))
                    .collect();
                definition = Some((xs.clone(), ranking, all(&each)));
            }
            for &value in &values {
                if self.value_holds(pre, value, &function, &xs, &calls, &returns, None)? {
                    lemmas.push((pre, value, ranking));
                    break;
                }
            }
            // A value everywhere makes those under a precondition needless.
            if lemmas.iter().any(|l| l.0 == Precondition::Always) {
                break;
            }
        }
        if let Some((_, ranking, _)) = &definition {
            lemmas.push((Precondition::Always, Value::Own, *ranking));
        }
        if lemmas.is_empty() {
            return Ok(None);
        }
        let what = format!(
            "the function at {} ({})",
            (self.place)(side, &self.lib(side).lib.code(code).span),
            side.word()
        );
        // The summary kept is asked again, each obligation in full (and so in the
        // certificate).
        let from = self.mark_lasting();
        for &(pre, value, ranking) in &lemmas {
            for (ys, condition) in &calls {
                let mut assumed = condition.clone();
                assumed.push(pre.holds(&xs));
                let goal = ranking_goal(pre, ranking, &xs, ys);
                let here = format!(
                    "{what}: a call of itself keeps its precondition and lowers its ranking"
                );
                self.prove(&assumed, goal, &here)?;
            }
            if value != Value::Own {
                let here = format!("{what}: each path returns its summary");
                self.value_holds(pre, value, &function, &xs, &calls, &returns, Some(&here))?;
            }
        }
        self.keep_lasting(from);
        self.summaries.push(Summary {
            function,
            arity,
            lemmas: lemmas.iter().map(|&(pre, value, _)| (pre, value)).collect(),
            definition: definition.map(|(xs, _, d)| (xs, d)),
            what,
        });
        Ok(Some(self.summaries.len() - 1))
    }

    /// Where a summary's obligations begin ([`Checker::keep_lasting`]).
    fn mark_lasting(&self) -> (usize, Option<usize>) {
        (self.obligations, self.smtlib.as_ref().map(Vec::len))
    }

    /// Moves the obligations since `from` out of reach of [`Checker::reset`]: a summary
    /// outlives the attempt that made it (it is kept for later calls), so its
    /// obligations must stay in the count and the certificate.
    fn keep_lasting(&mut self, (obligations, queries): (usize, Option<usize>)) {
        self.lasting += self.obligations - obligations;
        self.obligations = obligations;
        if let (Some(q), Some(n)) = (&mut self.smtlib, queries) {
            self.lasting_queries.extend(q.drain(n..));
        }
    }

    /// The values a summary may give, on `arity` inputs: an input, a product of two,
    /// an accumulator, or an input times a total function of another.
    fn value_candidates(&self, arity: usize) -> Vec<Value> {
        let totals: Vec<usize> = (0..self.summaries.len())
            .filter(|&d| self.summaries[d].definition.is_some() && self.summaries[d].arity == 1)
            .collect();
        let mut values = Vec::new();
        values.extend((0..arity).map(Value::Input));
        for i in 0..arity {
            for j in i..arity {
                values.push(Value::Product(i, j));
                values.extend((0..arity).map(|k| Value::SumProduct(k, i, j)));
            }
            for &d in &totals {
                values.extend((0..arity).map(|j| Value::Scaled(i, d, j)));
            }
        }
        values
    }

    /// A call of closure `code` that changes the cells it captured, `cells` (their
    /// values the last inputs of `xs`): read through its summary
    /// ([`Checker::summarise_effects`]) where the path implies a precondition of it
    /// (an obligation), the cells then holding the summary's values; while it is
    /// being summarised, its symbols at the call's inputs, the call recorded. `None`:
    /// the call is to be inlined.
    #[allow(clippy::too_many_arguments)]
    fn effects_call(
        &mut self,
        run: &mut Run,
        code: CodeId,
        env: &Env,
        argument: &Val,
        key: (Side, String),
        xs: Vec<Int>,
        cells: Vec<Key>,
        int: bool,
    ) -> Result<Option<Val>, Stop> {
        let first = usize::from(int);
        let condition: Vec<Bool> = run.condition.iter().map(|(_, b)| b.clone()).collect();
        if let Some(c) = self.checking.last_mut() {
            if c.key == key {
                let outs = (c.outputs.iter())
                    .map(|f| apply_int(f, &xs))
                    .collect::<Result<Vec<_>, _>>()?;
                c.calls.push((xs, condition));
                for (k, v) in cells.iter().zip(&outs[first..]) {
                    run.store.insert(*k, Val::Int(v.clone()));
                }
                return Ok(Some(if int {
                    Val::Int(outs[0].clone())
                } else {
                    Val::Unit
                }));
            }
        }
        if self.checking.iter().any(|c| c.key == key) {
            return Ok(None);
        }
        let s = match self.effects_of.get(&key) {
            Some(s) => *s,
            None => {
                let s = self.summarise_effects(&key, code, env, argument, &xs, &cells, int)?;
                self.effects_of.insert(key, s);
                s
            }
        };
        let Some(s) = s else { return Ok(None) };
        for i in 0..self.effects[s].lemmas.len() {
            let (pre, values) = self.effects[s].lemmas[i].clone();
            let what = self.effects[s].what.clone();
            if !self.precondition_met(&condition, pre, &xs, &what)? {
                continue;
            }
            let outputs = self.effects[s].outputs.clone();
            let outs = self.outputs_at(&outputs, &values, &xs)?;
            for (k, v) in cells.iter().zip(&outs[first..]) {
                run.store.insert(*k, Val::Int(v.clone()));
            }
            return Ok(Some(if int {
                Val::Int(outs[0].clone())
            } else {
                Val::Unit
            }));
        }
        Ok(None)
    }

    /// Each output at `xs`: its value where the summary names one, else its symbol.
    fn outputs_at(
        &self,
        outputs: &[Rc<FuncDecl>],
        values: &[Option<Value>],
        xs: &[Int],
    ) -> Result<Vec<Int>, Stop> {
        (outputs.iter().zip(values))
            .map(|(f, v)| match v {
                Some(v) => self.value_of(f, *v, xs),
                None => apply_int(f, xs),
            })
            .collect()
    }

    /// Summarises closure `code`, which changes the cells `cells` it captured, on
    /// inputs of the shape `key` names (`xs` at the call: its integers, then the cells'
    /// values): its body runs once on new integers, the cells holding new integers
    /// too, each call of itself on inputs `ys` giving its symbols `F_o(ys)`, one per
    /// output (its integer result, then each cell's value after it), and setting the
    /// cells to theirs. It must make no move, change no cell but `cells` (which hold
    /// integers), make none, and neither fail nor diverge. Then, for each precondition
    /// `P` (none, or an input at least 0) with a ranking (as for
    /// [`Checker::summarise_function`]), for each output the first candidate value
    /// that each path gives it, assuming at each call made on the way the values
    /// chosen so far (an output with none keeps its symbol).
    ///
    /// Why that is sound: the body is deterministic in its inputs (it reads no
    /// reference that changes, no cell but `cells`, and the client does not run), so
    /// each `F_o` names a function of the inputs, what the body leaves in output `o`
    /// where it ends; by induction on `max(r(xs), −1)`, as for pure functions, where
    /// `P` holds the body ends and leaves every output its value, all outputs' values
    /// assumed together at the calls (each call lowers `r` and keeps `P`). A call's
    /// other effects are none: the rest of the store is as it was. An output with no
    /// value is read as its symbol, which is what the call leaves there.
    #[allow(clippy::too_many_arguments)]
    fn summarise_effects(
        &mut self,
        key: &(Side, String),
        code: CodeId,
        env: &Env,
        argument: &Val,
        at: &[Int],
        cells: &[Key],
        int: bool,
    ) -> Result<Option<usize>, Stop> {
        let side = self.side;
        self.activations += 1;
        let id = self.activations;
        let p = prefix(side);
        let arity = at.len();
        let xs: Vec<Int> = (0..arity)
            .map(|i| Int::new_const(format!("{p}s{id}_{i}")))
            .collect();
        let int_sort = Sort::int();
        let first = usize::from(int);
        let outputs: Vec<Rc<FuncDecl>> = (0..first + cells.len())
            .map(|o| {
                let name = format!("{p}f{id}_{o}");
                Rc::new(FuncDecl::new(name, &vec![&int_sort; arity], &int_sort))
            })
            .collect();
        let integers = arity - cells.len();
        let mut next = xs[..integers].iter().cloned();
        let generic: Env = env.iter().map(|v| with_ints(v, &mut next)).collect();
        let mut inner = generic.clone();
        if self.lib(side).lib.code(code).recursive {
            inner.push_front(Val::Closure(code, generic));
        }
        inner.push_front(with_ints(argument, &mut next));
        let mut store = self.initial(side)?;
        for (k, x) in cells.iter().zip(&xs[integers..]) {
            store.insert(*k, Val::Int(x.clone()));
        }
        let run = Run {
            condition: Vec::new(),
            store: store.clone(),
            events: Vec::new(),
            objects: Vec::new(),
            captured: 0,
            activations: imbl::OrdMap::new(),
        };
        let checking = Checking {
            key: key.clone(),
            function: outputs[0].clone(),
            outputs: outputs.clone(),
            calls: Vec::new(),
        };
        let Some((paths, calls)) = self.alone(run, code, inner, checking)? else {
            return Ok(None);
        };
        let mut returns = Vec::new();
        for (run, v) in paths {
            // Its effects are on `cells` alone, which keep integers.
            let kept = only_changes(&run, &store, cells);
            if !kept {
                return Ok(None);
            }
            let mut outs = Vec::new();
            if int {
                let Val::Int(v) = v else { return Ok(None) };
                outs.push(v);
            }
            for k in cells {
                let Some(Val::Int(v)) = run.store.get(k) else {
                    return Ok(None);
                };
                outs.push(v.clone());
            }
            let condition = run.condition.into_iter().map(|(_, b)| b).collect();
            returns.push((condition, outs));
        }
        let values = self.value_candidates(arity);
        let preconditions =
            std::iter::once(Precondition::Always).chain((0..arity).map(Precondition::NonNegative));
        let mut lemmas = Vec::new();
        for pre in preconditions {
            let Some(ranking) = self.ranking(pre, &xs, &calls)? else {
                continue;
            };
            let mut chosen: Vec<Option<Value>> = vec![None; outputs.len()];
            for o in 0..outputs.len() {
                for &value in &values {
                    chosen[o] = Some(value);
                    if self.effects_hold(pre, &chosen, &outputs, &xs, &calls, &returns, None)? {
                        break;
                    }
                    chosen[o] = None;
                }
            }
            let complete = chosen.iter().all(Option::is_some);
            lemmas.push((pre, chosen, ranking));
            if complete {
                break;
            }
        }
        if lemmas.is_empty() {
            return Ok(None);
        }
        // Where several preconditions hold, the one that names the most values is read.
        lemmas.sort_by_key(|l| std::cmp::Reverse(l.1.iter().filter(|v| v.is_some()).count()));
        let what = format!(
            "the function at {} ({})",
            (self.place)(side, &self.lib(side).lib.code(code).span),
            side.word()
        );
        let from = self.mark_lasting();
        for (pre, chosen, ranking) in &lemmas {
            for (ys, condition) in &calls {
                let mut assumed = condition.clone();
                assumed.push(pre.holds(&xs));
                let goal = ranking_goal(*pre, *ranking, &xs, ys);
                let here = format!(
                    "{what}: a call of itself keeps its precondition and lowers its ranking"
                );
                self.prove(&assumed, goal, &here)?;
            }
            let here = format!("{what}: each path leaves its summary's values");
            self.effects_hold(*pre, chosen, &outputs, &xs, &calls, &returns, Some(&here))?;
        }
        self.keep_lasting(from);
        self.effects.push(Effects {
            outputs,
            lemmas: lemmas.into_iter().map(|(pre, v, _)| (pre, v)).collect(),
            what,
        });
        Ok(Some(self.effects.len() - 1))
    }

    /// Whether each path of `returns` leaves each output its value of `values` where
    /// `pre` holds, assuming those values of each call of itself made on the way
    /// ([`Checker::value_holds`]).
    #[allow(clippy::too_many_arguments)]
    fn effects_hold(
        &mut self,
        pre: Precondition,
        values: &[Option<Value>],
        outputs: &[Rc<FuncDecl>],
        xs: &[Int],
        calls: &[(Vec<Int>, Vec<Bool>)],
        returns: &[(Vec<Bool>, Vec<Int>)],
        record: Option<&str>,
    ) -> Result<bool, Stop> {
        let mut premise = vec![pre.holds(xs)];
        for (ys, condition) in calls {
            for (f, v) in outputs.iter().zip(values) {
                if let Some(v) = v {
                    let at = apply_int(f, ys)?;
                    premise.push(all(condition).implies(at.eq(&self.value_of(f, *v, ys)?)));
                }
            }
        }
        let mut expected = Vec::new();
        for (f, v) in outputs.iter().zip(values) {
            if let Some(v) = v {
                premise.extend(self.definitions_at(*v, xs));
                expected.push(Some(self.value_of(f, *v, xs)?));
            } else {
                expected.push(None);
            }
        }
        for (condition, outs) in returns {
            let mut assumed = premise.clone();
            assumed.extend(condition.iter().cloned());
            let goals: Vec<Bool> = (outs.iter().zip(&expected))
                .filter_map(|(v, e)| e.as_ref().map(|e| v.eq(e)))
                .collect();
            if goals.is_empty() {
                continue;
            }
            let goal = all(&goals);
            match record {
                Some(what) => self.prove(&assumed, goal, what)?,
                None => {
                    if self.quick_ask(&assumed, &goal.not())? != SatResult::Unsat {
                        return Ok(false);
                    }
                }
            }
        }
        Ok(true)
    }

    /// A ranking that each call in `calls` lowers while keeping `pre`
    /// ([`Checker::summarise_function`]).
    fn ranking(
        &self,
        pre: Precondition,
        xs: &[Int],
        calls: &[(Vec<Int>, Vec<Bool>)],
    ) -> Result<Option<(usize, bool)>, Stop> {
        'ranking: for ranking in (0..xs.len()).flat_map(|i| [(i, true), (i, false)]) {
            for (ys, condition) in calls {
                let mut assumed = condition.clone();
                assumed.push(pre.holds(xs));
                let goal = ranking_goal(pre, ranking, xs, ys);
                if self.quick_ask(&assumed, &goal.not())? != SatResult::Unsat {
                    continue 'ranking;
                }
            }
            return Ok(Some(ranking));
        }
        Ok(None)
    }

    /// Whether each path of `returns` returns `value` where `pre` holds, assuming it of
    /// each call of itself made on the way: asked quickly, or with `record`, as
    /// obligations.
    #[allow(clippy::too_many_arguments)]
    fn value_holds(
        &mut self,
        pre: Precondition,
        value: Value,
        own: &FuncDecl,
        xs: &[Int],
        calls: &[(Vec<Int>, Vec<Bool>)],
        returns: &[(Vec<Bool>, Int)],
        record: Option<&str>,
    ) -> Result<bool, Stop> {
        let mut premise = vec![pre.holds(xs)];
        for (ys, condition) in calls {
            let at = apply_int(own, ys)?;
            premise.push(all(condition).implies(at.eq(&self.value_of(own, value, ys)?)));
        }
        premise.extend(self.definitions_at(value, xs));
        let expected = self.value_of(own, value, xs)?;
        for (condition, v) in returns {
            let mut assumed = premise.clone();
            assumed.extend(condition.iter().cloned());
            let goal = v.eq(&expected);
            match record {
                Some(what) => self.prove(&assumed, goal, what)?,
                None => {
                    if self.quick_ask(&assumed, &goal.not())? != SatResult::Unsat {
                        return Ok(false);
                    }
                }
            }
        }
        Ok(true)
    }

    /// [`Checker::ask`] on the solver of the search for summaries.
    fn quick_ask(&self, assumed: &[Bool], and: &Bool) -> Result<SatResult, Stop> {
        self.within_limits()?;
        self.quick.push();
        for b in assumed {
            self.quick.assert(b);
        }
        self.quick.assert(and);
        let answer = self.quick.check();
        self.quick.pop(1);
        if answer == SatResult::Unknown {
            self.within_limits()?;
        }
        Ok(answer)
    }

    /// A call to the client (`callee` none), or of a library function that is running
    /// already (`callee`, target [`Name::Own`]): the one-sided facts hold before it,
    /// then the store is any that the relation allows and the result is the one named
    /// after it, on both sides.
    fn turn(
        &mut self,
        mut run: Run,
        target: Name,
        callee: Option<Val>,
        argument: Val,
        ret: TypeId,
        at: &Span,
    ) -> Result<Vec<(Run, Val)>, Stop> {
        let side = self.side;
        if !self.checking.is_empty() {
            return not_covered("a function being summarised makes a move");
        }
        if hands_a_cell(&argument) {
            return not_covered("a cell reaches the client");
        }
        let k = run.tag();
        let what = format!(
            "{}: the relation holds before the call to the client at {} ({})",
            self.what,
            (self.place)(side, at),
            side.word()
        );
        self.keeps_one_sided(&run, &what)?;
        let before = run.store.clone();
        let mut after = before.clone();
        let exposed = exposed(&run, [&argument].into_iter().chain(&callee));
        for (key, v) in before.iter() {
            let reached = key.inst == 0 || exposed.contains(&key.inst);
            if reached && self.lib(side).mutable[key.r as usize] {
                let name = format!("{}t{k}_{}_{}", prefix(side), key.r, key.inst);
                after.insert(*key, havoc(v, &name, &mut 0)?);
            }
        }
        let mut fresh = Fresh::new(Origin::Result(k));
        let result = self.fresh(side, ret, &mut fresh)?;
        run.events.push(Event {
            target,
            callee,
            argument,
            before,
            after: after.clone(),
            at: at.clone(),
        });
        let existing: Vec<(u32, CodeId, u32)> =
            (run.objects.iter()).filter(|o| o.2 <= k).copied().collect();
        let stepped = self.step_instances(&run.store, &after, &existing);
        run.condition
            .extend(stepped.into_iter().map(|(_, b)| (k + 1, b)));
        run.store = after;
        let i = side.index();
        let assumed = self.instances(&self.one_sided[i].clone(), [&run, &run], k + 1, &[]);
        run.condition
            .extend(assumed.into_iter().map(|(_, b)| (k + 1, b)));
        run.condition
            .extend(fresh.range.into_iter().map(|b| (k + 1, b)));
        Ok(vec![(run, result)])
    }

    /// `code`'s body on `env`, as a new activation (whose cells form one object).
    /// Whether a summary (of `what`) applies at a call on `xs` under `condition`: its
    /// precondition `pre` is implied there, and then proved as an obligation.
    fn precondition_met(
        &mut self,
        condition: &[Bool],
        pre: Precondition,
        xs: &[Int],
        what: &str,
    ) -> Result<bool, Stop> {
        if pre == Precondition::Always {
            return Ok(true);
        }
        let holds = pre.holds(xs);
        if !self.implied(condition, &holds)? {
            return Ok(false);
        }
        let what = format!(
            "{}: the precondition of the summary of {what} holds",
            self.what
        );
        self.prove(condition, holds, &what)?;
        Ok(true)
    }

    /// The body of `code` in `env` run on its own, as a call from nowhere, its calls of
    /// itself read as `checking` says: its paths and those calls, or `None` when a path
    /// stopped or it never calls itself (only a function that calls itself needs a
    /// summary; its body is then inlined).
    fn alone(
        &mut self,
        run: Run,
        code: CodeId,
        env: Env,
        checking: Checking,
    ) -> Result<Option<Alone>, Stop> {
        let ended = std::mem::take(&mut self.ended);
        let frames = std::mem::take(&mut self.frames);
        let running = std::mem::take(&mut self.running);
        let summarise = std::mem::replace(&mut self.summarise, false);
        self.checking.push(checking);
        let result = self.inlined(run, code, env, 0);
        let calls = self.checking.pop().map(|c| c.calls).unwrap_or_default();
        let stopped = std::mem::replace(&mut self.ended, ended);
        self.frames = frames;
        self.running = running;
        self.summarise = summarise;
        let paths = match result {
            Ok(paths) => paths,
            Err(Stop::Unknown(why)) => return Err(Stop::Unknown(why)),
            Err(_) => return Ok(None),
        };
        if !stopped.is_empty() || calls.is_empty() {
            return Ok(None);
        }
        Ok(Some((paths, calls)))
    }

    fn inlined(
        &mut self,
        run: Run,
        code: CodeId,
        env: Env,
        depth: u32,
    ) -> Result<Vec<(Run, Val)>, Stop> {
        // A call of a function on what a call of it still running had (the same
        // captured values, argument and store, and no move since) does what that
        // call did, which led here: the path never ends.
        let again = self.frames.iter().any(|f| {
            f.code == code
                && f.tag == run.tag()
                && f.env.len() == env.len()
                && f.env.iter().zip(&env).all(|(a, b)| same(a, b))
                && f.store.len() == run.store.len()
                && (f.store.iter().zip(run.store.iter()))
                    .all(|((k, a), (l, b))| k == l && same(a, b))
        });
        if again {
            self.ended.push(Done {
                run,
                end: End::Diverge,
            });
            return Ok(Vec::new());
        }
        if depth >= self.budget.depth {
            return not_covered(TOO_DEEP);
        }
        self.activations += 1;
        let activation = self.activations;
        let lib = self.lib(self.side).lib;
        *self.running.entry(code).or_default() += 1;
        self.frames.push(Frame {
            code,
            env: env.clone(),
            store: run.store.clone(),
            tag: run.tag(),
        });
        let out = self.eval(run, &lib.code(code).body, env, depth + 1, activation);
        self.frames.pop();
        if let Some(n) = self.running.get_mut(&code) {
            *n -= 1;
        }
        out
    }

    fn feasible(&self, run: &Run, condition: &Bool) -> Result<bool, Stop> {
        let mut all: Vec<Bool> = run.condition.iter().map(|(_, b)| b.clone()).collect();
        all.push(condition.clone());
        self.satisfiable(&all)
    }

    /// Every way `e` evaluates on `run`: the path after it and the value.
    fn eval(
        &mut self,
        run: Run,
        e: &Expr,
        env: Env,
        depth: u32,
        act: u64,
    ) -> Result<Vec<(Run, Val)>, Stop> {
        self.tick()?;
        let side = self.side;
        let lib = self.lib(side).lib;
        let mut out = Vec::new();
        match &e.kind {
            ExprKind::Local(i) => match env.get(*i as usize) {
                Some(v) => out.push((run, v.clone())),
                None => return not_covered("an unbound variable"),
            },
            ExprKind::Diverge => self.ended.push(Done {
                run,
                end: End::Diverge,
            }),
            ExprKind::Global(GlobalName::Method(m)) => out.push((run, Val::Method(*m))),
            ExprKind::Global(GlobalName::Import(i)) => {
                let import = &lib.imports[*i as usize];
                out.push((
                    run,
                    Val::Client(Name::Import(import.name.clone()), import.ty),
                ));
            }
            ExprKind::Global(GlobalName::Undeclared(_)) => {
                return not_covered("an undeclared name")
            }
            ExprKind::Int(n) => out.push((run, Val::Int(big(n)))),
            ExprKind::Unit => out.push((run, Val::Unit)),
            // A summary is of the inputs alone: equal inputs, equal results.
            ExprKind::Deref(r)
                if !self.checking.is_empty() && self.lib(side).mutable[*r as usize] =>
            {
                return not_covered("a function being summarised reads a reference that changes")
            }
            ExprKind::Deref(r) => match run.store.get(&Key { r: *r, inst: 0 }).cloned() {
                Some(v) => out.push((run, v)),
                None => return not_covered("a reference with no value"),
            },
            ExprKind::Assign(r, rhs) => {
                for (mut run, v) in self.eval(run, rhs, env, depth, act)? {
                    run.store.insert(Key { r: *r, inst: 0 }, v);
                    out.push((run, Val::Unit));
                }
            }
            ExprKind::App(f, a) => {
                for (run, fv) in self.eval(run, f, env.clone(), depth, act)? {
                    for (run, av) in self.eval(run, a, env.clone(), depth, act)? {
                        out.extend(self.apply(run, fv.clone(), av, &e.span, depth)?);
                    }
                }
            }
            ExprKind::Pair(a, b) => {
                for (run, av) in self.eval(run, a, env.clone(), depth, act)? {
                    for (run, bv) in self.eval(run, b, env.clone(), depth, act)? {
                        out.push((run, Val::Pair(Rc::new(av.clone()), Rc::new(bv))));
                    }
                }
            }
            ExprKind::Fst(a) | ExprKind::Snd(a) => {
                let first = matches!(e.kind, ExprKind::Fst(_));
                for (run, v) in self.eval(run, a, env, depth, act)? {
                    let Val::Pair(x, y) = v else {
                        return not_covered("a projection of something not a pair");
                    };
                    out.push((run, if first { (*x).clone() } else { (*y).clone() }));
                }
            }
            ExprKind::Not(a) => {
                for (run, v) in self.eval(run, a, env, depth, act)? {
                    let x = integer(v)?;
                    let zero = Int::from_i64(0);
                    out.push((run, Val::Int(x.eq(&zero).ite(&Int::from_i64(1), &zero))));
                }
            }
            ExprKind::Binary(op, a, b) => {
                for (run, av) in self.eval(run, a, env.clone(), depth, act)? {
                    for (run, bv) in self.eval(run, b, env.clone(), depth, act)? {
                        if let (BinOp::Eq, Val::Loc(x), Val::Loc(y)) = (op, &av, &bv) {
                            out.push((run, Val::Int(Int::from_i64(i64::from(x == y)))));
                            continue;
                        }
                        let list = |v: &Val| matches!(v, Val::Nil | Val::Cons(..) | Val::List(..));
                        if *op == BinOp::Eq && list(&av) && list(&bv) {
                            let (Some(x), Some(y)) = (self.list_term(&av), self.list_term(&bv))
                            else {
                                return not_covered("a comparison of lists of other than integers");
                            };
                            let (one, zero) = (Int::from_i64(1), Int::from_i64(0));
                            out.push((run, Val::Int(x.eq(&y).ite(&one, &zero))));
                            continue;
                        }
                        let (x, y) = (integer(av.clone())?, integer(bv)?);
                        if let Some(v) = self.binary(&run, *op, x, y, &e.span)? {
                            out.push((run, Val::Int(v)));
                        }
                    }
                }
            }
            ExprKind::Seq(a, b) => {
                for (run, _) in self.eval(run, a, env.clone(), depth, act)? {
                    out.extend(self.eval(run, b, env.clone(), depth, act)?);
                }
            }
            ExprKind::If(c, t, f) => {
                for (run, cv) in self.eval(run, c, env.clone(), depth, act)? {
                    let cv = integer(cv)?;
                    if let Some(n) = numeral(&cv) {
                        let branch = if n != 0 { t } else { f };
                        out.extend(self.eval(run, branch, env.clone(), depth, act)?);
                        continue;
                    }
                    let truth = cv.eq(Int::from_i64(0)).not();
                    // The path's condition holds in some store (it was checked as it
                    // grew; where it was not, the path only adds obligations that hold
                    // vacuously): where the condition cannot, its negation must.
                    let then = self.feasible(&run, &truth)?;
                    let otherwise = !then || self.feasible(&run, &truth.not())?;
                    for (branch, holds, taken) in
                        [(t, truth.clone(), then), (f, truth.not(), otherwise)]
                    {
                        if taken {
                            let mut run = run.clone();
                            run.condition.push((run.tag(), holds));
                            out.extend(self.eval(run, branch, env.clone(), depth, act)?);
                        }
                    }
                }
            }
            ExprKind::Let(rhs, body) => {
                for (run, v) in self.eval(run, rhs, env.clone(), depth, act)? {
                    let mut inner = env.clone();
                    inner.push_front(v);
                    out.extend(self.eval(run, body, inner, depth, act)?);
                }
            }
            ExprKind::LetRec(code, body) => {
                let mut inner = env.clone();
                inner.push_front(Val::Closure(*code, env));
                out.extend(self.eval(run, body, inner, depth, act)?);
            }
            ExprKind::Lambda(code) => out.push((run, Val::Closure(*code, env))),
            ExprKind::Assert(a) => {
                for (run, v) in self.eval(run, a, env, depth, act)? {
                    let holds = integer(v)?.eq(Int::from_i64(0)).not();
                    if self.feasible(&run, &holds.not())? {
                        let mut failed = run.clone();
                        failed.condition.push((run.tag(), holds.not()));
                        self.ended.push(Done {
                            run: failed,
                            end: End::Fail(e.span.clone()),
                        });
                    }
                    if self.feasible(&run, &holds)? {
                        let mut run = run;
                        run.condition.push((run.tag(), holds));
                        out.push((run, Val::Unit));
                    }
                }
            }
            ExprKind::Alloc(init, _) => {
                let Some(site) = self.lib(side).sites.at(e) else {
                    return not_covered("an allocation outside the library's code");
                };
                let code = self.lib(side).sites.sites[site].code;
                let r = self.lib(side).n_refs + site as u32;
                for (mut run, v) in self.eval(run, init, env, depth, act)? {
                    let inst = match run.activations.get(&act) {
                        Some(&inst) => inst,
                        None => {
                            let inst = run.objects.iter().map(|o| o.0).max().unwrap_or(0) + 1;
                            run.objects.push((inst, code, run.tag()));
                            run.activations.insert(act, inst);
                            inst
                        }
                    };
                    let key = Key { r, inst };
                    run.store.insert(key, v);
                    out.push((run, Val::Loc(key)));
                }
            }
            ExprKind::Load(target) => {
                for (run, v) in self.eval(run, target, env, depth, act)? {
                    let Val::Loc(k) = v else {
                        return not_covered("a read through something not a location");
                    };
                    match run.store.get(&k).cloned() {
                        Some(v) => out.push((run, v)),
                        None => return not_covered("a read of a cell the checker does not know"),
                    }
                }
            }
            ExprKind::Store(target, value) => {
                for (run, t) in self.eval(run, target, env.clone(), depth, act)? {
                    let Val::Loc(k) = t else {
                        return not_covered("a write through something not a location");
                    };
                    for (mut run, v) in self.eval(run, value, env.clone(), depth, act)? {
                        if is_function(&v) {
                            return not_covered("a cell is given a function");
                        }
                        run.store.insert(k, v);
                        out.push((run, Val::Unit));
                    }
                }
            }
            ExprKind::Nil => out.push((run, Val::Nil)),
            ExprKind::Cons(h, t) => {
                for (run, hv) in self.eval(run, h, env.clone(), depth, act)? {
                    for (run, tv) in self.eval(run, t, env.clone(), depth, act)? {
                        out.push((run, Val::Cons(Rc::new(hv.clone()), Rc::new(tv))));
                    }
                }
            }
            ExprKind::Match(scrutinee, nil, cons) => {
                for (run, v) in self.eval(run, scrutinee, env.clone(), depth, act)? {
                    match v {
                        Val::Nil => out.extend(self.eval(run, nil, env.clone(), depth, act)?),
                        Val::Cons(h, t) => {
                            let mut inner = env.clone();
                            inner.push_front((*h).clone());
                            inner.push_front((*t).clone());
                            out.extend(self.eval(run, cons, inner, depth, act)?);
                        }
                        Val::List(l, booleans) => {
                            let [nil_variant, cons_variant] = &self.lists.variants[..] else {
                                return not_covered("a match on something not a list");
                            };
                            let empty = nil_variant.tester.apply(&[&l]).as_bool();
                            let head = cons_variant.accessors[0].apply(&[&l]).as_int();
                            let (Some(empty), Some(head)) = (empty, head) else {
                                return not_covered("a match on something not a list");
                            };
                            let tail = cons_variant.accessors[1].apply(&[&l]);
                            if self.feasible(&run, &empty)? {
                                let mut run = run.clone();
                                run.condition.push((run.tag(), empty.clone()));
                                out.extend(self.eval(run, nil, env.clone(), depth, act)?);
                            }
                            let mut holds = vec![empty.not()];
                            if booleans {
                                holds.push(head.ge(Int::from_i64(0)));
                                holds.push(head.le(Int::from_i64(1)));
                            }
                            let holds = Bool::and(&holds.iter().collect::<Vec<_>>());
                            if self.feasible(&run, &holds)? {
                                let mut run = run.clone();
                                run.condition.push((run.tag(), holds));
                                let mut inner = env.clone();
                                inner.push_front(Val::Int(head));
                                inner.push_front(Val::List(tail, booleans));
                                out.extend(self.eval(run, cons, inner, depth, act)?);
                            }
                        }
                        _ => return not_covered("a match on something not a list"),
                    }
                }
            }
        }
        Ok(out)
    }

    /// `x op y`, or `None` where the path fails (a division by zero, which then ends
    /// in [`Checker::ended`]).
    fn binary(
        &mut self,
        run: &Run,
        op: BinOp,
        x: Int,
        y: Int,
        at: &Span,
    ) -> Result<Option<Int>, Stop> {
        let one = Int::from_i64(1);
        let zero = Int::from_i64(0);
        let truth = |b: Bool| b.ite(&one, &zero);
        let (cx, cy) = (numeral(&x), numeral(&y));
        let v = match op {
            BinOp::Add => Int::add(&[&x, &y]),
            BinOp::Sub => Int::sub(&[&x, &y]),
            // A product of two unknowns is asked of Z3 as it is only beside summaries,
            // which make them (elsewhere it would only slow the attempts down): where Z3
            // cannot decide, the obligation is unknown, never proved.
            BinOp::Mul if cx.is_none() && cy.is_none() && !self.lemmas => {
                return not_covered("nonlinear arithmetic")
            }
            BinOp::Mul => Int::mul(&[&x, &y]),
            BinOp::Div | BinOp::Mod => match cy {
                None => return not_covered("nonlinear arithmetic (a division by a variable)"),
                Some(0) => {
                    self.ended.push(Done {
                        run: run.clone(),
                        end: End::Fail(at.clone()),
                    });
                    return Ok(None);
                }
                Some(_) => {
                    // HOLi truncates toward zero; Z3's `div` keeps the remainder
                    // non-negative.
                    let positive = x.div(&y);
                    let negative = x.unary_minus().div(&y).unary_minus();
                    let quotient = x.ge(&zero).ite(&positive, &negative);
                    match op {
                        BinOp::Mod => Int::sub(&[&x, &Int::mul(&[&y, &quotient])]),
                        _ => quotient,
                    }
                }
            },
            BinOp::Lt => truth(x.lt(&y)),
            BinOp::Gt => truth(x.gt(&y)),
            BinOp::Le => truth(x.le(&y)),
            BinOp::Ge => truth(x.ge(&y)),
            BinOp::Eq => truth(x.eq(&y)),
            BinOp::And => truth(Bool::and(&[&x.eq(&zero).not(), &y.eq(&zero).not()])),
            BinOp::Or => truth(Bool::or(&[&x.eq(&zero).not(), &y.eq(&zero).not()])),
        };
        // Constants are folded as they are made (as KLEE does), so that a test of
        // them costs no query and a term never grows with a loop's counter.
        Ok(Some(match (cx, cy) {
            (Some(_), Some(_)) => numeral(&v).map_or(v, Int::from_i64),
            _ => v,
        }))
    }
}

/// What a summary says a function returns on its inputs `xs` ([`inputs`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Value {
    Input(usize),
    Product(usize, usize),
    /// `xs[k] + xs[i]·xs[j]`: an accumulator (`f (x, y, acc) = acc + x·y`).
    SumProduct(usize, usize, usize),
    /// `xs[i]·F(xs[j])`, `F` a total function's symbol ([`Summary::definition`]): the
    /// accumulator of the other side's recursion (`fact_acc n acc = acc · fact n`).
    Scaled(usize, usize, usize),
    /// The function's own symbol at its inputs.
    Own,
}

/// Where a summary's value holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Precondition {
    Always,
    NonNegative(usize),
}

impl Precondition {
    fn holds(self, xs: &[Int]) -> Bool {
        match self {
            Precondition::Always => Bool::from_bool(true),
            Precondition::NonNegative(i) => xs[i].ge(Int::from_i64(0)),
        }
    }
}

/// A pure recursive function's summary ([`Checker::summarise_function`]): where a
/// precondition holds of its inputs, it ends and returns the value.
struct Summary {
    function: Rc<FuncDecl>,
    arity: usize,
    lemmas: Vec<(Precondition, Value)>,
    /// Where it ends on every input: its inputs and what its body says of its symbol at
    /// them, which then holds of the function it computes.
    definition: Option<(Vec<Int>, Bool)>,
    what: String,
}

/// A summary of a recursive function that changes cells it captured
/// ([`Checker::summarise_effects`]): where a precondition holds of its inputs, it ends
/// and leaves each output (its integer result, then each cell) the value named, or,
/// where none is, what its symbol gives.
struct Effects {
    outputs: Vec<Rc<FuncDecl>>,
    lemmas: Vec<(Precondition, Vec<Option<Value>>)>,
    what: String,
}

/// A function being summarised: its key, its symbol, and the calls of itself that its
/// body makes (their inputs and the path's conditions then).
/// A body run on its own ([`Checker::alone`]): its paths, and its calls of itself.
type Alone = (Vec<(Run, Val)>, Vec<(Vec<Int>, Vec<Bool>)>);

struct Checking {
    key: (Side, String),
    function: Rc<FuncDecl>,
    /// Of a function that changes cells ([`Checker::summarise_effects`]): a symbol for
    /// each of its outputs (its integer result first, if it has one, then each cell).
    outputs: Vec<Rc<FuncDecl>>,
    calls: Vec<(Vec<Int>, Vec<Bool>)>,
}

/// `pre` holds at `ys` and the ranking (an input, or its negation where `false`) is at
/// least 0 at `xs` and lower at `ys`.
fn ranking_goal(pre: Precondition, (i, up): (usize, bool), xs: &[Int], ys: &[Int]) -> Bool {
    let r = |v: &[Int]| if up { v[i].clone() } else { v[i].unary_minus() };
    Bool::and(&[
        &pre.holds(ys),
        &r(xs).ge(Int::from_i64(0)),
        &r(ys).lt(r(xs)),
    ])
}

fn all(bs: &[Bool]) -> Bool {
    Bool::and(&bs.iter().collect::<Vec<_>>())
}

fn apply_int(f: &FuncDecl, xs: &[Int]) -> Result<Int, Stop> {
    let args: Vec<&dyn Ast> = xs.iter().map(|x| x as &dyn Ast).collect();
    match f.apply(&args).as_int() {
        Some(v) => Ok(v),
        None => not_covered("a summary that is not of integers"),
    }
}

/// Adds the integers of `v` to `ints` in order, its cells to `cells` (each once), and the
/// rest of it to `shape` as text: two values of one text differ only in their integers
/// and which cells they name. `false` where it holds a list or a function of the
/// client's, which the text would not pin.
fn inputs(v: &Val, ints: &mut Vec<Int>, shape: &mut String, cells: &mut Vec<Key>) -> bool {
    match v {
        Val::Int(x) => {
            ints.push(x.clone());
            shape.push('i');
            true
        }
        Val::Unit => {
            shape.push('u');
            true
        }
        Val::Nil => {
            shape.push('n');
            true
        }
        Val::Pair(a, b) | Val::Cons(a, b) => {
            shape.push(if matches!(v, Val::Pair(..)) { '(' } else { '[' });
            let whole = inputs(a, ints, shape, cells) && inputs(b, ints, shape, cells);
            shape.push(')');
            whole
        }
        Val::Closure(code, env) => {
            shape.push_str(&format!("c{code}{{"));
            let whole = env.iter().all(|v| inputs(v, ints, shape, cells));
            shape.push('}');
            whole
        }
        Val::Method(m) => {
            shape.push_str(&format!("m{m}"));
            true
        }
        // A cell by its place among the distinct cells met, so that the text says
        // which are the same cell.
        Val::Loc(k) => {
            let i = cells.iter().position(|c| c == k).unwrap_or_else(|| {
                cells.push(*k);
                cells.len() - 1
            });
            shape.push_str(&format!("L{i}"));
            true
        }
        Val::List(..) | Val::Client(..) => false,
    }
}

/// `v` with its integers taken in order from `next` ([`inputs`]).
fn with_ints(v: &Val, next: &mut impl Iterator<Item = Int>) -> Val {
    match v {
        Val::Int(x) => Val::Int(next.next().unwrap_or_else(|| x.clone())),
        Val::Pair(a, b) => Val::Pair(Rc::new(with_ints(a, next)), Rc::new(with_ints(b, next))),
        Val::Cons(a, b) => Val::Cons(Rc::new(with_ints(a, next)), Rc::new(with_ints(b, next))),
        Val::Closure(code, env) => {
            Val::Closure(*code, env.iter().map(|v| with_ints(v, next)).collect())
        }
        other => other.clone(),
    }
}

fn integer(v: Val) -> Result<Int, Stop> {
    match v {
        Val::Int(x) => Ok(x),
        _ => not_covered("an integer was expected"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn library(source: &str) -> Library {
        let loaded = crate::frontend::load_str("t.holi", source, false)
            .unwrap_or_else(|r| panic!("{}", r.render(false)));
        crate::library::build(&loaded.program)
    }

    fn place(side: Side, span: &Span) -> String {
        format!("{}@{}", side.word(), span.start)
    }

    fn proved(left: &str, right: &str) -> (Relation, Outcome) {
        prove(&library(left), &library(right), Budget::default(), &place)
    }

    /// Counts up by one on the left and down by two on the right; `get` undoes it.
    const UP: &str = "int c := 0;
        public inc (_:unit) :(unit) = { c := !c + 1 };
        public get (_:unit) :(int) = { !c };";
    const DOWN: &str = "int c := 0;
        public inc (_:unit) :(unit) = { c := !c - 2 };
        public get (_:unit) :(int) = { 0 - !c / 2 };";

    #[test]
    fn two_representations_of_a_counter_are_related_by_a_linear_fact() {
        let (relation, outcome) = proved(UP, DOWN);
        assert!(
            matches!(outcome, Outcome::Proved { pairs: 2, .. }),
            "{outcome:?}"
        );
        let names = Names::of(&library(UP), &library(DOWN));
        let words = relation.describe(&names);
        assert!(
            words.iter().any(|w| w == "-2·left.c - right.c = 0"),
            "{words:?}"
        );
        // The relation found is checked again on its own, and is what proves.
        let outcome = check(
            &library(UP),
            &library(DOWN),
            &relation,
            Budget::default(),
            &place,
        );
        assert!(matches!(outcome, Outcome::Proved { .. }));
        let without = Relation::default();
        let outcome = check(
            &library(UP),
            &library(DOWN),
            &without,
            Budget::default(),
            &place,
        );
        assert!(matches!(outcome, Outcome::Refuted(_)), "{outcome:?}");
    }

    #[test]
    fn a_counter_that_a_client_can_tell_apart_is_never_proved() {
        let off_by_one = DOWN.replace("0 - !c / 2", "1 - !c / 2");
        let (_, outcome) = proved(UP, &off_by_one);
        assert!(matches!(outcome, Outcome::Refuted(_)), "{outcome:?}");
        let twice = DOWN.replace("c := !c - 2", "c := !c - 4");
        assert!(!matches!(proved(UP, &twice).1, Outcome::Proved { .. }));
    }

    #[test]
    fn calls_to_the_client_must_match_in_target_value_and_number() {
        let once = "import f :(int -> unit)
            public go (x:int) :(unit) = { f x };";
        let twice = "import f :(int -> unit)
            public go (x:int) :(unit) = { f x; f x };";
        let shifted = "import f :(int -> unit)
            public go (x:int) :(unit) = { f (x + 1) };";
        assert!(matches!(proved(once, once).1, Outcome::Proved { .. }));
        assert!(matches!(proved(once, twice).1, Outcome::Refuted(_)));
        assert!(matches!(proved(once, shifted).1, Outcome::Refuted(_)));
    }

    #[test]
    fn functions_that_reach_the_client_are_checked_in_pairs_with_their_captured_cells() {
        // Each `make` gives a new counter; the sides keep it as c and as -c.
        let left = "public make (_:unit) :((unit -> int)) = {
            let c = ref 0 in fun (_:unit) :(int) -> (c := !c + 1; !c) };";
        let right = "public make (_:unit) :((unit -> int)) = {
            let c = ref 0 in fun (_:unit) :(int) -> (c := !c - 1; 0 - !c) };";
        let (relation, outcome) = proved(left, right);
        assert!(
            matches!(outcome, Outcome::Proved { pairs: 2, .. }),
            "{outcome:?}"
        );
        let names = Names::of(&library(left), &library(right));
        assert!(relation
            .describe(&names)
            .iter()
            .any(|w| w.contains("left.cell c")));
        let wrong = right.replace("0 - !c", "!c");
        assert!(!matches!(proved(left, &wrong).1, Outcome::Proved { .. }));
    }

    #[test]
    fn a_fact_between_objects_made_together_binds_every_pair_that_captures_one() {
        // The reviewer's pair: `incr` captures the left's `a` beside another cell of
        // the right's than `b`; `a = b` must be kept by it too, and is not.
        let left = "private getter (c:ref int) :(unit -> int) = { fun (v:unit) :(int) -> !c };
            private incr (c:ref int) :(unit -> unit) = { fun (v:unit) :(unit) -> c := !c + 1 };
            public mk (u:unit) :((unit -> int) * (unit -> unit)) = {
              let a = ref 0 in (getter a, incr a) };";
        let right = "private mkcell (u:unit) :(ref int) = { ref 0 };
            private getter (c:ref int) :(unit -> int) = { fun (v:unit) :(int) -> !c };
            private incr (c:ref int) :(unit -> unit) = { fun (v:unit) :(unit) -> c := !c + 1 };
            public mk (u:unit) :((unit -> int) * (unit -> unit)) = {
              let b = ref 0 in let b2 = mkcell () in (getter b, incr b2) };";
        assert!(!matches!(proved(left, right).1, Outcome::Proved { .. }));
        let fixed = right.replace("incr b2", "incr b");
        assert!(matches!(proved(left, &fixed).1, Outcome::Proved { .. }));
    }

    #[test]
    fn a_fact_over_a_reference_and_a_cell_is_neither_assumed_nor_asked() {
        let left = "int g := 0;
            public make (_:unit) :((unit -> int)) = { let c = ref 0 in fun (_:unit) :(int) -> !c };
            public bump (_:unit) :(unit) = { g := !g + 1 };";
        let mixed = Fact {
            terms: vec![
                (
                    Cell {
                        side: Side::Left,
                        r: 0,
                    },
                    BigInt::one(),
                ),
                (
                    Cell {
                        side: Side::Left,
                        r: 1,
                    },
                    -BigInt::one(),
                ),
            ],
            constant: BigInt::zero(),
            modulus: None,
            guard: None,
        };
        let relation = Relation {
            facts: vec![mixed.clone(), mixed.negated().expect("a linear fact")],
            steps: Vec::new(),
        };
        let lib = library(left);
        let outcome = check(&lib, &library(left), &relation, Budget::default(), &place);
        assert!(matches!(outcome, Outcome::Proved { .. }), "{outcome:?}");
        assert!(candidates(&lib, &lib, Tier::Guarded).facts.iter().all(|f| {
            let site = |c: Cell| c.r >= 1;
            f.cells().all(site) || !f.cells().any(site)
        }));
    }

    #[test]
    fn paths_that_both_diverge_need_nothing_where_neither_side_can_fail() {
        // After `f` returns, the left diverges: what it told `f` cannot be seen.
        let left = "import f :(int -> unit)
            public go (x:int) :(unit) = { f x; _bot_ };";
        let right = "import f :(int -> unit)
            public go (x:int) :(unit) = { f (x + 1); _bot_ };";
        assert!(matches!(proved(left, right).1, Outcome::Proved { .. }));
        // A failure is an end the client sees: then the calls must match.
        let failing = right.replace("_bot_", "assert (x == 0); _bot_");
        let failing_left = left.replace("_bot_", "assert (x == 0); _bot_");
        assert!(matches!(
            proved(&failing_left, &failing).1,
            Outcome::Refuted(_)
        ));
    }

    #[test]
    fn a_call_that_repeats_a_running_one_diverges() {
        let left = "public go (b:int) :(int) = {
            letrec loop (_:unit) :(unit) = if b == 1 then loop () else () in
            loop (); b };";
        let right = "public go (b:int) :(int) = {
            letrec loop (_:unit) :(unit) = if b == 1 then loop () else () in
            loop (); 0 };";
        assert!(matches!(proved(left, right).1, Outcome::Refuted(_)));
        let right = right.replace("; 0 }", "; b * 0 + b }");
        assert!(matches!(proved(left, &right).1, Outcome::Proved { .. }));
    }

    #[test]
    fn a_turn_relation_keeps_a_locked_cell() {
        // While `busy` is 1, no client turn changes `x`: reading it before the call to
        // the client and writing it after is the same as incrementing after.
        let left = "int x := 0; int busy := 0;
            public inc (f:(unit -> unit)) :(unit) = {
              if !busy == 0 then (busy := 1; f (); x := !x + 1; busy := 0) else () };
            public get (_:unit) :(int) = { !x };";
        let right = "int x := 0; int busy := 0;
            public inc (f:(unit -> unit)) :(unit) = {
              if !busy == 0 then (busy := 1; (let n = !x in f (); x := n + 1); busy := 0) else () };
            public get (_:unit) :(int) = { !x };";
        let (relation, outcome) = proved(left, right);
        assert!(matches!(outcome, Outcome::Proved { .. }), "{outcome:?}");
        assert!(
            relation.steps.iter().any(|s| s.guard.is_some()),
            "{relation:?}"
        );
        // Without the lock, the client can call `inc` during its own call.
        let unlocked = right.replace("if !busy == 0 then", "if 0 == 0 then");
        let unlocked_left = left.replace("if !busy == 0 then", "if 0 == 0 then");
        assert!(!matches!(
            proved(&unlocked_left, &unlocked).1,
            Outcome::Proved { .. }
        ));
    }

    #[test]
    fn what_the_argument_does_not_cover_is_said() {
        let lends = "public make (_:unit) :(ref int) = { ref 0 };";
        assert!(matches!(proved(lends, lends).1, Outcome::NotCovered(_)));
        let other = "public other (_:unit) :(unit) = { () };";
        let one = "public one (_:unit) :(unit) = { () };";
        assert!(matches!(proved(one, other).1, Outcome::NotCovered(_)));
    }

    /// Constants are folded as they are made, and a test of one does not fork: the
    /// obligations mention neither the product nor the decided test.
    #[test]
    fn constants_are_folded_and_a_decided_test_does_not_fork() {
        let left = "public f (x:int) :(int) = { if 1 < 2 then x + 2 * 3 else x };";
        let right = "public f (x:int) :(int) = { x + 6 };";
        let (relation, _) = proved(left, right);
        let (outcome, text) = certify(
            &library(left),
            &library(right),
            &relation,
            Budget::default(),
            &place,
        );
        assert!(matches!(outcome, Outcome::Proved { .. }), "{outcome:?}");
        let text = text.unwrap_or_default();
        assert!(text.contains("(check-sat)"), "{text}");
        assert!(
            !text.contains("(* 2 3)") && !text.contains("(< 1 2)"),
            "{text}"
        );
    }

    #[test]
    fn the_certificate_has_one_query_per_obligation() {
        let (relation, _) = proved(UP, DOWN);
        let (outcome, text) = certify(
            &library(UP),
            &library(DOWN),
            &relation,
            Budget::default(),
            &place,
        );
        let Outcome::Proved { obligations, .. } = outcome else {
            panic!("{outcome:?}")
        };
        let text = text.unwrap_or_default();
        assert_eq!(
            text.lines().filter(|l| *l == "(check-sat)").count(),
            obligations
        );
        assert!(text.contains("; relation: "));
    }

    /// A count that goes up by two keeps its parity, which the left tests; the right
    /// answers without a count.
    const EVEN: &str = "int c := 0;
        public add (_:unit) :(unit) = { c := !c + 2 };
        public odd (_:unit) :(bool) = { (!c mod 2) == 1 };";
    const NEVER: &str = "public add (_:unit) :(unit) = { () };
        public odd (_:unit) :(bool) = { false };";

    #[test]
    fn a_remainder_the_code_divides_by_is_a_fact() {
        let (relation, outcome) = proved(EVEN, NEVER);
        assert!(matches!(outcome, Outcome::Proved { .. }), "{outcome:?}");
        let names = Names::of(&library(EVEN), &library(NEVER));
        let words = relation.describe(&names);
        assert!(words.iter().any(|w| w == "left.c mod 2 = 0"), "{words:?}");
        // A step of one breaks the parity: the sides differ, and no fact hides it.
        let odd = EVEN.replace("!c + 2", "!c + 1");
        assert!(
            matches!(proved(&odd, NEVER).1, Outcome::Refuted(_)),
            "{odd}"
        );
    }

    /// One cell on the left; two on the right and a count whose parity says which
    /// holds the value (Hobbit's `cell-4`).
    const ONE: &str = "int y := 0;
        public set (z:int) :(unit) = { y := z };
        public get (_:unit) :(int) = { !y };";
    const ALTERNATING: &str = "int y1 := 0; int y2 := 0; int p := 0;
        public set (z:int) :(unit) = {
            p := !p + 1; if (!p mod 2) == 0 then y1 := z else y2 := z };
        public get (_:unit) :(int) = { if (!p mod 2) == 0 then !y1 else !y2 };";

    #[test]
    fn a_remainder_guards_which_cell_mirrors_the_other_side() {
        let (relation, outcome) = proved(ONE, ALTERNATING);
        assert!(matches!(outcome, Outcome::Proved { .. }), "{outcome:?}");
        let names = Names::of(&library(ONE), &library(ALTERNATING));
        let words = relation.describe(&names);
        assert!(
            words
                .iter()
                .any(|w| w == "left.y - right.y1 = 0 while right.p mod 2 = 0"),
            "{words:?}"
        );
        // Reading the stale cell is a difference.
        let stale = ALTERNATING.replace("then !y1 else !y2", "then !y2 else !y1");
        assert!(
            matches!(proved(ONE, &stale).1, Outcome::Refuted(_)),
            "{stale}"
        );
    }

    /// The client's list passed on whole, or taken apart and rebuilt (Hobbit's
    /// `lists-29-03-23`).
    const WHOLE: &str = "import f :(int list -> unit)
        public go (l:int list) :(unit) = { f l };";
    const REBUILT: &str = "import f :(int list -> unit)
        public go (l:int list) :(unit) = { match l with [] -> f [] | h :: t -> f (h :: t) };";

    #[test]
    fn a_list_of_the_clients_is_compared_as_a_list() {
        let outcome = proved(WHOLE, REBUILT).1;
        assert!(matches!(outcome, Outcome::Proved { .. }), "{outcome:?}");
        let dropped = REBUILT.replace("f (h :: t)", "f t");
        let outcome = proved(WHOLE, &dropped).1;
        assert!(matches!(outcome, Outcome::Refuted(_)), "{outcome:?}");
        let swapped = REBUILT.replace("f (h :: t)", "f (h :: h :: t)");
        let outcome = proved(WHOLE, &swapped).1;
        assert!(matches!(outcome, Outcome::Refuted(_)), "{outcome:?}");
    }

    /// A sum by recursion against the product it computes (Hobbit's `recursive`).
    const SUM: &str = "public start (_:unit) :((int * int) -> int) = {
        letrec f (xy:int * int) :(int) =
          let x = fst xy in let y = snd xy in if y <= 0 then 0 else x + f (x, y - 1)
        in f };";
    const PRODUCT: &str = "public start (_:unit) :((int * int) -> int) = {
        fun (xy:int * int) :(int) ->
          let x = fst xy in let y = snd xy in if y <= 0 then 0 else x * y };";

    #[test]
    fn a_pure_recursive_function_is_read_through_its_summary() {
        let outcome = proved(SUM, PRODUCT).1;
        assert!(matches!(outcome, Outcome::Proved { .. }), "{outcome:?}");
        let (relation, _) = proved(SUM, PRODUCT);
        let (outcome, text) = certify(
            &library(SUM),
            &library(PRODUCT),
            &relation,
            Budget::default(),
            &place,
        );
        assert!(matches!(outcome, Outcome::Proved { .. }), "{outcome:?}");
        assert!(
            text.unwrap_or_default().contains("lowers its ranking"),
            "the summary's obligations are in the certificate"
        );
        for wrong in [
            PRODUCT.replace("else x * y", "else x * y + 1"),
            PRODUCT.replace("if y <= 0 then 0", "if y <= 1 then 0"),
        ] {
            let outcome = proved(SUM, &wrong).1;
            assert!(!matches!(outcome, Outcome::Proved { .. }), "{wrong}");
        }
        let base = SUM.replace("then 0 else x +", "then 1 else x +");
        assert!(!matches!(proved(&base, PRODUCT).1, Outcome::Proved { .. }));
    }

    /// An accumulator that counts `y` down to 0, which ends only from `y ≥ 0`.
    const ACCUMULATED: &str = "public go (xy:int * int) :(int) = {
        letrec f (a:int * int * int) :(int) =
          let x = fst fst a in let y = snd fst a in let acc = snd a in
          if y == 0 then acc else f (x, y - 1, acc + x)
        in
        let x = fst xy in let y = snd xy in
        if y < 0 then f (0 - x, 0 - y, 0) else f (x, y, 0) };";
    const MULTIPLIED: &str = "public go (xy:int * int) :(int) = { fst xy * snd xy };";

    #[test]
    fn a_summary_holds_only_where_its_precondition_does() {
        let outcome = proved(ACCUMULATED, MULTIPLIED).1;
        assert!(matches!(outcome, Outcome::Proved { .. }), "{outcome:?}");
        // Without the test of the sign the left diverges for y < 0.
        let unguarded = ACCUMULATED.replace("if y < 0 then f (0 - x, 0 - y, 0) else ", "");
        let outcome = proved(&unguarded, MULTIPLIED).1;
        assert!(!matches!(outcome, Outcome::Proved { .. }), "{outcome:?}");
        let off = ACCUMULATED.replace("acc + x)", "acc + x + 1)");
        assert!(!matches!(
            proved(&off, MULTIPLIED).1,
            Outcome::Proved { .. }
        ));
    }

    /// Factorial against an accumulator: the right's summary names the left's function
    /// (Hobbit's `fact-tail-rec`).
    const FACT: &str = "public start (_:unit) :(int -> int) = {
        letrec fact (n:int) :(int) = if n <= 1 then 1 else n * fact (n - 1) in fact };";
    const FACT_ACC: &str = "public start (_:unit) :(int -> int) = {
        letrec fact_acc (n:int) :(int -> int) =
          fun (acc:int) :(int) -> if n <= 1 then acc else fact_acc (n - 1) (n * acc)
        in
        fun (n:int) :(int) -> fact_acc n 1 };";

    #[test]
    fn a_summary_may_name_a_total_function_of_the_other_side() {
        let outcome = proved(FACT, FACT_ACC).1;
        assert!(matches!(outcome, Outcome::Proved { .. }), "{outcome:?}");
        for wrong in [
            FACT_ACC.replace("fact_acc n 1", "fact_acc n 2"),
            FACT_ACC.replace("then acc else", "then acc + 1 else"),
            FACT_ACC.replace("(n * acc)", "(n * acc + 1)"),
        ] {
            let outcome = proved(FACT, &wrong).1;
            assert!(!matches!(outcome, Outcome::Proved { .. }), "{wrong}");
        }
    }

    #[test]
    fn a_function_that_reads_a_changing_reference_has_no_summary() {
        // Read through one symbol, the two calls would look equal; they differ by 1.
        let left = "int r := 0;
            public go (n:int) :(int) = {
              letrec f (m:int) :(int) = if m <= 0 then !r else f (m - 1) in
              let a = f n in r := !r + 1; f n - a };";
        let right = "int r := 0; public go (n:int) :(int) = { r := !r + 1; 0 };";
        let outcome = proved(left, right).1;
        assert!(!matches!(outcome, Outcome::Proved { .. }), "{outcome:?}");
    }

    /// The same recursion, the right with one more base case (Hobbit's
    /// `reve-add-horn`): the left's call where the right has `i = 1` is its base case.
    const ADD: &str = "public start (_:unit) :((int * int) -> int) = {
        letrec f (ij:int * int) :(int) =
          let i = fst ij in let j = snd ij in let r = ref 0 in
          if i == 0 then r := j else r := f (i - 1, j + 1);
          !r
        in f };";
    const ADD_ONE_MORE: &str = "public start (_:unit) :((int * int) -> int) = {
        letrec f (ij:int * int) :(int) =
          let i = fst ij in let j = snd ij in let r = ref 0 in
          if i == 0 then r := j else if i == 1 then r := j + 1 else r := f (i - 1, j + 1);
          !r
        in f };";

    #[test]
    fn a_side_is_unfolded_where_the_other_reaches_a_base_case_first() {
        let outcome = proved(ADD, ADD_ONE_MORE).1;
        assert!(matches!(outcome, Outcome::Proved { .. }), "{outcome:?}");
        let outcome = proved(ADD_ONE_MORE, ADD).1;
        assert!(matches!(outcome, Outcome::Proved { .. }), "{outcome:?}");
        let wrong = ADD_ONE_MORE.replace("r := j + 1", "r := j + 2");
        let outcome = proved(ADD, &wrong).1;
        assert!(!matches!(outcome, Outcome::Proved { .. }), "{outcome:?}");
    }

    /// The pair's own cell, made before its first call to the client and not passed
    /// to it, keeps its value across the client's turn (a pair, which no fact pins,
    /// read after the turn through a function of the pair's; Hobbit's
    /// `hector-bsort-isort-*-one-step`).
    const OWN: &str = "public start (_:unit) :((int -> int -> int) -> int) = {
        fun (compare:int -> int -> int) :(int) ->
            let a = ref (0, 0) in let get = fun (n:int) :(int) -> fst !a in
            a := (5, 0); compare 1 (get 0) };";
    const ARGUMENT: &str = "public start (_:unit) :((int -> int -> int) -> int) = {
        fun (compare:int -> int -> int) :(int) -> compare 1 5 };";

    #[test]
    fn a_cell_the_pair_makes_and_keeps_keeps_its_value() {
        let outcome = proved(OWN, ARGUMENT).1;
        assert!(matches!(outcome, Outcome::Proved { .. }), "{outcome:?}");
        // Stored in a global reference, which a method the client calls in its turn
        // writes through, it may change: not proved (such a reference is not covered).
        let global = "import f :(unit -> unit)
            ref int g := ref 0;
            public bump (_:unit) :(unit) = { !g := !(!g) + 1 };
            public m (_:unit) :(int) = { let c = ref 5 in g := c; f (); !c };";
        let constant = global.replace("f (); !c", "f (); 5");
        assert!(!matches!(
            proved(global, &constant).1,
            Outcome::Proved { .. }
        ));
    }

    /// Factorial into a cell the loop captured (Hobbit's `syteci-fact-state`, its
    /// `else` branch bracketed): `aux m` leaves `res · fact m` in it.
    const FACT_STATE: &str = "public start (_:unit) :(int -> int) = {
        fun (n:int) :(int) ->
          let res = ref 1 in
          letrec aux (m:int) :(unit) =
            if m <= 1 then () else (res := !res * m; aux (m - 1))
          in
          aux n;
          !res };";

    #[test]
    fn a_function_that_changes_a_captured_cell_is_read_through_its_summary() {
        let (relation, outcome) = proved(FACT, FACT_STATE);
        assert!(matches!(outcome, Outcome::Proved { .. }), "{outcome:?}");
        let (outcome, text) = certify(
            &library(FACT),
            &library(FACT_STATE),
            &relation,
            Budget::default(),
            &place,
        );
        assert!(matches!(outcome, Outcome::Proved { .. }), "{outcome:?}");
        assert!(
            text.unwrap_or_default()
                .contains("leaves its summary's values"),
            "the summary's obligations are in the certificate"
        );
        for wrong in [
            FACT_STATE.replace("!res * m;", "!res * m + 1;"),
            FACT_STATE.replace("if m <= 1", "if m <= 2"),
            // As Hobbit's file reads: `aux` calls itself on every path and never ends.
            FACT_STATE.replace(
                "else (res := !res * m; aux (m - 1))",
                "else res := !res * m; aux (m - 1)",
            ),
        ] {
            let outcome = proved(FACT, &wrong).1;
            assert!(!matches!(outcome, Outcome::Proved { .. }), "{wrong}");
        }
    }

    /// A loop that changes its cells without a move, whose values are then overwritten,
    /// before a loop that calls the client, against that loop alone (Hobbit's
    /// `reve-square-twice`).
    const TWICE: &str = "import sync :(unit -> unit)
        public start (_:unit) :(int -> int) = {
          fun (n:int) :(int) ->
            let r = ref 0 in
            let i = ref n in
            letrec first (_:unit) :(unit) =
              if !i > 0 then (r := !r + n; i := !i - 1; first ()) else ()
            in
            first ();
            r := 0;
            i := n;
            (letrec second (_:unit) :(unit) =
               sync ();
               if !i > 0 then (r := !r + n; i := !i - 1; second ()) else ()
             in
             second ();
             !r) };";
    const ONCE: &str = "import sync :(unit -> unit)
        public start (_:unit) :(int -> int) = {
          fun (n:int) :(int) ->
            let r = ref 0 in
            let i = ref n in
            letrec second (_:unit) :(unit) =
              sync ();
              if !i > 0 then (r := !r + n; i := !i - 1; second ()) else ()
            in
            second ();
            !r };";

    #[test]
    fn a_loop_over_cells_is_summarised_before_loops_in_lockstep() {
        let outcome = proved(TWICE, ONCE).1;
        assert!(matches!(outcome, Outcome::Proved { .. }), "{outcome:?}");
        for wrong in [
            // The first loop never ends for n > 0.
            TWICE.replace("i := !i - 1; first", "i := !i + 1; first"),
            TWICE.replace("r := 0;", "r := 1;"),
        ] {
            let outcome = proved(&wrong, ONCE).1;
            assert!(!matches!(outcome, Outcome::Proved { .. }), "{wrong}");
        }
    }

    /// Sums `0..=n` from 0 and `1..=n` from 1, calling the client from the round of 1 on
    /// (Hobbit's `reve-barthe2`): in lockstep once the left's first round is unfolded.
    const FROM_ZERO: &str = "import sync :(unit -> unit)
        public start (_:unit) :(int -> int) = {
          fun (n:int) :(int) ->
            let i = ref 0 in
            let x = ref 0 in
            letrec go (_:unit) :(unit) =
              if !i <= n then ((if !i > 0 then sync () else ()); x := !x + !i; i := !i + 1; go ())
              else ()
            in
            go ();
            !x };";

    #[test]
    fn a_loop_whose_first_round_differs_is_unfolded_once_before_lockstep() {
        // The relation `i = i` holds at every move but not where the loops never ran
        // (n < 0): there the objects are unreachable at the return.
        let from_one = FROM_ZERO.replace("let i = ref 0", "let i = ref 1");
        let outcome = proved(FROM_ZERO, &from_one).1;
        assert!(matches!(outcome, Outcome::Proved { .. }), "{outcome:?}");
        for wrong in [
            from_one.replace("!i <= n", "!i < n"),
            from_one.replace("x := !x + !i;", "x := !x + !i + 1;"),
            // Starting at 2, the right calls the client once less.
            FROM_ZERO.replace("let i = ref 0", "let i = ref 2"),
        ] {
            let outcome = proved(FROM_ZERO, &wrong).1;
            assert!(!matches!(outcome, Outcome::Proved { .. }), "{wrong}");
        }
    }

    /// Sums `5·i + c` by computing it afresh and by a cell that goes up by 5 (Hobbit's
    /// `reve-barthe-finite`): the right's `j = 5·i + c` is a fact of one object.
    const AFRESH: &str = "import sync :(unit -> unit)
        public start (_:unit) :(int -> int) = {
          fun (m:int) :(int) ->
            let c = 500 in
            let i = ref 0 in
            let j = ref 0 in
            let x = ref 0 in
            letrec go (_:unit) :(unit) =
              if !i < 1000 then (sync (); j := 5 * !i + c; x := !x + !j; i := !i + 1; go ())
              else ()
            in
            go ();
            !x };";
    const STEPPED: &str = "import sync :(unit -> unit)
        public start (_:unit) :(int -> int) = {
          fun (m:int) :(int) ->
            let c = 500 in
            let i = ref 0 in
            let j = ref c in
            let x = ref 0 in
            letrec go (_:unit) :(unit) =
              if !i < 1000 then (sync (); x := !x + !j; j := !j + 5; i := !i + 1; go ())
              else ()
            in
            go ();
            !x };";

    #[test]
    fn two_cells_that_step_in_proportion_are_related() {
        let outcome = proved(AFRESH, STEPPED).1;
        assert!(matches!(outcome, Outcome::Proved { .. }), "{outcome:?}");
        for wrong in [
            STEPPED.replace("j := !j + 5", "j := !j + 6"),
            STEPPED.replace("let j = ref c", "let j = ref (c + 1)"),
        ] {
            let outcome = proved(AFRESH, &wrong).1;
            assert!(!matches!(outcome, Outcome::Proved { .. }), "{wrong}");
        }
    }
}
