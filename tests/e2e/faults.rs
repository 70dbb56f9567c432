//! Faults: privileged URLs, crashed renderers, pages closed under a running call.

use std::time::Duration;

use serde_json::json;

use crate::cdp::{Cdp, Session};
use crate::harness::{page, Agent};

/// How long a test waits for the browser to show what it caused.
const LIMIT: Duration = Duration::from_secs(10);

/// A session of the test's own on the page at `url`.
async fn attach_to(cdp: &Cdp, url: &str) -> Session {
    let target = cdp
        .wait_target(&format!("the page at {url}"), LIMIT, |t| {
            t.kind == "page" && t.url == url
        })
        .await;
    cdp.attach(&target.target_id).await
}

#[tokio::test]
async fn a_browser_page_is_refused_before_going_and_the_page_stays_usable() {
    let agent = Agent::launch(&[]).await;
    let id = agent.open("index.html").await.selected_page();
    for url in [
        "chrome://crash",
        "chrome://settings",
        "view-source:https://example.com/",
        "about:version",
    ] {
        agent
            .err("navigate_page", json!({"url": url}))
            .await
            .says("is a browser page")
            .says("The page is where it was");
    }
    agent
        .ok("navigate_page", json!({"url": page("second.html")}))
        .await
        .says("second page");
    assert!(
        agent.pages().await.contains(&(id, page("second.html"))),
        "list_pages shows where the page went"
    );
    let before = agent.pages().await.len();
    agent
        .err("new_page", json!({"url": "chrome://crash"}))
        .await
        .says("is a browser page");
    assert_eq!(agent.pages().await.len(), before, "no page opened in vain");
    agent.quit().await;
}

#[tokio::test]
async fn a_page_left_on_a_browser_page_can_be_navigated_away() {
    let (agent, cdp) = Agent::launch_with_cdp(&[]).await;
    let start = format!("{}?left-on-a-browser-page", page("index.html"));
    let id = agent
        .ok("new_page", json!({"url": start}))
        .await
        .selected_page();
    // Someone else (the user, another debugger) takes the page to a browser page, out
    // of the extension's reach.
    let session = attach_to(&cdp, &start).await;
    cdp.send_to(
        &session,
        "Page.navigate",
        json!({"url": "chrome://version/"}),
    )
    .await;
    cdp.wait_target("the page on chrome://version/", LIMIT, |t| {
        t.kind == "page" && t.url == "chrome://version/"
    })
    .await;
    agent
        .ok("navigate_page", json!({"url": page("second.html")}))
        .await
        .says("second page");
    assert!(agent.pages().await.contains(&(id, page("second.html"))));
    agent
        .ok(
            "evaluate_script",
            json!({"function": "() => location.pathname"}),
        )
        .await
        .says("/second.html");
    agent.quit().await;
}

#[tokio::test]
async fn a_crashed_renderer_ends_the_call_at_once_and_shows_in_the_page_list() {
    let (agent, cdp) = Agent::launch_with_cdp(&[]).await;
    let start = format!("{}?crash-me", page("index.html"));
    let id = agent
        .ok("new_page", json!({"url": start}))
        .await
        .selected_page();
    let session = attach_to(&cdp, &start).await;
    // A call that would run for longer than the harness waits for any reply: only a
    // prompt end lets the test go on.
    let running = agent.call(
        "evaluate_script",
        json!({
            "function": "() => { document.title = 'running'; return new Promise(() => {}); }",
            "timeout": 120000,
        }),
    );
    let crash = async {
        cdp.wait_for(&session, "document.title === 'running'", LIMIT)
            .await;
        cdp.fire(&session, "Page.crash", json!({}));
    };
    let (ended, ()) = tokio::join!(running, crash);
    assert!(ended.is_error, "{}", ended.text);
    ended
        .says("renderer crashed")
        .says("navigate_page {type: reload}");
    agent
        .err("evaluate_script", json!({"function": "() => 1"}))
        .await
        .says("renderer crashed");
    // What the page logged before it crashed can still be read.
    agent.ok("list_console_messages", json!({})).await;
    let listed = agent.ok("list_pages", json!({})).await;
    listed.says("[renderer crashed");
    let entry = listed.json["pages"]
        .as_array()
        .and_then(|pages| pages.iter().find(|p| p["id"] == id).cloned())
        .unwrap_or_default();
    assert_eq!(entry["crashed"], true, "{}", listed.text);
    agent
        .ok("navigate_page", json!({"type": "reload"}))
        .await
        .lacks("[renderer crashed");
    assert_eq!(
        agent.evaluate("() => document.title").await,
        "tabwire fixture"
    );
    agent.quit().await;
}

