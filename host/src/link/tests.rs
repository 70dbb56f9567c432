use std::path::{Path, PathBuf};

use super::absence::RECONNECT_GRACE;
use super::*;
use crate::frames::{write_frame, FrameReader};
use crate::native_host::testing::{TestRelay, TEST_WATCH};
use serde_json::json;
use tabwire_shared::requests::*;
use tabwire_shared::{Departure, FromExtension};
use tokio::io::{ReadHalf, WriteHalf};
use tokio::task::JoinHandle;

mod liveness;

const SHORT: Duration = Duration::from_millis(300);
const LONG: Duration = Duration::from_secs(5);

fn hello() -> ClientHello {
    ClientHello {
        client_name: "test-agent".into(),
        version: "0.0.1".into(),
        session: "test-session".into(),
        probe: false,
        folder: None,
    }
}

fn connected(version: &str) -> Envelope<FromExtension> {
    connected_run(version, "")
}

fn connected_run(version: &str, instance: &str) -> Envelope<FromExtension> {
    Envelope::notice(FromExtension::Event(Event::BrowserConnected {
        version: version.into(),
        instance: instance.into(),
        pieces: 0,
    }))
}

/// A command that is not safe to repeat.
fn evaluate() -> Command {
    Command::Evaluate(Evaluate {
        tab_id: 1,
        function: "() => 1".into(),
        args: vec![],
        timeout_ms: 1000,
    })
}

/// A socket path in a fresh folder (a pipe name of its own on Windows), kept valid by
/// the returned guard.
fn socket_path() -> (tempfile::TempDir, PathBuf) {
    crate::transport::test_address()
}

/// A relay at `socket` whose browser has said hello as `hello`.
async fn relay_at(socket: &Path, hello: Envelope<FromExtension>) -> TestRelay {
    let mut relay = TestRelay::start_at(socket.to_path_buf(), tempfile::tempdir().unwrap()).await;
    relay.browser.send(&hello).await;
    relay
}

/// `command` on the link in the background, with the usual waits.
fn call_later(link: &Link, command: Command) -> JoinHandle<Result<Reply, WireError>> {
    call_later_within(link, command, LONG)
}

