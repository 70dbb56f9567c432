//! Third parties: how much each site other than the page's own sent over the network
//! and ran on the main thread during a load.
//!
//! An entity is a site: a URL's registrable domain from the public suffix list (its
//! host for an address or `localhost`), named by that domain, as [`crate::insights::long_tasks`]
//! tells third parties' scripts apart. DevTools' engine (insight `ThirdParties`) names
//! the sites the third-party-web list knows by their company's product (several domains
//! under one name) and others by their domain, as here.
//!
//! The figures follow the engine's. Main-thread time is self time on the load's main
//! thread within the load: each trace event's time less that of the events inside it,
//! given to the site of the URL the event names (a script's `data.url`, its stack's
//! first frame, the parsed document, the style sheet, the request); where the CPU
//! profile sampled JavaScript inside a task or a script event, the samples' time goes
//! to the site of the function on top of the stack instead (a built-in function, with
//! no URL, counts for no site). Transfer size is each request's encoded bytes as the
//! main thread's `ResourceReceiveResponse`, `ResourceReceivedData` and `ResourceFinish`
//! events give them (nothing for a response from the cache).

use std::collections::HashMap;

use serde::Serialize;
use serde_json::{json, Value};

use crate::insights::long_tasks::site;
use crate::insights::{Insight, InsightSet};
use crate::load::events::Event;
use crate::load::network::Request;
use crate::load::profiles::Profile;
use crate::load::LoadContext;
use crate::text::format::{bytes, duration};

/// The most URLs listed per site.
const MAX_URLS: usize = 5;

/// One site's share of a load.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Entity {
    /// The site: its registrable domain (or host).
    pub name: String,
    /// Whether it is the page's own site.
    pub first_party: bool,
    /// Bytes its responses took on the network (encoded).
    pub transfer_bytes: u64,
    /// Main-thread self time of its scripts, parsing and other work, ms.
    pub main_thread_ms: f64,
    /// How many of its requests the load made.
    pub requests: usize,
    /// Its URLs that took the most bytes (at most five).
    pub urls: Vec<String>,
}

/// The sites of one load, the page's own among them.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ThirdParties {
    /// The page's own site, when the trace names the page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_party: Option<String>,
    /// Every site, most main-thread time first (then most bytes).
    pub entities: Vec<Entity>,
}

impl ThirdParties {
    /// The sites other than the page's.
    pub fn third(&self) -> impl Iterator<Item = &Entity> {
        self.entities.iter().filter(|e| !e.first_party)
    }
}

/// Where to look: the load's span and main thread, and the page.
#[derive(Debug, Clone, Copy)]
pub struct Scope<'a> {
    /// The load's start, µs.
    pub from: f64,
    /// Its end, µs.
    pub until: f64,
    /// The main thread (process, thread).
    pub thread: (i64, i64),
    /// The page's URL (empty when unknown).
    pub page_url: &'a str,
}