/// Runs a script that never ends on the page at `url` from `runner` and, once it runs,
/// closes the page from `closer`; returns both replies. The script's timeout is longer
/// than the harness waits for any reply, so only a prompt end lets the test go on.
async fn close_under_a_running_call(
    cdp: &Cdp,
    runner: &Agent,
    closer: &Agent,
    url: &str,
) -> (crate::harness::Reply, crate::harness::Reply) {
    let id = runner
        .ok("new_page", json!({"url": url}))
        .await
        .selected_page();
    let session = attach_to(cdp, url).await;
    let running = runner.call(
        "evaluate_script",
        json!({
            "function": "() => { document.title = 'running'; return new Promise(() => {}); }",
            "timeout": 120000,
        }),
    );
    let close = async {
        cdp.wait_for(&session, "document.title === 'running'", LIMIT)
            .await;
        closer.call("close_page", json!({"pageId": id})).await
    };
    tokio::join!(running, close)
}

#[tokio::test]
async fn close_page_stops_a_running_call_from_the_same_agent_or_another() {
    let (agent, cdp) = Agent::launch_with_cdp(&[]).await;
    let other = agent.join().await;
    for (closer, name) in [(&agent, "same"), (&other, "other")] {
        let url = format!("{}?closed-by-{name}", page("index.html"));
        let (stopped, closed) = close_under_a_running_call(&cdp, &agent, closer, &url).await;
        assert!(!closed.is_error, "{name}: {}", closed.text);
        closed.says("Closed page");
        assert!(stopped.is_error, "{name}: {}", stopped.text);
        stopped.says("close_page closed it");
        assert!(
            !agent.pages().await.iter().any(|(_, u)| *u == url),
            "{name}: the page is gone"
        );
    }
    // The other agent closed this one's selected page: it is told once, not moved.
    agent
        .err("take_snapshot", json!({}))
        .await
        .says("the selected page, is gone");
    agent
        .err(
            "evaluate_script",
            json!({"function": "() => 1", "timeout": 1u64 << 63}),
        )
        .await
        .says("at most 600000 ms");
    other.quit().await;
    agent.quit().await;
}

#[tokio::test]
async fn a_renderer_that_crashed_before_the_agent_came_is_told_at_once_and_reloads() {
    let (agent, cdp) = Agent::launch_with_cdp(&[]).await;
    let url = format!("{}?crashed-before", page("index.html"));
    let target = cdp.open_tab(&url).await;
    let session = cdp.attach(&target).await;
    // Past the tab's first, empty document (whose renderer may be swapped out).
    let loaded = format!("location.href === {url:?} && document.readyState === 'complete'");
    cdp.wait_for(&session, &loaded, LIMIT).await;
    cdp.send_to(&session, "Inspector.enable", json!({})).await;
    let mut events = cdp.events();
    cdp.fire(&session, "Page.crash", json!({}));
    events
        .wait("the renderer to crash", LIMIT, |e| {
            e.method == "Inspector.targetCrashed"
                || (e.method == "Target.targetCrashed" && e.params["targetId"] == target.as_str())
        })
        .await;
    let listed = agent.pages().await;
    let id = listed
        .iter()
        .find(|(_, u)| *u == url)
        .map(|(id, _)| *id)
        .unwrap_or_else(|| panic!("{url} is not listed: {listed:?}"));
    // A timeout longer than the harness waits: only a prompt answer lets the test on.
    agent
        .err(
            "evaluate_script",
            json!({"function": "() => 1", "pageId": id, "timeout": 120000}),
        )
        .await
        .says("renderer crashed");
    agent
        .ok("list_pages", json!({}))
        .await
        .says("[renderer crashed");
    agent
        .ok(
            "navigate_page",
            json!({"type": "reload", "pageId": id, "timeout": 20000}),
        )
        .await
        .lacks("[renderer crashed");
    let title = agent
        .ok(
            "evaluate_script",
            json!({"function": "() => document.title", "pageId": id}),
        )
        .await;
    assert_eq!(title.json["result"], "tabwire fixture");
    agent.quit().await;
}

