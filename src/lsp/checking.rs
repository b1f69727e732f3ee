//! The check of an open document, in the background (`lang/editors.md`): started on
//! open, on save and on request with the document's bounds (the request's, else the
//! editor's settings, else the file's header, else HOLiK's), and cancelled through its
//! interrupt flag when a newer version arrives. Its result becomes a state per failure
//! site (fails, safe within k and l, proved for every bound, not settled), a warning at
//! each place where paths got stuck, and one verdict for the file.

use super::lines::Lines;
use crate::check::{self, Checked, ProofMode, Request};
use crate::frontend::Loaded;
use crate::report::{failure_diagnostic, model_text, BoundSource, Report, Scope};
use crate::symbolic::{CheckOptions, Limits, Run, Verdict, DEFAULT_K, DEFAULT_L};
use crate::syntax::ast::Program;
use crate::trace::{Counterexample, FailureKind, Site};
use lsp_types::{DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString, Uri};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What the editor may set, in `initializationOptions` or as the `holi` section of
/// `workspace/didChangeConfiguration`. A field that is missing or malformed keeps its
/// default, so that a typo in an editor's settings never stops the checks.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// Bounds for files whose header gives none; the header wins otherwise, as it does
    /// for `holi check` without `--k`/`--l`.
    pub k: Option<u32>,
    pub l: Option<u32>,
    /// How long one check may run.
    pub timeout: Duration,
    /// The most memory one check may use, in bytes.
    pub max_memory: u64,
    /// Threads per check.
    pub jobs: usize,
    pub check_on_open: bool,
    pub check_on_save: bool,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            k: None,
            l: None,
            timeout: Duration::from_secs(60),
            max_memory: 4096 << 20,
            jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
            check_on_open: true,
            check_on_save: true,
        }
    }
}

impl Settings {
    /// `base` with what `value` sets: `{"k": 3, "l": 2, "timeoutSeconds": 30,
    /// "maxMemoryMiB": 2048, "jobs": 2, "checkOnOpen": true, "checkOnSave": true}`,
    /// alone or under `"holi"`; `null` for `k`, `l` or `jobs` sets it back to none (the
    /// machine's cores for `jobs`).
    pub fn updated(base: &Settings, value: &Value) -> Settings {
        let value = value.get("holi").unwrap_or(value);
        let number = |name: &str| value.get(name).and_then(Value::as_u64);
        let unset = |name: &str| value.get(name).is_some_and(Value::is_null);
        let bound = |name: &str, base: Option<u32>| {
            if unset(name) {
                return None;
            }
            number(name).and_then(|n| u32::try_from(n).ok()).or(base)
        };
        let flag = |name: &str, default: bool| {
            (value.get(name))
                .and_then(Value::as_bool)
                .unwrap_or(default)
        };
        let seconds = (value.get("timeoutSeconds"))
            .and_then(Value::as_f64)
            .filter(|s| s.is_finite() && *s > 0.0)
            .map(|s| Duration::from_secs_f64(s.min(1e6)));
        Settings {
            k: bound("k", base.k),
            l: bound("l", base.l),
            timeout: seconds.unwrap_or(base.timeout),
            max_memory: number("maxMemoryMiB")
                .map_or(base.max_memory, |m| m.saturating_mul(1 << 20)),
            jobs: if unset("jobs") {
                Settings::default().jobs
            } else {
                (number("jobs"))
                    .and_then(|j| usize::try_from(j).ok())
                    .filter(|&j| j > 0)
                    .unwrap_or(base.jobs)
            },
            check_on_open: flag("checkOnOpen", base.check_on_open),
            check_on_save: flag("checkOnSave", base.check_on_save),
        }
    }
}

/// Where a bound came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The request that started the check (a command with bounds).
    Request,
    Settings,
    Header,
    Default,
}

