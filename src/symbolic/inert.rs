//! Inert references: references whose contents can never change what the library
//! does, so that the memo's key may leave them out ([`super::memo`]).
//!
//! A counter such as `a3 := !a3 + 1`, never read anywhere else, makes every client
//! turn after n calls a new configuration (a3 = 1, 2, 3, …) although the futures of all
//! of them are the same. A set `I` of references is *inert* when
//! 1. each one that is read anywhere starts out holding an integer, and
//! 2. each assignment to it stores an integer or gets stuck: its right side is a
//!    literal, an arithmetic, comparison or logical operation, a `not`, or a read of a
//!    reference of `I`;
//! 3. each read of a reference of `I` is an operand, through operators other than
//!    division, of the right side of an assignment to a reference of `I`.
//!
//! By 1 and 2 the references of `I` that are read always hold integers, and by 3 their
//! values flow only into one another, through total operators that neither branch nor
//! fail: no condition, assertion, call, returned or passed value, nor whether a step is
//! stuck or divides by zero, depends on them. (A reference never read, even one never
//! declared, is inert whatever it holds.) So two configurations that differ only in
//! what `I` holds take the same steps to the same failure sites, in the same number of
//! moves. The analysis computes the largest such set (a greatest fixpoint: start from
//! every reference that satisfies 1 and drop violators of 2 and 3 until none is left).

use crate::library::ir::{Expr, ExprKind, RefId};
use crate::library::{Initial, Library};
use crate::syntax::ast::BinOp;

/// The inert references of `lib`, by [`RefId`].
pub fn inert_refs(lib: &Library) -> Vec<bool> {
    let mut read = vec![false; lib.store.len()];
    for code in &lib.codes {
        mark_reads(&code.body, &mut read);
    }
    let mut inert: Vec<bool> = lib
        .store
        .iter()
        .zip(&read)
        .map(|(initial, &read)| !read || matches!(initial, Initial::Int(_)))
        .collect();
    loop {
        let mut changed = false;
        for code in &lib.codes {
            changed |= drop_violators(&code.body, None, &read, &mut inert);
        }
        if !changed {
            return inert;
        }
    }
}

/// Marks in `read` every reference `e` reads.
fn mark_reads(e: &Expr, read: &mut [bool]) {
    if let ExprKind::Deref(r) = &e.kind {
        if let Some(flag) = read.get_mut(*r as usize) {
            *flag = true;
        }
    }
    for child in e.children() {
        mark_reads(child, read);
    }
}

