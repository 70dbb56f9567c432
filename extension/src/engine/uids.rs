//! Element uids: the names agents use for elements, `<snapshot>_<n>`.
//!
//! A [`UidMap`] belongs to one document of one tab. A node keeps the uid it was first
//! given for as long as the document lives: a later snapshot shows it under the same
//! uid, and a uid an agent holds keeps naming the same element. A node seen for the
//! first time takes the number of the snapshot that saw it and the next `n` in that
//! snapshot. Elements that third-party tools return get uids the same way, numbered
//! after the latest snapshot (or a fresh number if the document has had none).
//!
//! When the document goes, so does its map (see [`super::document`]); snapshot numbers
//! come from an engine-wide counter, so a uid from a previous document can never name
//! a node of the next one.
//!
//! [`Pins`] are the nodes third-party tools returned: a snapshot always shows them,
//! even where the accessibility tree would leave them out.
//!
//! Both are bounded: a long-lived single-page app that churns its DOM does not make
//! them grow without end.

use std::collections::{HashMap, HashSet, VecDeque};

/// Past this many uids, a snapshot forgets the nodes it did not see (and that are not
/// pinned): they are most likely gone from the page.
const MAX_UIDS: usize = 50_000;

/// Past this many pinned nodes, the oldest pin is dropped.
const MAX_PINS: usize = 2_000;

/// The uids of one document.
#[derive(Debug, Default)]
pub struct UidMap {
    /// backend node id → (uid, number of the last snapshot that saw it).
    by_node: HashMap<i64, (String, u64)>,
    /// uid → backend node id.
    by_uid: HashMap<String, i64>,
    /// The snapshot number new uids take.
    current: Option<u64>,
    /// The next `n` under `current`.
    next: u64,
}

impl UidMap {
    /// Starts numbering new nodes after snapshot `number`.
    pub fn begin_snapshot(&mut self, number: u64) {
        self.current = Some(number);
        self.next = 1;
    }

    /// The uid of `node`, given now if it has none. `number` supplies a snapshot number
    /// when no snapshot of this document has been taken yet.
    pub fn uid_for(&mut self, node: i64, number: impl FnOnce() -> u64) -> String {
        let current = self.current_or(number);
        if let Some((uid, seen)) = self.by_node.get_mut(&node) {
            *seen = current;
            return uid.clone();
        }
        let uid = self.fresh(|| current);
        self.by_node.insert(node, (uid.clone(), current));
        self.by_uid.insert(uid.clone(), node);
        uid
    }

    /// A uid for a node that has no DOM node behind it (it names nothing later on).
    pub fn fresh(&mut self, number: impl FnOnce() -> u64) -> String {
        let current = self.current_or(number);
        let uid = format!("{current}_{}", self.next);
        self.next += 1;
        uid
    }

    fn current_or(&mut self, number: impl FnOnce() -> u64) -> u64 {
        match self.current {
            Some(current) => current,
            None => {
                let current = number();
                self.begin_snapshot(current);
                current
            }
        }
    }

    /// The node a uid names, if it names one in this document.
    pub fn node(&self, uid: &str) -> Option<i64> {
        self.by_uid.get(uid).copied()
    }

    /// The uid a node has, if it has one.
    #[cfg(test)]
    pub fn uid(&self, node: i64) -> Option<&str> {
        self.by_node.get(&node).map(|(uid, _)| uid.as_str())
    }

    /// How many nodes have uids.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.by_node.len()
    }

    /// Keeps the map bounded: once it is over its limit, forgets every node the
    /// current snapshot did not see, unless `keep` says otherwise.
    pub fn trim(&mut self, keep: impl Fn(i64) -> bool) {
        if self.by_node.len() <= MAX_UIDS {
            return;
        }
        let Some(current) = self.current else {
            return;
        };
        let by_uid = &mut self.by_uid;
        self.by_node.retain(|node, (uid, seen)| {
            let stays = *seen == current || keep(*node);
            if !stays {
                by_uid.remove(uid.as_str());
            }
            stays
        });
    }
}

