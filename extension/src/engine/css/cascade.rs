//! The cascade, worked out from what Chrome says matched an element.
//!
//! Chrome lists an element's matched rules lowest precedence first by origin, layer,
//! specificity, scope proximity and order — but not by importance, which is a
//! property of each declaration, and it does not say which declaration wins. This
//! module does the rest of the cascade (css-cascade-5/6) per longhand property:
//!
//! 1. origin and importance: user-agent normal < author normal < author `!important`
//!    < user-agent `!important`;
//! 2. element-attached styles (the `style` attribute) over rules of the same origin
//!    and importance;
//! 3. layers: for normal declarations later layers win and unlayered rules win over
//!    every layer; for `!important` ones the order is reversed;
//! 4. then Chrome's order (specificity, proximity, appearance), and within a rule the
//!    later declaration.
//!
//! Inheritance comes after: an inherited property an element does not set itself
//! takes the value its nearest ancestor that sets it computed. A shorthand is active
//! when it wins at least one of its longhands.
//!
//! It deliberately leaves out animations and transitions (Chrome reports them apart)
//! and the user origin (the browser has none to report).

use std::collections::HashMap;

use tabwire_shared::css::{
    Ancestor, CssRule, CssStyles, Declaration, DeclarationStatus, Element, RuleKind, RuleOrigin,
    SourceLocation, Wrapper, WrapperKind,
};

use super::at_rules;
use super::inherited::is_inherited;
use crate::cdp::css::{self as cdp, MatchedStyles, StyleSheetHeader};

/// The longest style sheet URL kept whole (a `data:` URL can be megabytes).
const MAX_URL: usize = 300;

/// What the cascade is worked out from.
pub struct Matched<'a> {
    /// Chrome's answer.
    pub styles: &'a MatchedStyles,
    /// The style sheets Chrome announced, by id.
    pub sheets: &'a HashMap<String, StyleSheetHeader>,
    /// The element and its flat-tree ancestors, as simple selectors, the element first.
    pub lineage: &'a [String],
    /// The elements the container queries of the element's own rules are about, by
    /// the query as a wrapper writes it ([`container_text`]).
    pub containers: &'a HashMap<String, Element>,
}

/// The container queries around the element's own and its pseudo-elements' rules,
/// each once (by [`container_text`]): the ones whose container is worth naming.
pub fn own_container_queries(styles: &MatchedStyles) -> Vec<&cdp::Condition> {
    let own = styles.matched_css_rules.iter();
    let pseudo = styles.pseudo_elements.iter().flat_map(|p| p.matches.iter());
    let mut seen = Vec::new();
    let mut queries = Vec::new();
    for query in own
        .chain(pseudo)
        .flat_map(|m| m.rule.container_queries.iter())
    {
        let text = container_text(query);
        if !seen.contains(&text) {
            seen.push(text);
            queries.push(query);
        }
    }
    queries
}

/// A container query as its wrapper writes it: the container's name, then the query.
pub fn container_text(c: &cdp::Condition) -> String {
    match c.name.as_deref() {
        Some(name) if !name.is_empty() && !c.text.starts_with(name) => {
            format!("{name} {}", c.text)
        }
        _ => c.text.clone(),
    }
}

/// A declaration's place in the cascade: the greater wins.
type Rank = (u8, bool, i64, usize, usize);

/// One declaration block at one level (0 for the element, 1 for its parent, ...).
struct Block<'a> {
    rule: CssRule,
    style: &'a cdp::CssStyle,
    origin: RuleOrigin,
    attached: bool,
    layer: i64,
    order: usize,
}

/// One shown declaration and the longhands it sets.
struct Decl {
    shown: Declaration,
    longhands: Vec<String>,
    valid: bool,
    rank: Rank,
}

