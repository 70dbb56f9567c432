//! The tree behind a flat snapshot: each node's parent, children and subtree end.
//!
//! Nodes come in pre-order with depths; a node's parent is the nearest node before it
//! that is shallower, so a depth that jumps (or a second node at the smallest depth)
//! still gives every node one place. [`UidIndex`] finds a node by its uid.

use std::collections::hash_map::{Entry, HashMap};

use tabwire_shared::SnapshotNode;

/// Parents, children and subtree ends of a pre-order node list.
#[derive(Debug)]
pub struct Links {
    /// Each node's parent (`None`: a root).
    pub parent: Vec<Option<usize>>,
    /// Each node's children, in order.
    pub children: Vec<Vec<usize>>,
    /// The nodes with no parent, in order.
    pub roots: Vec<usize>,
    /// Where each node's subtree ends (exclusive): the subtree of `i` is `i..end[i]`.
    pub end: Vec<usize>,
    /// Each node's place among its parent's children (or among the roots), 0 first.
    pub position: Vec<usize>,
}

impl Links {
    /// The links of `nodes`.
    pub fn of(nodes: &[SnapshotNode]) -> Self {
        let n = nodes.len();
        let mut parent = vec![None; n];
        let mut children = vec![Vec::new(); n];
        let mut roots = Vec::new();
        let mut end = vec![n; n];
        let mut position = vec![0; n];
        let mut open: Vec<usize> = Vec::new();
        for (i, node) in nodes.iter().enumerate() {
            while let Some(&last) = open.last() {
                if nodes[last].depth < node.depth {
                    break;
                }
                end[last] = i;
                open.pop();
            }
            match open.last() {
                Some(&p) => {
                    parent[i] = Some(p);
                    position[i] = children[p].len();
                    children[p].push(i);
                }
                None => {
                    position[i] = roots.len();
                    roots.push(i);
                }
            }
            open.push(i);
        }
        Self {
            parent,
            children,
            roots,
            end,
            position,
        }
    }

    /// The children of `parent` (`None`: the roots).
    pub fn children_of(&self, parent: Option<usize>) -> &[usize] {
        match parent {
            Some(p) => &self.children[p],
            None => &self.roots,
        }
    }
}

/// Where each uid is in a node list.
#[derive(Debug)]
pub struct UidIndex<'a> {
    places: HashMap<&'a str, usize>,
    /// Some uid comes more than once (the first place is kept).
    pub repeated: bool,
}

impl<'a> UidIndex<'a> {
    /// The index of `nodes`.
    pub fn of(nodes: &'a [SnapshotNode]) -> Self {
        let mut places = HashMap::with_capacity(nodes.len());
        let mut repeated = false;
        for (i, node) in nodes.iter().enumerate() {
            match places.entry(node.uid.as_str()) {
                Entry::Occupied(_) => repeated = true,
                Entry::Vacant(slot) => {
                    slot.insert(i);
                }
            }
        }
        Self { places, repeated }
    }

    /// The place of the (first) node with `uid`.
    pub fn get(&self, uid: &str) -> Option<usize> {
        self.places.get(uid).copied()
    }

    /// Whether a node has `uid`.
    pub fn contains(&self, uid: &str) -> bool {
        self.places.contains_key(uid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::output::snapshot::text::test_node as node;

    #[test]
    fn depths_give_parents_children_and_ends() {
        let nodes = [
            node("1_0", 0, "RootWebArea", ""),
            node("1_1", 1, "list", ""),
            node("1_2", 2, "listitem", ""),
            node("1_3", 2, "listitem", ""),
            node("1_4", 1, "button", ""),
            node("1_5", 4, "button", "jump"),
        ];
        let links = Links::of(&nodes);
        assert_eq!(
            links.parent,
            [None, Some(0), Some(1), Some(1), Some(0), Some(4)]
        );
        assert_eq!(links.children[1], [2, 3]);
        assert_eq!(links.end, [6, 4, 3, 4, 6, 6]);
        assert_eq!(links.position, [0, 0, 0, 1, 1, 0]);
        assert_eq!(links.roots, [0]);
    }

    #[test]
    fn the_index_finds_the_first_place_of_a_uid_and_notes_repeats() {
        let nodes = [
            node("1_0", 0, "RootWebArea", ""),
            node("1_1", 1, "button", ""),
            node("1_1", 1, "button", "again"),
        ];
        let index = UidIndex::of(&nodes);
        assert_eq!(index.get("1_1"), Some(1));
        assert!(index.repeated && index.contains("1_0") && !index.contains("9_9"));
        assert!(!UidIndex::of(&nodes[..2]).repeated);
    }
}
