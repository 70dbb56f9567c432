//! Network dependency tree: the chains of critical requests a load waited on, one after
//! another, before it could render.
//!
//! As DevTools' engine finds them (insight `NetworkDependencyTree`): the load's
//! dependency graph ([`page_graph`]: requests and main-thread tasks linked to what
//! each waited for) is walked from its root, the document, a node only
//! once everything it waited for has been walked. Each request reached is the end of
//! the chain of requests on the way to it (tasks are passed through, not listed); a
//! chain counts when every request on it is critical: the document itself, or, not a
//! `<link rel=preload>`, not an image, XHR, fetch, event stream or another frame's
//! document, with an initiator, and of high priority (`VeryHigh`, `High`, `Medium`) or
//! render-blocking. A request's time is from the start of its chain's first request to
//! its own end; the longest chain's is `maxTime`. DevTools fails the insight on any
//! chain of more than one request.
//!
//! DevTools builds the graph only for a load it can also simulate: one with a first
//! contentful paint and an LCP, and a response whose bytes came over the network;
//! without one there is no tree, and so here.
//!
//! Also listed ([`preconnect`]): the origins the page preconnected to
//! (`<link rel=preconnect>`, and `Link: <…>; rel=preconnect` headers of the document),
//! each marked unused when no request of the load went there. DevTools also proposes origins to preconnect to,
//! from the requests its simulated LCP waits on and their connection times; tabwire
//! does not simulate the load, so it leaves those candidates out.

pub mod preconnect;

use std::collections::HashSet;

use serde::Serialize;
use serde_json::{json, Value};

use crate::insights::{Insight, InsightSet};
use crate::load::events::Event;
use crate::load::network::Request;
use crate::load::page_graph::{self, Fetch, PageGraph};
use crate::load::LoadContext;
use crate::load::Navigation;
use crate::text::format::duration;

/// A request in a chain, and the requests that waited on it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChainNode {
    /// Its URL.
    pub url: String,
    /// From the start of its chain's first request to its end, ms.
    pub time_ms: f64,
    /// Whether it is on the longest chain.
    pub longest: bool,
    /// The critical requests that waited on it, the longest chain first.
    pub children: Vec<ChainNode>,
}

/// The NetworkDependencyTree insight of one load.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NetworkDependencyTree {
    /// Why there is no tree, when the load's graph could not be built.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_built: Option<String>,
    /// The chains, from their first requests (the document).
    pub roots: Vec<ChainNode>,
    /// The longest chain's time, ms.
    pub max_time_ms: f64,
    /// The longest chain's URLs, first to last.
    pub longest_chain: Vec<String>,
    /// The origins the page preconnected to.
    pub preconnected: Vec<preconnect::Preconnected>,
}

impl NetworkDependencyTree {
    /// Every chain from a root to a request nothing critical waited on, as its URLs.
    pub fn chains(&self) -> Vec<Vec<String>> {
        fn walk(node: &ChainNode, above: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
            above.push(node.url.clone());
            if node.children.is_empty() {
                out.push(above.clone());
            }
            for child in &node.children {
                walk(child, above, out);
            }
            above.pop();
        }
        let mut out = Vec::new();
        for root in &self.roots {
            walk(root, &mut Vec::new(), &mut out);
        }
        out
    }
}

/// What the insight of one load reads.
pub struct Load<'a> {
    /// The trace's events, in time order.
    pub events: &'a [Event],
    /// Every request of the trace.
    pub requests: &'a [Request],
    /// The load.
    pub nav: &'a Navigation,
    /// Every main-frame navigation of the trace (their main threads make one).
    pub navigations: &'a [Navigation],
    /// Whether the load has an LCP.
    pub has_lcp: bool,
}

/// Schemes whose requests use no network connection.
const LOCAL_SCHEMES: [&str; 6] = [
    "blob",
    "data",
    "intent",
    "file",
    "filesystem",
    "chrome-extension",
];

/// A load's dependency graph with what it was built from.
pub struct LoadGraph<'a> {
    /// The load's requests and redirect hops the graph holds (its request nodes name
    /// them by index).
    pub fetches: Vec<Fetch<'a>>,
    /// The main thread's events within the load (its task nodes name them by index).
    pub main_events: Vec<&'a Event>,
    /// The graph.
    pub graph: PageGraph,
}

