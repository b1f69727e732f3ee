//! `holi lsp` driven over stdio as an editor drives it: the handshake, diagnostics as
//! a document is opened, changed and closed, the check on save with a state per
//! `assert`, hover, code lenses and their commands, the cancellation of a long check,
//! errors for what the server does not serve or cannot read (after which it stays up),
//! and shutdown.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

/// Long enough for a loaded CI machine; the server answers in milliseconds.
const PATIENCE: Duration = Duration::from_secs(60);

struct Editor {
    server: Child,
    input: ChildStdin,
    from_server: Receiver<Value>,
}

impl Editor {
    fn start() -> Editor {
        Editor::with_options(json!({"checkOnOpen": false}))
    }

    /// A server with these `initializationOptions`.
    fn with_options(options: Value) -> Editor {
        let mut server = Command::new(env!("CARGO_BIN_EXE_holi"))
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("holi lsp starts");
        let input = server.stdin.take().expect("a piped stdin");
        let output = server.stdout.take().expect("a piped stdout");
        let (to_editor, from_server) = mpsc::channel();
        std::thread::spawn(move || {
            let mut output = BufReader::new(output);
            loop {
                let mut length = None;
                loop {
                    let mut line = String::new();
                    if output.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(n) = line.strip_prefix("Content-Length: ") {
                        length = n.parse::<usize>().ok();
                    }
                }
                let mut body = vec![0; length.expect("every frame has a length")];
                output.read_exact(&mut body).expect("a whole body");
                let value = serde_json::from_slice(&body).expect("every body is JSON");
                if to_editor.send(value).is_err() {
                    return;
                }
            }
        });
        let mut editor = Editor {
            server,
            input,
            from_server,
        };
        editor.request(
            1,
            "initialize",
            json!({"capabilities": {}, "initializationOptions": options}),
        );
        let answer = editor.answer_to(1);
        assert_eq!(answer["result"]["serverInfo"]["name"], "holi", "{answer}");
        let capabilities = &answer["result"]["capabilities"];
        assert_eq!(capabilities["textDocumentSync"]["change"], 1, "{answer}");
        assert_eq!(
            capabilities["textDocumentSync"]["save"],
            json!({"includeText": false})
        );
        assert!(capabilities["executeCommandProvider"]["commands"]
            .as_array()
            .is_some_and(|c| c.contains(&json!("holi.check"))));
        editor.notify("initialized", json!({}));
        editor
    }

    fn raw(&mut self, bytes: &[u8]) {
        self.input.write_all(bytes).expect("the server reads");
        self.input.flush().expect("the server reads");
    }

    fn send(&mut self, message: Value) {
        let text = message.to_string();
        self.raw(format!("Content-Length: {}\r\n\r\n{text}", text.len()).as_bytes());
    }

    fn request(&mut self, id: i64, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// The next message the server sends that `wanted` accepts.
    fn next(&self, wanted: impl Fn(&Value) -> bool) -> Value {
        loop {
            let message =
                (self.from_server.recv_timeout(PATIENCE)).expect("the server answers in time");
            if wanted(&message) {
                return message;
            }
        }
    }

    fn answer_to(&self, id: i64) -> Value {
        self.next(|m| m["id"] == id && m.get("method").is_none())
    }

    /// The diagnostics next published for `uri`.
    fn diagnostics(&self, uri: &str) -> Vec<Value> {
        let published = self.next(|m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri
        });
        published["params"]["diagnostics"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// The next verdict told for `uri` other than "checking".
    fn verdict(&self, uri: &str) -> Value {
        let told = self.next(|m| {
            m["method"] == "holi/verdict"
                && m["params"]["uri"] == uri
                && m["params"]["state"] != "checking"
        });
        told["params"].clone()
    }

    fn open(&mut self, uri: &str, version: i64, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "holi", "version": version, "text": text}}),
        );
    }

    fn shut_down(mut self) {
        self.request(99, "shutdown", Value::Null);
        assert_eq!(self.answer_to(99)["result"], Value::Null);
        self.notify("exit", Value::Null);
        let status = self.server.wait().expect("the server ends");
        let mut errors = String::new();
        if let Some(mut stderr) = self.server.stderr.take() {
            let _ = stderr.read_to_string(&mut errors);
        }
        assert!(status.success(), "{status}: {errors}");
    }
}

