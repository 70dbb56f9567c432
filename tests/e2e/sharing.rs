//! Tab sharing in a browser that behaves like the user's own (`--shareAllTabs=false`):
//! the popup driven as a user drives it (opening it shares nothing; its focused button
//! does), agents refused outside what was shared, several agents at once, the
//! extension's worker stopping mid-session, idle detach, and the popup saying why the
//! native host is not connected.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};

use crate::cdp::Cdp;
use crate::harness::{agent_label, descendants, page, Agent, AGENT_NAME};
use crate::popup::Popup;

/// Longest the browser may take to show a change.
const SEEN: Duration = Duration::from_secs(20);

/// The flag that makes a launched browser share nothing by itself.
pub(crate) const OWN_BROWSER: &str = "--shareAllTabs=false";

/// Evaluates `expression` in a page of the extension (which may use `chrome.tabs`),
/// opened for this and closed after.
pub(crate) async fn in_extension_page(cdp: &Cdp, extension: &str, expression: &str) -> Value {
    let target = cdp
        .open_tab(&format!("chrome-extension://{extension}/popup.html"))
        .await;
    let session = cdp.attach(&target).await;
    cdp.wait_for(&session, "globalThis.chrome?.tabs !== undefined", SEEN)
        .await;
    let value = cdp.evaluate(&session, expression).await;
    cdp.send("Target.closeTarget", json!({"targetId": target}))
        .await;
    value
}

/// The Chrome tab id of the tab showing (or still loading) `url`.
pub(crate) async fn tab_id(cdp: &Cdp, extension: &str, url: &str) -> i64 {
    let expression = format!(
        "chrome.tabs.query({{}}).then(tabs => \
         (tabs.find(t => t.url === {0} || t.pendingUrl === {0}) || {{}}).id)",
        json!(url)
    );
    in_extension_page(cdp, extension, &expression)
        .await
        .as_i64()
        .unwrap_or_else(|| panic!("no tab shows {url}"))
}

/// The title of the tab group `tab` is in (`null`: none) and its badge text.
async fn group_and_badge(cdp: &Cdp, extension: &str, tab: i64) -> (Value, Value) {
    let expression = format!(
        "chrome.tabs.get({tab}).then(async t => [\
           t.groupId === -1 ? null : (await chrome.tabGroups.get(t.groupId)).title, \
           await chrome.action.getBadgeText({{tabId: {tab}}})])"
    );
    let found = in_extension_page(cdp, extension, &expression).await;
    (found[0].clone(), found[1].clone())
}

/// The popup's share button, focused, so Enter shares.
const SHARE_FOCUSED: &str = "document.activeElement?.matches('#current button.share')";

/// Checks that `agent` may not run anything in `tab`, and is told it is not shared.
async fn refused(agent: &Agent, tab: i64) {
    agent
        .err(
            "evaluate_script",
            json!({"function": "() => document.title", "pageId": tab}),
        )
        .await
        .says("not shared with this agent");
}

/// A browser like the user's own, its extension's id, and a page the user opened.
pub(crate) async fn own_browser_with_a_user_tab(name: &str) -> (Agent, Cdp, String, i64, String) {
    let (agent, cdp) = Agent::launch_with_cdp(&[OWN_BROWSER]).await;
    let extension = cdp.wait_extension_id(SEEN).await;
    let url = page(name);
    let target = cdp.open_tab(&url).await;
    let tab = tab_id(&cdp, &extension, &url).await;
    (agent, cdp, extension, tab, target)
}

