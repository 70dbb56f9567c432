//! A small browser-level Chrome DevTools Protocol client, so that a test can look at
//! the browser an agent drives from the outside: which targets exist, whether the
//! extension holds a debugger on a page, the extension's service worker, pages the test
//! opens and clicks itself.
//!
//! It speaks to the browser's WebSocket endpoint (`--remote-debugging-port=0`, found
//! through `<profile>/DevToolsActivePort`), with flat sessions for the targets it
//! attaches to. Every call and every wait is bounded and fails with a message that says
//! what was being waited for; waits are on events or on conditions checked in the page,
//! never sleeps.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};
use tokio::task::AbortHandle;
use tokio_tungstenite::tungstenite::Message;

/// Longest a single CDP command may take before the test fails.
pub const CDP_LIMIT: Duration = Duration::from_secs(20);

/// Longest the browser may take to write `DevToolsActivePort` after it starts.
const PORT_FILE_LIMIT: Duration = Duration::from_secs(30);

/// A flat session on one target (from `Target.attachToTarget`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session(pub String);

/// A CDP event, from the browser or from one of our sessions.
#[derive(Debug, Clone)]
pub struct Event {
    /// The event's method, e.g. `Target.targetInfoChanged`.
    pub method: String,
    /// Its parameters.
    pub params: Value,
    /// The session it came from; `None` for the browser itself.
    pub session: Option<String>,
}

/// A target as `Target.getTargets` and the `Target.*` events describe it.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetInfo {
    /// The target's id.
    pub target_id: String,
    /// `page`, `service_worker`, `browser_ui`, ...
    #[serde(rename = "type")]
    pub kind: String,
    /// Its URL.
    pub url: String,
    /// Whether any debugger client (the extension's `chrome.debugger`, or us) is attached.
    pub attached: bool,
}

impl TargetInfo {
    fn from_value(value: &Value) -> TargetInfo {
        serde_json::from_value(value.clone())
            .unwrap_or_else(|e| panic!("unexpected target info {value}: {e}"))
    }

    /// The extension id, if this target belongs to an extension.
    pub fn extension_id(&self) -> Option<&str> {
        self.url
            .strip_prefix("chrome-extension://")
            .and_then(|rest| rest.split('/').next())
    }
}

/// What the reader task shares with the client.
#[derive(Default)]
struct Shared {
    pending: Mutex<HashMap<u64, oneshot::Sender<Value>>>,
    subscribers: Mutex<Vec<mpsc::UnboundedSender<Event>>>,
    closed: Mutex<Option<String>>,
}

/// A connection to the browser's DevTools endpoint.
pub struct Cdp {
    outgoing: mpsc::UnboundedSender<Message>,
    shared: Arc<Shared>,
    next_id: AtomicU64,
    tasks: [AbortHandle; 2],
}

impl Drop for Cdp {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// A subscription to every CDP event that arrives after it was made.
pub struct Events {
    rx: mpsc::UnboundedReceiver<Event>,
}

impl Events {
    /// The next event for which `matches` holds; fails after `limit`, naming `what`.
    pub async fn wait(
        &mut self,
        what: &str,
        limit: Duration,
        mut matches: impl FnMut(&Event) -> bool,
    ) -> Event {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            match tokio::time::timeout_at(deadline, self.rx.recv()).await {
                Ok(Some(event)) if matches(&event) => return event,
                Ok(Some(_)) => continue,
                Ok(None) => panic!("the CDP connection closed while waiting for {what}"),
                Err(_) => panic!("no CDP event for {what} within {limit:?}"),
            }
        }
    }
}

