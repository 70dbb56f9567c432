//! CSS selector costs: which selectors style recalculation spent its time matching.
//!
//! Chrome records them only when asked (`performance_start_trace` with
//! `cssSelectorStats`: the trace category that slows style recalculation down): after
//! each style recalculation (`UpdateLayoutTree`) a `SelectorStats` event gives, per
//! selector and style sheet, the time spent matching it, the elements it was tried on,
//! those it matched and those rejected on the fast path. As DevTools' engine counts
//! them (insight `SlowCSSSelector`), the figures of the frame's recalculations within
//! the load are summed per selector and style sheet; the top selector by time counts
//! as slow from 500 µs.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use serde_json::{json, Value};

use crate::insights::{Insight, InsightSet};
use crate::load::events::Event;
use crate::load::LoadContext;
use crate::text::format::duration;

/// A selector's time from which it is worth naming as slow, µs.
const SLOW_US: f64 = 500.0;

/// How many selectors the details list.
const LISTED: usize = 10;

/// One selector's figures, summed over the recalculations.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SelectorCost {
    /// The selector, as written.
    pub selector: String,
    /// The style sheet's id (the CSS domain's) it is in.
    pub style_sheet_id: String,
    /// Time spent matching it, µs.
    pub elapsed_us: f64,
    /// Elements it was tried on.
    pub match_attempts: u64,
    /// Elements it matched.
    pub match_count: u64,
    /// Elements rejected on the fast path (by the Bloom filter of ancestors).
    pub fast_reject_count: u64,
}

/// The SlowCSSSelector insight of one load.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SlowCssSelector {
    /// Whether the trace holds selector statistics at all (recorded only when asked).
    pub recorded: bool,
    /// Style recalculations with statistics, within the load.
    pub recalculations: usize,
    /// Time spent matching selectors in them, ms.
    pub total_elapsed_ms: f64,
    /// Elements tried, in all.
    pub total_match_attempts: u64,
    /// Elements matched, in all.
    pub total_match_count: u64,
    /// The selector that took longest, when it took 500 µs or more.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_by_elapsed: Option<SelectorCost>,
    /// The selector tried on the most elements.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_by_match_attempts: Option<SelectorCost>,
    /// The selectors that took longest, longest first (at most ten).
    pub slowest: Vec<SelectorCost>,
}

/// The SlowCSSSelector insight of `frame`'s style recalculations within `[from, until]`.
pub fn slow_css_selector(
    events: &[Event],
    frame: Option<&str>,
    from: f64,
    until: f64,
) -> SlowCssSelector {
    // Each recalculation's statistics: the last `SelectorStats` its thread sent after
    // it, before its next one.
    let mut last_recalc: HashMap<(i64, i64), usize> = HashMap::new();
    // By the recalculation's place in the trace: in time order.
    let mut stats: BTreeMap<usize, &Value> = BTreeMap::new();
    for (i, event) in events.iter().enumerate() {
        let thread = (event.pid, event.tid);
        match event.name.as_str() {
            "UpdateLayoutTree" => {
                last_recalc.insert(thread, i);
            }
            "SelectorStats" if event.args["selector_stats"].is_object() => {
                if let Some(recalc) = last_recalc.get(&thread) {
                    stats.insert(*recalc, &event.args["selector_stats"]);
                }
            }
            _ => {}
        }
    }
    let mut found = SlowCssSelector {
        recorded: !stats.is_empty(),
        ..SlowCssSelector::default()
    };
    let mut order: Vec<(String, String)> = Vec::new();
    let mut by_key: HashMap<(String, String), SelectorCost> = HashMap::new();
    for (&recalc, recalc_stats) in &stats {
        let event = &events[recalc];
        let in_frame = frame.is_none_or(|f| event.args["beginData"]["frame"].as_str() == Some(f));
        let within = event.ts <= until && from < event.end();
        if !(in_frame && within) {
            continue;
        }
        found.recalculations += 1;
        let timings = recalc_stats["selector_timings"].as_array();
        for timing in timings.into_iter().flatten() {
            let text = |key: &str| crate::load::events::text(&timing[key]).unwrap_or_default();
            let count = |key: &str| timing[key].as_f64().unwrap_or(0.0).max(0.0) as u64;
            let key = (text("selector"), text("style_sheet_id"));
            let cost = by_key.entry(key.clone()).or_insert_with(|| {
                order.push(key.clone());
                SelectorCost {
                    selector: key.0.clone(),
                    style_sheet_id: key.1.clone(),
                    elapsed_us: 0.0,
                    match_attempts: 0,
                    match_count: 0,
                    fast_reject_count: 0,
                }
            });
            let elapsed = timing["elapsed (us)"].as_f64().unwrap_or(0.0);
            cost.elapsed_us += if elapsed.is_finite() {
                elapsed.max(0.0)
            } else {
                0.0
            };
            cost.match_attempts = cost.match_attempts.saturating_add(count("match_attempts"));
            cost.match_count = cost.match_count.saturating_add(count("match_count"));
            cost.fast_reject_count = cost
                .fast_reject_count
                .saturating_add(count("fast_reject_count"));
        }
    }
    let costs: Vec<SelectorCost> = order.iter().filter_map(|key| by_key.remove(key)).collect();
    found.total_elapsed_ms = costs.iter().map(|c| c.elapsed_us).sum::<f64>() / 1e3;
    found.total_match_attempts = costs
        .iter()
        .fold(0, |sum, c| sum.saturating_add(c.match_attempts));
    found.total_match_count = costs
        .iter()
        .fold(0, |sum, c| sum.saturating_add(c.match_count));
    // Ties go to the later selector, as the engine's reduction gives them.
    let top = |better: fn(&SelectorCost, &SelectorCost) -> bool| {
        costs
            .iter()
            .reduce(|a, b| if better(a, b) { a } else { b })
            .cloned()
    };
    found.top_by_elapsed =
        top(|a, b| a.elapsed_us > b.elapsed_us).filter(|c| c.elapsed_us >= SLOW_US);
    found.top_by_match_attempts = top(|a, b| a.match_attempts > b.match_attempts);
    let mut slowest = costs;
    slowest.sort_by(|a, b| b.elapsed_us.total_cmp(&a.elapsed_us));
    slowest.truncate(LISTED);
    found.slowest = slowest;
    found
}

