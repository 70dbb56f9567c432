//! A call whose native host, extension or page stops answering ends within its time
//! and names which (paused clock).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tabwire_shared::{ExtensionHeard, REPLY_MARGIN};
use tokio::time::Instant;

use super::*;
use crate::native_host::testing::FakePeer;

/// A command with a 3 s time limit, as `evaluate_script {timeout: 3000}` sends it.
fn three_second_script() -> Command {
    Command::Evaluate(Evaluate {
        tab_id: 1,
        function: "() => { while (true) {} }".into(),
        args: vec![],
        timeout_ms: 3000,
    })
}

/// Calls `command` with its own reply timeout; its outcome and how long it took.
async fn timed_call(link: &Link, command: Command) -> (Result<Reply, WireError>, Duration) {
    let started = Instant::now();
    let reply_timeout = command.reply_timeout();
    let outcome = link.call(command, LONG, reply_timeout).await;
    (outcome, started.elapsed())
}

/// A native host of the test's own making that says its browser is connected, then
/// answers every ping, saying `extension` of the extension, until `frozen` is set; it
/// answers no call. Its pings go unanswered if `extension` is `None` (a host of a
/// version without them).
async fn pinged_host(
    socket: &Path,
    extension: Option<ExtensionHeard>,
    frozen: Arc<AtomicBool>,
) -> JoinHandle<()> {
    let socket = socket.to_path_buf();
    let (bound, ready) = tokio::sync::oneshot::channel();
    let host = tokio::spawn(async move {
        let serving = FakeHost::serve(&socket);
        let _ = bound.send(());
        let mut host = serving.await;
        host.tell(&connected("1")).await;
        while let Ok(Some(body)) = host.reader.next().await {
            let message: serde_json::Value = serde_json::from_slice(&body).unwrap();
            let Some(seq) = message["body"]["ping"]["seq"].as_u64() else {
                continue;
            };
            if let (Some(extension), false) = (extension, frozen.load(Ordering::SeqCst)) {
                let pong = FromExtension::Pong {
                    seq,
                    extension: Some(extension),
                };
                host.tell(&Envelope::notice(pong)).await;
            }
        }
    });
    ready.await.unwrap();
    host
}

/// A link to a [`pinged_host`] at a fresh socket, connected to its browser.
async fn link_to_pinged_host(
    extension: Option<ExtensionHeard>,
) -> (Link, Arc<AtomicBool>, JoinHandle<()>, tempfile::TempDir) {
    let (dir, socket) = socket_path();
    let frozen = Arc::new(AtomicBool::new(false));
    let host = pinged_host(&socket, extension, frozen.clone()).await;
    let link = Link::spawn(socket, hello());
    assert!(link.wait_for_browser(LONG).await);
    (link, frozen, host, dir)
}

#[tokio::test(start_paused = true)]
async fn a_frozen_native_host_is_named_within_the_silence_limit() {
    let (link, frozen, _host, _dir) = link_to_pinged_host(Some(ExtensionHeard::Answered)).await;
    // It answers the link's first ping, then freezes.
    tokio::time::sleep(SHORT).await;
    frozen.store(true, Ordering::SeqCst);
    let (outcome, took) = timed_call(&link, three_second_script()).await;
    let err = outcome.unwrap_err();
    assert_eq!(err.code, ErrorCode::Timeout);
    assert!(
        err.message.starts_with("tabwire's native host")
            && err.message.contains("has not answered for 3 s")
            && err.message.contains("`evaluate` command")
            && err.message.contains("retry"),
        "{}",
        err.message
    );
    assert_eq!(took, SILENCE_LIMIT, "gave up after {took:?}");
    // Thawed, it answers again: the next call is not held against its past.
    frozen.store(false, Ordering::SeqCst);
    let (outcome, _) = timed_call(&link, three_second_script()).await;
    let err = outcome.unwrap_err();
    assert!(err.message.contains("the page is busy"), "{}", err.message);
}

