//! Checking a proof of safety for every k and l (`lang/proofs.md`, issue 15).
//!
//! A proof is an invariant `I`: linear facts about the library's integer references
//! that hold at every client turn. This module checks one, on its own: it depends on
//! the built library and Z3, not on the game search, its memo or its prunings, so a
//! bug there cannot make it accept a wrong proof.
//!
//! The argument (`lang/proofs.md` §1). When all the library keeps between two client
//! turns is in its references, a client turn changes them to *some* values that satisfy
//! `I` (if `I` holds at every turn), and the library's next step depends only on those
//! values. Every segment of library code between two client turns starts at a public
//! method's entry or at the return of a call to a client function. So it suffices
//! that `I` holds initially and that each public method, run from any store satisfying
//! `I` on any argument, with every call to a client function read as "`I` holds here;
//! then the references take any values satisfying `I` and the result is any value",
//! fails no `assert`, divides by no zero, and leaves `I` holding at each client turn
//! and at its return. By induction on the length of a run, no run of any client,
//! at any k and l, then reaches a failure.
//!
//! The checker evaluates each public method symbolically along every path, inlining
//! the library's own calls, and discharges each obligation with one Z3 query whose
//! negation must be unsatisfiable. It answers "not covered" for what the argument
//! does not cover (a library function reaching the client, which could call it from a
//! state the argument does not track; a reference holding anything but an integer;
//! nonlinear arithmetic; recursion or paths beyond its budget; paths that get stuck)
//! and never turns Z3's `unknown` into a proof.

use crate::build::{Initial, Library};
use crate::symbolic::ir::{CodeId, Expr, ExprKind, GlobalName, MethodId, RefId, TypeId, TypeNode};
use crate::syntax::ast::{BinOp, Span, Visibility};
use num_bigint::BigInt;
use num_traits::{One, Signed};
use std::fmt;
use std::rc::Rc;
use std::time::Instant;
use z3::ast::{Ast, Bool, Int};
use z3::SatResult;

/// `Σ coefficient · reference ≥ constant`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fact {
    pub terms: Vec<(RefId, BigInt)>,
    pub constant: BigInt,
}

impl Fact {
    /// `r ≥ c`.
    pub fn at_least(r: RefId, c: impl Into<BigInt>) -> Fact {
        Fact {
            terms: vec![(r, BigInt::one())],
            constant: c.into(),
        }
    }

    /// `r ≤ c`.
    pub fn at_most(r: RefId, c: impl Into<BigInt>) -> Fact {
        Fact {
            terms: vec![(r, -BigInt::one())],
            constant: -c.into(),
        }
    }

    fn holds(&self, store: &[Int]) -> Bool {
        let sum = self
            .terms
            .iter()
            .map(|(r, c)| Int::mul(&[&store[*r as usize], &int(c)]))
            .fold(Int::from_i64(0), |a, b| Int::add(&[&a, &b]));
        sum.ge(int(&self.constant))
    }

    /// The fact in the library's names, as a person would write it.
    pub fn display<'a>(&'a self, lib: &'a Library) -> FactDisplay<'a> {
        FactDisplay { fact: self, lib }
    }
}

pub struct FactDisplay<'a> {
    fact: &'a Fact,
    lib: &'a Library,
}

impl fmt::Display for FactDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = |r: RefId| self.lib.refs[r as usize].as_str();
        match self.fact.terms.as_slice() {
            [(r, c)] if c.is_one() => write!(f, "{} ≥ {}", name(*r), self.fact.constant),
            [(r, c)] if (-c).is_one() => write!(f, "{} ≤ {}", name(*r), -&self.fact.constant),
            terms => {
                for (i, (r, c)) in terms.iter().enumerate() {
                    let sign = if c.is_negative() { "-" } else { "+" };
                    if i > 0 || c.is_negative() {
                        write!(f, "{}{sign} ", if i > 0 { " " } else { "" })?;
                    }
                    if !c.abs().is_one() {
                        write!(f, "{}·", c.abs())?;
                    }
                    write!(f, "{}", name(*r))?;
                }
                write!(f, " ≥ {}", self.fact.constant)
            }
        }
    }
}

