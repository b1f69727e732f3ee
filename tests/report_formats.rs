//! The machine-readable reports of `holi check`: the JSON document against its schema
//! (`lang/check-output.schema.json`), SARIF against the official SARIF 2.1.0 schema
//! (`tests/data/sarif-schema-2.1.0.json`), stuck places in every format, and streaming.

use holi::diagnostics::Diagnostic;
use holi::frontend;
use holi::replay;
use holi::report::{BoundSource, Replay, Report};
use holi::symbolic::{
    self, CheckOptions, CheckResult, SearchPlan, Stats, StuckReason, StuckSite, Verdict,
};
use holi::symbolic::{Bounds, Techniques};
use holi::syntax::ast::Program;
use holi::trace::{Counterexample, Dir, FailureKind, Move, Player, Trace, TraceValue};
use num_bigint::BigInt;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn holi_schema() -> &'static jsonschema::Validator {
    static SCHEMA: OnceLock<jsonschema::Validator> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        let schema = read_json(&root().join("lang/check-output.schema.json"));
        jsonschema::options()
            .should_validate_formats(true)
            .build(&schema)
            .expect("the report schema is a valid schema")
    })
}

fn sarif_schema() -> &'static jsonschema::Validator {
    static SCHEMA: OnceLock<jsonschema::Validator> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        let schema = read_json(&root().join("tests/data/sarif-schema-2.1.0.json"));
        assert_eq!(
            schema["$schema"], "http://json-schema.org/draft-04/schema#",
            "the official SARIF schema is draft-04; jsonschema picks the draft from it"
        );
        jsonschema::options()
            .should_validate_formats(true)
            .build(&schema)
            .expect("the SARIF schema is a valid schema")
    })
}

fn errors(validator: &jsonschema::Validator, doc: &Value) -> Vec<String> {
    validator
        .iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

fn assert_valid(validator: &jsonschema::Validator, doc: &Value, what: &str) {
    let errors = errors(validator, doc);
    assert!(errors.is_empty(), "{what}: {errors:#?}");
}

/// A file as loaded, checked and confirmed, ready to report.
struct Checked {
    name: String,
    source: String,
    program: Program,
    warnings: Vec<Diagnostic>,
    result: CheckResult,
    k: u32,
    l: u32,
    all: bool,
    replayed: Option<Vec<Replay>>,
    clients: Option<Vec<Option<String>>>,
}

impl Checked {
    fn report(&self) -> Report<'_> {
        Report {
            file: &self.name,
            source: &self.source,
            k: self.k,
            l: self.l,
            k_source: BoundSource::Header,
            l_source: BoundSource::CommandLine,
            all: self.all,
            result: &self.result,
            replayed: self.replayed.clone(),
            clients: self.clients.clone(),
            warnings: &self.warnings,
            program: Some(&self.program),
            deadline: None,
            scope: None,
            require_proof: false,
        }
    }
}

/// Checks `path` (relative to the repository) like `holi check`, with the header's
/// bounds unless given, replaying the counterexamples of a default run.
fn check(path: &str, all: bool, bounds: Option<(u32, u32)>) -> Checked {
    let loaded = frontend::load(&root().join(path), false)
        .unwrap_or_else(|r| panic!("{path}: {}", r.render(false)));
    let header = loaded.program.bounds.as_ref().map(|b| (b.k, b.l));
    let (k, l) = bounds.or(header).unwrap_or((2, 2));
    let options = CheckOptions {
        bounds: Bounds { k, l },
        techniques: Techniques {
            all,
            ..Techniques::default()
        },
        ..CheckOptions::default()
    };
    let result = symbolic::check(&holi::library::build(&loaded.program), &options);
    let (replayed, clients) = if all {
        (None, None)
    } else {
        let options = replay::ConfirmOptions {
            replay: true,
            client_dir: None,
            ..Default::default()
        };
        let confirmed = replay::confirm(&loaded.program, &result.counterexamples, &options, "c")
            .expect("no client is written");
        let replayed = confirmed
            .verdicts
            .iter()
            .map(|v| {
                if v == &Some(replay::Verdict::Confirmed) {
                    Replay::Confirmed
                } else {
                    Replay::Mismatch
                }
            })
            .collect();
        (Some(replayed), Some(confirmed.clients.clone()))
    };
    Checked {
        // As given on the command line: relative to the working directory.
        name: path.to_string(),
        source: loaded.source,
        program: loaded.program,
        warnings: loaded.warnings,
        result,
        k,
        l,
        all,
        replayed,
        clients,
    }
}

