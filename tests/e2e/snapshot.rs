//! take_snapshot: the accessibility tree as text, uids, and uids used by other tools.

use serde_json::{json, Value};

use crate::harness::{page, Agent};

#[tokio::test]
async fn a_form_snapshot_shows_roles_names_values_states_and_iframes() {
    let agent = Agent::launch(&[]).await;
    let snap = agent.open_and_snapshot("form.html").await;
    snap.says("## Page snapshot")
        .says("RootWebArea \"form\"")
        .says("textbox \"Email\" value=\"ada@example.com\"")
        .says("checkbox \"Subscribe\"")
        .says("button \"Send\"")
        .says("Inside the frame");
    let email = snap
        .text
        .lines()
        .find(|l| l.contains("textbox \"Email\""))
        .unwrap();
    assert!(email.contains("required"), "{email}");
    let checkbox = snap
        .text
        .lines()
        .find(|l| l.contains("checkbox \"Subscribe\""))
        .unwrap();
    assert!(checkbox.contains("checked"), "{checkbox}");
    let send = snap
        .text
        .lines()
        .find(|l| l.contains("button \"Send\""))
        .unwrap();
    assert!(send.contains("disabled"), "{send}");
    let options = snap
        .text
        .lines()
        .find(|l| l.contains("button \"Options\""))
        .unwrap();
    assert!(
        options.contains("collapsed") && options.contains("haspopup=menu"),
        "{options}"
    );
    assert!(
        !snap.text.contains("focusable"),
        "noise states are left out"
    );
    assert_eq!(snap.json["snapshot"]["role"], "RootWebArea");
    assert_eq!(snap.json["snapshot"]["name"], "form");
    agent.quit().await;
}

#[tokio::test]
async fn uids_are_stable_across_snapshots_and_usable_by_scripts_until_the_document_goes() {
    let agent = Agent::launch(&[]).await;
    let first = agent
        .open_and_snapshot("form.html")
        .await
        .uid_of("button \"Send\"");
    let second = agent
        .ok("take_snapshot", json!({}))
        .await
        .uid_of("button \"Send\"");
    assert_eq!(first, second, "a node seen before keeps its uid");
    let text = agent
        .ok(
            "evaluate_script",
            json!({"function": "(el) => el.textContent", "args": [{"uid": first}]}),
        )
        .await;
    assert_eq!(text.json["result"], "Send");
    // Nested uids are resolved too.
    let nested = agent
        .ok(
            "evaluate_script",
            json!({"function": "(o) => o.list[0].tagName", "args": [{"list": [{"uid": first}]}]}),
        )
        .await;
    assert_eq!(nested.json["result"], "BUTTON");
    agent.ok("navigate_page", json!({"type": "reload"})).await;
    agent
        .err(
            "evaluate_script",
            json!({"function": "(el) => el.textContent", "args": [{"uid": first}]}),
        )
        .await
        .says("take_snapshot");
    agent
        .err(
            "evaluate_script",
            json!({"function": "(el) => 1", "args": [{"uid": "9_999"}]}),
        )
        .await
        .says("take_snapshot");
    let fresh = agent
        .ok("take_snapshot", json!({}))
        .await
        .uid_of("button \"Send\"");
    let text = agent
        .ok(
            "evaluate_script",
            json!({"function": "(el) => el.textContent", "args": [{"uid": fresh}]}),
        )
        .await;
    assert_eq!(text.json["result"], "Send");
    agent.quit().await;
}

#[tokio::test]
async fn a_page_of_five_thousand_elements_snapshots_and_can_go_to_a_file() {
    let agent = Agent::launch(&[]).await;
    agent.open("big.html").await;
    // Too long for a client to take inline: folded to fit, every node in a private file.
    let snap = agent.ok("take_snapshot", json!({})).await;
    snap.says("folded to fit this client's replies (")
        .says("was saved to")
        .says("RootWebArea")
        .lacks("Buy 999");
    assert!(snap.text.chars().count() <= 60_000, "{}", snap.text.len());
    let spilled = snap.json["snapshotFilePath"].as_str().unwrap().to_owned();
    let written = std::fs::read_to_string(&spilled).unwrap();
    let nodes = written.lines().count();
    assert!(nodes >= 5000, "only {nodes} nodes");
    assert!(written.contains("button \"Buy 999\""));
    assert!(written.contains("textbox \"Quantity 999\" value=\"5\""));
    assert!(written.contains("link \"Details 999\""));
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&spilled).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "{spilled} is private");
    let folder = std::path::Path::new(&spilled).parent().unwrap();
    let mode = std::fs::metadata(folder).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o700, "{} is private", folder.display());

    let verbose = agent.ok("take_snapshot", json!({"verbose": true})).await;
    let more = verbose.json["snapshotFilePath"].as_str().unwrap();
    assert_ne!(more, spilled, "each spill gets a file of its own");
    assert!(std::fs::read_to_string(more).unwrap().lines().count() > nodes);

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("snap.txt");
    let saved = agent.ok("take_snapshot", json!({"filePath": path})).await;
    saved.says("saved to").lacks("Buy 999");
    let written = std::fs::read_to_string(&path).unwrap();
    assert!(written.contains("button \"Buy 999\""));
    agent.quit().await;
}

