//! The page engine: turns host messages into browser actions and browser happenings
//! into host events.
//!
//! [`Engine`] owns the extension's state (attached tabs, open dialogs, known clients)
//! and is driven entirely from outside, through its `on_*` entry points, which the
//! shell calls for native-port messages, CDP events, debugger detaches and closed tabs.
//! Each call from the host runs as its own task, so a slow command on one tab never
//! delays another; the host serialises commands on the same tab itself.
//!
//! The commands live in their own modules ([`tabs`], [`navigate`], [`evaluate`],
//! [`snapshot`], [`discovery`], [`execute`]); [`session`] attaches the debugger and
//! sends CDP commands while watching the tab; [`document`] keeps what is known about
//! the document each tab shows (its [`uids`], pinned elements and tool registry);
//! [`axtree`] turns accessibility trees into snapshot nodes; [`elements`] moves
//! elements between uids and page objects; [`page`] holds the page-side scripts.
//! Nothing here knows about the extension platform: see `crate::shell` for that.

mod axtree;
mod collect;
mod console;
mod dialog;
mod discovery;
mod document;
mod elements;
mod emulation;
mod evaluate;
mod execute;
mod forms;
mod input;
mod keyboard;
mod navigate;
mod network;
mod page;
mod resize;
mod screenshot;
mod session;
mod settle;
mod snapshot;
mod tabs;
mod uids;
mod wait_text;

#[cfg(test)]
mod fake;

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::{Rc, Weak};

use serde_json::Value;
use tabwire_shared::{
    ClientHello, Command, DialogInfo, Envelope, Event, FromExtension, Reply, TabId, ToExtension,
    WireError,
};

use crate::cdp::PageEvent;
use crate::chrome::Chrome;
use crate::error::EngineError;
use crate::signals::{within, Signals, TabSignal};

/// How long a command without its own time limit may wait for Chrome.
const BROWSER_CALL_LIMIT_MS: u64 = 15_000;

/// The extension's brain, generic over the browser it drives.
pub struct Engine<C: Chrome> {
    chrome: C,
    signals: Rc<Signals>,
    state: RefCell<State>,
    /// Counts native-port connections, so a reply meant for a previous connection is
    /// not delivered to a new host that never asked for it.
    connection: Cell<u64>,
    /// Counts evaluations, to name their CDP object groups.
    object_groups: Cell<u64>,
    /// Counts snapshots (engine-wide), to number uids.
    snapshots: Cell<u64>,
    /// Counts documents seen, to name tool discoveries.
    documents_made: Cell<u64>,
    /// The engine itself, for background tasks that outlive a command's borrow.
    me: Weak<Engine<C>>,
}

#[derive(Default)]
struct State {
    /// Tabs our debugger is attached to (and whose Page/Runtime domains are enabled).
    attached: HashSet<TabId>,
    /// The JavaScript dialog open in each tab, as far as CDP told us.
    dialogs: HashMap<TabId, DialogInfo>,
    /// The agents' servers connected through the relay, by relay client id.
    clients: BTreeMap<u64, ClientHello>,
    /// The document each attached tab shows: uids, pins, tool registry.
    documents: HashMap<TabId, document::Document>,
    /// Each attached tab's frames' main-world JavaScript contexts, by frame id.
    contexts: HashMap<TabId, HashMap<String, i64>>,
    /// Each attached tab's console messages and network requests.
    collectors: HashMap<TabId, collect::Collectors>,
    /// What each tab emulates; kept across detaches (re-applied on attach) until the
    /// tab closes.
    emulations: HashMap<TabId, tabwire_shared::Emulation>,
}

