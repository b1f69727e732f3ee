//! The search for a difference between two libraries (`holi equiv`): their product
//! game ([`super::product`]) searched depth first, with branch and bound on the length of
//! the shortest difference found, so that the difference reported is a shortest one
//! when the search completes.
//!
//! A complete search that met no difference was the whole game within k and l: no
//! client tells the libraries apart within them. Besides branch and bound, only
//! configurations met before are pruned (the product's own memo, with the `memo`
//! technique): the other techniques are argued for one library's failures, not for
//! what a second library does. (Iterative deepening found the same differences,
//! but re-explored the game once per length: twenty times the configurations of one
//! search on the DAO against itself at k 3, l 2.)

use super::branch::Decider;
use super::brief::Brief;
use super::context;
use super::explore::{Advance, Explorer};
use super::options::{CheckOptions, Techniques};
use super::outcome::{Progress, Stats};
pub use super::product::Sizes;
use super::product::{Difference, Incomparable, ProductGame, StuckPlace};
use crate::library::Library;

/// What the search found.
#[derive(Debug)]
pub struct Comparison<'p> {
    /// A shortest difference, if one was found.
    pub difference: Option<Difference<'p>>,
    /// Where either side's paths got stuck: what follows them is unexplored.
    pub stuck: Vec<StuckPlace>,
    pub stats: Stats,
    /// Why the search is not complete (limits, interruption, solver `unknown`).
    pub inconclusive: Vec<String>,
    /// Whether the difference is known to be a shortest: the search was complete.
    pub shortest: bool,
}

/// What the comparisons of one question share (the levels of a deepening): the
/// thread's Z3 context and a solver, made at the first query. Each costs milliseconds
/// to set up (a context, a solver's first push), more than a small level's whole
/// search, and a comparison that asks nothing never sets them up; one sequence of
/// levels still asks the same queries in the same order, so the answers stay the same
/// run to run.
pub struct Solving {
    /// The solver of the last comparison, with its cache of answers.
    decider: Option<Decider>,
}

impl Solving {
    pub fn new() -> Solving {
        // The thread's own context, which Z3 makes at its first use on the thread.
        context::default_in_use();
        Solving { decider: None }
    }
}

impl Default for Solving {
    fn default() -> Self {
        Solving::new()
    }
}

/// Searches for a shortest difference between `left` and `right` within the bounds
/// and limits of `options` (of its techniques, only `memo`) and `sizes`, with the
/// context and solver of `solving`, calling `progress` now and then. Refused when
/// their interfaces differ.
pub fn compare<'p>(
    left: &'p Library,
    right: &'p Library,
    options: &CheckOptions,
    sizes: Sizes,
    solving: &mut Solving,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Comparison<'p>, Incomparable> {
    let plain = CheckOptions {
        techniques: Techniques {
            all: true,
            ..Techniques::default()
        },
        ..options.clone()
    };
    let brief = Brief::new(&plain, left);
    let game = ProductGame::new(left, right, &brief, sizes, options.techniques.memo)?;
    let (comparison, _) = brief.within_memory(
        &options.limits,
        |brief| {
            let decider = match solving.decider.take() {
                Some(mut decider) => {
                    decider.rebrief(brief);
                    decider
                }
                None => {
                    let mut decider = Decider::within(brief);
                    decider.presolve_small_questions();
                    decider
                }
            };
            let (comparison, decider) = search(game, brief, decider, progress);
            solving.decider = Some(decider);
            comparison
        },
        |comparison| vec![&mut comparison.inconclusive],
    );
    Ok(comparison)
}

/// The whole product game, depth first, with branch and bound on the shortest
/// difference found.
fn search<'p>(
    game: ProductGame<'p>,
    brief: &Brief,
    decider: Decider,
    progress: &mut dyn FnMut(&Progress),
) -> (Comparison<'p>, Decider) {
    let mut explorer = Explorer::playing(game, brief, decider);
    let end = explorer.advance(progress);
    let difference = explorer.game().shortest().cloned();
    let stuck = explorer.game().stuck().to_vec();
    let subsumed = explorer.game().subsumed();
    let (mut result, decider) = explorer.finish_keeping();
    result.stats.subsumed += subsumed;
    let comparison = Comparison {
        shortest: difference.is_some() && end == Advance::Done,
        difference,
        stuck,
        stats: result.stats,
        inconclusive: result.inconclusive,
    };
    (comparison, decider)
}
