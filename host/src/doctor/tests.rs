//! Doctor's browser checks over temporary profile folders and a made-up `/proc`.

use std::fs;
use std::path::{Path, PathBuf};

use super::browsers::{browser_checks, BrowserChecks, Machine};
use super::check::{self, Check, Status};
use super::instances::{instances, Instance};
use crate::paths::{self, Browser};
use crate::running::{Running, RunningBrowser};
use tabwire_shared::EXTENSION_ID;

/// A profile folder whose Default profile has these extension settings.
fn profile_folder(udd: &Path, settings: serde_json::Value) {
    let dir = udd.join("Default");
    fs::create_dir_all(&dir).unwrap();
    let prefs = serde_json::json!({"extensions": {"settings": settings}});
    fs::write(dir.join("Preferences"), prefs.to_string()).unwrap();
}

/// A profile folder with the extension enabled and tabwire registered, running `exe`
/// (on Windows, where the registry names the manifest, Chromium's key names it).
fn configured(udd: &Path, exe: &Path) {
    let ext = udd.join("ext");
    fs::create_dir_all(&ext).unwrap();
    profile_folder(
        udd,
        serde_json::json!({ EXTENSION_ID: {"path": ext, "location": 4} }),
    );
    let manifest = paths::write_native_host_registration(
        &udd.join("NativeMessagingHosts"),
        &udd.join("wrap"),
        exe,
        paths::HostEnv::default(),
    )
    .unwrap();
    crate::registry::register(Browser::Chromium, &manifest).unwrap();
}

fn executable(path: &Path) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, "#!/bin/sh\n").unwrap();
    crate::platform::set_mode(path, 0o755).unwrap();
}

fn chromium(pid: u32, udd: &Path) -> RunningBrowser {
    RunningBrowser::test_chromium(pid, udd, None)
}

/// A made-up home holding an executable `tabwire` binary, and the browsers said to run
/// as this user.
struct Home {
    dir: tempfile::TempDir,
    exe: PathBuf,
    running: Running,
}

impl Home {
    /// An empty home with the binary at `bin/tabwire` and no browser running.
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("bin/tabwire");
        executable(&exe);
        Self {
            dir,
            exe,
            running: Running::default(),
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn join(&self, path: &str) -> PathBuf {
        self.dir.path().join(path)
    }

    /// Chromium runs (as `pid`) on the profile folder `udd`.
    fn runs(&mut self, pid: u32, udd: &Path) {
        self.running.browsers.push(chromium(pid, udd));
    }

    /// The browser instances doctor finds, for the folder `asked` or all.
    fn instances(&self, asked: Option<&Path>) -> Vec<Instance> {
        instances(asked, self.path(), Some(&self.running))
    }

    /// Doctor's browser checks, for the folder `asked` or all.
    fn checks(&self, asked: Option<&Path>) -> BrowserChecks {
        let machine = Machine {
            home: self.path(),
            running: Some(&self.running),
            exe: Some(&self.exe),
            extension_dir: None,
        };
        browser_checks(&self.instances(asked), &machine, asked)
    }
}

fn first_failure(checks: &[Check]) -> &Check {
    checks
        .iter()
        .find(|c| c.status == Status::Fail)
        .unwrap_or_else(|| panic!("no failure in {checks:#?}"))
}

#[cfg(target_os = "linux")]
#[test]
fn no_browser_running_is_the_cause_before_anything_else() {
    let home = Home::new();
    fs::create_dir_all(home.join(".config/chromium")).unwrap();
    let found = home.instances(None);
    assert_eq!(found.len(), 1);
    assert!(found[0].is_default);
    let report = home.checks(None);
    assert!(!report.ready);
    assert_eq!(report.checks[0].status, Status::Fail);
    assert!(
        report.checks[0]
            .what
            .starts_with("no browser is running as you"),
        "{:#?}",
        report.checks
    );
    // The default folder's registration is still checked, with the plain fix.
    let fix = report
        .checks
        .iter()
        .find(|c| c.what.contains("not registered"));
    assert_eq!(
        fix.and_then(|c| c.fix.as_deref()),
        Some("run `tabwire install --browser chromium`")
    );

    // Nothing used at all: the same first line, saying to install a browser.
    let report = Home::new().checks(None);
    assert_eq!(report.checks.len(), 1, "{:#?}", report.checks);
    assert!(report.checks[0]
        .fix
        .as_deref()
        .unwrap()
        .contains("install and start"));
}

#[test]
fn a_running_browser_without_the_extension_is_the_cause() {
    let mut home = Home::new();
    let udd = home.join("profile");
    profile_folder(&udd, serde_json::json!({}));
    fs::write(udd.join("Last Version"), "156.0.1.2\n").unwrap();
    home.runs(42, &udd);
    let report = home.checks(Some(&udd));
    assert_eq!(report.checks[0].status, Status::Ok);
    assert!(
        report.checks[0]
            .what
            .contains("Chromium 156.0.1.2 is running (pid 42)"),
        "{:#?}",
        report.checks
    );
    let failure = first_failure(&report.checks);
    assert!(
        failure
            .what
            .contains("running without the tabwire extension"),
        "{failure:?}"
    );
    assert!(!report.ready);
    // The registration for an explicit folder names that folder.
    let registration = report
        .checks
        .iter()
        .find(|c| c.what.contains("not registered"));
    // (On Windows, where browsers read the registry alike for every folder, the
    // browser's.)
    let install = if cfg!(windows) {
        "tabwire install --browser chromium"
    } else {
        "tabwire install --user-data-dir"
    };
    assert!(registration
        .and_then(|c| c.fix.as_deref())
        .unwrap()
        .contains(install));
}

#[test]
fn the_folder_asked_for_is_examined_alone() {
    let mut home = Home::new();
    let (one, two) = (home.join("one"), home.join("two"));
    fs::create_dir_all(&one).unwrap();
    home.runs(1, &one);
    home.runs(2, &two);
    let found = home.instances(Some(&one));
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].process.as_ref().map(|p| p.pid), Some(1));

    let idle = home.join("idle");
    let report = home.checks(Some(&idle));
    let failure = first_failure(&report.checks);
    assert!(
        failure
            .what
            .starts_with("no browser is running with the profile folder"),
        "{failure:?}"
    );
    assert!(failure.fix.as_deref().unwrap().contains("--user-data-dir="));
}

