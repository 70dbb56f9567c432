//! The tab groups tabwire shows in the user's own browser tell the truth: a group named
//! after an agent exists only while that agent shares the tab, also after the browser
//! quits and restores its session; an agent keeps its colour; two sessions of one
//! client are told apart by their project folders.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::browser_quit::{browser_command_line, start_again};
use crate::cdp::Cdp;
use crate::harness::{agent_label, page, AGENT_NAME};
use crate::popup::Popup;
use crate::sharing::{in_extension_page, own_browser_with_a_user_tab, tab_id};

/// Longest the browser may take to show a change.
const SEEN: Duration = Duration::from_secs(20);

/// Every open tab group: `[{title, color, tabs: [url…]}]`.
async fn open_groups(cdp: &Cdp, extension: &str) -> Value {
    in_extension_page(
        cdp,
        extension,
        "chrome.tabGroups.query({}).then(groups => Promise.all(groups.map(async g => ({\
           title: g.title, color: g.color, \
           tabs: (await chrome.tabs.query({groupId: g.id})).map(t => t.url || t.pendingUrl)}))))",
    )
    .await
}

/// Waits, bounded, until the open groups satisfy `wanted`; returns them.
async fn wait_groups(
    cdp: &Cdp,
    extension: &str,
    what: &str,
    wanted: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = Instant::now() + SEEN;
    loop {
        let groups = open_groups(cdp, extension).await;
        if wanted(&groups) {
            return groups;
        }
        assert!(
            Instant::now() < deadline,
            "{what} within {SEEN:?}; groups now: {groups}"
        );
    }
}

/// The group titled `title`, if open.
fn titled<'a>(groups: &'a Value, title: &str) -> Option<&'a Value> {
    groups.as_array()?.iter().find(|g| g["title"] == title)
}

/// Shares `tab` with the agent named `label` from the popup, as the user does.
async fn share_from_popup(cdp: &Cdp, extension: &str, tab: i64, label: &str) {
    let popup = Popup::open(cdp, extension, tab).await;
    let button = format!(
        "[...document.querySelectorAll('#current button.share')].find(b => b.textContent.endsWith({}))",
        json!(label)
    );
    popup.wait(&button).await;
    popup.eval(&format!("{button}.click()")).await;
    popup
        .wait("document.querySelector('#current button.unshare')")
        .await;
    popup.close().await;
}

#[tokio::test]
async fn after_a_browser_restart_no_agent_group_is_left_and_the_agent_keeps_its_colour() {
    let (agent, cdp, extension, tab, _) = own_browser_with_a_user_tab("index.html").await;
    let label = agent_label(AGENT_NAME);
    share_from_popup(&cdp, &extension, tab, &label).await;
    let groups = wait_groups(&cdp, &extension, "the agent's group", |g| {
        titled(g, &label).is_some()
    })
    .await;
    let colour = titled(&groups, &label).expect("the agent's group")["color"].clone();
    // A group of the user's own, which must come back untouched.
    let reading = page("frames.html");
    cdp.open_tab(&reading).await;
    let own = tab_id(&cdp, &extension, &reading).await;
    in_extension_page(
        &cdp,
        &extension,
        &format!("chrome.tabs.group({{tabIds: [{own}]}}).then(g => chrome.tabGroups.update(g, {{title: 'reading list', color: 'green'}}))"),
    )
    .await;

    // The user quits the browser and starts it again, restoring the last session.
    let mut command_line = browser_command_line(&agent);
    command_line.push("--restore-last-session".into());
    cdp.close_browser().await;
    drop(cdp);
    let (mut restarted, cdp) = start_again(&agent, &command_line).await;

    // The session came back with the user's group; the agent's is gone.
    let url = page("index.html");
    let groups = wait_groups(
        &cdp,
        &extension,
        "the user's group restored and the agent's gone",
        |g| titled(g, "reading list").is_some() && titled(g, &label).is_none(),
    )
    .await;
    let users = titled(&groups, "reading list").expect("restored");
    assert_eq!(
        users["color"], "green",
        "the user's group as it was: {groups}"
    );
    assert_eq!(users["tabs"], json!([reading]), "{groups}");

    // Shared again, the tab joins a group of the agent's own colour.
    let tab = tab_id(&cdp, &extension, &url).await;
    share_from_popup(&cdp, &extension, tab, &label).await;
    let groups = wait_groups(&cdp, &extension, "the agent's group again", |g| {
        titled(g, &label).is_some()
    })
    .await;
    let again = titled(&groups, &label).expect("the agent's group");
    assert_eq!(again["color"], colour, "one agent, one colour: {groups}");
    assert_eq!(again["tabs"], json!([url]), "{groups}");

    cdp.close_browser().await;
    tokio::time::timeout(SEEN, restarted.wait())
        .await
        .expect("the restarted browser exits after Browser.close")
        .expect("wait for the restarted browser");
    agent.quit().await;
}

#[tokio::test]
async fn two_sessions_of_one_client_are_named_after_their_folders() {
    let (agent, cdp, extension, tab, _) = own_browser_with_a_user_tab("index.html").await;
    let shop = agent.join_named_in("claude-code", "shop-app").await;
    let blog = agent.join_named_in("claude-code", "blog").await;
    let second = page("frames.html");
    cdp.open_tab(&second).await;
    let other = tab_id(&cdp, &extension, &second).await;
    share_from_popup(&cdp, &extension, tab, "claude-code · shop-app").await;
    share_from_popup(&cdp, &extension, other, "claude-code · blog").await;
    let groups = wait_groups(&cdp, &extension, "both agents' groups", |g| {
        titled(g, "claude-code · shop-app").is_some() && titled(g, "claude-code · blog").is_some()
    })
    .await;
    let colours = |title: &str| titled(&groups, title).expect("open")["color"].clone();
    assert_ne!(
        colours("claude-code · shop-app"),
        colours("claude-code · blog")
    );
    let popup = Popup::open(&cdp, &extension, tab).await;
    let text = popup.text().await;
    for shown in [
        "claude-code · shop-app",
        "claude-code · blog",
        "shop-app",
        "blog",
    ] {
        assert!(text.contains(shown), "the popup names {shown}: {text}");
    }
    assert!(!text.contains("(2)"), "no numbered names: {text}");
    let tooltip = in_extension_page(
        &cdp,
        &extension,
        &format!("chrome.action.getTitle({{tabId: {tab}}})"),
    )
    .await;
    assert_eq!(
        tooltip,
        json!("tabwire: shared with claude-code · shop-app")
    );
    popup.close().await;
    blog.quit().await;
    shop.quit().await;
    agent.quit().await;
}
