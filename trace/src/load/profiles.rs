//! V8's CPU samples in a trace, assembled into profiles.
//!
//! With `disabled-by-default-v8.cpu_profiler` recorded, V8 samples each JavaScript
//! thread's stack (about every 0.2 ms in the fixture traces) and writes a profile as
//! trace events: a `Profile` event on the sampled thread (its start, `ts`, and its
//! `source`) and then `ProfileChunk`s, written from V8's profiler thread, with the
//! same process and profile id (`id`). Each chunk adds to the profile:
//! - `cpuProfile.nodes`: call-tree nodes `{id, parent, callFrame: {functionName, url,
//!   scriptId, lineNumber, columnNumber}}` (0-based positions), the first one the root;
//! - `cpuProfile.samples`: the node on top of the stack at each sample;
//! - `timeDeltas`: µs from the previous sample (the first from the profile's start);
//! - `lines`: the line running in the sampled function at each sample (1-based).
//!
//! The assembly follows DevTools' (its CPU-profile data model), so that the figures
//! can be checked against its trace engine: per thread one profile (the
//! Performance panel's own, source `Internal`, before one `console.profile` started,
//! `Inspector`); samples sorted by time, each lasting until the next one (the last
//! one the average interval); a single `(program)` sample between two stacks of the
//! same function is the sampler failing to read the stack, and is given the stack
//! before it.
//!
//! Unlike DevTools, where the input is broken this module does not lose the rest of
//! the profile: a node whose parent no chunk defines (a chunk lost from a full trace
//! buffer) hangs from the root and is counted in [`Profile::orphans`]; a sample naming
//! no node it can place (an unknown id, a cycle of parents) is kept as unattributed
//! time; a node id defined twice keeps its first definition.

use std::collections::{HashMap, HashSet, VecDeque};

use serde_json::Value;

use crate::load::events::Event;

/// Where a call-tree node's function is.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CallFrame {
    /// The function's name (`(program)`, `(idle)`, `(garbage collector)`, `(root)`
    /// for V8's own nodes; empty for an anonymous function).
    pub function_name: String,
    /// Its script's URL (empty for native and V8's own code).
    pub url: String,
    /// Its script's id, as V8 numbers scripts (`0`: none).
    pub script_id: String,
    /// Where the function starts, 0-based line (`-1`: unknown).
    pub line: i64,
    /// Where the function starts, 0-based column (`-1`: unknown).
    pub column: i64,
}

/// A node of a profile's call tree.
#[derive(Debug, Clone)]
pub struct Node {
    /// The function.
    pub frame: CallFrame,
    /// Its caller's node (an index into [`Profile::nodes`]); `None` for the root.
    pub parent: Option<usize>,
}

/// A sample: what was on top of the stack from `ts` for `dur`.
#[derive(Debug, Clone, Copy)]
pub struct Sample {
    /// When it was taken, µs of the trace clock.
    pub ts: f64,
    /// Until the next sample, µs.
    pub dur: f64,
    /// The node on top of the stack (an index into [`Profile::nodes`]); `None` when the
    /// profile cannot place the id the sample names.
    pub node: Option<usize>,
    /// The line running in the sampled function, 1-based (`0`: not recorded).
    pub line: i64,
}

/// One thread's CPU profile.
#[derive(Debug, Clone)]
pub struct Profile {
    /// The process.
    pub pid: i64,
    /// The sampled thread.
    pub tid: i64,
    /// The profile's id in the trace.
    pub id: String,
    /// Who started it (`Internal`: the trace itself; `Inspector`: `console.profile`).
    pub source: String,
    /// The call tree, parents before their children; the root first.
    pub nodes: Vec<Node>,
    /// The samples, in time order.
    pub samples: Vec<Sample>,
    /// Nodes whose parent no chunk defines, hung from the root.
    pub orphans: usize,
}

impl Profile {
    /// The node of V8's own kind named `name` (`(program)`...) among the root's
    /// children: the first one.
    pub fn meta_node(&self, name: &str) -> Option<usize> {
        self.nodes
            .iter()
            .position(|n| n.parent == Some(0) && n.frame.function_name == name)
    }
}

