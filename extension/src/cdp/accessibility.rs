//! The accessibility tree: `Accessibility.getFullAXTree`, and `getPartialAXTree` for
//! single nodes.
//!
//! Chrome answers with every node of one frame's document as a flat list linked by
//! ids. Only what a snapshot shows is declared here; the bulky parts of each node
//! (name sources, ignored reasons) are skipped while parsing.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::command;

/// `Accessibility.getFullAXTree` for one frame (the main frame if `frame_id` is unset).
/// Frames are not followed: each same-process child frame is asked for separately.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AccessibilityGetFullAxTree {
    /// The frame.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame_id: Option<String>,
}
command!(
    AccessibilityGetFullAxTree,
    "Accessibility.getFullAXTree",
    AxTree
);

/// `Accessibility.getPartialAXTree` for one node, without its relatives: Chrome's
/// role, name and properties of that node alone (ElementInternals included).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AccessibilityGetPartialAxTree {
    /// The node, as a JavaScript object (of any world).
    pub object_id: String,
    /// Whether its ancestors, siblings and children come too (never, here).
    pub fetch_relatives: bool,
}
command!(
    AccessibilityGetPartialAxTree,
    "Accessibility.getPartialAXTree",
    AxTree
);

/// `Accessibility.getPartialAXTree {backendNodeId, fetchRelatives: false}`: one node's
/// accessibility facts, by its DOM node.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AccessibilityNodeOf {
    /// The DOM node.
    pub backend_node_id: i64,
    /// Whether its ancestors, siblings and children come too (never, here).
    pub fetch_relatives: bool,
}
command!(
    AccessibilityNodeOf,
    "Accessibility.getPartialAXTree",
    AxTree
);

/// What `Accessibility.getFullAXTree` answers.
#[derive(Debug, Default, Deserialize)]
pub struct AxTree {
    /// The nodes; the root comes first.
    #[serde(default)]
    pub nodes: Vec<AxNode>,
}

/// One accessibility node.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AxNode {
    /// The node's id within its tree.
    pub node_id: String,
    /// Whether the node is ignored for accessibility (layout wrappers, hidden nodes).
    #[serde(default)]
    pub ignored: bool,
    /// Its role (`button`, `StaticText`, `RootWebArea`, ...).
    pub role: Option<AxValue>,
    /// Its accessible name.
    pub name: Option<AxValue>,
    /// Its accessible description.
    pub description: Option<AxValue>,
    /// Its value (text fields, sliders, ...).
    pub value: Option<AxValue>,
    /// States and properties (`focused`, `checked`, `level`, ...).
    #[serde(default)]
    pub properties: Vec<AxProperty>,
    /// The parent's id; absent for the root.
    pub parent_id: Option<String>,
    /// The children's ids, in order.
    #[serde(default)]
    pub child_ids: Vec<String>,
    /// The DOM node behind it, if any.
    #[serde(rename = "backendDOMNodeId")]
    pub backend_dom_node_id: Option<i64>,
}

/// A typed accessibility value; only the value itself is read.
#[derive(Debug, Default, Clone, Deserialize)]
pub struct AxValue {
    /// The value: a string, number, boolean or token.
    #[serde(default)]
    pub value: Option<Value>,
}

/// A named accessibility property.
#[derive(Debug, Clone, Deserialize)]
pub struct AxProperty {
    /// The property's name (`focused`, `checked`, ...).
    pub name: String,
    /// Its value.
    pub value: AxValue,
}
