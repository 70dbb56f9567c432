//! The native host on Windows, as Chrome starts it there, relaying to two clients over
//! its named pipe. Windows only (run under wine by `scripts/test-windows`).
//!
//! Chrome on Windows starts a native host as `cmd.exe /d /s /c ""<manifest's path>"
//! chrome-extension://<id>/ --parent-window=<id>"` with its standard streams on pipes.
//! This test does the same with the `.cmd` wrapper `tabwire install` writes, plays the
//! extension on the host's stdin and stdout, and connects two relay clients to the
//! pipe: frames in, frames out, each client answered on its own ids, events to both,
//! and a goodbye to both when the extension's port closes. Frames whose length prefix
//! holds CR, LF and Ctrl+Z bytes, and bodies full of CR LF, check that nothing on the
//! way translates text.
//!
//! Not tested here: a client of another Windows user being refused (wine runs every
//! process as one user; the verdict is unit-tested on another user's SID in
//! `transport::windows`), and a real Chrome (none runs here).
#![cfg(windows)]

use std::os::windows::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::{json, Value};
use tabwire::frames::{write_frame, FrameReader};
use tabwire::paths::{self, HostEnv, HostManifest};
use tabwire::transport;
use tabwire_shared::framing::{encode, HEADER_LEN, MAX_FROM_BROWSER, MAX_ON_SOCKET};
use tabwire_shared::requests::{Evaluate, ListTabs};
use tabwire_shared::{
    ClientHello, Command, Envelope, Event, FromExtension, Reply, ToExtension, EXTENSION_ORIGIN,
};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::process::{Child, ChildStdin, ChildStdout};

/// How long any one step may take (wine starts processes slowly).
const STEP: Duration = Duration::from_secs(30);

