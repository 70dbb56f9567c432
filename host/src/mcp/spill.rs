//! Large data by reference: output too big for the agent's context goes to a file.
//!
//! One budget per session, the client's ([`super::budget`]), decides for every tool and
//! every kind of output (a script or tool result, a page's tool list, a request body)
//! whether it is shown inline (a snapshot is folded to fit instead). What does not fit
//! is written to a fresh file in a folder private to the user, and the
//! agent gets the path together with a [`preview`]: the beginning and, for JSON, its
//! shape, so it can often go on without reading the file.
//!
//! These files hold the user's logged-in pages. They are created under unguessable
//! names, exclusively (never through a planted file or symlink), mode 0600, in a folder
//! of this session's own ([`OwnedDir`], 0700) inside the user's results folder (0700,
//! checked to be theirs). On Windows the results folder is under `%LOCALAPPDATA%`,
//! whose access list is the user's own and which has no modes ([`crate::platform`]). The session's folder goes when the session ends
//! ([`end_session`]); one a killed session left behind goes when the next one starts
//! ([`remove_leftovers`]). Paths the agent names itself are written as asked.

use std::fmt::Write as _;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::output::page_text;
use super::ToolError;
use crate::owned::{self, OwnedDir};
use crate::platform;

/// How this session's folder for spilled results is named in the results folder.
const SESSION_PREFIX: &str = "session-";

/// This session's folder for spilled results, made when it first spills.
static SESSION: std::sync::Mutex<Option<OwnedDir>> = std::sync::Mutex::new(None);

/// How many characters of a spilled output the preview shows.
pub const PREVIEW_CHARS: usize = 1_500;

/// Writes `text` to `path`, creating parent folders, with an error that says what to do.
pub fn write_file(path: &Path, text: &str) -> Result<(), ToolError> {
    write_bytes(path, text.as_bytes())
}

/// The error for a file that cannot be written.
pub fn cannot_write(path: &Path, e: &std::io::Error) -> ToolError {
    ToolError::new(format!(
        "Could not write {}: {e}. Pass a path in a folder you can write to.",
        path.display()
    ))
}

/// Writes bytes to `path` (a path the agent chose), creating parent folders.
pub fn write_bytes(path: &Path, bytes: &[u8]) -> Result<(), ToolError> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent).map_err(|e| cannot_write(path, &e))?;
    }
    fs::write(path, bytes).map_err(|e| cannot_write(path, &e))
}

/// Writes bytes to a fresh private file named after `what`, returning its path.
pub fn to_private_file(what: &str, extension: &str, bytes: &[u8]) -> Result<PathBuf, ToolError> {
    let dir = session_dir().map_err(|e| {
        ToolError::new(format!(
            "Could not make a private folder for large results: {e}. \
             Set XDG_RUNTIME_DIR or HOME (LOCALAPPDATA on Windows) to a folder you own."
        ))
    })?;
    new_private_file(&dir, what, extension, bytes).map_err(|e| cannot_save(&dir, bytes.len(), &e))
}

/// The error for a result tabwire could not save in its own folder: nothing the
/// agent passed is at fault, so it names what to free or set instead.
fn cannot_save(dir: &Path, len: usize, e: &std::io::Error) -> ToolError {
    let why = if e.kind() == std::io::ErrorKind::StorageFull {
        "the drive is full"
    } else {
        "the folder could not be written"
    };
    ToolError::new(format!(
        "The result ({len} bytes) was too long to show here, and tabwire could not save it \
         in its results folder {}: {e} ({why}). Free space there (or set XDG_RUNTIME_DIR, \
         LOCALAPPDATA on Windows, to another folder you own), or ask for less: a smaller \
         part of the page, a filter, or a page of the list.",
        dir.display()
    ))
}

/// Creates a file that did not exist before, under a random name, mode 0600.
fn new_private_file(
    dir: &Path,
    what: &str,
    extension: &str,
    bytes: &[u8],
) -> std::io::Result<PathBuf> {
    let mut last = std::io::Error::new(std::io::ErrorKind::AlreadyExists, "no free name");
    for _ in 0..8 {
        let path = dir.join(format!("{what}-{}.{extension}", owned::random_name()?));
        match write_new(&path, bytes) {
            Ok(()) => return Ok(path),
            // Taken (by chance, or planted): another name.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = e,
            Err(e) => return Err(e),
        }
    }
    Err(last)
}

