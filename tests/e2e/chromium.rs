//! A headless Chromium that a test starts itself, without `tabwire mcp --launch`: for
//! the doctor's checks of a browser tabwire did not launch, and for running the page
//! scripts alone.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// The Chromium to start: `$TABWIRE_BROWSER`, else `chromium` or `chromium-browser` on
/// PATH (what scripts/bootstrap installs).
pub fn chromium() -> PathBuf {
    if let Some(browser) = std::env::var_os("TABWIRE_BROWSER").filter(|b| !b.is_empty()) {
        return PathBuf::from(browser);
    }
    ["chromium", "chromium-browser"]
        .iter()
        .find_map(|name| which::which(name).ok())
        .expect("no chromium on PATH: run scripts/bootstrap (or set TABWIRE_BROWSER)")
}

/// What a headless Chromium needs on these machines (root, closed network), without
/// first-run pages or background work.
const FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
];

/// A command that starts a headless Chromium on the profile folder `profile`, with no
/// input or output, in a process group of its own (which [`kill_group`] ends), killed (on
/// Linux) if the test process dies first. The caller adds its own flags and the URL to open.
pub fn headless(profile: &Path) -> Command {
    let mut command = Command::new(chromium());
    command
        .args(FLAGS)
        .arg(format!("--user-data-dir={}", profile.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0);
    #[cfg(target_os = "linux")]
    // SAFETY: runs in the forked child before exec; prctl is async-signal-safe.
    unsafe {
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    command
}

/// Kills the process group a browser from [`headless`] leads (a stopped browser
/// too), and reaps it.
pub fn kill_group(child: &mut Child) {
    // SAFETY: signals the process group this test started.
    unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
    let _ = child.wait();
}
