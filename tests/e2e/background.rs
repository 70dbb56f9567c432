//! The agent's page is usually not the tab in front: the user keeps working. A hidden
//! tab draws no frames and throttles its timers; input, waiting and screenshots must
//! work on it as on a visible one, and it must stay hidden (never activated).

use std::time::Duration;

use serde_json::{json, Value};

use crate::harness::{page, page_on, Agent, TEST_HOST_RULE, THIRD_PARTY};
use crate::popup::Popup;

/// Another site than the fixtures' own (127.0.0.1), by [`TEST_HOST_RULE`].
const TEST_HOST: &str = "tabwire.test";

/// Longest the browser may take to show a change.
const SEEN: Duration = Duration::from_secs(20);

#[tokio::test]
async fn a_tab_in_the_background_takes_input_and_screenshots_and_stays_hidden() {
    let agent = Agent::launch(&[]).await;
    let opened = agent
        .ok(
            "new_page",
            json!({"url": page("background.html"), "background": true}),
        )
        .await;
    let id = opened.selected_page();
    let visibility = || agent.evaluate("() => document.visibilityState");
    assert_eq!(
        visibility().await,
        "hidden",
        "the page opened behind the user's tab"
    );

    let snap = agent.ok("take_snapshot", json!({})).await;
    let button = snap.uid_of("button \"Clicked 0\"");
    for n in 1..=3 {
        agent
            .ok("click", json!({"uid": button}))
            .await
            .says("Clicked the element");
        assert_eq!(agent.text_of("count").await, format!("Clicked {n}"));
    }
    agent
        .ok("hover", json!({"uid": snap.uid_of("\"Hover target\"")}))
        .await;
    agent
        .ok("wait_for", json!({"text": "hovered 1", "timeout": 20000}))
        .await;

    // After input (which asks for a frame) and with an animation always waiting for
    // one: each capture gets a frame of its own.
    for shot in [
        json!({}),
        json!({"fullPage": true}),
        json!({"uid": button}),
        json!({"format": "jpeg"}),
    ] {
        let taken = agent.ok("take_screenshot", shot.clone()).await;
        assert_eq!(taken.images.len(), 1, "{shot}: {}", taken.text);
    }

    assert_eq!(
        visibility().await,
        "hidden",
        "nothing brought the page to the front"
    );
    let listed = agent.ok("list_pages", json!({})).await;
    let line = listed.page_line(id);
    assert!(!line.contains("user's active tab"), "{line}");
    agent.quit().await;
}

#[tokio::test]
async fn in_the_users_own_browser_a_new_page_opens_behind_their_tab() {
    let agent = Agent::launch(&["--shareAllTabs=false"]).await;
    let opened = agent.open("background.html").await;
    let id = opened.selected_page();
    let line = opened.page_line(id);
    assert!(!line.contains("user's active tab"), "{line}");
    assert_eq!(
        agent.evaluate("() => document.visibilityState").await,
        "hidden"
    );
    // Asked for, it comes to the front.
    let front = agent
        .ok(
            "new_page",
            json!({"url": page("index.html"), "background": false}),
        )
        .await;
    let id = front.selected_page();
    let line = front.page_line(id);
    assert!(line.contains("user's active tab"), "{line}");
    agent.quit().await;
}

