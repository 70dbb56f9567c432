//! Pages: listing, opening, selecting, navigating and closing them.

use serde_json::json;

use crate::harness::{page, Agent};

#[tokio::test]
async fn the_first_tools_are_offered_sorted() {
    let agent = Agent::launch(&[]).await;
    let names = agent.tool_names().await;
    for expected in [
        "close_page",
        "evaluate_script",
        "list_pages",
        "navigate_page",
        "new_page",
        "select_page",
    ] {
        assert!(
            names.contains(&expected.to_string()),
            "{expected} missing from {names:?}"
        );
    }
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    agent.quit().await;
}

#[tokio::test]
async fn open_navigate_back_forward_reload_and_close() {
    let agent = Agent::launch(&[]).await;
    let listed = agent.ok("list_pages", json!({})).await;
    assert_eq!(
        listed.json["pages"].as_array().map(Vec::len),
        Some(1),
        "{}",
        listed.text
    );

    let opened = agent.open("index.html").await;
    opened.says("tabwire fixture");
    let id = opened.selected_page();
    assert_eq!(opened.json["pages"].as_array().map(Vec::len), Some(2));

    assert_eq!(
        agent.evaluate("() => document.title").await,
        "tabwire fixture"
    );

    agent
        .ok("navigate_page", json!({"url": page("second.html")}))
        .await
        .says("second page");
    let back = agent.ok("navigate_page", json!({"type": "back"})).await;
    assert_eq!(
        back.selected_page(),
        id,
        "pageId is stable across navigations"
    );
    assert_eq!(
        agent.evaluate("() => location.pathname").await,
        "/index.html"
    );
    agent.ok("navigate_page", json!({"type": "forward"})).await;
    assert_eq!(
        agent.evaluate("() => location.pathname").await,
        "/second.html"
    );

    // A reload gives a new document: state set before it is gone after it.
    agent.evaluate("() => { window.marker = 1 }").await;
    agent.ok("navigate_page", json!({"type": "reload"})).await;
    assert_eq!(
        agent.evaluate("() => typeof window.marker").await,
        "undefined"
    );

    let listed = agent.ok("list_pages", json!({})).await;
    let other = listed.json["pages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] != id)
        .and_then(|p| p["id"].as_i64())
        .expect("the first tab");
    let closed = agent.ok("close_page", json!({"pageId": other})).await;
    assert_eq!(
        closed.json["pages"].as_array().map(Vec::len),
        Some(1),
        "{}",
        closed.text
    );
    agent
        .err("close_page", json!({"pageId": id}))
        .await
        .says("last");
    agent.quit().await;
}

#[tokio::test]
async fn select_page_switches_where_page_tools_act() {
    let agent = Agent::launch(&[]).await;
    let first = agent.open("index.html").await.selected_page();
    let second = agent.open("second.html").await.selected_page();
    assert_ne!(first, second);
    let selected = agent
        .ok(
            "select_page",
            json!({"pageId": first, "bringToFront": true}),
        )
        .await;
    assert_eq!(selected.selected_page(), first);
    assert_eq!(
        agent.evaluate("() => document.title").await,
        "tabwire fixture"
    );
    // An explicit pageId acts on another page without changing the selection.
    let other = agent
        .ok(
            "evaluate_script",
            json!({"function": "() => document.title", "pageId": second}),
        )
        .await;
    assert_eq!(other.json["result"], "second page");
    agent
        .err("select_page", json!({"pageId": 987654}))
        .await
        .says("No page with id 987654");
    agent.quit().await;
}

#[tokio::test]
async fn navigation_errors_say_what_happened() {
    let agent = Agent::launch(&[]).await;
    agent.open("index.html").await;
    // A port that was free a moment ago: nothing listens there.
    let closed_port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    agent
        .err(
            "navigate_page",
            json!({"url": format!("http://127.0.0.1:{closed_port}/")}),
        )
        .await
        .says("ERR_CONNECTION_REFUSED");
    agent
        .err("navigate_page", json!({"type": "url"}))
        .await
        .says("needs a `url`");
    agent
        .err("navigate_page", json!({"type": "forward"}))
        .await
        .says("no next page");
    agent
        .err(
            "evaluate_script",
            json!({"function": "() => 1", "pageId": 424242}),
        )
        .await
        .says("No page with id 424242");
    agent.quit().await;
}

/// The same small page as a `data:` URL in its three spellings: plain, percent-encoded
/// and base64.
const DATA_PAGES: &[&str] = &[
    "data:text/html,<title>T</title><h1>hi</h1>",
    "data:text/html,%3Ctitle%3ET%3C%2Ftitle%3E%3Ch1%3Ehi%3C%2Fh1%3E",
    "data:text/html;base64,PHRpdGxlPlQ8L3RpdGxlPjxoMT5oaTwvaDE+",
];

/// Asserts the selected page shows the data page `url`: its snapshot and its place
/// in the page list.
async fn shows_data_page(agent: &Agent, url: &str, title: &str, heading: &str) {
    agent
        .ok("take_snapshot", json!({}))
        .await
        .says(&format!("RootWebArea \"{title}\""))
        .says(&format!("heading \"{heading}\""));
    agent.ok("list_pages", json!({})).await.says(url);
}

#[tokio::test]
async fn data_urls_open_with_new_page_and_navigate_page() {
    let agent = Agent::launch(&[]).await;
    for url in DATA_PAGES {
        agent
            .ok("new_page", json!({"url": url}))
            .await
            .says(&format!(" at {url}."));
        shows_data_page(&agent, url, "T", "hi").await;
    }

    agent
        .ok("navigate_page", json!({"url": page("index.html")}))
        .await;
    let spaced = "data:text/html,<title>My page</title><h1>hi there</h1>";
    for url in [spaced, DATA_PAGES[2]] {
        agent
            .ok("navigate_page", json!({"url": url}))
            .await
            .says(&format!("is now at {url}."));
    }
    shows_data_page(&agent, DATA_PAGES[2], "T", "hi").await;
    agent.ok("navigate_page", json!({"type": "back"})).await;
    shows_data_page(&agent, spaced, "My page", "hi there").await;
    agent.quit().await;
}

#[tokio::test]
async fn where_chrome_keeps_its_data_url_rule_navigate_page_says_to_use_new_page() {
    // Chrome's rule as in the user's own browser: an extension may not take an open
    // tab to a data: URL.
    let agent =
        Agent::launch(&["--chromeArg=--disable-features=AllowContentInitiatedDataUrlNavigations"])
            .await;
    agent.open("index.html").await;
    agent
        .err("navigate_page", json!({"url": DATA_PAGES[0]}))
        .await
        .says("Open it with new_page instead");
    agent.ok("new_page", json!({"url": DATA_PAGES[0]})).await;
    shows_data_page(&agent, DATA_PAGES[0], "T", "hi").await;
    agent.quit().await;
}
