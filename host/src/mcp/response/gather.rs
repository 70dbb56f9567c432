//! The one step of a reply that talks to the browser: fetching what the markers ask
//! for, and reading what the session knows of the page, into a plain [`Gathered`].

use std::ops::Range;
use std::sync::Arc;

use tabwire_shared::{DialogInfo, Discovery, Emulation, Snapshot, SnapshotNode, TabId, TabInfo};

use super::{Response, SnapshotRequest, ThirdParty};
use crate::mcp::context::ToolContext;
use crate::mcp::snapshot::memory::Base;
use crate::mcp::snapshot::subtree;
use crate::mcp::ToolError;

/// Everything a reply shows beyond the handler's own markers, fetched before any of it
/// is written.
#[derive(Debug, Default, Clone)]
pub struct Gathered {
    /// The page the reply is about (the call's, else the selected one), if any.
    pub page: Option<TabId>,
    /// The page selected once everything was fetched.
    pub selected: Option<TabId>,
    /// The dialog open on [`Gathered::page`].
    pub dialog: Option<DialogInfo>,
    /// The element the user pointed at for the agent since the last reply.
    pub pointed: Option<crate::mcp::context::Pointed>,
    /// What [`Gathered::page`] emulates.
    pub emulation: Option<Emulation>,
    /// The open pages, when asked for.
    pub pages: Option<Vec<TabInfo>>,
    /// The third-party tools to show, and the page offering them.
    pub third_party: Option<(TabId, Arc<Discovery>)>,
    /// Why looking for third-party tools failed (best effort: a note, not an error).
    pub third_party_failure: Option<String>,
    /// The snapshot asked for.
    pub snapshot: Option<GatheredSnapshot>,
}

/// A snapshot fetched for a reply, with what it is compared with.
#[derive(Debug, Clone)]
pub struct GatheredSnapshot {
    /// Its page.
    pub page: TabId,
    /// The number the reply names it by.
    pub number: u64,
    /// The tree.
    pub snapshot: Arc<Snapshot>,
    /// The last whole snapshot of the page, when the changes since it are wanted.
    pub since: Option<Base>,
    /// Where in the tree the nodes the request asks for lie: the subtree of its uid,
    /// else the whole tree. Found once, when the snapshot is gathered.
    pub asked: Range<usize>,
}

impl GatheredSnapshot {
    /// A snapshot gathered for a reply that asks for the subtree of `uid` (the whole
    /// tree without one); an error the agent reads when no node has that uid.
    pub fn new(
        page: TabId,
        number: u64,
        snapshot: Arc<Snapshot>,
        since: Option<Base>,
        uid: Option<&str>,
    ) -> Result<Self, ToolError> {
        let asked = match uid {
            None => 0..snapshot.nodes.len(),
            Some(uid) => subtree::range(&snapshot.nodes, uid)
                .ok_or_else(|| ToolError::new(subtree::unknown_uid(uid)))?,
        };
        Ok(Self {
            page,
            number,
            snapshot,
            since,
            asked,
        })
    }

    /// The nodes the request asks for.
    pub fn asked_nodes(&self) -> &[SnapshotNode] {
        &self.snapshot.nodes[self.asked.clone()]
    }
}

/// Fetches what the markers ask for. A failure to fetch something asked for is an
/// error (unless the handler already failed); best-effort extras become notes.
pub(super) async fn gather(
    response: &Response,
    ctx: &ToolContext,
    error: &mut Option<ToolError>,
) -> Gathered {
    let mut gathered = Gathered::default();
    let pages = async {
        if response.include_pages {
            Some(ctx.list_tabs().await)
        } else {
            None
        }
    };
    let third_party = async {
        match &response.third_party {
            ThirdParty::No => None,
            ThirdParty::Found(discovery) => {
                let page = ctx.resolved_page().or_else(|| ctx.selected())?;
                Some(Ok((page, discovery.clone())))
            }
            ThirdParty::BestEffort => {
                ctx.settings().third_party.as_ref()?;
                Some(discover_on_selected_page(ctx).await)
            }
        }
    };
    let (pages, third_party) = tokio::join!(pages, third_party);
    match pages {
        Some(Ok(pages)) => gathered.pages = Some(pages),
        Some(Err(e)) => {
            error.get_or_insert(e);
        }
        None => {}
    }
    match third_party {
        Some(Ok(found)) => gathered.third_party = Some(found),
        Some(Err(e)) => gathered.third_party_failure = Some(e.message),
        None => {}
    }
    // The snapshot comes last: it must see the page after everything else.
    if let Some(request) = &response.snapshot {
        match snapshot_of_page(ctx, request).await {
            Ok(found) => gathered.snapshot = Some(found),
            Err(e) => {
                error.get_or_insert(e);
            }
        }
    }
    // What the session knows, read once everything above has happened.
    gathered.page = ctx.resolved_page().or_else(|| ctx.selected());
    if let Some(page) = gathered.page {
        gathered.dialog = ctx.dialog(page);
        gathered.emulation = ctx.emulation(page);
    }
    gathered.selected = ctx.selected();
    gathered.pointed = ctx.take_pointed();
    gathered
}

/// The page an extra section is about, and the lock on it when the pipeline did not
/// already take one (tools that are not page-scoped run unlocked).
async fn page_for_extras(
    ctx: &ToolContext,
) -> Result<(TabId, Option<tokio::sync::OwnedMutexGuard<()>>), ToolError> {
    match ctx.resolved_page() {
        Some(page) => Ok((page, None)),
        None => {
            let page = ctx.default_page().await?;
            let guard = ctx.page_lock(page).lock_owned().await;
            Ok((page, Some(guard)))
        }
    }
}

async fn discover_on_selected_page(
    ctx: &ToolContext,
) -> Result<(TabId, Arc<Discovery>), ToolError> {
    let (page, _guard) = page_for_extras(ctx).await?;
    Ok((page, ctx.discover_tools_automatically(page).await?))
}

async fn snapshot_of_page(
    ctx: &ToolContext,
    request: &SnapshotRequest,
) -> Result<GatheredSnapshot, ToolError> {
    let (page, _guard) = page_for_extras(ctx).await?;
    let snapshot = ctx.snapshot(page, request.walk).await?;
    let memory = ctx.snapshots();
    let number = memory.number();
    let since = request.view.changes.then(|| memory.base(page)).flatten();
    GatheredSnapshot::new(
        page,
        number,
        Arc::new(snapshot),
        since,
        request.view.uid.as_deref(),
    )
}
