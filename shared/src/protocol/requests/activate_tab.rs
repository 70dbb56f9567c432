//! Brings a tab to the front.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::protocol::{Request, TabId, PLAIN_CALL};

/// Brings a tab to the front (activates it and focuses its window).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ActivateTab {
    /// The tab.
    pub tab_id: TabId,
}

impl Request for ActivateTab {
    type Reply = ();
    const RESENDABLE: bool = true;
    const LEAVES_TABS_ALONE: bool = false;
    fn tab(&self) -> Option<TabId> {
        Some(self.tab_id)
    }
    fn timeout(&self) -> Duration {
        PLAIN_CALL
    }
}

/// Its command and reply as they travel, pinned.
impl crate::protocol::Golden for ActivateTab {
    const COMMANDS: &[&str] = &[
        r#"{"command":"activateTab","tabId":3}"#,
    ];
    const REPLIES: &[&str] = &[
        r#"null"#,
    ];
}
