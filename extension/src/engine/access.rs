//! The gate every call passes: who is calling, and may it touch this tab.
//!
//! A call is refused when its connection has not said hello, when the user
//! disconnected its agent, when it names a tab outside the agent's scope, or when that
//! tab shows a site on the user's blocklist. Nothing touches the tab before the gate
//! has let the call through.

use tabwire_shared::TabId;

use super::sharing::CallerRefusal;
use super::Engine;
use crate::chrome::Chrome;
use crate::error::EngineError;

impl<C: Chrome + 'static> Engine<C> {
    /// The session of the agent that sent a call from relay connection `client`.
    pub(super) fn caller(&self, client: Option<u64>) -> Result<String, EngineError> {
        self.sharing
            .borrow()
            .caller(client)
            .map_err(|refusal| match refusal {
                CallerRefusal::Unknown => EngineError::NotIntroduced,
                CallerRefusal::Revoked => EngineError::Revoked,
            })
    }

    /// Checks that `session` may act on `tab` now.
    pub(super) async fn check_access(&self, session: &str, tab: TabId) -> Result<(), EngineError> {
        if !self.sharing.borrow().may_use(session, tab) {
            return match self.chrome.tab(tab).await? {
                Some(_) => Err(EngineError::NotShared(tab)),
                None => Err(EngineError::NoSuchTab(tab)),
            };
        }
        if self.settings.borrow().blocklist.is_empty() {
            return Ok(());
        }
        let Some(state) = self.chrome.tab(tab).await? else {
            return Err(EngineError::NoSuchTab(tab));
        };
        match self.settings.borrow().blocked_by(&state.url) {
            Some(pattern) => Err(EngineError::Blocklisted {
                tab,
                pattern: pattern.to_owned(),
            }),
            None => Ok(()),
        }
    }
}
