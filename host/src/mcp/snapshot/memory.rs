//! The last snapshot each page's agent was given whole, to answer later ones with
//! their changes; and the numbers that name snapshots in replies.
//!
//! Kept per agent session and page, dropped with the page (and with the browser run).
//! A base is what the agent holds: a snapshot is one only once its reply was written
//! and held every node (inline, in a file, or as changes to the base before; a
//! `maxChars` reply with room for the whole tree too). After a reply that left nodes
//! out (a subtree, the viewport, a verbose tree, or siblings folded or cut away,
//! `unfold` or not), the base is still the last whole one, which the agent still has,
//! and changes are said against it by its number.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tabwire_shared::{Snapshot, TabId};

/// A snapshot the agent was given whole, and its number.
#[derive(Debug, Clone)]
pub struct Base {
    /// The number replies named it by.
    pub number: u64,
    /// The tree.
    pub snapshot: Arc<Snapshot>,
}

/// The last whole snapshot per page, and the next snapshot number.
#[derive(Debug, Default)]
pub struct SnapshotMemory {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    /// The last number given.
    last_number: u64,
    bases: HashMap<TabId, Base>,
}

impl SnapshotMemory {
    fn inner(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A new snapshot number (1 first).
    pub fn number(&self) -> u64 {
        let mut inner = self.inner();
        inner.last_number += 1;
        inner.last_number
    }

    /// The last snapshot of `tab` the agent was given whole.
    pub fn base(&self, tab: TabId) -> Option<Base> {
        self.inner().bases.get(&tab).cloned()
    }

    /// Makes `base` what later changes on `tab` are said against.
    pub fn remember(&self, tab: TabId, base: Base) {
        self.inner().bases.insert(tab, base);
    }

    /// Forgets `tab` (closed).
    pub fn forget(&self, tab: TabId) {
        self.inner().bases.remove(&tab);
    }

    /// Forgets every page (another browser run).
    pub fn clear(&self) {
        self.inner().bases.clear();
    }
}
