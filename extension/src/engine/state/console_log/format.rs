//! Console arguments as text and as JSON previews, formatted the way DevTools shows
//! them: strings as they are, numbers and booleans plainly, objects as short previews
//! (`{a: 1, b: 'x'}`, `[1, 2, 3]`, `Foo {x: 1}`), errors with their stack, and
//! `%s %d %i %f %o %O %c` substitution when the first argument is a format string.
//! Everything comes from the event itself (`RemoteObject.preview`): no extra round trips.

use serde_json::{Map, Value};

use crate::cdp::console::{ConsoleArg, ObjectPreview, PropertyPreview};

/// The text of a console call's arguments.
pub fn message_text(args: &[ConsoleArg]) -> String {
    let mut parts: Vec<String> = Vec::with_capacity(args.len());
    let mut rest = args;
    if let Some((first, tail)) = args.split_first() {
        if first.kind == "string" {
            let format = first.value.as_ref().and_then(Value::as_str).unwrap_or("");
            let (text, used) = substitute(format, tail);
            parts.push(text);
            rest = &tail[used..];
        }
    }
    parts.extend(rest.iter().map(arg_text));
    parts.join(" ")
}

/// Applies `%` directives to `format` with `args`; the text and how many args it used.
fn substitute(format: &str, args: &[ConsoleArg]) -> (String, usize) {
    let mut out = String::with_capacity(format.len());
    let mut used = 0;
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let Some(&directive) = chars.peek() else {
            out.push('%');
            break;
        };
        if directive == '%' {
            chars.next();
            out.push('%');
            continue;
        }
        if !matches!(directive, 's' | 'd' | 'i' | 'f' | 'o' | 'O' | 'c') {
            out.push('%');
            continue;
        }
        chars.next();
        let Some(arg) = args.get(used) else {
            out.push('%');
            out.push(directive);
            continue;
        };
        used += 1;
        match directive {
            'c' => {}
            'd' | 'i' => out.push_str(&number_text(arg, true)),
            'f' => out.push_str(&number_text(arg, false)),
            _ => out.push_str(&arg_text(arg)),
        }
    }
    (out, used)
}

fn number_text(arg: &ConsoleArg, integer: bool) -> String {
    let number = arg.value.as_ref().and_then(Value::as_f64).or_else(|| {
        arg.value
            .as_ref()
            .and_then(Value::as_str)
            .and_then(|s| s.trim().parse().ok())
    });
    match number {
        Some(n) if integer => format!("{}", n.trunc()),
        Some(n) => format_number(n),
        None => "NaN".to_owned(),
    }
}

fn format_number(n: f64) -> String {
    serde_json::Number::from_f64(n)
        .map(|n| n.to_string())
        .unwrap_or_else(|| n.to_string())
}

/// One argument as DevTools prints it.
pub fn arg_text(arg: &ConsoleArg) -> String {
    match arg.kind.as_str() {
        "string" => arg
            .value
            .as_ref()
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
        "undefined" => "undefined".to_owned(),
        "number" | "boolean" | "bigint" => match (&arg.unserializable_value, &arg.value) {
            (Some(special), _) => special.clone(),
            (None, Some(value)) => value.to_string(),
            (None, None) => arg.description.clone().unwrap_or_default(),
        },
        "object" => object_text(arg),
        _ => arg.description.clone().unwrap_or_else(|| arg.kind.clone()),
    }
}

fn object_text(arg: &ConsoleArg) -> String {
    match arg.subtype.as_deref() {
        Some("null") => return "null".to_owned(),
        Some("error" | "node" | "regexp" | "date") => {
            return arg.description.clone().unwrap_or_default()
        }
        _ => {}
    }
    match &arg.preview {
        Some(preview) => preview_text(preview, arg.class_name.as_deref()),
        None => arg
            .description
            .clone()
            .unwrap_or_else(|| "Object".to_owned()),
    }
}

