//! Checking a proof of safety for every k and l (`lang/proofs.md`, issue 15).
//!
//! A proof is a [`Certificate`]: an invariant `I`, linear facts about the library's
//! integer references that hold at every client turn, and a turn relation `R` (below).
//! This module checks one, on its own: it depends on
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
//! does not cover (more library functions reaching the client than it follows; a
//! reference holding anything but an integer; ML-like references; nonlinear
//! arithmetic; recursion or paths beyond its budget; paths that get stuck) and never
//! turns Z3's `unknown` into a proof.
//!
//! Two refinements make the argument reach further (`lang/proofs.md` §1):
//!
//! * **The turn relation.** Besides `I`, a certificate may give facts `R(s, s′)` between
//!   the store `s` when a client turn starts and `s′` when it ends ("`c` never
//!   decreases", "while `lock` is 0, `c` is unchanged"). HOLi has no control operators,
//!   so a client turn is a sequence of complete calls of functions the client can reach.
//!   If `R` holds from entry to return of every such call, from any store satisfying
//!   `I`, and is reflexive and transitive on stores satisfying `I`, then by induction on
//!   the nesting depth every client turn satisfies `R`: the checker reads each client
//!   call as "the references become any values satisfying `I` and `R(before, ·)`". The
//!   induction is well founded because a call's summary is used only for calls nested
//!   strictly inside it that have returned.
//! * **Functions that reach the client.** A library function (a closure, a private
//!   method) that reaches the client can be called by it at any later client turn, so
//!   the checker checks it like a public method: from any store satisfying `I`, on any
//!   argument, with its captured integers generalised to any values (captured functions
//!   are kept). Each function, told apart by its code and the shape of what it captured,
//!   is checked once; more than [`MAX_REVEALED`] of them is "not covered".

use crate::build::{Initial, Library};
use crate::symbolic::ir::{CodeId, Expr, ExprKind, GlobalName, MethodId, RefId, TypeId, TypeNode};
use crate::symbolic::solver::{no_ctrl_c, Alarm};
use crate::syntax::ast::{BinOp, Span, Visibility};
use num_bigint::BigInt;
use num_traits::{One, Signed};
use std::collections::HashSet;
use std::fmt;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
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

/// A fact of the turn relation: how the references when a client turn ends (`r′`)
/// relate to those when it starts (`r`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// `g = v ⇒ r′ = r`: while `g` holds `v`, no client turn changes `r`.
    KeptWhile {
        guard: RefId,
        value: BigInt,
        kept: RefId,
    },
    /// `r′ = r ∨ r′ = v`: a client turn leaves `r` alone or sets it to `v`.
    KeptOrSet { r: RefId, value: BigInt },
    /// `r′ ≥ r`.
    NeverDecreases(RefId),
    /// `r′ ≤ r`.
    NeverIncreases(RefId),
}

impl Step {
    fn holds(&self, before: &[Int], after: &[Int]) -> Bool {
        let b = |r: &RefId| &before[*r as usize];
        match self {
            Step::KeptWhile { guard, value, kept } => b(guard)
                .eq(int(value))
                .implies(after[*kept as usize].eq(b(kept))),
            Step::KeptOrSet { r, value } => {
                let now = &after[*r as usize];
                Bool::or(&[now.eq(b(r)), now.eq(int(value))])
            }
            Step::NeverDecreases(r) => after[*r as usize].ge(b(r)),
            Step::NeverIncreases(r) => after[*r as usize].le(b(r)),
        }
    }

    /// The fact in the library's names, `r′` for a reference after the turn.
    pub fn display<'a>(&'a self, lib: &'a Library) -> StepDisplay<'a> {
        StepDisplay { step: self, lib }
    }
}

pub struct StepDisplay<'a> {
    step: &'a Step,
    lib: &'a Library,
}

impl fmt::Display for StepDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = |r: &RefId| self.lib.refs[*r as usize].as_str();
        match self.step {
            Step::KeptWhile { guard, value, kept } => {
                let (g, r) = (name(guard), name(kept));
                write!(f, "while {g} = {value}, {r}′ = {r}")
            }
            Step::KeptOrSet { r, value } => {
                let r = name(r);
                write!(f, "{r}′ = {r} or {r}′ = {value}")
            }
            Step::NeverDecreases(r) => write!(f, "{}′ ≥ {}", name(r), name(r)),
            Step::NeverIncreases(r) => write!(f, "{}′ ≤ {}", name(r), name(r)),
        }
    }
}

/// What a proof consists of: the invariant `I` at client turns and the turn relation
/// `R` (empty: any change that keeps `I`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Certificate {
    pub invariant: Vec<Fact>,
    pub steps: Vec<Step>,
}

/// A function the client can call: a public method, or a library function that
/// reached it (`Function`, at the place of its code).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Callee {
    Method(String),
    Function(Span),
}

