//! Hostile pages: whatever a page puts in the text a reply shows (titles, URLs, tool
//! names and descriptions, console text, stack frames, dialog text, request URLs,
//! headers and bodies, CSS, snapshot names and values, results), no line of the reply
//! starts a heading or a page line that tabwire did not write, and the agent still
//! reads the page's text, escaped or fenced.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Value};
use tabwire_shared::css::{CssRule, CssStyles, Declaration, DeclarationStatus, RuleKind};
use tabwire_shared::webmcp::WebMcpTool;
use tabwire_shared::{
    Body, ConsoleEntry, ConsoleMessage, ConsolePage, ConsoleTotals, DialogInfo, Discovery,
    NetworkRequest, PagePosition, Snapshot, StackFrame, TabInfo, ToolDefinition, ToolGroup,
};

use super::write::write;
use super::{Gathered, GatheredSnapshot, Response, Section, SnapshotRequest};
use crate::mcp::budget::DEFAULT_RESULT_CHARS;
use crate::mcp::context::Pointed;
use crate::mcp::output::page_text::{hostile_cases, inline, structure};
use crate::mcp::output::{console, css, webmcp};
use crate::mcp::snapshot::memory::Base;
use crate::mcp::ToolError;

fn from_json<T: serde::de::DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("test data matches the wire format")
}

fn tab(id: u32, evil: &str) -> TabInfo {
    from_json(
        json!({"id": id, "windowId": 1, "url": format!("http://127.0.0.1/{evil}"),
                     "title": evil, "userActive": id == 1}),
    )
}

fn discovery(evil: &str, tools: usize) -> Discovery {
    Discovery {
        document: "d".into(),
        url: format!("http://127.0.0.1/{evil}"),
        origin: "http://127.0.0.1".into(),
        refused: false,
        groups: vec![ToolGroup {
            name: evil.into(),
            description: Some(evil.into()),
            webmcp: false,
            tools: (0..tools)
                .map(|i| ToolDefinition {
                    name: format!("{evil}{i}"),
                    description: evil.into(),
                    input_schema: json!({"type": "object", "description": evil}),
                    annotations: Some(json!({"title": evil})),
                })
                .collect(),
        }],
        problems: vec![format!("Tool {evil} has no execute function.")],
    }
}

fn snapshot(evil: &str) -> Snapshot {
    from_json(json!({
        "url": format!("http://127.0.0.1/{evil}"),
        "title": evil,
        "nodes": [
            {"uid": "1_0", "depth": 0, "role": "RootWebArea", "name": evil},
            {"uid": "1_1", "depth": 1, "role": "textbox", "name": evil, "value": evil,
             "states": [format!("description={}", serde_json::to_string(evil).unwrap())]},
            {"uid": "1_2", "depth": 1, "role": "StaticText", "name": evil},
        ],
    }))
}

fn console_sections(evil: &str) -> [Section; 2] {
    let page = ConsolePage {
        entries: vec![ConsoleEntry {
            id: 1,
            kind: "log".into(),
            text: evil.into(),
            navigation: 0,
            repeated: None,
        }],
        position: PagePosition {
            index: 0,
            pages: 1,
            start: 0,
            end: 1,
            total: 1,
            missing: None,
        },
        dropped: Default::default(),
        totals: ConsoleTotals {
            messages: 1,
            errors: 0,
            exceptions: 0,
        },
    };
    let list = console::listing(&page);
    let message = ConsoleMessage {
        id: 1,
        kind: "error".into(),
        text: evil.into(),
        args: vec![json!(evil), json!({ "k": evil })],
        url: Some(format!("http://127.0.0.1/{evil}")),
        stack: vec![StackFrame {
            function_name: evil.into(),
            url: format!("http://127.0.0.1/{evil}.js"),
            line: 1,
            column: 2,
        }],
        timestamp: 0.0,
        navigation: 0,
    };
    [
        Section {
            title: "Console messages",
            lines: list.lines,
            data: list.data,
        },
        Section {
            title: "Console message",
            lines: console::detail(&message),
            data: Section::entry("consoleMessage", json!(message)),
        },
    ]
}

