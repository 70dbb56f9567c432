//! A JavaScript dialog open on the page: it blocks the page's scripts until
//! handle_dialog deals with it, so every reply about the page says so.

use schemars::JsonSchema;
use serde::Serialize;
use tabwire_shared::{DialogInfo, DialogKind, TabId};

use crate::mcp::output::page_text;
use crate::mcp::response::Section;

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

/// The open dialog section of a reply about `page`.
pub fn section(page: TabId, info: &DialogInfo) -> Section {
    let mut line = format!(
        "Page {page} shows a {} dialog: {}.",
        info.kind,
        page_text::quoted(&info.message)
    );
    if let Some(default) = &info.default_prompt {
        line.push_str(&format!(" Default answer: {}.", page_text::quoted(default)));
    }
    line.push_str(" It blocks the page's scripts: call handle_dialog to accept or dismiss it.");
    Section {
        title: "Open dialog",
        lines: vec![line],
        data: super::entries(&Keys {
            dialog: Some(Dialog::new(page, info)),
        }),
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
