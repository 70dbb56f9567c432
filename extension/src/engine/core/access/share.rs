//! Sharing and unsharing tabs, as the browser shows it.
//!
//! [`scopes`](super::scopes) keeps the scopes; this module carries out what a change
//! means in the browser. A shared tab joins its agent's tab group (one per agent and
//! window, titled with the agent's name) and gets a badge on tabwire's button naming
//! who may use it; when the agent whose group holds a tab stops sharing it, the tab
//! moves to the group of an agent that still does. A tab that leaves every scope is ungrouped, loses its badge and is
//! released: the debugger detaches and everything collected for it is dropped. Groups
//! and badges are cosmetic: their failures are logged, never fatal. In a browser
//! launched for an agent every tab is shared anyway, so none of this is shown.
//!
//! [`Shares`] is given only what this reaches (the browser, the tabs and their
//! signals, the agents, the settings, the titles of tabwire's groups). It does not
//! save or announce: a step that put a tab in a group says so, and the engine
//! (`access/mod.rs`) then saves the scopes and tells who needs to know.

use std::cell::RefCell;

use super::badge::{self, Sharer};
use super::leftovers::MadeGroups;
use super::scopes::Sharing;
use crate::chrome::{Chrome, TabState};
use crate::engine::settings::Settings;
use crate::engine::tab::{Group, Tab, Tabs};
use crate::signals::{Signals, TabSignal};
use tabwire_shared::TabId;

/// Why a tab stops mid-command when the user stops sharing it.
const UNSHARED: &str = "the user stopped sharing the tab";

/// What the user hears when sharing with an agent that is gone.
pub(in crate::engine) const AGENT_GONE: &str = "That agent is no longer connected.";

/// What sharing reaches in the engine: the browser (groups, badges, the debugger),
/// the tabs and their signals, the agents' scopes, the settings (what may be shared)
/// and the titles tabwire gave its groups.
pub(in crate::engine) struct Shares<'a, C> {
    /// The browser.
    pub(in crate::engine) chrome: &'a C,
    /// What the engine knows of each tab (its group, its session).
    pub(in crate::engine) tabs: &'a Tabs,
    /// The tabs' signals, to end a command on a tab let go.
    pub(in crate::engine) signals: &'a Signals,
    /// The agents and their scopes.
    pub(in crate::engine) sharing: &'a RefCell<Sharing>,
    /// The user's settings: which pages may not be shared.
    pub(in crate::engine) settings: &'a RefCell<Settings>,
    /// The titles tabwire gave its groups, noted as groups are titled.
    pub(in crate::engine) made_groups: &'a MadeGroups,
}

impl<C: Chrome + 'static> Shares<'_, C> {
    /// Checks that the user may share `tab` with `session` now, and reads the tab.
    /// Refused, with the reason in words for the user, for a closed tab, a page that
    /// may not be shared and an agent that is gone.
    pub(in crate::engine) async fn sharable(
        &self,
        session: &str,
        tab: TabId,
    ) -> Result<TabState, String> {
        let state = match self.chrome.tab(tab).await {
            Ok(Some(state)) => state,
            Ok(None) | Err(_) => return Err("That tab is closed.".to_owned()),
        };
        if let Some(reason) = self.settings.borrow().refusal(&state.url) {
            return Err(reason);
        }
        if self.sharing.borrow().agent(session).is_none() {
            return Err(AGENT_GONE.to_owned());
        }
        Ok(state)
    }

    /// The user dragged `tab` out of the group tabwire put it in (`group` is where it
    /// is now), which stops sharing it: the agents to unshare it from (none when the
    /// move is not the user's but tabwire's own grouping).
    pub(in crate::engine) fn dragged_out(&self, tab: TabId, group: i64) -> Vec<String> {
        // While our own grouping is under way, its events are not the user's.
        let Group::In(ours) = self.tabs.group(tab) else {
            return Vec::new();
        };
        if ours == group {
            return Vec::new();
        }
        self.tabs.set_group(tab, Group::None);
        self.sharing.borrow().sharers(tab)
    }

    /// After a tab left a scope: a tab nobody shares any more is ungrouped and
    /// released; one still shared keeps its group and gets its badge redone. True
    /// when the tab moved to another agent's group, which the engine saves and shows.
    #[must_use = "a tab put in a group is saved and shown by the engine"]
    pub(in crate::engine) async fn left_scope(&self, tab: TabId) -> bool {
        let sharers = self.sharing.borrow().sharers(tab);
        if !sharers.is_empty() || self.sharing.borrow().agent_profile() {
            let regrouped = self.follow_remaining_sharer(tab, &sharers).await;
            self.show_badge(tab).await;
            return regrouped;
        }
        let grouped = self.tabs.group(tab);
        self.tabs.set_group(tab, Group::None);
        if let Group::In(_) = grouped {
            if let Err(error) = self.chrome.ungroup_tab(tab).await {
                self.chrome
                    .log(&format!("tabwire: could not ungroup tab {tab}: {error}"));
            }
        }
        self.show_badge(tab).await;
        self.release(tab).await;
        false
    }

