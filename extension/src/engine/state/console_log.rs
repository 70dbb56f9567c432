//! Console messages: collected per tab from the moment the debugger attaches, kept in
//! a ring bounded in count and in bytes, listed and read back by id (by the
//! `ListConsole` and `GetConsoleMessage` commands, `engine/console.rs`).
//!
//! A page may log without end, and in messages of any size: what is kept per tab is at
//! most [`CONSOLE_MESSAGES_KEPT`] messages and [`CONSOLE_BYTES_KEPT`] bytes (the
//! oldest go first, and a listing says how many of its navigations' messages went),
//! and one message's text at most [`MAX_TEXT_CHARS`] characters (its arguments and
//! stack frames less), cut with a marker that says how much was not kept.
//!
//! Four sources feed it: `Runtime.consoleAPICalled` (console calls, replayed by
//! `Runtime.enable` for what the page logged before we attached), `Runtime.exceptionThrown`
//! (kind `exception`), `Log.entryAdded` (browser-side messages such as failed loads;
//! kind from their level) and `Audits.issueAdded` (kind `issue`). Each message keeps
//! the navigation it belongs to (`core::collect`); a listing covers the current
//! document's, or the last three documents' with `include_preserved`, one page at a
//! time ([`listing`]).
//!
//! Texts are formatted like DevTools ([`format`]); stacks are 1-based.

mod format;
pub mod listing;

use std::collections::{BTreeMap, VecDeque};

use serde_json::Value;
use tabwire_shared::{
    ConsoleMessage, ConsolePage, Dropped, StackFrame, CONSOLE_BYTES_KEPT, CONSOLE_MESSAGES_KEPT,
};

use crate::cdp::console::{
    ConsoleApiCalled, ExceptionThrown, IssueAdded, LogEntryAdded, StackTrace,
};
use crate::cdp::events::ConsoleEvent;
use crate::engine::bounded::{let_go_oldest, Bounds};

/// Longest text in a list (the full text is one `ConsoleMessage` away).
pub const LIST_TEXT_CHARS: usize = 1_000;

/// Longest text kept at all; a longer one ends in a marker saying how much was cut.
pub const MAX_TEXT_CHARS: usize = 100_000;

/// Longest string kept in a message's arguments (their values, as JSON).
const MAX_ARG_CHARS: usize = 10_000;

/// Longest URL or function name kept in a stack frame (a `data:` URL can be megabytes).
const MAX_FRAME_CHARS: usize = 2_000;

/// Most arguments kept per message.
const MAX_ARGS: usize = 100;

/// Most stack frames kept per message.
const MAX_FRAMES: usize = 50;

/// What one kept message costs beyond its strings: the record, its place in the ring.
const MESSAGE_OVERHEAD: usize = 160;

/// One tab's console messages, oldest first, within [`CONSOLE_MESSAGES_KEPT`] messages
/// and [`CONSOLE_BYTES_KEPT`] bytes.
#[derive(Debug, Default)]
pub struct ConsoleLog {
    /// Each message with its navigation and what it costs ([`cost`]).
    messages: VecDeque<Kept>,
    /// The sum of the kept messages' costs.
    bytes: usize,
    next_id: u64,
    /// The latest timestamp seen, for messages that carry none (issues).
    last_time: f64,
    /// Messages let go of to stay within the bounds, by the navigation they belonged
    /// to (forgotten with it).
    dropped: BTreeMap<u64, Dropped>,
}

/// One kept message.
#[derive(Debug)]
struct Kept {
    generation: u64,
    bytes: usize,
    message: ConsoleMessage,
}

impl crate::engine::bounded::Kept for Kept {
    fn generation(&self) -> u64 {
        self.generation
    }
    fn bytes(&self) -> usize {
        self.bytes
    }
}

impl ConsoleLog {
    /// Reads a console event into a message of navigation `generation`; false if it
    /// makes none (noise).
    pub fn on_event(&mut self, generation: u64, event: ConsoleEvent) -> bool {
        let message = match event {
            ConsoleEvent::Called(call) => console_call(call),
            ConsoleEvent::Thrown(thrown) => exception(*thrown),
            ConsoleEvent::Logged(entry) => log_entry(entry),
            ConsoleEvent::Issue(added) if is_noise(&added.issue) => return false,
            ConsoleEvent::Issue(added) => issue(added),
        };
        self.push(generation, message);
        true
    }

