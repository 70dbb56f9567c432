//! `tabwire doctor`: checks each link of the chain, in order, and says how to fix the
//! first broken one.
//!
//! The chain: this `tabwire` binary → a host manifest per browser (valid, naming an
//! executable, allowing our extension) → the wrapper script it names (running an
//! existing `tabwire`) → the relay socket (present, private, accepting) → a browser
//! connected through it (the extension's `BrowserConnected`, with its version).
//!
//! Each check is a plain function returning [`Check`]s, so the ones that need no browser
//! are tested on temporary directories. Doctor only reads and connects; it changes
//! nothing (the fixes it prints do).

use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use tabwire_shared::{ClientHello, EXTENSION_ORIGIN, NATIVE_HOST_NAME};

use crate::link::Link;
use crate::native_host::socket::current_uid;
use crate::paths::{self, Browser, HostManifest, MANIFEST_FILE};

/// How long doctor waits for the relay to pass on the browser's hello.
const BROWSER_WAIT: Duration = Duration::from_secs(2);

/// The outcome of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The link works.
    Ok,
    /// The link is broken; the chain cannot work until it is fixed.
    Fail,
    /// Worth knowing, not an error (e.g. a browser that is not installed).
    Note,
}

/// One line of the report: what was checked, and how to fix it if it failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// The outcome.
    pub status: Status,
    /// What was found.
    pub what: String,
    /// What to do about it (for failures, and notes that suggest something).
    pub fix: Option<String>,
}

impl Check {
    fn ok(what: impl Into<String>) -> Self {
        Self {
            status: Status::Ok,
            what: what.into(),
            fix: None,
        }
    }

    fn fail(what: impl Into<String>, fix: impl Into<String>) -> Self {
        Self {
            status: Status::Fail,
            what: what.into(),
            fix: Some(fix.into()),
        }
    }

    fn note(what: impl Into<String>, fix: Option<String>) -> Self {
        Self {
            status: Status::Note,
            what: what.into(),
            fix,
        }
    }

    fn print(&self) {
        let mark = match self.status {
            Status::Ok => "✓",
            Status::Fail => "✗",
            Status::Note => "·",
        };
        println!("{mark} {}", self.what);
        if let Some(fix) = &self.fix {
            println!("    fix: {fix}");
        }
    }
}

/// Runs every check, printing one line each; true if nothing failed.
pub async fn run() -> anyhow::Result<bool> {
    let mut all_ok = true;
    let mut report = |checks: Vec<Check>| {
        for check in &checks {
            check.print();
        }
        let ok = checks.iter().all(|c| c.status != Status::Fail);
        all_ok &= ok;
        ok
    };

    let exe = std::env::current_exe().ok();
    report(vec![check_binary(exe.as_deref())]);

    let home = dirs::home_dir();
    let manifests_ok = match &home {
        Some(home) => report(check_manifests(home, exe.as_deref())),
        None => report(vec![Check::fail(
            "cannot find your home directory",
            "set HOME and run `tabwire doctor` again",
        )]),
    };
    if !manifests_ok {
        println!("  (the relay socket and browser are checked once the manifests are fixed)");
        return Ok(false);
    }

    let socket = match paths::socket_path() {
        Ok(socket) => socket,
        Err(e) => {
            report(vec![Check::fail(
                format!("relay socket: {e}"),
                "set XDG_RUNTIME_DIR or HOME",
            )]);
            return Ok(false);
        }
    };
    let socket_checks = check_socket(&socket, current_uid()).await;
    if !report(socket_checks) {
        return Ok(false);
    }
    report(vec![check_browser(&socket).await]);
    Ok(all_ok)
}

/// The running binary.
pub fn check_binary(exe: Option<&Path>) -> Check {
    match exe {
        Some(exe) if exe.is_file() => Check::ok(format!(
            "tabwire {} at {}",
            env!("CARGO_PKG_VERSION"),
            exe.display()
        )),
        Some(exe) => Check::fail(
            format!(
                "the running tabwire binary {} no longer exists",
                exe.display()
            ),
            "reinstall or rebuild tabwire, then run `tabwire install`",
        ),
        None => Check::fail(
            "cannot find the running tabwire binary's path",
            "run tabwire by its full path",
        ),
    }
}

