//! The real `tabwire mcp` binary over its stdin and stdout, with no browser: every line
//! that carries a readable id is answered, with that id, and serving goes on.
//!
//! Needs no browser and no extension: tool calls fail with "No browser is connected",
//! which is all a protocol-level check needs.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use serde_json::{json, Value};

/// A running `tabwire mcp` and the messages it writes.
struct Server {
    child: Child,
    stdin: ChildStdin,
    answers: Receiver<Value>,
    _socket_dir: tempfile::TempDir,
}

impl Server {
    /// Starts `tabwire mcp` pointed at a socket no browser listens on, initialized.
    fn start() -> Self {
        let socket_dir = tempfile::tempdir().unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_tabwire"))
            .arg("mcp")
            .env("TABWIRE_SOCKET", socket_dir.path().join("relay.sock"))
            .env_remove("TABWIRE_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, answers) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let value: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("not JSON on stdout ({e}): {line}"));
                if tx.send(value).is_err() {
                    break;
                }
            }
        });
        let mut server = Server {
            child,
            stdin,
            answers,
            _socket_dir: socket_dir,
        };
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "stdio-test", "version": "1"}}});
        let answer = server.ask(init.to_string().as_bytes());
        assert_eq!(answer["id"], 1);
        assert!(answer["result"]["serverInfo"].is_object(), "{answer}");
        server.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        server
    }

    fn send(&mut self, line: &[u8]) {
        self.stdin.write_all(line).unwrap();
        self.stdin.write_all(b"\n").unwrap();
        self.stdin.flush().unwrap();
    }

    fn next(&self) -> Value {
        self.answers
            .recv_timeout(Duration::from_secs(20))
            .expect("no answer from tabwire mcp")
    }

    /// Sends one line and returns the next message written.
    fn ask(&mut self, line: &[u8]) -> Value {
        self.send(line);
        self.next()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn error_code(answer: &Value) -> Option<i64> {
    answer["error"]["code"].as_i64()
}

/// The bad lines, each with the id and error code it must be answered with.
fn bad_lines() -> Vec<(Vec<u8>, Value, i64)> {
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"list_pages","arguments":{{"a":{}{}}}}}}}"#,
        "[".repeat(127),
        "]".repeat(127)
    );
    // Over 16 MiB, its id at the very end.
    let huge = format!(
        r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{"name":"list_pages","arguments":{{"a":"{}"}}}},"id":"huge"}}"#,
        "A".repeat(17 * 1024 * 1024)
    );
    vec![
        (deep.into_bytes(), json!(2), -32700),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{\"cursor\":\"\xc3\x28\"}}"
                .to_vec(),
            json!(3),
            -32700,
        ),
        (huge.into_bytes(), json!("huge"), -32600),
        (
            br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":5}}"#.to_vec(),
            json!(4),
            -32602,
        ),
        (
            br#"{"jsonrpc":"2.0","id":"five","method":"tools/frobnicate"}"#.to_vec(),
            json!("five"),
            -32601,
        ),
        (br#"{"jsonrpc":"2.0","id":6,"method""#.to_vec(), json!(6), -32700),
        (b"not json at all".to_vec(), Value::Null, -32700),
        (
            br#"[{"jsonrpc":"2.0","id":7,"method":"ping"}]"#.to_vec(),
            json!(7),
            -32600,
        ),
        (
            br#"{"jsonrpc":"2.0","id":8.5,"method":"ping","params":5}"#.to_vec(),
            json!(8.5),
            -32600,
        ),
    ]
}

#[test]
fn each_bad_line_gets_its_own_answer_in_turn_and_serving_goes_on() {
    let mut server = Server::start();
    for (line, id, code) in bad_lines() {
        // Neither a blank line nor a broken notification is answered: the next
        // message written is the bad line's answer.
        server.send(b"");
        server.send(br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":5}"#);
        let answer = server.ask(&line);
        assert_eq!(answer["id"], id, "{answer}");
        assert_eq!(error_code(&answer), Some(code), "{answer}");
        assert_eq!(answer["jsonrpc"], "2.0");
    }
    let tools = server.ask(br#"{"jsonrpc":"2.0","id":9,"method":"tools/list"}"#);
    assert_eq!(tools["id"], 9);
    assert!(
        tools["result"]["tools"].as_array().map_or(0, Vec::len) > 10,
        "{tools}"
    );
    // A real call still takes the pipeline (and finds no browser).
    let call = server.ask(
        br#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"list_pages","arguments":{}}}"#,
    );
    assert_eq!(call["id"], 10);
    assert_eq!(call["result"]["isError"], true, "{call}");
}

#[test]
fn bad_lines_sent_at_once_are_each_answered_once_in_order() {
    let mut server = Server::start();
    let lines = bad_lines();
    let mut all = Vec::new();
    for (line, _, _) in &lines {
        all.extend_from_slice(line);
        all.push(b'\n');
    }
    all.extend_from_slice(br#"{"jsonrpc":"2.0","id":"end","method":"ping"}"#);
    all.push(b'\n');
    server.stdin.write_all(&all).unwrap();
    server.stdin.flush().unwrap();

    let mut answers = Vec::new();
    while answers.len() < lines.len() + 1 {
        answers.push(server.next());
    }
    for (_, id, code) in &lines {
        let got: Vec<_> = answers.iter().filter(|a| &a["id"] == id).collect();
        assert_eq!(got.len(), 1, "answers to {id}: {answers:#?}");
        assert_eq!(error_code(got[0]), Some(*code), "{}", got[0]);
    }
    assert_eq!(answers.iter().filter(|a| a["id"] == "end").count(), 1);
    // The transport's own replies keep the order of their lines (rmcp's, for
    // -32601/-32602 and the ping, are written when their handler finishes).
    let own = |ids: Vec<&Value>| -> Vec<Value> {
        ids.into_iter()
            .filter(|id| {
                lines
                    .iter()
                    .any(|(_, i, c)| i == *id && *c != -32601 && *c != -32602)
            })
            .cloned()
            .collect()
    };
    let sent = own(lines.iter().map(|(_, id, _)| id).collect());
    let written = own(answers.iter().map(|a| &a["id"]).collect());
    assert_eq!(written, sent);
}