#[test]
fn a_browser_with_the_whole_chain_makes_the_others_notes() {
    let mut home = Home::new();
    let (bare, good) = (home.join("bare"), home.join("good"));
    profile_folder(&bare, serde_json::json!({}));
    configured(&good, &home.exe);
    home.runs(1, &bare);
    home.runs(2, &good);
    assert_eq!(home.instances(None).len(), 2);
    let report = home.checks(None);
    assert!(report.ready);
    assert_eq!(report.pids, [2]);
    assert!(check::all_pass(&report.checks), "{:#?}", report.checks);
    assert!(
        report.checks[0].what.contains("pid 2"),
        "the complete one comes first"
    );
    assert!(report
        .checks
        .iter()
        .any(|c| c.status == Status::Note && c.what.contains("without the tabwire extension")));
}

#[cfg(target_os = "linux")]
#[test]
fn a_default_folder_with_no_profile_does_not_stand_before_the_running_browser() {
    let mut home = Home::new();
    // `tabwire install` registered tabwire where Chromium only left crash reports.
    let never_run = home.join(".config/chromium");
    fs::create_dir_all(never_run.join("Crash Reports")).unwrap();
    paths::write_native_host_registration(
        &never_run.join("NativeMessagingHosts"),
        &home.join("wrap"),
        &home.exe,
        paths::HostEnv::default(),
    )
    .unwrap();
    let bare = home.join("bare");
    profile_folder(&bare, serde_json::json!({}));
    home.runs(5, &bare);
    let report = home.checks(None);
    let failure = first_failure(&report.checks);
    assert!(
        !failure.what.contains("is not running"),
        "{:#?}",
        report.checks
    );
    assert!(report
        .checks
        .iter()
        .all(|c| !c.what.contains(".config/chromium")));
}

#[cfg(target_os = "linux")]
#[test]
fn the_browser_set_up_for_tabwire_not_running_comes_before_one_running_without() {
    let mut home = Home::new();
    configured(&home.join(".config/google-chrome"), &home.exe);
    // Used once, not set up: left out while a browser runs.
    fs::create_dir_all(home.join(".config/microsoft-edge")).unwrap();
    let bare = home.join("bare");
    profile_folder(&bare, serde_json::json!({}));
    home.runs(5, &bare);
    let found = home.instances(None);
    // Edge's folder holds no profile: not an instance while a browser runs.
    assert_eq!(found.len(), 2, "{found:#?}");
    let report = home.checks(None);
    assert!(!report.ready);
    let failure = first_failure(&report.checks);
    assert!(
        failure.what.starts_with("Google Chrome is not running"),
        "{:#?}",
        report.checks
    );
    assert_eq!(failure.fix.as_deref(), Some("start Google Chrome"));
    assert!(report.checks.iter().any(|c| c
        .what
        .contains("Chromium is running without the tabwire extension")));
    assert!(!report.checks.iter().any(|c| c.what.contains("Edge")));
}

#[test]
fn a_binary_that_moved_is_the_cause_after_browser_and_extension() {
    let mut home = Home::new();
    let udd = home.join("p");
    configured(&udd, &home.exe);
    fs::remove_file(&home.exe).unwrap();
    home.runs(7, &udd);
    let report = home.checks(Some(&udd));
    assert_eq!(report.checks[0].status, Status::Ok);
    assert_eq!(report.checks[1].status, Status::Ok, "{:#?}", report.checks);
    let failure = first_failure(&report.checks);
    assert!(
        failure.what.contains("which no longer exists"),
        "{failure:?}"
    );
    assert!(!report.ready);
}
