//! CSS commands: the rules that match an element, the style sheet headers that say
//! where they are written, and the DOM node ids the CSS domain names elements by.
//!
//! Only what the cascade and its rendering read is declared; every field has a
//! default, so a rule Chrome describes with less (a user-agent rule has no ranges) or
//! more still reads.

use serde::{Deserialize, Serialize};

use super::{command, Empty};

/// `CSS.enable`: Chrome announces every style sheet (`CSS.styleSheetAdded`) before it
/// answers. Needs `DOM.enable`.
#[derive(Debug, Serialize)]
pub struct CssEnable {}
command!(CssEnable, "CSS.enable", Empty);

/// `CSS.disable`: Chrome stops tracking style sheets for us.
#[derive(Debug, Serialize)]
pub struct CssDisable {}
command!(CssDisable, "CSS.disable", Empty);

/// `DOM.getDocument`: makes node ids usable (depth 0: only the document itself).
#[derive(Debug, Serialize)]
pub struct DomGetDocument {
    /// How deep to describe the tree.
    pub depth: i64,
}
command!(DomGetDocument, "DOM.getDocument", Empty);

/// `DOM.requestNode`: the node id of a JavaScript node object.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DomRequestNode {
    /// The node, as a JavaScript object.
    pub object_id: String,
}
command!(DomRequestNode, "DOM.requestNode", NodeId);

/// A node id.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeId {
    /// The id (0 when the node is not in a document).
    pub node_id: i64,
}

/// `CSS.getMatchedStylesForNode`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CssGetMatchedStyles {
    /// The element, by node id.
    pub node_id: i64,
}
command!(
    CssGetMatchedStyles,
    "CSS.getMatchedStylesForNode",
    MatchedStyles
);

/// What `CSS.getMatchedStylesForNode` answers.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct MatchedStyles {
    /// The `style` attribute.
    pub inline_style: Option<CssStyle>,
    /// Presentational attributes.
    pub attributes_style: Option<CssStyle>,
    /// The rules that matched, lowest precedence first (importance aside).
    #[serde(rename = "matchedCSSRules")]
    pub matched_css_rules: Vec<RuleMatch>,
    /// Each flat-tree ancestor element's styles, the parent first.
    pub inherited: Vec<InheritedEntry>,
    /// The element's pseudo-elements' rules.
    pub pseudo_elements: Vec<PseudoMatches>,
    /// Registered custom properties (`@property`).
    pub css_property_rules: Vec<PropertyRule>,
    /// Custom properties registered by `CSS.registerProperty`.
    pub css_property_registrations: Vec<PropertyRegistration>,
    /// The `@keyframes` of the animations the element runs.
    #[serde(rename = "cssKeyframesRules")]
    pub css_keyframes_rules: Vec<KeyframesRule>,
    /// The `@position-try` rules its `position-try-fallbacks` names.
    pub css_position_try_rules: Vec<PositionTryRule>,
    /// The font and counter at-rules Chrome matched to it (`@font-face` of its
    /// font-family, `@font-feature-values`, `@font-palette-values`, `@counter-style`).
    pub css_at_rules: Vec<AtRule>,
}

/// One of [`MatchedStyles::css_at_rules`] (`CSS.CSSAtRule`).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AtRule {
    /// `font-face`, `font-feature-values`, `font-palette-values` or `counter-style`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Of `@font-feature-values`: the block it is (`swash`, `styleset`, ...).
    pub subsection: Option<String>,
    /// Its name (a counter style's, a palette's, a font family's), if it has one.
    pub name: Option<TextValue>,
    /// Its sheet.
    pub style_sheet_id: Option<String>,
    /// Its sheet's origin.
    pub origin: String,
    /// Its descriptors.
    pub style: CssStyle,
}

/// `@keyframes`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct KeyframesRule {
    /// The animation's name.
    pub animation_name: TextValue,
    /// Its keyframes, in source order.
    pub keyframes: Vec<Keyframe>,
}

