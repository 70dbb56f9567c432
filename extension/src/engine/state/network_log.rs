//! Network requests: collected per tab from `Network.*` events, kept in a bounded
//! ring, listed as summaries and read back in full with headers and bodies.
//!
//! Each hop of a redirect chain is its own entry (CDP reuses the request id; the
//! earlier hop gets the redirect response). Headers are the ones Chrome sent and got,
//! merged with the raw ones of the `*ExtraInfo` events (cookies included): all of
//! them, as the host redacts what it must. Bodies are fetched only when one request is
//! asked for: the request body from the event or `Network.getRequestPostData`, the
//! response body with `Network.getResponseBody`, each capped at [`MAX_BODY_BYTES`];
//! a body Chrome no longer has is left out. A request body the event carries is kept
//! when short ([`MAX_KEPT_POST_DATA`]); a longer one is asked for like the others.
//!
//! What is kept per tab is bounded in count ([`NETWORK_REQUESTS_KEPT`]) and in bytes
//! ([`NETWORK_BYTES_KEPT`]: URLs, headers and kept bodies); the oldest requests go
//! first, and a listing says how many of its navigations' requests went. The
//! `NetworkRequests` and `GetNetworkRequest` commands (`engine/network.rs`) read it and
//! fetch the bodies.

use std::collections::{BTreeMap, HashMap, VecDeque};

use serde_json::Value;
use tabwire_shared::{
    Body, Dropped, NetworkList, NetworkRequest, NETWORK_BYTES_KEPT, NETWORK_REQUESTS_KEPT,
};

use crate::cdp::events::NetworkEvent;
use crate::cdp::network::{Headers, RequestWillBeSent, Response};
use crate::engine::bounded::{let_go_oldest, Bounds, Kept};

/// Longest body returned (longer ones are cut and marked `truncated`).
pub const MAX_BODY_BYTES: usize = 10 << 20;

/// Longest URL shown in a list (data: URLs can be megabytes).
const LIST_URL_CHARS: usize = 200;

/// Longest URL kept.
const MAX_URL_CHARS: usize = 10_000;

/// Most `*ExtraInfo` events kept while waiting for their request.
const MAX_PENDING_EXTRA: usize = 100;

/// Longest request body kept from the event; a longer one is fetched when asked for.
pub const MAX_KEPT_POST_DATA: usize = 64 << 10;

/// Longest header value kept.
const MAX_HEADER_CHARS: usize = 16_000;

/// Most headers kept per request and direction.
const MAX_HEADERS: usize = 500;

/// What one kept request costs beyond its strings.
const REQUEST_OVERHEAD: usize = 320;

/// One request as collected.
#[derive(Debug)]
struct Entry {
    generation: u64,
    cdp_id: String,
    loader: String,
    started_at: f64,
    summary: NetworkRequest,
    request_headers: BTreeMap<String, String>,
    response_headers: BTreeMap<String, String>,
    post_data: Option<String>,
    has_post_data: bool,
    finished: bool,
    /// What the entry cost when last measured.
    bytes: usize,
}

impl Kept for Entry {
    fn generation(&self) -> u64 {
        self.generation
    }
    fn bytes(&self) -> usize {
        self.bytes
    }
}

impl Entry {
    /// About how many bytes the entry holds: its strings and a fixed overhead.
    fn cost(&self) -> usize {
        let headers = |h: &BTreeMap<String, String>| -> usize {
            h.iter().map(|(k, v)| k.len() + v.len() + 48).sum()
        };
        let summary = &self.summary;
        REQUEST_OVERHEAD
            + self.cdp_id.len()
            + self.loader.len()
            + summary.method.len()
            + summary.url.len()
            + summary.resource_type.len()
            + summary.status_text.as_ref().map_or(0, String::len)
            + summary.failure.as_ref().map_or(0, String::len)
            + summary.mime_type.as_ref().map_or(0, String::len)
            + headers(&self.request_headers)
            + headers(&self.response_headers)
            + self.post_data.as_ref().map_or(0, String::len)
    }
}

