//! The lexer: HOLiK's tokens (SYNTAX-NOTES §1), produced by logos.
//!
//! Layout is spaces, tabs, newlines and carriage returns, `// …` line comments and
//! `/* … */` block comments (not nested, as in K's default layout). The sign of an integer
//! literal belongs to the literal and the longest match wins, so `-1` is one token and
//! `x -1` is an application. `()` is one token: `( )` is not unit, and so is `[]`.
//! `list` is a name everywhere but after a type (`int list`): HOLiK's files use it as one.

use crate::diagnostics::Diagnostic;
use crate::syntax::ast::Span;
use logos::Logos;
use std::fmt;

#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip(r"//[^\n]*", allow_greedy = true))]
#[logos(skip(r"/\*", block_comment))]
pub enum Token<'src> {
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*", |lex| lex.slice(), priority = 1)]
    Ident(&'src str),
    #[regex(r"[+-]?[0-9]+", |lex| lex.slice())]
    Int(&'src str),

    #[token("import")]
    Import,
    #[token("public")]
    Public,
    #[token("private")]
    Private,
    #[token("fun")]
    Fun,
    #[token("int")]
    IntTy,
    #[token("unit")]
    UnitTy,
    #[token("bool")]
    BoolTy,
    #[token("true")]
    True,
    #[token("false")]
    False,
    #[token("mod")]
    Mod,
    /// Divergence (Hobbit's `_bot_`): the evaluation never ends.
    #[token("_bot_")]
    Bot,
    #[token("assert")]
    Assert,
    #[token("fst")]
    Fst,
    #[token("snd")]
    Snd,
    #[token("not")]
    Not,
    #[token("if")]
    If,
    #[token("then")]
    Then,
    #[token("else")]
    Else,
    #[token("let")]
    Let,
    #[token("letrec")]
    LetRec,
    #[token("in")]
    In,
    #[token("ref")]
    Ref,
    /// Reserved for HOLiK's internal results; never valid in a source.
    #[token("fail")]
    Fail,
    /// Reserved for HOLiK's internal results; never valid in a source.
    #[token("nil")]
    Nil,
    #[token("set-bounds")]
    SetBounds,
    #[token("match")]
    Match,
    #[token("with")]
    With,
    #[token("List.hd")]
    ListHd,
    #[token("List.tl")]
    ListTl,
    #[token("List.isnil")]
    ListIsNil,
    /// The empty list; `[ ]` is not.
    #[token("[]")]
    EmptyList,
    #[token("::")]
    ColonColon,
    #[token("|")]
    Bar,

    #[token("()")]
    Unit,
    #[token(":=")]
    Assign,
    #[token("->")]
    Arrow,
    #[token("==")]
    EqEq,
    #[token("<=")]
    Le,
    #[token(">=")]
    Ge,
    #[token("&&")]
    AndAnd,
    #[token("||")]
    OrOr,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token(";")]
    Semi,
    #[token("=")]
    Eq,
    #[token(":")]
    Colon,
    #[token(",")]
    Comma,
    #[token("!")]
    Bang,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("<")]
    Lt,
    #[token(">")]
    Gt,
    #[token("#")]
    Hash,
}

/// Skips a block comment after its `/*`; an unclosed one is an error covering the rest.
fn block_comment<'src>(lex: &mut logos::Lexer<'src, Token<'src>>) -> Result<(), ()> {
    skip_past(lex, "*/").then_some(()).ok_or(())
}

/// Skips the input up to and including the first `close`, for a comment whose opening
/// was just read; without one, the rest of the input is skipped. Whether it closed.
/// Shared by HOLi's lexer and Hobbit's.
pub fn skip_past<'src, T>(lex: &mut logos::Lexer<'src, T>, close: &str) -> bool
where
    T: Logos<'src, Source = str>,
{
    let end = lex.remainder().find(close);
    lex.bump(end.map_or(lex.remainder().len(), |end| end + close.len()));
    end.is_some()
}

