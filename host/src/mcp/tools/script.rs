//! Debugging: running JavaScript in the page.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use tabwire_shared::Evaluate;

use super::Timeout;
use crate::mcp::context::ToolContext;
use crate::mcp::response::Response;
use crate::mcp::tool::{Category, ErasedTool, Registered, Tool, ToolSpec};
use crate::mcp::ToolError;

/// Arguments of `evaluate_script`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EvaluateScriptParams {
    /// A JavaScript function declaration to run in the page, e.g. `() => document.title`
    /// or `async (a, b) => a + b`. Its return value must be JSON-serialisable.
    function: String,
    /// Arguments passed to the function, as JSON values; an object {"uid": "…"} (at any
    /// depth) is passed as that element of the page.
    #[serde(default)]
    args: Vec<Value>,
    /// How long the function may run, in milliseconds (default 30000; at most 600000, ten
    /// minutes: a larger value is refused).
    timeout: Option<Timeout>,
}

/// `evaluate_script`
pub struct EvaluateScript;

impl Tool for EvaluateScript {
    type Params = EvaluateScriptParams;
    const SPEC: ToolSpec = ToolSpec {
        name: "evaluate_script",
        description: "Runs a JavaScript function in the selected page and returns its result as \
            JSON. Promises are awaited. Use it to read state the page holds or to act on it. \
            Pass elements as {\"uid\": \"<uid from take_snapshot>\"} in `args`. After \
            third-party tool discovery, the page's own tools can be composed with \
            `await window.__dtmcp.executeTool(name, args)`.",
        category: Category::Debugging,
        read_only: false,
        page_scoped: true,
        blocked_by_dialog: true,
    };

    async fn run(
        &self,
        ctx: &ToolContext,
        params: EvaluateScriptParams,
        response: &mut Response,
    ) -> Result<(), ToolError> {
        let value = ctx
            .request(Evaluate {
                tab_id: ctx.page()?,
                function: params.function,
                args: params.args,
                timeout_ms: Timeout::ms(params.timeout),
            })
            .await?;
        response.add_output("Script result", value);
        Ok(())
    }
}

/// This group's tools, for the registry.
pub fn tools() -> Vec<Box<dyn ErasedTool>> {
    vec![Box::new(Registered::new(EvaluateScript))]
}
