//! The browsers' part of the report: for each profile folder, whether its browser
//! runs, has the extension and finds the native host; ordered so the real cause comes
//! first.

use std::fs;
use std::path::Path;

use super::check::{self, Check, Status};
use super::instances::Instance;
use super::{profile, registration};
use crate::paths::{self, Browser};
use crate::registry;
use crate::running::Running;

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
        loaded: instance
            .process
            .as_ref()
            .map(|p| p.loaded_extensions.as_slice())
            .unwrap_or_default(),
        extension_dir: machine.extension_dir,
    });
    let registration = if cfg!(windows) {
        // One registry key per browser, whatever the profile folder.
        let browser = instance.browser.unwrap_or(Browser::Chrome);
        registration::check_registry(
            &profile::label(instance.browser),
            &registry::shown(browser),
            registry::registered_manifest(browser),
            &instance.install_command(),
            machine.exe,
        )
    } else {
        registration::check_registration(
            &profile::label(instance.browser),
            &instance.user_data_dir.join("NativeMessagingHosts"),
            &instance.install_command(),
            machine.exe,
        )
    };
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
            format!(
                "cannot tell whether {name} is running ({})",
                if cfg!(windows) {
                    "not supported on Windows"
                } else {
                    "no /proc here"
                }
            ),
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
