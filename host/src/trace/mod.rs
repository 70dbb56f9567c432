//! Performance insights computed from a recorded trace, in Rust.
//!
//! [`analyze`] reads the trace's events ([`events`]) and its network requests
//! ([`network`]) and, per page load ("insight set": one per main-frame navigation, or
//! one for the whole trace when it holds none), works out Core Web Vitals and what
//! caused them: LCP with its breakdown and element ([`lcp`]), CLS with the shifting
//! elements ([`cls`]), long main-thread tasks and the scripts that ran in them
//! ([`tasks`]), render-blocking requests and the document request's latency. The
//! figures follow the definitions of DevTools' own trace engine, so the two can be
//! checked against each other (`scripts/trace-check`). [`text`] writes the summary and
//! each insight's details.
//!
//! Elements are named by their backend node ids as the trace records them; the tool
//! turns those into snapshot uids where it can.

pub mod cls;
pub mod events;
pub mod lcp;
pub mod network;
pub mod tasks;
pub mod text;

use serde::Serialize;

use events::Event;
use network::Request;

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

/// The insight names `performance_analyze_insight` takes, in the order the summary
/// lists them.
pub const INSIGHT_NAMES: [&str; 5] = [
    "LCPBreakdown",
    "CLSCulprits",
    "LongTasks",
    "RenderBlocking",
    "DocumentLatency",
];

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
    let start = events
        .iter()
        .map(|e| e.ts)
        .find(|ts| *ts > 0.0)
        .unwrap_or(0.0);
    let end = events.iter().map(Event::end).fold(start, f64::max);
    let requests = network::requests(events);
    let navigations = navigations(events);
    let mut insight_sets = Vec::new();
    if navigations.is_empty() {
        let main_threads = tasks::renderer_main_threads(events);
        insight_sets.push(InsightSet {
            id: NO_NAVIGATION.to_owned(),
            url: String::new(),
            lcp: None,
            cls: cls::cls(events, start, end, None),
            long_tasks: tasks::long_tasks(events, start, end, &main_threads, start),
            render_blocking: Vec::new(),
            document: None,
        });
    }
    for nav in &navigations {
        let document = requests.iter().find(|r| r.id == nav.id);
        insight_sets.push(InsightSet {
            id: nav.id.clone(),
            url: nav.url.clone(),
            lcp: lcp::lcp(events, nav, document, &requests),
            cls: cls::cls(events, nav.ts, nav.until, Some(nav)),
            long_tasks: tasks::long_tasks(events, nav.ts, nav.until, &[(nav.pid, nav.tid)], nav.ts),
            render_blocking: render_blocking(events, nav, &requests),
            document: document.and_then(|d| document_latency(nav, d)),
        });
    }
    Report {
        insight_sets,
        duration_ms: (end - start).max(0.0) / 1e3,
    }
}

fn document_latency(nav: &Navigation, document: &Request) -> Option<DocumentLatency> {
    let first_byte = document.first_byte?;
    Some(DocumentLatency {
        url: document.url.clone(),
        ttfb_ms: (first_byte - nav.ts) / 1e3,
        server_ms: document.server_ms,
        loaded_ms: document.finish.map(|f| (f - nav.ts) / 1e3),
    })
}

/// The requests of a load that blocked its render: those Chrome marked so, begun
/// before the first contentful paint (or the load's end, without one).
fn render_blocking(
    events: &[Event],
    nav: &Navigation,
    requests: &[Request],
) -> Vec<BlockingRequest> {
    let first_paint = events
        .iter()
        .filter(|e| e.name == "firstContentfulPaint" && e.ts >= nav.ts && e.ts < nav.until)
        .filter(|e| e.args["frame"].as_str() == Some(nav.frame.as_str()))
        .map(|e| e.ts)
        .next()
        .unwrap_or(nav.until);
    requests
        .iter()
        .filter(|r| r.blocks_render() && r.start >= nav.ts && r.start < first_paint)
        .map(|r| BlockingRequest {
            url: r.url.clone(),
            duration_ms: (r.end() - r.start) / 1e3,
            start_ms: (r.start - nav.ts) / 1e3,
        })
        .collect()
}
