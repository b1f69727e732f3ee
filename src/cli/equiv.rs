//! `holi equiv LEFT RIGHT [--k K] [--l L]`: does any client tell two libraries apart?
//!
//! Load both → resolve bounds → the equivalence pipeline ([`crate::equiv`]: search,
//! client, a run on each side) → report. One deadline (`--timeout`) and one Ctrl-C
//! flag cover every phase.

use super::args::parse_seconds;
use super::exit::Outcome;
use super::inputs::Input;
use super::ui::Ui;
use crate::check::ProofMode;
use crate::diagnostics::Diagnostic;
use crate::equiv::{
    self, Compared, Ending, EquivBounds, EquivError, Observed, Parting, Proof, Replay, Verdict,
};
use crate::frontend::Loaded;
use crate::hobbit::translate;
use crate::report::{HOLI_VERSION, JSON_SCHEMA_VERSION};
use crate::symbolic::product::Side;
use crate::symbolic::{Bounds, CheckOptions, Limits, Run, Techniques, DEFAULT_K, DEFAULT_L};
use crate::syntax::ast::{Decl, Program, Span};
use crate::trace::{FailureKind, Move};
use crate::{html, sarif};
use clap::{Args, ValueEnum};
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// For people: the distinguishing trace, values and client.
    Text,
    /// One JSON document (`lang/equiv.md`).
    Json,
    /// SARIF 2.1.0, for code-scanning services (`lang/equiv.md`).
    Sarif,
}

#[derive(Args, Debug)]
pub struct EquivArgs {
    /// The first library, or a Hobbit file (`.bils`) holding both sides.
    #[arg(value_name = "LEFT")]
    pub left: PathBuf,
    /// The second library, with the same public methods and imports (none after a
    /// `.bils` file).
    #[arg(value_name = "RIGHT")]
    pub right: Option<PathBuf>,
    /// Print each side of a Hobbit file as a HOLi library, and stop.
    #[arg(long)]
    pub emit_holi: bool,
    /// Open frames of the client's calls allowed on each side. Without `--k` and `--l`,
    /// the comparison deepens, one bound per level, up to the files' headers (or 4 and
    /// 4), and with `--timeout` past them until a difference or the time limit.
    #[arg(long)]
    pub k: Option<u32>,
    /// The client's call budget per context.
    #[arg(long)]
    pub l: Option<u32>,
    /// Nested applications each library may make itself (calls of its own functions,
    /// recursion) [default: 4].
    #[arg(long, value_name = "N")]
    pub unfold: Option<u32>,
    /// The most elements of a list the client plays, where a list crosses the
    /// interface [default: 3].
    #[arg(long, value_name = "N")]
    pub list_length: Option<u32>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Stop after this many seconds, for every phase. Deepening, the answer is then
    /// about the largest bounds covered; at bounds given, it is inconclusive.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub timeout: Option<Duration>,
    /// Give up on one solver query after this many seconds (the answer is then
    /// inconclusive).
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds, default_value = "10")]
    pub solver_timeout: Duration,
    /// Stop each comparison after this many configurations.
    #[arg(long, value_name = "N")]
    pub max_configurations: Option<u64>,
    /// Stop when holi and its solver process hold more than this many MiB.
    #[arg(long, value_name = "MIB", default_value_t = 8192,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_memory: u64,
    /// Treat every front-end warning as an error.
    #[arg(long)]
    pub strict: bool,
    /// Write the distinguishing client to DIR/LEFT-vs-RIGHT.holi (the files' stems).
    #[arg(long, value_name = "DIR")]
    pub client: Option<PathBuf>,
    /// Also write an HTML report to FILE: one self-contained page with the verdict and
    /// the two libraries' runs side by side where they part.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Spend more effort on proving the libraries equivalent for every k and l when
    /// the search finds no difference (without it the attempt takes no longer than the
    /// search did, or a second): the attempt has all the time the command has, and
    /// the command exits with 3 when no proof is found (`lang/proofs.md` §8).
    #[arg(long, conflicts_with = "no_prove")]
    pub prove: bool,
    /// Do not try to prove the libraries equivalent beyond the bounds.
    #[arg(long)]
    pub no_prove: bool,
    /// Write the certificate of a proof of equivalence for every k and l to
    /// DIR/LEFT-vs-RIGHT.smt2: every obligation as an SMT-LIB query that must be
    /// unsatisfiable (`z3 DIR/LEFT-vs-RIGHT.smt2` re-checks the proof).
    #[arg(long, value_name = "DIR", conflicts_with = "no_prove")]
    pub certificate: Option<PathBuf>,
}

