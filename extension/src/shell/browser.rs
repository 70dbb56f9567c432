//! [`Chrome`] implemented with the real `chrome.*` APIs.
//!
//! Each method is one promise-returning extension API call, awaited; a synchronous
//! throw or a rejection becomes a [`ChromeError`] with Chrome's message. Chrome's
//! answers are read through serde into the engine's plain types.

use std::rc::Rc;

use futures::future::LocalBoxFuture;
use js_sys::Promise;
use serde::Deserialize;
use serde_json::{json, Value};
use tabwire_shared::{Envelope, FromExtension, TabId};
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;

use super::bindings as js;
use super::port::NativePort;
use super::{json as convert, timer};
use crate::chrome::{Badge, Chrome, ChromeError, GroupState, StorageArea, TabState, WindowState};

/// The browser the extension runs in, and the native port it talks to the host on.
pub struct BrowserChrome {
    port: Rc<NativePort>,
}

impl BrowserChrome {
    /// The browser, posting to the host on `port`.
    pub fn new(port: Rc<NativePort>) -> Self {
        Self { port }
    }
}

/// The id of the notification that shows an agent's request for a tab.
pub const REQUEST_NOTIFICATION: &str = "tabwire-request";

/// The image the request's notification shows.
const REQUEST_ICON: &str = "icons/icon-128.png";

/// A `chrome.windows.Window`, as much of it as we read.
#[derive(Deserialize)]
struct JsWindow {
    id: Option<i64>,
    #[serde(default)]
    state: Option<String>,
    #[serde(default)]
    focused: bool,
    #[serde(default)]
    tabs: Vec<JsTab>,
}

/// A `chrome.tabs.Tab`, as much of it as we read.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsTab {
    id: Option<i64>,
    window_id: i64,
    #[serde(default)]
    index: i64,
    url: Option<String>,
    pending_url: Option<String>,
    title: Option<String>,
    #[serde(default)]
    active: bool,
}

impl JsTab {
    fn into_state(self) -> Option<TabState> {
        let id = self.id.filter(|id| *id >= 0)?;
        Some(TabState {
            id,
            window_id: self.window_id,
            // A tab still loading its first document has an empty `url`.
            url: (self.url.filter(|u| !u.is_empty()))
                .or(self.pending_url)
                .unwrap_or_default(),
            title: self.title.unwrap_or_default(),
            active: self.active,
        })
    }
}

/// Awaits a promise-returning API call.
async fn call(started: Result<Promise, JsValue>) -> Result<JsValue, ChromeError> {
    let promise = started.map_err(chrome_error)?;
    JsFuture::from(promise).await.map_err(chrome_error)
}

fn chrome_error(error: JsValue) -> ChromeError {
    ChromeError(unwrap_protocol_error(convert::describe(&error)))
}

/// `chrome.debugger.sendCommand` rejects with the CDP error object as JSON text
/// (`{"code":-32000,"message":"..."}`): keep just its message.
fn unwrap_protocol_error(message: String) -> String {
    #[derive(Deserialize)]
    struct ProtocolError {
        message: String,
    }
    match serde_json::from_str::<ProtocolError>(&message) {
        Ok(inner) => inner.message,
        Err(_) => message,
    }
}

fn js_value(value: &Value) -> Result<JsValue, ChromeError> {
    convert::to_js(value).map_err(ChromeError)
}

fn read<T: serde::de::DeserializeOwned>(value: &JsValue) -> Result<T, ChromeError> {
    convert::read(value).map_err(|e| ChromeError(format!("unexpected answer from Chrome: {e}")))
}

fn debuggee(tab: TabId) -> Result<JsValue, ChromeError> {
    js_value(&json!({ "tabId": tab }))
}

/// A `chrome.debugger.DebuggerSession`: the tab, or one of its child sessions (flat
/// sessions, Chrome 125+).
fn session_debuggee(tab: TabId, session: Option<&str>) -> Result<JsValue, ChromeError> {
    match session {
        Some(session) => js_value(&json!({ "tabId": tab, "sessionId": session })),
        None => debuggee(tab),
    }
}

impl Chrome for BrowserChrome {
    async fn normal_windows(&self) -> Result<Vec<WindowState>, ChromeError> {
        let query = js_value(&json!({"populate": true, "windowTypes": ["normal"]}))?;
        let windows: Vec<JsWindow> = read(&call(js::windows_get_all(&query)).await?)?;
        let states = windows.into_iter().filter_map(|mut window| {
            let id = window.id?;
            let mut tabs = std::mem::take(&mut window.tabs);
            tabs.sort_by_key(|t| t.index);
            let tabs = tabs.into_iter().filter_map(JsTab::into_state).collect();
            Some(WindowState {
                id,
                minimized: window.state.as_deref() == Some("minimized"),
                focused: window.focused,
                tabs,
            })
        });
        Ok(states.collect())
    }

