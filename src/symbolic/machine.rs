//! Internal steps of the proponent (the (INT) rule of Figures 3–4): a CEK machine over
//! the IR that runs until something outside pure evaluation must happen — a branch on a
//! symbolic value, a failure, a call to the client, a return to the client, or a stuck
//! term.
//!
//! Evaluation order (SYNTAX-NOTES §6): function position before argument, `;` left
//! first, binary operators and pairs left then right, `let`/`:=` their right-hand side
//! first. `&&`/`||` evaluate both operands; `e1 := e2` through a location evaluates
//! its target first (`lang/references.md` §1.3).
//!
//! ML-like references (`lang/references.md` §3.3): `ref v` makes a library cell,
//! `ℓ := v` writes it, `ℓ == ℓ'` compares names. `!ℓ` of a disclosed cell written
//! before the client's last turn reads the client's write of that turn, chosen now
//! (lazily) and recorded for the trace: an integer is a fresh symbol, a function a
//! fresh client name, a location one of the client's choices ([`Stop::Choose`]).

use super::config::{Cell, Closure, Config, Control, Frame};
use super::term::Term;
use super::value::{Env, Name, Value};
use crate::library::ir::{Expr, ExprKind, GlobalName, RefId, UndeclaredId};
use crate::library::Library;
use crate::ops::DivisionByZero;
use crate::syntax::ast::{BinOp, Span};
use crate::trace::{FailureKind, Player};
use num_traits::Zero;

/// Why a path ended without a move or a failure. HOLiK's evaluation is stuck in the
/// same places and drops the path ("no trace"); holi reports where
/// ([`super::CheckResult::stuck`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stuck {
    /// An application of a name that is neither a library function nor an import.
    Undeclared(UndeclaredId),
    /// Applying, projecting, comparing or testing a value of the wrong shape.
    IllTyped,
    /// Reading a reference that was never declared nor assigned.
    UnsetReference(RefId),
}

