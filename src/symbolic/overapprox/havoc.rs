//! Proving failure sites unreachable with an over-approximation (`--no-havoc` turns it
//! off).
//!
//! Branch and bound ([`crate::symbolic::Techniques::bound`]) starts only once every failure
//! site in live code ([`Library::live_codes`]) has a trace, and the split's search for
//! a part's lower bound ([`crate::symbolic::split`]) is cut short only when the part alone
//! reaches all its sites; a live site no trace reaches keeps both searching to the end.
//! This module proves such sites unreachable, cheaply, where the library's state is
//! integers in references.
//!
//! In the *havoc* semantics every reference holding an integer takes a fresh symbolic
//! value at each client turn. Between two of its moves, the client's other calls
//! (reentrant or not) change what the library will do only through the references, so
//! every run of the library is a run of the havoc semantics with the values they left;
//! a site the havoc semantics never reaches, the library never reaches.
//!
//! The client needs only one call per context there (l = 1): a failure happens in a
//! frame whose chain of enclosing client calls, one per open frame, is a run by itself.
//! Each frame of the chain depends only on its argument, the client's answers and the
//! references at client turns, all of which the havoc semantics leaves free; and the
//! chain holds the same frames, so k is as before.
//!
//! A client turn with few frames left cannot change every reference: the client's
//! calls there open at least one frame each, and reaching an assignment may take more
//! (the method's own calls on the way). So a reference is reset only at turns with at
//! least as many frames left as any client call needs to write it ([`write_depths`]);
//! the others keep their values, as they do in the library.
//!
//! Resetting a reference to any integer forgets what the library keeps true of it,
//! such as a balance never below zero. So the reset values are kept within candidate
//! invariants, bounds each reference's starting value satisfies (`r ≥ v`, `r ≤ v`, and
//! `r ≥ 0` or `r ≤ 0`) and linear relations between references that the library's
//! asserts state (`bal + limit ≥ 0`, a sum that stays equal to another: see
//! [`crate::symbolic::asserted`]), and every client turn checks them: where some may fail, those
//! are dropped, and once the search is over it is redone without them, until none
//! fails (the Houdini algorithm). The search goes on past a refuted invariant without
//! it: an over-approximation with fewer invariants is larger, so an invariant refuted
//! or a site reached with more of them assumed is refuted or reached with the ones
//! that hold too, and needs no new round.
//! Then they hold at every client turn of the library too: by induction on the turns,
//! each segment of the library's run between two of them is one of the
//! over-approximation, starting from values the invariants allow.
//!
//! A bound at every turn can still be too weak. In Pitts and Stark's awkward example
//! (`x := 0; f(); x := 1; f(); assert(!x == 1)`) `x` is 0 at some turns, yet the
//! client's calls in the second `f()` leave it at 1. HOLi has no control operators, so
//! a client turn is a sequence of complete calls, and a reference ends the turn with
//! the value it had when the turn began, or with the one the last call that changed it
//! returned with. So candidate invariants *at returns* (bounds at the reference's
//! starting value and at each constant the code assigns it) are checked wherever a
//! call of code that may assign the reference ([`may_assign`]) returns to the client,
//! and a reset value is the old one or one that meets them. A call of other code
//! changes the reference only in the client's calls nested in it, so by induction on
//! the nesting, and along the turn's calls, a call returns with the value it found or
//! one a nested call returned with, and a turn ends with its first value or one a call
//! of assigning code returned with. A return, like a failure, ends a chain of client
//! calls that is a run by itself (l = 1 above); so by induction on the library's run
//! the invariants at returns hold at each return, and the same Houdini rounds drop
//! those refuted. Other parts of a split library assign none of a part's references,
//! so their calls are calls of other code. (`lang/proofs.md` §1 argues the same way
//! for its turn relation.)
//!
//! Nor can a client call assign a reference where the library's code guards the
//! assignment by a condition the store fails, such as a lock held: [`guarded_writes`]
//! lists each assignment a client call can make with the conditions on the store at
//! the call's start that lead to it. At a client turn only the references of
//! assignments whose conditions some values allow are reset, the store's values taken
//! for the others, and any value for those already reset (a fixed point: one reset
//! may open the guard of another). By induction on the library's run, its first
//! assignment to a reference not reset would be in a call whose guard held of the
//! store as the turn left it, apart from references reset.
//!
//! The argument needs all of the library's state to be in its references: it applies
//! when every reference starts out holding an integer (or is never read), and
//! neither a closure (which keeps values of the frame that made it, and may be called
//! from another) nor a private method (which the client could call only after the call
//! that revealed it, a second call in one context) reaches the client; the search
//! checks the latter as it goes.

