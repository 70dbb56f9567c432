//! LCP request discovery: whether the page let Chrome find and fetch its LCP image as
//! early as it could.
//!
//! Three checks, as DevTools' engine makes them (insight `LCPDiscovery`): the image
//! request has `fetchpriority=high`; it is discoverable in the first HTML (a
//! `<link rel=preload>`, or the parser of the main document started it, not a script
//! or a style sheet); and it is not lazy-loaded (`loading=lazy` on the element, unless
//! a preload fetched it anyway). The discovery delay is how long after the document's
//! first byte (the earliest the request could have started) it did start.

use serde::Serialize;
use serde_json::{json, Value};

use crate::insights::{Insight, InsightSet};
use crate::load::events::Event;
use crate::load::network::Request;
use crate::load::LoadContext;
use crate::text::format::duration;

/// How the LCP image was discovered.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Discovery {
    /// The image's request URL.
    pub request_url: String,
    /// Whether it was asked for with `fetchpriority=high`.
    pub fetch_priority_high: bool,
    /// Whether a `<link rel=preload>` asked for it.
    pub preloaded: bool,
    /// Whether it was discoverable in the first HTML (preloaded, or met by the main
    /// document's parser).
    pub discoverable: bool,
    /// Whether it loaded eagerly (no `loading=lazy`, or preloaded anyway).
    pub eagerly_loaded: bool,
    /// From the document's first byte to the request's start, ms, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delay_ms: Option<f64>,
}

impl Discovery {
    /// Whether all three checks pass.
    pub fn passes(&self) -> bool {
        self.fetch_priority_high && self.discoverable && self.eagerly_loaded
    }

    /// What to change, one sentence per failed check.
    pub fn advice(&self) -> Vec<String> {
        let mut advice = Vec::new();
        if !self.fetch_priority_high {
            advice.push(if self.preloaded {
                "fetchpriority=high should be applied to the image's preload".to_owned()
            } else {
                "fetchpriority=high should be applied to the image".to_owned()
            });
        }
        if !self.discoverable {
            advice.push(
                "the image should be discoverable in the first HTML (an <img> in the \
                 markup, or a <link rel=preload>), not found later by a script or style \
                 sheet"
                    .to_owned(),
            );
        }
        if !self.eagerly_loaded {
            advice.push("the image should not use loading=lazy".to_owned());
        }
        advice
    }
}

/// The discovery of the LCP image `image`, painted as `candidate`; `document` is the
/// load's document request.
pub fn discovery(candidate: &Event, image: &Request, document: Option<&Request>) -> Discovery {
    let by_main_parser =
        image.initiator_type == "parser" && document.is_some_and(|d| d.url == image.initiator_url);
    let lazy = candidate.data()["loadingAttr"].as_str() == Some("lazy");
    Discovery {
        request_url: image.url.clone(),
        fetch_priority_high: image.fetch_priority_hint == "high",
        preloaded: image.link_preload,
        discoverable: image.link_preload || by_main_parser,
        eagerly_loaded: !lazy || image.link_preload,
        delay_ms: document
            .and_then(|d| d.first_byte)
            .map(|first_byte| (image.start - first_byte) / 1e3),
    }
}

/// The LCPDiscovery line of the summary, for a load whose LCP is an image.
pub fn line(found: &Discovery) -> String {
    let mut line = "- LCPDiscovery: ".to_owned();
    if found.passes() {
        line += "the LCP image was discoverable, eager and high priority";
    } else {
        line += &found.advice().join("; ");
    }
    if let Some(delay) = found.delay_ms {
        line += &format!(
            " (its request started {} after the document's first byte)",
            duration(delay)
        );
    }
    line + "."
}

