//! The `rmcp` glue: `tools/list` and `tools/call` implemented by hand over the
//! registry, so that every call takes the one pipeline.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool as McpTool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};

use super::context::ToolContext;
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
    pub fn new(registry: Registry, base: ToolContext) -> Self {
        let tools = registry
            .tools()
            .iter()
            .map(|t| {
                let spec = t.spec();
                McpTool::new_with_raw(
                    spec.name,
                    Some(spec.description.into()),
                    t.input_schema().clone(),
                )
                .with_annotations(
                    ToolAnnotations::new()
                        .read_only(spec.read_only)
                        .destructive(false)
                        .open_world(true),
                )
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
}