use crate::library::ir::GlobalName;
use crate::library::ir::{CodeId, Expr, ExprKind, RefId};
use crate::library::{Initial, Library};
use crate::symbolic::asserted;
use crate::symbolic::term::Term;
use crate::syntax::ast::BinOp;
use num_bigint::BigInt;
use num_traits::{One, Signed, Zero};
use std::collections::{BTreeSet, HashSet};

/// What the over-approximation resets at client turns, and within what.
pub struct Havoc {
    /// For each reference, the frames a client call needs to assign it.
    pub depths: Vec<u32>,
    pub writes: Vec<Write>,
    /// For each write, the index of the first write with the same guards
    /// ([`guard_sets`]).
    pub guard_sets: Vec<usize>,
    pub invariants: Vec<Invariant>,
    /// For each code, the references a call of it can assign ([`may_assign`]).
    pub assigns: Vec<Vec<RefId>>,
}

/// For each of `writes`, the index of the first with the same guards: the writes of
/// one branch share them (allocator_fixed: 157 writes under 26 sets of guards), and a
/// client turn asks once per set whether they can hold.
pub fn guard_sets(writes: &[Write]) -> Vec<usize> {
    (writes.iter().enumerate())
        .map(|(i, w)| {
            (writes[..i].iter())
                .position(|earlier| earlier.guards == w.guards)
                .unwrap_or(i)
        })
        .collect()
}

/// An integer expression of the library's code whose value a client call fixes before
/// it changes anything: over the store at the call's start, and values it does not
/// track.
#[derive(Clone, Debug, PartialEq)]
pub enum Pure {
    Int(BigInt),
    Ref(RefId),
    /// An argument, a client's answer, or anything else: any value.
    Unknown,
    Not(Box<Pure>),
    Binary(BinOp, Box<Pure>, Box<Pure>),
}

impl Pure {
    /// `e` as a pure expression, with the local variables `env` (innermost last;
    /// those beyond it are unknown); it may read the store only when `pristine`.
    fn of(e: &Expr, env: &[Pure], pristine: bool) -> Option<Pure> {
        Some(match &e.kind {
            ExprKind::Int(n) => Pure::Int(n.clone()),
            ExprKind::Deref(r) if pristine => Pure::Ref(*r),
            ExprKind::Local(i) => (*i as usize)
                .checked_add(1)
                .and_then(|i| env.len().checked_sub(i))
                .map_or(Pure::Unknown, |i| env[i].clone()),
            ExprKind::Not(a) => Pure::Not(Box::new(Pure::of(a, env, pristine)?)),
            // A division can fail, which is not a value.
            ExprKind::Binary(op, a, b) if !matches!(op, BinOp::Div | BinOp::Mod) => Pure::Binary(
                *op,
                Box::new(Pure::of(a, env, pristine)?),
                Box::new(Pure::of(b, env, pristine)?),
            ),
            _ => return None,
        })
    }

    /// The value, given a term for each reference and for each unknown.
    pub fn term(&self, value: &mut dyn FnMut(Option<RefId>) -> Term) -> Term {
        match self {
            Pure::Int(n) => Term::Const(n.clone()),
            Pure::Ref(r) => value(Some(*r)),
            Pure::Unknown => value(None),
            Pure::Not(a) => Term::not(&a.term(value)),
            Pure::Binary(op, a, b) => {
                let (a, b) = (a.term(value), b.term(value));
                // Not a division, so never an error; an unknown value covers it anyway.
                Term::binary(*op, &a, &b).unwrap_or_else(|_| value(None))
            }
        }
    }
}

/// An assignment a client call can make (in its own code or the library code it
/// calls), under conditions on the store at the call's start: each a pure expression
/// and whether it holds (is nonzero). The value assigned, when the call fixes it at
/// its start.
#[derive(Clone, Debug, PartialEq)]
pub struct Write {
    pub reference: RefId,
    pub guards: Vec<(Pure, bool)>,
    pub value: Option<Pure>,
}

