//! The insights in words: a short summary per load, and one insight's details. What
//! each insight says is its own ([`crate::insights::Insight`]); this writes the frame
//! around it, through the table ([`crate::insights::INSIGHTS`]).

pub mod format;

use serde_json::Value;

use crate::insights::{self, INSIGHT_NAMES};
use crate::{InsightSet, Report};
use format::one_line;

/// The summary of a whole report, one block per load.
pub fn summary(report: &Report) -> Vec<String> {
    let mut lines = Vec::new();
    for set in &report.insight_sets {
        lines.extend(set_summary(set));
    }
    lines.push(format!(
        "For the details of one: performance_analyze_insight with the insightSetId above \
         and an insightName ({}).",
        INSIGHT_NAMES.join(", ")
    ));
    lines.into_iter().map(one_line).collect()
}

/// What a load without a drawn frame says instead of paint figures.
pub const NO_FRAMES: &str = "- The tab drew no frame while recording (a tab in the \
    background that Chrome keeps hidden draws none): there are no paint events, so LCP, \
    CLS and render-blocking requests could not be measured.";

fn set_summary(set: &InsightSet) -> Vec<String> {
    let mut lines = vec![if set.url.is_empty() {
        format!("Insight set {} (no page load in the trace):", set.id)
    } else {
        format!("Insight set {} ({}):", set.id, set.url)
    }];
    if !set.drew_frames {
        lines.push(NO_FRAMES.to_owned());
    }
    for entry in insights::in_summary_order() {
        lines.extend((entry.summary)(set));
    }
    lines
}

/// One insight of one set in detail: its lines and its data. `None` for an insight
/// name tabwire does not compute.
pub fn details(set: &InsightSet, name: &str) -> Option<(Vec<String>, Value)> {
    let entry = insights::find(name)?;
    let mut lines = vec![format!(
        "{} of insight set {} ({}):",
        entry.name, set.id, set.url
    )];
    let data = (entry.details)(set, &mut lines);
    Some((lines.into_iter().map(one_line).collect(), data))
}
