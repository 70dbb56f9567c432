//! A page's WebMCP tools (those it registered with the browser, debugging ones aside),
//! what was wrong with what it registered, or the file a list too long to show went to.
//! (`execute_webmcp_tool` answers in `result`.)

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{json, Map, Value};
use tabwire_shared::webmcp::WebMcpTool;

use super::SavedFile;

/// The `structuredContent` keys of the WebMCP tools section.
#[derive(Debug, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Keys<'a> {
    /// The page's WebMCP tools (those marked for debugging are third-party developer
    /// tools); run them with execute_webmcp_tool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub webmcp_tools: Option<Vec<Tool<'a>>>,
    /// What was wrong with what the page registered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub webmcp_tool_problems: Option<&'a [String]>,
    /// A list too long to show: where it was saved and how it begins.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub webmcp_tools_file: Option<SavedFile>,
}

/// One tool, with the frame that registered it.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Tool<'a> {
    /// Its name.
    pub name: &'a str,
    /// What it does, in the page's words.
    pub description: &'a str,
    /// The JSON Schema of its input.
    #[schemars(with = "Map<String, Value>")]
    pub input_schema: Value,
    /// Its annotations, as the page registered them.
    #[schemars(with = "Map<String, Value>")]
    pub annotations: &'a Value,
    /// The frame that registered the tool.
    pub frame: Frame<'a>,
}

/// The frame a tool was registered in.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Frame<'a> {
    /// Its frame id: execute_webmcp_tool's frameId.
    pub id: &'a str,
    /// A cross-site iframe (its own renderer) registered it.
    pub cross_site: bool,
    /// The cross-site frame's origin.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<&'a str>,
}

impl<'a> Tool<'a> {
    /// `tool` as the list carries it (an input schema it lacks is `{}`).
    pub fn new(tool: &'a WebMcpTool) -> Self {
        Self {
            name: &tool.name,
            description: &tool.description,
            input_schema: tool.input_schema.clone().unwrap_or_else(|| json!({})),
            annotations: &tool.annotations,
            frame: Frame {
                id: &tool.frame_id,
                cross_site: tool.cross_site_origin.is_some(),
                origin: tool.cross_site_origin.as_deref(),
            },
        }
    }
}

#[cfg(test)]
pub(super) fn sample() -> Map<String, Value> {
    let tool = WebMcpTool {
        name: "add".into(),
        description: "Adds.".into(),
        input_schema: None,
        annotations: json!({"readOnlyHint": true}),
        frame_id: "F".into(),
        cross_site_origin: Some("http://b.test".into()),
    };
    let problems = ["a tool without a name".to_string()];
    super::entries(&Keys {
        webmcp_tools: Some(vec![Tool::new(&tool)]),
        webmcp_tool_problems: Some(&problems),
        webmcp_tools_file: Some(SavedFile {
            file_path: "/tmp/w.txt".into(),
            preview: "…".into(),
        }),
    })
}