    async fn last_focused_window(&self) -> Result<Option<i64>, ChromeError> {
        #[derive(Deserialize)]
        struct Id {
            id: Option<i64>,
        }
        let query = js_value(&json!({"windowTypes": ["normal"]}))?;
        // Chrome rejects when there is no such window (headless): that is a `None`.
        match call(js::windows_get_last_focused(&query)).await {
            Ok(window) => Ok(read::<Id>(&window)?.id),
            Err(_) => Ok(None),
        }
    }

    async fn tab(&self, tab: TabId) -> Result<Option<TabState>, ChromeError> {
        // Chrome rejects unknown ids (and throws for ids out of its range): no such tab.
        match call(js::tabs_get(tab as f64)).await {
            Ok(found) => Ok(read::<JsTab>(&found)?.into_state()),
            Err(_) => Ok(None),
        }
    }

    async fn create_tab(&self, url: &str, active: bool) -> Result<TabState, ChromeError> {
        let properties = js_value(&json!({"url": url, "active": active}))?;
        let created: JsTab = read(&call(js::tabs_create(&properties)).await?)?;
        created
            .into_state()
            .ok_or_else(|| ChromeError("Chrome created a tab without an id".to_owned()))
    }

    async fn navigate_tab(&self, tab: TabId, url: &str) -> Result<(), ChromeError> {
        let properties = js_value(&json!({"url": url}))?;
        call(js::tabs_update(tab as f64, &properties)).await?;
        Ok(())
    }

    async fn activate_tab(&self, tab: TabId) -> Result<(), ChromeError> {
        let properties = js_value(&json!({"active": true}))?;
        call(js::tabs_update(tab as f64, &properties)).await?;
        Ok(())
    }

    async fn focus_window(&self, window: i64) -> Result<(), ChromeError> {
        let properties = js_value(&json!({"focused": true}))?;
        call(js::windows_update(window as f64, &properties)).await?;
        Ok(())
    }

    async fn resize_window(&self, window: i64, width: u32, height: u32) -> Result<(), ChromeError> {
        let properties = js_value(&json!({"width": width, "height": height, "state": "normal"}))?;
        call(js::windows_update(window as f64, &properties)).await?;
        Ok(())
    }

    async fn remove_tab(&self, tab: TabId) -> Result<(), ChromeError> {
        call(js::tabs_remove(tab as f64)).await?;
        Ok(())
    }

    async fn attach_debugger(&self, tab: TabId) -> Result<(), ChromeError> {
        call(js::debugger_attach(&debuggee(tab)?, "1.3")).await?;
        Ok(())
    }

    async fn detach_debugger(&self, tab: TabId) -> Result<(), ChromeError> {
        call(js::debugger_detach(&debuggee(tab)?)).await?;
        Ok(())
    }

