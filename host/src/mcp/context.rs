//! What a tool handler may use: the browser, the agent's session, and its page.
//!
//! Handlers get a narrow [`ToolContext`] rather than the whole server, so what a tool
//! can touch is visible at a glance. The browser is behind the [`Browser`] trait so the
//! pipeline and tools are unit-tested with a fake; in the product it is the
//! [`crate::link::Link`] to the relay.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tabwire_shared::origin::OriginPolicy;
use tabwire_shared::{
    Command, DialogInfo, DiscoverThirdPartyTools, Discovery, Emulation, ErrorCode, Event, ListTabs,
    Reply, Request, Snapshot, TabId, TabInfo, TakeSnapshot, WalkOptions, WireError,
};

use super::known::Known;
use super::runs::Runs;
use super::snapshot::memory::SnapshotMemory;
use super::ToolError;
use futures_util::future::BoxFuture;

/// Carries commands to the extension and brings back its replies.
pub trait Browser: Send + Sync {
    /// Sends one command and awaits its reply, bounded in time.
    fn call(&self, command: Command) -> BoxFuture<'_, Result<Reply, WireError>>;

    /// Tells the browser the agent's name (from MCP `initialize`), shown to the user
    /// when they choose which agent gets a tab.
    fn introduce(&self, _client_name: &str) {}

    /// The connected extension's version, when a browser is connected.
    fn extension_version(&self) -> Option<String> {
        None
    }
}

/// An element the user pointed at for the agent ([`Event::UserPointed`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pointed {
    /// The page.
    pub page: TabId,
    /// The element's snapshot uid.
    pub uid: String,
    /// Its accessibility role.
    pub role: String,
    /// Its accessible name.
    pub name: String,
}

