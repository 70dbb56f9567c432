//! An element's CSS as the agent reads it: one page of its rules, highest cascade
//! precedence first, written as CSS (each rule inside the at-rules around it, where it
//! is written in a comment above it, losing declarations tagged `[overridden]`, the
//! at-rules it uses last), and the same rules as `structuredContent`.
//!
//! The rules are the extension's ([`tabwire_shared::css`]); [`shape`] says how they
//! serialise, and the schema test checks a rule with every field set against it.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};
use tabwire_shared::css::{
    CssRule, CssStyles, Element, RuleKind, RuleOrigin, SourceLocation, WrapperKind,
};

use super::lists;
use crate::mcp::output::page_text;
use crate::mcp::paginate::paginate;

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
    #[schemars(with = "Vec<shape::Rule>")]
    pub rules: &'a [CssRule],
}

/// How the extension's rules serialise ([`CssRule`] and what it holds), as schemas.
mod shape {
    use schemars::JsonSchema;

    /// A rule (or inline style) and its declarations, as [`CssRule`] serialises.
    #[derive(JsonSchema)]
    #[serde(rename_all = "camelCase")]
    #[allow(dead_code)]
    pub(super) struct Rule {
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
}

/// Rules per page when the agent does not say.
pub const DEFAULT_PAGE_SIZE: usize = 10;

/// The lines and `structuredContent` of one page of `styles`, for the element `uid`.
pub fn styles_page(
    styles: &CssStyles,
    uid: &str,
    page_size: Option<usize>,
    page_idx: Option<usize>,
) -> (Vec<String>, Map<String, Value>) {
    let size = page_size.unwrap_or(DEFAULT_PAGE_SIZE);
    let page = paginate(styles.rules.len(), Some(size), page_idx);
    let shown = &styles.rules[page.start..page.end];
    let mut lines = vec![format!("Styles of {} (uid \"{uid}\"):", styles.element)];
    if styles.rules.is_empty() {
        lines.push("No rules apply to it (only inherited and initial values).".to_owned());
    } else {
        lines.push(page.summary.clone());
    }
    let mut ancestor = None;
    for rule in shown {
        lines.push(String::new());
        let from = rule.inherited_from.as_ref().map(|a| (a.depth, &a.selector));
        if from != ancestor {
            if let Some((depth, selector)) = from {
                let up = if depth == 1 {
                    "the parent".to_owned()
                } else {
                    format!("{depth} levels up")
                };
                let uid = match rule.inherited_from.as_ref().and_then(|a| a.uid.as_ref()) {
                    Some(uid) => format!(", uid \"{uid}\""),
                    None => String::new(),
                };
                lines.push(format!("Inherited from {selector} ({up}{uid}):"));
            }
            ancestor = from;
        }
        let indent = if from.is_some() { 1 } else { 0 };
        write_rule(&mut lines, rule, indent);
    }
    let mut data = super::entries(&Keys {
        css_styles: Some(Styles {
            uid,
            element: &styles.element,
            rules: shown,
        }),
    });
    data.extend(super::entries(&lists::Keys {
        pagination: Some(page.pagination()),
        ..lists::Keys::default()
    }));
    (lines, data)
}

/// One rule as CSS, with its at-rules around it.
fn write_rule(lines: &mut Vec<String>, rule: &CssRule, indent: usize) {
    let pad = |depth: usize| "  ".repeat(depth);
    let mut notes = Vec::new();
    if let Some(pseudo) = &rule.pseudo {
        notes.push(format!("{pseudo} pseudo-element"));
    }
    match rule.kind {
        RuleKind::Keyframe => notes.push("a keyframe of an animation it runs".to_owned()),
        RuleKind::PositionTry => notes.push("a position-try fallback it names".to_owned()),
        RuleKind::Property => notes.push("registers a custom property it uses".to_owned()),
        RuleKind::RegisteredProperty => {
            notes.push("registered by CSS.registerProperty(): a custom property it uses".to_owned())
        }
        RuleKind::FontFace => notes.push("a font face of its font-family".to_owned()),
        RuleKind::FontFeatureValues => {
            notes.push("font feature values of its font-family".to_owned())
        }
        RuleKind::FontPaletteValues => notes.push("a font palette it uses".to_owned()),
        RuleKind::CounterStyle => notes.push("a counter style it uses".to_owned()),
        RuleKind::Inline
        | RuleKind::Matched
        | RuleKind::Attributes
        | RuleKind::Inherited
        | RuleKind::Pseudo => {}
    }
    if let Some(where_) = source(rule) {
        notes.push(where_);
    }
    if !rule.matching_selectors.is_empty() {
        notes.push(format!("matched: {}", rule.matching_selectors.join(", ")));
    }
    if !notes.is_empty() {
        lines.push(format!(
            "{}/* {} */",
            pad(indent),
            comment_safe(&notes.join("; "))
        ));
    }
    let mut depth = indent;
    for wrapper in &rule.wrappers {
        let head = match (wrapper.kind, wrapper.text.is_empty()) {
            (WrapperKind::Nesting, _) => page_text::line_start(&wrapper.text).into_owned(),
            (kind, true) => kind.keyword().to_owned(),
            (kind, false) => format!("{} {}", kind.keyword(), wrapper.text),
        };
        let about = match &wrapper.container {
            Some(Element { selector, uid }) => {
                let uid = uid
                    .as_ref()
                    .map(|u| format!(", uid \"{u}\""))
                    .unwrap_or_default();
                format!(" /* container: {}{uid} */", comment_safe(selector))
            }
            None => String::new(),
        };
        lines.push(format!("{}{head} {{{about}", pad(depth)));
        depth += 1;
    }
    // A selector and a property name come first on their lines.
    lines.push(format!(
        "{}{} {{",
        pad(depth),
        page_text::line_start(&rule.selector)
    ));
    for decl in &rule.declarations {
        let important = if decl.important { " !important" } else { "" };
        lines.push(format!(
            "{}{}{}: {}{important};",
            pad(depth + 1),
            decl.status.tag(),
            page_text::line_start(&decl.name),
            decl.value
        ));
    }
    lines.push(format!("{}}}", pad(depth)));
    while depth > indent {
        depth -= 1;
        lines.push(format!("{}}}", pad(depth)));
    }
}

/// Where a rule comes from, in words.
fn source(rule: &CssRule) -> Option<String> {
    match rule.origin {
        RuleOrigin::UserAgent => return Some("user agent stylesheet".to_owned()),
        RuleOrigin::Injected => return Some("injected stylesheet".to_owned()),
        RuleOrigin::Inspector => return Some("added in DevTools".to_owned()),
        RuleOrigin::Author => {}
    }
    let SourceLocation {
        url,
        line,
        column,
        inline,
        constructed,
    } = rule.source.as_ref()?;
    let at = if url.is_empty() && *constructed {
        format!("constructed stylesheet:{line}:{column}")
    } else {
        format!("{url}:{line}:{column}")
    };
    Some(if *inline {
        format!("<style> in {at}")
    } else {
        at
    })
}

/// Text made safe to put inside a CSS comment.
fn comment_safe(text: &str) -> String {
    text.replace("*/", "* /")
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

#[cfg(test)]
mod tests {
    use super::*;
    use tabwire_shared::css::{
        Ancestor, Declaration, DeclarationStatus, Element, RuleKind, Wrapper, WrapperKind,
    };

    fn decl(name: &str, value: &str, important: bool, status: DeclarationStatus) -> Declaration {
        Declaration {
            name: name.into(),
            value: value.into(),
            important,
            status,
        }
    }

    fn rule(kind: RuleKind, selector: &str, declarations: Vec<Declaration>) -> CssRule {
        CssRule {
            declarations,
            ..CssRule::new(kind, selector)
        }
    }

    fn sample() -> CssStyles {
        use DeclarationStatus::*;
        let mut layered = rule(
            RuleKind::Matched,
            "#target.target",
            vec![
                decl("padding", "1px", false, Overridden),
                decl("border-color", "red", true, Active),
            ],
        );
        layered.source = Some(SourceLocation {
            url: "https://a.test/styles.css".into(),
            line: 12,
            column: 3,
            inline: false,
            constructed: false,
        });
        layered.wrappers = vec![
            Wrapper {
                kind: WrapperKind::Media,
                text: "(min-width: 1px)".into(),
                container: None,
            },
            Wrapper {
                kind: WrapperKind::Layer,
                text: "base".into(),
                container: None,
            },
        ];
        let mut listed = rule(
            RuleKind::Matched,
            "a, .target",
            vec![decl("color", "var(--accent)", false, Active)],
        );
        listed.matching_selectors = vec![".target".into()];
        listed.wrappers = vec![Wrapper {
            kind: WrapperKind::Container,
            text: "card (min-width: 10px)".into(),
            container: Some(Element {
                selector: "div.card".into(),
                uid: Some("1_2".into()),
            }),
        }];
        listed.source = Some(SourceLocation {
            url: "https://a.test/".into(),
            line: 10,
            column: 1,
            inline: true,
            constructed: false,
        });
        let mut ua = rule(
            RuleKind::Matched,
            "p",
            vec![decl("display", "block", false, Overridden)],
        );
        ua.origin = RuleOrigin::UserAgent;
        let mut inherited = rule(
            RuleKind::Inherited,
            "element.style",
            vec![decl("line-height", "2", false, Active)],
        );
        inherited.inherited_from = Some(Ancestor {
            selector: "div.card".into(),
            depth: 1,
            uid: Some("1_2".into()),
        });
        let mut root = rule(
            RuleKind::Inherited,
            ":root",
            vec![decl("--accent", "rebeccapurple", false, Active)],
        );
        root.inherited_from = Some(Ancestor {
            selector: "html".into(),
            depth: 3,
            uid: None,
        });
        let mut before = rule(
            RuleKind::Pseudo,
            ".target::before",
            vec![decl("content", "\"*/\"", false, Active)],
        );
        before.pseudo = Some("::before".into());
        let mut keyframe = rule(
            RuleKind::Keyframe,
            "50%",
            vec![decl("opacity", "0.5", false, Active)],
        );
        keyframe.wrappers = vec![Wrapper {
            kind: WrapperKind::Keyframes,
            text: "pulse".into(),
            container: None,
        }];
        let mut property = rule(
            RuleKind::Property,
            "@property --gap",
            vec![decl("syntax", "\"<length>\"", false, Active)],
        );
        property.source = Some(SourceLocation {
            url: "https://a.test/".into(),
            line: 20,
            column: 11,
            inline: true,
            constructed: false,
        });
        let registered = rule(
            RuleKind::RegisteredProperty,
            "@property --zoom",
            vec![decl("inherits", "false", false, Active)],
        );
        let face = rule(
            RuleKind::FontFace,
            "@font-face",
            vec![decl("font-family", "\"Frame Sans\"", false, Active)],
        );
        CssStyles {
            element: "p#target.target".into(),
            rules: vec![
                rule(
                    RuleKind::Inline,
                    "element.style",
                    vec![decl("word-spacing", "2px", false, Active)],
                ),
                layered,
                listed,
                ua,
                inherited,
                root,
                before,
                keyframe,
                property,
                registered,
                face,
            ],
        }
    }

    #[test]
    fn rules_are_written_as_css_with_their_wrappers_sources_and_losers_marked() {
        let (lines, _) = styles_page(&sample(), "1_4", Some(20), None);
        insta::assert_snapshot!(lines.join("\n"));
    }

    #[test]
    fn a_page_shows_its_rules_only_and_says_where_it_is() {
        let (lines, data) = styles_page(&sample(), "1_4", Some(2), Some(2));
        insta::assert_snapshot!(lines.join("\n"));
        insta::assert_snapshot!(serde_json::to_string_pretty(&Value::Object(data)).unwrap());
    }

    #[test]
    fn an_element_without_rules_says_so() {
        let styles = CssStyles {
            element: "span".into(),
            rules: Vec::new(),
        };
        let (lines, data) = styles_page(&styles, "2_1", None, None);
        assert_eq!(
            lines[1],
            "No rules apply to it (only inherited and initial values)."
        );
        assert_eq!(data["pagination"]["total"], 0);
    }
}
