//! The connection task: connect, say hello, serve, back off, repeat — until every
//! handle is gone or the user disconnects this agent.

use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tabwire_shared::backoff::Backoff;
use tabwire_shared::framing::{encode, MAX_ON_SOCKET};
use tabwire_shared::{Envelope, ErrorCode, Event, FromExtension, ToExtension};
use tokio::io::{AsyncRead, ReadBuf};
use tokio::sync::mpsc;
use tokio::time::{Instant, MissedTickBehavior};

use super::errors::revoked_message;
use super::liveness::PING_EVERY;
use super::shared::Shared;
use super::{Outcome, Outgoing};
use crate::frames::{write_frame, FrameReader};
use crate::transport::{self, Connected};

/// First and longest pause between connection attempts.
const BACKOFF: Backoff = Backoff::new(Duration::from_millis(100), Duration::from_secs(1));

/// The connection task: connect, serve, back off, repeat, until every handle is gone.
pub(super) async fn run_connection(
    socket: PathBuf,
    shared: Arc<Shared>,
    mut outgoing: mpsc::UnboundedReceiver<Outgoing>,
) {
    let mut backoff = BACKOFF;
    // The last refusal logged, so a relay refused again is not logged each time.
    let mut refused: Option<String> = None;
    loop {
        match transport::connect(&socket).await {
            Ok(stream) => {
                tracing::debug!(socket = %socket.display(), "connected to the relay");
                shared.relay_connected();
                let hello_frame = shared.hello_frame().unwrap_or_default();
                let (closed, reached) = serve(stream, &hello_frame, &shared, &mut outgoing).await;
                // Only a connection that reached a browser resets the back-off: a relay
                // that refuses this client (another user's) is not hammered.
                if reached {
                    backoff.reset();
                }
                shared.relay_closed();
                match closed {
                    Closed::AllHandlesGone => return,
                    Closed::Revoked => return stay_revoked(&shared, &mut outgoing).await,
                    Closed::Dropped => {}
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
                // Another user's relay: said on stderr, where `tabwire doctor` sends one.
                if refused.as_deref() != Some(&e.to_string()) {
                    tracing::warn!("refused the relay: {e}");
                    shared.relay_refused(&e.to_string());
                    refused = Some(e.to_string());
                }
            }
            Err(e) => {
                tracing::trace!(socket = %socket.display(), error = %e, "relay not reachable");
            }
        }
        // Back off, failing at once any call that slips in meanwhile.
        let sleep = tokio::time::sleep(backoff.next_delay());
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

/// Serves one connection until it drops (or every handle is gone); also says whether a
/// browser was connected through it at some point. The relay is pinged once at once
/// (so it is known whether it answers pings), then every [`PING_EVERY`] while calls
/// are out ([`super::liveness`]).
async fn serve(
    stream: Connected,
    hello_frame: &[u8],
    shared: &Shared,
    outgoing: &mut mpsc::UnboundedReceiver<Outgoing>,
) -> (Closed, bool) {
    let (read, mut write) = tokio::io::split(stream);
    if write_frame(&mut write, hello_frame).await.is_err() {
        return (Closed::Dropped, false);
    }
    let mut pings = Pings::default();
    if write_frame(&mut write, &pings.next()).await.is_err() {
        return (Closed::Dropped, false);
    }
    let mut ticks = tokio::time::interval_at(Instant::now() + PING_EVERY, PING_EVERY);
    ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let read = Noted {
        inner: read,
        shared,
    };
    let mut reader = FrameReader::new(read, MAX_ON_SOCKET);
    let mut reached = false;
    loop {
        let closed = tokio::select! {
            _ = ticks.tick() => {
                let answers = shared.with_liveness(|l| l.relay_answers()) == Some(true);
                if !answers || !shared.calls_out() {
                    continue;
                }
                if let Err(e) = write_frame(&mut write, &pings.next()).await {
                    tracing::warn!(error = %e, "pinging the relay failed");
                    Closed::Dropped
                } else {
                    continue;
                }
            },
            frame = reader.next() => match frame {
                Ok(Some(body)) => {
                    let handled = handle_incoming(shared, &body);
                    reached |= shared.browser_connected();
                    if handled == Handled::Revoked {
                        Closed::Revoked
                    } else {
                        continue;
                    }
                }
                Ok(None) => Closed::Dropped,
                Err(e) => {
                    tracing::warn!(error = %e, "relay connection broke");
                    Closed::Dropped
                }
            },
            msg = outgoing.recv() => match msg {
                Some(msg) => {
                    let Err(e) = write_frame(&mut write, &msg.frame).await else {
                        continue;
                    };
                    tracing::warn!(error = %e, "writing to the relay failed");
                    if let Some(tx) = shared.take_pending(msg.id) {
                        let _ = tx.send(Outcome::NotDelivered);
                    }
                    Closed::Dropped
                }
                None => Closed::AllHandlesGone,
            },
        };
        return (closed, reached);
    }
}

/// The relay's side of the connection, noting every arrival as a sign of life
/// ([`super::liveness`]): a large reply still streaming in shows that the relay
/// answers, before its last byte is there.
struct Noted<'a, R> {
    inner: R,
    shared: &'a Shared,
}

impl<R: AsyncRead + Unpin> AsyncRead for Noted<'_, R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            let now = Instant::now();
            self.shared.with_liveness(|l| l.heard(now));
        }
        polled
    }
}

/// The link's pings to the relay, numbered.
#[derive(Default)]
struct Pings {
    last: u64,
}

impl Pings {
    /// The next ping, encoded.
    fn next(&mut self) -> Vec<u8> {
        self.last += 1;
        let ping = Envelope::notice(ToExtension::Ping { seq: self.last });
        encode(&ping, MAX_ON_SOCKET).unwrap_or_default()
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
                let outcome = match result {
                    // The relay never passed it on: as if the connection had dropped
                    // before it was sent.
                    Err(e) if e.code == ErrorCode::NotDelivered => Outcome::NotDelivered,
                    result => Outcome::Answered(result),
                };
                let _ = tx.send(outcome);
            }
            None => tracing::debug!(id, "reply to a call nobody awaits (timed out?)"),
        },
        (_, FromExtension::Event(event)) => {
            match &event {
                Event::BrowserConnected {
                    version, instance, ..
                } => shared.browser_arrived(version, instance),
                Event::BrowserDisconnected { reason, cause } => {
                    tracing::info!(%reason, ?cause, "the native host said goodbye");
                    shared.browser_left(reason, *cause);
                }
                Event::Revoked { reason } => {
                    tracing::warn!(%reason, "the user disconnected this agent");
                    if let Ok(mut revoked) = shared.revoked.lock() {
                        *revoked = Some(revoked_message(reason));
                    }
                    shared.browser_revoked();
                    if let Some(revoked) = shared.revoked() {
                        shared.fail_all_with(&revoked);
                    }
                    shared.publish(event);
                    return Handled::Revoked;
                }
                _ => {}
            }
            shared.publish(event);
        }
        (None, FromExtension::Reply(_)) => tracing::warn!("reply without an id skipped"),
        (_, FromExtension::Ping { .. }) => tracing::debug!("a heartbeat reached a client; skipped"),
        (_, FromExtension::Pong { extension, .. }) => {
            let now = Instant::now();
            shared.with_liveness(|l| l.pong(extension, now));
        }
    }
    Handled::Done
}
