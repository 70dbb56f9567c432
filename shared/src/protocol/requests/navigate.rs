//! Navigates a tab.

use std::time::Duration;

use crate::protocol::TabInfo;
use crate::protocol::{Request, TabId};
use serde::{Deserialize, Serialize};

/// Navigates a tab and waits for the load; replies with the tab as it is then.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Navigate {
    /// The tab.
    pub tab_id: TabId,
    /// Where to go.
    pub to: Navigation,
    /// How long to wait for the load, in milliseconds.
    pub timeout_ms: u64,
}

/// Where [`Navigate`] goes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Navigation {
    /// To a URL.
    Url {
        /// The URL.
        url: String,
    },
    /// One step back in the tab's history.
    Back,
    /// One step forward in the tab's history.
    Forward,
    /// Reload the current document.
    Reload {
        /// Bypass the cache.
        ignore_cache: bool,
    },
}

impl Request for Navigate {
    type Reply = TabInfo;
    const RESENDABLE: bool = false;
    const LEAVES_TABS_ALONE: bool = false;
    fn tab(&self) -> Option<TabId> {
        Some(self.tab_id)
    }
    fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms)
    }
}

/// Its command and reply as they travel, pinned.
impl crate::protocol::Golden for Navigate {
    const COMMANDS: &[&str] = &[
        r#"{"command":"navigate","tabId":3,"to":{"type":"url","url":"https://a.test/"},"timeoutMs":1000}"#,
        r#"{"command":"navigate","tabId":3,"to":{"type":"back"},"timeoutMs":1}"#,
        r#"{"command":"navigate","tabId":3,"to":{"type":"forward"},"timeoutMs":1}"#,
        r#"{"command":"navigate","tabId":3,"to":{"type":"reload","ignoreCache":true},"timeoutMs":1}"#,
    ];
    const REPLIES: &[&str] = &[
        r#"{"id":1,"windowId":2,"url":"u","title":"t","userActive":false,"dialog":{"kind":"alert","message":"hi"}}"#,
        r#"{"id":1,"windowId":2,"url":"u","title":"t","userActive":false,"dialog":{"kind":"beforeunload","message":""}}"#,
    ];
}
