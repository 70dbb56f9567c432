//! Browsers and tabwire native hosts running as this user, read from `/proc`.
//!
//! `doctor` uses it to tell "the browser is not running" from "the browser runs without
//! the extension", to find which profile folder a running browser uses, and where a
//! running native host serves its relay; `install --uninstall` uses it to say what it
//! leaves running. Each piece of `/proc` is parsed by a plain function, so the scan is
//! tested on a fake `/proc` in a temporary directory.
//!
//! It only reads: it never signals a process. Where there is no `/proc` (macOS,
//! Windows) the scan says it cannot tell, rather than that nothing runs.

use std::collections::HashMap;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::paths::{self, Browser};

/// A live process, as `/proc/<pid>` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Process {
    /// Its id.
    pub pid: u32,
    /// Its parent's id.
    pub ppid: u32,
    /// Its real user id.
    pub uid: u32,
    /// The executable it runs (`None` when `/proc` does not tell us).
    pub exe: Option<PathBuf>,
    /// Its command line, the program first.
    pub args: Vec<String>,
    /// When it started, by the wall clock, where `/proc` tells. A moment, not an age:
    /// an age read here goes stale while the caller does other work.
    pub started: Option<SystemTime>,
    dir: PathBuf,
}

impl Process {
    /// Its environment (empty when unreadable).
    pub fn environ(&self) -> HashMap<String, OsString> {
        fs::read(self.dir.join("environ"))
            .map(|bytes| parse_environ(&bytes))
            .unwrap_or_default()
    }

    /// Its working directory.
    fn cwd(&self) -> Option<PathBuf> {
        fs::read_link(self.dir.join("cwd")).ok()
    }

    /// The program it runs: the executable's path, else the first argument.
    fn program(&self) -> Option<PathBuf> {
        self.exe
            .clone()
            .or_else(|| self.args.first().map(PathBuf::from))
    }
}

/// Every live process under `proc_root` (normally `/proc`); `None` if it cannot be read.
pub fn processes(proc_root: &Path) -> Option<Vec<Process>> {
    let entries = fs::read_dir(proc_root).ok()?;
    // The moment of boot by the wall clock: start times in `/proc` count from it.
    let boot = fs::read_to_string(proc_root.join("uptime"))
        .ok()
        .and_then(|text| parse_uptime(&text))
        .and_then(|uptime| SystemTime::now().checked_sub(uptime));
    let mut found: Vec<Process> = entries
        .flatten()
        .filter_map(|entry| {
            let pid = entry.file_name().to_str()?.parse().ok()?;
            read_process(&entry.path(), pid, boot)
        })
        .collect();
    found.sort_by_key(|p| p.pid);
    Some(found)
}

/// One process; `None` if it is gone (or a zombie) or its files are unreadable. `boot`
/// is when the machine booted, by the wall clock.
fn read_process(dir: &Path, pid: u32, boot: Option<SystemTime>) -> Option<Process> {
    let stat = fs::read_to_string(dir.join("stat")).ok()?;
    let (ppid, gone) = parse_stat(&stat)?;
    if gone {
        return None;
    }
    let started = boot
        .zip(parse_start(&stat, clock_ticks()?))
        .and_then(|(boot, since_boot)| boot.checked_add(since_boot));
    let uid = parse_uid(&fs::read_to_string(dir.join("status")).ok()?)?;
    let args = split_nul(&fs::read(dir.join("cmdline")).unwrap_or_default());
    let exe = fs::read_link(dir.join("exe")).ok().map(strip_deleted);
    Some(Process {
        pid,
        ppid,
        uid,
        exe,
        args,
        started,
        dir: dir.to_path_buf(),
    })
}

/// When a process started, as time since boot, from its `/proc/<pid>/stat` (the 22nd
/// field, in clock ticks) and the clock's `ticks` per second.
pub fn parse_start(stat: &str, ticks: u64) -> Option<Duration> {
    let (_, rest) = stat.rsplit_once(')')?;
    // `rest` starts with the third field (state): the start time is its 20th word.
    let started: u64 = rest.split_whitespace().nth(19)?.parse().ok()?;
    Some(Duration::from_millis(
        started.saturating_mul(1000) / ticks.max(1),
    ))
}

/// The time since boot in `/proc/uptime` (its first number, in seconds).
pub fn parse_uptime(text: &str) -> Option<Duration> {
    let secs: f64 = text.split_whitespace().next()?.parse().ok()?;
    Duration::try_from_secs_f64(secs).ok()
}

