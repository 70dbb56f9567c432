//! Performance: traces recorded in the browser, insights computed here.
//!
//! `performance_start_trace` starts Chrome's tracing on the page (and reloads it,
//! waiting for the load as `navigate_page` does); `performance_stop_trace` stops it,
//! reads the trace over in chunks (bounded by [`MAX_TRACE_BYTES`]), saves it where
//! asked, and answers a summary of the insights ([`tabwire_trace`]); the last trace's
//! insights stay for `performance_analyze_insight`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use tabwire_shared::{
    Navigate, Navigation, NodeUids, ReadTrace, StartTrace, StopTrace, TabId, MAX_NODE_UIDS,
};

use super::DEFAULT_TIMEOUT_MS;
use crate::mcp::context::ToolContext;
use crate::mcp::output::{self, performance};
use crate::mcp::response::{Response, Section};
use crate::mcp::spill;
use crate::mcp::tool::{Category, ErasedTool, Registered, Tool, ToolSpec};
use crate::mcp::ToolError;
use tabwire_trace::{self as trace, Report, MAX_TRACE_BYTES};

/// How long an automatic stop waits after the load, as DevTools' recording does: late
/// paints, shifts and tasks still count.
const AUTO_STOP_AFTER: Duration = Duration::from_secs(5);

/// The insights of this agent's last trace.
static LAST: Mutex<Option<Report>> = Mutex::new(None);

/// Arguments of `performance_start_trace`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StartTraceParams {
    /// Reload the page once recording has started (default true), to trace its load.
    /// Navigate to the page to measure first (navigate_page) when reload or autoStop
    /// is on.
    reload: Option<bool>,
    /// Stop the recording by itself, five seconds after the load (default true).
    auto_stop: Option<bool>,
    /// Bypass the HTTP cache on the reload, to measure a cold load (only with reload).
    ignore_cache: Option<bool>,
    /// Save the raw trace to this file (absolute, or relative to the working
    /// directory): trace.json, or trace.json.gz to compress it; either opens in the
    /// DevTools Performance panel.
    #[serde(default, deserialize_with = "super::absolute_path")]
    file_path: Option<PathBuf>,
    /// Also record how long each CSS selector took to match, for the SlowCSSSelector
    /// insight (default false: style recalculation runs slower while Chrome records
    /// them, so the trace's other timings grow).
    css_selector_stats: Option<bool>,
}

/// `performance_start_trace`
pub struct PerformanceStartTrace;

impl Tool for PerformanceStartTrace {
    type Params = StartTraceParams;
    const SPEC: ToolSpec = ToolSpec {
        name: "performance_start_trace",
        description: "Starts recording a performance trace of the page, by default reloading \
            it and stopping by itself. The answer summarises Core Web Vitals (LCP, INP, CLS) \
            and their causes, long tasks, render-blocking requests, critical request \
            chains, document latency, forced reflows, DOM size, the main thread's hottest \
            functions (a CPU profile from V8's samples), third parties, caching, images, \
            HTTP versions, fonts and (with cssSelectorStats) CSS selector costs; use it to \
            find why a page loads or responds slowly. While \
            it records, a background tab counts as visible and focused to itself, so that it \
            draws.",
        category: Category::Performance,
        read_only: false,
        page_scoped: true,
        blocked_by_dialog: true,
    };