const URI: &str = "file:///work/bad.holi";

#[test]
fn diagnostics_follow_the_document_as_it_is_typed() {
    let mut editor = Editor::start();
    let bad = "public f (x:int) :(int) = {\n  x + y\n};\n";
    editor.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "languageId": "holi", "version": 1, "text": bad}}),
    );
    let found = editor.diagnostics(URI);
    let error = (found.iter())
        .find(|d| d["severity"] == 1)
        .unwrap_or_else(|| panic!("an error in {found:?}"));
    assert_eq!(error["range"]["start"]["line"], 1, "{error}");
    assert!(
        error["code"].as_str().is_some_and(|c| c.starts_with('E')),
        "{error}"
    );
    assert_eq!(error["source"], "holi");

    let good = "public f (x:int) :(int) = {\n  x + 1\n};\n";
    editor.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2}, "contentChanges": [{"text": good}]}),
    );
    let found = editor.diagnostics(URI);
    assert!(found.iter().all(|d| d["severity"] != 1), "{found:?}");

    editor.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 3}, "contentChanges": [{"text": "public"}]}),
    );
    let found = editor.diagnostics(URI);
    assert!(
        found.iter().any(|d| d["severity"] == 1),
        "a syntax error: {found:?}"
    );

    editor.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": URI}}),
    );
    assert!(editor.diagnostics(URI).is_empty());
    editor.shut_down();
}

#[test]
fn formatting_is_holi_fmt_and_symbols_are_the_declarations() {
    let mut editor = Editor::start();
    let text = "import send :(int -> unit)\npublic f (x:int) :(int) = {   x+1 };\nint c := 0;\n";
    editor.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "languageId": "holi", "version": 1, "text": text}}),
    );
    editor.diagnostics(URI);
    editor.request(
        2,
        "textDocument/formatting",
        json!({"textDocument": {"uri": URI}, "options": {"tabSize": 2, "insertSpaces": true}}),
    );
    let edits = editor.answer_to(2)["result"].clone();
    let file = tempfile::Builder::new()
        .suffix(".holi")
        .tempfile()
        .expect("a temporary file");
    std::fs::write(file.path(), text).expect("written");
    let fmt = Command::new(env!("CARGO_BIN_EXE_holi"))
        .arg("fmt")
        .arg(file.path())
        .output()
        .expect("holi fmt runs");
    let canonical = String::from_utf8_lossy(&fmt.stdout).to_string();
    assert_ne!(canonical, text);
    assert_eq!(edits[0]["newText"], canonical.as_str(), "{edits}");
    assert_eq!(
        edits[0]["range"]["start"],
        json!({"line": 0, "character": 0})
    );
    assert_eq!(edits[0]["range"]["end"], json!({"line": 3, "character": 0}));

    editor.request(
        3,
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": URI}}),
    );
    let symbols = editor.answer_to(3)["result"].clone();
    let names: Vec<(&str, i64)> = (symbols.as_array().expect("a list").iter())
        .map(|s| {
            (
                s["name"].as_str().unwrap_or(""),
                s["kind"].as_i64().unwrap_or(0),
            )
        })
        .collect();
    // Function, method and variable, in the protocol's numbering.
    assert_eq!(names, [("send", 12), ("f", 6), ("c", 13)]);
    assert_eq!(
        symbols[1]["selectionRange"]["start"],
        json!({"line": 1, "character": 7})
    );

    // The `x` of `x+1` is the parameter's.
    let line = text.lines().nth(1).unwrap_or_default();
    let (used, bound) = (line.find("x+1"), line.find("(x").map(|i| i + 1));
    editor.request(
        5,
        "textDocument/definition",
        json!({"textDocument": {"uri": URI}, "position": {"line": 1, "character": used}}),
    );
    let location = editor.answer_to(5)["result"].clone();
    assert_eq!(location["uri"], URI);
    assert_eq!(
        location["range"]["start"],
        json!({"line": 1, "character": bound}),
        "{location}"
    );

    // Malformed parameters of a request: an error, not silence.
    editor.request(4, "textDocument/formatting", json!({"textDocument": 3}));
    assert_eq!(editor.answer_to(4)["error"]["code"], -32602);
    editor.shut_down();
}