/// A request with `evil` everywhere; its response body too long to show (saved to a
/// file, its beginning shown) when `spill`.
fn network_section(evil: &str, spill: bool) -> Section {
    let mut headers = BTreeMap::new();
    headers.insert(format!("x-{evil}"), evil.to_owned());
    let request = NetworkRequest {
        id: 1,
        method: "GET".into(),
        url: format!("http://127.0.0.1/{evil}"),
        resource_type: "fetch".into(),
        status: Some(200),
        status_text: Some(evil.into()),
        failure: None,
        mime_type: Some(evil.into()),
        started: 0.0,
        duration_ms: Some(1.0),
        navigation: 0,
        request_headers: headers.clone(),
        response_headers: headers,
        request_body: Some(Body {
            data: evil.into(),
            base64: false,
            truncated: false,
        }),
        response_body: Some(Body {
            data: if spill { evil.repeat(400) } else { evil.into() },
            base64: false,
            truncated: false,
        }),
        bodies_unread: None,
    };
    let (lines, data) = crate::mcp::tools::network::describe(&request, true, None, None, 500)
        .expect("a request with bodies is described");
    Section {
        title: "Network request",
        lines,
        data,
    }
}

fn css_section(evil: &str) -> Section {
    let mut rule = CssRule::new(RuleKind::Matched, evil);
    rule.matching_selectors = vec![evil.into()];
    rule.declarations = vec![Declaration {
        name: evil.into(),
        value: evil.into(),
        important: false,
        status: DeclarationStatus::Active,
    }];
    let styles = CssStyles {
        element: evil.into(),
        rules: vec![rule],
    };
    let (lines, data) = css::styles_page(&styles, "1_1", None, None);
    Section {
        title: "Styles",
        lines,
        data,
    }
}

fn webmcp_section(evil: &str) -> Section {
    let tool = WebMcpTool {
        name: evil.into(),
        description: evil.into(),
        input_schema: Some(json!({"description": evil})),
        annotations: json!({"title": evil}),
        frame_id: "F".into(),
        cross_site_origin: Some(evil.into()),
    };
    Section {
        title: webmcp::SECTION_TITLE,
        lines: webmcp::listing(1, &[tool], &[evil.into()]),
        data: Default::default(),
    }
}

/// Everything a page controls, set to `evil`, in one reply; and the lines a reader
/// takes for its structure that tabwire wrote.
fn hostile_reply(evil: &str, compact_tools: usize, spill: bool) -> (String, Vec<String>) {
    let mut response = Response::default();
    response.line(format!("Opened page 1 at http://127.0.0.1/{evil}."));
    response.add_output("Script result", json!(evil));
    response.add_output("Tool result", json!({ evil: [evil] }));
    for section in console_sections(evil) {
        response.add_section(section);
    }
    response.add_section(network_section(evil, spill));
    response.add_section(css_section(evil));
    response.add_section(webmcp_section(evil));
    response.include_pages();
    // Listed with another tool's reply: a big set by name only.
    response.include_third_party_tools();
    let request = SnapshotRequest::default();
    response.include_snapshot(request);
    let gathered = Gathered {
        page: Some(1),
        selected: Some(1),
        dialog: Some(DialogInfo {
            kind: tabwire_shared::DialogKind::Prompt,
            message: evil.into(),
            default_prompt: Some(evil.into()),
        }),
        pointed: Some(Pointed {
            page: 1,
            uid: "1_1".into(),
            role: "textbox".into(),
            name: evil.into(),
        }),
        emulation: None,
        pages: Some(vec![tab(1, evil), tab(2, evil)]),
        third_party: Some((1, Arc::new(discovery(evil, compact_tools)))),
        third_party_failure: None,
        snapshot: Some(
            GatheredSnapshot::new(1, 2, Arc::new(snapshot(evil)), None, None)
                .expect("the whole tree"),
        ),
    };
    let error = ToolError::new(format!("Tool t threw: {evil}"));
    let written = write(
        "new_page",
        &response,
        Some(&error),
        &gathered,
        false,
        DEFAULT_RESULT_CHARS,
    );
    let text = written
        .result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n");
    let page_line = |id: u32, marks: &str| {
        format!(
            "{id}: {} <http://127.0.0.1/{}>{marks}",
            inline(evil),
            inline(evil)
        )
    };
    let mut ours: Vec<String> = [
        "# new_page response",
        "## Error",
        "## Script result",
        "## Tool result",
        "## Console messages",
        "## Console message",
        "## Network request",
        "## Styles",
        "## WebMCP tools",
        "## Open dialog",
        "## The user pointed at",
        "## Pages",
    ]
    .map(String::from)
    .to_vec();
    ours.push(page_line(1, " [selected] [user's active tab]"));
    ours.push(page_line(2, ""));
    ours.push("## Third-party developer tools".into());
    ours.push(if compact_tools > super::COMPACT_ABOVE {
        format!("### {} ({compact_tools} tools): ", inline(evil))
    } else {
        format!("### {}", inline(evil))
    });
    ours.push("## Page snapshot".into());
    (text, ours)
}

