//! One console message in full.

use std::time::Duration;

use crate::protocol::ConsoleMessage;
use crate::protocol::{Request, TabId, PLAIN_CALL};
use serde::{Deserialize, Serialize};

/// One console message in full.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetConsoleMessage {
    /// The tab.
    pub tab_id: TabId,
    /// The message's id from [`super::ListConsole`].
    pub id: u64,
}

impl Request for GetConsoleMessage {
    type Reply = ConsoleMessage;
    const RESENDABLE: bool = true;
    const LEAVES_TABS_ALONE: bool = true;
    fn tab(&self) -> Option<TabId> {
        Some(self.tab_id)
    }
    fn timeout(&self) -> Duration {
        PLAIN_CALL
    }
}

/// Its command and reply as they travel, pinned.
impl crate::protocol::Golden for GetConsoleMessage {
    const COMMANDS: &[&str] = &[
        r#"{"command":"consoleMessage","tabId":3,"id":4}"#,
    ];
    const REPLIES: &[&str] = &[
        r#"{"id":7,"kind":"log","text":"hi","args":[1],"url":"u","stack":[{"functionName":"f","url":"u","line":1,"column":2}],"timestamp":1.5,"navigation":0}"#,
        r#"{"id":7,"kind":"log","text":"hi","timestamp":1.5,"navigation":0}"#,
    ];
}
