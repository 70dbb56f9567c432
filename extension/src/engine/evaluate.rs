//! `Evaluate`: call a function declaration in the page's main world with JSON
//! arguments, await it, and return its JSON result.
//!
//! Three CDP steps: `Runtime.compileScript` tells a syntax error apart from an
//! exception thrown at run time; `Runtime.evaluate("this")` gets the main world's
//! global object; `Runtime.callFunctionOn` on it passes the arguments by value (no
//! string splicing, no page builtins involved). An object result is then written as
//! JSON text page-side with the builtins captured before the page ran ([`page::STRINGIFY`]),
//! because chrome.debugger sorts the keys of objects it returns by value and the agent
//! must see them in the page's order; other results come back by value. The page can
//! redefine any builtin it likes: nothing here relies on one it could replace.
//!
//! Arguments may hold elements as `{"uid": ...}` (at any depth), as the reference's
//! `evaluate_script` takes them: a top-level one is passed as the element itself, a
//! nested one is put in place page-side ([`page::SPLICE`]) and the argument passed by
//! reference. So is an argument holding a `null` or an object of more than one key:
//! chrome.debugger drops the `null` members of objects it is given and sorts their
//! keys, so such arguments travel as JSON text. Other arguments are passed by value.

use serde_json::Value;

use crate::json_text;
use tabwire_shared::TabId;

use super::elements::{element_objects, find_uid_refs, UidRefs};
use super::page;
use crate::cdp::refusal::Refusal;
use crate::cdp::{
    CallArgument, CdpCommand, Evaluated, RemoteObject, RuntimeCallFunctionOn, RuntimeCompileScript,
    RuntimeEvaluate,
};
use crate::chrome::Chrome;
use crate::engine::context::Cx;
use crate::error::EngineError;
use crate::signals::Subscription;

/// Runs `function(...args)` in `tab` and returns its JSON result.
pub(super) async fn evaluate<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    function: &str,
    args: Vec<Value>,
    timeout_ms: u64,
) -> Result<Value, EngineError> {
    let run = call_in_page(cx, tab, function, args);
    cx.in_time(tab, timeout_ms, run)
        .await?
        .ok_or(EngineError::EvaluateTimeout(timeout_ms))
}

async fn call_in_page<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    function: &str,
    args: Vec<Value>,
) -> Result<Value, EngineError> {
    let mut watch = cx.ready(tab).await?;
    // Each call's remote objects get their own group, released when it is done.
    let group = cx.next_object_group();

    let compile = RuntimeCompileScript {
        expression: format!("({function}\n)"),
        source_url: String::new(),
        persist_script: false,
    };
    let compiled = cx.send_watched(tab, &mut watch, &compile).await?;
    if let Some(details) = compiled.exception_details {
        return Err(EngineError::SyntaxError(details.describe()));
    }

    let global = RuntimeEvaluate {
        expression: "this".to_owned(),
        object_group: group.clone(),
        return_by_value: false,
    };
    let global = cx.send_watched(tab, &mut watch, &global).await?;
    let Some(global_id) = global.result.object_id else {
        return Err(EngineError::UnexpectedAnswer {
            method: RuntimeEvaluate::METHOD,
            detail: "no global object".to_owned(),
        });
    };

    let refs: Vec<UidRefs> = args.iter().map(find_uid_refs).collect();
    let by_value = refs.iter().all(|r| r.uids.is_empty()) && !args.iter().any(travels_as_text);
    let arguments = if by_value {
        args.into_iter().map(CallArgument::value).collect()
    } else {
        let elements = element_arguments(cx, tab, &mut watch, &global_id, refs, &group).await;
        match elements {
            Ok(arguments) => arguments,
            Err(error) => {
                cx.release_objects(tab, group);
                return Err(error);
            }
        }
    };
    let call = RuntimeCallFunctionOn {
        function_declaration: function.to_owned(),
        object_id: global_id.clone(),
        arguments,
        object_group: group.clone(),
        return_by_value: false,
        await_promise: true,
        user_gesture: true,
    };
    let outcome = match cx.send_watched(tab, &mut watch, &call).await {
        Ok(evaluated) => read_result(cx, tab, &mut watch, &global_id, evaluated, &group).await,
        Err(other) => Err(other),
    };
    cx.release_objects(tab, group);
    match outcome {
        Err(EngineError::Cdp { message, .. }) => Err(explain_refusal(tab, message)),
        other => other,
    }
}