    /// A tab left the scope of the agent whose group holds it: it moves to the group
    /// of an agent that still shares it. True when it did.
    async fn follow_remaining_sharer(&self, tab: TabId, sharers: &[String]) -> bool {
        let Some(next) = sharers.first() else {
            return false;
        };
        let Group::In(group) = self.tabs.group(tab) else {
            return false;
        };
        let held_by_a_sharer = {
            let sharing = self.sharing.borrow();
            let holds = |s: &String| {
                sharing
                    .agent(s)
                    .map(|a| a.groups.values().any(|g| *g == group))
            };
            sharers.iter().any(|s| holds(s) == Some(true))
        };
        if held_by_a_sharer {
            return false;
        }
        let Ok(Some(state)) = self.chrome.tab(tab).await else {
            return false;
        };
        self.tabs.set_group(tab, Group::None);
        self.group_with(next, &state).await
    }

    /// Detaches from a tab nobody may use any more and forgets all about it.
    async fn release(&self, tab: TabId) {
        // A command running on the tab ends now, then the tab is ours to clean up.
        self.signals
            .publish(tab, &TabSignal::Withdrawn(UNSHARED.to_owned()));
        let _busy = self.tabs.lock(tab).await;
        let attached = self.tabs.is_attached(tab);
        self.tabs.update(tab, Tab::end_session);
        self.tabs.update(tab, |t| t.emulation = Default::default());
        if attached {
            if let Err(error) = self.chrome.detach_debugger(tab).await {
                self.chrome.log(&format!(
                    "tabwire: could not detach from tab {tab}: {error}"
                ));
            }
        }
    }

    /// Puts a newly shared tab in its agent's group for the tab's window (unless a
    /// group of another agent holds it already). True when it joined a group, which
    /// the engine saves and shows.
    #[must_use = "a tab put in a group is saved and shown by the engine"]
    pub(in crate::engine) async fn group_with(&self, session: &str, tab: &TabState) -> bool {
        if self.sharing.borrow().agent_profile() || self.tabs.group(tab.id) != Group::None {
            return false;
        }
        let Some((existing, name, color)) = self.sharing.borrow().agent(session).map(|a| {
            let existing = a.groups.get(&tab.window_id).copied();
            (existing, a.name.clone(), a.color.clone())
        }) else {
            return false;
        };
        // Our own grouping fires group-change events: mark it as ours first.
        self.tabs.set_group(tab.id, Group::Grouping);
        let mut grouped = self.chrome.group_tab(tab.id, existing).await;
        if grouped.is_err() && existing.is_some() {
            // The group is gone (the user closed or ungrouped it): start a new one.
            grouped = self.chrome.group_tab(tab.id, None).await;
        }
        match grouped {
            Ok(group) => {
                self.tabs.set_group(tab.id, Group::In(group));
                if let Some(agent) = self.sharing.borrow_mut().agent_mut(session) {
                    agent.groups.insert(tab.window_id, group);
                }
                if existing != Some(group) {
                    self.style_group(group, &name, &color).await;
                }
                true
            }
            Err(error) => {
                self.tabs.set_group(tab.id, Group::None);
                self.chrome
                    .log(&format!("tabwire: could not group tab {}: {error}", tab.id));
                false
            }
        }
    }

    /// Renames an agent's groups and redoes its tabs' badges after it told its real
    /// name.
    pub(in crate::engine) async fn restyle(&self, session: &str) {
        let Some((groups, name, color)) = self.sharing.borrow().agent(session).map(|a| {
            let groups: Vec<i64> = a.groups.values().copied().collect();
            (groups, a.name.clone(), a.color.clone())
        }) else {
            return;
        };
        for group in groups {
            self.style_group(group, &name, &color).await;
        }
        let tabs = self.sharing.borrow().agent(session).map(|a| a.tabs.clone());
        for tab in tabs.unwrap_or_default() {
            self.show_badge(tab).await;
        }
    }

    /// Titles and colours an agent's group.
    async fn style_group(&self, group: i64, name: &str, color: &str) {
        self.made_groups.remember(self.chrome, name).await;
        if let Err(error) = self.chrome.style_group(group, name, color).await {
            self.chrome.log(&format!(
                "tabwire: could not name tab group {group}: {error}"
            ));
        }
    }

