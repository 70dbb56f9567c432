//! The gate every call passes: who is calling, and may it touch this tab.
//!
//! A call is refused when its connection has not said hello, when the user
//! disconnected its agent, when it names a tab outside the agent's scope (whether or
//! not that tab exists: agents may not probe the user's browser), or when that tab
//! shows a site on the user's blocklist. The check runs while the call holds the tab
//! ([`Tabs::lock`](crate::engine::tab::Tabs::lock)), so nothing changes between the check and the command.
//! Nothing touches a tab before the gate has let the call through, with one
//! exception: `NewTab` names no tab; it opens one (after checking its destination
//! against the blocklist) and adopts it into the caller's scope.

pub mod agents;
pub mod badge;
pub mod leftovers;
pub mod opening_focus;
pub mod pointing;
pub mod popup;
pub mod requests;
pub mod scopes;
pub mod share;
pub mod status_line;

use tabwire_shared::{ClientHello, TabId};

use crate::cdp::events::PointingEvent;
use crate::chrome::{Chrome, TabState};
use crate::engine::context::Cx;
use crate::engine::core::tabs;
use crate::engine::liveness::PortDrop;
use crate::engine::Engine;
use crate::error::EngineError;
use agents::{Welcome, GRACE_MS};
use pointing::Heard;
use popup::{Popup, PopupAction, PopupState};
use requests::Answer;
use scopes::{Agent, CallerRefusal};
use share::{Shares, AGENT_GONE};

impl<C: Chrome + 'static> Engine<C> {
    /// The session of the agent that sent a call from relay connection `client`.
    pub(in crate::engine) fn caller(&self, client: Option<u64>) -> Result<String, EngineError> {
        self.sharing
            .borrow()
            .caller(client)
            .map_err(|refusal| match refusal {
                CallerRefusal::Unknown => EngineError::NotIntroduced,
                CallerRefusal::Revoked => EngineError::Revoked,
            })
    }

    /// Checks that `session` may act on `tab` now. Call it while holding the tab.
    pub(in crate::engine) async fn check_access(
        &self,
        session: &str,
        tab: TabId,
    ) -> Result<(), EngineError> {
        self.check_scope(session, tab)?;
        if self.settings.borrow().blocklist.is_empty() {
            return Ok(());
        }
        let Some(state) = self.chrome.tab(tab).await? else {
            return Err(EngineError::NoSuchTab(tab));
        };
        match self.settings.borrow().blocked_by(&state.url) {
            Some(pattern) => Err(EngineError::Blocklisted {
                tab,
                pattern: pattern.to_owned(),
            }),
            None => Ok(()),
        }
    }

    /// Checks that `tab` is in `session`'s scope, without asking the browser anything:
    /// a tab outside it is "not shared", whether or not it exists.
    pub(in crate::engine) fn check_scope(
        &self,
        session: &str,
        tab: TabId,
    ) -> Result<(), EngineError> {
        if self.sharing.borrow().may_use(session, tab) {
            Ok(())
        } else {
            Err(EngineError::NotShared(tab))
        }
    }

    /// Refuses a destination on the blocklist (`NewTab`, `Navigate` to a URL).
    pub(in crate::engine) fn check_destination(&self, url: &str) -> Result<(), EngineError> {
        match self.settings.borrow().blocked_by(url) {
            Some(pattern) => Err(EngineError::BlocklistedDestination {
                url: url.to_owned(),
                pattern: pattern.to_owned(),
            }),
            None => Ok(()),
        }
    }
}

