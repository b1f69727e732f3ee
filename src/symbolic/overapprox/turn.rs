//! The client's turn in the over-approximation ([`super::havoc`]), and the game it
//! makes ([`Overapproximation`]): where the library's game stops at an opponent
//! configuration, the over-approximation's first forgets what the client's calls could
//! change, and everything else is the library's game.
//!
//! The turn needs from the search only one thing, through [`Sides`]: which sides of a
//! condition the path allows, each with a model. It works on the configuration alone.

use super::havoc::{Havoc, Holds, Invariant, Pure};
use crate::library::ir::RefId;
use crate::library::Library;
use crate::symbolic::branch::Sides;
use crate::symbolic::brief::Brief;
use crate::symbolic::config::Config;
use crate::symbolic::game::{Game, LibraryGame, Paths};
use crate::symbolic::outcome::StuckReason;
use crate::symbolic::relevance::Skipped;
use crate::symbolic::step::Search;
use crate::symbolic::term::{Term, Witness};
use crate::symbolic::value::{Name, Value};
use crate::syntax::ast::{BinOp, Span};
use crate::trace::{Dir, FailureKind, Player};
use num_bigint::BigInt;
use num_traits::Zero;
use std::sync::Arc;

/// The over-approximation of every client as a game: the library's, in which the
/// client's turn makes every integer reference its calls could write take a fresh
/// value within the candidate invariants. A candidate found not to hold at a turn is
/// dropped there, and the game goes on without it: what it finds then is found
/// without it too (see [`super::houdini`]).
pub struct Overapproximation<'p> {
    game: LibraryGame<'p>,
    havoc: Havoc,
    /// The candidate invariants found not to hold so far, dropped from `havoc`.
    violated: Vec<Invariant>,
}

impl<'p> Overapproximation<'p> {
    /// The over-approximation `havoc` of `lib`, at the bounds of `brief`.
    pub fn new(lib: &'p Library, brief: &Brief, havoc: Havoc) -> Self {
        Overapproximation {
            // Its client turns write references: no call is left out.
            game: LibraryGame::new(lib, brief).making_every_call(),
            havoc,
            violated: Vec::new(),
        }
    }

    /// The candidate invariants found not to hold at some client turn or return.
    pub fn violated(&self) -> &[Invariant] {
        &self.violated
    }
}

impl<'p> Game<'p> for Overapproximation<'p> {
    type Config = Config<'p>;

    fn library(&self) -> &'p Library {
        self.game.library()
    }

    fn initial(&self) -> Config<'p> {
        self.game.initial()
    }

    fn step(&mut self, cfg: Config<'p>, search: &mut impl Search<'p>) {
        let mut turns = ClientTurns {
            lib: self.game.library(),
            havoc: &mut self.havoc,
            violated: &mut self.violated,
            search,
        };
        self.game.step(cfg, &mut turns);
    }

    fn paths(&self) -> Paths {
        Paths::Reach
    }
}

/// The search of the library's game, with the over-approximation's client turn made
/// before each opponent configuration reaches it.
struct ClientTurns<'a, 'p, S> {
    lib: &'p Library,
    havoc: &'a mut Havoc,
    violated: &'a mut Vec<Invariant>,
    search: &'a mut S,
}

impl<'p, S: Search<'p>> Sides<'p> for ClientTurns<'_, 'p, S> {
    fn sides(&mut self, cfg: &Config<'p>, cond: &Term) -> [Option<Arc<Witness>>; 2] {
        self.search.sides(cfg, cond)
    }
}

impl<'p, S: Search<'p>> Search<'p> for ClientTurns<'_, 'p, S> {
    fn opponent(&mut self, cfg: &mut Config<'p>) -> bool {
        if !client_turn(self.lib, self.havoc, cfg, self.search, self.violated) {
            let reason = "the over-approximation does not cover this library";
            self.search.inconclusive(reason.to_string());
        }
        self.search.opponent(cfg)
    }

    fn push(&mut self, cfg: Config<'p>) {
        self.search.push(cfg);
    }

    fn fail(
        &mut self,
        cfg: &Config<'p>,
        zero: Option<&Term>,
        kind: FailureKind,
        span: Span,
        witness: &Witness,
    ) {
        self.search.fail(cfg, zero, kind, span, witness);
    }

    fn stuck(&mut self, reason: StuckReason, span: Span) {
        self.search.stuck(reason, span);
    }

    fn out_of_frames(&mut self) {
        self.search.out_of_frames();
    }

    fn diverged(&mut self, cfg: &Config<'p>) {
        self.search.diverged(cfg);
    }

    fn best(&self) -> Option<&[u32]> {
        self.search.best()
    }

    fn skipped_calls(&mut self, skipped: Skipped) {
        self.search.skipped_calls(skipped);
    }

    fn inconclusive(&mut self, reason: String) {
        self.search.inconclusive(reason);
    }
}