/// Where the machine stopped. The configuration has been advanced up to that point
/// (the frame that caused the stop is popped).
pub enum Stop<'p> {
    /// An opponent configuration: the client moves next.
    Opponent,
    /// `if` on a symbolic condition; the branches are the children of `node`.
    If {
        cond: Term,
        node: &'p Expr,
        env: Env,
    },
    /// `assert` on a symbolic condition.
    Assert { cond: Term, node: &'p Expr },
    /// `left / right` or `left mod right` (`op`) with a symbolic divisor.
    Divide {
        op: BinOp,
        left: Term,
        right: Term,
        node: &'p Expr,
    },
    /// `assert(0)` or a division by the literal value 0.
    Fail { kind: FailureKind, span: Span },
    /// The library applies a client-owned name.
    PCall { name: Name, arg: Value },
    /// The library returns `value` to the client's pending call.
    PReturn { value: Value },
    /// A library function applied with no frame left (k = 0): the path ends silently.
    OutOfFrames,
    /// The evaluation reached `_bot_`: it never ends, and nothing follows on the path.
    Diverge,
    /// The path is stuck at `span`: the application, read or ill-shaped operation.
    Stuck { reason: Stuck, span: Span },
    /// A read of a pending client write that can hold several locations: one
    /// configuration per choice, in the order of `lang/references.md` §3.5.
    Choose(Vec<Config<'p>>),
}

fn stuck<'p>(reason: Stuck, at: &Expr) -> Stop<'p> {
    Stop::Stuck {
        reason,
        span: at.span.clone(),
    }
}

/// Runs internal steps of `cfg` until it stops.
pub fn run<'p>(cfg: &mut Config<'p>, lib: &'p Library) -> Stop<'p> {
    loop {
        let control = std::mem::replace(&mut cfg.control, Control::Opponent);
        cfg.control = match control {
            Control::Opponent => return Stop::Opponent,
            Control::Eval(e, env) => match eval(cfg, lib, e, env) {
                Ok(next) => next,
                Err(stop) => return stop,
            },
            Control::Return(value) => match cfg.kont.pop() {
                None => return Stop::PReturn { value },
                Some(frame) => match resume(cfg, lib, frame, value) {
                    Ok(next) => next,
                    Err(stop) => return stop,
                },
            },
            Control::Apply(fun, arg) => match apply(cfg, lib, fun, arg, None) {
                Ok(next) => next,
                Err(stop) => return stop,
            },
        };
    }
}

fn eval<'p>(
    cfg: &mut Config<'p>,
    lib: &'p Library,
    e: &'p Expr,
    env: Env,
) -> Result<Control<'p>, Stop<'p>> {
    let push = |cfg: &mut Config<'p>, frame| cfg.kont.push(frame);
    Ok(match &e.kind {
        ExprKind::Local(i) => match env.get(*i) {
            Some(v) => Control::Return(v.clone()),
            None => return Err(stuck(Stuck::IllTyped, e)),
        },
        ExprKind::Diverge => return Err(Stop::Diverge),
        ExprKind::Global(g) => Control::Return(Value::Fun(match *g {
            GlobalName::Method(m) => Name::Method(m),
            GlobalName::Import(i) => Name::Import(i),
            GlobalName::Undeclared(u) => Name::Undeclared(u),
        })),
        ExprKind::Int(i) => Control::Return(Value::Int(Term::Const(i.clone()))),
        ExprKind::Unit => Control::Return(Value::Unit),
        ExprKind::Deref(r) => match &cfg.store[*r as usize] {
            Some(v) => Control::Return(v.clone()),
            None => return Err(stuck(Stuck::UnsetReference(*r), e)),
        },
        ExprKind::Assign(r, rhs) => {
            push(cfg, Frame::Assign(*r));
            Control::Eval(rhs, env)
        }
        ExprKind::App(f, _) => {
            push(cfg, Frame::AppArg(e, env.clone()));
            Control::Eval(f, env)
        }
        ExprKind::Pair(a, b) => {
            push(cfg, Frame::PairRight(b, env.clone()));
            Control::Eval(a, env)
        }
        ExprKind::Nil => Control::Return(Value::Nil),
        ExprKind::Cons(a, b) => {
            push(cfg, Frame::ConsRight(b, env.clone()));
            Control::Eval(a, env)
        }
        ExprKind::Match(a, _, _) => {
            push(cfg, Frame::Match(e, env.clone()));
            Control::Eval(a, env)
        }
        ExprKind::Fst(a) => {
            push(cfg, Frame::Fst(e));
            Control::Eval(a, env)
        }
        ExprKind::Snd(a) => {
            push(cfg, Frame::Snd(e));
            Control::Eval(a, env)
        }
        ExprKind::Not(a) => {
            push(cfg, Frame::Not(e));
            Control::Eval(a, env)
        }
        ExprKind::Binary(_, a, _) => {
            push(cfg, Frame::BinRight(e, env.clone()));
            Control::Eval(a, env)
        }
        ExprKind::Seq(a, b) => {
            push(cfg, Frame::Seq(b, env.clone()));
            Control::Eval(a, env)
        }
        ExprKind::If(c, _, _) => {
            push(cfg, Frame::If(e, env.clone()));
            Control::Eval(c, env)
        }
        ExprKind::Let(rhs, body) => {
            push(cfg, Frame::Let(body, env.clone()));
            Control::Eval(rhs, env)
        }
        ExprKind::LetRec(code, body) => {
            let f = new_closure(cfg, lib, *code, env.clone());
            Control::Eval(body, env.push(f))
        }
        ExprKind::Lambda(code) => Control::Return(new_closure(cfg, lib, *code, env)),
        ExprKind::Assert(a) => {
            push(cfg, Frame::Assert(e));
            Control::Eval(a, env)
        }
        ExprKind::Alloc(a, ty) => {
            push(cfg, Frame::Alloc(*ty));
            Control::Eval(a, env)
        }
        ExprKind::Load(a) => {
            push(cfg, Frame::Load(e));
            Control::Eval(a, env)
        }
        ExprKind::Store(target, _) => {
            push(cfg, Frame::StoreTarget(e, env.clone()));
            Control::Eval(target, env)
        }
    })
}

/// `!ℓ`: the cell's content, or the client's pending write, materialised now.
fn load<'p>(
    cfg: &mut Config<'p>,
    lib: &'p Library,
    n: u32,
    at: &Expr,
) -> Result<Control<'p>, Stop<'p>> {
    let Some(heap) = cfg.heap.as_deref() else {
        return Err(stuck(Stuck::IllTyped, at));
    };
    let Some(cell) = heap.cells.get(n as usize) else {
        return Err(stuck(Stuck::IllTyped, at));
    };
    if !heap.pending(n) {
        return match &cell.content {
            Some(v) => Ok(Control::Return(v.clone())),
            None => Err(stuck(Stuck::IllTyped, at)),
        };
    }
    // A cell of unknown type (ill-typed programs only) has no client value to offer.
    let Some(ty) = cell.ty else {
        return Err(stuck(Stuck::IllTyped, at));
    };
    let mut choices = Vec::new();
    super::moves::generate_each(cfg.clone(), lib, ty, &mut |mut c, value| {
        c.client_write(n, value.clone());
        c.control = Control::Return(value);
        choices.push(c);
    });
    if choices.len() == 1 {
        if let Some(only) = choices.pop() {
            *cfg = only;
            return Ok(std::mem::replace(&mut cfg.control, Control::Opponent));
        }
    }
    Err(Stop::Choose(choices))
}