/// Works out the element's styles: every rule, highest precedence first, each
/// declaration marked.
pub fn cascade(m: &Matched<'_>) -> CssStyles {
    let element = m.lineage.first().cloned().unwrap_or_default();
    let not_inheriting = registered_not_inheriting(m.styles);
    let mut levels = vec![own_blocks(m, &element)];
    for (i, entry) in m.styles.inherited.iter().enumerate() {
        let depth = i + 1;
        let ancestor = Ancestor {
            selector: m.lineage.get(depth).cloned().unwrap_or_default(),
            depth: depth as u32,
            uid: None,
        };
        let mut blocks = rule_blocks(m, &entry.matched_css_rules, RuleKind::Inherited);
        if let Some(inline) = &entry.inline_style {
            blocks.push(inline_block(inline, RuleKind::Inherited, blocks.len()));
        }
        for block in &mut blocks {
            block.rule.inherited_from = Some(ancestor.clone());
        }
        levels.push(blocks);
    }
    let mut decided: Vec<Vec<(CssRule, Vec<Decl>)>> = levels
        .into_iter()
        .map(|blocks| blocks.into_iter().map(declarations).collect())
        .collect();
    // The winner of each longhand: the nearest level that sets it (an ancestor only
    // for what inherits), and there the greatest rank.
    let mut winners: HashMap<String, (usize, Rank)> = HashMap::new();
    for (level, blocks) in decided.iter().enumerate() {
        for (_, decls) in blocks {
            for decl in decls.iter().filter(|d| d.valid) {
                for longhand in &decl.longhands {
                    if level > 0 && !is_inherited(longhand, &not_inheriting) {
                        continue;
                    }
                    let entry = winners
                        .entry(longhand.clone())
                        .or_insert((level, decl.rank));
                    if entry.0 == level && entry.1 < decl.rank {
                        entry.1 = decl.rank;
                    }
                }
            }
        }
    }
    let mut rules = Vec::new();
    for (level, blocks) in decided.iter_mut().enumerate() {
        // Highest precedence first.
        for (mut rule, decls) in blocks.drain(..).rev() {
            let shown: Vec<Declaration> = decls
                .into_iter()
                .filter(|d| {
                    level == 0 || d.longhands.iter().any(|l| is_inherited(l, &not_inheriting))
                })
                .map(|d| mark(d, level, &winners))
                .collect();
            if shown.is_empty() {
                continue;
            }
            rule.declarations = shown;
            rules.push(rule);
        }
    }
    for pseudo in &m.styles.pseudo_elements {
        rules.extend(pseudo_rules(m, pseudo));
    }
    rules.extend(keyframe_rules(m));
    rules.extend(position_try_rules(m));
    let used = at_rules::used_at_rules(m, &rules);
    rules.extend(used);
    CssStyles { element, rules }
}

/// The element's own blocks, lowest precedence first: presentational attributes, the
/// matched rules, the `style` attribute.
fn own_blocks<'a>(m: &Matched<'a>, element: &str) -> Vec<Block<'a>> {
    let mut blocks = Vec::new();
    if let Some(attributes) = &m.styles.attributes_style {
        let tag = element.split(['#', '.', '[']).next().unwrap_or_default();
        let mut block = inline_block(attributes, RuleKind::Attributes, 0);
        block.rule.selector = format!("{tag}[attributes style]");
        block.attached = false;
        // Presentational hints come before every author rule.
        block.layer = i64::MIN;
        blocks.push(block);
    }
    let mut rules = rule_blocks(m, &m.styles.matched_css_rules, RuleKind::Matched);
    for block in &mut rules {
        block.order += blocks.len();
    }
    blocks.extend(rules);
    if let Some(inline) = &m.styles.inline_style {
        blocks.push(inline_block(inline, RuleKind::Inline, blocks.len()));
    }
    blocks
}

/// The rules of one pseudo-element, highest precedence first, each declaration marked
/// against the pseudo-element's other rules.
fn pseudo_rules(m: &Matched<'_>, pseudo: &cdp::PseudoMatches) -> Vec<CssRule> {
    let name = match &pseudo.pseudo_identifier {
        Some(id) => format!("::{}({id})", pseudo.pseudo_type),
        None => format!("::{}", pseudo.pseudo_type),
    };
    let blocks: Vec<_> = rule_blocks(m, &pseudo.matches, RuleKind::Pseudo)
        .into_iter()
        .map(declarations)
        .collect();
    let mut winners: HashMap<String, (usize, Rank)> = HashMap::new();
    for (_, decls) in &blocks {
        for decl in decls.iter().filter(|d| d.valid) {
            for longhand in &decl.longhands {
                let entry = winners.entry(longhand.clone()).or_insert((0, decl.rank));
                entry.1 = entry.1.max(decl.rank);
            }
        }
    }
    blocks
        .into_iter()
        .rev()
        .filter(|(_, decls)| !decls.is_empty())
        .map(|(mut rule, decls)| {
            rule.pseudo = Some(name.clone());
            rule.declarations = decls.into_iter().map(|d| mark(d, 0, &winners)).collect();
            rule
        })
        .collect()
}

/// A declaration with its status.
fn mark(decl: Decl, level: usize, winners: &HashMap<String, (usize, Rank)>) -> Declaration {
    let mut shown = decl.shown;
    if shown.status == DeclarationStatus::Active {
        let wins = decl
            .longhands
            .iter()
            .any(|l| winners.get(l) == Some(&(level, decl.rank)));
        if !wins {
            shown.status = DeclarationStatus::Overridden;
        }
    }
    shown
}

/// The custom properties registered with `inherits: false`.
fn registered_not_inheriting(styles: &MatchedStyles) -> Vec<String> {
    let mut names: Vec<String> = styles
        .css_property_registrations
        .iter()
        .filter(|r| !r.inherits)
        .map(|r| r.property_name.clone())
        .collect();
    for rule in &styles.css_property_rules {
        let inherits = rule
            .style
            .css_properties
            .iter()
            .find(|p| p.name == "inherits")
            .map(|p| p.value.trim().to_ascii_lowercase());
        if inherits.as_deref() == Some("false") {
            names.push(rule.property_name.text.clone());
        }
    }
    names
}

