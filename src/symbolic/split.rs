//! Splitting a library into independent components, checked one at a time.
//!
//! HOLiK's benchmark concatenates small libraries into one file; the search then
//! explores the product of their states, although no component can see another's.
//! Methods and references form *components*: a method is joined to every reference it
//! reads or writes and every method it mentions (through nested lambdas too), and a
//! reference to the method it starts out holding. Code of different components shares
//! nothing but the client, so a failure site of component C depends on the others only
//! as *trampolines*: a call into another component can call back into the client, who
//! gets a fresh budget of l calls there (one frame deeper), and so reaches C's methods
//! where the bounds would not let it otherwise.
//!
//! For each component C that holds a failure site (an `assert` or a division):
//! * **Upper bound.** C alone, then C with one other component that can call back: a
//!   trace of part of the library is a trace of the whole (the client just never calls
//!   the rest), so these give real failing traces. C alone comes first: it is cheap.
//! * **Lower bound.** C with a stand-in, `holi_split_trampoline`, that calls the client
//!   back n times (n up to the most callbacks any frame of another component can make)
//!   and returns; the search plays it itself ([`super::stand_in::StandIn`]), so that the callbacks left
//!   are a budget the memo compares like l. Map each frame of another component in a
//!   failing trace of the whole library to one call of the stand-in with as many
//!   callbacks: the moves are as many, the frames no more, and C's own moves are
//!   untouched. So a site this search does not reach is unreachable in the whole
//!   library, and one it reaches takes at least as many moves there. When C alone
//!   reaches every site of its code, this search only has to show that no trace is
//!   shorter, so it is cut below the longest of C's traces; and like every search it
//!   stops extending traces once each site has one no longer than them (branch and
//!   bound, [`super::Techniques::bound`]). Before any search of C, the sites outside
//!   live code ([`Library::live_codes`]) and those that
//!   the over-approximation of [`super::overapprox::havoc`] proves unreachable (in C with any
//!   trampolines, since it lets the client reset C's references at every turn) are
//!   dropped; a part left with none is not searched.
//!
//!   A shortest trace of the lower-bound search that never calls the stand-in is one of
//!   C alone already.
//! * **Sealed parts** ([`super::components::Components::sealed`]: no reference, no
//!   import, no location, well typed, first-order public types; a method that is not
//!   well typed may return a function where it declares an integer) need no
//!   lower-bound search: C alone
//!   is exact. No client function reaches C's code and none of C's functions leaves its
//!   frames, so a site of C fails inside one client call of a method of C, which makes
//!   no move before it fails and runs on its argument alone. The same call made first,
//!   at top level, has the most frames any call has (a frame limit only cuts paths), so
//!   it fails there too: each site C reaches anywhere, C alone reaches with one call,
//!   the shortest trace to it, and a site C alone does not reach is unreachable. For
//!   the same reasons a sealed part makes no callbacks ([`super::components::callbacks_per_component`]),
//!   so it is no trampoline for the others.
//! * **Tighter lower bounds** where the two do not meet: the other parts whose frames
//!   can make more callbacks than a level t are kept real beside C, and the stand-in
//!   makes up to t (`refine`, in [`super::part_search`]).
//!
//! A library of one component has nothing to split; it settles only when the
//! over-approximation proves every site unreachable, with no search at all.
//!
//! Where every site's upper bound meets its lower bound, those traces are the shortest
//! per site. Where some do not, and each of those has a real trace, the whole library
//! is searched for traces shorter than the longest of them ([`finish`]): the others are
//! settled already. Otherwise (a part's search is incomplete, a site is reached only
//! with the stand-in, or a frame can call back more than `MAX_CALLBACKS` (16) times
//! within k frames) the whole library is searched as usual. The stand-in is a far more
//! willing trampoline than most real parts, so the split races the whole search
//! ([`super::race`]).
//!
//! Stuck paths ([`super::CheckResult::stuck`]): a part with no failure site is never
//! searched, and the stand-in's paths are not the library's, so the stuck places of a
//! split search are not those of the whole one. That matters only to a result without
//! failures, which would be safe where the whole search is stuck: for a library that
//! may get stuck ([`Library::may_get_stuck`]) such a result is not settled (unless
//! stuck paths do not change the verdict, [`Run::allow_stuck`](super::options::Run::allow_stuck)), and the whole
//! library is searched. An unsafe result stays unsafe whatever paths get stuck; it
//! lists the stuck places met in the parts' own searches (without the stand-in), which
//! are real.

use super::brief::Brief;
use super::explore::Explorer;
use super::options::Run;
use super::outcome::{verdict, CheckResult, Progress, Stats, StuckSite};
use super::part_search::{check_parts, improve, order_key, Partial};
use crate::library::Library;
use crate::trace::Counterexample;
use crate::trace::Site;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

