//! `Emulate`: network conditions, CPU slowdown, viewport and device traits, user
//! agent, color scheme, geolocation and extra request headers, per tab.
//!
//! The engine keeps what each tab emulates (across detaches, until the tab closes) and
//! applies it all again when the debugger re-attaches, since Chrome forgets every
//! override with the session: the commands for a change, and that record, are the
//! core's (`core/emulation.rs`). A change is applied first and recorded only once
//! Chrome took it, so the state returned is what is in force. Turning touch or mobile
//! emulation on or off reloads the page (as the reference does): both are fixed when
//! a document starts.

use tabwire_shared::{Emulation, EmulationChanges, TabId, Viewport};

use super::core::emulation::apply_changes;
use super::navigate::navigate;
use crate::chrome::Chrome;
use crate::engine::context::Cx;
use crate::error::EngineError;

/// How long the reload that makes touch or mobile emulation take effect may take.
const RELOAD_LIMIT_MS: u64 = 10_000;

/// Applies `changes` to `tab`; everything it now emulates.
pub(super) async fn emulate<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    changes: &EmulationChanges,
) -> Result<Emulation, EngineError> {
    cx.ensure_attached(tab).await?;
    let before = cx.emulation(tab).viewport;
    let now = apply_changes(cx, tab, changes).await?;
    // Touch support and the mobile viewport are fixed when a document starts: like
    // the reference, reload the page when they change so they take effect.
    let traits = |v: &Option<Viewport>| v.as_ref().map(|v| (v.mobile, v.touch)).unwrap_or_default();
    if traits(&before) != traits(&now.viewport) {
        let reload = tabwire_shared::Navigation::Reload {
            ignore_cache: false,
        };
        navigate(cx, tab, &reload, RELOAD_LIMIT_MS).await?;
    }
    Ok(now)
}

/// Changes what the tab emulates, given longer than a plain browser call.
impl super::Handle for tabwire_shared::Emulate {
    const NEEDS_RENDERER: bool = true;

    async fn handle<C: Chrome + 'static>(self, cx: &Cx<'_, C>) -> Result<Self::Reply, EngineError> {
        use crate::signals::within;
        let limit = super::context::BROWSER_CALL_LIMIT_MS + 10_000;
        within(
            cx.chrome().sleep(limit),
            emulate(cx, self.tab_id, &self.changes),
        )
        .await
        .ok_or(crate::error::EngineError::BrowserTimeout {
            action: "change the emulation",
            timeout_ms: limit,
        })?
    }
}

#[cfg(test)]
mod tests;
