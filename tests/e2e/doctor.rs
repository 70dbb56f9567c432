//! `tabwire doctor` against each broken link, produced for real: a temporary HOME, a
//! real headless Chromium (with the extension or without, asked about from the moment
//! it runs), a real `tabwire install`, a binary that moved, a native host killed so
//! that its socket stays behind, an agent's `tabwire mcp --launch` browser beside; and
//! what `tabwire install --uninstall` says it leaves running.
//!
//! Every doctor run but one names its profile folder with `--user-data-dir`, so
//! browsers that other tests (or other users) run beside these do not count; the one
//! that looks at every browser asserts only about the browser it started. Waits are
//! bounded and on conditions: the browser holding its profile's lock, its
//! `Preferences` listing what it loaded, the relay socket accepting, a killed process
//! being gone.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::chromium;

/// The extension's id (its manifest's key gives it).
const EXTENSION_ID: &str = "dcajeejnfbomekihgncnkkogenbcoklk";

/// Longest a browser may take to write its profile (it commits `Preferences` some
/// seconds after starting) or to start its native host.
const BROWSER_LIMIT: Duration = Duration::from_secs(60);

/// Longest one `tabwire` command may take.
const COMMAND_LIMIT: Duration = Duration::from_secs(60);

/// A temporary home: `HOME` and the XDG folders under it, for the browser and for
/// every `tabwire` command a test runs.
pub(crate) struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    pub(crate) fn new() -> Home {
        let dir = tempfile::Builder::new()
            .prefix("tabwire-doctor-home-")
            .tempdir()
            .expect("temp home");
        for sub in [".config", ".local/share", ".cache", "run"] {
            std::fs::create_dir_all(dir.path().join(sub)).expect("home folders");
        }
        let run = dir.path().join("run");
        std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o700)).expect("chmod");
        Home { dir }
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Chromium's own profile folder in this home.
    fn default_profile(&self) -> PathBuf {
        self.path().join(".config/chromium")
    }

    /// The relay socket of this home's native host.
    pub(crate) fn socket(&self) -> PathBuf {
        self.path().join("run/tabwire/relay.sock")
    }

    /// The environment a process of this home's user gets.
    pub(crate) fn env(&self) -> Vec<(&'static str, PathBuf)> {
        let home = self.path();
        vec![
            ("HOME", home.to_path_buf()),
            ("XDG_CONFIG_HOME", home.join(".config")),
            ("XDG_DATA_HOME", home.join(".local/share")),
            ("XDG_CACHE_HOME", home.join(".cache")),
            ("XDG_RUNTIME_DIR", home.join("run")),
        ]
    }

    /// Runs `exe` with `args` in this home; returns its stdout and whether it succeeded.
    pub(crate) async fn run(&self, exe: &Path, args: &[&str]) -> (String, bool) {
        let mut command = tokio::process::Command::new(exe);
        command
            .args(args)
            .envs(self.env())
            .env_remove("TABWIRE_SOCKET")
            .env_remove("CHROME_CONFIG_HOME")
            .stdin(Stdio::null())
            .kill_on_drop(true);
        let output = tokio::time::timeout(COMMAND_LIMIT, command.output())
            .await
            .unwrap_or_else(|_| panic!("{} {args:?} took over {COMMAND_LIMIT:?}", exe.display()))
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()));
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            !stderr.contains("panicked"),
            "{} {args:?} panicked:\n{stderr}",
            exe.display()
        );
        (stdout, output.status.success())
    }

    /// `tabwire doctor --user-data-dir <folder>`.
    async fn doctor(&self, folder: &Path) -> Report {
        let folder = folder.to_str().expect("UTF-8 folder");
        let (text, success) = self
            .run(&tabwire(), &["doctor", "--user-data-dir", folder])
            .await;
        // Shown when a test fails (captured otherwise).
        println!("$ tabwire doctor --user-data-dir {folder}\n{text}");
        Report { text, success }
    }

    /// `tabwire doctor` over every browser running as this user.
    async fn doctor_all(&self) -> Report {
        let (text, success) = self.run(&tabwire(), &["doctor"]).await;
        println!("$ tabwire doctor\n{text}");
        Report { text, success }
    }
}

/// Doctor's output.
struct Report {
    text: String,
    success: bool,
}

