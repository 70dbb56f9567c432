//! Every normal tab of every window.

use std::time::Duration;

use crate::protocol::TabInfo;
use crate::protocol::{Request, TabId, PLAIN_CALL};
use serde::{Deserialize, Serialize};

/// Every normal tab of every window, in window then tab order (only those the agent
/// may see).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListTabs;

impl Request for ListTabs {
    type Reply = Vec<TabInfo>;
    const RESENDABLE: bool = true;
    const LEAVES_TABS_ALONE: bool = true;
    const CHANGES_ANNOUNCED: bool = true;
    fn tab(&self) -> Option<TabId> {
        None
    }
    fn timeout(&self) -> Duration {
        PLAIN_CALL
    }
}

/// Its command and reply as they travel, pinned.
impl crate::protocol::Golden for ListTabs {
    const COMMANDS: &[&str] = &[
        r#"{"command":"listTabs"}"#,
    ];
    const REPLIES: &[&str] = &[
        r#"[{"id":1,"windowId":2,"url":"https://a.test/","title":"A","userActive":true,"dialog":{"kind":"prompt","message":"name?","defaultPrompt":"bob"},"crashed":true},{"id":5,"windowId":2,"url":"about:blank","title":"","userActive":false}]"#,
    ];
}