// Agents coming and going ([`agents`]).
impl<C: Chrome + 'static> Engine<C> {
    /// A relay connection introduced itself.
    pub(in crate::engine) fn on_hello(&self, client: u64, hello: &ClientHello) {
        let now = self.chrome.now_ms();
        let welcome = agents::greet(&self.sharing, &self.settings.borrow(), client, hello, now);
        match welcome {
            Welcome::Probe => return,
            Welcome::Conflict => {
                return self.chrome.log(&format!(
                    "tabwire: ignored a hello from relay client {client} for another session \
                     than the one it introduced first"
                ))
            }
            Welcome::Revoked => self.post_to(client, agents::revoked()),
            Welcome::AutoShare(session) => self.in_background(|engine| async move {
                engine.auto_share(&session).await;
            }),
            Welcome::Renamed(session) => self.in_background(|engine| async move {
                engine.shares().restyle(&session).await;
            }),
            Welcome::Plain => {}
        }
        self.scopes_changed();
    }

    /// A relay connection closed.
    pub(in crate::engine) fn on_client_gone(&self, client: u64) {
        let gone = self.sharing.borrow_mut().client_gone(client);
        if let Some((session, agent)) = gone {
            self.in_background(|engine| async move {
                engine.asking().forget(&session).await;
                engine.drop_shares(agent).await;
            });
        }
        self.scopes_changed();
    }

    /// The native port closed, Chrome saying `error` (`runtime.lastError.message`, if
    /// any): every connection is gone; agents wait out the grace period.
    pub fn on_port_disconnected(&self, error: Option<&str>) {
        // A message half-joined will not be finished: its host is gone.
        self.port.forget_pieces();
        self.port_lost(PortDrop::from_chrome(error));
    }

    /// The native port is gone, for `why` (kept for the popup). Called for the shell,
    /// and by the heartbeat when it gives up on a port.
    pub(in crate::engine) fn port_lost(&self, why: PortDrop) {
        self.port.lost(why);
        let now = self.chrome.now_ms();
        self.sharing.borrow_mut().port_dropped(now);
        self.start_grace_timer();
        self.scopes_changed();
    }

    /// Ends, after [`GRACE_MS`], the shares of agents that did not come back.
    pub(in crate::engine) fn start_grace_timer(&self) {
        self.in_background(|engine| async move {
            engine.chrome.sleep(GRACE_MS).await;
            let now = engine.chrome.now_ms();
            let expired = engine.sharing.borrow_mut().expire_orphans(now, GRACE_MS);
            for (_, agent) in expired {
                engine.drop_shares(agent).await;
            }
        });
    }

    /// Shares the user's current tab with a newly connected agent, if it may be.
    async fn auto_share(&self, session: &str) {
        let Ok(Some(tab)) = tabs::users_tab(&self.chrome).await else {
            return;
        };
        if let Err(reason) = self.share_tab(session, tab.id).await {
            self.chrome.log(&format!(
                "tabwire: did not auto-share tab {}: {reason}",
                tab.id
            ));
        }
    }
}

