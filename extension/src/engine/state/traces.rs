//! Every tab's performance trace, as the `StartTrace`, `StopTrace` and `ReadTrace`
//! commands (`engine/trace.rs`) leave it: held by the core, which notes a trace lost
//! when the debugger leaves or the tab closes, and which idle detach asks whether a
//! tab records.

use std::collections::HashMap;

use tabwire_shared::TabId;

/// What a tab's trace is doing.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::engine) enum TraceState {
    /// Recording.
    Recording,
    /// Stopped; its stream is being read.
    Stopped {
        /// The stream.
        stream: String,
    },
    /// Ended by Chrome before it was stopped: why, for the agent.
    Lost(String),
}

/// Every tab's trace.
#[derive(Debug, Default)]
pub(in crate::engine) struct Traces {
    tabs: HashMap<TabId, TraceState>,
}

impl Traces {
    /// Whether `tab` records or has a stream open (idle detach leaves it alone).
    pub(in crate::engine) fn active(&self, tab: TabId) -> bool {
        matches!(
            self.tabs.get(&tab),
            Some(TraceState::Recording | TraceState::Stopped { .. })
        )
    }

    /// The debugger left `tab` (`reason`, in words) or the tab closed: Chrome ended its
    /// trace and closed its stream.
    pub(in crate::engine) fn lost(&mut self, tab: TabId, reason: &str) {
        if self.active(tab) {
            self.tabs.insert(tab, TraceState::Lost(reason.to_owned()));
        }
    }

    /// What `tab`'s trace is doing (`None`: it has none).
    pub(in crate::engine) fn get(&self, tab: TabId) -> Option<TraceState> {
        self.tabs.get(&tab).cloned()
    }

    /// Sets what `tab`'s trace is doing (`None`: forgets it).
    pub(in crate::engine) fn set(&mut self, tab: TabId, state: Option<TraceState>) {
        match state {
            Some(state) => self.tabs.insert(tab, state),
            None => self.tabs.remove(&tab),
        };
    }
}
