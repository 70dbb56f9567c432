//! An agent asking the user for the tab in front (`request_page`).
//!
//! The request waits in the extension until the user answers it in the popup (Share or
//! Not now) or its time runs out. Meanwhile tabwire's button wears a "?" badge and a
//! notification names the agent and its reason. Only the user's Share click shares a
//! tab: the one the popup was opened on. Each agent has at most one request waiting;
//! a newer one takes its place (the older is answered as unanswered). A request ends
//! with its agent, too (disconnected, or its server gone).

use std::cell::RefCell;

use futures::channel::oneshot;
use tabwire_shared::requests::{RequestTab, TabRequestAnswer, MAX_REASON_CHARS};
use tabwire_shared::TabId;

use super::scopes::Sharing;
use crate::chrome::Chrome;
use crate::engine::core::tabs;
use crate::engine::tab::Tabs;
use crate::error::EngineError;
use crate::signals::within;

/// What the user did about a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// Shared this tab.
    Shared(TabId),
    /// Pressed "Not now".
    Declined,
}

/// A request waiting for the user.
#[derive(Debug)]
struct Pending {
    id: u64,
    session: String,
    reason: String,
    asked_ms: u64,
    answer: oneshot::Sender<Answer>,
}

/// A waiting request as the popup shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Waiting {
    /// The request's id, for the popup's answer.
    pub id: u64,
    /// The agent that asks.
    pub session: String,
    /// Why, as the agent said (cleaned).
    pub reason: String,
    /// When it asked (ms since the epoch).
    pub asked_ms: u64,
}

/// The requests waiting for the user.
#[derive(Debug, Default)]
pub struct TabRequests {
    next_id: u64,
    pending: Vec<Pending>,
}

impl TabRequests {
    /// Records a request of `session`; the receiver hears the user's answer. An older
    /// request of the same agent is dropped (its receiver hears nothing).
    pub fn ask(
        &mut self,
        session: &str,
        reason: String,
        now_ms: u64,
    ) -> (u64, oneshot::Receiver<Answer>) {
        self.pending.retain(|p| p.session != session);
        self.next_id += 1;
        let (answer, heard) = oneshot::channel();
        self.pending.push(Pending {
            id: self.next_id,
            session: session.to_owned(),
            reason,
            asked_ms: now_ms,
            answer,
        });
        (self.next_id, heard)
    }

    /// The session of waiting request `id`.
    pub fn session_of(&self, id: u64) -> Option<String> {
        self.pending
            .iter()
            .find(|p| p.id == id)
            .map(|p| p.session.clone())
    }

    /// Answers request `id`; false if it no longer waits.
    pub fn answer(&mut self, id: u64, answer: Answer) -> bool {
        let Some(at) = self.pending.iter().position(|p| p.id == id) else {
            return false;
        };
        let pending = self.pending.remove(at);
        // The agent's call may have ended meanwhile: nobody to tell.
        let _ = pending.answer.send(answer);
        true
    }

    /// Forgets request `id` (its time ran out).
    pub fn withdraw(&mut self, id: u64) {
        self.pending.retain(|p| p.id != id);
    }

    /// Forgets every request of `session` (the agent is gone).
    pub fn forget_agent(&mut self, session: &str) -> bool {
        let before = self.pending.len();
        self.pending.retain(|p| p.session != session);
        self.pending.len() != before
    }

    /// The waiting requests, oldest first.
    pub fn waiting(&self) -> Vec<Waiting> {
        let shown = self.pending.iter().map(|p| Waiting {
            id: p.id,
            session: p.session.clone(),
            reason: p.reason.clone(),
            asked_ms: p.asked_ms,
        });
        shown.collect()
    }
}

/// The reason as the user sees it: cleaned and cut; a placeholder when empty.
fn shown_reason(raw: &str) -> String {
    tabwire_shared::names::display_text(raw, MAX_REASON_CHARS)
        .unwrap_or_else(|| "(no reason given)".to_owned())
}

/// What a request of an agent reaches in the engine: the browser (the button's badge
/// and notification, the tab shared), the waiting requests, the agents (their names)
/// and the tabs (the one shared, described).
pub(in crate::engine) struct Asking<'a, C> {
    /// The browser.
    pub(in crate::engine) chrome: &'a C,
    /// The requests waiting.
    pub(in crate::engine) requests: &'a RefCell<TabRequests>,
    /// The agents, for their names.
    pub(in crate::engine) sharing: &'a RefCell<Sharing>,
    /// The tabs, to describe the one shared.
    pub(in crate::engine) tabs: &'a Tabs,
}

impl<C: Chrome + 'static> Asking<'_, C> {
    /// Shows the waiting requests on tabwire's button (a badge and a notification),
    /// or takes them down when none waits.
    pub(in crate::engine) async fn show(&self) {
        let line = {
            let requests = self.requests.borrow().waiting();
            let sharing = self.sharing.borrow();
            requests.last().map(|r| {
                let name = sharing
                    .agent(&r.session)
                    .map(|a| a.name.clone())
                    .unwrap_or_default();
                format!("{name} asks to work on the tab in front: {}", r.reason)
            })
        };
        let shown = line
            .as_deref()
            .map(|line| (line, super::badge::asking(line)));
        let request = shown.as_ref().map(|(line, look)| (*line, look));
        if let Err(error) = self.chrome.show_request(request).await {
            self.chrome.log(&format!(
                "tabwire: could not show an agent's request: {error}"
            ));
        }
        self.chrome.state_changed();
    }

