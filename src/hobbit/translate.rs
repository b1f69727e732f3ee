//! Hobbit's programs as HOLi libraries, for `holi equiv PAIR.bils` and `--emit-holi`.
//!
//! A Hobbit file compares two closed expressions; the context receives the value of
//! each once. Each side becomes a library with one public method, [`START`], whose body
//! is the expression: the client calls it and receives the value (a function, a tuple of
//! functions, an integer, …). A client may call `start` more than once, and each call
//! evaluates the expression afresh (new references), but that tells no more apart:
//! contextual equivalence is a congruence, so two expressions are equivalent exactly
//! when `fun () -> e1` and `fun () -> e2` are, and a context that tells the expressions
//! apart tells the thunks apart after one call. The call and its answer are the first
//! two moves of every trace.
//!
//! The rest is a translation expression by expression, with the types inference found
//! ([`super::infer`]) where HOLi asks for them (parameters and results of functions):
//!
//! * `fun x -> e` is `fun (x:t) :(t') -> e`; `fun f x -> e`, `let rec f x = e` are
//!   `letrec`; `let f x = e in b` is `let f = fun … in b` (`f` is not bound in `e`);
//! * tuples are HOLi's left-nested pairs (`a, b, c` is `((a, b), c)`), patterns and
//!   `e[i/n]` read them with `fst`/`snd`, `e[i/n := v]` rebuilds them;
//! * `ref l = e in b` is `let l = ref e in b`, so `!l` and `l := e` read and write it;
//! * `true`/`false` are 1/0, `bool` is HOLi's `bool` (the client plays 0 or 1), `-e` is
//!   `0 - e`, `a <> b` is `not (a == b)`; `/` and `mod` are Hobbit's (Z3's: the
//!   remainder is never negative), written with HOLi's truncating ones; `&&`, `||` and `==>` short-circuit as in
//!   Hobbit (HOLi's own `&&` and `||` evaluate both sides), so they become `if`s;
//! * `_bot_` is HOLi's `_bot_`, `_sync_` an import `_sync_ :(unit -> unit)` of both
//!   sides (a call to the context, which may do anything), `_print_ e` is `e; ()`;
//! * invariant hints are dropped: they never change what a program means;
//! * names that HOLi does not allow are renamed: `'` becomes `_q`, and a HOLi reserved
//!   word gets a trailing `_`.
//!
//! Lists are HOLi's: `t list`, `[]`, `h :: t` and `match e with [] -> … | h :: t -> …`.

use super::ast as h;
use super::infer::{self, Ty, Typed};
use crate::diagnostics::{Diagnostic, Span};
use crate::frontend::{self, Loaded, Rejected};
use crate::syntax::ast::{
    BinOp, Decl, Expr, ExprKind, Function, Ident, Import, MethodDecl, Program, Type, Visibility,
};
use crate::syntax::lexer::KEYWORDS;
use crate::syntax::printer::print_program;
use num_bigint::BigInt;

/// The public method that gives the client the value of a side.
pub const START: &str = "start";

/// The import that stands for Hobbit's `_sync_`.
pub const SYNC: &str = "_sync_";

/// The two sides of a Hobbit file as HOLi libraries.
pub struct Translated {
    pub left: Program,
    pub right: Program,
}

/// The two sides of the Hobbit file at `path` as loaded HOLi libraries, named
/// `FILE (left)` and `FILE (right)`, whose sources are their HOLi texts (what
/// `--emit-holi` prints, and what diagnostics about them point into). `strict` as for
/// [`frontend::load`].
pub fn load(path: &std::path::Path, strict: bool) -> Result<[Loaded; 2], Rejected> {
    let name = path.display().to_string();
    let rejected = |diagnostics: Vec<Diagnostic>, source: Option<String>| Rejected {
        name: name.clone(),
        source,
        diagnostics,
    };
    let source = std::fs::read_to_string(path).map_err(|error| {
        let d = Diagnostic::error("E0000", format!("I can't read `{name}`: {error}"))
            .with_hint("Check the path and the file's permissions (and that it is UTF-8).");
        rejected(vec![d], None)
    })?;
    let pair = super::parse(&name, &source).map_err(|d| rejected(d, Some(source.clone())))?;
    let typed = infer::infer(&pair).map_err(|d| rejected(d, Some(source.clone())))?;
    let sides = translate(&pair, &typed);
    let side = |program: &Program, which: &str| {
        frontend::load_str(
            &format!("{name} ({which})"),
            &print_program(program),
            strict,
        )
    };
    Ok([side(&sides.left, "left")?, side(&sides.right, "right")?])
}

