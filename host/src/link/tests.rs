use super::absence::RECONNECT_GRACE;
use super::*;
use crate::native_host::testing::{TestRelay, TEST_WATCH};
use serde_json::json;
use tabwire_shared::requests::*;
use tabwire_shared::{Departure, FromExtension};

const SHORT: Duration = Duration::from_millis(300);
const LONG: Duration = Duration::from_secs(5);

fn hello() -> ClientHello {
    ClientHello {
        client_name: "test-agent".into(),
        version: "0.0.1".into(),
        session: "test-session".into(),
        probe: false,
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

#[tokio::test(start_paused = true)]
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
        async move { link.call(Command::ListTabs(ListTabs), LONG, LONG).await }
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

#[tokio::test(start_paused = true)]
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

#[tokio::test(start_paused = true)]
async fn a_revoked_link_fails_every_call_and_stays_away() {
    let mut relay = TestRelay::start().await;
    relay.browser.send(&connected("2.0")).await;
    let link = Link::spawn(relay.socket.clone(), hello());
    let hello_seen = relay.browser.recv().await;
    assert!(link.wait_for_browser(LONG).await);
    let pending = tokio::spawn({
        let link = link.clone();
        async move { link.call(Command::ListTabs(ListTabs), LONG, LONG).await }
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
    assert!(err.message.contains("tabwire popup"), "{}", err.message);
    // The link closed its connection and does not come back.
    assert!(relay.browser.recv().await["body"] == json!("clientGone"));
    assert!(relay.browser.quiet_for(SHORT).await);
}

#[tokio::test(start_paused = true)]
async fn call_without_a_browser_says_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let link = Link::spawn(dir.path().join("nobody.sock"), hello());
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
    let mut relay = TestRelay::start().await;
    relay.browser.send(&connected("1")).await;
    let link = Link::spawn(relay.socket.clone(), hello());
    let call = tokio::spawn({
        let link = link.clone();
        async move {
            link.call(
                Command::CloseTab(CloseTab { tab_id: 1 }),
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
        async move { link.call(Command::ListTabs(ListTabs), LONG, LONG).await }
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

#[tokio::test(start_paused = true)]
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
    Command::Evaluate(Evaluate {
        tab_id: 1,
        function: "() => 1".into(),
        args: vec![],
        timeout_ms: 1000,
    })
}

#[tokio::test(start_paused = true)]
async fn an_idempotent_call_whose_relay_died_is_sent_again_to_the_next_one() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("relay.sock");
    let link = Link::spawn(socket.clone(), hello());
    let mut first = TestRelay::start_at(socket.clone(), tempfile::tempdir().unwrap()).await;
    first.browser.send(&connected("1")).await;
    assert!(link.wait_for_browser(LONG).await);
    let call = tokio::spawn({
        let link = link.clone();
        async move { link.call(Command::ListTabs(ListTabs), LONG, LONG).await }
    });
    next_call(&mut first).await;
    // The relay dies with the call unanswered; a new one takes its place.
    drop(first.browser);
    first.done.await.unwrap();
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

#[tokio::test(start_paused = true)]
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

#[tokio::test(start_paused = true)]
async fn oversized_call_is_refused_by_the_relay_with_a_clear_error() {
    let relay = TestRelay::start().await;
    let mut browser = relay.browser;
    browser.send(&connected("1")).await;
    let link = Link::spawn(relay.socket.clone(), hello());
    let err = link
        .call(
            Command::Evaluate(Evaluate {
                tab_id: 1,
                function: "x".repeat(2 * 1024 * 1024),
                args: vec![],
                timeout_ms: 1,
            }),
            LONG,
            LONG,
        )
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument);
    assert!(err.message.contains("too large"), "{}", err.message);
}

/// Waits (bounded) for the link to hear a decided `BrowserDisconnected`; returns its
/// cause.
async fn goodbye(events: &mut broadcast::Receiver<Event>) -> tabwire_shared::Departure {
    loop {
        match tokio::time::timeout(LONG, events.recv()).await {
            Ok(Ok(Event::BrowserDisconnected { cause, .. })) if cause != Departure::Undecided => {
                return cause
            }
            Ok(Ok(_)) => continue,
            other => panic!("no goodbye reached the link: {other:?}"),
        }
    }
}

/// A relay and a link connected through it to a browser.
async fn joined() -> (TestRelay, Link, broadcast::Receiver<Event>) {
    let mut relay = TestRelay::start().await;
    relay.browser.send(&connected("1")).await;
    let link = Link::spawn(relay.socket.clone(), hello());
    let events = link.subscribe();
    assert!(link.wait_for_browser(LONG).await);
    assert!(relay.browser.recv().await["body"]["hello"].is_object());
    (relay, link, events)
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
        let call = tokio::spawn({
            let link = link.clone();
            async move { link.call(command, LONG, Duration::from_secs(30)).await }
        });
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
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("relay.sock");
    let mut first = TestRelay::start_at(socket.clone(), tempfile::tempdir().unwrap()).await;
    first.browser.send(&connected("1")).await;
    let link = Link::spawn(socket.clone(), hello());
    let mut events = link.subscribe();
    assert!(link.wait_for_browser(LONG).await);
    // The browser still runs (its process stays): the worker stopped.
    drop(first.browser);
    assert_eq!(goodbye(&mut events).await, Departure::BrowserRunning);
    first.done.await.unwrap();

    let call = tokio::spawn({
        let link = link.clone();
        async move { link.call(Command::ListTabs(ListTabs), LONG, LONG).await }
    });
    // Chrome wakes the worker 20 s later, well past the usual wait.
    tokio::time::sleep(Duration::from_secs(20)).await;
    assert!(!call.is_finished(), "the call gave up within the grace");
    let mut second = TestRelay::start_at(socket.clone(), tempfile::tempdir().unwrap()).await;
    second.browser.send(&connected("1")).await;
    let (id, msg) = next_call(&mut second).await;
    second
        .browser
        .send(&Envelope {
            id: Some(id),
            client: msg["client"].as_u64(),
            body: FromExtension::Reply(Ok(Reply::Done)),
        })
        .await;
    assert_eq!(call.await.unwrap(), Ok(Reply::Done));
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

/// A native host that tells its first client `first` once it has said hello, then
/// dies without another word.
async fn vanishing_host(socket: &std::path::Path, first: Envelope<FromExtension>) {
    let listener = tokio::net::UnixListener::bind(socket).unwrap();
    let (stream, _) = listener.accept().await.unwrap();
    let (read, mut write) = stream.into_split();
    let mut reader = crate::frames::FrameReader::new(read, MAX_ON_SOCKET);
    assert!(matches!(reader.next().await, Ok(Some(_))), "no hello");
    let frame = tabwire_shared::framing::encode(&first, MAX_ON_SOCKET).unwrap();
    crate::frames::write_frame(&mut write, &frame)
        .await
        .unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_host_killed_without_a_goodbye_gets_a_short_wait_from_the_loss() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("relay.sock");
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
    use crate::frames::{write_frame, FrameReader};
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("relay.sock");
    let listener = tokio::net::UnixListener::bind(&socket).unwrap();
    let link = Link::spawn(socket.clone(), hello());
    let (stream, _) = listener.accept().await.unwrap();
    let (read, mut write) = stream.into_split();
    let mut reader = FrameReader::new(read, MAX_ON_SOCKET);
    assert!(matches!(reader.next().await, Ok(Some(_))), "no hello");
    let frame = tabwire_shared::framing::encode(&connected("1"), MAX_ON_SOCKET).unwrap();
    write_frame(&mut write, &frame).await.unwrap();
    assert!(link.wait_for_browser(LONG).await);
    let call = tokio::spawn({
        let link = link.clone();
        async move { link.call(evaluate(), LONG, LONG).await }
    });
    assert!(matches!(reader.next().await, Ok(Some(_))), "no call");
    // The host dies with the call unanswered, without a word.
    drop((reader, write, listener));
    let err = call.await.unwrap().unwrap_err();
    assert_eq!(err.code, ErrorCode::BrowserDisconnected);
    for said in ["native host stopped", "may or may not have run", "retry"] {
        assert!(err.message.contains(said), "{said:?} in {}", err.message);
    }
    assert!(link.ever_connected());
}

#[tokio::test(start_paused = true)]
async fn a_refusal_is_no_departure_and_gets_no_grace() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("relay.sock");
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

#[tokio::test(start_paused = true)]
async fn a_browser_started_again_after_quitting_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("relay.sock");
    let first = TestRelay::start_at(socket.clone(), tempfile::tempdir().unwrap()).await;
    let mut first_browser = first.browser;
    first_browser.send(&connected("1")).await;
    let link = Link::spawn(socket.clone(), hello());
    let mut events = link.subscribe();
    assert!(link.wait_for_browser(LONG).await);
    first.parent.exit_in(Duration::ZERO);
    drop(first_browser);
    assert_eq!(goodbye(&mut events).await, Departure::BrowserQuit);
    first.done.await.unwrap();

    tokio::time::sleep(Duration::from_secs(30)).await;
    let mut second = TestRelay::start_at(socket.clone(), tempfile::tempdir().unwrap()).await;
    // A call made as the new native host comes up, before the link has found it, waits
    // for the browser's hello instead of failing on the quit.
    let call = tokio::spawn({
        let link = link.clone();
        async move { link.call(Command::ListTabs(ListTabs), LONG, LONG).await }
    });
    second.browser.send(&connected("2")).await;
    let (id, msg) = next_call(&mut second).await;
    second
        .browser
        .send(&Envelope {
            id: Some(id),
            client: msg["client"].as_u64(),
            body: FromExtension::Reply(Ok(Reply::Done)),
        })
        .await;
    assert_eq!(call.await.unwrap(), Ok(Reply::Done));
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
    loop {
        match tokio::time::timeout(LONG, events.recv()).await {
            Ok(Ok(Event::BrowserDisconnected { cause, .. })) => {
                assert_eq!(cause, Departure::Undecided);
                break;
            }
            Ok(Ok(_)) => continue,
            other => panic!("no first word: {other:?}"),
        }
    }
    assert!(!link.browser_connected(), "nothing more is sent");
    let call = tokio::spawn({
        let link = link.clone();
        async move { link.call(Command::ListTabs(ListTabs), LONG, LONG).await }
    });
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
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("relay.sock");
    let link = Link::spawn(socket.clone(), hello());
    let mut events = link.subscribe();
    let first_word = Envelope::notice(FromExtension::Event(Event::BrowserDisconnected {
        reason: "Chrome closed tabwire's native port".into(),
        cause: Departure::Undecided,
    }));
    // Connected, then the first word, then nothing: Chrome killed it (2 s after
    // closing its port, as it does when the browser still runs).
    let host = async {
        let listener = tokio::net::UnixListener::bind(&socket).unwrap();
        let (stream, _) = listener.accept().await.unwrap();
        let (read, mut write) = stream.into_split();
        let mut reader = crate::frames::FrameReader::new(read, MAX_ON_SOCKET);
        assert!(matches!(reader.next().await, Ok(Some(_))), "no hello");
        for message in [connected("1"), first_word] {
            let frame = tabwire_shared::framing::encode(&message, MAX_ON_SOCKET).unwrap();
            crate::frames::write_frame(&mut write, &frame)
                .await
                .unwrap();
        }
    };
    host.await;
    loop {
        match tokio::time::timeout(LONG, events.recv()).await {
            Ok(Ok(Event::BrowserDisconnected { .. })) => break,
            Ok(Ok(_)) => continue,
            other => panic!("no first word: {other:?}"),
        }
    }
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

fn connected_run(instance: &str) -> Envelope<FromExtension> {
    Envelope::notice(FromExtension::Event(Event::BrowserConnected {
        version: "1".into(),
        instance: instance.into(),
    }))
}

#[tokio::test(start_paused = true)]
async fn a_call_on_a_tab_begun_under_one_browser_run_is_not_sent_to_the_next() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("relay.sock");
    let mut first = TestRelay::start_at(socket.clone(), tempfile::tempdir().unwrap()).await;
    first.browser.send(&connected_run("run-a")).await;
    let link = Link::spawn(socket.clone(), hello());
    let mut events = link.subscribe();
    assert!(link.wait_for_browser(LONG).await);
    drop(first.browser);
    goodbye(&mut events).await;
    first.done.await.unwrap();

    // Both wait for a browser: one names a tab of the first run, one names none.
    let on_tab = tokio::spawn({
        let link = link.clone();
        async move { link.call(evaluate(), LONG, LONG).await }
    });
    let listing = tokio::spawn({
        let link = link.clone();
        async move { link.call(Command::ListTabs(ListTabs), LONG, LONG).await }
    });
    let mut second = TestRelay::start_at(socket.clone(), tempfile::tempdir().unwrap()).await;
    second.browser.send(&connected_run("run-b")).await;
    let (id, msg) = next_call(&mut second).await;
    assert_eq!(
        msg["body"]["call"]["command"], "listTabs",
        "only the call naming no tab reaches the new run"
    );
    second
        .browser
        .send(&Envelope {
            id: Some(id),
            client: msg["client"].as_u64(),
            body: FromExtension::Reply(Ok(Reply::Tabs { tabs: vec![] })),
        })
        .await;
    assert_eq!(listing.await.unwrap(), Ok(Reply::Tabs { tabs: vec![] }));
    let refused = on_tab.await.unwrap().unwrap_err();
    assert!(
        refused.message.contains("restarted") && refused.message.contains("not sent"),
        "{refused:?}"
    );
    // Begun under the new run, a call on a tab goes.
    let now = tokio::spawn({
        let link = link.clone();
        async move { link.call(evaluate(), LONG, LONG).await }
    });
    let (_, msg) = next_call(&mut second).await;
    assert_eq!(msg["body"]["call"]["command"], "evaluate");
    drop(now);
}
