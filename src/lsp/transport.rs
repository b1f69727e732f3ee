//! The protocol's framing on standard input and output, forgiving of garbage.
//!
//! `lsp-server`'s own reader stops at the first frame it cannot read, which would end
//! the server; this one answers such a frame with the JSON-RPC error it calls for (a
//! parse error, or an invalid request with the id it carried) and reads on.

use crossbeam_channel::{never, select, unbounded};
use lsp_server::{Connection, ErrorCode, Message};
use serde_json::{json, Value};
use std::io::{self, BufRead, Read, Write};
use std::thread::JoinHandle;

/// The longest message read: a longer one is skipped and answered with an error rather
/// than held in memory.
const MAX_MESSAGE: usize = 64 << 20;

/// The writer's thread, which ends once the connection's sender is dropped.
pub struct Writer(JoinHandle<io::Result<()>>);

impl Writer {
    /// Waits until everything sent has been written.
    pub fn join(self) -> io::Result<()> {
        self.0
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the writer failed")))
    }
}

/// A connection on standard input and output.
pub fn stdio() -> (Connection, Writer) {
    spawn(io::BufReader::new(io::stdin()), io::stdout())
}

/// A connection that reads frames from `input` and writes them to `output`, each on a
/// thread of its own. The reader ends with its input or after `exit`, and is not
/// waited for (it may be blocked on a read).
pub fn spawn(
    mut input: impl BufRead + Send + 'static,
    mut output: impl Write + Send + 'static,
) -> (Connection, Writer) {
    let (to_server, from_client) = unbounded::<Message>();
    let (to_client, outgoing) = unbounded::<Message>();
    let (refuse, refused) = unbounded::<Value>();
    std::thread::spawn(move || {
        while let Ok(Some(frame)) = read_frame(&mut input) {
            let message = match frame {
                Ok(body) => parse(&body),
                Err(why) => Err(error(Value::Null, ErrorCode::ParseError, why)),
            };
            let sent = match message {
                Ok(message) => {
                    let exit = matches!(&message, Message::Notification(n) if n.method == "exit");
                    if to_server.send(message).is_err() || exit {
                        break;
                    }
                    Ok(())
                }
                Err(answer) => refuse.send(answer).map_err(drop),
            };
            if sent.is_err() {
                break;
            }
        }
    });
    let writer = std::thread::spawn(move || {
        let mut refused = refused;
        // The writer ends when the server drops its sender, whatever the reader does.
        loop {
            select! {
                recv(outgoing) -> message => match message {
                    Ok(message) => message.write(&mut output)?,
                    Err(_) => return Ok(()),
                },
                recv(refused) -> answer => match answer {
                    Ok(answer) => {
                        let text = answer.to_string();
                        write!(output, "Content-Length: {}\r\n\r\n{text}", text.len())?;
                        output.flush()?;
                    }
                    // The reader has ended: only the server's messages are left.
                    Err(_) => refused = never(),
                },
            }
        }
    });
    (
        Connection {
            sender: to_client,
            receiver: from_client,
        },
        Writer(writer),
    )
}

/// A message, or the error that answers a body that is not one.
fn parse(body: &[u8]) -> Result<Message, Value> {
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| error(Value::Null, ErrorCode::ParseError, format!("not JSON: {e}")))?;
    let id = value.get("id").cloned().unwrap_or(Value::Null);
    serde_json::from_value(value).map_err(|e| {
        error(
            id,
            ErrorCode::InvalidRequest,
            format!("not a request, notification or response: {e}"),
        )
    })
}

fn error(id: Value, code: ErrorCode, message: String) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code as i32, "message": message}})
}

/// The next frame's body, or why it has none; `None` at the end of the input.
fn read_frame(input: &mut impl BufRead) -> io::Result<Option<Result<Vec<u8>, String>>> {
    let mut length = None;
    let mut header = false;
    let mut line = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            return Ok(None);
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end();
        if text.is_empty() {
            if header {
                break;
            }
            continue;
        }
        header = true;
        if let Some((name, value)) = text.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                length = value.trim().parse::<usize>().ok();
            }
        }
    }
    let Some(length) = length else {
        return Ok(Some(Err(
            "a header without a valid Content-Length".to_string()
        )));
    };
    if length > MAX_MESSAGE {
        let skipped = io::copy(&mut input.take(length as u64), &mut io::sink())?;
        if skipped < length as u64 {
            return Ok(None);
        }
        return Ok(Some(Err(format!(
            "a message of {length} bytes, longer than the {MAX_MESSAGE} holi reads"
        ))));
    }
    let mut body = vec![0; length];
    match input.read_exact(&mut body) {
        Ok(()) => Ok(Some(Ok(body))),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &str) -> Vec<Result<Vec<u8>, String>> {
        let mut input = io::Cursor::new(input.as_bytes().to_vec());
        let mut out = Vec::new();
        while let Ok(Some(frame)) = read_frame(&mut input) {
            out.push(frame);
        }
        out
    }

    #[test]
    fn garbage_between_frames_is_one_error_and_reading_goes_on() {
        let found = frames("garbage\r\n\r\nContent-Length: 2\r\n\r\n{}");
        assert_eq!(found.len(), 2);
        assert!(found[0].is_err());
        assert_eq!(found[1].as_deref(), Ok(&b"{}"[..]));
    }

    #[test]
    fn a_body_that_is_not_a_message_is_answered_with_its_id() {
        let answer = parse(br#"{"id": 7, "jsonrpc": "2.0"}"#).expect_err("not a message");
        assert_eq!(answer["id"], 7);
        assert_eq!(answer["error"]["code"], ErrorCode::InvalidRequest as i32);
        let answer = parse(b"{").expect_err("not JSON");
        assert_eq!(answer["id"], Value::Null);
        assert_eq!(answer["error"]["code"], ErrorCode::ParseError as i32);
    }
}
