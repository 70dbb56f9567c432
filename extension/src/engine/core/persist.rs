//! Carrying on after a service-worker restart.
//!
//! Chrome stops an idle extension worker and starts a new one on the next event; the
//! new one starts empty. What must survive goes to `chrome.storage.session` (kept until
//! the browser quits): the agents' scopes and tab groups, the revoked sessions, the
//! tabs our debugger was attached to, and the counters that number snapshots, documents
//! and object groups (so uids never repeat). The engine's `restore` reads it back before
//! the native port opens; the agents then reconnect with their session keys and find
//! their tabs again. Debugger sessions the old worker left are detached, so the next
//! command attaches afresh with its domains enabled.
//!
//! [`Persist`] holds this run's name and whether a save is due; the functions here
//! read and write storage through the [`Chrome`] they are given and log what fails.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tabwire_shared::TabId;

use super::access::scopes::{SavedSharing, Sharing};
use super::settings::{self, Settings};
use super::tab::Tabs;
use crate::chrome::{Chrome, StorageArea};

/// The storage key of the saved state.
const KEY: &str = "engine";

/// Everything a restarted worker needs.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Saved {
    #[serde(default)]
    pub(super) sharing: SavedSharing,
    #[serde(default)]
    pub(super) attached: Vec<TabId>,
    #[serde(default)]
    pub(super) grouped: BTreeMap<TabId, i64>,
    #[serde(default)]
    pub(super) counters: Counters,
    /// Names this run of the browser (see [`Event::BrowserConnected`]).
    ///
    /// [`Event::BrowserConnected`]: tabwire_shared::Event::BrowserConnected
    #[serde(default)]
    instance: String,
}

/// The engine's numbering.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Counters {
    #[serde(default)]
    pub(super) snapshots: u64,
    #[serde(default)]
    pub(super) documents: u64,
    #[serde(default)]
    pub(super) object_groups: u64,
}

/// What a save is made of, borrowed from the engine.
pub(super) struct Parts<'a> {
    pub(super) sharing: &'a Sharing,
    pub(super) tabs: &'a Tabs,
    pub(super) counters: Counters,
}

/// This browser run's name and the pending save: what persisting keeps between calls.
#[derive(Debug, Default)]
pub(super) struct Persist {
    /// A save of the state is scheduled.
    pending: Cell<bool>,
    /// Names this run of the browser, kept across worker restarts; empty until
    /// restored.
    instance: RefCell<String>,
}

impl Persist {
    /// This run of the browser's name (empty before [`read_saved`]).
    pub(super) fn instance(&self) -> String {
        self.instance.borrow().clone()
    }

    /// Something to save changed: whether a save must be scheduled (not if one is
    /// already, however many changes come before it runs).
    pub(super) fn wants_save(&self) -> bool {
        !self.pending.replace(true)
    }

    /// The scheduled save runs: what it stores (later changes schedule another).
    pub(super) fn saving(&self, parts: Parts<'_>) -> Value {
        self.pending.set(false);
        let saved = Saved {
            sharing: parts.sharing.saved(),
            attached: parts.tabs.attached().into_iter().collect(),
            grouped: parts.tabs.groups(),
            counters: parts.counters,
            instance: self.instance(),
        };
        serde_json::to_value(saved).unwrap_or(Value::Null)
    }
}

/// What [`read_saved`] found.
pub(super) enum Restored {
    /// Storage could not be read, or held something unreadable (logged): nothing to do.
    Unreadable,
    /// Nothing saved: a fresh browser run, whose new name is to be saved.
    Fresh,
    /// What a previous worker of this run saved, to take back.
    Saved(Saved),
}

/// Reads back what a previous worker of this browser run saved, naming the run (a
/// fresh name unless that worker saved one).
pub(super) async fn read_saved(chrome: &impl Chrome, persist: &Persist) -> Restored {
    let stored = match chrome.storage_get(StorageArea::Session, KEY).await {
        Ok(stored) => stored,
        Err(error) => {
            chrome.log(&format!("tabwire: could not read the saved state: {error}"));
            return Restored::Unreadable;
        }
    };
    // A fresh browser run unless a previous worker of this run saved its name.
    *persist.instance.borrow_mut() = format!("{:x}", chrome.now_ms());
    let Some(stored) = stored else {
        return Restored::Fresh;
    };
    let saved: Saved = match serde_json::from_value(stored) {
        Ok(saved) => saved,
        Err(error) => {
            chrome.log(&format!(
                "tabwire: ignored an unreadable saved state: {error}"
            ));
            return Restored::Unreadable;
        }
    };
    if !saved.instance.is_empty() {
        persist.instance.borrow_mut().clone_from(&saved.instance);
    }
    Restored::Saved(saved)
}

