//! Every way a command can fail inside the extension, and how each crosses the wire.
//!
//! Messages are for the agent: what happened, then what to do. [`EngineError::code`]
//! gives the [`ErrorCode`] the host acts on; `From<EngineError> for WireError` is the
//! only conversion to the wire.

use tabwire_shared::{DialogInfo, ErrorCode, TabId, WireError};

use crate::chrome::ChromeError;
pub use tabwire_shared::RaisedWindow;

/// Why a command failed.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// No tab has this id.
    #[error("No page with id {0}. Call list_pages to see the open pages.")]
    NoSuchTab(TabId),

    /// The tab closed while the command was running.
    #[error(
        "Page {0} was closed while the command ran (by the user, by the page, or with its \
         window, as when the browser quits). Call list_pages: it shows the open pages, or says \
         that the browser quit."
    )]
    ClosedDuringCommand(TabId),

    /// An agent closed the tab (`close_page`) while the command ran; the command was
    /// stopped.
    #[error(
        "Page {0} closed: close_page closed it while this command ran, so the command was \
         stopped. Call list_pages to see the open pages."
    )]
    ClosedByAgent(TabId),

    /// The tab is not in the calling agent's scope. Whether it exists at all is not
    /// told: an agent may not probe the user's browser for tab ids.
    #[error(
        "Tab {0} is not shared with this agent (or no longer exists). Call list_pages to see \
         the tabs shared with it; for another tab, call request_page (the user shares the \
         tab in front with a click), or ask the user to open it, {steps}.",
        steps = tabwire_shared::sharing::SHARE_STEPS
    )]
    NotShared(TabId),

    /// A call from a relay connection that has not said hello.
    #[error(
        "This agent's tabwire server has not introduced itself to the browser extension \
         yet. Retry in a moment; if it persists, restart the agent's tabwire server."
    )]
    NotIntroduced,

    /// The user disconnected the calling agent in tabwire's popup.
    #[error(
        "The user disconnected this agent from the browser in tabwire's popup, so it may not \
         use any tab. Ask the user whether to reconnect; that takes restarting the agent's \
         tabwire server."
    )]
    Revoked,

    /// The tab shows a site on the user's blocklist.
    #[error(
        "Tab {tab} shows a site on the user's tabwire blocklist ({pattern}), so tabwire will \
         not debug it. Ask the user to navigate that tab to another site, or to change the \
         blocklist in tabwire's popup."
    )]
    Blocklisted {
        /// The tab.
        tab: TabId,
        /// The blocklist pattern its URL matches.
        pattern: String,
    },

    /// An agent asked to open or navigate to a site on the user's blocklist.
    #[error(
        "{url} is on the user's tabwire blocklist ({pattern}), so tabwire will not open it. \
         Ask the user to open it themselves, or to change the blocklist in tabwire's popup."
    )]
    BlocklistedDestination {
        /// Where the agent wanted to go.
        url: String,
        /// The blocklist pattern it matches.
        pattern: String,
    },

    /// `chrome.debugger.attach` refused.
    #[error(
        "Could not attach the debugger to page {tab}: {reason}. Pages held by another \
         debugger (such as an open DevTools window) and chrome:// pages cannot be debugged; \
         close DevTools, take the page to a web page with navigate_page {{url}}, or choose \
         another page."
    )]
    AttachFailed {
        /// The tab.
        tab: TabId,
        /// Chrome's reason.
        reason: String,
    },

    /// The user took the tab away while the command ran (stopped sharing it, or it went
    /// to a blocklisted site): retrying cannot help.
    #[error(
        "The command on page {tab} was stopped: {reason}. This agent may not use the tab \
         any more; do not retry. Ask the user if you need it shared again."
    )]
    WithdrawnDuringCommand {
        /// The tab.
        tab: TabId,
        /// What the user did.
        reason: String,
    },

    /// The debugger was detached while the command was running.
    #[error(
        "The debugger was detached from page {tab} ({reason}) while the command ran, for \
         example because the user cancelled the debugging bar. Call the tool again to re-attach."
    )]
    DetachedDuringCommand {
        /// The tab.
        tab: TabId,
        /// Chrome's reason.
        reason: String,
    },

    /// Chrome ended the session because the tab went somewhere the debugger may not
    /// follow (its target was replaced, e.g. by a chrome:// page), yet the tab lives.
    #[error(
        "Page {0} moved to a page the debugger cannot access (such as a chrome:// page), so \
         the debugger was detached. Navigate it to a web page to debug it again."
    )]
    LeftDebuggableContent(TabId),

    /// An agent asked to open or navigate to a browser page (`chrome:`, `devtools:`,
    /// `view-source:`, an extension's page, `about:` other than `about:blank`).
    #[error(
        "{url} is a browser page ({scheme}:), which Chrome keeps out of reach of extensions \
         such as tabwire: it cannot be debugged, and navigating there can leave the page \
         unusable, so tabwire did not go. The page is where it was. Navigate to a web page \
         (http:, https:, file:) or about:blank instead; if the user needs that browser \
         page, ask them to open it themselves."
    )]
    PrivilegedUrl {
        /// Where the agent wanted to go.
        url: String,
        /// Its scheme, lower-case.
        scheme: String,
    },

    /// The tab's renderer crashed (or was killed), during the command or before it.
    #[error(
        "The page's renderer crashed (page {0} shows Chrome's \"Aw, Snap!\" page and runs \
         nothing): reload it with navigate_page {{type: reload}} (or navigate it to a URL), \
         then retry."
    )]
    RendererCrashed(TabId),

    /// Closing the tab would close the browser.
    #[error(
        "Page {0} is the last open page; closing it would close the browser. \
         Open another page with new_page first."
    )]
    LastTab(TabId),

    /// A URL that is not absolute, or that Chrome rejects.
    #[error("`{0}` is not a valid URL. Give an absolute URL such as https://example.com/.")]
    InvalidUrl(String),

    /// Chrome refused to take an open tab to a `data:` URL: it counts an extension's
    /// navigation as one the page started, and pages may not open `data:` documents
    /// in the top frame. A new tab may start at one.
    #[error(
        "Chrome does not let an extension navigate an open page to a data: URL (only a new \
         page may start at one). Open it with new_page instead."
    )]
    DataUrlNavigation,

    /// Back at the first history entry, or forward at the last.
    #[error("Page {tab} has no {direction} page in its history.")]
    NoHistoryEntry {
        /// The tab.
        tab: TabId,
        /// `previous` or `next`.
        direction: &'static str,
    },

    /// The network or the browser could not load the URL.
    #[error("Could not load {url}: {error}. Check that the URL is right and the server is up.")]
    LoadFailed {
        /// The URL.
        url: String,
        /// Chrome's error text, e.g. `net::ERR_CONNECTION_REFUSED`.
        error: String,
    },

    /// The load event did not come in time.
    #[error(
        "Loading {target} in page {tab} did not finish within {timeout_ms} ms. The page may \
         still be loading: call list_pages to see where it is, or retry with a longer timeout."
    )]
    LoadTimeout {
        /// The tab.
        tab: TabId,
        /// What was being loaded (a URL, or a description such as "the previous page").
        target: String,
        /// The limit.
        timeout_ms: u64,
    },

    /// The evaluated function did not settle in time.
    #[error(
        "The function did not finish within {0} ms; the page keeps running it. Pass a \
         larger `timeout` if it needs longer. A page stuck in it (a loop that never ends) \
         answers nothing more, not even a reload: close it with close_page."
    )]
    EvaluateTimeout(u64),

    /// The evaluated function threw (or its promise rejected).
    #[error("The function threw: {0}")]
    Threw(String),

    /// The function declaration does not compile.
    #[error("The function does not compile: {0}. Pass a function declaration such as `() => document.title`.")]
    SyntaxError(String),

    /// The function's result has no JSON form.
    #[error(
        "The function returned {0}, which cannot be sent back as JSON. Return \
         JSON-serialisable data (objects, arrays, strings, numbers, booleans, null)."
    )]
    NotSerializable(String),

    /// The function's result is too long or too deeply nested to carry back.
    #[error(
        "The function's result is {0}. Return less: a slice, a count, or only the \
         fields you need."
    )]
    ResultTooBig(String),

    /// Chrome refused to run or return the function (typically: the result is not
    /// serialisable, or not a function).
    #[error(
        "Chrome could not run the function or return its result: {0}. Pass a function \
         declaration and return JSON-serialisable data (not DOM nodes, functions or cyclic objects)."
    )]
    EvaluateRefused(String),

    /// A dialog was already open when the command started.
    #[error(
        "A {kind} dialog is open in page {tab}: \"{message}\". It blocks the page; call \
         handle_dialog to accept or dismiss it.",
        kind = .dialog.kind, message = .dialog.message
    )]
    DialogOpen {
        /// The tab.
        tab: TabId,
        /// The dialog.
        dialog: DialogInfo,
    },

    /// A dialog opened while the command was waiting.
    #[error(
        "A {kind} dialog opened in page {tab} while the command ran: \"{message}\". It blocks \
         the page; call handle_dialog to accept or dismiss it.",
        kind = .dialog.kind, message = .dialog.message
    )]
    DialogOpened {
        /// The tab.
        tab: TabId,
        /// The dialog.
        dialog: DialogInfo,
    },

    /// The page navigated away (or reloaded) under the command.
    #[error("Page {0} navigated away while the command ran, so its result is lost. Run it again on the new page.")]
    Navigated(TabId),

    /// A uid that names no element of the page's current document.
    #[error(
        "Element uid \"{0}\" is unknown or stale (the page may have changed). Take a new \
         snapshot (take_snapshot) and use a uid from it."
    )]
    StaleUid(String),

    /// `RunThirdPartyTool` named a discovery of a document the page no longer shows.
    #[error(
        "The third-party tools of page {0} were found in a document the page no longer shows \
         (it navigated or reloaded). Discover them again with list_3p_developer_tools."
    )]
    StaleTools(TabId),

    /// The page has no tool of this name (in this group).
    #[error("Tool {0} not found. Call list_3p_developer_tools to see the page's tools.")]
    ToolNotFound(String),

    /// A third-party tool threw (or its promise rejected).
    #[error("Tool {tool} threw: {error}")]
    ToolThrew {
        /// The tool.
        tool: String,
        /// What it threw: message and stack.
        error: String,
    },

    /// A third-party tool did not settle in time.
    #[error(
        "Tool {tool} did not finish within {timeout_ms} ms; the page keeps running it. Pass a \
         larger `timeout` if it needs longer."
    )]
    ToolTimeout {
        /// The tool.
        tool: String,
        /// The limit.
        timeout_ms: u64,
    },

    /// The browser offers no WebMCP: its `WebMCP` DevTools domain is missing, or the
    /// page has no `document.modelContext` (the feature is off).
    #[error(
        "WebMCP is not available in this browser ({0}). It needs Chrome or Chromium 150 or \
         later started with the WebMCP feature on: --enable-features=WebMCP (or \
         chrome://flags, \"WebMCP for testing\"), then reload the page."
    )]
    WebMcpUnavailable(String),

    /// A WebMCP tool did not answer in time; its run was cancelled.
    #[error(
        "WebMCP tool {tool} did not answer within {timeout_ms} ms; its run was cancelled \
         (WebMCP.cancelInvocation). Pass a larger `timeout` if it needs longer."
    )]
    WebMcpTimeout {
        /// The tool.
        tool: String,
        /// The limit.
        timeout_ms: u64,
    },

    /// The page has no WebMCP tool of this name.
    #[error("Tool {0} not found")]
    WebMcpToolNotFound(String),

    /// The cross-site frame running a WebMCP tool navigated or went away mid-run.
    #[error(
        "The cross-site frame that registered WebMCP tool {0} navigated or went away while \
         the tool ran, so its result is lost. Call list_webmcp_tools to see the tools there now."
    )]
    WebMcpFrameGone(String),

    /// What the page handed back could not be read.
    #[error(
        "The page answered with data tabwire could not read ({0}). If the page replaces \
         JavaScript builtins, reload it (navigate_page with type=reload): tabwire then runs \
         before the page's scripts and is safe from them."
    )]
    UnreadablePageData(String),

    /// An element of a cross-site frame where it cannot be used: the page's scripts,
    /// or a drag from another frame, cannot reach into the frame's renderer.
    #[error(
        "Element \"{uid}\" is inside a cross-site frame (another renderer), which {what}. \
         {instead}"
    )]
    InCrossSiteFrame {
        /// The element.
        uid: String,
        /// What cannot reach it.
        what: &'static str,
        /// What to do instead.
        instead: &'static str,
    },

    /// An element that has no box on screen (hidden, zero-sized, detached layout).
    #[error(
        "Element \"{0}\" is not visible; it may be hidden, have no size, or be covered by \
         its container. Take a new snapshot (take_snapshot) and choose a visible element."
    )]
    NotVisible(String),

    /// `fill` on an element that is not a form control.
    #[error(
        "Element \"{uid}\" is {what}, which cannot be filled. fill takes text inputs, \
         textareas, selects, checkboxes, radio buttons and contenteditable elements; use \
         click or type_text for others."
    )]
    NotFillable {
        /// The element's uid.
        uid: String,
        /// What it is, e.g. `a <div>`.
        what: String,
    },

    /// `fill` on a select with a value none of its options has.
    #[error("The select \"{uid}\" has no option \"{value}\". Its options are: {options}.")]
    NoSuchOption {
        /// The select's uid.
        uid: String,
        /// The value asked for.
        value: String,
        /// Its options' texts, quoted and comma-separated.
        options: String,
    },

    /// `fill` on a checkbox or radio with a value other than true/false.
    #[error(
        "Element \"{uid}\" is a {kind}: fill it with \"true\" (checked) or \"false\" \
         (unchecked), not \"{value}\"."
    )]
    NotABoolean {
        /// The element's uid.
        uid: String,
        /// `checkbox` or `radio`.
        kind: String,
        /// The value given.
        value: String,
    },

    /// A key name [`tabwire_shared::keys::parse_combo`] refused.
    #[error("{0}")]
    InvalidKey(String),

    /// `upload_file` on an element that neither is a file input nor opens a chooser.
    #[error(
        "Element \"{0}\" is not a file input and clicking it opened no file chooser. Pass \
         the uid of an <input type=file>, or of the button that opens the file chooser."
    )]
    NoFileChooser(String),

    /// `handle_dialog` with no dialog open.
    #[error("No dialog is open on page {0}.")]
    NoDialog(TabId),

    /// `wait_for` did not see its text in time.
    #[error(
        "{texts} did not appear in page {tab} within {timeout_ms} ms. Take a snapshot to \
         see what the page shows, or wait longer with a larger timeout."
    )]
    TextTimeout {
        /// The tab.
        tab: TabId,
        /// The texts, quoted and joined.
        texts: String,
        /// The limit.
        timeout_ms: u64,
    },

    /// An input action (or what it set off) did not finish in time.
    #[error(
        "The action on page {tab} did not finish within {timeout_ms} ms; the page may be \
         busy. Take a snapshot to see its state, or retry with a longer timeout."
    )]
    ActionTimeout {
        /// The tab.
        tab: TabId,
        /// The limit.
        timeout_ms: u64,
    },

    /// A full-page screenshot of a page taller than the cap.
    #[error(
        "The page is {height} px tall; full-page screenshots are limited to {max} px. Take a \
         screenshot of the viewport or of one element (uid) instead."
    )]
    PageTooTall {
        /// The page's height, CSS pixels.
        height: u64,
        /// The cap.
        max: u64,
    },

    /// The window did not take the size asked for.
    #[error(
        "Page {tab}'s window could not be resized to give a {w}x{h} viewport; the viewport \
         is {gw}x{gh}. The window may be maximised, full-screen or larger than the screen; \
         to emulate a viewport size regardless, use emulate with viewport.",
        w = .wanted.0, h = .wanted.1, gw = .got.0, gh = .got.1
    )]
    ResizeRefused {
        /// The tab.
        tab: TabId,
        /// The size asked for.
        wanted: (u32, u32),
        /// The size the viewport has.
        got: (u32, u32),
    },

    /// An unknown console message id.
    #[error("No console message with id {id} on page {tab}; call list_console_messages to see the messages.")]
    NoConsoleMessage {
        /// The id asked for.
        id: u64,
        /// The tab.
        tab: TabId,
    },

    /// An unknown network request id.
    #[error("No network request with id {id} on page {tab}; call list_network_requests to see the requests.")]
    NoNetworkRequest {
        /// The id asked for.
        id: u64,
        /// The tab.
        tab: TabId,
    },

    /// Input was dispatched but the page shows no sign of it (Chrome held it back).
    #[error(
        "The {action} did not reach the page in tab {tab}: Chrome accepted it, but no \
         {event} event arrived, so the page did nothing. Chrome holds input back from a \
         page that has not drawn itself yet, which happens in a tab the user is not \
         looking at. Nothing was done: take a screenshot (take_screenshot), then try the \
         {action} again; if it fails again, call select_page with bringToFront: true \
         (this shows the tab to the user) and retry."
    )]
    InputNotReceived {
        /// The tab.
        tab: TabId,
        /// The tool (`click`, `hover`, …).
        action: &'static str,
        /// The event that would have shown it arrived.
        event: &'static str,
    },

    /// DevTools' overlay could not be turned on in a tab that is not in front: each
    /// mouse event there would wait up to 5 s (engine/input/raise.rs).
    #[error(
        "Nothing was sent to tab {tab}: it is not in front, and there Chrome holds each \
         mouse event up to 5 s unless DevTools' overlay is on, which Chrome refused \
         ({reason}). fill, type_text and press_key work where it is; for a click, hover \
         or drag, call select_page with bringToFront: true (this shows the tab to the \
         user) or ask the user to bring it to the front, then try again."
    )]
    MouseWouldWait {
        /// The tab.
        tab: TabId,
        /// Chrome's answer to `Overlay.enable`.
        reason: String,
    },

    /// A mouse press would bring the tab's window to the front (engine/input/raise.rs).
    #[error(
        "Nothing was clicked in tab {tab}: it is the tab shown in a window {raised}, and Chrome \
         brings a window to the front when its tab takes a mouse press (click, drag), \
         which would take the focus from the user. A single click on a link, button, \
         checkbox or the like is made from the keyboard there instead; a double-click, a \
         click at a point or a drag cannot be. Ask the user to bring it to the front, or \
         call select_page with bringToFront: true (this shows the tab to the user), then \
         try again. hover, fill, type_text and press_key work where it is."
    )]
    PressWouldRaiseWindow {
        /// The tab.
        tab: TabId,
        /// Why its window would come forward.
        raised: RaisedWindow,
    },

    /// A click that a mouse press cannot make without raising the window, on an
    /// element the keyboard cannot click either (engine/input/keyclick.rs).
    #[error(
        "Nothing was clicked in tab {tab}: it is the tab shown in a window {raised}, and Chrome \
         brings a window to the front when its tab takes a mouse press, which would take \
         the focus from the user. The element {uid} cannot be clicked from the keyboard \
         instead: it is {what}, not a link, button, summary, checkbox, radio or an element \
         with such a role that can take the focus. Ask the user to bring the window to the \
         front, or call select_page with bringToFront: true (this shows the tab to the \
         user), then try again. hover, fill, type_text and press_key work where it is."
    )]
    NoKeyboardClick {
        /// The tab.
        tab: TabId,
        /// The element.
        uid: String,
        /// Why its window would come forward for a mouse press.
        raised: RaisedWindow,
        /// What the element is (`a <div>`, `a disabled <button>`).
        what: String,
    },

    /// A click made from the keyboard (engine/input/keyclick.rs) that no click event
    /// showed the page received.
    #[error(
        "The element {uid} in tab {tab} got no click. A mouse press would have brought its \
         window forward (the tab is shown in a window {raised}), so tabwire focused the \
         element and pressed {key}, and no click reached it: the page does not turn that \
         key into a click, and whatever the key did is in the page now. Take a snapshot to \
         see. To click it with the mouse, ask the user to bring the window to the front, \
         or call select_page with bringToFront: true (this shows the tab to the user), \
         then try again."
    )]
    KeyboardClickNotReceived {
        /// The tab.
        tab: TabId,
        /// The element.
        uid: String,
        /// Why its window would come forward for a mouse press.
        raised: RaisedWindow,
        /// The key pressed (`Enter`, `Space`).
        key: &'static str,
    },

    /// A screenshot got no frame in time (the page drew none for it).
    #[error(
        "The screenshot did not come within {timeout_ms} ms: the page drew no frame for it. \
         Retry; if it fails again, call select_page with bringToFront: true (this shows \
         the tab to the user) and take the screenshot then."
    )]
    CaptureTimeout {
        /// The limit.
        timeout_ms: u64,
    },

    /// Chrome did not answer a plain browser call in time.
    #[error("Chrome did not answer within {timeout_ms} ms while trying to {action}.")]
    BrowserTimeout {
        /// What the engine was doing.
        action: &'static str,
        /// The limit.
        timeout_ms: u64,
    },

    /// A trace is already recording on the tab.
    #[error(
        "A performance trace is already being recorded on page {0}. Call \
         performance_stop_trace to stop it: one trace records per page at a time."
    )]
    AlreadyTracing(TabId),

    /// No trace records on the tab (or it was lost).
    #[error("No performance trace is being recorded on page {tab}{why}. Start one with performance_start_trace.")]
    NotTracing {
        /// The tab.
        tab: TabId,
        /// Why, when a trace was lost (`: ...`), else empty.
        why: String,
    },

    /// Chrome would not start tracing.
    #[error(
        "Chrome would not start a performance trace on page {tab}: {message}. Another \
         DevTools client (an open DevTools window recording, or another tool) may be \
         tracing the browser; stop it and try again."
    )]
    TraceRefused {
        /// The tab.
        tab: TabId,
        /// Chrome's message.
        message: String,
    },

    /// The trace did not come after stopping.
    #[error(
        "Chrome did not hand over the performance trace within {timeout_ms} ms of stopping \
         it. Record a shorter trace and try again."
    )]
    TraceTimeout {
        /// The limit.
        timeout_ms: u64,
    },

    /// A CDP command failed for a reason the engine has no better words for.
    #[error("Chrome refused {method}: {message}")]
    Cdp {
        /// The CDP method.
        method: &'static str,
        /// Chrome's message.
        message: String,
    },

    /// Chrome answered a CDP command with data the engine cannot read.
    #[error("Chrome answered {method} with data tabwire does not understand: {detail}")]
    UnexpectedAnswer {
        /// The CDP method.
        method: &'static str,
        /// The parse error.
        detail: String,
    },

    /// A browser API call failed.
    #[error("Chrome reported an error: {0}")]
    Browser(#[from] ChromeError),
}

