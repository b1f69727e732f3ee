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
//!   and returns; the search plays it itself ([`StandIn`]), so that the callbacks left
//!   are a budget the memo compares like l. Map each frame of another component in a
//!   failing trace of the whole library to one call of the stand-in with as many
//!   callbacks: the moves are as many, the frames no more, and C's own moves are
//!   untouched. So a site this search does not reach is unreachable in the whole
//!   library, and one it reaches takes at least as many moves there. When C alone
//!   reaches every site of its code, this search only has to show that no trace is
//!   shorter, so it is cut below the longest of C's traces; and like every search it
//!   stops extending traces once each site has one no longer than them (branch and
//!   bound, [`super::CheckOptions::bound`]). Before any search of C, the sites that
//!   the over-approximation of [`super::havoc`] proves unreachable (in C with any
//!   trampolines, since it lets the client reset C's references at every turn) are
//!   dropped; a part left with none is not searched.
//!
//!   A shortest trace of the lower-bound search that never calls the stand-in is one of
//!   C alone already.
//! * **Tighter lower bounds** where the two do not meet: the other parts whose frames
//!   can make more callbacks than a level t are kept real beside C, and the stand-in
//!   makes up to t ([`refine`]).
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
//! stuck paths do not change the verdict, [`CheckOptions::allow_stuck`]), and the whole
//! library is searched. An unsafe result stays unsafe whatever paths get stuck; it
//! lists the stuck places met in the parts' own searches (without the stand-in), which
//! are real.

use super::explore::Explorer;
use super::havoc::Site;
use super::ir::{CodeId, Expr, ExprKind, ImportId, MethodId};
use super::moves::StandIn;
use super::{
    add_stuck, verdict, CheckOptions, CheckResult, Progress, SearchPlan, Stats, StuckSite, Verdict,
};
use crate::build::{GlobalName, Initial, Library};
use crate::syntax::ast::{Program, Visibility};
use crate::trace::{Counterexample, FailureKind};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::time::Instant;

/// The most callbacks per frame the stand-in is made for; a library whose frames can
/// make more is searched whole.
const MAX_CALLBACKS: u32 = 16;

const TRAMPOLINE: &str = "holi_split_trampoline";
const CALLBACK: &str = "holi_split_callback";

/// The result of checking `program` (built as `lib`) component by component; or,
/// when that is not conclusive, what it found, for [`finish`] or the whole search.
pub fn check(
    program: &Program,
    lib: &Library,
    options: &CheckOptions,
    plan: SearchPlan,
    progress: &mut dyn FnMut(&Progress),
) -> Result<CheckResult, Box<Unsettled>> {
    let start = Instant::now();
    let mut stats = Stats::default();
    let (parts, found, stuck) = check_parts(program, lib, options, plan, progress, &mut stats);
    stats.seconds = start.elapsed().as_secs_f64();
    // Without failures, only the whole search knows every place that gets stuck.
    let settles = |partial: &Partial| {
        partial.open.is_empty()
            && (!partial.settled.is_empty() || !lib.may_get_stuck || options.allow_stuck)
    };
    match parts {
        Some(partial) if settles(&partial) => {
            let mut found = partial.settled;
            found.sort_by_cached_key(order_key);
            // The parts' own counts would count a helper part's failures twice (in its
            // own check and as a helper), so only the reported traces are counted.
            Ok(CheckResult {
                verdict: verdict(&found, &[], &stuck, options),
                failing_traces: found.len(),
                failing_traces_lower_bound: false,
                counterexamples: found,
                stats,
                inconclusive: Vec::new(),
                stuck,
                plan,
            })
        }
        partial => Err(Box::new(Unsettled {
            stats,
            partial,
            found,
            stuck,
        })),
    }
}

