//! What a command's handler receives: [`Cx`], the engine's shared steps for one agent's
//! call, and nothing else.
//!
//! mini-redis hands each command only what it needs (`apply(db, dst)`); here a
//! command's `Handle` gets a `Cx`: the calling agent's call, the browser,
//! and the steps commands share — the tab made [`ready`](Cx::ready) (attached, no
//! dialog open, watched), work run [`in_time`](Cx::in_time) or
//! [`bounded`](Cx::bounded), typed CDP commands sent while the tab is watched, the
//! node a uid names, the tab's document and collectors read and changed through
//! narrow accessors. Who may use which tab is in it only as the calling agent's own
//! questions (may it use this tab, take into its scope the tab it opened, ask the user
//! for the tab in front); the user's settings, the native port's health and what is
//! saved across restarts are not in it at all. The engine's fields are private to the
//! core, and a `Cx` does not hand its engine out: a command cannot reach past it,
//! whatever file it lives in.
//!
//! A command that works in a page first gets its tab [`ready`](Cx::ready): the
//! debugger attached, no JavaScript dialog blocking the page, and the tab watched from
//! then on (so a detach, a closed tab or a dialog ends its CDP waits). Its work then
//! runs [`in_time`](Cx::in_time): within the command's time limit, with a failure
//! caused by the tab closing told apart from one caused by the tab leaving what the
//! debugger may follow. Plain browser calls without a limit of their own are
//! [`bounded`](Cx::bounded) instead.
//!
//! Each method says which step it is, written once here or in the core behind it, so
//! every command takes the same one.

use std::future::Future;
use std::rc::Rc;

use futures::future::join_all;

use tabwire_shared::requests::RequestTab;
use tabwire_shared::{DialogInfo, Emulation, Event, TabId, TabInfo, TabRequestAnswer};

use super::collect::Collectors;
use super::document::{Document, Kit, NodeRef};
use super::state::traces::Traces;
use super::tab::{Attachment, ChildSession, TabGuard};
use super::uids::FrameKey;
use super::world::WalkerCall;
use super::Engine;
use crate::cdp::input::Rect;
use crate::cdp::CdpCommand;
use crate::cdp::{FrameTree, RemoteObject};
use crate::chrome::{Chrome, TabState};
use crate::error::EngineError;
use crate::signals::{within, Subscription, TabSignal};

/// How long a command without its own time limit may wait for Chrome.
pub const BROWSER_CALL_LIMIT_MS: u64 = 15_000;

/// One agent's call, as its command's handler sees the engine: the shared steps, the
/// browser, and the tab state commands may read and change.
pub struct Cx<'a, C: Chrome> {
    engine: &'a Engine<C>,
    session: &'a str,
}

