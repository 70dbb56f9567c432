//! Debugging: the accessibility snapshot, where element uids come from.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::Deserialize;
use tabwire_shared::WalkOptions;

use crate::mcp::context::ToolContext;
use crate::mcp::response::{Response, SnapshotRequest, SnapshotView};
use crate::mcp::tool::{Category, ErasedTool, Registered, Tool, ToolSpec};
use crate::mcp::ToolError;

/// Arguments of `take_snapshot`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TakeSnapshotParams {
    /// Include every node of the accessibility tree, not only the interesting ones.
    #[serde(default)]
    verbose: bool,
    /// Save the snapshot to this file instead of returning it (for large pages).
    #[serde(default, deserialize_with = "super::absolute_path")]
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
    /// Only the elements in the viewport where the page is scrolled to (and the
    /// elements that contain them); for a page in the background, what it would show.
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
        response.include_snapshot(params.into());
        Ok(())
    }
}

/// The one place the tool's arguments part into what the page walks and what the agent
/// is shown of the walk (see docs/architecture.md, "A snapshot, and what a uid names").
impl From<TakeSnapshotParams> for SnapshotRequest {
    fn from(params: TakeSnapshotParams) -> Self {
        SnapshotRequest {
            walk: WalkOptions {
                verbose: params.verbose,
                viewport: params.viewport,
            },
            view: SnapshotView {
                uid: params.uid,
                max_chars: params.max_chars,
                unfold: params.unfold,
                file_path: params.file_path,
                changes: false,
            },
        }
    }
}

