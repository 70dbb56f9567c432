//! Network requests put together from their trace events (`ResourceWillSendRequest`,
//! `ResourceSendRequest`, `ResourceReceiveResponse`, `ResourceFinish`), with the times
//! the insights need, in trace microseconds.

use std::collections::HashMap;

use serde_json::Value;

use super::events::Event;

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
    /// Chrome's render-blocking verdict (`blocking`, `in_body_parser_blocking`,
    /// `non_blocking`, ...).
    pub render_blocking: String,
    /// The response's MIME type.
    pub mime_type: String,
}

impl Request {
    /// When it ended: its finish, else its start.
    pub fn end(&self) -> f64 {
        self.finish.unwrap_or(self.start)
    }

    /// Whether it held up the page's first render.
    pub fn blocks_render(&self) -> bool {
        matches!(
            self.render_blocking.as_str(),
            "blocking" | "in_body_parser_blocking"
        )
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
                if event.name == "ResourceSendRequest" {
                    request.url = event.data_str("url").to_owned();
                    request.frame = event.data_str("frame").to_owned();
                    if let Some(verdict) = data["renderBlocking"].as_str() {
                        request.render_blocking = verdict.to_owned();
                    }
                }
            }
            "ResourceReceiveResponse" => {
                let Some(request) = by_id.get_mut(id) else {
                    continue;
                };
                request.mime_type = event.data_str("mimeType").to_owned();
                let timing = &data["timing"];
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
            }
            "PreloadRenderBlockingStatusChange" => {
                if let (Some(request), Some(verdict)) =
                    (by_id.get_mut(id), data["renderBlocking"].as_str())
                {
                    request.render_blocking = verdict.to_owned();
                }
            }
            _ => {}
        }
    }
    order
        .into_iter()
        .filter_map(|id| by_id.remove(&id))
        .filter(|r| !r.url.is_empty())
        .collect()
}
