//! Folding to a budget: which runs fold, what stays, and what a cut says.

use tabwire_shared::SnapshotNode;

use super::*;
use crate::mcp::output::snapshot::text::{cut_note, format_rows, test_node as node};

/// A page: a heading, then a list of `rows` list items each holding a link, then a
/// button.
fn list_page(rows: usize) -> Vec<SnapshotNode> {
    let mut nodes = vec![
        node("1_0", 0, "RootWebArea", "Shop"),
        node("1_1", 1, "heading", "Products"),
        node("1_2", 1, "list", ""),
    ];
    for i in 0..rows {
        nodes.push(node(&format!("1_{}", 10 + 2 * i), 2, "listitem", ""));
        nodes.push(node(
            &format!("1_{}", 11 + 2 * i),
            3,
            "link",
            &format!("Item {i}"),
        ));
    }
    nodes.push(node("1_9", 1, "button", "More"));
    nodes
}

fn shown(view: &View) -> String {
    let mut text = format_rows(&view.rows);
    if let Some(cut) = &view.cut {
        text.push_str(&cut_note(cut));
        text.push('\n');
    }
    text
}

fn chars(view: &View) -> usize {
    format_rows(&view.rows).chars().count()
}

#[test]
fn under_the_budget_or_without_one_nothing_is_folded() {
    let nodes = list_page(20);
    let whole = format_rows(&view(&nodes, 0, None, &[]).rows);
    assert_eq!(whole.lines().count(), nodes.len());
    let roomy = view(&nodes, 0, Some(whole.chars().count()), &[]);
    assert!(!roomy.folded() && roomy.cut.is_none());
    assert_eq!(format_rows(&roomy.rows), whole);
}

/// How many repeats of the list's rows a view shows.
fn rows_shown(view: &View) -> usize {
    view.rows
        .iter()
        .filter(|row| matches!(row, Row::Node { node, .. } if node.role == "listitem"))
        .count()
}

#[test]
fn similar_rows_fold_keeping_as_many_as_the_budget_allows() {
    let nodes = list_page(40);
    // One more row is a listitem line and a link line: about 40 characters.
    let mut before = 0;
    for budget in [450, 700, 1_200] {
        let folded = view(&nodes, 0, Some(budget), &[]);
        assert!(folded.folded() && folded.cut.is_none(), "{budget}");
        assert!(chars(&folded) <= budget, "{budget}: {}", chars(&folded));
        assert!(chars(&folded) + 40 > budget, "{budget}: room was left");
        let rows = rows_shown(&folded);
        assert!(rows >= KEEP && rows > before, "{budget}: {rows} rows");
        before = rows;
        assert_eq!(folded, view(&nodes, 0, Some(budget), &[]), "deterministic");
        insta::assert_snapshot!(format!("budget_{budget}"), shown(&folded));
    }
}

#[test]
fn several_runs_share_the_room_left_in_turn() {
    let mut nodes = list_page(30);
    let button = nodes.pop().unwrap();
    nodes.push(node("1_3", 1, "list", ""));
    for i in 0..30 {
        nodes.push(node(&format!("3_{}", 2 * i), 2, "listitem", ""));
        nodes.push(node(
            &format!("3_{}", 2 * i + 1),
            3,
            "link",
            &format!("Other {i}"),
        ));
    }
    nodes.push(button);
    let folded = view(&nodes, 0, Some(1_400), &[]);
    assert!(folded.cut.is_none() && chars(&folded) <= 1_400);
    let counts: Vec<usize> = folded
        .rows
        .iter()
        .filter_map(|row| match row {
            Row::Fold(fold) => Some(fold.count),
            Row::Node { .. } => None,
        })
        .collect();
    assert_eq!(counts.len(), 2, "{}", shown(&folded));
    assert!(counts[0].abs_diff(counts[1]) <= 1, "{counts:?}");
    assert!(counts[0] < 30 - KEEP, "{counts:?}");
    insta::assert_snapshot!(shown(&folded));
}

#[test]
fn groups_of_different_siblings_repeating_fold_as_one_run() {
    // The shape of a catalogue: heading, paragraph, link, textbox, button, again and
    // again, all siblings.
    let mut nodes = vec![
        node("1_0", 0, "RootWebArea", "Catalogue"),
        node("1_1", 1, "main", ""),
    ];
    for i in 0..100 {
        for (k, role) in ["heading", "paragraph", "link", "textbox", "button"]
            .iter()
            .enumerate()
        {
            nodes.push(node(
                &format!("2_{}", 5 * i + k),
                2,
                role,
                &format!("{role} {i}"),
            ));
        }
    }
    nodes.push(node("1_2", 1, "contentinfo", "Footer"));
    let folded = view(&nodes, 0, Some(2_000), &[]);
    assert!(folded.cut.is_none());
    let text = shown(&folded);
    assert!(text.contains("2_14 button \"button 2\""), "{text}");
    assert!(
        text.contains("more heading, paragraph, link, textbox, button like"),
        "{text}"
    );
    assert!(
        chars(&folded) <= 2_000 && chars(&folded) + 160 > 2_000,
        "{text}"
    );
    assert!(
        text.contains("1_2 contentinfo \"Footer\""),
        "what follows the run stays"
    );
    insta::assert_snapshot!(text);
}

