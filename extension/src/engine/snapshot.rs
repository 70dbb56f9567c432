//! `Snapshot`: the page's accessibility tree, iframes included, as uid'd nodes.
//!
//! One `Accessibility.getFullAXTree` for the main frame and one per same-process child
//! frame (with `DOM.getFrameOwner` to hang it under its `<iframe>`), all sent at once;
//! then [`axtree::flatten`] does the rest in linear time, and the document's
//! [`UidMap`](super::uids::UidMap) names the nodes. Frames in another process
//! (cross-site iframes) are not reachable from the tab's debugger session: their
//! `<iframe>` node carries the state [`axtree::FRAME_NOT_CAPTURED`].
//!
//! Elements third-party tools returned (pinned nodes) are always shown; one the
//! accessibility tree does not list at all (a custom element, or `display: none`) is
//! put at its place in the DOM by [`placement`](super::placement), with its tag name
//! for a role and the state [`NOT_IN_ACCESSIBILITY_TREE`].

use std::collections::HashSet;

use futures::future::join_all;
use tabwire_shared::{Snapshot, SnapshotNode, TabId};

use super::axtree::{self, FrameNodes};
use super::Engine;
use crate::cdp::accessibility::{AccessibilityGetFullAxTree, AxTree};
use crate::cdp::dom::DomGetFrameOwner;
use crate::cdp::FrameTree;
use crate::chrome::Chrome;
use crate::error::EngineError;

/// The state of a pinned element the accessibility tree does not list.
pub const NOT_IN_ACCESSIBILITY_TREE: &str = "not-in-accessibility-tree";

/// How long a snapshot may take (a huge page's tree takes a few seconds at most).
const SNAPSHOT_LIMIT_MS: u64 = 25_000;

impl<C: Chrome + 'static> Engine<C> {
    /// Takes a snapshot of `tab`.
    pub(super) async fn snapshot(
        &self,
        tab: TabId,
        verbose: bool,
    ) -> Result<Snapshot, EngineError> {
        let work = self.take_snapshot(tab, verbose);
        self.in_time(tab, SNAPSHOT_LIMIT_MS, work)
            .await?
            .ok_or(EngineError::BrowserTimeout {
                action: "take the accessibility snapshot",
                timeout_ms: SNAPSHOT_LIMIT_MS,
            })
    }

    async fn take_snapshot(&self, tab: TabId, verbose: bool) -> Result<Snapshot, EngineError> {
        let mut watch = self.ready(tab).await?;
        let tree = self.sync_document(tab, &mut watch).await?;
        let url = tree.frame.full_url();
        let mut child_frames = Vec::new();
        collect_child_frames(&tree, &mut child_frames);

        let main_tree = AccessibilityGetFullAxTree { frame_id: None };
        let fetch = async {
            let main = self.send(tab, &main_tree);
            let children = join_all(child_frames.iter().map(|frame| async move {
                let owner = DomGetFrameOwner {
                    frame_id: frame.clone(),
                };
                let tree = AccessibilityGetFullAxTree {
                    frame_id: Some(frame.clone()),
                };
                let (owner, nodes) = futures::join!(self.send(tab, &owner), self.send(tab, &tree));
                // A frame that went away meanwhile is simply left out.
                Some((owner.ok()?.backend_node_id, nodes.ok()?))
            }));
            let (main, children) = futures::join!(main, children);
            Ok::<_, EngineError>((main?, children))
        };
        let (main, children): (AxTree, Vec<Option<(i64, AxTree)>>) =
            self.watched(tab, &mut watch, fetch).await?;

        let mut frames = vec![FrameNodes {
            owner: None,
            nodes: &main.nodes,
        }];
        frames.extend(children.iter().flatten().map(|(owner, tree)| FrameNodes {
            owner: Some(*owner),
            nodes: &tree.nodes,
        }));
        // Pinned nodes, oldest first.
        let pinned: Vec<i64> = self
            .with_document(tab, |d| d.pins.iter().collect())
            .unwrap_or_default();
        let pins: HashSet<i64> = pinned.iter().copied().collect();
        let flat = axtree::flatten(&frames, verbose, &|node| pins.contains(&node), &url);
        let mut nodes = flat.nodes;

        let missing: Vec<i64> = pinned
            .into_iter()
            .filter(|p| !flat.listed.contains(p))
            .collect();
        if !missing.is_empty() {
            nodes = self.place_pinned(tab, &mut watch, nodes, missing).await?;
        }

        let title = match nodes.first() {
            Some(root) if root.role == "RootWebArea" => root.name.clone(),
            _ => String::new(),
        };
        let number = self.next_snapshot_number();
        let nodes = self
            .with_document(tab, |document| {
                document.uids.begin_snapshot(number);
                let mut named = HashSet::with_capacity(nodes.len());
                let out = nodes
                    .into_iter()
                    .map(|node| {
                        let uid = match node.backend {
                            // The same DOM node twice (pseudo-elements): one uid each.
                            Some(backend) if named.insert(backend) => {
                                document.uids.uid_for(backend, || number)
                            }
                            _ => document.uids.fresh(|| number),
                        };
                        SnapshotNode {
                            uid,
                            depth: node.depth,
                            role: node.role,
                            name: node.name,
                            value: node.value,
                            states: node.states,
                        }
                    })
                    .collect::<Vec<_>>();
                let pins = &document.pins;
                document.uids.trim(|node| pins.contains(node));
                out
            })
            .unwrap_or_default();
        Ok(Snapshot { url, title, nodes })
    }
}

