//! The reply writer: what the agent reads for each combination of markers and
//! gathered sections, pinned with `insta` snapshots (in `snapshots/`).

use serde_json::json;
use tabwire_shared::{Discovery, ToolDefinition, ToolGroup};

use super::sections::Sections;
use super::third_party::COMPACT_NAMES_CHARS;
use super::COMPACT_ABOVE;

fn discovery_of(tools: usize) -> Discovery {
    Discovery {
        document: "d".into(),
        url: "http://127.0.0.1/".into(),
        origin: "http://127.0.0.1".into(),
        refused: false,
        groups: vec![ToolGroup {
            name: "Store".into(),
            description: None,
            webmcp: false,
            tools: (0..tools)
                .map(|i| ToolDefinition {
                    name: format!("tool_{i}"),
                    description: "Does a thing.".into(),
                    input_schema: json!({"type": "object"}),
                    annotations: None,
                })
                .collect(),
        }],
        problems: vec!["Dropped 9000 tools over the limit.".into()],
    }
}

#[test]
fn a_big_tool_set_listed_with_another_reply_shows_names_only() {
    let mut out = Sections::new("list_pages", true, DEFAULT_RESULT_CHARS);
    out.third_party_tools(1, &discovery_of(1_000), true);
    assert!(out.text.contains("exposes 1000 tools"), "{}", out.text);
    assert!(out.text.contains("list_3p_developer_tools"));
    assert!(out.text.contains("tool_0, tool_1"));
    assert!(!out.text.contains("inputSchema"));
    assert!(out.text.contains("Dropped 9000 tools"));
    assert!(
        out.text.len() < COMPACT_NAMES_CHARS + 1_000,
        "{}",
        out.text.len()
    );
    let names = &out.data["thirdPartyDeveloperToolNames"][0];
    let shown = names["tools"].as_array().unwrap().len();
    assert_eq!(shown as u64 + names["more"].as_u64().unwrap(), 1_000);
    assert!(out.text.contains(&format!("and {} more", 1_000 - shown)));
    assert!(out.data.get("thirdPartyDeveloperTools").is_none());
    assert!(out.data["thirdPartyDeveloperToolsNote"]
        .as_str()
        .unwrap()
        .contains("list_3p_developer_tools"));
}

#[test]
fn a_small_tool_set_or_an_explicit_listing_is_shown_in_full() {
    let mut out = Sections::new("list_pages", true, DEFAULT_RESULT_CHARS);
    out.third_party_tools(1, &discovery_of(COMPACT_ABOVE), true);
    assert!(out.text.contains("inputSchema"));
    let mut out = Sections::new("list_3p_developer_tools", true, DEFAULT_RESULT_CHARS);
    out.third_party_tools(1, &discovery_of(300), false);
    assert!(out.text.contains("- tool_299: Does a thing."));
}

// The whole reply, pinned for each marker and gathered section and for the ways they
// combine: what the agent reads (text, image blocks, error flag) and the structured
// form beside it. Shared types are built from their wire JSON, which stays fixed.

use std::sync::Arc;

use rmcp::model::CallToolResult;
use serde_json::Value;

use super::write::write;
use super::{Gathered, GatheredSnapshot, Image, Response, Section, SnapshotRequest, SnapshotView};
use crate::mcp::budget::DEFAULT_RESULT_CHARS;
use crate::mcp::ToolError;

fn from_json<T: serde::de::DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("test data matches the wire format")
}

fn pages() -> Vec<tabwire_shared::TabInfo> {
    from_json(json!([
        {"id": 1, "windowId": 1, "url": "http://127.0.0.1/a", "title": "A", "userActive": true},
        {"id": 2, "windowId": 1, "url": "http://127.0.0.1/b", "title": "", "userActive": false},
        {"id": 3, "windowId": 2, "url": "http://127.0.0.1/c", "title": "C", "userActive": false,
         "crashed": true},
    ]))
}

