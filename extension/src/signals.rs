//! Waiting for things that happen to a tab, and bounding every wait.
//!
//! A command that must wait for the browser (a load event, the end of a script) first
//! [`subscribe`](Signals::subscribe)s to its tab, then sends its CDP command, so no event
//! can slip between the two. The engine [`publish`](Signals::publish)es every page event,
//! debugger detach, tab update and tab closure (and an agent's closing it) to the tab's
//! subscribers. A [`Subscription`] unregisters itself when dropped, so an abandoned
//! command leaves nothing behind.
//!
//! [`within`] bounds any future by a timer: no wait in the engine is unbounded.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::rc::Rc;

use futures::channel::mpsc::{unbounded, UnboundedReceiver, UnboundedSender};
use futures::future::{select, Either};
use futures::StreamExt;
use tabwire_shared::TabId;

use crate::cdp::PageEvent;
use crate::chrome::TabChange;

/// Something that happened to a tab.
#[derive(Debug, Clone, PartialEq)]
pub enum TabSignal {
    /// A page event from the tab's debugger session.
    Page(PageEvent),
    /// An event of a cross-site frame's child session that a command acting in that
    /// frame waits for: a file chooser opening (an upload), a style sheet announced
    /// (`get_css_styles`), a WebMCP tool's answer, its contexts cleared (its document
    /// went; also told when the frame's session ends). Nothing else of a child
    /// session is published.
    InFrame {
        /// The child session.
        session: String,
        /// The event.
        event: PageEvent,
    },
    /// The debugger was detached, with Chrome's reason.
    Detached(String),
    /// The tab was closed.
    Closed,
    /// The user took the tab away from the agents (stopped sharing it, or it went to a
    /// site on their blocklist): why, in words for the agent.
    Withdrawn(String),
    /// An agent is closing the tab (`close_page`): commands running on it stop now.
    Closing,
    /// The tabs API reported a change (`chrome.tabs.onUpdated`): URL, group or load
    /// status. Seen even while no debugger is attached.
    Updated(TabChange),
}

type Subscribers = HashMap<TabId, Vec<(u64, UnboundedSender<TabSignal>)>>;

/// The registry of everyone waiting on a tab.
#[derive(Default)]
pub struct Signals {
    next_id: Cell<u64>,
    subscribers: RefCell<Subscribers>,
}

impl Signals {
    /// Starts receiving everything that happens to `tab` from now on.
    pub fn subscribe(self: &Rc<Self>, tab: TabId) -> Subscription {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        let (sender, receiver) = unbounded();
        self.subscribers
            .borrow_mut()
            .entry(tab)
            .or_default()
            .push((id, sender));
        Subscription {
            tab,
            id,
            receiver,
            backlog: VecDeque::new(),
            signals: Rc::clone(self),
        }
    }

    /// Delivers `signal` to every subscriber of `tab`.
    pub fn publish(&self, tab: TabId, signal: &TabSignal) {
        if let Some(list) = self.subscribers.borrow().get(&tab) {
            for (_, sender) in list {
                // A subscriber dropping concurrently is fine: nothing to deliver to.
                let _ = sender.unbounded_send(signal.clone());
            }
        }
    }

    fn unsubscribe(&self, tab: TabId, id: u64) {
        let mut subscribers = self.subscribers.borrow_mut();
        if let Some(list) = subscribers.get_mut(&tab) {
            list.retain(|(other, _)| *other != id);
            if list.is_empty() {
                subscribers.remove(&tab);
            }
        }
    }

    /// How many subscriptions are live (for tests: abandoned waits must not leak).
    #[cfg(test)]
    pub fn live(&self) -> usize {
        self.subscribers.borrow().values().map(Vec::len).sum()
    }
}

/// One waiter's view of a tab's signals, in order.
pub struct Subscription {
    tab: TabId,
    id: u64,
    receiver: UnboundedReceiver<TabSignal>,
    backlog: VecDeque<TabSignal>,
    signals: Rc<Signals>,
}

impl Subscription {
    /// The next signal, waiting for one if needed. Pends forever if the registry is
    /// gone, which cannot happen while the engine lives; callers bound it with [`within`].
    pub async fn next(&mut self) -> TabSignal {
        if let Some(signal) = self.backlog.pop_front() {
            return signal;
        }
        match self.receiver.next().await {
            Some(signal) => signal,
            None => futures::future::pending().await,
        }
    }

