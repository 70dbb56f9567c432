//! Emulation: devices, networks, CPU, preferences, location; and the page size.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use tabwire_shared::requests;
use tabwire_shared::{Change, EmulationChanges, Geolocation, NetworkConditions, Viewport};

use crate::mcp::context::ToolContext;
use crate::mcp::response::{describe_emulation, Response};
use crate::mcp::tool::{Category, ErasedTool, Registered, Tool, ToolSpec};
use crate::mcp::ToolError;

/// Arguments of `emulate`. Each argument left out keeps its current setting.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EmulateParams {
    /// Network throttling: "Offline", "Slow 3G", "Fast 3G", "Slow 4G", "Fast 4G", or
    /// "No emulation" to stop.
    network_conditions: Option<String>,
    /// CPU slowdown factor from 1 to 20; 1 stops throttling.
    cpu_throttling_rate: Option<f64>,
    /// Viewport as "WIDTHxHEIGHTxDPR[,mobile][,touch][,landscape]", e.g.
    /// "375x812x3,mobile,touch"; null to stop.
    #[schemars(with = "Option<String>")]
    #[serde(default, deserialize_with = "present")]
    viewport: Option<Value>,
    /// User-Agent string; null or "" to stop.
    #[schemars(with = "Option<String>")]
    #[serde(default, deserialize_with = "present")]
    user_agent: Option<Value>,
    /// prefers-color-scheme: "dark", "light", or "auto" to stop.
    color_scheme: Option<String>,
    /// prefers-reduced-motion: "reduce", "no-preference", or "auto" to stop.
    prefers_reduced_motion: Option<String>,
    /// prefers-contrast: "more", "less", "custom", "no-preference", or "auto" to stop.
    prefers_contrast: Option<String>,
    /// forced-colors: "active", "none", or "auto" to stop.
    forced_colors: Option<String>,
    /// Position as {"latitude": …, "longitude": …, "accuracy"?: metres} or as
    /// "latitude,longitude"; null or "" to stop.
    #[schemars(with = "Option<PlaceParam>")]
    #[serde(default, deserialize_with = "present")]
    geolocation: Option<Value>,
    /// Headers added to every request, as {"name": "value"} (or that object as JSON
    /// text); null, {} or "" to stop.
    #[schemars(with = "Option<HeadersParam>")]
    #[serde(default, deserialize_with = "present")]
    extra_http_headers: Option<Value>,
}

/// Reads a field that is present as `Some`, even when it is `null` (which here means
/// "stop emulating"), leaving an absent field `None` ("keep as it is").
fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

/// The forms `geolocation` takes, for its schema.
#[derive(JsonSchema)]
#[schemars(untagged)]
#[allow(dead_code)]
enum PlaceParam {
    /// An object.
    Place(GeolocationParam),
    /// "latitude,longitude".
    Text(String),
}

/// The forms `extraHttpHeaders` takes, for its schema.
#[derive(JsonSchema)]
#[schemars(untagged)]
#[allow(dead_code)]
enum HeadersParam {
    /// {"name": "value"}.
    Headers(BTreeMap<String, String>),
    /// The same object as JSON text.
    Text(String),
}

/// A position, as agents give it.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GeolocationParam {
    /// Degrees, -90 to 90.
    latitude: f64,
    /// Degrees, -180 to 180.
    longitude: f64,
    /// Accuracy in metres (default 100).
    accuracy: Option<f64>,
}

/// `emulate`
pub struct Emulate;

impl Tool for Emulate {
    type Params = EmulateParams;
    const SPEC: ToolSpec = ToolSpec {
        name: "emulate",
        description: "Emulates network conditions, CPU slowdown, a device viewport, a user agent, \
            a color scheme and other CSS media features (reduced motion, contrast, forced \
            colors), a geolocation or extra request headers on the selected page. \
            Arguments left out keep their setting; each can be cleared. Every response shows \
            what the page emulates until it is cleared.",
        category: Category::Emulation,
        read_only: false,
        page_scoped: true,
        blocked_by_dialog: false,
    };

