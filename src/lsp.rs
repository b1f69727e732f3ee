//! `holi lsp`: a language server over standard input and output (`lang/editors.md`).
//!
//! The loop follows rust-analyzer's `lsp-server`: one thread reads messages, this one
//! answers them in order. What it serves so far: the diagnostics of the front end
//! (parse and type errors, warnings), published on every opened or changed version of
//! a document, located and carrying their codes (`holi explain CODE`); formatting
//! (`holi fmt`'s canonical text); the document's symbols (imports, methods and
//! globals); and go to definition.
//!
//! Bad input never ends the server: a request it does not know gets the protocol's
//! "method not found", a malformed one "invalid params", and an unknown notification
//! is ignored, as the protocol asks. Only the end of its input, or `exit`, ends it.

mod names;
mod transport;

use crate::diagnostics::{Diagnostic, Severity, Span};
use crate::syntax::ast::{Decl, Ident, Visibility};
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, Notification as _,
    PublishDiagnostics,
};
use lsp_types::request::{DocumentSymbolRequest, Formatting, GotoDefinition, Request as _};
use lsp_types::{
    DiagnosticRelatedInformation, DiagnosticSeverity, DocumentFormattingParams, DocumentSymbol,
    DocumentSymbolParams, DocumentSymbolResponse, GotoDefinitionParams, GotoDefinitionResponse,
    InitializeResult, Location, NumberOrString, OneOf, Position, PublishDiagnosticsParams, Range,
    ServerCapabilities, ServerInfo, SymbolKind, TextDocumentSyncCapability, TextDocumentSyncKind,
    TextEdit, Uri,
};
use std::collections::HashMap;

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
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        document_formatting_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        definition_provider: Some(OneOf::Left(true)),
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
    let (id, _) = connection.initialize_start().map_err(not_initialized)?;
    (connection.initialize_finish(id, initialized)).map_err(not_initialized)?;
    let mut server = Server::default();
    for message in &connection.receiver {
        match message {
            Message::Request(request) => {
                if connection
                    .handle_shutdown(&request)
                    .map_err(|e| e.to_string())?
                {
                    return Ok(());
                }
                let response = server.request(request);
                send(connection, Message::Response(response))?;
            }
            Message::Notification(notification) => {
                for out in server.notification(notification) {
                    send(connection, Message::Notification(out))?;
                }
            }
            // The server sends no requests, so it expects no responses.
            Message::Response(_) => {}
        }
    }
    Ok(())
}

fn send(connection: &Connection, message: Message) -> Result<(), String> {
    (connection.sender.send(message)).map_err(|_| "the client went away".to_string())
}

/// The documents the client has open, by address: their latest text.
#[derive(Default)]
struct Server {
    documents: HashMap<Uri, String>,
}

impl Server {
    fn request(&mut self, request: Request) -> Response {
        match request.method.as_str() {
            Formatting::METHOD => self.answer::<Formatting>(request, Server::formatting),
            DocumentSymbolRequest::METHOD => {
                self.answer::<DocumentSymbolRequest>(request, Server::symbols)
            }
            GotoDefinition::METHOD => self.answer::<GotoDefinition>(request, Server::definition),
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
        let text = self.documents.get(uri)?;
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

    /// The notifications to send in answer to `notification`.
    fn notification(&mut self, notification: Notification) -> Vec<Notification> {
        match notification.method.as_str() {
            DidOpenTextDocument::METHOD => {
                let Some(params) = params::<DidOpenTextDocument>(notification) else {
                    return Vec::new();
                };
                let document = params.text_document;
                self.changed(document.uri, document.text, Some(document.version))
            }
            DidChangeTextDocument::METHOD => {
                let Some(params) = params::<DidChangeTextDocument>(notification) else {
                    return Vec::new();
                };
                // Full synchronisation: the last change holds the whole text.
                let Some(change) = params.content_changes.into_iter().next_back() else {
                    return Vec::new();
                };
                let document = params.text_document;
                self.changed(document.uri, change.text, Some(document.version))
            }
            DidCloseTextDocument::METHOD => {
                let Some(params) = params::<DidCloseTextDocument>(notification) else {
                    return Vec::new();
                };
                let uri = params.text_document.uri;
                self.documents.remove(&uri);
                // A closed document keeps no marks in the editor.
                vec![published(uri, Vec::new(), None)]
            }
            _ => Vec::new(),
        }
    }

    fn changed(&mut self, uri: Uri, text: String, version: Option<i32>) -> Vec<Notification> {
        let diagnostics = front_end(&uri, &text);
        self.documents.insert(uri.clone(), text);
        vec![published(uri, diagnostics, version)]
    }
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

/// Byte offsets to the protocol's positions: a line and a column counted in UTF-16
/// code units, the encoding every client supports.
struct Lines<'s> {
    text: &'s str,
    starts: Vec<usize>,
}

impl<'s> Lines<'s> {
    fn new(text: &'s str) -> Lines<'s> {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Lines { text, starts }
    }

    /// The position of byte `at`, clamped into the text and back to the start of the
    /// character it falls in.
    fn position(&self, at: usize) -> Position {
        let mut at = at.min(self.text.len());
        while !self.text.is_char_boundary(at) {
            at -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= at) - 1;
        let start = self.starts[line];
        let character: usize = self.text[start..at].chars().map(char::len_utf16).sum();
        Position::new(
            u32::try_from(line).unwrap_or(u32::MAX),
            u32::try_from(character).unwrap_or(u32::MAX),
        )
    }

    /// The byte offset of `position`, clamped to its line (a column past its end is
    /// its end) and to the text.
    fn offset(&self, position: Position) -> usize {
        let Some(&start) = self.starts.get(position.line as usize) else {
            return self.text.len();
        };
        let end = (self.starts.get(position.line as usize + 1)).map_or(self.text.len(), |&e| e);
        let mut units = 0;
        for (i, c) in self.text[start..end].char_indices() {
            if units >= position.character as usize || c == '\n' {
                return start + i;
            }
            units += c.len_utf16();
        }
        end
    }

    fn range(&self, span: &Span) -> Range {
        Range::new(
            self.position(span.start),
            self.position(span.end.max(span.start)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units_and_clamp() {
        let lines = Lines::new("ab\n\u{1F600}x\n");
        assert_eq!(lines.position(1), Position::new(0, 1));
        assert_eq!(lines.position(3), Position::new(1, 0));
        // The emoji is four bytes and two UTF-16 units.
        assert_eq!(lines.position(7), Position::new(1, 2));
        // Inside the emoji: back to its start.
        assert_eq!(lines.position(5), Position::new(1, 0));
        assert_eq!(lines.position(99), Position::new(2, 0));
        for at in [0, 1, 3, 7, 8] {
            assert_eq!(lines.offset(lines.position(at)), at);
        }
        // Past the end of a line: its end; past the last line: the end of the text.
        assert_eq!(lines.offset(Position::new(0, 40)), 2);
        assert_eq!(lines.offset(Position::new(9, 0)), 9);
    }

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
