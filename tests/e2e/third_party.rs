//! Third-party developer tools, end to end: discovery, execution, the reference's rules
//! and ours, hostile pages, the origin policy and the category switch.

use serde_json::{json, Value};

use crate::harness::{is_snapshot_line, page_on, Agent, Reply, TEST_HOST_RULE, THIRD_PARTY};

/// The groups of a response's `structuredContent`.
fn groups(reply: &Reply) -> Vec<Value> {
    reply.json["thirdPartyDeveloperTools"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn group_names(reply: &Reply) -> Vec<String> {
    groups(reply)
        .iter()
        .filter_map(|g| g["name"].as_str().map(str::to_string))
        .collect()
}

#[tokio::test]
async fn the_page_author_guides_add_example_works_unchanged() {
    let agent = Agent::launch(&[THIRD_PARTY]).await;
    // Discovery runs by itself after navigation tools.
    let opened = agent.open("3p/add.html").await;
    opened
        .says("## Third-party developer tools")
        .says("### Page-specific DevTools")
        .says("- add: Calculates the sum of two numbers.");
    let listed = agent.ok("list_3p_developer_tools", json!({})).await;
    let tools = &groups(&listed)[0];
    assert_eq!(tools["name"], "Page-specific DevTools");
    assert_eq!(
        tools["description"],
        "Provide runtime info directly from the page's JavaScript"
    );
    assert_eq!(tools["tools"][0]["name"], "add");
    assert_eq!(
        tools["tools"][0]["inputSchema"]["required"],
        json!(["a", "b"])
    );

    let sum = agent
        .ok(
            "execute_3p_developer_tool",
            json!({"toolName": "add", "params": "{\"a\": 2, \"b\": 3}"}),
        )
        .await;
    assert_eq!(sum.json["result"], 5);

    agent
        .err(
            "execute_3p_developer_tool",
            json!({"toolName": "add", "params": "{\"a\": \"two\"}"}),
        )
        .await
        .says("Invalid parameters for tool add: ")
        .says("at /a: ")
        .says("\"b\" is a required property");
    agent
        .err(
            "execute_3p_developer_tool",
            json!({"toolName": "add", "params": "{a: 2}"}),
        )
        .await
        .says("Failed to parse params as JSON: ");
    agent
        .err(
            "execute_3p_developer_tool",
            json!({"toolName": "subtract", "params": "{}"}),
        )
        .await
        .says("Tool subtract not found");

    assert_eq!(
        agent
            .evaluate("async () => (await window.__dtmcp.executeTool('add', {a: 40, b: 2})) + 0")
            .await,
        42
    );
    agent
        .err(
            "evaluate_script",
            json!({"function": "() => window.__dtmcp.executeTool('nope', {})"}),
        )
        .await
        .says("Tool nope not found");
    agent.quit().await;
}

#[tokio::test]
async fn several_listeners_and_groups_with_a_duplicate_name() {
    let agent = Agent::launch(&[THIRD_PARTY]).await;
    agent.open("3p/groups.html").await;
    let listed = agent.ok("list_3p_developer_tools", json!({})).await;
    assert_eq!(group_names(&listed), ["Store", "Router", "Telemetry"]);
    listed.lacks("undefined").says("status");
    assert!(
        groups(&listed)[2].get("description").is_none(),
        "{}",
        listed.json
    );
    let problems = listed.json["thirdPartyToolProblems"].to_string();
    assert!(
        problems.contains("status"),
        "duplicate reported: {problems}"
    );

    let first = agent
        .ok("execute_3p_developer_tool", json!({"toolName": "status"}))
        .await;
    assert_eq!(first.json["result"], "store ok");
    let chosen = agent
        .ok(
            "execute_3p_developer_tool",
            json!({"toolName": "status", "group": "Telemetry"}),
        )
        .await;
    assert_eq!(chosen.json["result"], "telemetry ok");
    let state = agent
        .ok(
            "execute_3p_developer_tool",
            json!({"toolName": "getState", "params": "{}"}),
        )
        .await;
    assert_eq!(state.json["result"], json!({"user": "ada", "items": 3}));
    agent.quit().await;
}

#[tokio::test]
async fn silent_empty_late_promised_and_invalid_answers() {
    let agent = Agent::launch(&[THIRD_PARTY]).await;
    agent.open("3p/quirks.html").await;
    let listed = agent.ok("list_3p_developer_tools", json!({})).await;
    let names = group_names(&listed);
    for expected in ["Late", "Promised", "Mixed"] {
        assert!(
            names.contains(&expected.to_string()),
            "{expected} missing: {}",
            listed.text
        );
    }
    let mixed = groups(&listed)
        .into_iter()
        .find(|g| g["name"] == "Mixed")
        .unwrap();
    let tools: Vec<&str> = mixed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(tools, ["valid"], "invalid tools are dropped alone");
    let problems = listed.json["thirdPartyToolProblems"].to_string();
    for dropped in ["noSchema", "noExecute"] {
        assert!(
            problems.contains(dropped),
            "{dropped} not reported: {problems}"
        );
    }
    let late = agent
        .ok("execute_3p_developer_tool", json!({"toolName": "late"}))
        .await;
    assert_eq!(late.json["result"], "late");
    let promised = agent
        .ok("execute_3p_developer_tool", json!({"toolName": "promised"}))
        .await;
    assert_eq!(promised.json["result"], "promised");
    agent.quit().await;
}

#[tokio::test]
async fn elements_go_in_and_come_out_as_uids() {
    let agent = Agent::launch(&[THIRD_PARTY]).await;
    agent.open("3p/elements.html").await;
    let listed = agent.ok("list_3p_developer_tools", json!({})).await;
    let describe = groups(&listed)[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "describe")
        .cloned()
        .unwrap();
    assert_eq!(
        describe["inputSchema"]["properties"]["target"]["required"],
        json!(["uid"])
    );
    assert_eq!(
        describe["inputSchema"]["properties"]["more"]["properties"]["list"]["items"]["properties"]
            ["uid"]["type"],
        "string"
    );

    let returned = agent
        .ok("execute_3p_developer_tool", json!({"toolName": "buttons"}))
        .await;
    let save = returned.json["result"]["first"]["uid"]
        .as_str()
        .expect("an element uid")
        .to_string();
    let all = returned.json["result"]["all"].as_array().unwrap();
    assert_eq!(all.len(), 2);
    assert_eq!(
        all[0]["uid"],
        save.as_str(),
        "the same element has the same uid"
    );
    // The response's snapshot contains the returned elements.
    returned
        .says("## Page snapshot")
        .says(&format!("{save} button \"Save\""));

    let cancel = all[1]["uid"].as_str().unwrap();
    let params = json!({"target": {"uid": save}, "more": {"list": [{"uid": cancel}]}}).to_string();
    let described = agent
        .ok(
            "execute_3p_developer_tool",
            json!({"toolName": "describe", "params": params}),
        )
        .await;
    assert_eq!(
        described.json["result"],
        json!({"tag": "BUTTON", "text": "Save", "more": ["cancel"]})
    );

    // Returned elements are uids for every other tool.
    let text = agent
        .ok(
            "evaluate_script",
            json!({"function": "(el) => el.id", "args": [{"uid": cancel}]}),
        )
        .await;
    assert_eq!(text.json["result"], "cancel");

    // An element the accessibility tree does not list still appears in the snapshot.
    let hidden = agent
        .ok(
            "execute_3p_developer_tool",
            json!({"toolName": "hiddenElement"}),
        )
        .await;
    let hidden_uid = hidden.json["result"]["uid"]
        .as_str()
        .expect("a uid")
        .to_string();
    // It sits where it is in the page: after the buttons, under the root.
    hidden.says(&format!(
        "  {cancel} button \"Cancel\"\n  {hidden_uid} div not-in-accessibility-tree\n"
    ));

    agent
        .err(
            "execute_3p_developer_tool",
            json!({"toolName": "describe", "params": "{\"target\": {\"uid\": \"77_77\"}}"}),
        )
        .await
        .says("take_snapshot");
    // After a reload the old elements are gone, and the page keeps working.
    agent.ok("navigate_page", json!({"type": "reload"})).await;
    agent
        .err(
            "execute_3p_developer_tool",
            json!({"toolName": "describe", "params": params}),
        )
        .await
        .says("take_snapshot");
    let fresh = agent
        .ok("take_snapshot", json!({}))
        .await
        .uid_of("button \"Save\"");
    let again = json!({"target": {"uid": fresh}}).to_string();
    let described = agent
        .ok(
            "execute_3p_developer_tool",
            json!({"toolName": "describe", "params": again}),
        )
        .await;
    assert_eq!(described.json["result"]["text"], "Save");
    agent.quit().await;
}

/// The first snapshot line containing `needle`: its index among the response's lines,
/// its depth (indentation) and its uid.
fn snapshot_line(reply: &Reply, needle: &str) -> (usize, usize, String) {
    reply
        .text
        .lines()
        .enumerate()
        .find(|(_, line)| line.contains(needle) && is_snapshot_line(line))
        .map(|(at, line)| {
            let depth = (line.len() - line.trim_start().len()) / 2;
            let uid = line.split_whitespace().next().unwrap_or_default();
            (at, depth, uid.to_string())
        })
        .unwrap_or_else(|| panic!("no snapshot line with {needle:?} in:\n{}", reply.text))
}

#[tokio::test]
async fn returned_elements_appear_at_their_place_in_the_tree() {
    let agent = Agent::launch(&[THIRD_PARTY]).await;
    agent.open("3p/components.html").await;
    let tree = agent
        .ok(
            "execute_3p_developer_tool",
            json!({"toolName": "componentTree"}),
        )
        .await;
    let snapshot = agent.ok("take_snapshot", json!({})).await;
    let mut uids = Vec::new();
    for reply in [&tree, &snapshot] {
        // app-root › (heading, app-counter › (button, text), text), in page order.
        let root = snapshot_line(reply, " app-root");
        let heading = snapshot_line(reply, "heading \"Counter\"");
        let counter = snapshot_line(reply, " app-counter");
        let button = snapshot_line(reply, "button \"Increment\"");
        let count = snapshot_line(reply, " \"0\"");
        let note = snapshot_line(reply, " \"made with components\"");
        let lines = [&root, &heading, &counter, &button, &count, &note];
        assert_eq!(
            lines.map(|line| line.1 - root.1),
            [0, 1, 1, 2, 2, 1],
            "depths below app-root:\n{}",
            reply.text
        );
        assert!(
            lines.windows(2).all(|pair| pair[0].0 < pair[1].0),
            "in page order:\n{}",
            reply.text
        );
        uids.push((root.2, counter.2, button.2));
    }
    assert_eq!(uids[0], uids[1], "the same uids in both snapshots");
    let (root, counter, button) = uids.swap_remove(0);
    tree.says(&format!("\"uid\": \"{root}\""))
        .says(&format!("\"uid\": \"{counter}\""));

    // The returned element's child is an element like any other.
    agent.ok("click", json!({"uid": button})).await;
    agent
        .ok(
            "evaluate_script",
            json!({"function": "() => Number(document.querySelector('#count').textContent)"}),
        )
        .await
        .says("```json\n1\n```");
    agent.quit().await;
}

#[tokio::test]
async fn awkward_results_are_made_json_safe() {
    let agent = Agent::launch(&[THIRD_PARTY]).await;
    agent.open("3p/results.html").await;
    let run = |name: &'static str| {
        let agent = &agent;
        async move {
            agent
                .ok("execute_3p_developer_tool", json!({"toolName": name}))
                .await
                .json["result"]
                .clone()
        }
    };
    assert_eq!(
        run("cycle").await,
        json!({"name": "a", "self": "<Circular reference>"})
    );
    assert_eq!(
        run("instance").await,
        json!({"widget": "<Widget instance>"})
    );
    assert_eq!(run("fn").await, json!({"callback": "<Function object>"}));
    assert_eq!(run("bigint").await, json!({"big": "12345678901234567890n"}));
    assert_eq!(
        run("numbers").await,
        json!({"nan": "NaN", "inf": "Infinity", "negInf": "-Infinity", "list": [1, null]})
    );
    let collections = run("collections").await;
    assert_eq!(collections["map"], json!({"<Map>": [["k", 1]]}));
    assert_eq!(collections["set"], json!({"<Set>": [1, 2]}));
    assert_eq!(collections["date"], "1970-01-01T00:00:00.000Z");
    assert_eq!(
        run("typed").await,
        json!({"<Uint8Array>": [1, 2, 3], "length": 3})
    );
    assert_eq!(
        run("throwingGetter").await,
        json!({"bad": "<Getter threw: no peeking>", "good": 1})
    );
    assert!(run("deep").await.to_string().contains("<Too deep>"));
    assert_eq!(run("nothing").await, Value::Null);
    assert_eq!(run("waits").await, "waited");
    assert_eq!(run("twoKb").await.as_object().map(|o| o.len()), Some(40));

    // A result too long for the agent's context goes to a file.
    let huge = agent
        .ok("execute_3p_developer_tool", json!({"toolName": "huge"}))
        .await;
    huge.says("saved to");
    let path = huge.json["resultFile"]["filePath"]
        .as_str()
        .expect("a file path");
    assert!(std::fs::read_to_string(path)
        .unwrap()
        .contains(&"x".repeat(100000)));

    // Half an emoji at any depth, even as a key, reads as U+FFFD; the rest is kept.
    assert_eq!(
        run("halves").await,
        json!({"\u{fffd}": [{"deep": [["\u{fffd}a", "\u{fffd}"]]}], "whole": "😀"})
    );
    // A 3 MiB string is saved whole, and the reply's length is the file's.
    let three = agent
        .ok("execute_3p_developer_tool", json!({"toolName": "threeMib"}))
        .await;
    let path = three.json["resultFile"]["filePath"]
        .as_str()
        .expect("a file path");
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let expected = format!("{}\u{fffd}end", "x".repeat(3 << 20));
    assert_eq!(saved.as_str().map(str::len), Some(expected.len()));
    assert!(saved == expected, "the saved string is the tool's, whole");
    three.says(&format!("shape: string({})", expected.chars().count()));
    agent.quit().await;
}

#[tokio::test]
async fn results_keep_their_key_order_and_big_ones_stay_inline_up_to_the_limit() {
    let agent = Agent::launch(&[THIRD_PARTY]).await;
    agent.open("3p/results.html").await;
    let in_order = |reply: &crate::harness::Reply| {
        let at = |key: &str| reply.text.find(&format!("\"{key}\": ")).unwrap();
        assert!(
            at("z") < at("a") && at("a") < at("m") && at("y") < at("b"),
            "{}",
            reply.text
        );
        assert!(
            reply
                .json
                .to_string()
                .contains(r#"{"z":1,"a":2,"m":{"y":1,"b":2}}"#),
            "{}",
            reply.json
        );
    };
    let ordered = agent
        .ok("execute_3p_developer_tool", json!({"toolName": "ordered"}))
        .await;
    in_order(&ordered);
    let evaluated = agent
        .ok(
            "evaluate_script",
            json!({"function": "() => ({z: 1, a: 2, m: {y: 1, b: 2}})"}),
        )
        .await;
    in_order(&evaluated);
    // The agent's own arguments keep their order on the way to the page.
    let echoed = agent
        .ok(
            "evaluate_script",
            json!({"function": "(o) => Object.keys(o).join()", "args": [{"z": 1, "a": 2, "m": 3}]}),
        )
        .await;
    assert_eq!(echoed.json["result"], "z,a,m");

    // 43,000 characters: inline, as clients take them.
    let events = agent
        .ok("execute_3p_developer_tool", json!({"toolName": "events"}))
        .await;
    events.lacks("saved to");
    assert!(events.text.len() > 43_000, "{}", events.text.len());
    assert_eq!(
        events.json["result"]["events"].as_array().map(Vec::len),
        Some(5)
    );

    // 2 MB: saved to a private file, with its shape and beginning beside the path.
    let big = agent
        .ok("execute_3p_developer_tool", json!({"toolName": "twoMb"}))
        .await;
    big.says("saved to")
        .says("shape: object with 1 key {rows: array(20000) of object}")
        .says("It begins:\n```text\n{\n  \"rows\": [\n    {\n      \"i\": 0,");
    let path = big.json["resultFile"]["filePath"].as_str().unwrap();
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(saved["rows"].as_array().map(Vec::len), Some(20000));
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    agent.quit().await;
}

#[tokio::test]
async fn throwing_hanging_and_navigating_tools_fail_clearly() {
    let agent = Agent::launch(&[THIRD_PARTY]).await;
    agent.open("3p/results.html").await;
    agent
        .err("execute_3p_developer_tool", json!({"toolName": "throws"}))
        .await
        .says("tool exploded")
        .says("at ");
    // Thrown values that are not errors are shown as the page made them.
    agent
        .err(
            "execute_3p_developer_tool",
            json!({"toolName": "throwsObject"}),
        )
        .await
        .says(r#"threw: {"code":"E_CART","detail":{"items":3}}"#);
    agent
        .err(
            "execute_3p_developer_tool",
            json!({"toolName": "throwsNamed"}),
        )
        .await
        .says(r#"threw: ValidationError: total is negative {"name":"ValidationError","#);
    agent
        .err(
            "execute_3p_developer_tool",
            json!({"toolName": "rejectsObject"}),
        )
        .await
        .says(r#"{"code":"E_LATE"}"#);
    let started = std::time::Instant::now();
    agent
        .err(
            "execute_3p_developer_tool",
            json!({"toolName": "hangs", "timeout": 500}),
        )
        .await
        .says("500 ms");
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    let after = agent
        .ok("execute_3p_developer_tool", json!({"toolName": "waits"}))
        .await;
    assert_eq!(
        after.json["result"], "waited",
        "the server stays responsive"
    );

    let started = std::time::Instant::now();
    agent
        .err("execute_3p_developer_tool", json!({"toolName": "reloads"}))
        .await
        .says("navigated");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "reported, not timed out"
    );
    // The reloaded document's tools are found again without an explicit discovery.
    agent.evaluate("() => new Promise(r => document.readyState === 'complete' ? r() : addEventListener('load', () => r()))").await;
    let again = agent
        .ok("execute_3p_developer_tool", json!({"toolName": "waits"}))
        .await;
    assert_eq!(again.json["result"], "waited");
    agent.quit().await;
}

#[tokio::test]
async fn a_hostile_page_cannot_break_discovery_or_the_server() {
    let agent = Agent::launch(&[THIRD_PARTY]).await;
    agent.open("3p/hostile.html").await;
    let listed = agent.ok("list_3p_developer_tools", json!({})).await;
    listed.says("ping");
    let pong = agent
        .ok("execute_3p_developer_tool", json!({"toolName": "ping"}))
        .await;
    assert_eq!(pong.json["result"], "pong");
    let trap = agent
        .ok("execute_3p_developer_tool", json!({"toolName": "trap"}))
        .await;
    assert_eq!(
        trap.json["result"],
        json!({"boom": "<Getter threw: trap>", "ok": true})
    );
    // A tool that finishes after the extension gave up on it does not hand its nodes
    // to the next run.
    agent
        .err(
            "execute_3p_developer_tool",
            json!({"toolName": "late", "timeout": 300}),
        )
        .await
        .says("300 ms");
    let early = agent
        .ok("execute_3p_developer_tool", json!({"toolName": "early"}))
        .await;
    let uid = early.json["result"]["uid"]
        .as_str()
        .expect("an element uid")
        .to_string();
    early.says(&format!("{uid} button \"Early\""));
    let pong = agent
        .ok("execute_3p_developer_tool", json!({"toolName": "ping"}))
        .await;
    assert_eq!(pong.json["result"], "pong", "not forged");
    // Nothing of tabwire's passed where the page could see it: not through a `then`
    // getter on Object.prototype or Array.prototype, a `constructor` getter on
    // Promise.prototype, or index setters on Array.prototype.
    assert_eq!(agent.evaluate("() => window.leaked").await, "");
    // Other pages are unaffected.
    agent.open("3p/add.html").await;
    let sum = agent
        .ok(
            "execute_3p_developer_tool",
            json!({"toolName": "add", "params": "{\"a\": 1, \"b\": 1}"}),
        )
        .await;
    assert_eq!(sum.json["result"], 2);
    agent.quit().await;
}

#[tokio::test]
async fn pages_without_tools_say_so() {
    let agent = Agent::launch(&[THIRD_PARTY]).await;
    let opened = agent.open("3p/none.html").await;
    opened.says("exposes no third-party developer tools");
    assert_eq!(opened.json["thirdPartyDeveloperTools"], json!([]));
    assert!(opened.json["thirdPartyDeveloperToolsNote"]
        .as_str()
        .is_some_and(|n| n.contains("exposes no third-party developer tools")));
    agent
        .err("execute_3p_developer_tool", json!({"toolName": "add"}))
        .await
        .says("Tool add not found");
    agent.quit().await;
}

#[tokio::test]
async fn only_allowed_origins_may_present_tools() {
    let agent = Agent::launch(&[THIRD_PARTY, TEST_HOST_RULE]).await;
    let url = page_on("tabwire.test", "3p/add.html");
    let opened = agent.ok("new_page", json!({"url": url})).await;
    opened
        .says("may not present third-party developer tools")
        .says("--thirdPartyOrigins=http://tabwire.test:")
        .lacks("- add:");
    agent
        .err(
            "execute_3p_developer_tool",
            json!({"toolName": "add", "params": "{\"a\":1,\"b\":2}"}),
        )
        .await
        .says("--thirdPartyOrigins=");
    agent.quit().await;

    let allowed = Agent::launch(&[
        THIRD_PARTY,
        TEST_HOST_RULE,
        "--thirdPartyOrigins=http://tabwire.test:*",
    ])
    .await;
    allowed
        .ok("new_page", json!({"url": url}))
        .await
        .says("- add:");
    let sum = allowed
        .ok(
            "execute_3p_developer_tool",
            json!({"toolName": "add", "params": "{\"a\":1,\"b\":2}"}),
        )
        .await;
    assert_eq!(sum.json["result"], 3);
    allowed.quit().await;
}

#[tokio::test]
async fn with_the_category_off_there_are_no_third_party_tools() {
    let agent = Agent::launch(&[]).await;
    let names = agent.tool_names().await;
    assert!(!names.iter().any(|n| n.contains("3p")), "{names:?}");
    let opened = agent.open("3p/add.html").await;
    opened.lacks("Third-party developer tools");
    agent.quit().await;
}

#[tokio::test]
async fn a_page_whose_discovery_spins_is_not_asked_again_with_every_reply() {
    let agent = Agent::launch(&[THIRD_PARTY]).await;
    agent
        .open("3p/slow.html")
        .await
        .says("did not answer tool discovery within 5000 ms");
    // Listed twice: the page is not asked again (what it said before is shown, or that
    // it was not asked), and the agent is told how to ask it.
    for _ in 0..2 {
        agent
            .ok("list_pages", json!({}))
            .await
            .says("not asked again with every reply")
            .says("list_3p_developer_tools");
    }
    let asked = || async {
        agent
            .ok(
                "evaluate_script",
                json!({"function": "() => window.discoveries"}),
            )
            .await
            .json["result"]
            .clone()
    };
    assert_eq!(asked().await, 1, "asked once, when the page opened");
    // Asked for, it is asked.
    agent
        .ok("list_3p_developer_tools", json!({}))
        .await
        .says("did not answer tool discovery within 5000 ms");
    assert_eq!(asked().await, 2);
    agent.quit().await;
}

#[tokio::test]
async fn tool_results_too_deep_or_too_big_answer_at_once() {
    let agent = Agent::launch(&[THIRD_PARTY]).await;
    agent.open("3p/heavy.html").await.says("- deep:");
    let run = |name: &'static str| {
        agent.call(
            "execute_3p_developer_tool",
            json!({"toolName": name, "params": "{}"}),
        )
    };
    let deep = run("deep").await;
    assert!(
        deep.is_error || deep.text.contains("Too deep"),
        "a 250-level answer is cut or refused, never lost:\n{}",
        deep.text
    );
    let huge = run("huge").await;
    assert!(
        huge.is_error || huge.text.contains("saved to"),
        "a 70 MiB answer is refused or saved, never lost:\n{}",
        huge.text
    );
    assert!(!huge.text.contains("did not answer"), "{}", huge.text);
    let fine = run("fine").await;
    assert!(!fine.is_error, "{}", fine.text);
    eprintln!(
        "deep: {}\nhuge: {}",
        &deep.text[..deep.text.len().min(400)],
        &huge.text[..huge.text.len().min(400)]
    );
    agent.quit().await;
}

#[tokio::test]
async fn a_page_with_hundreds_of_tools_has_every_one_named_when_the_agent_asks() {
    let (first, _cdp) = Agent::launch_with_cdp(&[THIRD_PARTY]).await;
    first.open("3p/many.html").await;
    for (client, budget) in [("some-client", 60_000), ("codex-mcp-client", 11_000)] {
        let agent = first
            .join_named_with(
                client,
                &[THIRD_PARTY, "--experimentalStructuredContent=false"],
            )
            .await;
        let listed = agent.ok("list_3p_developer_tools", json!({})).await;
        let chars = listed.text.chars().count();
        assert!(chars <= budget + 2_000, "{client}: {chars} characters");
        listed.says("offers 400 tools, too many to show whole here");
        for g in 0..8 {
            for t in 0..50 {
                listed.says(&format!("g{g}_tool{t}"));
            }
        }
        let file = listed
            .text
            .split("was saved to ")
            .nth(1)
            .and_then(|rest| rest.split(". Call them").next())
            .expect("the file");
        let whole = std::fs::read_to_string(file).unwrap();
        assert!(whole.contains("- g7_tool49: Reads part 49 of store 7"));
        assert!(whole.contains("inputSchema: {"));
        let ran = agent
            .ok(
                "execute_3p_developer_tool",
                json!({"toolName": "g7_tool49", "params": {"filter": "x"}}),
            )
            .await;
        ran.says(r#""tool": "g7_tool49""#);
        agent.quit().await;
    }
    first.quit().await;
}
