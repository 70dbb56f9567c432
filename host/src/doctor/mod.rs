//! `tabwire doctor`: checks each link of the chain, in the order the chain is built,
//! and says how to fix the broken ones; the first failure printed is the real cause.
//!
//! The chain: this `tabwire` binary → a browser running as this user (found in `/proc`,
//! with the profile folder it uses: its `--user-data-dir`, else its default one) → the
//! tabwire extension installed and enabled in one of that folder's profiles, under our
//! id → a host manifest in that folder's `NativeMessagingHosts` (valid, allowing our
//! extension) → the wrapper it names, running an existing `tabwire` → the relay socket
//! (present, private, accepting; else which native host runs, and where it serves) →
//! a browser saying hello through it, with the extension's version.
//!
//! A later link is checked only when it could work: with no browser running, the
//! missing socket is a consequence, not a cause, so it is not reported. Several
//! browsers may run; when one of them has the whole chain, the others' problems are
//! notes. `--user-data-dir` narrows the report to one profile folder.
//!
//! - [`check`]: one line of the report.
//! - [`profile`]: the extension in a profile folder's preference files.
//! - [`registration`]: host manifest, wrapper, binary.
//! - [`relay`]: the socket and the browser's hello.
//!
//! Each check is a plain function over paths and values, tested on temporary
//! directories. Doctor only reads and connects; it changes nothing (the fixes it
//! prints do).

pub mod check;
pub mod profile;
pub mod registration;
pub mod relay;

use std::fs;
use std::path::{Path, PathBuf};

pub use check::{Check, Status};

use crate::native_host::socket::current_uid;
use crate::paths::{self, Browser};
use crate::running::{self, canonical, Running, RunningBrowser};

/// Arguments of `tabwire doctor`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct DoctorArgs {
    /// Examine only the browser profile folder DIR (what a browser's `--user-data-dir`
    /// names): whether a browser runs on it, has the extension, and finds the native
    /// host there. Default: every Chrome, Chromium, Edge and Brave running as you, or
    /// their default profile folders if none runs.
    #[arg(long = "user-data-dir", value_name = "DIR")]
    pub user_data_dir: Option<PathBuf>,
}

/// Runs every check, printing one line each; true if nothing failed.
pub async fn run(args: DoctorArgs) -> anyhow::Result<bool> {
    let exe = std::env::current_exe().ok();
    let binary = check_binary(exe.as_deref());
    print(std::slice::from_ref(&binary));
    let Some(home) = dirs::home_dir() else {
        print(&[Check::fail(
            "cannot find your home directory",
            "set HOME and run `tabwire doctor` again",
        )]);
        return Ok(false);
    };
    let running = running::scan_current();
    let extension_dir = paths::extension_dir();
    let machine = Machine {
        home: &home,
        running: running.as_ref(),
        exe: exe.as_deref(),
        extension_dir: extension_dir.as_deref(),
    };
    let wanted = args.user_data_dir.as_deref();
    let browsers = browser_checks(&instances(wanted, &home, machine.running), &machine, wanted);
    print(&browsers.checks);
    let mut healthy = check::all_pass(&[binary]) && check::all_pass(&browsers.checks);
    if !browsers.ready {
        println!(
            "  (the relay socket and the browser's hello are checked once a browser runs \
             with the extension and finds the native host)"
        );
        return Ok(false);
    }
    let socket = match paths::socket_path() {
        Ok(socket) => socket,
        Err(e) => {
            print(&[Check::fail(
                format!("relay socket: {e}"),
                "set XDG_RUNTIME_DIR or HOME",
            )]);
            return Ok(false);
        }
    };
    let hosts: Vec<_> = running
        .iter()
        .flat_map(|r| &r.native_hosts)
        .filter(|h| browsers.pids.contains(&h.ppid))
        .cloned()
        .collect();
    let socket_checks = relay::check_socket(&socket, current_uid(), &hosts).await;
    print(&socket_checks);
    healthy &= check::all_pass(&socket_checks);
    if !check::all_pass(&socket_checks) {
        return Ok(false);
    }
    let hello = relay::check_browser(&socket).await;
    print(std::slice::from_ref(&hello));
    Ok(healthy && hello.status != Status::Fail)
}

