//! `holi equiv`: verdicts and exit codes, the shortest difference with its values, the
//! distinguishing client confirmed on each side (and runnable by `holi run`), JSON,
//! bounds that deepen, limits, and interfaces that differ.

use std::path::Path;
use std::process::{Command, Output};

fn holi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_holi"))
        .args(args)
        .output()
        .expect("holi runs")
}

fn example(name: &str) -> String {
    format!("{}/examples/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Writes `files` (name, source) into a fresh directory.
fn files(sources: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (name, source) in sources {
        std::fs::write(dir.path().join(name), source).expect("writable");
    }
    dir
}

fn path(dir: &Path, name: &str) -> String {
    dir.join(name).display().to_string()
}

const COUNTER: &str = "int c := 0;
public inc (u:unit) :(unit) = { c := !c + 1 };
public get (u:unit) :(int) = { !c };
";

/// The same counter, counting down by two: no client can tell.
const COUNTER_BY_TWO: &str = "int c := 0;
public inc (u:unit) :(unit) = { c := !c - 2 };
public get (u:unit) :(int) = { 0 - (!c / 2) };
";

/// A counter that saturates at 2: told apart after three increments.
const SATURATING: &str = "int c := 0;
public inc (u:unit) :(unit) = { c := !c + 1 };
public get (u:unit) :(int) = { if !c < 2 then !c else 2 };
";

#[test]
fn the_dao_and_its_fix_are_told_apart_by_a_reentrant_client_that_replays() {
    let o = holi(&[
        "equiv",
        &example("dao.holi"),
        &example("dao_fixed.holi"),
        "--k",
        "3",
        "--l",
        "2",
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    assert!(out.contains("INEQUIVALENT within k = 3, l = 2"), "{out}");
    assert!(out.contains("after 4 moves"), "{out}");
    // The client re-enters `withdraw` from `send`: the DAO pays again, the fix returns.
    assert!(out.contains("left     call send(x2)"), "{out}");
    assert!(out.contains("right    ret withdraw(())"), "{out}");
    assert!(out.contains("replayed: the client below"), "{out}");
    // The client's `send` re-enters once; the DAO then pays out twice and fails its
    // assert, while the fix returns to `main`.
    assert!(
        out.contains("if !send_calls == 1 then withdraw 2 else ()"),
        "{out}"
    );
    assert!(
        out.contains(
            "and its main fails an assert on the left and returns (((), 1), 1000102) on the right"
        ),
        "{out}"
    );
}

#[test]
fn the_bundled_pairs_answer_as_their_comments_say() {
    let pair = |a: &str, b: &str, bounds: &[&str]| {
        let (a, b) = (
            example(&format!("equiv/{a}")),
            example(&format!("equiv/{b}")),
        );
        let o = holi(&[&["equiv", a.as_str(), b.as_str()], bounds].concat());
        (o.status.code(), stdout(&o))
    };
    let (code, out) = pair("counter.holi", "counter_by_two.holi", &[]);
    assert_eq!(code, Some(0), "{out}");
    // The cache is safe to replace only while no client re-enters it.
    let (code, out) = pair("cache.holi", "cache_early.holi", &["--k", "1"]);
    assert_eq!(code, Some(0), "{out}");
    let (code, out) = pair("cache.holi", "cache_early.holi", &["--k", "2"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("right    ret lookup(0)"), "{out}");
}

#[test]
fn a_library_against_itself_is_equivalent() {
    let o = holi(&[
        "equiv",
        &example("dao.holi"),
        &example("dao.holi"),
        "--k",
        "2",
        "--l",
        "2",
        "--no-prove",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("EQUIVALENT within k = 2, l = 2"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn a_proof_beside_the_search_stops_it() {
    // `--prove` runs the attempt beside the search from the start: at k 6, l 4 the
    // search would take hours, the proof a fraction of a second.
    let o = holi(&[
        "equiv",
        &example("dao.holi"),
        &example("dao.holi"),
        "--prove",
        "--k",
        "6",
        "--l",
        "4",
        "--format",
        "json",
    ]);
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("a JSON document");
    assert_eq!(o.status.code(), Some(0), "{doc}");
    assert_eq!(doc["scope"], "all-bounds", "{doc}");
    assert_eq!(doc["verdict"], "equivalent");
    // What the search had left open is settled; it says why it ended.
    let left_open = [&doc["inconclusive"], &doc["beyond"]["why"]];
    assert!(
        left_open.iter().any(|why| why
            .as_array()
            .is_some_and(|w| w == &[serde_json::json!("the proof was found first")])),
        "{doc}"
    );
    assert!(
        doc["covered"].is_null() || doc["covered"]["k"].as_u64() < Some(6),
        "{doc}"
    );
}

#[test]
fn a_pair_a_relation_proves_is_equivalent_for_every_bound() {
    let dir = files(&[("counter.holi", COUNTER), ("by_two.holi", COUNTER_BY_TWO)]);
    let (left, right) = (
        path(dir.path(), "counter.holi"),
        path(dir.path(), "by_two.holi"),
    );
    let o = holi(&["equiv", &left, &right]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains(": EQUIVALENT for every k and l (proved)"),
        "{out}"
    );
    assert!(out.contains("-2·left.c - right.c = 0"), "{out}");
    // JSON: the scope, the proof and its certificate, which `z3` re-checks.
    let certificates = dir.path().join("certificates");
    let cert = certificates.display().to_string();
    let o = holi(&[
        "equiv",
        &left,
        &right,
        "--format",
        "json",
        "--certificate",
        &cert,
    ]);
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("a JSON document");
    assert_eq!(doc["scope"], "all-bounds", "{doc}");
    assert_eq!(doc["verdict"], "equivalent");
    assert!(doc["not_proved"].is_null());
    let obligations = doc["proof"]["obligations"].as_u64().unwrap_or(0);
    assert!(obligations > 0, "{doc}");
    let smtlib = doc["proof"]["smtlib"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let text = std::fs::read_to_string(&smtlib).expect("the certificate is written");
    assert_eq!(
        text.lines().filter(|l| *l == "(check-sat)").count() as u64,
        obligations
    );
    // `--no-prove` answers within the bounds only; `--prove` on a pair no relation
    // proves answers the bounded verdict and exits 3.
    let o = holi(&["equiv", &left, &right, "--no-prove", "--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("a JSON document");
    assert_eq!(doc["scope"], "bounded");
    assert!(
        doc["proof"].is_null() && doc["not_proved"].is_null(),
        "{doc}"
    );
    let lends = "public make (_:unit) :(ref int) = { ref 0 };";
    let dir = files(&[("lends.holi", lends)]);
    let lends = path(dir.path(), "lends.holi");
    let o = holi(&["equiv", &lends, &lends, "--prove", "--k", "2", "--l", "2"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(3), "{out}");
    assert!(out.contains("EQUIVALENT within k = 2, l = 2"), "{out}");
    assert!(
        out.contains("not proved for every k and l: a cell reaches the client"),
        "{out}"
    );
}

#[test]
fn a_refactored_counter_is_equivalent_and_a_saturating_one_is_not() {
    let dir = files(&[
        ("counter.holi", COUNTER),
        ("by_two.holi", COUNTER_BY_TWO),
        ("saturating.holi", SATURATING),
    ]);
    let d = dir.path();
    let same = holi(&[
        "equiv",
        &path(d, "counter.holi"),
        &path(d, "by_two.holi"),
        "--no-prove",
    ]);
    assert_eq!(same.status.code(), Some(0), "{}", stdout(&same));
    // Without bounds on the command line they deepen to the default 4, 4.
    assert!(
        stdout(&same).contains("EQUIVALENT within k = 4, l = 4"),
        "{}",
        stdout(&same)
    );
    let apart = holi(&[
        "equiv",
        &path(d, "counter.holi"),
        &path(d, "saturating.holi"),
    ]);
    let out = stdout(&apart);
    assert_eq!(apart.status.code(), Some(1), "{out}");
    assert!(out.contains("after 8 moves (the integers differ)"), "{out}");
    assert!(
        out.contains("sees `ret get(3)` on the left and `ret get(2)` on the right"),
        "{out}"
    );
    // At l = 3 the client cannot make the fourth call it needs.
    let short = holi(&[
        "equiv",
        &path(d, "counter.holi"),
        &path(d, "saturating.holi"),
        "--l",
        "3",
    ]);
    assert_eq!(short.status.code(), Some(0), "{}", stdout(&short));
}

#[test]
fn a_failing_assert_on_one_side_is_a_difference_and_on_both_is_not() {
    let dir = files(&[
        (
            "checks.holi",
            "public m (x:int) :(unit) = { assert (x < 5) };",
        ),
        (
            "also_checks.holi",
            "public m (x:int) :(unit) = { assert (not (4 < x)) };",
        ),
        ("trusts.holi", "public m (x:int) :(unit) = { () };"),
    ]);
    let d = dir.path();
    let both = holi(&[
        "equiv",
        &path(d, "checks.holi"),
        &path(d, "also_checks.holi"),
    ]);
    assert_eq!(both.status.code(), Some(0), "{}", stdout(&both));
    let one = holi(&["equiv", &path(d, "checks.holi"), &path(d, "trusts.holi")]);
    let out = stdout(&one);
    assert_eq!(one.status.code(), Some(1), "{out}");
    assert!(out.contains("left     fails an assert (line 1)"), "{out}");
    assert!(out.contains("right    ret m(())"), "{out}");
    assert!(
        out.contains("sees the library fail an assert on the left and `ret m(())` on the right"),
        "{out}"
    );
}

#[test]
fn divergence_is_observed_and_the_client_plays_only_booleans_for_a_bool() {
    let dir = files(&[
        (
            "bot5.holi",
            "public f (x:int) :(int) = { if x < 5 then x else _bot_ };",
        ),
        (
            "bot6.holi",
            "public f (x:int) :(int) = { if x < 6 then x else _bot_ };",
        ),
        (
            "test.holi",
            "public f (b:bool) :(int) = { if b then 1 else 2 };",
        ),
        (
            "test_eq.holi",
            "public f (b:bool) :(int) = { if b == true then 1 else 2 };",
        ),
    ]);
    let d = dir.path();
    let o = holi(&["equiv", &path(d, "bot5.holi"), &path(d, "bot6.holi")]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("left     diverges"), "{out}");
    assert!(out.contains("right    ret f(x1)   = ret f(5)"), "{out}");
    assert!(
        out.contains("sees the library diverge on the left"),
        "{out}"
    );
    let same = holi(&["equiv", &path(d, "bot5.holi"), &path(d, "bot5.holi")]);
    assert_eq!(same.status.code(), Some(0), "{}", stdout(&same));
    // `b` and `b == true` differ only for integers other than 0 and 1.
    let bools = holi(&["equiv", &path(d, "test.holi"), &path(d, "test_eq.holi")]);
    assert_eq!(bools.status.code(), Some(0), "{}", stdout(&bools));
}

#[test]
fn functions_passed_to_the_client_correspond_in_order_whichever_they_are() {
    // The left hands out a closure, the right a public method doing the same.
    let dir = files(&[
        (
            "closure.holi",
            "int n := 0;
public bump (u:unit) :(int) = { n := !n + 1; !n };
public make (u:unit) :(unit -> int) = { fun (v:unit) :(int) -> bump () };",
        ),
        (
            "method.holi",
            "int n := 0;
public bump (u:unit) :(int) = { n := !n + 1; !n };
public make (u:unit) :(unit -> int) = { bump };",
        ),
        (
            "wrong.holi",
            "int n := 0;
public bump (u:unit) :(int) = { n := !n + 1; !n };
public make (u:unit) :(unit -> int) = { fun (v:unit) :(int) -> !n };",
        ),
    ]);
    let d = dir.path();
    let same = holi(&[
        "equiv",
        &path(d, "closure.holi"),
        &path(d, "method.holi"),
        "--k",
        "2",
        "--l",
        "3",
    ]);
    assert_eq!(same.status.code(), Some(0), "{}", stdout(&same));
    let apart = holi(&[
        "equiv",
        &path(d, "closure.holi"),
        &path(d, "wrong.holi"),
        "--k",
        "2",
        "--l",
        "3",
    ]);
    let out = stdout(&apart);
    assert_eq!(apart.status.code(), Some(1), "{out}");
    assert!(out.contains("call m1(())"), "{out}");
}

#[test]
fn a_function_of_the_clients_passed_back_corresponds_to_a_wrapper_around_it() {
    let dir = files(&[
        (
            "direct.holi",
            "public wrap (g:int -> int) :(int -> int) = { g };",
        ),
        (
            "eta.holi",
            "public wrap (g:int -> int) :(int -> int) = { fun (x:int) :(int) -> g x };",
        ),
        (
            "shifted.holi",
            "public wrap (g:int -> int) :(int -> int) = { fun (x:int) :(int) -> g (x + 1) };",
        ),
    ]);
    let d = dir.path();
    let bounds = ["--k", "3", "--l", "2"];
    let eta = holi(
        &[
            &["equiv", &path(d, "direct.holi"), &path(d, "eta.holi")],
            &bounds[..],
        ]
        .concat(),
    );
    assert_eq!(eta.status.code(), Some(0), "{}", stdout(&eta));
    // The difference is found, but no client is written for it yet: not reported as
    // found.
    let shifted = holi(
        &[
            &["equiv", &path(d, "direct.holi"), &path(d, "shifted.holi")],
            &bounds[..],
        ]
        .concat(),
    );
    let out = stdout(&shifted);
    assert_eq!(shifted.status.code(), Some(3), "{out}");
    assert!(out.contains("right    call f1(x1 + 1)"), "{out}");
    assert!(out.contains("no client was written"), "{out}");
}

#[test]
fn json_carries_the_difference_and_the_written_client_runs_with_each_side() {
    let dir = files(&[("counter.holi", COUNTER), ("saturating.holi", SATURATING)]);
    let d = dir.path();
    let clients = d.join("clients");
    let o = holi(&[
        "equiv",
        &path(d, "counter.holi"),
        &path(d, "saturating.holi"),
        "--format",
        "json",
        "--client",
        &clients.display().to_string(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json output");
    assert_eq!(json["command"], "equiv");
    assert_eq!(json["verdict"], "inequivalent");
    assert_eq!(json["scope"], "bounded");
    // The deepening grows one bound per level: the difference needs l 4, and the level
    // before it covered l 3 at the same k.
    assert_eq!(json["bounds"]["l"], 4);
    assert_eq!(json["covered"]["l"], 3);
    assert_eq!(json["covered"]["k"], json["bounds"]["k"]);
    let diff = &json["difference"];
    assert_eq!(diff["moves"], 8);
    assert_eq!(diff["shortest"], true);
    assert_eq!(diff["left"]["move"], "ret get(3)");
    assert_eq!(diff["right"]["move"], "ret get(2)");
    assert_eq!(diff["replayed"]["status"], "confirmed");
    let written = diff["client_path"].as_str().expect("the client's path");
    assert!(written.ends_with("counter-vs-saturating.holi"), "{written}");
    for (library, answer) in [("counter.holi", "3"), ("saturating.holi", "2")] {
        let run = holi(&["run", &path(d, library), written]);
        assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
        assert!(stdout(&run).contains(answer), "{library}: {}", stdout(&run));
    }
}

#[test]
fn different_interfaces_are_located_errors() {
    let dir = files(&[
        ("a.holi", COUNTER),
        (
            "b.holi",
            "int c := 0;
public inc (u:int) :(unit) = { c := !c + u };
public peek (u:unit) :(int) = { !c };",
        ),
    ]);
    let d = dir.path();
    let o = holi(&["equiv", &path(d, "a.holi"), &path(d, "b.holi")]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("[E0405]"), "{err}");
    assert!(
        err.contains("public method `inc` has type `(unit -> unit)` on the left and `(int -> unit)` on the right"),
        "{err}"
    );
    assert!(
        err.contains("public method `get` is in the left library only"),
        "{err}"
    );
    assert!(
        err.contains("public method `peek` is in the right library only"),
        "{err}"
    );
    assert!(err.contains("declared here, on the right"), "{err}");
    assert!(o.stdout.is_empty());
}

#[test]
fn a_limit_leaves_the_bounds_covered_when_deepening_and_is_inconclusive_otherwise() {
    // Deepening: the bounds covered before the limit are the answer's, and it says
    // where and why it stopped.
    let o = holi(&[
        "equiv",
        &example("dao.holi"),
        &example("dao.holi"),
        "--max-configurations",
        "2000",
        "--no-prove",
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("EQUIVALENT within k = "), "{out}");
    assert!(
        out.contains("larger bounds were not searched completely (k = "),
        "{out}"
    );
    assert!(out.contains("search stopped"), "{out}");
    let json = holi(&[
        "equiv",
        &example("dao.holi"),
        &example("dao.holi"),
        "--max-configurations",
        "2000",
        "--format",
        "json",
    ]);
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");
    assert_eq!(doc["verdict"], "equivalent", "{doc}");
    assert_eq!(doc["bounds"], doc["covered"], "{doc}");
    assert!(doc["beyond"]["why"][0].is_string(), "{doc}");
    assert_ne!(doc["beyond"]["bounds"], doc["bounds"], "{doc}");
    // At the bounds given, the same limit leaves the answer open.
    let o = holi(&[
        "equiv",
        &example("dao.holi"),
        &example("dao.holi"),
        "--k",
        "4",
        "--l",
        "4",
        "--max-configurations",
        "2000",
        "--no-prove",
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(3), "{out}");
    assert!(out.contains("INCONCLUSIVE"), "{out}");
    assert!(out.contains("inconclusive: search stopped"), "{out}");
    // A proof for every bound settles what the search left open, and says so.
    let o = holi(&[
        "equiv",
        &example("dao.holi"),
        &example("dao.holi"),
        "--k",
        "4",
        "--l",
        "4",
        "--max-configurations",
        "2000",
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("EQUIVALENT for every k and l (proved)"),
        "{out}"
    );
    assert!(
        out.contains("the bounded search stopped first: search stopped"),
        "{out}"
    );
}

#[test]
fn a_client_or_a_bound_of_zero_is_bad_input() {
    let dir = files(&[
        ("lib.holi", COUNTER),
        (
            "client.holi",
            "import get :(unit -> int)\nmain = { get () };",
        ),
    ]);
    let d = dir.path();
    let client = holi(&["equiv", &path(d, "lib.holi"), &path(d, "client.holi")]);
    assert_eq!(client.status.code(), Some(2));
    assert!(
        stderr(&client).contains("this file is a client"),
        "{}",
        stderr(&client)
    );
    let zero = holi(&[
        "equiv",
        &path(d, "lib.holi"),
        &path(d, "lib.holi"),
        "--k",
        "0",
    ]);
    assert_eq!(zero.status.code(), Some(2));
    assert!(stderr(&zero).contains("[E0401]"), "{}", stderr(&zero));
}

#[test]
fn a_difference_counts_only_if_some_client_can_see_the_program_end() {
    let dir = files(&[
        (
            // Meyer and Sieber's fourth example: the left calls the client's `q` and then
            // runs forever whatever `q` did; the right runs forever at once. The
            // client is called on one side only, but no program can see it end.
            "meyer_sieber_4.bils",
            "fun q -> ref x = 0 in q (fun () -> ()); if !x = 0 then _bot_ else ()
|||
fun q -> _bot_",
        ),
        (
            // The same with a return instead of a divergence after `q`: now a client
            // sees the left end.
            "ends.bils",
            "fun q -> q (fun () -> ()) |||_((unit -> unit) -> unit) -> unit fun q -> _bot_",
        ),
    ]);
    let d = dir.path();
    let bounds = ["--k", "2", "--l", "2"];
    let o = holi(
        &[
            &["equiv", &path(d, "meyer_sieber_4.bils"), "--no-prove"][..],
            &bounds,
        ]
        .concat(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("EQUIVALENT within k = 2, l = 2, unfold = 4"));
    // No run of either side ends after `q` is called: a proof for every bound says so.
    let o = holi(&["equiv", &path(d, "meyer_sieber_4.bils")]);
    assert!(
        stdout(&o).contains("EQUIVALENT for every k and l (proved)"),
        "{}",
        stdout(&o)
    );
    let o = holi(&["equiv", &path(d, "ends.bils")]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("left     call f1(m2)"), "{out}");
    assert!(out.contains("right    diverges"), "{out}");
    assert!(out.contains("returns"), "{out}");
}

#[test]
fn where_both_sides_would_end_alike_the_client_runs_forever_on_one() {
    // They part at the value they set, but a client that plays on from there with the
    // same answers sees both fail the same assert, or both return: it must run
    // forever on one side where they part.
    let [left, right] = [0, 1].map(|init| {
        format!(
            "import get :(unit -> int)
import set :(int -> unit)
int local := {init};
public update (u:unit) :(unit) = {{ set(!local); assert(get() == 1) }};"
        )
    });
    let dir = files(&[("left.holi", &left), ("right.holi", &right)]);
    let d = dir.path();
    let o = holi(&["equiv", &path(d, "left.holi"), &path(d, "right.holi")]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("left     call set(0)"), "{out}");
    assert!(out.contains("right    call set(1)"), "{out}");
    assert!(out.contains("if x == 0 then () else _bot_"), "{out}");
    assert!(
        out.contains("its main fails an assert on the left and diverges on the right"),
        "{out}"
    );
}

#[test]
fn an_integer_the_client_receives_and_discards_still_tells_the_sides_apart() {
    // From "From Applicative to Environmental Bisimulation" (Hobbit's ex3.4-e): only
    // the inner call's answer differs, and the client's callback drops it.
    let dir = files(&[(
        "ex34.bils",
        "let v1 = (fun f -> f () ; true) in v1
|||
ref flag = true in
let v1 = (fun f -> if !flag then (flag := false; f (); flag := true; true) else (f (); false)) in
v1",
    )]);
    let o = holi(&["equiv", &path(dir.path(), "ex34.bils")]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("replayed: the client below"), "{out}");
    assert!(
        out.contains("holi_log__ := !holi_log__ * 1000003 + result"),
        "{out}"
    );
}

#[test]
fn internal_recursion_has_its_own_bound_stated_with_k_and_l() {
    // Sums 1..n by recursion; the right is wrong from n = 5 on, which takes five
    // nested unfoldings of `sum` to see.
    let sum = |wrong: &str| {
        format!(
            "public total (n:int) :(int) = {{
  letrec sum (i:int) :(int) = if i <= 0 then 0 else (if i == 5 then {wrong} else i) + sum (i - 1)
  in if n < 0 then 0 else sum n
}};"
        )
    };
    let dir = files(&[("sum.holi", &sum("5")), ("wrong.holi", &sum("6"))]);
    let d = dir.path();
    let run = |unfold: &str| {
        let o = holi(&[
            "equiv",
            &path(d, "sum.holi"),
            &path(d, "wrong.holi"),
            "--k",
            "1",
            "--l",
            "1",
            "--unfold",
            unfold,
        ]);
        (o.status.code(), stdout(&o))
    };
    let (code, out) = run("4");
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("EQUIVALENT within k = 1, l = 1, unfold = 4"),
        "{out}"
    );
    let (code, out) = run("6");
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("INEQUIVALENT within k = 1, l = 1, unfold = 6"),
        "{out}"
    );
    assert!(out.contains("= ret total(16)"), "{out}");
}

/// Validates `doc` against the official SARIF 2.1.0 schema (`tests/data`).
fn assert_valid_sarif(doc: &serde_json::Value) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("tests/data/sarif-schema-2.1.0.json"))
        .expect("the SARIF schema is in tests/data");
    let schema: serde_json::Value = serde_json::from_str(&text).expect("the schema is JSON");
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the SARIF schema is a valid schema");
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn json_follows_its_schema_for_every_verdict() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("lang/equiv-output.schema.json"))
        .expect("the schema is in lang/");
    let schema: serde_json::Value = serde_json::from_str(&text).expect("the schema is JSON");
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("a valid schema");
    let dao = std::fs::read_to_string(example("dao.holi")).expect("the example");
    let dir = files(&[
        ("counter.holi", COUNTER),
        ("saturating.holi", SATURATING),
        (
            "bot.holi",
            "public f (x:int) :(int) = { if x < 5 then x else _bot_ };",
        ),
        (
            "fails.holi",
            "public f (x:int) :(int) = { assert(x < 5); x };",
        ),
        ("dao.holi", dao.as_str()),
        (
            "callback.holi",
            "import cb :(unit -> unit)\npublic f (r:ref int) :(int) = { r := 1; cb (); !r };",
        ),
        (
            "constant.holi",
            "import cb :(unit -> unit)\npublic f (r:ref int) :(int) = { r := 1; cb (); 1 };",
        ),
    ]);
    let d = dir.path();
    let runs: [(&[&str], &str); 7] = [
        // Cells of the client's, written while the library waits: store entries.
        (&["callback.holi", "constant.holi"], "inequivalent"),
        // Deepening stopped by a limit after covering some bounds: `beyond`.
        (
            &["dao.holi", "dao.holi", "--max-configurations", "2000"],
            "equivalent",
        ),
        (&["counter.holi", "saturating.holi"], "inequivalent"),
        (&["counter.holi", "counter.holi"], "equivalent"),
        (&["bot.holi", "fails.holi"], "inequivalent"),
        (
            &[
                "counter.holi",
                "saturating.holi",
                "--max-configurations",
                "3",
            ],
            "inconclusive",
        ),
        (
            &["counter.holi", "saturating.holi", "--k", "1", "--l", "1"],
            "equivalent",
        ),
    ];
    for (args, verdict) in runs {
        let mut argv = vec!["equiv".to_string()];
        argv.extend(args.iter().map(|a| {
            if a.ends_with(".holi") {
                path(d, a)
            } else {
                a.to_string()
            }
        }));
        argv.extend(["--format".to_string(), "json".to_string()]);
        let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
        let o = holi(&argv);
        let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
        let errors: Vec<String> = validator
            .iter_errors(&doc)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{args:?}: {errors:#?}");
        assert_eq!(doc["verdict"], verdict, "{args:?}: {doc:#}");
    }
}

#[test]
fn sarif_places_the_difference_in_both_libraries_and_validates() {
    let o = holi(&[
        "equiv",
        &example("dao.holi"),
        &example("dao_fixed.holi"),
        "--k",
        "3",
        "--l",
        "2",
        "--format",
        "sarif",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("SARIF is JSON");
    assert_valid_sarif(&doc);
    let run = &doc["runs"][0];
    assert_eq!(run["properties"]["verdict"], "inequivalent");
    assert_eq!(run["properties"]["bounds"]["unfold"], 4);
    assert_eq!(run["invocations"][0]["exitCode"], 1);
    let results = run["results"].as_array().expect("results");
    assert_eq!(results.len(), 1, "{results:#?}");
    let result = &results[0];
    assert_eq!(result["ruleId"], "D0001");
    let left = &result["locations"][0]["physicalLocation"];
    assert!(left["artifactLocation"]["uri"]
        .as_str()
        .is_some_and(|u| u.ends_with("dao.holi")));
    // The left's parting move calls `send`: its import's line.
    assert_eq!(left["region"]["startLine"], 6);
    let right = &result["relatedLocations"][0]["physicalLocation"];
    assert!(right["artifactLocation"]["uri"]
        .as_str()
        .is_some_and(|u| u.ends_with("dao_fixed.holi")));
    let flows = result["codeFlows"][0]["threadFlows"]
        .as_array()
        .expect("thread flows");
    assert_eq!(flows.len(), 2, "one per library");
    for flow in flows {
        assert_eq!(flow["locations"].as_array().map(Vec::len), Some(4));
    }
    // A library against itself: no result, and the covered bounds (without a proof,
    // which may stop the search before it covers them).
    let same = holi(&[
        "equiv",
        &example("dao.holi"),
        &example("dao.holi"),
        "--format",
        "sarif",
        "--no-prove",
    ]);
    assert_eq!(same.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&same.stdout).expect("SARIF is JSON");
    assert_valid_sarif(&doc);
    assert_eq!(doc["runs"][0]["results"].as_array().map(Vec::len), Some(0));
    assert_eq!(doc["runs"][0]["properties"]["covered"]["k"], 3);
}

#[test]
fn hobbit_files_are_read_translated_and_compared() {
    let dir = files(&[
        (
            // Hobbit's cell-2: one cell, or two cells and a flag that picks one.
            "cell.bils",
            "ref y = 0 in
let set = fun z -> y := z in
let get = fun () -> !y in
(set , get)
|||
ref y1 = 0 in
ref y2 = 0 in
ref p = true in
let set = fun z -> p := not !p;
    if !p then y1 := z else y2 := z in
let get = fun () -> if !p then !y1 else !y2 in
(set , get)",
        ),
        (
            // A counter that forgets after one increment.
            "forgetful.bils",
            "ref c = 0 in (fun () -> c := !c + 1), (fun () -> !c)
|||
ref c = 0 in (fun () -> if !c < 1 then c := !c + 1 else c := 0), (fun () -> !c)",
        ),
        (
            "short.bils",
            "fun b -> b && _bot_ ||| fun b -> if b then _bot_ else false",
        ),
    ]);
    let d = dir.path();
    let emitted = holi(&["equiv", &path(d, "cell.bils"), "--emit-holi"]);
    let text = stdout(&emitted);
    assert_eq!(emitted.status.code(), Some(0), "{}", stderr(&emitted));
    assert!(text.contains("cell.bils (left)"), "{text}");
    assert!(
        text.contains("public start (_:unit) :((int -> unit) * (unit -> int)) = {"),
        "{text}"
    );
    assert!(text.contains("let p = ref 1 in"), "{text}");
    let same = holi(&["equiv", &path(d, "cell.bils")]);
    assert_eq!(same.status.code(), Some(0), "{}", stdout(&same));
    let apart = holi(&["equiv", &path(d, "forgetful.bils")]);
    let out = stdout(&apart);
    assert_eq!(apart.status.code(), Some(1), "{out}");
    assert!(out.contains("client   call start(())"), "{out}");
    // In SARIF, a Hobbit file's sides are placed as the file: their places are in the
    // translations.
    let sarif = holi(&["equiv", &path(d, "forgetful.bils"), "--format", "sarif"]);
    let doc: serde_json::Value = serde_json::from_slice(&sarif.stdout).expect("SARIF is JSON");
    assert_valid_sarif(&doc);
    let location = &doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"];
    assert!(location["region"].is_null(), "{location}");
    // `&&` short-circuits as in Hobbit: `false && _bot_` is false, not a divergence.
    let short = holi(&["equiv", &path(d, "short.bils")]);
    assert_eq!(short.status.code(), Some(0), "{}", stdout(&short));
    // A Hobbit file holds both sides; a second file is an error.
    let two = holi(&["equiv", &path(d, "cell.bils"), &path(d, "short.bils")]);
    assert_eq!(two.status.code(), Some(2));
}

#[test]
fn lists_the_client_plays_have_a_bounded_length_stated_in_the_answer() {
    // A library that sums a list, and one that forgets the fourth element on: only a
    // list of four elements tells them apart.
    let sum = |cut: &str| {
        format!(
            "public total (l:int list) :(int) = {{
  letrec go (p:int * int list) :(int) =
    match snd p with
    | [] -> 0
    | x :: rest -> (if fst p >= {cut} then 0 else x) + go (fst p + 1, rest)
  in go (0, l)
}};"
        )
    };
    let dir = files(&[("sum.holi", &sum("100")), ("cut.holi", &sum("3"))]);
    let d = dir.path();
    let run = |length: &str| {
        let o = holi(&[
            "equiv",
            &path(d, "sum.holi"),
            &path(d, "cut.holi"),
            "--k",
            "1",
            "--l",
            "1",
            "--unfold",
            "6",
            "--list-length",
            length,
            "--format",
            "json",
        ]);
        let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
        (o.status.code(), doc)
    };
    let (code, doc) = run("3");
    assert_eq!(code, Some(0), "{doc}");
    assert_eq!(doc["bounds"]["list_length"], 3, "{doc}");
    let (code, doc) = run("4");
    assert_eq!(code, Some(1), "{doc}");
    assert_eq!(doc["bounds"]["list_length"], 4, "{doc}");
    let difference = &doc["difference"];
    assert_eq!(difference["replayed"]["status"], "confirmed", "{doc}");
    let trace = difference["trace"].to_string();
    assert!(trace.contains("call total([x1; x2; x3; x4])"), "{trace}");
    // Without lists, the bound is not stated.
    let counter = files(&[("counter.holi", COUNTER)]);
    let counter = path(counter.path(), "counter.holi");
    let plain = holi(&["equiv", &counter, &counter, "--k", "1", "--l", "1"]);
    assert_eq!(plain.status.code(), Some(0), "{}", stdout(&plain));
    assert!(
        !stdout(&plain).contains("list length"),
        "{}",
        stdout(&plain)
    );
}

#[test]
fn hobbit_lists_are_translated_compared_and_told_apart_by_a_client_that_builds_them() {
    let dir = files(&[
        (
            // Hobbit's yy_1-apr-23_1: structural equality of two lists the client gives.
            "eq.bils",
            "let rec eq l1 =
  match l1 with
  | [] -> (fun l2 -> match l2 with [] -> true | y :: ys -> false)
  | x :: xs -> (fun l2 -> match l2 with [] -> false | y :: ys -> (x == y) && eq xs ys)
in
fun l1 -> fun l2 -> if eq l1 l2 then 42 else 0
|||_(int list) -> (int list) -> int
fun l1 -> fun l2 -> 0",
        ),
        (
            // Matching a list and rebuilding it gives the same list.
            "rebuild.bils",
            "fun l -> fun f -> f l
|||_bool list -> (bool list -> unit) -> unit
fun l -> fun f -> match l with [] -> f [] | x :: xs -> f (x :: xs)",
        ),
    ]);
    let d = dir.path();
    let emitted = holi(&["equiv", &path(d, "eq.bils"), "--emit-holi"]);
    let text = stdout(&emitted);
    assert_eq!(emitted.status.code(), Some(0), "{}", stderr(&emitted));
    assert!(text.contains("int list -> int list -> int"), "{text}");
    assert!(text.contains("| y :: ys ->"), "{text}");
    let apart = holi(&["equiv", &path(d, "eq.bils"), "--k", "1", "--l", "3"]);
    let out = stdout(&apart);
    assert_eq!(apart.status.code(), Some(1), "{out}");
    assert!(out.contains("replayed: the client below"), "{out}");
    assert!(out.contains("list length = 3"), "{out}");
    let rebuild = path(d, "rebuild.bils");
    let same = holi(&["equiv", &rebuild, "--k", "2", "--l", "2", "--no-prove"]);
    let out = stdout(&same);
    assert_eq!(same.status.code(), Some(0), "{out}");
    assert!(
        out.contains("EQUIVALENT within k = 2, l = 2, unfold = 4, list length = 3"),
        "{out}"
    );
    // A proof covers lists of every length.
    let same = holi(&["equiv", &rebuild, "--k", "2", "--l", "2"]);
    let out = stdout(&same);
    assert!(
        out.contains("EQUIVALENT for every k and l (proved)"),
        "{out}"
    );
}

#[test]
fn twin_functions_are_called_once_only_when_they_are_twins_on_both_sides() {
    let dir = files(&[
        (
            // Meyer and Sieber's example 1: every `start` gives the client a twin of
            // the function it gave before.
            "twins.bils",
            "fun f -> ref x = 0 in f () |||_((unit -> unit) -> unit) fun f -> f ()",
        ),
        (
            // The left's functions share one counter (twins); the right's each have
            // their own, so a client that calls the second sees 2 on the left only.
            "shared.holi",
            "int c := 0;
public make (u:unit) :(unit -> int) = { fun (v:unit) :(int) -> c := !c + 1; !c };",
        ),
        (
            "own.holi",
            "public make (u:unit) :(unit -> int) = {
  let c = ref 0 in fun (v:unit) :(int) -> c := !c + 1; !c
};",
        ),
    ]);
    let d = dir.path();
    let twins = holi(&[
        "equiv",
        &path(d, "twins.bils"),
        "--k",
        "4",
        "--l",
        "4",
        "--format",
        "json",
    ]);
    assert_eq!(twins.status.code(), Some(0), "{}", stdout(&twins));
    let doc: serde_json::Value = serde_json::from_slice(&twins.stdout).expect("JSON");
    // Calling every twin made millions of configurations here.
    let configurations = doc["statistics"]["configurations"]
        .as_u64()
        .unwrap_or(u64::MAX);
    assert!(configurations < 1_000, "{doc}");
    let shared = holi(&["equiv", &path(d, "shared.holi"), &path(d, "own.holi")]);
    let out = stdout(&shared);
    assert_eq!(shared.status.code(), Some(1), "{out}");
    // What each run did is told in the trace's names, not the run's own numbering.
    assert!(
        out.contains("sees `ret m2(2)` on the left and `ret m2(1)` on the right"),
        "{out}"
    );
}

#[test]
fn an_equivalent_answer_names_the_bounds_covered_when_a_probe_ended_the_deepening() {
    // Hobbit's gc-equiv-2: past the default bounds no growth changes the search; the
    // main lane stops first, the probes last, and the answer is still k 4, l 4.
    let dir = files(&[(
        "gc.bils",
        "ref f = (fun () -> ()) in
fun () -> ref l = () in
f := (fun () -> !l); !f ()
|||
fun () -> ()",
    )]);
    let out = holi(&[
        "equiv",
        &path(dir.path(), "gc.bils"),
        "--timeout",
        "60",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(doc["bounds"], doc["covered"], "{doc}");
    assert_eq!(
        (&doc["bounds"]["k"], &doc["bounds"]["l"]),
        (&4.into(), &4.into())
    );
    let levels = doc["levels"].as_array().cloned().unwrap_or_default();
    assert_eq!(
        levels.last().map(|l| l["probe"].clone()),
        Some(true.into()),
        "{levels:?}"
    );
}

#[test]
fn past_the_default_bounds_a_probe_with_two_calls_finds_a_difference_deep_in_frames() {
    // After Hobbit's invariants-4: the left diverges once the client's frames nest
    // past the reset of the counter, which needs five frames with two calls, past the
    // default k; the main lane grows from k 4, l 4, the probe from l 2.
    let dir = files(&[(
        "nest.bils",
        "ref x = 0 in
fun g ->
  x := !x + 1;
  (if !x > 3 then x := 0);
  g ();
  if (!x <= 6) then (x := !x + 1; ()) else _bot_
|||
fun g -> g (); ()",
    )]);
    let nest = path(dir.path(), "nest.bils");
    let bounded = holi(&["equiv", &nest]);
    assert_eq!(bounded.status.code(), Some(0), "{}", stdout(&bounded));
    let past = holi(&["equiv", &nest, "--timeout", "60", "--format", "json"]);
    assert_eq!(past.status.code(), Some(1), "{}", stdout(&past));
    let doc: serde_json::Value = serde_json::from_slice(&past.stdout).expect("JSON");
    assert_eq!(
        doc["difference"]["replayed"]["status"], "confirmed",
        "{doc}"
    );
    assert_eq!(doc["bounds"]["l"], 2, "{doc}");
    assert!(doc["bounds"]["k"].as_u64().unwrap_or(0) > 4, "{doc}");
    // What the answer covers is the main lane's: the default bounds.
    assert_eq!(doc["covered"]["k"], 4, "{doc}");
    assert_eq!(doc["covered"]["l"], 4, "{doc}");
    // The levels say so: the main lane completed k 4, l 4 before any probe ran, and
    // the last level is the probe's that found the difference.
    let levels = doc["levels"].as_array().cloned().unwrap_or_default();
    let first_probe = levels.iter().position(|l| l["probe"] == true);
    let default = levels
        .iter()
        .position(|l| l["bounds"]["k"] == 4 && l["bounds"]["l"] == 4 && l["end"] == "complete");
    assert!(default.is_some() && default < first_probe, "{levels:?}");
    let last = levels.last().cloned().unwrap_or_default();
    assert_eq!(
        (&last["probe"], &last["end"]),
        (&true.into(), &"difference".into())
    );
    let times: Vec<f64> = levels
        .iter()
        .filter_map(|l| l["seconds"].as_f64())
        .collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
}

#[test]
fn with_a_timeout_deepening_goes_past_the_default_bounds_and_one_instance_is_played() {
    // Hobbit's holik-file-lock-param-e: the left's `read` says false from the 30th
    // read on. Each `start` has its own counter (no globals), so the client plays one
    // instance; 30 calls are past the default bounds, which a timeout lets it pass.
    let dir = files(&[(
        "lock.bils",
        "ref readMAX = 30 in
let read = (fun () -> readMAX := !readMAX - 1; !readMAX > 0) in read
|||
ref readMAX = 30 in
let read = (fun () -> readMAX := !readMAX - 1; true) in read",
    )]);
    let lock = path(dir.path(), "lock.bils");
    let bounded = holi(&["equiv", &lock]);
    let out = stdout(&bounded);
    assert_eq!(bounded.status.code(), Some(0), "{out}");
    assert!(out.contains("EQUIVALENT within k = 4, l = 4"), "{out}");
    let past = holi(&["equiv", &lock, "--timeout", "60", "--format", "json"]);
    assert_eq!(past.status.code(), Some(1), "{}", stdout(&past));
    let doc: serde_json::Value = serde_json::from_slice(&past.stdout).expect("JSON");
    assert_eq!(
        doc["difference"]["replayed"]["status"], "confirmed",
        "{doc}"
    );
    assert!(doc["bounds"]["l"].as_u64().unwrap_or(0) >= 30, "{doc}");
    // Each call of `start` after the first would start an instance of its own; the
    // client calls it once.
    let trace = doc["difference"]["trace"].to_string();
    assert_eq!(trace.matches("call start").count(), 1, "{trace}");
}

/// Runs `holi equiv` on two sources at k 2, l 2: the exit code and the text.
fn equiv_of(left: &str, right: &str) -> (Option<i32>, String) {
    let dir = files(&[("left.holi", left), ("right.holi", right)]);
    let d = dir.path();
    let o = holi(&[
        "equiv",
        &path(d, "left.holi"),
        &path(d, "right.holi"),
        "--k",
        "2",
        "--l",
        "2",
    ]);
    (o.status.code(), stdout(&o) + &stderr(&o))
}

#[test]
fn references_that_cross_the_interface_are_compared_by_what_the_client_can_read() {
    // What a library leaves in a cell it returns: the client reads it.
    let one = "public get (u:unit) :(ref int) = { ref 1 };";
    let (code, out) = equiv_of(one, "public get (u:unit) :(ref int) = { ref 2 };");
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("in the cells the client holds"), "{out}");
    assert!(out.contains("replayed: the client below"), "{out}");
    assert!(out.contains("holi_log__ * 1000003 + !!q1"), "{out}");
    let written_later = "public get (u:unit) :(ref int) = { let c = ref 0 in c := 1; c };";
    assert_eq!(equiv_of(one, written_later).0, Some(0));
    // What a library writes to the client's cell, however it computes it.
    let five = "public set (r:ref int) :(unit) = { r := 5 };";
    let (code, out) = equiv_of(
        five,
        "public set (r:ref int) :(unit) = { r := (!r + 5) - !r };",
    );
    assert_eq!(code, Some(0), "{out}");
    let (code, out) = equiv_of(five, "public set (r:ref int) :(unit) = { r := 4 };");
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("call set(r1)"), "{out}");
}

#[test]
fn the_client_passes_one_cell_twice_and_writes_cells_while_the_library_waits() {
    // Aliasing: `fst p` and `snd p` are one cell when the client passes it twice.
    let (code, out) = equiv_of(
        "public two (p:(ref int * ref int)) :(int) = { (fst p) := 1; (snd p) := 2; !(fst p) };",
        "public two (p:(ref int * ref int)) :(int) = { (fst p) := 1; (snd p) := 2; 1 };",
    );
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("call two(r1, r1)"), "{out}");
    assert!(out.contains("ret two(2)"), "{out}");
    // A write of the client's during a callback is read by one side only.
    let (code, out) = equiv_of(
        "import cb :(unit -> unit)\npublic f (r:ref int) :(int) = { r := 1; cb (); !r };",
        "import cb :(unit -> unit)\npublic f (r:ref int) :(int) = { r := 1; cb (); 1 };",
    );
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("ret cb(()) [r1 := x2]"), "{out}");
    assert!(out.contains("replayed: the client below"), "{out}");
}

#[test]
fn functions_left_in_disclosed_cells_are_called_by_the_client() {
    let plus = |body: &str| {
        format!(
            "public get (u:unit) :(ref (int -> int)) = {{ ref (fun (x:int) :(int) -> {body}) }};"
        )
    };
    let (code, out) = equiv_of(&plus("x + 1"), &plus("1 + x"));
    assert_eq!(code, Some(0), "{out}");
    let (code, out) = equiv_of(&plus("x + 1"), &plus("x + 2"));
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("{q1 = m1}"), "{out}");
    assert!(out.contains("replayed: the client below"), "{out}");
}

#[test]
fn the_reference_examples_are_told_from_their_fixes_and_equal_to_themselves() {
    let lend = example("lend.holi");
    let o = holi(&[
        "equiv",
        &lend,
        &example("lend_fixed.holi"),
        "--k",
        "1",
        "--l",
        "1",
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("left     fails an assert"), "{out}");
    assert!(out.contains("replayed: the client below"), "{out}");
    for name in [
        "lend",
        "lend_fixed",
        "account",
        "move_all",
        "lock",
        "awkward",
    ] {
        let file = example(&format!("{name}.holi"));
        let o = holi(&["equiv", &file, &file, "--k", "2", "--l", "2"]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stdout(&o));
    }
}