/// The host manifest of every supported browser under `home`; fails unless at least
/// one browser has a valid registration and no present manifest is broken.
pub fn check_manifests(home: &Path, running_exe: Option<&Path>) -> Vec<Check> {
    let mut checks = Vec::new();
    let mut valid = 0;
    for browser in Browser::ALL {
        let (Some(config), Some(dir)) =
            (browser.config_dir_in(home), browser.manifest_dir_in(home))
        else {
            continue;
        };
        let path = dir.join(MANIFEST_FILE);
        let name = browser.display_name();
        if !path.exists() {
            if config.is_dir() {
                checks.push(Check::note(
                    format!(
                        "{name}: tabwire is not registered ({} is missing)",
                        path.display()
                    ),
                    Some(format!(
                        "to use {name}, run `tabwire install --browser {}`",
                        flag(browser)
                    )),
                ));
            }
            continue;
        }
        match check_manifest_file(&path, running_exe) {
            Ok(lines) => {
                valid += 1;
                checks.push(Check::ok(format!(
                    "{name}: host manifest {}",
                    path.display()
                )));
                checks.extend(lines);
            }
            Err(problems) => checks.push(Check::fail(
                format!(
                    "{name}: host manifest {} is broken: {}",
                    path.display(),
                    problems.join("; ")
                ),
                format!(
                    "run `tabwire install --browser {}` to rewrite it",
                    flag(browser)
                ),
            )),
        }
    }
    if valid == 0 {
        checks.push(Check::fail(
            "no browser has tabwire's native host registered",
            "run `tabwire install` (add `--browser chrome|chromium|edge|brave` if your \
             browser was not found)",
        ));
    }
    checks
}

fn flag(browser: Browser) -> &'static str {
    match browser {
        Browser::Chrome => "chrome",
        Browser::Chromium => "chromium",
        Browser::Edge => "edge",
        Browser::Brave => "brave",
    }
}

/// Checks one manifest file and the program it names. `Ok` carries extra lines about
/// the wrapper; `Err` lists every problem found.
pub fn check_manifest_file(
    path: &Path,
    running_exe: Option<&Path>,
) -> Result<Vec<Check>, Vec<String>> {
    let text = fs::read_to_string(path).map_err(|e| vec![format!("cannot read it: {e}")])?;
    let manifest = validate_manifest(&text)?;
    let mut problems = Vec::new();
    if !is_executable(&manifest.path) {
        problems.push(format!(
            "its program {} does not exist or is not executable",
            manifest.path.display()
        ));
        return Err(problems);
    }
    let mut notes = Vec::new();
    if let Some(target) = fs::read_to_string(&manifest.path)
        .ok()
        .and_then(|script| paths::wrapper_target(&script))
    {
        if !is_executable(&target) {
            return Err(vec![format!(
                "its wrapper {} runs {}, which does not exist or is not executable",
                manifest.path.display(),
                target.display()
            )]);
        }
        let same = running_exe
            .and_then(|exe| exe.canonicalize().ok())
            .zip(target.canonicalize().ok())
            .is_some_and(|(a, b)| a == b);
        if same || running_exe.is_none() {
            notes.push(Check::ok(format!("  wrapper runs {}", target.display())));
        } else {
            notes.push(Check::note(
                format!("  wrapper runs {}, not this binary", target.display()),
                Some("run `tabwire install` with the tabwire you want the browser to use".into()),
            ));
        }
    }
    Ok(notes)
}

/// Parses a manifest and checks its fields; every problem found is listed.
pub fn validate_manifest(text: &str) -> Result<HostManifest, Vec<String>> {
    let manifest: HostManifest =
        serde_json::from_str(text).map_err(|e| vec![format!("not a valid host manifest: {e}")])?;
    let mut problems = Vec::new();
    if manifest.name != NATIVE_HOST_NAME {
        problems.push(format!(
            "its name is {:?}, not {NATIVE_HOST_NAME:?}",
            manifest.name
        ));
    }
    if manifest.kind != "stdio" {
        problems.push(format!("its type is {:?}, not \"stdio\"", manifest.kind));
    }
    if !manifest.path.is_absolute() {
        problems.push(format!(
            "its path {} is not absolute",
            manifest.path.display()
        ));
    }
    if !manifest
        .allowed_origins
        .iter()
        .any(|o| o == EXTENSION_ORIGIN)
    {
        problems.push(format!(
            "allowed_origins does not contain {EXTENSION_ORIGIN}"
        ));
    }
    if problems.is_empty() {
        Ok(manifest)
    } else {
        Err(problems)
    }
}

