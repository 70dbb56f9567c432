//! Where tabwire's files live, and the two small files that register the native host.
//!
//! - The relay's Unix socket: `$TABWIRE_SOCKET`, else `$XDG_RUNTIME_DIR/tabwire/relay.sock`,
//!   else `<user cache dir>/tabwire/relay.sock` (`~/Library/Caches` on macOS, where a
//!   path too long for a socket moves to the user's private temporary folder). The
//!   directory is made private (0700) when tabwire creates it, the socket 0600
//!   ([`crate::transport`]). On Windows, the named pipe
//!   `\\.\pipe\tabwire-<user SID>-relay`, or the one `$TABWIRE_SOCKET` names.
//! - Each supported browser's user-level `NativeMessagingHosts` directory, on Linux
//!   and macOS. On Windows the browsers find the manifest through the registry
//!   ([`crate::registry`]); tabwire keeps it in its own folder.
//! - The host manifest (`dev.tabwire.json`) Chrome reads, and the wrapper script it
//!   names, which runs `tabwire native-host` (a `.cmd` file on Windows, which Chrome
//!   starts through `cmd.exe`). `tabwire install` writes them for the user's browsers;
//!   `tabwire mcp --launch` writes them into a temporary profile with a private socket.
//! - tabwire's per-user folder, and the extension folder `tabwire install` writes there.
//!
//! This module only computes paths and writes these files; deciding which browsers to
//! register, and checking what is already there, belong to `install` and `doctor`.

use std::borrow::Cow;
use std::ffi::{OsStr, OsString};
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tabwire_shared::{EXTENSION_ORIGIN, NATIVE_HOST_NAME};

/// Environment variable that overrides the relay socket path.
pub const SOCKET_ENV: &str = "TABWIRE_SOCKET";

/// Set to `1` by the wrapper of a browser `tabwire mcp --launch` started: the native
/// host then tells the extension that every tab belongs to the agents.
pub const AGENT_PROFILE_ENV: &str = "TABWIRE_AGENT_PROFILE";
/// File name of the host manifest inside a `NativeMessagingHosts` directory.
pub const MANIFEST_FILE: &str = "dev.tabwire.json";
/// File name of the wrapper script Chrome runs.
#[cfg(not(windows))]
pub const WRAPPER_FILE: &str = "native-host";
/// File name of the wrapper script Chrome runs (through `cmd.exe`).
#[cfg(windows)]
pub const WRAPPER_FILE: &str = "native-host.cmd";
/// The comment line in every wrapper script tabwire writes; marks the file as ours.
pub const WRAPPER_MARKER: &str = "# tabwire native-messaging host wrapper (written by tabwire)";
/// The same comment in a Windows `.cmd` wrapper.
pub const CMD_WRAPPER_MARKER: &str =
    "rem tabwire native-messaging host wrapper (written by tabwire)";
/// The `description` of every host manifest tabwire writes.
pub const MANIFEST_DESCRIPTION: &str =
    "tabwire: relays between the tabwire extension and coding agents' tabwire mcp servers";

/// The relay socket for this user (see the module docs for the order of choices).
///
/// Fails when neither the environment nor the system names any usable directory, or
/// (macOS) when every default path is too long for a Unix socket, or (Windows) when
/// this process's user cannot be read.
pub fn socket_path() -> io::Result<PathBuf> {
    if cfg!(windows) {
        return windows_pipe();
    }
    let explicit = std::env::var_os(SOCKET_ENV).filter(|v| !v.is_empty());
    let path = socket_path_from(
        explicit.as_deref(),
        std::env::var_os("XDG_RUNTIME_DIR").as_deref(),
        dirs::cache_dir().as_deref(),
    )
    .ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::NotFound,
            "cannot place the tabwire socket: set TABWIRE_SOCKET, XDG_RUNTIME_DIR or HOME",
        )
    })?;
    if explicit.is_some() {
        return Ok(path);
    }
    let Some(os) = Os::CURRENT else {
        return Ok(path);
    };
    fit_socket_path(os, &path, &std::env::temp_dir()).ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "the relay socket path {} is too long for a Unix socket ({MACOS_SOCKET_PATH_MAX} \
                 bytes at most): set TABWIRE_SOCKET to a shorter path",
                path.display()
            ),
        )
    })
}

/// The relay's named pipe (`transport::windows::default_address`).
fn windows_pipe() -> io::Result<PathBuf> {
    #[cfg(windows)]
    {
        crate::transport::windows::default_address(std::env::var_os(SOCKET_ENV).as_deref())
    }
    #[cfg(not(windows))]
    {
        Err(io::Error::other("named pipes are Windows's"))
    }
}

