//! The words for the CPU profile: its summary line and its bottom-up table.

use serde_json::{json, Value};

use super::bottom_up::{FunctionTime, Kind};
use super::text::duration;
use super::text_more::count;
use super::InsightSet;

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

/// The CPUProfile line of the summary.
pub fn cpu_line(set: &InsightSet) -> String {
    let Some(p) = &set.cpu_profile else {
        return format!("- CPUProfile: {NO_SAMPLES}.");
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
    line + &format!(
        "; the main thread was busy {} of the {} sampled.",
        duration(p.busy_ms),
        duration(p.sampled_ms)
    )
}

/// The CPUProfile details: the bottom-up table.
pub fn cpu_details(set: &InsightSet, lines: &mut Vec<String>) -> Value {
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    /// A load of `https://a.test/` on 1/2 whose profile samples `spin` (app.js) for
    /// 3 ms, `(program)` for 1 ms and `(idle)` for 1 ms.
    fn report() -> super::super::Report {
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
        super::super::analyze_bytes(trace.to_string().as_bytes()).expect("a trace")
    }

    #[test]
    fn the_summary_names_the_hottest_function_where_it_is_and_the_table_its_times() {
        let report = report();
        let summary = super::super::text::summary(&report).join("\n");
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
        let (lines, data) = super::super::text::details(set, "CPUProfile").expect("an insight");
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
        let report = super::super::analyze_bytes(trace.to_string().as_bytes()).expect("a trace");
        let summary = super::super::text::summary(&report).join("\n");
        assert!(
            summary.contains("- CPUProfile: the trace has no CPU samples"),
            "{summary}"
        );
        let (lines, data) =
            super::super::text::details(&report.insight_sets[0], "CPUProfile").expect("one");
        assert!(
            lines[1].starts_with("The trace has no CPU samples"),
            "{lines:?}"
        );
        assert!(data.is_null());
    }
}
