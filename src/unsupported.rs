//! What the concrete interpreter cannot run yet: references (issue 14, `lang/references.md`).
//!
//! The front end and the symbolic engine handle references; the interpreter learns them in
//! stage 2. Until then `holi run` refuses a program that uses them (E0209, at the first use)
//! instead of giving it a meaning it does not have. [`first_use`] also tells the build
//! which libraries use references.

use crate::diagnostics::Diagnostic;
use crate::syntax::ast::{Decl, Expr, ExprKind, Function, Program, Span};
use crate::types::{self, Resolution};

/// Where `p` first uses references, in source order: a type that mentions `ref`, a `ref`
/// declaration, `ref e`, `!e` or `e := e'` through a value, or a named `!x` or `x := e`
/// that goes through a local.
pub fn first_use(p: &Program) -> Option<Span> {
    let resolution = types::resolve(p);
    let mut uses = Uses {
        resolution: &resolution,
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

/// E0209 for the first use of references in `p` (the file `file`), if any.
pub fn references(file: &str, p: &Program) -> Option<Diagnostic> {
    let span = first_use(p)?;
    Some(
        Diagnostic::error("E0209", "references are not supported by `holi run` yet")
            .with_label(file, span, "a reference is used here")
            .with_hint(
                "holi reads, formats and checks references (`holi parse`, `holi fmt`, \
             `holi check`), but cannot run a program that uses them yet.",
            ),
    )
}

struct Uses<'r, 'p> {
    resolution: &'r Resolution<'p>,
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
            ExprKind::Var(_) | ExprKind::Int(_) | ExprKind::Unit => {}
            ExprKind::Deref(_) => {
                if self.resolution.is_local(e) {
                    self.spans.push(e.span.clone());
                }
            }
            ExprKind::Assign(_, a) => {
                if self.resolution.is_local(e) {
                    self.spans.push(e.span.clone());
                }
                self.expr(a);
            }
            ExprKind::Alloc(_) | ExprKind::Load(_) | ExprKind::Store(..) => {
                self.spans.push(e.span.clone())
            }
            ExprKind::Fst(a) | ExprKind::Snd(a) | ExprKind::Not(a) | ExprKind::Assert(a) => {
                self.expr(a)
            }
            ExprKind::App(a, b)
            | ExprKind::Pair(a, b)
            | ExprKind::Binary(_, a, b)
            | ExprKind::Seq(a, b)
            | ExprKind::Let(_, a, b) => {
                self.expr(a);
                self.expr(b);
            }
            ExprKind::If(a, b, c) => {
                self.expr(a);
                self.expr(b);
                self.expr(c);
            }
            ExprKind::LetRec(_, f, b) => {
                if f.ret_ty.mentions_ref() {
                    self.spans.push(e.span.clone());
                }
                self.function(f);
                self.expr(b);
            }
            ExprKind::Lambda(f) => {
                if f.ret_ty.mentions_ref() {
                    self.spans.push(e.span.clone());
                }
                self.function(f);
            }
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
        first_use(&program).map(|span| source[span].to_string())
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
