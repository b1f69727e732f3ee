//! What the editor shows over a place: over a name, what declares it and its type, and
//! after a check the moves of the counterexamples that name it, with their values; over
//! a failure site, what the check found there.

use super::checking::{site_word, Done, State};
use crate::calltree::{phrase, CallTree};
use crate::report::model_text;
use crate::syntax::ast::{Decl, Program, Visibility};
use std::fmt::Write as _;

/// The hover text at byte `at` of `text` (whose program is `program`), as Markdown;
/// `done` is the check of this very text, if any.
pub fn hover(program: &Program, text: &str, at: usize, done: Option<&Done>) -> Option<String> {
    name(program, text, at, done).or_else(|| site(at, done?))
}

fn name(program: &Program, text: &str, at: usize, done: Option<&Done>) -> Option<String> {
    let declared = super::names::definition(program, at)?;
    let name = text.get(declared.clone())?;
    let decl = program.decls.iter().find(|d| d.name().span == declared);
    let import = program.imports.iter().find(|i| i.name.span == declared);
    let mut out = match (decl, import) {
        (Some(Decl::Method(m)), _) => {
            let visibility = match m.visibility {
                Visibility::Public => "public method: the client may call it",
                Visibility::Private => "private method",
            };
            code(&format!("{name} : {}", m.func.ty()), visibility)
        }
        (Some(Decl::IntRef { .. }), _) => code(&format!("{name} : int"), "global reference"),
        (Some(Decl::RefDecl { ty, .. }), _) => code(&format!("{name} : {ty}"), "global reference"),
        (Some(Decl::FunRef { target, .. }), _) => code(
            &format!("{name} := {}", target.name),
            "global reference to a method",
        ),
        (None, Some(i)) => code(
            &format!("{name} : {}", i.ty),
            "import: a function of the client's, which the library may call",
        ),
        (None, None) => match crate::types::binder_types(program).get(&declared.start) {
            Some(ty) => code(&format!("{name} : {ty}"), "local"),
            None => code(name, "local, of a type not known (see the warnings)"),
        },
    };
    if decl.is_some_and(|d| matches!(d, Decl::Method(_))) || import.is_some() {
        if let Some(done) = done {
            out.push_str(&moves_naming(name, done));
        }
    }
    Some(out)
}

fn code(signature: &str, what: &str) -> String {
    format!("```holi\n{signature}\n```\n{what}\n")
}

/// The moves of the check's counterexamples that call or return from `method`, each
/// with its values.
fn moves_naming(method: &str, done: &Done) -> String {
    let mut out = String::new();
    let counterexamples = &done.checked.result.counterexamples;
    for (n, c) in counterexamples.iter().enumerate() {
        let moves: Vec<String> = (c.trace.0.iter().enumerate())
            .filter(|(_, m)| m.method == method)
            .map(|(i, _)| format!("move {}: {}", i + 1, phrase(&c.trace, &c.concrete, i)))
            .collect();
        if moves.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "\nIn counterexample {} of {} ({} moves, {}):",
            n + 1,
            counterexamples.len(),
            c.trace.0.len(),
            done.bounds_text()
        );
        for line in moves {
            let _ = writeln!(out, "- {line}");
        }
    }
    out
}

/// What the check found at the innermost failure site around `at`.
fn site(at: usize, done: &Done) -> Option<String> {
    let site = (done.sites.iter())
        .filter(|s| s.span.start <= at && at <= s.span.end)
        .min_by_key(|s| s.span.end - s.span.start)?;
    let what = site_word(site.kind);
    Some(match done.state(site) {
        State::Fails(_, c) => {
            let mut out = format!(
                "**{what} fails** after {} moves ({}):\n\n```\n{}\n```\n",
                c.trace.0.len(),
                done.bounds_text(),
                c.trace
            );
            if !c.model.is_empty() {
                let _ = writeln!(out, "with {}\n", model_text(&c.model));
            }
            let leaf = done.failure_place(c);
            let tree = CallTree::new(&c.trace).lines(&c.trace, &c.concrete, &leaf, true);
            let _ = writeln!(out, "```\n{}\n```", tree.join("\n"));
            out
        }
        State::Safe => format!(
            "**safe** within {}: no client makes {what} fail",
            done.bounds_text()
        ),
        State::Proved => format!("**proved**: no client makes {what} fail, for every k and l"),
        State::NotSettled(why) => format!("**not settled**: {why}"),
    })
}