fn snapshot() -> tabwire_shared::Snapshot {
    from_json(json!({
        "url": "http://127.0.0.1/a",
        "title": "A",
        "nodes": [
            {"uid": "1_0", "depth": 0, "role": "RootWebArea", "name": "A"},
            {"uid": "1_1", "depth": 1, "role": "button", "name": "Save", "states": ["focused"]},
            {"uid": "1_2", "depth": 1, "role": "textbox", "name": "Name", "value": "x"},
        ],
    }))
}

/// A snapshot of page 1 as gathered for a reply: snapshot 1, compared with nothing.
fn whole(snapshot: tabwire_shared::Snapshot) -> GatheredSnapshot {
    GatheredSnapshot::new(1, 1, Arc::new(snapshot), None, None).expect("the whole tree")
}

fn tools(count: usize) -> Arc<Discovery> {
    let mut discovery = discovery_of(count);
    discovery.problems.clear();
    Arc::new(discovery)
}

/// The reply as the agent gets it, in one readable string.
fn shown(result: &CallToolResult) -> String {
    let mut out = format!("is_error: {:?}\n", result.is_error);
    for block in &result.content {
        if let Some(text) = block.as_text() {
            out.push_str("--- text\n");
            out.push_str(&text.text);
        } else if let Some(image) = block.as_image() {
            out.push_str(&format!(
                "--- image {} ({} base64 bytes)\n",
                image.mime_type,
                image.data.len()
            ));
        } else {
            out.push_str(&format!("--- other {block:?}\n"));
        }
    }
    if let Some(data) = &result.structured_content {
        out.push_str("--- structuredContent\n");
        out.push_str(&serde_json::to_string_pretty(data).unwrap_or_default());
        out.push('\n');
    }
    out
}

fn reply(
    response: &Response,
    error: Option<&str>,
    gathered: &Gathered,
    structured: bool,
) -> String {
    let error = error.map(ToolError::new);
    shown(
        &write(
            "some_tool",
            response,
            error.as_ref(),
            gathered,
            structured,
            DEFAULT_RESULT_CHARS,
        )
        .result,
    )
}

#[test]
fn nothing_but_the_heading() {
    insta::assert_snapshot!(reply(
        &Response::default(),
        None,
        &Gathered::default(),
        true
    ));
}

#[test]
fn message_lines_and_outputs() {
    let mut response = Response::default();
    response.line("Clicked 1_1.");
    response.line("The page navigated.");
    response.add_output("Script result", json!({"answer": 42, "list": [1, 2]}));
    response.add_output("Tool result", json!("second"));
    for structured in [false, true] {
        insta::assert_snapshot!(
            format!("message_lines_and_outputs_structured_{structured}"),
            reply(&response, None, &Gathered::default(), structured)
        );
    }
}

#[test]
fn a_handler_section() {
    let mut response = Response::default();
    response.add_section(Section {
        title: "Console messages",
        lines: vec!["msgid=1 [log] hello".into(), "msgid=2 [error] boom".into()],
        data: Section::entry("consoleMessages", json!([{"id": 1}, {"id": 2}])),
    });
    insta::assert_snapshot!(reply(&response, None, &Gathered::default(), true));
}

#[test]
fn an_error_keeps_the_page_context() {
    let mut response = Response::default();
    response.line("Tried.");
    response.include_pages();
    let gathered = Gathered {
        page: Some(1),
        selected: Some(1),
        dialog: Some(from_json(
            json!({"kind": "prompt", "message": "Name?", "defaultPrompt": "Ada"}),
        )),
        pages: Some(pages()),
        ..Gathered::default()
    };
    insta::assert_snapshot!(reply(
        &response,
        Some("The element is gone."),
        &gathered,
        true
    ));
}