/// Library calls inlined into one client call's analysis at most; deeper ones count
/// as assigning whatever they can, unguarded by what follows.
const MAX_INLINE: usize = 8;

/// Every assignment a client call can make (see [`Write`]); a reference without one
/// is never assigned by the client's calls.
///
/// A client call's code is followed from its start while it has neither assigned nor
/// called out (so the store is as the call found it): conditions of `if`s and
/// `assert`s met there guard what comes after (a failed `assert` ends the run), and
/// values read there keep what they read. Library methods it calls are followed in
/// place; any other call, and a method already being followed, may assign whatever
/// its code can.
pub fn guarded_writes(lib: &Library) -> Vec<Write> {
    let values = lib.value_codes();
    let mut guards = Guards {
        lib,
        writes_of: may_assign(lib),
        values: &values,
        inlined: Vec::new(),
        out: Vec::new(),
    };
    let entries = lib
        .public
        .iter()
        .map(|&m| lib.methods[m as usize].code)
        .chain(values.iter().copied())
        .collect::<BTreeSet<_>>();
    for code in entries {
        let start = Follow {
            guards: Vec::new(),
            pristine: true,
        };
        guards.inlined.push(code);
        guards.walk(
            &lib.codes[code as usize].body,
            &mut vec![Pure::Unknown],
            start,
        );
        guards.inlined.pop();
    }
    guards.out
}

/// For each code, the references a call of it can assign, in its own code or the
/// library code it calls (a call of a function value may be a call of any code that
/// can be one), but not in the client's calls it makes in turn.
pub fn may_assign(lib: &Library) -> Vec<Vec<RefId>> {
    let values = lib.value_codes();
    let mut writes_of: Vec<Vec<RefId>> = vec![Vec::new(); lib.codes.len()];
    // A least fixed point, from none.
    loop {
        let mut changed = false;
        for code in 0..lib.codes.len() {
            let mut writes = Vec::new();
            assigned(lib, &values, &writes_of, &lib.codes[code].body, &mut writes);
            writes.sort_unstable();
            writes.dedup();
            if writes != writes_of[code] {
                writes_of[code] = writes;
                changed = true;
            }
        }
        if !changed {
            return writes_of;
        }
    }
}

/// The references applying `f` can assign, given `writes_of` for each code.
fn callee_writes(
    lib: &Library,
    values: &HashSet<CodeId>,
    writes_of: &[Vec<RefId>],
    f: &Expr,
) -> Vec<RefId> {
    match &f.kind {
        ExprKind::Global(GlobalName::Method(m)) => {
            writes_of[lib.methods[*m as usize].code as usize].clone()
        }
        // A client function: its calls are client calls of their own.
        ExprKind::Global(_) => Vec::new(),
        _ => values
            .iter()
            .flat_map(|&c| writes_of[c as usize].iter().copied())
            .collect(),
    }
}

fn assigned(
    lib: &Library,
    values: &HashSet<CodeId>,
    writes_of: &[Vec<RefId>],
    e: &Expr,
    out: &mut Vec<RefId>,
) {
    match &e.kind {
        ExprKind::Assign(r, _) => out.push(*r),
        ExprKind::App(f, _) => out.extend(callee_writes(lib, values, writes_of, f)),
        _ => {}
    }
    for child in e.children() {
        assigned(lib, values, writes_of, child, out);
    }
}

struct Guards<'a> {
    lib: &'a Library,
    /// The references each code can assign ([`may_assign`]).
    writes_of: Vec<Vec<RefId>>,
    values: &'a HashSet<CodeId>,
    /// The codes being followed, outermost first.
    inlined: Vec<CodeId>,
    out: Vec<Write>,
}

/// Where the analysis of a client call stands on one path through its code.
#[derive(Clone)]
struct Follow {
    /// Conditions met so far on the store at the call's start.
    guards: Vec<(Pure, bool)>,
    /// Nothing assigned or called out yet.
    pristine: bool,
}

