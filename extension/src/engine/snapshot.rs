//! `Snapshot`: the page as uid'd nodes, walked from the DOM in tabwire's isolated world.
//!
//! The walker (`page/snapshot.js`, in each frame's [`world`](super::world)) computes
//! roles, names, values and states from the DOM and answers one string of lines,
//! which [`lines`] reads; it keeps the uids (see [`uids`](super::uids)), shows pinned
//! elements in their place, and walks same-origin iframes in place. The main frame is
//! walked while the frame tree is fetched (to notice a new document): one round trip
//! for a page whose world is known. An `<iframe>` the walk could not enter (marked
//! [`FRAME_NOT_CAPTURED`]) whose frame is in the tab's process (a cross-origin frame
//! of the same site) is walked in its own world and its lines put under the
//! `<iframe>` line: the frame's owner element, resolved into the world whose walk
//! showed it, tells which line that is.
//!
//! Each frame's last walk is kept per document and options: when the walker answers
//! that nothing changed since, the kept walk is the answer. A walk that lists custom
//! elements whose role may come from ElementInternals, or hosts of closed shadow
//! roots, is completed with Chrome's help before that ([`hybrid`]).

mod hybrid;
pub(super) mod lines;

use std::collections::{HashMap, HashSet};

use futures::future::join_all;
use tabwire_shared::{Snapshot, SnapshotNode, TabId, WalkOptions};

use super::axtree::FRAME_NOT_CAPTURED;
use super::document::KeptWalk;
use super::uids::FrameKey;
use super::world::WalkerCall;
use crate::cdp::dom::DomGetFrameOwner;
use crate::cdp::{FrameTree, PageGetFrameTree};
use crate::chrome::Chrome;
use crate::engine::context::Cx;
use crate::error::EngineError;
use crate::signals::Subscription;

use hybrid::complete_walk;
pub use lines::Walk;
use lines::WalkText;

/// How long a snapshot may take (a huge page's walk takes a second or two at most).
const SNAPSHOT_LIMIT_MS: u64 = 25_000;

/// One frame's part of a snapshot.
struct FramePart {
    frame: FrameKey,
    nodes: Vec<SnapshotNode>,
    /// The part whose walk shows this frame's `<iframe>`, and that line's uid.
    owner: Option<(usize, String)>,
}

/// Takes a snapshot of `tab`.
pub(super) async fn snapshot<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    options: WalkOptions,
) -> Result<Snapshot, EngineError> {
    let work = take_snapshot(cx, tab, options);
    cx.in_time(tab, SNAPSHOT_LIMIT_MS, work)
        .await?
        .ok_or(EngineError::BrowserTimeout {
            action: "take the accessibility snapshot",
            timeout_ms: SNAPSHOT_LIMIT_MS,
        })
}

async fn take_snapshot<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    options: WalkOptions,
) -> Result<Snapshot, EngineError> {
    let mut watch = cx.ready(tab).await?;
    let known = cx.with_document(tab, |d| d.frame_id.clone());
    let (tree, walked) = match known {
        Some(frame) => {
            let main = FrameKey::tab(frame);
            let both = async {
                let (tree, walk) = futures::join!(
                    cx.send(tab, &PageGetFrameTree {}),
                    walk_frame(cx, tab, &main, options)
                );
                Ok((tree?.frame_tree, Some((main.clone(), walk?))))
            };
            cx.watched(tab, &mut watch, both).await?
        }
        None => (cx.sync_document(tab, &mut watch).await?, None),
    };
    cx.adopt_frame_tree(tab, &tree);
    let main = FrameKey::tab(tree.frame.id.clone());
    let walk = match walked {
        // The walk of the frame the tree names as the main frame.
        Some((frame, walk)) if frame == main => walk,
        _ => {
            let walk = walk_frame(cx, tab, &main, options);
            cx.watched(tab, &mut watch, walk).await?
        }
    };
    let mut parts = vec![FramePart {
        frame: main,
        nodes: walk.nodes,
        owner: None,
    }];
    walk_child_frames(cx, tab, &mut watch, &tree, &mut parts, options).await?;
    walk_cross_site_frames(cx, tab, &mut watch, &mut parts, options).await?;
    let walked: HashSet<FrameKey> = parts.iter().map(|p| p.frame.clone()).collect();
    cx.with_document(tab, |d| {
        d.uids.begin_snapshot();
        for part in &parts {
            let mut last = None;
            for node in &part.nodes {
                // Most uids share a few numbers: each is looked up once in a row.
                let number = super::uids::number_of(&node.uid);
                if number != last {
                    d.uids.learn(&node.uid, &part.frame);
                    last = number;
                }
            }
        }
        let pinned = d.pins.numbers();
        d.uids.trim(|number| pinned.contains(&number));
        d.walks
            .retain(|(frame, kept), _| *kept != options || walked.contains(frame));
    });
    let nodes = splice(parts);
    let title = match nodes.first() {
        Some(root) if root.role == "RootWebArea" => root.name.clone(),
        _ => String::new(),
    };
    Ok(Snapshot {
        url: tree.frame.full_url(),
        title,
        nodes,
    })
}

