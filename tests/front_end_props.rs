//! Properties of the front end: printing and parsing are inverse on generated syntax trees,
//! formatting keeps every comment and is idempotent, and no input (token soup or raw bytes)
//! makes the front end panic.
//!
//! Case counts come from the environment: `HOLI_ROUNDTRIP_CASES` (default 10 000, also for
//! the formatting property) and `HOLI_FUZZ_CASES` (default 5 000 for each of the fuzz tests).

use holi::frontend::{load_bytes, load_str};
use holi::syntax::ast::*;
use holi::syntax::lexer::{comments, lex, Token};
use holi::syntax::parser::parse_source;
use holi::syntax::printer::{format_source, print_program};
use num_bigint::BigInt;
use proptest::prelude::*;

fn cases(variable: &str, default: u32) -> u32 {
    std::env::var(variable)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn config(variable: &str, default: u32) -> ProptestConfig {
    ProptestConfig {
        cases: cases(variable, default),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn ident() -> impl Strategy<Value = Ident> {
    prop::sample::select(vec![
        "x", "y", "f", "r", "main", "m_1", "_a", "lettuce", "iff", "notx",
    ])
    .prop_map(|name| Ident {
        name: name.to_string(),
        span: 0..0,
    })
}

fn ty() -> impl Strategy<Value = Type> {
    prop_oneof![Just(Type::Int), Just(Type::Unit)].prop_recursive(4, 16, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Type::pair(a, b)),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Type::arrow(a, b)),
            inner.clone().prop_map(Type::reference),
            inner.prop_map(Type::list),
        ]
    })
}

fn int() -> impl Strategy<Value = BigInt> {
    prop_oneof![
        (-3i64..20).prop_map(BigInt::from),
        any::<i128>().prop_map(BigInt::from),
        "[1-9][0-9]{20,40}".prop_map(|s| s.parse::<BigInt>().unwrap_or_default()),
    ]
}

fn e(kind: ExprKind) -> Expr {
    Expr::new(kind, 0..0)
}

fn bx(x: Expr) -> Box<Expr> {
    Box::new(x)
}

fn binop() -> impl Strategy<Value = BinOp> {
    prop::sample::select(BinOp::ALL.to_vec())
}

fn function(body: impl Strategy<Value = Expr>) -> impl Strategy<Value = Function> {
    (ident(), ty(), ty(), body).prop_map(|(param, param_ty, ret_ty, body)| Function {
        param,
        param_ty,
        ret_ty,
        body: bx(body),
    })
}

/// `!e` as the parser builds it: the named form for a name (`!(x)` is `!x`).
fn load(operand: Expr) -> Expr {
    match operand.kind {
        ExprKind::Var(name) => e(ExprKind::Deref(Ident { name, span: 0..0 })),
        kind => e(ExprKind::Load(bx(e(kind)))),
    }
}

/// `target := value` as the parser builds it: the named form for a name, and never a
/// target that cannot give a location (those are read through first).
fn store(target: Expr, value: Expr) -> Expr {
    if let ExprKind::Var(name) = target.kind {
        return e(ExprKind::Assign(Ident { name, span: 0..0 }, bx(value)));
    }
    let target = if target.never_a_reference() {
        load(target)
    } else {
        target
    };
    e(ExprKind::Store(bx(target), bx(value)))
}

fn expr() -> impl Strategy<Value = Expr> {
    let leaf = prop_oneof![
        ident().prop_map(|x| e(ExprKind::Var(x.name))),
        int().prop_map(|n| e(ExprKind::Int(n))),
        Just(e(ExprKind::Unit)),
        Just(e(ExprKind::Diverge)),
        Just(e(ExprKind::Nil)),
        ident().prop_map(|r| e(ExprKind::Deref(r))),
    ];
    leaf.prop_recursive(8, 64, 3, |inner| {
        let boxed = inner.clone().prop_map(bx);
        prop_oneof![
            (ident(), boxed.clone()).prop_map(|(r, v)| e(ExprKind::Assign(r, v))),
            (boxed.clone(), boxed.clone()).prop_map(|(a, b)| e(ExprKind::App(a, b))),
            (boxed.clone(), boxed.clone()).prop_map(|(a, b)| e(ExprKind::Pair(a, b))),
            boxed.clone().prop_map(|a| e(ExprKind::Fst(a))),
            boxed.clone().prop_map(|a| e(ExprKind::Snd(a))),
            boxed.clone().prop_map(|a| e(ExprKind::Not(a))),
            boxed.clone().prop_map(|a| e(ExprKind::Assert(a))),
            boxed.clone().prop_map(|a| e(ExprKind::Alloc(a))),
            (boxed.clone(), boxed.clone()).prop_map(|(a, b)| e(ExprKind::Cons(a, b))),
            (
                prop::sample::select(vec![ListOp::Hd, ListOp::Tl, ListOp::IsNil]),
                boxed.clone()
            )
                .prop_map(|(op, a)| e(ExprKind::ListOp(op, a))),
            (
                boxed.clone(),
                boxed.clone(),
                ident(),
                ident(),
                boxed.clone()
            )
                .prop_map(|(scrutinee, nil, head, tail, cons)| e(ExprKind::Match {
                    scrutinee,
                    nil,
                    head,
                    tail,
                    cons
                })),
            inner.clone().prop_map(load),
            (inner.clone(), inner.clone()).prop_map(|(t, v)| store(t, v)),
            (binop(), boxed.clone(), boxed.clone())
                .prop_map(|(op, a, b)| e(ExprKind::Binary(op, a, b))),
            (boxed.clone(), boxed.clone()).prop_map(|(a, b)| e(ExprKind::Seq(a, b))),
            (boxed.clone(), boxed.clone(), boxed.clone())
                .prop_map(|(c, t, f)| e(ExprKind::If(c, t, f))),
            (ident(), boxed.clone(), boxed.clone()).prop_map(|(x, v, b)| e(ExprKind::Let(x, v, b))),
            (ident(), function(inner.clone()), boxed)
                .prop_map(|(f, func, b)| e(ExprKind::LetRec(f, func, b))),
            function(inner).prop_map(|func| e(ExprKind::Lambda(func))),
        ]
    })
}