/// One tab's requests, oldest first, within [`NETWORK_REQUESTS_KEPT`] requests and
/// [`NETWORK_BYTES_KEPT`] bytes.
#[derive(Debug, Default)]
pub struct NetworkLog {
    entries: VecDeque<Entry>,
    /// The sum of the kept entries' costs, as last measured ([`Entry::cost`]).
    bytes: usize,
    next_id: u64,
    /// Request headers that arrived before their request.
    pending_extra: HashMap<String, Headers>,
    /// Requests let go of to stay within the bounds, by the navigation they belonged
    /// to (forgotten with it).
    dropped: BTreeMap<u64, Dropped>,
}

impl NetworkLog {
    /// Takes in a network event of navigation `generation`.
    pub fn on_event(&mut self, generation: u64, event: NetworkEvent) {
        let id = event_request_id(&event).to_owned();
        self.apply(generation, event);
        self.measure(&id);
        self.bound();
    }

    /// Brings the entry of CDP request `cdp_id` (its latest hop) to its new cost.
    fn measure(&mut self, cdp_id: &str) {
        let Some(entry) = self.latest(cdp_id) else {
            return;
        };
        let (before, now) = (entry.bytes, entry.cost());
        entry.bytes = now;
        self.bytes = self.bytes - before + now;
    }

    /// Lets go of the oldest requests while more are kept than the bounds allow (the
    /// newest always stays).
    fn bound(&mut self) {
        let bounds = Bounds {
            count: NETWORK_REQUESTS_KEPT,
            bytes: NETWORK_BYTES_KEPT,
        };
        let_go_oldest(
            &mut self.entries,
            &mut self.bytes,
            &mut self.dropped,
            bounds,
        );
    }

    /// The bytes the kept requests cost.
    #[cfg(test)]
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    fn apply(&mut self, generation: u64, event: NetworkEvent) {
        match event {
            NetworkEvent::RequestWillBeSent(sent) => self.on_request(generation, sent),
            NetworkEvent::ResponseReceived(received) => {
                if let Some(entry) = self.latest(&received.request_id) {
                    apply_response(entry, &received.response);
                }
            }
            NetworkEvent::LoadingEnded(ended) => {
                if let Some(entry) = self.latest(&ended.request_id) {
                    entry.finished = ended.error_text.is_none();
                    entry.summary.duration_ms =
                        Some(((ended.timestamp - entry.started_at) * 1000.0).max(0.0));
                    if let Some(error) = ended.error_text {
                        entry.summary.failure = Some(error);
                    }
                }
            }
            NetworkEvent::RequestExtraInfo(extra) => match self.latest(&extra.request_id) {
                Some(entry) if entry.summary.status.is_none() => {
                    merge(&mut entry.request_headers, &extra.headers)
                }
                _ => {
                    if self.pending_extra.len() >= MAX_PENDING_EXTRA {
                        self.pending_extra.clear();
                    }
                    self.pending_extra.insert(extra.request_id, extra.headers);
                }
            },
            NetworkEvent::ResponseExtraInfo(extra) => {
                if let Some(entry) = self.latest(&extra.request_id) {
                    merge(&mut entry.response_headers, &extra.headers);
                }
            }
        }
    }

    fn on_request(&mut self, generation: u64, sent: RequestWillBeSent) {
        if let Some(redirect) = &sent.redirect_response {
            if let Some(previous) = self.latest(&sent.request_id) {
                apply_response(previous, redirect);
                previous.finished = true;
                previous.summary.duration_ms =
                    Some(((sent.timestamp - previous.started_at) * 1000.0).max(0.0));
            }
            // The hop before, now answered, costs more.
            self.measure(&sent.request_id);
        }
        self.next_id += 1;
        let mut request_headers = BTreeMap::new();
        merge(&mut request_headers, &sent.request.headers);
        if let Some(extra) = self.pending_extra.remove(&sent.request_id) {
            merge(&mut request_headers, &extra);
        }
        let url = super::console_log::shorten(&sent.request.url, MAX_URL_CHARS);
        // A long body is left to the browser, which still has it when asked.
        let has_post_data = sent.request.has_post_data || sent.request.post_data.is_some();
        let post_data = (sent.request.post_data).filter(|data| data.len() <= MAX_KEPT_POST_DATA);
        self.entries.push_back(Entry {
            generation,
            cdp_id: sent.request_id,
            loader: sent.loader_id,
            started_at: sent.timestamp,
            summary: NetworkRequest {
                id: self.next_id,
                method: sent.request.method,
                url,
                resource_type: sent.kind.unwrap_or_else(|| "Other".to_owned()),
                status: None,
                status_text: None,
                failure: None,
                mime_type: None,
                started: sent.wall_time * 1000.0,
                duration_ms: None,
                navigation: 0,
                request_headers: BTreeMap::new(),
                response_headers: BTreeMap::new(),
                request_body: None,
                response_body: None,
                bodies_unread: None,
            },
            request_headers,
            response_headers: BTreeMap::new(),
            has_post_data,
            post_data,
            finished: false,
            bytes: 0,
        });
    }

