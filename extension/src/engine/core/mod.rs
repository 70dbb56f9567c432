//! The engine's core: the [`Engine`] and its state, and what is not a command — the
//! entry points the shell calls (here), who may use which tab ([`access`]), the
//! debugger's sessions ([`session`], and cross-site iframes' child sessions,
//! [`oopif`]), the documents and worlds of each tab ([`document`], [`world`]), the
//! collectors ([`collect`]), what a tab emulates ([`emulation`]), the page's WebMCP
//! tools as their events tell them (`webmcp_events`), the browser's tabs as agents are
//! shown them ([`tabs`]), and the engine's upkeep: `idle_detach`, [`liveness`],
//! `persist`, [`announce`].
//!
//! A concern that is not the engine's whole owns its state as a value the engine holds
//! in a field, and its functions take only what they need (a part of the engine, the
//! `Chrome`, or a small struct of borrowed parts): [`announce::Announced`],
//! `idle_detach::Idle`, `persist::Persist`, [`liveness::Port`],
//! [`access::leftovers::MadeGroups`], [`access::requests::Asking`],
//! [`access::share::Shares`], [`access::pointing::Pointer`], [`access::popup::Popup`],
//! [`document::Documents`], [`world::Walkers`], [`oopif::Frames`] (each made by a
//! one-line method for the call at hand), and the functions over the
//! [`Tabs`](super::tab::Tabs) of `webmcp_events` and [`tabs`]. They decide and return
//! what is to be done (an event that is news, a timer's next step, a heartbeat, a tab
//! put in a group, a child session to prepare or let go); the engine does it —
//! posting, and the background tasks that need the engine itself — here, in
//! [`session`] (attaching, sending, child sessions) and in `access/mod.rs` (who may use
//! which tab). No other file extends the engine.
//!
//! Commands live outside it, in the engine's other modules, and reach it only through
//! the context their handler receives ([`context::Cx`], with the steps commands share):
//! the engine's fields are private to this module, and a `Cx` does not hand its engine
//! out, so the compiler keeps that boundary. The state the core holds for commands
//! (the console and network logs, the traces, WebMCP's tools, each frame's walk) lives
//! in `engine/state/`, so the core imports no command's module.

pub(super) mod access;
pub(super) mod announce;
pub(super) mod collect;
pub(super) mod context;
pub(super) mod document;
pub(super) mod emulation;
mod idle_detach;
pub(super) mod liveness;
pub(super) mod oopif;
mod persist;
pub(super) mod session;
pub(super) mod tabs;
mod webmcp_events;
pub(super) mod world;

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::rc::{Rc, Weak};

use serde_json::Value;
use tabwire_shared::pieces::{Joined, Piece, Refused};
use tabwire_shared::{
    Command, DialogInfo, Envelope, ErrorCode, Event, FromExtension, HostInfo, Reply, TabId,
    ToExtension, WireError,
};

// The engine's other modules, as the core's own modules name them.
#[cfg(test)]
use super::fake;
use super::TabChange;
use super::{page, settings, state, tab, uids, Handle};
use crate::cdp::events::Incoming;
use crate::cdp::PageEvent;
use crate::chrome::Chrome;
use crate::error::EngineError;
use crate::signals::{Signals, TabSignal};

/// The extension's brain, generic over the browser it drives.
pub struct Engine<C: Chrome> {
    chrome: C,
    signals: Rc<Signals>,
    /// What the engine knows about each tab.
    tabs: tab::Tabs,
    /// Counts evaluations, to name their CDP object groups.
    object_groups: Cell<u64>,
    /// Counts snapshots (engine-wide), to number uids.
    snapshots: Cell<u64>,
    /// Counts documents seen, to name tool discoveries.
    documents_made: Cell<u64>,
    /// The agents and the tabs shared with each.
    sharing: RefCell<access::scopes::Sharing>,
    /// The user's settings.
    settings: RefCell<settings::Settings>,
    /// When each tab was last used, for idle detach.
    idle: RefCell<idle_detach::Idle>,
    /// The native port: its connection, health and pieces ([`liveness`]).
    port: liveness::Port,
    /// This run's name and the pending save ([`persist`]).
    persist: persist::Persist,
    /// What agents' servers were last told ([`announce`]).
    announced: announce::Announced,
    /// Each tab's performance trace.
    traces: RefCell<state::traces::Traces>,
    /// The titles tabwire gave its tab groups, this run and earlier ones
    /// ([`access::leftovers`]).
    made_groups: access::leftovers::MadeGroups,
    /// Agents' requests for the tab in front, waiting for the user
    /// ([`access::requests`]).
    tab_requests: RefCell<access::requests::TabRequests>,
    /// The user's pick of an element for an agent, while under way
    /// ([`access::pointing`]).
    pointing: access::pointing::Pointer,
    /// The engine itself, for background tasks that outlive a command's borrow.
    me: Weak<Engine<C>>,
}