/// Every page tool on the hidden tab `tab`, after navigating it to background.html on
/// `host` (another site than the round before: the tab changes renderer process, and
/// what tabwire set up in the old one must hold in the new one). Each checks its effect
/// in the page, and that what the user sees (`front`, per [`Popup::users_view`]) is as
/// it was. `presses`: whether mouse presses may be sent (not in a tab its window shows
/// while that window is minimized or behind the user's: a click is made from the
/// keyboard there).
async fn everything_on_a_hidden_tab(
    agent: &Agent,
    user: &Popup<'_>,
    front: &Value,
    tab: i64,
    round: u64,
    host: &str,
    presses: bool,
) {
    let unchanged = |what: &'static str| async move {
        assert_eq!(
            &user.users_view().await,
            front,
            "round {round}: {what} changed the user's front tab"
        );
    };
    let in_page = |script: &'static str| async move {
        agent
            .ok("evaluate_script", json!({"function": script}))
            .await
            .json["result"]
            .clone()
    };
    agent.ok("select_page", json!({"pageId": tab})).await;
    agent
        .ok(
            "navigate_page",
            json!({"url": page_on(host, "background.html")}),
        )
        .await;
    unchanged("navigate_page").await;
    let snap = agent.ok("take_snapshot", json!({})).await;
    unchanged("take_snapshot").await;
    // Where a press would raise the window, the button is clicked from the keyboard.
    let clicks = 1;
    let clicked = agent
        .ok("click", json!({"uid": snap.uid_of("button \"Clicked 0\"")}))
        .await;
    if !presses {
        clicked.says("from the keyboard").says("pressed Enter");
    }
    assert_eq!(
        in_page("() => document.getElementById('count').textContent").await,
        format!("Clicked {clicks}")
    );
    unchanged("click").await;
    agent
        .ok("hover", json!({"uid": snap.uid_of("\"Hover target\"")}))
        .await;
    agent
        .ok("wait_for", json!({"text": "hovered 1", "timeout": 20000}))
        .await;
    unchanged("hover").await;
    let note = format!("note {round}");
    agent
        .ok(
            "fill",
            json!({"uid": snap.uid_of("textbox \"Note\""), "value": note}),
        )
        .await;
    // Saved on a page timer, which a hidden tab runs late: wait_for must not hang on it.
    agent
        .ok(
            "wait_for",
            json!({"text": format!("Saved: {note}"), "timeout": 20000}),
        )
        .await;
    unchanged("fill and wait_for").await;
    for shot in [
        json!({}),
        json!({"fullPage": true}),
        json!({"uid": snap.uid_of("textbox \"Note\"")}),
    ] {
        let taken = agent.ok("take_screenshot", shot.clone()).await;
        assert_eq!(taken.images.len(), 1, "{shot}: {}", taken.text);
    }
    unchanged("take_screenshot").await;
    agent.ok("list_3p_developer_tools", json!({})).await;
    let state = agent
        .ok(
            "execute_3p_developer_tool",
            json!({"toolName": "state", "params": "{}"}),
        )
        .await;
    assert_eq!(state.json["result"]["clicks"], clicks, "{}", state.text);
    assert_eq!(state.json["result"]["saved"], format!("Saved: {note}"));
    unchanged("execute_3p_developer_tool").await;
    if !presses {
        return;
    }
    agent
        .ok("click", json!({"uid": snap.uid_of("button \"Ask\"")}))
        .await
        .says("Proceed?")
        .says("handle_dialog");
    agent.ok("handle_dialog", json!({"action": "accept"})).await;
    assert_eq!(
        in_page("() => document.getElementById('answer').textContent").await,
        "yes"
    );
    unchanged("a dialog and handle_dialog").await;
}

#[tokio::test]
async fn in_the_users_own_browser_a_shared_tab_behind_others_does_everything() {
    let (agent, cdp) = Agent::launch_with_cdp(&[
        "--shareAllTabs=false",
        THIRD_PARTY,
        TEST_HOST_RULE,
        "--thirdPartyOrigins=http://tabwire.test:*",
    ])
    .await;
    let extension = cdp.wait_extension_id(SEEN).await;

    // The user opens their app and shares it from the toolbar button.
    let app = page("background.html");
    cdp.open_tab(&app).await;
    let popup = Popup::open_on_active_tab(&cdp, &extension).await;
    let tab = popup.users_front().await[1]
        .as_i64()
        .expect("the user's active tab");
    popup
        .wait("document.querySelector('#current button.share')")
        .await;
    popup.click("#current button.share").await;
    popup
        .wait("document.querySelector('#current button.unshare')")
        .await;
    popup.close().await;

    // Then they go on working in another tab of the same window.
    cdp.open_tab(&page("index.html")).await;
    let user = Popup::open(&cdp, &extension, tab).await;
    assert_ne!(
        user.users_front().await[1],
        tab,
        "the user's tab is in front"
    );
    let front = user.users_view().await;
    everything_on_a_hidden_tab(&agent, &user, &front, tab, 1, TEST_HOST, true).await;
    assert_eq!(
        agent.evaluate("() => document.visibilityState").await,
        "hidden",
        "the tab stayed behind"
    );

    // The app in front of its own window, and a second window in front of that one.
    let second = cover_with_a_second_window(&user, tab).await;
    assert_eq!(
        user.users_front().await[0],
        second,
        "the second window is in front"
    );
    let front = user.users_view().await;
    everything_on_a_hidden_tab(&agent, &user, &front, tab, 2, "127.0.0.1", false).await;

    // Its window minimized.
    let window = user
        .eval(&format!("chrome.tabs.get({tab}).then(t => t.windowId)"))
        .await;
    user.eval(&format!(
        "chrome.windows.update({window}, {{state: 'minimized'}}).then(w => w.state)"
    ))
    .await;
    user.wait_minimized(&window).await;
    let front = user.users_view().await;
    everything_on_a_hidden_tab(&agent, &user, &front, tab, 3, TEST_HOST, false).await;
    agent.quit().await;
}

