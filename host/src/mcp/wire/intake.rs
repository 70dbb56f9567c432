//! What one line from the agent gets: handed to rmcp, answered here, or nothing.
//!
//! The rule (JSON-RPC 2.0, §4–5): every line that carries a readable id is answered with
//! that id, whatever else is wrong with it.
//!
//! - A message rmcp can read is handed to it, and rmcp answers it.
//! - Bytes that are not JSON (not UTF-8, broken syntax, nested deeper than
//!   [`MAX_DEPTH`] levels) get `-32700` parse error.
//! - JSON that is not a message rmcp reads, a batch (MCP has none), or a line longer
//!   than the reader's cap gets `-32600` invalid request.
//! - The id is found leniently ([`super::scan`]) when serde cannot read the line. A line
//!   whose id is missing or unreadable is answered with id `null`, once: that is what
//!   JSON-RPC prescribes for a parse error, and a client cannot mistake it for the
//!   answer to one of its requests.
//! - Never answered: blank lines, and an object with a `method` but no `id` (a
//!   notification, even a malformed one: JSON-RPC forbids answering those), or with a
//!   `result` or `error` but no `method` (a reply to us; answering a reply can loop).
//!
//! Bad params for a method rmcp knows are not decided here: rmcp reads such a request
//! as a custom one, and [`crate::mcp::server`] answers it with `-32602`.
//!
//! No I/O here: [`intake`] maps bytes to an [`Intake`], so tests are plain values.

use rmcp::model::ClientJsonRpcMessage;
use serde_json::{json, Map, Value};

use super::scan::{IdScanner, ScannedId};

/// How deeply a line may nest: serde_json's own recursion limit.
pub const MAX_DEPTH: usize = 128;

/// JSON-RPC's parse error: the line is not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's invalid request: JSON, but not a request that can be served.
pub const INVALID_REQUEST: i64 = -32600;

/// What to do with one line.
#[derive(Debug)]
pub enum Intake {
    /// A message for rmcp.
    Message(Box<ClientJsonRpcMessage>),
    /// Error replies to write, in this order.
    Answer(Vec<ErrorReply>),
    /// Nothing to send (see the module docs for which lines).
    Nothing,
}

/// A JSON-RPC error reply written by tabwire itself.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorReply {
    /// The request's id as it was written, or `null`.
    pub id: Value,
    /// A JSON-RPC error code.
    pub code: i64,
    /// What was wrong, worded for the agent.
    pub message: String,
}

impl ErrorReply {
    /// The reply as one JSON line, newline included.
    pub fn to_line(&self) -> Vec<u8> {
        let reply = json!({
            "jsonrpc": "2.0",
            "id": self.id,
            "error": { "code": self.code, "message": self.message },
        });
        let mut line = reply.to_string().into_bytes();
        line.push(b'\n');
        line
    }
}

/// What a line holds (one line, without its `\n`).
pub fn intake(line: &[u8]) -> Intake {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Intake::Nothing;
    }
    if let Err(e) = std::str::from_utf8(line) {
        return parse_error(
            line,
            format!(
                "the line is not UTF-8 (byte {} is not); JSON-RPC messages are UTF-8 JSON",
                e.valid_up_to()
            ),
        );
    }
    match serde_json::from_slice::<Value>(line) {
        Ok(Value::Object(object)) => object_intake(object),
        Ok(Value::Array(items)) => batch_intake(&items),
        Ok(_) => answer(
            Value::Null,
            INVALID_REQUEST,
            "Invalid request: a JSON-RPC message is a JSON object",
        ),
        Err(e) if e.to_string().starts_with("recursion limit exceeded") => parse_error(
            line,
            format!("the line nests more than {MAX_DEPTH} levels deep, tabwire's limit"),
        ),
        Err(e) => parse_error(line, format!("the line is not JSON ({e})")),
    }
}

/// The answer to a line of `len` bytes, over the reader's cap of `limit`,
/// whose id the scan of its bytes found (or not).
pub fn too_long(id: &ScannedId, len: usize, limit: usize) -> Intake {
    answer(
        id.reply_id(),
        INVALID_REQUEST,
        format!(
            "Invalid request: the line is {len} bytes, over tabwire's limit of \
             {limit} bytes for one message. Send less at once."
        ),
    )
}

fn object_intake(object: Map<String, Value>) -> Intake {
    let id = object.get("id").cloned();
    let has_method = object.contains_key("method");
    let is_reply = object.contains_key("result") || object.contains_key("error");
    let error = match serde_json::from_value::<ClientJsonRpcMessage>(Value::Object(object)) {
        Ok(message) => return Intake::Message(Box::new(message)),
        Err(e) => e,
    };
    match id {
        Some(id @ (Value::String(_) | Value::Number(_))) => {
            answer(id, INVALID_REQUEST, format!("Invalid request: {error}"))
        }
        Some(_) => answer(
            Value::Null,
            INVALID_REQUEST,
            format!("Invalid request: the id must be a string or a number ({error})"),
        ),
        None if has_method || is_reply => {
            tracing::debug!(%error, "ignoring an unreadable notification or reply");
            Intake::Nothing
        }
        None => answer(
            Value::Null,
            INVALID_REQUEST,
            format!("Invalid request: {error}"),
        ),
    }
}

