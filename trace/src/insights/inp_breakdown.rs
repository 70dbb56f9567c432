//! Interaction to Next Paint: the page's interactions, as Chrome's Event Timing
//! records them, and the slow one with its three phases.
//!
//! Each event of an interaction (a `pointerdown`, a `click`, a `keyup`...) is an
//! `EventTiming` async pair: the begin (`b`) carries its type, interaction id, target
//! node and, in milliseconds of the page's clock, when it was dispatched
//! (`timeStamp`), when its handlers started (`processingStart`) and ended
//! (`processingEnd`); the end (`e`) is when the next frame was presented. The
//! definitions follow DevTools' trace engine:
//! - only begins with a duration of at least 1 ms, a non-zero interaction id, a type
//!   and all three times count; a begin pairs with the next end of the same id;
//! - events of one category (pointer, keyboard, other) that end together are one
//!   interaction, kept as the one that began first, with the widest processing span
//!   of all of them;
//! - per interaction id the longest event stands for it, and INP is the
//!   interaction at the 98th percentile of those (the longest, up to 50 of them);
//! - input delay runs from the event to its processing, processing duration is the
//!   handlers' time, presentation delay from their end to the frame.

use std::collections::HashMap;

use serde::Serialize;

use crate::insights::{Insight, InsightSet};
use crate::load::events::Event;
use crate::load::LoadContext;
use crate::text::format::{duration, element};
use serde_json::{json, Value};

/// Interactions slower than this are not good, ms.
pub const GOOD_MS: f64 = 200.0;

/// The slowest interactions given in detail.
const MAX_LISTED: usize = 10;

/// The INP of a load, its interaction and the slowest others.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Inp {
    /// INP, ms: the duration of [`Inp::interaction`].
    pub ms: f64,
    /// The interaction INP is.
    pub interaction: Interaction,
    /// The slowest interactions (one per interaction id, slowest first).
    pub slowest: Vec<Interaction>,
    /// How many interactions the load had.
    pub interactions: usize,
}

/// One interaction.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Interaction {
    /// The event's type (`click`, `pointerdown`, `keydown`...).
    #[serde(rename = "type")]
    pub kind: String,
    /// Chrome's interaction id.
    pub interaction_id: i64,
    /// When it began, ms from the start of the load.
    pub start_ms: f64,
    /// From the input to the next frame, ms.
    pub duration_ms: f64,
    /// From the input to its handlers starting, ms.
    pub input_delay_ms: f64,
    /// The handlers' time, ms.
    pub processing_ms: f64,
    /// From the handlers' end to the next frame, ms.
    pub presentation_delay_ms: f64,
    /// The target element's backend node id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backend_node_id: Option<i64>,
    /// The target's snapshot uid, when the tool found it in the page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
}

impl Interaction {
    /// The longest of its three phases, named.
    pub fn largest_phase(&self) -> (&'static str, f64) {
        [
            ("input delay", self.input_delay_ms),
            ("processing duration", self.processing_ms),
            ("presentation delay", self.presentation_delay_ms),
        ]
        .into_iter()
        .fold(("input delay", f64::NEG_INFINITY), |best, p| {
            if p.1 > best.1 {
                p
            } else {
                best
            }
        })
    }
}

/// An interaction event in trace time (µs).
#[derive(Debug, Clone)]
struct Timed {
    kind: String,
    id: i64,
    ts: f64,
    end: f64,
    processing_start: f64,
    processing_end: f64,
    node: Option<i64>,
}

/// An async event's id (`id`, else `id2.global`, else `id2.local`), as text.
fn async_id(event: &Event) -> Option<String> {
    use crate::load::events::text;
    event
        .id
        .as_ref()
        .and_then(text)
        .or_else(|| event.id2.as_ref().and_then(|v| text(&v["global"])))
        .or_else(|| event.id2.as_ref().and_then(|v| text(&v["local"])))
}

/// Every interaction event of the trace, paired, in time order.
fn paired(events: &[Event]) -> Vec<Timed> {
    let mut open: HashMap<String, Vec<&Event>> = HashMap::new();
    let mut found = Vec::new();
    for event in events.iter().filter(|e| e.name == "EventTiming") {
        let Some(id) = async_id(event) else { continue };
        if event.ph == "b" {
            let data = event.data();
            let duration = data["duration"].as_f64().unwrap_or(0.0);
            let interaction = data["interactionId"].as_i64().unwrap_or(0);
            if duration >= 1.0 && interaction != 0 {
                open.entry(id).or_default().push(event);
            }
        } else if event.ph == "e" {
            let Some(begin) = open.get_mut(&id).and_then(Vec::pop) else {
                continue;
            };
            let data = begin.data();
            let number = |key: &str| data[key].as_f64().filter(|v| *v != 0.0);
            let kind = data["type"].as_str().unwrap_or_default();
            let (Some(stamp), Some(start), Some(end)) = (
                number("timeStamp"),
                number("processingStart"),
                number("processingEnd"),
            ) else {
                continue;
            };
            if kind.is_empty() {
                continue;
            }
            found.push(Timed {
                kind: kind.to_owned(),
                id: data["interactionId"].as_i64().unwrap_or(0),
                ts: begin.ts,
                end: event.ts,
                processing_start: (start - stamp) * 1e3 + begin.ts,
                processing_end: (end - stamp) * 1e3 + begin.ts,
                node: data["nodeId"].as_i64(),
            });
        }
    }
    found.sort_by(|a, b| a.ts.total_cmp(&b.ts));
    found
}