#[test]
fn dialog_and_emulation_on_the_page() {
    let gathered = Gathered {
        page: Some(2),
        selected: Some(1),
        dialog: Some(from_json(json!({"kind": "confirm", "message": "Leave?"}))),
        emulation: Some(from_json(json!({
            "network": {"name": "Slow 3G", "offline": false, "latencyMs": 2000.0,
                        "downloadBytesPerSec": 50000.0, "uploadBytesPerSec": 50000.0},
            "cpuThrottlingRate": 4.0,
            "viewport": {"width": 390, "height": 844, "deviceScaleFactor": 3.0,
                         "mobile": true, "touch": true, "landscape": false},
            "userAgent": "Test/1.0",
            "colorScheme": "dark",
            "geolocation": {"latitude": 48.85, "longitude": 2.35, "accuracy": 10.0},
            "extraHttpHeaders": {"X-A": "1", "X-B": "2"},
        }))),
        ..Gathered::default()
    };
    for structured in [false, true] {
        insta::assert_snapshot!(
            format!("dialog_and_emulation_on_the_page_structured_{structured}"),
            reply(&Response::default(), None, &gathered, structured)
        );
    }
}

#[test]
fn the_page_list_and_no_pages() {
    let mut response = Response::default();
    response.include_pages();
    let listed = Gathered {
        pages: Some(pages()),
        selected: Some(2),
        ..Gathered::default()
    };
    insta::assert_snapshot!("the_page_list", reply(&response, None, &listed, true));
    let none = Gathered {
        pages: Some(vec![]),
        ..Gathered::default()
    };
    insta::assert_snapshot!("no_pages", reply(&response, None, &none, true));
}

#[test]
fn third_party_tools_in_full_by_name_and_none() {
    // Shown by the handler itself (list_3p_developer_tools): in full, however many.
    let mut listed = Response::default();
    listed.set_third_party_tools(tools(2));
    // Listed with another tool's reply: by name only past COMPACT_ABOVE.
    let mut extra = Response::default();
    extra.include_third_party_tools();
    for (name, response, discovery) in [
        ("third_party_tools_full", &listed, tools(2)),
        ("third_party_tools_extra_small", &extra, tools(2)),
        (
            "third_party_tools_extra_big",
            &extra,
            tools(COMPACT_ABOVE + 1),
        ),
        ("third_party_tools_none", &extra, tools(0)),
        (
            "third_party_tools_with_problems",
            &listed,
            Arc::new(discovery_of(1)),
        ),
    ] {
        let gathered = Gathered {
            page: Some(1),
            selected: Some(1),
            third_party: Some((1, discovery)),
            ..Gathered::default()
        };
        insta::assert_snapshot!(name, reply(response, None, &gathered, true));
    }
}

#[test]
fn third_party_tools_refused() {
    let mut discovery = discovery_of(0);
    discovery.refused = true;
    discovery.origin = "https://app.example".into();
    discovery.url = "https://app.example/".into();
    let mut response = Response::default();
    response.include_third_party_tools();
    let gathered = Gathered {
        third_party: Some((1, Arc::new(discovery))),
        ..Gathered::default()
    };
    insta::assert_snapshot!(reply(&response, None, &gathered, true));
}

#[test]
fn a_failed_look_for_third_party_tools_is_a_note_said_once() {
    let mut response = Response::default();
    response.include_third_party_tools();
    let gathered = Gathered {
        third_party_failure: Some("the page is still loading".into()),
        ..Gathered::default()
    };
    insta::assert_snapshot!(
        "third_party_failure_note",
        reply(&response, None, &gathered, true)
    );
    // Already said by the error: not repeated.
    insta::assert_snapshot!(
        "third_party_failure_already_said",
        reply(
            &response,
            Some("No page: the page is still loading"),
            &gathered,
            true
        )
    );
}

#[test]
fn a_snapshot_inline() {
    let mut response = Response::default();
    response.include_snapshot(SnapshotRequest::default());
    let gathered = Gathered {
        snapshot: Some(whole(snapshot())),
        ..Gathered::default()
    };
    for structured in [false, true] {
        insta::assert_snapshot!(
            format!("a_snapshot_inline_structured_{structured}"),
            reply(&response, None, &gathered, structured)
        );
    }
}

#[test]
fn a_snapshot_to_a_file() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("snap.txt");
    let mut response = Response::default();
    response.include_snapshot(SnapshotRequest::view(SnapshotView {
        file_path: Some(path.clone()),
        ..SnapshotView::default()
    }));
    let gathered = Gathered {
        snapshot: Some(whole(snapshot())),
        ..Gathered::default()
    };
    let shown = reply(&response, None, &gathered, true);
    let written = std::fs::read_to_string(&path).expect("the snapshot file");
    // The path as text, and as JSON writes it (a Windows path's backslashes doubled).
    let path_text = path.display().to_string();
    let shown = shown
        .replace(&path_text.replace('\\', "\\\\"), "<file>")
        .replace(&path_text, "<file>");
    insta::assert_snapshot!(format!("{shown}--- file\n{written}"));
}

