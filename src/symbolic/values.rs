//! The values a failing trace is shown with: a function of its path condition alone.
//!
//! The witness a search carries is whatever model its solver found first, and that
//! depends on the questions the solver was asked before: two searches that reach the
//! same symbolic trace (one thread or two, the split's part or the whole library) give
//! it different integers. The report promises the same text for every `--jobs`, so a
//! reported trace is shown with the *least* model of its path condition instead: the
//! client's integers in the order the trace names them (`x1, x2, …`), each as small in
//! absolute value as the earlier ones allow, the positive one of `±m` first. That model
//! is unique, so it depends on what the path condition means, not on how or where it
//! was solved; and small values make a clearer attack (`withdraw(1)` rather than
//! `withdraw(7431)`).
//!
//! The search keeps each failing path beside its counterexample ([`Path`], in
//! [`crate::trace::Valuation`]); once it is over, [`settle`] chooses the values of the
//! reported ones with a solver of its own, so nothing here touches the search, its
//! statistics or the race's counted work. A least model is found by asking, per
//! integer, whether it can be 0, then the least `m` with `|x| ≤ m` by doubling and
//! halving, then the sign: one query for a 0, about `2 log₂ m` otherwise. The queries
//! run within the check's limits; when one is not answered (a limit, `unknown`), the
//! search's own values stay, which are a model all the same. `--all` keeps the search's
//! values: it runs no race, so they are the same for every `--jobs` already, and a least
//! model per trace costs a solver search each (the DAO's 7,950 traces at k3 l2 took 44 s
//! instead of 0.8).

use super::brief::Brief;
use super::budget::Budget;
use super::config::{Config, PcNode};
use super::context;
use super::solver::{Answer, Solver};
use super::term::{Term, Witness};
use crate::syntax::ast::BinOp;
use crate::trace::{Counterexample, Trace, TraceValue, Valuation};
use num_bigint::BigInt;
use num_traits::{One, Zero};
use std::sync::Arc;
use std::time::Duration;

/// Past this magnitude (2^256) the least value is not looked for.
const MAX_DOUBLINGS: u32 = 256;

/// A failing path, as [`settle`] needs it: its path condition and the term that is 0
/// where it fails, if any (an `assert`'s condition, a divisor), its symbols' count, the
/// symbols its trace names `x1, x2, …` in that order, and the term behind each integer
/// of its concrete trace ([`super::moves::Rendered::slots`]).
pub struct Path {
    pc: Option<Arc<PcNode>>,
    zero: Option<Term>,
    symbols: u32,
    order: Vec<u32>,
    slots: Vec<Option<Term>>,
}

impl Path {
    /// `cfg`'s path, failing where `zero` is 0, whose trace names `order` and whose
    /// concrete trace's integers are `slots`; `None` when the trace shows no symbol, so
    /// that no value is to choose.
    pub fn of(
        cfg: &Config,
        zero: Option<&Term>,
        order: Vec<u32>,
        slots: Vec<Option<Term>>,
    ) -> Option<Valuation> {
        if order.is_empty() {
            return None;
        }
        let path = Path {
            pc: cfg.pc.clone(),
            zero: zero.cloned(),
            symbols: cfg.next_sym,
            order,
            slots,
        };
        Some(Valuation(Arc::new(path)))
    }
}

/// Shows each of `counterexamples` that carries its path with the path's least model,
/// and drops the paths, within the limits of `brief`.
pub fn settle(counterexamples: &mut [Counterexample], brief: &Brief) {
    let budget = Budget::new(&brief.meter);
    let limit = || budget.query_limit();
    let mut least = Least::within(brief);
    for cx in counterexamples.iter_mut() {
        let Some(valuation) = cx.valuation.take() else {
            continue;
        };
        let Some(path) = valuation.0.downcast_ref::<Path>() else {
            continue;
        };
        // All 0 is the least model there is.
        if cx.model.values().all(Zero::is_zero) {
            continue;
        }
        if let Some(model) = least.model(path, &limit) {
            show(cx, path, &model);
        }
    }
}

/// `cx`'s concrete trace and model under `model`.
fn show(cx: &mut Counterexample, path: &Path, model: &Witness) {
    let value = |n: &u32| model.get(n).cloned().unwrap_or_default();
    cx.model = (path.order.iter().enumerate())
        .map(|(i, n)| (format!("x{}", i + 1), value(n)))
        .collect();
    let mut slots = path.slots.iter();
    revalue(&mut cx.concrete, &mut slots, model);
}

