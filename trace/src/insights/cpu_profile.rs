//! A load's CPU profile as a bottom-up table: for each function, the time it ran
//! itself (self time) and the time it was on the stack (total time), from the
//! samples of the page's main thread within the load ([`crate::load::profiles`]).
//!
//! The figures follow DevTools' CPU profile model (as its JavaScript profiler and
//! trace engine count them), so they can be checked against its trace engine:
//! - a sample lasts until the next one; the samples taken within `[from, until)` count;
//! - a function is its call frame (name, script, line, column): its self time is that
//!   of the samples with it on top; its total time, that of the samples with it
//!   anywhere on the stack, once however deep it recurses;
//! - `(garbage collector)` samples have no stack: their time goes into the total of
//!   the stack sampled before them (the collection ran on top of it);
//! - `(idle)` (the thread waiting for work) and `(root)` (a sample with nothing on
//!   the stack) are no function's time: they are counted apart, as is the time of
//!   samples the profile cannot place;
//! - `(program)` is the thread busy outside JavaScript (parsing, style, layout, the
//!   browser's own work): it is listed, as DevTools lists it.

use std::collections::HashMap;

use serde::Serialize;

use serde_json::{json, Value};

use crate::insights::{Insight, InsightSet};
use crate::load::profiles::{CallFrame, Profile};
use crate::load::LoadContext;
use crate::text::format::{count, duration};

/// The most functions listed.
pub const MAX_FUNCTIONS: usize = 15;

/// The CPU profile of a load's main thread.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CpuProfile {
    /// The process sampled.
    pub pid: i64,
    /// The thread sampled (the page's main thread).
    pub tid: i64,
    /// How many samples fell within the load.
    pub samples: usize,
    /// The time they cover, ms.
    pub sampled_ms: f64,
    /// The part of it the thread was busy (not idle), ms.
    pub busy_ms: f64,
    /// The part of it the thread was idle, ms.
    pub idle_ms: f64,
    /// The part of it no function is named for (samples on the root, or on nodes the
    /// profile does not define), ms.
    pub unattributed_ms: f64,
    /// Call-tree nodes whose caller the trace lost (counted from the root: their
    /// callers' total times miss them).
    pub orphan_nodes: usize,
    /// The functions that ran most, by self time (at most [`MAX_FUNCTIONS`]).
    pub functions: Vec<FunctionTime>,
}

/// What kind of code a function is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Kind {
    /// A script's function (with the script's URL, or without one for a script a
    /// page or an extension evaluated).
    JavaScript,
    /// Code without a script: built-ins and the browser's bindings (`now`, `appendChild`).
    Native,
    /// `(program)`: the thread busy outside JavaScript.
    Program,
    /// `(garbage collector)`.
    GarbageCollector,
}

/// One function's time.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FunctionTime {
    /// How to name it: `spin (https://a.test/busy.js:3:27)`, `now (native)`,
    /// `(program)`, `run (script 3 without a URL, 16:26)`.
    pub label: String,
    /// The function's name (empty: anonymous).
    pub function_name: String,
    /// Its script's URL (empty without one).
    pub url: String,
    /// Where the function starts in its script, 1-based line (0: unknown).
    pub line: i64,
    /// Where the function starts in its script, 1-based column (0: unknown).
    pub column: i64,
    /// What kind of code it is.
    pub kind: Kind,
    /// The time it ran itself, ms.
    pub self_ms: f64,
    /// The time it was on the stack (with what it called), ms.
    pub total_ms: f64,
    /// The line of its script that most of its self time ran (1-based), when the
    /// samples say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hottest_line: Option<i64>,
    /// The caller most of its self time ran under (its label), when it has one: who
    /// called a native function such as `now` or `get offsetHeight`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub called_by: Option<String>,
}

