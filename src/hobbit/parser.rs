//! The parser: Hobbit's grammar (`parser.mly`) by recursive descent, binary operators by
//! precedence climbing.
//!
//! Hobbit's grammar is an ambiguous one made deterministic by Menhir's precedences; this
//! parser reads every file the way those precedences decide. From loosest to tightest:
//!
//! | level | operators | associativity |
//! |---|---|---|
//! | 7 | `,` (n-ary tuple) | flattened |
//! | 9 | `::` | right |
//! | 10 | `\|\|` | right |
//! | 11 | `&&` | right |
//! | 12 | `= == <> < > <= >=` | left |
//! | 13 | `==> =>` | right |
//! | 14 | `+ -` | left |
//! | 15 | `* / mod` | left |
//! | — | `- not fst snd _print_` (prefix) | tighter than every binary operator |
//! | — | application `f x y` | left, tightest; operands are atoms |
//!
//! Implication binds tighter than the comparisons, so `a = b ==> c` is `a = (b ==> c)`:
//! that is Hobbit's reading, kept so that files mean what they mean to Hobbit.
//!
//! The constructs that begin with a keyword (`fun`, `let`, `if`, `ref`, `match`) and
//! `l := e` have a last operand that reaches as far as Menhir lets it: the bodies of `fun`,
//! `let` and `ref` are sequences (`e; e`), the branches of `if` and the operand of `:=` take
//! everything but `;`, and the last branch of `match` binds as tightly as Hobbit's `->`, so
//! a `,` after it ends the `match` (and makes a tuple of it). Such a construct is read
//! whole wherever it stands, after an operator too: `a + if c then x else y + 1` adds `a`
//! to the whole `if`, as Menhir's precedences decide. Application takes atoms (names,
//! constants, `!l`, `[]`, `_bot_` and brackets), and `e[i/n]` applies to an atom that is
//! not applied: `f x[0/2]` is an error, as in Hobbit. `_sync_` stands only where it is
//! applied, as in Hobbit's grammar.
//!
//! There is no backtracking: every decision looks at most two tokens ahead, so parsing is
//! linear. Brackets, constructs and right-associative operators nest at most
//! [`MAX_NESTING`] levels deep, which bounds the recursion; the tree built is no deeper
//! (operators that associate to the left, application and prefix operators are read in
//! loops, and the tree is measured afterwards).

use crate::diagnostics::{Diagnostic, Span};
use crate::hobbit::ast::*;
use crate::hobbit::lexer::Token;
use crate::syntax::parser::MAX_NESTING;
use num_bigint::BigInt;

type Parsed<T> = Result<T, Diagnostic>;

/// The level of `,`: a tuple's components are read above it.
const COMMA: u8 = 7;
/// The level just above Hobbit's `->`, at which the last branch of a `match` is read.
const ABOVE_ARROW: u8 = 9;

/// The binary operator a token stands for, with its level and whether it associates to
/// the right.
fn binary(token: Token<'_>) -> Option<(BinaryOp, u8, bool)> {
    Some(match token {
        Token::ColonColon => (BinaryOp::Cons, 9, true),
        Token::OrOr => (BinaryOp::Or, 10, true),
        Token::AndAnd => (BinaryOp::And, 11, true),
        Token::Equal => (BinaryOp::Eq, 12, false),
        Token::NotEqual => (BinaryOp::Ne, 12, false),
        Token::Less => (BinaryOp::Lt, 12, false),
        Token::Greater => (BinaryOp::Gt, 12, false),
        Token::LessEq => (BinaryOp::Le, 12, false),
        Token::GreaterEq => (BinaryOp::Ge, 12, false),
        Token::Implies => (BinaryOp::Implies, 13, true),
        Token::Plus => (BinaryOp::Add, 14, false),
        Token::Minus => (BinaryOp::Sub, 14, false),
        Token::Star => (BinaryOp::Mul, 15, false),
        Token::Slash => (BinaryOp::Div, 15, false),
        Token::Mod => (BinaryOp::Mod, 15, false),
        _ => return None,
    })
}

/// Whether a token can begin an atom: an application's operand.
fn starts_atom(token: Token<'_>) -> bool {
    matches!(
        token,
        Token::Ident(_)
            | Token::Int(_)
            | Token::True
            | Token::False
            | Token::Bot
            | Token::Nil
            | Token::Bang
            | Token::LParen
            | Token::Begin
    )
}

/// Whether a token can begin an expression (after `;`, which may also end a sequence).
fn starts_expr(token: Token<'_>) -> bool {
    starts_atom(token)
        || matches!(
            token,
            Token::Fun
                | Token::Let
                | Token::If
                | Token::Ref
                | Token::Match
                | Token::Sync
                | Token::Minus
                | Token::Not
                | Token::Fst
                | Token::Snd
                | Token::Print
        )
}

