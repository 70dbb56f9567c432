//! Network: the requests a page made, and one request in full.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};
use tabwire_shared::requests::{self, NetworkRequests};
use tabwire_shared::{NetworkList, NetworkRequest, NETWORK_BYTES_KEPT, NETWORK_REQUESTS_KEPT};

use crate::mcp::context::ToolContext;
use crate::mcp::output::network::{
    check_resource_types, listing, redact_headers, show_body, ShownBody,
};
use crate::mcp::output::network::{Detail, Keys, Side};
use crate::mcp::output::page_text;
use crate::mcp::output::{self};
use crate::mcp::paginate::{fitted_note, fitted_page_size, tell_dropped};
use crate::mcp::response::{Response, Section};
use crate::mcp::tool::{Category, ErasedTool, Registered, Tool, ToolSpec};
use crate::mcp::ToolError;

/// Arguments of `list_network_requests`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListNetworkParams {
    /// Only these resource types (document, stylesheet, image, script, xhr, fetch, ...).
    #[serde(default)]
    resource_types: Vec<String>,
    /// Requests per page (default 50).
    page_size: Option<usize>,
    /// Which page, from 0.
    page_idx: Option<usize>,
    /// Also show requests from the last 2 navigations before the current one.
    #[serde(default)]
    include_preserved_requests: bool,
}

/// `list_network_requests`
pub struct ListNetworkRequests;

impl Tool for ListNetworkRequests {
    type Params = ListNetworkParams;
    const QUEUES_ON_PAGE: bool = false;
    const SPEC: ToolSpec = ToolSpec {
        name: "list_network_requests",
        description: "Lists the network requests of the selected page since tabwire first \
            attached to it, oldest first, with status and resource type. Paginated; \
            get_network_request shows one in full.",
        category: Category::Network,
        read_only: true,
        page_scoped: true,
        blocked_by_dialog: false,
    };

    async fn run(
        &self,
        ctx: &ToolContext,
        p: ListNetworkParams,
        response: &mut Response,
    ) -> Result<(), ToolError> {
        check_resource_types(&p.resource_types)?;
        let requests = ctx
            .request(NetworkRequests {
                tab_id: ctx.page()?,
                include_preserved: p.include_preserved_requests,
            })
            .await?;
        let NetworkList { requests, dropped } = requests;
        let (mut lines, mut data) = listing(&requests, &p.resource_types, p.page_size, p.page_idx);
        let chars = lines.iter().map(|l| l.chars().count() + 1).sum();
        if let Some(size) = fitted_page_size(p.page_size, chars, ctx.result_chars()) {
            (lines, data) = listing(&requests, &p.resource_types, Some(size), p.page_idx);
            lines.push(fitted_note(size));
        }
        let bounds = ("requests", NETWORK_REQUESTS_KEPT, NETWORK_BYTES_KEPT);
        tell_dropped(dropped, bounds, &mut lines, &mut data);
        response.add_section(Section {
            title: "Network requests",
            lines,
            data,
        });
        Ok(())
    }
}

/// Arguments of `get_network_request`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GetNetworkParams {
    /// The request's reqid from list_network_requests.
    reqid: u64,
    /// Save the request body to this file instead of showing it.
    #[serde(default, deserialize_with = "super::absolute_path")]
    request_file_path: Option<PathBuf>,
    /// Save the response body to this file instead of showing it.
    #[serde(default, deserialize_with = "super::absolute_path")]
    response_file_path: Option<PathBuf>,
}

/// `get_network_request`
pub struct GetNetworkRequest;

impl Tool for GetNetworkRequest {
    type Params = GetNetworkParams;
    const QUEUES_ON_PAGE: bool = false;
    const SPEC: ToolSpec = ToolSpec {
        name: "get_network_request",
        description: "Shows one network request in full: method, URL, status, timing, headers \
            (credentials redacted unless tabwire runs with --redactNetworkHeaders=false) and the \
            request and response bodies (large or binary bodies are saved to files).",
        category: Category::Network,
        read_only: true,
        page_scoped: true,
        blocked_by_dialog: false,
    };

    async fn run(
        &self,
        ctx: &ToolContext,
        p: GetNetworkParams,
        response: &mut Response,
    ) -> Result<(), ToolError> {
        let request = ctx
            .request(requests::GetNetworkRequest {
                tab_id: ctx.page()?,
                id: p.reqid,
            })
            .await?;
        let redact = !ctx.settings().show_sensitive_headers;
        let (lines, data) = describe(
            &request,
            redact,
            p.request_file_path.as_deref(),
            p.response_file_path.as_deref(),
            // Two bodies share the reply.
            ctx.result_chars() / 2,
        )?;
        response.add_section(Section {
            title: "Network request",
            lines,
            data,
        });
        Ok(())
    }
}

