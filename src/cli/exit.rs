//! How a command ends: its [`Outcome`], whose values are the documented exit codes.

/// How a command ended. The numeric values are the documented exit codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing wrong: the input is well-formed, no failing trace exists within the bounds,
    /// or a program ran to completion.
    Ok = 0,
    /// A counterexample was found (`check`) or an assertion failed (`run`).
    Failure = 1,
    /// Bad input or usage: a lexical, syntax, type (under `--strict`) or bound error.
    BadInput = 2,
    /// The answer is not known: a limit, a timeout, an interruption, a solver `unknown`,
    /// or a counterexample that did not replay.
    Inconclusive = 3,
    /// No failing trace was found, but some explored paths got stuck (a call of an
    /// undeclared name, an ill-typed operation): what follows them is unexplored.
    Stuck = 4,
}