/// Parses the tokens of one file ([`crate::hobbit::lexer::lex`]) into a [`Pair`]. The
/// first syntax error (E0111) ends the parse, as in Hobbit; nesting deeper than
/// [`MAX_NESTING`] is E0005.
pub fn parse_tokens(file: &str, source: &str, tokens: &[(Token<'_>, Span)]) -> Parsed<Pair> {
    let mut parser = Parser {
        file,
        source,
        tokens,
        at: 0,
        depth: 0,
    };
    let pair = parser.pair()?;
    let deep = [&pair.left, &pair.right]
        .into_iter()
        .find_map(|side| too_deep(side, Expr::children, |e| &e.span))
        .or_else(|| {
            pair.annotation
                .as_ref()
                .and_then(|t| too_deep(t, Type::children, |t| &t.span))
        });
    match deep {
        Some(span) => Err(nesting(file, span)),
        None => Ok(pair),
    }
}

/// The span of a node deeper than [`MAX_NESTING`] in the tree under `root`, if any,
/// found without recursion.
fn too_deep<'a, T>(
    root: &'a T,
    children: impl Fn(&'a T) -> Vec<&'a T>,
    span: impl Fn(&'a T) -> &'a Span,
) -> Option<Span> {
    let mut stack = vec![(root, 1)];
    while let Some((node, depth)) = stack.pop() {
        if depth > MAX_NESTING {
            return Some(span(node).clone());
        }
        stack.extend(children(node).into_iter().map(|child| (child, depth + 1)));
    }
    None
}

fn nesting(file: &str, span: Span) -> Diagnostic {
    Diagnostic::error("E0005", "This code nests too deeply")
        .with_label(
            file,
            span,
            format!("more than {MAX_NESTING} levels deep here"),
        )
        .with_hint("Split the expression with `let`.")
}

struct Parser<'t, 's> {
    file: &'t str,
    source: &'t str,
    tokens: &'t [(Token<'s>, Span)],
    /// The index of the next token.
    at: usize,
    /// How many brackets, constructs and right operands the parser is inside.
    depth: usize,
}

impl<'s> Parser<'_, 's> {
    fn peek(&self) -> Option<Token<'s>> {
        self.peek_at(0)
    }

    fn peek_at(&self, ahead: usize) -> Option<Token<'s>> {
        self.tokens.get(self.at + ahead).map(|(token, _)| *token)
    }

    fn at(&self, token: Token<'_>) -> bool {
        self.peek() == Some(token)
    }

    /// The span of the next token, or the empty span at the end of the file.
    fn here(&self) -> Span {
        match self.tokens.get(self.at) {
            Some((_, span)) => span.clone(),
            None => self.source.len()..self.source.len(),
        }
    }

    /// Moves past the next token and returns its span.
    fn bump(&mut self) -> Span {
        let span = self.here();
        self.at += 1;
        span
    }

    fn eat(&mut self, token: Token<'_>) -> Option<Span> {
        self.at(token).then(|| self.bump())
    }

    fn expect(&mut self, token: Token<'_>, what: &str) -> Parsed<Span> {
        match self.eat(token) {
            Some(span) => Ok(span),
            None => Err(self.unexpected(what)),
        }
    }

    /// A syntax error at the next token: `expected` says what could stand there.
    fn unexpected(&self, expected: &str) -> Diagnostic {
        let span = self.here();
        let title = match self.tokens.get(self.at) {
            Some(_) => {
                let text: String = self.source[span.clone()].chars().take(30).collect();
                format!("Unexpected `{text}`")
            }
            None => "Unexpected end of file".to_string(),
        };
        Diagnostic::error("E0111", title).with_label(
            self.file,
            span,
            format!("expected {expected}"),
        )
    }

    /// Runs a part of the parser that nests one level, refusing to nest deeper than
    /// [`MAX_NESTING`]. Every cycle of recursion passes through here.
    fn nested<T>(&mut self, part: impl FnOnce(&mut Self) -> Parsed<T>) -> Parsed<T> {
        if self.depth >= MAX_NESTING {
            return Err(nesting(self.file, self.here()));
        }
        self.depth += 1;
        let result = part(self);
        self.depth -= 1;
        result
    }

    /// `e1 ||| e2`, `e1 |||_τ e2`, and the end of the file.
    fn pair(&mut self) -> Parsed<Pair> {
        if self.peek().is_none() {
            return Err(Diagnostic::error("E0111", "This file holds no expression")
                .with_label(self.file, self.here(), "expected an expression")
                .with_hint("A Hobbit file is `e1 ||| e2`, or `e1 |||_τ e2`."));
        }
        let left = self.sequence()?;
        let relation = match self.peek() {
            Some(Token::Equiv) => self.bump(),
            Some(Token::Approx | Token::ApproxInv) => {
                return Err(Diagnostic::error("E0111", "Hobbit supports no preorder")
                    .with_label(self.file, self.here(), "`|<|` and `|>|` are reserved")
                    .with_hint("Hobbit checks contextual equivalence, written `|||`."));
            }
            None => {
                return Err(
                    Diagnostic::error("E0111", "This file holds only one expression")
                        .with_label(
                            self.file,
                            self.here(),
                            "expected `|||` and a second expression",
                        )
                        .with_hint("A Hobbit file is `e1 ||| e2`, or `e1 |||_τ e2`."),
                );
            }
            Some(_) => return Err(self.unexpected("an operator, `;` or `|||`")),
        };
        let annotation = match self.eat(Token::Underscore) {
            Some(_) => Some(self.ty()?),
            None => None,
        };
        if self.peek().is_none() {
            return Err(
                Diagnostic::error("E0111", "The second expression is missing")
                    .with_label(self.file, self.here(), "expected an expression")
                    .with_hint("A Hobbit file is `e1 ||| e2`, or `e1 |||_τ e2`."),
            );
        }
        let right = self.sequence()?;
        if self.peek().is_some() {
            return Err(self.unexpected("an operator, `;` or the end of the file"));
        }
        Ok(Pair {
            file: self.file.to_string(),
            left,
            relation,
            annotation,
            right,
        })
    }

    /// `e1; e2; …`, with an optional `;` at the end (Hobbit's `exp_seq`).
    fn sequence(&mut self) -> Parsed<Expr> {
        let mut last = self.expr(0)?;
        let mut before = Vec::new();
        while self.eat(Token::Semi).is_some() {
            // A `;` before what cannot start an expression ends the sequence.
            if !self.peek().is_some_and(starts_expr) {
                break;
            }
            before.push(last);
            last = self.expr(0)?;
        }
        if before.is_empty() {
            return Ok(last);
        }
        before.push(last);
        Ok(seq_or_tuple(before, ExprKind::Seq))
    }

    /// An expression without `;` whose binary operators are of level `min` or above.
    fn expr(&mut self, min: u8) -> Parsed<Expr> {
        self.climb(min, false)
    }

    /// A hint's proposition whose binary operators are of level `min` or above.
    fn prop(&mut self, min: u8) -> Parsed<Expr> {
        self.climb(min, true)
    }

    /// Precedence climbing over an operand and the operators after it. Propositions have
    /// the operators of expressions but no tuples, and simpler operands.
    fn climb(&mut self, min: u8, prop: bool) -> Parsed<Expr> {
        let mut left = if prop {
            self.prop_operand()?
        } else {
            self.operand()?
        };
        while let Some(token) = self.peek() {
            if token == Token::Comma && !prop && min <= COMMA {
                let mut items = vec![left];
                while self.eat(Token::Comma).is_some() {
                    items.push(self.expr(COMMA + 1)?);
                }
                left = seq_or_tuple(items, ExprKind::Tuple);
                continue;
            }
            let Some((op, level, right)) = binary(token).filter(|(_, level, _)| *level >= min)
            else {
                break;
            };
            self.bump();
            let rhs = match (right, prop) {
                // Only a right operand at the operator's own level nests: one to the left
                // reads operators of higher levels, of which there are few.
                (true, true) => self.nested(|p| p.prop(level))?,
                (true, false) => self.nested(|p| p.expr(level))?,
                (false, true) => self.prop(level + 1)?,
                (false, false) => self.expr(level + 1)?,
            };
            left = Expr {
                span: left.span.start..rhs.span.end,
                kind: ExprKind::Binary(op, Box::new(left), Box::new(rhs)),
            };
        }
        Ok(left)
    }

    /// An operand of a binary operator: prefix operators before a construct, an
    /// application or an atom. A run of prefix operators is read in a loop and applied
    /// from the inside out.
    fn operand(&mut self) -> Parsed<Expr> {
        let mut prefixes = Vec::new();
        while let Some(op) = self.peek().and_then(|token| match token {
            Token::Minus => Some(UnaryOp::Neg),
            Token::Not => Some(UnaryOp::Not),
            Token::Fst => Some(UnaryOp::Fst),
            Token::Snd => Some(UnaryOp::Snd),
            Token::Print => Some(UnaryOp::Print),
            _ => None,
        }) {
            prefixes.push((op, self.bump().start));
        }
        let inner = self.construct()?;
        Ok(wrap_prefixes(prefixes, inner))
    }

    /// What prefix operators apply to. Every construct that contains expressions of its
    /// own nests one level.
    fn construct(&mut self) -> Parsed<Expr> {
        match self.peek() {
            Some(Token::Fun) => self.nested(Self::fun),
            Some(Token::Let) => self.nested(Self::let_in),
            Some(Token::If) => self.nested(Self::if_then_else),
            Some(Token::Ref) => self.nested(Self::reference),
            Some(Token::Match) => self.nested(Self::match_with),
            Some(Token::Ident(_)) if self.peek_at(1) == Some(Token::ColonEqual) => {
                self.nested(Self::assignment)
            }
            Some(Token::Sync) => {
                let start = self.bump();
                let hint = self.hint()?;
                let end = hint.as_ref().map_or(start.end, |h| h.span.end);
                let sync = Expr {
                    kind: ExprKind::Sync(hint),
                    span: start.start..end,
                };
                // Hobbit's grammar has `_sync_` only as an applied function.
                if !self.peek().is_some_and(starts_atom) {
                    return Err(self
                        .unexpected("an argument for `_sync_`")
                        .with_hint("`_sync_` is a function: apply it, as in `_sync_ ()`."));
                }
                self.applications(sync)
            }
            // `[]` is an atom that is never applied.
            Some(Token::Nil) => {
                let nil = self.atom()?;
                self.projection_of(nil)
            }
            Some(token) if starts_atom(token) => {
                let head = self.atom()?;
                if self.at(Token::LBracket) {
                    self.projection_of(head)
                } else {
                    self.applications(head)
                }
            }
            _ => Err(self.unexpected("an expression")),
        }
    }

    /// `l := e`
    fn assignment(&mut self) -> Parsed<Expr> {
        let name = self.ident("a reference")?;
        self.bump();
        let value = self.expr(0)?;
        Ok(Expr {
            span: name.span.start..value.span.end,
            kind: ExprKind::Assign(name, Box::new(value)),
        })
    }

    /// `head a1 a2 …`, left-associative, while atoms follow.
    fn applications(&mut self, mut head: Expr) -> Parsed<Expr> {
        while self.peek().is_some_and(starts_atom) {
            let argument = self.atom()?;
            head = Expr {
                span: head.span.start..argument.span.end,
                kind: ExprKind::App(Box::new(head), Box::new(argument)),
            };
        }
        Ok(head)
    }

    /// A name, a constant, `!l`, `[]`, `_bot_`, `( … )` or `begin … end`.
    fn atom(&mut self) -> Parsed<Expr> {
        let Some((token, span)) = self.tokens.get(self.at).cloned() else {
            return Err(self.unexpected("an expression"));
        };
        let kind = match token {
            Token::Ident(name) => ExprKind::Var(name.to_string()),
            Token::Int(digits) => ExprKind::Int(self.integer(digits, &span)?),
            Token::True => ExprKind::Bool(true),
            Token::False => ExprKind::Bool(false),
            Token::Bot => ExprKind::Bot,
            Token::Nil => ExprKind::Nil,
            Token::Bang => {
                self.bump();
                let cell = self.ident("the name of a reference")?;
                return Ok(Expr {
                    span: span.start..cell.span.end,
                    kind: ExprKind::Deref(cell),
                });
            }
            Token::LParen if self.peek_at(1) == Some(Token::RParen) => {
                self.bump();
                let close = self.bump();
                return Ok(Expr {
                    kind: ExprKind::Unit,
                    span: span.start..close.end,
                });
            }
            Token::LParen => return self.nested(|p| p.bracketed(Token::RParen, "`)`")),
            Token::Begin => return self.nested(|p| p.bracketed(Token::End, "`end`")),
            _ => return Err(self.unexpected("an expression")),
        };
        self.bump();
        Ok(Expr { kind, span })
    }

    /// `( e )` or `begin e end`, `e` a sequence.
    fn bracketed(&mut self, close: Token<'_>, name: &str) -> Parsed<Expr> {
        let open = self.bump();
        let inner = self.sequence()?;
        let close = self.expect(close, &format!("an operator, `;` or {name}"))?;
        Ok(widened(inner, open.start..close.end))
    }

    fn integer(&self, digits: &str, span: &Span) -> Parsed<BigInt> {
        BigInt::parse_bytes(digits.as_bytes(), 10).ok_or_else(|| {
            Diagnostic::error("E0110", "This is not an integer").with_label(
                self.file,
                span.clone(),
                "expected decimal digits",
            )
        })
    }

    /// `e[i/n]` or `e[i/n := v]` after an atom, or the atom itself.
    fn projection_of(&mut self, tuple: Expr) -> Parsed<Expr> {
        if self.eat(Token::LBracket).is_none() {
            return Ok(tuple);
        }
        let index = self.index("the component's index, from 0")?;
        self.expect(Token::Slash, "`/`")?;
        let width = self.index("the tuple's width")?;
        if self.eat(Token::ColonEqual).is_some() {
            let value = self.nested(|p| p.expr(0))?;
            let close = self.expect(Token::RBracket, "an operator or `]`")?;
            return Ok(Expr {
                span: tuple.span.start..close.end,
                kind: ExprKind::Update {
                    tuple: Box::new(tuple),
                    index,
                    width,
                    value: Box::new(value),
                },
            });
        }
        let close = self.expect(Token::RBracket, "`]` or `:=`")?;
        Ok(Expr {
            span: tuple.span.start..close.end,
            kind: ExprKind::Project {
                tuple: Box::new(tuple),
                index,
                width,
            },
        })
    }

    fn index(&mut self, what: &str) -> Parsed<usize> {
        match self.peek() {
            Some(Token::Int(digits)) => match digits.parse::<usize>() {
                Ok(n) => {
                    self.bump();
                    Ok(n)
                }
                Err(_) => Err(Diagnostic::error("E0111", "This number is too large here")
                    .with_label(self.file, self.here(), format!("expected {what}"))),
            },
            _ => Err(self.unexpected(what)),
        }
    }

    fn ident(&mut self, what: &str) -> Parsed<Ident> {
        match self.peek() {
            Some(Token::Ident(name)) => Ok(Ident {
                name: name.to_string(),
                span: self.bump(),
            }),
            _ => Err(self.unexpected(what)),
        }
    }

    /// A name or `_` (Hobbit's `id_or_us`).
    fn name_or_wildcard(&mut self, what: &str) -> Parsed<Binder> {
        let kind = match self.peek() {
            Some(Token::Ident(name)) => BinderKind::Name(name.to_string()),
            Some(Token::Underscore) => BinderKind::Wildcard,
            _ => return Err(self.unexpected(what)),
        };
        Ok(Binder {
            kind,
            span: self.bump(),
        })
    }

    /// A parameter: a name, `_` or `()` (Hobbit's `paramid_w_type`).
    fn param(&mut self) -> Parsed<Binder> {
        if self.at(Token::LParen) && self.peek_at(1) == Some(Token::RParen) {
            let open = self.bump();
            let close = self.bump();
            return Ok(Binder {
                kind: BinderKind::Unit,
                span: open.start..close.end,
            });
        }
        self.name_or_wildcard("a parameter: a name, `_` or `()`")
    }

    /// `fun x -> e`, `fun (x) -> e`, `fun f x -> e`, each with an optional hint after
    /// the parameter.
    fn fun(&mut self) -> Parsed<Expr> {
        let start = self.bump().start;
        // A first name followed by a parameter is the function's own name.
        let named = matches!(self.peek(), Some(Token::Ident(_) | Token::Underscore))
            && matches!(
                self.peek_at(1),
                Some(Token::Ident(_) | Token::Underscore | Token::LParen)
            );
        let name = if named {
            Some(self.name_or_wildcard("the function's name")?)
        } else {
            None
        };
        let param = if self.at(Token::LParen) && self.peek_at(1) != Some(Token::RParen) {
            self.bump();
            let param = self.param()?;
            self.expect(Token::RParen, "`)`")?;
            param
        } else {
            self.param()?
        };
        let hint = self.hint()?;
        self.expect(Token::Arrow, "`->` or a hint `{ … }`")?;
        let body = self.sequence()?;
        let span = start..body.span.end;
        Ok(Expr {
            span: span.clone(),
            kind: ExprKind::Fun {
                name,
                function: Box::new(Function {
                    param,
                    hint,
                    body,
                    span,
                }),
            },
        })
    }

    /// `let x = e in b`, `let f x = e in b`, `let rec f x = e in b`, `let (a, b) = e in b`.
    fn let_in(&mut self) -> Parsed<Expr> {
        let start = self.bump().start;
        let recursive = self.eat(Token::Rec).is_some();
        if !recursive && self.at(Token::LParen) {
            self.bump();
            let mut binders = vec![self.param()?];
            self.expect(Token::Comma, "`,`: a tuple pattern has two names or more")?;
            loop {
                binders.push(self.param()?);
                if self.eat(Token::Comma).is_none() {
                    break;
                }
            }
            self.expect(Token::RParen, "`,` or `)`")?;
            let (value, body) = self.definition_and_body()?;
            return Ok(Expr {
                span: start..body.span.end,
                kind: ExprKind::LetTuple {
                    binders,
                    value: Box::new(value),
                    body: Box::new(body),
                },
            });
        }
        let name = self.name_or_wildcard("a name")?;
        if !recursive && self.at(Token::Equal) {
            let (value, body) = self.definition_and_body()?;
            return Ok(Expr {
                span: start..body.span.end,
                kind: ExprKind::Let {
                    binder: name,
                    value: Box::new(value),
                    body: Box::new(body),
                },
            });
        }
        let param = self.param()?;
        let hint = self.hint()?;
        let (value, body) = self.definition_and_body()?;
        Ok(Expr {
            span: start..body.span.end,
            kind: ExprKind::LetFun {
                recursive,
                function: Box::new(Function {
                    param,
                    hint,
                    span: name.span.start..value.span.end,
                    body: value,
                }),
                name,
                body: Box::new(body),
            },
        })
    }

    /// `= e in b` after a `let`'s binders.
    fn definition_and_body(&mut self) -> Parsed<(Expr, Expr)> {
        self.expect(Token::Equal, "`=`")?;
        let value = self.sequence()?;
        self.expect(Token::In, "an operator, `;` or `in`")?;
        let body = self.sequence()?;
        Ok((value, body))
    }

    fn if_then_else(&mut self) -> Parsed<Expr> {
        let start = self.bump().start;
        let condition = self.sequence()?;
        self.expect(Token::Then, "an operator, `;` or `then`")?;
        let then = self.expr(0)?;
        let otherwise = match self.eat(Token::Else) {
            Some(_) => Some(Box::new(self.expr(0)?)),
            None => None,
        };
        let end = otherwise.as_ref().map_or(then.span.end, |e| e.span.end);
        Ok(Expr {
            span: start..end,
            kind: ExprKind::If(Box::new(condition), Box::new(then), otherwise),
        })
    }

    /// `ref l = e in b`; `e` is no sequence (Hobbit's grammar).
    fn reference(&mut self) -> Parsed<Expr> {
        let start = self.bump().start;
        let name = self.ident("a name for the reference")?;
        self.expect(Token::Equal, "`=`")?;
        let value = self.expr(0)?;
        self.expect(Token::In, "an operator or `in`")?;
        let body = self.sequence()?;
        Ok(Expr {
            span: start..body.span.end,
            kind: ExprKind::Ref {
                name,
                value: Box::new(value),
                body: Box::new(body),
            },
        })
    }

    /// `match e with [] -> e1 | x :: xs -> e2`, the first `|` optional.
    fn match_with(&mut self) -> Parsed<Expr> {
        let start = self.bump().start;
        let scrutinee = self.expr(0)?;
        self.expect(Token::With, "an operator or `with`")?;
        self.eat(Token::Pipe);
        self.expect(Token::Nil, "`[]`: the first branch matches the empty list")?;
        self.expect(Token::Arrow, "`->`")?;
        let nil = self.expr(0)?;
        self.expect(Token::Pipe, "an operator or `|`")?;
        let head = self.name_or_wildcard("a name or `_` for the head")?;
        self.expect(Token::ColonColon, "`::`")?;
        let tail = self.name_or_wildcard("a name or `_` for the tail")?;
        self.expect(Token::Arrow, "`->`")?;
        let cons = self.expr(ABOVE_ARROW)?;
        Ok(Expr {
            span: start..cons.span.end,
            kind: ExprKind::Match {
                scrutinee: Box::new(scrutinee),
                nil: Box::new(nil),
                head,
                tail,
                cons: Box::new(cons),
            },
        })
    }

    /// An optional hint: `{ w1, w2 | l as v; … | P }` or `{ w1, w2 }`.
    fn hint(&mut self) -> Parsed<Option<Hint>> {
        let Some(open) = self.eat(Token::LBrace) else {
            return Ok(None);
        };
        let mut vars = Vec::new();
        // Hobbit allows a `,` after the last variable.
        while let Some(Token::Ident(_)) = self.peek() {
            vars.push(self.ident("a variable")?);
            if self.eat(Token::Comma).is_none() {
                break;
            }
        }
        if let Some(close) = self.eat(Token::RBrace) {
            return Ok(Some(Hint {
                span: open.start..close.end,
                vars,
                cells: Vec::new(),
                prop: None,
            }));
        }
        self.expect(Token::Pipe, "a variable, `,`, `|` or `}`")?;
        let mut cells = Vec::new();
        loop {
            let cell = self.ident("a reference")?;
            self.expect(Token::As, "`as`")?;
            cells.push((cell, self.hint_value()?));
            if self.eat(Token::Semi).is_none() {
                break;
            }
        }
        self.expect(Token::Pipe, "`,`, `;` or `|`")?;
        let prop = self.prop(0)?;
        let close = self.expect(Token::RBrace, "an operator or `}`")?;
        Ok(Some(Hint {
            span: open.start..close.end,
            vars,
            cells,
            prop: Some(Box::new(prop)),
        }))
    }

    /// What a reference holds in a hint: a variable, a constant, or a tuple of those.
    fn hint_value(&mut self) -> Parsed<Expr> {
        let first = self.hint_atom()?;
        if !self.at(Token::Comma) {
            return Ok(first);
        }
        let mut items = vec![first];
        while self.eat(Token::Comma).is_some() {
            items.push(self.hint_atom()?);
        }
        Ok(seq_or_tuple(items, ExprKind::Tuple))
    }

    fn hint_atom(&mut self) -> Parsed<Expr> {
        match self.peek() {
            Some(Token::Ident(_) | Token::Int(_) | Token::True | Token::False) => self.atom(),
            Some(Token::LParen) => {
                let open = self.bump();
                let inner = self.nested(Self::hint_value)?;
                let close = self.expect(Token::RParen, "`,` or `)`")?;
                Ok(widened(inner, open.start..close.end))
            }
            _ => Err(self.unexpected("a variable, a constant or `(`")),
        }
    }

    /// An operand in a proposition: `-` and `not` before a variable, a constant, `!l` or
    /// a proposition in parentheses.
    fn prop_operand(&mut self) -> Parsed<Expr> {
        let mut prefixes = Vec::new();
        while let Some(op) = self.peek().and_then(|token| match token {
            Token::Minus => Some(UnaryOp::Neg),
            Token::Not => Some(UnaryOp::Not),
            _ => None,
        }) {
            prefixes.push((op, self.bump().start));
        }
        let inner = match self.peek() {
            Some(Token::Ident(_) | Token::Int(_) | Token::True | Token::False | Token::Bang) => {
                self.atom()?
            }
            Some(Token::LParen) => {
                let open = self.bump();
                let inner = self.nested(|p| p.prop(0))?;
                let close = self.expect(Token::RParen, "an operator or `)`")?;
                widened(inner, open.start..close.end)
            }
            _ => return Err(self.unexpected("a variable, a constant, `!`, `-`, `not` or `(`")),
        };
        Ok(wrap_prefixes(prefixes, inner))
    }

    /// A type: `t -> t` (right-associative) over `t * t * …` over `t list` over `unit`,
    /// `bool`, `int` and `( t )`.
    fn ty(&mut self) -> Parsed<Type> {
        self.nested(|p| {
            let left = p.tuple_ty()?;
            if p.eat(Token::Arrow).is_none() {
                return Ok(left);
            }
            let right = p.ty()?;
            Ok(Type {
                span: left.span.start..right.span.end,
                kind: TypeKind::Arrow(Box::new(left), Box::new(right)),
            })
        })
    }

    fn tuple_ty(&mut self) -> Parsed<Type> {
        let first = self.list_ty()?;
        if !self.at(Token::Star) {
            return Ok(first);
        }
        let start = first.span.start;
        let mut items = vec![first];
        let mut end = start;
        while self.eat(Token::Star).is_some() {
            let item = self.list_ty()?;
            end = item.span.end;
            items.push(item);
        }
        Ok(Type {
            kind: TypeKind::Tuple(items),
            span: start..end,
        })
    }

    fn list_ty(&mut self) -> Parsed<Type> {
        let mut ty = match self.peek() {
            Some(Token::UnitTy | Token::BoolTy | Token::IntTy) => {
                let kind = match self.peek() {
                    Some(Token::UnitTy) => TypeKind::Unit,
                    Some(Token::BoolTy) => TypeKind::Bool,
                    _ => TypeKind::Int,
                };
                Type {
                    kind,
                    span: self.bump(),
                }
            }
            Some(Token::LParen) => {
                let open = self.bump();
                let inner = self.ty()?;
                let close = self.expect(Token::RParen, "`->`, `*`, `list` or `)`")?;
                Type {
                    kind: inner.kind,
                    span: open.start..close.end,
                }
            }
            _ => return Err(self.unexpected("a type: `unit`, `bool`, `int` or `(`")),
        };
        while let Some(close) = self.eat(Token::ListTy) {
            ty = Type {
                span: ty.span.start..close.end,
                kind: TypeKind::List(Box::new(ty)),
            };
        }
        Ok(ty)
    }
}

