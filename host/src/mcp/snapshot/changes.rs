//! What changed between two snapshots of one document, as the agent needs it to
//! bring the tree it was given up to date.
//!
//! uids are stable for the life of a document, so nodes are matched by uid. A node is
//! *placed* when it is new, or when it has a different parent or a different order
//! among the siblings it kept (the fewest moved, by a longest increasing run); each
//! topmost placed node comes with everything under it, and placed siblings next to
//! each other come as one block. A node in both, not placed, whose line differs is
//! *changed*. The topmost nodes that are gone are *removed* (what was under them
//! goes with them, unless it is shown placed elsewhere).
//!
//! Two snapshots are not compared when their roots differ (another document), when
//! a tree has several roots or a uid twice (not one well-formed tree), or when little
//! of the first is left ([`MIN_OVERLAP`]): the whole tree says it better.

use tabwire_shared::{Snapshot, SnapshotNode};

use super::links::{Links, UidIndex};

/// Below this share of the earlier snapshot's nodes still there, the whole tree is
/// sent instead.
pub const MIN_OVERLAP: f64 = 0.25;

/// The changes from one snapshot to the next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changes<'a> {
    /// The page's URL, when it is not what it was.
    pub url: Option<&'a str>,
    /// The uids of the topmost nodes that are gone.
    pub removed: Vec<&'a str>,
    /// Nodes whose line changed, as they are now.
    pub changed: Vec<&'a SnapshotNode>,
    /// Nodes new or moved, with everything under them, by parent.
    pub placed: Vec<Placed<'a>>,
}

impl Changes<'_> {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.url.is_none()
            && self.removed.is_empty()
            && self.changed.is_empty()
            && self.placed.is_empty()
    }
}

/// Siblings placed under one parent, next to each other, with their subtrees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed<'a> {
    /// The parent's uid.
    pub parent: &'a str,
    /// The first sibling's place among the parent's children now, 0 first.
    pub position: usize,
    /// How many siblings.
    pub count: usize,
    /// Their nodes, each subtree in pre-order.
    pub nodes: &'a [SnapshotNode],
    /// The siblings' depth in the snapshot.
    pub depth: u32,
}

/// Why two snapshots were not compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unrelated {
    /// The roots differ: the page holds another document.
    OtherDocument,
    /// A tree is not one well-formed tree (several roots, a uid twice, none).
    Malformed,
    /// Too little of the earlier snapshot is left.
    LittleLeft,
}

impl Unrelated {
    /// Why, in words for the agent.
    pub fn reason(self) -> &'static str {
        match self {
            Self::OtherDocument => "the page holds another document since",
            Self::Malformed => "the two trees cannot be matched node by node",
            Self::LittleLeft => "little of the page is left since",
        }
    }
}

