//! Noticing that the browser restarted under the agent.
//!
//! Tab ids are numbers Chrome hands out per run of the browser: once it has quit and
//! started again, the ids from before name nothing (or another tab), and nothing is
//! shared any more. The extension names each run (`instance` in
//! [`Event::BrowserConnected`](tabwire_shared::Event::BrowserConnected), the same
//! across service-worker restarts). When a different run connects, [`Runs`] keeps the
//! tab ids the agent knew from the run before, and the page it had selected, until the
//! agent has seen the new run's page list; a call naming one of them, or relying on
//! that selection, is told what happened instead of the extension's "not shared".
//!
//! It keeps no per-tab state of its own beyond ids ([`super::context::Session`] does).

use std::collections::BTreeSet;
use std::sync::{Mutex, PoisonError};

use tabwire_shared::sharing::HOW_TO_SHARE;
use tabwire_shared::TabId;

use super::ToolError;

/// The browser runs an agent's tab ids belong to.
#[derive(Debug, Default)]
pub struct Runs {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    /// The run the agent's tab ids belong to (empty before any, or if unnamed).
    instance: String,
    /// Tab ids the agent learnt in that run.
    seen: BTreeSet<TabId>,
    /// The page it selected last in that run, even if that tab has closed since (a
    /// quitting browser closes its tabs before it goes).
    selected: Option<TabId>,
    /// After a restart, until the agent lists pages: what it knew from before.
    before: Option<Before>,
}

/// What the agent knew of the run before a restart.
#[derive(Debug)]
struct Before {
    ids: BTreeSet<TabId>,
    selected: Option<TabId>,
}

impl Runs {
    /// A browser run named `instance` connected. True if it is not known to be the run
    /// the agent's tab ids belong to (so what is kept by tab must go); a different
    /// named run is remembered as a restart.
    pub fn connected(&self, instance: &str) -> bool {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        if !instance.is_empty() && inner.instance == instance {
            return false;
        }
        let selected = inner.selected.take();
        if !instance.is_empty() && !inner.instance.is_empty() {
            let mut ids = std::mem::take(&mut inner.seen);
            ids.extend(selected);
            if let Some(earlier) = inner.before.take() {
                // Restarted again before the agent looked: all of it is from before.
                ids.extend(earlier.ids);
            }
            inner.before = Some(Before { ids, selected });
        }
        inner.seen.clear();
        inner.instance = instance.to_owned();
        true
    }

    /// The agent learnt of `tab` (it acted on it).
    pub fn saw(&self, tab: TabId) {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        inner.seen.insert(tab);
    }

    /// The agent selected `tab`, a page of the current run (every selection follows a
    /// page list or a new page's reply): if an id from before a restart is the same
    /// number, it now means this page.
    pub fn selected(&self, tab: TabId) {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        inner.seen.insert(tab);
        inner.selected = Some(tab);
        if let Some(before) = inner.before.as_mut() {
            before.ids.remove(&tab);
            before.selected = before.selected.filter(|s| *s != tab);
        }
    }

    /// The agent saw the current run's pages: ids from before a restart are its own
    /// business again.
    pub fn listed(&self, tabs: impl IntoIterator<Item = TabId>) {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        inner.before = None;
        inner.seen.extend(tabs);
    }

    /// Why a call on `tab` (`None`: on the page selected before) cannot go ahead, if
    /// that page belongs to the browser run before a restart.
    pub fn stale(&self, tab: Option<TabId>) -> Option<ToolError> {
        let inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let before = inner.before.as_ref()?;
        let (page, what) = match tab {
            Some(tab) if before.ids.contains(&tab) => (tab, "page"),
            Some(_) => return None,
            None => (before.selected?, "the selected page,"),
        };
        Some(ToolError::new(format!(
            "The browser restarted, or tabwire's extension was reloaded ({what} {page} is from \
             before that): nothing from before is shared any more, and after a browser restart \
             tab ids from before name other tabs or none. Ask the user to share the tab again \
             ({HOW_TO_SHARE}), then call list_pages."
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_worker_restart_is_the_same_run() {
        let runs = Runs::default();
        assert!(runs.connected("a"), "the first run is new");
        runs.selected(5);
        assert!(!runs.connected("a"));
        assert!(runs.stale(Some(5)).is_none());
        assert!(runs.stale(None).is_none());
    }

    #[test]
    fn after_a_restart_ids_from_before_and_the_selection_are_stale() {
        let runs = Runs::default();
        runs.connected("a");
        runs.listed([3, 4]);
        runs.saw(9);
        runs.selected(4);
        assert!(runs.connected("b"));
        for tab in [3, 4, 9] {
            let said = runs.stale(Some(tab)).expect("stale").message;
            assert!(said.starts_with("The browser restarted, or"), "{said}");
            assert!(said.contains(&format!("page {tab} ")), "{said}");
            assert!(said.contains("share the tab again"), "{said}");
            assert!(said.contains("list_pages"), "{said}");
        }
        let said = runs.stale(None).expect("the selection is stale").message;
        assert!(said.contains("the selected page, 4"), "{said}");
        assert!(runs.stale(Some(12)).is_none(), "not an id the agent knew");
    }

    #[test]
    fn listing_the_new_runs_pages_ends_it() {
        let runs = Runs::default();
        runs.connected("a");
        runs.selected(3);
        runs.connected("b");
        runs.listed([3, 7]);
        assert!(runs.stale(Some(3)).is_none());
        assert!(runs.stale(None).is_none());
    }

    #[test]
    fn two_restarts_before_the_agent_looks_keep_everything_from_before() {
        let runs = Runs::default();
        runs.connected("a");
        runs.selected(3);
        runs.connected("b");
        runs.saw(8);
        runs.connected("c");
        assert!(runs.stale(Some(3)).is_some());
        assert!(runs.stale(Some(8)).is_some());
    }

    #[test]
    fn an_unnamed_run_clears_what_is_kept_by_tab_but_says_nothing() {
        let runs = Runs::default();
        assert!(runs.connected(""));
        runs.selected(3);
        assert!(runs.connected(""));
        assert!(runs.stale(Some(3)).is_none());
    }

    #[test]
    fn a_page_selected_in_the_new_run_is_not_from_before() {
        let runs = Runs::default();
        runs.connected("a");
        runs.listed([3, 4]);
        runs.selected(4);
        assert!(runs.connected("b"));
        assert!(runs.stale(Some(3)).is_some());
        // The new run's first tab got an id the old run had used: it is this run's.
        runs.selected(3);
        assert!(runs.stale(Some(3)).is_none());
        assert!(
            runs.stale(Some(4)).is_some(),
            "the other old id still is from before"
        );
    }
}
