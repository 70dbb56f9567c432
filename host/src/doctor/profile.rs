//! Whether a browser's profile folder has the tabwire extension, and in which state.
//!
//! A profile folder (a user data directory) holds profiles (`Default`, `Profile 1`, …,
//! listed in `Local State` under `profile.info_cache`). Each profile records its
//! extensions in `Preferences` and `Secure Preferences` under `extensions.settings.<id>`:
//! the folder an unpacked extension was loaded from (`path`), and whether it is turned
//! off (`disable_reasons`, or the older `state`). A browser writes these files a few
//! seconds after it starts and whenever they change.
//!
//! Everything here reads JSON files; nothing asks the browser.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use tabwire_shared::EXTENSION_ID;

use super::check::Check;
use crate::paths::Browser;

/// The `name` in the tabwire extension's manifest, to recognise it under another id.
pub const EXTENSION_NAME: &str = "tabwire";

/// The tabwire extension as one profile has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExtensionState {
    /// Installed under our id and turned on.
    Enabled,
    /// Installed under our id and turned off, with the browser's reason codes.
    Disabled {
        /// Chrome's disable-reason codes (1: by the user; 2: new permissions to accept).
        reasons: Vec<u64>,
    },
    /// Installed under our id from a folder that no longer exists.
    FolderGone {
        /// The folder it was loaded from.
        path: PathBuf,
    },
    /// Not under our id, but an extension named tabwire is installed under another id.
    OtherId {
        /// Its id.
        id: String,
    },
    /// Not installed.
    Missing,
}

impl ExtensionState {
    /// How far the state is from working: a working one first, then the most telling.
    fn rank(&self) -> u8 {
        match self {
            ExtensionState::Enabled => 0,
            ExtensionState::Disabled { .. } => 1,
            ExtensionState::FolderGone { .. } => 2,
            ExtensionState::OtherId { .. } => 3,
            ExtensionState::Missing => 4,
        }
    }
}

/// The profiles in a profile folder: those `Local State` lists, and any folder holding
/// a `Preferences` file; `Default` first.
pub fn profile_names(user_data_dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_to_string(user_data_dir.join("Local State"))
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .and_then(|state| {
            let cache = state.get("profile")?.get("info_cache")?.as_object()?;
            Some(cache.keys().cloned().collect())
        })
        .unwrap_or_default();
    let on_disk = fs::read_dir(user_data_dir).into_iter().flatten().flatten();
    for entry in on_disk {
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            continue;
        };
        if entry.path().join("Preferences").is_file() && !names.contains(&name) {
            names.push(name);
        }
    }
    names.sort_by_key(|n| (n != "Default", n.clone()));
    names
}

/// A profile's `extensions.settings`, from `Preferences` and `Secure Preferences` merged
/// (the secure file's fields win); an error if neither can be read.
pub fn read_settings(profile_dir: &Path) -> Result<Map<String, Value>, String> {
    let mut merged = Map::new();
    let mut read_any = false;
    for file in ["Preferences", "Secure Preferences"] {
        let Some(prefs) = fs::read_to_string(profile_dir.join(file))
            .ok()
            .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        else {
            continue;
        };
        read_any = true;
        let settings = prefs
            .get("extensions")
            .and_then(|e| e.get("settings"))
            .and_then(Value::as_object);
        for (id, entry) in settings.into_iter().flatten() {
            merge_entry(&mut merged, id, entry);
        }
    }
    if read_any {
        Ok(merged)
    } else {
        Err(format!(
            "cannot read {}",
            profile_dir.join("Preferences").display()
        ))
    }
}

