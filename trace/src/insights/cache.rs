//! Cache lifetimes: the static resources of a load that a return visit would fetch
//! again, because their responses give no cache lifetime or a short one.
//!
//! As DevTools' engine checks them (insight `Cache`), from the response headers the
//! trace's `ResourceReceiveResponse` events carry: a request counts when it fetched
//! a font, image, media, script or style sheet over the network with status 200, 203
//! or 206; its lifetime is `Cache-Control: max-age`, else `Expires` (from the
//! response's `Date`); a response that turns caching off (`no-store`, `no-cache`,
//! `must-revalidate`, `private`, or `Pragma: no-cache` without `Cache-Control`) or has
//! a lifetime of zero or less is left alone, as is one cached 30 days or more, or long
//! enough that a return visit would find it cached over 92.5 % of the time (Chrome's
//! statistics of how old resources are when visits come back). What it would save is
//! its transfer size times the chance a return visit misses the cache.
//!
//! A trace without response headers (an older Chrome's) cannot show lifetimes: the
//! insight then says so ([`Cache::without_headers`]) rather than guessing.

use std::time::SystemTime;

use serde::Serialize;
use serde_json::{json, Value};

use crate::insights::{Insight, InsightSet};
use crate::load::network::{header, Request};
use crate::load::LoadContext;
use crate::text::format::bytes;

/// The resource types a cache lifetime matters for.
const STATIC_TYPES: [&str; 5] = ["Font", "Image", "Media", "Script", "Stylesheet"];

/// Statuses whose responses a cache keeps.
const CACHEABLE_STATUS: [i64; 3] = [200, 203, 206];

/// Hours of resource age at each tenth of return visits (0 %, 10 %, ... 100 %).
const AGE_DECILES_HOURS: [f64; 12] = [
    0.0,
    0.2,
    1.0,
    3.0,
    8.0,
    12.0,
    24.0,
    48.0,
    72.0,
    168.0,
    8760.0,
    f64::INFINITY,
];

/// Above this chance of a cache hit, a lifetime is long enough.
const ENOUGH: f64 = 0.925;

/// A static resource cached too briefly.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ShortLived {
    /// Its URL.
    pub url: String,
    /// What it is (`Script`, `Image`, ...).
    pub resource_type: String,
    /// Its cache lifetime, seconds; `None` when the response gives none.
    pub ttl_s: Option<f64>,
    /// Its `Cache-Control` header, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<String>,
    /// Bytes it took on the network (encoded).
    pub transfer_bytes: u64,
    /// The bytes a return visit would likely fetch again.
    pub wasted_bytes: f64,
}

/// The Cache insight of one load.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Cache {
    /// The short-lived resources, most bytes first.
    pub requests: Vec<ShortLived>,
    /// Their wasted bytes, in all.
    pub wasted_bytes: f64,
    /// How many static responses had their headers checked.
    pub checked: usize,
    /// How many of those turned caching off (`no-store`, `no-cache`, ...), left alone.
    pub caching_off: usize,
    /// How many static responses the trace gives no headers for.
    pub without_headers: usize,
}

/// The chance that a return visit comes within `ttl_s` seconds.
fn hit_probability(ttl_s: f64) -> f64 {
    let hours = ttl_s / 3600.0;
    let Some(upper) = AGE_DECILES_HOURS.iter().position(|d| *d >= hours) else {
        return 1.0;
    };
    if upper == AGE_DECILES_HOURS.len() - 1 {
        return 1.0;
    }
    if upper == 0 {
        return 0.0;
    }
    let (x0, x1) = (AGE_DECILES_HOURS[upper - 1], AGE_DECILES_HOURS[upper]);
    let (y0, y1) = ((upper - 1) as f64 / 10.0, upper as f64 / 10.0);
    y0 + (hours - x0) * (y1 - y0) / (x1 - x0)
}