// Sharing and unsharing tabs ([`share`] does the browser's side); each change is saved
// and told here (`scopes_changed`).
impl<C: Chrome + 'static> Engine<C> {
    /// What sharing reaches in the engine ([`share`]).
    fn shares(&self) -> Shares<'_, C> {
        Shares {
            chrome: &self.chrome,
            tabs: &self.tabs,
            signals: &self.signals,
            sharing: &self.sharing,
            settings: &self.settings,
            made_groups: &self.made_groups,
        }
    }

    /// Shares `tab` with `session` at the user's request (popup, auto-share). Refused,
    /// with the reason in words for the user, for pages that may not be shared.
    pub(in crate::engine) async fn share_tab(
        &self,
        session: &str,
        tab: TabId,
    ) -> Result<(), String> {
        let state = self.shares().sharable(session, tab).await?;
        if self.adopt_tab(session, &state).await {
            Ok(())
        } else {
            Err(AGENT_GONE.to_owned())
        }
    }

    /// Puts a tab into an agent's scope without asking (a tab the agent opened).
    /// Returns whether the tab is in the scope now: false if the agent is gone
    /// (disconnected by the user, or left).
    pub(in crate::engine) async fn adopt_tab(&self, session: &str, tab: &TabState) -> bool {
        if !self.sharing.borrow_mut().share(session, tab.id) {
            // Already shared, or the agent is gone.
            return self.sharing.borrow().agent(session).is_some();
        }
        self.scopes_changed();
        let shares = self.shares();
        if shares.group_with(session, tab).await {
            self.scopes_changed();
        }
        shares.show_badge(tab.id).await;
        true
    }

    /// Takes `tab` out of `session`'s scope (the popup, a drag out of the group).
    pub(in crate::engine) async fn unshare_tab(&self, session: &str, tab: TabId) {
        if self.sharing.borrow_mut().unshare(session, tab) {
            self.left_scope(tab).await;
            self.scopes_changed();
        }
    }

    /// Undoes every share of an agent that is gone (revoked, left, expired).
    pub(in crate::engine) async fn drop_shares(&self, agent: Agent) {
        for tab in agent.tabs {
            self.left_scope(tab).await;
        }
        self.scopes_changed();
    }

    /// After `tab` left a scope: ungrouped and released, or moved to the group of an
    /// agent that still shares it ([`Shares::left_scope`]).
    async fn left_scope(&self, tab: TabId) {
        if self.shares().left_scope(tab).await {
            self.scopes_changed();
        }
    }

    /// The user disconnected an agent: tell its server, refuse it from now on, and undo
    /// its shares.
    pub(in crate::engine) async fn disconnect(&self, session: &str) {
        let (agent, clients) = self.sharing.borrow_mut().revoke(session);
        for client in clients {
            self.post_to(client, agents::revoked());
        }
        self.asking().forget(session).await;
        if let Some(agent) = agent {
            self.drop_shares(agent).await;
        }
        self.scopes_changed();
    }

    /// The user dragged `tab` out of the group we put it in (`group` is where it is
    /// now): that stops sharing it.
    pub(in crate::engine) async fn on_group_changed(&self, tab: TabId, group: i64) {
        for session in self.shares().dragged_out(tab, group) {
            self.unshare_tab(&session, tab).await;
        }
    }

    /// Sets the badge of tabwire's button on `tab` ([`Shares::show_badge`]).
    pub(in crate::engine) async fn show_badge(&self, tab: TabId) {
        self.shares().show_badge(tab).await;
    }

    /// Scopes changed: save them for a restarted worker, update the popup, and tell
    /// agents' servers if what they may see changed.
    pub(in crate::engine) fn scopes_changed(&self) {
        self.end_pointing_out_of_scope();
        self.schedule_save();
        self.chrome.state_changed();
        let news = self.announced.scopes_changed(&self.sharing.borrow());
        self.post_news(news);
    }
}