#[test]
fn an_inline_image() {
    let mut response = Response::default();
    response.line("Took a screenshot.");
    response.attach_image(Image {
        data: "iVBORw0KGgo=".into(),
        mime_type: "image/png".into(),
        file_path: None,
    });
    insta::assert_snapshot!(reply(&response, None, &Gathered::default(), false));
}

#[test]
fn everything_at_once_in_the_fixed_order() {
    let mut response = Response::default();
    response.line("Done.");
    response.add_output("Tool result", json!({"ok": true}));
    response.add_section(Section {
        title: "Details",
        lines: vec!["one detail".into()],
        data: Section::entry("details", json!("one detail")),
    });
    response.include_pages();
    response.include_third_party_tools();
    response.include_snapshot(SnapshotRequest::default());
    response.attach_image(Image {
        data: "iVBORw0KGgo=".into(),
        mime_type: "image/png".into(),
        file_path: None,
    });
    let gathered = Gathered {
        page: Some(1),
        selected: Some(1),
        dialog: Some(from_json(json!({"kind": "alert", "message": "Hi"}))),
        emulation: Some(from_json(json!({"colorScheme": "dark"}))),
        pages: Some(pages()),
        third_party: Some((1, tools(1))),
        third_party_failure: None,
        snapshot: Some(whole(snapshot())),
        pointed: Some(crate::mcp::context::Pointed {
            page: 1,
            uid: "1_4".into(),
            role: "button".into(),
            name: "Total: 42 €".into(),
        }),
    };
    insta::assert_snapshot!(reply(&response, Some("Partly failed."), &gathered, false));
}

// Snapshots asked for less: a subtree folded to a budget, a cut, and the changes
// since the last whole snapshot (or the whole tree when that says it better).

use crate::mcp::output::snapshot::text::test_node as node;
use crate::mcp::snapshot::memory::Base;

/// A shop page: a list (1_2) of `rows` items (each a listitem with a link and a
/// button), then a footer.
fn shop(rows: std::ops::Range<usize>) -> tabwire_shared::Snapshot {
    let mut nodes = vec![
        node("1_0", 0, "RootWebArea", "Shop"),
        node("1_1", 1, "heading", "Products"),
        node("1_2", 1, "list", ""),
    ];
    for i in rows {
        nodes.push(node(&format!("2_{i}"), 2, "listitem", ""));
        nodes.push(node(&format!("3_{i}"), 3, "link", &format!("Item {i}")));
        nodes.push(node(&format!("4_{i}"), 3, "button", &format!("Buy {i}")));
    }
    nodes.push(node("1_3", 1, "contentinfo", "Footer"));
    tabwire_shared::Snapshot {
        url: "http://127.0.0.1/shop".into(),
        title: "Shop".into(),
        nodes,
    }
}

fn snapshot_reply(
    request: SnapshotRequest,
    snapshot: GatheredSnapshot,
    structured: bool,
) -> String {
    // Gathered as the request asks: its uid's subtree, if it names one.
    let snapshot = GatheredSnapshot::new(
        snapshot.page,
        snapshot.number,
        snapshot.snapshot,
        snapshot.since,
        request.view.uid.as_deref(),
    )
    .expect("the request's uid is in the snapshot");
    let mut response = Response::default();
    response.include_snapshot(request);
    let gathered = Gathered {
        snapshot: Some(snapshot),
        ..Gathered::default()
    };
    reply(&response, None, &gathered, structured)
}

/// Snapshot 2 of page 1, to be compared with snapshot 1, `base`.
fn after(base: tabwire_shared::Snapshot, now: tabwire_shared::Snapshot) -> GatheredSnapshot {
    let base = Base {
        number: 1,
        snapshot: Arc::new(base),
    };
    GatheredSnapshot::new(1, 2, Arc::new(now), Some(base), None).expect("the whole tree")
}

