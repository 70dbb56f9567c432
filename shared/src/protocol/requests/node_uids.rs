//! Snapshot uids for DOM nodes named by their backend node ids (as traces name them).

use std::time::Duration;

use crate::protocol::{Request, TabId, PLAIN_CALL};
use serde::{Deserialize, Serialize};

/// The most nodes one [`NodeUids`] asks about.
pub const MAX_NODE_UIDS: usize = 64;

/// Gives the nodes of the tab's main document that `backend_node_ids` name snapshot
/// uids (the same uids `take_snapshot` shows, usable by the input tools). Answers one
/// entry per id, in order: `None` for a node that is no longer in the page (or not in
/// its main document).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeUids {
    /// The tab.
    pub tab_id: TabId,
    /// The nodes (at most [`MAX_NODE_UIDS`]).
    pub backend_node_ids: Vec<i64>,
}

impl Request for NodeUids {
    type Reply = Vec<Option<String>>;
    const RESENDABLE: bool = true;
    const LEAVES_TABS_ALONE: bool = true;
    fn tab(&self) -> Option<TabId> {
        Some(self.tab_id)
    }
    fn timeout(&self) -> Duration {
        PLAIN_CALL
    }
}

/// Its command and reply as they travel, pinned.
impl crate::protocol::Golden for NodeUids {
    const COMMANDS: &[&str] = &[
        r#"{"command":"nodeUids","tabId":3,"backendNodeIds":[7,9]}"#,
    ];
    const REPLIES: &[&str] = &[
        r#"["1_4",null]"#,
    ];
}
