//! The Windows side of [`crate::platform`]: users as SIDs read from process tokens,
//! process handles, console control events, and no file modes.
//!
//! Windows has no file modes: tabwire's folders and files are made under the user's
//! own profile (`%LOCALAPPDATA%`, `%TEMP%`), whose access list grants the user (and
//! the system and administrators) and nobody else, and they inherit it. So a file
//! there counts as the user's, and the mode arguments the Unix side honours are
//! ignored here.
//!
//! Every call into the system is wrapped in a small safe function that checks its
//! result and closes what it opened.

use std::ffi::{c_void, OsString};
use std::fmt;
use std::fs::{DirBuilder, Metadata, OpenOptions};
use std::io;
use std::os::windows::ffi::{OsStrExt, OsStringExt};
use std::os::windows::fs::OpenOptionsExt;
use std::os::windows::io::{AsRawHandle, FromRawHandle, OwnedHandle, RawHandle};
use std::path::Path;
use std::process::Command;

use windows_sys::Win32::Foundation::{
    GetLastError, LocalFree, ERROR_ACCESS_DENIED, ERROR_INSUFFICIENT_BUFFER, FILETIME, HANDLE,
    INVALID_HANDLE_VALUE, STILL_ACTIVE, WAIT_OBJECT_0,
};
use windows_sys::Win32::Security::Authorization::{ConvertSidToStringSidW, ConvertStringSidToSidW};
use windows_sys::Win32::Security::{
    EqualSid, GetLengthSid, GetTokenInformation, IsValidSid, TokenUser, TOKEN_QUERY, TOKEN_USER,
};
use windows_sys::Win32::Storage::FileSystem::FILE_FLAG_OPEN_REPARSE_POINT;
use windows_sys::Win32::System::Diagnostics::ToolHelp::{
    CreateToolhelp32Snapshot, Process32FirstW, Process32NextW, PROCESSENTRY32W, TH32CS_SNAPPROCESS,
};
use windows_sys::Win32::System::Threading::{
    GetCurrentProcess, GetCurrentProcessId, GetExitCodeProcess, GetProcessTimes, OpenProcess,
    OpenProcessToken, TerminateProcess, WaitForSingleObject, CREATE_NEW_PROCESS_GROUP,
    PROCESS_QUERY_LIMITED_INFORMATION, PROCESS_SYNCHRONIZE, PROCESS_TERMINATE,
};

use super::Stop;

/// A builder of folders; they inherit the access list of the user's folder they are
/// made in (see the module docs).
pub fn private_dir() -> DirBuilder {
    DirBuilder::new()
}

/// Options that create a new file (failing on anything already there, links
/// included) for writing, without following a reparse point.
pub fn new_private_file() -> OpenOptions {
    let mut options = OpenOptions::new();
    options
        .write(true)
        .create_new(true)
        .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT);
    options
}

/// Options that open a file for reading without following a reparse point (a
/// symbolic link or junction is opened as itself, and holds no text).
pub fn read_no_follow() -> OpenOptions {
    let mut options = OpenOptions::new();
    options
        .read(true)
        .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT);
    options
}

/// Whether this user owns the file: every file in the user's profile folders counts
/// as theirs (see the module docs).
pub fn is_mine(_meta: &Metadata) -> bool {
    true
}

/// Nothing to do: the folder inherits the user's access list.
pub fn make_private(_dir: &Path, _meta: &Metadata) -> io::Result<()> {
    Ok(())
}

/// Nothing to do: Windows files have no mode.
pub fn set_mode(_path: &Path, _mode: u32) -> io::Result<()> {
    Ok(())
}

/// Whether the file may be run: Windows decides by its extension, not by a mode.
pub fn is_executable(_meta: &Metadata) -> bool {
    true
}

/// The last system error, with what was being done.
fn os_error(what: &str) -> io::Error {
    let error = io::Error::last_os_error();
    io::Error::new(error.kind(), format!("{what}: {error}"))
}

/// An open process (or token) handle, closed when dropped.
fn owned(handle: HANDLE, what: &str) -> io::Result<OwnedHandle> {
    if handle.is_null() || handle == INVALID_HANDLE_VALUE {
        return Err(os_error(what));
    }
    // SAFETY: `handle` was just returned open by the system, and nothing else owns it.
    Ok(unsafe { OwnedHandle::from_raw_handle(handle as RawHandle) })
}

