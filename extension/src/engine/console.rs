//! `ListConsole` and `GetConsoleMessage`: a page of the console messages collected for
//! a tab, or one of them in full. What is collected, and how it is bounded, is the
//! engine's state ([`ConsoleLog`], `engine/state/console_log.rs`); these only read it.

use tabwire_shared::{ConsoleMessage, ConsolePage, TabId};

#[cfg(doc)]
use super::state::console_log::ConsoleLog;
use super::state::console_log::{listing, LIST_TEXT_CHARS};
use crate::chrome::Chrome;
use crate::engine::context::Cx;
use crate::error::EngineError;

/// One page of the console messages collected for `tab`.
pub(super) async fn console_page<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    preserved: bool,
    query: listing::Query<'_>,
) -> Result<ConsolePage, EngineError> {
    cx.ensure_attached(tab).await?;
    let empty = || listing::page(std::iter::empty(), query, LIST_TEXT_CHARS);
    Ok(cx
        .with_collectors(tab, |c| c.console.page(c.generation, preserved, query))
        .unwrap_or_else(empty))
}

/// One console message of `tab`, in full.
pub(super) async fn console_message<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    id: u64,
) -> Result<ConsoleMessage, EngineError> {
    cx.ensure_attached(tab).await?;
    cx.with_collectors(tab, |c| c.console.get(c.generation, id))
        .flatten()
        .ok_or(EngineError::NoConsoleMessage { id, tab })
}

/// Reads one page of the tab's console.
impl super::Handle for tabwire_shared::ListConsole {
    const NEEDS_RENDERER: bool = false;

    async fn handle<C: Chrome + 'static>(self, cx: &Cx<'_, C>) -> Result<Self::Reply, EngineError> {
        cx.console_read(self.tab_id);
        let query = listing::Query {
            types: &self.types,
            page_size: self.page_size,
            page_idx: self.page_idx,
        };
        cx.bounded(
            "read the console",
            console_page(cx, self.tab_id, self.include_preserved, query),
        )
        .await?
    }
}

/// Reads one console message.
impl super::Handle for tabwire_shared::GetConsoleMessage {
    const NEEDS_RENDERER: bool = false;

    async fn handle<C: Chrome + 'static>(self, cx: &Cx<'_, C>) -> Result<Self::Reply, EngineError> {
        cx.bounded(
            "read the console",
            console_message(cx, self.tab_id, self.id),
        )
        .await?
    }
}

#[cfg(test)]
mod tests;