/// One agent's state: which page it works on, which pages have dialogs open, the locks
/// that keep two calls from acting on the same page at once, and what it knows of the
/// tabs without asking ([`Known`]).
#[derive(Default)]
pub struct Session {
    known: Known,
    selected: Mutex<Option<TabId>>,
    /// The selected page, after it went away without the agent closing it (the user
    /// closed it or stopped sharing it), until the agent is told or selects another.
    lost: Mutex<Option<TabId>>,
    dialogs: Mutex<HashMap<TabId, DialogInfo>>,
    /// The element the user last pointed at for this agent, until a reply shows it.
    pointed: Mutex<Option<Pointed>>,
    discoveries: Mutex<HashMap<TabId, Arc<Discovery>>>,
    emulations: Mutex<HashMap<TabId, Emulation>>,
    snapshots: SnapshotMemory,
    page_locks: Mutex<HashMap<TabId, Arc<tokio::sync::Mutex<()>>>>,
    /// The run of the browser the tab ids above belong to, and after a restart, the ids
    /// from the run before.
    runs: Runs,
    /// The client's `clientInfo.name` from `initialize` (its replies are sized for it);
    /// `None` until the client said.
    client: Mutex<Option<String>>,
    /// Woken when the selected page's WebMCP tools changed
    /// ([`Event::WebMcpChanged`]); changes while nobody waits wake the next wait once.
    webmcp_news: tokio::sync::Notify,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Session {
    /// Records which client this agent talks through (`clientInfo.name`), the first
    /// time; whether this was the first time.
    pub fn set_client(&self, name: &str) -> bool {
        let mut client = lock(&self.client);
        if client.is_some() {
            return false;
        }
        *client = Some(name.to_owned());
        true
    }

    /// The client's `clientInfo.name` (empty before it said).
    pub fn client(&self) -> String {
        lock(&self.client).clone().unwrap_or_default()
    }

    /// The page the agent selected, if it selected one that still exists.
    pub fn selected(&self) -> Option<TabId> {
        *lock(&self.selected)
    }

    /// Makes `tab` the page that page tools act on by default.
    pub fn select(&self, tab: TabId) {
        self.runs.selected(tab);
        *lock(&self.lost) = None;
        *lock(&self.selected) = Some(tab);
    }

    /// The agent closed `tab` itself (`close_page`): it knows, so it is not lost.
    pub fn closed_by_agent(&self, tab: TabId) {
        self.observe(&Event::TabClosed { tab_id: tab });
        let mut lost = lock(&self.lost);
        if *lost == Some(tab) {
            *lost = None;
        }
    }

    /// Takes the selected page that went away without the agent closing it, if one
    /// did since it was last told: the next call on "the selected page" says so once
    /// rather than act on another page unasked.
    fn take_lost(&self) -> Option<TabId> {
        lock(&self.lost).take()
    }

    /// Why a call on `tab` (`None`: on the selected page) cannot go ahead, if the
    /// browser restarted since the agent learnt of it ([`Runs::stale`]).
    pub fn stale(&self, tab: Option<TabId>) -> Option<ToolError> {
        self.runs.stale(tab)
    }

    /// The dialog open in `tab`, if any.
    pub fn dialog(&self, tab: TabId) -> Option<DialogInfo> {
        lock(&self.dialogs).get(&tab).cloned()
    }

    /// The element the user pointed at since the last reply that showed one; taken:
    /// one reply shows it.
    pub fn take_pointed(&self) -> Option<Pointed> {
        lock(&self.pointed).take()
    }

    /// The last third-party tool discovery on `tab`, if any.
    pub fn discovery(&self, tab: TabId) -> Option<Arc<Discovery>> {
        lock(&self.discoveries).get(&tab).cloned()
    }

    /// Remembers what discovery found on `tab`.
    pub fn remember_discovery(&self, tab: TabId, discovery: Arc<Discovery>) {
        lock(&self.discoveries).insert(tab, discovery);
    }

    /// What `tab` emulates, if anything.
    pub fn emulation(&self, tab: TabId) -> Option<Emulation> {
        lock(&self.emulations).get(&tab).cloned()
    }

    /// Records what `tab` now emulates.
    pub fn set_emulation(&self, tab: TabId, emulation: Emulation) {
        let mut emulations = lock(&self.emulations);
        if emulation.is_empty() {
            emulations.remove(&tab);
        } else {
            emulations.insert(tab, emulation);
        }
    }

    /// The last whole snapshot of each page, and snapshot numbers.
    pub fn snapshots(&self) -> &SnapshotMemory {
        &self.snapshots
    }

    /// The lock that serialises calls on `tab`.
    pub fn page_lock(&self, tab: TabId) -> Arc<tokio::sync::Mutex<()>> {
        self.runs.saw(tab);
        lock(&self.page_locks).entry(tab).or_default().clone()
    }

    /// Brings the session up to date with something that happened in the browser.
    pub fn observe(&self, event: &Event) {
        // Whatever it is, what is known without asking may be out of date.
        self.known.changed();
        match event {
            Event::DialogOpened { tab_id, dialog } => {
                lock(&self.dialogs).insert(*tab_id, dialog.clone());
            }
            Event::DialogClosed { tab_id } | Event::TabDetached { tab_id, .. } => {
                lock(&self.dialogs).remove(tab_id);
            }
            Event::TabClosed { tab_id } => {
                lock(&self.dialogs).remove(tab_id);
                lock(&self.discoveries).remove(tab_id);
                lock(&self.emulations).remove(tab_id);
                self.snapshots.forget(*tab_id);
                lock(&self.page_locks).remove(tab_id);
                self.lose_selected(*tab_id);
            }
            // The extension's worker restarting looks like this too, and tab ids survive
            // that: what is kept by tab is dropped only once a different browser run
            // connects (or, without a run id, any browser).
            Event::BrowserDisconnected { .. } => {
                lock(&self.dialogs).clear();
            }
            Event::BrowserConnected { instance, .. } => {
                if self.runs.connected(instance) {
                    tracing::debug!(%instance, "a browser run this agent has no tabs of yet");
                    lock(&self.dialogs).clear();
                    lock(&self.discoveries).clear();
                    lock(&self.emulations).clear();
                    self.snapshots.clear();
                    lock(&self.page_locks).clear();
                    *lock(&self.selected) = None;
                    *lock(&self.lost) = None;
                }
            }
            Event::WebMcpChanged { tab_id } => {
                if self.selected().is_none_or(|s| s == *tab_id) {
                    self.webmcp_news.notify_one();
                }
            }
            Event::UserPointed {
                tab_id,
                uid,
                role,
                name,
            } => {
                *lock(&self.pointed) = Some(Pointed {
                    page: *tab_id,
                    uid: uid.clone(),
                    role: role.clone(),
                    name: name.clone(),
                });
            }
            Event::TabsChanged | Event::ConsoleChanged { .. } | Event::Revoked { .. } => {}
        }
    }

    /// Refreshes the known dialogs from a full tab list (the source of truth), which
    /// the agent is about to see.
    pub fn observe_tabs(&self, tabs: &[TabInfo]) {
        self.runs.listed(tabs.iter().map(|t| t.id));
        let mut dialogs = lock(&self.dialogs);
        dialogs.clear();
        for tab in tabs {
            if let Some(dialog) = &tab.dialog {
                dialogs.insert(tab.id, dialog.clone());
            }
        }
        let selected = self.selected();
        if let Some(id) = selected.filter(|id| !tabs.iter().any(|t| t.id == *id)) {
            self.lose_selected(id);
        }
    }

    /// `tab` went away from this agent (closed, or no longer shared with it): if it
    /// was the selected page, nothing is selected, and the page is remembered as lost
    /// ([`Session::take_lost`]).
    fn lose_selected(&self, tab: TabId) {
        let mut selected = lock(&self.selected);
        if *selected == Some(tab) {
            *selected = None;
            *lock(&self.lost) = Some(tab);
        }
    }
}

/// Why a page tool cannot run when the agent has no page at all, and what to do.
pub const NO_PAGE: &str = const_format::concatcp!("No page is available to this agent: no tab is shared with it. Call request_page with your reason: the user sees the request and shares the tab in front with one click. (Or ask the user to open the tab you should work on, then ", tabwire_shared::sharing::SHARE_STEPS, " in its popup; or open a tab of your own with new_page.)");

/// The agent's choices that shape what tools do (from the command line).
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// Show sensitive request headers (cookies, tokens) instead of redacting them.
    pub show_sensitive_headers: bool,
    /// Third-party developer tools: `None` when their category is off, else the origins
    /// allowed to present them.
    pub third_party: Option<OriginPolicy>,
    /// Results carry `structuredContent` (`--experimentalStructuredContent`).
    pub structured_content: bool,
    /// The selected page's own tools are MCP tools of their own
    /// (`--experimentalPageToolsAsMcpTools`; needs `third_party`).
    pub page_tools: bool,
    /// The reply budget the user chose (`--maxResultChars`), over the client's own.
    pub max_result_chars: Option<usize>,
    /// What the agent may not ask for (`--javascriptEvaluation=false`, …).
    pub restrictions: super::restrictions::Restrictions,
}