/// Applies prefix operators, read left to right, to `inner`: the last one innermost.
fn wrap_prefixes(prefixes: Vec<(UnaryOp, usize)>, inner: Expr) -> Expr {
    prefixes
        .into_iter()
        .rev()
        .fold(inner, |operand, (op, start)| Expr {
            span: start..operand.span.end,
            kind: ExprKind::Unary(op, Box::new(operand)),
        })
}

/// The n-ary node (`Seq` or `Tuple`) over `items`, at least two, spanning them all.
fn seq_or_tuple(items: Vec<Expr>, node: fn(Vec<Expr>) -> ExprKind) -> Expr {
    let span = match (items.first(), items.last()) {
        (Some(first), Some(last)) => first.span.start..last.span.end,
        _ => 0..0,
    };
    Expr {
        kind: node(items),
        span,
    }
}

/// `inner` with the span of the brackets around it.
fn widened(inner: Expr, span: Span) -> Expr {
    Expr {
        kind: inner.kind,
        span,
    }
}

#[cfg(test)]
mod tests {
    use crate::diagnostics::Diagnostic;
    use crate::frontend::with_large_stack;
    use crate::hobbit::ast::*;
    use crate::hobbit::parse;
    use crate::syntax::parser::MAX_NESTING;

    fn binder(b: &Binder) -> String {
        match &b.kind {
            BinderKind::Name(name) => name.clone(),
            BinderKind::Wildcard => "_".to_string(),
            BinderKind::Unit => "()".to_string(),
        }
    }

