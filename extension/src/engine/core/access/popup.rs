//! What tabwire's popup shows, and what its buttons do.
//!
//! The popup is a thin page: it asks the worker for a [`PopupState`] (built here from
//! the engine's real state, never from what the popup showed before), renders it, and
//! sends back [`PopupAction`]s. Opening it does nothing but show: sharing is the
//! user's click on *Share this tab with …* (focused only when that is all the popup can
//! be for: [`opening_focus`](super::opening_focus)). The user may open the popup only
//! to disconnect agents or change settings, and must never find that it shared their
//! tab first.

use std::cell::RefCell;

use serde::{Deserialize, Serialize};
use tabwire_shared::version::Mismatch;
use tabwire_shared::TabId;

use super::opening_focus::share_to_focus;
use super::pointing::Pointer;
use super::requests::TabRequests;
use super::scopes::Sharing;
use super::status_line::{status_line, StatusLine};
use crate::chrome::{Chrome, TabState};
use crate::engine::core::liveness::Port;
use crate::engine::core::tabs;
use crate::engine::settings::{check_pattern, clean_patterns, Settings, MAX_IDLE_DETACH_SECONDS};
use crate::engine::tab::Tabs;

/// Everything the popup renders.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PopupState {
    /// The native host is connected and speaking.
    pub connected: bool,
    /// The top line: the host and the agents, in words and a tone.
    pub status: StatusLine,
    /// The agent whose *Share this tab* button takes the focus when the popup opens
    /// (see [`opening_focus`](super::opening_focus)).
    pub focus_on_open: Option<String>,
    /// When not connected: why, and what to run (commands between backquotes).
    pub not_connected_why: Option<String>,
    /// When the extension and the native host, or an agent's tabwire, differ in
    /// version: which is older and what to run (commands between backquotes).
    pub version_mismatch: Option<String>,
    /// When the host last answered a heartbeat (ms since the epoch).
    pub last_heartbeat_ms: Option<u64>,
    /// When an agent last called (ms since the epoch).
    pub last_command_ms: Option<u64>,
    /// Now, by the worker's clock, to show the times above as "… s ago".
    pub now_ms: u64,
    /// The browser was launched for an agent: everything is shared.
    pub agent_profile: bool,
    /// The tab the popup is about.
    pub target: Option<TargetView>,
    /// Every agent known, connected or waiting to reconnect.
    pub agents: Vec<AgentView>,
    /// The settings in force.
    pub settings: SettingsView,
    /// Agents' requests for the tab in front, waiting for the user's answer (oldest
    /// first): the popup offers its own tab to each.
    pub requests: Vec<RequestView>,
    /// The user's pick of an element for an agent, while under way.
    pub pointing: Option<PointingView>,
}

/// A pick under way, as the popup shows it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PointingView {
    /// The tab.
    pub tab: TabId,
    /// The agent it is for.
    pub session: String,
    /// Its name.
    pub name: String,
}

/// An agent's request for a tab, as the popup shows it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestView {
    /// The request, for the answer.
    pub id: u64,
    /// The agent that asks.
    pub session: String,
    /// Its name.
    pub name: String,
    /// Its tab groups' colour.
    pub color: String,
    /// Why it asks, in its words.
    pub reason: String,
    /// When it asked (ms since the epoch).
    pub asked_ms: u64,
}

/// The popup's tab.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetView {
    /// Its id.
    pub id: TabId,
    /// Its title.
    pub title: String,
    /// Its URL.
    pub url: String,
    /// Why it cannot be shared (with anyone more), if so.
    pub refusal: Option<String>,
    /// The agents sharing it.
    pub shared_with: Vec<AgentRef>,
    /// The connected agents it could be shared with.
    pub can_share_with: Vec<AgentRef>,
}

/// An agent, by session and name.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentRef {
    /// Its session key.
    pub session: String,
    /// Its name (unique among agents).
    pub name: String,
    /// Its tab groups' colour (a Chrome group colour name).
    pub color: String,
}

/// One agent and its tabs.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentView {
    /// Its session key.
    pub session: String,
    /// Its name (unique among agents).
    pub name: String,
    /// The project folder it works in, if its server said.
    pub folder: Option<String>,
    /// Its tab groups' colour (a Chrome group colour name).
    pub color: String,
    /// A live connection speaks for it.
    pub connected: bool,
    /// When it last called.
    pub last_activity_ms: u64,
    /// Its tabs.
    pub tabs: Vec<TabView>,
}

/// A shared tab.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TabView {
    /// Its id.
    pub id: TabId,
    /// Its title.
    pub title: String,
    /// Its URL.
    pub url: String,
    /// The debugger is attached to it now.
    pub attached: bool,
}

