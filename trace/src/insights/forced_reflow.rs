//! Forced reflows: style recalculations and layouts a script made happen at once (by
//! reading a geometry such as `offsetHeight` after changing the DOM), instead of
//! leaving them to the next frame.
//!
//! The definitions follow DevTools' trace engine:
//! - a `Layout` or `UpdateLayoutTree` that runs inside a JavaScript call
//!   (`FunctionCall`, `EvaluateScript`, `EventDispatch`, `RunMicrotasks`, `v8.*`...)
//!   on the same thread is forced;
//! - the forced ones of a task count only when together they took 30 ms or more (they
//!   are counted when the thread's next task begins);
//! - each is put down to the script position its stack trace names first (the line
//!   that read the geometry), and to the outermost function call it ran in.
//!
//! Stack traces are in the events when the trace records
//! `disabled-by-default-devtools.timeline.stack`.

use std::collections::HashMap;

use serde::Serialize;

use crate::insights::{Insight, InsightSet};
use crate::load::events::Event;
use crate::load::LoadContext;
use crate::text::format::duration;
use serde_json::{json, Value};

/// The least forced-reflow time of one task that counts, µs.
const TASK_THRESHOLD: f64 = 30e3;

/// The most call sites listed.
const MAX_SITES: usize = 10;

/// The forced reflows of a load.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ForcedReflows {
    /// Their total time, ms.
    pub total_ms: f64,
    /// How many there were.
    pub count: usize,
    /// Where scripts forced them, most time first.
    pub call_sites: Vec<CallSite>,
    /// The function call they ran in that forced the most reflow time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_function: Option<CallSite>,
}

/// A place in a script, and the reflow time put down to it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallSite {
    /// The function (empty: anonymous).
    pub function_name: String,
    /// The script's URL (empty: the trace names no place; the reflows are unattributed).
    pub url: String,
    /// Line, 1-based.
    pub line: i64,
    /// Column, 1-based.
    pub column: i64,
    /// Reflow time put down to it, ms.
    pub reflow_ms: f64,
    /// How many reflows.
    pub count: usize,
}

impl CallSite {
    /// `thrash (https://a.test/app.js:13:20)`, or `[unattributed]`.
    pub fn label(&self) -> String {
        if self.url.is_empty() && self.function_name.is_empty() {
            return "[unattributed]".to_owned();
        }
        let name = if self.function_name.is_empty() {
            "(anonymous)"
        } else {
            &self.function_name
        };
        format!("{name} ({}:{}:{})", self.url, self.line, self.column)
    }
}

/// Whether an event is a JavaScript call (`v8.*` and `V8.*` take in module
/// evaluation, `V8.Execute` and console tasks).
fn is_script(name: &str) -> bool {
    matches!(
        name,
        "RunMicrotasks" | "FunctionCall" | "EvaluateScript" | "EventDispatch"
    ) || name.starts_with("v8")
        || name.starts_with("V8")
}

fn is_reflow(name: &str) -> bool {
    name == "Layout" || name == "UpdateLayoutTree"
}

/// The frame an event names (`args.beginData.frame`, else `args.data.frame`).
fn frame_of(e: &Event) -> Option<&str> {
    e.args["beginData"]["frame"]
        .as_str()
        .or_else(|| e.data()["frame"].as_str())
}

/// A forced reflow, with the function call it ran in.
struct Forced<'a> {
    event: &'a Event,
    call: Option<&'a Event>,
}

/// The forced reflows of every thread, in the trace's order.
fn forced(events: &[Event]) -> Vec<Forced<'_>> {
    let mut threads: HashMap<(i64, i64), Vec<&Event>> = HashMap::new();
    for e in events.iter().filter(|e| e.ph != "M") {
        threads.entry((e.pid, e.tid)).or_default().push(e);
    }
    let mut found = Vec::new();
    for (_, mut list) in threads {
        // Parents first where events begin together.
        list.sort_by(|a, b| {
            a.ts.total_cmp(&b.ts)
                .then(b.dur.unwrap_or(0.0).total_cmp(&a.dur.unwrap_or(0.0)))
        });
        let mut all: Vec<&Event> = Vec::new();
        let mut scripts: Vec<&Event> = Vec::new();
        let mut in_task: Vec<Forced> = Vec::new();
        for e in list {
            for stack in [&mut all, &mut scripts] {
                // An event that begins as another ends follows it: not inside it.
                while stack.last().is_some_and(|top| e.ts >= top.end()) {
                    stack.pop();
                }
            }
            all.push(e);
            if is_script(&e.name) {
                scripts.push(e);
            }
            if !scripts.is_empty() && is_reflow(&e.name) {
                let call = scripts
                    .iter()
                    .rev()
                    .find(|s| s.name == "FunctionCall" && s.data()["url"].is_string())
                    .copied();
                in_task.push(Forced { event: e, call });
                continue;
            }
            if all.len() == 1 {
                let total: f64 = in_task.iter().map(|f| f.event.dur.unwrap_or(0.0)).sum();
                if total >= TASK_THRESHOLD {
                    found.append(&mut in_task);
                }
                in_task.clear();
            }
        }
    }
    found.sort_by(|a, b| a.event.ts.total_cmp(&b.event.ts));
    found
}