#[test]
fn no_line_of_a_reply_is_the_pages_unless_tabwire_wrote_it() {
    for (i, evil) in hostile_cases().iter().enumerate() {
        for tools in [1, super::COMPACT_ABOVE + 1] {
            // A file for a spilled body is written for a few of them only.
            let (text, ours) = hostile_reply(evil, tools, i < 4);
            let mut found = structure(&text);
            // A compact group line goes on with the page's tool names.
            if let Some(line) = found.iter_mut().find(|l| l.starts_with("### ")) {
                if let Some(at) = line.find(" tools): ") {
                    line.truncate(at + " tools): ".len());
                }
            }
            assert_eq!(found, ours, "{evil:?} in:\n{text}");
            // The agent still reads the page's words.
            assert!(text.contains(&*inline(evil)), "{evil:?} in:\n{text}");
        }
    }
}

#[test]
fn ordinary_page_text_reads_as_it_did() {
    let (text, ours) = hostile_reply("Checkout", 1, false);
    assert_eq!(structure(&text), ours, "{text}");
    for line in [
        "1: Checkout <http://127.0.0.1/Checkout> [selected] [user's active tab]",
        "Page 1 shows a prompt dialog: \"Checkout\". Default answer: \"Checkout\". It blocks",
        "- Checkout0: Checkout",
        "msgid=1 [log] Checkout",
        "## Script result\n```json\n\"Checkout\"\n```\n",
        "Its text, as the page logged it:\n```text\nCheckout\n```\n",
        "  1_1 textbox \"Checkout\" value=\"Checkout\" description=Checkout\n",
        "Description: Checkout\n",
    ] {
        assert!(text.contains(line), "{line:?} in:\n{text}");
    }
}

#[test]
fn changes_since_a_snapshot_keep_the_page_in_its_lines() {
    for evil in &hostile_cases() {
        let mut response = Response::default();
        response.include_snapshot(SnapshotRequest::changes());
        let before: Snapshot = from_json(json!({
        "url": "http://127.0.0.1/", "title": "", "nodes": [
            {"uid": "1_0", "depth": 0, "role": "RootWebArea", "name": ""},
        ]}));
        let gathered = Gathered {
            page: Some(1),
            snapshot: Some(
                GatheredSnapshot::new(
                    1,
                    2,
                    Arc::new(snapshot(evil)),
                    Some(Base {
                        number: 1,
                        snapshot: Arc::new(before),
                    }),
                    None,
                )
                .expect("the whole tree"),
            ),
            ..Gathered::default()
        };
        let written = write("click", &response, None, &gathered, false, 100_000);
        let text = &written.result.content[0]
            .as_text()
            .expect("a text block")
            .text;
        assert_eq!(
            structure(text),
            ["# click response", "## Page snapshot"],
            "{evil:?} in:\n{text}"
        );
    }
}
