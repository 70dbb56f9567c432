//! The extension's popup, driven as a user drives it: opened for one tab, its buttons
//! clicked or pressed with the keyboard, its text read. It is opened in a tab behind
//! the active one, as the toolbar popup leaves the user's tabs as they are, and laid out
//! at the size a toolbar popup may take; being an extension page, it can also ask
//! `chrome.tabs` and `chrome.windows` what the user sees.
//!
//! The tests below walk the popup through its states (not connected, no agent, one
//! agent with this tab unshared and shared, three agents with five tabs, and, in
//! `install.rs`, a version mismatch), check that each fits without scrolling, and save a
//! picture of each in `target/popup-shots/` (docs/popup/ keeps the reviewed ones).

use std::path::{Path, PathBuf};
use std::time::Duration;

use base64::Engine as _;
use serde_json::{json, Value};

use crate::cdp::{Cdp, Session};
use crate::harness::{agent_label, descendants, page, Agent, AGENT_NAME};
use crate::sharing::{tab_id, OWN_BROWSER};

/// Longest the popup may take to show a change.
const SEEN: Duration = Duration::from_secs(20);

/// The widest the popup may be (a design limit; Chrome allows 800 px).
const MAX_WIDTH: u32 = 400;

/// The tallest a toolbar popup is shown: Chrome gives a popup at most 600 px and
/// scrolls the rest.
const MAX_HEIGHT: u32 = 600;

/// Where the pictures of the popup go.
fn shots() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/popup-shots")
}

/// An open popup about one tab.
pub struct Popup<'a> {
    cdp: &'a Cdp,
    session: Session,
    target: String,
}