fn category(kind: &str) -> usize {
    match kind {
        "pointerdown" | "touchstart" | "pointerup" | "touchend" | "mousedown" | "mouseup"
        | "click" => 0,
        "keydown" | "keypress" | "keyup" => 1,
        _ => 2,
    }
}

/// Folds the events of one category that end together into one interaction each.
fn without_nesting(events: Vec<Timed>) -> Vec<Timed> {
    // Per category: end time (as bits) → the kept event's index in `kept`.
    let mut by_end: [HashMap<u64, usize>; 3] = Default::default();
    let mut kept: Vec<Timed> = Vec::new();
    for event in events {
        let map = &mut by_end[category(&event.kind)];
        let key = event.end.to_bits();
        let Some(&at) = map.get(&key) else {
            map.insert(key, kept.len());
            kept.push(event);
            continue;
        };
        let current = kept[at].clone();
        let widened = |mut e: Timed| {
            e.processing_start = e.processing_start.min(event.processing_start);
            e.processing_end = e.processing_end.max(event.processing_end);
            e
        };
        let replace = event.ts < current.ts
            || (event.ts == current.ts
                && event.id == current.id
                && event.processing_end - event.processing_start
                    > current.processing_end - current.processing_start);
        if replace {
            // The event replaced keeps its own span; the widening goes to the old one.
            kept[at] = event.clone();
        } else {
            kept[at] = widened(current);
        }
    }
    kept.sort_by(|a, b| a.ts.total_cmp(&b.ts));
    kept
}

/// The INP of the events overlapping `[from, until]`, times from `origin`; `None`
/// without interactions.
pub fn inp(events: &[Event], from: f64, until: f64, origin: f64) -> Option<Inp> {
    let kept = without_nesting(paired(events));
    let mut longest: HashMap<i64, Timed> = HashMap::new();
    for event in kept.into_iter().filter(|e| e.ts <= until && from < e.end) {
        match longest.get(&event.id) {
            Some(have) if have.end - have.ts >= event.end - event.ts => {}
            _ => {
                longest.insert(event.id, event);
            }
        }
    }
    let mut all: Vec<Timed> = longest.into_values().collect();
    all.sort_by(|a, b| {
        (b.end - b.ts)
            .total_cmp(&(a.end - a.ts))
            .then(a.ts.total_cmp(&b.ts))
    });
    let at = (all.len() / 50).min(9);
    let interaction = to_interaction(all.get(at)?, origin);
    Some(Inp {
        ms: interaction.duration_ms,
        interaction,
        slowest: all
            .iter()
            .take(MAX_LISTED)
            .map(|e| to_interaction(e, origin))
            .collect(),
        interactions: all.len(),
    })
}

fn to_interaction(e: &Timed, origin: f64) -> Interaction {
    Interaction {
        kind: e.kind.clone(),
        interaction_id: e.id,
        start_ms: (e.ts - origin) / 1e3,
        duration_ms: (e.end - e.ts) / 1e3,
        input_delay_ms: (e.processing_start - e.ts) / 1e3,
        processing_ms: (e.processing_end - e.processing_start) / 1e3,
        presentation_delay_ms: (e.end - e.processing_end) / 1e3,
        backend_node_id: e.node,
        uid: None,
    }
}

/// The INPBreakdown insight: the slowest interaction of a load and its three phases.
pub struct InpBreakdownInsight;

impl Insight for InpBreakdownInsight {
    const NAME: &'static str = "INPBreakdown";
    const ABOUT: &'static str = "";
    type Data = Option<Inp>;

    fn compute(load: &LoadContext) -> Option<Inp> {
        inp(load.events(), load.from, load.until, load.from)
    }

    fn summary(set: &InsightSet) -> Vec<String> {
        let Some(inp) = &set.inp else {
            return vec!["- INPBreakdown: no interactions in the trace.".to_owned()];
        };
        let i = &inp.interaction;
        let (phase, ms) = i.largest_phase();
        vec![format!(
            "- INPBreakdown: INP {}: {} of it is {phase} (the {} on {}); {} interaction(s).",
            duration(inp.ms),
            duration(ms),
            i.kind,
            element(i.uid.as_deref(), i.backend_node_id),
            inp.interactions
        )]
    }

