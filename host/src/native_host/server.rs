//! The relay's event loop: Chrome's stdio on one side, socket clients on the other.
//!
//! One task owns the [`Relay`] state and everything funnels into it through a channel:
//! frames read from Chrome, frames read from each client, connections closing. It hands
//! each [`Delivery`] to a writer task: one for Chrome (frames written whole and
//! flushed), one per client. A client that stops reading is disconnected once its
//! queue is full rather than stalling everyone; a client that sends an oversized frame
//! is disconnected alone. When Chrome's stream ends or cannot be trusted (or a signal
//! stops the host), the relay stops listening and removes its socket at once (so a
//! restarted worker's new host can take it), tells every client that the browser is
//! gone (why undecided, so they send nothing more), looks at whether the browser quit
//! or still runs ([`super::departure`]), tells them which and answers their pending
//! requests, lets their queues drain briefly, and returns.
//!
//! It does not parse or route messages itself ([`super::relay`] does) and does not
//! claim the socket ([`crate::transport`] does); it is written once for the Unix socket
//! and the Windows named pipe, over their byte streams.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tabwire_shared::framing::encode;
use tabwire_shared::framing::{MAX_FROM_BROWSER, MAX_ON_SOCKET};
use tabwire_shared::{Departure, Envelope, Event, FromExtension, HostInfo};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio::task::{AbortHandle, JoinHandle};

use super::departure::Lookout;
use super::relay::{ClientId, Delivery, Relay};
use crate::frames::{write_frame, FrameReader, ReadError};
use crate::transport::{check_peer, Accepted, Claim, Listener};

/// Frames queued for one client before it is considered stuck and disconnected.
const CLIENT_QUEUE: usize = 1024;
/// Most clients connected at once; more are told why and refused (agents are a few;
/// this bounds what a program opening connections without end makes the host hold).
pub const MAX_CLIENTS: usize = 512;
/// Once this many clients have left since the allocator last gave memory back, and
/// at most a quarter of the most connected at once remain, it is asked to
/// ([`crate::platform::release_free_memory`]) at once; fewer, once no client has left
/// for [`RELEASE_WHEN_QUIET`].
const RELEASE_AFTER_LEFT: usize = 64;
/// See [`RELEASE_AFTER_LEFT`].
const RELEASE_WHEN_QUIET: Duration = Duration::from_secs(2);
/// How long queued frames may take to reach clients once the browser is gone.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(2);
/// Something the event loop must react to.
enum Input {
    BrowserFrame(Vec<u8>),
    BrowserGone(Gone),
    ClientFrame(ClientId, Vec<u8>),
    ClientClosed(ClientId, Option<String>),
}

struct ClientHandle {
    queue: mpsc::Sender<Vec<u8>>,
    reader: AbortHandle,
    writer: JoinHandle<()>,
}

/// Why the relay stops serving the browser.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Gone {
    /// Chrome closed the native port (stdin ended between frames).
    PortClosed,
    /// Chrome's stream cannot be trusted any more (an oversized or cut-off frame, a
    /// read error): what happened.
    StreamBroke(String),
    /// Writing to Chrome failed: the error.
    WriteFailed(String),
    /// The host was asked to stop (a signal): the reason given.
    Stopped(String),
}

impl Gone {
    /// The reason clients are told, once what became of the browser is known.
    fn reason(&self, cause: Departure) -> String {
        match (self, cause) {
            (_, Departure::BrowserQuit) => "the browser quit".to_owned(),
            (Gone::PortClosed, Departure::BrowserRunning) => "Chrome closed tabwire's native \
                port while the browser kept running: the extension's service worker stopped, \
                or the extension was reloaded or disabled"
                .to_owned(),
            (gone, _) => gone.to_string(),
        }
    }
}

impl std::fmt::Display for Gone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Gone::PortClosed => f.write_str("Chrome closed tabwire's native port"),
            Gone::StreamBroke(e) => write!(f, "the browser's message stream broke: {e}"),
            Gone::WriteFailed(e) => write!(f, "writing to the browser failed: {e}"),
            Gone::Stopped(reason) => f.write_str(reason),
        }
    }
}