/// This group's tools, for the registry.
pub fn tools() -> Vec<Box<dyn ErasedTool>> {
    vec![Box::new(Registered::new(TakeSnapshot))]
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use futures_util::future::BoxFuture;
    use serde_json::json;
    use tabwire_shared::{Command, Reply, Snapshot, WireError};

    use super::*;
    use crate::mcp::context::{Browser, Session, Settings};
    use crate::mcp::output::snapshot::text::test_node as node;
    use crate::mcp::response::render;

    /// Answers each snapshot request with the next tree, and keeps the requests.
    #[derive(Default)]
    struct Pages {
        trees: Mutex<Vec<Snapshot>>,
        asked: Mutex<Vec<tabwire_shared::TakeSnapshot>>,
    }

    impl Browser for Pages {
        fn call(&self, command: Command) -> BoxFuture<'_, Result<Reply, WireError>> {
            let reply = match command {
                Command::TakeSnapshot(request) => {
                    self.asked.lock().unwrap().push(request);
                    let mut trees = self.trees.lock().unwrap();
                    let snapshot = if trees.len() > 1 {
                        trees.remove(0)
                    } else {
                        trees[0].clone()
                    };
                    Reply::new(&snapshot).unwrap()
                }
                other => panic!("unexpected {other:?}"),
            };
            Box::pin(async move { Ok(reply) })
        }
    }

    fn page(buttons: &[&str]) -> Snapshot {
        let mut nodes = vec![node("1_0", 0, "RootWebArea", "T")];
        for (i, name) in buttons.iter().enumerate() {
            nodes.push(node(&format!("1_{}", i + 1), 1, "button", name));
        }
        Snapshot {
            url: "http://127.0.0.1/".into(),
            title: "T".into(),
            nodes,
        }
    }

    fn context(trees: Vec<Snapshot>) -> (ToolContext, Arc<Pages>) {
        let pages = Arc::new(Pages {
            trees: Mutex::new(trees),
            ..Pages::default()
        });
        let ctx = ToolContext::new(
            pages.clone(),
            Arc::new(Session::default()),
            Arc::new(Settings {
                structured_content: true,
                ..Settings::default()
            }),
        )
        .on_page(Some(7));
        (ctx, pages)
    }

    async fn take(ctx: &ToolContext, args: serde_json::Value) -> rmcp::model::CallToolResult {
        let params: TakeSnapshotParams = serde_json::from_value(args).unwrap();
        let mut response = Response::default();
        let error = TakeSnapshot.run(ctx, params, &mut response).await.err();
        render("take_snapshot", response, error, ctx).await
    }

    fn text(result: &rmcp::model::CallToolResult) -> String {
        result.content[0].as_text().unwrap().text.clone()
    }

    #[test]
    fn the_arguments_part_into_what_the_page_walks_and_what_the_agent_is_shown() {
        let params: TakeSnapshotParams = serde_json::from_value(json!({
            "verbose": true, "viewport": true, "uid": "1_2", "maxChars": 300,
            "unfold": ["1_3"], "filePath": "/tmp/s.txt"
        }))
        .unwrap();
        let request = SnapshotRequest::from(params);
        assert_eq!(
            request.walk,
            WalkOptions {
                verbose: true,
                viewport: true
            }
        );
        let view = request.view;
        assert_eq!(view.uid.as_deref(), Some("1_2"));
        assert_eq!(
            (view.max_chars, view.unfold),
            (Some(300), vec!["1_3".into()])
        );
        // Read as an absolute path (on Windows, on the current drive).
        let file = std::path::absolute(PathBuf::from("/tmp/s.txt")).unwrap();
        assert_eq!(view.file_path, Some(file));
        assert!(!view.changes, "take_snapshot answers with the tree");
    }

    #[tokio::test]
    async fn viewport_goes_to_the_extension_and_is_said_in_the_reply() {
        let (ctx, pages) = context(vec![page(&["A"])]);
        let result = take(&ctx, json!({"viewport": true})).await;
        let asked = pages.asked.lock().unwrap().clone();
        assert_eq!(asked.len(), 1);
        assert!(asked[0].walk.viewport && !asked[0].walk.verbose && asked[0].tab_id == 7);
        assert!(
            text(&result).contains("only what is in the viewport"),
            "{}",
            text(&result)
        );
        let data = result.structured_content.unwrap();
        assert_eq!(
            data["snapshotViewport"],
            crate::mcp::response::VIEWPORT_NOTE
        );
        take(&ctx, json!({})).await;
        assert!(!pages.asked.lock().unwrap()[1].walk.viewport);
    }

    #[tokio::test]
    async fn an_unknown_uid_is_an_error_that_says_to_take_a_fresh_snapshot() {
        let (ctx, _) = context(vec![page(&["A"])]);
        let result = take(&ctx, json!({"uid": "9_9"})).await;
        assert_eq!(result.is_error, Some(true));
        let said = text(&result);
        assert!(
            said.contains("9_9") && said.contains("take_snapshot without uid"),
            "{said}"
        );
        assert!(!said.contains("## Page snapshot"), "{said}");
    }

    #[tokio::test]
    async fn after_a_whole_snapshot_an_action_gets_the_changes_and_a_part_is_no_base() {
        let many: Vec<String> = (0..40).map(|i| format!("Button {i}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let mut changed = many.clone();
        changed[3] = "Renamed";
        let (ctx, _) = context(vec![page(&many), page(&many), page(&changed)]);
        let first = take(&ctx, json!({})).await;
        assert!(
            text(&first).contains("Snapshot 1 of page 7."),
            "{}",
            text(&first)
        );
        // A subtree is not what later changes are said against.
        let part = take(&ctx, json!({"uid": "1_1"})).await;
        assert!(text(&part).contains("Snapshot 2 of page 7: the subtree of 1_1."));
        let mut response = Response::default();
        response.include_snapshot(SnapshotRequest::changes());
        let after = render("click", response, None, &ctx).await;
        let said = text(&after);
        assert!(
            said.contains("Snapshot 3 of page 7: only the changes since snapshot 1"),
            "{said}"
        );
        assert!(said.contains("1_4 button \"Renamed\""), "{said}");
        assert!(!said.contains("Button 5"), "{said}");
        let data = after.structured_content.unwrap();
        assert_eq!(data["snapshotSince"], 1);
        assert_eq!(data["snapshotPageId"], 7);
        assert_eq!(data["snapshotChanges"]["changed"][0]["name"], "Renamed");
    }

    /// What `click {includeSnapshot}` on `ctx`'s page would say: the reply's text.
    async fn after_an_action(ctx: &ToolContext) -> String {
        let mut response = Response::default();
        response.include_snapshot(SnapshotRequest::changes());
        text(&render("click", response, None, ctx).await)
    }

    #[tokio::test]
    async fn a_base_is_a_reply_that_held_every_node_and_was_written() {
        let many: Vec<String> = (0..40).map(|i| format!("Button {i}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let mut changed = many.clone();
        changed[3] = "Renamed";
        let trees = vec![page(&many), page(&many), page(&many), page(&changed)];
        let (ctx, _) = context(trees.clone());
        // A budget with room for the whole tree gives the whole tree: a base.
        let roomy = take(&ctx, json!({"maxChars": 100_000})).await;
        assert!(
            text(&roomy).contains("Snapshot 1 of page 7."),
            "{}",
            text(&roomy)
        );
        // Folded, the agent holds only part of it: no base.
        let folded = take(&ctx, json!({"maxChars": 200})).await;
        assert!(text(&folded).contains("folded to fit"), "{}", text(&folded));
        // A reply that could not be written gave the agent nothing: no base.
        let folder = tempfile::tempdir().unwrap();
        let failed = take(&ctx, json!({"filePath": folder.path()})).await;
        assert_eq!(failed.is_error, Some(true), "{}", text(&failed));
        let said = after_an_action(&ctx).await;
        assert!(
            said.contains("Snapshot 4 of page 7: only the changes since snapshot 1"),
            "{said}"
        );
        assert!(said.contains("1_4 button \"Renamed\""), "{said}");

        // Folded with nothing whole before: the whole tree comes after the action.
        let (ctx, _) = context(trees);
        take(&ctx, json!({"maxChars": 200, "unfold": ["9_9"]})).await;
        let said = after_an_action(&ctx).await;
        assert!(said.contains("Snapshot 2 of page 7."), "{said}");
        assert!(said.contains("1_40 button \"Button 39\""), "{said}");
    }
}
