//! The relay's Unix socket: claiming the path, and deciding who may connect.
//!
//! Only one relay may serve a socket path. A path left behind by a relay that died is
//! stale (nothing answers there) and is replaced; a path where a relay answers belongs
//! to another browser's native host, and binding is refused rather than stealing it.
//! The socket's folder is made private (0700) when tabwire creates it, the socket 0600,
//! and every accepted peer must run as the same user.

use std::fs::{self, DirBuilder};
use std::io;
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use tokio::net::{UnixListener, UnixStream};

use super::BindError;

/// The relay's end of an accepted connection.
pub type Accepted = UnixStream;

/// A client's end of its connection to the relay.
pub type Connected = UnixStream;

/// The bound relay socket, accepting connections.
#[derive(Debug)]
pub struct Listener(UnixListener);

impl Listener {
    /// The next connection (cancel-safe).
    pub async fn accept(&mut self) -> io::Result<Accepted> {
        self.0.accept().await.map(|(stream, _)| stream)
    }
}

/// A bound socket file, removed when dropped (if it is still the one we bound).
#[derive(Debug)]
pub struct Claim {
    path: PathBuf,
    identity: Option<(u64, u64)>,
}

impl Claim {
    /// The socket's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        let current = fs::symlink_metadata(&self.path)
            .ok()
            .map(|m| (m.dev(), m.ino()));
        if current.is_some() && current == self.identity {
            if let Err(e) = fs::remove_file(&self.path) {
                tracing::warn!(path = %self.path.display(), error = %e, "could not remove the socket");
            }
        }
    }
}

/// Whether a socket is at `path` again after this process's [`Claim`] on it was
/// dropped (which removed its own): another relay has bound it since.
pub fn taken_again(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok()
}

/// Binds the relay socket at `path`: directory created 0700, socket 0600, a stale
/// socket replaced, a live one left alone ([`BindError::AlreadyServed`]).
pub fn bind_exclusive(path: &Path) -> Result<(Listener, Claim), BindError> {
    let io_err = |source| BindError::Io {
        path: path.to_path_buf(),
        source,
    };
    ensure_socket_dir(path).map_err(io_err)?;
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_socket() => {
            match std::os::unix::net::UnixStream::connect(path) {
                Ok(_) => return Err(BindError::AlreadyServed(path.to_path_buf())),
                Err(e) => {
                    tracing::info!(path = %path.display(), error = %e, "replacing a stale socket");
                    fs::remove_file(path).map_err(io_err)?;
                }
            }
        }
        Ok(_) => return Err(BindError::NotASocket(path.to_path_buf())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_err(e)),
    }
    let listener = UnixListener::bind(path).map_err(io_err)?;
    let identity = fs::symlink_metadata(path).ok().map(|m| (m.dev(), m.ino()));
    let claim = Claim {
        path: path.to_path_buf(),
        identity,
    };
    fs::set_permissions(path, fs::Permissions::from_mode(0o600)).map_err(io_err)?;
    Ok((Listener(listener), claim))
}

/// Creates the socket's directory if it is missing, private to the user (0700).
///
/// A directory that already exists is left as it is (it may be `/tmp` when
/// `TABWIRE_SOCKET` points there); the socket itself is still made 0600 and the relay
/// checks every peer's uid, so the directory's mode is defence in depth.
fn ensure_socket_dir(socket: &Path) -> io::Result<()> {
    match socket.parent() {
        Some(dir) if !dir.as_os_str().is_empty() && !dir.exists() => {
            DirBuilder::new().recursive(true).mode(0o700).create(dir)
        }
        _ => Ok(()),
    }
}

/// Connects to the relay at `path`, after checking that the process serving it runs as
/// this user (an error of kind `PermissionDenied` says whose it is if not). The
/// socket's private folder vouches for the relay at the default path, but
/// `TABWIRE_SOCKET` may name a shared folder, where another user could bind the path
/// first and pose as the browser.
pub async fn connect(path: &Path) -> io::Result<Connected> {
    let stream = UnixStream::connect(path).await?;
    check_peer(&stream).map_err(|why| {
        let why = format!(
            "the relay at {}: {why}: another user's program holds tabwire's socket. Point \
             TABWIRE_SOCKET at a folder only you can write, or leave it unset",
            path.display()
        );
        io::Error::new(io::ErrorKind::PermissionDenied, why)
    })?;
    Ok(stream)
}

/// Whether the peer of a connection (accepted or made) runs as this user; the reason
/// if not.
pub fn check_peer(stream: &UnixStream) -> Result<(), String> {
    let cred = stream
        .peer_cred()
        .map_err(|e| format!("cannot read the peer's credentials: {e}"))?;
    let me = crate::platform::current_uid();
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
    use std::os::unix::process::CommandExt;

    #[tokio::test]
    async fn binds_private_socket_and_removes_it_on_drop() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("d").join("relay.sock");
        let (mut listener, file) = bind_exclusive(&path).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let dir_mode = std::fs::metadata(path.parent().unwrap())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(dir_mode & 0o777, 0o700);
        let client = UnixStream::connect(&path).await.unwrap();
        let server = listener.accept().await.unwrap();
        assert_eq!(check_peer(&server), Ok(()));
        drop((client, server, listener, file));
        assert!(!path.exists());
    }

    #[tokio::test]
    async fn a_relay_another_user_serves_is_refused_naming_it() {
        if crate::platform::current_uid() != 0 {
            eprintln!("skipped: serving a socket as another user takes root");
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        let path = tmp.path().join("relay.sock");
        // Another user (nobody) binds the path first, as on a shared folder.
        let script = format!(
            "import socket,os,sys\ns=socket.socket(socket.AF_UNIX)\ns.bind({:?})\n\
             os.chmod({:?},0o777)\ns.listen()\nprint('ready',flush=True)\nsys.stdin.read()",
            path.display().to_string(),
            path.display().to_string()
        );
        let mut squatter = std::process::Command::new("/usr/bin/python3")
            .arg("-c")
            .arg(script)
            .uid(65534)
            .gid(65534)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(squatter.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        assert_eq!(line.trim(), "ready");
        let error = connect(&path).await.unwrap_err();
        squatter.kill().unwrap();
        squatter.wait().unwrap();
        assert_eq!(error.kind(), io::ErrorKind::PermissionDenied);
        let message = error.to_string();
        assert!(message.contains("uid 65534"), "{message}");
        assert!(message.contains("TABWIRE_SOCKET"), "{message}");
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