/// What changed from `base` to `now`.
pub fn compare<'a>(base: &'a Snapshot, now: &'a Snapshot) -> Result<Changes<'a>, Unrelated> {
    let (old, new) = (&base.nodes, &now.nodes);
    let old_links = Links::of(old);
    let new_links = Links::of(new);
    if old_links.roots.len() != 1 || new_links.roots.len() != 1 {
        return Err(Unrelated::Malformed);
    }
    if old[0].uid != new[0].uid {
        return Err(Unrelated::OtherDocument);
    }
    let old_index = UidIndex::of(old);
    let new_index = UidIndex::of(new);
    if old_index.repeated || new_index.repeated {
        return Err(Unrelated::Malformed);
    }
    let kept = new.iter().filter(|n| old_index.contains(&n.uid)).count();
    if (kept as f64) < MIN_OVERLAP * old.len() as f64 {
        return Err(Unrelated::LittleLeft);
    }

    // Placed: new, under another parent, or out of order among the siblings kept.
    let old_parent_uid = |j: usize| old_links.parent[j].map(|p| old[p].uid.as_str());
    let mut placed = vec![false; new.len()];
    for (i, node) in new.iter().enumerate().skip(1) {
        let parent = new_links.parent[i].map(|p| new[p].uid.as_str());
        placed[i] = match old_index.get(&node.uid) {
            None => true,
            Some(j) => old_parent_uid(j) != parent,
        };
    }
    for p in 0..new.len() {
        let stayed: Vec<usize> = new_links.children[p]
            .iter()
            .copied()
            .filter(|&c| !placed[c])
            .collect();
        let order: Vec<usize> = stayed
            .iter()
            .map(|&c| {
                old_index
                    .get(&new[c].uid)
                    .map_or(0, |j| old_links.position[j])
            })
            .collect();
        let in_order = longest_increasing(&order);
        let mut keep = in_order.iter().peekable();
        for (k, &c) in stayed.iter().enumerate() {
            if keep.peek() == Some(&&k) {
                keep.next();
            } else {
                placed[c] = true;
            }
        }
    }

    // Topmost placed nodes, neighbours under one parent merged into blocks: each
    // block as (parent, first position, count, start, end) in `new`.
    let mut spans: Vec<(usize, usize, usize, usize, usize)> = Vec::new();
    let mut covered = vec![false; new.len()];
    let mut i = 1;
    while i < new.len() {
        if !placed[i] {
            i += 1;
            continue;
        }
        let end = new_links.end[i];
        covered[i..end].iter_mut().for_each(|c| *c = true);
        let parent = new_links.parent[i].unwrap_or(0);
        let position = new_links.position[i];
        match spans.last_mut() {
            Some(span) if span.0 == parent && span.1 + span.2 == position && span.4 == i => {
                span.2 += 1;
                span.4 = end;
            }
            _ => spans.push((parent, position, 1, i, end)),
        }
        i = end;
    }
    let blocks = spans
        .into_iter()
        .map(|(parent, position, count, start, end)| Placed {
            parent: &new[parent].uid,
            position,
            count,
            nodes: &new[start..end],
            depth: new[start].depth,
        })
        .collect();

    let changed = new
        .iter()
        .enumerate()
        .filter(|(i, node)| {
            !covered[*i]
                && old_index
                    .get(&node.uid)
                    .is_some_and(|j| !same_line(&old[j], node))
        })
        .map(|(_, node)| node)
        .collect();
    let removed = old
        .iter()
        .enumerate()
        .filter(|(j, node)| {
            !new_index.contains(&node.uid)
                && old_links.parent[*j].is_none_or(|p| new_index.contains(&old[p].uid))
        })
        .map(|(_, node)| node.uid.as_str())
        .collect();
    Ok(Changes {
        url: (base.url != now.url).then_some(now.url.as_str()),
        removed,
        changed,
        placed: blocks,
    })
}

/// Whether two nodes read the same (the depth aside: that follows from the parent).
fn same_line(a: &SnapshotNode, b: &SnapshotNode) -> bool {
    a.role == b.role && a.name == b.name && a.value == b.value && a.states == b.states
}

/// The places (ascending) of a longest strictly increasing subsequence of `values`.
fn longest_increasing(values: &[usize]) -> Vec<usize> {
    // tails[k]: the place of the smallest last value of an increasing run of k + 1.
    let mut tails: Vec<usize> = Vec::new();
    let mut before: Vec<Option<usize>> = vec![None; values.len()];
    for (i, &v) in values.iter().enumerate() {
        let k = tails.partition_point(|&t| values[t] < v);
        before[i] = k.checked_sub(1).map(|k| tails[k]);
        if k == tails.len() {
            tails.push(i);
        } else {
            tails[k] = i;
        }
    }
    let mut run = Vec::with_capacity(tails.len());
    let mut at = tails.last().copied();
    while let Some(i) = at {
        run.push(i);
        at = before[i];
    }
    run.reverse();
    run
}

#[cfg(test)]
#[path = "changes_tests.rs"]
mod tests;
