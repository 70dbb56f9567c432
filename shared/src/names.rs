//! Names people read: an agent's name as it gave it, shown in the browser's UI.
//!
//! The name is untrusted input. Control characters and the invisible formatting ones
//! (zero-width spaces and joiners, bidirectional overrides and isolates, soft hyphens)
//! go, so that one agent cannot pass for another by a name that looks the same;
//! whitespace runs become one space; the result is cut to [`MAX_NAME_CHARS`].

/// The longest name shown, in characters.
pub const MAX_NAME_CHARS: usize = 60;

/// `raw` made safe to show, or `None` if nothing visible is left.
pub fn display_name(raw: &str) -> Option<String> {
    display_text(raw, MAX_NAME_CHARS)
}

/// `raw` made safe to show as [`display_name`] does, cut to `max_chars` characters.
pub fn display_text(raw: &str, max_chars: usize) -> Option<String> {
    let visible: String = raw
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .filter(|c| !is_invisible_format(*c))
        .collect();
    let words: Vec<&str> = visible.split_whitespace().collect();
    let joined = words.join(" ");
    let cut: String = joined.chars().take(max_chars).collect();
    let cut = cut.trim_end();
    (!cut.is_empty()).then(|| cut.to_owned())
}

/// Characters that change how text looks or reads without showing themselves.
fn is_invisible_format(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{061C}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206F}'
            | '\u{FEFF}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_lose_what_cannot_be_seen() {
        assert_eq!(display_name("claude-code").as_deref(), Some("claude-code"));
        assert_eq!(display_name(" a\u{7}\nb\t ").as_deref(), Some("a b"));
        assert_eq!(display_name("cl\u{200B}aude").as_deref(), Some("claude"));
        assert_eq!(display_name("\u{202E}edualc").as_deref(), Some("edualc"));
        assert_eq!(display_name("\u{FEFF} \u{200D}"), None);
        assert_eq!(display_name(""), None);
        let long = display_name(&"x".repeat(500)).unwrap();
        assert_eq!(long.chars().count(), MAX_NAME_CHARS);
    }
}
