//! Lists answered from what `tabwire mcp` already knows stay true to the browser: tabs
//! opened, retitled, navigated and closed outside the agent show up in `list_pages`, and
//! the third-party tools it shows are those of the document the page shows now; after a
//! third-party tool ran (it may have opened or closed a tab), `list_pages` asks the
//! browser again.

use std::time::Duration;

use serde_json::{json, Value};

use crate::cdp::Cdp;
use crate::harness::{page, Agent, Reply, THIRD_PARTY};

/// Longest the browser may take to show a change made outside the agent.
const SEEN: Duration = Duration::from_secs(20);

/// Calls `list_pages` until `done` holds, each time after one round trip to the
/// extension (listing the network requests, which `list_pages` keeps nothing of): an event the
/// extension sent before answering it has reached the server by then. The browser
/// itself tells the extension of a change when it gets to it (a title reaches the tabs
/// API after the page set it), so the rounds go on for up to [`SEEN`].
async fn list_pages_until(agent: &Agent, what: &str, done: impl Fn(&Reply) -> bool) -> Reply {
    let deadline = std::time::Instant::now() + SEEN;
    let mut rounds = 0;
    while std::time::Instant::now() < deadline {
        let listed = agent.ok("list_pages", json!({})).await;
        if done(&listed) {
            return listed;
        }
        agent.ok("list_network_requests", json!({})).await;
        rounds += 1;
    }
    panic!("list_pages never showed {what} within {SEEN:?} ({rounds} round trips)");
}

/// The target of the agent's page at `url`, attached for the test's own commands.
async fn outside_session(cdp: &Cdp, url: &str) -> (String, crate::cdp::Session) {
    let target = cdp
        .wait_target("the agent's page", SEEN, |t| {
            t.kind == "page" && t.url == url
        })
        .await;
    let session = cdp.attach(&target.target_id).await;
    (target.target_id, session)
}

#[tokio::test]
async fn list_pages_follows_tabs_changed_outside_the_agent() {
    let (agent, cdp) = Agent::launch_with_cdp(&[]).await;
    agent.open("index.html").await;
    agent.ok("list_pages", json!({})).await;
    agent.ok("list_pages", json!({})).await;

    let form = page("devtools/form.html");
    let opened = cdp.open_tab(&form).await;
    list_pages_until(&agent, "the tab opened outside", |r| r.text.contains(&form)).await;

    // Retitled once loaded (earlier, the page's own <title> would win).
    let (_, session) = outside_session(&cdp, &form).await;
    cdp.evaluate(
        &session,
        "new Promise((loaded) => document.readyState === 'complete' ? loaded() \
         : addEventListener('load', () => loaded())).then(() => { \
         document.title = 'Retitled outside'; })",
    )
    .await;
    list_pages_until(&agent, "the new title", |r| {
        r.text.contains("Retitled outside")
    })
    .await;

    cdp.send("Target.closeTarget", json!({"targetId": opened}))
        .await;
    list_pages_until(&agent, "the tab gone", |r| !r.text.contains(&form)).await;
    agent.quit().await;
}

#[tokio::test]
async fn list_pages_shows_the_tools_of_the_document_shown_now() {
    let (agent, cdp) = Agent::launch_with_cdp(&[THIRD_PARTY]).await;
    let add = page("3p/add.html");
    agent
        .ok("new_page", json!({"url": add}))
        .await
        .says("- add: Calculates the sum of two numbers.");
    // Count the discovery events the page gets from now on.
    agent
        .ok(
            "evaluate_script",
            json!({"function": "() => { window.asked = 0; \
                window.addEventListener('devtoolstooldiscovery', () => { window.asked++; }); }"}),
        )
        .await;
    // The script may have changed the page: the first listing asks it again, the
    // second answers from what that one found.
    agent.ok("list_pages", json!({})).await.says("- add:");
    agent.ok("list_pages", json!({})).await.says("- add:");
    agent
        .ok("list_3p_developer_tools", json!({}))
        .await
        .says("- add:");
    assert_eq!(agent.evaluate("() => window.asked").await, json!(2));

    // The page navigates by itself: list_pages shows the new document's tools.
    let (_, session) = outside_session(&cdp, &add).await;
    let groups = page("3p/groups.html");
    cdp.evaluate(&session, &format!("location.href = {}", json!(groups)))
        .await;
    let listed = list_pages_until(&agent, "the new document's tools", |r| {
        r.text.contains("- currentRoute:")
    })
    .await;
    listed.lacks("- add:");
    agent.quit().await;
}

