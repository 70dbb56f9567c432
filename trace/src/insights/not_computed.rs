//! DevTools' insights that tabwire does not compute, each with why: an agent used to
//! DevTools' names may ask for one, and should learn what stands in the way and where
//! to look instead, not only that the name is unknown.

/// Each insight name with the reason it is not computed.
pub const NOT_COMPUTED: [(&str, &str); 2] = [
    (
        "DuplicatedJavaScript",
        "it finds modules bundled into more than one script from the scripts' source maps, \
         and tabwire does not fetch source maps when it analyses a trace",
    ),
    (
        "LegacyJavaScript",
        "it matches each script's source against a catalogue of polyfills and transpiled \
         code patterns, with their sizes, that tabwire does not carry",
    ),
];

/// Why `name` is not computed, when it is a DevTools insight tabwire leaves out.
pub fn reason(name: &str) -> Option<&'static str> {
    NOT_COMPUTED
        .iter()
        .find(|(known, _)| known.eq_ignore_ascii_case(name))
        .map(|(_, why)| *why)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_names_left_out_are_not_among_those_computed() {
        for (name, _) in super::NOT_COMPUTED {
            assert!(!crate::INSIGHT_NAMES.contains(&name), "{name}");
        }
        assert!(super::reason("legacyjavascript").is_some());
        assert!(super::reason("LCPBreakdown").is_none());
    }
}
