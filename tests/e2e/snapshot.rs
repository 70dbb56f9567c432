//! take_snapshot: the accessibility tree as text, uids, and uids used by other tools.

use serde_json::json;

use crate::harness::{page, Agent};

#[tokio::test]
async fn a_form_snapshot_shows_roles_names_values_states_and_iframes() {
    let agent = Agent::launch(&[]).await;
    agent
        .ok("new_page", json!({"url": page("form.html")}))
        .await;
    let snap = agent.ok("take_snapshot", json!({})).await;
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
    agent
        .ok("new_page", json!({"url": page("form.html")}))
        .await;
    let first = agent
        .ok("take_snapshot", json!({}))
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
    agent.ok("new_page", json!({"url": page("big.html")})).await;
    // Too long for a client to take inline: saved to a private file, with a preview.
    let snap = agent.ok("take_snapshot", json!({})).await;
    snap.says("too long to show here")
        .says("It begins:")
        .says("RootWebArea")
        .lacks("Buy 999");
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