/// The lifetime a response gives, seconds: `Some(None)` for none given; `None` when
/// it turns caching off.
fn lifetime(headers: &[Value]) -> Option<Option<f64>> {
    let cache_control = header(headers, "cache-control");
    let mut max_age = None;
    if let Some(value) = &cache_control {
        for directive in value.split(',').map(str::trim) {
            let (key, arg) = directive
                .split_once('=')
                .map_or((directive, ""), |(k, v)| (k.trim(), v.trim()));
            match key.to_ascii_lowercase().as_str() {
                "no-store" | "no-cache" | "must-revalidate" | "private" => return None,
                "max-age" => {
                    let digits: String = arg
                        .trim_matches('"')
                        .chars()
                        .take_while(|c| c.is_ascii_digit() || *c == '-')
                        .collect();
                    if let Ok(seconds) = digits.parse::<i64>() {
                        max_age = Some(seconds as f64);
                    }
                }
                _ => {}
            }
        }
    } else if header(headers, "pragma").is_some_and(|p| p.contains("no-cache")) {
        return None;
    }
    if max_age.is_some() {
        return Some(max_age);
    }
    let Some(expires) = header(headers, "expires") else {
        return Some(None);
    };
    let Ok(expires) = httpdate::parse_http_date(&expires) else {
        // An invalid date means "already expired".
        return Some(Some(0.0));
    };
    let date = header(headers, "date")
        .and_then(|d| httpdate::parse_http_date(&d).ok())
        .unwrap_or_else(SystemTime::now);
    let seconds = match expires.duration_since(date) {
        Ok(ahead) => ahead.as_secs_f64().ceil(),
        Err(behind) => -behind.duration().as_secs_f64(),
    };
    Some(Some(seconds))
}

/// The Cache insight of the requests that began and ended in `[from, until]`.
pub fn cache(requests: &[Request], from: f64, until: f64) -> Cache {
    let mut found = Cache::default();
    for request in requests {
        let end = request.finish_event.unwrap_or(request.start);
        if request.start > until || end <= from {
            continue;
        }
        let Some(response) = &request.response else {
            continue;
        };
        let network = !matches!(
            request.url.split(':').next(),
            Some("blob" | "data" | "intent" | "file" | "filesystem" | "chrome-extension")
        ) && !matches!(response.protocol.as_str(), "blob" | "data" | "file");
        let kind = if request.resource_type.is_empty() {
            "Other"
        } else {
            &request.resource_type
        };
        if !network || !STATIC_TYPES.contains(&kind) || !CACHEABLE_STATUS.contains(&response.status)
        {
            continue;
        }
        let Some(headers) = &response.headers else {
            found.without_headers += 1;
            continue;
        };
        found.checked += 1;
        let Some(ttl) = lifetime(headers) else {
            found.caching_off += 1;
            continue;
        };
        if ttl.is_some_and(|t| !t.is_finite() || t <= 0.0) {
            continue;
        }
        let seconds = ttl.unwrap_or(0.0);
        if seconds / 86_400.0 >= 30.0 {
            continue;
        }
        let hit = hit_probability(seconds);
        if hit > ENOUGH {
            continue;
        }
        let wasted = (1.0 - hit) * request.encoded_length as f64;
        found.wasted_bytes += wasted;
        found.requests.push(ShortLived {
            url: request.url.clone(),
            resource_type: kind.to_owned(),
            ttl_s: ttl,
            cache_control: header(headers, "cache-control"),
            transfer_bytes: request.encoded_length,
            wasted_bytes: wasted,
        });
    }
    found.requests.sort_by(|a, b| {
        b.transfer_bytes
            .cmp(&a.transfer_bytes)
            .then(a.ttl_s.unwrap_or(0.0).total_cmp(&b.ttl_s.unwrap_or(0.0)))
    });
    found
}

/// A lifetime for people: `none`, `45 s`, `10 min`, `3 h`, `2 days`.
fn lifetime_text(ttl_s: Option<f64>) -> String {
    match ttl_s {
        None => "no cache lifetime".to_owned(),
        Some(s) if s < 120.0 => format!("cached {} s", s.round()),
        Some(s) if s < 7200.0 => format!("cached {} min", (s / 60.0).round()),
        Some(s) if s < 172_800.0 => format!("cached {} h", (s / 3600.0).round()),
        Some(s) => format!("cached {} days", (s / 86_400.0).round()),
    }
}

