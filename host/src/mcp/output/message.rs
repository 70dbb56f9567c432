//! The reply's own words: what the tool did, why it failed, and a version mismatch
//! between the extension and this tabwire.

use schemars::JsonSchema;
use serde::Serialize;

/// The `structuredContent` keys of the message and error sections.
#[derive(Debug, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Keys {
    /// What the tool did, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Why the call failed, and what to do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
    /// The extension and this tabwire differ in version: which is older, and the step
    /// that fixes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version_mismatch: Option<String>,
}

#[cfg(test)]
pub(super) fn sample() -> serde_json::Map<String, serde_json::Value> {
    super::entries(&Keys {
        message: Some("Clicked.".into()),
        error_message: Some("No page.".into()),
        version_mismatch: Some("The extension is older.".into()),
    })
}
