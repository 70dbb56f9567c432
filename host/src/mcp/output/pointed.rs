//! The element the user pointed at for this agent in tabwire's popup: the user's way of
//! saying "this one", told once with the next reply.

use schemars::JsonSchema;
use serde::Serialize;
use tabwire_shared::TabId;

use crate::mcp::output::page_text;
use crate::mcp::response::Section;

/// The `structuredContent` key of the section on the element the user pointed at.
#[derive(Debug, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Keys {
    /// An element the user pointed at for this agent in tabwire's popup since the last
    /// reply: its uid works with click, hover and the other input tools.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_pointed_at: Option<Pointed>,
}

/// The element, as a snapshot names it.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Pointed {
    /// The page it is on.
    pub page_id: TabId,
    /// Its snapshot uid.
    pub uid: String,
    /// Its accessibility role.
    pub role: String,
    /// Its accessible name.
    pub name: String,
}

/// The section on the element the user pointed at.
pub fn section(pointed: &crate::mcp::context::Pointed) -> Section {
    let name = if pointed.name.is_empty() {
        String::new()
    } else {
        format!(" {}", page_text::quoted(&pointed.name))
    };
    Section {
        title: "The user pointed at",
        lines: vec![format!(
            "uid={} {}{name} on page {}: the element the user means (input tools take this uid).",
            pointed.uid, pointed.role, pointed.page
        )],
        data: super::entries(&Keys {
            user_pointed_at: Some(Pointed {
                page_id: pointed.page,
                uid: pointed.uid.clone(),
                role: pointed.role.clone(),
                name: pointed.name.clone(),
            }),
        }),
    }
}

#[cfg(test)]
pub(super) fn sample() -> serde_json::Map<String, serde_json::Value> {
    super::entries(&Keys {
        user_pointed_at: Some(Pointed {
            page_id: 2,
            uid: "1_4".into(),
            role: "button".into(),
            name: "Go".into(),
        }),
    })
}