impl<C: Chrome + 'static> Engine<C> {
    /// An engine driving `chrome`, with nothing attached yet.
    pub fn new(chrome: C) -> Rc<Self> {
        Rc::new_cyclic(|me| Self {
            chrome,
            signals: Rc::default(),
            tabs: tab::Tabs::default(),
            object_groups: Cell::new(0),
            snapshots: Cell::new(0),
            documents_made: Cell::new(0),
            sharing: RefCell::default(),
            settings: RefCell::default(),
            idle: RefCell::default(),
            port: liveness::Port::default(),
            persist: persist::Persist::default(),
            announced: announce::Announced::default(),
            traces: RefCell::default(),
            made_groups: access::leftovers::MadeGroups::default(),
            tab_requests: RefCell::default(),
            pointing: access::pointing::Pointer::default(),
            me: me.clone(),
        })
    }

    /// What the engine knows about each tab, for tests outside the core.
    #[cfg(test)]
    pub(in crate::engine) fn tabs(&self) -> &tab::Tabs {
        &self.tabs
    }

    /// The tabs' signals, for tests outside the core.
    #[cfg(test)]
    pub(in crate::engine) fn signals(&self) -> &Signals {
        &self.signals
    }

    /// The native port is (re)connected: greet the host with the extension's version.
    pub fn on_port_connected(&self, version: &str) {
        let connection = self.port.connected(version);
        // Until the new host says `HostReady`, the browser is taken to be the user's
        // own (strict sharing).
        self.sharing.borrow_mut().set_agent_profile(false);
        self.post_event(Event::BrowserConnected {
            version: version.to_owned(),
            instance: self.persist.instance(),
            pieces: tabwire_shared::pieces::VERSION,
        });
        self.start_heartbeat(connection);
        self.chrome.state_changed();
    }

    /// A message arrived from the native host (JSON text of an `Envelope<ToExtension>`).
    /// Malformed messages are logged and ignored, or answered with an error if they
    /// carry an id, so the host never waits for a reply that will not come. A message
    /// too big for one native message comes in pieces, joined here first.
    pub fn on_port_message(self: &Rc<Self>, json: &str) {
        let envelope: Envelope<ToExtension> = match serde_json::from_str(json) {
            Ok(envelope) => envelope,
            Err(error) => return self.reject_malformed(json, &error),
        };
        // Any message proves the host alive.
        self.port.heard(self.chrome.now_ms());
        let (id, client) = (envelope.id, envelope.client);
        match envelope.body {
            ToExtension::Piece(piece) => self.on_piece(id, client, piece),
            body => self.on_message(id, client, body),
        }
    }

    /// One piece of a message: joined with those before it, and the message carried
    /// out once whole.
    fn on_piece(self: &Rc<Self>, id: Option<u64>, client: Option<u64>, piece: Piece) {
        let joined = self.port.pieces().take(id, client, piece);
        match joined {
            Joined::Waiting => {}
            Joined::Whole(json) => match serde_json::from_str::<Envelope<ToExtension>>(&json) {
                Ok(envelope) => self.on_message(envelope.id, envelope.client, envelope.body),
                Err(error) => self.reject_malformed(&json, &error),
            },
            Joined::Refused(refused) => refused.iter().for_each(|r| self.refuse_pieces(r)),
        }
    }

    /// Answers a request that came in pieces and could not be joined.
    fn refuse_pieces(&self, refused: &Refused) {
        let error = refused.error();
        self.chrome.log(&format!(
            "tabwire: a message from the host in pieces was refused: {}",
            refused.broken
        ));
        if let Some(id) = refused.id {
            self.post_reply(id, refused.client, Err(error));
        }
    }

    /// Pings the host on connection number `connection` until that connection is
    /// replaced or closed, and reopens the port if the host falls silent
    /// ([`liveness`]).
    fn start_heartbeat(&self, connection: u64) {
        self.in_background(move |engine| async move {
            loop {
                engine.chrome.sleep(liveness::PING_EVERY_MS).await;
                let beat = engine.port.beat(connection, engine.chrome.now_ms());
                match beat {
                    liveness::Beat::Stop => return,
                    liveness::Beat::Silent => {
                        engine
                            .chrome
                            .log("tabwire: the native host stopped answering; reconnecting");
                        engine.port_lost(liveness::PortDrop::Silent);
                        engine.chrome.reopen_port();
                        return;
                    }
                    liveness::Beat::Ping(seq) => engine
                        .chrome
                        .post(&Envelope::notice(FromExtension::Ping { seq })),
                }
            }
        });
    }

    /// Chrome refused to open the native port at all (`connectNative` threw): kept for
    /// the popup; the shell retries.
    pub fn on_port_refused(&self, error: &str) {
        self.port.refused(error);
        self.chrome.state_changed();
    }

    /// The host introduced itself. Only the host may: what comes from the relay's
    /// clients always carries their `client` id, and is ignored here.
    fn on_host_ready(&self, client: Option<u64>, info: &HostInfo) {
        if let Some(client) = client {
            return self.chrome.log(&format!(
                "tabwire: ignored a host introduction from relay client {client}"
            ));
        }
        self.port.host_ready(&info.version);
        self.sharing
            .borrow_mut()
            .set_agent_profile(info.agent_profile);
        self.chrome.state_changed();
    }

    /// The host answered a ping (a client's `Pong` is ignored, like its `HostReady`).
    fn on_pong(&self, client: Option<u64>) {
        if let Some(client) = client {
            return self.chrome.log(&format!(
                "tabwire: ignored a pong from relay client {client}"
            ));
        }
        self.port.pong(self.chrome.now_ms());
        self.chrome.state_changed();
    }

    /// The host pinged (for an agent that waits for a reply, to learn whether the
    /// extension still answers): answered at once. A client's ping is ignored, like its
    /// `Pong`: the host answers those itself.
    fn on_ping(&self, client: Option<u64>, seq: u64) {
        if let Some(client) = client {
            return self.chrome.log(&format!(
                "tabwire: ignored a ping from relay client {client}"
            ));
        }
        self.chrome.post(&Envelope::notice(FromExtension::Pong {
            seq,
            extension: None,
        }));
    }

    /// A whole message from the host (as it came, or joined from pieces).
    fn on_message(self: &Rc<Self>, id: Option<u64>, client: Option<u64>, body: ToExtension) {
        if let ToExtension::ClientGone = body {
            self.port.pieces().forget(client);
        } else if let Some(refused) = self.port.pieces().interrupted(client) {
            self.refuse_pieces(&refused);
        }
        match (body, id) {
            (ToExtension::Call(command), Some(id)) => self.start_call(id, client, command),
            (ToExtension::Call(_), None) => {
                self.chrome.log("tabwire: ignored a call without an id")
            }
            (ToExtension::Hello(hello), _) => match client {
                Some(client) => self.on_hello(client, &hello),
                None => self.chrome.log("tabwire: ignored a hello without a client"),
            },
            (ToExtension::HostReady(info), _) => self.on_host_ready(client, &info),
            (ToExtension::Pong { .. }, _) => self.on_pong(client),
            (ToExtension::Ping { seq }, _) => self.on_ping(client, seq),
            (ToExtension::ClientGone, _) => match client {
                Some(client) => self.on_client_gone(client),
                None => self
                    .chrome
                    .log("tabwire: ignored a departure without a client"),
            },
            // Only a message joined from pieces gets here with a piece in it.
            (ToExtension::Piece(_), id) => {
                self.chrome
                    .log("tabwire: a message joined from pieces was a piece itself");
                if let Some(id) = id {
                    let error = WireError::new(
                        ErrorCode::Internal,
                        "The request came as pieces of pieces, which the extension does not \
                         join. Send it again; if it keeps happening, report it as a tabwire bug.",
                    );
                    self.post_reply(id, client, Err(error));
                }
            }
        }
    }

    /// `chrome.tabs.onCreated`, `onMoved`, `onAttached` and `onDetached`: `tab` opened,
    /// or moved within or between windows.
    pub fn on_tab_moved(&self, tab: TabId) {
        self.tab_changed(tab);
    }

    /// `chrome.tabs.onReplaced` and `chrome.windows.onFocusChanged`: tab ids, or the
    /// user's tab, changed.
    pub fn on_tabs_changed(&self) {
        self.post_news(self.announced.tabs_changed());
    }

    /// `chrome.tabs.onUpdated`: a navigation resets Chrome's per-tab badge, so a shared
    /// tab's is set again; a shared tab dragged out of the group tabwire put it in stops
    /// being shared; one that went to a blocklisted site is let go ([`session`]). Any
    /// change may alter what the popup shows.
    pub fn on_tab_updated(&self, tab: TabId, change: TabChange) {
        self.tab_changed(tab);
        if change.status.as_deref() == Some("loading") {
            // A new document is coming: a crashed tab has a renderer again.
            self.crash_changed(tab, false);
        }
        self.signals
            .publish(tab, &TabSignal::Updated(change.clone()));
        self.in_background(move |engine| async move {
            if let Some(group) = change.group_id {
                engine.on_group_changed(tab, group).await;
            }
            if let Some(url) = &change.url {
                engine.leave_if_blocklisted(tab, url).await;
            }
            let shared = !engine.sharing.borrow().sharers(tab).is_empty();
            if shared && (change.url.is_some() || change.status.is_some()) {
                engine.show_badge(tab).await;
            }
            engine.chrome.state_changed();
        });
    }

    /// `chrome.tabs.onActivated`: the popup's default tab, and the user's tab in agents'
    /// lists, may have changed.
    pub fn on_tab_activated(&self) {
        self.on_tabs_changed();
        self.chrome.state_changed();
    }

    /// Something changed in `tab`: news for agents' servers if some agent may see it.
    fn tab_changed(&self, tab: TabId) {
        let news = self.announced.tab_changed(&self.sharing.borrow(), tab);
        self.post_news(news);
    }

    /// Posts the event [`announce`] found to be news, if any.
    fn post_news(&self, news: Option<Event>) {
        if let Some(event) = news {
            self.post_event(event);
        }
    }

    /// A CDP event from an attached tab's own session.
    pub fn on_cdp_event(&self, tab: TabId, method: &str, params: &Value) {
        self.on_session_event(tab, None, method, params);
    }

    /// A CDP event from an attached tab (`chrome.debugger.onEvent`): from its own
    /// session (`None`) or from a child session (a cross-site iframe, [`oopif`]),
    /// whose events never touch the tab's document or waits.
    pub fn on_session_event(
        &self,
        tab: TabId,
        session: Option<&str>,
        method: &str,
        params: &Value,
    ) {
        let incoming = Incoming::parse(method, params);
        if let Some(Incoming::Target(event)) = incoming {
            return self.on_target_event(tab, session, event);
        }
        if let Some(session) = session {
            let news = self.frames().on_event(tab, session, incoming);
            return self.post_news(news);
        }
        let event = match incoming {
            Some(Incoming::Page(event)) => event,
            Some(Incoming::Target(_)) => return,
            Some(Incoming::Console(event)) => {
                // What the domains replay on a re-attach is collected already.
                let replaying = self.tabs.read(tab, |t| t.attachment.replaying);
                if replaying != Some(true)
                    && self.tabs.with_collectors(tab, |c| c.on_console(event)) == Some(true)
                {
                    self.post_news(announce::console_changed(&self.tabs, tab));
                }
                return;
            }
            Some(Incoming::Network(event)) => {
                self.tabs.with_collectors(tab, |c| c.on_network(event));
                return;
            }
            Some(Incoming::Pointing(event)) => return self.on_pointing_event(tab, event),
            None => return,
        };
        if let PageEvent::TargetCrashed | PageEvent::ReloadedAfterCrash = event {
            self.crash_changed(tab, event == PageEvent::TargetCrashed);
        }
        if let PageEvent::FrameNavigated {
            is_main: true,
            loader_id,
            url,
            ..
        } = &event
        {
            self.crash_changed(tab, false);
            self.tabs
                .with_collectors(tab, |c| c.on_navigation(loader_id));
            self.leave_if_navigated_to_blocklist(tab, url);
            self.tab_changed(tab);
        }
        match &event {
            PageEvent::DialogOpening(dialog) => {
                self.tabs
                    .write(tab, |t| t.attachment.dialog = Some(dialog.clone()));
                self.post_event(Event::DialogOpened {
                    tab_id: tab,
                    dialog: dialog.clone(),
                });
            }
            PageEvent::DialogClosed => {
                self.tabs.update(tab, |t| t.attachment.dialog = None);
                self.post_event(Event::DialogClosed { tab_id: tab });
            }
            _ => self.documents().track(tab, &event),
        }
        self.post_news(webmcp_events::track(&self.tabs, tab, &event));
        self.signals.publish(tab, &TabSignal::Page(event));
    }

    /// Chrome ended our debugging session on a tab (`chrome.debugger.onDetach`): the
    /// user cancelled the bar (which, in the user's own browser, also stops sharing
    /// the tab), the tab closed or crashed. The next command re-attaches a tab still
    /// shared.
    pub fn on_debugger_detached(&self, tab: TabId, reason: &str) {
        self.forget_session(tab);
        self.traces
            .borrow_mut()
            .lost(tab, &format!("the debugger was detached: {reason}"));
        self.signals
            .publish(tab, &TabSignal::Detached(reason.to_owned()));
        self.post_event(Event::TabDetached {
            tab_id: tab,
            reason: reason.to_owned(),
        });
        // The user pressed Cancel on Chrome's "started debugging this browser" bar: in
        // their own browser that stops sharing the tab, rather than the next command
        // attaching again behind their back. (A browser launched for the agent is its
        // own: its tabs stay the agent's.)
        if reason == CANCELED_BY_USER && !self.sharing.borrow().agent_profile() {
            self.in_background(move |engine| async move {
                let sharers = engine.sharing.borrow().sharers(tab);
                for session in sharers {
                    engine.unshare_tab(&session, tab).await;
                }
            });
        }
    }

    /// A cross-site frame's child session ended ([`oopif`]): forgotten, with those
    /// nested in it.
    pub fn on_child_detached(&self, tab: TabId, session: &str) {
        let news = self.frames().detached(tab, session);
        self.post_news(news);
    }

    /// Notes that `tab`'s renderer crashed, or has a renderer again; agents' page lists
    /// show it.
    fn crash_changed(&self, tab: TabId, crashed: bool) {
        let changed = if crashed {
            !self
                .tabs
                .write(tab, |t| std::mem::replace(&mut t.crashed, true))
        } else {
            self.tabs
                .update(tab, |t| std::mem::replace(&mut t.crashed, false))
                .unwrap_or(false)
        };
        if changed {
            self.tab_changed(tab);
        }
    }

    /// Refuses a request that needs its tab's renderer ([`Handle::NEEDS_RENDERER`])
    /// when that renderer crashed.
    pub(in crate::engine) fn check_not_crashed<R: Handle>(
        &self,
        request: &R,
    ) -> Result<(), EngineError> {
        let Some(tab) = request.tab().filter(|_| R::NEEDS_RENDERER) else {
            return Ok(());
        };
        if self.tabs.read(tab, |t| t.crashed) == Some(true) {
            return Err(EngineError::RendererCrashed(tab));
        }
        Ok(())
    }

    /// A tab was closed (`chrome.tabs.onRemoved`).
    pub fn on_tab_removed(&self, tab: TabId) {
        self.tab_changed(tab);
        self.traces.borrow_mut().lost(tab, "the page was closed");
        self.tabs.remove(tab);
        self.signals.publish(tab, &TabSignal::Closed);
        // Those who shared the tab hear of it before it leaves their scopes.
        self.post_event(Event::TabClosed { tab_id: tab });
        if !self.sharing.borrow_mut().tab_removed(tab).is_empty() {
            self.scopes_changed();
        }
    }

    /// Forgets everything about a tab's debugging session, collectors included (its
    /// emulation stays).
    fn forget_session(&self, tab: TabId) {
        self.tabs.update(tab, tab::Tab::end_session);
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
        let connection = self.port.connection();
        self.chrome.spawn(Box::pin(async move {
            let outcome = engine.call(client, command).await;
            if engine.port.connection() == connection {
                engine.post_reply(id, client, outcome);
            } else {
                engine.chrome.log(&format!(
                    "tabwire: dropped the reply to {id}: its host is gone"
                ));
            }
        }));
    }

    /// Lets a call through the [`access`] gate, then runs it, alone on its tab.
    async fn call(&self, client: Option<u64>, command: Command) -> Result<Reply, WireError> {
        let session = self.caller(client)?;
        let now = self.chrome.now_ms();
        self.sharing.borrow_mut().touch(&session, now);
        self.port.called(now);
        let Some(tab) = command.tab_id() else {
            let outcome = self.run(&session, command).await;
            self.scopes_changed();
            return outcome;
        };
        // Out of scope: refused at once, without waiting for the tab.
        self.check_scope(&session, tab)?;
        let outcome = if let Command::CloseTab(_) = command {
            // Closing does not queue behind a command running on the tab: it stops it.
            self.check_access(&session, tab).await?;
            self.run(&session, command).await
        } else if reads_collected(&command) && self.tabs.collecting(tab) {
            // What was collected is answered from memory, while a command (a long
            // script) runs on the tab.
            self.check_access(&session, tab).await?;
            self.run(&session, command).await
        } else {
            let _tab = self.tabs.lock(tab).await;
            // Checked while holding the tab: the user may have stopped sharing it, or
            // it may have gone to a blocklisted site, while the call waited.
            self.check_access(&session, tab).await?;
            self.run(&session, command).await
        };
        self.note_used(tab);
        self.scopes_changed();
        outcome
    }

    pub(in crate::engine) fn open_dialog(&self, tab: TabId) -> Option<DialogInfo> {
        self.tabs.dialog(tab)
    }

    /// Runs `work(engine)` as a task of its own: work that outlives the call or event
    /// that started it (timers, saves, cleanup after a departure). A task holds the
    /// engine strongly while it runs; the engine holds only a weak reference to
    /// itself, so a dropped engine starts no new tasks.
    pub(super) fn in_background<F>(&self, work: impl FnOnce(Rc<Self>) -> F)
    where
        F: Future<Output = ()> + 'static,
    {
        if let Some(engine) = self.me.upgrade() {
            self.chrome.spawn(Box::pin(work(engine)));
        }
    }

    /// Reads back the settings and what a previous worker saved ([`persist`]). Call
    /// once, before the native port opens; unreadable storage is logged and ignored.
    pub async fn restore(&self) {
        self.load_settings().await;
        self.made_groups.load(&self.chrome).await;
        self.restore_saved().await;
        // Only now are this run's groups known (a worker restart keeps them).
        self.dissolve_leftover_groups().await;
    }

    /// What an agent's request for the tab in front reaches ([`access::requests`]).
    fn asking(&self) -> access::requests::Asking<'_, C> {
        access::requests::Asking {
            chrome: &self.chrome,
            requests: &self.tab_requests,
            sharing: &self.sharing,
            tabs: &self.tabs,
        }
    }

    /// The tabs' documents ([`document`]).
    fn documents(&self) -> document::Documents<'_, C> {
        let (chrome, tabs, made) = (&self.chrome, &self.tabs, &self.documents_made);
        document::Documents { chrome, tabs, made }
    }

    /// tabwire's worlds in the tabs' frames ([`world`]).
    fn walkers(&self) -> world::Walkers<'_, C> {
        let (chrome, tabs) = (&self.chrome, &self.tabs);
        world::Walkers { chrome, tabs }
    }

    /// The tabs' cross-site frames, each a child session ([`oopif`]).
    fn frames(&self) -> oopif::Frames<'_, C> {
        let (chrome, tabs, signals) = (&self.chrome, &self.tabs, &*self.signals);
        oopif::Frames {
            chrome,
            tabs,
            signals,
        }
    }

    /// `chrome.tabGroups.onCreated` / `onUpdated`: a group appeared or was renamed; one
    /// of an earlier run that no agent holds is dissolved ([`access::leftovers`]).
    pub fn on_group_changed_by_browser(&self) {
        self.in_background(|engine| async move {
            engine.dissolve_leftover_groups().await;
        });
    }

    async fn dissolve_leftover_groups(&self) {
        (self.made_groups)
            .dissolve_leftovers(&self.chrome, &self.sharing)
            .await;
    }

    /// Takes back the state a previous worker of this browser run saved.
    async fn restore_saved(&self) {
        let saved = match persist::read_saved(&self.chrome, &self.persist).await {
            persist::Restored::Unreadable => return,
            persist::Restored::Fresh => return self.schedule_save(),
            persist::Restored::Saved(saved) => saved,
        };
        let bump = |cell: &Cell<u64>, saved: u64| cell.set(cell.get().max(saved));
        bump(&self.snapshots, saved.counters.snapshots);
        bump(&self.documents_made, saved.counters.documents);
        bump(&self.object_groups, saved.counters.object_groups);
        let now = self.chrome.now_ms();
        let has_agents = !saved.sharing.agents.is_empty();
        self.sharing.borrow_mut().restore(saved.sharing, now);
        for (tab, group) in saved.grouped {
            self.tabs.write(tab, |t| t.group = tab::Group::In(group));
        }
        for tab in saved.attached {
            // Ours from before (its state is lost): let go, the next command re-attaches.
            let _ = self.chrome.detach_debugger(tab).await;
        }
        if has_agents {
            self.start_grace_timer();
        }
        self.schedule_save();
        self.chrome.state_changed();
    }

    /// Reads the user's settings from `chrome.storage.local`.
    pub(super) async fn load_settings(&self) {
        if let Some(read) = persist::load_settings(&self.chrome).await {
            *self.settings.borrow_mut() = read;
        }
    }

    /// Saves the settings to `chrome.storage.local`.
    pub(super) async fn store_settings(&self) -> Result<(), String> {
        let settings = self.settings.borrow().clone();
        persist::store_settings(&self.chrome, &settings).await
    }

    /// Saves the state soon (once, however many changes come before).
    pub(super) fn schedule_save(&self) {
        if !self.persist.wants_save() {
            return;
        }
        self.in_background(|engine| async move {
            let value = engine.persist.saving(persist::Parts {
                sharing: &engine.sharing.borrow(),
                tabs: &engine.tabs,
                counters: persist::Counters {
                    snapshots: engine.snapshots.get(),
                    documents: engine.documents_made.get(),
                    object_groups: engine.object_groups.get(),
                },
            });
            persist::store_saved(&engine.chrome, value).await;
        });
    }

    /// A command on `tab` finished: start (or push back) its idle timer
    /// ([`idle_detach`]).
    pub(super) fn note_used(&self, tab: TabId) {
        if self.idle_limit_ms() == 0 {
            return;
        }
        let now = self.chrome.now_ms();
        self.tabs.write(tab, |t| t.last_used = Some(now));
        let Some(generation) = self.idle.borrow_mut().arm(tab) else {
            return;
        };
        self.in_background(move |engine| async move {
            engine.watch_idle(tab, generation).await;
            engine.idle.borrow_mut().stopped(tab, generation);
        });
    }

    /// The idle delay changed: every attached tab's idle time counts from now, under
    /// the new delay (a tab attached while it was 0 gets its timer only now).
    pub(super) fn rearm_idle_timers(&self) {
        self.idle.borrow_mut().new_delay();
        let attached = self.tabs.attached();
        for tab in attached {
            self.note_used(tab);
        }
    }

    fn idle_limit_ms(&self) -> u64 {
        idle_detach::limit_ms(&self.settings.borrow(), &self.sharing.borrow())
    }

    /// Runs `tab`'s idle timer of `generation` until [`Idle`](idle_detach::Idle) says
    /// it stops, or lets the tab go.
    async fn watch_idle(&self, tab: TabId, generation: u64) {
        loop {
            let limit = self.idle_limit_ms();
            let last = self.tabs.read(tab, |t| t.last_used).flatten();
            let busy = self.tabs.busy(tab) || self.traces.borrow().active(tab);
            let now = self.chrome.now_ms();
            let next = self.idle.borrow().next(generation, limit, last, now, busy);
            match next {
                idle_detach::Next::Stop => return,
                idle_detach::Next::Sleep(ms) => self.chrome.sleep(ms).await,
                idle_detach::Next::Detach => break,
            }
        }
        let _tab = self.tabs.lock(tab).await;
        self.tabs.update(tab, |t| t.last_used = None);
        if self.tabs.is_attached(tab) {
            self.detach_keeping_collectors(tab).await;
            self.chrome.state_changed();
        }
    }

    /// The next snapshot number (engine-wide, so uids never repeat across documents).
    pub(super) fn next_snapshot_number(&self) -> u64 {
        let n = self.snapshots.get() + 1;
        self.snapshots.set(n);
        n
    }

    /// A name for a new group of remote objects, released together at the end.
    pub(super) fn next_object_group(&self) -> String {
        let n = self.object_groups.get();
        self.object_groups.set(n + 1);
        format!("tabwire-evaluate-{n}")
    }

    /// Posts an event: about a tab, to the agents that may see that tab; else to all.
    pub(in crate::engine) fn post_event(&self, event: Event) {
        let tab = match &event {
            Event::TabDetached { tab_id, .. }
            | Event::ConsoleChanged { tab_id }
            | Event::WebMcpChanged { tab_id }
            | Event::TabClosed { tab_id }
            | Event::DialogOpened { tab_id, .. }
            | Event::DialogClosed { tab_id }
            | Event::UserPointed { tab_id, .. } => Some(*tab_id),
            Event::BrowserConnected { .. }
            | Event::BrowserDisconnected { .. }
            | Event::TabsChanged
            | Event::Revoked { .. } => None,
        };
        match tab.and_then(|tab| self.sharing.borrow().audience(tab)) {
            None => self
                .chrome
                .post(&Envelope::notice(FromExtension::Event(event))),
            Some(clients) => {
                for client in clients {
                    self.post_to(client, event.clone());
                }
            }
        }
    }

    /// Posts an event to one agent's server.
    fn post_to(&self, client: u64, event: Event) {
        self.chrome.post(&Envelope {
            id: None,
            client: Some(client),
            body: FromExtension::Event(event),
        });
    }

    /// Posts a reply, or, when it is more than the native port carries, an error that
    /// says so (Chrome would drop the whole message, and the agent wait in vain).
    fn post_reply(&self, id: u64, client: Option<u64>, outcome: Result<Reply, WireError>) {
        let mut envelope = Envelope {
            id: Some(id),
            client,
            body: FromExtension::Reply(outcome),
        };
        let size = encoded_len(&envelope);
        if size > MAX_REPLY_BYTES {
            envelope.body = FromExtension::Reply(Err(WireError::new(
                ErrorCode::InvalidArgument,
                format!(
                    "The answer is {:.1} MiB, more than a browser extension may send to \
                     tabwire ({} MiB a message). Ask for less: a smaller part of the page (a \
                     clip, an element, a page of results) or a shorter result.",
                    size as f64 / (1024.0 * 1024.0),
                    tabwire_shared::framing::MAX_FROM_BROWSER / (1024 * 1024)
                ),
            )));
        }
        self.chrome.post(&envelope);
    }
}

