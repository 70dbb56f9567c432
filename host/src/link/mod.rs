//! The MCP server's connection to the relay: [`Link`].
//!
//! A background task connects to the relay socket, introduces this client
//! (`ToExtension::Hello`), and reconnects with a short back-off whenever the socket is
//! absent or the connection drops, re-sending the hello each time. Calls get per-link
//! request ids; their replies are matched by id. Events are broadcast to subscribers.
//!
//! "A browser is connected" means: the socket is connected and the relay has passed on
//! the extension's `BrowserConnected`. Every call is bounded: while no browser is there,
//! by a wait that depends on why ([`absence`]: none when the native host said the
//! browser quit, a reconnect grace when it said the browser still runs, the caller's
//! `connect_wait` otherwise), then by `reply_timeout` while waiting for the answer; a
//! browser that leaves fails every outstanding call at once, and a native host that
//! stops answering fails it within [`SILENCE_LIMIT`], naming it ([`liveness`]). The
//! link keeps reconnecting in the background all the while, so a browser started again
//! is found.
//!
//! It knows nothing about MCP or tools; it carries commands and replies.
//!
//! - [`shared`]: the state the handles and the connection task share.
//! - [`connection`]: the task itself (connect, serve, back off, stay away when revoked).
//! - [`absence`]: why no browser is there, and so how long a call waits for one.
//! - [`liveness`]: whether the native host and the extension still answer while a
//!   call waits, and so which hop to name when it does not finish.
//! - [`errors`]: what calls answer when no browser is there, it left, or the user
//!   disconnected this agent.

mod absence;
mod connection;
mod errors;
mod liveness;
mod shared;
#[cfg(test)]
mod tests;

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use tabwire_shared::framing::{encode, MAX_ON_SOCKET};
use tabwire_shared::{
    ClientHello, Command, Envelope, ErrorCode, Event, Reply, ToExtension, WireError,
};
use tokio::sync::{broadcast, mpsc, oneshot};

use errors::{disconnected, host_silent, restarted_before_sending, unfinished};
pub use errors::{no_browser, no_browser_because};
pub use liveness::SILENCE_LIMIT;
use shared::{Presence, Shared};

/// How a call ended on the link: answered, or never delivered (so safe to send again).
// Short-lived, one per call: not worth boxing.
#[allow(clippy::large_enum_variant)]
enum Outcome {
    Answered(Result<Reply, WireError>),
    NotDelivered,
}

type ReplySender = oneshot::Sender<Outcome>;

/// Called for every event, in order, before any later reply is handed to its caller.
pub type EventObserver = Arc<dyn Fn(&Event) + Send + Sync>;

/// A request on its way to the connection task.
struct Outgoing {
    id: u64,
    frame: Vec<u8>,
}

/// A cheap-to-clone handle on the connection to the relay.
#[derive(Clone)]
pub struct Link {
    shared: Arc<Shared>,
    outgoing: mpsc::UnboundedSender<Outgoing>,
}

impl Link {
    /// Connects (in a background task) to the relay at `socket`, says hello, and keeps
    /// reconnecting (100 ms → 1 s back-off) whenever the socket is absent or drops.
    ///
    /// Must be called inside a tokio runtime. The task ends when every handle is dropped.
    pub fn spawn(socket: PathBuf, hello: ClientHello) -> Link {
        Self::spawn_observed(socket, hello, None)
    }

    /// Like [`Link::spawn`], with an observer that sees every event before any reply
    /// that followed it on the wire is delivered — so state kept from events (an open
    /// dialog, say) is up to date when a call's reply is rendered.
    pub fn spawn_observed(
        socket: PathBuf,
        hello: ClientHello,
        observer: Option<EventObserver>,
    ) -> Link {
        let shared = Arc::new(Shared::new(socket.clone(), hello, observer));
        let (outgoing, outgoing_rx) = mpsc::unbounded_channel();
        tokio::spawn(connection::run_connection(
            socket,
            shared.clone(),
            outgoing_rx,
        ));
        Link { shared, outgoing }
    }