// The call: the browser, the tab made ready, and the limits its work runs within.
impl<'a, C: Chrome + 'static> Cx<'a, C> {
    /// The context of a call from the agent `session`: made by `Engine::answer` for
    /// each call, and for the user's pick of an element, on behalf of the agent it is
    /// for.
    pub(in crate::engine) fn new(engine: &'a Engine<C>, session: &'a str) -> Self {
        Self { engine, session }
    }

    /// A context for the engine's own work on no agent's behalf (emulation applied
    /// again on attach, the highlight of a pick taken off).
    pub(super) fn of_engine(engine: &'a Engine<C>) -> Self {
        Self {
            engine,
            session: "",
        }
    }

    /// The browser, for what is not CDP on one tab: its windows and tabs, the clock.
    pub fn chrome(&self) -> &'a C {
        &self.engine.chrome
    }

    /// Gets `tab` ready for a command that works in its page: attached, no dialog
    /// open, and watched from now on.
    pub async fn ready(&self, tab: TabId) -> Result<Subscription, EngineError> {
        let watch = self.attached(tab).await?;
        self.no_dialog(tab)?;
        Ok(watch)
    }

    /// Attaches the debugger to `tab` if needed, and watches the tab from now on (a
    /// dialog may be open: for the commands that answer it, or work beside it).
    pub async fn attached(&self, tab: TabId) -> Result<Subscription, EngineError> {
        self.engine.ensure_attached(tab).await?;
        Ok(self.engine.signals.subscribe(tab))
    }

    /// Attaches the debugger to `tab` unless it already is, without watching it.
    pub async fn ensure_attached(&self, tab: TabId) -> Result<(), EngineError> {
        self.engine.ensure_attached(tab).await
    }

    /// Refuses to work in `tab` while a JavaScript dialog blocks it.
    pub fn no_dialog(&self, tab: TabId) -> Result<(), EngineError> {
        match self.engine.open_dialog(tab) {
            Some(dialog) => Err(EngineError::DialogOpen { tab, dialog }),
            None => Ok(()),
        }
    }

    /// Watches `tab` from now on, without attaching it (the tab's signals: closed,
    /// detached, a dialog, its page's events).
    pub fn watch(&self, tab: TabId) -> Subscription {
        self.engine.signals.subscribe(tab)
    }

    /// Runs a command's `work` on `tab` within `timeout_ms`: `None` if time ran out.
    /// A failure because the debugger lost the tab says whether the tab closed.
    pub async fn in_time<T>(
        &self,
        tab: TabId,
        timeout_ms: u64,
        work: impl Future<Output = Result<T, EngineError>>,
    ) -> Result<Option<T>, EngineError> {
        match within(self.chrome().sleep(timeout_ms), work).await {
            Some(Ok(done)) => Ok(Some(done)),
            Some(Err(error)) => Err(self.engine.confirm_closed(tab, error).await),
            None => Ok(None),
        }
    }

    /// Bounds a plain browser call by the limit of a command without its own
    /// ([`BROWSER_CALL_LIMIT_MS`]).
    pub async fn bounded<T>(
        &self,
        action: &'static str,
        work: impl Future<Output = T>,
    ) -> Result<T, EngineError> {
        within(self.chrome().sleep(BROWSER_CALL_LIMIT_MS), work)
            .await
            .ok_or(EngineError::BrowserTimeout {
                action,
                timeout_ms: BROWSER_CALL_LIMIT_MS,
            })
    }

    /// Runs `work` as a task of its own, after the reply if need be (a clean-up); it
    /// gets a [`Background`] to make its own context from.
    pub fn in_background<F>(&self, work: impl FnOnce(Background<C>) -> F)
    where
        F: Future<Output = ()> + 'static,
    {
        let session = self.session.to_owned();
        self.engine
            .in_background(move |engine| work(Background { engine, session }));
    }
}

// CDP in the tab's sessions (its own, and a cross-site iframe's child session), and the
// remote objects it makes.
impl<'a, C: Chrome + 'static> Cx<'a, C> {
    /// Sends a typed CDP command to an attached tab, unwatched (a clean-up that must
    /// not fail the command, a read that needs no watch).
    pub async fn send<T: CdpCommand>(
        &self,
        tab: TabId,
        command: &T,
    ) -> Result<T::Returns, EngineError> {
        self.engine.send(tab, command).await
    }

    /// Sends a typed CDP command in one session of an attached tab (`None`: the tab's
    /// own; else a cross-site iframe's child session), unwatched.
    pub async fn send_in<T: CdpCommand>(
        &self,
        tab: TabId,
        session: Option<&str>,
        command: &T,
    ) -> Result<T::Returns, EngineError> {
        self.engine.send_in(tab, session, command).await
    }

    /// Sends a typed CDP command while watching the tab: a detach, a closed tab or a
    /// dialog ends the wait at once with the error that says so.
    pub async fn send_watched<T: CdpCommand>(
        &self,
        tab: TabId,
        watch: &mut Subscription,
        command: &T,
    ) -> Result<T::Returns, EngineError> {
        self.engine.send_watched(tab, watch, command).await
    }

    /// [`send_watched`](Self::send_watched) in one session of the tab (`None`: its
    /// own).
    pub async fn send_watched_in<T: CdpCommand>(
        &self,
        tab: TabId,
        session: Option<&str>,
        watch: &mut Subscription,
        command: &T,
    ) -> Result<T::Returns, EngineError> {
        self.engine
            .send_watched_in(tab, session, watch, command)
            .await
    }

    /// Runs `work` while watching the tab, as [`send_watched`](Self::send_watched)
    /// does for one command.
    pub async fn watched<T>(
        &self,
        tab: TabId,
        watch: &mut Subscription,
        work: impl Future<Output = Result<T, EngineError>>,
    ) -> Result<T, EngineError> {
        self.engine.watched(tab, watch, work).await
    }

    /// The error to report for a command in `tab` that failed with `error`: the cause
    /// the watch saw (a detach, the tab closing, a dialog) rather than Chrome's words.
    pub async fn explain_failure(
        &self,
        tab: TabId,
        watch: &mut Subscription,
        error: EngineError,
    ) -> EngineError {
        self.engine.explain_failure(tab, watch, error).await
    }

    /// A name for a new group of remote objects, released together at the end.
    pub fn next_object_group(&self) -> String {
        self.engine.next_object_group()
    }

    /// Frees a group of remote objects without delaying the reply, in the tab's
    /// session and the child sessions the group reached.
    pub fn release_objects(&self, tab: TabId, object_group: String) {
        self.engine.release_objects(tab, object_group);
    }

    /// Releases an object group of one session of the tab (`None`: its own), in the
    /// background.
    pub fn release_objects_in(&self, tab: TabId, session: Option<String>, group: String) {
        self.engine.release_objects_in(tab, session, group);
    }

    /// Turns DevTools' overlay on in `tab`'s session if it is not, so mouse moves reach
    /// a page not in front at once.
    pub async fn overlay_on(&self, tab: TabId) -> Result<(), EngineError> {
        self.engine.overlay_on(tab).await
    }

    /// The tab's cross-site frames: each one's child session and record.
    pub fn cross_site_frames(&self, tab: TabId) -> Vec<(String, ChildSession)> {
        super::oopif::cross_site_frames(&self.engine.tabs, tab)
    }

    /// Where a cross-site frame (child `session`) shows in the tab's viewport.
    pub async fn frame_viewport(&self, tab: TabId, session: &str) -> Result<Rect, EngineError> {
        self.engine.frames().viewport(tab, session).await
    }

    /// The id of a frame's main-world JavaScript context, if Chrome announced it.
    pub fn main_world(&self, tab: TabId, frame: &str) -> Option<i64> {
        self.engine.documents().main_world(tab, frame)
    }
}

