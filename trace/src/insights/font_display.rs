//! Font display: web fonts whose text stays invisible while they load.
//!
//! As DevTools' engine checks them (insight `FontDisplay`): each web font the page
//! began to load within the load (`BeginRemoteFontLoad`, with its `font-display`),
//! fetched by a request of the trace, counts when its `font-display` is `block`,
//! `fallback` or `auto` (Chrome's `auto` blocks): its text may be invisible from the
//! request's sending to its end, rounded down to 5 ms and at most 3 s (browsers give
//! up waiting then). `swap` or `optional` shows text at once. The font's family name
//! comes from the `RemoteFontLoaded` event of the same URL.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::{json, Value};

use crate::insights::{Insight, InsightSet};
use crate::load::events::Event;
use crate::load::network::Request;
use crate::load::LoadContext;
use crate::text::format::duration;

/// Browsers show fallback text after this long at most, ms.
const MOST_MS: f64 = 3000.0;

/// A font whose text waits for it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BlockingFont {
    /// Its URL.
    pub url: String,
    /// Its family name, when the trace gives it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Its `font-display` (`auto`, `block`, `fallback`).
    pub display: String,
    /// How long its text may have been invisible, ms.
    pub wasted_ms: f64,
}

/// The FontDisplay insight of one load.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FontDisplay {
    /// The fonts, the longest wait first.
    pub fonts: Vec<BlockingFont>,
    /// How many web fonts began to load within the load.
    pub loaded: usize,
}

/// The FontDisplay insight of the fonts that began to load in `(from, until]`.
pub fn font_display(events: &[Event], requests: &[Request], from: f64, until: f64) -> FontDisplay {
    let by_id: HashMap<&str, &Request> = requests.iter().map(|r| (r.id.as_str(), r)).collect();
    let mut names: HashMap<&str, &str> = HashMap::new();
    for event in events.iter().filter(|e| e.name == "RemoteFontLoaded") {
        if let (Some(url), Some(name)) = (event.args["url"].as_str(), event.args["name"].as_str()) {
            names.insert(url, name);
        }
    }
    let mut found = FontDisplay::default();
    for event in events.iter().filter(|e| e.name == "BeginRemoteFontLoad") {
        if !(from < event.ts && event.ts <= until) {
            continue;
        }
        found.loaded += 1;
        let Some(id) = crate::load::events::text(&event.args["id"]) else {
            continue;
        };
        let Some(request) = by_id.get(format!("{}.{id}", event.pid).as_str()) else {
            continue;
        };
        let display = event.args["display"].as_str().unwrap_or_default();
        if !matches!(display, "block" | "fallback" | "auto") {
            continue;
        }
        let start = request
            .response
            .as_ref()
            .and_then(|r| r.send_start)
            .unwrap_or(request.start);
        let waited = (request.end() - start) / 1e3;
        let wasted_ms = ((waited / 5.0).floor() * 5.0).min(MOST_MS);
        if wasted_ms <= 0.0 {
            continue;
        }
        let url = event.args["url"].as_str().unwrap_or(&request.url);
        found.fonts.push(BlockingFont {
            url: url.to_owned(),
            name: names.get(url).map(|n| (*n).to_owned()),
            display: display.to_owned(),
            wasted_ms,
        });
    }
    found
        .fonts
        .sort_by(|a, b| b.wasted_ms.total_cmp(&a.wasted_ms));
    found
}

fn named(font: &BlockingFont) -> String {
    match &font.name {
        Some(name) => format!("{name} ({})", font.url),
        None => font.url.clone(),
    }
}

/// The FontDisplay line of the summary.
pub fn line(found: &FontDisplay) -> String {
    match found.fonts.first() {
        None if found.loaded == 0 => "- FontDisplay: no web fonts loaded.".to_owned(),
        None => "- FontDisplay: no web font held its text invisible.".to_owned(),
        Some(worst) => format!(
            "- FontDisplay: {} web font(s) hid their text while loading; the longest, {}, \
             font-display: {}, for up to {}: use font-display: swap or optional.",
            found.fonts.len(),
            named(worst),
            worst.display,
            duration(worst.wasted_ms)
        ),
    }
}

/// The FontDisplay details: its lines and its data.
pub fn details(found: &FontDisplay, lines: &mut Vec<String>) -> Value {
    lines.push(format!(
        "{} web font(s) began to load within the load.",
        found.loaded
    ));
    if found.fonts.is_empty() && found.loaded > 0 {
        lines.push("None held its text invisible (font-display: swap or optional).".into());
    }
    for font in &found.fonts {
        lines.push(format!(
            "- {}: font-display: {}; its text may have been invisible for {}",
            named(font),
            font.display,
            duration(font.wasted_ms)
        ));
    }
    if !found.fonts.is_empty() {
        lines.push(
            "To do: give these @font-face rules font-display: swap (or optional), so the \
             text shows in a fallback font at once."
                .into(),
        );
    }
    json!({"fonts": found.fonts, "loaded": found.loaded})
}