impl Report {
    /// The first failure and its fix.
    fn first_failure(&self) -> String {
        let mut lines = self.text.lines().skip_while(|l| !l.starts_with("✗ "));
        let what = lines
            .next()
            .unwrap_or_else(|| panic!("doctor reported no failure:\n{}", self.text));
        let fix = lines.next().filter(|l| l.trim_start().starts_with("fix:"));
        format!("{what}\n{}", fix.unwrap_or_default())
    }

    /// Asserts that the first failure says every one of `needles`.
    fn fails_first_with(&self, needles: &[&str]) -> &Self {
        assert!(!self.success, "doctor should have failed:\n{}", self.text);
        let first = self.first_failure();
        for needle in needles {
            assert!(
                first.contains(needle),
                "the first failure should say {needle:?}; it is:\n{first}\nwhole report:\n{}",
                self.text
            );
        }
        self
    }

    /// Asserts that a passing line says `needle`.
    fn passes(&self, needle: &str) -> &Self {
        assert!(
            self.text
                .lines()
                .any(|l| l.starts_with("✓ ") && l.contains(needle)),
            "doctor should have passed a line with {needle:?}:\n{}",
            self.text
        );
        self
    }
}

fn tabwire() -> PathBuf {
    crate::harness::tabwire_exe()
}

/// A Chromium the test started (headless, or with a window in a headful run), in its
/// own process group, killed when dropped.
pub(crate) struct Browser {
    child: Child,
    log: tempfile::NamedTempFile,
    /// Its screen in a headful run, stopped after the browser.
    _display: Option<crate::display::Display>,
}

impl Browser {
    /// Starts Chromium in `home` on the profile folder `folder`, with the built extension
    /// or without.
    pub(crate) fn start(home: &Home, folder: &Path, with_extension: bool) -> Browser {
        let extension = with_extension.then(crate::harness::extension_dir);
        Browser::start_loading(home, folder, extension.as_deref())
    }

    /// Starts Chromium in `home` on the profile folder `folder`, loading the unpacked
    /// extension folder `extension` when given.
    pub(crate) fn start_loading(home: &Home, folder: &Path, extension: Option<&Path>) -> Browser {
        let log = tempfile::NamedTempFile::new().expect("browser log");
        let (mut command, display) = chromium::for_run(folder);
        if let Some(extension) = extension {
            let extension = extension.canonicalize().expect("extension folder");
            command
                .arg(format!("--load-extension={}", extension.display()))
                .arg(format!(
                    "--disable-extensions-except={}",
                    extension.display()
                ));
        }
        command
            .arg("about:blank")
            .envs(home.env())
            .env_remove("TABWIRE_SOCKET")
            .env_remove("CHROME_CONFIG_HOME")
            .stderr(log.reopen().expect("log file"));
        let child = command.spawn().expect("start chromium");
        Browser {
            child,
            log,
            _display: display,
        }
    }

