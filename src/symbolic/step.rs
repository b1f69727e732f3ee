//! One step of the search: the machine runs a configuration to its next stop, and the
//! stop decides the successors. Both sides of a symbolic branch that the path allows,
//! the configuration after a P-move, every O-move of an opponent configuration, one
//! configuration per choice of location; a failure, a stuck path or the frame limit
//! ends the path.
//!
//! The step knows nothing of how the search orders, prunes or records what it finds:
//! it asks the search through [`Search`], in the spirit of a model checker's
//! visitor. Successors are pushed last first, so that a depth-first worklist pops
//! them in the library's own order.

use super::branch::Sides;
use super::config::{Config, Control};
use super::machine::{self, Stop, Stuck};
use super::moves;
use super::outcome::StuckReason;
use super::relevance::{Relevance, Skipped};
use super::stand_in::StandIn;
use super::term::{Term, Witness};
use super::value::Value;
use crate::library::Library;
use crate::syntax::ast::Span;
use crate::trace::FailureKind;
use std::sync::Arc;

/// What a step asks of the search; [`Sides`] decides symbolic branches. `C` is the
/// game's configuration ([`super::game::Game::Config`]): a library's, or a product
/// of two libraries' whose steps are each one library's step.
pub trait Search<'p, C = Config<'p>>: Sides<'p> {
    /// An opponent configuration was reached: whether its O-moves are to be explored
    /// (false when it is pruned). The search may change it first (the client's turn
    /// of the over-approximation).
    fn opponent(&mut self, cfg: &mut C) -> bool;
    /// A successor to explore.
    fn push(&mut self, cfg: C);
    /// The library configuration `cfg`'s trace fails at `span`, where `zero` (an
    /// `assert`'s condition, a divisor), if any, is 0; `witness` is a model of that for
    /// its symbols.
    fn fail(
        &mut self,
        cfg: &Config<'p>,
        zero: Option<&Term>,
        kind: FailureKind,
        span: Span,
        witness: &Witness,
    );
    /// The path got stuck at `span`.
    fn stuck(&mut self, reason: StuckReason, span: Span);
    /// The path ended on the frame limit.
    fn out_of_frames(&mut self);
    /// The path diverged (`_bot_`): the library never moves again on it.
    fn diverged(&mut self, cfg: &Config<'p>);
    /// The shortest failing trace found per site (by the numbering of
    /// [`Library::failure_sites`]), when client calls that cannot shorten one may be
    /// left out (branch and bound).
    fn best(&self) -> Option<&[u32]>;
    /// Client calls that were not made: no shortest failing trace makes them.
    fn skipped_calls(&mut self, skipped: Skipped);
    /// The search is incomplete for `reason` (noted once per reason).
    fn inconclusive(&mut self, reason: String);
}

/// The rules of the game a step follows.
pub struct Rules<'p> {
    pub lib: &'p Library,
    /// The client's call budget per context.
    pub l: u32,
    /// Whether client calls to interchangeable revealed functions are pruned
    /// ([`Config::duplicates_earlier_revealed`]).
    pub symmetry: bool,
    /// The split's stand-in, played by the search.
    pub stand_in: Option<StandIn>,
    /// The footprints by which client calls that cannot be in a shortest failing
    /// trace are not made; `None` makes every call.
    pub relevance: Option<Arc<Relevance>>,
}

/// Runs `cfg` to its next stop and hands its successors and findings to `search`.
pub fn step<'p>(mut cfg: Config<'p>, rules: &Rules<'p>, search: &mut impl Search<'p>) {
    let lib = rules.lib;
    match machine::run(&mut cfg, lib) {
        Stop::Opponent => {
            if search.opponent(&mut cfg) {
                let mut skipped = Skipped::default();
                let next = moves::opponent_moves(
                    &cfg,
                    lib,
                    rules.symmetry,
                    rules.stand_in.as_ref(),
                    rules.relevance.as_deref(),
                    search.best(),
                    &mut skipped,
                );
                search.skipped_calls(skipped);
                next.into_iter().rev().for_each(|c| search.push(c));
            }
        }
        Stop::If { cond, node, env } => {
            let crate::library::ir::ExprKind::If(_, then, else_) = &node.kind else {
                return;
            };
            let [yes, no] = search.sides(&cfg, &cond);
            if let Some(w) = no {
                let mut c = cfg.clone();
                c.assume(cond.clone(), false, w);
                c.control = Control::Eval(else_, env.clone());
                search.push(c);
            }
            if let Some(w) = yes {
                cfg.assume(cond, true, w);
                cfg.control = Control::Eval(then, env);
                search.push(cfg);
            }
        }
        Stop::Assert { cond, node } => {
            let [pass, fail] = search.sides(&cfg, &cond);
            if let Some(w) = fail {
                search.fail(
                    &cfg,
                    Some(&cond),
                    FailureKind::Assert,
                    node.span.clone(),
                    &w,
                );
            }
            if let Some(w) = pass {
                cfg.assume(cond, true, w);
                cfg.control = Control::Return(Value::Unit);
                search.push(cfg);
            }
        }
        Stop::Divide {
            op,
            left,
            right,
            node,
        } => {
            let [nonzero, zero] = search.sides(&cfg, &right);
            if let Some(w) = zero {
                let span = node.span.clone();
                search.fail(&cfg, Some(&right), FailureKind::Division, span, &w);
            }
            if let Some(w) = nonzero {
                if let Ok(q) = Term::binary(op, &left, &right) {
                    cfg.assume(right, true, w);
                    cfg.control = Control::Return(Value::Int(q));
                    search.push(cfg);
                }
            }
        }
        Stop::Fail { kind, span } => {
            let witness = Arc::clone(&cfg.witness);
            search.fail(&cfg, None, kind, span, &witness);
        }
        Stop::PCall { name, arg } => {
            moves::p_call(&mut cfg, lib, name, arg, rules.l);
            search.push(cfg);
        }
        Stop::PReturn { value } => {
            if moves::p_return(&mut cfg, lib, value) {
                search.push(cfg);
            }
        }
        Stop::OutOfFrames => search.out_of_frames(),
        Stop::Diverge => search.diverged(&cfg),
        Stop::Stuck { reason, span } => search.stuck(stuck_reason(lib, reason), span),
        Stop::Choose(choices) => choices.into_iter().rev().for_each(|c| search.push(c)),
    }
}

/// The machine's reason, with the names it refers to.
fn stuck_reason(lib: &Library, reason: Stuck) -> StuckReason {
    let name = |names: &[String], i: u32| names.get(i as usize).cloned().unwrap_or_default();
    match reason {
        Stuck::Undeclared(u) => StuckReason::Undeclared(name(&lib.undeclared, u)),
        Stuck::UnsetReference(r) => StuckReason::UnsetReference(name(&lib.refs, r)),
        Stuck::IllTyped => StuckReason::IllTyped,
    }
}
