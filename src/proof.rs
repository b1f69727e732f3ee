//! Checking a proof of safety for every k and l (`lang/proofs.md`, issue 15).
//!
//! A proof is a [`Certificate`]: an invariant `I`, linear facts about the library's
//! integer references that hold at every client turn (some only while a flag is in
//! one state), and a turn relation `R` (below).
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
//! reference or cell holding a pair, a list or a cell; nonlinear arithmetic;
//! recursion or paths beyond its budget; paths that get stuck) and never turns Z3's
//! `unknown` into a proof.
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
//! * **Recursion.** A call of a function whose code is already running on the path
//!   (a `letrec` loop calling itself, methods calling each other) is not inlined
//!   again: the function is checked like a method (from any store satisfying `I`, on
//!   any argument, captured integers generalised), and the call is read as a client
//!   call is: "`I` holds here; then the references take any values satisfying `I` and
//!   `R(before, ·)`, and the result is any value". By induction on the length of a run
//!   up to the call's return (or to a failure inside it), every such call from a store
//!   satisfying `I` fails nothing and returns to a store satisfying `I` and `R`. Only
//!   functions whose argument and result hold no function are read so (a function
//!   passed in may be the library's own, which is not a client turn); calling any other
//!   one again is inlined up to the depth budget.
//! * **Functions in references and cells.** Every function the library stores in a
//!   reference or a cell (and every function one holds initially) is checked like a
//!   method, as if it had reached the client, and whatever is read from there is
//!   called as a client's function is: "`I` holds here; then any store satisfying `I`
//!   and `R`". That reading is sound for the same reason as for functions the client
//!   passes back, which may be the library's own.
//! * **The heap** (`lang/proofs.md` §7). A cell's key is its allocation site and the
//!   activation that allocated it: the cells one activation allocates are one object
//!   (`make`'s `lock` and `balance`). A fact about a site's cells holds of every
//!   object's cells at every client turn, and a step relates each object's cells
//!   before and after a turn (not those of objects made during it). The certificate
//!   lists the sites whose cells may reach the client ([`Certificate::disclosed`]):
//!   no fact is about them, their cells take any value at each turn, and a cell the
//!   client passes is each of them the path knows of, or a new one of its own, each
//!   on a path of its own. Every other site's cells must never reach the client
//!   (as an argument, a result, or inside a pair; a function hides what it
//!   captured); when one does, the checker stops, and [`find`] adds the site and
//!   searches again. A function that captured cells is checked on cells of new
//!   objects of their sites (those of one object staying of one object), which the
//!   invariant describes as it describes every object.

mod limits;
pub mod relational;
mod sites;

pub use limits::{Budget, INTERRUPTED, TIME_LIMIT};

use crate::library::ir::{CodeId, Expr, ExprKind, GlobalName, MethodId, RefId, TypeId, TypeNode};
use crate::library::{Initial, Library};
use crate::symbolic::asserted;
use crate::symbolic::solver::Alarm;
use crate::symbolic::worker::no_ctrl_c;
use crate::syntax::ast::{BinOp, Span, Visibility};
use num_bigint::BigInt;
use num_traits::{One, Signed, Zero};
use sites::Sites;
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt;
use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::time::Instant;
use z3::ast::{Ast, Bool, Dynamic, Int};
use z3::{AstKind, SatResult};

/// `Σ coefficient · reference ≥ constant`, or, with a guard `(g, v)`,
/// `g = v ⇒ Σ coefficient · reference ≥ constant`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Fact {
    pub terms: Vec<(RefId, BigInt)>,
    pub constant: BigInt,
    /// Only while reference `g` holds `v`: a closed account's balance, a free block's
    /// owner, which the library keeps in a state its flag names.
    pub guard: Option<(RefId, BigInt)>,
}

impl Fact {
    /// `r ≥ c`.
    pub fn at_least(r: RefId, c: impl Into<BigInt>) -> Fact {
        Fact {
            terms: vec![(r, BigInt::one())],
            constant: c.into(),
            guard: None,
        }
    }

    /// `r ≤ c`.
    pub fn at_most(r: RefId, c: impl Into<BigInt>) -> Fact {
        Fact {
            terms: vec![(r, -BigInt::one())],
            constant: -c.into(),
            guard: None,
        }
    }

    /// The fact, only while `g` holds `v`.
    pub fn guarded(self, g: RefId, v: impl Into<BigInt>) -> Fact {
        Fact {
            guard: Some((g, v.into())),
            ..self
        }
    }

