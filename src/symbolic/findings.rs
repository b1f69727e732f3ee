//! What a search has found, apart from how it searched: the failures (the shortest
//! trace per site, every one with `all`, and a count of distinct failing traces), the
//! places where paths got stuck, and the bound that branch and bound cuts at.
//!
//! The search ([`super::explore`]) hands each failure over once rendered and asks back
//! only what steers it: the bound, whether every target site was reached, and the
//! shortest length found per site (which the memo compares, [`super::memo`]).

use super::brief::Brief;
use super::memo;
use super::outcome::{
    add_stuck, add_stuck_site, verdict, CheckResult, Stats, StuckReason, StuckSite,
};
use super::plan::{Goal, SearchPlan};
use crate::library::Library;
use crate::syntax::ast::Span;
use crate::trace::{Counterexample, FailureKind, Site};
use rustc_hash::FxHashSet;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

/// Distinct failing traces counted exactly (by fingerprint) before the count becomes a
/// lower bound ([`super::CheckResult::failing_traces_lower_bound`]): long searches find
/// millions, and remembering them all would grow memory without bound. About 20 MB.
const FAILING_CAP: usize = 1 << 20;

pub struct Findings {
    /// Keep every failing trace (`all`), not only the shortest per site.
    all: bool,
    /// Failure sites numbered in order of discovery, and the shortest trace length
    /// found at each.
    sites: HashMap<Site, u32>,
    best: Vec<u32>,
    /// With branch and bound: the failure sites whose shortest traces the search is
    /// for, and those not reached yet; once none is left, `bound` is the longest of the
    /// targets' shortest traces, and traces that long or longer are cut (other sites
    /// may then lose theirs).
    targets: Vec<Site>,
    unreached: HashSet<Site>,
    bound: Option<u32>,
    /// Every distinct failing trace, as a 64-bit fingerprint of its text (two of
    /// a million traces share one with odds below 10⁻⁷), up to `failing_cap` of them
    /// without `all`; `failing_capped` once a trace went uncounted for that.
    failing: FxHashSet<u64>,
    failing_cap: usize,
    failing_capped: bool,
    /// Every distinct pair of failing trace and failure site, by fingerprint, and the
    /// counterexamples themselves (kept only with `all`): two sites reached by the
    /// same moves are two counterexamples.
    all_seen: HashSet<u128>,
    /// With their texts, rendered when found, to sort them by.
    every: Vec<(String, Counterexample)>,
    /// The shortest failing trace per failure site, with its text (ties go to the
    /// smaller text, and a search meets many ties).
    shortest: HashMap<Site, (Counterexample, String)>,
    /// Paths stuck per place and reason, in source order.
    stuck: Vec<StuckSite>,
    /// The sites numbered beforehand ([`Findings::numbered`]).
    listed: usize,
}

/// What a search found, as a shard hands it to the merge ([`super::shares`]): what
/// [`Findings::report`] reads, and the texts that break ties. The shortest traces per
/// site carry their values chosen already ([`super::values`]): the least model of a
/// path condition is the same wherever it is looked for, and only the shard holds the
/// path conditions.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FoundPart {
    /// Per site, its shortest trace with the text it was found with.
    pub shortest: Vec<(String, Counterexample)>,
    /// With `all`, every failing trace with its text.
    pub every: Vec<(String, Counterexample)>,
    /// The fingerprints of the distinct failing traces found, in ascending order.
    pub failing: Vec<u64>,
    pub failing_capped: bool,
    pub stuck: Vec<StuckSite>,
}

/// The findings as a result reports them.
pub struct Reported {
    /// Shortest first, ties by text.
    pub counterexamples: Vec<Counterexample>,
    pub failing_traces: usize,
    pub failing_traces_lower_bound: bool,
    pub stuck: Vec<StuckSite>,
}

impl Findings {
    /// Nothing found yet; branch and bound cuts once every site of `targets` is
    /// reached (no targets: it never cuts).
    pub fn new(all: bool, targets: Vec<Site>) -> Findings {
        Findings {
            all,
            sites: HashMap::new(),
            best: Vec::new(),
            unreached: targets.iter().cloned().collect(),
            targets,
            bound: None,
            failing: FxHashSet::default(),
            failing_cap: FAILING_CAP,
            failing_capped: false,
            all_seen: HashSet::new(),
            every: Vec::new(),
            shortest: HashMap::new(),
            stuck: Vec::new(),
            listed: 0,
        }
    }

