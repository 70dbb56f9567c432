//! One element and everything under it, for `take_snapshot {uid}`.

use std::ops::Range;

use tabwire_shared::SnapshotNode;

use super::links::Links;

/// The nodes of the subtree rooted at the node with this `uid` (that node first), or
/// `None` when no node has it.
pub fn subtree<'a>(nodes: &'a [SnapshotNode], uid: &str) -> Option<&'a [SnapshotNode]> {
    range(nodes, uid).map(|range| &nodes[range])
}

/// Where in `nodes` the subtree rooted at the node with this `uid` lies, or `None` when
/// no node has it.
pub fn range(nodes: &[SnapshotNode], uid: &str) -> Option<Range<usize>> {
    let start = nodes.iter().position(|node| node.uid == uid)?;
    let end = Links::of(nodes).end[start];
    Some(start..end)
}

/// What the agent reads when it names a uid the page's snapshot does not hold.
pub fn unknown_uid(uid: &str) -> String {
    format!(
        "No element has the uid {uid} in the page's current snapshot: the page changed or \
         navigated since that uid was given, or it never was one. Take a fresh snapshot \
         (take_snapshot without uid) and use a uid from it."
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::output::snapshot::text::test_node as node;

    #[test]
    fn a_subtree_is_the_node_and_what_is_deeper_after_it() {
        let nodes = [
            node("1_0", 0, "RootWebArea", ""),
            node("1_1", 1, "list", ""),
            node("1_2", 2, "listitem", ""),
            node("1_3", 3, "link", ""),
            node("1_4", 1, "button", ""),
        ];
        let uids = |found: &[SnapshotNode]| found.iter().map(|n| n.uid.clone()).collect::<Vec<_>>();
        assert_eq!(uids(subtree(&nodes, "1_1").unwrap()), ["1_1", "1_2", "1_3"]);
        assert_eq!(uids(subtree(&nodes, "1_4").unwrap()), ["1_4"]);
        assert_eq!(subtree(&nodes, "1_0").unwrap().len(), 5);
        assert!(subtree(&nodes, "9_9").is_none());
    }
}
