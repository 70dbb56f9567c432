//! `GetCssStyles`: the CSS rules that apply to one element, with the cascade worked
//! out ([`cascade`]).
//!
//! The CSS domain is switched on for the call only, and off again after it: while on,
//! Chrome reports every style sheet change to us (a page that builds its styles with
//! `insertRule` would send a stream of events through the debugger for nothing), and
//! turning it on costs one announcement per style sheet, which is what the call needs
//! anyway (`CSS.styleSheetAdded` says where each sheet comes from). The DOM domain is
//! already on (the overlay needs it); the CSS domain names elements by DOM node id,
//! which `DOM.getDocument` and `DOM.requestNode` give.
//!
//! The element is found through tabwire's world, as every uid is; a text node's uid
//! stands for its parent element. The selectors of the element and of its ancestors
//! (which the inherited styles belong to) are read there too, from the flat tree,
//! which is the tree Chrome walks for inheritance.
//!
//! An element of a cross-site frame is read in the frame's own debugging session
//! (`super::oopif`), where its document, style sheets and world are: the CSS and DOM
//! domains are switched on there for the call (a child session has no DOM domain on
//! otherwise), and its `CSS.styleSheetAdded` announcements reach the call as the
//! frame's signals.

mod at_rules;
mod cascade;
mod inherited;
mod named;

use std::collections::HashMap;

use tabwire_shared::css::CssStyles;
use tabwire_shared::TabId;

use super::input::element;
use super::uids::FrameKey;
use crate::cdp::css::{
    CssDisable, CssEnable, CssGetMatchedStyles, DomGetDocument, DomRequestNode, StyleSheetHeader,
};
use crate::cdp::dom::{DomDisable, DomEnable, DomResolveNode};
use crate::cdp::world::RuntimeCallFunctionIn;
use crate::cdp::{CallArgument, PageEvent};
use crate::chrome::Chrome;
use crate::engine::context::Cx;
use crate::error::EngineError;
use crate::signals::{Subscription, TabSignal};
use named::{name_elements, query_containers};

/// How long reading an element's styles may take.
const CSS_LIMIT_MS: u64 = 10_000;

/// The most ancestors whose selectors are read (Chrome's inherited list is as long as
/// the element is deep).
const MAX_LINEAGE: usize = 256;

/// The element a node stands for: itself, or a text node's parent.
const ENCLOSING_ELEMENT: &str =
    "function (node) { return node.nodeType === 1 ? node : node.parentElement; }";

/// The ancestor `depth` levels up the flat tree from an element (null past the top).
const ANCESTOR_AT: &str = r#"function (element, depth) {
  let e = element;
  for (let i = 0; i < depth && e; i++) {
    if (e.assignedSlot) { e = e.assignedSlot; continue; }
    const p = e.parentNode;
    e = p instanceof ShadowRoot ? p.host : p;
  }
  return e && e.nodeType === 1 ? e : null;
}"#;

/// The simple selectors (`tag#id.class`) of an element and its flat-tree ancestors.
const LINEAGE: &str = r#"function (element, max) {
  const name = (e) => {
    let s = e.localName;
    if (e.id) s += '#' + CSS.escape(e.id);
    for (const c of e.classList) s += '.' + CSS.escape(c);
    return s.length > 120 ? s.slice(0, 119) + '…' : s;
  };
  const parent = (n) => {
    if (n.assignedSlot) return n.assignedSlot;
    const p = n.parentNode;
    return p instanceof ShadowRoot ? p.host : p;
  };
  const out = [];
  for (let e = element; e && e.nodeType === 1 && out.length < max; e = parent(e)) out.push(name(e));
  return out;
}"#;

/// The styles of the element `uid` names in `tab`.
async fn css_styles<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    uid: &str,
) -> Result<CssStyles, EngineError> {
    let stale = || EngineError::StaleUid(uid.to_owned());
    let frame = cx
        .with_document(tab, |d| d.uids.frame_of(uid).cloned())
        .flatten()
        .ok_or_else(stale)?;
    let group = cx.next_object_group();
    let read = cx.in_time(tab, CSS_LIMIT_MS, read_styles(cx, tab, uid, &frame, &group));
    let read = read.await;
    cx.release_objects(tab, group);
    // Off again whatever happened (a call cut short by its time limit included);
    // a cross-site frame's DOM domain too, which only this call turned on.
    let session = frame.session;
    cx.in_background(move |bg| async move {
        let cx = &bg.cx();
        let session = session.as_deref();
        let _ = cx.send_in(tab, session, &CssDisable {}).await;
        if session.is_some() {
            let _ = cx.send_in(tab, session, &DomDisable {}).await;
        }
    });
    read?.ok_or(EngineError::BrowserTimeout {
        action: "reading the element's CSS",
        timeout_ms: CSS_LIMIT_MS,
    })
}

