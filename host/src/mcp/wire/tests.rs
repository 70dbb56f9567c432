//! The transport under rmcp and tabwire's own server, over in-memory pipes: what the
//! agent gets back for each kind of bad line, and a fuzz of generated lines.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use proptest::prelude::*;
use rmcp::ServiceExt;
use serde_json::{json, Value};
use tabwire_shared::{Command, ErrorCode, Reply, WireError};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use super::LineTransport;
use crate::mcp::context::{Browser, Session, Settings, ToolContext};
use crate::mcp::registry::Registry;
use crate::mcp::server::TabwireServer;
use futures_util::future::BoxFuture;

/// No browser: every command fails at once, as with none connected.
struct NoBrowser;

impl Browser for NoBrowser {
    fn call(&self, _command: Command) -> BoxFuture<'_, Result<Reply, WireError>> {
        Box::pin(async {
            Err(WireError::new(
                ErrorCode::BrowserDisconnected,
                "No browser is connected.",
            ))
        })
    }
}

/// tabwire's MCP server with its default tools and no browser behind it.
fn server() -> TabwireServer {
    let base = ToolContext::new(
        Arc::new(NoBrowser),
        Arc::new(Session::default()),
        Arc::new(Settings::default()),
    );
    TabwireServer::new(Registry::new(&HashMap::new()), base)
}

fn request(id: Value, method: &str) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": id, "method": method})
        .to_string()
        .into_bytes()
}

/// Serves `lines` (after the handshake, and before a final `ping` with id "end") and
/// returns every message the server wrote, in order: until "end" and each of `awaited`
/// are answered (rmcp answers concurrently, in any order), then until a short silence.
/// On a paused clock that silence passes only once every task is idle: nothing still
/// being worked on can answer after it.
async fn exchange(lines: Vec<Vec<u8>>, limit: usize, awaited: &[Value]) -> Vec<Value> {
    let (mut agent_in, server_in) = tokio::io::duplex(4096);
    let (server_out, agent_out) = tokio::io::duplex(4096);
    let server = server();
    let serving = tokio::spawn(async move {
        let transport = LineTransport::with_limit(server_in, server_out, limit);
        if let Ok(service) = server.serve(transport).await {
            let _ = service.waiting().await;
        }
    });
    let writer = tokio::spawn(async move {
        let init = json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}}});
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let mut all = vec![
            init.to_string().into_bytes(),
            initialized.to_string().into_bytes(),
        ];
        all.extend(lines);
        all.push(request(json!("end"), "ping"));
        for line in all {
            agent_in.write_all(&line).await.unwrap();
            agent_in.write_all(b"\n").await.unwrap();
        }
        agent_in
    });
    let mut out = BufReader::new(agent_out).lines();
    let mut answers = Vec::new();
    let mut waiting: Vec<Value> = awaited.to_vec();
    waiting.push(json!("end"));
    let read = async {
        while !waiting.is_empty() {
            let Some(line) = out.next_line().await.unwrap() else {
                break;
            };
            let answer: Value = serde_json::from_str(&line).unwrap();
            waiting.retain(|id| id != &answer["id"]);
            answers.push(answer);
        }
    };
    tokio::time::timeout(Duration::from_secs(20), read)
        .await
        .expect("the server stopped answering");
    // Anything more (a second answer to a line) comes now or not at all.
    while let Ok(Ok(Some(line))) =
        tokio::time::timeout(Duration::from_millis(100), out.next_line()).await
    {
        answers.push(serde_json::from_str(&line).unwrap());
    }
    drop(writer.await.unwrap());
    serving.abort();
    answers
}

/// The answers with this id.
fn answers_to<'a>(answers: &'a [Value], id: &Value) -> Vec<&'a Value> {
    answers.iter().filter(|a| &a["id"] == id).collect()
}

fn code(answer: &Value) -> Option<i64> {
    answer["error"]["code"].as_i64()
}

