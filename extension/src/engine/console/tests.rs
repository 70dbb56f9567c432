use serde_json::json;
use tabwire_shared::{requests::*, ConsolePage, ConsoleType, ErrorCode};

use super::super::fake::Harness;
use tabwire_shared::{Dropped, CONSOLE_BYTES_KEPT, CONSOLE_MESSAGES_KEPT};

/// One page of tab 10's console, through the engine.
fn page_of(
    h: &mut Harness,
    id: u64,
    preserved: bool,
    types: &[ConsoleType],
    page_size: u32,
    page_idx: Option<u32>,
) -> ConsolePage {
    h.call(
        id,
        ListConsole {
            tab_id: 10,
            include_preserved: preserved,
            types: types.to_vec(),
            page_size,
            page_idx,
        },
    );
    h.settle();
    match h.reply_to::<ListConsole>(id).unwrap() {
        Ok(page) => page,
        other => panic!("expected a page, got {other:?}"),
    }
}

/// Every entry of tab 10's console (none fold in these tests), oldest first.
fn list(h: &mut Harness, id: u64, preserved: bool) -> Vec<tabwire_shared::ConsoleEntry> {
    page_of(h, id, preserved, &[], 10_000, None).entries
}

/// One message of tab 10's console in full.
fn full(h: &mut Harness, call: u64, id: u64) -> tabwire_shared::ConsoleMessage {
    h.call(call, GetConsoleMessage { tab_id: 10, id });
    h.settle();
    match h.reply_to::<GetConsoleMessage>(call).unwrap() {
        Ok(message) => message,
        other => panic!("expected a message, got {other:?}"),
    }
}

fn log(h: &Harness, text: &str) {
    h.engine.on_cdp_event(
        10,
        "Runtime.consoleAPICalled",
        &json!({"type": "log", "timestamp": 5.0, "args": [{"type": "string", "value": text}],
                "stackTrace": {"callFrames": [{"functionName": "f", "url": "https://a.test/app.js", "lineNumber": 9, "columnNumber": 4}]}}),
    );
}

fn navigate(h: &Harness, loader: &str) {
    h.engine.on_cdp_event(
        10,
        "Page.frameNavigated",
        &json!({"frame": {"id": "main", "loaderId": loader}, "type": "Navigation"}),
    );
}

#[test]
fn messages_are_tagged_with_their_navigation() {
    let mut h = Harness::new();
    assert!(
        list(&mut h, 1, false).is_empty(),
        "attaches and starts collecting"
    );
    log(&h, "first page");
    navigate(&h, "L2");
    log(&h, "second page");
    let now = list(&mut h, 2, false);
    assert_eq!(now.len(), 1);
    assert_eq!(
        (now[0].id, now[0].text.as_str(), now[0].navigation),
        (2, "second page", 0)
    );
    let all = list(&mut h, 3, true);
    let tags: Vec<_> = all.iter().map(|m| (m.id, m.navigation)).collect();
    assert_eq!(tags, vec![(1, 1), (2, 0)]);
    navigate(&h, "L3");
    navigate(&h, "L4");
    let kept = list(&mut h, 4, true);
    assert_eq!(kept.len(), 1, "only three navigations are kept");
    assert_eq!(kept[0].navigation, 2);
}

#[test]
fn a_page_that_logs_thousands_keeps_the_latest() {
    let mut h = Harness::new();
    list(&mut h, 1, false);
    for i in 0..2_000 {
        log(&h, &format!("line {i}"));
    }
    assert_eq!(list(&mut h, 2, false).len(), 2_000);
    for i in 0..CONSOLE_MESSAGES_KEPT {
        log(&h, &format!("more {i}"));
    }
    let page = page_of(&mut h, 3, false, &[], 10_000, None);
    assert_eq!(page.entries.len(), CONSOLE_MESSAGES_KEPT);
    assert_eq!(page.entries[0].id, 2_001);
    assert_eq!(
        page.dropped,
        Dropped {
            for_count: 2_000,
            for_space: 0
        }
    );
}

/// Logs one message of `chars` characters on tab 10 (a string argument, as
/// `console.log(text)` sends it).
fn log_big(h: &Harness, i: usize, chars: usize) {
    log(h, &format!("{i:05} {}", "x".repeat(chars)));
}

