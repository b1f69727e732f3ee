//! holi: a bounded model checker for higher-order, stateful libraries.
//!
//! The architecture overview lives here; see the module list for the pipeline.

pub mod build;
pub mod cli;
pub mod client;
pub mod concrete;
pub mod diagnostics;
pub mod frontend;
pub mod link;
pub mod ops;
pub mod replay;
pub mod report;
pub mod symbolic;
pub mod syntax;
pub mod trace;
pub mod types;
