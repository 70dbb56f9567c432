//! Mouse input that would disturb the user or wait, refused before it is sent.
//!
//! Two things are checked before a mouse action: that DevTools' overlay is on in the
//! tab's session (without it, Chrome holds each mouse move to a tab that is not in
//! front for up to 5 s, waiting for a frame it never draws), and that a press would
//! not bring the user's window to the front.
//!
//!
//! Chrome raises (and restores, if minimized) the window of a tab that takes a mouse
//! press sent over CDP, when that tab is the one the window shows: the same press in a
//! tab behind others in its window leaves everything as it was. Mouse moves and keys
//! raise nothing; neither focus emulation nor a page that keeps the focus from moving
//! prevents it (measured in a headful Chromium 156 under a window manager, see
//! docs/performance.md; headless Chromium shows the page again, `visible`). So a click
//! or drag in a tab shown in a minimized window, or in a window other than the one the
//! user worked in last (`chrome.windows.getLastFocused`: `focused` flags cannot tell,
//! headless Chromium reports every window focused), would take the user's window from
//! them: it is refused with an error that names the ways out, and nothing is sent.

use tabwire_shared::{InputAction, TabId};

use crate::chrome::Chrome;
use crate::engine::Engine;
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

impl<C: Chrome + 'static> Engine<C> {
    /// Makes sure mouse events reach `tab` at once (see the module docs): the overlay
    /// on, or turned on now. When Chrome will not turn it on, a tab in front still
    /// gets its input (it draws frames); one that is not gets an error naming the
    /// ways out instead of 5 s per mouse move.
    pub(super) async fn overlay_for_mouse(&self, tab: TabId) -> Result<(), EngineError> {
        let Err(error) = self.overlay_on(tab).await else {
            return Ok(());
        };
        let Some(state) = self.chrome.tab(tab).await? else {
            return Err(EngineError::NoSuchTab(tab));
        };
        let windows = self.chrome.normal_windows().await?;
        let minimized = windows
            .iter()
            .any(|w| w.id == state.window_id && w.minimized);
        if state.active && !minimized {
            self.chrome.log(&format!(
                "tabwire: Overlay.enable failed on tab {tab} (in front): {error}"
            ));
            return Ok(());
        }
        Err(EngineError::MouseWouldWait {
            tab,
            reason: error.to_string(),
        })
    }

    /// Refuses `action` when it presses a mouse button in a tab whose window that
    /// press would bring to the front (see the module docs).
    pub(super) async fn refuse_raising_press(
        &self,
        tab: TabId,
        action: &InputAction,
    ) -> Result<(), EngineError> {
        if !presses(action) {
            return Ok(());
        }
        let Some(state) = self.chrome.tab(tab).await? else {
            return Err(EngineError::NoSuchTab(tab));
        };
        if !state.active {
            return Ok(());
        }
        let windows = self.chrome.normal_windows().await?;
        let Some(own) = windows.iter().find(|w| w.id == state.window_id) else {
            return Ok(());
        };
        let last_focused = self.chrome.last_focused_window().await?;
        let raised = if own.minimized {
            Raised::Minimized
        } else if last_focused.is_some_and(|w| w != own.id) {
            Raised::Behind
        } else {
            return Ok(());
        };
        Err(EngineError::PressWouldRaiseWindow { tab, raised })
    }
}