impl<C: Chrome + 'static> Engine<C> {
    /// An engine driving `chrome`, with nothing attached yet.
    pub fn new(chrome: C) -> Rc<Self> {
        Rc::new_cyclic(|me| Self {
            chrome,
            signals: Rc::default(),
            state: RefCell::default(),
            connection: Cell::new(0),
            object_groups: Cell::new(0),
            snapshots: Cell::new(0),
            documents_made: Cell::new(0),
            me: me.clone(),
        })
    }

    /// The native port is (re)connected: greet the host with the extension's version.
    pub fn on_port_connected(&self, version: &str) {
        self.connection.set(self.connection.get() + 1);
        self.post_event(Event::BrowserConnected {
            version: version.to_owned(),
            instance: String::new(),
        });
    }

    /// A message arrived from the native host (JSON text of an `Envelope<ToExtension>`).
    /// Malformed messages are logged and ignored, or answered with an error if they
    /// carry an id, so the host never waits for a reply that will not come.
    pub fn on_port_message(self: &Rc<Self>, json: &str) {
        let envelope: Envelope<ToExtension> = match serde_json::from_str(json) {
            Ok(envelope) => envelope,
            Err(error) => return self.reject_malformed(json, &error),
        };
        match (envelope.body, envelope.id) {
            (ToExtension::Call(command), Some(id)) => self.start_call(id, envelope.client, command),
            (ToExtension::Call(_), None) => {
                self.chrome.log("tabwire: ignored a call without an id")
            }
            (ToExtension::Hello(hello), _) => match envelope.client {
                Some(client) => {
                    self.state.borrow_mut().clients.insert(client, hello);
                }
                None => self.chrome.log("tabwire: ignored a hello without a client"),
            },
            // Sharing and heartbeats are not handled yet.
            (ToExtension::HostReady(_) | ToExtension::Pong { .. }, _) => {}
            (ToExtension::ClientGone, _) => {
                if let Some(client) = envelope.client {
                    self.state.borrow_mut().clients.remove(&client);
                }
            }
        }
    }

    /// A CDP event from an attached tab (`chrome.debugger.onEvent`).
    pub fn on_cdp_event(&self, tab: TabId, method: &str, params: &Value) {
        let Some(event) = PageEvent::parse(method, params) else {
            self.with_collectors(tab, |c| c.on_event(method, params));
            return;
        };
        if let PageEvent::FrameNavigated {
            is_main: true,
            loader_id,
            ..
        } = &event
        {
            self.with_collectors(tab, |c| c.on_navigation(loader_id));
        }
        match &event {
            PageEvent::DialogOpening(dialog) => {
                self.state.borrow_mut().dialogs.insert(tab, dialog.clone());
                self.post_event(Event::DialogOpened {
                    tab_id: tab,
                    dialog: dialog.clone(),
                });
            }
            PageEvent::DialogClosed => {
                self.state.borrow_mut().dialogs.remove(&tab);
                self.post_event(Event::DialogClosed { tab_id: tab });
            }
            _ => self.track_document(tab, &event),
        }
        self.signals.publish(tab, &TabSignal::Page(event));
    }

    /// Chrome ended our debugging session on a tab (`chrome.debugger.onDetach`): the
    /// user cancelled the bar, the tab closed or crashed. The next command re-attaches.
    pub fn on_debugger_detached(&self, tab: TabId, reason: &str) {
        self.forget_session(tab);
        self.signals
            .publish(tab, &TabSignal::Detached(reason.to_owned()));
        self.post_event(Event::TabDetached {
            tab_id: tab,
            reason: reason.to_owned(),
        });
    }

    /// A tab was closed (`chrome.tabs.onRemoved`).
    pub fn on_tab_removed(&self, tab: TabId) {
        self.forget_session(tab);
        self.state.borrow_mut().emulations.remove(&tab);
        self.signals.publish(tab, &TabSignal::Closed);
        self.post_event(Event::TabClosed { tab_id: tab });
    }

    /// The agents' servers currently connected, by relay client id (for the popup).
    pub fn clients(&self) -> Vec<(u64, ClientHello)> {
        let state = self.state.borrow();
        state
            .clients
            .iter()
            .map(|(id, c)| (*id, c.clone()))
            .collect()
    }

    fn forget_session(&self, tab: TabId) {
        let mut state = self.state.borrow_mut();
        state.attached.remove(&tab);
        state.dialogs.remove(&tab);
        state.documents.remove(&tab);
        state.contexts.remove(&tab);
        state.collectors.remove(&tab);
    }

    fn reject_malformed(&self, json: &str, error: &serde_json::Error) {
        let id = serde_json::from_str::<Envelope<Value>>(json)
            .ok()
            .map(|e| (e.id, e.client));
        let shown: String = json.chars().take(200).collect();
        self.chrome.log(&format!(
            "tabwire: malformed message from the host ({error}): {shown}"
        ));
        if let Some((Some(id), client)) = id {
            let error = WireError::new(
                tabwire_shared::ErrorCode::InvalidArgument,
                format!(
                    "The extension did not understand this request ({error}). Are tabwire \
                     and its browser extension the same version?"
                ),
            );
            self.post_reply(id, client, Err(error));
        }
    }

    fn start_call(self: &Rc<Self>, id: u64, client: Option<u64>, command: Command) {
        let engine = Rc::clone(self);
        let connection = self.connection.get();
        self.chrome.spawn(Box::pin(async move {
            let outcome = engine.run(command).await.map_err(WireError::from);
            if engine.connection.get() == connection {
                engine.post_reply(id, client, outcome);
            } else {
                engine.chrome.log(&format!(
                    "tabwire: dropped the reply to {id}: its host is gone"
                ));
            }
        }));
    }

    async fn run(&self, command: Command) -> Result<Reply, EngineError> {
        match command {
            Command::ListTabs => {
                let tabs = self.bounded("list the tabs", self.list_tabs()).await??;
                Ok(Reply::Tabs { tabs })
            }
            Command::ActivateTab { tab_id } => {
                self.bounded("activate the page", self.activate_tab(tab_id))
                    .await??;
                Ok(Reply::Done)
            }
            Command::CloseTab { tab_id } => {
                self.bounded("close the page", self.close_tab(tab_id))
                    .await??;
                Ok(Reply::Done)
            }
            Command::NewTab {
                url,
                background,
                timeout_ms,
            } => {
                let tab = self.new_tab(&url, background, timeout_ms).await?;
                Ok(Reply::Tab { tab })
            }
            Command::Navigate {
                tab_id,
                to,
                timeout_ms,
            } => {
                let tab = self.navigate(tab_id, &to, timeout_ms).await?;
                Ok(Reply::Tab { tab })
            }
            Command::Evaluate {
                tab_id,
                function,
                args,
                timeout_ms,
            } => {
                let value = self.evaluate(tab_id, &function, args, timeout_ms).await?;
                Ok(Reply::Value { value })
            }
            Command::Snapshot { tab_id, verbose } => {
                let snapshot = self.snapshot(tab_id, verbose).await?;
                Ok(Reply::Snapshot { snapshot })
            }
            Command::DiscoverTools {
                tab_id,
                allowed_origins,
                timeout_ms,
            } => {
                let discovery = self
                    .discover_tools(tab_id, allowed_origins, timeout_ms)
                    .await?;
                Ok(Reply::ThirdPartyTools { discovery })
            }
            Command::ExecuteTool {
                tab_id,
                document,
                tool,
                group,
                args,
                timeout_ms,
            } => {
                let call = execute::ToolCall {
                    document,
                    tool,
                    group,
                    args,
                    timeout_ms,
                };
                let (result, elements) = self.execute_tool(tab_id, call).await?;
                Ok(Reply::ToolResult { result, elements })
            }
            Command::Input {
                tab_id,
                action,
                timeout_ms,
            } => {
                let navigated_to = self.input(tab_id, &action, timeout_ms).await?;
                Ok(Reply::Acted { navigated_to })
            }
            Command::WaitForText {
                tab_id,
                texts,
                timeout_ms,
            } => {
                let text = self.wait_for_text(tab_id, &texts, timeout_ms).await?;
                Ok(Reply::Found { text })
            }
            Command::HandleDialog {
                tab_id,
                accept,
                prompt_text,
            } => {
                self.bounded("answer the dialog", async {
                    self.ensure_attached(tab_id).await?;
                    self.handle_dialog(tab_id, accept, prompt_text).await
                })
                .await??;
                Ok(Reply::Done)
            }
            Command::Screenshot {
                tab_id,
                format,
                quality,
                full_page,
                uid,
            } => {
                let shot = screenshot::Shot {
                    format,
                    quality,
                    full_page,
                    uid: uid.as_deref(),
                };
                let data = self.screenshot(tab_id, shot).await?;
                Ok(Reply::Image {
                    data,
                    mime_type: format.mime_type().to_owned(),
                })
            }
            Command::ConsoleMessages {
                tab_id,
                include_preserved,
            } => {
                let messages = self
                    .bounded(
                        "read the console",
                        self.console_messages(tab_id, include_preserved),
                    )
                    .await??;
                Ok(Reply::Console { messages })
            }
            Command::ConsoleMessage { tab_id, id } => {
                let message = self
                    .bounded("read the console", self.console_message(tab_id, id))
                    .await??;
                Ok(Reply::ConsoleMessage { message })
            }
            Command::NetworkRequests {
                tab_id,
                include_preserved,
            } => {
                let requests = self
                    .bounded(
                        "list the network requests",
                        self.network_requests(tab_id, include_preserved),
                    )
                    .await??;
                Ok(Reply::Network { requests })
            }
            Command::NetworkRequest { tab_id, id } => {
                let request = self
                    .bounded("read the network request", self.network_request(tab_id, id))
                    .await??;
                Ok(Reply::Request { request })
            }
            Command::Emulate { tab_id, changes } => {
                let emulation = within(
                    self.chrome.sleep(BROWSER_CALL_LIMIT_MS + 10_000),
                    self.emulate(tab_id, &changes),
                )
                .await
                .ok_or(EngineError::BrowserTimeout {
                    action: "change the emulation",
                    timeout_ms: BROWSER_CALL_LIMIT_MS + 10_000,
                })??;
                Ok(Reply::Emulation { emulation })
            }
            Command::ResizePage {
                tab_id,
                width,
                height,
            } => {
                self.bounded("resize the page", self.resize_page(tab_id, width, height))
                    .await??;
                Ok(Reply::Done)
            }
        }
    }

    /// Bounds a plain browser call by [`BROWSER_CALL_LIMIT_MS`].
    async fn bounded<T>(
        &self,
        action: &'static str,
        work: impl std::future::Future<Output = T>,
    ) -> Result<T, EngineError> {
        within(self.chrome.sleep(BROWSER_CALL_LIMIT_MS), work)
            .await
            .ok_or(EngineError::BrowserTimeout {
                action,
                timeout_ms: BROWSER_CALL_LIMIT_MS,
            })
    }

    fn open_dialog(&self, tab: TabId) -> Option<DialogInfo> {
        self.state.borrow().dialogs.get(&tab).cloned()
    }

    fn post_event(&self, event: Event) {
        self.chrome
            .post(&Envelope::notice(FromExtension::Event(event)));
    }

    fn post_reply(&self, id: u64, client: Option<u64>, outcome: Result<Reply, WireError>) {
        self.chrome.post(&Envelope {
            id: Some(id),
            client,
            body: FromExtension::Reply(outcome),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::fake::Harness;
    use serde_json::json;
    use tabwire_shared::{ClientHello, ErrorCode, Event};

    #[test]
    fn connecting_announces_the_browser() {
        let mut h = Harness::new();
        h.engine.on_port_connected("1.2.3");
        h.settle();
        assert_eq!(
            h.events(),
            vec![Event::BrowserConnected {
                version: "1.2.3".into(),
                instance: String::new(),
            }]
        );
    }

    #[test]
    fn malformed_messages_are_ignored_or_answered() {
        let mut h = Harness::new();
        h.engine.on_port_message("not json");
        h.engine
            .on_port_message(r#"{"id": 4, "body": {"call": {"command": "fly"}}}"#);
        h.settle();
        let reply = h.reply(4).expect("an answer to a request with an id");
        assert_eq!(reply.unwrap_err().code, ErrorCode::InvalidArgument);
        assert_eq!(h.fake.posted().len(), 1);
        assert_eq!(h.fake.logs().len(), 2);
    }

    #[test]
    fn hello_and_client_gone_track_clients() {
        let h = Harness::new();
        let hello = json!({"client": 3, "body": {"hello": {"clientName": "claude", "version": "0.1", "session": "k1"}}});
        h.engine.on_port_message(&hello.to_string());
        let clients = h.engine.clients();
        assert!(
            matches!(&clients[..], [(3, ClientHello { client_name, .. })] if client_name == "claude")
        );
        h.engine
            .on_port_message(&json!({"client": 3, "body": "clientGone"}).to_string());
        assert!(h.engine.clients().is_empty());
        assert!(h.fake.posted().is_empty(), "hello gets no reply");
    }

    #[test]
    fn tab_removal_and_detach_are_announced() {
        let mut h = Harness::new();
        h.engine.on_debugger_detached(10, "canceled_by_user");
        h.engine.on_tab_removed(11);
        h.settle();
        assert_eq!(
            h.events(),
            vec![
                Event::TabDetached {
                    tab_id: 10,
                    reason: "canceled_by_user".into()
                },
                Event::TabClosed { tab_id: 11 }
            ]
        );
    }

    #[test]
    fn dialogs_are_announced_and_remembered() {
        let mut h = Harness::new();
        h.engine.on_cdp_event(
            10,
            "Page.javascriptDialogOpening",
            &json!({"type": "alert", "message": "hi", "defaultPrompt": "", "url": "x"}),
        );
        assert!(h.engine.open_dialog(10).is_some());
        h.engine
            .on_cdp_event(10, "Page.javascriptDialogClosed", &json!({"result": true}));
        assert!(h.engine.open_dialog(10).is_none());
        h.settle();
        assert!(matches!(
            &h.events()[..],
            [Event::DialogOpened { tab_id: 10, dialog }, Event::DialogClosed { tab_id: 10 }]
                if dialog.kind == "alert" && dialog.message == "hi" && dialog.default_prompt.is_none()
        ));
    }

    #[test]
    fn replies_for_a_previous_connection_are_dropped() {
        let mut h = Harness::new();
        h.engine.on_port_connected("1");
        h.fake.hold("Runtime.callFunctionOn");
        h.call(
            1,
            super::Command::Evaluate {
                tab_id: 10,
                function: "() => 1".into(),
                args: vec![],
                timeout_ms: 1000,
            },
        );
        h.settle();
        h.engine.on_port_connected("1");
        h.fake
            .release_held(json!({"result": {"type": "number", "value": 1}}));
        h.settle();
        assert!(h.reply(1).is_none());
    }
}