impl Origin {
    pub fn text(self) -> &'static str {
        match self {
            Origin::Request => "asked",
            Origin::Settings => "editor settings",
            Origin::Header => "file header",
            Origin::Default => "HOLiK's default",
        }
    }

    /// As the reports name it: anything but the header and the default was given
    /// from outside the file, as on the command line.
    fn source(self) -> BoundSource {
        match self {
            Origin::Request | Origin::Settings => BoundSource::CommandLine,
            Origin::Header => BoundSource::Header,
            Origin::Default => BoundSource::Default,
        }
    }
}

/// A check under way.
pub struct Job {
    pub generation: u64,
    pub version: i32,
    interrupt: Arc<AtomicBool>,
}

impl Job {
    /// Stops the check within a fraction of a second; its result is then dropped.
    pub fn cancel(&self) {
        self.interrupt.store(true, Ordering::Relaxed);
    }
}

/// A check that ended, for the document at `uri` as it was at `version`.
pub struct Finished {
    pub uri: Uri,
    pub generation: u64,
    pub version: i32,
    pub outcome: Outcome,
}

/// What a check came to.
pub enum Outcome {
    /// The front end rejected the text: its diagnostics say why, and there is nothing
    /// to check.
    NotLoaded,
    /// There is nothing to check, for this reason (a client, a bound of 0).
    Refused(String),
    Checked(Box<Done>),
    /// The check could not run to its end (a file it could not write).
    Failed(String),
}

/// A finished check and what it needs to be shown.
pub struct Done {
    pub loaded: Loaded,
    pub k: u32,
    pub l: u32,
    pub k_origin: Origin,
    pub l_origin: Origin,
    pub checked: Checked,
    /// Every place the library can fail, in source order.
    pub sites: Vec<Site>,
    pub seconds: f64,
}

/// Starts checking `text`, the document at `uri` at `version`, with the bounds asked
/// (either may be missing) and `settings`; `done` gets the result, also when the check
/// is cancelled. An error is a thread that could not be started.
#[allow(clippy::too_many_arguments)]
pub fn start(
    uri: Uri,
    version: i32,
    generation: u64,
    text: String,
    asked: (Option<u32>, Option<u32>),
    settings: &Settings,
    done: impl FnOnce(Finished) + Send + 'static,
) -> std::io::Result<Job> {
    let interrupt = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&interrupt);
    let settings = settings.clone();
    std::thread::Builder::new()
        .name("holi-lsp-check".to_string())
        // The front end and the search recurse as the CLI's do, on as large a stack.
        .stack_size(crate::frontend::STACK_SIZE)
        .spawn(move || {
            // A bug in holi must not leave the editor waiting for a check forever.
            let checked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                check(&uri, &text, asked, &settings, flag)
            }));
            let outcome = checked.unwrap_or_else(|panic| {
                let why = (panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                Outcome::Failed(format!("a bug in holi: the check panicked ({why})"))
            });
            done(Finished {
                uri,
                generation,
                version,
                outcome,
            });
        })?;
    Ok(Job {
        generation,
        version,
        interrupt,
    })
}

