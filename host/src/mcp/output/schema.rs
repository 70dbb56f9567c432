//! The `outputSchema` every tool declares when structured output is on, assembled from
//! the sections' homes ([`super::HOMES`]).
//!
//! Results are written by one renderer from a fixed set of sections, and any tool's
//! result may hold the shared ones (an open dialog, emulation, the page list, a
//! snapshot, an error), so the schema is the catalogue of every `structuredContent` key
//! the sections write. It forbids other keys: a key written without its home fails
//! the end-to-end test that checks every tool's result against it.
//!
//! Subschemas are inlined, as in the input schemas (agents and some MCP clients handle
//! `$ref` poorly); only a snapshot's node, which nests itself, stays in `$defs`. An
//! optional field is never `null` (a section leaves it out instead), so it is declared
//! without `null`; schemars' `format` notes on numbers are left out, and a doc
//! comment's lines are joined into one description.

use rmcp::model::JsonObject;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

use super::HOMES;

/// The JSON Schema of every tool's `structuredContent`.
pub fn output_schema() -> JsonObject {
    let mut generator = SchemaSettings::draft2020_12()
        .with(|s| s.inline_subschemas = true)
        .for_serialize()
        .into_generator();
    let mut properties = Map::new();
    let mut patterns = Map::new();
    for home in HOMES {
        let keys = (home.keys)(&mut generator);
        for (part, into) in [
            ("properties", &mut properties),
            ("patternProperties", &mut patterns),
        ] {
            if let Some(Value::Object(more)) = keys.get(part) {
                into.extend(more.clone());
            }
        }
    }
    let definitions = generator.take_definitions(true);
    let mut schema = JsonObject::new();
    schema.insert("type".into(), Value::from("object"));
    if !definitions.is_empty() {
        schema.insert("$defs".into(), Value::Object(definitions));
    }
    schema.insert("properties".into(), Value::Object(properties));
    schema.insert("patternProperties".into(), Value::Object(patterns));
    schema.insert("additionalProperties".into(), Value::Bool(false));
    let mut schema = Value::Object(schema);
    tidy(&mut schema);
    match schema {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

/// Drops `null` from optional properties and `format` notes, all through `schema`.
fn tidy(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            if map.get("format").is_some_and(Value::is_string) {
                map.remove("format");
            }
            // A doc comment's lines make one sentence.
            if let Some(Value::String(description)) = map.get_mut("description") {
                *description = description.replace('\n', " ");
            }
            let required: Vec<String> = map
                .get("required")
                .and_then(Value::as_array)
                .map(|r| {
                    r.iter()
                        .filter_map(Value::as_str)
                        .map(String::from)
                        .collect()
                })
                .unwrap_or_default();
            if let Some(Value::Object(properties)) = map.get_mut("properties") {
                for (name, property) in properties.iter_mut() {
                    if !required.contains(name) {
                        never_null(property);
                    }
                }
            }
            map.values_mut().for_each(tidy);
        }
        Value::Array(items) => items.iter_mut().for_each(tidy),
        _ => {}
    }
}

