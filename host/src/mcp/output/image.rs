//! A screenshot: its type and size, whether it is attached, and the file it was saved
//! to (for clients that drop images when `structuredContent` is present).

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::Serialize;

/// The `structuredContent` key of the image section.
#[derive(Debug, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Keys {
    /// The image the reply holds or saved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<Image>,
}

/// An image, as `structuredContent` describes it.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Image {
    /// Its MIME type.
    pub mime_type: String,
    /// Its size in bytes.
    pub bytes: usize,
    /// It is attached to the reply as image content.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub attached: bool,
    /// The file it was saved to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_path: Option<PathBuf>,
}

impl Image {
    /// The image in words: its size and type, attached, saved, or both.
    pub fn line(&self) -> String {
        let mut line = format!("The image ({} bytes, {})", self.bytes, self.mime_type);
        if self.attached {
            line.push_str(" is attached");
        }
        if let Some(path) = &self.file_path {
            line.push_str(if self.attached { " and" } else { "" });
            line.push_str(&format!(" was saved to {}", path.display()));
        }
        line.push('.');
        line
    }
}

#[cfg(test)]
pub(super) fn sample() -> serde_json::Map<String, serde_json::Value> {
    super::entries(&Keys {
        image: Some(Image {
            mime_type: "image/png".into(),
            bytes: 12,
            attached: true,
            file_path: Some("/tmp/x.png".into()),
        }),
    })
}
