//! Z3 contexts of their own, for searches whose models must not depend on what their
//! thread asked Z3 before.
//!
//! Z3 numbers its terms per context, in order of creation, and the order can steer the
//! models it gives: the same query may get other values after other queries. Every
//! task of [`super::tasks`] and every split of [`super::race`] runs in a context of its
//! own, so that its traces' concrete values are the same whichever thread runs it and
//! whatever that thread ran before.

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

/// A new context.
pub fn fresh() -> z3::Context {
    in_own(z3::Context::thread_local)
}

/// Runs `f` in a new context; `f` must return no solver object.
pub fn in_own<R>(f: impl FnOnce() -> R) -> R {
    let f = ThisThread(f);
    z3::with_z3_config(&z3::Config::new(), move || ThisThread(f.into_inner()())).0
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