/// The rows of a folded snapshot's text with a uid: `(uid, line)`.
fn uid_lines(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|line| {
            let uid = line.trim_start().split(' ').next()?;
            let looks = uid.split_once('_').is_some_and(|(a, b)| {
                a.chars().all(|c| c.is_ascii_digit()) && b.chars().all(|c| c.is_ascii_digit())
            });
            looks.then(|| (uid.to_owned(), line.to_owned()))
        })
        .collect()
}

/// What a text-only `evaluate_script` reply says the script returned.
fn script_result(reply: &crate::harness::Reply) -> Value {
    let json = reply
        .text
        .split("```json\n")
        .nth(1)
        .and_then(|rest| rest.split("\n```").next())
        .unwrap_or_else(|| panic!("no result in {}", reply.text));
    serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {json}"))
}

/// `function`'s result in the selected page, for a text-only agent.
async fn in_page(agent: &Agent, function: &str, args: Value) -> Value {
    let reply = agent
        .ok(
            "evaluate_script",
            json!({"function": function, "args": args}),
        )
        .await;
    script_result(&reply)
}

/// Checks every uid `reply` shows against the page: a "Pick" button is clicked (and
/// the page says which row was), anything else is found by a script.
async fn every_uid_works(agent: &Agent, reply: &crate::harness::Reply) -> usize {
    let rows = uid_lines(&reply.text);
    for (uid, line) in &rows {
        if let Some(row) = line.split("button \"Pick ").nth(1) {
            let row = row.trim_end_matches('"');
            agent.ok("click", json!({"uid": uid})).await;
            let picked = in_page(agent, "() => window.picked", json!([])).await;
            assert_eq!(picked, json!(row), "{line}");
        } else {
            let found = in_page(agent, "(el) => el != null", json!([{"uid": uid}])).await;
            assert_eq!(found, true, "{line}");
        }
    }
    rows.len()
}