/// [`socket_path`] from explicit inputs; empty values count as unset.
pub fn socket_path_from(
    socket_env: Option<&OsStr>,
    runtime_dir: Option<&OsStr>,
    cache_dir: Option<&Path>,
) -> Option<PathBuf> {
    let set = |v: Option<&OsStr>| v.filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(socket) = set(socket_env) {
        return Some(socket);
    }
    let base = set(runtime_dir).or_else(|| cache_dir.map(Path::to_path_buf))?;
    Some(base.join("tabwire").join("relay.sock"))
}

/// The longest path macOS accepts for a Unix socket: its `sun_path` holds 104 bytes,
/// the last one a NUL.
pub const MACOS_SOCKET_PATH_MAX: usize = 103;

/// The default socket path `default` (from [`socket_path_from`]) made to fit on `os`.
///
/// Linux takes it as it is. On macOS a path longer than [`MACOS_SOCKET_PATH_MAX`] (a
/// long home folder) moves to `<temp_dir>/tabwire/relay.sock`: macOS gives each user a
/// private temporary folder (`/var/folders/…/T/`, about 50 bytes). `None` when that
/// does not fit either.
pub fn fit_socket_path(os: Os, default: &Path, temp_dir: &Path) -> Option<PathBuf> {
    let fits = |p: &Path| p.as_os_str().len() <= MACOS_SOCKET_PATH_MAX;
    if os != Os::MacOs || fits(default) {
        return Some(default.to_path_buf());
    }
    Some(temp_dir.join("tabwire").join("relay.sock")).filter(|p| fits(p))
}

/// An operating system whose per-user folders tabwire knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Os {
    /// Linux: folders under `~/.config`, `~/.cache` and `~/.local/share`.
    Linux,
    /// macOS: folders under `~/Library`.
    MacOs,
    /// Windows: folders under `%LOCALAPPDATA%` (`AppData\Local` in the profile).
    Windows,
}

impl Os {
    /// The system this binary was built for; `None` on one tabwire does not support.
    pub const CURRENT: Option<Os> = if cfg!(target_os = "macos") {
        Some(Os::MacOs)
    } else if cfg!(target_os = "linux") {
        Some(Os::Linux)
    } else if cfg!(windows) {
        Some(Os::Windows)
    } else {
        None
    };
}

/// A browser tabwire can register its native host with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Browser {
    /// Google Chrome.
    Chrome,
    /// Chromium.
    Chromium,
    /// Microsoft Edge.
    Edge,
    /// Brave.
    Brave,
}

impl Browser {
    /// Every supported browser, in the order they are reported.
    pub const ALL: [Browser; 4] = [
        Browser::Chrome,
        Browser::Chromium,
        Browser::Edge,
        Browser::Brave,
    ];

