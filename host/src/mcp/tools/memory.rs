//! Memory: how much a page holds, and how that changes between readings.
//!
//! A heap snapshot cannot be taken through the extension (Chrome keeps the
//! HeapProfiler domain from `chrome.debugger`), so this is what tabwire offers in its
//! place: the JavaScript heap's size and the renderer's object counts, which show a
//! leak as figures that keep growing when the same action is repeated.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

use tabwire_shared::requests::{self, MemoryUsage};
use tabwire_shared::TabId;

use super::NoParams;
use crate::mcp::context::ToolContext;
use crate::mcp::output::memory::{memory_usage, Earlier};
use crate::mcp::response::{Response, Section};
use crate::mcp::tool::{Category, ErasedTool, Registered, Tool, ToolSpec};
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

/// This group's tools, for the registry.
pub fn tools() -> Vec<Box<dyn ErasedTool>> {
    vec![Box::new(Registered::new(GetMemoryUsage))]
}
