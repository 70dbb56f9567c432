//! A character budget for a snapshot (`maxChars`): runs of similar siblings folded.
//!
//! Big pages are mostly repetition: a thousand rows, each a heading, a paragraph, a
//! link and a button. Two siblings are *similar* when their subtrees have the same
//! shape (the same roles at the same depths, whatever the names); a *run* is a group
//! of one to [`MAX_PERIOD`] siblings repeated back to back. Over the budget, the runs
//! that save the most are folded first: the first [`KEEP`] repeats stay, the rest
//! become one line naming the parent to unfold. The room the folds leave under the
//! budget then shows more repeats again, one per fold in turn in the tree's order, so
//! a bigger budget shows more of every run, and the same input the same view. A parent named in `unfold` keeps all
//! its children, and nothing containing it is folded. If folding is not enough, the
//! tree is cut where the budget runs out, and [`Cut`] says what is missing and how
//! to get it.
//!
//! The budget counts the characters of the tree's lines as the text shows them, fold
//! lines included; the note saying where the tree was cut comes on top.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

use tabwire_shared::SnapshotNode;

use super::links::{Links, UidIndex};
use crate::mcp::output::snapshot::text as snapshot;

/// How many repeats of a run stay in view before the fold, at least.
pub const KEEP: usize = 3;
/// The longest group of siblings recognised as repeating.
pub const MAX_PERIOD: usize = 8;
/// A run is folded only when at least this many repeats would be hidden.
const MIN_FOLDED: usize = 2;

/// One line of a view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Row<'a> {
    /// A node, at its depth in the view.
    Node {
        /// The node's place in the viewed nodes.
        index: usize,
        /// The node.
        node: &'a SnapshotNode,
        /// Its depth, counted from the view's root.
        depth: u32,
    },
    /// Siblings folded away.
    Fold(Fold<'a>),
}

/// Repeats of a run hidden behind one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fold<'a> {
    /// Where the first hidden node is in the viewed nodes.
    pub index: usize,
    /// The depth of the hidden siblings.
    pub depth: u32,
    /// The uid of their parent: `unfold` takes it.
    pub parent: &'a str,
    /// How many repeats are hidden.
    pub count: usize,
    /// The roles of one repeat's siblings.
    pub like: Vec<&'a str>,
    /// How many lines (nodes) are hidden.
    pub lines: usize,
}

/// What is missing from a view because even folded it was over the budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cut<'a> {
    /// The budget.
    pub max_chars: usize,
    /// How many lines (nodes) are not shown.
    pub lines: usize,
    /// The missing parts: for each parent, its children from one on.
    pub rest: Vec<Rest<'a>>,
}

/// Children of one parent missing from a view, from `from` to the last.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rest<'a> {
    /// The parent's uid (`None`: top-level nodes).
    pub parent: Option<&'a str>,
    /// The first missing child's uid.
    pub from: &'a str,
    /// How many children are missing, `from` included.
    pub children: usize,
}

/// What of a list of nodes is shown: its rows, and what was cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct View<'a> {
    /// The lines, in order.
    pub rows: Vec<Row<'a>>,
    /// Set when the budget was not met even folded.
    pub cut: Option<Cut<'a>>,
    /// The budget asked for, if any.
    pub max_chars: Option<usize>,
    /// uids in `unfold` that no viewed node has.
    pub unknown_unfold: Vec<String>,
}

impl View<'_> {
    /// Whether some siblings are folded.
    pub fn folded(&self) -> bool {
        self.rows.iter().any(|row| matches!(row, Row::Fold(_)))
    }
}