    /// Nothing found yet by a search by `plan` of `lib`: its failure sites numbered in
    /// their order, and, with branch and bound, the live ones
    /// ([`Library::live_failure_sites`]) its targets. A site in code no run executes
    /// never gets a trace, so aiming at it would keep branch and bound from ever
    /// cutting; leaving it out changes nothing else, since no trace reaches it.
    pub fn for_plan(plan: SearchPlan, lib: &Library) -> Findings {
        let targets = if plan.bound() {
            lib.live_failure_sites()
        } else {
            Vec::new()
        };
        Findings::new(plan.goal() == Goal::Every, targets).numbered(&lib.failure_sites())
    }

    /// Numbers `sites` beforehand, in their order, so that every search given the same
    /// list numbers them alike (the tasks of [`super::tasks`] share memo summaries,
    /// which name sites by number). A site not yet reached has no length.
    pub fn numbered(mut self, sites: &[Site]) -> Findings {
        for site in sites {
            let next = self.sites.len() as u32;
            if *self.sites.entry(site.clone()).or_insert(next) == next {
                self.best.push(u32::MAX);
            }
        }
        self.listed = self.sites.len();
        self
    }

    /// Whether a site outside the list of [`Findings::numbered`] was reached: its
    /// number is this search's own.
    pub fn unlisted(&self) -> bool {
        self.sites.len() > self.listed
    }

    /// Takes the shortest lengths `best` found elsewhere (by the numbering of the same
    /// list) as found, for branch and bound and the memo; they are not reported.
    pub fn seed(&mut self, best: &[u32]) {
        for (mine, &theirs) in self.best.iter_mut().zip(best) {
            *mine = (*mine).min(theirs);
        }
        let best = &self.best;
        let sites = &self.sites;
        let reached = |site: &Site| {
            sites
                .get(site)
                .is_some_and(|&i| best[i as usize] < u32::MAX)
        };
        self.unreached.retain(|site| !reached(site));
        self.rebound();
    }

    /// Once every target is reached, the bound is the longest of their shortest traces.
    fn rebound(&mut self) {
        if self.unreached.is_empty() && !self.targets.is_empty() {
            let (sites, best) = (&self.sites, &self.best);
            self.bound = self
                .targets
                .iter()
                .filter_map(|target| sites.get(target))
                .map(|&site| best[site as usize])
                .max();
        }
    }

    /// Adds what `other` found (a search numbered by the same list), as if found here.
    pub fn merge(&mut self, other: Findings) {
        for (site, &number) in &other.sites {
            let length = other.best[number as usize];
            let next = self.sites.len() as u32;
            let mine = *self.sites.entry(site.clone()).or_insert(next);
            if mine == next {
                self.best.push(length);
            }
            self.best[mine as usize] = self.best[mine as usize].min(length);
            if length < u32::MAX {
                self.unreached.remove(site);
            }
        }
        self.rebound();
        for fingerprint in other.failing {
            self.count_failing(fingerprint);
        }
        self.failing_capped |= other.failing_capped;
        for (text, cx) in other.every {
            if self
                .all_seen
                .insert(pair_fingerprint(&text, &cx.kind, &cx.span))
            {
                self.every.push((text, cx));
            }
        }
        for (site, (cx, text)) in other.shortest {
            self.keep_shorter(site, cx, &text);
        }
        add_stuck(&mut self.stuck, other.stuck);
    }

    /// Counts a failing trace by its fingerprint, up to the cap (without `all`).
    fn count_failing(&mut self, fingerprint: u64) {
        if self.all || self.failing.len() < self.failing_cap {
            self.failing.insert(fingerprint);
        } else if !self.failing.contains(&fingerprint) {
            self.failing_capped = true;
        }
    }

    /// Keeps `cx` (whose text is `text`) as the shortest trace at `site` if it is
    /// shorter than the one kept, or as long with a smaller text.
    fn keep_shorter(&mut self, site: Site, cx: Counterexample, text: &str) {
        let better = match self.shortest.get(&site) {
            None => true,
            Some((old, old_text)) => (cx.trace.0.len(), text) < (old.trace.0.len(), old_text),
        };
        if better {
            self.shortest.insert(site, (cx, text.to_string()));
        }
    }

    /// Whether branch and bound has targets.
    pub fn bounds(&self) -> bool {
        !self.targets.is_empty()
    }

