//! Background tasks: work that outlives the call or event that started it (timers,
//! saves, cleanup after a departure).
//!
//! A task holds the engine strongly while it runs; the engine holds only a weak
//! reference to itself, so a dropped engine starts no new tasks.

use std::future::Future;
use std::rc::Rc;

use super::Engine;
use crate::chrome::Chrome;

impl<C: Chrome + 'static> Engine<C> {
    /// Runs `work(engine)` as a task of its own.
    pub(super) fn in_background<F>(&self, work: impl FnOnce(Rc<Self>) -> F)
    where
        F: Future<Output = ()> + 'static,
    {
        if let Some(engine) = self.me.upgrade() {
            self.chrome.spawn(Box::pin(work(engine)));
        }
    }
}