#[tokio::test]
async fn the_user_shares_and_takes_back_a_tab_from_the_popup() {
    let (agent, cdp, extension, tab, _) = own_browser_with_a_user_tab("index.html").await;
    let url = page("index.html");

    // Nothing shared yet: the agent sees no page and is told what the user must click.
    agent
        .err("take_snapshot", json!({}))
        .await
        .says("no tab is shared")
        .says("tabwire button");
    agent
        .err("take_snapshot", json!({"pageId": tab}))
        .await
        .says("not shared with this agent")
        .says("tabwire button");
    agent.ok("list_pages", json!({})).await.lacks(&url);

    // The toolbar button opens the popup, which offers the tab to the one agent, its
    // button focused; the user presses it.
    let popup = Popup::open(&cdp, &extension, tab).await;
    popup.wait(SHARE_FOCUSED).await;
    let offer = popup.eval("document.activeElement.textContent").await;
    assert_eq!(
        offer,
        json!(format!("Share this tab with {}", agent_label(AGENT_NAME)))
    );
    popup.click("#current button.share").await;
    popup
        .wait("document.querySelector('#current button.unshare')")
        .await;
    // Live state, not a cached label: the host answers heartbeats and was just used.
    let status = popup
        .eval("document.querySelector('#status').innerText")
        .await;
    let status = status.as_str().unwrap_or_default();
    assert!(
        status.starts_with("Host connected · 1 agent") && status.contains("last command"),
        "{status}"
    );
    agent.ok("list_pages", json!({})).await.says(&url);
    agent
        .ok(
            "evaluate_script",
            json!({"function": "() => document.title", "pageId": tab}),
        )
        .await
        .says("tabwire fixture");

    // Shared tabs sit in a group named after the agent, with a badge on the button.
    let group = popup
        .eval(&format!(
            "chrome.tabs.get({tab}).then(t => t.groupId === -1 ? null : chrome.tabGroups.get(t.groupId)).then(g => g && g.title)"
        ))
        .await;
    assert_eq!(group, json!(agent_label(AGENT_NAME)));
    let badge = popup
        .eval(&format!("chrome.action.getBadgeText({{tabId: {tab}}})"))
        .await;
    assert_ne!(badge, json!(""), "a shared tab shows a badge");

    // Stop sharing: the agent is refused, and told why.
    popup.click("#current button.unshare").await;
    popup
        .wait("document.querySelector('#current button.share')")
        .await;
    refused(&agent, tab).await;
    agent.ok("list_pages", json!({})).await.lacks(&url);

    // Share again with the agent's button; then drag the tab out of its group.
    popup.click("#current button.share").await;
    popup
        .wait("document.querySelector('#current button.unshare')")
        .await;
    agent
        .ok(
            "evaluate_script",
            json!({"function": "() => 2", "pageId": tab}),
        )
        .await
        .says("2");
    agent.ok("select_page", json!({ "pageId": tab })).await;
    popup.eval(&format!("chrome.tabs.ungroup({tab})")).await;
    popup
        .wait("document.querySelector('#current button.share')")
        .await;
    refused(&agent, tab).await;
    // The selected page was taken away: the agent is told, not moved to another page.
    agent
        .err("take_snapshot", json!({}))
        .await
        .says(&format!("Page {tab}, the selected page, is gone"));

    // The user's blocklist: the site cannot be shared, and the popup says why.
    popup
        .eval("document.querySelector('#blocklist').value = 'http://127.0.0.1:*'")
        .await;
    popup.click("#save-settings").await;
    popup
        .wait("document.querySelector('#settings-status').textContent.includes('Saved')")
        .await;
    popup
        .wait(
            "!document.querySelector('#current button.share') && \
             document.querySelector('#current .why')?.textContent.includes('blocklist')",
        )
        .await;
    popup
        .eval("document.querySelector('#blocklist').value = ''")
        .await;
    popup.click("#save-settings").await;
    popup
        .wait("document.querySelector('#current button.share')")
        .await;

    // Share once more, then "Disconnect all": the agent is cut off and told why.
    popup.click("#current button.share").await;
    agent
        .ok(
            "evaluate_script",
            json!({"function": "() => 4", "pageId": tab}),
        )
        .await
        .says("4");
    popup.click("#disconnect-all").await;
    popup.wait("!document.querySelector('li.agent')").await;
    agent
        .err("list_pages", json!({}))
        .await
        .says("disconnected this agent");
    agent.quit().await;
}

