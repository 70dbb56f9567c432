//! What a console listing asks for and gets back ([`crate::ListConsole`]).
//!
//! The extension keeps every tab's console messages; an agent reads a page of them at a
//! time. Filtering by type, folding consecutive repeats and choosing the page all happen
//! in the extension, so one page (and a few counts) crosses native messaging rather than
//! thousands of messages. Pages are counted from the oldest (`0`) and aligned on the
//! newest message: the newest page is full, the oldest may be short, and a listing that
//! names no page gets the newest one (what an agent needs first).

use serde::{Deserialize, Serialize};

/// A type of console message an agent can filter on: the console API's names (those
/// Chrome DevTools for Agents accepts), `exception` for uncaught exceptions and `issue`
/// for browser-reported issues. [`crate::ConsoleMessage::kind`] holds these names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ConsoleType {
    /// `console.log`.
    Log,
    /// `console.debug` (and verbose browser messages).
    Debug,
    /// `console.info` (and informational browser messages).
    Info,
    /// `console.error` (and browser errors such as failed loads).
    Error,
    /// `console.warn`.
    Warn,
    /// `console.dir`.
    Dir,
    /// `console.dirxml`.
    Dirxml,
    /// `console.table`.
    Table,
    /// `console.trace`.
    Trace,
    /// `console.clear`.
    Clear,
    /// `console.group`.
    StartGroup,
    /// `console.groupCollapsed`.
    StartGroupCollapsed,
    /// `console.groupEnd`.
    EndGroup,
    /// A failed `console.assert`.
    Assert,
    /// `console.profile`.
    Profile,
    /// `console.profileEnd`.
    ProfileEnd,
    /// `console.count`.
    Count,
    /// `console.timeEnd`.
    TimeEnd,
    /// Verbose messages (the reference's name; tabwire files them under `debug`).
    Verbose,
    /// An uncaught exception.
    Exception,
    /// An issue the browser reported about the page.
    Issue,
}

impl ConsoleType {
    /// Every type, in the order lists of them are shown.
    pub const ALL: [ConsoleType; 21] = [
        ConsoleType::Log,
        ConsoleType::Debug,
        ConsoleType::Info,
        ConsoleType::Error,
        ConsoleType::Warn,
        ConsoleType::Dir,
        ConsoleType::Dirxml,
        ConsoleType::Table,
        ConsoleType::Trace,
        ConsoleType::Clear,
        ConsoleType::StartGroup,
        ConsoleType::StartGroupCollapsed,
        ConsoleType::EndGroup,
        ConsoleType::Assert,
        ConsoleType::Profile,
        ConsoleType::ProfileEnd,
        ConsoleType::Count,
        ConsoleType::TimeEnd,
        ConsoleType::Verbose,
        ConsoleType::Exception,
        ConsoleType::Issue,
    ];

    /// The type's name, as agents write it and [`crate::ConsoleMessage::kind`] holds it.
    pub fn as_str(self) -> &'static str {
        match self {
            ConsoleType::Log => "log",
            ConsoleType::Debug => "debug",
            ConsoleType::Info => "info",
            ConsoleType::Error => "error",
            ConsoleType::Warn => "warn",
            ConsoleType::Dir => "dir",
            ConsoleType::Dirxml => "dirxml",
            ConsoleType::Table => "table",
            ConsoleType::Trace => "trace",
            ConsoleType::Clear => "clear",
            ConsoleType::StartGroup => "startGroup",
            ConsoleType::StartGroupCollapsed => "startGroupCollapsed",
            ConsoleType::EndGroup => "endGroup",
            ConsoleType::Assert => "assert",
            ConsoleType::Profile => "profile",
            ConsoleType::ProfileEnd => "profileEnd",
            ConsoleType::Count => "count",
            ConsoleType::TimeEnd => "timeEnd",
            ConsoleType::Verbose => "verbose",
            ConsoleType::Exception => "exception",
            ConsoleType::Issue => "issue",
        }
    }

    /// The type named `name`, if there is one.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == name)
    }
}

/// One line of a console listing: a message, or a run of identical consecutive ones.
/// Only what a list shows crosses the wire (the text shortened; no arguments, stack,
/// source URL or time: [`crate::GetConsoleMessage`] has them all), and the
/// common values are left out, since a page may hold hundreds of entries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleEntry {
    /// The (first) message's id (`msgid`).
    pub id: u64,
    /// Its type: a [`ConsoleType`] name.
    pub kind: String,
    /// Its text, possibly shortened.
    pub text: String,
    /// 0 for the current document, 1 for the previous navigation, 2 for the one before.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub navigation: u32,
    /// When the message repeated: the run's length and its last message's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeated: Option<Repeats>,
}

/// How often a message repeated in a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Repeats {
    /// How many messages the run holds (2 or more).
    pub count: u32,
    /// The run's last message's id.
    pub last_id: u64,
}

