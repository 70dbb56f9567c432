//! The `rmcp` glue: `tools/list` and `tools/call` implemented by hand over the
//! registry, so that every call takes the one pipeline.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CustomRequest, CustomResult, ErrorCode,
    Implementation, InitializeRequestParams, InitializeResult, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool as McpTool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};

use tabwire_shared::names::display_name;

use super::context::ToolContext;
use super::output_schema::output_schema;
use super::pipeline::call_tool;
use super::registry::Registry;

/// What the agent reads about tabwire when it connects.
const INSTRUCTIONS: &str = "tabwire drives the user's Chrome tabs through its extension. \
Start with list_pages; page tools act on the selected page (select_page) unless given a pageId.";

/// One agent's MCP server.
#[derive(Clone)]
pub struct TabwireServer {
    registry: Arc<Registry>,
    base: ToolContext,
    tools: Arc<Vec<McpTool>>,
}

impl TabwireServer {
    /// A server over `registry`; `base` carries the browser, session and settings every
    /// call gets.
    ///
    /// With structured output on, every tool declares the [`output_schema`] its
    /// `structuredContent` follows.
    pub fn new(registry: Registry, base: ToolContext) -> Self {
        let output_schema = base
            .settings()
            .structured_content
            .then(|| Arc::new(output_schema()));
        let tools = registry
            .tools()
            .iter()
            .map(|t| {
                let spec = t.spec();
                let tool = McpTool::new_with_raw(
                    spec.name,
                    Some(spec.description.into()),
                    t.input_schema().clone(),
                )
                .with_annotations(
                    ToolAnnotations::new()
                        .read_only(spec.read_only)
                        .destructive(false)
                        .open_world(true),
                );
                match &output_schema {
                    Some(schema) => tool.with_raw_output_schema(schema.clone()),
                    None => tool,
                }
            })
            .collect();
        Self {
            registry: Arc::new(registry),
            base,
            tools: Arc::new(tools),
        }
    }
}

impl ServerHandler for TabwireServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("tabwire", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, McpError> {
        self.base.introduce(&agent_name(&request.client_info));
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let result = call_tool(&self.registry, &self.base, &request.name, request.arguments).await;
        Ok(result.into())
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, McpError> {
        Err(unmatched_request(&request.method, request.params.as_ref()))
    }
}

/// Request methods rmcp reads into typed params; a request for one of them that
/// reaches [`ServerHandler::on_custom_request`] had params that did not fit.
const TYPED_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "resources/subscribe",
    "resources/unsubscribe",
    "completion/complete",
    "logging/setLevel",
];

/// The answer to a request rmcp could not match to a typed one: `-32602` invalid
/// params when the method is one it knows (rmcp's own default says `-32601`, as if the
/// method did not exist), `-32601` method not found otherwise.
fn unmatched_request(method: &str, params: Option<&serde_json::Value>) -> McpError {
    if method == "tools/call" {
        let why = serde_json::from_value::<CallToolRequestParams>(
            params.cloned().unwrap_or(serde_json::Value::Null),
        )
        .err()
        .map(|e| format!(" ({e})"))
        .unwrap_or_default();
        return McpError::invalid_params(
            format!(
                "Invalid params for tools/call{why}: expected {{\"name\": <a tool name from \
                 tools/list>, \"arguments\": {{...}}}}."
            ),
            None,
        );
    }
    if TYPED_METHODS.contains(&method) {
        return McpError::invalid_params(format!("Invalid params for {method}."), None);
    }
    McpError::new(
        ErrorCode::METHOD_NOT_FOUND,
        format!("Method not found: {method}. tabwire serves the MCP tools methods."),
        None,
    )
}

/// The name the user sees for an agent: its client's title, else its name, made safe
/// to show ([`display_name`]: it is untrusted input shown in the browser's UI).
fn agent_name(client: &Implementation) -> String {
    client
        .title
        .as_deref()
        .and_then(display_name)
        .or_else(|| display_name(&client.name))
        .unwrap_or_else(|| "unnamed agent".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_params_for_a_known_method_are_invalid_params_not_an_unknown_method() {
        let bad = serde_json::json!({"name": 5});
        let error = unmatched_request("tools/call", Some(&bad));
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
        assert!(error.message.contains("tools/call ("), "{}", error.message);
        assert_eq!(
            unmatched_request("tools/call", None).code,
            ErrorCode::INVALID_PARAMS
        );
        assert_eq!(
            unmatched_request("tools/list", Some(&bad)).code,
            ErrorCode::INVALID_PARAMS
        );
        assert_eq!(
            unmatched_request("tools/frobnicate", None).code,
            ErrorCode::METHOD_NOT_FOUND
        );
    }

    #[test]
    fn agent_names_are_their_title_else_their_name_made_safe() {
        let named = |name: &str| Implementation::new(name, "1");
        assert_eq!(agent_name(&named("claude-code")), "claude-code");
        assert_eq!(agent_name(&named(" a\u{7}\nb\t ")), "a b");
        assert_eq!(agent_name(&named("")), "unnamed agent");
        let titled = Implementation::new("cc", "1").with_title("Claude Code");
        assert_eq!(agent_name(&titled), "Claude Code");
        let blank_title = Implementation::new("cc", "1").with_title("\u{200B}");
        assert_eq!(agent_name(&blank_title), "cc");
    }
}