/// The trace events DevTools counts as work (others are part of the event around
/// them); of these, only those naming a URL are a site's.
const VISIBLE: [&str; 96] = [
    "AbortPostTaskCallback",
    "Animation",
    "AsyncTask",
    "v8.deserializeOnBackground",
    "v8.produceModuleCache",
    "v8.produceCache",
    "CancelAnimationFrame",
    "CancelIdleCallback",
    "Commit",
    "V8.CompileCode",
    "V8.CompileModule",
    "v8.compile",
    "CompositeLayers",
    "ComputeIntersections",
    "ConsoleTime",
    "CppGC.IncrementalSweep",
    "DoDecryptReply",
    "DoDecrypt",
    "DoDigestReply",
    "DoDigest",
    "DoEncryptReply",
    "DoEncrypt",
    "DoSignReply",
    "DoSign",
    "DoVerifyReply",
    "DoVerify",
    "Decode Image",
    "EmbedderCallback",
    "v8.evaluateModule",
    "EvaluateScript",
    "EventDispatch",
    "EventTiming",
    "V8.FinalizeDeserialization",
    "FireAnimationFrame",
    "FireIdleCallback",
    "FunctionCall",
    "BlinkGC.AtomicPhase",
    "GCEvent",
    "GPUTask",
    "HandlePostMessage",
    "HitTest",
    "JSSample",
    "Layerize",
    "Layout",
    "MajorGC",
    "MinorGC",
    "V8.OptimizeCode",
    "PaintSetup",
    "Paint",
    "ParseAuthorStyleSheet",
    "ParseHTML",
    "PrePaint",
    "ProfileCall",
    "Program",
    "RasterTask",
    "RequestAnimationFrame",
    "RequestIdleCallback",
    "ResourceFinish",
    "ResourceReceivedData",
    "ResourceReceiveResponse",
    "ResourceSendRequest",
    "ResourceWillSendRequest",
    "RunMicrotasks",
    "RunPostTaskCallback",
    "RunTask",
    "SchedulePostMessage",
    "SchedulePostTaskCallback",
    "ScheduleStyleRecalculation",
    "ScrollLayer",
    "CpuProfiler::StartProfiling",
    "v8.parseOnBackgroundParsing",
    "v8.parseOnBackgroundWaiting",
    "v8.parseOnBackground",
    "SyntheticLayoutShiftCluster",
    "SyntheticLayoutShift",
    "TimeStamp",
    "TimerFire",
    "TimerInstall",
    "TimerRemove",
    "UpdateLayerTree",
    "UpdateLayoutTree",
    "UserTiming",
    "V8Console::runTask",
    "v8.wasm.cachedModule",
    "v8.wasm.compiledModule",
    "v8.wasm.moduleCacheHit",
    "v8.wasm.moduleCacheInvalid",
    "v8.wasm.streamFromResponseCallback",
    "WebSocketCreate",
    "WebSocketDestroy",
    "WebSocketReceiveHandshakeResponse",
    "WebSocketReceive",
    "WebSocketSendHandshakeRequest",
    "WebSocketSend",
    "XHRLoad",
    "XHRReadyStateChange",
];

/// The events inside which a JavaScript sample is the sampled function's time (not
/// the event's own, as it is inside layout or parsing).
const RUNS_SCRIPTS: [&str; 13] = [
    "RunTask",
    "FunctionCall",
    "EvaluateScript",
    "v8.evaluateModule",
    "TimerFire",
    "EventDispatch",
    "RunMicrotasks",
    "FireAnimationFrame",
    "FireIdleCallback",
    "RunPostTaskCallback",
    "HandlePostMessage",
    "V8Console::runTask",
    "XHRReadyStateChange",
];

/// The URL an event is about, as DevTools reads it.
fn event_url<'a>(event: &'a Event, requests: &'a HashMap<&str, &Request>) -> Option<&'a str> {
    let data = event.data();
    let url = if event.name == "ParseAuthorStyleSheet" {
        data["stylesheetUrl"].as_str()
    } else if let Some(url) = data["stackTrace"][0]["url"].as_str() {
        Some(url)
    } else if event.name == "ParseHTML" {
        event.args["beginData"]["url"].as_str()
    } else {
        data["url"].as_str().filter(|u| !u.is_empty()).or_else(|| {
            requests
                .get(event.data_str("requestId"))
                .map(|r| r.url.as_str())
        })
    };
    url.filter(|u| !u.is_empty())
}

/// The site a URL counts for: web URLs only.
fn entity_of(url: &str) -> Option<String> {
    (url.starts_with("http:") || url.starts_with("https:"))
        .then(|| site(url))
        .flatten()
}

/// An event being walked: its span (clipped to the load), site and self time.
struct Open {
    end: f64,
    entity: Option<String>,
    runs_scripts: bool,
    self_us: f64,
    sampled_us: f64,
}

#[derive(Default)]
struct Tally {
    self_us: f64,
    bytes: u64,
    requests: Vec<(String, u64)>,
}

