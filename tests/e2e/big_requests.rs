//! Requests too big for one native message (Chrome passes at most 1 MiB from the native
//! host to the extension): they reach the page whole, in pieces on the way, and the
//! link goes on working after them.

use serde_json::{json, Value};

use crate::harness::{Agent, THIRD_PARTY};

/// At least `bytes` bytes of UTF-8 text mixing every kind of char a piece may be cut
/// at: ASCII, 2-, 3- and 4-byte chars, and those JSON escapes (quote, backslash,
/// newline).
fn big_text(bytes: usize) -> String {
    const CHARS: [char; 9] = ['a', 'é', '€', '😀', '"', '\\', '\n', '<', ' '];
    let mut state: u32 = 12345;
    let mut text = String::with_capacity(bytes + 4);
    while text.len() < bytes {
        state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
        text.push(CHARS[(state >> 16) as usize % CHARS.len()]);
    }
    text
}

/// What the page's `window.measure` says of `text`: its length in UTF-16 units and
/// FNV-1a (32-bit) over them.
fn measure(text: &str) -> Value {
    let units = text.encode_utf16();
    let checksum = units.clone().fold(0x811c_9dc5_u32, |h, u| {
        (h ^ u32::from(u)).wrapping_mul(16_777_619)
    });
    json!({"length": units.count(), "checksum": checksum})
}

const FIVE_MIB: usize = 5 * 1024 * 1024;

#[tokio::test]
async fn a_script_argument_of_five_mib_reaches_the_page_whole() {
    let agent = Agent::launch(&[]).await;
    agent.open("3p/measure.html").await;
    let text = big_text(FIVE_MIB);
    let measured = agent
        .ok(
            "evaluate_script",
            json!({"function": "(text) => window.measure(text)", "args": [text]}),
        )
        .await;
    assert_eq!(measured.json["result"], measure(&text));
    // The link goes on as before.
    assert_eq!(agent.evaluate("() => 6 * 7").await, json!(42));
    agent.quit().await;
}

#[tokio::test]
async fn a_page_tool_argument_of_five_mib_reaches_the_page_whole() {
    let agent = Agent::launch(&[THIRD_PARTY]).await;
    agent
        .open("3p/measure.html")
        .await
        .says("- measure: Length and checksum of a text.");
    let text = big_text(FIVE_MIB);
    let params = serde_json::to_string(&json!({ "text": text })).unwrap();
    let measured = agent
        .ok(
            "execute_3p_developer_tool",
            json!({"toolName": "measure", "params": params}),
        )
        .await;
    assert_eq!(measured.json["result"], measure(&text));
    // The link goes on as before.
    let small = agent
        .ok(
            "execute_3p_developer_tool",
            json!({"toolName": "measure", "params": "{\"text\": \"é😀\"}"}),
        )
        .await;
    assert_eq!(small.json["result"], measure("é😀"));
    agent.quit().await;
}
