//! `holi lsp` driven over stdio as an editor drives it: the handshake, diagnostics as
//! a document is opened, changed and closed, errors for what the server does not
//! serve or cannot read (after which it stays up), and shutdown.

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
        editor.request(1, "initialize", json!({"capabilities": {}}));
        let answer = editor.answer_to(1);
        assert_eq!(answer["result"]["serverInfo"]["name"], "holi", "{answer}");
        assert_eq!(answer["result"]["capabilities"]["textDocumentSync"], 1);
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
