//! Cross-site iframes: a page on one site (`127.0.0.1`) showing a frame of another
//! (`localhost`), which Chrome runs in a renderer of its own and tabwire reaches
//! through a child debugging session.

use serde_json::json;

use crate::harness::{cross_site_page, page, Agent, THIRD_PARTY};

/// Opens the outer fixture with the cross-site frame (and a same-origin one) and
/// waits until both frames have loaded.
async fn open_outer(agent: &Agent) {
    let inner = cross_site_page("frames/cross-site-inner.html");
    let url = format!("{}?inner={inner}", page("frames/cross-site.html"));
    agent.ok("new_page", json!({ "url": url })).await;
    frame_said(agent, "loaded /frames/cross-site-inner.html").await;
    frame_said(agent, "loaded /frames/same-origin-inner.html").await;
}

/// Waits (bounded, in the page) until the frame has told the page `words`.
pub(crate) async fn frame_said(agent: &Agent, words: &str) {
    let wait = format!("() => frameSaid({})", json!(words));
    agent
        .ok("evaluate_script", json!({ "function": wait }))
        .await;
}

/// Sends the frame an order (`{"go": url}` or `"alert"`) through the page, which
/// forgets what the frame said before.
async fn tell_frame(agent: &Agent, order: serde_json::Value) {
    let tell = format!("() => {{ frameLog.length = 0; tellFrame({order}); return true; }}");
    agent
        .ok("evaluate_script", json!({ "function": tell }))
        .await;
}

/// Chrome reports the frame's dialog in the tab's own session, as the page's; the
/// frame's session must not get in the way of answering it.
#[tokio::test]
async fn a_dialog_opened_by_a_cross_site_frame_is_shown_and_handled() {
    let agent = Agent::launch(&[]).await;
    open_outer(&agent).await;
    // The frame's alert opens while the script waits: it ends the wait.
    let wait = "() => { tellFrame('alert'); return new Promise(() => {}); }";
    agent
        .call("evaluate_script", json!({ "function": wait }))
        .await
        .says("from the frame");
    agent
        .ok("list_pages", json!({}))
        .await
        .says("## Open dialog")
        .says("from the frame");
    agent
        .ok("handle_dialog", json!({"action": "accept"}))
        .await
        .lacks("## Open dialog");
    agent
        .ok("evaluate_script", json!({"function": "() => 1"}))
        .await;
    agent.quit().await;
}

#[tokio::test]
async fn a_cross_site_frame_navigating_itself_leaves_the_pages_uids_valid() {
    let agent = Agent::launch(&[]).await;
    open_outer(&agent).await;
    let outer = agent
        .ok("take_snapshot", json!({}))
        .await
        .uid_of("button \"Outer button\"");
    // Within its site (same renderer, same session)...
    let next = cross_site_page("frames/cross-site-next.html");
    tell_frame(&agent, json!({ "go": next })).await;
    frame_said(&agent, "loaded /frames/cross-site-next.html").await;
    let snap = agent.ok("take_snapshot", json!({})).await;
    assert_eq!(
        snap.uid_of("button \"Outer button\""),
        outer,
        "{}",
        snap.text
    );
    // ...and to another site (a new renderer, a new session), then back.
    let home = page("frames/cross-site-next.html");
    tell_frame(&agent, json!({ "go": home })).await;
    frame_said(&agent, "loaded /frames/cross-site-next.html").await;
    let inner = cross_site_page("frames/cross-site-inner.html");
    tell_frame(&agent, json!({ "go": inner })).await;
    frame_said(&agent, "loaded /frames/cross-site-inner.html").await;
    agent.ok("click", json!({ "uid": outer })).await;
    let text = agent
        .ok(
            "evaluate_script",
            json!({"function": "(el) => el.textContent", "args": [{ "uid": outer }]}),
        )
        .await;
    assert_eq!(text.json["result"], "Outer clicked");
    agent.quit().await;
}

