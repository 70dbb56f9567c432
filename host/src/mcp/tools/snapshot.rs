//! Debugging: the accessibility snapshot, where element uids come from.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::mcp::context::ToolContext;
use crate::mcp::response::{Response, SnapshotRequest};
use crate::mcp::tool::{Category, Tool, ToolSpec};
use crate::mcp::ToolError;

/// Arguments of `take_snapshot`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TakeSnapshotParams {
    /// Include every node of the accessibility tree, not only the interesting ones.
    #[serde(default)]
    verbose: bool,
    /// Save the snapshot to this file instead of returning it (for large pages).
    file_path: Option<PathBuf>,
    /// Only this element and what is under it (a uid from an earlier snapshot).
    uid: Option<String>,
    /// At most about this many characters of tree: runs of similar siblings are
    /// folded into one line naming their parent's uid (see unfold), and only if that
    /// is not enough the tree is cut, with a line saying what is missing.
    #[schemars(range(min = 1))]
    max_chars: Option<usize>,
    /// uids whose children are never folded (from a folded line's unfold=[…]).
    #[serde(default)]
    unfold: Vec<String>,
    /// Only the elements on screen (and the elements that contain them).
    #[serde(default)]
    viewport: bool,
}

/// `take_snapshot`
pub struct TakeSnapshot;

impl Tool for TakeSnapshot {
    type Params = TakeSnapshotParams;
    const SPEC: ToolSpec = ToolSpec {
        name: "take_snapshot",
        description: "Takes a text snapshot of the selected page's accessibility tree (iframes \
            included): one element a line with its role, name, value and state, each with a uid. \
            Other tools take these uids to act on elements; a uid stays valid while the page's \
            document lives. Prefer it to screenshots for reading a page. On big pages, ask for \
            less: a subtree (uid), what is on screen (viewport), or a budget (maxChars).",
        category: Category::Debugging,
        read_only: true,
        page_scoped: true,
        blocked_by_dialog: true,
    };

    async fn run(
        &self,
        _ctx: &ToolContext,
        params: TakeSnapshotParams,
        response: &mut Response,
    ) -> Result<(), ToolError> {
        response.include_snapshot(SnapshotRequest {
            verbose: params.verbose,
            file_path: params.file_path,
            uid: params.uid,
            max_chars: params.max_chars,
            unfold: params.unfold,
            viewport: params.viewport,
            changes: false,
        });
        Ok(())
    }
}
