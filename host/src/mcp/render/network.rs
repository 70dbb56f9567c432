//! Network requests as the agent reads them: filtered lists, and one request in full
//! with its sensitive headers redacted — these are the user's real, logged-in sessions.

use std::collections::BTreeMap;

use serde_json::{Map, Value};
use tabwire_shared::{Body, NetworkRequest};

use crate::mcp::filters::{check_names, navigation_note};
use crate::mcp::output::{self, lists, network::Keys, network::Listed};
use crate::mcp::paginate::paginate;
use crate::mcp::spill;
use crate::mcp::ToolError;

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
    let mut data = output::entries(&Keys {
        network_requests: Some(entries),
        ..Keys::default()
    });
    data.extend(output::entries(&lists::Keys {
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
