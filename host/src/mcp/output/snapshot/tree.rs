//! The snapshot as `structuredContent`: a tree of nodes, each with its states as fields.
//!
//! It is Chrome DevTools for Agents' shape (a client written against its
//! `--experimentalStructuredContent` output reads ours): a tree of
//! `{id, role, name, …, children}`, the states beside them. Everything the text shows
//! is here too. What a node may hold is declared in [`super::Node`].

use serde_json::{json, Map, Value};
use tabwire_shared::{Snapshot, SnapshotNode};

/// How deep a structured snapshot nests (the text indents as deep as the tree goes).
pub const MAX_TREE_DEPTH: u32 = 100;

/// The snapshot as a tree: each node `{id, role, name?, value?, <state>: …, children?}`.
///
/// The flat list holds depths; a node belongs to the nearest node before it that is
/// shallower. States become fields: `focused` → `"focused": true`, `level=2` →
/// `"level": 2`, `checked=mixed` → `"checked": "mixed"`.
///
/// Nesting stops at [`MAX_TREE_DEPTH`]: deeper nodes sit beside each other under the
/// last node that may nest, each with its `depth`, so a hostile page nested thousands
/// deep cannot make JSON that recursion in the server or a client overflows on.
pub fn snapshot_tree(snapshot: &Snapshot) -> Value {
    let items = snapshot
        .nodes
        .iter()
        .map(|node| (node.depth, node_fields(node)));
    one_root(forest(items))
}

/// Trees made from `(depth, fields)` items in pre-order, as [`snapshot_tree`] nests
/// them (up to [`MAX_TREE_DEPTH`]), one per item at the smallest depth: the shape of
/// a part of a snapshot (a folded view, the elements added under one parent).
pub fn forest(items: impl IntoIterator<Item = (u32, Map<String, Value>)>) -> Vec<Value> {
    // Each open node with its depth; finished children are folded into their parent.
    let mut open: Vec<(u32, Map<String, Value>)> = Vec::new();
    let mut roots: Vec<Value> = Vec::new();
    for (real_depth, mut fields) in items {
        let depth = real_depth.min(MAX_TREE_DEPTH);
        while open
            .last()
            .is_some_and(|(open_depth, _)| *open_depth >= depth)
        {
            close_last(&mut open, &mut roots);
        }
        if real_depth > MAX_TREE_DEPTH {
            fields.insert("depth".into(), json!(real_depth));
        }
        open.push((depth, fields));
    }
    while !open.is_empty() {
        close_last(&mut open, &mut roots);
    }
    roots
}

/// One tree from a forest: a well-formed snapshot has one root; trees after it go
/// under it, so none is lost and the tree keeps one root (`null` when empty).
pub fn one_root(roots: Vec<Value>) -> Value {
    let mut roots = roots.into_iter();
    let Some(mut root) = roots.next() else {
        return Value::Null;
    };
    let rest: Vec<Value> = roots.collect();
    if !rest.is_empty() {
        if let Value::Object(fields) = &mut root {
            let children = fields
                .entry("children")
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(children) = children {
                children.extend(rest);
            }
        }
    }
    root
}

/// Ends the deepest open node, adding it to its parent's children (or the roots).
fn close_last(open: &mut Vec<(u32, Map<String, Value>)>, roots: &mut Vec<Value>) {
    let Some((_, node)) = open.pop() else {
        return;
    };
    match open.last_mut() {
        Some((_, parent)) => {
            let children = parent
                .entry("children")
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(children) = children {
                children.push(Value::Object(node));
            }
        }
        None => roots.push(Value::Object(node)),
    }
}

/// A node's fields in the tree: `id`, `role`, `name`, `value`, and its states.
pub fn node_fields(node: &SnapshotNode) -> Map<String, Value> {
    let mut fields = Map::new();
    fields.insert("id".into(), json!(node.uid));
    fields.insert("role".into(), json!(node.role));
    if !node.name.is_empty() {
        fields.insert("name".into(), json!(node.name));
    }
    if let Some(value) = &node.value {
        fields.insert("value".into(), json!(value));
    }
    for state in &node.states {
        let name = state.name.as_str();
        // The value as the text shows it (quoted there when it must be).
        let value = match state.written_value() {
            Some(value) => state_value(&value),
            None => Value::Bool(true),
        };
        // `id`, `role`, `name`, `value` and `children` are the node's own.
        if !["id", "role", "name", "value", "children"].contains(&name) {
            fields.insert(name.into(), value);
        }
    }
    fields
}

/// A state's value: an integer when it is one (`level=2`), else the text.
fn state_value(text: &str) -> Value {
    match text.parse::<i64>() {
        Ok(n) => json!(n),
        Err(_) => json!(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(uid: &str, depth: u32, role: &str, name: &str, states: &[&str]) -> SnapshotNode {
        SnapshotNode {
            states: states
                .iter()
                .map(|s| tabwire_shared::NodeState::try_from(s.to_string()).unwrap())
                .collect(),
            ..crate::mcp::output::snapshot::text::test_node(uid, depth, role, name)
        }
    }

    #[test]
    fn depths_become_a_tree_with_states_as_fields() {
        let snapshot = Snapshot {
            url: "http://x/".into(),
            title: "T".into(),
            nodes: vec![
                node("1_0", 0, "RootWebArea", "T", &[]),
                node("1_1", 1, "main", "", &[]),
                node("1_2", 2, "heading", "Hi", &["level=2"]),
                node("1_3", 2, "button", "Go", &["focused", "checked=mixed"]),
                node("1_4", 1, "link", "More", &["url=http://x/more"]),
            ],
        };
        assert_eq!(
            snapshot_tree(&snapshot),
            json!({"id": "1_0", "role": "RootWebArea", "name": "T", "children": [
                {"id": "1_1", "role": "main", "children": [
                    {"id": "1_2", "role": "heading", "name": "Hi", "level": 2},
                    {"id": "1_3", "role": "button", "name": "Go", "focused": true, "checked": "mixed"},
                ]},
                {"id": "1_4", "role": "link", "name": "More", "url": "http://x/more"},
            ]})
        );
    }

    #[test]
    fn a_very_deep_tree_nests_only_so_far_and_serialises() {
        let nodes: Vec<SnapshotNode> = (0..50_000)
            .map(|i| node(&format!("1_{i}"), i, "group", "", &[]))
            .collect();
        let snapshot = Snapshot {
            url: String::new(),
            title: String::new(),
            nodes,
        };
        let tree = snapshot_tree(&snapshot);
        let text = tree.to_string();
        assert!(text.contains(r#""id":"1_49999","role":"group","depth":49999"#));
        let mut deepest = &tree;
        let mut levels = 0;
        while let Some(first) = deepest["children"].get(0) {
            deepest = first;
            levels += 1;
        }
        assert_eq!(levels, MAX_TREE_DEPTH);
    }

    #[test]
    fn depth_jumps_and_several_roots_lose_no_node() {
        let snapshot = Snapshot {
            url: String::new(),
            title: "T".into(),
            nodes: vec![
                node("1_0", 0, "RootWebArea", "T", &[]),
                node("1_1", 3, "button", "deep", &[]),
                node("1_2", 0, "generic", "second root", &["id=evil"]),
            ],
        };
        let tree = snapshot_tree(&snapshot);
        let text = tree.to_string();
        for uid in ["1_0", "1_1", "1_2"] {
            assert!(text.contains(uid), "{text}");
        }
        assert_eq!(
            tree["children"][1]["id"], "1_2",
            "a state cannot replace the id"
        );
    }
}
