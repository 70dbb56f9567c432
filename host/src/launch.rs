//! `tabwire mcp --launch`: a dedicated Chromium with the tabwire extension loaded.
//!
//! The launched browser gets a profile of its own (a temporary one, deleted on exit,
//! unless `--userDataDir` names one), the extension this binary carries (written into
//! the session folder) or `--extensionDir` via `--load-extension`, and a
//! native-host registration inside that profile whose wrapper points the relay at a
//! private socket. So a launched session never meets the user's own browser or another
//! agent's launched browser. A [`LaunchMark`] in the profile folder says, while this
//! session runs, that the browser is an agent's: `tabwire doctor` and the others leave
//! it out of the user's browsers.
//!
//! The browser runs in its own process group and is told to die with us
//! (`PR_SET_PDEATHSIG` on Linux); on exit the whole group is terminated and the
//! temporary folders removed, so nothing is left behind. Those folders (the session's,
//! holding the relay socket and the native-host wrapper, and the temporary profile)
//! are [`OwnedDir`]s: 0700 from the moment they exist, and removed by the next
//! `tabwire mcp` ([`remove_leftovers`]) if this one was killed before it could.
//!
//! Branded Google Chrome 137 and later ignores `--load-extension`; use Chromium (or
//! install the extension into Chrome normally and run `tabwire mcp` without --launch).
//!
//! Not on Windows: there a browser finds native hosts through the registry only, never
//! in its profile folder, so a launched browser could not be given a relay of its own.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context};

use crate::bundled_extension;
use crate::launch_mark::{ClaimError, LaunchMark};
use crate::mcp::config::McpArgs;
use crate::owned::{self, OwnedDir};
use crate::paths;
use crate::platform::{self, Stop};

/// How the folders a launch makes in the temporary folder begin: `tabwire-<random>`
/// for the session, `tabwire-profile-<random>` for a temporary profile.
const FOLDER_PREFIX: &str = "tabwire-";

/// Removes the launch folders that `tabwire mcp` sessions no longer running left in
/// the temporary folder (they were killed before they could). Another user's folders,
/// and a live session's, are left alone.
pub fn remove_leftovers() {
    owned::remove_dead(&std::env::temp_dir(), FOLDER_PREFIX);
}

/// Browser executables tried, in order, when `--executablePath` is not given.
const CANDIDATES: &[&str] = &[
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "microsoft-edge",
    "brave-browser",
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
];

/// A running browser that tabwire started, and the folders it made for it.
pub struct LaunchedBrowser {
    child: Child,
    /// The browser executable that was started.
    pub executable: PathBuf,
    /// The relay socket the launched browser's native host listens on.
    pub socket: PathBuf,
    // Dropped (and so deleted or undone) after the browser is stopped: see `Drop`.
    _registration: Registration,
    _mark: LaunchMark,
    _session_dir: OwnedDir,
    _profile_dir: Option<OwnedDir>,
}

