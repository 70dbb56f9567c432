//! The relay's transport: the per-user local channel between `tabwire native-host` and
//! every `tabwire mcp`, and the one place where it differs by operating system.
//!
//! - Unix (`unix.rs`): a Unix socket in a private folder (0700, the socket 0600); a
//!   stale socket file is replaced, a live one is never stolen; each accepted peer's
//!   uid must be this user's.
//! - Windows (`windows.rs`): a named pipe, `\\.\pipe\tabwire-<user SID>-relay`, whose
//!   security descriptor lets only this user open it; remote clients are rejected;
//!   the first instance is created with `FILE_FLAG_FIRST_PIPE_INSTANCE`, so a name
//!   another relay serves is never shared; each accepted client's process is mapped to
//!   its user SID and compared with ours, and a client checks the server the same way
//!   before it says anything.
//!
//! Both offer the same small interface, so the relay ([`crate::native_host`]), its
//! clients ([`crate::link`]) and `doctor` are written once, generic over
//! `AsyncRead + AsyncWrite`: [`bind_exclusive`] gives a [`Listener`] and a [`Claim`]
//! on the address (the socket file, removed when dropped; nothing on Windows, where
//! the pipe goes with its last handle), [`Listener::accept`] gives an [`Accepted`]
//! stream, [`check_peer`] judges it, and [`connect`] gives a client its [`Connected`]
//! stream. Addresses are paths on both (a pipe name is a path-like string): where the
//! address is chosen is [`crate::paths::socket_path`].
//!
//! No TCP, ever. This module does not read or write frames ([`crate::frames`] does).

use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

#[cfg(unix)]
pub mod unix;
#[cfg(unix)]
pub use unix::{
    bind_exclusive, check_peer, connect, taken_again, Accepted, Claim, Connected, Listener,
};

#[cfg(windows)]
pub mod windows;
#[cfg(windows)]
pub use windows::{
    bind_exclusive, check_peer, connect, taken_again, Accepted, Claim, Connected, Listener,
};

/// Why the relay could not claim its address.
#[derive(Debug, thiserror::Error)]
pub enum BindError {
    /// A live relay already answers on the address.
    #[error(
        "another tabwire native host (for another browser or profile) already serves {0}; \
         only one browser can be connected to tabwire at a time. Close the other browser, \
         or give this one its own relay address with TABWIRE_SOCKET"
    )]
    AlreadyServed(PathBuf),
    /// Something that is not a socket is in the way.
    #[error("{0} exists and is not a socket; remove it or set TABWIRE_SOCKET to another path")]
    NotASocket(PathBuf),
    /// Creating the directory, socket or pipe failed.
    #[error("cannot create the relay's socket {path}: {source}")]
    Io {
        /// The address.
        path: PathBuf,
        /// What failed.
        source: io::Error,
    },
}

/// How long a new relay waits for an address that a relay on its way out still holds.
///
/// A Unix socket's file is removed the moment the old relay stops listening, so a new
/// one never waits there. A named pipe lives as long as any of its instances, and the
/// old relay keeps its clients' instances open while it tells them why the browser
/// went (up to about 3.5 s): a native host started meanwhile (a restarted service
/// worker's) waits that long before it concludes that another relay serves the name.
#[cfg(unix)]
pub const RELEASE_WAIT: Duration = Duration::ZERO;
/// See the Unix value.
#[cfg(windows)]
pub const RELEASE_WAIT: Duration = Duration::from_secs(5);

/// [`bind_exclusive`], waiting up to [`RELEASE_WAIT`] for a relay on its way out to
/// let go of the address.
pub async fn bind_patiently(path: &Path) -> Result<(Listener, Claim), BindError> {
    let deadline = tokio::time::Instant::now() + RELEASE_WAIT;
    loop {
        match bind_exclusive(path) {
            Err(BindError::AlreadyServed(_)) if tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            other => return other,
        }
    }
}

/// A fresh address for a test relay, kept valid by the returned folder: a socket path
/// in it on Unix, a pipe name of its own on Windows.
#[cfg(test)]
pub(crate) fn test_address() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    #[cfg(unix)]
    let address = dir.path().join("relay.sock");
    #[cfg(windows)]
    let address = windows::test_pipe_name(&dir);
    (dir, address)
}
