//! The words for INP, forced reflows and DOM size: their summary lines and details.

use serde_json::{json, Value};

use super::text::{duration, element};
use super::InsightSet;

/// A count with thousands separated: `2,100`.
pub fn count(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 {
        out.insert(0, '-');
    }
    out
}

/// The INPBreakdown line of the summary.
pub fn inp_line(set: &InsightSet) -> String {
    let Some(inp) = &set.inp else {
        return "- INPBreakdown: no interactions in the trace.".to_owned();
    };
    let i = &inp.interaction;
    let (phase, ms) = i.largest_phase();
    format!(
        "- INPBreakdown: INP {}: {} of it is {phase} (the {} on {}); {} interaction(s).",
        duration(inp.ms),
        duration(ms),
        i.kind,
        element(i.uid.as_deref(), i.backend_node_id),
        inp.interactions
    )
}

/// The INPBreakdown details.
pub fn inp_details(set: &InsightSet, lines: &mut Vec<String>) -> Value {
    match &set.inp {
        None => lines.push("No interactions were recorded for this load.".into()),
        Some(inp) => {
            let i = &inp.interaction;
            lines.push(format!(
                "INP: {} (the {} at {}, on {}).",
                duration(inp.ms),
                i.kind,
                duration(i.start_ms),
                element(i.uid.as_deref(), i.backend_node_id)
            ));
            lines.push(format!("- Input delay: {}", duration(i.input_delay_ms)));
            lines.push(format!(
                "- Processing duration: {}",
                duration(i.processing_ms)
            ));
            lines.push(format!(
                "- Presentation delay: {}",
                duration(i.presentation_delay_ms)
            ));
            lines.push(format!(
                "Slowest of the {} interaction(s):",
                inp.interactions
            ));
            for s in &inp.slowest {
                lines.push(format!(
                    "- {} at {}: {} (input delay {}, processing {}, presentation delay {}) on {}",
                    s.kind,
                    duration(s.start_ms),
                    duration(s.duration_ms),
                    duration(s.input_delay_ms),
                    duration(s.processing_ms),
                    duration(s.presentation_delay_ms),
                    element(s.uid.as_deref(), s.backend_node_id)
                ));
            }
        }
    }
    json!(set.inp)
}

/// The ForcedReflow line of the summary.
pub fn reflow_line(set: &InsightSet) -> String {
    let r = &set.forced_reflows;
    match r.call_sites.first() {
        None => "- ForcedReflow: no forced reflows.".to_owned(),
        Some(top) => format!(
            "- ForcedReflow: {} forced reflow(s), {} in all; the most at {}: {}.",
            r.count,
            duration(r.total_ms),
            top.label(),
            duration(top.reflow_ms)
        ),
    }
}

/// The ForcedReflow details.
pub fn reflow_details(set: &InsightSet, lines: &mut Vec<String>) -> Value {
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

fn figure(f: &super::dom_size::NodeFigure) -> String {
    format!(
        "{} ({})",
        f.node_name,
        element(f.uid.as_deref(), f.backend_node_id)
    )
}

/// The DOMSize line of the summary.
pub fn dom_line(set: &InsightSet) -> String {
    let d = &set.dom_size;
    let mut line = match (d.total_elements, d.nodes) {
        (Some(total), _) => format!("- DOMSize: {} elements", count(total)),
        (None, Some(nodes)) => format!(
            "- DOMSize: {} DOM nodes (the trace has no DOMStats, which Chrome records when \
             it paints)",
            count(nodes)
        ),
        (None, None) => "- DOMSize: the trace has no DOM figures".to_owned(),
    };
    if let Some(deep) = &d.deepest {
        line += &format!(", {} deep at {}", deep.value, figure(deep));
    }
    if let Some(wide) = &d.widest {
        line += &format!(", most children {} at {}", count(wide.value), figure(wide));
    }
    if let Some(slowest) = d.large_updates.first() {
        line += &format!(
            "; {} slow large update(s), the longest {} ({} over {})",
            d.large_updates.len(),
            duration(slowest.duration_ms),
            slowest.kind,
            count(slowest.size)
        );
    }
    line + "."
}

/// The DOMSize details.
pub fn dom_details(set: &InsightSet, lines: &mut Vec<String>) -> Value {
    let d = &set.dom_size;
    match (d.total_elements, d.nodes) {
        (Some(total), _) => lines.push(format!("Total elements: {}.", count(total))),
        (None, Some(nodes)) => lines.push(format!(
            "DOM nodes (elements, text and others): {}. The trace has no DOMStats (Chrome \
             records them when it paints a frame), so depth and children are unknown.",
            count(nodes)
        )),
        (None, None) => lines.push("The trace has no DOM figures.".into()),
    }
    if let Some(deep) = &d.deepest {
        lines.push(format!("DOM depth: {}, at {}.", deep.value, figure(deep)));
    }
    if let Some(wide) = &d.widest {
        lines.push(format!(
            "Most children: {}, at {}.",
            count(wide.value),
            figure(wide)
        ));
    }
    if d.large_updates.is_empty() {
        lines.push("No style or layout update over many elements took 40 ms or more.".into());
    } else {
        lines.push("The slowest large style and layout updates:".into());
        for u in &d.large_updates {
            let what = if u.kind == "Layout" {
                format!("Layout ({} objects)", count(u.size))
            } else {
                format!("Style recalculation ({} elements)", count(u.size))
            };
            lines.push(format!(
                "- {what} at {}: {}",
                duration(u.start_ms),
                duration(u.duration_ms)
            ));
        }
    }
    json!(d)
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_are_grouped_by_thousands() {
        assert_eq!(super::count(2100), "2,100");
        assert_eq!(super::count(999), "999");
        assert_eq!(super::count(1_234_567), "1,234,567");
    }
}
