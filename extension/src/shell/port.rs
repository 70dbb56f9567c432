//! The native-messaging port to `tabwire native-host`, kept connected.
//!
//! The port is opened at start-up; when it drops (host not installed, host exited,
//! browser-side error) the shell reconnects after a back-off that starts at 0.5 s and
//! doubles up to 30 s. A connection that proved healthy (the host spoke, or it stayed
//! up a while) resets the back-off. Every (re)connect greets the host through the
//! engine (`BrowserConnected`); every drop hands the engine Chrome's reason
//! (`runtime.lastError`), which the popup turns into what to run.

use std::cell::RefCell;
use std::time::Duration;

use tabwire_shared::backoff::Backoff;
use tabwire_shared::{Envelope, FromExtension, NATIVE_HOST_NAME};
use wasm_bindgen::prelude::*;

use super::bindings::{self as js, Port};
use super::json as convert;
use crate::chrome::Chrome;

/// Pauses before reconnecting: 0.5 s, doubling up to 30 s.
const BACKOFF: Backoff = Backoff::new(Duration::from_millis(500), Duration::from_secs(30));
/// A connection that lasted this long was healthy, even if the host never spoke.
const HEALTHY_AFTER_MS: f64 = 10_000.0;

type Listener = Closure<dyn FnMut(JsValue)>;

struct Connection {
    port: Port,
    since_ms: f64,
    host_spoke: bool,
    /// Kept alive as long as the port may call them.
    _listeners: (Listener, Listener),
}

struct PortState {
    connection: Option<Connection>,
    /// The connection that just dropped: its listener may still be on the stack, so
    /// it is released only when the next connection is made.
    retired: Option<Connection>,
    backoff: Backoff,
    /// A reconnect is scheduled.
    retry_pending: bool,
}

thread_local! {
    static PORT: RefCell<PortState> = const {
        RefCell::new(PortState {
            connection: None,
            retired: None,
            backoff: BACKOFF,
            retry_pending: false,
        })
    };
}

/// Opens the port (or schedules a retry if Chrome refuses outright).
pub fn connect() {
    let port = match js::connect_native(NATIVE_HOST_NAME) {
        Ok(port) => port,
        Err(error) => {
            let error = convert::describe(&error);
            log(&format!("tabwire: connectNative failed: {error}"));
            if let Some(engine) = super::engine() {
                engine.on_port_refused(&error);
            }
            return reconnect_later();
        }
    };
    let on_message: Listener = Closure::new(|message: JsValue| received(&message));
    let on_disconnect: Listener = Closure::new(|_port: JsValue| disconnected());
    let listening = port
        .on_message()
        .add_listener(on_message.as_ref().unchecked_ref())
        .and_then(|()| {
            port.on_disconnect()
                .add_listener(on_disconnect.as_ref().unchecked_ref())
        });
    if let Err(error) = listening {
        log(&format!(
            "tabwire: cannot listen on the native port: {}",
            convert::describe(&error)
        ));
        return reconnect_later();
    }
    PORT.with_borrow_mut(|state| {
        state.connection = Some(Connection {
            port,
            since_ms: js_sys::Date::now(),
            host_spoke: false,
            _listeners: (on_message, on_disconnect),
        });
    });
    if let Some(engine) = super::engine() {
        engine.on_port_connected(&super::version());
    }
}

/// Sends a message to the host; logs and drops it when there is no connection.
pub fn post(message: &Envelope<FromExtension>) {
    let js_message = match convert::to_js(message) {
        Ok(value) => value,
        Err(error) => return log(&format!("tabwire: cannot encode a message: {error}")),
    };
    let sent = PORT.with_borrow(|state| {
        state
            .connection
            .as_ref()
            .map(|c| c.port.post_message(&js_message))
    });
    match sent {
        Some(Ok(())) => {}
        Some(Err(error)) => log(&format!(
            "tabwire: postMessage failed: {}",
            convert::describe(&error)
        )),
        None => log("tabwire: not connected to the native host; a message was dropped"),
    }
}

fn received(message: &JsValue) {
    PORT.with_borrow_mut(|state| {
        if let Some(connection) = state.connection.as_mut() {
            connection.host_spoke = true;
        }
    });
    match convert::to_text(message) {
        Ok(text) => {
            if let Some(engine) = super::engine() {
                engine.on_port_message(&text);
            }
        }
        Err(error) => log(&format!(
            "tabwire: ignored an unreadable host message: {error}"
        )),
    }
}

/// Opens the port if it is neither open nor about to be (a woken worker's check).
pub fn ensure_connected() {
    let idle = PORT.with_borrow(|state| state.connection.is_none() && !state.retry_pending);
    if idle {
        connect();
    }
}

/// Closes the port (the host stopped answering) and opens a new one soon.
pub fn reopen() {
    PORT.with_borrow_mut(|state| {
        if let Some(connection) = state.connection.take() {
            if let Err(error) = connection.port.disconnect() {
                log(&format!(
                    "tabwire: could not close the native port: {}",
                    convert::describe(&error)
                ));
            }
            state.retired = Some(connection);
        }
        state.backoff.reset();
    });
    reconnect_later();
}

fn disconnected() {
    let error = js::last_error_message();
    let reason = error.as_deref().unwrap_or("the host closed the port");
    log(&format!("tabwire: native host disconnected: {reason}"));
    PORT.with_borrow_mut(|state| {
        if let Some(connection) = state.connection.take() {
            let lived = js_sys::Date::now() - connection.since_ms;
            if connection.host_spoke || lived >= HEALTHY_AFTER_MS {
                state.backoff.reset();
            }
            state.retired = Some(connection);
        }
    });
    if let Some(engine) = super::engine() {
        engine.on_port_disconnected(error.as_deref());
    }
    reconnect_later();
}

fn reconnect_later() {
    let delay = PORT.with_borrow_mut(|state| {
        state.retry_pending = true;
        u64::try_from(state.backoff.next_delay().as_millis()).unwrap_or(u64::MAX)
    });
    wasm_bindgen_futures::spawn_local(async move {
        super::browser::BrowserChrome.sleep(delay).await;
        // Only now drop the old port and its listeners: none of them is running.
        PORT.with_borrow_mut(|state| {
            state.retired = None;
            state.retry_pending = false;
        });
        connect();
    });
}

fn log(line: &str) {
    web_sys::console::warn_1(&line.into());
}
