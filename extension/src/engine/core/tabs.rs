//! The browser's tabs as the engine knows and shows them: the one the user looks at,
//! one that must exist, and a tab described for an agent.

use tabwire_shared::TabId;
use tabwire_shared::TabInfo;

use super::tab::Tabs;
use crate::chrome::{Chrome, TabState, WindowState};
use crate::error::EngineError;

/// The tab the user is looking at: the active tab of the last focused normal window.
pub(super) async fn users_tab(chrome: &impl Chrome) -> Result<Option<TabState>, EngineError> {
    let windows = chrome.normal_windows().await?;
    let last_focused = chrome.last_focused_window().await?;
    let Some(window) = user_window(&windows, last_focused) else {
        return Ok(None);
    };
    let window = windows.into_iter().find(|w| w.id == window);
    Ok(window.and_then(|w| w.tabs.into_iter().find(|t| t.active)))
}

/// `tab` as the browser has it, or the error an agent reads when it is gone.
pub(super) async fn existing_tab(
    chrome: &impl Chrome,
    tab: TabId,
) -> Result<TabState, EngineError> {
    chrome.tab(tab).await?.ok_or(EngineError::NoSuchTab(tab))
}

/// `tab` as agents are shown it, with what the engine knows of it (`tabs`).
pub(super) fn describe(tabs: &Tabs, tab: &TabState, user_active: bool) -> TabInfo {
    TabInfo {
        id: tab.id,
        window_id: tab.window_id,
        url: tab.url.clone(),
        title: tab.title.clone(),
        user_active,
        dialog: tabs.dialog(tab.id),
        crashed: tabs.read(tab.id, |t| t.crashed).unwrap_or(false),
    }
}

/// The window the user is looking at: the last focused one if it is a normal window,
/// else the first normal window (headless browsers may have no focused window).
pub(in crate::engine) fn user_window(
    windows: &[WindowState],
    last_focused: Option<i64>,
) -> Option<i64> {
    last_focused
        .filter(|id| windows.iter().any(|w| w.id == *id))
        .or_else(|| windows.first().map(|w| w.id))
}