/// Translates both sides of `pair`, whose types are `typed`.
pub fn translate(pair: &h::Pair, typed: &Typed) -> Translated {
    let mut t = Translator {
        typed,
        fresh: 0,
        sync: false,
    };
    let left = t.expr(&pair.left);
    let right = t.expr(&pair.right);
    let result = t.ty(&typed.ty);
    let program = |body: Expr| Program {
        bounds: None,
        imports: t
            .sync
            .then(|| Import {
                name: ident(SYNC),
                ty: Type::arrow(Type::Unit, Type::Unit),
                ty_span: 0..0,
                span: 0..0,
            })
            .into_iter()
            .collect(),
        decls: vec![Decl::Method(MethodDecl {
            visibility: Visibility::Public,
            name: ident(START),
            func: Function {
                param: ident("_"),
                param_ty: Type::Unit,
                ret_ty: result.clone(),
                body: Box::new(body),
            },
            span: 0..0,
        })],
        main: None,
    };
    Translated {
        left: program(left),
        right: program(right),
    }
}

struct Translator<'a> {
    typed: &'a Typed,
    /// Temporaries made so far (`t__1`, …).
    fresh: u32,
    /// Whether either side uses `_sync_`.
    sync: bool,
}

fn ident(name: &str) -> Ident {
    Ident {
        name: name.to_string(),
        span: 0..0,
    }
}

fn e(kind: ExprKind) -> Expr {
    Expr::new(kind, 0..0)
}

fn bx(kind: ExprKind) -> Box<Expr> {
    Box::new(e(kind))
}

/// A Hobbit name as a HOLi name.
fn name(hobbit: &str) -> String {
    let mut out = hobbit.replace('\'', "_q");
    if KEYWORDS.contains(&out.as_str()) || out == START || out == SYNC {
        out.push('_');
    }
    out
}

/// Component `index` of a `width`-tuple `tuple`, as nested pairs.
fn project(tuple: Expr, index: usize, width: usize) -> Expr {
    if width <= 1 {
        return tuple;
    }
    if index + 1 == width {
        return e(ExprKind::Snd(Box::new(tuple)));
    }
    project(e(ExprKind::Fst(Box::new(tuple))), index, width - 1)
}

/// The components as a left-nested pair (`a, b, c` is `((a, b), c)`).
fn tuple(components: Vec<Expr>) -> Expr {
    let mut parts = components.into_iter();
    let first = parts.next().unwrap_or_else(|| e(ExprKind::Unit));
    parts.fold(first, |acc, next| {
        e(ExprKind::Pair(Box::new(acc), Box::new(next)))
    })
}

