//! Takes an accessibility snapshot.

use std::time::Duration;

use crate::protocol::Snapshot;
use crate::protocol::{Request, TabId, CAPTURE};
use serde::{Deserialize, Serialize};

/// Takes an accessibility snapshot of the tab's page, iframes included. Nodes get
/// uids that stay the same for as long as the document lives.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TakeSnapshot {
    /// The tab.
    pub tab_id: TabId,
    /// Every node of the tree, not only the interesting ones.
    pub verbose: bool,
    /// Only what is on screen: nodes whose boxes meet the viewport, and their
    /// ancestors. Left off the wire when false, so older peers read the request as
    /// it always was.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub viewport: bool,
}

impl TakeSnapshot {
    /// The usual request: the interesting nodes of the whole page.
    pub fn whole(tab_id: TabId) -> Self {
        TakeSnapshot {
            tab_id,
            verbose: false,
            viewport: false,
        }
    }
}

impl Request for TakeSnapshot {
    type Reply = Snapshot;
    const RESENDABLE: bool = true;
    const LEAVES_TABS_ALONE: bool = true;
    fn tab(&self) -> Option<TabId> {
        Some(self.tab_id)
    }
    fn timeout(&self) -> Duration {
        CAPTURE
    }
}