/// Two files whose interfaces differ.
const INCOMPARABLE: &str = "E0405";

pub fn run(args: EquivArgs, ui: &Ui) -> Outcome {
    let start = Instant::now();
    let deadline = args.timeout.and_then(|t| start.checked_add(t));
    let interrupt = Arc::new(AtomicBool::new(false));
    {
        let flag = Arc::clone(&interrupt);
        // Only fails if a handler is already set (then that one stays in charge).
        let _ = ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed));
    }
    let loaded = match load(&args, ui) {
        Ok(loaded) => loaded,
        Err(outcome) => return outcome,
    };
    if args.emit_holi {
        for file in &loaded {
            super::ui::out(&format!("// {}\n{}\n", file.name, file.source));
        }
        return Outcome::Ok;
    }
    let mut loaded = loaded.into_iter();
    let (Some(left), Some(right)) = (loaded.next(), loaded.next()) else {
        return Outcome::BadInput;
    };
    let mut errors = Vec::new();
    for file in [&left, &right] {
        if let Some(main) = &file.program.main {
            errors.push((
                file,
                Diagnostic::error(INCOMPARABLE, "this file is a client, not a library")
                    .with_label(&file.name, main.span.clone(), "a client's `main`")
                    .with_hint("`holi equiv` compares two libraries."),
            ));
        }
    }
    let bounds = resolve_bounds(&args, &left, &right);
    for (what, value) in [("k", bounds.k), ("l", bounds.l)] {
        if value == 0 {
            errors.push((
                &left,
                Diagnostic::error(
                    "E0401",
                    format!("The bound {what} must be at least 1, not 0"),
                ),
            ));
        }
    }
    if !errors.is_empty() {
        for (file, e) in errors {
            eprint!("{}", e.render(&file.sources(), ui.color_stderr));
        }
        return Outcome::BadInput;
    }
    let options = CheckOptions {
        bounds,
        techniques: Techniques::default(),
        limits: Limits {
            timeout: deadline.map(|d| d.saturating_duration_since(Instant::now())),
            deadline,
            solver_timeout: Some(
                args.solver_timeout
                    .min(Duration::from_millis(u32::MAX.into())),
            ),
            max_configurations: args.max_configurations,
            max_memory: Some(args.max_memory.saturating_mul(1 << 20)),
            interrupt: Some(Arc::clone(&interrupt)),
        },
        run: Run {
            solver_process: std::env::current_exe().ok(),
            ..Run::default()
        },
    };
    let stem = |p: &PathBuf| {
        p.file_stem().map_or_else(
            || "library".to_string(),
            |s| s.to_string_lossy().into_owned(),
        )
    };
    let stem = match &args.right {
        Some(right) => format!("{}-vs-{}", stem(&args.left), stem(right)),
        None => stem(&args.left),
    };
    let request = equiv::Request {
        options,
        unfold: args.unfold.unwrap_or(equiv::DEFAULT_UNFOLD),
        lists: args
            .list_length
            .unwrap_or(crate::symbolic::config::DEFAULT_LIST_LENGTH),
        deepen: match (args.k.or(args.l), args.timeout) {
            (Some(_), _) => equiv::Deepen::No,
            (None, None) => equiv::Deepen::To,
            (None, Some(_)) => equiv::Deepen::Past(equiv::Past {
                unfold: args.unfold.is_none(),
                lists: args.list_length.is_none(),
            }),
        },
        client_dir: args.client.clone(),
        stem,
        proof: if args.prove {
            ProofMode::Required
        } else if args.no_prove {
            ProofMode::Off
        } else {
            ProofMode::Default
        },
        certificate: args.certificate.clone(),
    };
    let compared = match equiv::run(&left, &right, &request, &mut |_| {}) {
        Ok(c) => c,
        Err(EquivError::Incomparable(mismatches)) => {
            for m in mismatches {
                let mut d = Diagnostic::error(INCOMPARABLE, m.what).with_hint(
                    "`holi equiv` compares libraries with the same public methods and imports \
                     (names and types): a client of one must be a client of the other.",
                );
                for side in m.sides {
                    let file = match side {
                        Side::Left => &left,
                        Side::Right => &right,
                    };
                    if let Some(span) = declaration(&file.program, &m.name) {
                        d = d.with_label(&file.name, span, format!("declared here, on the {side}"));
                    }
                }
                let mut sources = left.sources();
                sources.add(&right.name, &right.source);
                eprint!("{}", d.render(&sources, ui.color_stderr));
            }
            return Outcome::BadInput;
        }
        Err(EquivError::Client(e)) => {
            eprintln!("error: cannot write the distinguishing client: {e}");
            return Outcome::BadInput;
        }
        Err(EquivError::Certificate(e)) => {
            eprintln!("error: cannot write the certificate: {e}");
            return Outcome::BadInput;
        }
    };
    let names = [left.name.as_str(), right.name.as_str()];
    let written = match args.format {
        Format::Text => {
            let text = text_report(&compared, names, [&left, &right], ui);
            std::io::stdout().lock().write_all(text.as_bytes())
        }
        Format::Json => {
            let doc = json_report(&compared, names);
            let mut out = std::io::stdout().lock();
            serde_json::to_writer_pretty(&mut out, &doc)
                .map_err(std::io::Error::from)
                .and_then(|()| writeln!(out))
        }
        Format::Sarif => {
            // A Hobbit file's places are in its sides' translations, not in the file.
            let hobbit = args.right.is_none();
            let paths = [&args.left, args.right.as_ref().unwrap_or(&args.left)]
                .map(|p| p.display().to_string());
            let files = [
                sarif_file(&paths[0], &left, hobbit),
                sarif_file(&paths[1], &right, hobbit),
            ];
            sarif::equiv::write_equiv(&compared, files, &mut std::io::stdout().lock())
        }
    };
    if let Some(path) = &args.report {
        let written = std::fs::File::create(path).and_then(|file| {
            html::write_equiv(
                std::io::BufWriter::new(file),
                &compared,
                names,
                [&left.source, &right.source],
            )
        });
        if let Err(e) = written {
            eprintln!("error: cannot write the report {}: {e}", path.display());
            return Outcome::BadInput;
        }
    }
    let outcome = match compared.verdict {
        // `--prove` asks for a proof: equivalence within bounds only is not the answer.
        Verdict::Equivalent if args.prove && !matches!(compared.proof, Proof::Proved { .. }) => {
            Outcome::Inconclusive
        }
        Verdict::Equivalent => Outcome::Ok,
        Verdict::Inequivalent => Outcome::Failure,
        Verdict::Inconclusive => Outcome::Inconclusive,
        Verdict::Stuck => Outcome::Stuck,
    };
    match written {
        Ok(()) => outcome,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => outcome,
        Err(e) => {
            eprintln!("error: cannot write the report: {e}");
            Outcome::BadInput
        }
    }
}

