//! Accessibility trees → the flat, depth-annotated node list of a snapshot.
//!
//! Pure data in, data out: no CDP here. [`flatten`] joins the main frame's tree and its
//! same-process child frames' trees (each placed under its `<iframe>` node), walks them
//! depth-first without recursion (pages nest deeper than any stack), and keeps either
//! every node (verbose) or the nodes that matter to an agent:
//!
//! - the reference's "interesting" nodes: focusable or editable nodes, controls, and
//!   named leaves (text, named links and headings, images, ...); nothing below a leaf
//!   (the text inside a button is its name already);
//! - plus what the reference loses: named landmarks and groups, dialogs and alerts,
//!   options, iframes and frame roots;
//! - minus noise: ignored nodes and unnamed wrappers (their children move up), inline
//!   text boxes, line breaks, blank text, and text that merely repeats its parent's
//!   name or value;
//! - and always every pinned node (an element a third-party tool returned), with
//!   `ignored` if the tree ignores it.
//!
//! [`states`] turns a node's properties into the compact state vocabulary of
//! [`tabwire_shared::SnapshotNode::states`]; [`node_facts`] reads one node alone, for
//! the walker to adopt. Everything is linear in the tree's size.

use std::collections::{HashMap, HashSet};

use serde_json::Value;
use tabwire_shared::NodeState;

use crate::cdp::accessibility::AxNode;

/// One frame's tree, and the `<iframe>` element that holds it (none for the main frame).
pub struct FrameNodes<'a> {
    /// The backend id of the frame's `<iframe>` element.
    pub owner: Option<i64>,
    /// The frame's nodes, as `Accessibility.getFullAXTree` gave them.
    pub nodes: &'a [AxNode],
}

/// A node of the flattened snapshot, before it gets its uid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlatNode {
    /// The DOM node behind it, if any.
    pub backend: Option<i64>,
    /// Nesting depth among the nodes kept.
    pub depth: u32,
    /// Accessibility role.
    pub role: String,
    /// Accessible name.
    pub name: String,
    /// Value, if it has a non-empty one.
    pub value: Option<String>,
    /// States, in [`states`] order.
    pub states: Vec<NodeState>,
}

/// What [`flatten`] found.
#[derive(Debug, Default)]
pub struct Flattened {
    /// The nodes kept, depth-first.
    pub nodes: Vec<FlatNode>,
    /// Every DOM node the trees mention (kept or not), to tell which pinned nodes the
    /// accessibility tree does not list at all.
    pub listed: HashSet<i64>,
}

/// The state of an `<iframe>` whose document is in another process (a cross-site
/// frame): its content is not part of the snapshot.
pub const FRAME_NOT_CAPTURED: &str = "frame-not-captured";

/// The state of a pinned node the accessibility tree ignores.
pub const IGNORED: &str = "ignored";

/// Roles that are always controls (the reference's list).
const CONTROLS: &[&str] = &[
    "button",
    "checkbox",
    "ColorWell",
    "combobox",
    "DisclosureTriangle",
    "listbox",
    "menu",
    "menubar",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "radio",
    "scrollbar",
    "searchbox",
    "slider",
    "spinbutton",
    "switch",
    "tab",
    "textbox",
    "tree",
    "treeitem",
];

/// Roles whose nodes are leaves whatever they contain.
const LEAF_ROLES: &[&str] = &[
    "doc-cover",
    "graphics-symbol",
    "img",
    "image",
    "Meter",
    "scrollbar",
    "slider",
    "separator",
    "progressbar",
];

/// Text roles: leaves, shown by their name.
const TEXT_ROLES: &[&str] = &["LineBreak", "text", "InlineTextBox", "StaticText"];

/// Containers worth a line when they have a name.
const NAMED_CONTAINERS: &[&str] = &[
    "navigation",
    "main",
    "region",
    "form",
    "search",
    "banner",
    "contentinfo",
    "complementary",
    "group",
    "radiogroup",
    "table",
    "grid",
    "treegrid",
    "list",
    "tablist",
    "toolbar",
    "tabpanel",
    "article",
    "figure",
    "note",
];

