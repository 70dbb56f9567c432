//! The commands an agent's server sends to the extension, each paired with its reply.
//!
//! Every command is a request struct of its own (in [`super::requests`], one file
//! each, or one file for a few that belong together) implementing [`Request`]: the
//! type its reply carries, how long it may take, whether it may be sent again, whether
//! it leaves the tabs alone, and its tab. On the wire they travel as one internally
//! tagged [`Command`] (`{"command": "navigate", …}`); a reply carries the request's
//! own reply type ([`super::Reply`]).
//!
//! The one list of commands is [`with_commands!`](crate::with_commands), at the bottom
//! of this file. Everything made per command is made from it: the `requests` modules,
//! [`Command`] and its methods here, the extension's dispatch, and the test of each
//! request's golden JSON (which its own file holds). So a new command is its own file
//! and one line in that list.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use serde::de::DeserializeOwned;

use super::requests::*;
use super::TabId;

/// A command, with everything both ends need to know about it besides its fields.
pub trait Request: Into<Command> {
    /// What a successful reply carries. It travels as its own JSON ([`super::Reply`]),
    /// so its serde shape is part of the wire (pinned in the request's own file, checked
    /// by `golden.rs`).
    type Reply: Serialize + DeserializeOwned;
    /// Running the command twice does no harm, so it may be sent again when the
    /// connection dropped before its reply came (it may or may not have run).
    const RESENDABLE: bool;
    /// The command only reads, so the tabs (their list, titles, URLs and documents) are
    /// as they were before it. Anything else may change them: a script or tool can
    /// retitle a page or open a window, input can navigate.
    const LEAVES_TABS_ALONE: bool;
    /// A change to the command's answer is announced by an event
    /// ([`TabsChanged`](super::Event::TabsChanged),
    /// [`ConsoleChanged`](super::Event::ConsoleChanged)) before any later reply, so an
    /// agent's server may answer it again from memory until it hears one.
    const CHANGES_ANNOUNCED: bool = false;
    /// The tab the command acts on, if it acts on one.
    fn tab(&self) -> Option<TabId>;
    /// How long the command may take in the browser: its own time limit, or a fixed
    /// one for commands without.
    fn timeout(&self) -> Duration;
}

/// Room for the trip to the browser and back, on top of a command's own time.
pub const REPLY_MARGIN: Duration = Duration::from_secs(5);

/// The fixed time limit of a plain browser call (tabs, dialogs, collected data).
pub const PLAIN_CALL: Duration = Duration::from_secs(10);

/// The fixed time limit of a capture (snapshot, screenshot): large pages take a while.
pub const CAPTURE: Duration = Duration::from_secs(30);

/// Declares [`Command`] with one newtype variant per request, and what it answers for
/// any of them (called back by [`with_commands!`](crate::with_commands)).
macro_rules! declare_command {
    ($($module:ident { $($request:ident $(= $wire:literal)?)+ })*) => {
        /// A command the extension carries out in the browser: one of the requests.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "command", rename_all = "camelCase")]
        pub enum Command {
            $($(
                #[doc = concat!("See [`", stringify!($request), "`].")]
                $(#[serde(rename = $wire)])?
                $request($request),
            )+)*
        }

        $($(impl From<$request> for Command {
            fn from(request: $request) -> Self {
                Command::$request(request)
            }
        })+)*

        impl Command {
            /// How many kinds of command there are (tests check each is covered).
            pub const COUNT: usize = [$($(stringify!($request)),+),*].len();

            /// Its name on the wire (`"command"`), as errors and logs name it.
            pub fn name(&self) -> String {
                match self {
                    $($(Command::$request(_) => wire_name(stringify!($request), &[$($wire)?]),)+)*
                }
            }

            /// [`Request::RESENDABLE`] of the command.
            pub fn is_idempotent(&self) -> bool {
                match self {
                    $($(Command::$request(_) => <$request as Request>::RESENDABLE,)+)*
                }
            }

            /// [`Request::CHANGES_ANNOUNCED`] of the command.
            pub fn changes_are_announced(&self) -> bool {
                match self {
                    $($(Command::$request(_) => <$request as Request>::CHANGES_ANNOUNCED,)+)*
                }
            }

            /// [`Request::LEAVES_TABS_ALONE`] of the command.
            pub fn leaves_tabs_alone(&self) -> bool {
                match self {
                    $($(Command::$request(_) => <$request as Request>::LEAVES_TABS_ALONE,)+)*
                }
            }

            /// [`Request::tab`] of the command.
            pub fn tab_id(&self) -> Option<TabId> {
                match self {
                    $($(Command::$request(request) => request.tab(),)+)*
                }
            }

            /// How long to wait for the command's reply: its [`Request::timeout`] plus
            /// [`REPLY_MARGIN`].
            pub fn reply_timeout(&self) -> Duration {
                let own = match self {
                    $($(Command::$request(request) => request.timeout(),)+)*
                };
                own.saturating_add(REPLY_MARGIN)
            }
        }
    };
}

crate::with_commands!(declare_command);

/// A command's name on the wire: the one the list gives, else its request's name in
/// camelCase (as serde writes the variant).
fn wire_name(request: &str, given: &[&str]) -> String {
    if let Some(given) = given.first() {
        return (*given).to_owned();
    }
    let mut chars = request.chars();
    match chars.next() {
        Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

/// The one list of commands: calls the macro `$callback` with it, so that each thing
/// made per command (the `requests` modules, [`Command`], the extension's dispatch, the
/// test of each request's golden JSON) is made from this list and none can miss a
/// command.
///
/// Each line is a file of `protocol/requests/` and the requests declared in it. A
/// request's [`Command`] variant has its name; the wire's `"command"` is that name in
/// camelCase, or the one given after `=` (names older than the request's). `$callback`
/// receives `$($module:ident { $($request:ident $(= $wire:literal)?)+ })*`; the request
/// names are plain identifiers, so its expansion needs them in scope (`use
/// tabwire_shared::requests::*`) when it names them.
#[macro_export]
macro_rules! with_commands {
    ($callback:ident) => {
        $callback! {
            list_tabs { ListTabs }
            activate_tab { ActivateTab }
            new_tab { NewTab }
            navigate { Navigate }
            close_tab { CloseTab }
            evaluate { Evaluate }
            snapshot { TakeSnapshot = "snapshot" }
            discover_tools { DiscoverThirdPartyTools = "discoverTools" }
            execute_tool { RunThirdPartyTool = "executeTool" }
            input { Input }
            wait_for_text { WaitForText }
            handle_dialog { HandleDialog }
            screenshot { Screenshot }
            list_console { ListConsole }
            console_message { GetConsoleMessage = "consoleMessage" }
            network_requests { NetworkRequests }
            network_request { GetNetworkRequest = "networkRequest" }
            emulate { Emulate }
            resize_page { ResizePage }
            trace { StartTrace StopTrace ReadTrace }
            css_styles { GetCssStyles = "cssStyles" }
            node_uids { NodeUids }
            webmcp { ListWebMcpTools InvokeWebMcpTool }
            memory_usage { GetMemoryUsage = "memoryUsage" }
            request_tab { RequestTab }
        }
    };
}