/// Every integer of `trace` that a term stands behind, evaluated under `model`, in
/// the order [`super::moves::render`] made them.
fn revalue<'t>(
    trace: &mut Trace,
    slots: &mut impl Iterator<Item = &'t Option<Term>>,
    model: &Witness,
) {
    fn value<'t>(
        v: &mut TraceValue,
        slots: &mut impl Iterator<Item = &'t Option<Term>>,
        model: &Witness,
    ) {
        match v {
            TraceValue::Int(i) => {
                if let Some(Some(term)) = slots.next() {
                    *i = term.eval(model).unwrap_or_default();
                }
            }
            TraceValue::Pair(a, b) => {
                value(a, slots, model);
                value(b, slots, model);
            }
            TraceValue::List(items) => {
                for item in items {
                    value(item, slots, model);
                }
            }
            TraceValue::Unit | TraceValue::Sym(_) | TraceValue::Fun(_) | TraceValue::Ref(_) => {}
        }
    }
    for mv in &mut trace.0 {
        value(&mut mv.value, slots, model);
        for entry in &mut mv.store {
            value(&mut entry.value, slots, model);
        }
    }
}

/// Finds least models ([`Least::model`]) with a solver of its own, made when first
/// needed.
struct Least {
    solver: Option<Solver>,
    interrupt: Option<Arc<std::sync::atomic::AtomicBool>>,
    solver_process: Option<std::path::PathBuf>,
}

impl Least {
    /// Within the interrupt flag and solver process of `brief`.
    fn within(brief: &Brief) -> Least {
        Least {
            solver: None,
            interrupt: brief.meter.interrupt().cloned(),
            solver_process: brief.run.solver_process.clone(),
        }
    }

    fn solver(&mut self) -> &mut Solver {
        let (interrupt, process) = (&self.interrupt, &self.solver_process);
        self.solver.get_or_insert_with(|| {
            // The thread's own context: the search is over, and a least model does not
            // depend on what a context was asked before (a new one costs 2-10 ms).
            context::default_in_use();
            let mut solver = Solver::new();
            if let Some(flag) = interrupt {
                solver.interrupt_on(Arc::clone(flag));
            }
            if let Some(program) = process {
                solver.nonlinear_in_child(program.clone());
            }
            solver
        })
    }

    /// A model of `path`'s condition in which the symbols of its trace take their
    /// least values (see the module docs); `None` when a query went unanswered.
    /// `limit` gives each query's time limit when it starts.
    fn model(&mut self, path: &Path, limit: &dyn Fn() -> Option<Duration>) -> Option<Witness> {
        let mut pinned = match &path.zero {
            Some(zero) => equals(zero, &BigInt::zero()),
            None => Term::Const(BigInt::one()),
        };
        let mut model = None;
        for &n in &path.order {
            let x = Term::sym(n);
            let mut ask = |probe: Term| -> Option<Option<Witness>> {
                let question = and(&pinned, &probe);
                match self
                    .solver()
                    .check(&path.pc, &question, true, path.symbols, limit())
                {
                    Answer::Sat(w) => Some(Some(w)),
                    Answer::Unsat => Some(None),
                    Answer::Unknown(_) | Answer::TimedOut | Answer::Interrupted => None,
                }
            };
            let value = match ask(equals(&x, &BigInt::zero()))? {
                Some(w) => {
                    model = Some(w);
                    BigInt::zero()
                }
                None => {
                    let (m, w) = least_magnitude(&x, &mut ask)?;
                    match ask(equals(&x, &m))? {
                        Some(w) => {
                            model = Some(w);
                            m
                        }
                        None => {
                            // |x| = m and x ≠ m.
                            model = Some(w);
                            -m
                        }
                    }
                }
            };
            pinned = and(&pinned, &equals(&x, &value));
        }
        model
    }
}

/// The least `m ≥ 1` with `|x| ≤ m` satisfiable, given that `x = 0` is not, with a
/// model at `m`: doubling until satisfiable, then halving the gap.
fn least_magnitude(
    x: &Term,
    ask: &mut dyn FnMut(Term) -> Option<Option<Witness>>,
) -> Option<(BigInt, Witness)> {
    let mut low = BigInt::zero();
    let mut high = BigInt::one();
    let mut doublings = 0;
    let mut model = loop {
        match ask(within(x, &high))? {
            Some(w) => break w,
            None if doublings < MAX_DOUBLINGS => {
                low = high.clone();
                high *= 2;
                doublings += 1;
            }
            None => return None,
        }
    };
    // |x| ≤ low is unsatisfiable and |x| ≤ high satisfiable.
    while &high - &low > BigInt::one() {
        let middle: BigInt = (&low + &high) / 2;
        match ask(within(x, &middle))? {
            Some(w) => {
                high = middle;
                model = w;
            }
            None => low = middle,
        }
    }
    Some((high, model))
}

fn binary(op: BinOp, a: &Term, b: &Term) -> Term {
    // No division: never a division by zero.
    Term::binary(op, a, b).unwrap_or_else(|_| Term::Const(BigInt::zero()))
}

fn and(a: &Term, b: &Term) -> Term {
    binary(BinOp::And, a, b)
}

fn equals(x: &Term, value: &BigInt) -> Term {
    binary(BinOp::Eq, x, &Term::Const(value.clone()))
}

