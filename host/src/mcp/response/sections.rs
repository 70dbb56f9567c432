//! [`Sections`]: a reply's text and its `structuredContent` written side by side, one
//! section at a time, each from the same data.

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Map, Value};
use tabwire_shared::{DialogInfo, Emulation, TabId, TabInfo};

use super::gather::GatheredSnapshot;
use super::{Image, Section, SnapshotRequest, ToolOutput, INLINE_IMAGE_LIMIT};
use crate::mcp::output::page_text;
use crate::mcp::output::snapshot::body as snapshot;
use crate::mcp::output::snapshot::text::LEGEND;
use crate::mcp::output::snapshot::Keys as SnapshotKeys;
use crate::mcp::output::SavedFile;
use crate::mcp::output::{self, dialog, emulation, image, message, pages, pointed, results};
use crate::mcp::{spill, ToolError};

/// Text and structured output written side by side.
pub(super) struct Sections {
    pub(super) text: String,
    pub(super) data: Map<String, Value>,
    /// The agent asked for `structuredContent`.
    structured: bool,
    /// How many characters the reply may hold ([`crate::mcp::budget`]).
    limit: usize,
    /// A section failed to write (see [`Sections::late_error`]).
    failed_late: bool,
}

/// The least room a section gets, however much the reply already holds: enough for a
/// saved file's path and preview.
const LEAST_ROOM: usize = 2_000;

impl Sections {
    pub(super) fn new(tool: &str, structured: bool, limit: usize) -> Self {
        Self {
            text: format!("# {tool} response\n"),
            data: Map::new(),
            structured,
            limit,
            failed_late: false,
        }
    }

    /// How many characters the next section may take: what the reply's budget leaves
    /// after the sections written so far (the first sections are the most important,
    /// so a client that keeps only a head still has them).
    pub(super) fn room(&self) -> usize {
        let written = if self.structured {
            self.text
                .chars()
                .count()
                .max(Value::Object(self.data.clone()).to_string().chars().count())
        } else {
            self.text.chars().count()
        };
        self.limit.saturating_sub(written).max(LEAST_ROOM)
    }

    /// Whether the text written so far already says `what`.
    pub(super) fn says(&self, what: &str) -> bool {
        self.text.contains(&*page_text::inline(what))
    }

    pub(super) fn heading(&mut self, title: &str) {
        self.text.push_str("## ");
        self.text.push_str(title);
        self.text.push('\n');
    }

    /// Writes one line. Whatever `line` holds (page text included), it stays one line:
    /// a line break in it is written escaped ([`page_text::inline`]).
    pub(super) fn line(&mut self, line: &str) {
        self.text.push_str(&page_text::inline(line));
        self.text.push('\n');
    }

    /// Writes `text` (a block of the page's, or of a result) in a fence it cannot close.
    pub(super) fn fenced(&mut self, info: &str, text: &str) {
        for line in page_text::fenced(info, text) {
            self.line(&line);
        }
    }

    pub(super) fn message(&mut self, lines: &[String]) {
        if lines.is_empty() {
            return;
        }
        for line in lines {
            self.line(line);
        }
        self.data.extend(output::entries(&message::Keys {
            message: Some(lines.join("\n")),
            ..Default::default()
        }));
    }

    pub(super) fn error(&mut self, error: &ToolError) {
        self.heading("Error");
        // tabwire's errors are one line; what follows a line break is the page's (an
        // exception's stack, a thrown message's own lines), and keeps its lines in a
        // fence.
        match error.message.split_once('\n') {
            Some((first, rest)) => {
                self.line(first);
                self.fenced("text", rest);
            }
            None => self.line(&error.message),
        }
        self.data.extend(output::entries(&message::Keys {
            error_message: Some(error.message.clone()),
            ..Default::default()
        }));
    }

    pub(super) fn output(&mut self, output: &ToolOutput, key: &str) {
        self.heading(output.title);
        let pretty = page_text::json(&output.value);
        let room = self.room();
        if pretty.chars().count() + 12 <= room {
            self.fenced("json", &pretty);
            self.data.extend(results::value(key, &output.value));
            return;
        }
        match spill::to_private_file(key, "json", pretty.as_bytes()) {
            Ok(path) => {
                let preview = spill::Preview::of(&pretty, Some(&output.value));
                self.line(&results::saved_line(room, &path, &preview.about));
                for line in &preview.begins {
                    self.line(line);
                }
                self.data.extend(results::saved(
                    key,
                    SavedFile {
                        file_path: path,
                        preview: preview.data,
                    },
                ));
            }
            Err(e) => self.late_error(&e),
        }
    }

    /// A failure while writing a section (a file that could not be saved): said where
    /// it happened, added to `errorMessage`, and the result marked as an error.
    pub(super) fn late_error(&mut self, error: &ToolError) {
        self.line(&error.message);
        let message = match self.data.get("errorMessage").and_then(Value::as_str) {
            Some(earlier) => format!("{earlier}\n{}", error.message),
            None => error.message.clone(),
        };
        self.data.extend(output::entries(&message::Keys {
            error_message: Some(message),
            ..Default::default()
        }));
        self.failed_late = true;
    }

    pub(super) fn section(&mut self, section: &Section) {
        self.heading(section.title);
        for line in &section.lines {
            self.line(line);
        }
        self.data.extend(section.data.clone());
    }

    pub(super) fn emulation(&mut self, page: TabId, emulation: &Emulation) {
        self.section(&emulation::section(page, emulation));
    }