/// The uid the first fold line of `text` after one containing `after` says to unfold
/// (the fold line itself counts).
fn unfold_uid(text: &str, after: &str) -> String {
    let line = text
        .lines()
        .skip_while(|l| !l.contains(after))
        .find(|l| l.contains("unfold=[\""))
        .unwrap_or_else(|| panic!("no fold line after {after:?}:\n{text}"));
    line.split("unfold=[\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn a_codex_session_gets_a_big_snapshot_folded_to_its_budget_and_every_uid_works() {
    const CODEX: usize = 11_000;
    let (first, _cdp) = Agent::launch_with_cdp(&[]).await;
    // As Codex users run it: text only (Codex shows the model structured content
    // instead of the text when there is any).
    let agent = first
        .join_named_with(
            "codex-mcp-client",
            &["--experimentalStructuredContent=false"],
        )
        .await;
    let opened = agent
        .ok("new_page", json!({"url": page("grouped-rows.html")}))
        .await;
    assert!(opened.text.chars().count() <= CODEX);
    let snap = agent.ok("take_snapshot", json!({})).await;
    let chars = snap.text.chars().count();
    assert!(chars <= CODEX, "{chars} characters for Codex");
    snap.says("folded to fit this client's replies (")
        .says("Pick 0-0")
        .lacks("Pick 29-49");
    assert!(every_uid_works(&agent, &snap).await > 10, "{}", snap.text);

    // The fold line's way in: the groups unfolded, each group's rows folded...
    let groups = agent
        .ok(
            "take_snapshot",
            json!({"unfold": [unfold_uid(&snap.text, "more region")]}),
        )
        .await;
    assert!(groups.text.chars().count() <= CODEX, "{}", groups.text);
    groups.says("region \"Group 29\"");
    // ...then one group's rows, all 50: its subtree.
    let group = agent
        .ok(
            "take_snapshot",
            json!({"uid": unfold_uid(&groups.text, "region \"Group 29\"")}),
        )
        .await;
    assert!(group.text.chars().count() <= CODEX, "{}", group.text);
    group.says("Pick 29-0").says("Pick 29-49");
    every_uid_works(&agent, &group).await;

    // Every node is in the file, by the same uids.
    let file = snap
        .text
        .split(" was saved to ")
        .nth(1)
        .and_then(|rest| rest.split(". Read it").next())
        .expect("the file every node was saved to");
    let whole = std::fs::read_to_string(file).unwrap();
    let (last, _) = uid_lines(&whole)
        .into_iter()
        .find(|(_, line)| line.contains("button \"Pick 17-33\""))
        .expect("Pick 17-33 in the file");
    agent.ok("click", json!({"uid": last})).await;
    let picked = in_page(&agent, "() => window.picked", json!([])).await;
    assert_eq!(picked, json!("17-33"));
    agent.quit().await;
    first.quit().await;
}

#[tokio::test]
async fn a_subtree_by_uid_and_an_unknown_uid_that_says_to_take_a_fresh_snapshot() {
    let agent = Agent::launch(&[]).await;
    let whole = agent.open_and_snapshot("rows.html").await;
    let list = whole.uid_of("list \"Orders\"");
    let part = agent.ok("take_snapshot", json!({"uid": list})).await;
    part.says(&format!("the subtree of {list}"))
        .says("button \"Row 30\"")
        .lacks("Add and remove")
        .lacks("heading \"Orders\"");
    let first = part
        .text
        .lines()
        .find(|l| crate::harness::is_snapshot_line(l))
        .unwrap();
    assert!(first.starts_with(&format!("{list} list")), "{first}");
    assert_eq!(part.json["snapshot"]["id"], list.as_str());
    agent
        .err("take_snapshot", json!({"uid": "9999_1"}))
        .await
        .says("9999_1")
        .says("take_snapshot without uid");
    agent.quit().await;
}

#[tokio::test]
async fn a_budget_folds_the_big_page_and_unfold_shows_the_rows_it_folded() {
    let agent = Agent::launch(&[]).await;
    agent.open("big.html").await;
    let folded = agent.ok("take_snapshot", json!({"maxChars": 4000})).await;
    folded
        .says("folded to fit maxChars=4000")
        .says("button \"Buy 2\"")
        .says("more ")
        .lacks("Buy 999\"")
        .lacks("saved to");
    let fold = folded
        .text
        .lines()
        .find(|l| l.trim_start().starts_with('\u{2026}') && l.contains("unfold=[\""))
        .unwrap_or_else(|| panic!("no fold line in:\n{}", folded.text));
    let parent = fold
        .split("unfold=[\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap()
        .to_owned();
    let tree_chars: usize = folded
        .text
        .lines()
        .filter(|l| crate::harness::is_snapshot_line(l) || l.trim_start().starts_with('\u{2026}'))
        .map(|l| l.chars().count() + 1)
        .sum();
    assert!(tree_chars <= 4000, "{tree_chars} characters of tree");
    assert!(folded.json["snapshot"]["id"].is_string(), "{}", folded.json);

    // Unfolded, the rows are there up to the budget, and the cut says what is left.
    let unfolded = agent
        .ok(
            "take_snapshot",
            json!({"maxChars": 4000, "unfold": [parent]}),
        )
        .await;
    unfolded
        .says("button \"Buy 10\"")
        .says("cut here")
        .says("did not fit in maxChars=4000");
    assert!(unfolded.json["snapshotCut"]["lines"].as_u64().unwrap() > 1000);
    agent.quit().await;
}

#[tokio::test]
async fn after_a_click_that_adds_and_removes_rows_the_snapshot_is_only_the_changes() {
    let agent = Agent::launch(&[]).await;
    let whole = agent.open_and_snapshot("rows.html").await;
    let number = whole.json["snapshotId"].as_u64().unwrap();
    let second = whole.uid_of("button \"Row 2\"");
    let button = whole.uid_of("button \"Add and remove\"");
    let list = whole.uid_of("list \"Orders\"");

    let clicked = agent
        .ok("click", json!({"uid": button, "includeSnapshot": true}))
        .await;
    clicked
        .says(&format!("only the changes since snapshot {number}"))
        .says("take_snapshot gives the whole tree")
        .says(&format!("Under {list} at 29 to 30:"))
        .says("button \"Row 31\"")
        .says("button \"Row 32\"")
        .says("Clicks: 1")
        .lacks("Row 1\"")
        .lacks("Row 15\"");
    let removed = clicked
        .text
        .lines()
        .find(|l| l.starts_with("Removed, with what was under them: "))
        .unwrap_or_else(|| panic!("no removed line in:\n{}", clicked.text));
    assert!(
        removed.split([' ', ',']).any(|uid| uid == second),
        "{removed}"
    );
    let changes = &clicked.json["snapshotChanges"];
    assert_eq!(clicked.json["snapshotSince"], number);
    assert!(
        changes.get("since").is_none(),
        "said once, at the top: {changes}"
    );
    assert!(changes["removed"]
        .as_array()
        .unwrap()
        .iter()
        .any(|uid| uid == second.as_str()));
    let placed = changes["placed"].as_array().unwrap();
    assert!(
        placed
            .iter()
            .any(|p| p["parent"] == list.as_str() && p["position"] == 29),
        "{changes}"
    );

    // A second click is said against the answer before it.
    let again = agent
        .ok("click", json!({"uid": button, "includeSnapshot": true}))
        .await;
    let after_first = clicked.json["snapshotId"].as_u64().unwrap();
    again
        .says(&format!("only the changes since snapshot {after_first}"))
        .says("button \"Row 34\"")
        .says("Clicks: 2");

    // take_snapshot itself still gives the whole tree.
    agent
        .ok("take_snapshot", json!({}))
        .await
        .says("button \"Row 1\"")
        .says("button \"Row 34\"")
        .lacks("only the changes");
    agent.quit().await;
}

/// The names of the buttons the page itself says meet its viewport (the layout
/// viewport, `innerWidth` × `innerHeight`, where the page is scrolled to).
const BUTTONS_IN_VIEWPORT: &str = "() => [...document.querySelectorAll('button')]
    .filter((b) => { const r = b.getBoundingClientRect();
        return r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth; })
    .map((b) => b.textContent)";

/// The names of the buttons in a snapshot reply's structured tree.
fn buttons_in(tree: &Value) -> Vec<String> {
    let mut names = Vec::new();
    let mut stack = vec![tree];
    while let Some(node) = stack.pop() {
        if node["role"] == "button" {
            names.extend(node["name"].as_str().map(str::to_owned));
        }
        if let Some(children) = node["children"].as_array() {
            stack.extend(children.iter().rev());
        }
    }
    names
}

/// Takes a viewport snapshot of the selected page, checks that it shows exactly the
/// buttons the page says are in its viewport, in the text and in the structured tree,
/// and says it is only the viewport in both; the buttons.
async fn viewport_buttons(agent: &Agent) -> Vec<String> {
    let wanted: Vec<String> =
        serde_json::from_value(agent.evaluate(BUTTONS_IN_VIEWPORT).await).expect("a list of names");
    let seen = agent.ok("take_snapshot", json!({"viewport": true})).await;
    seen.says("only what is in the viewport")
        .says("take_snapshot without viewport gives the rest");
    let said = seen.json["snapshotViewport"].as_str().unwrap_or_default();
    assert!(said.contains("viewport"), "{}", seen.json);
    let shown = buttons_in(&seen.json["snapshot"]);
    assert!(!wanted.is_empty(), "some rows are on screen");
    assert_eq!(shown, wanted, "the viewport's buttons:\n{}", seen.text);
    let lines: Vec<&str> = seen
        .text
        .lines()
        .filter(|l| crate::harness::is_snapshot_line(l) && l.contains(" button \""))
        .collect();
    assert_eq!(lines.len(), wanted.len(), "{}", seen.text);
    shown
}

/// Presses `key` and waits until the scroll it starts has ended (`scrollend`).
async fn press_and_wait_for_scroll(agent: &Agent, key: &str) {
    agent
        .evaluate(
            "() => { window.scrolled = new Promise((done) =>
                addEventListener('scrollend', () => done(scrollY), {once: true})); return 0; }",
        )
        .await;
    agent.ok("press_key", json!({"key": key})).await;
    let ended = agent
        .call(
            "evaluate_script",
            json!({"function": "() => window.scrolled", "timeout": 20000}),
        )
        .await;
    assert!(
        !ended.is_error && ended.json["result"].as_f64().is_some_and(|y| y > 0.0),
        "{key} scrolled the page:\n{}",
        ended.text
    );
}

