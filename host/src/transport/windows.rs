//! The relay's named pipe: claiming the name, and deciding who may connect.
//!
//! - Only this user may open it: every instance is created with a security descriptor
//!   whose protected access list grants this user's SID, and nobody else, full access
//!   (`D:P(A;;GA;;;<SID>)`).
//! - Only this machine: `PIPE_REJECT_REMOTE_CLIENTS`.
//! - One relay per name: a name where a server answers, or whose instances are all
//!   busy, is served already; and the first instance is created with
//!   `FILE_FLAG_FIRST_PIPE_INSTANCE`, which fails while any instance of the name
//!   exists, whoever made it (closing the gap between looking and creating; wine does
//!   not enforce this flag, the look alone works there). A pipe has no file to go
//!   stale: the name disappears with its last handle.
//! - Every peer is this user: the relay maps an accepted client's process id
//!   (`GetNamedPipeClientProcessId`) to the user SID in that process's token and
//!   compares it with its own, as the Unix socket's peer uid is compared; a client
//!   does the same with the server's process (`GetNamedPipeServerProcessId`) before
//!   it writes a byte, so it never talks to a pipe that another user squats on.
//!
//! The listener keeps one instance waiting: accepting hands it over and creates the
//! next, so a client connecting meanwhile finds the pipe busy for a moment and
//! [`connect`] tries again.

use std::ffi::c_void;
use std::io;
use std::os::windows::io::AsRawHandle;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::net::windows::named_pipe::{
    ClientOptions, NamedPipeClient, NamedPipeServer, ServerOptions,
};
use windows_sys::Win32::Foundation::{LocalFree, ERROR_ACCESS_DENIED, ERROR_PIPE_BUSY, HANDLE};
use windows_sys::Win32::Security::Authorization::{
    ConvertStringSecurityDescriptorToSecurityDescriptorW, SDDL_REVISION_1,
};
use windows_sys::Win32::Security::SECURITY_ATTRIBUTES;
use windows_sys::Win32::System::Pipes::{GetNamedPipeClientProcessId, GetNamedPipeServerProcessId};

use super::BindError;
use crate::platform::windows::Sid;

/// The relay's end of an accepted connection.
pub type Accepted = NamedPipeServer;

/// A client's end of its connection to the relay.
pub type Connected = NamedPipeClient;

/// How long [`connect`] tries a pipe whose instances are all busy: a live relay has
/// one waiting again within moments; one on its way out never will.
const BUSY_WAIT: Duration = Duration::from_millis(500);

/// The self-relative security descriptor every instance is created with, in `u64`s
/// for its alignment.
#[derive(Debug)]
struct Descriptor(Vec<u64>);

impl Descriptor {
    /// Full access for `user` alone, inherited from nowhere.
    fn only(user: &Sid) -> io::Result<Self> {
        let sddl = format!("D:P(A;;GA;;;{user})");
        let wide: Vec<u16> = sddl.encode_utf16().chain([0]).collect();
        let mut descriptor: *mut c_void = std::ptr::null_mut();
        let mut size = 0u32;
        // SAFETY: `wide` is NUL-terminated; the two out pointers are valid.
        let ok = unsafe {
            ConvertStringSecurityDescriptorToSecurityDescriptorW(
                wide.as_ptr(),
                SDDL_REVISION_1,
                &mut descriptor,
                &mut size,
            )
        };
        if ok == 0 || descriptor.is_null() {
            let e = io::Error::last_os_error();
            return Err(io::Error::new(
                e.kind(),
                format!("cannot make the pipe's security descriptor {sddl}: {e}"),
            ));
        }
        let mut words = vec![0u64; (size as usize).div_ceil(8)];
        // SAFETY: the system returned `size` bytes at `descriptor`; `words` holds at
        // least that many. A self-relative descriptor holds no pointers, so the copy
        // stands alone. The original is freed right after.
        unsafe {
            std::ptr::copy_nonoverlapping(
                descriptor as *const u8,
                words.as_mut_ptr().cast(),
                size as usize,
            );
            LocalFree(descriptor);
        }
        Ok(Self(words))
    }