/// The JSON of a call's result: an object as the page-side text of it (keys in the
/// page's order), anything else as Chrome describes it.
async fn read_result<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    global: &str,
    evaluated: Evaluated,
    group: &str,
) -> Result<Value, EngineError> {
    if let Some(thrown) = thrown_object(&evaluated) {
        let written = json_text(cx, tab, watch, global, thrown, group).await?;
        return match &written.result.value {
            Some(Value::String(text)) if written.exception_details.is_none() => {
                Err(EngineError::Threw(describe_thrown(text)))
            }
            _ => into_json(evaluated),
        };
    }
    let result = &evaluated.result;
    let plain_object = evaluated.exception_details.is_none()
        && result.kind == "object"
        && !matches!(result.subtype.as_deref(), Some("node" | "window" | "null"));
    let Some(object) = result.object_id.clone().filter(|_| plain_object) else {
        return into_json(evaluated);
    };
    let written = json_text(cx, tab, watch, global, object.clone(), group).await?;
    if let Some(details) = written.exception_details {
        // A cycle, or a `toJSON` that threw: the value has no JSON form.
        return Err(EngineError::NotSerializable(details.describe()));
    }
    match &written.result.value {
        Some(Value::String(text)) => {
            let too_deep = || {
                EngineError::ResultTooBig(format!(
                    "nested more than {} levels deep",
                    page::MAX_DEPTH
                ))
            };
            let value: Value = json_text::parse(text).map_err(|e| {
                // The parser stops at 128 levels: deeper than tabwire carries anyway.
                if e.to_string().starts_with("recursion limit exceeded") {
                    too_deep()
                } else {
                    EngineError::UnreadablePageData(format!("the result's JSON text: {e}"))
                }
            })?;
            if depth(&value) > page::MAX_DEPTH as usize {
                return Err(too_deep());
            }
            return Ok(value);
        }
        Some(Value::Number(length)) => {
            return Err(EngineError::ResultTooBig(format!(
                "{length} characters of JSON, more than the {} tabwire carries",
                page::MAX_RESULT_TEXT
            )));
        }
        _ => {}
    }
    if written.result.kind == "undefined" && written.result.object_id.is_none() {
        // The page broke JSON.stringify before tabwire attached: read it by value.
        let itself = RuntimeCallFunctionOn {
            function_declaration: page::ITSELF.to_owned(),
            object_id: object,
            arguments: Vec::new(),
            object_group: group.to_owned(),
            return_by_value: true,
            await_promise: false,
            user_gesture: false,
        };
        return into_json(cx.send_watched(tab, watch, &itself).await?);
    }
    into_json(written)
}

/// `object` written as JSON text page-side, with the builtins captured before the
/// page ran: a string, or the length when longer than tabwire carries.
async fn json_text<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    global: &str,
    object: String,
    group: &str,
) -> Result<Evaluated, EngineError> {
    let stringify = RuntimeCallFunctionOn {
        function_declaration: page::STRINGIFY.to_owned(),
        object_id: global.to_owned(),
        arguments: vec![
            CallArgument::object(object),
            CallArgument::value(Value::from(page::MAX_RESULT_TEXT)),
        ],
        object_group: group.to_owned(),
        return_by_value: true,
        await_promise: false,
        user_gesture: false,
    };
    cx.send_watched(tab, watch, &stringify).await
}