    /// Aims branch and bound at `targets` instead.
    pub fn retarget(&mut self, targets: &[Site]) {
        self.targets = targets.to_vec();
        self.unreached = targets.iter().cloned().collect();
    }

    /// Traces of at least this many moves are cut.
    pub fn bound(&self) -> Option<u32> {
        self.bound
    }

    /// Whether every target site has a trace.
    pub fn targets_reached(&self) -> bool {
        self.unreached.is_empty()
    }

    /// The shortest trace length found per site, by site number.
    pub fn best(&self) -> &[u32] {
        &self.best
    }

    /// Whether some failure was found.
    pub fn any_failure(&self) -> bool {
        !self.shortest.is_empty()
    }

    /// How many distinct failing traces were found (counted up to the cap).
    pub fn failing_traces(&self) -> usize {
        self.failing.len()
    }

    /// Takes up the stuck paths of an earlier attempt of the same search.
    pub fn resume_stuck(&mut self, stuck: Vec<StuckSite>) {
        self.stuck = stuck;
    }

    /// A path stuck at `span` for `reason`.
    pub fn stuck(&mut self, span: &Span, reason: StuckReason) {
        let site = StuckSite {
            span: span.clone(),
            reason,
            paths: 1,
        };
        add_stuck_site(&mut self.stuck, site);
    }

    /// A failing trace of `moves` moves, whose rendered text is `text`; its site's
    /// number, for the search to credit the configurations above it.
    pub fn failure(&mut self, cx: Counterexample, text: String, moves: u32) -> u32 {
        let key = cx.site();
        self.count_failing(memo::salted_hash(&text, 1));
        let new = self.all
            && self
                .all_seen
                .insert(pair_fingerprint(&text, &key.kind, &key.span));
        let next_site = self.sites.len() as u32;
        let site = *self.sites.entry(key.clone()).or_insert(next_site);
        if site == next_site {
            self.best.push(moves);
        }
        self.best[site as usize] = self.best[site as usize].min(moves);
        // A trace of at least `bound` moves can only fail at a site already reached
        // no later. A subtree the bound cut is marked as cut in the memo, which then
        // prunes with it only configurations met with no fewer moves (and so with no
        // more room under the bound, which only falls).
        if (self.unreached.remove(&key) || self.bound.is_some()) && self.unreached.is_empty() {
            self.rebound();
        }
        // Shortest first, ties by text.
        if new {
            self.keep_shorter(key, cx.clone(), &text);
            self.every.push((text, cx));
        } else {
            self.keep_shorter(key, cx, &text);
        }
        site
    }

    /// What these findings hand to the merge, the shortest traces' values chosen by
    /// `settle` (which sees them shortest first, ties by text).
    pub fn into_part(self, settle: impl FnOnce(&mut [Counterexample])) -> FoundPart {
        let mut shortest: Vec<(String, Counterexample)> = self
            .shortest
            .into_values()
            .map(|(cx, text)| (text, cx))
            .collect();
        shortest.sort_by(|a, b| (a.1.trace.0.len(), &a.0).cmp(&(b.1.trace.0.len(), &b.0)));
        let (texts, mut traces): (Vec<String>, Vec<Counterexample>) = shortest.into_iter().unzip();
        settle(&mut traces);
        let mut failing: Vec<u64> = self.failing.into_iter().collect();
        failing.sort_unstable();
        FoundPart {
            shortest: texts.into_iter().zip(traces).collect(),
            every: self.every,
            failing,
            failing_capped: self.failing_capped,
            stuck: self.stuck,
        }
    }

    /// The findings a shard handed over (`part`), to be merged with the others' as if
    /// found here: a search by `plan` of `lib`, as [`Findings::for_plan`].
    pub fn from_part(part: FoundPart, plan: SearchPlan, lib: &Library) -> Findings {
        let mut found = Findings::for_plan(plan, lib);
        for (text, cx) in part.shortest {
            let site = cx.site();
            let moves = cx.trace.0.len() as u32;
            let next = found.sites.len() as u32;
            let number = *found.sites.entry(site.clone()).or_insert(next);
            if number == next {
                found.best.push(moves);
            }
            found.best[number as usize] = found.best[number as usize].min(moves);
            found.unreached.remove(&site);
            found.keep_shorter(site, cx, &text);
        }
        found.rebound();
        for (text, cx) in part.every {
            if found
                .all_seen
                .insert(pair_fingerprint(&text, &cx.kind, &cx.span))
            {
                found.every.push((text, cx));
            }
        }
        for fingerprint in part.failing {
            found.count_failing(fingerprint);
        }
        found.failing_capped |= part.failing_capped;
        add_stuck(&mut found.stuck, part.stuck);
        found
    }

