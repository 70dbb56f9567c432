//! What scripts and pages' tools return: `result`, `result1`, … in the order the
//! handler added them, each either the value itself or, too long to show, the file it
//! was saved to (`resultFile`, `result1File`, …).

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Serialize;
use serde_json::{Map, Value};

use super::SavedFile;

/// The shapes of one result's two keys; [`keys`] turns each into a pattern, as the
/// keys are numbered.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Keys {
    /// The value a script or a page's tool returned, as JSON.
    result: Value,
    /// Output too long to show inline: where it was saved and how it begins.
    result_file: SavedFile,
}

/// The key of the `index`-th result: `result`, then `result1`, `result2`, …
pub fn key(index: usize) -> String {
    if index == 0 {
        "result".to_string()
    } else {
        format!("result{index}")
    }
}

/// The entry of the result under `key`.
pub fn value(key: &str, value: &Value) -> Map<String, Value> {
    let mut entry = Map::new();
    entry.insert(key.into(), value.clone());
    entry
}

/// The entry of the result under `key`, saved to a file.
pub fn saved(key: &str, file: SavedFile) -> Map<String, Value> {
    let mut entry = Map::new();
    entry.insert(
        format!("{key}File"),
        serde_json::to_value(file).unwrap_or(Value::Null),
    );
    entry
}

/// The line that says a result went to `path`, too long for the `room` characters the
/// reply had left, and what it holds (`about`, from the file's preview).
pub fn saved_line(room: usize, path: &std::path::Path, about: &str) -> String {
    format!(
        "The result is too long to show here ({room} characters at most); it was saved to \
         {}. Read that file for the details. {about}",
        path.display()
    )
}

/// The results' schema: [`Keys`]' properties as the patterns of numbered keys.
pub fn keys(generator: &mut SchemaGenerator) -> Schema {
    let fields = Keys::json_schema(generator);
    let mut patterns = Map::new();
    if let Some(Value::Object(properties)) = fields.get("properties") {
        for (name, schema) in properties {
            let pattern = match name.strip_prefix("result") {
                Some(rest) => format!("^result[0-9]*{rest}$"),
                None => format!("^{name}$"),
            };
            patterns.insert(pattern, schema.clone());
        }
    }
    let mut schema = Map::new();
    schema.insert("patternProperties".into(), Value::Object(patterns));
    Schema::from(schema)
}

#[cfg(test)]
pub(super) fn sample() -> Map<String, Value> {
    let mut sample = value(&key(0), &serde_json::json!({"z": 1, "a": [2]}));
    sample.extend(saved(
        &key(1),
        SavedFile {
            file_path: "/x".into(),
            preview: "…".into(),
        },
    ));
    sample
}