/// The LCPDiscovery details, for a load with an LCP of kind `kind`: its lines, and its
/// data (with the reason when there is nothing to check).
pub fn details(found: Option<&Discovery>, kind: Option<&str>, lines: &mut Vec<String>) -> Value {
    let Some(found) = found else {
        let reason = match kind {
            None => "No LCP was recorded for this load.",
            Some("image") => "The LCP image's request is not in the trace.",
            Some(_) => "The LCP is not an image: there is no request to discover.",
        };
        lines.push(reason.to_owned());
        return json!({"lcpKind": kind, "discovery": null, "reason": reason});
    };
    lines.push(format!("LCP image request: {}.", found.request_url));
    if let Some(delay) = found.delay_ms {
        lines.push(if delay >= 0.0 {
            format!(
                "It started {} after the document's first byte (the earliest an image in \
                 the HTML can start).",
                duration(delay)
            )
        } else {
            format!(
                "It started {} before the document's first byte (asked for ahead of the \
                 HTML: a preload or early hint).",
                duration(-delay)
            )
        });
    }
    let mark = |ok: bool| if ok { "pass" } else { "FAIL" };
    lines.push(format!(
        "- {}: fetchpriority=high applied",
        mark(found.fetch_priority_high)
    ));
    lines.push(format!(
        "- {}: discoverable in the first HTML{}",
        mark(found.discoverable),
        if found.preloaded { " (preloaded)" } else { "" }
    ));
    lines.push(format!("- {}: not lazy-loaded", mark(found.eagerly_loaded)));
    for advice in found.advice() {
        lines.push(format!("To do: {advice}."));
    }
    json!({"lcpKind": kind, "discovery": found, "passes": found.passes(), "advice": found.advice()})
}

/// The LCPDiscovery insight: how the LCP image was discovered. It is found with the LCP
/// it explains (`Lcp::discovery`), whose candidate event it reads.
pub struct LcpDiscoveryInsight;

impl Insight for LcpDiscoveryInsight {
    const NAME: &'static str = "LCPDiscovery";
    const ABOUT: &'static str = "";
    type Data = ();

    /// Found with the LCP (`LoadContext::lcp`): its candidate event is the LCP's.
    fn compute(_: &LoadContext) {}

    fn summary(set: &InsightSet) -> Vec<String> {
        let found = set.lcp.as_ref().and_then(|l| l.discovery.as_ref());
        found.map(line).into_iter().collect()
    }

    fn details(set: &InsightSet, lines: &mut Vec<String>) -> Value {
        let lcp = set.lcp.as_ref();
        details(
            lcp.and_then(|l| l.discovery.as_ref()),
            lcp.map(|l| l.kind.as_str()),
            lines,
        )
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::discovery;
    use crate::load::events;
    use crate::load::network::Request;

    fn candidate(loading: &str) -> events::Event {
        let list = json!([{"name": "largestContentfulPaint::Candidate", "ph": "I", "ts": 9.0,
            "pid": 1, "tid": 1, "args": {"data": {"loadingAttr": loading}}}]);
        events::parse(list.to_string().as_bytes())
            .expect("a trace")
            .remove(0)
    }

    fn request(initiator: &str, initiator_url: &str, preload: bool, hint: &str) -> Request {
        Request {
            url: "https://a.test/hero.png".into(),
            start: 5000.0,
            initiator_type: initiator.into(),
            initiator_url: initiator_url.into(),
            link_preload: preload,
            fetch_priority_hint: hint.into(),
            ..Request::default()
        }
    }

    #[test]
    fn an_img_in_the_markup_is_discoverable_but_wants_a_priority_hint() {
        let document = Request {
            url: "https://a.test/".into(),
            first_byte: Some(2000.0),
            ..Request::default()
        };
        let image = request("parser", "https://a.test/", false, "auto");
        let found = discovery(&candidate(""), &image, Some(&document));
        assert!(found.discoverable && found.eagerly_loaded && !found.fetch_priority_high);
        assert_eq!(found.delay_ms, Some(3.0));
        assert!(!found.passes());
        assert_eq!(found.advice().len(), 1);
        let line = super::line(&found);
        assert!(
            line.contains("fetchpriority=high should be applied"),
            "{line}"
        );
        assert!(
            line.contains("3 ms after the document's first byte"),
            "{line}"
        );
    }

    #[test]
    fn a_script_inserted_lazy_image_fails_two_checks_and_a_preload_mends_both() {
        let document = Request {
            url: "https://a.test/".into(),
            ..Request::default()
        };
        let late = request("script", "https://a.test/app.js", false, "high");
        let found = discovery(&candidate("lazy"), &late, Some(&document));
        assert!(!found.discoverable && !found.eagerly_loaded && found.fetch_priority_high);
        assert_eq!(found.delay_ms, None);
        // Parsed, but from another document (an iframe's): not the first HTML.
        let other = request("parser", "https://b.test/frame.html", false, "high");
        assert!(!discovery(&candidate(""), &other, Some(&document)).discoverable);
        let preloaded = request("preload", "https://a.test/", true, "high");
        let found = discovery(&candidate("lazy"), &preloaded, Some(&document));
        assert!(found.passes(), "{found:?}");
    }
}
