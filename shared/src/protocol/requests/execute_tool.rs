//! Runs one third-party developer tool.

use std::time::Duration;

use crate::protocol::{Request, TabId};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Runs one third-party developer tool found by [`super::DiscoverThirdPartyTools`]; fails with
/// [`crate::ErrorCode::StaleTools`] when the page's document is no longer the one
/// `document` names.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunThirdPartyTool {
    /// The tab.
    pub tab_id: TabId,
    /// The [`Discovery::document`](crate::Discovery::document) the tool was found in.
    pub document: String,
    /// The tool's name.
    pub tool: String,
    /// The group to take the tool from; default: the first group that has it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The tool's argument, already validated against its schema. Any object of
    /// exactly the shape `{"uid": "<uid>"}`, at any depth, stands for that element.
    pub args: Value,
    /// How long the tool may run, in milliseconds.
    pub timeout_ms: u64,
}

impl Request for RunThirdPartyTool {
    type Reply = ThirdPartyResult;
    const RESENDABLE: bool = false;
    const LEAVES_TABS_ALONE: bool = false;
    fn tab(&self) -> Option<TabId> {
        Some(self.tab_id)
    }
    fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms)
    }
}

/// What [`RunThirdPartyTool`] answers: the tool's result, made JSON-safe.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThirdPartyResult {
    /// The result: elements replaced by `{"uid": …}`, cycles, functions, class
    /// instances and other non-JSON values replaced by descriptive strings.
    pub result: Value,
    /// The uids of the elements in `result`, in order of first appearance.
    pub elements: Vec<String>,
}

/// Its command and reply as they travel, pinned.
impl crate::protocol::Golden for RunThirdPartyTool {
    const COMMANDS: &[&str] = &[
        r#"{"command":"executeTool","tabId":3,"document":"d1","tool":"t","group":"g","args":{"uid":"1_2"},"timeoutMs":9}"#,
        r#"{"command":"executeTool","tabId":3,"document":"d1","tool":"t","args":null,"timeoutMs":9}"#,
    ];
    const REPLIES: &[&str] = &[
        r#"{"result":{"uid":"1_3"},"elements":["1_3"]}"#,
    ];
}