#[test]
fn an_unfolded_parent_keeps_all_its_children_and_the_rest_folds_or_is_cut() {
    let mut nodes = list_page(30);
    // A second list after the first, as long.
    let second: Vec<SnapshotNode> = (0..30)
        .flat_map(|i| {
            [
                node(&format!("3_{}", 2 * i), 2, "listitem", ""),
                node(
                    &format!("3_{}", 2 * i + 1),
                    3,
                    "link",
                    &format!("Other {i}"),
                ),
            ]
        })
        .collect();
    let button = nodes.pop().unwrap();
    nodes.push(node("1_3", 1, "list", ""));
    nodes.extend(second);
    nodes.push(button);

    let folded = view(&nodes, 0, Some(1_000), &[]);
    let text = shown(&folded);
    assert!(
        text.contains("unfold=[\"1_2\"]") && text.contains("unfold=[\"1_3\"]"),
        "{text}"
    );

    let unfolded = view(&nodes, 0, Some(2_500), &["1_2".to_string()]);
    let text = shown(&unfolded);
    assert!(text.contains("link \"Item 29\""), "{text}");
    assert!(!text.contains("unfold=[\"1_2\"]"), "{text}");
    assert!(text.contains("unfold=[\"1_3\"]"), "{text}");
    assert!(unfolded.unknown_unfold.is_empty());
}

#[test]
fn a_run_holding_an_unfolded_uid_is_not_folded() {
    let nodes = list_page(20);
    // 1_41 is the link of row 15: its run is not folded, so the budget cuts instead.
    let kept = view(&nodes, 0, Some(600), &["1_41".to_string()]);
    assert!(!kept.folded() && kept.cut.is_some(), "{}", shown(&kept));
    let roomier = view(&nodes, 0, Some(1_000), &["1_41".to_string()]);
    let text = shown(&roomier);
    assert!(
        text.contains("1_41 link \"Item 15\"") && roomier.cut.is_none(),
        "{text}"
    );
}

#[test]
fn when_folding_is_not_enough_the_cut_says_what_is_missing_and_how_to_get_it() {
    // Nothing alike: each row a different role.
    let roles = [
        "heading",
        "paragraph",
        "link",
        "textbox",
        "button",
        "checkbox",
        "img",
    ];
    let mut nodes = vec![
        node("1_0", 0, "RootWebArea", "T"),
        node("1_1", 1, "main", ""),
    ];
    for (i, role) in roles.iter().enumerate() {
        nodes.push(node(
            &format!("1_{}", 10 + i),
            2,
            role,
            &format!("{role} name"),
        ));
    }
    nodes.push(node("1_2", 1, "contentinfo", "Footer"));
    nodes.push(node("1_3", 1, "button", "Top"));
    let cut = view(&nodes, 0, Some(150), &[]);
    assert!(chars(&cut) <= 150);
    let missing = cut.cut.as_ref().expect("a cut");
    let shown_nodes = cut.rows.len();
    assert_eq!(
        missing.lines,
        nodes.len() - shown_nodes,
        "every node is shown or counted"
    );
    insta::assert_snapshot!(shown(&cut));
}

#[test]
fn a_budget_below_the_first_line_still_shows_it() {
    let nodes = list_page(3);
    let tiny = view(&nodes, 0, Some(1), &[]);
    assert_eq!(tiny.rows.len(), 1);
    let cut = tiny.cut.expect("a cut");
    assert_eq!(cut.lines, nodes.len() - 1);
    assert_eq!(cut.rest.len(), 1);
    assert_eq!(cut.rest[0].parent, Some("1_0"));
    assert_eq!(cut.rest[0].from, "1_1");
    assert_eq!(cut.rest[0].children, 3);
}

#[test]
fn unknown_unfold_uids_are_named() {
    let nodes = list_page(3);
    let named = view(&nodes, 0, None, &["1_2".to_string(), "9_9".to_string()]);
    assert_eq!(named.unknown_unfold, ["9_9"]);
}

#[test]
fn a_subtree_is_viewed_from_its_own_depth() {
    let nodes = list_page(20);
    let list = crate::mcp::snapshot::subtree::subtree(&nodes, "1_2").unwrap();
    let folded = view(list, list[0].depth, Some(500), &[]);
    let text = shown(&folded);
    assert!(text.starts_with("1_2 list\n  1_10 listitem\n"), "{text}");
}

#[test]
fn rows_holding_runs_of_their_own_fold_as_a_whole() {
    // 30 tables of 30 rows: the outer run folds first, and what stays may fold inside.
    let mut nodes = vec![node("1_0", 0, "RootWebArea", "T")];
    for t in 0..30 {
        nodes.push(node(&format!("2_{t}"), 1, "table", ""));
        for r in 0..30 {
            nodes.push(node(&format!("3_{t}_{r}"), 2, "row", &format!("{t}.{r}")));
        }
    }
    let folded = view(&nodes, 0, Some(1_500), &[]);
    let text = shown(&folded);
    assert!(folded.cut.is_none(), "{text}");
    assert!(
        text.contains("more table like the ones above (")
            && text.contains("take_snapshot with unfold=[\"1_0\"]"),
        "{text}"
    );
    assert!(
        text.contains("more row like the ones above (")
            && text.contains("take_snapshot with unfold=[\"2_0\"]"),
        "{text}"
    );
    assert!(chars(&folded) <= 1_500);
}
