//! Whether and where a program uses ML-like references (issue 14, `lang/references.md`).
//!
//! The build marks the libraries that do ([`first_use`], `Library::uses_refs`), and the
//! interpreter resolves the named forms `!x` and `x := e` only in programs that mention
//! references ([`mentions`]), since no other program can have a local holding a location.

use crate::syntax::ast::{Decl, Expr, ExprKind, Function, Program, Span};
use crate::types::{self, Resolution};

/// Where `p` first uses references, in source order: a type that mentions `ref`, a `ref`
/// declaration, `ref e`, `!e` or `e := e'` through a value, or a named `!x` or `x := e`
/// that goes through a local.
pub fn first_use(p: &Program) -> Option<Span> {
    uses(p, Some(&types::resolve(p)))
}

/// Whether `p` mentions references, without running the checker: a named `!x` or `x :=
/// e` can only go through a local when the local's type mentions `ref`, which takes a
/// mention elsewhere (an annotation, `ref e`, a `ref` declaration, `lang/references.md`
/// §1.4). So this is `first_use(p).is_some()`, for less.
pub fn mentions(p: &Program) -> bool {
    uses(p, None).is_some()
}

/// The first use of references in `p`, counting named forms only when `resolution` says
/// which go through locals.
fn uses(p: &Program, resolution: Option<&Resolution<'_>>) -> Option<Span> {
    let mut uses = Uses {
        resolution,
        spans: Vec::new(),
    };
    for import in &p.imports {
        if import.ty.mentions_ref() {
            uses.spans.push(import.ty_span.clone());
        }
    }
    for decl in &p.decls {
        match decl {
            Decl::Method(m) => {
                if m.func.ret_ty.mentions_ref() {
                    uses.spans.push(m.name.span.clone());
                }
                uses.function(&m.func);
            }
            Decl::RefDecl { span, .. } => uses.spans.push(span.clone()),
            Decl::IntRef { .. } | Decl::FunRef { .. } => {}
        }
    }
    if let Some(main) = &p.main {
        uses.expr(&main.body);
    }
    uses.spans.into_iter().min_by_key(|s| (s.start, s.end))
}

struct Uses<'r, 'p> {
    resolution: Option<&'r Resolution<'p>>,
    spans: Vec<Span>,
}

impl Uses<'_, '_> {
    fn function(&mut self, f: &Function) {
        if f.param_ty.mentions_ref() {
            self.spans.push(f.param.span.clone());
        }
        self.expr(&f.body);
    }

    fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Deref(_) | ExprKind::Assign(..)
                if self.resolution.is_some_and(|r| r.is_local(e)) =>
            {
                self.spans.push(e.span.clone());
            }
            // A use already: nothing inside comes before it.
            ExprKind::Alloc(_) | ExprKind::Load(_) | ExprKind::Store(..) => {
                return self.spans.push(e.span.clone())
            }
            ExprKind::LetRec(_, f, body) => {
                if f.ret_ty.mentions_ref() {
                    self.spans.push(e.span.clone());
                }
                self.function(f);
                return self.expr(body);
            }
            ExprKind::Lambda(f) => {
                if f.ret_ty.mentions_ref() {
                    self.spans.push(e.span.clone());
                }
                return self.function(f);
            }
            _ => {}
        }
        for child in e.children() {
            self.expr(child);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parser::parse_source;

    fn first(source: &str) -> Option<String> {
        let (program, diagnostics) = parse_source("t", source);
        let program = program.unwrap_or_else(|| panic!("{source}: {diagnostics:?}"));
        let first = first_use(&program).map(|span| source[span].to_string());
        assert_eq!(mentions(&program), first.is_some(), "{source}");
        first
    }

    #[test]
    fn programs_without_references_use_none() {
        assert_eq!(
            first("int r := 0; fun f := m;\npublic m (x:int) :(int) = { r := !r + x; !f 1 };"),
            None
        );
        // A local named like a global: the global wins, as in HOLiK.
        assert_eq!(
            first("int x := 0;\npublic m (x:int) :(int) = { x := 1; !x };"),
            None
        );
    }

    #[test]
    fn every_kind_of_use_is_found_first_in_source_order() {
        assert_eq!(
            first("import g :(ref int -> unit)\npublic m (x:int) :(int) = { ref x; x };")
                .as_deref(),
            Some("ref int -> unit")
        );
        assert_eq!(
            first("public m (x:int) :(unit) = { !(f x) := 1 };").as_deref(),
            Some("!(f x) := 1")
        );
        assert_eq!(
            first("public m (x:int) :(ref int) = { g x };").as_deref(),
            Some("m")
        );
        assert_eq!(
            first("public m (c:ref int) :(int) = { 0 };").as_deref(),
            Some("c")
        );
        assert_eq!(
            first("public m (u:unit) :(int) = { let c = g () in !c };\nref int r := ref 0;")
                .as_deref(),
            Some("ref int r := ref 0;")
        );
        assert_eq!(
            first("public m (u:unit) :(int) = { (fun (x:int) :(ref int) -> g x) 1; 0 };")
                .as_deref(),
            Some("(fun (x:int) :(ref int) -> g x)")
        );
        assert_eq!(
            first("main = { let c = !!r in () };").as_deref(),
            Some("!!r")
        );
    }
}
