//! Z3 contexts of their own, for searches whose models must not depend on what their
//! thread asked Z3 before.
//!
//! Z3 numbers its terms per context, in order of creation, and the order can steer the
//! models it gives: the same query may get other values after other queries. Every
//! task of [`super::tasks`] and every split of [`super::race`] runs in a context of its
//! own, so that its traces' concrete values are the same whichever thread runs it and
//! whatever that thread ran before.
//!
//! A new context costs 2–10 ms (Z3 sets up some 16 MB), and [`within`] makes the
//! thread's default context too when the thread has none, since the `z3` crate saves
//! it to restore it after: on a thread where nothing has used Z3, a context of one's
//! own cost two. So a thread whose first use of Z3 is [`fresh`] (the command line's,
//! the threads of tasks and of a race's sides) is marked at its start
//! ([`reserve_default`]), and its first [`fresh`] hands out the default context itself,
//! made there and then: a context nothing has used, like any new one. On a check of a
//! one-method library this cut the pages the process touched from 9,440 to 5,290 and
//! its time from 26 to 18 ms. Code that uses the default context directly clears the mark
//! ([`default_in_use`]), so that a later [`fresh`] makes a context of its own.

use std::cell::Cell;

thread_local! {
    /// Whether this thread's default context is not made yet and is kept for [`fresh`].
    static RESERVED: Cell<bool> = const { Cell::new(false) };
}

/// Keeps this thread's default context, not made yet, for the first [`fresh`]: to be
/// called first thing on a new thread, before anything on it can use Z3.
pub fn reserve_default() {
    RESERVED.with(|r| r.set(true));
}

/// Says that code is about to use this thread's default context directly: it is no
/// longer new, and a later [`fresh`] must not hand it out.
pub fn default_in_use() {
    RESERVED.with(|r| r.set(false));
}

/// Something that stays on the thread that made it, passed into and out of
/// [`z3::with_z3_context`], which asks for `Send` and `Sync` so that no solver object
/// moves to another context through it.
struct ThisThread<T>(T);

// SAFETY: a `ThisThread` is made and unwrapped on one thread within one call of the
// functions below: it never reaches another thread. What it carries into `within` is
// used only in the context it was made for (callers make a search in a context and use
// it only within that context), and what comes out holds no solver object of another
// context (callers return findings, outcomes, or the context itself).
unsafe impl<T> Send for ThisThread<T> {}
unsafe impl<T> Sync for ThisThread<T> {}

impl<T> ThisThread<T> {
    fn into_inner(self) -> T {
        self.0
    }
}

/// A new context: the thread's default one if it is kept for this ([`reserve_default`]).
pub fn fresh() -> z3::Context {
    if RESERVED.with(|r| r.replace(false)) {
        return z3::Context::thread_local();
    }
    z3::with_z3_config(&z3::Config::new(), || {
        ThisThread(z3::Context::thread_local())
    })
    .0
}

/// Runs `f` in a new context ([`fresh`]); `f` must return no solver object.
pub fn in_own<R>(f: impl FnOnce() -> R) -> R {
    within(&fresh(), f)
}

/// Runs `f` with `context` as this thread's context; `f` may use solver objects made
/// within `context` only, and must return none made in another.
pub fn within<R>(context: &z3::Context, f: impl FnOnce() -> R) -> R {
    let f = ThisThread(f);
    z3::with_z3_context(context, move || ThisThread(f.into_inner()())).0
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::ast::{Ast, Int};

    #[test]
    fn a_reserved_default_is_handed_out_once_unless_used_directly() {
        std::thread::spawn(|| {
            reserve_default();
            let first = fresh();
            let default = z3::Context::thread_local();
            assert_eq!(first.get_z3_context(), default.get_z3_context());
            let second = fresh();
            assert_ne!(second.get_z3_context(), default.get_z3_context());
        })
        .join()
        .expect("the first thread");
        std::thread::spawn(|| {
            reserve_default();
            default_in_use();
            let own = fresh();
            assert_ne!(
                own.get_z3_context(),
                z3::Context::thread_local().get_z3_context()
            );
        })
        .join()
        .expect("the second thread");
    }

    #[test]
    fn a_fresh_context_is_not_the_threads_and_within_uses_it() {
        let own = fresh();
        let mine = z3::Context::thread_local();
        assert_ne!(own.get_z3_context(), mine.get_z3_context());
        let inside = within(&own, || z3::Context::thread_local().get_z3_context());
        assert_eq!(inside, own.get_z3_context());
        // Back on the thread's own context afterwards.
        assert_eq!(
            z3::Context::thread_local().get_z3_context(),
            mine.get_z3_context()
        );
        let sum = within(&own, || {
            (Int::from_i64(2) + Int::from_i64(3)).simplify().as_i64()
        });
        assert_eq!(sum, Some(5));
    }
}