/// The view of `nodes` (pre-order, the first at `base_depth` or deeper) within
/// `max_chars` characters, leaving the children of `unfold`'s uids unfolded.
pub fn view<'a>(
    nodes: &'a [SnapshotNode],
    base_depth: u32,
    max_chars: Option<usize>,
    unfold: &[String],
) -> View<'a> {
    let depth = |i: usize| nodes[i].depth.saturating_sub(base_depth);
    let node_row = |i: usize| Row::Node {
        index: i,
        node: &nodes[i],
        depth: depth(i),
    };
    let index = UidIndex::of(nodes);
    let unknown_unfold = unfold
        .iter()
        .filter(|uid| !index.contains(uid))
        .cloned()
        .collect();
    let all = || (0..nodes.len()).map(node_row).collect::<Vec<_>>();
    let Some(budget) = max_chars else {
        return View {
            rows: all(),
            cut: None,
            max_chars,
            unknown_unfold,
        };
    };
    let lengths: Vec<usize> = (0..nodes.len()).map(|i| row_chars(&node_row(i))).collect();
    let mut total: usize = lengths.iter().sum();
    if total <= budget {
        return View {
            rows: all(),
            cut: None,
            max_chars,
            unknown_unfold,
        };
    }

    let links = Links::of(nodes);
    let kept: HashSet<usize> = unfold.iter().filter_map(|uid| index.get(uid)).collect();
    // How many unfolded parents come before each index: a range holding one is kept.
    let mut kept_before = vec![0usize; nodes.len() + 1];
    for i in 0..nodes.len() {
        kept_before[i + 1] = kept_before[i] + usize::from(kept.contains(&i));
    }
    let mut prefix = vec![0usize; nodes.len() + 1];
    for i in 0..nodes.len() {
        prefix[i + 1] = prefix[i] + lengths[i];
    }

    // (chars saved, the fold, where it ends, where each hidden repeat starts)
    let mut candidates: Vec<(usize, Fold<'a>, usize, VecDeque<usize>)> = Vec::new();
    let shapes = shapes(nodes, &links);
    for parent in 0..nodes.len() {
        if kept.contains(&parent) {
            continue;
        }
        let children = &links.children[parent];
        for run in runs(children, &shapes) {
            let first = children[run.start + KEEP * run.period];
            let last = children[run.start + run.groups * run.period - 1];
            let end = links.end[last];
            if kept_before[end] > kept_before[first] {
                continue;
            }
            let fold = Fold {
                index: first,
                depth: depth(first),
                parent: &nodes[parent].uid,
                count: run.groups - KEEP,
                like: children[run.start..run.start + run.period]
                    .iter()
                    .map(|&c| nodes[c].role.as_str())
                    .collect(),
                lines: end - first,
            };
            let saved =
                (prefix[end] - prefix[first]).saturating_sub(row_chars(&Row::Fold(fold.clone())));
            let repeats = (KEEP..run.groups)
                .map(|g| children[run.start + g * run.period])
                .collect();
            candidates.push((saved, fold, end, repeats));
        }
    }
    candidates.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.index.cmp(&b.1.index)));

    // Folds applied, by where they start, with where they end and where each hidden
    // repeat starts.
    let mut folds: BTreeMap<usize, (Fold<'a>, usize, VecDeque<usize>)> = BTreeMap::new();
    let mut hidden = vec![false; nodes.len()];
    for (_, fold, end, repeats) in candidates {
        if total <= budget {
            break;
        }
        if hidden[fold.index] {
            continue; // inside a bigger fold already
        }
        let inner: Vec<usize> = folds.range(fold.index..end).map(|(&at, _)| at).collect();
        for at in inner {
            if let Some((inner, _, _)) = folds.remove(&at) {
                total -= row_chars(&Row::Fold(inner));
            }
        }
        for (i, is_hidden) in hidden.iter_mut().enumerate().take(end).skip(fold.index) {
            if !*is_hidden {
                *is_hidden = true;
                total -= lengths[i];
            }
        }
        total += row_chars(&Row::Fold(fold.clone()));
        folds.insert(fold.index, (fold, end, repeats));
    }
    if total <= budget {
        total = give_back(&mut folds, total, budget, &prefix);
    }

    let mut rows = Vec::new();
    let mut i = 0;
    while i < nodes.len() {
        if let Some((fold, end, _)) = folds.get(&i) {
            rows.push(Row::Fold(fold.clone()));
            i = *end;
        } else {
            rows.push(node_row(i));
            i += 1;
        }
    }
    let cut = (total > budget).then(|| cut(&mut rows, budget, nodes, &links));
    View {
        rows,
        cut,
        max_chars,
        unknown_unfold,
    }
}