impl Kind {
    fn of(frame: &CallFrame) -> Self {
        match frame.function_name.as_str() {
            "(program)" => Kind::Program,
            "(garbage collector)" => Kind::GarbageCollector,
            _ if !frame.url.is_empty() => Kind::JavaScript,
            _ if !matches!(frame.script_id.as_str(), "" | "0") => Kind::JavaScript,
            _ => Kind::Native,
        }
    }
}

fn label(frame: &CallFrame, kind: Kind) -> String {
    let name = if frame.function_name.is_empty() {
        "(anonymous)"
    } else {
        &frame.function_name
    };
    match kind {
        Kind::Program | Kind::GarbageCollector => name.to_owned(),
        Kind::Native => format!("{name} (native)"),
        Kind::JavaScript if frame.url.is_empty() => {
            let mut place = format!("script {} without a URL", frame.script_id);
            if frame.line >= 0 {
                place += &format!(", {}:{}", frame.line + 1, frame.column.max(0) + 1);
            }
            format!("{name} ({place})")
        }
        Kind::JavaScript if frame.line < 0 => format!("{name} ({})", frame.url),
        Kind::JavaScript if frame.column < 0 => {
            format!("{name} ({}:{})", frame.url, frame.line + 1)
        }
        Kind::JavaScript => format!(
            "{name} ({}:{}:{})",
            frame.url,
            frame.line + 1,
            frame.column + 1
        ),
    }
}

/// The CPU profile of the busiest of `threads` within `[from, until)` (µs), or
/// `None` when none of them was sampled then.
pub fn cpu_profile(
    profiles: &[Profile],
    threads: &[(i64, i64)],
    from: f64,
    until: f64,
) -> Option<CpuProfile> {
    profiles
        .iter()
        .filter(|p| threads.contains(&(p.pid, p.tid)))
        .map(|p| table(p, from, until))
        .filter(|t| t.samples > 0)
        .max_by(|a, b| a.busy_ms.total_cmp(&b.busy_ms))
}

/// Time per node of the call tree.
struct NodeTimes {
    /// Samples with the node on top, µs.
    self_us: Vec<f64>,
    /// Garbage collection that ran on top of the node, µs.
    gc_us: Vec<f64>,
    /// Self time per line of the node's function, µs.
    lines: HashMap<(usize, i64), f64>,
}

/// One profile's table over `[from, until)`.
fn table(p: &Profile, from: f64, until: f64) -> CpuProfile {
    let n = p.nodes.len();
    let mut t = NodeTimes {
        self_us: vec![0.0; n],
        gc_us: vec![0.0; n],
        lines: HashMap::new(),
    };
    let gc = p.meta_node("(garbage collector)");
    let mut out = CpuProfile {
        pid: p.pid,
        tid: p.tid,
        samples: 0,
        sampled_ms: 0.0,
        busy_ms: 0.0,
        idle_ms: 0.0,
        unattributed_ms: 0.0,
        orphan_nodes: p.orphans,
        functions: Vec::new(),
    };
    let (mut sampled, mut idle, mut unplaced) = (0.0, 0.0, 0.0);
    // The node sampled before, and the stack a collection runs on top of.
    let (mut prev, mut gc_parent) = (0, 0);
    for s in p.samples.iter().filter(|s| s.ts >= from && s.ts < until) {
        out.samples += 1;
        sampled += s.dur;
        let Some(node) = s.node else {
            unplaced += s.dur;
            prev = 0;
            continue;
        };
        t.self_us[node] += s.dur;
        if Some(node) == gc {
            if Some(prev) != gc {
                gc_parent = prev;
            }
            t.gc_us[gc_parent] += s.dur;
        }
        let frame = &p.nodes[node].frame;
        if node == 0 {
            unplaced += s.dur;
        } else if frame.function_name == "(idle)" {
            idle += s.dur;
        } else if s.line > 0 && !frame.url.is_empty() {
            *t.lines.entry((node, s.line)).or_default() += s.dur;
        }
        prev = node;
    }
    out.sampled_ms = sampled / 1e3;
    out.idle_ms = idle / 1e3;
    out.unattributed_ms = unplaced / 1e3;
    out.busy_ms = (sampled - idle) / 1e3;
    out.functions = functions(p, &t);
    out
}

