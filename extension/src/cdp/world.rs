//! tabwire's isolated world in a frame: making it, and running code in it.
//!
//! An isolated world shares the page's DOM but not its JavaScript: the page can
//! neither see nor change what runs there. Its context is named by id, so code is
//! sent to it with `contextId` / `executionContextId` rather than through an object.

use serde::{Deserialize, Serialize};

use super::{command, CallArgument, Evaluated};

/// `Page.createIsolatedWorld`: the frame's world of this name, made if it has none
/// (asking again for the same name gives the same world while the document lives).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PageCreateIsolatedWorld {
    /// The frame.
    pub frame_id: String,
    /// The world's name.
    pub world_name: String,
}
command!(
    PageCreateIsolatedWorld,
    "Page.createIsolatedWorld",
    IsolatedWorld
);

/// What `Page.createIsolatedWorld` answers.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IsolatedWorld {
    /// The world's JavaScript context in the frame.
    pub execution_context_id: i64,
}

/// `Runtime.evaluate` in one given context.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RuntimeEvaluateIn {
    /// The expression.
    pub expression: String,
    /// The context it runs in.
    pub context_id: i64,
    /// Return the value as JSON instead of a remote object.
    pub return_by_value: bool,
    /// Keep exceptions out of the console and from pausing a debugger.
    pub silent: bool,
}
command!(RuntimeEvaluateIn, "Runtime.evaluate", Evaluated);

/// `Runtime.callFunctionOn` with a context's global object as `this`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RuntimeCallFunctionIn {
    /// The function declaration.
    pub function_declaration: String,
    /// The context whose global object is `this`.
    pub execution_context_id: i64,
    /// The arguments (remote objects must be of the same context).
    pub arguments: Vec<CallArgument>,
    /// Group for the remote objects the call creates; none when empty.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub object_group: String,
    /// Return the value as JSON instead of a remote object.
    pub return_by_value: bool,
    /// Keep exceptions out of the console and from pausing a debugger.
    pub silent: bool,
}
command!(RuntimeCallFunctionIn, "Runtime.callFunctionOn", Evaluated);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn world_commands_name_their_context() {
        let call = RuntimeCallFunctionIn {
            function_declaration: "function () {}".into(),
            execution_context_id: 4,
            arguments: vec![CallArgument::value(json!(1))],
            object_group: String::new(),
            return_by_value: true,
            silent: true,
        };
        assert_eq!(
            serde_json::to_value(call).unwrap(),
            json!({"functionDeclaration": "function () {}", "executionContextId": 4,
                   "arguments": [{"value": 1}], "returnByValue": true, "silent": true})
        );
        let world = PageCreateIsolatedWorld {
            frame_id: "f".into(),
            world_name: "tabwire".into(),
        };
        assert_eq!(
            serde_json::to_value(world).unwrap(),
            json!({"frameId": "f", "worldName": "tabwire"})
        );
    }
}
