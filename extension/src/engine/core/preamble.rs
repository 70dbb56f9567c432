//! The steps most commands on a tab begin and end with, written once.
//!
//! A command that works in a page first gets its tab [`ready`](Engine::ready): the
//! debugger attached, no JavaScript dialog blocking the page, and the tab watched from
//! then on (so a detach, a closed tab or a dialog ends its CDP waits). Its work then
//! runs [`in_time`](Engine::in_time): within the command's time limit, with a failure
//! caused by the tab closing told apart from one caused by the tab leaving what the
//! debugger may follow. Plain browser calls without a limit of their own are
//! [`bounded`](Engine::bounded) instead.

use std::future::Future;

use tabwire_shared::TabId;

use super::Engine;
use crate::cdp::RuntimeReleaseObjectGroup;
use crate::chrome::Chrome;
use crate::error::EngineError;
use crate::signals::{within, Subscription};

/// How long a command without its own time limit may wait for Chrome.
pub const BROWSER_CALL_LIMIT_MS: u64 = 15_000;

impl<C: Chrome + 'static> Engine<C> {
    /// Refuses to work in `tab` while a JavaScript dialog blocks it.
    pub(super) fn no_dialog(&self, tab: TabId) -> Result<(), EngineError> {
        match self.open_dialog(tab) {
            Some(dialog) => Err(EngineError::DialogOpen { tab, dialog }),
            None => Ok(()),
        }
    }

    /// Attaches the debugger to `tab` if needed, and watches the tab from now on.
    pub(super) async fn attached(&self, tab: TabId) -> Result<Subscription, EngineError> {
        self.ensure_attached(tab).await?;
        Ok(self.signals.subscribe(tab))
    }

    /// Gets `tab` ready for a command that works in its page: attached, no dialog
    /// open, and watched from now on.
    pub(super) async fn ready(&self, tab: TabId) -> Result<Subscription, EngineError> {
        let watch = self.attached(tab).await?;
        self.no_dialog(tab)?;
        Ok(watch)
    }

    /// Runs a command's `work` on `tab` within `timeout_ms`: `None` if time ran out.
    /// A failure because the debugger lost the tab says whether the tab closed.
    pub(super) async fn in_time<T>(
        &self,
        tab: TabId,
        timeout_ms: u64,
        work: impl Future<Output = Result<T, EngineError>>,
    ) -> Result<Option<T>, EngineError> {
        match within(self.chrome.sleep(timeout_ms), work).await {
            Some(Ok(done)) => Ok(Some(done)),
            Some(Err(error)) => Err(self.confirm_closed(tab, error).await),
            None => Ok(None),
        }
    }

    /// Bounds a plain browser call by [`BROWSER_CALL_LIMIT_MS`].
    pub(super) async fn bounded<T>(
        &self,
        action: &'static str,
        work: impl Future<Output = T>,
    ) -> Result<T, EngineError> {
        within(self.chrome.sleep(BROWSER_CALL_LIMIT_MS), work)
            .await
            .ok_or(EngineError::BrowserTimeout {
                action,
                timeout_ms: BROWSER_CALL_LIMIT_MS,
            })
    }

    /// Frees the call's remote objects (the global object's handle) without delaying
    /// the reply, in the tab's session and the child sessions the group reached.
    pub(super) fn release_objects(&self, tab: TabId, object_group: String) {
        self.release_objects_in_children(tab, &object_group);
        self.in_background(move |engine| async move {
            let release = RuntimeReleaseObjectGroup { object_group };
            // Nothing to do if it fails: the page may be gone, taking its objects along.
            let _ = engine.send(tab, &release).await;
        });
    }

    /// A name for a new group of remote objects, released together at the end.
    pub(super) fn next_object_group(&self) -> String {
        let n = self.object_groups.get();
        self.object_groups.set(n + 1);
        format!("tabwire-evaluate-{n}")
    }
}