async fn read_styles<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    uid: &str,
    frame: &FrameKey,
    group: &str,
) -> Result<CssStyles, EngineError> {
    let mut watch = cx.ready(tab).await?;
    cx.sync_document(tab, &mut watch).await?;
    let stale = || EngineError::StaleUid(uid.to_owned());
    let node = element(cx, tab, &mut watch, uid, group).await?;
    let session = node.session.as_deref();
    let context = cx.ready_world(tab, frame).await?;
    let resolve = DomResolveNode {
        backend_node_id: node.backend,
        object_group: group.to_owned(),
        execution_context_id: Some(context),
    };
    let object = cx.send_watched_in(tab, session, &mut watch, &resolve).await;
    let object = object.map_err(|_| stale())?.object.object_id;
    let call = |function: &str, arguments, by_value| {
        in_world(context, group, function, arguments, by_value)
    };
    let enclosing = call(
        ENCLOSING_ELEMENT,
        vec![CallArgument::object(object.ok_or_else(stale)?)],
        false,
    );
    let element = cx
        .send_watched_in(tab, session, &mut watch, &enclosing)
        .await?;
    let element = element
        .result
        .object_id
        .filter(|_| element.exception_details.is_none())
        .ok_or_else(|| {
            EngineError::UnreadablePageData(format!(
                "uid \"{uid}\" names neither an element nor a node inside one"
            ))
        })?;
    let lineage = call(
        LINEAGE,
        vec![
            CallArgument::object(element.clone()),
            CallArgument::value(MAX_LINEAGE.into()),
        ],
        true,
    );
    let lineage = cx
        .send_watched_in(tab, session, &mut watch, &lineage)
        .await?;
    let lineage: Vec<String> = lineage
        .result
        .value
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_default();
    if session.is_some() {
        cx.send_watched_in(tab, session, &mut watch, &DomEnable {})
            .await?;
    }
    cx.send_watched_in(tab, session, &mut watch, &DomGetDocument { depth: 0 })
        .await?;
    let request = DomRequestNode {
        object_id: element.clone(),
    };
    let node_id = cx
        .send_watched_in(tab, session, &mut watch, &request)
        .await?
        .node_id;
    if node_id == 0 {
        return Err(stale());
    }
    cx.send_watched_in(tab, session, &mut watch, &CssEnable {})
        .await?;
    let sheets = announced_sheets(&mut watch, session);
    let matched = cx
        .send_watched_in(tab, session, &mut watch, &CssGetMatchedStyles { node_id })
        .await?;
    let place = Place {
        tab,
        frame,
        context,
        group,
    };
    let containers = query_containers(cx, &place, &mut watch, node_id, &matched).await;
    let mut styles = cascade::cascade(&cascade::Matched {
        styles: &matched,
        sheets: &sheets,
        lineage: &lineage,
        containers: &containers
            .iter()
            .map(|(t, c)| (t.clone(), c.element.clone()))
            .collect(),
    });
    name_elements(cx, &place, &mut watch, &element, &containers, &mut styles).await;
    Ok(styles)
}

/// Where a reading runs: the tab, the frame whose document holds the element (its
/// session is the one spoken to), the world (execution context) its objects live in,
/// and the group they are released with.
struct Place<'a> {
    tab: TabId,
    frame: &'a FrameKey,
    context: i64,
    group: &'a str,
}

impl Place<'_> {
    /// The child session of a cross-site frame's element, `None` for the page's.
    fn session(&self) -> Option<&str> {
        self.frame.session.as_deref()
    }
}

/// A call of `function` in the world `context`, its objects kept in `group`.
fn in_world(
    context: i64,
    group: &str,
    function: &str,
    arguments: Vec<CallArgument>,
    by_value: bool,
) -> RuntimeCallFunctionIn {
    RuntimeCallFunctionIn {
        function_declaration: function.to_owned(),
        execution_context_id: context,
        arguments,
        object_group: group.to_owned(),
        return_by_value: by_value,
        silent: true,
    }
}

/// The style sheets Chrome announced in `session` (the tab's own: `None`) while the
/// CSS domain was turned on.
fn announced_sheets(
    watch: &mut Subscription,
    session: Option<&str>,
) -> HashMap<String, StyleSheetHeader> {
    let header = |signal: &TabSignal| match (signal, session) {
        (TabSignal::Page(PageEvent::StyleSheetAdded(header)), None) => Some(header.clone()),
        (
            TabSignal::InFrame {
                session: from,
                event: PageEvent::StyleSheetAdded(header),
            },
            Some(session),
        ) if from == session => Some(header.clone()),
        _ => None,
    };
    let mut sheets = HashMap::new();
    while let Some(signal) = watch.take_pending(|s| header(s).is_some()) {
        if let Some(header) = header(&signal) {
            sheets.insert(header.style_sheet_id.clone(), *header);
        }
    }
    sheets
}

/// Reads the element's styles.
impl super::Handle for tabwire_shared::requests::GetCssStyles {
    const NEEDS_RENDERER: bool = true;

    async fn handle<C: Chrome + 'static>(self, cx: &Cx<'_, C>) -> Result<Self::Reply, EngineError> {
        css_styles(cx, self.tab_id, &self.uid).await
    }
}
