//! How much memory a tab's renderer holds: its JavaScript heap and its DOM.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::protocol::{Request, TabId, PLAIN_CALL};

/// Reads the memory figures of a tab's renderer (`Runtime.getHeapUsage` and
/// `Performance.getMetrics`): what an extension may learn in place of a heap
/// snapshot, which `chrome.debugger` does not allow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetMemoryUsage {
    /// The tab.
    pub tab_id: TabId,
}

impl Request for GetMemoryUsage {
    type Reply = MemoryUsage;
    const RESENDABLE: bool = true;
    const LEAVES_TABS_ALONE: bool = true;
    fn tab(&self) -> Option<TabId> {
        Some(self.tab_id)
    }
    fn timeout(&self) -> Duration {
        PLAIN_CALL
    }
}

/// A tab renderer's memory figures at one moment. The renderer process may be shared
/// with other tabs of the same site, and the counts are the process's.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MemoryUsage {
    /// Bytes of the JavaScript heap in use.
    pub js_heap_used: f64,
    /// Bytes the JavaScript heap has reserved.
    pub js_heap_total: f64,
    /// Bytes the embedder (Blink: DOM and other C++ objects JavaScript can reach)
    /// holds on its own heap.
    pub embedder_heap_used: f64,
    /// Bytes of array buffers and other backing stores outside the heap.
    pub backing_storage: f64,
    /// Documents alive (iframes, detached and closed documents included).
    pub documents: f64,
    /// Frames.
    pub frames: f64,
    /// DOM nodes alive, attached or not.
    pub nodes: f64,
    /// Layout objects.
    pub layout_objects: f64,
    /// Event listeners registered from JavaScript.
    pub js_event_listeners: f64,
    /// Script states of documents that are gone but still referenced (a classic leak).
    pub detached_script_states: f64,
}

/// Its command and reply as they travel, pinned.
impl crate::protocol::Golden for GetMemoryUsage {
    const COMMANDS: &[&str] = &[
        r#"{"command":"memoryUsage","tabId":3}"#,
    ];
    const REPLIES: &[&str] = &[
        r#"{"jsHeapUsed":471000.0,"jsHeapTotal":1048576.0,"embedderHeapUsed":1385496.0,"backingStorage":114.0,"documents":2.0,"frames":1.0,"nodes":24.0,"layoutObjects":10.0,"jsEventListeners":0.0,"detachedScriptStates":0.0}"#,
    ];
}
