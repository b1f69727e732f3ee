//! `holi lsp`: a language server over standard input and output (`lang/editors.md`).
//!
//! The loop follows rust-analyzer's `lsp-server`: one thread reads messages, this one
//! answers them in order, and checks run on threads of their own ([`checking`]), whose
//! ends come back to this loop on a channel. What it serves: the diagnostics of the
//! front end (parse and type errors, warnings) on every opened or changed version of a
//! document; the check in the background on open, on save and on request, cancelled by
//! a newer version, with a state per failure site and a `holi/verdict` notification per
//! file; code lenses and commands (check, check with other bounds, write the attacker
//! client, open the HTML report, `holi equiv` against another file); hover (types,
//! and after a check the counterexamples' values); formatting (`holi fmt`'s canonical
//! text); the document's symbols; and go to definition.
//!
//! Bad input never ends the server: a request it does not know gets the protocol's
//! "method not found", a malformed one "invalid params", and an unknown notification
//! is ignored, as the protocol asks. Only the end of its input, or `exit`, ends it.

mod address;
mod checking;
mod comparing;
mod hover;
mod lines;
mod names;
mod transport;

use crate::diagnostics::{Diagnostic, Severity, Span};
use crate::syntax::ast::{Decl, Ident, Visibility};
use checking::{Done, Finished, Job, Outcome, Settings, State};
use crossbeam_channel::{select, unbounded, Receiver, Sender};
use lines::Lines;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{
    DidChangeConfiguration, DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument,
    DidSaveTextDocument, LogMessage, Notification as _, PublishDiagnostics, ShowMessage,
};
use lsp_types::request::{
    CodeLensRefresh, CodeLensRequest, DocumentSymbolRequest, ExecuteCommand, Formatting,
    GotoDefinition, HoverRequest, Request as _, ShowDocument, ShowMessageRequest,
};
use lsp_types::{
    ClientCapabilities, CodeLens, CodeLensOptions, CodeLensParams, Command,
    DiagnosticRelatedInformation, DiagnosticSeverity, DocumentFormattingParams, DocumentSymbol,
    DocumentSymbolParams, DocumentSymbolResponse, ExecuteCommandOptions, ExecuteCommandParams,
    GotoDefinitionParams, GotoDefinitionResponse, Hover, HoverContents, HoverParams,
    HoverProviderCapability, InitializeResult, Location, LogMessageParams, MarkupContent,
    MarkupKind, MessageActionItem, MessageType, NumberOrString, OneOf, Position,
    PublishDiagnosticsParams, Range, SaveOptions, ServerCapabilities, ServerInfo,
    ShowDocumentParams, ShowMessageParams, ShowMessageRequestParams, SymbolKind,
    TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions,
    TextDocumentSyncSaveOptions, TextEdit, Uri,
};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::PathBuf;

/// The commands the server carries out (`workspace/executeCommand`), each with the
/// document's address as its first argument.
pub const COMMANDS: [&str; 6] = [
    CHECK,
    CHECK_WITH_BOUNDS,
    WRITE_CLIENT,
    OPEN_REPORT,
    EQUIV,
    SHOW_VERDICT,
];
/// Checks the document; a second argument `{"k": 3, "l": 2}` gives the bounds.
const CHECK: &str = "holi.check";
/// Asks which bounds to check with, then checks.
const CHECK_WITH_BOUNDS: &str = "holi.checkWithBounds";
/// Writes the n-th counterexample's attacker client (second argument, from 1) beside
/// the file as `<stem>-client-<n>.holi`, and shows it.
const WRITE_CLIENT: &str = "holi.writeClient";
/// Writes the HTML report of the last check and opens it.
const OPEN_REPORT: &str = "holi.openReport";
/// Compares the document with another library (second argument; asked when missing).
const EQUIV: &str = "holi.equiv";
/// Shows the last check's verdict line.
const SHOW_VERDICT: &str = "holi.showVerdict";
/// The notification that tells a file's verdict (`lang/editors.md`).
const VERDICT: &str = "holi/verdict";
/// How many checks run at once; the others wait their turn, so that an editor that opens
/// a folder of libraries does not start a search per file at the same time.
const RUNNING_CHECKS: usize = 2;

/// Serves one client on standard input and output until it says `exit` or the input
/// ends. An error is a broken transport (the client went away) or a client that never
/// initialized.
pub fn serve_stdio() -> Result<(), String> {
    let (connection, writer) = transport::stdio();
    let served = serve(&connection);
    drop(connection);
    let written = writer
        .join()
        .map_err(|e| format!("cannot write to the client: {e}"));
    served.and(written)
}

