//! A Chromium that a test starts itself (headless, or with a window in a headful run), without `tabwire mcp --launch`: for
//! the doctor's checks of a browser tabwire did not launch, and for running the page
//! scripts alone.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::display::Display;

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
    die_with_parent(&mut command);
    command
}

/// Has the started browser killed (on Linux) if the test process dies first.
#[cfg_attr(
    not(target_os = "linux"),
    expect(unused_variables, reason = "Linux only")
)]
fn die_with_parent(command: &mut Command) {
    #[cfg(target_os = "linux")]
    // SAFETY: runs in the forked child before exec; prctl is async-signal-safe.
    unsafe {
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
}

/// A command that starts Chromium like [`headless`], in the run's mode: headless, or
/// in a headful run ([`crate::display::headful`]) with a window on the screen returned
/// beside it, which must outlive the browser.
pub fn for_run(profile: &Path) -> (Command, Option<Display>) {
    let command = headless(profile);
    let Some(screen) = Display::for_run() else {
        return (command, None);
    };
    let windowed = on_screen(profile, screen.name());
    (windowed, Some(screen))
}

/// A command that starts Chromium like [`headless`], but with a window on the X
/// screen `display` (`:<n>`), which must outlive the browser.
pub fn on_screen(profile: &Path, display: &str) -> Command {
    let command = headless(profile);
    let flags: Vec<_> = command
        .get_args()
        .filter(|a| *a != "--headless")
        .map(ToOwned::to_owned)
        .collect();
    let mut windowed = Command::new(command.get_program());
    windowed
        .args(flags)
        .env("DISPLAY", display)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0);
    die_with_parent(&mut windowed);
    windowed
}

/// Kills the process group a browser from [`headless`] leads (a stopped browser
/// too), and reaps it.
pub fn kill_group(child: &mut Child) {
    // SAFETY: signals the process group this test started.
    unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
    let _ = child.wait();
}