/// A profile as its events give it, before it is assembled.
#[derive(Default)]
struct Raw {
    start: Option<f64>,
    tid: Option<i64>,
    source: String,
    nodes: Vec<RawNode>,
    /// (node id, delta µs, line) per sample, in the order the chunks give them.
    samples: Vec<(Option<i64>, f64, i64)>,
}

struct RawNode {
    id: i64,
    parent: Option<i64>,
    frame: CallFrame,
}

/// An event's id (`"0x1"`, or a number) as text.
fn id_of(e: &Event) -> Option<String> {
    match e.id.as_ref()? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn call_frame(v: &Value) -> CallFrame {
    let text = |key: &str| crate::load::events::text(&v[key]).unwrap_or_default();
    CallFrame {
        function_name: text("functionName"),
        url: text("url"),
        script_id: text("scriptId"),
        line: v["lineNumber"].as_i64().unwrap_or(-1),
        column: v["columnNumber"].as_i64().unwrap_or(-1),
    }
}

/// Adds a `ProfileChunk`'s nodes and samples to its profile. Samples and time deltas
/// pair up in order; either one's extra entries are dropped.
fn add_chunk(raw: &mut Raw, data: &Value) {
    let profile = &data["cpuProfile"];
    for n in profile["nodes"].as_array().into_iter().flatten() {
        let Some(id) = n["id"].as_i64() else {
            continue;
        };
        raw.nodes.push(RawNode {
            id,
            parent: n["parent"].as_i64(),
            frame: call_frame(&n["callFrame"]),
        });
    }
    let empty = Vec::new();
    let samples = profile["samples"].as_array().unwrap_or(&empty);
    let deltas = data["timeDeltas"].as_array().unwrap_or(&empty);
    let lines = data["lines"].as_array().unwrap_or(&empty);
    for (i, (sample, delta)) in samples.iter().zip(deltas).enumerate() {
        let delta = delta.as_f64().filter(|d| d.is_finite()).unwrap_or(0.0);
        let line = lines.get(i).and_then(Value::as_i64).unwrap_or(0);
        raw.samples.push((sample.as_i64(), delta, line));
    }
}

/// The CPU profiles of a trace's events (sorted by time), one per sampled thread.
pub fn profiles(events: &[Event]) -> Vec<Profile> {
    let mut order: Vec<(i64, String)> = Vec::new();
    let mut raws: HashMap<(i64, String), Raw> = HashMap::new();
    for e in events {
        let head = e.name == "Profile";
        if !head && e.name != "ProfileChunk" {
            continue;
        }
        let Some(id) = id_of(e) else {
            continue;
        };
        let key = (e.pid, id);
        let raw = raws.entry(key.clone()).or_insert_with(|| {
            order.push(key);
            Raw::default()
        });
        let source = e.data()["source"].as_str();
        if let Some(source) = source.filter(|s| !s.is_empty()) {
            raw.source = source.to_owned();
        }
        if head {
            raw.start = Some(e.ts);
            raw.tid = Some(e.tid);
        } else {
            add_chunk(raw, e.data());
        }
    }
    let mut all: Vec<Profile> = order
        .into_iter()
        .filter_map(|key| {
            let raw = raws.remove(&key)?;
            assemble(key.0, key.1, raw)
        })
        .collect();
    // One per thread: the trace's own, else console.profile's, else the first.
    let rank = |p: &Profile| match p.source.as_str() {
        "Internal" => 0,
        "Inspector" => 1,
        _ => 2,
    };
    let mut chosen: Vec<Profile> = Vec::new();
    for profile in all.drain(..) {
        match chosen
            .iter_mut()
            .find(|c| (c.pid, c.tid) == (profile.pid, profile.tid))
        {
            Some(c) if rank(&profile) < rank(c) => *c = profile,
            Some(_) => {}
            None => chosen.push(profile),
        }
    }
    chosen
}

/// A profile's tree and timed samples; `None` without a `Profile` event (no thread,
/// no start) or without nodes.
fn assemble(pid: i64, id: String, raw: Raw) -> Option<Profile> {
    let (start, tid) = (raw.start?, raw.tid?);
    let (nodes, index, orphans) = tree(&raw.nodes)?;
    let mut at = start;
    let mut samples: Vec<Sample> = raw
        .samples
        .iter()
        .map(|&(node, delta, line)| {
            at += delta;
            Sample {
                ts: at,
                dur: 0.0,
                node: node.and_then(|n| index.get(&n).copied()),
                line,
            }
        })
        // Deltas that add up past any clock: the rest is not time.
        .take_while(|s| s.ts.is_finite())
        .collect();
    samples.sort_by(|a, b| a.ts.total_cmp(&b.ts));
    let average = match (samples.first(), samples.last()) {
        (Some(first), Some(last)) if samples.len() > 1 => {
            (last.ts - first.ts) / (samples.len() - 1) as f64
        }
        _ => 0.0,
    };
    for i in 0..samples.len() {
        samples[i].dur = match samples.get(i + 1) {
            Some(next) => next.ts - samples[i].ts,
            None => average,
        };
    }
    let mut profile = Profile {
        pid,
        tid,
        id,
        source: raw.source,
        nodes,
        samples,
        orphans,
    };
    fill_missed_stacks(&mut profile);
    Some(profile)
}

/// The call tree from the root (the first node), parents first: the nodes, each id's
/// index, and how many nodes hang from the root for want of their parent.
type Tree = (Vec<Node>, HashMap<i64, usize>, usize);

fn tree(raw: &[RawNode]) -> Option<Tree> {
    let root = raw.first()?;
    let mut defined: HashMap<i64, usize> = HashMap::new();
    for (i, n) in raw.iter().enumerate() {
        defined.entry(n.id).or_insert(i);
    }
    let mut children: HashMap<i64, Vec<usize>> = HashMap::new();
    let mut orphans = 0;
    for (i, n) in raw.iter().enumerate().skip(1) {
        if defined.get(&n.id) != Some(&i) {
            continue;
        }
        let parent = match n.parent {
            Some(p) if defined.contains_key(&p) => p,
            _ => {
                orphans += 1;
                root.id
            }
        };
        children.entry(parent).or_default().push(i);
    }
    let mut nodes = vec![Node {
        frame: root.frame.clone(),
        parent: None,
    }];
    let mut index = HashMap::from([(root.id, 0)]);
    let mut seen = HashSet::from([root.id]);
    let mut queue = VecDeque::from([(root.id, 0)]);
    while let Some((id, at)) = queue.pop_front() {
        for &child in children.get(&id).into_iter().flatten() {
            let c = &raw[child];
            if !seen.insert(c.id) {
                continue;
            }
            nodes.push(Node {
                frame: c.frame.clone(),
                parent: Some(at),
            });
            index.insert(c.id, nodes.len() - 1);
            queue.push_back((c.id, nodes.len() - 1));
        }
    }
    Some((nodes, index, orphans))
}

/// For each node, the root's child it descends from (the root for the root); parents
/// come before their children.
fn bottoms(nodes: &[Node]) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::with_capacity(nodes.len());
    for (i, node) in nodes.iter().enumerate() {
        let bottom = match node.parent {
            Some(0) | None => i,
            Some(parent) => out.get(parent).copied().unwrap_or(i),
        };
        out.push(bottom);
    }
    out
}

