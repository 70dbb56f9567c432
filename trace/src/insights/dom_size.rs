//! DOM size: how many elements the page had, its deepest element and the element with
//! the most children, and the style and layout updates a large DOM made slow.
//!
//! Chrome records the figures in `DOMStats` (category
//! `disabled-by-default-devtools.timeline`) when it paints a frame; the largest in the
//! load counts, as in DevTools' trace engine — but only from the load's commit
//! (`CommitLoad` of its frame) on: until then the previous page is still on screen and
//! its paints describe it, with node ids of a document that is gone (DevTools takes
//! those too when they tie or win). A trace of a tab that drew no frame has
//! none: then the node count of `UpdateCounters` (elements, text and other nodes) is
//! what there is, said as such. Large updates follow the engine too: a `Layout` of 40
//! ms or more over more than 100 objects, an `UpdateLayoutTree` of 40 ms or more over
//! more than 300 elements, on the load's main thread; the five longest are kept.

use serde::Serialize;

use crate::insights::{Insight, InsightSet};
use crate::load::events::Event;
use crate::load::LoadContext;
use crate::text::format::{count, duration, element};
use serde_json::{json, Value};

/// Updates shorter than this are not large, µs.
const SLOW: f64 = 40e3;
/// Layouts over more objects than this are large.
const LAYOUT_OBJECTS: i64 = 100;
/// Style recalculations over more elements than this are large.
const STYLE_ELEMENTS: i64 = 300;
/// The most large updates kept.
const MAX_UPDATES: usize = 5;

/// The DOM size of a load.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DomSize {
    /// The most elements the page had (`DOMStats`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_elements: Option<i64>,
    /// The deepest element, and its depth.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deepest: Option<NodeFigure>,
    /// The element with the most children, and how many.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub widest: Option<NodeFigure>,
    /// The most DOM nodes of every kind the renderer counted (`UpdateCounters`), when
    /// there are no `DOMStats`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodes: Option<i64>,
    /// The slowest large style and layout updates, longest first.
    pub large_updates: Vec<LargeUpdate>,
}

/// An element and a figure about it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeFigure {
    /// Its depth, or its number of children.
    pub value: i64,
    /// How Chrome describes it (`DIV id='deep'`).
    pub node_name: String,
    /// Its backend node id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backend_node_id: Option<i64>,
    /// Its snapshot uid, when the tool found it in the page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
}

/// A slow style or layout update over many elements.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LargeUpdate {
    /// `Layout` or `UpdateLayoutTree` (a style recalculation).
    pub kind: String,
    /// How long, ms.
    pub duration_ms: f64,
    /// Objects laid out, or elements restyled.
    pub size: i64,
    /// When it began, ms from the start of the load.
    pub start_ms: f64,
}

fn figure(v: &serde_json::Value, key: &str) -> Option<NodeFigure> {
    Some(NodeFigure {
        value: v[key].as_i64()?,
        node_name: v["nodeName"].as_str().unwrap_or_default().to_owned(),
        backend_node_id: v["nodeId"].as_i64(),
        uid: None,
    })
}

/// What one load is: its bounds (µs), frame and process, main threads, and the origin
/// its times are measured from.
pub struct Scope<'a> {
    /// From.
    pub from: f64,
    /// Until.
    pub until: f64,
    /// The main frame, when known.
    pub frame: Option<&'a str>,
    /// The renderer, when known.
    pub pid: Option<i64>,
    /// The main threads to look at.
    pub threads: &'a [(i64, i64)],
    /// Times are from here.
    pub origin: f64,
}

/// When the load's document took the frame over: its first `CommitLoad` in the scope.
fn committed(events: &[Event], scope: &Scope) -> Option<f64> {
    let frame = scope.frame?;
    events
        .iter()
        .filter(|e| e.name == "CommitLoad" && e.ts >= scope.from && e.ts <= scope.until)
        .find(|e| e.data()["frame"].as_str() == Some(frame))
        .map(|e| e.ts)
}

