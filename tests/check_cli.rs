//! `holi check` as users run it: exit codes, the text report and the JSON format.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod corpus;

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
}

fn holi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_holi"))
        .args(args)
        .output()
        .expect("holi runs")
}

fn code(output: &Output) -> i32 {
    output.status.code().expect("exit code")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// `source` in a file of its own, named `name`, in a directory that lives as long as
/// the result.
fn library_file(name: &str, source: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(name);
    std::fs::write(&file, source).unwrap();
    let path = file.to_str().unwrap().to_string();
    (dir, path)
}

fn json(output: &Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(output)))
}

#[test]
fn text_report_shows_trace_model_and_source() {
    let dao = example("dao.holi");
    let out = holi(&["check", dao.to_str().unwrap(), "--k", "3", "--l", "2"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("k = 3 (command line), l = 2 (command line)"),
        "{text}"
    );
    assert!(text.contains(
        "call withdraw(x1) · call send(x1) · call withdraw(x2) · call send(x2) · ret send(()) · ret withdraw(()) · ret send(())"
    ));
    assert!(text.contains("with x1 = "), "{text}");
    assert!(text.contains("assert (not (!balance < 0))"), "{text}");
    assert!(text.contains("UNSAFE"), "{text}");
    assert!(text.contains("configurations"), "{text}");
}

#[test]
fn header_bounds_are_the_default() {
    let out = holi(&["check", example("dao_fixed.holi").to_str().unwrap()]);
    assert_eq!(code(&out), 0);
    assert!(stdout(&out).contains("k = 3 (file header), l = 2 (file header)"));
    assert!(stdout(&out).contains("SAFE"));
}

#[test]
fn json_report_has_the_documented_shape() {
    let out = holi(&[
        "check",
        example("dao.holi").to_str().unwrap(),
        "--k",
        "2",
        "--l",
        "1",
        "--format",
        "json",
        "--jobs",
        "1",
    ]);
    assert_eq!(code(&out), 1);
    let v = json(&out);
    assert!(v["file"].as_str().unwrap().ends_with("dao.holi"));
    assert_eq!(v["bounds"]["k"], 2);
    assert_eq!(v["bounds"]["l"], 1);
    assert_eq!(v["verdict"], "unsafe");
    assert_eq!(v["failing_traces"], 1);
    let c = &v["counterexamples"][0];
    assert_eq!(c["kind"], "assert");
    assert_eq!(c["moves"], 7);
    assert_eq!(c["assert"]["line"], 14);
    assert_eq!(c["assert"]["column"], 5);
    assert_eq!(c["trace"][0]["dir"], "call");
    assert_eq!(c["trace"][0]["by"], "client");
    assert_eq!(c["trace"][0]["method"], "withdraw");
    assert_eq!(c["trace"][0]["value"], "x1");
    assert_eq!(c["trace"][1]["by"], "library");
    assert_eq!(c["trace"][4]["value"], "()");
    assert!(c["text"]
        .as_str()
        .unwrap()
        .starts_with("call withdraw(x1) · call send(x1)"));
    let (x1, x2) = (
        c["model"]["x1"].as_i64().unwrap(),
        c["model"]["x2"].as_i64().unwrap(),
    );
    assert!(x1 + x2 > 100);
    // Replay is on by default: the counterexample is confirmed and carries its client.
    assert_eq!(c["replayed"], true);
    assert!(c["client"].as_str().is_some_and(|s| s.contains("main = {")));
    for key in [
        "configurations",
        "solver_queries",
        "seconds",
        "solver_seconds",
    ] {
        assert!(v["stats"][key].is_number(), "{key}");
    }
    // One thread here: the solver's time is part of the search's.
    let solver = v["stats"]["solver_seconds"].as_f64().unwrap();
    assert!(solver <= v["stats"]["seconds"].as_f64().unwrap() + 0.002);
    assert!(v.get("inconclusive").is_none());
}

#[test]
fn all_lists_every_failing_trace_sorted() {
    let out = holi(&[
        "check",
        example("file_lock.holi").to_str().unwrap(),
        "--all",
        "--format",
        "json",
    ]);
    assert_eq!(code(&out), 1);
    let v = json(&out);
    let cs = v["counterexamples"].as_array().unwrap();
    assert_eq!(cs.len() as u64, v["failing_traces"].as_u64().unwrap());
    assert!(cs.len() > 1);
    let keys: Vec<(u64, String)> = cs
        .iter()
        .map(|c| {
            (
                c["moves"].as_u64().unwrap(),
                c["text"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
}

#[test]
fn limits_give_inconclusive_with_exit_3() {
    let out = holi(&[
        "check",
        example("dao_fixed.holi").to_str().unwrap(),
        "--max-configurations",
        "10",
        "--format",
        "json",
    ]);
    assert_eq!(code(&out), 3);
    let v = json(&out);
    assert_eq!(v["verdict"], "inconclusive");
    assert!(v["inconclusive"][0]
        .as_str()
        .unwrap()
        .contains("configuration limit"));

    let out = holi(&[
        "check",
        example("dao_fixed.holi").to_str().unwrap(),
        "--timeout",
        "0.000001",
    ]);
    assert_eq!(code(&out), 3);
    assert!(stdout(&out).contains("INCONCLUSIVE"));
}

/// Past `--max-memory` the search stops: INCONCLUSIVE with a note naming the limit,
/// never SAFE; the same library within the default limit is decided.
#[test]
fn the_memory_limit_gives_inconclusive_with_exit_3() {
    let library = example("dao_fixed.holi");
    let bounds = ["--k", "4", "--l", "4", "--format", "json"];
    let out = holi(
        &[
            &["check", library.to_str().unwrap(), "--max-memory", "1"],
            &bounds[..],
        ]
        .concat(),
    );
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["verdict"], "inconclusive");
    assert_eq!(
        v["inconclusive"][0],
        "search stopped: the memory limit (1 MiB, --max-memory) was exceeded"
    );

    let out = holi(&[&["check", library.to_str().unwrap()], &bounds[..]].concat());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["verdict"], "safe");
    // Thousands of configurations: a search the tiny limit cut short.
    assert!(v["stats"]["configurations"].as_u64().unwrap() > 1000);

    let out = holi(&["check", library.to_str().unwrap(), "--max-memory", "0"]);
    assert_eq!(code(&out), 2);
}

#[test]
fn a_counterexample_found_before_a_limit_still_exits_1() {
    let out = holi(&[
        "check",
        example("dao.holi").to_str().unwrap(),
        "--max-configurations",
        "40",
        "--format",
        "json",
    ]);
    assert_eq!(code(&out), 1);
    let v = json(&out);
    assert_eq!(v["verdict"], "unsafe");
    assert!(v["inconclusive"][0]
        .as_str()
        .unwrap()
        .contains("configuration limit"));
    // The text report does not call the traces of an incomplete search the shortest.
    let text = holi(&[
        "check",
        example("dao.holi").to_str().unwrap(),
        "--max-configurations",
        "40",
    ]);
    assert!(stdout(&text).contains("the shortest found per failure site, search incomplete"));
}

#[test]
fn bad_bounds_and_bad_files_exit_2() {
    let dao = example("dao.holi");
    let out = holi(&["check", dao.to_str().unwrap(), "--k", "0"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("must be at least 1"),
        "{}",
        stderr(&out)
    );

    let out = holi(&["check", dao.to_str().unwrap(), "--l", "many"]);
    assert_eq!(code(&out), 2);

    let dir = tempfile::tempdir().unwrap();
    let zero = dir.path().join("zero.holi");
    std::fs::write(
        &zero,
        "# set-bounds 0 1 #\npublic f (u:unit) :(unit) = { () };\n",
    )
    .unwrap();
    let out = holi(&["check", zero.to_str().unwrap()]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("zero.holi"), "{}", stderr(&out));

    let broken = dir.path().join("broken.holi");
    std::fs::write(&broken, "public f (u:unit) :(unit) = { ( };\n").unwrap();
    assert_eq!(code(&holi(&["check", broken.to_str().unwrap()])), 2);

    assert_eq!(code(&holi(&["check", "/nonexistent/x.holi"])), 2);
}

#[test]
fn no_header_uses_holik_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plain.holi");
    std::fs::write(
        &file,
        "public f (x:int) :(unit) = { assert(not (x == 7)) };\n",
    )
    .unwrap();
    let out = holi(&["check", file.to_str().unwrap()]);
    assert_eq!(code(&out), 1);
    assert!(stdout(&out).contains("k = 4 (HOLiK's default), l = 4 (HOLiK's default)"));
    assert!(stdout(&out).contains("x1 = 7"));
}

/// Nonlinear integer arithmetic is undecidable: Z3 cannot settle `x³ + y³ = z³` over
/// positive integers, and a query it cannot settle in time must make the verdict
/// inconclusive rather than hang or be taken as safe.
#[test]
fn an_undecided_solver_query_is_inconclusive() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cubes.holi");
    std::fs::write(
        &file,
        "public cube (p:int * int * int) :(unit) = {\n\
         \x20 let x = fst (fst p) in let y = snd (fst p) in let z = snd p in\n\
         \x20 if 0 < x && 0 < y && 0 < z then assert(not (x * x * x + y * y * y == z * z * z)) else ()\n\
         };\n",
    )
    .unwrap();
    let out = holi(&[
        "check",
        file.to_str().unwrap(),
        "--k",
        "2",
        "--l",
        "1",
        "--solver-timeout",
        "0.2",
        "--format",
        "json",
    ]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["verdict"], "inconclusive");
    assert!(v["inconclusive"][0]
        .as_str()
        .unwrap()
        .contains("solver returned unknown"));

    let out = holi(&["check", file.to_str().unwrap(), "--solver-timeout", "0"]);
    assert_eq!(code(&out), 2);
}

#[test]
fn first_reports_one_shortest_trace_and_no_memo_the_same_sites() {
    let dao = example("dao.holi");
    let dao = dao.to_str().unwrap();
    let base = ["check", dao, "--k", "3", "--l", "2", "--format", "json"];
    let default = json(&holi(&base));
    let plain = json(&holi(&[&base[..], &["--no-memo"]].concat()));
    let first_out = holi(&[&base[..], &["--first"]].concat());
    assert_eq!(code(&first_out), 1, "{}", stderr(&first_out));
    let first = json(&first_out);
    let moves = |v: &serde_json::Value| -> Vec<u64> {
        v["counterexamples"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["moves"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(moves(&default), moves(&plain));
    assert_eq!(moves(&first), vec![moves(&plain)[0]]);
    assert_eq!(plain["stats"]["subsumed"], 0);
    let both = holi(&["check", dao, "--all", "--first"]);
    assert_eq!(code(&both), 2, "--all and --first conflict");
}

/// `various_mains` at k 4, l 2 is split into parts; the over-approximation proves sites
/// unreachable there, and `--no-havoc` finds the same traces without it. Sites in code
/// no run executes (private methods nothing calls) are dropped either way.
#[test]
fn no_havoc_gives_the_same_traces_without_proving_sites_unreachable() {
    let Some(files) = corpus::benchmark("the --no-havoc test") else {
        return;
    };
    let Some(file) = files.iter().find(|f| f.ends_with("various_mains.holi")) else {
        return;
    };
    let base = [
        "check",
        file.to_str().unwrap(),
        "--k",
        "4",
        "--l",
        "2",
        "--format",
        "json",
        "--no-replay",
    ];
    let with = json(&holi(&base));
    let without = json(&holi(&[&base[..], &["--no-havoc"]].concat()));
    let unreachable = |v: &serde_json::Value| v["stats"]["unreachable_sites"].as_u64().unwrap();
    assert!(
        unreachable(&without) > 0,
        "dead code is dropped without the over-approximation"
    );
    assert!(unreachable(&with) > unreachable(&without));
    let sites = |v: &serde_json::Value| -> Vec<(u64, String)> {
        v["counterexamples"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (c["moves"].as_u64().unwrap(), c["assert"].to_string()))
            .collect()
    };
    assert_eq!(with["verdict"], without["verdict"]);
    assert_eq!(sites(&with), sites(&without));
}

#[test]
fn the_text_report_draws_the_call_tree_in_ascii_without_colour() {
    let dao = example("dao.holi");
    let out = holi(&["check", dao.to_str().unwrap(), "--k", "3", "--l", "2"]);
    let text = stdout(&out);
    let place = format!("assertion fails at {}:14:5", dao.display());
    // The nested withdraw inside send, the values beside the symbols, the failure in
    // the outer withdraw's frame.
    let tree = [
        "  call tree:",
        "    client calls withdraw(x1 = 1)",
        "    |-- library calls send(x1 = 1)",
        "    |   |-- client calls withdraw(x2 = 100)",
        "    |   |   |-- library calls send(x2 = 100)",
        "    |   |   |   `-- send returns ()",
        "    |   |   `-- withdraw returns ()",
        "    |   `-- send returns ()",
        &format!("    `-- {place}"),
    ]
    .join("\n");
    assert!(text.contains(&tree), "{text}");
    let always = holi(&[
        "check",
        dao.to_str().unwrap(),
        "--k",
        "3",
        "--l",
        "2",
        "--color",
        "always",
    ]);
    assert!(stdout(&always).contains("    │   │   │   └── send returns ()"));
    // Under --all the listing stays one line per trace.
    let all = holi(&[
        "check",
        dao.to_str().unwrap(),
        "--k",
        "2",
        "--l",
        "1",
        "--all",
    ]);
    assert!(!stdout(&all).contains("call tree:"), "{}", stdout(&all));
}

fn check_with_report(name: &str, page: &Path) -> Output {
    let file = example(name);
    holi(&[
        "check",
        file.to_str().unwrap(),
        "--report",
        page.to_str().unwrap(),
    ])
}

#[test]
fn a_report_that_cannot_be_written_is_bad_usage_and_says_where() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let page = dir.path().join("missing").join("report.html");
    let out = check_with_report("dao.holi", &page);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    let message = stderr(&out);
    assert!(
        message.starts_with(&format!(
            "error: cannot write the report {}: ",
            page.display()
        )),
        "{message}"
    );
    // It stops before the search: nothing was checked, nothing reported.
    assert_eq!(stdout(&out), "");
}

#[test]
fn a_safe_library_gets_a_report_saying_what_was_searched() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let page = dir.path().join("safe.html");
    let out = check_with_report("dao_fixed.holi", &page);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let html = std::fs::read_to_string(&page).expect("the report was written");
    assert!(html.contains("<p class=\"verdict safe\">SAFE"), "{html}");
    assert!(html.contains("configurations"), "{html}");
    assert!(!html.contains("<svg"), "no diagram without a trace");
    // Self-contained: nothing is fetched and nothing runs.
    for fetched in ["<script", "<link", "src=", "http://", "https://", "@import"] {
        assert!(!html.contains(fetched), "{fetched} in {html}");
    }
    assert!(html.trim_end().ends_with("</html>"));
}

/// The values a failing trace is shown with are its path condition's least model
/// (`src/symbolic/values.rs`), not whatever model the search that won met first: the
/// same for every `--jobs` and every run. HOLiK's `various_unsafe_no_equiv` at k3 l2 is
/// a cell where the split's parts sometimes win the race with two threads, and with it
/// `withdraw` showed `x1 = 1, x2 = 100` in some runs and `x1 = 100, x2 = 1` in others.
/// The runs with two threads go four at a time, to load the machine as CI would.
#[test]
fn the_values_shown_are_the_same_for_every_jobs_and_every_run() {
    let Some(files) = corpus::benchmark("the determinism of values on the split's cells") else {
        return;
    };
    let Some(cell) = files
        .iter()
        .find(|f| f.ends_with("various_unsafe_no_equiv.holi"))
    else {
        return;
    };
    let shown = |out: &Output| -> Vec<(String, String, String)> {
        let report = json(out);
        let list = report["counterexamples"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        list.iter()
            .map(|c| {
                let text = c["text"].as_str().unwrap_or_default().to_string();
                let concrete = c["concrete"].as_str().unwrap_or_default().to_string();
                (text, concrete, c["model"].to_string())
            })
            .collect()
    };
    let args = |jobs: &'static str| {
        let path = cell.to_str().unwrap().to_string();
        let fixed = [
            "--k",
            "3",
            "--l",
            "2",
            "--format",
            "json",
            "--no-replay",
            "--jobs",
        ];
        let mut all = vec!["check".to_string(), path];
        all.extend(fixed.iter().map(|a| a.to_string()));
        all.push(jobs.to_string());
        all
    };
    let one = shown(&holi(
        &args("1").iter().map(String::as_str).collect::<Vec<_>>(),
    ));
    assert!(one
        .iter()
        .any(|(text, ..)| text.starts_with("call withdraw(x1)")));
    for _ in 0..3 {
        let runs: Vec<_> = (0..4)
            .map(|_| {
                Command::new(env!("CARGO_BIN_EXE_holi"))
                    .args(args("2"))
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::null())
                    .spawn()
                    .expect("holi runs")
            })
            .collect();
        for run in runs {
            let out = run.wait_with_output().expect("holi ends");
            assert_eq!(shown(&out), one);
        }
    }
    let withdraw = one
        .iter()
        .find(|(text, ..)| text.starts_with("call withdraw(x1)"));
    assert_eq!(
        withdraw.map(|(_, _, model)| model.as_str()),
        Some(r#"{"x1":1,"x2":100}"#)
    );
}

/// A library holi warns is ill-typed (a `unit -> unit` closure that returns an
/// integer): the synthesized client returns exactly what the trace says the client's
/// function returned (`()`), so every counterexample replays.
#[test]
fn clients_of_ill_typed_libraries_return_what_the_trace_says() {
    let (_dir, file) = library_file(
        "ill_typed.holi",
        "import f0 :((unit -> unit) -> unit)
int a := 0;
int b := 0;
int c := 5;
public m0 (x:int -> int) :(unit) = { (if (!a >= 1) then ((let v0 = !c in x((v0 * 0)); assert(!a >= !c); assert(!c == v0)); x((3 * -1))) else (x(!a); b := !b + 1)); assert((!b < !c)); f0(fun (u:unit) :(unit) -> (c := !c + -1; x(1))) };
public m1 (x:int -> int) :(unit) = { (if !a > -1 then a := !a - 1 else ()); (if (!b <= 1) then ((let v0 = !c in (let v1 = !a in x((v1 + 2)); assert(!a <= v1)); assert(!c <= v0)); assert(!b == 2); x(0)) else (assert((!c <= !b)))) };
public m2 (x:unit -> unit) :(unit) = { (f0(fun (u:unit) :(unit) -> ((if (!a >= 1) then b := (!b * 2) else ()))); x(); (if !b == 0 then b := 1; (let v0 = !a in (if !a == 0 then a := 1; assert(!a >= 2); assert(!a == !c); a := 0 else ()); b := !b + -1; assert((!a <= !a)); assert(!a == v0)); x(); (if !a > 1 then a := !a - 1 else ()); b := 0 else ())); (letrec lp (n:int) :(unit) = (if n > 0 then ((if !a > 1 then a := !a - 1 else ()); x(); assert((!c >= n)); lp (n - 1)) else ()) in lp 3) };
",
    );
    let bounds = ["--k", "2", "--l", "2"];
    let out = holi(&[&["check", file.as_str(), "--format", "json"][..], &bounds].concat());
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains("W0201"), "{}", stderr(&out));
    assert!(!stderr(&out).contains("holi bug"), "{}", stderr(&out));
    let report = json(&out);
    let list = report["counterexamples"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(list.len(), 5);
    for c in &list {
        assert_eq!(c["replay"], "confirmed", "{}", c["text"]);
    }
}

/// A value that triples with every call (`x := !x + (!x - (a + !x)); x := !x - !x`) is
/// a tree of 3^n nodes but a DAG of a few per call: every traversal of the search walks
/// the DAG (`src/symbolic/term.rs`), so the check ends well within its time limit. It
/// used to run 36–41 s past `--timeout 6` at k5 l2, and never finish at k4 l3.
#[test]
fn values_that_grow_as_trees_are_checked_within_the_limit() {
    let (_dir, file) = library_file(
        "grow.holi",
        "import cb :(unit -> unit)
int x := 0;
public f (a:int) :(unit) = { x := !x + (!x - (a + !x)); x := !x - !x; cb () };
public g (u:unit) :(unit) = { assert (!x <= 2) };
",
    );
    for (k, l) in [("5", "2"), ("4", "3")] {
        let out = holi(&["check", &file, "--k", k, "--l", l, "--timeout", "20"]);
        assert_eq!(code(&out), 0, "k{k} l{l}: {}", stdout(&out));
        assert!(stdout(&out).contains("SAFE"), "{}", stdout(&out));
    }
}

/// Calls that nothing after them could read from are left out, and both reports say
/// how many; `--no-relevance` makes them all.
#[test]
fn calls_left_out_by_relevance_are_counted_in_both_reports() {
    let (_dir, path) = library_file(
        "chain.holi",
        "int a := 1; int b := 0; int c := 0;
         public ab (x:int) :(unit) = { if !a == 1 then (a := 0; b := 1) else () };
         public bc (x:int) :(unit) = { if !b == 1 then (b := 0; c := 1) else () };
         public cd (x:int) :(unit) = { assert(not(!c == 1)) };",
    );
    let text = holi(&["check", &path, "--k", "2", "--l", "3", "--no-prove"]);
    assert_eq!(code(&text), 1, "{}", stdout(&text));
    assert!(
        stdout(&text).contains("client calls not made: no shortest failing trace makes them"),
        "{}",
        stdout(&text)
    );
    let skipping = json(&holi(&[
        "check", &path, "--k", "2", "--l", "3", "--format", "json",
    ]));
    let all = json(&holi(&[
        "check",
        &path,
        "--k",
        "2",
        "--l",
        "3",
        "--format",
        "json",
        "--no-relevance",
    ]));
    let calls = |report: &serde_json::Value| report["stats"]["irrelevant_calls"].as_u64();
    assert!(calls(&skipping).is_some_and(|n| n > 0), "{skipping}");
    assert_eq!(calls(&all), Some(0));
    let shortest = |report: &serde_json::Value| report["counterexamples"][0]["moves"].clone();
    assert_eq!(
        shortest(&skipping),
        serde_json::json!(5),
        "ab, bc, then cd fails"
    );
    assert_eq!(shortest(&skipping), shortest(&all));
}

#[test]
fn lists_are_checked_and_their_counterexamples_replay() {
    // Fails only for a list of three elements, the most the client plays.
    let (_dir, sum) = library_file(
        "sum.holi",
        "public sum (l:int list) :(int) = {
  letrec go (xs:int list) :(int) = match xs with [] -> 0 | x :: rest -> x + go rest in
  let n = go l in
  (match l with
   | [] -> n
   | a :: t ->
       match t with
       | [] -> n
       | b :: u -> (match u with [] -> n | c :: v -> assert (n < a + b + c); n))
};",
    );
    let o = holi(&["check", &sum, "--k", "6", "--l", "1"]);
    let out = stdout(&o);
    assert_eq!(code(&o), 1, "{out}");
    assert!(out.contains("call sum([x1; x2; x3])"), "{out}");
    assert!(out.contains("confirmed by replay"), "{out}");
    assert!(out.contains("sum (0 :: 0 :: 0 :: [])"), "{out}");
    // Too few frames to add up three elements: safe within those bounds, and the
    // answer says the client's lists were bounded.
    let o = holi(&["check", &sum, "--k", "2", "--l", "1"]);
    let out = stdout(&o);
    assert_eq!(code(&o), 0, "{out}");
    assert!(
        out.contains("the library uses lists; those the client plays had at most 3 elements"),
        "{out}"
    );
    // The head of the empty list fails at `List.hd`.
    let (_dir, head) = library_file(
        "head.holi",
        "public first (l:bool list) :(bool) = { List.hd l };",
    );
    let o = holi(&["check", &head, "--k", "1", "--l", "1", "--format", "json"]);
    assert_eq!(code(&o), 1, "{}", stdout(&o));
    let doc = json(&o);
    let cx = &doc["counterexamples"][0];
    assert_eq!(cx["text"], "call first([])", "{doc}");
    assert_eq!(cx["trace"][0]["value"], "[]", "{doc}");
    assert_eq!(cx["replay"], "confirmed", "{doc}");
    // At `List.hd l`, line 1 from column 40.
    assert_eq!(cx["span"]["start"]["column"], 40, "{doc}");
}

#[test]
fn run_evaluates_lists_concretely() {
    let (_dir, client) = library_file(
        "client.holi",
        "main = {
  let l = 1 :: 2 :: [] in
  assert (l == 1 :: 2 :: [] && List.hd (List.tl l) == 2 && List.isnil (List.tl (List.tl l)));
  assert ((match l with [] -> 0 | h :: t -> h + List.hd t) == 4)
};",
    );
    let o = holi(&["run", &client]);
    let err = stderr(&o);
    assert!(err.contains("E0801"), "{}{err}", stdout(&o));
    assert!(err.contains("client.holi:4:"), "{err}");
}
