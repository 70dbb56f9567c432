//! Folders a session owns: private from the start, marked with their owner, removed
//! when the session ends, and — after a crash or `kill -9` — by the next session.
//!
//! An [`OwnedDir`] is made under an unguessable name with one `mkdir` of mode 0700, so
//! it is new (a planted folder or symlink of that name makes it fail, never reuses
//! it) and nobody else can enter it or plant anything in it (on Windows, where there
//! are no modes, it inherits the access list of the user's folder it is made in:
//! [`crate::platform`]). It records its owner (the
//! process id with its start time, which a reused pid does not share, the boot, and
//! the pid namespace) in [`OWNER_FILE`], and is removed with everything in it when
//! dropped.
//!
//! [`remove_dead`] is the clean-up for sessions that could not drop theirs: it removes
//! the folders, among those named with a given prefix, that are this user's, are real
//! folders (not symlinks), and whose recorded owner no longer runs. A folder without an
//! owner record (being made right now, or not tabwire's) is left alone, and so is
//! every folder of another user's, of a live session's, or of a session in another pid
//! namespace (a container sharing the folder), whose process cannot be seen from here.
//!
//! It does not decide where folders go; the callers do ([`crate::launch`] in the
//! temporary folder, [`crate::mcp::spill`] in the user's results folder).

use std::fs;
use std::io::{self, Read, Write as _};
use std::path::{Path, PathBuf};

use crate::platform;

/// The file in an owned folder that names the process owning it.
pub const OWNER_FILE: &str = ".tabwire-owner";

/// A private folder this process owns, removed (with its contents) when dropped.
#[derive(Debug)]
pub struct OwnedDir {
    path: PathBuf,
}

impl OwnedDir {
    /// Makes a new folder in `parent` named `<prefix><random>`, mode 0700, owned by
    /// this process.
    pub fn create(parent: &Path, prefix: &str) -> io::Result<Self> {
        let mut last = io::Error::new(io::ErrorKind::AlreadyExists, "no free name");
        for _ in 0..8 {
            match Self::create_at(parent.join(format!("{prefix}{}", random_name()?))) {
                // Taken (by chance, or planted): another name.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = e,
                other => return other,
            }
        }
        Err(last)
    }

    /// Makes the folder `path`, which must not exist (as anything, symlinks included),
    /// and records this process as its owner.
    fn create_at(path: PathBuf) -> io::Result<Self> {
        // One mkdir: it fails on anything already there and never follows a symlink.
        platform::private_dir().create(&path)?;
        let owned = Self { path };
        write_owner_record(&owned.path.join(OWNER_FILE))?;
        Ok(owned)
    }

    /// The folder's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for OwnedDir {
    fn drop(&mut self) {
        // Removes what is inside without following symlinks out of the folder.
        if let Err(error) = fs::remove_dir_all(&self.path) {
            if error.kind() != io::ErrorKind::NotFound {
                tracing::warn!(folder = %self.path.display(), %error, "could not remove a session folder");
            }
        }
    }
}

/// Twenty random letters and digits.
pub(crate) fn random_name() -> io::Result<String> {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    let mut bytes = [0u8; 20];
    getrandom::fill(&mut bytes).map_err(|e| io::Error::other(e.to_string()))?;
    Ok(bytes
        .iter()
        .map(|b| ALPHABET[usize::from(*b) % ALPHABET.len()] as char)
        .collect())
}

/// Removes the folders in `parent` named `<prefix>…` that belong to this user and
/// whose recorded owner is no longer running; returns how many it removed.
pub fn remove_dead(parent: &Path, prefix: &str) -> usize {
    let Ok(entries) = fs::read_dir(parent) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        if !entry.file_name().to_string_lossy().starts_with(prefix) {
            continue;
        }
        let path = entry.path();
        // Not followed: a symlink is not a folder here, whatever it points at.
        let Ok(meta) = fs::symlink_metadata(&path) else {
            continue;
        };
        if !meta.is_dir() || !platform::is_mine(&meta) {
            continue;
        }
        let Some(owner) = read_owner(&path) else {
            continue;
        };
        if owner.is_running() {
            continue;
        }
        match fs::remove_dir_all(&path) {
            Ok(()) => {
                tracing::info!(folder = %path.display(), pid = owner.pid, "removed a dead session's folder");
                removed += 1;
            }
            Err(error) => {
                tracing::warn!(folder = %path.display(), %error, "could not remove a dead session's folder");
            }
        }
    }
    removed
}

/// Writes the file `path` naming this process as its owner, replacing any record there,
/// so that [`recorded_owner_runs`] can tell later whether this process still runs.
///
/// Written under another name and renamed, so that a record that exists always names
/// its owner in full.
pub fn write_owner_record(path: &Path) -> io::Result<()> {
    let mut partial = path.as_os_str().to_owned();
    partial.push(".new");
    let partial = PathBuf::from(partial);
    // One left by a process killed while writing it.
    match fs::remove_file(&partial) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let mut file = platform::new_private_file().open(&partial)?;
    file.write_all(Owner::this_process().to_line().as_bytes())?;
    drop(file);
    fs::rename(&partial, path)
}