/// The main-thread self time per site within `scope`, µs.
fn main_thread_time(
    events: &[Event],
    profiles: &[Profile],
    requests: &HashMap<&str, &Request>,
    scope: &Scope,
    tally: &mut HashMap<String, Tally>,
) {
    let (pid, tid) = scope.thread;
    let profile = profiles.iter().find(|p| p.pid == pid && p.tid == tid);
    let samples: Vec<(f64, f64, Option<String>)> = profile
        .map(|p| {
            p.samples
                .iter()
                .filter(|s| s.ts >= scope.from && s.ts < scope.until)
                .filter_map(|s| {
                    let frame = &p.nodes.get(s.node?)?.frame;
                    // V8's own entries ((program), (idle), (garbage collector)) are no
                    // function's time.
                    let script = !frame.function_name.starts_with('(');
                    script.then(|| (s.ts, s.dur, entity_of(&frame.url)))
                })
                .collect()
        })
        .unwrap_or_default();
    let mut next_sample = 0;
    let mut stack: Vec<Open> = Vec::new();
    let mut closed: Vec<Open> = Vec::new();
    let mut add_sample = |stack: &mut Vec<Open>,
                          closed: &mut Vec<Open>,
                          (ts, dur, entity): &(f64, f64, Option<String>)| {
        while stack.last().is_some_and(|o| o.end <= *ts) {
            closed.extend(stack.pop());
        }
        let Some(top) = stack.last_mut().filter(|o| o.runs_scripts) else {
            return;
        };
        let take = (ts + dur).min(top.end) - ts;
        top.sampled_us += take;
        if let Some(entity) = entity {
            tally.entry(entity.clone()).or_default().self_us += take;
        }
    };
    let on_thread = events.iter().filter(|e| {
        e.pid == pid
            && e.tid == tid
            && e.ph == "X"
            && e.ts < scope.until
            && e.end() > scope.from
            && VISIBLE.contains(&e.name.as_str())
    });
    for event in on_thread {
        let start = event.ts.max(scope.from);
        let end = event.end().min(scope.until);
        while next_sample < samples.len() && samples[next_sample].0 < start {
            add_sample(&mut stack, &mut closed, &samples[next_sample]);
            next_sample += 1;
        }
        while stack.last().is_some_and(|o| o.end <= start) {
            closed.extend(stack.pop());
        }
        let end = stack.last().map_or(end, |parent| end.min(parent.end));
        if let Some(parent) = stack.last_mut() {
            parent.self_us -= end - start;
        }
        stack.push(Open {
            end,
            entity: event_url(event, requests).and_then(entity_of),
            runs_scripts: RUNS_SCRIPTS.contains(&event.name.as_str()),
            self_us: end - start,
            sampled_us: 0.0,
        });
    }
    for sample in &samples[next_sample..] {
        add_sample(&mut stack, &mut closed, sample);
    }
    closed.append(&mut stack);
    for open in closed {
        if let Some(entity) = open.entity {
            tally.entry(entity).or_default().self_us += (open.self_us - open.sampled_us).max(0.0);
        }
    }
}

/// Each request's encoded bytes, from the main thread's events within `scope`.
fn transfer(
    events: &[Event],
    requests: &HashMap<&str, &Request>,
    scope: &Scope,
    tally: &mut HashMap<String, Tally>,
) {
    let (pid, tid) = scope.thread;
    let mut bytes: Vec<(&str, u64)> = Vec::new();
    let mut index_of: HashMap<&str, usize> = HashMap::new();
    let mut cached: HashMap<&str, bool> = HashMap::new();
    for event in events {
        if event.pid != pid || event.tid != tid || event.ts < scope.from || event.ts > scope.until {
            continue;
        }
        let id = event.data_str("requestId");
        let length = event.data()["encodedDataLength"].as_f64().unwrap_or(0.0);
        let length = if length > 0.0 { length as u64 } else { 0 };
        let index = match index_of.get(id) {
            Some(index) => *index,
            None if !id.is_empty() && event.name.starts_with("Resource") => {
                bytes.push((id, 0));
                index_of.insert(id, bytes.len() - 1);
                bytes.len() - 1
            }
            None => continue,
        };
        let from_cache = *cached.get(id).unwrap_or(&false);
        let total = &mut bytes[index].1;
        match event.name.as_str() {
            "ResourceReceiveResponse" => {
                let hit = event.data()["fromCache"].as_bool() == Some(true);
                cached.insert(id, hit);
                if length > 0 {
                    *total = length;
                }
            }
            "ResourceReceivedData" => *total = if from_cache { 0 } else { *total + length },
            "ResourceFinish" if length == 0 && from_cache => *total = 0,
            "ResourceFinish" if length > 0 => *total = length,
            _ => {}
        }
    }
    for (id, size) in bytes {
        let Some(request) = requests.get(id) else {
            continue;
        };
        let Some(entity) = entity_of(&request.url) else {
            continue;
        };
        let entry = tally.entry(entity).or_default();
        entry.bytes += size;
        entry.requests.push((request.url.clone(), size));
    }
}