    /// The browser's name for people.
    pub fn display_name(self) -> &'static str {
        match self {
            Browser::Chrome => "Google Chrome",
            Browser::Chromium => "Chromium",
            Browser::Edge => "Microsoft Edge",
            Browser::Brave => "Brave",
        }
    }

    /// The browser's user data directory under `home` (its presence means the browser
    /// has been used by this user). `None` on platforms tabwire does not support.
    pub fn config_dir_in(self, home: &Path) -> Option<PathBuf> {
        Some(self.config_dir_on(Os::CURRENT?, home))
    }

    /// [`Browser::config_dir_in`] on `os`.
    pub fn config_dir_on(self, os: Os, home: &Path) -> PathBuf {
        let relative: &[&str] = match os {
            Os::MacOs => match self {
                Browser::Chrome => &["Library", "Application Support", "Google", "Chrome"],
                Browser::Chromium => &["Library", "Application Support", "Chromium"],
                Browser::Edge => &["Library", "Application Support", "Microsoft Edge"],
                Browser::Brave => &[
                    "Library",
                    "Application Support",
                    "BraveSoftware",
                    "Brave-Browser",
                ],
            },
            Os::Linux => match self {
                Browser::Chrome => &[".config", "google-chrome"],
                Browser::Chromium => &[".config", "chromium"],
                Browser::Edge => &[".config", "microsoft-edge"],
                Browser::Brave => &[".config", "BraveSoftware", "Brave-Browser"],
            },
            Os::Windows => match self {
                Browser::Chrome => &["AppData", "Local", "Google", "Chrome", "User Data"],
                Browser::Chromium => &["AppData", "Local", "Chromium", "User Data"],
                Browser::Edge => &["AppData", "Local", "Microsoft", "Edge", "User Data"],
                Browser::Brave => &[
                    "AppData",
                    "Local",
                    "BraveSoftware",
                    "Brave-Browser",
                    "User Data",
                ],
            },
        };
        relative.iter().fold(home.to_path_buf(), |p, c| p.join(c))
    }

    /// The user-level directory the browser reads native-messaging host manifests from
    /// (on Windows, where the browser's registry key names the manifest instead, the
    /// folder tabwire keeps it in). `None` on platforms tabwire does not support.
    pub fn manifest_dir_in(self, home: &Path) -> Option<PathBuf> {
        Some(self.manifest_dir_on(Os::CURRENT?, home))
    }

    /// [`Browser::manifest_dir_in`] on `os`: `NativeMessagingHosts` in the browser's
    /// folder; on Windows `tabwire\hosts\<browser>` under `%LOCALAPPDATA%`, one per
    /// browser so that each can be unregistered alone.
    pub fn manifest_dir_on(self, os: Os, home: &Path) -> PathBuf {
        match os {
            Os::Windows => home
                .join("AppData")
                .join("Local")
                .join("tabwire")
                .join("hosts")
                .join(self.cli_name()),
            Os::Linux | Os::MacOs => self.config_dir_on(os, home).join("NativeMessagingHosts"),
        }
    }

    /// [`Browser::config_dir_in`] the current user's home.
    pub fn config_dir(self) -> Option<PathBuf> {
        self.config_dir_in(&dirs::home_dir()?)
    }

    /// [`Browser::manifest_dir_in`] the current user's home.
    pub fn manifest_dir(self) -> Option<PathBuf> {
        self.manifest_dir_in(&dirs::home_dir()?)
    }

    /// The value `--browser` takes for it (`tabwire install --browser <name>`).
    pub fn cli_name(self) -> &'static str {
        match self {
            Browser::Chrome => "chrome",
            Browser::Chromium => "chromium",
            Browser::Edge => "edge",
            Browser::Brave => "brave",
        }
    }

    /// The browser's page listing its extensions.
    pub fn extensions_page(self) -> &'static str {
        match self {
            Browser::Chrome | Browser::Chromium => "chrome://extensions",
            Browser::Edge => "edge://extensions",
            Browser::Brave => "brave://extensions",
        }
    }

    /// The user data directory of a browser process started without `--user-data-dir`.
    ///
    /// `var` reads that process's environment. On Linux the browser uses
    /// `$CHROME_CONFIG_HOME`, else `$XDG_CONFIG_HOME`, else `$HOME/.config`, and a folder
    /// named after its release channel, which `exe` shows
    /// (`/opt/google/chrome-beta/chrome` → `google-chrome-beta`).
    pub fn default_user_data_dir(
        self,
        exe: &Path,
        var: impl Fn(&str) -> Option<OsString>,
    ) -> Option<PathBuf> {
        let absolute = |name: &str| var(name).map(PathBuf::from).filter(|p| p.is_absolute());
        if !cfg!(target_os = "linux") {
            return self.config_dir_in(&absolute("HOME")?);
        }
        let config = absolute("CHROME_CONFIG_HOME")
            .or_else(|| absolute("XDG_CONFIG_HOME"))
            .or_else(|| Some(absolute("HOME")?.join(".config")))?;
        Some(config.join(self.linux_folder(release_channel(exe))))
    }

    /// The user data folder's name under the config directory on Linux, for a channel.
    fn linux_folder(self, channel: Option<&str>) -> String {
        match (self, channel) {
            (Browser::Chromium, _) => "chromium".to_owned(),
            (Browser::Chrome, None) => "google-chrome".to_owned(),
            (Browser::Chrome, Some(c)) => format!("google-chrome-{c}"),
            (Browser::Edge, None) => "microsoft-edge".to_owned(),
            (Browser::Edge, Some(c)) => format!("microsoft-edge-{c}"),
            (Browser::Brave, None) => "BraveSoftware/Brave-Browser".to_owned(),
            (Browser::Brave, Some(c)) => {
                let mut chars = c.chars();
                let first = chars.next().map(|f| f.to_ascii_uppercase());
                format!(
                    "BraveSoftware/Brave-Browser-{}{}",
                    first.unwrap_or_default(),
                    chars.as_str()
                )
            }
        }
    }
}

/// The release channel an installed browser's folder names (`chrome-beta`, `msedge-dev`,
/// `brave-nightly`), or `None` for the stable one.
fn release_channel(exe: &Path) -> Option<&str> {
    let folder = exe.parent()?.file_name()?.to_str()?;
    let (_, channel) = folder.split_once('-')?;
    ["beta", "dev", "unstable", "nightly"]
        .contains(&channel)
        .then_some(channel)
}

/// tabwire's own per-user folder, where `tabwire install` puts the wrapper script, the
/// extension to load ([`EXTENSION_FOLDER`]) and the binary the wrapper runs
/// ([`BINARY_FOLDER`]): `~/.local/share/tabwire` on Linux, `~/Library/Application
/// Support/tabwire` on macOS, `%LOCALAPPDATA%\tabwire` on Windows.
pub fn default_wrapper_dir() -> Option<PathBuf> {
    Some(dirs::data_local_dir()?.join("tabwire"))
}

/// The folder inside tabwire's per-user folder that holds the extension the user loads.
pub const EXTENSION_FOLDER: &str = "extension";
/// The folder inside tabwire's per-user folder that holds the binary the browsers run.
pub const BINARY_FOLDER: &str = "bin";