/// The dependency graph of a load, as DevTools builds it; if it builds none, why.
pub fn load_graph<'a>(load: &Load<'a>) -> Result<LoadGraph<'a>, String> {
    let nav = load.nav;
    let requests = graph_requests(load);
    buildable(load, &requests).map_err(str::to_owned)?;
    let main_threads: HashSet<(i64, i64)> =
        load.navigations.iter().map(|n| (n.pid, n.tid)).collect();
    let main_events: Vec<&Event> = load
        .events
        .iter()
        .filter(|e| e.ts >= nav.ts && e.ts < nav.until && main_threads.contains(&(e.pid, e.tid)))
        .collect();
    let shows_frame = |r: &Request| {
        r.resource_type == "Document"
            && frame_url_at(load.events, &r.frame, r.last_send).as_deref() == Some(&r.url)
    };
    let fetches = page_graph::fetches(&requests, &shows_frame);
    let input = page_graph::Input {
        fetches: &fetches,
        main_events: &main_events,
    };
    let graph = PageGraph::build(&input).ok_or("the load has no main-thread task")?;
    Ok(LoadGraph {
        fetches,
        main_events,
        graph,
    })
}

/// The NetworkDependencyTree insight of a load.
pub fn network_dependency_tree(load: &Load) -> NetworkDependencyTree {
    let nav = load.nav;
    let mut found = NetworkDependencyTree {
        preconnected: preconnect::preconnected(load.events, load.requests, load.nav),
        ..NetworkDependencyTree::default()
    };
    let LoadGraph { fetches, graph, .. } = match load_graph(load) {
        Ok(built) => built,
        Err(why) => {
            found.not_built = Some(why);
            return found;
        }
    };
    let mut tree = Tree::default();
    for path in walk(&graph) {
        let chain: Vec<&Fetch> = path
            .iter()
            .filter_map(|&n| graph.request(n))
            .map(|i| &fetches[i])
            .collect();
        let Some(last) = chain.last() else {
            continue;
        };
        if chain.iter().all(|f| critical(f.request, nav)) && !local(last) {
            tree.add(&chain);
        }
    }
    found.max_time_ms = tree.max_time / 1e3;
    found.longest_chain = tree.longest.iter().map(|f| f.request.url.clone()).collect();
    found.roots = tree.finish();
    found
}

/// The requests of the load the graph holds, in the order they began: those begun
/// within it over the web or from files (not data URLs, videos or workers' requests).
fn graph_requests<'a>(load: &Load<'a>) -> Vec<&'a Request> {
    let workers: HashSet<(i64, i64)> = load
        .events
        .iter()
        .filter(|e| e.name == "thread_name")
        .filter(|e| {
            matches!(
                e.args["name"].as_str(),
                Some("ServiceWorker thread" | "DedicatedWorker thread")
            )
        })
        .map(|e| (e.pid, e.tid))
        .collect();
    let mut requests: Vec<&Request> = load
        .requests
        .iter()
        .filter(|r| r.start >= load.nav.ts && r.start < load.nav.until)
        .filter(|r| {
            ["blob:", "file:", "filesystem:", "http:", "https:"]
                .iter()
                .any(|p| r.original_url().starts_with(p))
                && !r.url.starts_with("data:")
        })
        .filter(|r| !r.mime_type.starts_with("video") && !workers.contains(&r.thread))
        .collect();
    requests.sort_by(|a, b| a.start.total_cmp(&b.start));
    requests
}

/// Whether DevTools would build (and simulate) the load's graph; if not, why.
fn buildable(load: &Load, requests: &[&Request]) -> Result<(), &'static str> {
    let fcp = load.events.iter().any(|e| {
        e.name == "firstContentfulPaint" && e.data()["navigationId"].as_str() == Some(&load.nav.id)
    });
    if !fcp {
        return Err(
            "the load has no first contentful paint, without which DevTools \
                    builds no dependency graph",
        );
    }
    if !load.has_lcp {
        return Err("the load has no LCP, without which DevTools builds no dependency graph");
    }
    let root = requests.first().ok_or("the load has no request")?;
    let document = requests.iter().any(|r| {
        r.resource_type == "Document"
            && !r.failed
            && without_fragment(&r.url) == without_fragment(&root.url)
    });
    if !document {
        return Err("the load's first request is not its document");
    }
    let downloaded = requests.iter().any(|r| {
        r.finish_event.is_some()
            && !r.failed
            && r.encoded_length > 0
            && r.response.as_ref().is_some_and(|s| s.status <= 300)
    });
    if !downloaded {
        return Err("no response of the load came over the network");
    }
    Ok(())
}

