//! Carrying on after a service-worker restart.
//!
//! Chrome stops an idle extension worker and starts a new one on the next event; the
//! new one starts empty. What must survive goes to `chrome.storage.session` (kept until
//! the browser quits): the agents' scopes and tab groups, the revoked sessions, the
//! tabs our debugger was attached to, and the counters that number snapshots, documents
//! and object groups (so uids never repeat). [`Engine::restore`] reads it back before
//! the native port opens; the agents then reconnect with their session keys and find
//! their tabs again. Debugger sessions the old worker left are detached, so the next
//! command attaches afresh with its domains enabled.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tabwire_shared::TabId;

use super::access::scopes::SavedSharing;
use super::settings::{self, Settings};
use super::tab::Group;
use super::Engine;
use crate::chrome::{Chrome, StorageArea};

/// The storage key of the saved state.
const KEY: &str = "engine";

/// Everything a restarted worker needs.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Saved {
    #[serde(default)]
    sharing: SavedSharing,
    #[serde(default)]
    attached: Vec<TabId>,
    #[serde(default)]
    grouped: BTreeMap<TabId, i64>,
    #[serde(default)]
    counters: Counters,
    /// Names this run of the browser (see [`Event::BrowserConnected`]).
    ///
    /// [`Event::BrowserConnected`]: tabwire_shared::Event::BrowserConnected
    #[serde(default)]
    instance: String,
}

/// The engine's numbering.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Counters {
    #[serde(default)]
    snapshots: u64,
    #[serde(default)]
    documents: u64,
    #[serde(default)]
    object_groups: u64,
}

impl<C: Chrome + 'static> Engine<C> {
    /// Reads back the settings and what a previous worker saved. Call once, before
    /// the native port opens; unreadable storage is logged and ignored.
    pub async fn restore(&self) {
        self.load_settings().await;
        self.load_made_groups().await;
        self.restore_saved().await;
        // Only now are this run's groups known (a worker restart keeps them).
        self.dissolve_leftover_groups().await;
    }

    /// Takes back the state a previous worker of this browser run saved.
    async fn restore_saved(&self) {
        let stored = match self.chrome.storage_get(StorageArea::Session, KEY).await {
            Ok(stored) => stored,
            Err(error) => {
                return self
                    .chrome
                    .log(&format!("tabwire: could not read the saved state: {error}"))
            }
        };
        // A fresh browser run unless a previous worker of this run saved its name.
        *self.instance.borrow_mut() = format!("{:x}", self.chrome.now_ms());
        let Some(stored) = stored else {
            return self.schedule_save();
        };
        let saved: Saved = match serde_json::from_value(stored) {
            Ok(saved) => saved,
            Err(error) => {
                return self.chrome.log(&format!(
                    "tabwire: ignored an unreadable saved state: {error}"
                ))
            }
        };
        if !saved.instance.is_empty() {
            *self.instance.borrow_mut() = saved.instance;
        }
        let bump = |cell: &std::cell::Cell<u64>, saved: u64| cell.set(cell.get().max(saved));
        bump(&self.snapshots, saved.counters.snapshots);
        bump(&self.documents_made, saved.counters.documents);
        bump(&self.object_groups, saved.counters.object_groups);
        let now = self.chrome.now_ms();
        let has_agents = !saved.sharing.agents.is_empty();
        self.sharing.borrow_mut().restore(saved.sharing, now);
        for (tab, group) in saved.grouped {
            self.tabs.write(tab, |t| t.group = Group::In(group));
        }
        for tab in saved.attached {
            // Ours from before (its state is lost): let go, the next command re-attaches.
            let _ = self.chrome.detach_debugger(tab).await;
        }
        if has_agents {
            self.start_grace_timer();
        }
        self.schedule_save();
        self.chrome.state_changed();
    }

    /// Reads the user's settings from `chrome.storage.local`.
    pub(super) async fn load_settings(&self) {
        match self
            .chrome
            .storage_get(StorageArea::Local, settings::KEY)
            .await
        {
            Ok(stored) => {
                let (read, note) = Settings::read(&stored.unwrap_or(Value::Null));
                if let Some(note) = note {
                    self.chrome.log(&note);
                }
                *self.settings.borrow_mut() = read;
            }
            Err(error) => self
                .chrome
                .log(&format!("tabwire: could not read the settings: {error}")),
        }
    }

    /// Saves the settings to `chrome.storage.local`.
    pub(super) async fn store_settings(&self) -> Result<(), String> {
        let value = serde_json::to_value(&*self.settings.borrow()).map_err(|e| e.to_string())?;
        self.chrome
            .storage_set(StorageArea::Local, settings::KEY, value)
            .await
            .map_err(|e| e.0)
    }

    /// Saves the state soon (once, however many changes come before).
    pub(super) fn schedule_save(&self) {
        if self.save_pending.replace(true) {
            return;
        }
        self.in_background(|engine| async move {
            engine.save_pending.set(false);
            let value = engine.saved();
            if let Err(error) = engine
                .chrome
                .storage_set(StorageArea::Session, KEY, value)
                .await
            {
                engine
                    .chrome
                    .log(&format!("tabwire: could not save the state: {error}"));
            }
        });
    }

    fn saved(&self) -> Value {
        let saved = Saved {
            sharing: self.sharing.borrow().saved(),
            attached: self.tabs.attached().into_iter().collect(),
            grouped: self.tabs.groups(),
            counters: Counters {
                snapshots: self.snapshots.get(),
                documents: self.documents_made.get(),
                object_groups: self.object_groups.get(),
            },
            instance: self.instance.borrow().clone(),
        };
        serde_json::to_value(saved).unwrap_or(Value::Null)
    }
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
        let named = h.engine.instance.borrow().clone();
        assert!(!named.is_empty());
        h.settle();
        h.advance(5_000);
        h.restart_worker();
        assert_eq!(*h.engine.instance.borrow(), named);
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
