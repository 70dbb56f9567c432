//! The reply written from what the handler marked and what was gathered: a function
//! of its inputs, which talks to nobody (only sections too long to show are written
//! to private files, see [`crate::mcp::spill`]).

use rmcp::model::CallToolResult;

use super::sections::Sections;
use super::{Gathered, Response, ThirdParty};
use crate::mcp::output::third_party::SECTION_TITLE;
use crate::mcp::ToolError;

/// A reply, and what it gave the agent that the session must remember.
#[derive(Debug)]
pub struct Written {
    /// The reply.
    pub result: CallToolResult,
    /// The agent now holds the whole tree of the gathered snapshot (every node, or the
    /// changes to the whole one it had): later changes can be said against it.
    pub whole_snapshot: bool,
}

/// The reply to `tool`: the handler's `response`, its `error` if it failed, and what
/// was `gathered`; `structuredContent` too when the agent asked for it (`structured`);
/// at most about `limit` characters (the client's budget, [`crate::mcp::budget`]).
pub fn write(
    tool: &str,
    response: &Response,
    error: Option<&ToolError>,
    gathered: &Gathered,
    structured: bool,
    limit: usize,
) -> Written {
    let mut whole_snapshot = false;
    let mut out = Sections::new(tool, structured, limit);

    out.message(&response.lines);
    if let Some(error) = error {
        out.error(error);
    }
    for (i, output) in response.outputs.iter().enumerate() {
        let key = if i == 0 {
            "result".to_string()
        } else {
            format!("result{i}")
        };
        out.output(output, &key);
    }
    for section in &response.sections {
        out.section(section);
    }
    if let Some(page) = gathered.page {
        if let Some(dialog) = &gathered.dialog {
            out.dialog(page, dialog);
        }
        if let Some(emulation) = &gathered.emulation {
            out.emulation(page, emulation);
        }
    }
    if let Some(pointed) = &gathered.pointed {
        out.pointed(pointed);
    }
    if let Some(pages) = &gathered.pages {
        out.pages(pages, gathered.selected);
    }
    if let Some((page, discovery)) = &gathered.third_party {
        // Listed with another tool's reply, a big tool set is shown by name only.
        let compact = matches!(response.third_party, ThirdParty::BestEffort);
        out.third_party_tools(*page, discovery, compact);
    }
    // A failure the response already states (no page is shared, say) is said once.
    if let Some(why) = gathered
        .third_party_failure
        .as_ref()
        .filter(|why| !out.says(why))
    {
        out.heading(SECTION_TITLE);
        out.third_party_note(&format!(
            "Could not look for third-party developer tools: {why}"
        ));
    }
    if let (Some(snapshot), Some(request)) = (&gathered.snapshot, &response.snapshot) {
        match out.snapshot(snapshot, request) {
            Ok(whole) => whole_snapshot = whole,
            Err(e) => out.late_error(&e),
        }
    }
    let mut image_block = None;
    if let Some(image) = &response.image {
        out.heading("Image");
        match out.image(image) {
            Ok(block) => image_block = block,
            Err(e) => out.late_error(&e),
        }
    }
    Written {
        result: out.finish(error.is_some(), image_block),
        whole_snapshot,
    }
}
