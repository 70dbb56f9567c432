//! The network requests collected for a tab.

use std::time::Duration;

use crate::protocol::NetworkList;
use crate::protocol::{Request, TabId, PLAIN_CALL};
use serde::{Deserialize, Serialize};

/// The network requests collected for the tab, oldest first, without headers or
/// bodies, and how many older ones were let go of.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NetworkRequests {
    /// The tab.
    pub tab_id: TabId,
    /// Also the requests of the (up to 2) previous navigations.
    pub include_preserved: bool,
}

impl Request for NetworkRequests {
    type Reply = NetworkList;
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
impl crate::protocol::Golden for NetworkRequests {
    const COMMANDS: &[&str] = &[
        r#"{"command":"networkRequests","tabId":3,"includePreserved":false}"#,
    ];
    const REPLIES: &[&str] = &[
        r#"{"requests":[{"id":1,"method":"GET","url":"u","resourceType":"Document","started":1.0,"navigation":0}]}"#,
        r#"{"requests":[],"dropped":{"forCount":2,"forSpace":0}}"#,
    ];
}
