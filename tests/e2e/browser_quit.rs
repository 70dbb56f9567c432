//! The browser going away under agents: quitting, being stopped, starting again. The
//! native host tells a quit from a worker restart by whether the browser process is
//! still there, so agents are told at once instead of waiting out the reconnect grace
//! that a worker restart gets (15 s), and a browser that comes back as a new run has
//! its old tab ids named as gone.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::cdp::Cdp;
use crate::harness::{descendants, page, Agent, Reply};

/// Under the 15 s reconnect grace a call waited after any loss before: a call that
/// takes this long waited for a browser that was known to be gone.
const QUICK: Duration = Duration::from_secs(10);

/// Longest a browser may take to start and connect its extension again.
const STARTS: Duration = Duration::from_secs(30);

/// Calls a tool that must fail, within [`QUICK`]; prints how long it took.
async fn quick_err(agent: &Agent, name: &str, args: Value) -> Reply {
    let started = Instant::now();
    let reply = tokio::time::timeout(QUICK, agent.call(name, args))
        .await
        .unwrap_or_else(|_| {
            panic!(
                "{name} took over {QUICK:?} with the browser gone: it waited as for a worker \
                 restart (the 15 s reconnect grace) instead of saying the browser quit\n\
                 server log:\n{}",
                agent.log()
            )
        });
    eprintln!("{name} answered in {:?}", started.elapsed());
    assert!(
        reply.is_error,
        "{name} should have failed:\n{}\nserver log:\n{}",
        reply.text,
        agent.log()
    );
    reply
}

#[tokio::test]
async fn after_the_browser_quits_every_call_says_so_at_once() {
    let (agent, cdp) = Agent::launch_with_cdp(&[]).await;
    agent.ok("list_pages", json!({})).await;
    let joined = agent.join().await;
    joined.ok("list_pages", json!({})).await;

    cdp.close_browser().await;
    // The first call after the quit (one the agent's server cannot answer from what it
    // knows of the tabs, which may not have heard yet), and the ones after it.
    for tool in ["take_snapshot", "list_pages", "list_pages"] {
        quick_err(&joined, tool, json!({}))
            .await
            .says("No browser is connected to tabwire: the browser quit")
            .says("start it again");
    }
    // The agent that launched it is told that it will not come back by itself.
    quick_err(&agent, "list_pages", json!({}))
        .await
        .says("The browser tabwire launched (--launch) has quit")
        .says("Restart this MCP server");
    joined.quit().await;
    agent.quit().await;
}

#[tokio::test]
async fn when_the_agent_that_launched_the_browser_quits_the_others_are_told_at_once() {
    let (agent, _cdp) = Agent::launch_with_cdp(&[]).await;
    agent.ok("list_pages", json!({})).await;
    let joined = agent.join().await;
    joined.ok("list_pages", json!({})).await;
    // Stopping its browser signals the browser's whole process group, native host too.
    agent.quit().await;
    quick_err(&joined, "list_pages", json!({}))
        .await
        .says("No browser is connected to tabwire: the browser quit");
    joined.quit().await;
}

#[tokio::test]
async fn a_call_in_flight_when_the_browser_quits_says_it_quit() {
    let (agent, cdp) = Agent::launch_with_cdp(&[]).await;
    let joined = agent.join().await;
    let url = page("index.html");
    joined.ok("new_page", json!({"url": url})).await;

    // A script that marks the page, then waits for ever (until its 60 s timeout).
    let waiting = async {
        let reply = joined
            .call(
                "evaluate_script",
                json!({
                    "function": "() => { history.replaceState(null, '', '#waiting'); \
                        return new Promise(() => {}); }",
                    "timeout": 60_000,
                }),
            )
            .await;
        (reply, Instant::now())
    };
    let quit = async {
        let marked = format!("{url}#waiting");
        cdp.wait_target("the page marked by the script", STARTS, |t| t.url == marked)
            .await;
        let closing = Instant::now();
        cdp.close_browser().await;
        closing
    };
    let ((reply, answered), closing) =
        tokio::time::timeout(STARTS + QUICK, async { tokio::join!(waiting, quit) })
            .await
            .unwrap_or_else(|_| {
                panic!(
                    "evaluate_script was still waiting {QUICK:?} after the browser quit\n\
                     server log:\n{}",
                    joined.log()
                )
            });
    eprintln!(
        "evaluate_script failed {:?} after Browser.close was sent",
        answered.duration_since(closing)
    );
    assert!(reply.is_error, "it should have failed:\n{}", reply.text);
    reply.lacks("did not answer");
    // Quitting, the browser closes its tabs first, and may tell the extension before it
    // closes the native host's pipe: the call then hears that its page closed with its
    // window. Either way the next call says the browser quit.
    if !reply.text.contains("was closed while the command ran") {
        reply
            .says("The browser quit before answering")
            .says("start it again");
    } else {
        reply.says("as when the browser quits");
        quick_err(&joined, "list_pages", json!({}))
            .await
            .says("the browser quit")
            .says("start it again");
    }
    joined.quit().await;
    agent.quit().await;
}