/// Blocks for matched rules, in Chrome's order, each with its layer's rank: layers
/// ranked by where their first rule comes (Chrome orders rules by layer first, so
/// unlayered rules, which come last, rank highest).
fn rule_blocks<'a>(m: &Matched<'a>, rules: &'a [cdp::RuleMatch], kind: RuleKind) -> Vec<Block<'a>> {
    let mut layers: Vec<String> = Vec::new();
    rules
        .iter()
        .enumerate()
        .map(|(order, matched)| {
            let rule = &matched.rule;
            let origin = origin(&rule.origin);
            let path: Vec<&str> = rule.layers.iter().rev().map(|l| l.text.as_str()).collect();
            let path = path.join(".");
            let layer = match layers.iter().position(|l| *l == path) {
                Some(i) => i,
                None => {
                    layers.push(path);
                    layers.len() - 1
                }
            };
            Block {
                rule: CssRule {
                    kind,
                    selector: rule.selector_list.text.clone(),
                    matching_selectors: matching_selectors(matched),
                    origin,
                    source: source(m.sheets, rule),
                    wrappers: wrappers(rule, (kind != RuleKind::Inherited).then_some(m.containers)),
                    inherited_from: None,
                    pseudo: None,
                    declarations: Vec::new(),
                },
                style: &rule.style,
                origin,
                attached: false,
                layer: layer as i64,
                order,
            }
        })
        .collect()
}

/// A `style` attribute's block (or presentational attributes').
fn inline_block(style: &cdp::CssStyle, kind: RuleKind, order: usize) -> Block<'_> {
    Block {
        rule: CssRule::new(kind, "element.style"),
        style,
        origin: RuleOrigin::Author,
        attached: true,
        layer: i64::MAX,
        order,
    }
}

/// A block's declarations as written (Chrome lists their longhands after them; a
/// user-agent rule, written nowhere, has only those), each with its rank.
fn declarations(block: Block<'_>) -> (CssRule, Vec<Decl>) {
    let props = &block.style.css_properties;
    let written = props.iter().any(|p| p.range.is_some());
    let decls = props
        .iter()
        .filter(|p| !written || p.range.is_some())
        .enumerate()
        .map(|(i, p)| {
            let longhands = if p.longhand_properties.is_empty() {
                vec![p.name.clone()]
            } else {
                p.longhand_properties
                    .iter()
                    .map(|l| l.name.clone())
                    .collect()
            };
            let shown = declaration(p);
            Decl {
                valid: shown.status == DeclarationStatus::Active,
                shown,
                longhands,
                rank: rank(&block, p.important, i),
            }
        })
        .collect();
    (block.rule, decls)
}

/// A declaration as written, active unless Chrome could not parse it or it is
/// commented out.
fn declaration(p: &cdp::CssProperty) -> Declaration {
    let status = if p.parsed_ok == Some(false) {
        DeclarationStatus::Invalid
    } else if p.disabled {
        DeclarationStatus::Disabled
    } else {
        DeclarationStatus::Active
    };
    Declaration {
        name: p.name.clone(),
        value: without_important(&p.value, p.important),
        important: p.important,
        status,
    }
}

/// The declarations of a block that takes no part in the element's cascade (a
/// keyframe, a `@position-try` rule), as written.
pub(super) fn as_written(style: &cdp::CssStyle) -> Vec<Declaration> {
    let props = &style.css_properties;
    let any_written = props.iter().any(|p| p.range.is_some());
    props
        .iter()
        .filter(|p| !any_written || p.range.is_some())
        .map(declaration)
        .collect()
}

/// The keyframes of the element's animations, each inside its `@keyframes`, in
/// source order.
fn keyframe_rules(m: &Matched<'_>) -> Vec<CssRule> {
    let mut rules = Vec::new();
    for keyframes in &m.styles.css_keyframes_rules {
        for frame in &keyframes.keyframes {
            rules.push(CssRule {
                origin: origin(&frame.origin),
                source: located(
                    m.sheets,
                    frame.style_sheet_id.as_deref(),
                    frame.key_text.range.or(frame.style.range),
                ),
                wrappers: vec![Wrapper {
                    kind: WrapperKind::Keyframes,
                    text: keyframes.animation_name.text.clone(),
                    container: None,
                }],
                declarations: as_written(&frame.style),
                ..CssRule::new(RuleKind::Keyframe, frame.key_text.text.clone())
            });
        }
    }
    rules
}