/// Gives a single `(program)` sample between two stacks of the same bottom function
/// (neither of V8's own) the stack before it, as DevTools does: the sampler missed the
/// JavaScript stack there.
fn fill_missed_stacks(profile: &mut Profile) {
    let Some(program) = profile.meta_node("(program)") else {
        return;
    };
    let system: Vec<usize> = ["(program)", "(garbage collector)", "(idle)"]
        .iter()
        .filter_map(|name| profile.meta_node(name))
        .collect();
    let samples = &mut profile.samples;
    if samples.len() < 3 {
        return;
    }
    let original: Vec<Option<usize>> = samples.iter().map(|s| s.node).collect();
    let bottom = bottoms(&profile.nodes);
    for i in 1..samples.len() - 1 {
        let (Some(prev), Some(next)) = (original[i - 1], original[i + 1]) else {
            continue;
        };
        if original[i] == Some(program)
            && !system.contains(&prev)
            && !system.contains(&next)
            && bottom[prev] == bottom[next]
        {
            samples[i].node = Some(prev);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use crate::load::events;

    fn frame(name: &str, url: &str, line: i64) -> Value {
        json!({"functionName": name, "url": url, "scriptId": if url.is_empty() { 0 } else { 7 },
               "lineNumber": line, "columnNumber": 4})
    }

    fn head(ts: f64) -> Value {
        json!({"name": "Profile", "ph": "P", "id": "0x1", "pid": 1, "tid": 2, "ts": ts,
               "args": {"data": {"startTime": ts, "source": "Internal"}}})
    }

    fn chunk(ts: f64, nodes: Value, samples: Value, deltas: Value) -> Value {
        json!({"name": "ProfileChunk", "ph": "P", "id": "0x1", "pid": 1, "tid": 9, "ts": ts,
               "args": {"data": {"cpuProfile": {"nodes": nodes, "samples": samples},
                                 "timeDeltas": deltas}}})
    }

    fn parse(events: Vec<Value>) -> Vec<super::Profile> {
        let bytes = json!({ "traceEvents": events }).to_string();
        super::profiles(&events::parse(bytes.as_bytes()).expect("a trace"))
    }

    #[test]
    fn chunks_add_up_into_one_profile_on_the_thread_of_its_head() {
        let profiles = parse(vec![
            head(1000.0),
            chunk(
                1100.0,
                json!([{"id": 1, "callFrame": frame("(root)", "", -1)},
                       {"id": 2, "parent": 1, "callFrame": frame("(program)", "", -1)},
                       {"id": 3, "parent": 1, "callFrame": frame("main", "https://a.test/a.js", 0)}]),
                json!([2, 3]),
                json!([100, 200]),
            ),
            // A node defined in a later chunk, under one defined before.
            chunk(
                1500.0,
                json!([{"id": 4, "parent": 3, "callFrame": frame("work", "https://a.test/a.js", 9)}]),
                json!([4, 4, 3]),
                json!([200, 300, 100]),
            ),
        ]);
        assert_eq!(profiles.len(), 1);
        let p = &profiles[0];
        assert_eq!((p.pid, p.tid, p.source.as_str()), (1, 2, "Internal"));
        assert_eq!(p.nodes.len(), 4);
        let ts: Vec<f64> = p.samples.iter().map(|s| s.ts).collect();
        assert_eq!(ts, [1100.0, 1300.0, 1500.0, 1800.0, 1900.0]);
        let dur: Vec<f64> = p.samples.iter().map(|s| s.dur).collect();
        // The last one lasts the average interval: (1900 - 1100) / 4.
        assert_eq!(dur, [200.0, 200.0, 300.0, 100.0, 200.0]);
        let work = p.samples[2].node.expect("a known node");
        assert_eq!(p.nodes[work].frame.function_name, "work");
        let main = p.nodes[work].parent.expect("a parent");
        assert_eq!(p.nodes[main].frame.function_name, "main");
        assert_eq!(p.orphans, 0);
    }

    #[test]
    fn samples_out_of_order_are_sorted_and_a_lone_program_sample_inside_a_stack_is_filled() {
        let profiles = parse(vec![
            head(0.0),
            chunk(
                10.0,
                json!([{"id": 1, "callFrame": frame("(root)", "", -1)},
                       {"id": 2, "parent": 1, "callFrame": frame("(program)", "", -1)},
                       {"id": 3, "parent": 1, "callFrame": frame("main", "https://a.test/a.js", 0)}]),
                // Times 100, 300, 200 (a negative delta), 400.
                json!([3, 3, 2, 3]),
                json!([100, 200, -100, 200]),
            ),
        ]);
        let p = &profiles[0];
        let ts: Vec<f64> = p.samples.iter().map(|s| s.ts).collect();
        assert_eq!(ts, [100.0, 200.0, 300.0, 400.0]);
        // The (program) sample at 200 sits between two samples of main: main's.
        assert!(p.samples.iter().all(|s| s.node == Some(2)), "{p:?}");
    }

    #[test]
    fn a_node_without_its_parent_hangs_from_the_root_and_unknown_samples_stay_unplaced() {
        let profiles = parse(vec![
            head(0.0),
            chunk(
                10.0,
                json!([{"id": 1, "callFrame": frame("(root)", "", -1)},
                       {"id": 5, "parent": 4, "callFrame": frame("lost", "https://a.test/a.js", 3)},
                       // A cycle of parents: neither reaches the root.
                       {"id": 6, "parent": 7, "callFrame": frame("a", "", -1)},
                       {"id": 7, "parent": 6, "callFrame": frame("b", "", -1)},
                       // Defined twice: the first stays.
                       {"id": 5, "parent": 1, "callFrame": frame("again", "", -1)}]),
                json!([5, 6, 99, 5]),
                json!([10, 10, 10, 10]),
            ),
        ]);
        let p = &profiles[0];
        assert_eq!(p.orphans, 1);
        assert_eq!(p.nodes.len(), 2);
        assert_eq!(p.nodes[1].frame.function_name, "lost");
        assert_eq!(p.nodes[1].parent, Some(0));
        let placed: Vec<Option<usize>> = p.samples.iter().map(|s| s.node).collect();
        assert_eq!(placed, [Some(1), None, None, Some(1)]);
    }

    #[test]
    fn hostile_chunks_give_no_panic_and_no_profile_without_a_head() {
        let junk = [
            json!({"name": "ProfileChunk", "ph": "P", "id": "0x2", "pid": 1, "ts": 5,
                   "args": {"data": {"cpuProfile": {"nodes": [{"id": 1}], "samples": [1]},
                                     "timeDeltas": [1]}}}),
            json!({"name": "Profile", "ph": "P", "id": {"local": 3}, "pid": 1, "ts": 5}),
            json!({"name": "Profile", "ph": "P", "id": "0x4", "pid": 1, "tid": 1, "ts": 5}),
            json!({"name": "ProfileChunk", "ph": "P", "id": "0x4", "pid": 1, "ts": 6,
                   "args": {"data": {"cpuProfile": {"nodes": "no", "samples": [1, "x", null]},
                                     "timeDeltas": ["y", 4]}}}),
            json!({"name": "Profile", "ph": "P", "id": "0x5", "pid": 1, "tid": 3, "ts": 5}),
            json!({"name": "ProfileChunk", "ph": "P", "id": "0x5", "pid": 1, "ts": 6,
                   "args": {"data": {"cpuProfile": {"nodes": [{"id": 1, "callFrame": 3},
                       {"id": 2, "parent": 2, "callFrame": {"lineNumber": "x"}}],
                       "samples": [2, 1, -1, 1, 1]}, "timeDeltas": [1, 2, 1e308, 1e308, 1]}}}),
        ];
        let profiles = parse(junk.to_vec());
        // 0x2 has no head, 0x3 no usable id, 0x4 no nodes: only 0x5 is a profile.
        assert_eq!(profiles.len(), 1, "{profiles:?}");
        let p = &profiles[0];
        assert_eq!(p.id, "0x5");
        // The samples past the overflowing deltas are dropped.
        assert_eq!(p.samples.len(), 3);
        assert!(
            p.samples
                .iter()
                .all(|s| s.ts.is_finite() && s.dur.is_finite()),
            "{p:?}"
        );
        assert_eq!(p.orphans, 0);
        assert_eq!(p.nodes.len(), 1);
    }

    #[test]
    fn a_thread_keeps_the_trace_s_own_profile_over_console_profile_s() {
        let mut inspector = head(0.0);
        inspector["id"] = json!("0x9");
        inspector["args"]["data"]["source"] = json!("Inspector");
        let mut nodes = chunk(
            1.0,
            json!([{"id": 1, "callFrame": frame("(root)", "", -1)}]),
            json!([1]),
            json!([1]),
        );
        let mut inspector_nodes = nodes.clone();
        inspector_nodes["id"] = json!("0x9");
        nodes["ts"] = json!(2.0);
        let profiles = parse(vec![inspector, inspector_nodes, head(1.0), nodes]);
        assert_eq!(profiles.len(), 1);
        assert_eq!(profiles[0].id, "0x1");
    }
}
