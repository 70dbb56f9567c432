//! The selected page's own developer tools, offered as MCP tools of their own
//! (`--experimentalPageToolsAsMcpTools`).
//!
//! A third-party tool `add` in the group `Page-specific DevTools` becomes the MCP tool
//! `page_Page_specific_DevTools_add`, with the tool's own input schema (elements as
//! `{uid}`), so an agent calls it with typed arguments instead of a JSON string. A call
//! goes through `execute_3p_developer_tool`'s pipeline unchanged: same origin policy,
//! validation, rediscovery after a navigation and rendering.
//!
//! Everything here comes from the page, so everything is bounded: names are cleaned to
//! the characters every client accepts and cut to [`MAX_NAME`] characters (a hash of
//! the whole name keeps them unique), descriptions are cut and marked as the page's
//! words, schemas larger than [`MAX_SCHEMA_BYTES`] are replaced by a note (the call is
//! still checked against the real one), and at most [`MAX_TOOLS`] are offered.

use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;

use rmcp::model::{JsonObject, Tool as McpTool, ToolAnnotations};
use serde_json::{json, Value};
use tabwire_shared::{Discovery, TabId};

/// What every page tool's name starts with; no built-in tool's does.
pub const PREFIX: &str = "page_";

/// Longest name offered: the limit the strictest clients put on tool names.
pub const MAX_NAME: usize = 64;

/// Most page tools offered at once; the rest stay reachable through
/// `execute_3p_developer_tool`.
pub const MAX_TOOLS: usize = 64;

/// Longest part of a description taken from the page, in characters.
pub const MAX_DESCRIPTION: usize = 1000;

/// Largest input schema offered as it is, as JSON.
pub const MAX_SCHEMA_BYTES: usize = 16 * 1024;

/// One page tool: its MCP name and the third-party tool it runs.
#[derive(Debug, Clone)]
pub struct PageTool {
    /// The MCP tool name, `page_<group>_<tool>` cleaned, unique and bounded.
    pub name: String,
    /// The group that offers the tool.
    pub group: String,
    /// The tool's own name, as `execute_3p_developer_tool` takes it.
    pub tool: String,
    /// What `tools/list` shows for it.
    pub definition: McpTool,
}

/// The page tools of one page's discovery.
#[derive(Debug, Clone, Default)]
pub struct PageToolSet {
    /// The tools, in the page's order.
    pub tools: Vec<PageTool>,
    /// Tools the page offers beyond [`MAX_TOOLS`].
    pub left_out: usize,
}

impl PageToolSet {
    /// The tools `discovery` of page `tab` found, none if the page's origin was refused.
    pub fn of(tab: TabId, discovery: &Discovery) -> Self {
        let mut set = Self::default();
        if discovery.refused {
            return set;
        }
        let mut taken = HashSet::new();
        for group in &discovery.groups {
            for tool in &group.tools {
                if set.tools.len() == MAX_TOOLS {
                    set.left_out += 1;
                    continue;
                }
                let name = unique_name(&group.name, &tool.name, &mut taken);
                let description =
                    describe(tab, discovery, &group.name, &tool.name, &tool.description);
                let definition = McpTool::new_with_raw(
                    name.clone(),
                    Some(description.into()),
                    Arc::new(input_schema(&tool.input_schema)),
                )
                .with_annotations(
                    ToolAnnotations::new()
                        .read_only(false)
                        .destructive(false)
                        .open_world(true),
                );
                set.tools.push(PageTool {
                    name,
                    group: group.name.clone(),
                    tool: tool.name.clone(),
                    definition,
                });
            }
        }
        set
    }

    /// The tool called `name`, if the set has it.
    pub fn find(&self, name: &str) -> Option<&PageTool> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// What the agent sees of the set: a change of it is a change of `tools/list`.
    pub fn fingerprint(&self) -> u64 {
        let mut hasher = DefaultHasher::new();
        for tool in &self.tools {
            tool.name.hash(&mut hasher);
            tool.definition.description.hash(&mut hasher);
            serde_json::to_string(&tool.definition.input_schema)
                .unwrap_or_default()
                .hash(&mut hasher);
        }
        hasher.finish()
    }
}

