//! `tabwire install`: puts tabwire in the user's own folder and registers the native
//! host with the user's browsers.
//!
//! Into tabwire's per-user folder (`~/.local/share/tabwire` on Linux, `~/Library/Application
//! Support/tabwire` on macOS) it writes a copy
//! of this binary (`bin/tabwire`: the program the browsers start stays there when the
//! one that ran install was a download in a package cache), the extension the binary
//! carries (`extension/`, the folder the user loads once), and one wrapper script
//! (`native-host`, running that copy). It writes a host manifest naming the wrapper into
//! each supported browser's user-level `NativeMessagingHosts` directory: every browser
//! whose profile directory exists, or the ones asked for. Then it says how to load the
//! extension and how to add tabwire to MCP clients. A browser started with
//! `--user-data-dir=DIR` reads host manifests from `DIR/NativeMessagingHosts` instead: `--user-data-dir DIR` registers
//! there. `--uninstall` removes exactly the files install writes (in every folder it
//! recorded, unless told which), and only when their contents show they are tabwire's;
//! it lists what it removed, then what it cannot undo ([`crate::leftovers`]: a running
//! browser keeps its native host until it restarts; the extension stays in each
//! profile it was loaded in, where only the user can remove it).
//!
//! On Windows a browser finds the manifest through its registry key instead
//! ([`crate::registry`]): install writes each browser's manifest into tabwire's own
//! folder and points the key at it, and `--uninstall` deletes the keys it wrote.
//!
//! It does not install the extension itself (browsers allow that only through the
//! user) and does not edit any MCP client's configuration: it prints what to add.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use tabwire_shared::{EXTENSION_ID, NATIVE_HOST_NAME};

use crate::bundled_extension;
use crate::leftovers;
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
    /// Register with the browser started with `--user-data-dir=DIR` (repeatable): it
    /// reads host manifests from DIR/NativeMessagingHosts, not from its default folder.
    #[arg(long = "user-data-dir", value_name = "DIR")]
    pub user_data_dirs: Vec<PathBuf>,
    /// Remove what `tabwire install` wrote instead.
    #[arg(long)]
    pub uninstall: bool,
}

/// Everything install needs to know about the machine, so tests can use temp dirs.
#[derive(Debug, Clone)]
pub struct Layout {
    /// The user's home directory (browsers' profile directories are under it).
    pub home: PathBuf,
    /// tabwire's per-user folder: the wrapper script, the extension and the binary copy
    /// go there.
    pub wrapper_dir: PathBuf,
    /// The `tabwire` binary running install, copied to [`Layout::installed_exe`].
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

    /// The extension folder the user loads.
    pub fn extension_dir(&self) -> PathBuf {
        self.wrapper_dir.join(paths::EXTENSION_FOLDER)
    }

    /// The copy of the binary the wrapper runs.
    pub fn installed_exe(&self) -> PathBuf {
        self.wrapper_dir
            .join(paths::BINARY_FOLDER)
            .join(format!("tabwire{}", std::env::consts::EXE_SUFFIX))
    }
}

/// Where a host manifest goes: a browser's default folder, or a profile folder a
/// browser is started on with `--user-data-dir`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// The browser's default profile folder under the home.
    Browser(Browser),
    /// A profile folder given with `--user-data-dir`.
    Folder(PathBuf),
}

impl Target {
    /// The `NativeMessagingHosts` folder the manifest goes into.
    pub fn manifest_dir(&self, home: &Path) -> Option<PathBuf> {
        match self {
            Target::Browser(browser) => browser.manifest_dir_in(home),
            Target::Folder(dir) => Some(dir.join("NativeMessagingHosts")),
        }
    }

    /// How the target is named in install's output.
    pub fn label(&self) -> String {
        match self {
            Target::Browser(browser) => browser.display_name().to_owned(),
            Target::Folder(_) => "--user-data-dir".to_owned(),
        }
    }
}

