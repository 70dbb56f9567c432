//! The `WebMCP` domain (experimental, Chromium 156): the tools a page registers with
//! `document.modelContext.registerTool`, and running them.
//!
//! `WebMCP.enable` announces every registered tool (`WebMCP.toolsAdded`) before it
//! answers, then every later registration and removal. `WebMCP.invokeTool` answers
//! with an invocation id at once; the tool's answer comes later as
//! `WebMCP.toolResponded`. The events are read in [`super::events`].

use serde::{Deserialize, Serialize};
use serde_json::Value;

use tabwire_shared::webmcp::{WebMcpOutcome, WebMcpTool};

use super::{command, Empty, RemoteObject};

/// `WebMCP.enable`.
#[derive(Debug, Serialize)]
pub struct WebMcpEnable {}
command!(WebMcpEnable, "WebMCP.enable", Empty);

/// `WebMCP.invokeTool`: starts a run of a tool registered in `frame_id`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WebMcpInvokeTool {
    /// The frame that registered the tool.
    pub frame_id: String,
    /// The tool's name.
    pub tool_name: String,
    /// Its input (an object).
    pub input: Value,
}
command!(WebMcpInvokeTool, "WebMCP.invokeTool", Invocation);

/// What `WebMCP.invokeTool` answers.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Invocation {
    /// Names the run in `WebMCP.toolResponded`.
    pub invocation_id: String,
}

/// `WebMCP.cancelInvocation`: ends a run that has not answered (it answers `Canceled`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WebMcpCancelInvocation {
    /// The run.
    pub invocation_id: String,
}
command!(WebMcpCancelInvocation, "WebMCP.cancelInvocation", Empty);

/// A tool as `WebMCP.toolsAdded` describes it.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AddedTool {
    /// Its name.
    pub name: String,
    /// Its description.
    #[serde(default)]
    pub description: String,
    /// Its input schema, if it has one.
    #[serde(default)]
    pub input_schema: Option<Value>,
    /// Its annotations.
    #[serde(default)]
    pub annotations: Option<Value>,
    /// The frame that registered it.
    #[serde(default)]
    pub frame_id: String,
}

/// `WebMCP.toolsAdded`.
#[derive(Debug, Deserialize)]
pub struct ToolsAdded {
    /// The tools.
    #[serde(default)]
    pub tools: Vec<AddedTool>,
}

/// A tool as `WebMCP.toolsRemoved` names it.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RemovedTool {
    /// Its name.
    pub name: String,
    /// The frame that had registered it.
    #[serde(default)]
    pub frame_id: String,
}

/// `WebMCP.toolsRemoved`.
#[derive(Debug, Deserialize)]
pub struct ToolsRemoved {
    /// The tools.
    #[serde(default)]
    pub tools: Vec<RemovedTool>,
}

/// `WebMCP.toolResponded`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResponded {
    /// The run.
    pub invocation_id: String,
    /// `Completed`, `Canceled` or `Error`.
    #[serde(default)]
    pub status: String,
    /// What the tool returned.
    #[serde(default)]
    pub output: Option<Value>,
    /// Chrome's error text.
    #[serde(default)]
    pub error_text: Option<String>,
    /// What the tool threw.
    #[serde(default)]
    pub exception: Option<RemoteObject>,
}

impl AddedTool {
    /// The tool as the protocol carries it: annotations always an object.
    pub fn into_tool(self) -> WebMcpTool {
        WebMcpTool {
            name: self.name,
            description: self.description,
            input_schema: self.input_schema,
            annotations: match self.annotations {
                Some(Value::Object(map)) => Value::Object(map),
                _ => Value::Object(Default::default()),
            },
            frame_id: self.frame_id,
            cross_site_origin: None,
        }
    }
}

impl ToolResponded {
    /// The run's outcome; its error is what the tool threw (its description, else its
    /// value), else Chrome's error text.
    pub fn into_outcome(self) -> WebMcpOutcome {
        let thrown = self.exception.and_then(|e| {
            e.description.or_else(|| {
                e.value.map(|v| match v {
                    Value::String(text) => text,
                    other => other.to_string(),
                })
            })
        });
        let error = thrown.or(self.error_text).filter(|text| !text.is_empty());
        WebMcpOutcome {
            status: self.status,
            output: self.output,
            error,
        }
    }
}
