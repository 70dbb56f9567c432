//! Cross-site iframes: the tab's child debugging sessions.
//!
//! A cross-site iframe runs in a renderer of its own (an out-of-process frame), out of
//! reach of the tab's session: its document, contexts and input have a debugging
//! session of their own. On attach, the tab's session asks Chrome to attach to every
//! such frame as it appears, and to those already there (`Target.setAutoAttach`,
//! flat). Each `Target.attachedToTarget` of an `iframe` target is noted in the tab's
//! [`Attachment`](super::tab::Attachment) (session, frame, URL), asked in turn to
//! auto-attach (a cross-site frame nested in another attaches to its parent frame's
//! session, not the tab's) and given the Page and Runtime domains; any other target
//! (a worker) is let go at once. `Target.detachedFromTarget` forgets one, with those
//! nested in it; all go with the tab's own session (a detach, an idle detach, the tab
//! closing), and a new attach finds them again.
//!
//! The rule that keeps this safe: an event from a child session never reaches the
//! tab's document state or its waits. A cross-site frame navigating, or its contexts
//! being created, destroyed or cleared, updates that frame's own record only, so the
//! tab's document, its kit and its uids stay as they were. A dialog the frame opens
//! is reported (and answered) in the tab's own session, as the page's are (Chrome
//! 156), so the frame's own report of it is not needed. Console messages and network
//! requests of the frame are not collected.
//!
//! Snapshots walk each frame in tabwire's world in its own session and splice the
//! walk under its `<iframe>` line (`super::snapshot`); the uids it gives carry the
//! session in their [`FrameKey`](super::uids::FrameKey), so input tools send their
//! DOM and mouse commands to that session, at the frame's own coordinates (a file
//! chooser the frame opens is reported there too), while keys go to the tab (the
//! focused frame gets them), and `get_css_styles` reads an element's rules in the
//! frame's session (`super::css`). Two things happen at the tab's coordinates, found by
//! adding up the `<iframe>` boxes the frame is nested in ([`Frames::viewport`]): an
//! element screenshot's clip, and a drag (Chrome reports an HTML5 drag to the tab's
//! session only). The page's scripts cannot reach the frame's renderer, nor a drag
//! go from one frame to another: those refuse with what to do instead. The frame's
//! worlds are tracked from its session's context events, and forgotten with it, as
//! are its WebMCP tools (`super::webmcp`: the domain is per renderer, so a frame's
//! tools are reported, and run, in its session).
//!
//! [`Frames`] does this work over borrowed parts (the browser, the tabs' state, their
//! signals), made by the engine for the event or call at hand. It decides what is to
//! be done with a new child session ([`NewChild`]) and returns what agents are to be
//! told; the engine (`super::session`) prepares or lets go of the session in the
//! background, and posts the news. Which object groups reached a child session is
//! noted here too ([`note_group_in`], [`take_group`]), for the engine to release them
//! there.

use tabwire_shared::{Event, TabId};

use futures::future::join_all;

use super::session::send_in;
use super::tab::{ChildSession, Tabs, MAX_CHILD_SESSIONS};
use super::webmcp_events;
use crate::cdp::dom::DomGetFrameOwner;
use crate::cdp::events::Incoming;
use crate::cdp::input::{DomGetBoxModel, Rect};
use crate::cdp::target::{AttachedToTarget, TargetDetachFromTarget, TargetSetAutoAttach};
use crate::cdp::webmcp::WebMcpEnable;
use crate::cdp::{PageEnable, PageEvent, PageGetFrameTree, RuntimeEnable};
use crate::chrome::Chrome;
use crate::error::EngineError;
use crate::signals::{Signals, TabSignal};

/// The target type of a cross-site iframe.
const IFRAME: &str = "iframe";

/// How many object groups with objects in child sessions a tab keeps note of.
const MAX_NOTED_GROUPS: usize = 1_000;

/// How many frames' contexts one child session keeps.
const MAX_CONTEXTS: usize = 1_000;