/// The value of a `ref` declaration, under its `ref`.
fn static_value() -> impl Strategy<Value = Static> {
    let leaf = prop_oneof![
        int().prop_map(Static::Int),
        Just(Static::Unit),
        Just(Static::Nil),
        ident().prop_map(Static::Name),
    ];
    leaf.prop_recursive(3, 8, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(|s| Static::Ref(Box::new(s))),
            (inner.clone(), inner).prop_map(|(a, b)| Static::Pair(Box::new(a), Box::new(b))),
        ]
    })
}

fn decl() -> impl Strategy<Value = Decl> {
    prop_oneof![
        (
            prop_oneof![Just(Visibility::Public), Just(Visibility::Private)],
            ident(),
            function(expr())
        )
            .prop_map(|(visibility, name, func)| Decl::Method(MethodDecl {
                visibility,
                name,
                func,
                span: 0..0
            })),
        (ident(), int()).prop_map(|(name, init)| Decl::IntRef {
            name,
            init,
            span: 0..0
        }),
        (ident(), ident()).prop_map(|(name, target)| Decl::FunRef {
            name,
            target,
            span: 0..0
        }),
        (ident(), ty(), static_value()).prop_map(|(name, ty, init)| Decl::RefDecl {
            name,
            ty: Type::reference(ty),
            init: Static::Ref(Box::new(init)),
            init_span: 0..0,
            span: 0..0
        }),
    ]
}

fn program() -> impl Strategy<Value = Program> {
    (
        prop::option::of((any::<u32>(), any::<u32>())),
        prop::collection::vec((ident(), ty()), 0..3),
        prop::collection::vec(decl(), 1..4),
        prop::option::of(expr()),
    )
        .prop_map(|(bounds, imports, decls, main)| Program {
            bounds: bounds.map(|(k, l)| Bounds { k, l, span: 0..0 }),
            imports: imports
                .into_iter()
                .map(|(name, ty)| Import {
                    name,
                    ty,
                    ty_span: 0..0,
                    span: 0..0,
                })
                .collect(),
            decls,
            main: main.map(|body| Main { body, span: 0..0 }),
        })
}

proptest! {
    #![proptest_config(config("HOLI_ROUNDTRIP_CASES", 10_000))]

    /// parse(print(ast)) == ast, with no diagnostic at all (the printer never produces
    /// ambiguous mixes of operators).
    #[test]
    fn printing_then_parsing_gives_back_the_tree(p in program()) {
        let printed = print_program(&p);
        let (parsed, diagnostics) = parse_source("printed", &printed);
        prop_assert!(diagnostics.is_empty(), "{diagnostics:?}\n{printed}");
        let parsed = parsed.expect("no diagnostics means a program");
        prop_assert!(p.same_tree(&parsed), "{printed}");
    }
}

/// A comment to insert: where (a fraction of the gaps between tokens) and its form.
fn comment() -> impl Strategy<Value = (f64, &'static str)> {
    (
        0.0..1.0,
        prop::sample::select(vec!["// line", "/* block */", "/* two\n   lines */", "//"]),
    )
}

