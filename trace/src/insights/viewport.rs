//! Viewport: whether the page is optimized for mobile screens, so that taps are not
//! held back waiting to tell them from a double-tap zoom.
//!
//! As DevTools' engine reads it (insight `Viewport`): the compositor says, with each
//! frame it commits (`BeginCommitCompositorFrame`, `args.is_mobile_optimized`),
//! whether the frame's viewport is mobile-optimized; the load's main frame is, when
//! every frame committed within the load (after its `<meta name=viewport>` was parsed,
//! `ParseMetaViewport`) says so. Without a committed frame there is no verdict. Chrome
//! on a desktop, without mobile emulation, applies no mobile viewport, and so reports
//! every page as optimized: the viewport tag matters where Chrome applies one (a phone,
//! or emulation).

use serde::Serialize;
use serde_json::{json, Value};

use crate::insights::{Insight, InsightSet};
use crate::load::events::Event;
use crate::load::LoadContext;

/// The Viewport insight of one load.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Viewport {
    /// Whether every frame committed says the viewport is mobile-optimized; `None`
    /// when no frame was committed.
    pub mobile_optimized: Option<bool>,
    /// Whether the page's `<meta name=viewport>` was parsed within the load.
    pub meta_viewport: bool,
    /// The tag's `content`, when the trace gives it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// How many committed frames were checked.
    pub frames: usize,
}

/// The Viewport insight of `frame`'s load in `[from, until]`.
pub fn viewport(events: &[Event], frame: Option<&str>, from: f64, until: f64) -> Viewport {
    let within = |e: &&Event| e.ts <= until && from < e.end();
    let parsed = events
        .iter()
        .filter(within)
        .filter(|e| e.name == "ParseMetaViewport")
        .find(|e| e.data()["frame"].as_str() == frame);
    let after = parsed.map_or(f64::NEG_INFINITY, |e| e.ts);
    let committed: Vec<&Event> = events
        .iter()
        .filter(within)
        .filter(|e| e.name == "BeginCommitCompositorFrame" && e.ts >= after)
        .filter(|e| e.args["frame"].as_str() == frame)
        .collect();
    Viewport {
        mobile_optimized: (!committed.is_empty()).then(|| {
            committed
                .iter()
                .all(|e| e.args["is_mobile_optimized"].as_bool() == Some(true))
        }),
        meta_viewport: parsed.is_some(),
        content: parsed
            .and_then(|e| e.data()["content"].as_str())
            .map(str::to_owned),
        frames: committed.len(),
    }
}

/// The tag to add.
const TAG: &str = "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">";

/// The Viewport line of the summary.
pub fn line(found: &Viewport) -> String {
    let tag = if found.meta_viewport {
        "it has a viewport meta tag"
    } else {
        "it has no viewport meta tag"
    };
    match found.mobile_optimized {
        None => "- Viewport: no frame was committed, so whether the page is optimized for \
                 mobile is unknown."
            .to_owned(),
        Some(true) if !found.meta_viewport => format!(
            "- Viewport: optimized for mobile, as Chrome reported ({tag}; desktop Chrome \
             reports every page so: on a phone it would not be)."
        ),
        Some(true) => format!("- Viewport: optimized for mobile, as Chrome reported ({tag})."),
        Some(false) => format!(
            "- Viewport: not optimized for mobile ({tag}): taps may wait up to 300 ms; \
             add {TAG}."
        ),
    }
}

