//! Modern HTTP: requests a load made over HTTP/1.x to an origin serving many static
//! resources, which HTTP/2 (or 3) would multiplex over one connection.
//!
//! As DevTools' engine checks them (insight `ModernHTTP`): an origin counts when six or
//! more of the load's static resources (fonts, images, media, scripts, style sheets)
//! came from it; then each of the load's requests to it over `HTTP/1.x` (or `HTTP/0.9`)
//! is listed, once per URL, unless a service worker answered it. Local servers
//! (`localhost`, `127.0.0.1`, `*.localhost`) are left out, as in development they
//! rarely speak HTTP/2. The engine also leaves out tiny responses (under 100 bytes)
//! from sites its third-party list names; tabwire has no such list and keeps them.
//! The engine's time saving comes from its network simulation, which tabwire does not
//! run: the insight lists the requests, without an estimate.

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use serde_json::{json, Value};

use crate::insights::{Insight, InsightSet};
use crate::load::network::Request;
use crate::load::LoadContext;

/// The static resources an origin must serve before multiplexing matters.
const MANY: usize = 6;

/// The resource types counted as static.
const STATIC_TYPES: [&str; 5] = ["Font", "Image", "Media", "Script", "Stylesheet"];

/// A request over an old HTTP.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OldHttp {
    /// Its URL.
    pub url: String,
    /// The protocol it used (`http/1.1`, ...).
    pub protocol: String,
    /// Its origin.
    pub origin: String,
}

/// The ModernHTTP insight of one load.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModernHttp {
    /// The requests HTTP/2 would help, in the order they began.
    pub requests: Vec<OldHttp>,
    /// How many of the load's requests went to a local server over HTTP/1.x (left out).
    pub local_http1: usize,
}

/// Whether `host` is a local server's.
fn local(host: &str) -> bool {
    host == "localhost" || host == "127.0.0.1" || host.ends_with(".localhost")
}

/// Whether a protocol is HTTP/1.x or older.
fn old(protocol: &str) -> bool {
    let p = protocol.to_ascii_lowercase();
    p.strip_prefix("http/")
        .is_some_and(|v| v.starts_with('0') || v.starts_with('1'))
}

/// The ModernHTTP insight of the requests within `[from, until]`.
pub fn modern_http(requests: &[Request], from: f64, until: f64) -> ModernHttp {
    let in_load: Vec<(&Request, url::Url)> = requests
        .iter()
        .filter(|r| r.start <= until && from < r.finish_event.unwrap_or(r.start))
        .filter_map(|r| Some((r, url::Url::parse(&r.url).ok()?)))
        .collect();
    let mut statics: HashMap<String, usize> = HashMap::new();
    for (request, url) in &in_load {
        if STATIC_TYPES.contains(&request.resource_type.as_str())
            && !url.host_str().is_some_and(local)
        {
            *statics
                .entry(url.origin().ascii_serialization())
                .or_default() += 1;
        }
    }
    let mut found = ModernHttp::default();
    let mut seen: HashSet<&str> = HashSet::new();
    for (request, url) in &in_load {
        let Some(response) = &request.response else {
            continue;
        };
        let proto = response.protocol.as_str();
        if seen.contains(&request.url.as_str()) || response.from_service_worker || !old(proto) {
            continue;
        }
        if url.host_str().is_some_and(local) {
            found.local_http1 += 1;
            continue;
        }
        let origin = url.origin().ascii_serialization();
        if statics.get(&origin).copied().unwrap_or(0) < MANY {
            continue;
        }
        seen.insert(&request.url);
        found.requests.push(OldHttp {
            url: request.url.clone(),
            protocol: proto.to_owned(),
            origin,
        });
    }
    found
}

/// The origins of `found`'s requests, with how many each.
fn origins(found: &ModernHttp) -> Vec<(String, usize)> {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for r in &found.requests {
        match counts.iter_mut().find(|(o, _)| *o == r.origin) {
            Some((_, n)) => *n += 1,
            None => counts.push((r.origin.clone(), 1)),
        }
    }
    counts
}

/// The ModernHTTP line of the summary.
pub fn line(found: &ModernHttp) -> String {
    if found.requests.is_empty() {
        let local = if found.local_http1 > 0 {
            " (requests to local servers are left out)"
        } else {
            ""
        };
        return format!(
            "- ModernHTTP: no request over HTTP/1.x to an origin of {MANY} or more static \
             resources{local}."
        );
    }
    let listed: Vec<String> = origins(found)
        .into_iter()
        .map(|(origin, n)| format!("{origin} ({n})"))
        .collect();
    format!(
        "- ModernHTTP: {} request(s) over HTTP/1.x that HTTP/2 would multiplex: {}.",
        found.requests.len(),
        listed.join(", ")
    )
}