#[tokio::test]
async fn list_console_messages_shows_what_the_page_logged_since() {
    let (agent, cdp) = Agent::launch_with_cdp(&[]).await;
    let url = page("index.html");
    agent.ok("new_page", json!({"url": url})).await;
    agent.ok("list_console_messages", json!({})).await;
    let before = agent.ok("list_console_messages", json!({})).await;
    before.lacks("logged outside");
    let errors = before.json["consoleTotals"]["errors"]
        .as_u64()
        .expect("totals");
    // The page logs by itself (the test's own DevTools connection, not the agent).
    let (_, session) = outside_session(&cdp, &url).await;
    cdp.evaluate(&session, "console.error('logged outside')")
        .await;
    let deadline = std::time::Instant::now() + SEEN;
    while std::time::Instant::now() < deadline {
        let listed = agent.ok("list_console_messages", json!({})).await;
        if listed.text.contains("logged outside") {
            let now = listed.json["consoleTotals"]["errors"].as_u64();
            assert_eq!(now, Some(errors + 1), "{}", listed.text);
            agent.quit().await;
            return;
        }
        agent.ok("list_network_requests", json!({})).await;
    }
    panic!("list_console_messages never showed the message logged outside within {SEEN:?}");
}

/// The URLs of the pages a reply lists.
fn urls(reply: &Reply) -> Vec<String> {
    reply.pages().into_iter().map(|(_, url)| url).collect()
}

#[tokio::test]
async fn after_a_third_party_tool_list_pages_asks_the_browser_again() {
    let agent = Agent::launch(&[THIRD_PARTY]).await;
    agent.open("3p/tabs.html").await.says("- looked:");
    let looked = |reply: Reply| reply.json["result"].as_u64().expect("a count");
    let run = |tool: &'static str, params: Value| {
        agent.ok(
            "execute_3p_developer_tool",
            json!({"toolName": tool, "params": params.to_string()}),
        )
    };
    // Twice listed: the second answers from what the first found, asking the page
    // nothing.
    agent.ok("list_pages", json!({})).await;
    agent.ok("list_pages", json!({})).await;
    let before = looked(run("looked", json!({})).await);

    // A tool may have changed the tabs: the next listing asks the browser (and the
    // page), the one after answers from memory again.
    agent.ok("list_pages", json!({})).await.says("- looked:");
    agent.ok("list_pages", json!({})).await.says("- looked:");
    assert_eq!(
        looked(run("looked", json!({})).await),
        before + 1,
        "one listing asked the page after the tool ran"
    );

    // So a tab a tool opened is listed at once, and gone once a tool closed it.
    let second = page("second.html");
    let opened = run("openTab", json!({ "url": second })).await;
    assert_eq!(opened.json["result"], true, "{}", opened.text);
    let listed = agent.ok("list_pages", json!({})).await;
    assert!(urls(&listed).contains(&second), "{}", listed.text);
    let closed = run("closeTab", json!({})).await;
    assert_eq!(closed.json["result"], true, "{}", closed.text);
    let listed = agent.ok("list_pages", json!({})).await;
    assert!(!urls(&listed).contains(&second), "{}", listed.text);
    agent.quit().await;
}

#[tokio::test]
async fn long_lists_come_in_pages_that_fit_a_codex_session() {
    let (first, _cdp) = Agent::launch_with_cdp(&[]).await;
    let agent = first
        .join_named_with(
            "codex-mcp-client",
            &["--experimentalStructuredContent=false"],
        )
        .await;
    agent
        .ok("new_page", json!({"url": page("index.html")}))
        .await;
    agent
        .ok(
            "evaluate_script",
            json!({"function": "() => { for (let i = 0; i < 120; i++) console.log('message ' + i + ' ' + 'x'.repeat(400)); }"}),
        )
        .await;
    let listed = agent.ok("list_console_messages", json!({})).await;
    let chars = listed.text.chars().count();
    assert!(
        chars <= 11_000,
        "{chars} characters for Codex:\n{}",
        listed.text
    );
    listed
        .says("to fit this client's replies")
        .says("message 119 ");
    // The page line says where this page is; an older one is a pageIdx away.
    let older = agent
        .ok("list_console_messages", json!({"pageIdx": 0}))
        .await;
    assert!(older.text.chars().count() <= 11_000);
    older.says("message 0 ");
    // A size the agent chose is kept.
    let chosen = agent
        .ok("list_console_messages", json!({"pageSize": 5}))
        .await;
    chosen
        .lacks("to fit this client's replies")
        .says("message 119 ");
    agent.quit().await;
    first.quit().await;
}
