//! The few browser APIs the shell calls, declared for wasm-bindgen.
//!
//! Every `chrome.*` call is `catch`: a missing permission or a bad argument makes
//! Chrome throw synchronously, and that must become an error, not a trap. Tab and
//! window ids cross as JavaScript numbers (`f64`); Chrome's ids fit exactly.

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = ["chrome", "windows"], js_name = getAll)]
    pub fn windows_get_all(query: &JsValue) -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "windows"], js_name = getLastFocused)]
    pub fn windows_get_last_focused(query: &JsValue) -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "windows"], js_name = update)]
    pub fn windows_update(window_id: f64, properties: &JsValue) -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabs"], js_name = get)]
    pub fn tabs_get(tab_id: f64) -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabs"], js_name = create)]
    pub fn tabs_create(properties: &JsValue) -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabs"], js_name = update)]
    pub fn tabs_update(tab_id: f64, properties: &JsValue) -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabs"], js_name = remove)]
    pub fn tabs_remove(tab_id: f64) -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "debugger"], js_name = attach)]
    pub fn debugger_attach(target: &JsValue, version: &str) -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "debugger"], js_name = detach)]
    pub fn debugger_detach(target: &JsValue) -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "debugger"], js_name = sendCommand)]
    pub fn debugger_send_command(
        target: &JsValue,
        method: &str,
        params: &JsValue,
    ) -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "storage", "local"], js_name = get)]
    pub fn storage_local_get(key: &str) -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "storage", "local"], js_name = set)]
    pub fn storage_local_set(items: &JsValue) -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "storage", "session"], js_name = get)]
    pub fn storage_session_get(key: &str) -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "storage", "session"], js_name = set)]
    pub fn storage_session_set(items: &JsValue) -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabs"], js_name = group)]
    pub fn tabs_group(options: &JsValue) -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabs"], js_name = ungroup)]
    pub fn tabs_ungroup(tab_ids: &JsValue) -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabGroups"], js_name = query)]
    pub fn tab_groups_query(query: &JsValue) -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabs"], js_name = query)]
    pub fn tabs_query(query: &JsValue) -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabGroups"], js_name = update)]
    pub fn tab_groups_update(group_id: f64, properties: &JsValue) -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "action"], js_name = setBadgeText)]
    pub fn action_set_badge_text(details: &JsValue) -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "action"], js_name = setBadgeBackgroundColor)]
    pub fn action_set_badge_background_color(details: &JsValue) -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "action"], js_name = openPopup)]
    pub fn action_open_popup() -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "notifications"], js_name = create)]
    pub fn notifications_create(id: &str, options: &JsValue) -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "notifications"], js_name = clear)]
    pub fn notifications_clear(id: &str) -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "runtime"], js_name = getURL)]
    pub fn runtime_get_url(path: &str) -> Result<String, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "action"], js_name = setBadgeTextColor)]
    pub fn action_set_badge_text_color(details: &JsValue) -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "action"], js_name = setTitle)]
    pub fn action_set_title(details: &JsValue) -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "alarms"], js_name = create)]
    pub fn alarms_create(name: &str, info: &JsValue) -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "offscreen"], js_name = createDocument)]
    pub fn offscreen_create_document(parameters: &JsValue) -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "runtime"], js_name = connectNative)]
    pub fn connect_native(application: &str) -> Result<Port, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "runtime"], js_name = getManifest)]
    pub fn get_manifest() -> Result<JsValue, JsValue>;

    /// The worker's global `setTimeout`.
    #[wasm_bindgen(js_name = setTimeout)]
    pub fn set_timeout(handler: &Function, ms: f64) -> JsValue;

    /// A `chrome.runtime.Port`.
    pub type Port;

    #[wasm_bindgen(method, catch, js_name = postMessage)]
    pub fn post_message(this: &Port, message: &JsValue) -> Result<(), JsValue>;

    #[wasm_bindgen(method, catch)]
    pub fn disconnect(this: &Port) -> Result<(), JsValue>;

    #[wasm_bindgen(method, getter)]
    pub fn name(this: &Port) -> JsValue;

    #[wasm_bindgen(method, getter, js_name = onMessage)]
    pub fn on_message(this: &Port) -> ChromeEvent;

    #[wasm_bindgen(method, getter, js_name = onDisconnect)]
    pub fn on_disconnect(this: &Port) -> ChromeEvent;

    /// A `chrome.events.Event`.
    pub type ChromeEvent;

    #[wasm_bindgen(method, catch, js_name = addListener)]
    pub fn add_listener(this: &ChromeEvent, listener: &Function) -> Result<(), JsValue>;
}

/// `chrome.runtime.lastError.message`, read fresh (it changes from call to call).
pub fn last_error_message() -> Option<String> {
    let chrome = js_sys::Reflect::get(&js_sys::global(), &"chrome".into()).ok()?;
    let runtime = js_sys::Reflect::get(&chrome, &"runtime".into()).ok()?;
    let error = js_sys::Reflect::get(&runtime, &"lastError".into()).ok()?;
    js_sys::Reflect::get(&error, &"message".into())
        .ok()?
        .as_string()
}

/// A listener on a port's events, kept alive as long as the port may call it.
pub type Listener = Closure<dyn FnMut(JsValue)>;

/// Listens to a port's messages and its disconnect.
pub fn listen(port: &Port, on_message: &Listener, on_disconnect: &Listener) -> Result<(), JsValue> {
    port.on_message()
        .add_listener(on_message.as_ref().unchecked_ref())?;
    port.on_disconnect()
        .add_listener(on_disconnect.as_ref().unchecked_ref())
}
