//! Network requests as the agent reads them: filtered lists, and one request in full
//! with its sensitive headers redacted (these are the user's real, logged-in sessions)
//! and its bodies shown or saved; the `structuredContent` keys of both ([`Keys`]).

use std::collections::BTreeMap;
use std::path::PathBuf;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};
use tabwire_shared::{Body, NetworkRequest};

use super::lists;
use crate::mcp::filters::{check_names, navigation_note};
use crate::mcp::paginate::paginate;
use crate::mcp::spill;
use crate::mcp::ToolError;

/// The `structuredContent` keys of the network sections.
#[derive(Debug, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Keys<'a> {
    /// The requests listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network_requests: Option<Vec<Listed<'a>>>,
    /// One request in full.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network_request: Option<Detail<'a>>,
}

/// A request of a list.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Listed<'a> {
    /// Its reqid.
    pub reqid: u64,
    /// Its method.
    pub method: &'a str,
    /// Its URL.
    pub url: &'a str,
    /// CDP's resource type.
    pub resource_type: &'a str,
    /// Its HTTP status (`null` while pending or failed).
    pub status: Option<u16>,
    /// Why it failed (`null` unless it did).
    pub failure: Option<&'a str>,
    /// 0 for the current document, 1 for the previous navigation, …
    pub navigation: u32,
}

impl<'a> Listed<'a> {
    /// `r` as a list shows it.
    pub fn new(r: &'a NetworkRequest) -> Self {
        Self {
            reqid: r.id,
            method: &r.method,
            url: &r.url,
            resource_type: &r.resource_type,
            status: r.status,
            failure: r.failure.as_deref(),
            navigation: r.navigation,
        }
    }
}

/// One request in full (`null` for what the browser did not say); its bodies inline
/// (`requestBody`, `responseBody`) or saved (`…BodyFile`, with `…BodyPreview` when
/// saved for being too long).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Detail<'a> {
    /// Its reqid.
    pub reqid: u64,
    /// Its method.
    pub method: &'a str,
    /// Its URL.
    pub url: &'a str,
    /// Its HTTP status.
    pub status: Option<u16>,
    /// Its status text.
    pub status_text: Option<&'a str>,
    /// Why it failed.
    pub failure: Option<&'a str>,
    /// CDP's resource type.
    pub resource_type: &'a str,
    /// The response's MIME type.
    pub mime_type: Option<&'a str>,
    /// How long it took.
    pub duration_ms: Option<f64>,
    /// Request headers (sensitive values redacted unless asked otherwise).
    pub request_headers: BTreeMap<String, String>,
    /// Response headers (sensitive values redacted unless asked otherwise).
    pub response_headers: BTreeMap<String, String>,
    /// The request body, shown whole.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_body: Option<String>,
    /// The file the request body was saved to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_body_file: Option<PathBuf>,
    /// How the saved request body begins.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_body_preview: Option<String>,
    /// The response body, shown whole.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_body: Option<String>,
    /// The file the response body was saved to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_body_file: Option<PathBuf>,
    /// How the saved response body begins.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_body_preview: Option<String>,
    /// Why the bodies could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bodies_unread: Option<&'a str>,
}

/// Which of a request's two bodies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// What the page sent.
    Request,
    /// What the server answered.
    Response,
}

impl Side {
    /// The side in a sentence ("no request body") and in a saved file's name.
    pub fn word(self) -> &'static str {
        match self {
            Side::Request => "request",
            Side::Response => "response",
        }
    }

    /// The body's label in the text.
    pub fn label(self) -> &'static str {
        match self {
            Side::Request => "Request body",
            Side::Response => "Response body",
        }
    }
}

impl<'a> Detail<'a> {
    /// The body of `side` shown whole.
    pub fn body(&mut self, side: Side) -> &mut Option<String> {
        match side {
            Side::Request => &mut self.request_body,
            Side::Response => &mut self.response_body,
        }
    }

    /// The file the body of `side` was saved to.
    pub fn body_file(&mut self, side: Side) -> &mut Option<PathBuf> {
        match side {
            Side::Request => &mut self.request_body_file,
            Side::Response => &mut self.response_body_file,
        }
    }