// The document the tab shows, tabwire's isolated world in each frame, and the uids the
// walker gives out there.
impl<'a, C: Chrome + 'static> Cx<'a, C> {
    /// Brings the tab's document state up to date with its main frame (a new loader
    /// is a new document, with no uids yet); returns the frame tree.
    pub async fn sync_document(
        &self,
        tab: TabId,
        watch: &mut Subscription,
    ) -> Result<FrameTree, EngineError> {
        self.engine.documents().sync(tab, watch).await
    }

    /// The state half of [`sync_document`](Self::sync_document), for a frame tree
    /// fetched along with other commands.
    pub fn adopt_frame_tree(&self, tab: TabId, tree: &FrameTree) {
        self.engine.documents().adopt_frame_tree(tab, tree);
    }

    /// The token and URL of the tab's document, if the debugger is attached and the
    /// document known: what is known without asking Chrome.
    pub fn known_document(&self, tab: TabId) -> Option<(String, String)> {
        self.engine.documents().known(tab)
    }

    /// Runs `f` on the tab's document state, if it is known (after
    /// [`sync_document`](Self::sync_document)).
    pub fn with_document<T>(&self, tab: TabId, f: impl FnOnce(&mut Document) -> T) -> Option<T> {
        self.engine.documents().with(tab, f)
    }

    /// Forgets the tab's kit if it is still `kit` (Chrome no longer knows its
    /// objects), releasing what may be left of it.
    pub fn drop_kit(&self, tab: TabId, kit: &Kit) {
        if self.engine.documents().drop_kit(tab, kit) {
            self.engine.release_objects(tab, kit.object_group.clone());
        }
    }

    /// The next snapshot number (engine-wide, so uids never repeat across documents).
    pub fn next_snapshot_number(&self) -> u64 {
        self.engine.next_snapshot_number()
    }

    /// The context of `frame`'s isolated world, with the snapshot walker in it.
    pub async fn ready_world(&self, tab: TabId, frame: &FrameKey) -> Result<i64, EngineError> {
        self.engine.walkers().ready(tab, frame).await
    }

    /// Calls a snapshot-walker method in `frame`'s isolated world (made, and the
    /// walker installed, if need be); the answer's object is kept in `group`, and with
    /// it comes the context that answered.
    pub async fn call_walker(
        &self,
        tab: TabId,
        frame: &FrameKey,
        call: impl Fn(i64) -> WalkerCall,
        group: &str,
    ) -> Result<(i64, RemoteObject), EngineError> {
        self.engine.walkers().call(tab, frame, call, group).await
    }

    /// One walker call in a known context of `frame`'s world (no new world made):
    /// `None` when the context is gone or has no walker.
    pub async fn walker_call_in(
        &self,
        tab: TabId,
        frame: &FrameKey,
        context: i64,
        call: &WalkerCall,
        group: &str,
    ) -> Result<Option<RemoteObject>, EngineError> {
        (self.engine.walkers())
            .call_in(tab, frame, context, call, group)
            .await
    }

    /// The uid of a DOM node (by backend id) in `frame`'s world: `pin`ned if asked.
    pub async fn uid_in_world(
        &self,
        tab: TabId,
        frame: &FrameKey,
        backend: i64,
        number: u64,
        pin: bool,
        group: &str,
    ) -> Result<Option<String>, EngineError> {
        (self.engine.walkers())
            .uid_of(tab, frame, backend, number, pin, group)
            .await
    }

    /// The DOM node a uid names in the tab's current document (objects made kept in
    /// `group`); a uid of another document, or whose node left, is stale.
    pub async fn node_for_uid(
        &self,
        tab: TabId,
        uid: &str,
        group: &str,
    ) -> Result<NodeRef, EngineError> {
        self.engine.documents().node_for_uid(tab, uid, group).await
    }

    /// The uids of `nodes` (backend node ids) in `tab`'s main frame; `None` for a
    /// node that left the page.
    pub async fn node_uids(
        &self,
        tab: TabId,
        nodes: &[i64],
        group: &str,
    ) -> Result<Vec<Option<String>>, EngineError> {
        let mut watch = self.ready(tab).await?;
        self.sync_document(tab, &mut watch).await?;
        let main = self
            .with_document(tab, |d| FrameKey::tab(d.frame_id.clone()))
            .ok_or(EngineError::StaleTools(tab))?;
        // Made once, before the nodes go there side by side.
        self.ready_world(tab, &main).await?;
        let number = self.next_snapshot_number();
        let found = join_all(nodes.iter().map(|node| {
            let main = &main;
            async move {
                match self
                    .uid_in_world(tab, main, *node, number, false, group)
                    .await
                {
                    Ok(uid) => Ok(uid),
                    // "No node with given id found": it left the page.
                    Err(EngineError::Cdp { .. }) => Ok(None),
                    Err(other) => Err(other),
                }
            }
        }))
        .await;
        let mut uids = Vec::with_capacity(found.len());
        for uid in found {
            let uid = uid?;
            if let Some(uid) = &uid {
                self.with_document(tab, |d| d.uids.learn(uid, &main));
            }
            uids.push(uid);
        }
        Ok(uids)
    }
}