/// The launched browser's command line, read from /proc (arguments NUL-separated).
pub(crate) fn browser_command_line(agent: &Agent) -> Vec<String> {
    let browser = descendants(agent.pid())
        .into_iter()
        .find(|p| p.ppid == agent.pid() && p.cmdline.contains("--user-data-dir="))
        .expect("the browser tabwire launched");
    let raw = std::fs::read(format!("/proc/{}/cmdline", browser.pid)).expect("its command line");
    raw.split(|b| *b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect()
}

/// Starts the browser again as the user would, with `command_line` on the agent's
/// profile (and display, in a headful run); returns it once its DevTools endpoint and
/// its native host are up.
pub(crate) async fn start_again(
    agent: &Agent,
    command_line: &[String],
) -> (tokio::process::Child, Cdp) {
    std::fs::remove_file(agent.profile().join("DevToolsActivePort")).expect("old port file");
    let restarted = tokio::process::Command::new(&command_line[0])
        .args(&command_line[1..])
        .envs(agent.browser_env())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start the browser again");
    let cdp = Cdp::connect(agent.profile()).await;
    wait_for_file(
        &agent.relay_socket(),
        "native host for the restarted browser",
    )
    .await;
    (restarted, cdp)
}

/// Waits, bounded, for `path` to exist: nothing announces a socket being bound.
pub(crate) async fn wait_for_file(path: &Path, what: &str) {
    let deadline = Instant::now() + STARTS;
    while !path.exists() {
        assert!(Instant::now() < deadline, "no {what} within {STARTS:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn after_the_browser_restarts_old_tab_ids_are_named_as_gone() {
    let (agent, cdp) = Agent::launch_with_cdp(&[]).await;
    let joined = agent.join().await;
    let tab = joined.open("index.html").await.selected_page();
    let command_line = browser_command_line(&agent);
    cdp.close_browser().await;
    drop(cdp);
    quick_err(&joined, "take_snapshot", json!({}))
        .await
        .says("No browser is connected to tabwire: the browser quit");

    // The user starts the browser again, on the same profile (its native-host
    // registration still points at this agent's relay).
    let (mut restarted, cdp) = start_again(&agent, &command_line).await;

    // The page the agent worked on, by id and as its selected page.
    for args in [
        json!({"function": "() => 1", "pageId": tab}),
        json!({"function": "() => 1"}),
    ] {
        quick_err(&joined, "evaluate_script", args)
            .await
            .says("The browser restarted, or tabwire's extension was reloaded")
            .says("tab ids from before name other tabs or none")
            .says("share the tab again")
            .says("then call list_pages")
            .lacks("not shared");
    }
    // Once it has seen the new run's pages, its page ids are its own again.
    let listed = joined.ok("list_pages", json!({})).await;
    let now = listed.json["pages"][0]["id"].clone();
    joined
        .ok(
            "evaluate_script",
            json!({"function": "() => 2", "pageId": now}),
        )
        .await;

    cdp.close_browser().await;
    tokio::time::timeout(QUICK, restarted.wait())
        .await
        .expect("the restarted browser exits after Browser.close")
        .expect("wait for the restarted browser");
    joined.quit().await;
    agent.quit().await;
}