fn print(checks: &[Check]) {
    for check in checks {
        print!("{}", check.render());
    }
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

/// What doctor knows of the machine, so tests can give temporary folders and a fake
/// `/proc`.
#[derive(Debug, Clone, Copy)]
pub struct Machine<'a> {
    /// The user's home (browsers' default profile folders are under it).
    pub home: &'a Path,
    /// What runs as this user; `None` where that cannot be seen (no `/proc`).
    pub running: Option<&'a Running>,
    /// This `tabwire` binary.
    pub exe: Option<&'a Path>,
    /// The built extension folder, to name in fixes.
    pub extension_dir: Option<&'a Path>,
}

/// One profile folder doctor examines, and the browser running on it, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instance {
    /// Which browser, when known.
    pub browser: Option<Browser>,
    /// The profile folder (user data directory).
    pub user_data_dir: PathBuf,
    /// The browser's main process running on it.
    pub process: Option<RunningBrowser>,
    /// Whether it is the browser's default folder under the home, which plain
    /// `tabwire install` registers with.
    pub is_default: bool,
}

/// The profile folders to examine: the one asked for; else every running browser's,
/// then the default folders of the browsers used under `home` that none runs on.
pub fn instances(wanted: Option<&Path>, home: &Path, running: Option<&Running>) -> Vec<Instance> {
    if let Some(dir) = wanted {
        let process = running.and_then(|r| r.browsers_on(dir).first().copied().cloned());
        let browser = process
            .as_ref()
            .map(|p| p.browser)
            .or_else(|| default_browser_of(dir, home));
        return vec![instance(dir, browser, process, home)];
    }
    let mut found: Vec<Instance> = Vec::new();
    for process in running.map(|r| r.browsers.as_slice()).unwrap_or_default() {
        let dir = canonical(&process.user_data_dir);
        if !found.iter().any(|i| i.user_data_dir == dir) {
            found.push(instance(
                &dir,
                Some(process.browser),
                Some(process.clone()),
                home,
            ));
        }
    }
    let defaults = Browser::ALL
        .into_iter()
        .filter_map(|b| Some((b, canonical(&b.config_dir_in(home)?))))
        .filter(|(_, dir)| dir.is_dir());
    for (browser, dir) in defaults {
        if !found.iter().any(|i| i.user_data_dir == dir) {
            found.push(instance(&dir, Some(browser), None, home));
        }
    }
    found
}

fn instance(
    dir: &Path,
    browser: Option<Browser>,
    process: Option<RunningBrowser>,
    home: &Path,
) -> Instance {
    let is_default = browser.is_some_and(|b| {
        b.config_dir_in(home)
            .is_some_and(|own| canonical(&own) == canonical(dir))
    });
    Instance {
        browser,
        user_data_dir: dir.to_path_buf(),
        process,
        is_default,
    }
}

/// The browser whose default profile folder under `home` is `dir`.
fn default_browser_of(dir: &Path, home: &Path) -> Option<Browser> {
    let dir = canonical(dir);
    Browser::ALL.into_iter().find(|b| {
        b.config_dir_in(home)
            .is_some_and(|own| canonical(&own) == dir)
    })
}

/// The browsers' part of the report.
#[derive(Debug, Clone, Default)]
pub struct BrowserChecks {
    /// The lines, in report order.
    pub checks: Vec<Check>,
    /// Whether a browser may be connected: one runs (or cannot be seen) with the
    /// extension and the native host registered, so the relay is worth checking.
    pub ready: bool,
    /// The running browsers whose chain is complete up to the relay (their native
    /// hosts are the ones that matter).
    pub pids: Vec<u32>,
}

