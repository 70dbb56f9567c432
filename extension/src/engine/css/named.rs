//! The elements a style's explanation names, as the agent can use them: each query
//! container the element's own `@container` rules are about (`DOM.getContainerForNode`)
//! and each ancestor an inherited rule comes from, with its selector and snapshot uid.
//! All of it is best effort: styles are shown without a name Chrome could not give.

use std::collections::HashMap;

use tabwire_shared::css::{CssStyles, Element};

use super::{cascade, in_world, Place, ANCESTOR_AT, LINEAGE};
use crate::cdp::css::{CssGetContainerForNode, DomResolveNodeId, MatchedStyles};
use crate::cdp::CallArgument;
use crate::chrome::Chrome;
use crate::engine::context::Cx;
use crate::engine::elements::uids_of_objects_in;
use crate::signals::Subscription;

/// A query container: how it is shown, and its object in the reading's world.
pub(super) struct Container {
    /// Its selector (its uid is added by [`Engine::name_elements`]).
    pub element: Element,
    /// Its object.
    object: String,
}

/// The containers of the element's own container queries, by the query as its
/// wrapper writes it.
pub(super) async fn query_containers<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    place: &Place<'_>,
    watch: &mut Subscription,
    node_id: i64,
    matched: &MatchedStyles,
) -> HashMap<String, Container> {
    let mut containers = HashMap::new();
    for query in cascade::own_container_queries(matched) {
        let ask = CssGetContainerForNode::of(node_id, query);
        let found = cx
            .send_watched_in(place.tab, place.session(), watch, &ask)
            .await;
        let Some(container) = found.ok().and_then(|c| c.node_id) else {
            continue;
        };
        let resolve = DomResolveNodeId {
            node_id: container,
            object_group: place.group.to_owned(),
            execution_context_id: place.context,
        };
        let resolved = cx
            .send_watched_in(place.tab, place.session(), watch, &resolve)
            .await;
        let Some(object) = resolved.ok().and_then(|r| r.object.object_id) else {
            continue;
        };
        let arguments = vec![
            CallArgument::object(object.clone()),
            CallArgument::value(1.into()),
        ];
        let named = in_world(place.context, place.group, LINEAGE, arguments, true);
        let selector = cx
            .send_watched_in(place.tab, place.session(), watch, &named)
            .await
            .ok()
            .and_then(|r| r.result.value)
            .and_then(|v| v.get(0).and_then(|s| s.as_str()).map(str::to_owned))
            .unwrap_or_default();
        let element = Element {
            selector,
            uid: None,
        };
        containers.insert(
            cascade::container_text(query),
            Container { element, object },
        );
    }
    containers
}

/// Gives the containers and the ancestors `styles` names their uids.
pub(super) async fn name_elements<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    place: &Place<'_>,
    watch: &mut Subscription,
    element: &str,
    containers: &HashMap<String, Container>,
    styles: &mut CssStyles,
) {
    let mut depths: Vec<u32> = styles
        .rules
        .iter()
        .filter_map(|r| r.inherited_from.as_ref().map(|a| a.depth))
        .collect();
    depths.sort_unstable();
    depths.dedup();
    let mut ancestors = Vec::new();
    for depth in depths {
        let arguments = vec![
            CallArgument::object(element.to_owned()),
            CallArgument::value(depth.into()),
        ];
        let up = in_world(place.context, place.group, ANCESTOR_AT, arguments, false);
        let found = cx
            .send_watched_in(place.tab, place.session(), watch, &up)
            .await;
        if let Some(object) = found.ok().and_then(|f| f.result.object_id) {
            ancestors.push((depth, object));
        }
    }
    // Named in one go, containers first.
    let texts: Vec<&String> = containers.keys().collect();
    let objects: Vec<String> = texts
        .iter()
        .map(|t| containers[*t].object.clone())
        .chain(ancestors.iter().map(|(_, object)| object.clone()))
        .collect();
    let Ok(uids) = uids_of_objects_in(cx, place.tab, place.frame, objects, place.group).await
    else {
        return;
    };
    let mut uids = uids.into_iter();
    let container_uids: HashMap<&String, String> = texts.into_iter().zip(uids.by_ref()).collect();
    let ancestor_uids: HashMap<u32, String> = ancestors
        .iter()
        .map(|(depth, _)| *depth)
        .zip(uids)
        .collect();
    for rule in &mut styles.rules {
        if let Some(ancestor) = &mut rule.inherited_from {
            ancestor.uid = ancestor_uids.get(&ancestor.depth).cloned();
        }
        for wrapper in &mut rule.wrappers {
            if let Some(container) = &mut wrapper.container {
                container.uid = container_uids.get(&wrapper.text).cloned();
            }
        }
    }
}
