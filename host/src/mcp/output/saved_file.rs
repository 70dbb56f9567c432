//! A file a section was saved to because it was too long to show, and how it begins:
//! the shape a script's result, a tool list and a WebMCP tool list share.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::Serialize;

/// Output too long to show inline: where it was saved and how it begins.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SavedFile {
    /// The private file holding the whole output.
    pub file_path: PathBuf,
    /// Its size, its shape (for JSON) and its first characters.
    pub preview: String,
}