/// The call's arguments with their uids resolved: an argument that is a uid
/// object becomes the element; one with uids or nulls inside is built page-side.
async fn element_arguments<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    global: &str,
    refs: Vec<UidRefs>,
    group: &str,
) -> Result<Vec<CallArgument>, EngineError> {
    cx.sync_document(tab, watch).await?;
    let frame = cx
        .with_document(tab, |d| d.frame_id.clone())
        .unwrap_or_default();
    let context = cx.main_world(tab, &frame);
    let mut arguments = Vec::with_capacity(refs.len());
    for arg in refs {
        if arg.uids.is_empty() && !travels_as_text(&arg.value) {
            arguments.push(CallArgument::value(arg.value));
            continue;
        }
        let objects = element_objects(cx, tab, watch, &arg.uids, group, context).await?;
        if arg.paths.len() == 1 && arg.paths[0].is_empty() {
            arguments.extend(objects.into_iter().map(CallArgument::object));
            continue;
        }
        let mut splice_args = vec![
            CallArgument::value(Value::String(arg.value.to_string())),
            CallArgument::value(Value::from(arg.paths)),
        ];
        splice_args.extend(objects.into_iter().map(CallArgument::object));
        let splice = RuntimeCallFunctionOn {
            function_declaration: page::SPLICE.to_owned(),
            object_id: global.to_owned(),
            arguments: splice_args,
            object_group: group.to_owned(),
            return_by_value: false,
            await_promise: false,
            user_gesture: false,
        };
        let spliced = cx.send_watched(tab, watch, &splice).await?;
        match (spliced.exception_details, spliced.result) {
            (
                None,
                RemoteObject {
                    object_id: Some(object),
                    ..
                },
            ) => arguments.push(CallArgument::object(object)),
            // A primitive (a top-level `null`): passed by value, as well as
            // chrome.debugger allows (it turns a `null` argument into `undefined`).
            (None, primitive) => {
                arguments.push(CallArgument::value(primitive.value.unwrap_or_default()))
            }
            (Some(details), _) => {
                return Err(EngineError::UnreadablePageData(format!(
                    "putting elements into an argument failed: {}",
                    details.describe()
                )))
            }
        }
    }
    Ok(arguments)
}

/// How deeply a JSON value nests (a scalar is 0), counted without recursion.
fn depth(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 0)];
    while let Some((value, level)) = stack.pop() {
        deepest = deepest.max(level);
        match value {
            Value::Array(items) => stack.extend(items.iter().map(|v| (v, level + 1))),
            Value::Object(map) => stack.extend(map.values().map(|v| (v, level + 1))),
            _ => {}
        }
    }
    deepest
}

/// Whether an argument must travel as JSON text: it holds a `null` (chrome.debugger
/// drops those) or an object whose key order could be lost (it sorts keys).
fn travels_as_text(value: &Value) -> bool {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Null => return true,
            Value::Array(items) => stack.extend(items),
            Value::Object(map) if map.len() > 1 => return true,
            Value::Object(map) => stack.extend(map.values()),
            _ => {}
        }
    }
    false
}

/// How much of a thrown object's JSON an error shows.
const THROWN_JSON_CHARS: usize = 4000;

/// The handle of what the call threw, when that is an object but no `Error` (those
/// Chrome describes with their message and stack).
fn thrown_object(evaluated: &Evaluated) -> Option<String> {
    let thrown = evaluated.exception_details.as_ref()?.exception.as_ref()?;
    let plain = thrown.kind == "object" && thrown.subtype.is_none();
    thrown.object_id.clone().filter(|_| plain)
}

/// A thrown object as the page made it: its JSON, after its name and message when it
/// has them.
fn describe_thrown(json: &str) -> String {
    let value: Value = json_text::parse(json).unwrap_or(Value::Null);
    let said = match (value.get("name"), value.get("message")) {
        (Some(Value::String(name)), Some(Value::String(message))) if !name.is_empty() => {
            format!("{name}: {message} ")
        }
        (_, Some(Value::String(message))) => format!("{message} "),
        _ => String::new(),
    };
    let count = json.chars().count();
    if count > THROWN_JSON_CHARS {
        let head: String = json.chars().take(THROWN_JSON_CHARS).collect();
        format!("{said}{head}\u{2026} ({count} characters)")
    } else {
        format!("{said}{json}")
    }
}

