//! The gate, tried with every command that names a tab, and the blocklist.

use crate::engine::fake::{commands, Harness};
use serde_json::json;
use tabwire_shared::{requests::*, Command, ErrorCode, Navigation};

/// One command of every kind that names a tab ([`tabwire_shared::sample_commands`]),
/// on `tab_id`.
fn every_tab_command(tab_id: i64) -> Vec<Command> {
    tabwire_shared::sample_commands()
        .into_iter()
        .filter(|command| command.tab_id().is_some())
        .map(|command| {
            let mut wire = serde_json::to_value(&command).unwrap();
            wire["tabId"] = json!(tab_id);
            let moved: Command = serde_json::from_value(wire).unwrap();
            assert_eq!(moved.tab_id(), Some(tab_id), "{command:?}");
            moved
        })
        .collect()
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