/// The Viewport details: its lines and its data.
pub fn details(found: &Viewport, lines: &mut Vec<String>) -> Value {
    match (&found.content, found.meta_viewport) {
        (Some(content), _) => lines.push(format!("Viewport meta tag: content=\"{content}\".")),
        (None, true) => lines.push("The page has a viewport meta tag.".into()),
        (None, false) => lines.push("The page has no viewport meta tag.".into()),
    }
    match found.mobile_optimized {
        None => lines.push(
            "No frame was committed within the load (a tab Chrome keeps hidden commits \
             none): there is no verdict."
                .into(),
        ),
        Some(true) => lines.push(format!(
            "Each of the {} committed frame(s) was mobile-optimized, as Chrome reported it \
             (Chrome on a desktop, without mobile emulation, reports every page so).",
            found.frames
        )),
        Some(false) => {
            lines.push(format!(
                "Of the {} committed frame(s), some were not mobile-optimized: on a phone, \
                 taps wait to be told from a double-tap zoom.",
                found.frames
            ));
            lines.push(format!("To do: add {TAG} to the page's head."));
        }
    }
    json!({
        "mobileOptimized": found.mobile_optimized,
        "metaViewport": found.meta_viewport,
        "content": found.content,
        "frames": found.frames,
    })
}

/// The Viewport insight: whether the page is optimized for mobile screens.
pub struct ViewportInsight;

impl Insight for ViewportInsight {
    const NAME: &'static str = "Viewport";
    const ABOUT: &'static str = "whether the page is optimized for mobile";
    type Data = Viewport;

    fn compute(load: &LoadContext) -> Viewport {
        viewport(load.events(), load.frame(), load.from, load.until)
    }

    fn summary(set: &InsightSet) -> Vec<String> {
        vec![line(&set.viewport)]
    }

    fn details(set: &InsightSet, lines: &mut Vec<String>) -> Value {
        details(&set.viewport, lines)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{details, line, viewport};
    use crate::load::events;

    fn trace(optimized: &[(f64, bool)], meta_at: Option<f64>) -> Vec<events::Event> {
        let mut list: Vec<serde_json::Value> = optimized
            .iter()
            .map(|(ts, ok)| {
                json!({"name": "BeginCommitCompositorFrame", "ph": "I", "ts": ts, "pid": 1, "tid": 1,
                       "args": {"frame": "F", "is_mobile_optimized": ok}})
            })
            .collect();
        list.push(
            json!({"name": "BeginCommitCompositorFrame", "ph": "I", "ts": 50.0,
            "pid": 1, "tid": 1, "args": {"frame": "OTHER", "is_mobile_optimized": false}}),
        );
        if let Some(ts) = meta_at {
            list.push(
                json!({"name": "ParseMetaViewport", "ph": "I", "ts": ts, "pid": 1, "tid": 1,
                "args": {"data": {"frame": "F", "content": "width=device-width"}}}),
            );
        }
        events::parse(json!(list).to_string().as_bytes()).expect("events")
    }

    #[test]
    fn a_frame_not_mobile_optimized_after_the_tag_fails_and_one_before_it_does_not_count() {
        let events = trace(&[(10.0, false), (30.0, true)], Some(20.0));
        let found = viewport(&events, Some("F"), 0.0, 100.0);
        assert_eq!(found.mobile_optimized, Some(true));
        assert_eq!(found.frames, 1);
        assert_eq!(found.content.as_deref(), Some("width=device-width"));
        assert_eq!(
            line(&found),
            "- Viewport: optimized for mobile, as Chrome reported (it has a viewport meta tag)."
        );
        let events = trace(&[(10.0, true), (30.0, false)], None);
        let found = viewport(&events, Some("F"), 0.0, 100.0);
        assert_eq!(found.mobile_optimized, Some(false));
        assert!(line(&found).contains("not optimized for mobile (it has no viewport meta tag)"));
        let mut lines = Vec::new();
        let data = details(&found, &mut lines);
        assert_eq!(data["mobileOptimized"], false);
        assert!(lines
            .last()
            .is_some_and(|l| l.starts_with("To do: add <meta name=\"viewport\"")));
    }

    #[test]
    fn without_a_committed_frame_there_is_no_verdict() {
        let events = trace(&[], None);
        let found = viewport(&events, Some("F"), 0.0, 100.0);
        assert_eq!(found.mobile_optimized, None);
        assert!(line(&found).contains("unknown"), "{}", line(&found));
        let mut lines = Vec::new();
        assert!(details(&found, &mut lines)["mobileOptimized"].is_null());
    }
}