    fn details(set: &InsightSet, lines: &mut Vec<String>) -> Value {
        match &set.inp {
            None => lines.push("No interactions were recorded for this load.".into()),
            Some(inp) => {
                let i = &inp.interaction;
                lines.push(format!(
                    "INP: {} (the {} at {}, on {}).",
                    duration(inp.ms),
                    i.kind,
                    duration(i.start_ms),
                    element(i.uid.as_deref(), i.backend_node_id)
                ));
                lines.push(format!("- Input delay: {}", duration(i.input_delay_ms)));
                lines.push(format!(
                    "- Processing duration: {}",
                    duration(i.processing_ms)
                ));
                lines.push(format!(
                    "- Presentation delay: {}",
                    duration(i.presentation_delay_ms)
                ));
                lines.push(format!(
                    "Slowest of the {} interaction(s):",
                    inp.interactions
                ));
                for s in &inp.slowest {
                    lines.push(format!(
                        "- {} at {}: {} (input delay {}, processing {}, presentation delay {}) on {}",
                        s.kind,
                        duration(s.start_ms),
                        duration(s.duration_ms),
                        duration(s.input_delay_ms),
                        duration(s.processing_ms),
                        duration(s.presentation_delay_ms),
                        element(s.uid.as_deref(), s.backend_node_id)
                    ));
                }
            }
        }
        json!(set.inp)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use crate::load::events;

    /// One event of an interaction: begins at `at` ms, its handlers run from `start`
    /// to `end` ms, the frame comes at `frame` ms.
    fn timing(
        id: &str,
        kind: &str,
        interaction: i64,
        at: f64,
        span: (f64, f64),
        frame: f64,
    ) -> [Value; 2] {
        let us = |ms: f64| 1_000_000.0 + ms * 1e3;
        [
            json!({"name": "EventTiming", "ph": "b", "ts": us(at), "pid": 1, "tid": 2, "id": id,
                "args": {"data": {"type": kind, "interactionId": interaction, "duration": frame - at,
                    "timeStamp": 5000.0 + at, "processingStart": 5000.0 + span.0,
                    "processingEnd": 5000.0 + span.1, "nodeId": 42}}}),
            json!({"name": "EventTiming", "ph": "e", "ts": us(frame), "pid": 1, "tid": 2, "id": id, "args": {}}),
        ]
    }

    fn parse(list: Vec<Value>) -> Vec<events::Event> {
        events::parse(json!({"traceEvents": list}).to_string().as_bytes()).expect("a trace")
    }

    #[test]
    fn a_slow_click_is_the_inp_with_its_phases_and_nested_events_fold_into_it() {
        let mut list = Vec::new();
        // One click: pointerdown (no handler), pointerup, click (a 200 ms handler),
        // all presented by the frame at 260 ms.
        list.extend(timing("0x1", "pointerdown", 7, 0.0, (10.0, 11.0), 260.0));
        list.extend(timing("0x2", "pointerup", 7, 40.0, (45.0, 46.0), 260.0));
        list.extend(timing("0x3", "click", 7, 40.0, (50.0, 250.0), 260.0));
        // A quick key press later.
        list.extend(timing(
            "0x4",
            "keydown",
            8,
            1000.0,
            (1002.0, 1010.0),
            1030.0,
        ));
        // An event that is no interaction.
        list.extend(timing(
            "0x5",
            "mousemove",
            0,
            2000.0,
            (2000.0, 2300.0),
            2400.0,
        ));
        let inp = super::inp(&parse(list), 0.0, f64::MAX, 1_000_000.0).expect("an INP");
        assert_eq!(inp.interactions, 2);
        assert_eq!(inp.ms.round(), 260.0);
        let i = &inp.interaction;
        assert_eq!(i.kind, "pointerdown");
        assert_eq!(i.backend_node_id, Some(42));
        // The pointerdown stands for the click, with the click's processing span.
        assert_eq!(i.input_delay_ms.round(), 10.0);
        assert_eq!(i.processing_ms.round(), 240.0);
        assert_eq!(i.presentation_delay_ms.round(), 10.0);
        assert_eq!(i.largest_phase().0, "processing duration");
        assert_eq!(inp.slowest[1].kind, "keydown");
    }

    #[test]
    fn interactions_outside_the_load_do_not_count_and_none_is_no_inp() {
        let list: Vec<Value> = timing("0x1", "click", 3, 0.0, (1.0, 2.0), 50.0).into();
        let events = parse(list);
        assert!(super::inp(&events, 2_000_000.0, 3_000_000.0, 0.0).is_none());
        assert!(super::inp(&events, 0.0, f64::MAX, 0.0).is_some());
    }
}
