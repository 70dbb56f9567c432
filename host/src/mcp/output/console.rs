//! Console messages: one page of the list with the totals over all of them, and one
//! message in full.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use tabwire_shared::{ConsoleEntry, ConsoleMessage, ConsoleTotals};

/// The `structuredContent` keys of the console sections.
#[derive(Debug, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Keys<'a> {
    /// The messages listed (the newest page unless pageIdx says otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub console_messages: Option<Vec<Listed<'a>>>,
    /// Counts over every console message listed, whatever the types filter or page.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Totals>")]
    pub console_totals: Option<&'a ConsoleTotals>,
    /// One message in full.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Message>")]
    pub console_message: Option<&'a ConsoleMessage>,
}

/// A message of a list (a run of repeats is one entry, `count` long).
#[derive(Debug, Serialize, JsonSchema)]
pub struct Listed<'a> {
    /// Its msgid.
    pub id: u64,
    /// `log`, `error`, `exception`, … as the console API names it.
    #[serde(rename = "type")]
    pub kind: &'a str,
    /// Its text (the list's line shortens it).
    pub text: &'a str,
    /// How many times it was logged in a row.
    pub count: u32,
    /// 0 for the current document, 1 for the previous navigation, …
    pub navigation: u32,
}

impl<'a> Listed<'a> {
    /// `entry` as a list shows it.
    pub fn new(entry: &'a ConsoleEntry) -> Self {
        Self {
            id: entry.id,
            kind: &entry.kind,
            text: &entry.text,
            count: entry.count(),
            navigation: entry.navigation,
        }
    }
}

/// The shape of [`ConsoleTotals`] as it serialises.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct Totals {
    messages: u32,
    errors: u32,
    exceptions: u32,
}

/// The shape of [`ConsoleMessage`] as it serialises: one message in full.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct Message {
    /// Its msgid.
    id: u64,
    /// `log`, `error`, `exception`, `issue`, …
    kind: String,
    /// Its text, as the page logged it.
    text: String,
    /// The arguments passed to the console call, as JSON previews.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    args: Vec<Value>,
    /// The script it came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<String>,
    /// The stack, innermost frame first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    stack: Vec<Frame>,
    /// Milliseconds since the Unix epoch.
    timestamp: f64,
    /// 0 for the current document, 1 for the previous navigation, …
    navigation: u32,
}

/// A frame of a stack, 1-based line and column.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct Frame {
    function_name: String,
    url: String,
    line: u32,
    column: u32,
}

#[cfg(test)]
pub(super) fn sample() -> serde_json::Map<String, Value> {
    let entry = ConsoleEntry {
        id: 7,
        kind: "error".into(),
        text: "boom".into(),
        navigation: 1,
        repeated: None,
    };
    let totals = ConsoleTotals {
        messages: 9,
        errors: 1,
        exceptions: 0,
    };
    let message = ConsoleMessage {
        id: 7,
        kind: "error".into(),
        text: "boom".into(),
        args: vec![serde_json::json!({"a": 1})],
        url: Some("http://x/app.js".into()),
        stack: vec![tabwire_shared::StackFrame {
            function_name: "f".into(),
            url: "http://x/app.js".into(),
            line: 1,
            column: 2,
        }],
        timestamp: 1.5,
        navigation: 0,
    };
    super::entries(&Keys {
        console_messages: Some(vec![Listed::new(&entry)]),
        console_totals: Some(&totals),
        console_message: Some(&message),
    })
}
