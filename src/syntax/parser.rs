//! The parser: HOLiK's grammar (SYNTAX-NOTES §2–§5) with chumsky over logos tokens.
//!
//! K's priority rule is applied exactly: a child at the *edge* of a production (its first or
//! last non-terminal) may not come from a looser group, while children enclosed by terminals
//! (`( … )`, `{ … }`, an `if` condition and then-branch, `let x = … in`) are unrestricted.
//!
//! The grammar is built as one parser per level `L`, `expr[L]`: "an expression whose edges
//! allow group `L`". Every construct that starts with a keyword or a name (`if`, `let`,
//! `letrec`, `fun`, `not`, `assert`, `fst`, `snd`, `ref`, `!`, `r := e`, atoms) is
//! recognised by a single prefix parser, whatever the level; the level only decides whether
//! the construct may stand there. Because a prefix construct's last operand is parsed at the construct's
//! own group, whatever operator follows it always accepts it on its left; so the one check
//! needed is "the first construct's group ≤ L", and when it fails the construct is still
//! parsed and an error suggests parentheses. There is no backtracking over a construct, so
//! parsing is linear.

use crate::diagnostics::Diagnostic;
use crate::syntax::ast::*;
use crate::syntax::lexer::Token;
use chumsky::error::{EmptyErr, Rich, RichPattern, RichReason};
use chumsky::input::{Checkpoint, Cursor, Input as _, ValueInput};
use chumsky::inspector::Inspector;
use chumsky::prelude::*;
use chumsky::recursive::Direct;
use num_bigint::BigInt;
use std::cell::RefCell;
use std::rc::Rc;

/// The loosest group: `let`, `letrec`, `fun`, and everything enclosed by terminals.
const TOP: u8 = 13;

/// Integer literals longer than this are rejected rather than converted (the conversion is
/// super-linear and no program needs them).
pub const MAX_LITERAL_DIGITS: usize = 10_000;

/// The deepest nesting a file may have: both the parser's recursion (estimated from the
/// tokens, see [`nesting_bound`]) and the depth of the resulting syntax tree, over which
/// every later stage recurses. The CLI and the loader run on a 1 GiB stack, which holds this
/// depth with room to spare; unoptimised (debug) builds use far more stack per level, hence
/// their lower limit.
pub const MAX_NESTING: usize = if cfg!(debug_assertions) {
    2_000
} else {
    12_000
};

type Err<'t, 's> = Rich<'t, Token<'s>, SimpleSpan>;
type Extra<'t, E> = extra::Full<E, ParseState, ()>;

/// The parser's error type: [`Err`] for diagnostics, or `EmptyErr` for the first
/// attempt, which only says whether the tokens parse: rich errors record every
/// alternative tried even when the parse succeeds, which costs a third of a small
/// `holi equiv` ([`parse_tokens`]).
trait ParseError<'t, I: chumsky::input::Input<'t>>:
    chumsky::error::Error<'t, I> + chumsky::error::LabelError<'t, I, &'static str> + 't
{
}

impl<'t, I, E> ParseError<'t, I> for E
where
    I: chumsky::input::Input<'t>,
    E: chumsky::error::Error<'t, I> + chumsky::error::LabelError<'t, I, &'static str> + 't,
{
}

/// Diagnostics the parser finds without failing (constructs that need parentheses, mixed
/// operators, bad literals). Rolled back with the input when an alternative is abandoned.
pub struct ParseState {
    file: String,
    diagnostics: Vec<Diagnostic>,
}

impl<'t, I: chumsky::input::Input<'t>> Inspector<'t, I> for ParseState {
    type Checkpoint = usize;

    fn on_token(&mut self, _: &I::Token) {}

    fn on_save<'p>(&self, _: &Cursor<'t, 'p, I>) -> usize {
        self.diagnostics.len()
    }

    fn on_rewind<'p>(&mut self, marker: &Checkpoint<'t, 'p, I, usize>) {
        self.diagnostics.truncate(*marker.inspector());
    }
}

impl ParseState {
    fn push(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }
}

fn range(span: SimpleSpan) -> Span {
    span.start..span.end
}

fn join(a: &Expr, b: &Expr) -> Span {
    a.span.start..b.span.end
}

fn bx(e: Expr) -> Box<Expr> {
    Box::new(e)
}

/// Where an `expr[L]` stands, for the "needs parentheses" diagnostic.
fn position(level: u8) -> &'static str {
    match level {
        12 => "after `;`",
        11 => "after `else`",
        10 => "on the right of `:=`",
        8 => "after `,` or `||`",
        7 => "after `&&`",
        5 => "after a comparison",
        4 => "after `+` or `-`",
        3 => "after `*`, `/` or `not`",
        _ => "as an argument, or after `assert`, `fst` or `snd`",
    }
}

fn construct(e: &Expr) -> (&'static str, &'static str) {
    match e.kind {
        ExprKind::If(..) => ("`if`", "(if … then … else …)"),
        ExprKind::Let(..) => ("`let`", "(let … in …)"),
        ExprKind::LetRec(..) => ("`letrec`", "(letrec … in …)"),
        ExprKind::Match { .. } => ("`match`", "(match … with [] -> … | x :: xs -> …)"),
        ExprKind::Lambda(..) => ("`fun`", "(fun (x:t) :(t') -> …)"),
        ExprKind::Assign(..) => ("An assignment", "(r := …)"),
        ExprKind::Not(..) => ("`not`", "(not …)"),
        _ => ("This expression", "( … )"),
    }
}

/// One left-associative layer of a group of operators (`* /`, `+ -` or comparisons). Mixing
/// two operators of one group without parentheses is ambiguous in HOLiK; holi groups to the
/// left and warns.
fn binary_layer<'t, 's: 't, I, E>(
    below: Boxed<'t, 't, I, Expr, Extra<'t, E>>,
    ops: Boxed<'t, 't, I, BinOp, Extra<'t, E>>,
    operand: Handle<'t, I, E>,
) -> Boxed<'t, 't, I, Expr, Extra<'t, E>>
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
    E: ParseError<'t, I>,
{
    below
        .then(
            ops.map_with(|op, e| (op, range(e.span())))
                .then(operand)
                .repeated()
                .collect::<Vec<_>>(),
        )
        .validate(|(first, rest), e, _| {
            if let Some(((first_op, _), _)) = rest.first() {
                if let Some(((op, op_span), _)) = rest.iter().find(|((op, _), _)| op != first_op) {
                    let state: &mut ParseState = e.state();
                    let file = state.file.clone();
                    state.push(
                        Diagnostic::warning(
                            "W0101",
                            format!(
                                "`{}` and `{}` are mixed without parentheses",
                                first_op.symbol(),
                                op.symbol()
                            ),
                        )
                        .with_label(&file, op_span.clone(), "this operator")
                        .with_hint(format!(
                            "HOLiK finds this ambiguous; holi groups it to the left, as in \
                             `(a {} b) {} c`. Add parentheses to say which you mean.",
                            first_op.symbol(),
                            op.symbol()
                        )),
                    );
                }
            }
            rest.into_iter().fold(first, |left, ((op, _), right)| {
                let span = join(&left, &right);
                Expr::new(ExprKind::Binary(op, bx(left), bx(right)), span)
            })
        })
        .boxed()
}

/// The right-associative layers `&&` and `||`: `a && b && c` is `a && (b && c)`.
fn right_layer<'t, 's: 't, I, E>(
    below: Boxed<'t, 't, I, Expr, Extra<'t, E>>,
    token: Token<'s>,
    op: BinOp,
    operand: Handle<'t, I, E>,
) -> Boxed<'t, 't, I, Expr, Extra<'t, E>>
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
    E: ParseError<'t, I>,
{
    below
        .then(just(token).ignore_then(operand).or_not())
        .map(move |(left, right)| match right {
            None => left,
            Some(right) => {
                let span = join(&left, &right);
                Expr::new(ExprKind::Binary(op, bx(left), bx(right)), span)
            }
        })
        .boxed()
}