/// The tab's child sessions as the core drives them: the browser to send to, the
/// tabs whose attachments record each child, and the signals that tell what runs in
/// a frame of its changes. Made by the engine for the event or call at hand
/// (`Engine::frames`); it holds nothing of its own. What agents are to be told comes
/// back as news, for the engine to post.
pub(super) struct Frames<'a, C> {
    /// The browser.
    pub(super) chrome: &'a C,
    /// The tabs, each attachment with its child sessions.
    pub(super) tabs: &'a Tabs,
    /// The tabs' signals, published to what waits on a frame.
    pub(super) signals: &'a Signals,
}

/// What is to be done about a child session Chrome attached us to.
#[derive(Debug)]
pub(super) enum NewChild {
    /// A cross-site frame, noted: [`Frames::prepare`] it.
    Noted(String),
    /// A worker, one too many frames, or a session we cannot place: [`Frames::let_go`]
    /// of it, through the session that told of it (`None`: the tab's own).
    Refused {
        /// The child session.
        session: String,
        /// The session that told of it.
        via: Option<String>,
    },
}

impl<C: Chrome> Frames<'_, C> {
    /// Enables the WebMCP domain in a cross-site frame's session; a failure (the
    /// frame gone, its renderer without the domain) leaves its tools unlisted. The
    /// news, if any, is the frame's tools now listed.
    pub(super) async fn enable_webmcp(&self, tab: TabId, session: &str) -> Option<Event> {
        let (enabled, tree) = futures::join!(
            send_in(self.chrome, tab, Some(session), &WebMcpEnable {}),
            send_in(self.chrome, tab, Some(session), &PageGetFrameTree {}),
        );
        if enabled.is_err() {
            return None;
        }
        let frame = tree.ok().map(|t| t.frame_tree.frame);
        webmcp_events::child_enabled(self.tabs, tab, session, frame)
    }

    /// Asks Chrome to attach us to the cross-site iframes of the tab (`session`:
    /// `None`), or of a cross-site iframe (its child session), now and as they come.
    pub(super) async fn attach_children(
        &self,
        tab: TabId,
        session: Option<&str>,
    ) -> Result<(), EngineError> {
        send_in(self.chrome, tab, session, &TargetSetAutoAttach::flat())
            .await
            .map(|_| ())
    }

    /// A child session ended: forgets it and those nested in it (their WebMCP tools
    /// too: the news, if any, tells the agents).
    pub(super) fn detached(&self, tab: TabId, session: &str) -> Option<Event> {
        let tools_gone = self
            .tabs
            .update(tab, |t| {
                let attachment = &mut t.attachment;
                let listed = |a: &super::tab::Attachment| -> usize {
                    (a.children.values())
                        .filter(|c| c.webmcp.enabled)
                        .map(|c| c.webmcp.tools.len())
                        .sum()
                };
                let before = listed(attachment);
                let gone = attachment.remove_child(session);
                attachment.worlds.forget_sessions(&gone);
                (before != listed(attachment), gone)
            })
            .unwrap_or_default();
        let (tools_gone, gone) = tools_gone;
        let news = if tools_gone {
            webmcp_events::changed_in(self.tabs, tab)
        } else {
            None
        };
        // What runs in a frame that went waits for it no more: its contexts are gone.
        for session in gone {
            let signal = TabSignal::InFrame {
                session,
                event: PageEvent::ContextsCleared,
            };
            self.signals.publish(tab, &signal);
        }
        news
    }

    /// Chrome attached us to a child session (`via`: the session that says so,
    /// `None` for the tab's own): a cross-site frame is noted, anything else is to be
    /// let go.
    pub(super) fn attached(
        &self,
        tab: TabId,
        via: Option<&str>,
        attached: AttachedToTarget,
    ) -> NewChild {
        let AttachedToTarget {
            session_id: session,
            target_info: target,
        } = attached;
        let noted = target.kind == IFRAME
            && self
                .tabs
                .update(tab, |t| {
                    let attachment = &mut t.attachment;
                    let known_via = via.is_none_or(|via| attachment.children.contains_key(via));
                    if !attachment.attached || !known_via {
                        return false;
                    }
                    // A frame that moved to another renderer: its old session is over.
                    if let Some(old) = attachment.child_for_frame(&target.target_id) {
                        let old = old.to_owned();
                        let gone = attachment.remove_child(&old);
                        attachment.worlds.forget_sessions(&gone);
                    }
                    let child = ChildSession {
                        frame_id: target.target_id.clone(),
                        parent: via.map(str::to_owned),
                        url: target.url.clone(),
                        ..ChildSession::default()
                    };
                    if !attachment.add_child(&session, child) {
                        return false;
                    }
                    // Attached again (after a detach): its uids are this session's.
                    let children = &t.attachment.children;
                    if let Some(document) = &mut t.document {
                        let ended = |old: &str| !children.contains_key(old);
                        document.rehome_frame(&target.target_id, &session, ended);
                    }
                    true
                })
                .unwrap_or(false);
        if noted {
            NewChild::Noted(session)
        } else {
            NewChild::Refused {
                session,
                via: via.map(str::to_owned),
            }
        }
    }

    /// Lets go of a child session we do not follow, through the session that told of
    /// it.
    pub(super) async fn let_go(&self, tab: TabId, via: Option<&str>, session: String) {
        let detach = TargetDetachFromTarget {
            session_id: session,
        };
        let _ = send_in(self.chrome, tab, via, &detach).await;
    }

    /// Enables what the engine reads in a new child session, and attaches to the
    /// cross-site frames nested in it. A session that ended meanwhile is let be. The
    /// news, if any, is the frame's WebMCP tools.
    pub(super) async fn prepare(&self, tab: TabId, session: &str) -> Option<Event> {
        let (nested, page, runtime) = futures::join!(
            self.attach_children(tab, Some(session)),
            send_in(self.chrome, tab, Some(session), &PageEnable {}),
            send_in(self.chrome, tab, Some(session), &RuntimeEnable {}),
        );
        let still_there = self
            .tabs
            .read(tab, |t| t.attachment.children.contains_key(session))
            .unwrap_or(false);
        if !still_there {
            return None;
        }
        // A frame that came after the page's WebMCP tools were asked for: its tools
        // are followed from the start, as the page's are.
        let news = if webmcp_events::enabled(self.tabs, tab) {
            self.enable_webmcp(tab, session).await
        } else {
            None
        };
        for (what, outcome) in [
            ("Target.setAutoAttach", nested.err()),
            ("Page.enable", page.err()),
            ("Runtime.enable", runtime.err()),
        ] {
            if let Some(error) = outcome {
                self.chrome.log(&format!(
                    "tabwire: {what} failed in a frame of tab {tab}: {error}"
                ));
            }
        }
        news
    }

    /// Where a cross-site frame's viewport is in the tab's viewport: the content box
    /// of its `<iframe>` (`DOM.getFrameOwner` and `DOM.getBoxModel` in the session of
    /// the frame it is in), moved by each frame it is nested in and cut to what that
    /// one shows (empty when scrolled out of it).
    pub(super) async fn viewport(&self, tab: TabId, session: &str) -> Result<Rect, EngineError> {
        // From the frame out to the page, bounded (nesting cannot loop, but a record
        // could be broken).
        let mut chain = Vec::new();
        let mut at = Some(session.to_owned());
        while let Some(current) = at.take() {
            let child = self
                .tabs
                .read(tab, |t| t.attachment.children.get(&current).cloned())
                .flatten()
                .filter(|_| chain.len() < MAX_CHILD_SESSIONS)
                .ok_or_else(|| {
                    EngineError::UnreadablePageData(
                        "the cross-site frame went away while it was measured".to_owned(),
                    )
                })?;
            at = child.parent.clone();
            chain.push(child);
        }
        let boxes = join_all(chain.iter().map(|child| async move {
            let parent = child.parent.as_deref();
            let owner = DomGetFrameOwner {
                frame_id: child.frame_id.clone(),
            };
            let owner = send_in(self.chrome, tab, parent, &owner)
                .await?
                .backend_node_id;
            let model = DomGetBoxModel {
                backend_node_id: owner,
            };
            let model = send_in(self.chrome, tab, parent, &model).await?;
            Rect::of_quad(&model.model.content).ok_or_else(|| {
                EngineError::UnreadablePageData("a frame's box could not be read".to_owned())
            })
        }))
        .await;
        let mut outer: Option<Rect> = None;
        for inner in boxes.into_iter().rev() {
            let inner = inner?;
            outer = Some(match outer {
                None => inner,
                Some(outer) => {
                    let moved = inner.offset(outer.x, outer.y);
                    // A frame scrolled out of its parent's view: nothing of it shows.
                    moved.intersect(&outer).unwrap_or(Rect {
                        width: 0.0,
                        height: 0.0,
                        ..moved
                    })
                }
            });
        }
        outer.ok_or_else(|| {
            EngineError::UnreadablePageData("the cross-site frame could not be placed".to_owned())
        })
    }

    /// An event from a child session: it updates that frame's record, never the
    /// tab's document or waits. The news, if any, is about the frame's WebMCP tools.
    pub(super) fn on_event(
        &self,
        tab: TabId,
        session: &str,
        incoming: Option<Incoming>,
    ) -> Option<Event> {
        let Some(Incoming::Page(event)) = incoming else {
            return None;
        };
        let known = self
            .tabs
            .update(tab, |t| {
                let child = t.attachment.children.get_mut(session)?;
                track_child(child, &event);
                t.attachment.worlds.track_in(Some(session), &event);
                Some(())
            })
            .flatten()
            .is_some();
        let news = if known {
            webmcp_events::track_child(self.tabs, tab, session, &event)
        } else {
            None
        };
        // What an upload acting in the frame waits for (its chooser is reported in
        // the frame's session; a drag is reported in the tab's), the style sheets the
        // frame's CSS domain announces to a reading of its element's styles, and the
        // answers of the frame's WebMCP tools (and its document going, which ends a
        // run of one).
        let awaited = matches!(
            event,
            PageEvent::FileChooserOpened { .. }
                | PageEvent::StyleSheetAdded(_)
                | PageEvent::WebMcpResponded { .. }
                | PageEvent::ContextsCleared
        );
        if known && awaited {
            let signal = TabSignal::InFrame {
                session: session.to_owned(),
                event,
            };
            self.signals.publish(tab, &signal);
        }
        news
    }
}