#[test]
fn a_page_logging_large_messages_keeps_the_newest_within_the_bytes_and_says_so() {
    let mut h = Harness::new();
    list(&mut h, 1, false);
    // 400 messages of 100 KB: 40 MB logged, text and argument each.
    for i in 0..400 {
        log_big(&h, i, 100_000);
    }
    let bytes = h
        .engine
        .tabs()
        .with_collectors(10, |c| c.console.bytes())
        .unwrap();
    assert!(bytes <= CONSOLE_BYTES_KEPT, "{bytes} bytes kept");
    let page = page_of(&mut h, 2, false, &[], 10_000, None);
    let kept = page.entries.len();
    assert!((10..100).contains(&kept), "{kept} kept");
    assert_eq!(
        page.entries.last().map(|e| e.id),
        Some(400),
        "the newest stay"
    );
    assert!(page.entries.last().unwrap().text.starts_with("00399 "));
    assert_eq!(
        page.dropped,
        Dropped {
            for_count: 0,
            for_space: 400 - kept as u32
        }
    );
    // A navigation later, the current document's list has dropped nothing; the
    // preserved one says what went of the one before.
    navigate(&h, "L2");
    log(&h, "after");
    assert!(page_of(&mut h, 3, false, &[], 50, None).dropped.is_none());
    let preserved = page_of(&mut h, 4, true, &[], 50, None);
    assert_eq!(preserved.dropped.for_space, 400 - kept as u32);
}

#[test]
fn one_huge_message_is_cut_with_a_marker_and_its_arguments_too() {
    let mut h = Harness::new();
    list(&mut h, 1, false);
    log(&h, &"y".repeat(5_000_000));
    let message = full(&mut h, 2, 1);
    assert!(
        message.text.ends_with("… (4900000 characters not kept)"),
        "{}",
        &message.text[message.text.len() - 60..]
    );
    assert_eq!(
        message.text.chars().count(),
        100_000 + "… (4900000 characters not kept)".chars().count()
    );
    let arg = message.args[0].as_str().unwrap();
    assert!(
        arg.ends_with("(4990000 characters not kept)"),
        "{}",
        &arg[arg.len() - 40..]
    );
    let bytes = h
        .engine
        .tabs()
        .with_collectors(10, |c| c.console.bytes())
        .unwrap();
    assert!(bytes < 150_000, "{bytes} bytes for one capped message");
}

#[test]
fn a_message_in_full_has_args_and_a_one_based_stack() {
    let mut h = Harness::new();
    list(&mut h, 1, false);
    log(&h, &"x".repeat(3_000));
    let short = list(&mut h, 2, false);
    assert_eq!(
        short[0].text.chars().count(),
        1_001,
        "shortened with an ellipsis"
    );
    let message = full(&mut h, 3, 1);
    assert_eq!(message.text.len(), 3_000, "kept whole");
    assert_eq!(message.args, vec![json!("x".repeat(3_000))]);
    assert_eq!((message.stack[0].line, message.stack[0].column), (10, 5));
    assert_eq!(message.url.as_deref(), Some("https://a.test/app.js"));
}

#[test]
fn an_unknown_id_says_what_to_call() {
    let mut h = Harness::new();
    h.call(1, GetConsoleMessage { tab_id: 10, id: 99 });
    h.settle();
    let error = h.reply(1).unwrap().unwrap_err();
    assert_eq!(error.code, ErrorCode::InvalidArgument);
    assert!(error
        .message
        .starts_with("No console message with id 99 on page 10; call list_console_messages"));
}

#[test]
fn exceptions_log_entries_and_issues_are_messages_too() {
    let mut h = Harness::new();
    list(&mut h, 1, false);
    h.engine.on_cdp_event(
        10,
        "Runtime.exceptionThrown",
        &json!({"timestamp": 7.0, "exceptionDetails": {"text": "Uncaught", "lineNumber": 0, "columnNumber": 6,
            "url": "https://a.test/x.js",
            "exception": {"type": "object", "subtype": "error", "description": "Error: boom\n    at x.js:1:7"}}}),
    );
    h.engine.on_cdp_event(
        10,
        "Log.entryAdded",
        &json!({"entry": {"source": "network", "level": "error", "text": "Failed to load resource: 404", "url": "https://a.test/missing.png", "timestamp": 8.0}}),
    );
    h.engine.on_cdp_event(
        10,
        "Audits.issueAdded",
        &json!({"issue": {"code": "GenericIssue", "details": {"genericIssueDetails": {"errorType": "FormLabelForNameError"}}}}),
    );
    h.engine.on_cdp_event(
        10,
        "Audits.issueAdded",
        &json!({"issue": {"code": "GenericIssue", "details": {"genericIssueDetails": {"errorType": "NavigationEntryMarkedSkippable"}}}}),
    );
    let messages = list(&mut h, 2, false);
    let kinds: Vec<_> = messages.iter().map(|m| m.kind.as_str()).collect();
    assert_eq!(kinds, ["exception", "error", "issue"]);
    assert!(messages[0].text.starts_with("Uncaught Error: boom"));
    let failed_load = full(&mut h, 3, messages[1].id);
    assert_eq!(
        failed_load.url.as_deref(),
        Some("https://a.test/missing.png")
    );
    assert_eq!(
        messages[2].text,
        "GenericIssue: errorType=FormLabelForNameError"
    );
    let issue = full(&mut h, 4, messages[2].id);
    assert_eq!(issue.timestamp, 8.0, "issues take the latest time");
}