    /// The references it mentions, its guard's included.
    fn refs(&self) -> impl Iterator<Item = RefId> + '_ {
        (self.terms.iter().map(|(r, _)| *r)).chain(self.guard.iter().map(|(g, _)| *g))
    }

    fn holds(&self, store: impl Fn(RefId) -> Int) -> Bool {
        let sum = self
            .terms
            .iter()
            .map(|(r, c)| Int::mul(&[&store(*r), &int(c)]))
            .fold(Int::from_i64(0), |a, b| Int::add(&[&a, &b]));
        let bound = sum.ge(int(&self.constant));
        match &self.guard {
            Some((g, v)) => store(*g).eq(int(v)).implies(&bound),
            None => bound,
        }
    }

    /// Whether the library's initial store breaks the fact: `false` when it cannot tell
    /// (a reference that does not start as an integer).
    fn broken_initially(&self, lib: &Library) -> bool {
        if let Some((g, v)) = &self.guard {
            match lib.store.get(*g as usize) {
                Some(Initial::Int(held)) if held == v => {}
                _ => return false,
            }
        }
        let mut sum = BigInt::from(0);
        for (r, c) in &self.terms {
            match lib.store.get(*r as usize) {
                Some(Initial::Int(v)) => sum += c * v,
                _ => return false,
            }
        }
        sum < self.constant
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
        let sites = std::cell::OnceCell::new();
        let name = |r: RefId| ref_name(self.lib, sites.get_or_init(|| Sites::of(self.lib)), r);
        match self.fact.terms.as_slice() {
            [(r, c)] if c.is_one() => write!(f, "{} ≥ {}", name(*r), self.fact.constant)?,
            [(r, c)] if (-c).is_one() => write!(f, "{} ≤ {}", name(*r), -&self.fact.constant)?,
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
                write!(f, " ≥ {}", self.fact.constant)?;
            }
        }
        if let Some((g, v)) = &self.fact.guard {
            write!(f, " while {} = {v}", name(*g))?;
        }
        Ok(())
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
    /// `g > v ⇒ r′ = r`: while `g` is above `v` (a count of pins or holders), no
    /// client turn changes `r`.
    KeptAbove {
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
    fn holds(&self, before: impl Fn(RefId) -> Int, after: impl Fn(RefId) -> Int) -> Bool {
        match self {
            Step::KeptWhile { guard, value, kept } => before(*guard)
                .eq(int(value))
                .implies(after(*kept).eq(before(*kept))),
            Step::KeptAbove { guard, value, kept } => before(*guard)
                .gt(int(value))
                .implies(after(*kept).eq(before(*kept))),
            Step::KeptOrSet { r, value } => {
                let now = after(*r);
                Bool::or(&[now.eq(before(*r)), now.eq(int(value))])
            }
            Step::NeverDecreases(r) => after(*r).ge(before(*r)),
            Step::NeverIncreases(r) => after(*r).le(before(*r)),
        }
    }

    /// The reference whose value after the turn the step constrains.
    fn after_ref(&self) -> RefId {
        match self {
            Step::KeptWhile { kept, .. } | Step::KeptAbove { kept, .. } => *kept,
            Step::KeptOrSet { r, .. } | Step::NeverDecreases(r) | Step::NeverIncreases(r) => *r,
        }
    }

    /// The references whose values before the turn the step mentions.
    fn before_refs(&self) -> Vec<RefId> {
        match self {
            Step::KeptWhile { guard, kept, .. } | Step::KeptAbove { guard, kept, .. } => {
                vec![*guard, *kept]
            }
            Step::KeptOrSet { r, .. } | Step::NeverDecreases(r) | Step::NeverIncreases(r) => {
                vec![*r]
            }
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
        let sites = std::cell::OnceCell::new();
        let name = |r: &RefId| ref_name(self.lib, sites.get_or_init(|| Sites::of(self.lib)), *r);
        match self.step {
            Step::KeptWhile { guard, value, kept } => {
                let (g, r) = (name(guard), name(kept));
                write!(f, "while {g} = {value}, {r}′ = {r}")
            }
            Step::KeptAbove { guard, value, kept } => {
                let (g, r) = (name(guard), name(kept));
                write!(f, "while {g} > {value}, {r}′ = {r}")
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
/// `R` (empty: any change that keeps `I`), and the allocation sites whose cells the
/// client may hold (`lang/proofs.md` §7).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Certificate {
    pub invariant: Vec<Fact>,
    pub steps: Vec<Step>,
    /// The sites (by their keys' `r`: the number of references plus the site's) whose
    /// cells may reach the client: it may write them at any turn, so no fact is about
    /// them; any other site's cells must never reach it.
    pub disclosed: Vec<RefId>,
}

impl Certificate {
    /// Drops the facts and steps about cells the client may hold.
    fn forget_disclosed(&mut self) {
        let disclosed = &self.disclosed;
        self.invariant
            .retain(|f| f.refs().all(|r| !disclosed.contains(&r)));
        self.steps.retain(|s| {
            let mut refs = s.before_refs();
            refs.push(s.after_ref());
            refs.iter().all(|r| !disclosed.contains(r))
        });
    }
}

/// A function the client can call: a public method, or a library function that
/// reached it (`Function`, at the place of its code).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Callee {
    Method(String),
    Function(Span),
    /// A function that calls itself (or is called again while it runs), checked like a
    /// method so that its recursive calls can be summarised (module docs).
    Recursive(Span),
}

impl Callee {
    fn describe(&self, place: &dyn Fn(&Span) -> String) -> String {
        match self {
            Callee::Method(m) => format!("`{m}`"),
            Callee::Function(s) => format!("the function at {}", place(s)),
            Callee::Recursive(s) => format!("the recursive function at {}", place(s)),
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
    /// The invariant holds when this function calls a function again that is already
    /// running, at this place (module docs: recursion).
    BeforeRecursiveCall(Callee, Span),
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
            Obligation::BeforeRecursiveCall(m, s) => format!(
                "the invariant holds when {} makes the recursive call at {}",
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
        /// The places of the functions whose recursive calls were summarised, checked
        /// like methods (module docs).
        recursive: Vec<Span>,
    },
    /// This obligation does not follow from the invariant (it may still hold: the
    /// invariant may be too weak).
    Refuted(Obligation),
    /// The argument does not apply to this library (why).
    NotCovered(String),
    /// Z3 could not decide an obligation, or the deadline passed.
    Unknown(String),
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
///
/// When that proves nothing, it runs once more from the candidates and the facts the
/// first run dropped, each guarded by a state of a flag (`bal4 ≥ 0 while open4 = 0`:
/// a closed account keeps no debt, though an open one may): a library keeps some facts
/// only in some states, and guarding every candidate from the start would multiply
/// them by the guards where most hold unguarded. The second run's candidates include
/// the first's, so it keeps at least what the first kept.
pub fn find(lib: &Library, candidates: &Certificate, budget: Budget) -> (Certificate, Outcome) {
    let first = Asking {
        to_fixpoint: true,
        ..Asking::default()
    };
    let (found, outcome) = find_asking(lib, candidates, budget.clone(), first);
    if !matches!(outcome, Outcome::Refuted(_)) {
        return (found, outcome);
    }
    let guards = guards(lib);
    let kept: HashSet<&Fact> = found.invariant.iter().collect();
    let mut again = candidates.clone();
    again.disclosed = found.disclosed.clone();
    for fact in &candidates.invariant {
        if fact.guard.is_some() || kept.contains(fact) {
            continue;
        }
        for (g, v) in &guards {
            if fact.refs().all(|r| r != *g) {
                again.invariant.push(fact.clone().guarded(*g, v.clone()));
            }
        }
    }
    if again.invariant.len() == candidates.invariant.len() {
        return (found, outcome);
    }
    find_asking(lib, &again, budget, Asking::default())
}

/// The states that guard facts in [`find`]'s second run: 0 for a reference read as a
/// condition (`if !open`, `!used && …`, `not !frozen`), and each constant a reference
/// is compared with by `==` (`!state == 2`), in order of appearance.
fn guards(lib: &Library) -> Vec<(RefId, BigInt)> {
    fn condition(e: &Expr, out: &mut Vec<(RefId, BigInt)>) {
        if let ExprKind::Deref(r) = e.kind {
            let state = (r, BigInt::from(0));
            if !out.contains(&state) {
                out.push(state);
            }
        }
    }
    fn walk(e: &Expr, out: &mut Vec<(RefId, BigInt)>) {
        match &e.kind {
            ExprKind::If(c, ..) | ExprKind::Not(c) => condition(c, out),
            ExprKind::Binary(BinOp::And | BinOp::Or, a, b) => {
                condition(a, out);
                condition(b, out);
            }
            ExprKind::Binary(BinOp::Eq, a, b) => {
                if let (ExprKind::Deref(r), ExprKind::Int(v))
                | (ExprKind::Int(v), ExprKind::Deref(r)) = (&a.kind, &b.kind)
                {
                    let state = (*r, v.clone());
                    if !out.contains(&state) {
                        out.push(state);
                    }
                }
            }
            _ => {}
        }
        for child in e.children() {
            walk(child, out);
        }
    }
    let mut out = Vec::new();
    for code in &lib.codes {
        walk(&code.body, &mut out);
    }
    out
}

/// How the checker asks its questions: with its shortcuts, or (in the tests that
/// compare them) without one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Asking {
    marking: Marking,
    /// Whether a query asserts only the assumptions connected to what it asks, and
    /// facts and steps over references a path did not write are not asked
    /// ([`Path`]); otherwise every fact and step everywhere.
    sliced: bool,
    /// When searching: whether a failing `assert` or division lets the rounds go on to
    /// the strongest inductive set of candidates (which [`find`]'s second run guards
    /// from) rather than stop at once. It is refuted all the same: assumptions only
    /// weaken from round to round, so what fails in one round fails in every later one.
    to_fixpoint: bool,
}

impl Default for Asking {
    fn default() -> Self {
        Asking {
            marking: Marking::Together,
            sliced: true,
            to_fixpoint: false,
        }
    }
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

fn find_asking(
    lib: &Library,
    candidates: &Certificate,
    budget: Budget,
    asking: Asking,
) -> (Certificate, Outcome) {
    let mut found = candidates.clone();
    // Facts the initial store breaks make the first round's assumptions contradictory,
    // and so every other obligation of that round vacuous: dropped before it, they
    // leave one round less, with the same outcome.
    found.invariant.retain(|f| !f.broken_initially(lib));
    found.forget_disclosed();
    loop {
        let mut checker = Checker::new(lib, &found, budget.clone(), true);
        checker.asking = asking;
        let run = checker.run();
        let (facts, steps) = checker.broken.take().unwrap_or_default();
        let failed = checker.failed.take();
        match run {
            // The client may hold cells of that site: nothing is known of what they
            // hold at its turns. At most one more round per site.
            Err(Stop::Discloses(r)) => {
                found.disclosed.push(r);
                found.forget_disclosed();
            }
            Err(Stop::Refuted(o)) => return (found, Outcome::Refuted(o)),
            Err(Stop::NotCovered(why)) => return (found, Outcome::NotCovered(why)),
            Err(Stop::Unknown(why)) => return (found, Outcome::Unknown(why)),
            Ok(()) if !facts.contains(&true) && !steps.contains(&true) => {
                if let Some(o) = failed {
                    return (found, Outcome::Refuted(o));
                }
                // A guarded fact whose unguarded form was kept adds nothing, as
                // assumption or as obligation.
                let unguarded: HashSet<(&[(RefId, BigInt)], &BigInt)> = (found.invariant.iter())
                    .filter(|f| f.guard.is_none())
                    .map(|f| (f.terms.as_slice(), &f.constant))
                    .collect();
                let redundant: Vec<bool> = (found.invariant.iter())
                    .map(|f| {
                        f.guard.is_some() && unguarded.contains(&(f.terms.as_slice(), &f.constant))
                    })
                    .collect();
                found.invariant = keep_unbroken(found.invariant, &redundant);
                let mut checker = Checker::new(lib, &found, budget, false);
                checker.asking = asking;
                let outcome = checker.outcome();
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
/// at most, its initial value and zero, at least the least and at most the most of
/// the constants the code gives it ([`constants`]), and the linear facts about
/// references that the library's asserts state (`crate::symbolic::asserted`); [`find`]
/// guards those it drops by the states of flags. The turn relation, from the constants
/// each reference starts with, is assigned or is compared with (and zero): while a
/// reference holds one of its constants, or is above zero, each reference is
/// unchanged; a reference is unchanged or set to one of its constants; a reference
/// never decreases, or never increases.
///
/// Two cuts keep the candidates near linear in the library's size (a token library
/// of 200 methods over 200 references had 80,000 steps). The checker assumes the turn
/// relation only at a call of the client, so a library that never calls it (no import,
/// no parameter of a function type) gets none: no proof needs one. And "while `g`
/// holds `v`, `r` is unchanged" is a candidate only for a `v` the code tests `g`
/// against and an `r` that one function uses with `g` (reads or writes, with the
/// functions it calls): the guard of a lock and what it protects. Fewer candidates can cost a proof, never make a wrong one: whatever
/// [`find`] keeps is checked afresh by [`check`].
pub fn candidates(lib: &Library) -> Certificate {
    candidates_cut(lib, true)
}

/// [`candidates`], or without its two cuts (for the test that compares them).
fn candidates_cut(lib: &Library, cut: bool) -> Certificate {
    // In order, each once (a set beside the list: thousands of references).
    let mut invariant = Vec::new();
    let mut seen = HashSet::new();
    let mut add = |fact: Fact| {
        if seen.insert(fact.clone()) {
            invariant.push(fact);
        }
    };
    for (r, initial) in lib.store.iter().enumerate() {
        if let Initial::Int(v) = initial {
            let r = r as RefId;
            for bound in [v.clone(), BigInt::from(0)] {
                for fact in [Fact::at_least(r, bound.clone()), Fact::at_most(r, bound)] {
                    add(fact);
                }
            }
        }
    }
    for fact in asserted::facts(lib) {
        let fact = Fact {
            terms: fact.terms,
            constant: fact.constant,
            guard: None,
        };
        add(fact);
    }
    let (constants, tested) = constants(lib);
    // A flag set to 1 (`used1 := 1`) or a count compared with its capacity
    // (`!free_count < 4`) stays within the constants the code gives it; a parameter
    // checked against bounds before it is stored (`if n < 1 || 16 < n then 0 else
    // max_reentry := n`), within those.
    let stored = stored_bounds(lib);
    for (r, values) in constants
        .iter()
        .enumerate()
        .chain(stored.iter().enumerate())
    {
        if !matches!(lib.store.get(r), Some(Initial::Int(_))) {
            continue;
        }
        let r = r as RefId;
        let least = values.iter().min().map(|v| Fact::at_least(r, v.clone()));
        let most = values.iter().max().map(|v| Fact::at_most(r, v.clone()));
        for fact in least.into_iter().chain(most) {
            add(fact);
        }
    }
    // The cells of each allocation site that holds integers, as the references above.
    let sites = Sites::of(lib);
    let integers = |site: &sites::Site| integers(lib, site.content);
    let site_ref = |s: usize| (lib.refs.len() + s) as RefId;
    for (s, site) in sites.sites.iter().enumerate() {
        if !integers(site) {
            continue;
        }
        let r = site_ref(s);
        for bound in site.initial.iter().chain([&BigInt::from(0)]) {
            add(Fact::at_least(r, bound.clone()));
            add(Fact::at_most(r, bound.clone()));
        }
        let least = site
            .constants
            .iter()
            .min()
            .map(|v| Fact::at_least(r, v.clone()));
        let most = site
            .constants
            .iter()
            .max()
            .map(|v| Fact::at_most(r, v.clone()));
        for fact in least.into_iter().chain(most) {
            add(fact);
        }
    }
    let mut steps = Vec::new();
    if cut && !may_call_client(lib) {
        return Certificate {
            invariant,
            steps,
            disclosed: Vec::new(),
        };
    }
    // A site's guard goes with the sites of its object (one activation allocates
    // them), the only cells a fact may relate it to.
    for (s, site) in sites.sites.iter().enumerate() {
        if !integers(site) {
            continue;
        }
        let r = site_ref(s);
        for value in &site.constants {
            if site.tested.contains(value) {
                for kept in sites.of_code(site.code) {
                    if !integers(&sites.sites[kept]) {
                        continue;
                    }
                    let kept = site_ref(kept);
                    let value = value.clone();
                    steps.push(Step::KeptWhile {
                        guard: r,
                        value: value.clone(),
                        kept,
                    });
                    if value.is_zero() {
                        steps.push(Step::KeptAbove {
                            guard: r,
                            value,
                            kept,
                        });
                    }
                }
            }
            steps.push(Step::KeptOrSet {
                r,
                value: value.clone(),
            });
        }
        steps.push(Step::NeverDecreases(r));
        steps.push(Step::NeverIncreases(r));
    }
    let together = used_together(lib);
    let every: Vec<RefId> = (0..lib.refs.len() as RefId).collect();
    for (r, of_r) in constants.into_iter().enumerate() {
        if !matches!(lib.store.get(r), Some(Initial::Int(_))) {
            continue;
        }
        for value in of_r {
            let guards = !cut || tested[r].contains(&value);
            for &kept in if cut { &together[r] } else { &every } {
                if !guards {
                    break;
                }
                // A reference of functions keeps no value the checker looks at.
                if !matches!(lib.store.get(kept as usize), Some(Initial::Int(_))) {
                    continue;
                }
                steps.push(Step::KeptWhile {
                    guard: r as RefId,
                    value: value.clone(),
                    kept,
                });
                // A count above zero (pins, holders) keeps what it protects.
                if value.is_zero() {
                    steps.push(Step::KeptAbove {
                        guard: r as RefId,
                        value: value.clone(),
                        kept,
                    });
                }
            }
            steps.push(Step::KeptOrSet {
                r: r as RefId,
                value,
            });
        }
        steps.push(Step::NeverDecreases(r as RefId));
        steps.push(Step::NeverIncreases(r as RefId));
    }
    Certificate {
        invariant,
        steps,
        disclosed: Vec::new(),
    }
}

/// Whether some code of the library may call a function of the client's: it imports
/// one, or a function takes a parameter that may hold one (the checker's client values
/// come from imports and such parameters, and from what client calls return).
fn may_call_client(lib: &Library) -> bool {
    !lib.imports.is_empty() || lib.codes.iter().any(|c| has_arrow(lib, c.param_ty))
}

/// For each reference `g`, the references some code reads or writes together with it,
/// counting what the code calls or creates (`g` itself included), in order.
fn used_together(lib: &Library) -> Vec<Vec<RefId>> {
    fn walk(lib: &Library, e: &Expr, refs: &mut BTreeSet<RefId>, codes: &mut Vec<CodeId>) {
        match &e.kind {
            ExprKind::Deref(r) | ExprKind::Assign(r, _) => {
                refs.insert(*r);
            }
            ExprKind::Global(GlobalName::Method(m)) => codes.push(lib.methods[*m as usize].code),
            ExprKind::Lambda(code) | ExprKind::LetRec(code, _) => codes.push(*code),
            _ => {}
        }
        for child in e.children() {
            walk(lib, child, refs, codes);
        }
    }
    // What each code uses itself, and the codes it reaches.
    let direct: Vec<(BTreeSet<RefId>, Vec<CodeId>)> = (lib.codes.iter())
        .map(|code| {
            let (mut refs, mut codes) = (BTreeSet::new(), Vec::new());
            walk(lib, &code.body, &mut refs, &mut codes);
            (refs, codes)
        })
        .collect();
    let mut together: Vec<BTreeSet<RefId>> = (0..lib.refs.len() as RefId)
        .map(|r| BTreeSet::from([r]))
        .collect();
    for start in 0..lib.codes.len() {
        let (mut seen, mut todo, mut refs) = (HashSet::new(), vec![start], BTreeSet::new());
        while let Some(code) = todo.pop() {
            if seen.insert(code) {
                refs.extend(&direct[code].0);
                todo.extend(direct[code].1.iter().map(|&c| c as usize));
            }
        }
        for &g in &refs {
            together[g as usize].extend(&refs);
        }
    }
    together
        .into_iter()
        .map(|set| set.into_iter().collect())
        .collect()
}

/// For each reference, the constants it starts with, is assigned (`r := 1`) or is
/// compared with (`!r == 1`, `0 < !r`), and zero, each once, in order of appearance;
/// and those it is tested against (compared with, or 0 for `if !r`): the values in
/// which it guards something.
fn constants(lib: &Library) -> (Vec<Vec<BigInt>>, Vec<Vec<BigInt>>) {
    fn add(out: &mut [Vec<BigInt>], r: RefId, v: &BigInt) {
        let of_r = &mut out[r as usize];
        if !of_r.contains(v) {
            of_r.push(v.clone());
        }
    }
    fn walk(e: &Expr, all: &mut [Vec<BigInt>], tested: &mut [Vec<BigInt>]) {
        match &e.kind {
            ExprKind::Assign(r, value) => {
                if let ExprKind::Int(v) = &value.kind {
                    add(all, *r, v);
                }
            }
            ExprKind::Binary(op, a, b) => {
                if let (ExprKind::Deref(r), ExprKind::Int(v))
                | (ExprKind::Int(v), ExprKind::Deref(r)) = (&a.kind, &b.kind)
                {
                    add(all, *r, v);
                    if matches!(
                        op,
                        BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge | BinOp::Eq
                    ) {
                        add(tested, *r, v);
                    }
                }
            }
            ExprKind::If(condition, ..) => {
                let mut c = &**condition;
                while let ExprKind::Not(inner) = &c.kind {
                    c = inner;
                }
                if let ExprKind::Deref(r) = c.kind {
                    add(tested, r, &BigInt::from(0));
                }
            }
            _ => {}
        }
        for child in e.children() {
            walk(child, all, tested);
        }
    }
    let mut all = vec![Vec::new(); lib.refs.len()];
    let mut tested = vec![Vec::new(); lib.refs.len()];
    for (r, initial) in lib.store.iter().enumerate() {
        if let Initial::Int(v) = initial {
            add(&mut all, r as RefId, v);
        }
        add(&mut all, r as RefId, &BigInt::from(0));
    }
    for code in &lib.codes {
        walk(&code.body, &mut all, &mut tested);
    }
    (all, tested)
}

/// For each reference, the constants that a variable stored into it (`r := n`) is
/// compared with in the same code.
fn stored_bounds(lib: &Library) -> Vec<Vec<BigInt>> {
    /// A variable of a code: of its entry environment (parameter, itself, captured), or
    /// bound inside it by a `let` or `letrec` (numbered in the order met).
    #[derive(Clone, Copy, PartialEq, Eq, Hash)]
    enum Var {
        Entry(u32),
        Bound(usize),
    }
    struct Walk {
        scope: Vec<usize>,
        bound: usize,
        compared: HashMap<Var, Vec<BigInt>>,
        stored: Vec<(RefId, Var)>,
    }
    impl Walk {
        fn var(&self, i: u32) -> Var {
            let depth = self.scope.len();
            match (i as usize).checked_sub(depth) {
                Some(entry) => Var::Entry(entry as u32),
                None => Var::Bound(self.scope[depth - 1 - i as usize]),
            }
        }
        fn walk(&mut self, e: &Expr) {
            match &e.kind {
                ExprKind::Assign(r, value) => {
                    if let ExprKind::Local(i) = value.kind {
                        self.stored.push((*r, self.var(i)));
                    }
                }
                ExprKind::Binary(
                    BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge | BinOp::Eq,
                    a,
                    b,
                ) => {
                    if let (ExprKind::Local(i), ExprKind::Int(v))
                    | (ExprKind::Int(v), ExprKind::Local(i)) = (&a.kind, &b.kind)
                    {
                        let of = self.compared.entry(self.var(*i)).or_default();
                        if !of.contains(v) {
                            of.push(v.clone());
                        }
                    }
                }
                _ => {}
            }
            match &e.kind {
                ExprKind::Let(rhs, body) => {
                    self.walk(rhs);
                    self.enter(body);
                }
                ExprKind::LetRec(_, body) => self.enter(body),
                ExprKind::Match(scrutinee, nil, cons) => {
                    self.walk(scrutinee);
                    self.walk(nil);
                    // Two binders: the head, then the tail.
                    self.scope.push(self.bound);
                    self.bound += 1;
                    self.enter(cons);
                    self.scope.pop();
                }
                _ => {
                    for child in e.children() {
                        self.walk(child);
                    }
                }
            }
        }
        fn enter(&mut self, body: &Expr) {
            self.scope.push(self.bound);
            self.bound += 1;
            self.walk(body);
            self.scope.pop();
        }
    }
    let mut out = vec![Vec::<BigInt>::new(); lib.refs.len()];
    for code in &lib.codes {
        let mut walk = Walk {
            scope: Vec::new(),
            bound: 0,
            compared: HashMap::new(),
            stored: Vec::new(),
        };
        walk.walk(&code.body);
        for (r, var) in walk.stored {
            for v in walk.compared.get(&var).into_iter().flatten() {
                let of_r = &mut out[r as usize];
                if !of_r.contains(v) {
                    of_r.push(v.clone());
                }
            }
        }
    }
    out
}

/// An allocation site of a library, as a certificate describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CellSite {
    /// `cell x` (`lang/proofs.md` §7).
    pub name: String,
    /// The `ref` that allocates its cells.
    pub span: Span,
    /// Whether the certificate lets its cells reach the client.
    pub client_may_hold: bool,
}

/// The allocation sites of `lib`, in order, with the ownership `certificate` gives
/// them.
pub fn cells(lib: &Library, certificate: &Certificate) -> Vec<CellSite> {
    let sites = Sites::of(lib);
    (0..sites.sites.len())
        .map(|s| {
            let r = (lib.refs.len() + s) as RefId;
            CellSite {
                name: ref_name(lib, &sites, r),
                span: sites.sites[s].span.clone(),
                client_may_hold: certificate.disclosed.contains(&r),
            }
        })
        .collect()
}

/// How a proof names the key `r`: a reference by its name, the cells of an allocation
/// site as `cell x` (`x` the variable `let` binds them to).
fn ref_name(lib: &Library, sites: &Sites, r: RefId) -> String {
    if let Some(name) = lib.refs.get(r as usize) {
        return name.clone();
    }
    match sites.sites.get(r as usize - lib.refs.len()) {
        Some(site) => format!("cell {}", site.name),
        None => format!("a cell of the client's ({r})"),
    }
}

/// The most library functions reaching the client that the checker checks.
pub const MAX_REVEALED: usize = 64;

enum Stop {
    Refuted(Obligation),
    NotCovered(String),
    Unknown(String),
    /// A cell of this site (its key's `r`) reaches the client, which the certificate
    /// does not allow ([`Certificate::disclosed`]).
    Discloses(RefId),
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
    /// A location: a cell of an allocation site or of the client's.
    Loc(Key),
}

/// What the checker keeps a value of: a reference of the library's (`inst` 0); a
/// cell of an allocation site (`r`: the number of references plus the site's; `inst`:
/// the activation that allocated it, so that the cells one activation allocates are
/// one object); or a cell of the client's (`r`: the number of references and sites
/// plus the type of what it holds; `inst`: its own number). Instance numbers are
/// never reused, so on one path two keys are one cell exactly when they are equal
/// ([`Checker::fresh_on`] makes every aliasing a path of its own).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Key {
    r: RefId,
    inst: u32,
}

impl Key {
    fn global(r: RefId) -> Key {
        Key { r, inst: 0 }
    }
}

/// What a key's `r` stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Global,
    Site(usize),
    /// A cell of the client's that holds values of this type.
    Client(TypeId),
}

/// Local variables, innermost first (de Bruijn indices).
type Env = imbl::Vector<Val>;

/// One path: its branch conditions, the store, and each store where the invariant was
/// assumed (the entry, then one per client turn).
///
/// With hundreds of references of which one method touches a few, the checker's cost
/// must follow what the method touches, not the store's size. So a store is what was
/// written since the invariant was last assumed, over symbols made when first read
/// ([`Store`]); the invariant and the turn relation are kept apart from the branch
/// conditions, and a query asserts only the facts and steps connected to what it asks
/// by shared symbols ([`Checker::assert_path`]); and facts over references not written
/// since the invariant was assumed hold without a query ([`Checker::keeps_invariant`]).
/// A method that touches two of 200 references asserts a dozen facts, not 800.
#[derive(Clone)]
struct Path {
    condition: Vec<Bool>,
    store: Store,
    assumed: Vec<Rc<Assumed>>,
    /// The cells the client may hold that the path knows of (its own, and those of
    /// allocation sites the certificate says may reach it), each once: what a
    /// location the client passes may be besides a new one.
    disclosed: imbl::Vector<Key>,
    /// The activations that allocated cells on the path since it began: their objects
    /// did not exist then, so the turn relation says nothing of them.
    created: imbl::OrdSet<u32>,
}

/// The references' values on a path: those written since `base`, and the rest as
/// `base` has them.
#[derive(Clone)]
struct Store {
    base: Rc<Assumed>,
    written: imbl::OrdMap<Key, Int>,
}

impl Store {
    fn get(&self, k: Key) -> Int {
        match self.written.get(&k) {
            Some(v) => v.clone(),
            None => self.base.value(k),
        }
    }
}

/// A store where the invariant was assumed (a symbol per reference, made when first
/// asked for), or the initial store (numerals, nothing assumed).
struct Assumed {
    id: u64,
    initial: Option<Vec<Int>>,
    values: RefCell<HashMap<Key, Int>>,
    /// Which reference or cell each symbol made so far stands for.
    reference: RefCell<HashMap<Dynamic, Key>>,
    /// After a client turn: the store before it, to which the turn relation relates
    /// this one.
    before: Option<Before>,
    /// The formulas of the facts and steps asserted so far, made on first use.
    made: RefCell<HashMap<Part, Bool>>,
}

/// The store before a client turn.
struct Before {
    store: Store,
    /// For each symbol of a written reference's term, the references whose terms
    /// mention it.
    written_mentions: HashMap<Dynamic, Vec<Key>>,
}

impl Before {
    fn new(store: Store) -> Before {
        let mut written_mentions: HashMap<Dynamic, Vec<Key>> = HashMap::new();
        let mut seen = HashSet::new();
        for (r, v) in store.written.iter() {
            let mut of_r = HashSet::new();
            symbols(Dynamic::from_ast(v), &mut seen, &mut of_r);
            seen.clear();
            for s in of_r {
                written_mentions.entry(s).or_default().push(*r);
            }
        }
        Before {
            store,
            written_mentions,
        }
    }

    /// The symbols of `r`'s term.
    fn symbols(&self, r: Key) -> Vec<Dynamic> {
        match self.store.written.get(&r) {
            Some(v) => {
                let mut out = HashSet::new();
                symbols(Dynamic::from_ast(v), &mut HashSet::new(), &mut out);
                out.into_iter().collect()
            }
            None => vec![Dynamic::from_ast(&self.store.base.value(r))],
        }
    }

    /// The references whose terms mention `symbol`.
    fn mentioning(&self, symbol: &Dynamic) -> Vec<Key> {
        let mut out: Vec<Key> = (self.written_mentions.get(symbol).into_iter().flatten())
            .copied()
            .collect();
        let base = self.store.base.reference.borrow();
        if let Some(&r) = base.get(symbol) {
            if !self.store.written.contains_key(&r) {
                out.push(r);
            }
        }
        out
    }
}

/// A fact of the invariant or a step of the turn relation, by its index, at an
/// instance (0 for facts and steps over the library's references).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Part {
    Fact(usize, u32),
    Step(usize, u32),
}

impl Assumed {
    fn new(id: u64, initial: Option<Vec<Int>>, before: Option<Store>) -> Assumed {
        Assumed {
            id,
            initial,
            values: RefCell::new(HashMap::new()),
            reference: RefCell::new(HashMap::new()),
            before: before.map(Before::new),
            made: RefCell::new(HashMap::new()),
        }
    }

    fn is_assumed(&self) -> bool {
        self.initial.is_none()
    }

    /// `k`'s value here.
    fn value(&self, k: Key) -> Int {
        if let Some(initial) = &self.initial {
            if let Some(v) = initial.get(k.r as usize).filter(|_| k.inst == 0) {
                return v.clone();
            }
        }
        let mut values = self.values.borrow_mut();
        let v = values.entry(k).or_insert_with(|| {
            let v = match k.inst {
                0 => Int::new_const(format!("s{}_{}", self.id, k.r)),
                i => Int::new_const(format!("s{}_{}_{i}", self.id, k.r)),
            };
            self.reference.borrow_mut().insert(Dynamic::from_ast(&v), k);
            v
        });
        v.clone()
    }

    /// The symbols `part` mentions here.
    fn symbols(&self, part: Part, certificate: &Certificate) -> Vec<Dynamic> {
        let at = |r: RefId, inst: u32| Dynamic::from_ast(&self.value(Key { r, inst }));
        match part {
            Part::Fact(f, i) => (certificate.invariant[f].refs())
                .map(|r| at(r, i))
                .collect(),
            Part::Step(s, i) => {
                let step = &certificate.steps[s];
                let mut out = vec![at(step.after_ref(), i)];
                if let Some(before) = &self.before {
                    for r in step.before_refs() {
                        out.extend(before.symbols(Key { r, inst: i }));
                    }
                }
                out
            }
        }
    }

    /// The formula of `part` here.
    fn formula(&self, part: Part, certificate: &Certificate) -> Bool {
        if let Some(made) = self.made.borrow().get(&part) {
            return made.clone();
        }
        let made = match (part, &self.before) {
            (Part::Fact(f, inst), _) => {
                certificate.invariant[f].holds(|r| self.value(Key { r, inst }))
            }
            (Part::Step(s, inst), Some(before)) => certificate.steps[s].holds(
                |r| before.store.get(Key { r, inst }),
                |r| self.value(Key { r, inst }),
            ),
            (Part::Step(..), None) => Bool::from_bool(true),
        };
        self.made.borrow_mut().insert(part, made.clone());
        made
    }
}

/// Adds to `out` the symbols (uninterpreted constants) of `ast`, each shared subterm
/// walked once.
fn symbols(ast: Dynamic, seen: &mut HashSet<Dynamic>, out: &mut HashSet<Dynamic>) {
    let mut todo = vec![ast];
    while let Some(ast) = todo.pop() {
        if ast.kind() != AstKind::App || !seen.insert(ast.clone()) {
            continue;
        }
        match ast.num_children() {
            0 => {
                out.insert(ast);
            }
            _ => todo.extend(ast.children()),
        }
    }
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
    /// Stores made so far, to name their symbols.
    stores: u64,
    /// The function being checked, for obligations.
    callee: Callee,
    /// The functions to check: the public methods, then those that reach the client,
    /// each once (told apart by [`Checker::reveal`]'s key).
    callables: Vec<Callable>,
    revealed: HashSet<String>,
    /// How many calls of each code are running on the path being evaluated: calling
    /// one of them again is summarised ([`Checker::summarised`]).
    running: HashMap<CodeId, u32>,
    /// With [`Asking::to_fixpoint`]: the first failure the rounds went past.
    failed: Option<Obligation>,
    /// When searching for a certificate ([`find`]): which facts of the invariant and of
    /// the turn relation some obligation showed not to hold, instead of stopping at the
    /// first.
    broken: Option<(Vec<bool>, Vec<bool>)>,
    /// When writing the certificate ([`certify`]): each obligation's query.
    smtlib: Option<Vec<(Obligation, String)>>,
    asking: Asking,
    /// For each reference, the facts of the invariant that mention it, the steps of
    /// the turn relation that constrain it after a turn and those that mention it
    /// before one ([`Checker::assert_path`]).
    facts_of: Vec<Vec<usize>>,
    steps_after: Vec<Vec<usize>>,
    steps_before: Vec<Vec<usize>>,
    /// The library's allocation sites; keys of their cells come after the references.
    sites: Sites,
    /// The global references that hold functions, with the type of those functions.
    fun_refs: HashMap<RefId, TypeId>,
    /// The activation being evaluated (its cells' instance), and the last instance
    /// number given.
    activation: u32,
    instances: u32,
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
        let sites = Sites::of(lib);
        let n = lib.refs.len() + sites.sites.len();
        let (mut facts_of, mut steps_after, mut steps_before) = (
            vec![Vec::new(); n],
            vec![Vec::new(); n],
            vec![Vec::new(); n],
        );
        for (f, fact) in certificate.invariant.iter().enumerate() {
            for r in fact.refs() {
                facts_of[r as usize].push(f);
            }
        }
        for (i, step) in certificate.steps.iter().enumerate() {
            steps_after[step.after_ref() as usize].push(i);
            for r in step.before_refs() {
                steps_before[r as usize].push(i);
            }
        }
        Checker {
            _alarm: Alarm::new(&solver, budget.deadline, budget.interrupt.clone()),
            lib,
            certificate,
            budget,
            steps: 0,
            obligations: 0,
            solver,
            symbols: 0,
            stores: 0,
            callee: Callee::Method(String::new()),
            callables: Vec::new(),
            revealed: HashSet::new(),
            running: HashMap::new(),
            failed: None,
            broken: searching.then(|| {
                (
                    vec![false; certificate.invariant.len()],
                    vec![false; certificate.steps.len()],
                )
            }),
            smtlib: None,
            asking: Asking::default(),
            facts_of,
            steps_after,
            steps_before,
            sites,
            fun_refs: HashMap::new(),
            activation: 0,
            instances: 0,
        }
    }

    /// What `r` of a key stands for.
    fn kind(&self, r: RefId) -> Kind {
        let (refs, sites) = (self.lib.refs.len(), self.sites.sites.len());
        match (r as usize).checked_sub(refs) {
            None => Kind::Global,
            Some(s) if s < sites => Kind::Site(s),
            Some(s) => Kind::Client((s - sites) as TypeId),
        }
    }

    /// The key `r` of the cells of site `s`.
    fn site_ref(&self, s: usize) -> RefId {
        (self.lib.refs.len() + s) as RefId
    }

    /// The type of what the cell `k` holds.
    fn content(&self, k: Key) -> Option<TypeId> {
        match self.kind(k.r) {
            Kind::Global => None,
            Kind::Site(s) => self.sites.sites[s].content,
            Kind::Client(ty) => Some(ty),
        }
    }

    /// Whether the cell `k` holds integers (or truth values): the only cells the store
    /// keeps values of.
    fn holds_integers(&self, k: Key) -> bool {
        integers(self.lib, self.content(k))
    }

    /// Whether the client may hold cells of `r` (a site the certificate says may reach
    /// it, or the client's own).
    fn client_may_hold(&self, r: RefId) -> bool {
        match self.kind(r) {
            Kind::Global => false,
            Kind::Site(_) => self.certificate.disclosed.contains(&r),
            Kind::Client(_) => true,
        }
    }

    fn new_instance(&mut self) -> u32 {
        self.instances += 1;
        self.instances
    }

    /// The facts of the invariant that mention `r`.
    fn facts_of(&self, r: RefId) -> &[usize] {
        self.facts_of.get(r as usize).map_or(&[], Vec::as_slice)
    }

    /// The steps of the turn relation that constrain `r` after a turn.
    fn steps_after(&self, r: RefId) -> &[usize] {
        self.steps_after.get(r as usize).map_or(&[], Vec::as_slice)
    }

    /// The steps of the turn relation that mention `r` before a turn.
    fn steps_before(&self, r: RefId) -> &[usize] {
        self.steps_before.get(r as usize).map_or(&[], Vec::as_slice)
    }

    /// Whether a fact or step over these references is over the library's references
    /// alone.
    fn over_globals(&self, mut refs: impl Iterator<Item = RefId>) -> bool {
        refs.all(|r| self.kind(r) == Kind::Global)
    }

    /// Every fact and step is over the library's references, or over the cells of one
    /// object (the sites one code allocates) that the client cannot hold: what the
    /// argument of `lang/proofs.md` §7 covers.
    fn certificate_is_covered(&self) -> Result<(), Stop> {
        let certificate = self.certificate;
        let groups = (certificate
            .invariant
            .iter()
            .map(|f| f.refs().collect::<Vec<_>>()))
        .chain(certificate.steps.iter().map(|s| {
            let mut refs = s.before_refs();
            refs.push(s.after_ref());
            refs
        }));
        for refs in groups {
            let mut codes = BTreeSet::new();
            for &r in &refs {
                match self.kind(r) {
                    Kind::Global => {
                        codes.insert(None);
                    }
                    Kind::Site(s) if !self.client_may_hold(r) => {
                        codes.insert(Some(self.sites.sites[s].code));
                    }
                    Kind::Site(_) | Kind::Client(_) => {
                        return not_covered("a fact about a cell the client may write")
                    }
                }
            }
            if codes.len() > 1 {
                return not_covered("a fact relating cells of different objects");
            }
        }
        Ok(())
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
                        Callee::Method(_) | Callee::Recursive(_) => None,
                    })
                    .collect(),
                recursive: self
                    .callables
                    .iter()
                    .filter_map(|c| match &c.callee {
                        Callee::Recursive(span) => Some(span.clone()),
                        Callee::Method(_) | Callee::Function(_) => None,
                    })
                    .collect(),
            },
            Err(Stop::Refuted(o)) => Outcome::Refuted(o),
            Err(Stop::NotCovered(why)) => Outcome::NotCovered(why),
            Err(Stop::Unknown(why)) => Outcome::Unknown(why),
            Err(Stop::Discloses(r)) => Outcome::NotCovered(format!(
                "a cell `{}` reaches the client, and the certificate takes it as private",
                ref_name(self.lib, &self.sites, r)
            )),
        }
    }

    fn run(&mut self) -> Result<(), Stop> {
        self.certificate_is_covered()?;
        if self.lib.types.any_list() {
            return not_covered(format!(
                "the library uses lists; those the client plays had at most {} elements",
                crate::symbolic::config::DEFAULT_LIST_LENGTH
            ));
        }
        let mut initial = Vec::new();
        let mut stored_functions = Vec::new();
        for (r, value) in self.lib.store.iter().enumerate() {
            match value {
                Initial::Int(v) => initial.push(int(v)),
                // A reference that holds functions: whatever it holds is checked like a
                // method, and what is read from it is called as the client's function
                // is (module docs), so its value is never asked for.
                Initial::Name(name) => {
                    let (value, ty) = match name {
                        GlobalName::Method(m) => {
                            let code = self.lib.methods[*m as usize].code;
                            (Val::Method(*m), self.lib.code(code).ty)
                        }
                        GlobalName::Import(i) => {
                            let ty = self.lib.imports[*i as usize].ty;
                            (Val::Client(ty), ty)
                        }
                        GlobalName::Undeclared(_) => {
                            return not_covered(format!(
                                "the reference `{}` holds an undeclared name",
                                self.lib.refs[r]
                            ))
                        }
                    };
                    self.fun_refs.insert(r as RefId, ty);
                    stored_functions.push(value);
                    initial.push(Int::from_i64(0));
                }
                Initial::Absent => {
                    return not_covered(format!(
                        "the reference `{}` is never declared",
                        self.lib.refs[r]
                    ))
                }
                Initial::Unit | Initial::Nil | Initial::Pair(..) | Initial::Loc(_) => {
                    return not_covered("a reference holds a location")
                }
            }
        }
        if self.lib.may_get_stuck {
            return not_covered("some paths may get stuck");
        }
        let start = Path {
            condition: Vec::new(),
            store: Store {
                base: Rc::new(Assumed::new(0, Some(initial), None)),
                written: imbl::OrdMap::new(),
            },
            assumed: Vec::new(),
            disclosed: imbl::Vector::new(),
            created: imbl::OrdSet::new(),
        };
        self.keeps_invariant(&start, Obligation::Initially)?;
        self.relation_is_a_preorder()?;
        for value in stored_functions {
            self.reveal(&value)?;
        }
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
        let mut path = self.entered();
        // One object of each code that allocates cells, so that the steps over cells
        // are asked too.
        let codes: BTreeSet<CodeId> = self.sites.sites.iter().map(|s| s.code).collect();
        for code in codes {
            let inst = self.new_instance();
            for s in self.sites.of_code(code).collect::<Vec<_>>() {
                path.store.get(Key {
                    r: self.site_ref(s),
                    inst,
                });
            }
        }
        let first = path.store.clone();
        self.keeps_steps(&first, &path, Obligation::Reflexive)?;
        self.turn(&mut path);
        self.turn(&mut path);
        if !self.consistent(&path)? {
            return Ok(());
        }
        self.keeps_steps(&first, &path, Obligation::Transitive)
    }

    /// Checks a function the client can call, run from any store satisfying `I` on any
    /// argument: no failure on the way, and `I` and `R` at its return.
    fn check_callable(&mut self, callee: Callee, code_id: CodeId, env: Env) -> Result<(), Stop> {
        self.callee = callee.clone();
        let code = self.lib.code(code_id);
        let mut path = self.entered();
        let entry = path.store.clone();
        // Cells it captured that the client may hold: what the client passes may be
        // one of them.
        let mut captured = Vec::new();
        for v in &env {
            locations(v, &mut captured);
        }
        for k in captured {
            if self.client_may_hold(k.r) && !path.disclosed.contains(&k) {
                path.disclosed.push_back(k);
            }
        }
        let mut inner = env.clone();
        if code.recursive {
            inner.push_front(Val::Closure(code_id, env));
        }
        for (path, argument) in self.fresh_on(path, code.param_ty)? {
            let mut inner = inner.clone();
            inner.push_front(argument);
            for (mut path, result) in self.inlined(path, code_id, inner, 0)? {
                self.hand_over(&mut path, &result)?;
                self.keeps_invariant(&path, Obligation::AtReturn(callee.clone()))?;
                self.keeps_steps(&entry, &path, Obligation::StepAtReturn(callee.clone()))?;
            }
        }
        Ok(())
    }

    /// A path from the store when the client calls a function: any values satisfying
    /// the invariant.
    fn entered(&mut self) -> Path {
        let base = self.assumed(None);
        Path {
            condition: Vec::new(),
            store: Store {
                base: Rc::clone(&base),
                written: imbl::OrdMap::new(),
            },
            assumed: vec![base],
            disclosed: imbl::Vector::new(),
            created: imbl::OrdSet::new(),
        }
    }

    /// A client turn: new values for every reference, satisfying the invariant and
    /// related to the old ones by the turn relation.
    fn turn(&mut self, path: &mut Path) {
        let base = self.assumed(Some(path.store.clone()));
        path.store = Store {
            base: Rc::clone(&base),
            written: imbl::OrdMap::new(),
        };
        path.assumed.push(base);
    }

    /// A store of fresh symbols, assumed to satisfy the invariant and, after a client
    /// turn, the turn relation with the store `before` it.
    fn assumed(&mut self, before: Option<Store>) -> Rc<Assumed> {
        self.stores += 1;
        Rc::new(Assumed::new(self.stores, None, before))
    }

    fn symbol(&mut self) -> Int {
        self.symbols += 1;
        Int::new_const(format!("v{}", self.symbols))
    }

    /// Any value of type `ty`, as the client may give it.
    fn fresh(&mut self, ty: TypeId) -> Val {
        match self.lib.types.node(ty) {
            TypeNode::Unit => Val::Unit,
            // A `bool` may be any integer here: more than the client can play, so what
            // is proved holds for the client's 0 and 1 too.
            TypeNode::Int | TypeNode::Bool => Val::Int(self.symbol()),
            TypeNode::Pair(a, b) => Val::Pair(Rc::new(self.fresh(a)), Rc::new(self.fresh(b))),
            TypeNode::Arrow(..) => Val::Client(ty),
            // Lists are refused before any evaluation ([`crate::library::ir::Types::any_list`]);
            // locations are made by [`Checker::fresh_on`], which calls this for the rest.
            TypeNode::Ref(_) | TypeNode::List(_) => Val::Unit,
        }
    }

    /// Every value of type `ty` the client may give on `path`: a location it passes is
    /// each cell of that type it may hold that the path knows of, or a new cell of its
    /// own (which it may hold from then on), each on a path of its own.
    fn fresh_on(&mut self, path: Path, ty: TypeId) -> Result<Vec<(Path, Val)>, Stop> {
        match self.lib.types.node(ty) {
            TypeNode::Ref(content) => {
                if !self.plain_content(Some(content)) {
                    return not_covered("a cell of the client's holds a pair, a list or a cell");
                }
                let mut out = Vec::new();
                for &k in &path.disclosed {
                    if self.content(k) == Some(content) {
                        out.push((path.clone(), Val::Loc(k)));
                    }
                }
                let clients = (self.lib.refs.len() + self.sites.sites.len()) as RefId;
                let k = Key {
                    r: clients + content,
                    inst: self.new_instance(),
                };
                let mut path = path;
                path.disclosed.push_back(k);
                out.push((path, Val::Loc(k)));
                Ok(out)
            }
            TypeNode::Pair(a, b) => {
                let mut out = Vec::new();
                for (path, x) in self.fresh_on(path, a)? {
                    for (path, y) in self.fresh_on(path, b)? {
                        out.push((path, Val::Pair(Rc::new(x.clone()), Rc::new(y))));
                    }
                }
                Ok(out)
            }
            _ => Ok(vec![(path, self.fresh(ty))]),
        }
    }

    /// Whether cells holding `content` are covered: an integer, a truth value, `()`
    /// or a function.
    fn plain_content(&self, content: Option<TypeId>) -> bool {
        content.is_some_and(|ty| {
            matches!(
                self.lib.types.node(ty),
                TypeNode::Int | TypeNode::Bool | TypeNode::Unit | TypeNode::Arrow(..)
            )
        })
    }

    /// `v` reaches the client on `path`: each cell in it (not inside a function) is
    /// one the client holds from now on, which the certificate must allow, and each
    /// library function in it is checked like a method ([`Checker::reveal`]).
    fn hand_over(&mut self, path: &mut Path, v: &Val) -> Result<(), Stop> {
        let mut cells = Vec::new();
        handed(v, &mut cells);
        for k in cells {
            if !self.client_may_hold(k.r) {
                return Err(Stop::Discloses(k.r));
            }
            if !path.disclosed.contains(&k) {
                path.disclosed.push_back(k);
            }
        }
        self.reveal(v)
    }

    /// Asserts `asked` and what `path` assumes: its branch conditions, and the facts of
    /// the invariant and steps of the turn relation connected to them or to `asked` by
    /// shared symbols. Leaving out the rest only drops assumptions, so whatever the
    /// query shows unsatisfiable is so with all of them: a proof stays a proof. It can
    /// only cost one when the facts left out contradict each other on their own, which
    /// facts that all hold of the initial store (the first obligation) do not.
    fn assert_path(&self, path: &Path, asked: &Bool) {
        self.assert_on(path, asked, !self.asking.sliced);
    }

    /// [`Checker::assert_path`], with every assumption when `whole`.
    fn assert_on(&self, path: &Path, asked: &Bool, whole: bool) {
        let certificate = self.certificate;
        let included = if whole {
            let mut all = BTreeSet::new();
            for (g, assumed) in path.assumed.iter().enumerate() {
                let facts = (0..certificate.invariant.len())
                    .filter(|&f| self.over_globals(certificate.invariant[f].refs()))
                    .map(|f| Part::Fact(f, 0));
                let steps = (0..certificate.steps.len())
                    .filter(|&s| self.over_globals(certificate.steps[s].before_refs().into_iter()))
                    .map(|s| Part::Step(s, 0));
                let steps = steps.filter(|_| assumed.before.is_some());
                all.extend(facts.chain(steps).map(|part| (g, part)));
                // Over cells: at each instance whose cells the store was asked for.
                let mut cells: Vec<Key> = assumed.values.borrow().keys().copied().collect();
                if let Some(before) = &assumed.before {
                    cells.extend(before.store.written.keys());
                    cells.extend(before.store.base.values.borrow().keys());
                }
                for k in cells.into_iter().filter(|k| k.inst != 0) {
                    let facts = self.facts_of(k.r).iter().map(|&f| Part::Fact(f, k.inst));
                    let steps = (self.steps_after(k.r).iter().chain(self.steps_before(k.r)))
                        .filter(|_| assumed.before.is_some())
                        .map(|&s| Part::Step(s, k.inst));
                    all.extend(facts.chain(steps).map(|part| (g, part)));
                }
            }
            all
        } else {
            self.connected(path, asked)
        };
        // In order, so that the query (and a certificate's text) is the same every run.
        for (g, part) in included {
            self.solver
                .assert(path.assumed[g].formula(part, certificate));
        }
        for c in &path.condition {
            self.solver.assert(c);
        }
        self.solver.assert(asked);
    }

    /// The facts and steps `path` assumes (by the index of their store in
    /// [`Path::assumed`]) that share a symbol, directly or through each other, with its
    /// branch conditions or `asked`.
    fn connected(&self, path: &Path, asked: &Bool) -> BTreeSet<(usize, Part)> {
        let certificate = self.certificate;
        let (mut relevant, mut seen) = (HashSet::new(), HashSet::new());
        for c in path.condition.iter().chain([asked]) {
            symbols(Dynamic::from_ast(c), &mut seen, &mut relevant);
        }
        let mut todo: Vec<Dynamic> = relevant.iter().cloned().collect();
        let mut included = BTreeSet::new();
        while let Some(symbol) = todo.pop() {
            for (g, assumed) in path.assumed.iter().enumerate() {
                let mut parts = Vec::new();
                let of = assumed.reference.borrow().get(&symbol).copied();
                if let Some(k) = of {
                    parts.extend(self.facts_of(k.r).iter().map(|&f| Part::Fact(f, k.inst)));
                    if assumed.before.is_some() {
                        let steps = self.steps_after(k.r).iter();
                        parts.extend(steps.map(|&s| Part::Step(s, k.inst)));
                    }
                }
                if let Some(before) = &assumed.before {
                    for k in before.mentioning(&symbol) {
                        let steps = self.steps_before(k.r).iter();
                        parts.extend(steps.map(|&s| Part::Step(s, k.inst)));
                    }
                }
                for part in parts {
                    if included.insert((g, part)) {
                        for s in assumed.symbols(part, certificate) {
                            if relevant.insert(s.clone()) {
                                todo.push(s);
                            }
                        }
                    }
                }
            }
        }
        included
    }

    /// After a client turn: whether some store satisfies everything `path` assumes. If
    /// none does, every later obligation on the path holds vacuously, and the path ends
    /// here. If some does, the assumptions a sliced query leaves out, which share no
    /// symbol with the rest, are satisfiable on their own (the store at entry satisfies
    /// them: the invariant holds of the initial store), so slicing changes no answer:
    /// the query with all of them is unsatisfiable exactly when the sliced one is.
    /// Checking a certificate, this never ends a path: the invariant was just shown to
    /// hold before the turn, and every step is reflexive, so the store before it is one.
    /// So the SMT-LIB text ([`certify`]) misses no obligation. Only in a round of the
    /// search for a certificate, where facts shown broken stay assumed until the round
    /// ends, can a turn leave no store.
    fn consistent(&self, path: &Path) -> Result<bool, Stop> {
        if !self.asking.sliced {
            return Ok(true);
        }
        self.within_limits()?;
        self.solver.push();
        self.assert_on(path, &Bool::from_bool(true), true);
        let answer = self.ask();
        self.solver.pop(1);
        Ok(answer? != SatResult::Unsat)
    }

    /// Whether `condition` can hold on `path`; `true` when Z3 cannot tell (a branch
    /// too many only adds obligations).
    fn feasible(&self, path: &Path, condition: &Bool) -> Result<bool, Stop> {
        self.within_limits()?;
        self.solver.push();
        self.assert_path(path, condition);
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
        self.assert_path(path, &goal.not());
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

    /// [`Checker::prove`]; with [`Asking::to_fixpoint`], a refutation is noted (the first)
    /// and evaluation goes on past it, on the paths where the goal holds.
    fn prove_or_go_on(&mut self, path: &Path, goal: Bool, what: Obligation) -> Result<(), Stop> {
        match self.prove(path, goal, what) {
            Err(Stop::Refuted(o)) if self.asking.to_fixpoint && self.broken.is_some() => {
                self.failed.get_or_insert(o);
                Ok(())
            }
            other => other,
        }
    }

    /// The invariant holds on `path`; when searching for one, the facts that do not
    /// are marked broken instead. Facts over references not written since the
    /// invariant was last assumed (the store's base) are not asked.
    fn keeps_invariant(&mut self, path: &Path, what: Obligation) -> Result<(), Stop> {
        let certificate = self.certificate;
        let store = &path.store;
        let globals = store.written.keys().filter(|k| k.inst == 0);
        let asked: BTreeSet<usize> = if self.asking.sliced && store.base.is_assumed() {
            globals
                .flat_map(|k| self.facts_of(k.r).iter().copied())
                .collect()
        } else {
            (0..certificate.invariant.len())
                .filter(|&f| self.over_globals(certificate.invariant[f].refs()))
                .collect()
        };
        let mut goals: Vec<(usize, Bool)> = (asked.into_iter())
            .map(|f| {
                (
                    f,
                    certificate.invariant[f].holds(|r| store.get(Key::global(r))),
                )
            })
            .collect();
        // Facts over cells, at each instance with a cell written: the others keep the
        // values they were assumed to have.
        let mut cells = BTreeSet::new();
        for k in store.written.keys().filter(|k| k.inst != 0) {
            cells.extend(self.facts_of(k.r).iter().map(|&f| (f, k.inst)));
        }
        for (f, inst) in cells {
            let holds = certificate.invariant[f].holds(|r| store.get(Key { r, inst }));
            goals.push((f, holds));
        }
        let Some((mut broken, steps)) = self.broken.take() else {
            return self.prove_all(path, goals, what);
        };
        let result = self.mark_broken(path, &goals, &mut broken, &what);
        self.broken = Some((broken, steps));
        result
    }

    /// The turn relation holds between `before` and the store of `path`; when searching
    /// for a certificate, the facts that do not are marked broken instead. A step whose
    /// reference holds the same term in both holds (each kind is reflexive), so from
    /// the same store only the steps of written references are asked.
    fn keeps_steps(&mut self, before: &Store, path: &Path, what: Obligation) -> Result<(), Stop> {
        let certificate = self.certificate;
        let after = &path.store;
        let sliced = self.asking.sliced;
        let same_base = sliced && Rc::ptr_eq(&before.base, &after.base);
        // The cells asked about: those written, from the same store; otherwise every
        // cell the path asked for. Not those of objects made on the path, which did
        // not exist at `before`.
        let mut keys: BTreeSet<Key> = before
            .written
            .keys()
            .chain(after.written.keys())
            .copied()
            .collect();
        if !same_base {
            for assumed in &path.assumed {
                keys.extend(assumed.values.borrow().keys().filter(|k| k.inst != 0));
            }
        }
        keys.retain(|k| !path.created.contains(&k.inst));
        let mut asked: BTreeSet<(usize, u32)> = if same_base {
            (keys.iter().filter(|k| k.inst == 0))
                .flat_map(|k| self.steps_after(k.r).iter().map(|&s| (s, 0)))
                .collect()
        } else {
            (0..certificate.steps.len())
                .filter(|&s| self.over_globals(certificate.steps[s].before_refs().into_iter()))
                .map(|s| (s, 0))
                .collect()
        };
        for k in keys.iter().filter(|k| k.inst != 0) {
            asked.extend(self.steps_after(k.r).iter().map(|&s| (s, k.inst)));
        }
        let goals: Vec<(usize, Bool)> = (asked.into_iter())
            .filter(|&(i, inst)| {
                let k = Key {
                    r: certificate.steps[i].after_ref(),
                    inst,
                };
                !sliced || before.get(k) != after.get(k)
            })
            .map(|(i, inst)| {
                let holds = certificate.steps[i].holds(
                    |r| before.get(Key { r, inst }),
                    |r| after.get(Key { r, inst }),
                );
                (i, holds)
            })
            .collect();
        let Some((facts, mut broken)) = self.broken.take() else {
            return self.prove_all(path, goals, what);
        };
        let result = self.mark_broken(path, &goals, &mut broken, &what);
        self.broken = Some((facts, broken));
        result
    }

    /// Discharges the conjunction of `goals` on `path`, in one query; none, none.
    fn prove_all(
        &mut self,
        path: &Path,
        goals: Vec<(usize, Bool)>,
        what: Obligation,
    ) -> Result<(), Stop> {
        if goals.is_empty() {
            return Ok(());
        }
        let goals: Vec<Bool> = goals.into_iter().map(|(_, g)| g).collect();
        self.prove(path, Bool::and(&goals), what)
    }

    /// Marks broken each goal not broken yet that does not hold on `path`.
    /// Each goal comes with the index of its fact in `broken`.
    fn mark_broken(
        &mut self,
        path: &Path,
        goals: &[(usize, Bool)],
        broken: &mut [bool],
        what: &Obligation,
    ) -> Result<(), Stop> {
        if self.asking.marking == Marking::Together && self.mark_together(path, goals, broken)? {
            return Ok(());
        }
        for (i, goal) in goals {
            let broken = &mut broken[*i];
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
        goals: &[(usize, Bool)],
        broken: &mut [bool],
    ) -> Result<bool, Stop> {
        loop {
            let open: Vec<&Bool> = (goals.iter())
                .filter_map(|(i, goal)| (!broken[*i]).then_some(goal))
                .collect();
            if open.is_empty() {
                return Ok(true);
            }
            self.within_limits()?;
            self.solver.push();
            self.assert_path(path, &Bool::and(&open).not());
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
            for (n, (i, goal)) in goals.iter().enumerate() {
                // Thousands of goals (a turn relation over hundreds of references) take
                // seconds to evaluate.
                if n % 1024 == 1023 {
                    self.within_limits()?;
                }
                let broken = &mut broken[*i];
                if !*broken && model.eval(goal, true).and_then(|v| v.as_bool()) == Some(false) {
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
            Val::Int(_) | Val::Unit | Val::Client(_) | Val::Loc(_) => return Ok(()),
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
                let env = self.generalise_all(env);
                let span = self.lib.code(*code).span.clone();
                (Callee::Function(span), *code, env)
            }
        };
        let mut key = format!("{code}");
        let mut order = Vec::new();
        for v in &env {
            shape(v, &mut key, &mut order);
        }
        if !self.revealed.insert(key) {
            return Ok(());
        }
        if self.revealed.len() > MAX_REVEALED {
            return not_covered(format!(
                "more than {MAX_REVEALED} library functions reach the client or recurse"
            ));
        }
        self.callables.push(Callable { callee, code, env });
        Ok(())
    }

    /// `env` with every integer in it replaced by a fresh symbol, and every cell by
    /// a cell of the same site (or the client's) of a new object, cells of one object
    /// staying of one object: a function the client calls later sees what it
    /// captured, whatever that holds by then.
    fn generalise_all(&mut self, env: &Env) -> Env {
        let mut objects = HashMap::new();
        env.iter()
            .map(|v| self.generalise(v, &mut objects))
            .collect()
    }

    fn generalise(&mut self, v: &Val, objects: &mut HashMap<u32, u32>) -> Val {
        match v {
            Val::Int(_) => Val::Int(self.symbol()),
            Val::Pair(a, b) => Val::Pair(
                Rc::new(self.generalise(a, objects)),
                Rc::new(self.generalise(b, objects)),
            ),
            Val::Closure(code, env) => Val::Closure(
                *code,
                env.iter().map(|v| self.generalise(v, objects)).collect(),
            ),
            Val::Loc(k) => {
                let inst = match objects.get(&k.inst) {
                    Some(&inst) => inst,
                    None => {
                        let inst = self.new_instance();
                        objects.insert(k.inst, inst);
                        inst
                    }
                };
                Val::Loc(Key { r: k.r, inst })
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
            // No path comes out of a divergence: nothing after it can fail.
            ExprKind::Diverge => Vec::new(),
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
                let v = match self.fun_refs.get(r) {
                    Some(&ty) => Val::Client(ty),
                    None => Val::Int(path.store.get(Key::global(*r))),
                };
                vec![(path, v)]
            }
            ExprKind::Assign(r, rhs) if self.fun_refs.contains_key(r) => {
                let mut out = Vec::new();
                for (path, v) in self.eval(path, rhs, env, depth)? {
                    self.reveal(&v)?;
                    out.push((path, Val::Unit));
                }
                out
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
                    path.store.written.insert(Key::global(*r), v);
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
                        // Locations compare by identity, which a path decides.
                        if let (BinOp::Eq, Val::Loc(x), Val::Loc(y)) = (op, &av, &bv) {
                            out.push((path, Val::Int(Int::from_i64(i64::from(x == y)))));
                            continue;
                        }
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
                    self.prove_or_go_on(&path, holds.clone(), Obligation::Assert(e.span.clone()))?;
                    let mut path = path;
                    path.condition.push(holds);
                    out.push((path, Val::Unit));
                }
                out
            }
            ExprKind::Alloc(init, _) => {
                let Some(site) = self.sites.at(e) else {
                    return not_covered("an allocation outside the library's code");
                };
                let key = Key {
                    r: self.site_ref(site),
                    inst: self.activation,
                };
                let mut out = Vec::new();
                for (mut path, v) in self.eval(path, init, env, depth)? {
                    if !path.created.contains(&key.inst) {
                        // The object's first cell: its other cells of integers do not
                        // exist yet, so nothing is known of them until they are allocated.
                        path.created.insert(key.inst);
                        let code = self.sites.sites[site].code;
                        for s in self.sites.of_code(code).collect::<Vec<_>>() {
                            let k = Key {
                                r: self.site_ref(s),
                                inst: key.inst,
                            };
                            if self.holds_integers(k) {
                                let symbol = self.symbol();
                                path.store.written.insert(k, symbol);
                            }
                        }
                    }
                    self.write(&mut path, key, v)?;
                    out.push((path, Val::Loc(key)));
                }
                out
            }
            ExprKind::Load(target) => {
                let mut out = Vec::new();
                for (path, v) in self.eval(path, target, env, depth)? {
                    let Val::Loc(k) = v else {
                        return not_covered("a read through something not a location");
                    };
                    let content = self.content(k);
                    let v = match content.map(|ty| (ty, self.lib.types.node(ty))) {
                        Some((_, TypeNode::Int | TypeNode::Bool)) => Val::Int(path.store.get(k)),
                        Some((_, TypeNode::Unit)) => Val::Unit,
                        // What a cell of functions holds was checked like a method when
                        // it was stored, and is called as the client's function is.
                        Some((ty, TypeNode::Arrow(..))) => Val::Client(ty),
                        _ => return not_covered("a cell that holds a pair, a list or a cell"),
                    };
                    out.push((path, v));
                }
                out
            }
            ExprKind::Store(target, value) => {
                let mut out = Vec::new();
                for (path, t) in self.eval(path, target, env.clone(), depth)? {
                    let Val::Loc(k) = t else {
                        return not_covered("a write through something not a location");
                    };
                    for (mut path, v) in self.eval(path, value, env.clone(), depth)? {
                        self.write(&mut path, k, v)?;
                        out.push((path, Val::Unit));
                    }
                }
                out
            }
            ExprKind::Nil | ExprKind::Cons(..) | ExprKind::Match(..) => {
                return not_covered("the library uses lists")
            }
        })
    }

    /// `v` written to the cell `k` on `path`. A function stored in a cell is checked
    /// like a method (module docs), so only cells of integers keep what they hold.
    fn write(&mut self, path: &mut Path, k: Key, v: Val) -> Result<(), Stop> {
        match self.content(k).map(|ty| self.lib.types.node(ty)) {
            Some(TypeNode::Int | TypeNode::Bool) => {
                let Val::Int(x) = v else {
                    return not_covered("a cell of integers is given something else");
                };
                path.store.written.insert(k, x);
                Ok(())
            }
            Some(TypeNode::Unit) => Ok(()),
            Some(TypeNode::Arrow(..)) => self.reveal(&v),
            _ => not_covered("a cell that holds a pair, a list or a cell"),
        }
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
        let constant = |v: &Int| crate::symbolic::solver::numeral(v).is_some();
        let v = match op {
            BinOp::Add => Int::add(&[&x, &y]),
            BinOp::Sub => Int::sub(&[&x, &y]),
            BinOp::Mul if !constant(&x) && !constant(&y) => {
                return not_covered("nonlinear arithmetic")
            }
            BinOp::Mul => Int::mul(&[&x, &y]),
            BinOp::Div | BinOp::Mod => {
                let nonzero = y.eq(&zero).not();
                self.prove_or_go_on(&path, nonzero.clone(), Obligation::Division(at.clone()))?;
                if !constant(&y) {
                    return not_covered("nonlinear arithmetic (a division by a variable)");
                }
                path.condition.push(nonzero);
                // HOLi truncates toward zero; Z3's `div` keeps the remainder non-negative.
                let positive = x.div(&y);
                let negative = x.unary_minus().div(&y).unary_minus();
                let quotient = x.ge(&zero).ite(&positive, &negative);
                if op == BinOp::Mod {
                    Int::sub(&[&x, &Int::mul(&[&y, &quotient])])
                } else {
                    quotient
                }
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

    /// `code`'s body on `env`, counted as running while it is evaluated.
    fn inlined(
        &mut self,
        path: Path,
        code: CodeId,
        env: Env,
        depth: u32,
    ) -> Result<Vec<(Path, Val)>, Stop> {
        *self.running.entry(code).or_default() += 1;
        let activation = self.new_instance();
        let caller = std::mem::replace(&mut self.activation, activation);
        let out = self.eval(path, &self.lib.code(code).body, env, depth);
        self.activation = caller;
        if let Some(n) = self.running.get_mut(&code) {
            *n -= 1;
        }
        out
    }

    /// Whether a call of `code` is summarised rather than inlined: it is running
    /// already, and neither its argument nor its result holds a function or a cell
    /// (module docs; a cell passed there may be private, which a client's is not).
    fn summarises(&self, code: CodeId) -> bool {
        let f = self.lib.code(code);
        let plain = |ty| !has_arrow(self.lib, ty) && !self.lib.types.mentions_ref(ty);
        self.running.get(&code).is_some_and(|&n| n > 0) && plain(f.param_ty) && plain(f.ret_ty)
    }

    /// A call of `code`, which is running already, read as a client call is: `I` holds
    /// before it, then the references take any values satisfying `I` and `R`, and the
    /// result is any value. `code` (on what it captured, generalised) is queued to be
    /// checked like a method, which makes that reading sound (module docs).
    fn summarised(
        &mut self,
        mut path: Path,
        code: CodeId,
        env: Env,
        at: &Expr,
    ) -> Result<Vec<(Path, Val)>, Stop> {
        let env = self.generalise_all(&env);
        let mut key = format!("running {code}");
        let mut order = Vec::new();
        for v in &env {
            shape(v, &mut key, &mut order);
        }
        let f = self.lib.code(code);
        if self.revealed.insert(key) {
            if self.revealed.len() > MAX_REVEALED {
                return not_covered(format!(
                    "more than {MAX_REVEALED} library functions reach the client or recurse"
                ));
            }
            let callee = Callee::Recursive(f.span.clone());
            self.callables.push(Callable { callee, code, env });
        }
        let what = Obligation::BeforeRecursiveCall(self.callee.clone(), at.span.clone());
        self.keeps_invariant(&path, what)?;
        self.turn(&mut path);
        if !self.consistent(&path)? {
            return Ok(Vec::new());
        }
        let result = self.fresh(f.ret_ty);
        Ok(vec![(path, result)])
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
                let code_id = self.lib.methods[m as usize].code;
                if self.summarises(code_id) {
                    return self.summarised(path, code_id, Env::new(), at);
                }
                self.inlined(path, code_id, Env::unit(arg), depth + 1)
            }
            Val::Closure(code_id, env) => {
                if self.summarises(code_id) {
                    return self.summarised(path, code_id, env, at);
                }
                let code = self.lib.code(code_id);
                let mut inner = env.clone();
                if code.recursive {
                    inner.push_front(Val::Closure(code_id, env));
                }
                inner.push_front(arg);
                self.inlined(path, code_id, inner, depth + 1)
            }
            Val::Client(ty) => {
                // A client turn: the invariant must hold, then anything it allows.
                self.hand_over(&mut path, &arg)?;
                let what = Obligation::BeforeClientCall(self.callee.clone(), at.span.clone());
                self.keeps_invariant(&path, what)?;
                self.turn(&mut path);
                if !self.consistent(&path)? {
                    return Ok(Vec::new());
                }
                let Some((_, ret)) = self.lib.types.arrow(ty) else {
                    return not_covered("a client value applied that is not a function");
                };
                self.fresh_on(path, ret)
            }
            Val::Int(_) | Val::Unit | Val::Pair(..) | Val::Loc(_) => {
                not_covered("an application of a non-function")
            }
        }
    }
}

/// Whether `content` is the integers or the truth values: what a cell must hold for
/// the checker to keep its value and facts to be about it.
fn integers(lib: &Library, content: Option<TypeId>) -> bool {
    content.is_some_and(|ty| matches!(lib.types.node(ty), TypeNode::Int | TypeNode::Bool))
}

/// Whether `ty` is or holds a function type.
fn has_arrow(lib: &Library, ty: TypeId) -> bool {
    match lib.types.node(ty) {
        TypeNode::Arrow(..) => true,
        TypeNode::Pair(a, b) => has_arrow(lib, a) || has_arrow(lib, b),
        TypeNode::Ref(a) | TypeNode::List(a) => has_arrow(lib, a),
        TypeNode::Unit | TypeNode::Int | TypeNode::Bool => false,
    }
}

/// Appends to `key` what tells apart the functions of one code that reach the client:
/// the shape of what they captured, integers aside, and which cells are of one object
/// (numbered in `order` of appearance) ([`Checker::generalise`]).
fn shape(v: &Val, key: &mut String, order: &mut Vec<u32>) {
    match v {
        Val::Int(_) => key.push_str(" int"),
        Val::Unit => key.push_str(" unit"),
        Val::Pair(a, b) => {
            key.push_str(" (");
            shape(a, key, order);
            shape(b, key, order);
            key.push(')');
        }
        Val::Closure(code, env) => {
            key.push_str(&format!(" fun{code}["));
            for v in env {
                shape(v, key, order);
            }
            key.push(']');
        }
        Val::Method(m) => key.push_str(&format!(" m{m}")),
        Val::Client(ty) => key.push_str(&format!(" client{ty}")),
        Val::Loc(k) => {
            let object = match order.iter().position(|&i| i == k.inst) {
                Some(n) => n,
                None => {
                    order.push(k.inst);
                    order.len() - 1
                }
            };
            key.push_str(&format!(" cell{}#{object}", k.r));
        }
    }
}

/// The cells in `v`, those its functions captured included.
fn locations(v: &Val, out: &mut Vec<Key>) {
    match v {
        Val::Loc(k) => out.push(*k),
        Val::Pair(a, b) => {
            locations(a, out);
            locations(b, out);
        }
        Val::Closure(_, env) => env.iter().for_each(|v| locations(v, out)),
        Val::Int(_) | Val::Unit | Val::Method(_) | Val::Client(_) => {}
    }
}

/// The cells the client gets with `v`: those in it, not inside a function (a function
/// hides what it captured).
fn handed(v: &Val, out: &mut Vec<Key>) {
    match v {
        Val::Loc(k) => out.push(*k),
        Val::Pair(a, b) => {
            handed(a, out);
            handed(b, out);
        }
        Val::Closure(..) | Val::Int(_) | Val::Unit | Val::Method(_) | Val::Client(_) => {}
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
            ..Certificate::default()
        }
    }

    fn library(source: &str) -> Library {
        let loaded = crate::frontend::load_str("t.holi", source, false)
            .unwrap_or_else(|r| panic!("{}", r.render(false)));
        crate::library::build(&loaded.program)
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
        // Initially, before `send` and at the return of the path that withdraws; the
        // other path writes nothing, so the invariant holds there without a query.
        assert!(
            matches!(outcome, Outcome::Proved { obligations: 3, .. }),
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

    /// The sum that the audit asserts is kept by every method, across the client turn
    /// in `move`: found among the candidates the asserts give, and it proves the
    /// ledger; a method that leaks breaks it.
    #[test]
    fn the_relation_an_audit_asserts_proves_the_ledger() {
        let ledger = "
            import told :(int -> unit)
            int a := 10; int b := 0;
            public move (x:int) :(unit) = {
              if 0 < x && x < !a + 1 then (a := !a - x; b := !b + x; told(x)) else ()
            };
            public audit (u:unit) :(unit) = { assert (!a + !b == 10) };
        ";
        let lib = library(ledger);
        let (found, outcome) = find(&lib, &candidates(&lib), Budget::default());
        assert!(matches!(outcome, Outcome::Proved { .. }), "{outcome:?}");
        let shown: Vec<String> = (found.invariant.iter())
            .map(|f| f.display(&lib).to_string())
            .filter(|f| f.contains('b'))
            .collect();
        assert!(shown.iter().any(|f| f.contains('a')), "{shown:?}");
        let lib = library(&ledger.replace("b := !b + x", "b := !b + x + 1"));
        let (_, outcome) = find(&lib, &candidates(&lib), Budget::default());
        assert!(!matches!(outcome, Outcome::Proved { .. }), "{outcome:?}");
    }

    /// A closed account keeps no debt, an open one may: `bal + limit ≥ 0` is kept only
    /// with `bal ≥ 0 while opened = 0` (reopening resets the limit), which no
    /// unguarded candidate states. The second Houdini run finds it; the first alone
    /// does not prove the audit, and a close that forgets the balance check is never
    /// proved.
    #[test]
    fn a_fact_kept_in_one_state_of_a_flag_proves_the_account() {
        let account = "
            int opened := 1; int bal := 0; int limit := 0;
            public open_account (u:unit) :(unit) = {
              if !opened then () else (opened := 1; limit := 0) };
            public close_account (u:unit) :(unit) = {
              if !opened then (if !bal == 0 then (opened := 0; limit := 0) else ()) else () };
            public set_limit (x:int) :(unit) = {
              if !opened then (if 0 <= x && 0 <= !bal + x then limit := x else ()) else () };
            public withdraw (x:int) :(unit) = {
              if !opened then (if 0 < x && x <= !bal + !limit then bal := !bal - x else ())
              else () };
            public deposit (x:int) :(unit) = {
              if !opened then (if 0 < x then bal := !bal + x else ()) else () };
            public audit (u:unit) :(unit) = { assert (0 <= !bal + !limit) };
        ";
        let lib = library(account);
        let first = find_asking(
            &lib,
            &candidates(&lib),
            Budget::default(),
            Asking::default(),
        );
        assert!(matches!(first.1, Outcome::Refuted(_)), "{:?}", first.1);
        let (found, outcome) = find(&lib, &candidates(&lib), Budget::default());
        assert!(matches!(outcome, Outcome::Proved { .. }), "{outcome:?}");
        let shown: Vec<String> = (found.invariant.iter())
            .map(|f| f.display(&lib).to_string())
            .collect();
        assert!(
            shown.contains(&"bal ≥ 0 while opened = 0".to_string()),
            "{shown:?}"
        );
        assert!(
            !shown.contains(&"bal + limit ≥ 0 while opened = 0".to_string()),
            "implied by the unguarded fact: {shown:?}"
        );
        assert!(matches!(
            check(&lib, &found, Budget::default()),
            Outcome::Proved { .. }
        ));
        let lib = library(&account.replace("if !bal == 0 then", "if 0 == 0 then"));
        let (_, outcome) = find(&lib, &candidates(&lib), Budget::default());
        assert!(!matches!(outcome, Outcome::Proved { .. }), "{outcome:?}");
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
            ("public m (u:unit) :(unit) = { sned 1 };", "stuck"),
            (
                "ref int g := ref 0; public m (u:unit) :(int) = { !g };",
                "holds a location",
            ),
            (
                "public m (u:unit) :(int) = { let c = ref (1, 2) in fst !c };",
                "holds a pair",
            ),
        ];
        for (source, why) in cases {
            match check(&library(source), &Certificate::default(), Budget::default()) {
                Outcome::NotCovered(reason) => assert!(reason.contains(why), "{source}: {reason}"),
                other => panic!("{source}: {other:?}"),
            }
        }
    }

    #[test]
    fn the_cells_of_each_object_keep_the_facts_of_their_site() {
        // `account` makes one object per call; a withdrawal from another account
        // during `send` leaves this one's balance alone, and any object's balance
        // stays non-negative.
        let source = "import send :(int -> unit)
            public account (u:unit) :(int -> unit) = {
              let balance = ref 100 in
              fun (m:int) :(unit) ->
                if m <= !balance then
                  balance := !balance - m; send m; assert (0 <= !balance)
                else ()
            };";
        let lib = library(source);
        let (found, outcome) = find(&lib, &candidates(&lib), Budget::default());
        assert!(matches!(outcome, Outcome::Proved { .. }), "{outcome:?}");
        let shown: Vec<String> = (found.invariant.iter())
            .map(|f| f.display(&lib).to_string())
            .collect();
        assert!(shown.contains(&"cell balance ≥ 0".to_string()), "{shown:?}");
        assert!(found.disclosed.is_empty());
        // Paying out first, a reentrant withdrawal overdraws it.
        let lib = library(&source.replace(
            "balance := !balance - m; send m;",
            "send m; balance := !balance - m;",
        ));
        let (_, outcome) = find(&lib, &candidates(&lib), Budget::default());
        assert!(
            matches!(outcome, Outcome::Refuted(Obligation::Assert(_))),
            "{outcome:?}"
        );
    }

    #[test]
    fn a_relation_between_the_cells_of_one_object_proves_the_lock() {
        let source = "import listener :((unit -> int) -> unit)
            public make (u:unit) :(int -> unit) = {
              let lock = ref 0 in
              let balance = ref 100 in
              fun (m:int) :(unit) ->
                if !lock == 0 && m <= !balance then
                  lock := 1;
                  listener (fun (u:unit) :(int) -> !lock);
                  balance := !balance - m;
                  lock := 0;
                  assert (0 <= !balance)
                else ()
            };";
        let lib = library(source);
        let (found, outcome) = find(&lib, &candidates(&lib), Budget::default());
        assert!(matches!(outcome, Outcome::Proved { .. }), "{outcome:?}");
        let steps: Vec<String> = (found.steps.iter())
            .map(|s| s.display(&lib).to_string())
            .collect();
        assert!(
            steps.contains(&"while cell lock > 0, cell balance′ = cell balance".to_string()),
            "{steps:?}"
        );
    }

    #[test]
    fn a_cell_that_reaches_the_client_is_described_by_no_fact() {
        // The cell goes to the client, which may write anything there: only the
        // library's own copy is trusted.
        let lent = "import visit :(ref int -> unit)
            int total := 0;
            public deposit (m:int) :(unit) = {
              if 0 < m then (let c = ref m in visit c; total := !total + m; assert (0 <= !total))
              else ()
            };";
        let lib = library(lent);
        let (found, outcome) = find(&lib, &candidates(&lib), Budget::default());
        assert!(matches!(outcome, Outcome::Proved { .. }), "{outcome:?}");
        assert_eq!(found.disclosed.len(), 1);
        let cell = found.disclosed[0];
        assert!(found.invariant.iter().all(|f| f.refs().all(|r| r != cell)));
        // Trusting the lent cell fails: the client may have written it.
        let lib = library(&lent.replace("total := !total + m", "total := !total + !c"));
        let (_, outcome) = find(&lib, &candidates(&lib), Budget::default());
        assert!(
            matches!(outcome, Outcome::Refuted(Obligation::Assert(_))),
            "{outcome:?}"
        );
        // A certificate that keeps the cell private is not the argument.
        let private = Certificate {
            invariant: vec![Fact::at_least((lib.refs.len()) as RefId, 1)],
            ..Certificate::default()
        };
        assert!(
            matches!(
                check(&lib, &private, Budget::default()),
                Outcome::NotCovered(_)
            ),
            "a fact about a cell that reaches the client"
        );
    }

    #[test]
    fn each_aliasing_of_the_clients_cells_is_a_path() {
        let moves = |guarded: bool| {
            let guard = if guarded { "src == dst" } else { "0 == 1" };
            format!(
                "public move_all (p:ref int * ref int) :(unit) = {{
                   let src = fst p in let dst = snd p in
                   if {guard} then ()
                   else (let before = !src + !dst in
                         dst := !dst + !src; src := 0;
                         assert (!src + !dst == before))
                 }};"
            )
        };
        let lib = library(&moves(true));
        let outcome = check(&lib, &Certificate::default(), Budget::default());
        assert!(matches!(outcome, Outcome::Proved { .. }), "{outcome:?}");
        // Without the guard, moving a cell into itself empties it.
        let lib = library(&moves(false));
        let outcome = check(&lib, &Certificate::default(), Budget::default());
        assert!(
            matches!(outcome, Outcome::Refuted(Obligation::Assert(_))),
            "{outcome:?}"
        );
    }

    #[test]
    fn a_function_stored_in_a_reference_is_checked_like_a_method() {
        // `run` calls what `list` holds; each function stored there is checked.
        let source = |assertion: &str| {
            format!(
                "private empty (x:int) :(unit) = {{ () }};
                 fun list := empty;
                 int cnt := 0;
                 public enlist (n:int) :(unit) = {{
                   let l = !list in list := (fun (z:int) :(unit) -> assert ({assertion}); l z)
                 }};
                 public run (u:unit) :(unit) = {{ !list 1 }};"
            )
        };
        let lib = library(&source("0 <= !cnt"));
        let (_, outcome) = find(&lib, &candidates(&lib), Budget::default());
        assert!(
            matches!(outcome, Outcome::Proved { ref revealed, .. } if revealed.len() == 2),
            "{outcome:?}"
        );
        let lib = library(&source("0 < !cnt"));
        let (_, outcome) = find(&lib, &candidates(&lib), Budget::default());
        assert!(
            matches!(outcome, Outcome::Refuted(Obligation::Assert(_))),
            "{outcome:?}"
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

    /// A flag that starts at 0 and is set to 1 gets `≤ 1` as a candidate; a count
    /// compared with its capacity gets the capacity.
    #[test]
    fn the_constants_a_reference_is_given_bound_it() {
        let lib = library(
            "
            int used := 0; int free := 0;
            public take (u:unit) :(unit) = { if !free < 4 then used := 1 else () };
        ",
        );
        let (used, free) = (
            lib.reference("used").unwrap(),
            lib.reference("free").unwrap(),
        );
        let found = candidates(&lib).invariant;
        assert!(found.contains(&Fact::at_most(used, 1)), "{found:?}");
        assert!(found.contains(&Fact::at_most(free, 4)), "{found:?}");
        assert!(!found.contains(&Fact::at_most(used, 4)), "{found:?}");
    }

    /// A failing assert does not stop the search for the invariant short of its
    /// fixpoint: the facts a later method breaks are dropped all the same (they are what
    /// the second run guards; `allocator_fixed` is proved only so), and the outcome is
    /// still the assert.
    #[test]
    fn a_failing_assert_leaves_the_strongest_inductive_invariant() {
        let lib = library(
            "
            int a := 0;
            public first (x:int) :(unit) = { assert (x < 10) };
            public bump (u:unit) :(unit) = { a := !a + 1 };
        ",
        );
        let a = lib.reference("a").unwrap();
        let (found, outcome) = find(&lib, &candidates(&lib), Budget::default());
        assert!(
            matches!(outcome, Outcome::Refuted(Obligation::Assert(_))),
            "{outcome:?}"
        );
        assert!(!found.invariant.contains(&Fact::at_most(a, 0)), "{found:?}");
        assert!(found.invariant.contains(&Fact::at_least(a, 0)), "{found:?}");
    }

    /// A parameter stored after a range check keeps the reference in that range; the
    /// bounds come from the comparisons of the stored variable, not of another one.
    #[test]
    fn a_parameter_checked_before_it_is_stored_bounds_the_reference() {
        let lib = library(
            "
            int limit := 8; int other := 0;
            public set (n:int) :(int) = {
              let m = n + 100 in
              if n < 1 || 16 < n || m < 50 then 0 else (limit := n; other := m; 1)
            };
        ",
        );
        let (limit, other) = (
            lib.reference("limit").unwrap(),
            lib.reference("other").unwrap(),
        );
        let found = candidates(&lib).invariant;
        assert!(found.contains(&Fact::at_least(limit, 1)), "{found:?}");
        assert!(found.contains(&Fact::at_most(limit, 16)), "{found:?}");
        assert!(found.contains(&Fact::at_least(other, 50)), "{found:?}");
        assert!(!found.contains(&Fact::at_most(other, 16)), "{found:?}");
        let (found, outcome) = find(&lib, &candidates(&lib), Budget::default());
        assert!(matches!(outcome, Outcome::Proved { .. }), "{outcome:?}");
        assert!(found.invariant.contains(&Fact::at_least(limit, 1)));
    }

    /// A loop that runs as long as the store lets it cannot be inlined to its end: its
    /// recursive call is read as a client call (the invariant before it, any store
    /// satisfying it after) and the loop is checked like a method. A loop whose body
    /// fails, or that leaves the store unsafe, is never proved.
    #[test]
    fn a_loop_over_the_store_is_summarised_by_the_invariant() {
        let drain = "
            int n := 0; int cap := 5;
            public fill (t:int) :(int) = {
              letrec go (l:int) :(int) =
                if l < 1 then 0
                else if !n < !cap then (n := !n + 1; 1 + go l)
                else go (l - 1)
              in go t
            };
            public check (u:unit) :(unit) = { assert (!n <= !cap) };
        ";
        let lib = library(drain);
        let (found, outcome) = find(&lib, &candidates(&lib), Budget::thorough());
        assert!(
            matches!(outcome, Outcome::Proved { .. }),
            "{outcome:?} {:?}",
            found.invariant
        );
        // Unsafe: the loop overfills, and the assert inside the loop sees it.
        let over = drain
            .replace("!n < !cap", "!n < !cap + 1")
            .replace("1 + go l", "assert (!n <= !cap); 1 + go l");
        let (_, outcome) = find(
            &library(&over),
            &candidates(&library(&over)),
            Budget::thorough(),
        );
        assert!(
            matches!(outcome, Outcome::Refuted(Obligation::Assert(_))),
            "{outcome:?}"
        );
        // Unsafe after the loop returns: the summary's store is the invariant's, which
        // the overfilling loop breaks.
        let after = drain.replace("!n < !cap", "!n < !cap + 1");
        let (_, outcome) = find(
            &library(&after),
            &candidates(&library(&after)),
            Budget::thorough(),
        );
        assert!(matches!(outcome, Outcome::Refuted(_)), "{outcome:?}");
    }

    /// A lender pins what it lends: while the pin count is above zero, no client turn
    /// changes the owner (nor the count, which a nested loan restores), so the owner
    /// after the callback is the one before. "While pins = 0" says nothing of it.
    #[test]
    fn a_count_above_zero_keeps_what_it_pins() {
        let lib = library(
            "
            int pins := 0; int owner := 0;
            public take (w:int) :(unit) = { if !pins == 0 then owner := w else () };
            public lend (f:unit -> unit) :(unit) = {
              let o = !owner in
              pins := !pins + 1;
              f();
              assert (!owner == o);
              pins := !pins - 1
            };
        ",
        );
        let (pins, owner) = (
            lib.reference("pins").unwrap(),
            lib.reference("owner").unwrap(),
        );
        let above = |kept| Step::KeptAbove {
            guard: pins,
            value: 0.into(),
            kept,
        };
        let (found, outcome) = find(&lib, &candidates(&lib), Budget::default());
        assert!(matches!(outcome, Outcome::Proved { .. }), "{outcome:?}");
        assert!(found.steps.contains(&above(owner)), "{found:?}");
        assert_eq!(
            above(owner).display(&lib).to_string(),
            "while pins > 0, owner′ = owner"
        );
        let mut without = candidates(&lib);
        without
            .steps
            .retain(|s| !matches!(s, Step::KeptAbove { .. }));
        let (_, outcome) = find(&lib, &without, Budget::default());
        assert!(matches!(outcome, Outcome::Refuted(_)), "{outcome:?}");
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
            steps: vec![kept(c)],
            ..Certificate::default()
        };
        assert_eq!(
            check(&lib, &alone, Budget::default()),
            Outcome::Refuted(Obligation::Transitive)
        );
        let both = Certificate {
            steps: vec![kept(c), kept(lock)],
            ..Certificate::default()
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
        let libraries = libraries_at_hand();
        let mut compared = 0;
        let mut dropped = 0;
        for (path, lib) in &libraries {
            let lib = &lib;
            let all = candidates(lib);
            let together = find_asking(lib, &all, Budget::default(), Asking::default());
            let one_by_one = Asking {
                marking: Marking::OneByOne,
                ..Asking::default()
            };
            let one_by_one = find_asking(lib, &all, Budget::default(), one_by_one);
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

    /// Libraries at hand that the proof attempt proves, at the least: three of the
    /// examples and the corpus, two more of HOLiK's when `../shared` is there (a clean
    /// clone outside the workplace has none of them).
    fn least_proved() -> usize {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        if root.join("../shared/holik-bench/programs").is_dir() {
            5
        } else {
            3
        }
    }

    /// Every library at hand: the examples, the corpus and HOLiK's (when `../shared`
    /// is there), built.
    fn libraries_at_hand() -> Vec<(std::path::PathBuf, Library)> {
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
        (files.into_iter())
            .filter_map(|path| {
                let loaded = crate::frontend::load(&path, false).ok()?;
                let lib = crate::library::build(&loaded.program);
                Some((path, lib))
            })
            .collect()
    }

    /// An outcome without its count of obligations, which slicing lowers.
    fn kind(outcome: &Outcome) -> String {
        match outcome {
            Outcome::Proved { revealed, .. } => format!("proved, revealing {revealed:?}"),
            other => format!("{other:?}"),
        }
    }

    /// Slicing the assumptions and skipping the goals over references a path did not
    /// write finds the same certificate, with the same outcome, as asserting and asking
    /// everything, on every library at hand.
    #[test]
    fn sliced_queries_find_what_whole_queries_find() {
        let libraries = libraries_at_hand();
        let whole = Asking {
            sliced: false,
            ..Asking::default()
        };
        let mut proved = 0;
        for (path, lib) in &libraries {
            let all = candidates(lib);
            let sliced = find_asking(lib, &all, Budget::default(), Asking::default());
            let plain = find_asking(lib, &all, Budget::default(), whole);
            assert_eq!(sliced.0, plain.0, "{}", path.display());
            assert_eq!(kind(&sliced.1), kind(&plain.1), "{}", path.display());
            proved += usize::from(matches!(sliced.1, Outcome::Proved { .. }));
        }
        assert!(
            proved >= least_proved(),
            "only {proved} libraries proved: nothing was compared"
        );
    }

    /// The cut candidates prove every library at hand that all of them prove, and a
    /// library that never calls the client gets no turn relation.
    #[test]
    fn the_cut_candidates_prove_what_all_of_them_prove() {
        let libraries = libraries_at_hand();
        let mut proved = 0;
        for (path, lib) in &libraries {
            let cut = find(lib, &candidates(lib), Budget::default()).1;
            let all = find(lib, &candidates_cut(lib, false), Budget::default()).1;
            let is_proved = |o: &Outcome| matches!(o, Outcome::Proved { .. });
            assert_eq!(is_proved(&cut), is_proved(&all), "{}", path.display());
            proved += usize::from(is_proved(&cut));
        }
        assert!(
            proved >= least_proved(),
            "only {proved} libraries proved: nothing was compared"
        );
        let closed = library("int a := 0; int b := 0; public m (x:int) :(unit) = { a := !b + x };");
        assert!(candidates(&closed).steps.is_empty());
        assert!(!candidates_cut(&closed, false).steps.is_empty());
    }

    /// "While `g` holds `v`, `r` is unchanged" is a candidate only for references one
    /// function uses together: linear in a chain of methods that each touch two.
    #[test]
    fn a_guard_is_paired_only_with_what_it_is_used_with() {
        let mut source = String::from("import cb :(unit -> unit)\n");
        for i in 0..50 {
            source.push_str(&format!("int b{i} := 0;\n"));
        }
        for i in 0..50 {
            let j = (i + 1) % 50;
            source.push_str(&format!(
                "public t{i} (a:int) :(unit) = {{ \
                 if (!b{i} == 0) then (b{i} := !b{j} + a; cb ()) else () }};\n"
            ));
        }
        let lib = library(&source);
        let kept_while = |c: &Certificate| {
            (c.steps.iter())
                .filter(|s| matches!(s, Step::KeptWhile { .. }))
                .count()
        };
        // Each guard is tested against 0 and used with itself and its two neighbours.
        assert_eq!(kept_while(&candidates(&lib)), 50 * 3);
        assert_eq!(kept_while(&candidates_cut(&lib, false)), 50 * 50);
    }
}