/// What a handler gets: the browser, the session and (for page tools) its page, each
/// behind the methods tools use.
#[derive(Clone)]
pub struct ToolContext {
    /// The connection to the extension.
    browser: Arc<dyn Browser>,
    /// The agent's state.
    session: Arc<Session>,
    /// The agent's settings.
    settings: Arc<Settings>,
    /// The page a page-scoped tool acts on, resolved by the pipeline.
    page: Option<TabId>,
}

impl ToolContext {
    /// A context for one agent, on no page yet.
    pub fn new(browser: Arc<dyn Browser>, session: Arc<Session>, settings: Arc<Settings>) -> Self {
        Self {
            browser,
            session,
            settings,
            page: None,
        }
    }

    /// How the connected extension's version differs from this program's, if it does.
    pub fn version_mismatch(&self) -> Option<tabwire_shared::version::Mismatch> {
        let extension = self.browser.extension_version()?;
        tabwire_shared::version::Mismatch::between(&extension, env!("CARGO_PKG_VERSION"))
    }

    /// The same context, for a call that acts on `page` (`None`: on none yet).
    pub fn on_page(&self, page: Option<TabId>) -> Self {
        Self {
            page,
            ..self.clone()
        }
    }

    /// The page a page-scoped tool acts on.
    pub fn page(&self) -> Result<TabId, ToolError> {
        self.page
            .ok_or_else(|| ToolError::new("This tool needs a page, and none is selected."))
    }

    /// The page the pipeline resolved for this call, if it is page-scoped.
    pub fn resolved_page(&self) -> Option<TabId> {
        self.page
    }

    /// The agent's settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Records which client the agent talks through (`clientInfo.name`), which sizes
    /// its replies; whether it was not known before.
    pub fn set_client(&self, name: &str) -> bool {
        self.session.set_client(name)
    }

    /// How many characters one reply may hold for this agent's client
    /// ([`super::budget`]).
    pub fn result_chars(&self) -> usize {
        super::budget::result_chars(&self.session.client(), self.settings.max_result_chars)
    }

