//! WebMCP in words: a page's WebMCP tools (text and `structuredContent` from the same
//! list), and how a run ended.

use serde_json::{json, Map, Value};
use tabwire_shared::webmcp::{WebMcpOutcome, WebMcpTool};
use tabwire_shared::TabId;

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
