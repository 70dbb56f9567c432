//! Performance traces: what the extension's debugger may reach for them, and the
//! trace tools end to end.

use std::time::Duration;

use serde_json::{json, Value};

use crate::harness::{page, Agent};

/// Longest the browser may take to show a change the test caused.
const SEEN: Duration = Duration::from_secs(20);

/// Runs, in the extension's own service worker, each domain's first command through
/// `chrome.debugger` on a tab of its own, and returns what Chrome said per domain
/// (`{"ok": true}` or `{"ok": false, "error": …}`). Tracing is run through: started
/// with stream transfer, ended, its stream read with `IO.read` and closed.
const PROBE: &str = r#"(async (url) => {
  const [tab] = await chrome.tabs.query({url});
  const target = {tabId: tab.id};
  await chrome.debugger.attach(target, '1.3');
  const send = (method, params) => chrome.debugger.sendCommand(target, method, params || {})
    .then(result => ({ok: true, result}), e => ({ok: false, error: String(e && e.message || e)}));
  const out = {};
  const complete = new Promise(resolve => {
    const listener = (source, method, params) => {
      if (source.tabId === tab.id && method === 'Tracing.tracingComplete') {
        chrome.debugger.onEvent.removeListener(listener);
        resolve(params);
      }
    };
    chrome.debugger.onEvent.addListener(listener);
    setTimeout(() => resolve(null), 10000);
  });
  out.Tracing = await send('Tracing.start', {transferMode: 'ReturnAsStream', categories: 'devtools.timeline'});
  if (out.Tracing.ok) {
    out.Tracing = await send('Tracing.end');
    const done = await complete;
    if (!done) {
      out.Tracing = {ok: false, error: 'no Tracing.tracingComplete within 10 s'};
    } else {
      const read = await send('IO.read', {handle: done.stream, size: 65536});
      out.IO = read.ok && typeof read.result.data === 'string' ? {ok: true} : read;
      await send('IO.close', {handle: done.stream});
    }
  }
  const dom = await send('DOM.enable');
  out.CSS = dom.ok ? await send('CSS.enable') : dom;
  out.Performance = await send('Performance.enable');
  if (out.Performance.ok) out.Performance = await send('Performance.getMetrics');
  out.Runtime = await send('Runtime.evaluate', {expression: '1'});
  out.Profiler = await send('Profiler.enable');
  if (out.Profiler.ok) out.Profiler = await send('Profiler.start');
  if (out.Profiler.ok) out.Profiler = await send('Profiler.stop');
  out.HeapProfiler = await send('HeapProfiler.enable');
  if (out.HeapProfiler.ok) out.HeapProfiler = await send('HeapProfiler.collectGarbage');
  out.WebMCP = await send('WebMCP.enable');
  await chrome.debugger.detach(target);
  for (const key of Object.keys(out)) if (out[key].ok) out[key] = {ok: true};
  return out;
})"#;

#[tokio::test]
async fn the_extension_debugger_may_trace_and_read_the_trace_stream() {
    let (agent, cdp) = Agent::launch_with_cdp(&[]).await;
    agent.ok("list_pages", json!({})).await;
    let extension = cdp.wait_extension_id(SEEN).await;
    // A tab of the test's own, which the extension has not attached to.
    let url = page("index.html") + "?probe";
    cdp.open_tab(&url).await;
    cdp.wait_target("the probe tab", SEEN, |t| t.kind == "page" && t.url == url)
        .await;
    let worker = cdp.wait_service_worker(&extension, SEEN).await;
    let session = cdp.attach(&worker.target_id).await;
    let found: Value = cdp
        .evaluate(&session, &format!("{PROBE}({})", json!(url)))
        .await;
    eprintln!("chrome.debugger per domain: {found}");
    for domain in ["Tracing", "IO"] {
        assert_eq!(
            found[domain]["ok"], true,
            "the extension's debugger should reach {domain}: {found}"
        );
    }
    agent.quit().await;
}
