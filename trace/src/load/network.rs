//! Network requests put together from their trace events (`ResourceWillSendRequest`,
//! `ResourceSendRequest`, `ResourceChangePriority`, `ResourceReceiveResponse`,
//! `ResourceFinish`), with the times the insights need, in trace microseconds; and the
//! requests that held up a load's first paint.
//!
//! The definitions are DevTools': a request lasts from its first send to its
//! `ResourceFinish` event; it blocks rendering when Chrome's last verdict for it
//! (`renderBlocking`, or a later `PreloadRenderBlockingStatusChange`) says so, it was
//! asked for by the load's frame and finished before the first paint — and, for a
//! request the parser met in the body, when its priority was the highest (or high, for
//! a script).

use std::collections::HashMap;

use serde_json::Value;

use crate::load::events::Event;

/// One request.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// Chrome's request id (a document's is its navigation's id).
    pub id: String,
    /// The URL (after redirects).
    pub url: String,
    /// The frame that asked for it.
    pub frame: String,
    /// When it began (its first send, before any redirect).
    pub start: f64,
    /// When the response's first byte came (`timing.requestTime` +
    /// `receiveHeadersStart`), if a response came.
    pub first_byte: Option<f64>,
    /// From sending the request to the response headers starting (ms), if known.
    pub server_ms: Option<f64>,
    /// When its body finished (`finishTime`, else the finish event).
    pub finish: Option<f64>,
    /// When Chrome was done with it: its `ResourceFinish` event.
    pub finish_event: Option<f64>,
    /// Chrome's render-blocking verdict (`blocking`, `in_body_parser_blocking`,
    /// `non_blocking`, ...; empty when it gave none).
    pub render_blocking: String,
    /// A preload's later verdict, which replaces the first.
    pub preload_blocking: Option<String>,
    /// Its final priority (`VeryHigh`, `High`, ...).
    pub priority: String,
    /// What it fetched (`Document`, `Script`, `Stylesheet`, ...).
    pub resource_type: String,
    /// The response's MIME type.
    pub mime_type: String,
    /// What started it (`parser`, `script`, `preload`, ...; `initiator.type`).
    pub initiator_type: String,
    /// The document or script that started it (`initiator.url`).
    pub initiator_url: String,
    /// Whether a `<link rel=preload>` asked for it.
    pub link_preload: bool,
    /// The page's `fetchpriority` for it (`high`, `low`, `auto`; empty without one).
    pub fetch_priority_hint: String,
    /// What its response said, when one came (the last, after any redirect).
    pub response: Option<Response>,
    /// The bytes it took on the wire, as its `ResourceFinish` counts them.
    pub encoded_length: u64,
    /// The bytes of its body once decoded (`decodedBodyLength`).
    pub decoded_length: u64,
    /// The process and thread whose send event asked for it (the last send).
    pub thread: (i64, i64),
    /// When it was last sent (after any redirect: its last send event), µs.
    pub last_send: f64,
    /// Each `ResourceSendRequest` of it (one per redirect hop, then the last): the URL
    /// asked for and when.
    pub sends: Vec<(String, f64)>,
    /// When each of its `ResourceWillSendRequest` events came, µs.
    pub will_sends: Vec<f64>,
    /// The script URL of each frame on the stack that sent it (`stackTrace`, innermost
    /// first; empty for a frame without one).
    pub stack_urls: Vec<String>,
    /// How a script fetched it (`initiator.fetchType`: `fetch`, `xmlhttprequest`).
    pub fetch_type: String,
    /// When its response headers had all come (`timing.requestTime` +
    /// `receiveHeadersEnd`), µs; `None` without timing or when served from memory.
    pub headers_end: Option<f64>,
    /// Whether Chrome served it from its memory cache (`ResourceMarkAsCached`).
    pub memory_cached: bool,
    /// Whether it failed (`didFail`).
    pub failed: bool,
}

/// A response, as `ResourceReceiveResponse` gives it: read once here for every insight
/// that looks at headers, statuses or protocols.
#[derive(Debug, Clone, Default)]
pub struct Response {
    /// Its headers (`None` when the trace gives none, as an older Chrome's does).
    pub headers: Option<Vec<Value>>,
    /// Its HTTP status.
    pub status: i64,
    /// Its protocol (`http/1.1`, `h2`, `data`...).
    pub protocol: String,
    /// Whether a service worker answered it.
    pub from_service_worker: bool,
    /// Whether Chrome says it came from a cache (`fromCache`).
    pub from_cache: bool,
    /// When the request was sent (`timing.requestTime` + `sendStart`), µs.
    pub send_start: Option<f64>,
}