/// How a client turn went.
enum Turn {
    /// These candidate invariants do not hold here: nothing was forgotten, and the
    /// turn must be made again without them.
    Violated(Vec<usize>),
    /// The store was forgotten. `covered` says whether the over-approximation covers
    /// what the client holds here: a reference holding anything but an integer, or a
    /// closure or private method the client holds, is outside it, and makes the
    /// search inconclusive.
    Forgotten { covered: bool },
}

/// The client's turn: [`forget_store`], with the candidate invariants it finds not to
/// hold moved from `havoc` to `refuted` until none is. Whether the over-approximation
/// covers what the client holds here.
fn client_turn<'p>(
    lib: &Library,
    havoc: &mut Havoc,
    cfg: &mut Config<'p>,
    sides: &mut impl Sides<'p>,
    refuted: &mut Vec<Invariant>,
) -> bool {
    loop {
        match forget_store(lib, havoc, cfg, sides) {
            Turn::Violated(violated) => {
                let mut i = 0;
                havoc.invariants.retain(|invariant| {
                    i += 1;
                    let holds = !violated.contains(&(i - 1));
                    if !holds {
                        refuted.push(invariant.clone());
                    }
                    holds
                });
            }
            Turn::Forgotten { covered } => return covered,
        }
    }
}

/// First the candidate invariants are checked; then every reference holding an
/// integer that the client's calls could assign from here (`feasible_writes`) gets
/// a fresh symbol, within the invariants and, where known, the values those
/// assignments store.
fn forget_store<'p>(
    lib: &Library,
    havoc: &Havoc,
    cfg: &mut Config<'p>,
    sides: &mut impl Sides<'p>,
) -> Turn {
    let returned = returned_assigns(lib, havoc, cfg);
    let mut violated = Vec::new();
    for (i, invariant) in havoc.invariants.iter().enumerate() {
        let checked = match invariant.holds {
            Holds::AtTurns => true,
            Holds::AtReturns => returned
                .as_ref()
                .is_some_and(|assigns| invariant.reference().is_some_and(|r| assigns.contains(&r))),
        };
        if !checked {
            continue;
        }
        if let Some(cond) = invariant.condition(&mut |r| int_at(cfg, r)) {
            if sides.sides(cfg, &cond)[1].is_some() {
                violated.push(i);
            }
        }
    }
    // A revealed private method, like a closure, is one the client could call only
    // after the call that revealed it: a second call in a context.
    let mut covered = !cfg.revealed.iter().any(|(name, _)| match name {
        Name::Closure(_) => true,
        Name::Method(m) => !lib.public.contains(m),
        _ => false,
    });
    if !violated.is_empty() {
        return Turn::Violated(violated);
    }
    let writes = feasible_writes(cfg, havoc, sides);
    let mut assigned: Vec<Option<Vec<&Pure>>> = vec![Some(Vec::new()); cfg.store.len()];
    let mut reset = vec![false; cfg.store.len()];
    for (write, _) in havoc.writes.iter().zip(&writes).filter(|(_, &w)| w) {
        let r = write.reference as usize;
        reset[r] = true;
        assigned[r] = match (assigned[r].take(), &write.value) {
            (Some(mut values), Some(v)) => {
                values.push(v);
                Some(values)
            }
            _ => None,
        };
    }
    for r in 0..cfg.store.len() {
        match cfg.store[r].clone() {
            Some(Value::Int(old)) if reset[r] => {
                let values = assigned[r].as_deref();
                reset_reference(cfg, havoc, r, old, values, &reset);
            }
            Some(Value::Int(_)) | None => {}
            Some(_) => covered = false,
        }
    }
    relate(cfg, havoc, &reset, sides);
    Turn::Forgotten { covered }
}

