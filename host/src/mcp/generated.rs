//! Parts of the docs written from the code (README.md's tool table, docs/results.md's
//! table of output sections): each sits between two marker comments, and a test keeps
//! it current, or, run by a script with `TABWIRE_WRITE_DOCS=1`, writes it.

/// `doc` with what stands between `start` and `end` replaced by `content`; `None`
/// when `doc` lacks a marker.
pub fn between(doc: &str, start: &str, end: &str, content: &str) -> Option<String> {
    let (before, rest) = doc.split_once(start)?;
    let (_, after) = rest.split_once(end)?;
    Some(format!("{before}{start}\n\n{content}\n{end}{after}"))
}

/// For a test: the file at `path` must already read `fresh`; with `TABWIRE_WRITE_DOCS`
/// set it is written instead. A stale file fails, saying `stale`.
#[cfg(test)]
pub fn keep_current(path: &str, fresh: &str, stale: &str) {
    let doc = std::fs::read_to_string(path).unwrap_or_default();
    if fresh == doc {
        return;
    }
    if std::env::var_os("TABWIRE_WRITE_DOCS").is_some() {
        std::fs::write(path, fresh).unwrap();
        return;
    }
    panic!("{stale}");
}
