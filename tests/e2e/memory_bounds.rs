//! What a page costs the extension is bounded: a page that logs huge messages without
//! end leaves the extension's process within a stated size, and its console list keeps
//! the newest messages and says how many older ones went for space. And what was
//! collected is read while the page's script runs: the console and network lists
//! answer at once beside a long `evaluate_script`, from the same agent.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::harness::{descendants, Agent, Reply};

/// How much the extension's process may grow while a page logs 2,000 messages of
/// 100 KB (200 MB of text): the console keeps 4 MiB per page, the rest is the
/// garbage the browser's events leave until the worker collects it.
const LOGGING_GROWTH: u64 = 96 << 20;

/// How far above its size before the page logged the extension's process may stay
/// once the page is closed.
const AFTER_CLOSE_GROWTH: u64 = 48 << 20;

/// Longest the console may take to show the last of the messages logged.
const ALL_LOGGED: Duration = Duration::from_secs(60);

/// Longest a console or network list may take while a script runs on the page.
const LIST_LIMIT: Duration = Duration::from_secs(2);

/// Logs 2,000 messages of 100,000 characters, each one its number first.
const LOG_HUGE: &str = "() => { const text = 'x'.repeat(100000); \
    for (let i = 0; i < 2000; i++) console.log(i + ' ' + text); }";

/// The resident size of the launched browser's extension process (the one running
/// tabwire's service worker), in bytes.
fn extension_rss(agent: &Agent) -> u64 {
    let processes: Vec<_> = descendants(agent.pid())
        .into_iter()
        .filter(|p| p.cmdline.contains("--extension-process"))
        .collect();
    assert!(
        !processes.is_empty(),
        "no extension process under the agent's browser"
    );
    processes.iter().map(|p| rss_bytes(p.pid)).sum()
}

/// A process's VmRSS, in bytes (0 once it is gone).
fn rss_bytes(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|kb| kb.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// The id of the first console message a listing shows whose text starts with `text`.
fn msgid_of(listed: &Reply, text: &str) -> u64 {
    let messages = listed.json["consoleMessages"].as_array();
    messages
        .into_iter()
        .flatten()
        .find(|m| m["text"].as_str().is_some_and(|t| t.starts_with(text)))
        .and_then(|m| m["id"].as_u64())
        .unwrap_or_else(|| panic!("no message {text:?} listed:\n{}", listed.text))
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / f64::from(1 << 20))
}

#[tokio::test]
async fn a_page_logging_huge_messages_leaves_the_extension_small_and_the_newest_listed() {
    let (agent, cdp) = Agent::launch_with_cdp(&[]).await;
    let id = agent.open("index.html").await.selected_page();
    agent.ok("list_console_messages", json!({})).await;
    let extension = cdp.wait_extension_id(Duration::from_secs(10)).await;
    let worker = cdp
        .wait_service_worker(&extension, Duration::from_secs(10))
        .await;
    let before = extension_rss(&agent);

    agent.evaluate(LOG_HUGE).await;
    let deadline = Instant::now() + ALL_LOGGED;
    let listed = loop {
        let listed = agent.ok("list_console_messages", json!({})).await;
        if listed.text.contains("] 1999 xxxx") {
            break listed;
        }
        assert!(
            Instant::now() < deadline,
            "the console did not show the last message within {ALL_LOGGED:?}:\n{}",
            listed.text
        );
    };
    let logging = extension_rss(&agent);
    listed.says("1999 xxxx").says(
        "older messages were dropped for space (at most 4 MiB of messages are kept per page)",
    );
    let for_space = listed.json["dropped"]["forSpace"].as_u64().unwrap_or(0);
    assert!(
        (1_900..2_000).contains(&for_space),
        "most went for space, the newest stayed: {}",
        listed.json["dropped"]
    );
    // The newest in full: its text (the number, a space and 100,000 characters) cut
    // at 100,000 characters, saying so.
    let newest = msgid_of(&listed, "1999 xxxx");
    agent
        .ok("get_console_message", json!({"msgid": newest}))
        .await
        .says("1999 xxxx")
        .says("… (5 characters not kept)");
    assert!(
        logging < before + LOGGING_GROWTH,
        "the extension grew from {} to {} while the page logged (at most {} more)",
        mib(before),
        mib(logging),
        mib(LOGGING_GROWTH)
    );

    agent.ok("close_page", json!({"pageId": id})).await;
    // What the worker's events left behind is collected (as the worker would when it
    // next needs the room), and what the page's console held is gone with the tab.
    let session = cdp.attach(&worker.target_id).await;
    cdp.send_to(&session, "HeapProfiler.collectGarbage", json!({}))
        .await;
    let after = extension_rss(&agent);
    assert!(
        after < before + AFTER_CLOSE_GROWTH,
        "the extension stayed at {} after the page closed (it was {} before the page \
         logged, {} while it logged)",
        mib(after),
        mib(before),
        mib(logging)
    );
    eprintln!(
        "extension process: {} before, {} after 200 MB logged, {} after the page closed",
        mib(before),
        mib(logging),
        mib(after)
    );
    agent.quit().await;
}