/// The server's loop on `connection`, from the handshake to `exit`.
pub fn serve(connection: &Connection) -> Result<(), String> {
    let capabilities = ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::FULL),
                save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                    include_text: Some(false),
                })),
                ..TextDocumentSyncOptions::default()
            },
        )),
        document_formatting_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        definition_provider: Some(OneOf::Left(true)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        code_lens_provider: Some(CodeLensOptions {
            resolve_provider: Some(false),
        }),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: COMMANDS.iter().map(|c| c.to_string()).collect(),
            ..ExecuteCommandOptions::default()
        }),
        ..ServerCapabilities::default()
    };
    let initialized = InitializeResult {
        capabilities,
        server_info: Some(ServerInfo {
            name: "holi".to_string(),
            version: Some(env!("CARGO_PKG_VERSION").to_string()),
        }),
    };
    let initialized = serde_json::to_value(initialized).map_err(|e| e.to_string())?;
    let not_initialized =
        |e: lsp_server::ProtocolError| format!("the client did not initialize: {e}");
    let (id, params) = connection.initialize_start().map_err(not_initialized)?;
    (connection.initialize_finish(id, initialized)).map_err(not_initialized)?;
    let (ended, ends) = unbounded();
    let mut server = Server::new(&params, ended);
    let served = server.run(connection, &ends);
    server.cancel_all();
    served
}

fn send(connection: &Connection, message: Message) -> Result<(), String> {
    (connection.sender.send(message)).map_err(|_| "the client went away".to_string())
}

/// What a thread of the server's ends with.
enum Ended {
    Check(Finished),
    Comparison(comparing::Compared),
}

/// The bounds k and l a check was asked for, where it was.
type BoundsAsked = (Option<u32>, Option<u32>);

/// An open document.
struct Document {
    /// Its latest text and version.
    text: String,
    version: i32,
    /// The front end's diagnostics of that text.
    front: Vec<lsp_types::Diagnostic>,
    /// The check under way, if any.
    job: Option<Job>,
    /// The last check of this very text.
    done: Option<Box<Done>>,
    /// Why this text was not checked, or why its check failed.
    note: Option<String>,
}

/// A question the server asked the client, awaiting its answer.
enum Asked {
    /// Which bounds to check the document at with.
    Bounds(Uri),
    /// Which library to compare the document with.
    Partner(Uri, Vec<PathBuf>),
    /// Nothing follows the answer.
    Nothing,
}

struct Server {
    documents: HashMap<Uri, Document>,
    settings: Settings,
    capabilities: ClientCapabilities,
    ended: Sender<Ended>,
    /// Numbers the checks, so that the end of a cancelled one is told from the current.
    generation: u64,
    /// The server's own requests, by id.
    asked: HashMap<RequestId, Asked>,
    next_request: i32,
    /// The comparison under way, if any: only one at a time.
    comparing: Option<comparing::Comparing>,
    /// The checks waiting for one of the [`RUNNING_CHECKS`] to end, first first, with
    /// the bounds asked.
    waiting: std::collections::VecDeque<(Uri, BoundsAsked)>,
    /// What to send once the message at hand is handled.
    outbox: Vec<Message>,
}

impl Server {
    fn new(params: &Value, ended: Sender<Ended>) -> Server {
        let capabilities = (params.get("capabilities").cloned())
            .and_then(|c| serde_json::from_value(c).ok())
            .unwrap_or_default();
        let options = params.get("initializationOptions").unwrap_or(&Value::Null);
        Server {
            documents: HashMap::new(),
            settings: Settings::updated(&Settings::default(), options),
            capabilities,
            ended,
            generation: 0,
            asked: HashMap::new(),
            next_request: 0,
            comparing: None,
            waiting: std::collections::VecDeque::new(),
            outbox: Vec::new(),
        }
    }

    fn run(&mut self, connection: &Connection, ends: &Receiver<Ended>) -> Result<(), String> {
        loop {
            select! {
                recv(connection.receiver) -> message => {
                    let Ok(message) = message else { return Ok(()) };
                    match message {
                        Message::Request(request) => {
                            if request.method == lsp_types::request::Shutdown::METHOD {
                                // Nothing runs on after shutdown.
                                self.cancel_all();
                            }
                            if connection.handle_shutdown(&request).map_err(|e| e.to_string())? {
                                return Ok(());
                            }
                            let response = self.request(request);
                            self.outbox.push(Message::Response(response));
                        }
                        Message::Notification(notification) => self.notification(notification),
                        Message::Response(response) => self.answered(response),
                    }
                }
                recv(ends) -> ended => match ended {
                    Ok(Ended::Check(finished)) => self.finished(finished),
                    Ok(Ended::Comparison(compared)) => self.compared(compared),
                    // The server holds a sender itself: this cannot happen.
                    Err(_) => return Ok(()),
                },
            }
            for message in std::mem::take(&mut self.outbox) {
                send(connection, message)?;
            }
        }
    }

    fn cancel_all(&mut self) {
        self.waiting.clear();
        for job in self.documents.values_mut().filter_map(|d| d.job.take()) {
            job.cancel();
        }
        if let Some(comparing) = self.comparing.take() {
            comparing.cancel();
        }
    }