/// How long the first call after the extension's service worker stopped may take: a
/// worker restart is a pause, not an outage (Chrome stops workers on its own; they crash).
const AFTER_A_WORKER_STOP: Duration = Duration::from_secs(5);

/// A trivial `evaluate_script` that must succeed within [`AFTER_A_WORKER_STOP`]. A call
/// made in the instant the worker stopped, before the native host saw its port close,
/// races the stop: it is told the extension disconnected before answering and to
/// retry. Then the retry, within the same deadline, must succeed.
pub(crate) async fn answers_promptly(agent: &Agent, when: &str) {
    let started = std::time::Instant::now();
    let call = async {
        let first = agent
            .call("evaluate_script", json!({"function": "() => 6 * 7"}))
            .await;
        if first.is_error && first.text.contains("disconnected before answering") {
            eprintln!(
                "{when}: the first call raced the stop; retried as told:\n{}",
                first.text
            );
            return agent
                .call("evaluate_script", json!({"function": "() => 6 * 7"}))
                .await;
        }
        first
    };
    let reply = tokio::time::timeout(AFTER_A_WORKER_STOP, call)
        .await
        .unwrap_or_else(|_| {
            panic!(
                "{when}: the first call after the worker stopped did not answer within \
                 {AFTER_A_WORKER_STOP:?} (nothing started the worker again?)\nserver log:\n{}",
                agent.log()
            )
        });
    assert!(
        !reply.is_error,
        "{when}: the first call after the worker stopped failed after {:?}:\n{}\nserver log:\n{}",
        started.elapsed(),
        reply.text,
        agent.log()
    );
    reply.says("42");
}

#[tokio::test]
async fn a_stopped_extension_worker_is_a_pause_idle_or_mid_call() {
    let (agent, cdp) = Agent::launch_with_cdp(&[]).await;
    let extension = cdp.wait_extension_id(LIMIT).await;
    let url = format!("{}?worker-stops", page("index.html"));
    agent.ok("new_page", json!({"url": url})).await;

    let session = attach_to(&cdp, &url).await;
    // The page loaded and its tab quiet: no tab event comes to wake the worker.
    cdp.wait_for(&session, "document.readyState === 'complete'", LIMIT)
        .await;
    agent.ok("list_pages", json!({})).await;

    // Idle: Chrome stops the worker while no call runs (no chrome.debugger involved:
    // the browser target closes the worker's target). Twice: Chromium starts a worker
    // stopped for the first time again by itself at once, but not the next ones, which
    // without the waker waited for the 30 s alarm.
    for time in ["idle, first stop", "idle, second stop"] {
        cdp.stop_service_worker(&extension).await;
        answers_promptly(&agent, time).await;
    }

    // Mid-call: the worker stops while a script awaits a promise that never settles.
    let running = agent.call(
        "evaluate_script",
        json!({
            "function": "() => { document.title = 'running'; return new Promise(() => {}); }",
            "timeout": 120000,
        }),
    );
    let stop = async {
        cdp.wait_for(&session, "document.title === 'running'", LIMIT)
            .await;
        cdp.stop_service_worker(&extension).await
    };
    let (cut, _) = tokio::time::timeout(LIMIT, async { tokio::join!(running, stop) })
        .await
        .unwrap_or_else(|_| {
            panic!(
                "the call in flight did not end within {LIMIT:?} after the worker stopped\n\
                 server log:\n{}",
                agent.log()
            )
        });
    assert!(cut.is_error, "the call in flight answered: {}", cut.text);
    cut.says("disconnected before answering")
        .says("service worker stopped")
        .says("retry");
    answers_promptly(&agent, "mid-call").await;
    agent.quit().await;
}