/// Shows again, while the budget allows, the first hidden repeat of each fold in turn
/// (in the order of the tree, round after round, so every run gets its share); a fold
/// left with fewer than [`MIN_FOLDED`] repeats goes when all of them fit. Returns the
/// new total.
fn give_back<'a>(
    folds: &mut BTreeMap<usize, (Fold<'a>, usize, VecDeque<usize>)>,
    mut total: usize,
    budget: usize,
    prefix: &[usize],
) -> usize {
    loop {
        let mut shown_any = false;
        let starts: Vec<usize> = folds.keys().copied().collect();
        for at in starts {
            let Some((fold, end, mut repeats)) = folds.remove(&at) else {
                continue;
            };
            let old_line = row_chars(&Row::Fold(fold.clone()));
            if fold.count <= MIN_FOLDED {
                // The rest, and no fold line, or nothing.
                let all = prefix[end] - prefix[fold.index];
                if total - old_line + all <= budget {
                    total = total - old_line + all;
                    shown_any = true;
                } else {
                    folds.insert(at, (fold, end, repeats));
                }
                continue;
            }
            let next = repeats[1];
            let mut smaller = fold.clone();
            smaller.index = next;
            smaller.count -= 1;
            smaller.lines = end - next;
            let now = total - old_line
                + (prefix[next] - prefix[fold.index])
                + row_chars(&Row::Fold(smaller.clone()));
            if now <= budget {
                total = now;
                shown_any = true;
                repeats.pop_front();
                folds.insert(next, (smaller, end, repeats));
            } else {
                folds.insert(at, (fold, end, repeats));
            }
        }
        if !shown_any {
            return total;
        }
    }
}

/// The characters a row takes in the text, its newline included.
fn row_chars(row: &Row) -> usize {
    let mut line = String::new();
    snapshot::write_row(&mut line, row);
    line.chars().count()
}

/// Ends `rows` where `budget` runs out (always after the first), saying what is left.
fn cut<'a>(
    rows: &mut Vec<Row<'a>>,
    budget: usize,
    nodes: &'a [SnapshotNode],
    links: &Links,
) -> Cut<'a> {
    let mut used = 0;
    let mut keep = rows.len();
    for (r, row) in rows.iter().enumerate() {
        used += row_chars(row);
        if used > budget && r > 0 {
            keep = r;
            break;
        }
    }
    let first_missing = match rows.get(keep) {
        Some(Row::Node { index, .. }) => *index,
        Some(Row::Fold(fold)) => fold.index,
        None => nodes.len(),
    };
    rows.truncate(keep);
    let mut rest = Vec::new();
    let mut from = Some(first_missing).filter(|&i| i < nodes.len());
    while let Some(child) = from {
        let parent = links.parent[child];
        let siblings = links.children_of(parent);
        rest.push(Rest {
            parent: parent.map(|p| nodes[p].uid.as_str()),
            from: &nodes[child].uid,
            children: siblings.len() - links.position[child],
        });
        // On to the nearest ancestor with a sibling after it.
        from = None;
        let mut above = parent;
        while let Some(a) = above {
            let next = links.end[a];
            if next < nodes.len() && links.parent[next] == links.parent[a] {
                from = Some(next);
                break;
            }
            above = links.parent[a];
        }
    }
    Cut {
        max_chars: budget,
        lines: nodes.len() - first_missing,
        rest,
    }
}

/// A run of siblings: `groups` repeats of `period` siblings from `start`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Run {
    start: usize,
    period: usize,
    groups: usize,
}

/// The runs among `children` worth folding, by their subtrees' shapes.
fn runs(children: &[usize], shapes: &[u32]) -> Vec<Run> {
    let s: Vec<u32> = children.iter().map(|&c| shapes[c]).collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let mut best: Option<Run> = None;
        for period in 1..=MAX_PERIOD {
            if i + period * (KEEP + MIN_FOLDED) > s.len() {
                break;
            }
            let mut k = i + period;
            while k < s.len() && s[k] == s[k - period] {
                k += 1;
            }
            let groups = (k - i) / period;
            if groups >= KEEP + MIN_FOLDED
                && best.is_none_or(|b| groups * period > b.groups * b.period)
            {
                best = Some(Run {
                    start: i,
                    period,
                    groups,
                });
            }
        }
        match best {
            Some(run) => {
                found.push(run);
                i += run.groups * run.period;
            }
            None => i += 1,
        }
    }
    found
}

/// Each node's subtree shape as a number: equal numbers, equal roles at equal depths.
fn shapes(nodes: &[SnapshotNode], links: &Links) -> Vec<u32> {
    let mut ids: HashMap<(&str, Vec<u32>), u32> = HashMap::new();
    let mut shape = vec![0u32; nodes.len()];
    // Children come after their parent: from the end, each child is done first.
    for i in (0..nodes.len()).rev() {
        let key = (
            nodes[i].role.as_str(),
            links.children[i].iter().map(|&c| shape[c]).collect(),
        );
        let next = ids.len() as u32;
        shape[i] = *ids.entry(key).or_insert(next);
    }
    shape
}

#[cfg(test)]
#[path = "fold_tests.rs"]
mod tests;
