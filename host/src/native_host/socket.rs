//! The relay's Unix socket: claiming the path, and deciding who may connect.
//!
//! Only one relay may serve a socket path. A path left behind by a relay that died is
//! stale (nothing answers there) and is replaced; a path where a relay answers belongs
//! to another browser's native host, and binding is refused rather than stealing it.
//! Every accepted peer must run as the same user. No TCP, ever.
//!
//! This module does not read or write frames; [`super::server`] does.

use std::io;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

use tokio::net::{UnixListener, UnixStream};

use crate::paths;

/// Why the relay could not claim its socket.
#[derive(Debug, thiserror::Error)]
pub enum BindError {
    /// A live relay already answers on the path.
    #[error(
        "another tabwire native host (for another browser or profile) already serves {0}; \
         only one browser can be connected to tabwire at a time. Close the other browser, \
         or give this one its own socket with TABWIRE_SOCKET"
    )]
    AlreadyServed(PathBuf),
    /// Something that is not a socket is in the way.
    #[error("{0} exists and is not a socket; remove it or set TABWIRE_SOCKET to another path")]
    NotASocket(PathBuf),
    /// Creating the directory or socket failed.
    #[error("cannot create the socket {path}: {source}")]
    Io {
        /// The socket path.
        path: PathBuf,
        /// What failed.
        source: io::Error,
    },
}

/// A bound socket file, removed when dropped (if it is still the one we bound).
#[derive(Debug)]
pub struct SocketFile {
    path: PathBuf,
    identity: Option<(u64, u64)>,
}

impl SocketFile {
    /// The socket's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for SocketFile {
    fn drop(&mut self) {
        let current = std::fs::symlink_metadata(&self.path)
            .ok()
            .map(|m| (m.dev(), m.ino()));
        if current.is_some() && current == self.identity {
            if let Err(e) = std::fs::remove_file(&self.path) {
                tracing::warn!(path = %self.path.display(), error = %e, "could not remove the socket");
            }
        }
    }
}

/// Binds the relay socket at `path`: directory created 0700, socket 0600, a stale
/// socket replaced, a live one left alone ([`BindError::AlreadyServed`]).
pub fn bind_exclusive(path: &Path) -> Result<(UnixListener, SocketFile), BindError> {
    let io_err = |source| BindError::Io {
        path: path.to_path_buf(),
        source,
    };
    paths::ensure_socket_dir(path).map_err(io_err)?;
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_socket() => {
            match std::os::unix::net::UnixStream::connect(path) {
                Ok(_) => return Err(BindError::AlreadyServed(path.to_path_buf())),
                Err(e) => {
                    tracing::info!(path = %path.display(), error = %e, "replacing a stale socket");
                    std::fs::remove_file(path).map_err(io_err)?;
                }
            }
        }
        Ok(_) => return Err(BindError::NotASocket(path.to_path_buf())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_err(e)),
    }
    let listener = UnixListener::bind(path).map_err(io_err)?;
    let identity = std::fs::symlink_metadata(path)
        .ok()
        .map(|m| (m.dev(), m.ino()));
    let file = SocketFile {
        path: path.to_path_buf(),
        identity,
    };
    paths::restrict_socket(path).map_err(io_err)?;
    Ok((listener, file))
}

/// This process's real user id.
pub fn current_uid() -> u32 {
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { libc::getuid() }
}

/// Whether the peer of an accepted connection runs as this user; the reason if not.
pub fn check_peer(stream: &UnixStream) -> Result<(), String> {
    let cred = stream
        .peer_cred()
        .map_err(|e| format!("cannot read the peer's credentials: {e}"))?;
    let me = current_uid();
    if cred.uid() == me {
        Ok(())
    } else {
        Err(format!(
            "peer runs as uid {} (pid {:?}), not as this user (uid {me})",
            cred.uid(),
            cred.pid()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[tokio::test]
    async fn binds_private_socket_and_removes_it_on_drop() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("d").join("relay.sock");
        let (listener, file) = bind_exclusive(&path).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let dir_mode = std::fs::metadata(path.parent().unwrap())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(dir_mode & 0o777, 0o700);
        let client = UnixStream::connect(&path).await.unwrap();
        let (server, _) = listener.accept().await.unwrap();
        assert_eq!(check_peer(&server), Ok(()));
        drop((client, server, listener, file));
        assert!(!path.exists());
    }

    #[tokio::test]
    async fn stale_socket_is_replaced() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("relay.sock");
        drop(std::os::unix::net::UnixListener::bind(&path).unwrap());
        assert!(path.exists(), "a dead relay's socket is left behind");
        let (_listener, _file) = bind_exclusive(&path).unwrap();
        UnixStream::connect(&path).await.unwrap();
    }

    #[tokio::test]
    async fn live_socket_is_not_stolen() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("relay.sock");
        let (_listener, _file) = bind_exclusive(&path).unwrap();
        assert!(matches!(
            bind_exclusive(&path),
            Err(BindError::AlreadyServed(_))
        ));
        assert!(path.exists());
    }

    #[tokio::test]
    async fn a_regular_file_in_the_way_is_left_alone() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("relay.sock");
        std::fs::write(&path, "precious").unwrap();
        assert!(matches!(
            bind_exclusive(&path),
            Err(BindError::NotASocket(_))
        ));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "precious");
    }
}
