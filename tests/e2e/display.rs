//! Where the tests' browsers draw: headless (the default), or with windows on a
//! virtual screen of their own under a window manager, as on a user's desktop.
//!
//! `TABWIRE_E2E_DISPLAY=headful` selects the windowed mode. Each browser then gets
//! its own Xvfb screen with openbox managing it (scripts/bootstrap installs both), so
//! that tests running side by side never take each other's focus; a tab behind
//! another, a minimized window and a covered one are then what they are for a user:
//! hidden, with their renderer holding input for frames it does not draw. Both are
//! started for a browser and stopped with it; every readiness wait is bounded.

use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// The environment variable that selects the mode, and its windowed value.
const MODE_VAR: &str = "TABWIRE_E2E_DISPLAY";
const HEADFUL: &str = "headful";

/// Longest Xvfb or openbox may take to be ready.
const READY: Duration = Duration::from_secs(20);

/// The virtual screen's size: larger than the browser's default window.
const SCREEN: &str = "1600x1200x24";

/// Whether this test run's browsers have windows (`TABWIRE_E2E_DISPLAY=headful`).
pub fn headful() -> bool {
    match std::env::var(MODE_VAR) {
        Ok(mode) if mode == HEADFUL => true,
        Ok(mode) if mode.is_empty() || mode == "headless" => false,
        Ok(other) => panic!("{MODE_VAR}={other}: expected {HEADFUL} or headless"),
        Err(_) => false,
    }
}

/// The mode's name, for failure messages and measurements.
pub fn mode_name() -> &'static str {
    if headful() {
        HEADFUL
    } else {
        "headless"
    }
}

/// A virtual screen (Xvfb) with a window manager (openbox) on it; both stop when it
/// is dropped.
pub struct Display {
    /// `:<n>`, for `DISPLAY`.
    name: String,
    xvfb: Child,
    openbox: Child,
}

impl Display {
    /// A screen for a browser when the run is headful, else `None`.
    pub fn for_run() -> Option<Display> {
        headful().then(Display::start)
    }

    /// Starts a screen on a free display number and a window manager on it, and
    /// waits until the window manager runs.
    pub fn start() -> Display {
        // `-displayfd 1`: Xvfb picks a free number and writes it on stdout once it
        // accepts clients.
        let mut xvfb = spawn(
            Command::new("Xvfb").args([
                "-displayfd",
                "1",
                "-screen",
                "0",
                SCREEN,
                "-nolisten",
                "tcp",
            ]),
            "Xvfb",
        );
        let number = line_out(&mut xvfb, "Xvfb to accept clients", |_| true);
        let name = format!(":{}", number.trim());
        // openbox runs its --startup command once it manages the screen: that
        // command's word on openbox's stdout is the signal.
        let mut openbox = spawn(
            Command::new("openbox")
                .args(["--startup", "echo openbox-ready"])
                .env("DISPLAY", &name),
            "openbox",
        );
        line_out(&mut openbox, "openbox to manage the screen", |line| {
            line.trim() == "openbox-ready"
        });
        Display {
            name,
            xvfb,
            openbox,
        }
    }

    /// The value for `DISPLAY`.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl Drop for Display {
    fn drop(&mut self) {
        for child in [&mut self.openbox, &mut self.xvfb] {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn spawn(command: &mut Command, what: &str) -> Child {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {what} ({e}): run scripts/bootstrap"))
}

/// The first line `child` writes on stdout that `wanted` accepts, within [`READY`].
/// The rest of its output is read and dropped by the same thread, so a later write
/// never finds the pipe closed.
fn line_out(child: &mut Child, what: &str, wanted: fn(&str) -> bool) -> String {
    let stdout: ChildStdout = child.stdout.take().expect("stdout is piped");
    let (sender, found) = mpsc::channel();
    std::thread::spawn(move || {
        let mut lines = BufReader::new(stdout).lines();
        let mut said = Vec::new();
        let line = lines.by_ref().find_map(|line| match line {
            Ok(line) if wanted(&line) => Some(Ok(line)),
            Ok(line) => {
                said.push(line);
                None
            }
            Err(e) => Some(Err(e.to_string())),
        });
        let _ = sender.send(line.unwrap_or_else(|| Err(format!("it ended; it said {said:?}"))));
        lines.for_each(drop);
    });
    match found.recv_timeout(READY) {
        Ok(Ok(line)) => line,
        Ok(Err(e)) => panic!("waiting for {what}: {e} ({:?})", child.try_wait()),
        Err(_) => panic!("waiting for {what}: nothing within {READY:?}"),
    }
}
