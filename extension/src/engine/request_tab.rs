//! `RequestTab`: an agent asks the user for the tab in front, with a reason. The
//! waiting request, its notification and the user's answer in the popup are the
//! access code's (`core/access/requests.rs`); the command only asks, through its
//! context.

use tabwire_shared::requests::{RequestTab, TabRequestAnswer};

use crate::chrome::Chrome;
use crate::engine::context::Cx;
use crate::error::EngineError;

/// Asks the user for the tab in front. In a browser that is the agent's own, every tab
/// is the agent's already: the tab in front is the answer at once.
impl super::Handle for RequestTab {
    const NEEDS_RENDERER: bool = false;

    async fn handle<C: Chrome + 'static>(self, cx: &Cx<'_, C>) -> Result<Self::Reply, EngineError> {
        if cx.agents_own_browser() {
            let Some(front) = cx.users_tab().await? else {
                return Ok(TabRequestAnswer::Unanswered);
            };
            return Ok(TabRequestAnswer::Shared {
                tab: cx.describe(&front, true),
            });
        }
        cx.ask_user_for_tab(self).await
    }
}