/// The ids of every same-process frame below the main frame, depth-first.
fn collect_child_frames(tree: &FrameTree, out: &mut Vec<String>) {
    let mut stack: Vec<&FrameTree> = tree.child_frames.iter().rev().collect();
    while let Some(frame) = stack.pop() {
        out.push(frame.frame.id.clone());
        stack.extend(frame.child_frames.iter().rev());
    }
}

/// Takes the tab's accessibility snapshot.
impl super::Handle for tabwire_shared::TakeSnapshot {
    const NEEDS_RENDERER: bool = true;

    async fn handle<C: Chrome + 'static>(
        self,
        engine: &Engine<C>,
        _session: &str,
    ) -> Result<Self::Reply, EngineError> {
        // `viewport` is the walker's to honour (`opts.viewport`); until it does, the
        // whole tree answers, which holds everything on screen.
        let Self {
            tab_id,
            verbose,
            viewport: _,
        } = self;
        engine.snapshot(tab_id, verbose).await
    }
}

#[cfg(test)]
mod tests {
    use super::super::fake::page::{navigate_to, set_buttons};
    use super::super::fake::{Answer, Harness};
    use serde_json::json;
    use tabwire_shared::{requests::*, ErrorCode, Reply, Snapshot};

    fn snapshot(h: &mut Harness, id: u64, verbose: bool) -> Snapshot {
        h.call(
            id,
            TakeSnapshot {
                tab_id: 10,
                verbose,
                viewport: false,
            },
        );
        h.settle();
        match h.reply(id).expect("a reply") {
            Ok(Reply::Snapshot { snapshot }) => snapshot,
            other => panic!("expected a snapshot, got {other:?}"),
        }
    }

    fn uid_of(snapshot: &Snapshot, name: &str) -> String {
        snapshot
            .nodes
            .iter()
            .find(|n| n.name == name)
            .map(|n| n.uid.clone())
            .unwrap_or_else(|| panic!("no {name} in {snapshot:?}"))
    }

    #[test]
    fn a_node_keeps_its_uid_across_snapshots_and_new_nodes_get_the_new_number() {
        let mut h = Harness::new();
        set_buttons(&h, &[(5, "Save")]);
        let first = snapshot(&mut h, 1, false);
        assert_eq!(first.title, "App");
        assert_eq!(first.url, "https://a.test/");
        assert_eq!(
            first
                .nodes
                .iter()
                .map(|n| (n.uid.as_str(), n.depth, n.role.as_str()))
                .collect::<Vec<_>>(),
            vec![("1_1", 0, "RootWebArea"), ("1_2", 1, "button")]
        );
        set_buttons(&h, &[(5, "Save"), (6, "Cancel")]);
        let second = snapshot(&mut h, 2, false);
        assert_eq!(uid_of(&second, "Save"), "1_2");
        assert_eq!(uid_of(&second, "Cancel"), "2_1");
        assert_eq!(h.fake.sent(10, "Accessibility.getFullAXTree").len(), 2);
    }