/// What must hold, where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Obligation {
    /// The initial store satisfies the invariant.
    Initially,
    /// The `assert` at this place holds.
    Assert(Span),
    /// The divisor of the division at this place is not zero.
    Division(Span),
    /// The invariant holds when the method named calls the client at this place.
    BeforeClientCall(String, Span),
    /// The invariant holds when the method named returns.
    AtReturn(String),
}

impl Obligation {
    /// The obligation in words, with places written by `place`.
    pub fn describe(&self, place: &dyn Fn(&Span) -> String) -> String {
        match self {
            Obligation::Initially => "the initial store satisfies the invariant".to_string(),
            Obligation::Assert(s) => format!("the assert at {} holds", place(s)),
            Obligation::Division(s) => format!("the divisor at {} is not zero", place(s)),
            Obligation::BeforeClientCall(m, s) => format!(
                "the invariant holds when `{m}` calls the client at {}",
                place(s)
            ),
            Obligation::AtReturn(m) => format!("the invariant holds when `{m}` returns"),
        }
    }
}

impl fmt::Display for Obligation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bytes = |s: &Span| format!("bytes {}..{}", s.start, s.end);
        write!(f, "{}", self.describe(&bytes))
    }
}

/// The checker's answer.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every obligation was discharged: safe for every k and l.
    Proved { obligations: usize },
    /// This obligation does not follow from the invariant (it may still hold: the
    /// invariant may be too weak).
    Refuted(Obligation),
    /// The argument does not apply to this library (why).
    NotCovered(String),
    /// Z3 could not decide an obligation, or the deadline passed.
    Unknown(String),
}

/// How far the checker goes before it gives up.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Evaluation steps over all methods.
    pub steps: u64,
    /// Nested calls of the library's own functions on one path.
    pub depth: u32,
    pub deadline: Option<Instant>,
}

impl Budget {
    /// More effort (`holi check --prove`).
    pub fn thorough() -> Budget {
        Budget {
            steps: 50_000_000,
            depth: 256,
            deadline: None,
        }
    }
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            steps: 1_000_000,
            depth: 32,
            deadline: None,
        }
    }
}

/// Checks that `invariant` proves `lib` safe for every k and l.
pub fn check(lib: &Library, invariant: &[Fact], budget: Budget) -> Outcome {
    let mut checker = Checker::new(lib, invariant, budget, None);
    match checker.run() {
        Ok(()) => Outcome::Proved {
            obligations: checker.obligations,
        },
        Err(Stop::Refuted(o)) => Outcome::Refuted(o),
        Err(Stop::NotCovered(why)) => Outcome::NotCovered(why),
        Err(Stop::Unknown(why)) => Outcome::Unknown(why),
    }
}

/// Searches for an invariant among `candidates` that proves `lib` safe for every k
/// and l (the Houdini algorithm): the checker runs with all of them, drops every fact
/// some invariant obligation does not meet, and runs again, until none is dropped.
/// What is left is the strongest inductive conjunction of candidates; if an `assert`
/// fails even under it, it fails under any other. The invariant found is then checked
/// afresh by [`check`], whose answer is returned with it.
pub fn find(lib: &Library, candidates: &[Fact], budget: Budget) -> (Vec<Fact>, Outcome) {
    let mut facts = candidates.to_vec();
    loop {
        let broken = Some(vec![false; facts.len()]);
        let mut checker = Checker::new(lib, &facts, budget, broken);
        let run = checker.run();
        let broken = checker.broken.take().unwrap_or_default();
        match run {
            Err(Stop::Refuted(o)) => return (facts, Outcome::Refuted(o)),
            Err(Stop::NotCovered(why)) => return (facts, Outcome::NotCovered(why)),
            Err(Stop::Unknown(why)) => return (facts, Outcome::Unknown(why)),
            Ok(()) if !broken.contains(&true) => {
                let outcome = check(lib, &facts, budget);
                return (facts, outcome);
            }
            Ok(()) => {
                let mut i = 0;
                facts.retain(|_| {
                    i += 1;
                    !broken[i - 1]
                });
            }
        }
    }
}