/// The DOM size of a load.
pub fn dom_size(events: &[Event], scope: &Scope) -> DomSize {
    let overlaps = |e: &Event| e.ts <= scope.until && scope.from < e.ts + e.dur.unwrap_or(0.0);
    let committed = committed(events, scope).unwrap_or(scope.from);
    let mut size = DomSize::default();
    let stats = events
        .iter()
        .filter(|e| e.name == "DOMStats" && overlaps(e) && e.ts >= committed)
        .filter(|e| scope.frame.is_none() || e.data()["frame"].as_str() == scope.frame)
        .filter(|e| scope.pid.is_none_or(|pid| e.pid == pid))
        .filter_map(|e| Some((e.data()["totalElements"].as_i64()?, e)))
        .fold(None::<(i64, &Event)>, |best, (n, e)| match best {
            Some((m, _)) if m >= n => best,
            _ => Some((n, e)),
        });
    if let Some((total, e)) = stats {
        size.total_elements = Some(total);
        size.deepest = figure(&e.data()["maxDepth"], "depth");
        size.widest = figure(&e.data()["maxChildren"], "numChildren");
    } else {
        size.nodes = events
            .iter()
            .filter(|e| e.name == "UpdateCounters" && overlaps(e))
            .filter(|e| scope.pid.is_none_or(|pid| e.pid == pid))
            .filter_map(|e| e.data()["nodes"].as_i64())
            .max();
    }
    let mut updates: Vec<LargeUpdate> = events
        .iter()
        .filter(|e| e.ph == "X" && e.dur.unwrap_or(0.0) >= SLOW && overlaps(e))
        .filter(|e| scope.threads.contains(&(e.pid, e.tid)))
        .filter_map(|e| {
            let size = match e.name.as_str() {
                "Layout" => e.args["beginData"]["dirtyObjects"]
                    .as_i64()
                    .filter(|n| *n > LAYOUT_OBJECTS)?,
                "UpdateLayoutTree" => e.args["elementCount"]
                    .as_i64()
                    .filter(|n| *n > STYLE_ELEMENTS)?,
                _ => return None,
            };
            Some(LargeUpdate {
                kind: e.name.clone(),
                duration_ms: e.dur.unwrap_or(0.0) / 1e3,
                size,
                start_ms: (e.ts - scope.origin) / 1e3,
            })
        })
        .collect();
    updates.sort_by(|a, b| b.duration_ms.total_cmp(&a.duration_ms));
    updates.truncate(MAX_UPDATES);
    size.large_updates = updates;
    size
}

/// The DOMSize insight: the size of the DOM and the updates it made slow.
pub struct DomSizeInsight;

impl Insight for DomSizeInsight {
    const NAME: &'static str = "DOMSize";
    const ABOUT: &'static str = "";
    type Data = DomSize;

    fn compute(load: &LoadContext) -> DomSize {
        dom_size(
            load.events(),
            &Scope {
                from: load.from,
                until: load.until,
                frame: load.frame(),
                pid: load.pid(),
                threads: &load.threads,
                origin: load.from,
            },
        )
    }

    fn summary(set: &InsightSet) -> Vec<String> {
        let d = &set.dom_size;
        let mut line = match (d.total_elements, d.nodes) {
            (Some(total), _) => format!("- DOMSize: {} elements", count(total)),
            (None, Some(nodes)) => format!(
                "- DOMSize: {} DOM nodes (the trace has no DOMStats, which Chrome records when \
                 it paints)",
                count(nodes)
            ),
            (None, None) => "- DOMSize: the trace has no DOM figures".to_owned(),
        };
        if let Some(deep) = &d.deepest {
            line += &format!(", {} deep at {}", deep.value, named(deep));
        }
        if let Some(wide) = &d.widest {
            line += &format!(", most children {} at {}", count(wide.value), named(wide));
        }
        if let Some(slowest) = d.large_updates.first() {
            line += &format!(
                "; {} slow large update(s), the longest {} ({} over {})",
                d.large_updates.len(),
                duration(slowest.duration_ms),
                slowest.kind,
                count(slowest.size)
            );
        }
        vec![line + "."]
    }

    fn details(set: &InsightSet, lines: &mut Vec<String>) -> Value {
        let d = &set.dom_size;
        match (d.total_elements, d.nodes) {
            (Some(total), _) => lines.push(format!("Total elements: {}.", count(total))),
            (None, Some(nodes)) => lines.push(format!(
                "DOM nodes (elements, text and others): {}. The trace has no DOMStats (Chrome \
                 records them when it paints a frame), so depth and children are unknown.",
                count(nodes)
            )),
            (None, None) => lines.push("The trace has no DOM figures.".into()),
        }
        if let Some(deep) = &d.deepest {
            lines.push(format!("DOM depth: {}, at {}.", deep.value, named(deep)));
        }
        if let Some(wide) = &d.widest {
            lines.push(format!(
                "Most children: {}, at {}.",
                count(wide.value),
                named(wide)
            ));
        }
        if d.large_updates.is_empty() {
            lines.push("No style or layout update over many elements took 40 ms or more.".into());
        } else {
            lines.push("The slowest large style and layout updates:".into());
            for u in &d.large_updates {
                let what = if u.kind == "Layout" {
                    format!("Layout ({} objects)", count(u.size))
                } else {
                    format!("Style recalculation ({} elements)", count(u.size))
                };
                lines.push(format!(
                    "- {what} at {}: {}",
                    duration(u.start_ms),
                    duration(u.duration_ms)
                ));
            }
        }
        json!(d)
    }
}

