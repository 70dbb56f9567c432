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
//!
//! This file is also where the rest of `access` meets the engine. Each concern holds
//! its state as a value, or is given only the parts it reaches, and decides:
//! [`scopes::Sharing`] (who may use which tab), [`agents::greet`] (what a hello calls
//! for), [`share::Shares`] (a share's groups and badges, a tab let go), [`popup::Popup`]
//! (what the popup shows) and [`popup::PopupAction`] (its buttons),
//! [`pointing::Pointer`] (the user's pick of an element; its work in the tab takes a
//! [`Cx`]), [`requests::Asking`] and [`leftovers::MadeGroups`]. The engine's methods
//! here, one short block per concern, carry out what they decide: they post to agents'
//! servers, run what outlives a call in the background, and after every change of the
//! scopes save them and tell who needs to know (`scopes_changed`).

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

// The gate.
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
mod tests;