impl Cdp {
    /// Connects to the browser whose profile is `profile` (started with
    /// `--remote-debugging-port=0`), waiting, bounded, for it to write
    /// `DevToolsActivePort`, and turns target discovery on so that `Target.*` events
    /// flow.
    pub async fn connect(profile: &Path) -> Cdp {
        let file = profile.join("DevToolsActivePort");
        let deadline = Instant::now() + PORT_FILE_LIMIT;
        // The browser writes the file shortly after it starts; there is no event for it.
        let contents = loop {
            match std::fs::read_to_string(&file) {
                Ok(text) if text.lines().count() >= 2 => break text,
                _ if Instant::now() > deadline => panic!(
                    "the browser did not write {} within {PORT_FILE_LIMIT:?} (was it started \
                     with --remote-debugging-port=0?)",
                    file.display()
                ),
                _ => tokio::time::sleep(Duration::from_millis(20)).await,
            }
        };
        let mut lines = contents.lines();
        let port = lines.next().unwrap_or_default().trim();
        let path = lines.next().unwrap_or_default().trim();
        let url = format!("ws://127.0.0.1:{port}{path}");
        Cdp::connect_url(&url).await
    }

    /// Connects to a browser-level DevTools WebSocket URL.
    pub async fn connect_url(url: &str) -> Cdp {
        let (socket, _) = tokio::time::timeout(CDP_LIMIT, tokio_tungstenite::connect_async(url))
            .await
            .unwrap_or_else(|_| panic!("connecting to {url} took over {CDP_LIMIT:?}"))
            .unwrap_or_else(|e| panic!("cannot connect to {url}: {e}"));
        let (mut sink, mut stream) = socket.split();
        let (outgoing, mut outgoing_rx) = mpsc::unbounded_channel::<Message>();
        let shared = Arc::new(Shared::default());
        let writer = tokio::spawn(async move {
            while let Some(message) = outgoing_rx.recv().await {
                if sink.send(message).await.is_err() {
                    break;
                }
            }
        });
        let reader_shared = shared.clone();
        let reader = tokio::spawn(async move {
            let why = loop {
                match stream.next().await {
                    Some(Ok(Message::Text(text))) => dispatch(&reader_shared, text.as_str()),
                    Some(Ok(Message::Close(frame))) => {
                        break format!("closed by the browser: {frame:?}")
                    }
                    Some(Ok(_)) => {}
                    Some(Err(e)) => break format!("broke: {e}"),
                    None => break "ended".to_string(),
                }
            };
            *reader_shared.closed.lock().unwrap() = Some(why);
            // Waiting callers see their reply channel drop; subscribers see the end.
            reader_shared.pending.lock().unwrap().clear();
            reader_shared.subscribers.lock().unwrap().clear();
        });
        let cdp = Cdp {
            outgoing,
            shared,
            next_id: AtomicU64::new(1),
            tasks: [writer.abort_handle(), reader.abort_handle()],
        };
        cdp.send("Target.setDiscoverTargets", json!({"discover": true}))
            .await;
        cdp
    }

    /// Subscribes to every event from now on. Subscribe before doing what causes the
    /// event, so that it cannot be missed.
    pub fn events(&self) -> Events {
        let (tx, rx) = mpsc::unbounded_channel();
        self.shared.subscribers.lock().unwrap().push(tx);
        Events { rx }
    }