fn preview_text(preview: &ObjectPreview, class_name: Option<&str>) -> String {
    let is_array = preview.subtype.as_deref() == Some("array");
    let items: Vec<String> = preview
        .properties
        .iter()
        .map(|p| {
            if is_array && p.name.bytes().all(|b| b.is_ascii_digit()) {
                property_value(p)
            } else {
                format!("{}: {}", p.name, property_value(p))
            }
        })
        .chain(preview.overflow.then(|| "…".to_owned()))
        .collect();
    let inner = items.join(", ");
    if is_array {
        let prefix = preview
            .description
            .as_deref()
            .filter(|d| !d.starts_with("Array("))
            .map(|d| format!("{d} "))
            .unwrap_or_default();
        return format!("{prefix}[{inner}]");
    }
    let name = class_name
        .or(preview.description.as_deref())
        .unwrap_or("Object");
    if name == "Object" {
        format!("{{{inner}}}")
    } else {
        format!("{name} {{{inner}}}")
    }
}

fn property_value(p: &PropertyPreview) -> String {
    let value = p.value.clone().unwrap_or_default();
    match p.kind.as_str() {
        "string" => format!("'{value}'"),
        "undefined" => "undefined".to_owned(),
        _ if p.subtype.as_deref() == Some("null") => "null".to_owned(),
        _ => value,
    }
}

/// One argument as a JSON preview.
pub fn arg_json(arg: &ConsoleArg) -> Value {
    match arg.kind.as_str() {
        "string" | "number" | "boolean" => match (&arg.unserializable_value, &arg.value) {
            (Some(special), _) => Value::String(special.clone()),
            (None, Some(value)) => value.clone(),
            (None, None) => Value::Null,
        },
        "undefined" => Value::Null,
        "object" if arg.subtype.as_deref() == Some("null") => Value::Null,
        "object" => match (&arg.preview, arg.subtype.as_deref()) {
            (Some(preview), None | Some("array" | "map" | "set" | "typedarray")) => {
                preview_json(preview)
            }
            _ => Value::String(arg.description.clone().unwrap_or_default()),
        },
        _ => Value::String(
            arg.unserializable_value
                .clone()
                .or_else(|| arg.description.clone())
                .unwrap_or_default(),
        ),
    }
}

fn preview_json(preview: &ObjectPreview) -> Value {
    let values = preview
        .properties
        .iter()
        .map(|p| (p.name.clone(), property_json(p)));
    if preview.subtype.as_deref() == Some("array") {
        let mut items: Vec<Value> = values.map(|(_, v)| v).collect();
        if preview.overflow {
            items.push(Value::String("…".to_owned()));
        }
        Value::Array(items)
    } else {
        let mut map: Map<String, Value> = values.collect();
        if preview.overflow {
            map.insert("…".to_owned(), Value::String("…".to_owned()));
        }
        Value::Object(map)
    }
}

fn property_json(p: &PropertyPreview) -> Value {
    let text = p.value.clone().unwrap_or_default();
    match p.kind.as_str() {
        "number" => text
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or(Value::String(text), Value::Number),
        "boolean" => Value::Bool(text == "true"),
        "undefined" => Value::Null,
        _ if p.subtype.as_deref() == Some("null") => Value::Null,
        _ => Value::String(text),
    }
}