fn without_fragment(url: &str) -> &str {
    url.split('#').next().unwrap_or(url)
}

/// The URL `frame` showed at `ts`: the last the trace says it committed by then (the
/// first it names, when none was by then).
fn frame_url_at(events: &[Event], frame: &str, ts: f64) -> Option<String> {
    let mut shown: Vec<(f64, &str)> = Vec::new();
    for event in events {
        match event.name.as_str() {
            "TracingStartedInBrowser" => {
                for f in event.data()["frames"].as_array().into_iter().flatten() {
                    if f["frame"].as_str() == Some(frame) {
                        shown.extend(f["url"].as_str().map(|u| (event.ts, u)));
                    }
                }
            }
            "FrameCommittedInBrowser" if event.data_str("frame") == frame => {
                shown.push((event.ts, event.data_str("url")));
            }
            _ => {}
        }
    }
    let by_then = shown.iter().rev().find(|(at, _)| *at <= ts);
    by_then.or(shown.first()).map(|(_, url)| (*url).to_owned())
}

/// The graph walked from its root, a node once all it waited for was walked: each
/// node reached with the nodes on the way to it, the root first.
fn walk(graph: &PageGraph) -> Vec<Vec<usize>> {
    let mut seen = vec![false; graph.nodes.len()];
    let mut queued = vec![false; graph.nodes.len()];
    let mut paths = Vec::new();
    let mut queue = std::collections::VecDeque::from([vec![graph.root]]);
    queued[graph.root] = true;
    while let Some(path) = queue.pop_front() {
        let Some(&node) = path.last() else {
            continue;
        };
        seen[node] = true;
        for &next in &graph.nodes[node].dependents {
            let ready = graph.nodes[next].dependencies.iter().all(|&d| seen[d]);
            if ready && !queued[next] {
                queued[next] = true;
                let mut longer = path.clone();
                longer.push(next);
                queue.push_back(longer);
            }
        }
        paths.push(path);
    }
    paths
}

/// Whether a request is critical to the load's first render.
fn critical(request: &Request, nav: &Navigation) -> bool {
    if request.id == nav.id {
        return true;
    }
    if request.link_preload {
        return false;
    }
    let other_frame = request.resource_type == "Document" && request.frame != nav.frame;
    let minor = matches!(
        request.resource_type.as_str(),
        "Image" | "XHR" | "Fetch" | "EventSource"
    );
    if other_frame || minor || request.mime_type.starts_with("image/") {
        return false;
    }
    let initiated = !request.initiator_url.is_empty()
        || request.stack_urls.first().is_some_and(|u| !u.is_empty());
    initiated
        && (matches!(request.priority.as_str(), "VeryHigh" | "High" | "Medium")
            || request.blocks_render())
}

/// Whether a fetch used no network connection (a data, blob or file URL).
fn local(fetch: &Fetch) -> bool {
    let protocol = fetch
        .request
        .response
        .as_ref()
        .map_or("unknown", |r| r.protocol.as_str());
    let scheme = fetch.url.split(':').next().unwrap_or_default();
    let of = |s: &str| LOCAL_SCHEMES.contains(&s.split(':').next().unwrap_or(s));
    of(protocol) || of(scheme)
}

/// When Chrome was done with a request (its finish event), µs.
pub fn done(request: &Request) -> f64 {
    request.finish_event.unwrap_or(request.last_send)
}

/// The chains as they are added: a tree of fetches. A redirected request is in a
/// chain once per hop (as in DevTools), each time with its last URL and its times.
#[derive(Default)]
struct Tree<'a> {
    roots: Vec<Branch<'a>>,
    max_time: f64,
    longest: Vec<&'a Fetch<'a>>,
}