/// Opens process `pid` with `access`.
fn open_process(pid: u32, access: u32) -> io::Result<OwnedHandle> {
    // SAFETY: OpenProcess has no memory preconditions; the result is checked.
    let handle = unsafe { OpenProcess(access, 0, pid) };
    owned(handle, &format!("cannot open process {pid}"))
}

/// Whether a process with this id runs (one this user may not open counts).
pub fn process_exists(pid: u32) -> bool {
    // SAFETY: OpenProcess has no memory preconditions; the result is checked.
    let handle = unsafe { OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid) };
    if handle.is_null() {
        // SAFETY: reads this thread's last error, set by the failed OpenProcess.
        return unsafe { GetLastError() } == ERROR_ACCESS_DENIED;
    }
    let Ok(process) = owned(handle, "") else {
        return false;
    };
    let mut code = 0u32;
    // SAFETY: the handle is open; `code` is a valid out pointer.
    let ok = unsafe { GetExitCodeProcess(process.as_raw_handle() as HANDLE, &mut code) };
    ok == 0 || code == STILL_ACTIVE as u32
}

/// When process `pid` started (100 ns units since 1601), if it runs and may be asked.
pub fn process_start_time(pid: u32) -> Option<u64> {
    creation_time(&open_process(pid, PROCESS_QUERY_LIMITED_INFORMATION).ok()?)
}

/// A security identifier (a user's, here), kept as its binary form.
#[derive(Clone)]
pub struct Sid {
    /// The SID's bytes, in `u32`s for their alignment.
    words: Vec<u32>,
}

impl Sid {
    /// Copies the SID at `sid`.
    ///
    /// # Safety
    /// `sid` must point at a valid SID that stays valid during the call.
    unsafe fn copy_from(sid: *mut c_void) -> io::Result<Self> {
        // SAFETY: the caller passes a valid SID.
        if unsafe { IsValidSid(sid) } == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "not a valid SID",
            ));
        }
        // SAFETY: as above; GetLengthSid reads the SID's header only.
        let len = unsafe { GetLengthSid(sid) } as usize;
        let mut words = vec![0u32; len.div_ceil(4)];
        // SAFETY: `words` holds at least `len` bytes; the SID holds exactly `len`.
        unsafe { std::ptr::copy_nonoverlapping(sid as *const u8, words.as_mut_ptr().cast(), len) };
        Ok(Self { words })
    }

    fn as_psid(&self) -> *mut c_void {
        self.words.as_ptr() as *mut c_void
    }

    /// The user a process runs as (its token's user).
    ///
    /// # Safety
    /// `process` must be an open process handle with query access.
    unsafe fn of_process_handle(process: HANDLE) -> io::Result<Self> {
        let mut token: HANDLE = std::ptr::null_mut();
        // SAFETY: the caller passes an open process handle; `token` is an out pointer.
        let ok = unsafe { OpenProcessToken(process, TOKEN_QUERY, &mut token) };
        if ok == 0 {
            return Err(os_error("cannot open the process's token"));
        }
        let token = owned(token, "cannot open the process's token")?;
        let mut needed = 0u32;
        // SAFETY: asking for the size only: a null buffer of length 0.
        let ok = unsafe {
            GetTokenInformation(
                token.as_raw_handle() as HANDLE,
                TokenUser,
                std::ptr::null_mut(),
                0,
                &mut needed,
            )
        };
        // SAFETY: reads this thread's last error.
        if ok == 0 && unsafe { GetLastError() } != ERROR_INSUFFICIENT_BUFFER {
            return Err(os_error("cannot read the token's user"));
        }
        // In u64s: TOKEN_USER holds a pointer.
        let mut buffer = vec![0u64; (needed as usize).div_ceil(8).max(1)];
        let size = u32::try_from(buffer.len() * 8).unwrap_or(u32::MAX);
        // SAFETY: `buffer` holds `size` writable, 8-aligned bytes.
        let ok = unsafe {
            GetTokenInformation(
                token.as_raw_handle() as HANDLE,
                TokenUser,
                buffer.as_mut_ptr().cast(),
                size,
                &mut needed,
            )
        };
        if ok == 0 {
            return Err(os_error("cannot read the token's user"));
        }
        // SAFETY: the system filled the buffer with a TOKEN_USER whose SID points into
        // the same buffer, which lives until the copy is made.
        unsafe {
            let user = &*(buffer.as_ptr() as *const TOKEN_USER);
            Self::copy_from(user.User.Sid)
        }
    }

    /// The user this process runs as.
    pub fn current() -> io::Result<Self> {
        // SAFETY: the pseudo handle of the current process is always valid (and is
        // not closed).
        unsafe { Self::of_process_handle(GetCurrentProcess()) }
    }

    /// The user process `pid` runs as.
    pub fn of_process(pid: u32) -> io::Result<Self> {
        let process = open_process(pid, PROCESS_QUERY_LIMITED_INFORMATION)?;
        // SAFETY: the handle is open with query access.
        unsafe { Self::of_process_handle(process.as_raw_handle() as HANDLE) }
            .map_err(|e| io::Error::new(e.kind(), format!("process {pid}: {e}")))
    }

    /// A SID from its text form (`S-1-5-18`).
    pub fn parse(text: &str) -> io::Result<Self> {
        let wide: Vec<u16> = text.encode_utf16().chain([0]).collect();
        let mut sid: *mut c_void = std::ptr::null_mut();
        // SAFETY: `wide` is NUL-terminated; `sid` is an out pointer.
        if unsafe { ConvertStringSidToSidW(wide.as_ptr(), &mut sid) } == 0 {
            return Err(os_error(&format!("{text:?} is not a SID")));
        }
        // SAFETY: the system returned a valid SID, freed right after the copy.
        let copied = unsafe { Self::copy_from(sid) };
        // SAFETY: `sid` was allocated by the system with LocalAlloc.
        unsafe { LocalFree(sid) };
        copied
    }
}

