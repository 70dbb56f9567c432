//! Closes a tab.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::protocol::{Request, TabId, PLAIN_CALL};

/// Closes a tab; refused for the browser's last tab.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CloseTab {
    /// The tab.
    pub tab_id: TabId,
}

impl Request for CloseTab {
    type Reply = ();
    const RESENDABLE: bool = false;
    const LEAVES_TABS_ALONE: bool = false;
    fn tab(&self) -> Option<TabId> {
        Some(self.tab_id)
    }
    fn timeout(&self) -> Duration {
        PLAIN_CALL
    }
}

/// Its command and reply as they travel, pinned.
impl crate::protocol::Golden for CloseTab {
    const COMMANDS: &[&str] = &[
        r#"{"command":"closeTab","tabId":3}"#,
    ];
    const REPLIES: &[&str] = &[
        r#"null"#,
    ];
}