/// Every example, the default search and `--all` (dao with smaller bounds: at its
/// header's it lists 50 MB of traces), and the libraries with stuck paths.
fn real_runs() -> Vec<Checked> {
    let mut runs = Vec::new();
    let mut examples: Vec<PathBuf> = std::fs::read_dir(root().join("examples"))
        .expect("examples/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "holi"))
        .collect();
    examples.sort();
    assert!(examples.len() >= 8, "{examples:?}");
    for path in examples {
        let name = format!(
            "examples/{}",
            path.file_name().expect("name").to_string_lossy()
        );
        let all_bounds = name.ends_with("/dao.holi").then_some((2, 2));
        runs.push(check(&name, false, None));
        runs.push(check(&name, true, all_bounds));
    }
    for name in ["tests/data/stuck_safe.holi", "tests/data/stuck_unsafe.holi"] {
        runs.push(check(name, false, None));
        runs.push(check(name, true, None));
    }
    runs
}

fn real() -> &'static [Checked] {
    static RUNS: OnceLock<Vec<Checked>> = OnceLock::new();
    RUNS.get_or_init(real_runs)
}

#[test]
fn real_json_reports_match_the_schema() {
    let mut verdicts = BTreeMap::new();
    for run in real() {
        let doc: Value = serde_json::from_str(&run.report().json()).expect("JSON");
        assert_valid(holi_schema(), &doc, &run.name);
        assert_eq!(doc["schema_version"], holi::report::JSON_SCHEMA_VERSION);
        assert_eq!(doc["holi_version"], env!("CARGO_PKG_VERSION"));
        *verdicts
            .entry(doc["verdict"].as_str().unwrap_or("").to_string())
            .or_insert(0) += 1;
    }
    // Both kinds of result, and front-end warnings, went through the schema.
    assert!(
        verdicts.contains_key("safe") && verdicts.contains_key("unsafe"),
        "{verdicts:?}"
    );
    assert!(real().iter().any(|r| !r.warnings.is_empty()));
    assert!(real()
        .iter()
        .any(|r| r.clients.as_ref().is_some_and(|c| !c.is_empty())));
}

#[test]
fn real_sarif_logs_match_the_official_schema() {
    for run in real() {
        let doc: Value = serde_json::from_str(&run.report().sarif()).expect("JSON");
        assert_valid(sarif_schema(), &doc, &run.name);
        let results = doc["runs"][0]["results"].as_array().expect("results");
        assert_eq!(
            results.len(),
            run.result.counterexamples.len() + run.result.stuck.len() + run.warnings.len(),
            "{}",
            run.name
        );
    }
}

#[test]
fn the_schema_rejects_wrong_documents() {
    let run = &real()[0];
    let good: Value = serde_json::from_str(&run.report().json()).expect("JSON");
    assert_valid(holi_schema(), &good, "the original");
    assert!(
        !good["counterexamples"]
            .as_array()
            .expect("counterexamples")
            .is_empty(),
        "the first example is unsafe"
    );

    let mut wrong: Vec<(&str, Value)> = Vec::new();
    let mut doc = good.clone();
    doc["verdict"] = "maybe".into();
    wrong.push(("an unknown verdict", doc));
    let mut doc = good.clone();
    doc.as_object_mut()
        .expect("object")
        .remove("schema_version");
    wrong.push(("no schema_version", doc));
    let mut doc = good.clone();
    doc["schema_version"] = "2.0.0".into();
    wrong.push(("another schema_version", doc));
    let mut doc = good.clone();
    doc["counterexamples"][0]["span"]["start"]["line"] = 0.into();
    wrong.push(("line 0", doc));
    let mut doc = good.clone();
    doc["counterexamples"][0]["trace"][0]["dir"] = "jump".into();
    wrong.push(("an unknown move direction", doc));
    let mut doc = good.clone();
    doc["counterexamples"][0]["surprise"] = true.into();
    wrong.push(("an undocumented field", doc));
    let mut doc = good.clone();
    doc["stuck"]["places"] = serde_json::json!([{
        "span": good["counterexamples"][0]["span"],
        "reason": "undeclared",
        "message": "call of the undeclared name `sned`",
        "paths": 1
    }]);
    wrong.push(("an undeclared name without its name", doc));
    for (what, doc) in wrong {
        assert!(!holi_schema().is_valid(&doc), "accepted {what}");
    }
}

