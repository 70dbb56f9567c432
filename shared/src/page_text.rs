//! The one rule for page text inside a line: whatever a page wrote (a title, a URL, a
//! font name, a console message) never ends the line it is shown in.
//!
//! Replies and trace insights are read line by line, so a line break in page text would
//! let the page start a line of its own that reads like tabwire's. Every place that puts
//! page text inside a line goes through [`inline`]: the host's reply writer
//! (`host/src/mcp/render/page_text.rs`, which adds quoting and fences on top) and the
//! trace analysis's text alike.

use std::borrow::Cow;
use std::fmt::Write;

/// Whether a reader may end a line at `c`: control characters but the tab (`\n`, `\r`,
/// vertical tab, form feed, U+0085 and the other C0 and C1 controls), and the Unicode
/// line and paragraph separators (U+2028, U+2029).
pub fn breaks_line(c: char) -> bool {
    (c.is_control() && c != '\t') || matches!(c, '\u{2028}' | '\u{2029}')
}

/// `text` for a place inside one line: each character that [`breaks_line`] is written
/// as an escape (`\n`, `\r`, `\u{2028}`). Text without one comes back as it is.
pub fn inline(text: &str) -> Cow<'_, str> {
    if !text.chars().any(breaks_line) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if breaks_line(c) {
            // `\n`, `\r`, else `\u{…}`.
            let _ = write!(out, "{}", c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_break_is_escaped_and_plain_text_borrowed() {
        assert!(matches!(inline("plain\ttext"), Cow::Borrowed(_)));
        assert_eq!(
            inline("a\nb\rc\u{2028}d\u{85}e"),
            "a\\nb\\rc\\u{2028}d\\u{85}e"
        );
    }
}
