//! Runs a function in the page.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::protocol::{Request, TabId};

/// Calls a JavaScript function in the page's main world with JSON arguments and
/// awaits it; replies with its JSON result (`null` for `undefined`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Evaluate {
    /// The tab.
    pub tab_id: TabId,
    /// A function declaration, e.g. `() => document.title` or `async (a) => a + 1`.
    pub function: String,
    /// Arguments passed to the function, as JSON values.
    pub args: Vec<Value>,
    /// How long the function may run, in milliseconds.
    pub timeout_ms: u64,
}

impl Request for Evaluate {
    type Reply = Value;
    const RESENDABLE: bool = false;
    const LEAVES_TABS_ALONE: bool = false;
    fn tab(&self) -> Option<TabId> {
        Some(self.tab_id)
    }
    fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms)
    }
}

/// Its command and reply as they travel, pinned.
impl crate::protocol::Golden for Evaluate {
    const COMMANDS: &[&str] = &[
        r#"{"command":"evaluate","tabId":3,"function":"(a) => a","args":[1,"x",{"k":null}],"timeoutMs":500}"#,
    ];
    const REPLIES: &[&str] = &[
        r#"{"a":[1,2,null]}"#,
    ];
}