impl Callee {
    fn describe(&self, place: &dyn Fn(&Span) -> String) -> String {
        match self {
            Callee::Method(m) => format!("`{m}`"),
            Callee::Function(s) => format!("the function at {}", place(s)),
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
    /// The invariant holds when this function calls the client at this place.
    BeforeClientCall(Callee, Span),
    /// The invariant holds when this function returns.
    AtReturn(Callee),
    /// The turn relation holds from this function's entry to its return.
    StepAtReturn(Callee),
    /// The turn relation holds of a turn in which the client calls nothing.
    Reflexive,
    /// Two turns in a row satisfy the turn relation as one.
    Transitive,
}

impl Obligation {
    /// The obligation in words, with places written by `place`.
    pub fn describe(&self, place: &dyn Fn(&Span) -> String) -> String {
        match self {
            Obligation::Initially => "the initial store satisfies the invariant".to_string(),
            Obligation::Assert(s) => format!("the assert at {} holds", place(s)),
            Obligation::Division(s) => format!("the divisor at {} is not zero", place(s)),
            Obligation::BeforeClientCall(m, s) => format!(
                "the invariant holds when {} calls the client at {}",
                m.describe(place),
                place(s)
            ),
            Obligation::AtReturn(m) => {
                format!("the invariant holds when {} returns", m.describe(place))
            }
            Obligation::StepAtReturn(m) => format!(
                "the turn relation holds from the entry of {} to its return",
                m.describe(place)
            ),
            Obligation::Reflexive => {
                "the turn relation holds of a turn that changes nothing".to_string()
            }
            Obligation::Transitive => "the turn relation holds of two turns in a row".to_string(),
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
    /// Every obligation was discharged: safe for every k and l. `revealed`: the places of
    /// the library functions that reach the client, checked like methods.
    Proved {
        obligations: usize,
        revealed: Vec<Span>,
    },
    /// This obligation does not follow from the invariant (it may still hold: the
    /// invariant may be too weak).
    Refuted(Obligation),
    /// The argument does not apply to this library (why).
    NotCovered(String),
    /// Z3 could not decide an obligation, or the deadline passed.
    Unknown(String),
}

/// Why the checker stopped, when a limit stopped it ([`Outcome::Unknown`]).
pub const TIME_LIMIT: &str = "the time limit ran out";
pub const INTERRUPTED: &str = "interrupted";

/// How far the checker goes before it gives up.
#[derive(Clone, Debug)]
pub struct Budget {
    /// Evaluation steps over all methods.
    pub steps: u64,
    /// Nested calls of the library's own functions on one path.
    pub depth: u32,
    pub deadline: Option<Instant>,
    /// Set to stop the checker (Ctrl-C, the memory limit): within a fraction of a
    /// second it answers [`Outcome::Unknown`], as it does at the deadline.
    pub interrupt: Option<Arc<AtomicBool>>,
}

impl Budget {
    /// More effort (`holi check --prove`).
    pub fn thorough() -> Budget {
        Budget {
            steps: 50_000_000,
            depth: 256,
            deadline: None,
            interrupt: None,
        }
    }
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            steps: 1_000_000,
            depth: 32,
            deadline: None,
            interrupt: None,
        }
    }
}

/// Checks that `certificate` proves `lib` safe for every k and l.
pub fn check(lib: &Library, certificate: &Certificate, budget: Budget) -> Outcome {
    Checker::new(lib, certificate, budget, false).outcome()
}

/// [`check`], and when it proves: every obligation as an SMT-LIB query that must be
/// unsatisfiable, so that the proof can be checked again outside holi (`z3 FILE`
/// answers `unsat` to each `check-sat`). `place` writes the places in the comments.
pub fn certify(
    lib: &Library,
    certificate: &Certificate,
    budget: Budget,
    place: &dyn Fn(&Span) -> String,
) -> (Outcome, Option<String>) {
    let mut checker = Checker::new(lib, certificate, budget, false);
    checker.smtlib = Some(Vec::new());
    let outcome = checker.outcome();
    let queries = checker.smtlib.take().unwrap_or_default();
    if !matches!(outcome, Outcome::Proved { .. }) {
        return (outcome, None);
    }
    let mut text = String::from(
        "; A proof of safety for every k and l, written by holi's proof checker\n\
         ; (lang/proofs.md). Each obligation below is one query: its path condition\n\
         ; and the negation of what must hold. Every (check-sat) must answer unsat.\n",
    );
    for fact in &certificate.invariant {
        text.push_str(&format!("; invariant: {}\n", fact.display(lib)));
    }
    for step in &certificate.steps {
        text.push_str(&format!("; turn relation: {}\n", step.display(lib)));
    }
    for (i, (what, query)) in queries.iter().enumerate() {
        text.push_str(&format!(
            "\n; obligation {}: {}\n(push 1)\n{query}(check-sat)\n(pop 1)\n",
            i + 1,
            what.describe(place)
        ));
    }
    (outcome, Some(text))
}

/// Searches for a certificate among `candidates` that proves `lib` safe for every k
/// and l (the Houdini algorithm): the checker runs with all of them, drops every fact
/// some obligation of the invariant or of the turn relation does not meet, and runs
/// again, until none is dropped. What is left is the strongest inductive conjunction
/// of candidates; if an `assert` fails even under it, it fails under any other. The
/// certificate found is then checked afresh by [`check`], whose answer is returned with
/// it.
pub fn find(lib: &Library, candidates: &Certificate, budget: Budget) -> (Certificate, Outcome) {
    find_marking(lib, candidates, budget, Marking::Together)
}

/// How [`Checker::mark_broken`] finds the goals that do not hold on a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Marking {
    /// Those still standing together, Houdini's shortcut.
    Together,
    /// One query per goal: the plain algorithm, which the tests compare it with.
    #[cfg(test)]
    OneByOne,
}

fn find_marking(
    lib: &Library,
    candidates: &Certificate,
    budget: Budget,
    marking: Marking,
) -> (Certificate, Outcome) {
    let mut found = candidates.clone();
    loop {
        let mut checker = Checker::new(lib, &found, budget.clone(), true);
        checker.marking = marking;
        let run = checker.run();
        let (facts, steps) = checker.broken.take().unwrap_or_default();
        match run {
            Err(Stop::Refuted(o)) => return (found, Outcome::Refuted(o)),
            Err(Stop::NotCovered(why)) => return (found, Outcome::NotCovered(why)),
            Err(Stop::Unknown(why)) => return (found, Outcome::Unknown(why)),
            Ok(()) if !facts.contains(&true) && !steps.contains(&true) => {
                let outcome = check(lib, &found, budget);
                return (found, outcome);
            }
            Ok(()) => {
                found.invariant = keep_unbroken(found.invariant, &facts);
                found.steps = keep_unbroken(found.steps, &steps);
            }
        }
    }
}

fn keep_unbroken<T>(items: Vec<T>, broken: &[bool]) -> Vec<T> {
    items
        .into_iter()
        .zip(broken)
        .filter_map(|(item, &b)| (!b).then_some(item))
        .collect()
}

/// Candidate facts for [`find`]. The invariant: each integer reference at least, or
/// at most, its initial value and zero. The turn relation, from the constants each
/// reference starts with, is assigned or is compared with (and zero): while a
/// reference holds one of its constants, each reference is unchanged; a reference is
/// unchanged or set to one of its constants; a reference never decreases, or never
/// increases.
pub fn candidates(lib: &Library) -> Certificate {
    let mut invariant = Vec::new();
    for (r, initial) in lib.store.iter().enumerate() {
        if let Initial::Int(v) = initial {
            let r = r as RefId;
            for bound in [v.clone(), BigInt::from(0)] {
                for fact in [Fact::at_least(r, bound.clone()), Fact::at_most(r, bound)] {
                    if !invariant.contains(&fact) {
                        invariant.push(fact);
                    }
                }
            }
        }
    }
    let mut steps = Vec::new();
    for (r, of_r) in constants(lib).into_iter().enumerate() {
        let r = r as RefId;
        for value in of_r {
            for kept in 0..lib.refs.len() as RefId {
                steps.push(Step::KeptWhile {
                    guard: r,
                    value: value.clone(),
                    kept,
                });
            }
            steps.push(Step::KeptOrSet { r, value });
        }
        steps.push(Step::NeverDecreases(r));
        steps.push(Step::NeverIncreases(r));
    }
    Certificate { invariant, steps }
}

/// For each reference, the constants it starts with, is assigned (`r := 1`) or is
/// compared with (`!r == 1`, `0 < !r`), and zero, each once, in order of appearance.
fn constants(lib: &Library) -> Vec<Vec<BigInt>> {
    fn add(out: &mut [Vec<BigInt>], r: RefId, v: &BigInt) {
        let of_r = &mut out[r as usize];
        if !of_r.contains(v) {
            of_r.push(v.clone());
        }
    }
    fn walk(e: &Expr, out: &mut [Vec<BigInt>]) {
        match &e.kind {
            ExprKind::Assign(r, value) => {
                if let ExprKind::Int(v) = &value.kind {
                    add(out, *r, v);
                }
            }
            ExprKind::Binary(_, a, b) => {
                if let (ExprKind::Deref(r), ExprKind::Int(v))
                | (ExprKind::Int(v), ExprKind::Deref(r)) = (&a.kind, &b.kind)
                {
                    add(out, *r, v);
                }
            }
            _ => {}
        }
        for child in e.children() {
            walk(child, out);
        }
    }
    let mut out = vec![Vec::new(); lib.refs.len()];
    for (r, initial) in lib.store.iter().enumerate() {
        if let Initial::Int(v) = initial {
            add(&mut out, r as RefId, v);
        }
        add(&mut out, r as RefId, &BigInt::from(0));
    }
    for code in &lib.codes {
        walk(&code.body, &mut out);
    }
    out
}

/// The most library functions reaching the client that the checker checks.
pub const MAX_REVEALED: usize = 64;

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

/// A function the client can call, to be checked: its code and what it captured.
struct Callable {
    callee: Callee,
    code: CodeId,
    env: Env,
}

struct Checker<'l> {
    /// First, so that it stops before the solver's context goes.
    _alarm: Alarm,
    lib: &'l Library,
    certificate: &'l Certificate,
    budget: Budget,
    steps: u64,
    obligations: usize,
    solver: z3::Solver,
    symbols: u64,
    /// The function being checked, for obligations.
    callee: Callee,
    /// The functions to check: the public methods, then those that reach the client,
    /// each once (told apart by [`Checker::reveal`]'s key).
    callables: Vec<Callable>,
    revealed: HashSet<String>,
    /// When searching for a certificate ([`find`]): which facts of the invariant and of
    /// the turn relation some obligation showed not to hold, instead of stopping at the
    /// first.
    broken: Option<(Vec<bool>, Vec<bool>)>,
    /// When writing the certificate ([`certify`]): each obligation's query.
    smtlib: Option<Vec<(Obligation, String)>>,
    marking: Marking,
}

