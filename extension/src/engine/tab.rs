//! Everything the engine keeps about one tab, in one place.
//!
//! A [`Tab`] holds what the engine knows of one browser tab: its debugging session
//! ([`Attachment`], with the child sessions of its cross-site iframes), the document
//! it shows, what its console and network collected,
//! what it emulates, its tab group, its lock. [`Tabs`] keeps them by tab id, so closing
//! a tab is dropping its entry, and the debugger letting go is resetting its
//! [`Attachment`] — whatever else a tab holds is, by being outside it, what survives a
//! detach. Reading a tab nobody knows makes no entry; writing one does.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use futures::lock::{Mutex, OwnedMutexGuard};
use tabwire_shared::{DialogInfo, Emulation, TabId};

use super::collect::Collectors;
use super::document::Document;
use super::world::Worlds;

/// What the engine knows about one tab.
#[derive(Default)]
pub struct Tab {
    /// The debugging session; reset when the debugger lets go.
    pub attachment: Attachment,
    /// The document the tab shows: uids, pins, tool registry. Gone with a detach,
    /// except an idle one, which keeps all but its kit.
    pub document: Option<Document>,
    /// Console messages and network requests, made when the debugger attaches; an idle
    /// detach keeps them for the next attach.
    pub collectors: Option<Collectors>,
    /// What the tab emulates; kept across detaches (re-applied on attach).
    pub emulation: Emulation,
    /// The renderer crashed, until the tab is reloaded or navigated.
    pub crashed: bool,
    /// The tab group tabwire put the tab in.
    pub group: Group,
    /// A [`ConsoleChanged`](tabwire_shared::Event::ConsoleChanged) went out and nobody
    /// listed the console since.
    pub console_announced: bool,
    /// When the last command on the tab finished, while an idle timer watches it.
    pub last_used: Option<u64>,
    /// One command at a time on the tab ([`Tabs::lock`]).
    lock: Arc<Mutex<()>>,
}

impl Tab {
    /// The debugger let go and the session's findings go with it (Chrome detached us,
    /// or nobody may use the tab any more): the attachment, the document and the
    /// collectors. What the tab emulates stays, to be applied again on attach.
    pub fn end_session(&mut self) {
        self.attachment = Attachment::default();
        self.document = None;
        self.collectors = None;
    }

    /// The debugger let go of a tab kept ready for the next attach (idle, or a
    /// blocklisted site): the collectors stay, and so do the document's uids (they
    /// live in the page's isolated worlds, which outlive the session); its kit, whose
    /// page objects died with the session, goes.
    pub fn pause_session(&mut self) {
        self.attachment = Attachment::default();
        if let Some(document) = &mut self.document {
            document.kit = None;
        }
    }
}

/// What lives exactly as long as one debugging session of a tab.
#[derive(Debug, Default)]
pub struct Attachment {
    /// Our debugger is attached (and the Page and Runtime domains enabled).
    pub attached: bool,
    /// The JavaScript dialog open in the tab, as far as CDP told us.
    pub dialog: Option<DialogInfo>,
    /// The main-world JavaScript context of each frame, by frame id.
    pub contexts: HashMap<String, i64>,
    /// tabwire's isolated world in each frame, as far as this session knows it.
    pub worlds: Worlds,
    /// Re-attaching with the collectors kept: what the domains replay is already
    /// collected.
    pub replaying: bool,
    /// The tab's child sessions (its cross-site iframes), by session id; they end
    /// with the tab's own session.
    pub children: BTreeMap<String, ChildSession>,
    /// The child sessions an object group has objects in, by group: a release of the
    /// group releases it there too.
    pub groups_in_children: HashMap<String, BTreeSet<String>>,
    /// The page's WebMCP tools, as this session's `WebMCP` events told them.
    pub webmcp: super::state::webmcp::WebMcpState,
    /// DevTools' overlay is on in this session, so mouse moves reach the page at once
    /// when it is not in front (`Engine::overlay_on`).
    pub overlay: bool,
}

/// A child debugging session of a tab: one cross-site iframe (an out-of-process frame)
/// Chrome attached us to (`Target.attachedToTarget`). Its events and commands name it
/// by session id; none of them concern the tab's own document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChildSession {
    /// The iframe's frame id (its target id).
    pub frame_id: String,
    /// The session it was attached through: `None` for the tab's own, else the child
    /// session of the cross-site frame it is nested in.
    pub parent: Option<String>,
    /// The frame's URL, as attached and then as navigated.
    pub url: String,
    /// The loader of the frame's document, once its `Page.frameNavigated` told.
    pub loader: Option<String>,
    /// Counts the documents the frame committed since it was attached: what was
    /// learnt about an earlier one (its uids) no longer holds.
    pub documents: u64,
    /// The main-world JavaScript context of each frame in this session, by frame id.
    pub contexts: HashMap<String, i64>,
    /// The frame's WebMCP tools, as this session's `WebMCP` events told them (the
    /// domain is per renderer: the tab's session does not report them).
    pub webmcp: super::state::webmcp::WebMcpState,
}

