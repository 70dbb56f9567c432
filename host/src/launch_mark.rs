//! The mark `tabwire mcp --launch` leaves in the profile folder of the browser it
//! starts, so that other tabwire commands can tell an agent's browser from the user's:
//! `tabwire doctor` leaves it out of the user's browsers, `install --uninstall` does
//! not count its native host among what it leaves running, and an agent without a
//! browser is not told about another agent's.
//!
//! The mark is an owner record ([`crate::owned`]) naming the `tabwire mcp` process that
//! launched the browser. It counts only while that process runs: a kept profile
//! (`--userDataDir`) that a killed session could not unmark is the user's again. It is
//! written before the browser starts and removed once the session has stopped it.
//!
//! Claiming the mark also locks the folder ([`LOCK_FILE`], an advisory lock the
//! system lets go when the process ends, however it ends), so two sessions started at
//! the same moment on one `--userDataDir` cannot both launch a browser there: the
//! second is refused at once, before either browser has made its own lock.
//!
//! It does not find browsers ([`crate::running`] does) and never signals one.

use std::fs::{self, File, TryLockError};
use std::io;
use std::path::{Path, PathBuf};

use crate::owned;
use crate::platform;
use crate::running::{Running, RunningBrowser};

/// The file in a launched browser's profile folder that names the `tabwire mcp` owning it.
pub const MARK_FILE: &str = "tabwire-launched";

/// The file in a launched browser's profile folder that the owning `tabwire mcp`
/// holds locked. It stays when the session ends (removing a lock file races with the
/// next session opening it); only the lock on it means anything.
pub const LOCK_FILE: &str = "tabwire-launched.lock";

/// The mark in one launched profile folder, and the lock that makes it this process's
/// alone; the mark is removed and the lock let go when dropped.
#[derive(Debug)]
pub struct LaunchMark {
    path: PathBuf,
    _lock: File,
}

/// Why a profile folder could not be claimed.
#[derive(Debug, thiserror::Error)]
pub enum ClaimError {
    /// Another `tabwire mcp` holds the folder.
    #[error("another tabwire session is launching or running its browser on this folder")]
    Taken,
    /// The lock or the mark could not be written.
    #[error(transparent)]
    Io(#[from] io::Error),
}

impl LaunchMark {
    /// Claims `profile` as the folder of a browser this process launches: locks it,
    /// then marks it. Refused while another process holds it.
    pub fn claim(profile: &Path) -> Result<Self, ClaimError> {
        let lock = platform::read_no_follow()
            .write(true)
            .create(true)
            .truncate(false)
            .open(profile.join(LOCK_FILE))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => return Err(ClaimError::Taken),
            Err(TryLockError::Error(error)) => return Err(error.into()),
        }
        let path = profile.join(MARK_FILE);
        owned::write_owner_record(&path)?;
        Ok(Self { path, _lock: lock })
    }
}

impl Drop for LaunchMark {
    fn drop(&mut self) {
        if let Err(error) = fs::remove_file(&self.path) {
            if error.kind() != io::ErrorKind::NotFound {
                tracing::warn!(mark = %self.path.display(), %error, "could not remove the launched browser's mark");
            }
        }
    }
}

/// Whether a browser on `user_data_dir` was launched by a `tabwire mcp --launch` that
/// still runs.
pub fn is_launched(user_data_dir: &Path) -> bool {
    owned::recorded_owner_runs(&user_data_dir.join(MARK_FILE))
}

/// What runs as the user, split: the user's own browsers with their native hosts, and
/// the browsers `tabwire mcp --launch` started for agents (whose native hosts are left
/// out of both).
pub fn split(running: &Running) -> (Running, Vec<RunningBrowser>) {
    let (launched, own): (Vec<RunningBrowser>, Vec<RunningBrowser>) = running
        .browsers
        .iter()
        .cloned()
        .partition(|b| is_launched(&b.user_data_dir));
    let native_hosts = running
        .native_hosts
        .iter()
        .filter(|h| !launched.iter().any(|b| b.pid == h.ppid))
        .cloned()
        .collect();
    let own = Running {
        browsers: own,
        native_hosts,
    };
    (own, launched)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paths::Browser;
    use crate::running::NativeHost;

    fn browser(pid: u32, dir: &Path) -> RunningBrowser {
        RunningBrowser {
            pid,
            browser: Browser::Chromium,
            exe: PathBuf::from("/usr/lib/chromium/chromium"),
            user_data_dir: dir.to_path_buf(),
            loaded_extensions: Vec::new(),
            started: None,
            socket: None,
        }
    }

    fn host(pid: u32, ppid: u32) -> NativeHost {
        NativeHost {
            pid,
            ppid,
            socket: None,
        }
    }

    #[test]
    fn a_marked_profile_is_an_agents_until_the_mark_goes() {
        let (launched_dir, own_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let mark = LaunchMark::claim(launched_dir.path()).unwrap();
        let running = Running {
            browsers: vec![
                browser(10, launched_dir.path()),
                browser(20, own_dir.path()),
            ],
            native_hosts: vec![host(11, 10), host(21, 20)],
        };
        let (own, launched) = split(&running);
        assert_eq!(launched, [browser(10, launched_dir.path())]);
        assert_eq!(own.browsers, [browser(20, own_dir.path())]);
        assert_eq!(own.native_hosts, [host(21, 20)]);

        drop(mark);
        assert!(!launched_dir.path().join(MARK_FILE).exists());
        let (own, launched) = split(&running);
        assert!(launched.is_empty());
        assert_eq!(own, running);
    }

    #[test]
    fn a_folder_is_claimed_by_one_session_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let first = LaunchMark::claim(dir.path()).unwrap();
        assert!(matches!(
            LaunchMark::claim(dir.path()),
            Err(ClaimError::Taken)
        ));
        drop(first);
        // A child another test forks holds every open file (and so the lock) until its
        // exec closes them: the claim is tried again until that moment has passed.
        let again = (0..2000)
            .find_map(|_| match LaunchMark::claim(dir.path()) {
                Ok(mark) => Some(mark),
                Err(_) => {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                    None
                }
            })
            .expect("the folder is free again once the first claim is dropped");
        assert!(is_launched(dir.path()));
        drop(again);
        assert!(!is_launched(dir.path()));
    }

    #[test]
    fn a_mark_whose_session_is_gone_does_not_count() {
        let dir = tempfile::tempdir().unwrap();
        let mut child = std::process::Command::new(if cfg!(windows) { "cmd.exe" } else { "true" })
            .args(if cfg!(windows) {
                &["/c", "exit"][..]
            } else {
                &[][..]
            })
            .spawn()
            .unwrap();
        let pid = child.id();
        child.wait().unwrap();
        fs::write(dir.path().join(MARK_FILE), format!("{pid}\n")).unwrap();
        assert!(!is_launched(dir.path()));
        // Garbage is no mark either.
        fs::write(dir.path().join(MARK_FILE), "not a record").unwrap();
        assert!(!is_launched(dir.path()));
    }
}
