//! Agents coming and going: hellos, departures, the native port dropping.
//!
//! A hello maps a relay connection onto its agent's session; the first hello of a
//! session may share the user's tab at once (the auto-share setting). `ClientGone`
//! means the agent's server really left: its shares end at once. When the whole port
//! drops (the native host restarting) every agent is kept for [`GRACE_MS`], so those
//! that reconnect with their session key find their tabs again; the others' shares end
//! then.
//!
//! What a hello means is decided here ([`greet`]); the engine (`access/mod.rs`)
//! carries it out, and runs the departures and the grace timer.

use std::cell::RefCell;

use tabwire_shared::{ClientHello, Event};

use super::scopes::{Greeting, Sharing};
use crate::engine::settings::Settings;

/// What an agent's server hears when the user disconnects it (or it comes back after).
const REVOKED_BY_USER: &str =
    "The user disconnected this agent from the browser in tabwire's popup.";

/// How long agents keep their shares after the native port dropped.
pub const GRACE_MS: u64 = 60_000;

/// The event that tells an agent's server the user disconnected it.
pub(in crate::engine) fn revoked() -> Event {
    Event::Revoked {
        reason: REVOKED_BY_USER.to_owned(),
    }
}

/// What the engine does about a hello, beyond telling everyone the scopes changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::engine) enum Welcome {
    /// `tabwire doctor` checking that the browser answers: not an agent, nothing to do.
    Probe,
    /// The connection introduced another session before: ignored, and logged.
    Conflict,
    /// The user disconnected this agent: its server is told so.
    Revoked,
    /// A new agent, to be given the user's tab (auto-share).
    AutoShare(String),
    /// A known agent that told a new name: its groups are renamed.
    Renamed(String),
    /// Nothing more.
    Plain,
}

/// Records the hello of relay connection `client` in `sharing`, at `now_ms`, and
/// decides what it calls for.
pub(in crate::engine) fn greet(
    sharing: &RefCell<Sharing>,
    settings: &Settings,
    client: u64,
    hello: &ClientHello,
    now_ms: u64,
) -> Welcome {
    if hello.probe {
        return Welcome::Probe;
    }
    let name_before = sharing
        .borrow()
        .agent(&hello.session)
        .map(|a| a.name.clone());
    let greeting = sharing.borrow_mut().hello(client, hello, now_ms);
    let renamed = name_before.is_some_and(|before| {
        let sharing = sharing.borrow();
        sharing
            .agent(&hello.session)
            .is_some_and(|a| a.name != before)
    });
    match greeting {
        Greeting::Conflict => Welcome::Conflict,
        Greeting::Revoked => Welcome::Revoked,
        Greeting::New if settings.auto_share && !sharing.borrow().agent_profile() => {
            Welcome::AutoShare(hello.session.clone())
        }
        Greeting::New => Welcome::Plain,
        Greeting::Returning if renamed => Welcome::Renamed(hello.session.clone()),
        Greeting::Returning => Welcome::Plain,
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
