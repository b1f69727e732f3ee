//! The part of a report every exact search agrees on, for the tests that compare
//! searches.

use holi::symbolic::CheckResult;
use std::collections::BTreeMap;

/// Failure site (kind and span) → fewest moves of a failing trace there.
pub fn sites(result: &CheckResult) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for c in &result.counterexamples {
        let len = c.trace.0.len();
        let e = out
            .entry(format!("{:?} {:?}", c.kind, c.span))
            .or_insert(len);
        *e = (*e).min(len);
    }
    out
}
