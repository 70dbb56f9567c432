//! Performance insights computed from a recorded trace, in Rust: events in, insights
//! out, no I/O.
//!
//! [`analyze`] reads the trace ([`load`]: its events, requests, CPU profiles and
//! main-frame navigations) and, per page load ("insight set": one per main-frame
//! navigation, or one for the whole trace when it holds none), computes every insight
//! of the table in [`insights`] (one file each: Core Web Vitals and what caused them,
//! long tasks, render-blocking and critical requests, forced reflows, DOM size, the
//! main thread's CPU profile, third parties, caching, images, HTTP versions, fonts,
//! CSS selectors). The figures follow the definitions of DevTools' own trace engine,
//! so the two can be checked against each other (`scripts/trace-check`). [`text`]
//! writes the summary and each insight's details, through the same table;
//! [`browser`] adds to a saved file what the Performance panel needs and the
//! extension's debugger does not record.
//!
//! Elements are named by their backend node ids as the trace records them; the tool
//! turns those into snapshot uids where it can ([`elements`]).

pub mod browser;
pub mod elements;
pub mod insights;
pub mod load;
pub mod text;

use serde::Serialize;

pub use insights::{insight_name_description, not_computed, InsightSet, INSIGHT_NAMES};
pub use load::events;

use load::events::Event;
use load::{LoadContext, Trace};

/// The largest trace tabwire reads (bytes of JSON).
pub const MAX_TRACE_BYTES: usize = 256 << 20;

/// Everything found in one trace.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// One set of insights per page load.
    pub insight_sets: Vec<InsightSet>,
    /// How long the trace lasts, ms.
    pub duration_ms: f64,
}

/// The id of the set for a trace without a navigation.
pub const NO_NAVIGATION: &str = "NO_NAVIGATION";

/// Everything [`analyze`] finds in a trace's bytes.
pub fn analyze_bytes(bytes: &[u8]) -> Result<Report, String> {
    Ok(analyze(&events::parse(bytes)?))
}