fn type_parser<'t, 's: 't, I, E>(
) -> impl Parser<'t, I, Type, Extra<'t, E>> + Clone + use<'t, 's, I, E>
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
    E: ParseError<'t, I>,
{
    recursive(|ty| {
        let atom = type_atom(ty);
        let op = choice((just(Token::Star).to(true), just(Token::Arrow).to(false)))
            .map_with(|is_pair, e| (is_pair, range(e.span())));
        atom.clone()
            .then(op.then(atom).repeated().collect::<Vec<_>>())
            .validate(|(first, rest), e, _| {
                let first_is_pair = rest.first().map(|((p, _), _)| *p);
                if let Some(((_, span), _)) =
                    rest.iter().find(|((p, _), _)| Some(*p) != first_is_pair)
                {
                    let state: &mut ParseState = e.state();
                    let file = state.file.clone();
                    state.push(
                        Diagnostic::error("E0203", "`*` and `->` are mixed without parentheses")
                            .with_label(&file, span.clone(), "this operator")
                            .with_hint(
                                "`*` and `->` have no relative priority: write \
                                 `int * (int -> unit)` or `(int * int) -> unit`.",
                            ),
                    );
                }
                if first_is_pair == Some(false) {
                    // `->` groups to the right.
                    let mut types: Vec<Type> = std::iter::once(first)
                        .chain(rest.into_iter().map(|(_, t)| t))
                        .collect();
                    let mut result = types.pop().unwrap_or(Type::Unit);
                    while let Some(arg) = types.pop() {
                        result = Type::arrow(arg, result);
                    }
                    result
                } else {
                    rest.into_iter().fold(first, |a, (_, b)| Type::pair(a, b))
                }
            })
    })
}

/// `int`, `unit`, `bool`, `ref` before an atom, or a parenthesised `ty`, each followed by
/// any number of `list` (a name, not a keyword: it binds tighter than `ref`, so that
/// `ref int list` holds a list).
fn type_atom<'t, 's: 't, I, E, P>(
    ty: P,
) -> impl Parser<'t, I, Type, Extra<'t, E>> + Clone + use<'t, 's, I, E, P>
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
    E: ParseError<'t, I>,
    P: Parser<'t, I, Type, Extra<'t, E>> + Clone + 't,
{
    recursive(|atom| {
        let base = choice((
            just(Token::IntTy).to(Type::Int),
            just(Token::UnitTy).to(Type::Unit),
            just(Token::BoolTy).to(Type::Bool),
            ty.delimited_by(just(Token::LParen), just(Token::RParen)),
        ))
        .foldl(just(Token::Ident("list")).repeated(), |t, _| Type::list(t));
        choice((
            base,
            just(Token::Ref).ignore_then(atom).map(Type::reference),
        ))
        .labelled("a type")
    })
}

/// `(x:t) :(t')`, shared by methods, `letrec` and `fun`.
fn signature<'t, 's: 't, I, E>(
) -> impl Parser<'t, I, (Ident, Type, Type), Extra<'t, E>> + Clone + use<'t, 's, I, E>
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
    E: ParseError<'t, I>,
{
    let ty = type_parser();
    ident()
        .then_ignore(just(Token::Colon))
        .then(ty.clone())
        .delimited_by(just(Token::LParen), just(Token::RParen))
        .then_ignore(just(Token::Colon))
        .then(ty.delimited_by(just(Token::LParen), just(Token::RParen)))
        .map(|((param, param_ty), ret_ty)| (param, param_ty, ret_ty))
}

fn ident<'t, 's: 't, I, E>() -> impl Parser<'t, I, Ident, Extra<'t, E>> + Clone + use<'t, 's, I, E>
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
    E: ParseError<'t, I>,
{
    select! { Token::Ident(name) => name }
        .map_with(|name: &str, e| Ident {
            name: name.to_string(),
            span: range(e.span()),
        })
        .labelled("a name")
}

/// An integer literal as an exact integer; over-long literals are reported and read as 0.
fn literal<'t, 's: 't, I, E>(
) -> impl Parser<'t, I, BigInt, Extra<'t, E>> + Clone + use<'t, 's, I, E>
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
    E: ParseError<'t, I>,
{
    select! { Token::Int(text) => text }
        .validate(|text: &str, e, _| {
            let digits = text.trim_start_matches(['+', '-']).len();
            if digits > MAX_LITERAL_DIGITS {
                let span = range(e.span());
                let state: &mut ParseState = e.state();
                let file = state.file.clone();
                state.push(
                    Diagnostic::error("E0003", "This integer literal is too long")
                        .with_label(&file, span, format!("{digits} digits"))
                        .with_hint(format!(
                            "holi's integers are exact, but literals are limited to \
                             {MAX_LITERAL_DIGITS} digits."
                        )),
                );
                return BigInt::default();
            }
            text.parse::<BigInt>().unwrap_or_default()
        })
        .labelled("an integer")
}

/// A handle on the parser `expr[L]` for some level `L`.
type Handle<'t, I, E> = Recursive<Direct<'t, 't, I, Expr, Extra<'t, E>>>;

/// Handles on every level, filled while the levels are built (see [`expressions`]).
type Handles<'t, I, E> = Rc<RefCell<Vec<Option<Handle<'t, I, E>>>>>;

/// The expression parsers `expr[L]`, `L` in 1..=13, returning `expr[13]` and a weak handle
/// on `expr[10]` (usable while the first lives), which reads what stands on the right of
/// `:=`.
///
/// The levels refer to one another in cycles. To let the parser be freed, every reference
/// between levels is a weak handle and only a chain of owning handles runs from `expr[13]`
/// down to `expr[1]`: level `L` is built inside level `L + 1`'s definition, and each level
/// records its weak handle in `handles` before building the levels below it, so that once
/// those are built every handle is known.
fn expressions<'t, 's: 't, I, E>() -> (Handle<'t, I, E>, Handle<'t, I, E>)
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
    E: ParseError<'t, I>,
{
    let handles = Rc::new(RefCell::new(vec![None; TOP as usize + 1]));
    let top = build_level(TOP, handles.clone());
    let assigned = match &handles.borrow()[10] {
        Some(handle) => handle.clone(),
        None => unreachable!("building `expr[13]` records the handle of every level"),
    };
    (top, assigned)
}

fn build_level<'t, 's: 't, I, E>(level: u8, handles: Handles<'t, I, E>) -> Handle<'t, I, E>
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
    E: ParseError<'t, I>,
{
    recursive(move |this| {
        handles.borrow_mut()[level as usize] = Some(this);
        let below = (level > 1).then(|| build_level(level - 1, handles.clone()));
        let known: Vec<Option<Handle<'t, I, E>>> = handles.borrow().clone();
        let at = move |l: u8| match &known[l as usize] {
            Some(handle) => handle.clone(),
            None => unreachable!("every level's handle is recorded before it is used"),
        };
        level_parser(level, &at).map(move |e| {
            // Owns the levels below this one for as long as this level lives.
            let _ = &below;
            e
        })
    })
}

/// What follows `!`: a reference's name, or an expression giving a location.
enum Operand {
    Name(Ident),
    Value(Expr),
}

