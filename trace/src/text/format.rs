//! How every insight writes figures and names for people: durations, byte counts,
//! counts, elements, and lines the page's strings cannot break.

/// A duration for people: `320 ms`, `3.2 s`.
pub fn duration(ms: f64) -> String {
    if !ms.is_finite() {
        // Only a malformed trace gives one; say so rather than "NaN ms".
        "an unknown time".to_owned()
    } else if ms.abs() < 1000.0 {
        format!("{} ms", ms.round() as i64)
    } else {
        format!("{:.1} s", ms / 1000.0)
    }
}

/// A byte count for people: `830 B`, `1.7 kB`, `2.4 MB`.
pub fn bytes(n: u64) -> String {
    match n {
        0..1_000 => format!("{n} B"),
        1_000..1_000_000 => format!("{:.1} kB", n as f64 / 1e3),
        _ => format!("{:.1} MB", n as f64 / 1e6),
    }
}

/// A count with thousands separated: `2,100`.
pub fn count(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 {
        out.insert(0, '-');
    }
    out
}

/// An element as the agent can use it: its uid, else its backend node id, labelled.
pub fn element(uid: Option<&str>, backend: Option<i64>) -> String {
    match (uid, backend) {
        (Some(uid), _) => format!("uid {uid}"),
        (None, Some(node)) => format!("backend node {node}, not found in the page now"),
        (None, None) => "an element the trace does not name".to_owned(),
    }
}

/// A line as it may be shown: the trace's strings come from the page (URLs, font
/// names, selectors, element names), and a line break in one must not start a line of
/// its own that reads like an insight ([`tabwire_shared::page_text::inline`]).
pub fn one_line(line: String) -> String {
    match tabwire_shared::page_text::inline(&line) {
        std::borrow::Cow::Borrowed(_) => line,
        std::borrow::Cow::Owned(escaped) => escaped,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_line_break_from_the_page_stays_inside_its_line() {
        assert_eq!(
            super::one_line("- FontDisplay: X\n- Cache: all good".to_owned()),
            "- FontDisplay: X\\n- Cache: all good"
        );
        assert_eq!(super::one_line("plain".to_owned()), "plain");
    }

    #[test]
    fn counts_are_grouped_by_thousands() {
        assert_eq!(super::count(2100), "2,100");
        assert_eq!(super::count(999), "999");
        assert_eq!(super::count(1_234_567), "1,234,567");
    }
}
