//! evaluate_script: results, errors, time limits.

use serde_json::json;

use crate::harness::Agent;

#[tokio::test]
async fn scripts_return_json_and_take_arguments() {
    let agent = Agent::launch(&[]).await;
    agent.open("index.html").await;
    let state = agent
        .ok(
            "evaluate_script",
            json!({"function": "() => window.fixtureState"}),
        )
        .await;
    assert_eq!(
        state.json["result"],
        json!({"counter": 41, "items": ["a", "b"]})
    );
    let sum = agent
        .ok(
            "evaluate_script",
            json!({"function": "async (a, b) => a + b", "args": [40, 2]}),
        )
        .await;
    assert_eq!(sum.json["result"], 42);
    sum.says("```json\n42\n```");
    assert_eq!(agent.evaluate("() => undefined").await, json!(null));
    assert_eq!(agent.evaluate("() => null").await, json!(null));
    assert_eq!(
        agent
            .evaluate("() => document.querySelector('#nothing-here')")
            .await,
        json!(null)
    );
    // An element as Chrome DevTools for Agents passes one: its bare uid.
    let snap = agent.ok("take_snapshot", json!({})).await;
    let heading = snap.uid_of("heading \"tabwire fixture\"");
    for arg in [json!(heading), json!({ "uid": heading })] {
        let tag = agent
            .ok(
                "evaluate_script",
                json!({"function": "(el) => el.tagName", "args": [arg]}),
            )
            .await;
        assert_eq!(tag.json["result"], "H1", "{arg}");
    }
    agent.quit().await;
}

#[tokio::test]
async fn bad_scripts_and_bad_arguments_are_explained() {
    let agent = Agent::launch(&[]).await;
    agent.open("index.html").await;
    let thrown = agent
        .err(
            "evaluate_script",
            json!({"function": "() => { throw new Error('kaboom') }"}),
        )
        .await;
    thrown.says("kaboom");
    agent
        .err(
            "evaluate_script",
            json!({"function": "() => { throw {code: 'E_CART', detail: {items: 3}} }"}),
        )
        .await
        .says(r#"{"code":"E_CART","detail":{"items":3}}"#);
    // The page context comes with the error.
    assert!(
        thrown.text.starts_with("# evaluate_script response"),
        "{}",
        thrown.text
    );
    agent
        .err("evaluate_script", json!({"function": "() => {"}))
        .await
        .says("SyntaxError");
    agent
        .err(
            "evaluate_script",
            json!({"function": "() => 1", "script": "x"}),
        )
        .await
        .says("Unknown argument `script`")
        .says("function (required)");
    // Gemini CLI adds `wait_for_previous` to every call: the client's, not a mistake.
    let waited = agent
        .ok(
            "evaluate_script",
            json!({"function": "() => 6 * 7", "wait_for_previous": true}),
        )
        .await;
    assert_eq!(waited.json["result"], 42, "{}", waited.text);
    agent
        .err(
            "evaluate_script",
            json!({"function": "() => 1", "wait_for_previous": "yes"}),
        )
        .await
        .says("`wait_for_previous` must be true or false");
    agent
        .err("evaluate_script", json!({}))
        .await
        .says("function");
    agent.quit().await;
}

#[tokio::test]
async fn a_script_that_never_finishes_times_out_and_the_server_stays_responsive() {
    let agent = Agent::launch(&[]).await;
    agent.open("index.html").await;
    agent
        .err(
            "evaluate_script",
            json!({"function": "() => new Promise(() => {})", "timeout": 500}),
        )
        .await
        .says("500 ms");
    assert_eq!(agent.evaluate("() => 2 * 21").await, 42);
    agent.quit().await;
}

#[tokio::test]
async fn a_tab_that_closes_during_a_script_is_reported_not_waited_for() {
    let agent = Agent::launch(&[]).await;
    agent.open("index.html").await;
    // Opened by script, so the page may close itself; the call returns once it has loaded.
    agent.evaluate("() => new Promise(loaded => window.open('/second.html', 'child').addEventListener('load', () => loaded()))").await;
    let child = agent
        .ok("list_pages", json!({}))
        .await
        .page_id_ending("/second.html");
    let started = std::time::Instant::now();
    let reply = agent
        .err(
            "evaluate_script",
            json!({"pageId": child, "timeout": 20000,
                   "function": "() => { setTimeout(() => window.close(), 50); return new Promise(() => {}); }"}),
        )
        .await;
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "waited for the timeout: {}",
        reply.text
    );
    assert!(
        reply.text.contains("closed") || reply.text.contains("detached"),
        "{}",
        reply.text
    );
    agent.quit().await;
}

#[tokio::test]
async fn results_too_deep_or_too_big_to_carry_say_so() {
    let agent = Agent::launch(&[]).await;
    agent.open("index.html").await;
    // Deeper than any JSON parser on the way allows.
    agent
        .err(
            "evaluate_script",
            json!({"function": "() => { let v = 1; for (let i = 0; i < 250; i++) v = [v]; return v; }"}),
        )
        .await
        .says("nested more than 64 levels deep")
        .lacks("reload");
    // More than Chrome lets an extension send its native host: an answer, not a loss.
    agent
        .err(
            "evaluate_script",
            json!({"function": "() => 'x'.repeat(70 * 1024 * 1024)"}),
        )
        .await
        .says("more than a browser extension may send to tabwire (64 MiB a message)");
    // And the page still works.
    agent
        .ok("evaluate_script", json!({"function": "() => 6 * 7"}))
        .await
        .says("42");
    agent.quit().await;
}

#[tokio::test]
async fn lone_surrogates_anywhere_in_a_result_become_replacement_characters() {
    let agent = Agent::launch(&[]).await;
    agent.open("index.html").await;
    // A page's slice() cutting an emoji in half, bare, in an object, deep in an array,
    // and as a key.
    let cut = "const cut = '😀'.slice(0, 1); const low = '😀'.slice(1);";
    for (script, expected) in [
        (format!("() => {{ {cut} return cut; }}"), json!("\u{fffd}")),
        (
            format!("() => {{ {cut} return {{title: 'a' + cut, n: 1}}; }}"),
            json!({"title": "a\u{fffd}", "n": 1}),
        ),
        (
            format!("() => {{ {cut} return [[[{{deep: [low + 'x' + cut]}}]]]; }}"),
            json!([[[{"deep": ["\u{fffd}x\u{fffd}"]}]]]),
        ),
        (
            format!("() => {{ {cut} return {{[cut]: true}}; }}"),
            json!({"\u{fffd}": true}),
        ),
    ] {
        let result = agent
            .ok("evaluate_script", json!({"function": script}))
            .await;
        assert_eq!(result.json["result"], expected, "for {script}");
    }
    agent.quit().await;
}
