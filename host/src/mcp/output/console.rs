//! Console messages as the agent reads them: one page of the list (filtered, folded
//! and cut out by the extension, see [`tabwire_shared::console`]) with the totals over
//! all of them, and one message in full; the text and the `structuredContent` keys
//! ([`Keys`]) of both.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};
use tabwire_shared::{
    ConsoleEntry, ConsoleMessage, ConsolePage, ConsoleTotals, ConsoleType, PagePosition,
};

use super::lists;
use crate::mcp::filters::{check_names, navigation_note};
use crate::mcp::output::page_text;
use crate::mcp::paginate::{Page, Position, DEFAULT_PAGE_SIZE};
use crate::mcp::ToolError;

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

/// Checks a types filter, naming the valid types when one is unknown, and reads it.
pub fn check_types(types: &[String]) -> Result<Vec<ConsoleType>, ToolError> {
    let names: Vec<&str> = ConsoleType::ALL.iter().map(|t| t.as_str()).collect();
    check_names("message type", types, &names, false)?;
    Ok(types.iter().filter_map(|t| ConsoleType::parse(t)).collect())
}

/// The page size a listing uses: the agent's, else [`DEFAULT_PAGE_SIZE`], at least 1.
pub fn page_size(asked: Option<usize>) -> u32 {
    let size = asked.unwrap_or(DEFAULT_PAGE_SIZE).max(1);
    u32::try_from(size).unwrap_or(u32::MAX)
}

/// The page index to ask the extension for (`None`: the newest page).
pub fn page_idx(asked: Option<usize>) -> Option<u32> {
    asked.map(|i| u32::try_from(i).unwrap_or(u32::MAX))
}

/// What a console list shows: the text lines and their structured form.
pub struct Listing {
    /// The lines: the totals, where the page lies, then its entries.
    pub lines: Vec<String>,
    /// `structuredContent` entries for the list.
    pub data: Map<String, Value>,
}

/// The lines and data of one page of `list_console_messages`.
pub fn listing(page: &ConsolePage) -> Listing {
    let position = page_of(&page.position);
    let mut lines = vec![totals_line(&page.totals), position.summary.clone()];
    let mut entries = Vec::new();
    for entry in &page.entries {
        let mut line = format!(
            "msgid={} [{}] {}",
            entry.id,
            entry.kind,
            one_line(&entry.text)
        );
        if let Some(run) = entry.repeated {
            line.push_str(&format!(
                " (×{}, msgid {}-{})",
                run.count, entry.id, run.last_id
            ));
        }
        line.push_str(&navigation_note(entry.navigation));
        lines.push(line);
        entries.push(Listed::new(entry));
    }
    let mut data = super::entries(&Keys {
        console_messages: Some(entries),
        ..Keys::default()
    });
    data.extend(super::entries(&lists::Keys {
        pagination: Some(position.pagination()),
        ..lists::Keys::default()
    }));
    data.extend(super::entries(&Keys {
        console_totals: Some(&page.totals),
        ..Keys::default()
    }));
    Listing { lines, data }
}

/// "1 error and 1 exception in 2002 messages (every type, every page).", always there.
fn totals_line(totals: &ConsoleTotals) -> String {
    let plural = |n: u32, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    format!(
        "{} and {} in {} (every type, every page).",
        plural(totals.errors, "error", "errors"),
        plural(totals.exceptions, "exception", "exceptions"),
        plural(totals.messages, "message", "messages"),
    )
}

/// The extension's page position as the renderer's [`Page`], with its summary line:
/// "Showing 353-402 of 402 (Page 9 of 9, the newest). Previous page: 7.".
fn page_of(position: &PagePosition) -> Page {
    let at = |n: u32| n as usize;
    let position = Position {
        start: at(position.start),
        end: at(position.end),
        index: at(position.index),
        pages: at(position.pages),
        total: at(position.total),
        missing: position.missing.map(at),
    };
    Page::at(position, "newest", true)
}

/// A message's text on one line, shortened for lists.
fn one_line(text: &str) -> String {
    let flat = page_text::inline(text);
    if flat.chars().count() > 300 {
        let cut: String = flat.chars().take(300).collect();
        format!("{cut}…")
    } else {
        flat.into_owned()
    }
}