/// The JSON result of a finished call, or why there is none.
fn into_json(evaluated: Evaluated) -> Result<Value, EngineError> {
    if let Some(details) = evaluated.exception_details {
        return Err(EngineError::Threw(details.describe()));
    }
    let result = evaluated.result;
    // `null` comes as `{"type": "object", "subtype": "null", "value": null}`: its value
    // reads as absent, so it is told by its subtype.
    if result.kind == "undefined" || result.subtype.as_deref() == Some("null") {
        return Ok(Value::Null);
    }
    // Chrome "returns" functions, symbols and DOM nodes by value as `{}`: refuse them
    // rather than hand the agent an empty object it would misread.
    let opaque = matches!(result.kind.as_str(), "function" | "symbol")
        || matches!(result.subtype.as_deref(), Some("node" | "window"));
    if opaque {
        let what = match (result.description, result.subtype.as_deref()) {
            (Some(description), _) => format!("`{description}`"),
            (None, Some("node")) => "a DOM node".to_owned(),
            (None, _) => format!("a {}", result.kind),
        };
        return Err(EngineError::NotSerializable(what));
    }
    if let Some(special) = result.unserializable_value {
        return match special.as_str() {
            "-0" => Ok(Value::from(0)),
            _ => Err(EngineError::NotSerializable(special)),
        };
    }
    match result.value {
        Some(value) => Ok(value),
        None => Err(EngineError::NotSerializable(
            result.description.unwrap_or(result.kind),
        )),
    }
}

/// Chrome refused the call itself: the page navigated, or the result cannot be sent.
fn explain_refusal(tab: TabId, message: String) -> EngineError {
    if Refusal::of(&message) == Some(Refusal::ContextGone) {
        EngineError::Navigated(tab)
    } else {
        EngineError::EvaluateRefused(message)
    }
}

/// Runs the function in the page.
impl super::Handle for tabwire_shared::Evaluate {
    const NEEDS_RENDERER: bool = true;

    async fn handle<C: Chrome + 'static>(self, cx: &Cx<'_, C>) -> Result<Self::Reply, EngineError> {
        evaluate(cx, self.tab_id, &self.function, self.args, self.timeout_ms).await
    }
}

#[cfg(test)]
mod tests {
    use super::super::fake::{Answer, Arg, FunctionCall, Harness};
    use serde_json::{json, Value};
    use tabwire_shared::{requests::*, ErrorCode};

    fn evaluate(tab_id: i64, function: &str, args: Vec<Value>) -> Evaluate {
        Evaluate {
            tab_id,
            function: function.into(),
            args,
            timeout_ms: 2000,
        }
    }

    fn result(value: Value) -> Answer {
        Answer::value(json!({ "result": value }))
    }

