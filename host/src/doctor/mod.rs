//! `tabwire doctor`: checks each link of the chain, in the order the chain is built,
//! and says how to fix the broken ones; the first failure printed is the real cause.
//!
//! The chain: this `tabwire` binary → a browser running as this user (found in `/proc`,
//! with the profile folder it uses: its `--user-data-dir`, else its default one; not
//! one that `tabwire mcp --launch` started for an agent, which is noted and left out) → the
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
//! - [`binary`]: this `tabwire` binary.
//! - [`instances`]: which profile folders to examine.
//! - [`browsers`]: each folder's browser, extension and registration, the cause first.
//! - [`profile`]: the extension in a profile folder's preference files.
//! - [`registration`]: host manifest, wrapper, binary.
//! - [`relay`]: the socket and the browser's hello.
//!
//! Each check is a plain function over paths and values, tested on temporary
//! directories. Doctor only reads and connects; it changes nothing (the fixes it
//! prints do).

pub mod binary;
pub mod browsers;
pub mod check;
pub mod instances;
pub mod profile;
pub mod registration;
pub mod relay;
#[cfg(test)]
mod tests;

use std::path::PathBuf;

pub use binary::check_binary;
pub use browsers::{browser_checks, BrowserChecks, Machine};
pub use check::{Check, Status};
pub use instances::{instances, Instance};

use crate::launch_mark;
use crate::paths;
use crate::running;

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
    let wanted = args.user_data_dir.as_deref();
    let scanned = running::scan_current();
    // A folder asked for is examined whoever runs on it; otherwise agents' launched
    // browsers are not the user's.
    let (running, launched) = match (&scanned, wanted) {
        (Some(all), None) => {
            let (own, launched) = launch_mark::split(all);
            (Some(own), launched)
        }
        _ => (scanned.clone(), Vec::new()),
    };
    print(&instances::launched_notes(&launched));
    let extension_dir = paths::installed_extension_dir();
    let machine = Machine {
        home: &home,
        running: running.as_ref(),
        exe: exe.as_deref(),
        extension_dir: extension_dir.as_deref(),
    };
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
    let newest_browser = running
        .iter()
        .flat_map(|r| &r.browsers)
        .filter(|b| browsers.pids.contains(&b.pid))
        .filter_map(|b| b.started)
        .max();
    let serving = relay::Serving {
        hosts: &hosts,
        newest_browser,
    };
    let socket_checks = relay::check_socket(&socket, serving).await;
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