impl Translator<'_> {
    fn temporary(&mut self) -> String {
        self.fresh += 1;
        format!("t__{}", self.fresh)
    }

    /// A resolved type as a HOLi type.
    fn ty(&mut self, ty: &Ty) -> Type {
        match ty {
            Ty::Unit => Type::Unit,
            Ty::Bool => Type::Bool,
            Ty::Int => Type::Int,
            Ty::Arrow(a, b) => Type::arrow(self.ty(a), self.ty(b)),
            Ty::Tuple(ts) => {
                let mut parts = ts
                    .iter()
                    .map(|t| self.ty(t))
                    .collect::<Vec<_>>()
                    .into_iter();
                let first = parts.next().unwrap_or(Type::Unit);
                parts.fold(first, Type::pair)
            }
            Ty::Ref(t) => Type::reference(self.ty(t)),
            Ty::List(t) => Type::list(self.ty(t)),
        }
    }

    /// The type inference gave the binder or function at `span`.
    fn type_at(
        &mut self,
        types: fn(&Typed) -> &std::collections::HashMap<Span, Ty>,
        span: &Span,
    ) -> Type {
        match types(self.typed).get(span).cloned() {
            Some(ty) => self.ty(&ty),
            // Inference types every binder and function; an unknown one is an int, as
            // inference makes every type it leaves open.
            None => Type::Int,
        }
    }

    fn binder(&self, b: &h::Binder) -> Ident {
        Ident {
            name: b.name().map_or_else(|| "_".to_string(), name),
            span: b.span.clone(),
        }
    }

    fn function(&mut self, f: &h::Function) -> Function {
        Function {
            param: self.binder(&f.param),
            param_ty: self.type_at(|t| &t.binders, &f.param.span),
            ret_ty: self.type_at(|t| &t.results, &f.span),
            body: Box::new(self.expr(&f.body)),
        }
    }

    fn expr(&mut self, x: &h::Expr) -> Expr {
        let kind = match &x.kind {
            h::ExprKind::Int(n) => ExprKind::Int(n.clone()),
            h::ExprKind::Bool(b) => ExprKind::Int(BigInt::from(u8::from(*b))),
            h::ExprKind::Unit => ExprKind::Unit,
            h::ExprKind::Var(v) => ExprKind::Var(name(v)),
            h::ExprKind::Bot => ExprKind::Diverge,
            h::ExprKind::Sync(_) => {
                self.sync = true;
                ExprKind::Var(SYNC.to_string())
            }
            h::ExprKind::Deref(l) => ExprKind::Deref(Ident {
                name: name(&l.name),
                span: l.span.clone(),
            }),
            h::ExprKind::Assign(l, v) => ExprKind::Assign(
                Ident {
                    name: name(&l.name),
                    span: l.span.clone(),
                },
                Box::new(self.expr(v)),
            ),
            h::ExprKind::Unary(op, a) => {
                let a = Box::new(self.expr(a));
                match op {
                    h::UnaryOp::Neg => ExprKind::Binary(BinOp::Sub, bx(ExprKind::Int(0.into())), a),
                    h::UnaryOp::Not => ExprKind::Not(a),
                    h::UnaryOp::Fst => ExprKind::Fst(a),
                    h::UnaryOp::Snd => ExprKind::Snd(a),
                    h::UnaryOp::Print => ExprKind::Seq(a, bx(ExprKind::Unit)),
                }
            }
            h::ExprKind::Binary(op, a, b) => self.binary(*op, a, b),
            h::ExprKind::App(f, a) => ExprKind::App(Box::new(self.expr(f)), Box::new(self.expr(a))),
            h::ExprKind::If(c, t, f) => ExprKind::If(
                Box::new(self.expr(c)),
                Box::new(self.expr(t)),
                match f {
                    Some(f) => Box::new(self.expr(f)),
                    None => bx(ExprKind::Unit),
                },
            ),
            h::ExprKind::Seq(es) => {
                let mut parts: Vec<Expr> = es.iter().map(|x| self.expr(x)).collect();
                let last = parts.pop().unwrap_or_else(|| e(ExprKind::Unit));
                return parts.into_iter().rev().fold(last, |rest, first| {
                    Expr::new(
                        ExprKind::Seq(Box::new(first), Box::new(rest)),
                        x.span.clone(),
                    )
                });
            }
            h::ExprKind::Tuple(es) => {
                let parts = es.iter().map(|x| self.expr(x)).collect();
                return tuple(parts);
            }
            h::ExprKind::Fun {
                name: None,
                function,
            } => ExprKind::Lambda(self.function(function)),
            h::ExprKind::Fun {
                name: Some(f),
                function,
            } => {
                let f = self.binder(f);
                ExprKind::LetRec(
                    f.clone(),
                    self.function(function),
                    bx(ExprKind::Var(f.name)),
                )
            }
            h::ExprKind::Let {
                binder,
                value,
                body,
            } => ExprKind::Let(
                self.binder(binder),
                Box::new(self.expr(value)),
                Box::new(self.expr(body)),
            ),
            h::ExprKind::LetFun {
                recursive,
                name: f,
                function,
                body,
            } => {
                let f = self.binder(f);
                let func = self.function(function);
                let body = Box::new(self.expr(body));
                if *recursive {
                    ExprKind::LetRec(f, func, body)
                } else {
                    ExprKind::Let(f, bx(ExprKind::Lambda(func)), body)
                }
            }
            h::ExprKind::LetTuple {
                binders,
                value,
                body,
            } => {
                let whole = self.temporary();
                let mut inner = self.expr(body);
                let width = binders.len();
                for (i, b) in binders.iter().enumerate().rev() {
                    let component = project(e(ExprKind::Var(whole.clone())), i, width);
                    inner = e(ExprKind::Let(
                        self.binder(b),
                        Box::new(component),
                        Box::new(inner),
                    ));
                }
                ExprKind::Let(ident(&whole), Box::new(self.expr(value)), Box::new(inner))
            }
            h::ExprKind::Ref {
                name: l,
                value,
                body,
            } => ExprKind::Let(
                Ident {
                    name: name(&l.name),
                    span: l.span.clone(),
                },
                bx(ExprKind::Alloc(Box::new(self.expr(value)))),
                Box::new(self.expr(body)),
            ),
            h::ExprKind::Project {
                tuple: t,
                index,
                width,
            } => {
                let whole = self.expr(t);
                return project(whole, *index, *width);
            }
            h::ExprKind::Update {
                tuple: t,
                index,
                width,
                value,
            } => {
                let whole = self.temporary();
                let value = self.expr(value);
                let parts = (0..*width)
                    .map(|i| {
                        if i == *index {
                            value.clone()
                        } else {
                            project(e(ExprKind::Var(whole.clone())), i, *width)
                        }
                    })
                    .collect();
                ExprKind::Let(
                    ident(&whole),
                    Box::new(self.expr(t)),
                    Box::new(tuple(parts)),
                )
            }
            h::ExprKind::Nil => ExprKind::Nil,
            h::ExprKind::Match {
                scrutinee,
                nil,
                head,
                tail,
                cons,
            } => ExprKind::Match {
                scrutinee: Box::new(self.expr(scrutinee)),
                nil: Box::new(self.expr(nil)),
                head: self.binder(head),
                tail: self.binder(tail),
                cons: Box::new(self.expr(cons)),
            },
        };
        Expr::new(kind, x.span.clone())
    }

    /// Hobbit's `a / b` (`quotient`) or `a mod b`: Z3's, whose remainder is never
    /// negative (`-1 mod 2` is 1, `-1 / 2` is -1), from HOLi's, which truncate toward
    /// zero: `r = a mod b` plus `|b|` when negative, and `(a - r) / b`, exact.
    fn euclidean(&mut self, quotient: bool, a: Expr, b: Expr) -> ExprKind {
        let (x, y, r) = (self.temporary(), self.temporary(), self.temporary());
        let var = |n: &str| bx(ExprKind::Var(n.to_string()));
        let int = |n: i64| bx(ExprKind::Int(BigInt::from(n)));
        let below = |a, b| bx(ExprKind::Binary(BinOp::Lt, a, b));
        let arith = |op, a, b| bx(ExprKind::Binary(op, a, b));
        // |b| added to a negative truncated remainder.
        let lifted = ExprKind::If(
            below(var(&r), int(0)),
            bx(ExprKind::If(
                below(var(&y), int(0)),
                arith(BinOp::Sub, var(&r), var(&y)),
                arith(BinOp::Add, var(&r), var(&y)),
            )),
            var(&r),
        );
        let remainder = Expr::new(
            ExprKind::Let(ident(&r), arith(BinOp::Mod, var(&x), var(&y)), bx(lifted)),
            0..0,
        );
        let result = if quotient {
            let m = self.temporary();
            ExprKind::Let(
                ident(&m),
                Box::new(remainder),
                arith(BinOp::Div, arith(BinOp::Sub, var(&x), var(&m)), var(&y)),
            )
        } else {
            remainder.kind
        };
        ExprKind::Let(
            ident(&x),
            Box::new(a),
            bx(ExprKind::Let(ident(&y), Box::new(b), bx(result))),
        )
    }

    fn binary(&mut self, op: h::BinaryOp, a: &h::Expr, b: &h::Expr) -> ExprKind {
        use h::BinaryOp as H;
        let (l, r) = (Box::new(self.expr(a)), Box::new(self.expr(b)));
        let int = |n: u8| bx(ExprKind::Int(BigInt::from(n)));
        let plain = |op: BinOp, l, r| ExprKind::Binary(op, l, r);
        match op {
            H::Add => plain(BinOp::Add, l, r),
            H::Sub => plain(BinOp::Sub, l, r),
            H::Mul => plain(BinOp::Mul, l, r),
            H::Div | H::Mod => self.euclidean(op == H::Div, *l, *r),
            H::Eq => plain(BinOp::Eq, l, r),
            H::Lt => plain(BinOp::Lt, l, r),
            H::Gt => plain(BinOp::Gt, l, r),
            H::Le => plain(BinOp::Le, l, r),
            H::Ge => plain(BinOp::Ge, l, r),
            H::Ne => ExprKind::Not(bx(plain(BinOp::Eq, l, r))),
            // Short-circuit, as in Hobbit: the right side runs only when it decides.
            H::And => ExprKind::If(l, r, int(0)),
            H::Or => ExprKind::If(l, int(1), r),
            H::Implies => ExprKind::If(l, r, int(1)),
            H::Cons => ExprKind::Cons(l, r),
        }
    }
}