    /// The result of a search by `brief` that found these, with its counters and the
    /// reasons it is incomplete.
    pub fn into_result(
        self,
        stats: Stats,
        inconclusive: Vec<String>,
        brief: &Brief,
    ) -> CheckResult {
        let found = self.report();
        CheckResult {
            verdict: verdict(
                &found.counterexamples,
                &inconclusive,
                &found.stuck,
                &brief.run,
            ),
            counterexamples: found.counterexamples,
            failing_traces: found.failing_traces,
            failing_traces_lower_bound: found.failing_traces_lower_bound,
            stats,
            inconclusive,
            stuck: found.stuck,
            plan: brief.plan,
        }
    }

    /// The findings as reported: every failing trace with `all`, else the shortest
    /// per site, shortest first and ties by text.
    pub fn report(self) -> Reported {
        let mut keyed: Vec<(usize, String, Counterexample)> = if self.all {
            self.every
                .into_iter()
                .map(|(text, c)| (c.trace.0.len(), text, c))
                .collect()
        } else {
            self.shortest
                .into_values()
                .map(|(c, text)| (c.trace.0.len(), text, c))
                .collect()
        };
        keyed.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        Reported {
            counterexamples: keyed.into_iter().map(|(_, _, c)| c).collect(),
            failing_traces: self.failing.len(),
            failing_traces_lower_bound: self.failing_capped,
            stuck: self.stuck,
        }
    }
}

/// The fingerprint of a failing trace's text at a site: two sites reached by the same
/// moves are two counterexamples.
fn pair_fingerprint(text: &str, kind: &FailureKind, span: &Span) -> u128 {
    memo::hash128(&format!("{text}\n{kind:?} {span:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Trace;

    /// A failing trace whose text is `text`, at one site; its model names the text,
    /// so that a report shows which was kept.
    fn fail(findings: &mut Findings, text: &str) {
        let cx = Counterexample {
            kind: FailureKind::Assert,
            span: 0..1,
            trace: Trace(Vec::new()),
            concrete: Trace(Vec::new()),
            model: std::collections::BTreeMap::from([(text.to_string(), 0.into())]),
            locations: Vec::new(),
            valuation: None,
        };
        findings.failure(cx, text.to_string(), 0);
    }

    fn shown(found: Findings) -> Vec<String> {
        let report = found.report();
        let names = report.counterexamples.iter().flat_map(|c| c.model.keys());
        names.cloned().collect()
    }

    #[test]
    fn of_equally_short_traces_at_a_site_the_smallest_text_is_kept() {
        let mut found = Findings::new(false, Vec::new());
        ["b", "c", "a", "d"]
            .iter()
            .for_each(|t| fail(&mut found, t));
        assert_eq!(shown(found), ["a"]);
        let mut one = Findings::new(false, Vec::new());
        fail(&mut one, "c");
        let mut other = Findings::new(false, Vec::new());
        fail(&mut other, "b");
        one.merge(other);
        assert_eq!(shown(one), ["b"]);
    }

    #[test]
    fn past_the_cap_the_count_of_failing_traces_is_a_lower_bound() {
        let texts = ["a", "b", "a", "c", "d", "e"];
        let mut capped = Findings::new(false, Vec::new());
        capped.failing_cap = 3;
        texts.iter().for_each(|t| fail(&mut capped, t));
        let capped = capped.report();
        assert_eq!(capped.failing_traces, 3);
        assert!(capped.failing_traces_lower_bound);
        // The report itself does not depend on the cap.
        assert_eq!(capped.counterexamples.len(), 1);
        let mut exact = Findings::new(false, Vec::new());
        texts.iter().for_each(|t| fail(&mut exact, t));
        let exact = exact.report();
        assert_eq!(
            (exact.failing_traces, exact.failing_traces_lower_bound),
            (5, false)
        );
        // With `all` every trace is output, so it is counted exactly.
        let mut all = Findings::new(true, Vec::new());
        all.failing_cap = 3;
        texts.iter().for_each(|t| fail(&mut all, t));
        let all = all.report();
        assert_eq!(
            (all.failing_traces, all.failing_traces_lower_bound),
            (5, false)
        );
        assert_eq!(all.counterexamples.len(), 5);
    }
}