/// Longest one input call may take on a hidden tab: far above what it takes (tens of
/// milliseconds), far below Chrome's 5 s fallback for a mouse move that waits for a
/// frame the tab never draws.
const NO_FALLBACK: Duration = Duration::from_secs(3);

/// `click`, `hover`, `drag` and `type_text` on the hidden tab `tab`, after loading
/// background.html on `host` into it (a document that has not drawn yet, in a new
/// renderer when the site changes). Each is checked in the page, for its time, and
/// for leaving the user's view (`front`: windows, their active tabs, which has the
/// focus) and the page's visibility (`visibility`, its `visibilityState` while hidden
/// this way) as they were. (The page itself may take the focus within its window, as
/// a click does; the user's window keeps it.) `presses`: whether mouse presses may be
/// sent; when not (a tab shown in a minimized window or one behind the user's), the
/// button is clicked from the keyboard, a click on an element with only a click
/// handler and `drag` are refused without effect, and the text goes in with `fill`.
async fn input_on_a_hidden_tab(
    agent: &Agent,
    user: &Popup<'_>,
    front: &Value,
    tab: i64,
    host: &str,
    visibility: &str,
    presses: bool,
) {
    let mode = crate::display::mode_name();
    agent.ok("select_page", json!({"pageId": tab})).await;
    agent
        .ok(
            "navigate_page",
            json!({"url": page_on(host, "background.html")}),
        )
        .await;
    let snap = agent.ok("take_snapshot", json!({})).await;
    let in_page = |script: &'static str| async move {
        agent
            .ok("evaluate_script", json!({"function": script}))
            .await
            .json["result"]
            .clone()
    };
    let checked = |tool: &'static str,
                   args: Value,
                   effect: &'static str,
                   expected: &'static str,
                   outcome: Outcome| {
        let in_page = &in_page;
        async move {
            let started = std::time::Instant::now();
            match outcome {
                Outcome::Done => {
                    agent.ok(tool, args).await;
                }
                Outcome::FromKeyboard => {
                    agent.ok(tool, args).await.says("from the keyboard");
                }
                Outcome::Refused(why) => {
                    agent
                        .err(tool, args)
                        .await
                        .says("Nothing was clicked")
                        .says("bringToFront: true")
                        .says(why);
                }
            }
            let took = started.elapsed();
            assert!(took < NO_FALLBACK, "{mode}, {host}: {tool} took {took:?}");
            assert_eq!(in_page(effect).await, expected, "{mode}, {host}: {tool}");
            assert_eq!(
                &user.users_view().await,
                front,
                "{mode}, {host}: {tool} changed the user's windows, tabs or focus"
            );
            assert_eq!(
                in_page("() => document.visibilityState").await,
                visibility,
                "{mode}, {host}: after {tool}"
            );
        }
    };
    let pressed_or = |instead| if presses { Outcome::Done } else { instead };
    checked(
        "click",
        json!({"uid": snap.uid_of("button \"Clicked 0\"")}),
        "() => document.getElementById('count').textContent",
        "Clicked 1",
        pressed_or(Outcome::FromKeyboard),
    )
    .await;
    checked(
        "click",
        json!({"uid": snap.uid_of("\"Plain target\"")}),
        "() => document.getElementById('plain').textContent",
        if presses { "plain 1" } else { "plain 0" },
        pressed_or(Outcome::Refused("cannot be clicked from the keyboard")),
    )
    .await;
    checked(
        "click",
        json!({"uid": snap.uid_of("checkbox \"Agree\"")}),
        "() => String(document.getElementById('agree').checked)",
        "true",
        pressed_or(Outcome::FromKeyboard),
    )
    .await;
    checked(
        "hover",
        json!({"uid": snap.uid_of("\"Hover target\"")}),
        "() => document.getElementById('hover').textContent",
        "hovered 1",
        Outcome::Done,
    )
    .await;
    checked(
        "drag",
        json!({"from_uid": snap.uid_of("\"Card\""), "to_uid": snap.uid_of("\"Drop zone\"")}),
        "() => document.getElementById('drops').textContent",
        if presses { "dropped 1" } else { "" },
        pressed_or(Outcome::Refused("a drag")),
    )
    .await;
    let note = snap.uid_of("textbox \"Note\"");
    if presses {
        checked(
            "click",
            json!({"uid": note}),
            "() => document.activeElement.id",
            "note",
            Outcome::Done,
        )
        .await;
    } else {
        checked(
            "fill",
            json!({"uid": note, "value": "filled"}),
            "() => document.activeElement.id",
            "note",
            Outcome::Done,
        )
        .await;
    }
    checked(
        "type_text",
        json!({"text": " typed"}),
        "() => document.getElementById('note').value",
        if presses { " typed" } else { "filled typed" },
        Outcome::Done,
    )
    .await;
}

