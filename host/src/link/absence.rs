//! Why no browser is connected, and so how long a call waits for one.
//!
//! The link keeps the last thing it learnt about the browser going away:
//! - the native host's goodbye says the browser **quit**: nothing comes back until
//!   someone starts it, so calls fail at once while no native host is up (one that
//!   is, a browser starting, gets the caller's usual wait);
//! - it says the browser **still runs** (the extension's service worker stopped, or
//!   the extension was reloaded): the extension reconnects when its worker starts
//!   again, within a second or two (its offscreen waker starts it), so calls wait up
//!   to [`RECONNECT_GRACE`] after the goodbye — a pause, not a failure; an extension
//!   that is not back by then will not be soon (its process was killed, or it was
//!   disabled), and the call says so rather than wait on. An older host
//!   that gives no cause is treated the same way, and so is the host's first word
//!   (undecided yet), which its second replaces within seconds;
//! - the connection to the host ended **without a goodbye** (it was killed, or
//!   crashed): if the browser still runs, the extension starts a new host within a
//!   second or so; calls wait the caller's usual wait, counted from the loss;
//! - **never seen** one: the caller's usual wait, on every call (the user may be
//!   starting the browser right now).
//!
//! It decides and words; it does not wait ([`super::Link`] does).

use std::time::Duration;

use tabwire_shared::sharing::HOW_TO_SHARE;
use tabwire_shared::Departure;
use tokio::time::Instant;

/// How long after a goodbye that says the browser still runs a call waits for the
/// extension to come back: a stopped worker is back within a second or two (within 5 s
/// on a loaded machine, as `tests/e2e/faults.rs` checks), one whose whole process was
/// killed never until the user reloads it. (Without its waker, which only a browser
/// that refuses offscreen documents lacks, a worker waits for its 30 s alarm: the
/// calls in that window are told, and the next call after it works.)
pub const RECONNECT_GRACE: Duration = Duration::from_secs(15);

/// Why no browser is connected, as far as the link knows.
#[derive(Debug, Clone, PartialEq)]
pub enum Absence {
    /// None has connected through this link yet.
    NeverSeen,
    /// The native host said goodbye at `at`, saying why (`cause`).
    Left {
        /// Whether the browser quit or still runs.
        cause: Departure,
        /// When the goodbye came.
        at: Instant,
    },
    /// The connection to the native host ended at `at` without a goodbye.
    Vanished {
        /// When it ended.
        at: Instant,
    },
}

impl Absence {
    /// Until when a call that started at `started` waits for a browser. `base` is the
    /// caller's usual wait; `relay_up` says a native host is up whose browser has not
    /// said hello yet (it is starting).
    pub fn deadline(&self, started: Instant, base: Duration, relay_up: bool) -> Instant {
        let usual = started + base;
        let known = match self {
            Absence::NeverSeen => usual,
            Absence::Left {
                cause: Departure::BrowserQuit,
                ..
            } => started,
            Absence::Left { at, .. } => usual.max(*at + RECONNECT_GRACE),
            Absence::Vanished { at } => started.max(*at + base),
        };
        if relay_up {
            known.max(usual)
        } else {
            known
        }
    }

    /// What is known, for the agent: a sentence to add to "No browser is connected",
    /// or `None` when nothing is.
    pub fn explain(&self, last_word: Option<&str>, now: Instant) -> Option<String> {
        match self {
            Absence::NeverSeen => last_word.map(|w| format!("last word from tabwire's relay: {w}")),
            Absence::Left {
                cause: Departure::BrowserQuit,
                at,
            } => Some(format!(
                "the browser quit {} ago. Ask the user to start it again; its tabs then have new \
                 ids and nothing is shared with this agent until the user shares a tab again \
                 ({HOW_TO_SHARE})",
                ago(now, *at)
            )),
            Absence::Left {
                cause: Departure::BrowserRunning,
                at,
            } => Some(format!(
                "{} ago the browser closed tabwire's connection while it kept running (the \
                 extension's service worker stopped, or the extension was reloaded or disabled), \
                 and the extension has not reconnected since. A stopped worker is normally back \
                 within seconds: if the extension's process crashed or was killed, Chrome does \
                 not start it again until the user reloads tabwire at chrome://extensions (or \
                 restarts the browser); tabs must then be shared again",
                ago(now, *at)
            )),
            Absence::Left {
                cause: Departure::Undecided,
                at,
            } => Some(format!(
                "{} ago the browser closed tabwire's connection, and tabwire's native host has \
                 not said whether the browser quit",
                ago(now, *at)
            )),
            Absence::Left {
                cause: Departure::Unknown,
                at,
            } => Some(format!(
                "{} ago tabwire's relay said: {}",
                ago(now, *at),
                last_word.unwrap_or("the browser disconnected")
            )),
            Absence::Vanished { at } => Some(format!(
                "tabwire's native host stopped {} ago without a goodbye (it was killed, or \
                 crashed), and no new one has started: the browser starts one when its tabwire \
                 extension reconnects",
                ago(now, *at)
            )),
        }
    }
}

