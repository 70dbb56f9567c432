//! Character set: whether the page declares its character encoding where the browser
//! finds it before it starts decoding.
//!
//! As DevTools' engine checks it (insight `CharacterSet`): the document's response has
//! a `charset=` in its `Content-Type` header, or the page has a `<meta charset>` within
//! its first 1,024 bytes (Chrome says where it found one in `MetaCharsetCheck`, the
//! last of the load's frame counting). Either passes; without both, the browser may
//! guess the encoding, or decode the start again once it finds the tag.

use serde::Serialize;
use serde_json::{json, Value};

use crate::insights::{Insight, InsightSet};
use crate::load::events::Event;
use crate::load::network::{header, Request};
use crate::load::LoadContext;
use crate::load::Navigation;

/// What `MetaCharsetCheck` says of a tag found in time.
const EARLY: &str = "found-in-first-1024-bytes";

/// The CharacterSet insight of one load.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CharacterSet {
    /// Whether the document's `Content-Type` header names a charset.
    pub http_charset: bool,
    /// Where Chrome found a `<meta charset>` (`found-in-first-1024-bytes`,
    /// `found-after-first-1024-bytes`, `not-found`), when the trace says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meta_charset: Option<String>,
}

impl CharacterSet {
    /// Whether the encoding is declared in time, one way or the other.
    pub fn passes(&self) -> bool {
        self.http_charset || self.meta_charset.as_deref() == Some(EARLY)
    }
}

/// Whether a `Content-Type` value names a charset (`charset=` and two or more
/// characters of a name).
fn names_charset(content_type: &str) -> bool {
    let lower = content_type.to_ascii_lowercase();
    lower.match_indices("charset").any(|(at, word)| {
        let rest = lower[at + word.len()..].trim_start();
        let Some(value) = rest.strip_prefix('=') else {
            return false;
        };
        let name = value
            .trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || "-_:.()".contains(*c))
            .count();
        name >= 2
    })
}

/// The CharacterSet insight of the load `nav`, whose document request is `document`.
pub fn character_set(
    events: &[Event],
    nav: &Navigation,
    document: Option<&Request>,
) -> CharacterSet {
    let http_charset = document
        .and_then(|d| d.response.as_ref())
        .and_then(|r| r.headers.as_deref())
        .and_then(|headers| header(headers, "content-type"))
        .is_some_and(|value| names_charset(&value));
    let meta_charset = events
        .iter()
        .filter(|e| e.name == "MetaCharsetCheck" && e.ts >= nav.ts && e.ts < nav.until)
        .filter(|e| e.data_str("frame") == nav.frame)
        .filter_map(|e| e.data()["disposition"].as_str())
        .next_back()
        .map(str::to_owned);
    CharacterSet {
        http_charset,
        meta_charset,
    }
}

fn meta_words(meta: Option<&str>) -> &'static str {
    match meta {
        Some(EARLY) => "a <meta charset> in the first 1,024 bytes",
        Some("found-after-first-1024-bytes") => {
            "a <meta charset> only after the first 1,024 bytes (too late)"
        }
        Some("not-found") => "no <meta charset>",
        _ => "no word in the trace on a <meta charset>",
    }
}

/// The CharacterSet line of the summary.
pub fn line(found: &CharacterSet) -> String {
    let http = if found.http_charset {
        "a charset in its Content-Type header"
    } else {
        "no charset in its Content-Type header"
    };
    format!(
        "- CharacterSet: {}: the document has {http} and {}.",
        if found.passes() {
            "declared"
        } else {
            "not declared in time"
        },
        meta_words(found.meta_charset.as_deref())
    )
}

/// The CharacterSet details.
pub fn details(found: &CharacterSet, lines: &mut Vec<String>) -> Value {
    let mark = |ok: bool| if ok { "pass" } else { "FAIL" };
    lines.push(format!(
        "- {}: charset in the HTTP Content-Type header",
        mark(found.http_charset)
    ));
    lines.push(format!(
        "- {}: {}",
        mark(found.meta_charset.as_deref() == Some(EARLY)),
        meta_words(found.meta_charset.as_deref())
    ));
    if !found.passes() {
        lines.push(
            "To do: send `Content-Type: text/html; charset=utf-8`, or put \
             `<meta charset=\"utf-8\">` first in the <head>."
                .into(),
        );
    }
    json!({"characterSet": found, "passes": found.passes()})
}

/// The CharacterSet insight: whether the page declares its character encoding in time
/// (a page load only).
pub struct CharacterSetInsight;

impl Insight for CharacterSetInsight {
    const NAME: &'static str = "CharacterSet";
    const ABOUT: &'static str = "whether the page declares its encoding in time";
    type Data = Option<CharacterSet>;

    fn compute(load: &LoadContext) -> Option<CharacterSet> {
        load.nav
            .map(|nav| character_set(load.events(), nav, load.document))
    }

    fn summary(set: &InsightSet) -> Vec<String> {
        set.character_set.iter().map(line).collect()
    }

    fn details(set: &InsightSet, lines: &mut Vec<String>) -> Value {
        match &set.character_set {
            Some(found) => details(found, lines),
            None => {
                let reason = "The trace has no page load: the character set is a document's.";
                lines.push(reason.into());
                json!({"reason": reason})
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{character_set, names_charset};
    use crate::load::events;
    use crate::load::network;
    use crate::load::Navigation;

    #[test]
    fn a_charset_in_the_content_type_is_named_with_at_least_two_characters() {
        assert!(names_charset("text/html; charset=utf-8"));
        assert!(names_charset(
            "text/html;CHARSET = \"x\" ; charset=ISO-8859-1"
        ));
        assert!(!names_charset("text/html; charset=u"));
        assert!(!names_charset("text/html"));
        assert!(!names_charset("text/html; charset"));
    }

    #[test]
    fn the_last_meta_check_of_the_loads_frame_counts_with_the_documents_header() {
        let list = json!([
            {"name": "ResourceSendRequest", "ph": "I", "ts": 10.0, "pid": 1, "tid": 1,
             "args": {"data": {"requestId": "N", "url": "https://a.test/"}}},
            {"name": "ResourceReceiveResponse", "ph": "I", "ts": 11.0, "pid": 1, "tid": 1,
             "args": {"data": {"requestId": "N", "headers": [
                 {"name": "content-type", "value": "text/html"}]}}},
            {"name": "MetaCharsetCheck", "ph": "I", "ts": 12.0, "pid": 1, "tid": 1, "args": {}},
            {"name": "MetaCharsetCheck", "ph": "I", "ts": 13.0, "pid": 1, "tid": 1,
             "args": {"data": {"frame": "OTHER", "disposition": "found-in-first-1024-bytes"}}},
            {"name": "MetaCharsetCheck", "ph": "I", "ts": 14.0, "pid": 1, "tid": 1,
             "args": {"data": {"frame": "F", "disposition": "found-after-first-1024-bytes"}}}
        ]);
        let events = events::parse(list.to_string().as_bytes()).expect("a trace");
        let nav = Navigation {
            id: "N".into(),
            frame: "F".into(),
            url: "https://a.test/".into(),
            ts: 10.0,
            until: 100.0,
            pid: 1,
            tid: 1,
        };
        let requests = network::requests(&events);
        let found = character_set(&events, &nav, requests.iter().find(|r| r.id == "N"));
        assert!(!found.http_charset);
        assert_eq!(
            found.meta_charset.as_deref(),
            Some("found-after-first-1024-bytes")
        );
        assert!(!found.passes());
        assert!(super::line(&found).contains("not declared in time"));
    }
}
