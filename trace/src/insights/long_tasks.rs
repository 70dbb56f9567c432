//! Long tasks: main-thread tasks over 50 ms, and the scripts that ran in them.
//!
//! A task is a `RunTask` on a renderer's main thread. What ran in it is read from the
//! script events inside it (`FunctionCall`, `EvaluateScript`, `v8.compile`,
//! `v8.evaluateModule`, `TimerFire`, `EventDispatch`...): the time of each outermost
//! one with a script URL goes to that URL. A script is a third party's when its site
//! (registrable domain, from the public suffix list; the host itself for an address
//! or a name without one) is not the page's ([`mark_third_parties`]).

use std::collections::HashMap;

use serde::Serialize;

use crate::insights::{Insight, InsightSet};
use crate::load::events::Event;
use crate::load::LoadContext;
use crate::text::format::duration;
use serde_json::{json, Value};

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
    /// The part of `scripts`' time third parties' scripts took, ms.
    pub third_party_ms: f64,
}

/// Time a script took within a task.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScriptTime {
    /// The script's URL.
    pub url: String,
    /// Its time in the task, ms.
    pub ms: f64,
    /// It is from another site than the page's.
    pub third_party: bool,
}

/// Marks the scripts of `tasks` that come from another site than `page_url`'s, and
/// adds up their time per task. Without a page URL (a trace with no navigation),
/// nothing is marked.
pub fn mark_third_parties(tasks: &mut [LongTask], page_url: &str) {
    let Some(page) = site(page_url) else {
        return;
    };
    for task in tasks {
        for script in &mut task.scripts {
            script.third_party = site(&script.url).is_some_and(|s| s != page);
        }
        task.third_party_ms = task
            .scripts
            .iter()
            .filter(|s| s.third_party)
            .map(|s| s.ms)
            .sum();
    }
}

/// The site of a URL: its registrable domain, or its host when it has none (an IP
/// address, `localhost`); `None` for URLs without a host (`data:`, `blob:` of one).
pub(crate) fn site(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url).ok()?;
    if let Some(url::Host::Ipv4(_) | url::Host::Ipv6(_)) = parsed.host() {
        return parsed.host_str().map(str::to_owned);
    }
    let host = parsed.host_str()?.to_ascii_lowercase();
    let host = host.trim_end_matches('.');
    Some(psl::domain_str(host).unwrap_or(host).to_owned())
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
                third_party: false,
            })
            .collect();
        scripts.sort_by(|a, b| b.ms.total_cmp(&a.ms));
        tasks.push(LongTask {
            start_ms: (task.ts - origin) / 1e3,
            duration_ms: task.dur.unwrap_or(0.0) / 1e3,
            scripts,
            third_party_ms: 0.0,
        });
    }
    tasks.sort_by(|a, b| b.duration_ms.total_cmp(&a.duration_ms));
    tasks.truncate(MAX_TASKS);
    tasks
}

/// The LongTasks insight: main-thread tasks over 50 ms and the scripts that ran in them.
pub struct LongTasksInsight;

impl Insight for LongTasksInsight {
    const NAME: &'static str = "LongTasks";
    const ABOUT: &'static str = "";
    type Data = Vec<LongTask>;

    fn compute(load: &LoadContext) -> Vec<LongTask> {
        let mut tasks = long_tasks(
            load.events(),
            load.from,
            load.until,
            &load.threads,
            load.from,
        );
        mark_third_parties(&mut tasks, load.url());
        tasks
    }

    fn summary(set: &InsightSet) -> Vec<String> {
        let Some(longest) = set.long_tasks.first() else {
            return vec!["- LongTasks: no main-thread task over 50 ms.".to_owned()];
        };
        let mut line = format!(
            "- LongTasks: {} task(s) over 50 ms; the longest ran {} at {}",
            set.long_tasks.len(),
            duration(longest.duration_ms),
            duration(longest.start_ms)
        );
        if let Some(script) = longest.scripts.first() {
            let whose = if script.third_party {
                " (third party)"
            } else {
                ""
            };
            line += &format!(", {} of it in {}{whose}", duration(script.ms), script.url);
        }
        let third: f64 = set.long_tasks.iter().map(|t| t.third_party_ms).sum();
        if third > 0.0 {
            line += &format!("; third-party scripts ran {} in them", duration(third));
        }
        line += ".";
        vec![line]
    }

    fn details(set: &InsightSet, lines: &mut Vec<String>) -> Value {
        if set.long_tasks.is_empty() {
            lines.push("No main-thread task ran over 50 ms.".into());
        }
        for task in &set.long_tasks {
            lines.push(format!(
                "- At {}: {}",
                duration(task.start_ms),
                duration(task.duration_ms)
            ));
            for script in &task.scripts {
                let whose = if script.third_party {
                    " (third party)"
                } else {
                    ""
                };
                lines.push(format!(
                    "  - {}{whose}: {}",
                    script.url,
                    duration(script.ms)
                ));
            }
        }
        json!(set.long_tasks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(scripts: &[(&str, f64)]) -> LongTask {
        LongTask {
            start_ms: 0.0,
            duration_ms: 100.0,
            scripts: scripts
                .iter()
                .map(|(url, ms)| ScriptTime {
                    url: (*url).to_owned(),
                    ms: *ms,
                    third_party: false,
                })
                .collect(),
            third_party_ms: 0.0,
        }
    }

    #[test]
    fn scripts_of_another_site_are_third_parties_and_subdomains_are_not() {
        let mut tasks = vec![task(&[
            ("https://cdn.shop.example.co.uk/app.js", 40.0),
            ("https://www.googletagmanager.com/gtm.js", 30.0),
            ("https://other.co.uk/x.js", 5.0),
            ("data:text/javascript,1", 1.0),
        ])];
        mark_third_parties(&mut tasks, "https://www.shop.example.co.uk/cart");
        let marks: Vec<bool> = tasks[0].scripts.iter().map(|s| s.third_party).collect();
        assert_eq!(marks, [false, true, true, false]);
        assert_eq!(tasks[0].third_party_ms, 35.0);
    }

    #[test]
    fn addresses_and_localhost_are_sites_of_their_own_and_no_page_marks_nothing() {
        let mut tasks = vec![task(&[
            ("http://127.0.0.1:8080/a.js", 10.0),
            ("http://localhost:8080/b.js", 20.0),
        ])];
        mark_third_parties(&mut tasks, "http://127.0.0.1:9000/");
        let marks: Vec<bool> = tasks[0].scripts.iter().map(|s| s.third_party).collect();
        assert_eq!(marks, [false, true]);
        assert_eq!(site("http://127.0.0.1:8080/").as_deref(), Some("127.0.0.1"));
        assert_eq!(site("http://[::1]:8080/").as_deref(), Some("[::1]"));
        let mut unknown = vec![task(&[("https://a.test/a.js", 10.0)])];
        mark_third_parties(&mut unknown, "");
        assert!(!unknown[0].scripts[0].third_party);
        assert_eq!(unknown[0].third_party_ms, 0.0);
    }
}
