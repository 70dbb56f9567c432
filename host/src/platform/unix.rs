//! The Unix side of [`crate::platform`]: file modes, uids, signals, `/proc` and process
//! groups.

use std::fs::{self, DirBuilder, Metadata, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;
use std::process::Command;

use super::Stop;

/// A builder of folders only this user may enter (mode 0700).
pub fn private_dir() -> DirBuilder {
    let mut builder = DirBuilder::new();
    builder.mode(0o700);
    builder
}

/// Options that create a new file (failing on anything already there, links
/// included), mode 0600, for writing.
pub fn new_private_file() -> OpenOptions {
    let mut options = OpenOptions::new();
    options
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW);
    options
}

/// Options that open a file for reading, refusing a symbolic link.
pub fn read_no_follow() -> OpenOptions {
    let mut options = OpenOptions::new();
    options.read(true).custom_flags(libc::O_NOFOLLOW);
    options
}

/// This process's real user id.
pub fn current_uid() -> u32 {
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { libc::getuid() }
}

/// Whether this user owns the file `meta` describes.
pub fn is_mine(meta: &Metadata) -> bool {
    meta.uid() == current_uid()
}

/// Makes the folder `dir` (described by `meta`) private to its owner (0700) if others
/// may enter it.
pub fn make_private(dir: &Path, meta: &Metadata) -> io::Result<()> {
    if meta.mode() & 0o077 != 0 {
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// Sets the file's mode (`0o644`, `0o755`, …).
pub fn set_mode(path: &Path, mode: u32) -> io::Result<()> {
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
}

/// Whether the file `meta` describes may be run (any execute bit).
pub fn is_executable(meta: &Metadata) -> bool {
    meta.permissions().mode() & 0o111 != 0
}

/// Whether a process with this id runs (one of another user counts).
pub fn process_exists(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if pid <= 0 {
        return false;
    }
    // SAFETY: kill with signal 0 only checks that the process exists.
    unsafe {
        libc::kill(pid, 0) == 0 || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
    }
}

/// When process `pid` started, in clock ticks since boot (Linux; `None` elsewhere).
pub fn process_start_time(pid: u32) -> Option<u64> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // After the command name (which may hold spaces and parentheses): state is the
    // first field, start time the twentieth.
    stat.rsplit(')')
        .next()?
        .split_whitespace()
        .nth(19)?
        .parse()
        .ok()
}

/// The process that started this one, watched for its exit: its id at start, gone once
/// `getppid()` names another (a quitting browser hands its children to init or a
/// subreaper).
#[derive(Debug, Clone, Copy)]
pub struct ProcessParent {
    pid: u32,
}

impl ProcessParent {
    /// The parent this process has now. Call at start, before anything can go away.
    pub fn at_start() -> Self {
        Self {
            pid: std::os::unix::process::parent_id(),
        }
    }

    /// Whether it has exited.
    pub fn gone(&self) -> bool {
        std::os::unix::process::parent_id() != self.pid
    }
}

/// Completes with the signal's name when the process is asked to stop (SIGTERM,
/// SIGINT, SIGHUP); never, if they cannot be watched.
pub async fn stop_requested() -> &'static str {
    use tokio::signal::unix::{signal, SignalKind};
    async fn wait(kind: SignalKind) {
        match signal(kind) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot watch a signal");
                std::future::pending::<()>().await;
            }
        }
    }
    tokio::select! {
        _ = wait(SignalKind::terminate()) => "SIGTERM",
        _ = wait(SignalKind::interrupt()) => "SIGINT",
        _ = wait(SignalKind::hangup()) => "SIGHUP",
    }
}

/// Puts the child in a new process group and, on Linux, has it killed if we die.
pub fn start_in_own_group(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    command.process_group(0);
    #[cfg(target_os = "linux")]
    // SAFETY: the closure runs in the forked child before exec and only makes an
    // async-signal-safe system call.
    unsafe {
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
}

/// Asks every process of the process group `group` to stop.
pub fn signal_group(group: u32, how: Stop) {
    let Ok(group) = libc::pid_t::try_from(group) else {
        return;
    };
    let signal = match how {
        Stop::Politely => libc::SIGTERM,
        Stop::Now => libc::SIGKILL,
    };
    // SAFETY: kill(2) with a negative pid signals a process group; no memory involved.
    unsafe {
        libc::kill(-group, signal);
    }
}

/// Whether any live process is still in the group. Zombies (exited, waiting to be
/// reaped by init) do not count: they hold nothing.
pub fn group_exists(group: u32) -> bool {
    #[cfg(target_os = "linux")]
    {
        let Ok(entries) = fs::read_dir("/proc") else {
            return false;
        };
        entries.flatten().any(|entry| {
            let Ok(stat) = fs::read_to_string(entry.path().join("stat")) else {
                return false;
            };
            // After the command name: state, ppid, pgrp.
            let mut fields = stat.rsplit(')').next().unwrap_or("").split_whitespace();
            let state = fields.next();
            let pgrp = fields.nth(1).and_then(|g| g.parse::<u32>().ok());
            pgrp == Some(group) && state != Some("Z") && state != Some("X")
        })
    }
    #[cfg(not(target_os = "linux"))]
    {
        let Ok(group) = libc::pid_t::try_from(group) else {
            return false;
        };
        // SAFETY: signal 0 only checks that the group exists; nothing is delivered.
        unsafe { libc::kill(-group, 0) == 0 }
    }
}

/// Hands the memory the allocator holds free back to the system. glibc keeps what a
/// burst of short connections freed in its per-thread arenas (measured: a relay that
/// served 20,000 connections kept 100 MB until asked); other C libraries return it
/// themselves.
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim takes no pointers; it only walks the allocator's free lists.
    unsafe {
        libc::malloc_trim(0);
    }
}