impl Guards<'_> {
    fn callee(&self, f: &Expr) -> Vec<RefId> {
        callee_writes(self.lib, self.values, &self.writes_of, f)
    }

    /// Records the assignments of evaluating `e` from `at`, with local variables
    /// `env`; where the analysis stands after it (on every path).
    fn walk(&mut self, e: &Expr, env: &mut Vec<Pure>, at: Follow) -> Follow {
        match &e.kind {
            ExprKind::If(c, t, f) => {
                let at = self.walk(c, env, at);
                let mut then = at.clone();
                let mut else_ = at.clone();
                if let Some(g) = Pure::of(c, env, at.pristine) {
                    then.guards.push((g.clone(), true));
                    else_.guards.push((g, false));
                }
                let then = self.walk(t, env, then);
                let else_ = self.walk(f, env, else_);
                Follow {
                    pristine: then.pristine && else_.pristine,
                    ..at
                }
            }
            ExprKind::Match(scrutinee, nil, cons) => {
                let at = self.walk(scrutinee, env, at);
                let nil = self.walk(nil, env, at.clone());
                // The head and the tail: nothing known of either.
                env.extend([Pure::Unknown, Pure::Unknown]);
                let cons = self.walk(cons, env, at.clone());
                env.truncate(env.len() - 2);
                Follow {
                    pristine: nil.pristine && cons.pristine,
                    ..at
                }
            }
            ExprKind::Assert(c) => {
                let mut at = self.walk(c, env, at);
                if let Some(g) = Pure::of(c, env, at.pristine) {
                    at.guards.push((g, true));
                }
                at
            }
            ExprKind::Let(a, b) => {
                let at = self.walk(a, env, at);
                env.push(Pure::of(a, env, at.pristine).unwrap_or(Pure::Unknown));
                let at = self.walk(b, env, at);
                env.pop();
                at
            }
            ExprKind::LetRec(_, b) => {
                env.push(Pure::Unknown);
                let at = self.walk(b, env, at);
                env.pop();
                at
            }
            ExprKind::Assign(r, a) => {
                let mut at = self.walk(a, env, at);
                let value = Pure::of(a, env, at.pristine);
                self.record(*r, &at.guards, value);
                at.pristine = false;
                at
            }
            ExprKind::App(f, a) => {
                let at = self.walk(f, env, at);
                let mut at = self.walk(a, env, at);
                if let ExprKind::Global(GlobalName::Method(m)) = f.kind {
                    let code = self.lib.methods[m as usize].code;
                    if at.pristine
                        && self.inlined.len() < MAX_INLINE
                        && !self.inlined.contains(&code)
                    {
                        let arg = Pure::of(a, env, true).unwrap_or(Pure::Unknown);
                        self.inlined.push(code);
                        let body = &self.lib.codes[code as usize].body;
                        let after = self.walk(body, &mut vec![arg], at);
                        self.inlined.pop();
                        return after;
                    }
                }
                for r in self.callee(f) {
                    self.record(r, &at.guards, None);
                }
                at.pristine = false;
                at
            }
            _ => e.children().fold(at, |at, child| self.walk(child, env, at)),
        }
    }

    fn record(&mut self, reference: RefId, guards: &[(Pure, bool)], value: Option<Pure>) {
        let write = Write {
            reference,
            guards: guards.to_vec(),
            value,
        };
        if !self.out.contains(&write) {
            self.out.push(write);
        }
    }
}

/// A candidate invariant: `Σ coefficient · reference op bound`. A bound on one
/// reference (coefficient 1) is a candidate at client turns or at returns; a relation
/// between references, from the library's asserts ([`crate::symbolic::asserted`]), at turns.
#[derive(Clone, PartialEq)]
pub struct Invariant {
    pub terms: Vec<(RefId, BigInt)>,
    /// `Ge` or `Le`.
    pub op: BinOp,
    pub bound: BigInt,
    /// The sum's starting value.
    pub start: BigInt,
    pub holds: Holds,
}

/// Where a candidate invariant is claimed to hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holds {
    /// At every client turn; the references' starting values meet it.
    AtTurns,
    /// Wherever a call of code that may assign the reference ([`may_assign`]) returns
    /// to the client.
    AtReturns,
}

impl Invariant {
    /// The reference it bounds, when it bounds one.
    pub fn reference(&self) -> Option<RefId> {
        match self.terms.as_slice() {
            [(r, c)] if c.is_one() => Some(*r),
            _ => None,
        }
    }