/// The `@position-try` rules the element names; the declarations of one not in use
/// now are marked overridden (they do not apply).
fn position_try_rules(m: &Matched<'_>) -> Vec<CssRule> {
    m.styles
        .css_position_try_rules
        .iter()
        .map(|rule| {
            let mut declarations = as_written(&rule.style);
            if !rule.active {
                for d in &mut declarations {
                    if d.status == DeclarationStatus::Active {
                        d.status = DeclarationStatus::Overridden;
                    }
                }
            }
            CssRule {
                origin: origin(&rule.origin),
                source: located(
                    m.sheets,
                    rule.style_sheet_id.as_deref(),
                    rule.name.range.or(rule.style.range),
                ),
                declarations,
                ..CssRule::new(
                    RuleKind::PositionTry,
                    format!("@position-try {}", rule.name.text),
                )
            }
        })
        .collect()
}

/// Where a declaration stands in the cascade (see the module's steps).
fn rank(block: &Block<'_>, important: bool, index: usize) -> Rank {
    let user_agent = block.origin == RuleOrigin::UserAgent;
    let band = match (user_agent, important) {
        (true, false) => 0,
        (false, false) => 1,
        (false, true) => 2,
        (true, true) => 3,
    };
    let layer = if important {
        block.layer.saturating_neg()
    } else {
        block.layer
    };
    (band, block.attached, layer, block.order, index)
}

/// A value without its trailing `!important`.
fn without_important(value: &str, important: bool) -> String {
    let value = value.trim_end();
    if !important {
        return value.to_owned();
    }
    let lower = value.to_ascii_lowercase();
    match lower.strip_suffix("important").map(str::trim_end) {
        Some(rest) if rest.ends_with('!') => value[..rest.len() - 1].trim_end().to_owned(),
        _ => value.to_owned(),
    }
}

/// Chrome's origin names.
pub(super) fn origin(name: &str) -> RuleOrigin {
    match name {
        "user-agent" => RuleOrigin::UserAgent,
        "injected" => RuleOrigin::Injected,
        "inspector" => RuleOrigin::Inspector,
        _ => RuleOrigin::Author,
    }
}

/// The selectors of a list that matched, when it has more than one.
fn matching_selectors(matched: &cdp::RuleMatch) -> Vec<String> {
    let selectors = &matched.rule.selector_list.selectors;
    if selectors.len() < 2 {
        return Vec::new();
    }
    matched
        .matching_selectors
        .iter()
        .filter_map(|&i| selectors.get(i))
        .map(|s| s.text.clone())
        .collect()
}

/// Where a rule is written: its sheet's URL, and its first selector's line and column
/// in that file (a `<style>` element's text starts where the element does).
fn source(
    sheets: &HashMap<String, StyleSheetHeader>,
    rule: &cdp::CssRule,
) -> Option<SourceLocation> {
    let range = rule
        .selector_list
        .selectors
        .first()
        .and_then(|s| s.range)
        .or(rule.style.range);
    located(sheets, rule.style_sheet_id.as_deref(), range)
}

/// Where `range` of the style sheet `sheet` is, in the file the sheet is written in.
pub(super) fn located(
    sheets: &HashMap<String, StyleSheetHeader>,
    sheet: Option<&str>,
    range: Option<cdp::SourceRange>,
) -> Option<SourceLocation> {
    let sheet = sheets.get(sheet?)?;
    let range = range?;
    let column = if range.start_line == 0 {
        sheet.start_column.saturating_add(range.start_column)
    } else {
        range.start_column
    };
    let mut url = sheet.source_url.clone();
    if url.len() > MAX_URL {
        let mut end = MAX_URL;
        while !url.is_char_boundary(end) {
            end -= 1;
        }
        url.truncate(end);
        url.push('…');
    }
    Some(SourceLocation {
        url,
        line: sheet
            .start_line
            .saturating_add(range.start_line)
            .saturating_add(1),
        column: column.saturating_add(1),
        inline: sheet.is_inline,
        constructed: sheet.is_constructed,
    })
}

