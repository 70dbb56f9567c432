//! One command at a time per tab, whichever agent sends it.
//!
//! The host already runs one agent's commands on a tab one after another; two agents
//! sharing a tab would still interleave (one typing while the other navigates). Each
//! tab gets a fair async lock: commands on one tab queue in arrival order, commands on
//! different tabs run side by side.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use futures::lock::{Mutex, OwnedMutexGuard};
use tabwire_shared::TabId;

/// The per-tab locks.
#[derive(Default)]
pub struct TabLocks {
    locks: RefCell<HashMap<TabId, Arc<Mutex<()>>>>,
}

/// Holds a tab until dropped.
pub type TabGuard = OwnedMutexGuard<()>;

impl TabLocks {
    /// Waits for the tab to be free and takes it.
    pub async fn lock(&self, tab: TabId) -> TabGuard {
        let lock = Arc::clone(self.locks.borrow_mut().entry(tab).or_default());
        lock.lock_owned().await
    }

    /// Whether a command holds (or waits for) the tab.
    pub fn busy(&self, tab: TabId) -> bool {
        self.locks
            .borrow()
            .get(&tab)
            .is_some_and(|lock| Arc::strong_count(lock) > 1)
    }

    /// Forgets a closed tab's lock (waiters keep their own handle on it).
    pub fn forget(&self, tab: TabId) {
        self.locks.borrow_mut().remove(&tab);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::executor::LocalPool;
    use futures::task::LocalSpawnExt;
    use std::rc::Rc;

    #[test]
    fn one_tab_runs_one_holder_at_a_time_others_run_freely() {
        let locks = Rc::new(TabLocks::default());
        let mut pool = LocalPool::new();
        let log = Rc::new(RefCell::new(Vec::new()));
        let first = futures::executor::block_on(locks.lock(1));
        for (tab, name) in [(1, "second on 1"), (2, "first on 2")] {
            let (locks, log) = (locks.clone(), log.clone());
            let task = async move {
                let _guard = locks.lock(tab).await;
                log.borrow_mut().push(name);
            };
            pool.spawner().spawn_local(task).unwrap();
        }
        pool.run_until_stalled();
        assert_eq!(*log.borrow(), vec!["first on 2"]);
        assert!(locks.busy(1));
        drop(first);
        pool.run_until_stalled();
        assert_eq!(*log.borrow(), vec!["first on 2", "second on 1"]);
        assert!(!locks.busy(1));
    }
}
