//! Whether the hops behind the link still answer while a call waits, and so which one
//! to name when it does not finish.
//!
//! A call crosses three hops: the native host (the relay this link is connected to),
//! the extension behind it, and the page. A frozen native host (stopped, or starved on
//! a loaded machine) or a stuck extension would otherwise keep a call waiting for its
//! whole reply timeout and then be blamed on the page. So, while calls are out, the
//! connection task pings the relay every [`PING_EVERY`]; the relay answers at once
//! and says whether the extension answered the relay's own last ping
//! ([`ExtensionHeard`]). A call gives up on a native host that stays silent for
//! [`SILENCE_LIMIT`] of its wait, naming it (anything arriving from the relay counts as
//! an answer). One that runs into its reply timeout names the extension if the host
//! says it does not answer, else the command (the page). The extension is given its
//! whole time: it may be busy rather than stuck (joining and running a 16 MiB request
//! on a loaded machine keeps it from answering for seconds), while the relay only
//! routes and always answers at once.
//!
//! A relay is held to pings only once it has answered one on the connection (the link
//! sends one as soon as it connects), and the extension only once the relay has said
//! it answers them: a side of a version without heartbeats is never taken for a frozen
//! one, and gets the wording of before.
//!
//! It decides; it neither sends nor waits ([`super::connection`] pings,
//! [`super::Link`] waits).

use std::time::Duration;

use tabwire_shared::ExtensionHeard;
use tokio::time::Instant;

/// How often the link pings the relay while calls are out.
pub const PING_EVERY: Duration = Duration::from_secs(1);

/// How long a hop (the native host, or the extension behind it) may stay silent while
/// a call waits before the call gives up on it and names it. A call waits at most its
/// command's own time limit plus [`tabwire_shared::REPLY_MARGIN`]; a silent hop ends it
/// sooner, [`SILENCE_LIMIT`] after the hop last answered (or after the call was sent).
/// Several pings go unanswered in that time, so a merely busy machine is not taken for
/// a frozen host.
pub const SILENCE_LIMIT: Duration = Duration::from_secs(3);

/// What the link knows of the hops behind its connection.
#[derive(Debug, Clone)]
pub(super) struct Liveness {
    /// The relay answered a ping on this connection: it is held to them.
    relay_answers: bool,
    /// When anything last came from the relay.
    heard: Instant,
    /// The relay's last word on the extension.
    extension: ExtensionHeard,
    /// Since when the relay has said, answer after answer, that the extension has not
    /// answered its ping.
    extension_silent_since: Option<Instant>,
}

/// Who was answering when a call ran into its reply timeout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Answering {
    /// Nothing can be told: the relay answers no pings (a version without them).
    Unknown,
    /// The native host answers; whether the extension does cannot be told.
    NativeHost,
    /// The native host answers, but says the extension has not answered its pings for
    /// this long: the extension is stuck (or busy, with a large message, say).
    NotExtension(Duration),
    /// The native host and the extension both answer: the command itself (the page)
    /// did not finish.
    Extension,
}

impl Liveness {
    /// A connection just made: nothing heard yet, nothing held against anyone.
    pub(super) fn connected(now: Instant) -> Self {
        Self {
            relay_answers: false,
            heard: now,
            extension: ExtensionHeard::Unknown,
            extension_silent_since: None,
        }
    }

    /// Something came from the relay at `now`.
    pub(super) fn heard(&mut self, now: Instant) {
        self.heard = now;
    }

    /// The relay answered a ping at `now`, saying `extension` of the extension.
    pub(super) fn pong(&mut self, extension: Option<ExtensionHeard>, now: Instant) {
        self.relay_answers = true;
        self.heard = now;
        let extension = extension.unwrap_or(ExtensionHeard::Unknown);
        self.extension = extension;
        if extension == ExtensionHeard::Waiting {
            self.extension_silent_since.get_or_insert(now);
        } else {
            self.extension_silent_since = None;
        }
    }

    /// Whether pings are worth sending: the relay answers them.
    pub(super) fn relay_answers(&self) -> bool {
        self.relay_answers
    }

    /// How long the native host has been silent, if that is [`SILENCE_LIMIT`] or more
    /// of a wait that began at `sent`, as of `now`.
    pub(super) fn host_silent(&self, sent: Instant, now: Instant) -> Option<Duration> {
        let since = self.heard.max(sent);
        (self.relay_answers && now >= since + SILENCE_LIMIT).then(|| now - since)
    }

    /// When [`Liveness::host_silent`] may next change its mind for a wait that began at
    /// `sent`, if it can.
    pub(super) fn next_check(&self, sent: Instant) -> Option<Instant> {
        self.relay_answers
            .then(|| self.heard.max(sent) + SILENCE_LIMIT)
    }

    /// Who answers, as of `now`, for a call that ran into its reply timeout.
    pub(super) fn answering(&self, now: Instant) -> Answering {
        match (
            self.relay_answers,
            self.extension,
            self.extension_silent_since,
        ) {
            (false, _, _) => Answering::Unknown,
            (true, _, Some(since)) => Answering::NotExtension(now - since),
            (true, ExtensionHeard::Answered | ExtensionHeard::Waiting, None) => {
                Answering::Extension
            }
            (true, _, None) => Answering::NativeHost,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: Duration = Duration::from_secs(1);

    #[tokio::test(start_paused = true)]
    async fn a_relay_is_held_to_pings_only_once_it_answered_one() {
        let start = Instant::now();
        let mut live = Liveness::connected(start);
        let later = start + SILENCE_LIMIT * 10;
        assert_eq!(live.host_silent(start, later), None, "an older relay");
        assert_eq!(live.next_check(start), None);
        assert_eq!(live.answering(later), Answering::Unknown);
        live.pong(Some(ExtensionHeard::Unknown), start);
        assert_eq!(live.answering(later), Answering::NativeHost);
        assert_eq!(live.host_silent(start, later), Some(later - start));
    }

    #[tokio::test(start_paused = true)]
    async fn a_call_gives_the_relay_the_limit_from_when_it_was_sent() {
        let start = Instant::now();
        let mut live = Liveness::connected(start);
        live.pong(Some(ExtensionHeard::Answered), start);
        // Sent long after the relay last spoke (an idle connection).
        let sent = start + 60 * SECOND;
        assert_eq!(live.next_check(sent), Some(sent + SILENCE_LIMIT));
        assert_eq!(live.host_silent(sent, sent + SILENCE_LIMIT - SECOND), None);
        live.heard(sent + SECOND);
        assert_eq!(live.host_silent(sent, sent + SILENCE_LIMIT), None);
        assert_eq!(live.next_check(sent), Some(sent + SECOND + SILENCE_LIMIT));
        let at = sent + SECOND + SILENCE_LIMIT;
        assert_eq!(live.host_silent(sent, at), Some(SILENCE_LIMIT));
    }

    #[tokio::test(start_paused = true)]
    async fn an_extension_the_relay_keeps_waiting_for_is_named_at_the_timeout() {
        let start = Instant::now();
        let mut live = Liveness::connected(start);
        live.pong(Some(ExtensionHeard::Answered), start);
        assert_eq!(live.answering(start), Answering::Extension);
        for s in 1..5 {
            live.pong(Some(ExtensionHeard::Waiting), start + s * SECOND);
        }
        let now = start + 5 * SECOND;
        assert_eq!(live.host_silent(start, now), None, "the host answers");
        assert_eq!(live.answering(now), Answering::NotExtension(4 * SECOND));
        // An answer clears it.
        live.pong(Some(ExtensionHeard::Answered), now);
        assert_eq!(live.answering(now), Answering::Extension);
    }
}
