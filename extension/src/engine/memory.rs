//! `GetMemoryUsage`: how much memory a tab's renderer holds.
//!
//! The Performance domain is on only for the call: while on, Chrome keeps counting
//! for us, which nothing else needs.

use tabwire_shared::requests::{GetMemoryUsage, MemoryUsage};

use crate::cdp::memory::{
    PerformanceDisable, PerformanceEnable, PerformanceGetMetrics, RuntimeGetHeapUsage,
};
use crate::chrome::Chrome;
use crate::engine::context::Cx;
use crate::error::EngineError;

/// Reads the tab's memory figures.
impl super::Handle for GetMemoryUsage {
    const NEEDS_RENDERER: bool = true;

    async fn handle<C: Chrome + 'static>(self, cx: &Cx<'_, C>) -> Result<MemoryUsage, EngineError> {
        let tab = self.tab_id;
        let mut watch = cx.ready(tab).await?;
        let heap = cx
            .send_watched(tab, &mut watch, &RuntimeGetHeapUsage {})
            .await?;
        cx.send_watched(tab, &mut watch, &PerformanceEnable {})
            .await?;
        let metrics = cx
            .send_watched(tab, &mut watch, &PerformanceGetMetrics {})
            .await;
        let _ = cx.send(tab, &PerformanceDisable {}).await;
        let metrics = metrics?;
        Ok(MemoryUsage {
            js_heap_used: heap.used_size,
            js_heap_total: heap.total_size,
            embedder_heap_used: heap.embedder_heap_used_size,
            backing_storage: heap.backing_storage_size,
            documents: metrics.get("Documents"),
            frames: metrics.get("Frames"),
            nodes: metrics.get("Nodes"),
            layout_objects: metrics.get("LayoutObjects"),
            js_event_listeners: metrics.get("JSEventListeners"),
            detached_script_states: metrics.get("DetachedScriptStates"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::fake::{Answer, Harness};
    use serde_json::json;
    use tabwire_shared::requests::*;

    #[test]
    fn the_heap_and_the_counters_are_read_and_the_counting_stops_again() {
        let mut h = Harness::new();
        h.fake.answer(
            "Runtime.getHeapUsage",
            Answer::value(json!({"usedSize": 10.0, "totalSize": 20.0,
                "embedderHeapUsedSize": 30.0, "backingStorageSize": 40.0})),
        );
        h.fake.answer(
            "Performance.getMetrics",
            Answer::value(json!({"metrics": [
                {"name": "Nodes", "value": 24.0},
                {"name": "JSEventListeners", "value": 3.0},
                {"name": "Documents", "value": 2.0},
                {"name": "SomethingNew", "value": 9.0}
            ]})),
        );
        h.call(1, GetMemoryUsage { tab_id: 11 });
        h.settle();
        let Ok(usage) = h.reply_to::<GetMemoryUsage>(1).unwrap() else {
            panic!("not memory figures");
        };
        assert_eq!(usage.js_heap_used, 10.0);
        assert_eq!(usage.backing_storage, 40.0);
        assert_eq!(usage.nodes, 24.0);
        assert_eq!(usage.js_event_listeners, 3.0);
        assert_eq!(usage.documents, 2.0);
        assert_eq!(usage.frames, 0.0, "a counter Chrome did not report is 0");
        let methods = h.fake.methods(11);
        let enabled = methods.iter().position(|m| m == "Performance.enable");
        let disabled = methods.iter().position(|m| m == "Performance.disable");
        assert!(enabled < disabled && enabled.is_some(), "{methods:?}");
    }

    #[test]
    fn the_counting_stops_even_when_reading_fails() {
        let mut h = Harness::new();
        h.fake
            .answer("Performance.getMetrics", Answer::error("no metrics"));
        h.call(1, GetMemoryUsage { tab_id: 11 });
        h.settle();
        let error = h.reply(1).unwrap().unwrap_err();
        assert!(error.message.contains("no metrics"), "{}", error.message);
        assert_eq!(h.fake.sent(11, "Performance.disable").len(), 1);
    }
}