/// A header's value (names compared without case; repeated ones joined by `, `).
pub fn header(headers: &[Value], name: &str) -> Option<String> {
    let values: Vec<&str> = headers
        .iter()
        .filter(|h| {
            h["name"]
                .as_str()
                .is_some_and(|n| n.eq_ignore_ascii_case(name))
        })
        .filter_map(|h| h["value"].as_str())
        .collect();
    (!values.is_empty()).then(|| values.join(", "))
}

/// One hop of a redirected request: the URL asked for, and from when to when.
#[derive(Debug, Clone, PartialEq)]
pub struct Redirect {
    /// The URL that redirected.
    pub url: String,
    /// When it was asked for, µs.
    pub start: f64,
    /// When the next hop was asked for, µs.
    pub end: f64,
}

impl Request {
    /// The URL first asked for (before any redirect: what the page's elements name).
    pub fn original_url(&self) -> &str {
        self.sends.first().map_or(self.url.as_str(), |(url, _)| url)
    }

    /// The hops before its last URL, in order (none without a redirect): each from its
    /// send (its will-send, when both it and the next hop's are in the trace) to the
    /// next one's.
    pub fn redirects(&self) -> Vec<Redirect> {
        self.sends
            .windows(2)
            .enumerate()
            .map(|(i, pair)| {
                let (start, end) = match (self.will_sends.get(i), self.will_sends.get(i + 1)) {
                    (Some(a), Some(b)) => (*a, *b),
                    _ => (pair[0].1, pair[1].1),
                };
                Redirect {
                    url: pair[0].0.clone(),
                    start,
                    end,
                }
            })
            .collect()
    }

    /// Whether it was served from the disk cache: a cached response no service worker
    /// gave, with no bytes on the wire.
    pub fn disk_cached(&self) -> bool {
        self.response
            .as_ref()
            .is_some_and(|r| r.from_cache && !r.from_service_worker)
            && self.finish_event.is_some()
            && self.encoded_length == 0
    }

    /// When it ended: its finish, else its start.
    pub fn end(&self) -> f64 {
        self.finish.unwrap_or(self.start)
    }

    /// How long Chrome took over it: from its start to its finish event, µs.
    pub fn duration(&self) -> f64 {
        self.finish_event.unwrap_or(self.start) - self.start
    }

    /// Whether Chrome said it blocks rendering (without a verdict: it does not).
    pub fn blocks_render(&self) -> bool {
        let verdict = self
            .preload_blocking
            .as_deref()
            .unwrap_or(&self.render_blocking);
        !matches!(
            verdict,
            "" | "non_blocking" | "dynamically_injected_non_blocking" | "potentially_blocking"
        )
    }

    /// Whether it held up a first paint: blocking, and for a request the parser met in
    /// the body, of the highest priority (a script: high).
    pub fn held_up_paint(&self) -> bool {
        if !self.blocks_render() {
            return false;
        }
        if self.preload_blocking.is_none() && self.render_blocking == "in_body_parser_blocking" {
            return self.priority == "VeryHigh"
                || (self.resource_type == "Script" && self.priority == "High");
        }
        true
    }
}

fn number(value: &Value) -> Option<f64> {
    value.as_f64()
}