    /// The page the agent selected, if it selected one that still exists.
    pub fn selected(&self) -> Option<TabId> {
        self.session.selected()
    }

    /// Resolves when the selected page's WebMCP tools may have changed (a page
    /// registering or removing tools, told by the extension).
    pub async fn webmcp_changed(&self) {
        self.session.webmcp_news.notified().await;
    }

    /// Makes `tab` the page that page tools act on by default.
    pub fn select(&self, tab: TabId) {
        self.session.select(tab);
    }

    /// Brings the session up to date with what a tool itself made happen (a dialog it
    /// answered, a tab it closed), before the extension's event says so.
    pub fn observe(&self, event: &Event) {
        self.session.observe(event);
    }

    /// The agent closed `tab` itself (`close_page`).
    pub fn closed_by_agent(&self, tab: TabId) {
        self.session.closed_by_agent(tab);
    }

    /// The dialog open in `tab`, if any.
    pub fn dialog(&self, tab: TabId) -> Option<DialogInfo> {
        self.session.dialog(tab)
    }

    /// The element the user pointed at since the last reply that showed one (taken).
    pub fn take_pointed(&self) -> Option<Pointed> {
        self.session.take_pointed()
    }

    /// What `tab` emulates, if anything.
    pub fn emulation(&self, tab: TabId) -> Option<Emulation> {
        self.session.emulation(tab)
    }

    /// Records what `tab` now emulates.
    pub fn set_emulation(&self, tab: TabId, emulation: Emulation) {
        self.session.set_emulation(tab, emulation);
    }

    /// The last third-party tool discovery on `tab`, if any (current or not).
    pub fn last_discovery(&self, tab: TabId) -> Option<Arc<Discovery>> {
        self.session.discovery(tab)
    }

    /// The lock that serialises calls on `tab`.
    pub fn page_lock(&self, tab: TabId) -> Arc<tokio::sync::Mutex<()>> {
        self.session.page_lock(tab)
    }

    /// The last whole snapshot of each page the agent was given, and snapshot numbers.
    pub fn snapshots(&self) -> &SnapshotMemory {
        self.session.snapshots()
    }

    /// Tells the browser the agent's name (see [`Browser::introduce`]).
    pub fn introduce(&self, client_name: &str) {
        self.browser.introduce(client_name);
    }

    /// Sends a request to the browser and brings back its typed reply.
    pub async fn request<R: Request>(&self, request: R) -> Result<R::Reply, ToolError> {
        let command: Command = request.into();
        let name = command.name();
        let reply = self.call(command).await?;
        answer::<R>(reply, &name)
    }

    /// Sends a command to the browser. One that may change the tabs makes what the
    /// session knows of them out of date, before it goes and again when it is answered.
    async fn call(&self, command: Command) -> Result<Reply, ToolError> {
        let tab = command.tab_id();
        if let Some(stale) = tab.and_then(|t| self.session.stale(Some(t))) {
            return Err(stale);
        }
        let changes_tabs = !command.leaves_tabs_alone();
        if changes_tabs {
            self.session.known.changed();
        }
        let outcome = self.browser.call(command).await;
        if changes_tabs || outcome.is_err() {
            self.session.known.changed();
        }
        // The browser restarted while the call waited or ran: that is the news, not the
        // new run's "no such tab" (nor what a new tab that got the same id answered).
        if let Some(stale) = tab.and_then(|t| self.session.stale(Some(t))) {
            return Err(stale);
        }
        match outcome {
            Ok(reply) => Ok(reply),
            Err(error) => {
                // The user took the selected tab back (or disconnected this agent): the
                // next call on the selected page says so. A refusal for another tab
                // leaves the selection alone.
                let selected = self.session.selected();
                if let Some(lost) = selected.filter(|s| {
                    error.code == ErrorCode::NotShared && (tab.is_none() || tab == Some(*s))
                }) {
                    self.session.lose_selected(lost);
                }
                Err(error.into())
            }
        }
    }

    /// Sends a read whose changes the extension announces (the tab list, a console
    /// page): answered from what the session knows while nothing may have changed it,
    /// else by the browser (and then known).
    pub async fn read<R: Request>(&self, request: R) -> Result<R::Reply, ToolError> {
        let command = request.into();
        if let Some(reply) = self.session.known.reply(&command) {
            return answer::<R>(reply, &command.name());
        }
        let generation = self.session.known.generation();
        let reply = self.call(command.clone()).await?;
        self.session.known.keep_reply(generation, &command, &reply);
        answer::<R>(reply, &command.name())
    }