    /// An expression as an S-expression, to compare trees at a glance.
    fn show(e: &Expr) -> String {
        let all = |es: &[Expr]| es.iter().map(show).collect::<Vec<_>>().join(" ");
        let function = |f: &Function| {
            let hint = if f.hint.is_some() { " {…}" } else { "" };
            format!("{}{hint} {}", binder(&f.param), show(&f.body))
        };
        match &e.kind {
            ExprKind::Int(n) => n.to_string(),
            ExprKind::Bool(b) => b.to_string(),
            ExprKind::Unit => "()".to_string(),
            ExprKind::Nil => "[]".to_string(),
            ExprKind::Var(x) => x.clone(),
            ExprKind::Bot => "_bot_".to_string(),
            ExprKind::Sync(hint) => {
                format!("_sync_{}", if hint.is_some() { "{…}" } else { "" })
            }
            ExprKind::Deref(cell) => format!("!{}", cell.name),
            ExprKind::Assign(cell, v) => format!("(:= {} {})", cell.name, show(v)),
            ExprKind::Unary(op, a) => format!("({op:?} {})", show(a)),
            ExprKind::Binary(op, a, b) => format!("({op:?} {} {})", show(a), show(b)),
            ExprKind::App(f, a) => format!("(@ {} {})", show(f), show(a)),
            ExprKind::If(c, t, o) => format!(
                "(if {} {} {})",
                show(c),
                show(t),
                o.as_ref().map_or("-".to_string(), |o| show(o))
            ),
            ExprKind::Seq(es) => format!("(; {})", all(es)),
            ExprKind::Tuple(es) => format!("(, {})", all(es)),
            ExprKind::Fun { name, function: f } => {
                let name = name.as_ref().map_or(String::new(), |n| binder(n) + " ");
                format!("(fun {name}{})", function(f))
            }
            ExprKind::Let {
                binder: b,
                value,
                body,
            } => format!("(let {} {} {})", binder(b), show(value), show(body)),
            ExprKind::LetFun {
                recursive,
                name,
                function: f,
                body,
            } => format!(
                "(let{} {} {} {})",
                if *recursive { " rec" } else { "" },
                binder(name),
                function(f),
                show(body)
            ),
            ExprKind::LetTuple {
                binders,
                value,
                body,
            } => format!(
                "(let ({}) {} {})",
                binders.iter().map(binder).collect::<Vec<_>>().join(" "),
                show(value),
                show(body)
            ),
            ExprKind::Ref { name, value, body } => {
                format!("(ref {} {} {})", name.name, show(value), show(body))
            }
            ExprKind::Match {
                scrutinee,
                nil,
                head,
                tail,
                cons,
            } => format!(
                "(match {} {} {} {} {})",
                show(scrutinee),
                show(nil),
                binder(head),
                binder(tail),
                show(cons)
            ),
            ExprKind::Project {
                tuple,
                index,
                width,
            } => format!("([{index}/{width}] {})", show(tuple)),
            ExprKind::Update {
                tuple,
                index,
                width,
                value,
            } => format!("([{index}/{width}:=] {} {})", show(tuple), show(value)),
        }
    }

