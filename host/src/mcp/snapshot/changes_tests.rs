//! Changes between snapshots: added, removed, changed, moved, and when not to compare.

use tabwire_shared::{NodeState, Snapshot, SnapshotNode};

use super::*;
use crate::mcp::output::snapshot::text::test_node as node;

fn tree(nodes: Vec<SnapshotNode>) -> Snapshot {
    Snapshot {
        url: "http://127.0.0.1/list".into(),
        title: "List".into(),
        nodes,
    }
}

/// A list (1_1) of rows, each a row with a cell, then a Save button (1_9).
fn list(rows: &[&str]) -> Vec<SnapshotNode> {
    let mut nodes = vec![
        node("1_0", 0, "RootWebArea", "List"),
        node("1_1", 1, "list", ""),
    ];
    for uid in rows {
        nodes.push(node(uid, 2, "row", uid));
        nodes.push(node(&format!("{uid}c"), 3, "cell", "x"));
    }
    nodes.push(node("1_9", 1, "button", "Save"));
    nodes
}

fn uids(nodes: &[SnapshotNode]) -> Vec<&str> {
    nodes.iter().map(|n| n.uid.as_str()).collect()
}

#[test]
fn rows_added_and_removed_and_a_line_changed() {
    let base = tree(list(&["r1", "r2", "r3", "r4"]));
    let mut now = list(&["r1", "r2", "n1", "n2", "r4"]);
    let save = now.last_mut().unwrap();
    save.name = "Saved".into();
    save.states = vec![NodeState::flag("disabled")];
    let now = tree(now);
    let changes = compare(&base, &now).unwrap();
    assert_eq!(changes.removed, ["r3"], "the cell goes with its row");
    let changed: Vec<&str> = changes.changed.iter().map(|n| n.uid.as_str()).collect();
    assert_eq!(changed, ["1_9"]);
    assert_eq!(changes.placed.len(), 1, "neighbours come as one block");
    let block = &changes.placed[0];
    assert_eq!(
        (block.parent, block.position, block.count, block.depth),
        ("1_1", 2, 2, 2)
    );
    assert_eq!(uids(block.nodes), ["n1", "n1c", "n2", "n2c"]);
    assert!(changes.url.is_none());
}

#[test]
fn nothing_changed_is_empty() {
    let base = tree(list(&["r1", "r2"]));
    let same = base.clone();
    let changes = compare(&base, &same).unwrap();
    assert!(changes.is_empty());
}

#[test]
fn a_node_under_another_parent_or_out_of_order_is_placed_again() {
    let base = tree(list(&["r1", "r2", "r3"]));
    // r3 moves first; r2's cell moves under r1.
    let mut now = list(&["r3", "r1", "r2"]);
    let cell = now.iter().position(|n| n.uid == "r2c").unwrap();
    let moved = now.remove(cell);
    let r1 = now.iter().position(|n| n.uid == "r1").unwrap();
    now.insert(r1 + 2, moved);
    let now = tree(now);
    let changes = compare(&base, &now).unwrap();
    assert!(changes.removed.is_empty());
    assert!(changes.changed.is_empty());
    let placed: Vec<(&str, usize, Vec<&str>)> = changes
        .placed
        .iter()
        .map(|p| (p.parent, p.position, uids(p.nodes)))
        .collect();
    assert_eq!(
        placed,
        [("1_1", 0, vec!["r3", "r3c"]), ("r1", 1, vec!["r2c"])]
    );
}

#[test]
fn a_new_url_is_said() {
    let base = tree(list(&["r1"]));
    let mut now = base.clone();
    now.url = "http://127.0.0.1/list#2".into();
    let changes = compare(&base, &now).unwrap();
    assert_eq!(changes.url, Some("http://127.0.0.1/list#2"));
    assert!(!changes.is_empty());
}

#[test]
fn another_document_a_malformed_tree_or_little_left_are_not_compared() {
    let base = tree(list(&["r1", "r2", "r3", "r4"]));
    let mut other = list(&["r1"]);
    other[0].uid = "5_0".into();
    assert_eq!(compare(&base, &tree(other)), Err(Unrelated::OtherDocument));
    let mut twice = list(&["r1", "r2"]);
    twice.push(node("r1", 1, "button", "again"));
    assert_eq!(compare(&base, &tree(twice)), Err(Unrelated::Malformed));
    let mut roots = list(&["r1"]);
    roots.push(node("6_0", 0, "RootWebArea", "second"));
    assert_eq!(compare(&base, &tree(roots)), Err(Unrelated::Malformed));
    let empty = tree(vec![]);
    assert_eq!(compare(&base, &empty), Err(Unrelated::Malformed));
    // 2 of 11 nodes left: under a quarter.
    let few = tree(vec![
        node("1_0", 0, "RootWebArea", "List"),
        node("1_1", 1, "list", ""),
    ]);
    assert_eq!(compare(&base, &few), Err(Unrelated::LittleLeft));
}

#[test]
fn the_longest_increasing_run_keeps_the_most_in_place() {
    assert_eq!(longest_increasing(&[0, 1, 2]), [0, 1, 2]);
    assert_eq!(longest_increasing(&[2, 0, 1]), [1, 2]);
    assert_eq!(longest_increasing(&[0, 3, 1, 2]), [0, 2, 3]);
    assert!(longest_increasing(&[]).is_empty());
}
