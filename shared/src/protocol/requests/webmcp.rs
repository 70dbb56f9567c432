//! Lists and runs the tools a page registered with WebMCP.

use std::time::Duration;

use crate::protocol::{Request, TabId, PLAIN_CALL};
use crate::webmcp::{WebMcpOutcome, WebMcpTools};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The WebMCP tools of the tab's document, as Chrome's `WebMCP` domain reports them;
/// refused with a message naming the browser feature when the browser has none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListWebMcpTools {
    /// The tab.
    pub tab_id: TabId,
}

impl Request for ListWebMcpTools {
    type Reply = WebMcpTools;
    const RESENDABLE: bool = true;
    const LEAVES_TABS_ALONE: bool = true;
    fn tab(&self) -> Option<TabId> {
        Some(self.tab_id)
    }
    fn timeout(&self) -> Duration {
        PLAIN_CALL
    }
}

/// Runs one WebMCP tool (`WebMCP.invokeTool`) and waits for its answer; a run that
/// does not answer in time is cancelled. Fails with
/// [`crate::ErrorCode::StaleTools`] when the tab's document is no longer `document`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InvokeWebMcpTool {
    /// The tab.
    pub tab_id: TabId,
    /// The [`WebMcpTools::document`] (or discovery document) the tool was found in.
    pub document: String,
    /// The tool's name.
    pub tool: String,
    /// The frame whose tool of that name to run ([`crate::webmcp::WebMcpTool::frame_id`]);
    /// `None`: the main frame's, else the first registered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_id: Option<String>,
    /// Its input: a JSON object.
    pub input: Value,
    /// How long it may run, in milliseconds.
    pub timeout_ms: u64,
}

impl Request for InvokeWebMcpTool {
    type Reply = WebMcpOutcome;
    const RESENDABLE: bool = false;
    const LEAVES_TABS_ALONE: bool = false;
    fn tab(&self) -> Option<TabId> {
        Some(self.tab_id)
    }
    fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms)
    }
}

/// Its command and reply as they travel, pinned.
impl crate::protocol::Golden for ListWebMcpTools {
    const COMMANDS: &[&str] = &[
        r#"{"command":"listWebMcpTools","tabId":3}"#,
    ];
    const REPLIES: &[&str] = &[
        r#"{"document":"d1","tools":[{"name":"t","description":"T","inputSchema":{"type":"object"},"annotations":{"readOnly":true},"frameId":"F"},{"name":"u","description":"","annotations":{},"frameId":"F"}],"problems":["p"]}"#,
        r#"{"document":"d1","tools":[]}"#,
    ];
}

/// Its command and reply as they travel, pinned.
impl crate::protocol::Golden for InvokeWebMcpTool {
    const COMMANDS: &[&str] = &[
        r#"{"command":"invokeWebMcpTool","tabId":3,"document":"d1","tool":"t","input":{"a":1},"timeoutMs":9}"#,
    ];
    const REPLIES: &[&str] = &[
        r#"{"status":"Completed","output":{"sum":3}}"#,
        r#"{"status":"Error","error":"Error: boom"}"#,
    ];
}
