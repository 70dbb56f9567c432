//! The engine's view of the browser: the [`Chrome`] trait.
//!
//! Everything the engine needs from the platform goes through this one trait: tab and
//! window queries, the debugger, a timer, a way to run tasks and a way to talk to the
//! native host. The WASM shell implements it with `chrome.*`; unit tests implement it
//! with a scripted fake. The trait speaks plain Rust and JSON values only, so no
//! JavaScript type can leak into the engine.
//!
//! It deliberately has no event methods: the platform pushes events into the engine
//! through the engine's own entry points (`Engine::on_session_event` and friends).

use futures::future::LocalBoxFuture;
use serde_json::Value;
use tabwire_shared::{Envelope, FromExtension, TabId};

/// The parts of `chrome.tabs.onUpdated`'s change info the engine reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TabChange {
    /// The tab's new URL.
    pub url: Option<String>,
    /// The tab's new group (-1: none).
    pub group_id: Option<i64>,
    /// `loading` or `complete`.
    pub status: Option<String>,
}

/// A browser window, with its tabs in tab-strip order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowState {
    /// Chrome's window id.
    pub id: i64,
    /// Whether it is minimized.
    pub minimized: bool,
    /// Whether it has the focus: the window the user works in, with the browser the
    /// application in front (headless Chromium reports every window focused).
    pub focused: bool,
    /// The window's tabs, in tab-strip order.
    pub tabs: Vec<TabState>,
}

/// A tab as Chrome describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TabState {
    /// Chrome's tab id.
    pub id: TabId,
    /// The window that holds the tab.
    pub window_id: i64,
    /// The URL shown (or the pending URL while the first load is under way).
    pub url: String,
    /// The document title.
    pub title: String,
    /// Whether this is its window's selected tab.
    pub active: bool,
}

/// An open tab group, as Chrome describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupState {
    /// Chrome's group id (new in each browser run).
    pub id: i64,
    /// The title shown on the group.
    pub title: String,
}

/// How tabwire's toolbar button looks on one tab.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Badge {
    /// The badge text (empty: no badge).
    pub text: String,
    /// The button's tooltip.
    pub tooltip: String,
    /// The badge colour, as CSS hex (`#RRGGBB`).
    pub background: String,
    /// The badge text's colour, as CSS hex.
    pub text_color: String,
}

/// Where [`Chrome::storage_get`] and [`Chrome::storage_set`] keep data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StorageArea {
    /// `chrome.storage.local`: the user's settings, kept across browser restarts.
    Local,
    /// `chrome.storage.session`: what a restarted service worker needs to carry on
    /// (shares, attached tabs, counters); gone when the browser quits.
    Session,
}

/// A failed browser call, with Chrome's own message (`chrome.runtime.lastError` or the
/// rejected promise's reason).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ChromeError(pub String);

/// The platform under the engine: a Chrome browser (or a fake of one).
///
/// Single-threaded by design: futures need not be `Send`, which is why `async fn` is
/// used directly in the trait.
#[allow(async_fn_in_trait)]
pub trait Chrome {
    /// Every normal window (no popups, apps or devtools), in Chrome's window order,
    /// each with its tabs.
    async fn normal_windows(&self) -> Result<Vec<WindowState>, ChromeError>;

    /// The id of the window the user focused last, if Chrome knows one.
    async fn last_focused_window(&self) -> Result<Option<i64>, ChromeError>;

    /// One tab, or `None` if no tab has this id.
    async fn tab(&self, tab: TabId) -> Result<Option<TabState>, ChromeError>;

    /// Opens a tab at `url` in the current window; `active` selects it.
    async fn create_tab(&self, url: &str, active: bool) -> Result<TabState, ChromeError>;

    /// Sends a tab to `url` without the debugger (`chrome.tabs.update`).
    async fn navigate_tab(&self, tab: TabId, url: &str) -> Result<(), ChromeError>;

    /// Makes a tab the selected tab of its window.
    async fn activate_tab(&self, tab: TabId) -> Result<(), ChromeError>;

    /// Brings a window to the front.
    async fn focus_window(&self, window: i64) -> Result<(), ChromeError>;

    /// Sets a window's outer size in pixels (and makes it a normal, unmaximised window).
    async fn resize_window(&self, window: i64, width: u32, height: u32) -> Result<(), ChromeError>;

    /// Closes a tab.
    async fn remove_tab(&self, tab: TabId) -> Result<(), ChromeError>;

    /// Attaches the extension's debugger (CDP 1.3) to a tab.
    async fn attach_debugger(&self, tab: TabId) -> Result<(), ChromeError>;

    /// Detaches the extension's debugger from a tab.
    async fn detach_debugger(&self, tab: TabId) -> Result<(), ChromeError>;

    /// Sends one CDP command to an attached tab and returns its result as JSON text.
    /// `session` names a child session of the tab (a cross-site iframe the tab's
    /// session auto-attached, `Target.attachedToTarget`); `None` is the tab's own
    /// session. The engine reads every answer straight into its own types: a large
    /// answer (an accessibility tree of many megabytes) is then parsed once, not built
    /// as a generic JSON value first.
    async fn send_command_text(
        &self,
        tab: TabId,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<String, ChromeError>;

    /// The value stored under `key`, or `None` if nothing is.
    async fn storage_get(&self, area: StorageArea, key: &str)
        -> Result<Option<Value>, ChromeError>;

    /// Stores `value` under `key`.
    async fn storage_set(
        &self,
        area: StorageArea,
        key: &str,
        value: Value,
    ) -> Result<(), ChromeError>;

    /// Puts a tab into a tab group: `group`, or a new one when `None`. Returns the group.
    async fn group_tab(&self, tab: TabId, group: Option<i64>) -> Result<i64, ChromeError>;

    /// Gives a tab group its title and colour (one of Chrome's group colour names).
    async fn style_group(&self, group: i64, title: &str, color: &str) -> Result<(), ChromeError>;

    /// Takes a tab out of whatever group holds it.
    async fn ungroup_tab(&self, tab: TabId) -> Result<(), ChromeError>;

    /// Every open tab group, in every window.
    async fn tab_groups(&self) -> Result<Vec<GroupState>, ChromeError>;

    /// Takes every tab out of `group`, which closes it.
    async fn dissolve_group(&self, group: i64) -> Result<(), ChromeError>;

    /// Shows an agent's request for a tab: the toolbar button's global look (on every
    /// tab without a badge of its own) and a notification saying the line; `None`
    /// takes both down.
    async fn show_request(&self, request: Option<(&str, &Badge)>) -> Result<(), ChromeError>;

    /// Sets the toolbar button's badge (text, colours) and tooltip for one tab.
    async fn set_badge(&self, tab: TabId, badge: &Badge) -> Result<(), ChromeError>;

    /// Milliseconds since the Unix epoch (wall clock, for "last activity" and timeouts).
    fn now_ms(&self) -> u64;

    /// Closes the native port and opens it again (the host stopped answering).
    fn reopen_port(&self);

    /// What the popup shows has changed: open popups render again.
    fn state_changed(&self);

    /// Resolves after `ms` milliseconds.
    async fn sleep(&self, ms: u64);

    /// Runs a task concurrently with everything else on this thread.
    fn spawn(&self, task: LocalBoxFuture<'static, ()>);

    /// Sends a message to the native host (dropped, with a log line, if not connected).
    fn post(&self, message: &Envelope<FromExtension>);

    /// Writes a diagnostic line where a developer can find it (the worker's console).
    fn log(&self, line: &str);
}