fn check(
    uri: &Uri,
    text: &str,
    asked: (Option<u32>, Option<u32>),
    settings: &Settings,
    interrupt: Arc<AtomicBool>,
) -> Outcome {
    let started = Instant::now();
    // Reports name the file by its path, as `holi check` does.
    let name = super::address::path_of(uri)
        .map_or_else(|| uri.as_str().to_string(), |p| p.display().to_string());
    let Ok(loaded) = crate::frontend::load_str(&name, text, false) else {
        return Outcome::NotLoaded;
    };
    if loaded.program.main.is_some() {
        return Outcome::Refused(
            "a client (it has `main`), not a library: `holi run` runs it".to_string(),
        );
    }
    let header = loaded.program.bounds.as_ref();
    let resolve =
        |asked: Option<u32>, set: Option<u32>, file: Option<u32>, default| match (asked, set, file)
        {
            (Some(v), _, _) => (v, Origin::Request),
            // The file's header is what the file asks for, as in `holi check`.
            (None, _, Some(v)) => (v, Origin::Header),
            (None, Some(v), None) => (v, Origin::Settings),
            (None, None, None) => (default, Origin::Default),
        };
    let (k, k_origin) = resolve(asked.0, settings.k, header.map(|b| b.k), DEFAULT_K);
    let (l, l_origin) = resolve(asked.1, settings.l, header.map(|b| b.l), DEFAULT_L);
    if k == 0 || l == 0 {
        return Outcome::Refused(format!(
            "the bounds must be at least 1 (k = {k} from the {}, l = {l} from the {})",
            k_origin.text(),
            l_origin.text()
        ));
    }
    let deadline = Instant::now() + settings.timeout;
    let request = Request {
        options: CheckOptions {
            limits: Limits {
                timeout: Some(settings.timeout),
                deadline: Some(deadline),
                max_memory: Some(settings.max_memory),
                interrupt: Some(interrupt),
                ..Limits::default()
            },
            run: Run {
                jobs: settings.jobs,
                solver_process: std::env::current_exe().ok(),
                ..Run::default()
            },
            ..CheckOptions::bounded(k, l)
        },
        proof: ProofMode::Default,
        certificate: None,
        replay: true,
        client_dir: None,
        stem: super::address::stem(uri),
    };
    let checked = match check::run(&loaded, &request, &mut |_| {}) {
        Ok(checked) => checked,
        Err(e) => return Outcome::Failed(e.to_string()),
    };
    let sites = crate::library::build(&loaded.program).failure_sites();
    Outcome::Checked(Box::new(Done {
        loaded,
        k,
        l,
        k_origin,
        l_origin,
        checked,
        sites,
        seconds: started.elapsed().as_secs_f64(),
    }))
}

/// What one failure site came to.
pub enum State<'d> {
    Fails(usize, &'d Counterexample),
    /// No client makes it fail within the bounds.
    Safe,
    /// Nor with any bounds: the library was proved safe.
    Proved,
    /// The check says nothing about it, for this reason.
    NotSettled(String),
}

