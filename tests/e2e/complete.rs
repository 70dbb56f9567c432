//! What a client that shows the model only `structuredContent` loses: nothing.
//!
//! [`check`] runs on every tool result of every end-to-end test whose server was started
//! with `--experimentalStructuredContent` (the harness's default): the result must
//! match its tool's `outputSchema`, and every uid, message id, request id, page id,
//! saved file, message line, error and JSON value the text shows must be in the
//! structured form too. A server started without the flag must send no
//! `structuredContent` and no `outputSchema` at all.

use serde_json::Value;

use crate::harness::{is_snapshot_line, Reply};

/// Checks `reply` against its tool's `schema` (from `tools/list`); panics with what is
/// wrong.
pub fn check(reply: &Reply, schema: Option<&Value>) {
    let Some(schema) = schema else {
        assert!(
            reply.json.is_null(),
            "{} has no outputSchema but sent structuredContent: {}",
            reply.tool,
            reply.json
        );
        return;
    };
    assert!(
        reply.json.is_object(),
        "{} declares an outputSchema but sent no structuredContent:\n{}",
        reply.tool,
        reply.text
    );
    let validator = jsonschema::validator_for(schema).expect("outputSchema compiles");
    let problems: Vec<String> = validator
        .iter_errors(&reply.json)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        problems.is_empty(),
        "{}'s structuredContent does not match its outputSchema: {problems:?}\n{}",
        reply.tool,
        reply.json
    );
    let missing = missing(&reply.text, &reply.json);
    assert!(
        missing.is_empty(),
        "{}'s structuredContent lacks what its text shows: {missing:?}\ntext:\n{}\njson:\n{}",
        reply.tool,
        reply.text,
        reply.json
    );
}

