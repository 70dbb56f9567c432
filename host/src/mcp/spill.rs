//! Large data by reference: output too big for the agent's context goes to a file.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::ToolError;

/// Results longer than this many characters are written to a file instead of inline.
pub const INLINE_LIMIT: usize = 20_000;

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

/// A fresh file name in the temporary folder, named after `what`.
pub fn temp_path(what: &str, extension: &str) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let name = format!("tabwire-{what}-{}-{n}.{extension}", std::process::id());
    std::env::temp_dir().join(name)
}

/// Writes `text` to a fresh file in the temporary folder, named after `what`.
pub fn to_temp_file(what: &str, extension: &str, text: &str) -> Result<PathBuf, ToolError> {
    let path = temp_path(what, extension);
    write_file(&path, text)?;
    Ok(path)
}

/// Writes bytes to `path`, creating parent folders.
pub fn write_bytes(path: &Path, bytes: &[u8]) -> Result<(), ToolError> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| cannot_write(path, &e))?;
    }
    std::fs::write(path, bytes).map_err(|e| cannot_write(path, &e))
}

/// Decodes standard base64 (with or without padding); `None` if it is not base64.
pub fn base64_decode(text: &str) -> Option<Vec<u8>> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD
        .decode(text.trim())
        .ok()
}