// What the engine keeps about the tab: its session's findings, dialog, collectors,
// emulation, trace, lock.
impl<'a, C: Chrome + 'static> Cx<'a, C> {
    /// Whether our debugger is attached to `tab`.
    pub fn is_attached(&self, tab: TabId) -> bool {
        self.engine.tabs.is_attached(tab)
    }

    /// Reads what the tab's debugging session found (its frames' contexts, child
    /// sessions, WebMCP tools), if the engine knows the tab.
    pub fn attachment<T>(&self, tab: TabId, f: impl FnOnce(&Attachment) -> T) -> Option<T> {
        self.engine.tabs.read(tab, |t| f(&t.attachment))
    }

    /// Changes what the tab's debugging session found, if the engine knows the tab.
    pub fn update_attachment<T>(
        &self,
        tab: TabId,
        f: impl FnOnce(&mut Attachment) -> T,
    ) -> Option<T> {
        self.engine.tabs.update(tab, |t| f(&mut t.attachment))
    }

    /// The JavaScript dialog open in `tab`, as far as CDP told.
    pub fn open_dialog(&self, tab: TabId) -> Option<DialogInfo> {
        self.engine.open_dialog(tab)
    }

    /// The dialog in `tab` is gone without Chrome saying so: forgets it and tells the
    /// agents, as its closing event would have.
    pub fn forget_dialog(&self, tab: TabId) {
        let removed = (self.engine.tabs)
            .update(tab, |t| t.attachment.dialog.take())
            .flatten();
        if removed.is_some() {
            self.engine.post_event(Event::DialogClosed { tab_id: tab });
        }
    }

    /// Runs `f` on the tab's console and network collectors, if the tab is attached.
    pub fn with_collectors<T>(
        &self,
        tab: TabId,
        f: impl FnOnce(&mut Collectors) -> T,
    ) -> Option<T> {
        self.engine.tabs.with_collectors(tab, f)
    }

    /// The agent is reading `tab`'s console: its next message is news again.
    pub fn console_read(&self, tab: TabId) {
        super::announce::console_read(&self.engine.tabs, tab);
    }

    /// What `tab` emulates (nothing if never set).
    pub fn emulation(&self, tab: TabId) -> Emulation {
        (self.engine.tabs)
            .read(tab, |t| t.emulation.clone())
            .unwrap_or_default()
    }

    /// Notes what `tab` emulates now (applied again on each attach).
    pub fn set_emulation(&self, tab: TabId, emulation: Emulation) {
        self.engine.tabs.write(tab, |t| t.emulation = emulation);
    }

    /// Runs `f` on every tab's performance trace.
    pub fn with_traces<T>(&self, f: impl FnOnce(&mut Traces) -> T) -> T {
        f(&mut self.engine.traces.borrow_mut())
    }

    /// Whether the tab's own session has the WebMCP domain on.
    pub fn webmcp_enabled(&self, tab: TabId) -> bool {
        super::webmcp_events::enabled(&self.engine.tabs, tab)
    }

    /// Enables the WebMCP domain in a cross-site frame's session (a failure leaves
    /// its tools unlisted).
    pub async fn enable_child_webmcp(&self, tab: TabId, session: &str) {
        let news = self.engine.frames().enable_webmcp(tab, session).await;
        self.engine.post_news(news);
    }

    /// Notes that `tab`'s renderer crashed, or has a renderer again.
    pub fn crash_changed(&self, tab: TabId, crashed: bool) {
        self.engine.crash_changed(tab, crashed);
    }

    /// Lets go of `tab` but keeps what was collected and emulated in it for the next
    /// attach.
    pub async fn detach_keeping_collectors(&self, tab: TabId) {
        self.engine.detach_keeping_collectors(tab).await;
    }

    /// Waits for `tab` to be free and takes it (a tab this command opened).
    pub async fn lock_tab(&self, tab: TabId) -> TabGuard {
        self.engine.tabs.lock(tab).await
    }

    /// A command used `tab`: its idle timer starts again.
    pub fn note_used(&self, tab: TabId) {
        self.engine.note_used(tab);
    }

    /// `tab` is closing: the command running on it stops, saying so.
    pub fn closing(&self, tab: TabId) {
        self.engine.signals.publish(tab, &TabSignal::Closing);
    }
}

