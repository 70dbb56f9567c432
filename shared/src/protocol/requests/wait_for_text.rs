//! Waits for a text to appear.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::protocol::{Request, TabId};

/// Waits until any of `texts` appears in the page; replies with the one that did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WaitForText {
    /// The tab.
    pub tab_id: TabId,
    /// Texts to look for; the first to appear wins.
    pub texts: Vec<String>,
    /// How long to wait, in milliseconds.
    pub timeout_ms: u64,
}

impl Request for WaitForText {
    type Reply = String;
    const RESENDABLE: bool = false;
    const LEAVES_TABS_ALONE: bool = true;
    fn tab(&self) -> Option<TabId> {
        Some(self.tab_id)
    }
    fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms)
    }
}

/// Its command and reply as they travel, pinned.
impl crate::protocol::Golden for WaitForText {
    const COMMANDS: &[&str] = &[
        r#"{"command":"waitForText","tabId":3,"texts":["a","b"],"timeoutMs":100}"#,
    ];
    const REPLIES: &[&str] = &[
        r#""a""#,
    ];
}
