//! Detaching from tabs an agent stopped using.
//!
//! While attached, Chrome shows its "is debugging this browser" bar; in the user's own
//! browser tabwire lets go of a tab after `idleDetachSeconds` without a command on it
//! (one timer per tab, re-armed by every command). What the user would lose is kept:
//! the console and network collectors and the emulation come back with the next
//! command's attach, and so do the uids of a page that did not change meanwhile (they
//! name nodes by backend id). The third-party tool registry lives in page objects that
//! die with the session: the next call discovers the tools again.
//!
//! [`Idle`] keeps the timers and decides what each does next ([`Idle::next`]); the
//! engine runs them, as they need the engine itself to detach.

use std::collections::HashMap;

use tabwire_shared::TabId;

use super::access::scopes::Sharing;
use super::settings::Settings;

/// Which tabs have a timer running (when each was last used is the tab's
/// [`last_used`](super::tab::Tab::last_used)).
#[derive(Debug, Default)]
pub(super) struct Idle {
    /// The tabs with a timer, and the generation of timers it belongs to.
    armed: HashMap<TabId, u64>,
    /// Bumped when the delay changes: timers of an older generation (asleep for the
    /// old delay) stop when they wake, and new ones take over.
    generation: u64,
}

/// What a tab's idle timer does next.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Next {
    /// Nothing more: the delay changed, the tab is gone, or idle detach is off.
    Stop,
    /// Sleep this many milliseconds and look again.
    Sleep(u64),
    /// The tab went unused for the whole delay: let it go.
    Detach,
}

impl Idle {
    /// `tab` was used: the generation of a timer to start for it, unless it has one in
    /// the current generation already.
    pub(super) fn arm(&mut self, tab: TabId) -> Option<u64> {
        let generation = self.generation;
        (self.armed.insert(tab, generation) != Some(generation)).then_some(generation)
    }

    /// The timer of `generation` on `tab` stopped.
    pub(super) fn stopped(&mut self, tab: TabId, generation: u64) {
        if self.armed.get(&tab) == Some(&generation) {
            self.armed.remove(&tab);
        }
    }

    /// The delay changed: the running timers stop when they wake.
    pub(super) fn new_delay(&mut self) {
        self.generation += 1;
    }

    /// What the timer of `generation` does next, under a delay of `limit_ms`, for a
    /// tab last used at `last_used` (`None`: gone, or let go already), now `now_ms`,
    /// `busy` while a command runs (or waits) on it, or a trace records it.
    pub(super) fn next(
        &self,
        generation: u64,
        limit_ms: u64,
        last_used: Option<u64>,
        now_ms: u64,
        busy: bool,
    ) -> Next {
        if self.generation != generation {
            return Next::Stop;
        }
        let Some(last) = last_used else {
            return Next::Stop;
        };
        if limit_ms == 0 {
            return Next::Stop;
        }
        let due = last.saturating_add(limit_ms);
        if now_ms < due {
            return Next::Sleep(due - now_ms);
        }
        if busy {
            // The command pushes the time back when it ends.
            return Next::Sleep(limit_ms);
        }
        Next::Detach
    }
}

/// The idle delay in milliseconds (0: never let go), as the user's settings say for
/// this kind of browser.
pub(super) fn limit_ms(settings: &Settings, sharing: &Sharing) -> u64 {
    let seconds = settings.idle_detach_seconds(sharing.agent_profile());
    seconds.saturating_mul(1000)
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
        assert!(h.engine.tabs.with_collectors(10, |_| ()).is_some());
        h.call(3, commands::list_console(10));
        h.settle();
        assert!(h.fake.is_attached(10), "the next command re-attaches");
        let reply = format!("{:?}", h.reply(3).unwrap());
        assert!(reply.contains("hi"), "{reply}");
    }

    #[test]
    fn a_timer_sleeps_until_due_waits_out_a_busy_tab_and_stops_on_a_new_delay() {
        use super::{Idle, Next};
        let mut idle = Idle::default();
        let generation = idle.arm(10).unwrap();
        assert_eq!(idle.arm(10), None, "one timer a tab");
        assert_eq!(
            idle.next(generation, 100, Some(50), 60, false),
            Next::Sleep(90)
        );
        assert_eq!(
            idle.next(generation, 100, Some(50), 150, true),
            Next::Sleep(100)
        );
        assert_eq!(
            idle.next(generation, 100, Some(50), 150, false),
            Next::Detach
        );
        assert_eq!(idle.next(generation, 100, None, 150, false), Next::Stop);
        idle.new_delay();
        assert_eq!(idle.next(generation, 100, Some(50), 150, false), Next::Stop);
        assert!(idle.arm(10).is_some(), "the new delay's timer");
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