struct Branch<'a> {
    fetch: &'a Fetch<'a>,
    time: f64,
    children: Vec<Branch<'a>>,
}

impl<'a> Tree<'a> {
    fn add(&mut self, chain: &[&'a Fetch<'a>]) {
        let Some((first, last)) = chain.first().zip(chain.last()) else {
            return;
        };
        let start = first.request.start;
        let total = done(last.request) - start;
        if total > self.max_time {
            self.max_time = total;
            self.longest = chain.to_vec();
        }
        let mut level = &mut self.roots;
        for fetch in chain {
            let at = match level.iter().position(|b| std::ptr::eq(b.fetch, *fetch)) {
                Some(at) => at,
                None => {
                    level.push(Branch {
                        fetch,
                        time: done(fetch.request) - start,
                        children: Vec::new(),
                    });
                    level.len() - 1
                }
            };
            level = &mut level[at].children;
        }
    }

    fn finish(self) -> Vec<ChainNode> {
        fn convert(branch: Branch, longest: &[&Fetch]) -> ChainNode {
            let on_longest = longest
                .first()
                .is_some_and(|f| std::ptr::eq(*f, branch.fetch));
            let below = if on_longest { &longest[1..] } else { &[][..] };
            let mut children: Vec<ChainNode> = branch
                .children
                .into_iter()
                .map(|c| convert(c, below))
                .collect();
            children.sort_by(|a, b| deepest(b).total_cmp(&deepest(a)));
            ChainNode {
                url: branch.fetch.request.url.clone(),
                time_ms: branch.time / 1e3,
                longest: on_longest,
                children,
            }
        }
        let longest = self.longest;
        let mut roots: Vec<ChainNode> = self
            .roots
            .into_iter()
            .map(|b| convert(b, &longest))
            .collect();
        roots.sort_by(|a, b| deepest(b).total_cmp(&deepest(a)));
        roots
    }
}

/// The time of the slowest request at the end of a node's chains.
fn deepest(node: &ChainNode) -> f64 {
    deepest_leaf(node).time_ms
}

fn deepest_leaf(node: &ChainNode) -> &ChainNode {
    let mut best = node;
    for child in &node.children {
        let leaf = deepest_leaf(child);
        if std::ptr::eq(best, node) || leaf.time_ms > best.time_ms {
            best = leaf;
        }
    }
    best
}

/// A URL as short as it can be told apart in the load: its path when on the page's
/// origin.
fn short(url: &str, page: &str) -> String {
    match (url::Url::parse(url), preconnect::origin(page)) {
        (Ok(parsed), Some(page)) if parsed.origin().ascii_serialization() == page => {
            parsed[url::Position::BeforePath..].to_owned()
        }
        _ => url.to_owned(),
    }
}

/// The NetworkDependencyTree line of the summary.
pub fn line(found: &NetworkDependencyTree, page: &str) -> String {
    if let Some(why) = &found.not_built {
        return format!("- NetworkDependencyTree: no tree: {why}.");
    }
    let chains = found.chains();
    if found.longest_chain.len() < 2 {
        return format!(
            "- NetworkDependencyTree: no critical request waited on another; the document \
             took {}.",
            duration(found.max_time_ms)
        );
    }
    let names: Vec<String> = found.longest_chain.iter().map(|u| short(u, page)).collect();
    format!(
        "- NetworkDependencyTree: longest chain {}: {} ({} chain(s) of critical requests).",
        duration(found.max_time_ms),
        names.join(" → "),
        chains.len()
    )
}