/// Every request of the trace, in the order they began.
pub fn requests(events: &[Event]) -> Vec<Request> {
    let mut by_id: HashMap<String, Request> = HashMap::new();
    let mut order: Vec<String> = Vec::new();
    for event in events {
        let id = event.data_str("requestId");
        if id.is_empty() {
            continue;
        }
        let data = event.data();
        match event.name.as_str() {
            "ResourceWillSendRequest" | "ResourceSendRequest" => {
                let request = by_id.entry(id.to_owned()).or_insert_with(|| {
                    order.push(id.to_owned());
                    Request {
                        id: id.to_owned(),
                        start: event.ts,
                        ..Request::default()
                    }
                });
                request.last_send = event.ts;
                if event.name == "ResourceWillSendRequest" {
                    request.will_sends.push(event.ts);
                }
                if event.name == "ResourceSendRequest" {
                    request
                        .sends
                        .push((event.data_str("url").to_owned(), event.ts));
                    request.thread = (event.pid, event.tid);
                    request.stack_urls = data["stackTrace"]
                        .as_array()
                        .map(|frames| {
                            frames
                                .iter()
                                .map(|f| f["url"].as_str().unwrap_or_default().to_owned())
                                .collect()
                        })
                        .unwrap_or_default();
                    request.url = event.data_str("url").to_owned();
                    request.frame = event.data_str("frame").to_owned();
                    request.render_blocking = event.data_str("renderBlocking").to_owned();
                    request.priority = event.data_str("priority").to_owned();
                    request.resource_type = event.data_str("resourceType").to_owned();
                    let initiator = &data["initiator"];
                    request.initiator_type =
                        initiator["type"].as_str().unwrap_or_default().to_owned();
                    request.initiator_url =
                        initiator["url"].as_str().unwrap_or_default().to_owned();
                    request.fetch_type = initiator["fetchType"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned();
                    request.link_preload = data["isLinkPreload"].as_bool() == Some(true);
                    request.fetch_priority_hint = event.data_str("fetchPriorityHint").to_owned();
                }
            }
            "ResourceChangePriority" => {
                if let (Some(request), Some(priority)) =
                    (by_id.get_mut(id), data["priority"].as_str())
                {
                    request.priority = priority.to_owned();
                }
            }
            "ResourceReceiveResponse" => {
                let Some(request) = by_id.get_mut(id) else {
                    continue;
                };
                request.mime_type = event.data_str("mimeType").to_owned();
                let timing = &data["timing"];
                request.response = Some(Response {
                    headers: data["headers"].as_array().cloned(),
                    status: data["statusCode"].as_i64().unwrap_or(0),
                    protocol: event.data_str("protocol").to_owned(),
                    from_service_worker: data["fromServiceWorker"].as_bool() == Some(true),
                    from_cache: data["fromCache"].as_bool() == Some(true),
                    send_start: number(&timing["requestTime"])
                        .zip(number(&timing["sendStart"]))
                        .map(|(time, send)| time * 1e6 + send * 1e3),
                });
                request.headers_end = number(&timing["requestTime"])
                    .zip(number(&timing["receiveHeadersEnd"]))
                    .map(|(time, end)| time * 1e6 + end * 1e3);
                if let Some(sent) = number(&timing["requestTime"]) {
                    let headers = number(&timing["receiveHeadersStart"])
                        .or_else(|| number(&timing["receiveHeadersEnd"]));
                    if let Some(headers) = headers {
                        request.first_byte = Some(sent * 1e6 + headers * 1e3);
                        if let Some(send_end) = number(&timing["sendEnd"]) {
                            request.server_ms = Some((headers - send_end).max(0.0));
                        }
                    }
                }
            }
            "ResourceFinish" => {
                let Some(request) = by_id.get_mut(id) else {
                    continue;
                };
                request.finish = match number(&data["finishTime"]) {
                    Some(seconds) if seconds > 0.0 => Some(seconds * 1e6),
                    _ => Some(event.ts),
                };
                request.finish_event = Some(event.ts);
                request.failed = data["didFail"].as_bool() == Some(true);
                let encoded = number(&data["encodedDataLength"]).unwrap_or(0.0);
                request.encoded_length = encoded.max(0.0) as u64;
                let decoded = number(&data["decodedBodyLength"]).unwrap_or(0.0);
                request.decoded_length = decoded.max(0.0) as u64;
            }
            "ResourceMarkAsCached" => {
                if let Some(request) = by_id.get_mut(id) {
                    request.memory_cached = true;
                }
            }
            "PreloadRenderBlockingStatusChange" => {
                if let (Some(request), Some(verdict)) =
                    (by_id.get_mut(id), data["renderBlocking"].as_str())
                {
                    request.preload_blocking = Some(verdict.to_owned());
                }
            }
            _ => {}
        }
    }
    let mut found: Vec<Request> = order
        .into_iter()
        .filter_map(|id| by_id.remove(&id))
        .filter(|r| !r.url.is_empty())
        .collect();
    for request in &mut found {
        if request.memory_cached {
            request.headers_end = None;
        }
    }
    found
}
