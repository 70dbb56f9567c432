//! The insights in words: a short summary per load, and each insight's details.

use serde_json::{json, Value};

use super::{InsightSet, Report};

/// A duration for people: `320 ms`, `3.2 s`.
pub fn duration(ms: f64) -> String {
    if !ms.is_finite() {
        // Only a malformed trace gives one; say so rather than "NaN ms".
        "an unknown time".to_owned()
    } else if ms.abs() < 1000.0 {
        format!("{} ms", ms.round() as i64)
    } else {
        format!("{:.1} s", ms / 1000.0)
    }
}

/// A byte count for people: `830 B`, `1.7 kB`, `2.4 MB`.
pub fn bytes(n: u64) -> String {
    match n {
        0..1_000 => format!("{n} B"),
        1_000..1_000_000 => format!("{:.1} kB", n as f64 / 1e3),
        _ => format!("{:.1} MB", n as f64 / 1e6),
    }
}

/// An element as the agent can use it: its uid, else its backend node id, labelled.
pub fn element(uid: Option<&str>, backend: Option<i64>) -> String {
    match (uid, backend) {
        (Some(uid), _) => format!("uid {uid}"),
        (None, Some(node)) => format!("backend node {node}, not found in the page now"),
        (None, None) => "an element the trace does not name".to_owned(),
    }
}

