//! One network request in full.

use std::time::Duration;

use crate::protocol::NetworkRequest;
use crate::protocol::{Request, TabId, PLAIN_CALL};
use serde::{Deserialize, Serialize};

/// One network request in full, bodies included.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetNetworkRequest {
    /// The tab.
    pub tab_id: TabId,
    /// The request's id from [`super::NetworkRequests`].
    pub id: u64,
}

impl Request for GetNetworkRequest {
    type Reply = NetworkRequest;
    const RESENDABLE: bool = true;
    const LEAVES_TABS_ALONE: bool = true;
    fn tab(&self) -> Option<TabId> {
        Some(self.tab_id)
    }
    fn timeout(&self) -> Duration {
        PLAIN_CALL
    }
}