/// `command` on the link in the background, waiting `reply_wait` for its answer.
fn call_later_within(
    link: &Link,
    command: Command,
    reply_wait: Duration,
) -> JoinHandle<Result<Reply, WireError>> {
    let link = link.clone();
    tokio::spawn(async move { link.call(command, LONG, reply_wait).await })
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

/// The browser answers the call with relay-wide `id`.
async fn answer(relay: &mut TestRelay, id: u64, reply: Reply) {
    let answer = Envelope::request(id, FromExtension::Reply(Ok(reply)));
    relay.browser.send(&answer).await;
}

/// The browser answers the next call that reaches it; returns that call.
async fn answer_next_call(relay: &mut TestRelay, reply: Reply) -> serde_json::Value {
    let (id, msg) = next_call(relay).await;
    answer(relay, id, reply).await;
    msg
}

/// Waits (bounded) for the link to hear a `BrowserDisconnected`; returns its cause.
async fn first_word(events: &mut broadcast::Receiver<Event>) -> Departure {
    loop {
        match tokio::time::timeout(LONG, events.recv()).await {
            Ok(Ok(Event::BrowserDisconnected { cause, .. })) => return cause,
            Ok(Ok(_)) => continue,
            other => panic!("no word of the browser leaving reached the link: {other:?}"),
        }
    }
}

/// Waits (bounded) for the link to hear a decided `BrowserDisconnected`; returns its
/// cause.
async fn goodbye(events: &mut broadcast::Receiver<Event>) -> Departure {
    loop {
        let cause = first_word(events).await;
        if cause != Departure::Undecided {
            return cause;
        }
    }
}

/// A relay and a link connected through it to a browser.
async fn joined() -> (TestRelay, Link, broadcast::Receiver<Event>) {
    let mut relay = TestRelay::with_browser("1").await;
    let link = Link::spawn(relay.socket.clone(), hello());
    let events = link.subscribe();
    assert!(link.wait_for_browser(LONG).await);
    assert!(relay.browser.recv().await["body"]["hello"].is_object());
    (relay, link, events)
}

/// A native host of the test's own making at a socket: it has accepted its first
/// client and read that client's hello, and says only what the test tells it.
struct FakeHost {
    listener: (crate::transport::Listener, crate::transport::Claim),
    reader: FrameReader<ReadHalf<crate::transport::Accepted>>,
    write: WriteHalf<crate::transport::Accepted>,
}

impl FakeHost {
    /// Binds `socket` and waits for the first client's hello.
    async fn serve(socket: &Path) -> Self {
        let mut listener = crate::transport::bind_exclusive(socket).unwrap();
        let stream = listener.0.accept().await.unwrap();
        let (read, write) = tokio::io::split(stream);
        let mut host = Self {
            listener,
            reader: FrameReader::new(read, MAX_ON_SOCKET),
            write,
        };
        assert!(host.heard().await, "no hello");
        host
    }

    /// Tells the client `message`.
    async fn tell(&mut self, message: &Envelope<FromExtension>) {
        let frame = encode(message, MAX_ON_SOCKET).unwrap();
        write_frame(&mut self.write, &frame).await.unwrap();
    }

    /// Whether the client sent another message, its pings aside (this host answers
    /// none, like one of a version without them).
    async fn heard(&mut self) -> bool {
        loop {
            let Ok(Some(body)) = self.reader.next().await else {
                return false;
            };
            let message: serde_json::Value = serde_json::from_slice(&body).unwrap();
            if message["body"]["ping"].is_null() {
                return true;
            }
        }
    }

    /// Dies without another word.
    fn vanish(self) {
        drop((self.reader, self.write, self.listener));
    }
}

/// A native host that tells its first client `first` once it has said hello, then
/// dies without another word.
async fn vanishing_host(socket: &Path, first: Envelope<FromExtension>) {
    let mut host = FakeHost::serve(socket).await;
    host.tell(&first).await;
    host.vanish();
}

#[tokio::test(start_paused = true)]
async fn call_reaches_the_browser_and_gets_its_reply() {
    let mut relay = TestRelay::with_browser("2.0").await;
    let link = Link::spawn(relay.socket.clone(), hello());
    let hello_seen = relay.browser.recv().await;
    assert_eq!(
        hello_seen["body"]["hello"]["clientName"],
        json!("test-agent")
    );

    let call = call_later(&link, Command::ListTabs(ListTabs));
    let msg = answer_next_call(&mut relay, Reply::new(&json!([])).unwrap()).await;
    assert_eq!(msg["body"]["call"]["command"], json!("listTabs"));
    assert_eq!(call.await.unwrap(), Ok(Reply::new(&json!([])).unwrap()));
    assert!(link.browser_connected());
    assert_eq!(link.browser_version().as_deref(), Some("2.0"));
}

#[tokio::test(start_paused = true)]
async fn the_agents_name_is_sent_when_it_becomes_known() {
    let mut relay = TestRelay::with_browser("2.0").await;
    let link = Link::spawn(relay.socket.clone(), hello());
    let first = relay.browser.recv().await;
    assert_eq!(first["body"]["hello"]["session"], json!("test-session"));
    link.introduce("Claude Code");
    let again = relay.browser.recv().await;
    assert_eq!(again["body"]["hello"]["clientName"], json!("Claude Code"));
    assert_eq!(again["body"]["hello"]["session"], json!("test-session"));
    assert_eq!(again["client"], first["client"]);
}

#[tokio::test(start_paused = true)]
async fn a_revoked_link_fails_every_call_and_stays_away() {
    let mut relay = TestRelay::with_browser("2.0").await;
    let link = Link::spawn(relay.socket.clone(), hello());
    let hello_seen = relay.browser.recv().await;
    assert!(link.wait_for_browser(LONG).await);
    let pending = call_later(&link, Command::ListTabs(ListTabs));
    next_call(&mut relay).await;
    let revoked = Envelope {
        id: None,
        client: hello_seen["client"].as_u64(),
        body: FromExtension::Event(Event::Revoked {
            reason: "The user disconnected this agent from the browser in tabwire's popup.".into(),
        }),
    };
    relay.browser.send(&revoked).await;
    let err = pending.await.unwrap().unwrap_err();
    assert_eq!(err.code, ErrorCode::NotShared, "{}", err.message);
    let err = link
        .call(Command::ListTabs(ListTabs), LONG, LONG)
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotShared);
    assert!(
        err.message.contains("disconnected this agent"),
        "{}",
        err.message
    );
    assert!(
        err.message
            .contains("tabwire's popup. tabwire will not reconnect"),
        "{}",
        err.message
    );
    // The link closed its connection and does not come back.
    assert!(relay.browser.recv().await["body"] == json!("clientGone"));
    assert!(relay.browser.quiet_for(SHORT).await);
}

