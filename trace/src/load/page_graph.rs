//! The dependency graph of one page load: its requests and its main thread's tasks,
//! each linked to what it waited for, as DevTools' network simulation (Lantern) builds
//! it; `network_dependency_tree` walks it for the critical request chains.
//!
//! The nodes live in one arena ([`PageGraph::nodes`]) and name each other by index;
//! each keeps the order its links were made in, since the walks depend on it.
//!
//! - **Requests.** Each request of the load (not a video, not from a worker) is a
//!   node, lasting from its start to its finish. A request depends on the one request
//!   of its initiator's URL when there is exactly one, begun no later; otherwise on
//!   its initiator request (the one request of the initiator's URL whose headers had
//!   come before it began, narrowed by type, frame, for the parser to documents, and to
//!   a preload when the others came from a cache), else on the load's first request,
//!   the root.
//! - **Tasks.** Each top-level main-thread task (`RunTask` and its older names) with a
//!   duration is a node; the events inside it until the next top-level task are its
//!   own. A task depends on its frame's document, on the request of each script or
//!   style sheet URL it ran, parsed or had on its stack (the latest one finished by
//!   100 ms after the task began, and none begun after it), and on the task that
//!   installed a timer it fired; the scripts, fetches and XHRs it sent depend on it.
//!   A task with no dependency depends on the root.
//! - **Pruning.** A short task (under 10 ms) that is neither the first to lay out,
//!   paint or parse HTML, and has one dependency or at most one dependent, is taken out,
//!   its dependencies linked straight to its dependents.
//!
//! A redirected request is one node per hop ([`fetches`]): each hop from its send to
//! the next one's, its URL the one that redirected, each waiting on the hop before.
//! The last keeps the request's own start, before the redirects.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use crate::load::events::Event;
use crate::load::network::Request;

/// The names of a top-level main-thread task, across Chrome versions.
const TASK_NAMES: [&str; 4] = [
    "RunTask",
    "ThreadControllerImpl::RunTask",
    "ThreadControllerImpl::DoWork",
    "TaskQueueManager::ProcessTaskFromWorkQueue",
];

/// Tasks shorter than this may be pruned, µs.
const SHORT_TASK_US: f64 = 10_000.0;

/// How long after a task began the request of a URL it used may still have been
/// finishing, for the task to depend on it, µs.
const FINISH_SLACK_US: f64 = 100_000.0;

/// What a node stands for.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// A request, or a hop of its redirects: its index in the fetches the graph was
    /// built from.
    Request(usize),
    /// A main-thread task: the range of its events (its own first) in the main-thread
    /// events the graph was built from.
    Task(Range<usize>),
}

/// One node.
#[derive(Debug, Clone)]
pub struct Node {
    /// What it stands for.
    pub kind: Kind,
    /// When it began, µs.
    pub start: f64,
    /// When it ended, µs.
    pub end: f64,
    /// What it waited for, in the order linked.
    pub dependencies: Vec<usize>,
    /// What waited for it, in the order linked.
    pub dependents: Vec<usize>,
}

/// A load's dependency graph.
#[derive(Debug, Clone)]
pub struct PageGraph {
    /// Every node.
    pub nodes: Vec<Node>,
    /// The load's first request, which everything else comes after.
    pub root: usize,
}

/// What one request node stands for: a request, or one hop of its redirects.
#[derive(Debug, Clone)]
pub struct Fetch<'a> {
    /// The request (a hop's too: its attributes are the request's).
    pub request: &'a Request,
    /// Which of its redirect hops this is (`None`: its last URL, after them).
    pub hop: Option<usize>,
    /// The URL asked for.
    pub url: &'a str,
    /// Its id: the request's for the first hop, then `:redirect` added per hop.
    pub id: String,
    /// When it began, µs.
    pub start: f64,
    /// When it ended, µs.
    pub end: f64,
    /// When its response headers had come, µs.
    pub headers_end: f64,
    /// The hop before it, by index among the fetches.
    pub previous: Option<usize>,
    /// Whether it is the document its frame showed when it was sent (the node the
    /// frame's tasks depend on).
    pub frame_document: bool,
}