impl EngineError {
    /// The wire code the host acts on.
    pub fn code(&self) -> ErrorCode {
        use EngineError::*;
        match self {
            NoSuchTab(_) | ClosedDuringCommand(_) | ClosedByAgent(_) => ErrorCode::NoSuchTab,
            AttachFailed { .. } | DetachedDuringCommand { .. } | LeftDebuggableContent(_) => {
                ErrorCode::Detached
            }
            LastTab(_)
            | NotIntroduced
            | Revoked
            | Blocklisted { .. }
            | BlocklistedDestination { .. }
            | PrivilegedUrl { .. }
            | DataUrlNavigation => ErrorCode::Refused,
            NotShared(_) | WithdrawnDuringCommand { .. } => ErrorCode::NotShared,
            InvalidUrl(_)
            | NoHistoryEntry { .. }
            | StaleUid(_)
            | InCrossSiteFrame { .. }
            | NotVisible(_)
            | NotFillable { .. }
            | NoSuchOption { .. }
            | NotABoolean { .. }
            | InvalidKey(_)
            | NoFileChooser(_)
            | NoDialog(_)
            | PageTooTall { .. }
            | NoConsoleMessage { .. }
            | NoNetworkRequest { .. }
            | AlreadyTracing(_)
            | NotTracing { .. } => ErrorCode::InvalidArgument,
            TraceRefused { .. } | WebMcpUnavailable(_) => ErrorCode::Refused,
            LoadFailed { .. }
            | ResizeRefused { .. }
            | Threw(_)
            | SyntaxError(_)
            | NotSerializable(_)
            | ResultTooBig(_)
            | EvaluateRefused(_)
            | ToolNotFound(_)
            | WebMcpToolNotFound(_)
            | ToolThrew { .. }
            | RendererCrashed(_)
            | UnreadablePageData(_) => ErrorCode::PageError,
            StaleTools(_) => ErrorCode::StaleTools,
            LoadTimeout { .. }
            | EvaluateTimeout(_)
            | BrowserTimeout { .. }
            | CaptureTimeout { .. }
            | ToolTimeout { .. }
            | WebMcpTimeout { .. }
            | TextTimeout { .. }
            | ActionTimeout { .. }
            | TraceTimeout { .. } => ErrorCode::Timeout,
            InputNotReceived { .. } | KeyboardClickNotReceived { .. } => ErrorCode::PageError,
            PressWouldRaiseWindow { .. } | NoKeyboardClick { .. } | MouseWouldWait { .. } => {
                ErrorCode::Refused
            }
            DialogOpen { .. } | DialogOpened { .. } => ErrorCode::Dialog,
            Navigated(_) | WebMcpFrameGone(_) => ErrorCode::Navigated,
            Cdp { .. } | UnexpectedAnswer { .. } | Browser(_) => ErrorCode::Internal,
        }
    }
}

