//! The `outputSchema` every tool declares when structured output is on.
//!
//! Results are written by one renderer from a fixed set of sections, and any tool's
//! result may hold the shared ones (an open dialog, emulation, the page list, a
//! snapshot, an error), so the schema is the catalogue of every `structuredContent` key
//! the renderer writes. It forbids other keys: a section added without its schema
//! fails the end-to-end test that checks every tool's result against it.

use rmcp::model::JsonObject;
use serde_json::{json, Value};

/// The JSON Schema of every tool's `structuredContent`.
pub fn output_schema() -> JsonObject {
    let mut schema = json!({
        "type": "object",
        "$defs": {
            "node": {
                "type": "object",
                "description": "An accessibility node: its uid (`id`), role, name, value and states as fields.",
                "properties": {
                    "id": {"type": "string"},
                    "role": {"type": "string"},
                    "name": {"type": "string"},
                    "value": {"type": "string"},
                    "children": {
                        "type": "array",
                        "items": {"anyOf": [{"$ref": "#/$defs/node"}, {"$ref": "#/$defs/fold"}]}
                    }
                },
                "required": ["id", "role"]
            },
            "fold": {
                "type": "object",
                "description": "Siblings folded to fit maxChars: `folded` more like the `like` roles before it, `lines` nodes in all; take_snapshot with unfold=[`unfold`] shows them.",
                "properties": {
                    "folded": {"type": "integer"},
                    "like": {"type": "array", "items": {"type": "string"}},
                    "lines": {"type": "integer"},
                    "unfold": {"type": "string"}
                },
                "required": ["folded", "like", "lines", "unfold"]
            },
            "savedFile": {
                "type": "object",
                "description": "Output too long to show inline: where it was saved and how it begins.",
                "properties": {
                    "filePath": {"type": "string"},
                    "preview": {"type": "string"}
                },
                "required": ["filePath", "preview"]
            },
            "pagination": {
                "type": "object",
                "properties": {
                    "currentPage": {"type": "integer"},
                    "totalPages": {"type": "integer"},
                    "hasNextPage": {"type": "boolean"},
                    "hasPreviousPage": {"type": "boolean"},
                    "startIndex": {"type": "integer"},
                    "endIndex": {"type": "integer"},
                    "invalidPage": {"type": "boolean"},
                    "total": {"type": "integer"},
                    "summary": {"type": "string"}
                },
                "required": ["currentPage", "totalPages", "startIndex", "endIndex", "total", "summary"]
            }
        },
        "properties": {
            "message": {"type": "string", "description": "What the tool did, in words."},
            "errorMessage": {"type": "string", "description": "Why the call failed, and what to do."},
            "versionMismatch": {"type": "string", "description": "The extension and this tabwire differ in version: which is older, and the step that fixes it."},
            "dialog": {
                "type": "object",
                "description": "A JavaScript dialog open on the page; handle_dialog deals with it.",
                "properties": {
                    "pageId": {"type": "integer"},
                    "type": {"type": "string"},
                    "message": {"type": "string"},
                    "defaultValue": {"type": ["string", "null"]}
                },
                "required": ["pageId", "type", "message"]
            },
            "emulation": {"type": "object", "description": "What the page emulates."},
            "userPointedAt": {
                "type": "object",
                "description": "An element the user pointed at for this agent in tabwire's popup since the last reply: its uid works with click, hover and the other input tools.",
                "properties": {
                    "pageId": {"type": "integer"},
                    "uid": {"type": "string"},
                    "role": {"type": "string"},
                    "name": {"type": "string"}
                },
                "required": ["pageId", "uid", "role", "name"]
            },
            "pages": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "integer"},
                        "url": {"type": "string"},
                        "title": {"type": "string"},
                        "selected": {"type": "boolean"},
                        "userActive": {"type": "boolean"},
                        "crashed": {"type": "boolean", "description": "The page's renderer crashed: reload it with navigate_page {type: reload}."}
                    },
                    "required": ["id", "url", "title", "selected"]
                }
            },
            "thirdPartyDeveloperTools": {
                "type": "array",
                "description": "Tool groups the page offers; call them with execute_3p_developer_tool.",
                "items": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "description": {"type": "string"},
                        "tools": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "properties": {
                                    "name": {"type": "string"},
                                    "description": {"type": "string"},
                                    "inputSchema": {"type": "object"},
                                    "annotations": {"type": "object", "description": "A WebMCP tool's annotations, as the page registered them."}
                                },
                                "required": ["name", "description", "inputSchema"]
                            }
                        },
                        "webmcp": {"type": "boolean", "description": "The page's WebMCP tools marked for debugging: they run through WebMCP."}
                    },
                    "required": ["name", "tools"]
                }
            },
            "thirdPartyDeveloperToolNames": {
                "type": "array",
                "description": "A big tool set listed with another tool's reply: names only; list_3p_developer_tools gives descriptions and schemas.",
                "items": {
                    "type": "object",
                    "properties": {
                        "group": {"type": "string"},
                        "tools": {"type": "array", "items": {"type": "string"}},
                        "more": {"type": "integer"}
                    },
                    "required": ["group", "tools", "more"]
                }
            },
            "thirdPartyToolProblems": {"type": "array", "items": {"type": "string"}},
            "thirdPartyDeveloperToolsFile": {"$ref": "#/$defs/savedFile"},
            "thirdPartyDeveloperToolsNote": {"type": "string"},
            "snapshot": {"$ref": "#/$defs/node"},
            "snapshotFilePath": {"type": "string"},
            "image": {
                "type": "object",
                "properties": {
                    "mimeType": {"type": "string"},
                    "bytes": {"type": "integer"},
                    "attached": {"type": "boolean"},
                    "filePath": {"type": "string"}
                },
                "required": ["mimeType", "bytes"]
            },
            "consoleMessages": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "integer"},
                        "type": {"type": "string"},
                        "text": {"type": "string"},
                        "count": {"type": "integer"}
                    },
                    "required": ["id", "type", "text"]
                }
            },
            "consoleTotals": {
                "type": "object",
                "description": "Counts over every console message listed, whatever the types filter or page.",
                "properties": {
                    "messages": {"type": "integer"},
                    "errors": {"type": "integer"},
                    "exceptions": {"type": "integer"}
                },
                "required": ["messages", "errors", "exceptions"]
            },
            "consoleMessage": {"type": "object"},
            "networkRequests": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "reqid": {"type": "integer"},
                        "method": {"type": "string"},
                        "url": {"type": "string"}
                    },
                    "required": ["reqid", "method", "url"]
                }
            },
            "networkRequest": {"type": "object"},
            "dropped": {
                "type": "object",
                "description": "How many older entries of the navigations listed the browser let go of to keep the page within its bounds (count, space).",
                "properties": {
                    "forCount": {"type": "integer"},
                    "forSpace": {"type": "integer"},
                    "note": {"type": "string"}
                },
                "required": ["forCount", "forSpace", "note"]
            },
            "performanceTrace": {"type": "object", "description": "A stopped trace's insights, one set per page load: insightSets (ids for performance_analyze_insight), durationMs, filePath when saved."},
            "performanceInsight": {"type": "object", "description": "One insight of the last trace in detail."},
            "cssStyles": super::tools::css::output_schema(),
            "webmcpTools": super::render::webmcp::output_schema(),
            "webmcpToolProblems": {"type": "array", "items": {"type": "string"}},
            "webmcpToolsFile": {"$ref": "#/$defs/savedFile"},
            "memoryUsage": super::tools::memory::output_schema(),
            "pagination": {"$ref": "#/$defs/pagination"}
        },
        "patternProperties": {
            "^result[0-9]*$": {"description": "The value a script or a page's tool returned, as JSON."},
            "^result[0-9]*File$": {"$ref": "#/$defs/savedFile"}
        },
        "additionalProperties": false
    });
    if let (Some(properties), Value::Object(more)) = (
        schema.get_mut("properties").and_then(Value::as_object_mut),
        snapshot_properties(),
    ) {
        properties.extend(more);
    }
    match schema {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

/// The keys a snapshot section writes beyond the tree itself: which snapshot it is,
/// what of it is shown, and the changes since the last one.
fn snapshot_properties() -> Value {
    json!({
        "snapshotId": {"type": "integer", "description": "The number later replies name this snapshot by."},
        "snapshotPageId": {"type": "integer", "description": "The page the snapshot is of."},
        "snapshotRoot": {"type": "string", "description": "The uid whose subtree this snapshot is."},
        "snapshotViewport": {"type": "string", "description": "Set when only the elements in the viewport are shown: what that holds, and how to get the rest."},
        "snapshotMaxChars": {"type": "integer", "description": "The budget similar siblings were folded to fit."},
        "snapshotNote": {"type": "string"},
        "snapshotWhole": {"type": "string", "description": "Why the whole tree came instead of the changes since the last one."},
        "snapshotSince": {"type": "integer", "description": "The snapshot `snapshotChanges` are changes since."},
        "snapshotCut": {
            "type": "object",
            "description": "What did not fit in maxChars even folded: per parent, its children from `from` on.",
            "properties": {
                "maxChars": {"type": "integer"},
                "lines": {"type": "integer"},
                "rest": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "parent": {"type": ["string", "null"]},
                            "from": {"type": "string"},
                            "children": {"type": "integer"}
                        },
                        "required": ["parent", "from", "children"]
                    }
                },
                "note": {"type": "string"}
            },
            "required": ["maxChars", "lines", "rest", "note"]
        },
        "snapshotChanges": {
            "type": "object",
            "description": "Only the changes since snapshot `snapshotSince`; take_snapshot gives the whole tree.",
            "properties": {
                "note": {"type": "string"},
                "url": {"type": "string"},
                "removed": {"type": "array", "items": {"type": "string"}},
                "changed": {"type": "array", "items": {"$ref": "#/$defs/node"}},
                "placed": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "parent": {"type": "string"},
                            "position": {"type": "integer"},
                            "nodes": {"type": "array", "items": {"$ref": "#/$defs/node"}}
                        },
                        "required": ["parent", "position", "nodes"]
                    }
                }
            },
            "required": ["note", "removed", "changed", "placed"]
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_is_valid_and_refuses_unknown_keys() {
        let schema = Value::Object(output_schema());
        let validator = jsonschema::validator_for(&schema).unwrap();
        let good = json!({
            "message": "Clicked.",
            "result": {"z": 1},
            "result1File": {"filePath": "/x", "preview": "…"},
            "snapshot": {"id": "1_0", "role": "RootWebArea", "children": [{"id": "1_1", "role": "button"}]},
            "pages": [{"id": 1, "url": "about:blank", "title": "", "selected": true}],
        });
        assert!(validator.is_valid(&good));
        assert!(!validator.is_valid(&json!({"snapshot": {"nodes": 4}})));
        assert!(!validator.is_valid(&json!({"surprise": 1})));
    }
}