impl Fetch<'_> {
    /// What it fetched, as the simulation types it: a script's fetch or XHR by how it
    /// was fetched, anything untyped as `Other`; a redirect hop has no type.
    pub fn resource_type(&self) -> Option<&str> {
        if self.hop.is_some() {
            return None;
        }
        Some(match self.request.fetch_type.as_str() {
            "xmlhttprequest" => "XHR",
            "fetch" => "Fetch",
            _ if self.request.resource_type.is_empty() => "Other",
            _ => &self.request.resource_type,
        })
    }
}

/// The fetches of `requests` (in the order they began), each redirect hop before its
/// request; `shows_frame` says whether a request is the document its frame showed.
pub fn fetches<'a>(
    requests: &[&'a Request],
    shows_frame: &dyn Fn(&Request) -> bool,
) -> Vec<Fetch<'a>> {
    let mut found: Vec<Fetch<'a>> = Vec::new();
    for request in requests {
        let redirects = request.redirects();
        let first = found.len();
        let mut id = request.id.clone();
        for (k, redirect) in redirects.iter().enumerate() {
            let url = request
                .sends
                .get(k)
                .map_or(request.url.as_str(), |(url, _)| url.as_str());
            found.push(Fetch {
                request,
                hop: Some(k),
                url,
                id: id.clone(),
                start: redirect.start,
                end: redirect.end,
                headers_end: redirect.end,
                previous: k.checked_sub(1).map(|p| first + p),
                frame_document: false,
            });
            id.push_str(":redirect");
        }
        let previous = (!redirects.is_empty()).then(|| found.len() - 1);
        found.push(Fetch {
            request,
            hop: None,
            url: &request.url,
            id,
            start: request.start,
            end: request.finish.unwrap_or(request.last_send),
            headers_end: request.headers_end.unwrap_or(request.start),
            previous,
            frame_document: shows_frame(request),
        });
    }
    found
}

/// What a graph is built from.
pub struct Input<'a> {
    /// The load's fetches, in order (the first is the root).
    pub fetches: &'a [Fetch<'a>],
    /// The main thread's events within the load, in time order.
    pub main_events: &'a [&'a Event],
}

impl PageGraph {
    /// The graph of a load; `None` without requests or a main-thread task.
    pub fn build(input: &Input) -> Option<PageGraph> {
        if input.fetches.is_empty() || !input.main_events.iter().any(|e| is_task(e)) {
            return None;
        }
        let mut graph = PageGraph {
            nodes: Vec::new(),
            root: 0,
        };
        for (i, fetch) in input.fetches.iter().enumerate() {
            graph.nodes.push(Node {
                kind: Kind::Request(i),
                start: fetch.start,
                end: fetch.end,
                dependencies: Vec::new(),
                dependents: Vec::new(),
            });
        }
        let lookup = Lookup::new(input);
        graph.link_requests(input, &lookup);
        let first_task = graph.nodes.len();
        graph.add_tasks(input.main_events);
        graph.link_tasks(input, &lookup, first_task);
        graph.prune_tasks(input.main_events, first_task);
        Some(graph)
    }

    /// The request a node stands for, if it is one.
    pub fn request(&self, node: usize) -> Option<usize> {
        match self.nodes[node].kind {
            Kind::Request(i) => Some(i),
            Kind::Task(_) => None,
        }
    }

    /// Makes `dependent` wait for `dependency` (once).
    fn link(&mut self, dependency: usize, dependent: usize) {
        if dependency == dependent || self.nodes[dependent].dependencies.contains(&dependency) {
            return;
        }
        self.nodes[dependency].dependents.push(dependent);
        self.nodes[dependent].dependencies.push(dependency);
    }

    fn unlink(&mut self, dependency: usize, dependent: usize) {
        self.nodes[dependency]
            .dependents
            .retain(|&n| n != dependent);
        self.nodes[dependent]
            .dependencies
            .retain(|&n| n != dependency);
    }

    /// Whether `node` waits, directly or not, for `other` (or is it).
    fn waits_for(&self, node: usize, other: usize) -> bool {
        let mut seen = HashSet::from([node]);
        let mut queue = vec![node];
        while let Some(next) = queue.pop() {
            if next == other {
                return true;
            }
            for &up in &self.nodes[next].dependencies {
                if seen.insert(up) {
                    queue.push(up);
                }
            }
        }
        false
    }