/// Every construct that starts with a keyword, a name, `!`, `(` or a literal, with its
/// priority group (1 = tightest, 13 = loosest).
fn atom_parser<'t, 's: 't, I, E>(
    at: &impl Fn(u8) -> Handle<'t, I, E>,
) -> Boxed<'t, 't, I, (Expr, u8), Extra<'t, E>>
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
    E: ParseError<'t, I>,
{
    choice((
        ident()
            .then(just(Token::Assign).ignore_then(at(10)).or_not())
            .map_with(|(name, value), e| match value {
                None => (Expr::new(ExprKind::Var(name.name), name.span), 1),
                Some(value) => (
                    Expr::new(ExprKind::Assign(name, bx(value)), range(e.span())),
                    10,
                ),
            }),
        literal().map_with(|n, e| (Expr::new(ExprKind::Int(n), range(e.span())), 1)),
        just(Token::Unit).map_with(|_, e| (Expr::new(ExprKind::Unit, range(e.span())), 1)),
        // `true` and `false` are the integers 1 and 0 that conditions and comparisons
        // use (`lang/grammar.md`).
        just(Token::True)
            .to(1)
            .or(just(Token::False).to(0))
            .map_with(|n, e| {
                (
                    Expr::new(ExprKind::Int(BigInt::from(n)), range(e.span())),
                    1,
                )
            }),
        just(Token::Bot).map_with(|_, e| (Expr::new(ExprKind::Diverge, range(e.span())), 1)),
        just(Token::EmptyList).map_with(|_, e| (Expr::new(ExprKind::Nil, range(e.span())), 1)),
        choice((
            just(Token::ListHd).to(ListOp::Hd),
            just(Token::ListTl).to(ListOp::Tl),
            just(Token::ListIsNil).to(ListOp::IsNil),
        ))
        .then(at(1))
        .map_with(|(op, operand), e| {
            let kind = ExprKind::ListOp(op, bx(operand));
            (Expr::new(kind, range(e.span())), 1)
        }),
        just(Token::Match)
            .ignore_then(at(TOP))
            .then_ignore(just(Token::With))
            .then_ignore(just(Token::Bar).or_not())
            .then_ignore(just(Token::EmptyList))
            .then_ignore(just(Token::Arrow))
            .then(at(TOP))
            .then_ignore(just(Token::Bar))
            .then(ident())
            .then_ignore(just(Token::ColonColon))
            .then(ident())
            .then_ignore(just(Token::Arrow))
            .then(at(TOP))
            .map_with(|((((scrutinee, nil), head), tail), cons), e| {
                let kind = ExprKind::Match {
                    scrutinee: bx(scrutinee),
                    nil: bx(nil),
                    head,
                    tail,
                    cons: bx(cons),
                };
                (Expr::new(kind, range(e.span())), TOP)
            }),
        // `!r` names a reference; `!e` reads through the location any other `e` gives,
        // except `!(r)`, which is `!r` (parentheses are not nodes).
        just(Token::Bang)
            .ignore_then(ident().map(Operand::Name).or(at(1).map(Operand::Value)))
            .map_with(|operand, e| {
                let kind = match operand {
                    Operand::Name(r) => ExprKind::Deref(r),
                    Operand::Value(inner) => match inner.kind {
                        ExprKind::Var(name) => ExprKind::Deref(Ident {
                            name,
                            span: inner.span,
                        }),
                        kind => ExprKind::Load(bx(Expr::new(kind, inner.span))),
                    },
                };
                (Expr::new(kind, range(e.span())), 1)
            }),
        at(TOP)
            .delimited_by(just(Token::LParen), just(Token::RParen))
            .map_with(|inner, e| (Expr::new(inner.kind, range(e.span())), 1)),
        choice((
            just(Token::Assert).to(ExprKind::Assert as fn(Box<Expr>) -> ExprKind),
            just(Token::Fst).to(ExprKind::Fst as fn(Box<Expr>) -> ExprKind),
            just(Token::Snd).to(ExprKind::Snd as fn(Box<Expr>) -> ExprKind),
            just(Token::Ref).to(ExprKind::Alloc as fn(Box<Expr>) -> ExprKind),
        ))
        .then(at(1))
        .map_with(|(make, operand), e| (Expr::new(make(bx(operand)), range(e.span())), 1)),
        just(Token::Not)
            .ignore_then(at(3))
            .map_with(|operand, e| (Expr::new(ExprKind::Not(bx(operand)), range(e.span())), 3)),
        just(Token::If)
            .ignore_then(at(TOP))
            .then_ignore(just(Token::Then))
            .then(at(TOP))
            .then_ignore(just(Token::Else))
            .then(at(11))
            .map_with(|((c, t), f), e| {
                (
                    Expr::new(ExprKind::If(bx(c), bx(t), bx(f)), range(e.span())),
                    11,
                )
            }),
        just(Token::Let)
            .ignore_then(ident())
            .then_ignore(just(Token::Eq))
            .then(at(TOP))
            .then_ignore(just(Token::In))
            .then(at(TOP))
            .map_with(|((x, value), body), e| {
                (
                    Expr::new(ExprKind::Let(x, bx(value), bx(body)), range(e.span())),
                    TOP,
                )
            }),
        just(Token::LetRec)
            .ignore_then(ident())
            .then(signature())
            .then_ignore(just(Token::Eq))
            .then(at(TOP))
            .then_ignore(just(Token::In))
            .then(at(TOP))
            .map_with(|(((f, (param, param_ty, ret_ty)), fbody), body), e| {
                let func = Function {
                    param,
                    param_ty,
                    ret_ty,
                    body: bx(fbody),
                };
                (
                    Expr::new(ExprKind::LetRec(f, func, bx(body)), range(e.span())),
                    TOP,
                )
            }),
        just(Token::Fun)
            .ignore_then(signature())
            .then_ignore(just(Token::Arrow))
            .then(at(TOP))
            .map_with(|((param, param_ty, ret_ty), body), e| {
                let func = Function {
                    param,
                    param_ty,
                    ret_ty,
                    body: bx(body),
                };
                (Expr::new(ExprKind::Lambda(func), range(e.span())), TOP)
            }),
    ))
    .labelled("an expression")
    .boxed()
}

/// `expr[level]`: the construct at its start may be at most as loose as `level`.
fn level_parser<'t, 's: 't, I, E>(
    level: u8,
    at: &impl Fn(u8) -> Handle<'t, I, E>,
) -> Boxed<'t, 't, I, Expr, Extra<'t, E>>
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
    E: ParseError<'t, I>,
{
    let mul_ops = choice((
        just(Token::Star).to(BinOp::Mul),
        just(Token::Slash).to(BinOp::Div),
        just(Token::Mod).to(BinOp::Mod),
    ))
    .boxed();
    let add_ops = choice((
        just(Token::Plus).to(BinOp::Add),
        just(Token::Minus).to(BinOp::Sub),
    ))
    .boxed();
    let cmp_ops = choice((
        just(Token::Lt).to(BinOp::Lt),
        just(Token::Gt).to(BinOp::Gt),
        just(Token::Le).to(BinOp::Le),
        just(Token::Ge).to(BinOp::Ge),
        just(Token::EqEq).to(BinOp::Eq),
    ))
    .boxed();

    let atom = atom_parser(at);
    let mut p = atom
        .clone()
        .validate(move |(e, group), extra, _| {
            if group > level {
                let (what, shape) = construct(&e);
                let state: &mut ParseState = extra.state();
                let file = state.file.clone();
                let title = format!("{what} needs parentheses {}", position(level));
                let mut hint = format!(
                    "Write `{shape}`. As in HOLiK, a looser construct may not stand at the \
                     edge of a tighter operator unless it is parenthesised."
                );
                if matches!(e.kind, ExprKind::Assign(..)) {
                    hint.push_str(
                        " To assign through the reference an expression gives, parenthesise \
                         that expression instead: `(f x) := …`.",
                    );
                }
                state.push(
                    Diagnostic::error("E0201", title)
                        .with_label(&file, e.span.clone(), "this needs parentheses")
                        .with_hint(hint),
                );
            }
            e
        })
        .boxed();
    if level >= 2 {
        p = p
            .foldl(at(1).repeated(), |f, a| {
                let span = join(&f, &a);
                Expr::new(ExprKind::App(bx(f), bx(a)), span)
            })
            .boxed();
    }
    if level >= 4 {
        p = binary_layer(p, mul_ops.clone(), at(3));
    }
    if level >= 5 {
        p = binary_layer(p, add_ops.clone(), at(4));
        // `::` shares the level of `+` and `-`, below them and to the right, as in
        // OCaml: `x + 1 :: xs` is `(x + 1) :: xs`, and `a :: b :: c` is `a :: (b :: c)`.
        p = p
            .then(just(Token::ColonColon).ignore_then(at(5)).or_not())
            .map(|(head, tail)| match tail {
                None => head,
                Some(tail) => {
                    let span = join(&head, &tail);
                    Expr::new(ExprKind::Cons(bx(head), bx(tail)), span)
                }
            })
            .boxed();
    }
    if level >= 6 {
        p = binary_layer(p, cmp_ops.clone(), at(5));
    }
    if level >= 7 {
        p = right_layer(p, Token::AndAnd, BinOp::And, at(7));
    }
    if level >= 8 {
        p = right_layer(p, Token::OrOr, BinOp::Or, at(8));
    }
    if level >= 9 {
        p = p
            .foldl(just(Token::Comma).ignore_then(at(8)).repeated(), |a, b| {
                let span = join(&a, &b);
                Expr::new(ExprKind::Pair(bx(a), bx(b)), span)
            })
            .boxed();
    }
    if level >= 10 {
        // `r := e` is recognised with its name by the atom parser; here the left side is
        // any other expression, which assigns through the location it gives, unless it
        // can never give one.
        p = p
            .then(
                just(Token::Assign)
                    .map_with(|_, e| range(e.span()))
                    .then(at(10))
                    .or_not(),
            )
            .validate(|(left, assign), extra, _| {
                let Some((op_span, right)) = assign else {
                    return left;
                };
                let span = join(&left, &right);
                if left.never_a_reference() {
                    let state: &mut ParseState = extra.state();
                    let file = state.file.clone();
                    state.push(
                        Diagnostic::error("E0202", "Only a reference name can be assigned")
                            .with_label(&file, left.span.clone(), "this is not a reference name")
                            .with_label(&file, op_span, "assignment")
                            .with_hint(
                                "The left side of `:=` must be a reference name, without \
                                 parentheses.",
                            ),
                    );
                    return Expr::new(ExprKind::Seq(bx(left), bx(right)), span);
                }
                let kind = match left.kind {
                    // `(r) := e` is `r := e`.
                    ExprKind::Var(name) => ExprKind::Assign(
                        Ident {
                            name,
                            span: left.span,
                        },
                        bx(right),
                    ),
                    kind => ExprKind::Store(bx(Expr::new(kind, left.span)), bx(right)),
                };
                Expr::new(kind, span)
            })
            .boxed();
    }
    if level >= 12 {
        p = p
            .then(just(Token::Semi).ignore_then(at(12)).or_not())
            .map(|(left, right)| match right {
                None => left,
                Some(right) => {
                    let span = join(&left, &right);
                    Expr::new(ExprKind::Seq(bx(left), bx(right)), span)
                }
            })
            .boxed();
    }
    p
}

