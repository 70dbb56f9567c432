//! Third-party developer tools (the tools a page offers its debugger) in words and as
//! `structuredContent` ([`Keys`]): the section's title, a page's tool list, and why a
//! page has none to offer. How much of a list a reply shows (in full, by name only,
//! saved to a file) is decided in [`crate::mcp::response`].

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};
use tabwire_shared::{Discovery, TabId, ToolGroup};

use super::SavedFile;
use crate::mcp::output::page_text;

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
    /// Output too long to show inline: where it was saved and how it begins.
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

/// Where discovered tools appear in responses.
pub const SECTION_TITLE: &str = "Third-party developer tools";

/// The explanation for a page whose origin may not present tools.
pub fn refusal(discovery: &Discovery) -> String {
    if discovery.origin == "null" {
        // about:blank, data: and sandboxed pages: no origin to allow.
        return format!(
            "The page ({}) has no origin of its own (as about:blank, data: and sandboxed \
             pages), so it may not present third-party developer tools.",
            discovery.url
        );
    }
    let web = ["http://", "https://"]
        .iter()
        .any(|scheme| discovery.origin.starts_with(scheme));
    if !web {
        // The browser's own pages (an error page is chrome-error://chromewebdata):
        // nothing to allow, and nothing that could offer tools.
        return format!(
            "The page ({}) is not a web page, so it offers no third-party developer tools.",
            discovery.url
        );
    }
    format!(
        "The page's origin ({}) may not present third-party developer tools: by default \
         only local pages (localhost, 127.0.0.1, [::1], *.localhost, file:) may. To allow \
         it, start tabwire with --thirdPartyOrigins={}",
        discovery.origin, discovery.origin
    )
}

/// What a page that offers no valid tool is said to expose.
pub fn no_tools(page: TabId, discovery: &Discovery) -> String {
    format!(
        "Page {page} ({}) exposes no third-party developer tools.",
        discovery.url
    )
}

/// The text of a page's tool list: each group and tool with its schema, then what
/// was wrong with what the page offered.
/// How many characters of a tool's description an index of a big tool set shows.
const INDEX_DESCRIPTION_CHARS: usize = 100;

/// The first line of `description`, at most [`INDEX_DESCRIPTION_CHARS`] characters.
pub fn first_line(description: &str) -> String {
    let line = description.lines().next().unwrap_or("").trim();
    if line.chars().count() <= INDEX_DESCRIPTION_CHARS {
        return line.to_owned();
    }
    let cut: String = line.chars().take(INDEX_DESCRIPTION_CHARS).collect();
    format!("{}\u{2026}", cut.trim_end())
}

pub fn listing(page: TabId, discovery: &Discovery) -> String {
    let mut out = String::new();
    // Names and descriptions are the page's: each stays on its line.
    let mut line = |text: &str| {
        out.push_str(&page_text::inline(text));
        out.push('\n');
    };
    if discovery.groups.is_empty() {
        line(&no_tools(page, discovery));
    } else {
        line(&format!("Page {page} ({}) exposes:", discovery.url));
        for group in &discovery.groups {
            if group.webmcp {
                line(&format!("### {} (WebMCP)", group.name));
            } else {
                line(&format!("### {}", group.name));
            }
            if let Some(description) = &group.description {
                line(&format!("Description: {description}"));
            }
            for tool in &group.tools {
                line(&format!("- {}: {}", tool.name, tool.description));
                line(&format!("  inputSchema: {}", tool.input_schema));
                if let Some(annotations) = &tool.annotations {
                    line(&format!("  annotations: {annotations}"));
                }
            }
        }
        line(
            "Call them with execute_3p_developer_tool, or from evaluate_script with \
             window.__dtmcp.executeTool(name, args).",
        );
        if discovery.groups.iter().any(|g| g.webmcp) {
            line(
                "The WebMCP group's tools run through the browser's WebMCP: call them with \
                 execute_3p_developer_tool.",
            );
        }
    }
    if !discovery.problems.is_empty() {
        line("Problems with what the page offered:");
        for problem in &discovery.problems {
            line(&format!("- {problem}"));
        }
    }
    out
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

#[cfg(test)]
mod tests {
    use super::*;

    fn discovery() -> Discovery {
        Discovery {
            document: "d".into(),
            url: "http://localhost/".into(),
            origin: "http://localhost".into(),
            refused: false,
            groups: vec![],
            problems: vec![],
        }
    }

    #[test]
    fn pages_without_an_origin_are_not_told_to_allow_null() {
        let mut found = discovery();
        found.origin = "null".into();
        found.url = "about:blank".into();
        let text = refusal(&found);
        assert!(
            text.contains("about:blank") && text.contains("no origin"),
            "{text}"
        );
        assert!(!text.contains("--thirdPartyOrigins"), "{text}");
        found.origin = "chrome-error://chromewebdata".into();
        found.url = "chrome-error://chromewebdata/".into();
        let text = refusal(&found);
        assert!(text.contains("not a web page") && !text.contains("--thirdPartyOrigins"));
        found.origin = "https://app.example".into();
        assert!(refusal(&found).contains("--thirdPartyOrigins=https://app.example"));
    }
}