impl LaunchedBrowser {
    /// Starts the browser. Call from the main thread: Linux ties the browser's life to
    /// the thread that started it.
    pub fn start(args: &McpArgs) -> anyhow::Result<Self> {
        if cfg!(windows) {
            bail!(
                "--launch is not supported on Windows: a browser there finds tabwire's native \
                 host through the registry, not in a profile of its own. Run `tabwire install`, \
                 load the extension into your browser, and run `tabwire mcp` without --launch"
            );
        }
        if args.isolated && args.user_data_dir.is_some() {
            bail!("--isolated (a temporary profile) and --userDataDir (a kept one) contradict: give one");
        }
        let executable = find_executable(args.executable_path.as_deref())?;
        let temp = std::env::temp_dir();
        let session_dir = OwnedDir::create(&temp, FOLDER_PREFIX)
            .with_context(|| format!("cannot make a session folder in {}", temp.display()))?;
        let extension = match &args.extension_dir {
            Some(dir) if dir.join("manifest.json").is_file() => dir.canonicalize()?,
            Some(dir) => bail!(
                "{} is not a built tabwire extension (no manifest.json): pass the folder \
                 scripts/build makes (dist/extension), or leave out --extensionDir to load \
                 the extension this tabwire carries",
                dir.display()
            ),
            None => bundled_extension::write_to(&session_dir.path().join("extension"))
                .context("cannot write the tabwire extension into the session folder")?,
        };
        let socket = session_dir.path().join("relay.sock");
        let (profile, profile_dir) = match &args.user_data_dir {
            Some(dir) => {
                refuse_own_profile(dir)?;
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("cannot create {}", dir.display()))?;
                (dir.clone(), None)
            }
            None => {
                let dir = OwnedDir::create(&temp, &format!("{FOLDER_PREFIX}profile-"))
                    .with_context(|| {
                        format!("cannot make a temporary profile in {}", temp.display())
                    })?;
                (dir.path().to_path_buf(), Some(dir))
            }
        };
        let mark = LaunchMark::claim(&profile).map_err(|error| match error {
            ClaimError::Taken => anyhow!(
                "--userDataDir={} is in use by another tabwire session, which is launching \
                 or running its browser there; one browser runs on a profile at a time. Give \
                 each agent its own folder, or leave out --userDataDir for a temporary one.",
                profile.display()
            ),
            ClaimError::Io(error) => anyhow!(
                "cannot mark {} as a launched browser's: {error}",
                profile.display()
            ),
        })?;
        if args.user_data_dir.is_some() {
            refuse_profile_in_use(&profile)?;
        }
        let exe = std::env::current_exe().context("cannot locate the tabwire binary")?;
        let registration = Registration::remember(&profile);
        paths::write_native_host_registration(
            &profile.join("NativeMessagingHosts"),
            session_dir.path(),
            &exe,
            paths::HostEnv {
                socket: Some(&socket),
                agent_profile: args.share_all_tabs,
            },
        )
        .context("cannot register the native host in the launched profile")?;