// The browser's tabs, and the calling agent's scope as the agent itself may ask about it.
impl<'a, C: Chrome + 'static> Cx<'a, C> {
    /// The browser's state of `tab`; a tab the browser does not have is
    /// [`EngineError::NoSuchTab`].
    pub async fn existing_tab(&self, tab: TabId) -> Result<TabState, EngineError> {
        super::tabs::existing_tab(&self.engine.chrome, tab).await
    }

    /// `tab` as the agent is shown it (`user_active`: the tab the user looks at).
    pub fn describe(&self, tab: &TabState, user_active: bool) -> TabInfo {
        super::tabs::describe(&self.engine.tabs, tab, user_active)
    }

    /// The tab the user is looking at, if any.
    pub async fn users_tab(&self) -> Result<Option<TabState>, EngineError> {
        super::tabs::users_tab(&self.engine.chrome).await
    }

    /// The agent read the list of tabs: the next change is news again.
    pub fn tabs_read(&self) {
        self.engine.announced.tabs_read();
    }

    /// Refuses a destination on the user's blocklist.
    pub fn check_destination(&self, url: &str) -> Result<(), EngineError> {
        self.engine.check_destination(url)
    }

    /// Whether the calling agent may use `tab`.
    pub fn may_use(&self, tab: TabId) -> bool {
        self.engine.sharing.borrow().may_use(self.session, tab)
    }

    /// Whether the browser is the agent's own (one it launched), not the user's.
    pub fn agents_own_browser(&self) -> bool {
        self.engine.sharing.borrow().agent_profile()
    }

    /// Puts a tab the agent opened into its scope; false if the agent is gone.
    pub async fn adopt_tab(&self, tab: &TabState) -> bool {
        self.engine.adopt_tab(self.session, tab).await
    }

    /// Asks the user to share the tab in front with the calling agent, and waits for
    /// the answer within the request's time.
    pub async fn ask_user_for_tab(
        &self,
        request: RequestTab,
    ) -> Result<TabRequestAnswer, EngineError> {
        self.engine.asking().ask(self.session, request).await
    }
}

/// A call's context for a task that outlives the call ([`Cx::in_background`]).
pub struct Background<C: Chrome> {
    engine: Rc<Engine<C>>,
    session: String,
}

impl<C: Chrome + 'static> Background<C> {
    /// The context, for as long as the task holds this.
    pub fn cx(&self) -> Cx<'_, C> {
        Cx::new(&self.engine, &self.session)
    }
}
