//! Responses: handlers state intent; one step gathers, one pure function writes.
//!
//! A handler sets markers on a [`Response`] (a line of text, "include the page list",
//! "include a snapshot", "here is the script's result"). [`render`] then fetches only
//! what was asked for ([`gather`]: the one step that talks to the browser and takes
//! page locks) into a plain [`Gathered`], and [`write`] turns the two into the reply,
//! with no I/O but the files long sections spill to. It writes the sections in one
//! fixed order: message, error, results, open dialog, emulation, pages, third-party
//! tools, snapshot, image. Each section writes its text and its `structuredContent`
//! entries in the same call ([`sections`], [`third_party`], the snapshot's
//! [`super::output::snapshot::body`]), so the two cannot
//! disagree: the structured form carries everything the text does (some clients show
//! the model only one of them). `structuredContent` is sent only when the agent started
//! tabwire with `--experimentalStructuredContent`. Large results are spilled to files
//! here, once for every tool, within one budget per session, the client's
//! ([`super::budget`]): each section gets what the sections before it left.

mod gather;
#[cfg(test)]
mod hostile_tests;
mod sections;
#[cfg(test)]
mod tests;
mod third_party;
mod write;

use std::path::PathBuf;
use std::sync::Arc;

use rmcp::model::CallToolResult;
use serde_json::{Map, Value};
use tabwire_shared::{Discovery, WalkOptions};

use super::context::ToolContext;
use super::snapshot::memory::Base;
use super::ToolError;

pub use super::output::emulation::describe_emulation;
pub use super::output::snapshot::body::VIEWPORT as VIEWPORT_NOTE;
pub use gather::{Gathered, GatheredSnapshot};
pub use third_party::COMPACT_ABOVE;
pub use write::Written;

/// How a snapshot is wanted, in the two parts that act in two places: what the walk in
/// the page takes in (sent as it is in [`TakeSnapshot`](tabwire_shared::TakeSnapshot)),
/// and what of the snapshot it brings back the agent is shown.
#[derive(Debug, Clone, Default)]
pub struct SnapshotRequest {
    /// What the page walks.
    pub walk: WalkOptions,
    /// What the agent is shown of it.
    pub view: SnapshotView,
}

/// What the agent is shown of a snapshot, cut here from the snapshot the extension
/// sent: the page walks the whole tree for these, since the changes since the last
/// whole snapshot can only be found from a whole one, and this program keeps it.
#[derive(Debug, Clone, Default)]
pub struct SnapshotView {
    /// Only the subtree of the node with this uid.
    pub uid: Option<String>,
    /// Fold runs of similar siblings (then cut, said where) to fit this many characters.
    pub max_chars: Option<usize>,
    /// Never fold the children of these uids.
    pub unfold: Vec<String>,
    /// Write it to this file and say only where it is.
    pub file_path: Option<PathBuf>,
    /// Answer with the changes since the last whole snapshot of the page when they
    /// are shorter (after an action), else with the whole tree.
    pub changes: bool,
}

impl SnapshotRequest {
    /// The changes since the last whole snapshot, or the whole tree.
    pub fn changes() -> Self {
        Self {
            view: SnapshotView {
                changes: true,
                ..SnapshotView::default()
            },
            ..Self::default()
        }
    }

    /// A view of the page's interesting nodes, as the default walk finds them.
    pub fn view(view: SnapshotView) -> Self {
        Self {
            view,
            ..Self::default()
        }
    }
}

/// A value a tool produced, and the element uids in it.
#[derive(Debug, Clone)]
pub struct ToolOutput {
    /// The section it goes under (`Script result`, `Tool result`).
    pub title: &'static str,
    /// The JSON value.
    pub value: Value,
}

/// A section a handler composed itself (a console list, a request's details).
#[derive(Debug, Clone)]
pub struct Section {
    /// The heading.
    pub title: &'static str,
    /// Its lines of text.
    pub lines: Vec<String>,
    /// Its `structuredContent` entries, made from the same data as `lines`.
    pub data: Map<String, Value>,
}

impl Section {
    /// `structuredContent` entries holding one `key`.
    pub fn entry(key: &str, value: Value) -> Map<String, Value> {
        let mut data = Map::new();
        data.insert(key.into(), value);
        data
    }
}

/// An image to return.
#[derive(Debug, Clone)]
pub struct Image {
    /// Base64 data.
    pub data: String,
    /// MIME type.
    pub mime_type: String,
    /// Where to save it instead of returning it inline.
    pub file_path: Option<PathBuf>,
}

/// Inline images larger than this (decoded) are saved to a temporary file instead.
pub const INLINE_IMAGE_LIMIT: usize = 2 * 1024 * 1024;

/// What a handler wants the agent to get back.
#[derive(Debug, Default)]
pub struct Response {
    lines: Vec<String>,
    include_pages: bool,
    outputs: Vec<ToolOutput>,
    sections: Vec<Section>,
    image: Option<Image>,
    snapshot: Option<SnapshotRequest>,
    third_party: ThirdParty,
}

/// Whether and how third-party tools are listed.
#[derive(Debug, Default)]
enum ThirdParty {
    #[default]
    No,
    /// Discover on the selected page while rendering; a failure is a note, not an error.
    BestEffort,
    /// Show this discovery (already made by the handler).
    Found(Arc<Discovery>),
}

impl Response {
    /// Adds a line of plain text to the response's message.
    pub fn line(&mut self, text: impl Into<String>) {
        self.lines.push(text.into());
    }

    /// Asks for the list of open pages to be included.
    pub fn include_pages(&mut self) {
        self.include_pages = true;
    }

    /// Adds a JSON value the tool produced, under `title`.
    pub fn add_output(&mut self, title: &'static str, value: Value) {
        self.outputs.push(ToolOutput { title, value });
    }

    /// Adds a section the handler composed.
    pub fn add_section(&mut self, section: Section) {
        self.sections.push(section);
    }

    /// Attaches an image (inline, or saved to a file when asked or when large).
    pub fn attach_image(&mut self, image: Image) {
        self.image = Some(image);
    }

    /// Asks for an accessibility snapshot of the page.
    pub fn include_snapshot(&mut self, request: SnapshotRequest) {
        self.snapshot = Some(request);
    }

    /// Asks for the selected page's third-party tools, when that category is on.
    pub fn include_third_party_tools(&mut self) {
        if matches!(self.third_party, ThirdParty::No) {
            self.third_party = ThirdParty::BestEffort;
        }
    }

    /// Shows a discovery the handler made itself.
    pub fn set_third_party_tools(&mut self, discovery: Arc<Discovery>) {
        self.third_party = ThirdParty::Found(discovery);
    }
}

/// Writes the agent's answer: what the handler asked for, and the error if it failed.
///
/// A failed handler still gets its page context rendered: the agent sees the error
/// *and* the state it has to deal with.
pub async fn render(
    tool: &str,
    response: Response,
    error: Option<ToolError>,
    ctx: &ToolContext,
) -> CallToolResult {
    let mut error = error;
    let gathered = gather::gather(&response, ctx, &mut error).await;
    let written = write::write(
        tool,
        &response,
        error.as_ref(),
        &gathered,
        ctx.settings().structured_content,
        ctx.result_chars(),
    );
    // Only once the reply is written is it known what the agent holds.
    if let (Some(snapshot), true) = (&gathered.snapshot, written.whole_snapshot) {
        ctx.snapshots().remember(
            snapshot.page,
            Base {
                number: snapshot.number,
                snapshot: snapshot.snapshot.clone(),
            },
        );
    }
    written.result
}
