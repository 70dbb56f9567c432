//! Largest Contentful Paint: when it happened, what it was, and where its time went.
//!
//! The LCP is the navigation's last `largestContentfulPaint::Candidate` of the
//! outermost main frame (none if a `largestContentfulPaint::Invalidate` came after
//! it), timed from the navigation's start. Its breakdown is DevTools': time to first
//! byte (navigation start to the document's first byte); for an image, the load delay
//! (to the image request's start), the load duration (to its end) and the render
//! delay (to the paint); for text, all the rest is render delay. The image is the one
//! `LargestImagePaint::Candidate` names for the LCP's node, and its request the first
//! for that URL between the navigation and that paint.

use serde::Serialize;

use crate::insights::{Insight, InsightSet};
use crate::load::events::Event;
use crate::load::network::Request;
use crate::load::LoadContext;
use crate::load::Navigation;
use crate::text::format::{duration, element};
use serde_json::{json, Value};

/// The LCP of a load.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Lcp {
    /// From the navigation's start to the paint, ms.
    pub ms: f64,
    /// What was painted: `image` or `text`.
    pub kind: String,
    /// The element, by its backend node id in the trace.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backend_node_id: Option<i64>,
    /// The element's snapshot uid, when the tool found it in the page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
    /// The image's URL (an image LCP).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image_url: Option<String>,
    /// Where the time went, when the document's timing is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub breakdown: Option<Breakdown>,
    /// How the image was discovered (an image LCP whose request is in the trace).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub discovery: Option<crate::insights::lcp_discovery::Discovery>,
}

/// The parts of an LCP, in ms; they add up to it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Breakdown {
    /// Navigation start to the document's first byte.
    pub ttfb_ms: f64,
    /// First byte to the LCP image's request starting (image LCPs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load_delay_ms: Option<f64>,
    /// The LCP image's request, start to end (image LCPs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load_duration_ms: Option<f64>,
    /// The rest: until the element was painted.
    pub render_delay_ms: f64,
}

impl Breakdown {
    /// The largest part's name and length.
    pub fn largest(&self) -> (&'static str, f64) {
        let mut parts = vec![("time to first byte", self.ttfb_ms)];
        parts.extend(self.load_delay_ms.map(|v| ("resource load delay", v)));
        parts.extend(self.load_duration_ms.map(|v| ("resource load duration", v)));
        parts.push(("render delay", self.render_delay_ms));
        parts
            .into_iter()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .unwrap_or(("render delay", self.render_delay_ms))
    }
}

fn belongs(event: &Event, nav: &Navigation) -> bool {
    match event.data()["navigationId"].as_str() {
        Some(id) => id == nav.id,
        None => {
            event.args["frame"].as_str() == Some(nav.frame.as_str())
                && event.ts >= nav.ts
                && event.ts < nav.until
        }
    }
}

