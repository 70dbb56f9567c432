//! The CSS that applies to one element, as the extension worked it out: every rule
//! that matched it (and its ancestors, for what they pass on), in cascade order, each
//! declaration marked as winning or overridden.
//!
//! The extension reads Chrome's matched rules and computes the cascade (importance,
//! origin, layers, inline styles, inheritance); the host only pages and writes this.

use serde::{Deserialize, Serialize};

/// The styles of one element ([`crate::requests::GetCssStyles`]'s answer).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CssStyles {
    /// The element, as a simple selector (`p#target.target`).
    pub element: String,
    /// Every rule, highest cascade precedence first: the element's own (inline style,
    /// matched rules, presentational attributes), then each ancestor's inheritable
    /// ones, nearest first, then pseudo-elements', then the keyframes of its
    /// animations and its `@position-try` rules, then the registrations of the custom
    /// properties those rules set or read (`@property`, `CSS.registerProperty()`),
    /// then the font and counter at-rules Chrome matched to it (`@font-face` of its
    /// font-family, `@font-feature-values`, `@font-palette-values`, `@counter-style`).
    pub rules: Vec<CssRule>,
}

/// One rule (or inline style) and its declarations.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CssRule {
    /// What kind of style this is.
    pub kind: RuleKind,
    /// Its selector (`element.style` for the inline style, `p[attributes style]` for
    /// presentational attributes).
    pub selector: String,
    /// Of a selector list, the selectors that matched (empty when it is one selector).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub matching_selectors: Vec<String>,
    /// Where the style sheet came from.
    pub origin: RuleOrigin,
    /// Where the rule is written, when it is written somewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceLocation>,
    /// The at-rules (and nesting parents) around it, outermost first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wrappers: Vec<Wrapper>,
    /// For an ancestor's rule: the ancestor it applies to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inherited_from: Option<Ancestor>,
    /// For a pseudo-element's rule: the pseudo-element (`::before`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pseudo: Option<String>,
    /// Its declarations, in source order (for an ancestor, only those inherited).
    pub declarations: Vec<Declaration>,
}

impl CssRule {
    /// A rule of `kind` and `selector`, from an author's style sheet, with nothing else
    /// known yet: the fields a rule lacks stay empty, and each caller sets what it has.
    pub fn new(kind: RuleKind, selector: impl Into<String>) -> Self {
        CssRule {
            kind,
            selector: selector.into(),
            matching_selectors: Vec::new(),
            origin: RuleOrigin::Author,
            source: None,
            wrappers: Vec::new(),
            inherited_from: None,
            pseudo: None,
            declarations: Vec::new(),
        }
    }
}

/// What kind of style a [`CssRule`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RuleKind {
    /// The element's `style` attribute.
    Inline,
    /// A style rule that matched the element.
    Matched,
    /// Presentational attributes (`<td width>`, `<font color>`).
    Attributes,
    /// A rule (or inline style) of an ancestor, for what it passes on.
    Inherited,
    /// A rule of one of the element's pseudo-elements.
    Pseudo,
    /// A keyframe of an animation the element runs (inside its `@keyframes`).
    Keyframe,
    /// A `@position-try` rule the element's `position-try-fallbacks` names.
    PositionTry,
    /// A `@property` rule registering a custom property the element's rules set or
    /// read (`var()`).
    Property,
    /// A custom property the element's rules set or read, registered by script
    /// (`CSS.registerProperty()`): written as the `@property` rule it amounts to.
    RegisteredProperty,
    /// A `@font-face` of a family in the element's `font-family`.
    FontFace,
    /// A `@font-feature-values` rule (or one of its blocks) of its font-family.
    FontFeatureValues,
    /// A `@font-palette-values` rule it uses.
    FontPaletteValues,
    /// A `@counter-style` rule it uses.
    CounterStyle,
}

/// Where a rule's style sheet came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RuleOrigin {
    /// The page's own style sheets and `style` attributes.
    Author,
    /// The browser's default styles.
    UserAgent,
    /// A style sheet an extension injected.
    Injected,
    /// A rule added through DevTools.
    Inspector,
}

/// Where a rule is written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceLocation {
    /// The style sheet's URL (the document's, for a `<style>` element); empty for a
    /// sheet made by script without one.
    pub url: String,
    /// The line, from 1, in the file at `url`.
    pub line: u32,
    /// The column, from 1.
    pub column: u32,
    /// The rule is in a `<style>` element of the document at `url`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub inline: bool,
    /// The sheet was made by script (`new CSSStyleSheet()`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub constructed: bool,
}

/// An at-rule or nesting parent around a rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Wrapper {
    /// Which at-rule.
    pub kind: WrapperKind,
    /// Its prelude: the layer's name, the media or container query, the scope's
    /// `(start) to (end)`, the supports condition, the parent selector. Empty for an
    /// anonymous layer.
    pub text: String,
    /// For `@container`: the element the query is about, when Chrome named it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<Element>,
}

/// An element named in a style's explanation: a query container, an ancestor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Element {
    /// The element, as a simple selector (`div.card`).
    pub selector: String,
    /// Its snapshot uid, when it could be named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
}

/// Which at-rule a [`Wrapper`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum WrapperKind {
    /// `@layer`.
    Layer,
    /// `@media`.
    Media,
    /// `@container`.
    Container,
    /// `@scope`.
    Scope,
    /// `@supports`.
    Supports,
    /// `@starting-style`.
    StartingStyle,
    /// A parent style rule (CSS nesting).
    Nesting,
    /// `@keyframes`, around a keyframe.
    Keyframes,
    /// `@font-feature-values`, around one of its blocks (`@swash`).
    FontFeatureValues,
}

impl WrapperKind {
    /// How the at-rule is written (`@layer`); a nesting parent has no keyword.
    pub fn keyword(self) -> &'static str {
        match self {
            WrapperKind::Layer => "@layer",
            WrapperKind::Media => "@media",
            WrapperKind::Container => "@container",
            WrapperKind::Scope => "@scope",
            WrapperKind::Supports => "@supports",
            WrapperKind::StartingStyle => "@starting-style",
            WrapperKind::Nesting => "",
            WrapperKind::Keyframes => "@keyframes",
            WrapperKind::FontFeatureValues => "@font-feature-values",
        }
    }
}

/// The ancestor an inherited rule applies to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Ancestor {
    /// The ancestor, as a simple selector (`div.card`).
    pub selector: String,
    /// How far up it is: 1 for the parent.
    pub depth: u32,
    /// Its snapshot uid, when it could be named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
}

/// One declaration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Declaration {
    /// The property (`color`, `--accent`).
    pub name: String,
    /// Its value as written, without `!important`.
    pub value: String,
    /// It is `!important`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub important: bool,
    /// Whether it is the one that applies.
    pub status: DeclarationStatus,
}

/// Whether a [`Declaration`] applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DeclarationStatus {
    /// It wins the cascade (for a shorthand: for at least one of its longhands).
    Active,
    /// Another declaration wins it (for a shorthand: every one of its longhands).
    Overridden,
    /// The browser could not parse it; it is ignored.
    Invalid,
    /// It is commented out in DevTools.
    Disabled,
}

impl DeclarationStatus {
    /// How the status is shown in text: nothing for an active declaration.
    pub fn tag(self) -> &'static str {
        match self {
            DeclarationStatus::Active => "",
            DeclarationStatus::Overridden => "[overridden] ",
            DeclarationStatus::Invalid => "[invalid] ",
            DeclarationStatus::Disabled => "[disabled] ",
        }
    }
}
