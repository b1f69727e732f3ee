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

/// Searches for a shortest difference between `left` and `right` within the bounds
/// and limits of `options` (of its techniques, only `memo`) and `sizes`, in the Z3
/// context `z3` (a deepening comparison passes one context to every level: a new one
/// costs milliseconds, and one sequence of levels still asks the same queries in the
/// same order), calling `progress` now and then. Refused when their interfaces differ.
pub fn compare<'p>(
    left: &'p Library,
    right: &'p Library,
    options: &CheckOptions,
    sizes: Sizes,
    z3: &z3::Context,
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
        |brief| context::within(z3, || search(game, brief, progress)),
        |comparison| &mut comparison.inconclusive,
    );
    Ok(comparison)
}

/// The whole product game, depth first, with branch and bound on the shortest
/// difference found.
fn search<'p>(
    game: ProductGame<'p>,
    brief: &Brief,
    progress: &mut dyn FnMut(&Progress),
) -> Comparison<'p> {
    let mut explorer = Explorer::playing(game, brief, Decider::within(brief));
    let end = explorer.advance(progress);
    let difference = explorer.game().shortest().cloned();
    let stuck = explorer.game().stuck().to_vec();
    let subsumed = explorer.game().subsumed();
    let mut result = explorer.finish();
    result.stats.subsumed += subsumed;
    Comparison {
        shortest: difference.is_some() && end == Advance::Done,
        difference,
        stuck,
        stats: result.stats,
        inconclusive: result.inconclusive,
    }
}
