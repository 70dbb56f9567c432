//! WebMCP against the fake browser: tools from events, runs, bounds, faults.

use serde_json::{json, Value};
use tabwire_shared::webmcp::{WebMcpOutcome, WebMcpTools};
use tabwire_shared::{requests::*, ErrorCode, Event, WireError};

use super::super::fake::page::navigate_to;
use super::super::fake::{Answer, Harness};
use crate::engine::state::webmcp::{MAX_DESCRIPTION_CHARS, MAX_NAME_CHARS};

fn tool(name: &str, annotations: Value) -> Value {
    json!({"name": name, "description": format!("{name} tool"), "frameId": "main",
           "inputSchema": {"type": "object"}, "annotations": annotations})
}

/// The page registered `tools` (Chrome announces them while `WebMCP.enable` runs).
fn registered(h: &mut Harness, tools: Vec<Value>) {
    h.engine
        .on_cdp_event(10, "WebMCP.toolsAdded", &json!({ "tools": tools }));
    h.settle();
}

fn list(h: &mut Harness, id: u64) -> Result<WebMcpTools, WireError> {
    h.call(id, ListWebMcpTools { tab_id: 10 });
    h.settle();
    h.reply_to::<ListWebMcpTools>(id).expect("a reply")
}

fn invoke(h: &mut Harness, id: u64, document: &str, name: &str) {
    h.call(
        id,
        InvokeWebMcpTool {
            tab_id: 10,
            document: document.to_owned(),
            tool: name.to_owned(),
            frame_id: None,
            input: json!({"a": 1}),
            timeout_ms: 1000,
        },
    );
    h.settle();
}

fn outcome(h: &Harness, id: u64) -> Result<WebMcpOutcome, WireError> {
    h.reply_to::<InvokeWebMcpTool>(id).expect("a reply")
}

fn changes(h: &Harness) -> usize {
    h.events_for(1)
        .iter()
        .filter(|e| matches!(e, Event::WebMcpChanged { tab_id: 10 }))
        .count()
}

#[test]
fn tools_come_from_events_and_the_domain_is_enabled_once() {
    let mut h = Harness::new();
    list(&mut h, 1).unwrap();
    registered(&mut h, vec![tool("add", json!({"readOnly": true}))]);
    let listed = list(&mut h, 2).unwrap();
    assert_eq!(listed.tools.len(), 1);
    assert_eq!(listed.tools[0].name, "add");
    assert_eq!(listed.tools[0].annotations, json!({"readOnly": true}));
    assert_eq!(h.fake.sent(10, "WebMCP.enable").len(), 1);
}

#[test]
fn a_change_is_told_once_until_the_tools_are_asked_for() {
    let mut h = Harness::new();
    list(&mut h, 1).unwrap();
    registered(&mut h, vec![tool("a", json!({}))]);
    registered(&mut h, vec![tool("b", json!({}))]);
    assert_eq!(changes(&h), 1);
    list(&mut h, 2).unwrap();
    h.engine.on_cdp_event(
        10,
        "WebMCP.toolsRemoved",
        &json!({"tools": [{"name": "a", "frameId": "main"}]}),
    );
    h.settle();
    assert_eq!(changes(&h), 2);
    let names: Vec<String> = list(&mut h, 3)
        .unwrap()
        .tools
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(names, ["b"]);
}

#[test]
fn a_new_document_drops_the_old_tools() {
    let mut h = Harness::new();
    list(&mut h, 1).unwrap();
    registered(&mut h, vec![tool("a", json!({}))]);
    navigate_to(&mut h, 10, "L9");
    let listed = list(&mut h, 2).unwrap();
    assert!(listed.tools.is_empty());
}

#[test]
fn a_run_answers_with_its_outcome() {
    let mut h = Harness::new();
    let document = list(&mut h, 1).unwrap().document;
    registered(&mut h, vec![tool("add", json!({}))]);
    h.fake.answer(
        "WebMCP.invokeTool",
        Answer::with_events(
            json!({"invocationId": "i1"}),
            vec![(
                "WebMCP.toolResponded",
                json!({"invocationId": "i1", "status": "Completed", "output": {"sum": 2}}),
            )],
        ),
    );
    invoke(&mut h, 2, &document, "add");
    let done = outcome(&h, 2).unwrap();
    assert!(done.completed());
    assert_eq!(done.output, Some(json!({"sum": 2})));
    let sent = h.fake.sent(10, "WebMCP.invokeTool");
    assert_eq!(
        sent[0],
        json!({"frameId": "main", "toolName": "add", "input": {"a": 1}})
    );
}