#[tokio::test]
async fn opening_and_closing_the_popup_shares_nothing() {
    let (agent, cdp, extension, tab, _) = own_browser_with_a_user_tab("index.html").await;
    let url = page("index.html");
    // The agent is known to the extension: it has called.
    agent.ok("list_pages", json!({})).await.lacks(&url);

    // The user opens the popup (to disconnect, say, or look): it offers sharing, with
    // the button focused, and nothing more.
    let popup = Popup::open(&cdp, &extension, tab).await;
    popup.wait(SHARE_FOCUSED).await;
    let text = popup.text().await;
    assert!(
        text.contains(&format!("Share this tab with {}", agent_label(AGENT_NAME)))
            && !text.contains("Stop sharing"),
        "{text}"
    );
    popup.close().await;

    // Nothing was shared: the agent sees no page and is refused the tab; the tab is in
    // no group and has no badge.
    agent
        .ok("list_pages", json!({}))
        .await
        .lacks(&url)
        .says("no tab is shared");
    refused(&agent, tab).await;
    let (group, badge) = group_and_badge(&cdp, &extension, tab).await;
    assert_eq!(group, Value::Null, "the tab is in no tab group");
    assert_eq!(badge, json!(""), "the tab has no badge");
    agent.quit().await;
}

#[tokio::test]
async fn a_tab_an_agent_opens_is_its_own_and_idle_tabs_are_detached() {
    let (agent, cdp, extension, user_tab, _) = own_browser_with_a_user_tab("second.html").await;
    let url = page("index.html");
    let opened = agent.ok("new_page", json!({"url": url})).await;
    let tab = opened.selected_page();
    let target = cdp
        .wait_target("the agent's page", SEEN, |t| {
            t.kind == "page" && t.url == url
        })
        .await;
    cdp.wait_attached(&target.target_id, true, SEEN).await;
    let popup = Popup::open(&cdp, &extension, user_tab).await;
    assert_eq!(
        popup.users_front().await[1],
        user_tab,
        "the agent's tab opened behind the user's"
    );
    // It sits in the agent's tab group like every shared tab.
    let (group, _) = group_and_badge(&cdp, &extension, tab).await;
    assert_eq!(group, json!(agent_label(AGENT_NAME)));

    // The settings, as the user changes them: detach after one idle second.
    assert!(
        popup.text().await.contains(&url) || popup.text().await.contains("tabwire fixture"),
        "the popup lists the agent's tab"
    );
    popup
        .eval("document.querySelector('#idle-detach').value = '1'")
        .await;
    popup.click("#save-settings").await;
    popup
        .wait("document.querySelector('#settings-status').textContent.includes('Saved')")
        .await;

    // Used, then left alone: the debugger lets go of the tab (Chrome's bar goes away),
    // and the next command takes it again.
    agent
        .ok(
            "evaluate_script",
            json!({"function": "() => 40 + 2", "pageId": tab}),
        )
        .await
        .says("42");
    cdp.wait_detached(&target.target_id, SEEN).await;
    agent
        .ok(
            "evaluate_script",
            json!({"function": "() => 43", "pageId": tab}),
        )
        .await
        .says("43");
    agent.quit().await;
}

