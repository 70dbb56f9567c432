//! Test helpers: a real relay on a temporary socket (a pipe of its own on Windows) with
//! a fake browser on in-memory pipes, and raw socket clients. Compiled for tests only.

use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use tabwire_shared::framing::{encode, MAX_FROM_BROWSER, MAX_ON_SOCKET};
use tabwire_shared::{Envelope, Event, FromExtension, HostInfo};
use tokio::io::{DuplexStream, ReadHalf, WriteHalf};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::departure::{FakeParent, Lookout};
use super::server::serve;
use crate::frames::{write_frame, FrameReader, ReadError};
use crate::transport::{self, Connected};

/// How long a test waits for any one message before failing.
pub const STEP: Duration = Duration::from_secs(5);

/// How long a test relay looks at its (fake) browser process on the way out.
pub const TEST_WATCH: Duration = Duration::from_millis(50);

/// A relay serving a temporary socket, and the fake browser's end of its stdio.
pub struct TestRelay {
    pub socket: PathBuf,
    pub browser: FakePeer<DuplexStream>,
    /// Completes with the reason the relay stopped.
    pub done: JoinHandle<String>,
    /// Stops the relay as a signal would.
    pub stop: Option<oneshot::Sender<String>>,
    /// The fake browser process: alive (the browser still runs when its port closes)
    /// unless a test makes it exit.
    pub parent: std::sync::Arc<FakeParent>,
    _dir: tempfile::TempDir,
}

impl TestRelay {
    /// Starts a relay on a fresh socket; its first message to the browser, the host's
    /// introduction, has been received and checked.
    pub async fn start() -> Self {
        let (dir, socket) = transport::test_address();
        Self::launch(socket, dir, TEST_WATCH).await
    }

    /// Like [`TestRelay::start`], and the browser (extension `version`) has said hello.
    pub async fn with_browser(version: &str) -> Self {
        let mut relay = Self::start().await;
        relay.browser.send(&browser_connected(version)).await;
        relay
    }

    /// A raw client of this relay.
    pub async fn client(&self) -> FakePeer<Connected> {
        client(&self.socket).await
    }

    /// A raw client of this relay that has read its first message (the browser's
    /// hello, passed on).
    pub async fn greeted_client(&self) -> FakePeer<Connected> {
        let mut client = self.client().await;
        client.recv().await;
        client
    }

    /// Like [`TestRelay::start`], looking at its fake browser process for `watch` on
    /// the way out.
    pub async fn start_watching(watch: Duration) -> Self {
        let (dir, socket) = transport::test_address();
        Self::launch(socket, dir, watch).await
    }

    /// Starts a relay on `socket` (inside `dir`, kept alive with the relay), like
    /// [`TestRelay::start`].
    pub async fn start_at(socket: PathBuf, dir: tempfile::TempDir) -> Self {
        Self::launch(socket, dir, TEST_WATCH).await
    }

    async fn launch(socket: PathBuf, dir: tempfile::TempDir, watch: Duration) -> Self {
        let bound = transport::bind_patiently(&socket).await.expect("bind");
        let (browser_end, relay_end) = tokio::io::duplex(MAX_FROM_BROWSER);
        let (relay_in, relay_out) = tokio::io::split(relay_end);
        let (stop, stop_rx) = oneshot::channel::<String>();
        let stopped = async move {
            match stop_rx.await {
                Ok(reason) => reason,
                // Dropping the sender means "never stop this way".
                Err(_) => std::future::pending().await,
            }
        };
        let host = HostInfo {
            version: "test".into(),
            agent_profile: true,
        };
        let parent = FakeParent::alive();
        let lookout = Lookout::new(parent.clone(), watch);
        let done = tokio::spawn(serve(relay_in, relay_out, bound, host, stopped, lookout));
        let mut relay = Self {
            socket,
            browser: FakePeer::new(browser_end, MAX_ON_SOCKET).deaf_to_pings(),
            done,
            stop: Some(stop),
            parent,
            _dir: dir,
        };
        let first = relay.browser.recv().await;
        assert_eq!(
            first["body"]["hostReady"]["agentProfile"],
            serde_json::json!(true),
            "the relay introduces the host first: {first}"
        );
        relay
    }
}