#[test]
fn a_throwing_tool_gives_its_exception() {
    let mut h = Harness::new();
    let document = list(&mut h, 1).unwrap().document;
    registered(&mut h, vec![tool("boom", json!({}))]);
    h.fake.answer(
        "WebMCP.invokeTool",
        Answer::with_events(
            json!({"invocationId": "i1"}),
            vec![(
                "WebMCP.toolResponded",
                json!({"invocationId": "i1", "status": "Error", "errorText": "",
                       "exception": {"type": "object", "description": "Error: kaboom"}}),
            )],
        ),
    );
    invoke(&mut h, 2, &document, "boom");
    let done = outcome(&h, 2).unwrap();
    assert_eq!(done.status, "Error");
    assert_eq!(done.error.as_deref(), Some("Error: kaboom"));
}

#[test]
fn a_tool_that_never_answers_is_cancelled() {
    let mut h = Harness::new();
    let document = list(&mut h, 1).unwrap().document;
    registered(&mut h, vec![tool("hang", json!({}))]);
    h.fake.answer(
        "WebMCP.invokeTool",
        Answer::value(json!({"invocationId": "i7"})),
    );
    invoke(&mut h, 2, &document, "hang");
    assert!(h.reply(2).is_none(), "still waiting");
    h.advance(1000);
    let error = outcome(&h, 2).unwrap_err();
    assert_eq!(error.code, ErrorCode::Timeout);
    assert!(error.message.contains("cancelled"), "{}", error.message);
    assert_eq!(
        h.fake.sent(10, "WebMCP.cancelInvocation"),
        [json!({"invocationId": "i7"})]
    );
}

#[test]
fn navigating_mid_run_ends_it() {
    let mut h = Harness::new();
    let document = list(&mut h, 1).unwrap().document;
    registered(&mut h, vec![tool("hang", json!({}))]);
    h.fake.answer(
        "WebMCP.invokeTool",
        Answer::value(json!({"invocationId": "i7"})),
    );
    invoke(&mut h, 2, &document, "hang");
    navigate_to(&mut h, 10, "L9");
    let error = outcome(&h, 2).unwrap_err();
    assert_eq!(error.code, ErrorCode::Navigated);
}

#[test]
fn an_unknown_tool_or_an_old_document_is_refused() {
    let mut h = Harness::new();
    let document = list(&mut h, 1).unwrap().document;
    invoke(&mut h, 2, &document, "nope");
    assert_eq!(outcome(&h, 2).unwrap_err().message, "Tool nope not found");
    invoke(&mut h, 3, "old", "nope");
    assert_eq!(outcome(&h, 3).unwrap_err().code, ErrorCode::StaleTools);
}

#[test]
fn hostile_registrations_are_bounded() {
    let mut h = Harness::new();
    list(&mut h, 1).unwrap();
    let long_name = "n".repeat(MAX_NAME_CHARS + 1);
    let mut wordy = tool("wordy", json!({}));
    wordy["description"] = json!("d".repeat(MAX_DESCRIPTION_CHARS * 2));
    let mut odd = tool("odd", json!({}));
    odd["inputSchema"] = json!([1]);
    odd["annotations"] = json!("not an object");
    registered(&mut h, vec![tool(&long_name, json!({})), wordy, odd]);
    let listed = list(&mut h, 2).unwrap();
    let names: Vec<&str> = listed.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["wordy"]);
    assert_eq!(
        listed.tools[0].description.chars().count(),
        MAX_DESCRIPTION_CHARS + 1
    );
    assert_eq!(listed.problems.len(), 2, "{:?}", listed.problems);
}

#[test]
fn a_browser_without_the_domain_is_refused_with_the_feature_named() {
    let mut h = Harness::new();
    h.fake.answer(
        "WebMCP.enable",
        Answer::error("'WebMCP.enable' wasn't found"),
    );
    let error = list(&mut h, 1).unwrap_err();
    assert_eq!(error.code, ErrorCode::Refused);
    assert!(
        error.message.contains("--enable-features=WebMCP"),
        "{}",
        error.message
    );
}

