//! What the engine does when the user changes tabs: navigations, group moves, focus.
//!
//! A shared tab that navigates to a blocklisted site is detached at once, whether
//! Chrome's tab events or the page's own navigation event tells first (its share
//! stays; commands are refused while it shows that site). A shared tab dragged out of
//! the group tabwire put it in stops being shared. Navigations reset Chrome's per-tab
//! badge, so a shared tab's badge is set again. Any change may alter what the popup
//! shows.

use tabwire_shared::TabId;

use super::Engine;
use crate::chrome::{Chrome, TabChange};
use crate::signals::TabSignal;

impl<C: Chrome + 'static> Engine<C> {
    /// `chrome.tabs.onUpdated`.
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

    /// Detaches from every attached tab that shows a blocklisted site now (after the
    /// blocklist changed).
    pub(super) async fn enforce_blocklist(&self) {
        let attached = self.tabs.attached();
        for tab in attached {
            if let Ok(Some(state)) = self.chrome.tab(tab).await {
                self.leave_if_blocklisted(tab, &state.url).await;
            }
        }
    }

    /// A main-frame navigation (`Page.frameNavigated`): a blocklisted destination is
    /// let go at once, before Chrome's slower tab event.
    pub(super) fn leave_if_navigated_to_blocklist(&self, tab: TabId, url: &str) {
        if url.is_empty() || self.settings.borrow().blocked_by(url).is_none() {
            return;
        }
        let url = url.to_owned();
        self.in_background(move |engine| async move {
            engine.leave_if_blocklisted(tab, &url).await;
        });
    }

    /// Lets go of `tab` if `url` (where it went) is on the blocklist: a command running
    /// on it ends first, then the debugger detaches (the share and collectors stay).
    pub(super) async fn leave_if_blocklisted(&self, tab: TabId, url: &str) {
        let blocked = self.settings.borrow().blocked_by(url).map(str::to_owned);
        let Some(pattern) = blocked else { return };
        if !self.tabs.is_attached(tab) {
            return;
        }
        self.chrome.log(&format!(
            "tabwire: tab {tab} went to a blocklisted site ({pattern}); detaching"
        ));
        let reason = format!("the tab went to a site on the user's blocklist, {pattern}");
        self.signals.publish(tab, &TabSignal::Withdrawn(reason));
        let _busy = self.tabs.lock(tab).await;
        if self.tabs.is_attached(tab) {
            self.detach_keeping_collectors(tab).await;
            self.chrome.state_changed();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fake::{commands, Harness};
    use super::TabChange;
    use serde_json::json;
    use tabwire_shared::{requests::*, ErrorCode};

    fn block_bank(h: &mut Harness) {
        let save = json!({"action": "saveSettings", "autoShare": false, "idleDetachSeconds": 0, "blocklist": "https://*.bank.test"});
        assert_eq!(h.popup(save), Ok(()));
    }

    #[test]
    fn going_to_a_blocklisted_site_ends_the_running_command_then_detaches() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.share("k1", 10);
        block_bank(&mut h);
        h.fake.hold_on_tab("Runtime.callFunctionOn", 10);
        let evaluate = commands::evaluate_one(10, 5000);
        h.call(1, evaluate);
        h.settle();
        assert!(h.fake.is_attached(10));
        h.fake.set_url(10, "https://www.bank.test/");
        let change = TabChange {
            url: Some("https://www.bank.test/".into()),
            ..Default::default()
        };
        h.engine.on_tab_updated(10, change);
        h.settle();
        let error = h.reply(1).expect("the command ended").unwrap_err();
        assert_eq!(error.code, ErrorCode::NotShared);
        assert!(error.message.contains("blocklist"), "{}", error.message);
        assert!(error.message.contains("do not retry"), "{}", error.message);
        assert!(!h.fake.is_attached(10));
    }

    #[test]
    fn a_main_frame_navigation_to_a_blocklisted_site_detaches_at_once() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.share("k1", 10);
        block_bank(&mut h);
        let snapshot = TakeSnapshot::whole(10);
        h.call(1, snapshot);
        h.settle();
        assert!(h.fake.is_attached(10));
        let subframe = json!({"frame": {"id": "sub", "parentId": "main", "loaderId": "L8", "url": "https://www.bank.test/"}});
        h.engine.on_cdp_event(10, "Page.frameNavigated", &subframe);
        h.settle();
        assert!(
            h.fake.is_attached(10),
            "a frame of the page is not the page"
        );
        let main = json!({"frame": {"id": "main", "loaderId": "L9", "url": "https://www.bank.test/"}, "type": "Navigation"});
        h.engine.on_cdp_event(10, "Page.frameNavigated", &main);
        h.settle();
        assert!(!h.fake.is_attached(10));
    }
}