        let mut command = Command::new(&executable);
        command
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(format!("--load-extension={}", extension.display()))
            .arg(format!(
                "--disable-extensions-except={}",
                extension.display()
            ))
            .arg("--no-first-run")
            .arg("--no-default-browser-check");
        if args.headless {
            command.arg("--headless");
        }
        command
            .args(browser_flags(&args.chrome_args))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        platform::start_in_own_group(&mut command);
        if is_branded_chrome(&executable) {
            tracing::warn!(
                "{} looks like Google Chrome, which ignores --load-extension from version 137; \
                 if the extension does not connect, use Chromium",
                executable.display()
            );
        }
        let child = command
            .spawn()
            .with_context(|| format!("cannot start {}", executable.display()))?;
        tracing::info!(
            pid = child.id(),
            browser = %executable.display(),
            socket = %socket.display(),
            "launched browser"
        );
        Ok(Self {
            child,
            executable,
            socket,
            _registration: registration,
            _mark: mark,
            _session_dir: session_dir,
            _profile_dir: profile_dir,
        })
    }

    /// Whether the browser process has exited.
    pub fn has_exited(&mut self) -> bool {
        !matches!(self.child.try_wait(), Ok(None))
    }

    /// Stops the browser and everything it started: a polite request first, then force.
    fn stop(&mut self) {
        if self.has_exited() {
            return;
        }
        let group = self.child.id();
        platform::signal_group(group, Stop::Politely);
        let deadline = Instant::now() + Duration::from_secs(3);
        while Instant::now() < deadline {
            if self.has_exited() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        // The rest of the group follows by itself, given a moment: the native host (in
        // the group, so signalled too) tells its other agents that the browser quit
        // before it exits.
        let deadline = Instant::now() + Duration::from_secs(1);
        while platform::group_exists(group) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        // Helpers still left (renderers, zygotes) go too; wait, bounded, until the
        // group is empty so that nothing outlives us.
        platform::signal_group(group, Stop::Now);
        let _ = self.child.wait();
        let deadline = Instant::now() + Duration::from_secs(3);
        while platform::group_exists(group) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for LaunchedBrowser {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The Chrome features a launched browser turns on. Chrome counts an extension's
/// navigation as one the page started, and pages may not open a `data:` document in
/// the top frame, so without this `navigate_page` could not go to a `data:` URL (the
/// user's own browser keeps the rule: there it says to use `new_page`).
const FEATURES: &[&str] = &["AllowContentInitiatedDataUrlNavigations"];

/// The user's `--chromeArg` flags with tabwire's [`FEATURES`] added. Chrome reads one
/// `--enable-features` list, so a list the user gives is merged into it.
fn browser_flags(chrome_args: &[String]) -> Vec<String> {
    let mut features: Vec<&str> = FEATURES.to_vec();
    let mut flags = vec![String::new()];
    for arg in chrome_args {
        match arg.strip_prefix("--enable-features=") {
            Some(list) => features.extend(list.split(',').filter(|f| !f.is_empty())),
            None => flags.push(arg.clone()),
        }
    }
    flags[0] = format!("--enable-features={}", features.join(","));
    flags
}

/// Refuses a `--userDataDir` that is a browser's own profile folder: a launched
/// browser shares every tab with the agent and registers its own native host there,
/// which must never happen to the user's real profile.
fn refuse_own_profile(dir: &Path) -> anyhow::Result<()> {
    let wanted = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    if let Some(browser) = own_profile_folders()
        .into_iter()
        .find(|(own, _)| own.canonicalize().unwrap_or_else(|_| own.clone()) == wanted)
        .map(|(_, name)| name)
    {
        bail!(
            "--userDataDir={} is {browser}'s own profile folder: a browser tabwire launches \
             belongs to the agent (every tab is shared with it), so it never uses your \
             profile. Give another folder, or run `tabwire mcp` without --launch to work in \
             your own browser with the tabs you share.",
            dir.display()
        );
    }
    Ok(())
}

/// Refuses a `--userDataDir` a running browser is using (the user's, or one another
/// program started): the browser started on it would hand its command line to that
/// one and exit, and tabwire's extension would never load.
fn refuse_profile_in_use(dir: &Path) -> anyhow::Result<()> {
    if profile_in_use(dir) {
        bail!(
            "--userDataDir={} is in use by a running browser; tabwire launches its own \
             browser on a profile nothing else uses. Close that browser or give another \
             folder.",
            dir.display()
        );
    }
    Ok(())
}

/// Whether a live browser holds the profile: Chromium keeps a `SingletonLock` link to
/// `<host>-<pid>` while it runs (a crash can leave a stale one behind).
fn profile_in_use(dir: &Path) -> bool {
    let Ok(target) = std::fs::read_link(dir.join("SingletonLock")) else {
        return false;
    };
    let target = target.to_string_lossy();
    let pid = target
        .rsplit('-')
        .next()
        .and_then(|p| p.parse::<u32>().ok());
    match pid {
        Some(pid) if pid > 0 => platform::process_exists(pid),
        _ => true,
    }
}

/// The browsers' own profile folders (every release channel), with the browser's name.
fn own_profile_folders() -> Vec<(PathBuf, &'static str)> {
    let mut folders: Vec<(PathBuf, &'static str)> = paths::Browser::ALL
        .into_iter()
        .filter_map(|b| Some((b.config_dir()?, b.display_name())))
        .collect();
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| dirs::home_dir().map(|h| h.join(".config")));
    if let Some(config) = config {
        for (name, browser) in [
            ("google-chrome", "Google Chrome"),
            ("google-chrome-beta", "Google Chrome Beta"),
            ("google-chrome-unstable", "Google Chrome Dev"),
            ("chromium", "Chromium"),
            ("microsoft-edge", "Microsoft Edge"),
            ("microsoft-edge-beta", "Microsoft Edge Beta"),
            ("microsoft-edge-dev", "Microsoft Edge Dev"),
            ("BraveSoftware/Brave-Browser", "Brave"),
        ] {
            folders.push((config.join(name), browser));
        }
    }
    if let Some(home) = dirs::home_dir() {
        folders.push((
            home.join("snap/chromium/common/chromium"),
            "Chromium (snap)",
        ));
    }
    folders
}

/// The launched profile's native-host manifest as it was before tabwire wrote its own;
/// put back (or removed) on exit, so a kept profile is not left pointing at a deleted
/// wrapper or at an agent-owned relay.
struct Registration {
    manifest: PathBuf,
    before: Option<Vec<u8>>,
}

impl Registration {
    fn remember(profile: &Path) -> Self {
        let manifest = profile
            .join("NativeMessagingHosts")
            .join(paths::MANIFEST_FILE);
        let before = std::fs::read(&manifest).ok();
        Self { manifest, before }
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        let undone = match &self.before {
            Some(before) => std::fs::write(&self.manifest, before),
            None => match std::fs::remove_file(&self.manifest) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                other => other,
            },
        };
        if let Err(error) = undone {
            tracing::warn!(manifest = %self.manifest.display(), %error, "could not undo the launched browser's native-host registration");
        }
    }
}

/// The browser to launch: the given path, else the first candidate found.
fn find_executable(given: Option<&Path>) -> anyhow::Result<PathBuf> {
    if let Some(path) = given {
        if path.is_file() {
            return Ok(path.to_path_buf());
        }
        bail!("--executablePath {} does not exist", path.display());
    }
    // An absolute candidate is taken as it is; a name is looked up on PATH.
    if let Some(found) = CANDIDATES.iter().find_map(|c| which::which(c).ok()) {
        return Ok(found);
    }
    bail!(
        "no Chromium-based browser found on PATH (tried {}). Install Chromium \
         (e.g. `apt-get install chromium`) or pass --executablePath=<path>",
        CANDIDATES.join(", ")
    )
}

/// Whether `path` looks like branded Google Chrome (not Chromium).
fn is_branded_chrome(path: &Path) -> bool {
    let text = path.to_string_lossy().to_ascii_lowercase();
    text.contains("google-chrome") || text.contains("google chrome")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_users_features_join_tabwires() {
        let flags = browser_flags(&[
            "--no-sandbox".to_owned(),
            "--enable-features=A,B".to_owned(),
        ]);
        assert_eq!(
            flags,
            [
                "--enable-features=AllowContentInitiatedDataUrlNavigations,A,B",
                "--no-sandbox"
            ]
        );
        assert_eq!(
            browser_flags(&[]),
            ["--enable-features=AllowContentInitiatedDataUrlNavigations"]
        );
    }

    #[test]
    fn a_kept_profile_gets_its_own_registration_back() {
        let profile = tempfile::tempdir().unwrap();
        let dir = profile.path().join("NativeMessagingHosts");
        std::fs::create_dir_all(&dir).unwrap();
        let manifest = dir.join(paths::MANIFEST_FILE);
        std::fs::write(&manifest, b"the user's own").unwrap();
        let registration = Registration::remember(profile.path());
        std::fs::write(&manifest, b"the launch's").unwrap();
        drop(registration);
        assert_eq!(std::fs::read(&manifest).unwrap(), b"the user's own");

        std::fs::remove_file(&manifest).unwrap();
        let registration = Registration::remember(profile.path());
        std::fs::write(&manifest, b"the launch's").unwrap();
        drop(registration);
        assert!(!manifest.exists(), "a registration tabwire made is removed");
    }

    #[cfg(unix)]
    #[test]
    fn a_profile_a_running_browser_uses_is_refused() {
        let profile = tempfile::tempdir().unwrap();
        assert!(refuse_profile_in_use(profile.path()).is_ok());
        let lock = profile.path().join("SingletonLock");
        let me = format!("host-{}", std::process::id());
        std::os::unix::fs::symlink(&me, &lock).unwrap();
        let error = refuse_profile_in_use(profile.path())
            .unwrap_err()
            .to_string();
        assert!(error.contains("in use by a running browser"), "{error}");
        // A lock left by a browser that crashed does not count.
        std::fs::remove_file(&lock).unwrap();
        std::os::unix::fs::symlink("host-2147483646", &lock).unwrap();
        assert!(refuse_profile_in_use(profile.path()).is_ok());
    }

    #[test]
    fn a_browsers_own_profile_folder_is_refused() {
        let Some(own) = paths::Browser::Chromium.config_dir() else {
            return;
        };
        let error = refuse_own_profile(&own).unwrap_err().to_string();
        assert!(error.contains("own profile folder"), "{error}");
        assert!(refuse_own_profile(&own.join("elsewhere")).is_ok());
    }
}