    /// Whether `node` may wait for `other`: it did not begin before it.
    fn may_wait_for(&self, node: usize, other: usize) -> bool {
        self.nodes[other].start <= self.nodes[node].start
    }

    fn link_requests(&mut self, input: &Input, lookup: &Lookup) {
        let root = self.root;
        for (node, fetch) in input.fetches.iter().enumerate() {
            let initiator = lookup.initiator_request(input, node).unwrap_or(root);
            let via_initiator =
                !self.waits_for(initiator, node) && self.may_wait_for(node, initiator);
            let urls = initiator_urls(fetch.request);
            for url in &urls {
                let candidates = lookup
                    .by_url
                    .get(url.as_str())
                    .map_or(&[][..], Vec::as_slice);
                if let [only] = candidates {
                    if self.nodes[*only].start <= self.nodes[node].start
                        && !self.waits_for(*only, node)
                    {
                        self.link(*only, node);
                        continue;
                    }
                }
                if via_initiator {
                    self.link(initiator, node);
                }
            }
            if urls.is_empty() && via_initiator {
                self.link(initiator, node);
            }
            if node != root
                && self.nodes[node].dependencies.is_empty()
                && self.may_wait_for(node, root)
            {
                self.link(root, node);
            }
            if let Some(previous) = fetch.previous {
                self.link(previous, node);
            }
        }
    }

    fn add_tasks(&mut self, events: &[&Event]) {
        let mut i = 0;
        while i < events.len() {
            let task = events[i];
            let first = i;
            i += 1;
            let Some(duration) = task.dur.filter(|d| *d > 0.0 && is_task(task)) else {
                continue;
            };
            let mut end = task.ts + duration;
            while i < events.len() && events[i].ts < task.ts + duration {
                if is_task(events[i]) && events[i].dur.is_some_and(|d| d > 0.0) {
                    end = events[i].ts - 1.0;
                    break;
                }
                i += 1;
            }
            self.nodes.push(Node {
                kind: Kind::Task(first..i),
                start: task.ts,
                end,
                dependencies: Vec::new(),
                dependents: Vec::new(),
            });
        }
    }

    fn link_tasks(&mut self, input: &Input, lookup: &Lookup, first_task: usize) {
        let mut timers: HashMap<String, usize> = HashMap::new();
        for node in first_task..self.nodes.len() {
            let Kind::Task(range) = self.nodes[node].kind.clone() else {
                continue;
            };
            for event in &input.main_events[range.start + 1..range.end] {
                let data = event.data();
                if !data.is_object() {
                    continue;
                }
                let url = data["url"].as_str();
                let stack: Vec<&str> = data["stackTrace"]
                    .as_array()
                    .map(|frames| {
                        frames
                            .iter()
                            .filter_map(|f| f["url"].as_str())
                            .filter(|u| !u.is_empty())
                            .collect()
                    })
                    .unwrap_or_default();
                let frame = data["frame"].as_str();
                match event.name.as_str() {
                    "TimerInstall" => {
                        if let Some(id) = timer_id(data) {
                            timers.insert(id, node);
                        }
                        self.on_urls(node, lookup, &stack);
                    }
                    "TimerFire" => {
                        let installer = timer_id(data).and_then(|id| timers.get(&id).copied());
                        if let Some(installer) = installer {
                            if self.nodes[installer].end <= self.nodes[node].start {
                                self.link(installer, node);
                            }
                        }
                    }
                    "InvalidateLayout" | "ScheduleStyleRecalculation" => {
                        self.on_frame(node, lookup, frame);
                        self.on_urls(node, lookup, &stack);
                    }
                    "EvaluateScript" => {
                        self.on_frame(node, lookup, frame);
                        self.on_urls(node, lookup, url.as_slice());
                        self.on_urls(node, lookup, &stack);
                    }
                    "XHRReadyStateChange" if data["readyState"].as_i64() == Some(4) => {
                        self.on_urls(node, lookup, url.as_slice());
                        self.on_urls(node, lookup, &stack);
                    }
                    "FunctionCall" | "v8.compile" => {
                        self.on_frame(node, lookup, frame);
                        self.on_urls(node, lookup, url.as_slice());
                    }
                    "ParseAuthorStyleSheet" => {
                        self.on_frame(node, lookup, frame);
                        self.on_urls(node, lookup, data["styleSheetUrl"].as_str().as_slice());
                    }
                    "ResourceSendRequest" => {
                        self.on_frame(node, lookup, frame);
                        self.sends(node, input, lookup, data["requestId"].as_str());
                        self.on_urls(node, lookup, &stack);
                    }
                    _ => {}
                }
            }
            if self.nodes[node].dependencies.is_empty() && self.may_wait_for(node, self.root) {
                self.link(self.root, node);
            }
        }
    }

