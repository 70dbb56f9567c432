//! The data of the DevTools surface: input actions, images, console messages, network
//! requests, emulation settings. Kept apart from the envelope and command list in
//! [`crate::protocol`] so each stays readable.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What [`crate::Input`] does.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum InputAction {
    /// Clicks the middle of an element (scrolled into view first).
    Click {
        /// The element's snapshot uid.
        uid: String,
        /// Double-click.
        double: bool,
    },
    /// Clicks at a point of the viewport, in CSS pixels.
    ClickAt {
        /// Distance from the viewport's left edge.
        x: f64,
        /// Distance from the viewport's top edge.
        y: f64,
        /// Double-click.
        double: bool,
    },
    /// Moves the mouse over an element.
    Hover {
        /// The element's snapshot uid.
        uid: String,
    },
    /// Sets a form control's value as a user would: text inputs, textareas and
    /// contenteditable get the text typed in (replacing what was there); a select gets
    /// the option whose text (or value) matches; a checkbox or radio gets `"true"` or
    /// `"false"`.
    Fill {
        /// The element's snapshot uid.
        uid: String,
        /// The value.
        value: String,
    },
    /// Types text into the focused element, then optionally presses a key.
    TypeText {
        /// The text.
        text: String,
        /// A key to press afterwards, e.g. `Enter` or `Tab`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        submit_key: Option<String>,
    },
    /// Presses a key or combination, e.g. `Enter`, `Control+Shift+R`, `Meta+a`.
    PressKey {
        /// The key combination, checked with [`crate::keys::parse_combo`].
        key: String,
    },
    /// Drags one element onto another.
    Drag {
        /// The element to drag.
        from_uid: String,
        /// The element to drop it on.
        to_uid: String,
    },
    /// Sets the files of a file input (or of the file chooser an element opens).
    UploadFile {
        /// The file input, or an element that opens a file chooser when clicked.
        uid: String,
        /// Absolute paths of files that exist (checked by the host).
        paths: Vec<String>,
    },
}

/// A click made from the keyboard because a mouse press would have brought the tab's
/// window to the front: the element was focused and `key` pressed, which makes the
/// browser click it (no `mousedown` or `mouseup`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KeyboardClick {
    /// The key pressed.
    pub key: ActivationKey,
    /// Why a mouse press would have brought the window forward.
    pub raised: RaisedWindow,
}

/// The key that clicks a focused element: `Enter` for links and buttons, `Space` for
/// checkboxes and radios, as browsers activate them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ActivationKey {
    /// `Enter`.
    Enter,
    /// `Space`.
    Space,
}

impl ActivationKey {
    /// The key's name, as `press_key` takes it.
    pub fn name(self) -> &'static str {
        match self {
            ActivationKey::Enter => "Enter",
            ActivationKey::Space => "Space",
        }
    }
}

/// Why a mouse press in a tab would bring its window to the front.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RaisedWindow {
    /// The tab's window is minimized.
    Minimized,
    /// Another Chrome window had the focus last.
    Behind,
    /// The window the user worked in last, but another application is in front.
    BrowserBehind,
}

/// Completes "the tab shown in a window …".
impl std::fmt::Display for RaisedWindow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RaisedWindow::Minimized => "the user minimized",
            RaisedWindow::Behind => "behind the one the user worked in last",
            RaisedWindow::BrowserBehind => {
                "that does not have the focus (the user is working in another application)"
            }
        })
    }
}

/// Image encodings a screenshot can use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ImageFormat {
    /// Lossless PNG.
    Png,
    /// JPEG.
    Jpeg,
    /// WebP.
    Webp,
}

impl ImageFormat {
    /// The MIME type.
    pub fn mime_type(self) -> &'static str {
        match self {
            ImageFormat::Png => "image/png",
            ImageFormat::Jpeg => "image/jpeg",
            ImageFormat::Webp => "image/webp",
        }
    }

    /// The usual file extension.
    pub fn extension(self) -> &'static str {
        match self {
            ImageFormat::Png => "png",
            ImageFormat::Jpeg => "jpg",
            ImageFormat::Webp => "webp",
        }
    }
}