#[tokio::test(start_paused = true)]
async fn every_bad_line_with_an_id_is_answered_with_it_and_serving_goes_on() {
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"list_pages","arguments":{{"a":{}{}}}}}}}"#,
        "[".repeat(127),
        "]".repeat(127)
    );
    let long = format!(
        r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{"name":"x","arguments":{{"a":"{}"}}}},"id":"tail"}}"#,
        "A".repeat(5000)
    );
    let lines: Vec<Vec<u8>> = vec![
        deep.into_bytes(),
        b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{\"x\":\"\xff\"}}"
            .to_vec(),
        long.into_bytes(),
        br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":5}}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":5,"method":"no/such"}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":6,"#.to_vec(),
        b"".to_vec(),
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":5}"#.to_vec(),
        br#"[{"jsonrpc":"2.0","id":7,"method":"ping"}]"#.to_vec(),
        br#"{"jsonrpc":"1.0","id":8,"method":"ping"}"#.to_vec(),
        b"hello".to_vec(),
        request(json!(9), "tools/list"),
    ];
    let awaited: Vec<Value> = (2..=9).map(|i| json!(i)).chain([json!("tail")]).collect();
    let answers = exchange(lines, 1024, &awaited).await;
    let expect = [
        (json!(2), Some(-32700)),
        (json!(3), Some(-32700)),
        (json!("tail"), Some(-32600)),
        (json!(4), Some(-32602)),
        (json!(5), Some(-32601)),
        (json!(6), Some(-32700)),
        (json!(7), Some(-32600)),
        (json!(8), Some(-32600)),
        (Value::Null, Some(-32700)),
        (json!(9), None),
        (json!("end"), None),
    ];
    for (id, want) in &expect {
        let got = answers_to(&answers, id);
        assert_eq!(got.len(), 1, "answers to {id}: {answers:#?}");
        assert_eq!(code(got[0]), *want, "answer to {id}: {}", got[0]);
    }
    // The handshake's answer, and nothing for the blank line and the notification.
    assert_eq!(answers.len(), expect.len() + 1, "{answers:#?}");
    let tools = answers_to(&answers, &json!(9))[0]["result"]["tools"]
        .as_array()
        .map_or(0, Vec::len);
    assert!(tools > 10, "tools/list after the bad lines: {tools} tools");
}

#[tokio::test(start_paused = true)]
async fn an_rmcp_client_is_served_as_before() {
    use rmcp::model::{CallToolRequestParams, ClientConfig};
    let (client_io, server_io) = tokio::io::duplex(4096);
    let (server_in, server_out) = tokio::io::split(server_io);
    let server = server();
    let serving = tokio::spawn(async move {
        let service = server
            .serve(LineTransport::new(server_in, server_out))
            .await?;
        service.waiting().await?;
        anyhow::Ok(())
    });
    let client = ClientConfig::default().serve(client_io).await.unwrap();
    let tools = client.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "list_pages"));
    let result = client
        .call_tool(CallToolRequestParams::new("list_pages"))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true), "{result:?}");
    client.cancel().await.unwrap();
    let _ = tokio::time::timeout(Duration::from_secs(5), serving).await;
}

/// One generated line, given its index (for a unique id).
#[derive(Debug, Clone)]
enum Case {
    /// A request rmcp reads (some of them fail in the handler, still with an answer).
    Valid(usize),
    /// A request nested this deep.
    Deep(usize),
    /// A request with these bytes (at least one not UTF-8) in a string.
    NotUtf8(Vec<u8>),
    /// A request padded past the cap, its id first or last.
    TooLong(usize, bool),
    /// JSON that is not a request rmcp reads.
    BadShape(usize),
    /// A batch of one request.
    Batch,
    /// A request cut short after this many bytes.
    Cut(usize),
    /// Any bytes.
    Junk(Vec<u8>),
}

const LIMIT: usize = 512;
const METHODS: [&str; 4] = ["ping", "tools/list", "no/such", "tools/call"];

fn case() -> impl Strategy<Value = Case> {
    prop_oneof![
        (0..METHODS.len()).prop_map(Case::Valid),
        (1usize..400).prop_map(Case::Deep),
        (
            proptest::collection::vec(any::<u8>(), 0..6),
            0x80u8..=0xFF,
            proptest::collection::vec(any::<u8>(), 0..6)
        )
            .prop_map(|(mut a, bad, b)| {
                a.push(bad);
                a.extend(b);
                a.retain(|b| !matches!(b, b'\n' | b'"' | b'\\'));
                Case::NotUtf8(a)
            }),
        (LIMIT..4 * LIMIT, any::<bool>()).prop_map(|(n, last)| Case::TooLong(n, last)),
        (0usize..4).prop_map(Case::BadShape),
        Just(Case::Batch),
        (1usize..60).prop_map(Case::Cut),
        proptest::collection::vec(any::<u8>().prop_filter("one line", |b| *b != b'\n'), 0..80)
            .prop_map(Case::Junk),
    ]
}

