//! What `tabwire install --uninstall` cannot undo, as found on this machine: the
//! native hosts that running browsers started keep running (and agents stay connected
//! through them) until those browsers restart, and the tabwire extension stays in every
//! browser profile it was loaded in, since browsers let only the user remove an
//! extension.
//!
//! It reads what runs ([`crate::running`], without agents' launched browsers) and the
//! profiles' preference files ([`crate::doctor::profile`]); it removes nothing.

use std::path::{Path, PathBuf};

use tabwire_shared::EXTENSION_ID;

use crate::doctor::profile::{self, ExtensionState};
use crate::paths::Browser;
use crate::running::{canonical, Running};

/// A browser profile that has the tabwire extension installed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtensionPlace {
    /// The browser whose default profile folder it is in, if it is one.
    pub browser: Option<Browser>,
    /// The profile folder (user data directory).
    pub user_data_dir: PathBuf,
    /// The profile's name in it (`Default`, `Profile 1`, …).
    pub profile: String,
}

impl ExtensionPlace {
    /// "Chromium's profile "Default" (/home/u/.config/chromium)".
    fn describe(&self) -> String {
        let folder = self.user_data_dir.display();
        match self.browser {
            Some(browser) => format!(
                "{}'s profile {:?} ({folder})",
                browser.display_name(),
                self.profile
            ),
            None => format!(
                "the profile {:?} of the browser started with --user-data-dir={folder}",
                self.profile
            ),
        }
    }

    fn extensions_page(&self) -> &'static str {
        self.browser
            .map_or("chrome://extensions", Browser::extensions_page)
    }
}

/// The profiles that have the tabwire extension installed, in the default profile
/// folders of the browsers under `home` and in `folders` (those `--user-data-dir`
/// named or install recorded).
pub fn extension_places(home: &Path, folders: &[PathBuf]) -> Vec<ExtensionPlace> {
    let defaults = Browser::ALL
        .into_iter()
        .filter_map(|b| Some((Some(b), b.config_dir_in(home)?)));
    let others = folders.iter().map(|f| (None, f.clone()));
    let mut seen: Vec<PathBuf> = Vec::new();
    let mut places = Vec::new();
    for (browser, dir) in defaults.chain(others) {
        let key = canonical(&dir);
        if !dir.is_dir() || seen.contains(&key) {
            continue;
        }
        seen.push(key);
        for (name, state) in profile::profiles(&dir) {
            let installed = matches!(
                state,
                Ok(ExtensionState::Enabled
                    | ExtensionState::Disabled { .. }
                    | ExtensionState::FolderGone { .. })
            );
            if installed {
                places.push(ExtensionPlace {
                    browser,
                    user_data_dir: dir.clone(),
                    profile: name,
                });
            }
        }
    }
    places
}

/// What `--uninstall` cannot undo. `running` is what runs as this user, if that can be
/// seen (without the browsers `tabwire mcp --launch` started: their registration is
/// the agent's own); `places` the profiles found with the extension.
pub fn not_undone(running: Option<&Running>, places: &[ExtensionPlace]) -> String {
    let mut text = String::from("Uninstall cannot undo:\n");
    match running {
        Some(running) => {
            for host in &running.native_hosts {
                let browser = running
                    .browsers
                    .iter()
                    .find(|b| b.pid == host.ppid)
                    .map(|b| format!("{} (pid {})", b.browser.display_name(), b.pid))
                    .unwrap_or_else(|| "its browser".to_owned());
                text.push_str(&format!(
                    "  - the tabwire native host (pid {}) that {browser} started keeps \
                     running, and agents stay connected through it, until you restart \
                     that browser.\n",
                    host.pid
                ));
            }
        }
        None => text.push_str(
            "  - a browser running now keeps its tabwire native host, and agents stay \
             connected through it, until you restart the browser.\n",
        ),
    }
    for place in places {
        text.push_str(&format!(
            "  - the tabwire extension in {}: only you can remove it, at {} in that \
             profile.\n",
            place.describe(),
            place.extensions_page()
        ));
    }
    let others = if places.is_empty() {
        "the tabwire extension stays in every browser profile you loaded it in"
    } else {
        "any other profile you loaded the tabwire extension in keeps it too"
    };
    text.push_str(&format!(
        "  - {others} (id {EXTENSION_ID}): remove it at chrome://extensions \
         (edge://extensions, brave://extensions).\n"
    ));
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::running::{NativeHost, RunningBrowser};
    use serde_json::json;
    use std::fs;

    fn with_extension(udd: &Path, profile: &str, entry: serde_json::Value) {
        let dir = udd.join(profile);
        fs::create_dir_all(&dir).unwrap();
        let prefs = json!({"extensions": {"settings": {EXTENSION_ID: entry}}});
        fs::write(dir.join("Preferences"), prefs.to_string()).unwrap();
    }

    #[test]
    fn the_profiles_with_the_extension_are_found_in_default_and_recorded_folders() {
        let home = tempfile::tempdir().unwrap();
        let Some(chromium) = Browser::Chromium.config_dir_in(home.path()) else {
            return;
        };
        with_extension(&chromium, "Profile 1", json!({"location": 4, "path": "/x"}));
        with_extension(&chromium, "Default", json!({"preferences": {}}));
        let folder = home.path().join("work-profile");
        with_extension(
            &folder,
            "Default",
            json!({"location": 4, "disable_reasons": [1]}),
        );
        let places = extension_places(home.path(), &[folder.clone(), chromium.clone()]);
        assert_eq!(
            places,
            [
                ExtensionPlace {
                    browser: Some(Browser::Chromium),
                    user_data_dir: chromium,
                    profile: "Profile 1".into(),
                },
                ExtensionPlace {
                    browser: None,
                    user_data_dir: folder.clone(),
                    profile: "Default".into(),
                },
            ]
        );
        let text = not_undone(Some(&Running::default()), &places);
        assert!(
            text.contains("the tabwire extension in Chromium's profile \"Profile 1\""),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "the profile \"Default\" of the browser started with --user-data-dir={}",
                folder.display()
            )),
            "{text}"
        );
        assert!(text.contains("any other profile you loaded the tabwire extension in"));
    }

    #[test]
    fn uninstall_names_the_native_hosts_left_running_and_the_extension() {
        let running = Running {
            browsers: vec![RunningBrowser {
                pid: 10,
                browser: Browser::Chromium,
                exe: PathBuf::from("/usr/lib/chromium/chromium"),
                user_data_dir: PathBuf::from("/p"),
                loaded_extensions: Vec::new(),
                started: None,
                socket: None,
            }],
            native_hosts: vec![NativeHost {
                pid: 11,
                ppid: 10,
                socket: None,
            }],
        };
        let text = not_undone(Some(&running), &[]);
        assert!(
            text.contains("native host (pid 11) that Chromium (pid 10) started keeps running"),
            "{text}"
        );
        assert!(text.contains("until you restart that browser"));
        assert!(text.contains("stays in every browser profile you loaded it in"));
        assert!(text.contains("remove it at chrome://extensions"));
        let unknown = not_undone(None, &[]);
        assert!(
            unknown.contains("until you restart the browser"),
            "{unknown}"
        );
        let idle = not_undone(Some(&Running::default()), &[]);
        assert!(!idle.contains("native host"), "{idle}");
    }
}