/// Whether `command` only reads what the tab's collectors hold (the console, the
/// network requests): answered at once while the tab is attached and collecting, not
/// queued behind the command running on the tab. Reading a request's bodies may still
/// ask the browser, within its own limit.
fn reads_collected(command: &Command) -> bool {
    matches!(
        command,
        Command::ListConsole(_)
            | Command::GetConsoleMessage(_)
            | Command::NetworkRequests(_)
            | Command::GetNetworkRequest(_)
    )
}

/// `chrome.debugger.onDetach`'s reason when the user pressed Cancel on Chrome's
/// debugging bar.
const CANCELED_BY_USER: &str = "canceled_by_user";

/// The largest reply posted to the native host: Chrome's 64 MiB for a message to a
/// native host, less room for the envelope's own bytes.
pub const MAX_REPLY_BYTES: usize = tabwire_shared::framing::MAX_FROM_BROWSER - 64 * 1024;

/// How many bytes `value` takes as JSON, counted without building the text.
fn encoded_len(value: &impl serde::Serialize) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    match serde_json::to_writer(&mut count, value) {
        Ok(()) => count.0,
        Err(_) => usize::MAX,
    }
}

#[cfg(test)]
mod tests {
    use super::super::fake::{commands, Answer, Arg, Harness};
    use serde_json::json;
    use tabwire_shared::framing::MAX_TO_BROWSER;
    use tabwire_shared::pieces::PIECE_BUDGET;
    use tabwire_shared::{Command, Envelope, ErrorCode, Evaluate, Event, Reply, ToExtension};