#[test]
fn the_sarif_schema_rejects_wrong_logs() {
    let run = &real()[0];
    let good: Value = serde_json::from_str(&run.report().sarif()).expect("JSON");
    let mut doc = good.clone();
    doc["runs"][0]["results"][0]["level"] = "fatal".into();
    assert!(!sarif_schema().is_valid(&doc));
    let mut doc = good.clone();
    doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] =
        0.into();
    assert!(!sarif_schema().is_valid(&doc));
    let mut doc = good;
    doc["runs"][0]["invocations"][0]
        .as_object_mut()
        .expect("invocation")
        .remove("executionSuccessful");
    assert!(!sarif_schema().is_valid(&doc));
}

// Hand-made results: stuck places, as the engine reports them.

const SOURCE: &str = "import send :(int -> unit)\n\
int balance := 10;\n\
public withdraw (m:int) :(unit) = {\n  \
if (m > 100) then sned(m) else (\n    \
balance := !balance - m;\n    \
assert(not (!balance < 0))\n  \
)\n\
};\n";

fn program() -> Program {
    frontend::load_str("lib.holi", SOURCE, false)
        .unwrap_or_else(|r| panic!("{}", r.render(false)))
        .program
}

fn at(needle: &str) -> std::ops::Range<usize> {
    let start = SOURCE.find(needle).expect("in the source");
    start..start + needle.len()
}

fn sym(s: &str) -> TraceValue {
    TraceValue::Sym(s.to_string())
}

fn mv(dir: Dir, by: Player, method: &str, value: TraceValue) -> Move {
    Move::new(dir, by, method, value)
}

fn counterexample(first: i64) -> Counterexample {
    let trace = |v: TraceValue| {
        Trace(vec![
            mv(Dir::Call, Player::Client, "withdraw", v.clone()),
            mv(Dir::Ret, Player::Library, "withdraw", TraceValue::Unit),
            mv(Dir::Call, Player::Client, "withdraw", v),
        ])
    };
    let mut model = BTreeMap::new();
    model.insert("x1".to_string(), BigInt::from(first));
    Counterexample {
        kind: FailureKind::Assert,
        span: at("assert(not (!balance < 0))"),
        trace: trace(sym("x1")),
        concrete: trace(TraceValue::Int(BigInt::from(first))),
        model,
        locations: Vec::new(),
        valuation: None,
    }
}

fn stuck_sites() -> Vec<StuckSite> {
    vec![
        StuckSite {
            span: at("sned(m)"),
            reason: StuckReason::Undeclared("sned".to_string()),
            paths: 3,
        },
        StuckSite {
            span: at("!balance - m"),
            reason: StuckReason::IllTyped,
            paths: 1,
        },
    ]
}

fn result(verdict: Verdict, counterexamples: Vec<Counterexample>) -> CheckResult {
    CheckResult {
        verdict,
        failing_traces: counterexamples.len(),
        failing_traces_lower_bound: false,
        counterexamples,
        stats: Stats::default(),
        inconclusive: Vec::new(),
        stuck: stuck_sites(),
        plan: SearchPlan::default(),
    }
}

fn report<'a>(
    result: &'a CheckResult,
    program: &'a Program,
    warnings: &'a [Diagnostic],
) -> Report<'a> {
    Report {
        file: "lib.holi",
        source: SOURCE,
        k: 2,
        l: 2,
        k_source: BoundSource::Default,
        l_source: BoundSource::Default,
        all: false,
        result,
        replayed: None,
        clients: None,
        warnings,
        program: Some(program),
        deadline: None,
        scope: None,
        require_proof: false,
    }
}

fn warnings() -> Vec<Diagnostic> {
    frontend::load_str("lib.holi", SOURCE, false)
        .expect("loads")
        .warnings
}