    async fn run(
        &self,
        ctx: &ToolContext,
        p: StartTraceParams,
        response: &mut Response,
    ) -> Result<(), ToolError> {
        let tab = ctx.page()?;
        ctx.request(StartTrace {
            tab_id: tab,
            css_selector_stats: p.css_selector_stats.unwrap_or(false),
        })
        .await?;
        if p.reload.unwrap_or(true) {
            let reload = Navigate {
                tab_id: tab,
                to: Navigation::Reload {
                    ignore_cache: p.ignore_cache.unwrap_or(false),
                },
                timeout_ms: DEFAULT_TIMEOUT_MS,
            };
            if let Err(error) = ctx.request(reload).await {
                abandon(ctx, tab).await;
                return Err(ToolError::new(format!(
                    "The reload failed, so the trace was stopped and dropped: {}",
                    error.message
                )));
            }
        }
        if !p.auto_stop.unwrap_or(true) {
            response.line(
                "The performance trace is being recorded. Use performance_stop_trace to stop it.",
            );
            return Ok(());
        }
        tokio::time::sleep(AUTO_STOP_AFTER).await;
        stop_and_report(ctx, tab, p.file_path.as_deref(), response).await
    }
}

/// Arguments of `performance_stop_trace`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StopTraceParams {
    /// Save the raw trace to this file (absolute, or relative to the working
    /// directory): trace.json, or trace.json.gz to compress it; either opens in the
    /// DevTools Performance panel.
    #[serde(default, deserialize_with = "super::absolute_path")]
    file_path: Option<PathBuf>,
}

/// `performance_stop_trace`
pub struct PerformanceStopTrace;

impl Tool for PerformanceStopTrace {
    type Params = StopTraceParams;
    const SPEC: ToolSpec = ToolSpec {
        name: "performance_stop_trace",
        description: "Stops the performance trace recording on the page and summarises its \
            insights.",
        category: Category::Performance,
        read_only: false,
        page_scoped: true,
        blocked_by_dialog: false,
    };

    async fn run(
        &self,
        ctx: &ToolContext,
        p: StopTraceParams,
        response: &mut Response,
    ) -> Result<(), ToolError> {
        stop_and_report(ctx, ctx.page()?, p.file_path.as_deref(), response).await
    }
}

/// Arguments of `performance_analyze_insight`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AnalyzeInsightParams {
    /// The insight set's id, as the last trace's summary lists it.
    insight_set_id: String,
    /// Written from the table of insights, so that it names each one there is.
    #[schemars(description = tabwire_trace::insight_name_description())]
    insight_name: String,
    /// Accepted because Chrome DevTools for Agents' configurations send it; the
    /// insight is read from the last trace recorded, whichever page it was on.
    #[allow(dead_code)]
    page_id: Option<u64>,
}

/// `performance_analyze_insight`
pub struct PerformanceAnalyzeInsight;

impl Tool for PerformanceAnalyzeInsight {
    type Params = AnalyzeInsightParams;
    const SPEC: ToolSpec = ToolSpec {
        name: "performance_analyze_insight",
        description: "Gives the details of one insight of the last performance trace: the \
            numbers behind the summary line and the elements, scripts or requests involved \
            (CPUProfile: the functions that ran most, bottom-up).",
        category: Category::Performance,
        read_only: true,
        page_scoped: false,
        blocked_by_dialog: false,
    };

    async fn run(
        &self,
        _ctx: &ToolContext,
        p: AnalyzeInsightParams,
        response: &mut Response,
    ) -> Result<(), ToolError> {
        let last = LAST.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let Some(report) = last else {
            return Err(ToolError::new(
                "No performance trace was recorded yet. Record one with \
                 performance_start_trace, then ask for its insights.",
            ));
        };
        let ids: Vec<&str> = report.insight_sets.iter().map(|s| s.id.as_str()).collect();
        let Some(set) = report
            .insight_sets
            .iter()
            .find(|s| s.id == p.insight_set_id)
        else {
            return Err(ToolError::new(format!(
                "No insight set {} in the last trace; its sets are: {}.",
                p.insight_set_id,
                ids.join(", ")
            )));
        };
        let Some((lines, data)) = trace::text::details(set, &p.insight_name) else {
            if let Some(why) = trace::not_computed::reason(&p.insight_name) {
                return Err(ToolError::new(format!(
                    "tabwire does not compute {}: {why}. Open the trace saved with \
                     filePath in DevTools' Performance panel for it; the insights tabwire \
                     computes are: {}.",
                    p.insight_name,
                    trace::INSIGHT_NAMES.join(", ")
                )));
            }
            return Err(ToolError::new(format!(
                "No insight named {}; the insights are: {}.",
                p.insight_name,
                trace::INSIGHT_NAMES.join(", ")
            )));
        };
        response.add_section(Section {
            title: "Performance insight",
            lines,
            data: output::entries(&performance::Keys {
                performance_insight: Some(performance::Insight {
                    insight_set_id: &set.id,
                    insight_name: &p.insight_name,
                    url: &set.url,
                    details: data,
                }),
                ..performance::Keys::default()
            }),
        });
        Ok(())
    }
}

