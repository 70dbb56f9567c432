//! The error a command can fail with, as carried from the extension to the host.
//!
//! Messages are written for the agent that will read them: what went wrong, then what
//! to do about it. The [`ErrorCode`] lets the host react (re-discover, re-attach)
//! without parsing text.

use serde::{Deserialize, Serialize};

/// Why a command failed, in a form both sides can match on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ErrorCode {
    /// No tab has the given id (it was closed, or never existed).
    NoSuchTab,
    /// The debugger could not attach, or was detached during the command.
    Detached,
    /// Script in the page threw, or the page answered with something unusable.
    PageError,
    /// The command did not finish within its time limit.
    Timeout,
    /// The page navigated away, reloaded or closed while the command ran.
    Navigated,
    /// The command was refused (a policy, or it would leave the browser unusable).
    Refused,
    /// The arguments make no sense for this command (bad URL, bad uid, ...).
    InvalidArgument,
    /// The page's document changed since the third-party tools were discovered (it
    /// navigated or reloaded): discover again, then retry.
    StaleTools,
    /// A JavaScript dialog is open in the tab (or opened during the command) and blocks
    /// it until the agent handles it.
    Dialog,
    /// The tab exists but is not shared with this agent (or no tab is shared yet): the
    /// user shares tabs from tabwire's toolbar button.
    NotShared,
    /// The browser is not connected (said by the relay or the host, not the extension).
    BrowserDisconnected,
    /// The relay never passed the command on: the browser had gone before it could.
    /// Nothing ran, so the command may be sent again (said by the relay; the link sends
    /// it again once a browser is back).
    NotDelivered,
    /// Anything else: a bug or an unexpected browser answer.
    Internal,
}

/// A failed command: a code to act on and a message for the agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{message}")]
pub struct WireError {
    /// What kind of failure this is.
    pub code: ErrorCode,
    /// What went wrong and what to do next, in words an agent can act on.
    pub message: String,
}

impl WireError {
    /// Builds an error from a code and a message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }
}