    fn pair(source: &str) -> Pair {
        match parse("t", source) {
            Ok(pair) => pair,
            Err(errors) => panic!("{source}: {errors:?}"),
        }
    }

    /// The left side of `source ||| 0`, as an S-expression.
    fn left(source: &str) -> String {
        show(&pair(&format!("{source} ||| 0")).left)
    }

    fn error(source: &str) -> (&'static str, std::ops::Range<usize>) {
        match parse("t", source) {
            Ok(pair) => panic!("{source} parsed: {pair:?}"),
            Err(errors) => (errors[0].code, errors[0].labels[0].span.clone()),
        }
    }

    #[test]
    fn binary_operators_follow_hobbits_precedences() {
        assert_eq!(left("a + b * c"), "(Add a (Mul b c))");
        assert_eq!(left("a - b - c"), "(Sub (Sub a b) c)");
        assert_eq!(left("a mod b / c"), "(Div (Mod a b) c)");
        assert_eq!(left("1 :: 2 :: []"), "(Cons 1 (Cons 2 []))");
        assert_eq!(left("a || b && c"), "(Or a (And b c))");
        assert_eq!(left("a < b = c"), "(Eq (Lt a b) c)");
        // Implication binds tighter than comparisons in Hobbit's grammar.
        assert_eq!(left("a = b ==> c"), "(Eq a (Implies b c))");
        assert_eq!(left("a ==> b => c"), "(Implies a (Implies b c))");
        assert_eq!(left("x + 1 :: xs"), "(Cons (Add x 1) xs)");
        assert_eq!(left("a <> b && c"), "(And (Ne a b) c)");
    }

