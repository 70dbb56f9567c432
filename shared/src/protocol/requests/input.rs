//! Acts on the page as a user would.

use std::time::Duration;

use crate::protocol::{InputAction, KeyboardClick};
use crate::protocol::{Request, TabId};
use serde::{Deserialize, Serialize};

/// Acts on the page as a user would, then waits for what the action causes (a
/// navigation it started, until loaded; else DOM changes, until quiet), bounded by
/// `timeout_ms`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Input {
    /// The tab.
    pub tab_id: TabId,
    /// What to do.
    pub action: InputAction,
    /// Longest wait for the action's effects, in milliseconds.
    pub timeout_ms: u64,
}

impl Request for Input {
    type Reply = Acted;
    const RESENDABLE: bool = false;
    const LEAVES_TABS_ALONE: bool = false;
    fn tab(&self) -> Option<TabId> {
        Some(self.tab_id)
    }
    fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms)
    }
}

/// What [`Input`] answers: the action was carried out and its effects waited for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Acted {
    /// The URL the action navigated the page to, once loaded; `None` if it did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub navigated_to: Option<String>,
    /// How a click was made from the keyboard instead of the mouse (its window would
    /// have come forward for a mouse press), if it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_keyboard: Option<KeyboardClick>,
}

/// Its command and reply as they travel, pinned.
impl crate::protocol::Golden for Input {
    const COMMANDS: &[&str] = &[
        r#"{"command":"input","tabId":3,"action":{"type":"click","uid":"1_1","double":true},"timeoutMs":2}"#,
        r#"{"command":"input","tabId":3,"action":{"type":"clickAt","x":1.5,"y":2.0,"double":false},"timeoutMs":2}"#,
        r#"{"command":"input","tabId":3,"action":{"type":"hover","uid":"1_1"},"timeoutMs":2}"#,
        r#"{"command":"input","tabId":3,"action":{"type":"fill","uid":"1_1","value":"v"},"timeoutMs":2}"#,
        r#"{"command":"input","tabId":3,"action":{"type":"typeText","text":"hi","submitKey":"Enter"},"timeoutMs":2}"#,
        r#"{"command":"input","tabId":3,"action":{"type":"typeText","text":"hi"},"timeoutMs":2}"#,
        r#"{"command":"input","tabId":3,"action":{"type":"pressKey","key":"Control+A"},"timeoutMs":2}"#,
        r#"{"command":"input","tabId":3,"action":{"type":"drag","fromUid":"1_1","toUid":"1_2"},"timeoutMs":2}"#,
        r#"{"command":"input","tabId":3,"action":{"type":"uploadFile","uid":"1_1","paths":["/tmp/a"]},"timeoutMs":2}"#,
    ];
    const REPLIES: &[&str] = &[
        r#"{"navigatedTo":"https://b.test/"}"#,
        r#"{}"#,
    ];
}
