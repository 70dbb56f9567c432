//! The relay's end of the chain: the socket `tabwire mcp` connects to (present, a socket,
//! private, accepting), and a browser saying hello through it.
//!
//! A socket that is missing or refuses connections is explained with the native hosts
//! that run: none (the extension has not started one, or, in a browser that started
//! moments ago, not yet), or one serving another path (the browser and this shell
//! disagree on `XDG_RUNTIME_DIR` or `TABWIRE_SOCKET`).
//!
//! On Windows the relay is a named pipe: no file to own or to go stale. Connecting
//! checks that this user's process serves it ([`crate::transport::connect`]), so the
//! pipe is present, this user's and accepting, or the connection says which it is not.

#[cfg(unix)]
use std::fs;
#[cfg(unix)]
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use tabwire_shared::version::Mismatch;
use tabwire_shared::ClientHello;

use super::check::Check;
use crate::link::Link;
use crate::paths;
use crate::running::NativeHost;

/// How long doctor waits for the relay to pass on the browser's hello.
const BROWSER_WAIT: Duration = Duration::from_secs(2);

/// How long doctor waits for the socket to accept a connection.
const CONNECT_WAIT: Duration = Duration::from_secs(2);

/// How long after a browser starts its extension may not have started the native host
/// yet: its service worker starts with the browser, and retries a host it could not
/// start within 30 s.
pub const WORKER_START: Duration = Duration::from_secs(30);

/// What runs that may serve the relay: the native hosts of the browsers checked, and
/// when the newest of those browsers started (where that can be seen).
#[derive(Debug, Clone, Copy, Default)]
pub struct Serving<'a> {
    /// The native hosts running as this user, to explain a socket that does not answer.
    pub hosts: &'a [NativeHost],
    /// When the newest browser checked started, by the wall clock.
    pub newest_browser: Option<SystemTime>,
}

impl Serving<'_> {
    /// How long the newest browser has run, if that is too short to expect a native host.
    fn starting(&self) -> Option<Duration> {
        let age = SystemTime::now()
            .duration_since(self.newest_browser?)
            .ok()?;
        (age < WORKER_START).then_some(age)
    }
}

/// The relay socket: present, a socket, this user's, private, accepting (on Windows:
/// the pipe, served by this user's process, accepting).
pub async fn check_socket(socket: &Path, serving: Serving<'_>) -> Vec<Check> {
    #[cfg(unix)]
    {
        check_socket_of(socket, crate::platform::current_uid(), serving).await
    }
    #[cfg(windows)]
    {
        check_pipe(socket, serving.hosts).await
    }
}

/// The relay pipe: served by this user's process, accepting.
#[cfg(windows)]
async fn check_pipe(pipe: &Path, hosts: &[NativeHost]) -> Vec<Check> {
    let shown = pipe.display();
    let connected = tokio::time::timeout(CONNECT_WAIT, crate::transport::connect(pipe)).await;
    vec![match connected {
        Ok(Ok(_)) => Check::ok(format!(
            "relay pipe {shown}{} accepts connections",
            source()
        )),
        // Which processes run cannot be seen on Windows: nothing is said of them.
        Ok(Err(e)) if e.kind() == std::io::ErrorKind::NotFound && hosts.is_empty() => Check::fail(
            format!(
                "no relay pipe {shown}{}: no tabwire native host serves it, so the \
                     extension has not started one (or it could not start)",
                source()
            ),
            "reload the tabwire extension at edge://extensions or chrome://extensions \
                 and look at its service worker's console: \"Specified native messaging \
                 host not found\" means the browser does not find tabwire's registry key or \
                 manifest (run `tabwire install`); \"Native host has exited\" means the \
                 host failed to start",
        ),
        Ok(Err(e)) if e.kind() == std::io::ErrorKind::NotFound => missing(
            pipe,
            Serving {
                hosts,
                newest_browser: None,
            },
        ),
        Ok(Err(e)) if e.kind() == std::io::ErrorKind::PermissionDenied => Check::fail(
            format!("relay pipe {shown} is not tabwire's of this user: {e}"),
            "close the program that serves it, then restart the browser",
        ),
        Ok(Err(e)) => Check::fail(
            format!("cannot connect to the relay pipe {shown}: {e}"),
            "restart the browser",
        ),
        Err(_) => Check::fail(
            format!("relay pipe {shown} did not accept a connection within 2 s"),
            "restart the browser",
        ),
    }]
}