/// One end of a framed stream.
struct Peer<R, W> {
    reader: FrameReader<R>,
    writer: W,
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> Peer<R, W> {
    async fn send(&mut self, message: &impl serde::Serialize) {
        let frame = encode(message, MAX_FROM_BROWSER).unwrap();
        write_frame(&mut self.writer, &frame).await.unwrap();
    }

    async fn recv(&mut self) -> Value {
        let body = tokio::time::timeout(STEP, self.reader.next())
            .await
            .expect("a message in time")
            .expect("a whole frame")
            .expect("not closed");
        serde_json::from_slice(&body).expect("JSON")
    }

    /// Reads until the stream ends; true if it did in time.
    async fn closed(&mut self) -> bool {
        loop {
            match tokio::time::timeout(STEP, self.reader.next()).await {
                Err(_) => return false,
                Ok(Ok(Some(_))) => continue,
                Ok(_) => return true,
            }
        }
    }

    /// The next message that is a call (skipping notices); its relay-wide id.
    async fn next_call(&mut self) -> (u64, Value) {
        loop {
            let message = self.recv().await;
            if let (Some(id), true) = (message["id"].as_u64(), message["body"]["call"].is_object())
            {
                return (id, message);
            }
        }
    }
}

/// The native host as Chrome starts it, serving `pipe`; the extension's side of its
/// stdio.
struct Host {
    child: Child,
    browser: Peer<ChildStdout, ChildStdin>,
    _dir: tempfile::TempDir,
}

/// Writes the wrapper and manifest as `tabwire install` does (with `pipe` as the relay),
/// and starts the manifest's program as Chrome does.
async fn start_host(pipe: &Path) -> Host {
    let dir = tempfile::tempdir().unwrap();
    let manifest = paths::write_native_host_registration(
        &dir.path().join("hosts"),
        &dir.path().join("bin"),
        Path::new(env!("CARGO_BIN_EXE_tabwire")),
        HostEnv {
            socket: Some(pipe),
            agent_profile: false,
        },
    )
    .unwrap();
    let manifest: HostManifest =
        serde_json::from_str(&std::fs::read_to_string(manifest).unwrap()).unwrap();
    let wrapper: PathBuf = manifest.path;
    assert_eq!(
        wrapper.extension().and_then(|e| e.to_str()),
        Some("cmd"),
        "{}",
        wrapper.display()
    );
    let mut command = std::process::Command::new("cmd.exe");
    command
        .raw_arg(format!(
            "/d /s /c \"\"{}\" {EXTENSION_ORIGIN} --parent-window=0\"",
            wrapper.display()
        ))
        .env("TABWIRE_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    let mut child = tokio::process::Command::from(command)
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let browser = Peer {
        reader: FrameReader::new(child.stdout.take().unwrap(), MAX_FROM_BROWSER),
        writer: child.stdin.take().unwrap(),
    };
    Host {
        child,
        browser,
        _dir: dir,
    }
}

/// A relay client, connected once the host serves the pipe.
async fn client(pipe: &Path, name: &str) -> Peer<impl AsyncRead + Unpin, impl AsyncWrite + Unpin> {
    let deadline = tokio::time::Instant::now() + STEP;
    let stream = loop {
        match transport::connect(pipe).await {
            Ok(stream) => break stream,
            Err(e) if tokio::time::Instant::now() < deadline => {
                let _ = e;
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(e) => panic!("no relay on {}: {e}", pipe.display()),
        }
    };
    let (read, write) = tokio::io::split(stream);
    let mut peer = Peer {
        reader: FrameReader::new(read, MAX_ON_SOCKET),
        writer: write,
    };
    peer.send(&Envelope::notice(ToExtension::Hello(ClientHello {
        client_name: name.into(),
        version: "0".into(),
        session: format!("{name}-session"),
        probe: false,
        folder: None,
    })))
    .await;
    peer
}

/// The extension's hello, padded with CR LF between JSON tokens so that its frame is
/// `size` bytes long.
fn padded_hello(version: &str, size: usize) -> Vec<u8> {
    let hello = Envelope::notice(FromExtension::Event(Event::BrowserConnected {
        version: version.into(),
        instance: "run-1".into(),
        pieces: tabwire_shared::pieces::VERSION,
    }));
    let text = serde_json::to_string(&hello).unwrap();
    let open = text.len() - 1;
    let padding = size - HEADER_LEN - text.len();
    let mut body = text.as_bytes()[..open].to_vec();
    if padding % 2 == 1 {
        body.push(b' ');
    }
    body.extend("\r\n".repeat(padding / 2).as_bytes());
    body.push(b'}');
    let mut frame = u32::try_from(body.len()).unwrap().to_ne_bytes().to_vec();
    frame.extend(body);
    frame
}

#[tokio::test]
async fn chromes_host_relays_frames_between_the_extension_and_two_clients() {
    let pipe = PathBuf::from(format!(r"\\.\pipe\tabwire-it-{}", std::process::id()));
    let mut host = start_host(&pipe).await;

    // The host introduces itself to the extension first.
    let ready = host.browser.recv().await;
    assert_eq!(
        ready["body"]["hostReady"]["agentProfile"],
        json!(false),
        "{ready}"
    );

    // The extension says hello in a frame whose length prefix is 1A 0D 0A 00 (Ctrl+Z,
    // CR, LF): a text-mode stdin would end or shorten it.
    let size = 0x000A_0D1A + HEADER_LEN;
    let frame = padded_hello("9.8.7", size);
    assert_eq!(&frame[..HEADER_LEN], &0x000A_0D1Au32.to_ne_bytes());
    write_frame(&mut host.browser.writer, &frame).await.unwrap();

    let mut a = client(&pipe, "agent-a").await;
    let mut b = client(&pipe, "agent-b").await;
    for peer in [&mut a, &mut b] {
        let hello = peer.recv().await;
        assert_eq!(hello["body"]["event"]["event"], json!("browserConnected"));
        assert_eq!(hello["body"]["event"]["version"], json!("9.8.7"));
    }

    // Both clients use request id 1; each gets its own reply.
    let list = |id| Envelope::request(id, ToExtension::Call(Command::ListTabs(ListTabs)));
    a.send(&list(1)).await;
    let (a_id, a_call) = host.browser.next_call().await;
    b.send(&list(1)).await;
    let (b_id, b_call) = host.browser.next_call().await;
    assert_ne!(a_id, b_id);
    assert_ne!(a_call["client"], b_call["client"]);
    let reply = |id, value: &str| {
        Envelope::request(
            id,
            FromExtension::Reply(Ok(Reply::new(&json!(value)).unwrap())),
        )
    };
    host.browser.send(&reply(b_id, "for b")).await;
    host.browser.send(&reply(a_id, "for a")).await;
    for (peer, expected) in [(&mut a, "for a"), (&mut b, "for b")] {
        let got = peer.recv().await;
        assert_eq!(got["id"], json!(1));
        assert_eq!(got["body"]["reply"]["Ok"], json!(expected));
    }

    // Calls of every length from 3000 to 3299 bytes: some frames the host writes to
    // stdout have a LF (0x0A) or CR (0x0D) in their length prefix, which a text-mode
    // stdout would turn into two bytes. Every one must arrive whole and in order.
    for (n, pad) in (3000..3300).enumerate() {
        let call = Command::Evaluate(Evaluate {
            tab_id: 1,
            function: "x".repeat(pad),
            args: vec![],
            timeout_ms: 1000,
        });
        a.send(&Envelope::request(100 + n as u64, ToExtension::Call(call)))
            .await;
    }
    for pad in 3000..3300 {
        let (_, call) = host.browser.next_call().await;
        let function = call["body"]["call"]["function"]
            .as_str()
            .unwrap_or_default();
        assert_eq!(function.len(), pad, "calls arrive whole and in order");
    }

    // An event for everyone reaches both.
    let closed = Envelope::notice(FromExtension::Event(Event::TabClosed { tab_id: 5 }));
    host.browser.send(&closed).await;
    for peer in [&mut a, &mut b] {
        assert_eq!(peer.recv().await["body"]["event"]["tabId"], json!(5));
    }

    // The extension's port closes: both clients hear that the browser went, and the
    // host exits cleanly. This test process (the "browser", above cmd.exe) still runs.
    drop(host.browser.writer);
    for peer in [&mut a, &mut b] {
        let mut causes = Vec::new();
        while causes.last() != Some(&json!("browserRunning")) {
            let message = peer.recv().await;
            if message["body"]["event"]["event"] == json!("browserDisconnected") {
                causes.push(message["body"]["event"]["cause"].clone());
            }
        }
        assert_eq!(causes, [json!("undecided"), json!("browserRunning")]);
        // Then the answers to its calls left pending, and the end.
        assert!(peer.closed().await, "the host closes its clients");
    }
    let status = tokio::time::timeout(STEP, host.child.wait())
        .await
        .expect("the host exits")
        .unwrap();
    assert!(status.success(), "{status}");
}

#[tokio::test]
async fn a_second_host_for_the_same_pipe_is_refused_while_the_first_serves() {
    let pipe = PathBuf::from(format!(r"\\.\pipe\tabwire-it2-{}", std::process::id()));
    let mut first = start_host(&pipe).await;
    first.browser.recv().await;
    let mut watcher = client(&pipe, "watcher").await;
    first
        .browser
        .send(&Envelope::notice(FromExtension::Event(
            Event::BrowserConnected {
                version: "1".into(),
                instance: String::new(),
                pieces: tabwire_shared::pieces::VERSION,
            },
        )))
        .await;
    watcher.recv().await;

    let mut second = start_host(&pipe).await;
    let status = tokio::time::timeout(STEP, second.child.wait())
        .await
        .expect("the second host gives up")
        .unwrap();
    assert!(!status.success(), "{status}");
    // The first one still serves its client.
    first
        .browser
        .send(&Envelope::notice(FromExtension::Event(Event::TabClosed {
            tab_id: 9,
        })))
        .await;
    let mut heard = watcher.recv().await;
    // The second host's look at the pipe was a client that came and went.
    while heard["body"]["event"]["tabId"] != json!(9) {
        heard = watcher.recv().await;
    }
    drop(first.browser.writer);
    let status = tokio::time::timeout(STEP, first.child.wait())
        .await
        .expect("the first host exits")
        .unwrap();
    assert!(status.success(), "{status}");
}