    #[test]
    fn application_and_prefix_operators_bind_tightest() {
        assert_eq!(left("f x y"), "(@ (@ f x) y)");
        assert_eq!(left("f x + g y"), "(Add (@ f x) (@ g y))");
        assert_eq!(left("not f x && y"), "(And (Not (@ f x)) y)");
        assert_eq!(left("- a * b"), "(Mul (Neg a) b)");
        assert_eq!(left("f -1"), "(Sub f 1)");
        assert_eq!(left("fst p, snd p"), "(, (Fst p) (Snd p))");
        assert_eq!(left("!f x"), "(@ !f x)");
        assert_eq!(
            left("f () (g x) begin y end []"),
            "(@ (@ (@ (@ f ()) (@ g x)) y) [])"
        );
        assert_eq!(left("_print_ - - x"), "(Print (Neg (Neg x)))");
        assert_eq!(left("_bot_ 1"), "(@ _bot_ 1)");
    }

    #[test]
    fn sequences_tuples_and_assignments() {
        assert_eq!(left("let x = 1 in a; b"), "(let x 1 (; a b))");
        assert_eq!(left("a; let x = 1 in b; c"), "(; a (let x 1 (; b c)))");
        assert_eq!(left("(a; b;)"), "(; a b)");
        assert_eq!(left("(a;)"), "a");
        assert_eq!(left("a, b, c"), "(, a b c)");
        assert_eq!(left("(a, b), c"), "(, (, a b) c)");
        assert_eq!(left("l := 1, 2; !l"), "(; (:= l (, 1 2)) !l)");
        assert_eq!(left("a + l := 1"), "(Add a (:= l 1))");
        assert_eq!(left("fun x -> x, x; x"), "(fun x (; (, x x) x))");
    }