/// [`check_socket`] for the user `uid`.
#[cfg(unix)]
async fn check_socket_of(socket: &Path, uid: u32, serving: Serving<'_>) -> Vec<Check> {
    let meta = match fs::symlink_metadata(socket) {
        Ok(meta) => meta,
        Err(_) => return vec![missing(socket, serving)],
    };
    let shown = socket.display();
    if !meta.file_type().is_socket() {
        return vec![Check::fail(
            format!("{shown} is not a socket"),
            format!("remove {shown}; the native host recreates it"),
        )];
    }
    let mut checks = ownership(socket, &meta, uid);
    match tokio::time::timeout(CONNECT_WAIT, tokio::net::UnixStream::connect(socket)).await {
        Ok(Ok(_)) => checks.push(Check::ok(format!(
            "relay socket {shown}{} accepts connections",
            source()
        ))),
        Ok(Err(e)) => checks.push(stale(socket, &meta, &e, serving)),
        Err(_) => checks.push(Check::fail(
            format!("relay socket {shown} did not accept a connection within 2 s"),
            "restart the browser",
        )),
    }
    checks
}

/// " (from TABWIRE_SOCKET)" when the environment chose the socket.
fn source() -> &'static str {
    if std::env::var_os(paths::SOCKET_ENV).is_some() {
        " (from TABWIRE_SOCKET)"
    } else {
        ""
    }
}

/// A native host serving a path other than `socket`.
fn serving_elsewhere<'a>(
    socket: &Path,
    hosts: &'a [NativeHost],
) -> Option<(&'a NativeHost, &'a PathBuf)> {
    hosts.iter().find_map(|host| {
        let theirs = host.socket.as_ref()?;
        (theirs != socket).then_some((host, theirs))
    })
}

/// The check for a socket path where nothing is.
fn missing(socket: &Path, serving: Serving) -> Check {
    let shown = socket.display();
    let source = source();
    let hosts = serving.hosts;
    if let Some((host, theirs)) = serving_elsewhere(socket, hosts) {
        return mismatch(
            format!(
                "no relay socket at {shown}{source}, but tabwire's native host (pid {}) serves {}",
                host.pid,
                theirs.display()
            ),
            theirs,
        );
    }
    if let Some(host) = hosts.first() {
        return Check::fail(
            format!(
                "no relay socket at {shown}{source}, though tabwire's native host (pid {}) runs: \
                 it could not create the socket",
                host.pid
            ),
            "restart the browser; if that does not help, start it from a terminal with \
             TABWIRE_LOG=debug and read the native host's log there",
        );
    }
    if let Some(age) = serving.starting() {
        return not_started_yet(format!("no relay socket at {shown}{source} yet"), age);
    }
    Check::fail(
        format!(
            "no relay socket at {shown}{source}: no tabwire native host is running, so the \
             extension has not started one"
        ),
        "reload the tabwire extension at chrome://extensions and look at its service \
         worker's console: \"Specified native messaging host not found\" means the browser \
         does not find tabwire's host manifest; \"Native host has exited\" means the host \
         failed to start",
    )
}

/// The check while the newest browser, `age` old, has not started its native host yet.
fn not_started_yet(what: String, age: Duration) -> Check {
    Check::fail(
        format!(
            "{what}: the browser started {} s ago, and its tabwire extension has not started \
             tabwire's native host yet (it does once its service worker runs, normally within \
             seconds of the browser)",
            age.as_secs()
        ),
        format!(
            "run `tabwire doctor` again in a few seconds; if it still says this once the \
             browser has run for {} s, reload the tabwire extension at chrome://extensions \
             and look at its service worker's console for errors",
            WORKER_START.as_secs()
        ),
    )
}

/// The check for a socket file (`meta`) nothing answers on.
#[cfg(unix)]
fn stale(socket: &Path, meta: &fs::Metadata, error: &std::io::Error, serving: Serving) -> Check {
    let shown = socket.display();
    let hosts = serving.hosts;
    // Left by a host of an earlier run, not by one this browser started: made before
    // the browser started.
    let earlier = matches!(
        (meta.modified(), serving.newest_browser),
        (Ok(made), Some(started)) if made < started
    );
    let starting = serving.starting().filter(|_| earlier);
    if let Some((host, theirs)) = serving_elsewhere(socket, hosts) {
        return mismatch(
            format!(
                "relay socket {shown} is stale ({error}), and tabwire's native host (pid {}) \
                 serves {} instead",
                host.pid,
                theirs.display()
            ),
            theirs,
        );
    }
    if let Some(age) = starting {
        return not_started_yet(
            format!("relay socket {shown} is left from an earlier run's native host"),
            age,
        );
    }
    Check::fail(
        format!(
            "relay socket {shown} is stale: it refuses connections ({error}) and no native host \
             of the browsers checked runs; one that exited left it behind"
        ),
        "reload the tabwire extension at chrome://extensions, or restart the browser: the \
         native host it starts replaces the stale socket",
    )
}

