//! What a page emulates (network, CPU, viewport, user agent, …), said with every reply
//! about the page so that a slow or narrow page is not mistaken for the real one.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};
use tabwire_shared::Emulation;

/// The `structuredContent` key of the emulation section.
#[derive(Debug, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Keys<'a> {
    /// What the page emulates.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Map<String, Value>>")]
    pub emulation: Option<&'a Emulation>,
}

#[cfg(test)]
pub(super) fn sample() -> Map<String, Value> {
    let emulation = Emulation {
        cpu_throttling_rate: Some(4.0),
        user_agent: Some("UA".into()),
        ..Default::default()
    };
    super::entries(&Keys {
        emulation: Some(&emulation),
    })
}