/// Adds to the incomplete result of the search that followed an unsettled split the
/// real traces the parts found ([`Unsettled::found`]) at sites it has no shorter trace
/// for: whatever the search did not get to, a client that fails there exists.
pub fn add_found(result: &mut CheckResult, found: Vec<Counterexample>) {
    if result.inconclusive.is_empty() {
        return;
    }
    let mut best: BTreeMap<SiteKey, Counterexample> = BTreeMap::new();
    let before = result.counterexamples.len();
    improve(&mut best, result.counterexamples.drain(..), |_| true);
    improve(&mut best, found, |_| true);
    result.counterexamples = best.into_values().collect();
    result.counterexamples.sort_by_cached_key(order_key);
    result.failing_traces += result.counterexamples.len().saturating_sub(before);
    if !result.counterexamples.is_empty() {
        result.verdict = Verdict::Unsafe;
    }
}

/// A part-by-part check that did not settle every site.
pub struct Unsettled {
    /// The counters of the work done.
    pub stats: Stats,
    /// What it found, if every part's searches were complete and every site that the
    /// lower bounds reach has a real trace.
    pub partial: Option<Partial>,
    /// The shortest real failing trace per site that the parts' searches found,
    /// complete or not ([`add_found`]).
    pub found: Vec<Counterexample>,
    /// Where the parts' own searches got stuck.
    pub stuck: Vec<StuckSite>,
}

pub struct Partial {
    /// The shortest trace of every site whose bounds met.
    settled: Vec<Counterexample>,
    /// For every other site the lower bounds reach, the shortest real trace found: an
    /// upper bound on its minimal length.
    open: Vec<Counterexample>,
}

/// Completes a part-by-part check whose bounds did not meet at some sites: the whole
/// library searched for traces shorter than the longest upper bound of those sites,
/// with branch and bound on them alone. Below that limit the search finds each one's
/// minimal length if it is shorter than its upper bound; otherwise the upper bound's
/// trace is a shortest one. The settled sites keep the split's traces.
pub fn finish(
    lib: &Library,
    partial: Partial,
    options: &CheckOptions,
    plan: SearchPlan,
    progress: &mut dyn FnMut(&Progress),
) -> CheckResult {
    let longest = partial
        .open
        .iter()
        .map(|cex| cex.trace.0.len())
        .max()
        .unwrap_or(0);
    let targets: Vec<Site> = partial
        .open
        .iter()
        .map(|cex| (cex.kind, cex.span.clone()))
        .collect();
    let whole = Explorer::new(lib, options, plan)
        .with_depth_limit(longest.saturating_sub(1) as u32)
        .with_targets(&targets)
        .run(progress);
    let mut best: BTreeMap<SiteKey, Counterexample> = BTreeMap::new();
    improve(&mut best, partial.open, |_| true);
    let open: BTreeSet<SiteKey> = best.keys().copied().collect();
    improve(&mut best, whole.counterexamples, |key| open.contains(key));
    let mut found = partial.settled;
    found.extend(best.into_values());
    found.sort_by_cached_key(order_key);
    CheckResult {
        verdict: Verdict::Unsafe,
        failing_traces: found.len(),
        failing_traces_lower_bound: false,
        counterexamples: found,
        stats: whole.stats,
        inconclusive: whole.inconclusive,
        stuck: whole.stuck,
        plan,
    }
}

/// The split's bounds, if they settle what they can; the shortest real trace per site
/// its searches found; and where they got stuck.
fn check_parts(
    program: &Program,
    lib: &Library,
    options: &CheckOptions,
    plan: SearchPlan,
    progress: &mut dyn FnMut(&Progress),
    total: &mut Stats,
) -> (Option<Partial>, Vec<Counterexample>, Vec<StuckSite>) {
    let parts = Components::of(lib);
    if parts.count < 2 || lib.is_declared(TRAMPOLINE) || lib.is_declared(CALLBACK) {
        return (None, Vec::new(), Vec::new());
    }
    let Some(callbacks) = callbacks_per_component(lib, &parts, options.k) else {
        return (None, Vec::new(), Vec::new());
    };
    let mut search = PartSearch {
        program,
        lib,
        parts: &parts,
        options,
        plan,
        start: Instant::now(),
        total,
        progress,
        real: BTreeMap::new(),
        stuck: Vec::new(),
    };
    let partial = settle(&mut search, &callbacks);
    (partial, search.real.into_values().collect(), search.stuck)
}

