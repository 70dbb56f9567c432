//! Mouse input that would disturb the user or wait, refused (or, for a click, made
//! from the keyboard) before it is sent.
//!
//! Two things are checked before a mouse action: that DevTools' overlay is on in the
//! tab's session (without it, Chrome holds each mouse move to a tab that is not in
//! front for up to 5 s, waiting for a frame it never draws), and that a press would
//! not bring the user's window to the front.
//!
//! Chrome on Linux activates the window of a tab that takes a mouse press (or a touch
//! start), from whatever source, when that tab is the one its window shows and the
//! window does not have the focus: the browser's view of the tab
//! (`ContentsWebView::DidGetUserInteraction`, Linux and ChromeOS only) asks for the
//! keyboard focus on every press, and asking for it in a window that is not active
//! activates that window, which the window manager answers by raising it, restoring
//! it if minimized, and giving it the focus. A tab behind others in its window has no
//! such view, so a press there leaves everything as it was. Mouse moves and keys raise
//! nothing. No CDP input avoids it (a press is a press to that check; focus emulation,
//! touch and synthesized taps were measured, see docs/performance.md, which also holds
//! the trace that led to it). Headless Chromium raises no window but makes the page
//! `visible` again.
//!
//! So a press in the tab a window shows is not made when that window is minimized, is
//! not the one the user worked in last (`chrome.windows.getLastFocused`: the `focused`
//! flags alone cannot tell, headless Chromium reports every window focused), or does
//! not have the focus although it is (another application is in front of the
//! browser): it would take the user's focus from them. A single click on an element is
//! made from the keyboard instead ([`keyclick`](super::keyclick): the element focused,
//! `Enter` or `Space` pressed, which the browser turns into a trusted `click`, with no
//! `mousedown` or `mouseup`); elements the keyboard cannot click are refused there. A
//! double-click, a click at a point and a drag are refused before anything is sent.
//! Every refusal names the ways out.

use tabwire_shared::{InputAction, TabId};

use crate::chrome::Chrome;
use crate::engine::context::Cx;
use crate::error::{EngineError, RaisedWindow as Raised};

/// Whether `action` sends mouse events.
pub(super) fn moves_mouse(action: &InputAction) -> bool {
    presses(action) || matches!(action, InputAction::Hover { .. })
}

/// Whether `action` presses a mouse button.
fn presses(action: &InputAction) -> bool {
    matches!(
        action,
        InputAction::Click { .. } | InputAction::ClickAt { .. } | InputAction::Drag { .. }
    )
}

/// Makes sure mouse events reach `tab` at once (see the module docs): the overlay
/// on, or turned on now. When Chrome will not turn it on, a tab in front still
/// gets its input (it draws frames); one that is not gets an error naming the
/// ways out instead of 5 s per mouse move.
pub(super) async fn overlay_for_mouse<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
) -> Result<(), EngineError> {
    let Err(error) = cx.overlay_on(tab).await else {
        return Ok(());
    };
    let Some(state) = cx.chrome().tab(tab).await? else {
        return Err(EngineError::NoSuchTab(tab));
    };
    let windows = cx.chrome().normal_windows().await?;
    let minimized = windows
        .iter()
        .any(|w| w.id == state.window_id && w.minimized);
    if state.active && !minimized {
        cx.chrome().log(&format!(
            "tabwire: Overlay.enable failed on tab {tab} (in front): {error}"
        ));
        return Ok(());
    }
    Err(EngineError::MouseWouldWait {
        tab,
        reason: error.to_string(),
    })
}

/// Why a mouse press of `action` in `tab` would bring the tab's window to the
/// front (see the module docs); `None` when it would not, or `action` presses
/// nothing.
pub(super) async fn raising_press<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    action: &InputAction,
) -> Result<Option<Raised>, EngineError> {
    if !presses(action) {
        return Ok(None);
    }
    let Some(state) = cx.chrome().tab(tab).await? else {
        return Err(EngineError::NoSuchTab(tab));
    };
    if !state.active {
        return Ok(None);
    }
    let windows = cx.chrome().normal_windows().await?;
    let Some(own) = windows.iter().find(|w| w.id == state.window_id) else {
        return Ok(None);
    };
    let last_focused = cx.chrome().last_focused_window().await?;
    Ok(if own.minimized {
        Some(Raised::Minimized)
    } else if last_focused.is_some_and(|w| w != own.id) {
        Some(Raised::Behind)
    } else if !own.focused {
        Some(Raised::BrowserBehind)
    } else {
        None
    })
}

/// How `action` is to be made in `tab`: with the mouse (`None`), or, for a single
/// click whose press would bring the window forward, from the keyboard (the
/// reason; see [`keyclick`](super::keyclick)). Any other press that would bring it
/// forward is refused, before anything is sent.
pub(super) async fn keyboard_instead<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    action: &InputAction,
) -> Result<Option<Raised>, EngineError> {
    match raising_press(cx, tab, action).await? {
        None => Ok(None),
        Some(raised) if matches!(action, InputAction::Click { double: false, .. }) => {
            Ok(Some(raised))
        }
        Some(raised) => Err(EngineError::PressWouldRaiseWindow { tab, raised }),
    }
}
