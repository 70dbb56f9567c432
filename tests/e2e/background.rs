//! The agent's page is usually not the tab in front: the user keeps working. A hidden
//! tab draws no frames and throttles its timers; input, waiting and screenshots must
//! work on it as on a visible one, and it must stay hidden (never activated).

use serde_json::json;

use crate::harness::{page, Agent};

#[tokio::test]
async fn a_tab_in_the_background_takes_input_and_screenshots_and_stays_hidden() {
    let agent = Agent::launch(&[]).await;
    let opened = agent
        .ok(
            "new_page",
            json!({"url": page("background.html"), "background": true}),
        )
        .await;
    let id = opened.selected_page();
    let visibility = || async {
        agent
            .ok(
                "evaluate_script",
                json!({"function": "() => document.visibilityState"}),
            )
            .await
            .json["result"]
            .clone()
    };
    assert_eq!(
        visibility().await,
        "hidden",
        "the page opened behind the user's tab"
    );

    let snap = agent.ok("take_snapshot", json!({})).await;
    let button = snap.uid_of("button \"Clicked 0\"");
    for n in 1..=3 {
        agent
            .ok("click", json!({"uid": button}))
            .await
            .says("Clicked the element");
        let text = agent
            .ok(
                "evaluate_script",
                json!({"function": "() => document.getElementById('count').textContent"}),
            )
            .await;
        assert_eq!(text.json["result"], format!("Clicked {n}"));
    }
    agent
        .ok("hover", json!({"uid": snap.uid_of("\"Hover target\"")}))
        .await;
    agent
        .ok("wait_for", json!({"text": "hovered", "timeout": 20000}))
        .await;

    // After input (which asks for a frame) and with an animation always waiting for
    // one: each capture gets a frame of its own.
    for shot in [
        json!({}),
        json!({"fullPage": true}),
        json!({"uid": button}),
        json!({"format": "jpeg"}),
    ] {
        let taken = agent.ok("take_screenshot", shot.clone()).await;
        assert_eq!(taken.images.len(), 1, "{shot}: {}", taken.text);
    }

    assert_eq!(
        visibility().await,
        "hidden",
        "nothing brought the page to the front"
    );
    let listed = agent.ok("list_pages", json!({})).await;
    let line = listed
        .text
        .lines()
        .find(|l| l.starts_with(&format!("{id}: ")))
        .unwrap_or_else(|| panic!("page {id} listed:\n{}", listed.text));
    assert!(!line.contains("user's active tab"), "{line}");
    agent.quit().await;
}

#[tokio::test]
async fn in_the_users_own_browser_a_new_page_opens_behind_their_tab() {
    let agent = Agent::launch(&["--shareAllTabs=false"]).await;
    let opened = agent
        .ok("new_page", json!({"url": page("background.html")}))
        .await;
    let id = opened.selected_page();
    let line = opened
        .text
        .lines()
        .find(|l| l.starts_with(&format!("{id}: ")))
        .unwrap_or_else(|| panic!("page {id} listed:\n{}", opened.text));
    assert!(!line.contains("user's active tab"), "{line}");
    let state = agent
        .ok(
            "evaluate_script",
            json!({"function": "() => document.visibilityState"}),
        )
        .await;
    assert_eq!(state.json["result"], "hidden");
    // Asked for, it comes to the front.
    let front = agent
        .ok(
            "new_page",
            json!({"url": page("index.html"), "background": false}),
        )
        .await;
    let id = front.selected_page();
    assert!(front
        .text
        .lines()
        .any(|l| l.starts_with(&format!("{id}: ")) && l.contains("user's active tab")));
    agent.quit().await;
}
