//! Whether the native host is alive: heartbeats and what the popup shows.
//!
//! While the port is open the engine posts `Ping{seq}` every [`PING_EVERY_MS`]; a host
//! that introduced itself (`HostReady`) answers each with `Pong`. When no answer came
//! for [`PONG_WITHIN_MS`] the port is closed and opened again. A host that never said
//! `HostReady` is of a version without heartbeats and is not held to them. The other
//! way, the host pings the extension when an agent waiting for a reply asks whether it
//! still answers; those are answered at once.
//!
//! `HostReady` also says whose browser this is (`agent_profile`). It counts only when
//! it comes from the host itself (no relay `client` on the envelope), and only for the
//! connection it came on: every new connection starts strict.
//!
//! When the port drops, why is kept ([`PortDrop`], read from Chrome's
//! `runtime.lastError`) until a host speaks again, so the popup can say what went
//! wrong and what to run ([`Liveness::not_connected_why`]) even while the shell keeps
//! retrying.
//!
//! [`Port`] owns all the engine knows of the native port (which connection this is, its
//! health, the messages coming in pieces on it) and decides each heartbeat
//! ([`Port::beat`]); the engine does the posting and the reopening.

use std::cell::{Cell, RefCell, RefMut};

use tabwire_shared::pieces::Joiner;

/// How often to ping the host.
pub const PING_EVERY_MS: u64 = 5_000;

/// How long the host may go without answering before the port is reopened (checked at
/// each ping, so a frozen host is replaced 15 to 20 s after it last answered). Agents
/// are not kept waiting meanwhile: their servers ping the host themselves while a call
/// waits and give up on it within seconds, telling the agent to retry once this has
/// replaced it (`host/src/link/liveness.rs`).
pub const PONG_WITHIN_MS: u64 = 15_000;

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
    /// This extension's version (its manifest's), known once the port connects.
    pub own_version: String,
    /// The native host's version, as its `HostReady` said on this connection.
    pub host_version: Option<String>,
    /// Why the last connection ended (or could not be made); cleared when a host
    /// speaks.
    pub last_drop: Option<PortDrop>,
    seq: u64,
}

impl Liveness {
    /// The host is connected and speaking.
    pub fn connected(&self) -> bool {
        self.port_open && self.last_pong_ms.is_some()
    }

    /// When not connected: why, and what the user should run, in a sentence or two
    /// (commands between backquotes).
    pub fn not_connected_why(&self) -> Option<String> {
        if self.connected() {
            return None;
        }
        Some(match (&self.last_drop, self.port_open) {
            (Some(drop), _) => drop.advice(),
            (None, true) => "Waiting for tabwire's native host to answer. If this lasts, run \
                             `tabwire doctor`."
                .to_owned(),
            (None, false) => "Connecting to tabwire's native host…".to_owned(),
        })
    }
}

/// Why the native port is not connected, as Chrome (or the heartbeat) told it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PortDrop {
    /// No native-host manifest for tabwire in this browser (or it names a missing file).
    NotInstalled,
    /// The manifest's `allowed_origins` does not list this extension.
    Forbidden,
    /// Chrome could not start the program the manifest names.
    FailedToStart,
    /// The host started, then exited.
    Exited,
    /// The host wrote something that is not native messaging.
    Garbled,
    /// The host stopped answering heartbeats; the engine closed the port.
    Silent,
    /// The port closed without an error from Chrome.
    Closed,
    /// Anything else Chrome said (its message, shortened).
    Other(String),
}

/// The longest part of an unknown Chrome message the popup repeats.
const MAX_SHOWN: usize = 200;

impl PortDrop {
    /// Reads Chrome's `runtime.lastError.message` for a native port (`None`: the port
    /// closed without one).
    pub fn from_chrome(message: Option<&str>) -> Self {
        let Some(message) = message.map(str::trim).filter(|m| !m.is_empty()) else {
            return Self::Closed;
        };
        match message {
            "Specified native messaging host not found." => Self::NotInstalled,
            "Access to the specified native messaging host is forbidden." => Self::Forbidden,
            "Failed to start native messaging host." => Self::FailedToStart,
            "Native host has exited." => Self::Exited,
            "Error when communicating with the native messaging host." => Self::Garbled,
            other => Self::Other(other.chars().take(MAX_SHOWN).collect()),
        }
    }