    fn push(&mut self, generation: u64, mut message: ConsoleMessage) {
        self.next_id += 1;
        message.id = self.next_id;
        if message.timestamp > 0.0 {
            self.last_time = message.timestamp;
        } else {
            message.timestamp = self.last_time;
        }
        let bytes = cost(&message);
        self.bytes += bytes;
        self.messages.push_back(Kept {
            generation,
            bytes,
            message,
        });
        // The newest message stays, whatever it costs (its text is capped).
        let bounds = Bounds {
            count: CONSOLE_MESSAGES_KEPT,
            bytes: CONSOLE_BYTES_KEPT,
        };
        let_go_oldest(
            &mut self.messages,
            &mut self.bytes,
            &mut self.dropped,
            bounds,
        );
    }

    /// Forgets the messages of navigations older than `oldest`.
    pub fn prune(&mut self, oldest: u64) {
        self.messages.retain(|kept| kept.generation >= oldest);
        self.bytes = self.messages.iter().map(|kept| kept.bytes).sum();
        self.dropped.retain(|generation, _| *generation >= oldest);
        if self.messages.is_empty() {
            self.messages.shrink_to_fit();
        }
    }

    /// The bytes the kept messages cost (at most [`CONSOLE_BYTES_KEPT`], or one message).
    #[cfg(test)]
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// One page of the messages of navigation `current` (and the two before with
    /// `preserved`), filtered, folded and counted by [`listing`]. Only the page crosses
    /// to the host, in list form: texts shortened, without arguments, stacks or source
    /// URLs ([`get`](Self::get) has them all). It says how many older messages of those
    /// navigations were let go of.
    pub fn page(&self, current: u64, preserved: bool, query: listing::Query<'_>) -> ConsolePage {
        let oldest = if preserved {
            current.saturating_sub(2)
        } else {
            current
        };
        let in_scope = self
            .messages
            .iter()
            .filter(|kept| kept.generation >= oldest)
            .map(|kept| {
                let navigation = u32::try_from(current - kept.generation).unwrap_or(u32::MAX);
                (navigation, &kept.message)
            });
        let mut page = listing::page(in_scope, query, LIST_TEXT_CHARS);
        for (_, dropped) in self.dropped.range(oldest..) {
            page.dropped.add(*dropped);
        }
        page
    }

    /// One message in full.
    pub fn get(&self, current: u64, id: u64) -> Option<ConsoleMessage> {
        let kept = self.messages.iter().find(|kept| kept.message.id == id)?;
        Some(ConsoleMessage {
            navigation: current.saturating_sub(kept.generation) as u32,
            ..kept.message.clone()
        })
    }
}

/// About how many bytes `message` holds: its strings, its arguments as JSON and a
/// fixed overhead, so that many tiny messages count too.
fn cost(message: &ConsoleMessage) -> usize {
    let frames: usize = (message.stack.iter())
        .map(|f| f.function_name.len() + f.url.len() + 64)
        .sum();
    let args: usize = message.args.iter().map(json_len).sum();
    MESSAGE_OVERHEAD
        + message.kind.len()
        + message.text.len()
        + message.url.as_ref().map_or(0, String::len)
        + frames
        + args
}

/// How many bytes `value` takes as JSON, counted without building the text.
fn json_len(value: &Value) -> usize {
    match value {
        Value::Null | Value::Bool(_) | Value::Number(_) => 8,
        Value::String(text) => text.len() + 2,
        Value::Array(items) => 2 + items.iter().map(|v| json_len(v) + 1).sum::<usize>(),
        Value::Object(map) => {
            2 + map
                .iter()
                .map(|(k, v)| k.len() + 4 + json_len(v))
                .sum::<usize>()
        }
    }
}

/// `value` with every string in it kept to [`MAX_ARG_CHARS`] characters.
fn capped_arg(value: Value) -> Value {
    match value {
        Value::String(text) => Value::String(keep(text, MAX_ARG_CHARS)),
        Value::Array(items) => Value::Array(items.into_iter().map(capped_arg).collect()),
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (keep(k, MAX_ARG_CHARS), capped_arg(v)))
                .collect(),
        ),
        other => other,
    }
}

fn message(kind: &str, text: String, timestamp: f64) -> ConsoleMessage {
    ConsoleMessage {
        id: 0,
        kind: kind.to_owned(),
        text: keep(text, MAX_TEXT_CHARS),
        args: vec![],
        url: None,
        stack: vec![],
        timestamp,
        navigation: 0,
    }
}