/// A batch: MCP has none, so each request in it is refused by id (or the batch once).
fn batch_intake(items: &[Value]) -> Intake {
    const WHY: &str = "Invalid request: MCP does not take batches; send one message per line";
    let replies: Vec<ErrorReply> = items
        .iter()
        .filter_map(|item| item.get("id"))
        .filter(|id| id.is_string() || id.is_number())
        .map(|id| ErrorReply {
            id: id.clone(),
            code: INVALID_REQUEST,
            message: WHY.into(),
        })
        .collect();
    if replies.is_empty() {
        return answer(Value::Null, INVALID_REQUEST, WHY);
    }
    Intake::Answer(replies)
}

fn parse_error(line: &[u8], why: String) -> Intake {
    answer(
        IdScanner::scan(line).reply_id(),
        PARSE_ERROR,
        format!("Parse error: {why}."),
    )
}

fn answer(id: Value, code: i64, message: impl Into<String>) -> Intake {
    Intake::Answer(vec![ErrorReply {
        id,
        code,
        message: message.into(),
    }])
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::JsonRpcMessage;

    fn one_reply(line: &[u8]) -> ErrorReply {
        match intake(line) {
            Intake::Answer(mut replies) if replies.len() == 1 => replies.remove(0),
            other => panic!("expected one reply, got {other:?}"),
        }
    }

    fn nested(depth: usize) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{{"name":"x","arguments":{{"a":{}{}}}}}}}"#,
            "[".repeat(depth),
            "]".repeat(depth)
        )
    }

    #[test]
    fn a_request_rmcp_reads_is_handed_to_it() {
        let Intake::Message(message) = intake(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
        else {
            panic!("not handed over");
        };
        assert!(matches!(*message, JsonRpcMessage::Request(_)));
        assert!(matches!(
            intake(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r"),
            Intake::Message(_)
        ));
    }

    #[test]
    fn nesting_up_to_the_limit_is_served_and_deeper_is_a_parse_error_with_the_id() {
        // The message itself takes four levels (object, params, arguments, "a").
        assert!(matches!(
            intake(nested(MAX_DEPTH - 4).as_bytes()),
            Intake::Message(_)
        ));
        for depth in [MAX_DEPTH - 3, 127, 5000] {
            let reply = one_reply(nested(depth).as_bytes());
            assert_eq!((reply.id, reply.code), (json!(5), PARSE_ERROR), "{depth}");
            assert!(reply.message.contains("128 levels"), "{}", reply.message);
        }
    }

    #[test]
    fn bytes_that_are_not_utf8_are_a_parse_error_with_the_id() {
        let reply =
            one_reply(b"{\"jsonrpc\":\"2.0\",\"id\":\"r\",\"method\":\"x\",\"params\":\"\xff\"}");
        assert_eq!((reply.id, reply.code), (json!("r"), PARSE_ERROR));
        assert!(reply.message.contains("not UTF-8"), "{}", reply.message);
    }

    #[test]
    fn broken_json_is_answered_with_the_id_if_it_can_be_read_else_null() {
        let reply = one_reply(br#"{"jsonrpc":"2.0","id":9,"method":"#);
        assert_eq!((reply.id, reply.code), (json!(9), PARSE_ERROR));
        let reply = one_reply(b"hello");
        assert_eq!((reply.id, reply.code), (Value::Null, PARSE_ERROR));
    }

    #[test]
    fn json_that_is_not_a_message_is_an_invalid_request_with_its_id() {
        for (line, id) in [
            (
                &br#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#[..],
                json!(3),
            ),
            (br#"{"id":"x","method":5}"#, json!("x")),
            (br#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#, json!(1.5)),
            (
                br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
                Value::Null,
            ),
            (
                br#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#,
                Value::Null,
            ),
            (br#"{}"#, Value::Null),
            (br#"42"#, Value::Null),
        ] {
            let reply = one_reply(line);
            assert_eq!((reply.id, reply.code), (id, INVALID_REQUEST));
        }
    }

    #[test]
    fn notifications_replies_and_blank_lines_are_never_answered() {
        for line in [
            &b""[..],
            b"  \r",
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":5}"#,
            br#"{"jsonrpc":"1.0","method":"x"}"#,
            br#"{"jsonrpc":"2.0","result":{}}"#,
        ] {
            assert!(matches!(intake(line), Intake::Nothing), "{line:?}");
        }
    }

    #[test]
    fn a_batch_is_refused_once_per_readable_id() {
        let Intake::Answer(replies) = intake(
            br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"method":"n"},{"id":"b","method":"ping"}]"#,
        ) else {
            panic!("not answered");
        };
        let ids: Vec<_> = replies.iter().map(|r| r.id.clone()).collect();
        assert_eq!(ids, [json!(1), json!("b")]);
        assert!(replies.iter().all(|r| r.code == INVALID_REQUEST));
        assert_eq!(one_reply(b"[]").id, Value::Null);
    }

    #[test]
    fn an_over_long_line_is_an_invalid_request_with_the_scanned_id() {
        let Intake::Answer(replies) = too_long(&ScannedId::Found(json!(4)), 100, 64) else {
            panic!("not answered");
        };
        assert_eq!(
            (replies[0].id.clone(), replies[0].code),
            (json!(4), INVALID_REQUEST)
        );
        assert!(replies[0].message.contains("64 bytes"));
    }

    #[test]
    fn replies_are_one_json_rpc_line() {
        let line = ErrorReply {
            id: json!(1),
            code: PARSE_ERROR,
            message: "no\nnewline".into(),
        }
        .to_line();
        assert_eq!(line.iter().filter(|b| **b == b'\n').count(), 1);
        let value: Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(value["jsonrpc"], "2.0");
        assert_eq!(value["error"]["code"], PARSE_ERROR);
    }
}
