//! The page's WebMCP tools as the `WebMCP` domain's events tell them, kept per
//! session as they come (the tab's own and each cross-site frame's), and the domain
//! turned on in a cross-site frame that joins a tab whose own session has it. What
//! the commands do with them is `engine/webmcp.rs`. Each function here returns the
//! [`Event::WebMcpChanged`] that is news, if any, for the engine to post; enabling the
//! domain in a frame's session is the engine's (`oopif`), which hands the outcome to
//! [`child_enabled`].

use tabwire_shared::{Event, TabId};

use super::tab::Tabs;
use crate::cdp::{Frame, PageEvent};

/// Takes in a page event of the tab's own session: news when the tools changed.
pub(super) fn track(tabs: &Tabs, tab: TabId, event: &PageEvent) -> Option<Event> {
    let changed = tabs
        .update(tab, |t| {
            let state = &mut t.attachment.webmcp;
            state.track(event) && state.enabled
        })
        .unwrap_or(false);
    changed.then(|| changed_in(tabs, tab)).flatten()
}

/// Takes in a page event of a cross-site frame's session: news when its tools changed.
pub(super) fn track_child(
    tabs: &Tabs,
    tab: TabId,
    session: &str,
    event: &PageEvent,
) -> Option<Event> {
    let changed = tabs
        .update(tab, |t| {
            let state = &mut t.attachment.children.get_mut(session)?.webmcp;
            Some(state.track(event) && state.enabled)
        })
        .flatten()
        .unwrap_or(false);
    changed.then(|| changed_in(tabs, tab)).flatten()
}

/// The tab's WebMCP tools changed: news for the agents once until they ask again.
pub(super) fn changed_in(tabs: &Tabs, tab: TabId) -> Option<Event> {
    let tell = tabs
        .update(tab, |t| {
            !std::mem::replace(&mut t.attachment.webmcp.announced, true)
        })
        .unwrap_or(false);
    tell.then_some(Event::WebMcpChanged { tab_id: tab })
}

/// Whether the tab's own session has the WebMCP domain on (a new cross-site frame
/// then gets it too).
pub(super) fn enabled(tabs: &Tabs, tab: TabId) -> bool {
    tabs.read(tab, |t| t.attachment.webmcp.enabled)
        .unwrap_or(false)
}

/// The WebMCP domain is on in a cross-site frame's `session`, whose frame is now
/// `frame` as its session reads it (its tools are shown with its URL, read anew: a
/// frame attached while its `<iframe>` was still blank committed its document before
/// its Page domain was on to say so). The tools it announced before it answered are
/// news to the agents.
pub(super) fn child_enabled(
    tabs: &Tabs,
    tab: TabId,
    session: &str,
    frame: Option<Frame>,
) -> Option<Event> {
    let announced = tabs
        .update(tab, |t| {
            let child = t.attachment.children.get_mut(session)?;
            child.webmcp.enabled = true;
            if let Some(frame) = frame.filter(|f| f.id == child.frame_id) {
                child.url = frame.url;
            }
            Some(!child.webmcp.tools.is_empty())
        })
        .flatten()
        .unwrap_or(false);
    announced.then(|| changed_in(tabs, tab)).flatten()
}
