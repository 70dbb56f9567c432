//! Changes what a tab emulates.

use std::time::Duration;

use crate::protocol::{Emulation, EmulationChanges};
use crate::protocol::{Request, TabId, PLAIN_CALL};
use serde::{Deserialize, Serialize};

/// Changes what the tab emulates; fields left out keep their current setting.
/// Replies with everything now emulated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Emulate {
    /// The tab.
    pub tab_id: TabId,
    /// The changes.
    pub changes: EmulationChanges,
}

impl Request for Emulate {
    type Reply = Emulation;
    const RESENDABLE: bool = false;
    const LEAVES_TABS_ALONE: bool = false;
    fn tab(&self) -> Option<TabId> {
        Some(self.tab_id)
    }
    fn timeout(&self) -> Duration {
        PLAIN_CALL
    }
}