#[tokio::test]
async fn two_agents_work_at_once_each_in_its_own_tabs() {
    let (first, cdp) = Agent::launch_with_cdp(&[OWN_BROWSER]).await;
    let extension = cdp.wait_extension_id(SEEN).await;
    let url_a = format!("{}?agent=a", page("index.html"));
    let url_b = format!("{}?agent=b", page("second.html"));
    let tab_a = first
        .ok("new_page", json!({"url": url_a}))
        .await
        .selected_page();
    let second = first.join_named("agent-b").await;
    let tab_b = second
        .ok("new_page", json!({"url": url_b}))
        .await
        .selected_page();

    // Each sees only its own tab, and is refused the other's.
    first
        .ok("list_pages", json!({}))
        .await
        .says(&url_a)
        .lacks(&url_b);
    second
        .ok("list_pages", json!({}))
        .await
        .says(&url_b)
        .lacks(&url_a);
    refused(&second, tab_a).await;
    refused(&first, tab_b).await;

    // Overlapping calls: the first agent's call waits for a message that only the
    // second agent's call, made while the first is still running, sends.
    let (heard, sent) = tokio::join!(
        first.ok(
            "evaluate_script",
            json!({"function": "() => new Promise(resolve => { \
                const channel = new BroadcastChannel('e2e'); \
                channel.onmessage = (e) => resolve('heard ' + e.data); \
                localStorage.setItem('listening', '1'); })"}),
        ),
        second.ok(
            "evaluate_script",
            json!({"function": "async () => { \
                for (let i = 0; i < 2000 && !localStorage.getItem('listening'); i++) \
                    await new Promise(r => setTimeout(r, 5)); \
                new BroadcastChannel('e2e').postMessage('agent-b'); return 'sent'; }"}),
        ),
    );
    heard.says("heard agent-b");
    sent.says("sent");

    // The popup shows both agents with their tabs.
    let popup = Popup::open(&cdp, &extension, tab_a).await;
    let text = popup.text().await;
    assert!(
        text.contains("agent-b") && text.contains(AGENT_NAME),
        "{text}"
    );

    // The second agent dies in the middle of a call; the first carries on.
    let second_pid = second.pid();
    let killed = async {
        first
            .ok(
                "evaluate_script",
                json!({"function": "async () => { \
                    for (let i = 0; i < 2000 && !localStorage.getItem('b-running'); i++) \
                        await new Promise(r => setTimeout(r, 5)); \
                    return 'b is running'; }"}),
            )
            .await
            .says("b is running");
        // SAFETY: kill has no memory-safety preconditions; the pid is our child's.
        let sent = unsafe { libc::kill(second_pid as libc::pid_t, libc::SIGKILL) };
        assert_eq!(sent, 0, "cannot kill the second agent");
    };
    let hung = second.try_call(
        "evaluate_script",
        json!({"function": "() => { localStorage.setItem('b-running', '1'); \
            return new Promise(() => {}); }"}),
    );
    let (_, outcome) = tokio::join!(killed, hung);
    assert!(outcome.is_err(), "a killed agent's call cannot succeed");
    popup
        .wait("!document.body.innerText.includes('agent-b')")
        .await;
    first
        .ok("evaluate_script", json!({"function": "() => 'still here'"}))
        .await
        .says("still here");
    first.ok("list_pages", json!({})).await.says(&url_a);
    first.quit().await;
}

#[tokio::test]
async fn the_session_survives_the_extension_worker_stopping() {
    let (agent, cdp) = Agent::launch_with_cdp(&[OWN_BROWSER]).await;
    let extension = cdp.wait_extension_id(SEEN).await;
    let url_a = page("index.html");
    let url_b = page("second.html");
    let tab_a = agent
        .ok("new_page", json!({"url": url_a}))
        .await
        .selected_page();
    agent.ok("new_page", json!({"url": url_b})).await;
    // Not the tab in front (the last one opened) and not the first listed by default:
    // a selection the agent made, which must survive.
    agent.ok("select_page", json!({"pageId": tab_a})).await;
    agent.evaluate("() => window.marker = 'kept'").await;

    cdp.stop_service_worker(&extension).await;
    // The user keeps browsing, which wakes the worker (as any tab event does).
    cdp.open_tab(&page("big.html")).await;
    cdp.wait_service_worker(&extension, SEEN).await;

    // A short reconnect, not a failure: the same tabs, the same selected page.
    let reply = agent
        .ok(
            "evaluate_script",
            json!({"function": "() => location.href + ' ' + window.marker"}),
        )
        .await;
    // No pageId: still the page selected before the restart.
    reply.says(&url_a).says("kept");
    agent
        .ok("list_pages", json!({}))
        .await
        .says(&url_a)
        .says(&url_b)
        .lacks("big.html");
    agent.quit().await;
}

