//! `tabwire install`: registers the native host with the user's browsers.
//!
//! It writes one wrapper script (`~/.local/share/tabwire/native-host`, running this
//! very `tabwire` binary) and a host manifest naming it into each supported browser's
//! user-level `NativeMessagingHosts` directory: every browser whose profile directory
//! exists, or the ones asked for. Then it says how to load the extension and how to add
//! tabwire to MCP clients. `--uninstall` removes exactly the files install writes, and
//! only when their contents show they are tabwire's.
//!
//! It does not install the extension itself (browsers allow that only through the
//! user) and does not edit any MCP client's configuration: it prints what to add.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use tabwire_shared::{EXTENSION_ID, NATIVE_HOST_NAME};

use crate::paths::{self, Browser, HostManifest, MANIFEST_FILE, WRAPPER_FILE};

/// Which browsers `--browser` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BrowserChoice {
    /// Google Chrome.
    Chrome,
    /// Chromium.
    Chromium,
    /// Microsoft Edge.
    Edge,
    /// Brave.
    Brave,
    /// Every supported browser, installed or not.
    All,
}

/// Arguments of `tabwire install`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct InstallArgs {
    /// Register with these browsers only (repeatable). Default: every supported browser
    /// whose profile directory exists.
    #[arg(long = "browser", value_enum)]
    pub browsers: Vec<BrowserChoice>,
    /// Remove what `tabwire install` wrote instead.
    #[arg(long)]
    pub uninstall: bool,
}

/// Everything install needs to know about the machine, so tests can use temp dirs.
#[derive(Debug, Clone)]
pub struct Layout {
    /// The user's home directory (browsers' profile directories are under it).
    pub home: PathBuf,
    /// Where the wrapper script goes.
    pub wrapper_dir: PathBuf,
    /// The `tabwire` binary the wrapper runs.
    pub tabwire_exe: PathBuf,
}

impl Layout {
    /// This user's layout, for the running binary.
    pub fn current() -> anyhow::Result<Self> {
        let home = dirs::home_dir().context("cannot find your home directory (is HOME set?)")?;
        let wrapper_dir = paths::default_wrapper_dir()
            .context("cannot find your data directory (is HOME set?)")?;
        let exe = std::env::current_exe().context("cannot find the tabwire binary's path")?;
        let tabwire_exe = exe.canonicalize().unwrap_or(exe);
        Ok(Self {
            home,
            wrapper_dir,
            tabwire_exe,
        })
    }

    /// The wrapper script's path.
    pub fn wrapper(&self) -> PathBuf {
        self.wrapper_dir.join(WRAPPER_FILE)
    }
}

/// Runs `tabwire install` (or `--uninstall`) for the current user, printing what it did.
pub fn run(args: InstallArgs) -> anyhow::Result<()> {
    let layout = Layout::current()?;
    if args.uninstall {
        let removed = uninstall(&layout, &args.browsers)?;
        if removed.is_empty() {
            println!("Nothing to remove: no tabwire registration found.");
        }
        for path in removed {
            println!("removed {}", path.display());
        }
        return Ok(());
    }
    let written = install(&layout, &args.browsers)?;
    println!("Registered tabwire's native host ({NATIVE_HOST_NAME}):");
    for (browser, path) in &written {
        println!("  {:<15} {}", browser.display_name(), path.display());
    }
    println!("  {:<15} {}", "wrapper", layout.wrapper().display());
    println!();
    print!(
        "{}",
        next_steps(&layout.tabwire_exe, paths::extension_dir().as_deref())
    );
    Ok(())
}

/// The browsers to act on: the requested ones, or those whose profile dir exists.
pub fn select_browsers(home: &Path, choices: &[BrowserChoice]) -> Vec<Browser> {
    let mut out: Vec<Browser> = if choices.is_empty() {
        Browser::ALL
            .into_iter()
            .filter(|b| b.config_dir_in(home).is_some_and(|d| d.is_dir()))
            .collect()
    } else if choices.contains(&BrowserChoice::All) {
        Browser::ALL.to_vec()
    } else {
        choices
            .iter()
            .map(|c| match c {
                BrowserChoice::Chrome => Browser::Chrome,
                BrowserChoice::Chromium => Browser::Chromium,
                BrowserChoice::Edge => Browser::Edge,
                BrowserChoice::Brave => Browser::Brave,
                BrowserChoice::All => unreachable!("handled above"),
            })
            .collect()
    };
    out.sort_by_key(|b| Browser::ALL.iter().position(|x| x == b));
    out.dedup();
    out
}

