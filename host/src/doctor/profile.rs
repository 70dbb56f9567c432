//! Whether a browser's profile folder has the tabwire extension, and in which state.
//!
//! A profile folder (a user data directory) holds profiles (`Default`, `Profile 1`, …,
//! listed in `Local State` under `profile.info_cache`). Each profile records its
//! extensions in `Preferences` and `Secure Preferences` under `extensions.settings.<id>`:
//! the folder an unpacked extension was loaded from (`path`), and whether it is turned
//! off (`disable_reasons`, or the older `state`). A browser writes these files some
//! seconds (about ten) after it first starts on a new folder, and whenever they change;
//! until then, its command line is what tells whether it loads the extension
//! (`--load-extension`), so a browser that has just started is judged from the first
//! second.
//!
//! Everything here reads files (each JSON file bounded in size, any content tolerated);
//! nothing asks the browser.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use tabwire_shared::EXTENSION_ID;

use super::check::Check;
use crate::bundled_extension;
use crate::paths::Browser;

/// The largest preference file read: real ones stay far below it, and a larger one is
/// not a browser's.
pub const MAX_PREFERENCES: u64 = 32 * 1024 * 1024;

/// The largest extension manifest read.
const MAX_MANIFEST: u64 = 1024 * 1024;

/// Why a profile's extension settings could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unread {
    /// Neither preference file exists yet: a browser writes them some seconds after it
    /// first starts on a new profile.
    NotWritten,
    /// A preference file is there but cannot be used; the text says which and why.
    Broken(String),
}

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

/// The JSON file `path`, read up to `limit` bytes: `None` if it does not exist, an error
/// naming the file if it cannot be read, is larger or is not JSON.
pub fn read_json(path: &Path, limit: u64) -> Result<Option<Value>, String> {
    let shown = path.display();
    let file = match fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read {shown}: {e}")),
    };
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {shown}: {e}"))?;
    if bytes.len() as u64 > limit {
        let size = match limit / (1024 * 1024) {
            0 => format!("{limit} bytes"),
            mib => format!("{mib} MiB"),
        };
        return Err(format!(
            "{shown} is larger than {size}, which no browser writes"
        ));
    }
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| format!("{shown} is not valid JSON ({e})"))
}