/// A lambda or `letrec` evaluates to a fresh name bound in the repository.
fn new_closure<'p>(cfg: &mut Config<'p>, lib: &'p Library, code_id: u32, env: Env) -> Value {
    let n = cfg.closures.len() as u32;
    cfg.closures.push_back(Closure {
        code_id,
        code: lib.code(code_id),
        env,
    });
    Value::Fun(Name::Closure(n))
}

/// `a == b` of two lists of integers: false when their lengths differ, else whether
/// the elements are pairwise equal. `None` when an element is not an integer.
fn lists_equal(a: &Value, b: &Value) -> Option<Term> {
    let items = |mut v: &Value| {
        let mut out = Vec::new();
        while let Value::Cons(cell) = v {
            out.push(match &cell.0 {
                Value::Int(t) => t.clone(),
                _ => return None,
            });
            v = &cell.1;
        }
        Some(out)
    };
    let (xs, ys) = (items(a)?, items(b)?);
    if xs.len() != ys.len() {
        return Some(Term::Const(0.into()));
    }
    let mut all = Term::Const(1.into());
    for (x, y) in xs.iter().zip(&ys) {
        let eq = Term::binary(BinOp::Eq, x, y).ok()?;
        all = Term::binary(BinOp::And, &all, &eq).ok()?;
    }
    Some(all)
}

/// `value` as an integer for the operation `at`, which is stuck on anything else.
fn int<'a, 'p>(value: &'a Value, at: &Expr) -> Result<&'a Term, Stop<'p>> {
    match value {
        Value::Int(t) => Ok(t),
        _ => Err(stuck(Stuck::IllTyped, at)),
    }
}

fn resume<'p>(
    cfg: &mut Config<'p>,
    lib: &'p Library,
    frame: Frame<'p>,
    value: Value,
) -> Result<Control<'p>, Stop<'p>> {
    Ok(match frame {
        Frame::AppArg(node, env) => {
            let ExprKind::App(_, arg) = &node.kind else {
                return Err(stuck(Stuck::IllTyped, node));
            };
            cfg.kont.push(Frame::AppCall(value, node));
            Control::Eval(arg, env)
        }
        Frame::AppCall(fun, node) => return apply(cfg, lib, fun, value, Some(node)),
        Frame::PairRight(right, env) => {
            cfg.kont.push(Frame::PairMake(value));
            Control::Eval(right, env)
        }
        Frame::PairMake(left) => Control::Return(Value::pair(left, value)),
        Frame::ConsRight(tail, env) => {
            cfg.kont.push(Frame::ConsMake(value));
            Control::Eval(tail, env)
        }
        Frame::ConsMake(head) => Control::Return(Value::cons(head, value)),
        Frame::Match(node, env) => {
            let ExprKind::Match(_, nil, cons) = &node.kind else {
                return Err(stuck(Stuck::IllTyped, node));
            };
            match value {
                Value::Nil => Control::Eval(nil, env),
                Value::Cons(cell) => {
                    let (head, tail) = (*cell).clone();
                    Control::Eval(cons, env.push(head).push(tail))
                }
                _ => return Err(stuck(Stuck::IllTyped, node)),
            }
        }
        Frame::Fst(node) | Frame::Snd(node) => match value {
            Value::Pair(p) => {
                let (a, b) = &*p;
                Control::Return(if matches!(frame, Frame::Fst(_)) { a } else { b }.clone())
            }
            _ => return Err(stuck(Stuck::IllTyped, node)),
        },
        Frame::Not(node) => Control::Return(Value::Int(Term::not(int(&value, node)?))),
        Frame::BinRight(node, env) => {
            let ExprKind::Binary(_, _, right) = &node.kind else {
                return Err(stuck(Stuck::IllTyped, node));
            };
            cfg.kont.push(Frame::BinApply(node, value));
            Control::Eval(right, env)
        }
        Frame::BinApply(node, left) => {
            let ExprKind::Binary(op, _, _) = &node.kind else {
                return Err(stuck(Stuck::IllTyped, node));
            };
            // Locations are names: equal or not, never symbolic.
            if let (BinOp::Eq, Value::Loc(a), Value::Loc(b)) = (op, &left, &value) {
                return Ok(Control::Return(Value::Int(Term::Const(
                    i32::from(a == b).into(),
                ))));
            }
            if let (BinOp::Eq, Value::Nil | Value::Cons(_), Value::Nil | Value::Cons(_)) =
                (op, &left, &value)
            {
                return match lists_equal(&left, &value) {
                    Some(t) => Ok(Control::Return(Value::Int(t))),
                    None => Err(stuck(Stuck::IllTyped, node)),
                };
            }
            let (a, b) = (int(&left, node)?, int(&value, node)?);
            if matches!(op, BinOp::Div | BinOp::Mod) && b.as_const().is_none() {
                return Err(Stop::Divide {
                    op: *op,
                    left: a.clone(),
                    right: b.clone(),
                    node,
                });
            }
            match Term::binary(*op, a, b) {
                Ok(t) => Control::Return(Value::Int(t)),
                Err(DivisionByZero) => {
                    return Err(Stop::Fail {
                        kind: FailureKind::Division,
                        span: node.span.clone(),
                    })
                }
            }
        }
        Frame::Seq(next, env) => Control::Eval(next, env),
        Frame::If(node, env) => {
            let ExprKind::If(_, then, else_) = &node.kind else {
                return Err(stuck(Stuck::IllTyped, node));
            };
            match int(&value, node)? {
                Term::Const(c) if c.is_zero() => Control::Eval(else_, env),
                Term::Const(_) => Control::Eval(then, env),
                cond => {
                    return Err(Stop::If {
                        cond: cond.clone(),
                        node,
                        env,
                    })
                }
            }
        }
        Frame::Let(body, env) => Control::Eval(body, env.push(value)),
        Frame::Assign(r) => {
            cfg.store.set(r as usize, Some(value));
            Control::Return(Value::Unit)
        }
        Frame::Assert(node) => match int(&value, node)? {
            Term::Const(c) if c.is_zero() => {
                return Err(Stop::Fail {
                    kind: FailureKind::Assert,
                    span: node.span.clone(),
                })
            }
            Term::Const(_) => Control::Return(Value::Unit),
            cond => {
                return Err(Stop::Assert {
                    cond: cond.clone(),
                    node,
                })
            }
        },
        Frame::Box => {
            cfg.k += 1;
            Control::Return(value)
        }
        Frame::Unfolded => {
            cfg.unfold = cfg.unfold.map(|u| u + 1);
            Control::Return(value)
        }
        Frame::Alloc(ty) => Control::Return(Value::Loc(cfg.allocate(Cell {
            owner: Player::Library,
            ty,
            content: Some(value),
            written: cfg.heap.as_ref().map_or(0, |h| h.epoch),
            disclosed: false,
        }))),
        Frame::Load(node) => match value {
            Value::Loc(n) => return load(cfg, lib, n, node),
            _ => return Err(stuck(Stuck::IllTyped, node)),
        },
        Frame::StoreTarget(node, env) => {
            let ExprKind::Store(_, rhs) = &node.kind else {
                return Err(stuck(Stuck::IllTyped, node));
            };
            cfg.kont.push(Frame::StoreWrite(value, node));
            Control::Eval(rhs, env)
        }
        Frame::StoreWrite(target, node) => {
            let Value::Loc(n) = target else {
                return Err(stuck(Stuck::IllTyped, node));
            };
            let heap = cfg.heap_mut();
            let epoch = heap.epoch;
            let Some(cell) = heap.cells.get_mut(n as usize) else {
                return Err(stuck(Stuck::IllTyped, node));
            };
            cell.content = Some(value);
            cell.written = epoch;
            Control::Return(Value::Unit)
        }
    })
}

