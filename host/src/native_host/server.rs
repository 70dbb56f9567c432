//! The relay's event loop: Chrome's stdio on one side, socket clients on the other.
//!
//! One task owns the [`Relay`] state and everything funnels into it through a channel:
//! frames read from Chrome, frames read from each client, connections closing. It hands
//! each [`Delivery`] to a writer task: one for Chrome (frames written whole and
//! flushed), one per client. A client that stops reading is disconnected once its
//! queue is full rather than stalling everyone; a client that sends an oversized frame
//! is disconnected alone. When Chrome's stream ends or cannot be trusted, the relay
//! tells every client, lets their queues drain briefly, and returns.
//!
//! It does not parse or route messages itself ([`super::relay`] does) and does not
//! claim the socket ([`super::socket`] does).

use std::collections::HashMap;
use std::future::Future;
use std::time::Duration;

use tabwire_shared::framing::{MAX_FROM_BROWSER, MAX_ON_SOCKET};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::mpsc;
use tokio::task::{AbortHandle, JoinHandle};

use super::framing::{write_frame, FrameReader, ReadError};
use super::relay::{ClientId, Delivery, Relay};
use super::socket::check_peer;

/// Frames queued for one client before it is considered stuck and disconnected.
const CLIENT_QUEUE: usize = 1024;
/// How long queued frames may take to reach clients once the browser is gone.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(2);

/// Something the event loop must react to.
enum Input {
    BrowserFrame(Vec<u8>),
    BrowserGone(String),
    ClientFrame(ClientId, Vec<u8>),
    ClientClosed(ClientId, Option<String>),
}

struct ClientHandle {
    queue: mpsc::Sender<Vec<u8>>,
    reader: AbortHandle,
    writer: JoinHandle<()>,
}

/// Runs the relay until the browser goes away (or `stop` completes, with its reason),
/// then returns the reason.
///
/// `browser_in`/`browser_out` are Chrome's side (stdin/stdout in production, pipes in
/// tests); `listener` is the bound relay socket.
pub async fn serve<R, W>(
    browser_in: R,
    browser_out: W,
    listener: UnixListener,
    stop: impl Future<Output = String>,
) -> String
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (inputs, mut input_rx) = mpsc::channel::<Input>(256);
    let browser_reader = tokio::spawn(read_browser(browser_in, inputs.clone()));
    let (to_browser, to_browser_rx) = mpsc::unbounded_channel();
    let browser_writer = tokio::spawn(write_browser(browser_out, to_browser_rx, inputs.clone()));

    let mut state = Loop {
        relay: Relay::new(),
        clients: HashMap::new(),
        to_browser,
        inputs,
    };
    tokio::pin!(stop);
    let reason = loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => state.admit(stream),
                Err(e) => {
                    tracing::warn!(error = %e, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
            input = input_rx.recv() => {
                // The loop holds a sender, so the channel never closes.
                let Some(input) = input else { break "internal error".to_owned() };
                if let Some(reason) = state.handle(input) {
                    break reason;
                }
            }
            reason = &mut stop => {
                let out = state.relay.browser_gone(&reason);
                state.deliver(out);
                break reason;
            }
        }
    };
    tracing::info!(%reason, "browser gone; relay stopping");
    drop(listener);
    browser_reader.abort();
    state.shut_down().await;
    browser_writer.abort();
    reason
}

/// The event loop's state.
struct Loop {
    relay: Relay,
    clients: HashMap<ClientId, ClientHandle>,
    to_browser: mpsc::UnboundedSender<Vec<u8>>,
    inputs: mpsc::Sender<Input>,
}

impl Loop {
    /// Handles one input; returns the reason to stop when the browser is gone.
    fn handle(&mut self, input: Input) -> Option<String> {
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
            Input::BrowserGone(reason) => {
                let out = self.relay.browser_gone(&reason);
                self.deliver(out);
                return Some(reason);
            }
        }
        None
    }

    /// Takes a new connection: checks the peer, registers it, starts its tasks.
    fn admit(&mut self, stream: UnixStream) {
        if let Err(why) = check_peer(&stream) {
            tracing::warn!(%why, "connection refused");
            return;
        }
        let (id, greeting) = self.relay.client_connected();
        tracing::info!(client = id, "client connected");
        let (read, write) = stream.into_split();
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
            // Dropping the queue ends the writer, which closes the connection.
        }
        let out = self.relay.client_gone(client);
        self.deliver(out);
    }

    /// Hands frames to their writers.
    fn deliver(&mut self, out: Vec<Delivery>) {
        let mut stuck = Vec::new();
        for delivery in out {
            match delivery {
                Delivery::Browser(frame) => {
                    // If the writer has died it has already reported the browser gone.
                    let _ = self.to_browser.send(frame);
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

async fn read_browser<R: AsyncRead + Unpin>(input: R, inputs: mpsc::Sender<Input>) {
    let mut reader = FrameReader::new(input, MAX_FROM_BROWSER);
    loop {
        let event = match reader.next().await {
            Ok(Some(body)) => Input::BrowserFrame(body),
            Ok(None) => Input::BrowserGone("the browser closed the connection".to_owned()),
            Err(e @ ReadError::TooLarge { .. }) => {
                tracing::error!(error = %e, "the browser's stream cannot be trusted any more");
                Input::BrowserGone(format!("the browser's message stream broke: {e}"))
            }
            Err(e) => Input::BrowserGone(format!("the browser's message stream broke: {e}")),
        };
        let last = matches!(event, Input::BrowserGone(_));
        if inputs.send(event).await.is_err() || last {
            return;
        }
    }
}

async fn write_browser<W: AsyncWrite + Unpin>(
    mut out: W,
    mut frames: mpsc::UnboundedReceiver<Vec<u8>>,
    inputs: mpsc::Sender<Input>,
) {
    while let Some(frame) = frames.recv().await {
        if let Err(e) = write_frame(&mut out, &frame).await {
            let reason = format!("writing to the browser failed: {e}");
            let _ = inputs.send(Input::BrowserGone(reason)).await;
            return;
        }
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