    /// What happened and what to run, for the user.
    pub fn advice(&self) -> String {
        const RELOAD: &str = "(`tabwire install --user-data-dir DIR` for a browser started \
                              with --user-data-dir DIR), then reload tabwire at \
                              chrome://extensions (or wait: it retries within 30 s).";
        match self {
            Self::NotInstalled => format!(
                "This browser has no tabwire native host registered. Run `tabwire install` \
                 {RELOAD}"
            ),
            Self::Forbidden => format!(
                "tabwire's native-host registration does not allow this extension's id. Run \
                 `tabwire install` to register it again {RELOAD}"
            ),
            Self::FailedToStart => format!(
                "Chrome could not start tabwire's native host: the program it is registered \
                 with is missing or not executable (was tabwire moved?). Run `tabwire install` \
                 again {RELOAD}"
            ),
            Self::Exited => "tabwire's native host started, then exited (it crashed, or the \
                             tabwire binary moved or changed). Run `tabwire doctor` to see why."
                .to_owned(),
            // Chrome says this both of a host that wrote what it could not read and of
            // one that exited before Chrome could write to it.
            Self::Garbled => "The connection to tabwire's native host broke: it exited at once \
                              (crashed, or the tabwire binary moved or changed), or it sent \
                              something Chrome could not read (is another program registered \
                              in its place?). Run `tabwire doctor`."
                .to_owned(),
            Self::Silent => "tabwire's native host stopped answering heartbeats; tabwire is \
                             reconnecting. If this lasts, run `tabwire doctor`."
                .to_owned(),
            Self::Closed => "tabwire's native host closed the connection; tabwire is \
                             reconnecting. If this lasts, run `tabwire doctor`."
                .to_owned(),
            Self::Other(message) => format!(
                "The connection to tabwire's native host failed (Chrome said: {message}). Run \
                 `tabwire doctor`."
            ),
        }
    }
}

/// The native port as the engine knows it.
#[derive(Debug, Default)]
pub(super) struct Port {
    /// Counts native-port connections, so a reply meant for a previous connection is
    /// not delivered to a new host that never asked for it.
    connection: Cell<u64>,
    /// The port's health.
    live: RefCell<Liveness>,
    /// Messages from the host that come in pieces, being joined
    /// ([`tabwire_shared::pieces`]); a new one for each connection.
    pieces: RefCell<Joiner>,
}

/// What the heartbeat does when it wakes.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Beat {
    /// Its connection was replaced or closed: it ends.
    Stop,
    /// The host promised heartbeats and has not answered for too long: give up on the
    /// port and open it again.
    Silent,
    /// Ping the host with this number.
    Ping(u64),
}

impl Port {
    /// The port is (re)connected, by this extension of `version`: the new connection's
    /// number. A new connection knows nothing of its host yet, and nothing it sent in
    /// pieces.
    pub(super) fn connected(&self, version: &str) -> u64 {
        let connection = self.connection.get() + 1;
        self.connection.set(connection);
        let mut live = self.live.borrow_mut();
        live.port_open = true;
        live.host_ready = false;
        live.host_version = None;
        live.last_pong_ms = None;
        version.clone_into(&mut live.own_version);
        *self.pieces.borrow_mut() = Joiner::new();
        connection
    }

    /// The current connection's number.
    pub(super) fn connection(&self) -> u64 {
        self.connection.get()
    }

    /// A message came from the host at `now_ms`: it is alive, and what ended an
    /// earlier connection is over.
    pub(super) fn heard(&self, now_ms: u64) {
        let mut live = self.live.borrow_mut();
        live.last_pong_ms = Some(now_ms);
        live.last_drop = None;
    }

    /// The host answered a ping at `now_ms`.
    pub(super) fn pong(&self, now_ms: u64) {
        self.live.borrow_mut().last_pong_ms = Some(now_ms);
    }

    /// The host introduced itself, of `version`: it is held to heartbeats now.
    pub(super) fn host_ready(&self, version: &str) {
        let mut live = self.live.borrow_mut();
        live.host_ready = true;
        live.host_version = Some(version.to_owned());
    }

    /// Chrome refused to open the port, saying `error`.
    pub(super) fn refused(&self, error: &str) {
        self.live.borrow_mut().last_drop = Some(PortDrop::from_chrome(Some(error)));
    }

    /// The port is gone, for `why` (kept for the popup).
    pub(super) fn lost(&self, why: PortDrop) {
        let mut live = self.live.borrow_mut();
        live.port_open = false;
        live.host_ready = false;
        live.last_drop = Some(why);
    }

    /// An agent called at `now_ms`.
    pub(super) fn called(&self, now_ms: u64) {
        self.live.borrow_mut().last_command_ms = Some(now_ms);
    }

