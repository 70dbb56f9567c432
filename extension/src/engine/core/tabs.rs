//! The browser's tabs as the engine knows and shows them: the one the user looks at,
//! one that must exist, and a tab described for an agent.

use tabwire_shared::TabId;
use tabwire_shared::TabInfo;

use super::Engine;
use crate::chrome::{Chrome, TabState, WindowState};
use crate::error::EngineError;

impl<C: Chrome + 'static> Engine<C> {
    /// The tab the user is looking at: the active tab of the last focused normal window.
    pub(super) async fn users_tab(&self) -> Result<Option<TabState>, EngineError> {
        let windows = self.chrome.normal_windows().await?;
        let last_focused = self.chrome.last_focused_window().await?;
        let Some(window) = user_window(&windows, last_focused) else {
            return Ok(None);
        };
        let window = windows.into_iter().find(|w| w.id == window);
        Ok(window.and_then(|w| w.tabs.into_iter().find(|t| t.active)))
    }

    pub(super) async fn existing_tab(&self, tab: TabId) -> Result<TabState, EngineError> {
        self.chrome
            .tab(tab)
            .await?
            .ok_or(EngineError::NoSuchTab(tab))
    }

    pub(in crate::engine) fn describe(&self, tab: &TabState, user_active: bool) -> TabInfo {
        TabInfo {
            id: tab.id,
            window_id: tab.window_id,
            url: tab.url.clone(),
            title: tab.title.clone(),
            user_active,
            dialog: self.open_dialog(tab.id),
            crashed: self.tabs.read(tab.id, |t| t.crashed).unwrap_or(false),
        }
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