#[tokio::test]
async fn a_cross_site_frame_is_in_the_snapshot_and_its_elements_take_input_by_uid() {
    let agent = Agent::launch(&[]).await;
    open_outer(&agent).await;
    let snap = agent.ok("take_snapshot", json!({})).await;
    snap.says("Iframe \"cross-site frame\"")
        .says("RootWebArea \"inner\"")
        .says("button \"Inner button\"")
        .says("textbox \"Inner name\"")
        .says("button \"Same-origin button\"")
        .lacks("frame-not-captured");
    let button = snap.uid_of("button \"Inner button\"");
    agent.ok("click", json!({ "uid": button })).await;
    frame_said(&agent, "clicked /frames/cross-site-inner.html").await;
    let name = snap.uid_of("textbox \"Inner name\"");
    agent
        .ok("fill", json!({ "uid": name, "value": "Ada" }))
        .await;
    frame_said(&agent, "typed Ada").await;
    agent
        .ok("take_snapshot", json!({}))
        .await
        .says("textbox \"Inner name\" value=\"Ada\"");
    // The page's scripts cannot reach into the frame's renderer.
    agent
        .err(
            "evaluate_script",
            json!({"function": "(el) => el.id", "args": [{ "uid": button }]}),
        )
        .await
        .says("cross-site frame");
    // The frame's next document has new uids; the old ones are stale.
    let next = cross_site_page("frames/cross-site-next.html");
    tell_frame(&agent, json!({ "go": next })).await;
    frame_said(&agent, "loaded /frames/cross-site-next.html").await;
    agent
        .err("click", json!({ "uid": button }))
        .await
        .says("stale");
    let next_button = agent
        .ok("take_snapshot", json!({}))
        .await
        .uid_of("button \"Next button\"");
    agent.ok("click", json!({ "uid": next_button })).await;
    frame_said(&agent, "clicked /frames/cross-site-next.html").await;
    agent.quit().await;
}

/// A page's own script can hand back an element of a same-origin frame (it reaches
/// that frame's document); an element of a cross-site frame it cannot, as the page
/// has no way to reach that document (`contentDocument` is `null`).
#[tokio::test]
async fn a_tool_returns_an_element_inside_a_same_origin_frame() {
    let agent = Agent::launch(&[THIRD_PARTY]).await;
    open_outer(&agent).await;
    let returned = agent
        .ok(
            "execute_3p_developer_tool",
            json!({"toolName": "sameOriginButton"}),
        )
        .await;
    let uid = returned.json["result"]["uid"]
        .as_str()
        .unwrap_or_else(|| panic!("an element uid: {}", returned.text))
        .to_owned();
    returned.says(&format!("{uid} button \"Same-origin button\""));
    agent.ok("click", json!({ "uid": uid })).await;
    frame_said(&agent, "clicked /frames/same-origin-inner.html").await;
    agent.quit().await;
}

/// Files, drags and element screenshots reach into a cross-site frame as clicks do:
/// each is carried out in the frame's own session, at the frame's coordinates, and
/// a screenshot's clip is moved to where the frame shows in the page.
#[tokio::test]
async fn files_drags_and_screenshots_reach_into_a_cross_site_frame() {
    let agent = Agent::launch(&[]).await;
    open_outer(&agent).await;
    let snap = agent.ok("take_snapshot", json!({})).await;

    let dir = tempfile::tempdir().expect("a temporary folder");
    let file = dir.path().join("notes.txt");
    std::fs::write(&file, "12345").expect("the file to upload");
    let input = snap.uid_of("\"Inner file\"");
    agent
        .ok("upload_file", json!({"uid": input, "filePaths": [file]}))
        .await;
    frame_said(&agent, "file notes.txt:5").await;
    // A button that opens a chooser: the chooser is intercepted in the frame's session.
    let chooser = snap.uid_of("button \"Inner chooser\"");
    agent
        .ok("upload_file", json!({"uid": chooser, "filePaths": [file]}))
        .await;
    frame_said(&agent, "hidden-file notes.txt:5").await;

    let card = snap.uid_of("\"Inner card\"");
    let zone = snap.uid_of("\"Inner zone\"");
    agent
        .ok("drag", json!({"from_uid": card, "to_uid": zone}))
        .await;
    frame_said(&agent, "dropped card").await;
    // Between the frame and the page, no drag can be played: the refusal says so.
    let outer = snap.uid_of("button \"Outer button\"");
    agent
        .err("drag", json!({"from_uid": card, "to_uid": outer}))
        .await
        .says("cross-site frame")
        .says("same frame");

    // The two swatches look the same: so do their screenshots, if the frame's one
    // was clipped where the frame shows it.
    let shot = |uid: String| {
        let agent = &agent;
        async move {
            let reply = agent.ok("take_screenshot", json!({ "uid": uid })).await;
            let image = reply.images.first().cloned();
            image
                .unwrap_or_else(|| panic!("an image: {}", reply.text))
                .0
        }
    };
    let inner = shot(snap.uid_of("\"Inner swatch\"")).await;
    let outer = shot(snap.uid_of("\"Outer swatch\"")).await;
    assert!(
        inner == outer,
        "the frame's swatch shot is not of the swatch"
    );
    agent.quit().await;
}
