//! Cumulative Layout Shift: the worst session window of layout shifts, and what moved.
//!
//! As DevTools counts it: `LayoutShift` events without recent input, grouped into
//! clusters that end after a 1 s gap, after 5 s, or at a navigation; each shift
//! counts its `weighted_score_delta`; the CLS of a load is its highest cluster score.

use serde::Serialize;

use crate::insights::{Insight, InsightSet};
use crate::load::events::Event;
use crate::load::LoadContext;
use crate::load::Navigation;
use crate::text::format::{duration, element};
use serde_json::{json, Value};

/// Longest a cluster lasts, µs.
const MAX_CLUSTER: f64 = 5e6;
/// Longest gap within a cluster, µs.
const MAX_GAP: f64 = 1e6;

/// The CLS of a load.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Cls {
    /// The score (0 without shifts).
    pub score: f64,
    /// The worst cluster's shifts, in order.
    pub shifts: Vec<Shift>,
}

/// One layout shift of the worst cluster.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Shift {
    /// When, ms from the start of the load.
    pub at_ms: f64,
    /// Its weighted score.
    pub score: f64,
    /// The elements that moved, by their backend node ids in the trace.
    pub backend_node_ids: Vec<i64>,
    /// Their snapshot uids, when the tool found them in the page (same order;
    /// `null` for one not found).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub uids: Vec<Option<String>>,
}

/// The CLS of the shifts in `[from, until)`; `nav` is the load they belong to.
pub fn cls(events: &[Event], from: f64, until: f64, nav: Option<&Navigation>) -> Cls {
    let origin = nav.map_or(from, |n| n.ts);
    let shifts = events.iter().filter(|e| {
        e.name == "LayoutShift"
            && e.ts >= from
            && e.ts < until
            && e.data()["had_recent_input"].as_bool() != Some(true)
    });
    let mut clusters: Vec<(f64, Vec<&Event>)> = Vec::new();
    let (mut first, mut last) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
    for shift in shifts {
        if clusters.is_empty() || shift.ts - first > MAX_CLUSTER || shift.ts - last > MAX_GAP {
            clusters.push((0.0, Vec::new()));
            first = shift.ts;
        }
        last = shift.ts;
        if let Some((score, members)) = clusters.last_mut() {
            *score += shift.data()["weighted_score_delta"].as_f64().unwrap_or(0.0);
            members.push(shift);
        }
    }
    let Some((score, members)) = clusters.into_iter().max_by(|a, b| a.0.total_cmp(&b.0)) else {
        return Cls::default();
    };
    Cls {
        score,
        shifts: members
            .into_iter()
            .map(|e| Shift {
                at_ms: (e.ts - origin) / 1e3,
                score: e.data()["weighted_score_delta"].as_f64().unwrap_or(0.0),
                backend_node_ids: e.data()["impacted_nodes"]
                    .as_array()
                    .map(|nodes| nodes.iter().filter_map(|n| n["node_id"].as_i64()).collect())
                    .unwrap_or_default(),
                uids: Vec::new(),
            })
            .collect(),
    }
}

/// The CLSCulprits insight: the worst cluster of layout shifts and the elements they moved.
pub struct ClsCulpritsInsight;

impl Insight for ClsCulpritsInsight {
    const NAME: &'static str = "CLSCulprits";
    const ABOUT: &'static str = "";
    type Data = Cls;

    fn compute(load: &LoadContext) -> Cls {
        cls(load.events(), load.from, load.until, load.nav)
    }

    fn summary(set: &InsightSet) -> Vec<String> {
        let cls = &set.cls;
        if cls.shifts.is_empty() {
            // Without frames no shift could have been seen: the set's summary said so.
            return if set.drew_frames {
                vec!["- CLSCulprits: CLS 0 (no layout shifts).".to_owned()]
            } else {
                Vec::new()
            };
        }
        let moved = moved_elements(cls);
        vec![format!(
            "- CLSCulprits: CLS {:.3}, from {} shift(s); moved: {}.",
            cls.score,
            cls.shifts.len(),
            if moved.is_empty() {
                "elements the trace does not name".to_owned()
            } else {
                moved.join(", ")
            }
        )]
    }

    fn details(set: &InsightSet, lines: &mut Vec<String>) -> Value {
        lines.push(format!("CLS: {:.3}.", set.cls.score));
        for shift in &set.cls.shifts {
            let moved: Vec<String> = shift
                .backend_node_ids
                .iter()
                .enumerate()
                .map(|(i, n)| element(shift.uids.get(i).cloned().flatten().as_deref(), Some(*n)))
                .collect();
            lines.push(format!(
                "- At {}: score {:.4}; moved {}",
                duration(shift.at_ms),
                shift.score,
                if moved.is_empty() {
                    "nothing named".to_owned()
                } else {
                    moved.join(", ")
                }
            ));
        }
        json!(set.cls)
    }
}

/// The elements the shifts of `cls` moved, each named once.
fn moved_elements(cls: &Cls) -> Vec<String> {
    let mut named: Vec<String> = Vec::new();
    for shift in &cls.shifts {
        for (i, node) in shift.backend_node_ids.iter().enumerate() {
            let uid = shift.uids.get(i).cloned().flatten();
            let name = element(uid.as_deref(), Some(*node));
            if !named.contains(&name) {
                named.push(name);
            }
        }
    }
    named
}
