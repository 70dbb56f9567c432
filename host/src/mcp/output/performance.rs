//! A performance trace: the insights of a stopped trace, one set per page load, and
//! one insight of it in detail. The insights themselves are computed and worded in
//! the `tabwire-trace` crate.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use tabwire_trace::InsightSet;

/// The `structuredContent` keys of the performance sections.
#[derive(Debug, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Keys<'a> {
    /// A stopped trace's insights, one set per page load: insightSets (ids for
    /// performance_analyze_insight), durationMs, filePath when saved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub performance_trace: Option<Trace<'a>>,
    /// One insight of the last trace in detail.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub performance_insight: Option<Insight<'a>>,
}

/// A stopped trace's insights.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Trace<'a> {
    /// How long the trace lasts.
    pub duration_ms: f64,
    /// One set of insights per page load.
    #[schemars(with = "Vec<SetShape>")]
    pub insight_sets: &'a [InsightSet],
    /// The file the raw trace was saved to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_path: Option<String>,
}

/// The part of an insight set every other tool names it by.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct SetShape {
    /// The insightSetId performance_analyze_insight takes.
    id: String,
    /// The page loaded.
    url: String,
}

/// One insight in detail.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Insight<'a> {
    /// The set it is of.
    pub insight_set_id: &'a str,
    /// DevTools' name of the insight.
    pub insight_name: &'a str,
    /// The page loaded.
    pub url: &'a str,
    /// What the insight found.
    pub details: Value,
}

#[cfg(test)]
pub(super) fn sample() -> serde_json::Map<String, Value> {
    super::entries(&Keys {
        performance_trace: Some(Trace {
            duration_ms: 1200.5,
            insight_sets: &[],
            file_path: Some("/tmp/trace.json".into()),
        }),
        performance_insight: Some(Insight {
            insight_set_id: "NAVIGATION_0",
            insight_name: "LCPBreakdown",
            url: "http://x/",
            details: serde_json::json!({"lcpMs": 80}),
        }),
    })
}
