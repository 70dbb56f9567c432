//! An accessibility snapshot: the tree (whole, a part of it, folded or cut to fit), or
//! only what changed since the last whole one, and what the reply says about it.
//!
//! The tree's nodes carry their states as fields, so a node is built as a JSON object
//! ([`tree`]); [`Node`] and [`Fold`] say what it holds.

pub mod body;
pub mod text;
pub mod tree;

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use tabwire_shared::TabId;

use crate::mcp::snapshot::fold;

/// The `structuredContent` keys of the snapshot section, in the order it writes them.
#[derive(Debug, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Keys {
    /// The number later replies name this snapshot by.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot_id: Option<u64>,
    /// The page the snapshot is of.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot_page_id: Option<TabId>,
    /// The snapshot `snapshotChanges` are changes since.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot_since: Option<u64>,
    /// The uid whose subtree this snapshot is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot_root: Option<String>,
    /// Set when only the elements in the viewport are shown: what that holds, and how
    /// to get the rest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot_viewport: Option<&'static str>,
    /// The budget similar siblings were folded to fit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot_max_chars: Option<usize>,
    /// Why the whole tree came instead of the changes since the last one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot_whole: Option<String>,
    /// A remark on the request (uids in `unfold` the snapshot does not hold).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot_note: Option<String>,
    /// What did not fit in maxChars even folded: per parent, its children from `from`
    /// on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot_cut: Option<Cut>,
    /// The file holding the snapshot: asked for with `filePath`, or every node of one
    /// folded to fit the client's replies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot_file_path: Option<PathBuf>,
    /// The tree; `id` is the uid other tools take.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Node>")]
    pub snapshot: Option<Value>,
    /// Only the changes since snapshot `snapshotSince`; take_snapshot gives the whole
    /// tree.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot_changes: Option<Changes>,
}

/// An accessibility node: its uid (`id`), role, name, value and states as fields.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub struct Node {
    id: String,
    role: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    children: Vec<Child>,
}

/// A child: a node, or siblings folded away.
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum Child {
    Node(Node),
    Fold(Fold),
}

/// Siblings folded to fit maxChars: `folded` more like the `like` roles before it,
/// `lines` nodes in all; take_snapshot with unfold=[`unfold`] shows them.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Fold {
    /// How many siblings are folded.
    pub folded: usize,
    /// The roles of the siblings they are like.
    pub like: Vec<String>,
    /// How many nodes they hold.
    pub lines: usize,
    /// The parent to unfold.
    pub unfold: String,
}

/// What did not fit.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Cut {
    /// The budget.
    pub max_chars: usize,
    /// How many lines are missing.
    pub lines: usize,
    /// Per parent, from which child on.
    pub rest: Vec<Rest>,
    /// The same, in words.
    pub note: String,
}

/// A parent's children missing from a cut tree.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Rest {
    /// The parent (`null` for the roots).
    pub parent: Option<String>,
    /// The first child missing.
    pub from: String,
    /// How many children are missing.
    pub children: usize,
}

impl Cut {
    /// `cut`, said by `note`.
    pub fn new(cut: &fold::Cut, note: String) -> Self {
        let rest = cut
            .rest
            .iter()
            .map(|rest| Rest {
                parent: rest.parent.map(str::to_owned),
                from: rest.from.to_owned(),
                children: rest.children,
            })
            .collect();
        Self {
            max_chars: cut.max_chars,
            lines: cut.lines,
            rest,
            note,
        }
    }
}

/// The changes since a whole snapshot, complete without the text.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Changes {
    /// What the changes are, in words.
    pub note: String,
    /// The uids gone (with what was under them).
    pub removed: Vec<String>,
    /// The nodes changed, as they are now.
    #[schemars(with = "Vec<Node>")]
    pub changed: Vec<Value>,
    /// The nodes added or moved, with what is under them.
    pub placed: Vec<Placed>,
    /// The page's URL, when it changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// Nodes added or moved under one parent.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Placed {
    /// The parent's uid.
    pub parent: String,
    /// Their position among the parent's children now, 0 first.
    pub position: usize,
    /// The nodes, each a tree.
    #[schemars(with = "Vec<Node>")]
    pub nodes: Vec<Value>,
}

#[cfg(test)]
pub(super) fn sample() -> serde_json::Map<String, Value> {
    use serde_json::json;
    let fold = serde_json::to_value(Fold {
        folded: 997,
        like: vec!["heading".into(), "link".into()],
        lines: 4985,
        unfold: "1_1".into(),
    })
    .unwrap_or(Value::Null);
    let node = json!({"id": "1_2", "role": "heading", "name": "Hi", "level": 2});
    super::entries(&Keys {
        snapshot_id: Some(3),
        snapshot_page_id: Some(1),
        snapshot_since: Some(2),
        snapshot_root: Some("1_1".into()),
        snapshot_viewport: Some("Only the viewport."),
        snapshot_max_chars: Some(500),
        snapshot_whole: Some("another document".into()),
        snapshot_note: Some("unfold names uids this snapshot does not hold: 9_9.".into()),
        snapshot_cut: Some(Cut {
            max_chars: 500,
            lines: 12,
            rest: vec![Rest {
                parent: None,
                from: "1_9".into(),
                children: 3,
            }],
            note: "12 lines are missing.".into(),
        }),
        snapshot_file_path: Some("/tmp/s.txt".into()),
        snapshot: Some(
            json!({"id": "1_0", "role": "RootWebArea", "value": "v", "focused": true,
            "children": [{"id": "1_1", "role": "main", "children": [node.clone(), fold]}]}),
        ),
        snapshot_changes: Some(Changes {
            note: "Only the changes.".into(),
            url: Some("http://x/".into()),
            removed: vec!["1_5".into()],
            changed: vec![node.clone()],
            placed: vec![Placed {
                parent: "1_1".into(),
                position: 0,
                nodes: vec![node],
            }],
        }),
    })
}
