//! Console messages as the agent reads them: filtered by type, consecutive repeats
//! folded into one line with a count, then paginated.

use serde_json::{json, Map, Value};
use tabwire_shared::ConsoleMessage;

use super::filters::{check_names, navigation_note};
use super::paginate::paginate;
use super::ToolError;

/// The message types an agent may filter on.
pub const TYPES: &[&str] = &[
    "log",
    "debug",
    "info",
    "error",
    "warn",
    "dir",
    "dirxml",
    "table",
    "trace",
    "clear",
    "startGroup",
    "startGroupCollapsed",
    "endGroup",
    "assert",
    "profile",
    "profileEnd",
    "count",
    "timeEnd",
    "verbose",
    "exception",
    "issue",
];

/// Checks a types filter, naming the valid types when one is unknown.
pub fn check_types(types: &[String]) -> Result<(), ToolError> {
    check_names("message type", types, TYPES, false)
}

/// A run of identical consecutive messages, shown as one line.
#[derive(Debug, PartialEq)]
pub struct Folded<'a> {
    /// The first message of the run.
    pub first: &'a ConsoleMessage,
    /// How many messages the run holds.
    pub count: usize,
    /// The last message's id.
    pub last_id: u64,
}

/// Folds consecutive messages with the same type and text.
pub fn fold<'a>(messages: impl Iterator<Item = &'a ConsoleMessage>) -> Vec<Folded<'a>> {
    let mut out: Vec<Folded<'a>> = Vec::new();
    for message in messages {
        if let Some(last) = out.last_mut() {
            if last.first.kind == message.kind
                && last.first.text == message.text
                && last.first.navigation == message.navigation
            {
                last.count += 1;
                last.last_id = message.id;
                continue;
            }
        }
        out.push(Folded {
            first: message,
            count: 1,
            last_id: message.id,
        });
    }
    out
}

/// What a console list shows: the text lines and their structured form.
pub struct Listing {
    /// The lines, pagination summary first.
    pub lines: Vec<String>,
    /// `structuredContent` entries for the list.
    pub data: Map<String, Value>,
}

/// Filters, folds and paginates messages for `list_console_messages`.
pub fn listing(
    messages: &[ConsoleMessage],
    types: &[String],
    page_size: Option<usize>,
    page_idx: Option<usize>,
) -> Listing {
    let filtered = messages
        .iter()
        .filter(|m| types.is_empty() || types.contains(&m.kind));
    let folded = fold(filtered);
    let page = paginate(folded.len(), page_size, page_idx);
    let mut lines = vec![page.summary.clone()];
    let mut entries = Vec::new();
    for entry in &folded[page.start..page.end] {
        let m = entry.first;
        let mut line = format!("msgid={} [{}] {}", m.id, m.kind, one_line(&m.text));
        if entry.count > 1 {
            line.push_str(&format!(
                " (×{}, msgid {}-{})",
                entry.count, m.id, entry.last_id
            ));
        }
        line.push_str(&navigation_note(m.navigation));
        lines.push(line);
        entries.push(json!({
            "id": m.id, "type": m.kind, "text": m.text, "count": entry.count,
            "navigation": m.navigation,
        }));
    }
    let mut data = Map::new();
    data.insert("consoleMessages".into(), Value::Array(entries));
    data.insert("pagination".into(), page.pagination());
    Listing { lines, data }
}

/// A message's text on one line, shortened for lists.
fn one_line(text: &str) -> String {
    let flat: String = text.replace('\n', "\\n");
    if flat.chars().count() > 300 {
        let cut: String = flat.chars().take(300).collect();
        format!("{cut}…")
    } else {
        flat
    }
}

/// The full text of one message for `get_console_message`.
pub fn detail(message: &ConsoleMessage) -> Vec<String> {
    let mut lines = vec![
        format!("msgid={} [{}]", message.id, message.kind),
        message.text.clone(),
    ];
    if let Some(url) = &message.url {
        lines.push(format!("Source: {url}"));
    }
    if !message.args.is_empty() {
        lines.push("Arguments:".into());
        for (i, arg) in message.args.iter().enumerate() {
            lines.push(format!("  {i}: {arg}"));
        }
    }
    if !message.stack.is_empty() {
        lines.push("Stack trace (1-based line:column):".into());
        for frame in &message.stack {
            let name = if frame.function_name.is_empty() {
                "(anonymous)"
            } else {
                &frame.function_name
            };
            lines.push(format!(
                "  at {name} ({}:{}:{})",
                frame.url, frame.line, frame.column
            ));
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(id: u64, kind: &str, text: &str) -> ConsoleMessage {
        ConsoleMessage {
            id,
            kind: kind.into(),
            text: text.into(),
            args: vec![],
            url: None,
            stack: vec![],
            timestamp: 0.0,
            navigation: 0,
        }
    }

    #[test]
    fn consecutive_identical_messages_fold_with_a_count() {
        let messages = vec![
            msg(1, "log", "a"),
            msg(2, "log", "a"),
            msg(3, "log", "a"),
            msg(4, "warn", "a"),
            msg(5, "log", "a"),
        ];
        let list = listing(&messages, &[], None, None);
        assert_eq!(list.lines[1], "msgid=1 [log] a (×3, msgid 1-3)");
        assert_eq!(list.lines[2], "msgid=4 [warn] a");
        assert_eq!(list.lines[3], "msgid=5 [log] a");
    }

    #[test]
    fn types_filter_and_pagination_apply_after_folding() {
        let messages: Vec<_> = (0..137)
            .map(|i| {
                msg(
                    i,
                    if i % 2 == 0 { "log" } else { "error" },
                    &format!("m{i}"),
                )
            })
            .collect();
        let list = listing(&messages, &["error".into()], Some(20), Some(1));
        assert_eq!(
            list.lines[0],
            "Showing 21-40 of 68 (Page 2 of 4). Previous page: 0. Next page: 2"
        );
        assert_eq!(list.lines.len(), 21);
        assert!(list.lines[1..].iter().all(|l| l.contains("[error]")));
    }

    #[test]
    fn unknown_types_name_the_valid_ones() {
        let err = check_types(&["eror".into()]).unwrap_err().message;
        assert!(
            err.contains("\"eror\"") && err.contains("error, warn"),
            "{err}"
        );
        assert!(check_types(&["error".into(), "issue".into()]).is_ok());
    }
}