    #[test]
    fn conditionals_take_everything_but_semicolons() {
        assert_eq!(left("if c then a; b"), "(; (if c a -) b)");
        assert_eq!(left("if c then a else b; d"), "(; (if c a b) d)");
        assert_eq!(
            left("if c; d then x, y else z, w"),
            "(if (; c d) (, x y) (, z w))"
        );
        assert_eq!(left("if a then if b then c else d"), "(if a (if b c d) -)");
        assert_eq!(
            left("if a then if b then c else d else e"),
            "(if a (if b c d) e)"
        );
        assert_eq!(
            left("a + if c then 1 else 2 + 3"),
            "(Add a (if c 1 (Add 2 3)))"
        );
        assert_eq!(
            left("if c then (a; b) else begin d; e end"),
            "(if c (; a b) (; d e))"
        );
    }

    #[test]
    fn functions_and_lets() {
        assert_eq!(left("fun x -> x"), "(fun x x)");
        assert_eq!(left("fun (x) -> x"), "(fun x x)");
        assert_eq!(left("fun () -> ()"), "(fun () ())");
        assert_eq!(left("fun _ -> 1"), "(fun _ 1)");
        assert_eq!(left("fun f (x) -> f x"), "(fun f x (@ f x))");
        assert_eq!(left("fun f () -> f ()"), "(fun f () (@ f ()))");
        assert_eq!(left("let f x = x in f"), "(let f x x f)");
        assert_eq!(left("let rec f _ = f 3 in f"), "(let rec f _ (@ f 3) f)");
        assert_eq!(left("let _ = x in ()"), "(let _ x ())");
        assert_eq!(left("let f () = () in f"), "(let f () () f)");
        assert_eq!(left("let (a, _, ()) = t in a"), "(let (a _ ()) t a)");
        assert_eq!(
            left("ref l = 0 in l := !l + 1; !l"),
            "(ref l 0 (; (:= l (Add !l 1)) !l))"
        );
    }

    #[test]
    fn match_ends_before_a_comma() {
        assert_eq!(
            left("match l with [] -> 0 | x :: xs -> x :: xs"),
            "(match l 0 x xs (Cons x xs))"
        );
        assert_eq!(
            left("match l with | [] -> a, b | _ :: t -> c, d"),
            "(, (match l (, a b) _ t c) d)"
        );
        assert_eq!(
            left("match l with [] -> 0 | x :: _ -> fun y -> y, x"),
            "(match l 0 x _ (fun y (, y x)))"
        );
    }

    #[test]
    fn projections_apply_to_atoms() {
        assert_eq!(left("x[1/3]"), "([1/3] x)");
        assert_eq!(left("(f x)[0/2 := y, z]"), "([0/2:=] (@ f x) (, y z))");
        assert_eq!(left("fst !l[0/2]"), "(Fst ([0/2] !l))");
        assert_eq!(left("[][0/1]"), "([0/1] [])");
        // Hobbit reads `f x[0/2]` as nothing: the projection needs parentheses.
        assert_eq!(error("f x[0/2] ||| 0"), ("E0111", 3..4));
    }