/// The result of checking `lib` component by component; or,
/// when that is not conclusive, what it found, for [`finish`] or the whole search.
pub fn check(
    lib: &Library,
    brief: &Brief,
    progress: &mut dyn FnMut(&Progress),
) -> Result<CheckResult, Box<Unsettled>> {
    let start = Instant::now();
    let mut stats = Stats::default();
    let (parts, found, stuck) = check_parts(lib, brief, progress, &mut stats);
    stats.seconds = start.elapsed().as_secs_f64();
    // Without failures, only the whole search knows every place that gets stuck.
    let settles = |partial: &Partial| {
        partial.open.is_empty()
            && (!partial.settled.is_empty() || !lib.may_get_stuck || brief.run.allow_stuck)
    };
    match parts {
        Some(partial) if settles(&partial) => {
            let mut found = partial.settled;
            found.sort_by_cached_key(order_key);
            // The parts' own counts would count a helper part's failures twice (in its
            // own check and as a helper), so only the reported traces are counted.
            Ok(CheckResult {
                verdict: verdict(&found, &[], &stuck, &brief.run),
                failing_traces: found.len(),
                failing_traces_lower_bound: false,
                counterexamples: found,
                stats,
                inconclusive: Vec::new(),
                stuck,
                plan: brief.plan,
            })
        }
        // With no open site, only stuck places keep it unsettled, and only the whole
        // search knows them: [`finish`] has no traces to search below.
        partial => Err(Box::new(Unsettled {
            stats,
            partial: partial.filter(|p| !p.open.is_empty()),
            found,
            stuck,
        })),
    }
}

/// Adds to the incomplete result of the search that followed an unsettled split the
/// real traces the parts found ([`Unsettled::found`]) at sites it has no shorter trace
/// for: whatever the search did not get to, a client that fails there exists.
pub fn add_found(result: &mut CheckResult, found: Vec<Counterexample>, run: &Run) {
    if result.inconclusive.is_empty() {
        return;
    }
    let mut best: BTreeMap<Site, Counterexample> = BTreeMap::new();
    let before = result.counterexamples.len();
    improve(&mut best, result.counterexamples.drain(..), |_| true);
    improve(&mut best, found, |_| true);
    result.counterexamples = best.into_values().collect();
    result.counterexamples.sort_by_cached_key(order_key);
    result.failing_traces += result.counterexamples.len().saturating_sub(before);
    result.settle_verdict(run);
}

/// A part-by-part check that did not settle every site.
pub struct Unsettled {
    /// The counters of the work done.
    pub stats: Stats,
    /// What it found, if every part's searches were complete, every site that the
    /// lower bounds reach has a real trace, and some site is open ([`finish`]).
    pub partial: Option<Partial>,
    /// The shortest real failing trace per site that the parts' searches found,
    /// complete or not ([`add_found`]).
    pub found: Vec<Counterexample>,
    /// Where the parts' own searches got stuck.
    pub stuck: Vec<StuckSite>,
}

/// Completes a part-by-part check whose bounds did not meet at some sites: the whole
/// library searched for traces shorter than the longest upper bound of those sites,
/// with branch and bound on them alone. Below that limit the search finds each one's
/// minimal length if it is shorter than its upper bound; otherwise the upper bound's
/// trace is a shortest one. The settled sites keep the split's traces.
pub fn finish(
    lib: &Library,
    partial: Partial,
    brief: &Brief,
    progress: &mut dyn FnMut(&Progress),
) -> CheckResult {
    let longest = partial
        .open
        .iter()
        .map(|cex| cex.trace.0.len())
        .max()
        .unwrap_or(0);
    let targets: Vec<Site> = partial.open.iter().map(Counterexample::site).collect();
    let whole = Explorer::new(lib, brief)
        .with_depth_limit(longest.saturating_sub(1) as u32)
        .with_targets(&targets)
        .run(progress);
    let mut best: BTreeMap<Site, Counterexample> = BTreeMap::new();
    improve(&mut best, partial.open, |_| true);
    let open: BTreeSet<Site> = best.keys().cloned().collect();
    improve(&mut best, whole.counterexamples, |key| open.contains(key));
    let mut found = partial.settled;
    found.extend(best.into_values());
    found.sort_by_cached_key(order_key);
    CheckResult {
        verdict: verdict(&found, &whole.inconclusive, &whole.stuck, &brief.run),
        failing_traces: found.len(),
        failing_traces_lower_bound: false,
        counterexamples: found,
        stats: whole.stats,
        inconclusive: whole.inconclusive,
        stuck: whole.stuck,
        plan: brief.plan,
    }
}

#[cfg(test)]
mod tests {
    use super::super::components::tests::library;
    use super::super::options::{CheckOptions, Limits};
    use super::super::outcome::Verdict;
    use super::*;

    /// A split whose searches run out of budget still hands on the real traces its
    /// parts found, for the search that follows to report.
    #[test]
    fn an_unsettled_split_keeps_the_real_traces_found() {
        let (_, lib) = library(
            "
            int n := 0;
            public boom (u:unit) :(unit) = { assert(0) };
            public spin (f:unit -> unit) :(unit) = { n := !n + 1; f(); f(); assert(not(!n == 50)) };
        ",
        );
        let options = CheckOptions {
            limits: Limits {
                max_configurations: Some(2_000),
                ..Limits::default()
            },
            ..CheckOptions::bounded(4, 3)
        };
        let brief = Brief::new(&options, &lib);
        let Err(unsettled) = check(&lib, &brief, &mut |_| {}) else {
            panic!("the split settled within 2,000 configurations");
        };
        assert!(unsettled.partial.is_none());
        assert_eq!(unsettled.found.len(), 1);
        let mut result = CheckResult {
            verdict: Verdict::Inconclusive,
            counterexamples: Vec::new(),
            failing_traces: 0,
            failing_traces_lower_bound: false,
            stats: Stats::default(),
            inconclusive: vec!["search stopped".to_string()],
            stuck: Vec::new(),
            plan: brief.plan,
        };
        add_found(&mut result, unsettled.found, &brief.run);
        assert_eq!(result.verdict, Verdict::Unsafe);
        assert_eq!(result.failing_traces, 1);
        assert_eq!(result.counterexamples[0].trace.0.len(), 1);
        assert_eq!(result.inconclusive.len(), 1);
    }
}