#[test]
fn debugging_tools_lead_the_discovery_as_their_own_group() {
    let mut h = Harness::new();
    list(&mut h, 1).unwrap();
    registered(
        &mut h,
        vec![
            tool("plain", json!({})),
            tool("dbg", json!({"debugging": true})),
        ],
    );
    h.call(
        2,
        DiscoverThirdPartyTools {
            tab_id: 10,
            allowed_origins: vec!["https://a.test".into()],
            timeout_ms: 2000,
            automatic: false,
        },
    );
    h.settle();
    let Some(Ok(discovery)) = h.reply_to::<DiscoverThirdPartyTools>(2) else {
        panic!("{:?}", h.reply(2));
    };
    assert_eq!(discovery.groups.len(), 1);
    let group = &discovery.groups[0];
    assert!(group.webmcp);
    assert_eq!(group.name, "WebMCP Tools");
    assert_eq!(group.tools.len(), 1);
    assert_eq!(group.tools[0].name, "dbg");
    assert_eq!(group.tools[0].annotations, Some(json!({"debugging": true})));
}

#[test]
fn the_tab_closing_mid_run_ends_it() {
    let mut h = Harness::new();
    let document = list(&mut h, 1).unwrap().document;
    registered(&mut h, vec![tool("hang", json!({}))]);
    h.fake.answer(
        "WebMCP.invokeTool",
        Answer::value(json!({"invocationId": "i7"})),
    );
    invoke(&mut h, 2, &document, "hang");
    h.fake.remove_tab_silently(10);
    h.engine.on_tab_removed(10);
    h.settle();
    assert_eq!(outcome(&h, 2).unwrap_err().code, ErrorCode::NoSuchTab);
}

/// WebMCP is per renderer: a cross-site frame's tools come from its own session,
/// marked with its origin, run there, and go with it.
#[test]
fn a_cross_site_frames_tools_are_listed_and_run_in_its_session() {
    let mut h = Harness::new();
    h.fake
        .add_oopif(10, None, "S1", "F1", "https://other.test/frame");
    let echo = json!({"name": "echo", "description": "e", "frameId": "F1"});
    h.fake.answer_in(
        "S1",
        "WebMCP.enable",
        Answer::with_events(
            json!({}),
            vec![("WebMCP.toolsAdded", json!({"tools": [echo]}))],
        ),
    );
    h.fake.answer_in(
        "S1",
        "WebMCP.invokeTool",
        Answer::with_events(
            json!({"invocationId": "1"}),
            vec![(
                "WebMCP.toolResponded",
                json!({"invocationId": "1", "status": "Completed", "output": "in frame"}),
            )],
        ),
    );
    // The first listing enables the domain in the frame's session too (the fake
    // tells what `WebMCP.enable` announces after its answer).
    list(&mut h, 1).unwrap();
    let listed = list(&mut h, 4).unwrap();
    let shown: Vec<_> = (listed.tools.iter())
        .map(|t| (t.name.as_str(), t.cross_site_origin.as_deref()))
        .collect();
    assert_eq!(shown, [("echo", Some("https://other.test"))]);
    assert_eq!(h.fake.sent_in(10, Some("S1"), "WebMCP.enable").len(), 1);
    invoke(&mut h, 2, &listed.document, "echo");
    assert_eq!(outcome(&h, 2).unwrap().output, Some(json!("in frame")));
    let sent = h.fake.sent_in(10, Some("S1"), "WebMCP.invokeTool");
    assert_eq!(sent[0]["frameId"], "F1");
    assert!(h.fake.sent_in(10, None, "WebMCP.invokeTool").is_empty());
    // The frame going away takes its tools along, and the agents are told.
    let before = changes(&h);
    h.fake.remove_oopif("S1");
    h.settle();
    assert_eq!(changes(&h), before + 1);
    assert!(list(&mut h, 3).unwrap().tools.is_empty());
}

#[test]
fn a_run_in_a_cross_site_frame_ends_when_the_frame_goes() {
    let mut h = Harness::new();
    h.fake
        .add_oopif(10, None, "S1", "F1", "https://other.test/frame");
    let hang = json!({"name": "hang", "description": "h", "frameId": "F1"});
    h.fake.answer_in(
        "S1",
        "WebMCP.enable",
        Answer::with_events(
            json!({}),
            vec![("WebMCP.toolsAdded", json!({"tools": [hang]}))],
        ),
    );
    h.fake.answer_in(
        "S1",
        "WebMCP.invokeTool",
        Answer::value(json!({"invocationId": "7"})),
    );
    list(&mut h, 1).unwrap();
    let document = list(&mut h, 2).unwrap().document;
    invoke(&mut h, 3, &document, "hang");
    assert!(h.reply(3).is_none(), "still running");
    h.fake.remove_oopif("S1");
    h.settle();
    let error = outcome(&h, 3).unwrap_err();
    assert_eq!(error.code, ErrorCode::Navigated);
    assert!(
        error.message.contains("cross-site frame"),
        "{}",
        error.message
    );
}
