//! Long tasks: main-thread tasks over 50 ms, and the scripts that ran in them.
//!
//! A task is a `RunTask` on a renderer's main thread. What ran in it is read from the
//! script events inside it (`FunctionCall`, `EvaluateScript`, `v8.compile`,
//! `v8.evaluateModule`, `TimerFire`, `EventDispatch`...): the time of each outermost
//! one with a script URL goes to that URL.

use std::collections::HashMap;

use serde::Serialize;

use super::events::Event;

/// Tasks longer than this are long, µs.
const LONG: f64 = 50e3;

/// The most long tasks kept per load (the longest).
const MAX_TASKS: usize = 20;

/// A long task.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LongTask {
    /// When it began, ms from the start of the load.
    pub start_ms: f64,
    /// How long it ran, ms.
    pub duration_ms: f64,
    /// The time of scripts in it, per script URL, longest first.
    pub scripts: Vec<ScriptTime>,
}

/// Time a script took within a task.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScriptTime {
    /// The script's URL.
    pub url: String,
    /// Its time in the task, ms.
    pub ms: f64,
}

/// The events whose `args.data.url` (or `args.data.stackTrace[0].url`) names a script.
const SCRIPT_EVENTS: [&str; 6] = [
    "FunctionCall",
    "EvaluateScript",
    "v8.compile",
    "v8.compileModule",
    "v8.evaluateModule",
    "TimerFire",
];

/// The main threads (`CrRendererMain`) of every renderer in the trace.
pub fn renderer_main_threads(events: &[Event]) -> Vec<(i64, i64)> {
    events
        .iter()
        .filter(|e| e.ph == "M" && e.name == "thread_name")
        .filter(|e| e.args["name"].as_str() == Some("CrRendererMain"))
        .map(|e| (e.pid, e.tid))
        .collect()
}

fn script_url(event: &Event) -> Option<&str> {
    let data = event.data();
    data["url"]
        .as_str()
        .or_else(|| data["stackTrace"][0]["url"].as_str())
        .or_else(|| event.args["fileName"].as_str())
        .filter(|u| !u.is_empty())
}

/// The long tasks in `[from, until)` on `threads`, times from `origin`.
pub fn long_tasks(
    events: &[Event],
    from: f64,
    until: f64,
    threads: &[(i64, i64)],
    origin: f64,
) -> Vec<LongTask> {
    let on_thread = |e: &Event| threads.contains(&(e.pid, e.tid));
    let mut tasks: Vec<LongTask> = Vec::new();
    for (i, task) in events.iter().enumerate() {
        let long = task.name == "RunTask"
            && task.ph == "X"
            && task.dur.unwrap_or(0.0) > LONG
            && task.ts >= from
            && task.ts < until
            && on_thread(task);
        if !long {
            continue;
        }
        let mut by_url: HashMap<&str, f64> = HashMap::new();
        let mut covered_until = f64::NEG_INFINITY;
        for inner in events[i + 1..].iter().take_while(|e| e.ts < task.end()) {
            if !on_thread(inner) || inner.ph != "X" || inner.ts < covered_until {
                continue;
            }
            if !SCRIPT_EVENTS.contains(&inner.name.as_str()) {
                continue;
            }
            if let Some(url) = script_url(inner) {
                let end = inner.end().min(task.end());
                *by_url.entry(url).or_default() += (end - inner.ts) / 1e3;
                covered_until = end;
            }
        }
        let mut scripts: Vec<ScriptTime> = by_url
            .into_iter()
            .map(|(url, ms)| ScriptTime {
                url: url.to_owned(),
                ms,
            })
            .collect();
        scripts.sort_by(|a, b| b.ms.total_cmp(&a.ms));
        tasks.push(LongTask {
            start_ms: (task.ts - origin) / 1e3,
            duration_ms: task.dur.unwrap_or(0.0) / 1e3,
            scripts,
        });
    }
    tasks.sort_by(|a, b| b.duration_ms.total_cmp(&a.duration_ms));
    tasks.truncate(MAX_TASKS);
    tasks
}
