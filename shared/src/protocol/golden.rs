//! The JSON of every command and reply, pinned beside its request: each request's file
//! implements [`Golden`] with its command and its reply as they travel, and the test
//! here, made from the one list of commands ([`with_commands!`](crate::with_commands)),
//! checks every request's own lines. Each command line must read into [`Command`], as
//! that request, and write back byte for byte, and each reply line must read into the
//! request's reply type and write back byte for byte, so a change to how the protocol
//! is typed in Rust cannot change what travels between the host and the extension.
//!
//! A request without lines does not build ([`Golden`] is not implemented), and one
//! with an empty list fails the test naming it. What is not a request's (envelopes
//! alone, events, heartbeats, pieces) is pinned in `shared/tests/wire.rs`.
//!
//! The lines are no test's alone: [`sample_commands`] gives other crates' tests one
//! command of every kind (the extension's access check tries each), so those tests
//! cover a new command with no line of their own. Constants nothing calls take no room
//! in a binary.

use super::requests::*;
use super::{Command, Request};

/// A request's JSON on the wire, pinned: written once, in its own file.
pub trait Golden: Request {
    /// Its command as it travels (`{"command": …}`), with each optional field both
    /// present and absent somewhere. The first is its sample ([`sample_commands`]).
    const COMMANDS: &[&str];
    /// Its reply as it travels: the JSON of its reply type (`null` for `()`), with each
    /// optional field both present and absent somewhere.
    const REPLIES: &[&str];
}

/// Declares [`sample_commands`] and the test of every request's lines, from the one
/// list of commands.
macro_rules! declare_golden {
    ($($module:ident { $($request:ident $(= $wire:literal)?)+ })*) => {
        /// One command of every kind, in the list's order: each request's first golden
        /// command, for tests that must try every command. Every command naming a tab
        /// names tab 3.
        pub fn sample_commands() -> Vec<Command> {
            vec![$($(sample::<$request>(stringify!($request)),)+)*]
        }

        #[cfg(test)]
        #[test]
        fn every_command_and_reply_keeps_its_json() {
            $($(
                tests::check::<$request>(stringify!($request), |command| {
                    matches!(command, Command::$request(_))
                });
            )+)*
        }
    };
}

crate::with_commands!(declare_golden);

/// The first golden command of the request `name` (`R`).
fn sample<R: Golden>(name: &str) -> Command {
    let golden = R::COMMANDS
        .first()
        .unwrap_or_else(|| panic!("{name} has no golden command"));
    serde_json::from_str(golden).unwrap_or_else(|e| panic!("{golden}: {e}"))
}

#[cfg(test)]
mod tests {
    use serde::de::DeserializeOwned;
    use serde::Serialize;

    use super::Golden;
    use crate::protocol::{Command, Envelope, FromExtension, Request, ToExtension};

    /// Reads `golden` as a `T` and checks it writes back byte for byte; the value read.
    fn round_trip<T: Serialize + DeserializeOwned>(golden: &str) -> T {
        let typed: T = serde_json::from_str(golden).unwrap_or_else(|e| panic!("{golden}: {e}"));
        let again = serde_json::to_string(&typed).unwrap();
        assert_eq!(again, golden);
        typed
    }

    /// Checks the lines of the request `name` (`R`): `is_it` says whether a command is
    /// one of `R`.
    pub(super) fn check<R: Golden>(name: &str, is_it: fn(&Command) -> bool) {
        assert!(!R::COMMANDS.is_empty(), "{name} has no golden command");
        assert!(!R::REPLIES.is_empty(), "{name} has no golden reply");
        for golden in R::COMMANDS {
            let command = round_trip::<Command>(golden);
            assert!(is_it(&command), "{golden} is no {name}");
            let wire: serde_json::Value = serde_json::from_str(golden).unwrap();
            assert_eq!(
                command.name(),
                wire["command"].as_str().unwrap(),
                "{golden}"
            );
            // And inside the envelope the relay forwards.
            round_trip::<Envelope<ToExtension>>(&format!(
                r#"{{"id":9,"body":{{"call":{golden}}}}}"#
            ));
        }
        for golden in R::REPLIES {
            round_trip::<<R as Request>::Reply>(golden);
            // And inside the envelope the relay forwards, as the text it is.
            round_trip::<Envelope<FromExtension>>(&format!(
                r#"{{"id":9,"client":2,"body":{{"reply":{{"Ok":{golden}}}}}}}"#
            ));
        }
    }

    #[test]
    fn there_is_a_sample_of_every_command_and_each_names_tab_3_if_any() {
        let samples = super::sample_commands();
        assert_eq!(samples.len(), Command::COUNT);
        for sample in samples {
            assert!(matches!(sample.tab_id(), None | Some(3)), "{sample:?}");
        }
    }
}