/// A failure where the browser's native host serves another socket than this shell's.
fn mismatch(what: String, theirs: &Path) -> Check {
    Check::fail(
        what,
        format!(
            "the browser and this shell disagree on where the socket is (XDG_RUNTIME_DIR or \
             TABWIRE_SOCKET differ): give tabwire mcp {}={} (the \"env\" of its MCP config), \
             or start the browser from a session like this one",
            paths::SOCKET_ENV,
            paths::shell_quote(theirs)
        ),
    )
}

/// Failures if the socket or its folder is not private to `uid`.
#[cfg(unix)]
fn ownership(socket: &Path, meta: &fs::Metadata, uid: u32) -> Vec<Check> {
    let shown = socket.display();
    let mut checks = Vec::new();
    if meta.uid() != uid {
        checks.push(Check::fail(
            format!(
                "{shown} belongs to uid {}, not to you (uid {uid})",
                meta.uid()
            ),
            format!("remove {shown} and restart the browser"),
        ));
    }
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        checks.push(Check::fail(
            format!("{shown} has mode {mode:o}: other users may connect to it"),
            format!("run `chmod 600 {shown}` or restart the browser"),
        ));
    }
    let dir_mode = socket
        .parent()
        .and_then(|dir| Some((dir, fs::metadata(dir).ok()?.permissions().mode() & 0o7777)));
    if let Some((dir, dir_mode)) = dir_mode {
        if dir_mode & 0o022 != 0 && dir_mode & 0o1000 == 0 {
            checks.push(Check::fail(
                format!(
                    "{} has mode {:o}: others may replace the socket",
                    dir.display(),
                    dir_mode & 0o777
                ),
                format!("run `chmod 700 {}`", dir.display()),
            ));
        }
    }
    checks
}

