//! Telling agents' servers that the tabs changed, so they can answer from memory.
//!
//! `tabwire mcp` keeps the last tab list it got, the console pages it last listed and
//! the last tool discovery of each page, and answers from them while they are current.
//! What makes them stale happens here: a tab opens, closes, moves, navigates, is
//! retitled or activated, a window takes focus, a page commits a new document, what is
//! shared changes ([`Announced::tabs_changed`]: one [`Event::TabsChanged`] to every
//! server; a change in one tab only if some agent may see it), or a page logs
//! ([`console_changed`]: one [`Event::ConsoleChanged`] to those who share the tab). Each is sent once, and then
//! no more until some server reads again (`ListTabs` or `DiscoverThirdPartyTools`, `ListConsole`
//! on that tab): a server that heard it holds nothing current until it reads, so a
//! second event would tell it nothing. A read re-arms its event before it looks, so a
//! change made while it runs is announced (a server that sees an event while its read
//! is under way does not keep what the read returns).
//!
//! The events carry nothing more: what changed, and how, is for the next read to say.
//! Nothing here posts: each function returns the event that is news, if any, and the
//! engine posts it.

use std::cell::Cell;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use tabwire_shared::{Event, TabId};

use super::access::scopes::Sharing;
use super::tab::Tabs;

/// What agents' servers were last told, so that each change is news once until they
/// read again.
#[derive(Debug, Default)]
pub(super) struct Announced {
    /// A [`TabsChanged`](Event::TabsChanged) went out and no server has read the tabs
    /// since.
    tabs: Cell<bool>,
    /// The agents' scopes as last announced, as a fingerprint.
    scopes: Cell<Option<u64>>,
}

impl Announced {
    /// Something a tab list or tool discovery shows may have changed: the event to
    /// post, the first time only.
    pub(super) fn tabs_changed(&self) -> Option<Event> {
        (!self.tabs.replace(true)).then_some(Event::TabsChanged)
    }

    /// Something changed in `tab`: news only if some agent may see the tab (a change
    /// in a tab nobody shares alters no agent's list, and is nobody's business).
    pub(super) fn tab_changed(&self, sharing: &Sharing, tab: TabId) -> Option<Event> {
        let seen = sharing.agent_profile() || !sharing.sharers(tab).is_empty();
        seen.then(|| self.tabs_changed()).flatten()
    }

    /// A server is reading the tabs: the next change is news again.
    pub(super) fn tabs_read(&self) {
        self.tabs.set(false);
    }

    /// The agents' scopes (what each may see) may have changed: news if they did since
    /// the last time this was asked.
    pub(super) fn scopes_changed(&self, sharing: &Sharing) -> Option<Event> {
        let mut hasher = DefaultHasher::new();
        sharing.agent_profile().hash(&mut hasher);
        for (session, tabs) in sharing.scopes().filter(|(_, tabs)| !tabs.is_empty()) {
            (session, tabs).hash(&mut hasher);
        }
        let fingerprint = Some(hasher.finish());
        // The first look has nothing to compare with: servers that connected since the
        // worker started hold nothing from before it.
        let before = self.scopes.replace(fingerprint);
        (before.is_some() && before != fingerprint)
            .then(|| self.tabs_changed())
            .flatten()
    }
}

/// `tab` collected a console message: news for those who share it, once until someone
/// lists its console.
pub(super) fn console_changed(tabs: &Tabs, tab: TabId) -> Option<Event> {
    let announced = tabs.write(tab, |t| std::mem::replace(&mut t.console_announced, true));
    (!announced).then_some(Event::ConsoleChanged { tab_id: tab })
}

/// A server is listing `tab`'s console (or the tab is gone): its next message is news
/// again.
pub(super) fn console_read(tabs: &Tabs, tab: TabId) {
    tabs.update(tab, |t| t.console_announced = false);
}

#[cfg(test)]
mod tests {
    use super::super::fake::{commands, Harness};
    use super::super::TabChange;
    use serde_json::json;
    use tabwire_shared::{requests::*, Command, Event};

    fn changes(h: &Harness) -> usize {
        h.tabs_changed_events()
    }

    #[test]
    fn a_change_is_announced_once_until_someone_reads_the_tabs() {
        let mut h = Harness::new();
        h.engine.on_tabs_changed();
        h.engine.on_tab_activated();
        h.engine.on_tab_updated(10, TabChange::default());
        h.settle();
        assert_eq!(changes(&h), 1, "one event until a read");
        h.call(1, ListTabs);
        h.settle();
        h.engine.on_tab_removed(11);
        h.settle();
        assert_eq!(changes(&h), 2, "a read re-arms it");
    }

    #[test]
    fn a_new_document_is_announced_and_discovery_re_arms_it() {
        let mut h = Harness::new();
        h.engine.on_tabs_changed();
        h.call(
            1,
            DiscoverThirdPartyTools {
                tab_id: 10,
                allowed_origins: vec!["*".into()],
                timeout_ms: 1_000,
                automatic: false,
            },
        );
        h.settle();
        let before = changes(&h);
        h.engine.on_cdp_event(
            10,
            "Page.frameNavigated",
            &json!({"frame": {"id": "main", "loaderId": "L9", "url": "https://a.test/next"}, "type": "Navigation"}),
        );
        h.settle();
        assert_eq!(changes(&h), before + 1);
    }

    fn console_changes(h: &Harness) -> usize {
        let posted = h.events().into_iter();
        posted
            .filter(|e| matches!(e, Event::ConsoleChanged { tab_id: 10 }))
            .count()
    }

    fn log(h: &Harness, text: &str) {
        h.engine.on_cdp_event(
            10,
            "Runtime.consoleAPICalled",
            &json!({"type": "log", "timestamp": 1.0, "args": [{"type": "string", "value": text}]}),
        );
    }

    fn list_console() -> Command {
        commands::list_console(10)
    }

    #[test]
    fn new_console_messages_are_announced_once_until_the_console_is_listed() {
        let mut h = Harness::new();
        h.call(1, list_console());
        h.settle();
        log(&h, "a");
        log(&h, "b");
        h.settle();
        assert_eq!(console_changes(&h), 1);
        h.call(2, list_console());
        h.settle();
        assert_eq!(console_changes(&h), 1, "reading is not news");
        log(&h, "c");
        h.settle();
        assert_eq!(console_changes(&h), 2);
    }

    #[test]
    fn changes_in_tabs_nobody_shares_are_not_announced() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.share("k1", 10);
        h.call_as(1, 1, ListTabs);
        h.settle();
        let before = changes(&h);
        h.engine.on_tab_updated(11, TabChange::default());
        h.engine.on_tab_moved(11);
        h.engine.on_tab_removed(11);
        h.settle();
        assert_eq!(changes(&h), before, "tab 11 is nobody's");
        h.engine.on_tab_moved(10);
        h.settle();
        assert_eq!(changes(&h), before + 1);
    }

    #[test]
    fn sharing_a_tab_is_announced_but_a_call_that_changes_nothing_is_not() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.call_as(1, 1, ListTabs);
        h.settle();
        let before = changes(&h);
        h.share("k1", 10);
        h.settle();
        assert_eq!(changes(&h), before + 1);
        h.call_as(1, 2, ListTabs);
        h.call_as(1, 3, TakeSnapshot::whole(10));
        h.settle();
        assert_eq!(changes(&h), before + 1, "nothing changed since the read");
    }
}