/// A function's figures while they add up.
struct Sums {
    frame: CallFrame,
    self_us: f64,
    total_us: f64,
    lines: HashMap<i64, f64>,
    /// Self time per caller (a function's index).
    callers: HashMap<usize, f64>,
}

/// The functions by self time, from the nodes' times.
fn functions(p: &Profile, t: &NodeTimes) -> Vec<FunctionTime> {
    let n = p.nodes.len();
    // Each node's total: itself, the collections on top of it, its children's totals
    // (children come after their parents).
    let mut total = vec![0.0; n];
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    for i in (0..n).rev() {
        total[i] += t.self_us[i] + t.gc_us[i];
        if let Some(parent) = p.nodes[i].parent {
            total[parent] += total[i];
            children[parent].push(i);
        }
    }
    let mut ids: HashMap<&CallFrame, usize> = HashMap::new();
    let mut sums: Vec<Sums> = Vec::new();
    let mut function_of = vec![0; n];
    for (i, node) in p.nodes.iter().enumerate() {
        function_of[i] = *ids.entry(&node.frame).or_insert_with(|| {
            sums.push(Sums {
                frame: node.frame.clone(),
                self_us: 0.0,
                total_us: 0.0,
                lines: HashMap::new(),
                callers: HashMap::new(),
            });
            sums.len() - 1
        });
        let f = function_of[i];
        sums[f].self_us += t.self_us[i];
        // A caller other than the root.
        if let Some(parent) = node.parent.filter(|&p| p != 0) {
            if t.self_us[i] > 0.0 {
                *sums[f].callers.entry(function_of[parent]).or_default() += t.self_us[i];
            }
        }
    }
    for (&(node, line), us) in &t.lines {
        *sums[function_of[node]].lines.entry(line).or_default() += us;
    }
    // A node adds its total to its function's unless the function is further down
    // the stack already (recursion counts once): depth first, counting the functions
    // on the way down.
    let mut on_stack = vec![0usize; sums.len()];
    let mut stack: Vec<(usize, bool)> = vec![(0, false)];
    while let Some((node, left)) = stack.pop() {
        let f = function_of[node];
        if left {
            on_stack[f] -= 1;
            continue;
        }
        if on_stack[f] == 0 {
            sums[f].total_us += total[node];
        }
        on_stack[f] += 1;
        stack.push((node, true));
        stack.extend(children[node].iter().map(|&c| (c, false)));
    }
    let root = function_of.first().copied();
    let labels: Vec<String> = sums
        .iter()
        .map(|s| label(&s.frame, Kind::of(&s.frame)))
        .collect();
    let mut out: Vec<FunctionTime> = sums
        .into_iter()
        .enumerate()
        .filter(|(i, s)| {
            Some(*i) != root
                && s.frame.function_name != "(idle)"
                && (s.self_us > 0.0 || s.total_us > 0.0)
        })
        .map(|(i, s)| {
            let kind = Kind::of(&s.frame);
            FunctionTime {
                label: labels[i].clone(),
                function_name: s.frame.function_name.clone(),
                url: s.frame.url.clone(),
                line: s.frame.line.max(-1) + 1,
                column: s.frame.column.max(-1) + 1,
                kind,
                self_ms: s.self_us / 1e3,
                total_ms: s.total_us / 1e3,
                hottest_line: s
                    .lines
                    .iter()
                    .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(a.0)))
                    .map(|(line, _)| *line),
                called_by: s
                    .callers
                    .iter()
                    .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(a.0)))
                    .and_then(|(caller, _)| labels.get(*caller).cloned()),
            }
        })
        .collect();
    out.sort_by(|a, b| {
        b.self_ms
            .total_cmp(&a.self_ms)
            .then(b.total_ms.total_cmp(&a.total_ms))
            .then_with(|| a.label.cmp(&b.label))
    });
    out.truncate(MAX_FUNCTIONS);
    out
}