    #[test]
    fn hints_are_kept() {
        let source = "fun x {w1, w2 | c as (w1, 1); d as w2 | !c = w1 ==> -w2 < 0} -> x \
                      ||| _sync_ {w, } ()";
        let p = pair(source);
        let ExprKind::Fun { function, .. } = &p.left.kind else {
            panic!("{:?}", p.left)
        };
        let Some(hint) = &function.hint else {
            panic!("no hint")
        };
        let vars: Vec<&str> = hint.vars.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(vars, ["w1", "w2"]);
        let cells: Vec<(String, String)> = hint
            .cells
            .iter()
            .map(|(c, v)| (c.name.clone(), show(v)))
            .collect();
        assert_eq!(
            cells,
            [
                ("c".to_string(), "(, w1 1)".to_string()),
                ("d".to_string(), "w2".to_string())
            ]
        );
        // `==>` binds tighter than the comparisons, which associate to the left.
        assert_eq!(
            hint.prop.as_deref().map(show).as_deref(),
            Some("(Lt (Eq !c (Implies w1 (Neg w2))) 0)")
        );
        assert_eq!(show(&p.right), "(@ _sync_{…} ())");
        let ExprKind::App(sync, _) = &p.right.kind else {
            panic!("{:?}", p.right)
        };
        let ExprKind::Sync(Some(hint)) = &sync.kind else {
            panic!("{sync:?}")
        };
        assert_eq!((hint.vars.len(), hint.prop.is_none()), (1, true));
        let at = source.find("{w, }").unwrap_or(0);
        assert_eq!(hint.span, at..at + 5);
        assert_eq!(
            left("let rec f n {n2 | r as n2 | true} = f n in f"),
            "(let rec f n {…} (@ f n) f)"
        );
    }

    #[test]
    fn annotations_are_types() {
        let annotation = |source: &str| pair(source).annotation.map(|t| t.kind);
        let (int, boolean) = (
            |s| Type {
                kind: TypeKind::Int,
                span: s,
            },
            |s| Type {
                kind: TypeKind::Bool,
                span: s,
            },
        );
        let arrow = |a: Type, b: Type| Type {
            span: a.span.start..b.span.end,
            kind: TypeKind::Arrow(Box::new(a), Box::new(b)),
        };
        assert_eq!(
            annotation("f |||_int -> int -> int g"),
            Some(arrow(int(6..9), arrow(int(13..16), int(20..23))).kind)
        );
        let Some(TypeKind::Arrow(argument, _)) = annotation("f |||_(int * bool) list -> int g")
        else {
            panic!("not an arrow")
        };
        let TypeKind::List(element) = &argument.kind else {
            panic!("{argument:?}")
        };
        assert_eq!(
            element.kind,
            TypeKind::Tuple(vec![int(7..10), boolean(13..17)])
        );
        assert_eq!(element.span, 6..18);
        assert_eq!(
            annotation("f |||_int * int list g"),
            Some(TypeKind::Tuple(vec![
                int(6..9),
                Type {
                    kind: TypeKind::List(Box::new(int(12..15))),
                    span: 12..20
                }
            ]))
        );
        assert_eq!(annotation("f ||| g"), None);
    }

    #[test]
    fn spans_cover_brackets() {
        let p = pair("  f (x)  ||| (* c *) begin 1 end # x");
        assert_eq!(p.left.span, 2..7);
        assert_eq!(p.relation, 9..12);
        assert_eq!(p.right.span, 21..32);
        let ExprKind::App(_, argument) = &p.left.kind else {
            panic!("{:?}", p.left)
        };
        assert_eq!(argument.span, 4..7);
    }

    #[test]
    fn syntax_errors_are_located() {
        assert_eq!(error("1 + ||| 2"), ("E0111", 4..7));
        assert_eq!(error("1 |<| 1"), ("E0111", 2..5));
        assert_eq!(error("1 |>| 1"), ("E0111", 2..5));
        assert_eq!(error("1 ||| "), ("E0111", 6..6));
        assert_eq!(error("1 |||_int"), ("E0111", 9..9));
        assert_eq!(error("  "), ("E0111", 2..2));
        assert_eq!(error("1 ||| 2 )"), ("E0111", 8..9));
        assert_eq!(error("_sync_ ||| 1"), ("E0111", 7..10));
        assert_eq!(error("let (x) = 1 in x ||| 1"), ("E0111", 6..7));
        assert_eq!(error("let f (x) = 1 in f ||| 1"), ("E0111", 6..7));
        assert_eq!(error("ref l = a; b in l ||| 1"), ("E0111", 9..10));
        assert_eq!(
            error("fun x {w | c as -1 | true} -> x ||| 1"),
            ("E0111", 16..17)
        );
        assert_eq!(
            error("match l with x :: xs -> 1 | [] -> 2 ||| 1"),
            ("E0111", 13..14)
        );
        assert_eq!(
            error("x[0/99999999999999999999999] ||| 1"),
            ("E0111", 4..27)
        );
        assert_eq!(error("1 |||_int -> ||| 1"), ("E0111", 13..16));
        assert_eq!(error("f (fun x -> x ||| 1"), ("E0111", 14..17));
    }

    fn deep(source: String) -> Result<(), Vec<Diagnostic>> {
        // Deep trees are built and dropped on a large stack, as the front end does.
        with_large_stack(move || parse("deep", &source).map(|_| ()))
    }

    #[test]
    fn nesting_is_bounded() {
        let brackets = |n: usize| format!("{}1{} ||| 1", "(".repeat(n), ")".repeat(n));
        assert_eq!(deep(brackets(MAX_NESTING - 10)), Ok(()));
        let Err(errors) = deep(brackets(MAX_NESTING + 1)) else {
            panic!("accepted")
        };
        assert_eq!(errors[0].code, "E0005");
        assert_eq!(errors[0].labels[0].span, MAX_NESTING..MAX_NESTING + 1);
        // Left-associative chains are read in a loop; their depth is measured after.
        let chain = |n: usize| format!("1{} ||| 1", " + 1".repeat(n));
        assert_eq!(deep(chain(MAX_NESTING - 10)), Ok(()));
        let Err(errors) = deep(chain(4 * MAX_NESTING)) else {
            panic!("accepted")
        };
        assert_eq!(errors[0].code, "E0005");
        let Err(errors) = deep(format!("{}x ||| 1", "- ".repeat(2 * MAX_NESTING))) else {
            panic!("accepted")
        };
        assert_eq!(errors[0].code, "E0005");
        let Err(errors) = deep(format!("1 |||_{}int 1", "int -> ".repeat(2 * MAX_NESTING))) else {
            panic!("accepted")
        };
        assert_eq!(errors[0].code, "E0005");
    }
}
