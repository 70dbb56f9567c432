//! `tabwire install --uninstall` while the user's browser and an agent run: it removes
//! every registration install made (a `--user-data-dir` folder's included, with no
//! folder named), lists what it removed, and says what it cannot undo: the native host
//! the browser started, and the extension in the profile that loaded it. When that
//! browser then quits and starts again, it finds no native host to start, and the
//! agent is told so (have the user run `tabwire install`), not that the browser quit.
//!
//! A temporary HOME, a real headless Chromium loading the extension as a user would,
//! a real `tabwire mcp` in that HOME. Waits are bounded and on conditions: the
//! profile listing the extension, the relay socket accepting, the browser holding its
//! profile's lock, the browser process gone.

use std::time::Duration;

use serde_json::json;

use crate::doctor::{Browser, Home};
use crate::harness::{tabwire_exe, Agent, AGENT_NAME};

/// Asserts that `text` says every one of `needles`.
fn says_all(what: &str, text: &str, needles: &[&str]) {
    for needle in needles {
        assert!(
            text.contains(needle),
            "{what} should say {needle:?}:\n{text}"
        );
    }
}

#[tokio::test]
async fn uninstall_removes_a_folders_registration_and_the_agent_is_told_to_install_again() {
    let home = Home::new();
    let profile = home.path().join("profile");
    let folder = profile.to_str().expect("UTF-8 folder");
    let (said, ok) = home
        .run(&tabwire_exe(), &["install", "--user-data-dir", folder])
        .await;
    assert!(ok, "install failed:\n{said}");
    let mut browser = Browser::start(&home, &profile, true);
    browser.wait_extension(&profile).await;
    browser.wait_socket(&home.socket()).await;
    let env: Vec<(&str, String)> = home
        .env()
        .into_iter()
        .map(|(k, v)| (k, v.display().to_string()))
        .collect();
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let agent = Agent::start_program(&tabwire_exe(), &["mcp"], &env, None, AGENT_NAME).await;
    agent.ok("list_pages", json!({})).await;

    // A plain uninstall: the folder install recorded is unregistered too.
    let (said, ok) = home.run(&tabwire_exe(), &["install", "--uninstall"]).await;
    assert!(ok, "uninstall failed:\n{said}");
    let tabwire_dir = home.path().join(".local/share/tabwire");
    let manifest = profile.join("NativeMessagingHosts/dev.tabwire.json");
    let removed = [
        ("--user-data-dir", manifest.clone()),
        ("wrapper", tabwire_dir.join("native-host")),
        ("program", tabwire_dir.join("bin/tabwire")),
        ("extension", tabwire_dir.join("extension")),
    ];
    for (what, path) in &removed {
        let line = format!("{what:<15} {}", path.display());
        says_all("uninstall", &said, &["Removed:", &line]);
        assert!(!path.exists(), "{} is still there", path.display());
    }
    says_all(
        "uninstall",
        &said,
        &[
            "Uninstall cannot undo:",
            &format!(
                "that Chromium (pid {}) started keeps running",
                browser.pid()
            ),
            &format!(
                "the tabwire extension in the profile \"Default\" of the browser started \
                 with --user-data-dir={folder}: only you can remove it, at \
                 chrome://extensions in that profile"
            ),
        ],
    );

    // The browser quits: the agent hears it. Until its server has heard the native
    // host's goodbye, it may answer the tab list from what it knows: asked again, bounded.
    browser.quit().await;
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let reply = agent.call("list_pages", json!({})).await;
        if reply.is_error {
            reply.says("the browser quit");
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "list_pages still answered 10 s after the browser quit:\n{}\nserver log:\n{}",
            reply.text,
            agent.log()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // Started again, it finds no native host to start: that is what the agent hears.
    let mut browser = Browser::start(&home, &profile, true);
    browser.wait_running(&profile).await;
    let install = format!("run `tabwire install --user-data-dir {folder}`");
    agent
        .err("list_pages", json!({}))
        .await
        .says(&format!(
            "No browser is connected to tabwire: Chromium is running (pid {}), but \
             tabwire's native host is not registered",
            browser.pid()
        ))
        .says(&install)
        .lacks("quit");
    agent.quit().await;
}