/// A console message, uncaught exception or browser-reported issue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleMessage {
    /// Stable id within the tab (`msgid`).
    pub id: u64,
    /// `log`, `info`, `warn`, `error`, `debug`, `trace`, `assert`, ... as the console
    /// API names them; `exception` for uncaught exceptions; `issue` for browser issues.
    pub kind: String,
    /// The message text (for a list, possibly shortened).
    pub text: String,
    /// The arguments passed to the console call, as JSON previews (full message only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<Value>,
    /// Where it came from (script URL), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The stack, innermost frame first (full message only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stack: Vec<StackFrame>,
    /// Milliseconds since the Unix epoch.
    pub timestamp: f64,
    /// 0 for the current document, 1 for the previous navigation, 2 for the one before.
    pub navigation: u32,
}

/// One frame of a stack trace, with 1-based line and column.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StackFrame {
    /// The function's name (empty for anonymous code).
    pub function_name: String,
    /// The script's URL.
    pub url: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
}

/// Most network requests the extension keeps per tab (the oldest go first).
pub const NETWORK_REQUESTS_KEPT: usize = 3_000;

/// Most bytes of network requests (URLs, headers, request bodies kept from the
/// events) the extension keeps per tab (the oldest go first).
pub const NETWORK_BYTES_KEPT: usize = 8 << 20;

/// The network requests of a listing, oldest first ([`crate::NetworkRequests`]).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NetworkList {
    /// The requests, without headers or bodies.
    pub requests: Vec<NetworkRequest>,
    /// Older requests of the navigations listed let go of to stay within the bounds.
    #[serde(default, skip_serializing_if = "crate::Dropped::is_none")]
    pub dropped: crate::Dropped,
}

/// A network request and what became of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NetworkRequest {
    /// Stable id within the tab (`reqid`).
    pub id: u64,
    /// HTTP method.
    pub method: String,
    /// The URL (data: URLs shortened).
    pub url: String,
    /// CDP resource type: `Document`, `Stylesheet`, `Image`, `Script`, `XHR`, `Fetch`, ...
    pub resource_type: String,
    /// HTTP status, once a response arrived.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// Status text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_text: Option<String>,
    /// Why it failed (`net::ERR_…`), if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// Response MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Milliseconds since the Unix epoch when it was sent.
    pub started: f64,
    /// Milliseconds it took until finished or failed, if it has.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<f64>,
    /// 0 for the current document, 1 for the previous navigation, 2 for the one before.
    pub navigation: u32,
    /// Request headers (full request only).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub request_headers: BTreeMap<String, String>,
    /// Response headers (full request only).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub response_headers: BTreeMap<String, String>,
    /// The request body (full request only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_body: Option<Body>,
    /// The response body (full request only; absent when the browser no longer has it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_body: Option<Body>,
    /// Why a body the browser may still have was not read (full request only): the
    /// page kept the browser busy past the time a body may take.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bodies_unread: Option<String>,
}

/// A request or response body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Body {
    /// The body: text as it is, binary as base64.
    pub data: String,
    /// `data` is base64.
    pub base64: bool,
    /// The body was longer than shown (the extension caps bodies at 10 MiB).
    #[serde(default)]
    pub truncated: bool,
}

/// A change to one emulated setting: set it, or go back to the real value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", content = "value", rename_all = "camelCase")]
pub enum Change<T> {
    /// Emulate this value.
    Set(T),
    /// Stop emulating.
    Clear,
}