/// `-m ≤ x ≤ m`.
fn within(x: &Term, m: &BigInt) -> Term {
    and(
        &binary(BinOp::Le, x, &Term::Const(m.clone())),
        &binary(BinOp::Ge, x, &Term::Const(-m)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::library::Library;
    use crate::symbolic::options::CheckOptions;

    fn sym(n: u32) -> Term {
        Term::sym(n)
    }

    fn int(n: i64) -> Term {
        Term::Const(BigInt::from(n))
    }

    /// A configuration whose path condition is `conditions` over symbols 1..=`symbols`,
    /// with an arbitrary witness.
    fn path<'p>(lib: &'p Library, symbols: u32, conditions: &[Term]) -> Config<'p> {
        let mut cfg = Config::initial(lib, 1, 1);
        cfg.next_sym = symbols;
        for c in conditions {
            cfg.assume(c.clone(), true, Arc::new(Witness::default()));
        }
        cfg
    }

    fn least(cfg: &Config, order: &[u32]) -> Option<Vec<i64>> {
        least_failing(cfg, None, order)
    }

    /// [`least`] of the path of `cfg` that fails where `zero` is 0.
    fn least_failing(cfg: &Config, zero: Option<&Term>, order: &[u32]) -> Option<Vec<i64>> {
        let brief = Brief::new(&CheckOptions::default(), &library());
        let path = Path {
            pc: cfg.pc.clone(),
            zero: zero.cloned(),
            symbols: cfg.next_sym,
            order: order.to_vec(),
            slots: Vec::new(),
        };
        let model = Least::within(&brief).model(&path, &|| None)?;
        let value = |n: &u32| {
            let v = model.get(n).cloned().unwrap_or_default();
            i64::try_from(v).unwrap_or(i64::MAX)
        };
        Some(order.iter().map(value).collect())
    }

    fn library() -> Library {
        super::super::components::tests::library("public f (x:int) :(unit) = { () };").1
    }

    #[test]
    fn each_integer_is_the_least_in_absolute_value_the_earlier_ones_allow() {
        let lib = library();
        // The DAO's condition: x1 ≤ 100, x2 ≤ 100, 100 - x2 - x1 < 0.
        let sum = binary(BinOp::Sub, &binary(BinOp::Sub, &int(100), &sym(2)), &sym(1));
        let conditions = [
            binary(BinOp::Le, &sym(1), &int(100)),
            binary(BinOp::Le, &sym(2), &int(100)),
            binary(BinOp::Lt, &sum, &int(0)),
        ];
        let cfg = path(&lib, 2, &conditions);
        assert_eq!(least(&cfg, &[1, 2]), Some(vec![1, 100]));
        assert_eq!(least(&cfg, &[2, 1]), Some(vec![1, 100]));
        // The same path, failing where `assert(100 - x2 - x1 >= 0)` does.
        let before = path(&lib, 2, &conditions[..2]);
        let holds = binary(BinOp::Ge, &sum, &int(0));
        assert_eq!(
            least_failing(&before, Some(&holds), &[1, 2]),
            Some(vec![1, 100])
        );
        // Positive first, negative when it must be.
        let negative = path(&lib, 1, &[binary(BinOp::Lt, &sym(1), &int(-6))]);
        assert_eq!(least(&negative, &[1]), Some(vec![-7]));
        let either = path(&lib, 1, &[binary(BinOp::Gt, &sym(1), &int(4))]);
        assert_eq!(least(&either, &[1]), Some(vec![5]));
        let far = path(&lib, 1, &[binary(BinOp::Gt, &sym(1), &int(1 << 40))]);
        assert_eq!(least(&far, &[1]), Some(vec![(1 << 40) + 1]));
    }

    #[test]
    fn the_least_model_is_the_same_however_the_path_condition_is_written() {
        let lib = library();
        let a = path(
            &lib,
            2,
            &[
                binary(BinOp::Gt, &binary(BinOp::Add, &sym(1), &sym(2)), &int(10)),
                binary(BinOp::Ge, &sym(1), &int(3)),
            ],
        );
        let b = path(
            &lib,
            2,
            &[
                binary(BinOp::Le, &int(3), &sym(1)),
                binary(BinOp::Lt, &int(10), &binary(BinOp::Add, &sym(2), &sym(1))),
                binary(BinOp::Ge, &sym(1), &int(0)),
            ],
        );
        assert_eq!(least(&a, &[1, 2]), Some(vec![3, 8]));
        assert_eq!(least(&b, &[1, 2]), least(&a, &[1, 2]));
    }

    #[test]
    fn a_nonlinear_path_condition_has_a_least_model_too() {
        let lib = library();
        let square = binary(BinOp::Mul, &sym(1), &sym(1));
        let cfg = path(&lib, 1, &[binary(BinOp::Gt, &square, &int(50))]);
        assert_eq!(least(&cfg, &[1]), Some(vec![8]));
    }
}