/// The nodes third-party tools returned, oldest first.
#[derive(Debug, Default)]
pub struct Pins {
    order: VecDeque<i64>,
    set: HashSet<i64>,
}

impl Pins {
    /// Pins a node (dropping the oldest pin if there are too many).
    pub fn pin(&mut self, node: i64) {
        if !self.set.insert(node) {
            return;
        }
        self.order.push_back(node);
        if self.order.len() > MAX_PINS {
            if let Some(oldest) = self.order.pop_front() {
                self.set.remove(&oldest);
            }
        }
    }

    /// Unpins a node (it is gone from the page).
    pub fn unpin(&mut self, node: i64) {
        if self.set.remove(&node) {
            self.order.retain(|n| *n != node);
        }
    }

    /// Whether a node is pinned.
    pub fn contains(&self, node: i64) -> bool {
        self.set.contains(&node)
    }

    /// The pinned nodes, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = i64> + '_ {
        self.order.iter().copied()
    }

    /// How many nodes are pinned.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.order.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_keeps_its_uid_and_new_nodes_take_the_new_snapshots_number() {
        let mut map = UidMap::default();
        map.begin_snapshot(1);
        assert_eq!(map.uid_for(100, || 99), "1_1");
        assert_eq!(map.uid_for(200, || 99), "1_2");
        map.begin_snapshot(2);
        assert_eq!(map.uid_for(200, || 99), "1_2");
        assert_eq!(map.uid_for(300, || 99), "2_1");
        assert_eq!(map.node("1_2"), Some(200));
        assert_eq!(map.node("2_1"), Some(300));
        assert_eq!(map.uid(100), Some("1_1"));
        assert_eq!(map.node("2_2"), None);
    }

    #[test]
    fn elements_before_any_snapshot_get_a_fresh_number() {
        let mut map = UidMap::default();
        assert_eq!(map.uid_for(5, || 7), "7_1");
        assert_eq!(map.uid_for(6, || 8), "7_2", "the number is taken once");
        map.begin_snapshot(9);
        assert_eq!(map.uid_for(5, || 0), "7_1");
    }

    #[test]
    fn nodes_without_a_dom_node_get_uids_that_name_nothing() {
        let mut map = UidMap::default();
        map.begin_snapshot(3);
        let uid = map.fresh(|| 0);
        assert_eq!(uid, "3_1");
        assert_eq!(map.uid_for(1, || 0), "3_2");
        assert_eq!(map.node(&uid), None);
    }

    #[test]
    fn trimming_forgets_unseen_unpinned_nodes_only_past_the_limit() {
        let mut map = UidMap::default();
        map.begin_snapshot(1);
        for node in 0..(MAX_UIDS as i64 + 10) {
            map.uid_for(node, || 0);
        }
        map.begin_snapshot(2);
        map.uid_for(3, || 0);
        map.trim(|node| node == 4);
        assert_eq!(map.len(), 2);
        assert_eq!(map.node("1_4"), Some(3));
        assert_eq!(map.node("1_5"), Some(4));
        assert_eq!(map.node("1_1"), None);

        let mut small = UidMap::default();
        small.begin_snapshot(1);
        small.uid_for(1, || 0);
        small.begin_snapshot(2);
        small.trim(|_| false);
        assert_eq!(small.len(), 1, "under the limit nothing is forgotten");
    }

    #[test]
    fn pins_are_bounded_oldest_first() {
        let mut pins = Pins::default();
        for node in 0..(MAX_PINS as i64 + 1) {
            pins.pin(node);
        }
        pins.pin(5);
        assert_eq!(pins.len(), MAX_PINS);
        assert!(!pins.contains(0));
        assert!(pins.contains(1));
        pins.unpin(1);
        assert!(!pins.contains(1));
        assert_eq!(pins.iter().next(), Some(2));
    }
}
