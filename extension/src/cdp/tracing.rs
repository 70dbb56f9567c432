//! Performance traces: `Tracing.start` with stream transfer, `Tracing.end`, and the
//! stream read back with `IO.read` and closed with `IO.close`.

use serde::{Deserialize, Serialize};

use super::{command, Empty};

/// What DevTools' Performance panel records (its default categories, with JavaScript
/// sampling and screenshots, which it records unless switched off); everything else
/// is left out.
pub const TRACE_CATEGORIES: &[&str] = &[
    "blink.console",
    "blink.user_timing",
    "loading",
    "devtools.timeline",
    "disabled-by-default-devtools.target-rundown",
    "disabled-by-default-devtools.timeline.frame",
    "disabled-by-default-devtools.timeline.stack",
    "disabled-by-default-devtools.timeline",
    "disabled-by-default-devtools.v8-source-rundown-sources",
    "disabled-by-default-devtools.v8-source-rundown",
    "disabled-by-default-layout_shift.debug",
    "disabled-by-default-v8.inspector",
    "disabled-by-default-v8.cpu_profiler.hires",
    "disabled-by-default-lighthouse",
    "v8.execute",
    "v8",
    "cppgc",
    "navigation,rail",
    "disabled-by-default-v8.cpu_profiler",
    "disabled-by-default-devtools.screenshot",
];

/// Where Blink records how long each CSS selector took to match (`SelectorStats`
/// events after each style recalculation); it slows style recalculation down.
pub const SELECTOR_STATS_CATEGORY: &str = "disabled-by-default-blink.debug";

/// `Tracing.start`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TracingStart {
    /// `ReturnAsStream`: the trace is kept in the browser and read with `IO.read`,
    /// not pushed as `Tracing.dataCollected` events.
    pub transfer_mode: &'static str,
    /// Which categories to record.
    pub trace_config: TraceConfig,
}
command!(TracingStart, "Tracing.start", Empty);

/// The categories of a trace.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TraceConfig {
    /// Recorded.
    pub included_categories: Vec<&'static str>,
    /// Left out (`*`: all not included).
    pub excluded_categories: &'static [&'static str],
}

impl TracingStart {
    /// A trace of what the Performance panel records, read back as a stream; with
    /// `css_selector_stats`, also the CSS selector statistics its "Enable CSS selector
    /// stats" setting adds.
    pub fn performance_panel(css_selector_stats: bool) -> Self {
        let mut included_categories = TRACE_CATEGORIES.to_vec();
        if css_selector_stats {
            included_categories.push(SELECTOR_STATS_CATEGORY);
        }
        Self {
            transfer_mode: "ReturnAsStream",
            trace_config: TraceConfig {
                included_categories,
                excluded_categories: &["*"],
            },
        }
    }
}

/// `Tracing.end`: Chrome flushes the trace and then sends `Tracing.tracingComplete`.
#[derive(Debug, Serialize)]
pub struct TracingEnd {}
command!(TracingEnd, "Tracing.end", Empty);

/// `IO.read`.
#[derive(Debug, Serialize)]
pub struct IoRead {
    /// The stream.
    pub handle: String,
    /// Most bytes to read.
    pub size: usize,
}
command!(IoRead, "IO.read", IoData);

/// What `IO.read` answers.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IoData {
    /// The bytes read (base64 when `base64_encoded`).
    #[serde(default)]
    pub data: String,
    /// Whether `data` is base64.
    #[serde(default)]
    pub base64_encoded: bool,
    /// The stream has no more.
    #[serde(default)]
    pub eof: bool,
}

/// `IO.close`.
#[derive(Debug, Serialize)]
pub struct IoClose {
    /// The stream.
    pub handle: String,
}
command!(IoClose, "IO.close", Empty);