/// `schema` without `null` among the values it allows.
fn never_null(schema: &mut Value) {
    let Value::Object(map) = schema else {
        return;
    };
    if let Some(Value::Array(types)) = map.get_mut("type") {
        types.retain(|t| t != "null");
        if let [only] = types.as_slice() {
            let only = only.clone();
            map.insert("type".into(), only);
        }
        return;
    }
    let is_null = |s: &Value| s.get("type").and_then(Value::as_str) == Some("null");
    if let Some(Value::Array(choices)) = map.get("anyOf") {
        let rest: Vec<Value> = choices.iter().filter(|c| !is_null(c)).cloned().collect();
        if let ([only], true) = (rest.as_slice(), rest.len() < choices.len()) {
            let Value::Object(only) = only.clone() else {
                return;
            };
            map.remove("anyOf");
            for (key, value) in only {
                map.entry(key).or_insert(value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn validator() -> jsonschema::Validator {
        jsonschema::validator_for(&Value::Object(output_schema())).unwrap()
    }

    #[test]
    fn the_schema_is_valid_and_refuses_unknown_keys() {
        let validator = validator();
        let good = json!({
            "message": "Clicked.",
            "result": {"z": 1},
            "result1File": {"filePath": "/x", "preview": "…"},
            "snapshot": {"id": "1_0", "role": "RootWebArea", "children": [{"id": "1_1", "role": "button"}]},
            "pages": [{"id": 1, "url": "about:blank", "title": "", "selected": true, "userActive": false}],
        });
        assert!(validator.is_valid(&good));
        assert!(!validator.is_valid(&json!({"snapshot": {"nodes": 4}})));
        assert!(!validator.is_valid(&json!({"surprise": 1})));
        assert!(!validator.is_valid(&json!({"message": null})));
    }

    #[test]
    fn every_section_s_sample_is_valid_and_declares_each_key_it_holds() {
        let schema = Value::Object(output_schema());
        let validator = validator();
        for home in HOMES {
            let sample = Value::Object((home.sample)());
            let errors: Vec<String> = validator
                .iter_errors(&sample)
                .map(|e| format!("{} at {}", e, e.instance_path()))
                .collect();
            assert!(errors.is_empty(), "{}: {errors:?}", home.name);
            let mut undeclared = Vec::new();
            declared(&schema, &schema, &sample, "", &mut undeclared);
            assert!(undeclared.is_empty(), "{}: {undeclared:?}", home.name);
        }
    }

    /// Collects the keys of `value` that `schema` does not name (a schema that allows
    /// unknown keys would let a renamed field through unseen).
    fn declared(root: &Value, schema: &Value, value: &Value, at: &str, out: &mut Vec<String>) {
        let schema = match schema.get("$ref").and_then(Value::as_str) {
            Some(reference) => reference
                .strip_prefix("#/$defs/")
                .and_then(|name| root["$defs"].get(name))
                .unwrap_or(&Value::Null),
            None => schema,
        };
        if let Some(Value::Array(choices)) = schema.get("anyOf") {
            let fits = |choice: &Value| {
                let mut missing = Vec::new();
                declared(root, choice, value, at, &mut missing);
                missing.is_empty()
            };
            if !choices.iter().any(fits) {
                out.push(format!("{at}: no choice of anyOf declares it"));
            }
            return;
        }
        match value {
            Value::Object(fields) => {
                let properties = schema.get("properties").and_then(Value::as_object);
                let patterns = schema.get("patternProperties").and_then(Value::as_object);
                if properties.is_none() && patterns.is_none() {
                    return;
                }
                for (key, field) in fields {
                    let here = format!("{at}/{key}");
                    let by_pattern = patterns
                        .into_iter()
                        .flatten()
                        .find(|(pattern, _)| regex_lite(pattern, key));
                    match (properties.and_then(|p| p.get(key)), by_pattern) {
                        (Some(sub), _) | (None, Some((_, sub))) => {
                            declared(root, sub, field, &here, out)
                        }
                        // A node's states are its own fields.
                        (None, None) if is_node(schema) => {}
                        (None, None) => out.push(here),
                    }
                }
            }
            Value::Array(items) => {
                if let Some(item) = schema.get("items") {
                    for (i, value) in items.iter().enumerate() {
                        declared(root, item, value, &format!("{at}/{i}"), out);
                    }
                }
            }
            _ => {}
        }
    }

    /// A snapshot node's schema (`id` and `role`): its states are fields it cannot
    /// name ahead.
    fn is_node(schema: &Value) -> bool {
        let properties = &schema["properties"];
        properties.get("id").is_some() && properties.get("role").is_some()
    }

    /// The two patterns the results use: `^result[0-9]*$` and `^result[0-9]*File$`.
    fn regex_lite(pattern: &str, key: &str) -> bool {
        let Some(rest) = key.strip_prefix("result") else {
            return false;
        };
        let tail = rest.trim_start_matches(|c: char| c.is_ascii_digit());
        pattern == format!("^result[0-9]*{tail}$")
    }
}