#[tokio::test(start_paused = true)]
async fn call_without_a_browser_says_what_to_do() {
    let (_dir, socket) = socket_path();
    let link = Link::spawn(socket, hello());
    let err = link
        .call(Command::ListTabs(ListTabs), SHORT, LONG)
        .await
        .unwrap_err();
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

#[tokio::test(start_paused = true)]
async fn connected_relay_without_browser_hello_is_not_a_browser() {
    let relay = TestRelay::start().await;
    let link = Link::spawn(relay.socket.clone(), hello());
    assert!(!link.wait_for_browser(SHORT).await);
}

#[tokio::test(start_paused = true)]
async fn slow_reply_times_out_naming_the_command() {
    let mut relay = TestRelay::with_browser("1").await;
    let link = Link::spawn(relay.socket.clone(), hello());
    let call = call_later_within(
        &link,
        Command::CloseTab(CloseTab { tab_id: 1 }),
        Duration::from_millis(200),
    );
    let (id, _) = next_call(&mut relay).await;
    let err = call.await.unwrap().unwrap_err();
    assert_eq!(err.code, ErrorCode::Timeout);
    assert!(err.message.contains("closeTab"), "{}", err.message);
    // A late reply is dropped quietly and the link still works.
    answer(&mut relay, id, Reply::new(&()).unwrap()).await;
    let call = call_later(&link, Command::ListTabs(ListTabs));
    answer_next_call(&mut relay, Reply::new(&()).unwrap()).await;
    assert_eq!(call.await.unwrap(), Ok(Reply::new(&()).unwrap()));
}

#[tokio::test(start_paused = true)]
async fn browser_leaving_mid_call_fails_it_and_is_announced() {
    let mut relay = TestRelay::with_browser("1").await;
    let link = Link::spawn(relay.socket.clone(), hello());
    let mut events = link.subscribe();
    let call = call_later(&link, evaluate());
    next_call(&mut relay).await;
    drop(relay.browser);
    let err = call.await.unwrap().unwrap_err();
    assert_eq!(err.code, ErrorCode::BrowserDisconnected);
    first_word(&mut events).await;
    assert!(!link.browser_connected());
}

#[tokio::test(start_paused = true)]
async fn an_idempotent_call_whose_relay_died_is_sent_again_to_the_next_one() {
    let (_dir, socket) = socket_path();
    let link = Link::spawn(socket.clone(), hello());
    let mut first = relay_at(&socket, connected("1")).await;
    assert!(link.wait_for_browser(LONG).await);
    let call = call_later(&link, Command::ListTabs(ListTabs));
    next_call(&mut first).await;
    // The relay dies with the call unanswered; a new one takes its place.
    drop(first.browser);
    first.done.await.unwrap();
    let mut second = relay_at(&socket, connected("2")).await;
    let msg = answer_next_call(&mut second, Reply::new(&json!([])).unwrap()).await;
    assert_eq!(msg["body"]["call"]["command"], "listTabs");
    assert_eq!(call.await.unwrap(), Ok(Reply::new(&json!([])).unwrap()));
}

#[tokio::test(start_paused = true)]
async fn a_call_the_relay_never_passed_on_is_sent_again_even_if_not_safe_to_repeat() {
    let mut relay = TestRelay::with_browser("1").await;
    let link = Link::spawn(relay.socket.clone(), hello());
    assert!(link.wait_for_browser(LONG).await);
    let call = call_later(&link, evaluate());
    let (id, _) = next_call(&mut relay).await;
    let never = crate::answers::not_delivered("Chrome closed the port");
    let answer = Envelope::request(id, FromExtension::Reply(Err(never)));
    relay.browser.send(&answer).await;
    let msg = answer_next_call(&mut relay, Reply::new(&json!(1)).unwrap()).await;
    assert_eq!(msg["body"]["call"]["command"], "evaluate");
    assert_eq!(call.await.unwrap(), Ok(Reply::new(&json!(1)).unwrap()));
}

#[tokio::test(start_paused = true)]
async fn link_reconnects_and_says_hello_again_when_a_new_relay_appears() {
    let (_dir, socket) = socket_path();
    let link = Link::spawn(socket.clone(), hello());
    let mut events = link.subscribe();

    // First browser: comes, then goes.
    let mut first = relay_at(&socket, connected("1")).await;
    assert!(link.wait_for_browser(LONG).await);
    assert!(first.browser.recv().await["body"]["hello"].is_object());
    drop(first.browser);
    first.done.await.unwrap();
    let deadline = tokio::time::Instant::now() + LONG;
    while link.browser_connected() && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(!link.browser_connected());

    // Second browser at the same path: the link finds it by itself.
    let mut second = relay_at(&socket, connected("2")).await;
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
        pieces: 0,
    }));
    assert!(seen
        .iter()
        .any(|e| matches!(e, Event::BrowserDisconnected { .. })));
    assert!(seen.contains(&Event::BrowserConnected {
        version: "2".into(),
        instance: String::new(),
        pieces: 0,
    }));
}