/// `text` with each comment inserted after a token (or at the start; with `boundaries`,
/// only at the start and after `;`, `{`, `then`, `else` and `in`), numbered so that every
/// comment is distinct; line comments are followed by a newline.
fn with_comments(text: &str, inserted: &[(f64, &str)], boundaries: bool) -> (String, Vec<String>) {
    let (tokens, _) = lex("t", text);
    let boundary = |t: &Token| {
        !boundaries
            || matches!(
                t,
                Token::Semi | Token::LBrace | Token::Then | Token::Else | Token::In
            )
    };
    let gaps: Vec<usize> = std::iter::once(0)
        .chain(
            tokens
                .iter()
                .filter(|(t, _)| boundary(t))
                .map(|(_, s)| s.end),
        )
        .collect();
    let mut at: Vec<(usize, String)> = inserted
        .iter()
        .enumerate()
        .map(|(i, (fraction, form))| {
            let gap = ((fraction * gaps.len() as f64) as usize).min(gaps.len() - 1);
            let numbered = form.replacen("//", &format!("// {i}"), 1);
            let numbered = numbered.replacen("/*", &format!("/* {i}"), 1);
            (gaps[gap], numbered)
        })
        .collect();
    at.sort_by_key(|(position, _)| *position);
    let mut out = String::new();
    let mut copied = 0;
    for (position, comment) in &at {
        out.push_str(&text[copied..*position]);
        copied = *position;
        out.push(' ');
        out.push_str(comment);
        out.push(if comment.starts_with("//") { '\n' } else { ' ' });
    }
    out.push_str(&text[copied..]);
    let texts = at.into_iter().map(|(_, c)| c).collect();
    (out, texts)
}

/// The texts of the comments in `source`, sorted.
fn comment_texts(source: &str) -> Vec<String> {
    let (tokens, _) = lex("t", source);
    let mut texts: Vec<String> = comments(source, &tokens)
        .into_iter()
        .map(|c| source[c.span].to_string())
        .collect();
    texts.sort();
    texts
}

/// Formats `source`, whose tree is `p` and whose comments are `expected`: the tree and the
/// comments are kept. Returns the formatted text and the text formatted again.
fn format_twice(
    p: &Program,
    source: &str,
    mut expected: Vec<String>,
) -> Result<(String, String), TestCaseError> {
    let (parsed, diagnostics) = parse_source("commented", source);
    let parsed = parsed.unwrap_or_else(|| panic!("{diagnostics:?}\n{source}"));
    let formatted = format_source(&parsed, source);
    let (again, diagnostics) = parse_source("formatted", &formatted);
    prop_assert!(
        diagnostics.is_empty(),
        "{diagnostics:?}\n{source}\n---\n{formatted}"
    );
    let again = again.expect("no diagnostics means a program");
    prop_assert!(p.same_tree(&again), "{source}\n---\n{formatted}");
    expected.sort();
    prop_assert_eq!(
        comment_texts(&formatted),
        expected,
        "{}\n---\n{}",
        source,
        formatted
    );
    let twice = format_source(&again, &formatted);
    Ok((formatted, twice))
}

proptest! {
    #![proptest_config(config("HOLI_ROUNDTRIP_CASES", 10_000))]

    /// Formatting a program commented where comments usually stand (before and after
    /// statements and declarations, after `then`, `else`, `in`) keeps its tree and every
    /// comment, and formatting the result changes nothing.
    #[test]
    fn formatting_keeps_comments_and_is_idempotent(
        p in program(),
        inserted in prop::collection::vec(comment(), 0..8),
    ) {
        let (source, expected) = with_comments(&print_program(&p), &inserted, true);
        let (formatted, twice) = format_twice(&p, &source, expected)?;
        prop_assert_eq!(&twice, &formatted, "{}\n---\n{}", source, formatted);
    }

    /// Comments between any two tokens are kept too, and formatting is idempotent there
    /// as well (a comment that stood inside a declaration's header or before a closing
    /// parenthesis moves once, to where it then stays).
    #[test]
    fn comments_anywhere_are_kept_and_formatting_is_idempotent(
        p in program(),
        inserted in prop::collection::vec(comment(), 0..8),
    ) {
        let (source, expected) = with_comments(&print_program(&p), &inserted, false);
        let (formatted, twice) = format_twice(&p, &source, expected)?;
        prop_assert_eq!(&twice, &formatted, "{}\n---\n{}", source, formatted);
    }
}

/// Pieces of HOLi text, valid and not, for token soup.
const VOCABULARY: &[&str] = &[
    "import",
    "public",
    "private",
    "fun",
    "int",
    "unit",
    "assert",
    "fst",
    "snd",
    "not",
    "if",
    "then",
    "else",
    "let",
    "letrec",
    "in",
    "ref",
    "fail",
    "nil",
    "set-bounds",
    "()",
    ":=",
    "->",
    "==",
    "<=",
    ">=",
    "&&",
    "||",
    "{",
    "}",
    "(",
    ")",
    ";",
    "=",
    ":",
    ",",
    "!",
    "*",
    "/",
    "+",
    "-",
    "<",
    ">",
    "#",
    "x",
    "f",
    "main",
    "r",
    "0",
    "-1",
    "+7",
    "99999999999999999999999",
    "//",
    "/*",
    "*/",
    "\n",
    "é",
    "@",
    "( )",
    "main =",
    "# set-bounds 2 1 #",
    "public m (x:int) :(int) = {",
    "};",
    "int r := 0;",
    "ref int c := ref 0;",
];

