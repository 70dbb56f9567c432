//! Third-party developer tools: tools that pages themselves provide.
//!
//! Discovery and execution run in the page through the extension; here the agent's
//! arguments are parsed and validated against the tool's schema, a discovery that went
//! stale with a reload or navigation is renewed, and results are rendered. The page's
//! WebMCP tools marked for debugging are one of its groups (`WebMCP Tools`): they run
//! through WebMCP ([`InvokeWebMcpTool`]) instead of the page's discovery listeners.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use tabwire_shared::webmcp::WebMcpOutcome;
use tabwire_shared::{ErrorCode, InvokeWebMcpTool, RunThirdPartyTool, ThirdPartyResult};

use super::{NoParams, Timeout};
use crate::mcp::context::ToolContext;
use crate::mcp::output::third_party::refusal;
use crate::mcp::response::{Response, SnapshotRequest};
use crate::mcp::third_party_schema::{find_tool, parse_params, validate};
use crate::mcp::tool::{Category, ErasedTool, Registered, Tool, ToolSpec};
use crate::mcp::ToolError;

/// `list_3p_developer_tools`
pub struct ListThirdPartyTools;

impl Tool for ListThirdPartyTools {
    type Params = NoParams;
    const SPEC: ToolSpec = ToolSpec {
        name: "list_3p_developer_tools",
        description: "Lists the developer tools the selected page itself provides (third-party \
            developer tools: runtime state and actions exposed by the app or its framework), \
            with each tool's description and input schema. Call one with \
            execute_3p_developer_tool, or compose them in evaluate_script with \
            `await window.__dtmcp.executeTool(name, args)`, available after discovery.",
        category: Category::ExperimentalThirdParty,
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
        let discovery = ctx.discover_tools(ctx.page()?).await?;
        response.set_third_party_tools(discovery);
        Ok(())
    }
}

/// Arguments of `execute_3p_developer_tool`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExecuteParams {
    /// The tool's name, from list_3p_developer_tools.
    tool_name: String,
    /// The tool's arguments as a JSON string of an object matching its input schema,
    /// e.g. "{\"a\": 1}". Pass elements as {"uid": "<uid from take_snapshot>"}.
    #[schemars(with = "Option<String>")]
    params: Option<Value>,
    /// When several groups offer a tool of this name, the group to take it from
    /// (default: the first group that has it).
    group: Option<String>,
    /// How long the tool may run, in milliseconds (default 30000, also when 0 is given; at most 600000, ten
    /// minutes: a larger value is refused).
    timeout: Option<Timeout>,
}

/// `execute_3p_developer_tool`
pub struct ExecuteThirdPartyTool;

impl Tool for ExecuteThirdPartyTool {
    type Params = ExecuteParams;
    const SPEC: ToolSpec = ToolSpec {
        name: "execute_3p_developer_tool",
        description: "Runs one of the selected page's own developer tools (see \
            list_3p_developer_tools) with arguments checked against its input schema, and \
            returns its result. Elements go in and come out as snapshot uids; when the result \
            holds elements, a snapshot containing them is included.",
        category: Category::ExperimentalThirdParty,
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
        let args = match &p.params {
            None => parse_params(None)?,
            Some(Value::String(text)) => parse_params(Some(text))?,
            // An object is unambiguous: take it as it is.
            Some(object @ Value::Object(_)) => object.clone(),
            Some(other) => {
                return Err(ToolError::new(format!(
                    "Failed to parse params as JSON: expected a string holding a JSON object, got {other}"
                )))
            }
        };
        let timeout_ms = Timeout::ms(p.timeout);
        let mut discovery = match ctx.last_discovery(page) {
            Some(found) => found,
            None => ctx.discover_tools(page).await?,
        };
        // A page that reloaded or navigated since its tools were listed no longer has
        // them where the discovery said (the tool is missing, or the extension answers
        // StaleTools): look again once, and run from the new discovery.
        match run_tool(ctx, page, &discovery, &p, &args, timeout_ms, response).await {
            Err(e) if e.code == Some(ErrorCode::StaleTools) => {
                discovery = ctx.discover_tools(page).await?;
                run_tool(ctx, page, &discovery, &p, &args, timeout_ms, response).await
            }
            done => done,
        }
    }
}