/// Candidate facts for [`find`]: each integer reference at least, or at most, its
/// initial value and zero.
pub fn candidates(lib: &Library) -> Vec<Fact> {
    let mut facts = Vec::new();
    for (r, initial) in lib.store.iter().enumerate() {
        if let Initial::Int(v) = initial {
            let r = r as RefId;
            for bound in [v.clone(), BigInt::from(0)] {
                for fact in [Fact::at_least(r, bound.clone()), Fact::at_most(r, bound)] {
                    if !facts.contains(&fact) {
                        facts.push(fact);
                    }
                }
            }
        }
    }
    facts
}

enum Stop {
    Refuted(Obligation),
    NotCovered(String),
    Unknown(String),
}

fn not_covered<T>(why: impl Into<String>) -> Result<T, Stop> {
    Err(Stop::NotCovered(why.into()))
}

#[derive(Clone, Debug)]
enum Val {
    Int(Int),
    Unit,
    Pair(Rc<Val>, Rc<Val>),
    Closure(CodeId, Env),
    Method(MethodId),
    /// A function of the client's (an import, or a function the client passed), of
    /// this type.
    Client(TypeId),
}

/// Local variables, innermost first (de Bruijn indices).
type Env = imbl::Vector<Val>;

/// One path: its condition and the store.
#[derive(Clone)]
struct Path {
    condition: Vec<Bool>,
    store: Vec<Int>,
}

struct Checker<'l> {
    lib: &'l Library,
    invariant: &'l [Fact],
    budget: Budget,
    steps: u64,
    obligations: usize,
    solver: z3::Solver,
    symbols: u64,
    /// The public method being checked, for obligations.
    method: String,
    /// When searching for an invariant ([`find`]): which facts some invariant
    /// obligation showed not to hold, instead of stopping at the first.
    broken: Option<Vec<bool>>,
}

