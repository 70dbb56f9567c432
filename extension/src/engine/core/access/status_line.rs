//! The popup's top line: is tabwire's native host connected, and how many agents are,
//! in words and in a tone the popup colours ("Host connected · 2 agents", green).
//!
//! The line is the first thing a user reads, so it states the chain's state in one
//! phrase; why the host is not connected and what to run is the line below it
//! ([`Liveness::not_connected_why`](crate::engine::liveness::Liveness::not_connected_why)).

use serde::Serialize;

use crate::engine::liveness::Liveness;

/// How the status line is coloured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Tone {
    /// The host is connected and agents are: tabwire is in use (green).
    Ok,
    /// Nothing is wrong and nothing is in use: no agent, or still connecting (grey).
    Idle,
    /// The host is not connected: agents cannot reach the browser (red).
    Down,
}

/// The popup's top line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusLine {
    /// What it says.
    pub words: String,
    /// How it is coloured.
    pub tone: Tone,
}

/// Where the link to the native host stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Host {
    /// It answers heartbeats.
    Connected,
    /// The first connection is under way: nothing has failed yet.
    Connecting,
    /// It is not there, or stopped answering.
    Down,
}

impl From<&Liveness> for Host {
    fn from(live: &Liveness) -> Host {
        if live.connected() {
            Host::Connected
        } else if live.last_drop.is_none() {
            Host::Connecting
        } else {
            Host::Down
        }
    }
}

/// The status line for the host's state and the number of connected agents.
pub fn status_line(host: Host, agents: usize) -> StatusLine {
    match host {
        Host::Connected => StatusLine {
            words: format!("Host connected · {}", agent_count(agents)),
            tone: if agents > 0 { Tone::Ok } else { Tone::Idle },
        },
        Host::Connecting => StatusLine {
            words: "Connecting to the host…".to_owned(),
            tone: Tone::Idle,
        },
        Host::Down => StatusLine {
            words: "Host not connected".to_owned(),
            tone: Tone::Down,
        },
    }
}

fn agent_count(agents: usize) -> String {
    match agents {
        0 => "no agent".to_owned(),
        1 => "1 agent".to_owned(),
        n => format!("{n} agents"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn says_the_host_and_the_agents_in_words_and_tone() {
        let line = status_line(Host::Connected, 2);
        assert_eq!(line.words, "Host connected · 2 agents");
        assert_eq!(line.tone, Tone::Ok);
        assert_eq!(
            status_line(Host::Connected, 1).words,
            "Host connected · 1 agent"
        );
        let alone = status_line(Host::Connected, 0);
        assert_eq!(alone.words, "Host connected · no agent");
        assert_eq!(alone.tone, Tone::Idle);
        assert_eq!(status_line(Host::Connecting, 3).tone, Tone::Idle);
        let down = status_line(Host::Down, 3);
        assert_eq!(down.words, "Host not connected");
        assert_eq!(down.tone, Tone::Down);
    }
}
