//! Running tools against the fake browser: staleness, uid arguments, outcomes, bounds.

use serde_json::{json, Value};
use tabwire_shared::{requests::*, ErrorCode, WireError};

use super::super::fake::page::{
    element, navigate_to, report, set_buttons, set_outcome, text, with_tools,
};
use super::super::fake::world::{FakeNode, Seen};
use super::super::fake::{commands, Answer, Arg, FunctionCall, Harness};
use crate::engine::page::{EXECUTE, KIT, MAX_RESULT_TEXT_READ, TAKE_NODES};

/// Discovers the fake page's tools; the document token.
fn discovered(h: &mut Harness) -> String {
    let id = 1000 + h.fake.posted().len() as u64;
    h.call(
        id,
        DiscoverThirdPartyTools {
            tab_id: 10,
            allowed_origins: vec!["https://a.test".into()],
            timeout_ms: 2000,
            automatic: false,
        },
    );
    h.settle();
    match h
        .reply_to::<DiscoverThirdPartyTools>(id)
        .expect("a discovery")
    {
        Ok(discovery) => discovery.document,
        other => panic!("{other:?}"),
    }
}

fn execute(document: &str, args: Value, timeout_ms: u64) -> RunThirdPartyTool {
    RunThirdPartyTool {
        tab_id: 10,
        document: document.to_owned(),
        tool: "t".into(),
        group: None,
        args,
        timeout_ms,
    }
}

fn run(
    h: &mut Harness,
    id: u64,
    command: RunThirdPartyTool,
) -> Result<(Value, Vec<String>), WireError> {
    h.call(id, command);
    h.settle();
    let reply = h.reply_to::<RunThirdPartyTool>(id).expect("a reply");
    reply.map(|ThirdPartyResult { result, elements }| (result, elements))
}

/// A run of the page's tool runner (`page/execute.js`), its arguments by name.
struct ToolRun {
    /// The call as sent.
    call: FunctionCall,
    /// The tool's name.
    tool: Value,
    /// The tool's group, `false` for any.
    group: Value,
    /// The arguments without their elements, as the JSON text that travelled.
    args: String,
    /// Where in `args` each element goes.
    paths: Value,
    /// The elements, as remote objects.
    elements: Vec<String>,
}

impl ToolRun {
    fn read(call: FunctionCall) -> Self {
        let value = |n: usize| call.arguments[n].as_value().cloned().unwrap_or_default();
        let elements = call.arguments[5..]
            .iter()
            .filter_map(|a| a.as_object().map(str::to_owned))
            .collect();
        Self {
            tool: value(0),
            group: value(1),
            args: value(2).as_str().unwrap_or_default().to_owned(),
            paths: value(3),
            elements,
            call,
        }
    }
}

/// The tool runs tab 10 saw, in order.
fn runs(h: &Harness) -> Vec<ToolRun> {
    let calls = h.fake.calls_of(10, EXECUTE);
    calls.into_iter().map(ToolRun::read).collect()
}