    /// The user's answer to request `id` (the tab is shared already, if it was):
    /// noted, and the button updated.
    pub(in crate::engine) async fn answered(&self, id: u64, answer: Answer) {
        self.requests.borrow_mut().answer(id, answer);
        self.show().await;
    }

    /// The agent `session` is gone: its requests end.
    pub(in crate::engine) async fn forget(&self, session: &str) {
        if self.requests.borrow_mut().forget_agent(session) {
            self.show().await;
        }
    }

    /// Waits for the user's answer to a request of `session`, within `timeout_ms`.
    pub(in crate::engine) async fn ask(
        &self,
        session: &str,
        request: RequestTab,
    ) -> Result<TabRequestAnswer, EngineError> {
        let now = self.chrome.now_ms();
        let (id, heard) =
            self.requests
                .borrow_mut()
                .ask(session, shown_reason(&request.reason), now);
        self.show().await;
        let answer = within(self.chrome.sleep(request.timeout_ms), heard).await;
        self.requests.borrow_mut().withdraw(id);
        self.show().await;
        match answer {
            Some(Ok(Answer::Shared(tab))) => {
                let state = tabs::existing_tab(self.chrome, tab).await?;
                let front = tabs::users_tab(self.chrome)
                    .await?
                    .is_some_and(|t| t.id == tab);
                Ok(TabRequestAnswer::Shared {
                    tab: tabs::describe(self.tabs, &state, front),
                })
            }
            Some(Ok(Answer::Declined)) => Ok(TabRequestAnswer::Declined),
            // Out of time, or replaced by a newer request of the same agent.
            None | Some(Err(_)) => Ok(TabRequestAnswer::Unanswered),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::fake::Harness;
    use serde_json::json;
    use tabwire_shared::requests::RequestTab;
    use tabwire_shared::TabRequestAnswer;

    fn ask(h: &mut Harness, id: u64, timeout_ms: u64) {
        h.call(
            id,
            RequestTab {
                reason: "check\u{202E} the cart total".into(),
                timeout_ms,
            },
        );
        h.settle();
    }

    fn answer_of(h: &Harness, id: u64) -> Option<TabRequestAnswer> {
        match h.reply_to::<RequestTab>(id)? {
            Ok(answer) => Some(answer),
            other => panic!("unexpected reply {other:?}"),
        }
    }

    fn waiting(h: &mut Harness) -> Vec<serde_json::Value> {
        let engine = h.engine.clone();
        let state = h.run(async move { engine.popup_state(Some(11)).await });
        serde_json::to_value(&state).unwrap()["requests"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    #[test]
    fn share_gives_the_agent_the_tab_the_popup_was_opened_on() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        ask(&mut h, 7, 60_000);
        assert_eq!(answer_of(&h, 7), None, "waits for the user");
        assert!(
            !h.engine.sharing.borrow().may_use("k1", 11),
            "nothing shared yet"
        );
        let shown = h.fake.request_shown().expect("badge and notification");
        assert!(
            shown.contains("claude asks to work on the tab in front: check the cart total"),
            "{shown}"
        );
        let requests = waiting(&mut h);
        assert_eq!(requests.len(), 1);
        assert_eq!(requests[0]["reason"], "check the cart total");
        let id = requests[0]["id"].clone();

        let share = json!({"action": "answerRequest", "id": id, "tab": 11, "share": true});
        assert_eq!(h.popup(share), Ok(()));
        match answer_of(&h, 7) {
            Some(TabRequestAnswer::Shared { tab }) => assert_eq!(tab.id, 11),
            other => panic!("{other:?}"),
        }
        assert!(h.engine.sharing.borrow().may_use("k1", 11));
        assert_eq!(h.fake.request_shown(), None, "the button is plain again");
        assert!(waiting(&mut h).is_empty());
    }

    #[test]
    fn not_now_and_silence_share_nothing() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        ask(&mut h, 7, 60_000);
        let id = waiting(&mut h)[0]["id"].clone();
        let decline = json!({"action": "answerRequest", "id": id, "tab": 10, "share": false});
        assert_eq!(h.popup(decline.clone()), Ok(()));
        assert_eq!(answer_of(&h, 7), Some(TabRequestAnswer::Declined));
        assert!(h.popup(decline).unwrap_err().contains("no longer waiting"));

        ask(&mut h, 8, 30_000);
        h.advance(29_999);
        assert_eq!(answer_of(&h, 8), None);
        h.advance(1);
        assert_eq!(answer_of(&h, 8), Some(TabRequestAnswer::Unanswered));
        assert!(h.engine.sharing.borrow().sharers(10).is_empty());
        assert!(h.engine.sharing.borrow().sharers(11).is_empty());
        assert_eq!(h.fake.request_shown(), None);
    }

    #[test]
    fn a_newer_request_of_the_agent_replaces_the_older_and_a_departed_agents_ends() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        ask(&mut h, 7, 60_000);
        ask(&mut h, 8, 60_000);
        assert_eq!(answer_of(&h, 7), Some(TabRequestAnswer::Unanswered));
        assert_eq!(waiting(&mut h).len(), 1);
        h.gone(1);
        assert!(waiting(&mut h).is_empty(), "gone with its agent");
        assert_eq!(h.fake.request_shown(), None);
    }
}