/// The CPUProfile insight: the functions the main thread ran most, bottom-up.
pub struct CpuProfileInsight;

impl Insight for CpuProfileInsight {
    const NAME: &'static str = "CPUProfile";
    const ABOUT: &'static str = "the main thread's functions by self and total time, with script \
         URL:line:col";
    type Data = Option<CpuProfile>;

    fn compute(load: &LoadContext) -> Option<CpuProfile> {
        cpu_profile(&load.trace.profiles, &load.threads, load.from, load.until)
    }

    fn summary(set: &InsightSet) -> Vec<String> {
        let Some(p) = &set.cpu_profile else {
            return vec![format!("- CPUProfile: {NO_SAMPLES}.")];
        };
        let named = |f: &&FunctionTime| f.self_ms >= LEAST_IN_SUMMARY;
        let hottest: Vec<String> = p
            .functions
            .iter()
            .filter(|f| is_javascript(f))
            .filter(named)
            .take(IN_SUMMARY)
            .map(|f| match (&f.called_by, f.kind) {
                (Some(caller), Kind::Native) => {
                    format!("{} {} under {caller}", f.label, short(f.self_ms))
                }
                _ => format!("{} {}", f.label, short(f.self_ms)),
            })
            .collect();
        let mut line = if hottest.is_empty() {
            "- CPUProfile: no JavaScript function ran 1 ms or more".to_owned()
        } else {
            format!(
                "- CPUProfile: hottest functions (self time): {}",
                hottest.join(", ")
            )
        };
        let outside: Vec<String> = p
            .functions
            .iter()
            .filter(|f| !is_javascript(f))
            .filter(named)
            .map(|f| format!("{} {}", f.label, short(f.self_ms)))
            .collect();
        if !outside.is_empty() {
            line += &format!("; {}", outside.join(", "));
        }
        vec![
            line + &format!(
                "; the main thread was busy {} of the {} sampled.",
                duration(p.busy_ms),
                duration(p.sampled_ms)
            ),
        ]
    }

    fn details(set: &InsightSet, lines: &mut Vec<String>) -> Value {
        let Some(p) = &set.cpu_profile else {
            let mut no = NO_SAMPLES.to_owned();
            no[..1].make_ascii_uppercase();
            lines.push(no + ".");
            return json!(null);
        };
        lines.push(format!(
            "Main thread (process {}, thread {}): {} samples over {}, busy {}, idle {} \
             (a sample every {:.2} ms).",
            p.pid,
            p.tid,
            count(p.samples as i64),
            duration(p.sampled_ms),
            duration(p.busy_ms),
            duration(p.idle_ms),
            p.sampled_ms / p.samples.max(1) as f64
        ));
        lines.push(
            "Bottom-up, by self time (self: the function itself ran; total: it was on the \
             stack, with what it called; % of the busy time):"
                .into(),
        );
        let busy = p.busy_ms.max(f64::MIN_POSITIVE);
        for f in &p.functions {
            let mut line = format!(
                "- {}: self {} ({:.1} %), total {} ({:.1} %)",
                f.label,
                short(f.self_ms),
                100.0 * f.self_ms / busy,
                short(f.total_ms),
                100.0 * f.total_ms / busy
            );
            if let Some(hot) = f.hottest_line {
                line += &format!("; most of it at line {hot}");
            }
            if let Some(caller) = &f.called_by {
                line += &format!("; called mostly by {caller}");
            }
            match f.kind {
                Kind::Program => {
                    line += " (outside JavaScript: parsing, style, layout, \
                    the browser's own work)"
                }
                Kind::GarbageCollector => line += " (collecting the garbage of the scripts)",
                _ => {}
            }
            lines.push(line);
        }
        if p.unattributed_ms > 0.0 {
            lines.push(format!(
                "{} of samples name no function (nothing on the stack, or a node the profile \
                 does not define).",
                short(p.unattributed_ms)
            ));
        }
        if p.orphan_nodes > 0 {
            lines.push(format!(
                "{} call-tree node(s) lost their caller (part of the profile is missing from \
                 the trace): their time counts from the root, not in their callers' totals.",
                p.orphan_nodes
            ));
        }
        json!(p)
    }
}

