//! `NodeUids`: snapshot uids for nodes a trace names by backend node id.
//!
//! Each node is resolved into the main frame's isolated world (`DOM.resolveNode`
//! with the backend id) and handed to the walker, which gives it the uid it has or a
//! new one, kept for as long as the node lives; the engine notes which world gave it,
//! as for a snapshot's uids. A node Chrome no longer knows (it left the page) gets
//! none. The objects made go in a group released at the end.

use futures::future::join_all;
use tabwire_shared::requests::{NodeUids, MAX_NODE_UIDS};
use tabwire_shared::TabId;

use super::uids::FrameKey;
use crate::chrome::Chrome;
use crate::engine::context::Cx;
use crate::error::EngineError;

/// The uids of `nodes` (backend node ids) in `tab`'s main frame; `None` for a
/// node that left the page.
pub(in crate::engine) async fn node_uids<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    nodes: &[i64],
    group: &str,
) -> Result<Vec<Option<String>>, EngineError> {
    let mut watch = cx.ready(tab).await?;
    cx.sync_document(tab, &mut watch).await?;
    let main = cx
        .with_document(tab, |d| FrameKey::tab(d.frame_id.clone()))
        .ok_or(EngineError::StaleTools(tab))?;
    // Made once, before the nodes go there side by side.
    cx.ready_world(tab, &main).await?;
    let number = cx.next_snapshot_number();
    let found = join_all(nodes.iter().map(|node| {
        let main = &main;
        async move {
            match cx
                .uid_in_world(tab, main, *node, number, false, group)
                .await
            {
                Ok(uid) => Ok(uid),
                // "No node with given id found": it left the page.
                Err(EngineError::Cdp { .. }) => Ok(None),
                Err(other) => Err(other),
            }
        }
    }))
    .await;
    let mut uids = Vec::with_capacity(found.len());
    for uid in found {
        let uid = uid?;
        if let Some(uid) = &uid {
            cx.with_document(tab, |d| d.uids.learn(uid, &main));
        }
        uids.push(uid);
    }
    Ok(uids)
}

/// Names the nodes.
impl super::Handle for NodeUids {
    const NEEDS_RENDERER: bool = true;

    async fn handle<C: Chrome + 'static>(
        self,
        cx: &Cx<'_, C>,
    ) -> Result<Vec<Option<String>>, EngineError> {
        // Past the bound, nodes are not looked for (the host asks in pieces).
        let asked = self.backend_node_ids.len().min(MAX_NODE_UIDS);
        let group = cx.next_object_group();
        let work = node_uids(cx, self.tab_id, &self.backend_node_ids[..asked], &group);
        let answer = cx.bounded("name the trace's elements", work).await;
        cx.release_objects(self.tab_id, group);
        let mut uids = answer??;
        uids.resize(self.backend_node_ids.len(), None);
        Ok(uids)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use tabwire_shared::{requests::*, Reply};

    use super::super::fake::page::set_buttons;
    use super::super::fake::{Answer, Harness};

    #[test]
    fn nodes_get_the_uids_snapshots_show_and_a_node_gone_gets_none() {
        let mut h = Harness::new();
        set_buttons(&h, &[(5, "Save"), (6, "Open")]);
        h.fake.answer_with("DOM.resolveNode", |params| {
            let node = params["backendNodeId"].as_i64().unwrap_or_default();
            if node == 99 {
                Answer::error("No node with given id found")
            } else {
                Answer::value(json!({"object": {"type": "object", "subtype": "node",
                    "objectId": format!("node-{node}")}}))
            }
        });
        h.call(
            1,
            NodeUids {
                tab_id: 10,
                backend_node_ids: vec![6, 99],
            },
        );
        h.settle();
        let uids = match h.reply(1).expect("a reply") {
            Ok(Reply::NodeUids { uids }) => uids,
            other => panic!("expected uids, got {other:?}"),
        };
        assert_eq!(uids.len(), 2);
        assert_eq!(uids[1], None);
        let uid = uids[0].clone().expect("a uid for the button");
        h.call(
            2,
            TakeSnapshot {
                tab_id: 10,
                verbose: false,
                viewport: false,
            },
        );
        h.settle();
        let Ok(Reply::Snapshot { snapshot }) = h.reply(2).expect("a reply") else {
            panic!("no snapshot");
        };
        let open = snapshot.nodes.iter().find(|n| n.name == "Open");
        assert_eq!(open.map(|n| n.uid.clone()), Some(uid));
    }
}
