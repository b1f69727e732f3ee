//! holi: a bounded model checker for higher-order, stateful libraries.
//!
//! The architecture overview lives here; see the module list for the pipeline.

pub mod cli;
pub mod diagnostics;
pub mod ops;
pub mod syntax;
pub mod trace;
pub mod concrete;
pub mod client;
pub mod link;
