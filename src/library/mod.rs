//! The library stage (paper Figure 2, bottom): a parsed library built into its method
//! repository R, store S, public names P and abstract names A, with every body compiled
//! to the engine's IR ([`ir`]). The engine, the proof checker and the reports read a
//! [`Library`] and never the AST: a check builds it once ([`build()`]), and the split
//! makes the libraries of its parts from it directly ([`Library::restrict`]).
//!
//! Derived analyses (live code, failure sites, function values) are functions of the
//! library, so a restricted library answers them as a rebuilt one would.

mod build;
pub mod built;
pub mod ir;
mod restrict;

pub use build::build;
pub use built::{Import, Initial, InitialCell, Library, Method};
pub use restrict::StandInNames;