#[test]
fn a_stuck_verdict_reads_as_stuck_with_its_places() {
    let program = program();
    let result = result(Verdict::Stuck, Vec::new());
    let text = report(&result, &program, &[]).text(false);
    assert!(
        text.contains(
            "STUCK: no failing trace found, but 4 explored paths got stuck at 2 places; \
             what follows them was not explored, so this is no proof of safety."
        ),
        "{text}"
    );
    assert!(!text.contains("SAFE"), "{text}");
    assert!(
        text.contains("  stuck at lib.holi:4:21: call of the undeclared name `sned` (3 paths)"),
        "{text}"
    );
    assert!(
        text.contains("  stuck at lib.holi:5:16: an ill-typed operation"),
        "{text}"
    );
    assert_eq!(report(&result, &program, &[]).exit_code(), 4);
}

#[test]
fn unsafe_and_inconclusive_reports_note_the_stuck_places() {
    let program = program();
    let unsafe_result = result(Verdict::Unsafe, vec![counterexample(11)]);
    let text = report(&unsafe_result, &program, &[]).text(false);
    assert!(text.contains("UNSAFE"), "{text}");
    assert!(
        text.contains("  note: 4 explored paths got stuck at 2 places, not explored further:\n    stuck at lib.holi:4:21: call of the undeclared name `sned` (3 paths)"),
        "{text}"
    );
    let mut inconclusive = result(Verdict::Inconclusive, Vec::new());
    inconclusive
        .inconclusive
        .push("the timeout of 1 s was reached".to_string());
    let text = report(&inconclusive, &program, &[]).text(false);
    assert!(text.contains("INCONCLUSIVE"), "{text}");
    assert!(
        text.contains("  note: the timeout of 1 s was reached"),
        "{text}"
    );
    assert!(text.contains("    stuck at lib.holi:5:16"), "{text}");
}

#[test]
fn holik_safe_still_lists_the_stuck_places() {
    // CheckOptions::allow_stuck: the verdict is HOLiK's, the places are still shown.
    let program = program();
    let result = result(Verdict::Safe, Vec::new());
    let r = report(&result, &program, &[]);
    let text = r.text(false);
    assert!(text.contains("SAFE within the bounds"), "{text}");
    assert!(
        text.contains("  note: 4 explored paths got stuck at 2 places, not explored further and counted as safe, as HOLiK does:"),
        "{text}"
    );
    assert!(text.contains("    stuck at lib.holi:4:21"), "{text}");
    let doc: Value = serde_json::from_str(&r.json()).expect("JSON");
    assert_eq!(doc["verdict"], "safe");
    assert_eq!(doc["stuck"]["places"].as_array().map(Vec::len), Some(2));
}

#[test]
fn json_lists_stuck_places_warnings_and_full_spans() {
    let program = program();
    let warnings = warnings();
    assert!(!warnings.is_empty(), "the call of `sned` is warned about");
    let result = result(Verdict::Unsafe, vec![counterexample(11)]);
    let doc: Value =
        serde_json::from_str(&report(&result, &program, &warnings).json()).expect("JSON");
    assert_valid(holi_schema(), &doc, "hand-made");
    assert_eq!(doc["stuck"]["paths"], 4);
    let sned = &doc["stuck"]["places"][0];
    assert_eq!(sned["reason"], "undeclared");
    assert_eq!(sned["name"], "sned");
    assert_eq!(sned["message"], "call of the undeclared name `sned`");
    assert_eq!(sned["paths"], 3);
    let sned_at = at("sned(m)");
    assert_eq!(
        sned["span"],
        serde_json::json!({
            "start": {"line": 4, "column": 21, "offset": sned_at.start},
            "end": {"line": 4, "column": 28, "offset": sned_at.end},
        })
    );
    assert_eq!(doc["stuck"]["places"][1]["reason"], "ill_typed");
    assert!(doc["stuck"]["places"][1].get("name").is_none());

    let c = &doc["counterexamples"][0];
    assert_eq!(c["assert"], serde_json::json!({"line": 6, "column": 5}));
    assert_eq!(c["span"]["end"]["line"], 6);
    assert_eq!(c["span"]["end"]["column"], 31);
    assert_eq!(
        c["concrete"],
        "call withdraw(11) · ret withdraw(()) · call withdraw(11)"
    );

    let w = &doc["warnings"][0];
    assert_eq!(w["code"], "W0202");
    assert_eq!(w["severity"], "warning");
    assert_eq!(w["labels"][0]["span"]["start"]["line"], 4);
    assert!(w["hint"].is_string());
}

