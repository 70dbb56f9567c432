//! Emulation: device metrics, touch, CPU, user agent, media features, geolocation,
//! and the network conditions and extra headers of the `Network` domain.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{command, Empty};

/// `Network.emulateNetworkConditions`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NetworkEmulateNetworkConditions {
    /// No network at all.
    pub offline: bool,
    /// Added latency, ms.
    pub latency: f64,
    /// Bytes/s, -1 for no limit.
    pub download_throughput: f64,
    /// Bytes/s, -1 for no limit.
    pub upload_throughput: f64,
}
command!(
    NetworkEmulateNetworkConditions,
    "Network.emulateNetworkConditions",
    Empty
);

/// `Network.setExtraHTTPHeaders`.
#[derive(Debug, Serialize)]
pub struct NetworkSetExtraHttpHeaders {
    /// The headers (empty: none).
    pub headers: BTreeMap<String, String>,
}
command!(
    NetworkSetExtraHttpHeaders,
    "Network.setExtraHTTPHeaders",
    Empty
);

/// `Emulation.setCPUThrottlingRate`.
#[derive(Debug, Serialize)]
pub struct EmulationSetCpuThrottlingRate {
    /// Slowdown factor, 1 = none.
    pub rate: f64,
}
command!(
    EmulationSetCpuThrottlingRate,
    "Emulation.setCPUThrottlingRate",
    Empty
);

/// `Emulation.setDeviceMetricsOverride`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EmulationSetDeviceMetricsOverride {
    /// Viewport width, CSS pixels.
    pub width: u32,
    /// Viewport height, CSS pixels.
    pub height: u32,
    /// Device pixel ratio (0 = the real one).
    pub device_scale_factor: f64,
    /// Mobile viewport behaviour.
    pub mobile: bool,
    /// The screen's orientation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub screen_orientation: Option<ScreenOrientation>,
}
command!(
    EmulationSetDeviceMetricsOverride,
    "Emulation.setDeviceMetricsOverride",
    Empty
);

/// A screen orientation.
#[derive(Debug, Serialize)]
pub struct ScreenOrientation {
    /// `portraitPrimary` or `landscapePrimary`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// 0 or 90.
    pub angle: u32,
}

/// `Emulation.clearDeviceMetricsOverride`.
#[derive(Debug, Serialize)]
pub struct EmulationClearDeviceMetricsOverride {}
command!(
    EmulationClearDeviceMetricsOverride,
    "Emulation.clearDeviceMetricsOverride",
    Empty
);

/// `Emulation.setTouchEmulationEnabled`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EmulationSetTouchEmulationEnabled {
    /// On or off.
    pub enabled: bool,
    /// Touch points reported (when on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_touch_points: Option<u32>,
}
command!(
    EmulationSetTouchEmulationEnabled,
    "Emulation.setTouchEmulationEnabled",
    Empty
);

/// `Emulation.setFocusEmulationEnabled`: the page acts as if focused, and Chrome keeps
/// the tab visible (it draws frames) even when it is not in front, until turned off or
/// the debugger leaves.
#[derive(Debug, Serialize)]
pub struct EmulationSetFocusEmulationEnabled {
    /// On or off.
    pub enabled: bool,
}
command!(
    EmulationSetFocusEmulationEnabled,
    "Emulation.setFocusEmulationEnabled",
    Empty
);

/// `Emulation.setUserAgentOverride` (also sets `navigator.userAgent`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EmulationSetUserAgentOverride {
    /// The User-Agent (empty: the browser's own).
    pub user_agent: String,
}
command!(
    EmulationSetUserAgentOverride,
    "Emulation.setUserAgentOverride",
    Empty
);

/// `Emulation.setEmulatedMedia`.
#[derive(Debug, Serialize)]
pub struct EmulationSetEmulatedMedia {
    /// Media features (an empty value: the real one).
    pub features: Vec<MediaFeature>,
}
command!(
    EmulationSetEmulatedMedia,
    "Emulation.setEmulatedMedia",
    Empty
);

/// One media feature.
#[derive(Debug, Serialize)]
pub struct MediaFeature {
    /// e.g. `prefers-color-scheme`.
    pub name: String,
    /// e.g. `dark`.
    pub value: String,
}

/// `Emulation.setGeolocationOverride`.
#[derive(Debug, Serialize)]
pub struct EmulationSetGeolocationOverride {
    /// Degrees.
    pub latitude: f64,
    /// Degrees.
    pub longitude: f64,
    /// Metres.
    pub accuracy: f64,
}
command!(
    EmulationSetGeolocationOverride,
    "Emulation.setGeolocationOverride",
    Empty
);

/// `Emulation.clearGeolocationOverride`.
#[derive(Debug, Serialize)]
pub struct EmulationClearGeolocationOverride {}
command!(
    EmulationClearGeolocationOverride,
    "Emulation.clearGeolocationOverride",
    Empty
);
