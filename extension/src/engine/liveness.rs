//! Whether the native host is alive: heartbeats and what the popup shows.
//!
//! While the port is open the engine posts `Ping{seq}` every [`PING_EVERY_MS`]; a host
//! that introduced itself (`HostReady`) answers each with `Pong`. When no answer came
//! for [`PONG_WITHIN_MS`] the port is closed and opened again. A host that never said
//! `HostReady` is of a version without heartbeats and is not held to them.

use tabwire_shared::{Envelope, FromExtension};

use super::Engine;
use crate::chrome::Chrome;

/// How often to ping the host.
pub const PING_EVERY_MS: u64 = 10_000;

/// How long the host may go without answering before the port is reopened.
pub const PONG_WITHIN_MS: u64 = 30_000;

/// The native port's health, for the heartbeat and the popup.
#[derive(Debug, Default, Clone)]
pub struct Liveness {
    /// The port is open.
    pub port_open: bool,
    /// The host sent `HostReady` on this connection.
    pub host_ready: bool,
    /// When the host last answered a ping (or introduced itself).
    pub last_pong_ms: Option<u64>,
    /// When an agent last called.
    pub last_command_ms: Option<u64>,
    seq: u64,
}

impl<C: Chrome + 'static> Engine<C> {
    /// Starts pinging the host on connection number `connection`; stops when that
    /// connection is replaced or closed.
    pub(super) fn start_heartbeat(&self, connection: u64) {
        let Some(engine) = self.me.upgrade() else {
            return;
        };
        self.chrome.spawn(Box::pin(async move {
            loop {
                engine.chrome.sleep(PING_EVERY_MS).await;
                if engine.connection.get() != connection || !engine.live.borrow().port_open {
                    return;
                }
                if engine.host_silent() {
                    engine
                        .chrome
                        .log("tabwire: the native host stopped answering; reconnecting");
                    engine.on_port_disconnected();
                    engine.chrome.reopen_port();
                    return;
                }
                let seq = {
                    let mut live = engine.live.borrow_mut();
                    live.seq += 1;
                    live.seq
                };
                engine
                    .chrome
                    .post(&Envelope::notice(FromExtension::Ping { seq }));
            }
        }));
    }

    /// The host answered a ping.
    pub(super) fn on_pong(&self) {
        self.live.borrow_mut().last_pong_ms = Some(self.chrome.now_ms());
        self.chrome.state_changed();
    }

    /// A host that promised heartbeats has not answered for too long.
    fn host_silent(&self) -> bool {
        let live = self.live.borrow();
        let heard = live.last_pong_ms.unwrap_or_default();
        live.host_ready && self.chrome.now_ms().saturating_sub(heard) >= PONG_WITHIN_MS
    }
}
