//! Asks the user for the tab in front.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::protocol::{Request, TabId, TabInfo};

/// The longest reason shown to the user, in characters.
pub const MAX_REASON_CHARS: usize = 300;

/// Asks the user, in tabwire's popup, to share the tab in front with the calling agent,
/// giving `reason`. Replies when the user answers or after `timeout_ms` without one.
/// No tab is shared without the user's click.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestTab {
    /// Why the agent wants the tab, shown to the user as the agent gave it (cleaned,
    /// cut to [`MAX_REASON_CHARS`]).
    pub reason: String,
    /// How long to wait for the user, in milliseconds.
    pub timeout_ms: u64,
}

/// How the user answered a [`RequestTab`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum TabRequestAnswer {
    /// The user shared this tab with the agent.
    Shared {
        /// The tab, as it is now.
        tab: TabInfo,
    },
    /// The user pressed "Not now".
    Declined,
    /// No answer came within the time limit (or the request gave way to a newer one
    /// from the same agent).
    Unanswered,
}

impl Request for RequestTab {
    type Reply = TabRequestAnswer;
    // Asking twice would show the user two requests.
    const RESENDABLE: bool = false;
    const LEAVES_TABS_ALONE: bool = false;
    fn tab(&self) -> Option<TabId> {
        None
    }
    fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms)
    }
}

/// Its command and reply as they travel, pinned.
impl crate::protocol::Golden for RequestTab {
    const COMMANDS: &[&str] = &[
        r#"{"command":"requestTab","reason":"check the total","timeoutMs":50000}"#,
    ];
    const REPLIES: &[&str] = &[
        r#"{"shared":{"tab":{"id":1,"windowId":2,"url":"https://a.test/","title":"A","userActive":true}}}"#,
        r#""declined""#,
        r#""unanswered""#,
    ];
}
