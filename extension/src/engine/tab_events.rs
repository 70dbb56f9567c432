//! What the engine does when the user changes tabs: navigations, group moves, focus.
//!
//! A shared tab that navigates to a blocklisted site is detached at once (its share
//! stays; commands are refused while it shows that site). A shared tab dragged out of
//! the group tabwire put it in stops being shared. Navigations reset Chrome's per-tab
//! badge, so a shared tab's badge is set again. Any change may alter what the popup
//! shows.

use tabwire_shared::TabId;

use super::Engine;
use crate::chrome::Chrome;

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

impl<C: Chrome + 'static> Engine<C> {
    /// `chrome.tabs.onUpdated`.
    pub fn on_tab_updated(&self, tab: TabId, change: TabChange) {
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

    /// `chrome.tabs.onActivated`: the popup's default tab may have changed.
    pub fn on_tab_activated(&self) {
        self.chrome.state_changed();
    }

    /// Detaches from every attached tab that shows a blocklisted site now (after the
    /// blocklist changed).
    pub(super) async fn enforce_blocklist(&self) {
        let attached: Vec<TabId> = self.state.borrow().attached.iter().copied().collect();
        for tab in attached {
            if let Ok(Some(state)) = self.chrome.tab(tab).await {
                self.leave_if_blocklisted(tab, &state.url).await;
            }
        }
    }

    async fn leave_if_blocklisted(&self, tab: TabId, url: &str) {
        let blocked = self.settings.borrow().blocked_by(url).map(str::to_owned);
        let Some(pattern) = blocked else { return };
        if !self.state.borrow().attached.contains(&tab) {
            return;
        }
        self.chrome.log(&format!(
            "tabwire: tab {tab} went to a blocklisted site ({pattern}); detaching"
        ));
        self.detach_keeping_collectors(tab).await;
    }
}