/// The settings as the popup edits them.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SettingsView {
    /// Share the active tab with a connecting agent.
    pub auto_share: bool,
    /// Idle detach delay in force, seconds (0: never).
    pub idle_detach_seconds: u64,
    /// Blocklisted origin patterns.
    pub blocklist: Vec<String>,
}

/// A button pressed in the popup.
#[derive(Debug, Clone, Deserialize)]
#[serde(
    tag = "action",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum PopupAction {
    /// Share a tab with an agent.
    Share {
        /// The agent.
        session: String,
        /// The tab.
        tab: TabId,
    },
    /// Stop sharing a tab with an agent.
    Unshare {
        /// The agent.
        session: String,
        /// The tab.
        tab: TabId,
    },
    /// Disconnect one agent.
    Disconnect {
        /// The agent.
        session: String,
    },
    /// Disconnect every agent.
    DisconnectAll,
    /// Let the user point at an element in `tab` for an agent.
    Point {
        /// The agent.
        session: String,
        /// The tab (shared with it).
        tab: TabId,
    },
    /// End the pick under way.
    CancelPoint,
    /// Answer an agent's request for a tab: share `tab` (the popup's) with it, or not.
    AnswerRequest {
        /// The request.
        id: u64,
        /// The tab the popup is about.
        tab: TabId,
        /// Share (true) or "Not now" (false).
        share: bool,
    },
    /// Save the settings.
    SaveSettings {
        /// Auto-share.
        auto_share: bool,
        /// Idle detach delay, seconds (0: never).
        idle_detach_seconds: u64,
        /// The blocklist, one pattern a line.
        blocklist: String,
    },
}

/// What the popup reads: the browser (its tabs, the clock), the native port's health,
/// the agents, the settings, what the engine knows of each tab, the agents' waiting
/// requests and the pick under way.
pub(super) struct Popup<'a, C> {
    /// The browser.
    pub(super) chrome: &'a C,
    /// The native port, for its health.
    pub(super) port: &'a Port,
    /// The agents and their scopes.
    pub(super) sharing: &'a RefCell<Sharing>,
    /// The user's settings.
    pub(super) settings: &'a RefCell<Settings>,
    /// What the engine knows of each tab (attached or not).
    pub(super) tabs: &'a Tabs,
    /// Agents' requests for the tab in front.
    pub(super) requests: &'a RefCell<TabRequests>,
    /// The user's pick of an element, while under way.
    pub(super) pointing: &'a Pointer,
}

impl<C: Chrome + 'static> Popup<'_, C> {
    /// The tab a popup opened about `tab` (or, without one, about the user's current
    /// tab) shows. Looking is all it does: nothing is shared.
    pub(super) async fn target(&self, tab: Option<TabId>) -> Option<TabId> {
        match tab {
            Some(tab) => Some(tab),
            None => tabs::users_tab(self.chrome)
                .await
                .ok()
                .flatten()
                .map(|t| t.id),
        }
    }

