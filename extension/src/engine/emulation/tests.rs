use serde_json::json;
use tabwire_shared::{
    requests::*, Change, EmulationChanges, Geolocation, NetworkConditions, Viewport,
};

use super::super::fake::{commands, Harness};

fn emulate(h: &mut Harness, id: u64, changes: EmulationChanges) -> tabwire_shared::Emulation {
    h.call(
        id,
        Emulate {
            tab_id: 10,
            changes,
        },
    );
    h.settle();
    match h.reply_to::<Emulate>(id).unwrap() {
        Ok(emulation) => emulation,
        other => panic!("expected the emulation, got {other:?}"),
    }
}

fn phone() -> Viewport {
    Viewport {
        width: 390,
        height: 844,
        device_scale_factor: 3.0,
        mobile: true,
        touch: true,
        landscape: true,
    }
}

#[test]
fn settings_are_applied_kept_and_cleared() {
    let mut h = Harness::new();
    let now = emulate(
        &mut h,
        1,
        EmulationChanges {
            network: Some(Change::Set(NetworkConditions::preset("Slow 3G").unwrap())),
            cpu_throttling_rate: Some(Change::Set(4.0)),
            viewport: Some(Change::Set(phone())),
            color_scheme: Some(Change::Set("dark".into())),
            geolocation: Some(Change::Set(Geolocation {
                latitude: 1.0,
                longitude: 2.0,
                accuracy: 3.0,
            })),
            ..Default::default()
        },
    );
    assert_eq!(now.cpu_throttling_rate, Some(4.0));
    assert_eq!(
        h.fake.sent(10, "Emulation.setCPUThrottlingRate"),
        vec![json!({"rate": 4.0})]
    );
    assert_eq!(
        h.fake.sent(10, "Emulation.setDeviceMetricsOverride"),
        vec![
            json!({"width": 390, "height": 844, "deviceScaleFactor": 3.0, "mobile": true,
                    "screenOrientation": {"type": "landscapePrimary", "angle": 90}})
        ]
    );
    assert_eq!(
        h.fake.sent(10, "Emulation.setTouchEmulationEnabled"),
        vec![json!({"enabled": true, "maxTouchPoints": 1})]
    );
    assert_eq!(
        h.fake.sent(10, "Emulation.setEmulatedMedia"),
        vec![json!({"features": [{"name": "prefers-color-scheme", "value": "dark"}]})]
    );
    assert_eq!(
        h.fake.sent(10, "Page.reload").len(),
        1,
        "touch takes a reload"
    );
    let network = &h.fake.sent(10, "Network.emulateNetworkConditions")[0];
    assert_eq!(network["latency"], json!(2000.0));

    // Fields left out stay; cleared ones go back to the real value.
    let now = emulate(
        &mut h,
        2,
        EmulationChanges {
            cpu_throttling_rate: Some(Change::Clear),
            geolocation: Some(Change::Clear),
            user_agent: Some(Change::Set("Bot/1".into())),
            ..Default::default()
        },
    );
    assert_eq!(now.cpu_throttling_rate, None);
    assert_eq!(now.geolocation, None);
    assert_eq!(now.viewport, Some(phone()));
    assert_eq!(now.user_agent.as_deref(), Some("Bot/1"));
    assert_eq!(
        h.fake.sent(10, "Emulation.setCPUThrottlingRate")[1],
        json!({"rate": 1.0})
    );
    assert_eq!(
        h.fake.sent(10, "Emulation.clearGeolocationOverride").len(),
        1
    );
}

#[test]
fn emulation_is_applied_again_after_a_reattach() {
    let mut h = Harness::new();
    emulate(
        &mut h,
        1,
        EmulationChanges {
            viewport: Some(Change::Set(phone())),
            extra_http_headers: Some(Change::Set([("X-Test".to_owned(), "1".to_owned())].into())),
            ..Default::default()
        },
    );
    h.fake.detach_externally(10);
    h.engine.on_debugger_detached(10, "canceled_by_user");
    h.call(2, commands::list_console(10));
    h.settle();
    assert!(h.reply(2).unwrap().is_ok());
    assert_eq!(
        h.fake.sent(10, "Emulation.setDeviceMetricsOverride").len(),
        2
    );
    assert_eq!(
        h.fake.sent(10, "Network.setExtraHTTPHeaders"),
        vec![json!({"headers": {"X-Test": "1"}}); 2]
    );
}

#[test]
fn a_closed_tab_forgets_its_emulation() {
    let mut h = Harness::new();
    emulate(
        &mut h,
        1,
        EmulationChanges {
            cpu_throttling_rate: Some(Change::Set(2.0)),
            ..Default::default()
        },
    );
    h.engine.on_tab_removed(10);
    assert!(h
        .engine
        .tabs()
        .read(10, |t| t.emulation.clone())
        .unwrap_or_default()
        .is_empty());
}

#[test]
fn media_features_are_sent_together_and_each_cleared_alone() {
    let mut h = Harness::new();
    let media = |pairs: &[(&str, Change<String>)]| {
        pairs
            .iter()
            .map(|(name, change)| (name.to_string(), change.clone()))
            .collect()
    };
    emulate(
        &mut h,
        1,
        EmulationChanges {
            color_scheme: Some(Change::Set("dark".into())),
            media: media(&[
                ("prefers-reduced-motion", Change::Set("reduce".into())),
                ("forced-colors", Change::Set("active".into())),
            ]),
            ..Default::default()
        },
    );
    // Chrome replaces the whole set each time: clearing one sends the others again.
    let now = emulate(
        &mut h,
        2,
        EmulationChanges {
            media: media(&[("forced-colors", Change::Clear)]),
            ..Default::default()
        },
    );
    assert_eq!(
        now.media.into_iter().collect::<Vec<_>>(),
        [("prefers-reduced-motion".to_string(), "reduce".to_string())]
    );
    assert_eq!(now.color_scheme.as_deref(), Some("dark"));
    let sent = h.fake.sent(10, "Emulation.setEmulatedMedia");
    assert_eq!(
        sent[1],
        json!({"features": [
            {"name": "prefers-color-scheme", "value": "dark"},
            {"name": "forced-colors", "value": ""},
            {"name": "prefers-reduced-motion", "value": "reduce"},
        ]})
    );
}