#[tokio::test]
async fn a_viewport_snapshot_shows_what_is_on_screen_and_follows_scrolling() {
    let agent = Agent::launch(&[]).await;
    agent.open("big.html").await;
    let top = viewport_buttons(&agent).await;
    assert_eq!(top.first().map(String::as_str), Some("Buy 0"), "{top:?}");
    assert!(top.len() < 100, "only the rows on screen: {top:?}");

    press_and_wait_for_scroll(&agent, "PageDown").await;
    let down = viewport_buttons(&agent).await;
    assert_ne!(down, top, "the rows a page further down");

    agent
        .evaluate(
            "() => { document.querySelectorAll('section')[500].scrollIntoView(); return scrollY; }",
        )
        .await;
    let middle = viewport_buttons(&agent).await;
    assert!(middle.contains(&"Buy 500".to_owned()), "{middle:?}");
    assert!(!middle.contains(&"Buy 0".to_owned()), "{middle:?}");
    agent.quit().await;
}

#[tokio::test]
async fn a_hidden_tab_has_a_viewport_where_it_is_scrolled_to() {
    let agent = Agent::launch(&[]).await;
    agent.open("index.html").await;
    agent
        .ok(
            "new_page",
            json!({"url": page("big.html"), "background": true}),
        )
        .await;
    let state = agent
        .evaluate("() => [document.visibilityState, innerWidth > 0 && innerHeight > 0]")
        .await;
    assert_eq!(
        state,
        json!(["hidden", true]),
        "a hidden tab keeps its window's size"
    );
    let top = viewport_buttons(&agent).await;
    assert_eq!(top.first().map(String::as_str), Some("Buy 0"), "{top:?}");

    agent
        .evaluate(
            "() => { document.querySelectorAll('section')[700].scrollIntoView(); return scrollY; }",
        )
        .await;
    let scrolled = viewport_buttons(&agent).await;
    assert!(scrolled.contains(&"Buy 700".to_owned()), "{scrolled:?}");
    assert!(!scrolled.contains(&"Buy 0".to_owned()), "{scrolled:?}");
    assert_eq!(
        agent.evaluate("() => document.visibilityState").await,
        "hidden",
        "the snapshot did not bring the tab to the front"
    );
    agent.quit().await;
}

