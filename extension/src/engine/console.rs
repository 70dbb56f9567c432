//! Console messages: collected per tab from the moment the debugger attaches, kept in
//! a bounded ring, listed and read back by id.
//!
//! Four sources feed it: `Runtime.consoleAPICalled` (console calls, replayed by
//! `Runtime.enable` for what the page logged before we attached), `Runtime.exceptionThrown`
//! (kind `exception`), `Log.entryAdded` (browser-side messages such as failed loads;
//! kind from their level) and `Audits.issueAdded` (kind `issue`). Each message keeps
//! the navigation it belongs to ([`super::collect`]); a listing covers the current
//! document's, or the last three documents' with `include_preserved`, one page at a
//! time ([`listing`]).
//!
//! Texts are formatted like DevTools ([`format`]); stacks are 1-based.

mod format;
pub mod listing;

use std::collections::VecDeque;

use tabwire_shared::{ConsoleMessage, ConsolePage, StackFrame, TabId};

use super::Engine;
use crate::cdp::console::{
    ConsoleApiCalled, ExceptionThrown, IssueAdded, LogEntryAdded, StackTrace,
};
use crate::cdp::events::ConsoleEvent;
use crate::chrome::Chrome;
use crate::error::EngineError;

/// Most messages kept per tab (the oldest go first).
pub const MAX_MESSAGES: usize = 5_000;

/// Longest text in a list (the full text is one `ConsoleMessage` away).
pub const LIST_TEXT_CHARS: usize = 1_000;

/// Longest text kept at all.
const MAX_TEXT_CHARS: usize = 100_000;

/// Most arguments kept per message.
const MAX_ARGS: usize = 100;

/// One tab's console messages, oldest first.
#[derive(Debug, Default)]
pub struct ConsoleLog {
    messages: VecDeque<(u64, ConsoleMessage)>,
    next_id: u64,
    /// The latest timestamp seen, for messages that carry none (issues).
    last_time: f64,
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
        self.messages.push_back((generation, message));
        while self.messages.len() > MAX_MESSAGES {
            self.messages.pop_front();
        }
    }

    /// Forgets the messages of navigations older than `oldest`.
    pub fn prune(&mut self, oldest: u64) {
        self.messages
            .retain(|(generation, _)| *generation >= oldest);
    }

    /// One page of the messages of navigation `current` (and the two before with
    /// `preserved`), filtered, folded and counted by [`listing`]. Only the page crosses
    /// to the host, in list form: texts shortened, without arguments, stacks or source
    /// URLs ([`get`](Self::get) has them all).
    pub fn page(&self, current: u64, preserved: bool, query: listing::Query<'_>) -> ConsolePage {
        let oldest = if preserved {
            current.saturating_sub(2)
        } else {
            current
        };
        let in_scope = self
            .messages
            .iter()
            .filter(|(generation, _)| *generation >= oldest)
            .map(|(generation, message)| {
                let navigation = u32::try_from(current - generation).unwrap_or(u32::MAX);
                (navigation, message)
            });
        listing::page(in_scope, query, LIST_TEXT_CHARS)
    }

    /// One message in full.
    pub fn get(&self, current: u64, id: u64) -> Option<ConsoleMessage> {
        let (generation, message) = self.messages.iter().find(|(_, m)| m.id == id)?;
        Some(ConsoleMessage {
            navigation: current.saturating_sub(*generation) as u32,
            ..message.clone()
        })
    }
}

fn message(kind: &str, text: String, timestamp: f64) -> ConsoleMessage {
    ConsoleMessage {
        id: 0,
        kind: kind.to_owned(),
        text: shorten(&text, MAX_TEXT_CHARS),
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
        .map(format::arg_json)
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
                url,
                line: one_based(details.line_number),
                column: one_based(details.column_number),
            }];
        }
    }
    out.url = details
        .url
        .filter(|u| !u.is_empty())
        .or_else(|| out.stack.first().map(|f| f.url.clone()));
    if let Some(thrown) = details.exception.as_ref() {
        out.args = vec![format::arg_json(thrown)];
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
    out.url = entry.url.filter(|u| !u.is_empty());
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
        .take(50)
        .map(|frame| StackFrame {
            function_name: frame.function_name.clone(),
            url: frame.url.clone(),
            line: one_based(frame.line_number),
            column: one_based(frame.column_number),
        })
        .collect()
}

fn one_based(zero_based: i64) -> u32 {
    u32::try_from(zero_based.saturating_add(1)).unwrap_or(0)
}

/// `text` cut to `max` characters, with an ellipsis when cut.
pub fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

impl<C: Chrome + 'static> Engine<C> {
    /// One page of the console messages collected for `tab`.
    pub(super) async fn console_page(
        &self,
        tab: TabId,
        preserved: bool,
        query: listing::Query<'_>,
    ) -> Result<ConsolePage, EngineError> {
        self.ensure_attached(tab).await?;
        let empty = || listing::page(std::iter::empty(), query, LIST_TEXT_CHARS);
        Ok(self
            .with_collectors(tab, |c| c.console.page(c.generation, preserved, query))
            .unwrap_or_else(empty))
    }

    /// One console message of `tab`, in full.
    pub(super) async fn console_message(
        &self,
        tab: TabId,
        id: u64,
    ) -> Result<ConsoleMessage, EngineError> {
        self.ensure_attached(tab).await?;
        self.with_collectors(tab, |c| c.console.get(c.generation, id))
            .flatten()
            .ok_or(EngineError::NoConsoleMessage { id, tab })
    }
}

/// Reads one page of the tab's console.
impl super::Handle for tabwire_shared::ListConsole {
    const NEEDS_RENDERER: bool = false;

    async fn handle<C: Chrome + 'static>(
        self,
        engine: &Engine<C>,
        _session: &str,
    ) -> Result<Self::Reply, EngineError> {
        engine.console_read(self.tab_id);
        let query = listing::Query {
            types: &self.types,
            page_size: self.page_size,
            page_idx: self.page_idx,
        };
        engine
            .bounded(
                "read the console",
                engine.console_page(self.tab_id, self.include_preserved, query),
            )
            .await?
    }
}

/// Reads one console message.
impl super::Handle for tabwire_shared::GetConsoleMessage {
    const NEEDS_RENDERER: bool = false;

    async fn handle<C: Chrome + 'static>(
        self,
        engine: &Engine<C>,
        _session: &str,
    ) -> Result<Self::Reply, EngineError> {
        engine
            .bounded(
                "read the console",
                engine.console_message(self.tab_id, self.id),
            )
            .await?
    }
}

#[cfg(test)]
mod tests;