/// Whether the process recorded in the owner file `path` ([`write_owner_record`]) may
/// still run; false when there is no readable record.
pub fn recorded_owner_runs(path: &Path) -> bool {
    read_owner_file(path).is_some_and(|owner| owner.is_running())
}

/// The owner recorded in `dir`, if it has a readable record (never through a symlink).
fn read_owner(dir: &Path) -> Option<Owner> {
    read_owner_file(&dir.join(OWNER_FILE))
}

/// The owner recorded in the file `path`, if it is a readable record (never through a
/// symlink).
fn read_owner_file(path: &Path) -> Option<Owner> {
    let mut file = platform::read_no_follow().open(path).ok()?;
    let mut text = String::new();
    // A record is one short line; anything longer is not one.
    Read::by_ref(&mut file)
        .take(256)
        .read_to_string(&mut text)
        .ok()?;
    Owner::parse(&text)
}

/// A process, told apart from a later one given the same id.
///
/// Recorded as one line of words, `-` for what is not known:
/// `<pid> <start time> <boot id> <pid namespace>`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Owner {
    pid: i32,
    /// When it started (clock ticks since boot, from `/proc`), where known.
    started: Option<u64>,
    /// The boot it ran in (`/proc/sys/kernel/random/boot_id`): after a reboot it is
    /// surely gone, whatever runs under its id now.
    boot: Option<String>,
    /// Its pid namespace: a process in another one (another container sharing the
    /// folder) cannot be seen from here, so its folders are never judged.
    pidns: Option<String>,
}

impl Owner {
    fn this_process() -> Self {
        let pid = std::process::id() as i32;
        Self {
            pid,
            started: start_time(pid),
            boot: boot_id(),
            pidns: pid_namespace(),
        }
    }

    fn to_line(&self) -> String {
        let word = |w: Option<String>| w.unwrap_or_else(|| "-".to_owned());
        format!(
            "{} {} {} {}\n",
            self.pid,
            word(self.started.map(|s| s.to_string())),
            word(self.boot.clone()),
            word(self.pidns.clone()),
        )
    }

    fn parse(text: &str) -> Option<Self> {
        let mut words = text.split_whitespace();
        let pid = words.next()?.parse::<i32>().ok().filter(|p| *p > 0)?;
        let mut next = || words.next().filter(|w| *w != "-");
        let started = match next() {
            Some(word) => Some(word.parse().ok()?),
            None => None,
        };
        let boot = next().map(str::to_owned);
        let pidns = next().map(str::to_owned);
        Some(Self {
            pid,
            started,
            boot,
            pidns,
        })
    }

    /// Whether this process may still run: it is in another pid namespace (and so
    /// cannot be judged), or its id is in use, in this boot, by a process that started
    /// when it did (as far as each is known).
    fn is_running(&self) -> bool {
        let differs = |recorded: &Option<String>, now: Option<String>| matches!((recorded, now), (Some(recorded), Some(now)) if *recorded != now);
        if differs(&self.boot, boot_id()) {
            return false;
        }
        if differs(&self.pidns, pid_namespace()) {
            return true;
        }
        if !platform::process_exists(self.pid.unsigned_abs()) {
            return false;
        }
        match (self.started, start_time(self.pid)) {
            (Some(recorded), Some(now)) => recorded == now,
            _ => true,
        }
    }
}

/// This boot's id (Linux; `None` elsewhere).
fn boot_id() -> Option<String> {
    let id = fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    Some(id.trim().to_owned()).filter(|id| !id.is_empty() && !id.contains(' '))
}

/// This process's pid namespace, as `/proc` names it (`pid:[4026531836]`; Linux only).
fn pid_namespace() -> Option<String> {
    let link = fs::read_link("/proc/self/ns/pid").ok()?;
    let name = link.to_string_lossy().into_owned();
    Some(name).filter(|n| !n.is_empty() && !n.contains(char::is_whitespace))
}

