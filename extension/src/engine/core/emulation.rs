//! What a tab emulates, applied in its session: the CDP commands for a change, with
//! the record of what is then in force (the `Emulate` command's work, in
//! `super::super::emulation`), and all of it again when the debugger re-attaches
//! (`super::session`), since Chrome forgets every override with the session.

use tabwire_shared::{Change, Emulation, EmulationChanges, NetworkConditions, TabId, Viewport};

use super::context::Cx;
use crate::cdp::emulation::{
    EmulationClearDeviceMetricsOverride, EmulationClearGeolocationOverride,
    EmulationSetCpuThrottlingRate, EmulationSetDeviceMetricsOverride, EmulationSetEmulatedMedia,
    EmulationSetGeolocationOverride, EmulationSetTouchEmulationEnabled,
    EmulationSetUserAgentOverride, MediaFeature, NetworkEmulateNetworkConditions,
    NetworkSetExtraHttpHeaders, ScreenOrientation,
};
use crate::chrome::Chrome;
use crate::error::EngineError;

/// Sends the commands for `changes` and records the outcome.
pub(in crate::engine) async fn apply_changes<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    changes: &EmulationChanges,
) -> Result<Emulation, EngineError> {
    let mut now = cx.emulation(tab);
    if let Some(change) = &changes.network {
        let value = set_value(change);
        apply_network(cx, tab, value.as_ref()).await?;
        now.network = value;
    }
    if let Some(change) = &changes.cpu_throttling_rate {
        let value = set_value(change);
        apply_cpu(cx, tab, value).await?;
        now.cpu_throttling_rate = value;
    }
    if let Some(change) = &changes.viewport {
        let value = set_value(change);
        apply_viewport(cx, tab, value.as_ref()).await?;
        now.viewport = value;
    }
    if let Some(change) = &changes.user_agent {
        let value = set_value(change);
        apply_user_agent(cx, tab, value.as_deref()).await?;
        now.user_agent = value;
    }
    if changes.color_scheme.is_some() || !changes.media.is_empty() {
        if let Some(change) = &changes.color_scheme {
            now.color_scheme = set_value(change);
        }
        for (name, change) in &changes.media {
            match set_value(change) {
                Some(value) => now.media.insert(name.clone(), value),
                None => now.media.remove(name),
            };
        }
        let cleared = changes.media.keys().map(String::as_str);
        apply_media(cx, tab, &now, cleared).await?;
    }
    if let Some(change) = &changes.geolocation {
        let value = set_value(change);
        match &value {
            Some(place) => {
                let set = EmulationSetGeolocationOverride {
                    latitude: place.latitude,
                    longitude: place.longitude,
                    accuracy: place.accuracy,
                };
                cx.send(tab, &set).await?;
            }
            None => {
                cx.send(tab, &EmulationClearGeolocationOverride {}).await?;
            }
        }
        now.geolocation = value;
    }
    if let Some(change) = &changes.extra_http_headers {
        let value = set_value(change).filter(|h| !h.is_empty());
        let headers = NetworkSetExtraHttpHeaders {
            headers: value.clone().unwrap_or_default(),
        };
        cx.send(tab, &headers).await?;
        now.extra_http_headers = value;
    }
    cx.set_emulation(tab, now.clone());
    Ok(now)
}

/// Applies everything `tab` emulates again (after the debugger re-attached).
pub(in crate::engine) async fn reapply_emulation<C: Chrome + 'static>(cx: &Cx<'_, C>, tab: TabId) {
    let emulation = cx.emulation(tab);
    if emulation.is_empty() {
        return;
    }
    let changes = EmulationChanges {
        network: emulation.network.map(Change::Set),
        cpu_throttling_rate: emulation.cpu_throttling_rate.map(Change::Set),
        viewport: emulation.viewport.map(Change::Set),
        user_agent: emulation.user_agent.map(Change::Set),
        color_scheme: emulation.color_scheme.map(Change::Set),
        media: emulation
            .media
            .into_iter()
            .map(|(name, value)| (name, Change::Set(value)))
            .collect(),
        geolocation: emulation.geolocation.map(Change::Set),
        extra_http_headers: emulation.extra_http_headers.map(Change::Set),
    };
    if let Err(error) = apply_changes(cx, tab, &changes).await {
        cx.chrome().log(&format!(
            "tabwire: could not emulate again on tab {tab}: {error}"
        ));
    }
}