    /// The latest hop of a CDP request.
    fn latest(&mut self, cdp_id: &str) -> Option<&mut Entry> {
        self.entries.iter_mut().rev().find(|e| e.cdp_id == cdp_id)
    }

    /// Forgets the requests of navigations older than `oldest`.
    pub fn prune(&mut self, oldest: u64) {
        self.entries.retain(|e| e.generation >= oldest);
        self.bytes = self.entries.iter().map(|e| e.bytes).sum();
        self.dropped.retain(|generation, _| *generation >= oldest);
        if self.entries.is_empty() {
            self.entries.shrink_to_fit();
        }
    }

    /// Moves the requests of the document loaded by `loader` (sent while the previous
    /// document was still shown) into navigation `generation`.
    pub fn adopt(&mut self, loader: &str, generation: u64) {
        if loader.is_empty() {
            return;
        }
        for entry in self.entries.iter_mut().rev() {
            if entry.loader == loader && entry.generation + 1 == generation {
                entry.generation = generation;
            }
        }
    }

    /// Summaries of navigation `current`'s requests (and the two before with
    /// `preserved`): no headers, no bodies; and how many older ones of those
    /// navigations were let go of.
    pub fn list(&self, current: u64, preserved: bool) -> NetworkList {
        let oldest = if preserved {
            current.saturating_sub(2)
        } else {
            current
        };
        let requests = self
            .entries
            .iter()
            .filter(|e| e.generation >= oldest)
            .map(|e| NetworkRequest {
                url: super::console_log::shorten(&e.summary.url, LIST_URL_CHARS),
                navigation: current.saturating_sub(e.generation) as u32,
                ..e.summary.clone()
            })
            .collect();
        let mut dropped = Dropped::default();
        for (_, counted) in self.dropped.range(oldest..) {
            dropped.add(*counted);
        }
        NetworkList { requests, dropped }
    }

    /// One request with its headers, and what is needed to fetch its bodies.
    pub(in crate::engine) fn full(
        &self,
        current: u64,
        id: u64,
    ) -> Option<(NetworkRequest, BodySource)> {
        let entry = self.entries.iter().find(|e| e.summary.id == id)?;
        let request = NetworkRequest {
            navigation: current.saturating_sub(entry.generation) as u32,
            request_headers: entry.request_headers.clone(),
            response_headers: entry.response_headers.clone(),
            request_body: entry
                .post_data
                .as_ref()
                .map(|data| body(data.clone(), false)),
            ..entry.summary.clone()
        };
        let source = BodySource {
            cdp_id: entry.cdp_id.clone(),
            fetch_request: entry.post_data.is_none() && entry.has_post_data,
            fetch_response: entry.finished && entry.summary.status.is_some(),
        };
        Some((request, source))
    }
}

/// Where a request's bodies come from.
pub(in crate::engine) struct BodySource {
    /// Chrome's id of the request.
    pub(in crate::engine) cdp_id: String,
    /// The request body is to be asked for (the event did not carry it).
    pub(in crate::engine) fetch_request: bool,
    /// The response body is to be asked for (the response finished).
    pub(in crate::engine) fetch_response: bool,
}

fn apply_response(entry: &mut Entry, response: &Response) {
    if response.status > 0.0 && response.status < 1000.0 {
        entry.summary.status = Some(response.status as u16);
    }
    entry.summary.status_text = Some(response.status_text.clone()).filter(|s| !s.is_empty());
    entry.summary.mime_type = Some(response.mime_type.clone()).filter(|s| !s.is_empty());
    merge(&mut entry.response_headers, &response.headers);
}