/// Clock ticks per second, the unit of start times in `/proc`.
fn clock_ticks() -> Option<u64> {
    #[cfg(unix)]
    {
        // SAFETY: sysconf has no preconditions; it returns -1 for an unknown name.
        let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
        u64::try_from(ticks).ok().filter(|t| *t > 0)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// The parent id in `/proc/<pid>/stat`, and whether the process has exited (a zombie).
pub fn parse_stat(stat: &str) -> Option<(u32, bool)> {
    // The command name may hold spaces and parentheses: the fields follow the last ')'.
    let (_, rest) = stat.rsplit_once(')')?;
    let mut fields = rest.split_whitespace();
    let state = fields.next()?;
    let ppid = fields.next()?.parse().ok()?;
    Some((ppid, state == "Z" || state == "X"))
}

/// The real user id in `/proc/<pid>/status` (its `Uid:` line).
pub fn parse_uid(status: &str) -> Option<u32> {
    status
        .lines()
        .find_map(|line| line.strip_prefix("Uid:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// NUL-separated strings, as in `/proc/<pid>/cmdline`.
pub fn split_nul(bytes: &[u8]) -> Vec<String> {
    bytes
        .split(|b| *b == 0)
        .filter(|part| !part.is_empty())
        .map(|part| String::from_utf8_lossy(part).into_owned())
        .collect()
}

/// `NAME=value` pairs, NUL-separated, as in `/proc/<pid>/environ`.
fn parse_environ(bytes: &[u8]) -> HashMap<String, OsString> {
    bytes
        .split(|b| *b == 0)
        .filter_map(|pair| {
            let eq = pair.iter().position(|b| *b == b'=')?;
            let name = std::str::from_utf8(&pair[..eq]).ok()?;
            Some((name.to_owned(), os_string(&pair[eq + 1..])))
        })
        .collect()
}

/// Bytes from `/proc` as an OS string: exactly on Unix; elsewhere (no `/proc` to read
/// there, only tests) as UTF-8, lossily.
fn os_string(bytes: &[u8]) -> OsString {
    #[cfg(unix)]
    {
        std::os::unix::ffi::OsStringExt::from_vec(bytes.to_vec())
    }
    #[cfg(not(unix))]
    {
        OsString::from(String::from_utf8_lossy(bytes).into_owned())
    }
}

/// The path `/proc/<pid>/exe` names, without the ` (deleted)` Linux appends once the
/// file was replaced (an upgraded browser still runs).
fn strip_deleted(path: PathBuf) -> PathBuf {
    match path.to_str().and_then(|p| p.strip_suffix(" (deleted)")) {
        Some(stripped) => PathBuf::from(stripped),
        None => path,
    }
}

/// The last value of a `--name=value` switch (Chromium lets the last one win; it also
/// accepts a single dash).
pub fn switch_value<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    args.iter().skip(1).rev().find_map(|arg| {
        let bare = arg.strip_prefix("--").or_else(|| arg.strip_prefix('-'))?;
        bare.strip_prefix(name)?.strip_prefix('=')
    })
}

/// Which supported browser an executable is, from its path
/// (`/usr/lib/chromium/chromium`, `/opt/google/chrome/chrome`, `/opt/microsoft/msedge/msedge`,
/// `/opt/brave.com/brave/brave`).
pub fn browser_kind(exe: &Path) -> Option<Browser> {
    let name = exe.file_name()?.to_str()?;
    if !["chrome", "chromium", "chromium-browser", "msedge", "brave"].contains(&name) {
        return None;
    }
    let path = exe.to_string_lossy().to_ascii_lowercase();
    Some(if path.contains("msedge") || path.contains("microsoft") {
        Browser::Edge
    } else if path.contains("brave") {
        Browser::Brave
    } else if path.contains("chromium") {
        Browser::Chromium
    } else {
        Browser::Chrome
    })
}

/// Whether the command line runs the browser headless (`--headless` or `--headless=…`).
fn is_headless(args: &[String]) -> bool {
    args.iter()
        .skip(1)
        .any(|a| a == "--headless" || a.starts_with("--headless="))
}

/// A browser's main process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunningBrowser {
    /// Its process id.
    pub pid: u32,
    /// Which browser it is.
    pub browser: Browser,
    /// Its executable.
    pub exe: PathBuf,
    /// The profile folder it uses: its `--user-data-dir`, else its default one.
    pub user_data_dir: PathBuf,
    /// The unpacked extension folders its command line loads (`--load-extension`).
    pub loaded_extensions: Vec<PathBuf>,
    /// When it started, by the wall clock, where `/proc` tells.
    pub started: Option<SystemTime>,
    /// The relay socket a native host it starts serves (it inherits the browser's
    /// environment), where that environment can be read.
    pub socket: Option<PathBuf>,
}

impl RunningBrowser {
    /// A Chromium on `user_data_dir` whose native host would serve `socket`, for tests
    /// of what is said about running browsers.
    #[cfg(test)]
    pub fn test_chromium(pid: u32, user_data_dir: &Path, socket: Option<&str>) -> Self {
        RunningBrowser {
            pid,
            browser: Browser::Chromium,
            exe: PathBuf::from("/usr/lib/chromium/chromium"),
            user_data_dir: user_data_dir.to_path_buf(),
            loaded_extensions: Vec::new(),
            started: None,
            socket: socket.map(PathBuf::from),
        }
    }
}

/// `process` as a browser's main process (not one of its helpers, which carry
/// `--type=`), or `None`.
pub fn as_browser(process: &Process) -> Option<RunningBrowser> {
    let exe = process.program()?;
    let browser = browser_kind(&exe)?;
    if switch_value(&process.args, "type").is_some() {
        return None;
    }
    let from_cwd = |dir: &str| -> Option<PathBuf> {
        let dir = Path::new(dir);
        if dir.is_absolute() {
            Some(dir.to_path_buf())
        } else {
            Some(process.cwd()?.join(dir))
        }
    };
    let env = process.environ();
    let user_data_dir = match switch_value(&process.args, "user-data-dir").filter(|d| !d.is_empty())
    {
        Some(dir) => from_cwd(dir)?,
        // Headless without a folder runs on a temporary profile of its own, which no
        // registration can reach: not a browser tabwire can work in.
        None if is_headless(&process.args) => return None,
        None => browser.default_user_data_dir(&exe, |name| env.get(name).cloned())?,
    };
    let loaded_extensions = switch_value(&process.args, "load-extension")
        .into_iter()
        .flat_map(|list| list.split(','))
        .filter(|dir| !dir.is_empty())
        .filter_map(from_cwd)
        .collect();
    Some(RunningBrowser {
        pid: process.pid,
        browser,
        exe,
        user_data_dir,
        loaded_extensions,
        started: process.started,
        socket: socket_of(&env),
    })
}

/// A running `tabwire native-host`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NativeHost {
    /// Its process id.
    pub pid: u32,
    /// Its parent (the browser that started it, until that exits).
    pub ppid: u32,
    /// The relay socket it serves, worked out from its environment as it did.
    pub socket: Option<PathBuf>,
}

/// `process` as a tabwire native host (`<tabwire> native-host chrome-extension://…`),
/// or `None`.
pub fn as_native_host(process: &Process) -> Option<NativeHost> {
    let is_host = process.args.get(1).is_some_and(|a| a == "native-host")
        && process
            .args
            .get(2)
            .is_some_and(|a| a.starts_with("chrome-extension://"));
    if !is_host {
        return None;
    }
    let env = process.environ();
    Some(NativeHost {
        pid: process.pid,
        ppid: process.ppid,
        socket: socket_of(&env),
    })
}

/// The relay socket a native host with this environment serves ([`paths::socket_path`]).
fn socket_of(env: &HashMap<String, OsString>) -> Option<PathBuf> {
    let absolute = |name: &str| env.get(name).map(PathBuf::from).filter(|p| p.is_absolute());
    let cache = absolute("XDG_CACHE_HOME").or_else(|| Some(absolute("HOME")?.join(".cache")));
    paths::socket_path_from(
        env.get(paths::SOCKET_ENV).map(OsString::as_os_str),
        env.get("XDG_RUNTIME_DIR").map(OsString::as_os_str),
        cache.as_deref(),
    )
}

/// What runs as one user: browsers and tabwire native hosts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Running {
    /// Browsers' main processes, by pid.
    pub browsers: Vec<RunningBrowser>,
    /// tabwire native hosts, by pid.
    pub native_hosts: Vec<NativeHost>,
}

impl Running {
    /// The browsers running on the profile folder `dir`.
    pub fn browsers_on(&self, dir: &Path) -> Vec<&RunningBrowser> {
        let wanted = canonical(dir);
        self.browsers
            .iter()
            .filter(|b| canonical(&b.user_data_dir) == wanted)
            .collect()
    }
}

/// `path` with symbolic links resolved, or as given if it does not exist.
pub fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

/// The browsers and native hosts of user `uid` under `proc_root`; `None` if it cannot
/// be read.
pub fn scan(proc_root: &Path, uid: u32) -> Option<Running> {
    let mine: Vec<Process> = processes(proc_root)?
        .into_iter()
        .filter(|p| p.uid == uid)
        .collect();
    Some(Running {
        browsers: mine.iter().filter_map(as_browser).collect(),
        native_hosts: mine.iter().filter_map(as_native_host).collect(),
    })
}

/// [`scan`] of `/proc` for the current user; `None` where there is no Linux `/proc`
/// (macOS, Windows), so that doctor says it cannot tell rather than that nothing runs.
pub fn scan_current() -> Option<Running> {
    #[cfg(target_os = "linux")]
    {
        scan(Path::new("/proc"), crate::platform::current_uid())
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

// The fake `/proc` is made of symbolic links.
#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// Writes a fake `/proc/<pid>`.
    #[cfg(target_os = "linux")]
    fn fake(root: &Path, pid: u32, ppid: u32, uid: u32, exe: &str, args: &[&str], env: &[&str]) {
        let dir = root.join(pid.to_string());
        fs::create_dir_all(&dir).unwrap();
        // Started at 1000 clock ticks after boot.
        let mut stat = format!("{pid} (a (b) c) S {ppid} {pid} 0 0");
        stat.push_str(&" 0".repeat(14));
        stat.push_str(" 1000 0 0");
        fs::write(dir.join("stat"), stat).unwrap();
        fs::write(
            dir.join("status"),
            format!("Name:\tx\nUid:\t{uid}\t{uid}\t{uid}\t{uid}\n"),
        )
        .unwrap();
        fs::write(dir.join("cmdline"), args.join("\0") + "\0").unwrap();
        fs::write(dir.join("environ"), env.join("\0") + "\0").unwrap();
        std::os::unix::fs::symlink(exe, dir.join("exe")).unwrap();
        std::os::unix::fs::symlink("/work/here", dir.join("cwd")).unwrap();
    }

    #[test]
    fn stat_status_and_cmdline_are_parsed() {
        assert_eq!(parse_stat("12 (we) ird) S 7 12 0"), Some((7, false)));
        assert_eq!(parse_stat("12 (x) Z 7 12 0"), Some((7, true)));
        assert_eq!(parse_stat("garbage"), None);
        assert_eq!(parse_uid("Name:\tx\nUid:\t1000\t0\t0\t0\n"), Some(1000));
        assert_eq!(parse_uid("Name:\tx\n"), None);
        assert_eq!(split_nul(b"a\0b c\0\0"), ["a", "b c"]);
        let stat = "7 (x) y) S 1 7 0 0 -1 0 0 0 0 0 5 5 0 0 20 0 1 0 250 1 1";
        assert_eq!(parse_start(stat, 100), Some(Duration::from_millis(2500)));
        assert_eq!(parse_start("7 (x) S 1", 100), None);
        assert_eq!(
            parse_uptime("12.50 40.00\n"),
            Some(Duration::from_millis(12500))
        );
        assert_eq!(parse_uptime("x"), None);
        let env = parse_environ(b"HOME=/h\0A=b=c\0junk\0");
        assert_eq!(env["HOME"], OsString::from("/h"));
        assert_eq!(env["A"], OsString::from("b=c"));
        assert_eq!(env.len(), 2);
    }

    #[test]
    fn browsers_are_known_by_their_executable() {
        let kind = |p: &str| browser_kind(Path::new(p));
        assert_eq!(kind("/usr/lib/chromium/chromium"), Some(Browser::Chromium));
        assert_eq!(
            kind("/snap/chromium/2/usr/lib/chromium-browser/chrome"),
            Some(Browser::Chromium)
        );
        assert_eq!(kind("/opt/google/chrome/chrome"), Some(Browser::Chrome));
        assert_eq!(kind("/opt/microsoft/msedge/msedge"), Some(Browser::Edge));
        assert_eq!(kind("/opt/brave.com/brave/brave"), Some(Browser::Brave));
        assert_eq!(kind("/usr/lib/chromium/chrome_crashpad_handler"), None);
        assert_eq!(kind("/usr/bin/bash"), None);
    }

    #[test]
    fn the_last_switch_wins() {
        let args: Vec<String> = ["chromium", "--user-data-dir=/a", "-user-data-dir=/b", "x"]
            .map(String::from)
            .to_vec();
        assert_eq!(switch_value(&args, "user-data-dir"), Some("/b"));
        assert_eq!(switch_value(&args, "type"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_fake_proc_shows_this_users_browsers_and_native_hosts() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        let chromium = "/usr/lib/chromium/chromium";
        // A browser on an explicit profile folder, one on its default, and a helper.
        fake(
            root,
            10,
            1,
            7,
            chromium,
            &[
                chromium,
                "--user-data-dir=/tmp/p",
                "--load-extension=/src/ext,rel/other",
            ],
            &[],
        );
        fake(
            root,
            11,
            10,
            7,
            chromium,
            &[chromium, "--type=renderer", "--user-data-dir=/tmp/p"],
            &[],
        );
        fake(
            root,
            20,
            1,
            7,
            "/opt/google/chrome/chrome",
            &["chrome"],
            &["HOME=/home/me"],
        );
        fake(
            root,
            21,
            1,
            7,
            chromium,
            &[chromium, "--user-data-dir=rel"],
            &[],
        );
        // Headless on a temporary profile of its own.
        fake(
            root,
            22,
            1,
            7,
            chromium,
            &[chromium, "--headless"],
            &["HOME=/h"],
        );
        // Another user's browser.
        fake(root, 30, 1, 8, chromium, &[chromium], &["HOME=/home/other"]);
        // A native host started by the first browser.
        fake(
            root,
            40,
            10,
            7,
            "/x/tabwire",
            &["/x/tabwire", "native-host", "chrome-extension://abc/"],
            &["XDG_RUNTIME_DIR=/run/user/7", "HOME=/home/me"],
        );
        // Not a process.
        fs::create_dir_all(root.join("self-ish")).unwrap();
        fs::write(root.join("uptime"), "100.00 150.00\n").unwrap();

        let running = scan(root, 7).unwrap();
        let dirs: Vec<_> = running
            .browsers
            .iter()
            .map(|b| (b.pid, b.browser, b.user_data_dir.clone()))
            .collect();
        assert_eq!(
            dirs,
            [
                (10, Browser::Chromium, PathBuf::from("/tmp/p")),
                (
                    20,
                    Browser::Chrome,
                    PathBuf::from("/home/me/.config/google-chrome")
                ),
                (21, Browser::Chromium, PathBuf::from("/work/here/rel")),
            ]
        );
        assert_eq!(
            running.native_hosts,
            [NativeHost {
                pid: 40,
                ppid: 10,
                socket: Some(PathBuf::from("/run/user/7/tabwire/relay.sock")),
            }]
        );
        assert_eq!(running.browsers_on(Path::new("/tmp/p")).len(), 1);
        assert_eq!(
            running.browsers[0].loaded_extensions,
            [
                PathBuf::from("/src/ext"),
                PathBuf::from("/work/here/rel/other")
            ]
        );
        assert!(running.browsers[1].loaded_extensions.is_empty());
        assert_eq!(running.browsers[0].socket, None, "no environment to tell");
        assert_eq!(
            running.browsers[1].socket,
            Some(PathBuf::from("/home/me/.cache/tabwire/relay.sock"))
        );
        // Started 1,000 ticks after a boot 100 s ago.
        let ticks = clock_ticks().unwrap();
        let age = SystemTime::now()
            .duration_since(running.browsers[0].started.unwrap())
            .unwrap();
        let expected = Duration::from_secs(100) - Duration::from_millis(1000 * 1000 / ticks);
        assert!(
            age >= expected && age < expected + Duration::from_secs(5),
            "{age:?} since it started, expected {expected:?}"
        );
        assert!(scan(&root.join("missing"), 7).is_none());
    }

    #[test]
    fn a_native_hosts_socket_follows_its_environment() {
        let env = |pairs: &[(&str, &str)]| -> HashMap<String, OsString> {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), OsString::from(v)))
                .collect()
        };
        assert_eq!(
            socket_of(&env(&[("TABWIRE_SOCKET", "/s.sock"), ("HOME", "/h")])),
            Some(PathBuf::from("/s.sock"))
        );
        assert_eq!(
            socket_of(&env(&[("HOME", "/h")])),
            Some(PathBuf::from("/h/.cache/tabwire/relay.sock"))
        );
        assert_eq!(socket_of(&env(&[])), None);
    }
}