    /// The first signal already received (without waiting) that satisfies `pick`,
    /// removed from the queue; the others stay queued for [`next`](Self::next).
    pub fn take_pending(&mut self, pick: impl Fn(&TabSignal) -> bool) -> Option<TabSignal> {
        while let Ok(signal) = self.receiver.try_recv() {
            self.backlog.push_back(signal);
        }
        let index = self.backlog.iter().position(pick)?;
        self.backlog.remove(index)
    }

    /// Awaits `work` while watching the tab: the first signal that `interrupt` turns
    /// into an error ends the wait with that error. Other signals stay queued, in
    /// order, for [`next`](Self::next).
    pub async fn watch<T, E>(
        &mut self,
        work: impl Future<Output = T>,
        interrupt: impl Fn(&TabSignal) -> Option<E>,
    ) -> Result<T, E> {
        if let Some(error) = self
            .take_pending(|s| interrupt(s).is_some())
            .and_then(|s| interrupt(&s))
        {
            return Err(error);
        }
        let mut work = std::pin::pin!(work);
        loop {
            let signal = {
                let unseen = std::pin::pin!(self.receiver.next());
                match select(work.as_mut(), unseen).await {
                    Either::Left((value, _)) => return Ok(value),
                    Either::Right((Some(signal), _)) => signal,
                    // The registry is gone (cannot happen while the engine lives).
                    Either::Right((None, _)) => return Ok(work.await),
                }
            };
            if let Some(error) = interrupt(&signal) {
                return Err(error);
            }
            self.backlog.push_back(signal);
        }
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.signals.unsubscribe(self.tab, self.id);
    }
}

/// Runs `work` until it finishes or `timer` fires, whichever is first; `None` on timeout.
pub async fn within<T>(
    timer: impl Future<Output = ()>,
    work: impl Future<Output = T>,
) -> Option<T> {
    let timer = std::pin::pin!(timer);
    let work = std::pin::pin!(work);
    match select(work, timer).await {
        Either::Left((value, _)) => Some(value),
        Either::Right(((), _)) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::executor::block_on;

    #[test]
    fn subscribers_get_signals_published_after_they_subscribe() {
        let signals = Rc::new(Signals::default());
        signals.publish(1, &TabSignal::Closed);
        let mut first = signals.subscribe(1);
        let mut other_tab = signals.subscribe(2);
        signals.publish(1, &TabSignal::Detached("x".into()));
        assert_eq!(block_on(first.next()), TabSignal::Detached("x".into()));
        assert!(other_tab.take_pending(|_| true).is_none());
    }

    #[test]
    fn dropped_subscriptions_unregister() {
        let signals = Rc::new(Signals::default());
        let subscription = signals.subscribe(1);
        assert_eq!(signals.live(), 1);
        drop(subscription);
        assert_eq!(signals.live(), 0);
    }

    #[test]
    fn take_pending_keeps_what_it_does_not_pick() {
        let signals = Rc::new(Signals::default());
        let mut subscription = signals.subscribe(1);
        signals.publish(1, &TabSignal::Page(PageEvent::LoadEventFired));
        signals.publish(1, &TabSignal::Closed);
        let picked = subscription.take_pending(|s| *s == TabSignal::Closed);
        assert_eq!(picked, Some(TabSignal::Closed));
        assert_eq!(
            block_on(subscription.next()),
            TabSignal::Page(PageEvent::LoadEventFired)
        );
    }

    #[test]
    fn watch_stops_on_an_interrupting_signal_and_keeps_the_others() {
        let signals = Rc::new(Signals::default());
        let mut subscription = signals.subscribe(1);
        signals.publish(1, &TabSignal::Page(PageEvent::LoadEventFired));
        signals.publish(1, &TabSignal::Closed);
        let interrupt = |s: &TabSignal| (*s == TabSignal::Closed).then_some("closed");
        let out = block_on(subscription.watch(futures::future::pending::<()>(), interrupt));
        assert_eq!(out, Err("closed"));
        signals.publish(1, &TabSignal::Page(PageEvent::DialogClosed));
        let out = block_on(subscription.watch(async { 7 }, interrupt));
        assert_eq!(out, Ok(7));
        assert_eq!(
            block_on(subscription.next()),
            TabSignal::Page(PageEvent::LoadEventFired)
        );
    }

    #[test]
    fn within_returns_none_when_the_timer_wins() {
        let out = block_on(within(async {}, futures::future::pending::<()>()));
        assert_eq!(out, None);
        let out = block_on(within(futures::future::pending::<()>(), async { 5 }));
        assert_eq!(out, Some(5));
    }
}
