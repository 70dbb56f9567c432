//! Tab groups a previous run left behind.
//!
//! Chrome keeps tab groups across a browser restart (and restores them with the
//! session), so a group tabwire made for an agent would come back on tabs that nobody
//! shares any more. tabwire cannot act as the browser quits; instead it remembers, in
//! `chrome.storage.local`, the titles it gave its groups, and whenever it starts or a
//! group appears it dissolves every open group with such a title that no agent of
//! this run holds. Groups the user made keep their tabs: their titles are not in the
//! list (a user who names a group exactly like an agent's loses only the grouping).
//! A group that Chrome saved closed (not open in any window) is out of the extension
//! API's reach until the user reopens it, when it is dissolved like the others.
//!
//! [`MadeGroups`] keeps the titles; it is given the [`Chrome`] to store them and to
//! dissolve groups, and the agents' [`Sharing`] to know which groups are held.

use std::cell::RefCell;

use super::scopes::Sharing;
use crate::chrome::{Chrome, StorageArea};

/// The storage key of the titles tabwire gave its groups.
const KEY: &str = "madeGroups";

/// How many titles are remembered (the most recent).
const REMEMBERED: usize = 64;

/// The titles tabwire gave its tab groups, this run and earlier ones.
#[derive(Debug, Default)]
pub(in crate::engine) struct MadeGroups {
    titles: RefCell<Vec<String>>,
}

impl MadeGroups {
    /// Reads the titles earlier runs gave their groups.
    pub(in crate::engine) async fn load(&self, chrome: &impl Chrome) {
        let stored = match chrome.storage_get(StorageArea::Local, KEY).await {
            Ok(stored) => stored,
            Err(error) => {
                return chrome.log(&format!(
                    "tabwire: could not read the titles of its tab groups: {error}"
                ))
            }
        };
        let titles: Vec<String> = stored
            .and_then(|v| serde_json::from_value(v).ok())
            .unwrap_or_default();
        *self.titles.borrow_mut() = titles;
    }

    /// Notes that tabwire titled a group `title`, so a later run knows it as ours.
    pub(in crate::engine) async fn remember(&self, chrome: &impl Chrome, title: &str) {
        let titles = {
            let mut made = self.titles.borrow_mut();
            if made.last().is_some_and(|t| t == title) {
                return;
            }
            made.retain(|t| t != title);
            made.push(title.to_owned());
            let excess = made.len().saturating_sub(REMEMBERED);
            made.drain(..excess);
            made.clone()
        };
        let stored = chrome
            .storage_set(StorageArea::Local, KEY, serde_json::json!(titles))
            .await;
        if let Err(error) = stored {
            chrome.log(&format!(
                "tabwire: could not save the title of its tab group: {error}"
            ));
        }
    }

    /// Dissolves every open group tabwire titled in an earlier run that no agent holds
    /// now (in `sharing`, read anew for each group). Run at start-up and when a group
    /// appears (a restored session's groups come after the worker started).
    pub(in crate::engine) async fn dissolve_leftovers(
        &self,
        chrome: &impl Chrome,
        sharing: &RefCell<Sharing>,
    ) {
        if sharing.borrow().agent_profile() || self.titles.borrow().is_empty() {
            return;
        }
        let groups = match chrome.tab_groups().await {
            Ok(groups) => groups,
            Err(error) => {
                return chrome.log(&format!("tabwire: could not list tab groups: {error}"))
            }
        };
        for group in groups {
            let ours = self.titles.borrow().contains(&group.title);
            let held = sharing
                .borrow()
                .agents()
                .values()
                .any(|a| a.groups.values().any(|g| *g == group.id));
            if !ours || held {
                continue;
            }
            if let Err(error) = chrome.dissolve_group(group.id).await {
                chrome.log(&format!(
                    "tabwire: could not remove the left-over tab group {}: {error}",
                    group.id
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::fake::Harness;

    #[test]
    fn a_group_left_by_an_earlier_run_is_dissolved_and_the_users_own_stay() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.share("k1", 10);
        let title = h.engine.sharing.borrow().agent("k1").unwrap().name.clone();

        // The browser restarts and restores its session's groups; a new worker starts.
        h.fake.quit_and_restart();
        let left = h.fake.restore_group(11, &title);
        let users = h.fake.restore_group(12, "reading list");
        h.restart_worker();
        h.host_ready(false);
        let mut after = h;
        assert_eq!(after.fake.group_of(11), None, "group {left} dissolved");
        assert_eq!(
            after.fake.group_of(12),
            Some(users),
            "the user's group stays"
        );

        // A group restored later is caught when it appears.
        let late = after.fake.restore_group(13, &title);
        after.engine.on_group_changed_by_browser();
        after.settle();
        assert_eq!(after.fake.group_of(13), None, "group {late} dissolved");

        // The agent, back in the new run, gets a group of its own, which stays.
        after.hello(1, "k1", "claude");
        after.share("k1", 11);
        let fresh = after.fake.group_of(11).expect("grouped again");
        after.engine.on_group_changed_by_browser();
        after.settle();
        assert_eq!(
            after.fake.group_of(11),
            Some(fresh),
            "a group of this run stays"
        );
    }
}