    /// The heartbeat of `connection` woke at `now_ms`: what it does.
    pub(super) fn beat(&self, connection: u64, now_ms: u64) -> Beat {
        let mut live = self.live.borrow_mut();
        if self.connection.get() != connection || !live.port_open {
            return Beat::Stop;
        }
        // A host that promised heartbeats has not answered for too long.
        let heard = live.last_pong_ms.unwrap_or_default();
        if live.host_ready && now_ms.saturating_sub(heard) >= PONG_WITHIN_MS {
            return Beat::Silent;
        }
        live.seq += 1;
        Beat::Ping(live.seq)
    }

    /// The port's health as it is now, for the popup.
    pub(super) fn liveness(&self) -> Liveness {
        self.live.borrow().clone()
    }

    /// The port closed: a message half-joined will not be finished.
    pub(super) fn forget_pieces(&self) {
        *self.pieces.borrow_mut() = Joiner::new();
    }

    /// The messages being joined from pieces.
    pub(super) fn pieces(&self) -> RefMut<'_, Joiner> {
        self.pieces.borrow_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::super::fake::Harness;
    use super::{PortDrop, PING_EVERY_MS, PONG_WITHIN_MS};
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
    fn a_heartbeat_pings_stops_with_its_connection_and_gives_up_on_a_silent_host() {
        use super::{Beat, Port};
        let port = Port::default();
        let first = port.connected("1");
        assert_eq!(port.beat(first, 0), Beat::Ping(1));
        assert_eq!(port.beat(first, 1), Beat::Ping(2));
        port.host_ready("1");
        port.heard(10);
        assert_eq!(port.beat(first, 10 + PONG_WITHIN_MS - 1), Beat::Ping(3));
        assert_eq!(port.beat(first, 10 + PONG_WITHIN_MS), Beat::Silent);
        let second = port.connected("1");
        assert_eq!(port.beat(first, 0), Beat::Stop, "replaced");
        assert_eq!(port.beat(second, 0), Beat::Ping(4));
        port.lost(PortDrop::Closed);
        assert_eq!(port.beat(second, 0), Beat::Stop, "closed");
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
        // The pong came after one period: three periods later it has been silent for
        // PONG_WITHIN_MS.
        h.advance(PONG_WITHIN_MS - 2 * PING_EVERY_MS);
        assert_eq!(h.fake.reopened(), 1);
        assert!(!h.engine.port.liveness().port_open);
        let why = h.engine.port.liveness().not_connected_why().unwrap();
        assert!(why.contains("stopped answering heartbeats"), "{why}");
    }

    #[test]
    fn the_hosts_ping_is_answered_at_once_and_a_clients_is_not() {
        let h = Harness::strict();
        h.engine.on_port_connected("1");
        h.engine
            .on_port_message(&json!({"body": {"ping": {"seq": 7}}}).to_string());
        h.engine
            .on_port_message(&json!({"client": 1, "body": {"ping": {"seq": 8}}}).to_string());
        let pongs: Vec<_> = h
            .fake
            .posted()
            .into_iter()
            .filter_map(|e| match e.body {
                FromExtension::Pong { seq, extension } => Some((seq, extension, e.client)),
                _ => None,
            })
            .collect();
        assert_eq!(pongs, vec![(7, None, None)]);
        assert!(h.fake.logs().iter().any(|l| l.contains("ignored a ping")));
    }

    #[test]
    fn chromes_reasons_become_what_to_run() {
        let cases = [
            (
                Some("Specified native messaging host not found."),
                PortDrop::NotInstalled,
                "`tabwire install`",
            ),
            (
                Some("Access to the specified native messaging host is forbidden."),
                PortDrop::Forbidden,
                "`tabwire install`",
            ),
            (
                Some("Failed to start native messaging host."),
                PortDrop::FailedToStart,
                "`tabwire install`",
            ),
            (
                Some("Native host has exited."),
                PortDrop::Exited,
                "`tabwire doctor`",
            ),
            (
                Some("Error when communicating with the native messaging host."),
                PortDrop::Garbled,
                "`tabwire doctor`",
            ),
            (None, PortDrop::Closed, "`tabwire doctor`"),
            (Some("  "), PortDrop::Closed, "`tabwire doctor`"),
        ];
        for (message, drop, command) in cases {
            let read = PortDrop::from_chrome(message);
            assert_eq!(read, drop, "{message:?}");
            let advice = read.advice();
            assert!(advice.contains(command), "{message:?}: {advice}");
        }
        assert!(PortDrop::NotInstalled
            .advice()
            .contains("chrome://extensions"));
        assert!(PortDrop::Exited.advice().contains("crashed"));
        let odd = PortDrop::from_chrome(Some(&"x".repeat(1000)));
        assert_eq!(odd, PortDrop::Other("x".repeat(200)), "shortened");
        assert!(odd.advice().contains("Chrome said: xxx"));
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
        assert!(!h.engine.port.liveness().host_ready);
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