/// For a trace without a page load: the main frame's main thread and URL, as
/// `TracingStartedInBrowser` names them (its process's thread among `main_threads`);
/// else the only main thread, with no URL.
pub fn page_thread(events: &[Event], main_threads: &[(i64, i64)]) -> Option<((i64, i64), String)> {
    let frame = events
        .iter()
        .filter(|e| e.name == "TracingStartedInBrowser")
        .flat_map(|e| e.data()["frames"].as_array().into_iter().flatten())
        .find(|f| f["isOutermostMainFrame"].as_bool() == Some(true));
    if let Some(frame) = frame {
        let pid = frame["processId"].as_i64();
        if let Some(thread) = main_threads.iter().find(|t| Some(t.0) == pid) {
            let url = frame["url"].as_str().unwrap_or_default().to_owned();
            return Some((*thread, url));
        }
    }
    match main_threads {
        [only] => Some((*only, String::new())),
        _ => None,
    }
}

/// The sites of the load in `scope`.
pub fn third_parties(
    events: &[Event],
    requests: &[Request],
    profiles: &[Profile],
    scope: &Scope,
) -> ThirdParties {
    let by_id: HashMap<&str, &Request> = requests.iter().map(|r| (r.id.as_str(), r)).collect();
    let mut tally: HashMap<String, Tally> = HashMap::new();
    main_thread_time(events, profiles, &by_id, scope, &mut tally);
    transfer(events, &by_id, scope, &mut tally);
    let first_party = entity_of(scope.page_url);
    let mut entities: Vec<Entity> = tally
        .into_iter()
        .filter(|(_, t)| t.self_us > 0.0 || t.bytes > 0)
        .map(|(name, mut t)| {
            t.requests.sort_by_key(|r| std::cmp::Reverse(r.1));
            Entity {
                first_party: first_party.as_deref() == Some(name.as_str()),
                name,
                transfer_bytes: t.bytes,
                main_thread_ms: t.self_us / 1e3,
                requests: t.requests.len(),
                urls: t
                    .requests
                    .into_iter()
                    .take(MAX_URLS)
                    .map(|(url, _)| url)
                    .collect(),
            }
        })
        .collect();
    entities.sort_by(|a, b| {
        b.main_thread_ms
            .total_cmp(&a.main_thread_ms)
            .then(b.transfer_bytes.cmp(&a.transfer_bytes))
            .then(a.name.cmp(&b.name))
    });
    ThirdParties {
        first_party,
        entities,
    }
}

fn figures(entity: &Entity) -> String {
    format!(
        "{}: {} in {} request(s), {} on the main thread",
        entity.name,
        bytes(entity.transfer_bytes),
        entity.requests,
        duration(entity.main_thread_ms)
    )
}

/// The ThirdParties line of the summary.
pub fn line(found: &ThirdParties) -> String {
    let third: Vec<String> = found.third().take(3).map(figures).collect();
    let own = found
        .first_party
        .as_deref()
        .map(|s| format!(" (the page's own site is {s})"))
        .unwrap_or_default();
    if third.is_empty() {
        return format!("- ThirdParties: no third-party requests or scripts{own}.");
    }
    let count = found.third().count();
    let more = if count > third.len() {
        format!("; {} more", count - third.len())
    } else {
        String::new()
    };
    format!(
        "- ThirdParties: {count} third-party site(s){own}: {}{more}.",
        third.join("; ")
    )
}

/// The ThirdParties details: its lines and its data.
pub fn details(found: &ThirdParties, lines: &mut Vec<String>) -> Value {
    match &found.first_party {
        Some(own) => lines.push(format!("The page's own site: {own}.")),
        None => lines.push("The trace does not name the page: no site is its own.".into()),
    }
    if found.third().next().is_none() {
        lines.push("No third party sent anything or ran on the main thread.".into());
    }
    for entity in &found.entities {
        let whose = if entity.first_party {
            " (first party)"
        } else {
            ""
        };
        lines.push(format!("- {}{whose}", figures(entity)));
        for url in &entity.urls {
            lines.push(format!("  - {url}"));
        }
    }
    let third_ms: f64 = found.third().map(|e| e.main_thread_ms).sum();
    let third_bytes: u64 = found.third().map(|e| e.transfer_bytes).sum();
    if third_ms > 0.0 || third_bytes > 0 {
        lines.push(format!(
            "Third parties in all: {} transferred, {} on the main thread.",
            bytes(third_bytes),
            duration(third_ms)
        ));
    }
    json!({
        "firstParty": found.first_party,
        "entities": found.entities,
        "thirdPartyTransferBytes": third_bytes,
        "thirdPartyMainThreadMs": third_ms,
    })
}