/// The Cache line of the summary.
pub fn line(found: &Cache) -> String {
    if found.checked == 0 && found.without_headers > 0 {
        return "- Cache: the trace has no response headers, so cache lifetimes are unknown."
            .to_owned();
    }
    let Some(first) = found.requests.first() else {
        let off = match found.caching_off {
            0 => String::new(),
            n => format!(", {n} of them with caching turned off"),
        };
        return format!(
            "- Cache: no static resource with a short cache lifetime ({} checked{off}).",
            found.checked
        );
    };
    format!(
        "- Cache: {} static resource(s) with no or a short cache lifetime, {} a return \
         visit would likely fetch again; the largest: {} ({}).",
        found.requests.len(),
        bytes(found.wasted_bytes.round() as u64),
        first.url,
        lifetime_text(first.ttl_s)
    )
}

/// The Cache details: its lines and its data.
pub fn details(found: &Cache, lines: &mut Vec<String>) -> Value {
    if found.without_headers > 0 {
        lines.push(format!(
            "The trace gives no response headers for {} static resource(s): their cache \
             lifetimes are unknown, and not counted.",
            found.without_headers
        ));
    }
    lines.push(format!(
        "{} static resource(s) (fonts, images, media, scripts, style sheets) checked.",
        found.checked
    ));
    if found.caching_off > 0 {
        lines.push(format!(
            "{} of them turn caching off (no-store, no-cache, must-revalidate, private): \
             left as chosen.",
            found.caching_off
        ));
    }
    if found.requests.is_empty() {
        lines.push("None is cached too briefly.".into());
    }
    for r in &found.requests {
        let header = r
            .cache_control
            .as_deref()
            .map(|c| format!(", Cache-Control: {c}"))
            .unwrap_or_default();
        lines.push(format!(
            "- {} ({}): {}{header}; {} transferred, {} likely fetched again",
            r.url,
            r.resource_type,
            lifetime_text(r.ttl_s),
            bytes(r.transfer_bytes),
            bytes(r.wasted_bytes.round() as u64)
        ));
    }
    if !found.requests.is_empty() {
        lines.push(
            "To do: serve these with a long Cache-Control max-age (and a file name that \
             changes with the content)."
                .into(),
        );
    }
    json!({
        "requests": found.requests,
        "wastedBytes": found.wasted_bytes,
        "checked": found.checked,
        "cachingOff": found.caching_off,
        "withoutHeaders": found.without_headers,
    })
}

/// The Cache insight: static resources served with no or a short cache lifetime.
pub struct CacheInsight;

impl Insight for CacheInsight {
    const NAME: &'static str = "Cache";
    const ABOUT: &'static str = "static resources with no or a short cache lifetime";
    type Data = Cache;

    fn compute(load: &LoadContext) -> Cache {
        cache(load.requests(), load.from, load.until)
    }

    fn summary(set: &InsightSet) -> Vec<String> {
        vec![line(&set.cache)]
    }