/// When process `pid` started ([`platform::process_start_time`]).
fn start_time(pid: i32) -> Option<u64> {
    platform::process_start_time(pid.unsigned_abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A process that has exited (and been reaped), and so is surely not running.
    fn dead_pid() -> i32 {
        let mut command = if cfg!(windows) {
            let mut cmd = std::process::Command::new("cmd.exe");
            cmd.args(["/c", "exit"]);
            cmd
        } else {
            std::process::Command::new("true")
        };
        let mut child = command.spawn().unwrap();
        let pid = child.id() as i32;
        child.wait().unwrap();
        pid
    }

    fn plant_owner(dir: &Path, line: &str) {
        fs::write(dir.join(OWNER_FILE), line).unwrap();
    }

    #[test]
    fn an_owned_folder_is_private_names_its_owner_and_goes_when_dropped() {
        let parent = tempfile::tempdir().unwrap();
        let owned = OwnedDir::create(parent.path(), "tabwire-").unwrap();
        let path = owned.path().to_path_buf();
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            assert_eq!(fs::metadata(&path).unwrap().mode() & 0o777, 0o700);
        }
        let owner = read_owner(&path).unwrap();
        assert_eq!(owner, Owner::this_process());
        assert!(owner.is_running());
        fs::write(path.join("inside"), b"x").unwrap();
        drop(owned);
        assert!(!path.exists());
    }

    #[test]
    fn a_dead_sessions_folder_is_removed_and_a_live_ones_kept() {
        let parent = tempfile::tempdir().unwrap();
        let live = OwnedDir::create(parent.path(), "tabwire-").unwrap();
        let dead = parent.path().join("tabwire-dead");
        fs::create_dir(&dead).unwrap();
        fs::write(dead.join("relay.sock"), b"").unwrap();
        plant_owner(&dead, &format!("{}\n", dead_pid()));
        // The same pid as a live process, but a start time it does not have: the pid
        // was reused, the owner is gone.
        let reused = parent.path().join("tabwire-reused");
        fs::create_dir(&reused).unwrap();
        plant_owner(&reused, &format!("{} 1\n", std::process::id()));
        // Not tabwire's, or not finished being made: left alone.
        let unmarked = parent.path().join("tabwire-unmarked");
        fs::create_dir(&unmarked).unwrap();
        let other_prefix = parent.path().join("other-dead");
        fs::create_dir(&other_prefix).unwrap();
        plant_owner(&other_prefix, &format!("{}\n", dead_pid()));

        assert_eq!(remove_dead(parent.path(), "tabwire-"), 2);
        assert!(live.path().is_dir(), "a live session's folder is kept");
        assert!(!dead.exists() && !reused.exists());
        assert!(unmarked.is_dir() && other_prefix.is_dir());
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_is_never_swept_nor_followed() {
        let parent = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let victim = elsewhere.path().join("victim");
        fs::create_dir(&victim).unwrap();
        plant_owner(&victim, &format!("{}\n", dead_pid()));
        std::os::unix::fs::symlink(&victim, parent.path().join("tabwire-link")).unwrap();
        // An owner file that is a symlink to a record elsewhere does not count either.
        let linked_record = parent.path().join("tabwire-linked-record");
        fs::create_dir(&linked_record).unwrap();
        std::os::unix::fs::symlink(victim.join(OWNER_FILE), linked_record.join(OWNER_FILE))
            .unwrap();
        assert_eq!(remove_dead(parent.path(), "tabwire-"), 0);
        assert!(victim.join(OWNER_FILE).exists());
        assert!(linked_record.is_dir());
    }

    #[cfg(unix)]
    #[test]
    fn a_planted_folder_or_symlink_is_never_used() {
        let parent = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let link = parent.path().join("tabwire-planted-link");
        std::os::unix::fs::symlink(elsewhere.path(), &link).unwrap();
        let error = OwnedDir::create_at(link).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read_dir(elsewhere.path()).unwrap().count(), 0);
        let planted = parent.path().join("tabwire-planted");
        fs::create_dir(&planted).unwrap();
        let error = OwnedDir::create_at(planted.clone()).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::AlreadyExists);
        assert!(!planted.join(OWNER_FILE).exists());
    }

    #[test]
    fn owner_records_parse_strictly_and_round_trip() {
        let me = Owner::this_process();
        assert_eq!(Owner::parse(&me.to_line()), Some(me));
        let bare = Owner {
            pid: 12,
            started: None,
            boot: None,
            pidns: None,
        };
        assert_eq!(Owner::parse("12"), Some(bare.clone()));
        assert_eq!(Owner::parse("12 - - -\n"), Some(bare.clone()));
        assert_eq!(Owner::parse(&bare.to_line()), Some(bare));
        for bad in ["", "0", "-1", "x", "12 y"] {
            assert_eq!(Owner::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn an_owner_from_another_boot_is_gone_and_one_in_another_namespace_is_kept() {
        let me = Owner::this_process();
        if me.boot.is_none() || me.pidns.is_none() {
            return;
        }
        let rebooted = Owner {
            boot: Some("another-boot".into()),
            ..me.clone()
        };
        assert!(!rebooted.is_running(), "even under a live pid");
        let elsewhere = Owner {
            pid: dead_pid(),
            pidns: Some("pid:[1]".into()),
            ..me
        };
        assert!(elsewhere.is_running(), "not judged from here");
    }
}
