//! What a page emulates (network, CPU, viewport, user agent, …), in words and as
//! `structuredContent` ([`Keys`]), said with every reply about the page so that a slow
//! or narrow page is not mistaken for the real one.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};
use tabwire_shared::{Emulation, TabId};

use crate::mcp::response::Section;

/// The `structuredContent` key of the emulation section.
#[derive(Debug, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Keys<'a> {
    /// What the page emulates.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Map<String, Value>>")]
    pub emulation: Option<&'a Emulation>,
}

/// The emulation section of a reply about `page`: what it emulates, in words and as
/// data.
pub fn section(page: TabId, emulation: &Emulation) -> Section {
    Section {
        title: "Emulation",
        lines: vec![format!(
            "Page {page} emulates: {}. Call emulate to change or clear it.",
            describe_emulation(emulation).join("; ")
        )],
        data: super::entries(&Keys {
            emulation: Some(emulation),
        }),
    }
}

/// Emulated settings in words, for the agent.
pub fn describe_emulation(e: &Emulation) -> Vec<String> {
    let mut parts = Vec::new();
    if let Some(n) = &e.network {
        parts.push(format!("network {}", n.name));
    }
    if let Some(rate) = e.cpu_throttling_rate {
        parts.push(format!("CPU {rate}× slower"));
    }
    if let Some(v) = &e.viewport {
        let mut traits = String::new();
        for (on, name) in [
            (v.mobile, ",mobile"),
            (v.touch, ",touch"),
            (v.landscape, ",landscape"),
        ] {
            if on {
                traits.push_str(name);
            }
        }
        parts.push(format!(
            "viewport {}x{}x{}{traits}",
            v.width, v.height, v.device_scale_factor
        ));
    }
    if let Some(ua) = &e.user_agent {
        parts.push(format!("user agent {ua:?}"));
    }
    if let Some(scheme) = &e.color_scheme {
        parts.push(format!("color scheme {scheme}"));
    }
    for (feature, value) in &e.media {
        parts.push(format!("{feature}: {value}"));
    }
    if let Some(g) = &e.geolocation {
        parts.push(format!("geolocation {},{}", g.latitude, g.longitude));
    }
    if let Some(headers) = &e.extra_http_headers {
        let names: Vec<&str> = headers.keys().map(String::as_str).collect();
        parts.push(format!("extra HTTP headers {}", names.join(", ")));
    }
    parts
}

#[cfg(test)]
pub(super) fn sample() -> Map<String, Value> {
    let emulation = Emulation {
        cpu_throttling_rate: Some(4.0),
        user_agent: Some("UA".into()),
        ..Default::default()
    };
    super::entries(&Keys {
        emulation: Some(&emulation),
    })
}
