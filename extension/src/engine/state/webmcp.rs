//! What a debugging session knows of the page's WebMCP tools, as the `WebMCP` domain's
//! events tell them: held per tab (and per cross-site frame's session) by the core,
//! which feeds it the events; listed and run by `engine/webmcp.rs`. Bounded: what is
//! left out or cut is kept as a problem line for the agent.

use serde_json::Value;
use tabwire_shared::webmcp::WebMcpTool;

use crate::cdp::PageEvent;
#[cfg(doc)]
use tabwire_shared::Event;

/// Most tools kept per tab; more are counted, not kept.
pub(in crate::engine) const MAX_TOOLS: usize = 1_000;

/// Longest tool name kept, in characters; a longer one is left out.
pub(in crate::engine) const MAX_NAME_CHARS: usize = 256;

/// Longest description kept, in characters; a longer one is cut.
pub(in crate::engine) const MAX_DESCRIPTION_CHARS: usize = 4_000;

/// Largest input schema or annotations kept, as JSON; a tool with larger is left out.
pub(in crate::engine) const MAX_SCHEMA_BYTES: usize = 64 * 1024;

/// Most problem lines kept.
pub(in crate::engine) const MAX_PROBLEMS: usize = 20;

/// What a debugging session knows of the page's WebMCP tools.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct WebMcpState {
    /// `WebMCP.enable` answered in this session: the tools below are current.
    pub enabled: bool,
    /// The tools, in the order they were registered.
    pub tools: Vec<WebMcpTool>,
    /// What was left out or cut, for the agent.
    pub problems: Vec<String>,
    /// A [`Event::WebMcpChanged`] went out and nobody asked since (kept in the tab's
    /// own state for the tab and all its frames).
    pub announced: bool,
}

impl WebMcpState {
    /// Takes in a page event; whether the tools changed.
    pub fn track(&mut self, event: &PageEvent) -> bool {
        match event {
            PageEvent::WebMcpAdded(tools) => {
                for tool in tools {
                    self.add(tool.clone());
                }
                !tools.is_empty()
            }
            PageEvent::WebMcpRemoved(gone) => {
                let before = self.tools.len();
                self.tools
                    .retain(|t| !gone.iter().any(|(f, n)| *f == t.frame_id && *n == t.name));
                before != self.tools.len()
            }
            // A new document in a frame: the tools of the old one went with it.
            PageEvent::FrameNavigated {
                frame_id, is_main, ..
            } => {
                let before = self.tools.len();
                if *is_main {
                    self.tools.clear();
                    self.problems.clear();
                } else {
                    self.tools.retain(|t| t.frame_id != *frame_id);
                }
                before != self.tools.len()
            }
            _ => false,
        }
    }

    fn add(&mut self, mut tool: WebMcpTool) {
        let size = |v: &Value| serde_json::to_string(v).map_or(usize::MAX, |s| s.len());
        let why = if tool.name.chars().count() > MAX_NAME_CHARS {
            Some(format!("its name is over {MAX_NAME_CHARS} characters"))
        } else if tool
            .input_schema
            .as_ref()
            .is_some_and(|s| size(s) > MAX_SCHEMA_BYTES)
        {
            Some(format!("its input schema is over {MAX_SCHEMA_BYTES} bytes"))
        } else if tool.input_schema.as_ref().is_some_and(|s| !s.is_object()) {
            Some("its input schema is not a JSON object".to_owned())
        } else if size(&tool.annotations) > MAX_SCHEMA_BYTES {
            Some(format!("its annotations are over {MAX_SCHEMA_BYTES} bytes"))
        } else {
            None
        };
        let shown: String = tool.name.chars().take(80).collect();
        if let Some(why) = why {
            return self.problem(format!("WebMCP tool {shown:?} left out: {why}."));
        }
        if tool.description.chars().count() > MAX_DESCRIPTION_CHARS {
            tool.description = tool
                .description
                .chars()
                .take(MAX_DESCRIPTION_CHARS)
                .collect();
            tool.description.push('…');
        }
        let same = |t: &WebMcpTool| t.name == tool.name && t.frame_id == tool.frame_id;
        if let Some(known) = self.tools.iter_mut().find(|t| same(t)) {
            *known = tool;
        } else if self.tools.len() < MAX_TOOLS {
            self.tools.push(tool);
        } else {
            self.problem(format!(
                "WebMCP tool {shown:?} left out: the page registered more than {MAX_TOOLS} tools."
            ));
        }
    }

    fn problem(&mut self, line: String) {
        if self.problems.len() < MAX_PROBLEMS {
            self.problems.push(line);
        }
    }
}