/// Adds one extension's fields to `merged`, over any already there.
fn merge_entry(merged: &mut Map<String, Value>, id: &str, entry: &Value) {
    match (merged.get_mut(id), entry.as_object()) {
        (Some(Value::Object(old)), Some(new)) => {
            old.extend(new.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        _ => {
            merged.insert(id.to_owned(), entry.clone());
        }
    }
}

/// The tabwire extension's state in a profile with these `settings`.
pub fn extension_state(settings: &Map<String, Value>, profile_dir: &Path) -> ExtensionState {
    if let Some(entry) = settings.get(EXTENSION_ID).filter(|e| is_installed(e)) {
        let reasons = disable_reasons(entry);
        if !reasons.is_empty() {
            return ExtensionState::Disabled { reasons };
        }
        return match entry_path(entry, profile_dir) {
            Some(path) if !path.exists() => ExtensionState::FolderGone { path },
            _ => ExtensionState::Enabled,
        };
    }
    let other = settings.iter().find(|(id, entry)| {
        id.as_str() != EXTENSION_ID
            && is_installed(entry)
            && manifest_name(entry, profile_dir).as_deref() == Some(EXTENSION_NAME)
    });
    match other {
        Some((id, _)) => ExtensionState::OtherId { id: id.clone() },
        None => ExtensionState::Missing,
    }
}

/// Whether a settings entry is an installed extension (not leftover preferences).
fn is_installed(entry: &Value) -> bool {
    ["path", "location", "manifest"]
        .iter()
        .any(|key| entry.get(key).is_some())
}

/// Why the browser turned the extension off; empty if it is on. Newer browsers keep a
/// list of codes, older ones a bit mask and `state: 0`.
pub fn disable_reasons(entry: &Value) -> Vec<u64> {
    let mut reasons: Vec<u64> = match entry.get("disable_reasons") {
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_u64).collect(),
        Some(Value::Number(mask)) => {
            let mask = mask.as_u64().unwrap_or(0);
            (0..64)
                .map(|bit| 1u64 << bit)
                .filter(|b| mask & b != 0)
                .collect()
        }
        _ => Vec::new(),
    };
    if reasons.is_empty() && entry.get("state").and_then(Value::as_u64) == Some(0) {
        reasons.push(1);
    }
    reasons
}

/// The folder an extension was loaded from: absolute for an unpacked one, relative to
/// the profile's `Extensions` folder for an installed one.
fn entry_path(entry: &Value, profile_dir: &Path) -> Option<PathBuf> {
    let path = Path::new(entry.get("path")?.as_str()?);
    Some(if path.is_absolute() {
        path.to_path_buf()
    } else {
        profile_dir.join("Extensions").join(path)
    })
}

/// An extension's name: from its settings entry, else from its folder's manifest.
fn manifest_name(entry: &Value, profile_dir: &Path) -> Option<String> {
    if let Some(name) = entry
        .get("manifest")
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str)
    {
        return Some(name.to_owned());
    }
    let folder = entry_path(entry, profile_dir)?;
    let manifest: Value =
        serde_json::from_str(&fs::read_to_string(folder.join("manifest.json")).ok()?).ok()?;
    Some(manifest.get("name")?.as_str()?.to_owned())
}

/// Each profile's name and the extension's state there; the error names the file that
/// could not be read.
pub fn profiles(user_data_dir: &Path) -> Vec<(String, Result<ExtensionState, String>)> {
    profile_names(user_data_dir)
        .into_iter()
        .map(|name| {
            let dir = user_data_dir.join(&name);
            let state = read_settings(&dir).map(|settings| extension_state(&settings, &dir));
            (name, state)
        })
        .collect()
}

/// Who the report is about: which browser (if known), its folder, whether it runs.
#[derive(Debug, Clone, Copy)]
pub struct Subject<'a> {
    /// Which browser, when known.
    pub browser: Option<Browser>,
    /// Its profile folder.
    pub user_data_dir: &'a Path,
    /// Whether it is running now.
    pub running: bool,
    /// The extension folder `tabwire install` writes, to name in the fix.
    pub extension_dir: Option<&'a Path>,
}

impl Subject<'_> {
    /// "Chromium: ", or nothing when the browser is not known.
    fn label(&self) -> String {
        label(self.browser)
    }

    fn extensions_page(&self) -> &'static str {
        self.browser
            .map_or("chrome://extensions", Browser::extensions_page)
    }
}

/// "Chromium: " before a line about that browser; nothing when it is not known.
pub fn label(browser: Option<Browser>) -> String {
    browser
        .map(|b| format!("{}: ", b.display_name()))
        .unwrap_or_default()
}

/// The extension check for one profile folder.
pub fn check_extension(subject: Subject) -> Check {
    let found = profiles(subject.user_data_dir);
    let best = found
        .iter()
        .filter_map(|(name, state)| Some((name, state.as_ref().ok()?)))
        .min_by_key(|(_, state)| state.rank());
    let Some((profile, state)) = best else {
        return no_profile(&subject, &found);
    };
    let label = subject.label();
    let page = subject.extensions_page();
    match state {
        ExtensionState::Enabled => Check::ok(format!(
            "{label}the tabwire extension is enabled in profile {profile:?}"
        )),
        ExtensionState::Disabled { reasons } => Check::fail(
            format!(
                "{label}the tabwire extension is installed in profile {profile:?} but {}",
                describe_reasons(reasons)
            ),
            format!("open {page} in that profile and turn tabwire on"),
        ),
        ExtensionState::FolderGone { path } => Check::fail(
            format!(
                "{label}the tabwire extension in profile {profile:?} was loaded from {}, \
                 which no longer exists",
                path.display()
            ),
            format!(
                "rebuild it there (scripts/build), or remove it at {page} and load {}",
                load_what(&subject)
            ),
        ),
        ExtensionState::OtherId { id } => Check::fail(
            format!(
                "{label}profile {profile:?} has a tabwire extension under the id {id}, \
                 not {EXTENSION_ID}; the native host answers only {EXTENSION_ID}"
            ),
            format!(
                "remove it at {page} and load {}: its manifest's key gives it the id \
                 {EXTENSION_ID}",
                load_what(&subject)
            ),
        ),
        ExtensionState::Missing => missing(&subject, &found),
    }
}