    /// Returns the image content block to add, if the image goes inline.
    ///
    /// With structured output on, an inline image is saved to a private file as well:
    /// some clients drop image content when `structuredContent` is present, and a
    /// path the agent can open beats a byte count.
    pub(super) fn image(&mut self, image: &Image) -> Result<Option<ContentBlock>, ToolError> {
        let bytes = spill::base64_decode(&image.data).unwrap_or_default();
        let extension = image.mime_type.rsplit('/').next().unwrap_or("img");
        let inline = image.file_path.is_none() && bytes.len() <= INLINE_IMAGE_LIMIT;
        let saved = match &image.file_path {
            Some(path) => {
                spill::write_bytes(path, &bytes)?;
                Some(path.clone())
            }
            None if !inline => Some(spill::to_private_file("screenshot", extension, &bytes)?),
            // The copy for clients that drop images: the image goes inline even if the
            // copy cannot be made.
            None if self.structured => spill::to_private_file("screenshot", extension, &bytes).ok(),
            None => None,
        };
        let shown = image::Image {
            mime_type: image.mime_type.clone(),
            bytes: bytes.len(),
            attached: inline,
            file_path: saved,
        };
        self.line(&shown.line());
        self.data
            .extend(output::entries(&image::Keys { image: Some(shown) }));
        Ok(inline.then(|| ContentBlock::image(image.data.clone(), image.mime_type.clone())))
    }

    pub(super) fn dialog(&mut self, page: TabId, dialog: &DialogInfo) {
        self.section(&dialog::section(page, dialog));
    }

    pub(super) fn pointed(&mut self, pointed: &crate::mcp::context::Pointed) {
        self.section(&pointed::section(pointed));
    }

    pub(super) fn pages(&mut self, pages: &[TabInfo], selected: Option<TabId>) {
        self.section(&pages::section(pages, selected));
    }

    /// Writes the snapshot section; whether the agent now holds the page's whole tree
    /// (see [`snapshot::Body::whole`]).
    pub(super) fn snapshot(
        &mut self,
        gathered: &GatheredSnapshot,
        request: &SnapshotRequest,
    ) -> Result<bool, ToolError> {
        let page = gathered.page;
        let body = snapshot::body(gathered, request, self.structured, None);
        self.heading("Page snapshot");
        let nodes = body.nodes;
        let number = gathered.number;
        if let Some(path) = &request.view.file_path {
            self.data.extend(output::entries(&body.about));
            spill::write_file(path, &body.text)?;
            // What the file holds (a subtree, the viewport, folded) is said here too,
            // for clients that show only the text.
            let plain = format!("Snapshot {number} of page {page}.");
            let said = |line: &&String| **line != plain && *line != LEGEND;
            for line in body.header.iter().filter(said) {
                self.line(line);
            }
            self.line(&format!(
                "Snapshot {number} of page {page} ({nodes} nodes) saved to {}.",
                path.display()
            ));
            self.data.extend(output::entries(&SnapshotKeys {
                snapshot_file_path: Some(path.clone()),
                ..Default::default()
            }));
            return Ok(body.whole);
        }
        let room = self.room();
        if self.snapshot_chars(&body) <= room {
            let whole = body.whole;
            self.place_snapshot(body, None);
            return Ok(whole);
        }
        // Too long for this client's replies: the tree folded to fit (runs of similar
        // rows, then cut, each said where), and every node in a file.
        let unfolded = snapshot::unfolded_text(gathered);
        let path = spill::to_private_file("snapshot", "txt", unfolded.as_bytes())?;
        let saved = format!(
            "Every node ({} lines, {} characters) was saved to {}. Read it for what is \
             folded away, or take a part with uid.",
            unfolded.lines().count(),
            unfolded.chars().count(),
            path.display()
        );
        let asked = request.view.max_chars.unwrap_or(usize::MAX);
        let mut fit = room.saturating_sub(saved.len() + 800).min(asked).max(500);
        let mut folded = snapshot::body(gathered, request, self.structured, Some(fit));
        // The JSON tree of structured output is longer than its text: fold further
        // until the form a client shows fits.
        for _ in 0..4 {
            let chars = self.snapshot_chars(&folded) + saved.len();
            if chars <= room || fit <= 500 {
                break;
            }
            fit = (fit * room / chars * 9 / 10).max(500);
            folded = snapshot::body(gathered, request, self.structured, Some(fit));
        }
        self.data.extend(output::entries(&SnapshotKeys {
            snapshot_file_path: Some(path),
            ..Default::default()
        }));
        let whole = folded.whole;
        self.place_snapshot(folded, Some(&saved));
        Ok(whole)
    }

    /// How many characters `body` takes in the form a client shows (with structured
    /// output, its JSON tree may be the longer), its header included.
    fn snapshot_chars(&self, body: &snapshot::Body) -> usize {
        let header: usize = body.header.iter().map(|l| l.chars().count() + 1).sum();
        let tree = if self.structured {
            body.tree.json_chars()
        } else {
            0
        };
        header + tree.max(body.text.chars().count())
    }

    /// Writes `body` inline: its header, `note` (where the whole tree went), the tree.
    fn place_snapshot(&mut self, body: snapshot::Body, note: Option<&str>) {
        self.data.extend(output::entries(&body.about));
        for line in &body.header {
            self.line(line);
        }
        if let Some(note) = note {
            self.line(note);
        }
        self.text.push_str(&body.text);
        self.data.extend(body.tree.entries());
    }

    pub(super) fn finish(self, is_error: bool, image: Option<ContentBlock>) -> CallToolResult {
        let mut content = vec![ContentBlock::text(self.text)];
        content.extend(image);
        let mut result = if is_error || self.failed_late {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        };
        if self.structured {
            result.structured_content = Some(Value::Object(self.data));
        }
        result
    }
}