/// The extension folder `tabwire install` writes, under tabwire's per-user folder.
pub fn installed_extension_dir() -> Option<PathBuf> {
    Some(default_wrapper_dir()?.join(EXTENSION_FOLDER))
}

/// The native-messaging host manifest, as Chrome reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostManifest {
    /// The host's name; must be [`NATIVE_HOST_NAME`].
    pub name: String,
    /// Shown nowhere important; identifies the file as tabwire's.
    #[serde(default)]
    pub description: String,
    /// Absolute path of the program Chrome starts.
    pub path: PathBuf,
    /// Always `stdio`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Extension origins allowed to connect.
    #[serde(default)]
    pub allowed_origins: Vec<String>,
}

impl HostManifest {
    /// tabwire's manifest, starting the program at `wrapper`.
    pub fn new(wrapper: &Path) -> Self {
        Self {
            name: NATIVE_HOST_NAME.to_owned(),
            description: MANIFEST_DESCRIPTION.to_owned(),
            path: wrapper.to_path_buf(),
            kind: "stdio".to_owned(),
            allowed_origins: vec![EXTENSION_ORIGIN.to_owned()],
        }
    }
}

/// The host manifest JSON naming `wrapper` as the program to start.
pub fn render_host_manifest(wrapper: &Path) -> String {
    // Serialising a struct of strings and a path cannot fail unless the path is not
    // UTF-8; Chrome could not read such a path either, so it is written lossily.
    let mut manifest = HostManifest::new(wrapper);
    manifest.path = PathBuf::from(wrapper.to_string_lossy().into_owned());
    let mut text = serde_json::to_string_pretty(&manifest).unwrap_or_default();
    text.push('\n');
    text
}

/// How a wrapper script sets up the native host it starts.
#[derive(Debug, Clone, Copy, Default)]
pub struct HostEnv<'a> {
    /// The relay socket to use instead of the per-user default (`TABWIRE_SOCKET`).
    pub socket: Option<&'a Path>,
    /// The browser was started by `tabwire mcp --launch` with a profile of its own, so
    /// every tab is shared with the agents (`TABWIRE_AGENT_PROFILE=1`).
    pub agent_profile: bool,
}

/// The wrapper script for this system: runs `tabwire_exe native-host` with Chrome's
/// arguments, after exporting what `env` asks for ([`render_sh_wrapper`], or
/// [`render_cmd_wrapper`] on Windows).
pub fn render_wrapper_script(tabwire_exe: &Path, env: HostEnv) -> String {
    if cfg!(windows) {
        render_cmd_wrapper(tabwire_exe, env)
    } else {
        render_sh_wrapper(tabwire_exe, env)
    }
}

/// The tabwire executable a wrapper script tabwire wrote for this system runs, or
/// `None` if `script` is not such a script.
pub fn wrapper_target(script: &str) -> Option<PathBuf> {
    if cfg!(windows) {
        cmd_wrapper_target(script)
    } else {
        sh_wrapper_target(script)
    }
}

/// The `/bin/sh` wrapper script.
pub fn render_sh_wrapper(tabwire_exe: &Path, env: HostEnv) -> String {
    let mut script = format!("#!/bin/sh\n{WRAPPER_MARKER}\n");
    if let Some(socket) = env.socket {
        script.push_str(&format!(
            "{SOCKET_ENV}={}\nexport {SOCKET_ENV}\n",
            shell_quote(socket)
        ));
    }
    if env.agent_profile {
        script.push_str(&format!(
            "{AGENT_PROFILE_ENV}=1\nexport {AGENT_PROFILE_ENV}\n"
        ));
    }
    script.push_str(&format!(
        "exec {} native-host \"$@\"\n",
        shell_quote(tabwire_exe)
    ));
    script
}

/// The tabwire executable a wrapper script written by [`render_sh_wrapper`] runs, or
/// `None` if `script` is not such a script.
pub fn sh_wrapper_target(script: &str) -> Option<PathBuf> {
    if !script.lines().any(|l| l == WRAPPER_MARKER) {
        return None;
    }
    let line = script.lines().find(|l| l.starts_with("exec "))?;
    match shlex::split(line)?.as_slice() {
        [exec, target, command, args]
            if exec == "exec" && command == "native-host" && args == "$@" =>
        {
            Some(PathBuf::from(target))
        }
        _ => None,
    }
}

