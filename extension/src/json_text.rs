//! JSON text that JavaScript wrote, read in Rust.
//!
//! `JSON.stringify` writes a lone surrogate (half of an emoji, as a page's `slice()`
//! leaves it) as an escape such as `\ud83d`, which is valid JSON but names no Unicode
//! scalar value, so no Rust string can hold it and serde_json refuses the whole text.
//! Every JSON text that page scripts or Chrome's JavaScript APIs wrote is read through
//! [`parse`], which turns each lone surrogate into U+FFFD first — what the browser
//! itself shows for one — so one odd character never costs a whole result.

use std::borrow::Cow;

use serde::de::DeserializeOwned;

/// `text` parsed as JSON, each lone surrogate escape read as U+FFFD.
pub fn parse<T: DeserializeOwned>(text: &str) -> serde_json::Result<T> {
    serde_json::from_str(&well_formed(text))
}

/// `text` with every `\uXXXX` escape of a lone surrogate written as `\ufffd`; a
/// surrogate pair (a high escape followed by a low one) is kept. Borrowed when
/// there is none, which is nearly always.
pub fn well_formed(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut i = 0;
    // Outside strings JSON has no backslash, so every backslash starts an escape.
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        let Some(unit) = escaped_unit(bytes, i) else {
            // `\"`, `\\`, `\n`, ... (or a broken escape, left for the parser to name).
            i += 2;
            continue;
        };
        let high = (0xD800..0xDC00).contains(&unit);
        let low = (0xDC00..0xE000).contains(&unit);
        if high && escaped_unit(bytes, i + 6).is_some_and(|u| (0xDC00..0xE000).contains(&u)) {
            i += 12;
            continue;
        }
        if high || low {
            let out = out.get_or_insert_with(|| String::with_capacity(text.len()));
            out.push_str(&text[copied..i]);
            out.push_str("\\ufffd");
            copied = i + 6;
        }
        i += 6;
    }
    match out {
        None => Cow::Borrowed(text),
        Some(mut out) => {
            out.push_str(&text[copied..]);
            Cow::Owned(out)
        }
    }
}

/// The UTF-16 unit of a `\uXXXX` escape starting at `at`, if one does.
fn escaped_unit(bytes: &[u8], at: usize) -> Option<u32> {
    let escape = bytes.get(at..at + 6)?;
    if escape[0] != b'\\' || escape[1] != b'u' {
        return None;
    }
    let hex = std::str::from_utf8(&escape[2..]).ok()?;
    u32::from_str_radix(hex, 16).ok()
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;

    #[test]
    fn lone_surrogates_become_replacement_characters_at_any_depth() {
        let cases = [
            (r#""\ud83d""#, json!("\u{fffd}")),
            (r#""\ude00x""#, json!("\u{fffd}x")),
            (
                r#"{"a":[["\ud83dz\ud83d"]]}"#,
                json!({"a": [["\u{fffd}z\u{fffd}"]]}),
            ),
            (r#"{"\udbff":1}"#, json!({"\u{fffd}": 1})),
            // Low then high is two lone halves, not a pair.
            (r#""\ude00\ud83d""#, json!("\u{fffd}\u{fffd}")),
            // A high half followed by another high half, then a proper pair.
            (r#""\ud83d\ud83d\ude00""#, json!("\u{fffd}😀")),
        ];
        for (text, expected) in cases {
            assert_eq!(parse::<Value>(text).unwrap(), expected, "{text}");
        }
    }

    #[test]
    fn pairs_escaped_backslashes_and_plain_text_are_left_alone() {
        for text in [
            r#""\ud83d\ude00""#,
            r#""\\ud83d""#,
            r#""a\\\"\n\u00e9""#,
            r#"{"plain": [1, 2.5, null, true]}"#,
        ] {
            assert!(matches!(well_formed(text), Cow::Borrowed(_)), "{text}");
        }
        assert_eq!(parse::<Value>(r#""\\ud83d""#).unwrap(), json!("\\ud83d"));
    }

    #[test]
    fn broken_text_is_still_refused_by_the_parser() {
        for text in [r#""\u12""#, r#""\ud83d"#, r#"{"a": "\x"}"#, "\\"] {
            assert!(parse::<Value>(text).is_err(), "{text}");
        }
    }
}