/// One end of a framed stream, speaking JSON values.
pub struct FakePeer<S> {
    reader: FrameReader<ReadHalf<S>>,
    writer: WriteHalf<S>,
    /// Pings are skipped unseen, as by a peer of a version without them.
    deaf_to_pings: bool,
}

impl<S: tokio::io::AsyncRead + tokio::io::AsyncWrite> FakePeer<S> {
    pub fn new(stream: S, limit: usize) -> Self {
        let (read, write) = tokio::io::split(stream);
        Self {
            reader: FrameReader::new(read, limit),
            writer: write,
            deaf_to_pings: false,
        }
    }

    /// This peer skips the pings it is sent, unseen and unanswered (the fake browser:
    /// the relay pings it only when an agent asks whether it answers).
    pub fn deaf_to_pings(mut self) -> Self {
        self.deaf_to_pings = true;
        self
    }

    /// The next message, pings included, failing the test after [`STEP`].
    pub async fn recv_any(&mut self) -> Value {
        let body = tokio::time::timeout(STEP, self.reader.next())
            .await
            .expect("a message in time")
            .expect("a readable stream")
            .expect("not closed");
        serde_json::from_slice(&body).expect("JSON")
    }

    /// Sends one message.
    pub async fn send<T: Serialize>(&mut self, msg: &T) {
        let frame = encode(msg, MAX_FROM_BROWSER).expect("encode");
        write_frame(&mut self.writer, &frame).await.expect("write");
    }

    /// Sends raw bytes (for malformed or oversized frames).
    pub async fn send_raw(&mut self, bytes: &[u8]) {
        write_frame(&mut self.writer, bytes).await.expect("write");
    }

    /// The next message (pings aside, if this peer is deaf to them), failing the test
    /// after [`STEP`].
    pub async fn recv(&mut self) -> Value {
        loop {
            let message = self.recv_any().await;
            if !(self.deaf_to_pings && message["body"]["ping"].is_object()) {
                return message;
            }
        }
    }

    /// Waits for the stream to end (cleanly or not); true if it did within [`STEP`].
    pub async fn closed(&mut self) -> bool {
        loop {
            match tokio::time::timeout(STEP, self.reader.next()).await {
                Err(_) => return false,
                Ok(Ok(Some(_))) => continue,
                Ok(Ok(None)) | Ok(Err(ReadError::Truncated { .. })) | Ok(Err(_)) => return true,
            }
        }
    }

    /// Nothing arrives within `wait` (pings aside, if this peer is deaf to them).
    pub async fn quiet_for(&mut self, wait: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let Ok(next) = tokio::time::timeout_at(deadline, self.reader.next()).await else {
                return true;
            };
            let ping = match next {
                Ok(Some(body)) => serde_json::from_slice::<Value>(&body)
                    .is_ok_and(|m| m["body"]["ping"].is_object()),
                _ => false,
            };
            if !(self.deaf_to_pings && ping) {
                return false;
            }
        }
    }
}

/// The extension's hello as the browser sends it: connected, with this version.
pub fn browser_connected(version: &str) -> Envelope<FromExtension> {
    Envelope::notice(FromExtension::Event(Event::BrowserConnected {
        version: version.into(),
        instance: String::new(),
        pieces: tabwire_shared::pieces::VERSION,
    }))
}

/// Connects a raw client to the relay socket.
pub async fn client(socket: &std::path::Path) -> FakePeer<Connected> {
    FakePeer::new(
        transport::connect(socket).await.expect("connect"),
        MAX_ON_SOCKET,
    )
}
