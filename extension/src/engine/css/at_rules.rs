//! The at-rules that say what an element's styles use rather than match it.
//!
//! - Registered custom properties: Chrome lists every `@property` rule and every
//!   `CSS.registerProperty()` registration of the document, whatever the element;
//!   only those of custom properties the element's shown rules set, or read with
//!   `var()`, are kept. A script's registration wins over a `@property` rule of the
//!   same name (css-properties-values-api), whose descriptors are then marked
//!   overridden.
//! - Font and counter at-rules: Chrome matches them to the element itself (the
//!   `@font-face` rules of the families in its `font-family`, and the
//!   `@font-feature-values`, `@font-palette-values` and `@counter-style` rules it
//!   uses); they are shown as they are written.
//!
//! It deliberately leaves out `@function` rules (`cssFunctionRules`), whose bodies are
//! a tree of conditions rather than declarations.

use std::collections::BTreeSet;

use tabwire_shared::css::{
    CssRule, Declaration, DeclarationStatus, RuleKind, Wrapper, WrapperKind,
};

use super::cascade::{as_written, located, origin, Matched};
use crate::cdp::css as cdp;

/// The registrations of the custom properties `rules` set or read, then the font and
/// counter at-rules Chrome matched to the element, as rules to show after them.
pub fn used_at_rules(m: &Matched<'_>, rules: &[CssRule]) -> Vec<CssRule> {
    let used = used_custom_properties(rules);
    let registered: BTreeSet<&str> = (m.styles.css_property_registrations.iter())
        .map(|r| r.property_name.as_str())
        .collect();
    let mut out = Vec::new();
    for rule in &m.styles.css_property_rules {
        let name = &rule.property_name.text;
        if !used.contains(name.as_str()) {
            continue;
        }
        let mut declarations = as_written(&rule.style);
        if registered.contains(name.as_str()) {
            overridden(&mut declarations);
        }
        out.push(CssRule {
            source: located(
                m.sheets,
                rule.style_sheet_id.as_deref(),
                rule.property_name.range.or(rule.style.range),
            ),
            origin: origin(&rule.origin),
            declarations,
            ..CssRule::new(RuleKind::Property, format!("@property {name}"))
        });
    }
    for registration in &m.styles.css_property_registrations {
        let name = &registration.property_name;
        if used.contains(name.as_str()) {
            out.push(CssRule {
                declarations: registration_descriptors(registration),
                ..CssRule::new(RuleKind::RegisteredProperty, format!("@property {name}"))
            });
        }
    }
    out.extend(
        m.styles
            .css_at_rules
            .iter()
            .filter_map(|rule| font_rule(m, rule)),
    );
    out
}

/// A font or counter at-rule as shown; `None` for a kind this Chrome did not list.
fn font_rule(m: &Matched<'_>, rule: &cdp::AtRule) -> Option<CssRule> {
    let name = rule.name.as_ref().map(|n| n.text.as_str()).unwrap_or("");
    let named = |keyword: &str| match name {
        "" => keyword.to_owned(),
        name => format!("{keyword} {name}"),
    };
    let (kind, selector, wrappers) = match rule.kind.as_str() {
        "font-face" => (RuleKind::FontFace, "@font-face".to_owned(), Vec::new()),
        "font-palette-values" => (
            RuleKind::FontPaletteValues,
            named("@font-palette-values"),
            Vec::new(),
        ),
        "counter-style" => (RuleKind::CounterStyle, named("@counter-style"), Vec::new()),
        "font-feature-values" => match &rule.subsection {
            // A block of the rule (`@swash { … }`) inside it.
            Some(block) => (
                RuleKind::FontFeatureValues,
                format!("@{block}"),
                vec![Wrapper {
                    kind: WrapperKind::FontFeatureValues,
                    text: name.to_owned(),
                    container: None,
                }],
            ),
            None => (
                RuleKind::FontFeatureValues,
                named("@font-feature-values"),
                Vec::new(),
            ),
        },
        _ => return None,
    };
    let range = rule
        .name
        .as_ref()
        .and_then(|n| n.range)
        .or(rule.style.range);
    Some(CssRule {
        source: located(m.sheets, rule.style_sheet_id.as_deref(), range),
        origin: origin(&rule.origin),
        wrappers,
        declarations: as_written(&rule.style),
        ..CssRule::new(kind, selector)
    })
}

/// A script's registration as the `@property` descriptors it amounts to.
fn registration_descriptors(registration: &cdp::PropertyRegistration) -> Vec<Declaration> {
    let descriptor = |name: &str, value: String| Declaration {
        name: name.to_owned(),
        value,
        important: false,
        status: DeclarationStatus::Active,
    };
    let syntax = serde_json::to_string(&registration.syntax)
        .unwrap_or_else(|_| format!("\"{}\"", registration.syntax));
    let mut out = vec![
        descriptor("syntax", syntax),
        descriptor("inherits", registration.inherits.to_string()),
    ];
    if let Some(initial) = &registration.initial_value {
        out.push(descriptor("initial-value", initial.text.clone()));
    }
    out
}

/// Marks declarations that would apply as overridden.
fn overridden(declarations: &mut [Declaration]) {
    for d in declarations {
        if d.status == DeclarationStatus::Active {
            d.status = DeclarationStatus::Overridden;
        }
    }
}

/// The custom properties `rules` declare, or read in a value with `var()`.
fn used_custom_properties(rules: &[CssRule]) -> BTreeSet<&str> {
    let mut used = BTreeSet::new();
    for decl in rules.iter().flat_map(|r| r.declarations.iter()) {
        if decl.name.starts_with("--") {
            used.insert(decl.name.as_str());
        }
        used.extend(var_references(&decl.value));
    }
    used
}

/// The custom properties a value reads: each `var(--name` in it (fallbacks included,
/// as they nest `var()` too; function names are ASCII case-insensitive).
fn var_references(value: &str) -> Vec<&str> {
    // Lowered in ASCII only, so its byte offsets are the value's.
    let lowered = value.to_ascii_lowercase();
    let mut found = Vec::new();
    for (at, call) in lowered.match_indices("var(") {
        let rest = value[at + call.len()..].trim_start();
        let in_name = |c: char| c.is_alphanumeric() || c == '-' || c == '_' || !c.is_ascii();
        let end = rest.find(|c: char| !in_name(c)).unwrap_or(rest.len());
        let name = &rest[..end];
        if name.len() > 2 && name.starts_with("--") {
            found.push(name);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn var_references_are_found_in_fallbacks_and_calls() {
        let value = "calc(var( --gap) * 2) var(--a, VAR(--b-2, 1px)) var(x) var(--)";
        assert_eq!(var_references(value), ["--gap", "--a", "--b-2"]);
    }
}