#[test]
fn a_result_comes_back_as_json() {
    let mut h = Harness::new();
    with_tools(
        &h,
        report(&["t"]),
        vec![text("ok"), text(r#"{"sum":5,"s":"@0"}"#)],
    );
    let document = discovered(&mut h);
    let (result, elements) = run(&mut h, 1, execute(&document, json!({"a": 2}), 1000)).unwrap();
    assert_eq!(result, json!({"sum": 5, "s": "@0"}));
    assert!(elements.is_empty());
    let run = &runs(&h)[0];
    assert_eq!(run.call.object_id, "kit", "run from the document's kit");
    assert_eq!(run.tool, "t");
    assert_eq!(run.group, false, "no group given");
    assert_eq!(run.args, r#"{"a":2}"#, "JSON text keeps nulls");
}

#[test]
fn a_stale_document_is_stale_tools() {
    let mut h = Harness::new();
    with_tools(&h, report(&["t"]), vec![text("ok"), text("1")]);
    let document = discovered(&mut h);
    navigate_to(&mut h, 10, "L9");
    let error = run(&mut h, 1, execute(&document, json!({}), 1000)).unwrap_err();
    assert_eq!(error.code, ErrorCode::StaleTools);
    assert!(runs(&h).is_empty(), "nothing ran");
    let fresh = discovered(&mut h);
    assert_ne!(fresh, document);
    assert!(run(&mut h, 2, execute(&fresh, json!({}), 1000)).is_ok());
}

#[test]
fn uids_at_any_depth_become_elements_in_the_registrys_world() {
    let mut h = Harness::new();
    h.engine.on_cdp_event(
        10,
        "Runtime.executionContextCreated",
        &json!({"context": {"id": 7, "auxData": {"frameId": "main", "isDefault": true}}}),
    );
    set_buttons(&h, &[(5, "Save"), (6, "Cancel")]);
    h.call(1, TakeSnapshot::whole(10));
    h.settle();
    with_tools(&h, report(&["t"]), vec![text("ok"), text("null")]);
    let document = discovered(&mut h);
    let args = json!({"target": {"uid": "1_2"}, "more": {"list": [{"uid": "1_3"}], "n": 1}});
    run(&mut h, 2, execute(&document, args, 1000)).unwrap();
    let resolved = h.fake.sent(10, "DOM.resolveNode");
    assert_eq!(resolved.len(), 2);
    assert_eq!(
        resolved[0]["backendNodeId"], 5,
        "the arguments' own order: target first"
    );
    assert_eq!(resolved[0]["executionContextId"], 7);
    let run = &runs(&h)[0];
    let args: Value = serde_json::from_str(&run.args).unwrap();
    assert_eq!(
        args,
        json!({"target": null, "more": {"list": [null], "n": 1}})
    );
    assert_eq!(run.paths, json!([["target"], ["more", "list", 0]]));
    assert_eq!(run.elements, ["node-5", "node-6"]);
}

#[test]
fn an_unknown_uid_is_an_invalid_argument_and_nothing_runs() {
    let mut h = Harness::new();
    with_tools(&h, report(&["t"]), vec![text("ok"), text("1")]);
    let document = discovered(&mut h);
    let error = run(
        &mut h,
        1,
        execute(&document, json!({"el": {"uid": "3_14"}}), 1000),
    )
    .unwrap_err();
    assert_eq!(error.code, ErrorCode::InvalidArgument);
    assert_eq!(
        error.message,
        "Element uid \"3_14\" is unknown or stale (the page may have changed). Take a new \
         snapshot (take_snapshot) and use a uid from it."
    );
    assert!(runs(&h).is_empty());
}

#[test]
fn returned_elements_become_pinned_uids_shown_by_the_next_snapshot() {
    let mut h = Harness::new();
    // A button, and a custom element a walk leaves out.
    let page = vec![
        FakeNode::shown(1, 0, "RootWebArea", "App"),
        FakeNode::shown(5, 1, "button", "Save"),
        FakeNode::hidden(77, 1, "div"),
    ];
    h.fake.set_page(10, "main", "https://a.test/", page);
    with_tools(
        &h,
        report(&["t"]),
        vec![
            text("ok"),
            text(r#"{"first":@0,"all":[@0,@1]}"#),
            element(5),
            element(77),
        ],
    );
    let document = discovered(&mut h);
    let (result, elements) = run(&mut h, 1, execute(&document, json!({}), 1000)).unwrap();
    assert_eq!(elements.len(), 2);
    assert_eq!(result["first"]["uid"], elements[0].as_str());
    assert_eq!(result["all"][1]["uid"], elements[1].as_str());
    let released = h.fake.sent(10, "Runtime.releaseObjectGroup");
    assert_eq!(released.len(), 1, "the nodes' handles are let go");

    h.call(2, TakeSnapshot::whole(10));
    h.settle();
    let Ok(snapshot) = h.reply_to::<TakeSnapshot>(2).unwrap() else {
        panic!("a snapshot");
    };
    let save = snapshot.nodes.iter().find(|n| n.name == "Save").unwrap();
    assert_eq!(save.uid, elements[0], "the same uid space");
    let last = snapshot.nodes.last().unwrap();
    assert_eq!(last.uid, elements[1]);
    assert_eq!((last.depth, last.role.as_str()), (1, "div"));
    assert_eq!(last.states, vec!["not-in-accessibility-tree"]);
    let world = h.fake.world_context(10, "main").unwrap();
    let pinned: Vec<_> = h
        .fake
        .world_calls(10)
        .into_iter()
        .filter_map(|call| match call {
            Seen::UidOf {
                context,
                node,
                pin: true,
                ..
            } => Some((context, node)),
            _ => None,
        })
        .collect();
    assert_eq!(
        pinned,
        [(world, "node-5".to_owned()), (world, "node-77".to_owned())],
        "pinned in the main frame's world"
    );
    let resolved = h.fake.sent(10, "DOM.resolveNode");
    assert_eq!(
        (
            &resolved[0]["backendNodeId"],
            &resolved[0]["executionContextId"]
        ),
        (&json!(5), &json!(world))
    );
}

#[test]
fn a_tool_that_throws_is_a_page_error_with_its_stack() {
    let mut h = Harness::new();
    with_tools(
        &h,
        report(&["t"]),
        vec![
            text("threw"),
            text("Error: boom\n    at execute (app.js:3:9)"),
        ],
    );
    let document = discovered(&mut h);
    let error = run(&mut h, 1, execute(&document, json!({}), 1000)).unwrap_err();
    assert_eq!(error.code, ErrorCode::PageError);
    assert_eq!(
        error.message,
        "Tool t threw: Error: boom\n    at execute (app.js:3:9)"
    );
    set_outcome(&h, vec![text("notFound"), text("")]);
    let error = run(&mut h, 2, execute(&document, json!({}), 1000)).unwrap_err();
    assert!(error.message.starts_with("Tool t not found"));
}

#[test]
fn a_run_status_the_engine_does_not_know_is_unreadable_page_data() {
    let mut h = Harness::new();
    with_tools(&h, report(&["t"]), vec![text("maybe"), text("1")]);
    let document = discovered(&mut h);
    let error = run(&mut h, 1, execute(&document, json!({}), 1000)).unwrap_err();
    assert_eq!(error.code, ErrorCode::PageError);
    assert!(
        error.message.contains("the tool runner's outcome"),
        "{}",
        error.message
    );
}

#[test]
fn a_hanging_tool_times_out_and_the_engine_stays_responsive() {
    let mut h = Harness::new();
    with_tools(&h, report(&["t"]), vec![text("ok"), text("1")]);
    let document = discovered(&mut h);
    h.fake.hold_on_tab("Runtime.callFunctionOn", 10);
    h.call(1, execute(&document, json!({}), 500));
    h.settle();
    h.advance(500);
    let error = h.reply(1).unwrap().unwrap_err();
    assert_eq!(error.code, ErrorCode::Timeout);
    assert_eq!(
        error.message,
        "Tool t did not finish within 500 ms; the page keeps running it. Pass a larger \
         `timeout` if it needs longer."
    );
    h.call(2, commands::evaluate_one(11, 1000));
    h.settle();
    assert!(h.reply(2).unwrap().is_ok());
}

/// A harness where call 1 runs tool `t`, held in the page.
fn a_tool_running() -> Harness {
    let mut h = Harness::new();
    with_tools(&h, report(&["t"]), vec![text("ok"), text("1")]);
    let document = discovered(&mut h);
    h.fake.hold("Runtime.callFunctionOn");
    h.call(1, execute(&document, json!({}), 60_000));
    h.settle();
    h
}

#[test]
fn a_navigation_during_the_run_is_reported_at_once() {
    let mut h = a_tool_running();
    h.engine.on_cdp_event(
        10,
        "Page.frameNavigated",
        &json!({"frame": {"id": "main", "loaderId": "L2"}, "type": "Navigation"}),
    );
    h.settle();
    let error = h.reply(1).unwrap().unwrap_err();
    assert_eq!(error.code, ErrorCode::Navigated);
}

#[test]
fn a_closed_tab_during_the_run_is_no_such_tab() {
    let mut h = a_tool_running();
    h.fake.remove_tab_silently(10);
    h.engine.on_tab_removed(10);
    h.settle();
    assert_eq!(h.reply(1).unwrap().unwrap_err().code, ErrorCode::NoSuchTab);
}

#[test]
fn a_dialog_during_the_run_is_the_dialog_error() {
    let mut h = a_tool_running();
    h.engine.on_cdp_event(
        10,
        "Page.javascriptDialogOpening",
        &json!({"type": "confirm", "message": "Sure?"}),
    );
    h.settle();
    assert_eq!(h.reply(1).unwrap().unwrap_err().code, ErrorCode::Dialog);
}

/// The kits made so far on tab 10.
fn kits_made(h: &Harness) -> usize {
    h.fake
        .sent(10, "Runtime.evaluate")
        .iter()
        .filter(|e| e["expression"] == KIT)
        .count()
}

#[test]
fn a_plain_result_takes_one_call_by_value() {
    let mut h = Harness::new();
    with_tools(&h, report(&["t"]), vec![text("ok"), text("5")]);
    let document = discovered(&mut h);
    let before = h.fake.methods(10).len();
    let (result, _) = run(&mut h, 1, execute(&document, json!({}), 1000)).unwrap();
    assert_eq!(result, json!(5));
    assert_eq!(
        h.fake.methods(10)[before..],
        ["Runtime.callFunctionOn"],
        "nothing to release either"
    );
    assert!(runs(&h)[0].call.return_by_value);
}

#[test]
fn a_destroyed_context_makes_the_tools_stale_until_discovered_again() {
    let mut h = Harness::new();
    h.engine.on_cdp_event(
        10,
        "Runtime.executionContextCreated",
        &json!({"context": {"id": 7, "auxData": {"frameId": "main", "isDefault": true}}}),
    );
    with_tools(&h, report(&["t"]), vec![text("ok"), text("1")]);
    let document = discovered(&mut h);
    h.engine.on_cdp_event(
        10,
        "Runtime.executionContextDestroyed",
        &json!({"executionContextId": 7}),
    );
    h.settle();
    let error = run(&mut h, 1, execute(&document, json!({}), 1000)).unwrap_err();
    assert_eq!(error.code, ErrorCode::StaleTools);
    assert!(runs(&h).is_empty(), "nothing ran");
    let again = discovered(&mut h);
    assert_eq!(again, document, "the same document, a new kit");
    assert_eq!(kits_made(&h), 2);
    assert!(run(&mut h, 2, execute(&again, json!({}), 1000)).is_ok());
}

#[test]
fn a_kit_chrome_no_longer_knows_is_stale_tools_and_is_replaced() {
    let mut h = Harness::new();
    with_tools(&h, report(&["t"]), vec![text("ok"), text("1")]);
    let document = discovered(&mut h);
    h.fake.hold("Runtime.callFunctionOn");
    h.call(1, execute(&document, json!({}), 1000));
    h.settle();
    h.fake
        .release_held_error("Could not find object with given id");
    h.settle();
    let error = h.reply(1).unwrap().unwrap_err();
    assert_eq!(error.code, ErrorCode::StaleTools);
    discovered(&mut h);
    assert_eq!(kits_made(&h), 2, "a new kit");
    assert!(run(&mut h, 2, execute(&document, json!({}), 1000)).is_ok());
}

#[test]
fn a_timed_out_run_lets_its_object_group_go() {
    let mut h = Harness::new();
    with_tools(&h, report(&["t"]), vec![text("ok"), text("1")]);
    let document = discovered(&mut h);
    h.fake.hold_on_tab("Runtime.callFunctionOn", 10);
    h.call(1, execute(&document, json!({}), 500));
    h.settle();
    h.advance(500);
    h.settle();
    assert_eq!(h.reply(1).unwrap().unwrap_err().code, ErrorCode::Timeout);
    let group = runs(&h)[0].call.object_group.clone();
    let released = h.fake.sent(10, "Runtime.releaseObjectGroup");
    assert!(
        released.iter().any(|r| r["objectGroup"] == group),
        "{group} released: {released:?}"
    );
}

#[test]
fn the_nodes_taken_are_the_runs_own() {
    let mut h = Harness::new();
    set_buttons(&h, &[(5, "Save")]);
    with_tools(&h, report(&["t"]), vec![text("ok"), text("@0"), element(5)]);
    let document = discovered(&mut h);
    h.fake.answer_with("Runtime.callFunctionOn", |params| {
        let function = params["functionDeclaration"].as_str().unwrap_or_default();
        if function == EXECUTE {
            Answer::value(json!({"result": {"type": "object", "value":
                {"status": "ok", "text": "@0", "nodes": 1, "run": 7}}}))
        } else if function == TAKE_NODES {
            Answer::value(
                json!({"result": {"type": "object", "subtype": "array", "objectId": "nodes"}}),
            )
        } else {
            Answer::value(json!({"result": {"type": "number", "value": 42}}))
        }
    });
    let (result, elements) = run(&mut h, 1, execute(&document, json!({}), 1000)).unwrap();
    assert_eq!(result["uid"], elements[0].as_str());
    let taken = h.fake.calls_of(10, TAKE_NODES);
    assert_eq!(taken.len(), 1);
    assert_eq!(
        taken[0].arguments,
        [Arg::value(7)],
        "run 7's nodes, no other's"
    );
}

#[test]
fn a_result_text_past_the_limit_is_refused_before_parsing() {
    let mut h = Harness::new();
    let long = "1".repeat(MAX_RESULT_TEXT_READ as usize + 1);
    with_tools(&h, report(&["t"]), vec![text("ok"), text(&long)]);
    let document = discovered(&mut h);
    let error = run(&mut h, 1, execute(&document, json!({}), 1000)).unwrap_err();
    assert_eq!(error.code, ErrorCode::PageError);
    assert!(
        error
            .message
            .contains(&format!("limit of {MAX_RESULT_TEXT_READ} characters")),
        "{}",
        error.message
    );
}