/// The script position a reflow's stack trace names first.
fn top_frame(e: &Event) -> Option<&serde_json::Value> {
    let data = e.data();
    [
        &data["stackTrace"],
        &e.args["stackTrace"],
        &e.args["beginData"]["stackTrace"],
    ]
    .into_iter()
    .find_map(|s| s.as_array().and_then(|a| a.first()))
}

fn site(frame: &serde_json::Value) -> CallSite {
    CallSite {
        function_name: frame["functionName"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        url: frame["url"].as_str().unwrap_or_default().to_owned(),
        line: frame["lineNumber"].as_i64().unwrap_or(0),
        column: frame["columnNumber"].as_i64().unwrap_or(0),
        reflow_ms: 0.0,
        count: 0,
    }
}

fn unattributed() -> CallSite {
    CallSite {
        function_name: String::new(),
        url: String::new(),
        line: 0,
        column: 0,
        reflow_ms: 0.0,
        count: 0,
    }
}

/// Adds a reflow to the site keyed by `key`.
fn count_in(sites: &mut Vec<(String, CallSite)>, key: String, make: CallSite, ms: f64) {
    let at = match sites.iter().position(|(k, _)| *k == key) {
        Some(at) => at,
        None => {
            sites.push((key, make));
            sites.len() - 1
        }
    };
    sites[at].1.reflow_ms += ms;
    sites[at].1.count += 1;
}

/// The forced reflows overlapping `[from, until]` in `frame` (any frame when `None`).
pub fn forced_reflows(
    events: &[Event],
    from: f64,
    until: f64,
    frame: Option<&str>,
) -> ForcedReflows {
    let mut sites: Vec<(String, CallSite)> = Vec::new();
    let mut calls: Vec<(String, CallSite)> = Vec::new();
    let mut report = ForcedReflows::default();
    for f in forced(events) {
        let e = f.event;
        let in_bounds = e.ts <= until && from < e.end();
        if !in_bounds || (frame.is_some() && frame_of(e) != frame) {
            continue;
        }
        let ms = e.dur.unwrap_or(0.0) / 1e3;
        report.total_ms += ms;
        report.count += 1;
        let (key, made) = match top_frame(e) {
            Some(frame) => {
                let s = site(frame);
                let key = format!(
                    "{}:{}:{}",
                    frame["scriptId"].as_str().unwrap_or(&s.url),
                    s.line,
                    s.column
                );
                (key, s)
            }
            None => ("UNATTRIBUTED".to_owned(), unattributed()),
        };
        count_in(&mut sites, key, made, ms);
        if let Some(call) = f.call {
            let s = site(call.data());
            let key = format!("{}:{}:{}", s.url, s.line, s.column);
            count_in(&mut calls, key, s, ms);
        }
    }
    let mut sites: Vec<CallSite> = sites.into_iter().map(|(_, s)| s).collect();
    sites.sort_by(|a, b| b.reflow_ms.total_cmp(&a.reflow_ms));
    sites.truncate(MAX_SITES);
    report.call_sites = sites;
    report.top_function = calls
        .into_iter()
        .map(|(_, s)| s)
        .max_by(|a, b| a.reflow_ms.total_cmp(&b.reflow_ms));
    report
}

/// The ForcedReflow insight: layouts and style recalculations scripts forced.
pub struct ForcedReflowInsight;

impl Insight for ForcedReflowInsight {
    const NAME: &'static str = "ForcedReflow";
    const ABOUT: &'static str = "";
    type Data = ForcedReflows;

    fn compute(load: &LoadContext) -> ForcedReflows {
        forced_reflows(load.events(), load.from, load.until, load.frame())
    }

    fn summary(set: &InsightSet) -> Vec<String> {
        let r = &set.forced_reflows;
        vec![match r.call_sites.first() {
            None => "- ForcedReflow: no forced reflows.".to_owned(),
            Some(top) => format!(
                "- ForcedReflow: {} forced reflow(s), {} in all; the most at {}: {}.",
                r.count,
                duration(r.total_ms),
                top.label(),
                duration(top.reflow_ms)
            ),
        }]
    }

    fn details(set: &InsightSet, lines: &mut Vec<String>) -> Value {
        let r = &set.forced_reflows;
        if r.count == 0 {
            lines.push("No script forced a layout or style recalculation.".into());
        } else {
            lines.push(format!(
                "Total reflow time: {} in {} forced reflow(s).",
                duration(r.total_ms),
                r.count
            ));
            if let Some(top) = &r.top_function {
                lines.push(format!(
                    "Top function call: {}, {}.",
                    top.label(),
                    duration(top.reflow_ms)
                ));
            }
            lines.push("Call sites that forced them:".into());
            for site in &r.call_sites {
                lines.push(format!(
                    "- {}: {} in {} reflow(s)",
                    site.label(),
                    duration(site.reflow_ms),
                    site.count
                ));
            }
        }
        json!(r)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use crate::load::events;

    fn ms(v: f64) -> f64 {
        1_000_000.0 + v * 1e3
    }

    fn layout(at: f64, dur: f64, line: i64) -> Value {
        json!({"name": "Layout", "ph": "X", "ts": ms(at), "dur": dur * 1e3, "pid": 1, "tid": 2,
            "args": {"beginData": {"frame": "F", "stackTrace": [{"functionName": "thrash",
                "url": "https://a.test/app.js", "lineNumber": line, "columnNumber": 20, "scriptId": "4"}]}}})
    }

    fn task(at: f64, dur: f64) -> Value {
        json!({"name": "RunTask", "ph": "X", "ts": ms(at), "dur": dur * 1e3, "pid": 1, "tid": 2, "args": {}})
    }

    fn call(at: f64, dur: f64) -> Value {
        json!({"name": "FunctionCall", "ph": "X", "ts": ms(at), "dur": dur * 1e3, "pid": 1, "tid": 2,
            "args": {"data": {"functionName": "thrash", "url": "https://a.test/app.js",
                "lineNumber": 9, "columnNumber": 16, "scriptId": "4", "frame": "F"}}})
    }

    fn parse(list: Vec<Value>) -> Vec<events::Event> {
        events::parse(json!({"traceEvents": list}).to_string().as_bytes()).expect("a trace")
    }

    #[test]
    fn layouts_inside_a_script_are_forced_and_put_down_to_the_line_that_read() {
        let events = parse(vec![
            task(0.0, 100.0),
            call(1.0, 90.0),
            layout(2.0, 20.0, 13),
            layout(30.0, 15.0, 13),
            layout(50.0, 5.0, 21),
            // The frame's own layout, after the script: not forced.
            layout(95.0, 4.0, 0),
            task(200.0, 10.0),
        ]);
        let r = super::forced_reflows(&events, 0.0, f64::MAX, Some("F"));
        assert_eq!(r.count, 3);
        assert_eq!(r.total_ms.round(), 40.0);
        assert_eq!(
            r.call_sites[0].label(),
            "thrash (https://a.test/app.js:13:20)"
        );
        assert_eq!(r.call_sites[0].reflow_ms.round(), 35.0);
        assert_eq!(r.call_sites[0].count, 2);
        let top = r.top_function.expect("the function call");
        assert_eq!((top.line, top.column), (9, 16));
        assert_eq!(top.reflow_ms.round(), 40.0);
    }

    #[test]
    fn a_task_with_under_30_ms_of_forced_reflow_and_other_frames_do_not_count() {
        let events = parse(vec![
            task(0.0, 100.0),
            call(1.0, 90.0),
            layout(2.0, 20.0, 13),
            task(200.0, 100.0),
            call(201.0, 90.0),
            layout(202.0, 40.0, 13),
            task(400.0, 10.0),
        ]);
        let r = super::forced_reflows(&events, 0.0, f64::MAX, Some("F"));
        assert_eq!(r.count, 1);
        assert_eq!(r.total_ms.round(), 40.0);
        assert_eq!(
            super::forced_reflows(&events, 0.0, f64::MAX, Some("G")).count,
            0
        );
    }

    #[test]
    fn tasks_back_to_back_are_two_tasks_not_one_inside_the_other() {
        // Each task forces 20 ms, under the 30 ms a task needs: the second begins the
        // microsecond the first ends, and is not counted as part of it.
        let events = parse(vec![
            task(0.0, 100.0),
            call(1.0, 50.0),
            layout(2.0, 20.0, 13),
            task(100.0, 100.0),
            call(101.0, 50.0),
            layout(102.0, 20.0, 13),
            task(300.0, 0.01),
        ]);
        let r = super::forced_reflows(&events, 0.0, f64::MAX, Some("F"));
        assert_eq!(r.count, 0, "{:?}", r.total_ms);
    }
}
