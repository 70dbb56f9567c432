//! An Angular Material app (the tracker in `tests/fixtures/angular/`, bundled by
//! `scripts/fixture-angular`) driven as an agent drives one: snapshot, click a Material
//! button by uid, read the dialog it opens (rendered in the CDK overlay), fill a
//! mat-form-field input by uid and see the app react.

use serde_json::json;

use crate::harness::{built_fixtures, Agent, Reply};

/// The app's bundle must have been built; without it the page is an empty shell.
fn require_bundle() {
    let bundle = built_fixtures().join("angular/main.js");
    assert!(
        bundle.exists(),
        "{} is missing: run scripts/fixture-angular (scripts/test runs it)",
        bundle.display()
    );
}

/// The snapshot line containing `needle`.
fn line<'a>(snap: &'a Reply, needle: &str) -> &'a str {
    snap.text
        .lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?} in:\n{}", snap.text))
}

/// Waits (bounded) until the selected page shows `text`.
async fn wait_for(agent: &Agent, text: &str) {
    agent
        .ok("wait_for", json!({ "text": text, "timeout": 30_000 }))
        .await;
}

#[tokio::test]
async fn an_agent_opens_a_material_dialog_fills_its_field_and_the_app_sees_it() {
    require_bundle();
    let agent = Agent::launch(&[]).await;
    agent.open("angular/index.html").await;
    // The app renders after the page's load, once Angular has compiled it.
    wait_for(&agent, "New issue").await;
    let snap = agent.ok("take_snapshot", json!({})).await;
    snap.says("heading \"Issues\"")
        .says("combobox \"Status\" value=\"Any\"")
        .says("checkbox \"Has attachments\"")
        .says("switch \"Show archived\"")
        .says("tab \"List\"")
        .says("button \"Next page\"")
        .lacks("dialog \"New issue\"");

    agent
        .ok(
            "click",
            json!({ "uid": snap.uid_of("button \"New issue\"") }),
        )
        .await;
    wait_for(&agent, "Describe the problem").await;
    let dialog = agent.ok("take_snapshot", json!({})).await;
    dialog
        .says("dialog \"New issue\"")
        .says("combobox \"Assignee\" value=\"Ada Lovelace\"")
        .lacks("heading \"Issues\""); // the page behind a modal dialog is inert
    assert!(
        line(&dialog, "button \"Create\"").contains("disabled"),
        "Create waits for a title:\n{}",
        dialog.text
    );

    let title = "Export loses accents";
    agent
        .ok(
            "fill",
            json!({ "uid": dialog.uid_of("textbox \"Title\""), "value": title }),
        )
        .await;
    // The form control's value reaches the app: its hint counts the characters.
    wait_for(&agent, "20 / 80").await;
    let filled = agent.ok("take_snapshot", json!({})).await;
    assert!(
        line(&filled, "textbox \"Title\"").contains(&format!("value=\"{title}\"")),
        "{}",
        filled.text
    );
    let create = line(&filled, "button \"Create\"");
    assert!(!create.contains("disabled"), "{create}");

    agent
        .ok(
            "click",
            json!({ "uid": filled.uid_of("button \"Create\"") }),
        )
        .await;
    // The new issue heads the table (the snack bar saying so reaches the accessibility
    // tree only after its own delay, so it is not waited for).
    wait_for(&agent, title).await;
    let after = agent.ok("take_snapshot", json!({})).await;
    after
        .lacks("dialog \"New issue\"")
        .says(" \"TRK-13\"") // text lines show only their text
        .says(&format!(" \"{title}\""));
    agent.quit().await;
}