/// How many child sessions a tab keeps (a page with more cross-site iframes has
/// the rest left out).
pub const MAX_CHILD_SESSIONS: usize = 256;

impl Attachment {
    /// Notes a child session; `false` (and nothing noted) past
    /// [`MAX_CHILD_SESSIONS`].
    pub fn add_child(&mut self, session: &str, child: ChildSession) -> bool {
        if self.children.len() >= MAX_CHILD_SESSIONS && !self.children.contains_key(session) {
            return false;
        }
        self.children.insert(session.to_owned(), child);
        true
    }

    /// Forgets a child session and those nested in it; returns the sessions forgotten.
    pub fn remove_child(&mut self, session: &str) -> Vec<String> {
        let mut gone = Vec::new();
        let mut stack = vec![session.to_owned()];
        while let Some(session) = stack.pop() {
            if self.children.remove(&session).is_some() {
                stack.extend(
                    (self.children.iter())
                        .filter(|(_, c)| c.parent.as_deref() == Some(session.as_str()))
                        .map(|(id, _)| id.clone()),
                );
                gone.push(session);
            }
        }
        gone
    }

    /// The child session that shows frame `frame`, if one does.
    pub fn child_for_frame(&self, frame: &str) -> Option<&str> {
        (self.children.iter())
            .find(|(_, c)| c.frame_id == frame)
            .map(|(id, _)| id.as_str())
    }
}

/// Where tabwire grouped a tab.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// tabwire put the tab in no group.
    #[default]
    None,
    /// tabwire is grouping the tab: the group events that fires are its own.
    Grouping,
    /// The tab is in this group of tabwire's.
    In(i64),
}

/// Holds a tab's lock until dropped.
pub type TabGuard = OwnedMutexGuard<()>;

/// The tabs the engine knows, by id.
#[derive(Default)]
pub struct Tabs(RefCell<HashMap<TabId, Tab>>);

impl Tabs {
    /// Reads `tab`'s state, if the engine knows the tab.
    pub fn read<T>(&self, tab: TabId, f: impl FnOnce(&Tab) -> T) -> Option<T> {
        self.0.borrow().get(&tab).map(f)
    }

    /// Changes `tab`'s state, making it if the engine did not know the tab.
    pub fn write<T>(&self, tab: TabId, f: impl FnOnce(&mut Tab) -> T) -> T {
        f(self.0.borrow_mut().entry(tab).or_default())
    }

    /// Changes `tab`'s state only if the engine knows the tab.
    pub fn update<T>(&self, tab: TabId, f: impl FnOnce(&mut Tab) -> T) -> Option<T> {
        self.0.borrow_mut().get_mut(&tab).map(f)
    }

    /// Runs `f` on the tab's collectors, if the tab is attached.
    pub fn with_collectors<T>(
        &self,
        tab: TabId,
        f: impl FnOnce(&mut Collectors) -> T,
    ) -> Option<T> {
        self.update(tab, |t| t.collectors.as_mut().map(f)).flatten()
    }

    /// Whether our debugger is attached to `tab`.
    pub fn is_attached(&self, tab: TabId) -> bool {
        self.read(tab, |t| t.attachment.attached).unwrap_or(false)
    }

    /// Whether our debugger is attached to `tab` and collects its console and network.
    pub fn collecting(&self, tab: TabId) -> bool {
        self.read(tab, |t| t.attachment.attached && t.collectors.is_some())
            .unwrap_or(false)
    }

    /// The tabs our debugger is attached to.
    pub fn attached(&self) -> Vec<TabId> {
        self.matching(|t| t.attachment.attached)
    }

    /// The tabs whose state passes `keep`.
    pub fn matching(&self, keep: impl Fn(&Tab) -> bool) -> Vec<TabId> {
        let tabs = self.0.borrow();
        let mut ids: Vec<TabId> = tabs
            .iter()
            .filter(|(_, t)| keep(t))
            .map(|(id, _)| *id)
            .collect();
        ids.sort_unstable();
        ids
    }

