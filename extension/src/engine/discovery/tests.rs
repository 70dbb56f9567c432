//! Discovery against the fake browser: policy, listeners, report reading, bounds.

use serde_json::json;
use tabwire_shared::{Command, Discovery, Reply};

use super::super::fake::page::{report, with_tools};
use super::super::fake::Harness;
use crate::engine::page::DISCOVER;

fn discover(h: &mut Harness, id: u64, tab: i64, allowed: &[&str]) -> Discovery {
    h.call(
        id,
        Command::DiscoverTools {
            tab_id: tab,
            allowed_origins: allowed.iter().map(|s| s.to_string()).collect(),
            timeout_ms: 2000,
        },
    );
    h.settle();
    match h.reply(id).expect("a reply") {
        Ok(Reply::ThirdPartyTools { discovery }) => discovery,
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
    let call = &h.fake.sent(10, "Runtime.callFunctionOn")[0];
    assert_eq!(call["functionDeclaration"], DISCOVER);
    assert_eq!(call["arguments"][0]["value"], 1500, "the page's own budget");
    assert_eq!(call["arguments"][1]["value"], 1, "one discovery listener");
    let again = discover(&mut h, 2, 10, &["https://a.test"]);
    assert_eq!(again.document, found.document, "same document, same token");
}

#[test]
fn a_page_that_never_answers_gives_what_arrived_within_the_timeout() {
    let mut h = Harness::new();
    with_tools(&h, report(&["a"]), vec![]);
    h.fake.hold("Runtime.callFunctionOn");
    h.call(
        1,
        Command::DiscoverTools {
            tab_id: 10,
            allowed_origins: vec!["https://a.test".into()],
            timeout_ms: 2000,
        },
    );
    h.settle();
    assert!(h.reply(1).is_none());
    h.advance(2000);
    let Ok(Reply::ThirdPartyTools { discovery }) = h.reply(1).unwrap() else {
        panic!("expected a discovery");
    };
    assert!(discovery.groups.is_empty());
    assert!(discovery.problems[0].contains("did not answer tool discovery within 2000 ms"));
}

#[test]
fn an_unreadable_report_is_an_error_not_a_crash() {
    let mut h = Harness::new();
    with_tools(&h, json!({"groups": "nope"}), vec![]);
    h.call(
        1,
        Command::DiscoverTools {
            tab_id: 10,
            allowed_origins: vec!["https://a.test".into()],
            timeout_ms: 2000,
        },
    );
    h.settle();
    let error = h.reply(1).unwrap().unwrap_err();
    assert_eq!(error.code, tabwire_shared::ErrorCode::PageError);
}