    async fn run(
        &self,
        ctx: &ToolContext,
        p: EmulateParams,
        response: &mut Response,
    ) -> Result<(), ToolError> {
        let changes = changes(p)?;
        if changes == EmulationChanges::default() {
            return Err(ToolError::new(
                "Nothing to emulate: give at least one of networkConditions, cpuThrottlingRate, \
                 viewport, userAgent, colorScheme, prefersReducedMotion, prefersContrast, \
                 forcedColors, geolocation, extraHttpHeaders.",
            ));
        }
        let tab_id = ctx.page()?;
        let emulation = ctx.request(requests::Emulate { tab_id, changes }).await?;
        if emulation.is_empty() {
            response.line(format!("Page {tab_id} emulates nothing now."));
        } else {
            response.line(format!(
                "Page {tab_id} now emulates: {}.",
                describe_emulation(&emulation).join("; ")
            ));
        }
        ctx.set_emulation(tab_id, emulation);
        Ok(())
    }
}

/// Turns the agent's arguments into changes, checking each.
fn changes(p: EmulateParams) -> Result<EmulationChanges, ToolError> {
    let mut c = EmulationChanges::default();
    if let Some(name) = p.network_conditions {
        c.network = Some(if name == "No emulation" {
            Change::Clear
        } else {
            Change::Set(NetworkConditions::preset(&name).ok_or_else(|| {
                ToolError::new(format!(
                    "Unknown networkConditions {name:?}. Use one of: {}, or \"No emulation\".",
                    NetworkConditions::PRESETS.join(", ")
                ))
            })?)
        });
    }
    if let Some(rate) = p.cpu_throttling_rate {
        if !(1.0..=20.0).contains(&rate) {
            return Err(ToolError::new(
                "cpuThrottlingRate must be between 1 and 20 (1 stops throttling).",
            ));
        }
        c.cpu_throttling_rate = Some(if rate == 1.0 {
            Change::Clear
        } else {
            Change::Set(rate)
        });
    }
    if let Some(value) = p.viewport {
        c.viewport = Some(match value {
            Value::Null => Change::Clear,
            Value::String(text) => Change::Set(parse_viewport(&text)?),
            other => {
                return Err(ToolError::new(format!(
                "viewport must be a string like \"375x812x3,mobile,touch\" or null, not {other}."
            )))
            }
        });
    }
    if let Some(value) = p.user_agent {
        c.user_agent = Some(match value {
            Value::Null => Change::Clear,
            Value::String(text) if text.is_empty() => Change::Clear,
            Value::String(text) => Change::Set(text),
            other => {
                return Err(ToolError::new(format!(
                    "userAgent must be a string or null, not {other}."
                )))
            }
        });
    }
    if let Some(scheme) = p.color_scheme {
        c.color_scheme = Some(match scheme.as_str() {
            "auto" => Change::Clear,
            "dark" | "light" => Change::Set(scheme),
            other => {
                return Err(ToolError::new(format!(
                    "Unknown colorScheme {other:?}: use dark, light or auto."
                )))
            }
        });
    }
    for (argument, feature, given, values) in [
        (
            "prefersReducedMotion",
            "prefers-reduced-motion",
            p.prefers_reduced_motion,
            &["reduce", "no-preference"][..],
        ),
        (
            "prefersContrast",
            "prefers-contrast",
            p.prefers_contrast,
            &["more", "less", "custom", "no-preference"][..],
        ),
        (
            "forcedColors",
            "forced-colors",
            p.forced_colors,
            &["active", "none"][..],
        ),
    ] {
        let Some(value) = given else { continue };
        let change = match value.as_str() {
            "auto" => Change::Clear,
            known if values.contains(&known) => Change::Set(value),
            other => {
                return Err(ToolError::new(format!(
                    "Unknown {argument} {other:?}: use {}, or auto to stop.",
                    values.join(", ")
                )))
            }
        };
        c.media.insert(feature.to_owned(), change);
    }
    if let Some(value) = p.geolocation {
        c.geolocation = Some(match value {
            Value::Null => Change::Clear,
            Value::String(text) if text.is_empty() => Change::Clear,
            // "latitude,longitude", as Chrome DevTools for Agents takes it.
            Value::String(text) => {
                let parsed = text.split_once(',').and_then(|(lat, lon)| {
                    Some((lat.trim().parse().ok()?, lon.trim().parse().ok()?))
                });
                let Some((latitude, longitude)) = parsed else {
                    return Err(ToolError::new(format!(
                        "geolocation {text:?} is not \"latitude,longitude\": give it as \
                         {{\"latitude\": …, \"longitude\": …}} or \"37.42,-122.08\"."
                    )));
                };
                checked_place(latitude, longitude, 100.0)?
            }
            other => {
                let g: GeolocationParam = serde_json::from_value(other).map_err(|e| {
                    ToolError::new(format!(
                        "geolocation must be {{\"latitude\": …, \"longitude\": …}} or null: {e}"
                    ))
                })?;
                checked_place(g.latitude, g.longitude, g.accuracy.unwrap_or(100.0))?
            }
        });
    }
    if let Some(value) = p.extra_http_headers {
        let headers: BTreeMap<String, String> = match value {
            Value::Null => BTreeMap::new(),
            // The headers as JSON text, as Chrome DevTools for Agents takes them.
            Value::String(text) if text.trim().is_empty() => BTreeMap::new(),
            Value::String(text) => serde_json::from_str(&text).map_err(|e| {
                ToolError::new(format!("extraHttpHeaders {text:?} is not a JSON object of strings, like {{\"X-Test\": \"1\"}}: {e}"))
            })?,
            other => serde_json::from_value(other).map_err(|e| {
                ToolError::new(format!("extraHttpHeaders must be an object of strings, like {{\"X-Test\": \"1\"}}: {e}"))
            })?,
        };
        c.extra_http_headers = Some(match headers.is_empty() {
            true => Change::Clear,
            false => Change::Set(headers),
        });
    }
    Ok(c)
}

