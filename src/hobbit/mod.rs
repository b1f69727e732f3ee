//! Hobbit's input files (`.bils`): two expressions of an ML-like language, related by
//! contextual equivalence, `e1 ||| e2` or `e1 |||_τ e2` (`τ` the type of both sides).
//!
//! Hobbit (Koutavas, Lin, Tzevelekos; `LaifsV1/Hobbit`) reads them with `lexer.mll`,
//! `parser.mly` and `typing.ml`; this module reads them the same way: [`lexer`] (E0110),
//! [`parser`] (E0111, and E0005 for nesting deeper than holi's limit) into [`ast`], then
//! [`infer`] (E0112) for the type of the two sides and of every binder; [`translate`]
//! makes each side a HOLi library, which `holi equiv` compares.
//!
//! Parsing and inference recurse to the depth of the file's nesting, at most
//! [`MAX_NESTING`](crate::syntax::parser::MAX_NESTING) levels; like holi's own front end,
//! run them on [`crate::frontend::with_large_stack`] to accept the deepest files.

pub mod ast;
pub mod infer;
pub mod lexer;
pub mod parser;
pub mod translate;

use crate::diagnostics::Diagnostic;

/// Lexes and parses one `.bils` file, `name` being how diagnostics refer to it: every
/// lexical error, or the first syntax error.
pub fn parse(name: &str, source: &str) -> Result<ast::Pair, Vec<Diagnostic>> {
    let tokens = lexer::lex(name, source)?;
    parser::parse_tokens(name, source, &tokens).map_err(|error| vec![error])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::with_large_stack;
    use crate::syntax::parser::MAX_NESTING;
    use std::path::{Path, PathBuf};

    fn bils_files(dir: &Path, found: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                bils_files(&path, found);
            } else if path.extension().is_some_and(|e| e == "bils") {
                found.push(path);
            }
        }
    }

    /// A file as deep as the parser allows is parsed, typed and dropped on the large stack
    /// the front end runs on.
    #[test]
    fn deep_files_are_typed_on_a_large_stack() {
        let n = MAX_NESTING - 10;
        let source = format!("{}1{} ||| 0", "1 + (".repeat(n), ")".repeat(n));
        let outcome = with_large_stack(move || {
            let pair = parse("deep", &source)?;
            infer::infer(&pair).map(|typed| typed.ty)
        });
        assert_eq!(outcome, Ok(infer::Ty::Int));
    }

    /// Every file of Hobbit's benchmark parses and type-checks, but the two that Hobbit
    /// itself rejects, which fail as they should.
    #[test]
    fn hobbit_benchmark_parses_and_type_checks() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/hobbit-bench");
        // The benchmark lives beside the crate, not in it: without it there is nothing to do.
        if !root.is_dir() {
            return;
        }
        let mut files = Vec::new();
        bils_files(&root, &mut files);
        files.sort();
        assert!(!files.is_empty(), "no .bils file under {}", root.display());
        let mut failures = Vec::new();
        for path in &files {
            let name = path
                .strip_prefix(&root)
                .unwrap_or(path)
                .display()
                .to_string();
            let source = std::fs::read_to_string(path).unwrap_or_default();
            let outcome = parse(&name, &source).and_then(|pair| infer::infer(&pair));
            let codes: Vec<(&str, std::ops::Range<usize>)> = match &outcome {
                Ok(_) => Vec::new(),
                Err(diagnostics) => diagnostics
                    .iter()
                    .map(|d| (d.code, d.labels[0].span.clone()))
                    .collect(),
            };
            let expected: &[(&str, std::ops::Range<usize>)] = match name.as_str() {
                // `this shouldn't parse` is one expression (an application) without `|||`.
                "misc/this_should_not_parse.bils" => &[("E0111", 21..21)],
                // `fst (1,2,3)`: `fst` takes pairs.
                "misc/fst_snd_type_error.bils" => &[("E0112", 4..11)],
                _ => &[],
            };
            if codes != expected {
                failures.push(format!("{name}: {outcome:?}"));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}
