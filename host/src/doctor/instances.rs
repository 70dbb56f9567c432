//! Which profile folders doctor examines: the one asked for, else every running
//! browser's, then the default folders of browsers used but not running. Browsers that
//! `tabwire mcp --launch` started for agents are left out before ([`crate::launch_mark`]),
//! and [`launched_notes`] says so.

use std::path::{Path, PathBuf};

use super::check::Check;
use crate::paths::{self, Browser};
use crate::running::{canonical, Running, RunningBrowser};

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

impl Instance {
    /// The running browser `process`'s folder, for a user whose home is `home`.
    pub fn of_running(process: &RunningBrowser, home: &Path) -> Self {
        instance(
            &canonical(&process.user_data_dir),
            Some(process.browser),
            Some(process.clone()),
            home,
        )
    }

    /// The command that registers the native host where this folder's browser looks.
    pub fn install_command(&self) -> String {
        match self.browser {
            // Windows registers per browser, never per folder.
            Some(browser) if self.is_default || cfg!(windows) => {
                format!("tabwire install --browser {}", browser.cli_name())
            }
            None if cfg!(windows) => "tabwire install --browser chrome".to_owned(),
            _ => format!(
                "tabwire install --user-data-dir {}",
                paths::shell_quote(&self.user_data_dir)
            ),
        }
    }
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
    // A default folder that holds no profile (the browser never ran there, though it
    // may have made a folder of crash reports while running elsewhere) is no browser
    // of the user's while another one runs: it would only stand before the real one.
    let browser_runs = !found.is_empty();
    let defaults = Browser::ALL
        .into_iter()
        .filter_map(|b| Some((b, canonical(&b.config_dir_in(home)?))))
        .filter(|(_, dir)| dir.is_dir())
        .filter(|(_, dir)| !browser_runs || !super::profile::profile_names(dir).is_empty());
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

/// One note per browser left out because `tabwire mcp --launch` started it for an agent.
pub fn launched_notes(launched: &[RunningBrowser]) -> Vec<Check> {
    launched
        .iter()
        .map(|b| {
            Check::note(
                format!(
                    "left out: {} (pid {}) on {}, which `tabwire mcp --launch` started for an \
                     agent; it is that agent's browser, not yours",
                    b.browser.display_name(),
                    b.pid,
                    b.user_data_dir.display()
                ),
                None,
            )
        })
        .collect()
}
