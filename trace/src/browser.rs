//! What a trace recorded through `chrome.debugger` lacks for DevTools, added to the
//! saved file.
//!
//! Such a trace holds the tab's renderer only: none of the browser process's events,
//! among them `TracingStartedInBrowser`, which names the frames in the trace and which
//! of them is the tab's main frame. DevTools' trace engine (the Performance panel's)
//! takes its main frame from that event and drops the navigations of frames it did not
//! name, so without it a recorded load has no insights there: no LCP, no CLS, no
//! render-blocking requests. [`devtools_start`] writes the one event it needs — the
//! main frame, its URL and renderer, at the trace's start — and [`with_event`] adds
//! it to the file, which then opens with the same insights tabwire computes.
//! tabwire's own analysis does not need it: it reads the navigations themselves.

use serde_json::json;

use crate::load::events::Event;

/// The name of the event DevTools needs.
const STARTED: &str = "TracingStartedInBrowser";

/// The event that names the main frame when the trace has no page load in it: the
/// main frame's LCP candidate, else its layer tree.
fn main_frame(events: &[Event]) -> Option<(&Event, &str)> {
    let paint = events
        .iter()
        .filter(|e| {
            e.name == "largestContentfulPaint::Candidate"
                && e.data()["isOutermostMainFrame"].as_bool() == Some(true)
        })
        .find_map(|e| e.args["frame"].as_str().map(|f| (e, f)));
    let layers = || {
        events
            .iter()
            .filter(|e| e.name == "SetLayerTreeId")
            .find_map(|e| e.data()["frame"].as_str().map(|f| (e, f)))
    };
    paint.or_else(layers).filter(|(_, frame)| !frame.is_empty())
}

/// The tab's main frame in a trace without a page load: the one
/// `TracingStartedInBrowser` names (a file saved by DevTools or by tabwire has it), else
/// the one its paints or layers name. A trace's figures are that frame's, as in
/// DevTools: an iframe's paints and layouts are not the page's.
pub fn main_frame_id(events: &[Event]) -> Option<String> {
    let started = events
        .iter()
        .filter(|e| e.name == STARTED)
        .flat_map(|e| e.data()["frames"].as_array().into_iter().flatten())
        .find(|f| f["isOutermostMainFrame"].as_bool() == Some(true))
        .and_then(|f| f["frame"].as_str())
        .filter(|f| !f.is_empty());
    started
        .or_else(|| main_frame(events).map(|(_, frame)| frame))
        .map(str::to_owned)
}

/// The `TracingStartedInBrowser` event DevTools needs, as JSON; `None` when the trace
/// has one already or names no main frame. The main frame is that of the trace's first
/// page load (as [`crate::load::navigations`] finds them), else the one its paints or layers
/// name; `page_url` is the tab's URL, for a trace without a page load.
pub fn devtools_start(events: &[Event], page_url: &str) -> Option<String> {
    if events.iter().any(|e| e.name == STARTED) {
        return None;
    }
    let (frame, url, pid, tid) = match crate::load::navigations(events).into_iter().next() {
        Some(nav) => (nav.frame, nav.url, nav.pid, nav.tid),
        None => {
            let (event, frame) = main_frame(events)?;
            (frame.to_owned(), page_url.to_owned(), event.pid, event.tid)
        }
    };
    if frame.is_empty() {
        return None;
    }
    let start = events.iter().map(|e| e.ts).find(|ts| *ts > 0.0)?;
    Some(
        json!({
            "name": STARTED,
            "cat": "disabled-by-default-devtools.timeline",
            "ph": "I",
            "s": "t",
            "pid": pid,
            "tid": tid,
            "ts": start,
            "args": {"data": {
                "frames": [{
                    "frame": frame,
                    "url": url,
                    "name": "",
                    "processId": pid,
                    "isOutermostMainFrame": true,
                    "isInPrimaryMainFrame": true,
                }],
                "persistentIds": true,
            }},
        })
        .to_string(),
    )
}