impl fmt::Display for Token<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match self {
            Token::Ident(s) | Token::Int(s) => s,
            Token::Import => "import",
            Token::Public => "public",
            Token::Private => "private",
            Token::Fun => "fun",
            Token::IntTy => "int",
            Token::UnitTy => "unit",
            Token::BoolTy => "bool",
            Token::True => "true",
            Token::False => "false",
            Token::Mod => "mod",
            Token::Bot => "_bot_",
            Token::Assert => "assert",
            Token::Fst => "fst",
            Token::Snd => "snd",
            Token::Not => "not",
            Token::If => "if",
            Token::Then => "then",
            Token::Else => "else",
            Token::Let => "let",
            Token::LetRec => "letrec",
            Token::In => "in",
            Token::Ref => "ref",
            Token::Fail => "fail",
            Token::Nil => "nil",
            Token::SetBounds => "set-bounds",
            Token::Match => "match",
            Token::With => "with",
            Token::ListHd => "List.hd",
            Token::ListTl => "List.tl",
            Token::ListIsNil => "List.isnil",
            Token::EmptyList => "[]",
            Token::ColonColon => "::",
            Token::Bar => "|",
            Token::Unit => "()",
            Token::Assign => ":=",
            Token::Arrow => "->",
            Token::EqEq => "==",
            Token::Le => "<=",
            Token::Ge => ">=",
            Token::AndAnd => "&&",
            Token::OrOr => "||",
            Token::LBrace => "{",
            Token::RBrace => "}",
            Token::LParen => "(",
            Token::RParen => ")",
            Token::Semi => ";",
            Token::Eq => "=",
            Token::Colon => ":",
            Token::Comma => ",",
            Token::Bang => "!",
            Token::Star => "*",
            Token::Slash => "/",
            Token::Plus => "+",
            Token::Minus => "-",
            Token::Lt => "<",
            Token::Gt => ">",
            Token::Hash => "#",
        };
        f.write_str(text)
    }
}

/// The reserved words: they can never be identifiers (SYNTAX-NOTES §1).
pub const KEYWORDS: &[&str] = &[
    "import", "public", "private", "fun", "int", "unit", "assert", "fst", "snd", "not", "if",
    "then", "else", "let", "letrec", "in", "ref", "fail", "nil", "bool", "true", "false", "mod",
    "_bot_", "match", "with",
];

/// True when `name` can be written as an identifier.
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !KEYWORDS.contains(&name)
}