#[tokio::test(start_paused = true)]
async fn an_extension_the_native_host_waits_for_is_named_at_the_timeout() {
    let (link, _frozen, _host, _dir) = link_to_pinged_host(Some(ExtensionHeard::Waiting)).await;
    let (outcome, took) = timed_call(&link, three_second_script()).await;
    let err = outcome.unwrap_err();
    assert_eq!(err.code, ErrorCode::Timeout);
    assert!(
        err.message
            .contains("native host answers, but the browser's tabwire extension")
            && err.message.contains("chrome://extensions"),
        "{}",
        err.message
    );
    // Given its whole time: it may be busy rather than stuck.
    assert_eq!(took, Duration::from_secs(3) + REPLY_MARGIN);
}

#[tokio::test(start_paused = true)]
async fn a_busy_page_is_named_at_the_reply_timeout_while_both_hops_answer() {
    let (link, _frozen, _host, _dir) = link_to_pinged_host(Some(ExtensionHeard::Answered)).await;
    let command = three_second_script();
    let (outcome, took) = timed_call(&link, command).await;
    let err = outcome.unwrap_err();
    assert!(
        err.message.contains("did not finish within 8000 ms")
            && err.message.contains("the page is busy"),
        "{}",
        err.message
    );
    assert_eq!(took, Duration::from_secs(3) + REPLY_MARGIN);
}

#[tokio::test(start_paused = true)]
async fn a_native_host_without_pings_gives_up_at_the_timeout_plus_the_margin() {
    let (link, _frozen, _host, _dir) = link_to_pinged_host(None).await;
    let (outcome, took) = timed_call(&link, three_second_script()).await;
    let err = outcome.unwrap_err();
    assert_eq!(err.code, ErrorCode::Timeout);
    assert!(
        err.message.contains("The page or browser may be busy"),
        "{}",
        err.message
    );
    assert_eq!(took, Duration::from_secs(3) + REPLY_MARGIN);
}

/// Answers pings on the fake browser's side, once, and reads everything else.
async fn answer_one_ping(browser: &mut FakePeer<tokio::io::DuplexStream>) {
    loop {
        let message = browser.recv_any().await;
        if let Some(seq) = message["body"]["ping"]["seq"].as_u64() {
            let pong = FromExtension::Pong {
                seq,
                extension: None,
            };
            browser.send(&Envelope::notice(pong)).await;
            return;
        }
    }
}

#[tokio::test(start_paused = true)]
async fn through_the_relay_an_extension_that_stops_answering_is_named_at_the_timeout() {
    // The relay pings the extension as soon as it connects; the extension answers
    // that one, then freezes.
    let mut relay = TestRelay::start().await;
    relay.browser.send(&connected("1")).await;
    answer_one_ping(&mut relay.browser).await;
    let link = Link::spawn(relay.socket.clone(), hello());
    assert!(link.wait_for_browser(LONG).await);
    let call = tokio::spawn({
        let link = link.clone();
        async move { timed_call(&link, three_second_script()).await }
    });
    next_call(&mut relay).await;
    let (outcome, took) = call.await.unwrap();
    let err = outcome.unwrap_err();
    assert!(
        err.message
            .contains("the browser's tabwire extension has not answered it"),
        "{}",
        err.message
    );
    // Given its whole time: it may be busy rather than stuck.
    assert_eq!(took, Duration::from_secs(3) + REPLY_MARGIN);
}

#[tokio::test(start_paused = true)]
async fn through_the_relay_an_extension_without_pings_is_not_blamed() {
    let (mut relay, link, _events) = joined().await;
    let call = tokio::spawn({
        let link = link.clone();
        async move { timed_call(&link, three_second_script()).await }
    });
    next_call(&mut relay).await;
    let (outcome, took) = call.await.unwrap();
    let err = outcome.unwrap_err();
    assert!(
        err.message.contains("though tabwire's native host answers"),
        "{}",
        err.message
    );
    assert_eq!(took, Duration::from_secs(3) + REPLY_MARGIN);
}