/// What the text shows that the JSON does not hold.
pub fn missing(text: &str, json: &Value) -> Vec<String> {
    // A version mismatch heads the text and is held as `versionMismatch`.
    let text = json["versionMismatch"]
        .as_str()
        .and_then(|line| text.strip_prefix(line))
        .map_or(text, |rest| rest.trim_start_matches('\n'));
    let flat = json.to_string();
    let mut missing = Vec::new();
    let mut want = |found: bool, what: String| {
        if !found {
            missing.push(what);
        }
    };
    let mut section = "";
    let mut message = Vec::new();
    // An open fence: its backticks, and the JSON it holds (`None` for the page's text,
    // which the structured form holds as it is, not line by line).
    let mut fence: Option<(&str, Option<String>)> = None;
    let mut problems = false;
    for line in text.lines().skip(1) {
        if let Some((ticks, body)) = fence.as_mut() {
            if line.len() >= ticks.len() && line.chars().all(|c| c == '`') {
                if let Some(body) = body {
                    match serde_json::from_str::<Value>(body) {
                        Ok(value) => want(holds_value(json, &value), format!("the value {body}")),
                        Err(e) => want(false, format!("parsable JSON in the text ({e})")),
                    }
                }
                fence = None;
            } else if let Some(body) = body {
                body.push_str(line);
                body.push('\n');
            }
            continue;
        }
        let ticks = &line[..line.len() - line.trim_start_matches('`').len()];
        if ticks.len() >= 3 {
            let info = &line[ticks.len()..];
            fence = Some((ticks, (info == "json").then(String::new)));
            continue;
        }
        if let Some(title) = line.strip_prefix("## ") {
            section = title;
            continue;
        }
        if section.is_empty() {
            message.push(line);
        }
        if section == "Error" {
            want(
                json["errorMessage"]
                    .as_str()
                    .is_some_and(|e| e.contains(line)),
                format!("error line {line:?}"),
            );
        }
        if section == "Page snapshot" && is_snapshot_line(line) {
            let mut words = line.split_whitespace();
            let uid = words.next().unwrap_or_default();
            let second = words.next().unwrap_or_default();
            // A text line goes without its role: `1_6 "Order 1000"`.
            let text_line = second.starts_with('"');
            let role = if text_line { "StaticText" } else { second };
            let name_marker = if text_line {
                format!("{uid} \"")
            } else {
                format!(" {role} \"")
            };
            // In the tree, or (a spilled snapshot's preview) as the line itself.
            let as_node = format!("\"id\":\"{uid}\",\"role\":\"{role}\"");
            let as_text = serde_json::to_string(line).unwrap_or_default();
            let as_text = &as_text[1..as_text.len().saturating_sub(1).max(1)];
            want(
                flat.contains(&as_node) || flat.contains(as_text),
                format!("node {uid} {role}"),
            );
            // The quoted name, escaped alike in the line and in JSON (control characters
            // aside, which the line writes as `\u{…}`).
            if let Some(name) = quoted_after(line, &name_marker).filter(|n| !n.contains("\\u{")) {
                want(
                    flat.contains(&format!("\"name\":\"{name}\"")) || flat.contains(as_text),
                    format!("the name of {uid}: {name}"),
                );
            }
        }
        if section == "Third-party developer tools" || section == "WebMCP tools" {
            if line == "Problems with what the page offered:"
                || line == "Problems with what the page registered:"
            {
                problems = true;
            }
            let item = line.strip_prefix("- ");
            if let (Some(problem), true) = (item, problems) {
                let escaped = serde_json::to_string(problem).unwrap_or_default();
                want(flat.contains(&escaped), format!("the problem {problem:?}"));
            } else if let Some((name, _)) = item.and_then(|l| l.split_once(": ")) {
                want(
                    flat.contains(&format!("\"name\":\"{name}\"")),
                    format!("the tool {name}"),
                );
            }
        }
        if section == "Pages" {
            if let Some((id, _)) = line.split_once(": ") {
                if id.parse::<i64>().is_ok() {
                    want(
                        flat.contains(&format!("\"id\":{id},")),
                        format!("page {id}"),
                    );
                }
            }
        }
        for (label, key) in [("msgid=", "id"), ("reqid=", "reqid")] {
            for (at, _) in line.match_indices(label) {
                let digits: String = line[at + label.len()..]
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                if !digits.is_empty() {
                    want(
                        flat.contains(&format!("\"{key}\":{digits}")),
                        format!("{label}{digits}"),
                    );
                }
            }
        }
        if let Some(at) = line.find("saved to ") {
            let path = line[at + "saved to ".len()..]
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .trim_end_matches('.');
            want(flat.contains(path), format!("the path {path}"));
        }
    }
    let message = message.join("\n");
    if !message.is_empty() {
        want(
            json["message"].as_str() == Some(message.as_str()),
            format!("the message {message:?}"),
        );
    }
    missing
}

/// The `"…"` right after `marker` (which ends in its opening quote) in a snapshot
/// line, without its quotes.
fn quoted_after<'a>(line: &'a str, marker: &str) -> Option<&'a str> {
    let rest = line.trim_start().split_once(marker)?.1;
    let mut escaped = false;
    for (i, c) in rest.char_indices() {
        match c {
            '\\' if !escaped => escaped = true,
            '"' if !escaped => return Some(&rest[..i]),
            _ => escaped = false,
        }
    }
    None
}