/// A position to emulate, once its degrees are checked.
fn checked_place(
    latitude: f64,
    longitude: f64,
    accuracy: f64,
) -> Result<Change<Geolocation>, ToolError> {
    if !(-90.0..=90.0).contains(&latitude) || !(-180.0..=180.0).contains(&longitude) {
        return Err(ToolError::new(
            "latitude must be within -90..90 and longitude within -180..180.",
        ));
    }
    Ok(Change::Set(Geolocation {
        latitude,
        longitude,
        accuracy,
    }))
}

/// Parses "WIDTHxHEIGHT[xDPR][,mobile][,touch][,landscape]".
pub fn parse_viewport(text: &str) -> Result<Viewport, ToolError> {
    let bad = || {
        ToolError::new(format!(
            "Cannot read viewport {text:?}: use WIDTHxHEIGHTxDPR with optional ,mobile ,touch ,landscape, e.g. \"375x812x3,mobile,touch\"."
        ))
    };
    let mut parts = text.split(',').map(str::trim);
    let size = parts.next().ok_or_else(bad)?;
    let numbers: Vec<&str> = size.split('x').collect();
    if !(2..=3).contains(&numbers.len()) {
        return Err(bad());
    }
    let width: u32 = numbers[0].parse().map_err(|_| bad())?;
    let height: u32 = numbers[1].parse().map_err(|_| bad())?;
    let dpr: f64 = match numbers.get(2) {
        Some(d) => d.parse().map_err(|_| bad())?,
        None => 1.0,
    };
    if !(1..=10_000).contains(&width)
        || !(1..=10_000).contains(&height)
        || !(0.1..=10.0).contains(&dpr)
    {
        return Err(bad());
    }
    let mut viewport = Viewport {
        width,
        height,
        device_scale_factor: dpr,
        mobile: false,
        touch: false,
        landscape: false,
    };
    for flag in parts {
        match flag {
            "mobile" => viewport.mobile = true,
            "touch" => viewport.touch = true,
            "landscape" => viewport.landscape = true,
            _ => return Err(bad()),
        }
    }
    Ok(viewport)
}