#[test]
fn garbage_and_unknown_methods_get_errors_and_the_server_stays_up() {
    let mut editor = Editor::start();
    // Not JSON: a parse error with no id.
    editor.raw(b"Content-Length: 5\r\n\r\n{oops");
    let answer = editor.next(|m| m.get("error").is_some());
    assert_eq!(answer["error"]["code"], -32700, "{answer}");
    assert_eq!(answer["id"], Value::Null);
    // A header without a length.
    editor.raw(b"Content-Type: nothing\r\n\r\n");
    let answer = editor.next(|m| m.get("error").is_some());
    assert_eq!(answer["error"]["code"], -32700, "{answer}");
    // JSON that is no message: an invalid request, answered with its id.
    editor.send(json!({"jsonrpc": "2.0", "id": 5}));
    let answer = editor.answer_to(5);
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    // A method holi does not serve.
    editor.request(6, "holi/noSuchThing", json!({}));
    assert_eq!(editor.answer_to(6)["error"]["code"], -32601);
    // Malformed parameters of a notification: nothing to answer, nothing published.
    editor.notify("textDocument/didOpen", json!({"textDocument": 3}));
    // Still serving.
    editor.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "languageId": "holi", "version": 1, "text": "public"}}),
    );
    assert!(!editor.diagnostics(URI).is_empty());
    editor.shut_down();
}

/// The `file:` address of `path`, which has nothing to escape.
fn address(path: &std::path::Path) -> String {
    format!("file://{}", path.display())
}

fn example(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
    std::fs::read_to_string(path).expect("the example is there")
}

#[test]
fn a_saved_library_is_checked_and_each_assert_gets_its_state() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let file = dir.path().join("dao.holi");
    let text = example("examples/dao.holi");
    std::fs::write(&file, &text).expect("written");
    let uri = address(&file);
    let mut editor = Editor::start();
    editor.open(&uri, 1, &text);
    assert!(editor.diagnostics(&uri).is_empty());

    editor.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri}}),
    );
    // The check's diagnostics come first, then its verdict.
    let found = editor.diagnostics(&uri);
    let verdict = editor.verdict(&uri);
    assert_eq!(verdict["state"], "unsafe", "{verdict}");
    assert_eq!(
        (verdict["k"].clone(), verdict["l"].clone()),
        (json!(3), json!(2))
    );
    assert_eq!(verdict["version"], 1);
    // The assert is on line 14 (13 from 0), `withdraw` declared on line 10.
    let failing = (found.iter())
        .find(|d| d["code"] == "C0001")
        .unwrap_or_else(|| panic!("a failing assert in {found:?}"));
    assert_eq!(failing["severity"], 1);
    assert_eq!(failing["range"]["start"]["line"], 13, "{failing}");
    let message = failing["message"].as_str().unwrap_or_default();
    assert!(message.contains("after 7 moves"), "{message}");
    assert!(message.contains("with x1 = 1, x2 = 100"), "{message}");
    assert!(message.contains("confirmed by replay"), "{message}");
    let tree: Vec<&Value> = failing["relatedInformation"]
        .as_array()
        .map(|r| r.iter().collect())
        .unwrap_or_default();
    assert_eq!(tree.len(), 8, "seven moves and the failure: {tree:?}");
    assert_eq!(tree[0]["message"], "client calls withdraw(x1 = 1)");
    assert_eq!(tree[0]["location"]["range"]["start"]["line"], 9);
    assert!(
        (tree[7]["message"].as_str()).is_some_and(|m| m.contains("assertion fails at")),
        "{tree:?}"
    );

    editor.request(
        2,
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 9, "character": 10}}),
    );
    let hover = editor.answer_to(2)["result"]["contents"]["value"].clone();
    let hover = hover.as_str().unwrap_or_default();
    assert!(hover.contains("withdraw : int -> unit"), "{hover}");
    assert!(
        hover.contains("move 3: client calls withdraw(x2 = 100)"),
        "{hover}"
    );

    editor.request(
        3,
        "textDocument/codeLens",
        json!({"textDocument": {"uri": uri}}),
    );
    let lenses = editor.answer_to(3)["result"].clone();
    let lenses = lenses.as_array().cloned().unwrap_or_default();
    let titled = |start: &str| {
        (lenses.iter())
            .find(|l| (l["command"]["title"].as_str()).is_some_and(|t| t.starts_with(start)))
            .cloned()
            .unwrap_or_else(|| panic!("a lens `{start}…` in {lenses:?}"))
    };
    assert!(titled("holi: UNSAFE")["range"]["start"]["line"] == 0);
    assert_eq!(titled("▶ check")["command"]["command"], "holi.check");
    let client_lens = titled("✗ fails after 7 moves");
    assert_eq!(client_lens["range"]["start"]["line"], 13);
    assert_eq!(client_lens["command"]["arguments"], json!([uri, 1]));

    editor.request(
        4,
        "workspace/executeCommand",
        json!({"command": "holi.writeClient", "arguments": [uri, 1]}),
    );
    assert_eq!(editor.answer_to(4)["result"], Value::Null);
    let client = std::fs::read_to_string(dir.path().join("dao-client-1.holi"))
        .expect("the client is written beside the file");
    assert!(client.contains("main = {"), "{client}");
    editor.request(
        5,
        "workspace/executeCommand",
        json!({"command": "holi.openReport", "arguments": [uri]}),
    );
    // Without `window/showDocument`, the server says where it wrote the page, then
    // answers.
    let shown = editor.next(|m| m["method"] == "window/showMessage");
    let shown = shown["params"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert_eq!(editor.answer_to(5)["result"], Value::Null);
    let page = shown.strip_prefix("holi: wrote ").expect("the page's path");
    let page = std::fs::read_to_string(page).expect("the page is written");
    assert!(
        page.contains("<html") && page.contains("withdraw"),
        "{shown}"
    );

    editor.request(
        6,
        "workspace/executeCommand",
        json!({"command": "holi.writeClient", "arguments": [uri, 5]}),
    );
    let refused = editor.answer_to(6);
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    editor.request(
        7,
        "workspace/executeCommand",
        json!({"command": "holi.noSuchCommand", "arguments": [uri]}),
    );
    assert_eq!(editor.answer_to(7)["error"]["code"], -32602);

    // With other bounds, asked for: the check says them.
    editor.request(
        8,
        "workspace/executeCommand",
        json!({"command": "holi.check", "arguments": [uri, {"k": 2, "l": 1}]}),
    );
    assert_eq!(editor.answer_to(8)["result"], Value::Null);
    let verdict = editor.verdict(&uri);
    assert_eq!(
        (verdict["k"].clone(), verdict["l"].clone()),
        (json!(2), json!(1))
    );
    assert_eq!(verdict["state"], "unsafe", "{verdict}");
    editor.shut_down();
}

