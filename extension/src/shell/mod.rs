//! The WASM shell: the engine's platform in a real browser.
//!
//! `background.js` registers Chrome's event listeners in the worker's first turn and
//! forwards them here; these exported functions hand them to the one [`Engine`]. The
//! shell owns no logic: [`browser`] implements the [`Chrome`](crate::Chrome) trait
//! with `chrome.*`, [`port`] keeps the native port connected, [`json`] moves values
//! across the JavaScript boundary, [`bindings`] declares the APIs used.
//!
//! Exports (called from `background.js`): `start()` (async: restores the saved state
//! before the native port opens), `onDebuggerEvent(source, method, params)` (the
//! source's `sessionId` names a child session),
//! `onDebuggerDetach(source, reason)`, `onTabRemoved(tabId)`, `onTabUpdated(tabId,
//! changeInfo)`, `onTabActivated()`, `onTabMoved(tab)`, `onTabsChanged()`,
//! `onGroupChanged()`, `onNotificationClicked(id)`, `onAlarm()`
//! and [`popup`]'s `onPopupConnect(port)`.

mod bindings;
mod browser;
mod json;
mod popup;
mod port;
mod timer;

use std::rc::Rc;

use serde::Deserialize;
use tabwire_shared::TabId;
use wasm_bindgen::prelude::*;

use crate::engine::{Engine, TabChange};
use browser::BrowserChrome;
use port::{NativePort, PortEvent};

/// The worker's one engine and the native port it posts on.
struct Shell {
    engine: Rc<Engine<BrowserChrome>>,
    port: Rc<NativePort>,
}

thread_local! {
    /// Set once by [`start`]: the exported entry points find the engine here.
    static SHELL: std::cell::OnceCell<Shell> = const { std::cell::OnceCell::new() };
}

fn engine() -> Option<Rc<Engine<BrowserChrome>>> {
    SHELL.with(|cell| cell.get().map(|shell| Rc::clone(&shell.engine)))
}

fn native_port() -> Option<Rc<NativePort>> {
    SHELL.with(|cell| cell.get().map(|shell| Rc::clone(&shell.port)))
}

/// Hands what happens on the native port to the engine.
fn on_port_event(engine: &Rc<Engine<BrowserChrome>>, event: PortEvent<'_>) {
    match event {
        PortEvent::Connected => engine.on_port_connected(&version()),
        PortEvent::Message(text) => engine.on_port_message(text),
        PortEvent::Disconnected(error) => engine.on_port_disconnected(error),
        PortEvent::Refused(error) => engine.on_port_refused(error),
    }
}

/// The extension's version, from its manifest.
fn version() -> String {
    let manifest = bindings::get_manifest().unwrap_or(JsValue::UNDEFINED);
    js_sys::Reflect::get(&manifest, &"version".into())
        .ok()
        .and_then(|v| v.as_string())
        .unwrap_or_else(|| "unknown".to_owned())
}

/// The alarm that wakes a stopped worker, so it reconnects to the native host: the
/// fallback for when the waker could not be opened. (Neither starts the worker again
/// once the extension's whole process was killed: Chrome then waits for a reload.)
const KEEPALIVE_ALARM: &str = "tabwire-keepalive";

/// The offscreen document that starts a stopped worker again at once (`waker.js`).
const WAKER: &str = "waker.html";

/// Opens the waker unless it is open already (it outlives the worker that opened it).
async fn open_waker() {
    let parameters = serde_json::json!({
        "url": WAKER,
        "reasons": ["WORKERS"],
        "justification": "Starts tabwire's service worker again when Chrome stops it, so \
                          the coding agent's connection pauses instead of breaking.",
    });
    let opened = match json::to_js(&parameters) {
        Ok(parameters) => match bindings::offscreen_create_document(&parameters) {
            Ok(promise) => wasm_bindgen_futures::JsFuture::from(promise)
                .await
                .map(drop),
            Err(error) => Err(error),
        },
        Err(error) => Err(JsValue::from(error)),
    };
    if let Err(error) = opened {
        let error = json::describe(&error);
        if !error.contains("single offscreen document") {
            web_sys::console::warn_1(
                &format!("tabwire: no waker; a stopped worker waits for its alarm: {error}").into(),
            );
        }
    }
}

/// Starts the extension: panic hook, engine, saved state, wake-up alarm and waker,
/// native port.
/// Call once, after the WASM module is initialised, and wait for it before passing
/// events on: the saved state must be back before anything else happens.
#[wasm_bindgen]
pub async fn start() {
    std::panic::set_hook(Box::new(|info| {
        web_sys::console::error_1(&format!("tabwire panicked: {info}").into());
    }));
    let port = NativePort::new();
    let engine = Engine::new(BrowserChrome::new(Rc::clone(&port)));
    let shell = Shell {
        engine: Rc::clone(&engine),
        port: Rc::clone(&port),
    };
    if SHELL.with(|cell| cell.set(shell).is_err()) {
        return;
    }
    let listener = Rc::downgrade(&engine);
    port.listen(move |event| {
        if let Some(engine) = listener.upgrade() {
            on_port_event(&engine, event);
        }
    });
    engine.restore().await;
    let alarm = json::to_js(&serde_json::json!({"periodInMinutes": 0.5}))
        .map_err(JsValue::from)
        .and_then(|info| bindings::alarms_create(KEEPALIVE_ALARM, &info));
    if let Err(error) = alarm {
        web_sys::console::warn_1(
            &format!("tabwire: no wake-up alarm: {}", json::describe(&error)).into(),
        );
    }
    wasm_bindgen_futures::spawn_local(open_waker());
    port.connect();
}

