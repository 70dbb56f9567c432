//! Detaching from tabs an agent stopped using.
//!
//! While attached, Chrome shows its "is debugging this browser" bar; in the user's own
//! browser tabwire lets go of a tab after `idleDetachSeconds` without a command on it
//! (one timer per tab, re-armed by every command). What the user would lose is kept:
//! the console and network collectors and the emulation come back with the next
//! command's attach, and so do the uids of a page that did not change meanwhile (they
//! name nodes by backend id). The third-party tool registry lives in page objects that
//! die with the session: the next call discovers the tools again.

use std::collections::HashMap;

use tabwire_shared::TabId;

use super::Engine;
use crate::chrome::Chrome;

/// Which tabs have a timer running (when each was last used is the tab's
/// [`last_used`](super::tab::Tab::last_used)).
#[derive(Debug, Default)]
pub struct Idle {
    /// The tabs with a timer, and the generation of timers it belongs to.
    armed: HashMap<TabId, u64>,
    /// Bumped when the delay changes: timers of an older generation (asleep for the
    /// old delay) stop when they wake, and new ones take over.
    generation: u64,
}

impl<C: Chrome + 'static> Engine<C> {
    /// A command on `tab` finished: start (or push back) its idle timer.
    pub(super) fn note_used(&self, tab: TabId) {
        if self.idle_limit_ms() == 0 {
            return;
        }
        let now = self.chrome.now_ms();
        self.tabs.write(tab, |t| t.last_used = Some(now));
        let mut idle = self.idle.borrow_mut();
        let generation = idle.generation;
        if idle.armed.insert(tab, generation) == Some(generation) {
            return;
        }
        drop(idle);
        self.in_background(move |engine| async move {
            engine.watch_idle(tab, generation).await;
            let mut idle = engine.idle.borrow_mut();
            if idle.armed.get(&tab) == Some(&generation) {
                idle.armed.remove(&tab);
            }
        });
    }

    /// The idle delay changed: every attached tab's idle time counts from now, under
    /// the new delay (a tab attached while it was 0 gets its timer only now).
    pub(super) fn rearm_idle_timers(&self) {
        self.idle.borrow_mut().generation += 1;
        let attached = self.tabs.attached();
        for tab in attached {
            self.note_used(tab);
        }
    }

    fn idle_limit_ms(&self) -> u64 {
        let agent_profile = self.sharing.borrow().agent_profile();
        let seconds = self.settings.borrow().idle_detach_seconds(agent_profile);
        seconds.saturating_mul(1000)
    }

    async fn watch_idle(&self, tab: TabId, generation: u64) {
        loop {
            if self.idle.borrow().generation != generation {
                return;
            }
            let limit = self.idle_limit_ms();
            let Some(last) = self.tabs.read(tab, |t| t.last_used).flatten() else {
                return;
            };
            if limit == 0 {
                return;
            }
            let now = self.chrome.now_ms();
            let due = last.saturating_add(limit);
            if now < due {
                self.chrome.sleep(due - now).await;
                continue;
            }
            if self.tabs.busy(tab) || self.traces.borrow().active(tab) {
                // A command runs (or waits): it pushes the time back when it ends.
                self.chrome.sleep(limit).await;
                continue;
            }
            let _tab = self.tabs.lock(tab).await;
            self.tabs.update(tab, |t| t.last_used = None);
            if self.tabs.is_attached(tab) {
                self.detach_keeping_collectors(tab).await;
                self.chrome.state_changed();
            }
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fake::{commands, Harness};
    use serde_json::json;
    use tabwire_shared::Command;

    fn evaluate() -> Command {
        commands::evaluate_one(10, 1000)
    }

    #[test]
    fn an_unused_tab_is_let_go_and_keeps_its_console() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.share("k1", 10);
        h.call(1, evaluate());
        h.settle();
        h.engine.on_cdp_event(
            10,
            "Runtime.consoleAPICalled",
            &json!({"type": "log", "args": [{"type": "string", "value": "hi"}], "timestamp": 1}),
        );
        h.advance(100_000);
        h.call(2, evaluate());
        h.settle();
        h.advance(100_000);
        assert!(
            h.fake.is_attached(10),
            "the second command pushed the timer back"
        );
        h.advance(20_000);
        assert!(!h.fake.is_attached(10));
        assert!(h.engine.with_collectors(10, |_| ()).is_some());
        h.call(3, commands::list_console(10));
        h.settle();
        assert!(h.fake.is_attached(10), "the next command re-attaches");
        let reply = format!("{:?}", h.reply(3).unwrap());
        assert!(reply.contains("hi"), "{reply}");
    }

    #[test]
    fn a_launched_browser_never_lets_go() {
        let mut h = Harness::new();
        h.call(1, evaluate());
        h.settle();
        h.advance(3_600_000);
        assert!(h.fake.is_attached(10));
    }

    #[test]
    fn turning_idle_detach_on_arms_the_attached_tabs() {
        let mut h = Harness::strict();
        let save = |seconds: u64| json!({"action": "saveSettings", "autoShare": false, "idleDetachSeconds": seconds, "blocklist": ""});
        assert_eq!(h.popup(save(0)), Ok(()));
        h.hello(1, "k1", "claude");
        h.share("k1", 10);
        h.call(1, evaluate());
        h.settle();
        h.advance(1_000_000);
        assert!(h.fake.is_attached(10), "never, while 0");
        assert_eq!(h.popup(save(30)), Ok(()));
        h.advance(29_000);
        assert!(h.fake.is_attached(10));
        h.advance(1_000);
        assert!(!h.fake.is_attached(10), "let go 30 s after the change");
    }

    #[test]
    fn a_shorter_delay_applies_at_once() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.share("k1", 10);
        h.call(1, evaluate());
        h.settle();
        let save = json!({"action": "saveSettings", "autoShare": false, "idleDetachSeconds": 1, "blocklist": ""});
        assert_eq!(h.popup(save), Ok(()));
        h.advance(1_000);
        assert!(!h.fake.is_attached(10), "not after the old 120 s");
    }
}