    fn request(&mut self, request: Request) -> Response {
        match request.method.as_str() {
            Formatting::METHOD => self.answer::<Formatting>(request, Server::formatting),
            DocumentSymbolRequest::METHOD => {
                self.answer::<DocumentSymbolRequest>(request, Server::symbols)
            }
            GotoDefinition::METHOD => self.answer::<GotoDefinition>(request, Server::definition),
            HoverRequest::METHOD => self.answer::<HoverRequest>(request, Server::hover),
            CodeLensRequest::METHOD => self.answer::<CodeLensRequest>(request, Server::lenses),
            ExecuteCommand::METHOD => {
                let id = request.id.clone();
                match serde_json::from_value::<ExecuteCommandParams>(request.params) {
                    Ok(params) => match self.command(params) {
                        Ok(()) => Response::new_ok(id, Value::Null),
                        Err(why) => Response::new_err(id, ErrorCode::InvalidParams as i32, why),
                    },
                    Err(e) => Response::new_err(
                        id,
                        ErrorCode::InvalidParams as i32,
                        format!("malformed parameters of `{}`: {e}", request.method),
                    ),
                }
            }
            _ => Response::new_err(
                request.id,
                ErrorCode::MethodNotFound as i32,
                format!("holi does not serve `{}`", request.method),
            ),
        }
    }

    /// `request`'s answer by `serve`, or the error that its parameters are malformed.
    fn answer<R: lsp_types::request::Request>(
        &self,
        request: Request,
        serve: fn(&Server, R::Params) -> R::Result,
    ) -> Response {
        match serde_json::from_value::<R::Params>(request.params) {
            Ok(params) => Response::new_ok(request.id, serve(self, params)),
            Err(e) => Response::new_err(
                request.id,
                ErrorCode::InvalidParams as i32,
                format!("malformed parameters of `{}`: {e}", request.method),
            ),
        }
    }

    /// The open document at `uri`, loaded, if it is open and loads.
    fn loaded(&self, uri: &Uri) -> Option<(&str, crate::frontend::Loaded)> {
        let text = &self.documents.get(uri)?.text;
        let loaded = crate::frontend::load_str(uri.as_str(), text, false).ok()?;
        Some((text, loaded))
    }

    /// The canonical text (`holi fmt`, comments kept) as one edit; none for a document
    /// already canonical, or one with errors (nothing to print it from).
    fn formatting(&self, params: DocumentFormattingParams) -> Option<Vec<TextEdit>> {
        let (text, loaded) = self.loaded(&params.text_document.uri)?;
        let canonical = crate::syntax::printer::format_source(&loaded.program, text);
        if canonical == text {
            return Some(Vec::new());
        }
        let whole = Range::new(Position::new(0, 0), Lines::new(text).position(text.len()));
        Some(vec![TextEdit::new(whole, canonical)])
    }

    /// Where the name at the place asked is declared, in the same document.
    fn definition(&self, params: GotoDefinitionParams) -> Option<GotoDefinitionResponse> {
        let place = params.text_document_position_params;
        let uri = place.text_document.uri;
        let (text, loaded) = self.loaded(&uri)?;
        let lines = Lines::new(text);
        let declared = names::definition(&loaded.program, lines.offset(place.position))?;
        let range = lines.range(&declared);
        Some(GotoDefinitionResponse::Scalar(Location { uri, range }))
    }