#[tokio::test]
async fn with_nothing_shared_the_page_list_says_so_once() {
    let agent = Agent::launch(&[OWN_BROWSER, crate::harness::THIRD_PARTY]).await;
    let listed = agent.ok("list_pages", json!({})).await;
    let times = listed.text.matches("no tab is shared").count();
    assert_eq!(times, 1, "said {times} times:\n{}", listed.text);
    agent.quit().await;
}

/// Replaces the native-host manifest at `path` with `manifest` (by rename, so Chrome
/// never reads half of it).
fn write_manifest(path: &Path, manifest: &Value) {
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, manifest.to_string()).expect("write the manifest");
    std::fs::rename(&tmp, path).expect("replace the manifest");
}

#[tokio::test]
async fn not_connected_the_popup_says_why_and_what_to_run() {
    let (agent, cdp, extension, tab, _) = own_browser_with_a_user_tab("index.html").await;
    agent.ok("list_pages", json!({})).await;
    let popup = Popup::open(&cdp, &extension, tab).await;
    popup
        .wait("document.querySelector('#status-words').textContent.startsWith('Host connected')")
        .await;
    assert_eq!(popup.why_not_connected().await, "");
    let why_says = |text: &str| {
        format!(
            "document.querySelector('#why-not-connected').textContent.includes({})",
            json!(text)
        )
    };
    let not_connected =
        "document.querySelector('#status-words').textContent === 'Host not connected'";

    // The registration goes away and the host dies: Chrome finds no host to start.
    let manifest_path = agent
        .profile()
        .join("NativeMessagingHosts/dev.tabwire.json");
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(&manifest_path).expect("the launch's native-host manifest"),
    )
    .expect("the manifest is JSON");
    std::fs::remove_file(&manifest_path).expect("remove the manifest");
    let host = descendants(agent.pid())
        .into_iter()
        .find(|p| p.cmdline.contains("native-host chrome-extension://"))
        .expect("the native host Chrome started");
    // SAFETY: kill(2) on a pid we just read; at worst it names a process that is gone.
    unsafe { libc::kill(host.pid as i32, libc::SIGKILL) };
    popup.wait(not_connected).await;
    popup.wait(&why_says("tabwire install")).await;
    let why = popup.why_not_connected().await;
    assert!(why.contains("no tabwire native host registered"), "{why}");

    // A registered host that exits at once (crashed, or the binary replaced). A new
    // worker tries at once, without the back-off of the old one.
    let dir = tempfile::tempdir().expect("temp dir");
    let crashing = dir.path().join("crashing-host");
    std::fs::write(&crashing, "#!/bin/sh\nexit 1\n").expect("write the crashing host");
    std::fs::set_permissions(&crashing, std::fs::Permissions::from_mode(0o755))
        .expect("chmod the crashing host");
    let mut broken = manifest.clone();
    broken["path"] = json!(crashing);
    write_manifest(&manifest_path, &broken);
    cdp.stop_service_worker(&extension).await;
    // Until Chrome reports the exit the line says the host has not answered yet (also
    // naming `tabwire doctor`), so the wait is for the exit itself.
    popup.wait(&why_says("exited")).await;
    let why = popup.why_not_connected().await;
    assert!(why.contains("tabwire doctor"), "{why}");

    // A registration for another extension id.
    let mut other = manifest.clone();
    other["allowed_origins"] = json!(["chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/"]);
    write_manifest(&manifest_path, &other);
    cdp.wait_service_worker(&extension, SEEN).await;
    cdp.stop_service_worker(&extension).await;
    popup.wait(&why_says("does not allow this extension")).await;
    assert!(popup.why_not_connected().await.contains("tabwire install"));

    // Registered again: connected, and the line is gone.
    write_manifest(&manifest_path, &manifest);
    cdp.wait_service_worker(&extension, SEEN).await;
    cdp.stop_service_worker(&extension).await;
    popup
        .wait(
            "document.querySelector('#status-words').textContent.startsWith('Host connected') && \
             document.querySelector('#why-not-connected').textContent === ''",
        )
        .await;
    agent.quit().await;
}
