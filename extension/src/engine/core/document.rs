//! What the engine knows about the document a tab shows: where its uids come from,
//! its pinned elements, its frames' last walks, its [`Kit`] (which holds the
//! third-party tool registry), and its frames' JavaScript contexts; and the way from
//! a uid to the DOM node it names.
//!
//! A [`Document`] is keyed by the main frame's loader id. It is dropped the moment the
//! main frame commits another document (`Page.frameNavigated`), when the debugger
//! detaches or the tab closes; commands that use it first [`sync`](Documents::sync)
//! it against `Page.getFrameTree`, so a navigation whose event was missed is noticed
//! too (a tool run is the exception: it runs from the kit, whose objects Chrome only
//! knows in their own document). Dropping it is what makes old uids stale and old tool discoveries
//! [`StaleTools`](crate::EngineError::StaleTools): nothing else needs cleaning, as the
//! page objects it referred to died with their document.
//!
//! A uid names a node through the isolated world that gave it out (see
//! [`uids`](super::uids) and [`world`](super::world)): [`node_for_uid`](Documents::node_for_uid)
//! asks that world's walker for the node and Chrome for the node's backend id, which
//! the DOM and input commands take.
//!
//! [`Documents`] is that state as the core reaches it: made by the engine for the call
//! or event at hand over the browser, the tabs' state and the count of documents, all
//! borrowed. It keeps documents in step with the page's events and frame tree, and
//! finds a uid's node; what it drops that needs releasing (a kit's objects) it says,
//! for the caller to release.
//!
//! The kit is made once per document, on first use, and forgotten with the document,
//! when its JavaScript context is destroyed or cleared, and when Chrome no longer knows
//! its objects ([`drop_kit`](Documents::drop_kit)); the next use makes a new one.

use std::cell::Cell;
use std::collections::HashMap;

use tabwire_shared::{TabId, WalkOptions};

use super::oopif;
use super::session::{send_in, send_watched_in};
use super::state::walk::Walk;
use super::tab::Tabs;
use super::uids::{FrameKey, Pins, UidIndex};
use super::world::{WalkerCall, Walkers};
use crate::cdp::dom::DomDescribeNode;
use crate::cdp::{FrameTree, PageEvent, PageGetFrameTree};
use crate::chrome::Chrome;
use crate::error::EngineError;
use crate::signals::Subscription;

/// A frame's last walk, and the world context that walked it (another context is
/// another walker, whose generations mean nothing to this one).
#[derive(Debug, Clone)]
pub struct KeptWalk {
    /// The world's context.
    pub context: i64,
    /// The walk.
    pub walk: Walk,
}

/// One document of one tab.
#[derive(Debug)]
pub struct Document {
    /// The main frame's id.
    pub frame_id: String,
    /// The main frame's loader: which document this is.
    pub loader: String,
    /// Names this document in tool discoveries ([`tabwire_shared::Discovery::document`]).
    pub token: String,
    /// Which frame's world gave out each uid of this document.
    pub uids: UidIndex,
    /// The uids of elements third-party tools returned, shown in every snapshot.
    pub pins: Pins,
    /// Each frame's last walk, by options: an unchanged frame is not walked again.
    pub walks: HashMap<(FrameKey, WalkOptions), KeptWalk>,
    /// The main frame's URL when last looked at (its origin is the document's).
    pub url: String,
    /// tabwire's private page-side object in this document, once made.
    pub kit: Option<Kit>,
    /// Whether the last tool discovery found tools (the kit's registry holds them).
    pub tools: bool,
    /// A tool discovery timed out in this document: automatic discoveries skip it.
    pub discovery_timed_out: bool,
}

/// A DOM node a uid names: its backend id, in the CDP session that holds its frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeRef {
    /// The child session of a cross-site frame; `None` for the tab's own session.
    pub session: Option<String>,
    /// The node's backend id.
    pub backend: i64,
}