    /// The type and declaration of the name at the place asked, and after a check what
    /// the counterexamples do there.
    fn hover(&self, params: HoverParams) -> Option<Hover> {
        let place = params.text_document_position_params;
        let uri = place.text_document.uri;
        let (text, loaded) = self.loaded(&uri)?;
        let lines = Lines::new(text);
        let done = self.documents.get(&uri).and_then(|d| d.done.as_deref());
        let shown = hover::hover(&loaded.program, text, lines.offset(place.position), done)?;
        Some(Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value: shown,
            }),
            range: None,
        })
    }

    /// The imports, methods and globals of the document, in source order.
    fn symbols(&self, params: DocumentSymbolParams) -> Option<DocumentSymbolResponse> {
        let (text, loaded) = self.loaded(&params.text_document.uri)?;
        let lines = Lines::new(text);
        let program = &loaded.program;
        let imports = (program.imports.iter())
            .map(|i| symbol(&lines, &i.name, &i.span, SymbolKind::FUNCTION, "import"));
        let decls = program.decls.iter().map(|d| {
            let (kind, detail) = match d {
                Decl::Method(m) if m.visibility == Visibility::Public => {
                    (SymbolKind::METHOD, "public")
                }
                Decl::Method(_) => (SymbolKind::METHOD, "private"),
                Decl::IntRef { .. } | Decl::FunRef { .. } | Decl::RefDecl { .. } => {
                    (SymbolKind::VARIABLE, "global")
                }
            };
            symbol(&lines, d.name(), d.span(), kind, detail)
        });
        Some(DocumentSymbolResponse::Nested(
            imports.chain(decls).collect(),
        ))
    }

    /// The lenses of a document: at its top, the verdict of its last check and the
    /// commands; above each failure site, its state, and for a failing one the command
    /// that writes its attacker client.
    fn lenses(&self, params: CodeLensParams) -> Option<Vec<CodeLens>> {
        let uri = params.text_document.uri;
        let document = self.documents.get(&uri)?;
        let lines = Lines::new(&document.text);
        let top = Range::default();
        let lens = |range: Range, title: String, command: &str, arguments: Vec<Value>| CodeLens {
            range,
            command: Some(Command {
                title,
                command: command.to_string(),
                arguments: Some(arguments),
            }),
            data: None,
        };
        let here = json!(uri.as_str());
        let waiting = self.waiting.iter().any(|(waiting, _)| *waiting == uri);
        let state = match (&document.job, &document.done, &document.note) {
            _ if waiting => "holi: waiting for another check to end…".to_string(),
            (Some(_), _, _) => "holi: checking…".to_string(),
            (None, Some(done), _) => format!("holi: {}", done.summary()),
            (None, None, Some(note)) => format!("holi: not checked: {note}"),
            (None, None, None) => "holi: not checked since the last change".to_string(),
        };
        let mut out = vec![
            lens(top, state, SHOW_VERDICT, vec![here.clone()]),
            lens(top, "▶ check".to_string(), CHECK, vec![here.clone()]),
            lens(
                top,
                "check with other bounds…".to_string(),
                CHECK_WITH_BOUNDS,
                vec![here.clone()],
            ),
        ];
        if document.done.is_some() {
            out.push(lens(
                top,
                "open the report".to_string(),
                OPEN_REPORT,
                vec![here.clone()],
            ));
        }
        out.push(lens(
            top,
            "compare with another library…".to_string(),
            EQUIV,
            vec![here.clone()],
        ));
        if let Some(done) = &document.done {
            for site in &done.sites {
                let range = lines.range(&site.span);
                let (title, command, arguments) = match done.state(site) {
                    State::Fails(n, c) => (
                        format!(
                            "✗ fails after {} moves: write the attacker client",
                            c.trace.0.len()
                        ),
                        WRITE_CLIENT,
                        vec![here.clone(), json!(n + 1)],
                    ),
                    State::Safe => (
                        format!("✓ safe within k = {}, l = {}", done.k, done.l),
                        SHOW_VERDICT,
                        vec![here.clone()],
                    ),
                    State::Proved => (
                        "✓ proved for every k and l".to_string(),
                        SHOW_VERDICT,
                        vec![here.clone()],
                    ),
                    State::NotSettled(_) => (
                        "? not settled".to_string(),
                        SHOW_VERDICT,
                        vec![here.clone()],
                    ),
                };
                out.push(lens(range, title, command, arguments));
            }
        }
        Some(out)
    }

    /// Carries out a command; an error is arguments it cannot use.
    fn command(&mut self, params: ExecuteCommandParams) -> Result<(), String> {
        let mut arguments = params.arguments.into_iter();
        let uri = (arguments.next())
            .and_then(|a| a.as_str().and_then(|s| s.parse::<Uri>().ok()))
            .ok_or_else(|| format!("`{}` takes the document's address first", params.command))?;
        let second = arguments.next();
        match params.command.as_str() {
            CHECK => {
                let bound = |name: &str| {
                    (second.as_ref())
                        .and_then(|b| b.get(name))
                        .and_then(Value::as_u64)
                        .and_then(|n| u32::try_from(n).ok())
                };
                self.check(&uri, (bound("k"), bound("l")))
            }
            CHECK_WITH_BOUNDS => {
                let current = (self.documents.get(&uri))
                    .and_then(|d| d.done.as_ref())
                    .map_or((2, 2), |d| (d.k, d.l));
                let choices = bound_choices(current);
                self.ask(
                    format!(
                        "Check {} with which bounds? (k: library frames open at once, l: \
                         the client's calls per frame)",
                        address::stem(&uri)
                    ),
                    choices,
                    Asked::Bounds(uri),
                );
                Ok(())
            }
            WRITE_CLIENT => {
                let n = second.as_ref().and_then(Value::as_u64).unwrap_or(1);
                self.write_client(&uri, usize::try_from(n).unwrap_or(usize::MAX))
            }
            OPEN_REPORT => self.open_report(&uri),
            EQUIV => match second.as_ref().and_then(Value::as_str) {
                Some(other) => {
                    let other = (other.parse::<Uri>().ok())
                        .and_then(|u| address::path_of(&u))
                        .ok_or_else(|| format!("`{EQUIV}`: `{other}` is no file's address"))?;
                    self.compare(&uri, other)
                }
                None => {
                    let candidates = comparing::partners(&uri);
                    if candidates.is_empty() {
                        self.show(
                            MessageType::WARNING,
                            "holi: no other .holi file beside this one to compare it with"
                                .to_string(),
                        );
                        return Ok(());
                    }
                    let titles = (candidates.iter())
                        .map(|p| {
                            p.file_name()
                                .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
                        })
                        .collect();
                    self.ask(
                        format!(
                            "Compare {} with which library? (holi equiv: can any client \
                             tell them apart?)",
                            address::stem(&uri)
                        ),
                        titles,
                        Asked::Partner(uri, candidates),
                    );
                    Ok(())
                }
            },
            SHOW_VERDICT => {
                let document = self.documents.get(&uri);
                let waiting = self.waiting.iter().any(|(waiting, _)| *waiting == uri);
                let line = match document.map(|d| (&d.job, &d.done, &d.note)) {
                    _ if waiting => "holi: the check waits for another to end".to_string(),
                    Some((Some(_), _, _)) => "holi: the check is running".to_string(),
                    Some((None, Some(done), _)) => {
                        format!("holi: {} ({})", done.summary(), done.bounds_text())
                    }
                    Some((None, None, Some(note))) => format!("holi: not checked: {note}"),
                    _ => "holi: not checked since the last change".to_string(),
                };
                self.show(MessageType::INFO, line);
                Ok(())
            }
            other => Err(format!("holi has no command `{other}`")),
        }
    }

    /// Starts checking the document at `uri` (read from its file when it is not open),
    /// cancelling its check under way.
    fn check(&mut self, uri: &Uri, bounds: BoundsAsked) -> Result<(), String> {
        if !self.documents.contains_key(uri) {
            let path =
                address::path_of(uri).ok_or_else(|| format!("{} is not open", uri.as_str()))?;
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            self.changed(uri.clone(), text, 0);
        }
        if let Some(job) = self.documents.get_mut(uri).and_then(|d| d.job.take()) {
            job.cancel();
        }
        self.waiting.retain(|(waiting, _)| waiting != uri);
        let running = (self.documents.values())
            .filter(|d| d.job.is_some())
            .count();
        if running >= RUNNING_CHECKS {
            self.waiting.push_back((uri.clone(), bounds));
            let version = self.documents.get(uri).map_or(0, |d| d.version);
            self.notify(
                VERDICT,
                json!({"uri": uri.as_str(), "version": version, "state": "waiting"}),
            );
            self.refresh_lenses();
            return Ok(());
        }
        self.generation += 1;
        let generation = self.generation;
        let Some(document) = self.documents.get_mut(uri) else {
            return Ok(());
        };
        let started = checking::start(
            uri.clone(),
            document.version,
            generation,
            document.text.clone(),
            bounds,
            &self.settings,
            {
                let ended = self.ended.clone();
                move |finished| {
                    // The server may have ended meanwhile: nobody waits for it then.
                    let _ = ended.send(Ended::Check(finished));
                }
            },
        );
        match started {
            Ok(job) => {
                let version = job.version;
                document.job = Some(job);
                self.notify(
                    VERDICT,
                    json!({"uri": uri.as_str(), "version": version, "state": "checking"}),
                );
                self.refresh_lenses();
                Ok(())
            }
            Err(e) => {
                self.show(
                    MessageType::ERROR,
                    format!("holi: cannot start the check: {e}"),
                );
                Ok(())
            }
        }
    }

    /// A check ended: its result is shown (or dropped), and a waiting check takes its
    /// place.
    fn finished(&mut self, finished: Finished) {
        self.show_finished(finished);
        // As many as there are free places: a check that cannot start leaves its place.
        while (self.documents.values())
            .filter(|d| d.job.is_some())
            .count()
            < RUNNING_CHECKS
        {
            let Some((uri, bounds)) = self.waiting.pop_front() else {
                break;
            };
            if let Err(why) = self.check(&uri, bounds) {
                self.show(MessageType::ERROR, format!("holi: {why}"));
            }
        }
    }

    /// Shows a check's result if it is the document's current one, else tells it was
    /// cancelled.
    fn show_finished(&mut self, finished: Finished) {
        let uri = finished.uri.clone();
        let Some(document) = self.documents.get_mut(&uri) else {
            return;
        };
        let current = (document.job.as_ref()).is_some_and(|j| j.generation == finished.generation);
        if !current {
            // Told only when nothing newer is under way or shown for the document, so that
            // it is never the last word over a newer check.
            if document.job.is_none() && document.done.is_none() {
                self.notify(
                    VERDICT,
                    json!({"uri": uri.as_str(), "version": finished.version, "state": "cancelled"}),
                );
            }
            return;
        }
        document.job = None;
        let verdict = match finished.outcome {
            // The front end's errors are shown already: nothing new to publish.
            Outcome::NotLoaded => {
                self.notify(
                    VERDICT,
                    json!({
                        "uri": uri.as_str(), "version": finished.version, "state": "not-checked",
                        "summary": "the file has errors: see the diagnostics"
                    }),
                );
                self.refresh_lenses();
                return;
            }
            Outcome::Refused(why) => {
                // What an earlier check showed is no longer this text's verdict.
                document.done = None;
                let verdict = json!({
                    "uri": uri.as_str(), "version": finished.version, "state": "not-checked",
                    "summary": why
                });
                document.note = Some(why);
                verdict
            }
            Outcome::Failed(why) => {
                document.done = None;
                document.note = Some(why.clone());
                self.show(MessageType::ERROR, format!("holi: the check failed: {why}"));
                json!({
                    "uri": uri.as_str(), "version": finished.version, "state": "failed",
                    "summary": why
                })
            }
            Outcome::Checked(done) => {
                let verdict = done.verdict(&uri, finished.version);
                document.done = Some(done);
                verdict
            }
        };
        self.publish(&uri);
        self.notify(VERDICT, verdict);
        self.refresh_lenses();
    }

    /// Writes the attacker client of the `n`-th counterexample (from 1) beside the file
    /// and shows it.
    fn write_client(&mut self, uri: &Uri, n: usize) -> Result<(), String> {
        let done = (self.documents.get(uri))
            .and_then(|d| d.done.as_ref())
            .ok_or("no check of this version has ended: check it first")?;
        let client = (done.checked.confirmation.as_ref())
            .and_then(|c| c.clients.get(n.wrapping_sub(1)))
            .ok_or_else(|| format!("the last check has no counterexample {n}"))?
            .clone()
            .ok_or_else(|| format!("no client could be written for counterexample {n}"))?;
        let path = address::path_of(uri)
            .and_then(|p| p.parent().map(|d| d.to_path_buf()))
            .ok_or("an unsaved document has no folder to write the client beside")?
            .join(format!("{}-client-{n}.holi", address::stem(uri)));
        match std::fs::write(&path, client) {
            Ok(()) => self.open(&path, false),
            Err(e) => self.show(
                MessageType::ERROR,
                format!("holi: cannot write {}: {e}", path.display()),
            ),
        }
        Ok(())
    }

    /// Writes the HTML report of the last check to the temporary folder and opens it.
    fn open_report(&mut self, uri: &Uri) -> Result<(), String> {
        let done = (self.documents.get(uri))
            .and_then(|d| d.done.as_ref())
            .ok_or("no check of this version has ended: check it first")?;
        let dir = address::scratch();
        let path = dir.join(format!("{}.html", address::unique_stem(uri)));
        let written = std::fs::create_dir_all(&dir).and_then(|()| {
            let file = std::io::BufWriter::new(std::fs::File::create(&path)?);
            let mut page = crate::html::HtmlReport::begin(file)?;
            page.add(&done.report())?;
            page.finish()
        });
        match written {
            Ok(()) => self.open(&path, true),
            Err(e) => self.show(
                MessageType::ERROR,
                format!("holi: cannot write the report {}: {e}", path.display()),
            ),
        }
        Ok(())
    }

    /// Starts comparing the document at `uri` with the library at `other`.
    fn compare(&mut self, uri: &Uri, other: PathBuf) -> Result<(), String> {
        let left = address::path_of(uri).ok_or("an unsaved document cannot be compared")?;
        if let Some(comparing) = self.comparing.take() {
            comparing.cancel();
        }
        let saved = std::fs::read_to_string(&left).ok();
        if (self.documents.get(uri)).is_some_and(|d| saved.as_deref() != Some(d.text.as_str())) {
            self.show(
                MessageType::INFO,
                "holi: the document has unsaved changes: comparing the saved file".to_string(),
            );
        }
        let ended = self.ended.clone();
        match comparing::start(left, other, &self.settings, move |c| {
            let _ = ended.send(Ended::Comparison(c));
        }) {
            Ok(comparing) => {
                self.show(
                    MessageType::INFO,
                    format!("holi: comparing {}…", comparing.title()),
                );
                self.comparing = Some(comparing);
            }
            Err(e) => self.show(MessageType::ERROR, format!("holi: cannot compare: {e}")),
        }
        Ok(())
    }

    /// A comparison ended: its verdict as a message, its report in the log and, where
    /// written, as a page.
    fn compared(&mut self, compared: comparing::Compared) {
        if (self.comparing.as_ref()).is_none_or(|c| c.id() != compared.id) {
            return;
        }
        self.comparing = None;
        self.notify(
            LogMessage::METHOD,
            LogMessageParams {
                typ: MessageType::INFO,
                message: compared.text.clone(),
            },
        );
        let kind = if compared.failed {
            MessageType::ERROR
        } else if compared.differs_or_unsettled {
            MessageType::WARNING
        } else {
            MessageType::INFO
        };
        self.show(kind, format!("holi: {}", compared.headline()));
        if let Some(page) = compared.page {
            self.open(&page, true);
        }
    }

    /// Opens `path` in the editor, or (`external`) in the system's program for it.
    fn open(&mut self, path: &std::path::Path, external: bool) {
        let supported = (self.capabilities.window.as_ref())
            .and_then(|w| w.show_document.as_ref())
            .is_some_and(|s| s.support);
        match address::uri_of(path) {
            Some(uri) if supported => {
                let params = ShowDocumentParams {
                    uri,
                    external: Some(external),
                    take_focus: Some(true),
                    selection: None,
                };
                self.request_client(ShowDocument::METHOD, params, Asked::Nothing);
            }
            _ => self.show(MessageType::INFO, format!("holi: wrote {}", path.display())),
        }
    }

    /// Asks the client to choose one of `choices`.
    fn ask(&mut self, message: String, choices: Vec<String>, asked: Asked) {
        let params = ShowMessageRequestParams {
            typ: MessageType::INFO,
            message,
            actions: Some(
                choices
                    .into_iter()
                    .map(|title| MessageActionItem {
                        title,
                        properties: HashMap::new(),
                    })
                    .collect(),
            ),
        };
        self.request_client(ShowMessageRequest::METHOD, params, asked);
    }

    fn request_client(&mut self, method: &str, params: impl serde::Serialize, asked: Asked) {
        self.next_request += 1;
        let id = RequestId::from(format!("holi-{}", self.next_request));
        self.asked.insert(id.clone(), asked);
        self.outbox.push(Message::Request(Request::new(
            id,
            method.to_string(),
            params,
        )));
    }

    /// The client answered one of the server's requests.
    fn answered(&mut self, response: Response) {
        let Some(asked) = self.asked.remove(&response.id) else {
            return;
        };
        let chosen = (response.response_result.ok())
            .and_then(|r| serde_json::from_value::<Option<MessageActionItem>>(r).ok())
            .flatten()
            .map(|item| item.title);
        let Some(chosen) = chosen else {
            return;
        };
        let outcome = match asked {
            Asked::Bounds(uri) => match parse_bounds(&chosen) {
                Some((k, l)) => self.check(&uri, (Some(k), Some(l))),
                None => Ok(()),
            },
            Asked::Partner(uri, candidates) => {
                let found = candidates
                    .into_iter()
                    .find(|p| p.file_name().is_some_and(|n| n.to_string_lossy() == chosen));
                match found {
                    Some(other) => self.compare(&uri, other),
                    None => Ok(()),
                }
            }
            Asked::Nothing => Ok(()),
        };
        if let Err(why) = outcome {
            self.show(MessageType::ERROR, format!("holi: {why}"));
        }
    }

    fn show(&mut self, typ: MessageType, message: String) {
        self.notify(ShowMessage::METHOD, ShowMessageParams { typ, message });
    }

    fn notify(&mut self, method: &str, params: impl serde::Serialize) {
        self.outbox.push(Message::Notification(Notification::new(
            method.to_string(),
            params,
        )));
    }

    /// Asks the client to ask for the lenses again, where it can.
    fn refresh_lenses(&mut self) {
        let supported = (self.capabilities.workspace.as_ref())
            .and_then(|w| w.code_lens.as_ref())
            .and_then(|c| c.refresh_support)
            .unwrap_or(false);
        if supported {
            self.request_client(CodeLensRefresh::METHOD, Value::Null, Asked::Nothing);
        }
    }

    /// Publishes the document's diagnostics: the front end's, and its last check's.
    fn publish(&mut self, uri: &Uri) {
        let Some(document) = self.documents.get(uri) else {
            return;
        };
        let mut diagnostics = document.front.clone();
        let lines = Lines::new(&document.text);
        if let Some(done) = &document.done {
            diagnostics.extend(done.diagnostics(uri, &lines));
        }
        if let Some(note) = &document.note {
            diagnostics.push(lsp_types::Diagnostic {
                severity: Some(DiagnosticSeverity::INFORMATION),
                source: Some("holi".to_string()),
                message: format!("not checked: {note}"),
                ..lsp_types::Diagnostic::default()
            });
        }
        let published = published(uri.clone(), diagnostics, Some(document.version));
        self.outbox.push(Message::Notification(published));
    }

    fn notification(&mut self, notification: Notification) {
        match notification.method.as_str() {
            DidOpenTextDocument::METHOD => {
                let Some(params) = params::<DidOpenTextDocument>(notification) else {
                    return;
                };
                let document = params.text_document;
                let uri = document.uri;
                self.changed(uri.clone(), document.text, document.version);
                if self.settings.check_on_open {
                    self.check_quietly(&uri);
                }
            }
            DidChangeTextDocument::METHOD => {
                let Some(params) = params::<DidChangeTextDocument>(notification) else {
                    return;
                };
                // Full synchronisation: the last change holds the whole text.
                let Some(change) = params.content_changes.into_iter().next_back() else {
                    return;
                };
                let document = params.text_document;
                self.changed(document.uri, change.text, document.version);
            }
            DidSaveTextDocument::METHOD => {
                let Some(params) = params::<DidSaveTextDocument>(notification) else {
                    return;
                };
                if self.settings.check_on_save {
                    self.check_quietly(&params.text_document.uri);
                }
            }
            DidCloseTextDocument::METHOD => {
                let Some(params) = params::<DidCloseTextDocument>(notification) else {
                    return;
                };
                let uri = params.text_document.uri;
                self.waiting.retain(|(waiting, _)| *waiting != uri);
                if let Some(job) = self.documents.remove(&uri).and_then(|d| d.job) {
                    job.cancel();
                }
                // A closed document keeps no marks in the editor.
                self.outbox
                    .push(Message::Notification(published(uri, Vec::new(), None)));
            }
            DidChangeConfiguration::METHOD => {
                let Some(params) = params::<DidChangeConfiguration>(notification) else {
                    return;
                };
                self.settings = Settings::updated(&self.settings, &params.settings);
            }
            _ => {}
        }
    }

    /// Checks an open document, telling the user what stopped it from starting.
    fn check_quietly(&mut self, uri: &Uri) {
        if self.documents.contains_key(uri) {
            if let Err(why) = self.check(uri, (None, None)) {
                self.show(MessageType::ERROR, format!("holi: {why}"));
            }
        }
    }

    /// A new text of the document at `uri`: its front end's diagnostics are published,
    /// and whatever the check had for the text before is cancelled or dropped.
    fn changed(&mut self, uri: Uri, text: String, version: i32) {
        let front = front_end(&uri, &text);
        let before = self.documents.insert(
            uri.clone(),
            Document {
                text,
                version,
                front,
                job: None,
                done: None,
                note: None,
            },
        );
        let was_waiting = self.waiting.iter().any(|(waiting, _)| *waiting == uri);
        self.waiting.retain(|(waiting, _)| *waiting != uri);
        if let Some(before) = before {
            let had_check = before.done.is_some() || before.job.is_some() || was_waiting;
            if let Some(job) = before.job {
                job.cancel();
            }
            if had_check {
                self.notify(
                    VERDICT,
                    json!({"uri": uri.as_str(), "version": version, "state": "outdated"}),
                );
                self.refresh_lenses();
            }
        }
        self.publish(&uri);
    }
}

