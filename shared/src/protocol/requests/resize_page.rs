//! Resizes a tab's window to a viewport size.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::protocol::{Request, TabId, PLAIN_CALL};

/// Resizes the tab's window so the page gets this viewport size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResizePage {
    /// The tab.
    pub tab_id: TabId,
    /// Width in CSS pixels.
    pub width: u32,
    /// Height in CSS pixels.
    pub height: u32,
}

impl Request for ResizePage {
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
impl crate::protocol::Golden for ResizePage {
    const COMMANDS: &[&str] = &[
        r#"{"command":"resizePage","tabId":3,"width":800,"height":600}"#,
    ];
    const REPLIES: &[&str] = &[
        r#"null"#,
    ];
}
