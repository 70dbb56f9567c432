//! The page engine: turns host messages into browser actions and browser happenings
//! into host events.
//!
//! [`Engine`] owns the extension's state and is driven entirely from outside, through
//! its `on_*` entry points, which the shell calls for native-port messages, CDP events,
//! debugger detaches and closed tabs. All it knows about one tab — its debugging
//! session, document, collectors, emulation, group, lock — is one [`tab::Tab`], so
//! closing a tab drops it and a detach resets its attachment. Each call from the host
//! runs as its own task, so a slow command on one tab never delays another; commands on
//! the same tab run one at a time (the tab's lock), whichever agent sends them — but
//! closing a tab does not wait its turn: it stops the command running there; nor do the
//! console and network reads of an attached tab, answered from what was collected.
//!
//! Every call passes the [`access`] gate first: an agent may touch only the tabs the
//! user shared with it. Under `access`: `scopes` keeps who may use which tab (plain
//! data), `share` carries a change of scope out in the browser (groups, badges,
//! releasing a tab), `agents` follows agents coming and going, `popup` is what the user
//! clicks. [`settings`] holds the user's choices, `idle_detach` lets go of tabs no
//! command used for a while, [`liveness`] keeps the native port honest, `persist`
//! survives worker restarts, `announce` tells agents' servers when the tabs they hold
//! changed.
//!
//! The engine is in two parts. Its [`core`] holds the [`Engine`] and all its state
//! (private to the core), the entry points, and every concern that is not a command:
//! the [`access`] gate, the debugger's sessions ([`session`], and the child sessions of
//! cross-site iframes, `oopif`), the document each tab shows ([`document`]: where its
//! [`uids`] come from, pinned elements, tool registry), tabwire's isolated world in each
//! frame ([`world`], where the snapshot walker keeps the uids), the collectors
//! ([`collect`]), idle detach, liveness, saving and announcing — each of the last a
//! value the engine holds, owning its state. The state the core holds for the commands
//! that read it (console and network logs, traces, WebMCP tools) is in `state`, apart
//! from both. The commands live
//! outside it, each in its own module ([`tabs`], [`navigate`], [`evaluate`],
//! [`snapshot`], [`discovery`], [`execute`], [`input`] — whose `settle` waits, after an
//! action, until the page has reacted — and the smaller ones beside them), and reach
//! the engine only through the context their handler receives ([`context::Cx`]): the
//! calling agent's call, with the steps commands share (attached, no dialog open,
//! watched, within the time limit, typed CDP commands sent while watching, the node a
//! uid names) and narrow accessors to the tab's state. A command's work is plain
//! functions taking that context; none is a method of the engine. [`elements`] moves
//! elements between uids and page objects for the commands that need it; [`axtree`]
//! turns Chrome's accessibility trees into snapshot nodes, for comparing the walker with
//! them; [`page`] holds the page-side scripts. Nothing here knows about the extension
//! platform: see `crate::shell` for that.

pub mod axtree;
mod bounded;
mod console;
mod core;
mod css;
mod dialog;
mod discovery;
mod elements;
mod emulation;
mod evaluate;
mod execute;
mod forms;
mod input;
mod keyboard;
mod memory;
mod navigate;
mod network;
mod node_uids;
pub mod page;
mod request_tab;
mod resize;
mod screenshot;
mod settings;
mod snapshot;
mod state;
mod tab;
mod tabs;
mod trace;
mod uids;
mod wait_text;
mod webmcp;

pub use self::core::{Engine, MAX_REPLY_BYTES};
pub use crate::chrome::TabChange;
pub use access::popup::PopupState;

// The core's modules, as the commands name them.
use self::core::{access, collect, context, document, liveness, session, world};

#[cfg(test)]
mod fake;

use tabwire_shared::{Command, ErrorCode, Reply, Request, WireError};

use crate::chrome::Chrome;
use crate::error::EngineError;
use context::Cx;

/// A request the engine carries out. Each one's handler sits at the end of the module
/// that implements it; [`Engine::run`], made from the one list of commands, only picks
/// the handler, and the handler's answer (the request's `Reply` type) is written as the
/// reply.
trait Handle: Request {
    /// Whether the request needs the tab's renderer, and so is refused on a tab whose
    /// renderer crashed. Those that can bring the tab back (a navigation or reload) or
    /// need none (closing or selecting it, reading what its console and network
    /// collected before the crash) say `false`.
    const NEEDS_RENDERER: bool;

    /// Carries out the request for the agent whose call `cx` is, already let through
    /// the [`access`] gate and alone on its tab.
    async fn handle<C: Chrome + 'static>(self, cx: &Cx<'_, C>) -> Result<Self::Reply, EngineError>;
}

impl<C: Chrome + 'static> Engine<C> {
    /// Runs one request's handler (unless its tab's renderer crashed and it needs it)
    /// and writes its answer as the reply.
    async fn answer<R: Handle>(&self, session: &str, request: R) -> Result<Reply, WireError> {
        self.check_not_crashed(&request)?;
        let answer = request.handle(&Cx::new(self, session)).await?;
        Reply::new(&answer).map_err(|error| {
            WireError::new(
                ErrorCode::Internal,
                format!(
                    "The extension could not write its answer as JSON ({error}). This is a \
                     tabwire bug: please report it."
                ),
            )
        })
    }
}

/// Declares [`Engine::run`] from the one list of commands
/// ([`tabwire_shared::with_commands`]), so a new command needs no line here: only its
/// [`Handle`] implementation.
macro_rules! declare_run {
    ($($module:ident { $($request:ident $(= $wire:literal)?)+ })*) => {
        impl<C: Chrome + 'static> Engine<C> {
            /// Hands the command to its request's [`Handle`] implementation, in the
            /// command's own module.
            async fn run(&self, session: &str, command: Command) -> Result<Reply, WireError> {
                match command {
                    $($(Command::$request(request) => self.answer(session, request).await,)+)*
                }
            }
        }
    };
}

tabwire_shared::with_commands!(declare_run);