#[test]
fn a_proved_library_says_so_at_its_assert_and_a_stuck_path_warns() {
    let mut editor = Editor::with_options(json!({}));
    let fixed = "file:///nowhere/dao_fixed.holi";
    editor.open(fixed, 1, &example("examples/dao_fixed.holi"));
    assert!(editor.diagnostics(fixed).is_empty());
    let found = editor.diagnostics(fixed);
    let verdict = editor.verdict(fixed);
    assert_eq!(verdict["state"], "proved", "{verdict}");
    let proved = (found.iter())
        .find(|d| (d["message"].as_str()).is_some_and(|m| m.starts_with("proved: ")))
        .unwrap_or_else(|| panic!("the assert's state in {found:?}"));
    assert_eq!(proved["severity"], 3);

    let stuck = "file:///nowhere/stuck.holi";
    editor.open(stuck, 1, "public f (x:int) :(int) = {\n  g x\n};\n");
    let front = editor.diagnostics(stuck);
    assert!(front.iter().any(|d| d["code"] == "W0202"), "{front:?}");
    let found = editor.diagnostics(stuck);
    assert_eq!(editor.verdict(stuck)["state"], "stuck");
    let warning = (found.iter())
        .find(|d| (d["message"].as_str()).is_some_and(|m| m.contains("got stuck here")))
        .unwrap_or_else(|| panic!("a warning where paths got stuck in {found:?}"));
    assert_eq!(warning["severity"], 2);
    assert_eq!(warning["range"]["start"]["line"], 1);

    // One assert fails, and a path gets stuck before another: that one is not settled.
    let both = "file:///nowhere/both.holi";
    let text = "public f (x:int) :(int) = {\n  assert (not (x == 5)); x\n};\n\
                public g (x:int) :(int) = {\n  let y = h x in\n  assert (y == y); y\n};\n";
    editor.open(both, 1, text);
    editor.diagnostics(both);
    let found = editor.diagnostics(both);
    assert_eq!(editor.verdict(both)["state"], "unsafe");
    let at = |line: i64| {
        (found.iter())
            .find(|d| d["range"]["start"]["line"] == line && d["severity"] != 2)
            .unwrap_or_else(|| panic!("a state on line {line} in {found:?}"))
            .clone()
    };
    assert_eq!(at(1)["code"], "C0001");
    let unsettled = at(5)["message"].as_str().unwrap_or_default().to_string();
    assert!(
        unsettled.starts_with("not settled: some paths got stuck"),
        "{unsettled}"
    );
    editor.shut_down();
}

