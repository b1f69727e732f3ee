//! The over-approximation of every client (`--no-havoc` turns it off): failure sites it
//! never reaches, the library never reaches, so branch and bound and the split need
//! not wait for traces to them.
//!
//! [`havoc`] is the model and its argument: at client turns the integer references
//! take fresh values within candidate invariants; [`turn`] makes such a turn in a
//! configuration of the search; [`houdini`] searches the model, dropping the candidate
//! invariants a turn refutes, to the set that holds.

pub mod havoc;
pub mod houdini;
pub mod turn;