#[tokio::test(start_paused = true)]
async fn a_call_over_one_native_message_reaches_the_browser_in_pieces() {
    use tabwire_shared::pieces::{Joined, Joiner};
    let (mut relay, link, _events) = joined().await;
    // 5 MiB written: quotes and non-ASCII chars among the cuts.
    let function = "é\"x".repeat(1024 * 1024);
    let script = |function: String| {
        Command::Evaluate(Evaluate {
            tab_id: 1,
            function,
            args: vec![],
            timeout_ms: 1,
        })
    };
    let call = call_later(&link, script(function.clone()));
    let mut joiner = Joiner::new();
    let mut pieces = 0;
    let whole = loop {
        let envelope: Envelope<ToExtension> =
            serde_json::from_value(relay.browser.recv().await).unwrap();
        let ToExtension::Piece(piece) = envelope.body else {
            panic!("a message over 1 MiB came whole");
        };
        pieces += 1;
        match joiner.take(envelope.id, envelope.client, piece) {
            Joined::Waiting => {}
            Joined::Whole(text) => break text,
            Joined::Refused(refused) => panic!("{refused:?}"),
        }
    };
    assert!(pieces >= 5, "{pieces} pieces");
    let whole: Envelope<ToExtension> = serde_json::from_str(&whole).unwrap();
    let ToExtension::Call(Command::Evaluate(evaluate)) = whole.body else {
        panic!("not the call");
    };
    assert_eq!(evaluate.function, function);
    let value = Reply::new(&json!(1)).unwrap();
    answer(&mut relay, whole.id.unwrap(), value.clone()).await;
    assert_eq!(call.await.unwrap(), Ok(value));

    // Over what an agent may send: refused with a clear error, not sent.
    let err = link
        .call(
            script("x".repeat(tabwire_shared::pieces::MAX_JOINED)),
            LONG,
            LONG,
        )
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument);
    assert!(err.message.contains("too large"), "{}", err.message);
    assert!(relay.browser.quiet_for(SHORT).await);
}

#[tokio::test(start_paused = true)]
async fn after_the_browser_quit_calls_fail_at_once_saying_so() {
    let (relay, link, mut events) = joined().await;
    relay.parent.exit_in(Duration::ZERO);
    drop(relay.browser);
    assert_eq!(goodbye(&mut events).await, Departure::BrowserQuit);
    for wait_before in [Duration::ZERO, Duration::from_secs(60)] {
        tokio::time::sleep(wait_before).await;
        let started = tokio::time::Instant::now();
        let err = link
            .call(Command::ListTabs(ListTabs), LONG, LONG)
            .await
            .unwrap_err();
        assert_eq!(started.elapsed(), Duration::ZERO, "the call waited");
        assert_eq!(err.code, ErrorCode::BrowserDisconnected);
        assert!(
            err.message
                .starts_with("No browser is connected to tabwire: the browser quit"),
            "{}",
            err.message
        );
        assert!(
            err.message.contains("shares a tab again"),
            "{}",
            err.message
        );
    }
    assert!(link.browser_quit());
}

