//! `tabwire mcp`: the MCP server an agent talks to over stdio.
//!
//! - [`tool`]: what a tool is (a declarative spec, typed params, a handler);
//!   [`tools`] holds them, one file per category; [`registry`] lists the enabled ones.
//! - [`pipeline`]: the one path every call takes (argument checks, page resolution,
//!   per-page serialisation, dialog guard, handler, render).
//! - [`response`]: handler markers and the one renderer (text and
//!   `structuredContent` from the same data); [`render`]: how each kind of browser
//!   data reads as text; [`snapshot`]: what of a snapshot the agent is shown (a
//!   subtree, folded to a budget, the changes since the last one); [`third_party_schema`]: third-party tools' JSON Schemas and
//!   the agent's arguments checked against them.
//! - [`context`]: what handlers may touch: the browser, the agent's session, its page;
//!   [`known`]: what the session knows without asking the browser; [`runs`]: which run
//!   of the browser its tab ids belong to; [`unregistered`]: a user's browser that runs
//!   without tabwire's registration, named when no browser connects.
//! - [`server`]: the `rmcp` glue, and [`config`]: the command-line switches.
//! - [`wire`]: the stdio transport under rmcp, which answers every line that carries a
//!   readable id (even one rmcp could not read).

pub mod budget;
pub mod client_arguments;
pub mod config;
pub mod context;
pub mod filters;
pub mod generated;
pub mod known;
pub mod not_offered;
pub mod output;
pub mod page_tools;
pub mod paginate;
pub mod pipeline;
pub mod readme;
pub mod reference;
pub mod reference_flags;
pub mod registry;
pub mod response;
pub mod restrictions;
pub mod runs;
pub mod schema;
pub mod server;
pub mod snapshot;
pub mod spill;

pub mod third_party_schema;
pub mod tool;
pub mod tools;
pub mod unregistered;
pub mod wire;

use tabwire_shared::WireError;

/// A tool failure, worded for the agent: what went wrong, then what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ToolError {
    /// The text the agent reads.
    pub message: String,
    /// The kind of failure the extension (or the link to it) reported, for tools that
    /// react to it (re-discover on [`ErrorCode::StaleTools`]); `None` for a failure
    /// found on this side.
    pub code: Option<ErrorCode>,
}

impl ToolError {
    /// An error with this message, found on this side.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            code: None,
        }
    }
}

impl From<WireError> for ToolError {
    fn from(e: WireError) -> Self {
        Self {
            message: e.message,
            code: Some(e.code),
        }
    }
}

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt;
use tabwire_shared::{ClientHello, Command, ErrorCode, Reply};

use crate::launch::LaunchedBrowser;
use crate::link::Link;
use config::McpArgs;
use context::{Browser, Session, Settings, ToolContext};
use futures_util::future::BoxFuture;
use registry::Registry;
use restrictions::Restrictions;
use server::TabwireServer;
use tabwire_shared::origin::OriginPolicy;
use tool::Category;

/// How long a call waits for a browser to connect before telling the agent what to do.
const CONNECT_WAIT: Duration = Duration::from_secs(5);

/// How long a call waits for the browser tabwire launched to connect the first time:
/// it is starting up. Once it has connected, a call waits [`CONNECT_WAIT`] as any other
/// (and a worker restart the link's own grace).
const LAUNCH_WAIT: Duration = Duration::from_secs(30);

/// What calls answer once the browser tabwire launched has quit.
const LAUNCHED_BROWSER_QUIT: &str = "The browser tabwire launched (--launch) has quit, and \
tabwire does not start it again. Restart this MCP server to launch a new one: its tabs will \
have new ids, so call list_pages then.";

/// The relay link, seen by tools as the [`Browser`].
struct LinkBrowser {
    link: Link,
    /// The relay socket the link connects to.
    socket: PathBuf,
    /// How long a call waits for the browser before it has ever connected.
    first_wait: Duration,
    /// Said instead of the generic advice when the browser tabwire launched never
    /// connected (the advice about installing the extension does not apply); its
    /// presence also marks a launched browser, whose quitting is final.
    launched_but_silent: Option<String>,
}

impl Browser for LinkBrowser {
    fn call(&self, command: Command) -> BoxFuture<'_, Result<Reply, WireError>> {
        Box::pin(async move {
            let timeout = command.reply_timeout();
            let wait = match self.link.ever_connected() {
                true => CONNECT_WAIT,
                false => self.first_wait,
            };
            let error = match self.link.call(command, wait, timeout).await {
                Ok(reply) => return Ok(reply),
                Err(error) => error,
            };
            if self.launched_but_silent.is_none() {
                return Err(self.for_users_browser(error).await);
            }
            let history = History {
                ever_connected: self.link.ever_connected(),
                browser_quit: self.link.browser_quit(),
            };
            Err(for_launched(
                error,
                self.launched_but_silent.as_deref(),
                history,
            ))
        })
    }

    fn introduce(&self, client_name: &str) {
        self.link.introduce(client_name);
    }

    fn extension_version(&self) -> Option<String> {
        self.link.browser_version()
    }
}

impl LinkBrowser {
    /// A call's error in the user's browser, reworded when no browser is connected and
    /// the machine shows why: the user's browser runs without tabwire's registration.
    async fn for_users_browser(&self, error: WireError) -> WireError {
        if error.code != ErrorCode::BrowserDisconnected || self.link.browser_connected() {
            return error;
        }
        // It reads /proc and profile folders: off the runtime's threads.
        let socket = self.socket.clone();
        match tokio::task::spawn_blocking(move || unregistered::explain_current(&socket)).await {
            Ok(Some(why)) => crate::link::no_browser_because(Some(&why)),
            _ => error,
        }
    }
}