#[test]
fn a_subtree_folded_to_a_budget() {
    let request = SnapshotRequest::view(SnapshotView {
        uid: Some("1_2".into()),
        max_chars: Some(300),
        ..SnapshotView::default()
    });
    insta::assert_snapshot!(snapshot_reply(request, whole(shop(0..480)), true));
}

#[test]
fn a_budget_folding_cannot_meet_is_cut_and_says_so() {
    let request = SnapshotRequest::view(SnapshotView {
        max_chars: Some(120),
        unfold: vec!["1_2".into(), "7_7".into()],
        ..SnapshotView::default()
    });
    insta::assert_snapshot!(snapshot_reply(request, whole(shop(0..10)), true));
}

#[test]
fn the_changes_since_the_last_snapshot() {
    // Rows 3 and 4 go, 40 and 41 come after row 9, and row 0's button is renamed.
    let base = shop(0..10);
    let mut now = shop(0..10);
    now.nodes
        .retain(|n| !["2_3", "3_3", "4_3", "2_4", "3_4", "4_4"].contains(&n.uid.as_str()));
    let footer = now.nodes.pop().unwrap();
    now.nodes.extend(shop(40..42).nodes.drain(3..9));
    now.nodes.push(footer);
    now.nodes[5].name = "Bought".into();
    for structured in [false, true] {
        insta::assert_snapshot!(
            format!("the_changes_since_the_last_snapshot_structured_{structured}"),
            snapshot_reply(
                SnapshotRequest::changes(),
                after(base.clone(), now.clone()),
                structured
            )
        );
    }
}

#[test]
fn no_changes_since_the_last_snapshot() {
    insta::assert_snapshot!(snapshot_reply(
        SnapshotRequest::changes(),
        after(shop(0..10), shop(0..10)),
        true
    ));
}

#[test]
fn changes_about_as_long_as_the_tree_or_on_another_document_send_it_whole() {
    let longer = snapshot_reply(
        SnapshotRequest::changes(),
        after(shop(0..2), shop(0..4)),
        false,
    );
    assert!(
        longer.contains("The whole tree: its changes since snapshot 1 would be about as long."),
        "{longer}"
    );
    assert!(longer.contains("2_3 listitem"), "{longer}");
    let mut other = shop(0..2);
    other.nodes[0].uid = "9_0".into();
    insta::assert_snapshot!(snapshot_reply(
        SnapshotRequest::changes(),
        after(shop(0..2), other),
        true
    ));
}

#[test]
fn folded_cut_and_changed_snapshots_match_the_output_schema() {
    let schema = Value::Object(crate::mcp::output::output_schema());
    let validator = jsonschema::validator_for(&schema).expect("a valid schema");
    let mut now = shop(1..12);
    now.nodes[4].name = "Renamed".into();
    now.url = "http://127.0.0.1/shop#2".into();
    let cases = [
        (
            SnapshotRequest::view(SnapshotView {
                uid: Some("1_2".into()),
                max_chars: Some(300),
                ..SnapshotView::default()
            }),
            whole(shop(0..480)),
        ),
        (
            SnapshotRequest::view(SnapshotView {
                max_chars: Some(120),
                unfold: vec!["1_2".into()],
                ..SnapshotView::default()
            }),
            whole(shop(0..10)),
        ),
        (SnapshotRequest::changes(), after(shop(0..40), now)),
        (SnapshotRequest::changes(), after(shop(0..10), shop(0..1))),
    ];
    for (request, snapshot) in cases {
        let mut response = Response::default();
        response.include_snapshot(request);
        let gathered = Gathered {
            snapshot: Some(snapshot),
            ..Gathered::default()
        };
        let result = write(
            "take_snapshot",
            &response,
            None,
            &gathered,
            true,
            DEFAULT_RESULT_CHARS,
        )
        .result;
        let data = result.structured_content.expect("structured content");
        let errors: Vec<String> = validator
            .iter_errors(&data)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{errors:?}\n{data:#}");
    }
}
