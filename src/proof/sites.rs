//! The cells a library allocates, by allocation site (a `ref e` in its code), as the
//! proof checker needs them (`lang/proofs.md` §7): which code's activation allocates
//! each (the cells one activation allocates form one object, as `make`'s `lock` and
//! `balance`), what its cells hold, how a proof names them, and the constants the
//! code gives them (for candidate facts).
//!
//! Which site a `!x` or `x := e` goes through is known here only when `x` is a
//! variable bound to the `ref` itself (`let x = ref 0 in …`, possibly captured by a
//! closure); the checker does not need it (it follows locations as values), only the
//! candidates do, and fewer candidates never make a wrong proof.

use crate::library::ir::{CodeId, Expr, ExprKind, TypeId};
use crate::library::Library;
use crate::syntax::ast::{BinOp, Span};
use num_bigint::BigInt;
use std::collections::HashMap;

/// One allocation site.
pub struct Site {
    /// The code whose body holds the `ref` (not inside a nested function): one
    /// activation of it allocates one cell of each of its sites.
    pub code: CodeId,
    pub span: Span,
    /// The type of what its cells hold (unknown only in an ill-typed program).
    pub content: Option<TypeId>,
    /// The variable `let` binds the cell to, made unique (`balance`, `balance#2`), or
    /// `ref#n` for the n-th site when no `let` names it.
    pub name: String,
    /// The constants its cells start with, are assigned or compared with, and 0, each
    /// once, in order of appearance.
    pub constants: Vec<BigInt>,
    /// Those they are tested against (compared with, or 0 for `if !x`).
    pub tested: Vec<BigInt>,
    /// The constant the `ref` starts its cells with, if it is one.
    pub initial: Option<BigInt>,
    /// The constants `x := !x + c` (or `- c`, as `-c`) adds to its cells.
    pub steps: Vec<BigInt>,
    /// Whether some `x := e` writes its cells through a variable bound to it.
    pub written: bool,
}

pub struct Sites {
    pub sites: Vec<Site>,
    /// Each `ref` expression's site, by its address in the library (which the checker
    /// borrows for as long as it uses this table).
    by_expr: HashMap<*const Expr, usize>,
    /// Whether some write goes through something other than a variable bound to a
    /// `ref`: then any site's cells may be written.
    pub stores_elsewhere: bool,
}

impl Sites {
    pub fn of(lib: &Library) -> Sites {
        let mut walk = Walk {
            lib,
            sites: Vec::new(),
            by_expr: HashMap::new(),
            visited: vec![false; lib.codes.len()],
            stores_elsewhere: false,
        };
        for method in &lib.methods {
            walk.code(method.code, &[]);
        }
        for code in 0..lib.codes.len() {
            walk.code(code as CodeId, &[]);
        }
        let mut sites = walk.sites;
        let mut seen: HashMap<String, usize> = HashMap::new();
        for (i, site) in sites.iter_mut().enumerate() {
            let named = (lib.cell_names.iter()).find(|(span, _)| *span == site.span);
            site.name = match named {
                Some((_, name)) => {
                    let n = seen.entry(name.clone()).or_default();
                    *n += 1;
                    match *n {
                        1 => name.clone(),
                        n => format!("{name}#{n}"),
                    }
                }
                None => format!("ref#{}", i + 1),
            };
        }
        Sites {
            sites,
            by_expr: walk.by_expr,
            stores_elsewhere: walk.stores_elsewhere,
        }
    }

    /// The site of the `ref` expression `e`.
    pub fn at(&self, e: &Expr) -> Option<usize> {
        self.by_expr.get(&(e as *const Expr)).copied()
    }

    /// Whether the cells of site `s` may change after they are made.
    pub fn mutable(&self, s: usize) -> bool {
        self.stores_elsewhere || self.sites[s].written
    }

    /// The sites one activation of `code` allocates.
    pub fn of_code(&self, code: CodeId) -> impl Iterator<Item = usize> + '_ {
        (0..self.sites.len()).filter(move |&s| self.sites[s].code == code)
    }
}