fn merge(into: &mut BTreeMap<String, String>, headers: &Headers) {
    for (name, value) in headers.iter().take(MAX_HEADERS) {
        if into.len() >= MAX_HEADERS && !into.contains_key(name) {
            continue;
        }
        let value = match value {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        let name = super::console_log::keep(name.clone(), MAX_HEADER_CHARS);
        into.insert(name, super::console_log::keep(value, MAX_HEADER_CHARS));
    }
}

/// The CDP request id an event is about.
fn event_request_id(event: &NetworkEvent) -> &str {
    match event {
        NetworkEvent::RequestWillBeSent(sent) => &sent.request_id,
        NetworkEvent::ResponseReceived(received) => &received.request_id,
        NetworkEvent::LoadingEnded(ended) => &ended.request_id,
        NetworkEvent::RequestExtraInfo(extra) => &extra.request_id,
        NetworkEvent::ResponseExtraInfo(extra) => &extra.request_id,
    }
}

/// A body, cut to [`MAX_BODY_BYTES`] (base64 cut on a 4-character boundary).
pub(in crate::engine) fn body(mut data: String, base64: bool) -> Body {
    let truncated = data.len() > MAX_BODY_BYTES;
    if truncated {
        let mut cut = MAX_BODY_BYTES;
        if base64 {
            cut -= cut % 4;
        }
        while !data.is_char_boundary(cut) {
            cut -= 1;
        }
        data.truncate(cut);
    }
    Body {
        data,
        base64,
        truncated,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cdp::events::Incoming;
    use serde_json::json;

    fn sent(id: &str, url: &str, loader: &str, t: f64) -> Value {
        json!({"requestId": id, "loaderId": loader, "timestamp": t, "wallTime": 1000.0 + t,
               "type": "Fetch", "request": {"url": url, "method": "POST",
               "headers": {"Content-Type": "text/plain"}, "postData": "hi", "hasPostData": true}})
    }

    /// Feeds `log` an event as Chrome sends it.
    fn feed(log: &mut NetworkLog, method: &str, params: &Value) {
        let Some(Incoming::Network(event)) = Incoming::parse(method, params) else {
            panic!("not a network event: {method} {params}");
        };
        log.on_event(0, event);
    }

    #[test]
    fn a_request_collects_its_response_and_timing() {
        let mut log = NetworkLog::default();
        feed(
            &mut log,
            "Network.requestWillBeSent",
            &sent("r1", "https://a.test/x", "L", 1.0),
        );
        feed(
            &mut log,
            "Network.requestWillBeSentExtraInfo",
            &json!({"requestId": "r1", "headers": {"Cookie": "s=1"}}),
        );
        feed(
            &mut log,
            "Network.responseReceived",
            &json!({"requestId": "r1", "type": "Fetch",
            "response": {"url": "https://a.test/x", "status": 201, "statusText": "Created",
                         "headers": {"X-A": "1"}, "mimeType": "application/json"}}),
        );
        feed(
            &mut log,
            "Network.loadingFinished",
            &json!({"requestId": "r1", "timestamp": 1.25}),
        );
        let list = log.list(0, false).requests;
        assert_eq!(list.len(), 1);
        let r = &list[0];
        assert_eq!((r.id, r.status, r.method.as_str()), (1, Some(201), "POST"));
        assert_eq!(r.duration_ms, Some(250.0));
        assert_eq!(r.started, 1_001_000.0);
        assert!(r.request_headers.is_empty(), "lists carry no headers");
        let (full, source) = log.full(0, 1).unwrap();
        assert_eq!(
            full.request_headers.get("Cookie").map(String::as_str),
            Some("s=1")
        );
        assert_eq!(
            full.response_headers.get("X-A").map(String::as_str),
            Some("1")
        );
        assert_eq!(full.request_body.unwrap().data, "hi");
        assert!(source.fetch_response && !source.fetch_request);
    }

    #[test]
    fn redirects_are_separate_entries() {
        let mut log = NetworkLog::default();
        feed(
            &mut log,
            "Network.requestWillBeSent",
            &sent("r1", "https://a.test/old", "L", 1.0),
        );
        let mut hop = sent("r1", "https://a.test/new", "L", 1.5);
        hop["redirectResponse"] = json!({"status": 301, "statusText": "Moved", "headers": {"Location": "/new"}, "mimeType": ""});
        feed(&mut log, "Network.requestWillBeSent", &hop);
        feed(
            &mut log,
            "Network.loadingFailed",
            &json!({"requestId": "r1", "timestamp": 2.0, "errorText": "net::ERR_FAILED"}),
        );
        let list = log.list(0, false).requests;
        assert_eq!(list.len(), 2);
        assert_eq!(list[0].status, Some(301));
        assert_eq!(list[0].duration_ms, Some(500.0));
        assert_eq!(list[1].url, "https://a.test/new");
        assert_eq!(list[1].failure.as_deref(), Some("net::ERR_FAILED"));
    }

    #[test]
    fn bodies_are_capped() {
        let long = "a".repeat(MAX_BODY_BYTES + 3);
        let cut = body(long, true);
        assert!(cut.truncated);
        assert_eq!(cut.data.len() % 4, 0);
        assert!(!body("x".into(), false).truncated);
    }

    #[test]
    fn the_ring_is_bounded_in_count_and_says_so() {
        let mut log = NetworkLog::default();
        for i in 0..(NETWORK_REQUESTS_KEPT + 5) {
            feed(
                &mut log,
                "Network.requestWillBeSent",
                &sent(&format!("r{i}"), "https://a.test/", "L", 1.0),
            );
        }
        let list = log.list(0, false);
        assert_eq!(list.requests.len(), NETWORK_REQUESTS_KEPT);
        assert_eq!(list.requests[0].id, 6);
        assert_eq!(
            list.dropped,
            Dropped {
                for_count: 5,
                for_space: 0
            }
        );
    }

    /// A request whose URL and headers are about `kib` KiB.
    fn big(id: &str, kib: usize) -> Value {
        let mut request = sent(
            id,
            &format!("https://a.test/{}", "u".repeat(kib << 9)),
            "L",
            1.0,
        );
        request["request"]["headers"]["X-Big"] = json!("h".repeat(kib << 9));
        request
    }

    #[test]
    fn the_ring_is_bounded_in_bytes_oldest_first_and_says_so() {
        let mut log = NetworkLog::default();
        // 8 KiB a request (the URL is kept to 10,000 characters): far over the bytes
        // long before the count.
        for i in 0..3_000 {
            feed(
                &mut log,
                "Network.requestWillBeSent",
                &big(&format!("r{i}"), 16),
            );
        }
        assert!(log.bytes() <= NETWORK_BYTES_KEPT, "{}", log.bytes());
        let list = log.list(0, false);
        let kept = list.requests.len();
        assert!(kept < 3_000 && kept > 100, "{kept} kept");
        assert_eq!(
            list.requests.last().map(|r| r.id),
            Some(3_000),
            "the newest stay"
        );
        assert_eq!(list.dropped.for_space as usize, 3_000 - kept);
        assert_eq!(list.dropped.for_count, 0);
        // A response makes a request cost more: measured again.
        let before = log.bytes();
        feed(
            &mut log,
            "Network.responseReceived",
            &json!({"requestId": "r2999", "type": "Fetch",
            "response": {"url": "", "status": 200, "statusText": "OK",
                         "headers": {"X-Answer": "a".repeat(50_000)}, "mimeType": "text/plain"}}),
        );
        assert!(log.bytes() <= NETWORK_BYTES_KEPT);
        assert!(
            log.list(0, false).dropped.for_space as usize >= 3_000 - kept,
            "{before}"
        );
        // The navigations they belonged to gone, so is what was dropped of them.
        log.prune(1);
        assert_eq!(log.bytes(), 0);
        assert!(log.list(1, true).dropped.is_none());
    }

    #[test]
    fn a_long_request_body_is_left_to_the_browser_and_a_header_is_capped() {
        let mut log = NetworkLog::default();
        let mut request = sent("r1", "https://a.test/upload", "L", 1.0);
        request["request"]["postData"] = json!("p".repeat(MAX_KEPT_POST_DATA + 1));
        request["request"]["headers"]["X-Huge"] = json!("h".repeat(100_000));
        feed(&mut log, "Network.requestWillBeSent", &request);
        assert!(log.bytes() < 40_000, "{}", log.bytes());
        let (full, source) = log.full(0, 1).unwrap();
        assert!(full.request_body.is_none());
        assert!(source.fetch_request, "asked of the browser when wanted");
        let huge = &full.request_headers["X-Huge"];
        assert!(
            huge.ends_with("(84000 characters not kept)"),
            "{}",
            &huge[huge.len() - 40..]
        );
    }
}