/// A document's kit: tabwire's page-side object holding tool discovery, the tool
/// runner and the registry of the last discovery (see `page/kit.js`). Only CDP can
/// reach it: no page object refers to it.
#[derive(Debug, Clone, PartialEq)]
pub struct Kit {
    /// The kit's remote object id.
    pub object_id: String,
    /// The page's global object (whose listeners discovery looks at).
    pub window_id: String,
    /// The object group that keeps both alive.
    pub object_group: String,
    /// The JavaScript context both live in, if Chrome announced it.
    pub context: Option<i64>,
}

impl Document {
    /// A cross-site frame was attached again under child session `session`: what
    /// the document learnt of its world under a session that `ended` (its uids, its
    /// last walks) holds under the new one.
    pub fn rehome_frame(&mut self, frame: &str, session: &str, ended: impl Fn(&str) -> bool) {
        let moved = self.uids.rehome(frame, session, ended);
        if moved.is_empty() {
            return;
        }
        self.walks = std::mem::take(&mut self.walks)
            .into_iter()
            .map(|((mut key, options), walk)| {
                if key.session.as_ref().is_some_and(|s| moved.contains(s)) {
                    key.session = Some(session.to_owned());
                }
                ((key, options), walk)
            })
            .collect();
    }
}

/// The tabs' documents as the core reaches them: the browser to ask, the tabs whose
/// state holds each document, and the count that names new ones. Made by the engine
/// for the call or event at hand (`Engine::documents`); it holds nothing of its own.
pub(super) struct Documents<'a, C> {
    /// The browser.
    pub(super) chrome: &'a C,
    /// The tabs, each with its document.
    pub(super) tabs: &'a Tabs,
    /// Counts documents seen, to name tool discoveries (saved across restarts).
    pub(super) made: &'a Cell<u64>,
}