/// A line as it may be shown: the trace's strings come from the page (URLs, font
/// names, selectors, element names), and a line break or other control character in
/// one must not start a line of its own that reads like an insight.
fn one_line(line: String) -> String {
    if !line.chars().any(is_break) {
        return line;
    }
    line.chars()
        .map(|c| {
            if is_break(c) {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

fn is_break(c: char) -> bool {
    c.is_control() || c == '\u{2028}' || c == '\u{2029}'
}

/// The summary of a whole report, one block per load.
pub fn summary(report: &Report) -> Vec<String> {
    summary_lines(report).into_iter().map(one_line).collect()
}

fn summary_lines(report: &Report) -> Vec<String> {
    let mut lines = Vec::new();
    for set in &report.insight_sets {
        lines.extend(set_summary(set));
    }
    lines.push(format!(
        "For the details of one: performance_analyze_insight with the insightSetId above \
         and an insightName ({}).",
        super::INSIGHT_NAMES.join(", ")
    ));
    lines
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
    if let Some(lcp) = &set.lcp {
        let mut line = format!("- LCPBreakdown: LCP {}", duration(lcp.ms));
        if let Some(b) = &lcp.breakdown {
            let (part, ms) = b.largest();
            line += &format!(": {} of it is {part}", duration(ms));
        }
        line += &format!(
            "; the LCP element is {} ({}",
            lcp.kind,
            element(lcp.uid.as_deref(), lcp.backend_node_id)
        );
        if let Some(url) = &lcp.image_url {
            line += &format!(", {url}");
        }
        line += ").";
        lines.push(line);
        if let Some(found) = &lcp.discovery {
            lines.push(super::discovery::line(found));
        }
    } else if !set.url.is_empty() && set.drew_frames {
        lines.push("- LCPBreakdown: no LCP in the trace.".to_owned());
    }
    lines.push(super::text_more::inp_line(set));
    let cls = &set.cls;
    if cls.shifts.is_empty() {
        // Without frames no shift could have been seen: NO_FRAMES said so above.
        if set.drew_frames {
            lines.push("- CLSCulprits: CLS 0 (no layout shifts).".to_owned());
        }
    } else {
        let moved: Vec<String> = elements_of_shifts(set);
        lines.push(format!(
            "- CLSCulprits: CLS {:.3}, from {} shift(s); moved: {}.",
            cls.score,
            cls.shifts.len(),
            if moved.is_empty() {
                "elements the trace does not name".to_owned()
            } else {
                moved.join(", ")
            }
        ));
    }
    match set.long_tasks.first() {
        None => lines.push("- LongTasks: no main-thread task over 50 ms.".to_owned()),
        Some(longest) => {
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
            lines.push(line);
        }
    }
    if !set.url.is_empty() && set.drew_frames {
        match set
            .render_blocking
            .iter()
            .max_by(|a, b| a.duration_ms.total_cmp(&b.duration_ms))
        {
            None => lines.push("- RenderBlocking: no render-blocking requests.".to_owned()),
            Some(worst) => lines.push(format!(
                "- RenderBlocking: {} request(s) held up the first render; the longest, {}, took {}.",
                set.render_blocking.len(),
                worst.url,
                duration(worst.duration_ms)
            )),
        }
    }
    if let Some(doc) = &set.document {
        let mut line = format!(
            "- DocumentLatency: first byte after {}",
            duration(doc.ttfb_ms)
        );
        if let Some(server) = doc.server_ms {
            line += &format!(" ({} of it server time)", duration(server));
        }
        line += ".";
        lines.push(line);
    }
    if !set.url.is_empty() {
        lines.push(super::network_dependency_tree::line(
            &set.network_dependency_tree,
            &set.url,
        ));
    }
    lines.push(super::text_more::reflow_line(set));
    lines.push(super::text_more::dom_line(set));
    lines.push(super::text_cpu::cpu_line(set));
    lines.push(super::third_parties::line(&set.third_parties));
    lines.push(super::cache::line(&set.cache));
    lines.push(super::image_delivery::line(&set.image_delivery));
    lines.push(super::modern_http::line(&set.modern_http));
    lines.push(super::viewport::line(&set.viewport));
    if let Some(found) = &set.character_set {
        lines.push(super::charset::line(found));
    }
    lines.push(super::font_display::line(&set.font_display));
    lines.extend(super::slow_css_selector::line(&set.slow_css_selector));
    lines
}

fn elements_of_shifts(set: &InsightSet) -> Vec<String> {
    let mut named: Vec<String> = Vec::new();
    for shift in &set.cls.shifts {
        for (i, node) in shift.backend_node_ids.iter().enumerate() {
            let uid = shift.uids.get(i).cloned().flatten();
            let name = element(uid.as_deref(), Some(*node));
            if !named.contains(&name) {
                named.push(name);
            }
        }
    }
    named
}

/// One insight of one set in detail: its lines and its data. `None` for an insight
/// name tabwire does not compute.
pub fn details(set: &InsightSet, name: &str) -> Option<(Vec<String>, Value)> {
    // Names are DevTools' and compared without case: `lcpbreakdown` is LCPBreakdown.
    let name = super::INSIGHT_NAMES
        .into_iter()
        .find(|known| known.eq_ignore_ascii_case(name))?;
    let (lines, data) = detail_lines(set, name)?;
    Some((lines.into_iter().map(one_line).collect(), data))
}

fn detail_lines(set: &InsightSet, name: &str) -> Option<(Vec<String>, Value)> {
    let mut lines = vec![format!("{name} of insight set {} ({}):", set.id, set.url)];
    let data = match name {
        "LCPBreakdown" => {
            match &set.lcp {
                None if !set.drew_frames => lines.push(NO_FRAMES[2..].into()),
                None => lines.push("No LCP was recorded for this load.".into()),
                Some(lcp) => {
                    lines.push(format!("LCP: {}.", duration(lcp.ms)));
                    lines.push(format!(
                        "Element: {} ({}).",
                        lcp.kind,
                        element(lcp.uid.as_deref(), lcp.backend_node_id)
                    ));
                    if let Some(url) = &lcp.image_url {
                        lines.push(format!("Image: {url}."));
                    }
                    if let Some(b) = &lcp.breakdown {
                        lines.push(format!("- Time to first byte: {}", duration(b.ttfb_ms)));
                        if let Some(v) = b.load_delay_ms {
                            lines.push(format!("- Resource load delay: {}", duration(v)));
                        }
                        if let Some(v) = b.load_duration_ms {
                            lines.push(format!("- Resource load duration: {}", duration(v)));
                        }
                        lines.push(format!(
                            "- Element render delay: {}",
                            duration(b.render_delay_ms)
                        ));
                    }
                }
            }
            json!(set.lcp)
        }
        "LCPDiscovery" => {
            let lcp = set.lcp.as_ref();
            super::discovery::details(
                lcp.and_then(|l| l.discovery.as_ref()),
                lcp.map(|l| l.kind.as_str()),
                &mut lines,
            )
        }
        "CLSCulprits" => {
            lines.push(format!("CLS: {:.3}.", set.cls.score));
            for shift in &set.cls.shifts {
                let moved: Vec<String> = shift
                    .backend_node_ids
                    .iter()
                    .enumerate()
                    .map(|(i, n)| {
                        element(shift.uids.get(i).cloned().flatten().as_deref(), Some(*n))
                    })
                    .collect();
                lines.push(format!(
                    "- At {}: score {:.4}; moved {}",
                    duration(shift.at_ms),
                    shift.score,
                    if moved.is_empty() {
                        "nothing named".to_owned()
                    } else {
                        moved.join(", ")
                    }
                ));
            }
            json!(set.cls)
        }
        "LongTasks" => {
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
        "RenderBlocking" => {
            if set.render_blocking.is_empty() {
                lines.push("No request held up the first render.".into());
            }
            for r in &set.render_blocking {
                lines.push(format!(
                    "- {}: {} (from {})",
                    r.url,
                    duration(r.duration_ms),
                    duration(r.start_ms)
                ));
            }
            json!(set.render_blocking)
        }
        "DocumentLatency" => {
            match &set.document {
                None => lines.push("The document's request is not in the trace.".into()),
                Some(d) => {
                    lines.push(format!("Document: {}.", d.url));
                    lines.push(format!("- Time to first byte: {}", duration(d.ttfb_ms)));
                    if let Some(s) = d.server_ms {
                        lines.push(format!("- Server response time: {}", duration(s)));
                    }
                    if let Some(l) = d.loaded_ms {
                        lines.push(format!("- Downloaded after: {}", duration(l)));
                    }
                }
            }
            json!(set.document)
        }
        "NetworkDependencyTree" => super::network_dependency_tree::details(
            &set.network_dependency_tree,
            &set.url,
            &mut lines,
        ),
        "INPBreakdown" => super::text_more::inp_details(set, &mut lines),
        "ForcedReflow" => super::text_more::reflow_details(set, &mut lines),
        "DOMSize" => super::text_more::dom_details(set, &mut lines),
        "CPUProfile" => super::text_cpu::cpu_details(set, &mut lines),
        "ThirdParties" => super::third_parties::details(&set.third_parties, &mut lines),
        "Cache" => super::cache::details(&set.cache, &mut lines),
        "ImageDelivery" => super::image_delivery::details(&set.image_delivery, &mut lines),
        "ModernHTTP" => super::modern_http::details(&set.modern_http, &mut lines),
        "Viewport" => super::viewport::details(&set.viewport, &mut lines),
        "FontDisplay" => super::font_display::details(&set.font_display, &mut lines),
        "SlowCSSSelector" => super::slow_css_selector::details(&set.slow_css_selector, &mut lines),
        "CharacterSet" => match &set.character_set {
            Some(found) => super::charset::details(found, &mut lines),
            None => {
                let reason = "The trace has no page load: the character set is a document's.";
                lines.push(reason.into());
                json!({"reason": reason})
            }
        },
        _ => return None,
    };
    Some((lines, data))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_line_break_from_the_page_stays_inside_its_line() {
        assert_eq!(
            super::one_line("- FontDisplay: X\n- Cache: all good".to_owned()),
            "- FontDisplay: X\\n- Cache: all good"
        );
        assert_eq!(super::one_line("plain".to_owned()), "plain");
    }
}
