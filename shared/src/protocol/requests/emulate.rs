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

/// Its command and reply as they travel, pinned.
impl crate::protocol::Golden for Emulate {
    const COMMANDS: &[&str] = &[
        r#"{"command":"emulate","tabId":3,"changes":{"network":{"op":"set","value":{"name":"Slow 3G","offline":false,"latencyMs":2000.0,"downloadBytesPerSec":50000.0,"uploadBytesPerSec":50000.0}},"cpuThrottlingRate":{"op":"clear"},"viewport":{"op":"set","value":{"width":10,"height":20,"deviceScaleFactor":2.0,"mobile":true,"touch":false,"landscape":false}},"userAgent":{"op":"set","value":"UA"},"colorScheme":{"op":"set","value":"dark"},"media":{"forced-colors":{"op":"clear"},"prefers-reduced-motion":{"op":"set","value":"reduce"}},"geolocation":{"op":"set","value":{"latitude":1.0,"longitude":2.0,"accuracy":3.0}},"extraHttpHeaders":{"op":"set","value":{"x-a":"b"}}}}"#,
        r#"{"command":"emulate","tabId":3,"changes":{}}"#,
    ];
    const REPLIES: &[&str] = &[
        r#"{"network":{"name":"Offline","offline":true,"latencyMs":0.0,"downloadBytesPerSec":0.0,"uploadBytesPerSec":0.0},"cpuThrottlingRate":4.0,"viewport":{"width":10,"height":20,"deviceScaleFactor":1.0,"mobile":false,"touch":false,"landscape":true},"userAgent":"UA","colorScheme":"light","media":{"prefers-contrast":"more"},"geolocation":{"latitude":1.0,"longitude":2.0,"accuracy":3.0},"extraHttpHeaders":{"x":"y"}}"#,
        r#"{}"#,
    ];
}