// What tabwire's popup shows, and what its buttons do ([`popup`]).
impl<C: Chrome + 'static> Engine<C> {
    /// What the popup reads ([`popup`]).
    fn popup(&self) -> Popup<'_, C> {
        Popup {
            chrome: &self.chrome,
            port: &self.port,
            sharing: &self.sharing,
            settings: &self.settings,
            tabs: &self.tabs,
            requests: &self.tab_requests,
            pointing: &self.pointing,
        }
    }

    /// The tab a popup opened about `tab` (or, without one, about the user's current
    /// tab) shows. Looking is all it does: nothing is shared.
    pub async fn popup_target(&self, tab: Option<TabId>) -> Option<TabId> {
        self.popup().target(tab).await
    }

    /// What the popup about `target` shows now.
    pub async fn popup_state(&self, target: Option<TabId>) -> PopupState {
        self.popup().state(target).await
    }

    /// Carries out a popup button (JSON text of a [`PopupAction`]). The error is for
    /// the user.
    pub async fn popup_action(&self, json: &str) -> Result<(), String> {
        match PopupAction::parse(json)? {
            PopupAction::Share { session, tab } => self.share_tab(&session, tab).await?,
            PopupAction::Unshare { session, tab } => self.unshare_tab(&session, tab).await,
            PopupAction::Disconnect { session } => self.disconnect(&session).await,
            PopupAction::Point { session, tab } => self.start_pointing(&session, tab).await?,
            PopupAction::CancelPoint => self.stop_pointing().await,
            PopupAction::AnswerRequest { id, tab, share } => {
                self.answer_request(id, tab, share).await?
            }
            PopupAction::DisconnectAll => {
                let sessions: Vec<String> =
                    self.sharing.borrow().agents().keys().cloned().collect();
                for session in sessions {
                    self.disconnect(&session).await;
                }
            }
            PopupAction::SaveSettings {
                auto_share,
                idle_detach_seconds,
                blocklist,
            } => {
                popup::apply_settings(&self.settings, auto_share, idle_detach_seconds, &blocklist)?;
                self.store_settings().await?;
                self.rearm_idle_timers();
                self.enforce_blocklist().await;
                self.chrome.state_changed();
            }
        }
        Ok(())
    }

    /// The user answered request `id` in the popup opened on `tab`
    /// ([`requests`]). The error is for the user.
    async fn answer_request(&self, id: u64, tab: TabId, share: bool) -> Result<(), String> {
        let Some(session) = self.tab_requests.borrow().session_of(id) else {
            return Err(
                "That request is no longer waiting (the agent stopped waiting or left).".to_owned(),
            );
        };
        let answer = if share {
            self.share_tab(&session, tab).await?;
            Answer::Shared(tab)
        } else {
            Answer::Declined
        };
        self.asking().answered(id, answer).await;
        Ok(())
    }
}