/// Roles worth a line even without a name.
const ALWAYS: &[&str] = &["dialog", "alertdialog", "alert", "option", "Iframe"];

/// Longest `url=` state; longer URLs (data: URLs, mostly) are cut.
const MAX_URL_CHARS: usize = 500;

/// One node of the joined forest.
struct Slot<'a> {
    node: &'a AxNode,
    /// Range of this node's children in `Forest::children`.
    first_child: usize,
    child_count: usize,
}

/// The joined trees: every frame's nodes in one arena, iframes linked to their frames.
struct Forest<'a> {
    slots: Vec<Slot<'a>>,
    children: Vec<usize>,
    /// The main frame's roots.
    roots: Vec<usize>,
    /// The first node of each child frame, to mark as a frame root.
    frame_roots: HashSet<usize>,
}

impl<'a> Forest<'a> {
    fn build(frames: &[FrameNodes<'a>]) -> Forest<'a> {
        // Arena offsets and, per frame, its roots.
        let mut slots = Vec::new();
        let mut frame_roots_by_owner: HashMap<i64, Vec<usize>> = HashMap::new();
        let mut main_roots = Vec::new();
        let mut index: Vec<HashMap<&'a str, usize>> = Vec::with_capacity(frames.len());
        for frame in frames {
            let base = slots.len();
            let mut ids = HashMap::with_capacity(frame.nodes.len());
            for (i, node) in frame.nodes.iter().enumerate() {
                ids.insert(node.node_id.as_str(), base + i);
                slots.push(Slot {
                    node,
                    first_child: 0,
                    child_count: 0,
                });
            }
            let roots: Vec<usize> = frame
                .nodes
                .iter()
                .enumerate()
                .filter(|(_, n)| n.parent_id.as_deref().is_none_or(|p| !ids.contains_key(p)))
                .map(|(i, _)| base + i)
                .collect();
            match frame.owner {
                Some(owner) => frame_roots_by_owner.entry(owner).or_default().extend(roots),
                None if main_roots.is_empty() => main_roots = roots,
                None => {}
            }
            index.push(ids);
        }
        let frame_roots: HashSet<usize> =
            frame_roots_by_owner.values().flatten().copied().collect();
        // Children: the node's own, then the frames its element holds.
        let mut children = Vec::with_capacity(slots.len() + frame_roots.len());
        let mut base = 0;
        for (frame, ids) in frames.iter().zip(&index) {
            for (i, node) in frame.nodes.iter().enumerate() {
                let first = children.len();
                children.extend(node.child_ids.iter().filter_map(|id| ids.get(id.as_str())));
                if let Some(owned) = node
                    .backend_dom_node_id
                    .and_then(|b| frame_roots_by_owner.get(&b))
                {
                    children.extend(owned);
                }
                let slot = &mut slots[base + i];
                slot.first_child = first;
                slot.child_count = children.len() - first;
            }
            base += frame.nodes.len();
        }
        Forest {
            slots,
            children,
            roots: main_roots,
            frame_roots,
        }
    }

    fn children(&self, i: usize) -> &[usize] {
        let slot = &self.slots[i];
        &self.children[slot.first_child..slot.first_child + slot.child_count]
    }

    /// Depth-first order from the main roots; each node once even if the input links
    /// it twice (or in a cycle).
    fn preorder(&self) -> (Vec<usize>, Vec<Option<usize>>) {
        let mut order = Vec::with_capacity(self.slots.len());
        let mut parent = vec![None; self.slots.len()];
        let mut seen = vec![false; self.slots.len()];
        let mut stack: Vec<(usize, Option<usize>)> =
            self.roots.iter().rev().map(|r| (*r, None)).collect();
        while let Some((i, from)) = stack.pop() {
            if std::mem::replace(&mut seen[i], true) {
                continue;
            }
            parent[i] = from;
            order.push(i);
            stack.extend(self.children(i).iter().rev().map(|c| (*c, Some(i))));
        }
        (order, parent)
    }
}

/// A node's properties, read once.
struct Facts<'a> {
    role: &'a str,
    name: String,
    focusable: bool,
    richly_editable: bool,
    editable: bool,
    hidden: bool,
}

impl<'a> Facts<'a> {
    fn of(node: &'a AxNode) -> Facts<'a> {
        let mut facts = Facts {
            role: role(node),
            name: text(node.name.as_ref().and_then(|n| n.value.as_ref())),
            focusable: false,
            richly_editable: false,
            editable: false,
            hidden: false,
        };
        for property in &node.properties {
            let value = property.value.value.as_ref();
            match property.name.as_str() {
                "focusable" => facts.focusable = truthy(value),
                "hidden" => facts.hidden = truthy(value),
                "editable" => {
                    facts.editable = value.is_some();
                    facts.richly_editable = value.and_then(Value::as_str) == Some("richtext");
                }
                _ => {}
            }
        }
        facts
    }

    fn is_control(&self) -> bool {
        CONTROLS.contains(&self.role)
    }
}

/// Flattens the frames' trees (the main frame first) into snapshot nodes.
///
/// `pinned` says which DOM nodes must be shown; `page_url` is the main document's URL,
/// against which link URLs are shortened (`/path`, `#fragment`).
pub fn flatten(
    frames: &[FrameNodes<'_>],
    verbose: bool,
    pinned: &dyn Fn(i64) -> bool,
    page_url: &str,
) -> Flattened {
    let forest = Forest::build(frames);
    let (order, parent) = forest.preorder();
    let count = forest.slots.len();
    let facts: Vec<Facts> = forest.slots.iter().map(|s| Facts::of(s.node)).collect();
    let is_pinned: Vec<bool> = forest
        .slots
        .iter()
        .map(|s| s.node.backend_dom_node_id.is_some_and(pinned))
        .collect();

    // Bottom-up: whether anything below a node is focusable, or pinned.
    let mut focusable_below = vec![false; count];
    let mut pinned_below = vec![false; count];
    for &i in order.iter().rev() {
        if let Some(p) = parent[i] {
            focusable_below[p] |= facts[i].focusable || focusable_below[i];
            pinned_below[p] |= is_pinned[i] || pinned_below[i];
        }
    }
    let is_leaf = |i: usize| -> bool {
        let f = &facts[i];
        if forest.children(i).is_empty() {
            return true;
        }
        if f.role == "Iframe" {
            return false;
        }
        let plain_text_field =
            !f.richly_editable && (f.editable || matches!(f.role, "textbox" | "searchbox"));
        if plain_text_field || TEXT_ROLES.contains(&f.role) || LEAF_ROLES.contains(&f.role) {
            return true;
        }
        if focusable_below[i] {
            return false;
        }
        (f.focusable && !f.name.is_empty()) || (f.role == "heading" && !f.name.is_empty())
    };

    let listed = forest
        .slots
        .iter()
        .filter_map(|s| s.node.backend_dom_node_id)
        .collect();
    let urls = UrlShortener::new(page_url);
    let mut nodes = Vec::new();
    let emit = |nodes: &mut Vec<FlatNode>, i: usize, depth: u32| {
        let node = forest.slots[i].node;
        let mut states = states(node, &facts[i], &urls);
        if node.ignored && (verbose || is_pinned[i]) {
            states.push(NodeState::flag(IGNORED));
        }
        if facts[i].role == "Iframe" && forest.children(i).is_empty() {
            states.push(NodeState::flag(FRAME_NOT_CAPTURED));
        }
        nodes.push(FlatNode {
            backend: node.backend_dom_node_id,
            depth,
            role: facts[i].role.to_owned(),
            name: facts[i].name.clone(),
            value: value_of(node),
            states,
        });
    };

    if verbose {
        // Every node, at its depth in the tree.
        let mut stack: Vec<(usize, u32)> = forest.roots.iter().rev().map(|r| (*r, 0)).collect();
        let mut seen = vec![false; count];
        while let Some((i, depth)) = stack.pop() {
            if std::mem::replace(&mut seen[i], true) {
                continue;
            }
            emit(&mut nodes, i, depth);
            stack.extend(forest.children(i).iter().rev().map(|c| (*c, depth + 1)));
        }
        return Flattened { nodes, listed };
    }

    /// Where a node sits in the walk of the interesting nodes.
    #[derive(Clone, Copy)]
    struct Walk {
        /// Depth its kept children get... of a node kept here.
        depth: u32,
        inside_control: bool,
        /// Below a leaf: only pinned nodes are shown.
        below_leaf: bool,
        /// The nearest kept ancestor.
        kept_parent: Option<usize>,
        is_root: bool,
    }
    let mut seen = vec![false; count];
    let mut stack: Vec<(usize, Walk)> = forest
        .roots
        .iter()
        .rev()
        .map(|r| {
            let walk = Walk {
                depth: 0,
                inside_control: false,
                below_leaf: false,
                kept_parent: None,
                is_root: true,
            };
            (*r, walk)
        })
        .collect();
    while let Some((i, walk)) = stack.pop() {
        if std::mem::replace(&mut seen[i], true) {
            continue;
        }
        let f = &facts[i];
        let node = forest.slots[i].node;
        let leaf = is_leaf(i);
        let keep = if is_pinned[i] {
            true
        } else if walk.below_leaf {
            false
        } else {
            let interesting = !node.ignored
                && !f.hidden
                && (f.focusable
                    || f.richly_editable
                    || f.is_control()
                    || (!walk.inside_control && leaf && !f.name.is_empty()));
            let extra = !node.ignored
                && (ALWAYS.contains(&f.role)
                    || forest.frame_roots.contains(&i)
                    || (NAMED_CONTAINERS.contains(&f.role) && !f.name.is_empty()));
            let noise = match f.role {
                "LineBreak" | "InlineTextBox" => true,
                "StaticText" => {
                    let name = f.name.trim();
                    name.is_empty()
                        || walk.kept_parent.is_some_and(|p| {
                            facts[p].name.trim() == name
                                || value_of(forest.slots[p].node).is_some_and(|v| v.trim() == name)
                        })
                }
                _ => false,
            };
            walk.is_root || ((interesting || extra) && !noise)
        };
        let mut below = walk;
        below.is_root = false;
        if keep {
            emit(&mut nodes, i, walk.depth);
            below.depth = walk.depth + 1;
            below.kept_parent = Some(i);
        }
        if leaf && !walk.is_root {
            if !pinned_below[i] {
                continue;
            }
            below.below_leaf = true;
        }
        below.inside_control |= f.is_control();
        stack.extend(forest.children(i).iter().rev().map(|c| (*c, below)));
    }
    Flattened { nodes, listed }
}

/// One node as Chrome alone describes it (`Accessibility.getPartialAXTree`): what the
/// walker adopts for a custom element whose role or name may come from ElementInternals.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeFacts {
    /// Its role; `none` when Chrome ignores the node (its children still count).
    pub role: String,
    /// Its name.
    pub name: String,
    /// Its value (empty: none).
    pub value: String,
    /// Its states, as [`states`] writes them, without `focused`: the walker knows focus
    /// as it is when it walks.
    pub states: Vec<NodeState>,
}

/// The facts of one node; link URLs shortened against `page_url`.
pub fn node_facts(node: &AxNode, page_url: &str) -> NodeFacts {
    let facts = Facts::of(node);
    let mut states = states(node, &facts, &UrlShortener::new(page_url));
    states.retain(|s| s.name != "focused");
    NodeFacts {
        role: if node.ignored { "none" } else { facts.role }.to_owned(),
        name: facts.name.clone(),
        value: value_of(node).unwrap_or_default(),
        states,
    }
}

/// The node's role, `generic` if it has none.
fn role(node: &AxNode) -> &str {
    node.role
        .as_ref()
        .and_then(|r| r.value.as_ref())
        .and_then(Value::as_str)
        .unwrap_or("generic")
}

/// An accessibility value as text (strings as they are, numbers and booleans printed).
fn text(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

fn truthy(value: Option<&Value>) -> bool {
    match value {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => s == "true",
        _ => false,
    }
}

/// The node's value, if it has a non-empty one.
fn value_of(node: &AxNode) -> Option<String> {
    let value = text(node.value.as_ref().and_then(|v| v.value.as_ref()));
    (!value.is_empty()).then_some(value)
}

/// Shortens link URLs against the page's: same document → `#fragment`, same origin →
/// `/path?query#fragment`; anything else stays absolute.
struct UrlShortener<'a> {
    document: &'a str,
    origin: &'a str,
}

impl<'a> UrlShortener<'a> {
    fn new(page_url: &'a str) -> Self {
        let document = page_url.split('#').next().unwrap_or(page_url);
        let origin = match page_url.find("://") {
            Some(at) => {
                let rest = &page_url[at + 3..];
                let end = rest
                    .find(['/', '?', '#'])
                    .map_or(page_url.len(), |e| at + 3 + e);
                &page_url[..end]
            }
            None => "",
        };
        Self { document, origin }
    }