impl<'l> Checker<'l> {
    fn new(
        lib: &'l Library,
        invariant: &'l [Fact],
        budget: Budget,
        broken: Option<Vec<bool>>,
    ) -> Checker<'l> {
        Checker {
            lib,
            invariant,
            budget,
            steps: 0,
            obligations: 0,
            solver: z3::Solver::new(),
            symbols: 0,
            method: String::new(),
            broken,
        }
    }

    fn run(&mut self) -> Result<(), Stop> {
        if self.lib.uses_refs {
            return not_covered("the library uses ML-like references");
        }
        let mut initial = Vec::new();
        for (r, value) in self.lib.store.iter().enumerate() {
            match value {
                Initial::Int(v) => initial.push(int(v)),
                Initial::Absent => {
                    return not_covered(format!(
                        "the reference `{}` is never declared",
                        self.lib.refs[r]
                    ))
                }
                Initial::Unit | Initial::Pair(..) | Initial::Loc(_) => {
                    return not_covered("a reference holds a location")
                }
                Initial::Name(_) => {
                    return not_covered(format!(
                        "the reference `{}` holds a function",
                        self.lib.refs[r]
                    ))
                }
            }
        }
        if self.lib.may_get_stuck {
            return not_covered("some paths may get stuck");
        }
        let start = Path {
            condition: Vec::new(),
            store: initial,
        };
        self.keeps_invariant(&start, Obligation::Initially)?;
        for &m in &self.lib.public {
            let method = &self.lib.methods[m as usize];
            self.method = method.name.clone();
            let code = self.lib.code(method.code);
            let mut path = Path {
                condition: Vec::new(),
                store: Vec::new(),
            };
            self.havoc(&mut path);
            let arg = self.fresh(code.param_ty);
            for (path, result) in self.eval(path, &code.body, Env::unit(arg), 0)? {
                self.reaches_client(&result)?;
                self.keeps_invariant(&path, Obligation::AtReturn(self.method.clone()))?;
            }
        }
        Ok(())
    }

    fn holds(&self, store: &[Int]) -> Bool {
        let facts: Vec<Bool> = self.invariant.iter().map(|f| f.holds(store)).collect();
        Bool::and(&facts)
    }

    /// New values for every reference, satisfying the invariant: a client turn.
    fn havoc(&mut self, path: &mut Path) {
        path.store = (0..self.lib.refs.len()).map(|_| self.symbol()).collect();
        path.condition.push(self.holds(&path.store));
    }

    fn symbol(&mut self) -> Int {
        self.symbols += 1;
        Int::new_const(format!("v{}", self.symbols))
    }

    /// Any value of type `ty`, as the client may give it.
    fn fresh(&mut self, ty: TypeId) -> Val {
        match self.lib.types.node(ty) {
            TypeNode::Unit => Val::Unit,
            TypeNode::Int => Val::Int(self.symbol()),
            TypeNode::Pair(a, b) => Val::Pair(Rc::new(self.fresh(a)), Rc::new(self.fresh(b))),
            TypeNode::Arrow(..) => Val::Client(ty),
            // Refused before any evaluation ([`Library::uses_refs`]).
            TypeNode::Ref(_) => Val::Unit,
        }
    }

    /// Whether `condition` can hold on `path`; `true` when Z3 cannot tell (a branch
    /// too many only adds obligations).
    fn feasible(&self, path: &Path, condition: &Bool) -> bool {
        self.solver.push();
        for c in &path.condition {
            self.solver.assert(c);
        }
        self.solver.assert(condition);
        let answer = self.solver.check();
        self.solver.pop(1);
        answer != SatResult::Unsat
    }

    /// Discharges `goal` on `path`: its negation must be unsatisfiable.
    fn prove(&mut self, path: &Path, goal: Bool, what: Obligation) -> Result<(), Stop> {
        self.obligations += 1;
        self.solver.push();
        for c in &path.condition {
            self.solver.assert(c);
        }
        self.solver.assert(goal.not());
        let answer = self.solver.check();
        self.solver.pop(1);
        match answer {
            SatResult::Unsat => Ok(()),
            SatResult::Sat => Err(Stop::Refuted(what)),
            SatResult::Unknown => Err(Stop::Unknown(format!("Z3 could not decide whether {what}"))),
        }
    }

    /// The invariant holds on `path`; when searching for one, the facts that do not
    /// are marked broken instead.
    fn keeps_invariant(&mut self, path: &Path, what: Obligation) -> Result<(), Stop> {
        let Some(mut broken) = self.broken.take() else {
            let holds = self.holds(&path.store);
            return self.prove(path, holds, what);
        };
        let mut result = Ok(());
        for (i, fact) in self.invariant.iter().enumerate() {
            if broken[i] {
                continue;
            }
            match self.prove(path, fact.holds(&path.store), what.clone()) {
                Ok(()) => {}
                Err(Stop::Refuted(_)) => broken[i] = true,
                Err(stop) => {
                    result = Err(stop);
                    break;
                }
            }
        }
        self.broken = Some(broken);
        result
    }

    /// A library function in `v` would reach the client, which could then call it in
    /// a state the argument does not track (or, for a private method, at all).
    fn reaches_client(&self, v: &Val) -> Result<(), Stop> {
        match v {
            Val::Int(_) | Val::Unit | Val::Client(_) => Ok(()),
            Val::Pair(a, b) => {
                self.reaches_client(a)?;
                self.reaches_client(b)
            }
            Val::Method(m) if self.lib.methods[*m as usize].visibility == Visibility::Public => {
                Ok(())
            }
            Val::Method(m) => not_covered(format!(
                "the private method `{}` reaches the client",
                self.lib.methods[*m as usize].name
            )),
            Val::Closure(..) => not_covered("a function of the library reaches the client"),
        }
    }

    fn tick(&mut self) -> Result<(), Stop> {
        self.steps += 1;
        if self.steps > self.budget.steps {
            return not_covered("the methods have too many paths for the checker's budget");
        }
        if self.steps.is_multiple_of(1024)
            && self.budget.deadline.is_some_and(|d| Instant::now() >= d)
        {
            return Err(Stop::Unknown("the time limit ran out".to_string()));
        }
        Ok(())
    }

    /// Every way `e` can evaluate on `path`: the path after it and the value.
    fn eval(
        &mut self,
        path: Path,
        e: &Expr,
        env: Env,
        depth: u32,
    ) -> Result<Vec<(Path, Val)>, Stop> {
        self.tick()?;
        Ok(match &e.kind {
            ExprKind::Local(i) => match env.get(*i as usize) {
                Some(v) => vec![(path, v.clone())],
                None => return not_covered("an unbound variable"),
            },
            ExprKind::Global(GlobalName::Method(m)) => vec![(path, Val::Method(*m))],
            ExprKind::Global(GlobalName::Import(i)) => {
                vec![(path, Val::Client(self.lib.imports[*i as usize].ty))]
            }
            ExprKind::Global(GlobalName::Undeclared(_)) => {
                return not_covered("an undeclared name")
            }
            ExprKind::Int(n) => vec![(path, Val::Int(int(n)))],
            ExprKind::Unit => vec![(path, Val::Unit)],
            ExprKind::Deref(r) => {
                let v = Val::Int(path.store[*r as usize].clone());
                vec![(path, v)]
            }
            ExprKind::Assign(r, rhs) => {
                let mut out = Vec::new();
                for (mut path, v) in self.eval(path, rhs, env, depth)? {
                    let Val::Int(v) = v else {
                        return not_covered(format!(
                            "the reference `{}` is assigned a value that is not an integer",
                            self.lib.refs[*r as usize]
                        ));
                    };
                    path.store[*r as usize] = v;
                    out.push((path, Val::Unit));
                }
                out
            }
            ExprKind::App(f, a) => {
                let mut out = Vec::new();
                for (path, fv) in self.eval(path, f, env.clone(), depth)? {
                    for (path, av) in self.eval(path, a, env.clone(), depth)? {
                        out.extend(self.apply(path, fv.clone(), av, e, depth)?);
                    }
                }
                out
            }
            ExprKind::Pair(a, b) => {
                let mut out = Vec::new();
                for (path, av) in self.eval(path, a, env.clone(), depth)? {
                    for (path, bv) in self.eval(path, b, env.clone(), depth)? {
                        out.push((path, Val::Pair(Rc::new(av.clone()), Rc::new(bv))));
                    }
                }
                out
            }
            ExprKind::Fst(a) | ExprKind::Snd(a) => {
                let first = matches!(e.kind, ExprKind::Fst(_));
                let mut out = Vec::new();
                for (path, v) in self.eval(path, a, env, depth)? {
                    let Val::Pair(x, y) = v else {
                        return not_covered("a projection of something not a pair");
                    };
                    out.push((path, if first { (*x).clone() } else { (*y).clone() }));
                }
                out
            }
            ExprKind::Not(a) => {
                let mut out = Vec::new();
                for (path, v) in self.eval(path, a, env, depth)? {
                    let x = integer(v)?;
                    let zero = Int::from_i64(0);
                    out.push((path, Val::Int(x.eq(&zero).ite(&Int::from_i64(1), &zero))));
                }
                out
            }
            ExprKind::Binary(op, a, b) => {
                let mut out = Vec::new();
                for (path, av) in self.eval(path, a, env.clone(), depth)? {
                    for (path, bv) in self.eval(path, b, env.clone(), depth)? {
                        let (x, y) = (integer(av.clone())?, integer(bv)?);
                        out.extend(self.binary(path, *op, x, y, &e.span)?);
                    }
                }
                out
            }
            ExprKind::Seq(a, b) => {
                let mut out = Vec::new();
                for (path, _) in self.eval(path, a, env.clone(), depth)? {
                    out.extend(self.eval(path, b, env.clone(), depth)?);
                }
                out
            }
            ExprKind::If(c, t, f) => {
                let mut out = Vec::new();
                for (path, cv) in self.eval(path, c, env.clone(), depth)? {
                    let truth = integer(cv)?.eq(Int::from_i64(0)).not();
                    for (branch, holds) in [(t, truth.clone()), (f, truth.not())] {
                        if self.feasible(&path, &holds) {
                            let mut path = path.clone();
                            path.condition.push(holds);
                            out.extend(self.eval(path, branch, env.clone(), depth)?);
                        }
                    }
                }
                out
            }
            ExprKind::Let(rhs, body) => {
                let mut out = Vec::new();
                for (path, v) in self.eval(path, rhs, env.clone(), depth)? {
                    let mut inner = env.clone();
                    inner.push_front(v);
                    out.extend(self.eval(path, body, inner, depth)?);
                }
                out
            }
            ExprKind::LetRec(code, body) => {
                let mut inner = env.clone();
                inner.push_front(Val::Closure(*code, env));
                self.eval(path, body, inner, depth)?
            }
            ExprKind::Lambda(code) => vec![(path, Val::Closure(*code, env))],
            ExprKind::Assert(a) => {
                let mut out = Vec::new();
                for (path, v) in self.eval(path, a, env, depth)? {
                    let holds = integer(v)?.eq(Int::from_i64(0)).not();
                    self.prove(&path, holds.clone(), Obligation::Assert(e.span.clone()))?;
                    let mut path = path;
                    path.condition.push(holds);
                    out.push((path, Val::Unit));
                }
                out
            }
            // Refused in `run`, before any evaluation.
            ExprKind::Alloc(..) | ExprKind::Load(_) | ExprKind::Store(..) => {
                return not_covered("the library uses ML-like references")
            }
        })
    }

    fn binary(
        &mut self,
        mut path: Path,
        op: BinOp,
        x: Int,
        y: Int,
        at: &Span,
    ) -> Result<Vec<(Path, Val)>, Stop> {
        let one = Int::from_i64(1);
        let zero = Int::from_i64(0);
        let truth = |b: Bool| b.ite(&one, &zero);
        let constant = |v: &Int| v.simplify().as_i64().is_some();
        let v = match op {
            BinOp::Add => Int::add(&[&x, &y]),
            BinOp::Sub => Int::sub(&[&x, &y]),
            BinOp::Mul if !constant(&x) && !constant(&y) => {
                return not_covered("nonlinear arithmetic")
            }
            BinOp::Mul => Int::mul(&[&x, &y]),
            BinOp::Div => {
                let nonzero = y.eq(&zero).not();
                self.prove(&path, nonzero.clone(), Obligation::Division(at.clone()))?;
                if !constant(&y) {
                    return not_covered("nonlinear arithmetic (a division by a variable)");
                }
                path.condition.push(nonzero);
                // HOLi truncates toward zero; Z3's `div` keeps the remainder non-negative.
                let positive = x.div(&y);
                let negative = x.unary_minus().div(&y).unary_minus();
                x.ge(&zero).ite(&positive, &negative)
            }
            BinOp::Lt => truth(x.lt(&y)),
            BinOp::Gt => truth(x.gt(&y)),
            BinOp::Le => truth(x.le(&y)),
            BinOp::Ge => truth(x.ge(&y)),
            BinOp::Eq => truth(x.eq(&y)),
            BinOp::And => truth(Bool::and(&[x.eq(&zero).not(), y.eq(&zero).not()])),
            BinOp::Or => truth(Bool::or(&[x.eq(&zero).not(), y.eq(&zero).not()])),
        };
        Ok(vec![(path, Val::Int(v))])
    }

    fn apply(
        &mut self,
        mut path: Path,
        f: Val,
        arg: Val,
        at: &Expr,
        depth: u32,
    ) -> Result<Vec<(Path, Val)>, Stop> {
        if depth >= self.budget.depth {
            return not_covered("recursion deeper than the checker's budget");
        }
        match f {
            Val::Method(m) => {
                let code = self.lib.code(self.lib.methods[m as usize].code);
                self.eval(path, &code.body, Env::unit(arg), depth + 1)
            }
            Val::Closure(code_id, env) => {
                let code = self.lib.code(code_id);
                let mut inner = env.clone();
                if code.recursive {
                    inner.push_front(Val::Closure(code_id, env));
                }
                inner.push_front(arg);
                self.eval(path, &code.body, inner, depth + 1)
            }
            Val::Client(ty) => {
                // A client turn: the invariant must hold, then anything it allows.
                self.reaches_client(&arg)?;
                let what = Obligation::BeforeClientCall(self.method.clone(), at.span.clone());
                self.keeps_invariant(&path, what)?;
                self.havoc(&mut path);
                let Some((_, ret)) = self.lib.types.arrow(ty) else {
                    return not_covered("a client value applied that is not a function");
                };
                let result = self.fresh(ret);
                Ok(vec![(path, result)])
            }
            Val::Int(_) | Val::Unit | Val::Pair(..) => {
                not_covered("an application of a non-function")
            }
        }
    }
}

