//! Memory: how much a page holds, and how that changes between readings.
//!
//! A heap snapshot cannot be taken through the extension (Chrome keeps the
//! HeapProfiler domain from `chrome.debugger`), so this is what tabwire offers in its
//! place: the JavaScript heap's size and the renderer's object counts, which show a
//! leak as figures that keep growing when the same action is repeated.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

use serde_json::{json, Value};
use tabwire_shared::requests::{self, MemoryUsage};
use tabwire_shared::TabId;

use super::NoParams;
use crate::mcp::context::ToolContext;
use crate::mcp::render::memory::{memory_usage, Earlier};
use crate::mcp::response::{Response, Section};
use crate::mcp::tool::{Category, Tool, ToolSpec};
use crate::mcp::ToolError;

/// Each page's previous reading, to say what changed since.
static PREVIOUS: Mutex<Option<HashMap<TabId, (Instant, MemoryUsage)>>> = Mutex::new(None);

/// `get_memory_usage`
pub struct GetMemoryUsage;

impl Tool for GetMemoryUsage {
    type Params = NoParams;
    const SPEC: ToolSpec = ToolSpec {
        name: "get_memory_usage",
        description: "Reads how much memory the page holds: its JavaScript heap (used and \
            reserved), Blink's heap, array buffers, and the counts of DOM nodes, documents, \
            frames, layout objects, event listeners and detached script states, with what \
            changed since the previous reading of the same page. To find a leak, read, \
            repeat an action a few times, and read again: figures that keep growing leak. \
            Heap snapshots are not available through the extension.",
        category: Category::Memory,
        read_only: true,
        page_scoped: true,
        blocked_by_dialog: false,
    };

    async fn run(
        &self,
        ctx: &ToolContext,
        _: NoParams,
        response: &mut Response,
    ) -> Result<(), ToolError> {
        let tab = ctx.page()?;
        let now = ctx
            .request(requests::GetMemoryUsage { tab_id: tab })
            .await?;
        let earlier = remember(tab, now).map(|(at, usage)| Earlier {
            usage,
            age: at.elapsed(),
        });
        let (lines, data) = memory_usage(&now, earlier.as_ref());
        response.add_section(Section {
            title: "Memory usage",
            lines,
            data,
        });
        Ok(())
    }
}

/// Keeps `usage` as `tab`'s latest reading; answers the one before it.
fn remember(tab: TabId, usage: MemoryUsage) -> Option<(Instant, MemoryUsage)> {
    let mut previous = PREVIOUS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    previous
        .get_or_insert_with(HashMap::new)
        .insert(tab, (Instant::now(), usage))
}

/// The schema of the `memoryUsage` entry of `structuredContent`.
pub fn output_schema() -> Value {
    let figures = [
        ("jsHeapUsedBytes", "Bytes of the JavaScript heap in use."),
        (
            "jsHeapTotalBytes",
            "Bytes the JavaScript heap has reserved.",
        ),
        (
            "embedderHeapUsedBytes",
            "Bytes of Blink's heap (DOM and other objects scripts reach).",
        ),
        (
            "backingStorageBytes",
            "Bytes of array buffers and other backing stores.",
        ),
        ("documents", "Documents alive, detached ones included."),
        ("frames", "Frames."),
        ("nodes", "DOM nodes alive, attached or not."),
        ("layoutObjects", "Layout objects."),
        ("jsEventListeners", "Event listeners added from JavaScript."),
        (
            "detachedScriptStates",
            "Script states of documents that are gone but still referenced.",
        ),
    ];
    let mut properties = serde_json::Map::new();
    let mut changes = serde_json::Map::new();
    changes.insert(
        "seconds".into(),
        json!({"type": "number", "description": "How long ago the previous reading was."}),
    );
    for (key, description) in figures {
        properties.insert(
            key.into(),
            json!({"type": "number", "description": description}),
        );
        changes.insert(key.into(), json!({"type": "number"}));
    }
    properties.insert(
        "scope".into(),
        json!({"type": "string", "description": "What the figures cover."}),
    );
    properties.insert(
        "sincePrevious".into(),
        json!({
            "type": "object",
            "description": "Each figure's change since the previous reading of the same page.",
            "properties": changes,
        }),
    );
    let required: Vec<&str> = figures
        .iter()
        .map(|(key, _)| *key)
        .chain(["scope"])
        .collect();
    json!({
        "type": "object",
        "description": "The page's memory figures (its renderer process's).",
        "properties": properties,
        "required": required,
    })
}
