//! The search plan: which search a check runs. [`Techniques`] is what was asked, a
//! set of switches with rules between them ("ignored with `all`", "with `memo`"); the
//! plan is what those rules leave. Its fields are private and every way to build or
//! change one keeps the rules, so a combination the engine cannot run cannot be built,
//! and each strategy asks the plan one question instead of combining switches.

use super::options::Techniques;
use crate::library::Library;
use std::fmt;

/// What the search reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goal {
    /// The shortest failing trace per failure site.
    ShortestPerSite,
    /// One failing trace, a shortest ([`Techniques::first`]).
    First,
    /// Every distinct failing trace ([`Techniques::all`]): the plain exploration,
    /// nothing pruned, so that the set is exhaustive.
    Every,
}

/// Subsumption and the techniques built on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pruning {
    semantic: bool,
    inert: bool,
    /// Branch and bound, and whether it first proves sites unreachable (`havoc`).
    bound: Option<Havoc>,
    /// Only with [`Goal::ShortestPerSite`].
    split: bool,
    relevance: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Havoc(bool);

/// A search the engine can run ([`SearchPlan::new`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchPlan {
    goal: Goal,
    /// `None`: nothing is pruned (with [`Goal::Every`], or without `memo`).
    pruning: Option<Pruning>,
}

impl SearchPlan {
    /// The search the techniques `options` ask for on `lib`. `all` turns subsumption and all that
    /// builds on it off, and wins over `first` (the command line refuses both);
    /// without `memo` nothing is pruned; the split is for the shortest failure per
    /// site only. A library with ML-like references is neither split nor
    /// over-approximated: both are argued for global references only
    /// (`lang/references.md` §4.6–4.7); the other prunings cover locations.
    pub fn new(options: &Techniques, lib: &Library) -> SearchPlan {
        let goal = if options.all {
            Goal::Every
        } else if options.first {
            Goal::First
        } else {
            Goal::ShortestPerSite
        };
        let pruning = (options.memo && goal != Goal::Every).then(|| Pruning {
            semantic: options.semantic,
            inert: options.inert,
            bound: options
                .bound
                .then_some(Havoc(options.havoc && !lib.uses_refs)),
            split: options.split && goal == Goal::ShortestPerSite && !lib.uses_refs,
            relevance: options.relevance,
        });
        SearchPlan { goal, pruning }
    }

    pub fn goal(&self) -> Goal {
        self.goal
    }

    /// Subsumption of opponent configurations, and the symmetry of revealed closures.
    pub fn memo(&self) -> bool {
        self.pruning.is_some()
    }

    /// Semantic subsumption.
    pub fn semantic(&self) -> bool {
        self.pruning.is_some_and(|p| p.semantic)
    }

    /// Inert references left out of the memo's keys.
    pub fn inert(&self) -> bool {
        self.pruning.is_some_and(|p| p.inert)
    }

    /// Branch and bound.
    pub fn bound(&self) -> bool {
        self.pruning.is_some_and(|p| p.bound.is_some())
    }

    /// Failure sites proved unreachable in the over-approximation, for branch and bound.
    pub fn havoc(&self) -> bool {
        self.pruning.is_some_and(|p| p.bound == Some(Havoc(true)))
    }

    /// Independent parts checked apart.
    pub fn split(&self) -> bool {
        self.pruning.is_some_and(|p| p.split)
    }

    /// Client calls that no shortest failing trace makes are not made.
    pub fn relevance(&self) -> bool {
        self.pruning.is_some_and(|p| p.relevance)
    }

    /// Whether the check races searches ([`super::race`]): the split, or a twin
    /// without semantic subsumption, beside the whole search.
    pub fn races(&self) -> bool {
        self.goal == Goal::ShortestPerSite && (self.split() || self.semantic())
    }

    /// This plan without semantic subsumption.
    pub fn without_semantic(mut self) -> SearchPlan {
        if let Some(p) = &mut self.pruning {
            p.semantic = false;
        }
        self
    }

