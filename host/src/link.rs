//! The MCP server's connection to the relay: [`Link`].
//!
//! A background task connects to the relay socket, introduces this client
//! (`ToExtension::Hello`), and reconnects with a short back-off whenever the socket is
//! absent or the connection drops, re-sending the hello each time. Calls get per-link
//! request ids; their replies are matched by id. Events are broadcast to subscribers.
//!
//! "A browser is connected" means: the socket is connected and the relay has passed on
//! the extension's `BrowserConnected`. Every call is bounded: by `connect_wait` while no
//! browser is there, by `reply_timeout` while waiting for the answer, and a browser that
//! leaves fails every outstanding call at once.
//!
//! It knows nothing about MCP or tools; it carries commands and replies.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tabwire_shared::framing::{encode, MAX_ON_SOCKET};
use tabwire_shared::{
    ClientHello, Command, Envelope, ErrorCode, Event, FromExtension, Reply, ToExtension, WireError,
};
use tokio::net::UnixStream;
use tokio::sync::{broadcast, mpsc, oneshot, watch};

use crate::native_host::framing::{write_frame, FrameReader};

/// First and longest pause between connection attempts.
const BACKOFF_MIN: Duration = Duration::from_millis(100);
const BACKOFF_MAX: Duration = Duration::from_secs(1);
/// Events kept for a slow subscriber before it starts missing some.
const EVENT_BUFFER: usize = 256;

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

/// State shared by the handles and the connection task.
struct Shared {
    observer: Option<EventObserver>,
    /// How this client introduces itself, sent on every (re)connection.
    hello: Mutex<ClientHello>,
    /// Set when the user disconnected this agent: why. The link then stays offline.
    revoked: Mutex<Option<String>>,
    /// The relay's last word on why no browser is there (`BrowserDisconnected`).
    last_loss: Mutex<Option<String>>,
    /// When the browser last went away while this link was connected to it.
    lost_at: Mutex<Option<tokio::time::Instant>>,
    next_id: AtomicU64,
    pending: Mutex<HashMap<u64, ReplySender>>,
    /// The connected browser's extension version, `None` when no browser is connected.
    browser: watch::Sender<Option<String>>,
    events: broadcast::Sender<Event>,
}

impl Shared {
    fn take_pending(&self, id: u64) -> Option<ReplySender> {
        self.pending.lock().ok()?.remove(&id)
    }

    fn fail_all(&self, why: &str) {
        let drained: Vec<_> = match self.pending.lock() {
            Ok(mut pending) => pending.drain().collect(),
            Err(_) => return,
        };
        for (_, tx) in drained {
            let _ = tx.send(Outcome::Answered(Err(disconnected(why))));
        }
    }

    fn set_browser(&self, version: Option<String>) {
        let was = self.browser.send_replace(version.clone());
        if was.is_some() && version.is_none() {
            if let Ok(mut lost) = self.lost_at.lock() {
                *lost = Some(tokio::time::Instant::now());
            }
        }
    }

    fn hello_frame(&self) -> Option<Vec<u8>> {
        let hello = self.hello.lock().ok()?.clone();
        match encode(&Envelope::notice(ToExtension::Hello(hello)), MAX_ON_SOCKET) {
            Ok(frame) => Some(frame),
            Err(e) => {
                tracing::error!(error = %e, "cannot encode the hello");
                None
            }
        }
    }

    fn revoked(&self) -> Option<WireError> {
        let reason = self.revoked.lock().ok()?.clone()?;
        Some(WireError::new(ErrorCode::NotShared, reason))
    }

