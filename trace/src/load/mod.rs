//! What a trace and each of its loads are made of, before any insight: the events
//! ([`events`]), the requests ([`network`]), V8's CPU profiles ([`profiles`]), what
//! started what ([`page_graph`]), the main-frame navigations, the renderers' main
//! threads, and one load's scope as the insights read it ([`context`]).

pub mod context;
pub mod events;
pub mod network;
pub mod page_graph;
pub mod profiles;

pub use context::{LoadContext, Trace};

use events::Event;

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

/// The main threads (`CrRendererMain`) of every renderer in the trace.
pub fn renderer_main_threads(events: &[Event]) -> Vec<(i64, i64)> {
    events
        .iter()
        .filter(|e| e.ph == "M" && e.name == "thread_name")
        .filter(|e| e.args["name"].as_str() == Some("CrRendererMain"))
        .map(|e| (e.pid, e.tid))
        .collect()
}
