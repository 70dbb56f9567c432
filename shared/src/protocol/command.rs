//! The commands an agent's server sends to the extension, each paired with its reply.
//!
//! Every command is a request struct of its own (in [`super::requests`], one file
//! each) implementing [`Request`]: the type its reply carries, how long it may take,
//! whether it may be sent again, whether it leaves the tabs alone, and its tab. On the
//! wire they travel as one internally tagged [`Command`] (`{"command": "navigate",
//! …}`), whose variants are generated from the list at the bottom of this file, so a
//! new command is one file and one line here.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::requests::*;
use super::{Answer, TabId};

/// A command, with everything both ends need to know about it besides its fields.
pub trait Request: Into<Command> {
    /// What a successful reply carries (see [`Answer`]).
    type Reply: Answer;
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
/// any of them.
macro_rules! commands {
    ($($(#[$doc:meta])* $variant:ident($request:ident),)*) => {
        /// A command the extension carries out in the browser: one of the requests.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "command", rename_all = "camelCase")]
        pub enum Command {
            $($(#[$doc])* $variant($request),)*
        }

        $(impl From<$request> for Command {
            fn from(request: $request) -> Self {
                Command::$variant(request)
            }
        })*

        impl Command {
            /// How many kinds of command there are (tests check each is covered).
            pub const COUNT: usize = [$(stringify!($variant)),*].len();

            /// [`Request::RESENDABLE`] of the command.
            pub fn is_idempotent(&self) -> bool {
                match self {
                    $(Command::$variant(_) => <$request as Request>::RESENDABLE,)*
                }
            }

            /// [`Request::CHANGES_ANNOUNCED`] of the command.
            pub fn changes_are_announced(&self) -> bool {
                match self {
                    $(Command::$variant(_) => <$request as Request>::CHANGES_ANNOUNCED,)*
                }
            }

            /// [`Request::LEAVES_TABS_ALONE`] of the command.
            pub fn leaves_tabs_alone(&self) -> bool {
                match self {
                    $(Command::$variant(_) => <$request as Request>::LEAVES_TABS_ALONE,)*
                }
            }

            /// [`Request::tab`] of the command.
            pub fn tab_id(&self) -> Option<TabId> {
                match self {
                    $(Command::$variant(request) => request.tab(),)*
                }
            }

            /// How long to wait for the command's reply: its [`Request::timeout`] plus
            /// [`REPLY_MARGIN`].
            pub fn reply_timeout(&self) -> Duration {
                let own = match self {
                    $(Command::$variant(request) => request.timeout(),)*
                };
                own.saturating_add(REPLY_MARGIN)
            }
        }
    };
}

commands! {
    /// See [`ListTabs`].
    ListTabs(ListTabs),
    /// See [`ActivateTab`].
    ActivateTab(ActivateTab),
    /// See [`NewTab`].
    NewTab(NewTab),
    /// See [`Navigate`].
    Navigate(Navigate),
    /// See [`CloseTab`].
    CloseTab(CloseTab),
    /// See [`Evaluate`].
    Evaluate(Evaluate),
    /// See [`TakeSnapshot`].
    Snapshot(TakeSnapshot),
    /// See [`DiscoverTools`].
    DiscoverTools(DiscoverTools),
    /// See [`ExecuteTool`].
    ExecuteTool(ExecuteTool),
    /// See [`Input`].
    Input(Input),
    /// See [`WaitForText`].
    WaitForText(WaitForText),
    /// See [`HandleDialog`].
    HandleDialog(HandleDialog),
    /// See [`Screenshot`].
    Screenshot(Screenshot),
    /// See [`ListConsole`].
    ListConsole(ListConsole),
    /// See [`GetConsoleMessage`].
    ConsoleMessage(GetConsoleMessage),
    /// See [`NetworkRequests`].
    NetworkRequests(NetworkRequests),
    /// See [`GetNetworkRequest`].
    NetworkRequest(GetNetworkRequest),
    /// See [`Emulate`].
    Emulate(Emulate),
    /// See [`ResizePage`].
    ResizePage(ResizePage),
    /// See [`StartTrace`].
    StartTrace(StartTrace),
    /// See [`StopTrace`].
    StopTrace(StopTrace),
    /// See [`ReadTrace`].
    ReadTrace(ReadTrace),
    /// See [`GetCssStyles`].
    CssStyles(GetCssStyles),
    /// See [`NodeUids`].
    NodeUids(NodeUids),
    /// See [`ListWebMcpTools`].
    ListWebMcpTools(ListWebMcpTools),
    /// See [`InvokeWebMcpTool`].
    InvokeWebMcpTool(InvokeWebMcpTool),
    /// See [`GetMemoryUsage`].
    MemoryUsage(GetMemoryUsage),
    /// See [`RequestTab`].
    RequestTab(RequestTab),
}
