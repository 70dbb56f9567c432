//! The server's life: no browser, and leaving nothing behind.

use serde_json::json;

use crate::harness::Agent;

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

/// Processes whose command line mentions `needle`.
fn processes_mentioning(needle: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if String::from_utf8_lossy(&cmdline).contains(needle) {
            found.push(pid);
        }
    }
    found
}

#[tokio::test]
async fn quitting_closes_the_browser_and_removes_the_profile() {
    let agent = Agent::launch(&[]).await;
    agent.ok("list_pages", json!({})).await;
    // The launched browser is the one whose command line names a tabwire temp profile
    // and whose parent is our server.
    let server = agent.pid();
    let profile = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
            let ppid: u32 = stat
                .rsplit(')')
                .next()?
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()?;
            if ppid != server {
                return None;
            }
            let cmdline =
                String::from_utf8_lossy(&std::fs::read(e.path().join("cmdline")).ok()?).to_string();
            cmdline
                .split('\0')
                .find_map(|a| a.strip_prefix("--user-data-dir=").map(str::to_string))
        })
        .next()
        .expect("a browser started by the server");
    assert!(std::path::Path::new(&profile).is_dir());
    let status = agent.quit().await;
    assert!(status.success(), "tabwire mcp exited with {status}");
    assert!(
        !std::path::Path::new(&profile).exists(),
        "profile {profile} was left behind"
    );
    let left = processes_mentioning(&profile);
    assert!(left.is_empty(), "processes left behind: {left:?}");
}