/// The initial value `e` of a `ref` declaration as a static value (`ref` on top when
/// `top`), or the part of `e` that is not static.
fn static_value(e: &Expr, top: bool) -> Result<Static, &Expr> {
    Ok(match &e.kind {
        ExprKind::Alloc(inner) => Static::Ref(Box::new(static_value(inner, false)?)),
        _ if top => return Err(e),
        ExprKind::Int(n) => Static::Int(n.clone()),
        ExprKind::Unit => Static::Unit,
        ExprKind::Nil => Static::Nil,
        ExprKind::Var(name) => Static::Name(Ident {
            name: name.clone(),
            span: e.span.clone(),
        }),
        ExprKind::Pair(a, b) => Static::Pair(
            Box::new(static_value(a, false)?),
            Box::new(static_value(b, false)?),
        ),
        _ => return Err(e),
    })
}

fn not_static(file: &str, value: &Expr, bad: &Expr) -> Diagnostic {
    let label = if std::ptr::eq(value, bad) {
        "this is not `ref` of a value"
    } else {
        "this is computed when the program runs"
    };
    Diagnostic::error(
        "E0208",
        "The initial value of a `ref` declaration must be `ref` of a literal, `()`, a method \
         or a pair of those",
    )
    .with_label(file, bad.span.clone(), label)
    .with_hint(
        "A declaration's value is fixed before any code runs: write e.g. \
         `ref int r := ref 0;` and assign the computed value in a method.",
    )
}

enum Item {
    Import(Import),
    Decl(Decl),
    Main(Main),
}

fn program_parser<'t, 's: 't, I, E>(
) -> impl Parser<'t, I, Program, Extra<'t, E>> + use<'t, 's, I, E>
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
    E: ParseError<'t, I>,
{
    let (expr, assigned) = expressions::<I, E>();
    let body = expr.delimited_by(just(Token::LBrace), just(Token::RBrace));
    let bound = select! { Token::Int(text) => text }
        .validate(|text: &str, e, _| match text.parse::<u32>() {
            Ok(n) => n,
            Err(_) => {
                let span = range(e.span());
                let state: &mut ParseState = e.state();
                let file = state.file.clone();
                state.push(
                    Diagnostic::error("E0004", "This bound is out of range")
                        .with_label(&file, span, "not between 0 and 4294967295")
                        .with_hint("The bounds K and L are natural numbers that fit in 32 bits."),
                );
                0
            }
        })
        .labelled("a bound");
    let header = just(Token::Hash)
        .ignore_then(just(Token::SetBounds))
        .ignore_then(bound)
        .then(bound)
        .then_ignore(just(Token::Hash))
        .map_with(|(k, l), e| Bounds {
            k,
            l,
            span: range(e.span()),
        });

    let import = just(Token::Import)
        .ignore_then(ident())
        .then_ignore(just(Token::Colon))
        .then(
            type_parser()
                .map_with(|ty, e| (ty, range(e.span())))
                .delimited_by(just(Token::LParen), just(Token::RParen)),
        )
        .map_with(|(name, (ty, ty_span)), e| {
            Item::Import(Import {
                name,
                ty,
                ty_span,
                span: range(e.span()),
            })
        });
    let visibility = choice((
        just(Token::Public).to(Visibility::Public),
        just(Token::Private).to(Visibility::Private),
    ));
    let method = visibility
        .then(ident())
        .then(signature())
        .then_ignore(just(Token::Eq))
        .then(body.clone())
        .then_ignore(just(Token::Semi))
        .map_with(
            |(((visibility, name), (param, param_ty, ret_ty)), body), e| {
                let func = Function {
                    param,
                    param_ty,
                    ret_ty,
                    body: bx(body),
                };
                Item::Decl(Decl::Method(MethodDecl {
                    visibility,
                    name,
                    func,
                    span: range(e.span()),
                }))
            },
        );
    let int_ref = just(Token::IntTy)
        .ignore_then(ident())
        .then_ignore(just(Token::Assign))
        .then(literal())
        .then_ignore(just(Token::Semi))
        .map_with(|(name, init), e| {
            Item::Decl(Decl::IntRef {
                name,
                init,
                span: range(e.span()),
            })
        });
    let fun_ref = just(Token::Fun)
        .ignore_then(ident())
        .then_ignore(just(Token::Assign))
        .then(ident())
        .then_ignore(just(Token::Semi))
        .map_with(|(name, target), e| {
            Item::Decl(Decl::FunRef {
                name,
                target,
                span: range(e.span()),
            })
        });
    let ref_decl = just(Token::Ref)
        .ignore_then(type_atom(type_parser()))
        .map(Type::reference)
        .then(ident())
        .then_ignore(just(Token::Assign))
        .then(assigned)
        .then_ignore(just(Token::Semi))
        .validate(|((ty, name), value), e, _| {
            let init = match static_value(&value, true) {
                Ok(init) => init,
                Err(bad) => {
                    let state: &mut ParseState = e.state();
                    let file = state.file.clone();
                    state.push(not_static(&file, &value, bad));
                    Static::Unit
                }
            };
            Item::Decl(Decl::RefDecl {
                name,
                ty,
                init,
                init_span: value.span,
                span: range(e.span()),
            })
        });
    let main = select! { Token::Ident("main") => () }
        .then_ignore(just(Token::Eq))
        .ignore_then(body)
        .then_ignore(just(Token::Semi))
        .map_with(|body, e| {
            Item::Main(Main {
                body,
                span: range(e.span()),
            })
        });
    let item = choice((import, method, int_ref, fun_ref, ref_decl, main)).labelled("a declaration");

    header
        .or_not()
        .then(item.repeated().collect::<Vec<_>>())
        .then_ignore(end())
        .validate(|(bounds, items), e, _| {
            let state: &mut ParseState = e.state();
            let file = state.file.clone();
            let mut program = Program {
                bounds,
                imports: Vec::new(),
                decls: Vec::new(),
                main: None,
            };
            let mut first_decl: Option<Span> = None;
            for item in items {
                match item {
                    Item::Import(import) => {
                        if let Some(decl) = &first_decl {
                            state.push(
                                Diagnostic::error("E0204", "Imports must come before declarations")
                                    .with_label(&file, import.span.clone(), "this import")
                                    .with_label(&file, decl.clone(), "comes after this declaration")
                                    .with_hint("Move every `import` above the first declaration."),
                            );
                        }
                        program.imports.push(import);
                    }
                    Item::Decl(decl) => {
                        first_decl.get_or_insert_with(|| decl.span().clone());
                        program.decls.push(decl);
                    }
                    Item::Main(main) => {
                        first_decl.get_or_insert_with(|| main.span.clone());
                        if let Some(previous) = &program.main {
                            state.push(
                                Diagnostic::error("E0205", "A client has only one `main`")
                                    .with_label(&file, main.span.clone(), "a second `main`")
                                    .with_label(&file, previous.span.clone(), "the first `main`")
                                    .with_hint("Merge the two bodies with `;`."),
                            );
                        } else {
                            program.main = Some(main);
                        }
                    }
                }
            }
            if program.decls.is_empty() && program.main.is_none() {
                let span = range(e.span());
                let state: &mut ParseState = e.state();
                state.push(
                    Diagnostic::error("E0206", "There is nothing to check here")
                        .with_label(
                            &file,
                            span.end..span.end,
                            "the file ends without a declaration",
                        )
                        .with_hint(
                            "A library declares at least one method or reference, e.g. \
                             `public m (x:int) :(int) = { x };`.",
                        ),
                );
            }
            program
        })
}

