//! The popup's connection to the worker: a `chrome.runtime` port named `popup`.
//!
//! The popup sends `{"type": "open", "tab": <id or null>}` once it loads (again until
//! it hears back: the worker may still be starting; and when it reconnects to a
//! restarted worker, naming the tab it showed), then `{"type": "action", "action":
//! {...}}` per button. Opening only shows: nothing is shared until a button says so.
//! The worker answers an action with `{"type": "done", "action": <its name>, "error":
//! <text or null>}` and sends `{"type": "state", "state": {...}}` whenever what the
//! popup shows changes. Everything it shows comes from the engine, afresh each time;
//! this module only moves messages and remembers which tab each popup is about.

use std::cell::{Cell, RefCell};

use serde::Deserialize;
use serde_json::{json, Value};
use tabwire_shared::TabId;
use wasm_bindgen::prelude::*;

use super::bindings::{listen, Listener, Port};
use super::json as convert;

struct Popup {
    id: u64,
    port: Port,
    /// The tab it is about, once it said `open`.
    target: Option<TabId>,
    /// It said `open`: it gets every new state.
    opened: bool,
    _listeners: (Listener, Listener),
}

thread_local! {
    static POPUPS: RefCell<Vec<Popup>> = const { RefCell::new(Vec::new()) };
    static NEXT_ID: Cell<u64> = const { Cell::new(0) };
    static RENDER_PENDING: Cell<bool> = const { Cell::new(false) };
}

/// What the popup sends.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
enum FromPopup {
    Open {
        #[serde(default)]
        tab: Option<TabId>,
    },
    Action {
        action: Value,
    },
}

/// `chrome.runtime.onConnect`: a popup (or something else) connected.
#[wasm_bindgen(js_name = onPopupConnect)]
pub fn on_popup_connect(port: JsValue) {
    let port: Port = port.unchecked_into();
    if port.name().as_string().as_deref() != Some("popup") {
        return;
    }
    let id = NEXT_ID.with(|n| {
        n.set(n.get() + 1);
        n.get()
    });
    let on_message: Listener = Closure::new(move |message: JsValue| received(id, &message));
    let on_disconnect: Listener = Closure::new(move |_port: JsValue| {
        // Dropping the popup drops this closure: only do it once this call is over.
        wasm_bindgen_futures::spawn_local(async move {
            POPUPS.with_borrow_mut(|popups| popups.retain(|p| p.id != id));
        });
    });
    if let Err(error) = listen(&port, &on_message, &on_disconnect) {
        return log(&format!(
            "tabwire: cannot listen to the popup: {}",
            convert::describe(&error)
        ));
    }
    POPUPS.with_borrow_mut(|popups| {
        popups.push(Popup {
            id,
            port,
            target: None,
            opened: false,
            _listeners: (on_message, on_disconnect),
        })
    });
}

fn received(id: u64, message: &JsValue) {
    let message: FromPopup = match convert::read(message) {
        Ok(message) => message,
        Err(error) => return log(&format!("tabwire: ignored a popup message: {error}")),
    };
    let Some(engine) = super::engine() else {
        return;
    };
    match message {
        FromPopup::Open { tab } => {
            wasm_bindgen_futures::spawn_local(async move {
                let target = engine.popup_target(tab).await;
                POPUPS.with_borrow_mut(|popups| {
                    if let Some(popup) = popups.iter_mut().find(|p| p.id == id) {
                        popup.target = target;
                        popup.opened = true;
                    }
                });
                render(id);
            });
        }
        FromPopup::Action { action } => {
            let name = action.get("action").cloned().unwrap_or(Value::Null);
            wasm_bindgen_futures::spawn_local(async move {
                let outcome = engine.popup_action(&action.to_string()).await;
                send(
                    id,
                    &json!({"type": "done", "action": name, "error": outcome.err()}),
                );
                render_all();
            });
        }
    }
}

/// Renders every open popup again (soon, once, however often it is asked).
pub fn render_all() {
    if RENDER_PENDING.with(|p| p.replace(true)) {
        return;
    }
    wasm_bindgen_futures::spawn_local(async {
        RENDER_PENDING.with(|p| p.set(false));
        let ids: Vec<u64> =
            POPUPS.with_borrow(|popups| popups.iter().filter(|p| p.opened).map(|p| p.id).collect());
        for id in ids {
            render(id);
        }
    });
}

fn render(id: u64) {
    let Some(engine) = super::engine() else {
        return;
    };
    let Some(target) =
        POPUPS.with_borrow(|popups| Some(popups.iter().find(|p| p.id == id)?.target))
    else {
        return;
    };
    wasm_bindgen_futures::spawn_local(async move {
        let state = engine.popup_state(target).await;
        send(id, &json!({"type": "state", "state": state}));
    });
}

fn send(id: u64, message: &Value) {
    let message = match convert::to_js(message) {
        Ok(message) => message,
        Err(error) => return log(&format!("tabwire: cannot encode for the popup: {error}")),
    };
    POPUPS.with_borrow(|popups| {
        if let Some(popup) = popups.iter().find(|p| p.id == id) {
            if let Err(error) = popup.port.post_message(&message) {
                log(&format!(
                    "tabwire: could not reach the popup: {}",
                    convert::describe(&error)
                ));
            }
        }
    });
}

fn log(line: &str) {
    web_sys::console::warn_1(&line.into());
}