fn console_call(call: ConsoleApiCalled) -> ConsoleMessage {
    let kind = match call.kind.as_str() {
        "warning" => "warn",
        other => other,
    };
    let mut text = format::message_text(&call.args);
    if kind == "assert" {
        text = format!("Assertion failed: {text}").trim_end().to_owned();
    }
    let mut out = message(kind, text, call.timestamp);
    out.args = call
        .args
        .iter()
        .take(MAX_ARGS)
        .map(|arg| capped_arg(format::arg_json(arg)))
        .collect();
    out.stack = stack(call.stack_trace.as_ref());
    out.url = out
        .stack
        .first()
        .map(|f| f.url.clone())
        .filter(|u| !u.is_empty());
    out
}

fn exception(thrown: ExceptionThrown) -> ConsoleMessage {
    let details = thrown.exception_details;
    let thrown_text = details.exception.as_ref().map(format::arg_text);
    let text = match thrown_text {
        Some(what) if !what.is_empty() => format!("{} {what}", details.text).trim().to_owned(),
        _ => details.text.clone(),
    };
    let mut out = message("exception", text, thrown.timestamp);
    out.stack = stack(details.stack_trace.as_ref());
    if out.stack.is_empty() {
        if let Some(url) = details.url.clone().filter(|u| !u.is_empty()) {
            out.stack = vec![StackFrame {
                function_name: String::new(),
                url: keep(url, MAX_FRAME_CHARS),
                line: one_based(details.line_number),
                column: one_based(details.column_number),
            }];
        }
    }
    out.url = details
        .url
        .filter(|u| !u.is_empty())
        .map(|u| keep(u, MAX_FRAME_CHARS))
        .or_else(|| out.stack.first().map(|f| f.url.clone()));
    if let Some(thrown) = details.exception.as_ref() {
        out.args = vec![capped_arg(format::arg_json(thrown))];
    }
    out
}

fn log_entry(added: LogEntryAdded) -> ConsoleMessage {
    let entry = added.entry;
    let kind = match entry.level.as_str() {
        "verbose" => "debug",
        "warning" => "warn",
        "error" => "error",
        _ => "info",
    };
    let mut out = message(kind, entry.text, entry.timestamp);
    out.stack = stack(entry.stack_trace.as_ref());
    out.url = entry
        .url
        .filter(|u| !u.is_empty())
        .map(|u| keep(u, MAX_FRAME_CHARS));
    out
}

/// Issues about the browser's own bookkeeping rather than the page's code (a history
/// entry skipped because a page navigated without a user gesture, which every tab
/// opened at about:blank and then sent elsewhere causes).
fn is_noise(issue: &crate::cdp::console::Issue) -> bool {
    let error_type = issue.details.pointer("/genericIssueDetails/errorType");
    issue.code == "GenericIssue"
        && error_type.and_then(|t| t.as_str()) == Some("NavigationEntryMarkedSkippable")
}

fn issue(added: IssueAdded) -> ConsoleMessage {
    let text = format::issue_text(&added.issue.code, &added.issue.details);
    // Issues carry no time of their own: they get the latest message's.
    message("issue", text, 0.0)
}

fn stack(trace: Option<&StackTrace>) -> Vec<StackFrame> {
    let Some(trace) = trace else {
        return vec![];
    };
    trace
        .call_frames
        .iter()
        .take(MAX_FRAMES)
        .map(|frame| StackFrame {
            function_name: keep(frame.function_name.clone(), MAX_FRAME_CHARS),
            url: keep(frame.url.clone(), MAX_FRAME_CHARS),
            line: one_based(frame.line_number),
            column: one_based(frame.column_number),
        })
        .collect()
}

fn one_based(zero_based: i64) -> u32 {
    u32::try_from(zero_based.saturating_add(1)).unwrap_or(0)
}

/// `text` cut to `max` characters, with an ellipsis when cut (for lists: the whole
/// text is a call away).
pub fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// `text` as kept: cut to `max` characters, ending in a marker that says how many
/// characters were not kept (nothing else holds them).
pub fn keep(mut text: String, max: usize) -> String {
    let Some((cut, _)) = text.char_indices().nth(max) else {
        return text;
    };
    let lost = text[cut..].chars().count();
    text.truncate(cut);
    text.push_str(&format!("… ({lost} characters not kept)"));
    text.shrink_to_fit();
    text
}