async fn apply_network<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    conditions: Option<&NetworkConditions>,
) -> Result<(), EngineError> {
    let command = match conditions {
        Some(c) => NetworkEmulateNetworkConditions {
            offline: c.offline,
            latency: c.latency_ms,
            download_throughput: c.download_bytes_per_sec,
            upload_throughput: c.upload_bytes_per_sec,
        },
        None => NetworkEmulateNetworkConditions {
            offline: false,
            latency: 0.0,
            download_throughput: -1.0,
            upload_throughput: -1.0,
        },
    };
    cx.send(tab, &command).await?;
    Ok(())
}

async fn apply_cpu<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    rate: Option<f64>,
) -> Result<(), EngineError> {
    let rate = EmulationSetCpuThrottlingRate {
        rate: rate.unwrap_or(1.0),
    };
    cx.send(tab, &rate).await?;
    Ok(())
}

async fn apply_viewport<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    viewport: Option<&Viewport>,
) -> Result<(), EngineError> {
    match viewport {
        Some(v) => {
            let metrics = EmulationSetDeviceMetricsOverride {
                width: v.width,
                height: v.height,
                device_scale_factor: v.device_scale_factor,
                mobile: v.mobile,
                screen_orientation: Some(if v.landscape {
                    ScreenOrientation {
                        kind: "landscapePrimary",
                        angle: 90,
                    }
                } else {
                    ScreenOrientation {
                        kind: "portraitPrimary",
                        angle: 0,
                    }
                }),
            };
            cx.send(tab, &metrics).await?;
            let touch = EmulationSetTouchEmulationEnabled {
                enabled: v.touch,
                max_touch_points: v.touch.then_some(1),
            };
            cx.send(tab, &touch).await?;
        }
        None => {
            cx.send(tab, &EmulationClearDeviceMetricsOverride {})
                .await?;
            let touch = EmulationSetTouchEmulationEnabled {
                enabled: false,
                max_touch_points: None,
            };
            cx.send(tab, &touch).await?;
        }
    }
    Ok(())
}

async fn apply_user_agent<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    agent: Option<&str>,
) -> Result<(), EngineError> {
    let set = EmulationSetUserAgentOverride {
        user_agent: agent.unwrap_or("").to_owned(),
    };
    cx.send(tab, &set).await?;
    Ok(())
}

/// Sends every emulated media feature of `now` at once (Chrome replaces the whole set
/// with each call); `cleared` features, and the colour scheme when not emulated, go
/// with an empty value: the real one.
async fn apply_media<'a, C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    now: &Emulation,
    cleared: impl Iterator<Item = &'a str>,
) -> Result<(), EngineError> {
    let mut features = vec![MediaFeature {
        name: "prefers-color-scheme".to_owned(),
        value: now.color_scheme.clone().unwrap_or_default(),
    }];
    for name in cleared.filter(|name| !now.media.contains_key(*name)) {
        features.push(MediaFeature {
            name: name.to_owned(),
            value: String::new(),
        });
    }
    for (name, value) in &now.media {
        features.push(MediaFeature {
            name: name.clone(),
            value: value.clone(),
        });
    }
    cx.send(tab, &EmulationSetEmulatedMedia { features })
        .await?;
    Ok(())
}

fn set_value<T: Clone>(change: &Change<T>) -> Option<T> {
    match change {
        Change::Set(value) => Some(value.clone()),
        Change::Clear => None,
    }
}
