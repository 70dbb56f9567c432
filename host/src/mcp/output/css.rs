//! An element's CSS: one page of the rules that apply to it, the rules that weigh most
//! first. The rules are the extension's ([`tabwire_shared::css`]); the shapes below
//! say how they serialise, and the tests check a rule of every kind against them.

use schemars::JsonSchema;
use serde::Serialize;
use tabwire_shared::css::CssRule;

/// The `structuredContent` key of the CSS section (its position is in `pagination`).
#[derive(Debug, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Keys<'a> {
    /// One page of the CSS rules that apply to the element, the rules that weigh most
    /// first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub css_styles: Option<Styles<'a>>,
}

/// One page of an element's rules.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Styles<'a> {
    /// The element's uid, as asked for.
    pub uid: &'a str,
    /// The element as a simple selector.
    pub element: &'a str,
    /// The rules of the page shown.
    #[schemars(with = "Vec<Rule>")]
    pub rules: &'a [CssRule],
}

/// A rule (or inline style) and its declarations, as [`CssRule`] serialises.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct Rule {
    kind: RuleKind,
    selector: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    matching_selectors: Vec<String>,
    origin: RuleOrigin,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<Located>,
    /// The at-rules around the rule, outermost first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    wrappers: Vec<Wrapper>,
    #[serde(skip_serializing_if = "Option::is_none")]
    inherited_from: Option<Ancestor>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pseudo: Option<String>,
    declarations: Vec<Declaration>,
}

/// What kind of style a rule is.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
enum RuleKind {
    Inline,
    Matched,
    Attributes,
    Inherited,
    Pseudo,
    Keyframe,
    PositionTry,
    Property,
    RegisteredProperty,
    FontFace,
    FontFeatureValues,
    FontPaletteValues,
    CounterStyle,
}

/// Where a rule's style sheet came from.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
enum RuleOrigin {
    Author,
    UserAgent,
    Injected,
    Inspector,
}

/// Where a rule is written.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct Located {
    url: String,
    line: u32,
    column: u32,
    /// In a <style> element of the document at url.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    inline: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    constructed: bool,
}

/// An at-rule (or nesting parent) around a rule.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct Wrapper {
    kind: WrapperKind,
    text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    container: Option<Container>,
}

/// The kinds of at-rule around a rule.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
enum WrapperKind {
    Layer,
    Media,
    Container,
    Scope,
    Supports,
    StartingStyle,
    Nesting,
    Keyframes,
    FontFeatureValues,
}

/// The element a container query is about.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct Container {
    selector: String,
    /// Its snapshot uid.
    #[serde(skip_serializing_if = "Option::is_none")]
    uid: Option<String>,
}

/// The ancestor an inherited rule applies to.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct Ancestor {
    selector: String,
    /// 1 for the parent.
    depth: u32,
    /// The ancestor's snapshot uid.
    #[serde(skip_serializing_if = "Option::is_none")]
    uid: Option<String>,
}

/// One declaration of a rule.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct Declaration {
    name: String,
    value: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    important: bool,
    status: DeclarationStatus,
}

/// Whether a declaration applies.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
enum DeclarationStatus {
    Active,
    Overridden,
    Invalid,
    Disabled,
}

#[cfg(test)]
pub(super) fn sample() -> serde_json::Map<String, serde_json::Value> {
    use tabwire_shared::css::{
        Ancestor, Declaration, DeclarationStatus, Element, RuleKind, RuleOrigin, SourceLocation,
        Wrapper, WrapperKind,
    };
    let rule = CssRule {
        matching_selectors: vec!["p".into()],
        origin: RuleOrigin::UserAgent,
        source: Some(SourceLocation {
            url: "http://x/a.css".into(),
            line: 1,
            column: 2,
            inline: true,
            constructed: true,
        }),
        wrappers: vec![Wrapper {
            kind: WrapperKind::StartingStyle,
            text: String::new(),
            container: Some(Element {
                selector: "div".into(),
                uid: Some("1_2".into()),
            }),
        }],
        inherited_from: Some(Ancestor {
            selector: "body".into(),
            depth: 2,
            uid: Some("1_1".into()),
        }),
        pseudo: Some("::before".into()),
        declarations: vec![Declaration {
            name: "color".into(),
            value: "red".into(),
            important: true,
            status: DeclarationStatus::Overridden,
        }],
        ..CssRule::new(RuleKind::RegisteredProperty, "p, q")
    };
    super::entries(&Keys {
        css_styles: Some(Styles {
            uid: "1_3",
            element: "p#x",
            rules: &[rule],
        }),
    })
}