/// The bytes to write to `path`: gzip-compressed when its name ends in `.gz` (the
/// `.json.gz` the Performance panel opens, and Chrome DevTools for Agents writes), else
/// the trace's JSON as it is.
fn file_bytes(path: &Path, json: Vec<u8>) -> Result<Vec<u8>, ToolError> {
    if !path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gz"))
    {
        return Ok(json);
    }
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gz, &json)
        .and_then(|()| gz.finish())
        .map_err(|e| ToolError::new(format!("Could not compress the trace: {e}.")))
}

/// Ends a recording nobody will read (after a failure), leaving nothing open.
async fn abandon(ctx: &ToolContext, tab: TabId) {
    if let Ok(chunk) = ctx.request(StopTrace { tab_id: tab }).await {
        if !chunk.eof {
            let discard = ReadTrace {
                tab_id: tab,
                stream: chunk.stream,
                discard: true,
            };
            let _ = ctx.request(discard).await;
        }
    }
}

/// Gives the elements the insights name their snapshot uids, asking the page in
/// pieces; an element the page no longer has keeps none (and is said to be gone).
async fn name_elements(ctx: &ToolContext, tab: TabId, report: &mut Report) {
    let ids = trace::elements::backend_ids(report);
    let mut uids = HashMap::new();
    for piece in ids.chunks(MAX_NODE_UIDS) {
        let ask = NodeUids {
            tab_id: tab,
            backend_node_ids: piece.to_vec(),
        };
        // A page that cannot answer (closed, navigating) has none of them now.
        let Ok(found) = ctx.request(ask).await else {
            break;
        };
        for (id, uid) in piece.iter().zip(found) {
            if let Some(uid) = uid {
                uids.insert(*id, uid);
            }
        }
    }
    trace::elements::name(report, &uids);
}