#[test]
fn a_stuck_verdict_is_stuck_in_json_and_sarif() {
    let program = program();
    let result = result(Verdict::Stuck, Vec::new());
    let r = report(&result, &program, &[]);
    let doc: Value = serde_json::from_str(&r.json()).expect("JSON");
    assert_valid(holi_schema(), &doc, "stuck");
    assert_eq!(doc["verdict"], "stuck");
    let sarif: Value = serde_json::from_str(&r.sarif()).expect("JSON");
    assert_valid(sarif_schema(), &sarif, "stuck");
    let run = &sarif["runs"][0];
    assert_eq!(run["invocations"][0]["exitCode"], 4);
    assert_eq!(run["invocations"][0]["executionSuccessful"], true);
    let results = run["results"].as_array().expect("results");
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["ruleId"], holi::sarif::STUCK_CODE);
    assert_eq!(results[0]["level"], "warning");
    assert!(results[0]["message"]["text"]
        .as_str()
        .is_some_and(|t| t
            .starts_with("3 explored paths got stuck here: call of the undeclared name `sned`.")));
    let region = &results[0]["locations"][0]["physicalLocation"]["region"];
    assert_eq!(region["startLine"], 4);
    assert_eq!(region["startColumn"], 21);
    assert_eq!(region["endColumn"], 28);
}