#[tokio::test(start_paused = true)]
async fn a_call_in_flight_when_the_browser_quits_fails_at_once_saying_so() {
    // One not safe to repeat (it may have run), one that is (it finds no browser).
    for (command, said) in [
        (evaluate(), "The browser quit before answering."),
        (
            Command::ListTabs(ListTabs),
            "No browser is connected to tabwire: the browser quit 0 s ago.",
        ),
    ] {
        let (mut relay, link, _events) = joined().await;
        let call = call_later_within(&link, command, Duration::from_secs(30));
        next_call(&mut relay).await;
        let started = tokio::time::Instant::now();
        relay.parent.exit_in(Duration::ZERO);
        drop(relay.browser);
        let err = call.await.unwrap().unwrap_err();
        let took = started.elapsed();
        assert!(took <= TEST_WATCH, "took {took:?}");
        assert_eq!(err.code, ErrorCode::BrowserDisconnected);
        assert!(err.message.starts_with(said), "{}", err.message);
    }
}

#[tokio::test(start_paused = true)]
async fn after_a_worker_stop_a_call_waits_for_the_extension_to_return() {
    let (_dir, socket) = socket_path();
    let first = relay_at(&socket, connected("1")).await;
    let link = Link::spawn(socket.clone(), hello());
    let mut events = link.subscribe();
    assert!(link.wait_for_browser(LONG).await);
    // The browser still runs (its process stays): the worker stopped.
    drop(first.browser);
    assert_eq!(goodbye(&mut events).await, Departure::BrowserRunning);
    first.done.await.unwrap();

    let call = call_later(&link, Command::ListTabs(ListTabs));
    // Chrome wakes the worker late (a loaded machine), past the usual wait but within
    // the grace.
    tokio::time::sleep(RECONNECT_GRACE - Duration::from_secs(3)).await;
    assert!(!call.is_finished(), "the call gave up within the grace");
    let mut second = relay_at(&socket, connected("1")).await;
    answer_next_call(&mut second, Reply::new(&()).unwrap()).await;
    assert_eq!(call.await.unwrap(), Ok(Reply::new(&()).unwrap()));
}

#[tokio::test(start_paused = true)]
async fn a_restarted_worker_s_new_host_is_found_within_a_second() {
    let (_dir, socket) = socket_path();
    let first = relay_at(&socket, connected("1")).await;
    let link = Link::spawn(socket.clone(), hello());
    let mut events = link.subscribe();
    assert!(link.wait_for_browser(LONG).await);
    drop(first.browser);
    assert_eq!(goodbye(&mut events).await, Departure::BrowserRunning);
    first.done.await.unwrap();

    let call = call_later(&link, Command::ListTabs(ListTabs));
    // Long enough for the link's back-off to reach its longest pause.
    tokio::time::sleep(Duration::from_secs(10)).await;
    let back = tokio::time::Instant::now();
    let mut second = relay_at(&socket, connected("1")).await;
    answer_next_call(&mut second, Reply::new(&()).unwrap()).await;
    assert_eq!(call.await.unwrap(), Ok(Reply::new(&()).unwrap()));
    let took = back.elapsed();
    assert!(
        took <= Duration::from_secs(1),
        "the call ran {took:?} after the new host was up"
    );
}

#[tokio::test(start_paused = true)]
async fn past_the_grace_a_browser_that_never_returned_is_reported_with_what_is_known() {
    let (relay, link, mut events) = joined().await;
    drop(relay.browser);
    assert_eq!(goodbye(&mut events).await, Departure::BrowserRunning);
    tokio::time::sleep(RECONNECT_GRACE + Duration::from_secs(1)).await;
    let started = tokio::time::Instant::now();
    let err = link
        .call(Command::ListTabs(ListTabs), LONG, LONG)
        .await
        .unwrap_err();
    assert_eq!(started.elapsed(), LONG, "the usual wait, no more");
    assert!(err.message.contains("kept running"), "{}", err.message);
}