impl From<EngineError> for WireError {
    fn from(error: EngineError) -> Self {
        WireError::new(error.code(), error.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_tab_message_tells_the_agent_what_to_do() {
        let wire = WireError::from(EngineError::NoSuchTab(12));
        assert_eq!(wire.code, ErrorCode::NoSuchTab);
        assert_eq!(
            wire.message,
            "No page with id 12. Call list_pages to see the open pages."
        );
    }

    #[test]
    fn a_stale_uid_says_to_take_a_new_snapshot() {
        let wire = WireError::from(EngineError::StaleUid("3_14".into()));
        assert_eq!(wire.code, ErrorCode::InvalidArgument);
        assert_eq!(
            wire.message,
            "Element uid \"3_14\" is unknown or stale (the page may have changed). Take a new \
             snapshot (take_snapshot) and use a uid from it."
        );
    }

    #[test]
    fn dialog_errors_name_kind_message_and_remedy() {
        let dialog = DialogInfo {
            kind: tabwire_shared::DialogKind::Confirm,
            message: "Sure?".into(),
            default_prompt: None,
        };
        let wire = WireError::from(EngineError::DialogOpened { tab: 3, dialog });
        assert_eq!(wire.code, ErrorCode::Dialog);
        assert!(wire.message.contains("confirm dialog"));
        assert!(wire.message.contains("\"Sure?\""));
        assert!(wire.message.contains("call handle_dialog"));
    }
}
