//! The `Network`, `Log` and `Audits` domains as the collectors use them: enabling
//! them, the events they send (read into plain structs), and fetching bodies.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{command, Empty};

/// `Network.enable`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NetworkEnable {
    /// Request bodies up to this size come with `requestWillBeSent`.
    pub max_post_data_size: u64,
}
command!(NetworkEnable, "Network.enable", Empty);

/// `Log.enable`: browser-side messages (failed loads, interventions, violations).
#[derive(Debug, Serialize)]
pub struct LogEnable {}
command!(LogEnable, "Log.enable", Empty);

/// `Audits.enable`: issues (cookies, mixed content, CSP, ...).
#[derive(Debug, Serialize)]
pub struct AuditsEnable {}
command!(AuditsEnable, "Audits.enable", Empty);

/// `Network.getResponseBody`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NetworkGetResponseBody {
    /// CDP's request id.
    pub request_id: String,
}
command!(
    NetworkGetResponseBody,
    "Network.getResponseBody",
    ResponseBody
);

/// What `Network.getResponseBody` answers.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResponseBody {
    /// The body.
    #[serde(default)]
    pub body: String,
    /// `body` is base64.
    #[serde(default)]
    pub base64_encoded: bool,
}

/// `Network.getRequestPostData`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NetworkGetRequestPostData {
    /// CDP's request id.
    pub request_id: String,
}
command!(
    NetworkGetRequestPostData,
    "Network.getRequestPostData",
    PostData
);

/// What `Network.getRequestPostData` answers.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PostData {
    /// The body.
    #[serde(default)]
    pub post_data: String,
    /// `post_data` is base64.
    #[serde(default)]
    pub base64_encoded: bool,
}

/// Headers as CDP sends them (values are strings, but read leniently).
pub type Headers = BTreeMap<String, Value>;

/// `Network.requestWillBeSent`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestWillBeSent {
    /// CDP's request id (shared by the hops of a redirect chain).
    pub request_id: String,
    /// The document loader the request belongs to.
    #[serde(default)]
    pub loader_id: String,
    /// The request.
    pub request: Request,
    /// Monotonic seconds.
    #[serde(default)]
    pub timestamp: f64,
    /// Seconds since the Unix epoch.
    #[serde(default)]
    pub wall_time: f64,
    /// The resource type (`Document`, `Script`, `XHR`, ...).
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// Set when this hop follows a redirect: the previous hop's response.
    pub redirect_response: Option<Response>,
}

/// A request.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    /// The URL (without fragment).
    #[serde(default)]
    pub url: String,
    /// The method.
    #[serde(default)]
    pub method: String,
    /// Its headers.
    #[serde(default)]
    pub headers: Headers,
    /// The body, when small enough.
    pub post_data: Option<String>,
    /// Whether it has a body.
    #[serde(default)]
    pub has_post_data: bool,
}

/// A response.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Response {
    /// HTTP status.
    #[serde(default)]
    pub status: f64,
    /// Status text.
    #[serde(default)]
    pub status_text: String,
    /// Its headers.
    #[serde(default)]
    pub headers: Headers,
    /// MIME type.
    #[serde(default)]
    pub mime_type: String,
}

/// `Network.responseReceived`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResponseReceived {
    /// CDP's request id.
    pub request_id: String,
    /// The response.
    pub response: Response,
}

/// `Network.loadingFinished` and `Network.loadingFailed`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadingEnded {
    /// CDP's request id.
    pub request_id: String,
    /// Monotonic seconds.
    #[serde(default)]
    pub timestamp: f64,
    /// Why it failed (failures only).
    pub error_text: Option<String>,
    /// Cancelled rather than failed (failures only).
    #[serde(default)]
    pub canceled: bool,
}

/// `Network.requestWillBeSentExtraInfo` and `Network.responseReceivedExtraInfo`: the
/// headers as they went over the wire (cookies included).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExtraInfo {
    /// CDP's request id.
    pub request_id: String,
    /// The raw headers.
    #[serde(default)]
    pub headers: Headers,
}
