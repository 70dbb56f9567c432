//! One console message in full.

use std::time::Duration;

use crate::protocol::ConsoleMessage;
use crate::protocol::{Request, TabId, PLAIN_CALL};
use serde::{Deserialize, Serialize};

/// One console message in full.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetConsoleMessage {
    /// The tab.
    pub tab_id: TabId,
    /// The message's id from [`super::ListConsole`].
    pub id: u64,
}

impl Request for GetConsoleMessage {
    type Reply = ConsoleMessage;
    const RESENDABLE: bool = true;
    const LEAVES_TABS_ALONE: bool = true;
    fn tab(&self) -> Option<TabId> {
        Some(self.tab_id)
    }
    fn timeout(&self) -> Duration {
        PLAIN_CALL
    }
}