impl PartialEq for Sid {
    fn eq(&self, other: &Self) -> bool {
        // SAFETY: both hold valid SIDs (checked when copied).
        unsafe { EqualSid(self.as_psid(), other.as_psid()) != 0 }
    }
}

impl Eq for Sid {}

impl fmt::Display for Sid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text: *mut u16 = std::ptr::null_mut();
        // SAFETY: the SID is valid; `text` is an out pointer.
        if unsafe { ConvertSidToStringSidW(self.as_psid(), &mut text) } == 0 || text.is_null() {
            return f.write_str("<unreadable SID>");
        }
        // SAFETY: the system returned a NUL-terminated string, freed right after use.
        let shown = unsafe {
            let len = (0..).take_while(|&i| *text.add(i) != 0).count();
            let shown = OsString::from_wide(std::slice::from_raw_parts(text, len));
            LocalFree(text.cast());
            shown
        };
        f.write_str(&shown.to_string_lossy())
    }
}

impl fmt::Debug for Sid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sid({self})")
    }
}

/// When process `process` started (100 ns units since 1601).
fn creation_time(process: &OwnedHandle) -> Option<u64> {
    let mut times = [FILETIME::default(); 4];
    let [created, exited, kernel, user] = &mut times;
    // SAFETY: the handle is open with query access; the four out pointers are valid.
    let ok = unsafe {
        GetProcessTimes(
            process.as_raw_handle() as HANDLE,
            created,
            exited,
            kernel,
            user,
        )
    };
    (ok != 0)
        .then(|| (u64::from(times[0].dwHighDateTime) << 32) | u64::from(times[0].dwLowDateTime))
}

/// Every process's parent id and executable name, from a system snapshot.
fn process_table() -> io::Result<Vec<(u32, u32, String)>> {
    // SAFETY: no memory preconditions; the result is checked.
    let snapshot = unsafe { CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0) };
    let snapshot = owned(snapshot, "cannot list the processes")?;
    let mut entry = PROCESSENTRY32W {
        dwSize: std::mem::size_of::<PROCESSENTRY32W>() as u32,
        ..Default::default()
    };
    let mut table = Vec::new();
    // SAFETY: the snapshot is open and `entry` has its size set.
    let mut more = unsafe { Process32FirstW(snapshot.as_raw_handle() as HANDLE, &mut entry) };
    while more != 0 {
        let name_len = entry.szExeFile.iter().position(|c| *c == 0).unwrap_or(0);
        let name = OsString::from_wide(&entry.szExeFile[..name_len]);
        table.push((
            entry.th32ProcessID,
            entry.th32ParentProcessID,
            name.to_string_lossy().into_owned(),
        ));
        // SAFETY: as above.
        more = unsafe { Process32NextW(snapshot.as_raw_handle() as HANDLE, &mut entry) };
    }
    Ok(table)
}

