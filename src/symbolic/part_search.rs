//! The searches of a library's parts for the split ([`super::split`]): for each
//! component with a failure site, the upper bounds (the component alone, then with one
//! helper), the lower bounds (with the stand-in) and their refinement, within the
//! limits of the whole check.

use super::branch::Decider;
use super::brief::Brief;
use super::components::{
    callbacks_per_component, sites_per_component, sub_library, Components, CALLBACK, TRAMPOLINE,
};
use super::explore::Explorer;
use super::game::LibraryGame;
use super::outcome::{add_stuck, CheckResult, Progress, Stats, StuckSite};
use super::stand_in::StandIn;
use crate::library::Library;
use crate::trace::Counterexample;
use crate::trace::Site;
use std::collections::{BTreeMap, HashSet};

/// What a part-by-part check settled, and what it leaves open.
pub struct Partial {
    /// The shortest trace of every site whose bounds met.
    pub settled: Vec<Counterexample>,
    /// For every other site the lower bounds reach, the shortest real trace found: an
    /// upper bound on its minimal length.
    pub open: Vec<Counterexample>,
}

/// The split's bounds, if they settle what they can; the shortest real trace per site
/// its searches found; and where they got stuck.
pub fn check_parts(
    lib: &Library,
    brief: &Brief,
    progress: &mut dyn FnMut(&Progress),
    total: &mut Stats,
) -> (Option<Partial>, Vec<Counterexample>, Vec<StuckSite>) {
    let parts = Components::of(lib);
    if lib.is_declared(TRAMPOLINE) || lib.is_declared(CALLBACK) {
        return (None, Vec::new(), Vec::new());
    }
    if parts.count < 2 {
        // Without semantic subsumption: its projections over the store forgotten at
        // every client turn cost dos_safe's over-approximation at k7 l4 seconds per
        // configuration, against 2 ms without.
        let brief = brief.with_plan(brief.plan.without_semantic());
        let partial = unreachable_everywhere(lib, &brief, progress, total);
        return (partial, Vec::new(), Vec::new());
    }
    let Some(callbacks) = callbacks_per_component(lib, &parts, brief.bounds.k) else {
        return (None, Vec::new(), Vec::new());
    };
    let mut search = PartSearch {
        lib,
        parts: &parts,
        brief,
        total,
        progress,
        real: BTreeMap::new(),
        stuck: Vec::new(),
    };
    let partial = settle(&mut search, &callbacks);
    (partial, search.real.into_values().collect(), search.stuck)
}

/// A library of one part has nothing to split, but the over-approximation may show
/// each of its sites unreachable, as it does a part's: then it settles with no
/// failure and no search. `None` when some site may be reachable, or when only the
/// whole search can settle it (it may get stuck: [`super::split::check`]).
fn unreachable_everywhere(
    lib: &Library,
    brief: &Brief,
    progress: &mut dyn FnMut(&Progress),
    total: &mut Stats,
) -> Option<Partial> {
    if lib.may_get_stuck && !brief.run.allow_stuck {
        return None;
    }
    let listed = lib.failure_sites().len();
    let live = lib.live_failure_sites();
    if !live.is_empty() {
        let (reached, stats) = super::overapprox::houdini::reachable(lib, brief, &live, progress);
        total.add(&stats);
        if !reached?.is_empty() {
            return None;
        }
    }
    total.unreachable_sites += listed as u64;
    Some(Partial {
        settled: Vec::new(),
        open: Vec::new(),
    })
}