    /// The plan of the over-approximation's search ([`super::overapprox::houdini`]), when this
    /// plan has one: which sites it reaches, by the shortest failure per site with
    /// branch and bound, keeping this plan's subsumption; no split, and no
    /// over-approximation of its own.
    pub fn for_havoc(self) -> Option<SearchPlan> {
        let p = self.pruning.filter(|_| self.havoc())?;
        Some(SearchPlan {
            goal: Goal::ShortestPerSite,
            pruning: Some(Pruning {
                bound: Some(Havoc(false)),
                split: false,
                relevance: false,
                ..p
            }),
        })
    }
}

/// The plan of the default options on a library without ML-like references: the
/// shortest failure per site, with every technique.
impl Default for SearchPlan {
    fn default() -> Self {
        SearchPlan {
            goal: Goal::ShortestPerSite,
            pruning: Some(Pruning {
                semantic: true,
                inert: true,
                bound: Some(Havoc(true)),
                split: true,
                relevance: true,
            }),
        }
    }
}

/// What `-v` prints: the goal, then each technique on or off.
impl fmt::Display for SearchPlan {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let goal = match self.goal {
            Goal::ShortestPerSite => "shortest failure per site",
            Goal::First => "first failure (a shortest)",
            Goal::Every => "every failing trace",
        };
        let on = |b: bool| if b { "on" } else { "off" };
        write!(
            f,
            "{goal}; memo {}, semantic {}, inert {}, bound {}, havoc {}, split {}, relevance {}",
            on(self.memo()),
            on(self.semantic()),
            on(self.inert()),
            on(self.bound()),
            on(self.havoc()),
            on(self.split()),
            on(self.relevance())
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::overapprox::havoc::tests::library;
    use super::*;

    const GLOBAL: &str = "int c := 0; public m (x:int) :(unit) = { c := x };";
    const LOCAL: &str = "public m (x:int) :(int) = { let r = ref x in !r };";

    #[test]
    fn the_rules_between_the_switches_are_kept() {
        let global = library(GLOBAL);
        let plan = |options: Techniques| SearchPlan::new(&options, &global);
        assert_eq!(plan(Techniques::default()), SearchPlan::default());
        // `all` turns off everything that prunes, and wins over `first`.
        let every = plan(Techniques {
            all: true,
            first: true,
            ..Techniques::default()
        });
        assert_eq!(every.goal(), Goal::Every);
        assert!(!every.memo() && !every.semantic() && !every.bound() && !every.split());
        assert!(!every.relevance());
        assert!(!every.races());
        // Without the memo nothing builds on it.
        let plain = plan(Techniques {
            memo: false,
            ..Techniques::default()
        });
        assert!(!plain.semantic() && !plain.inert() && !plain.bound() && !plain.havoc());
        assert!(!plain.split() && !plain.races() && !plain.relevance());
        // The over-approximation needs branch and bound; the split, the shortest
        // failure per site.
        let unbounded = plan(Techniques {
            bound: false,
            ..Techniques::default()
        });
        assert!(!unbounded.havoc() && unbounded.for_havoc().is_none());
        let first = plan(Techniques {
            first: true,
            ..Techniques::default()
        });
        assert!(first.memo() && !first.split() && !first.races());
        // A library with ML-like references is neither split nor over-approximated.
        let local = SearchPlan::new(&Techniques::default(), &library(LOCAL));
        assert!(local.memo() && local.semantic() && local.bound());
        assert!(!local.split() && !local.havoc() && local.races());
    }

    #[test]
    fn the_over_approximation_searches_for_sites_without_its_own() {
        let havoc = SearchPlan::default().without_semantic().for_havoc();
        let Some(havoc) = havoc else {
            panic!("the default plan has an over-approximation");
        };
        assert_eq!(havoc.goal(), Goal::ShortestPerSite);
        assert!(havoc.bound() && !havoc.havoc() && !havoc.split() && !havoc.semantic());
        assert!(!havoc.relevance());
    }
}