/// What the link has seen of the browser, for the wording of a launched browser's
/// errors.
#[derive(Debug, Clone, Copy)]
struct History {
    /// A browser has connected through the link at some point.
    ever_connected: bool,
    /// The native host's last word was that the browser quit.
    browser_quit: bool,
}

/// A call's error, reworded when the browser is one tabwire launched (`silent` is then
/// what to say if it never connected). Only a browser that never connected gets the
/// advice about its extension; once one has, the link's own account (the native host
/// stopped, the extension reconnects, retry) is the true one, except after the browser
/// quit, which is final for a launched browser.
fn for_launched(error: WireError, silent: Option<&str>, history: History) -> WireError {
    match silent {
        Some(silent) if error.code == ErrorCode::BrowserDisconnected && !history.ever_connected => {
            WireError::new(error.code, silent)
        }
        Some(_) if error.code == ErrorCode::BrowserDisconnected && history.browser_quit => {
            WireError::new(error.code, LAUNCHED_BROWSER_QUIT)
        }
        _ => error,
    }
}

/// Serves MCP on stdin/stdout until the agent disconnects or a signal arrives.
///
/// `launched` is the browser started for `--launch` (already running); it is stopped,
/// and its folders removed, when this returns and the caller drops it.
pub async fn run(args: McpArgs, launched: Option<&LaunchedBrowser>) -> anyhow::Result<()> {
    let socket = match launched {
        Some(browser) => browser.socket.clone(),
        None => crate::paths::socket_path()?,
    };
    let session = Arc::new(Session::default());
    let observer = session.clone();
    let link = Link::spawn_observed(
        socket.clone(),
        ClientHello {
            client_name: "agent".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            session: crate::link::new_session_key(),
            probe: false,
            folder: working_folder(),
        },
        Some(Arc::new(move |event: &tabwire_shared::Event| {
            observer.observe(event)
        })),
    );
    let browser = Arc::new(LinkBrowser {
        link,
        socket,
        first_wait: if launched.is_some() {
            LAUNCH_WAIT
        } else {
            CONNECT_WAIT
        },
        launched_but_silent: launched.map(|b| {
            format!(
                "The browser tabwire launched ({}) has not connected its tabwire extension. \
                 If it is Google Chrome 137 or later, it ignores --load-extension: launch \
                 Chromium instead (--executablePath=<path to chromium>), or install the \
                 extension in Chrome and run `tabwire mcp` without --launch. Otherwise check \
                 the browser's output with TABWIRE_LOG=debug, or run `tabwire doctor`.",
                b.executable.display()
            )
        }),
    });
    let settings = Settings {
        show_sensitive_headers: !args.redact_network_headers,
        third_party: Registry::category_enabled(&args.categories, Category::ExperimentalThirdParty)
            .then(|| OriginPolicy::new(args.third_party_origins.clone())),
        structured_content: args.experimental_structured_content,
        page_tools: args.experimental_page_tools_as_mcp_tools,
        max_result_chars: args.max_result_chars,
        restrictions: Restrictions::from_args(&args),
    };
    let registry =
        Registry::new(&args.categories).without(&settings.restrictions.tools_taken_away());
    let base = ToolContext::new(browser, session, Arc::new(settings));
    let server = TabwireServer::new(registry, base);
    let follower = server.clone();
    let (stdin, stdout) = rmcp::transport::stdio();
    let service = server
        .serve(wire::LineTransport::new(stdin, stdout))
        .await?;
    let following = tokio::spawn(follower.follow_webmcp(service.peer().clone()));
    tokio::select! {
        quit = service.waiting() => { tracing::debug!(?quit, "MCP session ended"); }
        _ = shutdown_signal() => { tracing::info!("signal received, shutting down"); }
    }
    following.abort();
    Ok(())
}

/// The folder this server was started in: agent clients start their MCP servers in
/// the project's folder, which tells two sessions of one client apart in the popup.
fn working_folder() -> Option<String> {
    let folder = std::env::current_dir().ok()?;
    Some(folder.to_string_lossy().into_owned())
}

/// Resolves on SIGINT, SIGTERM or SIGHUP (on Windows Ctrl+C, Ctrl+Break or the console
/// closing); never, if they cannot be watched.
async fn shutdown_signal() {
    crate::platform::stop_requested().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    const SILENT: &str = "has not connected its tabwire extension … --load-extension";

    fn gone(message: &str) -> WireError {
        WireError::new(ErrorCode::BrowserDisconnected, message)
    }

    #[test]
    fn only_a_launched_browser_that_never_connected_gets_the_extension_advice() {
        let never = History {
            ever_connected: false,
            browser_quit: false,
        };
        let said = for_launched(gone("no browser"), Some(SILENT), never);
        assert_eq!(said.message, SILENT);
        // Its native host died after it had connected: what the link says stands.
        let host_stopped = gone("tabwire's native host stopped before the browser answered");
        let connected = History {
            ever_connected: true,
            browser_quit: false,
        };
        assert_eq!(
            for_launched(host_stopped.clone(), Some(SILENT), connected),
            host_stopped
        );
        let quit = History {
            ever_connected: true,
            browser_quit: true,
        };
        assert_eq!(
            for_launched(gone("quit"), Some(SILENT), quit).message,
            LAUNCHED_BROWSER_QUIT
        );
        // Other errors, and browsers tabwire did not launch, are left as they are.
        let timeout = WireError::new(ErrorCode::Timeout, "slow");
        assert_eq!(for_launched(timeout.clone(), Some(SILENT), never), timeout);
        assert_eq!(for_launched(gone("x"), None, never), gone("x"));
    }
}