/// Writes `bytes` to `path`, a file that must not exist yet (as anything, symlinks
/// included), mode 0600.
fn write_new(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = platform::new_private_file().open(path)?;
    file.write_all(bytes)
}

/// This session's folder in [`results_dir`], made on first use (and again if it was
/// removed meanwhile).
fn session_dir() -> std::io::Result<PathBuf> {
    let results = results_dir()?;
    let mut session = SESSION
        .lock()
        .map_err(|_| std::io::Error::other("the session folder's lock is poisoned"))?;
    if let Some(dir) = session.as_ref() {
        let there = fs::symlink_metadata(dir.path()).is_ok_and(|m| m.is_dir());
        if there && dir.path().starts_with(&results) {
            return Ok(dir.path().to_path_buf());
        }
    }
    let dir = OwnedDir::create(&results, SESSION_PREFIX)?;
    let path = dir.path().to_path_buf();
    *session = Some(dir);
    Ok(path)
}

/// Removes this session's folder of spilled results, and everything in it. Called when
/// the session ends.
pub fn end_session() {
    if let Ok(mut session) = SESSION.lock() {
        session.take();
    }
}

/// Removes the folders of spilled results that sessions no longer running left
/// behind (they were killed). Called when a session starts.
pub fn remove_leftovers() {
    for dir in candidate_dirs() {
        if fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) && check_private(&dir).is_ok() {
            owned::remove_dead(&dir, SESSION_PREFIX);
        }
    }
}

/// Where the results folder may be, in order: under `$XDG_RUNTIME_DIR`, else under
/// the user's cache folder (`%LOCALAPPDATA%` on Windows).
fn candidate_dirs() -> Vec<PathBuf> {
    let set = |v: Option<std::ffi::OsString>| v.filter(|v| !v.is_empty()).map(PathBuf::from);
    [set(std::env::var_os("XDG_RUNTIME_DIR")), dirs::cache_dir()]
        .into_iter()
        .flatten()
        .map(|base| base.join("tabwire").join("results"))
        .collect()
}

/// The user's private folder for spilled results: `$XDG_RUNTIME_DIR/tabwire/results`,
/// else (unset or unusable) `<cache dir>/tabwire/results`, made 0700 and checked to be
/// the user's own, as its parent is. Results older than [`KEEP_FOR`] are removed from
/// it the first time a session spills.
fn results_dir() -> std::io::Result<PathBuf> {
    first_usable(candidate_dirs())
}

