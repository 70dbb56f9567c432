//! The browser extension this binary carries, and writing it out as a loadable folder.
//!
//! `build.rs` makes the built extension (`dist/extension`: manifest, worker, WASM,
//! popup, icons) part of the binary, so one file is all a user needs. `tabwire install`
//! writes it to the user's tabwire folder, where the user loads it once with "Load
//! unpacked"; `tabwire mcp --launch` writes it into its session folder and loads that.
//! Both come from this one copy, so a browser runs the extension this binary was built
//! with, unless the user has not reloaded it since: the versions exchanged when the two
//! connect say so then (`tabwire_shared::version`).
//!
//! It does not decide where the folder goes ([`crate::paths`] does) and never deletes
//! files from it: a file it does not know may be the user's.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use include_dir::{include_dir, Dir, DirEntry};

/// The extension folder as it was built.
static EXTENSION: Dir<'static> = include_dir!("$TABWIRE_EXTENSION_BUILD");

/// Every file of the extension: its path inside the folder, and its bytes.
pub fn files() -> Vec<(&'static Path, &'static [u8])> {
    let mut out = Vec::new();
    collect(&EXTENSION, &mut out);
    out
}

fn collect(dir: &'static Dir<'static>, out: &mut Vec<(&'static Path, &'static [u8])>) {
    for entry in dir.entries() {
        match entry {
            DirEntry::Dir(sub) => collect(sub, out),
            DirEntry::File(file) => out.push((file.path(), file.contents())),
        }
    }
}

/// Writes the extension into `dir` (created if missing) and returns `dir`.
///
/// Each file is written beside its place and renamed over it, so a browser that
/// reloads the extension meanwhile reads whole files; a file already as it should be
/// is not touched.
pub fn write_to(dir: &Path) -> io::Result<PathBuf> {
    for (relative, contents) in files() {
        let path = dir.join(relative);
        if fs::read(&path).is_ok_and(|old| old == contents) {
            continue;
        }
        let parent = path.parent().unwrap_or(dir);
        fs::create_dir_all(parent)?;
        let mut tmp = tempfile::NamedTempFile::new_in(parent)?;
        tmp.write_all(contents)?;
        tmp.as_file().sync_all()?;
        tmp.persist(&path).map_err(|e| e.error)?;
    }
    Ok(dir.to_path_buf())
}

/// The `key` in the carried extension's manifest: the public key whose hash is the
/// extension's id, so a folder whose manifest has it loads as tabwire's extension.
pub fn manifest_key() -> Option<String> {
    let manifest = EXTENSION.get_file("manifest.json")?.contents();
    let manifest: serde_json::Value = serde_json::from_slice(manifest).ok()?;
    manifest["key"].as_str().map(str::to_owned)
}

/// The version of the extension in the folder `dir` (its manifest's), if it is one.
pub fn version_in(dir: &Path) -> Option<String> {
    let text = fs::read(dir.join("manifest.json")).ok()?;
    let manifest: serde_json::Value = serde_json::from_slice(&text).ok()?;
    manifest["version"].as_str().map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_carried_extension_is_whole_and_of_this_version() {
        let names: Vec<String> = files()
            .iter()
            .map(|(p, _)| p.to_string_lossy().into_owned())
            .collect();
        for needed in [
            "manifest.json",
            "background.js",
            "popup.html",
            "popup.js",
            "icons/icon-16.png",
            "icons/icon-128.png",
            "tabwire_extension.js",
            "tabwire_extension_bg.wasm",
        ] {
            assert!(names.iter().any(|n| n == needed), "{needed} in {names:?}");
        }
        let manifest = EXTENSION.get_file("manifest.json").unwrap().contents();
        let manifest: serde_json::Value = serde_json::from_slice(manifest).unwrap();
        assert_eq!(manifest["version"], env!("CARGO_PKG_VERSION"));
        assert!(
            manifest["key"].is_string(),
            "the key fixes the extension id"
        );
    }

    #[test]
    fn writing_twice_gives_the_same_folder_and_keeps_other_files() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("ext");
        write_to(&dir).unwrap();
        fs::write(dir.join("notes.txt"), "mine").unwrap();
        fs::write(dir.join("popup.js"), "stale").unwrap();
        write_to(&dir).unwrap();
        for (relative, contents) in files() {
            assert_eq!(fs::read(dir.join(relative)).unwrap(), contents);
        }
        assert_eq!(fs::read_to_string(dir.join("notes.txt")).unwrap(), "mine");
        assert_eq!(version_in(&dir).as_deref(), Some(env!("CARGO_PKG_VERSION")));
        assert_eq!(version_in(tmp.path()), None);
    }
}
