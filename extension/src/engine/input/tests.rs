use serde_json::{json, Value};
use tabwire_shared::{
    requests::*, ActivationKey, ErrorCode, Event, FromExtension, InputAction, KeyboardClick,
    RaisedWindow,
};

use super::super::fake::page::set_buttons;
use super::super::fake::{Answer, FunctionCall, Harness};
use super::super::page::{CONTROL, KEYCLICK, KEYCLICK_DONE, KEYCLICK_READ};
use super::settle::{QUIET_MS, SETTLE_CAP_MS};

/// A page with one button (uid 1_2) at (10,10)-(30,30) in an 800x600 viewport.
fn page() -> Harness {
    page_after(|_| {})
}

/// [`page`], with `prepare` run on the fake before the tab is attached.
fn page_after(prepare: impl FnOnce(&Harness)) -> Harness {
    let mut h = Harness::new();
    prepare(&h);
    set_buttons(&h, &[(2, "OK")]);
    h.call(99, TakeSnapshot::whole(10));
    h.settle();
    assert!(h.reply(99).unwrap().is_ok());
    h.fake.answer(
        "DOM.getContentQuads",
        Answer::value(json!({"quads": [[10, 10, 30, 10, 30, 30, 10, 30]]})),
    );
    h.fake.answer(
        "Page.getLayoutMetrics",
        Answer::value(json!({
            "cssLayoutViewport": {"pageX": 0, "pageY": 0, "clientWidth": 800, "clientHeight": 600},
            "cssVisualViewport": {"pageX": 0, "pageY": 0},
            "cssContentSize": {"width": 800, "height": 2000}})),
    );
    h
}

fn input(h: &mut Harness, id: u64, action: InputAction) {
    h.call(
        id,
        Input {
            tab_id: 10,
            action,
            timeout_ms: 5_000,
        },
    );
    h.settle();
}

fn click(uid: &str) -> InputAction {
    InputAction::Click {
        uid: uid.into(),
        double: false,
    }
}