impl<C: Chrome> Documents<'_, C> {
    /// Brings the tab's document state up to date with its main frame: a different
    /// loader means a new document, whose state starts empty. Returns the frame tree.
    pub(super) async fn sync(
        &self,
        tab: TabId,
        watch: &mut Subscription,
    ) -> Result<FrameTree, EngineError> {
        let get = PageGetFrameTree {};
        let tree = send_watched_in(self.chrome, tab, None, watch, &get).await?;
        self.adopt_frame_tree(tab, &tree.frame_tree);
        Ok(tree.frame_tree)
    }

    /// The state half of [`sync`](Self::sync), for a frame tree fetched along with
    /// other commands.
    pub(super) fn adopt_frame_tree(&self, tab: TabId, tree: &FrameTree) {
        let frame = &tree.frame;
        let url = frame.full_url();
        self.tabs.write(tab, |t| {
            let current = t
                .document
                .as_ref()
                .is_some_and(|d| d.loader == frame.loader_id);
            if !current {
                let n = self.made.get() + 1;
                self.made.set(n);
                t.document = Some(Document {
                    frame_id: frame.id.clone(),
                    loader: frame.loader_id.clone(),
                    token: format!("{}.{n}", frame.loader_id),
                    uids: UidIndex::default(),
                    pins: Pins::default(),
                    walks: HashMap::new(),
                    url,
                    kit: None,
                    tools: false,
                    discovery_timed_out: false,
                });
            } else if let Some(document) = &mut t.document {
                document.url = url;
            }
        });
    }

    /// The token and URL of the tab's document, if the debugger is attached and the
    /// document known: what is known without asking Chrome.
    pub(super) fn known(&self, tab: TabId) -> Option<(String, String)> {
        self.tabs
            .read(tab, |t| {
                let document = t.document.as_ref().filter(|_| t.attachment.attached)?;
                Some((document.token.clone(), document.url.clone()))
            })
            .flatten()
    }

    /// Forgets the tab's kit if it is still `kit` (Chrome no longer knows its
    /// objects): true if it did, and what may be left of the kit's objects is for the
    /// caller to release.
    pub(super) fn drop_kit(&self, tab: TabId, kit: &Kit) -> bool {
        self.with(tab, |d| {
            let current = d.kit.as_ref() == Some(kit);
            if current {
                d.kit = None;
            }
            current
        })
        .unwrap_or(false)
    }

    /// Runs `f` on the tab's document state (after [`sync`](Self::sync)).
    pub(super) fn with<T>(&self, tab: TabId, f: impl FnOnce(&mut Document) -> T) -> Option<T> {
        self.tabs
            .update(tab, |t| t.document.as_mut().map(f))
            .flatten()
    }

    /// The DOM node a uid names in the tab's current document, asked of the world that
    /// gave the uid out; the objects this makes are kept in `group`. A uid of another
    /// document, or whose node left the page, is [`EngineError::StaleUid`].
    pub(super) async fn node_for_uid(
        &self,
        tab: TabId,
        uid: &str,
        group: &str,
    ) -> Result<NodeRef, EngineError> {
        let stale = || EngineError::StaleUid(uid.to_owned());
        let frame = self
            .with(tab, |d| d.uids.frame_of(uid).cloned())
            .flatten()
            .ok_or_else(stale)?;
        if let Some(session) = &frame.session {
            oopif::note_group_in(self.tabs, tab, session, group);
        }
        let walkers = Walkers {
            chrome: self.chrome,
            tabs: self.tabs,
        };
        let resolve = |_| WalkerCall::Resolve(uid.to_owned());
        let object = match walkers.call(tab, &frame, resolve, group).await {
            Ok((_, found)) => found.object_id.ok_or_else(stale)?,
            // The frame is gone, and its world with it.
            Err(EngineError::Cdp { .. }) => return Err(stale()),
            Err(other) => return Err(other),
        };
        let describe = DomDescribeNode {
            backend_node_id: None,
            object_id: Some(object),
        };
        let session = frame.session.as_deref();
        match send_in(self.chrome, tab, session, &describe).await {
            Ok(described) => Ok(NodeRef {
                session: frame.session,
                backend: described.node.backend_node_id,
            }),
            Err(EngineError::Cdp { .. }) => Err(stale()),
            Err(other) => Err(other),
        }
    }

    /// The id of a frame's main-world JavaScript context, if Chrome announced it.
    pub(super) fn main_world(&self, tab: TabId, frame: &str) -> Option<i64> {
        self.tabs
            .read(tab, |t| t.attachment.contexts.get(frame).copied())
            .flatten()
    }

    /// Keeps document and context state in step with the page's events.
    pub(super) fn track(&self, tab: TabId, event: &PageEvent) {
        self.tabs.write(tab, |t| t.attachment.worlds.track(event));
        self.tabs.write(tab, |t| match event {
            PageEvent::FrameNavigated {
                is_main: true,
                loader_id,
                ..
            } if t.document.as_ref().is_some_and(|d| d.loader != *loader_id) => {
                t.document = None;
            }
            PageEvent::ContextCreated {
                id,
                frame_id,
                is_default: true,
                ..
            } => {
                let contexts = &mut t.attachment.contexts;
                // A page with thousands of frames is not worth tracking in full.
                if contexts.len() < 1_000 || contexts.contains_key(frame_id) {
                    contexts.insert(frame_id.clone(), *id);
                }
            }
            PageEvent::ContextDestroyed { id } => {
                t.attachment.contexts.retain(|_, context| context != id);
                if let Some(document) = &mut t.document {
                    if document
                        .kit
                        .as_ref()
                        .is_some_and(|k| k.context == Some(*id))
                    {
                        document.kit = None;
                    }
                }
            }
            PageEvent::ContextsCleared => {
                t.attachment.contexts.clear();
                if let Some(document) = &mut t.document {
                    document.kit = None;
                }
            }
            _ => {}
        });
    }
}