/// What [`crate::Emulate`] changes; `None` fields stay as they are.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EmulationChanges {
    /// Network throttling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<Change<NetworkConditions>>,
    /// CPU slowdown factor (1 = none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_throttling_rate: Option<Change<f64>>,
    /// Viewport size and device traits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub viewport: Option<Change<Viewport>>,
    /// User-Agent string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_agent: Option<Change<String>>,
    /// `prefers-color-scheme`: `dark` or `light`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color_scheme: Option<Change<String>>,
    /// Other CSS media features, by name (`prefers-reduced-motion`, `prefers-contrast`,
    /// `forced-colors`): their values, or back to the real ones.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub media: BTreeMap<String, Change<String>>,
    /// Geolocation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub geolocation: Option<Change<Geolocation>>,
    /// Headers added to every request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra_http_headers: Option<Change<BTreeMap<String, String>>>,
}

/// Everything a tab currently emulates; `None` = the real value.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Emulation {
    /// Network throttling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<NetworkConditions>,
    /// CPU slowdown factor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_throttling_rate: Option<f64>,
    /// Viewport.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub viewport: Option<Viewport>,
    /// User-Agent string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_agent: Option<String>,
    /// `dark` or `light`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color_scheme: Option<String>,
    /// Other CSS media features emulated, by name (`prefers-reduced-motion: reduce`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub media: BTreeMap<String, String>,
    /// Geolocation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub geolocation: Option<Geolocation>,
    /// Extra request headers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra_http_headers: Option<BTreeMap<String, String>>,
}

impl Emulation {
    /// Whether anything is emulated.
    pub fn is_empty(&self) -> bool {
        *self == Emulation::default()
    }
}

/// Network conditions, as a named preset or explicit values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NetworkConditions {
    /// The preset's name (`Offline`, `Slow 3G`, `Fast 3G`, `Slow 4G`, `Fast 4G`).
    pub name: String,
    /// No network at all.
    pub offline: bool,
    /// Added round-trip latency, ms.
    pub latency_ms: f64,
    /// Download throughput, bytes/s (-1 = unlimited).
    pub download_bytes_per_sec: f64,
    /// Upload throughput, bytes/s (-1 = unlimited).
    pub upload_bytes_per_sec: f64,
}

impl NetworkConditions {
    /// The named presets agents may ask for (the same as Chrome DevTools').
    pub fn preset(name: &str) -> Option<NetworkConditions> {
        let (name, offline, latency, down_kbps, up_kbps) = match name {
            "Offline" => ("Offline", true, 0.0, 0.0, 0.0),
            "Slow 3G" => ("Slow 3G", false, 2000.0, 400.0, 400.0),
            "Fast 3G" => ("Fast 3G", false, 562.5, 1475.0, 675.0),
            "Slow 4G" => ("Slow 4G", false, 150.0, 1600.0, 750.0),
            "Fast 4G" => ("Fast 4G", false, 60.0, 9000.0, 9000.0),
            _ => return None,
        };
        Some(NetworkConditions {
            name: name.to_string(),
            offline,
            latency_ms: latency,
            download_bytes_per_sec: down_kbps * 1000.0 / 8.0,
            upload_bytes_per_sec: up_kbps * 1000.0 / 8.0,
        })
    }

    /// The preset names, for messages.
    pub const PRESETS: [&'static str; 5] = ["Offline", "Slow 3G", "Fast 3G", "Slow 4G", "Fast 4G"];
}

/// Viewport size and device traits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Viewport {
    /// Width in CSS pixels.
    pub width: u32,
    /// Height in CSS pixels.
    pub height: u32,
    /// Device pixel ratio.
    pub device_scale_factor: f64,
    /// Mobile (meta viewport, overlay scrollbars).
    pub mobile: bool,
    /// Touch events.
    pub touch: bool,
    /// Landscape orientation.
    pub landscape: bool,
}

/// A position on Earth.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Geolocation {
    /// Degrees, -90..90.
    pub latitude: f64,
    /// Degrees, -180..180.
    pub longitude: f64,
    /// Metres.
    pub accuracy: f64,
}
