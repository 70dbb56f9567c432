//! What a call answers when there is no browser to answer it.

use std::time::Duration;

use tabwire_shared::sharing::HOW_TO_SHARE;
use tabwire_shared::{ErrorCode, WireError};

use super::liveness::Answering;
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

/// How long the extension lets its native host go without answering before it starts
/// a new one, in words for the agent (`extension/src/engine/core/liveness.rs`).
const HOST_REPLACED_WITHIN: &str = "about 20 s";

/// The error for a call whose native host stopped answering while it waited (frozen,
/// stopped, or starved): named, with what to do.
pub(super) fn host_silent(command: &str, silent: Duration) -> WireError {
    WireError::new(
        ErrorCode::Timeout,
        format!(
            "tabwire's native host (`tabwire native-host`, the relay between this server and \
             the browser) has not answered for {} s while the `{command}` command waited: it \
             is frozen or stuck (stopped, or starved on an overloaded machine), so the command \
             may or may not have run. The browser's tabwire extension starts a new native \
             host when its own stops answering, within {HOST_REPLACED_WITHIN}: retry then (if \
             running the command twice would matter, check first whether it took effect). If \
             it keeps happening, run `tabwire doctor`.",
            silent.as_secs()
        ),
    )
}

/// The error for a call whose extension stopped answering its native host while it
/// waited (the host itself answers): named, with what to do.
fn extension_silent(command: &str, silent: Duration) -> WireError {
    WireError::new(
        ErrorCode::Timeout,
        format!(
            "tabwire's native host answers, but the browser's tabwire extension has not \
             answered it for {} s while the `{command}` command waited: the browser or the \
             extension is stuck or busy (a paused or hung browser, a debugger stopped in the \
             extension, a very large request, an overloaded machine), so the command may or \
             may not have run. \
             Check that the browser responds, then retry; if it stays stuck, ask the user to \
             reload tabwire at chrome://extensions (tabs must then be shared again) or to \
             restart the browser.",
            silent.as_secs()
        ),
    )
}

/// The error for a call that ran into its reply timeout: what answered says what did
/// not finish.
pub(super) fn unfinished(command: &str, waited: Duration, answering: Answering) -> WireError {
    let ms = waited.as_millis();
    let message = match answering {
        Answering::NotExtension(silent) => return extension_silent(command, silent),
        Answering::Extension => format!(
            "The `{command}` command did not finish within {ms} ms, though tabwire's native \
             host and the browser's extension both answer: the page is busy (a script that \
             does not return, a long task, a debugger paused in it) or the command waits on \
             something in it. Check the tab in the browser; retry with a longer timeout, or \
             close the page with close_page if it stays stuck (a page stuck in a script \
             answers not even a reload)."
        ),
        Answering::NativeHost => format!(
            "The browser did not answer the `{command}` command within {ms} ms, though \
             tabwire's native host answers: the page or the browser's extension is busy (the \
             extension is of a version that cannot say which). Retry, or check the tab in \
             the browser."
        ),
        Answering::Unknown => format!(
            "The browser did not answer the `{command}` command within {ms} ms. The page or \
             browser may be busy; retry, or check the tab in the browser."
        ),
    };
    WireError::new(ErrorCode::Timeout, message)
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

/// What every call answers once this agent was cut off: the reason the browser's side
/// gave (a sentence of its own, such as the user disconnecting it in the popup), then
/// what to do.
pub(super) fn revoked_message(reason: &str) -> String {
    let reason = reason.trim().trim_end_matches('.');
    format!(
        "{reason}. tabwire will not reconnect on its own: ask the user whether to continue, \
         and if so restart this MCP server and have them share a tab again ({HOW_TO_SHARE})."
    )
}