/// Walks `frame` in its world; the kept walk when the walker says nothing changed.
async fn walk_frame<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    frame: &FrameKey,
    options: WalkOptions,
) -> Result<Walk, EngineError> {
    let kept = cx
        .with_document(tab, |d| d.walks.get(&(frame.clone(), options)).cloned())
        .flatten();
    let number = cx.next_snapshot_number();
    let since = |context: i64| {
        kept.as_ref()
            .filter(|k| k.context == context)
            .map(|k| k.walk.gen)
    };
    let (context, text) = take_walk(cx, tab, frame, number, options, since).await?;
    let (context, walk, fresh) = match text {
        WalkText::Walked(walk) => (context, walk, true),
        WalkText::Unchanged(gen) => match kept {
            Some(kept) if kept.context == context && kept.walk.gen == gen => {
                (context, kept.walk, false)
            }
            // Nothing kept of that generation after all: a walk of the whole frame.
            _ => match take_walk(cx, tab, frame, number, options, |_| None).await? {
                (context, WalkText::Walked(walk)) => (context, walk, true),
                (_, WalkText::Unchanged(_)) => {
                    return Err(EngineError::UnreadablePageData(
                        "the snapshot walker answered \"unchanged\" to a first walk".to_owned(),
                    ))
                }
            },
        },
    };
    let gen = walk.gen;
    let (context, walk) = complete_walk(cx, tab, frame, context, walk, number, options).await?;
    if fresh || walk.gen != gen {
        let keep = KeptWalk {
            context,
            walk: walk.clone(),
        };
        cx.with_document(tab, |d| d.walks.insert((frame.clone(), options), keep));
    }
    Ok(walk)
}

/// One `take` in `frame`'s world, read.
async fn take_walk<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    frame: &FrameKey,
    number: u64,
    options: WalkOptions,
    since: impl Fn(i64) -> Option<u64>,
) -> Result<(i64, WalkText), EngineError> {
    let take = |context| WalkerCall::Take {
        number,
        options,
        since: since(context),
    };
    let (context, answer) = cx.call_walker(tab, frame, take, "").await?;
    let text = match answer.value {
        Some(serde_json::Value::String(text)) => text,
        other => {
            return Err(EngineError::UnreadablePageData(format!(
                "the snapshot walker answered {} instead of text",
                other.map_or_else(|| answer.kind.clone(), |v| v.to_string())
            )))
        }
    };
    let read = lines::read(&text).map_err(|e| {
        EngineError::UnreadablePageData(format!("the snapshot walker's answer, {e}"))
    })?;
    Ok((context, read))
}