/// The first of `candidates` that is, or can be made, a private results folder.
fn first_usable(candidates: Vec<PathBuf>) -> std::io::Result<PathBuf> {
    let mut last = std::io::Error::new(std::io::ErrorKind::NotFound, "no home folder");
    for dir in candidates {
        match make_results_dir(&dir) {
            Ok(()) => {
                static PRUNED: std::sync::Once = std::sync::Once::new();
                PRUNED.call_once(|| prune(&dir, KEEP_FOR));
                return Ok(dir);
            }
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// Makes `<base>/tabwire/results` one level at a time, each level checked to be a
/// private folder of the user's (not a link, not another user's) before anything is
/// made inside it: a folder another user prepared, or a link to one, is refused
/// before tabwire writes into it. The base (`$XDG_RUNTIME_DIR`, the cache folder) is
/// the user's own and is made if missing.
fn make_results_dir(dir: &Path) -> std::io::Result<()> {
    let parent = dir
        .parent()
        .ok_or_else(|| std::io::Error::other("the results folder has no parent"))?;
    if let Some(base) = parent.parent() {
        fs::create_dir_all(base)?;
    }
    for level in [parent, dir] {
        match platform::private_dir().create(level) {
            Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(e),
            _ => {}
        }
        check_private(level)?;
    }
    Ok(())
}

/// How long spilled results are kept.
const KEEP_FOR: std::time::Duration = std::time::Duration::from_secs(24 * 60 * 60);

/// Removes the regular files in `dir` last changed longer ago than `age`.
fn prune(dir: &Path, age: std::time::Duration) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let old = entry.metadata().ok().filter(|m| m.is_file()).and_then(|m| {
            let modified = m.modified().ok()?;
            Some(modified.elapsed().ok()? > age)
        });
        if old == Some(true) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Refuses a folder that is a symlink, not ours, or open to others.
fn check_private(dir: &Path) -> std::io::Result<()> {
    let meta = fs::symlink_metadata(dir)?;
    let refuse = |why: &str| {
        Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            format!("{} {why}", dir.display()),
        ))
    };
    if !meta.is_dir() {
        return refuse("is not a folder");
    }
    if !platform::is_mine(&meta) {
        return refuse("belongs to another user");
    }
    platform::make_private(dir, &meta)
}

/// What the agent reads about a spilled output: its size, its shape when it is JSON,
/// and its beginning (for `structuredContent`; the text shows a [`Preview`]).
pub fn preview(text: &str, json: Option<&Value>) -> String {
    let (about, begins) = preview_parts(text, json);
    format!("{about}\n{begins}")
}

/// A [`preview`] as a reply's text shows it, and as `structuredContent` has it.
#[derive(Debug, Clone)]
pub struct Preview {
    /// The sentence about the output, ending "It begins:".
    pub about: String,
    /// Its beginning as the lines of a fenced block: the output is the page's, and may
    /// hold anything ([`page_text::fenced`]).
    pub begins: Vec<String>,
    /// [`preview`], for `structuredContent`.
    pub data: String,
}

impl Preview {
    /// The preview of `text` (and of its shape, when it is the JSON `json`).
    pub fn of(text: &str, json: Option<&Value>) -> Preview {
        let (about, begins) = preview_parts(text, json);
        Preview {
            data: format!("{about}\n{begins}"),
            begins: page_text::fenced("text", &begins),
            about,
        }
    }
}

/// The sentence of a [`preview`], and the beginning it shows.
fn preview_parts(text: &str, json: Option<&Value>) -> (String, String) {
    let mut about = String::new();
    let lines = text.lines().count();
    let _ = write!(about, "{} characters, {lines} lines", text.chars().count());
    if let Some(value) = json {
        let _ = write!(about, "; shape: {}", shape(value));
    }
    about.push_str(". It begins:");
    let mut begins: String = text.chars().take(PREVIEW_CHARS).collect();
    if begins.len() < text.len() {
        begins.push_str("\n…");
    }
    (about, begins)
}

/// A JSON value's outline: the top level's keys with what each holds, array lengths.
pub fn shape(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let parts: Vec<String> = map
                .iter()
                .take(40)
                .map(|(key, v)| format!("{key}: {}", kind(v)))
                .collect();
            let more = if map.len() > 40 {
                format!(", … {} more keys", map.len() - 40)
            } else {
                String::new()
            };
            let keys = if map.len() == 1 { "key" } else { "keys" };
            format!(
                "object with {} {keys} {{{}{more}}}",
                map.len(),
                parts.join(", ")
            )
        }
        other => kind(other),
    }
}

/// One value's kind, with its size for arrays, objects and strings.
fn kind(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(_) => "boolean".into(),
        Value::Number(_) => "number".into(),
        Value::String(s) => format!("string({})", s.chars().count()),
        Value::Array(items) => match items.first() {
            Some(first) if items.iter().all(|i| same_kind(i, first)) => {
                format!("array({}) of {}", items.len(), bare_kind(first))
            }
            Some(_) => format!("array({}) of mixed values", items.len()),
            None => "array(0)".into(),
        },
        Value::Object(map) if map.len() == 1 => "object(1 key)".into(),
        Value::Object(map) => format!("object({} keys)", map.len()),
    }
}

fn bare_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn same_kind(a: &Value, b: &Value) -> bool {
    bare_kind(a) == bare_kind(b)
}

