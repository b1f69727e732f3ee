//! The lexer: the tokens of Hobbit's `lexer.mll`, produced by logos.
//!
//! Layout is spaces, tabs, newlines and carriage returns, `# …` line comments and
//! `(* … *)` comments, which do not nest (as in Hobbit, whose comment rule stops at the
//! first `*)`). The longest match wins, so `|||` is one token and `||` another, `[]` is the
//! empty list while `[ ]` is two brackets, and `(*)` opens a comment. `=` and `==` are the
//! same token, and so are `=>` and `==>`, as in Hobbit.

use crate::diagnostics::{Diagnostic, Span};
use crate::syntax::parser::MAX_LITERAL_DIGITS;
use logos::Logos;

/// A token of a `.bils` file. Identifiers and integer literals keep their text.
#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[logos(skip r"[ \t\r\n]+")]
#[logos(skip(r"#[^\n]*", allow_greedy = true))]
#[logos(skip(r"\(\*", comment))]
pub enum Token<'src> {
    #[regex(r"[A-Za-z][A-Za-z0-9_']*", |lex| lex.slice(), priority = 1)]
    Ident(&'src str),
    #[regex(r"[0-9]+", |lex| lex.slice())]
    Int(&'src str),

    #[token("_")]
    Underscore,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("=")]
    #[token("==")]
    Equal,
    #[token("::")]
    ColonColon,
    #[token(":=")]
    ColonEqual,
    #[token("!")]
    Bang,
    #[token("<>")]
    NotEqual,
    #[token(";")]
    Semi,
    #[token(",")]
    Comma,
    #[token("<")]
    Less,
    #[token(">")]
    Greater,
    #[token("<=")]
    LessEq,
    #[token(">=")]
    GreaterEq,
    #[token("==>")]
    #[token("=>")]
    Implies,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("mod")]
    Mod,
    #[token("&&")]
    AndAnd,
    #[token("||")]
    OrOr,
    #[token("|")]
    Pipe,
    #[token("->")]
    Arrow,
    #[token("fun")]
    Fun,
    #[token("if")]
    If,
    #[token("then")]
    Then,
    #[token("else")]
    Else,
    #[token("let")]
    Let,
    #[token("rec")]
    Rec,
    #[token("in")]
    In,
    #[token("true")]
    True,
    #[token("false")]
    False,
    #[token("ref")]
    Ref,
    #[token("not")]
    Not,
    #[token("fst")]
    Fst,
    #[token("snd")]
    Snd,
    #[token("_bot_")]
    Bot,
    #[token("_sync_")]
    Sync,
    #[token("_print_")]
    Print,
    #[token("begin")]
    Begin,
    #[token("end")]
    End,
    #[token("[]")]
    Nil,
    #[token("match")]
    Match,
    #[token("with")]
    With,
    #[token("as")]
    As,
    /// `|||`, contextual equivalence: the one relation Hobbit checks.
    #[token("|||")]
    Equiv,
    /// `|<|`, a preorder Hobbit reserves but does not support.
    #[token("|<|")]
    Approx,
    /// `|>|`, the inverse preorder, likewise reserved.
    #[token("|>|")]
    ApproxInv,
    #[token("unit")]
    UnitTy,
    #[token("bool")]
    BoolTy,
    #[token("int")]
    IntTy,
    #[token("list")]
    ListTy,
}

/// Skips a comment after its `(*`, up to the first `*)`; an unclosed one is an error.
fn comment<'src>(lex: &mut logos::Lexer<'src, Token<'src>>) -> Result<(), ()> {
    crate::syntax::lexer::skip_past(lex, "*)")
        .then_some(())
        .ok_or(())
}

