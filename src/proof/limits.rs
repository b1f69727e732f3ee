//! How far a proof checker goes before it gives up, and the words it gives up with:
//! shared by the checker of one library ([`super`]) and of a pair
//! ([`super::relational`]).

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

/// Why the checker stopped, when a limit stopped it (`Outcome::Unknown`).
pub const TIME_LIMIT: &str = "the time limit ran out";
pub const INTERRUPTED: &str = "interrupted";

/// How far the checker goes before it gives up.
#[derive(Clone, Debug)]
pub struct Budget {
    /// Evaluation steps over all methods.
    pub steps: u64,
    /// Nested calls of the library's own functions on one path.
    pub depth: u32,
    pub deadline: Option<Instant>,
    /// Set to stop the checker (Ctrl-C, the memory limit): within a fraction of a
    /// second it answers `Outcome::Unknown`, as it does at the deadline.
    pub interrupt: Option<Arc<AtomicBool>>,
}

impl Budget {
    /// More effort (`holi check --prove`).
    pub fn thorough() -> Budget {
        Budget {
            steps: 50_000_000,
            depth: 256,
            deadline: None,
            interrupt: None,
        }
    }
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            steps: 1_000_000,
            depth: 32,
            deadline: None,
            interrupt: None,
        }
    }
}
