//! The tools a page offers its debugger (third-party developer tools): in full, by
//! name only when a big set comes with another tool's reply, saved to a file when too
//! long to show, or a note saying why there is no list.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};
use tabwire_shared::ToolGroup;

use super::SavedFile;

/// The `structuredContent` keys of the third-party developer tools section.
#[derive(Debug, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Keys<'a> {
    /// Tool groups the page offers; call them with execute_3p_developer_tool.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Vec<Group>>")]
    pub third_party_developer_tools: Option<&'a [ToolGroup]>,
    /// A big tool set listed with another tool's reply: names only;
    /// list_3p_developer_tools gives descriptions and schemas.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub third_party_developer_tool_names: Option<Vec<Names<'a>>>,
    /// What was wrong with what the page offered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub third_party_tool_problems: Option<&'a [String]>,
    /// A tool list too long to show: where it was saved and how it begins.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub third_party_developer_tools_file: Option<SavedFile>,
    /// Why there is no list, or what the list shown leaves out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub third_party_developer_tools_note: Option<&'a str>,
}

impl<'a> Keys<'a> {
    /// The entries of these keys.
    pub fn entries(&self) -> Map<String, Value> {
        super::entries(self)
    }
}

/// A group's tools by name.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Names<'a> {
    /// The group.
    pub group: &'a str,
    /// The names shown.
    pub tools: Vec<&'a str>,
    /// How many more the group has.
    pub more: usize,
}

/// A group of tools, as [`ToolGroup`] serialises.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct Group {
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    tools: Vec<ToolShape>,
    /// The page's WebMCP tools marked for debugging: they run through WebMCP.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    webmcp: bool,
}

/// A tool of a group.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct ToolShape {
    name: String,
    description: String,
    input_schema: Map<String, Value>,
    /// A WebMCP tool's annotations, as the page registered them.
    #[serde(skip_serializing_if = "Option::is_none")]
    annotations: Option<Map<String, Value>>,
}

#[cfg(test)]
pub(super) fn sample() -> Map<String, Value> {
    use serde_json::json;
    use tabwire_shared::ToolDefinition;
    let groups = [ToolGroup {
        name: "WebMCP Tools".into(),
        description: Some("d".into()),
        tools: vec![ToolDefinition {
            name: "t".into(),
            description: "does t".into(),
            input_schema: json!({"type": "object"}),
            annotations: Some(json!({"debugging": true})),
        }],
        webmcp: true,
    }];
    let problems = ["no name".to_string()];
    Keys {
        third_party_developer_tools: Some(&groups),
        third_party_developer_tool_names: Some(vec![Names {
            group: "g",
            tools: vec!["t"],
            more: 2,
        }]),
        third_party_tool_problems: Some(&problems),
        third_party_developer_tools_file: Some(SavedFile {
            file_path: "/tmp/t.txt".into(),
            preview: "…".into(),
        }),
        third_party_developer_tools_note: Some("Page 1 exposes no tools."),
    }
    .entries()
}