/// `then` as seen from `now`, in words: `3 s`, `2 min`.
fn ago(now: Instant, then: Instant) -> String {
    let secs = now.saturating_duration_since(then).as_secs();
    if secs < 120 {
        format!("{secs} s")
    } else {
        format!("{} min", secs / 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: Duration = Duration::from_secs(5);

    fn left(cause: Departure, at: Instant) -> Absence {
        Absence::Left { cause, at }
    }

    #[tokio::test(start_paused = true)]
    async fn after_the_browser_quit_a_call_does_not_wait() {
        let now = Instant::now();
        let quit = left(Departure::BrowserQuit, now);
        assert_eq!(quit.deadline(now, BASE, false), now);
        let later = now + Duration::from_secs(30);
        assert_eq!(quit.deadline(later, BASE, false), later);
    }

    #[tokio::test(start_paused = true)]
    async fn after_the_browser_quit_a_starting_native_host_gets_the_usual_wait() {
        let now = Instant::now();
        let quit = left(Departure::BrowserQuit, now);
        assert_eq!(quit.deadline(now, BASE, true), now + BASE);
    }

    #[tokio::test(start_paused = true)]
    async fn a_browser_that_still_runs_gets_the_reconnect_grace_from_its_goodbye() {
        let at = Instant::now();
        let running = left(Departure::BrowserRunning, at);
        assert_eq!(running.deadline(at, BASE, false), at + RECONNECT_GRACE);
        let later = at + Duration::from_secs(38);
        assert_eq!(running.deadline(later, BASE, false), later + BASE);
        // An older host that gives no cause is given the same benefit of the doubt.
        let unknown = left(Departure::Unknown, at);
        assert_eq!(unknown.deadline(at, BASE, false), at + RECONNECT_GRACE);
    }

    #[tokio::test(start_paused = true)]
    async fn a_host_gone_without_a_goodbye_gets_the_usual_wait_from_the_loss() {
        let at = Instant::now();
        let vanished = Absence::Vanished { at };
        assert_eq!(vanished.deadline(at, BASE, false), at + BASE);
        let soon = at + Duration::from_secs(2);
        assert_eq!(vanished.deadline(soon, BASE, false), at + BASE);
        let later = at + Duration::from_secs(60);
        assert_eq!(vanished.deadline(later, BASE, false), later);
        assert_eq!(vanished.deadline(later, BASE, true), later + BASE);
    }

    #[tokio::test(start_paused = true)]
    async fn without_ever_a_browser_every_call_gets_the_usual_wait() {
        let now = Instant::now();
        assert_eq!(Absence::NeverSeen.deadline(now, BASE, false), now + BASE);
    }

    #[tokio::test(start_paused = true)]
    async fn each_absence_says_what_is_known() {
        let at = Instant::now();
        let now = at + Duration::from_secs(3);
        let said = |a: Absence| a.explain(None, now).unwrap_or_default();
        let quit = said(left(Departure::BrowserQuit, at));
        assert!(quit.starts_with("the browser quit 3 s ago"), "{quit}");
        assert!(quit.contains("shares a tab again"), "{quit}");
        let running = said(left(Departure::BrowserRunning, at));
        assert!(running.contains("kept running"), "{running}");
        let vanished = said(Absence::Vanished { at });
        assert!(vanished.contains("without a goodbye"), "{vanished}");
        assert_eq!(Absence::NeverSeen.explain(None, now), None);
        assert_eq!(
            Absence::NeverSeen.explain(Some("refused"), now).as_deref(),
            Some("last word from tabwire's relay: refused")
        );
        assert_eq!(ago(at + Duration::from_secs(300), at), "5 min");
    }
}