/// How many functions the summary names.
const IN_SUMMARY: usize = 3;

/// The least self time of a function the summary names, ms.
const LEAST_IN_SUMMARY: f64 = 1.0;

/// A short time with a decimal below 10 ms: `0.4 ms`, `12 ms`, `1.2 s`.
fn short(ms: f64) -> String {
    if ms < 9.95 {
        format!("{ms:.1} ms")
    } else {
        duration(ms)
    }
}

/// What a load without samples says.
const NO_SAMPLES: &str = "the trace has no CPU samples of the page's main thread within \
    this load (V8 records them with the trace category disabled-by-default-v8.cpu_profiler)";

fn is_javascript(f: &FunctionTime) -> bool {
    matches!(f.kind, Kind::JavaScript | Kind::Native)
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::Kind;
    use crate::load::events;
    use crate::load::profiles as cpu_profile;

    fn node(id: i64, parent: Option<i64>, name: &str, url: &str, line: i64) -> Value {
        json!({"id": id, "parent": parent, "callFrame": {"functionName": name, "url": url,
               "scriptId": if url.is_empty() { 0 } else { 7 }, "lineNumber": line,
               "columnNumber": 2}})
    }

    /// A profile on thread 1/2 from 0 µs, one sample per 100 µs of `samples`.
    fn profile(nodes: Value, samples: &[i64], lines: &[i64]) -> Vec<cpu_profile::Profile> {
        let deltas: Vec<i64> = samples.iter().map(|_| 100).collect();
        let trace = json!({"traceEvents": [
            {"name": "Profile", "ph": "P", "id": "0x1", "pid": 1, "tid": 2, "ts": 0,
             "args": {"data": {"source": "Internal"}}},
            {"name": "ProfileChunk", "ph": "P", "id": "0x1", "pid": 1, "tid": 3, "ts": 1,
             "args": {"data": {"cpuProfile": {"nodes": nodes, "samples": samples},
                               "timeDeltas": deltas, "lines": lines}}}
        ]});
        cpu_profile::profiles(&events::parse(trace.to_string().as_bytes()).expect("a trace"))
    }

    fn nodes() -> Value {
        let url = "https://a.test/app.js";
        json!([
            node(1, None, "(root)", "", -1),
            node(2, Some(1), "(program)", "", -1),
            node(3, Some(1), "(idle)", "", -1),
            node(4, Some(1), "(garbage collector)", "", -1),
            node(5, Some(1), "main", url, 0),
            node(6, Some(5), "walk", url, 10),
            node(7, Some(6), "walk", url, 10),
            node(8, Some(7), "now", "", -1),
            node(9, Some(5), "", url, 20),
            json!({"id": 10, "parent": 1, "callFrame": {"functionName": "evaluated",
                   "scriptId": 3, "lineNumber": 4, "columnNumber": 0}}),
        ])
    }

    #[test]
    fn self_and_total_time_per_function_with_recursion_counted_once_and_gc_on_its_stack() {
        // main, walk, walk>walk, walk>walk>now, gc (on walk>walk>now), idle, program,
        // anonymous, main.
        let samples = [5, 6, 7, 8, 4, 4, 3, 2, 9, 5, 10];
        let lines = [1, 12, 13, 13, 0, 0, 0, 0, 21, 2, 5];
        let profiles = profile(nodes(), &samples, &lines);
        let t = super::cpu_profile(&profiles, &[(1, 2)], 0.0, f64::MAX).expect("a profile");
        assert_eq!(t.samples, 11);
        assert!((t.sampled_ms - 1.1).abs() < 1e-9, "{t:?}");
        assert!((t.idle_ms - 0.1).abs() < 1e-9);
        assert!((t.busy_ms - 1.0).abs() < 1e-9);
        let by = |label: &str| {
            t.functions
                .iter()
                .find(|f| f.label == label)
                .unwrap_or_else(|| panic!("{label} in {:?}", t.functions))
        };
        let walk = by("walk (https://a.test/app.js:11:3)");
        assert!((walk.self_ms - 0.2).abs() < 1e-9);
        // walk's two samples, now's and the collection on top of it; once, not twice.
        assert!((walk.total_ms - 0.5).abs() < 1e-9, "{walk:?}");
        assert_eq!(walk.hottest_line, Some(12));
        assert_eq!(
            (walk.line, walk.column, walk.kind),
            (11, 3, Kind::JavaScript)
        );
        let main = by("main (https://a.test/app.js:1:3)");
        assert!((main.self_ms - 0.2).abs() < 1e-9);
        assert!((main.total_ms - 0.8).abs() < 1e-9, "{main:?}");
        let gc = by("(garbage collector)");
        assert!((gc.self_ms - 0.2).abs() < 1e-9);
        assert_eq!(gc.kind, Kind::GarbageCollector);
        let now = by("now (native)");
        assert_eq!(now.kind, Kind::Native);
        assert_eq!(
            now.called_by.as_deref(),
            Some("walk (https://a.test/app.js:11:3)")
        );
        assert_eq!(main.called_by, None);
        assert_eq!(by("(program)").kind, Kind::Program);
        assert!(by("(anonymous) (https://a.test/app.js:21:3)").self_ms > 0.0);
        let evaluated = by("evaluated (script 3 without a URL, 5:1)");
        assert_eq!(evaluated.kind, Kind::JavaScript);
        assert!(t.functions.iter().all(|f| f.function_name != "(idle)"));
        assert!(t.functions.iter().all(|f| f.function_name != "(root)"));
        // By self time, most first.
        assert!(t.functions.windows(2).all(|w| w[0].self_ms >= w[1].self_ms));
    }

    #[test]
    fn only_the_samples_in_the_range_count_each_until_the_next_one() {
        let samples = [5, 5, 6, 6, 6, 2];
        let profiles = profile(nodes(), &samples, &[]);
        // Samples at 100..600 µs; [250, 550) holds those at 300, 400, 500.
        let t = super::cpu_profile(&profiles, &[(1, 2)], 250.0, 550.0).expect("a profile");
        assert_eq!(t.samples, 3);
        let walk = &t.functions[0];
        assert_eq!(walk.function_name, "walk");
        assert!((walk.self_ms - 0.3).abs() < 1e-9, "{t:?}");
        assert!(super::cpu_profile(&profiles, &[(1, 2)], 1e6, 2e6).is_none());
        assert!(super::cpu_profile(&profiles, &[(1, 9)], 0.0, 1e6).is_none());
    }

    #[test]
    fn unplaced_and_root_samples_are_unattributed_time() {
        let samples = [1, 99, 5];
        let profiles = profile(nodes(), &samples, &[]);
        let t = super::cpu_profile(&profiles, &[(1, 2)], 0.0, 1e6).expect("a profile");
        assert!((t.unattributed_ms - 0.2).abs() < 1e-9, "{t:?}");
        assert_eq!(t.functions.len(), 1);
    }

    #[test]
    fn a_deep_recursive_stack_takes_no_time_per_level() {
        // 20,000 nested calls of one function, each level once on the stack.
        let depth = 20_000;
        let mut list = vec![node(1, None, "(root)", "", -1)];
        list.extend((2..depth).map(|i| node(i, Some(i - 1), "deep", "https://a.test/d.js", 0)));
        let profiles = profile(Value::Array(list), &[depth - 1, 2], &[]);
        let t = super::cpu_profile(&profiles, &[(1, 2)], 0.0, 1e9).expect("a profile");
        assert_eq!(t.functions.len(), 1);
        assert!((t.functions[0].total_ms - 0.2).abs() < 1e-9, "{t:?}");
    }
}