impl ConsoleEntry {
    /// How many messages the entry stands for.
    pub fn count(&self) -> u32 {
        self.repeated.map_or(1, |r| r.count)
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// Where a page of a listing lies in the whole list, counted in entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PagePosition {
    /// The page shown, from 0 (the oldest).
    pub index: u32,
    /// How many pages there are (at least 1).
    pub pages: u32,
    /// The index of the page's first entry in the whole list.
    pub start: u32,
    /// One past the index of its last entry.
    pub end: u32,
    /// How many entries the whole list holds.
    pub total: u32,
    /// The page that was asked for, when it does not exist (the newest is shown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing: Option<u32>,
}

/// Counts over every message a listing covers, whatever its types filter or page.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleTotals {
    /// Messages of every type.
    pub messages: u32,
    /// Messages of type `error`.
    pub errors: u32,
    /// Uncaught exceptions.
    pub exceptions: u32,
}

/// One page of a console listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsolePage {
    /// The page's entries, oldest first.
    pub entries: Vec<ConsoleEntry>,
    /// Where the page lies in the filtered, folded list.
    pub position: PagePosition,
    /// Counts over every message listed, before the filter.
    pub totals: ConsoleTotals,
    /// Older messages of the navigations listed that were let go of to keep the tab's
    /// console within its bounds.
    #[serde(default, skip_serializing_if = "Dropped::is_none")]
    pub dropped: Dropped,
}

/// Most console messages the extension keeps per tab (the oldest go first).
pub const CONSOLE_MESSAGES_KEPT: usize = 5_000;

/// Most bytes of console messages (texts, arguments, stacks) the extension keeps per
/// tab (the oldest go first): a page that logs without end costs the browser this
/// much, not all it logged.
pub const CONSOLE_BYTES_KEPT: usize = 4 << 20;

/// Entries a collector let go of, oldest first, to stay within its bounds: a count
/// ([`CONSOLE_MESSAGES_KEPT`], [`crate::NETWORK_REQUESTS_KEPT`]) and a size
/// ([`CONSOLE_BYTES_KEPT`], [`crate::NETWORK_BYTES_KEPT`]). Counted over the
/// navigations a listing covers, so an agent knows the list does not go back to the
/// start.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Dropped {
    /// Let go of because the tab held the most entries kept.
    #[serde(default)]
    pub for_count: u32,
    /// Let go of because the tab held the most bytes kept.
    #[serde(default)]
    pub for_space: u32,
}

impl Dropped {
    /// Nothing was let go of.
    pub fn is_none(&self) -> bool {
        self.for_count == 0 && self.for_space == 0
    }

    /// Adds `other`'s counts to these.
    pub fn add(&mut self, other: Dropped) {
        self.for_count = self.for_count.saturating_add(other.for_count);
        self.for_space = self.for_space.saturating_add(other.for_space);
    }

    /// The line that tells an agent what is missing from a list of `things`
    /// ("messages", "requests") kept up to `count` entries and `bytes` bytes; `None`
    /// when nothing is.
    pub fn note(&self, things: &str, count: usize, bytes: usize) -> Option<String> {
        if self.is_none() {
            return None;
        }
        let mut parts = Vec::new();
        if self.for_space > 0 {
            parts.push(format!(
                "{} older {things} were dropped for space (at most {} MiB of {things} are kept per page)",
                self.for_space,
                bytes >> 20
            ));
        }
        if self.for_count > 0 {
            parts.push(format!(
                "{} older {things} were dropped for count (at most {count} {things} are kept per page)",
                self.for_count
            ));
        }
        Some(format!("{}; the newest are listed.", parts.join("; ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_are_their_wire_names() {
        for kind in ConsoleType::ALL {
            let wire = serde_json::to_value(kind).unwrap();
            assert_eq!(wire, kind.as_str());
            assert_eq!(ConsoleType::parse(kind.as_str()), Some(kind));
        }
        assert_eq!(ConsoleType::parse("group"), None);
    }

    #[test]
    fn entries_leave_out_what_is_common() {
        let single = ConsoleEntry {
            id: 7,
            kind: "log".into(),
            text: "hi".into(),
            navigation: 0,
            repeated: None,
        };
        let wire = serde_json::to_string(&single).unwrap();
        assert_eq!(wire, r#"{"id":7,"kind":"log","text":"hi"}"#);
        let run = ConsoleEntry {
            navigation: 1,
            repeated: Some(Repeats {
                count: 3,
                last_id: 9,
            }),
            ..single
        };
        let wire = serde_json::to_string(&run).unwrap();
        assert_eq!(
            wire,
            r#"{"id":7,"kind":"log","text":"hi","navigation":1,"repeated":{"count":3,"lastId":9}}"#
        );
        assert_eq!(serde_json::from_str::<ConsoleEntry>(&wire).unwrap(), run);
        assert_eq!(run.count(), 3);
    }
}
