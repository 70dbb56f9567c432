//! Target commands and events: the tab's session attaching to its cross-site iframes
//! (out-of-process frames), each reached through a child session of its own ("flat"
//! sessions: commands name the child by `sessionId`, on the tab's debugger).

use serde::{Deserialize, Serialize};

use super::{command, Empty};

/// `Target.setAutoAttach`: attach to every related target (cross-site iframes, and
/// workers, which the engine lets go) as it appears, and to those already there.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetSetAutoAttach {
    /// Attach automatically.
    pub auto_attach: bool,
    /// Pause new targets until told to run (never: the page must not stall).
    pub wait_for_debugger_on_start: bool,
    /// Flat sessions, reached by `sessionId` (the only kind `chrome.debugger` speaks).
    pub flatten: bool,
}

impl TargetSetAutoAttach {
    /// Attach to every child target as it appears, without pausing it, flat.
    pub fn flat() -> Self {
        Self {
            auto_attach: true,
            wait_for_debugger_on_start: false,
            flatten: true,
        }
    }
}
command!(TargetSetAutoAttach, "Target.setAutoAttach", Empty);

/// `Target.detachFromTarget`: lets go of one child session.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetDetachFromTarget {
    /// The child session.
    pub session_id: String,
}
command!(TargetDetachFromTarget, "Target.detachFromTarget", Empty);

/// `Target.attachedToTarget`: a child session began.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AttachedToTarget {
    /// The child session's id.
    pub session_id: String,
    /// What it is attached to.
    pub target_info: TargetInfo,
}

/// A target, as much of it as the engine reads.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetInfo {
    /// The target's id; for an iframe, its frame's id.
    pub target_id: String,
    /// `iframe`, `worker`, `service_worker`, `page`, ...
    #[serde(rename = "type")]
    pub kind: String,
    /// The target's URL.
    #[serde(default)]
    pub url: String,
}

/// `Target.detachedFromTarget`: a child session ended (its frame went away, or
/// moved to another process, which attaches it again under a new session).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DetachedFromTarget {
    /// The child session that ended.
    pub session_id: String,
}
