//! An agent asking the user for the tab in front (`request_page`), and the user pointing
//! at an element for an agent, in a browser like the user's own (`--shareAllTabs=false`).
//!
//! The request is seen where the user sees it (tabwire's button wears a "?", a
//! notification names the agent and its reason, the popup offers Share and Not now) and
//! answered with the popup's buttons, or not at all, or with the browser quitting under
//! it. The pick is made as the user makes it: the popup's *Point at an element*, then a
//! real mouse click in the page, sent from the test's own DevTools connection.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::harness::{agent_label, descendants, page, Reply, AGENT_NAME};
use crate::popup::Popup;
use crate::sharing::own_browser_with_a_user_tab;

/// Longest the browser may take to show a change.
const SEEN: Duration = Duration::from_secs(20);

/// Longest a call may take to fail once the browser is gone (under the 15 s
/// reconnect grace a worker restart gets, and under the request's own timeout).
const QUICK: Duration = Duration::from_secs(10);

/// Why the agent asks, as the user reads it.
const REASON: &str = "to check why the cart total is wrong";

/// What tabwire shows outside the popup, as a JavaScript promise run in an extension
/// page: `[the button's own badge text, the badge text on tab <tab>, the ids of
/// tabwire's notifications]`.
fn shown_outside(tab: i64) -> String {
    format!(
        "Promise.all([chrome.action.getBadgeText({{}}), \
           chrome.action.getBadgeText({{tabId: {tab}}}), \
           chrome.notifications.getAll().then(n => Object.keys(n))])"
    )
}

/// Waits until what tabwire shows outside the popup ([`shown_outside`]) passes `check`
/// (a JavaScript function of it), and returns it. A badge or a notification announces
/// no change, but the worker pushes its state to every open popup after changing them
/// (a render: `data-revision` moves), so `popup` checks at once and after each render.
async fn wait_outside(popup: &Popup<'_>, tab: i64, check: &str, what: &str) -> Value {
    let ms = SEEN.as_millis();
    let read = shown_outside(tab);
    let found = popup
        .eval(&format!(
            "new Promise((resolve) => {{
                const passes = {check};
                let done = false, timer = null, observer = null;
                const finish = (met, seen) => {{
                    if (done) return;
                    done = true; observer.disconnect(); clearTimeout(timer);
                    resolve({{met, seen}});
                }};
                const attempt = () => ({read}).then((seen) => {{ if (passes(seen)) finish(true, seen); }});
                observer = new MutationObserver(attempt);
                observer.observe(document.body, {{attributes: true, attributeFilter: ['data-revision']}});
                timer = setTimeout(() => ({read}).then((seen) => finish(passes(seen), seen)), {ms});
                attempt();
            }})"
        ))
        .await;
    assert_eq!(
        found["met"],
        json!(true),
        "tabwire's button and notifications did not show {what} within {SEEN:?}: \
         [button badge, tab badge, notifications] = {}",
        found["seen"]
    );
    found["seen"].clone()
}

/// The request shown: a "?" on tabwire's button (and so on the tab, which has no badge
/// of its own), and one notification.
const ASKING: &str = "([own, tab, notes]) => own === '?' && tab === '?' && notes.length === 1";

/// No request shown: no badge on the button, no notification.
const NOT_ASKING: &str = "([own, tab, notes]) => own === '' && notes.length === 0";

/// The popup shows a request.
const REQUEST_SHOWN: &str = "document.querySelector('#requests .request')";

/// The popup shows no request.
const NO_REQUEST: &str = "!document.querySelector('#requests .request')";

/// Waits until the user sees the request in `popup` and on tabwire's button, and a
/// notification.
async fn user_sees_the_request(popup: &Popup<'_>, tab: i64) {
    popup.wait(REQUEST_SHOWN).await;
    wait_outside(popup, tab, ASKING, "the request").await;
}

/// The popup's request line: "<agent> asks to work on this tab: <reason>".
async fn request_line(popup: &Popup<'_>) -> Value {
    popup
        .eval("document.querySelector('#requests .request p').innerText")
        .await
}