impl<'a> Popup<'a> {
    /// Opens `popup.html?tab=<tab>` and waits for its first render.
    pub async fn open(cdp: &'a Cdp, extension: &str, tab: i64) -> Popup<'a> {
        Self::open_page(
            cdp,
            &format!("chrome-extension://{extension}/popup.html?tab={tab}"),
        )
        .await
    }

    /// Opens the popup as the toolbar button does: about the user's active tab.
    pub async fn open_on_active_tab(cdp: &'a Cdp, extension: &str) -> Popup<'a> {
        Self::open_page(cdp, &format!("chrome-extension://{extension}/popup.html")).await
    }

    async fn open_page(cdp: &'a Cdp, url: &str) -> Popup<'a> {
        let target = cdp.open_background_tab(url).await;
        let session = cdp.attach(&target).await;
        // A toolbar popup has the focus: so does this one (`:focus` and `:focus-visible`
        // match only in a focused page), laid out in the largest box a popup may fill.
        cdp.send_to(
            &session,
            "Emulation.setFocusEmulationEnabled",
            json!({"enabled": true}),
        )
        .await;
        cdp.send_to(
            &session,
            "Emulation.setDeviceMetricsOverride",
            json!({"width": MAX_WIDTH, "height": MAX_HEIGHT, "deviceScaleFactor": 1, "mobile": false}),
        )
        .await;
        let popup = Popup {
            cdp,
            session,
            target,
        };
        popup
            .wait("Number(document.body.dataset.revision) > 0")
            .await;
        popup
    }

    /// Evaluates `expression` in the popup (promises awaited), by value.
    pub async fn eval(&self, expression: &str) -> Value {
        self.cdp.evaluate(&self.session, expression).await
    }

    /// Waits until `condition` holds in the popup.
    pub async fn wait(&self, condition: &str) {
        self.cdp.wait_for(&self.session, condition, SEEN).await;
    }

    /// Clicks the element `selector` names once the popup shows it (it renders what
    /// the worker pushes, which may come a render or two after the last click), then
    /// waits for the popup to render again.
    pub async fn click(&self, selector: &str) {
        let quoted = json!(selector).to_string();
        self.wait(&format!("document.querySelector({quoted}) !== null"))
            .await;
        let before = self.revision().await;
        self.cdp.click(&self.session, selector).await;
        self.wait(&format!(
            "Number(document.body.dataset.revision) > {before}"
        ))
        .await;
    }

    async fn revision(&self) -> i64 {
        self.eval("Number(document.body.dataset.revision)")
            .await
            .as_i64()
            .expect("a render revision")
    }

    /// The popup's text, for assertions.
    pub async fn text(&self) -> String {
        self.eval("document.body.innerText")
            .await
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// What the user has in front: `[focused window id, its active tab id]`.
    pub async fn users_front(&self) -> Value {
        self.eval(
            "chrome.windows.getLastFocused({populate: true}).then(w => \
             [w.id, w.tabs.find(t => t.active).id])",
        )
        .await
    }

    /// What the user sees: each window's id, state (normal, minimized, …), active tab
    /// and whether it has the focus. (A minimized window's focus is left out: headless
    /// Chromium reports a minimized window focused once a page in it was clicked, beside
    /// the window really in front, while the window stays minimized.)
    pub async fn users_view(&self) -> Value {
        self.eval(
            "chrome.windows.getAll({populate: true}).then(ws => ws.map(w =>              [w.id, w.state, w.tabs.find(t => t.active).id,               w.state === 'minimized' ? null : w.focused]))",
        )
        .await
    }

    /// Waits until the window `window` is the focused one (now, or on its
    /// `chrome.windows.onFocusChanged`).
    pub async fn wait_focused(&self, window: &Value) {
        let focused = self
            .eval(&format!(
                "new Promise((resolve) => {{
                    const check = () => chrome.windows.getLastFocused().then(w => {{
                        if (w.id === {window}) resolve(true);
                    }});
                    chrome.windows.onFocusChanged.addListener(check);
                    check();
                    setTimeout(() => resolve(false), {});
                }})",
                SEEN.as_millis()
            ))
            .await;
        assert_eq!(
            focused,
            Value::Bool(true),
            "window {window} never got the focus"
        );
    }

    /// Waits until no browser window has the focus: another application is in front.
    pub async fn wait_none_focused(&self) {
        self.wait_windows(
            "ws.every(w => !w.focused)",
            "every window to lose the focus",
        )
        .await;
    }

    /// Waits until the window `window` says it is minimized (the window manager does
    /// it after `chrome.windows.update` has answered).
    pub async fn wait_minimized(&self, window: &Value) {
        self.wait_windows(
            &format!("ws.some(w => w.id === {window} && w.state === 'minimized')"),
            "the window to be minimized",
        )
        .await;
    }

    /// Waits until `condition` holds of `ws`, the windows `chrome.windows.getAll`
    /// lists. (Chrome has no event for every change of a window's state or focus: a
    /// wait on `chrome.windows.onFocusChanged` did not end when another application
    /// took the focus, under openbox. The page checks again at each timer tick, about once a
    /// second in a background tab, within half of [`SEEN`], which leaves the CDP call
    /// time to answer.)
    async fn wait_windows(&self, condition: &str, what: &str) {
        let met = self
            .eval(&format!(
                "new Promise((resolve) => {{
                    const done = (met) => {{ clearInterval(ticks); resolve(met); }};
                    const check = () => chrome.windows.getAll().then(ws => {{
                        if ({condition}) done(true);
                    }});
                    const ticks = setInterval(check, 100);
                    check();
                    setTimeout(() => done(false), {});
                }})",
                SEEN.as_millis() / 2
            ))
            .await;
        assert_eq!(met, Value::Bool(true), "waited in vain for {what}");
    }

    /// The line under the status that says why the host is not connected.
    pub async fn why_not_connected(&self) -> String {
        let why = self
            .eval("document.querySelector('#why-not-connected').textContent")
            .await;
        why.as_str().unwrap_or_default().to_owned()
    }

    /// Presses a key (`Enter`, `Tab`) in the popup, as the user's keyboard does.
    pub async fn press(&self, key: &str) {
        let (code, text) = match key {
            "Enter" => (13, "\r"),
            "Tab" => (9, ""),
            other => panic!("no key code for {other}"),
        };
        for kind in ["keyDown", "keyUp"] {
            let mut event =
                json!({"type": kind, "key": key, "code": key, "windowsVirtualKeyCode": code});
            if kind == "keyDown" && !text.is_empty() {
                event["text"] = json!(text);
            }
            self.cdp
                .send_to(&self.session, "Input.dispatchKeyEvent", event)
                .await;
        }
    }

    /// Checks that the popup fits its box: no wider than [`MAX_WIDTH`], and nothing to
    /// scroll to in a box of [`MAX_WIDTH`] by [`MAX_HEIGHT`].
    pub async fn assert_fits(&self) {
        let size = self
            .eval(
                "({width: document.body.getBoundingClientRect().width, \
                  scrollWidth: document.scrollingElement.scrollWidth, \
                  scrollHeight: document.scrollingElement.scrollHeight, \
                  innerWidth, innerHeight})",
            )
            .await;
        let number = |key: &str| size[key].as_f64().unwrap_or(f64::MAX);
        assert!(
            number("width") <= f64::from(MAX_WIDTH)
                && number("scrollWidth") <= number("innerWidth")
                && number("scrollHeight") <= number("innerHeight"),
            "the popup does not fit {MAX_WIDTH}x{MAX_HEIGHT} without scrolling: {size}\n{}",
            self.text().await
        );
    }

    /// Saves a picture of the popup as it is now, cut to its content as a toolbar popup
    /// is, to `target/popup-shots/<name>.png`.
    pub async fn shoot(&self, name: &str) {
        let size = self
            .eval(&format!(
                "[Math.ceil(document.body.getBoundingClientRect().width), \
                  Math.min({MAX_HEIGHT}, Math.ceil(document.body.getBoundingClientRect().height))]"
            ))
            .await;
        let clip = json!({"x": 0, "y": 0, "width": size[0], "height": size[1], "scale": 1});
        let shot = self
            .cdp
            .send_to(
                &self.session,
                "Page.captureScreenshot",
                json!({"format": "png", "clip": clip}),
            )
            .await;
        let png = base64::engine::general_purpose::STANDARD
            .decode(shot["data"].as_str().unwrap_or_default())
            .unwrap_or_else(|e| panic!("Page.captureScreenshot gave no PNG ({e}): {shot}"));
        let folder = shots();
        std::fs::create_dir_all(&folder)
            .unwrap_or_else(|e| panic!("cannot make {}: {e}", folder.display()));
        let path = folder.join(format!("{name}.png"));
        std::fs::write(&path, png)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    }

    /// Closes the popup, as clicking elsewhere does.
    pub async fn close(self) {
        let closed = self
            .cdp
            .send(
                "Target.closeTarget",
                serde_json::json!({"targetId": self.target}),
            )
            .await;
        assert_eq!(closed["success"], true, "Target.closeTarget said {closed}");
    }
}

