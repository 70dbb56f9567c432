//! The reply writer, pinned.

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
            tools: (0..tools)
                .map(|i| ToolDefinition {
                    name: format!("tool_{i}"),
                    description: "Does a thing.".into(),
                    input_schema: json!({"type": "object"}),
                })
                .collect(),
        }],
        problems: vec!["Dropped 9000 tools over the limit.".into()],
    }
}

#[test]
fn a_big_tool_set_listed_with_another_reply_shows_names_only() {
    let mut out = Sections::new("list_pages", true);
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
    let mut out = Sections::new("list_pages", true);
    out.third_party_tools(1, &discovery_of(COMPACT_ABOVE), true);
    assert!(out.text.contains("inputSchema"));
    let mut out = Sections::new("list_3p_developer_tools", true);
    out.third_party_tools(1, &discovery_of(300), false);
    assert!(out.text.contains("- tool_299: Does a thing."));
}
