//! The snapshot section's content: the whole tree, a view of it (a subtree, folded to
//! a budget), or its changes since the last whole one, each as text and as
//! `structuredContent` made from the same data. Where it goes (inline, a file) is
//! the reply's writer's business (`response/sections.rs`).

use serde_json::{Map, Value};
use tabwire_shared::{TabId, WalkOptions};

use super::text::{self, LEGEND};
use super::tree;
use super::{self as keys, Fold, Keys};
use crate::mcp::output::{self, page_text};
use crate::mcp::response::{GatheredSnapshot, SnapshotRequest};
use crate::mcp::snapshot::changes::{self, Changes};
use crate::mcp::snapshot::fold::{self, Row, View};

/// Changes are sent instead of the whole tree only when their text is at most this
/// share of the whole tree's.
pub const CHANGES_AT_MOST: f64 = 0.5;

/// What a viewport snapshot holds. A tab in the background keeps its window's size and
/// its scroll position, so its viewport is what it would show in front.
pub const VIEWPORT: &str = "Only the elements in the page's viewport where it is scrolled \
    to (for a page in the background, what it would show in front), and those containing \
    them: take_snapshot without viewport gives the rest.";

/// The section's content, before it is placed.
pub(crate) struct Body {
    /// The lines above the tree: which snapshot this is, how to read it.
    pub header: Vec<String>,
    /// The tree (or the changes) as text.
    pub text: String,
    /// The tree (or the changes) as structured content.
    pub tree: Tree,
    /// The structured entries that say what the header says.
    pub about: Keys,
    /// How many nodes the snapshot has.
    pub nodes: usize,
    /// Whether the agent, given this, holds the page's whole tree (every node, or the
    /// changes to the whole tree it had): what later changes can be said against.
    pub whole: bool,
}

/// The tree, or the changes, as structured content.
pub(crate) enum Tree {
    /// Structured output is off.
    Unasked,
    /// The tree (`null` for a snapshot without nodes).
    Whole(Value),
    /// The changes since a whole snapshot.
    Changes(keys::Changes),
}

impl Tree {
    /// How many characters its JSON takes.
    pub fn json_chars(&self) -> usize {
        let json = match self {
            Tree::Unasked => Value::Null.to_string(),
            Tree::Whole(tree) => tree.to_string(),
            Tree::Changes(changes) => serde_json::to_string(changes).unwrap_or_default(),
        };
        json.chars().count()
    }

    /// Its `structuredContent` entry (none for a tree without nodes).
    pub fn entries(self) -> Map<String, Value> {
        let keys = match self {
            Tree::Unasked | Tree::Whole(Value::Null) => Keys::default(),
            Tree::Whole(tree) => Keys {
                snapshot: Some(tree),
                ..Keys::default()
            },
            Tree::Changes(changes) => Keys {
                snapshot_changes: Some(changes),
                ..Keys::default()
            },
        };
        output::entries(&keys)
    }
}

/// The text of every node the request asks for, nothing folded: what a file holds when
/// the reply shows the tree folded.
pub(crate) fn unfolded_text(gathered: &GatheredSnapshot) -> String {
    let nodes = gathered.asked_nodes();
    let base_depth = nodes.first().map_or(0, |n| n.depth);
    text::format_rows(&fold::view(nodes, base_depth, None, &[]).rows)
}

/// The content for `gathered`, as `request` asks. The tree is written once: its text
/// is also what the changes' length is measured against.
///
/// `fit`: fold the tree to this many characters because the whole would not fit the
/// client's reply (the agent did not ask for it): then no changes, and the header says
/// why it is folded.
pub(crate) fn body(
    gathered: &GatheredSnapshot,
    request: &SnapshotRequest,
    structured: bool,
    fit: Option<usize>,
) -> Body {
    let snapshot = &gathered.snapshot;
    let nodes = gathered.asked_nodes();
    let base_depth = nodes.first().map_or(0, |n| n.depth);
    let max_chars = fit.or(request.view.max_chars);
    let view = fold::view(nodes, base_depth, max_chars, &request.view.unfold);
    let mut text = text::format_rows(&view.rows);
    let mut why_whole = None;
    if let Some(base) = gathered.since.as_ref().filter(|_| fit.is_none()) {
        match changes::compare(&base.snapshot, snapshot) {
            Ok(changes) => {
                let body = changes_body(gathered, base.number, &changes, structured);
                let whole = text.chars().count() as f64;
                if (body.text.chars().count() as f64) <= CHANGES_AT_MOST * whole {
                    return body;
                }
                why_whole = Some(format!(
                    "its changes since snapshot {} would be about as long",
                    base.number
                ));
            }
            Err(unrelated) => {
                why_whole = Some(format!("{} snapshot {}", unrelated.reason(), base.number));
            }
        }
    }
    // Only the default walk is a base: a verbose or viewport tree is another tree.
    let whole = request.walk == WalkOptions::default()
        && nodes.len() == snapshot.nodes.len()
        && !view.folded()
        && view.cut.is_none();
    let mut about = Keys {
        snapshot_id: Some(gathered.number),
        snapshot_page_id: Some(gathered.page),
        ..Keys::default()
    };
    let mut first = format!("Snapshot {} of page {}", gathered.number, gathered.page);
    if let Some(root) = nodes.first().filter(|_| request.view.uid.is_some()) {
        first.push_str(&format!(": the subtree of {}", root.uid));
        about.snapshot_root = Some(root.uid.clone());
    }
    if request.walk.viewport {
        first.push_str(", only what is in the viewport");
        about.snapshot_viewport = Some(VIEWPORT);
    }
    if view.folded() || (fit.is_some() && view.cut.is_some()) {
        match (view.max_chars, fit) {
            (Some(max), Some(_)) => {
                first.push_str(&format!(
                    ", folded to fit this client's replies ({max} characters): a line \
                     starting with \u{2026} stands for siblings like the ones above it \
                     (take_snapshot with unfold=[<parent uid>] or uid=<uid> shows them)"
                ));
                about.snapshot_max_chars = Some(max);
            }
            (Some(max), None) => {
                first.push_str(&format!(
                    ", folded to fit maxChars={max}: a line starting with \u{2026} stands for \
                     siblings like the ones above it"
                ));
                about.snapshot_max_chars = Some(max);
            }
            _ => {}
        }
    }
    first.push('.');
    let mut header = vec![first];
    if let Some(why) = why_whole {
        header.push(format!("The whole tree: {why}."));
        about.snapshot_whole = Some(why.clone());
    }
    if request.walk.viewport {
        header.push(VIEWPORT.into());
    }
    if !view.unknown_unfold.is_empty() {
        let note = format!(
            "unfold names uids this snapshot does not hold: {}.",
            view.unknown_unfold.join(", ")
        );
        header.push(note.clone());
        about.snapshot_note = Some(note);
    }
    header.push(LEGEND.into());

    if let Some(cut) = &view.cut {
        let note = if fit.is_some() {
            text::fitted_cut_note(cut)
        } else {
            text::cut_note(cut)
        };
        text.push_str(&note);
        text.push('\n');
        about.snapshot_cut = Some(keys::Cut::new(cut, note));
    }
    let tree = if structured {
        Tree::Whole(view_tree(&view))
    } else {
        Tree::Unasked
    };
    Body {
        header,
        text,
        tree,
        about,
        nodes: snapshot.nodes.len(),
        whole,
    }
}

