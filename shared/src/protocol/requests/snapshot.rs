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
    /// What the walk in the page takes in; its fields sit beside `tabId` on the wire.
    #[serde(flatten)]
    pub walk: WalkOptions,
}

/// The options that change what the walker in the page writes, and nothing else: one
/// type from the host, which builds it from a tool's arguments, through the wire, to
/// the extension, which keeps each frame's last walk under it and hands it to the
/// walker as its `opts`. What the host shows of a snapshot (a subtree, a budget, a
/// file, the changes) is not here: the host cuts that from the snapshot it is sent, as
/// it alone keeps the page's last whole snapshot to find the changes against.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WalkOptions {
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
            walk: WalkOptions::default(),
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

/// Its command and reply as they travel, pinned.
impl crate::protocol::Golden for TakeSnapshot {
    const COMMANDS: &[&str] = &[
        r#"{"command":"snapshot","tabId":3,"verbose":false}"#,
        r#"{"command":"snapshot","tabId":3,"verbose":true,"viewport":true}"#,
    ];
    const REPLIES: &[&str] = &[
        r#"{"url":"u","title":"t","nodes":[{"uid":"1_0","depth":0,"role":"RootWebArea","name":"t","value":"v","states":["focused","checked=mixed","level=2"]},{"uid":"1_1","depth":1,"role":"generic"}]}"#,
        r#"{"url":"u","title":"t","nodes":[{"uid":"1_0","depth":0,"role":"link","states":["url=/a?b=c","description=\"Opens the \\\"menu\\\"\"","valuetext=\"\"","not-in-accessibility-tree"]}]}"#,
    ];
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Command;

    #[test]
    fn a_request_without_viewport_reads_and_writes_as_it_always_did() {
        let old = r#"{"command":"snapshot","tabId":3,"verbose":false}"#;
        let read: Command = serde_json::from_str(old).unwrap();
        assert_eq!(read, Command::TakeSnapshot(TakeSnapshot::whole(3)));
        assert_eq!(serde_json::to_string(&read).unwrap(), old);
    }
}