/// One keyframe (`50% { … }`).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Keyframe {
    /// Its style sheet (none for user-agent rules).
    pub style_sheet_id: Option<String>,
    /// `regular`, `user-agent`, `injected` or `inspector`.
    pub origin: String,
    /// Its selector (`from`, `50%`).
    pub key_text: TextValue,
    /// Its declarations.
    pub style: CssStyle,
}

/// `@position-try`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PositionTryRule {
    /// Its name (`--below`).
    pub name: TextValue,
    /// Its style sheet.
    pub style_sheet_id: Option<String>,
    /// `regular`, `user-agent`, `injected` or `inspector`.
    pub origin: String,
    /// Its declarations.
    pub style: CssStyle,
    /// Whether the element is positioned by it now.
    pub active: bool,
}

/// A piece of text in a style sheet, and where it is.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TextValue {
    /// The text.
    pub text: String,
    /// Where it is.
    pub range: Option<SourceRange>,
}

/// A rule and which of its selectors matched.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RuleMatch {
    /// The rule.
    pub rule: CssRule,
    /// Indexes into its selector list.
    pub matching_selectors: Vec<usize>,
}

/// One ancestor's styles.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct InheritedEntry {
    /// Its `style` attribute.
    pub inline_style: Option<CssStyle>,
    /// Its matched rules, lowest precedence first.
    #[serde(rename = "matchedCSSRules")]
    pub matched_css_rules: Vec<RuleMatch>,
}

/// One pseudo-element's rules.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PseudoMatches {
    /// `before`, `after`, `marker`, ...
    pub pseudo_type: String,
    /// The argument of `::highlight(name)`, `::view-transition-group(name)`.
    pub pseudo_identifier: Option<String>,
    /// Its rules, lowest precedence first.
    pub matches: Vec<RuleMatch>,
}

/// A style rule.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CssRule {
    /// Its style sheet (none for user-agent rules).
    pub style_sheet_id: Option<String>,
    /// Its selectors.
    pub selector_list: SelectorList,
    /// `regular`, `user-agent`, `injected` or `inspector`.
    pub origin: String,
    /// Its declarations.
    pub style: CssStyle,
    /// The parent rules' selectors, for nested rules.
    pub nesting_selectors: Vec<String>,
    /// `@media` around it, innermost first.
    pub media: Vec<Condition>,
    /// `@container` around it, innermost first.
    pub container_queries: Vec<Condition>,
    /// `@supports` around it, innermost first.
    pub supports: Vec<Condition>,
    /// `@layer` around it, innermost first.
    pub layers: Vec<Condition>,
    /// `@scope` around it, innermost first.
    pub scopes: Vec<Condition>,
    /// The kinds of every rule around it, innermost first.
    pub rule_types: Vec<String>,
}

/// A selector list.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SelectorList {
    /// Each selector.
    pub selectors: Vec<Selector>,
    /// The whole list as written.
    pub text: String,
}

/// One selector.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Selector {
    /// As written.
    pub text: String,
    /// Where, in its style sheet.
    pub range: Option<SourceRange>,
}

/// An at-rule's prelude.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Condition {
    /// The prelude (a layer's name, a query).
    pub text: String,
    /// A container query's container name.
    pub name: Option<String>,
    /// A container query's physical axes (what the container must be sized in).
    pub physical_axes: Option<String>,
    /// A container query's logical axes.
    pub logical_axes: Option<String>,
    /// A container query asks about scroll state.
    pub queries_scroll_state: Option<bool>,
    /// A container query asks about anchoring.
    pub queries_anchored: Option<bool>,
}

/// `DOM.getContainerForNode`: the element a container query of a node's rule is
/// about (the nearest ancestor container of that name and those axes).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CssGetContainerForNode {
    /// The element the rule matched.
    pub node_id: i64,
    /// The query's container name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container_name: Option<String>,
    /// The query's physical axes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub physical_axes: Option<String>,
    /// The query's logical axes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logical_axes: Option<String>,
    /// The query asks about scroll state.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queries_scroll_state: Option<bool>,
    /// The query asks about anchoring.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queries_anchored: Option<bool>,
}
command!(CssGetContainerForNode, "DOM.getContainerForNode", Container);