    /// Sets the badge of tabwire's button on `tab`: how many agents share it, in the
    /// colour of their group ([`badge`](super::badge)), and a tooltip naming them.
    pub(in crate::engine) async fn show_badge(&self, tab: TabId) {
        let look = {
            let sharing = self.sharing.borrow();
            if sharing.agent_profile() {
                return;
            }
            let sharers: Vec<Sharer> = sharing
                .sharers(tab)
                .iter()
                .filter_map(|s| sharing.agent(s))
                .map(|a| Sharer {
                    name: a.name.clone(),
                    color: a.color.clone(),
                })
                .collect();
            badge::shared(&sharers)
        };
        if let Err(error) = self.chrome.set_badge(tab, &look).await {
            self.chrome.log(&format!(
                "tabwire: could not set the badge of tab {tab}: {error}"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::fake::{commands, Harness};
    use crate::engine::TabChange;
    use serde_json::json;
    use tabwire_shared::{requests::*, Event};

    fn snapshot(tab_id: i64) -> TakeSnapshot {
        TakeSnapshot::whole(tab_id)
    }

    #[test]
    fn a_shared_tab_joins_its_agents_group_and_wears_a_badge() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.hello(2, "k2", "codex");
        let changes = h.fake.changes();
        h.share("k1", 10);
        assert!(h.fake.changes() > changes, "open popups render again");
        let group = h.fake.group_of(10).expect("grouped");
        let color = h.engine.sharing.borrow().agent("k1").unwrap().color.clone();
        assert_eq!(h.fake.group_style(group), Some(("claude".into(), color)));
        assert_eq!(
            h.fake.badge(10),
            Some(("1".into(), "tabwire: shared with claude".into()))
        );
        h.share("k1", 11);
        assert_eq!(
            h.fake.group_of(11),
            Some(group),
            "one group per agent and window"
        );
        h.share("k2", 10);
        assert_eq!(
            h.fake.group_of(10),
            Some(group),
            "stays in the first agent's group"
        );
        assert_eq!(h.fake.badge(10).unwrap().0, "2");
        assert!(h.fake.badge(10).unwrap().1.contains("claude, codex"));
    }

    #[test]
    fn the_badge_wears_the_colour_of_the_one_agents_group() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.hello(2, "k2", "codex");
        h.share("k2", 11);
        let group = h.fake.group_of(11).expect("grouped");
        let (_, color) = h.fake.group_style(group).expect("styled");
        let one = h.fake.badge_look(11).expect("a badge");
        let alone = crate::engine::access::badge::shared(&[crate::engine::access::badge::Sharer {
            name: "codex".into(),
            color,
        }]);
        assert_eq!(one, alone, "the group's colour");
        h.share("k1", 11);
        let both = h.fake.badge_look(11).expect("a badge");
        assert_ne!(
            both.background, one.background,
            "several agents: tabwire's colour"
        );
        let unshare = json!({"action": "unshare", "session": "k2", "tab": 11});
        assert_eq!(h.popup(unshare), Ok(()));
        let left = h.fake.badge_look(11).expect("a badge");
        assert_eq!(left.text, "1");
        assert_ne!(left.background, both.background, "claude's colour again");
    }

    #[test]
    fn unsharing_the_last_share_ungroups_and_detaches() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.hello(2, "k2", "codex");
        h.share("k1", 10);
        h.share("k2", 10);
        h.call(1, snapshot(10));
        h.settle();
        assert!(h.fake.is_attached(10));
        let unshare = |s: &str| json!({"action": "unshare", "session": s, "tab": 10});
        assert_eq!(h.popup(unshare("k1")), Ok(()));
        assert!(h.fake.is_attached(10), "codex still uses it");
        assert_eq!(h.fake.badge(10).unwrap().0, "1");
        assert_eq!(h.popup(unshare("k2")), Ok(()));
        assert!(!h.fake.is_attached(10));
        assert_eq!(h.fake.group_of(10), None);
        assert_eq!(h.fake.badge(10).unwrap().0, "");
        assert!(h.engine.tabs.with_collectors(10, |_| ()).is_none());
    }

    #[test]
    fn a_command_running_when_the_user_stops_sharing_ends_and_says_not_to_retry() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.share("k1", 10);
        h.fake.hold_on_tab("Runtime.callFunctionOn", 10);
        let evaluate = commands::evaluate_one(10, 5000);
        h.call(1, evaluate);
        h.settle();
        let unshare = json!({"action": "unshare", "session": "k1", "tab": 10});
        assert_eq!(h.popup(unshare), Ok(()));
        let error = h.reply(1).expect("the command ended").unwrap_err();
        assert_eq!(error.code, tabwire_shared::ErrorCode::NotShared);
        assert!(
            error.message.contains("stopped sharing"),
            "{}",
            error.message
        );
        assert!(error.message.contains("do not retry"), "{}", error.message);
        assert!(!h.fake.is_attached(10));
    }

