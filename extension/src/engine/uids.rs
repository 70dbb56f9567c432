//! Element uids: the names agents use for elements, `<number>_<n>`.
//!
//! The walker in each frame's isolated world (`page/snapshot.js`) is the authority on
//! which node a uid names: it gives a node a uid the first time one of its walks (or
//! a pin) sees it, numbered by the engine-wide number the engine passed to that call,
//! and keeps it for as long as the node lives. What the engine keeps, per document,
//! is where each number was used: a [`UidIndex`] from numbers to the frame whose
//! world gave them out, learnt from the uids the walks answer with. A uid's number
//! then says which world to ask about it. A uid whose number this document never
//! heard of (one from a previous document: numbers never repeat) is stale.
//!
//! [`Pins`] are the uids of elements third-party tools returned: a walk always shows
//! them, in their place in the DOM, even where it would leave them out. The walker
//! holds them; the engine only bounds how many there are.
//!
//! Both are bounded: a long-lived single-page app that churns its DOM does not make
//! them grow without end.

use std::collections::{HashMap, HashSet, VecDeque};

/// Past this many numbers, those no uid of the latest snapshot (or pin) uses are
/// forgotten.
const MAX_NUMBERS: usize = 50_000;

/// Past this many pinned elements, the oldest pin is dropped.
const MAX_PINS: usize = 2_000;

/// The frame whose isolated world gave a uid out: the frame's id, and the CDP child
/// session of a cross-site frame (`None`: the tab's own session).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FrameKey {
    /// The child session holding the frame, if it is not the tab's.
    pub session: Option<String>,
    /// The frame's id.
    pub frame: String,
}

impl FrameKey {
    /// A frame of the tab's own session.
    pub fn tab(frame: impl Into<String>) -> FrameKey {
        FrameKey {
            session: None,
            frame: frame.into(),
        }
    }
}

/// The number a uid was given under (`12` of `12_3`), if it is a uid at all.
pub fn number_of(uid: &str) -> Option<u64> {
    let (number, n) = uid.split_once('_')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(n) {
        return None;
    }
    number.parse().ok().filter(|_| digits(number))
}

/// Where the uids of one document come from.
#[derive(Debug, Default)]
pub struct UidIndex {
    /// number → (the frame that gave it, the last snapshot that showed one of its uids).
    numbers: HashMap<u64, (FrameKey, u64)>,
    /// Counts the snapshots read.
    current: u64,
}

impl UidIndex {
    /// Starts reading the uids of a new snapshot (it marks the numbers it sees).
    pub fn begin_snapshot(&mut self) {
        self.current += 1;
    }

    /// Notes that `uid` came from `frame`'s world (the first frame to use a number
    /// keeps it). Answers whether the uid's number belongs to that frame.
    pub fn learn(&mut self, uid: &str, frame: &FrameKey) -> bool {
        let Some(number) = number_of(uid) else {
            return false;
        };
        let current = self.current;
        let entry = self
            .numbers
            .entry(number)
            .or_insert_with(|| (frame.clone(), current));
        entry.1 = current;
        entry.0 == *frame
    }

    /// The frame whose world gave `uid` out, if this document gave it.
    pub fn frame_of(&self, uid: &str) -> Option<&FrameKey> {
        self.numbers.get(&number_of(uid)?).map(|(frame, _)| frame)
    }

    /// A cross-site frame was attached again under child session `session` (the
    /// debugger let go and came back): the numbers its world gave out under a session
    /// that `ended` are under the new one now, with those of the frames in it. Its
    /// world outlived the old session, as the page's worlds do, so its uids still
    /// name their nodes. Answers the sessions moved.
    pub fn rehome(
        &mut self,
        frame: &str,
        session: &str,
        ended: impl Fn(&str) -> bool,
    ) -> HashSet<String> {
        let old: HashSet<String> = (self.numbers.values())
            .filter(|(key, _)| key.frame == frame)
            .filter_map(|(key, _)| key.session.clone())
            .filter(|old| old != session && ended(old))
            .collect();
        for (key, _) in self.numbers.values_mut() {
            if key.session.as_ref().is_some_and(|s| old.contains(s)) {
                key.session = Some(session.to_owned());
            }
        }
        old
    }

    /// Keeps the index bounded: once over its limit, forgets the numbers the current
    /// snapshot did not show, unless `keep` says otherwise.
    pub fn trim(&mut self, keep: impl Fn(u64) -> bool) {
        if self.numbers.len() <= MAX_NUMBERS {
            return;
        }
        let current = self.current;
        self.numbers
            .retain(|number, (_, seen)| *seen == current || keep(*number));
    }

    /// How many numbers are known.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.numbers.len()
    }
}

