//! Document latency: how long the main document's request took, to its first byte
//! and to its end (DevTools' `DocumentLatency`).

use serde::Serialize;
use serde_json::{json, Value};

use super::Insight;
use crate::load::LoadContext;
use crate::text::format::duration;
use crate::InsightSet;

/// The main document's request.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DocumentLatency {
    /// Its URL.
    pub url: String,
    /// From the navigation to the first byte of the response, ms.
    pub ttfb_ms: f64,
    /// From sending the request to the response starting, ms (server time).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_ms: Option<f64>,
    /// From the navigation to the end of the document's download, ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loaded_ms: Option<f64>,
}

/// The DocumentLatency insight: how long the main document's request took (a page
/// load only).
pub struct DocumentLatencyInsight;

impl Insight for DocumentLatencyInsight {
    const NAME: &'static str = "DocumentLatency";
    const ABOUT: &'static str = "";
    type Data = Option<DocumentLatency>;

    fn compute(load: &LoadContext) -> Option<DocumentLatency> {
        let (nav, document) = (load.nav?, load.document?);
        let first_byte = document.first_byte?;
        Some(DocumentLatency {
            url: document.url.clone(),
            ttfb_ms: (first_byte - nav.ts) / 1e3,
            server_ms: document.server_ms,
            loaded_ms: document.finish.map(|f| (f - nav.ts) / 1e3),
        })
    }

    fn summary(set: &InsightSet) -> Vec<String> {
        let Some(doc) = &set.document else {
            return Vec::new();
        };
        let mut line = format!(
            "- DocumentLatency: first byte after {}",
            duration(doc.ttfb_ms)
        );
        if let Some(server) = doc.server_ms {
            line += &format!(" ({} of it server time)", duration(server));
        }
        line += ".";
        vec![line]
    }

    fn details(set: &InsightSet, lines: &mut Vec<String>) -> Value {
        match &set.document {
            None => lines.push("The document's request is not in the trace.".into()),
            Some(d) => {
                lines.push(format!("Document: {}.", d.url));
                lines.push(format!("- Time to first byte: {}", duration(d.ttfb_ms)));
                if let Some(s) = d.server_ms {
                    lines.push(format!("- Server response time: {}", duration(s)));
                }
                if let Some(l) = d.loaded_ms {
                    lines.push(format!("- Downloaded after: {}", duration(l)));
                }
            }
        }
        json!(set.document)
    }
}