#[tokio::test]
async fn the_user_shares_the_tab_in_front_when_an_agent_asks() {
    let (agent, cdp, extension, tab, _) = own_browser_with_a_user_tab("index.html").await;
    let url = page("index.html");
    let label = agent_label(AGENT_NAME);

    // Nothing shared yet. The user has tabwire's popup open on the tab in front.
    agent.ok("list_pages", json!({})).await.lacks(&url);
    let popup = Popup::open(&cdp, &extension, tab).await;

    let asked = agent.call("request_page", json!({"reason": REASON}));
    let user = async {
        user_sees_the_request(&popup, tab).await;
        assert_eq!(
            request_line(&popup).await,
            json!(format!("{label} asks to work on this tab: {REASON}"))
        );
        popup.click("#requests .answer-share").await;
    };
    let (reply, ()) = tokio::join!(asked, user);
    assert!(!reply.is_error, "request_page failed:\n{}", reply.text);
    reply
        .says(&format!(
            "The user shared page {tab} ({url}) with you; it is selected."
        ))
        .says(&url);
    assert_eq!(reply.selected_page(), tab, "the shared page is selected");

    // The page is the agent's now: a call without a page id works in it.
    agent
        .ok("take_snapshot", json!({}))
        .await
        .says("Hello from the fixture page.");
    agent
        .ok(
            "evaluate_script",
            json!({"function": "() => location.href"}),
        )
        .await
        .says(&url);

    // The request is gone from the popup, the button and the notifications; the tab
    // wears its shared badge, and the popup offers to stop sharing it.
    popup.wait(NO_REQUEST).await;
    popup
        .wait("document.querySelector('#current button.unshare')")
        .await;
    let shown = wait_outside(&popup, tab, NOT_ASKING, "no request").await;
    assert_eq!(shown[1], json!("1"), "the shared tab's badge: {shown}");
    agent.quit().await;
}

#[tokio::test]
async fn not_now_tells_the_agent_and_shares_nothing() {
    let (agent, cdp, extension, tab, _) = own_browser_with_a_user_tab("index.html").await;
    let url = page("index.html");

    agent.ok("list_pages", json!({})).await.lacks(&url);
    let popup = Popup::open(&cdp, &extension, tab).await;

    let asked = agent.call("request_page", json!({"reason": REASON}));
    let user = async {
        user_sees_the_request(&popup, tab).await;
        popup.click("#requests .answer-no").await;
    };
    let (reply, ()) = tokio::join!(asked, user);
    assert!(
        reply.is_error,
        "request_page should have failed:\n{}",
        reply.text
    );
    reply
        .says("The user declined to share a tab")
        .says("Not now")
        .says("Do not ask again at once");

    // Nothing shared: no page listed, the tab refused, no badge left.
    agent
        .ok("list_pages", json!({}))
        .await
        .lacks(&url)
        .says("no tab is shared");
    agent
        .err("take_snapshot", json!({"pageId": tab}))
        .await
        .says("not shared with this agent");
    popup.wait(NO_REQUEST).await;
    popup
        .wait("document.querySelector('#current button.share')")
        .await;
    let shown = wait_outside(&popup, tab, NOT_ASKING, "no request").await;
    assert_eq!(shown[1], json!(""), "the tab has no badge: {shown}");
    agent.quit().await;
}

#[tokio::test]
async fn an_unanswered_request_is_withdrawn_after_its_timeout() {
    let (agent, cdp, extension, tab, _) = own_browser_with_a_user_tab("index.html").await;
    let url = page("index.html");
    // The user has the popup open, and answers nothing.
    agent.ok("list_pages", json!({})).await.lacks(&url);
    let popup = Popup::open(&cdp, &extension, tab).await;

    let started = Instant::now();
    let asked = async {
        let reply = agent
            .call("request_page", json!({"reason": REASON, "timeout": 3000}))
            .await;
        (reply, started.elapsed())
    };
    let ((reply, took), ()) = tokio::join!(asked, popup.wait(REQUEST_SHOWN));
    assert!(
        reply.is_error,
        "request_page should have failed:\n{}",
        reply.text
    );
    reply
        .says("No answer from the user within 3 s")
        .says("nothing was shared");
    assert!(
        took >= Duration::from_millis(3000) && took < Duration::from_millis(3000) + QUICK,
        "request_page answered after {took:?}, not after its 3 s timeout"
    );

    // Withdrawn: not in the popup, not on the button, no notification; nothing shared.
    popup.wait(NO_REQUEST).await;
    wait_outside(&popup, tab, NOT_ASKING, "no request").await;
    agent.ok("list_pages", json!({})).await.lacks(&url);
    agent.quit().await;
}