/// The browser that started this process, watched for its exit.
///
/// Chrome on Windows starts a native host through `cmd.exe /c`, so the host's parent
/// is that shell, which waits for the host whatever the browser does: the browser is
/// the first ancestor that is not `cmd.exe`. A Windows process keeps its parent's id
/// after the parent exits, so the ancestor is held open by a handle taken at start,
/// and it has exited when that handle is signalled. An ancestor that cannot be found
/// or opened is never reported gone (the browser is then taken to run on).
#[derive(Debug)]
pub struct ProcessParent {
    handle: Option<OwnedHandle>,
}

impl ProcessParent {
    /// The browser this process has now. Call at start, before anything can go away.
    pub fn at_start() -> Self {
        // SAFETY: no preconditions.
        let me = unsafe { GetCurrentProcessId() };
        let handle = match browser_ancestor(me) {
            Ok(handle) => Some(handle),
            Err(e) => {
                tracing::warn!(error = %e, "cannot find the browser that started the native host");
                None
            }
        };
        Self { handle }
    }

    /// Watches process `pid` itself (for tests).
    pub fn of(pid: u32) -> io::Result<Self> {
        Ok(Self {
            handle: Some(open_process(
                pid,
                PROCESS_SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION,
            )?),
        })
    }

    /// Whether it has exited.
    pub fn gone(&self) -> bool {
        self.handle.as_ref().is_some_and(|handle| {
            // SAFETY: the handle is open with SYNCHRONIZE access; a zero wait only polls.
            unsafe { WaitForSingleObject(handle.as_raw_handle() as HANDLE, 0) == WAIT_OBJECT_0 }
        })
    }
}

/// The first ancestor of process `pid` that is not `cmd.exe`, opened so its exit can
/// be seen. An ancestor started after its child is an unrelated process that reuses a
/// dead parent's id: the parent is then already gone.
fn browser_ancestor(pid: u32) -> io::Result<OwnedHandle> {
    let table = process_table()?;
    let parent_of = |pid: u32| {
        table
            .iter()
            .find(|(p, _, _)| *p == pid)
            .map(|(_, parent, _)| *parent)
    };
    let name_of = |pid: u32| {
        table
            .iter()
            .find(|(p, _, _)| *p == pid)
            .map(|(_, _, name)| name.as_str())
    };
    let mut child = open_process(pid, PROCESS_QUERY_LIMITED_INFORMATION)?;
    let mut current = pid;
    // A few shells deep at most; a loop in the table must not hang the host.
    for _ in 0..4 {
        let parent = parent_of(current).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::NotFound,
                format!("process {current} is not listed"),
            )
        })?;
        let handle = open_process(
            parent,
            PROCESS_SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION,
        )?;
        let born_before = match (creation_time(&handle), creation_time(&child)) {
            (Some(parent_born), Some(child_born)) => parent_born <= child_born,
            _ => true,
        };
        if !born_before {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("the parent of process {current} has already exited"),
            ));
        }
        if !name_of(parent).is_some_and(|name| name.eq_ignore_ascii_case("cmd.exe")) {
            return Ok(handle);
        }
        current = parent;
        child = handle;
    }
    Err(io::Error::new(
        io::ErrorKind::NotFound,
        "only shells above this process",
    ))
}

/// Completes with the event's name when the console asks the process to stop (Ctrl+C,
/// Ctrl+Break, the console closing); never, if they cannot be watched.
pub async fn stop_requested() -> &'static str {
    use tokio::signal::windows::{ctrl_break, ctrl_c, ctrl_close};
    let (Ok(mut c), Ok(mut brk), Ok(mut close)) = (ctrl_c(), ctrl_break(), ctrl_close()) else {
        tracing::warn!("cannot watch the console's stop events");
        return std::future::pending().await;
    };
    tokio::select! {
        _ = c.recv() => "Ctrl+C",
        _ = brk.recv() => "Ctrl+Break",
        _ = close.recv() => "the console closing",
    }
}

/// Starts the child in a new process group (Windows has no process groups to signal;
/// this keeps console Ctrl+C for tabwire alone).
pub fn start_in_own_group(command: &mut Command) {
    use std::os::windows::process::CommandExt;
    command.creation_flags(CREATE_NEW_PROCESS_GROUP);
}