    /// A task waits for its frame's document, when that began before it.
    fn on_frame(&mut self, task: usize, lookup: &Lookup, frame: Option<&str>) {
        let Some(Some(document)) = frame.and_then(|f| lookup.frame_document.get(f)) else {
            return;
        };
        if self.nodes[*document].start < self.nodes[task].start {
            self.link(*document, task);
        }
    }

    /// A task waits for the request of each URL it used: of those begun before it, the
    /// one that finished last, by 100 ms after the task began at the latest.
    fn on_urls(&mut self, task: usize, lookup: &Lookup, urls: &[&str]) {
        for url in urls {
            let candidates = lookup.by_url.get(*url).map_or(&[][..], Vec::as_slice);
            let start = self.nodes[task].start;
            let mut best: Option<(usize, f64)> = None;
            let mut later = false;
            for &candidate in candidates {
                if start <= self.nodes[candidate].start {
                    later = true;
                    break;
                }
                let distance = start - self.nodes[candidate].end;
                if distance >= -FINISH_SLACK_US && best.is_none_or(|(_, d)| distance < d) {
                    best = Some((candidate, distance));
                }
            }
            if let (false, Some((request, _))) = (later, best) {
                self.link(request, task);
            }
        }
    }

    /// A script, fetch or XHR request a task sent waits for it.
    fn sends(&mut self, task: usize, input: &Input, lookup: &Lookup, id: Option<&str>) {
        let Some(&node) = id.and_then(|id| lookup.by_id.get(id)) else {
            return;
        };
        if self.nodes[node].start <= self.nodes[task].start {
            return;
        }
        let Kind::Request(i) = self.nodes[node].kind else {
            return;
        };
        // A redirect hop has no type: the hop it redirects to lends it its own.
        let next = input.fetches.get(i + 1).filter(|f| f.previous == Some(i));
        let typed = input.fetches[i]
            .resource_type()
            .or_else(|| next.and_then(Fetch::resource_type));
        if matches!(typed, Some("XHR" | "Fetch" | "Script")) {
            self.link(task, node);
        }
    }

    fn prune_tasks(&mut self, events: &[&Event], first_task: usize) {
        let (mut layout, mut paint, mut parse) = (false, false, false);
        for node in first_task..self.nodes.len() {
            let Kind::Task(range) = self.nodes[node].kind.clone() else {
                continue;
            };
            let own = &events[range.start + 1..range.end];
            let has = |name: &str| own.iter().any(|e| e.name == name);
            let mut first = false;
            if !layout && has("Layout") {
                (layout, first) = (true, true);
            }
            if !paint && has("Paint") {
                (paint, first) = (true, true);
            }
            if !parse && has("ParseHTML") {
                (parse, first) = (true, true);
            }
            let short = self.nodes[node].end - self.nodes[node].start < SHORT_TASK_US;
            if first || !short {
                continue;
            }
            if self.nodes[node].dependencies.len() == 1 || self.nodes[node].dependents.len() <= 1 {
                self.prune(node);
            }
        }
    }

    /// Takes a node out, linking what it waited for to what waited for it.
    fn prune(&mut self, node: usize) {
        let dependencies = self.nodes[node].dependencies.clone();
        let dependents = self.nodes[node].dependents.clone();
        for &up in &dependencies {
            self.unlink(up, node);
            for &down in &dependents {
                self.link(up, down);
            }
        }
        for &down in &dependents {
            self.unlink(node, down);
        }
    }
}