/// Splits `source` into tokens with their byte spans, or reports every lexical error
/// (E0110): each run of characters that starts no token, an integer literal longer than
/// [`MAX_LITERAL_DIGITS`] (whose conversion would be slow), and a comment never closed.
pub fn lex<'src>(
    file: &str,
    source: &'src str,
) -> Result<Vec<(Token<'src>, Span)>, Vec<Diagnostic>> {
    let mut tokens = Vec::new();
    let mut errors = Vec::new();
    let mut bad: Option<Span> = None;
    let mut lexer = Token::lexer(source);
    while let Some(result) = lexer.next() {
        let span = lexer.span();
        match result {
            Ok(token) => {
                if let Some(run) = bad.take() {
                    errors.push(bad_characters(file, source, run));
                }
                if matches!(token, Token::Int(digits) if digits.len() > MAX_LITERAL_DIGITS) {
                    errors.push(
                        Diagnostic::error("E0110", "This integer literal is too long")
                            .with_label(file, span.clone(), "too many digits")
                            .with_hint(format!(
                                "Integer literals have at most {MAX_LITERAL_DIGITS} digits."
                            )),
                    );
                }
                tokens.push((token, span));
            }
            Err(()) if source[span.clone()].starts_with("(*") => {
                if let Some(run) = bad.take() {
                    errors.push(bad_characters(file, source, run));
                }
                errors.push(
                    Diagnostic::error("E0110", "This comment is never closed")
                        .with_label(file, span.start..span.start + 2, "the comment starts here")
                        .with_hint("Close it with `*)`."),
                );
                // The rest of the file is inside the comment.
                break;
            }
            Err(()) => {
                bad = Some(match bad {
                    Some(run) if run.end == span.start => run.start..span.end,
                    Some(run) => {
                        errors.push(bad_characters(file, source, run));
                        span
                    }
                    None => span,
                });
            }
        }
    }
    if let Some(run) = bad {
        errors.push(bad_characters(file, source, run));
    }
    if errors.is_empty() {
        Ok(tokens)
    } else {
        Err(errors)
    }
}

fn bad_characters(file: &str, source: &str, span: Span) -> Diagnostic {
    let shown: String = source[span.clone()].chars().take(20).collect();
    let hint = if shown.starts_with(':') {
        "Hobbit has `::` (cons) and `:=` (assignment), but no type ascription with `:`; \
         annotate both sides with `|||_τ` instead."
    } else if shown.starts_with('&') {
        "The conjunction is `&&`."
    } else {
        "Hobbit's files hold identifiers, integers, keywords and the symbols \
         `_ ( ) { } [ ] = == :: := ! <> ; , < > <= >= ==> => + - * / && || | -> [] ||| |<| |>|`."
    };
    Diagnostic::error(
        "E0110",
        format!("I don't understand `{}`", shown.escape_debug()),
    )
    .with_label(file, span, "no token starts here")
    .with_hint(hint)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(source: &str) -> Vec<Token<'_>> {
        match lex("t", source) {
            Ok(tokens) => tokens.into_iter().map(|(t, _)| t).collect(),
            Err(errors) => panic!("{errors:?}"),
        }
    }

    #[test]
    fn longest_match_wins() {
        assert_eq!(
            kinds("||| || | |<| |>| [] [ ] == = ==> => <> <= :: :="),
            vec![
                Token::Equiv,
                Token::OrOr,
                Token::Pipe,
                Token::Approx,
                Token::ApproxInv,
                Token::Nil,
                Token::LBracket,
                Token::RBracket,
                Token::Equal,
                Token::Equal,
                Token::Implies,
                Token::Implies,
                Token::NotEqual,
                Token::LessEq,
                Token::ColonColon,
                Token::ColonEqual,
            ]
        );
    }

    #[test]
    fn keywords_identifiers_and_underscores() {
        assert_eq!(
            kinds("|||_int funny fun x' mod model _bot_ _ bo _sync_ _print_"),
            vec![
                Token::Equiv,
                Token::Underscore,
                Token::IntTy,
                Token::Ident("funny"),
                Token::Fun,
                Token::Ident("x'"),
                Token::Mod,
                Token::Ident("model"),
                Token::Bot,
                Token::Underscore,
                Token::Ident("bo"),
                Token::Sync,
                Token::Print,
            ]
        );
        // `_bo` is not `_bot_`: the lexer falls back to the longest token it matched.
        assert_eq!(kinds("_bo"), vec![Token::Underscore, Token::Ident("bo")]);
        assert_eq!(kinds("12ab"), vec![Token::Int("12"), Token::Ident("ab")]);
    }

    #[test]
    fn comments_are_layout_and_do_not_nest() {
        assert_eq!(
            kinds("a # b (* c\n(* d (* e *) f # g *)\n(*) h *) i"),
            vec![Token::Ident("a"), Token::Ident("f"), Token::Ident("i")]
        );
    }

    #[test]
    fn lexical_errors_are_located() {
        let Err(errors) = lex("t", "a @ b é $$ c (* open") else {
            panic!("lexed")
        };
        let found: Vec<(&str, Span)> = errors
            .iter()
            .map(|d| (d.code, d.labels[0].span.clone()))
            .collect();
        assert_eq!(
            found,
            vec![
                ("E0110", 2..3),
                ("E0110", 6..8),
                ("E0110", 9..11),
                ("E0110", 14..16)
            ]
        );
        let Err(errors) = lex("t", "x : int") else {
            panic!("lexed")
        };
        assert_eq!(errors[0].labels[0].span, 2..3);
    }
}
