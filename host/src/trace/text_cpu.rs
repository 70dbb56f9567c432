//! The words for the CPU profile: its summary line and its bottom-up table.

use serde_json::{json, Value};

use super::bottom_up::{FunctionTime, Kind};
use super::text::duration;
use super::InsightSet;

/// How many functions the summary names.
const IN_SUMMARY: usize = 3;

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
    let hottest: Vec<String> = p
        .functions
        .iter()
        .filter(|f| is_javascript(f))
        .take(IN_SUMMARY)
        .map(|f| format!("{} {}", f.label, short(f.self_ms)))
        .collect();
    let mut line = if hottest.is_empty() {
        "- CPUProfile: no JavaScript function was sampled".to_owned()
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
        p.samples,
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