/// The integer term reference `r` holds.
fn int_at(cfg: &Config, r: RefId) -> Option<Term> {
    match cfg.store.get(r as usize) {
        Some(Some(Value::Int(t))) => Some(t.clone()),
        _ => None,
    }
}

/// Keeps the store after the resets within the candidate relations between references
/// that mention one reset, each assumed with a model of the path that meets it: the
/// witness where it does (wherever the resets kept the old values, which met every
/// candidate, just checked), or one the search finds. Where none is found the relation
/// is left out, and the over-approximation is only larger.
fn relate<'p>(cfg: &mut Config<'p>, havoc: &Havoc, reset: &[bool], sides: &mut impl Sides<'p>) {
    for invariant in &havoc.invariants {
        let relation = invariant.holds == Holds::AtTurns && invariant.reference().is_none();
        if !relation || !invariant.terms.iter().any(|(r, _)| reset[*r as usize]) {
            continue;
        }
        let Some(cond) = invariant.condition(&mut |r| int_at(cfg, r)) else {
            continue;
        };
        let witness = if cond.eval(&cfg.witness).is_some_and(|v| !v.is_zero()) {
            Some(Arc::clone(&cfg.witness))
        } else {
            let [holds, _] = sides.sides(cfg, &cond);
            holds
        };
        if let Some(witness) = witness {
            cfg.assume(cond, true, witness);
        }
    }
}

/// Where the library has just returned to the client, the references the call may
/// have assigned: those of its code, or every one for a function the
/// over-approximation does not follow.
fn returned_assigns(lib: &Library, havoc: &Havoc, cfg: &Config) -> Option<Vec<RefId>> {
    let last = cfg.trace.top()?;
    if (last.dir, last.by) != (Dir::Ret, Player::Library) {
        return None;
    }
    let code = match last.name {
        Name::Method(m) => lib.methods.get(m as usize).map(|m| m.code as usize),
        _ => None,
    };
    Some(match code.and_then(|c| havoc.assigns.get(c)) {
        Some(assigns) => assigns.clone(),
        None => (0..cfg.store.len() as RefId).collect(),
    })
}

/// Which of the assignments of `havoc` the client's calls at this turn may make
/// (see [`super::havoc`]): within the frames left, under guards some values allow
/// (those of references others may assign being any).
fn feasible_writes<'p>(cfg: &Config<'p>, havoc: &Havoc, sides: &mut impl Sides<'p>) -> Vec<bool> {
    let mut feasible = vec![false; havoc.writes.len()];
    let mut reset = vec![false; cfg.store.len()];
    // What each set of guards was found to allow, by its first write. Resetting more
    // references only frees more values, so a set allowed stays allowed: the writes
    // found feasible are those a question per write finds. A set refused is asked
    // again once a reference was reset.
    let mut allows: Vec<Option<bool>> = vec![None; havoc.writes.len()];
    loop {
        let mut changed = false;
        for (i, write) in havoc.writes.iter().enumerate() {
            let r = write.reference as usize;
            let in_reach = havoc.depths.get(r).is_some_and(|&d| d <= cfg.k)
                && matches!(cfg.store.get(r), Some(Some(Value::Int(_))));
            if feasible[i] || !in_reach {
                continue;
            }
            let set = havoc.guard_sets.get(i).copied().unwrap_or(i);
            let allowed = write.guards.is_empty()
                || *allows[set]
                    .get_or_insert_with(|| guards_allow(cfg, &write.guards, &reset, sides));
            if allowed {
                feasible[i] = true;
                // Only a newly reset reference can open another's guard.
                if !reset[r] {
                    changed = true;
                    reset[r] = true;
                    for known in &mut allows {
                        if *known == Some(false) {
                            *known = None;
                        }
                    }
                }
            }
        }
        if !changed {
            return feasible;
        }
    }
}

