//! One frame's walk, as the walker answered it ([`crate::engine::snapshot`] reads it;
//! the document keeps the last one of each frame, to answer "unchanged" walks).

use tabwire_shared::SnapshotNode;

/// One frame's walk.
#[derive(Debug, Clone, PartialEq)]
pub struct Walk {
    /// The walker's generation when it walked: what a later walk asks about.
    pub gen: u64,
    /// The document's URL when it was walked.
    pub url: String,
    /// The nodes kept, depth-first, the root first.
    pub nodes: Vec<SnapshotNode>,
    /// Custom-element hosts whose role, name or states Chrome may know better
    /// (ElementInternals): asked about at every snapshot.
    pub ask: Vec<String>,
    /// Hosts of closed shadow roots the walker has not been handed yet.
    pub closed: Vec<String>,
}
