//! `NodeUids`: snapshot uids for nodes a trace names by backend node id.
//!
//! Each node is resolved into the main frame's isolated world (`DOM.resolveNode`
//! with the backend id) and handed to the walker, which gives it the uid it has or a
//! new one, kept for as long as the node lives; the engine notes which world gave it,
//! as for a snapshot's uids. A node Chrome no longer knows (it left the page) gets
//! none. The objects made go in a group released at the end. The naming is the
//! context's [`Cx::node_uids`], which the user's pick of an element uses too.

use tabwire_shared::requests::{NodeUids, MAX_NODE_UIDS};

use crate::chrome::Chrome;
use crate::engine::context::Cx;
use crate::error::EngineError;

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
        let work = cx.node_uids(self.tab_id, &self.backend_node_ids[..asked], &group);
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
    use tabwire_shared::requests::*;

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
        let uids = match h.reply_to::<NodeUids>(1).expect("a reply") {
            Ok(uids) => uids,
            other => panic!("expected uids, got {other:?}"),
        };
        assert_eq!(uids.len(), 2);
        assert_eq!(uids[1], None);
        let uid = uids[0].clone().expect("a uid for the button");
        h.call(2, TakeSnapshot::whole(10));
        h.settle();
        let Ok(snapshot) = h.reply_to::<TakeSnapshot>(2).expect("a reply") else {
            panic!("no snapshot");
        };
        let open = snapshot.nodes.iter().find(|n| n.name == "Open");
        assert_eq!(open.map(|n| n.uid.clone()), Some(uid));
    }
}