/// The at-rules around a rule, outermost first. Chrome lists their kinds innermost
/// first, and each kind's preludes in the same order. A container query's element is
/// taken from `containers` (none for an ancestor's rule: its queries are about the
/// ancestor's containers).
fn wrappers(rule: &cdp::CssRule, containers: Option<&HashMap<String, Element>>) -> Vec<Wrapper> {
    let mut seen = HashMap::<&str, usize>::new();
    let mut next = |kind: &'static str| {
        let i = seen.entry(kind).or_default();
        *i += 1;
        *i - 1
    };
    let text = |list: &[cdp::Condition], i: usize| list.get(i).map(|c| c.text.clone());
    let mut found = Vec::new();
    for kind in &rule.rule_types {
        let wrapper = match kind.as_str() {
            "MediaRule" => text(&rule.media, next("media")).map(|t| (WrapperKind::Media, t)),
            "SupportsRule" => {
                text(&rule.supports, next("supports")).map(|t| (WrapperKind::Supports, t))
            }
            "LayerRule" => text(&rule.layers, next("layer")).map(|t| (WrapperKind::Layer, t)),
            "ScopeRule" => text(&rule.scopes, next("scope")).map(|t| (WrapperKind::Scope, t)),
            "ContainerRule" => rule
                .container_queries
                .get(next("container"))
                .map(|c| (WrapperKind::Container, container_text(c))),
            "StartingStyleRule" => Some((WrapperKind::StartingStyle, String::new())),
            "StyleRule" => rule
                .nesting_selectors
                .get(next("nesting"))
                .map(|s| (WrapperKind::Nesting, s.clone())),
            _ => None,
        };
        if let Some((kind, text)) = wrapper {
            let container = match (kind, containers) {
                (WrapperKind::Container, Some(known)) => known.get(&text).cloned(),
                _ => None,
            };
            found.push(Wrapper {
                kind,
                text,
                container,
            });
        }
    }
    found.reverse();
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};
    use tabwire_shared::css::DeclarationStatus::{Active, Invalid, Overridden};

    /// A written declaration (with a range), its longhands listed after it as Chrome does.
    fn decl(name: &str, value: &str, longhands: &[&str]) -> Vec<Value> {
        let important = value.ends_with("!important");
        let range = json!({"startLine": 0, "startColumn": 0, "endLine": 0, "endColumn": 1});
        let mut written = json!({"name": name, "value": value, "important": important,
            "text": format!("{name}: {value};"), "range": range});
        let mut out = Vec::new();
        if !longhands.is_empty() {
            written["longhandProperties"] = longhands
                .iter()
                .map(|l| json!({"name": l, "value": value}))
                .collect();
        }
        out.push(written);
        for l in longhands {
            out.push(json!({"name": l, "value": value, "important": important}));
        }
        out
    }

    /// A matched author rule in `sheet`, at `line` (from 0), in `layers` (innermost first).
    fn rule(selector: &str, layers: &[&str], line: u32, decls: Vec<Vec<Value>>) -> Value {
        let props: Vec<Value> = decls.into_iter().flatten().collect();
        let layer_list: Vec<Value> = layers.iter().map(|l| json!({"text": l})).collect();
        let rule_types: Vec<&str> = layers.iter().map(|_| "LayerRule").collect();
        json!({"matchingSelectors": [0], "rule": {
            "styleSheetId": "s1", "origin": "regular",
            "selectorList": {"text": selector, "selectors": [{"text": selector,
                "range": {"startLine": line, "startColumn": 2}}]},
            "style": {"styleSheetId": "s1", "cssProperties": props},
            "layers": layer_list, "ruleTypes": rule_types,
        }})
    }

    fn sheets() -> HashMap<String, StyleSheetHeader> {
        let header = StyleSheetHeader {
            style_sheet_id: "s1".into(),
            source_url: "https://a.test/app.css".into(),
            origin: "regular".into(),
            ..StyleSheetHeader::default()
        };
        HashMap::from([("s1".to_owned(), header)])
    }

    fn run(styles: Value) -> CssStyles {
        let styles: MatchedStyles = serde_json::from_value(styles).unwrap();
        let lineage = ["p#t.t".to_owned(), "div.card".to_owned(), "html".to_owned()];
        cascade(&Matched {
            styles: &styles,
            sheets: &sheets(),
            lineage: &lineage,
            containers: &HashMap::new(),
        })
    }

    /// Each rule's selector and its declarations' `name status`.
    fn statuses(styles: &CssStyles) -> Vec<(String, Vec<String>)> {
        styles
            .rules
            .iter()
            .map(|r| {
                let decls = r
                    .declarations
                    .iter()
                    .map(|d| format!("{} {:?}", d.name, d.status))
                    .collect();
                (r.selector.clone(), decls)
            })
            .collect()
    }

    #[test]
    fn layers_order_normal_declarations_and_reverse_for_important_ones() {
        // Chrome's order: layer base, then layer theme, then unlayered.
        let styles = run(json!({"matchedCSSRules": [
            rule("#t.t", &["base"], 1, vec![decl("padding", "1px", &[]), decl("color", "red !important", &[])]),
            rule(".t", &["theme"], 2, vec![decl("padding", "4px", &[]), decl("color", "blue !important", &[])]),
            rule("#t", &[], 3, vec![decl("color", "green", &[])]),
        ]}));
        assert_eq!(
            statuses(&styles),
            vec![
                ("#t".to_owned(), vec![format!("color {Overridden:?}")]),
                (
                    ".t".to_owned(),
                    vec![
                        format!("padding {Active:?}"),
                        format!("color {Overridden:?}")
                    ]
                ),
                (
                    "#t.t".to_owned(),
                    vec![
                        format!("padding {Overridden:?}"),
                        format!("color {Active:?}")
                    ]
                ),
            ]
        );
        let base = &styles.rules[2];
        assert_eq!(base.declarations[1].value, "red");
        assert!(base.declarations[1].important);
        assert_eq!(
            base.wrappers,
            vec![Wrapper {
                kind: WrapperKind::Layer,
                text: "base".into(),
                container: None,
            }]
        );
    }

    #[test]
    fn the_style_attribute_beats_rules_and_important_beats_it() {
        let styles = run(json!({
            "matchedCSSRules": [
                rule("p", &[], 1, vec![decl("font-weight", "normal !important", &[])]),
                rule("#t", &[], 2, vec![decl("font-weight", "bold", &[]), decl("margin", "1px", &[])]),
            ],
            "inlineStyle": {"cssProperties": decl("font-weight", "100", &[]).into_iter()
                .chain(decl("margin", "2px", &[])).collect::<Vec<_>>()},
        }));
        assert_eq!(
            statuses(&styles),
            vec![
                (
                    "element.style".to_owned(),
                    vec![
                        format!("font-weight {Overridden:?}"),
                        format!("margin {Active:?}")
                    ]
                ),
                (
                    "#t".to_owned(),
                    vec![
                        format!("font-weight {Overridden:?}"),
                        format!("margin {Overridden:?}")
                    ]
                ),
                ("p".to_owned(), vec![format!("font-weight {Active:?}")]),
            ]
        );
        assert_eq!(styles.rules[0].kind, RuleKind::Inline);
        assert_eq!(styles.rules[0].source, None);
    }

    #[test]
    fn a_shorthand_stays_active_while_one_of_its_longhands_wins() {
        let sides = ["margin-top", "margin-right", "margin-bottom", "margin-left"];
        let styles = run(json!({"matchedCSSRules": [
            rule(".a", &[], 1, vec![decl("margin", "1px", &sides)]),
            rule(".b", &[], 2, vec![decl("margin", "2px", &sides)]),
            rule("#t", &[], 3, vec![decl("margin-top", "9px", &[])]),
        ]}));
        assert_eq!(
            statuses(&styles),
            vec![
                ("#t".to_owned(), vec![format!("margin-top {Active:?}")]),
                (".b".to_owned(), vec![format!("margin {Active:?}")]),
                (".a".to_owned(), vec![format!("margin {Overridden:?}")]),
            ]
        );
    }

    #[test]
    fn ancestors_pass_on_only_what_inherits_and_the_nearest_wins() {
        let styles = run(json!({
            "matchedCSSRules": [rule(".t", &[], 1, vec![decl("font-size", "10px", &[])])],
            "inherited": [
                {"matchedCSSRules": [rule(".card", &[], 2, vec![
                    decl("color", "navy", &[]), decl("font-size", "18px", &[]), decl("margin", "0", &[]),
                ])]},
                {"matchedCSSRules": [rule(":root", &[], 3, vec![
                    decl("--accent", "purple", &[]), decl("color", "black", &[]),
                ])]},
            ],
        }));
        assert_eq!(
            statuses(&styles),
            vec![
                (".t".to_owned(), vec![format!("font-size {Active:?}")]),
                (
                    ".card".to_owned(),
                    vec![
                        format!("color {Active:?}"),
                        format!("font-size {Overridden:?}")
                    ]
                ),
                (
                    ":root".to_owned(),
                    vec![
                        format!("--accent {Active:?}"),
                        format!("color {Overridden:?}")
                    ]
                ),
            ]
        );
        let from = styles.rules[1].inherited_from.clone().unwrap();
        assert_eq!((from.selector.as_str(), from.depth), ("div.card", 1));
        assert_eq!(
            styles.rules[2].inherited_from.as_ref().unwrap().selector,
            "html"
        );
    }

    #[test]
    fn custom_properties_registered_as_not_inheriting_stay_on_the_ancestor() {
        let styles = run(json!({
            "inherited": [{"matchedCSSRules": [rule(".card", &[], 2, vec![decl("--gap", "4px", &[])])]}],
            "cssPropertyRegistrations": [{"propertyName": "--gap", "inherits": false, "syntax": "<length>"}],
        }));
        assert!(styles.rules.is_empty(), "{:?}", styles.rules);
    }

    #[test]
    fn invalid_declarations_are_marked_and_never_win() {
        let mut bad = decl("color", "nope", &[]);
        bad[0]["parsedOk"] = json!(false);
        let styles = run(json!({"matchedCSSRules": [
            rule(".a", &[], 1, vec![decl("color", "red", &[])]),
            rule(".b", &[], 2, vec![bad]),
        ]}));
        assert_eq!(
            statuses(&styles),
            vec![
                (".b".to_owned(), vec![format!("color {Invalid:?}")]),
                (".a".to_owned(), vec![format!("color {Active:?}")]),
            ]
        );
    }

    #[test]
    fn user_agent_rules_show_their_longhands_and_lose_to_the_page() {
        let styles = run(json!({"matchedCSSRules": [
            {"matchingSelectors": [0], "rule": {"origin": "user-agent",
                "selectorList": {"text": "p", "selectors": [{"text": "p"}]},
                "style": {"cssProperties": [
                    {"name": "display", "value": "block"},
                    {"name": "margin-block-start", "value": "1em"},
                ]}}},
            rule(".t", &[], 1, vec![decl("display", "flex", &[])]),
        ]}));
        assert_eq!(
            statuses(&styles),
            vec![
                (".t".to_owned(), vec![format!("display {Active:?}")]),
                (
                    "p".to_owned(),
                    vec![
                        format!("display {Overridden:?}"),
                        format!("margin-block-start {Active:?}")
                    ]
                ),
            ]
        );
        assert_eq!(styles.rules[1].origin, RuleOrigin::UserAgent);
        assert_eq!(styles.rules[1].source, None);
    }

    #[test]
    fn a_rule_in_a_style_element_is_located_in_its_document() {
        let mut sheets = sheets();
        if let Some(sheet) = sheets.get_mut("s1") {
            sheet.is_inline = true;
            sheet.start_line = 6;
            sheet.start_column = 7;
        }
        let matched: MatchedStyles = serde_json::from_value(json!({"matchedCSSRules": [
            rule(".first", &[], 0, vec![decl("color", "red", &[])]),
            rule(".later", &[], 3, vec![decl("color", "blue", &[])]),
        ]}))
        .unwrap();
        let styles = cascade(&Matched {
            styles: &matched,
            sheets: &sheets,
            lineage: &[],
            containers: &HashMap::new(),
        });
        let at = |i: usize| styles.rules[i].source.clone().unwrap();
        assert_eq!((at(0).line, at(0).column, at(0).inline), (10, 3, true));
        assert_eq!((at(1).line, at(1).column), (7, 10));
        assert_eq!(at(1).url, "https://a.test/app.css");
    }

    #[test]
    fn wrappers_come_outermost_first_and_lists_say_which_selectors_matched() {
        let matched: cdp::RuleMatch = serde_json::from_value(json!({
            "matchingSelectors": [1],
            "rule": {"origin": "regular",
                "selectorList": {"text": "a, .t", "selectors": [{"text": "a"}, {"text": ".t"}]},
                "media": [{"text": "(min-width: 1px)"}],
                "containerQueries": [{"text": "(min-width: 10px)", "name": "card"}],
                "layers": [{"text": "inner"}, {"text": "outer"}],
                "ruleTypes": ["LayerRule", "ContainerRule", "MediaRule", "LayerRule"]}
        }))
        .unwrap();
        let shown: Vec<(WrapperKind, String)> = wrappers(&matched.rule, None)
            .into_iter()
            .map(|w| (w.kind, w.text))
            .collect();
        assert_eq!(
            shown,
            vec![
                (WrapperKind::Layer, "outer".to_owned()),
                (WrapperKind::Media, "(min-width: 1px)".to_owned()),
                (WrapperKind::Container, "card (min-width: 10px)".to_owned()),
                (WrapperKind::Layer, "inner".to_owned()),
            ]
        );
        assert_eq!(matching_selectors(&matched), vec![".t".to_owned()]);
    }

    #[test]
    fn important_is_taken_off_values_whatever_its_spacing() {
        assert_eq!(without_important("red !important", true), "red");
        assert_eq!(without_important("red ! IMPORTANT ", true), "red");
        assert_eq!(
            without_important("url(!important)", false),
            "url(!important)"
        );
    }

    #[test]
    fn keyframes_and_position_try_rules_follow_the_cascade_in_their_at_rules() {
        let styles = run(json!({
            "matchedCSSRules": [rule("#t", &[], 1, vec![decl("animation-name", "spin", &[])])],
            "cssKeyframesRules": [{"animationName": {"text": "spin"}, "keyframes": [
                {"styleSheetId": "s1", "origin": "regular",
                 "keyText": {"text": "from", "range": {"startLine": 7, "startColumn": 2}},
                 "style": {"cssProperties": decl("rotate", "0deg", &[])}},
                {"styleSheetId": "s1", "origin": "regular", "keyText": {"text": "to"},
                 "style": {"cssProperties": decl("rotate", "1turn", &[])}}
            ]}],
            "cssPositionTryRules": [
                {"name": {"text": "--below"}, "styleSheetId": "s1", "origin": "regular",
                 "style": {"cssProperties": decl("top", "anchor(bottom)", &[])}, "active": true},
                {"name": {"text": "--above"}, "styleSheetId": "s1", "origin": "regular",
                 "style": {"cssProperties": decl("bottom", "anchor(top)", &[])}, "active": false}
            ]
        }));
        assert_eq!(
            statuses(&styles),
            vec![
                ("#t".to_owned(), vec![format!("animation-name {Active:?}")]),
                ("from".to_owned(), vec![format!("rotate {Active:?}")]),
                ("to".to_owned(), vec![format!("rotate {Active:?}")]),
                (
                    "@position-try --below".to_owned(),
                    vec![format!("top {Active:?}")]
                ),
                (
                    "@position-try --above".to_owned(),
                    vec![format!("bottom {Overridden:?}")]
                ),
            ]
        );
        let from = &styles.rules[1];
        assert_eq!(from.kind, RuleKind::Keyframe);
        assert_eq!(
            from.wrappers,
            vec![Wrapper {
                kind: WrapperKind::Keyframes,
                text: "spin".into(),
                container: None,
            }]
        );
        assert_eq!(
            from.source.as_ref().map(|s| (s.line, s.column)),
            Some((8, 3))
        );
        assert_eq!(styles.rules[3].kind, RuleKind::PositionTry);
    }

    #[test]
    fn registrations_of_the_custom_properties_it_uses_and_its_font_faces_come_last() {
        let descriptors = |syntax: &str| {
            let props = [decl("syntax", syntax, &[]), decl("inherits", "false", &[])].concat();
            json!({ "cssProperties": props })
        };
        let face = [
            decl("font-family", "\"Face\"", &[]),
            decl("src", "local(x)", &[]),
        ]
        .concat();
        let styles = run(json!({
            "matchedCSSRules": [rule("#t", &[], 1, vec![
                decl("--gap", "5px", &[]), decl("scale", "var(--zoom)", &[]),
                decl("font-family", "\"Face\"", &[])])],
            "cssPropertyRules": [
                {"styleSheetId": "s1", "origin": "regular",
                 "propertyName": {"text": "--unused", "range": {"startLine": 3, "startColumn": 10}},
                 "style": descriptors("'<color>'")},
                {"styleSheetId": "s1", "origin": "regular",
                 "propertyName": {"text": "--gap", "range": {"startLine": 4, "startColumn": 10}},
                 "style": descriptors("'<length>'")},
                {"styleSheetId": "s1", "origin": "regular",
                 "propertyName": {"text": "--zoom"}, "style": descriptors("'*'")}
            ],
            "cssPropertyRegistrations": [
                {"propertyName": "--zoom", "inherits": false, "syntax": "<number>",
                 "initialValue": {"text": "1"}},
                {"propertyName": "--other", "inherits": true, "syntax": "*"}
            ],
            "cssAtRules": [
                {"type": "font-face", "styleSheetId": "s1", "origin": "regular",
                 "style": {"range": {"startLine": 6, "startColumn": 11},
                     "cssProperties": face}},
                {"type": "font-feature-values", "subsection": "swash", "name": {"text": "Face"},
                 "origin": "regular", "style": {"cssProperties": decl("fancy", "1", &[])}},
                {"type": "something-new", "origin": "regular", "style": {}}
            ]
        }));
        let shown: Vec<_> = styles.rules[1..]
            .iter()
            .map(|r| (r.kind, r.selector.as_str()))
            .collect();
        assert_eq!(
            shown,
            vec![
                (RuleKind::Property, "@property --gap"),
                (RuleKind::Property, "@property --zoom"),
                (RuleKind::RegisteredProperty, "@property --zoom"),
                (RuleKind::FontFace, "@font-face"),
                (RuleKind::FontFeatureValues, "@swash"),
            ]
        );
        let gap = &styles.rules[1];
        assert_eq!(
            gap.source.as_ref().map(|s| (s.line, s.column)),
            Some((5, 11))
        );
        assert_eq!(
            statuses(&styles)[1].1,
            vec![format!("syntax {Active:?}"), format!("inherits {Active:?}")]
        );
        // The script's registration wins over the rule of the same name.
        assert_eq!(
            statuses(&styles)[2].1,
            vec![
                format!("syntax {Overridden:?}"),
                format!("inherits {Overridden:?}")
            ]
        );
        let registered: Vec<_> = (styles.rules[3].declarations.iter())
            .map(|d| (d.name.as_str(), d.value.as_str()))
            .collect();
        assert_eq!(
            registered,
            [
                ("syntax", "\"<number>\""),
                ("inherits", "false"),
                ("initial-value", "1")
            ]
        );
        assert_eq!(styles.rules[3].source, None);
        assert_eq!(
            styles.rules[4].source.as_ref().map(|s| s.line),
            Some(7),
            "a font face without a name is located by its block"
        );
        assert_eq!(
            styles.rules[5].wrappers,
            vec![Wrapper {
                kind: WrapperKind::FontFeatureValues,
                text: "Face".into(),
                container: None,
            }]
        );
    }
}
