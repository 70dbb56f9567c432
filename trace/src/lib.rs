//! Performance insights computed from a recorded trace, in Rust.
//!
//! [`analyze`] reads the trace's events ([`events`]) and its network requests
//! ([`network`]) and, per page load ("insight set": one per main-frame navigation, or
//! one for the whole trace when it holds none), works out Core Web Vitals and what
//! caused them: LCP with its breakdown and element ([`lcp`]), CLS with the shifting
//! elements ([`cls`]), long main-thread tasks and the scripts that ran in them
//! ([`tasks`]), render-blocking requests and the document request's latency, INP
//! with its phases ([`inp`]), forced reflows ([`reflow`]), DOM size
//! ([`dom_size`]), how the LCP image was discovered ([`discovery`]) and the main
//! thread's CPU profile, a bottom-up table of the functions that ran ([`cpu_profile`]
//! assembles V8's samples, [`bottom_up`] counts them), and how the load's requests
//! were served: third parties, cache lifetimes, images, HTTP versions, fonts (a module
//! each). The figures follow the
//! definitions of DevTools' own trace engine, so the two can be checked against each
//! other (`scripts/trace-check`). [`text`] writes the summary and each insight's
//! details; [`browser`] adds to a saved file what the Performance panel needs and the
//! extension's debugger does not record.
//!
//! Elements are named by their backend node ids as the trace records them; the tool
//! turns those into snapshot uids where it can ([`elements`]).

pub mod bottom_up;
pub mod browser;
pub mod cache;
pub mod charset;
pub mod cls;
pub mod context;
pub mod cpu_profile;
pub mod discovery;
pub mod dom_size;
pub mod elements;
pub mod events;
pub mod font_display;
pub mod format;
pub mod image_delivery;
pub mod inp;
pub mod insight;
pub mod lcp;
pub mod modern_http;
pub mod network;
pub mod network_dependency_tree;
pub mod not_computed;
pub mod page_graph;
pub mod preconnect;
pub mod reflow;
pub mod slow_css_selector;
pub mod tasks;
pub mod text;
pub mod third_parties;
pub mod viewport;

use serde::Serialize;
use serde_json::{json, Value};

use context::LoadContext;
use events::Event;
use format::duration;
use insight::Insight;
pub use insight::INSIGHT_NAMES;

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

/// The insights of one page load (or of the whole trace, without one).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InsightSet {
    /// What `performance_analyze_insight` calls it: the navigation's id, or
    /// `NO_NAVIGATION`.
    pub id: String,
    /// The page loaded (empty without a navigation).
    pub url: String,
    /// Largest Contentful Paint.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lcp: Option<lcp::Lcp>,
    /// Cumulative Layout Shift.
    pub cls: cls::Cls,
    /// Main-thread tasks over 50 ms.
    pub long_tasks: Vec<tasks::LongTask>,
    /// Requests that held up the first render.
    pub render_blocking: Vec<BlockingRequest>,
    /// The main document's request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub document: Option<DocumentLatency>,
    /// The chains of critical requests the load waited on.
    pub network_dependency_tree: network_dependency_tree::NetworkDependencyTree,
    /// Whether the tab drew any frame (a hidden tab draws none: then there is no paint
    /// to measure, and no LCP, CLS or render-blocking request).
    pub drew_frames: bool,
    /// Interaction to Next Paint, when the page was interacted with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inp: Option<inp::Inp>,
    /// Layouts and style recalculations scripts forced.
    pub forced_reflows: reflow::ForcedReflows,
    /// The size of the DOM and the updates it made slow.
    pub dom_size: dom_size::DomSize,
    /// The main thread's CPU profile (when the trace sampled it within the load): the
    /// functions that ran most.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_profile: Option<bottom_up::CpuProfile>,
    /// The sites the load fetched from and ran, the page's own among them.
    pub third_parties: third_parties::ThirdParties,
    /// Static resources served with no or a short cache lifetime.
    pub cache: cache::Cache,
    /// Images that cost more bytes than they need.
    pub image_delivery: image_delivery::ImageDelivery,
    /// Requests over HTTP/1.x that HTTP/2 would multiplex.
    pub modern_http: modern_http::ModernHttp,
    /// Whether the page is optimized for mobile screens.
    pub viewport: viewport::Viewport,
    /// Whether the page declares its character encoding in time (a page load only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub character_set: Option<charset::CharacterSet>,
    /// Web fonts whose text stays invisible while they load.
    pub font_display: font_display::FontDisplay,
    /// The CSS selectors style recalculation spent its time on (when recorded).
    pub slow_css_selector: slow_css_selector::SlowCssSelector,
}

/// A render-blocking request.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BlockingRequest {
    /// Its URL.
    pub url: String,
    /// From its start to its end, ms.
    pub duration_ms: f64,
    /// When it began, ms from the navigation.
    pub start_ms: f64,
}

/// The main document's request.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DocumentLatency {
    /// Its URL.
    pub url: String,
    /// From the navigation to the first byte of the response, ms.
    pub ttfb_ms: f64,
    /// From sending the request to the response starting, ms (server time).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_ms: Option<f64>,
    /// From the navigation to the end of the document's download, ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loaded_ms: Option<f64>,
}

/// The id of the set for a trace without a navigation.
pub const NO_NAVIGATION: &str = "NO_NAVIGATION";

