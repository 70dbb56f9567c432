//! The bounds a tab's console and network collectors share: the oldest entries go first
//! while more are kept than a count or a number of bytes allows (the newest always
//! stays), and each one let go is counted, per navigation, as dropped for count or for
//! space, so the lists can say so.

use std::collections::{BTreeMap, VecDeque};

use tabwire_shared::Dropped;

/// An entry a collector keeps: the navigation it belongs to, and what it costs.
pub trait Kept {
    /// The navigation (generation) the entry belongs to.
    fn generation(&self) -> u64;
    /// Its cost in bytes, as last measured.
    fn bytes(&self) -> usize;
}

/// The most entries, and the most bytes of them, a collector keeps.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    /// The most entries.
    pub count: usize,
    /// The most bytes.
    pub bytes: usize,
}

/// Lets go of the oldest of `entries` (costing `bytes` in all) while they exceed
/// `bounds`, counting each in `dropped`.
pub fn let_go_oldest<T: Kept>(
    entries: &mut VecDeque<T>,
    bytes: &mut usize,
    dropped: &mut BTreeMap<u64, Dropped>,
    bounds: Bounds,
) {
    while entries.len() > 1 && (entries.len() > bounds.count || *bytes > bounds.bytes) {
        let for_count = entries.len() > bounds.count;
        let Some(oldest) = entries.pop_front() else {
            break;
        };
        *bytes -= oldest.bytes();
        let counted = dropped.entry(oldest.generation()).or_default();
        match for_count {
            true => counted.for_count = counted.for_count.saturating_add(1),
            false => counted.for_space = counted.for_space.saturating_add(1),
        }
    }
}