fn is_executable(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The relay socket: present, a socket, owned by `uid`, private, accepting.
pub async fn check_socket(socket: &Path, uid: u32) -> Vec<Check> {
    let shown = socket.display();
    let from_env = std::env::var_os(paths::SOCKET_ENV).is_some();
    let source = if from_env {
        " (from TABWIRE_SOCKET)"
    } else {
        ""
    };
    let meta = match fs::symlink_metadata(socket) {
        Ok(meta) => meta,
        Err(_) => {
            return vec![Check::fail(
                format!("no relay socket at {shown}{source}: the browser has not started tabwire's native host"),
                "start the browser with the tabwire extension enabled (it starts the native host \
                 when it connects). If the browser is running, open chrome://extensions, check \
                 the tabwire extension for errors, and inspect its service worker's console: \
                 \"Specified native messaging host not found\" means `tabwire install` was not \
                 run for this browser",
            )]
        }
    };
    let mut checks = Vec::new();
    if !meta.file_type().is_socket() {
        return vec![Check::fail(
            format!("{shown} is not a socket"),
            format!("remove {shown}; the native host recreates it"),
        )];
    }
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
    if let Some(dir) = socket.parent() {
        if let Ok(dir_meta) = fs::metadata(dir) {
            let dir_mode = dir_meta.permissions().mode() & 0o777;
            if dir_mode & 0o022 != 0 && dir_mode & 0o1000 == 0 {
                checks.push(Check::fail(
                    format!(
                        "{} has mode {dir_mode:o}: others may replace the socket",
                        dir.display()
                    ),
                    format!("run `chmod 700 {}`", dir.display()),
                ));
            }
        }
    }
    match tokio::time::timeout(Duration::from_secs(2), tokio::net::UnixStream::connect(socket)).await {
        Ok(Ok(_)) => checks.push(Check::ok(format!("relay socket {shown}{source} accepts connections"))),
        Ok(Err(e)) => checks.push(Check::fail(
            format!("relay socket {shown} refuses connections ({e}): it was left by a native host that has exited"),
            "restart the browser (or reload the tabwire extension at chrome://extensions); the \
             native host replaces a stale socket",
        )),
        Err(_) => checks.push(Check::fail(
            format!("relay socket {shown} did not accept a connection within 2 s"),
            "restart the browser",
        )),
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
        },
    );
    if link.wait_for_browser(BROWSER_WAIT).await {
        let version = link.browser_version().unwrap_or_default();
        Check::ok(format!("browser connected (tabwire extension {version})"))
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
    use super::*;

    fn executable(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
        fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn a_good_manifest_validates() {
        let text = paths::render_host_manifest(Path::new("/x/native-host"));
        assert!(validate_manifest(&text).is_ok());
    }

    #[test]
    fn every_manifest_problem_is_listed() {
        let text = r#"{"name": "other", "path": "rel/host", "type": "pipe",
                       "allowed_origins": ["chrome-extension://zzz/"]}"#;
        let problems = validate_manifest(text).unwrap_err();
        assert_eq!(problems.len(), 4, "{problems:?}");
        assert!(validate_manifest("{").unwrap_err()[0].contains("not a valid"));
        assert!(validate_manifest(r#"{"name": "dev.tabwire"}"#).is_err());
    }

    #[test]
    fn registration_written_by_install_checks_out() {
        let tmp = tempfile::tempdir().unwrap();
        let exe = tmp.path().join("bin/tabwire");
        executable(&exe, "#!/bin/sh\n");
        let manifest = paths::write_native_host_registration(
            &tmp.path().join("hosts"),
            &tmp.path().join("wrap"),
            &exe,
            paths::HostEnv::default(),
        )
        .unwrap();
        let lines = check_manifest_file(&manifest, Some(&exe)).unwrap();
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].status, Status::Ok);

        let other = tmp.path().join("bin/other-tabwire");
        executable(&other, "#!/bin/sh\n");
        let lines = check_manifest_file(&manifest, Some(&other)).unwrap();
        assert_eq!(lines[0].status, Status::Note, "wrapper runs another binary");
    }

    #[test]
    fn wrapper_pointing_at_a_missing_binary_is_broken() {
        let tmp = tempfile::tempdir().unwrap();
        let manifest = paths::write_native_host_registration(
            &tmp.path().join("hosts"),
            &tmp.path().join("wrap"),
            &tmp.path().join("gone/tabwire"),
            paths::HostEnv::default(),
        )
        .unwrap();
        let problems = check_manifest_file(&manifest, None).unwrap_err();
        assert!(problems[0].contains("gone/tabwire"), "{problems:?}");
    }

    #[test]
    fn manifest_naming_a_missing_program_is_broken() {
        let tmp = tempfile::tempdir().unwrap();
        let manifest = paths::write_host_manifest(tmp.path(), &tmp.path().join("nope")).unwrap();
        assert!(check_manifest_file(&manifest, None).unwrap_err()[0].contains("not executable"));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn manifests_are_checked_per_browser() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path();
        // Nothing at all: one failure telling to run install.
        let checks = check_manifests(home, None);
        assert_eq!(checks.len(), 1);
        assert_eq!(checks[0].status, Status::Fail);
        assert!(checks[0]
            .fix
            .as_deref()
            .unwrap()
            .contains("tabwire install"));

        // Chrome used but not registered, Chromium registered.
        fs::create_dir_all(home.join(".config/google-chrome")).unwrap();
        let exe = home.join("bin/tabwire");
        executable(&exe, "#!/bin/sh\n");
        paths::write_native_host_registration(
            &Browser::Chromium.manifest_dir_in(home).unwrap(),
            &home.join("wrap"),
            &exe,
            paths::HostEnv::default(),
        )
        .unwrap();
        let checks = check_manifests(home, Some(&exe));
        assert!(
            checks.iter().all(|c| c.status != Status::Fail),
            "{checks:?}"
        );
        assert!(checks
            .iter()
            .any(|c| c.status == Status::Note && c.what.contains("Google Chrome")));

        // A broken Edge manifest fails the check.
        let edge = Browser::Edge.manifest_dir_in(home).unwrap();
        fs::create_dir_all(&edge).unwrap();
        fs::write(edge.join(MANIFEST_FILE), "{}").unwrap();
        let checks = check_manifests(home, Some(&exe));
        let failed: Vec<_> = checks.iter().filter(|c| c.status == Status::Fail).collect();
        assert_eq!(failed.len(), 1);
        assert!(failed[0].fix.as_deref().unwrap().contains("--browser edge"));
    }

    #[tokio::test]
    async fn missing_socket_fails_with_what_to_do() {
        let tmp = tempfile::tempdir().unwrap();
        let checks = check_socket(&tmp.path().join("relay.sock"), current_uid()).await;
        assert_eq!(checks[0].status, Status::Fail);
        assert!(checks[0]
            .fix
            .as_deref()
            .unwrap()
            .contains("tabwire install"));
    }

    #[tokio::test]
    async fn stale_socket_is_reported_as_refusing() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("relay.sock");
        drop(std::os::unix::net::UnixListener::bind(&path).unwrap());
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o700)).unwrap();
        let checks = check_socket(&path, current_uid()).await;
        assert_eq!(checks.len(), 1, "{checks:?}");
        assert!(checks[0].what.contains("refuses"));
    }

    #[tokio::test]
    async fn live_relay_with_a_browser_passes_every_check() {
        use crate::native_host::testing::TestRelay;
        use tabwire_shared::{Envelope, Event, FromExtension};
        let mut relay = TestRelay::start().await;
        let checks = check_socket(&relay.socket, current_uid()).await;
        assert!(checks.iter().all(|c| c.status == Status::Ok), "{checks:?}");
        assert_eq!(check_browser(&relay.socket).await.status, Status::Fail);
        relay
            .browser
            .send(&Envelope::notice(FromExtension::Event(
                Event::BrowserConnected {
                    version: "9.9".into(),
                    instance: String::new(),
                },
            )))
            .await;
        let check = check_browser(&relay.socket).await;
        assert_eq!(check.status, Status::Ok);
        assert!(check.what.contains("9.9"));
    }

    #[tokio::test]
    async fn world_accessible_socket_is_flagged() {
        let relay = crate::native_host::testing::TestRelay::start().await;
        fs::set_permissions(&relay.socket, fs::Permissions::from_mode(0o666)).unwrap();
        let checks = check_socket(&relay.socket, current_uid()).await;
        assert!(checks
            .iter()
            .any(|c| c.status == Status::Fail && c.what.contains("666")));
        let checks = check_socket(&relay.socket, current_uid() + 1).await;
        assert!(checks
            .iter()
            .any(|c| c.status == Status::Fail && c.what.contains("belongs")));
    }
}