impl<'l> Checker<'l> {
    fn new(
        lib: &'l Library,
        certificate: &'l Certificate,
        budget: Budget,
        searching: bool,
    ) -> Checker<'l> {
        // Its solver is made in this thread's default context.
        crate::symbolic::context::default_in_use();
        let solver = z3::Solver::new();
        solver.set_params(&no_ctrl_c());
        Checker {
            _alarm: Alarm::new(&solver, budget.deadline, budget.interrupt.clone()),
            lib,
            certificate,
            budget,
            steps: 0,
            obligations: 0,
            solver,
            symbols: 0,
            callee: Callee::Method(String::new()),
            callables: Vec::new(),
            revealed: HashSet::new(),
            broken: searching.then(|| {
                (
                    vec![false; certificate.invariant.len()],
                    vec![false; certificate.steps.len()],
                )
            }),
            smtlib: None,
            marking: Marking::Together,
        }
    }

    fn outcome(&mut self) -> Outcome {
        match self.run() {
            Ok(()) => Outcome::Proved {
                obligations: self.obligations,
                revealed: self
                    .callables
                    .iter()
                    .filter_map(|c| match &c.callee {
                        Callee::Function(span) => Some(span.clone()),
                        Callee::Method(_) => None,
                    })
                    .collect(),
            },
            Err(Stop::Refuted(o)) => Outcome::Refuted(o),
            Err(Stop::NotCovered(why)) => Outcome::NotCovered(why),
            Err(Stop::Unknown(why)) => Outcome::Unknown(why),
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
        self.relation_is_a_preorder()?;
        for &m in &self.lib.public {
            let method = &self.lib.methods[m as usize];
            self.callables.push(Callable {
                callee: Callee::Method(method.name.clone()),
                code: method.code,
                env: Env::new(),
            });
        }
        // Checking a function may reveal more, appended as it goes.
        let mut next = 0;
        while let Some(Callable { callee, code, env }) = self.callables.get(next) {
            let (callee, code, env) = (callee.clone(), *code, env.clone());
            self.check_callable(callee, code, env)?;
            next += 1;
        }
        Ok(())
    }

    /// `R` is reflexive and transitive on stores that satisfy `I`, as the induction
    /// over a client turn's calls needs (module docs).
    fn relation_is_a_preorder(&mut self) -> Result<(), Stop> {
        if self.certificate.steps.is_empty() {
            return Ok(());
        }
        let mut path = Path {
            condition: Vec::new(),
            store: Vec::new(),
        };
        self.enter(&mut path);
        let first = path.store.clone();
        self.keeps_steps(&first, &path, Obligation::Reflexive)?;
        self.turn(&mut path);
        self.turn(&mut path);
        self.keeps_steps(&first, &path, Obligation::Transitive)
    }

    /// Checks a function the client can call, run from any store satisfying `I` on any
    /// argument: no failure on the way, and `I` and `R` at its return.
    fn check_callable(&mut self, callee: Callee, code_id: CodeId, env: Env) -> Result<(), Stop> {
        self.callee = callee.clone();
        let code = self.lib.code(code_id);
        let mut path = Path {
            condition: Vec::new(),
            store: Vec::new(),
        };
        self.enter(&mut path);
        let entry = path.store.clone();
        let mut inner = env.clone();
        if code.recursive {
            inner.push_front(Val::Closure(code_id, env));
        }
        inner.push_front(self.fresh(code.param_ty));
        for (path, result) in self.eval(path, &code.body, inner, 0)? {
            self.reveal(&result)?;
            self.keeps_invariant(&path, Obligation::AtReturn(callee.clone()))?;
            self.keeps_steps(&entry, &path, Obligation::StepAtReturn(callee.clone()))?;
        }
        Ok(())
    }

    fn holds(&self, store: &[Int]) -> Bool {
        let facts: Vec<Bool> = self
            .certificate
            .invariant
            .iter()
            .map(|f| f.holds(store))
            .collect();
        Bool::and(&facts)
    }

    fn related(&self, before: &[Int], after: &[Int]) -> Bool {
        let steps: Vec<Bool> = self
            .certificate
            .steps
            .iter()
            .map(|s| s.holds(before, after))
            .collect();
        Bool::and(&steps)
    }

    /// New values for every reference, satisfying the invariant: the store when the
    /// client calls a function.
    fn enter(&mut self, path: &mut Path) {
        path.store = (0..self.lib.refs.len()).map(|_| self.symbol()).collect();
        path.condition.push(self.holds(&path.store));
    }

    /// A client turn: new values for every reference, satisfying the invariant and
    /// related to the old ones by the turn relation.
    fn turn(&mut self, path: &mut Path) {
        let before = std::mem::take(&mut path.store);
        self.enter(path);
        path.condition.push(self.related(&before, &path.store));
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
    fn feasible(&self, path: &Path, condition: &Bool) -> Result<bool, Stop> {
        self.within_limits()?;
        self.solver.push();
        for c in &path.condition {
            self.solver.assert(c);
        }
        self.solver.assert(condition);
        let answer = self.ask();
        self.solver.pop(1);
        Ok(answer? != SatResult::Unsat)
    }

    /// The solver's answer to what is asserted, within the deadline and the interrupt
    /// (which the alarm turns into an `unknown` of the check under way). Callers look at
    /// the limits before they assert: asserting a long path condition takes long in
    /// itself.
    fn ask(&self) -> Result<SatResult, Stop> {
        let answer = self.solver.check();
        if answer == SatResult::Unknown {
            self.within_limits()?;
        }
        Ok(answer)
    }

    /// Stops the checker once the deadline passed or the interrupt flag is set.
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

    /// Discharges `goal` on `path`: its negation must be unsatisfiable.
    fn prove(&mut self, path: &Path, goal: Bool, what: Obligation) -> Result<(), Stop> {
        self.within_limits()?;
        self.obligations += 1;
        self.solver.push();
        for c in &path.condition {
            self.solver.assert(c);
        }
        self.solver.assert(goal.not());
        let answer = self.ask();
        if let Some(queries) = &mut self.smtlib {
            queries.push((what.clone(), self.solver.to_string()));
        }
        self.solver.pop(1);
        match answer? {
            SatResult::Unsat => Ok(()),
            SatResult::Sat => Err(Stop::Refuted(what)),
            SatResult::Unknown => Err(Stop::Unknown(format!("Z3 could not decide whether {what}"))),
        }
    }

    /// The invariant holds on `path`; when searching for one, the facts that do not
    /// are marked broken instead.
    fn keeps_invariant(&mut self, path: &Path, what: Obligation) -> Result<(), Stop> {
        let Some((mut broken, steps)) = self.broken.take() else {
            let holds = self.holds(&path.store);
            return self.prove(path, holds, what);
        };
        let goals: Vec<Bool> = (self.certificate.invariant.iter())
            .map(|f| f.holds(&path.store))
            .collect();
        let result = self.mark_broken(path, &goals, &mut broken, &what);
        self.broken = Some((broken, steps));
        result
    }

    /// The turn relation holds between `before` and the store of `path`; when searching
    /// for a certificate, the facts that do not are marked broken instead.
    fn keeps_steps(&mut self, before: &[Int], path: &Path, what: Obligation) -> Result<(), Stop> {
        let Some((facts, mut broken)) = self.broken.take() else {
            let holds = self.related(before, &path.store);
            return self.prove(path, holds, what);
        };
        let goals: Vec<Bool> = (self.certificate.steps.iter())
            .map(|s| s.holds(before, &path.store))
            .collect();
        let result = self.mark_broken(path, &goals, &mut broken, &what);
        self.broken = Some((facts, broken));
        result
    }

    /// Marks broken each goal not broken yet that does not hold on `path`.
    fn mark_broken(
        &mut self,
        path: &Path,
        goals: &[Bool],
        broken: &mut [bool],
        what: &Obligation,
    ) -> Result<(), Stop> {
        if self.marking == Marking::Together && self.mark_together(path, goals, broken)? {
            return Ok(());
        }
        for (goal, broken) in goals.iter().zip(broken) {
            if *broken {
                continue;
            }
            match self.prove(path, goal.clone(), what.clone()) {
                Ok(()) => {}
                Err(Stop::Refuted(_)) => *broken = true,
                Err(stop) => return Err(stop),
            }
        }
        Ok(())
    }

    /// Houdini's shortcut for [`Checker::mark_broken`]: one query asks whether the
    /// goals not broken yet can fail together. Unsatisfiable: all hold. Satisfiable:
    /// its model satisfies the path and refutes each goal it makes false, exactly the
    /// goals a query of their own would refute with that model; at least one is, and
    /// the rest are asked again. So the goals marked are those one query per goal
    /// marks, in a query per goal broken rather than per goal. `false` when Z3 says
    /// `unknown` or gives a model that makes no goal false: then a query per goal
    /// decides what is left.
    fn mark_together(
        &mut self,
        path: &Path,
        goals: &[Bool],
        broken: &mut [bool],
    ) -> Result<bool, Stop> {
        loop {
            let open: Vec<&Bool> = (goals.iter().zip(broken.iter()))
                .filter_map(|(goal, broken)| (!*broken).then_some(goal))
                .collect();
            if open.is_empty() {
                return Ok(true);
            }
            self.within_limits()?;
            self.solver.push();
            for c in &path.condition {
                self.solver.assert(c);
            }
            self.solver.assert(Bool::and(&open).not());
            let answer = self.ask();
            let model = match answer {
                Ok(SatResult::Sat) => self.solver.get_model(),
                _ => None,
            };
            self.solver.pop(1);
            if answer? == SatResult::Unsat {
                return Ok(true);
            }
            let Some(model) = model else { return Ok(false) };
            let mut refuted = false;
            for (i, (goal, broken)) in goals.iter().zip(broken.iter_mut()).enumerate() {
                // Thousands of goals (a turn relation over hundreds of references) take
                // seconds to evaluate.
                if i % 1024 == 1023 {
                    self.within_limits()?;
                }
                let falsified = model.eval(goal, true).and_then(|v| v.as_bool()) == Some(false);
                if !*broken && falsified {
                    *broken = true;
                    refuted = true;
                }
            }
            if !refuted {
                return Ok(false);
            }
        }
    }

    /// `v` reaches the client: each library function in it (a closure, a private
    /// method) becomes callable by the client at any later turn, so it is queued to be
    /// checked like a public method (module docs), once per code and shape of what it
    /// captured.
    fn reveal(&mut self, v: &Val) -> Result<(), Stop> {
        let (callee, code, env) = match v {
            Val::Int(_) | Val::Unit | Val::Client(_) => return Ok(()),
            Val::Pair(a, b) => {
                self.reveal(a)?;
                return self.reveal(b);
            }
            Val::Method(m) => {
                let method = &self.lib.methods[*m as usize];
                if method.visibility == Visibility::Public {
                    return Ok(());
                }
                let span = self.lib.code(method.code).span.clone();
                (Callee::Function(span), method.code, Env::new())
            }
            Val::Closure(code, env) => {
                let env: Env = env.iter().map(|v| self.generalise(v)).collect();
                let span = self.lib.code(*code).span.clone();
                (Callee::Function(span), *code, env)
            }
        };
        let mut key = format!("{code}");
        for v in &env {
            shape(v, &mut key);
        }
        if !self.revealed.insert(key) {
            return Ok(());
        }
        if self.revealed.len() > MAX_REVEALED {
            return not_covered(format!(
                "more than {MAX_REVEALED} library functions reach the client"
            ));
        }
        self.callables.push(Callable { callee, code, env });
        Ok(())
    }

    /// `v` with every integer in it replaced by a fresh symbol: a function the client
    /// calls later sees what it captured, whatever that was.
    fn generalise(&mut self, v: &Val) -> Val {
        match v {
            Val::Int(_) => Val::Int(self.symbol()),
            Val::Pair(a, b) => Val::Pair(Rc::new(self.generalise(a)), Rc::new(self.generalise(b))),
            Val::Closure(code, env) => {
                Val::Closure(*code, env.iter().map(|v| self.generalise(v)).collect())
            }
            Val::Unit | Val::Method(_) | Val::Client(_) => v.clone(),
        }
    }

    fn tick(&mut self) -> Result<(), Stop> {
        self.steps += 1;
        if self.steps > self.budget.steps {
            return not_covered("the methods have too many paths for the checker's budget");
        }
        if self.steps.is_multiple_of(1024) {
            self.within_limits()?;
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
                        if self.feasible(&path, &holds)? {
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
                self.reveal(&arg)?;
                let what = Obligation::BeforeClientCall(self.callee.clone(), at.span.clone());
                self.keeps_invariant(&path, what)?;
                self.turn(&mut path);
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

/// Appends to `key` what tells apart the functions of one code that reach the client:
/// the shape of what they captured, integers aside ([`Checker::generalise`]).
fn shape(v: &Val, key: &mut String) {
    match v {
        Val::Int(_) => key.push_str(" int"),
        Val::Unit => key.push_str(" unit"),
        Val::Pair(a, b) => {
            key.push_str(" (");
            shape(a, key);
            shape(b, key);
            key.push(')');
        }
        Val::Closure(code, env) => {
            key.push_str(&format!(" fun{code}["));
            for v in env {
                shape(v, key);
            }
            key.push(']');
        }
        Val::Method(m) => key.push_str(&format!(" m{m}")),
        Val::Client(ty) => key.push_str(&format!(" client{ty}")),
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

    fn invariant(facts: Vec<Fact>) -> Certificate {
        Certificate {
            invariant: facts,
            steps: Vec::new(),
        }
    }

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
        let outcome = check(
            &lib,
            &invariant(vec![Fact::at_least(balance, 0)]),
            Budget::default(),
        );
        assert!(
            matches!(outcome, Outcome::Proved { obligations, .. } if obligations >= 4),
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
        let (found, outcome) = find(&lib, &candidates(&lib), Budget::default());
        assert!(matches!(outcome, Outcome::Proved { .. }), "{outcome:?}");
        let shown: Vec<String> = (found.invariant.iter())
            .map(|f| f.display(&lib).to_string())
            .collect();
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
            check(&lib, &Certificate::default(), Budget::default()),
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
            let outcome = check(&lib, &self::invariant(invariant.clone()), Budget::default());
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
            check(
                &lib,
                &invariant(vec![Fact::at_least(balance, 101)]),
                Budget::default()
            ),
            Outcome::Refuted(Obligation::Initially)
        );
    }

    #[test]
    fn what_the_argument_does_not_cover_is_said() {
        let cases = [
            ("public m (x:int) :(int) = { x * x };", "nonlinear"),
            (
                "fun f := g; private g (x:int) :(int) = { x }; public m (x:int) :(int) = { x };",
                "holds a function",
            ),
            ("public m (u:unit) :(unit) = { sned 1 };", "stuck"),
        ];
        for (source, why) in cases {
            match check(&library(source), &Certificate::default(), Budget::default()) {
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
            check(&lib, &Certificate::default(), Budget::default()),
            Outcome::NotCovered("the library uses ML-like references".to_string())
        );
    }

    #[test]
    fn divisions_by_a_possible_zero_are_refuted() {
        let lib = library("int d := 1; public z (x:int) :(unit) = { d := x }; public m (x:int) :(int) = { 10 / !d };");
        let d = lib.reference("d").unwrap();
        assert!(matches!(
            check(&lib, &Certificate::default(), Budget::default()),
            Outcome::Refuted(Obligation::Division(_))
        ));
        assert!(matches!(
            check(
                &lib,
                &invariant(vec![Fact::at_least(d, 1)]),
                Budget::default()
            ),
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
            check(
                &lib,
                &invariant(vec![Fact::at_least(c, 0)]),
                Budget::default()
            ),
            Outcome::Proved { .. }
        ));
        let tight = library(
            "int c := 0;
            public dec (u:unit) :(unit) = { c := !c - 1 };
            public check (u:unit) :(unit) = { assert (!c >= 0) };",
        );
        let c = tight.reference("c").unwrap();
        assert!(matches!(
            check(
                &tight,
                &invariant(vec![Fact::at_least(c, 0)]),
                Budget::default()
            ),
            Outcome::Refuted(Obligation::AtReturn(_))
        ));
    }

    const AWKWARD: &str = "int x := 0;
        public run (f:unit -> unit) :(unit) = { x := 0; f (); x := 1; f (); assert (!x == 1) };";

    #[test]
    fn a_turn_relation_proves_what_an_invariant_cannot() {
        let lib = library(AWKWARD);
        let x = lib.reference("x").unwrap();
        let only_invariant = invariant(vec![Fact::at_least(x, 0), Fact::at_most(x, 1)]);
        assert!(matches!(
            check(&lib, &only_invariant, Budget::default()),
            Outcome::Refuted(Obligation::Assert(_))
        ));
        // Every complete call of `run` ends with x = 1.
        let kept_or_one = Certificate {
            steps: vec![Step::KeptOrSet {
                r: x,
                value: 1.into(),
            }],
            ..only_invariant
        };
        assert!(matches!(
            check(&lib, &kept_or_one, Budget::default()),
            Outcome::Proved { .. }
        ));
        assert_eq!(
            kept_or_one.steps[0].display(&lib).to_string(),
            "x′ = x or x′ = 1"
        );
        // `run` may start at 0 and ends at 1: "never increases" does not hold of it.
        let wrong = Certificate {
            steps: vec![kept_or_one.steps[0].clone(), Step::NeverIncreases(x)],
            ..kept_or_one.clone()
        };
        assert_eq!(
            check(&lib, &wrong, Budget::default()),
            Outcome::Refuted(Obligation::StepAtReturn(Callee::Method("run".into())))
        );
        let (found, outcome) = find(&lib, &candidates(&lib), Budget::default());
        assert!(matches!(outcome, Outcome::Proved { .. }), "{outcome:?}");
        assert!(found.steps.contains(&kept_or_one.steps[0]), "{found:?}");
    }

    #[test]
    fn a_turn_relation_that_is_not_transitive_is_refuted() {
        let lib = library(
            "int lock := 1; int c := 0;
             public inc (f:unit -> unit) :(unit) = {
               if !lock then (let old = !c in lock := 0; f (); c := !c + 1; lock := 1;
                              assert (!c == old + 1)) else () };
             public read (u:unit) :(int) = { !c };",
        );
        let (lock, c) = (lib.reference("lock").unwrap(), lib.reference("c").unwrap());
        let kept = |kept| Step::KeptWhile {
            guard: lock,
            value: 0.into(),
            kept,
        };
        // "While lock is 0, c is unchanged", alone: a turn could set lock to 1 and
        // then change c.
        let alone = Certificate {
            invariant: Vec::new(),
            steps: vec![kept(c)],
        };
        assert_eq!(
            check(&lib, &alone, Budget::default()),
            Outcome::Refuted(Obligation::Transitive)
        );
        let both = Certificate {
            invariant: Vec::new(),
            steps: vec![kept(c), kept(lock)],
        };
        assert!(matches!(
            check(&lib, &both, Budget::default()),
            Outcome::Proved { .. }
        ));
    }

    #[test]
    fn functions_that_reach_the_client_are_checked_like_methods() {
        // The client can call `close`, then the function `open` gave it.
        let leaky = library(
            "int lock := 0;
             public open (u:unit) :(unit -> unit) = {
               lock := 1; (fun (x:unit) :(unit) -> assert (!lock == 1)) };
             public close (u:unit) :(unit) = { lock := 0 };",
        );
        let (_, outcome) = find(&leaky, &candidates(&leaky), Budget::default());
        assert!(
            matches!(outcome, Outcome::Refuted(Obligation::Assert(_))),
            "{outcome:?}"
        );
        // A private method passed to the client is a function it can call too.
        let private = library(
            "import later :((unit -> unit) -> unit)
             int n := 1;
             private use (u:unit) :(unit) = { assert (!n == 1) };
             public give (u:unit) :(unit) = { later use };
             public set (x:int) :(unit) = { n := x };",
        );
        let (_, outcome) = find(&private, &candidates(&private), Budget::default());
        assert!(
            matches!(outcome, Outcome::Refuted(Obligation::Assert(_))),
            "{outcome:?}"
        );
        // Checked only when there is nothing that breaks it; its place is reported.
        let guarded = library(
            "int lock := 0;
             public open (u:unit) :(unit -> unit) = {
               lock := 1; (fun (x:unit) :(unit) -> if !lock then assert (0 < !lock) else ()) };
             public close (u:unit) :(unit) = { lock := 0 };",
        );
        let (_, outcome) = find(&guarded, &candidates(&guarded), Budget::default());
        match outcome {
            Outcome::Proved { revealed, .. } => assert_eq!(revealed.len(), 1),
            other => panic!("{other:?}"),
        }
    }

    /// Houdini's shortcut drops exactly the candidates the plain algorithm drops, and
    /// ends with the same answer, on every library at hand: the examples, the corpus
    /// and HOLiK's (when `../shared` is there).
    #[test]
    fn marking_together_finds_what_one_query_per_goal_finds() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let dirs = ["examples", "tests/corpus", "../shared/holik-bench/programs"];
        let mut files: Vec<_> = dirs
            .iter()
            .filter_map(|dir| std::fs::read_dir(root.join(dir)).ok())
            .flatten()
            .filter_map(|entry| Some(entry.ok()?.path()))
            .filter(|path| path.extension().is_some_and(|e| e == "holi"))
            .collect();
        files.sort();
        let mut compared = 0;
        let mut dropped = 0;
        for path in &files {
            let Ok(loaded) = crate::frontend::load(path, false) else {
                continue;
            };
            let lib = crate::build::build(&loaded.program);
            let all = candidates(&lib);
            let together = find_marking(&lib, &all, Budget::default(), Marking::Together);
            let one_by_one = find_marking(&lib, &all, Budget::default(), Marking::OneByOne);
            assert_eq!(together, one_by_one, "{}", path.display());
            compared += 1;
            dropped += all.invariant.len() + all.steps.len()
                - together.0.invariant.len()
                - together.0.steps.len();
        }
        assert!(compared >= 10, "only {compared} libraries compared");
        assert!(
            dropped > 0,
            "no candidate was ever dropped: nothing was compared"
        );
    }
}
