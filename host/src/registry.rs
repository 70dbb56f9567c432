//! The Windows registry keys that register tabwire's native host with each browser.
//!
//! On Windows a browser does not look for host manifests in a folder: it reads the
//! default value of `HKEY_CURRENT_USER\Software\<vendor>\NativeMessagingHosts\dev.tabwire`
//! (its own vendor's key: [`key_path`]), which names the manifest file, wherever it
//! is. `tabwire install` writes each browser's manifest into tabwire's per-user folder
//! (`%LOCALAPPDATA%\tabwire\hosts\<browser>`, [`crate::paths::Browser::manifest_dir_in`])
//! and sets that browser's key to it ([`register`]); `--uninstall` deletes a key only
//! while it names the manifest tabwire wrote ([`unregister`]); `doctor` reads the same
//! keys ([`registered_manifest`]).
//!
//! Elsewhere there is no registry: registering is writing the manifest into the
//! browser's folder, so [`register`] and [`unregister`] do nothing and
//! [`registered_manifest`] finds nothing.
//!
//! Unit tests never touch the user's own keys: under `cfg(test)` every key lives in a
//! subtree of `HKEY_CURRENT_USER\Software\tabwire-tests` of the test's own thread,
//! removed when the thread ends.

use std::io;
use std::path::{Path, PathBuf};

use tabwire_shared::NATIVE_HOST_NAME;

use crate::paths::Browser;

/// The key under `HKEY_CURRENT_USER` whose default value names `browser`'s host
/// manifest for tabwire.
pub fn key_path(browser: Browser) -> String {
    let vendor = match browser {
        Browser::Chrome => r"Software\Google\Chrome",
        Browser::Chromium => r"Software\Chromium",
        Browser::Edge => r"Software\Microsoft\Edge",
        Browser::Brave => r"Software\BraveSoftware\Brave-Browser",
    };
    format!(r"{vendor}\NativeMessagingHosts\{NATIVE_HOST_NAME}")
}

/// The key as people (and `reg query`) name it: `HKCU\…`.
pub fn shown(browser: Browser) -> String {
    format!(r"HKCU\{}", key_path(browser))
}

#[cfg(windows)]
mod imp {
    use super::*;
    use windows_registry::{Key, CURRENT_USER};

    /// What the keys are made under: the user's hive, or a test's own subtree.
    #[cfg(not(test))]
    fn with_root<T>(f: impl FnOnce(&Key) -> io::Result<T>) -> io::Result<T> {
        f(CURRENT_USER)
    }

    /// A test's own subtree, removed when its thread ends.
    #[cfg(test)]
    struct TestRoot {
        name: String,
        key: Key,
    }

    #[cfg(test)]
    impl Drop for TestRoot {
        fn drop(&mut self) {
            let _ = CURRENT_USER.remove_tree(&self.name);
        }
    }

    #[cfg(test)]
    thread_local! {
        static TEST_ROOT: std::cell::RefCell<Option<TestRoot>> = const { std::cell::RefCell::new(None) };
    }

    #[cfg(test)]
    fn with_root<T>(f: impl FnOnce(&Key) -> io::Result<T>) -> io::Result<T> {
        TEST_ROOT.with(|root| {
            let mut root = root.borrow_mut();
            if root.is_none() {
                let name = format!(
                    r"Software\tabwire-tests\{}-{:?}",
                    std::process::id(),
                    std::thread::current().id()
                );
                let key = CURRENT_USER.create(&name)?;
                *root = Some(TestRoot { name, key });
            }
            match root.as_ref() {
                Some(root) => f(&root.key),
                None => Err(io::Error::other("no test root")),
            }
        })
    }

    /// A registry error as an I/O error naming the key.
    fn failed(what: &str, browser: Browser, e: impl Into<io::Error>) -> io::Error {
        let e = plain(e.into());
        io::Error::new(e.kind(), format!("cannot {what} {}: {e}", shown(browser)))
    }

    /// The registry's errors come as HRESULTs: one that wraps a Win32 error
    /// (`0x8007xxxx`) becomes that error, so its kind (not found, denied) is known.
    fn plain(e: io::Error) -> io::Error {
        match e.raw_os_error().map(|code| code as u32) {
            Some(code) if code & 0xFFFF_0000 == 0x8007_0000 => {
                io::Error::from_raw_os_error((code & 0xFFFF) as i32)
            }
            _ => e,
        }
    }

