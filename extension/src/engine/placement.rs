//! Returned elements in their place: an element a third-party tool returned (a pinned
//! node) that the accessibility tree does not list — a custom element such as
//! `<app-counter>`, or one with `display: none` — is put into the snapshot where it is
//! in the DOM.
//!
//! Each such element goes under its nearest DOM ancestor that the snapshot shows, as
//! a node whose role is its tag name, and takes with it those of that ancestor's
//! children that are its own DOM descendants: it sits where the first of them sat, or
//! after the ancestor's last child if it holds none. Without a shown ancestor (an
//! element no longer in the document) it goes under the root. Elements inside other
//! returned elements nest the same way, whatever order they are placed in.
//!
//! The DOM's shape comes from one `DOMSnapshot.captureSnapshot` (flat arrays, no page
//! script involved, fetched only when some pinned node needs a place); [`place`] does
//! the tree surgery on plain data. Uids are not touched here: they are given after,
//! by backend node id, so a node keeps its uid wherever it lands.

use std::collections::HashMap;

use futures::future::join_all;
use tabwire_shared::{NodeState, TabId};

use super::axtree::FlatNode;
use super::snapshot::NOT_IN_ACCESSIBILITY_TREE;
use super::Engine;
use crate::cdp::dom::DomDescribeNode;
use crate::cdp::dom_snapshot::{Captured, DomSnapshotCapture};
use crate::chrome::Chrome;
use crate::error::EngineError;
use crate::signals::Subscription;

/// The DOM's shape, as much as placing elements needs: each node's parent (across
/// frames: a frame's document hangs under its `<iframe>`) and each element's tag name.
#[derive(Debug, Default)]
pub struct DomShape {
    parents: HashMap<i64, i64>,
    tags: HashMap<i64, String>,
}

impl DomShape {
    /// The shape of a capture. Indexes that point nowhere are skipped.
    pub fn of(captured: &Captured) -> DomShape {
        let mut shape = DomShape::default();
        for document in &captured.documents {
            let nodes = &document.nodes;
            let backend = |i: i64| {
                usize::try_from(i)
                    .ok()
                    .and_then(|i| nodes.backend_node_id.get(i))
                    .copied()
            };
            for (i, node) in nodes.backend_node_id.iter().enumerate() {
                if let Some(parent) = nodes.parent_index.get(i).and_then(|p| backend(*p)) {
                    shape.parents.insert(*node, parent);
                }
                let name = nodes
                    .node_name
                    .get(i)
                    .and_then(|n| usize::try_from(*n).ok())
                    .and_then(|n| captured.strings.get(n));
                if let (Some(1), Some(name)) = (nodes.node_type.get(i), name) {
                    shape.tags.insert(*node, name.to_ascii_lowercase());
                }
            }
            let frames = &nodes.content_document_index;
            for (owner, child) in frames.index.iter().zip(&frames.value) {
                let child = usize::try_from(*child)
                    .ok()
                    .and_then(|c| captured.documents.get(c));
                let root = child.and_then(|c| c.nodes.backend_node_id.first());
                if let (Some(owner), Some(root)) = (backend(*owner), root) {
                    shape.parents.insert(*root, owner);
                }
            }
        }
        shape
    }

    /// The element's tag name (`app-counter`), if the shape holds it.
    pub fn tag(&self, node: i64) -> Option<&str> {
        self.tags.get(&node).map(String::as_str)
    }

    /// The node's ancestors, nearest first. Bounded, should the input link in a cycle.
    fn ancestors(&self, node: i64) -> impl Iterator<Item = i64> + '_ {
        let mut here = node;
        (0..self.parents.len()).map_while(move |_| {
            here = *self.parents.get(&here)?;
            Some(here)
        })
    }

    /// Whether `node` is `container` or inside it.
    fn is_within(&self, node: i64, container: i64) -> bool {
        node == container || self.ancestors(node).any(|a| a == container)
    }
}

/// The snapshot's nodes as a tree, to move subtrees around.
struct Tree {
    nodes: Vec<FlatNode>,
    children: Vec<Vec<usize>>,
    roots: Vec<usize>,
    /// The first node of each DOM node.
    by_backend: HashMap<i64, usize>,
}

impl Tree {
    /// The tree of depth-first nodes with depths.
    fn of(nodes: Vec<FlatNode>) -> Tree {
        let mut children = vec![Vec::new(); nodes.len()];
        let mut roots = Vec::new();
        let mut by_backend = HashMap::with_capacity(nodes.len());
        // The open ancestors of the next node, with their depths.
        let mut open: Vec<(usize, u32)> = Vec::new();
        for (i, node) in nodes.iter().enumerate() {
            while open.last().is_some_and(|(_, depth)| *depth >= node.depth) {
                open.pop();
            }
            match open.last() {
                Some((parent, _)) => children[*parent].push(i),
                None => roots.push(i),
            }
            open.push((i, node.depth));
            if let Some(backend) = node.backend {
                by_backend.entry(backend).or_insert(i);
            }
        }
        Tree {
            nodes,
            children,
            roots,
            by_backend,
        }
    }