/// The bounds offered by "check with other bounds": around those of the last check.
fn bound_choices((k, l): (u32, u32)) -> Vec<String> {
    let mut choices: Vec<(u32, u32)> = vec![
        (k.saturating_add(1), l),
        (k, l.saturating_add(1)),
        (k.saturating_add(1), l.saturating_add(1)),
        (k.saturating_sub(1).max(1), l),
        (2, 2),
        (3, 2),
        (4, 4),
    ];
    choices.retain(|&b| b != (k, l));
    let mut seen = std::collections::HashSet::new();
    choices.retain(|b| seen.insert(*b));
    choices
        .into_iter()
        .map(|(k, l)| format!("k = {k}, l = {l}"))
        .collect()
}

/// The bounds of a choice of [`bound_choices`].
fn parse_bounds(choice: &str) -> Option<(u32, u32)> {
    let (k, l) = choice.strip_prefix("k = ")?.split_once(", l = ")?;
    Some((k.parse().ok()?, l.parse().ok()?))
}

// `deprecated` is a field the protocol replaced by tags; the struct still has it.
#[allow(deprecated)]
fn symbol(
    lines: &Lines<'_>,
    name: &Ident,
    span: &Span,
    kind: SymbolKind,
    detail: &str,
) -> DocumentSymbol {
    DocumentSymbol {
        name: name.name.clone(),
        detail: Some(detail.to_string()),
        kind,
        tags: None,
        deprecated: None,
        range: lines.range(span),
        selection_range: lines.range(&name.span),
        children: None,
    }
}

