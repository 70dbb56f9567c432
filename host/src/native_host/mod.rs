//! `tabwire native-host`: the process Chrome starts for the extension.
//!
//! Chrome runs it (through the wrapper script named in the host manifest) with the
//! caller's origin as the first argument (on Windows, then `--parent-window=<id>`) and
//! speaks native messaging on its stdio. It refuses any caller but the tabwire
//! extension, claims the per-user relay socket ([`crate::transport`]), and
//! relays between the extension and any number of `tabwire mcp` clients until Chrome
//! closes the port (or a signal stops it); then it removes the socket, tells the
//! clients that the browser is gone and, within 1.5 s, whether it quit or still runs,
//! and exits 0.
//!
//! - [`crate::frames`] (shared with [`crate::link`]): whole frames on async byte streams.
//! - [`relay`]: the routing state machine (pure, no I/O).
//! - [`departure`]: on the way out, whether the browser quit or still runs.
//! - [`server`]: the event loop tying Chrome's stdio and the socket clients together.
//!
//! It holds no tool logic and never writes anything but frames to stdout; logs go to
//! stderr through `tracing`.

pub mod departure;
pub mod relay;
pub mod server;
#[cfg(test)]
pub(crate) mod testing;

use std::io::Read;

use anyhow::bail;
use tabwire_shared::{HostInfo, EXTENSION_ORIGIN};
use tokio::io::{AsyncRead, AsyncWriteExt};

use crate::{paths, platform, transport};

/// Command-line arguments Chrome passes: the caller's origin, then anything else
/// (`--parent-window=…` on Windows), which is ignored.
#[derive(Debug, Clone, clap::Args)]
pub struct NativeHostArgs {
    /// The calling extension's origin, `chrome-extension://<id>/`.
    pub origin: String,
    /// Further arguments from Chrome, ignored.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    pub rest: Vec<String>,
}

/// Checks that the caller is the tabwire extension.
pub fn check_origin(origin: &str) -> anyhow::Result<()> {
    if origin == EXTENSION_ORIGIN {
        Ok(())
    } else {
        bail!(
            "refusing caller {origin:?}: tabwire's native host serves only the tabwire \
             extension ({EXTENSION_ORIGIN}). `tabwire native-host` is started by the browser, \
             not by hand."
        )
    }
}

/// Runs the native host for a caller with `origin` on this process's stdin/stdout.
///
/// Returns `Ok(())` when the browser has gone (the normal end); an error when the
/// origin is refused or the socket belongs to another live relay.
pub async fn run(origin: &str) -> anyhow::Result<()> {
    check_origin(origin)?;
    // The browser is this process's parent: note it before anything can go away.
    let lookout = departure::Lookout::browser();
    let socket = paths::socket_path()?;
    let bound = transport::bind_patiently(&socket).await?;
    tracing::info!(socket = %bound.1.path().display(), "tabwire native host relaying");

    let stdin = stdin_reader();
    let stdout = tokio::io::stdout();
    let host = HostInfo {
        version: env!("CARGO_PKG_VERSION").to_owned(),
        agent_profile: std::env::var_os(paths::AGENT_PROFILE_ENV).is_some_and(|v| v == "1"),
    };
    tracing::info!(agent_profile = host.agent_profile, "browser kind");
    let reason = server::serve(stdin, stdout, bound, host, terminated(), lookout).await;
    tracing::info!(%reason, "native host exiting");
    Ok(())
}

/// Stdin as an async reader, read on a plain thread so that a pending read never keeps
/// the runtime from shutting down (tokio's own stdin would).
///
/// Frames are binary, and both standard streams are read and written as raw bytes on
/// every system: Rust's `std::io::stdin`/`stdout` (and tokio's, built on them) wrap the
/// process's handles without any C runtime text mode, so on Windows no `\r\n` is
/// added or taken away and no Ctrl+Z ends the input (checked through a real process by
/// the Windows integration test, on frames full of those bytes).
fn stdin_reader() -> impl AsyncRead + Unpin + Send + 'static {
    let (mut tx, rx) = tokio::io::duplex(256 * 1024);
    let handle = tokio::runtime::Handle::current();
    let spawned = std::thread::Builder::new()
        .name("tabwire-stdin".into())
        .spawn(move || {
            let mut stdin = std::io::stdin().lock();
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                let n = match stdin.read(&mut buf) {
                    Ok(0) => return,
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => {
                        tracing::warn!(error = %e, "reading stdin failed");
                        return;
                    }
                };
                if handle.block_on(tx.write_all(&buf[..n])).is_err() {
                    return;
                }
            }
        });
    if let Err(e) = spawned {
        // Without the thread the duplex's writer is dropped: reads see EOF and the
        // relay stops cleanly.
        tracing::error!(error = %e, "cannot start the stdin reader");
    }
    rx
}

/// Completes with a reason when the process is asked to stop (SIGTERM, SIGINT, SIGHUP;
/// on Windows Ctrl+C, Ctrl+Break or its console closing).
async fn terminated() -> String {
    let name = platform::stop_requested().await;
    format!("the native host was stopped ({name})")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `tabwire native-host …` as the command line parses it.
    #[derive(clap::Parser)]
    struct Cli {
        #[command(flatten)]
        args: NativeHostArgs,
    }

    #[test]
    fn chromes_extra_arguments_are_accepted_and_ignored() {
        use clap::Parser;
        // Windows: Chrome adds the window that asked, as its native handle.
        let cli =
            Cli::try_parse_from(["native-host", EXTENSION_ORIGIN, "--parent-window=0"]).unwrap();
        assert_eq!(cli.args.origin, EXTENSION_ORIGIN);
        assert_eq!(cli.args.rest, ["--parent-window=0"]);
        let cli = Cli::try_parse_from(["native-host", EXTENSION_ORIGIN]).unwrap();
        assert!(cli.args.rest.is_empty());
        assert!(Cli::try_parse_from(["native-host"]).is_err());
    }

    #[test]
    fn only_our_extension_may_call() {
        assert!(check_origin(EXTENSION_ORIGIN).is_ok());
        assert!(check_origin("chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/").is_err());
        assert!(check_origin("").is_err());
    }
}