/// Runs the relay until the browser goes away (or `stop` completes, with its reason),
/// then returns the reason.
///
/// `browser_in`/`browser_out` are Chrome's side (stdin/stdout in production, pipes in
/// tests); `listener` is the bound relay socket (or pipe); `host` is what the extension is told
/// first ([`tabwire_shared::ToExtension::HostReady`]); `lookout` tells, on the way
/// out, whether the browser quit or still runs. The socket file is removed as soon as
/// the browser is gone, before the clients are told: by then no agent finds a socket
/// that nothing answers on.
pub async fn serve<R, W>(
    browser_in: R,
    browser_out: W,
    (mut listener, socket_file): (Listener, Claim),
    host: HostInfo,
    stop: impl Future<Output = String>,
    lookout: Lookout,
) -> String
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (inputs, mut input_rx) = mpsc::channel::<Input>(256);
    let browser_reader = tokio::spawn(read_browser(browser_in, inputs.clone()));
    let (to_browser, to_browser_rx) = mpsc::unbounded_channel();
    let written = Arc::new(AtomicU64::new(0));
    let browser_writer = tokio::spawn(write_browser(
        browser_out,
        to_browser_rx,
        Arc::clone(&written),
        inputs.clone(),
    ));

    let mut state = Loop {
        relay: Relay::new(),
        clients: HashMap::new(),
        to_browser,
        queued: 0,
        inputs,
        most_clients: 0,
        left: 0,
        release_at: None,
    };
    let hello = state.relay.host_ready(host);
    state.deliver(hello);
    tokio::pin!(stop);
    let gone = loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(stream) => state.admit(stream),
                Err(e) => {
                    tracing::warn!(error = %e, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
            input = input_rx.recv() => {
                // The loop holds a sender, so the channel never closes.
                let Some(input) = input else { break Gone::Stopped("internal error".to_owned()) };
                if let Some(gone) = state.handle(input) {
                    break gone;
                }
            }
            reason = &mut stop => break Gone::Stopped(reason),
            () = sleep_until(state.release_at), if state.release_at.is_some() => {
                state.give_back_memory();
            }
        }
    };
    // Another host (a restarted worker's) may bind the socket while this one looks;
    // one that does says the browser still runs.
    let address = socket_file.path().to_path_buf();
    drop(listener);
    drop(socket_file);
    browser_reader.abort();
    let out = state.relay.browser_closing(&gone.to_string());
    state.deliver(out);
    let cause = lookout
        .look(|| crate::transport::taken_again(&address))
        .await;
    let reason = gone.reason(cause);
    tracing::info!(%reason, ?cause, "browser gone; relay stopping");
    // Calls that came after the loop ended were never passed on.
    while let Ok(input) = input_rx.try_recv() {
        if let Input::ClientFrame(client, body) = input {
            let out = state.relay.too_late(client, &body, &reason);
            state.deliver(out);
        }
    }
    // Requests whose frames never reached Chrome's pipe did not run: the relay says so,
    // from the writer's count once it has stopped for good.
    browser_writer.abort();
    let _ = browser_writer.await;
    let out = state
        .relay
        .browser_gone(&reason, cause, written.load(Ordering::Acquire));
    state.deliver(out);
    state.shut_down().await;
    reason
}

/// The event loop's state.
struct Loop {
    relay: Relay,
    clients: HashMap<ClientId, ClientHandle>,
    to_browser: mpsc::UnboundedSender<Vec<u8>>,
    /// How many frames were queued for the browser (the writer counts those written).
    queued: u64,
    inputs: mpsc::Sender<Input>,
    /// The most clients connected at once since memory was last given back.
    most_clients: usize,
    /// Clients that left since memory was last given back.
    left: usize,
    /// When to give memory back if no other client leaves before.
    release_at: Option<tokio::time::Instant>,
}