/// How long a call with a 3 s timeout may take when the native host, the extension or
/// the page does not answer: its 3 s, the few seconds the link gives a silent hop, and
/// room for a loaded machine.
const FROZEN_CALL_LIMIT: Duration = Duration::from_secs(10);

/// How long the extension may take to replace a native host that stopped answering
/// its heartbeats (it does so 15 to 20 s after the last answer), with room to spare.
const REPLACED_WITHIN: Duration = Duration::from_secs(40);

/// Continues (SIGCONT) a process the test stopped when dropped, so that a failing test
/// leaves nothing frozen.
struct Stopped(u32);

impl Stopped {
    /// Stops (SIGSTOP) the process `pid`.
    fn stop(pid: u32) -> Stopped {
        // SAFETY: kill(2) on a pid just read; at worst it names a process that is gone.
        unsafe { libc::kill(pid as i32, libc::SIGSTOP) };
        Stopped(pid)
    }
}

impl Drop for Stopped {
    fn drop(&mut self) {
        // SAFETY: as above.
        unsafe { libc::kill(self.0 as i32, libc::SIGCONT) };
    }
}

/// Calls `evaluate_script` with a 3 s timeout; its reply and how long it took, which
/// must be under [`FROZEN_CALL_LIMIT`].
async fn three_second_script(agent: &Agent, function: &str, when: &str) -> crate::harness::Reply {
    let started = std::time::Instant::now();
    let reply = agent
        .call(
            "evaluate_script",
            json!({"function": function, "timeout": 3000}),
        )
        .await;
    let took = started.elapsed();
    eprintln!("{when}: the call answered in {took:?}:\n{}", reply.text);
    assert!(reply.is_error, "{when}: it answered: {}", reply.text);
    assert!(
        took < FROZEN_CALL_LIMIT,
        "{when}: it took {took:?}:\n{}\nserver log:\n{}",
        reply.text,
        agent.log()
    );
    reply
}

/// A trivial call that must succeed within [`FROZEN_CALL_LIMIT`].
async fn works_again(agent: &Agent, when: &str) {
    let started = std::time::Instant::now();
    let call = agent.call("evaluate_script", json!({"function": "() => 6 * 7"}));
    let reply = tokio::time::timeout(FROZEN_CALL_LIMIT, call)
        .await
        .unwrap_or_else(|_| {
            panic!(
                "{when}: the next call did not answer within {FROZEN_CALL_LIMIT:?}\nserver \
                 log:\n{}",
                agent.log()
            )
        });
    assert!(
        !reply.is_error,
        "{when}: the next call failed:\n{}\nserver log:\n{}",
        reply.text,
        agent.log()
    );
    reply.says("42");
    eprintln!("{when}: the next call succeeded in {:?}", started.elapsed());
}