/// The indexes the linking looks requests up by.
struct Lookup<'a> {
    by_url: HashMap<&'a str, Vec<usize>>,
    by_id: HashMap<&'a str, usize>,
    /// Each frame's document node (`None` when it had more than one).
    frame_document: HashMap<&'a str, Option<usize>>,
}

impl<'a> Lookup<'a> {
    fn new(input: &Input<'a>) -> Lookup<'a> {
        let mut lookup = Lookup {
            by_url: HashMap::new(),
            by_id: HashMap::new(),
            frame_document: HashMap::new(),
        };
        for (i, fetch) in input.fetches.iter().enumerate() {
            lookup.by_url.entry(fetch.url).or_default().push(i);
            lookup.by_id.entry(fetch.id.as_str()).or_insert(i);
            let frame = fetch.request.frame.as_str();
            let document = fetch.resource_type() == Some("Document");
            if !frame.is_empty() && document && fetch.frame_document {
                let seen = lookup.frame_document.contains_key(frame);
                lookup.frame_document.insert(frame, (!seen).then_some(i));
            }
        }
        lookup
    }

    /// The fetch that started fetch `i`: the hop before it; else the one request of
    /// its initiator's URL whose headers had come before it began and that finished,
    /// narrowed when there are several.
    fn initiator_request(&self, input: &Input, i: usize) -> Option<usize> {
        let fetch = &input.fetches[i];
        if fetch.previous.is_some() {
            return fetch.previous;
        }
        let request = fetch.request;
        let url = initiator_urls(request).into_iter().next()?;
        let mut candidates: Vec<usize> = self
            .by_url
            .get(url.as_str())
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .copied()
            .filter(|&c| {
                let candidate = &input.fetches[c];
                candidate.headers_end <= fetch.start
                    && candidate.request.finish_event.is_some()
                    && !candidate.request.failed
            })
            .collect();
        let narrow = |candidates: &mut Vec<usize>, keep: &dyn Fn(&Fetch) -> bool| {
            if candidates.len() > 1 {
                let kept: Vec<usize> = candidates
                    .iter()
                    .copied()
                    .filter(|&c| keep(&input.fetches[c]))
                    .collect();
                if !kept.is_empty() {
                    *candidates = kept;
                }
            }
        };
        narrow(&mut candidates, &|c| c.resource_type() != Some("Other"));
        narrow(&mut candidates, &|c| c.request.frame == request.frame);
        if request.initiator_type == "parser" {
            narrow(&mut candidates, &|c| c.resource_type() == Some("Document"));
        }
        if candidates.len() > 1 {
            // A preload wins when every other candidate came from a cache.
            let (preloads, others): (Vec<usize>, Vec<usize>) = candidates
                .iter()
                .partition(|&&c| input.fetches[c].request.link_preload);
            let cached = |&c: &usize| {
                let other = input.fetches[c].request;
                other.disk_cached() || other.memory_cached
            };
            if !preloads.is_empty() && !others.is_empty() && others.iter().all(cached) {
                candidates = preloads;
            }
        }
        match candidates.as_slice() {
            [only] => Some(*only),
            _ => None,
        }
    }
}

/// The URLs that started a request: its initiator's URL, else, for a script's, every
/// script URL on the stack that sent it.
pub fn initiator_urls(request: &Request) -> Vec<String> {
    if !request.initiator_url.is_empty() {
        return vec![request.initiator_url.clone()];
    }
    if request.initiator_type != "script" {
        return Vec::new();
    }
    let mut urls: Vec<String> = Vec::new();
    for url in &request.stack_urls {
        if !url.is_empty() && !urls.contains(url) {
            urls.push(url.clone());
        }
    }
    urls
}

fn is_task(event: &Event) -> bool {
    TASK_NAMES.contains(&event.name.as_str())
}

fn timer_id(data: &serde_json::Value) -> Option<String> {
    match &data["timerId"] {
        serde_json::Value::Null => None,
        id => Some(id.to_string()),
    }
}