/// A side for the SARIF log: the file `path`, whose places are those of `loaded`
/// unless it is a Hobbit file (its sides' places are in their translations).
fn sarif_file<'a>(path: &'a str, loaded: &'a Loaded, hobbit: bool) -> sarif::equiv::EquivFile<'a> {
    sarif::equiv::EquivFile {
        path,
        text: (!hobbit).then_some((loaded.source.as_str(), &loaded.program)),
    }
}

/// The two libraries: two HOLi files, or the two sides of one Hobbit file (`.bils`).
fn load(args: &EquivArgs, ui: &Ui) -> Result<Vec<Loaded>, Outcome> {
    let hobbit = args.left.extension().is_some_and(|e| e == "bils");
    let loaded = match (&args.right, hobbit) {
        (None, true) => translate::load(&args.left, args.strict).map(Vec::from),
        (Some(right), false) => {
            let mut both = Vec::new();
            let mut rejected = false;
            for path in [&args.left, right] {
                match Input::File(path.clone()).load(args.strict) {
                    Ok(l) => both.push(l),
                    Err(r) => {
                        eprint!("{}", r.render(ui.color_stderr));
                        rejected = true;
                    }
                }
            }
            if rejected {
                return Err(Outcome::BadInput);
            }
            Ok(both)
        }
        (Some(_), true) => {
            eprintln!(
                "error: a Hobbit file (`.bils`) holds both sides: give it alone, `holi equiv {}`",
                args.left.display()
            );
            return Err(Outcome::BadInput);
        }
        (None, false) => {
            eprintln!(
                "error: `holi equiv` compares two libraries: give a second file, or one Hobbit \
                 file (`.bils`) holding both sides"
            );
            return Err(Outcome::BadInput);
        }
    };
    match loaded {
        Ok(loaded) => {
            if args.emit_holi && !hobbit {
                eprintln!("error: --emit-holi prints the sides of a Hobbit file (`.bils`)");
                return Err(Outcome::BadInput);
            }
            for l in &loaded {
                ui.warnings(&l.render_warnings(ui.color_stderr));
            }
            Ok(loaded)
        }
        Err(rejected) => {
            eprint!("{}", rejected.render(ui.color_stderr));
            Err(Outcome::BadInput)
        }
    }
}