/// The NetworkDependencyTree details: its lines and its data.
pub fn details(found: &NetworkDependencyTree, page: &str, lines: &mut Vec<String>) -> Value {
    fn tree_lines(node: &ChainNode, depth: usize, page: &str, lines: &mut Vec<String>) {
        lines.push(format!(
            "{}- {} ({}{})",
            "  ".repeat(depth),
            short(&node.url, page),
            duration(node.time_ms),
            if node.longest { ", longest chain" } else { "" }
        ));
        for child in &node.children {
            tree_lines(child, depth + 1, page, lines);
        }
    }
    match &found.not_built {
        Some(why) => lines.push(format!("No tree: {why}.")),
        None => {
            lines.push(format!(
                "Critical request chains (each request's time from the start of its \
                 chain's first request to its end); the longest took {}:",
                duration(found.max_time_ms)
            ));
            for root in &found.roots {
                tree_lines(root, 0, page, lines);
            }
            if found.longest_chain.len() > 1 {
                lines.push(
                    "To do: shorten the chains (let the document name late requests, e.g. \
                     with <link rel=preload>, or inline them), make their files smaller, or \
                     defer what the first render does not need."
                        .into(),
                );
            }
        }
    }
    if found.preconnected.is_empty() {
        lines.push("The page preconnected to no origin.".into());
    }
    for origin in &found.preconnected {
        lines.push(format!(
            "- preconnected ({}): {}{}",
            origin.source,
            origin.url,
            if origin.unused {
                ": unused, no request of the load went there"
            } else {
                ""
            }
        ));
    }
    lines.push(
        "Origins to preconnect to are not proposed: DevTools picks them from its simulated \
         LCP, which tabwire does not compute."
            .into(),
    );
    json!({
        "roots": found.roots,
        "maxTimeMs": found.max_time_ms,
        "longestChain": found.longest_chain,
        "preconnected": found.preconnected,
        "notBuilt": found.not_built,
    })
}

/// The NetworkDependencyTree insight: the chains of critical requests the load waited on.
pub struct NetworkDependencyTreeInsight;

impl Insight for NetworkDependencyTreeInsight {
    const NAME: &'static str = "NetworkDependencyTree";
    const ABOUT: &'static str = "the chains of critical requests the load waited on, the longest \
                                  with its time, and the origins preconnected to";
    type Data = NetworkDependencyTree;

    fn compute(load: &LoadContext) -> NetworkDependencyTree {
        let Some(nav) = load.nav else {
            return NetworkDependencyTree {
                not_built: Some("the trace holds no page load".to_owned()),
                ..Default::default()
            };
        };
        network_dependency_tree(&Load {
            events: load.events(),
            requests: load.requests(),
            nav,
            navigations: &load.trace.navigations,
            has_lcp: load.lcp().is_some(),
        })
    }

    fn summary(set: &InsightSet) -> Vec<String> {
        if set.url.is_empty() {
            return Vec::new();
        }
        vec![line(&set.network_dependency_tree, &set.url)]
    }

