//! WebMCP tools: the tools a page registers with the browser
//! (`document.modelContext.registerTool`), listed and run through Chrome's `WebMCP`
//! DevTools domain by the extension.
//!
//! Those the page marks for debugging (`annotations.debugging`) are third-party
//! developer tools instead (the group `WebMCP Tools` of `list_3p_developer_tools`), so
//! they are left out here, as the reference does. Off by default
//! (`--categoryExperimentalWebmcp=true`); a browser without the feature is refused
//! with the flag that turns it on.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use tabwire_shared::webmcp::{WebMcpTool, WebMcpTools};
use tabwire_shared::{ErrorCode, InvokeWebMcpTool};

use super::{NoParams, Timeout};
use crate::mcp::context::ToolContext;
use crate::mcp::output::page_text;
use crate::mcp::output::third_party::first_line;
use crate::mcp::output::webmcp::{listing, outcome_data, SECTION_TITLE};
use crate::mcp::output::{self, webmcp::Keys, SavedFile};
use crate::mcp::response::{Response, Section};
use crate::mcp::spill;
use crate::mcp::tool::{Category, ErasedTool, Registered, Tool, ToolSpec};
use crate::mcp::ToolError;

/// `list_webmcp_tools`
pub struct ListWebMcpTools;

impl Tool for ListWebMcpTools {
    type Params = NoParams;
    const SPEC: ToolSpec = ToolSpec {
        name: "list_webmcp_tools",
        description: "Lists the WebMCP tools the selected page registered \
            (document.modelContext.registerTool), with each tool's description, input schema \
            and annotations, and the frame that registered it: the page's main frame, and \
            cross-site iframes the page allows to (allow=\"tools\"), each of those marked \
            with its origin (Chrome reports no tools of same-origin iframes). Tools \
            marked for debugging are left out: list_3p_developer_tools lists them. Needs a \
            browser with WebMCP on (--enable-features=WebMCP).",
        category: Category::ExperimentalWebmcp,
        read_only: true,
        page_scoped: true,
        blocked_by_dialog: true,
    };

    async fn run(
        &self,
        ctx: &ToolContext,
        _: NoParams,
        response: &mut Response,
    ) -> Result<(), ToolError> {
        let page = ctx.page()?;
        let listed = ctx
            .request(tabwire_shared::ListWebMcpTools { tab_id: page })
            .await?;
        let tools = offered(&listed);
        let lines = listing(page, &tools, &listed.problems);
        let data = output::entries(&Keys {
            webmcp_tools: Some(tools.iter().map(output::webmcp::Tool::new).collect()),
            webmcp_tool_problems: (!listed.problems.is_empty()).then_some(&listed.problems[..]),
            ..Keys::default()
        });
        // The file holds the lines as the reply would show them: each one line.
        let text = lines
            .iter()
            .map(|line| page_text::inline(line))
            .collect::<Vec<_>>()
            .join("\n");
        let longest = text
            .chars()
            .count()
            .max(Value::Object(data.clone()).to_string().chars().count());
        let limit = ctx.result_chars();
        if longest <= limit {
            response.add_section(Section {
                title: SECTION_TITLE,
                lines,
                data,
            });
            return Ok(());
        }
        // A page registering more than a reply can hold: the list goes to a file, and
        // every tool is still named here (with the first line of its description when
        // that fits).
        let path = spill::to_private_file("webmcp-tools", "txt", text.as_bytes())?;
        let preview = spill::preview(&text, None);
        let mut lines = vec![format!(
            "Page {page} registered {} WebMCP tools, too many to show whole here ({limit} \
             characters at most): each is named below, and every description and input \
             schema was saved to {}. Run one with execute_webmcp_tool.",
            tools.len(),
            path.display()
        )];
        let described: Vec<String> = tools
            .iter()
            .map(|t| format!("- {}: {}", t.name, first_line(&t.description)))
            .collect();
        let described_chars: usize = described.iter().map(|l| l.chars().count() + 1).sum();
        if described_chars + lines[0].len() <= limit {
            lines.extend(described);
        } else {
            let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
            lines.push(format!("Their names: {}", names.join(", ")));
        }
        response.add_section(Section {
            title: SECTION_TITLE,
            lines,
            data: output::entries(&Keys {
                webmcp_tools_file: Some(SavedFile {
                    file_path: path,
                    preview,
                }),
                ..Keys::default()
            }),
        });
        Ok(())
    }
}

/// The tools `list_webmcp_tools` shows and `execute_webmcp_tool` runs: all but those
/// marked for debugging.
fn offered(listed: &WebMcpTools) -> Vec<WebMcpTool> {
    listed
        .tools
        .iter()
        .filter(|t| !t.is_debugging())
        .cloned()
        .collect()
}