/// Where the public method or import `name` is declared.
fn declaration(program: &Program, name: &str) -> Option<Span> {
    let method = program.decls.iter().find_map(|d| match d {
        Decl::Method(m) if m.name.name == name => Some(m.span.clone()),
        _ => None,
    });
    method.or_else(|| {
        program
            .imports
            .iter()
            .find(|i| i.name.name == name)
            .map(|i| i.span.clone())
    })
}

/// The bounds asked for: the flags, else the larger of the files' headers, else the
/// defaults.
fn resolve_bounds(args: &EquivArgs, left: &Loaded, right: &Loaded) -> Bounds {
    let header = |f: fn(&crate::syntax::ast::Bounds) -> u32| {
        [left, right]
            .iter()
            .filter_map(|l| l.program.bounds.as_ref().map(f))
            .max()
    };
    Bounds {
        k: args.k.or(header(|b| b.k)).unwrap_or(DEFAULT_K),
        l: args.l.or(header(|b| b.l)).unwrap_or(DEFAULT_L),
    }
}

fn verdict_word(v: Verdict) -> &'static str {
    match v {
        Verdict::Equivalent => "EQUIVALENT",
        Verdict::Inequivalent => "INEQUIVALENT",
        Verdict::Inconclusive => "INCONCLUSIVE",
        Verdict::Stuck => "STUCK",
    }
}

fn parting_text(p: &Parting, file: &Loaded) -> String {
    match p {
        Parting::Moved { trace, concrete } if trace == concrete => trace.to_string(),
        Parting::Moved { trace, concrete } => format!("{trace}   = {concrete}"),
        Parting::Failed { kind, span } => {
            let line = file.source[..span.start.min(file.source.len())]
                .matches('\n')
                .count()
                + 1;
            format!("{} (line {line})", equiv::failure_verb(*kind))
        }
        Parting::Diverged => "diverges".to_string(),
    }
}

fn observed_text(o: &Observed) -> String {
    match o {
        Observed::Moved(m) => format!("`{m}`"),
        Observed::Failed {
            kind: FailureKind::Assert,
            ..
        } => "the library fail an assert".to_string(),
        Observed::Failed {
            kind: FailureKind::Division,
            ..
        } => "the library divide by zero".to_string(),
        Observed::Diverged => "the library diverge".to_string(),
    }
}