    fn shorten<'u>(&self, url: &'u str) -> &'u str {
        if !self.document.is_empty() {
            if let Some(fragment) = url.strip_prefix(self.document) {
                if fragment.starts_with('#') {
                    return fragment;
                }
            }
        }
        if !self.origin.is_empty() {
            if let Some(path) = url.strip_prefix(self.origin) {
                if path.starts_with('/') {
                    return path;
                }
            }
        }
        url
    }
}

/// A state `name=value` (written quoted when the value needs it).
fn state(name: &str, value: &str) -> NodeState {
    NodeState::with_value(name, value)
}

/// Cuts `text` to `max` characters, saying how long it was.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…({} chars)", &text[..at], text.chars().count()),
        None => text.to_owned(),
    }
}

/// The states that matter to an agent, in this order: `focused`, `disabled`,
/// `checked`/`checked=mixed`, `pressed`/`pressed=mixed`, `selected`,
/// `expanded`/`collapsed`, `required`, `readonly`, `invalid`/`invalid=<kind>`,
/// `multiline`, `multiselectable`, `modal`, `busy`, `editable` (on a node whose role
/// does not say so), `level=N`, `haspopup=<kind>`, `autocomplete=<kind>`,
/// `valuemin=N`, `valuemax=N` (a real range only), `valuetext=…` (if it differs from
/// the value), `url=…` (links, shortened against the page's URL), `keyshortcuts=…`,
/// `roledescription=…`, `description=…`. `focusable` is never shown.
fn states(node: &AxNode, facts: &Facts, urls: &UrlShortener) -> Vec<NodeState> {
    #[derive(Default)]
    struct Props<'a> {
        focused: bool,
        disabled: bool,
        checked: Option<&'a str>,
        pressed: Option<&'a str>,
        selected: bool,
        expanded: Option<bool>,
        required: bool,
        readonly: bool,
        invalid: Option<&'a str>,
        multiline: bool,
        multiselectable: bool,
        modal: bool,
        busy: bool,
        level: Option<&'a Value>,
        haspopup: Option<&'a str>,
        autocomplete: Option<&'a str>,
        valuemin: Option<f64>,
        valuemax: Option<f64>,
        valuetext: Option<&'a str>,
        url: Option<&'a str>,
        keyshortcuts: Option<&'a str>,
        roledescription: Option<&'a str>,
    }
    let mut p = Props::default();
    for property in &node.properties {
        let v = property.value.value.as_ref();
        let s = v.and_then(Value::as_str);
        match property.name.as_str() {
            "focused" => p.focused = truthy(v),
            "disabled" => p.disabled = truthy(v),
            "checked" => p.checked = tristate(v),
            "pressed" => p.pressed = tristate(v),
            "selected" => p.selected = truthy(v),
            "expanded" => p.expanded = v.map(|v| truthy(Some(v))),
            "required" => p.required = truthy(v),
            "readonly" => p.readonly = truthy(v),
            "invalid" => p.invalid = s,
            "multiline" => p.multiline = truthy(v),
            "multiselectable" => p.multiselectable = truthy(v),
            "modal" => p.modal = truthy(v),
            "busy" => p.busy = truthy(v),
            "level" => p.level = v,
            // Chrome spells this one in camel case.
            "hasPopup" => p.haspopup = s,
            "autocomplete" => p.autocomplete = s,
            "valuemin" => p.valuemin = v.and_then(Value::as_f64),
            "valuemax" => p.valuemax = v.and_then(Value::as_f64),
            "valuetext" => p.valuetext = s,
            "url" => p.url = s,
            "keyshortcuts" => p.keyshortcuts = s,
            "roledescription" => p.roledescription = s,
            _ => {}
        }
    }
    let mut out = Vec::new();
    let flag = |out: &mut Vec<NodeState>, on: bool, name: &str| {
        if on {
            out.push(NodeState::flag(name));
        }
    };
    flag(&mut out, p.focused, "focused");
    flag(&mut out, p.disabled, "disabled");
    for (name, tristate) in [("checked", p.checked), ("pressed", p.pressed)] {
        match tristate {
            Some("true") => out.push(NodeState::flag(name)),
            Some("mixed") => out.push(state(name, "mixed")),
            _ => {}
        }
    }
    flag(&mut out, p.selected, "selected");
    flag(&mut out, p.expanded == Some(true), "expanded");
    flag(&mut out, p.expanded == Some(false), "collapsed");
    flag(&mut out, p.required, "required");
    flag(&mut out, p.readonly, "readonly");
    match p.invalid {
        Some("true") => out.push(NodeState::flag("invalid")),
        Some("false") | Some("") | None => {}
        Some(kind) => out.push(state("invalid", kind)),
    }
    let editable_role = matches!(
        facts.role,
        "textbox" | "searchbox" | "combobox" | "spinbutton" | "StaticText" | "InlineTextBox"
    );
    flag(&mut out, p.multiline, "multiline");
    flag(&mut out, p.multiselectable, "multiselectable");
    flag(&mut out, p.modal, "modal");
    flag(&mut out, p.busy, "busy");
    flag(&mut out, facts.editable && !editable_role, "editable");
    if let Some(level) = p.level {
        out.push(state("level", &text(Some(level))));
    }
    for (name, token) in [("haspopup", p.haspopup), ("autocomplete", p.autocomplete)] {
        if let Some(token) = token.filter(|t| !matches!(*t, "" | "false" | "none")) {
            out.push(state(name, token));
        }
    }
    if let (Some(min), Some(max)) = (p.valuemin, p.valuemax) {
        if min < max {
            out.push(state("valuemin", &number(min)));
            out.push(state("valuemax", &number(max)));
        }
    }
    let value = value_of(node);
    if let Some(valuetext) = p
        .valuetext
        .filter(|t| !t.is_empty() && Some(*t) != value.as_deref())
    {
        out.push(state("valuetext", valuetext));
    }
    if facts.role == "link" {
        if let Some(url) = p.url.filter(|u| !u.is_empty()) {
            out.push(state("url", &cut(urls.shorten(url), MAX_URL_CHARS)));
        }
    }
    for (name, text) in [
        ("keyshortcuts", p.keyshortcuts),
        ("roledescription", p.roledescription),
    ] {
        if let Some(text) = text.filter(|t| !t.is_empty()) {
            out.push(state(name, text));
        }
    }
    let description = text(node.description.as_ref().and_then(|d| d.value.as_ref()));
    if !description.is_empty() {
        out.push(state("description", &description));
    }
    out
}

/// A tristate (`"true"`, `"false"`, `"mixed"`; booleans read as the first two).
fn tristate(value: Option<&Value>) -> Option<&str> {
    match value? {
        Value::String(s) => Some(s.as_str()),
        Value::Bool(true) => Some("true"),
        Value::Bool(false) => Some("false"),
        _ => None,
    }
}

/// A number as an agent would write it (`5`, not `5.0`).
fn number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        // serde_json's float printing, already in the binary.
        serde_json::Number::from_f64(n).map_or_else(|| "NaN".to_owned(), |n| n.to_string())
    }
}

#[cfg(test)]
mod tests;