/// The parameters of `notification`, or none when they are malformed (a notification
/// gets no answer, so there is no one to tell).
fn params<N: lsp_types::notification::Notification>(
    notification: Notification,
) -> Option<N::Params> {
    serde_json::from_value(notification.params).ok()
}

fn published(
    uri: Uri,
    diagnostics: Vec<lsp_types::Diagnostic>,
    version: Option<i32>,
) -> Notification {
    Notification::new(
        PublishDiagnostics::METHOD.to_string(),
        PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        },
    )
}

/// The front end's diagnostics of `text`, the document at `uri`.
fn front_end(uri: &Uri, text: &str) -> Vec<lsp_types::Diagnostic> {
    let name = uri.as_str();
    let diagnostics = match crate::frontend::load_str(name, text, false) {
        Ok(loaded) => loaded.warnings,
        Err(rejected) => rejected.diagnostics,
    };
    let lines = Lines::new(text);
    diagnostics.iter().map(|d| to_lsp(d, uri, &lines)).collect()
}

fn to_lsp(d: &Diagnostic, uri: &Uri, lines: &Lines<'_>) -> lsp_types::Diagnostic {
    let mut labels = d.labels.iter();
    // The first label is where the problem is; a diagnostic without one (an empty
    // file, say) is shown at the start.
    let primary = labels.next();
    let range = primary.map_or_else(Range::default, |l| lines.range(&l.span));
    let mut message = d.title.clone();
    if let Some(label) = primary.filter(|l| !l.message.is_empty()) {
        message = format!("{message}: {}", label.message);
    }
    if let Some(hint) = &d.hint {
        message = format!("{message}\nhint: {hint}");
    }
    let related: Vec<DiagnosticRelatedInformation> = labels
        .map(|l| DiagnosticRelatedInformation {
            location: Location {
                uri: uri.clone(),
                range: lines.range(&l.span),
            },
            message: l.message.clone(),
        })
        .collect();
    lsp_types::Diagnostic {
        range,
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(d.code.to_string())),
        source: Some("holi".to_string()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        ..lsp_types::Diagnostic::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_is_located_with_its_code() {
        let uri: Uri = "file:///t.holi".parse().expect("a valid address");
        let text = "public f (x:int) :(int) = { x + y };";
        let found = front_end(&uri, text);
        let error = found
            .iter()
            .find(|d| d.severity == Some(DiagnosticSeverity::ERROR))
            .expect("an error");
        assert!(matches!(&error.code, Some(NumberOrString::String(c)) if c.starts_with('E')));
        assert_eq!(error.range.start.line, 0);
        assert_eq!(error.range.start.character, 32);
    }
}