/// The lines and `structuredContent` entries of one request; a body longer than
/// `body_chars` goes to a file.
pub(crate) fn describe(
    r: &NetworkRequest,
    redact: bool,
    request_path: Option<&std::path::Path>,
    response_path: Option<&std::path::Path>,
    body_chars: usize,
) -> Result<(Vec<String>, Map<String, Value>), ToolError> {
    let mut lines = vec![format!("reqid={} {} {}", r.id, r.method, r.url)];
    let status = match (&r.failure, r.status) {
        (Some(failure), _) => format!("failed: {failure}"),
        (None, Some(status)) => format!("{status} {}", r.status_text.clone().unwrap_or_default())
            .trim_end()
            .to_string(),
        (None, None) => "pending".to_string(),
    };
    lines.push(format!("Status: {status}"));
    lines.push(format!("Resource type: {}", r.resource_type));
    if let Some(mime) = &r.mime_type {
        lines.push(format!("MIME type: {mime}"));
    }
    if let Some(ms) = r.duration_ms {
        lines.push(format!("Duration: {ms:.1} ms"));
    }
    let request_headers = redact_headers(&r.request_headers, redact);
    let response_headers = redact_headers(&r.response_headers, redact);
    for (title, headers) in [
        ("Request headers", &request_headers),
        ("Response headers", &response_headers),
    ] {
        if !headers.is_empty() {
            lines.push(format!("{title}:"));
            for (name, value) in headers {
                lines.push(format!("  {}: {value}", page_text::line_start(name)));
            }
        }
    }
    let mut data = Detail::new(r, request_headers.clone(), response_headers.clone());
    for (side, body, path) in [
        (Side::Request, &r.request_body, request_path),
        (Side::Response, &r.response_body, response_path),
    ] {
        let what = side.word();
        let Some(body) = body else {
            // Said, not failed: the other body may still be saved, and the rest shown.
            if let Some(path) = path {
                lines.push(format!(
                    "Nothing saved to {}: request {} has no {what} body (there was none, or \
                     the browser no longer has it).",
                    path.display(),
                    r.id
                ));
            }
            continue;
        };
        let label = side.label();
        let truncated = if body.truncated {
            " (truncated by the browser at 10 MiB)"
        } else {
            ""
        };
        match show_body(body, what, path, body_chars)? {
            ShownBody::Inline(text) => {
                lines.push(format!("{label}{truncated}:"));
                lines.extend(page_text::fenced("text", &text));
                *data.body(side) = Some(text);
            }
            ShownBody::File(path, bytes, preview) => {
                lines.push(format!(
                    "{label}{truncated}: {bytes} bytes saved to {}",
                    path.display()
                ));
                *data.body_file(side) = Some(path.clone());
                if let Some(preview) = preview {
                    lines.push(preview.about);
                    lines.extend(preview.begins);
                    *data.body_preview(side) = Some(preview.data);
                }
            }
        }
    }
    if let Some(why) = &r.bodies_unread {
        lines.push(why.clone());
    }
    let data = output::entries(&Keys {
        network_request: Some(data),
        ..Keys::default()
    });
    Ok((lines, data))
}

/// This group's tools, for the registry.
pub fn tools() -> Vec<Box<dyn ErasedTool>> {
    vec![
        Box::new(Registered::new(ListNetworkRequests)),
        Box::new(Registered::new(GetNetworkRequest)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabwire_shared::devtools::Body;

    #[test]
    fn a_body_that_is_not_there_is_said_and_the_other_is_still_saved() {
        let request = NetworkRequest {
            id: 7,
            method: "GET".into(),
            url: "http://127.0.0.1/a".into(),
            resource_type: "fetch".into(),
            status: Some(200),
            status_text: None,
            failure: None,
            mime_type: Some("text/plain".into()),
            started: 0.0,
            duration_ms: None,
            navigation: 0,
            request_headers: Default::default(),
            response_headers: Default::default(),
            request_body: None,
            response_body: Some(Body {
                data: "hello".into(),
                base64: false,
                truncated: false,
            }),
            bodies_unread: None,
        };
        let dir = tempfile::tempdir().unwrap();
        let (request_file, response_file) = (dir.path().join("q.txt"), dir.path().join("r.txt"));
        let (lines, _) = describe(
            &request,
            true,
            Some(&request_file),
            Some(&response_file),
            10_000,
        )
        .unwrap();
        let text = lines.join("\n");
        assert!(
            text.contains("Nothing saved to") && text.contains("has no request body"),
            "{text}"
        );
        assert!(!request_file.exists());
        assert_eq!(std::fs::read_to_string(&response_file).unwrap(), "hello");
    }
}