/// Whether `value` is one of the JSON's top-level values (a result).
fn holds_value(json: &Value, value: &Value) -> bool {
    json.as_object()
        .is_some_and(|map| map.values().any(|v| v == value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_summary_in_place_of_the_tree_is_caught() {
        let text = "# take_snapshot response\n## Page snapshot\nlegend\n1_0 RootWebArea \"T\"\n  1_1 button \"Go\"\n";
        let summary = json!({"snapshot": {"nodes": 2}});
        assert_eq!(missing(text, &summary).len(), 4);
        let nameless = json!({"snapshot": {"id": "1_0", "role": "RootWebArea",
            "children": [{"id": "1_1", "role": "button"}]}});
        assert_eq!(missing(text, &nameless).len(), 2);
        let tree = json!({"snapshot": {"id": "1_0", "role": "RootWebArea", "name": "T",
            "children": [{"id": "1_1", "role": "button", "name": "Go"}]}});
        assert!(missing(text, &tree).is_empty());
    }

    #[test]
    fn the_pages_text_in_a_fence_is_not_read_as_the_replys() {
        let text = "# x response\n## Console message\nmsgid=7 [log]\n````text\n## Page snapshot\n1_1 button \"Pay\"\n```\n````\n## Script result\n````json\n\"```\"\n````\n";
        let full = json!({"consoleMessage": {"id": 7}, "result": "```"});
        assert!(
            missing(text, &full).is_empty(),
            "{:?}",
            missing(text, &full)
        );
        assert_eq!(
            missing(text, &json!({"consoleMessage": {"id": 7}})).len(),
            1
        );
    }

    #[test]
    fn messages_values_and_ids_are_checked() {
        let text = "# x response\nDone.\n## Script result\n```json\n{\n  \"a\": 1\n}\n```\n## Console messages\nmsgid=7 [log] hi\n";
        assert_eq!(missing(text, &json!({})).len(), 3);
        let full = json!({"message": "Done.", "result": {"a": 1}, "consoleMessages": [{"id": 7}]});
        assert!(
            missing(text, &full).is_empty(),
            "{:?}",
            missing(text, &full)
        );
    }
}

mod end_to_end {
    use std::collections::BTreeSet;

    use serde_json::{json, Value};

    use crate::harness::{page, Agent, Reply, THIRD_PARTY, WEBMCP, WEBMCP_BROWSER};

    /// An agent that remembers which tools it called.
    struct Tally<'a> {
        agent: &'a Agent,
        called: BTreeSet<String>,
    }

    impl Tally<'_> {
        async fn ok(&mut self, name: &str, args: Value) -> Reply {
            self.called.insert(name.to_owned());
            self.agent.ok(name, args).await
        }
    }

    #[tokio::test]
    async fn every_tool_result_is_complete_and_matches_its_schema() {
        let agent = Agent::launch(&[THIRD_PARTY, WEBMCP, WEBMCP_BROWSER]).await;
        let mut t = Tally {
            agent: &agent,
            called: BTreeSet::new(),
        };
        // The harness checks each result below against its tool's outputSchema and for
        // every uid, id, value and message its text shows.
        let first = t.ok("list_pages", json!({})).await.selected_page();
        // The browser is the agent's own: the tab in front is its at once.
        let front = t.ok("request_page", json!({"reason": "to look"})).await;
        assert_eq!(front.selected_page(), first);
        t.ok("new_page", json!({"url": page("devtools/widgets.html")}))
            .await;
        let widgets = t.ok("take_snapshot", json!({})).await;
        t.ok("get_css_styles", json!({"uid": widgets.uid_of("\"Card\"")}))
            .await;
        // Twice: the second reading also says what changed since the first.
        t.ok("get_memory_usage", json!({})).await;
        t.ok("get_memory_usage", json!({})).await;
        t.ok(
            "click",
            json!({"uid": widgets.uid_of("textbox \"Key catcher\""), "includeSnapshot": true}),
        )
        .await;
        t.ok("type_text", json!({"text": "hi"})).await;
        t.ok(
            "press_key",
            json!({"key": "Enter", "includeSnapshot": true}),
        )
        .await;
        t.ok("hover", json!({"uid": widgets.uid_of("\"Hover target\"")}))
            .await;
        t.ok("drag", json!({"from_uid": widgets.uid_of("\"Card\""), "to_uid": widgets.uid_of("\"Drop zone\"")}))
            .await;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("notes.txt");
        std::fs::write(&file, "12345").unwrap();
        t.ok(
            "upload_file",
            json!({"uid": widgets.uid_of("\"Attachment\""), "filePaths": [file]}),
        )
        .await;
        t.ok("click_at", json!({"x": 5, "y": 5})).await;
        t.ok("click", json!({"uid": widgets.uid_of("button \"Later\"")}))
            .await;
        t.ok("wait_for", json!({"text": ["Ready now"]})).await;
        let shot = t.ok("take_screenshot", json!({})).await;
        assert_eq!(shot.images.len(), 1, "the image is attached too");
        let saved = shot.json["image"]["filePath"].as_str().unwrap();
        assert!(std::fs::read(saved).unwrap().starts_with(b"\x89PNG"));
        t.ok("resize_page", json!({"width": 500, "height": 400}))
            .await;
        t.ok(
            "emulate",
            json!({"colorScheme": "dark", "viewport": "400x300x1"}),
        )
        .await;

        t.ok("navigate_page", json!({"url": page("devtools/form.html")}))
            .await;
        let form = t.ok("take_snapshot", json!({"verbose": true})).await;
        t.ok(
            "fill",
            json!({"uid": form.uid_of("textbox \"Name\""), "value": "Ada"}),
        )
        .await;
        t.ok(
            "fill_form",
            json!({"elements": [{"uid": form.uid_of("textbox \"Notes\""), "value": "x"}]}),
        )
        .await;
        t.ok(
            "evaluate_script",
            json!({"function": "() => ({z: 1, a: [1, 2]})"}),
        )
        .await;

        t.ok(
            "navigate_page",
            json!({"url": page("devtools/dialogs.html")}),
        )
        .await;
        let dialogs = t.ok("take_snapshot", json!({})).await;
        let opened = agent
            .ok("click", json!({"uid": dialogs.uid_of("button \"Prompt\"")}))
            .await;
        opened.says("## Open dialog");
        assert_eq!(opened.json["dialog"]["defaultValue"], "anon");
        t.ok(
            "handle_dialog",
            json!({"action": "accept", "promptText": "Grace"}),
        )
        .await;

        t.ok(
            "navigate_page",
            json!({"url": page("devtools/console.html")}),
        )
        .await;
        let list = t.ok("list_console_messages", json!({"pageSize": 5})).await;
        let id = list.json["consoleMessages"][0]["id"].as_u64().unwrap();
        t.ok("get_console_message", json!({"msgid": id})).await;

        t.ok(
            "navigate_page",
            json!({"url": page("devtools/network.html")}),
        )
        .await;
        let send = t
            .ok("take_snapshot", json!({}))
            .await
            .uid_of("button \"Send\"");
        agent.ok("click", json!({"uid": send})).await;
        t.ok("wait_for", json!({"text": "got 2"})).await;
        let requests = t.ok("list_network_requests", json!({})).await;
        let reqid = requests.json["networkRequests"]
            .as_array()
            .and_then(|r| {
                r.iter()
                    .find(|r| r["url"].as_str().is_some_and(|u| u.ends_with("data.json")))
            })
            .and_then(|r| r["reqid"].as_u64())
            .unwrap();
        t.ok("get_network_request", json!({"reqid": reqid})).await;

        t.ok("navigate_page", json!({"url": page("3p/elements.html")}))
            .await;
        let tools = t.ok("list_3p_developer_tools", json!({})).await;
        assert!(tools.json["thirdPartyDeveloperTools"][0]["tools"].is_array());
        let returned = t
            .ok("execute_3p_developer_tool", json!({"toolName": "buttons"}))
            .await;
        assert!(
            returned.json["snapshot"]["id"].is_string(),
            "{}",
            returned.json
        );
        t.ok("navigate_page", json!({"url": page("webmcp/tools.html")}))
            .await;
        let webmcp = t.ok("list_webmcp_tools", json!({})).await;
        assert!(webmcp.json["webmcpTools"].is_array(), "{}", webmcp.text);
        t.ok(
            "execute_webmcp_tool",
            json!({"toolName": "add", "input": "{\"a\": 1, \"b\": 2}"}),
        )
        .await;
        let opened = t.ok("new_page", json!({"url": page("index.html")})).await;
        let second = opened.selected_page();
        t.ok("select_page", json!({"pageId": first})).await;
        t.ok("close_page", json!({"pageId": second})).await;
        t.ok("navigate_page", json!({"type": "reload"})).await;

        t.ok(
            "performance_start_trace",
            json!({"reload": true, "autoStop": false}),
        )
        .await;
        let trace = t.ok("performance_stop_trace", json!({})).await;
        let set = trace.json["performanceTrace"]["insightSets"][0]["id"]
            .as_str()
            .unwrap_or_else(|| panic!("an insight set of the reload: {}", trace.json))
            .to_owned();
        t.ok(
            "performance_analyze_insight",
            json!({"insightSetId": set, "insightName": "DocumentLatency"}),
        )
        .await;

        let offered: BTreeSet<String> = agent.tool_names().await.into_iter().collect();
        let untested: Vec<_> = offered.difference(&t.called).collect();
        assert!(
            untested.is_empty(),
            "tools this test does not cover: {untested:?}"
        );
        agent.quit().await;
    }

    #[tokio::test]
    async fn the_references_restrictions_are_applied_or_refused() {
        let mut args = vec!["mcp", "--launch", "--headless"];
        args.extend_from_slice(crate::harness::BROWSER_FLAGS);
        // Text only: the harness checks structured results against tools/list, which
        // no longer lists evaluate_script.
        args.extend_from_slice(&[
            "--experimentalStructuredContent=false",
            "--no-javascript-evaluation",
            "--file-navigations=false",
        ]);
        let agent = Agent::start(&args, &[]).await;
        let tools = agent.tool_names().await;
        assert!(!tools.iter().any(|t| t == "evaluate_script"), "{tools:?}");
        agent
            .err("evaluate_script", json!({"function": "() => 1"}))
            .await
            .says("--javascriptEvaluation=false");
        agent.open("index.html").await;
        for (tool, url, flag) in [
            (
                "navigate_page",
                "file:///etc/hostname",
                "--fileNavigations=false",
            ),
            (
                "new_page",
                "view-source:file:///etc/hostname",
                "--fileNavigations=false",
            ),
            (
                "new_page",
                "data:text/html,<p>x</p>",
                "--javascriptEvaluation=false",
            ),
            (
                "navigate_page",
                "javascript:alert(1)",
                "--javascriptEvaluation=false",
            ),
        ] {
            agent.err(tool, json!({ "url": url })).await.says(flag);
        }
        let pages = agent.ok("list_pages", json!({})).await;
        pages.lacks("file:");
        pages.lacks("data:");
        agent.quit().await;

        // A restriction tabwire cannot apply stops it before anything starts.
        let refused = std::process::Command::new(crate::harness::tabwire_exe())
            .args(["mcp", "--blockedUrlPattern=*://bank.test/*"])
            .output()
            .expect("tabwire runs");
        assert_eq!(refused.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert!(
            stderr.contains("--blockedUrlPattern is refused") && stderr.contains("blocklist"),
            "{stderr}"
        );
    }

    #[tokio::test]
    async fn without_the_flag_results_are_text_and_reference_flags_are_accepted() {
        let mut args = vec!["mcp", "--launch", "--headless"];
        args.extend_from_slice(crate::harness::BROWSER_FLAGS);
        args.extend_from_slice(&[
            "--experimentalStructuredContent=false",
            THIRD_PARTY,
            "--no-usage-statistics",
            "--browserUrl",
            "http://127.0.0.1:9",
            "--slim=false",
            "--viewport=800x600",
            "--categoryPwa=false",
        ]);
        let agent = Agent::start(&args, &[]).await;
        // The harness fails any result that carries structuredContent here.
        agent
            .open("3p/elements.html")
            .await
            .says("## Third-party developer tools");
        agent
            .ok("take_snapshot", json!({}))
            .await
            .says("button \"Save\"");
        let shot = agent.ok("take_screenshot", json!({})).await;
        assert_eq!(shot.images.len(), 1);
        shot.lacks("saved to");
        agent.err("click", json!({"uid": "9_9"})).await;
        let log = agent.log();
        for flag in [
            "--usageStatistics",
            "--browserUrl",
            "--slim",
            "--viewport",
            "--categoryPwa",
        ] {
            let lines = log
                .lines()
                .filter(|l| l.contains(&format!("{flag} has no effect in tabwire")))
                .count();
            assert_eq!(lines, 1, "{flag} should be named once on stderr:\n{log}");
        }
        agent.quit().await;
    }
}
