//! `get_memory_usage` end to end: the heap and DOM figures of a tab the user is not
//! looking at, read through the extension, and what changed between two readings.

use serde_json::json;

use crate::harness::{page, Agent};

/// Adds 5,000 buttons, each with a click listener, and keeps a large array alive.
const GROW: &str = "() => {
  const box = document.createElement('div');
  for (let i = 0; i < 5000; i++) {
    const button = document.createElement('button');
    button.addEventListener('click', () => {});
    box.append(button);
  }
  document.body.append(box);
  window.kept = new Array(1000000).fill(1);
  return document.querySelectorAll('button').length;
}";

#[tokio::test]
async fn a_background_pages_memory_is_read_and_its_growth_is_shown() {
    let agent = Agent::launch(&[]).await;
    agent
        .ok(
            "new_page",
            json!({"url": page("index.html"), "background": true}),
        )
        .await;
    let first = agent.ok("get_memory_usage", json!({})).await;
    first
        .says("JavaScript heap: ")
        .says(" nodes (attached or not)")
        .says("renderer process")
        .lacks("Since the previous reading");
    let before = first.json["memoryUsage"].clone();
    assert!(
        before["jsHeapUsedBytes"].as_f64().is_some_and(|b| b > 0.0),
        "a page uses some heap: {before}"
    );
    assert!(
        before["nodes"].as_f64().is_some_and(|n| n > 0.0),
        "a page has nodes: {before}"
    );
    assert!(before.get("sincePrevious").is_none(), "{before}");

    agent
        .ok("evaluate_script", json!({"function": GROW}))
        .await
        .says("5000");
    let second = agent.ok("get_memory_usage", json!({})).await;
    second.says("Since the previous reading of this page");
    let since = &second.json["memoryUsage"]["sincePrevious"];
    assert!(
        since["nodes"].as_f64().is_some_and(|n| n >= 5000.0),
        "5,000 more nodes: {since}"
    );
    assert!(
        since["jsEventListeners"]
            .as_f64()
            .is_some_and(|n| n >= 5000.0),
        "5,000 more listeners: {since}"
    );
    assert!(
        since["jsHeapUsedBytes"]
            .as_f64()
            .is_some_and(|b| b > 3_000_000.0),
        "an array of a million numbers takes megabytes: {since}"
    );
    agent.quit().await;
}
