//! Opens a tab.

use std::time::Duration;

use crate::protocol::TabInfo;
use crate::protocol::{Request, TabId};
use serde::{Deserialize, Serialize};

/// Opens a tab and waits for it to load; replies with the tab as it is then.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NewTab {
    /// Where to go.
    pub url: String,
    /// Open without taking focus from the user's current tab. Unset: in the
    /// background in the user's own browser (the user keeps working), in front in a
    /// browser that is the agent's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<bool>,
    /// How long to wait for the load, in milliseconds.
    pub timeout_ms: u64,
}

impl Request for NewTab {
    type Reply = TabInfo;
    const RESENDABLE: bool = false;
    const LEAVES_TABS_ALONE: bool = false;
    fn tab(&self) -> Option<TabId> {
        None
    }
    fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms)
    }
}

/// Its command and reply as they travel, pinned.
impl crate::protocol::Golden for NewTab {
    const COMMANDS: &[&str] = &[
        r#"{"command":"newTab","url":"https://a.test/","background":true,"timeoutMs":1000}"#,
        r#"{"command":"newTab","url":"about:blank","timeoutMs":5}"#,
    ];
    const REPLIES: &[&str] = &[
        r#"{"id":1,"windowId":2,"url":"u","title":"t","userActive":false,"dialog":{"kind":"confirm","message":"sure?"}}"#,
    ];
}