impl Done {
    /// The report of this check, as `holi check` would make it: for the HTML page and
    /// the verdict line.
    pub fn report(&self) -> Report<'_> {
        let confirmation = self.checked.confirmation.as_ref();
        Report {
            file: &self.loaded.name,
            source: &self.loaded.source,
            k: self.k,
            l: self.l,
            k_source: self.k_origin.source(),
            l_source: self.l_origin.source(),
            all: false,
            result: &self.checked.result,
            replayed: confirmation.map(|c| c.verdicts.iter().map(crate::replay::status).collect()),
            clients: confirmation.map(|c| c.clients.clone()),
            warnings: &self.loaded.warnings,
            program: Some(&self.loaded.program),
            deadline: None,
            scope: self.checked.scope.clone(),
            require_proof: false,
        }
    }

    /// Where `c` fails: `assertion fails at /x/dao.holi:14:5`.
    pub fn failure_place(&self, c: &Counterexample) -> String {
        let lines = crate::report::LineIndex::new(&self.loaded.source);
        crate::report::failure_place(c, &self.loaded.name, &lines)
    }

    /// The bounds as a phrase: `k = 3 (file header), l = 2 (file header)`.
    pub fn bounds_text(&self) -> String {
        format!(
            "k = {} ({}), l = {} ({})",
            self.k,
            self.k_origin.text(),
            self.l,
            self.l_origin.text()
        )
    }

    /// The verdict in a word, as the `holi/verdict` notification and the lenses say it;
    /// as in `holi check`'s exit code, a counterexample that did not replay (a bug in
    /// holi) leaves it inconclusive.
    pub fn verdict_word(&self) -> &'static str {
        if self.report().replay_failed() {
            return "inconclusive";
        }
        match (self.checked.result.verdict, &self.checked.scope) {
            (Verdict::Safe, Some(Scope::AllBounds { .. })) => "proved",
            (Verdict::Safe, _) => "safe",
            (Verdict::Unsafe, _) => "unsafe",
            (Verdict::Inconclusive, _) => "inconclusive",
            (Verdict::Stuck, _) => "stuck",
        }
    }

    /// The verdict line of the text report (`UNSAFE: 1 failing trace found …`).
    pub fn summary(&self) -> String {
        let summary = self.report().summary_text(0);
        summary.lines().next().unwrap_or_default().to_string()
    }

    /// The state of `site`.
    pub fn state(&self, site: &Site) -> State<'_> {
        let result = &self.checked.result;
        let failing = (result.counterexamples.iter().enumerate())
            .find(|(_, c)| c.kind == site.kind && c.span == site.span);
        if let Some((n, c)) = failing {
            return State::Fails(n, c);
        }
        if !result.inconclusive.is_empty() {
            return State::NotSettled(format!(
                "the check was cut short: {}",
                result.inconclusive.join("; ")
            ));
        }
        // A stuck path leaves what follows it unexplored, whatever else was found.
        if !result.stuck.is_empty() {
            return State::NotSettled(
                "some paths got stuck (see the warnings), and what follows them was not explored"
                    .to_string(),
            );
        }
        match (result.verdict, &self.checked.scope) {
            (Verdict::Safe, Some(Scope::AllBounds { .. })) => State::Proved,
            // A complete search finds the shortest trace to every site that fails.
            (Verdict::Safe | Verdict::Unsafe, _) => State::Safe,
            (Verdict::Inconclusive | Verdict::Stuck, _) => {
                State::NotSettled("the check did not settle the library".to_string())
            }
        }
    }

    /// The check's diagnostics: one per failure site, saying its state; one per place
    /// where paths got stuck; and one at the top of the file for a check cut short.
    pub fn diagnostics(&self, uri: &Uri, lines: &Lines<'_>) -> Vec<lsp_types::Diagnostic> {
        let mut out = Vec::new();
        let proved_why = match &self.checked.scope {
            Some(Scope::Bounded(why)) => format!(" (not proved for larger bounds: {why})"),
            _ => String::new(),
        };
        for site in &self.sites {
            let range = lines.range(&site.span);
            let what = site_word(site.kind);
            let diagnostic = match self.state(site) {
                State::Fails(n, c) => self.failure(n, c, uri, lines),
                State::Safe => information(
                    range,
                    format!(
                        "safe within k = {}, l = {}: no client makes {what} fail{proved_why}",
                        self.k, self.l
                    ),
                ),
                State::Proved => information(
                    range,
                    format!("proved: no client makes {what} fail, for every k and l"),
                ),
                State::NotSettled(why) => information(range, format!("not settled: {why}")),
            };
            out.push(diagnostic);
        }
        for stuck in &self.checked.result.stuck {
            out.push(lsp_types::Diagnostic {
                range: lines.range(&stuck.span),
                severity: Some(DiagnosticSeverity::WARNING),
                source: Some("holi".to_string()),
                message: format!(
                    "{} explored path{} got stuck here: {}; what follows was not explored",
                    stuck.paths,
                    if stuck.paths == 1 { "" } else { "s" },
                    crate::report::stuck_reason_text(&stuck.reason)
                ),
                ..lsp_types::Diagnostic::default()
            });
        }
        let result = &self.checked.result;
        if !result.inconclusive.is_empty() {
            out.push(lsp_types::Diagnostic {
                range: lsp_types::Range::default(),
                severity: Some(DiagnosticSeverity::WARNING),
                source: Some("holi".to_string()),
                message: format!(
                    "the check at {} is incomplete: {}",
                    self.bounds_text(),
                    result.inconclusive.join("; ")
                ),
                ..lsp_types::Diagnostic::default()
            });
        }
        out
    }

    /// The error at a failing site: the shortest trace with its values, whether a
    /// client replayed it, and the call tree as related information, each line at the
    /// declaration of the method or import its move names.
    fn failure(
        &self,
        n: usize,
        c: &Counterexample,
        uri: &Uri,
        lines: &Lines<'_>,
    ) -> lsp_types::Diagnostic {
        let (code, title, _) = failure_diagnostic(c.kind);
        let moves = c.trace.0.len();
        let mut message = format!(
            "{title} after {moves} move{} ({}): {}",
            if moves == 1 { "" } else { "s" },
            self.bounds_text(),
            c.trace
        );
        if !c.model.is_empty() {
            message.push_str(&format!(
                "\nwith {}\ne.g. {}",
                model_text(&c.model),
                c.concrete
            ));
        }
        let replayed = (self.checked.confirmation.as_ref())
            .and_then(|confirmation| confirmation.verdicts.get(n))
            .map(crate::replay::status);
        if let Some(replayed) = replayed {
            message.push_str(&format!("\n{}", replayed.text()));
        }
        let at = lines.range(&c.span);
        let place = |shown: Option<usize>| {
            let declared = shown
                .and_then(|m| c.trace.0.get(m))
                .and_then(|m| declaration(&self.loaded.program, &m.method));
            declared.map_or(at, |span| lines.range(&span))
        };
        let leaf = self.failure_place(c);
        let tree = crate::calltree::CallTree::new(&c.trace);
        let related = (tree
            .located_lines(&c.trace, &c.concrete, &leaf, true)
            .into_iter())
        .map(|(shown, line)| DiagnosticRelatedInformation {
            location: Location {
                uri: uri.clone(),
                range: place(shown),
            },
            message: line,
        })
        .collect();
        lsp_types::Diagnostic {
            range: at,
            severity: Some(DiagnosticSeverity::ERROR),
            code: Some(NumberOrString::String(code.to_string())),
            source: Some("holi".to_string()),
            message,
            related_information: Some(related),
            ..lsp_types::Diagnostic::default()
        }
    }

    /// The `holi/verdict` notification's parameters.
    pub fn verdict(&self, uri: &Uri, version: i32) -> Value {
        let result = &self.checked.result;
        json!({
            "uri": uri.as_str(),
            "version": version,
            "state": self.verdict_word(),
            "k": self.k,
            "l": self.l,
            "summary": self.summary(),
            "failures": result.counterexamples.len(),
            "stuckPlaces": result.stuck.len(),
            "seconds": self.seconds,
        })
    }
}