/// [`check_parts`] with its searches set up.
fn settle(search: &mut PartSearch, callbacks: &[u32]) -> Option<Partial> {
    let (lib, parts) = (search.lib, search.parts);
    let sites = sites_per_component(lib, parts);
    let mut settled: Vec<Counterexample> = Vec::new();
    let mut open: Vec<Counterexample> = Vec::new();
    let live: HashSet<Site> = lib.live_failure_sites().into_iter().collect();
    for (c, own) in sites.iter().enumerate() {
        // Sites in code no run executes, and those the over-approximation does not
        // reach, need no search at all.
        let mut own: Vec<Site> = own.iter().cloned().collect();
        let listed = own.len();
        own.retain(|site| live.contains(site));
        search.total.unreachable_sites += (listed - own.len()) as u64;
        if let Some(reached) = search.reachable(c, &own) {
            own.retain(|site| reached.contains(site));
        }
        if own.is_empty() {
            continue;
        }
        let others = (0..parts.count)
            .filter(|&j| j != c)
            .map(|j| callbacks[j])
            .max()
            .unwrap_or(0);
        // The component alone first: its traces are real, and it is cheap.
        let mut best: BTreeMap<Site, Counterexample> = BTreeMap::new();
        improve(
            &mut best,
            search.run(&[c], 0, None, &own)?.counterexamples,
            |_| true,
        );
        let alone: BTreeMap<Site, usize> = best
            .iter()
            .map(|(key, cex)| (key.clone(), cex.trace.0.len()))
            .collect();
        let mut lower = if others == 0 || parts.sealed[c] {
            // No other part calls back, or none can help a sealed part: the rest of
            // the library cannot help (see [`super::split`]).
            alone.clone()
        } else if own.iter().all(|site| alone.contains_key(site)) {
            // Every site is reached alone: the lower bound only has to rule out
            // shorter traces, so its search stops below the longest of them.
            let longest = alone.values().copied().max().unwrap_or(0);
            let limit = Some(longest.saturating_sub(1) as u32);
            let shorter = search.run(&[c], others, limit, &own)?;
            let beaten = shortest_per_site(&shorter)
                .iter()
                .any(|(key, &len)| alone.get(key).is_none_or(|&a| len < a));
            if beaten {
                full_lower(search, &mut best, c, others, &own)?
            } else {
                alone.clone()
            }
        } else {
            full_lower(search, &mut best, c, others, &own)?
        };
        let helpers = (0..parts.count).filter(|&j| j != c && callbacks[j] > 0);
        for j in helpers {
            if unmet(&best, &lower).is_empty() {
                break;
            }
            let with = search.run(&[c, j], 0, None, &own)?;
            improve(&mut best, with.counterexamples, |key| {
                lower.contains_key(key)
            });
        }
        refine(search, &mut best, &mut lower, c, callbacks)?;
        for (key, &len) in &lower {
            match best.remove(key) {
                Some(cex) if cex.trace.0.len() == len => settled.push(cex),
                Some(cex) => open.push(cex),
                // Reached only with the stand-in: no real trace to start from.
                None => return None,
            }
        }
    }
    Some(Partial { settled, open })
}

/// The sites of `lower` whose best trace so far is longer than their lower bound (or
/// that have none).
fn unmet(best: &BTreeMap<Site, Counterexample>, lower: &BTreeMap<Site, usize>) -> Vec<Site> {
    lower
        .iter()
        .filter(|(key, &len)| best.get(key).is_none_or(|b| b.trace.0.len() != len))
        .map(|(key, _)| key.clone())
        .collect()
}

/// Raises the lower bounds of component `c`'s sites that its best traces do not meet,
/// by searches in which some other parts are real.
///
/// The stand-in makes as many callbacks as the most willing other part, and often a
/// single part (a recursive one, say) is that willing while the rest make one or two.
/// So at a level `t`, the parts whose frames can make more than `t` callbacks are kept
/// as they are, beside `c`, and the stand-in makes up to `t` (none when `t` is 0). The
/// map of [`super::split`]'s docs still holds: each frame of a part left out is one call of the
/// stand-in with as many moves and no more frames (a part that cannot call back at
/// all is simply dropped at level 0: its frames give the client nothing, and a trace
/// without them is shorter and valid), while the kept parts' frames are their own and
/// their state is touched by nothing else. So a site's shortest trace here is a lower
/// bound in the whole library, and one that never calls the stand-in is real.
///
/// Only the traces shorter than the best real ones matter, so each search stops below
/// the longest of them. Levels go down through the other parts' callback counts while
/// the parts kept hold at most half the library's methods: beyond that the search is
/// nearly the whole library's, which [`super::split::finish`] makes anyway.
fn refine(
    search: &mut PartSearch,
    best: &mut BTreeMap<Site, Counterexample>,
    lower: &mut BTreeMap<Site, usize>,
    c: usize,
    callbacks: &[u32],
) -> Option<()> {
    let (lib, parts) = (search.lib, search.parts);
    let others = || (0..parts.count).filter(move |&j| j != c);
    let mut levels: Vec<u32> = others().map(|j| callbacks[j]).collect();
    levels.sort_unstable();
    levels.dedup();
    levels.pop();
    for t in levels.into_iter().rev() {
        let open = unmet(best, lower);
        if open.is_empty() {
            break;
        }
        let kept: Vec<usize> = std::iter::once(c)
            .chain(others().filter(|&j| callbacks[j] > t))
            .collect();
        let methods = parts.method.iter().filter(|p| kept.contains(p)).count();
        if 2 * methods > lib.methods.len() {
            break;
        }
        let upper = |site: &Site| best.get(site).map(|b| b.trace.0.len());
        let uppers: Option<Vec<usize>> = open.iter().map(upper).collect();
        // Without a real trace for every open site, nothing bounds the search's length.
        let limit = uppers
            .and_then(|u| u.into_iter().max())
            .map(|longest| longest.saturating_sub(1) as u32);
        let result = search.run(&kept, t, limit, &open)?;
        let found = shortest_per_site(&result);
        for site in &open {
            let key = site.clone();
            match (found.get(&key).copied(), upper(site)) {
                (Some(len), Some(u)) if u <= len => lower.insert(key, u),
                (None, Some(u)) => lower.insert(key, u),
                (Some(len), _) => lower.insert(key, len),
                // Searched to the end without a trace: no client reaches it.
                (None, None) => lower.remove(&key),
            };
        }
        let real = result.counterexamples.into_iter().filter(is_real);
        improve(best, real, |key| {
            lower.contains_key(key) && open.contains(key)
        });
    }
    Some(())
}

