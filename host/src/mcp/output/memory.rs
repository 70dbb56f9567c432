//! A page's memory figures as the agent reads them: the JavaScript heap and the DOM's
//! counts in words, what changed since the previous reading of the same page, and the
//! same figures as `structuredContent` ([`Keys`]). (Heap snapshots are not available
//! through the extension; these figures show a leak as numbers that keep growing.)

use std::time::Duration;

use bytesize::ByteSize;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};
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

/// What the figures cover, said with each reading (the renderer may serve more than
/// one tab).
pub const SCOPE: &str = "the tab's renderer process, which other tabs of the same site may share";

/// An earlier reading of the same page, and how long ago it was taken.
#[derive(Debug, Clone, Copy)]
pub struct Earlier {
    /// The figures then.
    pub usage: MemoryUsage,
    /// How long ago.
    pub age: Duration,
}

/// The lines and `structuredContent` of a reading (`earlier` when the page was read
/// before).
pub fn memory_usage(
    now: &MemoryUsage,
    earlier: Option<&Earlier>,
) -> (Vec<String>, Map<String, Value>) {
    let mut lines = vec![
        format!(
            "JavaScript heap: {} used of {} reserved; {} more in Blink's heap (DOM and other objects scripts reach); {} of array buffers and other backing stores.",
            bytes(now.js_heap_used),
            bytes(now.js_heap_total),
            bytes(now.embedder_heap_used),
            bytes(now.backing_storage),
        ),
        format!(
            "DOM: {} nodes (attached or not), {} documents, {} frames, {} layout objects, {} event listeners, {} detached script states.",
            count(now.nodes),
            count(now.documents),
            count(now.frames),
            count(now.layout_objects),
            count(now.js_event_listeners),
            count(now.detached_script_states),
        ),
    ];
    let mut since_previous = None;
    if let Some(earlier) = earlier {
        let then = &earlier.usage;
        lines.push(format!(
            "Since the previous reading of this page {:.1} s ago: JavaScript heap {}, nodes {}, event listeners {}, documents {}, detached script states {}.",
            earlier.age.as_secs_f64(),
            signed_bytes(now.js_heap_used - then.js_heap_used),
            signed(now.nodes - then.nodes),
            signed(now.js_event_listeners - then.js_event_listeners),
            signed(now.documents - then.documents),
            signed(now.detached_script_states - then.detached_script_states),
        ));
        since_previous = Some(Since {
            seconds: earlier.age.as_secs_f64(),
            change: Figures::change(now, then),
        });
    }
    lines.push(format!(
        "These are the figures of {SCOPE}. Garbage not yet collected still counts: read again after the page has been idle to compare like with like."
    ));
    let data = super::entries(&Keys {
        memory_usage: Some(Usage {
            figures: Figures::of(now),
            since_previous,
            scope: SCOPE,
        }),
    });
    (lines, data)
}

/// A size in bytes, in SI units ("1.4 MB").
fn bytes(value: f64) -> String {
    ByteSize(value.max(0.0) as u64).display().si().to_string()
}

/// A change in bytes, with its sign ("+1.4 MB", "-12 kB", "±0 B").
fn signed_bytes(change: f64) -> String {
    match change {
        c if c > 0.0 => format!("+{}", bytes(c)),
        c if c < 0.0 => format!("-{}", bytes(-c)),
        _ => "±0 B".to_owned(),
    }
}

/// A count.
fn count(value: f64) -> String {
    format!("{}", value.max(0.0) as u64)
}

/// A change in a count, with its sign.
fn signed(change: f64) -> String {
    match change {
        c if c > 0.0 => format!("+{}", c as i64),
        c if c < 0.0 => format!("{}", c as i64),
        _ => "±0".to_owned(),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(heap: f64, nodes: f64) -> MemoryUsage {
        MemoryUsage {
            js_heap_used: heap,
            js_heap_total: 2_000_000.0,
            embedder_heap_used: 1_385_496.0,
            backing_storage: 114.0,
            documents: 2.0,
            frames: 1.0,
            nodes,
            layout_objects: 10.0,
            js_event_listeners: 0.0,
            detached_script_states: 0.0,
        }
    }

    #[test]
    fn a_first_reading_says_the_figures_and_what_they_cover() {
        let (lines, data) = memory_usage(&usage(471_000.0, 24.0), None);
        insta::assert_snapshot!(lines.join("\n"));
        assert_eq!(data["memoryUsage"]["nodes"], 24.0);
        assert_eq!(data["memoryUsage"]["scope"], SCOPE);
        assert!(data["memoryUsage"].get("sincePrevious").is_none());
    }

    #[test]
    fn a_second_reading_says_what_changed_in_both_forms() {
        let earlier = Earlier {
            usage: usage(1_500_000.0, 5_024.0),
            age: Duration::from_millis(12_340),
        };
        let (lines, data) = memory_usage(&usage(471_000.0, 24.0), Some(&earlier));
        assert!(
            lines[2]
                .contains("12.3 s ago: JavaScript heap -1.0 MB, nodes -5000, event listeners ±0"),
            "{}",
            lines[2]
        );
        let since = &data["memoryUsage"]["sincePrevious"];
        assert_eq!(since["nodes"], -5000.0);
        assert_eq!(since["jsHeapUsedBytes"], -1_029_000.0);
        assert_eq!(since["seconds"], 12.34);
    }
}