    /// What the popup about `target` shows now.
    pub(super) async fn state(&self, target: Option<TabId>) -> PopupState {
        let windows = self.chrome.normal_windows().await.unwrap_or_default();
        let tabs: Vec<TabState> = windows.into_iter().flat_map(|w| w.tabs).collect();
        let target_state = match target {
            Some(id) => match tabs.iter().find(|t| t.id == id) {
                Some(found) => Some(found.clone()),
                None => self.chrome.tab(id).await.ok().flatten(),
            },
            None => None,
        };
        let live = self.port.liveness();
        let sharing = self.sharing.borrow();
        let settings = self.settings.borrow();
        let agent_ref = |session: &String| {
            let agent = sharing.agent(session);
            AgentRef {
                session: session.clone(),
                name: agent.map(|a| a.name.clone()).unwrap_or_default(),
                color: agent.map(|a| a.color.clone()).unwrap_or_default(),
            }
        };
        let target = target_state.map(|t| {
            let shared_with: Vec<AgentRef> = sharing.sharers(t.id).iter().map(agent_ref).collect();
            let can_share_with: Vec<AgentRef> = sharing
                .connected_sessions()
                .iter()
                .filter(|s| !shared_with.iter().any(|r| &r.session == *s))
                .map(agent_ref)
                .collect();
            let refusal = settings.refusal(&t.url).or_else(|| {
                (shared_with.is_empty() && can_share_with.is_empty() && !sharing.agent_profile())
                    .then(|| "No agent is connected. Start your agent with tabwire's MCP server, then share this tab.".to_owned())
            });
            TargetView {
                id: t.id,
                title: t.title,
                url: t.url,
                refusal,
                shared_with,
                can_share_with,
            }
        });
        let agents: Vec<AgentView> = sharing
            .agents()
            .iter()
            .map(|(session, agent)| AgentView {
                session: session.clone(),
                name: agent.name.clone(),
                folder: agent.folder.clone(),
                color: agent.color.clone(),
                connected: sharing.connected(session),
                last_activity_ms: agent.last_activity_ms,
                tabs: agent
                    .tabs
                    .iter()
                    .map(|id| {
                        let known = tabs.iter().find(|t| t.id == *id);
                        TabView {
                            id: *id,
                            title: known.map(|t| t.title.clone()).unwrap_or_default(),
                            url: known.map(|t| t.url.clone()).unwrap_or_default(),
                            attached: self.tabs.is_attached(*id),
                        }
                    })
                    .collect(),
            })
            .collect();
        let version_mismatch = live
            .host_version
            .iter()
            .chain(
                sharing
                    .connected_sessions()
                    .iter()
                    .filter_map(|s| sharing.agent(s))
                    .map(|a| &a.version),
            )
            .find_map(|program| Mismatch::between(&live.own_version, program))
            .map(|m| m.line());
        let requests = self
            .requests
            .borrow()
            .waiting()
            .into_iter()
            .map(|r| {
                let agent = sharing.agent(&r.session);
                RequestView {
                    id: r.id,
                    name: agent.map(|a| a.name.clone()).unwrap_or_default(),
                    color: agent.map(|a| a.color.clone()).unwrap_or_default(),
                    session: r.session,
                    reason: r.reason,
                    asked_ms: r.asked_ms,
                }
            })
            .collect();
        let pointing = self.pointing.under_way().map(|p| PointingView {
            tab: p.tab,
            name: sharing
                .agent(&p.session)
                .map(|a| a.name.clone())
                .unwrap_or_default(),
            session: p.session,
        });
        PopupState {
            requests,
            pointing,
            connected: live.connected(),
            status: status_line((&live).into(), sharing.connected_sessions().len()),
            focus_on_open: share_to_focus(target.as_ref(), &agents),
            not_connected_why: live.not_connected_why(),
            version_mismatch,
            last_heartbeat_ms: live.last_pong_ms,
            last_command_ms: live.last_command_ms,
            now_ms: self.chrome.now_ms(),
            agent_profile: sharing.agent_profile(),
            target,
            agents,
            settings: SettingsView {
                auto_share: settings.auto_share,
                idle_detach_seconds: settings.idle_detach_seconds(sharing.agent_profile()),
                blocklist: settings.blocklist.clone(),
            },
        }
    }
}

impl PopupAction {
    /// Reads a popup button (JSON text). The error is for the user.
    pub(super) fn parse(json: &str) -> Result<Self, String> {
        serde_json::from_str(json)
            .map_err(|e| format!("tabwire did not understand the popup ({e})."))
    }
}