    /// Adds `node` (whose backend is `element`) under its nearest shown ancestor.
    fn insert(&mut self, element: i64, node: FlatNode, shape: &DomShape) {
        let at = self.nodes.len();
        self.nodes.push(node);
        self.children.push(Vec::new());
        let parent = shape
            .ancestors(element)
            .find_map(|a| self.by_backend.get(&a).copied())
            .or_else(|| self.roots.first().copied());
        self.by_backend.insert(element, at);
        let Some(parent) = parent else {
            self.roots.push(at);
            return;
        };
        let siblings = std::mem::take(&mut self.children[parent]);
        let inside = |i: &usize| {
            self.nodes[*i]
                .backend
                .is_some_and(|b| shape.is_within(b, element))
        };
        let first = siblings.iter().position(inside);
        let (moved, mut kept): (Vec<usize>, Vec<usize>) = siblings.into_iter().partition(inside);
        // Every sibling before the first moved one stays: it keeps that index.
        kept.insert(first.unwrap_or(kept.len()), at);
        self.children[at] = moved;
        self.children[parent] = kept;
    }

    /// The nodes depth-first again, with their new depths.
    fn into_nodes(self) -> Vec<FlatNode> {
        let Tree {
            nodes,
            children,
            roots,
            ..
        } = self;
        let mut slots: Vec<Option<FlatNode>> = nodes.into_iter().map(Some).collect();
        let mut out = Vec::with_capacity(slots.len());
        let mut stack: Vec<(usize, u32)> = roots.iter().rev().map(|r| (*r, 0)).collect();
        while let Some((i, depth)) = stack.pop() {
            let Some(mut node) = slots.get_mut(i).and_then(Option::take) else {
                continue;
            };
            node.depth = depth;
            out.push(node);
            stack.extend(children[i].iter().rev().map(|c| (*c, depth + 1)));
        }
        out
    }
}

/// Puts each of `elements` (nodes with a backend id) into `nodes` (depth-first, with
/// depths) at its place in the DOM, as the module header says.
pub fn place(nodes: Vec<FlatNode>, elements: Vec<FlatNode>, shape: &DomShape) -> Vec<FlatNode> {
    let mut tree = Tree::of(nodes);
    for node in elements {
        if let Some(element) = node.backend {
            tree.insert(element, node, shape);
        }
    }
    tree.into_nodes()
}

/// The snapshot node of a pinned element the accessibility tree does not list.
fn element_node(backend: i64, tag: &str) -> FlatNode {
    FlatNode {
        backend: Some(backend),
        depth: 0,
        role: tag.to_owned(),
        name: String::new(),
        value: None,
        states: vec![NodeState::flag(NOT_IN_ACCESSIBILITY_TREE)],
    }
}

impl<C: Chrome + 'static> Engine<C> {
    /// `nodes` with the pinned elements `missing` (which the accessibility tree does
    /// not list) in their places. A pinned node that no longer exists is unpinned.
    pub(super) async fn place_pinned(
        &self,
        tab: TabId,
        watch: &mut Subscription,
        nodes: Vec<FlatNode>,
        missing: Vec<i64>,
    ) -> Result<Vec<FlatNode>, EngineError> {
        let capture = DomSnapshotCapture::default();
        let captured = self
            .watched(tab, watch, async { Ok(self.send(tab, &capture).await) })
            .await?;
        let shape = match captured {
            Ok(captured) => DomShape::of(&captured),
            // Chrome could not capture this page: the elements go under the root.
            Err(EngineError::Cdp { .. } | EngineError::UnexpectedAnswer { .. }) => {
                DomShape::default()
            }
            Err(other) => return Err(other),
        };
        // Elements outside the document (or all of them, without a capture) are
        // asked for one by one: their tag, or that they are gone.
        let unknown: Vec<i64> = missing
            .iter()
            .copied()
            .filter(|node| shape.tag(*node).is_none())
            .collect();
        let described = join_all(unknown.iter().map(|node| {
            let describe = DomDescribeNode {
                backend_node_id: Some(*node),
                object_id: None,
            };
            async move { self.send(tab, &describe).await }
        }));
        let described = self
            .watched(tab, watch, async { Ok(described.await) })
            .await?;
        let mut tags: HashMap<i64, String> = HashMap::with_capacity(unknown.len());
        for (node, outcome) in unknown.into_iter().zip(described) {
            match outcome {
                Ok(found) if !found.node.local_name.is_empty() => {
                    tags.insert(node, found.node.local_name);
                }
                Ok(found) => {
                    tags.insert(node, found.node.node_name.to_ascii_lowercase());
                }
                // Gone from the page: no longer shown.
                Err(_) => {
                    self.with_document(tab, |d| d.pins.unpin(node));
                }
            }
        }
        let elements = missing
            .into_iter()
            .filter_map(|node| {
                let tag = shape
                    .tag(node)
                    .or_else(|| tags.get(&node).map(String::as_str));
                tag.map(|tag| element_node(node, tag))
            })
            .collect();
        Ok(place(nodes, elements, &shape))
    }
}

#[cfg(test)]
mod tests;