/// A short account of a browser issue: its code and its telling details.
pub fn issue_text(code: &str, details: &Value) -> String {
    let mut facts = Vec::new();
    let mut stack = vec![(String::new(), details)];
    while let Some((key, value)) = stack.pop() {
        if facts.len() >= 6 {
            break;
        }
        match value {
            Value::Object(map) => {
                for (k, v) in map.iter().rev() {
                    stack.push((k.clone(), v));
                }
            }
            Value::Array(items) => {
                let texts: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
                if !texts.is_empty() {
                    facts.push(format!("{key}={}", texts.join("|")));
                } else {
                    for item in items.iter().rev() {
                        stack.push((key.clone(), item));
                    }
                }
            }
            Value::String(text) if !is_id(&key) && !text.is_empty() => {
                let text: String = text.chars().take(200).collect();
                facts.push(format!("{key}={text}"));
            }
            Value::Bool(_) | Value::Number(_) if !is_id(&key) => {
                facts.push(format!("{key}={value}"));
            }
            _ => {}
        }
    }
    if facts.is_empty() {
        code.to_owned()
    } else {
        format!("{code}: {}", facts.join(", "))
    }
}

fn is_id(key: &str) -> bool {
    key.ends_with("Id") || key.ends_with("id") || key == "frameId"
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(value: Value) -> Vec<ConsoleArg> {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn strings_numbers_and_objects_read_like_devtools() {
        let a = args(json!([
            {"type": "string", "value": "total"},
            {"type": "number", "value": 3},
            {"type": "boolean", "value": true},
            {"type": "undefined"},
            {"type": "object", "subtype": "null", "value": null},
            {"type": "object", "className": "Object", "description": "Object", "preview": {
                "type": "object", "description": "Object", "overflow": false,
                "properties": [{"name": "a", "type": "number", "value": "1"}, {"name": "b", "type": "string", "value": "x"}]}},
            {"type": "object", "subtype": "array", "className": "Array", "description": "Array(2)", "preview": {
                "type": "object", "subtype": "array", "description": "Array(2)", "overflow": false,
                "properties": [{"name": "0", "type": "number", "value": "1"}, {"name": "1", "type": "number", "value": "2"}]}},
            {"type": "number", "unserializableValue": "NaN", "description": "NaN"},
        ]));
        assert_eq!(
            message_text(&a),
            "total 3 true undefined null {a: 1, b: 'x'} [1, 2] NaN"
        );
        assert_eq!(arg_json(&a[5]), json!({"a": 1.0, "b": "x"}));
        assert_eq!(arg_json(&a[6]), json!([1.0, 2.0]));
        assert_eq!(arg_json(&a[7]), json!("NaN"));
    }

    #[test]
    fn format_strings_are_substituted() {
        let a = args(json!([
            {"type": "string", "value": "%s has %d items (%f%%) %c!"},
            {"type": "string", "value": "cart"},
            {"type": "number", "value": 2.7},
            {"type": "number", "value": 0.5},
            {"type": "string", "value": "color: red"},
            {"type": "string", "value": "extra"},
        ]));
        assert_eq!(message_text(&a), "cart has 2 items (0.5%) ! extra");
        let short = args(
            json!([{"type": "string", "value": "%s and %s"}, {"type": "string", "value": "one"}]),
        );
        assert_eq!(message_text(&short), "one and %s");
    }

    #[test]
    fn class_instances_errors_and_overflow() {
        let a = args(json!([
            {"type": "object", "className": "Point", "description": "Point", "preview": {
                "type": "object", "description": "Point", "overflow": true,
                "properties": [{"name": "x", "type": "number", "value": "1"}]}},
            {"type": "object", "subtype": "error", "className": "Error", "description": "Error: boom\n    at f (a.js:1:1)"},
        ]));
        assert_eq!(
            message_text(&a),
            "Point {x: 1, …} Error: boom\n    at f (a.js:1:1)"
        );
        assert_eq!(arg_json(&a[1]), json!("Error: boom\n    at f (a.js:1:1)"));
    }

    #[test]
    fn issues_are_summarised_without_ids() {
        let text = issue_text(
            "GenericIssue",
            &json!({"genericIssueDetails": {"errorType": "FormLabelForNameError", "frameId": "F", "violatingNodeId": 7}}),
        );
        assert_eq!(text, "GenericIssue: errorType=FormLabelForNameError");
        assert_eq!(issue_text("X", &json!({})), "X");
    }
}
