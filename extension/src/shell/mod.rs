//! The WASM shell: the engine's platform in a real browser.
//!
//! `background.js` registers Chrome's event listeners in the worker's first turn and
//! forwards them here; these exported functions hand them to the one [`Engine`]. The
//! shell owns no logic: [`browser`] implements the [`Chrome`](crate::Chrome) trait
//! with `chrome.*`, [`port`] keeps the native port connected, [`json`] moves values
//! across the JavaScript boundary, [`bindings`] declares the APIs used.
//!
//! Exports (called from `background.js`): `start()`, `onDebuggerEvent(source, method,
//! params)`, `onDebuggerDetach(source, reason)`, `onTabRemoved(tabId)`.

mod bindings;
mod browser;
mod json;
mod port;

use std::rc::Rc;

use tabwire_shared::TabId;
use wasm_bindgen::prelude::*;

use crate::engine::Engine;
use browser::BrowserChrome;

thread_local! {
    static ENGINE: std::cell::OnceCell<Rc<Engine<BrowserChrome>>> = const { std::cell::OnceCell::new() };
}

fn engine() -> Option<Rc<Engine<BrowserChrome>>> {
    ENGINE.with(|cell| cell.get().cloned())
}

/// The extension's version, from its manifest.
fn version() -> String {
    let manifest = bindings::get_manifest().unwrap_or(JsValue::UNDEFINED);
    js_sys::Reflect::get(&manifest, &"version".into())
        .ok()
        .and_then(|v| v.as_string())
        .unwrap_or_else(|| "unknown".to_owned())
}

/// Starts the extension: panic hook, engine, native port. Call once, after the WASM
/// module is initialised.
#[wasm_bindgen]
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        web_sys::console::error_1(&format!("tabwire panicked: {info}").into());
    }));
    let fresh = ENGINE.with(|cell| cell.set(Engine::new(BrowserChrome)).is_ok());
    if fresh {
        port::connect();
    }
}

/// `chrome.debugger.onEvent`.
#[wasm_bindgen(js_name = onDebuggerEvent)]
pub fn on_debugger_event(source: JsValue, method: JsValue, params: JsValue) {
    let (Some(engine), Some(tab), Some(method)) = (engine(), tab_of(&source), method.as_string())
    else {
        return;
    };
    match json::to_json(&params) {
        Ok(params) => engine.on_cdp_event(tab, &method, &params),
        Err(error) => {
            web_sys::console::warn_1(&format!("tabwire: unreadable {method} event: {error}").into())
        }
    }
}

/// `chrome.debugger.onDetach`.
#[wasm_bindgen(js_name = onDebuggerDetach)]
pub fn on_debugger_detach(source: JsValue, reason: JsValue) {
    if let (Some(engine), Some(tab)) = (engine(), tab_of(&source)) {
        let reason = reason.as_string().unwrap_or_else(|| "unknown".to_owned());
        engine.on_debugger_detached(tab, &reason);
    }
}

/// `chrome.tabs.onRemoved`.
#[wasm_bindgen(js_name = onTabRemoved)]
pub fn on_tab_removed(tab_id: JsValue) {
    if let (Some(engine), Some(tab)) = (engine(), tab_id.as_f64()) {
        engine.on_tab_removed(tab as TabId);
    }
}

/// The tab of a `chrome.debugger.Debuggee`, if it names one.
fn tab_of(source: &JsValue) -> Option<TabId> {
    let tab = js_sys::Reflect::get(source, &"tabId".into())
        .ok()?
        .as_f64()?;
    Some(tab as TabId)
}