/// What a tool of [`input_on_a_hidden_tab`] is to answer.
#[derive(Clone, Copy)]
enum Outcome {
    /// Done.
    Done,
    /// A click done from the keyboard, which the reply says.
    FromKeyboard,
    /// Refused, without effect, saying this besides the ways out.
    Refused(&'static str),
}

/// The user's browser with the agent's tab behind the user's, then alone in a
/// minimized window: the popup's view of what the user sees, and the tab.
async fn users_browser_with_a_background_tab() -> (Agent, crate::cdp::Cdp, String, i64) {
    let (agent, cdp) = Agent::launch_with_cdp(&[TEST_HOST_RULE]).await;
    let extension = cdp.wait_extension_id(SEEN).await;
    let opened = agent
        .ok(
            "new_page",
            json!({"url": page("index.html"), "background": true}),
        )
        .await;
    let tab = opened.selected_page();
    (agent, cdp, extension, tab)
}

#[tokio::test]
async fn input_reaches_a_tab_behind_the_users_at_once_and_in_a_minimized_window_leaves_it_there() {
    let (agent, cdp, extension, tab) = users_browser_with_a_background_tab().await;
    let user = Popup::open(&cdp, &extension, tab).await;
    let front = user.users_view().await;
    assert_ne!(
        user.users_front().await[1],
        tab,
        "the user's tab is in front"
    );
    input_on_a_hidden_tab(&agent, &user, &front, tab, TEST_HOST, "hidden", true).await;
    input_on_a_hidden_tab(&agent, &user, &front, tab, "127.0.0.1", "hidden", true).await;

    // Moved to a window of its own, which the user minimizes.
    let window = user
        .eval(&format!(
            "chrome.windows.create({{tabId: {tab}, focused: false}}).then(w => w.id)"
        ))
        .await;
    user.eval(&format!(
        "chrome.windows.update({window}, {{state: 'minimized'}}).then(w => w.state)"
    ))
    .await;
    user.wait_minimized(&window).await;
    let front = user.users_view().await;
    input_on_a_hidden_tab(&agent, &user, &front, tab, TEST_HOST, "hidden", false).await;
    agent.quit().await;
}

#[tokio::test]
async fn two_agents_at_once_each_on_its_own_hidden_tab_get_input_at_foreground_speed() {
    let (agent, cdp, extension, tab) = users_browser_with_a_background_tab().await;
    let other = agent.join_named("second-agent").await;
    let theirs = other
        .ok(
            "new_page",
            json!({"url": page("index.html"), "background": true}),
        )
        .await
        .selected_page();
    assert_ne!(theirs, tab);
    let user = Popup::open(&cdp, &extension, tab).await;
    let front = user.users_view().await;
    // Each agent's session sets up its own tab: input on both, side by side, each
    // after a cross-site load, neither waiting for frames nor moving the user.
    tokio::join!(
        input_on_a_hidden_tab(&agent, &user, &front, tab, TEST_HOST, "hidden", true),
        input_on_a_hidden_tab(&other, &user, &front, theirs, "127.0.0.1", "hidden", true),
    );
    other.quit().await;
    agent.quit().await;
}

#[tokio::test]
async fn after_the_extension_worker_restarts_a_hidden_tab_gets_input_at_once() {
    let (agent, cdp, extension, tab) = users_browser_with_a_background_tab().await;
    let user = Popup::open(&cdp, &extension, tab).await;
    let front = user.users_view().await;
    input_on_a_hidden_tab(&agent, &user, &front, tab, TEST_HOST, "hidden", true).await;
    // Chrome stops the worker: its debugging sessions go with it, and the new worker's
    // session must set the tab up again (the overlay that keeps mouse moves from
    // waiting for a frame), on its own.
    cdp.stop_service_worker(&extension).await;
    crate::faults::answers_promptly(&agent, "after the worker stopped").await;
    input_on_a_hidden_tab(&agent, &user, &front, tab, "127.0.0.1", "hidden", true).await;
    agent.quit().await;
}

#[tokio::test]
async fn in_a_covered_window_input_leaves_the_focus_where_it_was_and_clicks_come_from_the_keyboard()
{
    let (agent, cdp, extension, tab) = users_browser_with_a_background_tab().await;
    let user = Popup::open(&cdp, &extension, tab).await;
    // The tab in front of its window, and a second window over that one.
    cover_with_a_second_window(&user, tab).await;
    let front = user.users_view().await;
    // A covered window is not hidden to the page (Chrome on Linux does not track
    // which windows cover which, headless neither): it stays visible, but must not
    // take the focus.
    input_on_a_hidden_tab(&agent, &user, &front, tab, TEST_HOST, "visible", false).await;
    agent.quit().await;
}

/// Brings `tab` to the front of its window, then opens a second window, focused, over
/// that one; returns the second window's id once it has the focus.
async fn cover_with_a_second_window(user: &Popup<'_>, tab: i64) -> Value {
    user.eval(&format!("chrome.tabs.update({tab}, {{active: true}})"))
        .await;
    let second = user
        .eval(&format!(
            "chrome.windows.create({{url: {}, focused: true}}).then(w => w.id)",
            json!(page("second.html"))
        ))
        .await;
    user.wait_focused(&second).await;
    second
}

#[tokio::test]
async fn with_another_application_in_front_clicks_in_the_browsers_own_window_come_from_the_keyboard(
) {
    // Headless, no other application can be in front: every window says it has the
    // focus, and presses there are the first test's.
    if !crate::display::headful() {
        return;
    }
    let (agent, cdp, extension, tab) = users_browser_with_a_background_tab().await;
    let user = Popup::open(&cdp, &extension, tab).await;
    // The agent's tab in front of the window the user worked in last; then the user
    // goes to another application, whose window covers the browser's.
    user.eval(&format!("chrome.tabs.update({tab}, {{active: true}})"))
        .await;
    let _other = OtherApplication::start(&agent);
    user.wait_none_focused().await;
    // Whether the page is told it is hidden depends on how much of the browser's
    // window the other one covers (Chrome tracks that for other applications'
    // windows): the input must leave it as it is.
    let visibility = agent
        .ok(
            "evaluate_script",
            json!({"function": "() => document.visibilityState"}),
        )
        .await
        .json["result"]
        .clone();
    let visibility = visibility.as_str().expect("a visibility state");
    let front = user.users_view().await;
    input_on_a_hidden_tab(&agent, &user, &front, tab, TEST_HOST, visibility, false).await;
    agent.quit().await;
}

/// Another application with a window in front of the browser's, on its screen: a
/// second Chromium on a profile of its own, a process the browser does not know.
/// Ended when dropped.
struct OtherApplication {
    child: std::process::Child,
    _profile: tempfile::TempDir,
}

impl OtherApplication {
    fn start(agent: &Agent) -> OtherApplication {
        let profile = tempfile::Builder::new()
            .prefix("tabwire-e2e-other-app-")
            .tempdir()
            .expect("temp profile");
        let display = agent
            .browser_env()
            .into_iter()
            .find_map(|(name, value)| (name == "DISPLAY").then_some(value))
            .expect("a headful agent has a screen");
        let child = crate::chromium::on_screen(profile.path(), &display)
            .arg("--app=data:text/html,<title>Another application</title>")
            .spawn()
            .expect("start a second Chromium");
        OtherApplication {
            child,
            _profile: profile,
        }
    }
}

impl Drop for OtherApplication {
    fn drop(&mut self) {
        crate::chromium::kill_group(&mut self.child);
    }
}
