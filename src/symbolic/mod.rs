//! The symbolic engine: bounded exploration of the symbolic trace semantics
//! (paper Section 3, Figure 4) of a library against every possible client.
//!
//! Pipeline: [`crate::library`] turns the AST into a repository and compiled code
//! ([`crate::library::ir`]); [`CheckOptions`] ([`options`], in four parts) become the
//! [`Brief`] of a search ([`brief`]: the bounds, the [`plan`] the techniques leave, the
//! [`budget::Meter`] of the limits, how it runs), which strategies narrow and never
//! change the options; [`explore`]
//! searches the configurations ([`config`]) of a [`game`] depth first (the library's
//! own, or another made from it), taking each one [`step`]: running
//! internal steps with [`machine`], making boundary moves with [`moves`] (leaving out
//! client calls no shortest failing trace makes, [`relevance`]) and deciding
//! symbolic branches with [`branch`] (without Z3 where it can; `holi equiv` also
//! decides small questions exactly with [`presolve`]) and [`solver`] (Z3,
//! incremental, [`branch::Decider`]), pruning client turns subsumed by explored ones
//! with [`subsume`] (over [`memo`]; regions of values by [`difference`], [`linear`] or
//! Z3), and keeping what it finds in [`findings`] (failures, stuck paths, the bound of branch
//! and bound) within its [`budget`]. Strategies sit on top of that search, never
//! beneath it: [`deepening`] (`--first`) alternates iterative deepening with the exhaustive
//! search, [`overapprox`] searches the over-approximation of every client (a game
//! whose client turns ask the search only which sides of a condition hold, [`branch::Sides`];
//! candidate invariants from the library's asserts by [`asserted`]), [`split`] checks
//! independent parts apart (the [`components`] of a library, searched by
//! [`part_search`] in a game with a [`stand_in`] for the parts left out), [`race`]
//! runs it beside the whole search, and [`tasks`] cuts the whole search into tasks on
//! several threads with the same report for any number of them (memo entries and
//! regions shared through [`memo::Shared`]), and [`shares`] cuts it into lanes that
//! share nothing, across machines; the tasks and the race's sides run on one
//! scheduler, the job [`market`]. For `holi equiv`, [`product`] is the game of two
//! libraries in lockstep against one client (its configurations are pairs), which
//! [`compare`] searches for a shortest difference with the same explorer. Every
//! search answers a [`CheckResult`] ([`outcome`], where the verdict is decided). This
//! module only dispatches to them: the types its children share live in [`options`],
//! [`brief`] and [`outcome`], so that no child imports its parent. Bounds follow
//! HOLiK exactly (`lang/semantics.md`): k limits open library frames, l the client's
//! calls per context.

pub mod asserted;
pub mod branch;
pub mod brief;
pub mod budget;
pub mod compare;
pub mod components;
pub mod config;
pub mod context;
pub mod deepening;
pub mod difference;
pub mod explore;
pub mod findings;
pub mod game;
pub mod inert;
pub mod lane;
pub mod linear;
pub mod machine;
pub mod market;
pub mod memo;
pub mod memory;
pub mod moves;
pub mod options;
pub mod outcome;
pub mod overapprox;
pub mod part_search;
pub mod plan;
pub mod presolve;
pub mod product;
pub mod race;
pub mod relevance;
pub mod shares;
pub mod solver;
pub mod split;
pub mod stand_in;
pub mod step;
pub mod subsume;
pub mod tasks;
pub mod term;
pub mod value;
pub mod values;
pub mod worker;

pub use brief::Brief;
pub use budget::Meter;
pub use lane::Lane;
pub use options::{
    Bounds, CheckOptions, Limits, Run, TaskSizes, Techniques, DEFAULT_K, DEFAULT_L,
    DEFAULT_SOLVER_TIMEOUT, PLAIN_AFTER, SPLIT_AFTER, SPLIT_HALVES,
};
pub use outcome::{CheckResult, Progress, Searched, Stats, StuckReason, StuckSite, Verdict};
pub use plan::{Goal, SearchPlan};

use crate::library::Library;

/// Checks `lib` within the bounds of `options`.
pub fn check(lib: &Library, options: &CheckOptions) -> CheckResult {
    check_with_progress(lib, options, &mut |_| {})
}

/// [`check`], calling `progress` now and then during the search.
pub fn check_with_progress(
    lib: &Library,
    options: &CheckOptions,
    progress: &mut dyn FnMut(&Progress),
) -> CheckResult {
    let brief = Brief::new(options, lib);
    let (mut result, changed) = brief.within_memory(
        &options.limits,
        |brief| check_unwatched(lib, brief, progress),
        |result| vec![&mut result.inconclusive],
    );
    if changed {
        result.settle_verdict(&brief.run);
    }
    result
}

/// [`check_with_progress`] without the memory limit.
fn check_unwatched(
    library: &Library,
    brief: &Brief,
    progress: &mut dyn FnMut(&Progress),
) -> CheckResult {
    let mut result = if brief.plan.races() {
        race::check(library, brief, progress)
    } else if brief.plan.goal() == Goal::First {
        // In a context of its own, like every other search: its models must not
        // depend on what this thread asked Z3 before.
        context::in_own(|| deepening::check(library, brief, progress))
    } else {
        tasks::Parallel::new(library, brief).run(progress)
    };
    values::settle(&mut result.counterexamples, brief);
    result
}