    /// Changes the name this client goes by (the agent's name arrives with MCP
    /// `initialize`, after the link is up) and tells the extension.
    pub fn introduce(&self, client_name: &str) {
        if let Ok(mut hello) = self.shared.hello.lock() {
            hello.client_name = client_name.to_owned();
        }
        if let Some(frame) = self.shared.hello_frame() {
            // Id 0 is never a call's: nothing waits for an answer.
            let _ = self.outgoing.send(Outgoing { id: 0, frame });
        }
    }

    /// Whether a browser has ever been connected through this link.
    pub fn ever_connected(&self) -> bool {
        !matches!(
            self.shared.state.borrow().browser,
            Presence::Absent(absence::Absence::NeverSeen)
        )
    }

    /// Whether the native host's last word was that the browser quit (and no browser
    /// has connected since).
    pub fn browser_quit(&self) -> bool {
        matches!(
            self.shared.state.borrow().browser,
            Presence::Absent(absence::Absence::Left {
                cause: tabwire_shared::Departure::BrowserQuit,
                ..
            })
        )
    }

    /// Sends one command and awaits its reply.
    ///
    /// Waits for a browser first, as long as what is known of its absence warrants
    /// ([`absence`]; `connect_wait` is the usual wait), failing with an error that says
    /// what is known and what to do; then up to `reply_timeout` for the reply (a
    /// `Timeout` error naming the command and what did not answer or finish: the
    /// extension, or the page), or less when the native host stops answering meanwhile
    /// (a `Timeout` error naming it, [`SILENCE_LIMIT`] after it last answered). A
    /// command that could not be delivered because the connection had just dropped is
    /// sent again once the link reconnects (within that wait); one that was delivered is
    /// never sent twice, unless it is safe to repeat: a browser that disconnects while
    /// it runs fails the call with `BrowserDisconnected`.
    pub async fn call(
        &self,
        command: Command,
        connect_wait: Duration,
        reply_timeout: Duration,
    ) -> Result<Reply, WireError> {
        let started = tokio::time::Instant::now();
        let begun_under = self.shared.state.borrow().run.clone();
        loop {
            if let Some(revoked) = self.shared.revoked() {
                return Err(revoked);
            }
            if !self.await_browser(started, connect_wait).await {
                return Err(self.shared.revoked().unwrap_or_else(|| self.no_browser()));
            }
            if command.tab_id().is_some() {
                let now_under = self.shared.state.borrow().run.clone();
                if let (Some(before), Some(now)) = (&begun_under, &now_under) {
                    if before != now {
                        return Err(restarted_before_sending());
                    }
                }
            }
            let may_wait = || tokio::time::Instant::now() < self.deadline(started, connect_wait);
            match self.send_once(command.clone(), reply_timeout).await? {
                // The browser side went away mid-call; a command that is safe to repeat
                // is sent again once it is back (or told what is known, if it is not).
                Outcome::Answered(Err(e))
                    if e.code == ErrorCode::BrowserDisconnected
                        && command.is_idempotent()
                        && (may_wait() || !self.shared.browser_connected()) =>
                {
                    continue
                }
                Outcome::Answered(result) => return result,
                Outcome::NotDelivered if may_wait() => continue,
                Outcome::NotDelivered => return Err(self.no_browser()),
            }
        }
    }

    /// Until when a call that started at `started` may wait for a browser, from what
    /// is known now (the usual wait while one is connected).
    fn deadline(&self, started: tokio::time::Instant, base: Duration) -> tokio::time::Instant {
        let state = self.shared.state.borrow().clone();
        self.shared
            .deadline(&state, started, base)
            .unwrap_or(started + base)
    }

    /// Waits for a browser for a call that started at `started`, as long as what is
    /// known allows, judged again whenever it changes; true if one is connected.
    async fn await_browser(&self, started: tokio::time::Instant, base: Duration) -> bool {
        let mut rx = self.shared.state.subscribe();
        loop {
            let state = rx.borrow_and_update().clone();
            let Some(deadline) = self.shared.deadline(&state, started, base) else {
                return true;
            };
            match tokio::time::timeout_at(deadline, rx.changed()).await {
                Ok(Ok(())) => continue,
                Ok(Err(_)) | Err(_) => return self.shared.browser_connected(),
            }
        }
    }

