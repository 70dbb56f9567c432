//! The `rmcp` glue: `tools/list` and `tools/call` implemented by hand over the
//! registry, so that every call takes the one pipeline.

use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CustomRequest, CustomResult, ErrorCode,
    Implementation, InitializeRequestParams, InitializeResult, ListToolsResult, MetaObject,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool as McpTool, ToolAnnotations,
};
use rmcp::service::{Peer, RequestContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{json, Value};

use tabwire_shared::names::display_name;

use super::budget;
use super::client_arguments::{self, CallOrder};
use super::context::ToolContext;
use super::output::output_schema;
use super::page_tools::{PageToolSet, PREFIX};
use super::pipeline::{call_tool, call_tool_as, plain_error};
use super::registry::Registry;

/// What the agent reads about tabwire when it connects.
const INSTRUCTIONS: &str = "tabwire drives the user's Chrome tabs through its extension. \
Start with list_pages; page tools act on the selected page (select_page) unless given a pageId.";

/// Added to [`INSTRUCTIONS`] with page tools on.
const PAGE_TOOLS_INSTRUCTIONS: &str = " The selected page's own developer tools are tools \
here too, named page_<group>_<tool>, with typed arguments; tools/list changes (and \
notifications/tools/list_changed says so) when the page or the selection changes.";

/// One agent's MCP server.
#[derive(Clone)]
pub struct TabwireServer {
    registry: Arc<Registry>,
    base: ToolContext,
    tools: Arc<Vec<McpTool>>,
    output_schema: Option<Arc<rmcp::model::JsonObject>>,
    /// With page tools on, the [`PageToolSet::fingerprint`] of the set the agent was
    /// last shown (by `tools/list` or told of by `notifications/tools/list_changed`).
    page_tools_shown: Option<Arc<Mutex<u64>>>,
    /// The order of this session's calls (for a client's `wait_for_previous`).
    order: Arc<CallOrder>,
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
        let page_tools_shown = base
            .settings()
            .page_tools
            .then(|| Arc::new(Mutex::new(PageToolSet::default().fingerprint())));
        Self {
            registry: Arc::new(registry),
            base,
            tools: Arc::new(tools),
            output_schema,
            page_tools_shown,
            order: Arc::default(),
        }
    }

    /// The selected page's tools as its last discovery found them (no browser round
    /// trip: `tools/list` must answer at once, even before the browser is up).
    fn page_tools(&self) -> PageToolSet {
        let Some(tab) = self.base.selected() else {
            return PageToolSet::default();
        };
        match self.base.last_discovery(tab) {
            Some(discovery) => PageToolSet::of(tab, &discovery),
            None => PageToolSet::default(),
        }
    }

    /// Every tool `tools/list` shows now; with page tools on, also records the page
    /// tools as shown.
    ///
    /// Every tool declares the session's reply budget (with [`budget::declared`]'s
    /// margin) in `_meta["anthropic/maxResultSizeChars"]`: Claude Code then shows replies
    /// up to it inline rather than filing them away at its own 50,000.
    pub fn listing(&self) -> Vec<McpTool> {
        let mut tools = self.tools.as_ref().clone();
        if let Some(shown) = &self.page_tools_shown {
            let set = self.page_tools();
            *lock(shown) = set.fingerprint();
            tools.extend(set.tools.into_iter().map(|t| match &self.output_schema {
                Some(schema) => t.definition.with_raw_output_schema(schema.clone()),
                None => t.definition,
            }));
        }
        let mut meta = rmcp::model::JsonObject::new();
        meta.insert(
            budget::CLAUDE_CODE_META_KEY.to_owned(),
            json!(budget::declared(self.base.result_chars())),
        );
        tools
            .into_iter()
            .map(|tool| tool.with_meta(MetaObject(meta.clone())))
            .collect()
    }

    /// Whether the page tools differ from those the agent was last shown; if so,
    /// records the new set as shown (the caller tells the agent).
    pub fn page_tools_changed(&self) -> bool {
        let Some(shown) = &self.page_tools_shown else {
            return false;
        };
        let now = self.page_tools().fingerprint();
        let mut shown = lock(shown);
        let changed = *shown != now;
        *shown = now;
        changed
    }

    /// Runs the page tool `name` through `execute_3p_developer_tool`'s pipeline.
    /// A name the last discovery does not know is looked for once more in a new one
    /// (the page may have changed since).
    pub async fn call_page_tool(
        &self,
        name: &str,
        arguments: Option<rmcp::model::JsonObject>,
    ) -> rmcp::model::CallToolResult {
        let mut set = self.page_tools();
        if set.find(name).is_none() {
            if let Some(tab) = self.base.selected() {
                let lock = self.base.page_lock(tab);
                let _guard = lock.lock().await;
                if self.base.discover_tools(tab).await.is_ok() {
                    set = self.page_tools();
                }
            }
        }
        let Some(tool) = set.find(name) else {
            return plain_error(
                &self.base,
                format!(
                    "The selected page does not offer the tool `{name}` now: it navigated, or \
                     another page is selected. tools/list shows the page tools it offers \
                     now; list_3p_developer_tools lists them with their schemas."
                ),
            );
        };
        let mut args = rmcp::model::JsonObject::new();
        args.insert("toolName".into(), json!(tool.tool));
        args.insert("group".into(), json!(tool.group));
        args.insert(
            "params".into(),
            Value::Object(arguments.unwrap_or_default()),
        );
        call_tool_as(
            &self.registry,
            &self.base,
            "execute_3p_developer_tool",
            name,
            Some(args),
        )
        .await
    }

    /// Learns which client the agent uses, the first time it says: at `initialize`, or
    /// for a client that skips it (the stateless protocol of 2026-07-28), from the
    /// `clientInfo` each request carries. Its name sizes the replies and is shown to the
    /// user.
    fn meet(&self, client: Option<Implementation>) {
        let Some(client) = client else {
            return;
        };
        if self.base.set_client(&client.name) {
            self.base.introduce(&agent_name(&client));
        }
    }

    /// With page tools on, follows the selected page's WebMCP registrations for as long
    /// as the session lasts: each change is a new discovery (under the page's lock, so
    /// it waits for a running call), and `notifications/tools/list_changed` when the
    /// set the agent was shown changed with it.
    pub async fn follow_webmcp(self, peer: Peer<RoleServer>) {
        if self.page_tools_shown.is_none() {
            return;
        }
        loop {
            self.base.webmcp_changed().await;
            let Some(tab) = self.base.selected() else {
                continue;
            };
            {
                let lock = self.base.page_lock(tab);
                let _guard = lock.lock().await;
                if let Err(e) = self.base.discover_tools_automatically(tab).await {
                    tracing::debug!(error = %e.message, "discovery after a WebMCP change failed");
                }
            }
            self.announce_page_tools(&peer).await;
        }
    }

    /// Tells the agent when the page tools changed with the call just made.
    async fn announce_page_tools(&self, peer: &Peer<RoleServer>) {
        if self.page_tools_changed() {
            if let Err(e) = peer.notify_tool_list_changed().await {
                tracing::debug!(error = %e, "could not send tools/list_changed");
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl ServerHandler for TabwireServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = if self.page_tools_shown.is_some() {
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build()
        } else {
            ServerCapabilities::builder().enable_tools().build()
        };
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("tabwire", env!("CARGO_PKG_VERSION")))
            .with_instructions(if self.page_tools_shown.is_some() {
                format!("{INSTRUCTIONS}{PAGE_TOOLS_INSTRUCTIONS}")
            } else {
                INSTRUCTIONS.to_owned()
            })
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, McpError> {
        self.meet(Some(request.client_info.clone()));
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        self.meet(context.client_info());
        Ok(ListToolsResult::with_all_items(self.listing()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        self.meet(context.client_info());
        let mut arguments = request.arguments;
        let client = match client_arguments::take(&mut arguments) {
            Ok(client) => client,
            Err(message) => return Ok(plain_error(&self.base, message).into()),
        };
        let _in_order = self.order.enter(client).await;
        let page_tool = self.page_tools_shown.is_some()
            && request.name.starts_with(PREFIX)
            && self.registry.get(&request.name).is_none();
        let result = if page_tool {
            self.call_page_tool(&request.name, arguments).await
        } else {
            call_tool(&self.registry, &self.base, &request.name, arguments).await
        };
        self.announce_page_tools(&context.peer).await;
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
    use crate::mcp::context::{Browser, Session, Settings};
    use crate::mcp::tool::Category;
    use futures_util::future::BoxFuture;
    use std::collections::HashMap;
    use tabwire_shared::origin::OriginPolicy;
    use tabwire_shared::requests::ListTabs;
    use tabwire_shared::{
        Command, Discovery, Reply, RunThirdPartyTool, TabInfo, ToolDefinition, ToolGroup, WireError,
    };

    /// Tab 1, whose page offers the tools named in `tools` (changeable between calls),
    /// and which records the tool runs it gets.
    #[derive(Default)]
    struct ToolPage {
        tools: Mutex<Vec<&'static str>>,
        runs: Mutex<Vec<RunThirdPartyTool>>,
    }

    impl Browser for ToolPage {
        fn call(&self, command: Command) -> BoxFuture<'_, Result<Reply, WireError>> {
            let reply = match command {
                Command::ListTabs(ListTabs) => Reply::new(&vec![TabInfo {
                    id: 1,
                    window_id: 1,
                    url: "http://127.0.0.1/".into(),
                    title: "T".into(),
                    user_active: true,
                    dialog: None,
                    crashed: false,
                }])
                .unwrap(),
                Command::DiscoverThirdPartyTools(_) => Reply::new(&Discovery {
                    document: "d".into(),
                    url: "http://127.0.0.1/".into(),
                    origin: "http://127.0.0.1".into(),
                    refused: false,
                    groups: vec![ToolGroup {
                        name: "Shop cart".into(),
                        description: None,
                        webmcp: false,
                        tools: lock(&self.tools)
                            .iter()
                            .map(|name| ToolDefinition {
                                name: (*name).into(),
                                description: "D".into(),
                                input_schema: json!({"type": "object",
                                        "properties": {"a": {"type": "number"}},
                                        "required": ["a"]}),
                                annotations: None,
                            })
                            .collect(),
                    }],
                    problems: vec![],
                })
                .unwrap(),
                Command::RunThirdPartyTool(run) => {
                    lock(&self.runs).push(run);
                    Reply::new(&tabwire_shared::ThirdPartyResult {
                        result: json!(42),
                        elements: vec![],
                    })
                    .unwrap()
                }
                _ => Reply::new(&()).unwrap(),
            };
            Box::pin(async move { Ok(reply) })
        }
    }

    fn args_a() -> Option<rmcp::model::JsonObject> {
        json!({"a": 1}).as_object().cloned()
    }

    fn page_tool_server(page: Arc<ToolPage>) -> TabwireServer {
        let settings = Settings {
            third_party: Some(OriginPolicy::new(vec![])),
            page_tools: true,
            ..Settings::default()
        };
        let base = ToolContext::new(page, Arc::new(Session::default()), Arc::new(settings));
        let switches = HashMap::from([(Category::ExperimentalThirdParty, true)]);
        TabwireServer::new(Registry::new(&switches), base)
    }

    fn names(tools: &[McpTool]) -> Vec<String> {
        tools
            .iter()
            .map(|t| t.name.to_string())
            .filter(|n| n.starts_with(PREFIX))
            .collect()
    }

    #[tokio::test]
    async fn page_tools_follow_discovery_and_run_as_execute() {
        let page = Arc::new(ToolPage::default());
        *lock(&page.tools) = vec!["add"];
        let server = page_tool_server(page.clone());
        assert!(
            names(&server.listing()).is_empty(),
            "nothing before a discovery"
        );
        assert!(!server.page_tools_changed());

        // A discovery (as navigate_page or list_pages make) changes the set.
        let result = call_tool(
            &server.registry,
            &server.base,
            "list_3p_developer_tools",
            None,
        )
        .await;
        assert_ne!(result.is_error, Some(true), "{result:?}");
        assert!(server.page_tools_changed());
        assert!(!server.page_tools_changed(), "told once");
        let listed = server.listing();
        assert_eq!(names(&listed), ["page_Shop_cart_add"]);
        let add = listed
            .iter()
            .find(|t| t.name == "page_Shop_cart_add")
            .unwrap();
        assert_eq!(add.input_schema["required"], json!(["a"]));

        // A typed call runs the page's tool with the arguments as they are.
        let result = server.call_page_tool("page_Shop_cart_add", args_a()).await;
        assert_ne!(result.is_error, Some(true), "{result:?}");
        let runs = lock(&page.runs).clone();
        assert_eq!(runs.len(), 1);
        assert_eq!(
            (runs[0].tool.as_str(), runs[0].group.as_deref()),
            ("add", Some("Shop cart"))
        );
        assert_eq!(runs[0].args, json!({"a": 1}));

        // Arguments that break the page's schema are refused before the page runs.
        let result = server.call_page_tool("page_Shop_cart_add", None).await;
        assert_eq!(result.is_error, Some(true));
        assert_eq!(lock(&page.runs).len(), 1);

        // The page now offers another tool (it navigated): a new discovery changes the
        // set, and the old name is refused with what to do.
        *lock(&page.tools) = vec!["total"];
        call_tool(
            &server.registry,
            &server.base,
            "list_3p_developer_tools",
            None,
        )
        .await;
        assert!(server.page_tools_changed());
        let result = server.call_page_tool("page_Shop_cart_add", None).await;
        assert_eq!(result.is_error, Some(true));
        let text = format!("{:?}", result.content);
        assert!(text.contains("tools/list shows"), "{text}");
        assert_eq!(names(&server.listing()), ["page_Shop_cart_total"]);

        // A name the last discovery does not know yet is looked for in a new one.
        *lock(&page.tools) = vec!["total", "late"];
        let result = server.call_page_tool("page_Shop_cart_late", args_a()).await;
        assert_ne!(result.is_error, Some(true), "{result:?}");
        assert_eq!(
            lock(&page.runs).last().map(|r| r.tool.clone()).as_deref(),
            Some("late")
        );
        assert!(server.page_tools_changed());
    }

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