/// One instance's checks, and how far its chain goes.
#[derive(Debug, Clone)]
struct InstanceChecks {
    /// Whether its browser runs.
    running: Check,
    /// Extension and registration.
    rest: Vec<Check>,
    /// Extension enabled (or not known to be missing) and native host registered.
    configured: bool,
    /// Its browser is running (or that cannot be seen).
    may_run: bool,
    pid: Option<u32>,
}

/// Every instance's checks, the real cause first: a browser with the whole chain; else
/// one set up for tabwire that does not run; else the running ones. When one has the
/// whole chain, the others' failures become notes. With no browser running at all, one
/// line says so first; while others run, a browser neither running nor set up is left
/// out.
pub fn browser_checks(
    instances: &[Instance],
    machine: &Machine,
    wanted: Option<&Path>,
) -> BrowserChecks {
    let mut reports: Vec<InstanceChecks> = instances
        .iter()
        .map(|i| check_instance(i, machine))
        .collect();
    let any_runs = reports.iter().any(|r| r.may_run);
    if any_runs && wanted.is_none() {
        reports.retain(|r| r.may_run || r.configured);
    }
    let complete = |r: &InstanceChecks| r.configured && (r.may_run || !any_runs);
    reports.sort_by_key(|r| (!complete(r), !r.configured, !r.may_run));
    let someone_complete = reports.iter().any(complete);
    let mut checks = Vec::new();
    if !any_runs && wanted.is_none() {
        checks.push(nothing_runs(machine.home, reports.is_empty()));
    }
    for report in &reports {
        let keep = !someone_complete || complete(report);
        let show_running = report.may_run || wanted.is_some() || any_runs;
        let lines = show_running
            .then_some(&report.running)
            .into_iter()
            .chain(&report.rest)
            .cloned();
        checks.extend(lines.map(|c| if keep { c } else { c.demoted() }));
    }
    BrowserChecks {
        checks,
        ready: reports.iter().any(|r| r.configured && r.may_run),
        pids: reports
            .iter()
            .filter(|r| r.configured)
            .filter_map(|r| r.pid)
            .collect(),
    }
}

/// The failure when no supported browser runs as this user.
fn nothing_runs(home: &Path, no_profile: bool) -> Check {
    let fix = if no_profile {
        format!(
            "install and start Chrome, Chromium, Edge or Brave (none has a profile folder \
             in {}), then run `tabwire install`",
            home.display()
        )
    } else {
        "start the browser you use tabwire with: it starts tabwire's native host when the \
         extension loads"
            .to_owned()
    };
    Check::fail(
        "no browser is running as you (looked for Chrome, Chromium, Edge and Brave)",
        fix,
    )
}

/// One profile folder's links: browser running, extension, registration.
fn check_instance(instance: &Instance, machine: &Machine) -> InstanceChecks {
    let running = check_running(instance, machine.running.is_some());
    let may_run = running.status != Status::Fail;
    let extension = profile::check_extension(profile::Subject {
        browser: instance.browser,
        user_data_dir: &instance.user_data_dir,
        running: instance.process.is_some(),
        extension_dir: machine.extension_dir,
    });
    let registration = registration::check_registration(
        &profile::label(instance.browser),
        &instance.user_data_dir.join("NativeMessagingHosts"),
        &install_command(instance),
        machine.exe,
    );
    // An extension that cannot be checked yet (a profile not written) does not stop
    // the relay from being checked: a browser that answers there settles it.
    let configured = extension.status != Status::Fail && check::all_pass(&registration);
    let mut rest = vec![extension];
    rest.extend(registration);
    InstanceChecks {
        running,
        rest,
        configured,
        may_run,
        pid: instance.process.as_ref().map(|p| p.pid),
    }
}

