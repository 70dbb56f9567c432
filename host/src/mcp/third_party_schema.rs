//! The host's half of third-party developer tools: everything that is about JSON
//! Schema and the agent, none of what runs in the page.
//!
//! - [`rewrite_element_params`]: schema nodes marked `"x-mcp-type": "HTMLElement"`
//!   become `{uid}` objects, the form in which the agent passes elements.
//! - [`parse_params`] and [`validate`]: the reference's `params` string, checked against
//!   the tool's schema with every violation reported with its path.
//! - [`find_tool`]: the lookup by name (and optional group).

use serde_json::{json, Map, Value};
use tabwire_shared::{Discovery, ToolDefinition, ToolGroup};

use super::ToolError;

/// Deepest schema nesting walked; deeper parts are left as they are.
const MAX_SCHEMA_DEPTH: usize = 64;

/// Rewrites every schema node marked `"x-mcp-type": "HTMLElement"` (at any depth) into
/// an object taking the element's snapshot `uid`.
pub fn rewrite_element_params(schema: &mut Value) {
    rewrite(schema, 0);
}

fn rewrite(node: &mut Value, depth: usize) {
    if depth > MAX_SCHEMA_DEPTH {
        return;
    }
    match node {
        Value::Object(map) => {
            if map.get("x-mcp-type").and_then(Value::as_str) == Some("HTMLElement") {
                let description = map.get("description").cloned();
                let mut element = json!({
                    "type": "object",
                    "properties": {"uid": {
                        "type": "string",
                        "description": "The element's uid from take_snapshot."
                    }},
                    "required": ["uid"],
                });
                if let (Some(d), Value::Object(e)) = (description, &mut element) {
                    e.insert("description".into(), d);
                }
                *node = element;
                return;
            }
            for value in map.values_mut() {
                rewrite(value, depth + 1);
            }
        }
        Value::Array(items) => {
            for item in items {
                rewrite(item, depth + 1);
            }
        }
        _ => {}
    }
}

/// Rewrites element parameters in every tool of a discovery.
pub fn prepare(mut discovery: Discovery) -> Discovery {
    for group in &mut discovery.groups {
        for tool in &mut group.tools {
            rewrite_element_params(&mut tool.input_schema);
        }
    }
    discovery
}