/// A browser connected through the relay, with its extension version.
pub async fn check_browser(socket: &Path) -> Check {
    let link = Link::spawn(
        PathBuf::from(socket),
        ClientHello {
            client_name: "tabwire doctor".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            session: crate::link::new_session_key(),
            probe: true,
            folder: None,
        },
    );
    if link.wait_for_browser(BROWSER_WAIT).await {
        let version = link.browser_version().unwrap_or_default();
        let what = format!("browser connected (tabwire extension {version})");
        match Mismatch::between(&version, env!("CARGO_PKG_VERSION")) {
            None => Check::ok(what),
            Some(mismatch) => Check::fail(what, mismatch.line()),
        }
    } else {
        Check::fail(
            "the relay is up but no browser said hello within 2 s",
            "reload the tabwire extension at chrome://extensions and look at its service \
             worker's console for errors",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::check::Status;
    use super::*;

    fn serving(hosts: &[NativeHost]) -> Serving<'_> {
        Serving {
            hosts,
            newest_browser: None,
        }
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn a_browser_that_has_just_started_has_not_started_its_host_yet() {
        let (_tmp, socket) = crate::transport::test_address();
        let young = Serving {
            hosts: &[],
            newest_browser: SystemTime::now().checked_sub(Duration::from_secs(2)),
        };
        let checks = check_socket(&socket, young).await;
        assert!(
            checks[0].what.contains("yet: the browser started 2 s ago"),
            "{checks:?}"
        );
        assert!(checks[0]
            .fix
            .as_deref()
            .unwrap()
            .starts_with("run `tabwire doctor` again in a few seconds"));
        // Past the worker's start, the missing host is a failure to start it.
        let old = Serving {
            newest_browser: SystemTime::now().checked_sub(WORKER_START),
            ..young
        };
        let checks = check_socket(&socket, old).await;
        assert!(
            checks[0].what.contains("no tabwire native host is running"),
            "{checks:?}"
        );
    }

    fn host(pid: u32, socket: &str) -> NativeHost {
        NativeHost {
            pid,
            ppid: 1,
            socket: Some(PathBuf::from(socket)),
        }
    }

    #[tokio::test]
    async fn missing_socket_says_whether_a_native_host_runs() {
        let (_tmp, socket) = crate::transport::test_address();
        let checks = check_socket(&socket, Serving::default()).await;
        assert_eq!(checks[0].status, Status::Fail);
        // Windows cannot see which processes run: it says only that none serves.
        let nothing = if cfg!(windows) {
            "no tabwire native host serves it"
        } else {
            "no tabwire native host is running"
        };
        assert!(checks[0].what.contains(nothing), "{checks:?}");
        assert!(checks[0]
            .fix
            .as_deref()
            .unwrap()
            .contains("chrome://extensions"));

        let hosts = [host(9, "/run/other.sock")];
        let checks = check_socket(&socket, serving(&hosts)).await;
        assert!(
            checks[0].what.contains("pid 9) serves /run/other.sock"),
            "{checks:?}"
        );
        assert!(checks[0]
            .fix
            .as_deref()
            .unwrap()
            .contains("TABWIRE_SOCKET=/run/other.sock "));
        let hosts = [host(9, "/run/my sock")];
        let checks = check_socket(&socket, serving(&hosts)).await;
        assert!(checks[0]
            .fix
            .as_deref()
            .unwrap()
            .contains("TABWIRE_SOCKET='/run/my sock'"));
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn stale_socket_is_reported_as_refusing() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("relay.sock");
        drop(std::os::unix::net::UnixListener::bind(&path).unwrap());
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o700)).unwrap();
        let checks = check_socket(&path, Serving::default()).await;
        assert_eq!(checks.len(), 1, "{checks:?}");
        assert!(checks[0].what.contains("is stale"), "{checks:?}");
        assert!(checks[0]
            .what
            .contains("no native host of the browsers checked runs"));
        assert!(checks[0]
            .fix
            .as_deref()
            .unwrap()
            .contains("replaces the stale socket"));

        // A browser that started 2 s ago, after the socket was made: its own host left it.
        let young = Serving {
            hosts: &[],
            newest_browser: SystemTime::now().checked_sub(Duration::from_secs(2)),
        };
        let checks = check_socket(&path, young).await;
        assert!(checks[0].what.contains("is stale"), "{checks:?}");
        // Made an hour before it started: an earlier run's, and this one's is not up yet.
        let path_c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        let hour_ago = libc::timeval {
            tv_sec: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs() as libc::time_t
                - 3600,
            tv_usec: 0,
        };
        // SAFETY: a NUL-terminated path and two initialised timevals.
        assert_eq!(
            unsafe { libc::utimes(path_c.as_ptr(), [hour_ago, hour_ago].as_ptr()) },
            0
        );
        let checks = check_socket(&path, young).await;
        assert!(
            checks[0]
                .what
                .contains("is left from an earlier run's native host: the browser started 2 s ago"),
            "{checks:?}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn live_relay_with_a_browser_passes_every_check() {
        use crate::native_host::testing::TestRelay;
        use tabwire_shared::{Envelope, Event, FromExtension};
        let mut relay = TestRelay::start().await;
        let checks = check_socket(&relay.socket, Serving::default()).await;
        assert!(checks.iter().all(|c| c.status == Status::Ok), "{checks:?}");
        assert_eq!(check_browser(&relay.socket).await.status, Status::Fail);
        relay
            .browser
            .send(&Envelope::notice(FromExtension::Event(
                Event::BrowserConnected {
                    // The extension of this very version: another one is a failure.
                    version: env!("CARGO_PKG_VERSION").into(),
                    instance: String::new(),
                    pieces: tabwire_shared::pieces::VERSION,
                },
            )))
            .await;
        let check = check_browser(&relay.socket).await;
        assert_eq!(check.status, Status::Ok, "{check:?}");
        assert!(check.what.contains(env!("CARGO_PKG_VERSION")));
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn world_accessible_socket_is_flagged() {
        use crate::platform::current_uid;
        let relay = crate::native_host::testing::TestRelay::start().await;
        fs::set_permissions(&relay.socket, fs::Permissions::from_mode(0o666)).unwrap();
        let checks = check_socket_of(&relay.socket, current_uid(), Serving::default()).await;
        assert!(checks
            .iter()
            .any(|c| c.status == Status::Fail && c.what.contains("666")));
        let checks = check_socket_of(&relay.socket, current_uid() + 1, Serving::default()).await;
        assert!(checks
            .iter()
            .any(|c| c.status == Status::Fail && c.what.contains("belongs")));
    }
}