    /// Creates an instance of the pipe `name` with this descriptor.
    fn create(&self, name: &Path, first: bool) -> io::Result<NamedPipeServer> {
        let mut attributes = SECURITY_ATTRIBUTES {
            nLength: std::mem::size_of::<SECURITY_ATTRIBUTES>() as u32,
            lpSecurityDescriptor: self.0.as_ptr() as *mut c_void,
            bInheritHandle: 0,
        };
        let mut options = ServerOptions::new();
        options
            .first_pipe_instance(first)
            .reject_remote_clients(true)
            .access_inbound(true)
            .access_outbound(true);
        // SAFETY: `attributes` is a valid SECURITY_ATTRIBUTES whose descriptor lives
        // in `self` for the whole call.
        unsafe {
            options.create_with_security_attributes_raw(
                name.as_os_str(),
                (&mut attributes as *mut SECURITY_ATTRIBUTES).cast(),
            )
        }
    }
}

/// The bound pipe, accepting connections: one instance always waits for a client.
#[derive(Debug)]
pub struct Listener {
    name: PathBuf,
    waiting: NamedPipeServer,
    descriptor: Descriptor,
}

impl Listener {
    /// The next connection (cancel-safe: a client that connects while nobody awaits
    /// stays connected to the waiting instance until the next call).
    pub async fn accept(&mut self) -> io::Result<Accepted> {
        let connected = self.waiting.connect().await;
        // Whether or not the client stayed, the instance is used up: the next one
        // waits from now on.
        let fresh = self.descriptor.create(&self.name, false)?;
        let used = std::mem::replace(&mut self.waiting, fresh);
        connected.map(|()| used)
    }
}

/// The claimed pipe name. Nothing to remove: the name goes with its last handle.
#[derive(Debug)]
pub struct Claim {
    path: PathBuf,
}