impl Loop {
    /// Handles one input; returns why to stop when the browser is gone (the clients
    /// are told after [`Lookout::look`]).
    fn handle(&mut self, input: Input) -> Option<Gone> {
        match input {
            Input::BrowserFrame(body) => {
                let out = self.relay.from_browser(&body);
                self.deliver(out);
            }
            Input::ClientFrame(client, body) => {
                let out = self.relay.from_client(client, &body);
                self.deliver(out);
            }
            Input::ClientClosed(client, why) => {
                match why {
                    Some(why) => tracing::info!(client, %why, "client disconnected"),
                    None => tracing::info!(client, "client disconnected"),
                }
                self.drop_client(client);
            }
            Input::BrowserGone(gone) => return Some(gone),
        }
        None
    }

    /// Takes a new connection: checks the peer, registers it, starts its tasks.
    fn admit(&mut self, stream: Accepted) {
        if let Err(why) = check_peer(&stream) {
            tracing::warn!(%why, "connection refused");
            let reason = format!(
                "tabwire's relay refused this connection: {why}. Run the agent as the same \
                 user as the browser"
            );
            tokio::spawn(tell_refused(stream, reason));
            return;
        }
        if self.clients.len() >= MAX_CLIENTS {
            tracing::warn!(clients = MAX_CLIENTS, "connection refused: too many");
            let reason = format!(
                "tabwire's relay refused this connection: {MAX_CLIENTS} connections are open \
                 to it already, the most it serves at once. Close agents that are not in use \
                 (or the program opening connections to it), then retry"
            );
            tokio::spawn(tell_refused(stream, reason));
            return;
        }
        let (id, greeting) = self.relay.client_connected();
        self.most_clients = self.most_clients.max(self.clients.len() + 1);
        tracing::info!(client = id, "client connected");
        let (read, write) = tokio::io::split(stream);
        let (queue, queue_rx) = mpsc::channel(CLIENT_QUEUE);
        let reader = tokio::spawn(read_client(id, read, self.inputs.clone())).abort_handle();
        let writer = tokio::spawn(write_client(id, write, queue_rx, self.inputs.clone()));
        self.clients.insert(
            id,
            ClientHandle {
                queue,
                reader,
                writer,
            },
        );
        self.deliver(greeting);
    }

    /// Forgets a client and tells the browser it has gone.
    fn drop_client(&mut self, client: ClientId) {
        if let Some(handle) = self.clients.remove(&client) {
            handle.reader.abort();
            // A writer blocked on a peer that stopped reading would hold its queue
            // forever: end it now, which closes the connection.
            handle.writer.abort();
        }
        let out = self.relay.client_gone(client);
        self.deliver(out);
        self.left += 1;
        if self.left >= RELEASE_AFTER_LEFT && self.clients.len() * 4 <= self.most_clients {
            self.give_back_memory();
        } else {
            self.release_at = Some(tokio::time::Instant::now() + RELEASE_WHEN_QUIET);
        }
    }

    /// After clients left (a burst of short connections, or a quiet moment since),
    /// lets go of what their maps and the allocator held for them, so the host returns
    /// to its size.
    fn give_back_memory(&mut self) {
        self.release_at = None;
        self.clients.shrink_to_fit();
        self.relay.shrink_to_fit();
        crate::platform::release_free_memory();
        tracing::debug!(
            most = self.most_clients,
            left = self.left,
            "memory of gone clients given back"
        );
        self.most_clients = self.clients.len();
        self.left = 0;
    }

    /// Hands frames to their writers.
    fn deliver(&mut self, out: Vec<Delivery>) {
        let mut stuck = Vec::new();
        for delivery in out {
            match delivery {
                Delivery::Browser(frame) => {
                    // If the writer has died it has already reported the browser gone.
                    let _ = self.to_browser.send(frame);
                    self.queued += 1;
                }
                Delivery::Client(client, frame) => {
                    let Some(handle) = self.clients.get(&client) else {
                        continue;
                    };
                    if let Err(e) = handle.queue.try_send(frame) {
                        if matches!(e, mpsc::error::TrySendError::Full(_)) {
                            tracing::warn!(client, "client is not reading; disconnecting it");
                        }
                        stuck.push(client);
                    }
                }
            }
        }
        self.relay.queued_up_to(self.queued);
        for client in stuck {
            self.drop_client(client);
        }
    }

