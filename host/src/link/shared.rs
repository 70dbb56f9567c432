//! The state a [`Link`](super::Link)'s handles and its connection task share.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::Mutex;

use tabwire_shared::framing::{encode, MAX_ON_SOCKET};
use tabwire_shared::{ClientHello, Departure, Envelope, ErrorCode, Event, ToExtension, WireError};
use tokio::sync::{broadcast, watch};

use super::absence::Absence;
use super::errors::{host_stopped, unanswered};
use super::liveness::Liveness;
use super::{EventObserver, Outcome, ReplySender};

/// Whether a browser is there, and if not, why (as far as is known).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Presence {
    /// Connected.
    Connected {
        /// The extension's version.
        version: String,
    },
    /// Not connected.
    Absent(Absence),
}

/// What the link knows of the browser; calls waiting for one wake on every change.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct State {
    /// Whether a browser is there, and if not, why.
    pub(super) browser: Presence,
    /// Connected to a native host (whose browser may not have said hello yet).
    pub(super) relay_up: bool,
    /// The relay's last word on why no browser is there (`BrowserDisconnected`).
    pub(super) last_word: Option<String>,
    /// The last browser run that said hello (its `instance`), kept while it is away:
    /// a call begun under one run is not sent to another (its tab ids mean other tabs).
    pub(super) run: Option<String>,
}

impl State {
    /// Whether a browser is connected.
    pub(super) fn connected(&self) -> bool {
        matches!(self.browser, Presence::Connected { .. })
    }
}

/// State shared by the handles and the connection task.
pub(super) struct Shared {
    /// The relay socket's path.
    pub(super) socket: PathBuf,
    /// Sees every event before any reply that followed it is handed over.
    pub(super) observer: Option<EventObserver>,
    /// How this client introduces itself, sent on every (re)connection.
    pub(super) hello: Mutex<ClientHello>,
    /// Set when the user disconnected this agent: why. The link then stays offline.
    pub(super) revoked: Mutex<Option<String>>,
    /// The next call's request id (0 is the hello's, never a call's).
    pub(super) next_id: AtomicU64,
    /// The calls awaiting a reply, by request id.
    pub(super) pending: Mutex<HashMap<u64, ReplySender>>,
    /// What is known of the browser; calls waiting for one watch it.
    pub(super) state: watch::Sender<State>,
    /// Events for subscribers ([`Link::subscribe`](super::Link::subscribe)).
    pub(super) events: broadcast::Sender<Event>,
    /// Whether the relay and the extension behind it still answer, for waiting calls.
    pub(super) liveness: Mutex<Liveness>,
}

/// Events kept for a slow subscriber before it starts missing some.
const EVENT_BUFFER: usize = 256;

/// Why the link reports a browser gone when its native host vanished without a word.
const VANISHED: &str = "the connection to tabwire's native host closed without a goodbye";

impl Shared {
    /// Fresh state for a link to `socket` introducing itself with `hello`.
    pub(super) fn new(
        socket: PathBuf,
        hello: ClientHello,
        observer: Option<EventObserver>,
    ) -> Self {
        let (state, _) = watch::channel(State {
            browser: Presence::Absent(Absence::NeverSeen),
            relay_up: false,
            last_word: None,
            run: None,
        });
        let (events, _) = broadcast::channel(EVENT_BUFFER);
        Self {
            socket,
            observer,
            hello: Mutex::new(hello),
            revoked: Mutex::new(None),
            next_id: AtomicU64::new(1),
            pending: Mutex::new(HashMap::new()),
            state,
            events,
            liveness: Mutex::new(Liveness::connected(tokio::time::Instant::now())),
        }
    }

    /// Removes and returns the reply sender of call `id`, if it still waits.
    pub(super) fn take_pending(&self, id: u64) -> Option<ReplySender> {
        self.pending.lock().ok()?.remove(&id)
    }

    /// Answers every outstanding call with `error`.
    pub(super) fn fail_all_with(&self, error: &WireError) {
        let drained: Vec<_> = match self.pending.lock() {
            Ok(mut pending) => pending.drain().collect(),
            Err(_) => return,
        };
        for (_, tx) in drained {
            let _ = tx.send(Outcome::Answered(Err(error.clone())));
        }
    }

    /// Whether a browser is connected now.
    pub(super) fn browser_connected(&self) -> bool {
        self.state.borrow().connected()
    }

    /// Until when a call that started at `started` may wait for a browser, from what
    /// is known now; `None` when one is connected. A native host counts as up when this
    /// link is connected to it, or, after a goodbye, when a socket is there again (a
    /// host removes its own before saying goodbye, so it is a new one's, and the link
    /// connects to it within its back-off). A host that vanished leaves its socket
    /// behind: that one says nothing.
    pub(super) fn deadline(
        &self,
        state: &State,
        started: tokio::time::Instant,
        base: std::time::Duration,
    ) -> Option<tokio::time::Instant> {
        match &state.browser {
            Presence::Connected { .. } => None,
            Presence::Absent(absence) => {
                let said_goodbye = matches!(absence, Absence::Left { .. });
                let relay_up = state.relay_up || (said_goodbye && self.socket.exists());
                Some(absence.deadline(started, base, relay_up))
            }
        }
    }

    /// A connection to a native host was made.
    pub(super) fn relay_connected(&self) {
        self.with_liveness(|l| *l = Liveness::connected(tokio::time::Instant::now()));
        self.state.send_modify(|s| s.relay_up = true);
    }