/// The FontDisplay insight: web fonts whose text stays invisible while they load.
pub struct FontDisplayInsight;

impl Insight for FontDisplayInsight {
    const NAME: &'static str = "FontDisplay";
    const ABOUT: &'static str = "web fonts whose text is invisible while they load";
    type Data = FontDisplay;

    fn compute(load: &LoadContext) -> FontDisplay {
        font_display(load.events(), load.requests(), load.from, load.until)
    }

    fn summary(set: &InsightSet) -> Vec<String> {
        vec![line(&set.font_display)]
    }

    fn details(set: &InsightSet, lines: &mut Vec<String>) -> Value {
        details(&set.font_display, lines)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{details, font_display, line};
    use crate::load::events;
    use crate::load::network;

    /// Two fonts: `a.woff2` (`auto`), sent at 10 ms and done at 433 ms, and
    /// `b.woff2` (`swap`).
    fn trace() -> Vec<events::Event> {
        let list = json!([
            {"name": "BeginRemoteFontLoad", "ph": "I", "ts": 5e3, "pid": 7, "tid": 1,
             "args": {"id": 3, "url": "https://a.test/a.woff2", "display": "auto"}},
            {"name": "BeginRemoteFontLoad", "ph": "I", "ts": 6e3, "pid": 7, "tid": 1,
             "args": {"id": 4, "url": "https://a.test/b.woff2", "display": "swap"}},
            {"name": "ResourceSendRequest", "ph": "I", "ts": 8e3, "pid": 7, "tid": 1,
             "args": {"data": {"requestId": "7.3", "url": "https://a.test/a.woff2", "resourceType": "Font"}}},
            {"name": "ResourceSendRequest", "ph": "I", "ts": 8e3, "pid": 7, "tid": 1,
             "args": {"data": {"requestId": "7.4", "url": "https://a.test/b.woff2", "resourceType": "Font"}}},
            {"name": "ResourceReceiveResponse", "ph": "I", "ts": 100e3, "pid": 7, "tid": 1,
             "args": {"data": {"requestId": "7.3", "timing": {"requestTime": 0.009, "sendStart": 1.0}}}},
            {"name": "ResourceFinish", "ph": "I", "ts": 434e3, "pid": 7, "tid": 1,
             "args": {"data": {"requestId": "7.3", "finishTime": 0.433}}},
            {"name": "ResourceFinish", "ph": "I", "ts": 434e3, "pid": 7, "tid": 1,
             "args": {"data": {"requestId": "7.4", "finishTime": 0.433}}},
            {"name": "RemoteFontLoaded", "ph": "I", "ts": 435e3, "pid": 7, "tid": 1,
             "args": {"url": "https://a.test/a.woff2", "name": "Brand Sans"}}
        ]);
        events::parse(list.to_string().as_bytes()).expect("events")
    }

    #[test]
    fn a_font_that_blocks_its_text_is_found_with_its_wait_and_a_swap_font_is_not() {
        let events = trace();
        let found = font_display(&events, &network::requests(&events), 0.0, 1e9);
        assert_eq!(found.loaded, 2);
        assert_eq!(found.fonts.len(), 1);
        let font = &found.fonts[0];
        // From its sending (10 ms) to its end (433 ms), down to 5 ms: 420 ms.
        assert_eq!((font.display.as_str(), font.wasted_ms), ("auto", 420.0));
        assert_eq!(font.name.as_deref(), Some("Brand Sans"));
        assert_eq!(
            line(&found),
            "- FontDisplay: 1 web font(s) hid their text while loading; the longest, Brand \
             Sans (https://a.test/a.woff2), font-display: auto, for up to 420 ms: use \
             font-display: swap or optional."
        );
        let mut lines = Vec::new();
        let data = details(&found, &mut lines);
        assert_eq!(data["fonts"][0]["wastedMs"], 420.0);
        assert!(
            lines.last().is_some_and(|l| l.starts_with("To do:")),
            "{lines:?}"
        );
    }

    #[test]
    fn fonts_outside_the_load_do_not_count() {
        let events = trace();
        let found = font_display(&events, &network::requests(&events), 10e3, 1e9);
        assert_eq!((found.loaded, found.fonts.len()), (0, 0));
        assert_eq!(line(&found), "- FontDisplay: no web fonts loaded.");
    }
}
