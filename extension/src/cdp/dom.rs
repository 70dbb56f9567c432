//! DOM commands: from an element to its backend node id and back, frame owners, the
//! event listeners on an object, an element's shadow roots, and the overlay that keeps
//! input fast in hidden tabs.
//!
//! Elements are named by their *backend node id*, which stays the same for as long as
//! the node lives and needs no `DOM.enable`/`DOM.getDocument` bookkeeping.

use serde::{Deserialize, Serialize};

use super::{command, Empty, RemoteObject};

/// `DOM.describeNode`: a node's ids and name, by backend node id or remote object.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DomDescribeNode {
    /// The node, by backend id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backend_node_id: Option<i64>,
    /// The node, as a JavaScript object.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object_id: Option<String>,
}
command!(DomDescribeNode, "DOM.describeNode", Described);

/// What `DOM.describeNode` answers.
#[derive(Debug, Deserialize)]
pub struct Described {
    /// The node.
    pub node: DomNode,
}

/// A DOM node, as much of it as the engine reads.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DomNode {
    /// The node's backend id.
    pub backend_node_id: i64,
    /// `1` for an element, `3` for text, `9` for a document, ...
    #[serde(default)]
    pub node_type: i64,
    /// `DIV`, `#text`, `#document`, ...
    #[serde(default)]
    pub node_name: String,
    /// `div` (empty for non-elements).
    #[serde(default)]
    pub local_name: String,
    /// The attributes, as name, value, name, value, ...
    #[serde(default)]
    pub attributes: Vec<String>,
}

impl DomNode {
    /// The value of an attribute (names compared case-insensitively).
    pub fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes
            .chunks(2)
            .find(|pair| pair[0].eq_ignore_ascii_case(name))
            .and_then(|pair| pair.get(1))
            .map(String::as_str)
    }
}

/// `DOM.resolveNode`: a JavaScript object for a node.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DomResolveNode {
    /// The node.
    pub backend_node_id: i64,
    /// Group for the object, so it can be released.
    pub object_group: String,
    /// The context (world) the object is made in; default: the node's own frame's
    /// main world. A call's arguments must live in the call target's world.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub execution_context_id: Option<i64>,
}
command!(DomResolveNode, "DOM.resolveNode", Resolved);

/// What `DOM.resolveNode` answers.
#[derive(Debug, Deserialize)]
pub struct Resolved {
    /// The node's JavaScript object.
    pub object: RemoteObject,
}

/// `DOM.getFrameOwner`: the `<iframe>` element that holds a frame.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DomGetFrameOwner {
    /// The frame.
    pub frame_id: String,
}
command!(DomGetFrameOwner, "DOM.getFrameOwner", FrameOwner);

/// What `DOM.getFrameOwner` answers.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameOwner {
    /// The owner element's backend id.
    pub backend_node_id: i64,
}

/// `DOMDebugger.getEventListeners`: the listeners registered on an object.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DomDebuggerGetEventListeners {
    /// The object (here: the page's `window`).
    pub object_id: String,
    /// How deep into the DOM to look; 0 is the object only.
    pub depth: i64,
}
command!(
    DomDebuggerGetEventListeners,
    "DOMDebugger.getEventListeners",
    EventListeners
);

/// What `DOMDebugger.getEventListeners` answers.
#[derive(Debug, Deserialize)]
pub struct EventListeners {
    /// The listeners.
    #[serde(default)]
    pub listeners: Vec<EventListener>,
}

/// One event listener.
#[derive(Debug, Deserialize)]
pub struct EventListener {
    /// The event type it listens to.
    #[serde(rename = "type", default)]
    pub kind: String,
}

/// `DOM.enable` (needed, and kept on, for [`OverlayEnable`]).
#[derive(Debug, Serialize)]
pub struct DomEnable {}
command!(DomEnable, "DOM.enable", Empty);

/// `DOM.disable`: for a cross-site frame's session, whose DOM domain is on only while
/// its element's styles are read (the tab's own stays on).
#[derive(Debug, Serialize)]
pub struct DomDisable {}
command!(DomDisable, "DOM.disable", Empty);

/// `Overlay.enable`: with DevTools' overlay on, the page's renderer stops holding mouse
/// moves for the next animation frame, which a hidden tab never draws (Chrome then
/// waits up to 5 s per move). The overlay shows nothing until asked to.
#[derive(Debug, Serialize)]
pub struct OverlayEnable {}
command!(OverlayEnable, "Overlay.enable", Empty);

/// `Overlay.setInspectMode`: `searchForNode` highlights what the pointer is over until
/// a click picks it (`Overlay.inspectNodeRequested`); `none` ends it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OverlaySetInspectMode {
    /// `searchForNode` or `none`.
    pub mode: &'static str,
    /// How the element under the pointer is drawn (DevTools' own look). Chrome
    /// refuses the command without one ("highlight configuration parameter is
    /// missing"), `none` included: then an empty object.
    pub highlight_config: serde_json::Value,
}
command!(OverlaySetInspectMode, "Overlay.setInspectMode", Empty);

/// `DOM.describeNode {depth: 1, pierce: true}` of an element: its shadow roots, closed
/// ones included (no page script can reach those).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DomDescribeShadowRoots {
    /// The element, as a JavaScript object.
    pub object_id: String,
    /// How deep to describe (1: the roots themselves).
    pub depth: i64,
    /// Whether to describe shadow roots.
    pub pierce: bool,
}
command!(DomDescribeShadowRoots, "DOM.describeNode", ShadowHost);

/// What [`DomDescribeShadowRoots`] answers.
#[derive(Debug, Deserialize)]
pub struct ShadowHost {
    /// The element.
    pub node: ShadowHostNode,
}

/// An element and its shadow roots.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ShadowHostNode {
    /// The roots (none when the element hosts none).
    #[serde(default)]
    pub shadow_roots: Vec<ShadowRootNode>,
}

/// One shadow root.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ShadowRootNode {
    /// Its backend id.
    pub backend_node_id: i64,
    /// `open`, `closed` or `user-agent`.
    #[serde(default)]
    pub shadow_root_type: String,
}