/// Runs the tool `p` names as `discovery` found it: through WebMCP for a WebMCP group,
/// else in the page's own kit. A tool the discovery does not have, like a document that
/// went away, is an error with [`ErrorCode::StaleTools`], which the caller answers by
/// discovering again.
async fn run_tool(
    ctx: &ToolContext,
    page: tabwire_shared::TabId,
    discovery: &tabwire_shared::Discovery,
    p: &ExecuteParams,
    args: &Value,
    timeout_ms: u64,
    response: &mut Response,
) -> Result<(), ToolError> {
    if discovery.refused {
        return Err(ToolError::new(refusal(discovery)));
    }
    let (group, tool) =
        find_tool(discovery, &p.tool_name, p.group.as_deref()).map_err(|e| ToolError {
            code: Some(ErrorCode::StaleTools),
            ..e
        })?;
    validate(tool, args)?;
    if group.webmcp {
        let run = InvokeWebMcpTool {
            tab_id: page,
            document: discovery.document.clone(),
            tool: tool.name.clone(),
            frame_id: None,
            input: args.clone(),
            timeout_ms,
        };
        let outcome = ctx.request(run).await?;
        return webmcp_result(&tool.name, outcome, response);
    }
    let request = RunThirdPartyTool {
        tab_id: page,
        document: discovery.document.clone(),
        tool: tool.name.clone(),
        group: Some(group.name.clone()),
        args: args.clone(),
        timeout_ms,
    };
    let ThirdPartyResult { result, elements } = ctx.request(request).await?;
    if !elements.is_empty() {
        response.line(format!(
            "Tool {} returned {} element{}: {}.",
            tool.name,
            elements.len(),
            if elements.len() == 1 { "" } else { "s" },
            elements.join(", ")
        ));
        response.include_snapshot(SnapshotRequest::default());
    }
    response.add_output("Tool result", result);
    Ok(())
}

/// A debugging WebMCP tool's run as a third-party tool's result: its output, or an
/// error when it did not complete.
fn webmcp_result(
    tool: &str,
    outcome: WebMcpOutcome,
    response: &mut Response,
) -> Result<(), ToolError> {
    if !outcome.completed() {
        return Err(ToolError::new(match outcome.error {
            Some(error) => format!("WebMCP tool {tool} failed ({}): {error}", outcome.status),
            None => format!("WebMCP tool {tool} failed: {}", outcome.status),
        }));
    }
    match outcome.output {
        Some(output) => response.add_output("Tool result", output),
        None => response.line("Tool returned no result."),
    }
    Ok(())
}

