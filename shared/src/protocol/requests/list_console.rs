//! One page of a tab's console messages.

use std::time::Duration;

use crate::protocol::{ConsolePage, ConsoleType};
use crate::protocol::{Request, TabId, PLAIN_CALL};
use serde::{Deserialize, Serialize};

/// One page of the console messages collected for the tab, filtered by type and
/// with consecutive repeats folded, and counts over all of them (see
/// [`crate::console`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListConsole {
    /// The tab.
    pub tab_id: TabId,
    /// Also the messages of the (up to 2) previous navigations.
    pub include_preserved: bool,
    /// Only messages of these types; empty: every type.
    pub types: Vec<ConsoleType>,
    /// Entries per page (at least 1 is used).
    pub page_size: u32,
    /// Which page, from 0 (the oldest); `None`: the newest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_idx: Option<u32>,
}

impl Request for ListConsole {
    type Reply = ConsolePage;
    const RESENDABLE: bool = true;
    const LEAVES_TABS_ALONE: bool = true;
    const CHANGES_ANNOUNCED: bool = true;
    fn tab(&self) -> Option<TabId> {
        Some(self.tab_id)
    }
    fn timeout(&self) -> Duration {
        PLAIN_CALL
    }
}

/// Its command and reply as they travel, pinned.
impl crate::protocol::Golden for ListConsole {
    const COMMANDS: &[&str] = &[
        r#"{"command":"listConsole","tabId":3,"includePreserved":true,"types":["error","startGroupCollapsed"],"pageSize":10,"pageIdx":2}"#,
        r#"{"command":"listConsole","tabId":3,"includePreserved":false,"types":[],"pageSize":10}"#,
    ];
    const REPLIES: &[&str] = &[
        r#"{"entries":[{"id":7,"kind":"log","text":"hi"},{"id":8,"kind":"error","text":"x","navigation":1,"repeated":{"count":3,"lastId":9}}],"position":{"index":0,"pages":2,"start":0,"end":2,"total":3,"missing":1},"totals":{"messages":3,"errors":1,"exceptions":0}}"#,
    ];
}