/// Decodes standard base64 (with or without padding); `None` if it is not base64.
pub fn base64_decode(text: &str) -> Option<Vec<u8>> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD
        .decode(text.trim())
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn shape_names_top_level_keys_and_array_lengths() {
        let value = json!({"events": [{"a": 1}, {"a": 2}], "config": {"x": 1}, "v": "1.2"});
        assert_eq!(
            shape(&value),
            "object with 3 keys {events: array(2) of object, config: object(1 key), v: string(3)}"
        );
        assert_eq!(shape(&json!([1, "a"])), "array(2) of mixed values");
    }

    #[test]
    fn preview_shows_size_shape_and_beginning() {
        let value = json!({"list": (0..5000).collect::<Vec<_>>()});
        let text = serde_json::to_string_pretty(&value).unwrap();
        let p = preview(&text, Some(&value));
        assert!(
            p.contains("shape: object with 1 key {list: array(5000) of number}"),
            "{p}"
        );
        assert!(p.contains("It begins:\n{\n  \"list\": [\n    0,"), "{p}");
        assert!(p.ends_with('…'), "{p}");
        assert!(p.len() < PREVIEW_CHARS + 200);
    }

    #[cfg(unix)]
    #[test]
    fn private_files_are_new_unguessable_and_owner_only() {
        use std::os::unix::fs::{DirBuilderExt, MetadataExt};
        let runtime = tempfile::tempdir().unwrap();
        // The folder is per process environment; tests set it for themselves only here.
        let dir = runtime.path().join("tabwire").join("results");
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o755)
            .create(&dir)
            .unwrap();
        check_private(&dir).unwrap();
        let mode = fs::metadata(&dir).unwrap().mode() & 0o777;
        assert_eq!(mode, 0o700, "an open folder is closed");
        let first = new_private_file(&dir, "result", "json", b"{}").unwrap();
        let second = new_private_file(&dir, "result", "json", b"{}").unwrap();
        assert_ne!(first, second);
        let name = first.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with("result-") && name.len() >= "result-.json".len() + 10);
        let mode = fs::metadata(&first).unwrap().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }

    #[test]
    fn old_results_are_pruned_and_new_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let old = new_private_file(dir.path(), "result", "json", b"{}").unwrap();
        let handle = fs::File::options().write(true).open(&old).unwrap();
        let two_days = std::time::Duration::from_secs(2 * 24 * 60 * 60);
        handle
            .set_modified(std::time::SystemTime::now() - two_days)
            .unwrap();
        // An open file cannot go on Windows.
        drop(handle);
        let new = new_private_file(dir.path(), "result", "json", b"{}").unwrap();
        prune(dir.path(), KEEP_FOR);
        assert!(!old.exists());
        assert!(new.exists());
    }

    #[test]
    fn a_pre_created_file_is_never_written_into() {
        let dir = tempfile::tempdir().unwrap();
        let planted = dir.path().join("result-planted.json");
        fs::write(&planted, b"the planter's").unwrap();
        platform::set_mode(&planted, 0o666).unwrap();
        let error = write_new(&planted, b"the user's page").unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read(&planted).unwrap(), b"the planter's");
    }

    #[cfg(unix)]
    #[test]
    fn a_planted_symlink_is_never_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        fs::write(&victim, b"precious").unwrap();
        let link = dir.path().join("result-link.json");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        let error = write_new(&link, b"overwritten").unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read(&victim).unwrap(), b"precious");
        // A dangling one is not followed to create its target either.
        let dangling = dir.path().join("result-dangling.json");
        std::os::unix::fs::symlink(dir.path().join("made"), &dangling).unwrap();
        assert!(write_new(&dangling, b"x").is_err());
        assert!(!dir.path().join("made").exists());
    }

    #[cfg(unix)]
    #[test]
    fn a_symlinked_results_folder_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let target = root.path().join("elsewhere");
        fs::create_dir(&target).unwrap();
        let link = root.path().join("results");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert!(check_private(&link).is_err());
    }

    #[test]
    fn a_result_that_cannot_be_saved_names_no_argument_the_agent_never_passed() {
        let full = std::io::Error::from(std::io::ErrorKind::StorageFull);
        let error = cannot_save(
            Path::new("/run/user/1/tabwire/results/session-x"),
            2_000_000,
            &full,
        );
        let text = error.to_string();
        assert!(!text.contains("Pass a path"), "{text}");
        assert!(
            text.contains("2000000 bytes") && text.contains("Free space"),
            "{text}"
        );
        assert!(text.contains("the drive is full"), "{text}");
    }

    #[cfg(unix)]
    #[test]
    fn nothing_is_made_through_a_linked_tabwire_folder() {
        let root = tempfile::tempdir().unwrap();
        let base = root.path().join("runtime");
        fs::create_dir(&base).unwrap();
        // Someone prepared `tabwire` as a link to a folder of their choice.
        let elsewhere = root.path().join("elsewhere");
        fs::create_dir(&elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, base.join("tabwire")).unwrap();
        let fallback = root.path().join("cache").join("tabwire").join("results");
        let chosen = first_usable(vec![base.join("tabwire").join("results"), fallback.clone()]);
        assert_eq!(chosen.unwrap(), fallback);
        assert!(
            fs::read_dir(&elsewhere).unwrap().next().is_none(),
            "nothing was made in the link's target"
        );
        use std::os::unix::fs::PermissionsExt;
        for level in [fallback.parent().unwrap(), fallback.as_path()] {
            let mode = fs::metadata(level).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o700, "{}", level.display());
        }
    }
}