#[test]
fn a_newer_version_cancels_the_running_check_and_a_time_limit_is_told() {
    // The bank takes minutes at its bounds: only a cancelled check ends in time.
    let bank = example("benchmark/libraries/bank.holi");
    let mut editor = Editor::with_options(json!({"timeoutSeconds": 600}));
    let uri = "file:///nowhere/bank.holi";
    editor.open(uri, 1, &bank);
    editor.next(|m| m["method"] == "holi/verdict" && m["params"]["state"] == "checking");
    editor.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2},
               "contentChanges": [{"text": example("examples/dao.holi")}]}),
    );
    // The change makes the bank's verdict outdated, and its check ends cancelled.
    let told = |editor: &Editor| {
        let told = editor.next(|m| m["method"] == "holi/verdict")["params"].clone();
        (
            told["version"].as_i64(),
            told["state"].as_str().map(str::to_string),
        )
    };
    assert_eq!(told(&editor), (Some(2), Some("outdated".to_string())));
    assert_eq!(told(&editor), (Some(1), Some("cancelled".to_string())));
    editor.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri}}),
    );
    let verdict = editor.verdict(uri);
    assert_eq!(verdict["version"], 2);
    assert_eq!(verdict["state"], "unsafe");

    editor.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"holi": {"timeoutSeconds": 1}}}),
    );
    let limited = "file:///nowhere/bank_limited.holi";
    editor.open(limited, 1, &bank);
    editor.diagnostics(limited);
    let found = editor.diagnostics(limited);
    // A second's search of the bank finds some of its failures, not all.
    let verdict = editor.verdict(limited);
    assert_eq!(verdict["state"], "unsafe", "{verdict}");
    let warned = |text: &str| {
        (found.iter()).any(|d| (d["message"].as_str()).is_some_and(|m| m.contains(text)))
    };
    assert!(
        warned("is incomplete: search stopped: the time limit"),
        "{found:?}"
    );
    assert!(warned("not settled: the check was cut short"), "{found:?}");
    editor.shut_down();
}

#[test]
fn commands_that_ask_go_on_with_the_answer() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let (file, fixed) = (
        dir.path().join("dao.holi"),
        dir.path().join("dao_fixed.holi"),
    );
    let text = example("examples/dao.holi");
    std::fs::write(&file, &text).expect("written");
    std::fs::write(&fixed, example("examples/dao_fixed.holi")).expect("written");
    let uri = address(&file);
    let mut editor = Editor::start();
    editor.open(&uri, 1, &text);

    // Other bounds: the server offers some, and checks with the one chosen.
    editor.request(
        2,
        "workspace/executeCommand",
        json!({"command": "holi.checkWithBounds", "arguments": [uri]}),
    );
    let asked = editor.next(|m| m["method"] == "window/showMessageRequest");
    let choice = asked["params"]["actions"][0].clone();
    assert_eq!(choice["title"], "k = 3, l = 2", "{asked}");
    editor.send(json!({"jsonrpc": "2.0", "id": asked["id"], "result": choice}));
    let verdict = editor.verdict(&uri);
    assert_eq!(
        (verdict["k"].clone(), verdict["l"].clone()),
        (json!(3), json!(2))
    );

    // `holi equiv` against a library beside it, chosen from those offered.
    editor.request(
        3,
        "workspace/executeCommand",
        json!({"command": "holi.equiv", "arguments": [uri]}),
    );
    let asked = editor.next(|m| m["method"] == "window/showMessageRequest");
    let offered = asked["params"]["actions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(offered, [json!({"title": "dao_fixed.holi"})], "{asked}");
    editor.send(json!({"jsonrpc": "2.0", "id": asked["id"], "result": offered[0]}));
    let log = editor.next(|m| m["method"] == "window/logMessage");
    let log = log["params"]["message"].as_str().unwrap_or_default();
    assert!(log.contains("INEQUIVALENT"), "{log}");
    assert!(log.contains("call withdraw"), "{log}");
    let shown = editor.next(|m| {
        m["method"] == "window/showMessage"
            && (m["params"]["message"].as_str()).is_some_and(|t| t.contains("INEQUIVALENT"))
    });
    assert_eq!(shown["params"]["type"], 2, "a difference is a warning");
    editor.shut_down();
}

