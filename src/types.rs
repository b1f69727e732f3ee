//! The checker (work in progress).
use crate::diagnostics::Diagnostic;
use crate::syntax::ast::Program;
pub fn check_program(_name: &str, _p: &Program) -> Vec<Diagnostic> {
    Vec::new()
}
