//! The page's DOM in one piece: `DOMSnapshot.captureSnapshot`.
//!
//! Chrome answers with every document of the tab's process (the main frame's and each
//! same-process frame's) as flat arrays: node `i` of a document has the parent
//! `parentIndex[i]` in the same document, so however deep the page nests, the answer
//! does not (a nested `DOM.describeNode` tree would, past what a JSON reader accepts).
//! The tree is the flat tree, as layout and the accessibility tree see it: shadow
//! content sits under its host, slotted children under their slot. Only the node
//! arrays are declared; layout, text and style data are skipped while parsing.

use serde::{Deserialize, Serialize};

use super::command;

/// `DOMSnapshot.captureSnapshot`, with no computed styles.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DomSnapshotCapture {
    /// The computed styles to report for each layout node (none wanted).
    pub computed_styles: Vec<String>,
}
command!(DomSnapshotCapture, "DOMSnapshot.captureSnapshot", Captured);

/// What `DOMSnapshot.captureSnapshot` answers.
#[derive(Debug, Default, Deserialize)]
pub struct Captured {
    /// The documents; the main frame's first.
    #[serde(default)]
    pub documents: Vec<CapturedDocument>,
    /// The strings the documents' arrays refer to by index.
    #[serde(default)]
    pub strings: Vec<String>,
}

/// One document of a capture.
#[derive(Debug, Default, Deserialize)]
pub struct CapturedDocument {
    /// Its nodes.
    #[serde(default)]
    pub nodes: CapturedNodes,
}

/// A document's nodes as parallel arrays, in document order (the document node first).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CapturedNodes {
    /// Each node's parent, as an index into these arrays; `-1` for the document node.
    #[serde(default)]
    pub parent_index: Vec<i64>,
    /// Each node's type: `1` for an element, `3` for text, `9` for a document, ...
    #[serde(default)]
    pub node_type: Vec<i64>,
    /// Each node's name (`DIV`, `app-counter`, `#text`), as an index into the strings.
    #[serde(default)]
    pub node_name: Vec<i64>,
    /// Each node's backend id.
    #[serde(default)]
    pub backend_node_id: Vec<i64>,
    /// For the nodes that hold a frame (`<iframe>`), the index of its document.
    #[serde(default)]
    pub content_document_index: RareIntegers,
}

/// Values that only a few nodes have: `value[k]` belongs to node `index[k]`.
#[derive(Debug, Default, Deserialize)]
pub struct RareIntegers {
    /// The nodes that have a value.
    #[serde(default)]
    pub index: Vec<i64>,
    /// Their values.
    #[serde(default)]
    pub value: Vec<i64>,
}