#[tokio::test]
async fn a_request_waiting_when_the_browser_quits_fails_at_once() {
    let (agent, cdp, extension, tab, _) = own_browser_with_a_user_tab("index.html").await;
    // An agent on the user's browser, not the one that launched it.
    agent.ok("list_pages", json!({})).await;
    let joined = agent.join().await;
    joined.ok("list_pages", json!({})).await;
    let popup = Popup::open(&cdp, &extension, tab).await;

    let asked = async {
        let reply = joined
            .call(
                "request_page",
                json!({"reason": REASON, "timeout": 120_000}),
            )
            .await;
        (reply, Instant::now())
    };
    let quit = async {
        user_sees_the_request(&popup, tab).await;
        let browser = descendants(agent.pid())
            .into_iter()
            .find(|p| p.ppid == agent.pid() && p.cmdline.contains("--user-data-dir="))
            .expect("the browser tabwire launched");
        // SAFETY: kill(2) on the browser we launched, which is still running.
        let killed = unsafe { libc::kill(browser.pid as libc::pid_t, libc::SIGKILL) };
        assert_eq!(killed, 0, "cannot kill the browser");
        Instant::now()
    };
    let ((reply, answered), killed) =
        tokio::time::timeout(SEEN + QUICK, async { tokio::join!(asked, quit) })
            .await
            .unwrap_or_else(|_| {
                panic!(
                    "request_page was still waiting {QUICK:?} after the browser was killed\n\
                     server log:\n{}",
                    joined.log()
                )
            });
    let took = answered.duration_since(killed);
    assert!(
        took < QUICK,
        "request_page failed {took:?} after the browser was killed: it waited for a \
         browser known to be gone\n{}",
        reply.text
    );
    assert!(
        reply.is_error,
        "request_page should have failed:\n{}",
        reply.text
    );
    reply
        .lacks("No answer from the user")
        .says("The browser quit before answering")
        .says("start it again");
    joined.quit().await;
    agent.quit().await;
}

/// Sends a left click at the middle of `selector` in the page, as the user's mouse
/// does: a move there, a press and a release.
async fn users_click(cdp: &crate::cdp::Cdp, session: &crate::cdp::Session, selector: &str) {
    let at = cdp
        .evaluate(
            session,
            &format!(
                "(() => {{ const r = document.querySelector({}).getBoundingClientRect(); \
                   return [r.x + r.width / 2, r.y + r.height / 2]; }})()",
                json!(selector)
            ),
        )
        .await;
    let (x, y) = (at[0].as_f64(), at[1].as_f64());
    let (Some(x), Some(y)) = (x, y) else {
        panic!("no place to click {selector} at: {at}");
    };
    for (kind, buttons) in [("mouseMoved", 0), ("mousePressed", 1), ("mouseReleased", 0)] {
        cdp.send_to(
            session,
            "Input.dispatchMouseEvent",
            json!({"type": kind, "x": x, "y": y, "button": "left", "buttons": buttons,
                   "clickCount": 1}),
        )
        .await;
    }
}

/// The element the user pointed at, from a reply's structured content.
fn pointed_at(reply: &Reply) -> &Value {
    &reply.json["userPointedAt"]
}