/// Walks the frames of the tab's process that the walks so far could not enter,
/// level by level, each in its own world, noting under which line each goes.
async fn walk_child_frames<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    tree: &FrameTree,
    parts: &mut Vec<FramePart>,
    options: WalkOptions,
) -> Result<(), EngineError> {
    let mut frontier: Vec<(&FrameTree, usize)> =
        tree.child_frames.iter().map(|child| (child, 0)).collect();
    let group = cx.next_object_group();
    let mut used_group = false;
    while !frontier.is_empty() {
        // The `<iframe>` lines of each part: uid → whether the walk left it out.
        let iframes: Vec<HashMap<&str, bool>> = parts.iter().map(iframe_lines).collect();
        frontier.retain(|(_, part)| iframes[*part].values().any(|uncaptured| *uncaptured));
        if frontier.is_empty() {
            break;
        }
        used_group = true;
        let number = cx.next_snapshot_number();
        let owners = join_all(frontier.iter().map(|(child, part)| {
            let walker = &parts[*part].frame;
            owner_uid(cx, tab, walker, &child.frame.id, number, &group)
        }));
        let owners = cx.watched(tab, watch, async { Ok(owners.await) }).await?;
        let mut next = Vec::new();
        let mut to_walk = Vec::new();
        for ((child, part), owner) in frontier.into_iter().zip(owners) {
            // An `<iframe>` the walk does not show: nor is its frame shown.
            let Some(owner) = owner else { continue };
            match iframes[part].get(owner.as_str()) {
                Some(true) => to_walk.push((child, part, owner)),
                // Walked in place, with the walk of its parent.
                Some(false) => next.extend(child.child_frames.iter().map(|c| (c, part))),
                None => {}
            }
        }
        drop(iframes);
        let walks = join_all(to_walk.iter().map(|(child, _, _)| async move {
            let frame = FrameKey::tab(child.frame.id.clone());
            let walk = walk_frame(cx, tab, &frame, options).await;
            (frame, walk)
        }));
        let walks = cx.watched(tab, watch, async { Ok(walks.await) }).await?;
        for ((child, part, owner), (frame, walk)) in to_walk.into_iter().zip(walks) {
            // A frame that went away meanwhile is left out.
            let Ok(walk) = walk else { continue };
            next.extend(child.child_frames.iter().map(|c| (c, parts.len())));
            parts.push(FramePart {
                frame,
                nodes: walk.nodes,
                owner: Some((part, owner)),
            });
        }
        frontier = next;
    }
    if used_group {
        cx.release_objects(tab, group);
    }
    Ok(())
}

/// Walks the tab's cross-site frames, each in its world in its own child session,
/// a level at a time (a frame nested in another after it), noting under which
/// `<iframe>` line each goes: the one of its parent frame's walk that
/// `DOM.getFrameOwner` names in the parent's session. A frame that went away
/// meanwhile, or whose `<iframe>` no walk shows, is left out.
async fn walk_cross_site_frames<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    parts: &mut Vec<FramePart>,
    options: WalkOptions,
) -> Result<(), EngineError> {
    let mut pending = cx.cross_site_frames(tab);
    let group = cx.next_object_group();
    let mut used = Vec::new();
    loop {
        let walked = |session: &Option<String>| parts.iter().any(|p| p.frame.session == *session);
        let (ready, rest): (Vec<_>, Vec<_>) = pending
            .into_iter()
            .partition(|(_, child)| walked(&child.parent));
        pending = rest;
        if ready.is_empty() {
            break;
        }
        let number = cx.next_snapshot_number();
        let found = join_all(ready.iter().map(|(session, child)| {
            let parts = &*parts;
            let group = &group;
            async move {
                let tree = cx.send_in(tab, Some(session), &PageGetFrameTree {});
                let owner = DomGetFrameOwner {
                    frame_id: child.frame_id.clone(),
                };
                let owner = cx.send_in(tab, child.parent.as_deref(), &owner);
                let (tree, owner) = futures::join!(tree, owner);
                let root = tree.ok()?.frame_tree.frame;
                // The part of the frame's parent frame, else the parent session's first.
                let in_parent = |p: &FramePart| p.frame.session == child.parent;
                let part = (parts.iter())
                    .position(|p| in_parent(p) && Some(&p.frame.frame) == root.parent_id.as_ref())
                    .or_else(|| parts.iter().position(in_parent))?;
                let backend = owner.ok()?.backend_node_id;
                let walker = &parts[part].frame;
                let uid = cx
                    .uid_in_world(tab, walker, backend, number, false, group)
                    .await
                    .ok()??;
                let frame = FrameKey {
                    session: Some(session.clone()),
                    frame: root.id,
                };
                let walk = walk_frame(cx, tab, &frame, options).await.ok()?;
                Some((frame, walk, part, uid))
            }
        }));
        let found = cx.watched(tab, watch, async { Ok(found.await) }).await?;
        used.extend(ready.into_iter().filter_map(|(_, child)| child.parent));
        for (frame, walk, part, owner) in found.into_iter().flatten() {
            parts.push(FramePart {
                frame,
                nodes: walk.nodes,
                owner: Some((part, owner)),
            });
        }
    }
    used.sort();
    used.dedup();
    for session in used {
        cx.release_objects_in(tab, Some(session), group.clone());
    }
    cx.release_objects(tab, group);
    Ok(())
}