/// The uids third-party tools returned, oldest first.
#[derive(Debug, Default)]
pub struct Pins {
    order: VecDeque<String>,
    set: HashSet<String>,
}

impl Pins {
    /// Pins a uid; the oldest pin if that makes too many, to be unpinned in its world.
    pub fn pin(&mut self, uid: &str) -> Option<String> {
        if !self.set.insert(uid.to_owned()) {
            return None;
        }
        self.order.push_back(uid.to_owned());
        if self.order.len() <= MAX_PINS {
            return None;
        }
        let oldest = self.order.pop_front()?;
        self.set.remove(&oldest);
        Some(oldest)
    }

    /// The numbers of the pinned uids.
    pub fn numbers(&self) -> HashSet<u64> {
        self.order.iter().filter_map(|uid| number_of(uid)).collect()
    }

    /// Whether a uid is pinned.
    #[cfg(test)]
    pub fn contains(&self, uid: &str) -> bool {
        self.set.contains(uid)
    }

    /// How many uids are pinned.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.order.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_uid_is_its_number_and_its_count() {
        assert_eq!(number_of("12_3"), Some(12));
        for bad in ["12", "_3", "12_", "a_1", "1_b", "+1_2", "1_2_3", "", "1_-2"] {
            assert_eq!(number_of(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_number_names_the_frame_that_gave_it_first() {
        let (main, child) = (FrameKey::tab("main"), FrameKey::tab("child"));
        let mut index = UidIndex::default();
        index.begin_snapshot();
        assert!(index.learn("1_1", &main));
        assert!(index.learn("1_2", &main));
        assert!(index.learn("2_1", &child));
        assert!(!index.learn("2_5", &main), "2 is the child's");
        assert!(!index.learn("nonsense", &main));
        assert_eq!(index.frame_of("1_9"), Some(&main));
        assert_eq!(index.frame_of("2_1"), Some(&child));
        assert_eq!(index.frame_of("3_1"), None);
        assert_eq!(index.frame_of("x"), None);
    }

    #[test]
    fn a_frame_attached_again_takes_its_numbers_to_its_new_session() {
        let key = |session: &str, frame: &str| FrameKey {
            session: Some(session.to_owned()),
            frame: frame.to_owned(),
        };
        let mut index = UidIndex::default();
        index.begin_snapshot();
        index.learn("1_1", &FrameKey::tab("main"));
        index.learn("2_1", &key("S1", "F1"));
        index.learn("3_1", &key("S1", "F1-inner"));
        index.learn("4_1", &key("S2", "F2"));
        let moved = index.rehome("F1", "S9", |s| s != "S2");
        assert_eq!(moved, HashSet::from(["S1".to_owned()]));
        assert_eq!(index.frame_of("2_1"), Some(&key("S9", "F1")));
        assert_eq!(index.frame_of("3_1"), Some(&key("S9", "F1-inner")));
        assert_eq!(index.frame_of("4_1"), Some(&key("S2", "F2")));
        assert_eq!(index.frame_of("1_1"), Some(&FrameKey::tab("main")));
        assert!(
            index.rehome("F2", "S8", |s| s != "S2").is_empty(),
            "S2 lives"
        );
    }

    #[test]
    fn trimming_forgets_unseen_unkept_numbers_only_past_the_limit() {
        let main = FrameKey::tab("main");
        let mut index = UidIndex::default();
        index.begin_snapshot();
        for number in 0..(MAX_NUMBERS as u64 + 10) {
            index.learn(&format!("{number}_1"), &main);
        }
        index.begin_snapshot();
        index.learn("3_7", &main);
        index.trim(|number| number == 4);
        assert_eq!(index.len(), 2);
        assert!(index.frame_of("3_1").is_some());
        assert!(index.frame_of("4_1").is_some());
        assert!(index.frame_of("5_1").is_none());

        let mut small = UidIndex::default();
        small.begin_snapshot();
        small.learn("1_1", &main);
        small.begin_snapshot();
        small.trim(|_| false);
        assert_eq!(small.len(), 1, "under the limit nothing is forgotten");
    }

    #[test]
    fn pins_are_bounded_oldest_first() {
        let mut pins = Pins::default();
        for n in 0..MAX_PINS {
            assert_eq!(pins.pin(&format!("1_{n}")), None);
        }
        assert_eq!(pins.pin("1_5"), None, "already pinned");
        assert_eq!(pins.pin("2_1"), Some("1_0".to_owned()));
        assert_eq!(pins.len(), MAX_PINS);
        assert!(!pins.contains("1_0"));
        assert!(pins.contains("2_1"));
        assert!(pins.numbers().contains(&2));
        assert!(!pins.numbers().contains(&3));
    }
}