/// Ends process `group` (the browser: its helpers end with it). Windows has no polite
/// request that a process without a window must heed, so both ways terminate it.
pub fn signal_group(group: u32, _how: Stop) {
    if let Ok(process) = open_process(group, PROCESS_TERMINATE) {
        // SAFETY: the handle is open with terminate access.
        unsafe { TerminateProcess(process.as_raw_handle() as HANDLE, 1) };
    }
}

/// Whether process `group` still runs.
pub fn group_exists(group: u32) -> bool {
    process_exists(group)
}

/// Hands the memory the allocator holds free back to the system: nothing to do, the
/// Windows heap gives back what it frees by itself.
pub fn release_free_memory() {}

/// `text` as a NUL-terminated UTF-16 string, for the system's wide-string calls.
pub fn wide(text: &std::ffi::OsStr) -> Vec<u16> {
    text.encode_wide().chain([0]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_runs_as_the_current_user() {
        let me = Sid::current().unwrap();
        // SAFETY: no preconditions.
        let pid = unsafe { GetCurrentProcessId() };
        assert_eq!(Sid::of_process(pid).unwrap(), me);
        assert!(me.to_string().starts_with("S-1-"), "{me}");
        assert_eq!(Sid::parse(&me.to_string()).unwrap(), me);
    }

    #[test]
    fn another_user_is_another_sid() {
        let system = Sid::parse("S-1-5-18").unwrap();
        assert_eq!(system.to_string(), "S-1-5-18");
        assert_ne!(system, Sid::current().unwrap());
        assert!(Sid::parse("not a sid").is_err());
    }

    #[test]
    fn a_process_that_does_not_exist_has_no_user() {
        assert!(!process_exists(exited_pid()));
        // Process ids are multiples of 4: this one never names a process.
        let never = u32::MAX - 2;
        assert!(!process_exists(never));
        assert!(Sid::of_process(never).is_err());
        // SAFETY: no preconditions.
        assert!(process_exists(unsafe { GetCurrentProcessId() }));
    }

    #[test]
    fn a_watched_process_is_gone_once_it_exits() {
        let mut child = helper_child();
        let watched = ProcessParent::of(child.id()).unwrap();
        assert!(!watched.gone());
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(watched.gone());
    }

    #[test]
    fn this_test_has_a_parent_that_runs() {
        assert!(!ProcessParent::at_start().gone());
    }

    /// Started as Chrome starts a native host, through `cmd.exe`, a process finds the
    /// one above the shell (this test) as its browser.
    #[test]
    fn the_browser_is_the_first_ancestor_that_is_not_cmd() {
        use std::os::windows::process::CommandExt;
        let exe = std::env::current_exe().unwrap();
        let out = Command::new("cmd.exe")
            .raw_arg(format!(
                "/d /s /c \"\"{}\" --exact platform::windows::tests::report_the_browser \
                 --ignored --nocapture --test-threads=1\"",
                exe.display()
            ))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        // The test runner writes its own words around the report, on the same line.
        let found: String = text
            .split_once("browser: ")
            .unwrap_or_else(|| panic!("no report in {text}"))
            .1
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        assert_eq!(found, std::process::id().to_string(), "{text}");
    }

    /// Not a test: the body of the child in
    /// [`the_browser_is_the_first_ancestor_that_is_not_cmd`].
    #[test]
    #[ignore = "run only as a helper child"]
    fn report_the_browser() {
        use windows_sys::Win32::System::Threading::GetProcessId;
        // SAFETY: no preconditions.
        let me = unsafe { GetCurrentProcessId() };
        let browser = browser_ancestor(me).unwrap();
        // SAFETY: the handle is open with query access.
        let pid = unsafe { GetProcessId(browser.as_raw_handle() as HANDLE) };
        println!("browser: {pid}");
    }

    /// A child process that waits until it is killed (this test binary, running a
    /// test that waits on its standard input).
    fn helper_child() -> std::process::Child {
        Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "platform::windows::tests::wait_for_stdin",
                "--ignored",
            ])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap()
    }

    /// Not a test: the body of [`helper_child`].
    #[test]
    #[ignore = "run only as a helper child"]
    fn wait_for_stdin() {
        let mut line = String::new();
        let _ = std::io::stdin().read_line(&mut line);
    }

    /// The id of a process that has exited (and whose handle is closed).
    fn exited_pid() -> u32 {
        let mut child = helper_child();
        let pid = child.id();
        drop(child.stdin.take());
        child.wait().unwrap();
        drop(child);
        pid
    }
}
