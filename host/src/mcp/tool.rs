//! What a tool is: one declarative value.
//!
//! A tool is a unit struct implementing [`Tool`]: a [`ToolSpec`] constant (name,
//! description, category, hints), a `Params` type whose JSON Schema is exactly what the
//! agent sees (field doc comments become the parameter descriptions), and a handler
//! that states its intent on a [`Response`]. Tools never format output, lock pages or
//! check arguments themselves: the pipeline and the renderer do that once for all.
//!
//! [`Registered`] erases the `Params` type so the registry can hold every tool in one
//! list; the input schema is computed once, when the tool is registered.

use std::future::Future;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use rmcp::model::JsonObject;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::context::ToolContext;
use super::response::Response;
use super::ToolError;

/// Groups of tools an agent can switch off (or on) with `--category<Name>=false|true`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    /// Opening, selecting, navigating and closing pages, and waiting for them.
    Navigation,
    /// Acting on a page as a user would: clicks, typing, forms, dialogs.
    Input,
    /// Looking inside a page: scripts, snapshots, screenshots, console.
    Debugging,
    /// The page's network traffic.
    Network,
    /// Emulating devices, networks and preferences.
    Emulation,
    /// Performance traces and their insights.
    Performance,
    /// How much memory a page holds.
    Memory,
    /// Tools that pages themselves provide (third-party developer tools); off by default.
    ExperimentalThirdParty,
    /// Tools pages register with the browser's WebMCP (`document.modelContext`); off by
    /// default.
    ExperimentalWebmcp,
}

impl Category {
    /// Every category, in the order help text lists them.
    pub const ALL: [Category; 9] = [
        Category::Navigation,
        Category::Input,
        Category::Debugging,
        Category::Network,
        Category::Emulation,
        Category::Performance,
        Category::Memory,
        Category::ExperimentalThirdParty,
        Category::ExperimentalWebmcp,
    ];

    /// The name used in `--category<Name>` flags.
    pub fn flag_name(self) -> &'static str {
        match self {
            Category::Navigation => "Navigation",
            Category::Input => "Input",
            Category::Debugging => "Debugging",
            Category::Network => "Network",
            Category::Emulation => "Emulation",
            Category::Performance => "Performance",
            Category::Memory => "Memory",
            Category::ExperimentalThirdParty => "ExperimentalThirdParty",
            Category::ExperimentalWebmcp => "ExperimentalWebmcp",
        }
    }

    /// Whether tools of this category are offered when no flag says otherwise.
    pub fn enabled_by_default(self) -> bool {
        !matches!(
            self,
            Category::ExperimentalThirdParty | Category::ExperimentalWebmcp
        )
    }
}

/// The declarative part of a tool.
#[derive(Debug, Clone, Copy)]
pub struct ToolSpec {
    /// The tool's name, as agents call it (snake_case, as in Chrome DevTools for Agents).
    pub name: &'static str,
    /// What the tool does and when to use it; agents read this to choose tools.
    pub description: &'static str,
    /// The category that switches it on or off.
    pub category: Category,
    /// The tool only reads: it changes nothing in the browser.
    pub read_only: bool,
    /// The tool acts on one page: the pipeline resolves it (optional `pageId`, else the
    /// selected page), serialises calls on it and injects it as [`ToolContext::page`].
    pub page_scoped: bool,
    /// An open JavaScript dialog on the page stops this tool (it would hang behind it).
    pub blocked_by_dialog: bool,
}

/// A tool: its spec, its parameters and its handler.
pub trait Tool: Send + Sync + 'static {
    /// The arguments, as the agent sends them. Its JSON Schema is the tool's input schema.
    type Params: DeserializeOwned + JsonSchema + Send;
    /// Name, description, category and hints.
    const SPEC: ToolSpec;
    /// A page-scoped call waits its turn on the page behind the calls running there.
    /// Tools that only read what the browser collected for the page (its console and
    /// network lists) say `false`: they answer while a long call (a script) runs.
    const QUEUES_ON_PAGE: bool = true;
    /// Carries out the call, stating on `response` what the agent should get back.
    fn run(
        &self,
        ctx: &ToolContext,
        params: Self::Params,
        response: &mut Response,
    ) -> impl Future<Output = Result<(), ToolError>> + Send;
}

/// A tool with its parameter type erased, as the registry holds it.
pub trait ErasedTool: Send + Sync {
    /// The tool's spec.
    fn spec(&self) -> &ToolSpec;
    /// Whether a call waits its turn on the page ([`Tool::QUEUES_ON_PAGE`]).
    fn queues_on_page(&self) -> bool;
    /// The input schema the agent sees (page-scoped tools include `pageId`).
    fn input_schema(&self) -> &Arc<JsonObject>;
    /// Parses the arguments and runs the handler.
    fn call<'a>(
        &'a self,
        ctx: &'a ToolContext,
        args: JsonObject,
        response: &'a mut Response,
    ) -> BoxFuture<'a, Result<(), ToolError>>;
}

/// A [`Tool`] made storable in the registry.
pub struct Registered<T: Tool> {
    tool: T,
    schema: Arc<JsonObject>,
}

impl<T: Tool> Registered<T> {
    /// Wraps a tool, computing its input schema once.
    pub fn new(tool: T) -> Self {
        let schema = super::schema::input_schema::<T::Params>(T::SPEC.page_scoped);
        Self {
            tool,
            schema: Arc::new(schema),
        }
    }
}

impl<T: Tool> ErasedTool for Registered<T> {
    fn spec(&self) -> &ToolSpec {
        &T::SPEC
    }

    fn queues_on_page(&self) -> bool {
        T::QUEUES_ON_PAGE
    }

    fn input_schema(&self) -> &Arc<JsonObject> {
        &self.schema
    }

    fn call<'a>(
        &'a self,
        ctx: &'a ToolContext,
        mut args: JsonObject,
        response: &'a mut Response,
    ) -> BoxFuture<'a, Result<(), ToolError>> {
        Box::pin(async move {
            if T::SPEC.page_scoped {
                // Consumed by the pipeline to pick the page; not part of `Params`.
                args.remove(super::schema::PAGE_ID);
            }
            let params: T::Params = serde_json::from_value(Value::Object(args)).map_err(|e| {
                ToolError::new(format!(
                    "Invalid arguments for {}: {e}. Check the tool's input schema.",
                    T::SPEC.name
                ))
            })?;
            self.tool.run(ctx, params, response).await
        })
    }
}