/// The targets `args` name: the browsers asked for (or, when neither browsers nor
/// folders are, those whose profile folder exists) and the folders given.
pub fn targets(home: &Path, args: &InstallArgs) -> Vec<Target> {
    let browsers = if args.browsers.is_empty() && !args.user_data_dirs.is_empty() {
        Vec::new()
    } else {
        select_browsers(home, &args.browsers)
    };
    let folders = args
        .user_data_dirs
        .iter()
        .map(|d| Target::Folder(absolute(d)));
    browsers
        .into_iter()
        .map(Target::Browser)
        .chain(folders)
        .collect()
}

/// The `--user-data-dir` folders an earlier install registered and that still hold its
/// manifest, as targets not already in `chosen`: a plain `tabwire install` (an update)
/// registers them again.
fn recorded_targets(layout: &Layout, chosen: &[Target]) -> Vec<Target> {
    registered_folders(layout)
        .into_iter()
        .filter(|f| f.join("NativeMessagingHosts").join(MANIFEST_FILE).is_file())
        .map(Target::Folder)
        .filter(|t| !chosen.contains(t))
        .collect()
}

/// `dir` made absolute against the working directory (a manifest must be found from
/// wherever the browser starts).
fn absolute(dir: &Path) -> PathBuf {
    std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf())
}

