//! WebMCP: tools a page registers with the browser (`document.modelContext.registerTool`
//! in Chromium 156, behind its `WebMCP` feature), as Chrome's `WebMCP` DevTools domain
//! reports them, and how a run of one ended.
//!
//! Everything here comes from the page: the extension bounds it before it leaves.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The group name under which WebMCP tools marked for debugging
/// (`annotations.debugging`) join the third-party developer tools.
pub const WEBMCP_GROUP: &str = "WebMCP Tools";

/// That group's description.
pub const WEBMCP_GROUP_DESCRIPTION: &str = "Tools exposed via WebMCP";

/// One tool a page registered with WebMCP.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebMcpTool {
    /// The tool's name.
    pub name: String,
    /// What it does, in the page author's words.
    pub description: String,
    /// Its input schema, if the page gave one (a JSON object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_schema: Option<Value>,
    /// Its annotations as Chrome reports them (`readOnly`, `untrustedContent`,
    /// `consequential`, `debugging`, `autosubmit`): a JSON object.
    #[serde(default)]
    pub annotations: Value,
    /// The frame that registered it.
    pub frame_id: String,
    /// The origin of the cross-site frame (out-of-process iframe) that registered it,
    /// whose own debugging session reports and runs it; `None` for a tool of the
    /// page's renderer (its main frame and same-site frames).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cross_site_origin: Option<String>,
}

impl WebMcpTool {
    /// Whether the page meant it for developer tooling (`annotations.debugging ===
    /// true`): such tools are third-party developer tools, not `list_webmcp_tools`'.
    pub fn is_debugging(&self) -> bool {
        self.annotations.get("debugging") == Some(&Value::Bool(true))
    }
}

/// The WebMCP tools of a page's document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebMcpTools {
    /// Opaque token naming the document the tools live in.
    pub document: String,
    /// The tools, in the order they were registered.
    pub tools: Vec<WebMcpTool>,
    /// What was left out or cut, written for the agent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
}

/// How a WebMCP tool run ended (`WebMCP.toolResponded`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebMcpOutcome {
    /// Chrome's status: `Completed`, `Canceled` or `Error`.
    pub status: String,
    /// What the tool returned (only when `Completed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
    /// What went wrong: the exception's description, else its value, else Chrome's
    /// error text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl WebMcpOutcome {
    /// Whether the tool completed.
    pub fn completed(&self) -> bool {
        self.status == "Completed"
    }
}