/// Whether a browser runs on the instance's folder.
fn check_running(instance: &Instance, can_see: bool) -> Check {
    let folder = instance.user_data_dir.display();
    let name = instance.browser.map_or("a browser", Browser::display_name);
    match &instance.process {
        Some(process) => {
            let version = browser_version(&instance.user_data_dir)
                .map(|v| format!(" {v}"))
                .unwrap_or_default();
            Check::ok(format!(
                "{}{version} is running (pid {}) on the profile folder {folder}",
                process.browser.display_name(),
                process.pid
            ))
        }
        None if !can_see => Check::note(
            format!("cannot tell whether {name} is running (no /proc here)"),
            None,
        ),
        None if instance.is_default => Check::fail(
            format!("{name} is not running (its profile folder is {folder})"),
            format!("start {name}"),
        ),
        None => Check::fail(
            format!("no browser is running with the profile folder {folder}"),
            format!(
                "start the browser with --user-data-dir={}",
                paths::shell_quote(&instance.user_data_dir)
            ),
        ),
    }
}

/// The version a browser last ran with in this folder (its `Last Version` file).
fn browser_version(user_data_dir: &Path) -> Option<String> {
    let text = fs::read_to_string(user_data_dir.join("Last Version")).ok()?;
    let version = text.trim();
    let plausible = !version.is_empty()
        && version.len() <= 32
        && version.chars().all(|c| c.is_ascii_digit() || c == '.');
    plausible.then(|| version.to_owned())
}