#[tokio::test(start_paused = true)]
async fn a_host_killed_without_a_goodbye_gets_a_short_wait_from_the_loss() {
    let (_dir, socket) = socket_path();
    let link = Link::spawn(socket.clone(), hello());
    let mut events = link.subscribe();
    vanishing_host(&socket, connected("1")).await;
    assert_eq!(goodbye(&mut events).await, Departure::Unknown);

    let started = tokio::time::Instant::now();
    let err = link
        .call(Command::ListTabs(ListTabs), LONG, LONG)
        .await
        .unwrap_err();
    assert_eq!(started.elapsed(), LONG, "the usual wait from the loss");
    assert!(err.message.contains("without a goodbye"), "{}", err.message);
    // Later calls do not wait again for what did not come.
    let started = tokio::time::Instant::now();
    link.call(Command::ListTabs(ListTabs), LONG, LONG)
        .await
        .unwrap_err();
    assert_eq!(started.elapsed(), Duration::ZERO);
}

#[tokio::test(start_paused = true)]
async fn a_call_in_flight_when_the_host_vanishes_is_told_the_host_stopped() {
    let (_dir, socket) = socket_path();
    let link = Link::spawn(socket.clone(), hello());
    let mut host = FakeHost::serve(&socket).await;
    host.tell(&connected("1")).await;
    assert!(link.wait_for_browser(LONG).await);
    let call = call_later(&link, evaluate());
    assert!(host.heard().await, "no call");
    // The host dies with the call unanswered, without a word.
    host.vanish();
    let err = call.await.unwrap().unwrap_err();
    assert_eq!(err.code, ErrorCode::BrowserDisconnected);
    for said in ["native host stopped", "may or may not have run", "retry"] {
        assert!(err.message.contains(said), "{said:?} in {}", err.message);
    }
    assert!(link.ever_connected());
}

#[tokio::test(start_paused = true)]
async fn a_refusal_is_no_departure_and_gets_no_grace() {
    let (_dir, socket) = socket_path();
    let link = Link::spawn(socket.clone(), hello());
    let refused = Envelope::notice(FromExtension::Event(Event::BrowserDisconnected {
        reason: "tabwire's relay refused this connection: another user".into(),
        cause: Departure::Unknown,
    }));
    let mut events = link.subscribe();
    vanishing_host(&socket, refused).await;
    goodbye(&mut events).await;
    let started = tokio::time::Instant::now();
    let err = link
        .call(Command::ListTabs(ListTabs), LONG, LONG)
        .await
        .unwrap_err();
    assert_eq!(started.elapsed(), LONG);
    assert!(err.message.contains("refused"), "{}", err.message);
}

// On Windows (run under wine) the paused clock jumps to the next timer whenever the
// runtime waits for a pipe's I/O completion, and this test's only timers are its 5 s
// limits: it fails on time, not on what the link does. The relay's clients over a real
// pipe are tested by tests/windows_host (scripts/test-windows) instead.
#[cfg_attr(
    windows,
    ignore = "the paused clock outruns named-pipe I/O completions under wine"
)]
#[tokio::test(start_paused = true)]
async fn a_browser_started_again_after_quitting_is_found() {
    let (_dir, socket) = socket_path();
    let first = relay_at(&socket, connected("1")).await;
    let link = Link::spawn(socket.clone(), hello());
    let mut events = link.subscribe();
    assert!(link.wait_for_browser(LONG).await);
    first.parent.exit_in(Duration::ZERO);
    drop(first.browser);
    assert_eq!(goodbye(&mut events).await, Departure::BrowserQuit);
    first.done.await.unwrap();

    tokio::time::sleep(Duration::from_secs(30)).await;
    let mut second = TestRelay::start_at(socket.clone(), tempfile::tempdir().unwrap()).await;
    // A call made as the new native host comes up, before the link has found it, waits
    // for the browser's hello instead of failing on the quit.
    let call = call_later(&link, Command::ListTabs(ListTabs));
    second.browser.send(&connected("2")).await;
    answer_next_call(&mut second, Reply::new(&()).unwrap()).await;
    assert_eq!(call.await.unwrap(), Ok(Reply::new(&()).unwrap()));
    assert!(link.browser_connected(), "reconnected in the background");
    assert!(!link.browser_quit());
}

