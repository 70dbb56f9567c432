//! Which CSS properties an element takes from its parent when nothing sets them: the
//! properties the specifications define as inherited, and custom properties unless
//! registered with `inherits: false`.

/// The inherited standard properties (longhands), sorted, for a binary search.
const INHERITED: &[&str] = &[
    "-webkit-border-horizontal-spacing",
    "-webkit-border-vertical-spacing",
    "-webkit-locale",
    "-webkit-rtl-ordering",
    "-webkit-tap-highlight-color",
    "-webkit-text-combine",
    "-webkit-text-fill-color",
    "-webkit-text-security",
    "-webkit-text-stroke-color",
    "-webkit-text-stroke-width",
    "-webkit-user-modify",
    "-webkit-writing-mode",
    "border-collapse",
    "border-spacing",
    "caption-side",
    "caret-color",
    "clip-rule",
    "color",
    "color-interpolation",
    "color-interpolation-filters",
    "color-rendering",
    "color-scheme",
    "cursor",
    "direction",
    "dominant-baseline",
    "empty-cells",
    "fill",
    "fill-opacity",
    "fill-rule",
    "font-family",
    "font-feature-settings",
    "font-kerning",
    "font-language-override",
    "font-optical-sizing",
    "font-palette",
    "font-size",
    "font-size-adjust",
    "font-stretch",
    "font-style",
    "font-synthesis-small-caps",
    "font-synthesis-style",
    "font-synthesis-weight",
    "font-variant-alternates",
    "font-variant-caps",
    "font-variant-east-asian",
    "font-variant-emoji",
    "font-variant-ligatures",
    "font-variant-numeric",
    "font-variant-position",
    "font-variation-settings",
    "font-weight",
    "forced-color-adjust",
    "hyphenate-character",
    "hyphenate-limit-chars",
    "hyphens",
    "image-orientation",
    "image-rendering",
    "letter-spacing",
    "line-break",
    "line-height",
    "list-style-image",
    "list-style-position",
    "list-style-type",
    "marker-end",
    "marker-mid",
    "marker-start",
    "math-depth",
    "math-shift",
    "math-style",
    "orphans",
    "overflow-wrap",
    "paint-order",
    "pointer-events",
    "print-color-adjust",
    "quotes",
    "ruby-align",
    "ruby-position",
    "shape-rendering",
    "stroke",
    "stroke-dasharray",
    "stroke-dashoffset",
    "stroke-linecap",
    "stroke-linejoin",
    "stroke-miterlimit",
    "stroke-opacity",
    "stroke-width",
    "tab-size",
    "text-align",
    "text-align-last",
    "text-anchor",
    "text-autospace",
    "text-decoration-skip-ink",
    "text-emphasis-color",
    "text-emphasis-position",
    "text-emphasis-style",
    "text-indent",
    "text-justify",
    "text-orientation",
    "text-rendering",
    "text-shadow",
    "text-size-adjust",
    "text-spacing-trim",
    "text-transform",
    "text-underline-offset",
    "text-underline-position",
    "text-wrap-mode",
    "text-wrap-style",
    "visibility",
    "white-space-collapse",
    "widows",
    "word-break",
    "word-spacing",
    "writing-mode",
];

/// Whether `name` is inherited; `registered_not_inheriting` lists the custom
/// properties registered with `inherits: false`.
pub fn is_inherited(name: &str, registered_not_inheriting: &[String]) -> bool {
    if name.starts_with("--") {
        return !registered_not_inheriting.iter().any(|n| n == name);
    }
    INHERITED.binary_search(&name).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_sorted_so_lookups_find_everything() {
        assert!(INHERITED.windows(2).all(|w| w[0] < w[1]));
        assert!(is_inherited("color", &[]));
        assert!(is_inherited("font-size", &[]));
        assert!(!is_inherited("margin-top", &[]));
    }

    #[test]
    fn custom_properties_inherit_unless_registered_otherwise() {
        assert!(is_inherited("--accent", &[]));
        assert!(!is_inherited("--accent", &["--accent".to_owned()]));
    }
}
