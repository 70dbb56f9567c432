//! Discovery against the fake browser: policy, listeners, report reading, bounds.

use std::cell::Cell;
use std::rc::Rc;

use serde_json::json;
use tabwire_shared::{requests::*, Discovery};

use super::super::fake::page::{navigate_to, report, with_tools};
use super::super::fake::{Answer, Arg, Harness};
use crate::engine::page::{DISCOVER, KIT, MAX_REPORT_TEXT_READ};

/// Discovering `tab`'s tools with `allowed` origins, two seconds at most.
fn discover_tools(tab: i64, allowed: &[&str]) -> DiscoverThirdPartyTools {
    DiscoverThirdPartyTools {
        tab_id: tab,
        allowed_origins: allowed.iter().map(|s| s.to_string()).collect(),
        timeout_ms: 2000,
        automatic: false,
    }
}

fn discover(h: &mut Harness, id: u64, tab: i64, allowed: &[&str]) -> Discovery {
    h.call(id, discover_tools(tab, allowed));
    h.settle();
    match h.reply_to::<DiscoverThirdPartyTools>(id).expect("a reply") {
        Ok(discovery) => discovery,
        other => panic!("expected a discovery, got {other:?}"),
    }
}

#[test]
fn a_refused_origin_is_not_touched_at_all() {
    let mut h = Harness::new();
    let found = discover(&mut h, 1, 10, &["localhost"]);
    assert!(found.refused);
    assert_eq!(found.url, "https://a.test/");
    assert_eq!(found.origin, "https://a.test");
    assert!(found.groups.is_empty());
    assert!(
        !h.fake.is_attached(10),
        "the debugger was not even attached"
    );
    assert!(h.fake.methods(10).is_empty());
}

#[test]
fn without_a_listener_nothing_is_dispatched() {
    let mut h = Harness::new();
    let found = discover(&mut h, 1, 10, &["https://a.test"]);
    assert!(!found.refused);
    assert!(found.groups.is_empty() && found.problems.is_empty());
    assert_eq!(h.fake.sent(10, "DOMDebugger.getEventListeners").len(), 1);
    assert!(h.fake.sent(10, "Runtime.callFunctionOn").is_empty());
}

#[test]
fn the_page_report_becomes_groups_with_problems_and_duplicates() {
    let mut h = Harness::new();
    let mut answer = report(&["status", "getState"]);
    answer["groups"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "Other", "tools": [{"name": "status", "description": "again", "inputSchema": {}}]}));
    answer["problems"] = json!([
        "Tool 'x' in group 'G' was dropped: inputSchema must be an object (got undefined)."
    ]);
    with_tools(&h, answer, vec![]);
    let found = discover(&mut h, 1, 10, &["https://a.test"]);
    assert_eq!(found.groups.len(), 2);
    assert_eq!(found.groups[1].description, None);
    assert_eq!(found.problems.len(), 2);
    assert!(found.problems[1].contains("'status' is offered by both group 'G' and group 'Other'"));
    assert!(!found.document.is_empty());
    let call = &h.fake.function_calls(10)[0];
    assert_eq!(call.function, DISCOVER);
    // The page's own budget, and one discovery listener.
    assert_eq!(call.arguments[..2], [Arg::value(1500), Arg::value(1)]);
    let again = discover(&mut h, 2, 10, &["https://a.test"]);
    assert_eq!(again.document, found.document, "same document, same token");
}

#[test]
fn a_page_that_never_answers_gives_what_arrived_within_the_timeout() {
    let mut h = Harness::new();
    with_tools(&h, report(&["a"]), vec![]);
    h.fake.hold("Runtime.callFunctionOn");
    h.call(1, discover_tools(10, &["https://a.test"]));
    h.settle();
    assert!(h.reply(1).is_none());
    h.advance(2000);
    let Ok(discovery) = h.reply_to::<DiscoverThirdPartyTools>(1).unwrap() else {
        panic!("expected a discovery");
    };
    assert!(discovery.groups.is_empty());
    assert!(discovery.problems[0].contains("did not answer tool discovery within 2000 ms"));
}