#[tokio::test]
async fn the_user_points_at_an_element_for_one_agent() {
    let (agent, cdp, extension, tab, target) = own_browser_with_a_user_tab("point.html").await;
    agent.ok("list_pages", json!({})).await;
    let other = agent.join_named("agent-b").await;
    other.ok("list_pages", json!({})).await;
    let label = agent_label(AGENT_NAME);

    // The user shares the tab with both agents.
    let popup = Popup::open(&cdp, &extension, tab).await;
    for shared in 1..=2 {
        popup.click("#current button.share").await;
        popup
            .wait(&format!(
                "document.querySelectorAll('#current .shared').length === {shared}"
            ))
            .await;
    }
    let session = popup
        .eval(&format!(
            "[...document.querySelectorAll('#current .shared')]\
               .find(s => s.querySelector('.agent-name').textContent === {})\
               .querySelector('button.point').dataset.session",
            json!(label)
        ))
        .await;
    let session = session.as_str().expect("a Point button for the agent");

    // Point at an element for the first agent: the popup says what to do, and offers
    // no other pick meanwhile.
    popup
        .click(&format!(
            "#current button.point[data-session={}]",
            json!(session)
        ))
        .await;
    popup
        .wait("document.querySelector('#pointing .pointing')")
        .await;
    let says = popup
        .eval("document.querySelector('#pointing .pointing p').innerText")
        .await;
    assert_eq!(
        says,
        json!(format!(
            "Click an element in the page to point it out to {label}."
        ))
    );
    let offered = popup
        .eval("document.querySelectorAll('button.point').length")
        .await;
    assert_eq!(offered, json!(0), "no second pick while one is under way");
    popup.assert_fits().await;
    popup.shoot("pointing").await;

    // The user clicks the Open button in the page. The pick takes the click: the page
    // never sees it.
    let page_session = cdp.attach(&target).await;
    users_click(&cdp, &page_session, "#open").await;
    // Gone from the popup once the agent has been told.
    popup
        .wait("!document.querySelector('#pointing .pointing')")
        .await;
    let clicked = cdp.evaluate(&page_session, "window.clicked").await;
    assert_eq!(clicked, json!([]), "the pick's click reached the page");

    // The agent's next reply names the element, once; the other agent hears nothing.
    let reply = agent.ok("list_pages", json!({})).await;
    reply.says("## The user pointed at").says("button \"Open\"");
    let pointed = pointed_at(&reply);
    assert_eq!(
        (&pointed["pageId"], &pointed["role"], &pointed["name"]),
        (&json!(tab), &json!("button"), &json!("Open")),
        "{}",
        reply.json
    );
    let uid = pointed["uid"]
        .as_str()
        .unwrap_or_else(|| panic!("no uid in {}", reply.json));
    reply.says(&format!("uid={uid} button \"Open\" on page {tab}"));
    let heard = other.ok("list_pages", json!({})).await;
    heard.lacks("The user pointed at");
    assert_eq!(pointed_at(&heard), &Value::Null, "{}", heard.json);
    agent
        .ok("list_pages", json!({}))
        .await
        .lacks("The user pointed at");

    // The uid is one the input tools take: clicking it clicks Open.
    agent.ok("click", json!({"uid": uid, "pageId": tab})).await;
    let clicked = cdp.evaluate(&page_session, "window.clicked").await;
    assert_eq!(clicked, json!(["Open"]));
    // And the user's own clicks reach the page again: the pick is over.
    users_click(&cdp, &page_session, "#save").await;
    let clicked = cdp.evaluate(&page_session, "window.clicked").await;
    assert_eq!(clicked, json!(["Open", "Save"]));
    other.quit().await;
    agent.quit().await;
}

#[tokio::test]
async fn cancel_and_stopping_sharing_end_a_pick_and_the_page_takes_clicks_again() {
    let (agent, cdp, extension, tab, target) = own_browser_with_a_user_tab("point.html").await;
    agent.ok("list_pages", json!({})).await;
    let popup = Popup::open(&cdp, &extension, tab).await;
    popup.click("#current button.share").await;
    let page_session = cdp.attach(&target).await;

    // Cancel: the highlight goes, and the user's click is the page's again.
    popup.click("#current button.point").await;
    popup
        .wait("document.querySelector('#pointing .pointing')")
        .await;
    popup.click("#pointing .cancel-point").await;
    popup
        .wait("!document.querySelector('#pointing .pointing')")
        .await;
    users_click(&cdp, &page_session, "#save").await;
    let clicked = cdp.evaluate(&page_session, "window.clicked").await;
    assert_eq!(clicked, json!(["Save"]), "the click after Cancel");
    let told = agent.ok("list_pages", json!({})).await;
    told.lacks("The user pointed at");

    // Stopping sharing the tab ends the pick as well: nothing is left to tell.
    popup.click("#current button.point").await;
    popup
        .wait("document.querySelector('#pointing .pointing')")
        .await;
    popup.click("#current button.unshare").await;
    popup
        .wait("!document.querySelector('#pointing .pointing')")
        .await;
    users_click(&cdp, &page_session, "#open").await;
    let clicked = cdp.evaluate(&page_session, "window.clicked").await;
    assert_eq!(
        clicked,
        json!(["Save", "Open"]),
        "the click after unsharing"
    );
    agent
        .ok("list_pages", json!({}))
        .await
        .lacks("The user pointed at");
    agent.quit().await;
}