/// The LCP of the load `nav`; `document` is its document's request.
pub fn lcp(
    events: &[Event],
    nav: &Navigation,
    document: Option<&Request>,
    requests: &[Request],
) -> Option<Lcp> {
    let candidate = events
        .iter()
        .filter(|e| e.name == "largestContentfulPaint::Candidate" && belongs(e, nav))
        .filter(|e| {
            let data = e.data();
            data["isOutermostMainFrame"].as_bool() != Some(false)
                && data["isMainFrame"].as_bool() != Some(false)
        })
        .max_by(|a, b| a.ts.total_cmp(&b.ts))?;
    let invalidated = events.iter().any(|e| {
        e.name == "largestContentfulPaint::Invalidate"
            && e.ts > candidate.ts
            && e.ts < nav.until
            && e.args["frame"].as_str() == Some(nav.frame.as_str())
    });
    if invalidated {
        return None;
    }
    let data = candidate.data();
    let node = data["nodeId"].as_i64();
    let paint = node.and_then(|node| {
        events
            .iter()
            .filter(|e| e.name == "LargestImagePaint::Candidate" && e.pid == candidate.pid)
            .rfind(|e| e.data()["DOMNodeId"].as_i64() == Some(node))
    });
    let image_url = paint
        .map(|p| p.data_str("imageUrl").to_owned())
        .filter(|u| !u.is_empty());
    let image_request = match (paint, &image_url) {
        (Some(paint), Some(url)) => requests
            .iter()
            .filter(|r| r.start >= nav.ts && r.start < paint.ts)
            .find(|r| &r.url == url),
        _ => None,
    };
    let kind = match data["type"].as_str() {
        Some(kind) => kind.to_owned(),
        None if image_url.is_some() => "image".to_owned(),
        None => "text".to_owned(),
    };
    let breakdown = document
        .and_then(|d| d.first_byte)
        .map(|first_byte| match image_request {
            Some(image) => Breakdown {
                ttfb_ms: (first_byte - nav.ts) / 1e3,
                load_delay_ms: Some((image.start - first_byte) / 1e3),
                load_duration_ms: Some((image.end() - image.start) / 1e3),
                render_delay_ms: (candidate.ts - image.end()) / 1e3,
            },
            None => Breakdown {
                ttfb_ms: (first_byte - nav.ts) / 1e3,
                load_delay_ms: None,
                load_duration_ms: None,
                render_delay_ms: (candidate.ts - first_byte) / 1e3,
            },
        });
    Some(Lcp {
        ms: (candidate.ts - nav.ts) / 1e3,
        kind,
        backend_node_id: node,
        uid: None,
        image_url,
        breakdown,
        discovery: image_request
            .map(|image| crate::insights::lcp_discovery::discovery(candidate, image, document)),
    })
}

/// The LCPBreakdown insight: the largest contentful paint of a load and the four parts
/// of its time.
pub struct LcpBreakdownInsight;

impl Insight for LcpBreakdownInsight {
    const NAME: &'static str = "LCPBreakdown";
    const ABOUT: &'static str = "";
    type Data = Option<Lcp>;

    fn compute(load: &LoadContext) -> Option<Lcp> {
        load.lcp().cloned()
    }

    fn summary(set: &InsightSet) -> Vec<String> {
        let Some(lcp) = &set.lcp else {
            if !set.url.is_empty() && set.drew_frames {
                return vec!["- LCPBreakdown: no LCP in the trace.".to_owned()];
            }
            return Vec::new();
        };
        let mut line = format!("- LCPBreakdown: LCP {}", duration(lcp.ms));
        if let Some(b) = &lcp.breakdown {
            let (part, ms) = b.largest();
            line += &format!(": {} of it is {part}", duration(ms));
        }
        line += &format!(
            "; the LCP element is {} ({}",
            lcp.kind,
            element(lcp.uid.as_deref(), lcp.backend_node_id)
        );
        if let Some(url) = &lcp.image_url {
            line += &format!(", {url}");
        }
        line += ").";
        vec![line]
    }

    fn details(set: &InsightSet, lines: &mut Vec<String>) -> Value {
        match &set.lcp {
            None if !set.drew_frames => lines.push(crate::text::NO_FRAMES[2..].into()),
            None => lines.push("No LCP was recorded for this load.".into()),
            Some(lcp) => {
                lines.push(format!("LCP: {}.", duration(lcp.ms)));
                lines.push(format!(
                    "Element: {} ({}).",
                    lcp.kind,
                    element(lcp.uid.as_deref(), lcp.backend_node_id)
                ));
                if let Some(url) = &lcp.image_url {
                    lines.push(format!("Image: {url}."));
                }
                if let Some(b) = &lcp.breakdown {
                    lines.push(format!("- Time to first byte: {}", duration(b.ttfb_ms)));
                    if let Some(v) = b.load_delay_ms {
                        lines.push(format!("- Resource load delay: {}", duration(v)));
                    }
                    if let Some(v) = b.load_duration_ms {
                        lines.push(format!("- Resource load duration: {}", duration(v)));
                    }
                    lines.push(format!(
                        "- Element render delay: {}",
                        duration(b.render_delay_ms)
                    ));
                }
            }
        }
        json!(set.lcp)
    }
}