/// The insights of a trace's events (sorted by time).
pub fn analyze(events: &[Event]) -> Report {
    let trace = Trace::new(events);
    let loads: Vec<LoadContext> = if trace.navigations.is_empty() {
        vec![LoadContext::whole_trace(&trace)]
    } else {
        trace
            .navigations
            .iter()
            .map(|nav| LoadContext::navigation(&trace, nav))
            .collect()
    };
    Report {
        insight_sets: loads.iter().map(InsightSet::compute).collect(),
        duration_ms: (trace.end - trace.start).max(0.0) / 1e3,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    /// A load of `https://a.test/`: document first byte at 100 ms, an image requested
    /// at 150 ms and done at 900 ms, painted (the LCP) at 1200 ms; two shifts 0.3 s
    /// apart and one 2 s later; one 120 ms task, 80 ms of it in app.js.
    fn trace() -> Vec<u8> {
        let nav = 1_000_000.0;
        let ms = |v: f64| nav + v * 1e3;
        json!({"traceEvents": [
            {"name": "thread_name", "ph": "M", "pid": 1, "tid": 2, "args": {"name": "CrRendererMain"}},
            {"name": "navigationStart", "ph": "R", "ts": nav, "pid": 1, "tid": 2, "args": {"frame": "F",
                "data": {"documentLoaderURL": "https://a.test/", "isLoadingMainFrame": true, "navigationId": "N"}}},
            {"name": "ResourceSendRequest", "ph": "I", "ts": ms(1.0), "pid": 1, "tid": 2,
                "args": {"data": {"requestId": "N", "url": "https://a.test/", "frame": "F"}}},
            {"name": "ResourceReceiveResponse", "ph": "I", "ts": ms(101.0), "pid": 1, "tid": 2,
                "args": {"data": {"requestId": "N", "timing": {"requestTime": nav / 1e6, "sendEnd": 10.0, "receiveHeadersStart": 100.0}}}},
            {"name": "ResourceSendRequest", "ph": "I", "ts": ms(150.0), "pid": 1, "tid": 2,
                "args": {"data": {"requestId": "I", "url": "https://a.test/hero.png", "frame": "F", "renderBlocking": "non_blocking"}}},
            {"name": "ResourceFinish", "ph": "I", "ts": ms(905.0), "pid": 1, "tid": 2,
                "args": {"data": {"requestId": "I", "finishTime": ms(900.0) / 1e6}}},
            {"name": "LargestImagePaint::Candidate", "ph": "I", "ts": ms(1200.0), "pid": 1, "tid": 2,
                "args": {"data": {"DOMNodeId": 7, "imageUrl": "https://a.test/hero.png"}}},
            {"name": "largestContentfulPaint::Candidate", "ph": "I", "ts": ms(1200.0), "pid": 1, "tid": 2,
                "args": {"frame": "F", "data": {"navigationId": "N", "nodeId": 7, "type": "image", "isOutermostMainFrame": true}}},
            {"name": "LayoutShift", "ph": "I", "ts": ms(1300.0), "pid": 1, "tid": 2,
                "args": {"data": {"weighted_score_delta": 0.1, "impacted_nodes": [{"node_id": 9}]}}},
            {"name": "LayoutShift", "ph": "I", "ts": ms(1600.0), "pid": 1, "tid": 2,
                "args": {"data": {"weighted_score_delta": 0.05, "impacted_nodes": [{"node_id": 10}]}}},
            {"name": "LayoutShift", "ph": "I", "ts": ms(3600.0), "pid": 1, "tid": 2,
                "args": {"data": {"weighted_score_delta": 0.12}}},
            {"name": "LayoutShift", "ph": "I", "ts": ms(3700.0), "pid": 1, "tid": 2,
                "args": {"data": {"weighted_score_delta": 0.5, "had_recent_input": true}}},
            {"name": "RunTask", "ph": "X", "ts": ms(2000.0), "dur": 120e3, "pid": 1, "tid": 2, "args": {}},
            {"name": "FunctionCall", "ph": "X", "ts": ms(2010.0), "dur": 80e3, "pid": 1, "tid": 2,
                "args": {"data": {"url": "https://a.test/app.js"}}},
            {"name": "RunTask", "ph": "X", "ts": ms(2500.0), "dur": 20e3, "pid": 1, "tid": 2, "args": {}}
        ]})
        .to_string()
        .into_bytes()
    }

    #[test]
    fn an_image_lcp_breaks_down_into_first_byte_load_delay_load_and_render_delay() {
        let report = super::analyze_bytes(&trace()).expect("a trace");
        let set = &report.insight_sets[0];
        assert_eq!(set.id, "N");
        let lcp = set.lcp.as_ref().expect("an LCP");
        assert_eq!(lcp.ms.round(), 1200.0);
        assert_eq!(lcp.backend_node_id, Some(7));
        assert_eq!(lcp.image_url.as_deref(), Some("https://a.test/hero.png"));
        let b = lcp.breakdown.as_ref().expect("a breakdown");
        assert_eq!(b.ttfb_ms.round(), 100.0);
        assert_eq!(b.load_delay_ms.map(f64::round), Some(50.0));
        assert_eq!(b.load_duration_ms.map(f64::round), Some(750.0));
        assert_eq!(b.render_delay_ms.round(), 300.0);
        let summary = super::text::summary(&report).join("\n");
        assert!(
            summary.contains("LCP 1.2 s: 750 ms of it is resource load duration"),
            "{summary}"
        );
        assert!(summary.contains("backend node 7"), "{summary}");
    }

    #[test]
    fn cls_is_the_worst_cluster_without_shifts_after_input_and_long_tasks_name_scripts() {
        let report = super::analyze_bytes(&trace()).expect("a trace");
        let set = &report.insight_sets[0];
        assert!((set.cls.score - 0.15).abs() < 1e-9, "{:?}", set.cls);
        assert_eq!(set.cls.shifts.len(), 2);
        assert_eq!(set.cls.shifts[0].backend_node_ids, [9]);
        assert_eq!(set.long_tasks.len(), 1);
        assert_eq!(set.long_tasks[0].duration_ms.round(), 120.0);
        assert_eq!(set.long_tasks[0].scripts[0].url, "https://a.test/app.js");
        assert_eq!(set.long_tasks[0].scripts[0].ms.round(), 80.0);
        let doc = set.document.as_ref().expect("the document");
        assert_eq!(doc.server_ms.map(f64::round), Some(90.0));
    }

    #[test]
    fn a_file_that_is_no_trace_is_an_error_saying_so() {
        let error = super::analyze_bytes(b"{\"nope\": 1}").unwrap_err();
        assert!(error.contains("not a JSON trace"), "{error}");
    }

    #[test]
    fn without_a_navigation_an_iframes_dom_and_layouts_are_not_the_pages() {
        let trace = json!({"traceEvents": [
            {"name": "TracingStartedInBrowser", "ph": "I", "ts": 1.0, "pid": 1, "tid": 1,
             "args": {"data": {"frames": [
                 {"frame": "MAIN", "isOutermostMainFrame": true},
                 {"frame": "CHILD", "isOutermostMainFrame": false}]}}},
            {"name": "DOMStats", "ph": "I", "ts": 10.0, "pid": 1, "tid": 2,
             "args": {"data": {"frame": "MAIN", "totalElements": 120}}},
            {"name": "DOMStats", "ph": "I", "ts": 11.0, "pid": 1, "tid": 2,
             "args": {"data": {"frame": "CHILD", "totalElements": 9000}}},
            {"name": "RunTask", "ph": "X", "ts": 15.0, "dur": 50e3, "pid": 1, "tid": 2, "args": {}},
            {"name": "FunctionCall", "ph": "X", "ts": 20.0, "dur": 40e3, "pid": 1, "tid": 2,
             "args": {"data": {"functionName": "inChild", "url": "https://child.test/a.js"}}},
            {"name": "Layout", "ph": "X", "ts": 30.0, "dur": 30e3, "pid": 1, "tid": 2,
             "args": {"beginData": {"frame": "CHILD", "stackTrace": [
                 {"functionName": "inChild", "url": "https://child.test/a.js",
                  "lineNumber": 1, "columnNumber": 1, "scriptId": "9"}]}}},
            {"name": "RunTask", "ph": "X", "ts": 100e3, "dur": 10.0, "pid": 1, "tid": 2, "args": {}}
        ]});
        let report = super::analyze_bytes(trace.to_string().as_bytes()).expect("a trace");
        let set = &report.insight_sets[0];
        assert_eq!(set.id, super::NO_NAVIGATION);
        assert_eq!(set.dom_size.total_elements, Some(120));
        assert_eq!(set.forced_reflows.total_ms, 0.0, "{:?}", set.forced_reflows);
    }
}