/// Splits `source` into tokens with their byte spans. Characters that start no token are
/// reported (one diagnostic per run of bad characters); the tokens around them are kept so
/// that the parser can still report what it finds.
pub fn lex<'src>(file: &str, source: &'src str) -> (Vec<(Token<'src>, Span)>, Vec<Diagnostic>) {
    let mut tokens = Vec::new();
    let mut errors: Vec<Diagnostic> = Vec::new();
    let mut bad: Option<Span> = None;
    let mut lexer = Token::lexer(source);
    while let Some(result) = lexer.next() {
        let span = lexer.span();
        match result {
            Ok(token) => {
                if let Some(run) = bad.take() {
                    errors.push(bad_characters(file, source, run));
                }
                tokens.push((token, span));
            }
            Err(()) => {
                if source[span.clone()].starts_with("/*") {
                    if let Some(run) = bad.take() {
                        errors.push(bad_characters(file, source, run));
                    }
                    errors.push(
                        Diagnostic::error("E0002", "This comment is never closed")
                            .with_label(file, span.start..span.start + 2, "the comment starts here")
                            .with_hint("Close it with `*/`; block comments do not nest."),
                    );
                    // Everything after an unclosed comment is part of it.
                    break;
                }
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
    (tokens, errors)
}

/// A comment as written, `// …` (without its newline) or `/* … */`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comment {
    pub span: Span,
    /// Whether code stands before it on its line (`x := 1; // why`), possibly with other
    /// comments in between (newlines inside those do not count), rather than nothing but
    /// layout and comments.
    pub after_code: bool,
}

/// The comments of a source, in order, found in the layout between `tokens` (the tokens
/// [`lex`] returns for it). HOLi has no string literals, so `//` and `/*` in layout always
/// open a comment.
pub fn comments(source: &str, tokens: &[(Token<'_>, Span)]) -> Vec<Comment> {
    let mut found = Vec::new();
    let gaps = std::iter::once(0)
        .chain(tokens.iter().map(|(_, s)| s.end))
        .zip(tokens.iter().map(|(_, s)| s.start).chain([source.len()]));
    for (index, (start, end)) in gaps.enumerate() {
        let mut at = start;
        let mut after_code = index > 0;
        while at < end {
            let rest = &source[at..end];
            let length = if rest.starts_with("//") {
                rest.find('\n').unwrap_or(rest.len())
            } else if let Some(body) = rest.strip_prefix("/*") {
                body.find("*/").map_or(rest.len(), |close| close + 4)
            } else {
                if rest.starts_with('\n') {
                    after_code = false;
                }
                rest.chars().next().map_or(1, char::len_utf8)
            };
            if rest.starts_with("//") || rest.starts_with("/*") {
                found.push(Comment {
                    span: at..at + length,
                    after_code,
                });
            }
            at += length;
        }
    }
    found
}

fn bad_characters(file: &str, source: &str, span: Span) -> Diagnostic {
    let text = &source[span.clone()];
    let shown: String = text.chars().take(20).collect();
    let (title, hint) = if text.starts_with('*') && text.contains('/') {
        (
            "This `*/` closes no comment".to_string(),
            "Remove it, or open the comment with `/*`.".to_string(),
        )
    } else if text.starts_with('&') || text.starts_with('|') {
        (
            format!("`{shown}` is not an operator"),
            "The logical operators are `&&` and `||`.".to_string(),
        )
    } else {
        (
            format!("I don't understand `{}`", shown.escape_debug()),
            "HOLi uses identifiers, integer literals and the operators \
             `:= -> == <= >= && || { } ( ) ; = : , ! * / + - < > #`."
                .to_string(),
        )
    };
    Diagnostic::error("E0001", title)
        .with_label(file, span, "unexpected characters")
        .with_hint(hint)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(source: &str) -> Vec<Token<'_>> {
        let (tokens, errors) = lex("t", source);
        assert!(errors.is_empty(), "{errors:?}");
        tokens.into_iter().map(|(t, _)| t).collect()
    }

    #[test]
    fn signed_literals_are_one_token() {
        assert_eq!(kinds("x -1"), vec![Token::Ident("x"), Token::Int("-1")]);
        assert_eq!(
            kinds("x - 1"),
            vec![Token::Ident("x"), Token::Minus, Token::Int("1")]
        );
        assert_eq!(
            kinds("!c+x"),
            vec![
                Token::Bang,
                Token::Ident("c"),
                Token::Plus,
                Token::Ident("x")
            ]
        );
    }

    #[test]
    fn unit_is_one_token_and_keywords_are_reserved() {
        assert_eq!(kinds("f()"), vec![Token::Ident("f"), Token::Unit]);
        assert_eq!(kinds("( )"), vec![Token::LParen, Token::RParen]);
        assert_eq!(
            kinds("letrec lettuce"),
            vec![Token::LetRec, Token::Ident("lettuce")]
        );
        assert_eq!(
            kinds("ref refs !r"),
            vec![
                Token::Ref,
                Token::Ident("refs"),
                Token::Bang,
                Token::Ident("r")
            ]
        );
        assert_eq!(kinds("# set-bounds 2 1 #")[1], Token::SetBounds);
    }

    #[test]
    fn comments_are_layout() {
        assert_eq!(
            kinds("a // b\n/* c * / **/ d // end"),
            vec![Token::Ident("a"), Token::Ident("d")]
        );
    }

    #[test]
    fn comments_are_found_between_tokens() {
        let source = "// head\nint r := 0; /* a */ // b\n/* c\n */ x /**/";
        let (tokens, _) = lex("t", source);
        let found: Vec<(&str, bool)> = comments(source, &tokens)
            .into_iter()
            .map(|c| (&source[c.span], c.after_code))
            .collect();
        assert_eq!(
            found,
            vec![
                ("// head", false),
                ("/* a */", true),
                ("// b", true),
                ("/* c\n */", false),
                ("/**/", true)
            ]
        );
    }

    #[test]
    fn bad_characters_and_open_comments_are_reported() {
        let (_, errors) = lex("t", "a @@ b $ /* never");
        let codes: Vec<_> = errors.iter().map(|d| d.code).collect();
        assert_eq!(codes, vec!["E0001", "E0001", "E0002"]);
        assert_eq!(errors[0].labels[0].span, 2..4);
    }
}