fn text_report(c: &Compared, names: [&str; 2], files: [&Loaded; 2], ui: &Ui) -> String {
    let mut out = String::new();
    let scope = match (c.verdict, c.covered, &c.proof) {
        (Verdict::Equivalent, _, Proof::Proved { .. }) => " for every k and l (proved)".to_string(),
        (Verdict::Equivalent, Some(b), _) => format!(" within {b}"),
        (Verdict::Inequivalent, ..) => format!(" within {}", c.bounds),
        _ => String::new(),
    };
    let _ = writeln!(
        out,
        "{} vs {}: {}{scope}",
        names[0],
        names[1],
        verdict_word(c.verdict)
    );
    if ui.quiet() {
        return out;
    }
    match c.verdict {
        Verdict::Equivalent => {
            let stats = format!(
                "{} configurations, {:.2} s",
                c.stats.configurations, c.stats.seconds
            );
            // With a proof the verdict line names no bounds: say which the search covered.
            let proved = matches!(c.proof, Proof::Proved { .. });
            let within = match c.covered {
                Some(b) if proved => format!("within {b}"),
                _ => "within these bounds".to_string(),
            };
            match &c.beyond {
                // A proof settled what the search left open.
                None if !c.inconclusive.is_empty() => {
                    if let (true, Some(b)) = (proved, c.covered) {
                        let _ = writeln!(out, "  no client tells them apart within {b}");
                    }
                    let _ = writeln!(
                        out,
                        "  the bounded search stopped first: {} ({stats})",
                        c.inconclusive.join("; ")
                    );
                }
                // The statistics are the last comparison's: the one cut short.
                Some(b) => {
                    let _ = writeln!(out, "  no client tells them apart {within}");
                    let _ = writeln!(
                        out,
                        "  larger bounds were not searched completely ({}): {} ({stats})",
                        b.bounds,
                        b.why.join("; ")
                    );
                }
                None => {
                    let _ = writeln!(out, "  no client tells them apart {within} ({stats})");
                }
            }
        }
        Verdict::Inconclusive | Verdict::Stuck => {
            match c.covered {
                Some(b) => {
                    let _ = writeln!(out, "  no client tells them apart within {b}");
                }
                None => {
                    let _ = writeln!(out, "  no bounds were covered completely");
                }
            }
            for reason in &c.inconclusive {
                let _ = writeln!(out, "  inconclusive: {reason}");
            }
            for place in &c.stuck {
                let file = match place.side {
                    Side::Left => files[0],
                    Side::Right => files[1],
                };
                let line = file.source[..place.span.start.min(file.source.len())]
                    .matches('\n')
                    .count()
                    + 1;
                let _ = writeln!(
                    out,
                    "  stuck: paths of the {} library get stuck at {}:{line} ({:?})",
                    place.side, file.name, place.reason
                );
            }
        }
        Verdict::Inequivalent => {}
    }
    if let Some(d) = &c.difference {
        let _ = writeln!(
            out,
            "  a client tells them apart after {} moves ({}){}:",
            d.moves(),
            d.what,
            if d.shortest {
                ""
            } else {
                "; a shorter difference may exist: the search stopped first"
            }
        );
        for (sym, conc) in d.trace.0.iter().zip(&d.concrete.0) {
            let who = match sym.by {
                crate::trace::Player::Client => "client ",
                crate::trace::Player::Library => "library",
            };
            if sym == conc {
                let _ = writeln!(out, "    {who}  {sym}");
            } else {
                let _ = writeln!(out, "    {who}  {sym}   = {conc}");
            }
        }
        let _ = writeln!(out, "    left     {}", parting_text(&d.left, files[0]));
        let _ = writeln!(out, "    right    {}", parting_text(&d.right, files[1]));
        if !d.model.is_empty() {
            let model: Vec<String> = d.model.iter().map(|(k, v)| format!("{k} = {v}")).collect();
            let _ = writeln!(out, "  values: {}", model.join(", "));
        }
        match &d.replay {
            Replay::Confirmed { left, right, ends } => {
                let _ = writeln!(
                    out,
                    "  replayed: the client below, run with each library, sees {} on the left and {} on the right",
                    observed_text(left),
                    observed_text(right)
                );
                let _ = writeln!(
                    out,
                    "  and its main {} on the left and {} on the right",
                    ends[0], ends[1]
                );
            }
            Replay::Mismatch { side, reason } => {
                let _ = writeln!(out, "  NOT replayed on the {side} side: {reason}");
            }
            Replay::NotReplayed(cutoff) => {
                let _ = writeln!(out, "  not replayed: {cutoff}");
            }
            Replay::Unwritten(why) => {
                let _ = writeln!(out, "  no client written: {why}");
            }
        }
        if let Some(path) = &d.client_path {
            let _ = writeln!(out, "  client written to {}", path.display());
        } else if let Some(source) = &d.client {
            let _ = writeln!(out, "  client:");
            for line in source.lines() {
                let _ = writeln!(out, "    {line}");
            }
        }
    }
    match &c.proof {
        Proof::Proved {
            relation,
            turn_relation,
            obligations,
            pairs,
            smtlib,
            seconds,
        } => {
            let _ = writeln!(
                out,
                "  proved: {obligations} obligation{} over {pairs} pair{} of functions, {seconds:.2} s (lang/proofs.md §8)",
                if *obligations == 1 { "" } else { "s" },
                if *pairs == 1 { "" } else { "s" }
            );
            let relation = match relation.is_empty() {
                true => "none needed".to_string(),
                false => relation.join("; "),
            };
            let _ = writeln!(out, "  relation at every client turn: {relation}");
            if !turn_relation.is_empty() {
                let _ = writeln!(out, "  turn relation: {}", turn_relation.join("; "));
            }
            if let Some(path) = smtlib {
                let _ = writeln!(out, "  certificate written to {}", path.display());
            }
        }
        Proof::NotProved(why) => {
            let _ = writeln!(out, "  not proved for every k and l: {why}");
        }
        Proof::NotAttempted => {}
    }
    if ui.verbose() {
        let _ = writeln!(
            out,
            "  search: {} configurations ({} met before), {} solver queries, {:.2} s, at {}",
            c.stats.configurations,
            c.stats.subsumed,
            c.stats.solver_queries,
            c.stats.seconds,
            c.bounds
        );
    }
    out
}