/// Puts the settings the popup saved in force: the blocklist cleaned and checked,
/// the idle delay capped. The error is for the user (nothing changed then).
pub(super) fn apply_settings(
    settings: &RefCell<Settings>,
    auto_share: bool,
    idle_detach_seconds: u64,
    blocklist: &str,
) -> Result<(), String> {
    let blocklist = clean_patterns(blocklist.lines().map(str::to_owned));
    blocklist.iter().try_for_each(|p| check_pattern(p))?;
    let mut settings = settings.borrow_mut();
    settings.auto_share = auto_share;
    settings.idle_detach_seconds = Some(idle_detach_seconds.min(MAX_IDLE_DETACH_SECONDS));
    settings.blocklist = blocklist;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::PopupState;
    use crate::engine::fake::Harness;
    use serde_json::json;

    /// What the popup about `tab` shows now.
    fn state(h: &mut Harness, tab: Option<i64>) -> PopupState {
        let engine = h.engine.clone();
        h.run(async move { engine.popup_state(tab).await })
    }

    #[test]
    fn opening_the_popup_shares_nothing_and_the_share_button_shares() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        let engine = h.engine.clone();
        let target = h.run(async move { engine.popup_target(None).await });
        assert_eq!(target, Some(10), "the user's active tab");
        let shown = state(&mut h, target).target.unwrap();
        assert!(shown.shared_with.is_empty(), "opening shared nothing");
        assert_eq!(shown.can_share_with.len(), 1);
        assert_eq!(shown.can_share_with[0].name, "claude");
        assert!(h.engine.sharing.borrow().sharers(10).is_empty());
        assert_eq!(h.fake.group_of(10), None, "no tab group");
        assert_eq!(h.fake.badge(10), None, "no badge");
        assert!(state(&mut h, target).agents[0].tabs.is_empty());

        // The Share button does it.
        let share = json!({"action": "share", "session": "k1", "tab": 10});
        assert_eq!(h.popup(share), Ok(()));
        let state = state(&mut h, target);
        let shown = state.target.unwrap();
        assert_eq!(shown.shared_with[0].session, "k1");
        assert!(shown.can_share_with.is_empty());
        assert_eq!(state.agents[0].tabs[0].id, 10);
        assert!(!state.agents[0].tabs[0].attached);
        assert!(h.fake.group_of(10).is_some(), "in the agent's group");
    }

    #[test]
    fn with_two_agents_the_user_chooses() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.hello(2, "k2", "codex");
        let engine = h.engine.clone();
        let target = h.run(async move { engine.popup_target(Some(11)).await });
        let shown = state(&mut h, target).target.unwrap();
        assert_eq!(shown.can_share_with.len(), 2);
        assert!(shown.shared_with.is_empty());
        assert!(shown.refusal.is_none());
    }

    #[test]
    fn browser_pages_and_lonely_tabs_say_why_they_cannot_be_shared() {
        let mut h = Harness::strict();
        let refusal = state(&mut h, Some(10)).target.unwrap().refusal.unwrap();
        assert!(refusal.contains("No agent is connected"), "{refusal}");
        h.hello(1, "k1", "claude");
        h.fake.set_url(11, "chrome://settings/");
        let state = state(&mut h, Some(11));
        let refusal = state.target.unwrap().refusal.unwrap();
        assert!(refusal.contains("browser page"), "{refusal}");
        assert!(!state.connected);
    }

    #[test]
    fn not_connected_the_popup_says_why_and_what_to_run() {
        let mut h = Harness::strict();
        let why = |h: &mut Harness| state(h, None).not_connected_why;
        assert_eq!(
            why(&mut h).as_deref(),
            Some("Connecting to tabwire's native host…")
        );
        h.engine.on_port_connected("1");
        assert!(why(&mut h).unwrap().contains("Waiting"));
        h.host_ready(false);
        assert_eq!(why(&mut h), None, "connected");
        assert!(state(&mut h, None).connected);

        // Not installed: the advice stays while the shell retries, until a host speaks.
        h.engine
            .on_port_disconnected(Some("Specified native messaging host not found."));
        let advice = why(&mut h).unwrap();
        assert!(advice.contains("`tabwire install`"), "{advice}");
        assert!(!state(&mut h, None).connected);
        h.engine.on_port_connected("1");
        assert_eq!(why(&mut h).unwrap(), advice, "kept through a retry");
        h.engine
            .on_port_disconnected(Some("Native host has exited."));
        assert!(why(&mut h).unwrap().contains("`tabwire doctor`"));
        h.engine.on_port_connected("1");
        h.host_ready(false);
        assert_eq!(why(&mut h), None);

        // Chrome refusing outright is said as it said it.
        h.engine.on_port_disconnected(None);
        h.engine
            .on_port_refused("Error in invocation of runtime.connectNative");
        let advice = why(&mut h).unwrap();
        assert!(advice.contains("Error in invocation"), "{advice}");
    }

    #[test]
    fn saved_settings_are_stored_and_shown() {
        let mut h = Harness::strict();
        let save = json!({"action": "saveSettings", "autoShare": true, "idleDetachSeconds": 30, "blocklist": " https://*.bank.test \n\n"});
        assert_eq!(h.popup(save), Ok(()));
        let stored = h
            .fake
            .stored(crate::chrome::StorageArea::Local, "settings")
            .unwrap();
        assert_eq!(
            stored,
            json!({"autoShare": true, "idleDetachSeconds": 30, "blocklist": ["https://*.bank.test"]})
        );
        let engine = h.engine.clone();
        let state = h.run(async move { engine.popup_state(None).await });
        assert_eq!(state.settings.idle_detach_seconds, 30);
        assert!(h.popup(json!({"action": "fly"})).is_err());
    }

    #[test]
    fn a_blocklist_with_a_bad_pattern_is_not_saved() {
        let mut h = Harness::strict();
        let save = json!({"action": "saveSettings", "autoShare": true, "idleDetachSeconds": 30, "blocklist": "https://*.bank.test\nhttps://mail.test/inbox"});
        let refused = h.popup(save).unwrap_err();
        assert!(refused.contains("https://mail.test/inbox"), "{refused}");
        assert!(refused.contains("path"), "{refused}");
        let stored = h.fake.stored(crate::chrome::StorageArea::Local, "settings");
        assert_eq!(stored, None, "nothing saved");
        assert!(h.engine.settings.borrow().blocklist.is_empty());
        assert!(!h.engine.settings.borrow().auto_share);
    }
}