/// `page_<group>_<tool>` cleaned and bounded, made unique against `taken`.
fn unique_name(group: &str, tool: &str, taken: &mut HashSet<String>) -> String {
    let full = format!("{PREFIX}{}_{}", clean(group), clean(tool));
    let mut name = if full.len() <= MAX_NAME {
        full.clone()
    } else {
        with_hash(&full, group, tool, 0)
    };
    let mut attempt = 1;
    while !taken.insert(name.clone()) {
        name = with_hash(&full, group, tool, attempt);
        attempt += 1;
    }
    name
}

/// `full` cut so that `_<hash>` fits in [`MAX_NAME`]; the hash is of the original
/// group and tool names (and `attempt`), so the result is stable from one listing to
/// the next.
fn with_hash(full: &str, group: &str, tool: &str, attempt: u32) -> String {
    let mut hasher = DefaultHasher::new();
    (group, tool, attempt).hash(&mut hasher);
    let suffix = format!("_{:08x}", hasher.finish() as u32);
    let keep = MAX_NAME - suffix.len();
    // `full` is ASCII (see `clean`), so any byte index is a character boundary.
    let head = full[..full.len().min(keep)].trim_end_matches('_');
    format!("{head}{suffix}")
}

/// `text` with every run of characters outside `[A-Za-z0-9]` turned into one `_`,
/// without `_` at either end; `tool` if nothing is left.
fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
    }
    let out = out.trim_end_matches('_');
    if out.is_empty() {
        "tool".to_owned()
    } else {
        out.to_owned()
    }
}

/// The description `tools/list` shows: where the tool comes from first, then the
/// page's own words, cut and marked as the page's.
fn describe(tab: TabId, discovery: &Discovery, group: &str, tool: &str, text: &str) -> String {
    let mut words: String = text.chars().take(MAX_DESCRIPTION).collect();
    if text.chars().count() > MAX_DESCRIPTION {
        words.push('…');
    }
    format!(
        "Developer tool {tool:?} of the group {group:?}, offered by the page {} (page {tab}); \
         runs like execute_3p_developer_tool. The page's own description, not tabwire's: \
         {words}",
        discovery.origin
    )
}

/// The tool's input schema as MCP wants it: an object schema. A schema of another type
/// or too large to list is replaced by an open object schema that says so; the call
/// is still validated against the page's schema.
fn input_schema(schema: &Value) -> JsonObject {
    let size = serde_json::to_string(schema).map(|s| s.len()).unwrap_or(0);
    match schema {
        Value::Object(map) if size <= MAX_SCHEMA_BYTES => {
            let mut map = map.clone();
            match map.get("type") {
                Some(Value::String(t)) if t == "object" => {}
                None => {
                    map.insert("type".into(), json!("object"));
                }
                Some(_) => return open_schema("is not an object schema"),
            }
            map
        }
        Value::Object(_) => open_schema(&format!(
            "is {} KB, too large to list (list_3p_developer_tools shows it)",
            size / 1024
        )),
        _ => open_schema("is not an object schema"),
    }
}