fn soup() -> impl Strategy<Value = String> {
    prop::collection::vec((prop::sample::select(VOCABULARY), any::<bool>()), 0..60).prop_map(
        |pieces| {
            pieces
                .into_iter()
                .map(|(piece, space)| {
                    if space {
                        format!("{piece} ")
                    } else {
                        piece.to_string()
                    }
                })
                .collect()
        },
    )
}

/// The front end must decide, never panic; a rejection carries an error, and whatever it
/// accepts prints back to the same tree.
fn front_end_decides(
    name: &str,
    outcome: Result<holi::frontend::Loaded, holi::frontend::Rejected>,
) -> Result<(), TestCaseError> {
    match outcome {
        Ok(loaded) => {
            let _ = loaded.render_warnings(false);
            let printed = print_program(&loaded.program);
            let (again, _) = parse_source(name, &printed);
            prop_assert!(
                again.is_some_and(|p| p.same_tree(&loaded.program)),
                "{printed}"
            );
        }
        Err(rejected) => {
            prop_assert!(rejected.diagnostics.iter().any(|d| d.is_error()));
            prop_assert!(!rejected.render(false).is_empty());
        }
    }
    Ok(())
}

/// The benchmark libraries' texts, read once; none (with a note) when `../shared` is absent.
fn corpus_texts() -> &'static [String] {
    static TEXTS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    TEXTS.get_or_init(read_corpus)
}

fn read_corpus() -> Vec<String> {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/holik-bench/programs");
    let mut texts: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .filter_map(|e| std::fs::read_to_string(e.path()).ok())
                .collect()
        })
        .unwrap_or_default();
    texts.sort();
    if texts.is_empty() {
        eprintln!("note: ../shared/holik-bench is absent; skipping the mutation fuzz test");
    }
    texts
}

/// An edit of a text: at a position (a fraction of its length), delete some bytes,
/// duplicate some, or insert a piece of vocabulary.
#[derive(Clone, Debug)]
enum Edit {
    Delete(f64, usize),
    Duplicate(f64, usize),
    Insert(f64, &'static str),
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    prop::collection::vec(
        prop_oneof![
            (0.0..1.0, 1usize..30).prop_map(|(at, n)| Edit::Delete(at, n)),
            (0.0..1.0, 1usize..60).prop_map(|(at, n)| Edit::Duplicate(at, n)),
            (0.0..1.0, prop::sample::select(VOCABULARY)).prop_map(|(at, t)| Edit::Insert(at, t)),
        ],
        1..4,
    )
}

fn apply(text: &str, edits: &[Edit]) -> Vec<u8> {
    let mut bytes = text.as_bytes().to_vec();
    for edit in edits {
        let at = |fraction: f64, len: usize| ((fraction * len as f64) as usize).min(len);
        match edit {
            Edit::Delete(f, n) => {
                let start = at(*f, bytes.len());
                let end = (start + n).min(bytes.len());
                bytes.drain(start..end);
            }
            Edit::Duplicate(f, n) => {
                let start = at(*f, bytes.len());
                let end = (start + n).min(bytes.len());
                let copy = bytes[start..end].to_vec();
                bytes.splice(end..end, copy);
            }
            Edit::Insert(f, piece) => {
                let start = at(*f, bytes.len());
                bytes.splice(start..start, piece.bytes());
            }
        }
    }
    bytes
}

proptest! {
    #![proptest_config(config("HOLI_FUZZ_CASES", 5_000))]

    /// Near-misses of real programs reach deep into the parser and the checker.
    #[test]
    fn mutated_benchmark_libraries_never_panic(index in any::<prop::sample::Index>(), edits in edits()) {
        let texts = corpus_texts();
        if texts.is_empty() {
            return Ok(());
        }
        let text = &texts[index.index(texts.len())];
        front_end_decides("mutant", load_bytes("mutant", apply(text, &edits), false))?;
    }

    #[test]
    fn token_soup_never_panics(text in soup()) {
        front_end_decides("soup", load_str("soup", &text, false))?;
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200), header in any::<bool>()) {
        let mut input = if header { b"# set-bounds 2 1 #\n".to_vec() } else { Vec::new() };
        input.extend(bytes);
        front_end_decides("bytes", load_bytes("bytes", input, false))?;
    }
}