    /// Every tab of every normal window (see [`read`](Self::read)).
    pub async fn list_tabs(&self) -> Result<Vec<TabInfo>, ToolError> {
        let tabs = self.read(ListTabs).await?;
        self.session.observe_tabs(&tabs);
        Ok(tabs)
    }

    /// The page a tool acts on when the agent named none: the selected page, else the
    /// user's active tab ("what I'm looking at"), which then becomes selected.
    pub async fn default_page(&self) -> Result<TabId, ToolError> {
        if let Some(tab) = self.session.selected() {
            return Ok(tab);
        }
        // Selected before a restart: another page would be a surprise.
        if let Some(stale) = self.session.stale(None) {
            return Err(stale);
        }
        let tabs = self.list_tabs().await?;
        // So would one after the user took the selected page away (asked after the
        // tabs, so that a browser that quit, closing its tabs, is said as such).
        if let Some(lost) = self.session.take_lost() {
            return Err(ToolError::new(format!(
                "Page {lost}, the selected page, is gone: it was closed, or the user \
                 stopped sharing it with you. Call list_pages to see the pages you may \
                 use, then select_page one (or pass its pageId); request_page asks the \
                 user for a tab."
            )));
        }
        let tab = tabs
            .iter()
            .find(|t| t.user_active)
            .or_else(|| tabs.first())
            .ok_or_else(|| ToolError::new(NO_PAGE))?;
        self.session.select(tab.id);
        Ok(tab.id)
    }
}

impl ToolContext {
    /// Asks `page` for its third-party developer tools and remembers the answer.
    pub async fn discover_tools(&self, page: TabId) -> Result<Arc<Discovery>, ToolError> {
        self.discover(page, false).await
    }

    /// Like [`ToolContext::discover_tools`], for another tool's reply: a document whose
    /// discovery timed out before is not asked again, only said to be slow.
    pub async fn discover_tools_automatically(
        &self,
        page: TabId,
    ) -> Result<Arc<Discovery>, ToolError> {
        self.discover(page, true).await
    }

    async fn discover(&self, page: TabId, automatic: bool) -> Result<Arc<Discovery>, ToolError> {
        let Some(policy) = &self.settings.third_party else {
            return Err(ToolError::new(
                "Third-party developer tools are switched off. Start tabwire with \
                 --categoryExperimentalThirdParty=true to use them.",
            ));
        };
        let generation = self.session.known.generation();
        let discovery = self
            .request(DiscoverThirdPartyTools {
                tab_id: page,
                allowed_origins: policy.patterns().to_vec(),
                timeout_ms: DISCOVERY_TIMEOUT_MS,
                automatic,
            })
            .await?;
        let discovery = Arc::new(super::third_party_schema::prepare(discovery));
        self.session.remember_discovery(page, discovery.clone());
        self.session.known.discovered(generation, page);
        Ok(discovery)
    }

    /// The selected page's last tool discovery, if nothing may have changed the page
    /// since it was made (so asking again would find the same); `None` when
    /// third-party tools are off or there is no such discovery.
    pub async fn current_discovery(&self) -> Option<Arc<Discovery>> {
        self.settings.third_party.as_ref()?;
        let page = self.default_page().await.ok()?;
        if !self.session.known.discovery_is_current(page) {
            return None;
        }
        self.session.discovery(page)
    }

    /// An accessibility snapshot of `page`, walked as `walk` says.
    pub async fn snapshot(&self, page: TabId, walk: WalkOptions) -> Result<Snapshot, ToolError> {
        self.request(TakeSnapshot { tab_id: page, walk }).await
    }
}

/// How long a page may take to answer tool discovery.
pub const DISCOVERY_TIMEOUT_MS: u64 = 5_000;

/// `R`'s reply (to the command named `name`) read as its reply type. A reply that does
/// not read is no fault of the agent's: the extension wrote another shape, so it and
/// this program are of different versions (or tabwire has a bug), and the error says
/// what to do about it. This is the one place a reply is read.
fn answer<R: Request>(reply: Reply, name: &str) -> Result<R::Reply, ToolError> {
    reply.read().map_err(|error| {
        let request = format!("`{name}`");
        ToolError::new(tabwire_shared::version::unreadable_reply(&request, &error))
    })
}
