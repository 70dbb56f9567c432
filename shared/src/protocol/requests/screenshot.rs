//! Captures the page as an image.

use std::time::Duration;

use crate::protocol::ImageFormat;
use crate::protocol::{Request, TabId, CAPTURE};
use serde::{Deserialize, Serialize};

/// Captures the page as an image.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Screenshot {
    /// The tab.
    pub tab_id: TabId,
    /// `png`, `jpeg` or `webp`.
    pub format: ImageFormat,
    /// Compression quality 0-100 (jpeg and webp only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quality: Option<u8>,
    /// The whole scrollable page rather than the viewport.
    pub full_page: bool,
    /// Only this element.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
}

impl Request for Screenshot {
    type Reply = Image;
    const RESENDABLE: bool = true;
    const LEAVES_TABS_ALONE: bool = true;
    fn tab(&self) -> Option<TabId> {
        Some(self.tab_id)
    }
    fn timeout(&self) -> Duration {
        CAPTURE
    }
}

/// What [`Screenshot`] answers: the captured image.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Image {
    /// The image, base64-encoded.
    pub data: String,
    /// Its MIME type (`image/png`, ...).
    pub mime_type: String,
}

/// Its command and reply as they travel, pinned.
impl crate::protocol::Golden for Screenshot {
    const COMMANDS: &[&str] = &[
        r#"{"command":"screenshot","tabId":3,"format":"jpeg","quality":50,"fullPage":true,"uid":"1_4"}"#,
        r#"{"command":"screenshot","tabId":3,"format":"png","fullPage":false}"#,
    ];
    const REPLIES: &[&str] = &[
        r#"{"data":"AAAA","mimeType":"image/png"}"#,
    ];
}