fn mouse(h: &Harness) -> Vec<(String, f64, f64, u64)> {
    h.fake
        .sent(10, "Input.dispatchMouseEvent")
        .iter()
        .map(|p| {
            let kind = p["type"].as_str().unwrap_or_default().to_owned();
            (
                kind,
                p["x"].as_f64().unwrap_or(-1.0),
                p["y"].as_f64().unwrap_or(-1.0),
                p["clickCount"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

#[test]
fn a_click_is_real_mouse_input_and_ends_after_one_quiet_window() {
    let mut h = page();
    input(&mut h, 1, click("1_2"));
    assert!(h.reply(1).is_none(), "waits for the DOM to stay quiet");
    h.advance(QUIET_MS);
    assert_eq!(
        h.reply_to::<Input>(1).unwrap(),
        Ok(Acted {
            navigated_to: None,
            from_keyboard: None
        })
    );
    let m = |k: &str, c| (k.to_owned(), 20.0, 20.0, c);
    assert_eq!(
        mouse(&h),
        vec![
            m("mouseMoved", 0),
            m("mousePressed", 1),
            m("mouseReleased", 1)
        ]
    );
    assert_eq!(
        h.fake.sent(10, "DOM.scrollIntoViewIfNeeded"),
        vec![json!({"backendNodeId": 2})]
    );
}

#[test]
fn a_double_click_clicks_twice_the_second_with_count_two() {
    let mut h = page();
    input(
        &mut h,
        1,
        InputAction::Click {
            uid: "1_2".into(),
            double: true,
        },
    );
    h.advance(QUIET_MS);
    let counts: Vec<_> = mouse(&h).into_iter().map(|(k, _, _, c)| (k, c)).collect();
    let expected: Vec<(String, u64)> = [
        ("mouseMoved", 0),
        ("mousePressed", 1),
        ("mouseReleased", 1),
        ("mousePressed", 2),
        ("mouseReleased", 2),
    ]
    .iter()
    .map(|(k, c)| (k.to_string(), *c))
    .collect();
    assert_eq!(counts, expected);
}

#[test]
fn a_dom_that_keeps_changing_is_waited_for_up_to_the_cap() {
    let mut h = page();
    // The DOM changed 5 ms ago, every time it is asked.
    h.fake.answer(
        "Runtime.callFunctionOn",
        Answer::value(json!({"result": {"type": "number", "value": 5}})),
    );
    input(&mut h, 1, click("1_2"));
    let mut elapsed = 0;
    while h.reply(1).is_none() && elapsed < 5_000 {
        h.advance(5);
        elapsed += 5;
    }
    assert!(
        (SETTLE_CAP_MS..=SETTLE_CAP_MS + QUIET_MS).contains(&elapsed),
        "ended after {elapsed} ms"
    );
    assert_eq!(
        h.reply_to::<Input>(1).unwrap(),
        Ok(Acted {
            navigated_to: None,
            from_keyboard: None
        })
    );
}

#[test]
fn a_recent_change_extends_the_wait_by_what_is_left_of_the_window() {
    let mut h = page();
    h.fake.answer(
        "Runtime.callFunctionOn",
        Answer::value(json!({"result": {"type": "number", "value": QUIET_MS - 10}})),
    );
    input(&mut h, 1, click("1_2"));
    h.advance(QUIET_MS);
    assert!(h.reply(1).is_none());
    h.fake.answer(
        "Runtime.callFunctionOn",
        Answer::value(json!({"result": {"type": "number", "value": QUIET_MS + 1}})),
    );
    h.advance(9);
    assert!(h.reply(1).is_none(), "waits out the rest of the window");
    h.advance(1);
    assert!(h.reply(1).unwrap().is_ok());
}

fn navigating_release(h: &Harness, events: Vec<(&'static str, Value)>) {
    h.fake
        .answer_with("Input.dispatchMouseEvent", move |params| {
            if params["type"] == "mouseReleased" {
                Answer::with_events(json!({}), events.clone())
            } else {
                Answer::value(json!({}))
            }
        });
}

#[test]
fn a_click_that_navigates_waits_for_the_new_document_to_load() {
    let mut h = page();
    navigating_release(
        &h,
        vec![(
            "Page.frameRequestedNavigation",
            json!({"frameId": "main", "reason": "anchorClick", "url": "https://a.test/next", "disposition": "currentTab"}),
        )],
    );
    input(&mut h, 1, click("1_2"));
    h.advance(500);
    assert!(h.reply(1).is_none(), "never before the load");
    h.fake.answer(
        "Page.getFrameTree",
        Answer::value(json!({"frameTree": {"frame": {"id": "main", "loaderId": "N", "url": "https://a.test/next"}}})),
    );
    h.engine.on_cdp_event(10, "Page.frameNavigated", &json!({"frame": {"id": "main", "loaderId": "N", "url": "https://a.test/next"}, "type": "Navigation"}));
    h.settle();
    assert!(h.reply(1).is_none(), "committed, not loaded");
    h.engine.on_cdp_event(10, "Page.loadEventFired", &json!({}));
    h.settle();
    assert_eq!(
        h.reply_to::<Input>(1).unwrap(),
        Ok(Acted {
            navigated_to: Some("https://a.test/next".into()),
            from_keyboard: None,
        })
    );
}

#[test]
fn a_navigation_into_a_new_tab_or_a_download_does_not_hold_the_click() {
    let mut h = page();
    navigating_release(
        &h,
        vec![(
            "Page.frameRequestedNavigation",
            json!({"frameId": "main", "disposition": "newTab"}),
        )],
    );
    input(&mut h, 1, click("1_2"));
    h.advance(QUIET_MS);
    assert_eq!(
        h.reply_to::<Input>(1).unwrap(),
        Ok(Acted {
            navigated_to: None,
            from_keyboard: None
        })
    );

    navigating_release(
        &h,
        vec![
            ("Page.frameStartedLoading", json!({"frameId": "main"})),
            ("Page.frameStoppedLoading", json!({"frameId": "main"})),
        ],
    );
    input(&mut h, 2, click("1_2"));
    assert_eq!(
        h.reply_to::<Input>(2).unwrap(),
        Ok(Acted {
            navigated_to: None,
            from_keyboard: None
        })
    );
}

#[test]
fn a_same_document_navigation_reports_the_url_after_the_dom_settles() {
    let mut h = page();
    navigating_release(
        &h,
        vec![(
            "Page.navigatedWithinDocument",
            json!({"frameId": "main", "url": "https://a.test/#b"}),
        )],
    );
    input(&mut h, 1, click("1_2"));
    assert!(h.reply(1).is_none());
    h.advance(QUIET_MS);
    assert_eq!(
        h.reply_to::<Input>(1).unwrap(),
        Ok(Acted {
            navigated_to: Some("https://a.test/".into()),
            from_keyboard: None,
        })
    );
}

#[test]
fn a_dialog_the_click_opens_ends_it_and_is_announced_first() {
    let mut h = page();
    h.fake.hold("Input.dispatchMouseEvent");
    input(&mut h, 1, click("1_2"));
    h.engine.on_cdp_event(
        10,
        "Page.javascriptDialogOpening",
        &json!({"type": "alert", "message": "hi"}),
    );
    h.settle();
    assert_eq!(
        h.reply_to::<Input>(1).unwrap(),
        Ok(Acted {
            navigated_to: None,
            from_keyboard: None
        })
    );
    let posted = h.fake.posted();
    let dialog = posted
        .iter()
        .position(|e| matches!(e.body, FromExtension::Event(Event::DialogOpened { .. })));
    let reply = posted.iter().position(|e| e.id == Some(1));
    assert!(dialog < reply, "the dialog event goes out before the reply");
}

#[test]
fn hidden_and_unknown_elements_are_explained() {
    let mut h = page();
    h.fake
        .answer("DOM.getContentQuads", Answer::value(json!({"quads": []})));
    input(&mut h, 1, click("1_2"));
    let hidden = h.reply(1).unwrap().unwrap_err();
    assert_eq!(hidden.code, ErrorCode::InvalidArgument);
    assert!(
        hidden
            .message
            .starts_with("Element \"1_2\" is not visible;"),
        "{}",
        hidden.message
    );
    input(&mut h, 2, click("9_9"));
    let unknown = h.reply(2).unwrap().unwrap_err();
    assert!(unknown.message.contains("Take a new snapshot"));
    assert!(mouse(&h).is_empty());
}

#[test]
fn key_combinations_press_modifiers_first_and_release_them_last() {
    let mut h = page();
    input(
        &mut h,
        1,
        InputAction::PressKey {
            key: "Control+Shift+R".into(),
        },
    );
    h.advance(QUIET_MS);
    assert!(h.reply(1).unwrap().is_ok());
    let keys: Vec<_> = h
        .fake
        .sent(10, "Input.dispatchKeyEvent")
        .iter()
        .map(|p| {
            (
                p["type"].as_str().unwrap().to_owned(),
                p["key"].as_str().unwrap().to_owned(),
                p["modifiers"].as_u64().unwrap(),
                p.get("text").is_some(),
            )
        })
        .collect();
    let expected: Vec<(String, String, u64, bool)> = [
        ("rawKeyDown", "Control", 2, false),
        ("rawKeyDown", "Shift", 10, false),
        ("rawKeyDown", "R", 10, false),
        ("keyUp", "R", 10, false),
        ("keyUp", "Shift", 2, false),
        ("keyUp", "Control", 0, false),
    ]
    .iter()
    .map(|(a, b, c, d)| (a.to_string(), b.to_string(), *c, *d))
    .collect();
    assert_eq!(keys, expected);
}

#[test]
fn a_bad_key_name_is_refused_before_anything_happens() {
    let mut h = page();
    input(
        &mut h,
        1,
        InputAction::TypeText {
            text: "abc".into(),
            submit_key: Some("Ctrl".into()),
        },
    );
    let error = h.reply(1).unwrap().unwrap_err();
    assert_eq!(error.code, ErrorCode::InvalidArgument);
    assert!(error.message.starts_with("Unknown key \"Ctrl\""));
    assert!(h.fake.sent(10, "Input.dispatchKeyEvent").is_empty());
}

#[test]
fn typing_uses_keys_for_keyboard_characters_and_insert_text_for_the_rest() {
    let mut h = page();
    input(
        &mut h,
        1,
        InputAction::TypeText {
            text: "hé!".into(),
            submit_key: Some("Enter".into()),
        },
    );
    h.advance(QUIET_MS);
    assert!(h.reply(1).unwrap().is_ok());
    let downs: Vec<_> = h
        .fake
        .sent(10, "Input.dispatchKeyEvent")
        .iter()
        .filter(|p| p["type"] == "keyDown")
        .map(|p| p["text"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(downs, ["h", "!", "\r"]);
    assert_eq!(
        h.fake.sent(10, "Input.insertText"),
        vec![json!({"text": "é"})]
    );
}

fn form_control(h: &Harness, describe: Value, choose: Value) {
    h.fake.answer_with("Runtime.callFunctionOn", move |params| {
        let call = FunctionCall::read(params);
        if call.function != CONTROL {
            return Answer::value(json!({"result": {"type": "number", "value": 100}}));
        }
        let value = match call.arguments[0].as_value().and_then(Value::as_str) {
            Some("describe") => describe.clone(),
            Some("choose") => choose.clone(),
            _ => json!(true),
        };
        Answer::value(json!({"result": {"type": "object", "value": value}}))
    });
}

#[test]
fn filling_a_text_field_focuses_selects_and_inserts() {
    let mut h = page();
    form_control(&h, json!({"kind": "text", "tag": "input"}), json!(null));
    input(
        &mut h,
        1,
        InputAction::Fill {
            uid: "1_2".into(),
            value: "hello".into(),
        },
    );
    h.advance(QUIET_MS);
    assert!(h.reply(1).unwrap().is_ok());
    assert_eq!(
        h.fake.sent(10, "DOM.focus"),
        vec![json!({"backendNodeId": 2})]
    );
    assert_eq!(
        h.fake.sent(10, "Input.insertText"),
        vec![json!({"text": "hello"})]
    );
}

#[test]
fn a_select_without_the_option_lists_its_options() {
    let mut h = page();
    form_control(
        &h,
        json!({"kind": "select", "tag": "select"}),
        json!({"chosen": false, "options": ["Red", "Green"]}),
    );
    input(
        &mut h,
        1,
        InputAction::Fill {
            uid: "1_2".into(),
            value: "Blue".into(),
        },
    );
    let error = h.reply(1).unwrap().unwrap_err();
    assert_eq!(error.code, ErrorCode::InvalidArgument);
    assert_eq!(
        error.message,
        "The select \"1_2\" has no option \"Blue\". Its options are: \"Red\", \"Green\"."
    );
}

#[test]
fn a_checkbox_is_clicked_only_when_its_state_differs() {
    let mut h = page();
    form_control(
        &h,
        json!({"kind": "checkbox", "tag": "input", "checked": true}),
        json!(null),
    );
    input(
        &mut h,
        1,
        InputAction::Fill {
            uid: "1_2".into(),
            value: "true".into(),
        },
    );
    h.advance(QUIET_MS);
    assert!(h.reply(1).unwrap().is_ok());
    assert!(mouse(&h).is_empty());
    input(
        &mut h,
        2,
        InputAction::Fill {
            uid: "1_2".into(),
            value: "false".into(),
        },
    );
    h.advance(QUIET_MS);
    assert!(h.reply(2).unwrap().is_ok());
    assert_eq!(mouse(&h).len(), 3);
    input(
        &mut h,
        3,
        InputAction::Fill {
            uid: "1_2".into(),
            value: "yes".into(),
        },
    );
    assert!(h
        .reply(3)
        .unwrap()
        .unwrap_err()
        .message
        .contains("\"true\" (checked)"));
}

#[test]
fn a_file_input_gets_its_files_and_other_elements_must_open_a_chooser() {
    let mut h = page();
    h.fake.answer(
        "DOM.describeNode",
        Answer::value(json!({"node": {"backendNodeId": 2, "nodeType": 1, "nodeName": "INPUT", "localName": "input", "attributes": ["type", "file"]}})),
    );
    let paths = vec!["/tmp/a.txt".to_owned()];
    input(
        &mut h,
        1,
        InputAction::UploadFile {
            uid: "1_2".into(),
            paths: paths.clone(),
        },
    );
    h.advance(QUIET_MS);
    assert!(h.reply(1).unwrap().is_ok());
    assert_eq!(
        h.fake.sent(10, "DOM.setFileInputFiles"),
        vec![json!({"files": ["/tmp/a.txt"], "backendNodeId": 2})]
    );

    h.fake.answer(
        "DOM.describeNode",
        Answer::value(json!({"node": {"backendNodeId": 2, "nodeType": 1, "nodeName": "BUTTON", "localName": "button"}})),
    );
    input(
        &mut h,
        2,
        InputAction::UploadFile {
            uid: "1_2".into(),
            paths: paths.clone(),
        },
    );
    h.advance(1_000);
    let error = h.reply(2).unwrap().unwrap_err();
    assert!(error.message.contains("opened no file chooser"));
    let intercepts = h.fake.sent(10, "Page.setInterceptFileChooserDialog");
    assert_eq!(
        intercepts,
        vec![json!({"enabled": true}), json!({"enabled": false})]
    );

    navigating_release(
        &h,
        vec![(
            "Page.fileChooserOpened",
            json!({"frameId": "main", "mode": "selectSingle", "backendNodeId": 7}),
        )],
    );
    input(
        &mut h,
        3,
        InputAction::UploadFile {
            uid: "1_2".into(),
            paths,
        },
    );
    h.advance(QUIET_MS);
    assert!(h.reply(3).unwrap().is_ok());
    assert_eq!(
        h.fake.sent(10, "DOM.setFileInputFiles")[1]["backendNodeId"],
        7
    );
}

#[test]
fn an_html5_drag_is_finished_with_drag_events() {
    let mut h = page();
    h.fake.answer_with("Input.dispatchMouseEvent", |params| {
        if params["type"] == "mouseMoved" && params["buttons"] == 1 {
            Answer::with_events(
                json!({}),
                vec![(
                    "Input.dragIntercepted",
                    json!({"data": {"items": [], "dragOperationsMask": 1}}),
                )],
            )
        } else {
            Answer::value(json!({}))
        }
    });
    input(
        &mut h,
        1,
        InputAction::Drag {
            from_uid: "1_2".into(),
            to_uid: "1_2".into(),
        },
    );
    h.advance(QUIET_MS);
    assert!(h.reply(1).unwrap().is_ok());
    let drags: Vec<_> = h
        .fake
        .sent(10, "Input.dispatchDragEvent")
        .iter()
        .map(|p| p["type"].clone())
        .collect();
    assert_eq!(
        drags,
        vec![json!("dragEnter"), json!("dragOver"), json!("drop")]
    );
    assert_eq!(
        mouse(&h).last().map(|m| m.0.clone()),
        Some("mouseReleased".into())
    );
    let intercepts = h.fake.sent(10, "Input.setInterceptDrags");
    assert_eq!(
        intercepts,
        vec![json!({"enabled": true}), json!({"enabled": false})]
    );
}

#[test]
fn resizing_corrects_for_window_chrome_the_page_misreports() {
    let mut h = page();
    let fake = h.fake.clone();
    // A window whose 50 px of chrome the page does not see (outer = inner).
    h.fake.answer_with("Runtime.evaluate", move |_| {
        let (w, h) = fake
            .resized()
            .last()
            .map(|r| (r.1, r.2 - 50))
            .unwrap_or((800, 600));
        Answer::value(json!({"result": {"type": "object", "value": [w, h, w, h]}}))
    });
    h.call(
        1,
        ResizePage {
            tab_id: 10,
            width: 640,
            height: 480,
        },
    );
    h.settle();
    for _ in 0..10 {
        h.advance(20);
    }
    assert_eq!(h.reply_to::<ResizePage>(1).unwrap(), Ok(()));
    assert_eq!(h.fake.resized(), vec![(1, 640, 480), (1, 640, 530)]);
}

/// Answers the watcher's `received()` with `answers` in turn (the last one for every
/// later call), and its `since()` with a DOM quiet for long.
fn page_receiving(answers: Vec<Value>) -> Harness {
    use super::super::page::RECEIVED;
    let h = page();
    h.fake.answer(
        "Page.captureScreenshot",
        Answer::value(json!({"data": "AA=="})),
    );
    let calls = std::cell::Cell::new(0usize);
    h.fake.answer_with("Runtime.callFunctionOn", move |params| {
        if params["functionDeclaration"].as_str() == Some(RECEIVED) {
            let n = calls.get();
            calls.set(n + 1);
            let answer = answers[n.min(answers.len() - 1)].clone();
            Answer::value(json!({"result": {"type": "object", "value": answer}}))
        } else {
            Answer::value(json!({"result": {"type": "number", "value": 1000}}))
        }
    });
    h
}

#[test]
fn a_document_that_has_not_drawn_draws_a_frame_before_the_click() {
    let mut h = page_receiving(vec![json!([false, 0, 0, 0]), json!([true, 1, 1, 0])]);
    input(&mut h, 1, click("1_2"));
    h.advance(QUIET_MS);
    assert_eq!(
        h.reply_to::<Input>(1).unwrap(),
        Ok(Acted {
            navigated_to: None,
            from_keyboard: None
        })
    );
    let methods = h.fake.methods(10);
    let at = |m: &str| methods.iter().position(|x| x == m).unwrap_or(usize::MAX);
    assert!(at("Page.startScreencast") < at("Page.captureScreenshot"));
    assert!(at("Page.captureScreenshot") < at("Input.dispatchMouseEvent"));
    assert!(at("Page.stopScreencast") < at("Input.dispatchMouseEvent"));
    let pixel = &h.fake.sent(10, "Page.captureScreenshot")[0];
    assert_eq!(pixel["clip"]["width"], 1.0, "one pixel is enough: {pixel}");
}

#[test]
fn a_document_whose_first_paint_lags_its_capture_is_asked_to_draw_again() {
    // The first capture comes back before the page counts its paint; the second shows it.
    let mut h = page_receiving(vec![
        json!([false, 0, 0, 0]),
        json!([false, 0, 0, 0]),
        json!([true, 0, 0, 0]),
        json!([true, 1, 1, 0]),
    ]);
    input(&mut h, 1, click("1_2"));
    h.advance(QUIET_MS);
    assert_eq!(
        h.reply_to::<Input>(1).unwrap(),
        Ok(Acted {
            navigated_to: None,
            from_keyboard: None
        })
    );
    assert_eq!(h.fake.sent(10, "Page.captureScreenshot").len(), 2);
}

#[test]
fn a_document_that_never_counts_a_paint_gets_three_captures_then_the_input() {
    let mut h = page_receiving(vec![json!([false, 0, 0, 0])]);
    input(&mut h, 1, click("1_2"));
    h.advance(QUIET_MS);
    assert!(
        matches!(h.reply(1), Some(Err(e)) if e.message.contains("did not reach the page")),
        "{:?}",
        h.reply(1)
    );
    assert_eq!(h.fake.sent(10, "Page.captureScreenshot").len(), 3);
    assert!(!h.fake.sent(10, "Input.dispatchMouseEvent").is_empty());
}

#[test]
fn a_document_that_has_drawn_is_clicked_at_once() {
    let mut h = page_receiving(vec![json!([true, 0, 0, 0]), json!([true, 1, 1, 0])]);
    input(&mut h, 1, click("1_2"));
    h.advance(QUIET_MS);
    assert_eq!(
        h.reply_to::<Input>(1).unwrap(),
        Ok(Acted {
            navigated_to: None,
            from_keyboard: None
        })
    );
    assert!(h.fake.sent(10, "Page.captureScreenshot").is_empty());
}

#[test]
fn a_click_no_mousedown_reached_is_an_error_that_says_what_to_do() {
    // The mouse move arrives, the press does not.
    let mut h = page_receiving(vec![json!([true, 0, 0, 0]), json!([true, 0, 1, 0])]);
    input(&mut h, 1, click("1_2"));
    h.advance(QUIET_MS);
    let error = h.reply(1).unwrap().unwrap_err();
    assert_eq!(error.code, ErrorCode::PageError);
    for said in [
        "click did not reach the page",
        "mousedown",
        "take_screenshot",
        "bringToFront",
    ] {
        assert!(error.message.contains(said), "{said}: {}", error.message);
    }
}

#[test]
fn a_key_the_page_never_saw_fails_only_while_the_page_has_not_drawn() {
    // Keys go where the focus is (perhaps a frame the watcher does not see): missing
    // from the main window alone proves nothing once the page has drawn.
    let key = || InputAction::PressKey {
        key: "Enter".into(),
    };
    let mut h = page_receiving(vec![json!([true, 0, 0, 0])]);
    input(&mut h, 1, key());
    h.advance(QUIET_MS);
    assert_eq!(
        h.reply_to::<Input>(1).unwrap(),
        Ok(Acted {
            navigated_to: None,
            from_keyboard: None
        })
    );
    let mut h = page_receiving(vec![json!([false, 0, 0, 0])]);
    input(&mut h, 2, key());
    h.advance(QUIET_MS);
    let error = h.reply(2).unwrap().unwrap_err();
    assert!(
        error.message.contains("press_key did not reach"),
        "{}",
        error.message
    );
}

/// Where window 1, showing tab 10, stands for a test of a press.
#[derive(Clone, Copy)]
enum Window1 {
    Minimized,
    BehindAnother,
    BrowserBehind,
}

/// Puts window 1 where `window` says.
fn place(h: &Harness, window: Window1) {
    match window {
        Window1::Minimized => h.fake.set_minimized(1, true),
        Window1::BehindAnother => {
            h.fake.add_window(2, &[(20, "https://b.test/", true)]);
            h.fake.set_last_focused(Some(2));
        }
        // Chrome's last window, with another application in front of it.
        Window1::BrowserBehind => {
            h.fake.set_last_focused(Some(1));
            h.fake.set_has_focus(1, false);
        }
    }
}

const WINDOWS: [(Window1, RaisedWindow, &str); 3] = [
    (
        Window1::Minimized,
        RaisedWindow::Minimized,
        "a window the user minimized",
    ),
    (
        Window1::BehindAnother,
        RaisedWindow::Behind,
        "behind the one the user worked in last",
    ),
    (
        Window1::BrowserBehind,
        RaisedWindow::BrowserBehind,
        "the user is working in another application",
    ),
];

/// Answers the page-side clicker (`keyclick.js`): `ready` when it is readied, `done`
/// when read after the key; every other call with a DOM quiet for long.
fn keyclicker(h: &Harness, ready: Value, done: Value) {
    h.fake.answer_with("Runtime.callFunctionOn", move |params| {
        let function = params["functionDeclaration"].as_str().unwrap_or_default();
        let answer = if function == KEYCLICK {
            json!({"result": {"type": "object", "objectId": "clicker"}})
        } else if function == KEYCLICK_READ {
            json!({"result": {"type": "object", "value": ready}})
        } else if function == KEYCLICK_DONE {
            json!({"result": {"type": "object", "value": done}})
        } else {
            json!({"result": {"type": "number", "value": 1000}})
        };
        Answer::value(answer)
    });
}

/// The `key` of every key event sent to tab 10, with its type.
fn keys(h: &Harness) -> Vec<(String, String)> {
    h.fake
        .sent(10, "Input.dispatchKeyEvent")
        .iter()
        .map(|p| {
            let field = |f: &str| p[f].as_str().unwrap_or_default().to_owned();
            (field("type"), field("key"))
        })
        .collect()
}

#[test]
fn a_click_that_would_raise_the_users_window_is_made_from_the_keyboard() {
    for (window, raised, _) in WINDOWS {
        let mut h = page();
        place(&h, window);
        keyclicker(
            &h,
            json!(["Enter", "a <button> element", true, 0, 0]),
            json!(["Enter", "a <button> element", true, 1, 1]),
        );
        input(&mut h, 1, click("1_2"));
        h.advance(QUIET_MS);
        assert_eq!(
            h.reply_to::<Input>(1).unwrap(),
            Ok(Acted {
                navigated_to: None,
                from_keyboard: Some(KeyboardClick {
                    key: ActivationKey::Enter,
                    raised,
                }),
            })
        );
        assert!(mouse(&h).is_empty(), "no mouse event was sent");
        assert!(
            h.fake.sent(10, "Overlay.enable").len() <= 1,
            "no overlay needed"
        );
        let readied: Vec<_> = h
            .fake
            .function_calls(10)
            .into_iter()
            .filter(|c| c.function == KEYCLICK)
            .collect();
        assert_eq!(readied.len(), 1);
        assert_eq!(readied[0].object_id, "node-2", "readied on the element");
        let pressed = keys(&h);
        assert!(!pressed.is_empty());
        assert!(pressed.iter().all(|(_, key)| key == "Enter"), "{pressed:?}");
        assert_eq!(pressed.last().unwrap().0, "keyUp");
    }
}

#[test]
fn a_checkbox_is_clicked_with_space_and_a_role_by_any_click_its_handler_makes() {
    let mut h = page();
    place(&h, Window1::Minimized);
    keyclicker(
        &h,
        json!(["Space", "a <input type=checkbox> element", true, 0, 0]),
        json!(["Space", "a <input type=checkbox> element", true, 1, 1]),
    );
    input(&mut h, 1, click("1_2"));
    h.advance(QUIET_MS);
    assert!(h.reply(1).unwrap().is_ok());
    assert!(keys(&h).iter().all(|(_, key)| key == " "), "{:?}", keys(&h));

    // A role: the page's own key handler calls click(), which is not trusted.
    let mut h = page();
    place(&h, Window1::Minimized);
    keyclicker(
        &h,
        json!(["Enter", "a <div> element", false, 0, 0]),
        json!(["Enter", "a <div> element", false, 0, 1]),
    );
    input(&mut h, 1, click("1_2"));
    h.advance(QUIET_MS);
    assert!(h.reply(1).unwrap().is_ok());
}

#[test]
fn an_element_the_keyboard_cannot_click_is_refused_with_the_ways_out() {
    for (window, _, said) in WINDOWS {
        let mut h = page();
        place(&h, window);
        keyclicker(&h, json!(["", "a <div> element", false, 0, 0]), json!(null));
        input(&mut h, 1, click("1_2"));
        h.advance(QUIET_MS);
        let error = h.reply(1).unwrap().unwrap_err();
        assert_eq!(error.code, ErrorCode::Refused);
        for needed in [
            said,
            "Nothing was clicked",
            "cannot be clicked from the keyboard",
            "a <div> element",
            "bringToFront: true",
            "hover",
        ] {
            assert!(
                error.message.contains(needed),
                "{needed}: {}",
                error.message
            );
        }
        assert!(mouse(&h).is_empty(), "no mouse event was sent");
        assert!(keys(&h).is_empty(), "no key was pressed");
        // A hover raises nothing: it goes through.
        input(&mut h, 2, InputAction::Hover { uid: "1_2".into() });
        h.advance(QUIET_MS);
        assert!(h.reply(2).unwrap().is_ok());
    }
}

#[test]
fn a_key_that_made_no_click_is_an_error_that_says_what_was_pressed() {
    let mut h = page();
    place(&h, Window1::BrowserBehind);
    keyclicker(
        &h,
        json!(["Enter", "a <a> element", true, 0, 0]),
        // A page's own click() after the key is no proof where the browser clicks.
        json!(["Enter", "a <a> element", true, 0, 1]),
    );
    input(&mut h, 1, click("1_2"));
    h.advance(QUIET_MS);
    let error = h.reply(1).unwrap().unwrap_err();
    assert_eq!(error.code, ErrorCode::PageError);
    for needed in [
        "got no click",
        "pressed Enter",
        "another application",
        "bringToFront: true",
    ] {
        assert!(
            error.message.contains(needed),
            "{needed}: {}",
            error.message
        );
    }
}

#[test]
fn a_double_click_click_at_or_drag_that_would_raise_the_window_is_refused() {
    for (window, _, said) in WINDOWS {
        for action in [
            InputAction::Click {
                uid: "1_2".into(),
                double: true,
            },
            InputAction::ClickAt {
                x: 20.0,
                y: 20.0,
                double: false,
            },
            InputAction::Drag {
                from_uid: "1_2".into(),
                to_uid: "1_2".into(),
            },
        ] {
            let mut h = page();
            place(&h, window);
            input(&mut h, 1, action.clone());
            h.advance(QUIET_MS);
            let error = h.reply(1).unwrap().unwrap_err();
            assert_eq!(error.code, ErrorCode::Refused);
            for needed in [said, "Nothing was clicked", "bringToFront: true"] {
                assert!(
                    error.message.contains(needed),
                    "{action:?}, {needed}: {}",
                    error.message
                );
            }
            assert!(mouse(&h).is_empty(), "nothing was sent");
            assert!(keys(&h).is_empty(), "nothing was sent");
        }
    }
}

#[test]
fn a_press_in_the_window_last_focused_or_when_chrome_knows_none_is_sent() {
    for last_focused in [Some(1), None] {
        let mut h = page();
        h.fake.add_window(2, &[(20, "https://b.test/", true)]);
        h.fake.set_last_focused(last_focused);
        input(&mut h, 1, click("1_2"));
        h.advance(QUIET_MS);
        assert!(
            h.reply(1).unwrap().is_ok(),
            "last focused: {last_focused:?}"
        );
        assert_eq!(mouse(&h).len(), 3);
    }
}

#[test]
fn an_overlay_the_attach_could_not_turn_on_is_turned_on_before_the_mouse_moves() {
    let mut h = page_after(|h| {
        h.fake
            .answer("Overlay.enable", Answer::error("Not allowed yet"))
    });
    assert_eq!(h.fake.sent(10, "Overlay.enable").len(), 1);
    h.fake.answer("Overlay.enable", Answer::value(json!({})));
    input(&mut h, 1, InputAction::Hover { uid: "1_2".into() });
    h.advance(QUIET_MS);
    assert!(h.reply(1).unwrap().is_ok());
    let methods = h.fake.methods(10);
    let overlay = methods.iter().rposition(|m| m == "Overlay.enable");
    let moved = methods.iter().position(|m| m == "Input.dispatchMouseEvent");
    assert!(overlay < moved, "overlay first: {methods:?}");
    // On from then on: not asked again.
    input(&mut h, 2, click("1_2"));
    h.advance(QUIET_MS);
    assert!(h.reply(2).unwrap().is_ok());
    assert_eq!(h.fake.sent(10, "Overlay.enable").len(), 2);
}

#[test]
fn without_the_overlay_mouse_input_to_a_hidden_tab_is_refused_at_once_not_slow() {
    let refused = || Answer::error("Overlay is not available");
    let mut h = page_after(|h| h.fake.answer("Overlay.enable", refused()));
    // In front, the tab draws frames: the hover goes through.
    input(&mut h, 1, InputAction::Hover { uid: "1_2".into() });
    h.advance(QUIET_MS);
    assert!(h.reply(1).unwrap().is_ok());
    // Its window minimized: nothing is sent, and the error names the ways out.
    h.fake.set_minimized(1, true);
    let before = mouse(&h).len();
    input(&mut h, 2, InputAction::Hover { uid: "1_2".into() });
    let error = h.reply(2).unwrap().unwrap_err();
    assert_eq!(error.code, ErrorCode::Refused);
    for said in [
        "up to 5 s",
        "Overlay is not available",
        "bringToFront: true",
        "fill",
    ] {
        assert!(error.message.contains(said), "{said}: {}", error.message);
    }
    assert_eq!(mouse(&h).len(), before, "nothing was sent");
}
