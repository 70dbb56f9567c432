//! What a call answers when there is no browser to answer it.

use tabwire_shared::{ErrorCode, WireError};

/// The error for a call made while no browser is connected: what to do about it.
pub fn no_browser() -> WireError {
    WireError::new(
        ErrorCode::BrowserDisconnected,
        "No browser is connected to tabwire. To fix: (1) start Chrome (or Chromium, Edge or \
         Brave); (2) make sure the tabwire extension is installed and enabled at \
         chrome://extensions; (3) run `tabwire install` once so the browser can start \
         tabwire's native host; (4) if it still fails, run `tabwire doctor` to find the \
         broken link.",
    )
}

/// The error for a call whose browser went away before answering, and why.
pub(super) fn disconnected(why: &str) -> WireError {
    WireError::new(
        ErrorCode::BrowserDisconnected,
        format!(
            "The browser disconnected before answering ({why}). Check that the browser is \
             still running with the tabwire extension enabled, then retry."
        ),
    )
}

/// What every call answers once the user has disconnected this agent.
pub(super) fn revoked_message(reason: &str) -> String {
    format!(
        "The user disconnected this agent from their browser ({reason}). tabwire will not \
         reconnect on its own: ask the user whether to continue, and if so restart this MCP \
         server and have them share a tab again with tabwire's toolbar button."
    )
}