/// The check when no profile could be read.
fn no_profile(subject: &Subject, found: &[(String, Result<ExtensionState, String>)]) -> Check {
    let label = subject.label();
    let folder = subject.user_data_dir.display();
    let why = match found.first() {
        Some((_, Err(e))) => format!("{e}, so the extension cannot be checked"),
        _ => format!("{folder} holds no browser profile yet, so the extension cannot be checked"),
    };
    let fix = subject.running.then(|| {
        "a browser writes its profile within seconds of starting: run `tabwire doctor` again"
            .to_owned()
    });
    Check::note(format!("{label}{why}"), fix)
}

/// The check when no profile has the extension.
fn missing(subject: &Subject, found: &[(String, Result<ExtensionState, String>)]) -> Check {
    let label = subject.label();
    let name = subject.browser.map_or("The browser", Browser::display_name);
    let profiles: Vec<String> = found.iter().map(|(p, _)| format!("{p:?}")).collect();
    let where_ = format!(
        "it is not installed in profile {}",
        profiles.join(" nor in ")
    );
    let what = if subject.running {
        format!("{name} is running without the tabwire extension: {where_}")
    } else {
        format!("{label}the tabwire extension is missing: {where_}")
    };
    Check::fail(
        what,
        format!(
            "load it: open {}, turn on Developer mode, click \"Load unpacked\" and choose {}",
            subject.extensions_page(),
            load_what(subject)
        ),
    )
}

/// The folder to load, for fixes.
fn load_what(subject: &Subject) -> String {
    match subject.extension_dir {
        Some(dir) if dir.join("manifest.json").is_file() => dir.display().to_string(),
        Some(dir) => format!(
            "{} (run `tabwire install` first, which writes it)",
            dir.display()
        ),
        None => "the extension folder `tabwire install` writes".to_owned(),
    }
}