    /// The invariant for the references' values `value` (`None` for one that holds no
    /// integer, which leaves it unknown): 1 if it holds, 0 if not.
    pub fn condition(&self, value: &mut dyn FnMut(RefId) -> Option<Term>) -> Option<Term> {
        let mut sum = Term::Const(BigInt::zero());
        for (r, c) in &self.terms {
            let scaled = Term::binary(BinOp::Mul, &Term::Const(c.clone()), &value(*r)?).ok()?;
            sum = Term::binary(BinOp::Add, &sum, &scaled).ok()?;
        }
        Term::binary(self.op, &sum, &Term::Const(self.bound.clone())).ok()
    }
}

/// The candidate invariants of every reference starting out with an integer: at
/// client turns, bounds its starting value meets, and the relations the library's
/// asserts state that the starting values meet ([`crate::symbolic::asserted`]); at returns,
/// bounds at the starting value and at each constant the code assigns it.
pub(super) fn candidates(lib: &Library) -> Vec<Invariant> {
    let mut constants = vec![BTreeSet::new(); lib.store.len()];
    for code in &lib.codes {
        assigned_constants(&code.body, &mut constants);
    }
    let mut out = Vec::new();
    for (r, initial) in lib.store.iter().enumerate() {
        let Initial::Int(v) = initial else {
            continue;
        };
        let zero = BigInt::zero();
        let mut bounds = vec![(BinOp::Ge, v.clone()), (BinOp::Le, v.clone())];
        if v.is_positive() {
            bounds.push((BinOp::Ge, zero));
        } else if v.is_negative() {
            bounds.push((BinOp::Le, zero));
        }
        let invariant = |(op, bound), holds| Invariant {
            terms: vec![(r as RefId, BigInt::one())],
            op,
            bound,
            start: v.clone(),
            holds,
        };
        out.extend(bounds.into_iter().map(|b| invariant(b, Holds::AtTurns)));
        constants[r].insert(v.clone());
        let at_returns = constants[r]
            .iter()
            .flat_map(|c| [(BinOp::Ge, c.clone()), (BinOp::Le, c.clone())]);
        out.extend(at_returns.map(|b| invariant(b, Holds::AtReturns)));
    }
    for fact in asserted::facts(lib) {
        let Some(start) = fact.initially(lib) else {
            continue;
        };
        // `-r ≥ b` is the bound `r ≤ -b`, which resets treat as one.
        let (terms, op, bound, start) = match fact.terms.as_slice() {
            [(r, c)] if (-c).is_one() => {
                (vec![(*r, BigInt::one())], BinOp::Le, -fact.constant, -start)
            }
            _ => (fact.terms, BinOp::Ge, fact.constant, start),
        };
        let invariant = Invariant {
            terms,
            op,
            bound,
            start,
            holds: Holds::AtTurns,
        };
        if !out.contains(&invariant) {
            out.push(invariant);
        }
    }
    out
}

/// Adds to `out` each constant `e` assigns to a reference.
fn assigned_constants(e: &Expr, out: &mut [BTreeSet<BigInt>]) {
    if let ExprKind::Assign(r, a) = &e.kind {
        if let (ExprKind::Int(c), Some(set)) = (&a.kind, out.get_mut(*r as usize)) {
            set.insert(c.clone());
        }
    }
    for child in e.children() {
        assigned_constants(child, out);
    }
}

/// Whether every reference starts out holding an integer, or is never declared and
/// never read (so what it holds does not matter); see the module documentation.
pub(super) fn applies(lib: &Library) -> bool {
    // Cells are state outside the global references it abstracts
    // (`lang/references.md` §4.6).
    if lib.uses_refs {
        return false;
    }
    fn reads(e: &Expr, out: &mut HashSet<RefId>) {
        if let ExprKind::Deref(r) = e.kind {
            out.insert(r);
        }
        for child in e.children() {
            reads(child, out);
        }
    }
    let mut read = HashSet::new();
    for code in &lib.codes {
        reads(&code.body, &mut read);
    }
    lib.store
        .iter()
        .enumerate()
        .all(|(r, initial)| match initial {
            Initial::Int(_) => true,
            Initial::Absent => !read.contains(&(r as RefId)),
            Initial::Name(_)
            | Initial::Unit
            | Initial::Nil
            | Initial::Pair(..)
            | Initial::Loc(_) => false,
        })
}