/// The tab's cross-site frames: each one's child session and record.
pub(super) fn cross_site_frames(tabs: &Tabs, tab: TabId) -> Vec<(String, ChildSession)> {
    tabs.read(tab, |t| {
        (t.attachment.children.iter())
            .map(|(session, child)| (session.clone(), child.clone()))
            .collect()
    })
    .unwrap_or_default()
}

/// Notes that `group` has objects in child session `session`, for the engine to
/// release them there too when it releases the group ([`take_group`]).
pub(super) fn note_group_in(tabs: &Tabs, tab: TabId, session: &str, group: &str) {
    tabs.update(tab, |t| {
        let groups = &mut t.attachment.groups_in_children;
        // Groups are released soon after they are made: this bound is never met
        // but by a bug, which then costs objects, not memory.
        if groups.len() < MAX_NOTED_GROUPS || groups.contains_key(group) {
            let sessions = groups.entry(group.to_owned()).or_default();
            sessions.insert(session.to_owned());
        }
    });
}

/// The child sessions `group` has objects in (see [`note_group_in`]), forgotten: the
/// group is being released, there too.
pub(super) fn take_group(tabs: &Tabs, tab: TabId, group: &str) -> Vec<String> {
    tabs.update(tab, |t| t.attachment.groups_in_children.remove(group))
        .flatten()
        .map(|sessions| sessions.into_iter().collect())
        .unwrap_or_default()
}