/// A main-frame navigation in the trace.
#[derive(Debug, Clone)]
pub struct Navigation {
    /// Its id (`args.data.navigationId`).
    pub id: String,
    /// Its frame.
    pub frame: String,
    /// The URL loaded.
    pub url: String,
    /// When it started (µs).
    pub ts: f64,
    /// When the next one started, or the trace's end (µs).
    pub until: f64,
    /// The renderer's process and main thread.
    pub pid: i64,
    /// The renderer's main thread.
    pub tid: i64,
}

/// The main-frame navigations of a trace, in order (`navigationStart` of a main frame
/// loading a web page).
pub fn navigations(events: &[Event]) -> Vec<Navigation> {
    let end = events.iter().map(Event::end).fold(0.0, f64::max);
    let mut found: Vec<Navigation> = events
        .iter()
        .filter(|e| e.name == "navigationStart")
        .filter(|e| e.data()["isLoadingMainFrame"].as_bool() == Some(true))
        .filter_map(|e| {
            let url = e.data_str("documentLoaderURL");
            let web =
                url.starts_with("http:") || url.starts_with("https:") || url.starts_with("file:");
            let id = e.data_str("navigationId");
            (web && !id.is_empty()).then(|| Navigation {
                id: id.to_owned(),
                frame: e.args["frame"].as_str().unwrap_or_default().to_owned(),
                url: url.to_owned(),
                ts: e.ts,
                until: end,
                pid: e.pid,
                tid: e.tid,
            })
        })
        .collect();
    for i in 1..found.len() {
        found[i - 1].until = found[i].ts;
    }
    found
}

/// Everything [`analyze`] finds in a trace's bytes.
pub fn analyze_bytes(bytes: &[u8]) -> Result<Report, String> {
    Ok(analyze(&events::parse(bytes)?))
}

/// The insights of a trace's events (sorted by time).
pub fn analyze(events: &[Event]) -> Report {
    let trace = context::Trace::new(events);
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

impl InsightSet {
    /// Every insight of the load `load`.
    pub fn compute(load: &LoadContext) -> InsightSet {
        InsightSet {
            id: load.id().to_owned(),
            url: load.url().to_owned(),
            lcp: lcp::LcpBreakdownInsight::compute(load),
            cls: cls::ClsCulpritsInsight::compute(load),
            long_tasks: tasks::LongTasksInsight::compute(load),
            render_blocking: network::RenderBlockingInsight::compute(load),
            document: DocumentLatencyInsight::compute(load),
            network_dependency_tree: network_dependency_tree::NetworkDependencyTreeInsight::compute(
                load,
            ),
            drew_frames: events::drew_frames(load.events(), load.from, load.until),
            inp: inp::InpBreakdownInsight::compute(load),
            forced_reflows: reflow::ForcedReflowInsight::compute(load),
            dom_size: dom_size::DomSizeInsight::compute(load),
            cpu_profile: bottom_up::CpuProfileInsight::compute(load),
            third_parties: third_parties::ThirdPartiesInsight::compute(load),
            cache: cache::CacheInsight::compute(load),
            image_delivery: image_delivery::ImageDeliveryInsight::compute(load),
            modern_http: modern_http::ModernHttpInsight::compute(load),
            viewport: viewport::ViewportInsight::compute(load),
            character_set: charset::CharacterSetInsight::compute(load),
            font_display: font_display::FontDisplayInsight::compute(load),
            slow_css_selector: slow_css_selector::SlowCssSelectorInsight::compute(load),
        }
    }
}

/// The DocumentLatency insight: how long the main document's request took (a page
/// load only).
pub struct DocumentLatencyInsight;

impl Insight for DocumentLatencyInsight {
    const NAME: &'static str = "DocumentLatency";
    type Data = Option<DocumentLatency>;

    fn compute(load: &LoadContext) -> Option<DocumentLatency> {
        let (nav, document) = (load.nav?, load.document?);
        let first_byte = document.first_byte?;
        Some(DocumentLatency {
            url: document.url.clone(),
            ttfb_ms: (first_byte - nav.ts) / 1e3,
            server_ms: document.server_ms,
            loaded_ms: document.finish.map(|f| (f - nav.ts) / 1e3),
        })
    }

    fn summary(set: &InsightSet) -> Vec<String> {
        let Some(doc) = &set.document else {
            return Vec::new();
        };
        let mut line = format!(
            "- DocumentLatency: first byte after {}",
            duration(doc.ttfb_ms)
        );
        if let Some(server) = doc.server_ms {
            line += &format!(" ({} of it server time)", duration(server));
        }
        line += ".";
        vec![line]
    }

    fn details(set: &InsightSet, lines: &mut Vec<String>) -> Value {
        match &set.document {
            None => lines.push("The document's request is not in the trace.".into()),
            Some(d) => {
                lines.push(format!("Document: {}.", d.url));
                lines.push(format!("- Time to first byte: {}", duration(d.ttfb_ms)));
                if let Some(s) = d.server_ms {
                    lines.push(format!("- Server response time: {}", duration(s)));
                }
                if let Some(l) = d.loaded_ms {
                    lines.push(format!("- Downloaded after: {}", duration(l)));
                }
            }
        }
        json!(set.document)
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
