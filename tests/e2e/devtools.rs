//! The DevTools surface, end to end: input, waiting, dialogs, screenshots, console,
//! network and emulation.

use base64::Engine;
use serde_json::json;

use crate::harness::Agent;

/// Width and height from a PNG's header.
fn png_size(data: &[u8]) -> (u32, u32) {
    assert_eq!(&data[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    let width = u32::from_be_bytes([data[16], data[17], data[18], data[19]]);
    let height = u32::from_be_bytes([data[20], data[21], data[22], data[23]]);
    (width, height)
}

fn decode(data: &str) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(data)
        .expect("base64 image")
}

#[tokio::test]
async fn a_form_is_filled_and_submitted_and_the_click_waits_for_the_navigation() {
    let agent = Agent::launch(&[]).await;
    let snap = agent.open_and_snapshot("devtools/form.html").await;
    let name = snap.uid_of("textbox \"Name\"");
    let notes = snap.uid_of("textbox \"Notes\"");
    let size = snap.uid_of("combobox \"Size\"");
    let gift = snap.uid_of("checkbox \"Gift wrap\"");
    let courier = snap.uid_of("radio \"Courier\"");
    let message = snap.uid_of("\"Message\"");
    agent
        .ok("fill", json!({"uid": name, "value": "Ada"}))
        .await
        .says("Filled the element");
    agent
        .ok(
            "fill_form",
            json!({"elements": [
                {"uid": notes, "value": "ring twice\nthanks"},
                {"uid": size, "value": "Large"},
                {"uid": gift, "value": "true"},
                {"uid": courier, "value": "true"},
                {"uid": message, "value": "hello editor"},
            ]}),
        )
        .await;
    let state = agent
        .ok("evaluate_script", json!({"function": "() => [document.querySelector('[name=name]').value, document.querySelector('[name=notes]').value, document.querySelector('[name=size]').value, document.querySelector('[name=gift]').checked, document.querySelector('[value=courier]').checked, document.getElementById('message').textContent]"}))
        .await;
    assert_eq!(
        state.json["result"],
        json!(["Ada", "ring twice\nthanks", "l", true, true, "hello editor"])
    );
    agent
        .err("fill", json!({"uid": size, "value": "Huge"}))
        .await
        .says("Small");
    agent
        .err("fill", json!({"uid": gift, "value": "maybe"}))
        .await
        .says("true");

    let order = snap.uid_of("button \"Order\"");
    let clicked = agent
        .ok("click", json!({"uid": order, "includeSnapshot": true}))
        .await;
    clicked
        .says("navigated to")
        .says("result.html")
        .says("## Page snapshot")
        .says("heading \"Thanks\"");
    // The click returned only once the new page had loaded: its script has run.
    let query = agent
        .ok(
            "evaluate_script",
            json!({"function": "() => JSON.parse(document.getElementById('query').textContent)"}),
        )
        .await;
    assert_eq!(query.json["result"]["name"], "Ada");
    assert_eq!(query.json["result"]["size"], "l");
    agent.quit().await;
}

#[tokio::test]
async fn clicks_wait_for_dom_changes_and_bad_uids_are_explained() {
    let agent = Agent::launch(&[]).await;
    let snap = agent.open_and_snapshot("devtools/form.html").await;
    let grow = snap.uid_of("button \"Grow\"");
    agent
        .ok("click", json!({"uid": grow, "includeSnapshot": true}))
        .await
        .says("Grown 0");
    agent
        .ok("click", json!({"uid": grow, "dblClick": true}))
        .await
        .says("Double-clicked");
    assert_eq!(
        agent
            .evaluate("() => document.querySelectorAll('p').length")
            .await,
        3
    );
    agent
        .err("click", json!({"uid": "99_99"}))
        .await
        .says("take_snapshot");
    agent.err("click", json!({})).await.says("uid");
    let link = snap.uid_of("link \"Go to result\"");
    agent
        .ok("click", json!({"uid": link}))
        .await
        .says("navigated to")
        .says("via=link");
    agent.quit().await;
}

#[tokio::test]
async fn a_dialog_opened_by_a_click_is_shown_and_handled() {
    let agent = Agent::launch(&[]).await;
    let snap = agent.open_and_snapshot("devtools/dialogs.html").await;
    let confirm = agent
        .ok("click", json!({"uid": snap.uid_of("button \"Confirm\"")}))
        .await;
    confirm
        .says("## Open dialog")
        .says("confirm")
        .says("Sure?")
        .says("handle_dialog");
    // Page tools that the dialog would block refuse, saying what to do.
    agent
        .err("evaluate_script", json!({"function": "() => 1"}))
        .await
        .says("handle_dialog");
    agent
        .ok("list_pages", json!({}))
        .await
        .says("## Open dialog");
    agent
        .ok("handle_dialog", json!({"action": "accept"}))
        .await
        .lacks("## Open dialog");
    assert_eq!(agent.text_of("out").await, "confirm:true");

    agent
        .ok("click", json!({"uid": snap.uid_of("button \"Prompt\"")}))
        .await
        .says("Your name?");
    agent
        .ok(
            "handle_dialog",
            json!({"action": "accept", "promptText": "Grace"}),
        )
        .await;
    assert_eq!(agent.text_of("out").await, "prompt:Grace");

    agent
        .ok("click", json!({"uid": snap.uid_of("button \"Confirm\"")}))
        .await;
    agent
        .ok("handle_dialog", json!({"action": "dismiss"}))
        .await;
    assert_eq!(agent.text_of("out").await, "confirm:false");
    agent
        .err("handle_dialog", json!({"action": "accept"}))
        .await
        .says("No dialog");
    agent
        .err("handle_dialog", json!({"action": "maybe"}))
        .await
        .says("Invalid arguments");
    agent.quit().await;
}

#[tokio::test]
async fn keys_typing_hover_drag_upload_and_wait_for() {
    let agent = Agent::launch(&[]).await;
    let snap = agent.open_and_snapshot("devtools/widgets.html").await;

    agent
        .ok(
            "click",
            json!({"uid": snap.uid_of("textbox \"Key catcher\"")}),
        )
        .await;
    agent
        .ok("type_text", json!({"text": "hi", "submitKey": "Enter"}))
        .await;
    agent
        .ok("press_key", json!({"key": "Control+Shift+R"}))
        .await;
    let typed = agent
        .ok("evaluate_script", json!({"function": "() => [document.getElementById('keys').value, [...document.querySelectorAll('#log li')].map(li => li.textContent)]"}))
        .await;
    assert_eq!(typed.json["result"][0], "hi");
    let log = typed.json["result"][1].to_string();
    assert!(
        log.contains("Enter") && log.contains("Control+Shift+R"),
        "{log}"
    );
    agent
        .err("press_key", json!({"key": "Ctrl+Q"}))
        .await
        .says("Enter");
    agent
        .err("press_key", json!({"key": "NotAKey"}))
        .await
        .says("NotAKey");

    agent
        .ok("hover", json!({"uid": snap.uid_of("\"Hover target\"")}))
        .await;
    assert_eq!(agent.text_of("hovered").await, "hovered!");

    agent
        .ok(
            "drag",
            json!({"from_uid": snap.uid_of("\"Card\""), "to_uid": snap.uid_of("\"Drop zone\"")}),
        )
        .await;
    assert_eq!(agent.text_of("zone").await, "dropped card");

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("notes.txt");
    std::fs::write(&file, "12345").unwrap();
    let attachment = snap.uid_of("\"Attachment\"");
    agent
        .ok(
            "upload_file",
            json!({"uid": attachment, "filePaths": [file]}),
        )
        .await;
    assert_eq!(agent.text_of("files").await, "notes.txt:5");
    agent
        .err(
            "upload_file",
            json!({"uid": attachment, "filePaths": [dir.path().join("missing.txt")]}),
        )
        .await
        .says("missing.txt")
        .says("existing file");

    agent
        .ok("click", json!({"uid": snap.uid_of("button \"Later\"")}))
        .await;
    agent
        .ok(
            "wait_for",
            json!({"text": ["Never shown", "Ready now"], "timeout": 10000}),
        )
        .await
        .says("Ready now");
    agent
        .err(
            "wait_for",
            json!({"text": "Not on this page", "timeout": 300}),
        )
        .await
        .says("Not on this page");
    agent.quit().await;
}

#[tokio::test]
async fn screenshots_are_images_of_the_right_size() {
    let agent = Agent::launch(&[]).await;
    agent.open("devtools/widgets.html").await;
    agent
        .ok("resize_page", json!({"width": 800, "height": 600}))
        .await;
    let shot = agent.ok("take_screenshot", json!({})).await;
    let (data, mime) = shot.images.first().expect("an inline image").clone();
    assert_eq!(mime, "image/png");
    assert_eq!(png_size(&decode(&data)), (800, 600));

    let snap = agent.ok("take_snapshot", json!({})).await;
    let element = agent
        .ok(
            "take_screenshot",
            json!({"uid": snap.uid_of("\"Blue box\"")}),
        )
        .await;
    let (data, _) = element.images.first().expect("an element image").clone();
    assert_eq!(png_size(&decode(&data)), (200, 100));

    let full = agent
        .ok(
            "take_screenshot",
            json!({"fullPage": true, "format": "jpeg", "quality": 50}),
        )
        .await;
    assert_eq!(
        full.images.first().map(|i| i.1.as_str()),
        Some("image/jpeg")
    );

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shot.webp");
    let saved = agent
        .ok(
            "take_screenshot",
            json!({"format": "webp", "filePath": path}),
        )
        .await;
    assert!(saved.images.is_empty());
    saved.says("saved to");
    assert!(std::fs::metadata(&path).unwrap().len() > 100);
    agent
        .err("take_screenshot", json!({"quality": 50}))
        .await
        .says("jpeg and webp");
    agent
        .err("take_screenshot", json!({"format": "gif"}))
        .await
        .says("Invalid arguments");
    agent.quit().await;
}

/// Opens the console fixture (2,000 messages in runs of 5, an error, then an uncaught
/// exception from a timer) and waits until the exception is collected.
async fn console_page() -> Agent {
    let agent = Agent::launch(&[]).await;
    agent.open("devtools/console.html").await;
    // The page's zero-delay timer was queued during the load, before this one: once
    // this one fires, the exception has been thrown, and its event is on its way to the
    // extension ahead of the script's answer. A few more rounds, bounded, in case.
    let wait = json!({"function": "() => new Promise(r => setTimeout(r, 0))"});
    for _ in 0..20 {
        agent.ok("evaluate_script", wait.clone()).await;
        let list = agent
            .ok("list_console_messages", json!({"types": ["exception"]}))
            .await;
        if list.text.contains("uncaught on purpose") {
            return agent;
        }
    }
    panic!("the fixture's uncaught exception was never listed");
}

#[tokio::test]
async fn console_opens_on_the_newest_messages_with_the_totals() {
    let agent = console_page().await;
    let newest = agent.ok("list_console_messages", json!({})).await;
    newest
        .says("1 error and 1 exception in ")
        .says(", the newest).")
        .says("[log] batch 399 (×5,")
        .says("[error] something broke")
        .says("uncaught on purpose")
        .lacks("batch 0 ");
    let pagination = &newest.json["pagination"];
    let pages = pagination["totalPages"].as_u64().expect("totalPages");
    assert_eq!(pagination["currentPage"].as_u64(), Some(pages - 1));
    assert_eq!(pagination["hasNextPage"], json!(false));
    assert_eq!(pagination["endIndex"], pagination["total"]);
    let totals = &newest.json["consoleTotals"];
    assert_eq!(
        (&totals["errors"], &totals["exceptions"]),
        (&json!(1), &json!(1))
    );
    assert!(totals["messages"].as_u64() >= Some(2_002), "{totals}");
    let last = newest.json["consoleMessages"]
        .as_array()
        .and_then(|m| m.last())
        .expect("entries");
    assert_eq!(last["type"], json!("exception"));

    // Paging back reaches the oldest.
    let oldest = agent
        .ok("list_console_messages", json!({"pageIdx": 0}))
        .await;
    oldest
        .says("Showing 1-")
        .says("(Page 1 of ")
        .says("[log] batch 0 (×5,")
        .says("1 error and 1 exception in ")
        .lacks("uncaught on purpose");

    // The totals ignore the filter.
    agent
        .ok("list_console_messages", json!({"types": ["log"]}))
        .await
        .says("1 error and 1 exception in ")
        .lacks("something broke");
    agent.quit().await;
}

#[tokio::test]
async fn console_messages_are_paginated_folded_and_detailed() {
    let agent = console_page().await;
    let types = json!(["log", "error", "exception"]);
    let oldest = agent
        .ok(
            "list_console_messages",
            json!({"pageSize": 20, "pageIdx": 0, "types": types}),
        )
        .await;
    oldest
        .says("Showing 1-2 of 402 (Page 1 of 21). Next page: 1.")
        .says("[log] batch 0 (×5,");
    let newest = agent
        .ok(
            "list_console_messages",
            json!({"pageSize": 20, "types": types}),
        )
        .await;
    newest
        .says("Showing 383-402 of 402 (Page 21 of 21, the newest). Previous page: 19.")
        .says("something broke")
        .says("uncaught on purpose");
    agent
        .ok(
            "list_console_messages",
            json!({"pageSize": 20, "pageIdx": 99}),
        )
        .await
        .says("Page 99 does not exist")
        .says("showing the newest page instead");
    agent
        .err("list_console_messages", json!({"types": ["eror"]}))
        .await
        .says("Valid types");

    let errors = agent
        .ok("list_console_messages", json!({"types": ["error"]}))
        .await;
    let msgid = errors.json["consoleMessages"][0]["id"]
        .as_u64()
        .expect("an error message");
    let detail = agent
        .ok("get_console_message", json!({"msgid": msgid}))
        .await;
    detail
        .says("something broke")
        .says("Stack trace (1-based line:column)")
        .says("explode")
        .says("console.html:9:");
    agent
        .err("get_console_message", json!({"msgid": 999999}))
        .await
        .says("list_console_messages");
    agent.quit().await;
}

/// Opens the network fixture, clicks Send (a POST with credentials), waits for the
/// answer to be shown, checks the list, and returns the fetch's reqid.
async fn send_fetch(agent: &Agent) -> u64 {
    let snap = agent.open_and_snapshot("devtools/network.html").await;
    agent
        .ok("click", json!({"uid": snap.uid_of("button \"Send\"")}))
        .await;
    agent.ok("wait_for", json!({"text": "got 2"})).await;
    let list = agent
        .ok("list_network_requests", json!({"resourceTypes": ["fetch"]}))
        .await;
    list.says("POST").says("data.json").says("[200]");
    list.json["networkRequests"][0]["reqid"]
        .as_u64()
        .expect("the fetch")
}

#[tokio::test]
async fn a_fetch_is_listed_with_its_bodies_and_credentials_are_redacted() {
    let agent = Agent::launch(&[]).await;
    let reqid = send_fetch(&agent).await;
    let all = agent.ok("list_network_requests", json!({})).await;
    all.says("network.html").says("(Document)");
    agent
        .err("list_network_requests", json!({"resourceTypes": ["ajax"]}))
        .await
        .says("Valid types");

    let detail = agent
        .ok("get_network_request", json!({"reqid": reqid}))
        .await;
    detail
        .says("Status: 200")
        .says("{\"query\":\"tea\",\"count\":2}")
        .says("green tea");
    detail
        .lacks("s3cret")
        .lacks("abc123")
        .lacks("server-secret")
        .says("[redacted]");
    assert_eq!(
        detail.json["networkRequest"]["requestHeaders"]["Authorization"],
        "[redacted]"
    );

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("body.json");
    agent
        .ok(
            "get_network_request",
            json!({"reqid": reqid, "responseFilePath": path}),
        )
        .await
        .says("saved to");
    let body: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(body["total"], 2);
    agent
        .err("get_network_request", json!({"reqid": 424242}))
        .await
        .says("list_network_requests");
    agent.quit().await;

    let open = Agent::launch(&["--redactNetworkHeaders=false"]).await;
    let reqid = send_fetch(&open).await;
    open.ok("get_network_request", json!({"reqid": reqid}))
        .await
        .says("Bearer s3cret");
    open.quit().await;
}

#[tokio::test]
async fn emulation_applies_and_is_stated_until_cleared() {
    let agent = Agent::launch(&[]).await;
    agent.open("devtools/widgets.html").await;
    let emulated = agent
        .ok("emulate", json!({"viewport": "375x812x3,mobile,touch", "colorScheme": "dark", "userAgent": "TabwireTest/1.0", "cpuThrottlingRate": 4, "extraHttpHeaders": {"X-Test": "1"}}))
        .await;
    emulated
        .says("## Emulation")
        .says("viewport 375x812x3,mobile,touch")
        .says("color scheme dark");
    let seen = agent
        .ok("evaluate_script", json!({"function": "() => [innerWidth, devicePixelRatio, matchMedia('(prefers-color-scheme: dark)').matches, navigator.userAgent, 'ontouchstart' in window]"}))
        .await;
    assert_eq!(
        seen.json["result"],
        json!([375, 3, true, "TabwireTest/1.0", true])
    );
    seen.says("## Emulation");
    agent
        .ok("emulate", json!({"networkConditions": "Offline"}))
        .await
        .says("network Offline");
    agent
        .err(
            "evaluate_script",
            json!({"function": "() => fetch('data.json').then(() => 'online')"}),
        )
        .await
        .says("Failed to fetch");
    agent
        .ok("emulate", json!({"networkConditions": "No emulation", "viewport": null, "colorScheme": "auto", "userAgent": null, "cpuThrottlingRate": 1, "extraHttpHeaders": null}))
        .await
        .says("emulates nothing");
    agent
        .ok("list_pages", json!({}))
        .await
        .lacks("## Emulation");
    // The other media features, each kept while another changes, cleared alone.
    agent
        .ok("emulate", json!({"colorScheme": "dark", "prefersReducedMotion": "reduce", "forcedColors": "active"}))
        .await
        .says("prefers-reduced-motion: reduce")
        .says("forced-colors: active");
    agent
        .ok(
            "emulate",
            json!({"forcedColors": "auto", "prefersContrast": "more"}),
        )
        .await
        .lacks("forced-colors");
    let media = "() => ['(prefers-color-scheme: dark)', '(prefers-reduced-motion: reduce)', \
        '(forced-colors: active)', '(prefers-contrast: more)'].map(q => matchMedia(q).matches)";
    assert_eq!(
        agent.evaluate(media).await,
        json!([true, true, false, true])
    );
    // Position and headers in the reference's text forms.
    agent
        .ok(
            "emulate",
            json!({"geolocation": "37.42,-122.08", "extraHttpHeaders": "{\"X-Test\": \"2\"}"}),
        )
        .await
        .says("geolocation 37.42,-122.08")
        .says("extra HTTP headers X-Test");
    agent
        .ok("emulate", json!({"colorScheme": "auto", "prefersReducedMotion": "auto", "prefersContrast": "auto", "geolocation": "", "extraHttpHeaders": ""}))
        .await
        .says("emulates nothing");
    assert_eq!(
        agent.evaluate(media).await,
        json!([false, false, false, false])
    );
    agent
        .err("emulate", json!({"networkConditions": "5G"}))
        .await
        .says("Slow 3G");
    agent
        .err("emulate", json!({"viewport": "wide"}))
        .await
        .says("WIDTHxHEIGHT");
    agent
        .err("emulate", json!({"colorScheme": "purple"}))
        .await
        .says("dark, light or auto");
    agent
        .err("emulate", json!({}))
        .await
        .says("Nothing to emulate");

    agent
        .ok("resize_page", json!({"width": 640, "height": 480}))
        .await;
    assert_eq!(
        agent.evaluate("() => [innerWidth, innerHeight]").await,
        json!([640, 480])
    );
    agent.quit().await;
}