    /// The browser's main process (the launcher script execs it).
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.log.path()).unwrap_or_default()
    }

    /// Waits, bounded, until `profile/Default/Preferences` satisfies `ready`.
    async fn wait_preferences(
        &mut self,
        profile: &Path,
        what: &str,
        ready: impl Fn(&Value) -> bool,
    ) {
        let file = profile.join("Default/Preferences");
        self.wait(what, || {
            std::fs::read_to_string(&file)
                .ok()
                .and_then(|text| serde_json::from_str::<Value>(&text).ok())
                .is_some_and(|prefs| ready(&prefs))
        })
        .await;
    }

    /// Waits, bounded, until this browser runs on `profile`: its `SingletonLock` (made
    /// when it takes the folder, long before it writes any preferences) names its pid.
    pub(crate) async fn wait_running(&mut self, profile: &Path) {
        let lock = profile.join("SingletonLock");
        let mine = format!("-{}", self.pid());
        self.wait("it to hold its profile folder's lock", || {
            std::fs::read_link(&lock).is_ok_and(|to| to.to_string_lossy().ends_with(&mine))
        })
        .await;
    }

    /// Asks the browser to quit (SIGTERM, as a desktop session does) and waits, bounded,
    /// until it has.
    pub(crate) async fn quit(&mut self) {
        // SAFETY: signals the browser this test started; no memory is involved.
        unsafe { libc::kill(self.pid() as i32, libc::SIGTERM) };
        let deadline = Instant::now() + BROWSER_LIMIT;
        while !matches!(self.child.try_wait(), Ok(Some(_))) {
            assert!(
                Instant::now() < deadline,
                "the browser did not quit within {BROWSER_LIMIT:?} of SIGTERM; its log:\n{}",
                self.log()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Waits, bounded, until the profile lists the extension (the browser loaded it).
    pub(crate) async fn wait_extension(&mut self, profile: &Path) {
        self.wait_preferences(
            profile,
            "its Preferences to list the tabwire extension",
            |p| p["extensions"]["settings"][EXTENSION_ID].is_object(),
        )
        .await;
    }

    /// Waits, bounded, until `socket` accepts a connection (the native host serves it).
    pub(crate) async fn wait_socket(&mut self, socket: &Path) {
        self.wait(
            &format!("its native host to serve {}", socket.display()),
            || std::os::unix::net::UnixStream::connect(socket).is_ok(),
        )
        .await;
    }

    /// Polls `done` until it holds, failing after [`BROWSER_LIMIT`] or if the browser exits
    /// (with its log either way). Files and processes send no event to wait on; the
    /// pause between looks is tokio's, so the runtime keeps running meanwhile.
    async fn wait(&mut self, what: &str, done: impl Fn() -> bool) {
        let deadline = Instant::now() + BROWSER_LIMIT;
        while !done() {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "the browser exited ({status}) before {what}; its log:\n{}",
                    self.log()
                );
            }
            assert!(
                Instant::now() < deadline,
                "the browser did not get to {what} within {BROWSER_LIMIT:?}; its log:\n{}",
                self.log()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Kills the browser's native host while the browser is stopped (SIGSTOP), so that
    /// nothing replaces the socket the host leaves behind. The browser stays stopped.
    async fn kill_native_host_while_stopped(&mut self) {
        let browser = self.pid() as i32;
        // SAFETY: signals a process this test started; no memory is involved.
        unsafe { libc::kill(browser, libc::SIGSTOP) };
        let host = crate::harness::processes()
            .into_iter()
            .find(|p| p.ppid == self.pid() && !p.zombie && p.cmdline.contains(" native-host "))
            .unwrap_or_else(|| panic!("the browser {browser} runs no tabwire native host"));
        // SAFETY: as above, for the native host the browser started.
        unsafe { libc::kill(host.pid as i32, libc::SIGKILL) };
        self.wait("its native host to be gone after SIGKILL", || {
            crate::harness::processes()
                .iter()
                .all(|p| p.pid != host.pid || p.zombie)
        })
        .await;
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        chromium::kill_group(&mut self.child);
    }
}

#[tokio::test]
async fn doctor_says_the_browser_is_not_running_before_the_missing_socket() {
    let home = Home::new();
    let report = home.doctor(&home.path().join("profile")).await;
    report.fails_first_with(&[
        "no browser is running with the profile folder",
        "fix: start the browser with --user-data-dir=",
    ]);
    assert!(
        !report.text.contains("no relay socket"),
        "the missing socket is a consequence, not a cause:\n{}",
        report.text
    );
}

#[tokio::test]
async fn doctor_says_the_browser_runs_without_the_extension() {
    let home = Home::new();
    let profile = home.path().join("profile");
    let mut browser = Browser::start(&home, &profile, false);
    browser
        .wait_preferences(&profile, "its Preferences", |p| p["extensions"].is_object())
        .await;
    home.doctor(&profile)
        .await
        .passes(&format!("(pid {}) on the profile folder", browser.pid()))
        .fails_first_with(&[
            "Chromium is running without the tabwire extension",
            "not installed in profile \"Default\"",
            "Load unpacked",
        ]);
}

#[tokio::test]
async fn doctor_says_at_once_that_a_browser_just_started_has_no_extension() {
    let home = Home::new();
    let profile = home.path().join("profile");
    let started = Instant::now();
    let mut browser = Browser::start(&home, &profile, false);
    browser.wait_running(&profile).await;
    let prefs = profile.join("Default/Preferences");
    assert!(
        !prefs.exists(),
        "the browser wrote {} already: this test is about the seconds before",
        prefs.display()
    );
    let report = home.doctor(&profile).await;
    println!(
        "doctor answered {:?} after the browser started",
        started.elapsed()
    );
    report
        .passes(&format!("(pid {}) on the profile folder", browser.pid()))
        .fails_first_with(&[
            "Chromium is running without the tabwire extension",
            "its command line loads none",
            "Load unpacked",
        ]);
    assert!(
        !report.text.contains("reload"),
        "an extension that is not there cannot be reloaded:\n{}",
        report.text
    );
}

#[tokio::test]
async fn doctor_leaves_out_the_browser_an_agent_launched() {
    let (agent, _cdp) = crate::harness::Agent::launch_with_cdp(&[]).await;
    agent.ok("list_pages", serde_json::json!({})).await;
    let launched = crate::harness::descendants(agent.pid())
        .into_iter()
        .find(|p| p.ppid == agent.pid() && p.cmdline.contains("--user-data-dir="))
        .expect("the browser tabwire launched");
    let socket = agent.relay_socket();

    let home = Home::new();
    let report = home.doctor_all().await;
    let pid = format!("(pid {})", launched.pid);
    assert!(
        report
            .text
            .lines()
            .any(|l| l.starts_with("· left out: Chromium ") && l.contains(&pid)),
        "doctor should say it left the launched browser {pid} out:\n{}",
        report.text
    );
    assert!(
        !report
            .text
            .contains(&format!("{pid} on the profile folder")),
        "the launched browser is not the user's:\n{}",
        report.text
    );
    assert!(
        !report.text.contains(&socket.display().to_string()),
        "the launched browser's relay is not the user's to use:\n{}",
        report.text
    );
    agent.quit().await;
}

#[tokio::test]
async fn doctor_says_the_host_is_not_registered_then_that_its_binary_moved() {
    let home = Home::new();
    // Chromium's own profile folder in this home (named: headless Chromium would take a
    // temporary one), where plain `tabwire install` registers.
    let profile = home.default_profile();
    let mut browser = Browser::start(&home, &profile, true);
    browser.wait_extension(&profile).await;
    home.doctor(&profile)
        .await
        .passes("Chromium")
        .passes("the tabwire extension is enabled in profile \"Default\"")
        .fails_first_with(&[
            "Chromium: tabwire's native host is not registered",
            "NativeMessagingHosts/dev.tabwire.json is missing",
            "fix: run `tabwire install --browser chromium`",
        ]);

    // Registered, then the program install put in tabwire's folder is deleted.
    let (said, ok) = home
        .run(&tabwire(), &["install", "--browser", "chromium"])
        .await;
    assert!(ok, "install failed:\n{said}");
    let copy = home.path().join(".local/share/tabwire/bin/tabwire");
    std::fs::remove_file(&copy).expect("delete the installed program");
    home.doctor(&profile).await.fails_first_with(&[
        "host manifest",
        &format!("runs {}, which no longer exists", copy.display()),
        "tabwire install --browser chromium",
    ]);
}

#[tokio::test]
async fn doctor_passes_a_connected_browser_then_names_a_stale_socket() {
    let home = Home::new();
    let profile = home.path().join("profile");
    let folder = profile.to_str().expect("UTF-8 folder");
    let (said, ok) = home
        .run(&tabwire(), &["install", "--user-data-dir", folder])
        .await;
    assert!(ok, "install failed:\n{said}");
    let mut browser = Browser::start(&home, &profile, true);
    browser.wait_extension(&profile).await;
    browser.wait_socket(&home.socket()).await;
    let report = home.doctor(&profile).await;
    assert!(report.success, "doctor should pass:\n{}", report.text);
    report
        .passes("the tabwire extension is enabled")
        .passes("accepts connections")
        .passes("browser connected (tabwire extension 0.");

    // Uninstalling says that the running browser keeps its native host until it restarts.
    let (said, ok) = home
        .run(
            &tabwire(),
            &["install", "--uninstall", "--user-data-dir", folder],
        )
        .await;
    assert!(ok, "uninstall failed:\n{said}");
    for needle in [
        &format!(
            "that Chromium (pid {}) started keeps running",
            browser.pid()
        ),
        "until you restart that browser",
        "remove it at chrome://extensions",
    ] {
        assert!(
            said.contains(needle),
            "uninstall should say {needle:?}:\n{said}"
        );
    }
    let (said, ok) = home
        .run(&tabwire(), &["install", "--user-data-dir", folder])
        .await;
    assert!(ok, "install failed:\n{said}");

    browser.kill_native_host_while_stopped().await;
    home.doctor(&profile)
        .await
        .passes(&format!("(pid {}) on the profile folder", browser.pid()))
        .passes("host manifest")
        .fails_first_with(&[
            &format!("relay socket {} is stale", home.socket().display()),
            "no native host of the browsers checked runs",
            "replaces the stale socket",
        ]);
}
