//! Render-blocking requests: the requests of a page load that held up its first
//! paint (DevTools' `RenderBlocking`).

use serde::Serialize;
use serde_json::{json, Value};

use crate::insights::{Insight, InsightSet};
use crate::load::events::Event;
use crate::load::network::Request;
use crate::load::LoadContext;
use crate::load::Navigation;
use crate::text::format::duration;

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

/// The requests of the load `nav` that held up its first paint (none without one),
/// longest first.
pub fn render_blocking(
    events: &[Event],
    nav: &Navigation,
    requests: &[Request],
) -> Vec<BlockingRequest> {
    let first_paint = events.iter().find(|e| {
        e.name == "firstPaint"
            && match e.data()["navigationId"].as_str() {
                Some(id) => id == nav.id,
                None => {
                    e.args["frame"].as_str() == Some(nav.frame.as_str())
                        && e.ts >= nav.ts
                        && e.ts < nav.until
                }
            }
    });
    let Some(first_paint) = first_paint else {
        return Vec::new();
    };
    let mut found: Vec<BlockingRequest> = requests
        .iter()
        .filter(|r| r.frame == nav.frame && r.start >= nav.ts && r.start < nav.until)
        .filter(|r| r.held_up_paint() && r.end() <= first_paint.ts)
        .map(|r| BlockingRequest {
            url: r.url.clone(),
            duration_ms: r.duration() / 1e3,
            start_ms: (r.start - nav.ts) / 1e3,
        })
        .collect();
    found.sort_by(|a, b| b.duration_ms.total_cmp(&a.duration_ms));
    found
}

/// The RenderBlocking insight: requests that held up the first render (a page load only).
pub struct RenderBlockingInsight;

impl Insight for RenderBlockingInsight {
    const NAME: &'static str = "RenderBlocking";
    const ABOUT: &'static str = "";
    type Data = Vec<BlockingRequest>;

    fn compute(load: &LoadContext) -> Vec<BlockingRequest> {
        load.nav
            .map(|nav| render_blocking(load.events(), nav, load.requests()))
            .unwrap_or_default()
    }

    fn summary(set: &InsightSet) -> Vec<String> {
        if set.url.is_empty() || !set.drew_frames {
            return Vec::new();
        }
        let worst = set
            .render_blocking
            .iter()
            .max_by(|a, b| a.duration_ms.total_cmp(&b.duration_ms));
        vec![match worst {
            None => "- RenderBlocking: no render-blocking requests.".to_owned(),
            Some(worst) => format!(
                "- RenderBlocking: {} request(s) held up the first render; the longest, {}, took {}.",
                set.render_blocking.len(),
                worst.url,
                duration(worst.duration_ms)
            ),
        }]
    }

    fn details(set: &InsightSet, lines: &mut Vec<String>) -> Value {
        if set.render_blocking.is_empty() {
            lines.push("No request held up the first render.".into());
        }
        for r in &set.render_blocking {
            lines.push(format!(
                "- {}: {} (from {})",
                r.url,
                duration(r.duration_ms),
                duration(r.start_ms)
            ));
        }
        json!(set.render_blocking)
    }
}