    #[test]
    fn dragging_a_tab_out_of_its_group_stops_sharing_it() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.share("k1", 10);
        let group = h.fake.group_of(10).unwrap();
        // Chrome echoes our own grouping: not a drag.
        h.engine.on_tab_updated(
            10,
            TabChange {
                group_id: Some(group),
                ..Default::default()
            },
        );
        h.settle();
        assert!(h.engine.sharing.borrow().may_use("k1", 10));
        h.fake.drag_to_group(10, -1);
        h.engine.on_tab_updated(
            10,
            TabChange {
                group_id: Some(-1),
                ..Default::default()
            },
        );
        h.settle();
        assert!(!h.engine.sharing.borrow().may_use("k1", 10));
    }

    #[test]
    fn failing_groups_are_logged_not_fatal() {
        let mut h = Harness::strict();
        h.fake.refuse_groups();
        h.hello(1, "k1", "claude");
        h.share("k1", 10);
        assert!(h.engine.sharing.borrow().may_use("k1", 10));
        assert!(h
            .fake
            .logs()
            .iter()
            .any(|l| l.contains("could not group tab 10")));
    }

    #[test]
    fn tab_events_reach_only_the_agents_sharing_the_tab() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.hello(2, "k2", "codex");
        h.share("k1", 10);
        h.engine.on_cdp_event(
            10,
            "Page.javascriptDialogOpening",
            &json!({"type": "alert", "message": "hi"}),
        );
        h.engine.on_debugger_detached(10, "canceled_by_user");
        h.engine.on_tab_removed(10);
        h.settle();
        assert_eq!(h.events_for(1).len(), 3);
        assert!(h.events_for(2).is_empty());
        assert!(matches!(
            h.events_for(1)[2],
            Event::TabClosed { tab_id: 10 }
        ));
        assert!(h.engine.sharing.borrow().sharers(10).is_empty());
    }

    #[test]
    fn cancelling_chromes_debugging_bar_stops_sharing_the_tab() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.hello(2, "k2", "codex");
        h.share("k1", 10);
        h.share("k2", 10);
        h.share("k1", 11);
        h.engine.on_debugger_detached(10, "canceled_by_user");
        h.engine.on_debugger_detached(11, "target_closed");
        h.settle();
        assert!(h.engine.sharing.borrow().sharers(10).is_empty());
        assert_eq!(h.engine.sharing.borrow().sharers(11), ["k1"]);
    }

    #[test]
    fn disconnecting_revokes_the_agent_and_undoes_its_shares() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.hello(2, "k2", "codex");
        h.share("k1", 10);
        h.share("k2", 11);
        h.call(1, snapshot(10));
        h.settle();
        assert_eq!(
            h.popup(json!({"action": "disconnect", "session": "k1"})),
            Ok(())
        );
        assert!(matches!(&h.events_for(1)[..], [Event::Revoked { .. }]));
        assert!(h.events_for(2).is_empty());
        assert!(!h.fake.is_attached(10));
        assert_eq!(h.fake.group_of(10), None);
        h.hello(5, "k1", "claude");
        assert!(matches!(
            &h.events_for(5)[..],
            [Event::Revoked { .. }, Event::Revoked { .. }] | [Event::Revoked { .. }]
        ));
        assert_eq!(h.popup(json!({"action": "disconnectAll"})), Ok(()));
        assert!(h.engine.sharing.borrow().agents().is_empty());
        assert_eq!(h.fake.group_of(11), None);
    }

    #[test]
    fn a_tab_moves_to_the_group_of_the_agent_that_still_shares_it() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.hello(2, "k2", "codex");
        h.share("k2", 11);
        h.share("k1", 10);
        h.share("k2", 10);
        let codex = h.fake.group_of(11).unwrap();
        assert_ne!(h.fake.group_of(10), Some(codex), "in claude's group first");
        let unshare = json!({"action": "unshare", "session": "k1", "tab": 10});
        assert_eq!(h.popup(unshare), Ok(()));
        assert_eq!(h.fake.group_of(10), Some(codex));
        assert!(h.engine.sharing.borrow().may_use("k2", 10), "still shared");
        h.gone(2);
        assert_eq!(h.fake.group_of(10), None);
    }
}