/// Runs `script` (which logs `<what> started` first, then runs for 10 s) from `agent`
/// and, once the console shows it started, lists the console and the network requests
/// from the same agent: each must answer within [`LIST_LIMIT`], while the script still
/// runs.
async fn lists_while_running(agent: &Agent, script: &str, what: &str) {
    let started_line = format!("{what} started");
    let before = agent.ok("list_console_messages", json!({})).await;
    let first = msgid_of(&before, "before the script");
    let done = AtomicBool::new(false);
    let running = async {
        let reply = agent
            .call(
                "evaluate_script",
                json!({"function": script, "timeout": 60000}),
            )
            .await;
        done.store(true, Ordering::SeqCst);
        reply
    };
    let lists = async {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let started = Instant::now();
            let listed = agent.ok("list_console_messages", json!({})).await;
            assert!(
                started.elapsed() < LIST_LIMIT,
                "{what}: list_console_messages took {:?}",
                started.elapsed()
            );
            if listed.text.contains(&started_line) {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "{what}: the script never logged that it started:\n{}",
                listed.text
            );
        }
        for (tool, shows) in [
            ("list_console_messages", started_line.as_str()),
            ("list_network_requests", "index.html?before"),
            ("get_console_message", "before the script"),
        ] {
            let args = match tool {
                "get_console_message" => json!({ "msgid": first }),
                _ => json!({}),
            };
            let started = Instant::now();
            let reply = agent.ok(tool, args).await;
            let took = started.elapsed();
            assert!(took < LIST_LIMIT, "{what}: {tool} took {took:?}");
            reply.says(shows);
            assert!(
                !done.load(Ordering::SeqCst),
                "{what}: the script ended before {tool} answered, so it proves nothing"
            );
        }
    };
    let (ran, ()) = tokio::join!(running, lists);
    assert!(!ran.is_error, "{what}: the script failed:\n{}", ran.text);
}

#[tokio::test]
async fn the_lists_answer_within_two_seconds_while_a_script_runs_busy_or_waiting() {
    let agent = Agent::launch(&[]).await;
    agent.open("index.html").await;
    agent
        .evaluate(
            "async () => { console.log('before the script'); \
             await fetch('/index.html?before'); }",
        )
        .await;
    // The first message goes out when the script's first task ends; then it runs.
    let busy = "async () => { console.log('a busy script started'); \
        await new Promise((r) => setTimeout(r, 50)); \
        const end = Date.now() + 10000; while (Date.now() < end) {} }";
    lists_while_running(&agent, busy, "a busy script").await;
    let waiting = "async () => { console.log('a waiting script started'); \
        await new Promise((r) => setTimeout(r, 10000)); }";
    lists_while_running(&agent, waiting, "a waiting script").await;
    agent.quit().await;
}