/// What `DOM.getContainerForNode` answers.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Container {
    /// The container's node id, when there is one.
    pub node_id: Option<i64>,
}

impl CssGetContainerForNode {
    /// The question for `query`, a container query around a rule of `node_id`.
    pub fn of(node_id: i64, query: &Condition) -> Self {
        Self {
            node_id,
            container_name: query.name.clone().filter(|n| !n.is_empty()),
            physical_axes: query.physical_axes.clone(),
            logical_axes: query.logical_axes.clone(),
            queries_scroll_state: query.queries_scroll_state,
            queries_anchored: query.queries_anchored,
        }
    }
}

/// `DOM.resolveNode` of a node by its DOM node id (the id the CSS domain names).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DomResolveNodeId {
    /// The node.
    pub node_id: i64,
    /// Group for the object, so it can be released.
    pub object_group: String,
    /// The context (world) the object is made in.
    pub execution_context_id: i64,
}
command!(DomResolveNodeId, "DOM.resolveNode", super::dom::Resolved);

/// A declaration block.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CssStyle {
    /// Its style sheet.
    pub style_sheet_id: Option<String>,
    /// The declarations as written (with a range), then their longhands (without).
    pub css_properties: Vec<CssProperty>,
    /// Where the block is, in its style sheet.
    pub range: Option<SourceRange>,
}

/// One declaration.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CssProperty {
    /// The property.
    pub name: String,
    /// Its value (with `!important` when it has it).
    pub value: String,
    /// `!important`.
    pub important: bool,
    /// Chrome could parse it (absent means yes).
    pub parsed_ok: Option<bool>,
    /// Commented out.
    pub disabled: bool,
    /// Where it is written: only the declarations as written have one.
    pub range: Option<SourceRange>,
    /// The longhands a shorthand sets.
    pub longhand_properties: Vec<Longhand>,
}

/// A longhand a shorthand sets.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Longhand {
    /// The longhand.
    pub name: String,
}

/// A range in a style sheet's text (lines and columns from 0).
#[derive(Debug, Default, Clone, Copy, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SourceRange {
    /// First line.
    pub start_line: u32,
    /// First column.
    pub start_column: u32,
}

/// `@property`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PropertyRule {
    /// Its sheet.
    pub style_sheet_id: Option<String>,
    /// Its sheet's origin.
    pub origin: String,
    /// The property's name, and where it is written.
    pub property_name: TextValue,
    /// Its descriptors (`syntax`, `inherits`, `initial-value`).
    pub style: CssStyle,
}

/// A `CSS.registerProperty` registration.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PropertyRegistration {
    /// The property's name.
    pub property_name: String,
    /// Whether it inherits.
    pub inherits: bool,
    /// Its syntax (`<length>`, `*`).
    pub syntax: String,
    /// Its initial value, if it has one.
    pub initial_value: Option<TextValue>,
}

/// `CSS.styleSheetAdded`'s header: where a style sheet comes from.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct StyleSheetHeader {
    /// The sheet's id.
    pub style_sheet_id: String,
    /// Its URL (the document's, for a `<style>` element).
    #[serde(rename = "sourceURL")]
    pub source_url: String,
    /// `regular`, `user-agent`, `injected` or `inspector`.
    pub origin: String,
    /// Written in a `<style>` element.
    pub is_inline: bool,
    /// Made by `new CSSStyleSheet()`.
    pub is_constructed: bool,
    /// Where its text starts in the file at `source_url` (from 0).
    pub start_line: u32,
    /// The column its text starts at.
    pub start_column: u32,
}

/// `CSS.styleSheetAdded`.
#[derive(Debug, Deserialize)]
pub struct StyleSheetAdded {
    /// The sheet.
    pub header: StyleSheetHeader,
}