    async fn send_command_text(
        &self,
        tab: TabId,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<String, ChromeError> {
        let params = js_value(&params)?;
        let target = session_debuggee(tab, session)?;
        let answer = call(js::debugger_send_command(&target, method, &params)).await?;
        convert::to_text(&answer).map_err(ChromeError)
    }

    async fn storage_get(
        &self,
        area: StorageArea,
        key: &str,
    ) -> Result<Option<Value>, ChromeError> {
        let started = match area {
            StorageArea::Local => js::storage_local_get(key),
            StorageArea::Session => js::storage_session_get(key),
        };
        let items: Value = read(&call(started).await?)?;
        Ok(items.get(key).cloned())
    }

    async fn storage_set(
        &self,
        area: StorageArea,
        key: &str,
        value: Value,
    ) -> Result<(), ChromeError> {
        let mut items = serde_json::Map::new();
        items.insert(key.to_owned(), value);
        let items = js_value(&Value::Object(items))?;
        let started = match area {
            StorageArea::Local => js::storage_local_set(&items),
            StorageArea::Session => js::storage_session_set(&items),
        };
        call(started).await?;
        Ok(())
    }

    async fn group_tab(&self, tab: TabId, group: Option<i64>) -> Result<i64, ChromeError> {
        let options = match group {
            Some(group) => json!({"tabIds": [tab], "groupId": group}),
            None => json!({"tabIds": [tab]}),
        };
        let group: i64 = read(&call(js::tabs_group(&js_value(&options)?)).await?)?;
        Ok(group)
    }

    async fn style_group(&self, group: i64, title: &str, color: &str) -> Result<(), ChromeError> {
        let properties = js_value(&json!({"title": title, "color": color}))?;
        call(js::tab_groups_update(group as f64, &properties)).await?;
        Ok(())
    }

    async fn ungroup_tab(&self, tab: TabId) -> Result<(), ChromeError> {
        call(js::tabs_ungroup(&js_value(&json!([tab]))?)).await?;
        Ok(())
    }

    async fn tab_groups(&self) -> Result<Vec<GroupState>, ChromeError> {
        /// A `chrome.tabGroups.TabGroup`, as much of it as we read.
        #[derive(Deserialize)]
        struct JsGroup {
            id: i64,
            title: Option<String>,
        }
        let groups: Vec<JsGroup> =
            read(&call(js::tab_groups_query(&js_value(&json!({}))?)).await?)?;
        let states = groups.into_iter().map(|g| GroupState {
            id: g.id,
            title: g.title.unwrap_or_default(),
        });
        Ok(states.collect())
    }

    async fn dissolve_group(&self, group: i64) -> Result<(), ChromeError> {
        let query = js_value(&json!({"groupId": group}))?;
        let tabs: Vec<JsTab> = read(&call(js::tabs_query(&query)).await?)?;
        let ids: Vec<i64> = tabs.into_iter().filter_map(|t| t.id).collect();
        if !ids.is_empty() {
            call(js::tabs_ungroup(&js_value(&json!(ids))?)).await?;
        }
        Ok(())
    }

    async fn show_request(&self, request: Option<(&str, &Badge)>) -> Result<(), ChromeError> {
        let (text, title) = match request {
            Some((_, look)) => (look.text.as_str(), look.tooltip.clone()),
            None => ("", "tabwire".to_owned()),
        };
        if let Some((_, look)) = request {
            let color = js_value(&json!({"color": look.background}))?;
            call(js::action_set_badge_background_color(&color)).await?;
            let color = js_value(&json!({"color": look.text_color}))?;
            call(js::action_set_badge_text_color(&color)).await?;
        }
        call(js::action_set_badge_text(&js_value(
            &json!({"text": text}),
        )?))
        .await?;
        call(js::action_set_title(&js_value(&json!({"title": title}))?)).await?;
        match request {
            Some((line, _)) => {
                let icon = js::runtime_get_url(REQUEST_ICON).map_err(chrome_error)?;
                let options = json!({
                    "type": "basic",
                    "iconUrl": icon,
                    "title": "tabwire",
                    "message": line,
                    "contextMessage": "Click tabwire's button to answer.",
                    "priority": 2,
                });
                call(js::notifications_create(
                    REQUEST_NOTIFICATION,
                    &js_value(&options)?,
                ))
                .await?;
            }
            None => {
                call(js::notifications_clear(REQUEST_NOTIFICATION)).await?;
            }
        }
        Ok(())
    }

    async fn set_badge(&self, tab: TabId, badge: &Badge) -> Result<(), ChromeError> {
        let background = js_value(&json!({"tabId": tab, "color": badge.background}))?;
        call(js::action_set_badge_background_color(&background)).await?;
        let text_color = js_value(&json!({"tabId": tab, "color": badge.text_color}))?;
        call(js::action_set_badge_text_color(&text_color)).await?;
        // No text of its own: the button's global badge (an agent's request) shows.
        let text = match badge.text.as_str() {
            "" => Value::Null,
            text => json!(text),
        };
        let text = js_value(&json!({"tabId": tab, "text": text}))?;
        call(js::action_set_badge_text(&text)).await?;
        let title = js_value(&json!({"tabId": tab, "title": badge.tooltip}))?;
        call(js::action_set_title(&title)).await?;
        Ok(())
    }

    fn now_ms(&self) -> u64 {
        js_sys::Date::now() as u64
    }

    fn reopen_port(&self) {
        self.port.reopen();
    }

    fn state_changed(&self) {
        super::popup::render_all();
    }

    async fn sleep(&self, ms: u64) {
        timer::sleep(ms).await;
    }

    fn spawn(&self, task: LocalBoxFuture<'static, ()>) {
        wasm_bindgen_futures::spawn_local(task);
    }

    fn post(&self, message: &Envelope<FromExtension>) {
        self.port.post(message);
    }

    fn log(&self, line: &str) {
        web_sys::console::warn_1(&line.into());
    }
}
