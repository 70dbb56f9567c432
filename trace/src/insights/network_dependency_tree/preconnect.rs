//! Preconnected origins: the origins a page asked the browser to connect to early.
//!
//! As DevTools' engine lists them (in its `NetworkDependencyTree` insight): each
//! `LinkPreconnect` event of the trace (a `<link rel=preconnect>`) and each
//! `rel=preconnect` entry of the document's `Link:` response header, marked unused when
//! no request of the load went to that origin. DevTools also says whether a hint lacks
//! the `crossorigin` its requests needed, from the origins its simulated LCP would gain
//! from; tabwire does not simulate the load, so it leaves that out.

use std::collections::HashSet;

use serde::Serialize;

use crate::insights::network_dependency_tree::done;
use crate::load::events::Event;
use crate::load::network::{header, Request};
use crate::load::Navigation;

/// An origin the page preconnected to.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Preconnected {
    /// The URL the hint named.
    pub url: String,
    /// Where the hint was: `DOM` (a `<link>`) or `ResponseHeader` (a `Link:` header).
    pub source: String,
    /// The header's text (a `Link:` header).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub header_text: Option<String>,
    /// Whether no request of the load went to that origin.
    pub unused: bool,
}

/// The origin of a URL: `scheme://host[:port]` (none for a URL without one, such as
/// `about:blank` or `data:`).
pub fn origin(url: &str) -> Option<String> {
    let origin = url::Url::parse(url).ok()?.origin();
    origin.is_tuple().then(|| origin.ascii_serialization())
}

/// The origins the page preconnected to during the load `nav`, the `<link>`s first.
pub fn preconnected(events: &[Event], requests: &[Request], nav: &Navigation) -> Vec<Preconnected> {
    let (from, until) = (nav.ts, nav.until);
    let used: HashSet<String> = requests
        .iter()
        .filter(|r| r.start <= until && from < done(r))
        .filter_map(|r| origin(&r.url))
        .collect();
    let unused = |url: &str| origin(url).is_none_or(|o| !used.contains(&o));
    let mut found: Vec<Preconnected> = events
        .iter()
        .filter(|e| e.name == "LinkPreconnect")
        .map(|e| {
            let url = e.data_str("url");
            Preconnected {
                url: url.to_owned(),
                source: "DOM".to_owned(),
                header_text: None,
                unused: unused(url),
            }
        })
        .collect();
    let document = requests.iter().find(|r| r.id == nav.id);
    let headers = document
        .and_then(|d| d.response.as_ref())
        .and_then(|r| r.headers.as_deref());
    if let Some(links) = headers.and_then(|h| header(h, "link")) {
        for (url, text) in preconnect_links(&links) {
            found.push(Preconnected {
                unused: unused(&url),
                url,
                source: "ResponseHeader".to_owned(),
                header_text: Some(text),
            });
        }
    }
    found
}

/// The `rel=preconnect` entries of a `Link:` header: each one's URL and text.
pub fn preconnect_links(value: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut rest = value;
    while let Some(close) = rest.find('>') {
        let end = rest[close..].find(',').map_or(rest.len(), |c| close + c);
        let part = rest[..end].trim();
        rest = rest.get(end + 1..).unwrap_or_default();
        let Some(inner) = part.strip_prefix('<') else {
            continue;
        };
        let Some((url, params)) = inner.split_once('>') else {
            continue;
        };
        let url = url.trim();
        let preconnect = params.split(';').any(|param| {
            param.split_once('=').is_some_and(|(name, value)| {
                name.trim().eq_ignore_ascii_case("rel")
                    && value.trim().trim_matches('"') == "preconnect"
            })
        });
        if preconnect && !url.is_empty() {
            found.push((url.to_owned(), part.to_owned()));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::{origin, preconnect_links};

    #[test]
    fn link_headers_name_their_preconnected_origins() {
        let found = preconnect_links(
            "</a.css>; rel=preload; as=style, <https://cdn.test>; rel=\"preconnect\", \
             <https://x.test>;rel=preconnect;crossorigin",
        );
        let urls: Vec<&str> = found.iter().map(|(u, _)| u.as_str()).collect();
        assert_eq!(urls, ["https://cdn.test", "https://x.test"]);
        assert_eq!(found[1].1, "<https://x.test>;rel=preconnect;crossorigin");
    }

    #[test]
    fn an_origin_is_the_scheme_host_and_port() {
        assert_eq!(
            origin("HTTPS://a.test:8443/x?y#z").as_deref(),
            Some("https://a.test:8443")
        );
        assert_eq!(
            origin("https://user@a.test/").as_deref(),
            Some("https://a.test")
        );
        assert_eq!(origin("about:blank"), None);
    }
}