    /// One attempt at delivering a command and awaiting its outcome.
    async fn send_once(
        &self,
        command: Command,
        reply_timeout: Duration,
    ) -> Result<Outcome, WireError> {
        let name = command.name();
        let id = self.shared.next_id.fetch_add(1, Ordering::Relaxed);
        let frame = encode(
            &Envelope::request(id, ToExtension::Call(command)),
            MAX_ON_SOCKET,
        )
        .map_err(|e| {
            WireError::new(
                ErrorCode::InvalidArgument,
                format!("The `{name}` command cannot be sent: {e}"),
            )
        })?;
        let (tx, rx) = oneshot::channel();
        let guard = PendingGuard {
            shared: &self.shared,
            id,
        };
        match self.shared.pending.lock() {
            Ok(mut pending) => pending.insert(id, tx),
            Err(_) => return Err(WireError::new(ErrorCode::Internal, "link state poisoned")),
        };
        if self.outgoing.send(Outgoing { id, frame }).is_err() {
            return Err(disconnected("the connection to the relay has stopped"));
        }
        let outcome = self.await_outcome(rx, &name, reply_timeout).await;
        drop(guard);
        outcome
    }

    /// Awaits the outcome of the call `name` just sent, up to `reply_timeout`, giving up
    /// sooner on a native host that stops answering ([`liveness`]); the error names what
    /// did not answer or finish.
    async fn await_outcome(
        &self,
        mut rx: oneshot::Receiver<Outcome>,
        name: &str,
        reply_timeout: Duration,
    ) -> Result<Outcome, WireError> {
        let sent = tokio::time::Instant::now();
        let deadline = sent + reply_timeout;
        loop {
            let now = tokio::time::Instant::now();
            let live = self.shared.with_liveness(|l| l.clone());
            if let Some(silent) = live.as_ref().and_then(|l| l.host_silent(sent, now)) {
                return Err(host_silent(name, silent));
            }
            if now >= deadline {
                let answering = live.map_or(liveness::Answering::Unknown, |l| l.answering(now));
                return Err(unfinished(name, reply_timeout, answering));
            }
            let check = live.and_then(|l| l.next_check(sent));
            let wake = check.map_or(deadline, |c| c.min(deadline));
            tokio::select! {
                outcome = &mut rx => {
                    return outcome
                        .map_err(|_| disconnected("the connection to the relay closed"));
                }
                _ = tokio::time::sleep_until(wake) => {}
            }
        }
    }

    /// Events from the browser, and `BrowserConnected`/`BrowserDisconnected` as the
    /// browser comes and goes.
    pub fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.shared.events.subscribe()
    }

    /// Whether a browser is connected right now.
    pub fn browser_connected(&self) -> bool {
        self.shared.browser_connected()
    }

    /// The connected browser's extension version, if a browser is connected.
    pub fn browser_version(&self) -> Option<String> {
        match &self.shared.state.borrow().browser {
            Presence::Connected { version } => Some(version.clone()),
            Presence::Absent(_) => None,
        }
    }

    /// [`no_browser`], saying what is known of why.
    fn no_browser(&self) -> WireError {
        let state = self.shared.state.borrow();
        let known = match &state.browser {
            Presence::Connected { .. } => None,
            Presence::Absent(absence) => {
                absence.explain(state.last_word.as_deref(), tokio::time::Instant::now())
            }
        };
        no_browser_because(known.as_deref())
    }

    /// Waits until a browser is connected, up to `wait`; true if it is.
    pub async fn wait_for_browser(&self, wait: Duration) -> bool {
        let mut rx = self.shared.state.subscribe();
        let outcome = tokio::time::timeout(wait, rx.wait_for(|s| s.connected())).await;
        matches!(outcome, Ok(Ok(_)))
    }
}

/// Removes a call's pending entry however the call ends (including being cancelled).
struct PendingGuard<'a> {
    shared: &'a Shared,
    id: u64,
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        self.shared.take_pending(self.id);
    }
}

/// A fresh random session key for [`ClientHello::session`]: 128 bits, hex.
pub fn new_session_key() -> String {
    let mut bytes = [0u8; 16];
    if let Err(error) = getrandom::fill(&mut bytes) {
        // Only uniqueness among this user's agents matters; time and pid give that.
        tracing::warn!(%error, "no system randomness; the session key uses time and pid");
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        bytes[..8].copy_from_slice(&(nanos as u64).to_le_bytes());
        bytes[8..12].copy_from_slice(&std::process::id().to_le_bytes());
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