    /// `Ok(None)` for what is not there, the error otherwise.
    fn absent<T>(result: Result<T, impl Into<io::Error>>) -> io::Result<Option<T>> {
        match result.map_err(|e| plain(e.into())) {
            Ok(found) => Ok(Some(found)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    pub fn register(browser: Browser, manifest: &Path) -> io::Result<()> {
        with_root(|root| {
            let key = root
                .create(key_path(browser))
                .map_err(|e| failed("create", browser, e))?;
            key.set_string("", manifest.to_string_lossy())
                .map_err(|e| failed("set", browser, e))
        })
    }

    pub fn registered_manifest(browser: Browser) -> io::Result<Option<PathBuf>> {
        with_root(|root| {
            let Some(key) =
                absent(root.open(key_path(browser))).map_err(|e| failed("open", browser, e))?
            else {
                return Ok(None);
            };
            let value = absent(key.get_string("")).map_err(|e| failed("read", browser, e))?;
            Ok(value.map(PathBuf::from))
        })
    }

    pub fn unregister(browser: Browser) -> io::Result<()> {
        let path = key_path(browser);
        let Some((parent, name)) = path.rsplit_once('\\') else {
            return Ok(());
        };
        with_root(|root| {
            let Some(parent) = absent(root.options().read().write().open(parent))
                .map_err(|e| failed("open the parent of", browser, e))?
            else {
                return Ok(());
            };
            parent
                .remove_tree(name)
                .map_err(|e| failed("delete", browser, e))
        })
    }
}

/// Points `browser`'s key at `manifest` (creating the key). Nothing to do off Windows.
pub fn register(browser: Browser, manifest: &Path) -> io::Result<()> {
    #[cfg(windows)]
    {
        imp::register(browser, manifest)
    }
    #[cfg(not(windows))]
    {
        let _ = (browser, manifest);
        Ok(())
    }
}

/// The manifest `browser`'s key names, `None` if there is no such key or value (always
/// `None` off Windows).
pub fn registered_manifest(browser: Browser) -> io::Result<Option<PathBuf>> {
    #[cfg(windows)]
    {
        imp::registered_manifest(browser)
    }
    #[cfg(not(windows))]
    {
        let _ = browser;
        Ok(None)
    }
}

/// Deletes `browser`'s key if it names `manifest` (tabwire's own) and `manifest` is
/// tabwire's or gone (`ours`); returns the key's name when it was deleted. A key that
/// names another program's manifest is left alone.
pub fn unregister(browser: Browser, manifest: &Path, ours: bool) -> io::Result<Option<PathBuf>> {
    let names_ours = registered_manifest(browser)?.is_some_and(|named| named == manifest);
    let replaced = !ours && manifest.exists();
    if !names_ours || replaced {
        return Ok(None);
    }
    #[cfg(windows)]
    imp::unregister(browser)?;
    Ok(Some(PathBuf::from(shown(browser))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_browser_has_its_vendors_key() {
        assert_eq!(
            key_path(Browser::Chrome),
            r"Software\Google\Chrome\NativeMessagingHosts\dev.tabwire"
        );
        assert_eq!(
            key_path(Browser::Chromium),
            r"Software\Chromium\NativeMessagingHosts\dev.tabwire"
        );
        assert_eq!(
            key_path(Browser::Edge),
            r"Software\Microsoft\Edge\NativeMessagingHosts\dev.tabwire"
        );
        assert_eq!(
            shown(Browser::Brave),
            r"HKCU\Software\BraveSoftware\Brave-Browser\NativeMessagingHosts\dev.tabwire"
        );
    }

    #[cfg(not(windows))]
    #[test]
    fn without_a_registry_nothing_is_registered() {
        let manifest = Path::new("/m/dev.tabwire.json");
        register(Browser::Chrome, manifest).unwrap();
        assert_eq!(registered_manifest(Browser::Chrome).unwrap(), None);
        assert_eq!(unregister(Browser::Chrome, manifest, true).unwrap(), None);
    }

    #[cfg(windows)]
    #[test]
    fn a_key_is_written_read_and_deleted_only_while_it_names_ours() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = dir.path().join("dev.tabwire.json");
        std::fs::write(&manifest, "{}").unwrap();
        assert_eq!(registered_manifest(Browser::Edge).unwrap(), None);
        register(Browser::Edge, &manifest).unwrap();
        assert_eq!(
            registered_manifest(Browser::Edge).unwrap().as_deref(),
            Some(manifest.as_path())
        );
        // Another program's manifest named there: left alone.
        let theirs = dir.path().join("theirs.json");
        assert_eq!(unregister(Browser::Edge, &theirs, true).unwrap(), None);
        // Ours, but its file now holds someone else's manifest: left alone too.
        assert_eq!(unregister(Browser::Edge, &manifest, false).unwrap(), None);
        assert!(registered_manifest(Browser::Edge).unwrap().is_some());
        let removed = unregister(Browser::Edge, &manifest, true).unwrap();
        assert_eq!(removed, Some(PathBuf::from(shown(Browser::Edge))));
        assert_eq!(registered_manifest(Browser::Edge).unwrap(), None);
        // A key whose manifest file is gone is tabwire's leftover: deleted.
        register(Browser::Brave, &manifest).unwrap();
        std::fs::remove_file(&manifest).unwrap();
        assert!(unregister(Browser::Brave, &manifest, false)
            .unwrap()
            .is_some());
        assert_eq!(registered_manifest(Browser::Brave).unwrap(), None);
    }
}
