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

/// Its command and reply as they travel, pinned.
impl crate::protocol::Golden for GetNetworkRequest {
    const COMMANDS: &[&str] = &[
        r#"{"command":"networkRequest","tabId":3,"id":4}"#,
    ];
    const REPLIES: &[&str] = &[
        r#"{"id":1,"method":"POST","url":"u","resourceType":"XHR","status":200,"statusText":"OK","failure":"f","mimeType":"text/plain","started":1.0,"durationMs":2.5,"navigation":1,"requestHeaders":{"a":"b"},"responseHeaders":{"c":"d"},"requestBody":{"data":"x","base64":false,"truncated":true},"responseBody":{"data":"eA==","base64":true,"truncated":false}}"#,
    ];
}
