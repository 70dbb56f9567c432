//! The server's life: no browser, and leaving nothing behind.

use serde_json::json;

use crate::harness::{descendants, processes, Agent};

#[tokio::test]
async fn without_a_browser_the_error_says_what_to_do() {
    let dir = tempfile::tempdir().expect("temp dir");
    let socket = dir.path().join("nobody.sock");
    let agent = Agent::start(&["mcp"], &[("TABWIRE_SOCKET", socket.to_str().unwrap())]).await;
    let reply = agent.err("list_pages", json!({})).await;
    reply
        .says("tabwire install")
        .says("tabwire doctor")
        .says("extension");
    agent.quit().await;
}

#[tokio::test]
async fn quitting_closes_the_browser_and_removes_the_profile() {
    let agent = Agent::launch(&[]).await;
    agent.ok("list_pages", json!({})).await;
    let family = descendants(agent.pid());
    let profile = family
        .iter()
        .find_map(|p| {
            p.cmdline
                .split(' ')
                .find_map(|a| a.strip_prefix("--user-data-dir="))
                .map(str::to_string)
        })
        .expect("a browser started by the server");
    assert!(std::path::Path::new(&profile).is_dir());
    let status = agent.quit().await;
    assert!(status.success(), "tabwire mcp exited with {status}");
    assert!(
        !std::path::Path::new(&profile).exists(),
        "profile {profile} was left behind"
    );
    // Processes killed a moment ago may still be finishing their exit: allow them a
    // bounded time to be gone.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let left = loop {
        let left: Vec<_> = processes()
            .into_iter()
            .filter(|p| !p.zombie)
            .filter(|p| family.iter().any(|f| f.pid == p.pid) || p.cmdline.contains(&profile))
            .collect();
        if left.is_empty() || std::time::Instant::now() > deadline {
            break left;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(left.is_empty(), "processes left behind: {left:?}");
}

#[tokio::test]
async fn the_server_reconnects_when_the_browser_side_comes_back() {
    let agent = Agent::launch(&[]).await;
    agent.ok("list_pages", json!({})).await;
    let host = descendants(agent.pid())
        .into_iter()
        .find(|p| p.cmdline.contains("native-host chrome-extension://"))
        .expect("the native host Chrome started");
    // The relay dies; the extension reconnects with back-off, Chrome starts a new
    // native host, and the server's link finds it. The next call waits for that.
    // SAFETY: kill(2) on a pid we just read; at worst it names a process that is gone.
    unsafe { libc::kill(host.pid as i32, libc::SIGKILL) };
    let listed = agent.ok("list_pages", json!({})).await;
    assert_eq!(listed.json["pages"].as_array().map(Vec::len), Some(1));
    let again = descendants(agent.pid())
        .into_iter()
        .find(|p| p.cmdline.contains("native-host chrome-extension://"))
        .expect("a new native host");
    assert_ne!(again.pid, host.pid);
    agent.quit().await;
}
