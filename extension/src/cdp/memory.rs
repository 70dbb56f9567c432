//! Memory figures an extension may read: the JavaScript heap's size
//! (`Runtime.getHeapUsage`) and the renderer's object counters
//! (`Performance.getMetrics`). Heap snapshots (`HeapProfiler`) and the `Memory` domain
//! are not open to `chrome.debugger`.

use serde::{Deserialize, Serialize};

use super::{command, Empty};

/// `Runtime.getHeapUsage`: the isolate's heap.
#[derive(Debug, Serialize)]
pub struct RuntimeGetHeapUsage {}
command!(RuntimeGetHeapUsage, "Runtime.getHeapUsage", HeapUsage);

/// What `Runtime.getHeapUsage` answers (bytes).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct HeapUsage {
    /// In use.
    pub used_size: f64,
    /// Reserved.
    pub total_size: f64,
    /// The embedder's own heap in use.
    pub embedder_heap_used_size: f64,
    /// Array buffers and other backing stores.
    pub backing_storage_size: f64,
}

/// `Performance.enable`: Chrome starts counting (needed before `getMetrics`).
#[derive(Debug, Serialize)]
pub struct PerformanceEnable {}
command!(PerformanceEnable, "Performance.enable", Empty);

/// `Performance.disable`.
#[derive(Debug, Serialize)]
pub struct PerformanceDisable {}
command!(PerformanceDisable, "Performance.disable", Empty);

/// `Performance.getMetrics`: the renderer's counters, by name.
#[derive(Debug, Serialize)]
pub struct PerformanceGetMetrics {}
command!(PerformanceGetMetrics, "Performance.getMetrics", Metrics);

/// What `Performance.getMetrics` answers.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Metrics {
    /// Each counter.
    pub metrics: Vec<Metric>,
}

/// One counter.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Metric {
    /// Its name (`Nodes`, `JSEventListeners`, …).
    pub name: String,
    /// Its value.
    pub value: f64,
}

impl Metrics {
    /// The counter named `name`, 0 when Chrome did not report it.
    pub fn get(&self, name: &str) -> f64 {
        self.metrics
            .iter()
            .find(|m| m.name == name)
            .map_or(0.0, |m| m.value)
    }
}