/// The uid of a frame's `<iframe>` element in the world of `walker` (whose walk
/// shows it), if the frame still has one.
async fn owner_uid<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    walker: &FrameKey,
    frame: &str,
    number: u64,
    group: &str,
) -> Option<String> {
    let owner = DomGetFrameOwner {
        frame_id: frame.to_owned(),
    };
    let backend = cx.send(tab, &owner).await.ok()?.backend_node_id;
    cx.uid_in_world(tab, walker, backend, number, false, group)
        .await
        .ok()
        .flatten()
}

/// The `<iframe>` lines of a part, by uid: whether each is one the walk left out.
fn iframe_lines(part: &FramePart) -> HashMap<&str, bool> {
    part.nodes
        .iter()
        .filter(|n| n.role == "Iframe")
        .map(|n| {
            let uncaptured = n.states.iter().any(|s| s.name == FRAME_NOT_CAPTURED);
            (n.uid.as_str(), uncaptured)
        })
        .collect()
}

/// The parts as one list of nodes: each frame's nodes under its `<iframe>` line (no
/// longer marked as left out), deeper by that line's depth and one.
fn splice(mut parts: Vec<FramePart>) -> Vec<SnapshotNode> {
    // A part comes after the part that shows its `<iframe>`: from the last, each
    // goes into its parent complete.
    while parts.len() > 1 {
        let Some(part) = parts.pop() else { break };
        let Some((parent, owner)) = part.owner else {
            continue;
        };
        let Some(into) = parts.get_mut(parent) else {
            continue;
        };
        let Some(at) = into.nodes.iter().position(|n| n.uid == owner) else {
            continue;
        };
        let line = &mut into.nodes[at];
        line.states.retain(|s| s.name != FRAME_NOT_CAPTURED);
        let below = line.depth + 1;
        let nodes = part.nodes.into_iter().map(|mut node| {
            node.depth += below;
            node
        });
        into.nodes.splice(at + 1..at + 1, nodes);
    }
    parts.pop().map(|p| p.nodes).unwrap_or_default()
}

/// Takes the tab's accessibility snapshot.
impl super::Handle for tabwire_shared::TakeSnapshot {
    const NEEDS_RENDERER: bool = true;

    async fn handle<C: Chrome + 'static>(self, cx: &Cx<'_, C>) -> Result<Self::Reply, EngineError> {
        snapshot(cx, self.tab_id, self.walk).await
    }
}

#[cfg(test)]
mod tests {
    use super::super::fake::page::{navigate_to, set_buttons};
    use super::super::fake::world::{FakeNode, Seen, Take};
    use super::super::fake::{Answer, Harness};
    use serde_json::json;
    use tabwire_shared::{requests::*, ErrorCode, Snapshot};

