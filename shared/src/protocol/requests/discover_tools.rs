//! Asks a page for its third-party developer tools.

use std::time::Duration;

use crate::protocol::Discovery;
use crate::protocol::{Request, TabId};
use serde::{Deserialize, Serialize};

/// Asks the page for its third-party developer tools (the `devtoolstooldiscovery`
/// event).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoverThirdPartyTools {
    /// The tab.
    pub tab_id: TabId,
    /// Origins allowed to present tools ([`crate::origin::OriginPolicy`] patterns).
    /// A page outside them is not asked at all.
    pub allowed_origins: Vec<String>,
    /// How long the page may take to answer, in milliseconds.
    pub timeout_ms: u64,
    /// Asked for another tool's reply, not by the agent: a document whose discovery
    /// timed out before is not asked again (it would cost the whole timeout on every
    /// reply), only told about.
    #[serde(default)]
    pub automatic: bool,
}

impl Request for DiscoverThirdPartyTools {
    type Reply = Discovery;
    const RESENDABLE: bool = true;
    const LEAVES_TABS_ALONE: bool = true;
    fn tab(&self) -> Option<TabId> {
        Some(self.tab_id)
    }
    fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms)
    }
}

/// Its command and reply as they travel, pinned.
impl crate::protocol::Golden for DiscoverThirdPartyTools {
    const COMMANDS: &[&str] = &[
        r#"{"command":"discoverTools","tabId":3,"allowedOrigins":["http://localhost:*"],"timeoutMs":5000,"automatic":true}"#,
    ];
    const REPLIES: &[&str] = &[
        r#"{"document":"d1","url":"u","origin":"http://localhost:8080","refused":false,"groups":[{"name":"g","description":"G","tools":[{"name":"t","description":"T","inputSchema":{"type":"object"}}]},{"name":"h","tools":[]}],"problems":["p"]}"#,
        r#"{"document":"d1","url":"u","origin":"file://","refused":true,"groups":[]}"#,
        r#"{"document":"d1","url":"u","origin":"file://","refused":false,"groups":[{"name":"WebMCP Tools","description":"Tools exposed via WebMCP","tools":[{"name":"t","description":"T","inputSchema":{},"annotations":{"debugging":true}}],"webmcp":true}]}"#,
    ];
}