/// The declaration of the method or import `name` (a revealed function has none).
pub fn declaration(program: &Program, name: &str) -> Option<crate::diagnostics::Span> {
    let decl = program.decls.iter().find(|d| d.name().name == name);
    decl.map(|d| d.name().span.clone()).or_else(|| {
        let import = program.imports.iter().find(|i| i.name.name == name);
        import.map(|i| i.name.span.clone())
    })
}

pub fn site_word(kind: FailureKind) -> &'static str {
    match kind {
        FailureKind::Assert => "this assertion",
        FailureKind::Division => "this division",
    }
}

fn information(range: lsp_types::Range, message: String) -> lsp_types::Diagnostic {
    lsp_types::Diagnostic {
        range,
        severity: Some(DiagnosticSeverity::INFORMATION),
        source: Some("holi".to_string()),
        message,
        ..lsp_types::Diagnostic::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_keep_their_defaults_where_a_field_is_missing_or_malformed() {
        let base = Settings::default();
        let set = Settings::updated(
            &base,
            &json!({"holi": {"k": 3, "l": "two", "timeoutSeconds": -1, "checkOnSave": false}}),
        );
        assert_eq!(set.k, Some(3));
        assert_eq!(set.l, None);
        assert_eq!(set.timeout, base.timeout);
        assert!(!set.check_on_save);
        assert!(set.check_on_open);
        let again = Settings::updated(&set, &json!({"jobs": 0, "maxMemoryMiB": 16}));
        assert_eq!(
            again.k,
            Some(3),
            "a later update keeps what it does not set"
        );
        assert_eq!(again.jobs, base.jobs);
        assert_eq!(again.max_memory, 16 << 20);
        let cleared = Settings::updated(&again, &json!({"k": null, "jobs": null}));
        assert_eq!(cleared.k, None, "null sets a bound back to none");
        assert_eq!(cleared.jobs, base.jobs);
    }
}