/// Arguments of `resize_page`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ResizePageParams {
    /// The page's new width, in CSS pixels.
    width: u32,
    /// The page's new height, in CSS pixels.
    height: u32,
}

/// `resize_page`
pub struct ResizePage;

impl Tool for ResizePage {
    type Params = ResizePageParams;
    const SPEC: ToolSpec = ToolSpec {
        name: "resize_page",
        description: "Resizes the selected page's window so the page gets the given size.",
        category: Category::Emulation,
        read_only: false,
        page_scoped: true,
        blocked_by_dialog: false,
    };

    async fn run(
        &self,
        ctx: &ToolContext,
        p: ResizePageParams,
        response: &mut Response,
    ) -> Result<(), ToolError> {
        if !(100..=10_000).contains(&p.width) || !(100..=10_000).contains(&p.height) {
            return Err(ToolError::new(
                "width and height must be between 100 and 10000 pixels.",
            ));
        }
        ctx.request(requests::ResizePage {
            tab_id: ctx.page()?,
            width: p.width,
            height: p.height,
        })
        .await?;
        response.line(format!("Resized the page to {}x{}.", p.width, p.height));
        Ok(())
    }
}

/// This group's tools, for the registry.
pub fn tools() -> Vec<Box<dyn ErasedTool>> {
    vec![
        Box::new(Registered::new(Emulate)),
        Box::new(Registered::new(ResizePage)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn viewports_parse_with_traits() {
        let v = parse_viewport("375x812x3,mobile,touch").unwrap();
        assert_eq!(
            (
                v.width,
                v.height,
                v.device_scale_factor,
                v.mobile,
                v.touch,
                v.landscape
            ),
            (375, 812, 3.0, true, true, false)
        );
        assert_eq!(parse_viewport("800x600").unwrap().device_scale_factor, 1.0);
        for bad in ["", "800", "0x600", "800x600x0", "800x600,tablet", "axb"] {
            assert!(parse_viewport(bad).is_err(), "{bad}");
        }
    }

    fn changes_of(args: Value) -> Result<EmulationChanges, ToolError> {
        changes(serde_json::from_value(args).unwrap())
    }

    #[test]
    fn the_references_text_forms_and_media_features_are_read() {
        let c = changes_of(serde_json::json!({
            "geolocation": "37.42,-122.08",
            "extraHttpHeaders": "{\"X-A\":\"1\"}",
            "prefersReducedMotion": "reduce",
            "forcedColors": "auto",
        }))
        .unwrap();
        assert!(
            matches!(c.geolocation, Some(Change::Set(g)) if g.latitude == 37.42 && g.longitude == -122.08)
        );
        assert!(matches!(&c.extra_http_headers, Some(Change::Set(h)) if h["X-A"] == "1"));
        assert_eq!(
            c.media["prefers-reduced-motion"],
            Change::Set("reduce".into())
        );
        assert_eq!(c.media["forced-colors"], Change::Clear);
        let cleared =
            changes_of(serde_json::json!({"geolocation": "", "extraHttpHeaders": ""})).unwrap();
        assert_eq!(cleared.geolocation, Some(Change::Clear));
        assert_eq!(cleared.extra_http_headers, Some(Change::Clear));
        for bad in [
            serde_json::json!({"geolocation": "north"}),
            serde_json::json!({"geolocation": "91,0"}),
            serde_json::json!({"extraHttpHeaders": "[1]"}),
            serde_json::json!({"prefersContrast": "high"}),
        ] {
            assert!(changes_of(bad.clone()).is_err(), "{bad}");
        }
        let schema = crate::mcp::schema::input_schema::<EmulateParams>(true);
        let geolocation = &schema["properties"]["geolocation"];
        assert!(
            geolocation.to_string().contains("\"string\""),
            "{geolocation}"
        );
    }
}
