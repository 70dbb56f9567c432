//! A headless Chromium driven directly over CDP (no extension, no MCP), for contract
//! tests of the page scripts: pages opened with flat sessions, scripts evaluated and
//! called the way the engine does, answers read by value or by reference. Every step
//! waits on a CDP reply (bounded by [`CDP_LIMIT`]) or on an event (bounded, naming what
//! it waited for).

use std::process::Child;

use serde_json::{json, Value};
use tabwire_extension::engine::page;

use crate::cdp::{Cdp, Session, CDP_LIMIT};
use crate::chromium;

/// A headless Chromium with a DevTools port, killed (with its process group) when
/// dropped.
pub(crate) struct Browser {
    child: Child,
    _profile: tempfile::TempDir,
    pub(crate) cdp: Cdp,
}

impl Drop for Browser {
    fn drop(&mut self) {
        chromium::kill_group(&mut self.child);
    }
}

impl Browser {
    pub(crate) async fn start() -> Browser {
        let profile = tempfile::tempdir().expect("profile folder");
        let child = chromium::headless(profile.path())
            .args(["--remote-debugging-port=0", "about:blank"])
            .spawn()
            .expect("start chromium");
        let cdp = Cdp::connect(profile.path()).await;
        Browser {
            child,
            _profile: profile,
            cdp,
        }
    }

    /// A new page whose document runs `pristine.js` first, as a page the extension
    /// attached to before it loaded does, or not (a page that loaded before).
    pub(crate) async fn page(&self, pristine_first: bool) -> Page<'_> {
        self.page_of(
            pristine_first,
            "<title>contract</title><body><p>ready</p></body>",
        )
        .await
    }

    /// Like [`Browser::page`], showing `html` (a `data:` URL's text: no `#` or `%`).
    pub(crate) async fn page_of(&self, pristine_first: bool, html: &str) -> Page<'_> {
        let target = self.cdp.open_tab("about:blank").await;
        let session = self.cdp.attach(&target).await;
        let cdp = &self.cdp;
        cdp.send_to(&session, "Page.enable", json!({})).await;
        if pristine_first {
            cdp.send_to(
                &session,
                "Page.addScriptToEvaluateOnNewDocument",
                json!({"source": page::PRISTINE_INSTALL}),
            )
            .await;
        }
        let mut events = cdp.events();
        let url = format!("data:text/html,{html}");
        cdp.send_to(&session, "Page.navigate", json!({"url": url}))
            .await;
        let ours = session.0.clone();
        events
            .wait("the test page to load", CDP_LIMIT, |e| {
                e.method == "Page.loadEventFired" && e.session.as_deref() == Some(ours.as_str())
            })
            .await;
        Page { cdp, session }
    }
}

/// One page of the browser, attached with a flat session.
pub(crate) struct Page<'a> {
    pub(crate) cdp: &'a Cdp,
    pub(crate) session: Session,
}

/// What a script call gave back.
#[derive(Debug)]
pub(crate) enum Answer {
    /// By value.
    Value(Value),
    /// By reference.
    Object(String),
    /// It threw: the exception's description.
    Threw(String),
}

impl Answer {
    pub(crate) fn value(self, what: &str) -> Value {
        match self {
            Answer::Value(value) => value,
            other => panic!("{what}: expected a value, got {other:?}"),
        }
    }

    pub(crate) fn object(self, what: &str) -> String {
        match self {
            Answer::Object(id) => id,
            other => panic!("{what}: expected an object, got {other:?}"),
        }
    }
}

impl Page<'_> {
    /// Runs `code` as the page's own script would (it may break builtins).
    pub(crate) async fn run_page_code(&self, code: &str) {
        let answer = self.evaluate(code, true).await;
        assert!(
            !matches!(answer, Answer::Threw(_)),
            "the page's code threw: {answer:?}"
        );
    }

    pub(crate) async fn evaluate(&self, expression: &str, by_value: bool) -> Answer {
        let result = self
            .cdp
            .send_to(
                &self.session,
                "Runtime.evaluate",
                json!({"expression": expression, "returnByValue": by_value, "awaitPromise": true}),
            )
            .await;
        answer(result)
    }

    /// `Runtime.callFunctionOn`, as the engine sends it.
    pub(crate) async fn call(
        &self,
        function: &str,
        on: &str,
        arguments: Vec<Value>,
        by_value: bool,
    ) -> Answer {
        let result = self
            .cdp
            .send_to(
                &self.session,
                "Runtime.callFunctionOn",
                json!({
                    "functionDeclaration": function,
                    "objectId": on,
                    "arguments": arguments,
                    "returnByValue": by_value,
                    "awaitPromise": true,
                }),
            )
            .await;
        answer(result)
    }

    pub(crate) async fn global(&self) -> String {
        self.evaluate("this", false)
            .await
            .object("the global object")
    }
}

pub(crate) fn answer(result: Value) -> Answer {
    if let Some(details) = result.get("exceptionDetails") {
        let shown = details["exception"]["description"]
            .as_str()
            .or(details["text"].as_str())
            .unwrap_or("an exception");
        return Answer::Threw(shown.to_owned());
    }
    let remote = &result["result"];
    match remote["objectId"].as_str() {
        Some(id) => Answer::Object(id.to_owned()),
        None => Answer::Value(remote.get("value").cloned().unwrap_or(Value::Null)),
    }
}
