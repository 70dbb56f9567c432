//! The accessibility snapshot as text: one node a line, indented by depth.
//!
//! `1_5 button "Save" value="x" focused disabled` — the uid first (what the agent passes
//! to other tools), then role, name, value and the states that matter. Nothing else,
//! not even a `uid=` label on every line: [`LEGEND`] says once what the columns are, and
//! on large pages every character counts against the agent's context.

/// The line that explains the format, written once above a snapshot.
pub const LEGEND: &str =
    "Each line is one element: its uid (what tools taking a `uid` want), role, \"name\", value and states.";

use std::fmt::Write;

use tabwire_shared::Snapshot;

/// Renders a snapshot as an indented text tree.
pub fn format(snapshot: &Snapshot) -> String {
    let mut out = String::with_capacity(snapshot.nodes.len() * 40);
    for node in &snapshot.nodes {
        for _ in 0..node.depth.min(200) {
            out.push_str("  ");
        }
        let _ = write!(out, "{} {}", node.uid, node.role);
        if !node.name.is_empty() {
            out.push(' ');
            quote(&mut out, &node.name);
        }
        if let Some(value) = &node.value {
            out.push_str(" value=");
            quote(&mut out, value);
        }
        for state in &node.states {
            let _ = write!(out, " {state}");
        }
        out.push('\n');
    }
    out
}

/// Writes `text` in double quotes, escaping what would break the one-line format.
fn quote(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A snapshot node for tests: no value, no states.
#[cfg(test)]
pub fn test_node(uid: &str, depth: u32, role: &str, name: &str) -> tabwire_shared::SnapshotNode {
    tabwire_shared::SnapshotNode {
        uid: uid.into(),
        depth,
        role: role.into(),
        name: name.into(),
        value: None,
        states: vec![],
    }
}

#[cfg(test)]
mod tests {
    use super::test_node as node;
    use super::*;

    #[test]
    fn nodes_are_indented_lines_with_uid_role_name_value_states() {
        let mut input = node("1_2", 1, "textbox", "Email");
        input.value = Some("a@b.c".into());
        input.states = vec![
            tabwire_shared::NodeState::flag("focused"),
            tabwire_shared::NodeState::flag("required"),
        ];
        let snapshot = Snapshot {
            url: "http://x/".into(),
            title: "T".into(),
            nodes: vec![
                node("1_0", 0, "RootWebArea", "T"),
                input,
                node("1_3", 1, "generic", ""),
            ],
        };
        assert_eq!(
            format(&snapshot),
            "1_0 RootWebArea \"T\"\n  1_2 textbox \"Email\" value=\"a@b.c\" focused required\n  1_3 generic\n"
        );
    }

    #[test]
    fn names_cannot_break_the_line_format() {
        let snapshot = Snapshot {
            url: String::new(),
            title: String::new(),
            nodes: vec![node("1_0", 0, "heading", "say \"hi\"\nnow\u{7}")],
        };
        assert_eq!(
            format(&snapshot),
            "1_0 heading \"say \\\"hi\\\"\\nnow\\u{7}\"\n"
        );
    }
}