impl Claim {
    /// The pipe's name.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Whether another relay serves the pipe `name` again after this one let it go. Not
/// looked at: asking would open a connection to it. The native host then decides by
/// its parent alone.
pub fn taken_again(_name: &Path) -> bool {
    false
}

/// Creates the first instance of the pipe `name`, private to this user; refuses a name
/// that any instance already holds ([`BindError::AlreadyServed`]).
pub fn bind_exclusive(name: &Path) -> Result<(Listener, Claim), BindError> {
    let io_err = |source| BindError::Io {
        path: name.to_path_buf(),
        source,
    };
    if is_served(name) {
        return Err(BindError::AlreadyServed(name.to_path_buf()));
    }
    let me = Sid::current().map_err(io_err)?;
    let descriptor = Descriptor::only(&me).map_err(io_err)?;
    let waiting = match descriptor.create(name, true) {
        Ok(first) => first,
        Err(e) if e.raw_os_error() == Some(ERROR_ACCESS_DENIED as i32) => {
            return Err(BindError::AlreadyServed(name.to_path_buf()))
        }
        Err(e) => return Err(io_err(e)),
    };
    let listener = Listener {
        name: name.to_path_buf(),
        waiting,
        descriptor,
    };
    Ok((
        listener,
        Claim {
            path: name.to_path_buf(),
        },
    ))
}

/// Whether a server holds the pipe `name`: opening it as a client succeeds, or finds
/// every instance busy. The look is a plain connection at identification level (the
/// server cannot act as this user), closed at once; the relay takes it for a client
/// that left, as the Unix socket's look is.
fn is_served(name: &Path) -> bool {
    use std::os::windows::fs::OpenOptionsExt;
    use windows_sys::Win32::Storage::FileSystem::SECURITY_IDENTIFICATION;
    let opened = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .security_qos_flags(SECURITY_IDENTIFICATION)
        .open(name);
    match opened {
        Ok(_) => true,
        Err(e) => e.raw_os_error() == Some(ERROR_PIPE_BUSY as i32),
    }
}

/// Connects to the relay at the pipe `name`, after checking that the process serving
/// it runs as this user (an error of kind `PermissionDenied` says whose it is if not).
pub async fn connect(name: &Path) -> io::Result<Connected> {
    let deadline = tokio::time::Instant::now() + BUSY_WAIT;
    let client = loop {
        match ClientOptions::new().open(name.as_os_str()) {
            Ok(client) => break client,
            Err(e)
                if e.raw_os_error() == Some(ERROR_PIPE_BUSY as i32)
                    && tokio::time::Instant::now() < deadline =>
            {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            Err(e) => return Err(e),
        }
    };
    let mut pid = 0u32;
    // SAFETY: the pipe handle is open; `pid` is a valid out pointer.
    let ok = unsafe { GetNamedPipeServerProcessId(client.as_raw_handle() as HANDLE, &mut pid) };
    let verdict = if ok == 0 {
        Err(format!(
            "cannot tell which process serves {}: {}",
            name.display(),
            io::Error::last_os_error()
        ))
    } else {
        same_user("the relay", pid)
    };
    verdict.map_err(|why| io::Error::new(io::ErrorKind::PermissionDenied, why))?;
    Ok(client)
}

/// Whether the client of an accepted connection runs as this user; the reason if not.
pub fn check_peer(stream: &Accepted) -> Result<(), String> {
    let mut pid = 0u32;
    // SAFETY: the pipe handle is open; `pid` is a valid out pointer.
    let ok = unsafe { GetNamedPipeClientProcessId(stream.as_raw_handle() as HANDLE, &mut pid) };
    if ok == 0 {
        return Err(format!(
            "cannot tell which process connected: {}",
            io::Error::last_os_error()
        ));
    }
    same_user("peer", pid)
}

/// Whether process `pid` (`who`: "peer", "the relay") runs as this user.
fn same_user(who: &str, pid: u32) -> Result<(), String> {
    let me = Sid::current().map_err(|e| format!("cannot read this process's user: {e}"))?;
    let theirs = Sid::of_process(pid).map_err(|e| {
        format!(
            "cannot read the user of the {who}'s process {pid} ({e}); run the agent and \
             the browser as the same user, both elevated or neither"
        )
    })?;
    judge(who, pid, &theirs, &me)
}

/// The verdict on a process `pid` that runs as `theirs`, for a process running as `me`.
fn judge(who: &str, pid: u32, theirs: &Sid, me: &Sid) -> Result<(), String> {
    if theirs == me {
        Ok(())
    } else {
        Err(format!(
            "{who} runs as {theirs} (pid {pid}), not as this user ({me})"
        ))
    }
}

/// The relay's pipe name for the user with SID `user`, or the one `TABWIRE_SOCKET`
/// (`socket_env`) names: a full `\\.\pipe\…` name, or a bare name put under it.
pub fn pipe_name(socket_env: Option<&std::ffi::OsStr>, user: &str) -> PathBuf {
    const PREFIX: &str = r"\\.\pipe\";
    match socket_env.filter(|v| !v.is_empty()) {
        Some(name) => {
            let text = name.to_string_lossy();
            if text
                .get(..PREFIX.len())
                .is_some_and(|start| start.eq_ignore_ascii_case(PREFIX))
            {
                PathBuf::from(name)
            } else {
                PathBuf::from(format!("{PREFIX}{text}"))
            }
        }
        None => PathBuf::from(format!("{PREFIX}tabwire-{user}-relay")),
    }
}

/// The relay's pipe name for this user (see [`pipe_name`]).
pub fn default_address(socket_env: Option<&std::ffi::OsStr>) -> io::Result<PathBuf> {
    let me = Sid::current()?;
    Ok(pipe_name(socket_env, &me.to_string()))
}

/// A pipe name of its own for a test, named after its temporary folder.
#[cfg(test)]
pub(crate) fn test_pipe_name(dir: &tempfile::TempDir) -> PathBuf {
    let tag = dir
        .path()
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    PathBuf::from(format!(
        r"\\.\pipe\tabwire-test-{}-{tag}",
        std::process::id()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    fn name() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let name = test_pipe_name(&dir);
        (dir, name)
    }

    #[tokio::test]
    async fn a_client_of_this_user_is_served_both_ways() {
        let (_dir, name) = name();
        let (mut listener, claim) = bind_exclusive(&name).unwrap();
        assert_eq!(claim.path(), name);
        let mut client = connect(&name).await.unwrap();
        let mut server = listener.accept().await.unwrap();
        assert_eq!(check_peer(&server), Ok(()));
        client.write_all(b"ping").await.unwrap();
        let mut got = [0u8; 4];
        server.read_exact(&mut got).await.unwrap();
        assert_eq!(&got, b"ping");
        server.write_all(b"pong").await.unwrap();
        client.read_exact(&mut got).await.unwrap();
        assert_eq!(&got, b"pong");
        // A second client gets the next instance.
        let second = connect(&name).await.unwrap();
        let accepted = listener.accept().await.unwrap();
        assert_eq!(check_peer(&accepted), Ok(()));
        drop((second, accepted));
        // The relay's end closing is the end of the client's stream.
        drop(server);
        assert_eq!(client.read(&mut got).await.unwrap(), 0);
    }

    #[tokio::test]
    async fn a_served_name_is_not_shared_and_is_free_once_every_handle_is_gone() {
        let (_dir, name) = name();
        let (listener, claim) = bind_exclusive(&name).unwrap();
        let second = bind_exclusive(&name);
        assert!(
            matches!(second, Err(BindError::AlreadyServed(_))),
            "{second:?}"
        );
        drop((listener, claim));
        let (_listener, _claim) = bind_exclusive(&name).unwrap();
    }

    #[tokio::test]
    async fn a_client_connected_to_an_old_relay_keeps_the_name_until_it_goes() {
        let (_dir, name) = name();
        let (mut listener, _claim) = bind_exclusive(&name).unwrap();
        let client = connect(&name).await.unwrap();
        let server = listener.accept().await.unwrap();
        drop(listener);
        let second = bind_exclusive(&name);
        assert!(
            matches!(second, Err(BindError::AlreadyServed(_))),
            "{second:?}"
        );
        let waited = tokio::spawn({
            let name = name.clone();
            async move { super::super::bind_patiently(&name).await.map(|_| ()) }
        });
        tokio::time::sleep(Duration::from_millis(300)).await;
        drop((client, server));
        waited.await.unwrap().unwrap();
    }

    #[tokio::test]
    async fn no_relay_is_not_found() {
        let (_dir, name) = name();
        let error = connect(&name).await.unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::NotFound, "{error}");
    }

    #[test]
    fn a_process_of_another_user_is_refused() {
        // Another user's process cannot be made here (wine runs everything as one
        // user): the verdict is checked on another user's SID.
        let me = Sid::current().unwrap();
        let system = Sid::parse("S-1-5-18").unwrap();
        let why = judge("peer", 42, &system, &me).unwrap_err();
        assert!(why.contains("peer runs as S-1-5-18 (pid 42)"), "{why}");
        assert!(why.contains(&me.to_string()), "{why}");
        assert_eq!(judge("peer", 42, &me, &me.clone()), Ok(()));
        // A process that does not exist has no user to compare.
        let why = same_user("peer", u32::MAX - 3).unwrap_err();
        assert!(why.contains("same user"), "{why}");
    }

    #[test]
    fn the_descriptor_grants_this_user_alone() {
        let me = Sid::current().unwrap();
        let descriptor = Descriptor::only(&me).unwrap();
        let text = descriptor_text(&descriptor);
        assert_eq!(text, format!("D:P(A;;GA;;;{me})"));
    }

    /// The descriptor's access list, as SDDL.
    fn descriptor_text(descriptor: &Descriptor) -> String {
        use windows_sys::Win32::Security::Authorization::ConvertSecurityDescriptorToStringSecurityDescriptorW;
        use windows_sys::Win32::Security::DACL_SECURITY_INFORMATION;
        let mut text: *mut u16 = std::ptr::null_mut();
        // SAFETY: the descriptor is a valid self-relative one; `text` is an out pointer.
        let ok = unsafe {
            ConvertSecurityDescriptorToStringSecurityDescriptorW(
                descriptor.0.as_ptr() as *mut c_void,
                SDDL_REVISION_1,
                DACL_SECURITY_INFORMATION,
                &mut text,
                std::ptr::null_mut(),
            )
        };
        assert_ne!(ok, 0, "{}", io::Error::last_os_error());
        // SAFETY: the system returned a NUL-terminated string, freed after the copy.
        unsafe {
            let len = (0..).take_while(|&i| *text.add(i) != 0).count();
            let shown = String::from_utf16_lossy(std::slice::from_raw_parts(text, len));
            LocalFree(text.cast());
            shown
        }
    }

    #[test]
    fn pipe_names_are_per_user_or_as_the_environment_says() {
        assert_eq!(
            pipe_name(None, "S-1-5-21-1-2-3-1001"),
            PathBuf::from(r"\\.\pipe\tabwire-S-1-5-21-1-2-3-1001-relay")
        );
        let env = std::ffi::OsStr::new(r"\\.\PIPE\mine");
        assert_eq!(pipe_name(Some(env), "S-1"), PathBuf::from(r"\\.\PIPE\mine"));
        let bare = std::ffi::OsStr::new("agent-7");
        assert_eq!(
            pipe_name(Some(bare), "S-1"),
            PathBuf::from(r"\\.\pipe\agent-7")
        );
        assert_eq!(
            pipe_name(Some(std::ffi::OsStr::new("")), "S-1"),
            PathBuf::from(r"\\.\pipe\tabwire-S-1-relay")
        );
    }
}