#[test]
fn a_detach_starts_the_collection_afresh() {
    let mut h = Harness::new();
    list(&mut h, 1, false);
    log(&h, "before");
    h.fake.detach_externally(10);
    h.engine.on_debugger_detached(10, "canceled_by_user");
    log(&h, "while detached");
    assert!(list(&mut h, 2, false).is_empty());
    assert_eq!(h.fake.sent(10, "Log.enable").len(), 2);
    assert_eq!(h.fake.sent(10, "Audits.enable").len(), 2);
    assert_eq!(
        h.fake.sent(10, "Network.enable"),
        vec![json!({"maxPostDataSize": 65536}); 2]
    );
}

fn error(h: &Harness, text: &str) {
    h.engine.on_cdp_event(
        10,
        "Runtime.consoleAPICalled",
        &json!({"type": "error", "timestamp": 6.0, "args": [{"type": "string", "value": text}]}),
    );
}

fn exception(h: &Harness, text: &str) {
    h.engine.on_cdp_event(
        10,
        "Runtime.exceptionThrown",
        &json!({"timestamp": 7.0, "exceptionDetails": {"text": "Uncaught", "lineNumber": 0,
            "columnNumber": 0, "exception": {"type": "object", "subtype": "error", "description": text}}}),
    );
}

#[test]
fn a_listing_opens_on_the_newest_page_with_the_totals() {
    let mut h = Harness::new();
    list(&mut h, 1, false);
    for i in 0..400 {
        for _ in 0..5 {
            log(&h, &format!("batch {i}"));
        }
    }
    error(&h, "something broke");
    exception(&h, "Error: uncaught on purpose");
    let newest = page_of(&mut h, 2, false, &[], 50, None);
    let p = newest.position;
    assert_eq!(
        (p.index, p.pages, p.start, p.end, p.total),
        (8, 9, 352, 402, 402)
    );
    let last = newest.entries.last().unwrap();
    assert_eq!(last.kind, "exception");
    assert!(last.text.contains("uncaught on purpose"));
    let folded = &newest.entries[0];
    assert_eq!((folded.text.as_str(), folded.count()), ("batch 352", 5));
    assert_eq!(folded.repeated.map(|r| r.last_id - folded.id), Some(4));
    assert_eq!(
        (
            newest.totals.messages,
            newest.totals.errors,
            newest.totals.exceptions
        ),
        (2_002, 1, 1)
    );

    let oldest = page_of(&mut h, 3, false, &[], 50, Some(0));
    assert_eq!((oldest.position.start, oldest.position.end), (0, 2));
    assert_eq!(oldest.entries[0].text, "batch 0");
    assert_eq!(oldest.entries[0].id, 1);

    let logs = page_of(&mut h, 4, false, &[ConsoleType::Log], 50, None);
    assert_eq!(logs.position.total, 400);
    assert!(logs.entries.iter().all(|e| e.kind == "log"));
    assert_eq!(logs.totals, newest.totals, "totals ignore the filter");
}

#[test]
fn a_page_that_does_not_exist_shows_the_newest() {
    let mut h = Harness::new();
    list(&mut h, 1, false);
    for i in 0..30 {
        log(&h, &format!("line {i}"));
    }
    let page = page_of(&mut h, 2, false, &[], 20, Some(7));
    assert_eq!(page.position.missing, Some(7));
    assert_eq!((page.position.index, page.position.start), (1, 10));
    assert_eq!(page.entries.len(), 20);
}