#[cfg(test)]
mod words_tests {
    use serde_json::json;

    /// A load of `https://a.test/` on 1/2 whose profile samples `spin` (app.js) for
    /// 3 ms, `(program)` for 1 ms and `(idle)` for 1 ms.
    fn report() -> crate::Report {
        let url = "https://a.test/app.js";
        let trace = json!({"traceEvents": [
            {"name": "navigationStart", "ph": "R", "ts": 1000, "pid": 1, "tid": 2,
             "args": {"frame": "F", "data": {"documentLoaderURL": "https://a.test/",
                      "isLoadingMainFrame": true, "navigationId": "N"}}},
            {"name": "Profile", "ph": "P", "id": "0x1", "pid": 1, "tid": 2, "ts": 1000,
             "args": {"data": {"source": "Internal"}}},
            {"name": "ProfileChunk", "ph": "P", "id": "0x1", "pid": 1, "tid": 3, "ts": 2000,
             "args": {"data": {"cpuProfile": {"nodes": [
                 {"id": 1, "callFrame": {"functionName": "(root)", "scriptId": 0}},
                 {"id": 2, "parent": 1, "callFrame": {"functionName": "(program)", "scriptId": 0}},
                 {"id": 3, "parent": 1, "callFrame": {"functionName": "(idle)", "scriptId": 0}},
                 {"id": 4, "parent": 1, "callFrame": {"functionName": "spin", "url": url,
                  "scriptId": 5, "lineNumber": 2, "columnNumber": 26}}],
                 "samples": [4, 4, 4, 2, 3]},
               "timeDeltas": [1000, 1000, 1000, 1000, 1000], "lines": [5, 5, 4, 0, 0]}}},
            {"name": "RunTask", "ph": "X", "ts": 9000, "dur": 10, "pid": 1, "tid": 2, "args": {}}
        ]});
        crate::analyze_bytes(trace.to_string().as_bytes()).expect("a trace")
    }