#[test]
fn a_document_that_timed_out_is_not_asked_again_automatically() {
    let mut h = Harness::new();
    with_tools(&h, report(&["a"]), vec![]);
    h.fake.hold("Runtime.callFunctionOn");
    h.call(1, discover_tools(10, &["https://a.test"]));
    h.settle();
    h.advance(2000);
    assert!(h.reply(1).is_some(), "the first discovery timed out");
    let before = dispatched(&h);
    // For another tool's reply: answered at once, the page not asked.
    let automatic = DiscoverThirdPartyTools {
        tab_id: 10,
        allowed_origins: vec!["https://a.test".into()],
        timeout_ms: 2000,
        automatic: true,
    };
    h.call(2, automatic);
    h.settle();
    let Ok(discovery) = h
        .reply_to::<DiscoverThirdPartyTools>(2)
        .expect("answered at once")
    else {
        panic!("expected a discovery");
    };
    assert!(
        discovery.problems[0].contains("list_3p_developer_tools"),
        "{discovery:?}"
    );
    assert_eq!(dispatched(&h), before, "the page was not asked");
    // Asked for by the agent: the page is asked again.
    h.call(3, discover_tools(10, &["https://a.test"]));
    h.settle();
    assert_eq!(dispatched(&h), before + 1, "asked again");
}

/// How often discovery was dispatched in tab 10's page.
fn dispatched(h: &Harness) -> usize {
    h.fake
        .sent(10, "Runtime.callFunctionOn")
        .iter()
        .filter(|c| c["functionDeclaration"] == DISCOVER)
        .count()
}

#[test]
fn an_unreadable_report_is_an_error_not_a_crash() {
    let mut h = Harness::new();
    with_tools(&h, json!({"groups": "nope"}), vec![]);
    h.call(1, discover_tools(10, &["https://a.test"]));
    h.settle();
    let error = h.reply(1).unwrap().unwrap_err();
    assert_eq!(error.code, tabwire_shared::ErrorCode::PageError);
}

/// The kits made so far on tab 10 (`Runtime.evaluate` of the kit script).
fn kits_made(h: &Harness) -> usize {
    h.fake
        .sent(10, "Runtime.evaluate")
        .iter()
        .filter(|e| e["expression"] == KIT)
        .count()
}

#[test]
fn the_kit_is_made_once_per_document_and_rediscovery_takes_two_steps() {
    let mut h = Harness::new();
    with_tools(&h, report(&["a"]), vec![]);
    discover(&mut h, 1, 10, &["https://a.test"]);
    assert_eq!(kits_made(&h), 1);
    let before = h.fake.methods(10).len();
    let again = discover(&mut h, 2, 10, &["https://a.test"]);
    assert_eq!(again.groups[0].tools[0].name, "a");
    assert_eq!(kits_made(&h), 1, "the same kit");
    let sent = &h.fake.methods(10)[before..];
    assert_eq!(
        sent,
        [
            "Page.getFrameTree",
            "DOMDebugger.getEventListeners",
            "Runtime.callFunctionOn"
        ]
    );
    let listeners = h.fake.sent(10, "DOMDebugger.getEventListeners");
    assert_eq!(listeners[1]["objectId"], "global", "the window's listeners");
    let dispatch = h.fake.sent(10, "Runtime.callFunctionOn");
    assert_eq!(dispatch[1]["objectId"], "kit");
    assert_eq!(dispatch[1]["returnByValue"], true, "the report by value");
}

#[test]
fn a_new_document_gets_a_new_kit() {
    let mut h = Harness::new();
    with_tools(&h, report(&["a"]), vec![]);
    let first = discover(&mut h, 1, 10, &["https://a.test"]);
    // Navigated, and Chrome said so.
    navigate_to(&mut h, 10, "L2");
    let second = discover(&mut h, 2, 10, &["https://a.test"]);
    assert_eq!(kits_made(&h), 2);
    assert_ne!(second.document, first.document);
    // Reloaded, and the event was missed: the frame tree tells.
    h.fake.answer(
        "Page.getFrameTree",
        Answer::value(
            json!({"frameTree": {"frame": {"id": "main", "loaderId": "L3", "url": "https://a.test/"}}}),
        ),
    );
    let third = discover(&mut h, 3, 10, &["https://a.test"]);
    assert_eq!(kits_made(&h), 3);
    assert_ne!(third.document, second.document);
    assert_eq!(third.groups.len(), 1);
}