/// Chrome's disable reasons in words.
fn describe_reasons(reasons: &[u64]) -> String {
    let words: Vec<String> = reasons
        .iter()
        .map(|code| match code {
            1 => "was turned off".to_owned(),
            2 => "waits for you to accept new permissions".to_owned(),
            4 => "is being reloaded".to_owned(),
            other => format!("was turned off by the browser (reason code {other})"),
        })
        .collect();
    format!("it {}", words.join(" and "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Writes a profile whose `file` holds these extension settings.
    fn profile(udd: &Path, name: &str, file: &str, settings: Value) -> PathBuf {
        let dir = udd.join(name);
        fs::create_dir_all(&dir).unwrap();
        let prefs = json!({"extensions": {"settings": settings}});
        fs::write(dir.join(file), prefs.to_string()).unwrap();
        dir
    }

    fn subject(udd: &Path, running: bool) -> Subject<'_> {
        Subject {
            browser: Some(Browser::Chromium),
            user_data_dir: udd,
            running,
            extension_dir: Some(Path::new("/src/dist/extension")),
        }
    }

    fn ours(entry: Value) -> Value {
        json!({ EXTENSION_ID: entry })
    }

    #[test]
    fn an_enabled_extension_passes() {
        let tmp = tempfile::tempdir().unwrap();
        let folder = tmp.path().join("ext");
        fs::create_dir_all(&folder).unwrap();
        let entry = json!({"path": folder, "location": 8, "disable_reasons": []});
        profile(tmp.path(), "Default", "Preferences", ours(entry));
        let check = check_extension(subject(tmp.path(), true));
        assert_eq!(check.status, super::super::check::Status::Ok, "{check:?}");
        assert!(check.what.contains("enabled in profile \"Default\""));
    }

    #[test]
    fn a_disabled_extension_says_to_turn_it_on() {
        let tmp = tempfile::tempdir().unwrap();
        let entry = json!({"location": 4, "disable_reasons": [1]});
        let dir = profile(tmp.path(), "Default", "Preferences", ours(entry));
        let settings = read_settings(&dir).unwrap();
        assert_eq!(
            extension_state(&settings, &dir),
            ExtensionState::Disabled { reasons: vec![1] }
        );
        let check = check_extension(subject(tmp.path(), true));
        assert!(check.what.contains("was turned off"), "{check:?}");
        assert!(check.fix.unwrap().contains("chrome://extensions"));

        // The older format: a bit mask, or only `state: 0`.
        assert_eq!(disable_reasons(&json!({"disable_reasons": 3})), [1, 2]);
        assert_eq!(disable_reasons(&json!({"state": 0})), [1]);
        assert!(disable_reasons(&json!({"state": 1, "disable_reasons": 0})).is_empty());
    }

    #[test]
    fn secure_preferences_override_preferences() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = profile(
            tmp.path(),
            "Default",
            "Preferences",
            ours(json!({"location": 4, "disable_reasons": [1]})),
        );
        let secure = json!({"extensions": {"settings": ours(json!({"disable_reasons": []}))}});
        fs::write(dir.join("Secure Preferences"), secure.to_string()).unwrap();
        let settings = read_settings(&dir).unwrap();
        assert_eq!(extension_state(&settings, &dir), ExtensionState::Enabled);
    }

    #[test]
    fn tabwire_under_another_id_is_named() {
        let tmp = tempfile::tempdir().unwrap();
        let folder = tmp.path().join("copy");
        fs::create_dir_all(&folder).unwrap();
        fs::write(folder.join("manifest.json"), r#"{"name": "tabwire"}"#).unwrap();
        let settings = json!({
            "abcdefghijklmnopabcdefghijklmnop": {"path": folder, "location": 4},
            "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz": {"manifest": {"name": "Other"}, "path": "z/1"},
        });
        profile(tmp.path(), "Default", "Preferences", settings);
        let check = check_extension(subject(tmp.path(), true));
        assert!(
            check.what.contains("abcdefghijklmnopabcdefghijklmnop"),
            "{check:?}"
        );
        assert!(check.fix.unwrap().contains(EXTENSION_ID));
    }

    #[test]
    fn a_missing_extension_names_every_profile_and_the_folder_to_load() {
        let tmp = tempfile::tempdir().unwrap();
        profile(tmp.path(), "Profile 1", "Preferences", json!({}));
        profile(tmp.path(), "Default", "Preferences", json!({}));
        // Preferences left over after an uninstall do not count as installed.
        profile(
            tmp.path(),
            "Profile 2",
            "Preferences",
            ours(json!({"preferences": {}})),
        );
        let check = check_extension(subject(tmp.path(), true));
        assert!(
            check
                .what
                .starts_with("Chromium is running without the tabwire extension"),
            "{check:?}"
        );
        assert!(check
            .what
            .contains("\"Default\" nor in \"Profile 1\" nor in \"Profile 2\""));
        assert!(check.fix.unwrap().contains("/src/dist/extension"));
    }

    #[test]
    fn an_extension_whose_folder_is_gone_is_broken() {
        let tmp = tempfile::tempdir().unwrap();
        let entry = json!({"path": tmp.path().join("gone"), "location": 4});
        profile(tmp.path(), "Default", "Preferences", ours(entry));
        let check = check_extension(subject(tmp.path(), false));
        assert!(check.what.contains("no longer exists"), "{check:?}");
    }

    #[test]
    fn profiles_come_from_local_state_and_disk() {
        let tmp = tempfile::tempdir().unwrap();
        let state = json!({"profile": {"info_cache": {"Profile 3": {}, "Default": {}}}});
        fs::write(tmp.path().join("Local State"), state.to_string()).unwrap();
        profile(tmp.path(), "Profile 1", "Preferences", json!({}));
        fs::create_dir_all(tmp.path().join("Crashpad")).unwrap();
        assert_eq!(
            profile_names(tmp.path()),
            ["Default", "Profile 1", "Profile 3"]
        );
    }

    #[test]
    fn an_empty_profile_folder_is_a_note() {
        let tmp = tempfile::tempdir().unwrap();
        let check = check_extension(subject(tmp.path(), true));
        assert_eq!(check.status, super::super::check::Status::Note);
        assert!(check.what.contains("holds no browser profile yet"));
        // A listed profile whose preferences cannot be read says which file.
        let state = json!({"profile": {"info_cache": {"Default": {}}}});
        fs::write(tmp.path().join("Local State"), state.to_string()).unwrap();
        let check = check_extension(subject(tmp.path(), true));
        assert!(check.what.contains("cannot read"), "{check:?}");
    }
}
