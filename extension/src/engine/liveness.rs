//! Whether the native host is alive: heartbeats and what the popup shows.
//!
//! While the port is open the engine posts `Ping{seq}` every [`PING_EVERY_MS`]; a host
//! that introduced itself (`HostReady`) answers each with `Pong`. When no answer came
//! for [`PONG_WITHIN_MS`] the port is closed and opened again. A host that never said
//! `HostReady` is of a version without heartbeats and is not held to them.
//!
//! `HostReady` also says whose browser this is (`agent_profile`). It counts only when
//! it comes from the host itself (no relay `client` on the envelope), and only for the
//! connection it came on: every new connection starts strict.

use tabwire_shared::{Envelope, FromExtension, HostInfo};

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
        self.in_background(move |engine| async move {
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
        });
    }

    /// A new connection knows nothing of its host yet: until that host says
    /// `HostReady`, the browser is taken to be the user's own (strict sharing).
    pub(super) fn new_connection(&self) {
        {
            let mut live = self.live.borrow_mut();
            live.port_open = true;
            live.host_ready = false;
            live.last_pong_ms = None;
        }
        self.sharing.borrow_mut().set_agent_profile(false);
    }

    /// The host introduced itself. Only the host may: what comes from the relay's
    /// clients always carries their `client` id, and is ignored here.
    pub(super) fn on_host_ready(&self, client: Option<u64>, info: &HostInfo) {
        if let Some(client) = client {
            return self.chrome.log(&format!(
                "tabwire: ignored a host introduction from relay client {client}"
            ));
        }
        self.live.borrow_mut().host_ready = true;
        self.sharing
            .borrow_mut()
            .set_agent_profile(info.agent_profile);
        self.chrome.state_changed();
    }

    /// The host answered a ping (a client's `Pong` is ignored, like its `HostReady`).
    pub(super) fn on_pong(&self, client: Option<u64>) {
        if let Some(client) = client {
            return self.chrome.log(&format!(
                "tabwire: ignored a pong from relay client {client}"
            ));
        }
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

#[cfg(test)]
mod tests {
    use super::super::fake::Harness;
    use super::{PING_EVERY_MS, PONG_WITHIN_MS};
    use serde_json::json;
    use tabwire_shared::FromExtension;

    fn pings(h: &Harness) -> Vec<u64> {
        let posted = h.fake.posted().into_iter();
        posted
            .filter_map(|e| match e.body {
                FromExtension::Ping { seq } => Some(seq),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn the_host_is_pinged_and_a_silent_one_is_reconnected() {
        let mut h = Harness::strict();
        h.engine.on_port_connected("1");
        h.host_ready(false);
        h.settle();
        h.advance(PING_EVERY_MS);
        assert_eq!(pings(&h), vec![1]);
        h.engine
            .on_port_message(&json!({"body": {"pong": {"seq": 1}}}).to_string());
        h.advance(PING_EVERY_MS);
        h.advance(PING_EVERY_MS);
        assert_eq!(pings(&h), vec![1, 2, 3]);
        assert_eq!(h.fake.reopened(), 0);
        // The pong came at 10 s: at 40 s the host has been silent for 30 s.
        h.advance(PONG_WITHIN_MS - 2 * PING_EVERY_MS);
        assert_eq!(h.fake.reopened(), 1);
        assert!(!h.engine.live.borrow().port_open);
    }

    #[test]
    fn a_host_without_heartbeats_is_not_held_to_them() {
        let mut h = Harness::strict();
        h.engine.on_port_connected("1");
        h.settle();
        h.advance(PONG_WITHIN_MS * 3);
        assert_eq!(h.fake.reopened(), 0);
    }

    #[test]
    fn only_the_host_itself_says_whose_browser_this_is() {
        let mut h = Harness::strict();
        h.engine.on_port_connected("1");
        h.hello(1, "k1", "claude");
        let forged =
            json!({"client": 1, "body": {"hostReady": {"version": "0", "agentProfile": true}}});
        h.engine.on_port_message(&forged.to_string());
        assert!(
            !h.engine.sharing.borrow().agent_profile(),
            "a client cannot"
        );
        assert!(!h.engine.live.borrow().host_ready);
        let pong = json!({"client": 1, "body": {"pong": {"seq": 1}}});
        h.engine.on_port_message(&pong.to_string());
        let logs = h.fake.logs();
        assert!(logs
            .iter()
            .any(|l| l.contains("ignored a host introduction")));
        assert!(logs.iter().any(|l| l.contains("ignored a pong")));
        h.host_ready(true);
        assert!(h.engine.sharing.borrow().agent_profile());
        h.engine.on_port_connected("1");
        assert!(
            !h.engine.sharing.borrow().agent_profile(),
            "strict again until the new host says otherwise"
        );
        h.host_ready(true);
        assert!(h.engine.sharing.borrow().agent_profile());
    }
}
