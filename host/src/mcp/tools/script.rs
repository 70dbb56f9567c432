//! Debugging: running JavaScript in the page.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use tabwire_shared::{is_uid, Evaluate};

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
    /// Arguments passed to the function, as JSON values. An element of the page is
    /// passed as its uid from take_snapshot, either bare ("1_2", as Chrome DevTools for
    /// Agents takes them) or as an object {"uid": "1_2"} (at any depth).
    #[serde(default)]
    args: Vec<Value>,
    /// How long the function may run, in milliseconds (default 30000, also when 0 is given; at most 600000, ten
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
            Pass elements in `args` as their uids from take_snapshot (\"1_2\" or \
            {\"uid\": \"1_2\"}). After \
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
                args: params.args.into_iter().map(element_or_value).collect(),
                timeout_ms: Timeout::ms(params.timeout),
            })
            .await?;
        response.add_output("Script result", value);
        Ok(())
    }
}

/// A top-level argument that is a bare uid (`"1_2"`) is that element: the form Chrome
/// DevTools for Agents' `args` take, sent on as the `{"uid": …}` the extension reads.
/// Every other argument is passed as it is.
fn element_or_value(arg: Value) -> Value {
    match arg {
        Value::String(text) if is_uid(&text) => json!({ "uid": text }),
        other => other,
    }
}

/// This group's tools, for the registry.
pub fn tools() -> Vec<Box<dyn ErasedTool>> {
    vec![Box::new(Registered::new(EvaluateScript))]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_uid_argument_is_that_element_and_other_arguments_pass_as_they_are() {
        let args = [
            json!("1_2"),
            json!("hello"),
            json!("1_"),
            json!({"uid": "3_4"}),
            json!(["5_6"]),
            json!(7),
        ];
        let sent: Vec<Value> = args.into_iter().map(element_or_value).collect();
        assert_eq!(
            sent,
            [
                json!({"uid": "1_2"}),
                json!("hello"),
                json!("1_"),
                json!({"uid": "3_4"}),
                json!(["5_6"]),
                json!(7),
            ]
        );
    }
}
