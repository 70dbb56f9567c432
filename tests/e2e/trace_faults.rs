//! Faults while a performance trace records: the native host killed under it, the
//! browser quitting. Each ends with a true message, and a new trace works where the
//! browser is still there.

use std::time::Duration;

use serde_json::json;

use crate::harness::{page, Agent};
use crate::lifecycle::native_host;

/// Starts a trace of a background page that neither reloads nor stops by itself.
async fn recording(agent: &Agent) {
    agent
        .ok(
            "new_page",
            json!({"url": page("perf/long-task.html"), "background": true}),
        )
        .await;
    agent
        .ok(
            "performance_start_trace",
            json!({"reload": false, "autoStop": false}),
        )
        .await
        .says("performance_stop_trace");
}

#[tokio::test]
async fn a_trace_outlives_its_native_host_and_is_stopped_after_it_comes_back() {
    let agent = Agent::launch(&[]).await;
    recording(&agent).await;
    let host = native_host(&agent);
    // SAFETY: kill(2) on a pid just read; at worst it names a process that is gone.
    unsafe { libc::kill(host.pid as i32, libc::SIGKILL) };
    // The first call after it may be the one that finds the relay gone: retried once.
    let mut stopped = agent.call("performance_stop_trace", json!({})).await;
    if stopped.is_error {
        eprintln!("the first stop after the kill was told:\n{}", stopped.text);
        stopped
            .says("native host")
            .lacks("No performance trace is recording");
        stopped = agent.call("performance_stop_trace", json!({})).await;
    }
    assert!(
        !stopped.is_error,
        "the trace the extension kept recording should stop:\n{}\n{}",
        stopped.text,
        agent.log()
    );
    stopped.says("The performance trace has been stopped.");
    assert_ne!(native_host(&agent).pid, host.pid, "a new native host");
    agent
        .ok(
            "performance_start_trace",
            json!({"reload": true, "autoStop": true}),
        )
        .await
        .says("The performance trace has been stopped.");
    agent.quit().await;
}

#[tokio::test]
async fn a_browser_that_quits_mid_trace_is_named_by_the_stop() {
    let (agent, cdp) = Agent::launch_with_cdp(&[]).await;
    recording(&agent).await;
    cdp.close_browser().await;
    let reply = tokio::time::timeout(
        Duration::from_secs(30),
        agent.call("performance_stop_trace", json!({})),
    )
    .await
    .unwrap_or_else(|_| panic!("the stop did not answer within 30 s\n{}", agent.log()));
    assert!(reply.is_error, "no browser, no trace:\n{}", reply.text);
    reply
        .says("The browser tabwire launched (--launch) has quit")
        .lacks("The performance trace has been stopped.");
    agent.quit().await;
}