/// What the walk knows of a variable in scope: the site of the `ref` it is bound to,
/// or the constant it is.
#[derive(Clone, Default)]
struct Bound {
    site: Option<usize>,
    constant: Option<BigInt>,
    /// The constants of a pair it is bound to (`let (n, c) = (10, 5)`, as Hobbit's
    /// translation writes it: a pair, then its parts).
    parts: Option<(Option<BigInt>, Option<BigInt>)>,
}

struct Walk<'l> {
    lib: &'l Library,
    sites: Vec<Site>,
    by_expr: HashMap<*const Expr, usize>,
    visited: Vec<bool>,
    stores_elsewhere: bool,
}

fn add(to: &mut Vec<BigInt>, v: &BigInt) {
    if !to.contains(v) {
        to.push(v.clone());
    }
}

impl Walk<'_> {
    /// Walks `code`'s body once, in the environment it is made in (`outer`: what is
    /// known of each variable in scope, innermost last).
    fn code(&mut self, code: CodeId, outer: &[Bound]) {
        if std::mem::replace(&mut self.visited[code as usize], true) {
            return;
        }
        let f = self.lib.code(code);
        let mut env = outer.to_vec();
        if f.recursive {
            env.push(Bound::default());
        }
        env.push(Bound::default());
        self.expr(code, &f.body, &mut env);
    }

    /// The site variable `i` is bound to.
    fn local(env: &[Bound], e: &Expr) -> Option<usize> {
        match e.kind {
            ExprKind::Local(i) => (env.len().checked_sub(1 + i as usize)).and_then(|j| env[j].site),
            _ => None,
        }
    }

    /// The integer `e` always is, when the variables it reads are bound to constants
    /// (`length - 1` with `length` bound to 10, as Hobbit's translation writes it).
    fn constant(env: &[Bound], e: &Expr) -> Option<BigInt> {
        match &e.kind {
            ExprKind::Int(v) => Some(v.clone()),
            ExprKind::Local(i) => {
                (env.len().checked_sub(1 + *i as usize)).and_then(|j| env[j].constant.clone())
            }
            ExprKind::Fst(a) | ExprKind::Snd(a) => {
                let ExprKind::Local(i) = a.kind else {
                    return None;
                };
                let j = env.len().checked_sub(1 + i as usize)?;
                let (x, y) = env[j].parts.clone()?;
                if matches!(e.kind, ExprKind::Fst(_)) {
                    x
                } else {
                    y
                }
            }
            ExprKind::Binary(op, a, b) => {
                let (a, b) = (Self::constant(env, a)?, Self::constant(env, b)?);
                match op {
                    BinOp::Add => Some(a + b),
                    BinOp::Sub => Some(a - b),
                    BinOp::Mul => Some(a * b),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The constant `value` adds to site `s`'s cell, when it is `!x + c`, `c + !x` or
    /// `!x - c` with `x` bound to `s`.
    fn step(env: &[Bound], s: usize, value: &Expr) -> Option<BigInt> {
        let ExprKind::Binary(op, a, b) = &value.kind else {
            return None;
        };
        let read =
            |x: &Expr| matches!(&x.kind, ExprKind::Load(t) if Self::local(env, t) == Some(s));
        match (op, &a.kind, &b.kind) {
            (BinOp::Add, _, ExprKind::Int(c)) if read(a) => Some(c.clone()),
            (BinOp::Add, ExprKind::Int(c), _) if read(b) => Some(c.clone()),
            (BinOp::Sub, _, ExprKind::Int(c)) if read(a) => Some(-c),
            _ => None,
        }
    }

    fn expr(&mut self, code: CodeId, e: &Expr, env: &mut Vec<Bound>) {
        match &e.kind {
            ExprKind::Alloc(init, ty) => {
                let initial = Self::constant(env, init);
                let mut constants = Vec::new();
                if let Some(v) = &initial {
                    add(&mut constants, v);
                }
                add(&mut constants, &BigInt::from(0));
                self.by_expr.insert(e as *const Expr, self.sites.len());
                self.sites.push(Site {
                    code,
                    span: e.span.clone(),
                    content: *ty,
                    name: String::new(),
                    constants,
                    tested: Vec::new(),
                    initial,
                    steps: Vec::new(),
                    written: false,
                });
            }
            ExprKind::Store(target, value) => match Self::local(env, target) {
                Some(s) => {
                    self.sites[s].written = true;
                    if let ExprKind::Int(v) = &value.kind {
                        add(&mut self.sites[s].constants, v);
                    }
                    if let Some(c) = Self::step(env, s, value) {
                        add(&mut self.sites[s].steps, &c);
                    }
                }
                None => self.stores_elsewhere = true,
            },
            ExprKind::Binary(op, a, b) => {
                let read = |x: &Expr| match &x.kind {
                    ExprKind::Load(target) => Self::local(env, target),
                    _ => None,
                };
                let (s, v) = match (&a.kind, &b.kind) {
                    (_, ExprKind::Int(v)) => (read(a), v),
                    (ExprKind::Int(v), _) => (read(b), v),
                    _ => (None, &BigInt::ZERO),
                };
                if let Some(s) = s {
                    add(&mut self.sites[s].constants, v);
                    if matches!(
                        op,
                        BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge | BinOp::Eq
                    ) {
                        add(&mut self.sites[s].tested, v);
                    }
                }
            }
            ExprKind::If(condition, ..) => {
                let mut c = &**condition;
                while let ExprKind::Not(inner) = &c.kind {
                    c = inner;
                }
                if let ExprKind::Load(target) = &c.kind {
                    if let Some(s) = Self::local(env, target) {
                        add(&mut self.sites[s].tested, &BigInt::from(0));
                    }
                }
            }
            _ => {}
        }
        match &e.kind {
            ExprKind::Let(rhs, body) => {
                self.expr(code, rhs, env);
                let site = match &rhs.kind {
                    ExprKind::Alloc(..) => self.by_expr.get(&(&**rhs as *const Expr)).copied(),
                    _ => Self::local(env, rhs),
                };
                let constant = Self::constant(env, rhs);
                let parts = match &rhs.kind {
                    ExprKind::Pair(a, b) => Some((Self::constant(env, a), Self::constant(env, b))),
                    _ => None,
                };
                env.push(Bound {
                    site,
                    constant,
                    parts,
                });
                self.expr(code, body, env);
                env.pop();
            }
            ExprKind::LetRec(inner, body) => {
                self.code(*inner, env);
                env.push(Bound::default());
                self.expr(code, body, env);
                env.pop();
            }
            ExprKind::Lambda(inner) => self.code(*inner, env),
            ExprKind::Match(scrutinee, nil, cons) => {
                self.expr(code, scrutinee, env);
                self.expr(code, nil, env);
                env.extend([Bound::default(), Bound::default()]);
                self.expr(code, cons, env);
                env.truncate(env.len() - 2);
            }
            _ => {
                for child in e.children() {
                    self.expr(code, child, env);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sites(source: &str) -> Vec<Site> {
        let loaded = crate::frontend::load_str("t.holi", source, false)
            .unwrap_or_else(|r| panic!("{}", r.render(false)));
        Sites::of(&crate::library::build(&loaded.program)).sites
    }

    #[test]
    fn a_cell_starts_with_the_constant_its_expression_folds_to() {
        let found = sites(
            "public m (_:unit) :(int) = {
                let length = 10 in let hi = ref (length - 1) in
                let lo = ref (length * 0 + 2) in let other = ref (length / 3) in !hi + !lo + !other };",
        );
        let initial: Vec<Option<i64>> = (found.iter())
            .map(|s| s.initial.as_ref().and_then(num_traits::ToPrimitive::to_i64))
            .collect();
        // A division is not folded: HOLi's truncates, which folding would have to match.
        assert_eq!(initial, [Some(9), Some(2), None]);
        assert!(found[0].constants.contains(&BigInt::from(9)));
        // Nor is a pair's part where the pair is not one of constants.
        let found = sites(
            "public m (a:int) :(int) = {
                let nc = (7, 500) in let c = snd nc in let j = ref c in
                let other = (a, 1) in let k = ref (fst other) in !j + !k };",
        );
        let initial: Vec<Option<i64>> = (found.iter())
            .map(|s| s.initial.as_ref().and_then(num_traits::ToPrimitive::to_i64))
            .collect();
        assert_eq!(initial, [Some(500), None]);
    }
}