    fn snapshot(h: &mut Harness, id: u64, verbose: bool) -> Snapshot {
        h.call(
            id,
            TakeSnapshot {
                tab_id: 10,
                walk: WalkOptions {
                    verbose,
                    viewport: false,
                },
            },
        );
        h.settle();
        match h.reply_to::<TakeSnapshot>(id).expect("a reply") {
            Ok(snapshot) => snapshot,
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

    fn evaluate(uid: &str) -> Evaluate {
        Evaluate {
            tab_id: 10,
            function: "(el) => el.id".into(),
            args: vec![json!({ "uid": uid })],
            timeout_ms: 1000,
        }
    }

    fn take(context: i64, number: u64, since: Option<u64>) -> Take {
        Take {
            context,
            number,
            verbose: false,
            viewport: false,
            since,
        }
    }

    #[test]
    fn the_walk_runs_in_tabwires_world_and_a_node_keeps_its_uid() {
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
        let world = h.fake.world_context(10, "main").expect("a world");
        set_buttons(&h, &[(5, "Save"), (6, "Cancel")]);
        let second = snapshot(&mut h, 2, false);
        assert_eq!(uid_of(&second, "Save"), "1_2");
        assert_eq!(uid_of(&second, "Cancel"), "2_1");
        assert_eq!(
            h.fake.world_calls(10),
            vec![
                Seen::Create {
                    frame: "main".into(),
                    name: "tabwire".into()
                },
                Seen::Install { context: world },
                Seen::Take(take(world, 1, None)),
                Seen::Take(take(world, 2, Some(1))),
            ],
            "one world, one walker, and a walk since the last one"
        );
        assert!(h.fake.sent(10, "Accessibility.getFullAXTree").is_empty());
    }

    #[test]
    fn an_unchanged_page_answers_the_kept_walk() {
        let mut h = Harness::new();
        set_buttons(&h, &[(5, "Save")]);
        let first = snapshot(&mut h, 1, false);
        let second = snapshot(&mut h, 2, false);
        assert_eq!(second, first);
        let verbose = snapshot(&mut h, 3, true);
        assert_eq!(verbose.nodes.len(), 2);
        let takes = h.fake.takes(10);
        assert_eq!(takes[1].since, Some(1));
        assert_eq!(
            (takes[2].verbose, takes[2].since),
            (true, None),
            "a walk kept per options"
        );
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
        h.call(2, evaluate(&save));
        h.settle();
        assert!(h.fake.is_attached(10));
        assert!(
            h.reply(2).unwrap().is_ok(),
            "the uid still names the button"
        );
        let resolved = h.fake.sent(10, "DOM.resolveNode");
        assert_eq!(resolved.last().unwrap()["backendNodeId"], 5);
    }

    #[test]
    fn a_new_document_makes_old_uids_stale() {
        let mut h = Harness::new();
        set_buttons(&h, &[(5, "Save")]);
        let before = uid_of(&snapshot(&mut h, 1, false), "Save");
        navigate_to(&mut h, 10, "L1");
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
    fn a_node_gone_from_the_page_is_a_stale_uid() {
        let mut h = Harness::new();
        set_buttons(&h, &[(5, "Save")]);
        let save = uid_of(&snapshot(&mut h, 1, false), "Save");
        set_buttons(&h, &[]);
        h.call(2, evaluate(&save));
        h.settle();
        h.failed(2, ErrorCode::InvalidArgument, "is unknown or stale");
        let world = h.fake.world_context(10, "main").unwrap();
        assert!(h.fake.world_calls(10).contains(&Seen::Resolve {
            context: world,
            uid: save
        }));
    }

    #[test]
    fn a_missed_navigation_is_noticed_and_the_dead_world_made_again() {
        let mut h = Harness::new();
        set_buttons(&h, &[(5, "Save")]);
        let before = uid_of(&snapshot(&mut h, 1, false), "Save");
        let old = h.fake.world_context(10, "main").unwrap();
        h.fake.new_document(10, "main");
        h.fake.answer(
            "Page.getFrameTree",
            Answer::value(json!({"frameTree": {"frame": {"id": "main", "loaderId": "other"}}})),
        );
        assert_ne!(uid_of(&snapshot(&mut h, 2, false), "Save"), before);
        let new = h.fake.world_context(10, "main").unwrap();
        assert_ne!(new, old);
        let retried = h.fake.sent(10, "Runtime.callFunctionOn");
        assert_eq!(retried[1]["executionContextId"], old, "the old world first");
        assert_eq!(
            h.fake.world_calls(10)[3..],
            [
                Seen::Create {
                    frame: "main".into(),
                    name: "tabwire".into()
                },
                Seen::Install { context: new },
                Seen::Take(take(new, 2, None)),
            ]
        );
    }

    /// A main frame (its world answering `top`) with one child frame `child`, whose
    /// `<iframe>` (backend 2) the main walk shows with `iframe_states`.
    fn framed(h: &mut Harness, iframe_states: &[&str], inner: Vec<FakeNode>) {
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
        let mut iframe = FakeNode::shown(2, 1, "Iframe", "");
        for state in iframe_states {
            iframe = iframe.with_state(state);
        }
        let mut top = vec![FakeNode::shown(1, 0, "RootWebArea", "Top"), iframe];
        top.extend(inner);
        h.fake.set_page(10, "main", "http://x.test/", top);
    }

    #[test]
    fn a_frame_the_walk_could_not_enter_is_walked_in_its_world_under_its_iframe() {
        let mut h = Harness::new();
        framed(&mut h, &["frame-not-captured"], vec![]);
        h.fake.set_page(
            10,
            "child",
            "http://y.x.test/",
            vec![
                FakeNode::shown(30, 0, "RootWebArea", "Inner"),
                FakeNode::shown(31, 1, "button", "In"),
            ],
        );
        let snap = snapshot(&mut h, 1, false);
        let shape: Vec<_> = snap
            .nodes
            .iter()
            .map(|n| (n.depth, n.role.as_str(), n.name.as_str(), n.states.len()))
            .collect();
        assert_eq!(
            shape,
            vec![
                (0, "RootWebArea", "Top", 0),
                (1, "Iframe", "", 0),
                (2, "RootWebArea", "Inner", 0),
                (3, "button", "In", 0)
            ]
        );
        assert_eq!(snap.title, "Top");
        let (main, child) = (
            h.fake.world_context(10, "main").unwrap(),
            h.fake.world_context(10, "child").unwrap(),
        );
        let owner = h.fake.world_calls(10).into_iter().find_map(|c| match c {
            Seen::UidOf {
                context,
                node,
                pin: false,
                ..
            } => Some((context, node)),
            _ => None,
        });
        assert_eq!(
            owner,
            Some((main, "node-2".to_owned())),
            "the owner named in the world that showed it"
        );
        let inner = uid_of(&snap, "In");
        h.call(2, evaluate(&inner));
        h.settle();
        assert!(h.reply(2).unwrap().is_ok());
        assert!(h.fake.world_calls(10).contains(&Seen::Resolve {
            context: child,
            uid: inner
        }));
    }

    #[test]
    fn a_frame_walked_in_place_is_not_walked_again() {
        let mut h = Harness::new();
        framed(
            &mut h,
            &[],
            vec![FakeNode::shown(30, 2, "RootWebArea", "Inner")],
        );
        let snap = snapshot(&mut h, 1, false);
        assert_eq!(snap.nodes.len(), 3);
        assert!(h.fake.sent(10, "DOM.getFrameOwner").is_empty());
        assert_eq!(h.fake.world_context(10, "child"), None);
    }

    #[test]
    fn a_broken_walk_is_an_error_that_says_where() {
        let mut h = Harness::new();
        h.fake
            .answer_takes(10, "main", "1\thttps://a.test/\n1_1\t3\tRootWebArea\tApp\t");
        h.call(1, TakeSnapshot::whole(10));
        h.settle();
        h.failed(1, ErrorCode::PageError, "line 2: the root has depth 3");
    }

    #[test]
    fn a_page_without_custom_elements_or_closed_roots_asks_chrome_nothing_more() {
        let mut h = Harness::new();
        set_buttons(&h, &[(5, "Save")]);
        snapshot(&mut h, 1, false);
        snapshot(&mut h, 2, false);
        for method in [
            "Accessibility.getPartialAXTree",
            "DOM.describeNode",
            "DOM.resolveNode",
        ] {
            assert!(h.fake.sent(10, method).is_empty(), "{method}");
        }
        assert_eq!(
            h.fake.sent(10, "Runtime.callFunctionOn").len(),
            2,
            "one take per snapshot"
        );
    }

    /// Chrome's answer for a custom element: a checkbox named `name`, checked, focused.
    fn checkbox(name: &str) -> serde_json::Value {
        json!({"nodes": [{"nodeId": "1", "role": {"value": "checkbox"}, "name": {"value": name},
            "properties": [{"name": "checked", "value": {"value": "true"}},
                           {"name": "focused", "value": {"value": true}}]}]})
    }

    #[test]
    fn custom_elements_take_chromes_answers_asked_for_at_once_at_every_snapshot() {
        let mut h = Harness::new();
        let page = vec![
            FakeNode::shown(1, 0, "RootWebArea", "App"),
            FakeNode::shown(7, 1, "generic", "").with_internals(),
            FakeNode::shown(8, 1, "generic", "").with_internals(),
        ];
        h.fake.set_page(10, "main", "https://a.test/", page);
        h.fake.hold_on_tab("Accessibility.getPartialAXTree", 10);
        h.call(1, TakeSnapshot::whole(10));
        h.settle();
        let asked = h.fake.sent(10, "Accessibility.getPartialAXTree");
        assert_eq!(asked.len(), 2, "both hosts asked before either answered");
        assert_eq!(asked[0]["fetchRelatives"], false);
        let objects: Vec<_> = asked.iter().map(|a| a["objectId"].clone()).collect();
        assert_eq!(
            objects,
            [json!("node-7"), json!("node-8")],
            "objects of the world"
        );
        h.fake.release_held(checkbox("Accept"));
        h.settle();
        let snap = match h.reply_to::<TakeSnapshot>(1).expect("a reply") {
            Ok(snapshot) => snapshot,
            other => panic!("expected a snapshot, got {other:?}"),
        };
        let shape: Vec<_> = snap
            .nodes
            .iter()
            .map(|n| (n.role.as_str(), n.name.as_str(), n.states.len()))
            .collect();
        assert_eq!(
            shape,
            [
                ("RootWebArea", "App", 0),
                ("checkbox", "Accept", 1),
                ("checkbox", "Accept", 1)
            ]
        );
        assert_eq!(snap.nodes[1].states, ["checked"], "focus is the walker's");
        let adopts: Vec<_> = (h.fake.world_calls(10).into_iter())
            .filter(|c| matches!(c, Seen::Adopt { .. }))
            .collect();
        let world = h.fake.world_context(10, "main").unwrap();
        let first_host = uid_of(&snap, "Accept");
        match &adopts[..] {
            [Seen::Adopt { context, answers }] => {
                assert_eq!(*context, world);
                assert_eq!(answers[0][0], json!(first_host));
                assert_eq!(
                    answers[0][1],
                    json!({"role": "checkbox", "name": "Accept", "value": "", "states": ["checked"]})
                );
                assert_eq!(
                    answers.as_array().map(Vec::len),
                    Some(2),
                    "one adopt for all"
                );
            }
            other => panic!("one adopt, not {other:?}"),
        }
        let takes = h.fake.takes(10);
        assert_eq!(takes.len(), 2, "walked again with the answers");
        assert_eq!(takes[1].since, Some(1));

        // The next snapshot asks again (internals change unseen by the DOM); the same
        // answers change nothing, so the kept walk answers.
        h.fake.answer(
            "Accessibility.getPartialAXTree",
            Answer::value(checkbox("Accept")),
        );
        assert_eq!(snapshot(&mut h, 2, false), snap);
        assert_eq!(h.fake.sent(10, "Accessibility.getPartialAXTree").len(), 4);
        assert_eq!(h.fake.takes(10).len(), 3, "no walk again");
        // A changed answer is walked again.
        h.fake.answer(
            "Accessibility.getPartialAXTree",
            Answer::value(checkbox("Refuse")),
        );
        let changed = snapshot(&mut h, 3, false);
        assert_eq!(uid_of(&changed, "Refuse"), first_host, "same uid");
        assert_eq!(h.fake.takes(10).len(), 5);
    }

    #[test]
    fn a_closed_shadow_root_is_found_once_per_world_and_walked_in_place() {
        let mut h = Harness::new();
        let page = vec![
            FakeNode::shown(1, 0, "RootWebArea", "App"),
            FakeNode::shown(7, 1, "generic", "").hosting_closed(70),
            FakeNode::shown(71, 2, "button", "Inside").inside_closed(70),
            FakeNode::shown(8, 1, "generic", "").hosting_closed(80),
        ];
        h.fake.set_page(10, "main", "https://a.test/", page.clone());
        h.fake.answer_with("DOM.describeNode", |params| {
            let object = params["objectId"].as_str().unwrap_or_default();
            let backend: i64 = object
                .strip_prefix("node-")
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            let roots = if backend == 7 {
                json!([{"backendNodeId": 70, "shadowRootType": "closed"}])
            } else {
                json!([])
            };
            Answer::value(json!({"node": {"backendNodeId": backend, "nodeType": 1,
                "nodeName": "X-HOST", "localName": "x-host", "shadowRoots": roots}}))
        });
        let snap = snapshot(&mut h, 1, false);
        let shape: Vec<_> = snap
            .nodes
            .iter()
            .map(|n| {
                (
                    n.depth,
                    n.name.as_str(),
                    n.states.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
                )
            })
            .collect();
        assert_eq!(
            shape,
            [
                (0, "App", vec![]),
                (1, "", vec![]),
                (2, "Inside", vec![]),
                (1, "", vec![])
            ],
            "the found root walked in place; the host without one shown as it is"
        );
        let world = h.fake.world_context(10, "main").unwrap();
        let added: Vec<_> = (h.fake.world_calls(10).into_iter())
            .filter_map(|c| match c {
                Seen::AddRoot { context, root, .. } => Some((context, root)),
                _ => None,
            })
            .collect();
        assert_eq!(added, [(world, Some("node-70".to_owned())), (world, None)]);
        let resolved = h.fake.sent(10, "DOM.resolveNode");
        assert_eq!(resolved[0]["backendNodeId"], 70);
        assert_eq!(
            resolved[0]["executionContextId"], world,
            "into tabwire's world"
        );
        let describe = h.fake.sent(10, "DOM.describeNode");
        assert_eq!(describe.len(), 2);
        assert_eq!(
            (describe[0]["pierce"].clone(), describe[0]["depth"].clone()),
            (json!(true), json!(1))
        );

        // Clicked, evaluated...: the button's uid names it.
        let inside = uid_of(&snap, "Inside");
        h.call(2, evaluate(&inside));
        h.settle();
        assert!(h.reply(2).unwrap().is_ok());
        // Looked up once per world: a new snapshot asks nothing.
        h.fake.set_page(10, "main", "https://a.test/", page);
        snapshot(&mut h, 3, false);
        let describe = h.fake.sent(10, "DOM.describeNode");
        assert_eq!(
            describe
                .iter()
                .filter(|d| d.get("pierce").is_some())
                .count(),
            2,
            "no host looked up twice"
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
        h.call(1, TakeSnapshot::whole(10));
        h.settle();
        assert_eq!(h.reply(1).unwrap().unwrap_err().code, ErrorCode::Dialog);
    }
}