#[test]
fn files_that_vanish_and_commands_before_a_check_are_errors_not_crashes() {
    let mut editor = Editor::start();
    let error = |editor: &mut Editor, id: i64, arguments: Value| {
        editor.request(
            id,
            "workspace/executeCommand",
            json!({"command": arguments[0], "arguments": arguments[1]}),
        );
        let answer = editor.answer_to(id);
        assert_eq!(answer["error"]["code"], -32602, "{answer}");
        answer["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    let gone = error(
        &mut editor,
        2,
        json!(["holi.check", ["file:///nowhere/gone.holi"]]),
    );
    assert!(gone.contains("cannot read"), "{gone}");
    assert!(error(&mut editor, 3, json!(["holi.check", []])).contains("address"));

    let dir = tempfile::tempdir().expect("a temporary folder");
    let folder = dir.path().join("library");
    std::fs::create_dir(&folder).expect("a folder");
    let file = folder.join("dao.holi");
    let text = example("examples/dao.holi");
    std::fs::write(&file, &text).expect("written");
    let uri = address(&file);
    editor.open(&uri, 1, &text);
    let early = error(&mut editor, 4, json!(["holi.openReport", [uri]]));
    assert!(early.contains("check it first"), "{early}");
    editor.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri}}),
    );
    assert_eq!(editor.verdict(&uri)["state"], "unsafe");

    // The folder goes away: the client cannot be written, and the server says so.
    std::fs::remove_dir_all(&folder).expect("removed");
    editor.request(
        5,
        "workspace/executeCommand",
        json!({"command": "holi.writeClient", "arguments": [uri, 1]}),
    );
    let told = editor.next(|m| m["method"] == "window/showMessage");
    assert_eq!(told["params"]["type"], 1, "{told}");
    assert!(
        (told["params"]["message"].as_str()).is_some_and(|m| m.contains("cannot write")),
        "{told}"
    );
    assert_eq!(editor.answer_to(5)["result"], Value::Null);
    // And it goes on serving.
    editor.request(
        6,
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    );
    assert!(editor.answer_to(6)["result"].is_array());
    editor.shut_down();
}

#[test]
fn checks_past_the_second_wait_their_turn() {
    // Two checks of the bank take minutes: a third library waits until one ends.
    let bank = example("benchmark/libraries/bank.holi");
    let mut editor = Editor::with_options(json!({"timeoutSeconds": 600}));
    let (first, second, third) = (
        "file:///nowhere/bank1.holi",
        "file:///nowhere/bank2.holi",
        "file:///nowhere/dao.holi",
    );
    editor.open(first, 1, &bank);
    editor.open(second, 1, &bank);
    editor.open(third, 1, &example("examples/dao.holi"));
    let waiting = editor.next(|m| m["method"] == "holi/verdict" && m["params"]["uri"] == third);
    assert_eq!(waiting["params"]["state"], "waiting", "{waiting}");
    editor.request(
        2,
        "textDocument/codeLens",
        json!({"textDocument": {"uri": third}}),
    );
    let lenses = editor.answer_to(2)["result"].clone();
    assert!(
        (lenses[0]["command"]["title"].as_str()).is_some_and(|t| t.contains("waiting")),
        "{lenses}"
    );
    // Closing a bank cancels its check, and the waiting one runs.
    editor.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": first}}),
    );
    let verdict = editor.verdict(third);
    assert_eq!(verdict["state"], "unsafe", "{verdict}");
    editor.shut_down();
}
