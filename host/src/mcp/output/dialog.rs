//! A JavaScript dialog open on the page: it blocks the page's scripts until
//! handle_dialog deals with it, so every reply about the page says so.

use schemars::JsonSchema;
use serde::Serialize;
use tabwire_shared::{DialogInfo, DialogKind, TabId};

/// The `structuredContent` key of the open dialog section.
#[derive(Debug, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Keys {
    /// A JavaScript dialog open on the page; handle_dialog deals with it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dialog: Option<Dialog>,
}

/// The dialog open on a page.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Dialog {
    /// The page it is open on.
    pub page_id: TabId,
    /// `alert`, `confirm`, `prompt` or `beforeunload`.
    #[serde(rename = "type")]
    #[schemars(with = "String")]
    pub kind: DialogKind,
    /// The text the page shows.
    pub message: String,
    /// A prompt's default answer (`null` for the others).
    pub default_value: Option<String>,
}

impl Dialog {
    /// The dialog `info` open on `page`.
    pub fn new(page: TabId, info: &DialogInfo) -> Self {
        Self {
            page_id: page,
            kind: info.kind,
            message: info.message.clone(),
            default_value: info.default_prompt.clone(),
        }
    }
}

#[cfg(test)]
pub(super) fn sample() -> serde_json::Map<String, serde_json::Value> {
    let info = DialogInfo {
        kind: DialogKind::Prompt,
        message: "Name?".into(),
        default_prompt: None,
    };
    super::entries(&Keys {
        dialog: Some(Dialog::new(1, &info)),
    })
}