/// A profile's `extensions.settings`, from `Preferences` and `Secure Preferences` merged
/// (the secure file's fields win). Neither file there yet is [`Unread::NotWritten`]; one
/// that is there but unreadable, too large or not JSON is [`Unread::Broken`], since
/// the other alone may give a wrong answer.
pub fn read_settings(profile_dir: &Path) -> Result<Map<String, Value>, Unread> {
    let mut merged = Map::new();
    let mut read_any = false;
    for file in ["Preferences", "Secure Preferences"] {
        let Some(prefs) =
            read_json(&profile_dir.join(file), MAX_PREFERENCES).map_err(Unread::Broken)?
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
        Err(Unread::NotWritten)
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
    let manifest = read_json(&folder.join("manifest.json"), MAX_MANIFEST).ok()??;
    Some(manifest.get("name")?.as_str()?.to_owned())
}

/// Whether the unpacked extension folder `dir` is tabwire's: its manifest has the key
/// that gives tabwire's id.
pub fn is_tabwire_folder(dir: &Path) -> bool {
    let Some(ours) = bundled_extension::manifest_key() else {
        return false;
    };
    read_json(&dir.join("manifest.json"), MAX_MANIFEST)
        .ok()
        .flatten()
        .is_some_and(|manifest| manifest.get("key").and_then(Value::as_str) == Some(&ours))
}

/// Each profile's name and the extension's state there, or why it could not be read.
pub fn profiles(user_data_dir: &Path) -> Vec<(String, Result<ExtensionState, Unread>)> {
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
    /// Whether it is running now (and so its command line is known).
    pub running: bool,
    /// The unpacked extension folders its command line loads (`--load-extension`).
    pub loaded: &'a [PathBuf],
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
    let label = subject.label();
    let page = subject.extensions_page();
    // The command line loads it: the profile records that only some seconds later (or
    // recorded, from an earlier run, that it was not there).
    let from_command_line = subject.loaded.iter().find(|dir| is_tabwire_folder(dir));
    let (profile, state) = match (best, from_command_line) {
        (Some(found @ (_, ExtensionState::Enabled | ExtensionState::Disabled { .. })), _) => found,
        (_, Some(dir)) => {
            return Check::ok(format!(
                "{label}the tabwire extension is loaded from {} (the browser's \
                 --load-extension)",
                dir.display()
            ))
        }
        (Some(found), None) => found,
        (None, None) => return no_profile(&subject, &found),
    };
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

/// The check when no profile could be read, and the command line does not load the
/// extension.
fn no_profile(subject: &Subject, found: &[(String, Result<ExtensionState, Unread>)]) -> Check {
    let label = subject.label();
    let folder = subject.user_data_dir.display();
    let broken = found.iter().find_map(|(_, state)| match state {
        Err(Unread::Broken(why)) => Some(why),
        _ => None,
    });
    if let Some(why) = broken {
        return Check::note(
            format!("{label}{why}, so the extension cannot be checked"),
            Some(format!(
                "open {} to see whether tabwire is installed",
                subject.extensions_page()
            )),
        );
    }
    if !subject.running {
        return Check::note(
            format!(
                "{label}{folder} holds no browser profile yet, so the extension cannot be checked"
            ),
            None,
        );
    }
    // A browser that has just started on a new folder: nothing recorded yet, and
    // nothing on its command line loads tabwire.
    let name = subject.browser.map_or("The browser", Browser::display_name);
    Check::fail(
        format!(
            "{name} is running without the tabwire extension: it has recorded no extension \
             in {folder} yet (a new profile folder) and its command line loads none"
        ),
        format!(
            "{} (a browser records an extension in its profile within seconds: if you have \
             just loaded it, run `tabwire doctor` again)",
            load_fix(subject)
        ),
    )
}

/// How to load the extension.
fn load_fix(subject: &Subject) -> String {
    format!(
        "load it: open {}, turn on Developer mode, click \"Load unpacked\" and choose {}",
        subject.extensions_page(),
        load_what(subject)
    )
}

/// The check when no profile has the extension.
fn missing(subject: &Subject, found: &[(String, Result<ExtensionState, Unread>)]) -> Check {
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
    Check::fail(what, load_fix(subject))
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
            loaded: &[],
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
    fn an_empty_profile_folder_is_a_note_until_a_browser_runs_on_it() {
        use super::super::check::Status;
        let tmp = tempfile::tempdir().unwrap();
        let check = check_extension(subject(tmp.path(), false));
        assert_eq!(check.status, Status::Note);
        assert!(check.what.contains("holds no browser profile yet"));
        // A listed profile not written yet is no profile either.
        let state = json!({"profile": {"info_cache": {"Default": {}}}});
        fs::write(tmp.path().join("Local State"), state.to_string()).unwrap();
        let check = check_extension(subject(tmp.path(), false));
        assert_eq!(check.status, Status::Note, "{check:?}");

        // A browser that has just started there, loading nothing: not installed.
        let check = check_extension(subject(tmp.path(), true));
        assert_eq!(check.status, Status::Fail, "{check:?}");
        assert!(
            check
                .what
                .starts_with("Chromium is running without the tabwire extension"),
            "{check:?}"
        );
        assert!(check.fix.unwrap().contains("Load unpacked"));
    }

    #[test]
    fn a_browser_loading_tabwire_from_its_command_line_has_it_before_its_profile_says_so() {
        use super::super::check::Status;
        let tmp = tempfile::tempdir().unwrap();
        let ours = tmp.path().join("ours");
        bundled_extension::write_to(&ours).unwrap();
        let other = tmp.path().join("other");
        fs::create_dir_all(&other).unwrap();
        fs::write(
            other.join("manifest.json"),
            r#"{"name": "tabwire", "key": "AAAA"}"#,
        )
        .unwrap();
        let udd = tmp.path().join("profile");
        let loaded = [other.clone(), ours.clone()];
        let loading = Subject {
            loaded: &loaded,
            ..subject(&udd, true)
        };
        let check = check_extension(loading);
        assert_eq!(check.status, Status::Ok, "{check:?}");
        assert!(
            check.what.contains(&ours.display().to_string()),
            "{check:?}"
        );
        // A profile from an earlier run that did not have it does not say otherwise.
        profile(&udd, "Default", "Preferences", json!({}));
        assert_eq!(check_extension(loading).status, Status::Ok);
        // A folder with another key is not tabwire's.
        let only_other = [other];
        let check = check_extension(Subject {
            loaded: &only_other,
            ..subject(&udd, true)
        });
        assert_eq!(check.status, Status::Fail, "{check:?}");
    }

    #[test]
    fn preferences_that_are_not_json_or_too_large_are_named() {
        use super::super::check::Status;
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("Default");
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("Preferences"), "{\"extensions\": ").unwrap();
        let check = check_extension(subject(tmp.path(), true));
        assert_eq!(check.status, Status::Note, "{check:?}");
        assert!(
            check.what.contains("Preferences is not valid JSON"),
            "{check:?}"
        );
        assert!(check.fix.unwrap().contains("chrome://extensions"));

        let big = dir.join("Secure Preferences");
        fs::write(&big, vec![b' '; 2048]).unwrap();
        let error = read_json(&big, 1024).unwrap_err();
        assert!(error.contains("larger than"), "{error}");
        assert_eq!(read_json(&dir.join("absent"), 1024), Ok(None));
    }
}