    #[test]
    fn the_summary_names_the_hottest_function_where_it_is_and_the_table_its_times() {
        let report = report();
        let summary = crate::text::summary(&report).join("\n");
        assert!(
            summary.contains(
                "- CPUProfile: hottest functions (self time): \
                 spin (https://a.test/app.js:3:27) 3.0 ms; (program) 1.0 ms; \
                 the main thread was busy 4 ms of the 5 ms sampled."
            ),
            "{summary}"
        );
        assert!(summary.contains(", CPUProfile"), "listed: {summary}");
        let set = &report.insight_sets[0];
        let (lines, data) = crate::text::details(set, "CPUProfile").expect("an insight");
        let text = lines.join("\n");
        assert!(
            text.contains(
                "- spin (https://a.test/app.js:3:27): self 3.0 ms (75.0 %), \
                 total 3.0 ms (75.0 %); most of it at line 5"
            ),
            "{text}"
        );
        assert!(
            text.contains("5 samples over 5 ms, busy 4 ms, idle 1 ms"),
            "{text}"
        );
        assert_eq!(data["functions"][0]["url"], "https://a.test/app.js");
        assert_eq!(data["functions"][0]["line"], 3);
        assert_eq!(data["functions"][0]["hottestLine"], 5);
    }

    #[test]
    fn a_load_without_samples_says_how_they_are_recorded() {
        let trace = json!({"traceEvents": [
            {"name": "RunTask", "ph": "X", "ts": 9000, "dur": 10, "pid": 1, "tid": 2, "args": {}}
        ]});
        let report = crate::analyze_bytes(trace.to_string().as_bytes()).expect("a trace");
        let summary = crate::text::summary(&report).join("\n");
        assert!(
            summary.contains("- CPUProfile: the trace has no CPU samples"),
            "{summary}"
        );
        let (lines, data) =
            crate::text::details(&report.insight_sets[0], "CPUProfile").expect("one");
        assert!(
            lines[1].starts_with("The trace has no CPU samples"),
            "{lines:?}"
        );
        assert!(data.is_null());
    }
}
