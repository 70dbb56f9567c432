//! Network requests: a page of the list, and one request in full with its sensitive
//! headers redacted and its bodies shown or saved.

use std::collections::BTreeMap;
use std::path::PathBuf;

use schemars::JsonSchema;
use serde::Serialize;
use tabwire_shared::NetworkRequest;

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

impl<'a> Detail<'a> {
    /// The `request` or `response` body shown whole.
    pub fn body(&mut self, what: &str) -> &mut Option<String> {
        match what {
            "request" => &mut self.request_body,
            _ => &mut self.response_body,
        }
    }

    /// The file the `request` or `response` body was saved to.
    pub fn body_file(&mut self, what: &str) -> &mut Option<PathBuf> {
        match what {
            "request" => &mut self.request_body_file,
            _ => &mut self.response_body_file,
        }
    }

    /// How the saved `request` or `response` body begins.
    pub fn body_preview(&mut self, what: &str) -> &mut Option<String> {
        match what {
            "request" => &mut self.request_body_preview,
            _ => &mut self.response_body_preview,
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
    detail.request_body = Some("{}".into());
    detail.response_body_file = Some("/tmp/r.bin".into());
    detail.response_body_preview = Some("…".into());
    super::entries(&Keys {
        network_requests: Some(vec![Listed::new(&request)]),
        network_request: Some(detail),
    })
}