#[test]
fn a_destroyed_context_takes_its_kit_along() {
    let mut h = Harness::new();
    let context = |h: &mut Harness, method: &str, params: serde_json::Value| {
        h.engine.on_cdp_event(10, method, &params);
        h.settle();
    };
    context(
        &mut h,
        "Runtime.executionContextCreated",
        json!({"context": {"id": 7, "auxData": {"frameId": "main", "isDefault": true}}}),
    );
    with_tools(&h, report(&["a"]), vec![]);
    discover(&mut h, 1, 10, &["https://a.test"]);
    context(
        &mut h,
        "Runtime.executionContextDestroyed",
        json!({"executionContextId": 7}),
    );
    discover(&mut h, 2, 10, &["https://a.test"]);
    assert_eq!(kits_made(&h), 2);
    context(&mut h, "Runtime.executionContextsCleared", json!({}));
    discover(&mut h, 3, 10, &["https://a.test"]);
    assert_eq!(kits_made(&h), 3);
}

#[test]
fn a_kit_chrome_no_longer_knows_is_replaced_transparently() {
    let mut h = Harness::new();
    with_tools(&h, report(&["a"]), vec![]);
    discover(&mut h, 1, 10, &["https://a.test"]);
    // The next listeners call names the old window: Chrome has forgotten it.
    let calls = Rc::new(Cell::new(0));
    let seen = calls.clone();
    h.fake
        .answer_with("DOMDebugger.getEventListeners", move |_| {
            seen.set(seen.get() + 1);
            if seen.get() == 1 {
                Answer::error("Could not find object with given id")
            } else {
                Answer::value(json!({"listeners": [{"type": "devtoolstooldiscovery"}]}))
            }
        });
    let found = discover(&mut h, 2, 10, &["https://a.test"]);
    assert_eq!(found.groups[0].tools[0].name, "a");
    assert!(found.problems.is_empty());
    assert_eq!(kits_made(&h), 2);
    assert_eq!(calls.get(), 2);
    let released = h.fake.sent(10, "Runtime.releaseObjectGroup");
    assert!(
        released.iter().any(|r| r["objectGroup"]
            .as_str()
            .unwrap_or_default()
            .starts_with("tabwire-kit-")),
        "what was left of the old kit is released: {released:?}"
    );
}

#[test]
fn a_refused_document_gets_no_kit() {
    let mut h = Harness::new();
    with_tools(&h, report(&["a"]), vec![]);
    discover(&mut h, 1, 10, &["https://a.test"]);
    // The same document, another agent's policy: refused before anything is sent.
    let before = h.fake.methods(10).len();
    let refused = discover(&mut h, 2, 10, &["https://b.test"]);
    assert!(refused.refused);
    assert_eq!(h.fake.methods(10).len(), before);
}

#[test]
fn a_report_past_the_limit_is_refused_before_parsing() {
    let mut h = Harness::new();
    let long = "x".repeat(MAX_REPORT_TEXT_READ as usize);
    with_tools(&h, json!({"groups": [], "problems": [long]}), vec![]);
    h.call(1, discover_tools(10, &["https://a.test"]));
    h.settle();
    let error = h.reply(1).unwrap().unwrap_err();
    assert_eq!(error.code, tabwire_shared::ErrorCode::PageError);
    assert!(
        error
            .message
            .contains(&format!("limit of {MAX_REPORT_TEXT_READ} characters")),
        "{}",
        error.message
    );
}

#[test]
fn a_kit_still_being_made_at_the_timeout_is_let_go() {
    let mut h = Harness::new();
    with_tools(&h, report(&["a"]), vec![]);
    h.fake.hold("Runtime.evaluate");
    h.call(1, discover_tools(10, &["https://a.test"]));
    h.settle();
    h.advance(2000);
    h.settle();
    assert!(h.reply(1).unwrap().is_ok());
    let made = h.fake.sent(10, "Runtime.evaluate");
    let group = made[0]["objectGroup"].clone();
    assert!(group.as_str().unwrap().starts_with("tabwire-kit-"));
    let released = h.fake.sent(10, "Runtime.releaseObjectGroup");
    assert!(
        released.iter().any(|r| r["objectGroup"] == group),
        "{group} released: {released:?}"
    );
}
