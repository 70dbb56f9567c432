//! The native-messaging port to `tabwire native-host`, kept connected.
//!
//! The port is opened at start-up; when it drops (host not installed, host exited,
//! browser-side error) the shell reconnects after a back-off that starts at 0.5 s and
//! doubles up to 30 s. A connection that proved healthy (the host spoke, or it stayed
//! up a while) resets the back-off. Every (re)connect greets the host through the
//! engine (`BrowserConnected`); every drop hands the engine Chrome's reason
//! (`runtime.lastError`), which the popup turns into what to run.
//!
//! The shell makes one [`NativePort`] at start-up and hands it to the `Chrome`
//! implementation (which posts and reopens through it); the port tells the engine what
//! happens through the listener the shell gives it. Neither reaches the other through
//! shared globals.

use std::cell::{OnceCell, RefCell};
use std::rc::{Rc, Weak};
use std::time::Duration;

use tabwire_shared::backoff::Backoff;
use tabwire_shared::{Envelope, FromExtension, NATIVE_HOST_NAME};
use wasm_bindgen::prelude::*;

use super::bindings::{self as js, Listener, Port};
use super::json as convert;
use super::timer;

/// Pauses before reconnecting: 0.5 s, doubling up to 30 s.
const BACKOFF: Backoff = Backoff::new(Duration::from_millis(500), Duration::from_secs(30));
/// A connection that lasted this long was healthy, even if the host never spoke.
const HEALTHY_AFTER_MS: f64 = 10_000.0;

/// What happens on the port, for whoever listens (the engine).
pub enum PortEvent<'a> {
    /// The port is open.
    Connected,
    /// The host sent this (JSON text).
    Message(&'a str),
    /// The port dropped; Chrome's reason, if it gave one.
    Disconnected(Option<&'a str>),
    /// Chrome refused to open the port, for this reason.
    Refused(&'a str),
}

/// Whoever hears of what happens on the port.
type PortListener = dyn Fn(PortEvent<'_>);

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

/// The native port and its reconnects. Made once, shared by the shell's [`Chrome`]
/// implementation (which posts and reopens) and the worker's entry points.
///
/// [`Chrome`]: crate::Chrome
pub struct NativePort {
    state: RefCell<PortState>,
    /// Told of everything that happens on the port; set once by [`listen`](Self::listen).
    listener: OnceCell<Box<PortListener>>,
    /// The port itself, for its listeners and timers.
    me: Weak<NativePort>,
}

impl NativePort {
    /// A port not yet opened, telling nobody yet.
    pub fn new() -> Rc<Self> {
        Rc::new_cyclic(|me| Self {
            state: RefCell::new(PortState {
                connection: None,
                retired: None,
                backoff: BACKOFF,
                retry_pending: false,
            }),
            listener: OnceCell::new(),
            me: me.clone(),
        })
    }

    /// Tells `listener` of everything that happens on the port from now on (once).
    pub fn listen(&self, listener: impl Fn(PortEvent<'_>) + 'static) {
        if self.listener.set(Box::new(listener)).is_err() {
            log("tabwire: the native port has a listener already");
        }
    }

    fn tell(&self, event: PortEvent<'_>) {
        if let Some(listener) = self.listener.get() {
            listener(event);
        }
    }

    /// Opens the port (or schedules a retry if Chrome refuses outright).
    pub fn connect(&self) {
        let port = match js::connect_native(NATIVE_HOST_NAME) {
            Ok(port) => port,
            Err(error) => {
                let error = convert::describe(&error);
                log(&format!("tabwire: connectNative failed: {error}"));
                self.tell(PortEvent::Refused(&error));
                return self.reconnect_later();
            }
        };
        let me = self.me.clone();
        let on_message: Listener = Closure::new(move |message: JsValue| {
            if let Some(port) = me.upgrade() {
                port.received(&message);
            }
        });
        let me = self.me.clone();
        let on_disconnect: Listener = Closure::new(move |_port: JsValue| {
            if let Some(port) = me.upgrade() {
                port.disconnected();
            }
        });
        if let Err(error) = js::listen(&port, &on_message, &on_disconnect) {
            log(&format!(
                "tabwire: cannot listen on the native port: {}",
                convert::describe(&error)
            ));
            return self.reconnect_later();
        }
        self.state.borrow_mut().connection = Some(Connection {
            port,
            since_ms: js_sys::Date::now(),
            host_spoke: false,
            _listeners: (on_message, on_disconnect),
        });
        self.tell(PortEvent::Connected);
    }

    /// Sends a message to the host; logs and drops it when there is no connection.
    pub fn post(&self, message: &Envelope<FromExtension>) {
        let js_message = match convert::to_js(message) {
            Ok(value) => value,
            Err(error) => return log(&format!("tabwire: cannot encode a message: {error}")),
        };
        let sent = self
            .state
            .borrow()
            .connection
            .as_ref()
            .map(|c| c.port.post_message(&js_message));
        match sent {
            Some(Ok(())) => {}
            Some(Err(error)) => log(&format!(
                "tabwire: postMessage failed: {}",
                convert::describe(&error)
            )),
            None => log("tabwire: not connected to the native host; a message was dropped"),
        }
    }

    fn received(&self, message: &JsValue) {
        if let Some(connection) = self.state.borrow_mut().connection.as_mut() {
            connection.host_spoke = true;
        }
        match convert::to_text(message) {
            Ok(text) => self.tell(PortEvent::Message(&text)),
            Err(error) => log(&format!(
                "tabwire: ignored an unreadable host message: {error}"
            )),
        }
    }

    /// Opens the port if it is neither open nor about to be (a woken worker's check).
    pub fn ensure_connected(&self) {
        let idle = {
            let state = self.state.borrow();
            state.connection.is_none() && !state.retry_pending
        };
        if idle {
            self.connect();
        }
    }

    /// Closes the port (the host stopped answering) and opens a new one soon.
    pub fn reopen(&self) {
        {
            let mut state = self.state.borrow_mut();
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
        }
        self.reconnect_later();
    }

    fn disconnected(&self) {
        let error = js::last_error_message();
        let reason = error.as_deref().unwrap_or("the host closed the port");
        log(&format!("tabwire: native host disconnected: {reason}"));
        {
            let mut state = self.state.borrow_mut();
            if let Some(connection) = state.connection.take() {
                let lived = js_sys::Date::now() - connection.since_ms;
                if connection.host_spoke || lived >= HEALTHY_AFTER_MS {
                    state.backoff.reset();
                }
                state.retired = Some(connection);
            }
        }
        self.tell(PortEvent::Disconnected(error.as_deref()));
        self.reconnect_later();
    }

    fn reconnect_later(&self) {
        let delay = {
            let mut state = self.state.borrow_mut();
            state.retry_pending = true;
            u64::try_from(state.backoff.next_delay().as_millis()).unwrap_or(u64::MAX)
        };
        let me = self.me.clone();
        wasm_bindgen_futures::spawn_local(async move {
            timer::sleep(delay).await;
            let Some(port) = me.upgrade() else { return };
            // Only now drop the old port and its listeners: none of them is running.
            {
                let mut state = port.state.borrow_mut();
                state.retired = None;
                state.retry_pending = false;
            }
            port.connect();
        });
    }
}

fn log(line: &str) {
    web_sys::console::warn_1(&line.into());
}