/// The ModernHTTP details: its lines and its data.
pub fn details(found: &ModernHttp, lines: &mut Vec<String>) -> Value {
    if found.requests.is_empty() {
        lines.push(format!(
            "No request went over HTTP/1.x to an origin serving {MANY} or more of the \
             load's static resources."
        ));
    }
    for (origin, n) in origins(found) {
        lines.push(format!("{origin}: {n} request(s) over HTTP/1.x:"));
        for r in found.requests.iter().filter(|r| r.origin == origin) {
            lines.push(format!("  - {} ({})", r.url, r.protocol));
        }
    }
    if !found.requests.is_empty() {
        lines.push(
            "To do: serve these origins over HTTP/2 or HTTP/3 (tabwire runs no network \
             simulation, so gives no time saving)."
                .into(),
        );
    }
    if found.local_http1 > 0 {
        lines.push(format!(
            "{} request(s) to a local server (localhost, 127.0.0.1) over HTTP/1.x are left \
             out: development servers rarely speak HTTP/2.",
            found.local_http1
        ));
    }
    json!({"requests": found.requests, "localHttp1": found.local_http1})
}

/// The ModernHTTP insight: requests over HTTP/1.x that HTTP/2 would multiplex.
pub struct ModernHttpInsight;

impl Insight for ModernHttpInsight {
    const NAME: &'static str = "ModernHTTP";
    const ABOUT: &'static str = "HTTP/1.x requests HTTP/2 would multiplex";
    type Data = ModernHttp;

    fn compute(load: &LoadContext) -> ModernHttp {
        modern_http(load.requests(), load.from, load.until)
    }

    fn summary(set: &InsightSet) -> Vec<String> {
        vec![line(&set.modern_http)]
    }

    fn details(set: &InsightSet, lines: &mut Vec<String>) -> Value {
        details(&set.modern_http, lines)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{details, line, modern_http};
    use crate::load::events;
    use crate::load::network;

    /// Requests (URL, resource type, protocol), one after the other.
    fn trace(requests: &[(&str, &str, &str)]) -> Vec<events::Event> {
        let mut list = Vec::new();
        for (i, (url, kind, protocol)) in requests.iter().enumerate() {
            let id = format!("R{i}");
            let ts = 1000.0 * (i as f64 + 1.0);
            list.push(
                json!({"name": "ResourceSendRequest", "ph": "I", "ts": ts, "pid": 1, "tid": 1,
                "args": {"data": {"requestId": id, "url": url, "resourceType": kind}}}),
            );
            list.push(
                json!({"name": "ResourceReceiveResponse", "ph": "I", "ts": ts + 10.0,
                "pid": 1, "tid": 1, "args": {"data": {"requestId": id, "protocol": protocol}}}),
            );
            list.push(
                json!({"name": "ResourceFinish", "ph": "I", "ts": ts + 20.0, "pid": 1, "tid": 1,
                "args": {"data": {"requestId": id}}}),
            );
        }
        events::parse(json!(list).to_string().as_bytes()).expect("events")
    }

    #[test]
    fn an_origin_of_six_static_resources_over_http1_would_gain_from_http2() {
        let mut list = vec![("https://a.test/", "Document", "http/1.1")];
        let images: Vec<String> = (0..6).map(|i| format!("https://a.test/{i}.png")).collect();
        for url in &images {
            list.push((url, "Image", "http/1.1"));
        }
        list.push(("https://a.test/0.png", "Image", "http/1.1"));
        // Five from another origin (too few), and a modern one.
        let few: Vec<String> = (0..5).map(|i| format!("https://b.test/{i}.js")).collect();
        for url in &few {
            list.push((url, "Script", "http/1.1"));
        }
        list.push(("https://c.test/x.js", "Script", "h2"));
        let events = trace(&list);
        let found = modern_http(&network::requests(&events), 0.0, 1e9);
        let urls: Vec<&str> = found.requests.iter().map(|r| r.url.as_str()).collect();
        // The document too (it is of that origin), each URL once.
        assert_eq!(urls.len(), 7, "{urls:?}");
        assert_eq!(urls[0], "https://a.test/");
        assert!(found.requests.iter().all(|r| r.origin == "https://a.test"));
        assert_eq!(
            line(&found),
            "- ModernHTTP: 7 request(s) over HTTP/1.x that HTTP/2 would multiplex: \
             https://a.test (7)."
        );
        let mut lines = Vec::new();
        let data = details(&found, &mut lines);
        assert_eq!(data["requests"][1]["protocol"], "http/1.1");
        assert!(
            lines.contains(&"  - https://a.test/3.png (http/1.1)".to_owned()),
            "{lines:?}"
        );
    }

    #[test]
    fn local_servers_are_left_out() {
        let urls: Vec<String> = (0..8)
            .map(|i| format!("http://127.0.0.1:8000/{i}.png"))
            .collect();
        let list: Vec<(&str, &str, &str)> = urls
            .iter()
            .map(|u| (u.as_str(), "Image", "http/1.0"))
            .collect();
        let events = trace(&list);
        let found = modern_http(&network::requests(&events), 0.0, 1e9);
        assert!(found.requests.is_empty());
        assert_eq!(found.local_http1, 8);
        assert!(
            line(&found).contains("local servers are left out"),
            "{}",
            line(&found)
        );
    }
}