    #[test]
    fn uids_outlive_an_idle_detach_of_an_unchanged_page() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.share("k1", 10);
        set_buttons(&h, &[(5, "Save")]);
        let save = uid_of(&snapshot(&mut h, 1, false), "Save");
        h.advance(10 * 60 * 1000);
        assert!(!h.fake.is_attached(10), "let go after the idle time");
        h.call(
            2,
            Evaluate {
                tab_id: 10,
                function: "(el) => el.id".into(),
                args: vec![json!({ "uid": save })],
                timeout_ms: 1000,
            },
        );
        h.settle();
        assert!(h.fake.is_attached(10));
        assert!(
            h.reply(2).unwrap().is_ok(),
            "the uid still names the button"
        );
    }

    #[test]
    fn a_new_document_makes_old_uids_stale() {
        let mut h = Harness::new();
        set_buttons(&h, &[(5, "Save")]);
        let before = uid_of(&snapshot(&mut h, 1, false), "Save");
        navigate_to(&mut h, 10, "L1");
        let evaluate = |uid: &str| Evaluate {
            tab_id: 10,
            function: "(el) => el.id".into(),
            args: vec![json!({ "uid": uid })],
            timeout_ms: 1000,
        };
        h.call(2, evaluate(&before));
        h.settle();
        let error = h.reply(2).unwrap().unwrap_err();
        assert_eq!(error.code, ErrorCode::InvalidArgument);
        assert!(error
            .message
            .contains(&format!("\"{before}\" is unknown or stale")));
        assert!(error.message.contains("take_snapshot"));
        let after = uid_of(&snapshot(&mut h, 3, false), "Save");
        assert_ne!(
            after, before,
            "a uid never names a node of another document"
        );
        h.call(4, evaluate(&after));
        h.settle();
        assert!(h.reply(4).unwrap().is_ok());
    }

    #[test]
    fn a_missed_navigation_is_noticed_by_the_frame_tree() {
        let mut h = Harness::new();
        set_buttons(&h, &[(5, "Save")]);
        let before = uid_of(&snapshot(&mut h, 1, false), "Save");
        h.fake.answer(
            "Page.getFrameTree",
            Answer::value(json!({"frameTree": {"frame": {"id": "main", "loaderId": "other"}}})),
        );
        assert_ne!(uid_of(&snapshot(&mut h, 2, false), "Save"), before);
    }

    #[test]
    fn same_process_frames_are_placed_under_their_iframe() {
        let mut h = Harness::new();
        h.fake.answer(
            "Page.getFrameTree",
            Answer::value(json!({"frameTree": {
                "frame": {"id": "main", "loaderId": "L0", "url": "http://x.test/"},
                "childFrames": [{"frame": {"id": "child", "parentId": "main", "loaderId": "C"}}]}})),
        );
        h.fake.answer(
            "DOM.getFrameOwner",
            Answer::value(json!({"backendNodeId": 2})),
        );
        h.fake.answer_with("Accessibility.getFullAXTree", |params| {
            let nodes = if params["frameId"] == "child" {
                json!([
                    {"nodeId": "30", "role": {"value": "RootWebArea"}, "name": {"value": "Inner"}, "childIds": ["31"], "backendDOMNodeId": 30},
                    {"nodeId": "31", "parentId": "30", "role": {"value": "button"}, "name": {"value": "In"}, "childIds": [], "backendDOMNodeId": 31,
                     "properties": [{"name": "focusable", "value": {"value": true}}]}
                ])
            } else {
                json!([
                    {"nodeId": "1", "role": {"value": "RootWebArea"}, "name": {"value": "Top"}, "childIds": ["2"], "backendDOMNodeId": 1},
                    {"nodeId": "2", "parentId": "1", "role": {"value": "Iframe"}, "name": {"value": ""}, "childIds": [], "backendDOMNodeId": 2}
                ])
            };
            Answer::value(json!({ "nodes": nodes }))
        });
        let snap = snapshot(&mut h, 1, false);
        let shape: Vec<_> = snap
            .nodes
            .iter()
            .map(|n| (n.depth, n.role.as_str(), n.name.as_str()))
            .collect();
        assert_eq!(
            shape,
            vec![
                (0, "RootWebArea", "Top"),
                (1, "Iframe", ""),
                (2, "RootWebArea", "Inner"),
                (3, "button", "In")
            ]
        );
    }

    #[test]
    fn a_snapshot_waits_for_no_dialog() {
        let mut h = Harness::new();
        h.engine.on_cdp_event(
            10,
            "Page.javascriptDialogOpening",
            &json!({"type": "alert", "message": "hi"}),
        );
        h.call(
            1,
            TakeSnapshot {
                tab_id: 10,
                verbose: false,
                viewport: false,
            },
        );
        h.settle();
        assert_eq!(h.reply(1).unwrap().unwrap_err().code, ErrorCode::Dialog);
    }
}
