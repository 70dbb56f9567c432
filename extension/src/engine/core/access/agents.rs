//! Agents coming and going: hellos, departures, the native port dropping.
//!
//! A hello maps a relay connection onto its agent's session; the first hello of a
//! session may share the user's tab at once (the auto-share setting). `ClientGone`
//! means the agent's server really left: its shares end at once. When the whole port
//! drops (the native host restarting) every agent is kept for [`GRACE_MS`], so those
//! that reconnect with their session key find their tabs again; the others' shares end
//! then.

use tabwire_shared::{ClientHello, Event};

use super::scopes::Greeting;
use crate::chrome::Chrome;
use crate::engine::core::tabs;
use crate::engine::liveness::PortDrop;
use crate::engine::Engine;

/// What an agent's server hears when the user disconnects it (or it comes back after).
pub(in crate::engine) const REVOKED_BY_USER: &str =
    "The user disconnected this agent from the browser in tabwire's popup.";

/// How long agents keep their shares after the native port dropped.
pub const GRACE_MS: u64 = 60_000;

impl<C: Chrome + 'static> Engine<C> {
    /// A relay connection introduced itself.
    pub(in crate::engine) fn on_hello(&self, client: u64, hello: &ClientHello) {
        if hello.probe {
            // `tabwire doctor` only checks that the browser answers: not an agent.
            return;
        }
        let name_before = self
            .sharing
            .borrow()
            .agent(&hello.session)
            .map(|a| a.name.clone());
        let now = self.chrome.now_ms();
        let greeting = self.sharing.borrow_mut().hello(client, hello, now);
        let renamed = name_before.is_some_and(|before| {
            let sharing = self.sharing.borrow();
            sharing
                .agent(&hello.session)
                .is_some_and(|a| a.name != before)
        });
        match greeting {
            Greeting::Conflict => {
                return self.chrome.log(&format!(
                    "tabwire: ignored a hello from relay client {client} for another session \
                     than the one it introduced first"
                ))
            }
            Greeting::Revoked => self.post_to(
                client,
                Event::Revoked {
                    reason: REVOKED_BY_USER.to_owned(),
                },
            ),
            Greeting::New => {
                let auto_share = self.settings.borrow().auto_share;
                if auto_share && !self.sharing.borrow().agent_profile() {
                    let session = hello.session.clone();
                    self.in_background(|engine| async move {
                        engine.auto_share(&session).await;
                    });
                }
            }
            Greeting::Returning if renamed => {
                let session = hello.session.clone();
                self.in_background(|engine| async move {
                    engine.restyle_groups(&session).await;
                });
            }
            Greeting::Returning => {}
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

    /// Renames an agent's groups after it told its real name.
    async fn restyle_groups(&self, session: &str) {
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
}

#[cfg(test)]
mod tests {
    use super::GRACE_MS;
    use crate::engine::fake::Harness;
    use serde_json::json;

    #[test]
    fn auto_share_gives_a_new_agent_the_users_tab() {
        let mut h = Harness::strict();
        let save = json!({"action": "saveSettings", "autoShare": true, "idleDetachSeconds": 0, "blocklist": ""});
        assert_eq!(h.popup(save), Ok(()));
        h.hello(1, "k1", "claude");
        assert!(h.engine.sharing.borrow().may_use("k1", 10));
        assert!(!h.engine.sharing.borrow().may_use("k1", 11));
        h.engine.sharing.borrow_mut().unshare("k1", 10);
        h.hello(1, "k1", "claude-code");
        assert!(
            !h.engine.sharing.borrow().may_use("k1", 10),
            "only on the first hello"
        );
    }

    #[test]
    fn a_diagnostic_probe_is_not_an_agent() {
        let mut h = Harness::strict();
        let save = json!({"action": "saveSettings", "autoShare": true, "idleDetachSeconds": 0, "blocklist": ""});
        assert_eq!(h.popup(save), Ok(()));
        let probe = json!({"client": 4, "body": {"hello": {"clientName": "tabwire doctor",
            "version": "0", "session": "d1", "probe": true}}});
        h.engine.on_port_message(&probe.to_string());
        h.settle();
        assert!(h.engine.sharing.borrow().agents().is_empty(), "not listed");
        assert!(
            h.engine.sharing.borrow().sharers(10).is_empty(),
            "given nothing"
        );
    }

    #[test]
    fn auto_share_is_off_by_default() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        assert!(h.engine.sharing.borrow().sharers(10).is_empty());
    }

    #[test]
    fn a_new_name_renames_the_agents_groups() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "tabwire");
        h.share("k1", 10);
        h.hello(1, "k1", "claude-code");
        let group = h.fake.group_of(10).unwrap();
        assert_eq!(h.fake.group_style(group).unwrap().0, "claude-code");
        assert!(h.fake.badge(10).unwrap().1.contains("claude-code"));
    }

    #[test]
    fn an_agent_that_leaves_loses_its_shares_at_once() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.share("k1", 10);
        h.gone(1);
        assert!(h.engine.sharing.borrow().sharers(10).is_empty());
        assert_eq!(h.fake.group_of(10), None);
    }

    #[test]
    fn after_the_port_drops_agents_have_a_grace_period_to_come_back() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.hello(2, "k2", "codex");
        h.share("k1", 10);
        h.share("k2", 11);
        h.engine.on_port_disconnected(None);
        h.settle();
        h.advance(GRACE_MS / 2);
        h.hello(7, "k1", "claude");
        h.advance(GRACE_MS / 2);
        assert!(
            h.engine.sharing.borrow().may_use("k1", 10),
            "came back in time"
        );
        assert!(h.engine.sharing.borrow().agent("k2").is_none(), "did not");
        assert_eq!(h.fake.group_of(11), None);
    }

    #[test]
    fn a_connection_keeps_the_session_it_introduced_first() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.hello(1, "k2", "mallory");
        assert_eq!(h.engine.sharing.borrow().caller(Some(1)), Ok("k1".into()));
        assert!(h.engine.sharing.borrow().agent("k2").is_none());
        assert!(h.fake.logs().iter().any(|l| l.contains("ignored a hello")));
    }

    #[test]
    fn agents_of_the_same_name_are_told_apart_in_groups() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.hello(2, "k2", "claude\u{0}");
        h.share("k1", 10);
        h.share("k2", 11);
        let second = h.fake.group_of(11).unwrap();
        assert_eq!(h.fake.group_style(second).unwrap().0, "claude (2)");
    }
}