// The user pointing at an element for an agent ([`pointing`]).
impl<C: Chrome + 'static> Engine<C> {
    /// Starts a pick in `tab` for `session` (the popup). The error is for the user.
    pub(in crate::engine) async fn start_pointing(
        &self,
        session: &str,
        tab: TabId,
    ) -> Result<(), String> {
        pointing::may_point(&self.sharing.borrow(), session, tab)?;
        self.stop_pointing().await;
        pointing::highlight_on(&Cx::new(self, session), tab).await?;
        self.pointing.begin(tab, session);
        self.chrome.state_changed();
        Ok(())
    }

    /// Ends the pick under way, if any (the popup's Cancel).
    pub(in crate::engine) async fn stop_pointing(&self) {
        let Some(pointing) = self.pointing.take() else {
            return;
        };
        pointing::highlight_off(&Cx::of_engine(self), pointing.tab).await;
        self.chrome.state_changed();
    }

    /// The scopes changed: a pick in a tab no longer shared with its agent ends
    /// ([`Pointer::out_of_scope`](pointing::Pointer::out_of_scope)).
    fn end_pointing_out_of_scope(&self) {
        let stale = self.pointing.out_of_scope(&self.sharing.borrow());
        if let Some(stale) = stale {
            self.in_background(move |engine| async move {
                pointing::highlight_off(&Cx::of_engine(&engine), stale.tab).await;
                engine.chrome.state_changed();
            });
        }
    }

    /// An inspect-mode event from `tab`'s own session.
    pub(in crate::engine) fn on_pointing_event(&self, tab: TabId, event: PointingEvent) {
        match self.pointing.heard(tab, event) {
            Heard::Nothing => {}
            Heard::Canceled => self.chrome.state_changed(),
            Heard::Picked(pick, node) => self.in_background(move |engine| async move {
                pointing::highlight_off(&Cx::of_engine(&engine), pick.tab).await;
                engine.tell_pick(&pick.session, pick.tab, node).await;
                if engine.pointing.told(&pick) {
                    engine.chrome.state_changed();
                }
            }),
        }
    }

    /// Names the element `node` picked in `tab` and sends it to the agent `session`
    /// it was picked for, if the tab is still shared with it.
    async fn tell_pick(&self, session: &str, tab: TabId, node: i64) {
        if !self.sharing.borrow().may_use(session, tab) {
            return self
                .chrome
                .log("tabwire: the tab pointed in is no longer shared with the agent");
        }
        let event = match pointing::name_pick(&Cx::new(self, session), tab, node).await {
            Ok(event) => event,
            Err(line) => return self.chrome.log(&line),
        };
        let clients = self.sharing.borrow().clients_of(session);
        for client in clients {
            self.post_to(client, event.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::fake::{commands, Harness};
    use serde_json::json;
    use tabwire_shared::{
        requests::*, Command, EmulationChanges, ErrorCode, ImageFormat, InputAction, Navigation,
    };

    /// One command of every kind that names a tab, on `tab_id`.
    fn every_tab_command(tab_id: i64) -> Vec<Command> {
        vec![
            ActivateTab { tab_id }.into(),
            Navigate {
                tab_id,
                to: Navigation::Back,
                timeout_ms: 100,
            }
            .into(),
            CloseTab { tab_id }.into(),
            commands::evaluate_one(tab_id, 100),
            TakeSnapshot::whole(tab_id).into(),
            DiscoverThirdPartyTools {
                tab_id,
                allowed_origins: vec![],
                timeout_ms: 100,
                automatic: false,
            }
            .into(),
            RunThirdPartyTool {
                tab_id,
                document: "d".into(),
                tool: "t".into(),
                group: None,
                args: json!({}),
                timeout_ms: 100,
            }
            .into(),
            Input {
                tab_id,
                action: InputAction::PressKey { key: "a".into() },
                timeout_ms: 100,
            }
            .into(),
            WaitForText {
                tab_id,
                texts: vec!["x".into()],
                timeout_ms: 100,
            }
            .into(),
            HandleDialog {
                tab_id,
                accept: true,
                prompt_text: None,
            }
            .into(),
            Screenshot {
                tab_id,
                format: ImageFormat::Png,
                quality: None,
                full_page: false,
                uid: None,
            }
            .into(),
            commands::list_console(tab_id),
            GetConsoleMessage { tab_id, id: 1 }.into(),
            NetworkRequests {
                tab_id,
                include_preserved: false,
            }
            .into(),
            GetNetworkRequest { tab_id, id: 1 }.into(),
            Emulate {
                tab_id,
                changes: EmulationChanges::default(),
            }
            .into(),
            ResizePage {
                tab_id,
                width: 100,
                height: 100,
            }
            .into(),
            StartTrace {
                tab_id,
                css_selector_stats: false,
            }
            .into(),
            StopTrace { tab_id }.into(),
            ReadTrace {
                tab_id,
                stream: "1".into(),
                discard: true,
            }
            .into(),
            GetCssStyles {
                tab_id,
                uid: "1_1".into(),
            }
            .into(),
            GetMemoryUsage { tab_id }.into(),
            NodeUids {
                tab_id,
                backend_node_ids: vec![1],
            }
            .into(),
            ListWebMcpTools { tab_id }.into(),
            InvokeWebMcpTool {
                tab_id,
                document: "d".into(),
                tool: "t".into(),
                frame_id: None,
                input: json!({}),
                timeout_ms: 100,
            }
            .into(),
        ]
    }

    #[test]
    fn every_command_naming_an_unshared_tab_is_refused_before_touching_it() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.share("k1", 10);
        let commands = every_tab_command(11);
        assert_eq!(
            commands.len() + 3,
            tabwire_shared::Command::COUNT,
            "every command but list, new tab and request tab"
        );
        for (id, command) in commands.into_iter().enumerate() {
            h.call(id as u64, command.clone());
            h.settle();
            let error = h.reply(id as u64).unwrap().unwrap_err();
            assert_eq!(error.code, ErrorCode::NotShared, "{command:?}");
            assert_eq!(
                error.message,
                "Tab 11 is not shared with this agent (or no longer exists). Call list_pages to \
                 see the tabs shared with it; for another tab, call request_page (the user \
                 shares the tab in front with a click), or ask the user to open it, click the \
                 tabwire button in Chrome's toolbar and press \"Share this tab\"."
            );
        }
        assert!(h.fake.methods(11).is_empty());
        assert!(!h.fake.is_attached(11));
        assert_eq!(h.fake.active_tab(1), Some(10), "activate did not run");
    }

    #[test]
    fn a_call_before_hello_or_after_revocation_is_refused() {
        let mut h = Harness::strict();
        h.call_as(9, 1, ListTabs);
        h.settle();
        h.failed(1, ErrorCode::Refused, "has not introduced itself");
        h.hello(9, "k9", "a");
        assert_eq!(
            h.popup(json!({"action": "disconnect", "session": "k9"})),
            Ok(())
        );
        h.call_as(9, 2, ListTabs);
        h.settle();
        h.failed(2, ErrorCode::Refused, "disconnected this agent");
    }

    #[test]
    fn list_shows_only_the_callers_tabs() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.hello(2, "k2", "codex");
        h.call(1, ListTabs);
        h.settle();
        let Ok(tabs) = h.reply_to::<ListTabs>(1).unwrap() else {
            panic!("expected tabs")
        };
        assert!(tabs.is_empty(), "nothing shared yet: {tabs:?}");
        h.share("k1", 11);
        h.call(2, ListTabs);
        h.settle();
        let Ok(tabs) = h.reply_to::<ListTabs>(2).unwrap() else {
            panic!("expected tabs")
        };
        assert_eq!(tabs.iter().map(|t| t.id).collect::<Vec<_>>(), vec![11]);
        h.call_as(2, 3, ListTabs);
        h.settle();
        let Ok(tabs) = h.reply_to::<ListTabs>(3).unwrap() else {
            panic!("expected tabs")
        };
        assert!(
            tabs.is_empty(),
            "the other agent's tab is not listed: {tabs:?}"
        );
    }

    #[test]
    fn a_new_tab_joins_its_openers_scope_only() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.hello(2, "k2", "codex");
        let new_tab = NewTab {
            url: "https://c.test/".into(),
            background: Some(true),
            timeout_ms: 1000,
        };
        h.call(1, new_tab);
        h.settle();
        let Ok(tab) = h.reply_to::<NewTab>(1).unwrap() else {
            panic!("expected a tab")
        };
        h.call(2, TakeSnapshot::whole(tab.id));
        h.call_as(2, 3, TakeSnapshot::whole(tab.id));
        h.settle();
        assert!(h.reply(2).unwrap().is_ok());
        assert_eq!(h.reply(3).unwrap().unwrap_err().code, ErrorCode::NotShared);
    }

    #[test]
    fn an_unknown_tab_is_not_shared_and_a_launched_browser_shares_everything() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.call(1, ActivateTab { tab_id: 99 });
        h.call(4, ActivateTab { tab_id: 11 });
        h.settle();
        let missing = h.reply(1).unwrap().unwrap_err();
        let unshared = h.reply(4).unwrap().unwrap_err();
        assert_eq!(missing.code, ErrorCode::NotShared, "no probing for tab ids");
        assert_eq!(
            missing.message.replace("99", "N"),
            unshared.message.replace("11", "N"),
            "a missing tab and an unshared one look the same"
        );
        h.host_ready(true);
        h.call(2, ActivateTab { tab_id: 11 });
        h.call(3, ListTabs);
        h.settle();
        assert_eq!(h.reply_to::<ActivateTab>(2).unwrap(), Ok(()));
        let Ok(tabs) = h.reply_to::<ListTabs>(3).unwrap() else {
            panic!("expected tabs")
        };
        assert_eq!(tabs.len(), 2);
    }

    #[test]
    fn a_blocklisted_site_is_neither_shared_nor_debugged() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.share("k1", 10);
        let save = json!({"action": "saveSettings", "autoShare": false, "idleDetachSeconds": 0, "blocklist": "https://*.bank.test\n"});
        assert_eq!(h.popup(save), Ok(()));
        h.fake.set_url(11, "https://www.bank.test/");
        let refused = h.popup(json!({"action": "share", "session": "k1", "tab": 11}));
        assert!(refused.unwrap_err().contains("blocklist"));
        h.call(1, TakeSnapshot::whole(10));
        h.settle();
        assert!(h.fake.is_attached(10));
        h.fake.set_url(10, "https://www.bank.test/");
        h.engine.on_tab_updated(
            10,
            crate::engine::TabChange {
                url: Some("https://www.bank.test/".into()),
                ..Default::default()
            },
        );
        h.settle();
        assert!(!h.fake.is_attached(10), "detached on arrival");
        h.call(2, TakeSnapshot::whole(10));
        h.settle();
        h.failed(2, ErrorCode::Refused, "blocklist (https://*.bank.test)");
        assert!(!h.fake.is_attached(10));
    }

    #[test]
    fn two_agents_on_one_tab_take_turns_other_tabs_run_at_once() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.hello(2, "k2", "codex");
        h.share("k1", 10);
        h.share("k2", 10);
        h.share("k2", 11);
        h.fake.hold_on_tab("Runtime.callFunctionOn", 10);
        let evaluate = |tab_id| commands::evaluate_one(tab_id, 5000);
        h.call_as(1, 1, evaluate(10));
        h.settle();
        h.call_as(2, 2, evaluate(10));
        h.call_as(2, 3, evaluate(11));
        h.settle();
        assert_eq!(
            h.fake.sent(10, "Runtime.callFunctionOn").len(),
            1,
            "the second waits"
        );
        assert!(h.reply(3).unwrap().is_ok(), "another tab is not held up");
        h.fake
            .release_held(json!({"result": {"type": "number", "value": 1}}));
        h.settle();
        assert!(h.reply(1).unwrap().is_ok());
        assert!(h.reply(2).unwrap().is_ok());
    }

    fn block_bank() -> serde_json::Value {
        json!({"action": "saveSettings", "autoShare": false, "idleDetachSeconds": 0, "blocklist": "https://*.bank.test"})
    }

    #[test]
    fn the_blocklist_is_checked_once_the_call_holds_the_tab() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.hello(2, "k2", "codex");
        h.share("k1", 10);
        h.share("k2", 10);
        assert_eq!(h.popup(block_bank()), Ok(()));
        h.fake.hold_on_tab("Runtime.callFunctionOn", 10);
        let evaluate = commands::evaluate_one(10, 5000);
        h.call_as(1, 1, evaluate);
        h.settle();
        h.call_as(2, 2, TakeSnapshot::whole(10));
        h.settle();
        // While the second call waits, the tab goes to the bank (Chrome has not told).
        h.fake.set_url(10, "https://www.bank.test/");
        h.fake
            .release_held(json!({"result": {"type": "number", "value": 1}}));
        h.settle();
        h.failed(2, ErrorCode::Refused, "https://*.bank.test");
        assert!(h.fake.takes(10).is_empty());
    }

    #[test]
    fn agents_cannot_open_or_navigate_to_blocklisted_sites() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.share("k1", 10);
        assert_eq!(h.popup(block_bank()), Ok(()));
        h.call(
            1,
            Navigate {
                tab_id: 10,
                to: Navigation::Url {
                    url: "https://login.bank.test/".into(),
                },
                timeout_ms: 1000,
            },
        );
        h.call(
            2,
            NewTab {
                url: "https://bank.test/".into(),
                background: Some(true),
                timeout_ms: 1000,
            },
        );
        h.settle();
        for id in [1, 2] {
            let error = h.reply(id).unwrap().unwrap_err();
            assert_eq!(error.code, ErrorCode::Refused);
            assert!(
                error.message.contains("blocklist (https://*.bank.test)"),
                "{error:?}"
            );
        }
        assert!(h.fake.sent(10, "Page.navigate").is_empty());
        assert!(h.fake.created_urls().is_empty());
    }
}
