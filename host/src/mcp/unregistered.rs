//! Why no browser connects, when the machine shows it: the user's browser runs, but no
//! tabwire native host is registered where it looks, so its extension cannot start
//! one. The agent is then told exactly that, and that `tabwire install` mends it,
//! rather than that the browser quit or the whole setup.
//!
//! It is asked only once a call has found no browser, and it only reads: `/proc`
//! ([`crate::running`]) and each browser's registration, checked as doctor checks it.
//! Only browsers whose native host would serve this agent's relay socket count (their
//! environment gives the same socket); browsers that `tabwire mcp --launch` started for
//! agents are not the user's and are left out, and a browser whose native host runs
//! has found its registration. Where `/proc` cannot be read (macOS, Windows) it knows
//! nothing.

use std::path::Path;

use crate::doctor::check::{all_pass, Check, Status};
use crate::doctor::registration::check_registration;
use crate::doctor::Instance;
use crate::launch_mark;
use crate::running::{canonical, Running};

/// The clause for "No browser is connected to tabwire: …" when every browser of the
/// user's that would serve `socket` runs without tabwire's registration; `None` when
/// none runs, or one has it (then the cause lies elsewhere).
pub fn explain(running: &Running, home: &Path, socket: &Path) -> Option<String> {
    let (own, _) = launch_mark::split(running);
    let ours = own
        .browsers
        .iter()
        .filter(|b| b.socket.as_deref().is_some_and(|s| same_path(s, socket)));
    let mut unregistered = Vec::new();
    for browser in ours {
        if own.native_hosts.iter().any(|h| h.ppid == browser.pid) {
            return None;
        }
        let instance = Instance::of_running(browser, home);
        let install = instance.install_command();
        let checks = check_registration(
            "",
            &instance.user_data_dir.join("NativeMessagingHosts"),
            &install,
            None,
        );
        if all_pass(&checks) {
            return None;
        }
        let why = checks
            .into_iter()
            .find(|c| c.status == Status::Fail)
            .map_or_else(String::new, |c: Check| c.what);
        unregistered.push(format!(
            "{} is running (pid {}), but {why}, so its tabwire extension cannot start it. \
             Ask the user to run `{install}`: the extension then connects by itself within \
             30 s (at once if they reload it at {})",
            browser.browser.display_name(),
            browser.pid,
            browser.browser.extensions_page(),
        ));
    }
    (!unregistered.is_empty()).then(|| unregistered.join(". "))
}

/// [`explain`] for this user's machine now, and the agent's relay `socket`.
pub fn explain_current(socket: &Path) -> Option<String> {
    let running = crate::running::scan_current()?;
    explain(&running, &dirs::home_dir()?, socket)
}

/// Whether `a` and `b` name one file (or, not existing, are written the same).
fn same_path(a: &Path, b: &Path) -> bool {
    a == b || canonical(a) == canonical(b)
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::paths;
    use crate::running::RunningBrowser;

    const SOCKET: &str = "/run/user/7/tabwire/relay.sock";

    /// Chromium running on `udd`, its native host serving [`SOCKET`].
    fn chromium(pid: u32, udd: &Path) -> RunningBrowser {
        RunningBrowser::test_chromium(pid, udd, Some(SOCKET))
    }

    fn explain(running: &Running, home: &Path) -> Option<String> {
        super::explain(running, home, Path::new(SOCKET))
    }

    fn register(udd: &Path) {
        let exe = udd.join("bin/tabwire");
        std::fs::create_dir_all(exe.parent().unwrap()).unwrap();
        std::fs::write(&exe, "#!/bin/sh\n").unwrap();
        crate::platform::set_mode(&exe, 0o755).unwrap();
        paths::write_native_host_registration(
            &udd.join("NativeMessagingHosts"),
            &udd.join("wrap"),
            &exe,
            paths::HostEnv::default(),
        )
        .unwrap();
    }

    #[test]
    fn a_running_browser_without_tabwires_registration_is_told_to_install() {
        let home = tempfile::tempdir().unwrap();
        let profile = home.path().join("profile");
        std::fs::create_dir_all(&profile).unwrap();
        let running = Running {
            browsers: vec![chromium(7, &profile)],
            native_hosts: Vec::new(),
        };
        let said = explain(&running, home.path()).unwrap();
        assert!(
            said.starts_with(
                "Chromium is running (pid 7), but tabwire's native host is not registered"
            ),
            "{said}"
        );
        assert!(said.contains("dev.tabwire.json is missing"), "{said}");
        // On Windows a browser's registration is per browser (the registry), not per
        // profile folder.
        let install = if cfg!(windows) {
            "run `tabwire install --browser chromium`".to_owned()
        } else {
            format!(
                "run `tabwire install --user-data-dir {}`",
                paths::shell_quote(&profile.canonicalize().unwrap())
            )
        };
        assert!(said.contains(&install), "{said}");
        assert!(said.contains("chrome://extensions"), "{said}");

        // A browser whose native host would serve another socket is another relay's.
        let elsewhere = super::explain(&running, home.path(), Path::new("/elsewhere.sock"));
        assert_eq!(elsewhere, None);
        // One whose native host runs has found it registered.
        let hosting = Running {
            native_hosts: vec![crate::running::NativeHost {
                pid: 9,
                ppid: 7,
                socket: None,
            }],
            ..running.clone()
        };
        assert_eq!(explain(&hosting, home.path()), None);

        // Registered: the cause lies elsewhere.
        register(&profile);
        assert_eq!(explain(&running, home.path()), None);
    }

    #[test]
    fn nothing_is_said_without_a_browser_of_the_users() {
        let home = tempfile::tempdir().unwrap();
        assert_eq!(explain(&Running::default(), home.path()), None);
        // An agent's launched browser is not the user's.
        let launched = home.path().join("launched");
        std::fs::create_dir_all(&launched).unwrap();
        let _mark = launch_mark::LaunchMark::claim(&launched).unwrap();
        let running = Running {
            browsers: vec![chromium(8, &launched)],
            native_hosts: Vec::new(),
        };
        assert_eq!(explain(&running, home.path()), None);
    }

    #[test]
    fn one_registered_browser_among_several_says_nothing() {
        let home = tempfile::tempdir().unwrap();
        let (a, b) = (home.path().join("a"), home.path().join("b"));
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        register(&b);
        let running = Running {
            browsers: vec![chromium(1, &a), chromium(2, &b)],
            native_hosts: Vec::new(),
        };
        assert_eq!(explain(&running, home.path()), None);
    }
}
