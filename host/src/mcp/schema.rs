//! Input schemas, generated from each tool's `Params` type.
//!
//! The schema is the contract the agent reads, so it is produced from the same type
//! the handler deserialises into: they cannot drift. Subschemas are inlined (agents
//! and some MCP clients handle `$ref` poorly) and generator noise (`$schema`, `title`)
//! is dropped. Page-scoped tools get an optional `pageId` added here, once.

use rmcp::model::JsonObject;
use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::{json, Value};

/// The argument every page-scoped tool accepts to act on a page other than the selected one.
pub const PAGE_ID: &str = "pageId";

/// The JSON Schema of `P` as an MCP tool input schema.
pub fn input_schema<P: JsonSchema>(page_scoped: bool) -> JsonObject {
    let generator = SchemaSettings::draft2020_12()
        .with(|s| s.inline_subschemas = true)
        .into_generator();
    let schema = generator.into_root_schema_for::<P>();
    let mut object = match schema.to_value() {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    };
    object.remove("$schema");
    object.remove("title");
    object.insert("type".into(), json!("object"));
    let properties = object.entry("properties").or_insert_with(|| json!({}));
    if page_scoped {
        if let Value::Object(props) = properties {
            props.insert(
                PAGE_ID.into(),
                json!({
                    "type": "integer",
                    "description": "The page to act on (a pageId from list_pages). Defaults to the selected page."
                }),
            );
        }
    }
    object
}

/// The names of the arguments a schema declares, required ones first, for error messages.
pub fn expected_arguments(schema: &JsonObject) -> Vec<String> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut names: Vec<String> = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    names.sort_by_key(|n| (!required.contains(&n.as_str()), n.clone()));
    names
        .into_iter()
        .map(|n| {
            if required.contains(&n.as_str()) {
                format!("{n} (required)")
            } else {
                n
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Example {
        /// The URL.
        url: String,
        /// How long to wait.
        timeout: Option<u64>,
    }

    #[test]
    fn schema_is_an_inlined_object_with_descriptions() {
        let schema = input_schema::<Example>(false);
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["properties"]["url"]["description"], "The URL.");
        assert!(!schema.contains_key("$schema"));
        assert!(!schema.contains_key("title"));
        assert_eq!(schema["required"], json!(["url"]));
    }

    #[test]
    fn page_scoped_tools_accept_a_page_id() {
        let schema = input_schema::<Example>(true);
        assert_eq!(schema["properties"][PAGE_ID]["type"], "integer");
        assert_eq!(schema["required"], json!(["url"]));
    }

    #[test]
    fn expected_arguments_lists_required_first() {
        let schema = input_schema::<Example>(true);
        assert_eq!(
            expected_arguments(&schema),
            vec!["url (required)", "pageId", "timeout"]
        );
    }
}
