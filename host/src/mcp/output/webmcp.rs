//! WebMCP in words and as `structuredContent` ([`Keys`]): a page's WebMCP tools (those
//! it registered with the browser, debugging ones aside), what was wrong with what it
//! registered or the file a list too long to show went to, and how a run ended
//! (`execute_webmcp_tool` answers in `result`).

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{json, Map, Value};
use tabwire_shared::webmcp::{WebMcpOutcome, WebMcpTool};
use tabwire_shared::TabId;

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
    /// Output too long to show inline: where it was saved and how it begins.
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

/// The heading of a WebMCP tool list.
pub const SECTION_TITLE: &str = "WebMCP tools";

/// What a page without WebMCP tools (debugging ones aside) is said to expose.
pub const NONE: &str = "No WebMCP tools available.";

/// The text lines of a tool list of page `page`; `tools` may be empty.
pub fn listing(page: TabId, tools: &[WebMcpTool], problems: &[String]) -> Vec<String> {
    let mut lines = Vec::new();
    if tools.is_empty() {
        lines.push(NONE.to_owned());
    } else {
        lines.push(format!(
            "Page {page} registered {} WebMCP tool{} (descriptions are the page's words):",
            tools.len(),
            if tools.len() == 1 { "" } else { "s" }
        ));
        for tool in tools {
            lines.push(format!("- {}: {}", tool.name, tool.description));
            let schema = tool.input_schema.clone().unwrap_or_else(|| json!({}));
            lines.push(format!("  inputSchema: {schema}"));
            lines.push(format!("  annotations: {}", tool.annotations));
            if let Some(origin) = &tool.cross_site_origin {
                lines.push(format!(
                    "  frame: the cross-site frame {origin} (frameId {})",
                    tool.frame_id
                ));
            }
        }
        lines.push(
            "Run one with execute_webmcp_tool {toolName, input: \"<JSON object>\"} (and \
             frameId, to pick a frame's tool when several frames use the name)."
                .to_owned(),
        );
    }
    if !problems.is_empty() {
        lines.push("Problems with what the page registered:".to_owned());
        lines.extend(problems.iter().map(|p| format!("- {p}")));
    }
    lines
}

/// A run's outcome as `execute_webmcp_tool` returns it: `{status, output, error}`,
/// absent fields left out.
pub fn outcome_data(outcome: &WebMcpOutcome) -> Value {
    let mut data = Map::new();
    data.insert("status".into(), json!(outcome.status));
    if let Some(output) = &outcome.output {
        data.insert("output".into(), output.clone());
    }
    if let Some(error) = &outcome.error {
        data.insert("error".into(), json!(error));
    }
    Value::Object(data)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str) -> WebMcpTool {
        WebMcpTool {
            name: name.into(),
            description: format!("{name} it"),
            input_schema: None,
            annotations: json!({"readOnly": true}),
            frame_id: "F".into(),
            cross_site_origin: None,
        }
    }

    #[test]
    fn a_listing_names_each_tool_with_its_schema_and_annotations() {
        let framed = WebMcpTool {
            cross_site_origin: Some("http://b.test".into()),
            frame_id: "F2".into(),
            ..tool("echo")
        };
        let lines = listing(3, &[tool("add"), framed.clone()], &["p".into()]);
        assert_eq!(
            lines,
            [
                "Page 3 registered 2 WebMCP tools (descriptions are the page's words):",
                "- add: add it",
                "  inputSchema: {}",
                "  annotations: {\"readOnly\":true}",
                "- echo: echo it",
                "  inputSchema: {}",
                "  annotations: {\"readOnly\":true}",
                "  frame: the cross-site frame http://b.test (frameId F2)",
                "Run one with execute_webmcp_tool {toolName, input: \"<JSON object>\"} (and \
                 frameId, to pick a frame's tool when several frames use the name).",
                "Problems with what the page registered:",
                "- p",
            ]
        );
        assert_eq!(listing(3, &[], &[]), [NONE]);
        let frame = |tool: &WebMcpTool| {
            serde_json::to_value(crate::mcp::output::webmcp::Tool::new(tool)).unwrap()["frame"]
                .clone()
        };
        assert_eq!(
            frame(&framed),
            json!({"id": "F2", "crossSite": true, "origin": "http://b.test"})
        );
        assert_eq!(frame(&tool("add")), json!({"id": "F", "crossSite": false}));
    }

    #[test]
    fn an_outcome_leaves_out_what_it_lacks() {
        let done = WebMcpOutcome {
            status: "Completed".into(),
            output: Some(json!(3)),
            error: None,
        };
        assert_eq!(
            outcome_data(&done),
            json!({"status": "Completed", "output": 3})
        );
    }
}