#[test]
fn sarif_results_carry_rules_regions_code_flows_and_fingerprints() {
    let program = program();
    let warnings = warnings();
    // A second trace to the same assert, one move shorter.
    let mut shorter = counterexample(12);
    shorter.trace.0.remove(0);
    shorter.concrete.0.remove(0);
    let result = result(Verdict::Unsafe, vec![counterexample(11), shorter]);
    let mut r = report(&result, &program, &warnings);
    r.replayed = Some(vec![Replay::Confirmed, Replay::Confirmed]);
    let sarif: Value = serde_json::from_str(&r.sarif()).expect("JSON");
    assert_valid(sarif_schema(), &sarif, "hand-made");
    assert_eq!(sarif["version"], "2.1.0");
    let run = &sarif["runs"][0];
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "holi");
    assert_eq!(driver["version"], env!("CARGO_PKG_VERSION"));
    let rules: Vec<&str> = driver["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .map(|r| r["id"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(&rules[..3], ["C0001", "C0002", "C0003"]);
    assert!(driver["rules"][0]["shortDescription"]["text"].is_string());
    assert!(driver["rules"][0]["fullDescription"]["text"].is_string());
    assert_eq!(run["invocations"][0]["exitCode"], 1);
    assert_eq!(run["columnKind"], "unicodeCodePoints");
    assert_eq!(run["properties"]["verdict"], "unsafe");

    let results = run["results"].as_array().expect("results");
    // Two counterexamples, two stuck places, the warning.
    assert_eq!(results.len(), 2 + 2 + warnings.len());
    let first = &results[0];
    assert_eq!(first["ruleId"], "C0001");
    assert_eq!(first["ruleIndex"], 0);
    assert_eq!(first["level"], "error");
    let message = first["message"]["text"].as_str().expect("message");
    assert!(
        message.starts_with("This assertion fails after 3 moves: call withdraw(x1) · ret withdraw(()) · call withdraw(x1)."),
        "{message}"
    );
    assert!(message.contains("With x1 = 11"), "{message}");
    assert!(message.contains("Confirmed by replay"), "{message}");
    let location = &first["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["uri"], "lib.holi");
    assert_eq!(location["artifactLocation"]["uriBaseId"], "%SRCROOT%");
    let assert_at = at("assert(not (!balance < 0))");
    assert_eq!(
        location["region"],
        serde_json::json!({
            "startLine": 6, "startColumn": 5, "endLine": 6, "endColumn": 31,
            "byteOffset": assert_at.start, "byteLength": assert_at.len(),
        })
    );

    // One step per move at `withdraw`'s declaration (line 3), then the assert.
    let steps = first["codeFlows"][0]["threadFlows"][0]["locations"]
        .as_array()
        .expect("steps");
    assert_eq!(steps.len(), 4);
    let lines: Vec<Option<u64>> = steps
        .iter()
        .map(|s| s["location"]["physicalLocation"]["region"]["startLine"].as_u64())
        .collect();
    assert_eq!(lines, [Some(3), Some(3), Some(3), Some(6)]);
    assert_eq!(
        steps[0]["location"]["message"]["text"],
        "1. the client calls withdraw(x1) (e.g. call withdraw(11))"
    );
    assert_eq!(
        steps[1]["location"]["message"]["text"],
        "2. the library returns () from withdraw"
    );
    assert_eq!(steps[1]["kinds"], serde_json::json!(["return"]));
    let nesting: Vec<Option<u64>> = steps.iter().map(|s| s["nestingLevel"].as_u64()).collect();
    assert_eq!(nesting, [Some(0), Some(0), Some(0), Some(1)]);
    assert_eq!(steps[3]["kinds"], serde_json::json!(["danger"]));

    // Fingerprints: one per distinct trace (whatever the model), the same from run to
    // run.
    let fingerprint = |i: usize| results[i]["partialFingerprints"]["holiFailure/v1"].clone();
    assert!(fingerprint(0).is_string());
    assert_ne!(fingerprint(0), fingerprint(1));
    let same_trace = self::result(Verdict::Unsafe, vec![counterexample(13)]);
    let other: Value =
        serde_json::from_str(&report(&same_trace, &program, &[]).sarif()).expect("JSON");
    assert_eq!(
        other["runs"][0]["results"][0]["partialFingerprints"]["holiFailure/v1"],
        fingerprint(0)
    );
    let again: Value = serde_json::from_str(&r.sarif()).expect("JSON");
    assert_eq!(
        again["runs"][0]["results"][0]["partialFingerprints"],
        results[0]["partialFingerprints"]
    );

    let warning = &results[4];
    assert_eq!(warning["ruleId"], "W0202");
    assert_eq!(warning["level"], "warning");
    assert_eq!(
        warning["locations"][0]["physicalLocation"]["region"]["startLine"],
        4
    );
}

#[test]
fn a_counterexample_that_does_not_replay_is_a_failed_execution() {
    let program = program();
    let result = result(Verdict::Unsafe, vec![counterexample(11)]);
    let mut r = report(&result, &program, &[]);
    r.replayed = Some(vec![Replay::Mismatch]);
    assert_eq!(r.exit_code(), 3);
    let sarif: Value = serde_json::from_str(&r.sarif()).expect("JSON");
    assert_valid(sarif_schema(), &sarif, "replay failure");
    let invocation = &sarif["runs"][0]["invocations"][0];
    assert_eq!(invocation["exitCode"], 3);
    assert_eq!(invocation["executionSuccessful"], false);
    assert_eq!(
        invocation["toolExecutionNotifications"][0]["level"],
        "error"
    );
}

#[test]
fn every_warning_code_in_the_language_reference_has_a_sarif_rule() {
    let reference =
        std::fs::read_to_string(root().join("lang/diagnostics.md")).expect("lang/diagnostics.md");
    let codes: Vec<String> = reference
        .lines()
        .filter_map(|line| line.strip_prefix("### W"))
        .map(|rest| format!("W{}", &rest[..4]))
        .collect();
    assert!(codes.len() >= 5, "{codes:?}");
    let rules: Vec<&str> = holi::sarif::rule_codes().collect();
    for code in codes {
        assert!(rules.contains(&code.as_str()), "no SARIF rule for {code}");
    }
}

/// Counts the writes it is given and remembers the largest.
#[derive(Default)]
struct Recorder {
    bytes: Vec<u8>,
    largest_write: usize,
}

impl Write for Recorder {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.largest_write = self.largest_write.max(buf.len());
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn json_and_sarif_are_streamed_not_built_whole() {
    let program = program();
    let many: Vec<Counterexample> = (0..3000).map(counterexample).collect();
    let result = result(Verdict::Unsafe, many);
    let r = report(&result, &program, &[]);

    let mut json = Recorder::default();
    r.write_json(&mut json).expect("written");
    assert!(json.bytes.len() > 1_000_000, "{}", json.bytes.len());
    // Built whole, the document would arrive in one write.
    assert!(json.largest_write <= 64 * 1024, "{}", json.largest_write);
    assert_eq!(String::from_utf8_lossy(&json.bytes), r.json());
    let doc: Value = serde_json::from_slice(&json.bytes).expect("JSON");
    assert_eq!(doc["counterexamples"].as_array().map(Vec::len), Some(3000));

    let mut sarif = Recorder::default();
    r.write_sarif(&mut sarif).expect("written");
    assert!(sarif.bytes.len() > 1_000_000, "{}", sarif.bytes.len());
    assert!(sarif.largest_write <= 64 * 1024, "{}", sarif.largest_write);
    let doc: Value = serde_json::from_slice(&sarif.bytes).expect("JSON");
    assert_eq!(
        doc["runs"][0]["results"].as_array().map(Vec::len),
        Some(3002)
    );
}

/// `holi check` as a process, from the repository root.
fn holi_cli(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_holi"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("holi runs")
}

#[test]
fn several_files_make_one_valid_json_document_and_one_sarif_log() {
    let files = [
        "examples/dao.holi",
        "examples/dao_fixed.holi",
        "tests/data/stuck_safe.holi",
    ];
    let json = holi_cli(&[&["check", "--format", "json"][..], &files].concat());
    assert_eq!(json.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&json.stdout).expect("one JSON document");
    assert_valid(holi_schema(), &doc, "several files");
    let verdicts: Vec<&str> = doc["files"]
        .as_array()
        .expect("a files array")
        .iter()
        .map(|r| r["verdict"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(verdicts, ["unsafe", "safe", "stuck"]);

    let sarif = holi_cli(&[&["check", "--format", "sarif"][..], &files].concat());
    assert_eq!(sarif.status.code(), Some(1));
    let log: Value = serde_json::from_slice(&sarif.stdout).expect("one SARIF log");
    assert_valid(sarif_schema(), &log, "several files");
    let exit_codes: Vec<i64> = log["runs"]
        .as_array()
        .expect("runs")
        .iter()
        .map(|run| run["invocations"][0]["exitCode"].as_i64().unwrap_or(-1))
        .collect();
    assert_eq!(exit_codes, [1, 0, 4]);
}

#[test]
fn clients_can_be_left_out_of_the_report() {
    let with = holi_cli(&["check", "examples/dao.holi", "--format", "json"]);
    let without = holi_cli(&[
        "check",
        "examples/dao.holi",
        "--format",
        "json",
        "--no-clients",
    ]);
    let with: Value = serde_json::from_slice(&with.stdout).unwrap();
    let without: Value = serde_json::from_slice(&without.stdout).unwrap();
    assert!(with["counterexamples"][0]["client"].is_string());
    assert!(without["counterexamples"][0].get("client").is_none());
    assert_eq!(without["counterexamples"][0]["replay"], "confirmed");
    assert_valid(holi_schema(), &without, "--no-clients");
}

/// An `--all` listing that the deadline overtakes stops after the first counterexample
/// and says how many it left out, in every format; without `--all` (one counterexample
/// per failure site) or before the deadline, every counterexample is listed.
#[test]
fn a_listing_past_the_deadline_says_what_it_left_out() {
    let program = program();
    let result = result(
        Verdict::Unsafe,
        vec![counterexample(1), counterexample(2), counterexample(3)],
    );
    let past = Some(std::time::Instant::now());
    let late = Report {
        all: true,
        deadline: past,
        ..report(&result, &program, &[])
    };
    let text = late.text(false);
    assert!(text.contains("(1 listed)"), "{text}");
    assert!(
        text.contains(
            "note: 2 more failing traces not listed: the time limit ran out while the report \
             was written"
        ),
        "{text}"
    );
    let json: Value = serde_json::from_str(&late.json()).unwrap();
    assert_eq!(json["counterexamples"].as_array().unwrap().len(), 1);
    assert_eq!(json["unlisted"], 2);
    assert_valid(holi_schema(), &json, "a cut listing");
    let sarif: Value = serde_json::from_str(&late.sarif()).unwrap();
    let run = &sarif["runs"][0];
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.iter().filter(|r| r["ruleId"] == "C0001").count(), 1);
    assert_eq!(run["properties"]["unlisted"], 2);
    assert_valid(sarif_schema(), &sarif, "a cut SARIF log");

    let in_time = Report {
        all: true,
        deadline: std::time::Instant::now().checked_add(std::time::Duration::from_secs(3600)),
        ..report(&result, &program, &[])
    };
    let shortest_only = Report {
        deadline: past,
        ..report(&result, &program, &[])
    };
    for full in [in_time, shortest_only] {
        let json: Value = serde_json::from_str(&full.json()).unwrap();
        assert_eq!(json["counterexamples"].as_array().unwrap().len(), 3);
        assert_eq!(json["unlisted"], 0);
        assert!(!full.text(false).contains("not listed"));
    }
}