    fn details(set: &InsightSet, lines: &mut Vec<String>) -> Value {
        details(&set.network_dependency_tree, &set.url, lines)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::{details, line, load_graph, network_dependency_tree, Load};
    use crate::load::events;
    use crate::load::navigations;
    use crate::load::network;
    use crate::load::page_graph::Kind;

    const NAV: f64 = 1_000_000.0;

    /// A request of https://a.test/ sent at `start` ms after the navigation and done
    /// at `end` ms: its send, response and finish events.
    fn request(id: &str, path: &str, start: f64, end: f64, send: Value) -> Vec<Value> {
        let ms = |v: f64| NAV + v * 1e3;
        let mut data =
            json!({"requestId": id, "url": format!("https://a.test{path}"), "frame": "F"});
        for (key, value) in send.as_object().into_iter().flatten() {
            data[key] = value.clone();
        }
        vec![
            json!({"name": "ResourceSendRequest", "ph": "I", "ts": ms(start), "pid": 1, "tid": 2,
                   "args": {"data": data}}),
            json!({"name": "ResourceReceiveResponse", "ph": "I", "ts": ms(end - 1.0), "pid": 1, "tid": 2,
                   "args": {"data": {"requestId": id, "statusCode": 200, "protocol": "h2",
                                     "mimeType": "text/plain", "headers": [
                                         {"name": "Link", "value": "</x.css>; rel=preload, <https://cdn.test>; rel=\"preconnect\""}]}}}),
            json!({"name": "ResourceFinish", "ph": "I", "ts": ms(end), "pid": 1, "tid": 2,
                   "args": {"data": {"requestId": id, "finishTime": ms(end) / 1e6, "encodedDataLength": 900}}}),
        ]
    }

    /// A load of https://a.test/ (navigation `N`) with a first contentful paint, its
    /// requests and main-thread events.
    fn load_events(requests: Vec<Vec<Value>>, main: Vec<Value>) -> Vec<events::Event> {
        let mut list = vec![
            json!({"name": "thread_name", "ph": "M", "pid": 1, "tid": 2, "args": {"name": "CrRendererMain"}}),
            json!({"name": "TracingStartedInBrowser", "ph": "I", "ts": NAV - 10.0, "pid": 1, "tid": 1,
                   "args": {"data": {"frames": [{"frame": "F", "url": "https://a.test/"}]}}}),
            json!({"name": "navigationStart", "ph": "R", "ts": NAV, "pid": 1, "tid": 2,
                   "args": {"frame": "F", "data": {"documentLoaderURL": "https://a.test/",
                            "isLoadingMainFrame": true, "navigationId": "N"}}}),
            json!({"name": "firstContentfulPaint", "ph": "R", "ts": NAV + 900e3, "pid": 1, "tid": 2,
                   "args": {"frame": "F", "data": {"navigationId": "N"}}}),
        ];
        list.extend(requests.into_iter().flatten());
        list.extend(main);
        events::parse(json!({ "traceEvents": list }).to_string().as_bytes()).expect("events")
    }

    fn document() -> Vec<Value> {
        request(
            "N",
            "/",
            1.0,
            50.0,
            json!({"resourceType": "Document", "priority": "VeryHigh"}),
        )
    }

    fn task(at: f64, ms: f64) -> Value {
        json!({"name": "RunTask", "ph": "X", "ts": NAV + at * 1e3, "dur": ms * 1e3, "pid": 1, "tid": 2, "args": {}})
    }

    fn tree(events: &[events::Event]) -> super::NetworkDependencyTree {
        let navs = navigations(events);
        network_dependency_tree(&Load {
            events,
            requests: &network::requests(events),
            nav: &navs[0],
            navigations: &navs,
            has_lcp: true,
        })
    }

    #[test]
    fn a_style_sheet_that_loads_a_font_makes_a_chain_of_three_and_images_stay_out() {
        let events = load_events(
            vec![
                document(),
                request(
                    "C",
                    "/a.css",
                    60.0,
                    200.0,
                    json!({"resourceType": "Stylesheet",
                    "priority": "VeryHigh", "renderBlocking": "blocking",
                    "initiator": {"type": "parser", "url": "https://a.test/"}}),
                ),
                request(
                    "I",
                    "/hero.png",
                    61.0,
                    500.0,
                    json!({"resourceType": "Image",
                    "priority": "High", "initiator": {"type": "parser", "url": "https://a.test/"}}),
                ),
                request(
                    "W",
                    "/a.woff2",
                    210.0,
                    401.0,
                    json!({"resourceType": "Font",
                    "priority": "VeryHigh", "initiator": {"type": "css", "url": "https://a.test/a.css"}}),
                ),
            ],
            vec![task(55.0, 2.0)],
        );
        let found = tree(&events);
        assert_eq!(found.not_built, None);
        let path = |c: &Vec<String>| c.iter().map(|u| u[14..].to_owned()).collect::<Vec<_>>();
        let chains: Vec<Vec<String>> = found.chains().iter().map(path).collect();
        assert_eq!(chains, [["/", "/a.css", "/a.woff2"]]);
        // From the document's start (1 ms) to the font's end (401 ms).
        assert_eq!(found.max_time_ms, 400.0);
        assert_eq!(found.roots[0].children[0].time_ms, 199.0);
        assert!(found.roots[0].children[0].longest);
        assert_eq!(
            line(&found, "https://a.test/"),
            "- NetworkDependencyTree: longest chain 400 ms: / → /a.css → /a.woff2 (1 chain(s) \
             of critical requests)."
        );
        let mut lines = Vec::new();
        let data = details(&found, "https://a.test/", &mut lines);
        assert!(
            lines.contains(&"    - /a.woff2 (400 ms, longest chain)".to_owned()),
            "{lines:?}"
        );
        assert_eq!(data["maxTimeMs"], 400.0);
        assert_eq!(found.preconnected.len(), 1);
        assert_eq!(found.preconnected[0].url, "https://cdn.test");
        assert!(found.preconnected[0].unused);
    }

    #[test]
    fn a_request_a_task_sends_waits_for_the_script_the_task_ran() {
        // app.js (done at 100 ms) runs in a task at 120 ms that sends late.js; late.js
        // names the document as its initiator, yet it waited on app.js through the task.
        let events = load_events(
            vec![
                document(),
                request(
                    "A",
                    "/app.js",
                    60.0,
                    100.0,
                    json!({"resourceType": "Script",
                    "priority": "High", "initiator": {"type": "parser", "url": "https://a.test/"}}),
                ),
                request(
                    "L",
                    "/late.js",
                    125.0,
                    300.0,
                    json!({"resourceType": "Script",
                    "priority": "High", "initiator": {"type": "script", "url": "https://a.test/"},
                    "stackTrace": [{"url": "https://a.test/app.js", "lineNumber": 1, "columnNumber": 1}]}),
                ),
            ],
            vec![
                task(55.0, 2.0),
                task(120.0, 30.0),
                json!({"name": "EvaluateScript", "ph": "X", "ts": NAV + 121e3, "dur": 20e3, "pid": 1, "tid": 2,
                       "args": {"data": {"url": "https://a.test/app.js", "frame": "F"}}}),
            ],
        );
        let found = tree(&events);
        let chains: Vec<Vec<String>> = found.chains();
        assert_eq!(
            chains,
            [[
                "https://a.test/",
                "https://a.test/app.js",
                "https://a.test/late.js"
            ]]
        );
        assert_eq!(found.max_time_ms, 299.0);
        // The task's send event (the request's own, at 125 ms) is inside the task.
        let requests = network::requests(&events);
        let navs = navigations(&events);
        let built = load_graph(&Load {
            events: &events,
            requests: &requests,
            nav: &navs[0],
            navigations: &navs,
            has_lcp: true,
        })
        .expect("a graph");
        let graph = &built.graph;
        let late = graph
            .nodes
            .iter()
            .position(|n| n.kind == Kind::Request(2))
            .expect("late.js");
        let waits_on_task = graph.nodes[late]
            .dependencies
            .iter()
            .any(|&d| matches!(graph.nodes[d].kind, Kind::Task(_)));
        assert!(waits_on_task, "{:?}", graph.nodes[late]);
    }

    #[test]
    fn a_redirected_style_sheet_is_in_its_chain_once_per_hop_as_devtools_lists_it() {
        // /old.css redirects (at 80 ms) to /a.css, which loads a font.
        let mut list = vec![document()];
        let mut css = request(
            "C",
            "/a.css",
            60.0,
            200.0,
            json!({"resourceType": "Stylesheet",
            "priority": "VeryHigh", "renderBlocking": "blocking",
            "initiator": {"type": "parser", "url": "https://a.test/"}}),
        );
        let mut first_send = css[0].clone();
        first_send["args"]["data"]["url"] = json!("https://a.test/old.css");
        css[0]["ts"] = json!(NAV + 80e3);
        css.insert(0, first_send);
        list.push(css);
        list.push(request(
            "W",
            "/a.woff2",
            210.0,
            401.0,
            json!({"resourceType": "Font",
            "priority": "VeryHigh", "initiator": {"type": "css", "url": "https://a.test/a.css"}}),
        ));
        let events = load_events(list, vec![task(55.0, 2.0)]);
        let found = tree(&events);
        let path = |c: &Vec<String>| c.iter().map(|u| u[14..].to_owned()).collect::<Vec<_>>();
        let chains: Vec<Vec<String>> = found.chains().iter().map(path).collect();
        assert_eq!(chains, [["/", "/a.css", "/a.css", "/a.woff2"]]);
        assert_eq!(found.max_time_ms, 400.0);
        let requests = network::requests(&events);
        let redirects = requests[1].redirects();
        assert_eq!(redirects.len(), 1);
        assert_eq!(redirects[0].url, "https://a.test/old.css");
        assert_eq!((redirects[0].end - redirects[0].start) / 1e3, 20.0);
    }

    #[test]
    fn without_a_first_contentful_paint_there_is_no_tree_and_the_line_says_why() {
        let mut events = load_events(vec![document()], vec![task(55.0, 2.0)]);
        events.retain(|e| e.name != "firstContentfulPaint");
        let found = tree(&events);
        assert!(found.roots.is_empty());
        assert!(line(&found, "https://a.test/").contains("no first contentful paint"));
    }
}