/// This group's tools, for the registry.
pub fn tools() -> Vec<Box<dyn ErasedTool>> {
    vec![
        Box::new(Registered::new(ListThirdPartyTools)),
        Box::new(Registered::new(ExecuteThirdPartyTool)),
    ]
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use futures_util::future::BoxFuture;
    use serde_json::json;
    use tabwire_shared::origin::OriginPolicy;
    use tabwire_shared::{
        Command, Discovery, ErrorCode, Reply, ToolDefinition, ToolGroup, WireError,
    };

    use super::*;
    use crate::mcp::context::{Browser, Settings};
    use crate::mcp::tool::Tool;

    /// A page with one tool `t`, whose document is new at every discovery, and whose
    /// tool runs answer as scripted, in turn.
    struct Page {
        sent: Mutex<Vec<Command>>,
        runs: Mutex<Vec<Result<Reply, WireError>>>,
    }

    impl Browser for Page {
        fn call(&self, command: Command) -> BoxFuture<'_, Result<Reply, WireError>> {
            let mut sent = self.sent.lock().unwrap();
            sent.push(command.clone());
            let discoveries = sent
                .iter()
                .filter(|c| matches!(c, Command::DiscoverThirdPartyTools(_)))
                .count();
            let outcome = match command {
                Command::DiscoverThirdPartyTools(_) => Ok(Reply::new(&Discovery {
                    document: format!("d{discoveries}"),
                    url: "http://127.0.0.1/".into(),
                    origin: "http://127.0.0.1".into(),
                    refused: false,
                    groups: vec![
                        ToolGroup {
                            name: "WebMCP Tools".into(),
                            description: None,
                            webmcp: true,
                            tools: vec![ToolDefinition {
                                name: "w".into(),
                                description: "W".into(),
                                input_schema: json!({"type": "object"}),
                                annotations: Some(json!({"debugging": true})),
                            }],
                        },
                        ToolGroup {
                            name: "g".into(),
                            description: None,
                            webmcp: false,
                            tools: vec![ToolDefinition {
                                name: "t".into(),
                                description: "T".into(),
                                input_schema: json!({"type": "object"}),
                                annotations: None,
                            }],
                        },
                    ],
                    problems: vec![],
                })
                .unwrap()),
                Command::RunThirdPartyTool(_) | Command::InvokeWebMcpTool(_) => {
                    self.runs.lock().unwrap().remove(0)
                }
                _ => Ok(Reply::new(&()).unwrap()),
            };
            Box::pin(async move { outcome })
        }
    }

    fn context(runs: Vec<Result<Reply, WireError>>) -> (ToolContext, Arc<Page>) {
        let page = Arc::new(Page {
            sent: Mutex::default(),
            runs: Mutex::new(runs),
        });
        let settings = Settings {
            third_party: Some(OriginPolicy::from_patterns(vec!["*".into()])),
            ..Settings::default()
        };
        let ctx = ToolContext::new(page.clone(), Arc::default(), Arc::new(settings));
        ctx.select(1);
        (ctx.on_page(Some(1)), page)
    }

    async fn execute(ctx: &ToolContext) -> Result<(), ToolError> {
        let params = serde_json::from_value(json!({"toolName": "t"})).unwrap();
        ExecuteThirdPartyTool
            .run(ctx, params, &mut Response::default())
            .await
    }

    /// The documents the tool was run in, in order.
    fn runs_in(page: &Page) -> Vec<String> {
        let sent = page.sent.lock().unwrap();
        sent.iter()
            .filter_map(|c| match c {
                Command::RunThirdPartyTool(RunThirdPartyTool {
                    tab_id: 1,
                    document,
                    tool,
                    ..
                }) => {
                    assert_eq!(tool, "t");
                    Some(document.clone())
                }
                _ => None,
            })
            .collect()
    }

    #[tokio::test]
    async fn stale_tools_are_discovered_again_and_run_once_more() {
        let stale = WireError::new(ErrorCode::StaleTools, "the page navigated");
        let result = Reply::new(&tabwire_shared::ThirdPartyResult {
            result: json!(1),
            elements: vec![],
        })
        .unwrap();
        let (ctx, page) = context(vec![Err(stale), Ok(result)]);
        execute(&ctx).await.unwrap();
        assert_eq!(runs_in(&page), ["d1", "d2"]);
    }

    #[tokio::test]
    async fn a_webmcp_tool_runs_through_webmcp_and_a_failed_run_is_an_error() {
        let completed = Reply::new(&tabwire_shared::webmcp::WebMcpOutcome {
            status: "Completed".into(),
            output: Some(json!({"n": 1})),
            error: None,
        })
        .unwrap();
        let failed = Reply::new(&tabwire_shared::webmcp::WebMcpOutcome {
            status: "Error".into(),
            output: None,
            error: Some("Error: boom".into()),
        })
        .unwrap();
        let (ctx, page) = context(vec![Ok(completed), Ok(failed)]);
        let params = || serde_json::from_value(json!({"toolName": "w"})).unwrap();
        ExecuteThirdPartyTool
            .run(&ctx, params(), &mut Response::default())
            .await
            .unwrap();
        let error = ExecuteThirdPartyTool
            .run(&ctx, params(), &mut Response::default())
            .await
            .unwrap_err();
        assert_eq!(error.message, "WebMCP tool w failed (Error): Error: boom");
        let runs: Vec<_> = page
            .sent
            .lock()
            .unwrap()
            .iter()
            .filter_map(|c| match c {
                Command::InvokeWebMcpTool(run) => Some((run.tool.clone(), run.document.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(runs, [("w".into(), "d1".into()), ("w".into(), "d1".into())]);
        assert!(runs_in(&page).is_empty(), "no page-script run");
    }

    #[tokio::test]
    async fn a_tab_no_longer_shared_is_no_longer_selected() {
        let refused = WireError::new(ErrorCode::NotShared, "Tab 1 is not shared.");
        let (ctx, page) = context(vec![Err(refused)]);
        let error = execute(&ctx).await.unwrap_err();
        assert_eq!(error.code, Some(ErrorCode::NotShared));
        assert_eq!(runs_in(&page), ["d1"]);
        assert_eq!(ctx.selected(), None);
    }
}