/// The Windows wrapper, a `.cmd` file (Chrome starts it as `cmd.exe /d /s /c
/// "<wrapper>" <origin> --parent-window=<id>`): sets what `env` asks for and runs
/// `tabwire_exe native-host` with those arguments (`%*`).
///
/// Values are written inside double quotes, where `cmd` treats `&`, `|`, `<`, `>` and
/// `^` as text; only `%` needs doubling. A Windows path cannot hold `"`.
pub fn render_cmd_wrapper(tabwire_exe: &Path, env: HostEnv) -> String {
    let mut script = format!("@echo off\r\n{CMD_WRAPPER_MARKER}\r\n");
    if let Some(socket) = env.socket {
        script.push_str(&format!("set \"{SOCKET_ENV}={}\"\r\n", cmd_escape(socket)));
    }
    if env.agent_profile {
        script.push_str(&format!("set \"{AGENT_PROFILE_ENV}=1\"\r\n"));
    }
    script.push_str(&format!(
        "\"{}\" native-host %*\r\n",
        cmd_escape(tabwire_exe)
    ));
    script
}

/// The tabwire executable a wrapper written by [`render_cmd_wrapper`] runs, or `None`
/// if `script` is not such a wrapper.
pub fn cmd_wrapper_target(script: &str) -> Option<PathBuf> {
    if !script.lines().any(|l| l.trim_end() == CMD_WRAPPER_MARKER) {
        return None;
    }
    script.lines().find_map(|line| {
        let quoted = line.trim_end().strip_suffix(" native-host %*")?;
        let inner = quoted.strip_prefix('"')?.strip_suffix('"')?;
        (!inner.is_empty() && !inner.contains('"')).then(|| PathBuf::from(inner.replace("%%", "%")))
    })
}

/// `path` for a double-quoted `cmd` string: `%` doubled.
fn cmd_escape(path: &Path) -> String {
    path.to_string_lossy().replace('%', "%%")
}

/// Quotes `path` for `/bin/sh` (as it is when nothing in it needs quoting).
pub fn shell_quote(path: &Path) -> String {
    let text = path.to_string_lossy();
    // Only a NUL byte cannot be quoted, and no path holds one.
    shlex::try_quote(&text).map_or_else(|_| String::new(), Cow::into_owned)
}

/// Writes the wrapper script into `wrapper_dir` (created if missing), mode 0755, and
/// returns its path.
pub fn write_wrapper_script(
    wrapper_dir: &Path,
    tabwire_exe: &Path,
    env: HostEnv,
) -> io::Result<PathBuf> {
    fs::create_dir_all(wrapper_dir)?;
    let path = wrapper_dir.join(WRAPPER_FILE);
    write_atomically(&path, &render_wrapper_script(tabwire_exe, env), 0o755)?;
    Ok(path)
}

/// Writes the host manifest naming `wrapper` into `manifest_dir` (created if missing,
/// as are the folders above it, private to this user: a browser profile folder made
/// here before the browser's first run is as closed as the browser would make it) and
/// returns its path.
pub fn write_host_manifest(manifest_dir: &Path, wrapper: &Path) -> io::Result<PathBuf> {
    crate::platform::private_dir()
        .recursive(true)
        .create(manifest_dir)?;
    let path = manifest_dir.join(MANIFEST_FILE);
    write_atomically(&path, &render_host_manifest(wrapper), 0o644)?;
    Ok(path)
}

/// Registers the native host: the wrapper script in `wrapper_dir` (running
/// `tabwire_exe` with `env`) and the manifest naming it in `manifest_dir`. Returns the
/// manifest's path.
///
/// For a temporary profile: `manifest_dir = <user-data-dir>/NativeMessagingHosts`.
pub fn write_native_host_registration(
    manifest_dir: &Path,
    wrapper_dir: &Path,
    tabwire_exe: &Path,
    env: HostEnv,
) -> io::Result<PathBuf> {
    let wrapper = write_wrapper_script(wrapper_dir, tabwire_exe, env)?;
    write_host_manifest(manifest_dir, &wrapper)
}