/// Arguments of `execute_webmcp_tool`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExecuteParams {
    /// The name of the WebMCP tool to run, from list_webmcp_tools.
    tool_name: String,
    /// The tool's input as a JSON string of an object, e.g. "{\"a\": 1}" (default {}).
    #[schemars(with = "Option<String>")]
    input: Option<Value>,
    /// The frame whose tool to run (frame.id in list_webmcp_tools), when several
    /// frames registered a tool of this name (default: the main frame's, else the
    /// first listed).
    frame_id: Option<String>,
    /// How long the tool may take to answer, in milliseconds (default 30000, also when 0 is given; at most
    /// 600000). A tool that does not answer in time is cancelled.
    timeout: Option<Timeout>,
}

/// `execute_webmcp_tool`
pub struct ExecuteWebMcpTool;

impl Tool for ExecuteWebMcpTool {
    type Params = ExecuteParams;
    const SPEC: ToolSpec = ToolSpec {
        name: "execute_webmcp_tool",
        description: "Runs one of the selected page's WebMCP tools (see list_webmcp_tools; \
            for tools marked for debugging, use execute_3p_developer_tool) in the frame that \
            registered it, a cross-site iframe's too, and returns {status, output, error}: \
            status is Completed, Error or Canceled. frameId picks between frames that \
            registered the same name.",
        category: Category::ExperimentalWebmcp,
        read_only: false,
        page_scoped: true,
        blocked_by_dialog: true,
    };

    async fn run(
        &self,
        ctx: &ToolContext,
        p: ExecuteParams,
        response: &mut Response,
    ) -> Result<(), ToolError> {
        let page = ctx.page()?;
        let input = parse_input(p.input.as_ref())?;
        let timeout_ms = Timeout::ms(p.timeout);
        let mut retried = false;
        loop {
            let listed = ctx
                .request(tabwire_shared::ListWebMcpTools { tab_id: page })
                .await?;
            let in_frame = |t: &WebMcpTool| p.frame_id.as_ref().is_none_or(|f| t.frame_id == *f);
            if !offered(&listed)
                .iter()
                .any(|t| t.name == p.tool_name && in_frame(t))
            {
                return Err(ToolError::new(match &p.frame_id {
                    Some(frame) => format!("Tool {} not found in frame {frame}", p.tool_name),
                    None => format!("Tool {} not found", p.tool_name),
                }));
            }
            let run = InvokeWebMcpTool {
                tab_id: page,
                document: listed.document,
                tool: p.tool_name.clone(),
                frame_id: p.frame_id.clone(),
                input: input.clone(),
                timeout_ms,
            };
            match ctx.request(run).await {
                Ok(outcome) => {
                    response.add_output("WebMCP tool result", outcome_data(&outcome));
                    return Ok(());
                }
                // The page changed between the two calls: look again once.
                Err(e) if e.code == Some(ErrorCode::StaleTools) && !retried => retried = true,
                Err(e) => return Err(e),
            }
        }
    }
}

/// The tool's input: absent or empty is `{}`; text must be a JSON object; an object
/// is taken as it is.
fn parse_input(input: Option<&Value>) -> Result<Value, ToolError> {
    let fail = |why: &str| ToolError::new(format!("Failed to parse input as JSON: {why}"));
    let parsed = match input {
        None => return Ok(json!({})),
        Some(Value::String(text)) if text.trim().is_empty() => return Ok(json!({})),
        Some(Value::String(text)) => {
            serde_json::from_str::<Value>(text).map_err(|e| fail(&e.to_string()))?
        }
        Some(other) => other.clone(),
    };
    if parsed.is_object() {
        Ok(parsed)
    } else {
        Err(fail("Parsed input is not an object"))
    }
}

/// This group's tools, for the registry.
pub fn tools() -> Vec<Box<dyn ErasedTool>> {
    vec![
        Box::new(Registered::new(ListWebMcpTools)),
        Box::new(Registered::new(ExecuteWebMcpTool)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_is_a_json_object_or_nothing() {
        assert_eq!(parse_input(None).unwrap(), json!({}));
        assert_eq!(parse_input(Some(&json!(""))).unwrap(), json!({}));
        assert_eq!(
            parse_input(Some(&json!("{\"a\":1}"))).unwrap(),
            json!({"a": 1})
        );
        assert_eq!(
            parse_input(Some(&json!({"b": 2}))).unwrap(),
            json!({"b": 2})
        );
        let bad = parse_input(Some(&json!("{nope"))).unwrap_err().message;
        assert!(bad.starts_with("Failed to parse input as JSON: "), "{bad}");
        let array = parse_input(Some(&json!("[1]"))).unwrap_err().message;
        assert_eq!(
            array,
            "Failed to parse input as JSON: Parsed input is not an object"
        );
    }
}