/// The ThirdParties insight: the sites the load fetched from and ran.
pub struct ThirdPartiesInsight;

impl Insight for ThirdPartiesInsight {
    const NAME: &'static str = "ThirdParties";
    const ABOUT: &'static str = "bytes and main-thread time per site";
    type Data = ThirdParties;

    fn compute(load: &LoadContext) -> ThirdParties {
        let (thread, page_url) = match load.nav {
            Some(nav) => ((nav.pid, nav.tid), nav.url.clone()),
            None => match page_thread(load.events(), &load.threads) {
                Some(found) => found,
                None => return ThirdParties::default(),
            },
        };
        third_parties(
            load.events(),
            load.requests(),
            &load.trace.profiles,
            &Scope {
                from: load.from,
                until: load.until,
                thread,
                page_url: &page_url,
            },
        )
    }

    fn summary(set: &InsightSet) -> Vec<String> {
        vec![line(&set.third_parties)]
    }

    fn details(set: &InsightSet, lines: &mut Vec<String>) -> Value {
        details(&set.third_parties, lines)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{details, line, third_parties, Scope};
    use crate::load::events;
    use crate::load::network;
    use crate::load::profiles as cpu_profile;

    /// A load of `https://www.shop.test/` on thread (1, 2): its document parsed for 10
    /// ms; a script from `cdn.ads.example` evaluated for 60 ms, 20 ms of it in a layout;
    /// the script's response, 5,000 bytes, and a cached image of the same site.
    fn trace() -> Vec<events::Event> {
        let list = json!([
            {"name": "ResourceSendRequest", "ph": "I", "ts": 1000.0, "pid": 1, "tid": 2,
             "args": {"data": {"requestId": "D", "url": "https://www.shop.test/"}}},
            {"name": "ResourceReceiveResponse", "ph": "I", "ts": 2000.0, "pid": 1, "tid": 2,
             "args": {"data": {"requestId": "D", "encodedDataLength": 200}}},
            {"name": "ResourceReceivedData", "ph": "I", "ts": 2100.0, "pid": 1, "tid": 2,
             "args": {"data": {"requestId": "D", "encodedDataLength": 800}}},
            {"name": "ParseHTML", "ph": "X", "ts": 3000.0, "dur": 10e3, "pid": 1, "tid": 2,
             "args": {"beginData": {"url": "https://www.shop.test/"}}},
            {"name": "ResourceSendRequest", "ph": "I", "ts": 4000.0, "pid": 1, "tid": 2,
             "args": {"data": {"requestId": "S", "url": "https://cdn.ads.example/a.js"}}},
            {"name": "ResourceSendRequest", "ph": "I", "ts": 4500.0, "pid": 1, "tid": 2,
             "args": {"data": {"requestId": "P", "url": "https://img.ads.example/p.gif"}}},
            {"name": "ResourceReceiveResponse", "ph": "I", "ts": 5000.0, "pid": 1, "tid": 2,
             "args": {"data": {"requestId": "P", "encodedDataLength": 0, "fromCache": true}}},
            {"name": "ResourceReceivedData", "ph": "I", "ts": 5100.0, "pid": 1, "tid": 2,
             "args": {"data": {"requestId": "P", "encodedDataLength": 300}}},
            {"name": "ResourceFinish", "ph": "I", "ts": 6000.0, "pid": 1, "tid": 2,
             "args": {"data": {"requestId": "S", "encodedDataLength": 5000}}},
            {"name": "RunTask", "ph": "X", "ts": 20e3, "dur": 70e3, "pid": 1, "tid": 2, "args": {}},
            {"name": "EvaluateScript", "ph": "X", "ts": 25e3, "dur": 60e3, "pid": 1, "tid": 2,
             "args": {"data": {"url": "https://cdn.ads.example/a.js"}}},
            {"name": "Layout", "ph": "X", "ts": 40e3, "dur": 20e3, "pid": 1, "tid": 2, "args": {}},
            {"name": "FunctionCall", "ph": "X", "ts": 100e3, "dur": 30e3, "pid": 9, "tid": 9,
             "args": {"data": {"url": "https://cdn.ads.example/a.js"}}}
        ]);
        events::parse(list.to_string().as_bytes()).expect("events")
    }

    fn scope(page_url: &str) -> Scope<'_> {
        Scope {
            from: 0.0,
            until: 200e3,
            thread: (1, 2),
            page_url,
        }
    }