/// For each reference, a lower bound on the frames a client call needs to assign it:
/// its own frame and those of the library functions it must call first. `cap + 1`
/// stands for more than `cap` (or never).
pub fn write_depths(lib: &Library, cap: u32) -> Vec<u32> {
    let mut depths = Depths {
        lib,
        never: cap.saturating_add(1),
        values: lib.value_codes(),
        calls: vec![Cost::zero(lib.refs.len()); lib.codes.len()],
    };
    // From below, the costs of calling each code rise to their least fixed point (or
    // past the cap); every step on the way is a lower bound.
    loop {
        let mut changed = false;
        for code in 0..lib.codes.len() {
            let body = depths.expr(&lib.codes[code].body);
            let call = body.opened(depths.never);
            if call != depths.calls[code] {
                depths.calls[code] = call;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    // A client call enters a public method or a function value.
    let mut out = vec![depths.never; lib.refs.len()];
    let entries = lib
        .public
        .iter()
        .map(|&m| lib.methods[m as usize].code)
        .chain(depths.values.iter().copied());
    for code in entries {
        for (r, &w) in depths.calls[code as usize].writes.iter().enumerate() {
            out[r] = out[r].min(w);
        }
    }
    out
}

/// Lower bounds on the frames an evaluation needs: to finish, and to assign each
/// reference.
#[derive(Clone, PartialEq, Eq)]
struct Cost {
    finish: u32,
    writes: Vec<u32>,
}

impl Cost {
    fn zero(refs: usize) -> Cost {
        Cost {
            finish: 0,
            writes: vec![0; refs],
        }
    }

    /// Evaluates nothing: finishes at once, assigns nothing.
    fn none(refs: usize, never: u32) -> Cost {
        Cost {
            finish: 0,
            writes: vec![never; refs],
        }
    }

    /// `self`, then `next`.
    fn then(mut self, next: &Cost) -> Cost {
        for (w, &n) in self.writes.iter_mut().zip(&next.writes) {
            *w = (*w).min(self.finish.max(n));
        }
        self.finish = self.finish.max(next.finish);
        self
    }

    /// One of `self` and `other`.
    fn or(mut self, other: &Cost) -> Cost {
        for (w, &o) in self.writes.iter_mut().zip(&other.writes) {
            *w = (*w).min(o);
        }
        self.finish = self.finish.min(other.finish);
        self
    }

    /// In a frame of its own.
    fn opened(mut self, never: u32) -> Cost {
        self.finish = (self.finish + 1).min(never);
        for w in &mut self.writes {
            *w = (*w + 1).min(never);
        }
        self
    }
}

struct Depths<'a> {
    lib: &'a Library,
    never: u32,
    /// Codes that can be function values.
    values: HashSet<CodeId>,
    /// The cost of calling each code, so far.
    calls: Vec<Cost>,
}

impl Depths<'_> {
    fn expr(&self, e: &Expr) -> Cost {
        let refs = self.lib.refs.len();
        let none = || Cost::none(refs, self.never);
        match &e.kind {
            ExprKind::Local(_)
            | ExprKind::Global(_)
            | ExprKind::Int(_)
            | ExprKind::Unit
            | ExprKind::Diverge
            | ExprKind::Nil
            | ExprKind::Deref(_)
            | ExprKind::Lambda(_) => none(),
            ExprKind::Assign(r, a) => {
                let mut cost = self.expr(a);
                let w = &mut cost.writes[*r as usize];
                *w = (*w).min(cost.finish);
                cost
            }
            ExprKind::Not(a)
            | ExprKind::Fst(a)
            | ExprKind::Snd(a)
            | ExprKind::Assert(a)
            | ExprKind::Alloc(a, _)
            | ExprKind::Load(a)
            | ExprKind::LetRec(_, a) => self.expr(a),
            ExprKind::Pair(a, b)
            | ExprKind::Cons(a, b)
            | ExprKind::Binary(_, a, b)
            | ExprKind::Seq(a, b)
            | ExprKind::Store(a, b)
            | ExprKind::Let(a, b) => self.expr(a).then(&self.expr(b)),
            ExprKind::If(c, t, f) | ExprKind::Match(c, t, f) => {
                self.expr(c).then(&self.expr(t).or(&self.expr(f)))
            }
            ExprKind::App(f, a) => {
                let callee = match &f.kind {
                    ExprKind::Global(GlobalName::Method(m)) => {
                        self.calls[self.lib.methods[*m as usize].code as usize].clone()
                    }
                    // A client function: what the client does there needs more frames
                    // than its own call would, so only finishing counts.
                    ExprKind::Global(_) => none(),
                    // Some function value: a client function or a library one.
                    _ => self
                        .values
                        .iter()
                        .fold(none(), |cost, &code| cost.or(&self.calls[code as usize])),
                };
                self.expr(f).then(&self.expr(a)).then(&callee)
            }
        }
    }
}

#[cfg(test)]
pub(in crate::symbolic) mod tests {
    use super::*;

    pub(in crate::symbolic) fn library(src: &str) -> Library {
        let loaded = crate::frontend::load_str("t.holi", src, false)
            .unwrap_or_else(|r| panic!("{}", r.render(false)));
        crate::library::build(&loaded.program)
    }

    fn reference(lib: &Library, name: &str) -> RefId {
        lib.refs.iter().position(|r| r == name).unwrap() as RefId
    }

    /// The lock counter of HOLiK's `various_safe`: while `f` runs the lock is held, so
    /// no client call can change `c`, and the assert holds.
    pub(in crate::symbolic) const LOCKED: &str = "
        int lock := 1; int c := 0;
        public inc (f:unit -> unit) :(unit) = {
          if !lock
          then let old = !c in lock := 0; f(); c := !c + 1; lock := 1; assert(!c == old + 1)
          else ()
        };
        public read (u:unit) :(int) = { !c };
    ";

    #[test]
    fn assignments_carry_the_guards_met_before_them() {
        let lib = library(LOCKED);
        let (lock, c) = (reference(&lib, "lock"), reference(&lib, "c"));
        let writes = guarded_writes(&lib);
        let held = vec![(Pure::Ref(lock), true)];
        assert!(writes.contains(&Write {
            reference: lock,
            guards: held.clone(),
            value: Some(Pure::Int(0.into())),
        }));
        // `!c + 1` is read after the call out: its value is not fixed at the start.
        assert!(writes.contains(&Write {
            reference: c,
            guards: held,
            value: None,
        }));
        assert_eq!(writes.len(), 3);
    }

    /// The writes of one branch share their set of guards; a write under other
    /// guards is its own set.
    #[test]
    fn writes_under_the_same_guards_make_one_set() {
        let lib = library(
            "
            int flag := 0; int a := 0; int b := 0;
            public m (x:int) :(unit) = { if !flag then (a := 1; b := 2) else a := 3 };
        ",
        );
        let writes = guarded_writes(&lib);
        let sets = guard_sets(&writes);
        for (i, w) in writes.iter().enumerate() {
            assert_eq!(writes[sets[i]].guards, w.guards);
            assert!(sets[i] <= i);
        }
        let distinct = (0..writes.len()).filter(|&i| sets[i] == i).count();
        assert_eq!((writes.len(), distinct), (3, 2), "{writes:?}");
    }

    #[test]
    fn values_read_at_the_start_are_kept_through_inlined_calls() {
        let lib = library(
            "
            import get :(unit -> int)
            int local := 0; int remote := 0;
            private push (u:unit) :(unit) = { let tmp = !local in remote := tmp };
            public sync (i:int) :(unit) = { push(); assert(get() == !remote); local := i };
        ",
        );
        let (local, remote) = (reference(&lib, "local"), reference(&lib, "remote"));
        let writes = guarded_writes(&lib);
        assert!(writes.contains(&Write {
            reference: remote,
            guards: vec![],
            value: Some(Pure::Ref(local)),
        }));
        assert!(writes.contains(&Write {
            reference: local,
            guards: vec![],
            value: Some(Pure::Unknown),
        }));
    }

    #[test]
    fn write_depths_count_the_frames_on_the_way() {
        let lib = library(
            "
            import f :(unit -> unit)
            int a := 0; int b := 0; int c := 0;
            public one (u:unit) :(unit) = { a := 1 };
            public two (u:unit) :(unit) = { helper() };
            private helper (u:unit) :(unit) = { f(); b := 1 };
            private never (u:unit) :(unit) = { c := 1 };
        ",
        );
        let depths = write_depths(&lib, 4);
        assert_eq!(depths[reference(&lib, "a") as usize], 1);
        assert_eq!(depths[reference(&lib, "b") as usize], 2);
        // Only a method no client call reaches assigns `c`.
        assert_eq!(depths[reference(&lib, "c") as usize], 5);
    }
}
