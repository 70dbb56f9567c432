//! What a call answers when the browser went away before answering it.
//!
//! Both ends of the relay socket say it: the relay ([`crate::native_host`]) answers the
//! requests it holds when the browser leaves, and a client ([`crate::link`]) answers
//! its own calls when its relay says goodbye or vanishes. The words live here, so the
//! two agree and neither depends on the other.

use tabwire_shared::sharing::HOW_TO_SHARE;
use tabwire_shared::{Departure, ErrorCode, WireError};

/// The error for a call whose browser went away before answering, and why.
pub fn disconnected(why: &str) -> WireError {
    WireError::new(
        ErrorCode::BrowserDisconnected,
        format!(
            "The browser disconnected before answering ({why}). Check that the browser is \
             still running with the tabwire extension enabled, then retry."
        ),
    )
}

/// The error for a call the browser left unanswered when the native host said goodbye
/// (`reason`), by what the host saw (`cause`). The relay answers its pending requests
/// with it, and the link its own.
pub fn unanswered(reason: &str, cause: Departure) -> WireError {
    let message = match cause {
        Departure::BrowserQuit => format!(
            "The browser quit before answering. Ask the user to start it again; its tabs then \
             have new ids and nothing is shared with this agent until the user shares a tab \
             again ({HOW_TO_SHARE})."
        ),
        Departure::BrowserRunning => format!(
            "The browser's tabwire extension disconnected before answering ({reason}): its \
             service worker stopped (Chrome stops or restarts it now and then) or the extension \
             was reloaded, so the command may or may not have run. The browser still runs and \
             the extension reconnects within seconds: retry (if running the command twice \
             would matter, check first whether it took effect)."
        ),
        Departure::Undecided | Departure::Unknown => return disconnected(reason),
    };
    WireError::new(ErrorCode::BrowserDisconnected, message)
}

/// The error for a call the native host never passed on, because the browser had gone
/// (`reason`) before the call could reach it: nothing ran. The link sends such a call
/// again once a browser is back; only an older link shows the words.
pub fn not_delivered(reason: &str) -> WireError {
    WireError::new(
        ErrorCode::NotDelivered,
        format!(
            "The browser's side had gone before tabwire's native host could pass the command \
             on ({reason}): it did not run. Retry once the browser's tabwire extension is \
             connected again."
        ),
    )
}
