//! Per-tab collectors: console messages and network requests, tagged with the
//! navigation they belong to.
//!
//! A tab's [`Collectors`] are made when the debugger attaches (before the domains are
//! enabled, so what `Runtime.enable`, `Log.enable` and `Audits.enable` replay is kept)
//! and dropped when it detaches or the tab closes (a later attach replays the console
//! again). Every main-frame document the tab commits is a new *navigation*: the
//! generation counter goes up, and what is older than the last three is dropped. A
//! tab's collectors are reached through its state (`Tabs::with_collectors`).

use crate::cdp::events::{ConsoleEvent, NetworkEvent};

use super::state::console_log::ConsoleLog;
use super::state::network_log::NetworkLog;

/// How many navigations are kept: the current one and two before it.
pub const KEPT_NAVIGATIONS: u64 = 3;

/// What is collected for one tab.
#[derive(Debug, Default)]
pub struct Collectors {
    /// Counts the tab's main-frame documents; messages and requests are tagged with it.
    pub generation: u64,
    /// Console messages.
    pub console: ConsoleLog,
    /// Network requests.
    pub network: NetworkLog,
}

impl Collectors {
    /// Takes in a console event; true if it added a message.
    pub fn on_console(&mut self, event: ConsoleEvent) -> bool {
        self.console.on_event(self.generation, event)
    }

    /// Takes in a network event.
    pub fn on_network(&mut self, event: NetworkEvent) {
        self.network.on_event(self.generation, event);
    }

    /// The main frame committed a document of `loader`.
    pub fn on_navigation(&mut self, loader: &str) {
        self.generation += 1;
        let oldest = (self.generation + 1).saturating_sub(KEPT_NAVIGATIONS);
        self.console.prune(oldest);
        self.network.prune(oldest);
        // The requests that fetched this document belong to it, not to the one before.
        self.network.adopt(loader, self.generation);
    }
}
