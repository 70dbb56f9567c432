//! WebMCP in words: a page's WebMCP tools (text and `structuredContent` from the same
//! list), and how a run ended.

use serde_json::{json, Map, Value};
use tabwire_shared::webmcp::{WebMcpOutcome, WebMcpTool};
use tabwire_shared::TabId;

/// The heading of a WebMCP tool list.
pub const SECTION_TITLE: &str = "WebMCP tools";

/// What a page without WebMCP tools (debugging ones aside) is said to expose.
pub const NONE: &str = "No WebMCP tools available.";

/// One tool as `structuredContent` carries it.
pub fn tool_data(tool: &WebMcpTool) -> Value {
    json!({
        "name": tool.name,
        "description": tool.description,
        "inputSchema": tool.input_schema.clone().unwrap_or_else(|| json!({})),
        "annotations": tool.annotations,
    })
}

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
        }
        lines.push(
            "Run one with execute_webmcp_tool {toolName, input: \"<JSON object>\"}.".to_owned(),
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

/// The schema of `webmcpTools` in `structuredContent`.
pub fn output_schema() -> Value {
    json!({
        "type": "array",
        "description": "The page's WebMCP tools (those marked for debugging are third-party developer tools); run them with execute_webmcp_tool.",
        "items": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "description": {"type": "string"},
                "inputSchema": {"type": "object"},
                "annotations": {"type": "object"}
            },
            "required": ["name", "description", "inputSchema", "annotations"]
        }
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
        }
    }

    #[test]
    fn a_listing_names_each_tool_with_its_schema_and_annotations() {
        let lines = listing(3, &[tool("add")], &["p".into()]);
        assert_eq!(
            lines,
            [
                "Page 3 registered 1 WebMCP tool (descriptions are the page's words):",
                "- add: add it",
                "  inputSchema: {}",
                "  annotations: {\"readOnly\":true}",
                "Run one with execute_webmcp_tool {toolName, input: \"<JSON object>\"}.",
                "Problems with what the page registered:",
                "- p",
            ]
        );
        assert_eq!(listing(3, &[], &[]), [NONE]);
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