/// Applies `fun` to `arg`: a library function opens a frame (consuming k, or an
/// unfolding where the library applies it and [`Config::unfold`] bounds those), a
/// client function is a P-call. `node` is the application in the library's code, where a
/// stuck application is reported; a client's call (`None`) always applies a library
/// function, so it never gets stuck.
fn apply<'p>(
    cfg: &mut Config<'p>,
    lib: &'p Library,
    fun: Value,
    arg: Value,
    node: Option<&'p Expr>,
) -> Result<Control<'p>, Stop<'p>> {
    let stuck_at = |reason| Stop::Stuck {
        reason,
        span: node.map(|e| e.span.clone()).unwrap_or_default(),
    };
    let Value::Fun(name) = fun else {
        return Err(stuck_at(Stuck::IllTyped));
    };
    let (body, env) = match name {
        Name::Method(m) => (&lib.method_code(m).body, Env::default().push(arg)),
        Name::Closure(n) => {
            let closure = &cfg.closures[n as usize];
            let code: &'p crate::library::ir::FunCode = closure.code;
            let mut env = closure.env.clone();
            if code.recursive {
                env = env.push(Value::Fun(name));
            }
            (&code.body, env.push(arg))
        }
        Name::Import(_) | Name::Client(_) => return Err(Stop::PCall { name, arg }),
        Name::Undeclared(u) => return Err(stuck_at(Stuck::Undeclared(u))),
    };
    match cfg.unfold {
        Some(u) if node.is_some() => {
            if u == 0 {
                return Err(Stop::OutOfFrames);
            }
            cfg.unfold = Some(u - 1);
            cfg.kont.push(Frame::Unfolded);
        }
        _ => {
            if cfg.k == 0 {
                return Err(Stop::OutOfFrames);
            }
            cfg.k -= 1;
            cfg.kont.push(Frame::Box);
        }
    }
    Ok(Control::Eval(body, env))
}
