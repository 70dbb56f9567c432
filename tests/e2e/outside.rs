//! The browser seen from outside the agent: a test's own DevTools connection to the
//! browser that `tabwire mcp --launch` started, and clients of the relay other than the
//! agent.

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::time::Duration;

use serde_json::json;

use crate::cdp::{Cdp, TargetInfo};
use crate::harness::{page, Agent};

/// Longest the browser may take to show a change the agent caused.
const SEEN: Duration = Duration::from_secs(20);

/// An agent whose browser the test also sees, the extension's id, and the target of a
/// page the agent opened.
async fn agent_with_a_page() -> (Agent, Cdp, String, TargetInfo) {
    let (agent, cdp) = Agent::launch_with_cdp(&[]).await;
    let extension = cdp.wait_extension_id(SEEN).await;
    let url = page("index.html");
    agent.ok("new_page", json!({"url": url})).await;
    let target = cdp
        .wait_target("the page the agent opened", SEEN, |t| {
            t.kind == "page" && t.url == url
        })
        .await;
    (agent, cdp, extension, target)
}

#[tokio::test]
async fn the_page_an_agent_opens_carries_the_extension_debugger() {
    let (agent, cdp, extension, target) = agent_with_a_page().await;
    // The test never attached to the page: `attached` is the extension's debugger.
    cdp.wait_attached(&target.target_id, true, SEEN).await;
    cdp.wait_service_worker(&extension, SEEN).await;

    // A second agent reaches the same browser through the first one's relay.
    let second = agent.join().await;
    second.ok("list_pages", json!({})).await;
    second.quit().await;
    agent.quit().await;
}

#[tokio::test]
async fn a_relay_client_running_as_another_user_is_refused() {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!(
            "SKIPPED a_relay_client_running_as_another_user_is_refused: \
             only root can start a client as another user"
        );
        return;
    }
    let (agent, _cdp) = Agent::launch_with_cdp(&[]).await;
    agent.ok("list_pages", json!({})).await;
    let socket = agent.relay_socket();
    // Open the file modes wide, so that only the relay's peer check can refuse.
    let dir = socket.parent().expect("socket dir");
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o777)).expect("chmod dir");
    std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o666))
        .expect("chmod socket");

    // A stranger's tabwire will not use a relay another user serves: it says whose.
    let stranger = Agent::start_as(
        &["mcp"],
        &[
            ("TABWIRE_SOCKET", socket.to_str().expect("UTF-8 path")),
            ("TABWIRE_LOG", "debug"),
        ],
        Some((65534, 65534)),
    )
    .await;
    stranger
        .err("list_pages", json!({}))
        .await
        .says("No browser is connected")
        .says("this tabwire would not use it")
        .says("uid 0")
        .says("another user's program holds tabwire's socket");
    let log = stranger.log();
    assert!(log.contains("refused the relay"), "log:\n{log}");
    stranger.quit().await;

    // And the relay refuses a stranger's client that connects anyway, telling it why
    // before it closes the connection.
    let script = format!(
        "import socket,sys\ns=socket.socket(socket.AF_UNIX)\ns.settimeout(10)\ns.connect({:?})\n\
         data=b''\nwhile True:\n    chunk=s.recv(65536)\n    if not chunk: break\n    data+=chunk\n\
         sys.stdout.write(data.decode('utf-8','replace'))",
        socket.to_str().expect("UTF-8 path")
    );
    let told = std::process::Command::new("/usr/bin/python3")
        .arg("-c")
        .arg(script)
        .uid(65534)
        .gid(65534)
        .output()
        .expect("a client as another user");
    let told = String::from_utf8_lossy(&told.stdout);
    assert!(
        told.contains("refused this connection")
            && told.contains("uid 65534")
            && told.contains("same user as the browser"),
        "the relay's word to a stranger: {told:?}"
    );

    // The relay refused the stranger and still serves its own user.
    let friend = agent.join().await;
    friend.ok("list_pages", json!({})).await;
    friend.quit().await;
    agent.quit().await;
}

#[tokio::test]
async fn a_tab_the_agent_was_not_given_is_left_alone_and_the_test_can_drive_it() {
    let (agent, cdp) = Agent::launch_with_cdp(&[]).await;
    agent.ok("list_pages", json!({})).await;
    let tab = cdp.open_tab(&page("devtools/form.html")).await;
    let session = cdp.attach(&tab).await;
    cdp.wait_for(&session, "document.querySelector('#grow')", SEEN)
        .await;
    let mut events = cdp.events();
    cdp.send_to(&session, "Runtime.enable", json!({})).await;
    cdp.click(&session, "#grow").await;
    cdp.wait_for(
        &session,
        "document.querySelector('p')?.textContent === 'Grown 0'",
        SEEN,
    )
    .await;
    cdp.evaluate(&session, "console.log('from the test')").await;
    events
        .wait("the page's console message", SEEN, |e| {
            e.method == "Runtime.consoleAPICalled"
                && e.session.as_deref() == Some(session.0.as_str())
                && e.params["args"][0]["value"] == "from the test"
        })
        .await;
    assert_eq!(
        cdp.evaluate(&session, "document.querySelectorAll('p').length")
            .await,
        json!(1)
    );
    // Once the test lets go, nothing holds a debugger on a tab the agent never opened.
    cdp.detach(&session).await;
    cdp.wait_detached(&tab, SEEN).await;
    agent.quit().await;
}

#[tokio::test]
async fn the_extension_debugger_on_a_page_outlives_its_stopped_worker() {
    let (agent, cdp, extension, target) = agent_with_a_page().await;
    cdp.wait_attached(&target.target_id, true, SEEN).await;
    let stopped = cdp.stop_service_worker(&extension).await;
    // Chrome keeps the extension's debugging session after its worker is gone: a
    // restarted worker finds the tab still attached.
    let after = cdp.target(&target.target_id).await.expect("the page");
    assert!(
        after.attached,
        "the page lost its debugger when worker {stopped} stopped"
    );
    agent.quit().await;
}