/// Clears the references of `inert` that `e` shows are not; `sink` is the reference
/// whose assignment `e` is an operand of, through non-dividing operators only. Says
/// whether it cleared any.
fn drop_violators(e: &Expr, sink: Option<RefId>, read: &[bool], inert: &mut [bool]) -> bool {
    let is_inert = |inert: &[bool], r: RefId| inert.get(r as usize).copied().unwrap_or(false);
    let clear = |inert: &mut [bool], r: RefId| match inert.get_mut(r as usize) {
        Some(flag) if *flag => {
            *flag = false;
            true
        }
        _ => false,
    };
    match &e.kind {
        ExprKind::Deref(r) => {
            let flows_into_inert = sink.is_some_and(|s| is_inert(inert, s));
            if !flows_into_inert {
                return clear(inert, *r);
            }
            false
        }
        ExprKind::Assign(r, rhs) => {
            let stores_integer = match &rhs.kind {
                ExprKind::Int(_) | ExprKind::Binary(..) | ExprKind::Not(_) => true,
                ExprKind::Deref(source) => is_inert(inert, *source),
                _ => false,
            };
            let is_read = read.get(*r as usize).copied().unwrap_or(true);
            let mut changed = !stores_integer && is_read && clear(inert, *r);
            changed |= drop_violators(rhs, Some(*r), read, inert);
            changed
        }
        ExprKind::Binary(op, a, b) => {
            let sink = sink.filter(|_| !matches!(op, BinOp::Div | BinOp::Mod));
            drop_violators(a, sink, read, inert) | drop_violators(b, sink, read, inert)
        }
        ExprKind::Not(a) => drop_violators(a, sink, read, inert),
        ExprKind::Local(_)
        | ExprKind::Global(_)
        | ExprKind::Int(_)
        | ExprKind::Unit
        | ExprKind::Diverge
        | ExprKind::Nil
        | ExprKind::LetRec(..)
        | ExprKind::Lambda(_) => false,
        // Cells are never left out of keys; a global read under `ref`, `!` or a
        // write through a location is an ordinary use (`lang/references.md` §4.3).
        ExprKind::App(a, b)
        | ExprKind::Pair(a, b)
        | ExprKind::Cons(a, b)
        | ExprKind::Seq(a, b)
        | ExprKind::Let(a, b)
        | ExprKind::Store(a, b) => {
            drop_violators(a, None, read, inert) | drop_violators(b, None, read, inert)
        }
        ExprKind::Fst(a)
        | ExprKind::Snd(a)
        | ExprKind::Assert(a)
        | ExprKind::Alloc(a, _)
        | ExprKind::Load(a) => drop_violators(a, None, read, inert),
        ExprKind::If(c, t, f) | ExprKind::Match(c, t, f) => {
            drop_violators(c, None, read, inert)
                | drop_violators(t, None, read, inert)
                | drop_violators(f, None, read, inert)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inert_names(src: &str) -> Vec<String> {
        let loaded = crate::frontend::load_str("t.holi", src, false)
            .unwrap_or_else(|r| panic!("{}", r.render(false)));
        let lib = crate::library::build(&loaded.program);
        let inert = inert_refs(&lib);
        let mut names: Vec<String> = lib
            .refs
            .iter()
            .zip(&inert)
            .filter(|(_, &i)| i)
            .map(|(name, _)| name.clone())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_counter_nobody_reads_is_inert() {
        let src = "import syscall :(int -> unit)
            int a := 0;
            public add (i:int) :(unit) = { a := !a + 1; syscall(i) };";
        assert_eq!(inert_names(src), ["a"]);
    }

    #[test]
    fn a_reference_read_by_a_condition_an_assertion_or_a_let_is_not() {
        let src = "int c := 0; int d := 0; int e := 0;
            public m (i:int) :(unit) = {
              c := !c + 1; d := !d + 1; e := !e + 1;
              if !c then () else ();
              assert(!d);
              (let x = !e in ())
            };";
        assert!(inert_names(src).is_empty());
    }

    #[test]
    fn inertness_flows_through_inert_references_only() {
        let src = "int a := 0; int b := 0; int c := 0; int d := 0;
            public m (i:int) :(unit) = {
              a := !a + i; b := !a * 2; c := !c - 1; d := !c; assert(!d == 0)
            };";
        assert_eq!(inert_names(src), ["a", "b"]);
    }

    #[test]
    fn a_reference_read_that_may_hold_a_non_integer_or_start_unset_is_not() {
        let src = "int a := 0; int b := 0;
            public m (i:int) :(unit) = { a := i; b := !b + !a; never := !never + 1 };";
        assert_eq!(inert_names(src), ["b"]);
    }

    #[test]
    fn a_reference_never_read_is_inert_whatever_it_holds() {
        let src = "int a := 0;
            public m (f:unit -> unit) :(unit) = { a := f; balance := !a - 1 };";
        assert_eq!(inert_names(src), ["balance"]);
    }

    #[test]
    fn a_divisor_can_fail_so_it_is_not_inert() {
        let src = "int a := 1; int b := 0; int n := 5;
            public m (i:int) :(unit) = { a := !a + 1; b := !n / !a; n := !n + 1 };";
        assert_eq!(inert_names(src), ["b"]);
    }
}
