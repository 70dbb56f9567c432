//! A page's memory figures: the JavaScript heap and the DOM's counts, and what changed
//! since the previous reading of the same page. (Heap snapshots are not available
//! through the extension; these figures show a leak as numbers that keep growing.)

use schemars::JsonSchema;
use serde::Serialize;
use tabwire_shared::requests::MemoryUsage;

/// The `structuredContent` key of the memory section.
#[derive(Debug, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Keys {
    /// The page's memory figures (its renderer process's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_usage: Option<Usage>,
}

/// A reading.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// The figures.
    #[serde(flatten)]
    pub figures: Figures,
    /// Each figure's change since the previous reading of the same page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since_previous: Option<Since>,
    /// What the figures cover.
    pub scope: &'static str,
}

/// The figures of a reading, or their changes.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Figures {
    /// Bytes of the JavaScript heap in use.
    pub js_heap_used_bytes: f64,
    /// Bytes the JavaScript heap has reserved.
    pub js_heap_total_bytes: f64,
    /// Bytes of Blink's heap (DOM and other objects scripts reach).
    pub embedder_heap_used_bytes: f64,
    /// Bytes of array buffers and other backing stores.
    pub backing_storage_bytes: f64,
    /// Documents alive, detached ones included.
    pub documents: f64,
    /// Frames.
    pub frames: f64,
    /// DOM nodes alive, attached or not.
    pub nodes: f64,
    /// Layout objects.
    pub layout_objects: f64,
    /// Event listeners added from JavaScript.
    pub js_event_listeners: f64,
    /// Script states of documents that are gone but still referenced.
    pub detached_script_states: f64,
}

impl Figures {
    /// The figures of `usage`.
    pub fn of(usage: &MemoryUsage) -> Self {
        Self {
            js_heap_used_bytes: usage.js_heap_used,
            js_heap_total_bytes: usage.js_heap_total,
            embedder_heap_used_bytes: usage.embedder_heap_used,
            backing_storage_bytes: usage.backing_storage,
            documents: usage.documents,
            frames: usage.frames,
            nodes: usage.nodes,
            layout_objects: usage.layout_objects,
            js_event_listeners: usage.js_event_listeners,
            detached_script_states: usage.detached_script_states,
        }
    }

    /// What changed from `then` to `now`.
    pub fn change(now: &MemoryUsage, then: &MemoryUsage) -> Self {
        Self {
            js_heap_used_bytes: now.js_heap_used - then.js_heap_used,
            js_heap_total_bytes: now.js_heap_total - then.js_heap_total,
            embedder_heap_used_bytes: now.embedder_heap_used - then.embedder_heap_used,
            backing_storage_bytes: now.backing_storage - then.backing_storage,
            documents: now.documents - then.documents,
            frames: now.frames - then.frames,
            nodes: now.nodes - then.nodes,
            layout_objects: now.layout_objects - then.layout_objects,
            js_event_listeners: now.js_event_listeners - then.js_event_listeners,
            detached_script_states: now.detached_script_states - then.detached_script_states,
        }
    }
}

/// The changes since the previous reading.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Since {
    /// How long ago the previous reading was.
    pub seconds: f64,
    /// Each figure's change.
    #[serde(flatten)]
    pub change: Figures,
}

#[cfg(test)]
pub(super) fn sample() -> serde_json::Map<String, serde_json::Value> {
    let usage = MemoryUsage {
        js_heap_used: 471_000.0,
        js_heap_total: 2_000_000.0,
        embedder_heap_used: 1_385_496.0,
        backing_storage: 114.0,
        documents: 2.0,
        frames: 1.0,
        nodes: 24.0,
        layout_objects: 10.0,
        js_event_listeners: 0.0,
        detached_script_states: 0.0,
    };
    super::entries(&Keys {
        memory_usage: Some(Usage {
            figures: Figures::of(&usage),
            since_previous: Some(Since {
                seconds: 12.34,
                change: Figures::change(&usage, &usage),
            }),
            scope: "the tab's renderer process",
        }),
    })
}