    /// How the saved body of `side` begins.
    pub fn body_preview(&mut self, side: Side) -> &mut Option<String> {
        match side {
            Side::Request => &mut self.request_body_preview,
            Side::Response => &mut self.response_body_preview,
        }
    }

    /// `r` with these headers, its bodies not yet shown.
    pub fn new(
        r: &'a NetworkRequest,
        request_headers: BTreeMap<String, String>,
        response_headers: BTreeMap<String, String>,
    ) -> Self {
        Self {
            reqid: r.id,
            method: &r.method,
            url: &r.url,
            status: r.status,
            status_text: r.status_text.as_deref(),
            failure: r.failure.as_deref(),
            resource_type: &r.resource_type,
            mime_type: r.mime_type.as_deref(),
            duration_ms: r.duration_ms,
            request_headers,
            response_headers,
            request_body: None,
            request_body_file: None,
            request_body_preview: None,
            response_body: None,
            response_body_file: None,
            response_body_preview: None,
            bodies_unread: r.bodies_unread.as_deref(),
        }
    }
}

/// The resource types an agent may filter on (CDP's, in lower case).
pub const RESOURCE_TYPES: &[&str] = &[
    "document",
    "stylesheet",
    "image",
    "media",
    "font",
    "script",
    "texttrack",
    "xhr",
    "fetch",
    "prefetch",
    "eventsource",
    "websocket",
    "manifest",
    "signedexchange",
    "ping",
    "cspviolationreport",
    "preflight",
    "fedcm",
    "other",
];

/// What replaces a redacted header's value.
pub const REDACTED: &str = "[redacted]";

/// Checks a resource-type filter, naming the valid types when one is unknown.
pub fn check_resource_types(types: &[String]) -> Result<(), ToolError> {
    check_names("resource type", types, RESOURCE_TYPES, true)
}

/// Whether a header carries credentials or session state.
pub fn is_sensitive(header: &str) -> bool {
    let name = header.to_ascii_lowercase();
    matches!(
        name.as_str(),
        "authorization" | "proxy-authorization" | "cookie" | "set-cookie" | "set-cookie2"
    ) || [
        "token",
        "secret",
        "api-key",
        "apikey",
        "session",
        "csrf",
        "xsrf",
        "auth",
        "password",
        "signature",
    ]
    .iter()
    .any(|word| name.contains(word))
}

/// Headers with sensitive values replaced, when `redact` is on.
pub fn redact_headers(
    headers: &BTreeMap<String, String>,
    redact: bool,
) -> BTreeMap<String, String> {
    headers
        .iter()
        .map(|(name, value)| {
            let shown = if redact && is_sensitive(name) {
                REDACTED.to_string()
            } else {
                value.clone()
            };
            (name.clone(), shown)
        })
        .collect()
}

/// One line for a request in a list.
fn summary_line(r: &NetworkRequest) -> String {
    let status = match (&r.failure, r.status) {
        (Some(failure), _) => format!("[failed: {failure}]"),
        (None, Some(status)) => format!("[{status}]"),
        (None, None) => "[pending]".to_string(),
    };
    let mut line = format!(
        "reqid={} {} {} {status} ({})",
        r.id, r.method, r.url, r.resource_type
    );
    line.push_str(&navigation_note(r.navigation));
    line
}

/// The lines and structured data of `list_network_requests`.
pub fn listing(
    requests: &[NetworkRequest],
    types: &[String],
    page_size: Option<usize>,
    page_idx: Option<usize>,
) -> (Vec<String>, Map<String, Value>) {
    let wanted: Vec<String> = types.iter().map(|t| t.to_ascii_lowercase()).collect();
    let filtered: Vec<&NetworkRequest> = requests
        .iter()
        .filter(|r| wanted.is_empty() || wanted.contains(&r.resource_type.to_ascii_lowercase()))
        .collect();
    let page = paginate(filtered.len(), page_size, page_idx);
    let mut lines = vec![page.summary.clone()];
    let mut entries = Vec::new();
    for r in &filtered[page.start..page.end] {
        lines.push(summary_line(r));
        entries.push(Listed::new(r));
    }
    let mut data = super::entries(&Keys {
        network_requests: Some(entries),
        ..Keys::default()
    });
    data.extend(super::entries(&lists::Keys {
        pagination: Some(page.pagination()),
        ..lists::Keys::default()
    }));
    (lines, data)
}