#[tokio::test]
async fn a_frozen_native_host_is_named_within_the_calls_timeout_and_the_next_call_works() {
    let agent = Agent::launch(&[]).await;
    agent.open("index.html").await;
    let host = crate::lifecycle::native_host(&agent);

    // Frozen for a moment: the call is told which hop did not answer, then works again.
    let frozen = Stopped::stop(host.pid);
    three_second_script(&agent, "() => 6 * 7", "native host frozen")
        .await
        .says("tabwire's native host")
        .says("has not answered")
        .says("retry")
        .lacks("page is busy");
    drop(frozen);
    works_again(&agent, "after SIGCONT").await;

    // Frozen for good: the extension replaces it, and calls work with the new one.
    let frozen = Stopped::stop(host.pid);
    let started = std::time::Instant::now();
    three_second_script(&agent, "() => 6 * 7", "native host frozen again")
        .await
        .says("tabwire's native host");
    loop {
        let replaced = crate::harness::descendants(agent.pid())
            .iter()
            .any(|p| p.pid != host.pid && !p.zombie && p.cmdline.contains(" native-host "));
        if replaced {
            break;
        }
        assert!(
            started.elapsed() < REPLACED_WITHIN,
            "the extension did not replace its frozen native host within \
             {REPLACED_WITHIN:?}\nserver log:\n{}",
            agent.log()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    eprintln!(
        "the extension replaced its frozen native host {:?} after it froze",
        started.elapsed()
    );
    drop(frozen);
    works_again(&agent, "after the extension replaced its native host").await;
    agent.quit().await;
}

#[tokio::test]
async fn a_frozen_page_is_blamed_on_the_page_not_on_the_native_host() {
    let agent = Agent::launch(&[]).await;
    let frozen_page = agent.open("index.html?frozen").await.selected_page();
    three_second_script(&agent, "() => { while (true) {} }", "page frozen")
        .await
        .says("did not finish within 3000 ms")
        .says("close_page")
        .lacks("native host")
        .lacks("extension has not answered");
    // The page stays frozen; the rest of the browser does not.
    agent.ok("list_pages", json!({})).await;
    // Closed as told, it is gone, and another page works.
    let started = std::time::Instant::now();
    agent.ok("close_page", json!({"pageId": frozen_page})).await;
    eprintln!("the frozen page closed in {:?}", started.elapsed());
    agent.open("index.html").await;
    works_again(&agent, "after the frozen page closed").await;
    agent.quit().await;
}

#[tokio::test]
async fn an_extension_stopped_in_its_debugger_is_named_and_the_next_call_works() {
    let (agent, cdp) = Agent::launch_with_cdp(&[]).await;
    let extension = cdp.wait_extension_id(LIMIT).await;
    agent.open("index.html").await;
    let worker = cdp.wait_service_worker(&extension, LIMIT).await;
    let session = cdp.attach(&worker.target_id).await;
    cdp.send_to(&session, "Debugger.enable", json!({})).await;
    // It stops at the next thing it runs: the call's message from the native host. It
    // is given the call's whole time (it might only be busy), then named.
    cdp.send_to(&session, "Debugger.pause", json!({})).await;
    three_second_script(&agent, "() => 6 * 7", "extension stopped")
        .await
        .says("extension has not answered")
        .says("chrome://extensions")
        .lacks("page is busy");
    cdp.send_to(&session, "Debugger.resume", json!({})).await;
    works_again(&agent, "after the extension resumed").await;
    agent.quit().await;
}

/// How long a call may take to say the extension is not coming back: the link's 15 s
/// reconnect grace, and room for a loaded machine.
const GIVEN_UP_WITHIN: Duration = Duration::from_secs(25);

#[tokio::test]
async fn a_killed_extension_process_is_reported_after_the_grace_with_the_way_back() {
    let (agent, cdp) = Agent::launch_with_cdp(&[]).await;
    cdp.wait_extension_id(LIMIT).await;
    agent.ok("list_pages", json!({})).await;
    let extension = crate::harness::descendants(agent.pid())
        .into_iter()
        .find(|p| !p.zombie && p.cmdline.contains("--extension-process"))
        .unwrap_or_else(|| panic!("no extension process under {}", agent.pid()));
    // SAFETY: kill(2) on a pid just read; at worst it names a process that is gone.
    unsafe { libc::kill(extension.pid as i32, libc::SIGKILL) };
    // Chrome starts nothing of a killed extension again until the user reloads it: the
    // call waits the grace a stopped worker would need, then says what happened.
    let started = std::time::Instant::now();
    let reply = tokio::time::timeout(
        GIVEN_UP_WITHIN,
        agent.call("evaluate_script", json!({"function": "() => 6 * 7"})),
    )
    .await
    .unwrap_or_else(|_| {
        panic!(
            "no answer within {GIVEN_UP_WITHIN:?} after the extension's process was killed\n\
             server log:\n{}",
            agent.log()
        )
    });
    assert!(
        reply.is_error,
        "answered without an extension: {}",
        reply.text
    );
    reply
        .says("has not reconnected")
        .says("process crashed or was killed")
        .says("chrome://extensions");
    eprintln!("told after {:?}", started.elapsed());
    agent.quit().await;
}