/// Writes the wrapper and the manifests; returns each manifest written.
pub fn install(
    layout: &Layout,
    choices: &[BrowserChoice],
) -> anyhow::Result<Vec<(Browser, PathBuf)>> {
    let browsers = select_browsers(&layout.home, choices);
    if browsers.is_empty() {
        bail!(
            "found no supported browser profile under {} (looked for Chrome, Chromium, Edge \
             and Brave). Start your browser once, or name it: `tabwire install --browser \
             chrome` (or chromium, edge, brave, all).",
            layout.home.display()
        );
    }
    let wrapper = paths::write_wrapper_script(
        &layout.wrapper_dir,
        &layout.tabwire_exe,
        paths::HostEnv::default(),
    )
    .with_context(|| format!("cannot write {}", layout.wrapper().display()))?;
    let mut written = Vec::new();
    for browser in browsers {
        let Some(dir) = browser.manifest_dir_in(&layout.home) else {
            continue;
        };
        let path = paths::write_host_manifest(&dir, &wrapper)
            .with_context(|| format!("cannot write the manifest into {}", dir.display()))?;
        written.push((browser, path));
    }
    Ok(written)
}

/// Removes tabwire's manifests (those naming our wrapper) and the wrapper script (if
/// tabwire wrote it); returns what was removed. Other files are left alone.
pub fn uninstall(layout: &Layout, choices: &[BrowserChoice]) -> anyhow::Result<Vec<PathBuf>> {
    let browsers = if choices.is_empty() {
        Browser::ALL.to_vec()
    } else {
        select_browsers(&layout.home, choices)
    };
    let wrapper = layout.wrapper();
    let mut removed = Vec::new();
    for browser in browsers {
        let Some(dir) = browser.manifest_dir_in(&layout.home) else {
            continue;
        };
        let path = dir.join(MANIFEST_FILE);
        if is_our_manifest(&path, &wrapper) {
            remove(&path)?;
            removed.push(path);
        } else if path.exists() {
            println!(
                "left {} alone: it does not name tabwire's wrapper {}",
                path.display(),
                wrapper.display()
            );
        }
    }
    let remaining = Browser::ALL
        .into_iter()
        .filter_map(|b| b.manifest_dir_in(&layout.home))
        .any(|d| is_our_manifest(&d.join(MANIFEST_FILE), &wrapper));
    if !remaining && is_our_wrapper(&wrapper) {
        remove(&wrapper)?;
        removed.push(wrapper);
        // Remove the directory only if nothing else lives there.
        let _ = fs::remove_dir(&layout.wrapper_dir);
    }
    Ok(removed)
}

fn remove(path: &Path) -> anyhow::Result<()> {
    match fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e).with_context(|| format!("cannot remove {}", path.display())),
    }
}

/// Whether `path` is a host manifest for our host name that starts `wrapper`.
fn is_our_manifest(path: &Path, wrapper: &Path) -> bool {
    fs::read_to_string(path)
        .ok()
        .and_then(|text| serde_json::from_str::<HostManifest>(&text).ok())
        .is_some_and(|m| m.name == NATIVE_HOST_NAME && m.path == wrapper)
}

/// Whether `path` is a wrapper script tabwire wrote.
fn is_our_wrapper(path: &Path) -> bool {
    fs::read_to_string(path)
        .ok()
        .is_some_and(|text| paths::wrapper_target(&text).is_some())
}

