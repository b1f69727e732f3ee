//! The values a failing trace is shown with: a function of its path condition alone.
//!
//! The witness a search carries is whatever model its solver found first, and that
//! depends on the questions the solver was asked before: two searches that reach the
//! same symbolic trace (one thread or two, the split's part or the whole library) give
//! it different integers. The report promises the same text for every `--jobs`, so a
//! trace is shown with the *least* model of its path condition instead: the client's
//! integers in the order the trace names them (`x1, x2, …`), each as small in absolute
//! value as the earlier ones allow, the positive one of `±m` first. That model is
//! unique, so it depends on what the path condition means, not on how or where it was
//! solved; and small values make a clearer attack (`withdraw(1)` rather than
//! `withdraw(7431)`).
//!
//! It is found by asking, per integer, whether it can be 0, then the least `m` with
//! `|x| ≤ m` by doubling and halving, then the sign: one query for a 0, about
//! `2 log₂ m` otherwise. The queries go to a solver of their own, so the search's
//! statistics and the race's counted work do not include them, and run within the
//! search's limits; when one is not answered (a limit, `unknown`), the search's own
//! witness is kept, which is a model all the same. Least models are kept by path
//! condition up to renaming: `--all` lists thousands of traces over a few dozen such
//! path conditions.

use super::config::Config;
use super::solver::{Answer, Solver};
use super::term::{Term, Witness};
use super::CheckOptions;
use crate::syntax::ast::BinOp;
use num_bigint::BigInt;
use num_traits::{One, Zero};
use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::sync::Arc;
use std::time::Duration;

/// Past this magnitude (2^256) the least value is not looked for.
const MAX_DOUBLINGS: u32 = 256;

/// Least models kept at most; past that the cache starts again.
const MAX_KEPT: usize = 1 << 16;

/// Finds least models ([`Least::model`]) with a solver of its own, made when first
/// needed.
pub struct Least {
    solver: Option<Solver>,
    /// The least models found, by path condition up to renaming of symbols
    /// ([`question`]): the values of its symbols in order of naming. `--all` meets the
    /// same path condition, up to renaming, under thousands of traces.
    found: FxHashMap<Vec<u32>, Vec<(u32, BigInt)>>,
    interrupt: Option<Arc<std::sync::atomic::AtomicBool>>,
    solver_process: Option<std::path::PathBuf>,
}

impl Least {
    /// Within the interrupt flag and solver process of `options`.
    pub fn within(options: &CheckOptions) -> Least {
        Least {
            solver: None,
            found: FxHashMap::default(),
            interrupt: options.interrupt.clone(),
            solver_process: options.solver_process.clone(),
        }
    }

    fn solver(&mut self) -> &mut Solver {
        let (interrupt, process) = (&self.interrupt, &self.solver_process);
        self.solver.get_or_insert_with(|| {
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

    /// The least model of `cfg`'s path condition over `order` (see the module docs),
    /// as a witness that extends `witness`; `None` when a query went unanswered.
    /// `limit` gives each query's time limit when it starts.
    pub fn model(
        &mut self,
        cfg: &Config,
        order: &[u32],
        witness: &Witness,
        limit: &dyn Fn() -> Option<Duration>,
    ) -> Option<Witness> {
        let (key, names) = question(cfg, order);
        let mut least = witness.clone();
        if let Some(values) = self.found.get(&key) {
            least.extend(values.iter().map(|(i, v)| (names[*i as usize], v.clone())));
            return Some(least);
        }
        let model = self.solve(cfg, order, limit)?;
        let values: Vec<(u32, BigInt)> = (names.iter().enumerate())
            .filter_map(|(i, n)| Some((i as u32, model.get(n)?.clone())))
            .collect();
        if self.found.len() >= MAX_KEPT {
            self.found.clear();
        }
        self.found.insert(key, values);
        least.extend(model);
        Some(least)
    }

    /// A model of `cfg`'s path condition in which the symbols of `order` take their
    /// least values.
    fn solve(
        &mut self,
        cfg: &Config,
        order: &[u32],
        limit: &dyn Fn() -> Option<Duration>,
    ) -> Option<Witness> {
        let mut pinned = Term::Const(BigInt::one());
        let mut model = None;
        for &n in order {
            let x = Term::sym(n);
            let mut ask = |probe: Term| -> Option<Option<Witness>> {
                let question = and(&pinned, &probe);
                match self
                    .solver()
                    .check(&cfg.pc, &question, true, cfg.next_sym, limit())
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

/// The path condition of `cfg` encoded ([`Term::encode_into`]) with the symbols of
/// `order` named first, in that order, and the others as they appear; and the symbols
/// by name. Two paths with the same key have the same least model, renamed.
fn question(cfg: &Config, order: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let names = RefCell::new(order.to_vec());
    let name = |n: u32| {
        let mut names = names.borrow_mut();
        match names.iter().position(|&m| m == n) {
            Some(i) => i as u32,
            None => {
                names.push(n);
                names.len() as u32 - 1
            }
        }
    };
    let mut key = vec![order.len() as u32];
    let mut node = cfg.pc.as_deref();
    while let Some(p) = node {
        key.push(u32::from(p.holds));
        p.term.encode_into(&name, &mut key);
        node = p.parent.as_deref();
    }
    (key, names.into_inner())
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
    use crate::build::Library;

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
        let options = CheckOptions::default();
        let mut finder = Least::within(&options);
        let model = finder.model(cfg, order, &Witness::default(), &|| None)?;
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