fn open_schema(why: &str) -> JsonObject {
    let mut schema = JsonObject::new();
    schema.insert("type".into(), json!("object"));
    schema.insert(
        "description".into(),
        json!(format!(
            "The page's input schema {why}; the arguments are checked against it when the tool runs."
        )),
    );
    schema
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabwire_shared::{ToolDefinition, ToolGroup};

    fn discovery(groups: Vec<(&str, Vec<(&str, Value)>)>) -> Discovery {
        Discovery {
            document: "d".into(),
            url: "http://127.0.0.1/".into(),
            origin: "http://127.0.0.1".into(),
            refused: false,
            groups: groups
                .into_iter()
                .map(|(name, tools)| ToolGroup {
                    name: name.into(),
                    description: None,
                    webmcp: false,
                    tools: tools
                        .into_iter()
                        .map(|(name, input_schema)| ToolDefinition {
                            name: name.into(),
                            description: format!("{name} does it"),
                            input_schema,
                            annotations: None,
                        })
                        .collect(),
                })
                .collect(),
            problems: vec![],
        }
    }

    fn names(set: &PageToolSet) -> Vec<&str> {
        set.tools.iter().map(|t| t.name.as_str()).collect()
    }

    #[test]
    fn names_are_page_group_tool_cleaned() {
        let set = PageToolSet::of(
            1,
            &discovery(vec![
                (
                    "Page-specific DevTools",
                    vec![("add", json!({"type": "object"}))],
                ),
                ("  ", vec![("ünïcode tool!", json!({}))]),
            ]),
        );
        assert_eq!(
            names(&set),
            ["page_Page_specific_DevTools_add", "page_tool_n_code_tool"]
        );
        assert_eq!(
            set.find("page_Page_specific_DevTools_add").unwrap().tool,
            "add"
        );
    }

    #[test]
    fn names_that_clean_to_the_same_are_told_apart_stably() {
        let groups = || {
            discovery(vec![(
                "g",
                vec![("a-b", json!({})), ("a_b", json!({})), ("a b", json!({}))],
            )])
        };
        let set = PageToolSet::of(1, &groups());
        let got = names(&set);
        assert_eq!(got[0], "page_g_a_b");
        assert!(
            got[1].starts_with("page_g_a_b_") && got[1] != got[2],
            "{got:?}"
        );
        assert_eq!(names(&PageToolSet::of(1, &groups())), got, "stable");
    }

    #[test]
    fn long_names_are_cut_to_the_limit_and_stay_unique() {
        let long = "x".repeat(200);
        let set = PageToolSet::of(
            1,
            &discovery(vec![(
                &long,
                vec![
                    (&format!("{long}1"), json!({})),
                    (&format!("{long}2"), json!({})),
                ],
            )]),
        );
        let got = names(&set);
        assert!(got.iter().all(|n| n.len() <= MAX_NAME), "{got:?}");
        assert_ne!(got[0], got[1]);
    }

    #[test]
    fn at_most_max_tools_are_offered() {
        let tools: Vec<(String, Value)> = (0..MAX_TOOLS + 3)
            .map(|i| (format!("t{i}"), json!({})))
            .collect();
        let tools = tools.iter().map(|(n, s)| (n.as_str(), s.clone())).collect();
        let set = PageToolSet::of(1, &discovery(vec![("g", tools)]));
        assert_eq!((set.tools.len(), set.left_out), (MAX_TOOLS, 3));
    }

    #[test]
    fn schemas_are_object_schemas_of_bounded_size() {
        let big = json!({"type": "object", "description": "y".repeat(MAX_SCHEMA_BYTES)});
        let set = PageToolSet::of(
            1,
            &discovery(vec![(
                "g",
                vec![
                    ("typed", json!({"properties": {"a": {"type": "number"}}})),
                    ("string", json!({"type": "string"})),
                    ("big", big),
                ],
            )]),
        );
        let schema = |i: usize| Value::Object((*set.tools[i].definition.input_schema).clone());
        assert_eq!(
            schema(0),
            json!({"type": "object", "properties": {"a": {"type": "number"}}})
        );
        assert_eq!(schema(1)["type"], "object");
        assert!(schema(1)["description"]
            .as_str()
            .unwrap()
            .contains("not an object"));
        assert!(schema(2)["description"]
            .as_str()
            .unwrap()
            .contains("too large"));
    }

    #[test]
    fn descriptions_say_they_are_the_pages_and_are_cut() {
        let mut d = discovery(vec![("g", vec![("t", json!({}))])]);
        d.groups[0].tools[0].description = "z".repeat(MAX_DESCRIPTION + 50);
        let set = PageToolSet::of(7, &d);
        let text = set.tools[0].definition.description.as_deref().unwrap();
        assert!(
            text.contains("offered by the page http://127.0.0.1 (page 7)"),
            "{text}"
        );
        assert!(text.contains("not tabwire's"), "{text}");
        assert!(
            text.ends_with('…') && text.len() < MAX_DESCRIPTION + 400,
            "{text}"
        );
    }

    #[test]
    fn a_refused_origin_offers_nothing_and_changes_show_in_the_fingerprint() {
        let mut d = discovery(vec![("g", vec![("t", json!({}))])]);
        let before = PageToolSet::of(1, &d).fingerprint();
        d.groups[0].tools[0].input_schema = json!({"required": ["a"]});
        assert_ne!(PageToolSet::of(1, &d).fingerprint(), before);
        d.refused = true;
        let set = PageToolSet::of(1, &d);
        assert!(set.tools.is_empty());
        assert_eq!(set.fingerprint(), PageToolSet::default().fingerprint());
    }
}