/// `chrome.alarms.onAlarm`: the worker is awake; make sure the port is open.
#[wasm_bindgen(js_name = onAlarm)]
pub fn on_alarm() {
    if let Some(port) = native_port() {
        port.ensure_connected();
    }
}

/// `chrome.tabs.onUpdated`.
#[wasm_bindgen(js_name = onTabUpdated)]
pub fn on_tab_updated(tab_id: JsValue, change_info: JsValue) {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct ChangeInfo {
        url: Option<String>,
        group_id: Option<i64>,
        status: Option<String>,
    }
    let (Some(engine), Some(tab)) = (engine(), tab_id.as_f64()) else {
        return;
    };
    match json::read::<ChangeInfo>(&change_info) {
        Ok(change) => engine.on_tab_updated(
            tab as TabId,
            TabChange {
                url: change.url,
                group_id: change.group_id,
                status: change.status,
            },
        ),
        Err(error) => {
            web_sys::console::warn_1(&format!("tabwire: unreadable tab change: {error}").into())
        }
    }
}

/// `chrome.tabs.onActivated`.
#[wasm_bindgen(js_name = onTabActivated)]
pub fn on_tab_activated() {
    if let Some(engine) = engine() {
        engine.on_tab_activated();
    }
}

/// `chrome.notifications.onClicked`: the user clicked an agent's request; the popup
/// (where it is answered) opens, where Chrome allows it.
#[wasm_bindgen(js_name = onNotificationClicked)]
pub fn on_notification_clicked(id: JsValue) {
    if id.as_string().as_deref() != Some(browser::REQUEST_NOTIFICATION) {
        return;
    }
    if let Ok(opening) = bindings::action_open_popup() {
        // Chrome refuses without a focused window: the badge still shows the request.
        wasm_bindgen_futures::spawn_local(async move {
            let _ = wasm_bindgen_futures::JsFuture::from(opening).await;
        });
    }
}

/// `chrome.tabGroups.onCreated` and `onUpdated`: a group appeared or was renamed.
#[wasm_bindgen(js_name = onGroupChanged)]
pub fn on_group_changed() {
    if let Some(engine) = engine() {
        engine.on_group_changed_by_browser();
    }
}

/// `chrome.tabs.onCreated` (a tab), `onMoved`, `onAttached` and `onDetached` (a tab id).
#[wasm_bindgen(js_name = onTabMoved)]
pub fn on_tab_moved(tab: JsValue) {
    let id = tab
        .as_f64()
        .or_else(|| js_sys::Reflect::get(&tab, &"id".into()).ok()?.as_f64());
    if let (Some(engine), Some(id)) = (engine(), id) {
        engine.on_tab_moved(id as TabId);
    }
}

/// `chrome.tabs.onReplaced` and `chrome.windows.onFocusChanged` (their arguments are
/// not needed).
#[wasm_bindgen(js_name = onTabsChanged)]
pub fn on_tabs_changed() {
    if let Some(engine) = engine() {
        engine.on_tabs_changed();
    }
}

/// `chrome.debugger.onEvent`: from the tab's session, or (with a `sessionId` in the
/// source) from one of its child sessions.
#[wasm_bindgen(js_name = onDebuggerEvent)]
pub fn on_debugger_event(source: JsValue, method: JsValue, params: JsValue) {
    let (Some(engine), Some(tab), Some(method)) = (engine(), tab_of(&source), method.as_string())
    else {
        return;
    };
    let session = session_of(&source);
    match json::to_json(&params) {
        Ok(params) => engine.on_session_event(tab, session.as_deref(), &method, &params),
        Err(error) => {
            web_sys::console::warn_1(&format!("tabwire: unreadable {method} event: {error}").into())
        }
    }
}

/// `chrome.debugger.onDetach`. A source naming a child session is that child's end
/// only (Chrome reports those as `Target.detachedFromTarget`; this is in case it also
/// says so here), never the tab's.
#[wasm_bindgen(js_name = onDebuggerDetach)]
pub fn on_debugger_detach(source: JsValue, reason: JsValue) {
    let (Some(engine), Some(tab)) = (engine(), tab_of(&source)) else {
        return;
    };
    match session_of(&source) {
        Some(session) => engine.on_child_detached(tab, &session),
        None => {
            let reason = reason.as_string().unwrap_or_else(|| "unknown".to_owned());
            engine.on_debugger_detached(tab, &reason);
        }
    }
}

/// `chrome.tabs.onRemoved`.
#[wasm_bindgen(js_name = onTabRemoved)]
pub fn on_tab_removed(tab_id: JsValue) {
    if let (Some(engine), Some(tab)) = (engine(), tab_id.as_f64()) {
        engine.on_tab_removed(tab as TabId);
    }
}

/// The child session of a `chrome.debugger.DebuggerSession`, if it names one.
fn session_of(source: &JsValue) -> Option<String> {
    js_sys::Reflect::get(source, &"sessionId".into())
        .ok()?
        .as_string()
        .filter(|session| !session.is_empty())
}

/// The tab of a `chrome.debugger.Debuggee`, if it names one.
fn tab_of(source: &JsValue) -> Option<TabId> {
    let tab = js_sys::Reflect::get(source, &"tabId".into())
        .ok()?
        .as_f64()?;
    Some(tab as TabId)
}