/// [`check_parts`] with its searches set up.
fn settle(search: &mut PartSearch, callbacks: &[u32]) -> Option<Partial> {
    let (lib, parts) = (search.lib, search.parts);
    let sites = sites_per_component(lib, parts);
    let mut settled: Vec<Counterexample> = Vec::new();
    let mut open: Vec<Counterexample> = Vec::new();
    for (c, own) in sites.iter().enumerate() {
        // Sites the over-approximation does not reach need no search at all.
        let mut own: Vec<Site> = own.iter().map(site_of).collect();
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
        let mut best: BTreeMap<SiteKey, Counterexample> = BTreeMap::new();
        improve(
            &mut best,
            search.run(&[c], 0, None, &own)?.counterexamples,
            |_| true,
        );
        let alone: BTreeMap<SiteKey, usize> = best
            .iter()
            .map(|(key, cex)| (*key, cex.trace.0.len()))
            .collect();
        let mut lower = if others == 0 {
            // No other part calls back: the rest of the library cannot help.
            alone.clone()
        } else if own.iter().all(|site| alone.contains_key(&key_of(site))) {
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
fn unmet(best: &BTreeMap<SiteKey, Counterexample>, lower: &BTreeMap<SiteKey, usize>) -> Vec<Site> {
    lower
        .iter()
        .filter(|(key, &len)| best.get(key).is_none_or(|b| b.trace.0.len() != len))
        .map(|(key, _)| site_of(key))
        .collect()
}

/// Raises the lower bounds of component `c`'s sites that its best traces do not meet,
/// by searches in which some other parts are real.
///
/// The stand-in makes as many callbacks as the most willing other part, and often a
/// single part (a recursive one, say) is that willing while the rest make one or two.
/// So at a level `t`, the parts whose frames can make more than `t` callbacks are kept
/// as they are, beside `c`, and the stand-in makes up to `t` (none when `t` is 0). The
/// map of [`check`]'s docs still holds: each frame of a part left out is one call of the
/// stand-in with as many moves and no more frames (a part that cannot call back at
/// all is simply dropped at level 0: its frames give the client nothing, and a trace
/// without them is shorter and valid), while the kept parts' frames are their own and
/// their state is touched by nothing else. So a site's shortest trace here is a lower
/// bound in the whole library, and one that never calls the stand-in is real.
///
/// Only the traces shorter than the best real ones matter, so each search stops below
/// the longest of them. Levels go down through the other parts' callback counts while
/// the parts kept hold at most half the library's methods: beyond that the search is
/// nearly the whole library's, which [`finish`] makes anyway.
fn refine(
    search: &mut PartSearch,
    best: &mut BTreeMap<SiteKey, Counterexample>,
    lower: &mut BTreeMap<SiteKey, usize>,
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
        let upper = |site: &Site| best.get(&key_of(site)).map(|b| b.trace.0.len());
        let uppers: Option<Vec<usize>> = open.iter().map(upper).collect();
        // Without a real trace for every open site, nothing bounds the search's length.
        let limit = uppers
            .and_then(|u| u.into_iter().max())
            .map(|longest| longest.saturating_sub(1) as u32);
        let result = search.run(&kept, t, limit, &open)?;
        let found = shortest_per_site(&result);
        for site in &open {
            let key = key_of(site);
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
            lower.contains_key(key) && open.contains(&site_of(key))
        });
    }
    Some(())
}

/// The searches of parts of a library, within the limits of the whole check.
struct PartSearch<'a> {
    program: &'a Program,
    lib: &'a Library,
    parts: &'a Components,
    options: &'a CheckOptions,
    plan: SearchPlan,
    start: Instant,
    total: &'a mut Stats,
    progress: &'a mut dyn FnMut(&Progress),
    /// The shortest real failing trace per site found so far.
    real: BTreeMap<SiteKey, Counterexample>,
    /// Where the searches got stuck (those with the stand-in record nothing).
    stuck: Vec<StuckSite>,
}