/// Keeps a child session's record in step with its page events.
fn track_child(child: &mut ChildSession, event: &PageEvent) {
    match event {
        PageEvent::FrameNavigated {
            frame_id,
            loader_id,
            url,
            ..
        } if *frame_id == child.frame_id => {
            if child.loader.as_ref() != Some(loader_id) {
                child.documents += 1;
                child.loader = Some(loader_id.clone());
            }
            child.url = url.clone();
        }
        PageEvent::ContextCreated {
            id,
            frame_id,
            is_default: true,
            ..
        } if child.contexts.len() < MAX_CONTEXTS || child.contexts.contains_key(frame_id) => {
            child.contexts.insert(frame_id.clone(), *id);
        }
        PageEvent::ContextDestroyed { id } => child.contexts.retain(|_, context| context != id),
        PageEvent::ContextsCleared => child.contexts.clear(),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::super::document::Kit;
    use super::super::fake::page::set_buttons;
    use super::super::fake::world::FakeNode;
    use super::super::fake::{commands, Answer, Harness};
    use serde_json::json;
    use tabwire_shared::{requests::*, InputAction, Navigation, Snapshot};

    /// Tab 10 with a cross-site iframe (session `S1`, frame `F1`) holding another
    /// (`S2`, frame `F2`), attached by a first command.
    fn page_with_frames() -> Harness {
        let mut h = Harness::new();
        h.fake
            .add_oopif(10, None, "S1", "F1", "https://other.test/frame");
        h.fake
            .add_oopif(10, Some("S1"), "S2", "F2", "https://third.test/inner");
        h.call(99, commands::evaluate_one(10, 1000));
        h.settle();
        assert!(h.reply(99).unwrap().is_ok());
        h
    }

    fn children(h: &Harness) -> Vec<(String, String, Option<String>)> {
        h.engine
            .tabs
            .read(10, |t| {
                (t.attachment.children.iter())
                    .map(|(s, c)| (s.clone(), c.frame_id.clone(), c.parent.clone()))
                    .collect()
            })
            .unwrap_or_default()
    }

    fn snapshot(h: &mut Harness, id: u64) -> Snapshot {
        h.call(id, TakeSnapshot::whole(10));
        h.settle();
        match h.reply_to::<TakeSnapshot>(id).expect("a reply") {
            Ok(snapshot) => snapshot,
            other => panic!("expected a snapshot, got {other:?}"),
        }
    }

    fn evaluate_with(uid: &str) -> Evaluate {
        Evaluate {
            tab_id: 10,
            function: "(el) => el.id".into(),
            args: vec![json!({ "uid": uid })],
            timeout_ms: 1000,
        }
    }

    /// Tab 10 whose page (backend 1, "App") shows a cross-site `<iframe>` (backend
    /// 2) the walker cannot enter: frame `F1`, session `S1`, holding a root (30) and
    /// a button "In" (31). Attached by a first command.
    fn page_with_a_walked_frame() -> Harness {
        let mut h = Harness::new();
        h.fake
            .add_oopif(10, None, "S1", "F1", "https://other.test/frame");
        h.fake.answer(
            "DOM.getFrameOwner",
            Answer::value(json!({"backendNodeId": 2})),
        );
        let iframe = FakeNode::shown(2, 1, "Iframe", "").with_state("frame-not-captured");
        let top = vec![FakeNode::shown(1, 0, "RootWebArea", "App"), iframe];
        h.fake.set_page(10, "main", "https://a.test/", top);
        let inner = vec![
            FakeNode::shown(30, 0, "RootWebArea", "Inner"),
            FakeNode::shown(31, 1, "button", "In"),
        ];
        h.fake.set_page(10, "F1", "https://other.test/frame", inner);
        // The frame's button at (10,10)-(30,30) of its 400x200 viewport.
        h.fake.answer_in(
            "S1",
            "DOM.getContentQuads",
            Answer::value(json!({"quads": [[10, 10, 30, 10, 30, 30, 10, 30]]})),
        );
        h.fake.answer_in(
            "S1",
            "Page.getLayoutMetrics",
            Answer::value(json!({
                "cssLayoutViewport": {"pageX": 0, "pageY": 0, "clientWidth": 400, "clientHeight": 200},
                "cssVisualViewport": {"pageX": 0, "pageY": 0},
                "cssContentSize": {"width": 400, "height": 200}})),
        );
        h.call(99, commands::evaluate_one(10, 1000));
        h.settle();
        assert!(h.reply(99).unwrap().is_ok());
        h
    }

    fn uid_of(snapshot: &Snapshot, name: &str) -> String {
        let node = snapshot.nodes.iter().find(|n| n.name == name);
        node.unwrap_or_else(|| panic!("no {name:?} in {snapshot:?}"))
            .uid
            .clone()
    }

    fn click(uid: &str) -> Input {
        Input {
            tab_id: 10,
            action: InputAction::Click {
                uid: uid.to_owned(),
                double: false,
            },
            timeout_ms: 5000,
        }
    }

    #[test]
    fn a_cross_site_frame_is_walked_in_its_session_and_spliced_under_its_iframe() {
        let mut h = page_with_a_walked_frame();
        let snap = snapshot(&mut h, 1);
        let shape: Vec<_> = (snap.nodes.iter())
            .map(|n| (n.depth, n.role.as_str(), n.name.as_str(), n.states.len()))
            .collect();
        assert_eq!(
            shape,
            vec![
                (0, "RootWebArea", "App", 0),
                (1, "Iframe", "", 0),
                (2, "RootWebArea", "Inner", 0),
                (3, "button", "In", 0)
            ]
        );
        // The frame's world is made and walked in its own session; its `<iframe>` is
        // found in the tab's.
        let created = h.fake.sent_in(10, Some("S1"), "Page.createIsolatedWorld");
        assert_eq!(
            created,
            vec![json!({"frameId": "F1", "worldName": "tabwire"})]
        );
        assert_eq!(
            h.fake.sent(10, "DOM.getFrameOwner"),
            vec![json!({"frameId": "F1"})]
        );
        let context = h.fake.world_context(10, "F1").expect("the frame's world");
        let walked_in_frame = (h.fake.sent_in(10, Some("S1"), "Runtime.callFunctionOn"))
            .iter()
            .any(|call| call["executionContextId"] == context);
        assert!(walked_in_frame);
        // Its uids act in its session.
        let button = uid_of(&snap, "In");
        h.call(2, click(&button));
        h.settle();
        h.advance(1_000);
        assert!(matches!(h.reply(2), Some(Ok(_))), "{:?}", h.reply(2));
        let pressed = h.fake.sent_in(10, Some("S1"), "Input.dispatchMouseEvent");
        assert!(
            pressed.iter().any(|e| e["type"] == "mousePressed"),
            "{pressed:?}"
        );
        // The objects the click made in the frame's session are released there, as
        // the page's are in the tab's.
        let resolved = (h.fake.sent_in(10, Some("S1"), "Runtime.callFunctionOn"))
            .into_iter()
            .filter_map(|call| call["objectGroup"].as_str().map(str::to_owned))
            .filter(|group| !group.is_empty())
            .collect::<Vec<_>>();
        assert!(!resolved.is_empty());
        let released = h.fake.sent_in(10, Some("S1"), "Runtime.releaseObjectGroup");
        for group in &resolved {
            assert!(
                released.iter().any(|r| r["objectGroup"] == group.as_str()),
                "{group} kept: {released:?}"
            );
        }
        let noted = h
            .engine
            .tabs
            .read(10, |t| t.attachment.groups_in_children.len());
        assert_eq!(noted, Some(0));
    }

    #[test]
    fn cross_site_frames_attach_through_the_tab_and_nested_ones_through_their_parent() {
        let h = page_with_frames();
        let flat = json!({"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true});
        assert_eq!(h.fake.sent(10, "Target.setAutoAttach"), vec![flat.clone()]);
        assert_eq!(
            children(&h),
            vec![
                ("S1".into(), "F1".into(), None),
                ("S2".into(), "F2".into(), Some("S1".into()))
            ]
        );
        for session in ["S1", "S2"] {
            let sent = h.fake.methods_in(10, Some(session));
            for method in ["Target.setAutoAttach", "Page.enable", "Runtime.enable"] {
                assert_eq!(
                    sent.iter().filter(|m| *m == method).count(),
                    1,
                    "{method} in {session}: {sent:?}"
                );
            }
            let nested = h.fake.sent_in(10, Some(session), "Target.setAutoAttach");
            assert_eq!(nested, vec![flat.clone()]);
        }
        let url = h
            .engine
            .tabs
            .read(10, |t| t.attachment.children["S1"].url.clone());
        assert_eq!(url.as_deref(), Some("https://other.test/frame"));
    }

    #[test]
    fn other_targets_and_sessions_we_cannot_place_are_let_go() {
        let mut h = page_with_frames();
        let worker = json!({"sessionId": "W", "targetInfo": {"targetId": "T", "type": "worker", "url": "https://a.test/w.js"}});
        h.fake
            .emit(10, None, "Target.attachedToTarget", worker.clone());
        let orphan = json!({"sessionId": "O", "targetInfo": {"targetId": "FO", "type": "iframe", "url": ""}});
        h.fake
            .emit(10, Some("unknown"), "Target.attachedToTarget", orphan);
        h.settle();
        assert_eq!(
            h.fake.sent(10, "Target.detachFromTarget"),
            vec![json!({"sessionId": "W"})]
        );
        assert_eq!(children(&h).len(), 2, "{:?}", children(&h));
    }

    #[test]
    fn a_frame_that_goes_away_is_forgotten_with_those_nested_in_it() {
        let mut h = page_with_frames();
        h.fake.remove_oopif("S1");
        h.settle();
        assert!(children(&h).is_empty());
        // Events of a session that ended are ignored.
        h.fake.emit(
            10,
            Some("S1"),
            "Page.frameNavigated",
            json!({"frame": {"id": "F1", "loaderId": "X9", "url": "https://other.test/"}}),
        );
        h.settle();
        assert!(children(&h).is_empty());
    }

    #[test]
    fn child_sessions_go_with_the_tabs_session_and_come_back_with_the_next() {
        let mut h = page_with_frames();
        h.fake.detach_externally(10);
        h.engine.on_debugger_detached(10, "canceled_by_user");
        assert!(children(&h).is_empty());
        h.call(1, commands::evaluate_one(10, 1000));
        h.settle();
        assert!(h.reply(1).unwrap().is_ok());
        assert_eq!(children(&h).len(), 2);
        assert!(h.fake.child_attached("S2"));
        h.engine.on_tab_removed(10);
        assert!(children(&h).is_empty());
    }

    #[test]
    fn an_idle_detach_lets_go_of_the_frames_too() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.share("k1", 10);
        h.fake
            .add_oopif(10, None, "S1", "F1", "https://other.test/frame");
        h.call(1, commands::evaluate_one(10, 1000));
        h.settle();
        assert_eq!(children(&h).len(), 1);
        h.advance(10 * 60 * 1000);
        assert!(!h.fake.is_attached(10), "let go after the idle time");
        assert!(children(&h).is_empty());
        assert!(!h.fake.child_attached("S1"));
    }

    /// The frame's world outlives the debugger's session, as the page's do: after
    /// an idle detach its uids act in the frame's new session.
    #[test]
    fn a_frames_uids_survive_an_idle_detach() {
        let mut h = page_with_a_walked_frame();
        let button = uid_of(&snapshot(&mut h, 1), "In");
        // What an idle detach does, and Chrome naming the frame's session anew.
        h.engine.tabs.update(10, |t| t.pause_session());
        h.fake.detach_externally(10);
        h.fake.rename_oopif_session("S1", "S9");
        for method in ["DOM.getContentQuads", "Page.getLayoutMetrics"] {
            let answer = h.fake.answers_in("S1", method).expect("answered in S1");
            h.fake.answer_in("S9", method, answer);
        }
        // The next command attaches again, and the frame with it (Chrome reports the
        // frames already there before it answers `Target.setAutoAttach`).
        h.call(4, commands::evaluate_one(10, 1000));
        h.settle();
        assert!(h.fake.child_attached("S9"));
        h.call(2, click(&button));
        h.settle();
        h.advance(1_000);
        assert!(matches!(h.reply(2), Some(Ok(_))), "{:?}", h.reply(2));
        let pressed = h.fake.sent_in(10, Some("S9"), "Input.dispatchMouseEvent");
        assert!(
            pressed.iter().any(|e| e["type"] == "mousePressed"),
            "{pressed:?}"
        );
        // The walk the document kept is the new session's too: unchanged, not walked.
        let before = h.fake.takes(10).len();
        let again = snapshot(&mut h, 3);
        assert_eq!(uid_of(&again, "In"), button);
        let takes = h.fake.takes(10);
        assert!(
            takes[before..].iter().all(|t| t.since.is_some()),
            "{takes:?}"
        );
    }

    /// The main risk of child sessions: a cross-site frame's own navigation and
    /// contexts arrive like the page's, and must not be taken for them.
    #[test]
    fn a_cross_site_frame_navigating_itself_leaves_the_tabs_document_and_uids_alone() {
        let mut h = page_with_frames();
        set_buttons(&h, &[(5, "Save")]);
        let save = snapshot(&mut h, 1)
            .nodes
            .into_iter()
            .find(|n| n.name == "Save")
            .expect("the button")
            .uid;
        // The page's main world is context 1; the frame's renderer numbers its own
        // contexts, from 1 too.
        h.engine.on_cdp_event(
            10,
            "Runtime.executionContextCreated",
            &json!({"context": {"id": 1, "auxData": {"frameId": "main", "isDefault": true}}}),
        );
        let kit = Kit {
            object_id: "kit".into(),
            window_id: "global".into(),
            object_group: "g".into(),
            context: Some(1),
        };
        h.engine
            .documents()
            .with(10, |d| d.kit = Some(kit.clone()))
            .expect("a document");
        let token = h.engine.documents().known(10).expect("known").0;
        // Everything a frame's own navigation brings, as its session reports it: its
        // frame looks like a main frame there (no parent in its renderer).
        for (method, params) in [
            (
                "Page.frameStartedNavigating",
                json!({"frameId": "F1", "navigationType": "differentDocument"}),
            ),
            (
                "Runtime.executionContextDestroyed",
                json!({"executionContextId": 1}),
            ),
            ("Runtime.executionContextsCleared", json!({})),
            (
                "Page.frameNavigated",
                json!({"frame": {"id": "F1", "loaderId": "X2", "url": "https://other.test/next"}, "type": "Navigation"}),
            ),
            (
                "Runtime.executionContextCreated",
                json!({"context": {"id": 2, "auxData": {"frameId": "F1", "isDefault": true}}}),
            ),
            ("Page.loadEventFired", json!({})),
        ] {
            h.fake.emit(10, Some("S1"), method, params);
        }
        h.settle();
        assert_eq!(h.engine.documents().known(10).map(|d| d.0), Some(token));
        assert_eq!(h.engine.documents().main_world(10, "main"), Some(1));
        assert_eq!(
            h.engine.documents().with(10, |d| d.kit.clone()).flatten(),
            Some(kit),
            "the page's kit is still good"
        );
        let frame = h
            .engine
            .tabs
            .read(10, |t| t.attachment.children["S1"].clone())
            .expect("the tab");
        assert_eq!(frame.url, "https://other.test/next");
        assert_eq!(frame.loader.as_deref(), Some("X2"));
        assert_eq!(frame.documents, 1);
        assert_eq!(frame.contexts.get("F1"), Some(&2));
        h.call(2, evaluate_with(&save));
        h.settle();
        assert!(h.reply(2).unwrap().is_ok(), "the page's uid still holds");
    }

    #[test]
    fn a_frames_load_does_not_end_the_pages_wait() {
        let mut h = page_with_frames();
        h.fake.manual_loads();
        let navigate = Navigate {
            tab_id: 10,
            to: Navigation::Url {
                url: "https://d.test/".into(),
            },
            timeout_ms: 5000,
        };
        h.call(1, navigate);
        h.settle();
        h.fake.set_url(10, "https://d.test/");
        for (method, params) in [
            (
                "Page.frameNavigated",
                json!({"frame": {"id": "F1", "loaderId": "L1", "url": "https://other.test/"}, "type": "Navigation"}),
            ),
            ("Page.loadEventFired", json!({})),
        ] {
            h.fake.emit(10, Some("S1"), method, params);
        }
        h.settle();
        assert!(h.reply(1).is_none(), "the frame's load is not the page's");
        h.engine.on_cdp_event(
            10,
            "Page.frameNavigated",
            &json!({"frame": {"id": "main", "loaderId": "L1", "url": "https://d.test/"}, "type": "Navigation"}),
        );
        h.engine.on_cdp_event(10, "Page.loadEventFired", &json!({}));
        h.settle();
        assert!(matches!(h.reply_to::<Navigate>(1), Some(Ok(_))));
    }

    #[test]
    fn a_frames_own_report_of_a_dialog_is_left_to_the_tabs() {
        let mut h = page_with_frames();
        h.fake.emit(
            10,
            Some("S2"),
            "Page.javascriptDialogOpening",
            json!({"type": "confirm", "message": "sure?"}),
        );
        h.settle();
        assert!(h.engine.open_dialog(10).is_none());
    }
}
