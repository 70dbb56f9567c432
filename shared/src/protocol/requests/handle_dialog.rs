//! Answers the open JavaScript dialog.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::protocol::{Request, TabId, PLAIN_CALL};

/// Accepts or dismisses the open JavaScript dialog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HandleDialog {
    /// The tab.
    pub tab_id: TabId,
    /// Accept (OK) rather than dismiss (Cancel).
    pub accept: bool,
    /// The answer typed into a `prompt` dialog.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_text: Option<String>,
}

impl Request for HandleDialog {
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
impl crate::protocol::Golden for HandleDialog {
    const COMMANDS: &[&str] = &[
        r#"{"command":"handleDialog","tabId":3,"accept":true,"promptText":"yes"}"#,
        r#"{"command":"handleDialog","tabId":3,"accept":false}"#,
    ];
    const REPLIES: &[&str] = &[
        r#"null"#,
    ];
}