/// The searches of parts of a library, within the limits of the whole check.
struct PartSearch<'a> {
    lib: &'a Library,
    parts: &'a Components,
    brief: &'a Brief,
    total: &'a mut Stats,
    progress: &'a mut dyn FnMut(&Progress),
    /// The shortest real failing trace per site found so far.
    real: BTreeMap<Site, Counterexample>,
    /// Where the searches got stuck (those with the stand-in record nothing).
    stuck: Vec<StuckSite>,
}

impl PartSearch<'_> {
    /// The brief of the whole check, with what is left of its configurations (its
    /// deadline holds as it is).
    fn brief(&self) -> Brief {
        self.brief
            .with_meter(self.brief.meter.after(self.total.configurations))
    }

    /// The components `members` with a stand-in making up to `trampoline` callbacks
    /// (none if 0), searched within `max_moves` if given, with branch and bound on the
    /// sites `targets`; `None` if the search is incomplete.
    fn run(
        &mut self,
        members: &[usize],
        trampoline: u32,
        max_moves: Option<u32>,
        targets: &[Site],
    ) -> Option<CheckResult> {
        let (sub_lib, stand_in) = sub_library(self.lib, self.parts, members, trampoline > 0);
        let brief = self.brief();
        let mut game = LibraryGame::new(&sub_lib, &brief);
        if let Some((method, callback)) = stand_in {
            game = game.with_stand_in(StandIn {
                method,
                callback,
                callbacks: trampoline,
                lzero: brief.bounds.l,
            });
        }
        let decider = Decider::within(&brief);
        let mut explorer = Explorer::playing(game, &brief, decider).with_targets(targets);
        if let Some(most) = max_moves {
            explorer = explorer.with_depth_limit(most);
        }
        let result = explorer.run(self.progress);
        self.total.add(&result.stats);
        add_stuck(&mut self.stuck, result.stuck.clone());
        let real = result
            .counterexamples
            .iter()
            .filter(|cex| is_real(cex))
            .cloned();
        improve(&mut self.real, real, |_| true);
        result.inconclusive.is_empty().then_some(result)
    }

    /// The sites of `own` that component `c` may reach in the whole library, by the
    /// over-approximation of [`super::overapprox::havoc`]; `None` if it proves nothing.
    fn reachable(&mut self, c: usize, own: &[Site]) -> Option<HashSet<Site>> {
        let (sub_lib, _) = sub_library(self.lib, self.parts, &[c], false);
        let brief = self.brief();
        let (reached, stats) =
            super::overapprox::houdini::reachable(&sub_lib, &brief, own, self.progress);
        self.total.add(&stats);
        if let Some(reached) = &reached {
            self.total.unreachable_sites +=
                own.iter().filter(|s| !reached.contains(s)).count() as u64;
        }
        reached
    }
}

/// The lower bound of component `c` (with the stand-in calling back up to `others`
/// times) on the sites `own`: the shortest length per site. Its shortest traces that
/// never call the stand-in are traces of the component alone, so they improve `best`.
fn full_lower(
    search: &mut PartSearch,
    best: &mut BTreeMap<Site, Counterexample>,
    c: usize,
    others: u32,
    own: &[Site],
) -> Option<BTreeMap<Site, usize>> {
    let result = search.run(&[c], others, None, own)?;
    let lower = shortest_per_site(&result);
    let real = result.counterexamples.into_iter().filter(is_real);
    improve(best, real, |_| true);
    Some(lower)
}

/// Whether `cex` never calls the stand-in: a trace of the library's own parts.
fn is_real(cex: &Counterexample) -> bool {
    !cex.trace.0.iter().any(|m| m.method == TRAMPOLINE)
}

/// Keeps in `best` the first of each site's traces in the engine's order, among those
/// at sites `wanted`.
pub fn improve(
    best: &mut BTreeMap<Site, Counterexample>,
    traces: impl IntoIterator<Item = Counterexample>,
    wanted: impl Fn(&Site) -> bool,
) {
    for cex in traces {
        let key = cex.site();
        if !wanted(&key) {
            continue;
        }
        if best
            .get(&key)
            .is_none_or(|b| order_key(&cex) < order_key(b))
        {
            best.insert(key, cex);
        }
    }
}

/// The engine's order of counterexamples: by length, then text.
pub fn order_key(cex: &Counterexample) -> (usize, String) {
    (cex.trace.0.len(), cex.trace.to_string())
}

fn shortest_per_site(result: &CheckResult) -> BTreeMap<Site, usize> {
    let mut out = BTreeMap::new();
    for cex in &result.counterexamples {
        let len = out.entry(cex.site()).or_insert(cex.trace.0.len());
        *len = (*len).min(cex.trace.0.len());
    }
    out
}