/// A conservative bound on how deeply the parser will recurse on these tokens: every token
/// that opens a nested operand (a prefix keyword, or a right-associative operator, whose
/// operand the parser reads recursively) counts one level until the bracket around it
/// closes. Left-associative operators and application are folded iteratively, and so are
/// declarations: outside every bracket the `;` and `:=` of `int r := 0;` nest nothing.
pub fn nesting_bound(tokens: &[(Token<'_>, Span)]) -> (usize, Option<Span>) {
    let mut stack: Vec<usize> = Vec::new();
    let mut depth = 0usize;
    let mut worst = (0usize, None);
    for (index, (token, span)) in tokens.iter().enumerate() {
        match token {
            Token::LParen | Token::LBrace => {
                stack.push(depth);
                depth += 1;
            }
            // An unbalanced closer changes nothing; the parser reports it.
            Token::RParen | Token::RBrace => depth = stack.pop().unwrap_or(depth),
            // `!r` nests nothing; `!` before anything else reads its operand recursively.
            Token::Bang
                if !stack.is_empty()
                    && !matches!(tokens.get(index + 1), Some((Token::Ident(_), _))) =>
            {
                depth += 1
            }
            Token::Not
            | Token::Assert
            | Token::Ref
            | Token::Fst
            | Token::Snd
            | Token::If
            | Token::Let
            | Token::LetRec
            | Token::Fun
            | Token::Assign
            | Token::Semi
            | Token::AndAnd
            | Token::OrOr
            | Token::Match
            | Token::Bar
            | Token::ColonColon
            | Token::ListHd
            | Token::ListTl
            | Token::ListIsNil
                if !stack.is_empty() =>
            {
                depth += 1
            }
            _ => {}
        }
        if depth > worst.0 {
            worst = (depth, Some(span.clone()));
        }
    }
    worst
}

/// Lexes and parses one source (no type checking): the program when the syntax is
/// well-formed, and every lexical and syntax diagnostic.
pub fn parse_source(file: &str, source: &str) -> (Option<Program>, Vec<Diagnostic>) {
    let (tokens, mut diagnostics) = crate::syntax::lexer::lex(file, source);
    let (program, more) = parse_tokens(file, source, &tokens);
    diagnostics.extend(more);
    let ok = !diagnostics.iter().any(Diagnostic::is_error);
    (program.filter(|_| ok), diagnostics)
}

/// Parses the tokens of one file. Returns the program when the syntax is well-formed (the
/// diagnostics then hold only warnings) or `None` with at least one error.
pub fn parse_tokens(
    file: &str,
    source: &str,
    tokens: &[(Token<'_>, Span)],
) -> (Option<Program>, Vec<Diagnostic>) {
    let (depth, at) = nesting_bound(tokens);
    if depth > MAX_NESTING {
        return (None, vec![too_deep(file, at.unwrap_or(0..0))]);
    }
    let eoi = SimpleSpan::from(source.len()..source.len());
    let spanned: Vec<(Token<'_>, SimpleSpan)> = tokens
        .iter()
        .map(|(t, s)| (*t, SimpleSpan::from(s.clone())))
        .collect();
    let fresh = || ParseState {
        file: file.to_string(),
        diagnostics: Vec::new(),
    };
    // First without rich errors: the parsers are the same, so a parse without errors
    // gives the same program and warnings. Only a file with a syntax error is parsed
    // again, for the diagnostics.
    let mut state = fresh();
    let input = spanned.as_slice().map(eoi, |(t, s)| (t, s));
    let fast: ParseResult<Program, EmptyErr> = program_parser().parse_with_state(input, &mut state);
    let (program, errors) = match fast.into_output_errors() {
        (Some(program), errors) if errors.is_empty() => (Some(program), Vec::new()),
        _ => {
            state = fresh();
            let input = spanned.as_slice().map(eoi, |(t, s)| (t, s));
            let rich: ParseResult<Program, Err> =
                program_parser().parse_with_state(input, &mut state);
            rich.into_output_errors()
        }
    };
    let mut diagnostics = state.diagnostics;
    for error in errors {
        diagnostics.push(syntax_error(file, tokens, &error));
    }
    if let Some((depth, span)) = program.as_ref().map(tree_depth) {
        if depth > MAX_NESTING {
            diagnostics.push(too_deep(file, span));
        }
    }
    diagnostics.sort_by_key(|d| d.labels.first().map(|l| l.span.start).unwrap_or(0));
    let ok = !diagnostics.iter().any(Diagnostic::is_error);
    (program.filter(|_| ok), diagnostics)
}

fn too_deep(file: &str, span: Span) -> Diagnostic {
    Diagnostic::error("E0005", "This code nests too deeply")
        .with_label(
            file,
            span,
            format!("more than {MAX_NESTING} levels deep here"),
        )
        .with_hint("Split the code into smaller methods.")
}

/// The depth of the deepest expression in the program and where it is, computed without
/// recursion.
fn tree_depth(p: &Program) -> (usize, Span) {
    let mut stack: Vec<(&Expr, usize)> = p
        .decls
        .iter()
        .filter_map(|d| match d {
            Decl::Method(m) => Some((&*m.func.body, 1)),
            _ => None,
        })
        .chain(p.main.iter().map(|m| (&m.body, 1)))
        .collect();
    let mut deepest = (0, 0..0);
    while let Some((e, depth)) = stack.pop() {
        if depth > deepest.0 {
            deepest = (depth, e.span.clone());
        }
        let next = depth + 1;
        stack.extend(e.children().into_iter().map(|child| (child, next)));
    }
    deepest
}

fn describe(token: &Token<'_>) -> String {
    match token {
        Token::Ident(name) => format!("the name `{name}`"),
        Token::Int(text) => format!("the number `{text}`"),
        other => format!("`{other}`"),
    }
}

/// Turns chumsky's "expected … found …" into a diagnostic with a hint for the usual slips.
fn syntax_error(file: &str, tokens: &[(Token<'_>, Span)], error: &Err<'_, '_>) -> Diagnostic {
    let span = range(*error.span());
    // Operators that could continue an expression are summed up as "an operator".
    let is_operator = |t: &Token<'_>| {
        matches!(
            t,
            Token::Star
                | Token::Slash
                | Token::Mod
                | Token::Plus
                | Token::Minus
                | Token::Lt
                | Token::Gt
                | Token::Le
                | Token::Ge
                | Token::EqEq
                | Token::AndAnd
                | Token::OrOr
                | Token::Comma
                | Token::Assign
                | Token::Semi
                | Token::ColonColon
        )
    };
    let operators = error
        .expected()
        .filter(|p| matches!(p, RichPattern::Token(t) if is_operator(t)))
        .count();
    let mut expected: Vec<String> = error
        .expected()
        .filter_map(|p| match p {
            RichPattern::Token(t) if operators > 2 && is_operator(t) => None,
            RichPattern::Token(t) => Some(format!("`{}`", &**t)),
            RichPattern::Label(l) => Some(l.to_string()),
            RichPattern::EndOfInput => Some("the end of the file".to_string()),
            _ => None,
        })
        .collect();
    if operators > 2 {
        expected.insert(expected.len().min(1), "an operator".to_string());
    }
    let expects = |t: Token<'_>| {
        error
            .expected()
            .any(|p| matches!(p, RichPattern::Token(found) if **found == t))
    };
    let expects_label = |label: &str| {
        error
            .expected()
            .any(|p| matches!(p, RichPattern::Label(l) if l == label))
    };
    let found = match error.reason() {
        RichReason::ExpectedFound { found, .. } => found.as_deref().copied(),
        RichReason::Custom(_) => None,
    };
    let before = tokens.iter().rev().find(|(_, s)| s.end <= span.start);
    let previous = before.map(|(t, _)| *t);
    // `ref` where a name stands, or followed by what cannot be its operand.
    match (before, found) {
        (_, Some(Token::Ref)) if expects_label("a name") => {
            return ref_as_name(file, span, "a name is expected here");
        }
        (Some((Token::Ref, at)), _) if expects_label("an expression") => {
            return ref_as_name(file, at.clone(), "`ref` needs an expression after it");
        }
        _ => {}
    }
    let title = match found {
        Some(token) => format!("I was not expecting {} here", describe(&token)),
        None => "The file ends too early".to_string(),
    };
    let message = match expected.len() {
        0 => "unexpected".to_string(),
        1 => format!("expected {}", expected[0]),
        _ => format!(
            "expected {} or {}",
            expected[..expected.len() - 1].join(", "),
            expected[expected.len() - 1]
        ),
    };
    let hint: Option<String> = match (previous, found) {
        // `=` is never a comparison in HOLi (that is `==`), so a stray one is an assignment.
        (_, Some(Token::Eq))
            if expects(Token::Assign) || matches!(previous, Some(Token::Ident(_))) =>
        {
            Some("Use `:=` to assign, as in `r := 0`; `==` compares two integers.".into())
        }
        (Some(Token::RParen), Some(Token::Semi)) if ends_an_import(tokens, span.start) => {
            Some("An `import` has no `;` after it (as in HOLiK): remove the `;`.".into())
        }
        (Some(Token::Semi), Some(Token::RBrace | Token::RParen)) => {
            Some("`;` separates two expressions: there is no `;` before a closing bracket.".into())
        }
        (Some(Token::LParen), Some(Token::RParen)) => {
            Some("Unit is written `()` with no space inside.".into())
        }
        (_, Some(token))
            if expects_label("a name")
                && crate::syntax::lexer::KEYWORDS.contains(&token.to_string().as_str()) =>
        {
            Some(format!(
                "`{token}` is a reserved word and cannot be used as a name."
            ))
        }
        (_, Some(Token::Public | Token::Private | Token::IntTy | Token::Fun | Token::Import))
            if expects(Token::Semi) =>
        {
            Some("Every declaration ends with `;` after its closing `}`.".into())
        }
        (_, Some(_)) if expects(Token::LBrace) && previous == Some(Token::Eq) => {
            Some("A method's body is written in braces: `= { … };`.".into())
        }
        _ if expects(Token::Hash) => Some("The header is written `# set-bounds K L #`.".into()),
        _ if expects(Token::Else) => {
            Some("`if` always needs an `else` branch; write `else ()` if nothing happens.".into())
        }
        _ => None,
    };
    let mut diagnostic = Diagnostic::error("E0101", title).with_label(file, span, message);
    if let Some(hint) = hint {
        diagnostic = diagnostic.with_hint(hint);
    }
    diagnostic
}

fn ref_as_name(file: &str, at: Span, label: &str) -> Diagnostic {
    Diagnostic::error("E0207", "`ref` is a reserved word")
        .with_label(file, at, label)
        .with_hint(
            "`ref e` makes a new reference holding the value of `e`, so `ref` cannot be a \
             name. If it is meant as one, rename it, e.g. to `r`.",
        )
}

/// Whether the token before `at` closes an `import` declaration's type.
fn ends_an_import(tokens: &[(Token<'_>, Span)], at: usize) -> bool {
    tokens
        .iter()
        .rev()
        .filter(|(_, s)| s.end <= at)
        .map(|(t, _)| t)
        .find(|t| {
            matches!(
                t,
                Token::Import | Token::Semi | Token::LBrace | Token::RBrace
            )
        })
        == Some(&Token::Import)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::lexer::lex;

    /// The program's diagnostics codes and, if it parsed, its first method's body as an
    /// S-expression.
    fn parse_body(body: &str) -> (Option<String>, Vec<&'static str>) {
        let source = format!("public m (u:unit) :(unit) = {{ {body} }};");
        let (tokens, mut diagnostics) = lex("t", &source);
        let (program, more) = parse_tokens("t", &source, &tokens);
        diagnostics.extend(more);
        let tree = program.and_then(|p| match p.decls.first() {
            Some(Decl::Method(m)) => Some(sexp(&m.func.body)),
            _ => None,
        });
        (tree, diagnostics.iter().map(|d| d.code).collect())
    }

    fn tree(body: &str) -> String {
        let (tree, codes) = parse_body(body);
        assert!(
            codes.iter().all(|c| c.starts_with('W')),
            "{body}: {codes:?}"
        );
        tree.unwrap_or_else(|| panic!("{body} did not parse"))
    }

    fn rejected(body: &str, code: &str) {
        let (tree, codes) = parse_body(body);
        assert!(tree.is_none(), "{body} parsed");
        assert!(codes.contains(&code), "{body}: {codes:?}");
    }

    fn sexp(e: &Expr) -> String {
        use ExprKind::*;
        match &e.kind {
            Var(x) => x.clone(),
            Int(n) => n.to_string(),
            Unit => "()".into(),
            Diverge => "_bot_".into(),
            Deref(r) => format!("!{}", r.name),
            Assign(r, v) => format!("(:= {} {})", r.name, sexp(v)),
            Alloc(a) => format!("(ref {})", sexp(a)),
            Load(a) => format!("(load {})", sexp(a)),
            Store(a, b) => format!("(store {} {})", sexp(a), sexp(b)),
            App(f, a) => format!("(app {} {})", sexp(f), sexp(a)),
            Pair(a, b) => format!("(, {} {})", sexp(a), sexp(b)),
            Fst(a) => format!("(fst {})", sexp(a)),
            Snd(a) => format!("(snd {})", sexp(a)),
            Not(a) => format!("(not {})", sexp(a)),
            Assert(a) => format!("(assert {})", sexp(a)),
            Binary(op, a, b) => format!("({} {} {})", op.symbol(), sexp(a), sexp(b)),
            Seq(a, b) => format!("(; {} {})", sexp(a), sexp(b)),
            If(c, t, f) => format!("(if {} {} {})", sexp(c), sexp(t), sexp(f)),
            Let(x, v, b) => format!("(let {} {} {})", x.name, sexp(v), sexp(b)),
            LetRec(f, func, b) => {
                format!(
                    "(letrec {} {} {} {})",
                    f.name,
                    func.param.name,
                    sexp(&func.body),
                    sexp(b)
                )
            }
            Lambda(func) => format!("(fun {} {})", func.param.name, sexp(&func.body)),
            Nil => "[]".into(),
            Cons(a, b) => format!("(:: {} {})", sexp(a), sexp(b)),
            ExprKind::ListOp(op, a) => format!("({} {})", op.keyword(), sexp(a)),
            Match {
                scrutinee,
                nil,
                head,
                tail,
                cons,
            } => format!(
                "(match {} {} {} {} {})",
                sexp(scrutinee),
                sexp(nil),
                head.name,
                tail.name,
                sexp(cons)
            ),
        }
    }

    #[test]
    fn lists_read_as_in_ocaml() {
        assert_eq!(tree("1 :: 2 :: []"), "(:: 1 (:: 2 []))");
        assert_eq!(tree("x + 1 :: xs"), "(:: (+ x 1) xs)");
        assert_eq!(tree("x :: xs == ys"), "(== (:: x xs) ys)");
        assert_eq!(tree("f x :: g y"), "(:: (app f x) (app g y))");
        assert_eq!(tree("List.hd l + 1"), "(+ (List.hd l) 1)");
        assert_eq!(tree("List.isnil (List.tl l)"), "(List.isnil (List.tl l))");
        assert_eq!(
            tree("match l with [] -> 0 | h :: t -> h; t"),
            "(match l 0 h t (; h t))"
        );
        assert_eq!(
            tree("match l with | [] -> a; b | _ :: _ -> c"),
            "(match l (; a b) _ _ c)"
        );
        // `match` extends as far as it can, so after `;` it is parenthesised.
        rejected("a; match l with [] -> 0 | h :: t -> h", "E0201");
        // The empty list comes first, as in Hobbit.
        rejected("match l with h :: t -> h | [] -> 0", "E0101");
    }

    #[test]
    fn list_is_a_type_only_after_a_type() {
        let source = "public m (l:int list) :(ref (bool * int) list list) = { ref [] };
                      private list (list:int) :(int) = { list };";
        let (tokens, diagnostics) = lex("t", source);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let (program, diagnostics) = parse_tokens("t", source, &tokens);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let Some(Decl::Method(m)) = program.as_ref().and_then(|p| p.decls.first()) else {
            panic!("no method");
        };
        assert_eq!(m.func.param_ty.to_string(), "int list");
        assert_eq!(m.func.ret_ty.to_string(), "ref (bool * int) list list");
    }

    #[test]
    fn if_branches_follow_the_edge_rule() {
        assert_eq!(tree("if c then a; b else d; e"), "(; (if c (; a b) d) e)");
        assert_eq!(tree("if c then a else b; d"), "(; (if c a b) d)");
        assert_eq!(
            tree("if c then a else if d then e else f"),
            "(if c a (if d e f))"
        );
        assert_eq!(
            tree("if c then a else r := 1, 2"),
            "(if c a (:= r (, 1 2)))"
        );
        assert_eq!(
            tree("if c then let x = 1 in x else y"),
            "(if c (let x 1 x) y)"
        );
    }

    #[test]
    fn prefix_operators_bind_as_in_holik() {
        assert_eq!(tree("assert f x"), "(app (assert f) x)");
        assert_eq!(tree("fst p q"), "(app (fst p) q)");
        assert_eq!(tree("not f x"), "(not (app f x))");
        assert_eq!(tree("not a < b"), "(< (not a) b)");
        assert_eq!(tree("not a * b"), "(* (not a) b)");
        assert_eq!(tree("f assert x y"), "(app (app f (assert x)) y)");
        assert_eq!(tree("not not x"), "(not (not x))");
        assert_eq!(tree("!r !c"), "(app !r !c)");
    }

    #[test]
    fn assignment_takes_a_pair_and_sequence_is_right_nested() {
        assert_eq!(tree("r := a, b"), "(:= r (, a b))");
        assert_eq!(tree("r := s := 1"), "(:= r (:= s 1))");
        assert_eq!(tree("a; b; c"), "(; a (; b c))");
        assert_eq!(tree("x := 1; y"), "(; (:= x 1) y)");
    }

    #[test]
    fn binders_extend_as_far_right_as_possible() {
        assert_eq!(tree("let x = v in a; b"), "(let x v (; a b))");
        assert_eq!(tree("fun (x:int) :(int) -> x; y"), "(fun x (; x y))");
        assert_eq!(
            tree("letrec f (x:int) :(int) = f x in f 1; 2"),
            "(letrec f x (app f x) (; (app f 1) 2))"
        );
        assert_eq!(tree("a; (let x = 1 in x)"), "(; a (let x 1 x))");
    }

    #[test]
    fn operators_group_by_priority_and_associativity() {
        assert_eq!(tree("a, b, c"), "(, (, a b) c)");
        assert_eq!(tree("a - b - c"), "(- (- a b) c)");
        assert_eq!(tree("a && b && c"), "(&& a (&& b c))");
        assert_eq!(tree("a || b && c"), "(|| a (&& b c))");
        assert_eq!(tree("a < b + c * d"), "(< a (+ b (* c d)))");
        assert_eq!(tree("a, b || c"), "(, a (|| b c))");
        assert_eq!(tree("f x y"), "(app (app f x) y)");
        assert_eq!(tree("x -1"), "(app x -1)");
        assert_eq!(tree("x - 1"), "(- x 1)");
        assert_eq!(tree("f()"), "(app f ())");
        assert_eq!(
            tree("a > b; a <= b; a >= b; a == b"),
            "(; (> a b) (; (<= a b) (; (>= a b) (== a b))))"
        );
    }

    #[test]
    fn booleans_mod_and_divergence() {
        // `true` and `false` are the integers 1 and 0; `mod` groups with `*` and `/`.
        assert_eq!(tree("if true then false else _bot_"), "(if 1 0 _bot_)");
        assert_eq!(tree("a + b mod c"), "(+ a (mod b c))");
        assert_eq!(tree("f _bot_ true"), "(app (app f _bot_) 1)");
        let (tree, codes) = parse_body("a mod b * c");
        assert_eq!(tree.as_deref(), Some("(* (mod a b) c)"));
        assert_eq!(codes, vec!["W0101"]);
        for reserved in ["true", "false", "bool", "mod", "_bot_"] {
            rejected(&format!("let {reserved} = 1 in ()"), "E0101");
        }
        let source = "public f (b:bool) :(bool * int) = { (b, 1) };";
        let (tokens, _) = lex("t", source);
        let (p, d) = parse_tokens("t", source, &tokens);
        assert!(d.is_empty(), "{d:?}");
        let method = match p.as_ref().and_then(|p| p.decls.first()) {
            Some(Decl::Method(m)) => m.func.ty().to_string(),
            _ => String::new(),
        };
        assert_eq!(method, "bool -> (bool * int)");
    }

    #[test]
    fn mixed_operators_of_one_group_group_left_with_a_warning() {
        for (body, expected) in [
            ("a - b + c", "(+ (- a b) c)"),
            ("a * b / c", "(/ (* a b) c)"),
            ("a < b == c", "(== (< a b) c)"),
        ] {
            let (tree, codes) = parse_body(body);
            assert_eq!(tree.as_deref(), Some(expected));
            assert_eq!(codes, vec!["W0101"]);
        }
        assert_eq!(parse_body("(a - b) + c").1, Vec::<&str>::new());
    }

    #[test]
    fn looser_constructs_at_an_edge_need_parentheses() {
        rejected("e; let x = 1 in x", "E0201");
        rejected("r := fun (x:int) :(int) -> x", "E0201");
        rejected("r := if c then a else b", "E0201");
        rejected("x + if c then a else b", "E0201");
        rejected("if c then a else let x = 1 in x", "E0201");
        rejected("f not x", "E0201");
        rejected("a, r := 1", "E0201");
    }

    /// The syntactic rows of the ambiguity checklist of `lang/references.md` §1.8, and
    /// the other forms of §1.3.
    #[test]
    fn references_parse_as_designed() {
        for (body, expected) in [
            ("!r", "!r"),
            ("r := a, b", "(:= r (, a b))"),
            ("!r := 5", "(store !r 5)"),
            ("!h (1, f)", "(app !h (, 1 f))"),
            ("ref f x", "(app (ref f) x)"),
            ("!!r", "(load !r)"),
            ("!(f x)", "(load (app f x))"),
            ("!fst p", "(load (fst p))"),
            ("!(x)", "!x"),
            ("(x) := e", "(:= x e)"),
            ("ref 0", "(ref 0)"),
            ("ref (x + 1)", "(ref (+ x 1))"),
            ("ref ref 0", "(ref (ref 0))"),
            ("ref -1", "(ref -1)"),
            ("(fst p) := 5", "(store (fst p) 5)"),
            ("(f x) := 5", "(store (app f x) 5)"),
            ("!(g ()) := 1", "(store (load (app g ())) 1)"),
            ("!!r := 5", "(store (load !r) 5)"),
            ("!r := !s := 1", "(store !r (store !s 1))"),
            ("!r := a, b", "(store !r (, a b))"),
            ("(ref 0) := 1", "(store (ref 0) 1)"),
            ("a; !r := 1; b", "(; a (; (store !r 1) b))"),
            ("c == d", "(== c d)"),
            ("not !r", "(not !r)"),
            ("fst !p", "(fst !p)"),
        ] {
            assert_eq!(tree(body), expected, "{body}");
        }
        // `f x := 5` and `x + r := 5` keep their meaning (an assignment needing
        // parentheses); the hint also offers the assignment through `f x`.
        rejected("x + r := 5", "E0201");
        rejected("f x := 5", "E0201");
        let source = "public m (u:unit) :(unit) = { f x := 5 };";
        let (tokens, _) = lex("t", source);
        let (_, d) = parse_tokens("t", source, &tokens);
        assert!(
            d[0].hint
                .as_deref()
                .is_some_and(|h| h.contains("`(f x) := …`")),
            "{d:?}"
        );
        // What can never give a location is still no assignment target.
        for body in [
            "1 := 2",
            "() := 1",
            "(a + b) := 1",
            "(not a) := 1",
            "(a, b) := 1",
            "(if c then a else b) := 1",
            "(let x = 1 in x) := 1",
            "(letrec f (x:int) :(int) = x in f) := 1",
            "(fun (x:int) :(int) -> x) := 1",
            "(assert c) := 1",
        ] {
            rejected(body, "E0202");
        }
    }

    #[test]
    fn ref_is_a_reserved_word() {
        for source in [
            "public m (x:int) :(int) = { let ref = x in ref };",
            "int ref := 0;",
            "public ref (x:int) :(int) = { x };",
            "public m (ref:int) :(int) = { 1 };",
            "import ref :(int -> int)\npublic m (x:int) :(int) = { x };",
            "public m (x:int) :(unit) = { ref := x };",
            "public m (x:int) :(int) = { f ref };",
            "public m (x:int) :(int) = { !ref };",
        ] {
            let (p, d) = parse_source("t", source);
            assert!(p.is_none(), "{source}");
            assert_eq!(
                d.iter().map(|d| d.code).collect::<Vec<_>>(),
                vec!["E0207"],
                "{source}"
            );
            assert_eq!(&source[d[0].labels[0].span.clone()], "ref", "{source}");
        }
    }

    #[test]
    fn reference_types_bind_tighter_than_products_and_arrows() {
        let source = "import a :(ref int * int)\nimport b :(ref int -> unit)\n\
                      import c :(ref (int -> unit))\nimport d :(ref ref int)\n\
                      import e :(ref (int * int) -> ref unit)\n\
                      public m (x:int) :(int) = { x };";
        let (p, d) = parse_source("t", source);
        assert!(d.is_empty(), "{d:?}");
        let p = p.unwrap_or_else(|| panic!("no program"));
        let shown: Vec<String> = p.imports.iter().map(|i| i.ty.to_string()).collect();
        assert_eq!(
            shown,
            [
                "ref int * int",
                "ref int -> unit",
                "ref (int -> unit)",
                "ref ref int",
                "ref (int * int) -> ref unit"
            ]
        );
        assert_eq!(
            p.imports[0].ty,
            Type::pair(Type::reference(Type::Int), Type::Int)
        );
        assert_eq!(
            p.imports[1].ty,
            Type::arrow(Type::reference(Type::Int), Type::Unit)
        );
    }

    #[test]
    fn ref_declarations_hold_static_values() {
        let source = "ref int r := ref 0;\nref (int * (int -> int)) p := ref (-1, m);\n\
                      ref ref unit q := ref ref ();\npublic m (x:int) :(int) = { x };";
        let (p, d) = parse_source("t", source);
        assert!(d.is_empty(), "{d:?}");
        let p = p.unwrap_or_else(|| panic!("no program"));
        let Decl::RefDecl { ty, init, .. } = &p.decls[1] else {
            panic!("a ref declaration");
        };
        assert_eq!(ty.to_string(), "ref (int * (int -> int))");
        assert!(matches!(init, Static::Ref(pair) if matches!(**pair, Static::Pair(..))));
        for (bad, at) in [
            ("ref int r := 0;", "0"),
            ("ref int r := ref (1 + 2);", "(1 + 2)"),
            ("ref int r := ref 0, 1;", "ref 0, 1"),
            ("ref int r := ref (0, f 1);", "f 1"),
            ("ref int r := ref !s;", "!s"),
        ] {
            let (p, d) = parse_source("t", bad);
            assert!(p.is_none(), "{bad}");
            assert_eq!(d[0].code, "E0208", "{bad}: {d:?}");
            assert_eq!(&bad[d[0].labels[0].span.clone()], at, "{bad}");
        }
        // The declared type is one atom after `ref`.
        let (p, _) = parse_source("t", "ref int * int r := ref 0;");
        assert!(p.is_none());
    }

    #[test]
    fn reads_through_values_count_towards_the_nesting_bound() {
        let deep = |prefix: &str| {
            let source = format!("public m (x:int) :(int) = {{ {}(x) }};", prefix);
            let (tokens, _) = lex("t", &source);
            nesting_bound(&tokens).0
        };
        assert!(deep(&"!".repeat(50)) > 50);
        assert!(deep(&"ref ".repeat(50)) > 50);
        let (tokens, _) = lex("t", "public m (x:int) :(int) = { !a; !b };");
        assert_eq!(nesting_bound(&tokens).0, 2);
    }

    #[test]
    fn other_syntax_errors() {
        rejected("a;", "E0101");
        rejected("f ( )", "E0101");
        rejected("if c then a", "E0101");
        rejected("fail", "E0101");
        let (tokens, _) = lex("t", "# set-bounds 4294967296 1 # int x := 0;");
        let (p, d) = parse_tokens("t", "", &tokens);
        assert!(p.is_none() && d[0].code == "E0004");
    }

    #[test]
    fn types_and_declarations() {
        let source =
            "# set-bounds 3 2 #\nimport g :(unit->unit->int)\nimport h :((int->int)*int*int)\n\
                      fun r := m; int x := -1; public main (arg:int*int) :(int) = { 0 };\n\
                      main = { () };";
        let (tokens, _) = lex("t", source);
        let (p, d) = parse_tokens("t", source, &tokens);
        assert!(d.is_empty(), "{d:?}");
        let p = p.unwrap_or_else(|| panic!("no program"));
        assert_eq!(p.bounds.as_ref().map(|b| (b.k, b.l)), Some((3, 2)));
        assert_eq!(p.imports[0].ty.to_string(), "unit -> unit -> int");
        assert_eq!(p.imports[1].ty.to_string(), "(int -> int) * int * int");
        assert_eq!(p.decls.len(), 3);
        assert!(p.main.is_some());
        for bad in [
            "import g :(int * int -> int) int x := 0;",
            "main = { () }; main = { () };",
            "",
        ] {
            let (tokens, _) = lex("t", bad);
            let (p, d) = parse_tokens("t", bad, &tokens);
            assert!(p.is_none() && d.iter().any(Diagnostic::is_error), "{bad}");
        }
    }
}