#[test]
fn repeats_do_not_fold_across_navigations() {
    let mut h = Harness::new();
    list(&mut h, 1, false);
    log(&h, "same");
    navigate(&h, "L2");
    log(&h, "same");
    let both = page_of(&mut h, 2, true, &[], 50, None);
    let runs: Vec<_> = both
        .entries
        .iter()
        .map(|e| (e.navigation, e.count()))
        .collect();
    assert_eq!(runs, vec![(1, 1), (0, 1)]);
    assert_eq!(page_of(&mut h, 3, false, &[], 50, None).totals.messages, 1);
}

/// Whether tab `tab` still holds collectors (console and network).
fn collects(h: &Harness, tab: i64) -> bool {
    h.engine.tabs().with_collectors(tab, |_| ()).is_some()
}

/// Fills tab 10's console as agent "k1" (client 1) in the user's own browser.
fn shared_and_logged() -> Harness {
    let mut h = Harness::strict();
    h.hello(1, "k1", "agent");
    h.share("k1", 10);
    list(&mut h, 1, false);
    for i in 0..50 {
        log_big(&h, i, 10_000);
    }
    assert!(collects(&h, 10));
    h
}

#[test]
fn what_a_tab_collected_goes_when_it_closes_is_unshared_or_its_agent_goes() {
    let mut h = shared_and_logged();
    h.engine.on_tab_removed(10);
    h.settle();
    assert!(!collects(&h, 10), "closed");

    let mut h = shared_and_logged();
    let unshare = json!({"action": "unshare", "session": "k1", "tab": 10});
    assert_eq!(h.popup(unshare), Ok(()));
    assert!(!collects(&h, 10), "unshared");

    let mut h = shared_and_logged();
    h.gone(1);
    assert!(!collects(&h, 10), "its agent left");
}

#[test]
fn the_lists_answer_from_memory_while_a_script_runs_on_the_tab() {
    use super::super::fake::commands;
    let mut h = Harness::new();
    list(&mut h, 1, false);
    log(&h, "before the script");
    h.engine.on_cdp_event(
        10,
        "Network.requestWillBeSent",
        &json!({"requestId": "r1", "loaderId": "L", "timestamp": 1.0, "wallTime": 1000.0,
                "type": "Fetch", "request": {"url": "https://a.test/api", "method": "GET",
                "headers": {}}}),
    );
    h.engine.on_cdp_event(
        10,
        "Network.responseReceived",
        &json!({"requestId": "r1", "type": "Fetch", "response": {"url": "https://a.test/api",
                "status": 200, "statusText": "OK", "headers": {}, "mimeType": "text/plain"}}),
    );
    h.engine.on_cdp_event(
        10,
        "Network.loadingFinished",
        &json!({"requestId": "r1", "timestamp": 1.5}),
    );
    // A script that does not end.
    h.fake.hold("Runtime.callFunctionOn");
    h.call(2, commands::evaluate_one(10, 600_000));
    h.settle();
    assert!(h.reply(2).is_none(), "the script runs");
    let sent_before = h.fake.methods(10).len();

    let page = page_of(&mut h, 3, false, &[], 50, None);
    assert_eq!(page.entries[0].text, "before the script");
    h.call(4, GetConsoleMessage { tab_id: 10, id: 1 });
    h.call(
        5,
        NetworkRequests {
            tab_id: 10,
            include_preserved: false,
        },
    );
    h.settle();
    assert!(matches!(h.reply_to::<GetConsoleMessage>(4), Some(Ok(_))));
    match h.reply_to::<NetworkRequests>(5) {
        Some(Ok(tabwire_shared::NetworkList { requests, .. })) => assert_eq!(requests.len(), 1),
        other => panic!("expected the requests, got {other:?}"),
    }
    assert_eq!(
        h.fake.methods(10).len(),
        sent_before,
        "nothing asked of the browser"
    );

    // A request's bodies are asked of the browser, which the script keeps busy: the
    // request comes without them after the bodies' own limit, saying why.
    h.fake.hold("Network.getResponseBody");
    h.call(6, GetNetworkRequest { tab_id: 10, id: 1 });
    h.settle();
    assert!(h.reply(6).is_none());
    h.advance(super::super::network::BODY_READ_LIMIT_MS);
    match h.reply_to::<GetNetworkRequest>(6) {
        Some(Ok(request)) => {
            assert!(request.response_body.is_none());
            let why = request.bodies_unread.unwrap_or_default();
            assert!(why.contains("keeping it busy"), "{why}");
        }
        other => panic!("expected the request, got {other:?}"),
    }
    assert!(h.reply(2).is_none(), "the script still runs");
}