    /// Closes every client after its queued frames are written (bounded in time).
    async fn shut_down(self) {
        let mut writers = Vec::new();
        for (_, handle) in self.clients {
            handle.reader.abort();
            drop(handle.queue);
            writers.push(handle.writer);
        }
        let all = async {
            for writer in writers.iter_mut() {
                let _ = writer.await;
            }
        };
        if tokio::time::timeout(DRAIN_TIMEOUT, all).await.is_err() {
            tracing::warn!("some clients did not take their last messages in time");
            for writer in writers {
                writer.abort();
            }
        }
    }
}

/// Completes at `at` (never when `None`; the loop does not poll it then).
async fn sleep_until(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

async fn read_browser<R: AsyncRead + Unpin>(input: R, inputs: mpsc::Sender<Input>) {
    let mut reader = FrameReader::new(input, MAX_FROM_BROWSER);
    loop {
        let event = match reader.next().await {
            Ok(Some(body)) => Input::BrowserFrame(body),
            Ok(None) => Input::BrowserGone(Gone::PortClosed),
            Err(e @ ReadError::TooLarge { .. }) => {
                tracing::error!(error = %e, "the browser's stream cannot be trusted any more");
                Input::BrowserGone(Gone::StreamBroke(e.to_string()))
            }
            Err(e) => Input::BrowserGone(Gone::StreamBroke(e.to_string())),
        };
        let last = matches!(event, Input::BrowserGone(_));
        if inputs.send(event).await.is_err() || last {
            return;
        }
    }
}

/// Writes the frames queued for the browser, in order, counting in `written` those
/// written whole.
async fn write_browser<W: AsyncWrite + Unpin>(
    mut out: W,
    mut frames: mpsc::UnboundedReceiver<Vec<u8>>,
    written: Arc<AtomicU64>,
    inputs: mpsc::Sender<Input>,
) {
    while let Some(frame) = frames.recv().await {
        if let Err(e) = write_frame(&mut out, &frame).await {
            let gone = Gone::WriteFailed(e.to_string());
            let _ = inputs.send(Input::BrowserGone(gone)).await;
            return;
        }
        written.fetch_add(1, Ordering::Release);
    }
}

async fn read_client<R: AsyncRead + Unpin>(id: ClientId, input: R, inputs: mpsc::Sender<Input>) {
    let mut reader = FrameReader::new(input, MAX_ON_SOCKET);
    loop {
        let event = match reader.next().await {
            Ok(Some(body)) => Input::ClientFrame(id, body),
            Ok(None) => Input::ClientClosed(id, None),
            Err(e) => Input::ClientClosed(id, Some(e.to_string())),
        };
        let last = matches!(event, Input::ClientClosed(..));
        if inputs.send(event).await.is_err() || last {
            return;
        }
    }
}

async fn write_client<W: AsyncWrite + Unpin>(
    id: ClientId,
    mut out: W,
    mut frames: mpsc::Receiver<Vec<u8>>,
    inputs: mpsc::Sender<Input>,
) {
    while let Some(frame) = frames.recv().await {
        if let Err(e) = write_frame(&mut out, &frame).await {
            let _ = inputs
                .send(Input::ClientClosed(
                    id,
                    Some(format!("writing failed: {e}")),
                ))
                .await;
            return;
        }
    }
    let _ = out.shutdown().await;
}

/// Tells a refused peer why, in one notice, then closes its connection. Bounded, so a
/// peer that does not read cannot hold the task.
async fn tell_refused(mut stream: Accepted, reason: String) {
    let notice = Envelope::notice(FromExtension::Event(Event::BrowserDisconnected {
        reason,
        cause: Departure::Unknown,
    }));
    let Ok(frame) = encode(&notice, MAX_ON_SOCKET) else {
        return;
    };
    let write = async {
        let _ = write_frame(&mut stream, &frame).await;
        let _ = stream.shutdown().await;
    };
    let _ = tokio::time::timeout(DRAIN_TIMEOUT, write).await;
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;
    use tabwire_shared::requests::*;
    use tabwire_shared::{Command, Envelope, Event, FromExtension, Reply, ToExtension};

    use crate::transport::Connected;

    use super::super::testing::{browser_connected, FakePeer, TestRelay, STEP};

    /// `client` sends a `listTabs` call with its own request `id`; returns it as it
    /// reached the browser.
    async fn call_through(
        relay: &mut TestRelay,
        client: &mut FakePeer<Connected>,
        id: u64,
    ) -> serde_json::Value {
        client.send(&list_tabs(id)).await;
        relay.browser.recv().await
    }

    fn list_tabs(id: u64) -> Envelope<ToExtension> {
        Envelope::request(id, ToExtension::Call(Command::ListTabs(ListTabs)))
    }

    fn value_reply(id: u64, value: serde_json::Value) -> Envelope<FromExtension> {
        Envelope::request(id, FromExtension::Reply(Ok(Reply::new(&value).unwrap())))
    }

    #[tokio::test(start_paused = true)]
    async fn relay_routes_between_a_browser_and_two_socket_clients() {
        let mut relay = TestRelay::with_browser("1.2.3").await;

        let mut a = relay.client().await;
        let mut b = relay.client().await;
        for c in [&mut a, &mut b] {
            let hello = c.recv().await;
            assert_eq!(hello["body"]["event"]["version"], json!("1.2.3"));
        }

        // Both clients use request id 1; each gets its own reply.
        let first = call_through(&mut relay, &mut a, 1).await;
        let second = call_through(&mut relay, &mut b, 1).await;
        assert_ne!(first["id"], second["id"]);
        assert_ne!(first["client"], second["client"]);
        let (a_global, b_global) = (
            first["id"].as_u64().unwrap(),
            second["id"].as_u64().unwrap(),
        );
        relay.browser.send(&value_reply(b_global, json!("b"))).await;
        relay.browser.send(&value_reply(a_global, json!("a"))).await;
        let got_b = b.recv().await;
        let got_a = a.recv().await;
        assert_eq!(
            (got_a["id"].clone(), got_a["body"]["reply"]["Ok"].clone()),
            (json!(1), json!("a"))
        );
        assert_eq!(
            (got_b["id"].clone(), got_b["body"]["reply"]["Ok"].clone()),
            (json!(1), json!("b"))
        );

        // An event for everyone, then one for b only.
        let closed = Envelope::notice(FromExtension::Event(Event::TabClosed { tab_id: 5 }));
        relay.browser.send(&closed).await;
        assert_eq!(a.recv().await["body"]["event"]["tabId"], json!(5));
        assert_eq!(b.recv().await["body"]["event"]["tabId"], json!(5));
        let mut targeted = Envelope::notice(FromExtension::Event(Event::TabClosed { tab_id: 6 }));
        targeted.client = second["client"].as_u64();
        relay.browser.send(&targeted).await;
        assert_eq!(b.recv().await["body"]["event"]["tabId"], json!(6));
        assert!(a.quiet_for(Duration::from_millis(100)).await);

        // a leaves: the browser hears about it.
        drop(a);
        let gone = relay.browser.recv().await;
        assert_eq!(
            gone,
            json!({"client": first["client"], "body": "clientGone"})
        );

        // The browser leaves with b's request outstanding.
        call_through(&mut relay, &mut b, 2).await;
        drop(relay.browser);
        // At once: the browser is gone, why is to be decided; then why.
        let first = b.recv().await;
        assert_eq!(
            first["body"]["event"],
            json!({"event": "browserDisconnected", "reason": "Chrome closed tabwire's native port",
                "cause": "undecided"})
        );
        let notice = b.recv().await;
        assert_eq!(notice["body"]["event"]["cause"], json!("browserRunning"));
        let reason = notice["body"]["event"]["reason"].as_str().unwrap();
        assert!(reason.contains("kept running"), "{reason}");
        let answer = b.recv().await;
        assert_eq!(answer["id"], json!(2));
        assert_eq!(
            answer["body"]["reply"]["Err"]["code"],
            json!("browserDisconnected")
        );
        assert!(
            !relay.socket.exists(),
            "the socket is gone before clients hear why"
        );
        assert!(b.closed().await, "the relay closes its clients");
        let reason = relay.done.await.unwrap();
        assert!(reason.contains("kept running"), "{reason}");
    }

    #[tokio::test(start_paused = true)]
    async fn oversized_frame_from_the_browser_ends_the_relay_cleanly() {
        let mut relay = TestRelay::start().await;
        let mut a = relay.client().await;
        // Make sure the relay has registered the client before the browser breaks.
        a.send(&Envelope::notice(ToExtension::Hello(
            tabwire_shared::ClientHello {
                client_name: "a".into(),
                version: "1".into(),
                session: "s".into(),
                probe: false,
                folder: None,
            },
        )))
        .await;
        relay.browser.recv().await;
        let huge = (u32::MAX).to_ne_bytes();
        relay.browser.send_raw(&huge).await;
        let notice = a.recv().await;
        assert_eq!(
            notice["body"]["event"]["event"],
            json!("browserDisconnected")
        );
        assert!(relay.done.await.unwrap().contains("limit"));
    }

    #[tokio::test(start_paused = true)]
    async fn a_misbehaving_client_is_dropped_alone() {
        let mut relay = TestRelay::with_browser("1").await;
        let mut bad = relay.greeted_client().await;
        let mut good = relay.greeted_client().await;

        // Malformed bodies are skipped; the stream stays usable.
        bad.send_raw(&[3, 0, 0, 0, b'{', b'x', b'y']).await;
        let forwarded = call_through(&mut relay, &mut bad, 1).await;
        assert_eq!(forwarded["body"]["call"]["command"], json!("listTabs"));

        // A declared length over the socket limit disconnects that client only.
        bad.send_raw(&u32::MAX.to_ne_bytes()).await;
        assert!(bad.closed().await);
        assert_eq!(relay.browser.recv().await["body"], json!("clientGone"));
        let forwarded = call_through(&mut relay, &mut good, 9).await;
        relay
            .browser
            .send(&value_reply(forwarded["id"].as_u64().unwrap(), json!(true)))
            .await;
        assert_eq!(good.recv().await["id"], json!(9));
    }

    #[tokio::test]
    async fn a_connection_past_the_most_served_is_told_why_and_one_leaving_makes_room() {
        let relay = TestRelay::with_browser("1").await;
        let mut clients = Vec::new();
        for _ in 0..super::MAX_CLIENTS {
            clients.push(relay.greeted_client().await);
        }
        let mut refused = relay.client().await;
        let notice = refused.recv().await;
        let reason = notice["body"]["event"]["reason"]
            .as_str()
            .unwrap_or_default();
        assert!(reason.contains("512 connections are open"), "{reason}");
        assert!(refused.closed().await);
        // One leaves: the next is served (its greeting is the browser's hello).
        drop(clients.pop());
        let deadline = tokio::time::Instant::now() + STEP;
        loop {
            let mut next = relay.client().await;
            let first = next.recv().await;
            if first["body"]["event"]["event"] == json!("browserConnected") {
                break;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "no room made: {first}"
            );
        }
    }

    #[tokio::test(start_paused = true)]
    async fn stop_signal_tells_clients_and_ends_the_relay() {
        let mut relay = TestRelay::start().await;
        let mut a = relay.client().await;
        call_through(&mut relay, &mut a, 3).await;
        let _ = relay.stop.take().unwrap().send("stopped (SIGTERM)".into());
        for cause in ["undecided", "browserRunning"] {
            let notice = a.recv().await;
            assert_eq!(
                notice["body"]["event"]["reason"],
                json!("stopped (SIGTERM)")
            );
            assert_eq!(notice["body"]["event"]["cause"], json!(cause));
        }
        assert_eq!(
            a.recv().await["body"]["reply"]["Err"]["code"],
            json!("browserDisconnected")
        );
        assert_eq!(relay.done.await.unwrap(), "stopped (SIGTERM)");
    }

    #[tokio::test(start_paused = true)]
    async fn a_port_closed_by_a_quitting_browser_is_told_as_a_quit() {
        let mut relay = TestRelay::with_browser("1").await;
        let mut a = relay.greeted_client().await;
        call_through(&mut relay, &mut a, 4).await;
        // The browser process exits a moment after closing the port.
        relay.parent.exit_in(Duration::from_millis(10));
        drop(relay.browser);
        assert_eq!(a.recv().await["body"]["event"]["cause"], json!("undecided"));
        let notice = a.recv().await;
        assert_eq!(
            notice["body"]["event"],
            json!({"event": "browserDisconnected", "reason": "the browser quit",
                "cause": "browserQuit"})
        );
        let answer = a.recv().await;
        let message = answer["body"]["reply"]["Err"]["message"].as_str().unwrap();
        assert!(message.starts_with("The browser quit"), "{message}");
        assert!(a.closed().await);
        assert_eq!(relay.done.await.unwrap(), "the browser quit");
    }

    #[tokio::test(start_paused = true)]
    async fn a_signal_while_the_browser_quits_is_told_as_a_quit() {
        let mut relay = TestRelay::start().await;
        let mut a = relay.client().await;
        call_through(&mut relay, &mut a, 1).await;
        // A SIGTERM to the browser's process group reaches the host too.
        relay.parent.exit_in(Duration::from_millis(10));
        let _ = relay.stop.take().unwrap().send("stopped (SIGTERM)".into());
        assert_eq!(a.recv().await["body"]["event"]["cause"], json!("undecided"));
        assert_eq!(
            a.recv().await["body"]["event"]["cause"],
            json!("browserQuit")
        );
    }

    /// A socket file goes as soon as the relay stops listening; a new host taking it
    /// (a restarted worker's) says the browser still runs, without waiting out the look.
    #[cfg(unix)]
    #[tokio::test(start_paused = true)]
    async fn while_the_host_looks_another_can_take_the_socket() {
        // Looking for longer than the test takes: only the new host ends it.
        let mut relay = TestRelay::start_watching(STEP * 2).await;
        relay.browser.send(&browser_connected("1")).await;
        let mut a = relay.greeted_client().await;
        // A worker that stopped and is woken at once starts a new host right away.
        drop(relay.browser);
        // The clients hear at once that the browser is gone, so they send nothing more.
        assert_eq!(a.recv().await["body"]["event"]["cause"], json!("undecided"));
        let path = relay.socket.clone();
        let rebind = async {
            loop {
                match crate::transport::bind_exclusive(&path) {
                    Ok(bound) => break bound,
                    Err(_) => tokio::task::yield_now().await,
                }
            }
        };
        let rebound = tokio::time::timeout(STEP, rebind)
            .await
            .expect("the socket is free while the old host looks at its browser");
        let taken = tokio::time::Instant::now();
        // The old host's clients still hear why it went: the browser runs.
        assert_eq!(
            a.recv().await["body"]["event"]["cause"],
            json!("browserRunning")
        );
        let took = taken.elapsed();
        assert!(
            took < Duration::from_millis(100),
            "told {took:?} after the new host took the socket"
        );
        relay.done.await.unwrap();
        assert!(
            path.exists(),
            "the old host leaves the new host's socket alone"
        );
        drop(rebound);
    }

    /// A pipe's name lives while the old relay's clients' instances do: a new host
    /// waits for the old one to finish ([`crate::transport::RELEASE_WAIT`]).
    #[cfg(windows)]
    #[tokio::test(start_paused = true)]
    async fn a_new_host_gets_the_pipe_once_the_old_one_is_done() {
        let mut relay = TestRelay::start_watching(STEP * 2).await;
        relay.browser.send(&browser_connected("1")).await;
        let mut a = relay.greeted_client().await;
        drop(relay.browser);
        assert_eq!(a.recv().await["body"]["event"]["cause"], json!("undecided"));
        let path = relay.socket.clone();
        assert!(matches!(
            crate::transport::bind_exclusive(&path),
            Err(crate::transport::BindError::AlreadyServed(_))
        ));
        relay.parent.exit_in(Duration::ZERO);
        assert_eq!(
            a.recv().await["body"]["event"]["cause"],
            json!("browserQuit")
        );
        relay.done.await.unwrap();
        assert!(a.closed().await);
        drop(a);
        let rebound = crate::transport::bind_patiently(&path).await;
        assert!(rebound.is_ok(), "{:?}", rebound.err());
    }
}