/// A body shown inline (if short and text) or written to a file.
pub enum ShownBody {
    /// Short text, shown as it is.
    Inline(String),
    /// Written to this file, this many bytes, with a preview when it was too long to
    /// show (not when the agent asked for the file).
    File(std::path::PathBuf, usize, Option<spill::Preview>),
}

/// Decides how to show a body: `path` if the agent gave one, a temporary file if it is
/// binary or longer than `limit` characters, else inline.
pub fn show_body(
    body: &Body,
    what: &str,
    path: Option<&std::path::Path>,
    limit: usize,
) -> Result<ShownBody, ToolError> {
    let bytes = if body.base64 {
        spill::base64_decode(&body.data)
            .ok_or_else(|| ToolError::new(format!("The {what} body is not valid base64.")))?
    } else {
        body.data.clone().into_bytes()
    };
    if let Some(path) = path {
        spill::write_bytes(path, &bytes)?;
        return Ok(ShownBody::File(path.to_path_buf(), bytes.len(), None));
    }
    if !body.base64 && body.data.chars().count() <= limit {
        return Ok(ShownBody::Inline(body.data.clone()));
    }
    let json = (!body.base64)
        .then(|| serde_json::from_str::<Value>(&body.data).ok())
        .flatten();
    let extension = match (body.base64, &json) {
        (true, _) => "bin",
        (false, Some(_)) => "json",
        (false, None) => "txt",
    };
    let path = spill::to_private_file(&format!("{what}-body"), extension, &bytes)?;
    let preview = (!body.base64).then(|| spill::Preview::of(&body.data, json.as_ref()));
    Ok(ShownBody::File(path, bytes.len(), preview))
}

#[cfg(test)]
pub(super) fn sample() -> serde_json::Map<String, serde_json::Value> {
    let request = NetworkRequest {
        id: 3,
        method: "POST".into(),
        url: "http://x/api".into(),
        resource_type: "fetch".into(),
        status: None,
        status_text: None,
        failure: Some("net::ERR_FAILED".into()),
        mime_type: None,
        started: 0.0,
        duration_ms: Some(1.5),
        navigation: 0,
        request_headers: BTreeMap::new(),
        response_headers: BTreeMap::new(),
        request_body: None,
        response_body: None,
        bodies_unread: Some("gone".into()),
    };
    let mut headers = BTreeMap::new();
    headers.insert("accept".to_string(), "*/*".to_string());
    let mut detail = Detail::new(&request, headers, BTreeMap::new());
    *detail.body(Side::Request) = Some("{}".into());
    *detail.body_file(Side::Response) = Some("/tmp/r.bin".into());
    *detail.body_preview(Side::Response) = Some("…".into());
    super::entries(&Keys {
        network_requests: Some(vec![Listed::new(&request)]),
        network_request: Some(detail),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_and_session_headers_are_sensitive() {
        for h in [
            "Authorization",
            "cookie",
            "Set-Cookie",
            "Proxy-Authorization",
            "X-API-Key",
            "x-csrf-token",
            "X-Auth-Token",
            "x-amz-security-token",
        ] {
            assert!(is_sensitive(h), "{h}");
        }
        for h in ["content-type", "accept", "user-agent", "cache-control"] {
            assert!(!is_sensitive(h), "{h}");
        }
    }

    #[test]
    fn redaction_can_be_turned_off() {
        let mut headers = BTreeMap::new();
        headers.insert("Cookie".to_string(), "sid=1".to_string());
        headers.insert("Accept".to_string(), "*/*".to_string());
        assert_eq!(redact_headers(&headers, true)["Cookie"], REDACTED);
        assert_eq!(redact_headers(&headers, true)["Accept"], "*/*");
        assert_eq!(redact_headers(&headers, false)["Cookie"], "sid=1");
    }

    #[test]
    fn unknown_resource_types_name_the_valid_ones() {
        assert!(check_resource_types(&["Fetch".into(), "xhr".into()]).is_ok());
        let err = check_resource_types(&["ajax".into()]).unwrap_err().message;
        assert!(err.contains("\"ajax\"") && err.contains("fetch"), "{err}");
    }
}
