//! The state a [`Link`](super::Link)'s handles and its connection task share.

use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::Mutex;

use tabwire_shared::framing::{encode, MAX_ON_SOCKET};
use tabwire_shared::{ClientHello, Envelope, ErrorCode, Event, ToExtension, WireError};
use tokio::sync::{broadcast, watch};

use super::errors::disconnected;
use super::{EventObserver, Outcome, ReplySender};

/// State shared by the handles and the connection task.
pub(super) struct Shared {
    pub(super) observer: Option<EventObserver>,
    /// How this client introduces itself, sent on every (re)connection.
    pub(super) hello: Mutex<ClientHello>,
    /// Set when the user disconnected this agent: why. The link then stays offline.
    pub(super) revoked: Mutex<Option<String>>,
    /// The relay's last word on why no browser is there (`BrowserDisconnected`).
    pub(super) last_loss: Mutex<Option<String>>,
    /// When the browser last went away while this link was connected to it.
    pub(super) lost_at: Mutex<Option<tokio::time::Instant>>,
    pub(super) next_id: AtomicU64,
    pub(super) pending: Mutex<HashMap<u64, ReplySender>>,
    /// The connected browser's extension version, `None` when no browser is connected.
    pub(super) browser: watch::Sender<Option<String>>,
    pub(super) events: broadcast::Sender<Event>,
}

/// Events kept for a slow subscriber before it starts missing some.
const EVENT_BUFFER: usize = 256;

impl Shared {
    /// Fresh state for a link introducing itself with `hello`.
    pub(super) fn new(hello: ClientHello, observer: Option<EventObserver>) -> Self {
        let (browser, _) = watch::channel(None);
        let (events, _) = broadcast::channel(EVENT_BUFFER);
        Self {
            observer,
            hello: Mutex::new(hello),
            revoked: Mutex::new(None),
            lost_at: Mutex::new(None),
            last_loss: Mutex::new(None),
            next_id: AtomicU64::new(1),
            pending: Mutex::new(HashMap::new()),
            browser,
            events,
        }
    }

    pub(super) fn take_pending(&self, id: u64) -> Option<ReplySender> {
        self.pending.lock().ok()?.remove(&id)
    }

    /// Answers every outstanding call: the browser went away, and why.
    pub(super) fn fail_all(&self, why: &str) {
        self.fail_all_with(&disconnected(why));
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

    pub(super) fn set_browser(&self, version: Option<String>) {
        let was = self.browser.send_replace(version.clone());
        if was.is_some() && version.is_none() {
            if let Ok(mut lost) = self.lost_at.lock() {
                *lost = Some(tokio::time::Instant::now());
            }
        }
    }

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