/// Runs `tabwire install` (or `--uninstall`) for the current user, printing what it did.
pub fn run(args: InstallArgs) -> anyhow::Result<()> {
    if cfg!(windows) && !args.user_data_dirs.is_empty() {
        bail!(
            "--user-data-dir does nothing on Windows: browsers there find native hosts through \
             the registry, for every profile folder alike. Run `tabwire install --browser \
             <name>` (chrome, chromium, edge, brave or all)"
        );
    }
    let layout = Layout::current()?;
    if args.uninstall {
        let folders: Vec<PathBuf> = args.user_data_dirs.iter().map(|d| absolute(d)).collect();
        // Read before uninstalling forgets them.
        let mut examined = registered_folders(&layout);
        examined.extend(folders.iter().cloned());
        let removed = uninstall(&layout, &args.browsers, &folders)?;
        if removed.is_empty() {
            println!("Nothing to remove: no tabwire registration or program found.");
        } else {
            println!("Removed:");
        }
        for item in removed {
            println!("  {:<15} {}", item.what, item.path.display());
        }
        println!();
        let running = crate::running::scan_current().map(|all| crate::launch_mark::split(&all).0);
        let places = leftovers::extension_places(&layout.home, &examined);
        print!("{}", leftovers::not_undone(running.as_ref(), &places));
        return Ok(());
    }
    let mut chosen = targets(&layout.home, &args);
    if args.browsers.is_empty() && args.user_data_dirs.is_empty() {
        chosen.extend(recorded_targets(&layout, &chosen));
    }
    let written = install(&layout, &chosen)?;
    println!(
        "Installed tabwire {} and registered its native host ({NATIVE_HOST_NAME}):",
        env!("CARGO_PKG_VERSION")
    );
    for (target, path) in &written {
        println!("  {:<15} {}", target.label(), path.display());
    }
    println!("  {:<15} {}", "wrapper", layout.wrapper().display());
    println!("  {:<15} {}", "program", layout.installed_exe().display());
    println!("  {:<15} {}", "extension", layout.extension_dir().display());
    println!();
    print!(
        "{}",
        next_steps(&layout.installed_exe(), Some(&layout.extension_dir()))
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

/// Writes the wrapper and a manifest for each target; returns each manifest written.
pub fn install(layout: &Layout, targets: &[Target]) -> anyhow::Result<Vec<(Target, PathBuf)>> {
    if targets.is_empty() {
        bail!(
            "found no supported browser profile under {} (looked for Chrome, Chromium, Edge \
             and Brave). Start your browser once, or name it: `tabwire install --browser \
             chrome` (or chromium, edge, brave, all), or give the folder a browser is started \
             on: `tabwire install --user-data-dir DIR`.",
            layout.home.display()
        );
    }
    let exe = install_binary(layout)?;
    let extension = layout.extension_dir();
    bundled_extension::write_to(&extension)
        .with_context(|| format!("cannot write the extension into {}", extension.display()))?;
    let wrapper = paths::write_wrapper_script(&layout.wrapper_dir, &exe, paths::HostEnv::default())
        .with_context(|| format!("cannot write {}", layout.wrapper().display()))?;
    let mut written = Vec::new();
    for target in targets {
        let Some(dir) = target.manifest_dir(&layout.home) else {
            continue;
        };
        let path = paths::write_host_manifest(&dir, &wrapper)
            .with_context(|| format!("cannot write the manifest into {}", dir.display()))?;
        if let Target::Browser(browser) = target {
            crate::registry::register(*browser, &path)?;
        }
        written.push((target.clone(), path));
    }
    let mut folders = registered_folders(layout);
    for target in targets {
        if let Target::Folder(folder) = target {
            if !folders.contains(folder) {
                folders.push(folder.clone());
            }
        }
    }
    record_folders(layout, &folders)?;
    Ok(written)
}

/// Copies the running binary to [`Layout::installed_exe`] (unless it is that file) and
/// returns the copy's path.
///
/// The copy is written beside its place and renamed over it, so a native host running
/// the old copy keeps running and the next one starts the new one. Where a running
/// program cannot be replaced (Windows), the old one is first moved aside.
fn install_binary(layout: &Layout) -> anyhow::Result<PathBuf> {
    let target = layout.installed_exe();
    let same = |a: &Path, b: &Path| matches!((a.canonicalize(), b.canonicalize()), (Ok(a), Ok(b)) if a == b);
    if same(&layout.tabwire_exe, &target) {
        return Ok(target);
    }
    let dir = target.parent().unwrap_or(&layout.wrapper_dir);
    let copy = || -> io::Result<()> {
        fs::create_dir_all(dir)?;
        let tmp = tempfile::Builder::new()
            .prefix(".tabwire")
            .tempfile_in(dir)?
            .into_temp_path();
        fs::copy(&layout.tabwire_exe, &tmp)?;
        match tmp.persist(&target) {
            Ok(()) => Ok(()),
            Err(e) if target.exists() => {
                let aside = target.with_extension("old");
                fs::rename(&target, &aside)?;
                e.path.persist(&target).map_err(|e| e.error)
            }
            Err(e) => Err(e.error),
        }
    };
    copy().with_context(|| {
        format!(
            "cannot copy {} to {}",
            layout.tabwire_exe.display(),
            target.display()
        )
    })?;
    Ok(target)
}

/// One thing `--uninstall` removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Removed {
    /// What it was, named as install's output names it: the browser or
    /// `--user-data-dir` a host manifest was for, `registry key`, `wrapper`, `program`,
    /// `extension`.
    pub what: String,
    /// Where it was (for a registry key, its name).
    pub path: PathBuf,
}

impl Removed {
    fn new(what: impl Into<String>, path: PathBuf) -> Self {
        Self {
            what: what.into(),
            path,
        }
    }
}

/// Removes what [`install_binary`] and the extension writing put in tabwire's folder:
/// the binary copy (and one moved aside) and the extension's own files; returns what
/// was removed. Files tabwire does not know are left, with their folders.
fn remove_program_and_extension(layout: &Layout) -> anyhow::Result<Vec<Removed>> {
    let mut removed = Vec::new();
    let exe = layout.installed_exe();
    for (what, path) in [("old program", exe.with_extension("old")), ("program", exe)] {
        if !path.is_file() {
            continue;
        }
        match remove(&path) {
            Ok(()) => removed.push(Removed::new(what, path)),
            // Windows cannot delete a program that runs (this one, an agent's
            // `tabwire mcp`, a browser's native host): the rest still goes.
            Err(e) if cfg!(windows) => println!(
                "left {}: {e:#}; delete it once no agent or browser runs it",
                path.display()
            ),
            Err(e) => return Err(e),
        }
    }
    let extension = layout.extension_dir();
    if bundled_extension::version_in(&extension).is_some() {
        let mut subfolders = std::collections::BTreeSet::new();
        for (relative, _) in bundled_extension::files() {
            let file = extension.join(relative);
            remove(&file)?;
            subfolders.extend(
                file.ancestors()
                    .skip(1)
                    .take_while(|d| *d != extension)
                    .map(Path::to_path_buf),
            );
        }
        // Deepest first; a folder the user put something in stays.
        for folder in subfolders.iter().rev() {
            let _ = fs::remove_dir(folder);
        }
        removed.push(Removed::new("extension", extension.clone()));
    }
    for dir in [extension, layout.wrapper_dir.join(paths::BINARY_FOLDER)] {
        let _ = fs::remove_dir(dir);
    }
    Ok(removed)
}

/// The file beside the wrapper that lists the `--user-data-dir` folders registered with
/// it, one a line: the wrapper stays while a manifest in any of them still uses it.
fn folders_file(layout: &Layout) -> PathBuf {
    layout.wrapper_dir.join("user-data-dirs")
}

/// The folders `install --user-data-dir` registered (none if the list is unreadable).
fn registered_folders(layout: &Layout) -> Vec<PathBuf> {
    fs::read_to_string(folders_file(layout))
        .map(|text| {
            text.lines()
                .filter(|l| !l.is_empty())
                .map(PathBuf::from)
                .collect()
        })
        .unwrap_or_default()
}

/// Writes the list of registered folders (removing the file when there are none).
fn record_folders(layout: &Layout, folders: &[PathBuf]) -> anyhow::Result<()> {
    let file = folders_file(layout);
    if folders.is_empty() {
        return remove(&file);
    }
    let text: String = folders
        .iter()
        .map(|f| format!("{}\n", f.display()))
        .collect();
    fs::write(&file, text)
        .and_then(|()| crate::platform::set_mode(&file, 0o600))
        .with_context(|| format!("cannot write {}", file.display()))
}

/// Removes tabwire's manifests (those naming our wrapper) from the browsers chosen and
/// from `folders` (when neither is named: from every browser and every folder
/// `install --user-data-dir` recorded), then the
/// wrapper script (if tabwire wrote it and no manifest left in the browsers' default
/// folders or in a folder `install --user-data-dir` registered uses it), with the
/// program and extension beside it; returns what was removed. Other files are left
/// alone.
pub fn uninstall(
    layout: &Layout,
    choices: &[BrowserChoice],
    folders: &[PathBuf],
) -> anyhow::Result<Vec<Removed>> {
    let everything = choices.is_empty() && folders.is_empty();
    let browsers = match (choices.is_empty(), folders.is_empty()) {
        (true, true) => Browser::ALL.to_vec(),
        (true, false) => Vec::new(),
        (false, _) => select_browsers(&layout.home, choices),
    };
    // A plain uninstall removes everything install wrote, the folders it recorded too.
    let folders = if everything {
        registered_folders(layout)
    } else {
        folders.to_vec()
    };
    let targets: Vec<Target> = browsers
        .into_iter()
        .map(Target::Browser)
        .chain(folders.into_iter().map(Target::Folder))
        .collect();
    let wrapper = layout.wrapper();
    let mut removed = Vec::new();
    for target in &targets {
        let Some(dir) = target.manifest_dir(&layout.home) else {
            continue;
        };
        let path = dir.join(MANIFEST_FILE);
        let ours = is_our_manifest(&path, &wrapper);
        if let Target::Browser(browser) = target {
            let key = crate::registry::unregister(*browser, &path, ours)?;
            removed.extend(key.map(|key| Removed::new("registry key", key)));
        }
        if ours {
            remove(&path)?;
            removed.push(Removed::new(target.label(), path));
        } else if path.exists() {
            println!(
                "left {} alone: it does not name tabwire's wrapper {}",
                path.display(),
                wrapper.display()
            );
        }
    }
    let uses = |folder: &PathBuf| {
        is_our_manifest(
            &folder.join("NativeMessagingHosts").join(MANIFEST_FILE),
            &wrapper,
        )
    };
    let registered: Vec<PathBuf> = registered_folders(layout)
        .into_iter()
        .filter(|f| uses(f))
        .collect();
    record_folders(layout, &registered)?;
    let remaining = !registered.is_empty()
        || Browser::ALL
            .into_iter()
            .filter_map(|b| b.manifest_dir_in(&layout.home))
            .any(|d| is_our_manifest(&d.join(MANIFEST_FILE), &wrapper));
    if !remaining && is_our_wrapper(&wrapper) {
        remove(&wrapper)?;
        removed.push(Removed::new("wrapper", wrapper));
        removed.extend(remove_program_and_extension(layout)?);
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
        None => "the extension folder `tabwire install` writes".to_owned(),
    };
    let json_exe = serde_json::to_string(&tabwire_exe.to_string_lossy()).unwrap_or_default();
    format!(
        "Next steps:\n\
         \n\
         1. Load the extension (once per browser profile):\n   \
            open chrome://extensions (edge://extensions, brave://extensions), turn on\n   \
            Developer mode, click \"Load unpacked\" and choose {extension}.\n   \
            Its id must be {EXTENSION_ID}. After a later `tabwire install` (a new\n   \
            version), press its reload button there.\n\
         \n\
         2. Add tabwire to your agent:\n   \
            Claude Code:  claude mcp add tabwire -- {exe} mcp\n   \
            Cursor, Claude Desktop and other clients, in their MCP JSON config:\n     \
              {{\"mcpServers\": {{\"tabwire\": {{\"command\": {json_exe}, \"args\": [\"mcp\"]}}}}}}\n   \
            Installed from npm, `npx tabwire mcp` is the same command.\n\
         \n\
         3. Check every link of the chain: {exe} doctor\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Registry keys removed with each browser's manifest (only Windows has them).
    const KEYS: usize = if cfg!(windows) { 1 } else { 0 };

    /// Where each thing an uninstall removed was.
    fn removed_paths(removed: anyhow::Result<Vec<Removed>>) -> Vec<PathBuf> {
        removed.unwrap().into_iter().map(|r| r.path).collect()
    }

    /// The targets `tabwire install --browser <choices>` acts on.
    fn chosen(l: &Layout, choices: &[BrowserChoice]) -> Vec<Target> {
        let args = InstallArgs {
            browsers: choices.to_vec(),
            ..InstallArgs::default()
        };
        targets(&l.home, &args)
    }

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
        let written = install(&l, &chosen(&l, &[])).unwrap();
        assert_eq!(written.len(), 1);
        assert_eq!(written[0].0, Target::Browser(Browser::Chromium));
        assert_eq!(
            written[0].1,
            l.home
                .join(".config/chromium/NativeMessagingHosts/dev.tabwire.json")
        );
        assert!(!l.home.join(".config/google-chrome").exists());
        let script = fs::read_to_string(l.wrapper()).unwrap();
        assert_eq!(paths::wrapper_target(&script).unwrap(), l.installed_exe());
        assert_eq!(
            fs::read(l.installed_exe()).unwrap(),
            fs::read(&l.tabwire_exe).unwrap()
        );
        assert_eq!(
            bundled_extension::version_in(&l.extension_dir()).as_deref(),
            Some(env!("CARGO_PKG_VERSION"))
        );
    }

    #[test]
    fn no_browser_found_is_an_error_that_names_the_flag() {
        let tmp = tempfile::tempdir().unwrap();
        let l = layout(tmp.path());
        let err = install(&l, &chosen(&l, &[])).unwrap_err().to_string();
        assert!(err.contains("--browser"), "{err}");
        assert!(err.contains("--user-data-dir"), "{err}");
    }

    #[test]
    fn all_registers_every_browser_and_uninstall_removes_exactly_that() {
        let tmp = tempfile::tempdir().unwrap();
        let l = layout(tmp.path());
        let written = install(&l, &chosen(&l, &[BrowserChoice::All])).unwrap();
        assert_eq!(written.len(), Browser::ALL.len());
        for (target, manifest) in &written {
            let Target::Browser(browser) = target else {
                panic!("{target:?}")
            };
            let named = crate::registry::registered_manifest(*browser).unwrap();
            // Windows: each browser's key names its manifest; elsewhere there are none.
            assert_eq!(named.as_ref(), cfg!(windows).then_some(manifest));
        }
        // Someone else's file beside ours, and a foreign manifest under our name.
        let chrome_dir = Browser::Chrome.manifest_dir_in(&l.home).unwrap();
        fs::write(chrome_dir.join("other.json"), "{}").unwrap();
        let edge = Browser::Edge
            .manifest_dir_in(&l.home)
            .unwrap()
            .join(MANIFEST_FILE);
        fs::write(&edge, paths::render_host_manifest(Path::new("/elsewhere"))).unwrap();

        let removed = removed_paths(uninstall(&l, &[], &[]));
        assert_eq!(
            removed.len(),
            Browser::ALL.len() + 2 + 3 * KEYS,
            "three manifests (and on Windows their keys), the wrapper, the program and the \
             extension: {removed:?}"
        );
        let edge_key = crate::registry::registered_manifest(Browser::Edge).unwrap();
        assert_eq!(edge_key.is_some(), cfg!(windows), "its key is left too");
        let chrome_key = crate::registry::registered_manifest(Browser::Chrome).unwrap();
        assert_eq!(chrome_key, None);
        assert!(removed.contains(&l.wrapper()));
        assert!(removed.contains(&l.installed_exe()));
        assert!(removed.contains(&l.extension_dir()));
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
        install(
            &l,
            &chosen(&l, &[BrowserChoice::Chrome, BrowserChoice::Brave]),
        )
        .unwrap();
        let removed = removed_paths(uninstall(&l, &[BrowserChoice::Chrome], &[]));
        assert_eq!(removed.len(), 1 + KEYS, "{removed:?}");
        assert!(l.wrapper().exists());
    }

    #[test]
    fn installing_again_replaces_the_program_and_keeps_the_users_files() {
        let tmp = tempfile::tempdir().unwrap();
        let l = layout(tmp.path());
        install(&l, &chosen(&l, &[BrowserChoice::Chrome])).unwrap();
        fs::write(&l.tabwire_exe, "a newer tabwire").unwrap();
        fs::write(l.extension_dir().join("notes.txt"), "mine").unwrap();
        install(&l, &chosen(&l, &[BrowserChoice::Chrome])).unwrap();
        assert_eq!(
            fs::read_to_string(l.installed_exe()).unwrap(),
            "a newer tabwire"
        );
        // Run from the installed copy, install leaves it as it is.
        let from_copy = Layout {
            tabwire_exe: l.installed_exe(),
            ..l.clone()
        };
        install(&from_copy, &chosen(&l, &[BrowserChoice::Chrome])).unwrap();
        assert_eq!(
            fs::read_to_string(l.installed_exe()).unwrap(),
            "a newer tabwire"
        );
        removed_paths(uninstall(&l, &[], &[]));
        assert_eq!(
            fs::read_to_string(l.extension_dir().join("notes.txt")).unwrap(),
            "mine",
            "a file tabwire did not write stays"
        );
        assert!(!l.extension_dir().join("manifest.json").exists());
        assert!(!l.installed_exe().exists());
    }

    #[test]
    fn a_foreign_wrapper_is_not_removed() {
        let tmp = tempfile::tempdir().unwrap();
        let l = layout(tmp.path());
        fs::create_dir_all(&l.wrapper_dir).unwrap();
        fs::write(l.wrapper(), "#!/bin/sh\necho mine\n").unwrap();
        assert!(removed_paths(uninstall(&l, &[], &[])).is_empty());
        assert!(l.wrapper().exists());
    }

    #[test]
    fn a_profile_folder_gets_its_own_manifest_and_uninstalls_alone() {
        let tmp = tempfile::tempdir().unwrap();
        let l = layout(tmp.path());
        let folder = tmp.path().join("profile");
        let args = InstallArgs {
            user_data_dirs: vec![folder.clone()],
            ..InstallArgs::default()
        };
        let targets = targets(&l.home, &args);
        assert_eq!(targets, [Target::Folder(folder.clone())], "only the folder");
        let written = install(&l, &targets).unwrap();
        let manifest = folder.join("NativeMessagingHosts").join(MANIFEST_FILE);
        assert_eq!(written[0].1, manifest);
        assert!(is_our_manifest(&manifest, &l.wrapper()));
        #[cfg(unix)]
        {
            // Made before the browser ran: as private as the browser makes a profile.
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&folder), 0o700);
            assert_eq!(mode(&folder.join("NativeMessagingHosts")), 0o700);
            assert_eq!(mode(&folders_file(&l)), 0o600);
        }
        install(&l, &chosen(&l, &[BrowserChoice::Chrome])).unwrap();

        // Only the folder's manifest goes; Chrome's still uses the wrapper.
        let removed = removed_paths(uninstall(&l, &[], std::slice::from_ref(&folder)));
        assert_eq!(removed, [manifest]);
        assert!(l.wrapper().exists());
        // Then Chrome's, and the wrapper nothing uses any more.
        let removed = removed_paths(uninstall(&l, &[BrowserChoice::Chrome], &[]));
        assert_eq!(removed.len(), 4 + KEYS, "{removed:?}");
        assert!(!l.wrapper().exists());
        assert!(
            !l.wrapper_dir.exists(),
            "nothing of tabwire's is left: {:?}",
            fs::read_dir(&l.wrapper_dir).map(|d| d.flatten().map(|e| e.path()).collect::<Vec<_>>())
        );
    }

    #[test]
    fn a_plain_install_registers_the_recorded_folders_again() {
        let tmp = tempfile::tempdir().unwrap();
        let l = layout(tmp.path());
        let (kept, gone) = (tmp.path().join("kept"), tmp.path().join("gone"));
        for folder in [&kept, &gone] {
            install(&l, &[Target::Folder(folder.clone())]).unwrap();
        }
        fs::remove_dir_all(&gone).unwrap();
        assert_eq!(recorded_targets(&l, &[]), [Target::Folder(kept.clone())]);
        assert!(recorded_targets(&l, &[Target::Folder(kept)]).is_empty());
    }

    #[test]
    fn uninstall_says_what_each_removed_file_was() {
        let tmp = tempfile::tempdir().unwrap();
        let l = layout(tmp.path());
        let folder = tmp.path().join("profile");
        install(&l, &[Target::Folder(folder.clone())]).unwrap();
        install(&l, &chosen(&l, &[BrowserChoice::Chromium])).unwrap();
        let removed = uninstall(&l, &[], &[]).unwrap();
        let chromium = Browser::Chromium.manifest_dir_in(&l.home).unwrap();
        for (what, path) in [
            ("Chromium", chromium.join(MANIFEST_FILE)),
            (
                "--user-data-dir",
                folder.join("NativeMessagingHosts").join(MANIFEST_FILE),
            ),
            ("wrapper", l.wrapper()),
            ("program", l.installed_exe()),
            ("extension", l.extension_dir()),
        ] {
            assert!(
                removed.contains(&Removed::new(what, path.clone())),
                "{what} {}: {removed:?}",
                path.display()
            );
        }
    }

    #[test]
    fn uninstalling_one_profile_folder_keeps_the_wrapper_another_uses() {
        let tmp = tempfile::tempdir().unwrap();
        let l = layout(tmp.path());
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        for folder in [&a, &b] {
            install(&l, &[Target::Folder(folder.clone())]).unwrap();
        }
        removed_paths(uninstall(&l, &[], std::slice::from_ref(&a)));
        assert!(l.wrapper().exists(), "b's manifest still names it");
        let removed = removed_paths(uninstall(&l, &[], std::slice::from_ref(&b)));
        assert!(removed.contains(&l.wrapper()), "{removed:?}");
        assert!(!folders_file(&l).exists());
    }

    #[test]
    fn a_plain_uninstall_removes_the_recorded_folders_manifests_too() {
        let tmp = tempfile::tempdir().unwrap();
        let l = layout(tmp.path());
        let folder = tmp.path().join("profile");
        install(&l, &[Target::Folder(folder.clone())]).unwrap();
        install(&l, &chosen(&l, &[BrowserChoice::Chrome])).unwrap();
        let removed = removed_paths(uninstall(&l, &[], &[]));
        let manifest = folder.join("NativeMessagingHosts").join(MANIFEST_FILE);
        assert!(removed.contains(&manifest), "{removed:?}");
        assert!(!manifest.exists());
        assert!(removed.contains(&l.wrapper()), "{removed:?}");
        assert!(
            !l.wrapper_dir.exists(),
            "nothing of tabwire's is left: {:?}",
            fs::read_dir(&l.wrapper_dir).map(|d| d.flatten().map(|e| e.path()).collect::<Vec<_>>())
        );
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