/// A node the figures name: its name and the element.
fn named(f: &NodeFigure) -> String {
    format!(
        "{} ({})",
        f.node_name,
        element(f.uid.as_deref(), f.backend_node_id)
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{dom_size, Scope};
    use crate::load::events;

    #[test]
    fn the_largest_dom_stats_count_with_their_elements_and_slow_large_updates() {
        let list = json!({"traceEvents": [
            {"name": "DOMStats", "ph": "I", "ts": 10.0, "pid": 1, "tid": 2, "args": {"data": {
                "frame": "F", "totalElements": 10}}},
            {"name": "DOMStats", "ph": "I", "ts": 20.0, "pid": 1, "tid": 2, "args": {"data": {
                "frame": "F", "totalElements": 2100,
                "maxDepth": {"nodeId": 70, "nodeName": "DIV class='level'", "depth": 64},
                "maxChildren": {"nodeId": 71, "nodeName": "UL id='wide'", "numChildren": 2000}}}},
            {"name": "DOMStats", "ph": "I", "ts": 30.0, "pid": 1, "tid": 2, "args": {"data": {
                "frame": "OTHER", "totalElements": 9000}}},
            {"name": "UpdateLayoutTree", "ph": "X", "ts": 40.0, "dur": 50e3, "pid": 1, "tid": 2,
                "args": {"elementCount": 2000}},
            {"name": "Layout", "ph": "X", "ts": 100e3, "dur": 45e3, "pid": 1, "tid": 2,
                "args": {"beginData": {"dirtyObjects": 50}}},
            {"name": "Layout", "ph": "X", "ts": 200e3, "dur": 60e3, "pid": 1, "tid": 2,
                "args": {"beginData": {"dirtyObjects": 4000}}}
        ]});
        let events = events::parse(list.to_string().as_bytes()).expect("a trace");
        let scope = Scope {
            from: 0.0,
            until: 1e9,
            frame: Some("F"),
            pid: Some(1),
            threads: &[(1, 2)],
            origin: 0.0,
        };
        let size = dom_size(&events, &scope);
        assert_eq!(size.total_elements, Some(2100));
        let deepest = size.deepest.expect("the deepest");
        assert_eq!((deepest.value, deepest.backend_node_id), (64, Some(70)));
        assert_eq!(size.widest.expect("the widest").value, 2000);
        assert_eq!(size.nodes, None);
        let kinds: Vec<&str> = size.large_updates.iter().map(|u| u.kind.as_str()).collect();
        assert_eq!(kinds, ["Layout", "UpdateLayoutTree"]);
        assert_eq!(size.large_updates[0].size, 4000);
    }

    #[test]
    fn without_dom_stats_the_node_count_stands_in() {
        let list = json!([
            {"name": "UpdateCounters", "ph": "I", "ts": 10.0, "pid": 1, "tid": 2, "args": {"data": {"nodes": 500}}},
            {"name": "UpdateCounters", "ph": "I", "ts": 20.0, "pid": 1, "tid": 2, "args": {"data": {"nodes": 4000}}}
        ]);
        let events = events::parse(list.to_string().as_bytes()).expect("a trace");
        let scope = Scope {
            from: 0.0,
            until: 1e9,
            frame: None,
            pid: None,
            threads: &[],
            origin: 0.0,
        };
        let size = dom_size(&events, &scope);
        assert_eq!((size.total_elements, size.nodes), (None, Some(4000)));
    }

    #[test]
    fn the_previous_page_painting_before_the_commit_is_not_counted() {
        // As recorded on a reload: the old document paints once more after the
        // navigation starts, with the same figures and its own (now gone) node ids.
        let stats = |ts: f64, ul: i64, total: i64| {
            json!({"name": "DOMStats", "ph": "I", "ts": ts, "pid": 1, "tid": 2, "args": {"data": {
                "frame": "F", "totalElements": total,
                "maxDepth": {"nodeId": ul + 1, "nodeName": "DIV", "depth": 62},
                "maxChildren": {"nodeId": ul, "nodeName": "UL id='wide'", "numChildren": 2000}}}})
        };
        let list = json!([
            stats(50.0, 2, 2066),
            {"name": "CommitLoad", "ph": "X", "ts": 60.0, "dur": 1.0, "pid": 1, "tid": 2,
                "args": {"data": {"frame": "F", "isMainFrame": true}}},
            stats(90.0, 5, 2066),
            stats(95.0, 5, 2000)
        ]);
        let events = events::parse(list.to_string().as_bytes()).expect("a trace");
        let scope = Scope {
            from: 40.0,
            until: 1e9,
            frame: Some("F"),
            pid: Some(1),
            threads: &[(1, 2)],
            origin: 40.0,
        };
        let size = dom_size(&events, &scope);
        assert_eq!(size.total_elements, Some(2066));
        let widest = size.widest.expect("the widest");
        assert_eq!(widest.backend_node_id, Some(5), "the new document's list");
        // Without a commit in the trace, the whole load counts.
        let no_commit: Vec<_> = events
            .into_iter()
            .filter(|e| e.name != "CommitLoad")
            .collect();
        let widest = dom_size(&no_commit, &scope).widest.expect("the widest");
        assert_eq!(widest.backend_node_id, Some(2));
    }
}