/// Parses `params`, a JSON string of an object as in the reference.
pub fn parse_params(params: Option<&str>) -> Result<Value, ToolError> {
    let Some(text) = params else {
        return Ok(Value::Object(Map::new()));
    };
    if text.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    match serde_json::from_str::<Value>(text) {
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(other) => Err(ToolError::new(format!(
            "Failed to parse params as JSON: expected a JSON object such as {{\"a\": 1}}, got {}",
            kind_of(&other)
        ))),
        Err(e) => Err(ToolError::new(format!(
            "Failed to parse params as JSON: {e}"
        ))),
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Finds a tool by name: in `group` if given, else in the first group that has it.
pub fn find_tool<'a>(
    discovery: &'a Discovery,
    name: &str,
    group: Option<&str>,
) -> Result<(&'a ToolGroup, &'a ToolDefinition), ToolError> {
    let groups = discovery
        .groups
        .iter()
        .filter(|g| group.is_none_or(|wanted| g.name == wanted));
    for g in groups {
        if let Some(tool) = g.tools.iter().find(|t| t.name == name) {
            return Ok((g, tool));
        }
    }
    match group {
        Some(wanted) if !discovery.groups.iter().any(|g| g.name == wanted) => {
            let names: Vec<&str> = discovery.groups.iter().map(|g| g.name.as_str()).collect();
            Err(ToolError::new(format!(
                "Tool {name} not found: the page has no group named {wanted:?} (groups: {}).",
                names.join(", ")
            )))
        }
        _ => Err(ToolError::new(format!("Tool {name} not found"))),
    }
}

/// Checks `params` against the tool's schema, listing every violation with its path.
pub fn validate(tool: &ToolDefinition, params: &Value) -> Result<(), ToolError> {
    let validator = jsonschema::validator_for(&tool.input_schema).map_err(|e| {
        ToolError::new(format!(
            "The page's inputSchema for tool {} is not a valid JSON Schema ({e}); the page \
             author must fix it.",
            tool.name
        ))
    })?;
    let problems: Vec<String> = validator
        .iter_errors(params)
        .map(|e| {
            let path = e.instance_path().to_string();
            let at = if path.is_empty() {
                "/".to_string()
            } else {
                path
            };
            format!("at {at}: {e}")
        })
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(ToolError::new(format!(
            "Invalid parameters for tool {}: {}",
            tool.name,
            problems.join("; ")
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn discovery(groups: Vec<ToolGroup>) -> Discovery {
        Discovery {
            document: "d".into(),
            url: "http://localhost/".into(),
            origin: "http://localhost".into(),
            refused: false,
            groups,
            problems: vec![],
        }
    }

    fn tool(name: &str, schema: Value) -> ToolDefinition {
        ToolDefinition {
            name: name.into(),
            description: format!("{name} tool"),
            input_schema: schema,
            annotations: None,
        }
    }

    fn group(name: &str, tools: Vec<ToolDefinition>) -> ToolGroup {
        ToolGroup {
            name: name.into(),
            description: None,
            webmcp: false,
            tools,
        }
    }

    #[test]
    fn element_params_become_uid_objects_at_any_depth() {
        let mut schema = json!({
            "type": "object",
            "properties": {
                "target": {"x-mcp-type": "HTMLElement", "description": "the button"},
                "list": {"type": "array", "items": {"x-mcp-type": "HTMLElement"}},
                "deep": {"type": "object", "properties": {"el": {"x-mcp-type": "HTMLElement"}}}
            }
        });
        rewrite_element_params(&mut schema);
        let uid_object = |v: &Value| {
            v["properties"]["uid"]["type"] == "string" && v["required"] == json!(["uid"])
        };
        assert!(uid_object(&schema["properties"]["target"]));
        assert_eq!(schema["properties"]["target"]["description"], "the button");
        assert!(uid_object(&schema["properties"]["list"]["items"]));
        assert!(uid_object(
            &schema["properties"]["deep"]["properties"]["el"]
        ));
    }

    #[test]
    fn params_must_be_a_json_object_string() {
        assert_eq!(parse_params(None).unwrap(), json!({}));
        assert_eq!(parse_params(Some("{\"a\":1}")).unwrap(), json!({"a": 1}));
        let err = parse_params(Some("{a:1}")).unwrap_err().message;
        assert!(err.starts_with("Failed to parse params as JSON: "), "{err}");
        let err = parse_params(Some("[1]")).unwrap_err().message;
        assert!(err.contains("got an array"), "{err}");
    }

    #[test]
    fn every_violation_is_listed_with_its_path() {
        let add = tool(
            "add",
            json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}),
        );
        let err = validate(&add, &json!({"a": "one"})).unwrap_err().message;
        assert!(
            err.starts_with("Invalid parameters for tool add: "),
            "{err}"
        );
        assert!(err.contains("at /a: "), "{err}");
        assert!(err.contains("\"b\" is a required property"), "{err}");
        assert!(validate(&add, &json!({"a": 1, "b": 2})).is_ok());
    }

    #[test]
    fn an_invalid_page_schema_is_blamed_on_the_page() {
        let bad = tool("bad", json!({"type": 12}));
        let err = validate(&bad, &json!({})).unwrap_err().message;
        assert!(err.contains("not a valid JSON Schema"), "{err}");
    }

    #[test]
    fn tools_are_found_in_the_first_group_unless_one_is_named() {
        let d = discovery(vec![
            group("A", vec![tool("x", json!({}))]),
            group("B", vec![tool("x", json!({})), tool("y", json!({}))]),
        ]);
        assert_eq!(find_tool(&d, "x", None).unwrap().0.name, "A");
        assert_eq!(find_tool(&d, "x", Some("B")).unwrap().0.name, "B");
        assert_eq!(
            find_tool(&d, "z", None).unwrap_err().message,
            "Tool z not found"
        );
        assert!(find_tool(&d, "x", Some("C"))
            .unwrap_err()
            .message
            .contains("no group named \"C\""));
    }
}