/// Writes `contents` to a temporary file beside `path`, then renames it over `path`, so
/// a browser never reads a half-written file.
fn write_atomically(path: &Path, contents: &str, mode: u32) -> io::Result<()> {
    let name = path.file_name().unwrap_or_else(|| OsStr::new("file"));
    let mut tmp_name = OsStr::new(".").to_os_string();
    tmp_name.push(name);
    tmp_name.push(format!(".tmp{}", std::process::id()));
    let tmp = path.with_file_name(tmp_name);
    let result = (|| {
        let mut file = fs::File::create(&tmp)?;
        file.write_all(contents.as_bytes())?;
        file.sync_all()?;
        drop(file);
        crate::platform::set_mode(&tmp, mode)?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn socket_env_wins_over_everything() {
        let p = socket_path_from(
            Some(OsStr::new("/x/s.sock")),
            Some(OsStr::new("/run/user/1")),
            Some(Path::new("/home/u/.cache")),
        );
        assert_eq!(p, Some(PathBuf::from("/x/s.sock")));
    }

    #[test]
    fn runtime_dir_then_cache_dir_hold_the_socket() {
        let p = socket_path_from(None, Some(OsStr::new("/run/user/1")), None);
        assert_eq!(p, Some(PathBuf::from("/run/user/1/tabwire/relay.sock")));
        let p = socket_path_from(
            Some(OsStr::new("")),
            Some(OsStr::new("")),
            Some(Path::new("/c")),
        );
        assert_eq!(p, Some(PathBuf::from("/c/tabwire/relay.sock")));
        assert_eq!(socket_path_from(None, None, None), None);
    }

    #[test]
    fn linux_manifest_dirs_are_under_dot_config() {
        let dir = |b: Browser| b.config_dir_on(Os::Linux, Path::new("/h"));
        assert_eq!(dir(Browser::Chrome), Path::new("/h/.config/google-chrome"));
        assert_eq!(dir(Browser::Chromium), Path::new("/h/.config/chromium"));
        assert_eq!(dir(Browser::Edge), Path::new("/h/.config/microsoft-edge"));
        assert_eq!(
            dir(Browser::Brave),
            Path::new("/h/.config/BraveSoftware/Brave-Browser")
        );
    }

    #[test]
    fn macos_manifest_dirs_are_under_application_support() {
        let dir = |b: Browser| b.config_dir_on(Os::MacOs, Path::new("/Users/u"));
        let support = Path::new("/Users/u/Library/Application Support");
        assert_eq!(dir(Browser::Chrome), support.join("Google/Chrome"));
        assert_eq!(dir(Browser::Chromium), support.join("Chromium"));
        assert_eq!(dir(Browser::Edge), support.join("Microsoft Edge"));
        assert_eq!(
            dir(Browser::Brave),
            support.join("BraveSoftware/Brave-Browser")
        );
    }

    #[test]
    fn windows_folders_are_under_local_app_data_and_manifests_in_tabwires() {
        let home = Path::new(r"C:\Users\u");
        let local = home.join("AppData").join("Local");
        assert_eq!(
            Browser::Chrome.config_dir_on(Os::Windows, home),
            local.join("Google").join("Chrome").join("User Data")
        );
        assert_eq!(
            Browser::Brave.config_dir_on(Os::Windows, home),
            local
                .join("BraveSoftware")
                .join("Brave-Browser")
                .join("User Data")
        );
        assert_eq!(
            Browser::Edge.manifest_dir_on(Os::Windows, home),
            local.join("tabwire").join("hosts").join("edge")
        );
        assert_eq!(
            Browser::Chromium.manifest_dir_on(Os::Linux, Path::new("/h")),
            Path::new("/h/.config/chromium/NativeMessagingHosts")
        );
    }

    #[test]
    fn manifest_dirs_are_in_the_browsers_folder() {
        let home = Path::new("/h");
        for browser in Browser::ALL {
            assert_eq!(
                browser.manifest_dir_in(home),
                Os::CURRENT.map(|os| browser.manifest_dir_on(os, home))
            );
        }
    }

    #[test]
    fn a_macos_socket_path_too_long_moves_to_the_users_temporary_folder() {
        let temp = Path::new("/var/folders/zz/zyxvpxvq6csfxvn_n0000000000000/T/");
        let cache = Path::new("/Users/u/Library/Caches");
        let usual = socket_path_from(None, None, Some(cache)).unwrap();
        assert_eq!(
            usual,
            Path::new("/Users/u/Library/Caches/tabwire/relay.sock")
        );
        assert_eq!(
            fit_socket_path(Os::MacOs, &usual, temp),
            Some(usual.clone())
        );

        let long_home = format!("/Users/{}", "a".repeat(70));
        let long = socket_path_from(
            None,
            None,
            Some(&Path::new(&long_home).join("Library/Caches")),
        )
        .unwrap();
        assert!(long.as_os_str().len() > MACOS_SOCKET_PATH_MAX);
        let moved = fit_socket_path(Os::MacOs, &long, temp).unwrap();
        assert_eq!(moved, temp.join("tabwire/relay.sock"));
        assert!(moved.as_os_str().len() <= MACOS_SOCKET_PATH_MAX);
        assert_eq!(
            fit_socket_path(
                Os::MacOs,
                &long,
                &Path::new(&long_home).join("T".repeat(20))
            ),
            None
        );
        // Linux keeps its path as it always did.
        assert_eq!(fit_socket_path(Os::Linux, &long, temp), Some(long));
    }

    #[cfg(target_os = "macos")]
    #[test]
    fn macos_wrapper_folder_is_in_application_support() {
        let home = dirs::home_dir().unwrap();
        assert_eq!(
            default_wrapper_dir().unwrap(),
            home.join("Library/Application Support/tabwire")
        );
        assert_eq!(dirs::cache_dir().unwrap(), home.join("Library/Caches"));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_browsers_default_user_data_dir_follows_its_environment_and_channel() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| OsString::from(v))
            }
        };
        let chrome = Path::new("/opt/google/chrome/chrome");
        let home = env(&[("HOME", "/h")]);
        assert_eq!(
            Browser::Chrome.default_user_data_dir(chrome, home),
            Some(PathBuf::from("/h/.config/google-chrome"))
        );
        let xdg = env(&[("HOME", "/h"), ("XDG_CONFIG_HOME", "/x")]);
        assert_eq!(
            Browser::Chromium.default_user_data_dir(Path::new("/usr/lib/chromium/chromium"), xdg),
            Some(PathBuf::from("/x/chromium"))
        );
        let snap = env(&[
            ("HOME", "/h"),
            ("CHROME_CONFIG_HOME", "/s"),
            ("XDG_CONFIG_HOME", "/x"),
        ]);
        assert_eq!(
            Browser::Chromium.default_user_data_dir(Path::new("/snap/chromium/1/chrome"), snap),
            Some(PathBuf::from("/s/chromium"))
        );
        let beta = Path::new("/opt/google/chrome-beta/chrome");
        assert_eq!(
            Browser::Chrome.default_user_data_dir(beta, env(&[("HOME", "/h")])),
            Some(PathBuf::from("/h/.config/google-chrome-beta"))
        );
        let nightly = Path::new("/opt/brave.com/brave-nightly/brave");
        assert_eq!(
            Browser::Brave.default_user_data_dir(nightly, env(&[("HOME", "/h")])),
            Some(PathBuf::from(
                "/h/.config/BraveSoftware/Brave-Browser-Nightly"
            ))
        );
        let fedora = Path::new("/usr/lib64/chromium-browser/chromium-browser");
        assert_eq!(
            Browser::Chromium.default_user_data_dir(fedora, env(&[("HOME", "/h")])),
            Some(PathBuf::from("/h/.config/chromium"))
        );
        assert_eq!(Browser::Edge.default_user_data_dir(chrome, env(&[])), None);
    }

    #[test]
    fn manifest_names_the_host_the_wrapper_and_our_origin() {
        let text = render_host_manifest(Path::new("/opt/tw/native-host"));
        let manifest: HostManifest = serde_json::from_str(&text).unwrap();
        assert_eq!(
            manifest,
            HostManifest::new(Path::new("/opt/tw/native-host"))
        );
        let raw: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(raw["type"], "stdio");
        assert_eq!(raw["allowed_origins"][0], EXTENSION_ORIGIN);
        assert_eq!(raw["name"], NATIVE_HOST_NAME);
    }

    #[test]
    fn wrapper_quotes_paths_and_round_trips_its_target() {
        let exe = Path::new("/home/o'neil/my bin/tabwire");
        let env = HostEnv {
            socket: Some(Path::new("/tmp/p s/relay.sock")),
            agent_profile: true,
        };
        let script = render_sh_wrapper(exe, env);
        assert!(script.starts_with("#!/bin/sh\n"));
        assert!(script.contains("TABWIRE_SOCKET='/tmp/p s/relay.sock'\nexport TABWIRE_SOCKET\n"));
        assert!(script.contains("TABWIRE_AGENT_PROFILE=1\nexport TABWIRE_AGENT_PROFILE\n"));
        let own = render_sh_wrapper(exe, HostEnv::default());
        assert!(!own.contains("TABWIRE_SOCKET") && !own.contains("TABWIRE_AGENT_PROFILE"));
        assert_eq!(sh_wrapper_target(&own).unwrap(), exe);
        assert_eq!(sh_wrapper_target(&script).unwrap(), exe);
        let plain = render_sh_wrapper(Path::new("/opt/tw/tabwire"), HostEnv::default());
        assert!(
            plain.contains("exec /opt/tw/tabwire native-host \"$@\"\n"),
            "{plain}"
        );
        assert_eq!(
            sh_wrapper_target(&plain).unwrap(),
            Path::new("/opt/tw/tabwire")
        );
        assert_eq!(sh_wrapper_target("#!/bin/sh\nexec /bin/true\n"), None);
    }

    #[test]
    fn wrappers_written_by_earlier_versions_are_read() {
        // Always single-quoted, a quote written as '\''.
        let old = format!(
            "#!/bin/sh\n{WRAPPER_MARKER}\nexec '/home/o'\\''neil/my bin/tabwire' native-host \"$@\"\n"
        );
        assert_eq!(
            sh_wrapper_target(&old).unwrap(),
            Path::new("/home/o'neil/my bin/tabwire")
        );
        let other = format!("#!/bin/sh\n{WRAPPER_MARKER}\nexec '/x' native-host --other\n");
        assert_eq!(sh_wrapper_target(&other), None);
        let unclosed = format!("#!/bin/sh\n{WRAPPER_MARKER}\nexec '/x native-host \"$@\"\n");
        assert_eq!(sh_wrapper_target(&unclosed), None);
    }

    #[test]
    fn the_windows_wrapper_quotes_paths_and_round_trips_its_target() {
        let exe = Path::new(r"C:\Users\Ann & Bo\100% tools\tabwire.exe");
        let env = HostEnv {
            socket: Some(Path::new(r"\\.\pipe\tabwire-agent")),
            agent_profile: true,
        };
        let script = render_cmd_wrapper(exe, env);
        assert!(script.starts_with("@echo off\r\n"), "{script}");
        assert!(script.contains("set \"TABWIRE_SOCKET=\\\\.\\pipe\\tabwire-agent\"\r\n"));
        assert!(script.contains("set \"TABWIRE_AGENT_PROFILE=1\"\r\n"));
        assert!(
            script.contains("\"C:\\Users\\Ann & Bo\\100%% tools\\tabwire.exe\" native-host %*\r\n"),
            "{script}"
        );
        assert_eq!(cmd_wrapper_target(&script).unwrap(), exe);
        let own = render_cmd_wrapper(exe, HostEnv::default());
        assert!(!own.contains("TABWIRE_SOCKET") && !own.contains("TABWIRE_AGENT_PROFILE"));
        assert_eq!(cmd_wrapper_target(&own).unwrap(), exe);
        assert_eq!(
            cmd_wrapper_target("@echo off\r\n\"C:\\x.exe\" native-host %*\r\n"),
            None
        );
        assert_eq!(
            sh_wrapper_target(&own),
            None,
            "a .cmd is not a shell wrapper"
        );
        assert_eq!(cmd_wrapper_target(&render_sh_wrapper(exe, env)), None);
    }

    #[cfg(unix)]
    #[test]
    fn quoted_paths_read_back_in_sh() {
        for path in ["/plain/path", "/p s/x", "/o'neil/$HOME/`id`/\"q\"/!x/~", ""] {
            let quoted = shell_quote(Path::new(path));
            let out = std::process::Command::new("/bin/sh")
                .args(["-c", &format!("printf %s {quoted}")])
                .output()
                .unwrap();
            assert_eq!(String::from_utf8_lossy(&out.stdout), path, "{quoted}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn wrapper_script_runs_tabwire_with_chromes_arguments() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        // A stand-in "tabwire" that prints its arguments and the socket it was given.
        let fake = tmp.path().join("fake-tabwire");
        fs::write(&fake, "#!/bin/sh\necho \"$TABWIRE_SOCKET|$*\"\n").unwrap();
        fs::set_permissions(&fake, fs::Permissions::from_mode(0o755)).unwrap();
        let manifest = write_native_host_registration(
            &tmp.path().join("NativeMessagingHosts"),
            &tmp.path().join("bin"),
            &fake,
            HostEnv {
                socket: Some(Path::new("/s.sock")),
                agent_profile: false,
            },
        )
        .unwrap();
        assert_eq!(
            manifest,
            tmp.path().join("NativeMessagingHosts").join(MANIFEST_FILE)
        );
        let parsed: HostManifest =
            serde_json::from_str(&fs::read_to_string(&manifest).unwrap()).unwrap();
        let wrapper_mode = fs::metadata(&parsed.path).unwrap().permissions().mode();
        assert_eq!(wrapper_mode & 0o777, 0o755);
        let out = std::process::Command::new(&parsed.path)
            .arg("chrome-extension://x/")
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "/s.sock|native-host chrome-extension://x/\n"
        );
    }
    /// Runs the `.cmd` wrapper as Chrome on Windows does: `cmd.exe /d /s /c "…"`.
    #[cfg(windows)]
    #[test]
    fn the_cmd_wrapper_runs_tabwire_with_chromes_arguments() {
        use std::os::windows::process::CommandExt;
        let tmp = tempfile::tempdir().unwrap();
        // A stand-in "tabwire" that prints its arguments and the pipe it was given.
        let fake = tmp.path().join("fake tabwire.cmd");
        fs::write(&fake, "@echo socket=%TABWIRE_SOCKET% args=%*\r\n").unwrap();
        let manifest = write_native_host_registration(
            &tmp.path().join("hosts"),
            &tmp.path().join("bin"),
            &fake,
            HostEnv {
                socket: Some(Path::new(r"\\.\pipe\t")),
                agent_profile: false,
            },
        )
        .unwrap();
        let parsed: HostManifest =
            serde_json::from_str(&fs::read_to_string(&manifest).unwrap()).unwrap();
        assert!(parsed.path.ends_with(WRAPPER_FILE));
        let out = std::process::Command::new("cmd.exe")
            .raw_arg(format!(
                "/d /s /c \"\"{}\" chrome-extension://x/ --parent-window=0\"",
                parsed.path.display()
            ))
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim_end(),
            r"socket=\\.\pipe\t args=native-host chrome-extension://x/ --parent-window=0"
        );
    }
}