/// Gives reference `r` (holding `old`) a fresh value within the invariants: one of
/// `old` and `values` (evaluated with the references in `reset` and the unknowns
/// any), when the assignments it may take are all known.
fn reset_reference(
    cfg: &mut Config<'_>,
    havoc: &Havoc,
    r: usize,
    old: Term,
    values: Option<&[&Pure]>,
    reset: &[bool],
) {
    let fresh = cfg.fresh_sym();
    let Some(n) = fresh.as_sym() else {
        return;
    };
    cfg.store.set(r, Some(Value::Int(fresh.clone())));
    let (on_r, at_returns): (Vec<&Invariant>, Vec<&Invariant>) = havoc
        .invariants
        .iter()
        .filter(|i| i.reference() == Some(r as RefId))
        .partition(|i| i.holds == Holds::AtTurns);
    let bound = |i: &Invariant| i.condition(&mut |_| Some(fresh.clone()));
    // The witness keeps `old`'s value when it meets the invariants (they were just
    // checked), since `old` is one of the values; otherwise it takes the starting
    // value, which meets them all, and the values are not constrained.
    let mut witness = (*cfg.witness).clone();
    let old_value = old.eval(&cfg.witness);
    if let Some(v) = &old_value {
        witness.insert(n, v.clone());
    }
    let kept = old_value.is_some()
        && on_r.iter().all(|i| {
            bound(i)
                .and_then(|c| c.eval(&witness))
                .is_some_and(|c| !c.is_zero())
        });
    let mut conditions = Vec::new();
    if kept && !at_returns.is_empty() {
        // The client's calls at this turn have all returned: the value is the one the
        // last that assigned `r` returned with, or `old` if none did.
        let returned = at_returns.iter().try_fold(Term::Const(1.into()), |all, i| {
            Term::binary(BinOp::And, &all, &bound(i)?).ok()
        });
        let unchanged = Term::binary(BinOp::Eq, &fresh, &old);
        if let (Some(returned), Ok(unchanged)) = (returned, unchanged) {
            conditions.extend(Term::binary(BinOp::Or, &unchanged, &returned).ok());
        }
    }
    match values.filter(|_| kept) {
        Some(values) => {
            let mut one_of = Term::binary(BinOp::Eq, &fresh, &old).ok();
            for v in values {
                let mut value = |reference: Option<RefId>| {
                    kept_term(cfg, reset, reference).unwrap_or_else(|| {
                        let any = cfg.fresh_sym();
                        if let Some(m) = any.as_sym() {
                            witness.insert(m, BigInt::zero());
                        }
                        any
                    })
                };
                let v = v.term(&mut value);
                one_of = one_of.and_then(|o| {
                    let is_v = Term::binary(BinOp::Eq, &fresh, &v).ok()?;
                    Term::binary(BinOp::Or, &o, &is_v).ok()
                });
            }
            conditions.extend(one_of);
        }
        None if kept => {}
        None => {
            witness.insert(
                n,
                on_r.first().map_or_else(BigInt::zero, |i| i.start.clone()),
            );
        }
    }
    conditions.extend(on_r.iter().filter_map(|i| bound(i)));
    // Kept even with no condition, so that the relations between references
    // ([`relate`]) are assumed with it where it meets them, without a query.
    let witness = Arc::new(witness);
    cfg.witness = Arc::clone(&witness);
    for condition in conditions {
        cfg.assume(condition, true, Arc::clone(&witness));
    }
}

/// Whether some values of the references in `reset` and of the unknowns meet all
/// of `guards` with the rest of the store.
fn guards_allow<'p>(
    cfg: &Config<'p>,
    guards: &[(Pure, bool)],
    reset: &[bool],
    sides: &mut impl Sides<'p>,
) -> bool {
    let mut scratch = cfg.clone();
    let mut value =
        |r: Option<RefId>| kept_term(&scratch, reset, r).unwrap_or_else(|| scratch.fresh_sym());
    let mut all = Term::Const(1.into());
    for (guard, holds) in guards {
        let t = guard.term(&mut value);
        let t = if *holds { t } else { Term::not(&t) };
        all = Term::binary(BinOp::And, &all, &t).unwrap_or(all);
    }
    sides.sides(&scratch, &all)[0].is_some()
}

/// The term reference `r` holds in `cfg`, when it is an integer not in `reset`; `None`
/// (any value) for a reset reference or an unknown (`r` is `None`).
fn kept_term(cfg: &Config, reset: &[bool], r: Option<RefId>) -> Option<Term> {
    match cfg.store.get(r.filter(|&r| !reset[r as usize])? as usize) {
        Some(Some(Value::Int(t))) => Some(t.clone()),
        _ => None,
    }
}