/// A selector's time: µs under a millisecond (most are), else as other durations.
fn micros(us: f64) -> String {
    match us {
        us if !us.is_finite() => "an unknown time".to_owned(),
        us if us < 1e3 => format!("{} µs", us.round() as i64),
        us if us < 1e4 => format!("{:.1} ms", us / 1e3),
        us => duration(us / 1e3),
    }
}

fn named(cost: &SelectorCost) -> String {
    format!(
        "`{}` ({} in {} match attempts, {} matched)",
        cost.selector,
        micros(cost.elapsed_us),
        cost.match_attempts,
        cost.match_count
    )
}

/// The SlowCSSSelector line of the summary (none when the trace has no statistics:
/// they are recorded only when asked for).
pub fn line(found: &SlowCssSelector) -> Option<String> {
    if !found.recorded {
        return None;
    }
    if found.recalculations == 0 {
        return Some(
            "- SlowCSSSelector: no style recalculation of this load has selector statistics."
                .to_owned(),
        );
    }
    Some(match &found.top_by_elapsed {
        None => format!(
            "- SlowCSSSelector: selector matching took {} in {} style recalculation(s); no \
             selector took 500 µs.",
            micros(found.total_elapsed_ms * 1e3),
            found.recalculations
        ),
        Some(top) => format!(
            "- SlowCSSSelector: selector matching took {} in {} style recalculation(s); the \
             slowest selector: {}.",
            micros(found.total_elapsed_ms * 1e3),
            found.recalculations,
            named(top)
        ),
    })
}

/// The SlowCSSSelector details: its lines and its data.
pub fn details(found: &SlowCssSelector, lines: &mut Vec<String>) -> Value {
    if !found.recorded {
        lines.push(
            "The trace has no CSS selector statistics: record it with performance_start_trace \
             and cssSelectorStats: true (style recalculation runs slower while they record)."
                .into(),
        );
        return json!(found);
    }
    lines.push(format!(
        "{} style recalculation(s) with statistics: {} matching selectors, {} match \
         attempts, {} matches.",
        found.recalculations,
        micros(found.total_elapsed_ms * 1e3),
        found.total_match_attempts,
        found.total_match_count
    ));
    if let Some(top) = &found.top_by_match_attempts {
        lines.push(format!("Tried on the most elements: {}.", named(top)));
    }
    if !found.slowest.is_empty() {
        lines.push("Slowest selectors (style sheet id in brackets):".into());
    }
    for cost in &found.slowest {
        let fast = if cost.match_attempts > 0 {
            format!(
                ", {:.0} % rejected on the fast path",
                100.0 * cost.fast_reject_count as f64 / cost.match_attempts as f64
            )
        } else {
            String::new()
        };
        lines.push(format!("- {} [{}]{fast}", named(cost), cost.style_sheet_id));
    }
    if found.top_by_elapsed.is_some() {
        lines.push(
            "To do: simplify the slowest selectors (fewer descendant and universal parts, \
             a class on the element instead of a deep or attribute match)."
                .into(),
        );
    }
    json!(found)
}