    /// Runs `f` on what is known of the hops' liveness (nothing, if its lock is
    /// poisoned).
    pub(super) fn with_liveness<T>(&self, f: impl FnOnce(&mut Liveness) -> T) -> Option<T> {
        self.liveness.lock().ok().map(|mut l| f(&mut l))
    }

    /// Whether a call awaits its reply.
    pub(super) fn calls_out(&self) -> bool {
        self.pending.lock().is_ok_and(|p| !p.is_empty())
    }

    /// The extension of the browser run `instance` (empty: unknown) said hello through
    /// the relay.
    pub(super) fn browser_arrived(&self, version: &str, instance: &str) {
        self.state.send_modify(|s| {
            s.browser = Presence::Connected {
                version: version.to_owned(),
            };
            if !instance.is_empty() {
                s.run = Some(instance.to_owned());
            }
        });
    }

    /// The native host said goodbye (or refused this client): remembered, and every
    /// outstanding call answered, unless why is yet to be decided (the host answers
    /// them with its second word). Only a browser that was there has "left": a refusal
    /// keeps what was known before, with the relay's word on it.
    pub(super) fn browser_left(&self, reason: &str, cause: Departure) {
        self.state.send_modify(|s| {
            let at = match &s.browser {
                Presence::Connected { .. } => Some(tokio::time::Instant::now()),
                // The second word on a departure: since the first.
                Presence::Absent(Absence::Left {
                    cause: Departure::Undecided,
                    at,
                }) => Some(*at),
                Presence::Absent(_) => None,
            };
            if let Some(at) = at {
                s.browser = Presence::Absent(Absence::Left { cause, at });
            }
            s.last_word = Some(reason.to_owned());
        });
        if cause != Departure::Undecided {
            self.fail_all_with(&unanswered(reason, cause));
        }
    }

    /// This client would not use the relay it reached (another user's): kept as the last
    /// word on the relay, which the agent's "no browser" error then gives.
    pub(super) fn relay_refused(&self, why: &str) {
        let word = format!("this tabwire would not use it: {why}");
        self.state.send_modify(|s| s.last_word = Some(word));
    }

    /// The user disconnected this agent: no browser, for good.
    pub(super) fn browser_revoked(&self) {
        self.state.send_modify(|s| {
            if s.connected() {
                s.browser = Presence::Absent(Absence::Left {
                    cause: Departure::Unknown,
                    at: tokio::time::Instant::now(),
                });
            }
        });
    }

    /// The connection to the native host ended. A browser still there then went without
    /// a goodbye (the host was killed or crashed): that is announced. A host that had
    /// not decided why its browser went was most likely killed by Chrome, which does
    /// that to a host 2 s after closing its port when the browser still runs.
    pub(super) fn relay_closed(&self) {
        /// What the end of the connection meant for the calls still out.
        enum Then {
            Vanished,
            Undecided,
            AfterGoodbye,
        }
        let mut then = Then::AfterGoodbye;
        self.state.send_modify(|s| {
            s.relay_up = false;
            match &s.browser {
                Presence::Connected { .. } => {
                    then = Then::Vanished;
                    s.browser = Presence::Absent(Absence::Vanished {
                        at: tokio::time::Instant::now(),
                    });
                    s.last_word = Some(VANISHED.to_owned());
                }
                Presence::Absent(Absence::Left {
                    cause: Departure::Undecided,
                    at,
                }) => {
                    then = Then::Undecided;
                    s.browser = Presence::Absent(Absence::Left {
                        cause: Departure::BrowserRunning,
                        at: *at,
                    });
                }
                Presence::Absent(_) => {}
            }
        });
        match then {
            Then::Vanished => {
                self.fail_all_with(&host_stopped());
                self.publish(Event::BrowserDisconnected {
                    reason: VANISHED.to_owned(),
                    cause: Departure::Unknown,
                });
            }
            // Calls the host held for its second word: they may have run.
            Then::Undecided => self.fail_all_with(&unanswered(
                "tabwire's native host stopped before saying why",
                Departure::BrowserRunning,
            )),
            // Sent after the goodbye: a relay that said it never forwards anything more.
            Then::AfterGoodbye => self.fail_all_undelivered(),
        }
    }

    /// Answers every outstanding call as never delivered (so safe to send again).
    pub(super) fn fail_all_undelivered(&self) {
        let drained: Vec<_> = match self.pending.lock() {
            Ok(mut pending) => pending.drain().collect(),
            Err(_) => return,
        };
        for (_, tx) in drained {
            let _ = tx.send(Outcome::NotDelivered);
        }
    }

    /// The hello, encoded, as it is sent on every (re)connection.
    pub(super) fn hello_frame(&self) -> Option<Vec<u8>> {
        let hello = self.hello.lock().ok()?.clone();
        match encode(&Envelope::notice(ToExtension::Hello(hello)), MAX_ON_SOCKET) {
            Ok(frame) => Some(frame),
            Err(e) => {
                tracing::error!(error = %e, "cannot encode the hello");
                None
            }
        }
    }

    /// The error every call answers once the user disconnected this agent.
    pub(super) fn revoked(&self) -> Option<WireError> {
        let reason = self.revoked.lock().ok()?.clone()?;
        Some(WireError::new(ErrorCode::NotShared, reason))
    }

    /// Hands an event to the observer (at once, in order) and to subscribers.
    pub(super) fn publish(&self, event: Event) {
        if let Some(observer) = &self.observer {
            observer(&event);
        }
        let _ = self.events.send(event);
    }
}