/// What `#status-words` says is `words`.
fn status_is(words: &str) -> String {
    format!(
        "document.querySelector('#status-words').textContent === {}",
        json!(words)
    )
}

/// The focused element is a button showing a focus ring.
const BUTTON_FOCUSED_VISIBLY: &str = "document.activeElement instanceof HTMLButtonElement && \
    document.activeElement.matches(':focus-visible') && \
    getComputedStyle(document.activeElement).outlineStyle !== 'none'";

#[tokio::test]
async fn the_popup_walked_through_its_states_fits_and_is_pictured() {
    let (agent, cdp) = Agent::launch_with_cdp(&[OWN_BROWSER]).await;
    let extension = cdp.wait_extension_id(SEEN).await;
    let url = page("index.html");
    cdp.open_tab(&url).await;
    let tab = tab_id(&cdp, &extension, &url).await;
    agent.ok("list_pages", json!({})).await.lacks(&url);

    // One agent, nothing shared: sharing is all the popup can be for, so its one share
    // button has the focus, with a ring, and Enter shares.
    let popup = Popup::open(&cdp, &extension, tab).await;
    popup.wait(&status_is("Host connected · 1 agent")).await;
    popup.wait(BUTTON_FOCUSED_VISIBLY).await;
    let focused = popup.eval("document.activeElement.textContent").await;
    let label = agent_label(AGENT_NAME);
    assert_eq!(focused, json!(format!("Share this tab with {label}")));
    popup.assert_fits().await;
    popup.shoot("one-agent-tab-not-shared").await;
    popup.press("Enter").await;
    popup
        .wait("document.querySelector('#current button.unshare')")
        .await;
    popup.assert_fits().await;
    popup.shoot("tab-shared").await;
    agent.ok("list_pages", json!({})).await.says(&url);

    // The badge wears the colour of the agent's tab group.
    let colors = popup
        .eval(&format!(
            "chrome.tabs.get({tab}).then(async t => [(await chrome.tabGroups.get(t.groupId)).color, \
               await chrome.action.getBadgeBackgroundColor({{tabId: {tab}}}), \
               await chrome.action.getBadgeText({{tabId: {tab}}})])"
        ))
        .await;
    // Chrome's group colours, as the badge draws them.
    let group_rgb = match colors[0].as_str() {
        Some("grey") => json!([0x5f, 0x63, 0x68, 255]),
        Some("blue") => json!([0x1a, 0x73, 0xe8, 255]),
        Some("red") => json!([0xd9, 0x30, 0x25, 255]),
        Some("yellow") => json!([0xf9, 0xab, 0x00, 255]),
        Some("green") => json!([0x1e, 0x8e, 0x3e, 255]),
        Some("pink") => json!([0xd0, 0x18, 0x84, 255]),
        Some("purple") => json!([0x93, 0x34, 0xe6, 255]),
        Some("cyan") => json!([0x00, 0x7b, 0x83, 255]),
        Some("orange") => json!([0xfa, 0x90, 0x3e, 255]),
        other => panic!("the agent's tab is in a group with a colour, not {other:?}"),
    };
    assert_eq!(colors[1], group_rgb, "badge colour: {colors}");
    assert_eq!(colors[2], json!("1"));

    // Opened on another tab (to take the first one back, say): nothing has the focus,
    // so a reflex Enter shares nothing; Tab reaches a button, with a ring.
    let other_url = page("second.html");
    cdp.open_tab(&other_url).await;
    let other_tab = tab_id(&cdp, &extension, &other_url).await;
    let other = Popup::open(&cdp, &extension, other_tab).await;
    other
        .wait("document.querySelector('#current button.share')")
        .await;
    let active = other.eval("document.activeElement === document.body").await;
    assert_eq!(active, json!(true), "nothing focused");
    other.press("Enter").await;
    // A round trip through the worker after the key: a share it had sent is done by
    // the time the settings are saved.
    other.click("#save-settings").await;
    other
        .wait("document.querySelector('#settings-status').textContent === 'Saved'")
        .await;
    agent.ok("list_pages", json!({})).await.lacks(&other_url);
    other.press("Tab").await;
    other.wait(BUTTON_FOCUSED_VISIBLY).await;
    other.close().await;

    // Three agents with five tabs between them: all shown, nothing to scroll.
    agent
        .ok("new_page", json!({"url": page("second.html")}))
        .await;
    let second = agent.join_named("codex").await;
    let third = agent.join_named("gemini-cli").await;
    for name in ["big.html", "index.html?2"] {
        second.ok("new_page", json!({"url": page(name)})).await;
    }
    third
        .ok("new_page", json!({"url": page("second.html?3")}))
        .await;
    popup
        .wait(
            "document.querySelectorAll('li.agent').length === 3 && \
             document.querySelectorAll('#agents li.tab[data-tab]').length === 5",
        )
        .await;
    popup.wait(&status_is("Host connected · 3 agents")).await;
    popup.assert_fits().await;
    popup.shoot("three-agents-five-tabs").await;

    // Disconnect all: the host is still there, with no agent.
    popup.click("#disconnect-all").await;
    popup.wait(&status_is("Host connected · no agent")).await;
    let hidden = popup
        .eval("document.querySelector('#disconnect-all').hidden")
        .await;
    assert_eq!(hidden, json!(true), "nothing to disconnect");
    popup.assert_fits().await;
    popup.shoot("no-agent").await;

    // The host's registration gone and the host dead: not connected, and why.
    let manifest = agent
        .profile()
        .join("NativeMessagingHosts/dev.tabwire.json");
    std::fs::remove_file(&manifest).expect("remove the native-host manifest");
    let host = descendants(agent.pid())
        .into_iter()
        .find(|p| p.cmdline.contains("native-host chrome-extension://"))
        .expect("the native host Chrome started");
    // SAFETY: kill(2) on a pid we just read; at worst it names a process that is gone.
    unsafe { libc::kill(host.pid as i32, libc::SIGKILL) };
    popup.wait(&status_is("Host not connected")).await;
    popup
        .wait(
            "document.querySelector('#why-not-connected').textContent.includes('tabwire install')",
        )
        .await;
    popup.assert_fits().await;
    popup.shoot("not-connected").await;
    for other in [second, third] {
        other.quit().await;
    }
    agent.quit().await;
}