/// What to do after registering: load the extension, add tabwire to MCP clients.
pub fn next_steps(tabwire_exe: &Path, extension_dir: Option<&Path>) -> String {
    let exe = tabwire_exe.display();
    let extension = match extension_dir {
        Some(dir) => format!("the folder {}", dir.display()),
        None => "the built `dist/extension` folder of your tabwire checkout \
                 (build it with the scripts in `scripts/`)"
            .to_owned(),
    };
    let json_exe = serde_json::to_string(&tabwire_exe.to_string_lossy()).unwrap_or_default();
    format!(
        "Next steps:\n\
         \n\
         1. Load the extension (once per browser profile):\n   \
            open chrome://extensions (edge://extensions, brave://extensions), turn on\n   \
            Developer mode, click \"Load unpacked\" and choose {extension}.\n   \
            Its id must be {EXTENSION_ID}.\n\
         \n\
         2. Add tabwire to your agent:\n   \
            Claude Code:  claude mcp add tabwire -- {exe} mcp\n   \
            Cursor, Claude Desktop and other clients, in their MCP JSON config:\n     \
              {{\"mcpServers\": {{\"tabwire\": {{\"command\": {json_exe}, \"args\": [\"mcp\"]}}}}}}\n\
         \n\
         3. Check every link of the chain: {exe} doctor\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(tmp: &Path) -> Layout {
        let exe = tmp.join("bin").join("tabwire");
        fs::create_dir_all(exe.parent().unwrap()).unwrap();
        fs::write(&exe, "").unwrap();
        Layout {
            home: tmp.join("home"),
            wrapper_dir: tmp.join("home").join(".local/share/tabwire"),
            tabwire_exe: exe,
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn installs_only_for_browsers_whose_profile_exists() {
        let tmp = tempfile::tempdir().unwrap();
        let l = layout(tmp.path());
        fs::create_dir_all(l.home.join(".config/chromium")).unwrap();
        let written = install(&l, &[]).unwrap();
        assert_eq!(written.len(), 1);
        assert_eq!(written[0].0, Browser::Chromium);
        assert_eq!(
            written[0].1,
            l.home
                .join(".config/chromium/NativeMessagingHosts/dev.tabwire.json")
        );
        assert!(!l.home.join(".config/google-chrome").exists());
        let script = fs::read_to_string(l.wrapper()).unwrap();
        assert_eq!(paths::wrapper_target(&script).unwrap(), l.tabwire_exe);
    }

    #[test]
    fn no_browser_found_is_an_error_that_names_the_flag() {
        let tmp = tempfile::tempdir().unwrap();
        let err = install(&layout(tmp.path()), &[]).unwrap_err().to_string();
        assert!(err.contains("--browser"), "{err}");
    }

    #[test]
    fn all_registers_every_browser_and_uninstall_removes_exactly_that() {
        let tmp = tempfile::tempdir().unwrap();
        let l = layout(tmp.path());
        let written = install(&l, &[BrowserChoice::All]).unwrap();
        assert_eq!(written.len(), Browser::ALL.len());
        // Someone else's file beside ours, and a foreign manifest under our name.
        let chrome_dir = Browser::Chrome.manifest_dir_in(&l.home).unwrap();
        fs::write(chrome_dir.join("other.json"), "{}").unwrap();
        let edge = Browser::Edge
            .manifest_dir_in(&l.home)
            .unwrap()
            .join(MANIFEST_FILE);
        fs::write(&edge, paths::render_host_manifest(Path::new("/elsewhere"))).unwrap();

        let removed = uninstall(&l, &[]).unwrap();
        assert_eq!(
            removed.len(),
            Browser::ALL.len(),
            "three manifests and the wrapper"
        );
        assert!(removed.contains(&l.wrapper()));
        assert!(!removed.contains(&edge));
        assert!(
            edge.exists(),
            "a manifest naming another program is not ours"
        );
        assert!(chrome_dir.join("other.json").exists());
        assert!(!l.wrapper_dir.exists());
    }

    #[test]
    fn uninstalling_one_browser_keeps_the_wrapper_others_still_use() {
        let tmp = tempfile::tempdir().unwrap();
        let l = layout(tmp.path());
        install(&l, &[BrowserChoice::Chrome, BrowserChoice::Brave]).unwrap();
        let removed = uninstall(&l, &[BrowserChoice::Chrome]).unwrap();
        assert_eq!(removed.len(), 1);
        assert!(l.wrapper().exists());
    }

    #[test]
    fn a_foreign_wrapper_is_not_removed() {
        let tmp = tempfile::tempdir().unwrap();
        let l = layout(tmp.path());
        fs::create_dir_all(&l.wrapper_dir).unwrap();
        fs::write(l.wrapper(), "#!/bin/sh\necho mine\n").unwrap();
        assert!(uninstall(&l, &[]).unwrap().is_empty());
        assert!(l.wrapper().exists());
    }

    #[test]
    fn next_steps_show_the_extension_id_and_client_snippets() {
        let text = next_steps(
            Path::new("/opt/tw/tabwire"),
            Some(Path::new("/src/dist/extension")),
        );
        assert!(text.contains(EXTENSION_ID));
        assert!(text.contains("/src/dist/extension"));
        assert!(text.contains("claude mcp add tabwire -- /opt/tw/tabwire mcp"));
        let json_line = text.lines().find(|l| l.contains("mcpServers")).unwrap();
        let parsed: serde_json::Value = serde_json::from_str(json_line.trim()).unwrap();
        assert_eq!(
            parsed["mcpServers"]["tabwire"]["command"],
            "/opt/tw/tabwire"
        );
        assert_eq!(parsed["mcpServers"]["tabwire"]["args"][0], "mcp");
    }
}
