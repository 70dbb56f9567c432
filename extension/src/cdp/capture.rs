//! Screenshots and page geometry: `Page.captureScreenshot`, `Page.getLayoutMetrics`;
//! and answering JavaScript dialogs.

use serde::{Deserialize, Serialize};

use super::{command, Empty};

/// `Page.captureScreenshot`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PageCaptureScreenshot {
    /// `png`, `jpeg` or `webp`.
    pub format: &'static str,
    /// 0-100, jpeg and webp only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quality: Option<u8>,
    /// The area, in CSS pixels of the document; the viewport if absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clip: Option<Clip>,
    /// Capture from the compositor surface (the usual way).
    pub from_surface: bool,
    /// Render beyond the viewport (full-page and element shots).
    pub capture_beyond_viewport: bool,
    /// Encode faster at the cost of a larger file (a PNG about a third larger, made in
    /// about three quarters of the time). What an image costs an agent depends on its
    /// pixels, not its bytes (but a larger file reaches the host's inline image limit
    /// sooner), and the encoding is most of a full-page capture's time.
    pub optimize_for_speed: bool,
}
command!(PageCaptureScreenshot, "Page.captureScreenshot", Screenshot);

/// `Page.startScreencast`: while it runs, Chrome draws the page's frames even when the
/// tab is hidden, so a capture of a hidden tab gets a fresh frame instead of waiting
/// for one that never comes. The frames themselves are tiny and not read.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PageStartScreencast {
    /// `jpeg` (the cheapest to make).
    pub format: &'static str,
    /// Largest frame width Chrome sends.
    pub max_width: u32,
    /// Largest frame height Chrome sends.
    pub max_height: u32,
}
command!(PageStartScreencast, "Page.startScreencast", Empty);

/// `Page.stopScreencast`.
#[derive(Debug, Serialize)]
pub struct PageStopScreencast {}
command!(PageStopScreencast, "Page.stopScreencast", Empty);

/// A capture area.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Clip {
    /// Left, from the document's origin.
    pub x: f64,
    /// Top, from the document's origin.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
    /// Scale (1 = CSS pixels times the device pixel ratio).
    pub scale: f64,
}

/// What `Page.captureScreenshot` answers.
#[derive(Debug, Deserialize)]
pub struct Screenshot {
    /// The image, base64.
    pub data: String,
}

/// `Page.getLayoutMetrics`.
#[derive(Debug, Serialize)]
pub struct PageGetLayoutMetrics {}
command!(PageGetLayoutMetrics, "Page.getLayoutMetrics", LayoutMetrics);

/// What `Page.getLayoutMetrics` answers (CSS pixels).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LayoutMetrics {
    /// The layout viewport.
    pub css_layout_viewport: LayoutViewport,
    /// The visual viewport (differs when pinch-zoomed).
    pub css_visual_viewport: VisualViewport,
    /// The document's scrollable size.
    pub css_content_size: ContentSize,
}

/// The layout viewport.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LayoutViewport {
    /// Scroll offset x.
    #[serde(default)]
    pub page_x: f64,
    /// Scroll offset y.
    #[serde(default)]
    pub page_y: f64,
    /// Width without scrollbars.
    #[serde(default)]
    pub client_width: f64,
    /// Height without scrollbars.
    #[serde(default)]
    pub client_height: f64,
}

/// The visual viewport.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VisualViewport {
    /// Scroll offset x, from the document's origin.
    #[serde(default)]
    pub page_x: f64,
    /// Scroll offset y, from the document's origin.
    #[serde(default)]
    pub page_y: f64,
}

/// The document's size.
#[derive(Debug, Deserialize)]
pub struct ContentSize {
    /// Width.
    #[serde(default)]
    pub width: f64,
    /// Height.
    #[serde(default)]
    pub height: f64,
}

/// `Page.handleJavaScriptDialog`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PageHandleJavaScriptDialog {
    /// OK (true) or Cancel (false).
    pub accept: bool,
    /// The answer to a `prompt`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_text: Option<String>,
}
command!(
    PageHandleJavaScriptDialog,
    "Page.handleJavaScriptDialog",
    Empty
);