fn integer(v: Val) -> Result<Int, Stop> {
    match v {
        Val::Int(x) => Ok(x),
        _ => not_covered("arithmetic on something not an integer"),
    }
}

fn int(n: &BigInt) -> Int {
    crate::symbolic::solver::int_const(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn library(source: &str) -> Library {
        let loaded = crate::frontend::load_str("t.holi", source, false)
            .unwrap_or_else(|r| panic!("{}", r.render(false)));
        crate::build::build(&loaded.program)
    }

    const DAO_FIXED: &str = "import send :(int -> unit)
        int balance := 100;
        public withdraw (m:int) :(unit) = {
          if not (!balance < m) then
            balance := !balance - m;
            send m;
            assert (not (!balance < 0))
          else ()
        };";

    const DAO: &str = "import send :(int -> unit)
        int balance := 100;
        public withdraw (m:int) :(unit) = {
          if not (!balance < m) then
            send m;
            balance := !balance - m;
            assert (not (!balance < 0))
          else ()
        };";

    #[test]
    fn the_fixed_dao_is_proved_with_a_non_negative_balance() {
        let lib = library(DAO_FIXED);
        let balance = lib.reference("balance").unwrap();
        let outcome = check(&lib, &[Fact::at_least(balance, 0)], Budget::default());
        assert!(
            matches!(outcome, Outcome::Proved { obligations } if obligations >= 4),
            "{outcome:?}"
        );
        assert_eq!(
            Fact::at_least(balance, 0).display(&lib).to_string(),
            "balance ≥ 0"
        );
    }

    #[test]
    fn houdini_finds_the_invariant_of_the_fixed_dao_and_none_for_the_dao() {
        let lib = library(DAO_FIXED);
        let (facts, outcome) = find(&lib, &candidates(&lib), Budget::default());
        assert!(matches!(outcome, Outcome::Proved { .. }), "{outcome:?}");
        let shown: Vec<String> = facts.iter().map(|f| f.display(&lib).to_string()).collect();
        // A negative withdrawal raises the balance past 100.
        assert_eq!(shown, ["balance ≥ 0"]);
        let lib = library(DAO);
        let (_, outcome) = find(&lib, &candidates(&lib), Budget::default());
        assert!(
            matches!(outcome, Outcome::Refuted(Obligation::Assert(_))),
            "{outcome:?}"
        );
    }

    #[test]
    fn a_too_weak_invariant_proves_nothing() {
        let lib = library(DAO_FIXED);
        assert!(matches!(
            check(&lib, &[], Budget::default()),
            Outcome::Refuted(Obligation::Assert(_))
        ));
    }

    #[test]
    fn the_reentrant_dao_is_never_proved() {
        let lib = library(DAO);
        let balance = lib.reference("balance").unwrap();
        for invariant in [
            vec![],
            vec![Fact::at_least(balance, 0)],
            vec![Fact::at_most(balance, 100)],
        ] {
            let outcome = check(&lib, &invariant, Budget::default());
            assert!(
                matches!(outcome, Outcome::Refuted(_)),
                "{invariant:?}: {outcome:?}"
            );
        }
    }

    #[test]
    fn an_invariant_the_initial_store_breaks_is_refuted() {
        let lib = library(DAO_FIXED);
        let balance = lib.reference("balance").unwrap();
        assert_eq!(
            check(&lib, &[Fact::at_least(balance, 101)], Budget::default()),
            Outcome::Refuted(Obligation::Initially)
        );
    }

    #[test]
    fn what_the_argument_does_not_cover_is_said() {
        let cases = [
            ("public m (x:int) :(int) = { x * x };", "nonlinear"),
            (
                "public m (u:unit) :(int -> int) = { fun (x:int) :(int) -> x };",
                "reaches the client",
            ),
            ("public m (u:unit) :(unit) = { sned 1 };", "stuck"),
        ];
        for (source, why) in cases {
            match check(&library(source), &[], Budget::default()) {
                Outcome::NotCovered(reason) => assert!(reason.contains(why), "{source}: {reason}"),
                other => panic!("{source}: {other:?}"),
            }
        }
    }

    #[test]
    fn libraries_with_references_are_not_covered() {
        let lib = library("public m (u:unit) :(int) = { let c = ref 0 in c := 1; !c };");
        assert!(lib.uses_refs);
        assert_eq!(
            check(&lib, &[], Budget::default()),
            Outcome::NotCovered("the library uses ML-like references".to_string())
        );
    }

    #[test]
    fn divisions_by_a_possible_zero_are_refuted() {
        let lib = library("int d := 1; public z (x:int) :(unit) = { d := x }; public m (x:int) :(int) = { 10 / !d };");
        let d = lib.reference("d").unwrap();
        assert!(matches!(
            check(&lib, &[], Budget::default()),
            Outcome::Refuted(Obligation::Division(_))
        ));
        assert!(matches!(
            check(&lib, &[Fact::at_least(d, 1)], Budget::default()),
            Outcome::Refuted(Obligation::AtReturn(_))
        ));
    }

    #[test]
    fn a_counter_that_never_goes_below_its_start_is_proved() {
        let lib = library(
            "int c := 0;
            public inc (u:unit) :(unit) = { c := !c + 1 };
            public check (u:unit) :(unit) = { assert (!c >= 0) };",
        );
        let c = lib.reference("c").unwrap();
        assert!(matches!(
            check(&lib, &[Fact::at_least(c, 0)], Budget::default()),
            Outcome::Proved { .. }
        ));
        let tight = library(
            "int c := 0;
            public dec (u:unit) :(unit) = { c := !c - 1 };
            public check (u:unit) :(unit) = { assert (!c >= 0) };",
        );
        let c = tight.reference("c").unwrap();
        assert!(matches!(
            check(&tight, &[Fact::at_least(c, 0)], Budget::default()),
            Outcome::Refuted(Obligation::AtReturn(_))
        ));
    }
}