    #[test]
    fn a_reply_the_native_port_cannot_carry_becomes_an_error_saying_so() {
        let h = Harness::new();
        let huge = "x".repeat(super::MAX_REPLY_BYTES + 1);
        h.engine
            .post_reply(7, Some(1), Ok(Reply::new(&huge).unwrap()));
        let error = h.reply(7).expect("a reply").unwrap_err();
        assert_eq!(error.code, ErrorCode::InvalidArgument);
        assert!(error.message.contains("64 MiB"), "{}", error.message);
        h.engine
            .post_reply(8, Some(1), Ok(Reply::new("small").unwrap()));
        assert!(h.reply(8).expect("a reply").is_ok());
    }

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
                pieces: tabwire_shared::pieces::VERSION,
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
    fn hello_and_client_gone_track_agents() {
        let mut h = Harness::strict();
        h.hello(3, "k1", "claude");
        assert_eq!(h.engine.sharing.borrow().caller(Some(3)), Ok("k1".into()));
        h.gone(3);
        assert!(h.engine.sharing.borrow().agent("k1").is_none());
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
                if dialog.kind == tabwire_shared::DialogKind::Alert && dialog.message == "hi" && dialog.default_prompt.is_none()
        ));
    }

    #[test]
    fn replies_for_a_previous_connection_are_dropped() {
        let mut h = Harness::new();
        h.engine.on_port_connected("1");
        h.host_ready(true);
        h.fake.hold("Runtime.callFunctionOn");
        h.call(1, commands::evaluate_one(10, 1000));
        h.settle();
        h.engine.on_port_connected("1");
        h.host_ready(true);
        h.fake
            .release_held(json!({"result": {"type": "number", "value": 1}}));
        h.settle();
        assert!(h.reply(1).is_none());
    }

    /// The JSON texts of the pieces of client 1's request `id` for `command`, cut at
    /// `budget` bytes, the message named `message`.
    fn in_pieces(id: u64, command: impl Into<Command>, budget: usize, message: u64) -> Vec<String> {
        let mut envelope = Envelope::request(id, ToExtension::Call(command.into()));
        envelope.client = Some(1);
        let text = serde_json::to_string(&envelope).unwrap();
        tabwire_shared::pieces::split(&text, message, budget)
            .into_iter()
            .map(|piece| {
                let mut envelope = Envelope::request(id, ToExtension::Piece(piece));
                envelope.client = Some(1);
                serde_json::to_string(&envelope).unwrap()
            })
            .collect()
    }

    fn script(id: i64) -> tabwire_shared::Evaluate {
        tabwire_shared::Evaluate {
            tab_id: 10,
            function: format!("(s) => s.length + {id}"),
            args: vec![json!("é😀\"x")],
            timeout_ms: 2000,
        }
    }

    fn answers_scripts(h: &Harness) {
        h.fake.answer(
            "Runtime.callFunctionOn",
            Answer::value(json!({"result": {"type": "number", "value": 4}})),
        );
    }

    #[test]
    fn a_call_too_big_for_one_native_message_is_joined_and_carried_out() {
        let mut h = Harness::new();
        answers_scripts(&h);
        let big: String = "é😀\"x".chars().cycle().take(1_000_000).collect();
        let mut command = script(0);
        command.args = vec![json!(big)];
        let pieces = in_pieces(1, command, PIECE_BUDGET, 1);
        assert!(pieces.len() >= 3, "{} pieces", pieces.len());
        for piece in &pieces {
            assert!(piece.len() <= MAX_TO_BROWSER);
            h.engine.on_port_message(piece);
            assert!(
                h.fake.posted().is_empty(),
                "nothing runs before the last piece"
            );
        }
        h.settle();
        assert_eq!(h.reply_to::<Evaluate>(1).unwrap(), Ok(json!(4)));
        let calls = h.fake.function_calls(10);
        assert_eq!(calls[0].arguments, [Arg::value(big)]);
        assert_eq!(h.engine.port.pieces().held(), 0);
    }

    #[test]
    fn a_call_whose_pieces_arrive_broken_fails_saying_so_and_the_next_works() {
        let mut h = Harness::new();
        answers_scripts(&h);
        let pieces = in_pieces(1, script(1), 40, 1);
        let count = pieces.len();
        // The second piece lost.
        for (i, piece) in pieces.iter().enumerate() {
            if i != 1 {
                h.engine.on_port_message(piece);
            }
        }
        h.settle();
        let error = h.failed(
            1,
            ErrorCode::Internal,
            &format!("piece 2 of {count} is missing"),
        );
        assert!(
            error.message.contains("nothing was run"),
            "{}",
            error.message
        );
        assert!(h.fake.function_calls(10).is_empty());
        assert_eq!(h.fake.posted().len(), 1, "answered once");

        // A piece twice.
        let pieces = in_pieces(2, script(2), 40, 2);
        h.engine.on_port_message(&pieces[0]);
        h.engine.on_port_message(&pieces[0]);
        h.settle();
        let count = pieces.len();
        h.failed(
            2,
            ErrorCode::Internal,
            &format!("piece 1 of {count} came again"),
        );

        // Another message in the middle of the pieces: the pieces' request fails, the
        // other runs.
        let pieces = in_pieces(3, script(3), 40, 3);
        h.engine.on_port_message(&pieces[0]);
        h.call(4, script(4));
        h.settle();
        h.failed(3, ErrorCode::Internal, "another message came after piece 1");
        assert!(h.reply(4).unwrap().is_ok());

        // Pieces of another version.
        let pieces: Vec<String> = in_pieces(5, script(5), 40, 4)
            .into_iter()
            .map(|p| p.replace(r#""v":1"#, r#""v":7"#))
            .collect();
        pieces.iter().for_each(|p| h.engine.on_port_message(p));
        h.settle();
        h.failed(5, ErrorCode::Internal, "pieces are of version 7");

        // And the link still joins the next one.
        for piece in in_pieces(6, script(6), 40, 5) {
            h.engine.on_port_message(&piece);
        }
        h.settle();
        assert!(h.reply(6).unwrap().is_ok());
        assert_eq!(h.engine.port.pieces().held(), 0);
    }

    #[test]
    fn pieces_are_let_go_when_their_client_or_the_port_goes() {
        let mut h = Harness::new();
        let pieces = in_pieces(1, script(1), 40, 1);
        h.engine.on_port_message(&pieces[0]);
        assert!(h.engine.port.pieces().held() > 0);
        h.gone(1);
        assert_eq!(h.engine.port.pieces().held(), 0);
        h.engine.on_port_message(&pieces[1]);
        h.settle();
        h.failed(1, ErrorCode::Internal, "piece 1 of");

        let pieces = in_pieces(2, script(2), 40, 2);
        h.engine.on_port_message(&pieces[0]);
        h.engine.on_port_disconnected(None);
        assert_eq!(h.engine.port.pieces().held(), 0);
    }
}