/// The SlowCSSSelector insight: the CSS selectors style recalculation spent its time on.
pub struct SlowCssSelectorInsight;

impl Insight for SlowCssSelectorInsight {
    const NAME: &'static str = "SlowCSSSelector";
    const ABOUT: &'static str =
        "the CSS selectors style recalculation spent its time on, when the \
         trace was recorded with cssSelectorStats";
    type Data = SlowCssSelector;

    fn compute(load: &LoadContext) -> SlowCssSelector {
        slow_css_selector(load.events(), load.frame(), load.from, load.until)
    }

    fn summary(set: &InsightSet) -> Vec<String> {
        line(&set.slow_css_selector).into_iter().collect()
    }

    fn details(set: &InsightSet, lines: &mut Vec<String>) -> Value {
        details(&set.slow_css_selector, lines)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::{details, line, slow_css_selector};
    use crate::load::events;

    fn timing(selector: &str, sheet: &str, us: f64, attempts: u64) -> Value {
        json!({"selector": selector, "style_sheet_id": sheet, "elapsed (us)": us,
               "match_attempts": attempts, "match_count": attempts / 2,
               "fast_reject_count": attempts / 4})
    }

    fn recalc(ts: f64, frame: &str, timings: Vec<Value>) -> Vec<Value> {
        vec![
            json!({"name": "UpdateLayoutTree", "ph": "X", "ts": ts, "dur": 900.0, "pid": 1,
                   "tid": 1, "args": {"beginData": {"frame": frame}}}),
            json!({"name": "SelectorStats", "ph": "X", "ts": ts + 800.0, "dur": 1.0, "pid": 1,
                   "tid": 1, "args": {"selector_stats": {"selector_timings": timings}}}),
        ]
    }

    fn parse(list: Vec<Vec<Value>>) -> Vec<events::Event> {
        let list: Vec<Value> = list.into_iter().flatten().collect();
        events::parse(Value::Array(list).to_string().as_bytes()).expect("events")
    }

    #[test]
    fn selectors_are_summed_over_the_frames_recalculations_within_the_load() {
        let events = parse(vec![
            recalc(
                1e3,
                "F",
                vec![
                    timing("div *", "1", 400.0, 3000),
                    timing(".a", "1", 10.0, 100),
                ],
            ),
            recalc(5e3, "F", vec![timing("div *", "1", 300.0, 3000)]),
            // Another frame's, and one after the load: not counted.
            recalc(6e3, "G", vec![timing("div *", "1", 900.0, 3000)]),
            recalc(50e3, "F", vec![timing("div *", "1", 900.0, 3000)]),
        ]);
        let found = slow_css_selector(&events, Some("F"), 0.0, 20e3);
        assert_eq!(found.recalculations, 2);
        assert_eq!(found.total_match_attempts, 6100);
        let top = found.top_by_elapsed.clone().expect("a slow selector");
        assert_eq!((top.selector.as_str(), top.elapsed_us), ("div *", 700.0));
        assert_eq!(found.slowest.len(), 2);
        assert_eq!(
            line(&found).as_deref(),
            Some(
                "- SlowCSSSelector: selector matching took 710 µs in 2 style \
                 recalculation(s); the slowest selector: `div *` (700 µs in 6000 match \
                 attempts, 3000 matched)."
            )
        );
        let mut lines = Vec::new();
        let data = details(&found, &mut lines);
        assert_eq!(data["topByMatchAttempts"]["selector"], "div *");
        assert!(
            lines
                .iter()
                .any(|l| l.contains("25 % rejected on the fast path")),
            "{lines:?}"
        );
    }

    #[test]
    fn without_statistics_the_summary_is_silent_and_the_details_say_how_to_record_them() {
        let found = slow_css_selector(&parse(vec![]), None, 0.0, 1e9);
        assert!(!found.recorded);
        assert_eq!(line(&found), None);
        let mut lines = Vec::new();
        details(&found, &mut lines);
        assert!(lines[0].contains("cssSelectorStats: true"), "{lines:?}");
        // Statistics under 500 µs name no slow selector.
        let events = parse(vec![recalc(1e3, "F", vec![timing(".a", "1", 20.0, 10)])]);
        let found = slow_css_selector(&events, Some("F"), 0.0, 1e9);
        assert!(found.recorded && found.top_by_elapsed.is_none());
        assert!(line(&found).is_some_and(|l| l.contains("no selector took 500 µs")));
    }
}