    #[test]
    fn returns_the_functions_json_result_with_keys_in_the_pages_order() {
        let mut h = Harness::new();
        h.fake.answer_with("Runtime.callFunctionOn", |params| {
            let call = FunctionCall::read(params);
            if call.function == super::page::STRINGIFY {
                assert_eq!(
                    call.arguments,
                    [Arg::object("r1"), Arg::value(super::page::MAX_RESULT_TEXT)]
                );
                result(json!({"type": "string", "value": "{\"z\":1,\"a\":[1]}"}))
            } else {
                result(json!({"type": "object", "objectId": "r1"}))
            }
        });
        h.call(1, evaluate(10, "(x) => ({z: 1, a: [x]})", vec![json!(1)]));
        h.settle();
        let Ok(value) = h.reply_to::<Evaluate>(1).unwrap() else {
            panic!("no value");
        };
        assert_eq!(value.to_string(), r#"{"z":1,"a":[1]}"#);
        let calls = h.fake.function_calls(10);
        let call = &calls[0];
        assert_eq!(call.function, "(x) => ({z: 1, a: [x]})");
        assert_eq!(call.object_id, "global");
        assert_eq!(call.arguments, [Arg::value(1)]);
        assert!(call.await_promise && !call.return_by_value && call.user_gesture);
        assert_eq!(calls[1].object_id, "global");
        assert!(calls[1].return_by_value);
    }

    #[test]
    fn results_too_long_or_too_deep_are_refused_with_advice() {
        let deep = format!("{}1{}", "[".repeat(70), "]".repeat(70));
        // Deeper than the JSON parser goes (128 levels): the same advice.
        let deeper = format!("{}1{}", "[".repeat(250), "]".repeat(250));
        for (n, written) in [json!(20_000_000), json!(deep), json!(deeper)]
            .into_iter()
            .enumerate()
        {
            let mut h = Harness::new();
            let answer = written.clone();
            h.fake.answer_with("Runtime.callFunctionOn", move |params| {
                if params["functionDeclaration"] == super::page::STRINGIFY {
                    let kind = if answer.is_string() {
                        "string"
                    } else {
                        "number"
                    };
                    result(json!({"type": kind, "value": answer}))
                } else {
                    result(json!({"type": "object", "objectId": "r1"}))
                }
            });
            h.call(1, evaluate(10, "() => big", vec![]));
            h.settle();
            let error = h.reply(1).unwrap().unwrap_err();
            assert_eq!(error.code, ErrorCode::PageError);
            let expected = if n == 0 {
                "20000000 characters"
            } else {
                "levels deep"
            };
            assert!(error.message.contains(expected), "{}", error.message);
            assert!(error.message.contains("Return less"), "{}", error.message);
        }
    }

    #[test]
    fn objects_of_several_keys_travel_as_text() {
        let mut h = Harness::new();
        h.fake.answer_with("Runtime.callFunctionOn", |params| {
            if params["functionDeclaration"] == super::page::SPLICE {
                result(json!({"type": "object", "objectId": "arg"}))
            } else {
                result(json!({"type": "number", "value": 3}))
            }
        });
        h.call(
            1,
            evaluate(10, "(o, n) => 3", vec![json!({"z": 1, "a": 2}), json!(5)]),
        );
        h.settle();
        assert_eq!(h.reply_to::<Evaluate>(1).unwrap(), Ok(json!(3)));
        let calls = h.fake.function_calls(10);
        assert_eq!(calls[0].arguments[0], Arg::value(r#"{"z":1,"a":2}"#));
        assert_eq!(calls[1].arguments, [Arg::object("arg"), Arg::value(5)]);
    }

    #[test]
    fn undefined_becomes_null() {
        let mut h = Harness::new();
        h.fake.answer(
            "Runtime.callFunctionOn",
            result(json!({"type": "undefined"})),
        );
        h.call(1, evaluate(10, "() => {}", vec![]));
        h.settle();
        assert_eq!(h.reply_to::<Evaluate>(1).unwrap(), Ok(Value::Null));
    }

    #[test]
    fn null_is_returned_as_null() {
        let mut h = Harness::new();
        h.fake.answer(
            "Runtime.callFunctionOn",
            result(json!({"type": "object", "subtype": "null", "value": null})),
        );
        h.call(1, evaluate(10, "() => null", vec![]));
        h.settle();
        assert_eq!(h.reply_to::<Evaluate>(1).unwrap(), Ok(Value::Null));
    }

    #[test]
    fn a_thrown_error_reports_message_and_stack() {
        let mut h = Harness::new();
        h.fake.answer(
            "Runtime.callFunctionOn",
            Answer::value(json!({
                "result": {"type": "object", "subtype": "error"},
                "exceptionDetails": {"text": "Uncaught", "exception": {
                    "type": "object", "description": "Error: boom\n    at <anonymous>:1:13"}}
            })),
        );
        h.call(1, evaluate(10, "() => { throw new Error('boom') }", vec![]));
        h.settle();
        let error = h.failed(1, ErrorCode::PageError, "Error: boom");
        assert!(error.message.contains("at <anonymous>"));
    }

    #[test]
    fn a_syntax_error_is_reported_as_such_and_nothing_runs() {
        let mut h = Harness::new();
        h.fake.answer(
            "Runtime.compileScript",
            Answer::value(
                json!({"exceptionDetails": {"text": "Uncaught", "exception": {
                "type": "object", "description": "SyntaxError: Unexpected token ')'"}}}),
            ),
        );
        h.call(1, evaluate(10, "() => )", vec![]));
        h.settle();
        let error = h.failed(1, ErrorCode::PageError, "does not compile");
        assert!(error.message.contains("SyntaxError"));
        assert!(h.fake.sent(10, "Runtime.callFunctionOn").is_empty());
    }

    #[test]
    fn unserialisable_results_get_a_hint() {
        let mut h = Harness::new();
        h.fake.answer(
            "Runtime.callFunctionOn",
            result(json!({"type": "function", "description": "() => 1", "value": {}})),
        );
        h.call(1, evaluate(10, "() => () => 1", vec![]));
        h.settle();
        h.failed(1, ErrorCode::PageError, "JSON-serialisable");

        h.fake.answer(
            "Runtime.callFunctionOn",
            Answer::error("Object reference chain is too long"),
        );
        h.call(2, evaluate(10, "() => window", vec![]));
        h.settle();
        h.failed(2, ErrorCode::PageError, "JSON-serialisable");

        h.fake.answer(
            "Runtime.callFunctionOn",
            result(
                json!({"type": "object", "subtype": "node", "description": "body", "value": {}}),
            ),
        );
        h.call(3, evaluate(10, "() => document.body", vec![]));
        h.settle();
        assert!(h.reply(3).unwrap().unwrap_err().message.contains("`body`"));

        h.fake.answer(
            "Runtime.callFunctionOn",
            result(json!({"type": "number", "unserializableValue": "NaN"})),
        );
        h.call(4, evaluate(10, "() => NaN", vec![]));
        h.settle();
        assert_eq!(h.reply(4).unwrap().unwrap_err().code, ErrorCode::PageError);
    }

    #[test]
    fn times_out_and_says_the_page_keeps_running_it() {
        let mut h = Harness::new();
        h.fake.hold("Runtime.callFunctionOn");
        h.call(1, evaluate(10, "() => new Promise(() => {})", vec![]));
        h.settle();
        h.advance(2000);
        let error = h.reply(1).unwrap().unwrap_err();
        assert_eq!(error.code, ErrorCode::Timeout);
        assert_eq!(
            error.message,
            "The function did not finish within 2000 ms; the page keeps running it. Pass a \
             larger `timeout` if it needs longer. A page stuck in it (a loop that never ends) \
             answers nothing more, not even a reload: close it with close_page."
        );
    }

    #[test]
    fn a_dialog_opening_during_the_call_ends_it() {
        let mut h = Harness::new();
        h.fake.hold("Runtime.callFunctionOn");
        h.call(1, evaluate(10, "() => confirm('Sure?')", vec![]));
        h.settle();
        h.engine.on_cdp_event(
            10,
            "Page.javascriptDialogOpening",
            &json!({"type": "confirm", "message": "Sure?", "defaultPrompt": ""}),
        );
        h.settle();
        let error = h.failed(1, ErrorCode::Dialog, "confirm");
        assert!(error.message.contains("Sure?"));
        assert!(error
            .message
            .contains("call handle_dialog to accept or dismiss it"));

        h.call(2, evaluate(10, "() => 1", vec![]));
        h.settle();
        assert_eq!(
            h.reply(2).unwrap().unwrap_err().code,
            ErrorCode::Dialog,
            "a dialog that is still open blocks the next call at once"
        );
    }

    #[test]
    fn a_detach_during_the_call_ends_it() {
        let mut h = Harness::new();
        h.fake.hold("Runtime.callFunctionOn");
        h.call(1, evaluate(10, "() => 1", vec![]));
        h.settle();
        h.engine.on_debugger_detached(10, "canceled_by_user");
        h.settle();
        h.failed(1, ErrorCode::Detached, "canceled_by_user");
    }

    #[test]
    fn a_closed_tab_during_the_call_is_no_such_tab() {
        let mut h = Harness::new();
        h.fake.hold("Runtime.callFunctionOn");
        h.call(1, evaluate(10, "() => 1", vec![]));
        h.settle();
        h.fake.remove_tab_silently(10);
        h.fake
            .release_held_error("Inspected target navigated or closed");
        h.settle();
        assert_eq!(h.reply(1).unwrap().unwrap_err().code, ErrorCode::NoSuchTab);
    }

    #[test]
    fn a_navigation_during_the_call_is_reported() {
        let mut h = Harness::new();
        h.fake.hold("Runtime.callFunctionOn");
        h.call(1, evaluate(10, "() => 1", vec![]));
        h.settle();
        h.fake
            .release_held_error("Execution context was destroyed.");
        h.settle();
        assert_eq!(h.reply(1).unwrap().unwrap_err().code, ErrorCode::Navigated);
    }

    #[test]
    fn unknown_tabs_are_reported_without_attaching() {
        let mut h = Harness::new();
        h.call(1, evaluate(99, "() => 1", vec![]));
        h.settle();
        assert_eq!(h.reply(1).unwrap().unwrap_err().code, ErrorCode::NoSuchTab);
    }

    #[test]
    fn calls_on_two_tabs_run_concurrently() {
        let mut h = Harness::new();
        h.fake.hold_on_tab("Runtime.callFunctionOn", 10);
        h.call(1, evaluate(10, "() => 'slow'", vec![]));
        h.call(2, evaluate(11, "() => 'fast'", vec![]));
        h.settle();
        assert!(h.reply(1).is_none(), "tab 10 is still running");
        assert!(
            h.reply(2).unwrap().is_ok(),
            "tab 11 did not wait for tab 10"
        );
        h.fake
            .release_held(json!({"result": {"type": "string", "value": "slow"}}));
        h.settle();
        assert_eq!(h.reply_to::<Evaluate>(1).unwrap(), Ok(json!("slow")));
    }
}

#[cfg(test)]
mod thrown_tests {
    use super::describe_thrown;

    #[test]
    fn a_thrown_object_reads_as_its_json_after_its_name_and_message() {
        assert_eq!(
            describe_thrown(r#"{"code":"E_CART"}"#),
            r#"{"code":"E_CART"}"#
        );
        assert_eq!(
            describe_thrown(r#"{"name":"ValidationError","message":"negative","field":"total"}"#),
            r#"ValidationError: negative {"name":"ValidationError","message":"negative","field":"total"}"#
        );
        assert_eq!(
            describe_thrown(r#"{"message":"late"}"#),
            r#"late {"message":"late"}"#
        );
        let long = format!(r#"{{"x":"{}"}}"#, "y".repeat(5000));
        let shown = describe_thrown(&long);
        assert!(shown.ends_with("\u{2026} (5008 characters)"), "{shown}");
        assert_eq!(
            shown.chars().count(),
            4000 + "\u{2026} (5008 characters)".chars().count()
        );
    }
}

#[cfg(test)]
mod uid_tests {
    use super::super::fake::page::{set_buttons, with_tools};
    use super::super::fake::{Arg, Harness};
    use crate::engine::page::SPLICE;
    use serde_json::{json, Value};
    use tabwire_shared::requests::*;

    fn evaluate(args: Vec<Value>) -> Evaluate {
        Evaluate {
            tab_id: 10,
            function: "(a, b) => 1".into(),
            args,
            timeout_ms: 1000,
        }
    }

    #[test]
    fn uid_arguments_are_passed_as_elements_at_any_depth() {
        let mut h = Harness::new();
        set_buttons(&h, &[(5, "Save")]);
        h.call(1, TakeSnapshot::whole(10));
        h.settle();
        with_tools(&h, json!({"groups": []}), vec![]);
        h.call(
            2,
            evaluate(vec![
                json!({"uid": "1_2"}),
                json!({"list": [{"uid": "1_2"}]}),
                json!(3),
            ]),
        );
        h.settle();
        assert_eq!(h.reply_to::<Evaluate>(2).unwrap(), Ok(json!(42)));
        let calls = h.fake.function_calls(10);
        let splice = &calls[0];
        assert_eq!(splice.function, SPLICE);
        assert_eq!(
            splice.arguments,
            [
                Arg::value(r#"{"list":[null]}"#),
                Arg::value(json!([["list", 0]])),
                Arg::object("node-5")
            ]
        );
        assert_eq!(
            calls[1].arguments,
            [Arg::object("node-5"), Arg::object("spliced"), Arg::value(3)]
        );
    }

    #[test]
    fn arguments_holding_nulls_travel_as_text() {
        let mut h = Harness::new();
        with_tools(&h, json!({"groups": []}), vec![]);
        h.call(
            1,
            evaluate(vec![Value::Null, json!({"a": null}), json!([1])]),
        );
        h.settle();
        assert!(h.reply(1).unwrap().is_ok());
        let calls = h.fake.function_calls(10);
        assert_eq!(calls[0].arguments[0], Arg::value("null"));
        assert_eq!(calls[1].arguments[0], Arg::value(r#"{"a":null}"#));
        assert_eq!(
            calls[2].arguments,
            [
                Arg::object("spliced"),
                Arg::object("spliced"),
                Arg::value(json!([1]))
            ]
        );
    }
}
