//! What differs by operating system outside the relay's transport ([`crate::transport`]):
//! private files and folders, whether a process runs, the native host's parent (its
//! browser), stop requests, and the process group of a browser `--launch` starts.
//!
//! Each item has the same name and meaning on every system, so the code that uses it
//! has no `cfg` of its own:
//!
//! - Files: [`private_dir`] (a folder only this user may enter: mode 0700 on Unix;
//!   on Windows tabwire makes its folders under the user's own profile, whose
//!   permissions they inherit), [`new_private_file`] (a file that did not exist, never
//!   through a link: 0600 and `O_NOFOLLOW`, or `FILE_FLAG_OPEN_REPARSE_POINT`),
//!   [`read_no_follow`], [`is_mine`] (the owner is this user: the uid on Unix; on
//!   Windows every file in the user's profile counts as theirs), [`make_private`],
//!   [`set_mode`] and [`is_executable`] (file modes, which Windows does not have).
//! - Processes: [`process_exists`], [`process_start_time`], [`ProcessParent`] (the
//!   browser that started the native host: its parent on Unix, where a quitting
//!   browser hands the host to init; on Windows, where Chrome starts the host through
//!   `cmd.exe` and a process keeps the id of a parent that died, a handle on the first
//!   ancestor that is not `cmd.exe`).
//! - [`stop_requested`]: SIGTERM, SIGINT or SIGHUP; on Windows Ctrl+C, Ctrl+Break or the
//!   console closing.
//! - A launched browser's group: [`start_in_own_group`], [`signal_group`],
//!   [`group_exists`].
//! - [`release_free_memory`]: what the allocator holds free, back to the system.
//!
//! It holds no tabwire logic: callers decide what these facts mean.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::*;

#[cfg(windows)]
pub mod windows;
#[cfg(windows)]
pub use windows::*;

/// What [`signal_group`] asks of a process group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// Please exit (SIGTERM).
    Politely,
    /// Exit now (SIGKILL; on Windows, the process is terminated).
    Now,
}