#[tokio::test(start_paused = true)]
async fn while_the_host_decides_calls_wait_and_are_not_sent() {
    let mut relay = TestRelay::start_watching(Duration::from_secs(60)).await;
    relay.browser.send(&connected("1")).await;
    let link = Link::spawn(relay.socket.clone(), hello());
    let mut events = link.subscribe();
    assert!(link.wait_for_browser(LONG).await);
    let parent = relay.parent.clone();
    drop(relay.browser);
    assert_eq!(first_word(&mut events).await, Departure::Undecided);
    assert!(!link.browser_connected(), "nothing more is sent");
    let call = call_later(&link, Command::ListTabs(ListTabs));
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(!call.is_finished(), "it waits for the host's second word");
    let decided = tokio::time::Instant::now();
    parent.exit_in(Duration::ZERO);
    let err = call.await.unwrap().unwrap_err();
    assert!(decided.elapsed() < Duration::from_millis(100));
    assert!(
        err.message
            .starts_with("No browser is connected to tabwire: the browser quit"),
        "{}",
        err.message
    );
}

#[tokio::test(start_paused = true)]
async fn a_host_killed_while_it_decides_counts_as_a_browser_that_still_runs() {
    let (_dir, socket) = socket_path();
    let link = Link::spawn(socket.clone(), hello());
    let mut events = link.subscribe();
    let first_word_of_leaving =
        Envelope::notice(FromExtension::Event(Event::BrowserDisconnected {
            reason: "Chrome closed tabwire's native port".into(),
            cause: Departure::Undecided,
        }));
    // Connected, then the first word, then nothing: Chrome killed it (2 s after
    // closing its port, as it does when the browser still runs).
    let mut host = FakeHost::serve(&socket).await;
    host.tell(&connected("1")).await;
    host.tell(&first_word_of_leaving).await;
    host.vanish();
    first_word(&mut events).await;
    let started = tokio::time::Instant::now();
    let err = link
        .call(Command::ListTabs(ListTabs), LONG, LONG)
        .await
        .unwrap_err();
    let waited = started.elapsed();
    assert!(
        waited > LONG && waited <= RECONNECT_GRACE,
        "waited {waited:?}, not the reconnect grace"
    );
    assert!(err.message.contains("kept running"), "{}", err.message);
}

#[tokio::test(start_paused = true)]
async fn a_call_on_a_tab_begun_under_one_browser_run_is_not_sent_to_the_next() {
    let (_dir, socket) = socket_path();
    let first = relay_at(&socket, connected_run("1", "run-a")).await;
    let link = Link::spawn(socket.clone(), hello());
    let mut events = link.subscribe();
    assert!(link.wait_for_browser(LONG).await);
    drop(first.browser);
    goodbye(&mut events).await;
    first.done.await.unwrap();

    // Both wait for a browser: one names a tab of the first run, one names none.
    let on_tab = call_later(&link, evaluate());
    let listing = call_later(&link, Command::ListTabs(ListTabs));
    let mut second = relay_at(&socket, connected_run("1", "run-b")).await;
    let msg = answer_next_call(&mut second, Reply::new(&json!([])).unwrap()).await;
    assert_eq!(
        msg["body"]["call"]["command"], "listTabs",
        "only the call naming no tab reaches the new run"
    );
    assert_eq!(listing.await.unwrap(), Ok(Reply::new(&json!([])).unwrap()));
    let refused = on_tab.await.unwrap().unwrap_err();
    assert!(
        refused.message.contains("restarted") && refused.message.contains("not sent"),
        "{refused:?}"
    );
    // Begun under the new run, a call on a tab goes.
    let now = call_later(&link, evaluate());
    let (_, msg) = next_call(&mut second).await;
    assert_eq!(msg["body"]["call"]["command"], "evaluate");
    drop(now);
}