    #[test]
    fn a_script_from_another_site_is_a_third_partys_bytes_and_self_time() {
        let events = trace();
        let requests = network::requests(&events);
        let found = third_parties(&events, &requests, &[], &scope("https://www.shop.test/"));
        assert_eq!(found.first_party.as_deref(), Some("shop.test"));
        let names: Vec<&str> = found.entities.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["ads.example", "shop.test"]);
        let ads = &found.entities[0];
        assert!(!ads.first_party);
        // 60 ms of evaluation less the 20 ms layout inside it; another thread's call
        // is not the load's.
        assert_eq!(ads.main_thread_ms, 40.0);
        // The cached image's bytes are no transfer.
        assert_eq!((ads.transfer_bytes, ads.requests), (5000, 2));
        assert_eq!(ads.urls[0], "https://cdn.ads.example/a.js");
        let own = &found.entities[1];
        assert!(own.first_party);
        assert_eq!((own.main_thread_ms, own.transfer_bytes), (10.0, 1000));
        let summary = line(&found);
        assert_eq!(
            summary,
            "- ThirdParties: 1 third-party site(s) (the page's own site is shop.test): \
             ads.example: 5.0 kB in 2 request(s), 40 ms on the main thread."
        );
        let mut lines = Vec::new();
        let data = details(&found, &mut lines);
        assert_eq!(data["thirdPartyMainThreadMs"], 40.0);
        assert_eq!(data["entities"][1]["firstParty"], true);
        assert!(
            lines
                .iter()
                .any(|l| l == "  - https://cdn.ads.example/a.js"),
            "{lines:?}"
        );
    }

    #[test]
    fn sampled_functions_take_their_sites_time_and_built_ins_count_for_none() {
        // The first-party script's evaluation (60 ms) sampled: 20 ms in a function of
        // the third party's, 10 ms in a built-in; the rest is the script's own.
        let list = json!([
            {"name": "Profile", "ph": "P", "ts": 0.0, "pid": 1, "tid": 2, "id": "0x1",
             "args": {"data": {"startTime": 0.0, "source": "Internal"}}},
            {"name": "ProfileChunk", "ph": "P", "ts": 1.0, "pid": 1, "tid": 5, "id": "0x1",
             "args": {"data": {"cpuProfile": {"nodes": [
                 {"id": 1, "callFrame": {"functionName": "(root)", "url": ""}},
                 {"id": 2, "parent": 1, "callFrame": {"functionName": "own", "url": "https://www.shop.test/app.js"}},
                 {"id": 3, "parent": 2, "callFrame": {"functionName": "track", "url": "https://ads.example/t.js"}},
                 {"id": 4, "parent": 2, "callFrame": {"functionName": "now", "url": ""}}],
               "samples": [2, 3, 4, 2]},
               "timeDeltas": [30e3, 10e3, 20e3, 10e3]}}},
            {"name": "EvaluateScript", "ph": "X", "ts": 25e3, "dur": 60e3, "pid": 1, "tid": 2,
             "args": {"data": {"url": "https://www.shop.test/app.js"}}}
        ]);
        let events = events::parse(list.to_string().as_bytes()).expect("events");
        let profiles = cpu_profile::profiles(&events);
        let found = third_parties(&events, &[], &profiles, &scope("https://www.shop.test/"));
        let ms: Vec<(&str, f64)> = found
            .entities
            .iter()
            .map(|e| (e.name.as_str(), e.main_thread_ms.round()))
            .collect();
        // Samples at 30 (own, 10 ms), 40 (track, 20 ms), 60 (now, 10 ms), 70 (own, to
        // the end at 85): own keeps its 60 ms less track's 20 and now's 10.
        assert_eq!(ms, [("shop.test", 30.0), ("ads.example", 20.0)]);
    }

    #[test]
    fn a_page_of_one_site_has_no_third_party_to_report() {
        let events = trace();
        let requests = network::requests(&events);
        let mut own = third_parties(&events, &requests, &[], &scope("https://ads.example/"));
        own.entities.retain(|e| e.first_party);
        assert_eq!(
            line(&own),
            "- ThirdParties: no third-party requests or scripts (the page's own site is \
             ads.example)."
        );
        let mut lines = Vec::new();
        let data = details(&own, &mut lines);
        assert_eq!(data["thirdPartyTransferBytes"], 0);
        assert!(
            lines.iter().any(|l| l.starts_with("No third party")),
            "{lines:?}"
        );
    }
}