/// Stops the recording, reads the trace, saves it if asked and states the insights.
async fn stop_and_report(
    ctx: &ToolContext,
    tab: TabId,
    file_path: Option<&Path>,
    response: &mut Response,
) -> Result<(), ToolError> {
    let mut chunk = ctx.request(StopTrace { tab_id: tab }).await?;
    let data_loss = chunk.data_loss;
    let mut bytes: Vec<u8> = Vec::new();
    loop {
        bytes.extend_from_slice(chunk.data.as_bytes());
        if chunk.eof {
            break;
        }
        if bytes.len() > MAX_TRACE_BYTES {
            let discard = ReadTrace {
                tab_id: tab,
                stream: chunk.stream,
                discard: true,
            };
            let _ = ctx.request(discard).await;
            return Err(ToolError::new(format!(
                "The trace is over {} MiB, more than tabwire reads. Record a shorter one: \
                 performance_start_trace with autoStop (the load and five seconds), or \
                 stop sooner with performance_stop_trace.",
                MAX_TRACE_BYTES >> 20
            )));
        }
        let next = ReadTrace {
            tab_id: tab,
            stream: chunk.stream.clone(),
            discard: false,
        };
        chunk = ctx.request(next).await?;
    }
    response.line("The performance trace has been stopped.");
    if data_loss {
        response.line("Chrome's trace buffer filled up: some events were lost.");
    }
    let mut events = trace::events::parse(&bytes);
    // What the Performance panel needs and the extension's debugger cannot record: the
    // saved file gets it, and so does the analysis, so that both see the same trace
    // (without it, a trace with no page load would not know the page's own site).
    let start = match &events {
        Ok(events) => trace::browser::devtools_start(events, &tab_url(ctx, tab).await),
        Err(_) => None,
    };
    if let (Ok(events), Some(event)) = (&mut events, &start) {
        trace::events::insert(events, event);
    }
    if let Some(path) = file_path {
        let bytes = match &start {
            Some(event) => trace::browser::with_event(bytes, event),
            None => bytes,
        };
        spill::write_bytes(path, &file_bytes(path, bytes)?)?;
        response.line(format!("The raw trace was saved to {}.", path.display()));
    } else {
        drop(bytes);
    }
    let events = events.map_err(|e| ToolError::new(format!("Could not read the trace: {e}.")))?;
    // Off the async threads: a long trace takes a while to go through.
    let analysis = tokio::task::spawn_blocking(move || trace::analyze(&events)).await;
    let mut report =
        analysis.map_err(|e| ToolError::new(format!("Could not analyse the trace: {e}.")))?;
    name_elements(ctx, tab, &mut report).await;
    let lines = trace::text::summary(&report);
    let data = output::entries(&performance::Keys {
        performance_trace: Some(performance::Trace {
            duration_ms: report.duration_ms,
            insight_sets: &report.insight_sets,
            file_path: file_path.map(|path| path.display().to_string()),
        }),
        ..performance::Keys::default()
    });
    *LAST.lock().unwrap_or_else(|e| e.into_inner()) = Some(report);
    response.add_section(Section {
        title: "Performance insights",
        lines,
        data,
    });
    Ok(())
}

/// The tab's URL, or `""` when the browser does not say.
async fn tab_url(ctx: &ToolContext, tab: TabId) -> String {
    ctx.list_tabs()
        .await
        .ok()
        .and_then(|tabs| tabs.into_iter().find(|t| t.id == tab))
        .map(|t| t.url)
        .unwrap_or_default()
}

/// This group's tools, for the registry.
pub fn tools() -> Vec<Box<dyn ErasedTool>> {
    vec![
        Box::new(Registered::new(PerformanceStartTrace)),
        Box::new(Registered::new(PerformanceStopTrace)),
        Box::new(Registered::new(PerformanceAnalyzeInsight)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    /// The argument's description is the table's: every insight, in order, and those
    /// left out.
    #[test]
    fn the_insight_name_argument_names_every_insight_in_the_tables_order() {
        let schema = crate::mcp::schema::input_schema::<super::AnalyzeInsightParams>(false);
        let described = schema["properties"]["insightName"]["description"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert_eq!(described, tabwire_trace::insight_name_description());
        let mut from = 0;
        for name in tabwire_trace::INSIGHT_NAMES {
            let Some(at) = described[from..].find(name) else {
                panic!("{name} missing from, or out of order in: {described}");
            };
            from += at + name.len();
        }
        for (name, _) in tabwire_trace::not_computed::NOT_COMPUTED {
            assert!(described.contains(name), "{name} missing from: {described}");
        }
        assert!(described.contains("CPUProfile (the main thread's functions"));
    }

    #[test]
    fn a_gz_file_gets_the_trace_compressed_and_a_json_file_as_it_is() {
        let json = br#"{"traceEvents":[]}"#.to_vec();
        assert_eq!(file_bytes(Path::new("t.json"), json.clone()).unwrap(), json);
        let packed = file_bytes(Path::new("t.json.gz"), json.clone()).unwrap();
        let mut unpacked = Vec::new();
        flate2::read::GzDecoder::new(packed.as_slice())
            .read_to_end(&mut unpacked)
            .unwrap();
        assert_eq!(unpacked, json);
    }
}