/// Stores `value`, the state [`Persist::saving`] made, for a restarted worker.
pub(super) async fn store_saved(chrome: &impl Chrome, value: Value) {
    if let Err(error) = chrome.storage_set(StorageArea::Session, KEY, value).await {
        chrome.log(&format!("tabwire: could not save the state: {error}"));
    }
}

/// Reads the user's settings from `chrome.storage.local` (`None` if unreadable, logged).
pub(super) async fn load_settings(chrome: &impl Chrome) -> Option<Settings> {
    match chrome.storage_get(StorageArea::Local, settings::KEY).await {
        Ok(stored) => {
            let (read, note) = Settings::read(&stored.unwrap_or(Value::Null));
            if let Some(note) = note {
                chrome.log(&note);
            }
            Some(read)
        }
        Err(error) => {
            chrome.log(&format!("tabwire: could not read the settings: {error}"));
            None
        }
    }
}

/// Saves the settings to `chrome.storage.local`.
pub(super) async fn store_settings(
    chrome: &impl Chrome,
    settings: &Settings,
) -> Result<(), String> {
    let value = serde_json::to_value(settings).map_err(|e| e.to_string())?;
    chrome
        .storage_set(StorageArea::Local, settings::KEY, value)
        .await
        .map_err(|e| e.0)
}

#[cfg(test)]
mod tests {
    use super::super::fake::Harness;
    use super::KEY;
    use crate::chrome::StorageArea;
    use serde_json::json;
    use tabwire_shared::requests::*;

    #[test]
    fn a_restarted_worker_gives_reconnecting_agents_their_tabs_back() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.hello(2, "k2", "codex");
        h.share("k1", 10);
        assert_eq!(
            h.popup(json!({"action": "disconnect", "session": "k2"})),
            Ok(())
        );
        h.call(1, TakeSnapshot::whole(10));
        h.settle();
        let Ok(_) = h.reply_to::<TakeSnapshot>(1).unwrap() else {
            panic!("expected a snapshot")
        };
        let snapshots = h.engine.snapshots.get();
        assert!(snapshots > 0);
        h.restart_worker();
        assert!(!h.fake.is_attached(10), "the old session was let go");
        assert_eq!(h.engine.snapshots.get(), snapshots, "uids never repeat");
        h.host_ready(false);
        h.hello(4, "k1", "claude");
        h.call_as(4, 2, TakeSnapshot::whole(10));
        h.settle();
        assert!(h.reply(2).unwrap().is_ok(), "re-attached cleanly");
        h.hello(5, "k2", "codex");
        assert!(
            h.engine.sharing.borrow().caller(Some(5)).is_err(),
            "still revoked"
        );
    }

    #[test]
    fn the_browser_run_keeps_its_name_across_worker_restarts() {
        let mut h = Harness::strict();
        h.restart_worker();
        let named = h.engine.persist.instance();
        assert!(!named.is_empty());
        h.settle();
        h.advance(5_000);
        h.restart_worker();
        assert_eq!(h.engine.persist.instance(), named);
        h.engine.on_port_connected("1.0");
        h.settle();
        assert!(h.events().iter().any(|e| matches!(
            e,
            tabwire_shared::Event::BrowserConnected { instance, .. } if *instance == named
        )));
    }

    #[test]
    fn unreadable_storage_is_ignored_with_a_log_line() {
        let mut h = Harness::strict();
        h.fake
            .store(StorageArea::Session, KEY, json!({"sharing": 42}));
        h.fake
            .store(StorageArea::Local, "settings", json!("garbage"));
        h.restart_worker();
        assert!(h.engine.sharing.borrow().agents().is_empty());
        let logs = h.fake.logs();
        assert!(logs
            .iter()
            .any(|l| l.contains("ignored an unreadable saved state")));
        assert!(logs
            .iter()
            .any(|l| l.contains("ignored unreadable settings")));
    }
}