    fn details(set: &InsightSet, lines: &mut Vec<String>) -> Value {
        details(&set.cache, lines)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{cache, details, hit_probability, line};
    use crate::load::events;
    use crate::load::network;

    /// A response's headers (name, value); `None`: the trace gives none.
    type Headers<'a> = Option<Vec<(&'a str, &'a str)>>;

    /// Requests of one load (URL, resource type, response headers).
    fn trace(responses: &[(&str, &str, Headers)]) -> Vec<events::Event> {
        let mut list = Vec::new();
        for (i, (url, kind, headers)) in responses.iter().enumerate() {
            let id = format!("R{i}");
            let ts = 1000.0 * (i as f64 + 1.0);
            list.push(
                json!({"name": "ResourceSendRequest", "ph": "I", "ts": ts, "pid": 1, "tid": 1,
                "args": {"data": {"requestId": id, "url": url, "resourceType": kind}}}),
            );
            let mut data = json!({"requestId": id, "statusCode": 200, "protocol": "http/1.1"});
            if let Some(headers) = headers {
                data["headers"] = headers
                    .iter()
                    .map(|(n, v)| json!({"name": n, "value": v}))
                    .collect();
            }
            list.push(
                json!({"name": "ResourceReceiveResponse", "ph": "I", "ts": ts + 10.0,
                "pid": 1, "tid": 1, "args": {"data": data}}),
            );
            list.push(
                json!({"name": "ResourceFinish", "ph": "I", "ts": ts + 20.0, "pid": 1, "tid": 1,
                "args": {"data": {"requestId": id, "encodedDataLength": 10_000}}}),
            );
        }
        events::parse(json!(list).to_string().as_bytes()).expect("events")
    }

    #[test]
    fn static_resources_without_or_with_a_short_lifetime_are_found() {
        let events = trace(&[
            ("https://a.test/", "Document", Some(vec![])),
            (
                "https://a.test/none.js",
                "Script",
                Some(vec![("Content-Type", "text/javascript")]),
            ),
            (
                "https://a.test/ten.css",
                "Stylesheet",
                Some(vec![("Cache-Control", "public, max-age=600")]),
            ),
            (
                "https://a.test/year.png",
                "Image",
                Some(vec![("cache-control", "max-age=31536000")]),
            ),
            (
                "https://a.test/week.png",
                "Image",
                Some(vec![("Cache-Control", "max-age=604800")]),
            ),
            (
                "https://a.test/off.js",
                "Script",
                Some(vec![("Cache-Control", "no-store")]),
            ),
            (
                "https://a.test/zero.js",
                "Script",
                Some(vec![("Cache-Control", "max-age=0")]),
            ),
            (
                "https://a.test/old.js",
                "Script",
                Some(vec![("Pragma", "no-cache")]),
            ),
            (
                "https://a.test/exp.js",
                "Script",
                Some(vec![
                    ("Date", "Wed, 02 Dec 2026 10:00:00 GMT"),
                    ("Expires", "Wed, 02 Dec 2026 12:00:00 GMT"),
                ]),
            ),
        ]);
        let requests = network::requests(&events);
        let found = cache(&requests, 0.0, 1e9);
        let urls: Vec<(&str, Option<f64>)> = found
            .requests
            .iter()
            .map(|r| (r.url.rsplit('/').next().unwrap_or(""), r.ttl_s))
            .collect();
        // All the same size: shortest lifetime first.
        assert_eq!(
            urls,
            [
                ("none.js", None),
                ("ten.css", Some(600.0)),
                ("exp.js", Some(7200.0)),
                ("week.png", Some(604_800.0))
            ]
        );
        assert_eq!((found.checked, found.caching_off), (8, 2));
        assert_eq!(found.requests[0].wasted_bytes, 10_000.0);
        // 10 minutes: a return visit within it 1/12 of the time.
        assert!((hit_probability(600.0) - 1.0 / 12.0).abs() < 1e-9);
        assert!((found.requests[1].wasted_bytes - 10_000.0 * 11.0 / 12.0).abs() < 1e-6);
        // A week: 90 % of return visits, not enough; a year is.
        assert!((hit_probability(604_800.0) - 0.9).abs() < 1e-9);
        assert_eq!(
            line(&found),
            "- Cache: 4 static resource(s) with no or a short cache lifetime, 27.7 kB a \
             return visit would likely fetch again; the largest: https://a.test/none.js \
             (no cache lifetime)."
        );
        let mut lines = Vec::new();
        let data = details(&found, &mut lines);
        assert_eq!(data["requests"][1]["cacheControl"], "public, max-age=600");
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("- https://a.test/ten.css (Stylesheet): cached 10 min")),
            "{lines:?}"
        );
    }

    #[test]
    fn resources_that_turn_caching_off_are_left_alone_and_counted() {
        let events = trace(&[
            (
                "https://a.test/off.js",
                "Script",
                Some(vec![("Cache-Control", "no-store")]),
            ),
            (
                "https://a.test/y.css",
                "Stylesheet",
                Some(vec![("Cache-Control", "max-age=31536000")]),
            ),
        ]);
        let found = cache(&network::requests(&events), 0.0, 1e9);
        assert_eq!(
            line(&found),
            "- Cache: no static resource with a short cache lifetime (2 checked, 1 of them \
             with caching turned off)."
        );
    }

    #[test]
    fn without_headers_the_lifetimes_are_unknown_and_not_guessed() {
        let events = trace(&[("https://a.test/a.js", "Script", None)]);
        let requests = network::requests(&events);
        let found = cache(&requests, 0.0, 1e9);
        assert!(found.requests.is_empty());
        assert_eq!((found.checked, found.without_headers), (0, 1));
        assert!(
            line(&found).contains("no response headers"),
            "{}",
            line(&found)
        );
        let mut lines = Vec::new();
        let data = details(&found, &mut lines);
        assert_eq!(data["withoutHeaders"], 1);
        assert!(lines[0].contains("unknown, and not counted"), "{lines:?}");
    }
}