    /// Hands an event to the observer (at once, in order) and to subscribers.
    fn publish(&self, event: Event) {
        if let Some(observer) = &self.observer {
            observer(&event);
        }
        let _ = self.events.send(event);
    }
}

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
        let (browser, _) = watch::channel(None);
        let (events, _) = broadcast::channel(EVENT_BUFFER);
        let shared = Arc::new(Shared {
            observer,
            hello: Mutex::new(hello),
            revoked: Mutex::new(None),
            lost_at: Mutex::new(None),
            last_loss: Mutex::new(None),
            next_id: AtomicU64::new(1),
            pending: Mutex::new(HashMap::new()),
            browser,
            events,
        });
        let (outgoing, outgoing_rx) = mpsc::unbounded_channel();
        tokio::spawn(run_connection(socket, shared.clone(), outgoing_rx));
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

    /// How long ago the browser went away, if it was connected before and is not now:
    /// a browser coming back (its extension's worker restarting) is worth a longer wait
    /// than one that was never there.
    pub fn lost_for(&self) -> Option<Duration> {
        if self.browser_connected() {
            return None;
        }
        let lost = (*self.shared.lost_at.lock().ok()?)?;
        Some(lost.elapsed())
    }

    /// Sends one command and awaits its reply.
    ///
    /// Waits up to `connect_wait` for a browser first (an error saying what to do if
    /// none comes), then up to `reply_timeout` for the reply (a `Timeout` error naming
    /// the command). A command that could not be delivered because the connection had
    /// just dropped is sent again once the link reconnects (within `connect_wait`); one
    /// that was delivered is never sent twice: a browser that disconnects while it runs
    /// fails the call with `BrowserDisconnected`.
    pub async fn call(
        &self,
        command: Command,
        connect_wait: Duration,
        reply_timeout: Duration,
    ) -> Result<Reply, WireError> {
        let deadline = tokio::time::Instant::now() + connect_wait;
        loop {
            if let Some(revoked) = self.shared.revoked() {
                return Err(revoked);
            }
            let wait = deadline.saturating_duration_since(tokio::time::Instant::now());
            if !self.wait_for_browser(wait).await {
                return Err(self.shared.revoked().unwrap_or_else(|| self.no_browser()));
            }
            match self.send_once(command.clone(), reply_timeout).await? {
                // The browser side went away mid-call; a command that is safe to repeat
                // is sent again once it is back.
                Outcome::Answered(Err(e))
                    if e.code == ErrorCode::BrowserDisconnected
                        && command.is_idempotent()
                        && tokio::time::Instant::now() < deadline =>
                {
                    continue
                }
                Outcome::Answered(result) => return result,
                Outcome::NotDelivered if tokio::time::Instant::now() < deadline => continue,
                Outcome::NotDelivered => return Err(self.no_browser()),
            }
        }
    }

    /// One attempt at delivering a command and awaiting its outcome.
    async fn send_once(
        &self,
        command: Command,
        reply_timeout: Duration,
    ) -> Result<Outcome, WireError> {
        let name = command_name(&command);
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
        let outcome = tokio::time::timeout(reply_timeout, rx).await;
        drop(guard);
        match outcome {
            Ok(Ok(outcome)) => Ok(outcome),
            Ok(Err(_)) => Err(disconnected("the connection to the relay closed")),
            Err(_) => Err(WireError::new(
                ErrorCode::Timeout,
                format!(
                    "The browser did not answer the `{name}` command within {} ms. The page or \
                     browser may be busy; retry, or check the tab in the browser.",
                    reply_timeout.as_millis()
                ),
            )),
        }
    }

    /// Events from the browser, and `BrowserConnected`/`BrowserDisconnected` as the
    /// browser comes and goes.
    pub fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.shared.events.subscribe()
    }

    /// Whether a browser is connected right now.
    pub fn browser_connected(&self) -> bool {
        self.shared.browser.borrow().is_some()
    }

    /// The connected browser's extension version, if a browser is connected.
    pub fn browser_version(&self) -> Option<String> {
        self.shared.browser.borrow().clone()
    }

    /// [`no_browser`], with the relay's last word on why, if it said anything.
    fn no_browser(&self) -> WireError {
        let mut error = no_browser();
        let last = self.shared.last_loss.lock().ok().and_then(|l| l.clone());
        if let Some(reason) = last {
            error.message = format!(
                "{} (Last word from tabwire's relay: {reason}.)",
                error.message
            );
        }
        error
    }

    /// Waits until a browser is connected, up to `wait`; true if it is.
    pub async fn wait_for_browser(&self, wait: Duration) -> bool {
        let mut rx = self.shared.browser.subscribe();
        let outcome = tokio::time::timeout(wait, rx.wait_for(Option::is_some)).await;
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

/// The error for a call made while no browser is connected: what to do about it.
pub fn no_browser() -> WireError {
    WireError::new(
        ErrorCode::BrowserDisconnected,
        "No browser is connected to tabwire. To fix: (1) start Chrome (or Chromium, Edge or \
         Brave); (2) make sure the tabwire extension is installed and enabled at \
         chrome://extensions; (3) run `tabwire install` once so the browser can start \
         tabwire's native host; (4) if it still fails, run `tabwire doctor` to find the \
         broken link.",
    )
}

fn disconnected(why: &str) -> WireError {
    WireError::new(
        ErrorCode::BrowserDisconnected,
        format!(
            "The browser disconnected before answering ({why}). Check that the browser is \
             still running with the tabwire extension enabled, then retry."
        ),
    )
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

/// The command's wire name (`listTabs`, `evaluate`, ...), for messages.
fn command_name(command: &Command) -> String {
    serde_json::to_value(command)
        .ok()
        .and_then(|v| v.get("command")?.as_str().map(str::to_owned))
        .unwrap_or_else(|| "unknown".to_owned())
}

/// The connection task: connect, serve, back off, repeat, until every handle is gone.
async fn run_connection(
    socket: PathBuf,
    shared: Arc<Shared>,
    mut outgoing: mpsc::UnboundedReceiver<Outgoing>,
) {
    let mut backoff = BACKOFF_MIN;
    loop {
        match UnixStream::connect(&socket).await {
            Ok(stream) => {
                tracing::debug!(socket = %socket.display(), "connected to the relay");
                let hello_frame = shared.hello_frame().unwrap_or_default();
                let closed = serve(stream, &hello_frame, &shared, &mut outgoing).await;
                let was_connected = shared.browser.borrow().is_some();
                // Only a connection that reached a browser resets the back-off: a relay
                // that refuses this client (another user's) is not hammered.
                if was_connected {
                    backoff = BACKOFF_MIN;
                }
                shared.set_browser(None);
                shared.fail_all("the connection to tabwire's native host closed");
                if was_connected {
                    shared.publish(Event::BrowserDisconnected {
                        reason: "the connection to tabwire's native host closed".to_owned(),
                    });
                }
                match closed {
                    Closed::AllHandlesGone => return,
                    Closed::Revoked => return stay_revoked(&shared, &mut outgoing).await,
                    Closed::Dropped => {}
                }
            }
            Err(e) => {
                tracing::trace!(socket = %socket.display(), error = %e, "relay not reachable");
            }
        }
        // Back off, failing at once any call that slips in meanwhile.
        let sleep = tokio::time::sleep(backoff);
        tokio::pin!(sleep);
        loop {
            tokio::select! {
                _ = &mut sleep => break,
                msg = outgoing.recv() => match msg {
                    Some(msg) => {
                        if let Some(tx) = shared.take_pending(msg.id) {
                            let _ = tx.send(Outcome::NotDelivered);
                        }
                    }
                    None => return,
                },
            }
        }
        backoff = (backoff * 2).min(BACKOFF_MAX);
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Closed {
    Dropped,
    AllHandlesGone,
    /// The user disconnected this agent: do not come back.
    Revoked,
}

/// After a revocation: answers every call that slips in as undeliverable (the caller
/// then reports the revocation) until every handle is gone.
async fn stay_revoked(shared: &Shared, outgoing: &mut mpsc::UnboundedReceiver<Outgoing>) {
    while let Some(msg) = outgoing.recv().await {
        if let Some(tx) = shared.take_pending(msg.id) {
            let _ = tx.send(Outcome::NotDelivered);
        }
    }
}

/// Serves one connection until it drops (or every handle is gone).
async fn serve(
    stream: UnixStream,
    hello_frame: &[u8],
    shared: &Shared,
    outgoing: &mut mpsc::UnboundedReceiver<Outgoing>,
) -> Closed {
    let (read, mut write) = stream.into_split();
    if write_frame(&mut write, hello_frame).await.is_err() {
        return Closed::Dropped;
    }
    let mut reader = FrameReader::new(read, MAX_ON_SOCKET);
    loop {
        tokio::select! {
            frame = reader.next() => match frame {
                Ok(Some(body)) => {
                    if handle_incoming(shared, &body) == Handled::Revoked {
                        return Closed::Revoked;
                    }
                }
                Ok(None) => return Closed::Dropped,
                Err(e) => {
                    tracing::warn!(error = %e, "relay connection broke");
                    return Closed::Dropped;
                }
            },
            msg = outgoing.recv() => match msg {
                Some(msg) => {
                    if let Err(e) = write_frame(&mut write, &msg.frame).await {
                        tracing::warn!(error = %e, "writing to the relay failed");
                        if let Some(tx) = shared.take_pending(msg.id) {
                            let _ = tx.send(Outcome::NotDelivered);
                        }
                        return Closed::Dropped;
                    }
                }
                None => return Closed::AllHandlesGone,
            },
        }
    }
}

/// What a message from the relay meant for the connection.
#[derive(Debug, PartialEq, Eq)]
enum Handled {
    Done,
    Revoked,
}

/// One message from the relay: a reply for a pending call, or an event.
fn handle_incoming(shared: &Shared, body: &[u8]) -> Handled {
    let envelope: Envelope<FromExtension> = match serde_json::from_slice(body) {
        Ok(e) => e,
        Err(e) => {
            tracing::warn!(error = %e, "malformed message from the relay skipped");
            return Handled::Done;
        }
    };
    match (envelope.id, envelope.body) {
        (Some(id), FromExtension::Reply(result)) => match shared.take_pending(id) {
            Some(tx) => {
                let _ = tx.send(Outcome::Answered(result));
            }
            None => tracing::debug!(id, "reply to a call nobody awaits (timed out?)"),
        },
        (_, FromExtension::Event(event)) => {
            match &event {
                Event::BrowserConnected { version, .. } => {
                    shared.set_browser(Some(version.clone()))
                }
                Event::BrowserDisconnected { reason } => {
                    shared.set_browser(None);
                    shared.fail_all(reason);
                    if let Ok(mut last) = shared.last_loss.lock() {
                        *last = Some(reason.clone());
                    }
                }
                Event::Revoked { reason } => {
                    tracing::warn!(%reason, "the user disconnected this agent");
                    if let Ok(mut revoked) = shared.revoked.lock() {
                        *revoked = Some(revoked_message(reason));
                    }
                    shared.set_browser(None);
                    shared.fail_all(reason);
                    shared.publish(event);
                    return Handled::Revoked;
                }
                _ => {}
            }
            shared.publish(event);
        }
        (None, FromExtension::Reply(_)) => tracing::warn!("reply without an id skipped"),
        (_, FromExtension::Ping { .. }) => tracing::debug!("a heartbeat reached a client; skipped"),
    }
    Handled::Done
}

/// What every call answers once the user has disconnected this agent.
fn revoked_message(reason: &str) -> String {
    format!(
        "The user disconnected this agent from their browser ({reason}). tabwire will not \
         reconnect on its own: ask the user whether to continue, and if so restart this MCP \
         server and have them share a tab again with tabwire's toolbar button."
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::native_host::testing::TestRelay;
    use serde_json::json;

    const SHORT: Duration = Duration::from_millis(300);
    const LONG: Duration = Duration::from_secs(5);

    fn hello() -> ClientHello {
        ClientHello {
            client_name: "test-agent".into(),
            version: "0.0.1".into(),
            session: "test-session".into(),
        }
    }

    fn connected(version: &str) -> Envelope<FromExtension> {
        Envelope::notice(FromExtension::Event(Event::BrowserConnected {
            version: version.into(),
            instance: String::new(),
        }))
    }

    /// Reads the browser side until a call arrives; returns its relay-wide id.
    async fn next_call(relay: &mut TestRelay) -> (u64, serde_json::Value) {
        loop {
            let msg = relay.browser.recv().await;
            if let Some(id) = msg["id"].as_u64() {
                return (id, msg);
            }
        }
    }

    #[tokio::test]
    async fn call_reaches_the_browser_and_gets_its_reply() {
        let mut relay = TestRelay::start().await;
        relay.browser.send(&connected("2.0")).await;
        let link = Link::spawn(relay.socket.clone(), hello());
        let hello_seen = relay.browser.recv().await;
        assert_eq!(
            hello_seen["body"]["hello"]["clientName"],
            json!("test-agent")
        );

        let call = tokio::spawn({
            let link = link.clone();
            async move { link.call(Command::ListTabs, LONG, LONG).await }
        });
        let (id, msg) = next_call(&mut relay).await;
        assert_eq!(msg["body"]["call"]["command"], json!("listTabs"));
        relay
            .browser
            .send(&Envelope::request(
                id,
                FromExtension::Reply(Ok(Reply::Tabs { tabs: vec![] })),
            ))
            .await;
        assert_eq!(call.await.unwrap(), Ok(Reply::Tabs { tabs: vec![] }));
        assert!(link.browser_connected());
        assert_eq!(link.browser_version().as_deref(), Some("2.0"));
    }

    #[tokio::test]
    async fn the_agents_name_is_sent_when_it_becomes_known() {
        let mut relay = TestRelay::start().await;
        relay.browser.send(&connected("2.0")).await;
        let link = Link::spawn(relay.socket.clone(), hello());
        let first = relay.browser.recv().await;
        assert_eq!(first["body"]["hello"]["session"], json!("test-session"));
        link.introduce("Claude Code");
        let again = relay.browser.recv().await;
        assert_eq!(again["body"]["hello"]["clientName"], json!("Claude Code"));
        assert_eq!(again["body"]["hello"]["session"], json!("test-session"));
        assert_eq!(again["client"], first["client"]);
    }

    #[tokio::test]
    async fn a_revoked_link_fails_every_call_and_stays_away() {
        let mut relay = TestRelay::start().await;
        relay.browser.send(&connected("2.0")).await;
        let link = Link::spawn(relay.socket.clone(), hello());
        let hello_seen = relay.browser.recv().await;
        assert!(link.wait_for_browser(LONG).await);
        let pending = tokio::spawn({
            let link = link.clone();
            async move { link.call(Command::ListTabs, LONG, LONG).await }
        });
        next_call(&mut relay).await;
        let revoked = Envelope {
            id: None,
            client: hello_seen["client"].as_u64(),
            body: FromExtension::Event(Event::Revoked {
                reason: "disconnected in the tabwire popup".into(),
            }),
        };
        relay.browser.send(&revoked).await;
        let err = pending.await.unwrap().unwrap_err();
        assert_eq!(err.code, ErrorCode::NotShared, "{}", err.message);
        let err = link.call(Command::ListTabs, LONG, LONG).await.unwrap_err();
        assert_eq!(err.code, ErrorCode::NotShared);
        assert!(
            err.message.contains("disconnected this agent"),
            "{}",
            err.message
        );
        assert!(err.message.contains("tabwire popup"), "{}", err.message);
        // The link closed its connection and does not come back.
        assert!(relay.browser.recv().await["body"] == json!("clientGone"));
        assert!(relay.browser.quiet_for(SHORT).await);
    }

    #[tokio::test]
    async fn call_without_a_browser_says_what_to_do() {
        let dir = tempfile::tempdir().unwrap();
        let link = Link::spawn(dir.path().join("nobody.sock"), hello());
        let err = link.call(Command::ListTabs, SHORT, LONG).await.unwrap_err();
        assert_eq!(err.code, ErrorCode::BrowserDisconnected);
        for needle in ["Chrome", "extension", "tabwire install", "tabwire doctor"] {
            assert!(
                err.message.contains(needle),
                "{needle} missing: {}",
                err.message
            );
        }
        assert!(!link.browser_connected());
    }

    #[tokio::test]
    async fn connected_relay_without_browser_hello_is_not_a_browser() {
        let relay = TestRelay::start().await;
        let link = Link::spawn(relay.socket.clone(), hello());
        assert!(!link.wait_for_browser(SHORT).await);
    }

    #[tokio::test]
    async fn slow_reply_times_out_naming_the_command() {
        let mut relay = TestRelay::start().await;
        relay.browser.send(&connected("1")).await;
        let link = Link::spawn(relay.socket.clone(), hello());
        let call = tokio::spawn({
            let link = link.clone();
            async move {
                link.call(
                    Command::CloseTab { tab_id: 1 },
                    LONG,
                    Duration::from_millis(200),
                )
                .await
            }
        });
        let (id, _) = next_call(&mut relay).await;
        let err = call.await.unwrap().unwrap_err();
        assert_eq!(err.code, ErrorCode::Timeout);
        assert!(err.message.contains("closeTab"), "{}", err.message);
        // A late reply is dropped quietly and the link still works.
        relay
            .browser
            .send(&Envelope::request(
                id,
                FromExtension::Reply(Ok(Reply::Done)),
            ))
            .await;
        let call = tokio::spawn({
            let link = link.clone();
            async move { link.call(Command::ListTabs, LONG, LONG).await }
        });
        let (id, _) = next_call(&mut relay).await;
        relay
            .browser
            .send(&Envelope::request(
                id,
                FromExtension::Reply(Ok(Reply::Done)),
            ))
            .await;
        assert_eq!(call.await.unwrap(), Ok(Reply::Done));
    }

    #[tokio::test]
    async fn browser_leaving_mid_call_fails_it_and_is_announced() {
        let mut relay = TestRelay::start().await;
        relay.browser.send(&connected("1")).await;
        let link = Link::spawn(relay.socket.clone(), hello());
        let mut events = link.subscribe();
        let call = tokio::spawn({
            let link = link.clone();
            async move { link.call(evaluate(), LONG, LONG).await }
        });
        next_call(&mut relay).await;
        drop(relay.browser);
        let err = call.await.unwrap().unwrap_err();
        assert_eq!(err.code, ErrorCode::BrowserDisconnected);
        let mut saw_disconnect = false;
        while let Ok(Ok(event)) = tokio::time::timeout(LONG, events.recv()).await {
            if matches!(event, Event::BrowserDisconnected { .. }) {
                saw_disconnect = true;
                break;
            }
        }
        assert!(saw_disconnect);
        assert!(!link.browser_connected());
    }

    /// A command that is not safe to repeat.
    fn evaluate() -> Command {
        Command::Evaluate {
            tab_id: 1,
            function: "() => 1".into(),
            args: vec![],
            timeout_ms: 1000,
        }
    }

    #[tokio::test]
    async fn an_idempotent_call_whose_relay_died_is_sent_again_to_the_next_one() {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("relay.sock");
        let link = Link::spawn(socket.clone(), hello());
        let mut first = TestRelay::start_at(socket.clone(), tempfile::tempdir().unwrap()).await;
        first.browser.send(&connected("1")).await;
        assert!(link.wait_for_browser(LONG).await);
        let call = tokio::spawn({
            let link = link.clone();
            async move { link.call(Command::ListTabs, LONG, LONG).await }
        });
        next_call(&mut first).await;
        // The relay dies with the call unanswered; a new one takes its place.
        drop(first.browser);
        first.done.await.unwrap();
        drop(first.socket_file);
        let mut second = TestRelay::start_at(socket.clone(), tempfile::tempdir().unwrap()).await;
        second.browser.send(&connected("2")).await;
        let (id, msg) = next_call(&mut second).await;
        assert_eq!(msg["body"]["call"]["command"], "listTabs");
        second
            .browser
            .send(&Envelope {
                id: Some(id),
                client: msg["client"].as_u64(),
                body: FromExtension::Reply(Ok(Reply::Tabs { tabs: vec![] })),
            })
            .await;
        assert_eq!(call.await.unwrap(), Ok(Reply::Tabs { tabs: vec![] }));
    }

    #[tokio::test]
    async fn link_reconnects_and_says_hello_again_when_a_new_relay_appears() {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("relay.sock");
        let link = Link::spawn(socket.clone(), hello());
        let mut events = link.subscribe();

        // First browser: comes, then goes.
        let mut first = TestRelay::start_at(socket.clone(), tempfile::tempdir().unwrap()).await;
        first.browser.send(&connected("1")).await;
        assert!(link.wait_for_browser(LONG).await);
        assert!(first.browser.recv().await["body"]["hello"].is_object());
        drop(first.browser);
        first.done.await.unwrap();
        drop(first.socket_file);
        let deadline = tokio::time::Instant::now() + LONG;
        while link.browser_connected() && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(!link.browser_connected());

        // Second browser at the same path: the link finds it by itself.
        let mut second = TestRelay::start_at(socket.clone(), tempfile::tempdir().unwrap()).await;
        second.browser.send(&connected("2")).await;
        assert!(link.wait_for_browser(LONG).await);
        assert_eq!(link.browser_version().as_deref(), Some("2"));
        assert!(second.browser.recv().await["body"]["hello"].is_object());

        let mut seen = Vec::new();
        while let Ok(event) = events.try_recv() {
            seen.push(event);
        }
        assert!(seen.contains(&Event::BrowserConnected {
            version: "1".into(),
            instance: String::new(),
        }));
        assert!(seen
            .iter()
            .any(|e| matches!(e, Event::BrowserDisconnected { .. })));
        assert!(seen.contains(&Event::BrowserConnected {
            version: "2".into(),
            instance: String::new(),
        }));
    }

    #[tokio::test]
    async fn oversized_call_is_refused_by_the_relay_with_a_clear_error() {
        let relay = TestRelay::start().await;
        let mut browser = relay.browser;
        browser.send(&connected("1")).await;
        let link = Link::spawn(relay.socket.clone(), hello());
        let err = link
            .call(
                Command::Evaluate {
                    tab_id: 1,
                    function: "x".repeat(2 * 1024 * 1024),
                    args: vec![],
                    timeout_ms: 1,
                },
                LONG,
                LONG,
            )
            .await
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArgument);
        assert!(err.message.contains("too large"), "{}", err.message);
    }
}