/// `bytes` (a trace file, `{"traceEvents": [...], ...}` or a bare array) with `event`
/// first in its events; unchanged if it is neither.
pub fn with_event(bytes: Vec<u8>, event: &str) -> Vec<u8> {
    let list = match find(&bytes, b"\"traceEvents\"") {
        Some(key) => find(&bytes[key..], b"[").map(|i| key + i),
        None => bytes
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .filter(|&i| bytes[i] == b'['),
    };
    let Some(open) = list else {
        return bytes;
    };
    let empty = bytes[open + 1..]
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| *b == b']');
    let mut out = Vec::with_capacity(bytes.len() + event.len() + 1);
    out.extend_from_slice(&bytes[..=open]);
    out.extend_from_slice(event.as_bytes());
    if !empty {
        out.push(b',');
    }
    out.extend_from_slice(&bytes[open + 1..]);
    out
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn events(trace: &Value) -> Vec<Event> {
        crate::load::events::parse(trace.to_string().as_bytes()).expect("a trace")
    }

    #[test]
    fn a_renderer_only_trace_gets_the_main_frame_of_its_first_load_at_its_start() {
        let trace = json!({"traceEvents": [
            {"name": "RunTask", "ph": "X", "ts": 900.0, "dur": 5.0, "pid": 4, "tid": 5, "args": {}},
            {"name": "navigationStart", "ph": "R", "ts": 950.0, "pid": 4, "tid": 5,
             "args": {"frame": "F0", "data": {"documentLoaderURL": "",
                      "isLoadingMainFrame": true, "navigationId": "N0"}}},
            {"name": "navigationStart", "ph": "R", "ts": 1000.0, "pid": 4, "tid": 5,
             "args": {"frame": "F1", "data": {"documentLoaderURL": "https://a.test/",
                      "isLoadingMainFrame": true, "navigationId": "N"}}}
        ], "metadata": {}});
        let event = devtools_start(&events(&trace), "https://later.test/").expect("an event");
        let saved = with_event(trace.to_string().into_bytes(), &event);
        let saved: Value = serde_json::from_slice(&saved).expect("still JSON");
        let first = &saved["traceEvents"][0];
        assert_eq!(first["name"], STARTED);
        assert_eq!(first["ts"], 900.0);
        let frame = &first["args"]["data"]["frames"][0];
        assert_eq!(frame["frame"], "F1");
        assert_eq!(frame["url"], "https://a.test/");
        assert_eq!(frame["processId"], 4);
        assert_eq!(saved["traceEvents"].as_array().map(Vec::len), Some(4));
    }

    #[test]
    fn without_a_navigation_the_layer_tree_names_the_frame_and_the_tab_its_url() {
        let trace = json!([
            {"name": "SetLayerTreeId", "ph": "I", "ts": 10.0, "pid": 4, "tid": 5,
             "args": {"data": {"frame": "F2", "layerTreeId": 2}}}
        ]);
        let event = devtools_start(&events(&trace), "https://tab.test/").expect("an event");
        let saved = with_event(trace.to_string().into_bytes(), &event);
        let saved: Value = serde_json::from_slice(&saved).expect("still JSON");
        assert_eq!(saved[0]["args"]["data"]["frames"][0]["frame"], "F2");
        assert_eq!(
            saved[0]["args"]["data"]["frames"][0]["url"],
            "https://tab.test/"
        );
    }

    #[test]
    fn a_trace_with_the_event_or_without_a_frame_is_left_alone() {
        let has = json!([{"name": STARTED, "ph": "I", "ts": 1.0, "pid": 1, "tid": 1, "args": {}}]);
        assert!(devtools_start(&events(&has), "").is_none());
        let none = json!({"traceEvents": []});
        assert!(devtools_start(&events(&none), "").is_none());
        let saved = with_event(none.to_string().into_bytes(), "{}");
        let saved: Value = serde_json::from_slice(&saved).expect("still JSON");
        assert_eq!(saved["traceEvents"], json!([{}]));
    }
}