/// The line of a snapshot's text that has `needle`.
fn line_with<'t>(text: &'t str, needle: &str) -> &'t str {
    text.lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?} in:\n{text}"))
}

#[tokio::test]
async fn a_custom_elements_role_name_and_state_from_element_internals_follow_a_click() {
    let agent = Agent::launch(&[]).await;
    agent
        .ok("new_page", json!({"url": page("snapshot/internals.html")}))
        .await;
    let snap = agent.ok("take_snapshot", json!({})).await;
    let check = line_with(&snap.text, "checkbox \"Accept terms\"");
    assert!(!check.contains("checked"), "{check}");
    let uid = snap.uid_of("checkbox \"Accept terms\"");
    agent.ok("click", json!({"uid": uid})).await;
    let after = agent.ok("take_snapshot", json!({})).await;
    let check = line_with(&after.text, "checkbox \"Accept terms\"");
    assert!(check.contains("checked"), "{check}");
    assert_eq!(
        after.uid_of("checkbox \"Accept terms\""),
        uid,
        "the same uid"
    );
    agent.ok("click", json!({"uid": uid})).await;
    let again = agent.ok("take_snapshot", json!({})).await;
    let check = line_with(&again.text, "checkbox \"Accept terms\"");
    assert!(!check.contains("checked"), "toggled back: {check}");
    agent.quit().await;
}

#[tokio::test]
async fn a_button_in_a_closed_shadow_root_is_shown_in_place_and_clicked_by_uid() {
    let agent = Agent::launch(&[]).await;
    agent
        .ok("new_page", json!({"url": page("snapshot/internals.html")}))
        .await;
    let snap = agent.ok("take_snapshot", json!({})).await;
    snap.says("\"Vault shut\"");
    let empty = line_with(&snap.text, "shadow-root=closed");
    assert_eq!(
        snap.text.matches("shadow-root=closed").count(),
        1,
        "only the closed root that shows nothing: {empty}\n{}",
        snap.text
    );
    let button = snap.uid_of("button \"Open vault\"");
    agent
        .ok("click", json!({"uid": button, "includeSnapshot": true}))
        .await
        .says("Vault opened");
    agent.quit().await;
}

#[tokio::test]
async fn every_tool_declares_the_sessions_reply_budget_for_claude_code() {
    let (first, _cdp) = Agent::launch_with_cdp(&[]).await;
    // The budget and a tenth to spare (Claude Code files away what passes it).
    for (client, declared) in [("claude-code", 66_000), ("codex-mcp-client", 12_100)] {
        let agent = first.join_named(client).await;
        let tools = agent.tools().await;
        assert!(tools.len() > 20);
        for tool in tools {
            let meta = tool.meta.as_ref().map(|m| m.0.clone()).unwrap_or_default();
            assert_eq!(
                meta.get("anthropic/maxResultSizeChars"),
                Some(&json!(declared)),
                "{client}: {}",
                tool.name
            );
        }
        agent.quit().await;
    }
    first.quit().await;
}