/// The line for `case`, and the id it must be answered with (`None`: at most one
/// answer, with an id of no other line).
fn materialise(case: &Case, index: usize) -> (Vec<u8>, Option<Value>) {
    let id = json!(index);
    let line = match case {
        Case::Valid(m) if METHODS[*m] == "tools/call" => json!({"jsonrpc": "2.0", "id": id,
            "method": "tools/call", "params": {"name": "list_pages", "arguments": {}}})
        .to_string()
        .into_bytes(),
        Case::Valid(m) => request(id.clone(), METHODS[*m]),
        Case::Deep(depth) => format!(
            r#"{{"jsonrpc":"2.0","id":{index},"method":"ping","params":{{"x":{}{}}}}}"#,
            "[".repeat(*depth),
            "]".repeat(*depth)
        )
        .into_bytes(),
        Case::NotUtf8(bytes) => {
            let mut line =
                format!(r#"{{"jsonrpc":"2.0","id":{index},"method":"ping","params":{{"x":""#)
                    .into_bytes();
            line.extend(bytes);
            line.extend(br#""}}"#);
            line
        }
        Case::TooLong(n, last) => {
            let pad = "p".repeat(*n);
            if *last {
                format!(
                    r#"{{"jsonrpc":"2.0","method":"ping","params":{{"x":"{pad}"}},"id":{index}}}"#
                )
            } else {
                format!(
                    r#"{{"id":{index},"jsonrpc":"2.0","method":"ping","params":{{"x":"{pad}"}}}}"#
                )
            }
            .into_bytes()
        }
        Case::BadShape(0) => json!({"jsonrpc": "1.0", "id": id, "method": "ping"})
            .to_string()
            .into_bytes(),
        Case::BadShape(1) => json!({"jsonrpc": "2.0", "id": id, "method": 5})
            .to_string()
            .into_bytes(),
        Case::BadShape(2) => {
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": []}})
                .to_string()
                .into_bytes()
        }
        Case::BadShape(_) => json!({"jsonrpc": "2.0", "id": id}).to_string().into_bytes(),
        Case::Batch => json!([{"jsonrpc": "2.0", "id": id, "method": "ping"}])
            .to_string()
            .into_bytes(),
        Case::Cut(cut) => {
            // A string id: cut short, it is unreadable rather than another number.
            let full = request(json!(format!("c{index}")), "ping");
            return (full[..(*cut).min(full.len() - 1)].to_vec(), None);
        }
        Case::Junk(bytes) => return (bytes.clone(), None),
    };
    (line, Some(id))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Whatever lines come, each readable id gets exactly one answer carrying it, other
    /// lines at most one, nothing panics and the server still answers at the end.
    #[test]
    fn each_readable_id_gets_exactly_one_answer(cases in proptest::collection::vec(case(), 1..24)) {
        let lines: Vec<_> = cases.iter().enumerate().map(|(i, c)| materialise(c, i)).collect();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .start_paused(true)
            .build()
            .unwrap();
        let awaited: Vec<Value> = lines.iter().filter_map(|(_, id)| id.clone()).collect();
        let answers = runtime.block_on(exchange(lines.iter().map(|(l, _)| l.clone()).collect(), LIMIT, &awaited));
        let mut accounted = 2; // the handshake and the final ping
        let mut unbound = 0;
        for (i, (_, id)) in lines.iter().enumerate() {
            match id {
                Some(id) => {
                    let got = answers_to(&answers, id);
                    prop_assert_eq!(got.len(), 1, "line {} ({:?}): {:#?}", i, cases[i], answers);
                    accounted += 1;
                }
                None => unbound += 1,
            }
        }
        let others = answers.len() - accounted;
        prop_assert!(others <= unbound, "{} answers to {} lines without an id: {:#?}", others, unbound, answers);
        prop_assert!(answers.iter().all(|a| a["jsonrpc"] == "2.0"));
    }
}