/// A view as a tree: nodes as in a whole snapshot, folds as
/// `{folded, like, lines, unfold}` among the children they stand for.
fn view_tree(view: &View) -> Value {
    let items = view.rows.iter().map(|row| match row {
        Row::Node { node, depth, .. } => (*depth, tree::node_fields(node)),
        Row::Fold(fold) => {
            let fields = Fold {
                folded: fold.count,
                like: fold.like.iter().map(|role| role.to_string()).collect(),
                lines: fold.lines,
                unfold: fold.parent.to_string(),
            };
            (fold.depth, output::entries(&fields))
        }
    });
    tree::one_root(tree::forest(items))
}

/// The changes since snapshot `since`.
fn changes_body(
    gathered: &GatheredSnapshot,
    since: u64,
    changes: &Changes,
    structured: bool,
) -> Body {
    let page: TabId = gathered.page;
    let number = gathered.number;
    let mut header = Vec::new();
    let mut text = String::new();
    if changes.is_empty() {
        header.push(format!(
            "Snapshot {number} of page {page}: no changes since snapshot {since} \
             (take_snapshot gives the whole tree)."
        ));
    } else {
        header.push(format!(
            "Snapshot {number} of page {page}: only the changes since snapshot {since} \
             (take_snapshot gives the whole tree)."
        ));
        header.push(LEGEND.into());
        if let Some(url) = changes.url {
            text.push_str(&format!(
                "The page's URL is now {}\n",
                page_text::inline(url)
            ));
        }
        if !changes.removed.is_empty() {
            text.push_str(&format!(
                "Removed, with what was under them: {}\n",
                changes.removed.join(", ")
            ));
        }
        if !changes.changed.is_empty() {
            text.push_str("Changed, as they are now:\n");
            for node in &changes.changed {
                text::write_node(&mut text, node, 0);
            }
        }
        if !changes.placed.is_empty() {
            text.push_str(
                "Added or moved, with what is under them, at their place among the \
                 parent's children now (0 first):\n",
            );
            for placed in &changes.placed {
                let at = if placed.count == 1 {
                    format!("{}", placed.position)
                } else {
                    format!(
                        "{} to {}",
                        placed.position,
                        placed.position + placed.count - 1
                    )
                };
                text.push_str(&format!("Under {} at {at}:\n", placed.parent));
                for node in placed.nodes {
                    text::write_node(&mut text, node, node.depth.saturating_sub(placed.depth) + 1);
                }
            }
        }
    }
    let tree = if structured {
        Tree::Changes(changes_data(since, changes))
    } else {
        Tree::Unasked
    };
    let about = Keys {
        snapshot_id: Some(number),
        snapshot_page_id: Some(page),
        snapshot_since: Some(since),
        ..Keys::default()
    };
    Body {
        header,
        text,
        tree,
        about,
        nodes: gathered.snapshot.nodes.len(),
        whole: true,
    }
}

/// The changes as structured content, complete without the text.
fn changes_data(since: u64, changes: &Changes) -> keys::Changes {
    let placed = changes
        .placed
        .iter()
        .map(|placed| {
            let items = placed.nodes.iter().map(|node| {
                (
                    node.depth.saturating_sub(placed.depth),
                    tree::node_fields(node),
                )
            });
            keys::Placed {
                parent: placed.parent.to_owned(),
                position: placed.position,
                nodes: tree::forest(items),
            }
        })
        .collect();
    let changed = changes
        .changed
        .iter()
        .map(|node| Value::Object(tree::node_fields(node)))
        .collect();
    keys::Changes {
        note: format!(
            "Only the changes since snapshot {since}: removed uids (with what was under \
             them), changed nodes as they are now, and nodes added or moved (with what \
             is under them) at their position among their parent's children now, 0 \
             first. take_snapshot gives the whole tree."
        ),
        removed: changes.removed.iter().map(|uid| uid.to_string()).collect(),
        changed,
        placed,
        url: changes.url.map(str::to_owned),
    }
}
