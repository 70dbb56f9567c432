//! The extension's popup, driven as a user drives it: opened for one tab, its buttons
//! clicked, its text read. It is opened in a tab behind the active one, as the toolbar
//! popup leaves the user's tabs as they are; being an extension page, it can also ask
//! `chrome.tabs` and `chrome.windows` what the user sees.

use std::time::Duration;

use serde_json::Value;

use crate::cdp::{Cdp, Session};

/// Longest the popup may take to show a change.
const SEEN: Duration = Duration::from_secs(20);

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

    /// Clicks the element `selector` names, then waits for the popup to render again.
    pub async fn click(&self, selector: &str) {
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

    /// The line under the status that says why the host is not connected.
    pub async fn why_not_connected(&self) -> String {
        let why = self
            .eval("document.querySelector('#why-not-connected').textContent")
            .await;
        why.as_str().unwrap_or_default().to_owned()
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