    /// Sends a command to the browser, or to a session, and returns its `result`, or
    /// the error the browser gave as text.
    pub async fn try_call(
        &self,
        session: Option<&Session>,
        method: &str,
        params: Value,
        limit: Duration,
    ) -> Result<Value, String> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut message = json!({"id": id, "method": method, "params": params});
        if let Some(session) = session {
            message["sessionId"] = json!(session.0);
        }
        let (tx, rx) = oneshot::channel();
        self.shared.pending.lock().unwrap().insert(id, tx);
        if let Some(why) = self.shared.closed.lock().unwrap().clone() {
            panic!("CDP {method}: the connection {why}");
        }
        self.outgoing
            .send(Message::text(message.to_string()))
            .unwrap_or_else(|_| panic!("CDP {method}: the connection is gone"));
        let reply = match tokio::time::timeout(limit, rx).await {
            Ok(Ok(reply)) => reply,
            Ok(Err(_)) => panic!(
                "CDP {method}: the connection {} before the reply",
                self.shared
                    .closed
                    .lock()
                    .unwrap()
                    .clone()
                    .unwrap_or_else(|| "closed".into())
            ),
            Err(_) => {
                self.shared.pending.lock().unwrap().remove(&id);
                panic!(
                    "CDP {method} got no reply within {limit:?} (params {params_shown})",
                    params_shown = message["params"]
                );
            }
        };
        match reply.get("error") {
            Some(error) => Err(error.to_string()),
            None => Ok(reply.get("result").cloned().unwrap_or(Value::Null)),
        }
    }

    /// Closes the browser gracefully (`Browser.close`), as a user quitting it does, and
    /// waits until its DevTools connection has ended. The reply may never come: the
    /// browser may be gone first.
    pub async fn close_browser(&self) {
        let mut events = self.events();
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let message = json!({"id": id, "method": "Browser.close", "params": {}});
        if self
            .outgoing
            .send(Message::text(message.to_string()))
            .is_err()
        {
            return;
        }
        // Subscribers are let go when the connection ends.
        let ended = async { while events.rx.recv().await.is_some() {} };
        tokio::time::timeout(CDP_LIMIT, ended)
            .await
            .unwrap_or_else(|_| {
                panic!("the browser was still there {CDP_LIMIT:?} after Browser.close")
            });
    }

    /// Sends a browser-level command that must succeed; returns its `result`.
    pub async fn send(&self, method: &str, params: Value) -> Value {
        self.try_call(None, method, params, CDP_LIMIT)
            .await
            .unwrap_or_else(|e| panic!("CDP {method} failed: {e}"))
    }

    /// Sends a command to a session without waiting for its reply (`Page.crash`, say,
    /// whose reply may never come).
    pub fn fire(&self, session: &Session, method: &str, params: Value) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let message = json!({"id": id, "method": method, "params": params, "sessionId": session.0});
        self.outgoing
            .send(Message::text(message.to_string()))
            .unwrap_or_else(|_| panic!("CDP {method}: the connection is gone"));
    }

    /// Sends a command that must succeed to a session; returns its `result`.
    pub async fn send_to(&self, session: &Session, method: &str, params: Value) -> Value {
        self.try_call(Some(session), method, params, CDP_LIMIT)
            .await
            .unwrap_or_else(|e| panic!("CDP {method} in session {} failed: {e}", session.0))
    }

    /// Every target the browser has.
    pub async fn targets(&self) -> Vec<TargetInfo> {
        let result = self.send("Target.getTargets", json!({})).await;
        result["targetInfos"]
            .as_array()
            .expect("targetInfos")
            .iter()
            .map(TargetInfo::from_value)
            .collect()
    }

    /// One target, if it exists.
    pub async fn target(&self, target_id: &str) -> Option<TargetInfo> {
        self.targets()
            .await
            .into_iter()
            .find(|t| t.target_id == target_id)
    }

    /// The first target for which `matches` holds, now or once it is created or changes;
    /// fails after `limit`, naming `what`.
    pub async fn wait_target(
        &self,
        what: &str,
        limit: Duration,
        mut matches: impl FnMut(&TargetInfo) -> bool,
    ) -> TargetInfo {
        let mut events = self.events();
        if let Some(found) = self.targets().await.into_iter().find(|t| matches(t)) {
            return found;
        }
        let mut found = None;
        events
            .wait(what, limit, |e| {
                if e.method != "Target.targetCreated" && e.method != "Target.targetInfoChanged" {
                    return false;
                }
                let info = TargetInfo::from_value(&e.params["targetInfo"]);
                let hit = matches(&info);
                if hit {
                    found = Some(info);
                }
                hit
            })
            .await;
        found.expect("the matching target")
    }

    /// Opens a new tab at `url`; returns its target id.
    pub async fn open_tab(&self, url: &str) -> String {
        let result = self.send("Target.createTarget", json!({"url": url})).await;
        result["targetId"]
            .as_str()
            .unwrap_or_else(|| panic!("Target.createTarget gave no targetId: {result}"))
            .to_string()
    }

    /// Opens a new tab at `url` behind the active one (as a toolbar popup or a page the
    /// user has not looked at yet would be); returns its target id.
    pub async fn open_background_tab(&self, url: &str) -> String {
        let result = self
            .send(
                "Target.createTarget",
                json!({"url": url, "background": true}),
            )
            .await;
        result["targetId"]
            .as_str()
            .unwrap_or_else(|| panic!("Target.createTarget gave no targetId: {result}"))
            .to_string()
    }

    /// Attaches to a target with a flat session.
    pub async fn attach(&self, target_id: &str) -> Session {
        let result = self
            .send(
                "Target.attachToTarget",
                json!({"targetId": target_id, "flatten": true}),
            )
            .await;
        Session(
            result["sessionId"]
                .as_str()
                .unwrap_or_else(|| panic!("Target.attachToTarget gave no sessionId: {result}"))
                .to_string(),
        )
    }

    /// Detaches a session (the target's `attached` no longer counts us).
    pub async fn detach(&self, session: &Session) {
        self.send("Target.detachFromTarget", json!({"sessionId": session.0}))
            .await;
    }

    /// Evaluates `expression` in the session's target, awaiting a promise, and returns
    /// the value (`null` for `undefined`). A thrown exception fails the test.
    pub async fn evaluate(&self, session: &Session, expression: &str) -> Value {
        self.evaluate_within(session, expression, CDP_LIMIT).await
    }

    async fn evaluate_within(&self, session: &Session, expression: &str, limit: Duration) -> Value {
        let result = self
            .try_call(
                Some(session),
                "Runtime.evaluate",
                json!({"expression": expression, "awaitPromise": true, "returnByValue": true}),
                limit,
            )
            .await
            .unwrap_or_else(|e| panic!("Runtime.evaluate of {expression:?} failed: {e}"));
        if let Some(details) = result.get("exceptionDetails") {
            let shown = details["exception"]["description"]
                .as_str()
                .or(details["text"].as_str())
                .unwrap_or("an exception");
            panic!("evaluating {expression:?} threw: {shown}");
        }
        result["result"]["value"].clone()
    }

    /// Clicks the first element matching the CSS `selector`; fails if there is none.
    pub async fn click(&self, session: &Session, selector: &str) {
        let quoted = json!(selector).to_string();
        let clicked = self
            .evaluate(
                session,
                &format!(
                    "(() => {{ const el = document.querySelector({quoted}); \
                     if (!el) return false; el.click(); return true; }})()"
                ),
            )
            .await;
        assert_eq!(
            clicked,
            json!(true),
            "no element matches {selector:?} to click"
        );
    }

    /// Waits until the JavaScript expression `condition` is truthy in the session's
    /// page: checked at once and again on every DOM change (a `MutationObserver`), with
    /// a timer in the page that gives up after `limit`.
    pub async fn wait_for(&self, session: &Session, condition: &str, limit: Duration) {
        let ms = limit.as_millis();
        let script = format!(
            "new Promise((resolve) => {{
                const check = () => {{ try {{ return !!({condition}); }} catch (e) {{ return false; }} }};
                if (check()) return resolve(true);
                const observer = new MutationObserver(() => {{
                    if (check()) {{ observer.disconnect(); clearTimeout(timer); resolve(true); }}
                }});
                observer.observe(document, {{subtree: true, childList: true, attributes: true, characterData: true}});
                const timer = setTimeout(() => {{ observer.disconnect(); resolve(check()); }}, {ms});
            }})"
        );
        // A page still loading (a new tab leaves about:blank) replaces its document
        // under the evaluation: evaluate again in the new one, within the same limit.
        let deadline = tokio::time::Instant::now() + limit;
        let met = loop {
            let params = json!({"expression": script, "awaitPromise": true, "returnByValue": true});
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match self
                .try_call(Some(session), "Runtime.evaluate", params, left + CDP_LIMIT)
                .await
            {
                Ok(result) => break result["result"]["value"].clone(),
                Err(e)
                    if (e.contains("context was destroyed")
                        || e.contains("Cannot find context"))
                        && tokio::time::Instant::now() < deadline =>
                {
                    continue
                }
                Err(e) => panic!("waiting for {condition:?} failed: {e}"),
            }
        };
        assert_eq!(
            met,
            json!(true),
            "the page did not reach {condition:?} within {limit:?}"
        );
    }

    /// Waits until the page target's `attached` is `attached`: at once if it already
    /// is, else on `Target.targetInfoChanged`. `attached` counts every client, this
    /// connection's own sessions included: detach them first to watch the extension.
    pub async fn wait_attached(&self, target_id: &str, attached: bool, limit: Duration) {
        let mut events = self.events();
        let now = self
            .target(target_id)
            .await
            .unwrap_or_else(|| panic!("no target {target_id} to watch"));
        if now.attached == attached {
            return;
        }
        let what = format!(
            "target {target_id} ({}) to become attached={attached}",
            now.url
        );
        let event = events
            .wait(&what, limit, |e| match e.method.as_str() {
                "Target.targetInfoChanged" => {
                    e.params["targetInfo"]["targetId"] == target_id
                        && e.params["targetInfo"]["attached"] == attached
                }
                "Target.targetDestroyed" => e.params["targetId"] == target_id,
                _ => false,
            })
            .await;
        assert_ne!(
            event.method, "Target.targetDestroyed",
            "target {target_id} was destroyed while waiting for attached={attached}"
        );
    }

    /// Waits until no debugger (the extension's, in practice) is attached to the target.
    pub async fn wait_detached(&self, target_id: &str, limit: Duration) {
        self.wait_attached(target_id, false, limit).await;
    }

    /// The running service worker of an extension, if it is running.
    pub async fn service_worker(&self, extension_id: &str) -> Option<TargetInfo> {
        self.targets()
            .await
            .into_iter()
            .find(|t| t.kind == "service_worker" && t.extension_id() == Some(extension_id))
    }

    /// Waits until an extension's service worker runs (now, or when it is started).
    pub async fn wait_service_worker(&self, extension_id: &str, limit: Duration) -> TargetInfo {
        self.wait_target(
            &format!("extension {extension_id}'s service worker to run"),
            limit,
            |t| t.kind == "service_worker" && t.extension_id() == Some(extension_id),
        )
        .await
    }

    /// The id of the (only) extension with a running service worker, waiting for one.
    pub async fn wait_extension_id(&self, limit: Duration) -> String {
        let worker = self
            .wait_target("an extension's service worker", limit, |t| {
                t.kind == "service_worker" && t.extension_id().is_some()
            })
            .await;
        worker.extension_id().expect("an extension").to_string()
    }

    /// Stops an extension's running service worker (`Target.closeTarget` on it) and
    /// waits for its `Target.targetDestroyed`. Returns the stopped worker's target id.
    pub async fn stop_service_worker(&self, extension_id: &str) -> String {
        let worker = self
            .service_worker(extension_id)
            .await
            .unwrap_or_else(|| panic!("extension {extension_id} has no running service worker"));
        let mut events = self.events();
        let closed = self
            .send("Target.closeTarget", json!({"targetId": worker.target_id}))
            .await;
        assert_eq!(closed["success"], true, "Target.closeTarget said {closed}");
        events
            .wait(
                &format!("extension {extension_id}'s service worker to stop"),
                CDP_LIMIT,
                |e| {
                    e.method == "Target.targetDestroyed"
                        && e.params["targetId"] == worker.target_id.as_str()
                },
            )
            .await;
        worker.target_id
    }
}

/// Routes one message from the browser: a reply to its caller, an event to every
/// subscriber still listening.
fn dispatch(shared: &Shared, text: &str) {
    let Ok(message) = serde_json::from_str::<Value>(text) else {
        return;
    };
    if let Some(id) = message.get("id").and_then(Value::as_u64) {
        if let Some(tx) = shared.pending.lock().unwrap().remove(&id) {
            let _ = tx.send(message);
        }
        return;
    }
    let Some(method) = message.get("method").and_then(Value::as_str) else {
        return;
    };
    let event = Event {
        method: method.to_string(),
        params: message.get("params").cloned().unwrap_or(Value::Null),
        session: message
            .get("sessionId")
            .and_then(Value::as_str)
            .map(str::to_string),
    };
    shared
        .subscribers
        .lock()
        .unwrap()
        .retain(|tx| tx.send(event.clone()).is_ok());
}