fn move_json(m: &Move) -> Value {
    Value::String(m.to_string())
}

fn parting_json(p: &Parting) -> Value {
    match p {
        Parting::Moved { trace, concrete } => json!({
            "kind": "move",
            "move": move_json(trace),
            "concrete": move_json(concrete),
        }),
        Parting::Failed { kind, span } => json!({
            "kind": "failure",
            "failure": kind,
            "span": { "start": span.start, "end": span.end },
        }),
        Parting::Diverged => json!({ "kind": "divergence" }),
    }
}

fn observed_json(o: &Observed) -> Value {
    match o {
        Observed::Moved(m) => json!({ "kind": "move", "move": move_json(m) }),
        Observed::Failed { kind, span } => json!({
            "kind": "failure",
            "failure": kind,
            "span": { "start": span.start, "end": span.end },
        }),
        Observed::Diverged => json!({ "kind": "divergence" }),
    }
}

fn json_report(c: &Compared, names: [&str; 2]) -> Value {
    let bounds =
        |b: EquivBounds| json!({ "k": b.k, "l": b.l, "unfold": b.unfold, "list_length": b.lists });
    let verdict = c.verdict.name();
    let difference = c.difference.as_ref().map(|d| {
        let replayed = match &d.replay {
            Replay::Confirmed { left, right, ends } => json!({
                "status": "confirmed",
                "left": observed_json(left),
                "right": observed_json(right),
                "ends": ends.iter().map(Ending::to_string).collect::<Vec<_>>(),
            }),
            Replay::Mismatch { side, reason } => json!({
                "status": "mismatch",
                "side": side.to_string(),
                "reason": reason,
            }),
            Replay::NotReplayed(cutoff) => json!({
                "status": "not-replayed",
                "reason": cutoff.to_string(),
            }),
            Replay::Unwritten(why) => json!({ "status": "unwritten", "reason": why }),
        };
        json!({
            "moves": d.moves(),
            "shortest": d.shortest,
            "what": d.what,
            "trace": d.trace.0.iter().map(move_json).collect::<Vec<_>>(),
            "concrete": d.concrete.0.iter().map(move_json).collect::<Vec<_>>(),
            "left": parting_json(&d.left),
            "right": parting_json(&d.right),
            "model": d.model.iter().map(|(k, v)| (k.clone(), Value::String(v.to_string()))).collect::<serde_json::Map<_, _>>(),
            "client": d.client,
            "client_path": d.client_path.as_ref().map(|p| p.display().to_string()),
            "replayed": replayed,
        })
    });
    json!({
        "schema_version": JSON_SCHEMA_VERSION,
        "holi_version": HOLI_VERSION,
        "command": "equiv",
        "left": names[0],
        "right": names[1],
        "verdict": verdict,
        "scope": match c.proof {
            Proof::Proved { .. } => "all-bounds",
            _ => "bounded",
        },
        "proof": match &c.proof {
            Proof::Proved { relation, turn_relation, obligations, pairs, smtlib, seconds } => json!({
                "relation": relation,
                "turn_relation": turn_relation,
                "obligations": obligations,
                "pairs": pairs,
                "seconds": seconds,
                "smtlib": smtlib.as_ref().map(|p| p.display().to_string()),
            }),
            _ => Value::Null,
        },
        "not_proved": match &c.proof {
            Proof::NotProved(why) => Value::String(why.clone()),
            _ => Value::Null,
        },
        "bounds": bounds(c.bounds),
        "covered": c.covered.map(bounds),
        "beyond": c.beyond.as_ref().map(|b| json!({ "bounds": bounds(b.bounds), "why": b.why })),
        "difference": difference,
        "inconclusive": c.inconclusive,
        "stuck": c.stuck.iter().map(|p| json!({
            "side": p.side.to_string(),
            "reason": format!("{:?}", p.reason),
            "span": { "start": p.span.start, "end": p.span.end },
        })).collect::<Vec<_>>(),
        "levels": c.levels.iter().map(|level| json!({
            "bounds": bounds(level.bounds),
            "probe": level.probe,
            "end": level.end.as_str(),
            "configurations": level.configurations,
            "seconds": level.seconds,
        })).collect::<Vec<_>>(),
        "statistics": {
            "configurations": c.stats.configurations,
            "solver_queries": c.stats.solver_queries,
            "seconds": c.stats.seconds,
        },
    })
}
