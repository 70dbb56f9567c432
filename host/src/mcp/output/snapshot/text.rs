//! The accessibility snapshot as text: one node a line, indented by depth.
//!
//! `1_5 button "Save" value="x" focused disabled` — the uid first (what the agent passes
//! to other tools), then role, name, value and the states that matter. Nothing else,
//! not even a `uid=` label on every line: [`LEGEND`] says once what the columns are, and
//! on large pages every character counts against the agent's context. Text, the most
//! common line by far, goes without its role: `1_6 "Order 1000: pending"`.

/// The line that explains the format, written once above a snapshot.
pub const LEGEND: &str =
    "Each line is one element: its uid (what tools taking a `uid` want), role, \"name\", value and states; a line with no role is text.";

/// The role the text lines carry in the tree, left out when they are written.
const TEXT_ROLE: &str = "StaticText";

use std::fmt::Write;

use tabwire_shared::{Snapshot, SnapshotNode};

use crate::mcp::output::page_text::{self, push_quoted};

use crate::mcp::snapshot::fold::{Cut, Fold, Row};

/// Renders a snapshot as an indented text tree.
pub fn format(snapshot: &Snapshot) -> String {
    let mut out = String::with_capacity(snapshot.nodes.len() * 40);
    for node in &snapshot.nodes {
        write_node(&mut out, node, node.depth);
    }
    out
}

/// Renders a view's rows (nodes and folds) as an indented text tree.
pub fn format_rows(rows: &[Row]) -> String {
    let mut out = String::with_capacity(rows.len() * 40);
    for row in rows {
        write_row(&mut out, row);
    }
    out
}

/// Writes one row of a view, with its newline.
pub fn write_row(out: &mut String, row: &Row) {
    match row {
        Row::Node { node, depth, .. } => write_node(out, node, *depth),
        Row::Fold(fold) => {
            indent(out, fold.depth);
            out.push_str(&fold_line(fold));
            out.push('\n');
        }
    }
}

/// Writes one node's line at `depth`, with its newline.
pub fn write_node(out: &mut String, node: &SnapshotNode, depth: u32) {
    indent(out, depth);
    out.push_str(&node.uid);
    if node.role != TEXT_ROLE || node.name.is_empty() {
        out.push(' ');
        out.push_str(&page_text::inline(&node.role));
    }
    if !node.name.is_empty() {
        out.push(' ');
        push_quoted(out, &node.name);
    }
    if let Some(value) = &node.value {
        out.push_str(" value=");
        push_quoted(out, value);
    }
    for state in &node.states {
        let plain = !state.name.chars().any(page_text::breaks_line)
            && !state
                .value
                .as_deref()
                .is_some_and(|v| v.chars().any(page_text::breaks_line));
        if plain {
            let _ = write!(out, " {state}");
        } else {
            out.push(' ');
            out.push_str(&page_text::inline(&state.to_string()));
        }
    }
    out.push('\n');
}

fn indent(out: &mut String, depth: u32) {
    for _ in 0..depth.min(200) {
        out.push_str("  ");
    }
}

/// The line that stands for folded siblings: `… 996 more listitem like the ones above
/// (2988 lines; take_snapshot with unfold=["1_3"] shows them)`.
pub fn fold_line(fold: &Fold) -> String {
    format!(
        "\u{2026} {} more {} like the ones above ({} lines; take_snapshot with unfold=[\"{}\"] shows them)",
        fold.count,
        page_text::inline(&fold.like.join(", ")),
        fold.lines,
        fold.parent
    )
}

/// What a view leaves out because of its budget, and how to get it.
pub fn cut_note(cut: &Cut) -> String {
    let parts = cut_parts(cut);
    format!(
        "\u{2026} cut here: {} more lines did not fit in maxChars={} even folded: {}. Take a \
         part with take_snapshot {{uid}} (one of these uids), or all of it with a larger \
         maxChars or with filePath.",
        cut.lines,
        cut.max_chars,
        parts.join("; ")
    )
}

/// Per parent, from which child on the cut left its children out.
fn cut_parts(cut: &Cut) -> Vec<String> {
    cut.rest
        .iter()
        .map(|rest| {
            let under = match rest.parent {
                Some(parent) => format!("under {parent}"),
                None => "at the top".into(),
            };
            match rest.children {
                1 => format!("{under}: {} (the last child)", rest.from),
                2 => format!("{under}: {} and the child after it", rest.from),
                n => format!("{under}: {} and the {} children after it", rest.from, n - 1),
            }
        })
        .collect()
}

/// [`cut_note`] for a tree folded to fit the client's replies (every node is in the
/// file the reply names, and a larger `maxChars` would not fit either).
pub fn fitted_cut_note(cut: &Cut) -> String {
    format!(
        "\u{2026} cut here: {} more lines did not fit in this client's replies even folded: \
         {}. Take a part with take_snapshot {{uid}} (one of these uids), or read every node in \
         the file named above.",
        cut.lines,
        cut_parts(cut).join("; ")
    )
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
    fn text_lines_go_without_their_role() {
        let snapshot = Snapshot {
            url: String::new(),
            title: String::new(),
            nodes: vec![
                node("1_0", 0, "RootWebArea", ""),
                node("1_1", 1, "StaticText", "Order 1000"),
                node("1_2", 1, "StaticText", ""),
            ],
        };
        assert_eq!(
            format(&snapshot),
            "1_0 RootWebArea\n  1_1 \"Order 1000\"\n  1_2 StaticText\n"
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
