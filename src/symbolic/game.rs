//! The game the explorer plays ([`super::explore`]), in the spirit of stateright's
//! `Model`: where it starts and how a configuration moves on. The explorer knows a
//! game only through [`Game`]; how it orders, prunes and records what it finds is its
//! own business ([`Search`]).
//!
//! [`LibraryGame`] is the paper's game (Fig. 4): one library against every client,
//! with the split's stand-in for the parts left out when it has one. The
//! over-approximation of every client ([`super::overapprox::turn::Overapproximation`])
//! is a game too, made from this one: it changes the client's turn and nothing else.

use super::brief::Brief;
use super::config::{Config, PcNode};
use super::relevance::Relevance;
use super::stand_in::StandIn;
use super::step::{self, Rules, Search};
use crate::library::Library;
use std::sync::Arc;

/// A game between a library and its client, as the explorer sees it.
pub trait Game<'p> {
    /// A configuration of the game: one library's ([`Config`]), or a product of two.
    type Config: Position<'p>;
    /// The library being played: failures are rendered, sites numbered and memo keys
    /// made with it.
    fn library(&self) -> &'p Library;
    /// The configuration the game starts from.
    fn initial(&self) -> Self::Config;
    /// Runs `cfg` to its next stop and hands its successors and findings to `search`.
    fn step(&mut self, cfg: Self::Config, search: &mut impl Search<'p, Self::Config>);
    /// What the game's paths are to the library.
    fn paths(&self) -> Paths;
}

/// What the explorer reads of a configuration of any game: how long its trace is
/// (for the depth limit and branch and bound), its path condition (what exploring it
/// costs), and the one library's configuration behind it, which the memo keys.
pub trait Position<'p> {
    /// The moves of its trace.
    fn moves(&self) -> u32;
    /// The path condition it is explored under.
    fn pc(&self) -> &Option<Arc<PcNode>>;
    /// The configuration itself when it is one library's: only those are kept in the
    /// memo (a product's is never subsumed).
    fn library_config(&self) -> Option<&Config<'p>>;
}

impl<'p> Position<'p> for Config<'p> {
    fn moves(&self) -> u32 {
        self.moves
    }

    fn pc(&self) -> &Option<Arc<PcNode>> {
        &self.pc
    }

    fn library_config(&self) -> Option<&Config<'p>> {
        Some(self)
    }
}

/// What a game's paths are to the library, which decides what the explorer keeps of
/// them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Paths {
    /// The library's own: stuck places are the library's, and failures keep their
    /// paths to choose the reported values from ([`super::values`]).
    Own,
    /// Paths through the split's stand-in: the failures are real (the stand-in does
    /// what the parts it replaces may do), but a stuck place is not the library's.
    WithStandIn,
    /// Paths of an over-approximation, searched only for which failure sites they
    /// reach: the search ends once every target is reached, and neither stuck places
    /// nor values are kept.
    Reach,
    /// Paths of two libraries played together ([`super::product`]): what they show
    /// (differences, stuck places of either side) is the game's to keep.
    Compared,
}

/// The game of a library against every client.
pub struct LibraryGame<'p> {
    rules: Rules<'p>,
    initial: Config<'p>,
}

impl<'p> LibraryGame<'p> {
    /// `lib`'s game at the bounds of `brief`, with the symmetry of revealed closures
    /// when the memo is on and the relevance of client calls when its plan asks.
    pub fn new(lib: &'p Library, brief: &Brief) -> LibraryGame<'p> {
        let plan = brief.plan;
        let relevance = plan.relevance().then(|| Relevance::of(lib, None)).flatten();
        LibraryGame {
            initial: start(lib, brief, relevance.is_some()),
            rules: Rules {
                lib,
                l: brief.bounds.l,
                symmetry: plan.memo(),
                stand_in: None,
                relevance: relevance.map(Arc::new),
            },
        }
    }

    /// The game in which the search plays `stand_in` itself ([`StandIn`]).
    pub fn with_stand_in(mut self, stand_in: StandIn) -> Self {
        // The stand-in's code is a placeholder: its calls call the client back.
        if self.rules.relevance.is_some() {
            self.rules.relevance =
                Relevance::of(self.rules.lib, Some(stand_in.method)).map(Arc::new);
        }
        self.rules.stand_in = Some(stand_in);
        self
    }

    /// The game in which every client call is made, for a game built on it whose
    /// client does more than call (the over-approximation's writes references).
    pub fn making_every_call(mut self) -> Self {
        self.rules.relevance = None;
        self
    }
}

impl<'p> Game<'p> for LibraryGame<'p> {
    type Config = Config<'p>;

    fn library(&self) -> &'p Library {
        self.rules.lib
    }

    fn initial(&self) -> Config<'p> {
        self.initial.clone()
    }

    fn step(&mut self, cfg: Config<'p>, search: &mut impl Search<'p>) {
        step::step(cfg, &self.rules, search);
    }

    fn paths(&self) -> Paths {
        if self.rules.stand_in.is_some() {
            Paths::WithStandIn
        } else {
            Paths::Own
        }
    }
}

/// The configuration a search of `lib` starts from; `relevance` says whether it
/// tracks the sinks of atomic calls ([`super::relevance`]).
pub fn start<'p>(lib: &'p Library, brief: &Brief, relevance: bool) -> Config<'p> {
    let mut initial = Config::initial(lib, brief.bounds.k, brief.bounds.l);
    if relevance {
        initial.sinks = Some(Relevance::start());
    }
    initial
}