/// The full text of one message for `get_console_message`: its text keeps its lines,
/// in a fence the text cannot close, said to be the page's.
pub fn detail(message: &ConsoleMessage) -> Vec<String> {
    let mut lines = vec![
        format!("msgid={} [{}]", message.id, message.kind),
        "Its text, as the page logged it:".to_owned(),
    ];
    lines.extend(page_text::fenced("text", &message.text));
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tabwire_shared::{ConsoleEntry, Repeats};

    fn entry(id: u64, kind: &str, text: &str, count: u32) -> ConsoleEntry {
        ConsoleEntry {
            id,
            kind: kind.into(),
            text: text.into(),
            navigation: 0,
            repeated: (count > 1).then_some(Repeats {
                count,
                last_id: id + u64::from(count) - 1,
            }),
        }
    }

    fn at(index: u32, pages: u32, start: u32, end: u32, total: u32) -> PagePosition {
        PagePosition {
            index,
            pages,
            start,
            end,
            total,
            missing: None,
        }
    }

    fn totals(messages: u32, errors: u32, exceptions: u32) -> ConsoleTotals {
        ConsoleTotals {
            messages,
            errors,
            exceptions,
        }
    }

    #[test]
    fn the_newest_page_says_so_and_the_totals_come_first() {
        let page = ConsolePage {
            entries: vec![
                entry(1996, "log", "batch 399", 5),
                entry(2001, "error", "something broke", 1),
                entry(2002, "exception", "Uncaught Error: boom\n    at x.js:1", 1),
            ],
            position: at(8, 9, 399, 402, 402),
            totals: totals(2002, 1, 1),
            dropped: Default::default(),
        };
        let list = listing(&page);
        assert_eq!(
            list.lines[0],
            "1 error and 1 exception in 2002 messages (every type, every page)."
        );
        assert_eq!(
            list.lines[1],
            "Showing 400-402 of 402 (Page 9 of 9, the newest). Previous page: 7."
        );
        assert_eq!(
            list.lines[2],
            "msgid=1996 [log] batch 399 (×5, msgid 1996-2000)"
        );
        assert_eq!(
            list.lines[4],
            "msgid=2002 [exception] Uncaught Error: boom\\n    at x.js:1"
        );
        assert_eq!(
            list.data["consoleTotals"],
            json!({"messages": 2002, "errors": 1, "exceptions": 1})
        );
        assert_eq!(list.data["pagination"]["currentPage"], 8);
        assert_eq!(list.data["pagination"]["hasNextPage"], false);
        assert_eq!(list.data["consoleMessages"][0]["count"], 5);
    }

    #[test]
    fn an_older_page_points_both_ways_and_a_missing_one_says_so() {
        let page = ConsolePage {
            entries: vec![],
            position: at(0, 3, 0, 2, 42),
            totals: totals(42, 0, 2),
            dropped: Default::default(),
        };
        let list = listing(&page);
        assert_eq!(
            list.lines[0],
            "0 errors and 2 exceptions in 42 messages (every type, every page)."
        );
        assert_eq!(
            list.lines[1],
            "Showing 1-2 of 42 (Page 1 of 3). Next page: 1."
        );
        let missing = ConsolePage {
            position: PagePosition {
                missing: Some(9),
                ..at(2, 3, 22, 42, 42)
            },
            ..page
        };
        let list = listing(&missing);
        assert!(
            list.lines[1].starts_with("Page 9 does not exist (there are 3); showing the newest")
        );
        assert_eq!(list.data["pagination"]["invalidPage"], true);
        assert_eq!(
            listing(&ConsolePage {
                entries: vec![],
                position: at(0, 1, 0, 0, 0),
                totals: totals(0, 0, 0),
                dropped: Default::default(),
            })
            .lines[1],
            "Showing 0 of 0."
        );
    }

    #[test]
    fn unknown_types_name_the_valid_ones() {
        let err = check_types(&["eror".into()]).unwrap_err().message;
        assert!(
            err.contains("\"eror\"") && err.contains("error, warn"),
            "{err}"
        );
        assert_eq!(
            check_types(&["error".into(), "startGroup".into()]).unwrap(),
            vec![ConsoleType::Error, ConsoleType::StartGroup]
        );
    }

    #[test]
    fn page_arguments_are_kept_in_range() {
        assert_eq!(page_size(None), 50);
        assert_eq!(page_size(Some(0)), 1);
        assert_eq!(page_size(Some(usize::MAX)), u32::MAX);
        assert_eq!(page_idx(Some(usize::MAX)), Some(u32::MAX));
        assert_eq!(page_idx(None), None);
    }
}