impl PartSearch<'_> {
    /// The options of the whole check, with what is left of its limits.
    fn options(&self) -> CheckOptions {
        let mut sub = self.options.clone();
        if let Some(limit) = self.options.timeout {
            sub.timeout = Some(limit.saturating_sub(self.start.elapsed()));
        }
        if let Some(most) = self.options.max_configurations {
            sub.max_configurations = Some(most.saturating_sub(self.total.configurations));
        }
        sub
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
        let sub = sub_program(self.program, self.lib, self.parts, members, trampoline > 0)?;
        let sub_lib = crate::build::build(&sub);
        let options = self.options();
        let mut explorer = Explorer::new(&sub_lib, &options, self.plan).with_targets(targets);
        if let Some(most) = max_moves {
            explorer = explorer.with_depth_limit(most);
        }
        if trampoline > 0 {
            explorer = explorer.with_stand_in(StandIn {
                method: sub_lib.methods.iter().position(|m| m.name == TRAMPOLINE)? as MethodId,
                callback: sub_lib.imports.iter().position(|i| i.name == CALLBACK)? as ImportId,
                callbacks: trampoline,
                lzero: options.l,
            });
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
    /// over-approximation of [`super::havoc`]; `None` if it proves nothing.
    fn reachable(&mut self, c: usize, own: &[Site]) -> Option<HashSet<Site>> {
        let sub = sub_program(self.program, self.lib, self.parts, &[c], false)?;
        let sub_lib = crate::build::build(&sub);
        let options = self.options();
        let (reached, stats) =
            super::houdini::reachable(&sub_lib, &options, self.plan, own, self.progress);
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
    best: &mut BTreeMap<SiteKey, Counterexample>,
    c: usize,
    others: u32,
    own: &[Site],
) -> Option<BTreeMap<SiteKey, usize>> {
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
fn improve(
    best: &mut BTreeMap<SiteKey, Counterexample>,
    traces: impl IntoIterator<Item = Counterexample>,
    wanted: impl Fn(&SiteKey) -> bool,
) {
    for cex in traces {
        let key = site_key(&cex);
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

/// A failure site as an ordered key: what fails, where.
type SiteKey = (FailureKind, usize, usize);

fn site_key(cex: &Counterexample) -> SiteKey {
    (cex.kind, cex.span.start, cex.span.end)
}

fn key_of(site: &Site) -> SiteKey {
    (site.0, site.1.start, site.1.end)
}

fn site_of(key: &SiteKey) -> Site {
    (key.0, key.1..key.2)
}

/// The engine's order of counterexamples: by length, then text.
fn order_key(cex: &Counterexample) -> (usize, String) {
    (cex.trace.0.len(), cex.trace.to_string())
}

fn shortest_per_site(result: &CheckResult) -> BTreeMap<SiteKey, usize> {
    let mut out = BTreeMap::new();
    for cex in &result.counterexamples {
        let len = out.entry(site_key(cex)).or_insert(cex.trace.0.len());
        *len = (*len).min(cex.trace.0.len());
    }
    out
}

/// The components of a library: a number for every method and reference.
struct Components {
    method: Vec<usize>,
    reference: Vec<usize>,
    count: usize,
}

impl Components {
    fn of(lib: &Library) -> Components {
        let methods = lib.methods.len();
        let mut parent: Vec<usize> = (0..methods + lib.refs.len()).collect();
        fn find(parent: &mut [usize], mut x: usize) -> usize {
            while parent[x] != x {
                parent[x] = parent[parent[x]];
                x = parent[x];
            }
            x
        }
        let union = |parent: &mut Vec<usize>, a: usize, b: usize| {
            let (ra, rb) = (find(parent, a), find(parent, b));
            parent[ra] = rb;
        };
        for (m, method) in lib.methods.iter().enumerate() {
            let mut mentions = Mentions::default();
            mentions.code(lib, method.code);
            for r in mentions.refs {
                union(&mut parent, m, methods + r as usize);
            }
            for other in mentions.methods {
                union(&mut parent, m, other as usize);
            }
        }
        for (r, initial) in lib.store.iter().enumerate() {
            if let Initial::Name(GlobalName::Method(m)) = initial {
                union(&mut parent, methods + r, *m as usize);
            }
        }
        let mut number = BTreeMap::new();
        let mut component = |parent: &mut Vec<usize>, x: usize| {
            let root = find(parent, x);
            let next = number.len();
            *number.entry(root).or_insert(next)
        };
        let method = (0..methods).map(|m| component(&mut parent, m)).collect();
        let reference = (0..lib.refs.len())
            .map(|r| component(&mut parent, methods + r))
            .collect();
        Components {
            method,
            reference,
            count: number.len(),
        }
    }
}

/// The references and methods a piece of code mentions, with the codes nested in it.
#[derive(Default)]
struct Mentions {
    refs: HashSet<u32>,
    methods: HashSet<MethodId>,
    codes: HashSet<CodeId>,
}

impl Mentions {
    fn code(&mut self, lib: &Library, id: CodeId) {
        if self.codes.insert(id) {
            self.expr(lib, &lib.code(id).body);
        }
    }

    fn expr(&mut self, lib: &Library, e: &Expr) {
        match &e.kind {
            ExprKind::Deref(r) | ExprKind::Assign(r, _) => {
                self.refs.insert(*r);
            }
            ExprKind::Global(GlobalName::Method(m)) => {
                self.methods.insert(*m);
            }
            ExprKind::Lambda(code) | ExprKind::LetRec(code, _) => self.code(lib, *code),
            _ => {}
        }
        for child in e.children() {
            self.expr(lib, child);
        }
    }
}

/// The failure sites in each component's code ([`Expr::failure_sites`]).
fn sites_per_component(lib: &Library, parts: &Components) -> Vec<BTreeSet<SiteKey>> {
    let mut out = vec![BTreeSet::new(); parts.count];
    for (m, method) in lib.methods.iter().enumerate() {
        let mut mentions = Mentions::default();
        mentions.code(lib, method.code);
        let mut sites = Vec::new();
        for code in mentions.codes {
            lib.code(code).body.failure_sites(&mut sites);
        }
        out[parts.method[m]].extend(
            sites
                .into_iter()
                .map(|(kind, span)| (kind, span.start, span.end)),
        );
    }
    out
}

/// For each component, the most calls to the client one frame of it can make within
/// `k` open frames (counting the library functions it calls on the way, whose frames
/// end inside it); `None` if some frame can make more than [`MAX_CALLBACKS`].
fn callbacks_per_component(lib: &Library, parts: &Components, k: u32) -> Option<Vec<u32>> {
    let mut bound = Bound {
        lib,
        values: lib.value_codes(),
        done: std::collections::HashMap::new(),
    };
    // The client's call takes one frame; the library functions it calls, the rest.
    let depth = k.saturating_sub(1);
    let mut out = vec![0; parts.count];
    for (m, method) in lib.methods.iter().enumerate() {
        let mut mentions = Mentions::default();
        mentions.code(lib, method.code);
        for code in mentions.codes {
            let entry = code == method.code && method.visibility == Visibility::Public;
            if entry || bound.values.contains(&code) {
                let part = &mut out[parts.method[m]];
                *part = (*part).max(bound.code(code, depth)?);
            }
        }
    }
    Some(out)
}

/// The most callbacks of one frame of a code with `depth` more frames to open. Each
/// library function called opens one, so the measure is finite even for recursion and
/// chains of closures.
struct Bound<'a> {
    lib: &'a Library,
    /// Codes that can be function values ([`Library::value_codes`]).
    values: HashSet<CodeId>,
    done: std::collections::HashMap<(CodeId, u32), Option<u32>>,
}

impl Bound<'_> {
    fn code(&mut self, id: CodeId, depth: u32) -> Option<u32> {
        if let Some(&n) = self.done.get(&(id, depth)) {
            return n;
        }
        let n = self.expr(&self.lib.code(id).body, depth);
        self.done.insert((id, depth), n);
        n
    }

    /// A call of a function value: a client function (one callback) or any library
    /// function that can be a value.
    fn unknown(&mut self, depth: u32) -> Option<u32> {
        let mut most = 1;
        if depth > 0 {
            let values: Vec<CodeId> = self.values.iter().copied().collect();
            for code in values {
                most = most.max(self.code(code, depth - 1)?);
            }
        }
        Some(most)
    }

    fn expr(&mut self, e: &Expr, depth: u32) -> Option<u32> {
        let n = match &e.kind {
            ExprKind::Local(_)
            | ExprKind::Global(_)
            | ExprKind::Int(_)
            | ExprKind::Unit
            | ExprKind::Deref(_)
            | ExprKind::Lambda(_) => 0,
            ExprKind::Assign(_, a)
            | ExprKind::Not(a)
            | ExprKind::Fst(a)
            | ExprKind::Snd(a)
            | ExprKind::Assert(a)
            | ExprKind::Alloc(a, _)
            | ExprKind::Load(a)
            | ExprKind::LetRec(_, a) => self.expr(a, depth)?,
            ExprKind::Pair(a, b)
            | ExprKind::Binary(_, a, b)
            | ExprKind::Seq(a, b)
            | ExprKind::Store(a, b)
            | ExprKind::Let(a, b) => self.expr(a, depth)? + self.expr(b, depth)?,
            ExprKind::If(c, t, f) => {
                self.expr(c, depth)? + self.expr(t, depth)?.max(self.expr(f, depth)?)
            }
            ExprKind::App(f, a) => {
                let callee = match &f.kind {
                    ExprKind::Global(GlobalName::Import(_)) => 1,
                    ExprKind::Global(GlobalName::Undeclared(_)) => 0,
                    // Without a frame left the path ends there.
                    ExprKind::Global(GlobalName::Method(_)) if depth == 0 => 0,
                    ExprKind::Global(GlobalName::Method(m)) => {
                        self.code(self.lib.methods[*m as usize].code, depth - 1)?
                    }
                    _ => self.unknown(depth)?,
                };
                self.expr(f, depth)? + self.expr(a, depth)? + callee
            }
        };
        (n <= MAX_CALLBACKS).then_some(n)
    }
}

/// The library restricted to the components `members`, plus the stand-in's
/// declarations when `stand_in`.
fn sub_program(
    program: &Program,
    lib: &Library,
    parts: &Components,
    members: &[usize],
    stand_in: bool,
) -> Option<Program> {
    let mut names: HashSet<&str> = HashSet::new();
    for (m, method) in lib.methods.iter().enumerate() {
        if members.contains(&parts.method[m]) {
            names.insert(&method.name);
        }
    }
    for (r, name) in lib.refs.iter().enumerate() {
        if members.contains(&parts.reference[r]) {
            names.insert(name);
        }
    }
    let mut sub = Program {
        bounds: program.bounds.clone(),
        imports: program.imports.clone(),
        decls: program
            .decls
            .iter()
            .filter(|d| names.contains(d.name().name.as_str()))
            .cloned()
            .collect(),
        main: None,
    };
    if stand_in {
        let stand_in = crate::frontend::load_str("split", &stand_in_source(), false)
            .ok()?
            .program;
        sub.imports.extend(stand_in.imports);
        sub.decls.extend(stand_in.decls);
    }
    Some(sub)
}

/// The declarations of the stand-in: its body is never run, since the search plays
/// it ([`StandIn`]).
fn stand_in_source() -> String {
    format!("import {CALLBACK} :(unit -> unit)\npublic {TRAMPOLINE} (u:unit) :(unit) = {{ () }};\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn library(src: &str) -> (Program, Library) {
        let loaded = crate::frontend::load_str("t.holi", src, false)
            .unwrap_or_else(|r| panic!("{}", r.render(false)));
        let lib = crate::build::build(&loaded.program);
        (loaded.program, lib)
    }

    const TWO_PARTS: &str = "
        import syscall :(int -> unit)
        int a := 0; int b := 0; int c := 0;
        public setA (u:unit) :(unit) = { a := 1 };
        public check (u:unit) :(unit) = { helper(); assert(not(!a)) };
        private helper (u:unit) :(unit) = { b := !b + 1 };
        public run (f:unit -> unit) :(unit) = { c := 0; f(); f(); syscall(!c) };
    ";

    #[test]
    fn methods_sharing_references_or_calls_form_one_component() {
        let (_, lib) = library(TWO_PARTS);
        let parts = Components::of(&lib);
        let part = |name: &str| {
            let m = lib.methods.iter().position(|m| m.name == name).unwrap();
            parts.method[m]
        };
        assert_eq!(parts.count, 2);
        assert_eq!(part("setA"), part("check"));
        assert_eq!(part("check"), part("helper"));
        assert_ne!(part("check"), part("run"));
    }

    #[test]
    fn callbacks_per_frame_are_counted_within_the_frame_bound() {
        let (_, lib) = library(TWO_PARTS);
        let parts = Components::of(&lib);
        let run = lib.methods.iter().position(|m| m.name == "run").unwrap();
        let counts = callbacks_per_component(&lib, &parts, 3).unwrap();
        assert_eq!(counts[parts.method[run]], 3);
        assert_eq!(counts[parts.method[0]], 0);
        let (_, looping) = library(
            "public spin (f:unit -> unit) :(unit) = {
               letrec go (n:int) :(unit) = if 0 < n then (f(); go(n - 1)) else () in go(3)
             };",
        );
        let parts = Components::of(&looping);
        // At k 2 a frame of `go` (were it revealed, the client could call it) has one
        // more frame to open. Each of its two calls of function values may be a client
        // function or `go` with no frame left, which calls two client functions at most.
        assert_eq!(callbacks_per_component(&looping, &parts, 2), Some(vec![4]));
        assert!(callbacks_per_component(&looping, &parts, 40).is_none());
    }

    #[test]
    fn the_stand_in_is_valid_holi() {
        let src = stand_in_source();
        let loaded = crate::frontend::load_str("split", &src, true)
            .unwrap_or_else(|r| panic!("{}", r.render(false)));
        assert_eq!(loaded.program.decls.len(), 1);
    }

    /// A split whose searches run out of budget still hands on the real traces its
    /// parts found, for the search that follows to report.
    #[test]
    fn an_unsettled_split_keeps_the_real_traces_found() {
        let (program, lib) = library(
            "
            int n := 0;
            public boom (u:unit) :(unit) = { assert(0) };
            public spin (f:unit -> unit) :(unit) = { n := !n + 1; f(); f(); assert(not(!n == 50)) };
        ",
        );
        let options = CheckOptions {
            k: 4,
            l: 3,
            max_configurations: Some(2_000),
            ..CheckOptions::default()
        };
        let plan = SearchPlan::new(&options, &lib);
        let Err(unsettled) = check(&program, &lib, &options, plan, &mut |_| {}) else {
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
            plan,
        };
        add_found(&mut result, unsettled.found);
        assert_eq!(result.verdict, Verdict::Unsafe);
        assert_eq!(result.failing_traces, 1);
        assert_eq!(result.counterexamples[0].trace.0.len(), 1);
        assert_eq!(result.inconclusive.len(), 1);
    }
}