/// The command that registers the native host for this instance.
fn install_command(instance: &Instance) -> String {
    match instance.browser {
        Some(browser) if instance.is_default => {
            format!("tabwire install --browser {}", browser.cli_name())
        }
        _ => format!(
            "tabwire install --user-data-dir {}",
            paths::shell_quote(&instance.user_data_dir)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;
    use tabwire_shared::EXTENSION_ID;

    /// A profile folder whose Default profile has these extension settings.
    fn profile_folder(udd: &Path, settings: serde_json::Value) {
        let dir = udd.join("Default");
        fs::create_dir_all(&dir).unwrap();
        let prefs = serde_json::json!({"extensions": {"settings": settings}});
        fs::write(dir.join("Preferences"), prefs.to_string()).unwrap();
    }

    /// A profile folder with the extension enabled and tabwire registered, running `exe`.
    fn configured(udd: &Path, exe: &Path) {
        let ext = udd.join("ext");
        fs::create_dir_all(&ext).unwrap();
        profile_folder(
            udd,
            serde_json::json!({ EXTENSION_ID: {"path": ext, "location": 4} }),
        );
        paths::write_native_host_registration(
            &udd.join("NativeMessagingHosts"),
            &udd.join("wrap"),
            exe,
            paths::HostEnv::default(),
        )
        .unwrap();
    }

    fn executable(path: &Path) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, "#!/bin/sh\n").unwrap();
        fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
    }

    fn chromium(pid: u32, udd: &Path) -> RunningBrowser {
        RunningBrowser {
            pid,
            browser: Browser::Chromium,
            exe: PathBuf::from("/usr/lib/chromium/chromium"),
            user_data_dir: udd.to_path_buf(),
        }
    }

    fn machine<'a>(home: &'a Path, running: Option<&'a Running>, exe: &'a Path) -> Machine<'a> {
        Machine {
            home,
            running,
            exe: Some(exe),
            extension_dir: None,
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
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path();
        let exe = home.join("bin/tabwire");
        executable(&exe);
        fs::create_dir_all(home.join(".config/chromium")).unwrap();
        let running = Running::default();
        let found = instances(None, home, Some(&running));
        assert_eq!(found.len(), 1);
        assert!(found[0].is_default);
        let report = browser_checks(&found, &machine(home, Some(&running), &exe), None);
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
        let empty = tempfile::tempdir().unwrap();
        let report = browser_checks(
            &instances(None, empty.path(), Some(&running)),
            &machine(empty.path(), Some(&running), &exe),
            None,
        );
        assert_eq!(report.checks.len(), 1, "{:#?}", report.checks);
        assert!(report.checks[0]
            .fix
            .as_deref()
            .unwrap()
            .contains("install and start"));
    }

    #[test]
    fn a_running_browser_without_the_extension_is_the_cause() {
        let tmp = tempfile::tempdir().unwrap();
        let udd = tmp.path().join("profile");
        let exe = tmp.path().join("bin/tabwire");
        executable(&exe);
        profile_folder(&udd, serde_json::json!({}));
        fs::write(udd.join("Last Version"), "156.0.1.2\n").unwrap();
        let running = Running {
            browsers: vec![chromium(42, &udd)],
            native_hosts: Vec::new(),
        };
        let found = instances(Some(&udd), tmp.path(), Some(&running));
        let report = browser_checks(
            &found,
            &machine(tmp.path(), Some(&running), &exe),
            Some(&udd),
        );
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
        assert!(registration
            .and_then(|c| c.fix.as_deref())
            .unwrap()
            .contains("tabwire install --user-data-dir"));
    }

    #[test]
    fn the_folder_asked_for_is_examined_alone() {
        let tmp = tempfile::tempdir().unwrap();
        let (one, two) = (tmp.path().join("one"), tmp.path().join("two"));
        fs::create_dir_all(&one).unwrap();
        let running = Running {
            browsers: vec![chromium(1, &one), chromium(2, &two)],
            native_hosts: Vec::new(),
        };
        let found = instances(Some(&one), tmp.path(), Some(&running));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].process.as_ref().map(|p| p.pid), Some(1));

        let idle = tmp.path().join("idle");
        let found = instances(Some(&idle), tmp.path(), Some(&running));
        let exe = tmp.path().join("bin/tabwire");
        executable(&exe);
        let report = browser_checks(
            &found,
            &machine(tmp.path(), Some(&running), &exe),
            Some(&idle),
        );
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
        let tmp = tempfile::tempdir().unwrap();
        let exe = tmp.path().join("bin/tabwire");
        executable(&exe);
        let (bare, good) = (tmp.path().join("bare"), tmp.path().join("good"));
        profile_folder(&bare, serde_json::json!({}));
        configured(&good, &exe);
        let running = Running {
            browsers: vec![chromium(1, &bare), chromium(2, &good)],
            native_hosts: Vec::new(),
        };
        let found = instances(None, tmp.path(), Some(&running));
        assert_eq!(found.len(), 2);
        let report = browser_checks(&found, &machine(tmp.path(), Some(&running), &exe), None);
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
    fn the_browser_set_up_for_tabwire_not_running_comes_before_one_running_without() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path();
        let exe = home.join("bin/tabwire");
        executable(&exe);
        configured(&home.join(".config/google-chrome"), &exe);
        // Used once, not set up: left out while a browser runs.
        fs::create_dir_all(home.join(".config/microsoft-edge")).unwrap();
        let bare = home.join("bare");
        profile_folder(&bare, serde_json::json!({}));
        let running = Running {
            browsers: vec![chromium(5, &bare)],
            native_hosts: Vec::new(),
        };
        let found = instances(None, home, Some(&running));
        assert_eq!(found.len(), 3, "{found:#?}");
        let report = browser_checks(&found, &machine(home, Some(&running), &exe), None);
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
        let tmp = tempfile::tempdir().unwrap();
        let exe = tmp.path().join("bin/tabwire");
        executable(&exe);
        let udd = tmp.path().join("p");
        configured(&udd, &exe);
        fs::remove_file(&exe).unwrap();
        let running = Running {
            browsers: vec![chromium(7, &udd)],
            native_hosts: Vec::new(),
        };
        let found = instances(Some(&udd), tmp.path(), Some(&running));
        let report = browser_checks(
            &found,
            &machine(tmp.path(), Some(&running), &exe),
            Some(&udd),
        );
        assert_eq!(report.checks[0].status, Status::Ok);
        assert_eq!(report.checks[1].status, Status::Ok, "{:#?}", report.checks);
        let failure = first_failure(&report.checks);
        assert!(
            failure.what.contains("which no longer exists"),
            "{failure:?}"
        );
        assert!(!report.ready);
    }
}
