//! What a call answers when there is no browser to answer it.

use tabwire_shared::sharing::HOW_TO_SHARE;
use tabwire_shared::{ErrorCode, WireError};

pub(super) use crate::answers::{disconnected, unanswered};

/// The error for a call made while no browser is connected: what to do about it.
pub fn no_browser() -> WireError {
    no_browser_because(None)
}

/// [`no_browser`], saying what is known of why (a clause: "the browser quit 3 s ago").
/// With nothing known, the whole setup is the advice; with a cause known, that cause's
/// own advice is (the setup steps would contradict it), and doctor the fallback.
pub fn no_browser_because(known: Option<&str>) -> WireError {
    let message = match known {
        Some(known) => format!(
            "No browser is connected to tabwire: {known}. If that does not explain it, \
             `tabwire doctor` finds the broken link."
        ),
        None => "No browser is connected to tabwire. To fix: (1) start Chrome (or Chromium, \
                 Edge or Brave); (2) make sure the tabwire extension is installed and enabled \
                 at chrome://extensions; (3) run `tabwire install` once so the browser can \
                 start tabwire's native host; (4) if it still fails, run `tabwire doctor` to \
                 find the broken link."
            .to_owned(),
    };
    WireError::new(ErrorCode::BrowserDisconnected, message)
}

/// The error for a call in flight when the connection to the native host ended without
/// a goodbye: the host was killed or crashed, and the browser starts another.
pub(super) fn host_stopped() -> WireError {
    WireError::new(
        ErrorCode::BrowserDisconnected,
        "tabwire's native host stopped before the browser answered (it was killed, or \
         crashed), so the command may or may not have run. The browser starts a new native \
         host when its tabwire extension reconnects, normally within a second or two: retry \
         (if running the command twice would matter, check first whether it took effect).",
    )
}

/// The error for a call on a tab that waited while the browser restarted: it is not
/// sent, since the new run's tab ids name other tabs.
pub(super) fn restarted_before_sending() -> WireError {
    WireError::new(
        ErrorCode::BrowserDisconnected,
        format!(
            "The browser restarted (or tabwire's extension was reloaded) while this call \
             waited, so it was not sent: tab ids from before now name other tabs or none. Ask \
             the user to share the tab again ({HOW_TO_SHARE}), then call list_pages."
        ),
    )
}

/// What every call answers once the user has disconnected this agent.
pub(super) fn revoked_message(reason: &str) -> String {
    format!(
        "The user disconnected this agent from their browser ({reason}). tabwire will not \
         reconnect on its own: ask the user whether to continue, and if so restart this MCP \
         server and have them share a tab again ({HOW_TO_SHARE})."
    )
}