    /// The tab group tabwire put each tab in (for the saved state).
    pub fn groups(&self) -> BTreeMap<TabId, i64> {
        let tabs = self.0.borrow();
        let group = |(id, t): (&TabId, &Tab)| match t.group {
            Group::In(group) => Some((*id, group)),
            Group::None | Group::Grouping => None,
        };
        tabs.iter().filter_map(group).collect()
    }

    /// Where tabwire grouped `tab`.
    pub fn group(&self, tab: TabId) -> Group {
        self.read(tab, |t| t.group).unwrap_or_default()
    }

    /// Notes where tabwire grouped `tab`.
    pub fn set_group(&self, tab: TabId, group: Group) {
        self.write(tab, |t| t.group = group);
    }

    /// The JavaScript dialog open in `tab`, if any.
    pub fn dialog(&self, tab: TabId) -> Option<DialogInfo> {
        self.read(tab, |t| t.attachment.dialog.clone()).flatten()
    }

    /// The tab closed: forgets all about it (commands waiting for its lock keep their
    /// own handle on it).
    pub fn remove(&self, tab: TabId) {
        self.0.borrow_mut().remove(&tab);
    }

    /// Waits for `tab` to be free and takes it: commands on one tab queue in arrival
    /// order, commands on different tabs run side by side.
    pub async fn lock(&self, tab: TabId) -> TabGuard {
        let lock = self.write(tab, |t| Arc::clone(&t.lock));
        lock.lock_owned().await
    }

    /// Whether a command holds (or waits for) `tab`.
    pub fn busy(&self, tab: TabId) -> bool {
        self.read(tab, |t| Arc::strong_count(&t.lock) > 1)
            .unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::executor::LocalPool;
    use futures::task::LocalSpawnExt;
    use std::rc::Rc;

    #[test]
    fn one_tab_runs_one_holder_at_a_time_others_run_freely() {
        let tabs = Rc::new(Tabs::default());
        let mut pool = LocalPool::new();
        let log = Rc::new(RefCell::new(Vec::new()));
        let first = futures::executor::block_on(tabs.lock(1));
        for (tab, name) in [(1, "second on 1"), (2, "first on 2")] {
            let (tabs, log) = (tabs.clone(), log.clone());
            let task = async move {
                let _guard = tabs.lock(tab).await;
                log.borrow_mut().push(name);
            };
            pool.spawner().spawn_local(task).unwrap();
        }
        pool.run_until_stalled();
        assert_eq!(*log.borrow(), vec!["first on 2"]);
        assert!(tabs.busy(1));
        drop(first);
        pool.run_until_stalled();
        assert_eq!(*log.borrow(), vec!["first on 2", "second on 1"]);
        assert!(!tabs.busy(1));
    }

    #[test]
    fn a_child_session_goes_with_those_nested_in_it() {
        let mut attachment = Attachment::default();
        let child = |frame: &str, parent: Option<&str>| ChildSession {
            frame_id: frame.into(),
            parent: parent.map(str::to_owned),
            ..Default::default()
        };
        assert!(attachment.add_child("A", child("fa", None)));
        assert!(attachment.add_child("B", child("fb", Some("A"))));
        assert!(attachment.add_child("C", child("fc", Some("B"))));
        assert!(attachment.add_child("D", child("fd", None)));
        assert_eq!(attachment.child_for_frame("fc"), Some("C"));
        let mut gone = attachment.remove_child("A");
        gone.sort();
        assert_eq!(gone, ["A", "B", "C"]);
        assert_eq!(
            attachment.children.keys().collect::<Vec<_>>(),
            [&"D".to_owned()]
        );
        assert!(attachment.remove_child("A").is_empty());
    }

    #[test]
    fn child_sessions_are_bounded() {
        let mut attachment = Attachment::default();
        for n in 0..MAX_CHILD_SESSIONS {
            assert!(attachment.add_child(&n.to_string(), ChildSession::default()));
        }
        assert!(!attachment.add_child("one more", ChildSession::default()));
        assert!(attachment.add_child("0", ChildSession::default()), "known");
    }

    #[test]
    fn reading_an_unknown_tab_makes_no_entry_and_closing_drops_it() {
        let tabs = Tabs::default();
        assert!(!tabs.is_attached(3));
        assert!(tabs.read(3, |_| ()).is_none());
        tabs.write(3, |t| t.crashed = true);
        assert_eq!(tabs.read(3, |t| t.crashed), Some(true));
        tabs.remove(3);
        assert!(tabs.read(3, |_| ()).is_none());
    }
}
